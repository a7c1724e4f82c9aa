/* Unit tests of target/: the operation table and the bundle layout are consistent,
 * and every operation with every operand kind its signature allows survives
 * encode -> decode -> text -> assembler -> bytes unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warp_assembler.h"
#include "warp_support.h"
#include "warp_target.h"

/* ---- Table and layout ------------------------------------------------------------ */

static void test_codes_unique_and_fit_their_field(void **state)
{
    (void)state;
    for (int a = 1; a < WT_NOPS; a++) {
        const wt_op_info *A = &wt_ops[a];
        assert_true(A->code != 0);
        int slot = -1;
        for (int s = 0; s < WT_NSLOTS; s++)
            if (wt_slot_layouts[s].uclass == A->uclass) slot = s;
        assert_true(slot >= 0);
        assert_true(A->code < (1u << wt_slot_layouts[slot].op_width));
        assert_int_equal(wt_op_lookup(A->name), a);
        assert_int_equal(wt_op_from_code(A->uclass, A->code), a);
        for (int b = a + 1; b < WT_NOPS; b++) {
            const wt_op_info *B = &wt_ops[b];
            if (A->uclass == B->uclass && A->code == B->code)
                fail_msg("'%s' and '%s' share code %u in class %s", A->name, B->name, A->code,
                         wt_unit_class_name(A->uclass));
            if (strcmp(A->name, B->name) == 0) fail_msg("mnemonic '%s' appears twice", A->name);
        }
        /* Every signature letter must name a subfield the slot has. */
        for (const char *p = A->sig; *p; p++) {
            if (*p == 't') continue;
            if (*p == 'm') {
                assert_true(wt_slot_layouts[slot].opnd_lsb[1] >= 0 && wt_slot_layouts[slot].opnd_lsb[2] >= 0);
                continue;
            }
            int k = wt_sig_subfield(*p);
            assert_true(k >= 0);
            if (wt_slot_layouts[slot].opnd_lsb[k] < 0)
                fail_msg("'%s': operand '%c' has no subfield in slot %s", A->name, *p, wt_slot_layouts[slot].name);
        }
    }
}

static void mark(uint8_t used[WT_BUNDLE_BITS], unsigned lsb, unsigned width, const char *what)
{
    for (unsigned b = lsb; b < lsb + width; b++) {
        if (b >= 312) fail_msg("%s: bit %u is outside the 312 usable bits", what, b);
        if (used[b]) fail_msg("%s: bit %u is already used", what, b);
        used[b] = 1;
    }
}

static void test_slot_fields_disjoint_within_312_bits(void **state)
{
    (void)state;
    uint8_t used[WT_BUNDLE_BITS] = {0};
    for (int s = 0; s < WT_NSLOTS; s++) {
        const wt_slot_layout *L = &wt_slot_layouts[s];
        mark(used, L->op_lsb, L->op_width, L->name);
        for (int k = 0; k < 4; k++)
            if (L->opnd_lsb[k] >= 0) mark(used, (unsigned)L->opnd_lsb[k], 8, L->name);
    }
    /* The target and literal fields are private to target.c: find them by
     * encoding an otherwise empty bundle with every bit of them set. */
    wt_insn in;
    memset(&in, 0, sizeof in);
    in.target = 0xffff;
    in.imm[0] = in.imm[1] = 0xffffffffu;
    uint8_t b[WT_BUNDLE_BYTES];
    wt_encode(&in, b);
    unsigned count = 0;
    for (unsigned bit = 0; bit < WT_BUNDLE_BITS; bit++)
        if ((b[bit / 8] >> (bit % 8)) & 1) {
            mark(used, bit, 1, "target/IMM");
            count++;
        }
    assert_int_equal(count, 16 + 32 + 32);
    /* The reserved byte must stay clear and be rejected when set. */
    wt_insn out;
    memset(b, 0, sizeof b);
    assert_int_equal(wt_decode(b, &out), 0);
    b[39] = 1;
    assert_int_equal(wt_decode(b, &out), -1);
}

/* ---- Round trip ------------------------------------------------------------------- */

static const uint8_t dests[] = {0, 1, 63, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76,
                                WT_OPND_PGATE, WT_OPND_PGATE + 1, WT_OPND_CTL + WT_CTL_GI0,
                                WT_OPND_CTL + WT_CTL_SPC};
static const uint8_t sources[] = {0, 5, 63, WT_OPND_CID, 65, 66, 67, 68, WT_OPND_IMM0, WT_OPND_IMM1,
                                  WT_OPND_PGATE + 1, WT_OPND_CTL + WT_CTL_GT0, WT_OPND_CTL + WT_CTL_EVDATA};
