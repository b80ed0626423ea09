/* image.c: image decoding through stb_image (from memory, with Rill's allocator), and mip chain
 * generation in linear light with a separable Lanczos-2 filter.
 *
 * stb_image is compiled here (STB_IMAGE_IMPLEMENTATION is defined in this file only); its own
 * warnings are silenced locally so the rest of the module keeps -Werror. */
#include "rill/formats/image.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* >>stb --------------------------------------------------------------------------------------- */

#define STBI_MALLOC(sz) rill_malloc_tagged((sz), RILL_MEM_FORMATS)
#define STBI_REALLOC(p, newsz) rill_realloc_tagged((p), (newsz), RILL_MEM_FORMATS)
#define STBI_FREE(p) rill_free(p)
#define STBI_NO_STDIO
/* Only the formats docs/textures.md names (PNG, JPEG, TGA, BMP, PSD, GIF, Radiance HDR): stb's
 * PNM and PIC readers are left out, so an input that claims to be one is refused as an unknown
 * format (its PNM header parser overflowed an int on "P6666...";
 * fuzz/image/corpus/regress_pnm_int_overflow). */
#define STBI_NO_PNM
#define STBI_NO_PIC
#define STBI_ASSERT(x) ((void)0)
#define STB_IMAGE_IMPLEMENTATION
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* >>basics ------------------------------------------------------------------------------------ */

uint32_t rill_pixel_type_bytes(rill_pixel_type type) {
    return type == RILL_PIXEL_RGBA8 ? 4u : (type == RILL_PIXEL_RGBA32F ? 16u : 0u);
}

rill_result rill_image_alloc(rill_image *out, uint32_t width, uint32_t height, rill_pixel_type type,
                             rill_error *err) {
    memset(out, 0, sizeof(*out));
    uint32_t bpp = rill_pixel_type_bytes(type);
    if (width == 0 || height == 0 || bpp == 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "image: bad size %ux%u or type",
                              width, height);
    }
    if (width > RILL_IMAGE_MAX_DIM || height > RILL_IMAGE_MAX_DIM) {
        return rill_error_set(err, RILL_ERR_LIMIT, "image: %ux%u exceeds the %u px limit", width,
                              height, RILL_IMAGE_MAX_DIM);
    }
    size_t size = (size_t)width * height * bpp;
    out->pixels = rill_calloc_tagged(1, size, RILL_MEM_FORMATS);
    if (!out->pixels) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "image: out of memory");
    }
    out->width = width;
    out->height = height;
    out->type = type;
    out->size = size;
    out->source_channels = 4;
    return RILL_OK;
}

void rill_image_free(rill_image *img) {
    if (!img) {
        return;
    }
    rill_free(img->pixels);
    memset(img, 0, sizeof(*img));
}

uint32_t rill_image_mip_count(uint32_t width, uint32_t height) {
    uint32_t m = RILL_MAX(width, height), n = 1;
    while (m > 1) {
        m >>= 1;
        n++;
    }
    return n;
}

float rill_srgb_to_linear(float v) {
    if (v <= 0.04045f) {
        return v / 12.92f;
    }
    return powf((v + 0.055f) / 1.055f, 2.4f);
}

float rill_linear_to_srgb(float v) {
    if (v <= 0.0031308f) {
        return v * 12.92f;
    }
    return 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
}

uint16_t rill_f32_to_f16(float v) {
    uint32_t x;
    memcpy(&x, &v, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;
    if (exp == 0xff) {
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0u));
    }
    int e = (int)exp - 127 + 15;
    if (e >= 31) {
        return (uint16_t)(sign | 0x7c00u);
    }
    if (e <= 0) {
        if (e < -10) {
            return (uint16_t)sign;
        }
        /* Subnormal half: shift the mantissa (with its implicit bit) into place, round to even. */
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t h = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u))) {
            h++;
        }
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        h++; /* may carry into the exponent: ok */
    }
    return (uint16_t)(sign | h);
}

float rill_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        if (man == 0) {
            x = sign;
        } else {
            /* Subnormal: normalize. */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (man << 13);
    } else {
        x = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float v;
    memcpy(&v, &x, 4);
    return v;
}

