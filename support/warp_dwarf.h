/* DWARF, as the toolchain writes and reads it (docs/design.md, section 5): the
 * constants of the DWARF 4 standard that the backend, the assembler, the debugger
 * and warp-objdump use, the parameters of the line programs the assembler writes,
 * and the LEB128 encodings. One definition, so that writer and reader agree.
 * (Debian's dwarf.h belongs to libdw-dev, which the toolchain does not need.) */
#ifndef WARP_DWARF_H
#define WARP_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include "warp_support.h"

enum {
    DW_TAG_array_type = 0x01,
    DW_TAG_lexical_block = 0x0b,
    DW_TAG_compile_unit = 0x11,
    DW_TAG_subrange_type = 0x21,
    DW_TAG_base_type = 0x24,
    DW_TAG_subprogram = 0x2e,
    DW_TAG_variable = 0x34,

    DW_CHILDREN_no = 0,
    DW_CHILDREN_yes = 1,

    DW_AT_location = 0x02,
    DW_AT_name = 0x03,
    DW_AT_byte_size = 0x0b,
    DW_AT_stmt_list = 0x10,
    DW_AT_low_pc = 0x11,
    DW_AT_high_pc = 0x12,
    DW_AT_language = 0x13,
    DW_AT_comp_dir = 0x1b,
    DW_AT_const_value = 0x1c,
    DW_AT_lower_bound = 0x22,
    DW_AT_producer = 0x25,
    DW_AT_upper_bound = 0x2f,
    DW_AT_count = 0x37,
    DW_AT_decl_column = 0x39,
    DW_AT_decl_file = 0x3a,
    DW_AT_decl_line = 0x3b,
    DW_AT_encoding = 0x3e,
    DW_AT_external = 0x3f,
    DW_AT_type = 0x49,
    DW_AT_linkage_name = 0x6e,
    /* Vendor attributes (DW_AT_lo_user 0x2000 .. DW_AT_hi_user 0x3fff) of a
     * software-pipelined loop's DW_TAG_lexical_block: one iteration starts every
     * II bundles and takes `stages` of them, the prologue is (stages - 1) x II
     * bundles from the block's low_pc, then the kernel of unroll x II. Readers
     * that do not know them skip them by their form. */
    DW_AT_WARP_swp_ii = 0x3b01,
    DW_AT_WARP_swp_stages = 0x3b02,
    DW_AT_WARP_swp_unroll = 0x3b03,
    DW_AT_WARP_swp_stage = 0x3b04,    /* the stage whose iteration the variables' locations describe */

    DW_FORM_addr = 0x01,
    DW_FORM_block2 = 0x03,
    DW_FORM_block4 = 0x04,
    DW_FORM_data2 = 0x05,
    DW_FORM_data4 = 0x06,
    DW_FORM_data8 = 0x07,
    DW_FORM_string = 0x08,
    DW_FORM_block = 0x09,
    DW_FORM_block1 = 0x0a,
    DW_FORM_data1 = 0x0b,
    DW_FORM_flag = 0x0c,
    DW_FORM_sdata = 0x0d,
    DW_FORM_strp = 0x0e,
    DW_FORM_udata = 0x0f,
    DW_FORM_ref_addr = 0x10,
    DW_FORM_ref1 = 0x11,
    DW_FORM_ref2 = 0x12,
    DW_FORM_ref4 = 0x13,
    DW_FORM_ref8 = 0x14,
    DW_FORM_ref_udata = 0x15,
    DW_FORM_indirect = 0x16,
    DW_FORM_sec_offset = 0x17,
    DW_FORM_exprloc = 0x18,
    DW_FORM_flag_present = 0x19,
    DW_FORM_ref_sig8 = 0x20,

    DW_OP_addr = 0x03,
    DW_OP_const4u = 0x0c,
    DW_OP_const4s = 0x0d,
    DW_OP_constu = 0x10,
    DW_OP_consts = 0x11,
    DW_OP_lit0 = 0x30,
    DW_OP_reg0 = 0x50,     /* ..DW_OP_reg31 = 0x6f */
    DW_OP_regx = 0x90,
    DW_OP_implicit_value = 0x9e,
    DW_OP_stack_value = 0x9f,

    DW_ATE_float = 0x04,
    DW_ATE_signed = 0x05,

