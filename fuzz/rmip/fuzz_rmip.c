/* fuzz_rmip.c: libFuzzer target for the .rmip reader. Each input is parsed as a whole file (every
 * level copied into a texture), then the way the streaming loader does it (a prefix of at most
 * RILL_RMIP_PREFIX_MAX bytes, the #low range, a texture from that range), and every accepted
 * block-compressed level 0 is decoded, so the decoders see the same hostile bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rill/formats/rmip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_error err;
    rill_tex_data tex;
    if (rill_rmip_read(data, size, "fuzz.rmip", &tex, &err) == RILL_OK) {
        const rill_tex_level *l0 = &tex.levels[0];
        /* Keep decode work bounded: small levels only. */
        if (rill_tex_format_is_block(tex.format) && (uint64_t)l0->width * l0->height <= 65536) {
            uint8_t *rgba = rill_malloc((size_t)l0->width * l0->height * 4);
            if (rgba) {
                rill_bc_decode_image(tex.format, l0->data, l0->size, l0->width, l0->height, rgba,
                                     (size_t)l0->width * l0->height * 4, &err);
                rill_free(rgba);
            }
        }
        rill_tex_data_free(&tex);
    }
    size_t prefix = size < RILL_RMIP_PREFIX_MAX ? size : RILL_RMIP_PREFIX_MAX;
    rill_rmip_info info;
    if (rill_rmip_parse(data, prefix, size, "fuzz.rmip#low", &info, &err) == RILL_OK) {
        rill_rmip_range low;
        rill_rmip_low_range(&info, &low);
        if (low.offset <= size && low.size <= size - low.offset &&
            rill_rmip_texture_from_range(&info, &low, data + low.offset, (size_t)low.size,
                                         "fuzz.rmip#low", &tex, &err) == RILL_OK) {
            rill_tex_data_free(&tex);
        }
    }
    return 0;
}
