/* The ELF writer behind the assembler's objects and the linker's images: ELF32
 * little-endian, the sections in the order given and the section-name table last.
 * The file layout is computed here (ELF_F_LAYOUT) rather than left to libelf, so
 * that segments can point at their sections and the same input gives the same bytes
 * whatever the libelf version. */
#include <elf.h>
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "warp_support.h"

static uint32_t align_up(uint32_t v, uint32_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* The file itself, on an open descriptor. shstrtab: the section-name table, and
 * name_off[i] section i's name in it. 0, or -1 with libelf's reason. */
static int emit(int fd, const ws_elf_file *f, const ws_buf *shstrtab, const uint32_t *name_off)
{
    uint32_t count = f->nsecs + 1;   /* and the section-name table */
    uint32_t *offset = ws_xcalloc(count, sizeof *offset);
    if (elf_version(EV_CURRENT) == EV_NONE) {
        free(offset);
        return -1;
    }
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    if (!e) {
        free(offset);
        return -1;
    }
    Elf32_Ehdr *eh = elf32_newehdr(e);
    Elf32_Phdr *ph = NULL;
    if (!eh || (f->nsegs && !(ph = elf32_newphdr(e, f->nsegs)))) goto fail;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS32;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
    eh->e_type = f->type;
    eh->e_machine = f->machine;
    eh->e_version = EV_CURRENT;
    eh->e_entry = f->entry;
    eh->e_flags = f->flags;
    eh->e_ehsize = sizeof(Elf32_Ehdr);
    if (f->nsegs) {
        eh->e_phentsize = sizeof(Elf32_Phdr);
        eh->e_phoff = sizeof(Elf32_Ehdr);
    }
    eh->e_shentsize = sizeof(Elf32_Shdr);
    eh->e_shstrndx = (Elf32_Half)f->nsecs;

    uint32_t off = sizeof(Elf32_Ehdr) + f->nsegs * (uint32_t)sizeof(Elf32_Phdr);
    for (uint32_t i = 1; i < count; i++) {
        Elf_Scn *scn = elf_newscn(e);
        Elf32_Shdr *sh = scn ? elf32_getshdr(scn) : NULL;
        if (!sh) goto fail;
        ws_elf_section names = {".shstrtab", SHT_STRTAB, 0, 0, 0, 0, 1, 0, shstrtab->data, (uint32_t)shstrtab->len};
        const ws_elf_section *s = i < f->nsecs ? &f->secs[i] : &names;
        off = align_up(off, s->align);
        offset[i] = off;
        sh->sh_name = name_off[i];
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

    /* A segment is where its section is. */
    for (uint32_t k = 0; k < f->nsegs; k++) {
        const ws_elf_segment *g = &f->segs[k];
        const ws_elf_section *s = &f->secs[g->section];
        ph[k] = (Elf32_Phdr){.p_type = PT_LOAD, .p_offset = offset[g->section], .p_vaddr = s->addr, .p_paddr = s->addr,
                             .p_filesz = s->size, .p_memsz = g->mem_size, .p_flags = g->flags,
                             .p_align = s->align};
    }
    if (f->nsegs) elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
    elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
    if (elf_update(e, ELF_C_WRITE) < 0) goto fail;
    elf_end(e);
    free(offset);
    return 0;
fail:
    elf_end(e);
    free(offset);
    return -1;
}

int ws_elf_write(const ws_elf_file *f, const char *path)
{
    ws_buf shstrtab = {0};
    uint32_t *name_off = ws_xcalloc(f->nsecs + 1, sizeof *name_off);
    ws_buf_append(&shstrtab, "", 1);
    for (uint32_t i = 1; i <= f->nsecs; i++) {
        const char *name = i < f->nsecs ? f->secs[i].name : ".shstrtab";
        name_off[i] = (uint32_t)shstrtab.len;
        ws_buf_append(&shstrtab, name, strlen(name) + 1);
    }

    int rc = -1;
    FILE *tmp = NULL;
    ws_output out;
    int to_stdout = strcmp(path, "-") == 0;
    /* libelf writes with pwrite, which a pipe refuses: standard output gets a copy
     * of a finished temporary file. */
    FILE *fp = to_stdout ? (tmp = tmpfile()) : ws_output_open(&out, path, 1);
    if (!fp) {
        ws_file_error(path, "cannot write: %s", strerror(errno));
        goto done;
    }
    if (emit(fileno(fp), f, &shstrtab, name_off) != 0) {
        ws_file_error(path, "cannot write: %s", elf_errmsg(-1));
        if (!to_stdout) ws_output_abort(&out);
        goto done;
    }
    if (to_stdout) {
        char buf[65536];
        size_t n;
        rewind(tmp);
        while ((n = fread(buf, 1, sizeof buf, tmp)) > 0)
            if (fwrite(buf, 1, n, stdout) != n) break;
        /* A write that failed part way may leave nothing for fflush to fail on. */
        if (ferror(tmp) || fflush(stdout) != 0 || ferror(stdout)) {
            ws_file_error(path, "write error");
            clearerr(stdout); /* reported: not again at exit */
            goto done;
        }
    } else {
        if (f->executable) {
            /* A new image is executable, as ld makes a.out; ws_output_commit keeps
             * the mode of a file it replaces. */
            mode_t mask = umask(0);
            umask(mask);
            fchmod(fileno(fp), 0777 & ~mask);
        }
        if (ws_output_commit(&out) != 0) {
            ws_file_error(path, "cannot write: %s", strerror(errno));
            goto done;
        }
    }
    rc = 0;
done:
    if (tmp) fclose(tmp);
    ws_buf_free(&shstrtab);
    free(name_off);
    return rc;
}
