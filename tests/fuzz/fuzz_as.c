/* Fuzz target: the assembler, then the linker and the image loader on what it
 * wrote, as warp-cc runs them on a .s file: nothing may crash or hang, an input
 * the assembler refuses gets a diagnostic naming it, an object it writes is one
 * the linker reads (linked after crt0.o, as warp-cc links), and an image the
 * linker writes is one the loader takes.
 *
 * Seeds: the examples compiled with -S for both models at -O0 and -O2,
 * runtime/crt0.s and the lit suite's assembly files (make_seeds.sh). Cheap,
 * so ctest runs more of them (fuzz-cases: 10000). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "warp_assembler.h"
#include "warp_linker.h"
#include "warp_runtime.h"
#include "warp_support.h"
#include "warp_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = ws_xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    ws_diag d;
    ws_diag_init(&d, "input.s", text, size);
    d.out = fuzz_begin();
    /* Mostly as the file's .model says; now and then against an -mcpu. */
    was_options opts = {.model = size % 4 == 3 ? wt_model_get(WT_MODEL_IWARP) : NULL};
    const char *object = fuzz_path("as.o");
    int rc = was_assemble("input.s", text, size, &opts, object, &d);
    fuzz_require(rc == 0 || d.errors > 0, "the assembler failed without a diagnostic");
    fuzz_require(rc != 0 || d.errors == 0, "an object despite %d error(s)", d.errors);
    if (rc == 0) {
        const char *inputs[] = {fuzz_crt0_path(), object};
        const char *image = fuzz_path("as.img");
        wld_options lopts = {.entry = "_start"};
        fuzz_begin();
        if (wld_link(inputs, 2, image, &lopts) == 0) {
            char err[512];
            wrt_image *img = wrt_image_load(image, err, sizeof err);
            fuzz_require(img != NULL, "the loader refuses the linker's image: %s", err);
            wrt_image_free(img);
        } else {
            fuzz_require(fuzz_messages()[0] != 0, "the linker failed without a message");
        }
    }
    free(text);
    return 0;
}
