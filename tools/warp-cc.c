/* warp-cc: the compiler driver, as cc is one. It runs the stages in order and
 * stops where asked:
 *
 *   .w2 --w2_compile--> LLVM module --wb_optimize--> --wb_emit_assembly--> .s
 *   .s  --was_assemble--> .o
 *   crt0.o + .o... --wld_link--> image
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "w2_frontend.h"
#include "warp_assembler.h"
#include "warp_backend.h"
#include "warp_linker.h"
#include "warp_support.h"
#include "warp_target.h"

#define MAX_SOURCE_BYTES (16u << 20)

typedef enum { STOP_LINK, STOP_OBJECT, STOP_ASSEMBLY, STOP_LLVM } stop_stage;
/* What a stage's output is named after its input, as cc names it. */
static const char *const stop_ext[] = {".o", ".o", ".s", ".ll"};

typedef struct driver {
    const wt_model *model;
    int opt_level;
    int debug_info;
    int werror;
    int nostartfiles;
    int no_swp;            /* -fno-swp */
    int iu;                /* -fiu */
    int no_flow_control;   /* -fno-flow-control */
    int remark_swp;        /* -Rpass=swp */
    unsigned print_before, print_after;  /* -print-before=PASS ..., bit 1 << wb_pass */
    int verify_each;       /* -verify-each */
    stop_stage stop;
    const char *output;
    const char **inputs;
    int ninputs;
    char **temps;          /* temporary objects, removed at exit */
    int ntemps;
    int uses_messages;     /* a W2 input has sendmsg or receivemsg: link the runtime's msg_w2.o, msg.o */
    int uses_consets;      /* a W2 input instantiates connection sets: link conset_w2.o, conset.o */
} driver;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warp-cc [options] FILE...\n"
            "Compiles W2 cell programs (.w2), assembles (.s) and links (.o) into a cell image.\n"
            "\n"
            "  -mcpu=warp|iwarp  target machine model (default warp)\n"
            "  -O0 -O1 -O2 -O3   optimisation level (default -O0, as cc)\n"
            "  -g                emit source-level debug information\n"
            "  -S                stop after compiling: write assembly (.s)\n"
            "  -c                stop after assembling: write an object (.o)\n"
            "  -emit-llvm        stop after LLVM optimisation: write LLVM IR (.ll)\n"
            "  -o FILE           output file (default a.out, or the input's name with\n"
            "                    .s, .o or .ll under -S, -c, -emit-llvm)\n"
            "  -Werror           treat warnings as errors\n"
            "  -nostartfiles     do not link crt0.o\n"
            "  -fno-swp          do not software-pipeline loops (at -O1 and up they are)\n"
            "  -fno-iu           on -mcpu=warp, keep host loads, host addresses and their\n"
            "                    sums on the cells (by default the interface unit does\n"
            "                    them, after `||`; -fiu)\n"
            "  -fno-flow-control on -mcpu=warp, do not time the cells at compile time: skew 0,\n"
            "                    and cells wait for their queues at run time as on iWarp\n"
            "                    (for programs whose I/O depends on data; the Warp could not)\n"
            "  -Rpass=swp        report on stderr how each innermost loop was pipelined\n"
            "\n"
            "Debugging the backend (machine IR on stderr, as llc prints it):\n"
            "  -print-after-all, -print-before-all\n"
            "  -print-after=PASS[,PASS...], -print-before=PASS[,PASS...]\n"
            "                    PASS is one of:");
    for (int p = 0; p < WB_NPASSES; p++) fprintf(out, " %s", wb_pass_names[p]);
    fprintf(out,
            "\n"
            "  -verify-each      check the machine IR after every pass (fails on a fault)\n"
            "  --help, --version\n");
}

