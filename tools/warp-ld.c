/* warp-ld: the linker as a program, as `ld` is: objects in, one cell image out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_linker.h"
#include "warp_support.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warp-ld [options] FILE.o...\n"
            "Links Warp/iWarp ELF objects into a cell image, in the order given.\n"
            "\n"
            "  -o FILE           output image (default a.out)\n"
            "  -e SYMBOL         entry symbol (default _start)\n"
            "  --help, --version\n");
}

int main(int argc, char **argv)
{
    ws_program_init("warp-ld");
    wld_options opts = {.entry = "_start"};
    const char *output = "a.out";
    const char **inputs = ws_xcalloc((size_t)argc, sizeof *inputs);
    size_t ninputs = 0;
    int rc = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            rc = 0;
            goto out;
        } else if (strcmp(a, "--version") == 0) {
            printf("warp-ld 0.1.0 (Warp and iWarp linker)\n");
            rc = 0;
            goto out;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "-e") == 0) {
            if (++i >= argc) {
                fprintf(stderr, "warp-ld: missing %s after '%s'\n", a[1] == 'o' ? "file name" : "symbol", a);
                goto out;
            }
            if (a[1] == 'o') output = argv[i];
            else opts.entry = argv[i];
        } else if (strncmp(a, "-o", 2) == 0) {
            output = a + 2;
        } else if (strncmp(a, "-e", 2) == 0) {
            opts.entry = a + 2;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "warp-ld: unknown option '%s' (see --help)\n", a);
            goto out;
        } else {
            inputs[ninputs++] = a;
        }
    }
    if (!*opts.entry) {
        fprintf(stderr, "warp-ld: the entry symbol name after '-e' is empty\n");
        goto out;
    }
    if (ninputs == 0) {
        fprintf(stderr, "warp-ld: no input files (see --help)\n");
        goto out;
    }
    if (ws_check_output(output, inputs, ninputs) != 0) goto out;
    rc = wld_link(inputs, ninputs, output, &opts) == 0 ? 0 : 1;
out:
    free(inputs);
    return rc;
}
