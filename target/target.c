/* The machine description's tables and the one encoder, decoder and printer of a
 * bundle. Figures from the seeds are marked with their seed; the rest are this
 * description's choices, marked "chosen". */
#include "warp_target.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

static const wt_model models[WT_NMODELS] = {
    [WT_MODEL_WARP] = {
        .id = WT_MODEL_WARP, .name = "warp",
        .clock_mhz = 5,              /* 200 ns cycle (seed 002) */
        .nregs = 64,                 /* two 32-word register files (seed 002), one name space
                                        through the crossbar: chosen */
        .queue_words = 128,          /* 128-word queue per channel (seed 002) */
        .link_latency = 1,           /* a 32-bit word on the 16-bit, 100 ns channel: one cycle */
        .data_mem_bytes = 4096 * 4,  /* 4K-word data memory (seed 002) */
        .prog_mem_bundles = 8192,    /* chosen */
        .ret_stack_depth = 16,       /* chosen */
        .gate_ops_per_clock = 0,
        .interface_unit = 1,         /* seed 002, sections 3 and 4.7 */
        .iu_table_words = 1024,      /* seed 002, section 4.2, gives no size: chosen, the
                                        seed's headline 1024-point FFT's bit-reversed order
                                        is 1024 addresses */
    },
    [WT_MODEL_IWARP] = {
        .id = WT_MODEL_IWARP, .name = "iwarp",
        .clock_mhz = 20,             /* 50 ns clock (seed 000) */
        .nregs = 64,                 /* chosen */
        .queue_words = 8,            /* 8-word queue per logical input channel (seed 000) */
        .link_latency = 2,           /* a 32-bit word on an 8-bit, 40 MHz bus: two clocks */
        .data_mem_bytes = 65536 * 4, /* chosen */
        .prog_mem_bundles = 65536,   /* chosen: the whole 16-bit target field */
        .ret_stack_depth = 16,       /* chosen */
        .gate_ops_per_clock = 2,     /* four gate operations take two clocks (seed 000, sec. 7.1) */
        .gate_word_clocks = 2,       /* each of the four internal buses between the computation
                                        and communication agents carries 40 MB/s (seed 000,
                                        sec. 4): a gate moves a word every second clock */
        .double_precision = 1,       /* 10 MFLOPS double precision (seed 000, sec. 1) */
        .int_ops_per_clock = 1,      /* 20 MIPS at 20 MHz (seed 000, sec. 1): the two ALU fields
                                        share one integer unit */
        .logical_channels = 20,      /* 20 logical input and 20 output channels (seed 000, sec. 5) */
        .bus_word_clocks = 2,        /* 40 MB/s a bus: a 32-bit word every 100 ns (seed 000, sec. 4) */
        .credit_latency = 2,         /* the dequeue signal crosses the bus's control lines: chosen */
        .route_clocks = 2,           /* 200 ns to forward an unmatched marker to the next cell,
                                        of which the bus transfer is 2 clocks (seed 000, sec. 8) */
        .corner_clocks = 3,          /* 250 ns for a corner turn, the same way (seed 000, sec. 8) */
        .spool_gates = 8,            /* eight spool gates (seed 000, sec. 7.2) */
        .spool_words_per_clock = 2,  /* 160 MB/s memory bus, 64 bits a clock (seed 000, sec. 7.2) */
    },
};

const wt_model *wt_model_get(wt_model_id id)
{
    return (unsigned)id < WT_NMODELS ? &models[id] : NULL;
}

const wt_model *wt_model_by_name(const char *name)
{
    for (int i = 0; i < WT_NMODELS; i++)
        if (strcmp(models[i].name, name) == 0) return &models[i];
    return NULL;
}

/* Bundle layout, least significant bit first (bits 312..319 are reserved, zero):
 *
 *   FA  op:4 @0    d:8 @4    a:8 @12   b:8 @20
 *   FM  op:4 @28   d:8 @32   a:8 @40   b:8 @48
 *   A0  op:6 @56   d:8 @62   a:8 @70   b:8 @78   c:8 @86
 *   A1  op:6 @94   d:8 @100  a:8 @108  b:8 @116  c:8 @124
 *   M0  op:3 @132  x:8 @135  a:8 @143  b:8 @151
 *   M1  op:3 @159  x:8 @162  a:8 @170  b:8 @178
 *   V0  op:1 @186  d:8 @187  a:8 @195
 *   V1  op:1 @203  d:8 @204  a:8 @212
 *   BR  op:4 @220  c:8 @224  target:16 @232
 *   IMM0 :32 @248   IMM1 :32 @280
 */
