/* image_write.c: PNG and Radiance HDR encoding through stb_image_write, with Rill's allocator. The
 * one place the engine, its tools and its tests write PNG files (renderer captures, overlays, the
 * demo's textures, `rill fly` charts, golden images), so stb_image_write is compiled once. */
#include "rill/formats/image.h"

#include <limits.h>
#include <string.h>

/* >>stb --------------------------------------------------------------------------------------- */

#define STBIW_MALLOC(sz) rill_malloc_tagged((sz), RILL_MEM_FORMATS)
#define STBIW_REALLOC(p, newsz) rill_realloc_tagged((p), (newsz), RILL_MEM_FORMATS)
#define STBIW_FREE(p) rill_free(p)
#define STBIW_ASSERT(x) ((void)0)
/* Not STBI_WRITE_NO_STDIO: this stb release compiles stbi_write_hdr_to_func only with stdio; the
 * file writers it adds stay unused (files are written by rill_file_write_all). */
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
/* The unused static writers (BMP, TGA, JPEG) are reported at the end of the file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

/* >>png --------------------------------------------------------------------------------------- */

typedef struct image_sink {
    uint8_t *data;
    size_t size, cap;
    bool failed;
} image_sink;

static void sink_write(void *user, void *bytes, int n) {
    image_sink *s = user;
    if (s->failed || n <= 0) {
        return;
    }
    if (s->size + (size_t)n > s->cap) {
        size_t cap = s->cap ? s->cap * 2u : 4096u;
        while (cap < s->size + (size_t)n) {
            cap *= 2u;
        }
        uint8_t *grown = rill_realloc_tagged(s->data, cap, RILL_MEM_FORMATS);
        if (!grown) {
            s->failed = true;
            return;
        }
        s->data = grown;
        s->cap = cap;
    }
    memcpy(s->data + s->size, bytes, (size_t)n);
    s->size += (size_t)n;
}

/* What both encoders accept: stb takes ints, so a row's samples and the height must fit one. */
static bool image_ok(const void *pixels, uint32_t width, uint32_t height, uint32_t channels) {
    return pixels && width != 0 && height != 0 && channels >= 1 && channels <= 4 &&
           (uint64_t)width * channels <= (uint64_t)INT_MAX && height <= (uint32_t)INT_MAX;
}

/* Hands the sink's bytes to the caller, or frees them and reports what could not be encoded. */
static rill_result sink_finish(image_sink *s, int written, const char *what, uint32_t width,
                               uint32_t height, uint8_t **out_data, size_t *out_size,
                               rill_error *err) {
    if (!written || s->failed) {
        rill_free(s->data);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory encoding %ux%u", what,
                              width, height);
    }
    *out_data = s->data;
    *out_size = s->size;
    return RILL_OK;
}

rill_result rill_image_encode_png(const uint8_t *pixels, uint32_t width, uint32_t height,
                                  uint32_t channels, uint8_t **out_data, size_t *out_size,
                                  rill_error *err) {
    *out_data = NULL;
    *out_size = 0;
    if (!image_ok(pixels, width, height, channels)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "PNG: bad image (%ux%u, %u channels)",
                              width, height, channels);
    }
    image_sink s = {0};
    int stride = (int)(width * channels);
    int written = stbi_write_png_to_func(sink_write, &s, (int)width, (int)height, (int)channels,
                                         pixels, stride);
    return sink_finish(&s, written, "PNG", width, height, out_data, out_size, err);
}

rill_result rill_image_encode_hdr(const float *pixels, uint32_t width, uint32_t height,
                                  uint32_t channels, uint8_t **out_data, size_t *out_size,
                                  rill_error *err) {
    *out_data = NULL;
    *out_size = 0;
    if (!image_ok(pixels, width, height, channels)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "HDR: bad image (%ux%u, %u channels)",
                              width, height, channels);
    }
    image_sink s = {0};
    int written =
        stbi_write_hdr_to_func(sink_write, &s, (int)width, (int)height, (int)channels, pixels);
    return sink_finish(&s, written, "HDR", width, height, out_data, out_size, err);
}

rill_result rill_image_write_png(const char *path, const uint8_t *pixels, uint32_t width,
                                 uint32_t height, uint32_t channels, rill_error *err) {
    uint8_t *png = NULL;
    size_t size = 0;
    rill_result r = rill_image_encode_png(pixels, width, height, channels, &png, &size, err);
    if (r == RILL_OK) {
        r = rill_file_write_all(path, png, size, err);
    }
    rill_free(png);
    return r;
}
