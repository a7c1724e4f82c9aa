/* Unit tests of the W2 frontend's lowering (docs/design.md, section 2).
 *
 * Two kinds of checks: the printed IR (layout, triple, globals, metadata,
 * attributes, the order of the w2.* calls), and execution: the module is run by
 * LLVM's MCJIT with the w2.* functions bound to a mock cell that checks every
 * receive follows its host feed and every send is followed by its host address.
 * The polynomial runs on ten mock cells chained left to right, and its results
 * are compared exactly with Horner's rule computed here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Target.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "w2_frontend.h"
#include "warp_support.h"

static const char poly_src[] =
    "/* Polynomial evaluation. */\n"
    "module polynomial (data in, coeffs in, results out)\n"
    "float data[100], coeffs[10];\n"
    "float results[100];\n"
    "\n"
    "cellprogram (cid : 0 : 9)\n"
    "begin\n"
    "  function poly\n"
    "  begin\n"
    "    float coeff, temp, xin, yin, ans;\n"
    "    int i;\n"
    "\n"
    "    receive (L, X, coeff, coeffs[0]);\n"
    "    for i := 1 to 9 do begin\n"
    "      receive (L, X, temp, coeffs[i]);\n"
    "      send (R, X, temp);\n"
    "    end;\n"
    "    send (R, X, 0.0);\n"
    "\n"
    "    for i := 0 to 99 do begin\n"
    "      receive (L, X, xin, data[i]);\n"
    "      receive (L, Y, yin, 0.0);\n"
    "      send (R, X, xin);\n"
    "      ans := coeff + yin * xin;\n"
    "      send (R, Y, ans, results[i]);\n"
    "    end;\n"
    "  end\n"
    "\n"
    "  call poly;\n"
    "end\n";

/* ---- Compiling ------------------------------------------------------------------- */

static LLVMModuleRef compile_in(LLVMContextRef ctx, const char *src, int debug_info)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ws_diag d;
    ws_diag_init(&d, "t.w2", src, strlen(src));
    d.out = f;
    w2_options opts = {.debug_info = debug_info};
    LLVMModuleRef m = w2_compile("t.w2", src, strlen(src), &opts, ctx, &d);
    fclose(f);
    if (!m || d.errors || d.warnings) fail_msg("compile failed:\n%s", text);
    free(text);
    char *msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) fail_msg("invalid module: %s", msg);
    LLVMDisposeMessage(msg);
    return m;
}

static int is_call_to(LLVMValueRef inst, const char *prefix)
{
    if (!inst || LLVMGetInstructionOpcode(inst) != LLVMCall) return 0;
    LLVMValueRef callee = LLVMGetCalledValue(inst);
    size_t n;
    const char *name = LLVMGetValueName2(callee, &n);
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

static long long const_arg(LLVMValueRef call, unsigned i)
{
    LLVMValueRef v = LLVMGetOperand(call, i);
    assert_true(LLVMIsAConstantInt(v) != NULL);
    return LLVMConstIntGetSExtValue(v);
}

/* Every receive is immediately preceded by its host feed, and every send
 * immediately followed by its host address, on the same q. Returns how many
 * receives and sends there are. */
static int check_comm_pairs(LLVMModuleRef m)
{
    int count = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
                if (is_call_to(i, "w2.recv.")) {
                    LLVMValueRef feed = LLVMGetPreviousInstruction(i);
                    assert_true(is_call_to(feed, "w2.host.feed."));
                    assert_int_equal(const_arg(feed, 0), const_arg(i, 0));
                    assert_true(LLVMTypeOf(LLVMGetOperand(feed, 1)) == LLVMTypeOf(i));
                    count++;
                } else if (is_call_to(i, "w2.send.")) {
                    LLVMValueRef dest = LLVMGetNextInstruction(i);
                    assert_true(is_call_to(dest, "w2.host.dest"));
                    assert_int_equal(const_arg(dest, 0), const_arg(i, 0));
                    count++;
                }
            }
    return count;
}

static char *print_ir(const char *src, int debug_info)
{
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = compile_in(ctx, src, debug_info);
    check_comm_pairs(m);
    char *s = LLVMPrintModuleToString(m);
    char *copy = strdup(s);
    LLVMDisposeMessage(s);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return copy;
}

static void expect_ir(const char *ir, const char *want)
{
    if (!strstr(ir, want)) fail_msg("expected \"%s\" in the IR:\n%s", want, ir);
}