rill_result rill_image_check_limits(uint32_t width, uint32_t height, rill_pixel_type type,
                                    const char *name, rill_error *err) {
    uint64_t pixels = (uint64_t)width * height;
    rill_result r = rill_limit_check(RILL_LIMIT_IMAGE_PIXELS, pixels, name, err);
    if (r == RILL_OK) {
        uint64_t bytes = pixels * RILL_MAX(rill_pixel_type_bytes(type), 4u);
        r = rill_limit_check(RILL_LIMIT_IMAGE_BYTES, bytes, name, err);
    }
    return r;
}

/* >>load 16-bit ------------------------------------------------------------------------------- */

/* Reads the image header (never the pixels) and checks it against the size limits: the one
 * place both decoders refuse an empty, oversized or unreadable file before stb allocates. */
static rill_result probe_header(const void *data, size_t size, const char *name, int *w, int *h,
                                int *n, rill_error *err) {
    if (!data || size == 0) {
        return rill_error_set(err, RILL_ERR_PARSE, "%s: empty file", name);
    }
    if (size > (size_t)INT_MAX) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: file too large to decode", name);
    }
    if (!stbi_info_from_memory((const stbi_uc *)data, (int)size, w, h, n)) {
        return rill_error_set(err, RILL_ERR_PARSE, "%s: not a readable image (%s)", name,
                              stbi_failure_reason());
    }
    if (*w <= 0 || *h <= 0 || (uint32_t)*w > RILL_IMAGE_MAX_DIM ||
        (uint32_t)*h > RILL_IMAGE_MAX_DIM) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: %dx%d exceeds the %u px limit", name, *w,
                              *h, RILL_IMAGE_MAX_DIM);
    }
    return RILL_OK;
}

rill_result rill_image_probe(const void *data, size_t size, const char *name, uint32_t *out_width,
                             uint32_t *out_height, rill_error *err) {
    *out_width = *out_height = 0;
    int w = 0, h = 0, n = 0;
    RILL_TRY(probe_header(data, size, name ? name : "<memory>", &w, &h, &n, err));
    *out_width = (uint32_t)w;
    *out_height = (uint32_t)h;
    return RILL_OK;
}

rill_result rill_image_load_u16(const void *data, size_t size, const char *name,
                                uint32_t *out_width, uint32_t *out_height, uint16_t **out_samples,
                                rill_error *err) {
    *out_width = *out_height = 0;
    *out_samples = NULL;
    if (!name) {
        name = "<memory>";
    }
    const stbi_uc *buf = (const stbi_uc *)data;
    int w = 0, h = 0, n = 0;
    rill_result hr = probe_header(data, size, name, &w, &h, &n, err);
    if (hr != RILL_OK) {
        return hr;
    }
    rill_result lim = rill_image_check_limits((uint32_t)w, (uint32_t)h, RILL_PIXEL_NONE, name, err);
    if (lim != RILL_OK) {
        return lim;
    }
    int w2 = 0, h2 = 0, n2 = 0;
    stbi_us *p = stbi_load_16_from_memory(buf, (int)size, &w2, &h2, &n2, 1);
    if (!p || w2 != w || h2 != h) {
        rill_free(p);
        return rill_error_set(err, RILL_ERR_PARSE, "%s: %s", name,
                              p ? "size changed while decoding" : stbi_failure_reason());
    }
    *out_width = (uint32_t)w;
    *out_height = (uint32_t)h;
    *out_samples = p;
    return RILL_OK;
}

/* Stores count RGBA pixels stb decoded (floats when hdr, else bytes) in out's pixel type:
 * floats clamp to [0, 1] (NaN to 0) on their way to bytes. */
static void store_decoded(rill_image *out, const void *px, bool hdr, size_t count) {
    bool want_f32 = out->type == RILL_PIXEL_RGBA32F;
    if (hdr == want_f32) {
        memcpy(out->pixels, px, count * (hdr ? 16 : 4));
    } else if (hdr) {
        const float *f = px;
        uint8_t *d = out->pixels;
        for (size_t i = 0; i < count * 4; i++) {
            float v = f[i];
            v = v != v ? 0.0f : RILL_CLAMP(v, 0.0f, 1.0f);
            d[i] = (uint8_t)(v * 255.0f + 0.5f);
        }
    } else {
        const uint8_t *p = px;
        float *d = out->pixels;
        for (size_t i = 0; i < count * 4; i++) {
            d[i] = (float)p[i] / 255.0f;
        }
    }
}

/* >>load -------------------------------------------------------------------------------------- */

