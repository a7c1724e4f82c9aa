/* Fuzz target: the debugger's command interpreter. Each input is a command
 * script, run line by line through wdb_command on a fresh session of the
 * polynomial example (-O2 -g, so with pipelined loops and location lists), as
 * warp-dbg -batch -x runs one. Nothing may crash, hang or exit: a bad command is
 * a message and the session goes on; quit ends the script.
 *
 * Seeds: the lit suite's debugger scripts (the .gdb files of tests/lit/dbg/Inputs, copied by
 * make_seeds.sh, which also builds the image). Dictionary: dbg.dict. Smoke test:
 * fuzz-cases: 3000. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "warp_debugger.h"
#include "warp_support.h"

/* Bounds per input, so that one stays fast: commands, and simulated clocks. */
#define MAX_COMMANDS 64
#define MAX_CYCLES 200000

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink) sink = fopen("/dev/null", "w");
    static const char *const in_names[] = {"data", "coeffs"};
    static const char *const in_paths[] = {WARP_SOURCE_DIR "/examples/polynomial.data",
                                           WARP_SOURCE_DIR "/examples/polynomial.coeffs"};
    wdb_options opts = {.in_names = in_names, .in_paths = in_paths, .nin = 2, .max_cycles = MAX_CYCLES};
    char err[512];
    fuzz_begin();
    wdb *d = wdb_new(WARP_BINARY_DIR "/fuzz/dbg-polynomial.img", &opts, err, sizeof err);
    fuzz_require(d != NULL, "cannot start a session on the polynomial image: %s", err);

    char *text = ws_xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    int n = 0;
    for (char *line = text; line && n < MAX_COMMANDS; n++) {
        char *nl = memchr(line, '\n', (size_t)(text + size - line));
        if (nl) *nl = 0;
        /* A NUL inside a line ends it, as it would for the REPL's readline. */
        int rc = wdb_command(d, line, sink);
        fuzz_require(rc == WDB_OK || rc == WDB_ERROR || rc == WDB_QUIT, "wdb_command returned %d", rc);
        if (rc == WDB_QUIT) break;
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    wdb_free(d);
    return 0;
}