static const uint8_t counters[] = {1, 63, 0};
static const uint8_t pairs[] = {2, 62, 4};
static const uint16_t targets[] = {0, 1, 65535, 1234};
/* Literal values chosen to exercise every printed form: plain floats, a denormal,
 * negative zero, infinity and NaN (printed in hex), and integers of both signs. */
static const uint32_t imm_values[] = {0x3fc00000u, 0xbb1374bcu, 0x00003039u, 0x80000000u, 0x7f800000u,
                                      0x7fc00001u, 0xffffffffu, 0u, 0x00000063u, 0x4b189680u};

/* Fills the operands of slot s with operation op, variant v. */
static void fill_slot(wt_insn *in, int s, wt_op op, unsigned v)
{
    wt_slot *sl = &in->slot[s];
    memset(sl, 0, sizeof *sl);
    sl->op = (uint16_t)op;
    unsigned i = 0;
    for (const char *p = wt_ops[op].sig; *p; p++, i++) {
        unsigned k = v + 3 * i;
        switch (*p) {
        case 'd': sl->opnd[0] = dests[k % sizeof dests]; break;
        case 'K': sl->opnd[3] = counters[k % sizeof counters]; break;
        case 'D': case 'A': case 'B': sl->opnd[wt_sig_subfield(*p)] = pairs[k % sizeof pairs]; break;
        case 't': in->target = targets[k % 4]; break;
        case 'm':
            sl->opnd[1] = sources[k % sizeof sources];
            sl->opnd[2] = sources[(k + 7) % sizeof sources];
            break;
        default: sl->opnd[wt_sig_subfield(*p)] = sources[k % sizeof sources]; break;
        }
    }
}

/* The assembler fills literal fields in the order the text names them; make the
 * bundle follow that order, with distinct values, so its text assembles back to
 * the same bits. */
static void canonicalise(wt_insn *in, unsigned v)
{
    /* The assembler also takes the first free slot of a class. */
    for (int s = 0; s + 1 < WT_NSLOTS; s++)
        if (in->slot[s].op == WT_OP_NONE && wt_slot_layouts[s + 1].uclass == wt_slot_layouts[s].uclass) {
            in->slot[s] = in->slot[s + 1];
            memset(&in->slot[s + 1], 0, sizeof in->slot[s + 1]);
        }
    int map[2] = {-1, -1}, next = 0;
    for (int s = 0; s < WT_NSLOTS; s++) {
        wt_slot *sl = &in->slot[s];
        for (const char *p = wt_ops[sl->op].sig; *p; p++) {
            int ks[2] = {wt_sig_subfield(*p), -1};
            if (*p == 'm') ks[0] = 1, ks[1] = 2;
            if (*p == 't' || *p == 'd' || *p == 'K') continue;
            for (int j = 0; j < 2 && ks[j] >= 0; j++) {
                uint8_t *o = &sl->opnd[ks[j]];
                if (!wt_opnd_is_imm(*o)) continue;
                int f = *o - WT_OPND_IMM0;
                if (map[f] < 0) map[f] = next++;
                *o = (uint8_t)(WT_OPND_IMM0 + map[f]);
            }
        }
    }
    in->imm[0] = next > 0 ? imm_values[v % 10] : 0;
    in->imm[1] = next > 1 ? imm_values[(v + 3) % 10] : 0;
}

static void assert_insn_equal(const wt_insn *a, const wt_insn *b, const char *text)
{
    for (int s = 0; s < WT_NSLOTS; s++) {
        if (a->slot[s].op != b->slot[s].op || memcmp(a->slot[s].opnd, b->slot[s].opnd, 4) != 0)
            fail_msg("slot %s differs after decoding '%s'", wt_slot_layouts[s].name, text);
    }
    if (a->target != b->target || a->imm[0] != b->imm[0] || a->imm[1] != b->imm[1])
        fail_msg("target/literals differ after decoding '%s'", text);
}

typedef struct corpus {
    ws_buf text;            /* one formatted bundle a line */
    ws_buf bytes;           /* their encodings */
    char **lines;
    size_t n;
} corpus;

/* The interface unit's own operations (tld) assemble only after '||', reading
 * registers and literals: those variants go into the IU corpus as `nop || ...`, the
 * rest are checked through encoding, decoding and formatting only. */
