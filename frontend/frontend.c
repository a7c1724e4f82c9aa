/* w2_compile: the frontend's pipeline, one stage a line (w2_internal.h), and the
 * diagnostic helpers the stages share. */
#include "w2_internal.h"

#include <llvm-c/Analysis.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

void w2_error(w2_ctx *c, w2_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ws_vreport(c->diag, WS_ERROR, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

void w2_warning(w2_ctx *c, w2_loc loc, const char *fmt, ...)
{
    /* After "too many errors ... stopping now" nothing more is shown. */
    ws_diag *d = c->diag;
    if (d->max_errors && d->errors > d->max_errors) return;
    va_list ap;
    va_start(ap, fmt);
    ws_vreport(c->diag, WS_WARNING, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

void w2_note(w2_ctx *c, w2_loc loc, const char *fmt, ...)
{
    ws_diag *d = c->diag;
    if (d->max_errors && d->errors > d->max_errors) return;
    va_list ap;
    va_start(ap, fmt);
    ws_vreport(d, WS_NOTE, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

void w2_flush_lexical(w2_ctx *c, w2_loc upto)
{
    while (c->next_pending < c->npending) {
        w2_pending *e = &c->pending[c->next_pending];
        if (e->loc.line > upto.line || (e->loc.line == upto.line && e->loc.col > upto.col)) break;
        ws_report(c->diag, WS_ERROR, e->loc.line, e->loc.col, "%s", e->msg);
        c->next_pending++;
    }
}

LLVMModuleRef w2_compile(const char *path, const char *text, size_t len, const w2_options *opts,
                         LLVMContextRef ctx, ws_diag *diag)
{
    static const w2_options defaults = {0};
    if (!opts) opts = &defaults;
    if (opts->werror) diag->werror = 1;
    w2_ctx c = {.path = path, .text = text, .len = len, .opts = opts, .diag = diag};
    int errors_before = diag->errors;

    size_t ntokens;
    w2_token *tokens = w2_lex(&c, &ntokens);
    w2_program *prog = w2_parse(&c, tokens);
    w2_flush_lexical(&c, (w2_loc){INT_MAX, INT_MAX});
    if (c.syntax_errors == 0) w2_check(&c, prog);
    LLVMModuleRef m = diag->errors == errors_before ? w2_lower(&c, prog, ctx) : NULL;

    char *msg = NULL;
    if (m && LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        ws_report(diag, WS_ERROR, 0, 0, "internal error: the frontend made invalid LLVM IR: %s", msg);
        LLVMDisposeModule(m);
        m = NULL;
    }
    LLVMDisposeMessage(msg);
    free(tokens);
    free(c.pending);
    ws_arena_free(&c.arena);
    return m;
}
