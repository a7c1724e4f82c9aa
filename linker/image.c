/* The image writer: ELF32 little-endian ET_EXEC with the sections of
 * docs/design.md, section 4, and two PT_LOAD segments, program memory and data
 * memory, each at address 0 of its own space. The layout is computed here
 * (ELF_F_LAYOUT) so the segments can point at their sections and the bytes do not
 * depend on libelf's choices. */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wld_internal.h"

/* The fixed sections; the debug sections (docs/design.md, section 5) follow
 * .warp.files, then the symbol table and the name tables. */
enum { S_NULL, S_TEXT, S_DATA, S_BSS, S_HOST, S_WHOST, S_WCELLS, S_WLINES, S_WFILES, S_DEBUG };

typedef struct sec {
    const char *name;
    uint32_t type, flags, addr, link, info, align, entsize;
    const void *data;
    uint32_t size;
    uint32_t name_off, offset;
} sec;

static uint32_t align_up(uint32_t v, uint32_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static int emit(int fd, const wld_image *img, sec *secs, uint32_t count)
{
    if (elf_version(EV_CURRENT) == EV_NONE) return -1;
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    if (!e) return -1;
    Elf32_Ehdr *eh = elf32_newehdr(e);
    Elf32_Phdr *ph = eh ? elf32_newphdr(e, 2) : NULL;
    if (!ph) goto fail;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS32;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
    eh->e_type = ET_EXEC;
    eh->e_machine = WT_EM_WARP;
    eh->e_version = EV_CURRENT;
    eh->e_entry = img->entry;
    eh->e_flags = img->e_flags;
    eh->e_ehsize = sizeof(Elf32_Ehdr);
    eh->e_phentsize = sizeof(Elf32_Phdr);
    eh->e_phoff = sizeof(Elf32_Ehdr);
    eh->e_shentsize = sizeof(Elf32_Shdr);
    eh->e_shstrndx = (Elf32_Half)(count - 1);

    uint32_t off = sizeof(Elf32_Ehdr) + 2 * sizeof(Elf32_Phdr);
    for (uint32_t i = 1; i < count; i++) {
        Elf_Scn *scn = elf_newscn(e);
        Elf32_Shdr *sh = scn ? elf32_getshdr(scn) : NULL;
        if (!sh) goto fail;
        sec *s = &secs[i];
        off = align_up(off, s->align);
        s->offset = off;
        sh->sh_name = s->name_off;
        sh->sh_type = s->type;
        sh->sh_flags = s->flags;
        sh->sh_addr = s->addr;
        sh->sh_offset = off;
        sh->sh_size = s->size;
        sh->sh_link = s->link;
        sh->sh_info = s->info;
        sh->sh_addralign = s->align;
        sh->sh_entsize = s->entsize;
        if (s->type != SHT_NOBITS && s->size > 0) {
            Elf_Data *d = elf_newdata(scn);
            if (!d) goto fail;
            d->d_buf = (void *)s->data;
            d->d_size = s->size;
            d->d_type = ELF_T_BYTE;
            d->d_align = 1;
            d->d_off = 0;
            d->d_version = EV_CURRENT;
            off += s->size;
        }
    }
    eh->e_shoff = align_up(off, 4);

    ph[0] = (Elf32_Phdr){.p_type = PT_LOAD, .p_offset = secs[S_TEXT].offset, .p_vaddr = 0, .p_paddr = 0,
                         .p_filesz = secs[S_TEXT].size, .p_memsz = secs[S_TEXT].size,
                         .p_flags = PF_R | PF_X, .p_align = secs[S_TEXT].align};
    ph[1] = (Elf32_Phdr){.p_type = PT_LOAD, .p_offset = secs[S_DATA].offset, .p_vaddr = 0, .p_paddr = 0,
                         .p_filesz = secs[S_DATA].size, .p_memsz = img->bss_addr + img->bss_size,
                         .p_flags = PF_R | PF_W, .p_align = secs[S_DATA].align};
    elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
    elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
    if (elf_update(e, ELF_C_WRITE) < 0) goto fail;
    elf_end(e);
    return 0;
fail:
    elf_end(e);
    return -1;
}

int wld_write_image(const wld_image *img, const char *out_path)
{
    uint32_t symtab = S_DEBUG + (uint32_t)img->ndbg, strtab = symtab + 1, count = symtab + 3;
    sec *secs = ws_xcalloc(count, sizeof *secs);
    secs[S_TEXT] = (sec){".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0, 0, 8, WT_BUNDLE_BYTES,
                         img->text.data, (uint32_t)img->text.len, 0, 0};
    secs[S_DATA] = (sec){".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0, 0, 0, 4, 0, img->data.data,
                         (uint32_t)img->data.len, 0, 0};
    secs[S_BSS] = (sec){".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, img->bss_addr, 0, 0, 4, 0, NULL, img->bss_size, 0, 0};
    secs[S_HOST] = (sec){".host", SHT_NOBITS, 0, 0, 0, 0, 4, 0, NULL, img->host_size, 0, 0};
    secs[S_WHOST] = (sec){".warp.host", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->warp_host.data,
                          (uint32_t)img->warp_host.len, 0, 0};
    secs[S_WCELLS] = (sec){".warp.cells", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->warp_cells.data,
                           (uint32_t)img->warp_cells.len, 0, 0};
    secs[S_WLINES] = (sec){".warp.lines", SHT_PROGBITS, 0, 0, 0, 0, 4, 16, img->warp_lines.data,
                           (uint32_t)img->warp_lines.len, 0, 0};
    secs[S_WFILES] = (sec){".warp.files", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->warp_files.data,
                           (uint32_t)img->warp_files.len, 0, 0};
    for (size_t j = 0; j < img->ndbg; j++)
        secs[S_DEBUG + j] = (sec){img->dbg_names[j], SHT_PROGBITS, 0, 0, 0, 0, 1, 0, img->dbg[j].data,
                                  (uint32_t)img->dbg[j].len, 0, 0};
    secs[symtab] = (sec){".symtab", SHT_SYMTAB, 0, 0, strtab, img->first_global, 4, sizeof(Elf32_Sym),
                         img->symtab.data, (uint32_t)img->symtab.len, 0, 0};
    secs[strtab] = (sec){".strtab", SHT_STRTAB, 0, 0, 0, 0, 1, 0, img->strtab.data, (uint32_t)img->strtab.len, 0, 0};
    secs[count - 1] = (sec){".shstrtab", SHT_STRTAB, 0, 0, 0, 0, 1, 0, NULL, 0, 0, 0};
    ws_buf shstrtab = {0};
    ws_buf_append(&shstrtab, "", 1);
    for (uint32_t i = 1; i < count; i++) {
        secs[i].name_off = (uint32_t)shstrtab.len;
        ws_buf_append(&shstrtab, secs[i].name, strlen(secs[i].name) + 1);
    }
    secs[count - 1].data = shstrtab.data;
    secs[count - 1].size = (uint32_t)shstrtab.len;

    int rc = -1;
    FILE *tmp = NULL;
    ws_output out;
    int to_stdout = strcmp(out_path, "-") == 0;
    /* libelf writes with pwrite, which a pipe refuses: standard output gets a copy
     * of a finished temporary file. */
    FILE *f = to_stdout ? (tmp = tmpfile()) : ws_output_open(&out, out_path, 1);
    if (!f) {
        wld_error(out_path, "cannot write: %s", strerror(errno));
        goto done;
    }
    if (emit(fileno(f), img, secs, count) != 0) {
        wld_error(out_path, "cannot write: %s", elf_errmsg(-1));
        if (!to_stdout) ws_output_abort(&out);
        goto done;
    }
    if (to_stdout) {
        char buf[65536];
        size_t n;
        rewind(tmp);
        while ((n = fread(buf, 1, sizeof buf, tmp)) > 0)
            if (fwrite(buf, 1, n, stdout) != n) break;
        if (ferror(tmp) || fflush(stdout) != 0) {
            wld_error(out_path, "write error");
            goto done;
        }
    } else {
        /* A new image is executable, as ld makes a.out (the simulator runs it);
         * ws_output_commit keeps the mode of an image it replaces. */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fileno(f), 0777 & ~mask);
        if (ws_output_commit(&out) != 0) {
            wld_error(out_path, "cannot write: %s", strerror(errno));
            goto done;
        }
    }
    rc = 0;
done:
    if (tmp) fclose(tmp);
    ws_buf_free(&shstrtab);
    free(secs);
    return rc;
}