static void add_insn_to(corpus *c, corpus *iu, const wt_insn *in)
{
    uint8_t b[WT_BUNDLE_BYTES];
    char line[512];
    int iu_only = 0, iu_ok = 1;
    for (int s = 0; s < WT_NSLOTS; s++) {
        iu_only |= in->slot[s].op != WT_OP_NONE && wt_op_iu_only((wt_op)in->slot[s].op);
        iu_ok &= wt_iu_slot_fault(in, (unsigned)s) == NULL;
    }
    if (iu_only && !iu_ok) c = NULL;
    else if (iu_only) c = iu;
    wt_encode(in, b);
    wt_insn back;
    int n = wt_format_insn(in, line, sizeof line, NULL, NULL);
    assert_true(n > 0 && (size_t)n < sizeof line);
    if (wt_decode(b, &back) != 0) fail_msg("'%s' does not decode", line);
    assert_insn_equal(in, &back, line);
    char again[512];
    wt_format_insn(&back, again, sizeof again, NULL, NULL);
    assert_string_equal(line, again);
    if (!c) return;
    ws_buf_printf(&c->text, c == iu ? "        nop || %s\n" : "        %s\n", line);
    ws_buf_append(&c->bytes, b, sizeof b);
    c->lines = realloc(c->lines, (c->n + 1) * sizeof *c->lines);
    c->lines[c->n++] = strdup(line);
}

static void add_insn(corpus *c, const wt_insn *in) { add_insn_to(c, NULL, in); }

static uint8_t *read_section(const char *path, const char *name, size_t *size)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    assert_non_null(e);
    size_t shstrndx;
    assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
    uint8_t *out = NULL;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        gelf_getshdr(scn, &sh);
        if (strcmp(elf_strptr(e, shstrndx, sh.sh_name), name) != 0) continue;
        Elf_Data *d = elf_rawdata(scn, NULL);
        *size = d ? d->d_size : 0;
        out = malloc(*size + 1);
        if (*size) memcpy(out, d->d_buf, *size);
    }
    elf_end(e);
    close(fd);
    assert_non_null(out);
    return out;
}

/* Assembles the corpus text and checks every bundle came back as encoded, in
 * section `name` (.text, or the IU's .warp.iu). */
static void assemble_and_compare_in(corpus *c, const char *name)
{
    char dir[] = "/tmp/test_target.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char obj[64];
    snprintf(obj, sizeof obj, "%s/rt.o", dir);
    ws_diag diag;
    ws_diag_init(&diag, "roundtrip.s", c->text.data, c->text.len);
    was_options opts = {.model = NULL};
    int rc = was_assemble("roundtrip.s", c->text.data, c->text.len, &opts, obj, &diag);
    assert_int_equal(rc, 0);
    size_t size;
    uint8_t *text = read_section(obj, name, &size);
    assert_int_equal(size, c->bytes.len);
    for (size_t i = 0; i < c->n; i++)
        if (memcmp(text + i * WT_BUNDLE_BYTES, c->bytes.data + i * WT_BUNDLE_BYTES, WT_BUNDLE_BYTES) != 0)
            fail_msg("'%s' assembles to different bytes", c->lines[i]);
    free(text);
    unlink(obj);
    rmdir(dir);
}

static void assemble_and_compare(corpus *c) { assemble_and_compare_in(c, ".text"); }

static void corpus_free(corpus *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->lines[i]);
    free(c->lines);
    ws_buf_free(&c->text);
    ws_buf_free(&c->bytes);
}

/* Every operation in each slot of its class (in the second, beside a first that
 * the assembler fills before it), with enough variants that each operand
 * position sees every kind it may hold. */
static void test_every_operation_round_trips(void **state)
{
    (void)state;
    corpus c = {0}, iu = {0};
    size_t per_op[WT_NOPS] = {0};
    for (int op = 1; op < WT_NOPS; op++) {
        for (int s = 0; s < WT_NSLOTS; s++) {
            if (wt_slot_layouts[s].uclass != wt_ops[op].uclass) continue;
            for (unsigned v = 0; v < 2 * sizeof dests; v++) {
                wt_insn in;
                memset(&in, 0, sizeof in);
                if (s > 0 && wt_slot_layouts[s - 1].uclass == wt_ops[op].uclass)
                    fill_slot(&in, s - 1, (wt_op)op, v + 5);
                fill_slot(&in, s, (wt_op)op, v);
                canonicalise(&in, v);
                add_insn_to(&c, &iu, &in);
                per_op[op]++;
            }
        }
    }
    for (int op = 1; op < WT_NOPS; op++) assert_true(per_op[op] >= sizeof dests);
    assemble_and_compare(&c);
    assert_true(iu.n > 0);
    assemble_and_compare_in(&iu, ".warp.iu");
    corpus_free(&c);
    corpus_free(&iu);
}

