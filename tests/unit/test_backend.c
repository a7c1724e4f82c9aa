/* Unit tests of backend/: modules written by hand in the frontend's conventions
 * (docs/design.md, section 2) go through wb_optimize and wb_emit_assembly; the
 * assembly is checked for the operations selected, gate operands, bundling, and,
 * by a small checker that re-reads every bundle, for the machine's rules: slots per
 * unit class, two literals a bundle, one branch, a register read only once its
 * latest definition completed, writes to a register completing in order, a host
 * feed completed before its queue is read, one read of a queue a bundle, and every
 * operation complete before control leaves its block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "mir.h"
#include "warp_assembler.h"
#include "warp_backend.h"
#include "warp_linker.h"
#include "warp_runtime.h"
#include "warp_sim.h"

/* ---- Modules ----------------------------------------------------------------------- */

#define HEADER                                                                            \
    "target datalayout = \"e-m:e-p:32:32-i64:32-f64:32-n32-S32\"\n"                       \
    "target triple = \"warp-unknown-none\"\n"                                             \
    "declare float @w2.recv.f32(i32) #0\n"                                                \
    "declare i32 @w2.recv.i32(i32) #0\n"                                                  \
    "declare void @w2.send.f32(i32, float) #0\n"                                          \
    "declare void @w2.send.i32(i32, i32) #0\n"                                            \
    "declare void @w2.host.feed.f32(i32, float) #0\n"                                     \
    "declare void @w2.host.feed.i32(i32, i32) #0\n"                                       \
    "declare void @w2.host.dest(i32, i32) #0\n"                                           \
    "declare i32 @w2.cellid() #1\n"                                                       \
    "declare i32 @w2.idiv(i32, i32) #2\n"                                                 \
    "declare i32 @w2.imod(i32, i32) #2\n"                                                 \
    "attributes #0 = { memory(inaccessiblemem: readwrite) nounwind willreturn }\n"        \
    "attributes #1 = { memory(none) nounwind willreturn speculatable }\n"                 \
    "attributes #2 = { memory(none) nounwind }\n"

/* The polynomial sample as the frontend lowers it at -O0 (locals in allocas). */
static const char *poly_ir =
    HEADER
    "@data = external addrspace(1) constant [100 x float]\n"
    "@coeffs = external addrspace(1) constant [10 x float]\n"
    "@results = external addrspace(1) global [100 x float]\n"
    "define internal void @poly() {\n"
    "entry:\n"
    "  %coeff = alloca float\n"
    "  %temp = alloca float\n"
    "  %xin = alloca float\n"
    "  %yin = alloca float\n"
    "  %ans = alloca float\n"
    "  %i = alloca i32\n"
    "  %c0 = load float, ptr addrspace(1) @coeffs\n"
    "  call void @w2.host.feed.f32(i32 0, float %c0)\n"
    "  %r0 = call float @w2.recv.f32(i32 0)\n"
    "  store float %r0, ptr %coeff\n"
    "  store i32 1, ptr %i\n"
    "  br label %cond1\n"
    "cond1:\n"
    "  %iv = load i32, ptr %i\n"
    "  %c = icmp sle i32 %iv, 9\n"
    "  br i1 %c, label %body1, label %end1\n"
    "body1:\n"
    "  %iv2 = load i32, ptr %i\n"
    "  %p = getelementptr [10 x float], ptr addrspace(1) @coeffs, i32 0, i32 %iv2\n"
    "  %v = load float, ptr addrspace(1) %p\n"
    "  call void @w2.host.feed.f32(i32 0, float %v)\n"
    "  %r = call float @w2.recv.f32(i32 0)\n"
    "  store float %r, ptr %temp\n"
    "  %t = load float, ptr %temp\n"
    "  call void @w2.send.f32(i32 2, float %t)\n"
    "  call void @w2.host.dest(i32 2, i32 -1)\n"
    "  %iv3 = load i32, ptr %i\n"
    "  %inc = add i32 %iv3, 1\n"
    "  store i32 %inc, ptr %i\n"
    "  br label %cond1\n"
    "end1:\n"
    "  call void @w2.send.f32(i32 2, float 0.0)\n"
    "  call void @w2.host.dest(i32 2, i32 -1)\n"
    "  store i32 0, ptr %i\n"
    "  br label %cond2\n"
    "cond2:\n"
    "  %jv = load i32, ptr %i\n"
    "  %c2 = icmp sle i32 %jv, 99\n"
    "  br i1 %c2, label %body2, label %end2\n"
    "body2:\n"
    "  %jv2 = load i32, ptr %i\n"
    "  %pd = getelementptr [100 x float], ptr addrspace(1) @data, i32 0, i32 %jv2\n"
    "  %d = load float, ptr addrspace(1) %pd\n"
    "  call void @w2.host.feed.f32(i32 0, float %d)\n"
    "  %x = call float @w2.recv.f32(i32 0)\n"
    "  store float %x, ptr %xin\n"
    "  call void @w2.host.feed.f32(i32 1, float 0.0)\n"
    "  %y = call float @w2.recv.f32(i32 1)\n"
    "  store float %y, ptr %yin\n"
    "  %xs = load float, ptr %xin\n"
    "  call void @w2.send.f32(i32 2, float %xs)\n"
    "  call void @w2.host.dest(i32 2, i32 -1)\n"
    "  %cf = load float, ptr %coeff\n"
    "  %yy = load float, ptr %yin\n"
    "  %xx = load float, ptr %xin\n"
    "  %m = fmul float %yy, %xx\n"
    "  %a = fadd float %cf, %m\n"
    "  store float %a, ptr %ans\n"
    "  %aa = load float, ptr %ans\n"
    "  call void @w2.send.f32(i32 3, float %aa)\n"
    "  %jv3 = load i32, ptr %i\n"
    "  %pr = getelementptr [100 x float], ptr addrspace(1) @results, i32 0, i32 %jv3\n"
    "  %pri = ptrtoint ptr addrspace(1) %pr to i32\n"
    "  call void @w2.host.dest(i32 3, i32 %pri)\n"
    "  %jv4 = load i32, ptr %i\n"
    "  %inc2 = add i32 %jv4, 1\n"
    "  store i32 %inc2, ptr %i\n"
    "  br label %cond2\n"
    "end2:\n"
    "  ret void\n"
    "}\n"
    "define void @main() {\n"
    "  call void @poly()\n"
    "  ret void\n"
    "}\n"
    "!w2.host = !{!0, !1, !2}\n"
    "!0 = !{!\"data\", !\"in\", !\"float\", i32 100, i32 0}\n"
    "!1 = !{!\"coeffs\", !\"in\", !\"float\", i32 10, i32 0}\n"
    "!2 = !{!\"results\", !\"out\", !\"float\", i32 100, i32 0}\n"
    "!w2.cells = !{!3}\n"
    "!3 = !{i32 0, i32 9}\n"
    "!w2.source = !{!4}\n"
    "!4 = !{!\"polynomial.w2\"}\n";

/* The Horner loop alone, already in SSA form. */
static const char *horner_ir =
    HEADER
    "@data = external addrspace(1) constant [100 x float]\n"
    "@results = external addrspace(1) global [100 x float]\n"
    "define void @main() {\n"
    "entry:\n"
    "  %coeff = call float @w2.recv.f32(i32 0)\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]\n"
    "  %pd = getelementptr [100 x float], ptr addrspace(1) @data, i32 0, i32 %i\n"
    "  %d = load float, ptr addrspace(1) %pd\n"
    "  call void @w2.host.feed.f32(i32 0, float %d)\n"
    "  %x = call float @w2.recv.f32(i32 0)\n"
    "  call void @w2.host.feed.f32(i32 1, float 0.0)\n"
    "  %y = call float @w2.recv.f32(i32 1)\n"
    "  call void @w2.send.f32(i32 2, float %x)\n"
    "  call void @w2.host.dest(i32 2, i32 -1)\n"
    "  %m = fmul float %y, %x\n"
    "  %a = fadd float %coeff, %m\n"
    "  call void @w2.send.f32(i32 3, float %a)\n"
    "  %pr = getelementptr [100 x float], ptr addrspace(1) @results, i32 0, i32 %i\n"
    "  %pri = ptrtoint ptr addrspace(1) %pr to i32\n"
    "  call void @w2.host.dest(i32 3, i32 %pri)\n"
    "  %i.next = add nuw nsw i32 %i, 1\n"
    "  %done = icmp eq i32 %i.next, 100\n"
    "  br i1 %done, label %exit, label %loop\n"
    "exit:\n"
    "  ret void\n"
    "}\n"
    "!w2.host = !{!0, !1}\n"
    "!0 = !{!\"data\", !\"in\", !\"float\", i32 100, i32 0}\n"
    "!1 = !{!\"results\", !\"out\", !\"float\", i32 100, i32 0}\n"
    "!w2.cells = !{!2}\n"
    "!2 = !{i32 0, i32 9}\n";

/* Compiles IR text; returns the assembly (malloc'd) or NULL with the error in err. */
/* Tests of the list scheduler's and gate folding's shapes turn pipelining off. */
static int no_swp;
/* When set, the pipeliner's report of the last compile (-Rpass=swp). */
static wb_remarks *swp_report;

/* Where the last failed compile located its error (0: nowhere). */
static int compile_error_line, compile_error_col;

static char *compile_ir(const char *ir, int opt, const char *model, int debug, char *err, size_t errlen)
{
    compile_error_line = compile_error_col = 0;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "test.ll");
    LLVMModuleRef m;
    char *msg = NULL;
    if (LLVMParseIRInContext(ctx, mb, &m, &msg)) {
        fail_msg("IR does not parse: %s", msg);
    }
    char *out = NULL;
    ws_diagnostic e;
    if (wb_optimize(m, wt_model_by_name(model), opt, &e) != 0) {
        if (snprintf(err, errlen, "backend: %s", e.message) < 0) err[0] = 0;
    } else {
        wb_options o = {.model = wt_model_by_name(model), .opt_level = opt, .debug_info = debug, .no_swp = no_swp,
                        .swp_report = swp_report};
        ws_buf b = {0};
        if (wb_emit_assembly(m, &o, &b, &e) == 0) {
            ws_buf_append(&b, "", 1);
            out = b.data;
        } else {
            /* as warp-cc says it of an error with no position; a long one is cut */
            if (snprintf(err, errlen, "backend: %s", e.message) < 0) err[0] = 0;
            compile_error_line = e.line;
            compile_error_col = e.col;
            ws_buf_free(&b);
        }
    }
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return out;
}

static char *compile_ok(const char *ir, int opt, const char *model)
{
    char err[512] = "";
    char *s = compile_ir(ir, opt, model, 0, err, sizeof err);
    if (!s) fail_msg("compile failed (-O%d, %s): %s", opt, model, err);
    return s;
}

/* ---- The checker ------------------------------------------------------------------- */

typedef struct cop {
    wt_op op;
    char opnd[4][64];
    int n;
} cop;

typedef struct checker {
    const wt_model *m;
    char why[300];
    int t;                     /* bundle index in the block */
    int def_t[64], def_end[64], def_valid[64];
    int feed_end[4][64];       /* per queue, the completion clocks of feeds not yet read (FIFO) */
    int feed_head[4], feed_n[4];
    int max_end;
    int busy_until[WT_NUCLASSES];  /* a non-pipelined operation's unit class */
    int bundles;               /* bundles checked in all */
} checker;

static void block_reset(checker *c)
{
    c->t = 0;
    c->max_end = 0;
    memset(c->busy_until, 0, sizeof c->busy_until);
    memset(c->def_valid, 0, sizeof c->def_valid);
    memset(c->feed_n, 0, sizeof c->feed_n);
}