rill_result rill_image_load(const void *data, size_t size, const char *name, rill_pixel_type want,
                            rill_image *out, rill_error *err) {
    memset(out, 0, sizeof(*out));
    if (!name) {
        name = "<memory>";
    }
    const stbi_uc *buf = (const stbi_uc *)data;
    int w = 0, h = 0, n = 0;
    rill_result hr = probe_header(data, size, name, &w, &h, &n, err);
    if (hr != RILL_OK) {
        return hr;
    }
    bool hdr = stbi_is_hdr_from_memory(buf, (int)size) != 0;
    if (want == RILL_PIXEL_NONE) {
        want = hdr ? RILL_PIXEL_RGBA32F : RILL_PIXEL_RGBA8;
    }
    if (want != RILL_PIXEL_RGBA8 && want != RILL_PIXEL_RGBA32F) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: bad pixel type", name);
    }
    /* The header's dimensions are all a few bytes of a hostile file need to claim gigabytes, so
     * they are checked against the limits before stb allocates anything. */
    rill_result lim = rill_image_check_limits((uint32_t)w, (uint32_t)h, want, name, err);
    if (lim != RILL_OK) {
        return lim;
    }
    rill_result res = rill_image_alloc(out, (uint32_t)w, (uint32_t)h, want, err);
    if (res != RILL_OK) {
        return res;
    }
    out->source_channels = (uint32_t)n;
    out->source_hdr = hdr;
    int w2 = 0, h2 = 0, n2 = 0;
    void *px = hdr ? (void *)stbi_loadf_from_memory(buf, (int)size, &w2, &h2, &n2, 4)
                   : (void *)stbi_load_from_memory(buf, (int)size, &w2, &h2, &n2, 4);
    if (!px || w2 != w || h2 != h) {
        rill_free(px);
        rill_image_free(out);
        return rill_error_set(err, RILL_ERR_PARSE, "%s: %s", name, stbi_failure_reason());
    }
    store_decoded(out, px, hdr, (size_t)w * (size_t)h);
    rill_free(px);
    return RILL_OK;
}

/* >>mips -------------------------------------------------------------------------------------- */

/* One destination sample of the 1-D resampler: the first source index and the normalized weights
 * of the taps that follow it. The downscale factor is at most 3 (3 -> 1) and the Lanczos-2 window
 * spans 2 source pixels per unit of factor each side, so 16 taps always suffice. */
#define MIP_MAX_TAPS 16
typedef struct mip_tap {
    int first, count;
    float w[MIP_MAX_TAPS];
} mip_tap;

static float lanczos2(float x) {
    if (x < 0) {
        x = -x;
    }
    if (x < 1e-6f) {
        return 1.0f;
    }
    if (x >= 2.0f) {
        return 0.0f;
    }
    const float pi = 3.14159265358979f;
    return 2.0f * sinf(pi * x) * sinf(pi * x * 0.5f) / (pi * pi * x * x);
}

/* Weights for resampling n_src samples to n_dst (n_dst < n_src) over each destination pixel's
 * exact footprint; edges clamp (taps past the border fold onto the border pixel). */
static void mip_taps(int n_src, int n_dst, mip_tap *taps) {
    float s = (float)n_src / (float)n_dst;
    float radius = 2.0f * s;
    for (int i = 0; i < n_dst; i++) {
        float c = ((float)i + 0.5f) * s;
        int j0 = (int)floorf(c - radius), j1 = (int)ceilf(c + radius);
        mip_tap *t = &taps[i];
        int lo = RILL_MAX(j0, 0), hi = RILL_MIN(j1, n_src - 1);
        t->first = lo;
        t->count = hi - lo + 1;
        if (t->count > MIP_MAX_TAPS) {
            t->count = MIP_MAX_TAPS;
        }
        for (int k = 0; k < MIP_MAX_TAPS; k++) {
            t->w[k] = 0;
        }
        float sum = 0;
        for (int j = j0; j <= j1; j++) {
            float w = lanczos2(((float)j + 0.5f - c) / s);
            int jc = RILL_CLAMP(j, lo, hi);
            int k = jc - lo;
            if (k >= t->count) {
                k = t->count - 1;
            }
            t->w[k] += w;
            sum += w;
        }
        if (sum != 0) {
            for (int k = 0; k < t->count; k++) {
                t->w[k] /= sum;
            }
        }
    }
}

/* Unpacks `count` pixels of an image, from pixel `first` on, into the working space: linear
 * premultiplied colour, or vectors for normal maps. */