/* Which operand kinds appeared in each position: the generator above must reach
 * them all, or the round trip proves less than it claims. */
static void test_generator_covers_every_operand_kind(void **state)
{
    (void)state;
    for (int op = 1; op < WT_NOPS; op++) {
        const char *sig = wt_ops[op].sig;
        for (size_t i = 0; sig[i]; i++) {
            int seen_imm0 = 0, seen_imm1 = 0, seen_gate = 0, seen_cid = 0, seen_feed = 0, seen_addr = 0, seen_reg = 0;
            for (unsigned v = 0; v < 2 * sizeof dests; v++) {
                wt_insn in;
                memset(&in, 0, sizeof in);
                fill_slot(&in, 0, (wt_op)op, v);
                /* Before canonicalising: both literal codes must be generated. */
                int k = sig[i] == 'm' ? 1 : wt_sig_subfield(sig[i]);
                if (k < 0) continue;
                unsigned o = in.slot[0].opnd[k];
                seen_imm0 |= o == WT_OPND_IMM0;
                seen_imm1 |= o == WT_OPND_IMM1;
                seen_gate |= wt_opnd_is_gate(o);
                seen_cid |= o == WT_OPND_CID;
                seen_feed |= wt_opnd_is_feed(o);
                seen_addr |= wt_opnd_is_addr(o);
                seen_reg |= wt_opnd_is_reg(o);
            }
            if (sig[i] == 't') continue;
            assert_true(seen_reg);
            if (sig[i] == 'd') {
                assert_true(seen_gate && seen_feed && seen_addr);
            } else if (sig[i] != 'K' && !wt_sig_pair(sig[i])) {
                assert_true(seen_imm0 && seen_imm1 && seen_gate && seen_cid);
            }
        }
    }
}

/* Seed 000, sections 1 and 4: the iWarp computation agent delivers 20 MFLOPS single
 * precision (10 double) plus 20 MIPS at 20 MHz, and each internal bus between it and
 * the communication agent 40 MB/s. The figures follow from the machine description:
 * the clock, each float unit's issue interval, the integer operations a clock and a
 * gate's clocks a word. */
static unsigned peak_mflops(const wt_model *m, const wt_op *ops, int n)
{
    /* the best op of each float unit, an operation every `interval` clocks */
    double rate = 0;
    for (int uc = WT_UC_FA; uc <= WT_UC_FM; uc++) {
        unsigned best = 0;
        for (int i = 0; i < n; i++)
            if (wt_ops[ops[i]].uclass == (wt_unit_class)uc &&
                (!best || wt_ops[ops[i]].interval[m->id] < best))
                best = wt_ops[ops[i]].interval[m->id];
        if (best) rate += (double)m->clock_mhz / best;
    }
    return (unsigned)(rate + 0.5);
}

/* Clocks a bundle with these gate writes and integer operations takes. */
static unsigned issue_clocks(const wt_model *m, unsigned gate_writes, unsigned alu_ops)
{
    wt_bundle_use u = {0};
    u.gate_writes = (uint8_t)gate_writes;
    u.used[WT_UC_ALU] = (uint8_t)alu_ops;
    return wt_bundle_clocks(m, &u);
}

static void test_iwarp_peak_rates_are_seed_000s(void **state)
{
    (void)state;
    const wt_model *m = wt_model_get(WT_MODEL_IWARP);
    const wt_op single[] = {WT_OP_FADD, WT_OP_FSUB, WT_OP_FMUL};
    const wt_op dbl[] = {WT_OP_DADD, WT_OP_DSUB, WT_OP_DMUL};
    assert_int_equal(m->clock_mhz, 20);
    assert_int_equal(peak_mflops(m, single, 3), 20);
    assert_int_equal(peak_mflops(m, dbl, 3), 10);
    assert_int_equal(m->clock_mhz * m->int_ops_per_clock, 20);   /* MIPS */
    assert_int_equal(wt_class_issue(m, WT_UC_ALU), 1);
    assert_int_equal(4 * m->clock_mhz / m->bus_word_clocks, 40);   /* MB/s an external bus */
    assert_int_equal(4 * m->clock_mhz / m->gate_word_clocks, 40);  /* MB/s a gate's internal bus (sec. 4) */
    assert_int_equal(wt_model_get(WT_MODEL_WARP)->gate_word_clocks, 0);
    assert_true(m->double_precision);
    /* two integer operations, or more than two gate operations, take two clocks */
    assert_int_equal(issue_clocks(m, 2, 1), 1);
    assert_int_equal(issue_clocks(m, 2, 2), 2);
    assert_int_equal(issue_clocks(m, 4, 1), 2);
    /* The Warp cell: 10 MFLOPS at 5 MHz (seed 002), no double precision. */
    const wt_model *w = wt_model_get(WT_MODEL_WARP);
    assert_int_equal(peak_mflops(w, single, 3), 10);
    assert_false(w->double_precision);
    assert_int_equal(issue_clocks(w, 6, 2), 1);
}

