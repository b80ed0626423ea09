/* env_image.c: the decoder every environment image goes through (Skybox, EnvironmentMapLight,
 * ReflectionProbeSource; rill/formats/rmip_cube.h): a .rmip cube resampled to an equirectangular
 * image, or an image file decoded and made linear, then checked against the size limits. */
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

/* An image file: decoded as floats; 8-bit colour is sRGB, made linear (alpha stays). */
static rill_result decode_file(const void *data, size_t size, const char *name, rill_image *out,
                               rill_error *err) {
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
    if (out->width > RILL_ENV_IMAGE_MAX_WIDTH || out->height > RILL_ENV_IMAGE_MAX_HEIGHT ||
        out->width < RILL_ENV_IMAGE_MIN_WIDTH || out->height < RILL_ENV_IMAGE_MIN_HEIGHT) {
        rill_error_set(err, RILL_ERR_LIMIT,
                       "%s: %ux%u is outside the %ux%u to %ux%u an environment image may be", name,
                       out->width, out->height, RILL_ENV_IMAGE_MIN_WIDTH, RILL_ENV_IMAGE_MIN_HEIGHT,
                       RILL_ENV_IMAGE_MAX_WIDTH, RILL_ENV_IMAGE_MAX_HEIGHT);
        rill_image_free(out);
        return RILL_ERR_LIMIT;
    }
    float *px = out->pixels;
    size_t n = (size_t)out->width * out->height * 4u;
    for (size_t i = 0; i < n; i++) {
        px[i] = isnan(px[i]) ? 0.0f : RILL_CLAMP(px[i], 0.0f, 65000.0f);
    }
    return RILL_OK;
}