static int bad(checker *c, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(c->why, sizeof c->why, "line %d: ", line);
    vsnprintf(c->why + n, sizeof c->why - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

/* Splits "mn a, [b, c], d" into the mnemonic and operands ([...] kept whole). */
static int parse_op(char *text, cop *o)
{
    char *sp = strchr(text, ' ');
    char mn[16] = "";
    size_t ml = sp ? (size_t)(sp - text) : strlen(text);
    if (ml >= sizeof mn) return -1;
    memcpy(mn, text, ml);
    o->op = wt_op_lookup(mn);
    o->n = 0;
    if (o->op == WT_OP_NONE) return -1;
    char *p = sp ? sp + 1 : text + ml;
    while (*p) {
        while (*p == ' ') p++;
        char *start = p;
        int depth = 0;
        while (*p && (depth || *p != ',')) {
            depth += *p == '[';
            depth -= *p == ']';
            p++;
        }
        if (o->n == 4) return -1;
        size_t len = (size_t)(p - start);
        if (len >= sizeof o->opnd[0]) return -1;
        memcpy(o->opnd[o->n], start, len);
        o->opnd[o->n][len] = 0;
        trim(o->opnd[o->n]);
        o->n++;
        if (*p == ',') p++;
    }
    return 0;
}

/* A literal's 32 bits (floats by their value, symbols hashed by name), for sharing. */
static int literal_key(const char *s, char imm_type, char *key, size_t n)
{
    if (wt_opnd_parse(s, strlen(s)) >= 0) return 0;
    int is_hex = s[0] == '0' && s[1] == 'x';
    int is_num = isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+';
    if (!is_num) {
        snprintf(key, n, "sym:%s", s);
        return 1;
    }
    uint32_t bits;
    if (is_hex) bits = (uint32_t)strtoul(s, NULL, 16);
    else if (strpbrk(s, ".eE") || imm_type == 'f') bits = wt_u(strtof(s, NULL));
    else bits = (uint32_t)strtol(s, NULL, 10);
    snprintf(key, n, "%08x", (unsigned)bits);
    return 1;
}

typedef struct reads { int regs[8]; int nregs; unsigned gates; } reads;

static void add_read(reads *r, const char *s)
{
    int code = wt_opnd_parse(s, strlen(s));
    if (code < 0) return;
    if (wt_opnd_is_reg((unsigned)code) && code != 0 && r->nregs < 8) r->regs[r->nregs++] = code;
    if (wt_opnd_is_gate((unsigned)code)) r->gates |= 1u << (code - WT_OPND_GATE);
}

static int check_bundle(checker *c, char *line, int lineno)
{
    /* The Warp interface unit's operations follow `||`: units of their own, its own
     * registers (the backend allocates the two together, so one file models both). */
    cop ops[2 * WT_NSLOTS + 2];
    int nops = 0, ncell = -1;
    char *iu = strstr(line, " || ");
    if (iu) {
        *iu = 0;
        iu += 4;
    }
    for (int part_of = 0; part_of < 2; part_of++) {
        char *text = part_of ? iu : line;
        if (part_of) ncell = nops;
        if (!text || strcmp(text, "nop") == 0) continue;
        for (char *part = text;;) {
            char *bar = strstr(part, " | ");
            if (bar) *bar = 0;
            if (nops - (part_of ? ncell : 0) == WT_NSLOTS) return bad(c, lineno, "more operations than slots");
            if (parse_op(trim(part), &ops[nops]) < 0) return bad(c, lineno, "cannot read '%s'", part);
            nops++;
            if (!bar) break;
            part = bar + 3;
        }
    }
    int used[2 * WT_NUCLASSES] = {0};
    char lits[8][40];
    int nlits = 0, branch = 0;
    unsigned gate_readers[4] = {0};
    reads rd[WT_NSLOTS + 2];
    memset(rd, 0, sizeof rd);
    for (int i = 0; i < nops; i++) {
        const wt_op_info *info = &wt_ops[ops[i].op];
        used[info->uclass + (i >= ncell ? WT_NUCLASSES : 0)]++;
        /* A pipelined kernel's dbnz leaves work in flight for the next pass or
         * the epilogue that follows it (the allocator keeps those registers). */
        branch |= info->uclass == WT_UC_BR && ops[i].op != WT_OP_DBNZ;
        int k = 0;
        for (const char *p = info->sig; *p; p++, k++) {
            if (k >= ops[i].n) return bad(c, lineno, "%s lacks operands", info->name);
            char *o = ops[i].opnd[k];
            char parts[2][64];
            int np = 1;
            if (*p == 't' || *p == 'd') continue;
            if (*p == 'm') {
                if (o[0] != '[') return bad(c, lineno, "%s: memory operand expected", info->name);
                char tmp[64];
                snprintf(tmp, sizeof tmp, "%s", o + 1);
                char *close = strchr(tmp, ']');
                if (close) *close = 0;
                char *comma = strchr(tmp, ',');
                if (comma) {
                    *comma = 0;
                    snprintf(parts[1], sizeof parts[1], "%s", trim(comma + 1));
                    np = 2;
                }
                snprintf(parts[0], sizeof parts[0], "%s", trim(tmp));
            } else {
                snprintf(parts[0], sizeof parts[0], "%s", o);
            }
            for (int q = 0; q < np; q++) {
                char key[40];
                if (literal_key(parts[q], *p == 'm' ? 'i' : info->imm_type, key, sizeof key)) {
                    int seen = 0;
                    for (int x = 0; x < nlits; x++) seen |= !strcmp(lits[x], key);
                    if (!seen && nlits < 8) snprintf(lits[nlits++], sizeof lits[0], "%s", key);
                } else {
                    add_read(&rd[i], parts[q]);
                }
            }
        }
        for (int q = 0; q < 4; q++)
            if (rd[i].gates >> q & 1) gate_readers[q]++;
    }
    for (int uc = 1; uc < 2 * WT_NUCLASSES; uc++) {
        /* the cells' classes issue at the model's rate; the IU's (Warp only) fill their slots */
        wt_unit_class k = (wt_unit_class)(uc % WT_NUCLASSES);
        unsigned limit = uc < WT_NUCLASSES ? wt_class_issue(c->m, k) : wt_class_slots(k);
        if (used[uc] > (int)limit)
            return bad(c, lineno, "%d %s operations, %u slots", used[uc], wt_unit_class_name(k), limit);
    }
    if (nlits > 2) return bad(c, lineno, "%d distinct literals", nlits);
    /* Several operations may name one input gate: the bundle dequeues it once and
     * all of them see the word (docs/design.md, operand space). */
    /* iWarp: more gate operations than a clock takes only when one operation has them. */
    int gate_ops = 0, gate_users = 0;
    for (int q = 0; q < 4; q++) gate_ops += gate_readers[q] > 0;
    for (int i = 0; i < nops; i++) {
        int code = ops[i].n ? wt_opnd_parse(ops[i].opnd[0], strlen(ops[i].opnd[0])) : -1;
        /* host-feed and host-address writes are not gate operations (design.md) */
        int writes = wt_ops[ops[i].op].sig[0] == 'd' && code >= 0 && wt_opnd_is_gate((unsigned)code);
        gate_ops += writes;
        gate_users += writes || rd[i].gates;
    }
    if (c->m->gate_ops_per_clock && gate_ops > (int)c->m->gate_ops_per_clock && gate_users > 1)
        return bad(c, lineno, "%d gate operations in one bundle", gate_ops);

    /* Reads happen at issue: a register's latest definition must have completed. */
    int t = c->t;
    for (int uc = 1; uc < WT_NUCLASSES; uc++)
        if (used[uc] && t < c->busy_until[uc])
            return bad(c, lineno, "%s unit busy with a non-pipelined operation", wt_unit_class_name((wt_unit_class)uc));
    for (int i = 0; i < nops; i++) {
        for (int k = 0; k < rd[i].nregs; k++) {
            int r = rd[i].regs[k];
            if (c->def_valid[r] && c->def_t[r] < t && t < c->def_end[r])
                return bad(c, lineno, "r%d read at bundle %d, its definition at %d completes at %d", r, t,
                           c->def_t[r], c->def_end[r]);
        }
    }
    /* A bundle's read of a queue takes the oldest word fed: that feed must have completed. */
    for (int q = 0; q < 4; q++)
        if (gate_readers[q] && c->feed_n[q] > 0) {
            int end = c->feed_end[q][c->feed_head[q]];
            c->feed_head[q] = (c->feed_head[q] + 1) % 64;
            c->feed_n[q]--;
            if (t < end) return bad(c, lineno, "queue %d read at bundle %d before its feed completes", q, t);
        }
    for (int i = 0; i < nops; i++) {
        const wt_op_info *info = &wt_ops[ops[i].op];
        int lat = info->latency[c->m->id], ivl = info->interval[c->m->id];
        int end = t + (lat > ivl ? lat : ivl);
        if (end > c->max_end) c->max_end = end;
        if (ivl > 1) c->busy_until[info->uclass] = t + ivl;
        if (info->sig[0] != 'd') continue;
        int code = wt_opnd_parse(ops[i].opnd[0], strlen(ops[i].opnd[0]));
        if (code > 0 && code < 64) {
            if (c->def_valid[code] && c->def_end[code] >= t + lat)
                return bad(c, lineno, "writes to r%d complete out of order", code);
            c->def_valid[code] = 1;
            c->def_t[code] = t;
            c->def_end[code] = t + lat;
        } else if (code >= 0 && wt_opnd_is_feed((unsigned)code)) {
            int q = code - WT_OPND_FEED;
            if (c->feed_n[q] < 64) c->feed_end[q][(c->feed_head[q] + c->feed_n[q]++) % 64] = t + lat;
        }
    }
    c->t++;
    c->bundles++;
    if (branch) {
        if (c->max_end > c->t) return bad(c, lineno, "an operation completes after the block's branch");
        block_reset(c);
    }
    return 0;
}

/* 0 if every bundle of the text keeps the machine's rules; else -1 and c->why. */
static int check_asm(const char *text, const wt_model *m, checker *c)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    block_reset(c);
    char *copy = strdup(text);
    int lineno = 0, rc = 0;
    for (char *save = NULL, *ln = strtok_r(copy, "\n", &save); ln && rc == 0; ln = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char *semi = strchr(ln, ';');
        if (semi && !strchr(ln, '"')) *semi = 0;
        char *s = trim(ln);
        if (!*s) continue;
        size_t n = strlen(s);
        if (s[n - 1] == ':') {
            /* Falling into a label, writes in flight land in the next block: the
             * checks go on with them (a taken branch must have waited, below). */
            continue;
        }
        if (s[0] == '.') continue;
        rc = check_bundle(c, s, lineno);
    }
    if (rc == 0 && c->max_end > c->t) rc = bad(c, lineno, "an operation completes after the function's end");
    free(copy);
    return rc;
}

static void assert_rules(const char *text, const char *model)
{
    checker c;
    if (check_asm(text, wt_model_by_name(model), &c) != 0) fail_msg("%s\n%s", c.why, text);
}


/* ---- Running the text on one cell of the simulator ----------------------------------------
 *
 * The assembly is assembled, linked with crt0 and run by warp-sim's own library on a
 * one-cell array facing the host on both sides, with the timing of docs/design.md,
 * section 1: no interlocks on registers, so a schedule or register assignment that
 * breaks the exposed-pipeline rules computes wrong values. Words a test hands the cell
 * wait in its input queues before the first clock (its upstream neighbour's sends); the
 * words it sends the host are kept per side, and stored at the addresses it gives. */

enum { SIM_MAX_CLOCKS = 4000000, SIM_MAX_WORDS = 4096 };

typedef struct sim {
    wrt_image *img;
    wsim *w;
    int nfed[WT_NQUEUES];
    uint32_t fed[WT_NQUEUES][SIM_MAX_WORDS];
    int nsent[WT_NQUEUES];
    uint32_t sent[WT_NQUEUES][SIM_MAX_WORDS];
} sim;

static char *read_source(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    ws_buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) ws_buf_append(&b, chunk, n);
    fclose(f);
    ws_buf_append(&b, "", 1);
    return b.data;
}

/* Assembles text into dir/name.o; fails the test with the assembler's messages. */
static void assemble(const char *name, const char *text, const wt_model *m, const char *obj)
{
    char *msgs = NULL;
    size_t msglen = 0;
    FILE *out = open_memstream(&msgs, &msglen);
    ws_diag d;
    ws_diag_init(&d, name, text, strlen(text));
    d.out = out;
    was_options o = {.model = m};
    int rc = was_assemble(name, text, strlen(text), &o, obj, &d);
    fclose(out);
    if (rc != 0) fail_msg("the assembler rejects %s:\n%s\n%s", name, msgs, text);
    free(msgs);
}

/* Assembles, links and loads the text as one cell with number cid. */
static sim *sim_start(const char *text, const char *model, uint32_t cid)
{
    const wt_model *m = wt_model_by_name(model);
    char dir[] = "/tmp/warp-backend-XXXXXX", obj[64], crt0[64], img[64], err[256];
    if (!mkdtemp(dir)) fail_msg("mkdtemp: %s", strerror(errno));
    snprintf(obj, sizeof obj, "%s/test.o", dir);
    snprintf(crt0, sizeof crt0, "%s/crt0.o", dir);
    snprintf(img, sizeof img, "%s/test.img", dir);
    char *crt0_text = read_source(WARP_SOURCE_DIR "/runtime/crt0.s");
    assemble("crt0.s", crt0_text, m, crt0);
    free(crt0_text);
    assemble("test.s", text, m, obj);
    const char *inputs[] = {crt0, obj};
    wld_options lo = {.entry = "_start"};
    if (wld_link(inputs, 2, img, &lo) != 0) fail_msg("the linker rejects the text:\n%s", text);
    sim *s = calloc(1, sizeof *s);
    s->img = wrt_image_load(img, err, sizeof err);
    unlink(obj);
    unlink(crt0);
    unlink(img);
    rmdir(dir);
    if (!s->img) fail_msg("the image does not load: %s", err);
    wsim_program p;
    wrt_sim_program(s->img, &p);
    /* One cell, whatever .cells says; the linker timed the whole array, not this bench. */
    p.first_cell = p.last_cell = (int)cid;
    p.skew = 0;
    p.flow_controlled = 0;
    s->w = wsim_new(&p, err, sizeof err);
    if (!s->w) fail_msg("the simulator refuses the image: %s", err);
    wsim_keep_host_words(s->w);
    return s;
}

/* A word waiting in the cell's input queue q when it starts. */
static void feed(sim *s, int q, uint32_t w)
{
    if (s->nfed[q] == SIM_MAX_WORDS) fail_msg("too many words for queue %d", q);
    s->fed[q][s->nfed[q]++] = w;
}

static void sim_go(sim *s, const char *text)
{
    for (int q = 0; q < WT_NQUEUES; q++)
        if (s->nfed[q] && wsim_host_feed_ahead(s->w, 0, q, s->fed[q], (unsigned)s->nfed[q]) != 0)
            fail_msg("%d words do not fit queue %d", s->nfed[q], q);
    wsim_status st = wsim_run(s->w, SIM_MAX_CLOCKS);
    if (st != WSIM_DONE)
        fail_msg("the run ends with status %d after %llu clocks: %s\n%s", (int)st,
                 (unsigned long long)wsim_cycles(s->w), wsim_message(s->w), text);
    for (int q = 0; q < WT_NQUEUES; q++) {
        unsigned n = wsim_host_words(s->w, 0, q, s->sent[q], SIM_MAX_WORDS);
        if (n > SIM_MAX_WORDS) fail_msg("the cell sent %u words on queue %d", n, q);
        s->nsent[q] = (int)n;
    }
}

static void sim_free(sim *s)
{
    wsim_free(s->w);
    wrt_image_free(s->img);
    free(s);
}

static uint8_t *host_word(sim *s, const char *name, int i)
{
    const wrt_host_array *h = wrt_host_find(s->img, name);
    if (!h) fail_msg("no host array %s", name);
    if (i < 0 || (uint32_t)i >= h->nelems) fail_msg("%s[%d] is outside the array", name, i);
    return wsim_host_memory(s->w, NULL) + h->addr + 4 * (uint32_t)i;
}

static void host_put_f(sim *s, const char *name, int i, float v) { memcpy(host_word(s, name, i), &v, 4); }

static float host_get_f(sim *s, const char *name, int i)
{
    float v;
    memcpy(&v, host_word(s, name, i), 4);
    return v;
}

static int sent_count(const sim *s, int q) { return s->nsent[q]; }

static uint32_t sent(const sim *s, int q, int k)
{
    if (k >= s->nsent[q]) fail_msg("the cell sent %d words on queue %d, not %d", s->nsent[q], q, k + 1);
    return s->sent[q][k];
}

static float sent_f(const sim *s, int q, int k) { return wt_f(sent(s, q, k)); }

/* ---- Looking at the output -------------------------------------------------------------- */

/* The index among bundle lines of the function of the first bundle containing all
 * of the given substrings, or -1. */
static int bundle_with(const char *text, const char *a, const char *b)
{
    char *copy = strdup(text);
    int idx = 0, found = -1;
    for (char *save = NULL, *ln = strtok_r(copy, "\n", &save); ln && found < 0; ln = strtok_r(NULL, "\n", &save)) {
        char *s = trim(ln);
        if (!*s || s[0] == '.' || s[0] == ';' || s[strlen(s) - 1] == ':') continue;
        if (strstr(s, a) && (!b || strstr(s, b))) found = idx;
        idx++;
    }
    free(copy);
    return found;
}