    /* DWARF has no code for W2; Pascal is its nearest relative there. */
    DW_LANG_Pascal83 = 0x0009,
    DW_LANG_C99 = 0x000c,

    DW_LNS_copy = 1,
    DW_LNS_advance_pc = 2,
    DW_LNS_advance_line = 3,
    DW_LNS_set_file = 4,
    DW_LNS_set_column = 5,
    DW_LNS_negate_stmt = 6,
    DW_LNS_set_basic_block = 7,
    DW_LNS_const_add_pc = 8,
    DW_LNS_fixed_advance_pc = 9,
    DW_LNS_set_prologue_end = 10,
    DW_LNS_set_epilogue_begin = 11,
    DW_LNS_set_isa = 12,

    DW_LNE_end_sequence = 1,
    DW_LNE_set_address = 2,
    DW_LNE_define_file = 3,
    DW_LNE_set_discriminator = 4
};

/* The toolchain's DWARF: version 4, 32-bit format, 4-byte addresses. Program
 * addresses are byte offsets of bundles (docs/design.md, section 1), so a line
 * program advances in whole bundles: minimum_instruction_length is the bundle
 * size. Data addresses (DW_OP_addr) are cell data memory byte addresses, in an
 * image plus WT_DATA_SPACE (docs/design.md, section 4). */
#define WD_VERSION 4
#define WD_ADDR_SIZE 4
#define WD_LINE_MIN_INSN 40    /* WT_BUNDLE_BYTES */
#define WD_LINE_BASE (-5)      /* gas's defaults */
#define WD_LINE_RANGE 14
#define WD_OPCODE_BASE 13
/* DWARF register numbers: r0..r63 are 0..63, the cell's number (cid) is 64. */
#define WD_REG_CID 64

static inline void wd_uleb(ws_buf *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        if (v) c |= 0x80;
        ws_buf_append(b, &c, 1);
    } while (v);
}

static inline void wd_sleb(ws_buf *b, int64_t v)
{
    for (;;) {
        uint8_t c = v & 0x7f;
        v >>= 7;   /* arithmetic: gcc and clang shift signed values so */
        int done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
        if (!done) c |= 0x80;
        ws_buf_append(b, &c, 1);
        if (done) return;
    }
}

static inline void wd_u8(ws_buf *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    ws_buf_append(b, &c, 1);
}

static inline void wd_u16(ws_buf *b, unsigned v)
{
    uint8_t c[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    ws_buf_append(b, c, 2);
}

static inline void wd_u32(ws_buf *b, uint32_t v)
{
    uint8_t c[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    ws_buf_append(b, c, 4);
}

/* A bounded reader: every read checks the end and sets `bad` instead of running
 * past it, so a hostile section yields zeros and a flag, never a crash. */
typedef struct wd_cursor {
    const uint8_t *p, *end;
    int bad;
} wd_cursor;

static inline int wd_avail(const wd_cursor *c, size_t n) { return !c->bad && (size_t)(c->end - c->p) >= n; }

static inline uint64_t wd_get_n(wd_cursor *c, unsigned n)
{
    if (!wd_avail(c, n)) {
        c->bad = 1;
        c->p = c->end;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static inline unsigned wd_get_u8(wd_cursor *c) { return (unsigned)wd_get_n(c, 1); }
static inline unsigned wd_get_u16(wd_cursor *c) { return (unsigned)wd_get_n(c, 2); }
static inline uint32_t wd_get_u32(wd_cursor *c) { return (uint32_t)wd_get_n(c, 4); }

static inline uint64_t wd_get_uleb(wd_cursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (!wd_avail(c, 1)) {
            c->bad = 1;
            return 0;
        }
        uint8_t b = *c->p++;
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
}

static inline int64_t wd_get_sleb(wd_cursor *c)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
        if (!wd_avail(c, 1)) {
            c->bad = 1;
            return 0;
        }
        b = *c->p++;
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

/* A NUL-terminated string inside the cursor; NULL (and bad) if unterminated. */
static inline const char *wd_get_str(wd_cursor *c)
{
    if (c->bad) return NULL;
    for (const uint8_t *q = c->p; q < c->end; q++)
        if (*q == 0) {
            const char *s = (const char *)c->p;
            c->p = q + 1;
            return s;
        }
    c->bad = 1;
    c->p = c->end;
    return NULL;
}

#endif