/* "-print-after=swp,regalloc": the passes' bits, or -1 after saying which is unknown. */
static long parse_pass_list(const char *option, const char *list)
{
    unsigned long bits = 0;
    const char *p = list;
    do {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char name[32];
        int pass = -1;
        if (n < sizeof name) {
            memcpy(name, p, n);
            name[n] = 0;
            pass = wb_pass_lookup(name);
        }
        if (pass < 0) {
            fprintf(stderr, "warp-cc: unknown pass '%.*s' in '%s' (see --help for the passes)\n", (int)n, p, option);
            return -1;
        }
        bits |= 1ul << pass;
        p = e ? e + 1 : NULL;
    } while (p);
    return (long)bits;
}

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot : "";
}

/* "dir/poly.w2" with ".s" -> "poly.s" in the current directory, as cc -S does. */
static char *replace_extension(const char *path, const char *ext)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *out = ws_xmalloc(stem + strlen(ext) + 1);
    memcpy(out, base, stem);
    strcpy(out + stem, ext);
    return out;
}

static char *temp_object(driver *d)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char *path = ws_xmalloc(strlen(dir) + 32);
    sprintf(path, "%s/warp-cc-XXXXXX", dir);
    int fd = ws_temp_mkstemp(path);
    if (fd < 0) {
        ws_file_error(dir, "cannot create a temporary file: %s", strerror(errno));
        free(path);
        return NULL;
    }
    close(fd);
    d->temps = ws_xrealloc(d->temps, sizeof *d->temps * (size_t)(d->ntemps + 1));
    d->temps[d->ntemps++] = path;
    return path;
}

static void remove_temps(driver *d)
{
    for (int i = 0; i < d->ntemps; i++) {
        unlink(d->temps[i]);
        ws_temp_release(d->temps[i]);
        free(d->temps[i]);
    }
    free(d->temps);
    d->temps = NULL;
    d->ntemps = 0;
}

/* A source file's text, or NULL after saying why it cannot be read. */
static char *read_source(const char *path, size_t *len)
{
    char err[512];
    char *text = ws_read_file(path, len, MAX_SOURCE_BYTES, err, sizeof err);
    if (!text) ws_file_error(path, "%s", err);
    return text;
}

/* The backend's error: at the W2 position of what it is about, with the source line
 * and a caret, or about the whole file. */
static void report_backend_error(ws_diag *diag, const char *path, const ws_diagnostic *x)
{
    if (x->line) ws_emit(diag, x);
    else ws_file_error(path, "backend: %s", x->message);
}

