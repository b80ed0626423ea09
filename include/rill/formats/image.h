/* rill/formats/image.h: image import (PNG, JPEG, TGA, HDR, and what else stb_image reads) from
 * memory, and mip chain generation.
 *
 * ON PIXELS
 *   An image is RGBA8 (4 bytes a pixel, row-major, no padding) or RGBA32F (16 bytes a pixel).
 *   Files with fewer channels are expanded: grey -> (g, g, g, 255), grey+alpha -> (g, g, g, a),
 *   RGB -> (r, g, b, 255). The channel count of the file is kept in `source_channels`.
 *
 * ON MIPS
 *   rill_image_build_mips filters in linear light: colour (sRGB) images are linearized, alpha-
 *   premultiplied, filtered, un-premultiplied and re-encoded, so a 0/255 checkerboard averages to
 *   188 (linear 0.5), not 128. Normal maps are unpacked to vectors, filtered and renormalized per
 *   level. Each level is max(1, previous / 2) on each side, any size (odd, 1 x N); the filter is a
 *   separable Lanczos (a = 2) window over the exact source footprint, clamped at the edges.
 *
 * Depends on: rill/base.h, stb_image (private).
 */
#ifndef RILL_FORMATS_IMAGE_H
#define RILL_FORMATS_IMAGE_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest width or height an image may have (both loaders and the mip builder check it). */
#define RILL_IMAGE_MAX_DIM 16384u
/* The longest mip chain: log2(RILL_IMAGE_MAX_DIM) + 1. */
#define RILL_IMAGE_MAX_LEVELS 15u

typedef enum rill_pixel_type {
    RILL_PIXEL_NONE = 0, /* as a request: RGBA32F for HDR files, RGBA8 for the rest */
    RILL_PIXEL_RGBA8,
    RILL_PIXEL_RGBA32F,
    RILL_PIXEL_NUM,
    RILL_PIXEL_FORCE_U32 = 0x7FFFFFFF
} rill_pixel_type;

/* An image in memory. Zero-initialized = empty. `pixels` is owned by the image and released by
 * rill_image_free. */
typedef struct rill_image {
    uint32_t width, height;
    rill_pixel_type type;
    uint32_t source_channels; /* 1..4: channels stored in the file it came from (4 if made) */
    bool source_hdr;          /* the file held floating-point (HDR) data */
    void *pixels;             /* width * height * (4 or 16) bytes */
    size_t size;              /* bytes in pixels */
} rill_image;

/* Bytes per pixel of a type (4 or 16; 0 for NONE/unknown). */
uint32_t rill_pixel_type_bytes(rill_pixel_type type);

/* Allocates a zero-filled width x height image of `type` into *out (any previous content is not
 * freed). Fails with RILL_ERR_LIMIT above RILL_IMAGE_MAX_DIM, RILL_ERR_INVALID_ARGUMENT for a
 * zero size or a NONE type. */
rill_result rill_image_alloc(rill_image *out, uint32_t width, uint32_t height, rill_pixel_type type,
                             rill_error *err);

/* Checks a width x height image of `type` (NONE counts as 4 bytes per pixel) against the
 * image_pixels and image_bytes limits (rill/base.h); RILL_ERR_LIMIT names `name` and the limit.
 * Every reader calls it with a file's declared dimensions before decoding. */
rill_result rill_image_check_limits(uint32_t width, uint32_t height, rill_pixel_type type,
                                    const char *name, rill_error *err);

/* Reads an image file's header held in memory (never its pixels) into *out_width x *out_height:
 * what a caller with its own size limits checks before rill_image_load commits memory. `name`
 * may be NULL ("<memory>"). Errors: RILL_ERR_PARSE (empty, not an image), RILL_ERR_LIMIT (a side
 * over RILL_IMAGE_MAX_DIM); on failure the sizes are 0. */
rill_result rill_image_probe(const void *data, size_t size, const char *name, uint32_t *out_width,
                             uint32_t *out_height, rill_error *err);

/* Decodes an image file held in memory. `name` is used only in error messages ("path: reason")
 * and may be NULL ("<memory>"). want: RGBA8, RGBA32F, or NONE (float for HDR sources, 8-bit
 * otherwise). An 8-bit source asked for as float is divided by 255 (no gamma change); an HDR
 * source asked for as 8-bit is clamped to [0, 1] and scaled (linear, no tone mapping).
 * On success *out owns its pixels (rill_image_free); on failure *out is zeroed. Never reads past
 * data[size). Errors: RILL_ERR_PARSE (not an image / corrupt), RILL_ERR_LIMIT (too large). */