/* The same, looking from bundle `from` on. */
static int bundle_with_from(const char *text, int from, const char *a)
{
    char *copy = strdup(text);
    int idx = 0, found = -1;
    for (char *save = NULL, *ln = strtok_r(copy, "\n", &save); ln && found < 0; ln = strtok_r(NULL, "\n", &save)) {
        char *s = trim(ln);
        if (!*s || s[0] == '.' || s[0] == ';' || s[strlen(s) - 1] == ':') continue;
        if (idx >= from && strstr(s, a)) found = idx;
        idx++;
    }
    free(copy);
    return found;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static const char *models[] = {"warp", "iwarp"};

/* ---- Tests ------------------------------------------------------------------------------ */

static void test_polynomial_all_levels_and_models(void **state)
{
    (void)state;
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 3; opt++) {
            char *s = compile_ok(poly_ir, opt, models[mi]);
            char model_line[64];
            snprintf(model_line, sizeof model_line, ".model  %s\n", models[mi]);
            assert_non_null(strstr(s, model_line));
            assert_non_null(strstr(s, ".cells  0, 9\n"));
            assert_non_null(strstr(s, ".file   \"polynomial.w2\"\n"));
            assert_non_null(strstr(s, ".host   data, in, float, 100\n"));
            assert_non_null(strstr(s, ".host   results, out, float, 100\n"));
            assert_non_null(strstr(s, ".globl  main\n"));
            assert_non_null(strstr(s, ".type   main, @function\n"));
            assert_non_null(strstr(s, "hld @fxl, ["));
            assert_non_null(strstr(s, "fmul "));
            /* At -O0 the sum goes through its alloca; the load then sends it. */
            assert_non_null(strstr(s, opt ? "fadd @yr, " : "ld @yr, ["));
            assert_non_null(strstr(s, "@ayr, "));
            assert_non_null(strstr(s, "results"));
            assert_non_null(strstr(s, "@axr, -1"));
            assert_non_null(strstr(s, " ret"));
            if (opt == 0) {
                assert_non_null(strstr(s, "call poly"));
                assert_non_null(strstr(s, "poly.frame:\n"));
            }
            assert_rules(s, models[mi]);
            free(s);
        }
}

static void test_gate_folding(void **state)
{
    (void)state;
    no_swp = 1;
    for (int mi = 0; mi < 2; mi++) {
        char *s = compile_ok(horner_ir, 2, models[mi]);
        /* y's only use is the multiply: read straight from @yl, no move. */
        assert_true(bundle_with(s, "fmul ", "@yl") >= 0);
        assert_int_equal(count(s, ", @yl"), 1);
        /* The sum's only purpose is the send; the load's only purpose is the feed. */
        assert_true(bundle_with(s, "fadd @yr, ", NULL) >= 0);
        assert_true(bundle_with(s, "hld @fxl, [", "data]") >= 0);
        assert_true(bundle_with(s, "iadd @ayr, ", "results") >= 0);
        assert_int_equal(count(s, "mv @yr"), 0);
        assert_int_equal(count(s, "mv @fxl"), 0);
        /* x goes to two users, which read it straight from @xl in one bundle (one
         * dequeue): the multiply and the pass-on; coeff is moved to a register. On
         * iWarp that bundle would have four gate operations and take two clocks:
         * x is moved to a register once instead. */
        if (mi == 0) {
            int fm = bundle_with(s, "fmul ", "@xl");
            assert_true(fm >= 0);
            assert_int_equal(bundle_with(s, "mv @xr, @xl", NULL), fm);
            assert_int_equal(count(s, "@xl"), 3);
        } else {
            assert_int_equal(count(s, "@xl"), 2);
        }
        assert_rules(s, models[mi]);
        free(s);
    }
    no_swp = 0;
}

static void test_latency_between_def_and_use(void **state)
{
    (void)state;
    no_swp = 1;
    for (int mi = 0; mi < 2; mi++) {
        const wt_model *m = wt_model_by_name(models[mi]);
        char *s = compile_ok(horner_ir, 2, models[mi]);
        int fm = bundle_with(s, "fmul ", NULL), fa = bundle_with(s, "fadd ", NULL);
        assert_true(fm >= 0 && fa >= 0);
        assert_true(fa - fm >= wt_ops[WT_OP_FMUL].latency[m->id]);
        /* The host feed completes before the queue it feeds is read. */
        int feed = bundle_with(s, "hld @fxl", NULL), rd = bundle_with_from(s, feed, "@xl");
        assert_true(feed >= 0 && rd - feed >= wt_ops[WT_OP_HLD].latency[m->id]);
        /* y is received before x is sent on: the two may share a bundle (a
         * receive that came first may move later, never earlier). */
        int send = bundle_with(s, "mv @xr, ", NULL), ry = bundle_with(s, "@yl", NULL);
        assert_true(send >= 0 && ry >= send);
        /* The branch waits for the send of the sum to complete. */
        int br = bundle_with(s, "bnz ", NULL) >= 0 ? bundle_with(s, "bnz ", NULL) : bundle_with(s, "bz ", NULL);
        assert_true(br - fa >= wt_ops[WT_OP_FADD].latency[m->id] - 1);
        free(s);
    }
    no_swp = 0;
}

static void test_independent_float_ops_share_a_bundle(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() {\n"
        "  %a = call float @w2.recv.f32(i32 0)\n"
        "  %b = call float @w2.recv.f32(i32 1)\n"
        "  %m = fmul float %a, 3.0\n"
        "  %s = fadd float %b, 1.5\n"
        "  %d = fsub float %m, %s\n"
        "  call void @w2.send.f32(i32 2, float %d)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++) {
        const wt_model *m = wt_model_by_name(models[mi]);
        char *s = compile_ok(ir, 2, models[mi]);
        /* Both receives are read by their users, in one bundle. */
        int b = bundle_with(s, "fmul r", "fadd r");
        assert_true(b >= 0);
        assert_true(bundle_with(s, "@xl, 3.0", "@yl, 1.5") == b);
        int sub = bundle_with(s, "fsub @xr, ", NULL);
        assert_true(sub - b >= wt_ops[WT_OP_FADD].latency[m->id]);
        assert_rules(s, models[mi]);
        free(s);
    }
}

static void test_send_written_by_producer(void **state)
{
    (void)state;
    /* Each sum's only purpose is its send: the operation writes the gate. The
     * multiply reads and writes gates and moves down to its send, past the read of
     * the other queue; a receive never issues with a send that preceded it. */
    const char *ir = HEADER
        "define void @main() {\n"
        "  %a = call float @w2.recv.f32(i32 0)\n"
        "  %b = call float @w2.recv.f32(i32 1)\n"
        "  %m = fmul float %a, 3.0\n"
        "  %s = fadd float %b, 1.5\n"
        "  call void @w2.send.f32(i32 2, float %m)\n"
        "  call void @w2.send.f32(i32 3, float %s)\n"
        "  %c = call i32 @w2.cellid()\n"
        "  call void @w2.send.i32(i32 3, i32 %c)\n"
        "  %unused = call i32 @w2.recv.i32(i32 1)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++) {
        const wt_model *m = wt_model_by_name(models[mi]);
        char *s = compile_ok(ir, 2, models[mi]);
        /* A receive nobody reads still takes its word off the queue. */
        assert_true(bundle_with(s, "mv r0, @yl", NULL) >= 0 || bundle_with(s, "mov r0, @yl", NULL) >= 0);
        int mul = bundle_with(s, "fmul @xr, @xl, 3.0", NULL), add = bundle_with(s, "fadd @yr, @yl, 1.5", NULL);
        assert_true(mul >= 0 && add > mul);
        /* Writes to @yr complete in order: the move of cid after the sum's. */
        int cid = bundle_with(s, "@yr, cid", NULL);
        assert_true(cid + wt_ops[WT_OP_MV].latency[m->id] > add + wt_ops[WT_OP_FADD].latency[m->id]);
        assert_rules(s, models[mi]);
        free(s);
    }
}

static void test_phi_loop_updates_in_place(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() {\n"
        "entry:\n"
        "  %n = call i32 @w2.recv.i32(i32 0)\n"
        "  br label %loop\n"
        "loop:\n"
        "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
        "  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]\n"
        "  %sq = mul i32 %i, %i\n"
        "  %s1 = add i32 %s, %sq\n"
        "  %i1 = add i32 %i, 1\n"
        "  %more = icmp slt i32 %i1, %n\n"
        "  br i1 %more, label %loop, label %exit\n"
        "exit:\n"
        "  call void @w2.send.i32(i32 2, i32 %s1)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++) {
        char *s = compile_ok(ir, 0, models[mi]);
        assert_non_null(strstr(s, "imul "));
        assert_non_null(strstr(s, "ilt "));
        assert_non_null(strstr(s, "bnz "));
        assert_non_null(strstr(s, ".Lmain_1:\n"));
        /* Coalesced phis: no copies inside the loop, updates in place (on an ALU, or
         * on a memory unit's address adder when the ALU is taken: iWarp's one
         * integer operation a clock). */
        int in_place = 0;
        for (int r = 1; r <= 3; r++) {
            char add[40], lea[40];
            snprintf(add, sizeof add, "iadd r%d, r%d, 1", r, r);
            snprintf(lea, sizeof lea, "lea r%d, [r%d, 1]", r, r);
            in_place += count(s, add) + count(s, lea);
        }
        assert_int_equal(in_place, 1);
        assert_rules(s, models[mi]);
        free(s);
    }
}

static void test_phi_swap_needs_a_temporary(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() {\n"
        "entry:\n"
        "  %a0 = call i32 @w2.recv.i32(i32 0)\n"
        "  %b0 = call i32 @w2.recv.i32(i32 0)\n"
        "  br label %loop\n"
        "loop:\n"
        "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
        "  %a = phi i32 [ %a0, %entry ], [ %b, %loop ]\n"
        "  %b = phi i32 [ %b0, %entry ], [ %a, %loop ]\n"
        "  %i1 = add i32 %i, 1\n"
        "  %more = icmp ult i32 %i1, 7\n"
        "  br i1 %more, label %loop, label %exit\n"
        "exit:\n"
        "  call void @w2.send.i32(i32 2, i32 %a)\n"
        "  call void @w2.send.i32(i32 2, i32 %b)\n"
        "  ret void\n"
        "}\n";
    char *s = compile_ok(ir, 0, "warp");
    assert_true(count(s, "mv r") + count(s, "mov r") >= 3);
    assert_non_null(strstr(s, "iltu "));
    assert_rules(s, "warp");
    free(s);
}

static void test_select_and_compares(void **state)
{
    (void)state;
    static const char *ipreds[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
    static const char *fpreds[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                   "uno", "ueq", "ugt", "uge", "ult", "ule", "une", "true"};
    for (int k = 0; k < 10 + 16; k++) {
        char ir[4096];
        if (k < 10)
            snprintf(ir, sizeof ir, HEADER
                     "define void @main() {\n"
                     "  %%a = call i32 @w2.recv.i32(i32 0)\n"
                     "  %%b = call i32 @w2.recv.i32(i32 1)\n"
                     "  %%c = icmp %s i32 %%a, %%b\n"
                     "  %%v = select i1 %%c, i32 %%a, i32 42\n"
                     "  call void @w2.send.i32(i32 2, i32 %%v)\n"
                     "  %%z = zext i1 %%c to i32\n"
                     "  call void @w2.send.i32(i32 2, i32 %%z)\n"
                     "  ret void\n"
                     "}\n", ipreds[k]);
        else
            snprintf(ir, sizeof ir, HEADER
                     "define void @main() {\n"
                     "  %%a = call float @w2.recv.f32(i32 0)\n"
                     "  %%b = call float @w2.recv.f32(i32 1)\n"
                     "  %%c = fcmp %s float %%a, %%b\n"
                     "  %%v = select i1 %%c, float %%a, float 2.5\n"
                     "  call void @w2.send.f32(i32 2, float %%v)\n"
                     "  %%z = zext i1 %%c to i32\n"
                     "  call void @w2.send.i32(i32 2, i32 %%z)\n"
                     "  ret void\n"
                     "}\n", fpreds[k - 10]);
        char *s = compile_ok(ir, 0, "warp");
        if (k < 10 || (strcmp(fpreds[k - 10], "false") && strcmp(fpreds[k - 10], "true")))
            assert_non_null(strstr(s, "sel "));
        if (k >= 10 && (!strcmp(fpreds[k - 10], "uno") || !strcmp(fpreds[k - 10], "ord")))
            assert_non_null(strstr(s, "funo "));
        if (k >= 10 && !strcmp(fpreds[k - 10], "une")) assert_non_null(strstr(s, "fne "));
        if (k < 10 && ipreds[k][0] == 'u' && ipreds[k][1] == 'l') assert_non_null(strstr(s, ipreds[k][2] == 't' ? "iltu " : "ileu "));
        /* Untyped float literals keep their '.'. */
        if (k >= 10 && strstr(s, "sel ")) assert_non_null(strstr(s, "2.5"));
        assert_rules(s, "warp");
        free(s);
    }
}

static void test_float_compare_operands(void **state)
{
    (void)state;
    /* ogt swaps the operands of flt; uge is the negation of olt, folded into the
     * select by swapping its arms. */
    const char *ir = HEADER
        "define void @main() {\n"
        "  %a = call float @w2.recv.f32(i32 0)\n"
        "  %c = fcmp ogt float %a, 4.0\n"
        "  %z = zext i1 %c to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %z)\n"
        "  %d = fcmp uge float %a, 8.0\n"
        "  %v = select i1 %d, i32 1, i32 2\n"
        "  call void @w2.send.i32(i32 2, i32 %v)\n"
        "  ret void\n"
        "}\n";
    char *s = compile_ok(ir, 0, "warp");
    assert_non_null(strstr(s, "flt @xr, 4.0, "));
    assert_true(bundle_with(s, "flt r", ", 8.0") >= 0);
    assert_true(bundle_with(s, "sel @xr, r", ", 2, 1") >= 0);
    assert_rules(s, "warp");
    free(s);
}

static void test_call_spills_live_values(void **state)
{
    (void)state;
    const char *ir = HEADER
        "@acc = internal global float 0.0\n"
        "define internal void @helper() {\n"
        "  %a = load float, ptr @acc\n"
        "  %b = fadd float %a, 1.0\n"
        "  store float %b, ptr @acc\n"
        "  ret void\n"
        "}\n"
        "define void @main() {\n"
        "  %x = call i32 @w2.recv.i32(i32 0)\n"
        "  %c = call i32 @w2.cellid()\n"
        "  %y = mul i32 %x, %c\n"
        "  call void @helper()\n"
        "  %z = add i32 %y, %x\n"
        "  call void @w2.send.i32(i32 2, i32 %z)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++) {
        char *s = compile_ok(ir, 0, models[mi]);
        assert_non_null(strstr(s, "call helper"));
        assert_non_null(strstr(s, ".type   helper, @function"));
        assert_true(bundle_with(s, "imul r", ", cid") >= 0);
        /* x and y live across the call: stored to main's frame, loaded after it. */
        assert_non_null(strstr(s, "main.frame:\n"));
        assert_true(count(s, "st [r0, main.frame") >= 2);
        assert_true(count(s, "ld r") >= 2);
        int call = bundle_with(s, "call helper", NULL);
        int reload = bundle_with(s, "ld r", "main.frame");
        assert_true(reload > call);
        assert_non_null(strstr(s, "acc:\n"));
        assert_rules(s, models[mi]);
        free(s);
    }
}

static void test_host_load_and_scalar_host(void **state)
{
    (void)state;
    const char *ir = HEADER
        "@scale = external addrspace(1) constant float\n"
        "@grid = external addrspace(1) constant [4 x [8 x i32]]\n"
        "define void @main() {\n"
        "  %i = call i32 @w2.recv.i32(i32 0)\n"
        "  %s = load float, ptr addrspace(1) @scale\n"
        "  %p = getelementptr [4 x [8 x i32]], ptr addrspace(1) @grid, i32 0, i32 %i, i32 3\n"
        "  %g = load i32, ptr addrspace(1) %p\n"
        "  %gf = sitofp i32 %g to float\n"
        "  %v = fmul float %s, %gf\n"
        "  call void @w2.send.f32(i32 2, float %v)\n"
        "  call void @w2.host.dest(i32 2, i32 ptrtoint (ptr addrspace(1) getelementptr "
        "([4 x float], ptr addrspace(1) @out, i32 0, i32 3) to i32))\n"
        "  ret void\n"
        "}\n"
        "@out = external addrspace(1) global [4 x float]\n"
        "!w2.host = !{!0, !1, !2}\n"
        "!2 = !{!\"out\", !\"out\", !\"float\", i32 4, i32 0}\n"
        "!0 = !{!\"scale\", !\"in\", !\"float\", i32 0, i32 0}\n"
        "!1 = !{!\"grid\", !\"in\", !\"int\", i32 4, i32 8}\n";
    char *s = compile_ok(ir, 2, "warp");
    assert_non_null(strstr(s, ".host   scale, in, float, 0\n"));
    assert_non_null(strstr(s, ".host   grid, in, int, 4, 8\n"));
    assert_non_null(strstr(s, "[r0, scale]"));
    assert_non_null(strstr(s, "grid+12]"));
    assert_non_null(strstr(s, "shl r"));
    assert_non_null(strstr(s, "itof "));
    assert_non_null(strstr(s, "fmul @xr, "));
    assert_non_null(strstr(s, "mv @axr, out+12"));
    assert_rules(s, "warp");
    free(s);
}

static void test_memset_and_memcpy(void **state)
{
    (void)state;
    const char *ir = HEADER
        "@small = internal global [4 x i32] zeroinitializer\n"
        "@big = internal global [64 x i32] zeroinitializer\n"
        "@copy = internal global [64 x i32] zeroinitializer\n"
        "@bytes = internal global [10 x i8] zeroinitializer\n"
        "declare void @llvm.memset.p0.i32(ptr, i8, i32, i1)\n"
        "declare void @llvm.memcpy.p0.p0.i32(ptr, ptr, i32, i1)\n"
        "define void @main() {\n"
        "  %n = call i32 @w2.recv.i32(i32 0)\n"
        "  call void @llvm.memset.p0.i32(ptr align 4 @small, i8 1, i32 16, i1 false)\n"
        "  call void @llvm.memset.p0.i32(ptr align 4 @big, i8 0, i32 256, i1 false)\n"
        "  call void @llvm.memcpy.p0.p0.i32(ptr align 4 @copy, ptr align 4 @big, i32 256, i1 false)\n"
        "  call void @llvm.memset.p0.i32(ptr @bytes, i8 7, i32 %n, i1 false)\n"
        "  %p = getelementptr [10 x i8], ptr @bytes, i32 0, i32 3\n"
        "  %b = load i8, ptr %p\n"
        "  %w = zext i8 %b to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %w)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++) {
        char *s = compile_ok(ir, 0, models[mi]);
        /* Small and aligned: four word stores of the byte repeated. */
        assert_non_null(strstr(s, "st [r0, small], 16843009"));
        assert_non_null(strstr(s, "st [r0, small+12], 16843009"));
        /* Large: loops. */
        assert_true(count(s, "bnz ") >= 3);
        assert_non_null(strstr(s, "iadd r"));
        /* The byte at offset 3 is the top byte of its word. */
        assert_non_null(strstr(s, "ld r"));
        assert_non_null(strstr(s, "shr "));
        assert_non_null(strstr(s, ".size   bytes, 12\n"));
        assert_rules(s, models[mi]);
        free(s);
    }
}

