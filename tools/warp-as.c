/* warp-as: the assembler as a program, as `as` is: one assembly file in, one ELF
 * relocatable object out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_assembler.h"
#include "warp_support.h"
#include "warp_target.h"

#define MAX_SOURCE_BYTES (64u << 20)

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warp-as [options] FILE.s\n"
            "Assembles Warp/iWarp long-instruction-word assembly into an ELF object.\n"
            "\n"
            "  -mcpu=warp|iwarp  target machine model; a .model directive must agree\n"
            "                    (default: the .model directive; without either the\n"
            "                    object links with programs for both models)\n"
            "  -o FILE           output file (default: the input's name with .o, in the\n"
            "                    current directory; a.out for standard input)\n"
            "  --help, --version\n");
}

/* "dir/poly.s" -> "poly.o", as cc -c names its output. */
static char *default_output(const char *input)
{
    if (strcmp(input, "-") == 0) return ws_xstrdup("a.out");
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *out = ws_xmalloc(stem + 3);
    memcpy(out, base, stem);
    strcpy(out + stem, ".o");
    return out;
}

int main(int argc, char **argv)
{
    ws_program_init("warp-as");
    was_options opts = {.model = NULL};
    const char *input = NULL, *output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("warp-as 0.1.0 (Warp and iWarp assembler)\n");
            return 0;
        } else if (strncmp(a, "-mcpu=", 6) == 0) {
            opts.model = wt_model_by_name(a + 6);
            if (!opts.model) {
                fprintf(stderr, "warp-as: unknown -mcpu '%s' (expected warp or iwarp)\n", a + 6);
                return 1;
            }
        } else if (strcmp(a, "-o") == 0) {
            if (++i >= argc) {
                fprintf(stderr, "warp-as: missing file name after '-o'\n");
                return 1;
            }
            output = argv[i];
        } else if (strncmp(a, "-o", 2) == 0) {
            output = a + 2;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "warp-as: unknown option '%s' (see --help)\n", a);
            return 1;
        } else if (input) {
            fprintf(stderr, "warp-as: more than one input file ('%s' and '%s')\n", input, a);
            return 1;
        } else {
            input = a;
        }
    }
    if (!input) {
        fprintf(stderr, "warp-as: no input file (see --help)\n");
        return 1;
    }

    char err[512];
    size_t len;
    char *named = output ? NULL : default_output(input);
    const char *out_path = output ? output : named;
    if (ws_check_output(out_path, &input, 1) != 0) {
        free(named);
        return 1;
    }
    char *text = ws_read_file(input, &len, MAX_SOURCE_BYTES, err, sizeof err);
    if (!text) {
        ws_file_error(input, "%s", err);
        free(named);
        return 1;
    }
    const char *path = strcmp(input, "-") == 0 ? "<stdin>" : input;
    ws_diag diag;
    ws_diag_init(&diag, path, text, len);
    int rc = was_assemble(path, text, len, &opts, out_path, &diag);
    free(named);
    free(text);
    return rc == 0 ? 0 : 1;
}