/* The patterns, NULL-terminated, occur in this order. */
static void expect_in_order(const char *ir, ...)
{
    va_list ap;
    va_start(ap, ir);
    const char *at = ir;
    for (const char *want; (want = va_arg(ap, const char *));) {
        const char *hit = strstr(at, want);
        if (!hit) fail_msg("expected \"%s\" after offset %ld in the IR:\n%s", want, (long)(at - ir), ir);
        at = hit + strlen(want);
    }
    va_end(ap);
}

/* The text of function `name`'s definition. */
static char *function_ir(const char *ir, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, "@%s() ", name);
    const char *start = strstr(ir, head);
    if (!start) fail_msg("no function %s in:\n%s", name, ir);
    const char *end = strstr(start, "\n}\n");
    return strndup(start, (size_t)(end - start));
}

/* ---- The mock cell --------------------------------------------------------------- */

#define QCAP 4096

/* One cell's view of the machine: queues from and to its neighbours, the host
 * past the end cells, and checks of the call protocol. */
static struct mock {
    int cid, first, last;
    uint32_t in[4][QCAP];           /* words arriving from side q */
    int in_len[4], in_pos[4];
    uint32_t out[4][QCAP];          /* words sent toward side q, to a neighbour */
    int out_len[4];
    int fed[4];
    uint32_t feed[4];
    int sent[4];
    uint32_t sent_word[4];
    int last_feed_q, last_send_q;   /* -1 unless the previous w2 call was a feed / send */
    struct { const char *name; void *mem; size_t size; } host[8];
    int nhost;
    int idiv_calls, idiv_zero_divisors;
    char failure[256];
} mk;

static void mock_fail(const char *why, int q)
{
    if (!mk.failure[0]) snprintf(mk.failure, sizeof mk.failure, "%s (q=%d, cell %d)", why, q, mk.cid);
}

static int faces_host(int q) { return (q >> 1) == 0 ? mk.cid == mk.first : mk.cid == mk.last; }

static void call_boundary(void)
{
    if (mk.last_send_q >= 0) mock_fail("a send was not followed by its host address", mk.last_send_q);
    mk.last_feed_q = mk.last_send_q = -1;
}

static uint32_t recv_word(int32_t q)
{
    int fed_here = mk.last_feed_q == q;
    mk.last_feed_q = -1;
    call_boundary();
    if (!fed_here) mock_fail("receive without its host feed right before", q);
    if (faces_host(q)) return mk.feed[q];
    if (mk.in_pos[q] >= mk.in_len[q]) {
        mock_fail("receive from an empty queue", q);
        return 0;
    }
    return mk.in[q][mk.in_pos[q]++];
}

static void send_word(int32_t q, uint32_t w)
{
    call_boundary();
    mk.last_send_q = q;
    if (faces_host(q)) {
        mk.sent[q] = 1;
        mk.sent_word[q] = w;
    } else if (mk.out_len[q] < QCAP) {
        mk.out[q][mk.out_len[q]++] = w;
    }
}

static void feed_word(int32_t q, uint32_t w)
{
    call_boundary();
    mk.last_feed_q = q;
    mk.feed[q] = w;
}

static void mock_host_dest(int32_t q, int32_t haddr)
{
    if (mk.last_send_q != q) mock_fail("host address without a send right before", q);
    mk.last_send_q = -1;
    if (!faces_host(q) || !mk.sent[q]) return;
    mk.sent[q] = 0;
    if (haddr == -1) return;
    /* The IR's addresses are 32-bit: match the low half of each host array's base. */
    for (int i = 0; i < mk.nhost; i++) {
        uint32_t off = (uint32_t)haddr - (uint32_t)(uintptr_t)mk.host[i].mem;
        if (off < mk.host[i].size) {
            memcpy((char *)mk.host[i].mem + off, &mk.sent_word[q], 4);
            return;
        }
    }
    mock_fail("host address outside every host array", q);
}

static float mock_recv_f32(int32_t q)
{
    uint32_t w = recv_word(q);
    float f;
    memcpy(&f, &w, 4);
    return f;
}
static int32_t mock_recv_i32(int32_t q) { return (int32_t)recv_word(q); }
static void mock_send_f32(int32_t q, float v)
{
    uint32_t w;
    memcpy(&w, &v, 4);
    send_word(q, w);
}
static void mock_send_i32(int32_t q, int32_t v) { send_word(q, (uint32_t)v); }
static void mock_feed_f32(int32_t q, float v)
{
    uint32_t w;
    memcpy(&w, &v, 4);
    feed_word(q, w);
}
static void mock_feed_i32(int32_t q, int32_t v) { feed_word(q, (uint32_t)v); }
static int32_t mock_cellid(void) { return mk.cid; }
static int32_t mock_idiv(int32_t a, int32_t b)
{
    mk.idiv_calls++;
    if (b == 0) {
        mk.idiv_zero_divisors++;
        return 0;
    }
    return a == INT32_MIN && b == -1 ? a : a / b;
}
static int32_t mock_imod(int32_t a, int32_t b)
{
    mk.idiv_calls++;
    if (b == 0) {
        mk.idiv_zero_divisors++;
        return 0;
    }
    return b == -1 ? 0 : a % b;
}