const wt_slot_layout wt_slot_layouts[WT_NSLOTS] = {
    [WT_SLOT_FA] = {"FA", WT_UC_FA,  0,   4, {4, 12, 20, -1}},
    [WT_SLOT_FM] = {"FM", WT_UC_FM,  28,  4, {32, 40, 48, -1}},
    [WT_SLOT_A0] = {"A0", WT_UC_ALU, 56,  6, {62, 70, 78, 86}},
    [WT_SLOT_A1] = {"A1", WT_UC_ALU, 94,  6, {100, 108, 116, 124}},
    [WT_SLOT_M0] = {"M0", WT_UC_MEM, 132, 3, {135, 143, 151, -1}},
    [WT_SLOT_M1] = {"M1", WT_UC_MEM, 159, 3, {162, 170, 178, -1}},
    [WT_SLOT_V0] = {"V0", WT_UC_MV,  186, 1, {187, 195, -1, -1}},
    [WT_SLOT_V1] = {"V1", WT_UC_MV,  203, 1, {204, 212, -1, -1}},
    [WT_SLOT_BR] = {"BR", WT_UC_BR,  220, 4, {-1, -1, -1, 224}},
};
enum { TARGET_LSB = 232, IMM0_LSB = 248, IMM1_LSB = 280, RESERVED_LSB = 312 };

const wt_op_info wt_ops[WT_NOPS] = {
    [WT_OP_NONE] = {"nop", WT_UC_NONE, 0, "", '-', {0, 0}, {0, 0}, WT_K_PURE},
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem) \
    [WT_OP_##id] = {mn, WT_UC_##uc, code, sig, ity, {lw, li}, {iw, ii}, WT_K_##kind},
#include "warp_ops.def"
#undef WT_OP
};

const wt_kind_info wt_kinds[WT_NKINDS] = {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)
#define WT_KIND(id, value, memory, flow) [WT_K_##id] = {#id, WT_VAL_##value, WT_MEM_##memory, WT_FLOW_##flow},
#include "warp_ops.def"
#undef WT_KIND
#undef WT_OP
};

/* An operand a signature letter does not allow is left 0 (r0, or no destination). */
static uint8_t checked(wt_operands *o, uint8_t code, int ok)
{
    o->bad |= !ok;
    return ok ? code : 0;
}

void wt_slot_operands(const wt_slot *sl, wt_operands *o)
{
    memset(o, 0, sizeof *o);
    for (const char *p = wt_ops[sl->op].sig; *p; p++) {
        uint8_t code = sl->opnd[*p == 'm' ? 1 : wt_sig_subfield(*p) >= 0 ? wt_sig_subfield(*p) : 0];
        switch (*p) {
        case 'd': o->dst = checked(o, code, wt_opnd_valid_dst(code)); break;
        case 'D':
            o->dst = checked(o, code, wt_opnd_is_pair(code));
            o->pair |= 4;
            break;
        case 'A':
        case 'B': {
            int k = *p - 'A';
            o->src[k] = checked(o, code, wt_opnd_is_pair(code));
            o->reads |= (uint8_t)(1u << k);
            o->pair |= (uint8_t)(1u << k);
            break;
        }
        case 'a':
        case 'b':
        case 'c':
        case 's':
        case 'k': {
            /* a store's value (subfield 0) and a branch condition (3) are the third source */
            int k = *p == 's' || *p == 'k' ? 2 : *p - 'a';
            o->src[k] = checked(o, code, wt_opnd_valid_src(code));
            o->reads |= (uint8_t)(1u << k);
            break;
        }
        case 'm':
            o->src[0] = checked(o, code, wt_opnd_valid_src(code));
            o->src[1] = checked(o, sl->opnd[2], wt_opnd_valid_src(sl->opnd[2]));
            o->reads |= 3;
            break;
        case 'K':
            o->src[2] = o->dst = checked(o, code, wt_opnd_is_reg(code));
            o->reads |= 4;
            break;
        default: break;
        }
    }
}

const char *wt_unit_class_name(wt_unit_class uc)
{
    static const char *names[WT_NUCLASSES] = {"none", "FA", "FM", "ALU", "MEM", "MV", "BR"};
    return (unsigned)uc < WT_NUCLASSES ? names[uc] : "?";
}

unsigned wt_class_slots(wt_unit_class uc)
{
    unsigned n = 0;
    for (int s = 0; s < WT_NSLOTS; s++) n += wt_slot_layouts[s].uclass == uc;
    return n;
}