static void test_switch_and_unreachable(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() {\n"
        "entry:\n"
        "  %x = call i32 @w2.recv.i32(i32 0)\n"
        "  switch i32 %x, label %other [ i32 0, label %zero\n"
        "                                i32 7, label %seven\n"
        "                                i32 9, label %bad ]\n"
        "zero:\n"
        "  br label %join\n"
        "seven:\n"
        "  br label %join\n"
        "other:\n"
        "  br label %join\n"
        "bad:\n"
        "  unreachable\n"
        "join:\n"
        "  %r = phi float [ 1.0, %zero ], [ 7.0, %seven ], [ -1.0, %other ]\n"
        "  call void @w2.send.f32(i32 2, float %r)\n"
        "  ret void\n"
        "}\n";
    char *s = compile_ok(ir, 0, "warp");
    assert_non_null(strstr(s, "bz r1, "));
    assert_non_null(strstr(s, "ieq r"));
    assert_true(bundle_with(s, "ieq r", ", 7") >= 0);
    assert_non_null(strstr(s, "halt"));
    assert_non_null(strstr(s, "7.0"));
    assert_non_null(strstr(s, "-1.0"));
    assert_rules(s, "warp");
    free(s);
}

static void test_integer_operations(void **state)
{
    (void)state;
    const char *ir = HEADER
        "declare i32 @llvm.smin.i32(i32, i32)\n"
        "declare i32 @llvm.umax.i32(i32, i32)\n"
        "declare i32 @llvm.abs.i32(i32, i1)\n"
        "declare i32 @llvm.fptosi.sat.i32.f32(float)\n"
        "define void @main() {\n"
        "  %a = call i32 @w2.recv.i32(i32 0)\n"
        "  %b = call i32 @w2.recv.i32(i32 1)\n"
        "  %f = call float @w2.recv.f32(i32 0)\n"
        "  %1 = sdiv i32 %a, %b\n"
        "  %2 = udiv i32 %1, %b\n"
        "  %3 = srem i32 %2, %b\n"
        "  %4 = urem i32 %3, %b\n"
        "  %5 = shl i32 %4, %a\n"
        "  %6 = lshr i32 %5, 3\n"
        "  %7 = ashr i32 %6, %b\n"
        "  %8 = and i32 %7, 255\n"
        "  %9 = or i32 %8, %a\n"
        "  %10 = xor i32 %9, -1\n"
        "  %11 = sub i32 0, %10\n"
        "  %12 = call i32 @llvm.smin.i32(i32 %11, i32 %a)\n"
        "  %13 = call i32 @llvm.umax.i32(i32 %12, i32 %b)\n"
        "  %14 = call i32 @llvm.abs.i32(i32 %13, i1 false)\n"
        "  %15 = call i32 @w2.idiv(i32 %14, i32 %a)\n"
        "  %16 = call i32 @w2.imod(i32 %15, i32 %b)\n"
        "  %17 = call i32 @llvm.fptosi.sat.i32.f32(float %f)\n"
        "  %18 = add i32 %16, %17\n"
        "  %19 = fptosi float %f to i32\n"
        "  %20 = mul i32 %18, %19\n"
        "  %21 = trunc i32 %20 to i8\n"
        "  %22 = sext i8 %21 to i32\n"
        "  %23 = uitofp i32 %22 to float\n"
        "  %24 = fdiv float %23, %f\n"
        "  %25 = fsub float %24, 1.0\n"
        "  %26 = fneg float %25\n"
        "  %27 = bitcast float %26 to i32\n"
        "  %28 = freeze i32 %27\n"
        "  call void @w2.send.i32(i32 2, i32 %28)\n"
        "  ret void\n"
        "}\n";
    static const char *mnemonics[] = {"idiv ", "idivu ", "imod ", "imodu ", "shl ", "shr ", "sra ", "and ",
                                      "or ", "xor ", "imin ", "imaxu ", "ineg ", "imax ", "ftoi ", "imul ",
                                      "utof ", "fdiv ", "fsub ", "fneg @xr"};
    for (int mi = 0; mi < 2; mi++) {
        char *s = compile_ok(ir, 0, models[mi]);
        for (size_t k = 0; k < sizeof mnemonics / sizeof *mnemonics; k++)
            if (!strstr(s, mnemonics[k])) fail_msg("'%s' not selected:\n%s", mnemonics[k], s);
        /* Division is not pipelined: the unit stays busy for its issue interval. */
        assert_rules(s, models[mi]);
        free(s);
    }
}

static void test_division_keeps_its_unit_busy(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() {\n"
        "  %a = call float @w2.recv.f32(i32 0)\n"
        "  %b = call float @w2.recv.f32(i32 1)\n"
        "  %q = fdiv float %a, %b\n"
        "  %p = fmul float %b, %b\n"
        "  call void @w2.send.f32(i32 2, float %q)\n"
        "  call void @w2.send.f32(i32 3, float %p)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++) {
        const wt_model *m = wt_model_by_name(models[mi]);
        char *s = compile_ok(ir, 0, models[mi]);
        int d = bundle_with(s, "fdiv ", NULL), mul = bundle_with(s, "fmul ", NULL);
        assert_true(d >= 0 && mul >= 0);
        int gap = d > mul ? d - mul : mul - d;
        if (d < mul) assert_true(gap >= wt_ops[WT_OP_FDIV].interval[m->id]);
        assert_rules(s, models[mi]);
        free(s);
    }
}

static void test_globals_and_data(void **state)
{
    (void)state;
    const char *ir = HEADER
        "@tab = internal global [4 x float] [float 1.0, float 2.5, float 0.0, float -3.0]\n"
        "@n = internal global i32 17\n"
        "@ptr = internal global ptr getelementptr (i8, ptr @tab, i32 8)\n"
        "@z = internal global [3 x i32] zeroinitializer\n"
        "define void @main() {\n"
        "  %p = load ptr, ptr @ptr\n"
        "  %v = load float, ptr %p\n"
        "  %k = load i32, ptr @n\n"
        "  %kf = sitofp i32 %k to float\n"
        "  %s = fadd float %v, %kf\n"
        "  store float %s, ptr getelementptr ([4 x float], ptr @tab, i32 0, i32 3)\n"
        "  store i32 5, ptr getelementptr ([3 x i32], ptr @z, i32 0, i32 1)\n"
        "  ret void\n"
        "}\n";
    char *s = compile_ok(ir, 0, "warp");
    assert_non_null(strstr(s, "        .data\n"));
    assert_non_null(strstr(s, "tab:\n        .word   1.0, 2.5, 0, -3.0\n"));
    assert_non_null(strstr(s, "n:\n        .word   17\n"));
    assert_non_null(strstr(s, "ptr:\n        .word   tab+8\n"));
    assert_non_null(strstr(s, "z:\n        .zero   12\n"));
    assert_non_null(strstr(s, "st [r0, tab+12], r"));
    assert_non_null(strstr(s, "st [r0, z+4], 5"));
    assert_true(strstr(s, "        .bss\n") < strstr(s, "        .data\n"));
    assert_true(strstr(s, "        .data\n") < strstr(s, "        .text\n"));
    assert_rules(s, "warp");
    free(s);
}

static void test_register_pressure_spills(void **state)
{
    (void)state;
    /* 80 values received first and used in reverse order: more than 63 live at once. */
    char *ir = malloc(65536);
    int n = snprintf(ir, 65536, "%sdefine void @main() {\n", HEADER);
    for (int i = 0; i < 80; i++) n += snprintf(ir + n, 65536 - (size_t)n, "  %%v%d = call i32 @w2.recv.i32(i32 0)\n", i);
    n += snprintf(ir + n, 65536 - (size_t)n, "  %%s80 = add i32 %%v79, 1\n");
    for (int i = 79; i > 0; i--)
        n += snprintf(ir + n, 65536 - (size_t)n, "  %%s%d = mul i32 %%s%d, %%v%d\n", i, i + 1, i - 1);
    snprintf(ir + n, 65536 - (size_t)n, "  call void @w2.send.i32(i32 2, i32 %%s1)\n  ret void\n}\n");
    for (int mi = 0; mi < 2; mi++) {
        char *s = compile_ok(ir, 0, models[mi]);
        assert_non_null(strstr(s, "main.frame:\n"));
        assert_non_null(strstr(s, "st [r0, main.frame"));
        assert_int_equal(count(s, "@xl"), 80);
        assert_rules(s, models[mi]);
        free(s);
    }
    free(ir);
}

static void test_debug_locations(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() !dbg !5 {\n"
        "  %a = call float @w2.recv.f32(i32 0), !dbg !8\n"
        "  %m = fmul float %a, 2.0, !dbg !9\n"
        "  call void @w2.send.f32(i32 2, float %m), !dbg !9\n"
        "  ret void, !dbg !10\n"
        "}\n"
        "!llvm.module.flags = !{!0}\n"
        "!llvm.dbg.cu = !{!1}\n"
        "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
        "!1 = distinct !DICompileUnit(language: DW_LANG_C, file: !2, producer: \"w2\", "
        "isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)\n"
        "!2 = !DIFile(filename: \"t.w2\", directory: \"/tmp\")\n"
        "!3 = !DISubroutineType(types: !4)\n"
        "!4 = !{null}\n"
        "!5 = distinct !DISubprogram(name: \"main\", scope: !2, file: !2, line: 3, type: !3, "
        "scopeLine: 3, spFlags: DISPFlagDefinition, unit: !1)\n"
        "!8 = !DILocation(line: 4, column: 3, scope: !5)\n"
        "!9 = !DILocation(line: 5, column: 7, scope: !5)\n"
        "!10 = !DILocation(line: 6, column: 1, scope: !5)\n";
    char err[512];
    char *s = compile_ir(ir, 0, "warp", 1, err, sizeof err);
    if (!s) fail_msg("%s", err);
    /* The block's first record says so; later ones start statements of new lines. */
    assert_non_null(strstr(s, " basic_block\n"));
    assert_non_null(strstr(s, ".loc    5 7"));
    assert_non_null(strstr(s, ".loc    6 1\n"));
    /* -g: the subprogram in .debug_info, .debug_line left to the assembler. */
    assert_non_null(strstr(s, ".section .debug_info\n"));
    assert_non_null(strstr(s, "; function main\n"));
    assert_non_null(strstr(s, ".section .debug_line\n.Ldebug_line0:\n"));
    assert_rules(s, "warp");
    free(s);
    /* Without -g too: a run-time fault must still name its source line. */
    s = compile_ir(ir, 0, "warp", 0, err, sizeof err);
    assert_non_null(strstr(s, ".loc    5 7"));
    assert_null(strstr(s, ".debug_info"));
    free(s);
}

static void test_output_is_deterministic(void **state)
{
    (void)state;
    const char *irs[] = {poly_ir, horner_ir};
    for (int k = 0; k < 2; k++)
        for (int mi = 0; mi < 2; mi++)
            for (int opt = 0; opt <= 2; opt += 2) {
                char *a = compile_ok(irs[k], opt, models[mi]);
                char *b = compile_ok(irs[k], opt, models[mi]);
                assert_string_equal(a, b);
                free(a);
                free(b);
            }
}

static void expect_error(const char *ir, const char *message)
{
    char err[512] = "";
    char *s = compile_ir(ir, 0, "warp", 0, err, sizeof err);
    if (s) fail_msg("expected '%s', got assembly:\n%s", message, s);
    if (!strstr(err, message)) fail_msg("expected '%s', got '%s'", message, err);
}

static void test_errors_name_function_and_construct(void **state)
{
    (void)state;
    expect_error(HEADER
                 "define void @main() {\n"
                 "  %a = call float @w2.recv.f32(i32 0)\n"
                 "  %d = fpext float %a to double\n"
                 "  %t = fptrunc double %d to float\n"
                 "  call void @w2.send.f32(i32 2, float %t)\n"
                 "  ret void\n"
                 "}\n",
                 "backend: function main: unsupported instruction 'fpext'");
    expect_error(HEADER
                 "define void @main() {\n"
                 "  %a = call float @w2.recv.f32(i32 0)\n"
                 "  %r = frem float %a, 2.0\n"
                 "  call void @w2.send.f32(i32 2, float %r)\n"
                 "  ret void\n"
                 "}\n",
                 "backend: function main: unsupported instruction 'frem'");
    expect_error(HEADER
                 "declare float @llvm.sqrt.f32(float)\n"
                 "define void @main() {\n"
                 "  %a = call float @w2.recv.f32(i32 0)\n"
                 "  %r = call float @llvm.sqrt.f32(float %a)\n"
                 "  call void @w2.send.f32(i32 2, float %r)\n"
                 "  ret void\n"
                 "}\n",
                 "backend: function main: unsupported call to 'llvm.sqrt.f32'");
    expect_error(HEADER
                 "define void @main() {\n"
                 "  %a = call i32 @w2.recv.i32(i32 0)\n"
                 "  %w = sitofp i32 %a to double\n"
                 "  %v = fadd double %w, 1.0\n"
                 "  ret void\n"
                 "}\n",
                 "backend: function main: unsupported type 'double' in 'sitofp'");
    expect_error(HEADER
                 "define void @main() {\n"
                 "  %a = call i32 @w2.recv.i32(i32 0)\n"
                 "  %w = sext i32 %a to i64\n"
                 "  %d = sdiv i64 %w, 3\n"
                 "  %t = trunc i64 %d to i32\n"
                 "  call void @w2.send.i32(i32 2, i32 %t)\n"
                 "  ret void\n"
                 "}\n",
                 "backend: function main: unsupported type 'i64' in 'sdiv'");
    expect_error(HEADER
                 "define void @f() {\n"
                 "  ret void\n"
                 "}\n",
                 "backend: the module defines no 'main'");
    expect_error(HEADER
                 "declare void @elsewhere()\n"
                 "define void @main() {\n"
                 "  call void @elsewhere()\n"
                 "  ret void\n"
                 "}\n",
                 "backend: function 'elsewhere' is declared but not defined");
    expect_error(HEADER
                 "@h = external addrspace(1) constant [4 x float]\n"
                 "define void @main() {\n"
                 "  %v = load float, ptr addrspace(1) @h\n"
                 "  call void @w2.send.f32(i32 2, float %v)\n"
                 "  ret void\n"
                 "}\n",
                 "backend: host global 'h' has no !w2.host entry");
    expect_error(HEADER
                 "define void @main() {\n"
                 "  %q = call i32 @w2.recv.i32(i32 0)\n"
                 "  %v = call i32 @w2.recv.i32(i32 %q)\n"
                 "  ret void\n"
                 "}\n",
                 "backend: function main: the queue of a communication call must be a constant 0..3");
    assert_int_equal(compile_error_line, 0);   /* no !dbg: the error names the function only */
    /* With the operations' positions (as the frontend always writes them), the error is
     * located at the one the backend could not handle, for the driver to show. */
    expect_error(HEADER
                 "define void @main() !dbg !3 {\n"
                 "  %a = call float @w2.recv.f32(i32 0), !dbg !4\n"
                 "  %r = frem float %a, 2.0, !dbg !5\n"
                 "  call void @w2.send.f32(i32 2, float %r), !dbg !4\n"
                 "  ret void, !dbg !4\n"
                 "}\n"
                 "!llvm.dbg.cu = !{!0}\n"
                 "!llvm.module.flags = !{!6}\n"
                 "!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: LineTablesOnly)\n"
                 "!1 = !DIFile(filename: \"t.w2\", directory: \"/\")\n"
                 "!2 = !DISubroutineType(types: !{})\n"
                 "!3 = distinct !DISubprogram(name: \"main\", scope: !1, file: !1, line: 1, type: !2, unit: !0, "
                 "spFlags: DISPFlagDefinition)\n"
                 "!4 = !DILocation(line: 4, column: 3, scope: !3)\n"
                 "!5 = !DILocation(line: 7, column: 12, scope: !3)\n"
                 "!6 = !{i32 2, !\"Debug Info Version\", i32 3}\n",
                 "backend: function main: unsupported instruction 'frem'");
    assert_int_equal(compile_error_line, 7);
    assert_int_equal(compile_error_col, 12);
}

static void test_optimize_keeps_loops_rolled(void **state)
{
    (void)state;
    no_swp = 1;
    /* The first loop of the polynomial runs 9 times: default<O2> would unroll it fully. */
    for (int opt = 1; opt <= 3; opt++) {
        char *s = compile_ok(poly_ir, opt, "warp");
        assert_true(count(s, "hld @fxl") <= 3);
        assert_true(count(s, "bz ") + count(s, "bnz ") >= 2);
        free(s);
    }
    ws_diagnostic err;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("bad", ctx);
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
    LLVMValueRef fn = LLVMAddFunction(m, "main", fty);
    LLVMAppendBasicBlockInContext(ctx, fn, "entry");   /* no terminator: invalid */
    assert_int_equal(wb_optimize(m, wt_model_get(WT_MODEL_WARP), 2, &err), -1);
    assert_non_null(strstr(err.message, "invalid LLVM module"));
    assert_int_equal(err.severity, WS_ERROR);
    assert_int_equal(err.line, 0);   /* about the module, not a line of it */
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    no_swp = 0;
}


/* ---- Running the output ---------------------------------------------------------------- */

typedef struct inputs {
    int n[4];
    uint32_t w[4][128];
} inputs;

static void in_i(inputs *in, int q, int32_t v) { in->w[q][in->n[q]++] = (uint32_t)v; }
static void in_f(inputs *in, int q, float v) { in->w[q][in->n[q]++] = wt_u(v); }

/* Compiles, checks the rules, and runs; the caller frees the simulator. */
static sim *run_ir(const char *ir, int opt, const char *model, const inputs *in, uint32_t cid,
                   void (*setup)(sim *s))
{
    char *text = compile_ok(ir, opt, model);
    assert_rules(text, model);
    sim *s = sim_start(text, model, cid);
    for (int q = 0; q < 4 && in; q++)
        for (int k = 0; k < in->n[q]; k++) feed(s, q, in->w[q][k]);
    if (setup) setup(s);
    sim_go(s, text);
    free(text);
    return s;
}

static void poly_host_data(sim *s)
{
    for (int i = 0; i < 100; i++) host_put_f(s, "data", i, 1.0f + 0.25f * (float)i);
    for (int k = 0; k < 10; k++) host_put_f(s, "coeffs", k, 1.5f + (float)k);
}

static void test_run_polynomial_on_one_cell(void **state)
{
    (void)state;
    /* One cell facing the host on both sides: it keeps coeffs[0], passes the other
     * nine and a 0.0 on, then sends every data word on and coeffs[0] + 0.0 * x home. */
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 3; opt++) {
            sim *s = run_ir(poly_ir, opt, models[mi], NULL, 0, poly_host_data);
            assert_int_equal(sent_count(s, WT_Q_XR), 9 + 1 + 100);
            for (int k = 1; k < 10; k++) assert_true(sent_f(s, WT_Q_XR, k - 1) == 1.5f + (float)k);
            assert_true(sent_f(s, WT_Q_XR, 9) == 0.0f);
            for (int i = 0; i < 100; i++) assert_true(sent_f(s, WT_Q_XR, 10 + i) == 1.0f + 0.25f * (float)i);
            assert_int_equal(sent_count(s, WT_Q_YR), 100);
            for (int i = 0; i < 100; i++) assert_true(host_get_f(s, "results", i) == 1.5f);
            sim_free(s);
        }
}

static void horner_host_data(sim *s)
{
    for (int i = 0; i < 100; i++) host_put_f(s, "data", i, 1.0f + 0.25f * (float)i);
}

static void test_run_horner_with_fed_y(void **state)
{
    (void)state;
    const char *ir = HEADER
        "@data = external addrspace(1) constant [100 x float]\n"
        "@results = external addrspace(1) global [100 x float]\n"
        "define void @main() {\n"
        "entry:\n"
        "  %coeff = call float @w2.recv.f32(i32 0)\n"
        "  br label %loop\n"
        "loop:\n"
        "  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]\n"
        "  %pd = getelementptr [100 x float], ptr addrspace(1) @data, i32 0, i32 %i\n"
        "  %d = load float, ptr addrspace(1) %pd\n"
        "  call void @w2.host.feed.f32(i32 0, float %d)\n"
        "  %x = call float @w2.recv.f32(i32 0)\n"
        "  %h = fmul float %d, 0.5\n"
        "  call void @w2.host.feed.f32(i32 1, float %h)\n"
        "  %y = call float @w2.recv.f32(i32 1)\n"
        "  call void @w2.send.f32(i32 2, float %x)\n"
        "  call void @w2.host.dest(i32 2, i32 -1)\n"
        "  %m = fmul float %y, %x\n"
        "  %a = fadd float %coeff, %m\n"
        "  call void @w2.send.f32(i32 3, float %a)\n"
        "  %pr = getelementptr [100 x float], ptr addrspace(1) @results, i32 0, i32 %i\n"
        "  %pri = ptrtoint ptr addrspace(1) %pr to i32\n"
        "  call void @w2.host.dest(i32 3, i32 %pri)\n"
        "  %i.next = add nuw nsw i32 %i, 1\n"
        "  %done = icmp eq i32 %i.next, 100\n"
        "  br i1 %done, label %exit, label %loop\n"
        "exit:\n"
        "  ret void\n"
        "}\n"
        "!w2.host = !{!0, !1}\n"
        "!0 = !{!\"data\", !\"in\", !\"float\", i32 100, i32 0}\n"
        "!1 = !{!\"results\", !\"out\", !\"float\", i32 100, i32 0}\n";
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 2; opt += 2) {
            inputs in = {0};
            in_f(&in, WT_Q_XL, 0.75f);
            sim *s = run_ir(ir, opt, models[mi], &in, 0, horner_host_data);
            for (int i = 0; i < 100; i++) {
                float d = 1.0f + 0.25f * (float)i;
                assert_true(host_get_f(s, "results", i) == 0.75f + (d * 0.5f) * d);
            }
            sim_free(s);
        }
}