static void mip_to_work(const rill_image *img, rill_mip_usage usage, size_t first, size_t count,
                        float *w, const float *srgb_lut) {
    for (size_t j = 0; j < count; j++) {
        size_t i = first + j;
        float v[4];
        if (img->type == RILL_PIXEL_RGBA8) {
            const uint8_t *p = (const uint8_t *)img->pixels + i * 4;
            for (int c = 0; c < 4; c++) {
                v[c] = (float)p[c] / 255.0f;
            }
            if (usage == RILL_MIP_COLOR) {
                for (int c = 0; c < 3; c++) {
                    v[c] = srgb_lut[p[c]];
                }
            }
        } else {
            memcpy(v, (const float *)img->pixels + i * 4, 16);
            if (usage == RILL_MIP_COLOR) {
                for (int c = 0; c < 3; c++) {
                    v[c] = rill_srgb_to_linear(RILL_CLAMP(v[c], 0.0f, 1.0f));
                }
            }
        }
        if (usage == RILL_MIP_COLOR) {
            for (int c = 0; c < 3; c++) {
                v[c] *= v[3];
            }
        } else if (usage == RILL_MIP_NORMAL) {
            for (int c = 0; c < 3; c++) {
                v[c] = v[c] * 2.0f - 1.0f;
            }
        }
        memcpy(w + j * 4, v, 16);
    }
}

/* Packs `count` working-space pixels back into the image's pixel type, from pixel `first` on. */
static void mip_from_work(const float *w, rill_mip_usage usage, rill_image *img, size_t first,
                          size_t count) {
    for (size_t j = 0; j < count; j++) {
        size_t i = first + j;
        float v[4];
        memcpy(v, w + j * 4, 16);
        if (usage == RILL_MIP_COLOR) {
            float a = RILL_CLAMP(v[3], 0.0f, 1.0f);
            for (int c = 0; c < 3; c++) {
                float lin = a > 1e-6f ? v[c] / a : 0.0f;
                v[c] = rill_linear_to_srgb(RILL_CLAMP(lin, 0.0f, 1.0f));
            }
            v[3] = a;
        } else if (usage == RILL_MIP_NORMAL) {
            float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (len > 1e-6f) {
                for (int c = 0; c < 3; c++) {
                    v[c] /= len;
                }
            } else {
                v[0] = v[1] = 0.0f;
                v[2] = 1.0f;
            }
            for (int c = 0; c < 3; c++) {
                v[c] = v[c] * 0.5f + 0.5f;
            }
            v[3] = RILL_CLAMP(v[3], 0.0f, 1.0f);
        } else if (img->type == RILL_PIXEL_RGBA8) {
            for (int c = 0; c < 4; c++) {
                v[c] = RILL_CLAMP(v[c], 0.0f, 1.0f);
            }
        } else {
            /* HDR data: the filter's small negative lobes must not make values negative. */
            for (int c = 0; c < 4; c++) {
                v[c] = v[c] < 0.0f ? 0.0f : v[c];
            }
        }
        if (img->type == RILL_PIXEL_RGBA8) {
            uint8_t *p = (uint8_t *)img->pixels + i * 4;
            for (int c = 0; c < 4; c++) {
                p[c] = (uint8_t)(RILL_CLAMP(v[c], 0.0f, 1.0f) * 255.0f + 0.5f);
            }
        } else {
            memcpy((float *)img->pixels + i * 4, v, 16);
        }
    }
}

/* Where a downsample reads its source rows: a float working-space level, or (for level 1) the
 * base image itself, unpacked one row at a time into `row` so the full-size base never needs a
 * float copy (a 4096^2 base would take 256 MiB). */
typedef struct mip_source {
    const float *level; /* NULL: read from base */
    const rill_image *base;
    rill_mip_usage usage;
    const float *srgb_lut;
    float *row; /* base->width pixels */
} mip_source;

static const float *mip_source_row(const mip_source *src, int sw, int y) {
    if (src->level) {
        return src->level + (size_t)y * sw * 4;
    }
    mip_to_work(src->base, src->usage, (size_t)y * sw, (size_t)sw, src->row, src->srgb_lut);
    return src->row;
}

/* Downsamples (sw x sh) to (dw x dh), dw <= sw, dh <= sh, separably: rows into tmp (dw * sh
 * pixels), then columns into dst. An axis that keeps its size is copied. */
