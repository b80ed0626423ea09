/* fuzz_image.c: libFuzzer target for rill_image_load and rill_image_load_u16, the decoders every
 * texture and heightmap in a project goes through (model images, terrain heightmaps and splat
 * maps, pack entries). Each input is decoded three ways: as RGBA8, in its own depth (float for
 * HDR), and as 16-bit samples. The image_pixels limit is lowered to 1 Mi so that a small input
 * declaring a huge image is refused by the header check instead of allocating up to the
 * default's 256 MiB on every run. */
#include <stddef.h>
#include <stdint.h>

#include "rill/formats/image.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    rill_limits l = {0};
    l.image_pixels = (uint64_t)1 << 20;
    rill_limits_set(&l);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_error err;
    rill_image img;
    const rill_pixel_type wants[2] = {RILL_PIXEL_RGBA8, RILL_PIXEL_NONE};
    for (int i = 0; i < 2; i++) {
        if (rill_image_load(data, size, "fuzz.img", wants[i], &img, &err) == RILL_OK) {
            rill_image_free(&img);
        }
    }
    uint32_t w = 0, h = 0;
    uint16_t *samples = NULL;
    if (rill_image_load_u16(data, size, "fuzz.png", &w, &h, &samples, &err) == RILL_OK) {
        rill_free(samples);
    }
    return 0;
}
