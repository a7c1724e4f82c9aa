/* What every fuzz target is, and what it may use.
 *
 * A target is one file fuzz_NAME.c that defines libFuzzer's entry point,
 *
 *     int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
 *
 * runs one input through a stage (or several, as the program would), and checks
 * the stage's promises with fuzz_require(): a broken promise aborts, as a crash
 * does. The same file is linked two ways (tests/fuzz/CMakeLists.txt):
 *
 *   - to driver.c, a program of our own that replays the seed corpus and a fixed
 *     number of deterministic mutants of it: the ctest smoke test fuzz.NAME,
 *     which needs no toolchain beyond the project's;
 *   - with -DWARP_FUZZ=ON and clang-19, to libFuzzer (-fsanitize=fuzzer), for the
 *     coverage-guided campaigns scripts/fuzz.sh runs.
 *
 * Seeds come from build/fuzz/seeds/NAME (made from the examples at build time by
 * make_seeds.sh), tests/fuzz/seeds/NAME (small text seeds kept in git) and
 * tests/fuzz/regress/NAME (every input a campaign found that crashed, kept as a
 * regression test). NAME.dict, if present, is a libFuzzer dictionary that both
 * drivers use. Adding a target is adding fuzz_NAME.c (and, if it helps, those). */
#ifndef WARP_FUZZ_H
#define WARP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A promise of the stage was broken: says which (with the messages the stage
 * wrote during this input) on stderr and aborts. */
#define fuzz_require(cond, ...) ((cond) ? (void)0 : fuzz_fail(#cond, __VA_ARGS__))
_Noreturn void fuzz_fail(const char *cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The stream every message of one input goes to (diagnostics, ws_file_error), so
 * that runs stay quiet and a target can check what was said. fuzz_begin empties
 * it; fuzz_messages returns what was written since, NUL-terminated. */
FILE *fuzz_begin(void);
const char *fuzz_messages(void);

/* A private directory for the files a stage reads or writes (removed at exit), and
 * a path in it. */
const char *fuzz_path(const char *name);
/* Writes size bytes to fuzz_path(name) and returns that path. */
const char *fuzz_write_file(const char *name, const void *data, size_t size);

/* The build's crt0.o (runtime/crt0.s), which warp-cc links before the user's objects. */
const char *fuzz_crt0_path(void);

#endif
