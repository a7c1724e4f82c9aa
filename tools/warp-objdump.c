/* warp-objdump: objects and images as binutils' objdump shows them:
 *
 *   warp-objdump [-h] [-t] [-r] [-d] [-S] FILE...
 *
 * -h section headers, -t symbols, -r relocations (under their bundles with -d),
 * -d disassembly, -S disassembly with source lines (from the DWARF line table).
 * Flags combine (-dS, -drS). Exit status 0, or 1 if a file could not be read. */
#include <stdio.h>
#include <string.h>

#include "warp_debugger.h"
#include "warp_support.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warp-objdump [-h] [-t] [-r] [-d] [-S] FILE...\n"
            "Displays information from Warp object files and cell images.\n"
            "\n"
            "  -h, --section-headers  the section headers\n"
            "  -t, --syms             the symbol table\n"
            "  -r, --reloc            the relocations (under their bundles with -d)\n"
            "  -d, --disassemble      the code, bundle by bundle\n"
            "  -S, --source           the code with its source lines (implies -d)\n"
            "      --help, --version\n");
}

int main(int argc, char **argv)
{
    ws_program_init("warp-objdump");
    unsigned what = 0;
    int nfiles = 0, status = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("warp-objdump 0.1.0 (Warp and iWarp objects and images)\n");
            return 0;
        } else if (!strcmp(a, "--section-headers") || !strcmp(a, "--headers")) {
            what |= WDB_DUMP_HEADERS;
        } else if (!strcmp(a, "--syms")) {
            what |= WDB_DUMP_SYMBOLS;
        } else if (!strcmp(a, "--reloc")) {
            what |= WDB_DUMP_RELOCS;
        } else if (!strcmp(a, "--disassemble")) {
            what |= WDB_DUMP_DISASM;
        } else if (!strcmp(a, "--source")) {
            what |= WDB_DUMP_SOURCE;
        } else if (a[0] == '-' && a[1] && a[1] != '-') {
            for (const char *p = a + 1; *p; p++) {
                switch (*p) {
                case 'h': what |= WDB_DUMP_HEADERS; break;
                case 't': what |= WDB_DUMP_SYMBOLS; break;
                case 'r': what |= WDB_DUMP_RELOCS; break;
                case 'd': what |= WDB_DUMP_DISASM; break;
                case 'S': what |= WDB_DUMP_SOURCE; break;
                default:
                    fprintf(stderr, "warp-objdump: invalid option -- '%c'\n", *p);
                    usage(stderr);
                    return 1;
                }
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "warp-objdump: unrecognized option '%s'\n", a);
            usage(stderr);
            return 1;
        } else {
            nfiles++;
        }
    }
    if (!what || !nfiles) {
        usage(stderr);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) continue;
        char err[512];
        if (wdb_objdump(argv[i], what, stdout, err, sizeof err) != 0) {
            fflush(stdout);
            fprintf(stderr, "warp-objdump: %s: %s\n", argv[i], err);
            status = 1;
        }
    }
    return status;
}
