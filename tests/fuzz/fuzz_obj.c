/* Fuzz target: the linker's object reader, and the rest of the link, on an object
 * from outside: the input is linked after crt0.o, as warp-cc links a user's
 * object. Nothing may crash or hang; a refused object gets a message naming it;
 * an image the linker writes is one the loader takes.
 *
 * Seeds: the examples compiled with -c for both models, with and without -g,
 * and crt0.o (make_seeds.sh). Dictionary (fuzz-dict: elf.dict): section names,
 * .warp.* lines, ELF header bytes. Smoke test: fuzz-cases: 10000. */
#include <string.h>

#include "fuzz.h"
#include "warp_linker.h"
#include "warp_runtime.h"
#include "warp_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *object = fuzz_write_file("input.o", data, size);
    const char *inputs[] = {fuzz_crt0_path(), object};
    const char *image = fuzz_path("obj.img");
    wld_options opts = {.entry = "_start"};
    fuzz_begin();
    if (wld_link(inputs, 2, image, &opts) == 0) {
        char err[512];
        wrt_image *img = wrt_image_load(image, err, sizeof err);
        fuzz_require(img != NULL, "the loader refuses the linker's image: %s", err);
        wrt_image_free(img);
    } else {
        fuzz_require(fuzz_messages()[0] != 0, "the linker failed without a message");
    }
    return 0;
}