static const char *sum_of_squares_ir =
    HEADER
    "define void @main() {\n"
    "entry:\n"
    "  %n = call i32 @w2.recv.i32(i32 0)\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
    "  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]\n"
    "  %sq = mul i32 %i, %i\n"
    "  %s1 = add i32 %s, %sq\n"
    "  %i1 = add i32 %i, 1\n"
    "  %more = icmp slt i32 %i1, %n\n"
    "  br i1 %more, label %loop, label %exit\n"
    "exit:\n"
    "  call void @w2.send.i32(i32 2, i32 %s1)\n"
    "  call void @w2.send.i32(i32 2, i32 %i1)\n"
    "  ret void\n"
    "}\n";

static void test_run_loops(void **state)
{
    (void)state;
    /* From -O1 on, LLVM replaces the loop by its closed form, computed in i33. */
    static const int32_t ns[] = {10, 1, 2, 3, 1000, 100000};
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 3; opt++)
            for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
                if (opt == 0 && ns[k] > 1000) continue;
                uint32_t sum = 0, i = 0;
                do {
                    sum += i * i;
                    i++;
                } while ((int32_t)i < ns[k]);
                inputs in = {0};
                in_i(&in, WT_Q_XL, ns[k]);
                sim *s = run_ir(sum_of_squares_ir, opt, models[mi], &in, 0, NULL);
                assert_int_equal(sent_count(s, WT_Q_XR), 2);
                assert_int_equal(sent(s, WT_Q_XR, 0), sum);
                assert_int_equal(sent(s, WT_Q_XR, 1), i);
                sim_free(s);
            }
}

static void test_run_closed_forms(void **state)
{
    (void)state;
    /* Cubes need a wider closed form (i35), the nested loop a second one. */
    const char *ir = HEADER
        "define void @main() {\n"
        "entry:\n"
        "  %n = call i32 @w2.recv.i32(i32 0)\n"
        "  br label %loop\n"
        "loop:\n"
        "  %i = phi i32 [ 0, %entry ], [ %i1, %inner.end ]\n"
        "  %s = phi i32 [ 0, %entry ], [ %s2, %inner.end ]\n"
        "  %sq = mul i32 %i, %i\n"
        "  %cube = mul i32 %sq, %i\n"
        "  %t = mul i32 %i, 3\n"
        "  %u = add i32 %cube, %t\n"
        "  %s1 = add i32 %s, %u\n"
        "  br label %inner\n"
        "inner:\n"
        "  %j = phi i32 [ 0, %loop ], [ %j1, %inner ]\n"
        "  %r = phi i32 [ %s1, %loop ], [ %r1, %inner ]\n"
        "  %r1 = add i32 %r, %j\n"
        "  %j1 = add i32 %j, 1\n"
        "  %jm = icmp slt i32 %j1, %i\n"
        "  br i1 %jm, label %inner, label %inner.end\n"
        "inner.end:\n"
        "  %s2 = phi i32 [ %r1, %inner ]\n"
        "  %i1 = add i32 %i, 1\n"
        "  %more = icmp slt i32 %i1, %n\n"
        "  br i1 %more, label %loop, label %exit\n"
        "exit:\n"
        "  call void @w2.send.i32(i32 2, i32 %s2)\n"
        "  ret void\n"
        "}\n";
    static const int32_t ns[] = {1, 2, 5, 77, 3000};
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 3; opt++)
            for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
                if (opt == 0 && ns[k] > 100) continue;
                uint32_t sum = 0, i = 0;
                do {
                    sum += i * i * i + 3 * i;
                    uint32_t j = 0;
                    do {
                        sum += j;
                        j++;
                    } while ((int32_t)j < (int32_t)i);
                    i++;
                } while ((int32_t)i < ns[k]);
                inputs in = {0};
                in_i(&in, WT_Q_XL, ns[k]);
                sim *s = run_ir(ir, opt, models[mi], &in, 0, NULL);
                if (sent(s, WT_Q_XR, 0) != sum)
                    fail_msg("%s -O%d n=%d: %u, expected %u", models[mi], opt, ns[k], (unsigned)sent(s, WT_Q_XR, 0),
                             (unsigned)sum);
                sim_free(s);
            }
}