/* Full bundles: every slot busy at once, operations and operands drawn from a
 * fixed pseudo-random sequence, literals shared between slots. */
static void test_full_bundles_round_trip(void **state)
{
    (void)state;
    corpus c = {0};
    uint32_t seed = 12345;
    for (int n = 0; n < 400; n++) {
        wt_insn in;
        memset(&in, 0, sizeof in);
        for (int s = 0; s < WT_NSLOTS; s++) {
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 5 == 0) continue;  /* leave some slots idle */
            wt_op choices[WT_NOPS];
            int nc = 0;
            for (int op = 1; op < WT_NOPS; op++)
                if (wt_ops[op].uclass == wt_slot_layouts[s].uclass) choices[nc++] = (wt_op)op;
            seed = seed * 1103515245u + 12345u;
            fill_slot(&in, s, choices[(seed >> 16) % (unsigned)nc], (seed >> 8) % 97);
        }
        canonicalise(&in, (unsigned)n);
        add_insn(&c, &in);
    }
    assemble_and_compare(&c);
    corpus_free(&c);
}

static void test_operand_names_parse_back(void **state)
{
    (void)state;
    for (unsigned o = 0; o <= WT_OPND_LAST_NAMED; o++) {
        const char *name = wt_opnd_name(o);
        assert_non_null(name);
        assert_int_equal(wt_opnd_parse(name, strlen(name)), (int)o);
    }
    assert_null(wt_opnd_name(WT_OPND_IMM0));
    assert_int_equal(wt_opnd_parse("r64", 3), -1);
    assert_int_equal(wt_opnd_parse("r05", 3), -1);
    assert_int_equal(wt_opnd_parse("@zz", 3), -1);
    assert_true(wt_opnd_valid_dst(WT_OPND_FEED) && !wt_opnd_valid_src(WT_OPND_FEED));
    assert_true(wt_opnd_valid_src(WT_OPND_CID) && !wt_opnd_valid_dst(WT_OPND_CID));
}

/* The one account of a bundle's gate operations (seed 000, sec. 7.1) that the list
 * scheduler, the pipeliner, flow control and the simulator share: each input gate
 * dequeued once, each output-gate write; host-feed and host-address writes go to
 * the interface unit and are not gate operations (sched.c counted them once). */
static void test_gate_operations_of_a_bundle(void **state)
{
    (void)state;
    const wt_model *iwarp = wt_model_get(WT_MODEL_IWARP);
    wt_insn in = {0};
    in.slot[WT_SLOT_V0] = (wt_slot){WT_OP_MV, {WT_OPND_GATE + WT_Q_XR, WT_OPND_GATE + WT_Q_XL, 0, 0}};
    in.slot[WT_SLOT_V1] = (wt_slot){WT_OP_MV, {WT_OPND_FEED + WT_Q_XL, 1, 0, 0}};
    in.slot[WT_SLOT_A0] = (wt_slot){WT_OP_MOV, {WT_OPND_ADDR + WT_Q_XL, 2, 0, 0}};
    in.slot[WT_SLOT_A1] = (wt_slot){WT_OP_IADD, {3, WT_OPND_GATE + WT_Q_XL, WT_OPND_GATE + WT_Q_XL, 0}};
    wt_bundle_use use = wt_insn_use(&in);
    assert_int_equal(use.used[WT_UC_MV], 2);
    assert_int_equal(use.used[WT_UC_ALU], 2);
    assert_int_equal(wt_bundle_gate_ops(&use), 2);   /* @xl read (once), @xr written */
    /* two integer operations share iWarp's one integer unit (20 MIPS) */
    assert_int_equal(wt_bundle_clocks(iwarp, &use), 2);
    /* a third ALU operation has no slot */
    unsigned srcs[1] = {0};
    assert_int_equal(wt_bundle_add(&use, WT_UC_ALU, 5, srcs, 1), -1);
    in.slot[WT_SLOT_A1] = (wt_slot){0};
    use = wt_insn_use(&in);
    assert_int_equal(wt_bundle_gate_ops(&use), 2);   /* the MV field still reads @xl */
    assert_int_equal(wt_bundle_clocks(iwarp, &use), 1);
    in.slot[WT_SLOT_FA] = (wt_slot){WT_OP_FADD, {4, WT_OPND_GATE + WT_Q_YL, 0, 0}};
    use = wt_insn_use(&in);
    assert_int_equal(wt_bundle_gate_ops(&use), 3);
    assert_int_equal(wt_bundle_clocks(iwarp, &use), 2);
    assert_int_equal(wt_bundle_clocks(wt_model_get(WT_MODEL_WARP), &use), 1);
}

