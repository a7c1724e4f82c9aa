/* Fuzz target: the W2 compiler, in process, as warp-cc runs it: w2_compile, then
 * (when that succeeds) the backend on the unoptimised module for Warp, and after
 * wb_optimize at -O2 for both models, and the assembler on the -O2 Warp output.
 * Nothing may crash or hang, and each stage keeps its promises to the user:
 *
 *   - the frontend returns a module exactly when it reported no error, so no
 *     input fails without a message and no error is ignored;
 *   - it never reports an internal error (invalid LLVM IR of its own making);
 *   - every position it reports lies in the source (line 1 to the last + 1);
 *   - the backend's failures are messages, and the assembly it writes assembles.
 *
 * Seeds: examples/, bench/ and the lit suite's W2 programs (make_seeds.sh).
 * Smoke test: fuzz-cases: 3000. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "fuzz.h"
#include "w2_frontend.h"
#include "warp_assembler.h"
#include "warp_backend.h"
#include "warp_support.h"
#include "warp_target.h"

#define NAME "input.w2"

static FILE *sink;

/* The messages were written without the source lines (so that no source text can
 * pass for a message): each is one line. The positions in "NAME:LINE:COL: "
 * prefixes must lie in the source; each is then reported again with the source
 * line and caret, to a sink, as the tools show it. */
static void check_messages(const char *diags, const char *text, size_t size)
{
    long lines = 1;
    for (size_t i = 0; i < size; i++) lines += text[i] == '\n';
    size_t nl = strlen(NAME);
    ws_diag shown;
    ws_diag_init(&shown, NAME, text, size);
    shown.out = sink;
    shown.max_errors = 0;
    for (const char *l = diags; *l;) {
        static const char internal[] = NAME ": error: internal error";
        fuzz_require(strncmp(l, internal, sizeof internal - 1) != 0, "the frontend reported an internal error");
        long line, col;
        if (strncmp(l, NAME, nl) == 0 && l[nl] == ':' && sscanf(l + nl + 1, "%ld:%ld:", &line, &col) == 2) {
            fuzz_require(line >= 1 && line <= lines + 1 && col >= 1, "position %ld:%ld outside the source (%ld lines)",
                         line, col, lines);
            ws_report(&shown, WS_NOTE, (int)line, (int)col, "shown again");
        }
        const char *next = strchr(l, '\n');
        if (!next) break;
        l = next + 1;
    }
}

/* The backend either writes assembly or says what it cannot do. */
static void backend(LLVMModuleRef m, const wt_model *model, int opt, int debug_info, int assemble)
{
    ws_diagnostic err;
    ws_buf out = {0};
    wb_options opts = {.model = model, .opt_level = opt, .debug_info = debug_info};
    if (wb_emit_assembly(m, &opts, &out, &err) != 0) {
        fuzz_require(err.message[0] != 0, "the backend failed without a message (%s, -O%d)", model->name, opt);
    } else if (assemble) {
        ws_diag d;
        ws_diag_init(&d, "input.s", out.data, out.len);
        d.out = fuzz_begin();
        was_options aopts = {.model = model};
        int rc = was_assemble("input.s", out.data ? out.data : "", out.len, &aopts, fuzz_path("w2.o"), &d);
        fuzz_require(rc == 0, "the assembler rejects the backend's output (%s, -O%d):\n%s", model->name, opt,
                     out.data ? out.data : "");
    }
    ws_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The frontend takes any bytes with a NUL after them, as ws_read_file gives. */
    char *text = ws_xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    int debug_info = size % 2; /* both ways, each input one */

    if (!sink) sink = fopen("/dev/null", "w");
    ws_diag d;
    ws_diag_init(&d, NAME, NULL, size);
    d.out = fuzz_begin();
    w2_options fopts = {.debug_info = debug_info};
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = w2_compile(NAME, text, size, &fopts, ctx, &d);
    const char *diags = fuzz_messages();
    fuzz_require(m || d.errors, "no module, but no error reported");
    fuzz_require(!m || !d.errors, "a module despite %d error(s)", d.errors);
    check_messages(diags, text, size);

    if (m) {
        LLVMModuleRef o0 = LLVMCloneModule(m);
        backend(o0, wt_model_get(WT_MODEL_WARP), 0, debug_info, 0);
        LLVMDisposeModule(o0);
        ws_diagnostic err;
        /* Warp's budget, the smaller: the one module serves both models */
        if (wb_optimize(m, wt_model_get(WT_MODEL_WARP), 2, &err) != 0) {
            fuzz_require(err.message[0] != 0, "wb_optimize failed without a message");
        } else {
            LLVMModuleRef copy = LLVMCloneModule(m);
            backend(copy, wt_model_get(WT_MODEL_WARP), 2, debug_info, 1);
            LLVMDisposeModule(copy);
            backend(m, wt_model_get(WT_MODEL_IWARP), 2, debug_info, 0);
        }
        LLVMDisposeModule(m);
    }
    LLVMContextDispose(ctx);
    free(text);
    return 0;
}