static void test_run_sends_in_both_arms(void **state)
{
    (void)state;
    /* LLVM would merge the two calls into one with a phi for the queue; the
     * queue selects a gate, so it must stay a constant. */
    const char *ir = HEADER
        "define void @main() {\n"
        "entry:\n"
        "  %a = call i32 @w2.recv.i32(i32 0)\n"
        "  %c = icmp sgt i32 %a, 0\n"
        "  br i1 %c, label %then, label %else\n"
        "then:\n"
        "  %x = add i32 %a, 1\n"
        "  call void @w2.send.i32(i32 2, i32 %x)\n"
        "  %p = call i32 @w2.recv.i32(i32 0)\n"
        "  br label %join\n"
        "else:\n"
        "  %y = sub i32 0, %a\n"
        "  call void @w2.send.i32(i32 3, i32 %y)\n"
        "  %q = call i32 @w2.recv.i32(i32 1)\n"
        "  br label %join\n"
        "join:\n"
        "  %r = phi i32 [ %p, %then ], [ %q, %else ]\n"
        "  call void @w2.send.i32(i32 2, i32 %r)\n"
        "  ret void\n"
        "}\n";
    for (int opt = 0; opt <= 3; opt++) {
        inputs in = {0};
        in_i(&in, WT_Q_XL, 5);
        in_i(&in, WT_Q_XL, 50);
        in_i(&in, WT_Q_YL, 60);
        sim *s = run_ir(ir, opt, "warp", &in, 0, NULL);
        assert_int_equal(sent_count(s, WT_Q_XR), 2);
        assert_int_equal(sent(s, WT_Q_XR, 0), 6);
        assert_int_equal(sent(s, WT_Q_XR, 1), 50);
        sim_free(s);
        in = (inputs){0};
        in_i(&in, WT_Q_XL, -4);
        in_i(&in, WT_Q_YL, 60);
        s = run_ir(ir, opt, "warp", &in, 0, NULL);
        assert_int_equal(sent_count(s, WT_Q_YR), 1);
        assert_int_equal(sent(s, WT_Q_YR, 0), 4);
        assert_int_equal(sent(s, WT_Q_XR, 0), 60);
        sim_free(s);
    }
}

static void test_run_phi_swap(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() {\n"
        "entry:\n"
        "  %a0 = call i32 @w2.recv.i32(i32 0)\n"
        "  %b0 = call i32 @w2.recv.i32(i32 0)\n"
        "  %n = call i32 @w2.recv.i32(i32 0)\n"
        "  br label %loop\n"
        "loop:\n"
        "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
        "  %a = phi i32 [ %a0, %entry ], [ %b, %loop ]\n"
        "  %b = phi i32 [ %b0, %entry ], [ %a, %loop ]\n"
        "  %i1 = add i32 %i, 1\n"
        "  %more = icmp ult i32 %i1, %n\n"
        "  br i1 %more, label %loop, label %exit\n"
        "exit:\n"
        "  call void @w2.send.i32(i32 2, i32 %a)\n"
        "  call void @w2.send.i32(i32 2, i32 %b)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 2; opt += 2)
            for (int n = 1; n <= 4; n++) {
                inputs in = {0};
                in_i(&in, WT_Q_XL, 11);
                in_i(&in, WT_Q_XL, 22);
                in_i(&in, WT_Q_XL, n);
                sim *s = run_ir(ir, opt, models[mi], &in, 0, NULL);
                /* The loop body runs n times; the phis at exit hold the values
                 * entering the last iteration. */
                int swaps = n - 1;
                assert_int_equal(sent(s, WT_Q_XR, 0), swaps % 2 ? 22 : 11);
                assert_int_equal(sent(s, WT_Q_XR, 1), swaps % 2 ? 11 : 22);
                sim_free(s);
            }
}

static int icmp_ref(const char *p, int32_t a, int32_t b)
{
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    if (!strcmp(p, "eq")) return a == b;
    if (!strcmp(p, "ne")) return a != b;
    if (!strcmp(p, "slt")) return a < b;
    if (!strcmp(p, "sle")) return a <= b;
    if (!strcmp(p, "sgt")) return a > b;
    if (!strcmp(p, "sge")) return a >= b;
    if (!strcmp(p, "ult")) return ua < ub;
    if (!strcmp(p, "ule")) return ua <= ub;
    if (!strcmp(p, "ugt")) return ua > ub;
    return ua >= ub;
}

static int fcmp_ref(const char *p, float a, float b)
{
    int uno = a != a || b != b;
    if (!strcmp(p, "false")) return 0;
    if (!strcmp(p, "true")) return 1;
    if (!strcmp(p, "ord")) return !uno;
    if (!strcmp(p, "uno")) return uno;
    int lt = a < b, gt = a > b, eq = a == b;
    int r;
    switch (p[1]) {
    case 'e': r = eq; break;                                /* oeq ueq */
    case 'n': r = lt || gt; break;                          /* one une */
    case 'g': r = p[2] == 't' ? gt : gt || eq; break;       /* ogt oge ugt uge */
    default: r = p[2] == 't' ? lt : lt || eq; break;        /* olt ole ult ule */
    }
    return p[0] == 'u' ? (uno || r) : (!uno && r);
}

static void test_run_compares(void **state)
{
    (void)state;
    static const char *ipreds[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
    static const char *fpreds[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                   "uno", "ueq", "ugt", "uge", "ult", "ule", "une", "true"};
    static const int32_t ia[] = {3, 5, -2, 7, INT32_MIN, -1};
    static const int32_t ib[] = {5, 3, 7, 7, 1, 0};
    float nan = wt_f(0x7fc00000u);
    const float fa[] = {1.0f, 2.0f, nan, 1.0f, -0.0f, 3.0f};
    const float fb[] = {2.0f, 1.0f, 1.0f, 1.0f, 0.0f, nan};
    for (int k = 0; k < 26; k++)
        for (int opt = 0; opt <= 2; opt += 2) {
            char ir[4096];
            /* The compare feeds a branch, a select and a value. */
            if (k < 10)
                snprintf(ir, sizeof ir, HEADER
                         "define void @main() {\n"
                         "entry:\n"
                         "  %%a = call i32 @w2.recv.i32(i32 0)\n"
                         "  %%b = call i32 @w2.recv.i32(i32 1)\n"
                         "  %%c = icmp %s i32 %%a, %%b\n"
                         "  %%v = select i1 %%c, i32 100, i32 200\n"
                         "  call void @w2.send.i32(i32 2, i32 %%v)\n"
                         "  %%z = zext i1 %%c to i32\n"
                         "  call void @w2.send.i32(i32 2, i32 %%z)\n"
                         "  %%c2 = icmp %s i32 %%a, %%b\n"
                         "  br i1 %%c2, label %%yes, label %%no\n"
                         "yes:\n"
                         "  call void @w2.send.i32(i32 3, i32 1)\n"
                         "  ret void\n"
                         "no:\n"
                         "  call void @w2.send.i32(i32 3, i32 0)\n"
                         "  ret void\n"
                         "}\n", ipreds[k], ipreds[k]);
            else
                snprintf(ir, sizeof ir, HEADER
                         "define void @main() {\n"
                         "entry:\n"
                         "  %%a = call float @w2.recv.f32(i32 0)\n"
                         "  %%b = call float @w2.recv.f32(i32 1)\n"
                         "  %%c = fcmp %s float %%a, %%b\n"
                         "  %%v = select i1 %%c, i32 100, i32 200\n"
                         "  call void @w2.send.i32(i32 2, i32 %%v)\n"
                         "  %%z = zext i1 %%c to i32\n"
                         "  call void @w2.send.i32(i32 2, i32 %%z)\n"
                         "  %%c2 = fcmp %s float %%a, %%b\n"
                         "  br i1 %%c2, label %%yes, label %%no\n"
                         "yes:\n"
                         "  call void @w2.send.i32(i32 3, i32 1)\n"
                         "  ret void\n"
                         "no:\n"
                         "  call void @w2.send.i32(i32 3, i32 0)\n"
                         "  ret void\n"
                         "}\n", fpreds[k - 10], fpreds[k - 10]);
            char *text = compile_ok(ir, opt, "warp");
            assert_rules(text, "warp");
            for (int x = 0; x < 6; x++) {
                sim *s = sim_start(text, "warp", 0);
                int expect;
                if (k < 10) {
                    feed(s, 0, (uint32_t)ia[x]);
                    feed(s, 1, (uint32_t)ib[x]);
                    expect = icmp_ref(ipreds[k], ia[x], ib[x]);
                } else {
                    feed(s, 0, wt_u(fa[x]));
                    feed(s, 1, wt_u(fb[x]));
                    expect = fcmp_ref(fpreds[k - 10], fa[x], fb[x]);
                }
                sim_go(s, text);
                const char *what = k < 10 ? ipreds[k] : fpreds[k - 10];
                if (sent(s, WT_Q_XR, 0) != (uint32_t)(expect ? 100 : 200) || sent(s, WT_Q_XR, 1) != (uint32_t)expect ||
                    sent(s, WT_Q_YR, 0) != (uint32_t)expect)
                    fail_msg("%s on input %d at -O%d: got %u %u %u, expected %d\n%s", what, x, opt,
                             (unsigned)sent(s, WT_Q_XR, 0), (unsigned)sent(s, WT_Q_XR, 1),
                             (unsigned)sent(s, WT_Q_YR, 0), expect, text);
                sim_free(s);
            }
            free(text);
        }
}

static void test_run_integer_and_float_operations(void **state)
{
    (void)state;
    const char *ir = HEADER
        "declare i32 @llvm.smin.i32(i32, i32)\n"
        "declare i32 @llvm.umax.i32(i32, i32)\n"
        "declare i32 @llvm.abs.i32(i32, i1)\n"
        "declare i32 @llvm.fptosi.sat.i32.f32(float)\n"
        "declare float @llvm.copysign.f32(float, float)\n"
        "declare i32 @llvm.fshl.i32(i32, i32, i32)\n"
        "declare i32 @llvm.fshr.i32(i32, i32, i32)\n"
        "define void @main() {\n"
        "  %a = call i32 @w2.recv.i32(i32 0)\n"
        "  %b = call i32 @w2.recv.i32(i32 1)\n"
        "  %f = call float @w2.recv.f32(i32 0)\n"
        "  %1 = sdiv i32 %a, %b\n"
        "  call void @w2.send.i32(i32 2, i32 %1)\n"
        "  %2 = srem i32 %a, %b\n"
        "  call void @w2.send.i32(i32 2, i32 %2)\n"
        "  %3 = udiv i32 %a, %b\n"
        "  call void @w2.send.i32(i32 2, i32 %3)\n"
        "  %4 = urem i32 %a, %b\n"
        "  call void @w2.send.i32(i32 2, i32 %4)\n"
        "  %5 = shl i32 %b, 4\n"
        "  call void @w2.send.i32(i32 2, i32 %5)\n"
        "  %6 = lshr i32 %a, 28\n"
        "  call void @w2.send.i32(i32 2, i32 %6)\n"
        "  %7 = ashr i32 %a, 2\n"
        "  call void @w2.send.i32(i32 2, i32 %7)\n"
        "  %8 = and i32 %a, 255\n"
        "  %9 = or i32 %8, 4096\n"
        "  %10 = xor i32 %9, %b\n"
        "  call void @w2.send.i32(i32 2, i32 %10)\n"
        "  %11 = sub i32 %b, %a\n"
        "  call void @w2.send.i32(i32 2, i32 %11)\n"
        "  %12 = call i32 @llvm.smin.i32(i32 %a, i32 %b)\n"
        "  call void @w2.send.i32(i32 2, i32 %12)\n"
        "  %13 = call i32 @llvm.umax.i32(i32 %a, i32 %b)\n"
        "  call void @w2.send.i32(i32 2, i32 %13)\n"
        "  %14 = call i32 @llvm.abs.i32(i32 %a, i1 false)\n"
        "  call void @w2.send.i32(i32 2, i32 %14)\n"
        "  %15 = call i32 @w2.idiv(i32 %a, i32 %b)\n"
        "  %16 = call i32 @w2.imod(i32 %a, i32 %b)\n"
        "  %17 = add i32 %15, %16\n"
        "  call void @w2.send.i32(i32 2, i32 %17)\n"
        "  %18 = call i32 @llvm.fptosi.sat.i32.f32(float %f)\n"
        "  call void @w2.send.i32(i32 2, i32 %18)\n"
        "  %19 = fptoui float %f to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %19)\n"
        "  %20 = mul i32 %a, %b\n"
        "  call void @w2.send.i32(i32 2, i32 %20)\n"
        "  %21 = trunc i32 %a to i8\n"
        "  %22 = sext i8 %21 to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %22)\n"
        "  %23 = zext i8 %21 to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %23)\n"
        "  %24 = add i8 %21, 100\n"
        "  %25 = zext i8 %24 to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %25)\n"
        "  %26 = ashr i8 %21, 3\n"
        "  %27 = sext i8 %26 to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %27)\n"
        "  %28 = icmp slt i8 %21, 0\n"
        "  %29 = zext i1 %28 to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %29)\n"
        "  %30 = sitofp i32 %a to float\n"
        "  call void @w2.send.f32(i32 3, float %30)\n"
        "  %31 = uitofp i32 %b to float\n"
        "  call void @w2.send.f32(i32 3, float %31)\n"
        "  %32 = fdiv float %f, 2.0\n"
        "  %33 = fsub float %32, 1.0\n"
        "  %34 = fneg float %33\n"
        "  call void @w2.send.f32(i32 3, float %34)\n"
        "  %35 = sitofp i8 %21 to float\n"
        "  call void @w2.send.f32(i32 3, float %35)\n"
        "  %36 = call float @llvm.copysign.f32(float 2.5, float %34)\n"
        "  call void @w2.send.f32(i32 3, float %36)\n"
        "  %37 = call i32 @llvm.fshl.i32(i32 %a, i32 %b, i32 %b)\n"
        "  call void @w2.send.i32(i32 2, i32 %37)\n"
        "  %38 = call i32 @llvm.fshr.i32(i32 %a, i32 %b, i32 32)\n"
        "  call void @w2.send.i32(i32 2, i32 %38)\n"
        "  ret void\n"
        "}\n";
    int32_t a = -100, b = 7;
    float f = 12.75f;
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    int8_t a8 = (int8_t)(uint8_t)(ua & 0xff);
    const uint32_t want[] = {
        (uint32_t)(a / b), (uint32_t)(a % b), ua / ub, ua % ub, ub << 4, ua >> 28, (uint32_t)(a >> 2),
        ((ua & 255) | 4096) ^ ub, (uint32_t)(b - a), (uint32_t)(a < b ? a : b), ua > ub ? ua : ub, 100,
        (uint32_t)(a / b + a % b), 12, 12, (uint32_t)(a * b), (uint32_t)(int32_t)a8, (uint32_t)(uint8_t)a8,
        (uint32_t)(uint8_t)(a8 + 100), (uint32_t)(int32_t)(int8_t)(a8 >> 3), a8 < 0,
        (ua << 7) | (ub >> 25), ub,
    };
    const float wantf[] = {(float)a, (float)ub, -(f / 2.0f - 1.0f), (float)a8, -2.5f};
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 2; opt += 2) {
            inputs in = {0};
            in_i(&in, WT_Q_XL, a);
            in_i(&in, WT_Q_YL, b);
            in_f(&in, WT_Q_XL, f);
            sim *s = run_ir(ir, opt, models[mi], &in, 0, NULL);
            assert_int_equal(sent_count(s, WT_Q_XR), (int)(sizeof want / sizeof *want));
            for (size_t k = 0; k < sizeof want / sizeof *want; k++)
                if (sent(s, WT_Q_XR, (int)k) != want[k])
                    fail_msg("%s -O%d: result %zu is %d, expected %d", models[mi], opt, k,
                             (int)sent(s, WT_Q_XR, (int)k), (int)want[k]);
            for (size_t k = 0; k < sizeof wantf / sizeof *wantf; k++) assert_true(sent_f(s, WT_Q_YR, (int)k) == wantf[k]);
            sim_free(s);
        }
}

static void test_run_memory(void **state)
{
    (void)state;
    const char *ir = HEADER
        "@bytes = internal global [10 x i8] zeroinitializer\n"
        "@halves = internal global [6 x i16] zeroinitializer\n"
        "@words = internal global [8 x i32] zeroinitializer\n"
        "@copy = internal global [8 x i32] zeroinitializer\n"
        "@big = internal global [64 x i32] zeroinitializer\n"
        "@big2 = internal global [64 x i32] zeroinitializer\n"
        "@flag = internal global i1 false\n"
        "declare void @llvm.memset.p0.i32(ptr, i8, i32, i1)\n"
        "declare void @llvm.memcpy.p0.p0.i32(ptr, ptr, i32, i1)\n"
        "define void @main() {\n"
        "  %n = call i32 @w2.recv.i32(i32 0)\n"
        "  %k = call i32 @w2.recv.i32(i32 0)\n"
        "  call void @llvm.memset.p0.i32(ptr @bytes, i8 7, i32 %n, i1 false)\n"
        "  store i8 -3, ptr getelementptr ([10 x i8], ptr @bytes, i32 0, i32 7)\n"
        "  %hp = getelementptr [6 x i16], ptr @halves, i32 0, i32 %k\n"
        "  store i16 4660, ptr %hp\n"
        "  call void @llvm.memset.p0.i32(ptr align 4 @words, i8 1, i32 32, i1 false)\n"
        "  call void @llvm.memcpy.p0.p0.i32(ptr align 4 @copy, ptr align 4 @words, i32 32, i1 false)\n"
        "  call void @llvm.memset.p0.i32(ptr align 4 @big, i8 171, i32 256, i1 false)\n"
        "  call void @llvm.memcpy.p0.p0.i32(ptr align 4 @big2, ptr align 4 @big, i32 256, i1 false)\n"
        "  store i1 true, ptr @flag\n"
        "  %b5 = load i8, ptr getelementptr ([10 x i8], ptr @bytes, i32 0, i32 5)\n"
        "  %b6 = load i8, ptr getelementptr ([10 x i8], ptr @bytes, i32 0, i32 6)\n"
        "  %b7 = load i8, ptr getelementptr ([10 x i8], ptr @bytes, i32 0, i32 7)\n"
        "  %h = load i16, ptr %hp\n"
        "  %k1 = add i32 %k, -1\n"
        "  %hp1 = getelementptr [6 x i16], ptr @halves, i32 0, i32 %k1\n"
        "  %h1 = load i16, ptr %hp1\n"
        "  %c7 = load i32, ptr getelementptr ([8 x i32], ptr @copy, i32 0, i32 7)\n"
        "  %g = load i32, ptr getelementptr ([64 x i32], ptr @big2, i32 0, i32 63)\n"
        "  %fl = load i1, ptr @flag\n"
        "  %v5 = zext i8 %b5 to i32\n"
        "  %v6 = zext i8 %b6 to i32\n"
        "  %v7 = sext i8 %b7 to i32\n"
        "  %vh = zext i16 %h to i32\n"
        "  %vh1 = zext i16 %h1 to i32\n"
        "  %vf = zext i1 %fl to i32\n"
        "  call void @w2.send.i32(i32 2, i32 %v5)\n"
        "  call void @w2.send.i32(i32 2, i32 %v6)\n"
        "  call void @w2.send.i32(i32 2, i32 %v7)\n"
        "  call void @w2.send.i32(i32 2, i32 %vh)\n"
        "  call void @w2.send.i32(i32 2, i32 %vh1)\n"
        "  call void @w2.send.i32(i32 2, i32 %c7)\n"
        "  call void @w2.send.i32(i32 2, i32 %g)\n"
        "  call void @w2.send.i32(i32 2, i32 %vf)\n"
        "  ret void\n"
        "}\n";
    const uint32_t want[] = {7, 0, (uint32_t)-3, 4660, 0, 0x01010101u, 0xababababu, 1};
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 2; opt += 2) {
            inputs in = {0};
            in_i(&in, WT_Q_XL, 6);
            in_i(&in, WT_Q_XL, 3);
            sim *s = run_ir(ir, opt, models[mi], &in, 0, NULL);
            assert_int_equal(sent_count(s, WT_Q_XR), 8);
            for (int k = 0; k < 8; k++)
                if (sent(s, WT_Q_XR, k) != want[k])
                    fail_msg("%s -O%d: value %d is %#x, expected %#x", models[mi], opt, k, (unsigned)sent(s, WT_Q_XR, k),
                             (unsigned)want[k]);
            sim_free(s);
        }
}