unsigned wt_res_issue(const wt_model *m, unsigned r)
{
    if (r == WT_UC_NONE || r == WT_RES_IU + WT_UC_NONE || r >= WT_NRES) return 0;
    if (r < WT_RES_IU) return m ? wt_class_issue(m, (wt_unit_class)r) : wt_class_slots((wt_unit_class)r);
    if (m && !m->interface_unit) return 0;
    if (r >= WT_RES_PATH) return m && wt_paths[r - WT_RES_PATH].model != m->id ? 0 : wt_paths[r - WT_RES_PATH].per_clock;
    return r == WT_RES_LINK ? WT_IU_LINK_WORDS : wt_class_slots((wt_unit_class)(r - WT_RES_IU));
}

const char *wt_res_name(unsigned r)
{
    static const char *const iu_names[WT_NUCLASSES] = {"IU none", "IU FA", "IU FM", "IU ALU", "IU MEM", "IU MV", "IU BR"};
    if (r < WT_RES_IU) return wt_unit_class_name((wt_unit_class)r);
    if (r < WT_RES_LINK) return iu_names[r - WT_RES_IU];
    if (r >= WT_RES_PATH && r < WT_NRES) {
        static char names[WT_NPATHS][16];
        /* Filled once; the strings never change after, so sharing them is safe. */
        if (!names[r - WT_RES_PATH][0]) snprintf(names[r - WT_RES_PATH], sizeof names[0], "IU %s", wt_paths[r - WT_RES_PATH].name);
        return names[r - WT_RES_PATH];
    }
    return r == WT_RES_LINK ? "IU link" : "?";
}

int wt_bundle_fits(const wt_model *m, const wt_bundle_use *u, unsigned res, unsigned new_literals)
{
    return u->used[res < WT_NRES ? res : 0] < wt_res_issue(m, res) && u->literals + new_literals <= WT_BUNDLE_LITERALS;
}

void wt_bundle_take(wt_bundle_use *u, unsigned res, unsigned new_literals)
{
    u->used[res]++;
    u->literals = (uint8_t)(u->literals + new_literals);
}

int wt_bundle_gates_fit(const wt_model *m, const wt_bundle_use *before, const wt_bundle_use *after)
{
    unsigned per_clock = m->gate_ops_per_clock;
    return !per_clock || wt_bundle_gate_ops(before) == 0 || wt_bundle_gate_ops(after) <= per_clock;
}

int wt_bundle_add(wt_bundle_use *u, wt_unit_class uc, int dst, const unsigned *srcs, int nsrc)
{
    if (!wt_bundle_fits(NULL, u, uc, 0)) return -1;
    wt_bundle_take(u, uc, 0);
    wt_bundle_add_gates(u, dst, srcs, nsrc);
    /* Only the interface unit writes a path: the words it carries that clock. */
    if (dst >= 0 && wt_opnd_is_path((unsigned)dst)) u->used[WT_RES_PATH + (unsigned)dst - WT_OPND_PATH]++;
    return 0;
}

void wt_bundle_add_gates(wt_bundle_use *u, int dst, const unsigned *srcs, int nsrc)
{
    for (int k = 0; k < nsrc; k++)
        if (wt_opnd_is_gate(srcs[k])) u->gates_read |= (uint8_t)(1u << (srcs[k] - WT_OPND_GATE));
        else if (wt_opnd_is_pgate(srcs[k])) u->gates_read |= (uint8_t)(1u << (4 + srcs[k] - WT_OPND_PGATE));
    /* host-feed and host-address writes go to the interface unit, not a gate */
    if (dst >= 0 && wt_opnd_is_gate_out((unsigned)dst)) {
        u->gate_writes++;
        u->gates_written |= (uint8_t)(1u << (wt_opnd_is_gate((unsigned)dst) ? (unsigned)dst - WT_OPND_GATE
                                                                               : 4 + (unsigned)dst - WT_OPND_PGATE));
    }
}

unsigned wt_bundle_gate_ops(const wt_bundle_use *u)
{
    return (unsigned)__builtin_popcount(u->gates_read) + u->gate_writes;
}

unsigned wt_bundle_clocks(const wt_model *m, const wt_bundle_use *u)
{
    unsigned clocks = m->gate_ops_per_clock && wt_bundle_gate_ops(u) > m->gate_ops_per_clock ? 2 : 1;
    unsigned alu_ops = u->used[WT_UC_ALU];
    if (m->int_ops_per_clock && alu_ops > m->int_ops_per_clock) {
        unsigned need = (alu_ops + m->int_ops_per_clock - 1) / m->int_ops_per_clock;
        if (need > clocks) clocks = need;
    }
    return clocks;
}

unsigned wt_class_issue(const wt_model *m, wt_unit_class uc)
{
    unsigned slots = wt_class_slots(uc);
    if (uc == WT_UC_ALU && m->int_ops_per_clock && m->int_ops_per_clock < slots) return m->int_ops_per_clock;
    return slots;
}