rill_result rill_image_load(const void *data, size_t size, const char *name, rill_pixel_type want,
                            rill_image *out, rill_error *err);

/* Decodes a single-channel image as 16-bit samples (heightmaps): a 16-bit PNG keeps its values; an
 * 8-bit image is widened (v * 257); a colour image keeps its first channel. *out_samples is
 * width * height values, row-major, owned by the caller (rill_free). The same limits and errors as
 * rill_image_load; on failure *out_samples is NULL and the sizes are 0. */
rill_result rill_image_load_u16(const void *data, size_t size, const char *name,
                                uint32_t *out_width, uint32_t *out_height, uint16_t **out_samples,
                                rill_error *err);

/* Releases the pixels and zeroes the image. NULL and empty images are fine. */
void rill_image_free(rill_image *img);

/* Encodes 8-bit pixels (channels 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA; rows tightly packed, top
 * row first) as PNG into *out_data (rill_free it). RILL_ERR_INVALID_ARGUMENT for an empty or
 * oversized image. */
rill_result rill_image_encode_png(const uint8_t *pixels, uint32_t width, uint32_t height,
                                  uint32_t channels, uint8_t **out_data, size_t *out_size,
                                  rill_error *err);
/* The same, written to path (atomically, rill_file_write_all). */
rill_result rill_image_write_png(const char *path, const uint8_t *pixels, uint32_t width,
                                 uint32_t height, uint32_t channels, rill_error *err);
/* Encodes float pixels (channels 1..4, rows packed, top row first) as Radiance HDR (RGBE) into
 * *out_data (rill_free it); the same errors as rill_image_encode_png. */
rill_result rill_image_encode_hdr(const float *pixels, uint32_t width, uint32_t height,
                                  uint32_t channels, uint8_t **out_data, size_t *out_size,
                                  rill_error *err);

/* Number of levels in a full chain for a base of width x height: floor(log2(max side)) + 1. */
uint32_t rill_image_mip_count(uint32_t width, uint32_t height);

typedef enum rill_mip_usage {
    RILL_MIP_COLOR = 0, /* sRGB-encoded colour (+ straight alpha); the default */
    RILL_MIP_LINEAR,    /* data stored linearly (masks, roughness, HDR colour) */
    RILL_MIP_NORMAL,    /* tangent-space normal map: xyz packed as v * 0.5 + 0.5 */
    RILL_MIP_USAGE_NUM,
    RILL_MIP_USAGE_FORCE_U32 = 0x7FFFFFFF
} rill_mip_usage;

/* Mip settings; all-zero = defaults: COLOR usage, full chain, no alpha coverage preservation.
 * alpha_cutoff: for alpha-tested (cutout) textures, the test's threshold in (0, 1). Each level's
 *   alpha is then scaled so the fraction of texels passing the test matches level 0's, instead of
 *   shrinking as filtering averages thin features away (foliage, fences). 0 = off. Ignored for
 *   NORMAL usage. */
typedef struct rill_mip_desc {
    uint32_t start_canary; /* must be 0 */
    rill_mip_usage usage;
    uint32_t max_levels; /* 0 = full chain; otherwise at most this many levels (>= 1) */
    float alpha_cutoff;
    uint32_t end_canary; /* must be 0 */
} rill_mip_desc;

/* A chain of levels, level 0 the largest. Each level owns its pixels. */
typedef struct rill_mip_chain {
    uint32_t count;
    rill_image levels[RILL_IMAGE_MAX_LEVELS];
} rill_mip_chain;

/* Builds the chain for `base` (RGBA8 or RGBA32F; the levels have the same type). Level 0 is a
 * copy of the base (for NORMAL usage it is renormalized too). desc may be NULL (defaults).
 * On failure *out is empty. Free with rill_mip_chain_free. */
rill_result rill_image_build_mips(const rill_image *base, const rill_mip_desc *desc,
                                  rill_mip_chain *out, rill_error *err);
void rill_mip_chain_free(rill_mip_chain *chain);

/* sRGB transfer functions on [0, 1] (exact piecewise curves). */
float rill_srgb_to_linear(float v);
float rill_linear_to_srgb(float v);
/* IEEE 754 half conversion (round to nearest even; overflow -> infinity; NaN kept). */
uint16_t rill_f32_to_f16(float v);
float rill_f16_to_f32(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_IMAGE_H */