static void mip_downsample(const mip_source *src, int sw, int sh, float *dst, int dw, int dh,
                           float *tmp, mip_tap *taps) {
    if (dw < sw) {
        mip_taps(sw, dw, taps);
    }
    for (int y = 0; y < sh; y++) {
        const float *row = mip_source_row(src, sw, y);
        float *o = tmp + (size_t)y * dw * 4;
        if (dw == sw) {
            memcpy(o, row, (size_t)sw * 16);
            continue;
        }
        for (int x = 0; x < dw; x++) {
            const mip_tap *t = &taps[x];
            float acc[4] = {0, 0, 0, 0};
            for (int k = 0; k < t->count; k++) {
                const float *p = row + (size_t)(t->first + k) * 4;
                for (int c = 0; c < 4; c++) {
                    acc[c] += t->w[k] * p[c];
                }
            }
            memcpy(o + (size_t)x * 4, acc, 16);
        }
    }
    if (dh == sh) {
        memcpy(dst, tmp, (size_t)dw * dh * 16);
        return;
    }
    mip_taps(sh, dh, taps);
    for (int y = 0; y < dh; y++) {
        const mip_tap *t = &taps[y];
        float *o = dst + (size_t)y * dw * 4;
        for (int x = 0; x < dw * 4; x++) {
            o[x] = 0;
        }
        for (int k = 0; k < t->count; k++) {
            const float *row = tmp + (size_t)(t->first + k) * dw * 4;
            float w = t->w[k];
            for (int x = 0; x < dw * 4; x++) {
                o[x] += w * row[x];
            }
        }
    }
}

static float mip_alpha_at(const rill_image *img, size_t i) {
    if (img->type == RILL_PIXEL_RGBA8) {
        return (float)((const uint8_t *)img->pixels)[i * 4 + 3] / 255.0f;
    }
    return ((const float *)img->pixels)[i * 4 + 3];
}

/* Fraction of texels whose alpha, scaled by `scale`, passes the cutoff. */
static float mip_coverage(const rill_image *img, float cutoff, float scale) {
    size_t n = (size_t)img->width * img->height, pass = 0;
    for (size_t i = 0; i < n; i++) {
        pass += mip_alpha_at(img, i) * scale >= cutoff;
    }
    return (float)pass / (float)n;
}

/* Scales a level's alpha so its coverage at `cutoff` matches `target` (bisection on the scale;
 * coverage only grows with it). */