static void mock_reset(int cid, int first, int last)
{
    memset(&mk, 0, sizeof mk);
    mk.cid = cid;
    mk.first = first;
    mk.last = last;
    mk.last_feed_q = mk.last_send_q = -1;
}

static void mock_host(const char *name, void *mem, size_t size)
{
    mk.host[mk.nhost].name = name;
    mk.host[mk.nhost].mem = mem;
    mk.host[mk.nhost].size = size;
    mk.nhost++;
}

static void jit_init(void)
{
    static int done;
    if (done) return;
    done = 1;
    LLVMLinkInMCJIT();
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
}

/* Compiles src and runs its main on the mock cell as it is set up now. */
static void run_cell(const char *src)
{
    jit_init();
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = compile_in(ctx, src, 0);
    /* The IR is for the 32-bit Warp cell; this host runs it with its own layout,
     * which changes nothing the tests observe (the mock matches addresses by
     * their low 32 bits). */
    char *triple = LLVMGetDefaultTargetTriple();
    LLVMSetTarget(m, triple);
    LLVMDisposeMessage(triple);
    LLVMSetDataLayout(m, "");
    static const struct { const char *name; void (*fn)(void); } rt[] = {
        {"w2.recv.f32", (void (*)(void))mock_recv_f32}, {"w2.recv.i32", (void (*)(void))mock_recv_i32},
        {"w2.send.f32", (void (*)(void))mock_send_f32}, {"w2.send.i32", (void (*)(void))mock_send_i32},
        {"w2.host.feed.f32", (void (*)(void))mock_feed_f32}, {"w2.host.feed.i32", (void (*)(void))mock_feed_i32},
        {"w2.host.dest", (void (*)(void))mock_host_dest}, {"w2.cellid", (void (*)(void))mock_cellid},
        {"w2.idiv", (void (*)(void))mock_idiv}, {"w2.imod", (void (*)(void))mock_imod},
    };
    LLVMValueRef fns[10], hosts[8];
    for (int i = 0; i < 10; i++) fns[i] = LLVMGetNamedFunction(m, rt[i].name);
    for (int i = 0; i < mk.nhost; i++) {
        hosts[i] = LLVMGetNamedGlobal(m, mk.host[i].name);
        assert_non_null(hosts[i]);
    }
    struct LLVMMCJITCompilerOptions o;
    LLVMInitializeMCJITCompilerOptions(&o, sizeof o);
    o.OptLevel = 0;
    LLVMExecutionEngineRef ee;
    char *err = NULL;
    if (LLVMCreateMCJITCompilerForModule(&ee, m, &o, sizeof o, &err)) fail_msg("MCJIT: %s", err);
    for (int i = 0; i < 10; i++)
        if (fns[i]) LLVMAddGlobalMapping(ee, fns[i], (void *)(uintptr_t)rt[i].fn);
    for (int i = 0; i < mk.nhost; i++) LLVMAddGlobalMapping(ee, hosts[i], mk.host[i].mem);
    void (*entry)(void) = (void (*)(void))(uintptr_t)LLVMGetFunctionAddress(ee, "main");
    assert_non_null(entry);
    entry();
    call_boundary();
    LLVMDisposeExecutionEngine(ee);
    LLVMContextDispose(ctx);
    if (mk.failure[0]) fail_msg("mock cell: %s", mk.failure);
}

/* ---- IR shape -------------------------------------------------------------------- */