/* Compiles one .w2 file as far as the driver's stop stage asks, writing out_path. */
static int compile_w2(driver *d, const char *path, const char *out_path)
{
    size_t len;
    char *text = read_source(path, &len);
    if (!text) return -1;
    int rc = -1;
    ws_diag diag;
    ws_diag_init(&diag, path, text, len);
    diag.werror = d->werror;
    w2_options fopts = {.debug_info = d->debug_info, .werror = d->werror, .iwarp = d->model->id == WT_MODEL_IWARP};
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = w2_compile(path, text, len, &fopts, ctx, &diag);
    ws_buf asm_text = {0};
    if (!m) goto done;
    if (LLVMGetNamedFunction(m, "w2_msg_send")) {
        if (d->model->id != WT_MODEL_IWARP) {
            ws_file_error(path, "sendmsg and receivemsg need the iWarp's communication agent: compile with -mcpu=iwarp");
            goto done;
        }
        d->uses_messages = 1;
    }
    if (LLVMGetNamedFunction(m, "w2_cs_instantiate") || LLVMGetNamedFunction(m, "w2_cs_range")) d->uses_consets = 1;
    if (d->uses_consets && d->uses_messages) {
        /* Both runtimes take the same local channels, spool gates and events. */
        ws_file_error(path, "a program uses messages (sendmsg, receivemsg) or connection sets (sendcon, receivecon, "
                      "instantiate), not both");
        goto done;
    }
    ws_diagnostic berr;
    if (wb_optimize(m, d->model, d->opt_level, &berr) != 0) {
        report_backend_error(&diag, path, &berr);
        goto done;
    }
    if (d->stop == STOP_LLVM) {
        char *ir = LLVMPrintModuleToString(m);
        rc = ws_write_text(out_path, ir, strlen(ir));
        LLVMDisposeMessage(ir);
        goto done;
    }
    wb_remarks remarks = {0};
    wb_options bopts = {.model = d->model, .opt_level = d->opt_level, .debug_info = d->debug_info,
                        .no_swp = d->no_swp, .iu = d->iu, .no_flow_control = d->no_flow_control, .swp_report = d->remark_swp ? &remarks : NULL,
                        .print_before = d->print_before, .print_after = d->print_after,
                        .verify_each = d->verify_each};
    int brc = wb_emit_assembly(m, &bopts, &asm_text, &berr);
    /* Remarks as clang prints them: on stderr, one per loop, "FILE:LINE: remark: ..." */
    for (size_t i = 0; i < remarks.n; i++)
        fprintf(stderr, "%s:%u: remark: %s [-Rpass=swp]\n", remarks.at[i].file, remarks.at[i].line,
                remarks.at[i].message);
    wb_remarks_free(&remarks);
    if (brc != 0) {
        report_backend_error(&diag, path, &berr);
        goto done;
    }
    if (d->stop == STOP_ASSEMBLY) {
        rc = ws_write_text(out_path, asm_text.data, asm_text.len);
        goto done;
    }
    /* The generated assembly is named after the source so that a (compiler bug)
     * assembler diagnostic still says where it came from. */
    char *asm_name = replace_extension(path, ".s");
    ws_diag adiag;
    ws_diag_init(&adiag, asm_name, asm_text.data, asm_text.len);
    was_options aopts = {.model = d->model};
    rc = was_assemble(asm_name, asm_text.data, asm_text.len, &aopts, out_path, &adiag);
    free(asm_name);
done:
    ws_buf_free(&asm_text);
    if (m) LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    free(text);
    return rc;
}

static int assemble_s(driver *d, const char *path, const char *out_path)
{
    size_t len;
    char *text = read_source(path, &len);
    if (!text) return -1;
    ws_diag diag;
    ws_diag_init(&diag, path, text, len);
    was_options opts = {.model = d->model};
    int rc = was_assemble(path, text, len, &opts, out_path, &diag);
    free(text);
    return rc;
}

/* crt0.o lives in BINDIR/../lib/warp, beside the compiler, as gcc keeps crt1.o;
 * so do the runtime's other objects. */