unsigned wt_class_interval(const wt_model *m, wt_unit_class uc)
{
    unsigned best = 0;
    for (int op = 1; op < WT_NOPS; op++)
        if (wt_ops[op].uclass == uc && wt_ops[op].interval[m->id] && (!best || wt_ops[op].interval[m->id] < best))
            best = wt_ops[op].interval[m->id];
    return best ? best : 1;
}

wt_bundle_use wt_insn_use(const wt_insn *in)
{
    wt_bundle_use u = {0};
    unsigned fields = 0;
    for (int s = 0; s < WT_NSLOTS; s++) {
        const wt_slot *sl = &in->slot[s];
        if (sl->op == WT_OP_NONE || sl->op >= WT_NOPS || wt_ops[sl->op].uclass != wt_slot_layouts[s].uclass) continue;
        wt_operands o;
        wt_slot_operands(sl, &o);
        unsigned srcs[3];
        int nsrc = 0;
        for (int k = 0; k < 3; k++)
            if (o.reads >> k & 1) srcs[nsrc++] = o.src[k];
        wt_bundle_add(&u, wt_slot_layouts[s].uclass, o.dst, srcs, nsrc);
        for (int k = 0; k < nsrc; k++)
            if (wt_opnd_is_imm(srcs[k])) fields |= 1u << (srcs[k] - WT_OPND_IMM0);
    }
    u.literals = (uint8_t)__builtin_popcount(fields);
    return u;
}

void wt_decode_bundle(const wt_model *m, const wt_insn *in, wt_dbundle *b)
{
    memset(b, 0, sizeof *b);
    b->target = in->target;
    for (int k = 0; k < WT_BUNDLE_LITERALS; k++) b->imm[k] = in->imm[k];
    wt_dop stores[WT_NSLOTS];
    unsigned nstores = 0, waits = 0, agent = 0, paths = 0;
    for (unsigned s = 0; s < WT_NSLOTS; s++) {
        const wt_slot *sl = &in->slot[s];
        if (sl->op == WT_OP_NONE) continue;
        if (sl->op >= WT_NOPS || wt_ops[sl->op].uclass != wt_slot_layouts[s].uclass) {
            b->fault = WT_FAULT_UNDEFINED;
            continue;
        }
        const wt_op_info *info = &wt_ops[sl->op];
        const wt_kind_info *K = &wt_kinds[info->kind];
        wt_operands o;
        wt_slot_operands(sl, &o);
        if (o.bad) b->fault = WT_FAULT_UNDEFINED;
        wt_dop d = {.op = (uint8_t)sl->op, .kind = (uint8_t)info->kind, .slot = (uint8_t)s,
                    .uclass = (uint8_t)info->uclass, .lat = info->latency[m->id],
                    .interval = info->interval[m->id], .dst = o.dst, .reads = o.reads, .pair = o.pair};
        if (wt_opnd_is_path(o.dst) && !o.bad) b->fault = WT_FAULT_PATH_WRITE;
        agent |= wt_opnd_is_pgate(o.dst) || wt_opnd_is_ctl(o.dst);
        for (int k = 0; k < 3; k++) {
            d.src[k] = o.src[k];
            if (!(o.reads >> k & 1) || (o.pair >> k & 1)) continue;
            if (!wt_opnd_valid_src(o.src[k])) {
                /* r0 stands in for it */
                b->fault = WT_FAULT_UNDEFINED;
                d.src[k] = 0;
                continue;
            }
            agent |= wt_opnd_is_pgate(o.src[k]) || wt_opnd_is_ctl(o.src[k]);
            if (wt_opnd_is_path(o.src[k])) paths |= 1u << (o.src[k] - WT_OPND_PATH);
        }
        if (K->value == WT_VAL_DOUBLE && !m->double_precision) b->fault = WT_FAULT_NO_DOUBLE;
        if (K->memory == WT_MEM_IU_TABLE) b->fault = WT_FAULT_IU_ONLY;
        if (K->value == WT_VAL_AGENT) {
            agent = 1;
            unsigned dst = d.dst;
            int to_gate = wt_opnd_is_gate(dst) || wt_opnd_is_pgate(dst) || wt_opnd_is_path(dst);
            if (wt_op_marker((wt_op)d.op) != WT_MARK_DATA && !to_gate) b->fault = WT_FAULT_MARKER_DEST;
            if (d.op == WT_OP_CREQ || d.op == WT_OP_EVWAIT) {
                /* Whether they block is decided before the bundle dequeues anything. */
                for (int k = 1; k <= 2; k++)
                    if (wt_opnd_is_gate(sl->opnd[k]) || wt_opnd_is_pgate(sl->opnd[k]) || wt_opnd_is_path(sl->opnd[k]))
                        b->fault = WT_FAULT_CREQ_GATES;
                b->wait_op = (uint8_t)(b->nops + 1);
                waits++;
            }
        }
        b->slot_mask |= (uint16_t)(1u << s);
        if (K->memory == WT_MEM_STORE) stores[nstores++] = d;
        else b->ops[b->nops++] = d;
    }
    for (unsigned i = 0; i < nstores; i++) b->ops[b->nops++] = stores[i];
    if (waits > 1) b->fault = WT_FAULT_TWO_WAITS;
    if (agent && !m->logical_channels) b->fault = WT_FAULT_NO_AGENT;
    for (unsigned p = 0; p < WT_NPATHS; p++)
        if ((paths >> p & 1) && wt_paths[p].model != m->id) b->fault = WT_FAULT_NO_PATH;
    wt_bundle_use use = wt_insn_use(in);
    b->clocks = (uint8_t)wt_bundle_clocks(m, &use);
}