static void test_polynomial_module_shape(void **state)
{
    (void)state;
    char *ir = print_ir(poly_src, 0);
    expect_ir(ir, "target datalayout = \"e-m:e-p:32:32-i64:32-f64:32-n32-S32\"\n");
    expect_ir(ir, "target triple = \"warp-unknown-none\"\n");
    expect_in_order(ir, "@data = external addrspace(1) constant [100 x float]\n",
                    "@coeffs = external addrspace(1) constant [10 x float]\n",
                    "@results = external addrspace(1) global [100 x float]\n", NULL);
    expect_ir(ir, "define void @main() ");
    expect_ir(ir, "define internal void @poly() ");
    expect_ir(ir, "!w2.host = !{!");
    expect_ir(ir, "!w2.cells = !{!");
    expect_ir(ir, "!w2.source = !{!");
    expect_ir(ir, " = !{!\"data\", !\"in\", !\"float\", i32 100, i32 0}\n");
    expect_ir(ir, " = !{!\"coeffs\", !\"in\", !\"float\", i32 10, i32 0}\n");
    expect_ir(ir, " = !{!\"results\", !\"out\", !\"float\", i32 100, i32 0}\n");
    expect_ir(ir, " = !{i32 0, i32 9}\n");
    expect_ir(ir, " = !{!\"t.w2\"}\n");
    expect_ir(ir, "; Function Attrs: nounwind willreturn memory(inaccessiblemem: readwrite)\n"
                  "declare float @w2.recv.f32(i32) #");
    expect_ir(ir, "; Function Attrs: nounwind willreturn memory(inaccessiblemem: readwrite)\n"
                  "declare void @w2.host.feed.f32(i32, float) #");
    expect_ir(ir, "; Function Attrs: nounwind willreturn memory(inaccessiblemem: readwrite)\n"
                  "declare void @w2.send.f32(i32, float) #");
    expect_ir(ir, "; Function Attrs: nounwind willreturn memory(inaccessiblemem: readwrite)\n"
                  "declare void @w2.host.dest(i32, i32) #");
    /* Only what the program uses is declared. */
    assert_null(strstr(ir, "@w2.cellid"));
    assert_null(strstr(ir, "@w2.recv.i32"));
    assert_null(strstr(ir, "@w2.idiv"));
    /* The body calls the function; locals are entry-block allocas. */
    char *main_ir = function_ir(ir, "main");
    expect_ir(main_ir, "call void @poly()");
    free(main_ir);
    char *poly = function_ir(ir, "poly");
    expect_in_order(poly, "entry:\n  %coeff = alloca float", "%i = alloca i32", NULL);
    /* The second loop, statement by statement. */
    expect_in_order(poly, "%data.elt = getelementptr [100 x float], ptr addrspace(1) @data, i32 0, i32 %",
                    "%data = load float, ptr addrspace(1) %data.elt",
                    "call void @w2.host.feed.f32(i32 0, float %data)", "call float @w2.recv.f32(i32 0)",
                    "call void @w2.host.feed.f32(i32 1, float 0.000000e+00)", "call float @w2.recv.f32(i32 1)",
                    "call void @w2.send.f32(i32 2, float %xin", "call void @w2.host.dest(i32 2, i32 -1)",
                    "fmul float %yin", "fadd float %coeff",
                    "%results.elt = getelementptr [100 x float], ptr addrspace(1) @results, i32 0, i32 %",
                    "%haddr = ptrtoint ptr addrspace(1) %results.elt to i32",
                    "call void @w2.send.f32(i32 3, float %ans", "call void @w2.host.dest(i32 3, i32 %haddr)",
                    "icmp eq i32 %", ", 99", "for.step", "add i32 %", ", 1", NULL);
    /* The first receive's feed reads coeffs[0]: a load from the host array. */
    expect_in_order(poly, "load float, ptr addrspace(1) @coeffs", "call void @w2.host.feed.f32(i32 0, float %coeffs)",
                    NULL);
    free(poly);
    free(ir);
}

static void test_comm_calls_pair_everywhere(void **state)
{
    (void)state;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = compile_in(ctx, poly_src, 0);
    /* 1 + 2 receives and sends in loop 1, 1 send, 2 receives and 2 sends in loop 2. */
    assert_int_equal(check_comm_pairs(m), 8);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
}

static const char ops_src[] =
    "module m (hi in, ho out, h2 out)\n"
    "int hi[4]; float ho[4]; int h2[2][3];\n"
    "cellprogram (cid : 0 : 0)\n"
    "begin\n"
    "  int i, k; float f;\n"
    "  k := cid / 2 + cid mod 3;\n"
    "  f := float(k) + int(f) + k * f;\n"
    "  if k < 1 and f > 2.0 or not (k = 0) then k := -k else f := -f;\n"
    "  receive (R, Y, k, hi[2]);\n"
    "  receive (L, X, f, hi[1] + 1);\n"
    "  send (L, Y, k, h2[1][2]);\n"
    "end\n";