static char *find_lib_object(const char *env_name, const char *file)
{
    const char *env = getenv(env_name);
    if (env && *env) return ws_xstrdup(env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = 0;
    char *dir = dirname(exe);
    char *path = ws_xmalloc(strlen(dir) + strlen(file) + 32);
    sprintf(path, "%s/../lib/warp/%s", dir, file);
    if (access(path, R_OK) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

static char *find_crt0(void) { return find_lib_object("WARP_CRT0", "crt0.o"); }

/* Every file this run would write, checked against every file it reads (crt0.o
 * too) before anything is written. */
static int refuse_overwriting_inputs(const driver *d, const char *crt0)
{
    const char **inputs = ws_xcalloc((size_t)d->ninputs + 1, sizeof *inputs);
    memcpy(inputs, d->inputs, sizeof *inputs * (size_t)d->ninputs);
    inputs[d->ninputs] = crt0;
    int rc = 0;
    if (d->stop == STOP_LINK) {
        rc = ws_check_output(d->output ? d->output : "a.out", inputs, (size_t)d->ninputs + 1);
    } else {
        for (int i = 0; i < d->ninputs && rc == 0; i++) {
            const char *ext = extension(d->inputs[i]);
            int writes = strcmp(ext, ".w2") == 0 || (strcmp(ext, ".s") == 0 && d->stop == STOP_OBJECT);
            if (!writes) continue;
            char *named = d->output ? NULL : replace_extension(d->inputs[i], stop_ext[d->stop]);
            rc = ws_check_output(d->output ? d->output : named, inputs, (size_t)d->ninputs);
            free(named);
        }
    }
    free(inputs);
    return rc;
}

static int run(driver *d)
{
    if (d->output && d->ninputs > 1 && d->stop != STOP_LINK) {
        fprintf(stderr, "warp-cc: cannot specify -o with -c, -S or -emit-llvm with multiple files\n");
        return 1;
    }
    const char **objects = ws_xcalloc((size_t)d->ninputs + 3, sizeof *objects);
    int nobjects = 0, failed = 0;
    char *crt0 = NULL;
    if (d->stop == STOP_LINK && !d->nostartfiles) {
        crt0 = find_crt0();
        if (!crt0) {
            fprintf(stderr, "warp-cc: cannot find crt0.o (looked in BINDIR/../lib/warp; set WARP_CRT0)\n");
            free(objects);
            return 1;
        }
        objects[nobjects++] = crt0;
    }
    if (refuse_overwriting_inputs(d, crt0) != 0) {
        free(crt0);
        free(objects);
        return 1;
    }
    for (int i = 0; i < d->ninputs && !failed; i++) {
        const char *in = d->inputs[i];
        const char *ext = extension(in);
        int is_w2 = strcmp(ext, ".w2") == 0, is_s = strcmp(ext, ".s") == 0, is_o = strcmp(ext, ".o") == 0;
        if (!is_w2 && !is_s && !is_o) {
            ws_file_error(in, "unknown file type (expected .w2, .s or .o)");
            failed = 1;
            break;
        }
        if (is_o || (is_s && d->stop != STOP_LINK && d->stop != STOP_OBJECT)) {
            if (d->stop != STOP_LINK) {
                ws_file_error(in, "input unused: linking not done");
                continue;
            }
            objects[nobjects++] = in;
            continue;
        }
        if (is_s && d->stop == STOP_LINK) {
            const char *obj = temp_object(d);
            failed = !obj || assemble_s(d, in, obj) != 0;
            objects[nobjects++] = obj;
            continue;
        }
        char *named = NULL;
        const char *out;
        if (d->stop == STOP_LINK) {
            out = temp_object(d);
            if (!out) { failed = 1; break; }
            objects[nobjects++] = out;
        } else {
            out = d->output ? d->output : (named = replace_extension(in, stop_ext[d->stop]));
        }
        failed = is_s ? assemble_s(d, in, out) != 0 : compile_w2(d, in, out) != 0;
        free(named);
    }
    char *msg_objects[2] = {NULL, NULL};
    if (!failed && d->stop == STOP_LINK && (d->uses_messages || d->uses_consets)) {
        static const char *const names[2][2][2] = {{{"WARP_MSG_W2", "msg_w2.o"}, {"WARP_MSG", "msg.o"}},
                                                   {{"WARP_CONSET_W2", "conset_w2.o"}, {"WARP_CONSET", "conset.o"}}};
        int which = d->uses_consets;
        for (int i = 0; i < 2 && !failed; i++) {
            msg_objects[i] = find_lib_object(names[which][i][0], names[which][i][1]);
            if (!msg_objects[i]) {
                fprintf(stderr, "warp-cc: cannot find %s (looked in BINDIR/../lib/warp)\n", names[which][i][1]);
                failed = 1;
            }
            objects[nobjects++] = msg_objects[i];
        }
    }
    if (!failed && d->stop == STOP_LINK) {
        wld_options lopts = {.entry = "_start"};
        failed = wld_link(objects, (size_t)nobjects, d->output ? d->output : "a.out", &lopts) != 0;
    }
    free(crt0);
    free(msg_objects[0]);
    free(msg_objects[1]);
    free(objects);
    return failed ? 1 : 0;
}

/* Parses the command line into d; returns -1 to go on, or the exit status. */
static int parse_args(driver *d, int argc, char **argv)
{
    int stop_flags = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("warp-cc 0.1.0 (W2 for Warp and iWarp; LLVM 19)\n");
            return 0;
        } else if (strncmp(a, "-mcpu=", 6) == 0) {
            d->model = wt_model_by_name(a + 6);
            if (!d->model) {
                fprintf(stderr, "warp-cc: unknown -mcpu '%s' (expected warp or iwarp)\n", a + 6);
                return 1;
            }
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && a[3] == 0) {
            d->opt_level = a[2] - '0';
        } else if (strcmp(a, "-O") == 0) {
            d->opt_level = 1;
        } else if (strcmp(a, "-g") == 0) {
            d->debug_info = 1;
        } else if (strcmp(a, "-S") == 0) {
            d->stop = d->stop == STOP_LLVM ? STOP_LLVM : STOP_ASSEMBLY;
            stop_flags++;
        } else if (strcmp(a, "-c") == 0) {
            d->stop = d->stop == STOP_LLVM ? STOP_LLVM : STOP_OBJECT;
            stop_flags++;
        } else if (strcmp(a, "-emit-llvm") == 0) {
            d->stop = STOP_LLVM;
        } else if (strcmp(a, "-Werror") == 0) {
            d->werror = 1;
        } else if (strcmp(a, "-nostartfiles") == 0) {
            d->nostartfiles = 1;
        } else if (strcmp(a, "-fno-swp") == 0) {
            d->no_swp = 1;
        } else if (strcmp(a, "-fswp") == 0) {
            d->no_swp = 0;
        } else if (strcmp(a, "-fno-iu") == 0) {
            d->iu = 0;
        } else if (strcmp(a, "-fiu") == 0) {
            d->iu = 1;
        } else if (strcmp(a, "-fno-flow-control") == 0) {
            d->no_flow_control = 1;
        } else if (strcmp(a, "-fflow-control") == 0) {
            d->no_flow_control = 0;
        } else if (strcmp(a, "-Rpass=swp") == 0) {
            d->remark_swp = 1;
        } else if (strcmp(a, "-print-after-all") == 0) {
            d->print_after = (1u << WB_NPASSES) - 1;
        } else if (strcmp(a, "-print-before-all") == 0) {
            d->print_before = (1u << WB_NPASSES) - 1;
        } else if (strncmp(a, "-print-after=", 13) == 0 || strncmp(a, "-print-before=", 14) == 0) {
            int after = a[7] == 'a';
            long bits = parse_pass_list(a, strchr(a, '=') + 1);
            if (bits < 0) return 1;
            if (after) d->print_after |= (unsigned)bits;
            else d->print_before |= (unsigned)bits;
        } else if (strcmp(a, "-verify-each") == 0 || strcmp(a, "-verify-machineinstrs") == 0) {
            d->verify_each = 1;
        } else if (strcmp(a, "-o") == 0) {
            if (++i >= argc) {
                fprintf(stderr, "warp-cc: missing file name after '-o'\n");
                return 1;
            }
            d->output = argv[i];
        } else if (strncmp(a, "-o", 2) == 0) {
            d->output = a + 2;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "warp-cc: unknown option '%s' (see --help)\n", a);
            return 1;
        } else {
            d->inputs[d->ninputs++] = a;
        }
    }
    if (stop_flags > 1 && d->stop != STOP_LLVM) {
        fprintf(stderr, "warp-cc: -S and -c cannot be used together\n");
        return 1;
    }
    if (d->ninputs == 0) {
        fprintf(stderr, "warp-cc: no input files (see --help)\n");
        return 1;
    }
    return -1;
}

int main(int argc, char **argv)
{
    ws_program_init("warp-cc");
    driver d = {.model = wt_model_get(WT_MODEL_WARP), .stop = STOP_LINK, .iu = 1};
    d.inputs = ws_xcalloc((size_t)argc, sizeof *d.inputs);
    int rc = parse_args(&d, argc, argv);
    if (rc < 0) rc = run(&d);
    remove_temps(&d);
    free(d.inputs);
    return rc;
}
