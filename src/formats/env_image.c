/* env_image.c: the decoder every environment image goes through (Skybox, EnvironmentMapLight,
 * ReflectionProbeSource; rill/formats/rmip_cube.h): a .rmip cube resampled to an equirectangular
 * image, or an image file whose header is checked against the size limits before it is decoded
 * and made linear. */
#include "rill/formats/rmip_cube.h"

#include <math.h>
#include <string.h>

static rill_result decode_cube(const void *data, size_t size, const char *name, rill_image *out,
                               rill_error *err) {
    rill_tex_data cube;
    RILL_TRY(rill_rmip_cube_read(data, size, name, &cube, err));
    rill_result res = rill_rmip_cube_to_equirect(&cube, out, err);
    rill_tex_data_free(&cube);
    return res;
}

/* Refuses a width x height outside the sizes an environment image may be, naming `name`. */
static rill_result check_size(uint32_t width, uint32_t height, const char *name, rill_error *err) {
    if (width > RILL_ENV_IMAGE_MAX_WIDTH || height > RILL_ENV_IMAGE_MAX_HEIGHT ||
        width < RILL_ENV_IMAGE_MIN_WIDTH || height < RILL_ENV_IMAGE_MIN_HEIGHT) {
        return rill_error_set(err, RILL_ERR_LIMIT,
                              "%s: %ux%u is outside the %ux%u to %ux%u an environment image may be",
                              name, width, height, RILL_ENV_IMAGE_MIN_WIDTH,
                              RILL_ENV_IMAGE_MIN_HEIGHT, RILL_ENV_IMAGE_MAX_WIDTH,
                              RILL_ENV_IMAGE_MAX_HEIGHT);
    }
    return RILL_OK;
}

/* An image file: its header's size is checked first (a few bytes may claim gigabytes of floats),
 * then it is decoded as floats; 8-bit colour is sRGB, made linear (alpha stays). */
static rill_result decode_file(const void *data, size_t size, const char *name, rill_image *out,
                               rill_error *err) {
    uint32_t width = 0, height = 0;
    RILL_TRY(rill_image_probe(data, size, name, &width, &height, err));
    RILL_TRY(check_size(width, height, name, err));
    RILL_TRY(rill_image_load(data, size, name, RILL_PIXEL_RGBA32F, out, err));
    if (!out->source_hdr) {
        float *px = out->pixels;
        size_t n = (size_t)out->width * out->height * 4u;
        for (size_t i = 0; i < n; i++) {
            if (i % 4u != 3u) {
                px[i] = rill_srgb_to_linear(RILL_CLAMP(px[i], 0.0f, 1.0f));
            }
        }
    }
    return RILL_OK;
}

rill_result rill_env_image_decode(const void *data, size_t size, const char *name, rill_image *out,
                                  rill_error *err) {
    memset(out, 0, sizeof(*out));
    if (!name) {
        name = "<memory>";
    }
    if (!data) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: no data", name);
    }
    bool cube = size >= 4 && memcmp(data, "RMIP", 4) == 0;
    RILL_TRY(cube ? decode_cube(data, size, name, out, err)
                  : decode_file(data, size, name, out, err));
    rill_result fits = check_size(out->width, out->height, name, err);
    if (fits != RILL_OK) {
        rill_image_free(out);
        return fits;
    }
    float *px = out->pixels;
    size_t n = (size_t)out->width * out->height * 4u;
    for (size_t i = 0; i < n; i++) {
        px[i] = isnan(px[i]) ? 0.0f : RILL_CLAMP(px[i], 0.0f, 65000.0f);
    }
    return RILL_OK;
}