static void test_operations_lowering(void **state)
{
    (void)state;
    char *ir = print_ir(ops_src, 0);
    expect_ir(ir, "; Function Attrs: nounwind speculatable willreturn memory(none)\ndeclare i32 @w2.cellid() #");
    expect_ir(ir, "; Function Attrs: nounwind memory(none)\ndeclare i32 @w2.idiv(i32, i32) #");
    expect_ir(ir, "; Function Attrs: nounwind memory(none)\ndeclare i32 @w2.imod(i32, i32) #");
    expect_in_order(ir, "call i32 @w2.cellid()", "call i32 @w2.idiv(i32 %", ", i32 2)",
                    "call i32 @w2.cellid()", "call i32 @w2.imod(i32 %", ", i32 3)", NULL);
    /* float(k) is sitofp; int(f) saturates; int + float converts the int. */
    expect_in_order(ir, "sitofp i32 %k", "call i32 @llvm.fptosi.sat.i32.f32(float %f", "sitofp i32 %toint",
                    "sitofp i32 %k", "fmul float", NULL);
    /* and/or/not are i1 operations on both operands: no short-circuit branches. */
    expect_in_order(ir, "icmp slt i32 %k", "fcmp ogt float %f", "and i1", "icmp eq i32", "xor i1", "or i1",
                    "br i1 %or, label %if.then, label %if.else", NULL);
    expect_in_order(ir, "if.then:", "sub i32 0, %k", "if.else:", "fneg float", "if.end:", NULL);
    /* A receive's feed is converted to the received variable's type. */
    expect_in_order(ir, "call void @w2.host.feed.i32(i32 3, i32 %hi", "call i32 @w2.recv.i32(i32 3)",
                    "add i32 %hi", ", 1", "sitofp i32 %add", "call void @w2.host.feed.f32(i32 0, float %tofloat",
                    "call float @w2.recv.f32(i32 0)", NULL);
    /* A constant host element's address folds to a constant. */
    expect_ir(ir, "call void @w2.host.dest(i32 1, i32 ptrtoint (ptr addrspace(1) getelementptr "
                  "([2 x [3 x i32]], ptr addrspace(1) @h2, i32 0, i32 1, i32 2) to i32))");
    expect_ir(ir, " = !{!\"h2\", !\"out\", !\"int\", i32 2, i32 3}\n");
    expect_ir(ir, " = !{i32 0, i32 0}\n");
    free(ir);
}

static void test_globals_and_names(void **state)
{
    (void)state;
    char *ir = print_ir("module m (s in)\nint s;\ncellprogram (c : 1 : 4)\nbegin\n"
                        "  float g, a[3][2];\n"
                        "  function main begin g := 1.0 end;\n"
                        "  function down begin int j; for j := 5 downto 2 do a[0][1] := j end\n"
                        "  call main; call down\n"
                        "end\n", 0);
    expect_ir(ir, "@s = external addrspace(1) constant i32\n");
    /* Each carries its declaration's position (!w2.decl), where the backend says the
     * data does not fit data memory. */
    expect_ir(ir, "@g = internal global float 0.000000e+00, !w2.decl !");
    expect_ir(ir, "@a = internal global [3 x [2 x float]] zeroinitializer, !w2.decl !");
    expect_ir(ir, " = !{i32 5, i32 9}\n");
    expect_ir(ir, " = !{i32 5, i32 12}\n");
    expect_ir(ir, " = !{i32 7, i32 27}\n");   /* the local j */
    /* The body is main; a W2 function of that name is renamed. */
    expect_ir(ir, "define void @main() ");
    expect_ir(ir, "define internal void @main.1() ");
    expect_in_order(ir, "call void @main.1()", "call void @down()", NULL);
    /* downto: counts down, tests the bound before stepping. */
    char *down = function_ir(ir, "down");
    expect_in_order(down, "store i32 0, ptr %j", "store i32 5, ptr %j", "br label %for.body", "for.body:",
                    "icmp eq i32 %", ", 2", "for.step:", "sub i32 %", ", 1", "br label %for.body", "for.end:",
                    "ret void", NULL);
    free(down);
    expect_ir(ir, " = !{i32 1, i32 4}\n");
    expect_ir(ir, " = !{!\"s\", !\"in\", !\"int\", i32 0, i32 0}\n");
    free(ir);
}