/* One decoded form of a bundle for the simulator and flow control: stores after
 * every other operation (memory is written after the bundle's reads), the model's
 * latencies, its issue clocks, and what keeps it from running on a model. */
static void test_decoded_bundle_orders_times_and_faults(void **state)
{
    (void)state;
    const wt_model *warp = wt_model_get(WT_MODEL_WARP), *iwarp = wt_model_get(WT_MODEL_IWARP);
    wt_insn in = {0};
    in.slot[WT_SLOT_M0] = (wt_slot){WT_OP_ST, {2, 1, 0, 0}};   /* st r2 -> [r1 + r0] */
    in.slot[WT_SLOT_M1] = (wt_slot){WT_OP_LD, {3, 1, 0, 0}};   /* ld [r1] -> r3, a later slot */
    in.slot[WT_SLOT_FA] = (wt_slot){WT_OP_FADD, {4, WT_OPND_GATE + WT_Q_XL, 5, 0}};
    in.target = 7;
    in.imm[1] = 42;
    wt_dbundle b;
    wt_decode_bundle(warp, &in, &b);
    assert_int_equal(b.fault, WT_FAULT_NONE);
    assert_int_equal(b.nops, 3);
    assert_int_equal(b.ops[0].op, WT_OP_FADD);
    assert_int_equal(b.ops[1].op, WT_OP_LD);
    assert_int_equal(b.ops[2].op, WT_OP_ST);   /* last, though its slot comes before ld's */
    assert_int_equal(b.ops[2].src[2], 2);      /* the value stored is c */
    assert_int_equal(b.ops[0].src[0], WT_OPND_GATE + WT_Q_XL);
    assert_int_equal(b.ops[0].lat, wt_ops[WT_OP_FADD].latency[WT_MODEL_WARP]);
    assert_int_equal(b.slot_mask, 1u << WT_SLOT_M0 | 1u << WT_SLOT_M1 | 1u << WT_SLOT_FA);
    assert_int_equal(b.target, 7);
    assert_int_equal(b.imm[1], 42);
    assert_int_equal(b.clocks, 1);
    /* The same bundle with a double add: iWarp's, a fault on the Warp. */
    in.slot[WT_SLOT_FA] = (wt_slot){WT_OP_DADD, {4, 6, 8, 0}};
    wt_decode_bundle(iwarp, &in, &b);
    assert_int_equal(b.fault, WT_FAULT_NONE);
    assert_int_equal(b.ops[0].pair, 7);
    wt_decode_bundle(warp, &in, &b);
    assert_int_equal(b.fault, WT_FAULT_NO_DOUBLE);
    /* creq may block; the agent is iWarp's */
    in.slot[WT_SLOT_FA] = (wt_slot){0};
    in.slot[WT_SLOT_A0] = (wt_slot){WT_OP_CREQ, {3, 1, 2, 0}};
    wt_decode_bundle(iwarp, &in, &b);
    assert_int_equal(b.fault, WT_FAULT_NONE);
    assert_int_equal(b.wait_op, 1);
    wt_decode_bundle(warp, &in, &b);
    assert_int_equal(b.fault, WT_FAULT_NO_AGENT);
    /* an operation in another class's slot is undefined, and left out */
    in.slot[WT_SLOT_A0] = (wt_slot){WT_OP_FADD, {4, 5, 6, 0}};
    wt_decode_bundle(iwarp, &in, &b);
    assert_int_equal(b.fault, WT_FAULT_UNDEFINED);
    assert_int_equal(b.nops, 2);
}

/* The resource model's legality check: slots by the encoding (NULL model) or by
 * what issues in a clock, and the literal fields, which equal literals share (the
 * caller counts only new ones). */