static const struct { wt_op op, alt; } alternatives[] = {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)
#define WT_ALT(id, other) {WT_OP_##id, WT_OP_##other},
#include "warp_ops.def"
#undef WT_ALT
#undef WT_OP
};

unsigned wt_op_alternatives(wt_op op, wt_op out[WT_MAX_ALTS])
{
    unsigned n = 0;
    out[n++] = op;
    for (size_t i = 0; i < sizeof alternatives / sizeof alternatives[0] && n < WT_MAX_ALTS; i++)
        if (alternatives[i].op == op) out[n++] = alternatives[i].alt;
    return n;
}

wt_op wt_op_lookup(const char *mnemonic)
{
    for (int op = 1; op < WT_NOPS; op++)
        if (strcmp(wt_ops[op].name, mnemonic) == 0) return (wt_op)op;
    return WT_OP_NONE;
}

wt_op wt_op_from_code(wt_unit_class uc, unsigned code)
{
    if (code == 0) return WT_OP_NONE;
    for (int op = 1; op < WT_NOPS; op++)
        if (wt_ops[op].uclass == uc && wt_ops[op].code == code) return (wt_op)op;
    return WT_OP_NONE;
}

int wt_sig_subfield(char c)
{
    switch (c) {
    case 'd': case 's': case 'D': return 0;
    case 'a': case 'A': return 1;
    case 'b': case 'B': return 2;
    case 'c': case 'k': case 'K': return 3;
    default: return -1;
    }
}

int wt_op_has_dest(wt_op op)
{
    const char *sig = wt_ops[op].sig;
    return strchr(sig, 'd') != NULL || strchr(sig, 'D') != NULL || strchr(sig, 'K') != NULL;
}

wt_marker wt_op_marker(wt_op op)
{
    switch (op) {
    case WT_OP_PBEGIN: return WT_MARK_PBEGIN;
    case WT_OP_PEND: return WT_MARK_PEND;
    case WT_OP_MBEGIN: return WT_MARK_MBEGIN;
    case WT_OP_MEND: return WT_MARK_MEND;
    case WT_OP_AMARK: return WT_MARK_APP;
    default: return WT_MARK_DATA;
    }
}

/* ---- Operands ------------------------------------------------------------------ */

/* The control registers of the communication agent (docs/design.md, section 7). The
 * '%' keeps them apart from symbols, as GNU as does for machine registers. */
const wt_ctl_info wt_ctls[WT_NCTL] = {
    [WT_CTL_GI0] = {"%gi0", 1, 1},   [WT_CTL_GI1] = {"%gi1", 1, 1},
    [WT_CTL_GO0] = {"%go0", 1, 1},   [WT_CTL_GO1] = {"%go1", 1, 1},
    [WT_CTL_GT0] = {"%gt0", 1, 0},   [WT_CTL_GT1] = {"%gt1", 1, 0},
    [WT_CTL_CAM0] = {"%cam0", 1, 1}, [WT_CTL_CAM1] = {"%cam1", 1, 1},
    [WT_CTL_CAM2] = {"%cam2", 1, 1}, [WT_CTL_CAM3] = {"%cam3", 1, 1},
    [WT_CTL_CAM4] = {"%cam4", 1, 1}, [WT_CTL_CAM5] = {"%cam5", 1, 1},
    [WT_CTL_CAM6] = {"%cam6", 1, 1}, [WT_CTL_CAM7] = {"%cam7", 1, 1},
    [WT_CTL_EVST] = {"%evst", 1, 1}, [WT_CTL_EVMASK] = {"%evmask", 1, 1},
    [WT_CTL_EVDATA] = {"%evdata", 1, 0},
    [WT_CTL_SPS] = {"%sps", 1, 1},   [WT_CTL_SPA] = {"%spa", 1, 1},
    [WT_CTL_SPL] = {"%spl", 1, 1},   [WT_CTL_SPN] = {"%spn", 1, 1},
    [WT_CTL_SPC] = {"%spc", 1, 1},
};
_Static_assert(WT_OPND_CTL + WT_NCTL == WT_OPND_PATH, "the paths follow the control registers");
_Static_assert(WT_OPND_LAST_NAMED < WT_OPND_IMM0, "named operands stay below the literal codes");