static void test_debug_info(void **state)
{
    (void)state;
    char *ir = print_ir(poly_src, 0);
    /* Line tables always: the machine reports faults with their source line. */
    expect_ir(ir, "emissionKind: LineTablesOnly");
    expect_ir(ir, "!DILocation(line: 21, column: 7");
    assert_null(strstr(ir, "DILocalVariable"));
    free(ir);
    ir = print_ir("module m (h in)\nint h;\ncellprogram (c : 0 : 1)\nbegin\n  int g[4];\n"
                  "  function f begin float x; x := 2.0 end\n  call f\nend\n", 1);
    expect_ir(ir, "emissionKind: FullDebug");
    expect_ir(ir, "!DISubprogram(name: \"f\", linkageName: \"f\", scope: ");
    expect_ir(ir, "!DISubprogram(name: \"main\"");
    expect_ir(ir, "#dbg_declare(ptr %x, ");
    expect_ir(ir, "!DILocalVariable(name: \"x\", scope: ");
    expect_ir(ir, "!DIGlobalVariable(name: \"g\", ");
    expect_ir(ir, "!DISubrange(count: 4, lowerBound: 0)");
    expect_ir(ir, "!\"Debug Info Version\", i32 3}");
    free(ir);
}

/* ---- Execution ------------------------------------------------------------------- */

static void test_polynomial_runs_on_ten_cells(void **state)
{
    (void)state;
    static float data[100], coeffs[10], results[100];
    for (int i = 0; i < 100; i++) data[i] = (float)(i - 50) / 16.0f + 0.1f;
    for (int k = 0; k < 10; k++) coeffs[k] = (float)(k * k) / 7.0f - 1.5f;
    /* Words that leave cell k to the right (X and Y) enter cell k+1 from the left. */
    static uint32_t carry[2][QCAP];
    int carry_len[2] = {0, 0};
    for (int cell = 0; cell <= 9; cell++) {
        mock_reset(cell, 0, 9);
        for (int ch = 0; ch < 2; ch++) {
            memcpy(mk.in[ch], carry[ch], sizeof carry[ch]);
            mk.in_len[ch] = carry_len[ch];
        }
        mock_host("data", data, sizeof data);
        mock_host("coeffs", coeffs, sizeof coeffs);
        mock_host("results", results, sizeof results);
        run_cell(poly_src);
        for (int ch = 0; ch < 2; ch++) assert_int_equal(mk.in_pos[ch], mk.in_len[ch]);
        if (cell < 9) {
            for (int ch = 0; ch < 2; ch++) {
                memcpy(carry[ch], mk.out[2 + ch], sizeof carry[ch]);
                carry_len[ch] = mk.out_len[2 + ch];
            }
            assert_int_equal(carry_len[0], 9 + 1 + 100);
            assert_int_equal(carry_len[1], 100);
        }
    }
    for (int i = 0; i < 100; i++) {
        float y = 0.0f;
        for (int k = 0; k < 10; k++) y = coeffs[k] + y * data[i];
        if (results[i] != y) fail_msg("results[%d] = %.9g, expected %.9g", i, results[i], y);
    }
}

static void test_for_loop_semantics(void **state)
{
    (void)state;
    static int32_t r[12];
    mock_reset(0, 0, 0);
    mock_host("r", r, sizeof r);
    run_cell("module m (r out)\nint r[12];\ncellprogram (cid : 0 : 0)\nbegin\n"
               "  int i, n, hi;\n"
               "  n := 0; for i := 2147483645 to 2147483647 do n := n + 1; send (R, X, n, r[0]);\n"
               "  n := 0; for i := -2147483646 downto -2147483648 do n := n + 1; send (R, X, n, r[1]);\n"
               "  n := 0; for i := 5 to 4 do n := n + 1; send (R, X, n, r[2]);\n"
               "  n := 0; for i := 4 downto 5 do n := n + 1; send (R, X, n, r[3]);\n"
               "  n := 0; for i := 7 to 7 do n := n + i; send (R, X, n, r[4]);\n"
               "  /* Bounds are evaluated once: changing hi inside does not move the end. */\n"
               "  hi := 3; n := 0; for i := 1 to hi do begin hi := hi + 1; n := n + 1 end; send (R, X, n, r[5]);\n"
               "  n := 0; for i := 10 downto 1 do n := n * 2 + i mod 2; send (R, X, n, r[6]);\n"
               "  i := 0; n := 0; while i < 10 do begin i := i + 3; n := n + 1 end; send (R, X, n, r[7]);\n"
               "  n := 0; for i := -2 to 2 do if i < 0 then n := n - 1 else if i > 0 then n := n + 10;\n"
               "  send (R, X, n, r[8])\n"
               "end\n");
    assert_int_equal(r[0], 3);
    assert_int_equal(r[1], 3);
    assert_int_equal(r[2], 0);
    assert_int_equal(r[3], 0);
    assert_int_equal(r[4], 7);
    assert_int_equal(r[5], 3);
    assert_int_equal(r[6], 0x155);
    assert_int_equal(r[7], 4);
    assert_int_equal(r[8], 18);
}

