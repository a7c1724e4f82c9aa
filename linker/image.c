/* The image writer: ELF32 little-endian ET_EXEC with the sections of
 * docs/design.md, section 4, and two PT_LOAD segments, program memory and data
 * memory, program memory at 0 and data memory at WT_DATA_SPACE, so that no two
 * allocated sections overlap for gdb and readelf; support/elfwrite.c lays the
 * file out. */
#include <elf.h>
#include <stdlib.h>

#include "wld_internal.h"

/* The fixed sections; the debug sections (docs/design.md, section 5) follow
 * .warp.files, then the symbol table and the string tables. */
enum { S_NULL, S_TEXT, S_DATA, S_BSS, S_HOST, S_WHOST, S_WCELLS, S_WLINES, S_WFILES, S_DEBUG };

typedef ws_elf_section sec;

int wld_write_image(const wld_image *img, const char *out_path)
{
    /* The interface unit's program, if any, follows the debug sections. */
    uint32_t iu = img->warp_iu.len ? S_DEBUG + (uint32_t)img->ndbg : 0;
    /* and its address table that */
    uint32_t iutab = img->warp_iutab.len ? S_DEBUG + (uint32_t)img->ndbg + (iu != 0) : 0;
    uint32_t symtab = S_DEBUG + (uint32_t)img->ndbg + (iu != 0) + (iutab != 0), strtab = symtab + 1,
             count = symtab + 2;
    sec *secs = ws_xcalloc(count, sizeof *secs);
    secs[S_TEXT] = (sec){".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0, 0, 8, WT_BUNDLE_BYTES,
                         img->text.data, (uint32_t)img->text.len};
    secs[S_DATA] = (sec){".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, WT_DATA_SPACE, 0, 0, 4, 0, img->data.data,
                         (uint32_t)img->data.len};
    secs[S_BSS] = (sec){".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, WT_DATA_SPACE + img->bss_addr, 0, 0, 4, 0, NULL, img->bss_size};
    secs[S_HOST] = (sec){".host", SHT_NOBITS, 0, 0, 0, 0, 4, 0, NULL, img->host_size};
    secs[S_WHOST] = (sec){".warp.host", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->warp_host.data,
                          (uint32_t)img->warp_host.len};
    secs[S_WCELLS] = (sec){".warp.cells", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->warp_cells.data,
                           (uint32_t)img->warp_cells.len};
    secs[S_WLINES] = (sec){".warp.lines", SHT_PROGBITS, 0, 0, 0, 0, 4, 16, img->warp_lines.data,
                           (uint32_t)img->warp_lines.len};
    secs[S_WFILES] = (sec){".warp.files", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->warp_files.data,
                           (uint32_t)img->warp_files.len};
    for (size_t j = 0; j < img->ndbg; j++)
        secs[S_DEBUG + j] = (sec){img->dbg_names[j], SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->dbg[j].data,
                                  (uint32_t)img->dbg[j].len};
    if (iu)
        secs[iu] = (sec){".warp.iu", SHT_PROGBITS, 0, 0, 0, 0, 8, WT_BUNDLE_BYTES, img->warp_iu.data,
                         (uint32_t)img->warp_iu.len};
    if (iutab)
        secs[iutab] = (sec){".warp.iutab", SHT_PROGBITS, 0, 0, 0, 0, 4, 4, img->warp_iutab.data,
                            (uint32_t)img->warp_iutab.len};
    secs[symtab] = (sec){".symtab", SHT_SYMTAB, 0, 0, strtab, img->first_global, 4, sizeof(Elf32_Sym),
                         img->symtab.data, (uint32_t)img->symtab.len};
    secs[strtab] = (sec){".strtab", SHT_STRTAB, 0, 0, 0, 0, 1, 0, img->strtab.data, (uint32_t)img->strtab.len};
    /* Program memory and data memory. */
    ws_elf_segment segs[2] = {
        {S_TEXT, (uint32_t)img->text.len, PF_R | PF_X},
        {S_DATA, img->bss_addr + img->bss_size, PF_R | PF_W},
    };
    ws_elf_file file = {.type = ET_EXEC, .machine = WT_EM_WARP, .flags = img->e_flags, .entry = img->entry,
                        .secs = secs, .nsecs = count, .segs = segs, .nsegs = 2, .executable = 1};
    int rc = ws_elf_write(&file, out_path);
    free(secs);
    return rc;
}