const wt_path_info wt_paths[WT_NPATHS] = {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)
#define WT_PATH(id, name, words, per_clock, model) [WT_PATH_##id] = {name, words, per_clock, WT_MODEL_##model},
#include "warp_ops.def"
#undef WT_PATH
#undef WT_OP
};

static const char *const named_operands[] = {
    [WT_OPND_CID - WT_OPND_CID] = "cid",
    [WT_OPND_GATE + 0 - WT_OPND_CID] = "@xl", "@yl", "@xr", "@yr",
    [WT_OPND_FEED + 0 - WT_OPND_CID] = "@fxl", "@fyl", "@fxr", "@fyr",
    [WT_OPND_ADDR + 0 - WT_OPND_CID] = "@axl", "@ayl", "@axr", "@ayr",
    [WT_OPND_PGATE + 0 - WT_OPND_CID] = "@g0", "@g1",
};

int wt_opnd_valid_src(unsigned o)
{
    return wt_opnd_is_reg(o) || o == WT_OPND_CID || wt_opnd_is_gate(o) || wt_opnd_is_pgate(o) ||
           wt_opnd_is_imm(o) || wt_opnd_is_path(o) || (wt_opnd_is_ctl(o) && wt_ctls[o - WT_OPND_CTL].readable);
}

int wt_opnd_valid_dst(unsigned o)
{
    return wt_opnd_is_reg(o) || wt_opnd_is_gate(o) || wt_opnd_is_feed(o) || wt_opnd_is_addr(o) ||
           wt_opnd_is_pgate(o) || wt_opnd_is_path(o) || (wt_opnd_is_ctl(o) && wt_ctls[o - WT_OPND_CTL].writable);
}

const char *wt_opnd_name(unsigned o)
{
    static char regs[WT_OPND_NREGS][4];
    if (wt_opnd_is_reg(o)) {
        /* Filled once; the strings never change after, so sharing them is safe. */
        if (regs[o][0] == 0) snprintf(regs[o], sizeof regs[o], "r%u", o);
        return regs[o];
    }
    if (wt_opnd_is_ctl(o)) return wt_ctls[o - WT_OPND_CTL].name;
    if (wt_opnd_is_path(o)) return wt_paths[o - WT_OPND_PATH].name;
    if (o >= WT_OPND_CID && o <= WT_OPND_LAST_NAMED) return named_operands[o - WT_OPND_CID];
    return NULL;
}

int wt_opnd_parse(const char *name, size_t len)
{
    if (len >= 2 && len <= 3 && name[0] == 'r') {
        unsigned n = 0;
        for (size_t i = 1; i < len; i++) {
            if (name[i] < '0' || name[i] > '9') return -1;
            n = n * 10 + (unsigned)(name[i] - '0');
        }
        if (len == 3 && name[1] == '0') return -1; /* "r05" is not a register name */
        return n < WT_OPND_NREGS ? (int)n : -1;
    }
    for (unsigned o = WT_OPND_CID; o <= WT_OPND_LAST_NAMED; o++) {
        const char *s = wt_opnd_name(o);
        if (strlen(s) == len && memcmp(s, name, len) == 0) return (int)o;
    }
    return -1;
}

int wt_symbol_needs_quotes(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || isdigit((unsigned char)name[0]) || (name[0] == '.' && isdigit((unsigned char)name[1])))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("_.$", name[i])) return 1;
    if (wt_opnd_parse(name, n) >= 0 || strcmp(name, "inf") == 0 || strcmp(name, "nan") == 0) return 1;
    if (name[0] == 'r' && n > 1 && strspn(name + 1, "0123456789") == n - 1) return 1;
    return 0;
}

/* ---- Encoding ------------------------------------------------------------------ */

static void put_bits(uint8_t *w, unsigned lsb, unsigned width, uint32_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = lsb + i;
        if ((v >> i) & 1) w[bit / 8] |= (uint8_t)(1u << (bit % 8));
        else w[bit / 8] &= (uint8_t)~(1u << (bit % 8));
    }
}

static uint32_t get_bits(const uint8_t *w, unsigned lsb, unsigned width)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = lsb + i;
        v |= (uint32_t)((w[bit / 8] >> (bit % 8)) & 1) << i;
    }
    return v;
}

