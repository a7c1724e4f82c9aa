/* The runtime: loads a cell image (docs/design.md, section 4) into the simulator,
 * fills the host's `in` arrays from data files and writes the `out` arrays, as
 * warp-sim and the debugger both need. The cells' start-up code is crt0.s. */
#ifndef WARP_RUNTIME_H
#define WARP_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "warp_sim.h"
#include "warp_target.h"

typedef struct wrt_host_array {
    char *name;
    int is_out;              /* declared `out` */
    int is_float;            /* element type float (else int) */
    uint32_t dims[2];        /* 0 0: scalar; D0 0: 1-D; D0 D1: 2-D */
    uint32_t nelems;
    uint32_t addr;           /* host byte address */
} wrt_host_array;

typedef struct wrt_symbol {
    char *name;
    uint32_t value, size;
    int section;             /* 0 program, 1 data, 2 host, -1 other */
    int is_func;
} wrt_symbol;

typedef struct wrt_line {
    uint32_t pc;             /* bundle index */
    uint32_t line, col, file;
} wrt_line;

typedef struct wrt_image {
    const wt_model *model;
    int first_cell, last_cell;
    /* A 2-D cellprogram's cells form a grid_width x grid_height array on the torus,
     * the host at its edges (grid_comm, which wrt_sim_program hands on); 0 0 for a
     * linear array. */
    int grid_width, grid_height;
    wca_config grid_comm;
    int32_t skew;            /* cell k starts k*skew clocks after cell 0 (negative: the last first) */
    int flow_controlled;     /* WT_EF_FLOWCTL: the skew was computed; a queue wait is a compiler bug */
    int timing_changed;      /* WT_EF_FLOWCTL, but the code, data or cells are not what the linker
                              * timed (wt_timing_fingerprint): not flow_controlled */
    wt_insn *code;
    wt_insn *iu_code;            /* Warp: the interface unit's program, ncode bundles beside code; NULL */
    uint32_t *iu_table;          /* Warp: the interface unit's address table (.warp.iutab); NULL */
    uint32_t iu_table_words;     /* its entries given (the table holds model->iu_table_words) */
    uint32_t ncode, entry;
    uint8_t *data;           /* initialised data memory from address 0 */
    uint32_t data_size;      /* bytes of data + bss */
    uint32_t host_size;
    wrt_host_array *host;
    size_t nhost;
    wrt_symbol *syms;
    size_t nsyms;
    wrt_line *lines;         /* sorted by pc */
    size_t nlines;
    char **files;
    size_t nfiles;
} wrt_image;

/* NULL with a one-line reason in err if the file is not a valid image. */
wrt_image *wrt_image_load(const char *path, char *err, size_t errlen);
/* The same for an image already in memory (len bytes at buf, copied), as a debugger
 * or a test that built it in process has it. */
wrt_image *wrt_image_load_memory(const void *buf, size_t len, char *err, size_t errlen);
void wrt_image_free(wrt_image *img);

/* The source position of a bundle: the last line record at or before pc; NULL if none. */
const wrt_line *wrt_line_for_pc(const wrt_image *img, uint32_t pc);
/* The function containing a program address, or NULL. */
const wrt_symbol *wrt_func_for_pc(const wrt_image *img, uint32_t pc);
const wrt_host_array *wrt_host_find(const wrt_image *img, const char *name);

/* The simulator's view of the image (pointers into img, which must outlive it); a
 * 2-D cellprogram's comm is its torus with the host at the edges. */
void wrt_sim_program(const wrt_image *img, wsim_program *out);

/* Reads whitespace-separated numbers into host array `name`. -1 and a reason in err
 * ("PATH: host array 'NAME' ...") if the file is unreadable, has fewer or more numbers
 * than the array holds, or a word that is not a number of the element type (an int
 * array takes integers only; a float array takes both). */
int wrt_host_read(const wrt_image *img, wsim *sim, const char *name, const char *path,
                  char *err, size_t errlen);
/* Writes host array `name`, one number a line (%d or %.9g), row-major. */
int wrt_host_write(const wrt_image *img, wsim *sim, const char *name, FILE *out);

#endif