static void test_run_under_register_pressure(void **state)
{
    (void)state;
    char *ir = malloc(65536);
    int n = snprintf(ir, 65536, "%sdefine void @main() {\n", HEADER);
    for (int i = 0; i < 80; i++) n += snprintf(ir + n, 65536 - (size_t)n, "  %%v%d = call i32 @w2.recv.i32(i32 0)\n", i);
    n += snprintf(ir + n, 65536 - (size_t)n, "  %%s80 = add i32 %%v79, 1\n");
    for (int i = 79; i > 0; i--)
        n += snprintf(ir + n, 65536 - (size_t)n, "  %%s%d = mul i32 %%s%d, %%v%d\n", i, i + 1, i - 1);
    snprintf(ir + n, 65536 - (size_t)n, "  call void @w2.send.i32(i32 2, i32 %%s1)\n  ret void\n}\n");
    uint32_t want = 79 + 2 + 1;
    for (int i = 79; i > 0; i--) want *= (uint32_t)(i - 1 + 2);
    for (int mi = 0; mi < 2; mi++) {
        inputs in = {0};
        for (int i = 0; i < 80; i++) in_i(&in, WT_Q_XL, i + 2);
        sim *s = run_ir(ir, 0, models[mi], &in, 0, NULL);
        assert_int_equal(sent(s, WT_Q_XR, 0), want);
        sim_free(s);
    }
    free(ir);
}

/* A pipelined loop: s += x*x over words from the left on Y, each sent on plus 1
 * to the right on Y, s to the right on X at the end. The trip count is the word
 * from the left on X (n > 0 guarded), or the constant `fixed` when it is > 0. */
static char *trips_ir(int fixed)
{
    char *ir = malloc(4096);
    char n[32];
    if (fixed > 0) snprintf(n, sizeof n, "%d", fixed);
    else snprintf(n, sizeof n, "%%n");
    snprintf(ir, 4096,
             "%sdefine void @main() {\n"
             "entry:\n"
             "  %%n = call i32 @w2.recv.i32(i32 0)\n"
             "  %%guard = icmp sgt i32 %s, 0\n"
             "  br i1 %%guard, label %%loop, label %%exit\n"
             "loop:\n"
             "  %%i = phi i32 [ 0, %%entry ], [ %%i.next, %%loop ]\n"
             "  %%s = phi float [ 0.0, %%entry ], [ %%s.next, %%loop ]\n"
             "  %%x = call float @w2.recv.f32(i32 1)\n"
             "  %%x2 = fmul float %%x, %%x\n"
             "  %%s.next = fadd float %%s, %%x2\n"
             "  %%y = fadd float %%x, 1.0\n"
             "  call void @w2.send.f32(i32 3, float %%y)\n"
             "  %%i.next = add i32 %%i, 1\n"
             "  %%done = icmp eq i32 %%i.next, %s\n"
             "  br i1 %%done, label %%exit, label %%loop\n"
             "exit:\n"
             "  %%sf = phi float [ 0.0, %%entry ], [ %%s.next, %%loop ]\n"
             "  call void @w2.send.f32(i32 2, float %%sf)\n"
             "  ret void\n"
             "}\n",
             HEADER, n, n);
    return ir;
}

static void check_trips(const char *ir, const char *model, int trips, int feed_n)
{
    inputs in = {0};
    in_i(&in, WT_Q_XL, feed_n);
    for (int i = 0; i < trips; i++) in_f(&in, WT_Q_YL, 0.5f * (float)i - 3.0f);
    sim *s = run_ir(ir, 2, model, &in, 0, NULL);
    float sum = 0.0f;
    for (int i = 0; i < trips; i++) {
        volatile float x = 0.5f * (float)i - 3.0f, p = x * x;
        sum = sum + p;
        assert_true(sent_f(s, WT_Q_YR, i) == x + 1.0f);
    }
    assert_int_equal(sent_count(s, WT_Q_YR), trips);
    assert_int_equal(sent_count(s, WT_Q_XR), 1);
    assert_true(sent_f(s, WT_Q_XR, 0) == sum);
    sim_free(s);
}

static void test_pipeline_trip_counts(void **state)
{
    (void)state;
    /* The prologue, kernel, epilogue and left-over iterations against the original
     * loop, for trip counts 0, 1, 2 (too short for the pipeline: the original loop
     * runs them), every count around the pipeline's minimum (nothing and something
     * left over), and a large one; both from a received word and constant. */
    static const int counts[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 100};
    wb_remarks report = {0};
    for (int mi = 0; mi < 2; mi++) {
        char *ir = trips_ir(0);
        swp_report = &report;
        char *text = compile_ok(ir, 2, models[mi]);
        swp_report = NULL;
        free(text);
        assert_int_equal(report.n, 1);   /* one loop, one remark */
        assert_true(strncmp(report.at[0].message, "II=", 3) == 0);
        wb_remarks_free(&report);
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) check_trips(ir, models[mi], counts[k], counts[k]);
        free(ir);
        for (size_t k = 1; k < sizeof counts / sizeof *counts; k++) {
            ir = trips_ir(counts[k]);
            check_trips(ir, models[mi], counts[k], 0);
            free(ir);
        }
    }
}

static void test_pipeline_register_pressure(void **state)
{
    (void)state;
    /* Horner's rule on sixty coefficients received before the loop: sixty
     * invariants live through the loop, beside the values of the ten or so
     * iterations in flight at II = 60. The pipeliner counts what its schedule
     * needs; where that is more than there are, it spills invariants (stored
     * before the loop, reloaded in it) rather than give up the pipeline, and says
     * so. The results must not change. */
    enum { NK = 60, TRIPS = 20 };
    char *ir = malloc(1 << 16);
    int n = snprintf(ir, 1 << 16, "%sdefine void @main() {\nentry:\n", HEADER);
    for (int k = 0; k < NK; k++) n += snprintf(ir + n, (1 << 16) - (size_t)n, "  %%c%d = call float @w2.recv.f32(i32 0)\n", k);
    n += snprintf(ir + n, (1 << 16) - (size_t)n,
                  "  br label %%loop\nloop:\n  %%i = phi i32 [ 0, %%entry ], [ %%i.next, %%loop ]\n"
                  "  %%x = call float @w2.recv.f32(i32 1)\n  %%p0 = fadd float %%c0, 0.0\n");
    for (int k = 1; k < NK; k++)
        n += snprintf(ir + n, (1 << 16) - (size_t)n, "  %%m%d = fmul float %%p%d, %%x\n  %%p%d = fadd float %%m%d, %%c%d\n",
                      k, k - 1, k, k, k);
    snprintf(ir + n, (1 << 16) - (size_t)n,
             "  call void @w2.send.f32(i32 3, float %%p%d)\n  %%i.next = add i32 %%i, 1\n"
             "  %%done = icmp eq i32 %%i.next, %d\n  br i1 %%done, label %%exit, label %%loop\nexit:\n  ret void\n}\n",
             NK - 1, TRIPS);
    wb_remarks report = {0};
    for (int mi = 0; mi < 2; mi++) {
        inputs in = {0};
        for (int k = 0; k < NK; k++) in_f(&in, WT_Q_XL, 0.25f * (float)(k % 7) - 0.5f);
        for (int i = 0; i < TRIPS; i++) in_f(&in, WT_Q_YL, 0.5f + 0.0625f * (float)i);
        swp_report = &report;
        sim *s = run_ir(ir, 2, models[mi], &in, 0, NULL);
        swp_report = NULL;
        assert_int_equal(report.n, 1);
        const char *said = report.at[0].message;
        /* pipelined at its MII, with invariants spilled */
        int ii, mii;
        const char *r = strstr(said, "II=");
        assert_non_null(r);
        if (models[mi][0] == 'i') {
            /* iWarp's float units take an operation every second clock: 2 x 59
             * adds (and as many multiplies) bound the II beyond what the pipeliner
             * tries; the loop runs unpipelined, with the same results */
            assert_non_null(strstr(said, "ResMII=118"));
        } else {
            assert_int_equal(sscanf(r, "II=%d MII=%d", &ii, &mii), 2);
            assert_int_equal(ii, mii);
            assert_non_null(strstr(said, "spilled"));
        }
        for (int i = 0; i < TRIPS; i++) {
            volatile float x = 0.5f + 0.0625f * (float)i, p = -0.5f + 0.0f;
            for (int k = 1; k < NK; k++) {
                volatile float m = p * x;
                p = m + (0.25f * (float)(k % 7) - 0.5f);
            }
            assert_true(sent_f(s, WT_Q_YR, i) == p);
        }
        sim_free(s);
        wb_remarks_free(&report);
    }
    free(ir);
}