static void test_and_or_evaluate_both_operands(void **state)
{
    (void)state;
    static int32_t r[2];
    mock_reset(0, 0, 0);
    mock_host("r", r, sizeof r);
    run_cell("module m (r out)\nint r[2];\ncellprogram (cid : 0 : 0)\nbegin\n"
               "  int x;\n"
               "  x := 0;\n"
               "  if (x = 0) or (10 / x > 1) then send (R, X, 1, r[0]);\n"
               "  if (x <> 0) and (10 / x > 1) then x := 5;\n"
               "  send (R, X, x, r[1])\n"
               "end\n");
    assert_int_equal(r[0], 1);
    assert_int_equal(r[1], 0);
    assert_int_equal(mk.idiv_calls, 2);
    assert_int_equal(mk.idiv_zero_divisors, 2);
}

static void test_conversions_and_arithmetic(void **state)
{
    (void)state;
    static int32_t ri[8];
    static float rf[6];
    static int32_t hn = 7;
    static float hf[2] = {2.5f, -0.5f};
    mock_reset(0, 0, 0);
    mock_host("ri", ri, sizeof ri);
    mock_host("rf", rf, sizeof rf);
    mock_host("hn", &hn, sizeof hn);
    mock_host("hf", hf, sizeof hf);
    run_cell("module m (ri out, rf out, hn in, hf in)\nint ri[8]; float rf[6]; int hn; float hf[2];\n"
               "cellprogram (cid : 0 : 0)\nbegin\n"
               "  float f, z; int k;\n"
               "  send (R, X, int(2.9), ri[0]); send (R, X, int(-2.9), ri[1]);\n"
               "  send (R, X, int(1e10), ri[2]); send (R, X, int(-1e10), ri[3]);\n"
               "  z := 0.0; send (R, X, int(z / z), ri[4]);\n"
               "  k := 2147483647; send (R, X, k + 1, ri[5]);\n"
               "  send (R, X, 7 / 2 + -7 / 2, ri[6]);\n"
               "  receive (L, Y, f, hn); send (R, Y, f, rf[0]);\n"
               "  receive (L, X, f, hf[0] * 2.0 + hf[1]); send (R, Y, f, rf[1]);\n"
               "  receive (R, X, k, hn * 3); send (L, X, k, ri[7]);\n"
               "  send (R, X, float(7) / 2, rf[2]);\n"
               "  send (R, X, 1 + 0.5, rf[3]);\n"
               "  f := 3; send (R, X, f, rf[4]);\n"
               "  receive (L, X, f); send (R, X, f - 1.0, rf[5])\n"
               "end\n");
    assert_int_equal(ri[0], 2);
    assert_int_equal(ri[1], -2);
    assert_int_equal(ri[2], INT32_MAX);
    assert_int_equal(ri[3], INT32_MIN);
    assert_int_equal(ri[4], 0);
    assert_int_equal(ri[5], INT32_MIN);
    assert_int_equal(ri[6], 0);
    assert_int_equal(ri[7], 21);
    assert_true(rf[0] == 7.0f);
    assert_true(rf[1] == 4.5f);
    assert_true(rf[2] == 3.5f);
    assert_true(rf[3] == 1.5f);
    assert_true(rf[4] == 3.0f);
    /* A boundary receive without a fourth argument gets 0. */
    assert_true(rf[5] == -1.0f);
}

static void test_locals_start_at_zero_and_arrays_address(void **state)
{
    (void)state;
    static int32_t r[4];
    static int32_t h2[2][3];
    mock_reset(0, 0, 0);
    mock_host("r", r, sizeof r);
    mock_host("h2", h2, sizeof h2);
    run_cell("module m (r out, h2 out)\nint r[4]; int h2[2][3];\ncellprogram (cid : 0 : 0)\nbegin\n"
               "  int n, a[2][3];\n"
               "  function f begin int l, v[3]; send (R, X, l + v[2], r[n]); n := n + 1; l := 5; v[2] := 9 end;\n"
               "  call f; call f;\n"
               "  a[1][2] := 42; a[0][2] := 1; send (R, X, a[1][2] + a[0][2], h2[1][2]);\n"
               "  send (R, X, a[1][0], h2[0][1]); send (R, X, 13, h2[1][0])\n"
               "end\n");
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], 0);
    assert_int_equal(h2[1][2], 43);
    assert_int_equal(h2[0][1], 0);
    assert_int_equal(h2[1][0], 13);
}