void wt_encode(const wt_insn *in, uint8_t out[WT_BUNDLE_BYTES])
{
    memset(out, 0, WT_BUNDLE_BYTES);
    for (int s = 0; s < WT_NSLOTS; s++) {
        const wt_slot_layout *L = &wt_slot_layouts[s];
        const wt_slot *sl = &in->slot[s];
        if (sl->op == WT_OP_NONE) continue;
        put_bits(out, L->op_lsb, L->op_width, wt_ops[sl->op].code);
        for (int k = 0; k < 4; k++)
            if (L->opnd_lsb[k] >= 0) put_bits(out, (unsigned)L->opnd_lsb[k], 8, sl->opnd[k]);
    }
    put_bits(out, TARGET_LSB, 16, in->target);
    put_bits(out, IMM0_LSB, 32, in->imm[0]);
    put_bits(out, IMM1_LSB, 32, in->imm[1]);
}

/* Is every operand the operation reads or writes a code of the right kind? */
static int slot_operands_valid(const wt_slot *sl)
{
    for (const char *p = wt_ops[sl->op].sig; *p; p++) {
        int k = wt_sig_subfield(*p);
        if (*p == 'm') {
            if (!wt_opnd_valid_src(sl->opnd[1]) || !wt_opnd_valid_src(sl->opnd[2])) return 0;
        } else if (*p == 'd') {
            if (!wt_opnd_valid_dst(sl->opnd[k])) return 0;
        } else if (*p == 'K') {
            if (!wt_opnd_is_reg(sl->opnd[k])) return 0;
        } else if (k >= 0) {
            if (!wt_opnd_valid_src(sl->opnd[k])) return 0;
        }
    }
    return 1;
}

int wt_decode(const uint8_t in[WT_BUNDLE_BYTES], wt_insn *out)
{
    int ok = 0;
    memset(out, 0, sizeof *out);
    for (int s = 0; s < WT_NSLOTS; s++) {
        const wt_slot_layout *L = &wt_slot_layouts[s];
        unsigned code = get_bits(in, L->op_lsb, L->op_width);
        wt_slot *sl = &out->slot[s];
        if (code == 0) continue;
        sl->op = (uint16_t)wt_op_from_code(L->uclass, code);
        if (sl->op == WT_OP_NONE) { ok = -1; continue; }
        for (int k = 0; k < 4; k++)
            if (L->opnd_lsb[k] >= 0) sl->opnd[k] = (uint8_t)get_bits(in, (unsigned)L->opnd_lsb[k], 8);
        if (!slot_operands_valid(sl)) ok = -1;
    }
    out->target = (uint16_t)get_bits(in, TARGET_LSB, 16);
    out->imm[0] = get_bits(in, IMM0_LSB, 32);
    out->imm[1] = get_bits(in, IMM1_LSB, 32);
    if (get_bits(in, RESERVED_LSB, WT_BUNDLE_BITS - RESERVED_LSB) != 0) ok = -1;
    return ok;
}

/* ---- Text ---------------------------------------------------------------------- */

int wt_format_literal(uint32_t bits, char imm_type, char *buf, size_t size)
{
    if (imm_type != 'f') return snprintf(buf, size, "%d", (int)wt_i(bits));
    float f = wt_f(bits);
    if (f != f || f - f != 0.0f) return snprintf(buf, size, "0x%08x", (unsigned)bits);
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.9g", (double)f);
    if (!strpbrk(tmp, ".e")) strcat(tmp, ".0");
    return snprintf(buf, size, "%s", tmp);
}

typedef struct textbuf { char *p; size_t size, len; } textbuf;

static void put(textbuf *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + 1 < t->size) {
        size_t room = t->size - t->len - 1;
        memcpy(t->p + t->len, s, n < room ? n : room);
        t->p[t->len + (n < room ? n : room)] = 0;
    }
    t->len += n;
}

static void put_operand(textbuf *t, const wt_insn *in, unsigned o, char imm_type)
{
    char lit[48];
    if (wt_opnd_is_imm(o)) {
        wt_format_literal(in->imm[o - WT_OPND_IMM0], imm_type, lit, sizeof lit);
        put(t, lit);
    } else {
        const char *name = wt_opnd_name(o);
        if (!name) { snprintf(lit, sizeof lit, "?%u", o); name = lit; }
        put(t, name);
    }
}