static void test_bundle_legality_counts_slots_and_literal_fields(void **state)
{
    (void)state;
    const wt_model *warp = wt_model_get(WT_MODEL_WARP), *iwarp = wt_model_get(WT_MODEL_IWARP);
    wt_bundle_use use = {0};
    assert_true(wt_bundle_fits(NULL, &use, WT_UC_ALU, WT_BUNDLE_LITERALS));
    assert_false(wt_bundle_fits(NULL, &use, WT_UC_ALU, WT_BUNDLE_LITERALS + 1));
    assert_false(wt_bundle_fits(NULL, &use, WT_UC_NONE, 0));
    wt_bundle_take(&use, WT_UC_ALU, 1);
    /* iWarp issues one integer operation a clock; the encoding has two fields */
    assert_false(wt_bundle_fits(iwarp, &use, WT_UC_ALU, 0));
    assert_true(wt_bundle_fits(warp, &use, WT_UC_ALU, 1));
    assert_false(wt_bundle_fits(warp, &use, WT_UC_ALU, 2));
    wt_bundle_take(&use, WT_UC_ALU, 1);
    assert_false(wt_bundle_fits(NULL, &use, WT_UC_ALU, 0));
    assert_false(wt_bundle_fits(NULL, &use, WT_UC_MEM, 1));
    assert_true(wt_bundle_fits(NULL, &use, WT_UC_MEM, 0));
    /* a decoded bundle counts the literal fields its operations name */
    wt_insn in = {0};
    in.slot[WT_SLOT_A0] = (wt_slot){WT_OP_IADD, {3, WT_OPND_IMM0, WT_OPND_IMM0, 0}};
    in.slot[WT_SLOT_M0] = (wt_slot){WT_OP_LEA, {4, WT_OPND_IMM1, 1, 0}};
    assert_int_equal(wt_insn_use(&in).literals, 2);
    in.slot[WT_SLOT_M0] = (wt_slot){0};
    assert_int_equal(wt_insn_use(&in).literals, 1);
}

/* The Warp interface unit's bundle is part of the same account: its own slots of
 * each class beside the cells', and its link, which carries one word into the array
 * a clock; a model without an IU (iWarp) offers none of them. Gate operations: a
 * bundle takes another operation's only while they fit a clock, unless it has none. */
static void test_interface_unit_and_link_are_resources(void **state)
{
    (void)state;
    const wt_model *warp = wt_model_get(WT_MODEL_WARP), *iwarp = wt_model_get(WT_MODEL_IWARP);
    assert_int_equal(wt_op_res(WT_OP_IADD, 0), WT_UC_ALU);
    assert_int_equal(wt_op_res(WT_OP_IADD, 1), WT_RES_IU + WT_UC_ALU);
    wt_bundle_use use = {0};
    wt_bundle_take(&use, WT_UC_ALU, 0);
    wt_bundle_take(&use, WT_UC_ALU, 0);
    assert_false(wt_bundle_fits(warp, &use, WT_UC_ALU, 0));
    assert_true(wt_bundle_fits(warp, &use, wt_op_res(WT_OP_IADD, 1), 0));   /* the IU's ALUs are free */
    assert_false(wt_bundle_fits(iwarp, &use, wt_op_res(WT_OP_IADD, 1), 0));
    wt_bundle_take(&use, wt_op_res(WT_OP_IADD, 1), 0);
    wt_bundle_take(&use, wt_op_res(WT_OP_IADD, 1), 0);
    assert_false(wt_bundle_fits(NULL, &use, wt_op_res(WT_OP_IADD, 1), 0));
    assert_int_equal(wt_res_issue(warp, WT_RES_LINK), WT_IU_LINK_WORDS);
    assert_int_equal(wt_res_issue(iwarp, WT_RES_LINK), 0);
    assert_true(wt_bundle_fits(warp, &use, WT_RES_LINK, 0));
    wt_bundle_take(&use, WT_RES_LINK, 0);
    assert_false(wt_bundle_fits(warp, &use, WT_RES_LINK, 0));
    assert_string_equal(wt_res_name(WT_RES_LINK), "IU link");
    assert_string_equal(wt_res_name(WT_RES_IU + WT_UC_MEM), "IU MEM");
    assert_string_equal(wt_res_name(WT_UC_FA), "FA");

    wt_bundle_use before = {0}, after = {0};
    unsigned xl = WT_OPND_GATE + WT_Q_XL, yl = WT_OPND_GATE + WT_Q_YL;
    unsigned three[3] = {xl, yl, WT_OPND_GATE + WT_Q_XR};
    wt_bundle_add_gates(&after, WT_OPND_GATE + WT_Q_YR, three, 3);
    assert_true(wt_bundle_gates_fit(iwarp, &before, &after));   /* alone, however many */
    wt_bundle_add_gates(&before, -1, &xl, 1);
    after = before;
    wt_bundle_add_gates(&after, -1, &xl, 1);   /* the same queue: one dequeue */
    wt_bundle_add_gates(&after, -1, &yl, 1);
    assert_true(wt_bundle_gates_fit(iwarp, &before, &after));
    wt_bundle_add_gates(&after, WT_OPND_GATE + WT_Q_XR, NULL, 0);
    assert_false(wt_bundle_gates_fit(iwarp, &before, &after));
    assert_true(wt_bundle_gates_fit(warp, &before, &after));
}