static void test_run_call(void **state)
{
    (void)state;
    const char *ir = HEADER
        "@acc = internal global float 0.0\n"
        "define internal void @helper() {\n"
        "  %a = load float, ptr @acc\n"
        "  %b = fadd float %a, 1.0\n"
        "  store float %b, ptr @acc\n"
        "  %t = call i32 @w2.recv.i32(i32 1)\n"
        "  %u = mul i32 %t, 3\n"
        "  call void @w2.send.i32(i32 3, i32 %u)\n"
        "  ret void\n"
        "}\n"
        "define void @main() {\n"
        "entry:\n"
        "  %x = call i32 @w2.recv.i32(i32 0)\n"
        "  %c = call i32 @w2.cellid()\n"
        "  %y = mul i32 %x, %c\n"
        "  br label %loop\n"
        "loop:\n"
        "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
        "  call void @helper()\n"
        "  %i1 = add i32 %i, 1\n"
        "  %more = icmp ne i32 %i1, 3\n"
        "  br i1 %more, label %loop, label %exit\n"
        "exit:\n"
        "  %z = add i32 %y, %x\n"
        "  call void @w2.send.i32(i32 2, i32 %z)\n"
        "  %f = load float, ptr @acc\n"
        "  call void @w2.send.f32(i32 2, float %f)\n"
        "  ret void\n"
        "}\n";
    for (int mi = 0; mi < 2; mi++)
        for (int opt = 0; opt <= 1; opt++) {
            inputs in = {0};
            in_i(&in, WT_Q_XL, 5);
            for (int k = 0; k < 3; k++) in_i(&in, WT_Q_YL, 10 + k);
            sim *s = run_ir(ir, opt, models[mi], &in, 3, NULL);
            assert_int_equal(sent(s, WT_Q_XR, 0), 5 * 3 + 5);
            assert_true(sent_f(s, WT_Q_XR, 1) == 3.0f);
            for (int k = 0; k < 3; k++) assert_int_equal(sent(s, WT_Q_YR, k), 3 * (10 + k));
            sim_free(s);
        }
}

static void test_run_switch(void **state)
{
    (void)state;
    const char *ir = HEADER
        "define void @main() {\n"
        "entry:\n"
        "  %x = call i32 @w2.recv.i32(i32 0)\n"
        "  switch i32 %x, label %other [ i32 0, label %zero\n"
        "                                i32 7, label %seven\n"
        "                                i32 9, label %nine ]\n"
        "zero:\n"
        "  br label %join\n"
        "seven:\n"
        "  br label %join\n"
        "nine:\n"
        "  br label %join\n"
        "other:\n"
        "  br label %join\n"
        "join:\n"
        "  %r = phi float [ 1.0, %zero ], [ 7.0, %seven ], [ 9.5, %nine ], [ -1.0, %other ]\n"
        "  call void @w2.send.f32(i32 2, float %r)\n"
        "  ret void\n"
        "}\n";
    static const int32_t x[] = {0, 7, 9, 3};
    static const float r[] = {1.0f, 7.0f, 9.5f, -1.0f};
    for (int opt = 0; opt <= 2; opt += 2)
        for (int k = 0; k < 4; k++) {
            inputs in = {0};
            in_i(&in, WT_Q_XL, x[k]);
            sim *s = run_ir(ir, opt, "warp", &in, 0, NULL);
            assert_true(sent_f(s, WT_Q_XR, 0) == r[k]);
            sim_free(s);
        }
}

static void test_machine_ir_prints(void **state)
{
    (void)state;
    /* Every intermediate form is printable: the machine IR after selection and
     * after phi lowering, gate folding and coalescing. */
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(horner_ir, strlen(horner_ir), "h.ll");
    LLVMModuleRef m;
    char *msg = NULL;
    ws_diagnostic err;
    assert_int_equal(LLVMParseIRInContext(ctx, mb, &m, &msg), 0);
    wb_module *mod = wb_module_new(m, &err);
    assert_non_null(mod);
    wb_func *f = wb_func_new("main", wt_model_by_name("warp"));
    assert_int_equal(wb_isel(mod, LLVMGetNamedFunction(m, "main"), f), 0);
    ws_buf b = {0};
    wb_mir_print(f, &b);
    ws_buf_append(&b, "", 1);
    assert_non_null(strstr(b.data, "function main"));
    assert_non_null(strstr(b.data, "copy %"));
    assert_non_null(strstr(b.data, ", @xl"));
    assert_non_null(strstr(b.data, "; edge to @B1:"));
    assert_non_null(strstr(b.data, "hld %"));
    ws_buf_free(&b);
    wb_lower_phis(f);
    wb_fold_gates(f);
    wb_layout(f);
    wb_coalesce(f);
    wb_mir_print(f, &b);
    ws_buf_append(&b, "", 1);
    assert_null(strstr(b.data, "; edge to"));
    assert_non_null(strstr(b.data, "fadd @yr, %"));
    assert_non_null(strstr(b.data, "hld @fxl, [%"));
    ws_buf_free(&b);
    wb_func_free(f);
    wb_module_free(mod);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
}

/* The most values live at once in a scheduled block, counted as the allocator
 * counts them: from a definition's issue to its last read's issue. */
static int max_live(const wb_block *b, int nvregs)
{
    int *def = calloc((size_t)nvregs, sizeof *def), *last = calloc((size_t)nvregs, sizeof *last);
    for (int v = 0; v < nvregs; v++) def[v] = last[v] = -1;
    for (int i = 0; i <= b->nins; i++) {
        const wb_ins *in = i == b->nins ? &b->term : &b->ins[i];
        if (in->op == WT_OP_NONE) continue;
        for (int k = 0; k < wb_nsrc(in->op); k++)
            if (wb_is_vreg(in->s[k]) && in->cycle > last[in->s[k].v]) last[in->s[k].v] = in->cycle;
        if (wb_has_dest(in->op) && wb_is_vreg(in->d)) def[in->d.v] = in->cycle;
    }
    int *delta = calloc((size_t)b->len + 2, sizeof *delta), most = 0, live = 0;
    for (int v = 1; v < nvregs; v++)
        if (def[v] >= 0 && last[v] > def[v]) {
            delta[def[v]]++;
            delta[last[v]]--;
        }
    for (int c = 0; c <= b->len; c++) {
        live += delta[c];
        if (live > most) most = live;
    }
    free(def);
    free(last);
    free(delta);
    return most;
}

static void test_long_block_pressure_stays_under_the_limit(void **state)
{
    (void)state;
    /* A chain of 600 dependent steps (a compare, a select, an add: an `if` made
     * straight) with a reload of x every 6, each read only by the next steps of
     * the chain: every reload could issue at the top of the block. Hoisted there, they would hold 100 registers, and each for
     * thousands of clocks; the scheduler keeps the values live within the
     * registers, so the allocator finds them in one round. */
    ws_buf ir = {0};
    ws_buf_puts(&ir, HEADER "@x = internal global float 0.0\n"
                             "define void @main() {\nentry:\n"
                             "  %x0 = call float @w2.recv.f32(i32 0)\n"
                             "  store float %x0, ptr @x\n  %y0 = fadd float %x0, 1.0\n  %l0 = fadd float %x0, 0.0\n");
    int loads = 0;
    for (int k = 1; k <= 600; k++) {
        if (k % 6 == 0) {
            ws_buf_printf(&ir, "  %%l%d = load float, ptr @x\n", ++loads);
            ws_buf_printf(&ir, "  %%y%d = fmul float %%y%d, %%l%d\n", k, k - 1, loads);
        } else {
            ws_buf_printf(&ir, "  %%c%d = fcmp ogt float %%y%d, 3.0\n", k, k - 1);
            ws_buf_printf(&ir, "  %%s%d = select i1 %%c%d, float %%l%d, float 1.0\n", k, k, loads);
            ws_buf_printf(&ir, "  %%y%d = fadd float %%y%d, %%s%d\n", k, k - 1, k);
        }
    }
    ws_buf_puts(&ir, "  call void @w2.send.f32(i32 1, float %y600)\n  ret void\n}\n");
    ws_buf_append(&ir, "", 1);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir.data, strlen(ir.data), "long.ll");
    LLVMModuleRef m;
    char *msg = NULL;
    ws_diagnostic err;
    if (LLVMParseIRInContext(ctx, mb, &m, &msg)) fail_msg("%s", msg);
    ws_buf_free(&ir);
    static const char *models[] = {"warp", "iwarp"};
    for (int mi = 0; mi < 2; mi++) {
        wb_module *mod = wb_module_new(m, &err);
        assert_non_null(mod);
        const wt_model *model = wt_model_by_name(models[mi]);
        wb_func *f = wb_func_new("main", model);
        if (wb_isel(mod, LLVMGetNamedFunction(m, "main"), f)) fail_msg("%s", err.message);
        wb_lower_phis(f);
        wb_fold_gates(f);
        wb_layout(f);
        wb_coalesce(f);
        int limit = (int)model->nregs - 1 - 4, longest = 0;
        wb_schedule(f, limit);
        for (int id = 0; id < f->nblocks; id++) {
            int live = max_live(f->blocks[id], f->nvregs);
            if (live > longest) longest = live;
        }
        /* Over its limit the scheduler lets only the oldest operation add a value
         * (here, a compare): it may go a little past, never past the registers. */
        if (longest > (int)model->nregs - 1)
            fail_msg("%s: %d values live at once; %d registers", models[mi], longest, (int)model->nregs - 1);
        assert_int_equal(wb_regalloc(f), 0);
        wb_func_free(f);
        wb_module_free(mod);
    }
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
}

static void test_checker_catches_violations(void **state)
{
    (void)state;
    const wt_model *warp = wt_model_by_name("warp");
    checker c;
    static const char *bad_texts[] = {
        "main:\n        fmul r1, r2, r3\n        fadd r4, r1, r1\n        nop\n        nop\n        nop\n        nop\n"
        "        ret\n",                                                         /* read too early */
        "main:\n        iadd r1, r2, 1 | iadd r3, r4, 2 | iadd r5, r6, 3\n        ret\n",  /* three ALU ops */
        "main:\n        iadd r1, r2, 1 | isub r3, r4, 2 | mv r5, 3\n        ret\n",        /* three literals */
        "main:\n        fadd r1, r2, r3\n        ret\n",                          /* branch before completion */
        "main:\n        hld @fxl, [r0, data]\n        mv r1, @xl\n        nop\n        ret\n", /* feed not done */
        "main:\n        fadd r1, r2, r3\n        mv r1, r4\n        nop\n        nop\n        nop\n        ret\n",
        "main:\n        jmp main | ret\n",                                       /* two branches */
        "main:\n        idiv r1, r2, r3\n        iadd r4, r5, 1\n        nop\n        nop\n        nop\n"
        "        nop\n        ret\n",                                             /* divider busy */
    };
    for (size_t k = 0; k < sizeof bad_texts / sizeof *bad_texts; k++)
        if (check_asm(bad_texts[k], warp, &c) == 0) fail_msg("checker accepted:\n%s", bad_texts[k]);
    const char *three_gates = "main:\n        mv r1, @xl | mv r2, @yl | mov @xr, r3\n        ret\n";
    assert_int_equal(check_asm(three_gates, warp, &c), 0);
    assert_int_equal(check_asm(three_gates, wt_model_by_name("iwarp"), &c), -1);
    const char *good =
        "main:\n        fmul r1, r2, r3 | iadd r4, r5, 1\n        nop\n        nop\n        nop\n        nop\n"
        "        fadd @yr, r1, 1.0 | mv r4, @xl\n        nop\n        nop\n        nop\n        ret\n";
    if (check_asm(good, warp, &c) != 0) fail_msg("checker rejected a good text: %s", c.why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_catches_violations),
        cmocka_unit_test(test_long_block_pressure_stays_under_the_limit),
        cmocka_unit_test(test_machine_ir_prints),
        cmocka_unit_test(test_polynomial_all_levels_and_models),
        cmocka_unit_test(test_gate_folding),
        cmocka_unit_test(test_latency_between_def_and_use),
        cmocka_unit_test(test_independent_float_ops_share_a_bundle),
        cmocka_unit_test(test_send_written_by_producer),
        cmocka_unit_test(test_phi_loop_updates_in_place),
        cmocka_unit_test(test_phi_swap_needs_a_temporary),
        cmocka_unit_test(test_select_and_compares),
        cmocka_unit_test(test_float_compare_operands),
        cmocka_unit_test(test_call_spills_live_values),
        cmocka_unit_test(test_host_load_and_scalar_host),
        cmocka_unit_test(test_memset_and_memcpy),
        cmocka_unit_test(test_switch_and_unreachable),
        cmocka_unit_test(test_integer_operations),
        cmocka_unit_test(test_division_keeps_its_unit_busy),
        cmocka_unit_test(test_globals_and_data),
        cmocka_unit_test(test_register_pressure_spills),
        cmocka_unit_test(test_debug_locations),
        cmocka_unit_test(test_output_is_deterministic),
        cmocka_unit_test(test_errors_name_function_and_construct),
        cmocka_unit_test(test_optimize_keeps_loops_rolled),
        cmocka_unit_test(test_run_polynomial_on_one_cell),
        cmocka_unit_test(test_run_horner_with_fed_y),
        cmocka_unit_test(test_run_loops),
        cmocka_unit_test(test_run_closed_forms),
        cmocka_unit_test(test_run_sends_in_both_arms),
        cmocka_unit_test(test_run_phi_swap),
        cmocka_unit_test(test_run_compares),
        cmocka_unit_test(test_run_integer_and_float_operations),
        cmocka_unit_test(test_run_memory),
        cmocka_unit_test(test_run_under_register_pressure),
        cmocka_unit_test(test_pipeline_trip_counts),
        cmocka_unit_test(test_pipeline_register_pressure),
        cmocka_unit_test(test_run_call),
        cmocka_unit_test(test_run_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