static void test_sends_between_cells_ignore_fourth_argument(void **state)
{
    (void)state;
    static float out[2];
    const char *src = "module m (o out)\nfloat o[2];\ncellprogram (cid : 0 : 2)\nbegin\n"
                      "  float v;\n"
                      "  receive (L, X, v, 1.5);\n"
                      "  send (R, X, v + float(cid), o[0])\n"
                      "end\n";
    /* A middle cell: the left word comes from the neighbour, the right word goes to it. */
    mock_reset(1, 0, 2);
    mock_host("o", out, sizeof out);
    float w = 10.0f;
    memcpy(&mk.in[0][0], &w, 4);
    mk.in_len[0] = 1;
    run_cell(src);
    assert_int_equal(mk.out_len[2], 1);
    float sent;
    memcpy(&sent, &mk.out[2][0], 4);
    assert_true(sent == 11.0f);
    assert_true(out[0] == 0.0f);
    /* The left end takes the host's value instead. */
    mock_reset(0, 0, 2);
    mock_host("o", out, sizeof out);
    run_cell(src);
    memcpy(&sent, &mk.out[2][0], 4);
    assert_true(sent == 1.5f);
    /* The right end stores into the host. */
    mock_reset(2, 0, 2);
    mock_host("o", out, sizeof out);
    mk.in[0][0] = 0;
    mk.in_len[0] = 1;
    run_cell(src);
    assert_int_equal(mk.out_len[2], 0);
    assert_true(out[0] == 2.0f);
}

/* A fourth argument that may fault (a division, a cell-array subscript) is
 * evaluated only on the end cell facing the host on that side: on the other
 * cells it is ignored, so it must not divide by zero there. One that cannot
 * fault, and any on a single cell, is evaluated without a test. */
static void test_fourth_argument_only_on_end_cells(void **state)
{
    (void)state;
    static int32_t out[8];
    const char *src = "module m (o out)\nint o[8];\ncellprogram (cid : 0 : 2)\nbegin\n"
                      "  int v;\n"
                      "  receive (L, X, v, 100 / (2 - cid));\n"
                      "  send (R, X, v, o[10 / cid - 5])\n"
                      "end\n";
    /* The left end divides by 2 for its receive, never by 0 for its send. */
    memset(out, 0, sizeof out);
    mock_reset(0, 0, 2);
    mock_host("o", out, sizeof out);
    run_cell(src);
    assert_int_equal(mk.idiv_zero_divisors, 0);
    assert_int_equal(mk.idiv_calls, 1);
    assert_int_equal(mk.out_len[2], 1);
    assert_int_equal((int32_t)mk.out[2][0], 50);
    /* The right end stores at o[10 / 2 - 5] and never divides by 2 - 2. */
    mock_reset(2, 0, 2);
    mock_host("o", out, sizeof out);
    mk.in[0][0] = 77;
    mk.in_len[0] = 1;
    run_cell(src);
    assert_int_equal(mk.idiv_zero_divisors, 0);
    assert_int_equal(mk.idiv_calls, 1);
    assert_int_equal(out[0], 77);
    /* A middle cell evaluates neither. */
    mock_reset(1, 0, 2);
    mock_host("o", out, sizeof out);
    mk.in[0][0] = 5;
    mk.in_len[0] = 1;
    run_cell(src);
    assert_int_equal(mk.idiv_calls, 0);
    assert_int_equal((int32_t)mk.out[2][0], 5);

    char *ir = print_ir(src, 0);
    assert_int_equal((int)(strstr(ir, "ext.use") != NULL), 1);
    free(ir);
    ir = print_ir(poly_src, 0);
    assert_null(strstr(ir, "ext.use"));
    free(ir);
    ir = print_ir("module m (o out)\nint o[8];\ncellprogram (cid : 0 : 0)\nbegin\n  int v;\n"
                  "  receive (L, X, v, 100 / (2 - cid));\n  send (R, X, v, o[10 / (cid + 1) - 5])\nend\n", 0);
    assert_null(strstr(ir, "ext.use"));
    free(ir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polynomial_module_shape),
        cmocka_unit_test(test_comm_calls_pair_everywhere),
        cmocka_unit_test(test_operations_lowering),
        cmocka_unit_test(test_globals_and_names),
        cmocka_unit_test(test_debug_info),
        cmocka_unit_test(test_polynomial_runs_on_ten_cells),
        cmocka_unit_test(test_for_loop_semantics),
        cmocka_unit_test(test_and_or_evaluate_both_operands),
        cmocka_unit_test(test_conversions_and_arithmetic),
        cmocka_unit_test(test_locals_start_at_zero_and_arrays_address),
        cmocka_unit_test(test_sends_between_cells_ignore_fourth_argument),
        cmocka_unit_test(test_fourth_argument_only_on_end_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