static void mip_keep_coverage(rill_image *img, float cutoff, float target) {
    float lo = 0.0f, hi = 4.0f;
    while (hi < 256.0f && mip_coverage(img, cutoff, hi) < target) {
        hi *= 2.0f;
    }
    for (int it = 0; it < 20; it++) {
        float mid = 0.5f * (lo + hi);
        if (mip_coverage(img, cutoff, mid) < target) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    size_t n = (size_t)img->width * img->height;
    for (size_t i = 0; i < n; i++) {
        float a = RILL_CLAMP(mip_alpha_at(img, i) * hi, 0.0f, 1.0f);
        if (img->type == RILL_PIXEL_RGBA8) {
            ((uint8_t *)img->pixels)[i * 4 + 3] = (uint8_t)(a * 255.0f + 0.5f);
        } else {
            ((float *)img->pixels)[i * 4 + 3] = a;
        }
    }
}

void rill_mip_chain_free(rill_mip_chain *chain) {
    if (!chain) {
        return;
    }
    for (uint32_t i = 0; i < chain->count && i < RILL_IMAGE_MAX_LEVELS; i++) {
        rill_image_free(&chain->levels[i]);
    }
    chain->count = 0;
}

rill_result rill_image_build_mips(const rill_image *base, const rill_mip_desc *desc,
                                  rill_mip_chain *out, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_image_build_mips", err) != RILL_OK) {
        memset(out, 0, sizeof(*out));
        return RILL_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof(*out));
    rill_mip_desc d = desc ? *desc : (rill_mip_desc){0};
    if (!base || !base->pixels || base->width == 0 || base->height == 0 ||
        rill_pixel_type_bytes(base->type) == 0 || d.usage >= RILL_MIP_USAGE_NUM) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "mips: bad base image or desc");
    }
    if (base->width > RILL_IMAGE_MAX_DIM || base->height > RILL_IMAGE_MAX_DIM) {
        return rill_error_set(err, RILL_ERR_LIMIT, "mips: %ux%u exceeds the %u px limit",
                              base->width, base->height, RILL_IMAGE_MAX_DIM);
    }
    uint32_t levels = rill_image_mip_count(base->width, base->height);
    if (d.max_levels && d.max_levels < levels) {
        levels = d.max_levels;
    }

    /* Working space: level 1 and level 2 in float (they alternate for the levels below), the
     * horizontal pass of a level (at most level 1's width times the base height), one base row. */
    size_t w1 = RILL_MAX(1u, base->width / 2), h1 = RILL_MAX(1u, base->height / 2);
    size_t w2 = RILL_MAX(1u, (uint32_t)w1 / 2), h2 = RILL_MAX(1u, (uint32_t)h1 / 2);
    float *buf[2] = {rill_malloc_tagged(w1 * h1 * 16, RILL_MEM_FORMATS),
                     rill_malloc_tagged(w2 * h2 * 16, RILL_MEM_FORMATS)};
    float *tmp = rill_malloc_tagged(w1 * base->height * 16, RILL_MEM_FORMATS);
    float *row = rill_malloc_tagged((size_t)base->width * 16, RILL_MEM_FORMATS);
    mip_tap *taps =
        rill_malloc_tagged(sizeof(mip_tap) * RILL_MAX(base->width, base->height), RILL_MEM_FORMATS);
    rill_result res = RILL_OK;
    if (!buf[0] || !buf[1] || !tmp || !row || !taps) {
        res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "mips: out of memory");
        goto fail;
    }
    float srgb_lut[256];
    for (int i = 0; i < 256; i++) {
        srgb_lut[i] = rill_srgb_to_linear((float)i / 255.0f);
    }

    res = rill_image_alloc(&out->levels[0], base->width, base->height, base->type, err);
    if (res != RILL_OK) {
        goto fail;
    }
    out->count = 1;
    if (d.usage == RILL_MIP_NORMAL) {
        /* Normal maps are renormalized on level 0 too, row by row. */
        for (uint32_t y = 0; y < base->height; y++) {
            size_t first = (size_t)y * base->width;
            mip_to_work(base, d.usage, first, base->width, row, srgb_lut);
            mip_from_work(row, d.usage, &out->levels[0], first, base->width);
        }
    } else {
        /* Level 0 is the base itself (no round trip through the working space). */
        memcpy(out->levels[0].pixels, base->pixels, base->size);
    }
    /* Alpha-test coverage of level 0, kept on every level when asked for (-1: off). */
    float coverage = -1.0f;
    if (d.alpha_cutoff > 0.0f && d.alpha_cutoff < 1.0f && d.usage != RILL_MIP_NORMAL) {
        coverage = mip_coverage(&out->levels[0], d.alpha_cutoff, 1.0f);
    }
    mip_source src = {NULL, base, d.usage, srgb_lut, row};
    uint32_t w = base->width, h = base->height;
    for (uint32_t lv = 1; lv < levels; lv++) {
        uint32_t nw = RILL_MAX(1u, w / 2), nh = RILL_MAX(1u, h / 2);
        /* Odd levels go to buf[0] (level 1 is the largest), even ones to buf[1]. */
        float *dst = buf[(lv - 1) & 1u];
        mip_downsample(&src, (int)w, (int)h, dst, (int)nw, (int)nh, tmp, taps);
        src.level = dst;
        w = nw;
        h = nh;
        res = rill_image_alloc(&out->levels[lv], w, h, base->type, err);
        if (res != RILL_OK) {
            goto fail;
        }
        out->count = lv + 1;
        mip_from_work(dst, d.usage, &out->levels[lv], 0, (size_t)w * h);
        if (coverage >= 0.0f) {
            mip_keep_coverage(&out->levels[lv], d.alpha_cutoff, coverage);
        }
    }
    for (uint32_t lv = 0; lv < out->count; lv++) {
        out->levels[lv].source_channels = base->source_channels;
        out->levels[lv].source_hdr = base->source_hdr;
    }
    rill_free(buf[0]);
    rill_free(buf[1]);
    rill_free(tmp);
    rill_free(row);
    rill_free(taps);
    return RILL_OK;
fail:
    rill_free(buf[0]);
    rill_free(buf[1]);
    rill_free(tmp);
    rill_free(row);
    rill_free(taps);
    rill_mip_chain_free(out);
    return res;
}