int wt_format_insn(const wt_insn *in, char *buf, size_t size,
                   const char *(*target_name)(void *ctx, unsigned target), void *ctx)
{
    textbuf t = {buf, size, 0};
    if (size) buf[0] = 0;
    int first = 1;
    for (int s = 0; s < WT_NSLOTS; s++) {
        const wt_slot *sl = &in->slot[s];
        if (sl->op == WT_OP_NONE) continue;
        const wt_op_info *info = &wt_ops[sl->op];
        if (!first) put(&t, " | ");
        first = 0;
        put(&t, info->name);
        for (const char *p = info->sig; *p; p++) {
            put(&t, p == info->sig ? " " : ", ");
            if (*p == 'm') {
                put(&t, "[");
                put_operand(&t, in, sl->opnd[1], 'i');
                put(&t, ", ");
                put_operand(&t, in, sl->opnd[2], 'i');
                put(&t, "]");
            } else if (*p == 't') {
                const char *name = target_name ? target_name(ctx, in->target) : NULL;
                char num[16];
                if (!name) { snprintf(num, sizeof num, "%u", in->target); name = num; }
                put(&t, name);
            } else {
                put_operand(&t, in, sl->opnd[wt_sig_subfield(*p)], info->imm_type);
            }
        }
    }
    if (first) put(&t, "nop");
    return (int)t.len;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t fnv1a_u32(uint64_t h, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return fnv1a(h, b, 4);
}

static uint64_t fnv1a_code(uint64_t h, const wt_insn *code, uint32_t ncode)
{
    for (uint32_t i = 0; i < ncode; i++) {
        uint8_t bytes[WT_BUNDLE_BYTES];
        wt_encode(&code[i], bytes);
        h = fnv1a(h, bytes, sizeof bytes);
    }
    return h;
}

uint64_t wt_timing_fingerprint(wt_model_id model, const wt_insn *code, const wt_insn *iu_code, uint32_t ncode,
                               const uint8_t *data, uint32_t data_size, uint32_t entry, int first_cell,
                               int last_cell, int32_t skew)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv1a_u32(h, (uint32_t)model);
    h = fnv1a_u32(h, ncode);
    h = fnv1a_code(h, code, ncode);
    /* The IU's bundles issue beside the end cells' and feed their queues, so the
     * skew the linker computed holds only for them as they were. */
    if (iu_code) h = fnv1a_code(fnv1a(h, "iu", 2), iu_code, ncode);
    while (data_size > 0 && data[data_size - 1] == 0) data_size--;
    h = fnv1a_u32(h, data_size);
    if (data_size) h = fnv1a(h, data, data_size);
    h = fnv1a_u32(h, entry);
    h = fnv1a_u32(h, (uint32_t)first_cell);
    h = fnv1a_u32(h, (uint32_t)last_cell);
    return fnv1a_u32(h, (uint32_t)skew);
}

uint64_t wt_timing_fingerprint_table(uint64_t fingerprint, const uint8_t *table, uint32_t words)
{
    if (!words) return fingerprint;
    return fnv1a(fnv1a_u32(fnv1a(fingerprint, "iutab", 5), words), table, (size_t)words * 4);
}

static int iu_source(unsigned o) { return wt_opnd_is_reg(o) || wt_opnd_is_imm(o); }

const char *wt_iu_slot_fault(const wt_insn *in, unsigned s)
{
    const wt_slot *sl = &in->slot[s];
    if (sl->op == WT_OP_NONE) return NULL;
    if (sl->op >= WT_NOPS || wt_ops[sl->op].uclass != wt_slot_layouts[s].uclass) return "an undefined operation";
    const wt_op_info *info = &wt_ops[sl->op];
    if (info->uclass == WT_UC_FA || info->uclass == WT_UC_FM)
        return "a floating-point operation (the IU's ALU is an integer one)";
    if (info->uclass == WT_UC_BR) return "a branch (the IU follows the cells' program counter)";
    if (info->kind == WT_K_LOAD || info->kind == WT_K_STORE) return "a data-memory access (the IU has no data memory)";
    if (info->kind != WT_K_PURE && info->kind != WT_K_DIV && info->kind != WT_K_HLOAD && info->kind != WT_K_TLOAD)
        return "an operation of the iWarp's communication agent";
    for (const char *p = info->sig; *p; p++) {
        int sub = wt_sig_subfield(*p);
        if (*p == 'd') {
            unsigned o = sl->opnd[0];
            if (!wt_opnd_is_reg(o) && !wt_opnd_is_feed(o) && !wt_opnd_is_addr(o) && !wt_opnd_is_path(o))
                return "a destination other than a register, a host feed, a host address or a path (@adr)";
        } else if (*p == 'm') {
            if (!iu_source(sl->opnd[1]) || !iu_source(sl->opnd[2])) return "a source other than a register or a literal";
        } else if (sub >= 0 && !iu_source(sl->opnd[sub])) {
            return "a source other than a register or a literal";
        }
    }
    return NULL;
}
