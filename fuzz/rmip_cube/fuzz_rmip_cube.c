/* fuzz_rmip_cube.c: libFuzzer target for environment images: each input goes through
 * rill_env_image_decode (a .rmip cube read and resampled, or an image file decoded, then the size
 * limits) and through rill_rmip_cube_read alone. */
#include <stddef.h>
#include <stdint.h>

#include "rill/formats/rmip_cube.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_error err;
    rill_image img;
    if (rill_env_image_decode(data, size, "fuzz.rmip", &img, &err) == RILL_OK) {
        rill_image_free(&img);
    }
    rill_tex_data cube;
    if (rill_rmip_cube_read(data, size, "fuzz.rmip", &cube, &err) == RILL_OK) {
        rill_tex_data_free(&cube);
    }
    return 0;
}