/* Seed 002: the Warp's address path, a 128-entry queue a cell, two words a cycle from
 * the IU; one WT_PATH row gives the operand, the queue and the resource. */
static void test_address_path_is_a_table_row(void **state)
{
    (void)state;
    const wt_model *warp = wt_model_get(WT_MODEL_WARP), *iwarp = wt_model_get(WT_MODEL_IWARP);
    int adr = wt_opnd_parse("@adr", 4);
    assert_int_equal(adr, WT_OPND_PATH + WT_PATH_ADR);
    assert_true(wt_opnd_is_path((unsigned)adr) && !wt_opnd_is_ctl((unsigned)adr));
    assert_true(wt_opnd_valid_src((unsigned)adr) && wt_opnd_valid_dst((unsigned)adr));
    assert_int_equal(wt_paths[WT_PATH_ADR].words, warp->queue_words);
    assert_int_equal(wt_res_issue(warp, WT_RES_PATH + WT_PATH_ADR), 2);
    assert_int_equal(wt_res_issue(iwarp, WT_RES_PATH + WT_PATH_ADR), 0);
    assert_string_equal(wt_res_name(WT_RES_PATH + WT_PATH_ADR), "IU @adr");
    /* the IU writes it, two words a clock */
    wt_insn in;
    memset(&in, 0, sizeof in);
    in.slot[WT_SLOT_A0] = (wt_slot){WT_OP_MOV, {(uint8_t)adr, 1, 0, 0}};
    in.slot[WT_SLOT_V0] = (wt_slot){WT_OP_MV, {(uint8_t)adr, 2, 0, 0}};
    assert_null(wt_iu_slot_fault(&in, WT_SLOT_A0));
    wt_bundle_use u = wt_insn_use(&in);
    assert_int_equal(u.used[WT_RES_PATH + WT_PATH_ADR], 2);
    assert_false(wt_bundle_fits(warp, &u, WT_RES_PATH + WT_PATH_ADR, 0));
    char text[128];
    wt_format_insn(&in, text, sizeof text, NULL, NULL);
    assert_string_equal(text, "mov @adr, r1 | mv @adr, r2");
}

/* Which unit may take a copy or an add is the table's (WT_ALT rows), not a stage's. */
static void test_alternatives_come_from_the_table(void **state)
{
    (void)state;
    wt_op alts[WT_MAX_ALTS];
    assert_int_equal(wt_op_alternatives(WT_OP_MV, alts), 2);
    assert_int_equal(alts[0], WT_OP_MV);
    assert_int_equal(alts[1], WT_OP_MOV);
    assert_int_equal(wt_op_alternatives(WT_OP_IADD, alts), 2);
    assert_int_equal(alts[1], WT_OP_LEA);
    assert_int_equal(wt_ops[alts[1]].uclass, WT_UC_MEM);
    assert_int_equal(wt_op_alternatives(WT_OP_FADD, alts), 1);
    assert_int_equal(alts[0], WT_OP_FADD);
    /* an alternative computes the same value: same signature shape, other unit */
    for (int op = 1; op < WT_NOPS; op++) {
        unsigned n = wt_op_alternatives((wt_op)op, alts);
        for (unsigned k = 1; k < n; k++) {
            assert_int_not_equal(wt_ops[alts[k]].uclass, wt_ops[op].uclass);
            assert_int_equal(wt_op_has_dest(alts[k]), wt_op_has_dest((wt_op)op));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iwarp_peak_rates_are_seed_000s),
        cmocka_unit_test(test_codes_unique_and_fit_their_field),
        cmocka_unit_test(test_slot_fields_disjoint_within_312_bits),
        cmocka_unit_test(test_operand_names_parse_back),
        cmocka_unit_test(test_generator_covers_every_operand_kind),
        cmocka_unit_test(test_every_operation_round_trips),
        cmocka_unit_test(test_full_bundles_round_trip),
        cmocka_unit_test(test_gate_operations_of_a_bundle),
        cmocka_unit_test(test_bundle_legality_counts_slots_and_literal_fields),
        cmocka_unit_test(test_alternatives_come_from_the_table),
        cmocka_unit_test(test_interface_unit_and_link_are_resources),
        cmocka_unit_test(test_address_path_is_a_table_row),
        cmocka_unit_test(test_decoded_bundle_orders_times_and_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
