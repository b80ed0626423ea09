/* texture_mean.c: a texture's mean colour (linear RGB, weighted by alpha), which voxel GI
 * (gi_voxel.c) multiplies a material's base-colour factor by, so a textured wall bounces its
 * colour and not white. Read once when the texture is made or replaced, on the CPU data at hand:
 * the smallest level given (a mip chain's last level is its whole image averaged), block formats
 * decoded block by block, at most MEAN_BLOCKS x MEAN_BLOCKS blocks (or MEAN_SIDE^2 texels)
 * sampled on an even grid, so a single-level 16k texture costs the same as a 64x64 one. */
#include "render_internal.h"

#include "rill/formats/bc.h"
#include "rill/formats/image.h"

#include <string.h>

#define MEAN_SIDE 64u   /* texels per axis sampled from an uncompressed level */
#define MEAN_BLOCKS 16u /* 4x4 blocks per axis decoded from a block-compressed level */

/* Sums of one texture's sampled texels: rgb * a (linear) and a. */
typedef struct mean_acc {
    double rgb[3], a;
} mean_acc;

static void add_texel(mean_acc *acc, const float rgba[4], bool srgb) {
    float a = rgba[3] < 0.0f ? 0.0f : (rgba[3] > 1.0f ? 1.0f : rgba[3]);
    for (int k = 0; k < 3; k++) {
        float c = srgb ? rill_srgb_to_linear(rgba[k]) : rgba[k];
        c = c == c && c > 0.0f ? (c < 65504.0f ? c : 65504.0f) : 0.0f; /* NaN, negative: 0 */
        acc->rgb[k] += (double)(c * a);
    }
    acc->a += a;
}

static void add_rgba8(mean_acc *acc, const uint8_t *p, bool srgb) {
    float t[4] = {p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f, p[3] / 255.0f};
    add_texel(acc, t, srgb);
}

static bool finish(const mean_acc *acc, float out[3]) {
    if (!(acc->a > 0.0)) {
        return false; /* wholly transparent: no colour to speak of */
    }
    for (int k = 0; k < 3; k++) {
        out[k] = (float)(acc->rgb[k] / acc->a);
    }
    return true;
}

/* The i-th of n samples spread over [0, len). */
static uint32_t spread(uint32_t i, uint32_t n, uint32_t len) {
    return (uint32_t)(((uint64_t)i * 2u + 1u) * len / (2u * (uint64_t)n));
}

bool rill__texture_mean_rgba8(const uint8_t *px, uint32_t width, uint32_t height, bool srgb,
                              float out[3]) {
    if (!px || !width || !height) {
        return false;
    }
    uint32_t nx = RILL_MIN(width, MEAN_SIDE), ny = RILL_MIN(height, MEAN_SIDE);
    mean_acc acc = {0};
    for (uint32_t j = 0; j < ny; j++) {
        uint32_t y = spread(j, ny, height);
        for (uint32_t i = 0; i < nx; i++) {
            add_rgba8(&acc, px + ((size_t)y * width + spread(i, nx, width)) * 4, srgb);
        }
    }
    return finish(&acc, out);
}

static void add_rgba16f(mean_acc *acc, const uint8_t *p) {
    float t[4];
    for (int k = 0; k < 4; k++) {
        uint16_t h;
        memcpy(&h, p + 2 * k, sizeof(h));
        t[k] = rill_f16_to_f32(h);
    }
    add_texel(acc, t, false);
}

/* Decodes one 4x4 block of a block format to RGBA8; false for a format it does not know. */
static bool decode_block(rill_tex_format f, const uint8_t *block, uint8_t rgba[64]) {
    uint8_t r[16];
    switch (f) {
    case RILL_TEX_FORMAT_BC1:
        rill_bc1_decode_block(block, rgba);
        return true;
    case RILL_TEX_FORMAT_BC3:
        rill_bc3_decode_block(block, rgba);
        return true;
    case RILL_TEX_FORMAT_BC5:
        rill_bc5_decode_block(block, rgba);
        return true;
    case RILL_TEX_FORMAT_BC7:
        rill_bc7_decode_block(block, rgba);
        return true;
    case RILL_TEX_FORMAT_BC4:
        rill_bc4_decode_block(block, r);
        for (int i = 0; i < 16; i++) {
            rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = r[i];
            rgba[4 * i + 3] = 255;
        }
        return true;
    default:
        return false;
    }
}

static bool mean_blocks(const rill_tex_level *lv, rill_tex_format f, bool srgb, float out[3]) {
    size_t bytes = (f == RILL_TEX_FORMAT_BC1 || f == RILL_TEX_FORMAT_BC4) ? 8u : 16u;
    uint32_t bw = (lv->width + 3u) / 4u, bh = (lv->height + 3u) / 4u;
    if ((uint64_t)bw * bh * bytes > lv->size) {
        return false;
    }
    uint32_t nx = RILL_MIN(bw, MEAN_BLOCKS), ny = RILL_MIN(bh, MEAN_BLOCKS);
    mean_acc acc = {0};
    uint8_t rgba[64];
    for (uint32_t j = 0; j < ny; j++) {
        uint32_t by = spread(j, ny, bh);
        for (uint32_t i = 0; i < nx; i++) {
            uint32_t bx = spread(i, nx, bw);
            if (!decode_block(f, lv->data + ((size_t)by * bw + bx) * bytes, rgba)) {
                return false;
            }
            for (uint32_t t = 0; t < 16; t++) { /* texels of a partial edge block that exist */
                if (bx * 4u + t % 4u < lv->width && by * 4u + t / 4u < lv->height) {
                    add_rgba8(&acc, &rgba[4 * t], srgb);
                }
            }
        }
    }
    return finish(&acc, out);
}

static bool mean_rgba16f(const rill_tex_level *lv, float out[3]) {
    if ((uint64_t)lv->width * lv->height * 8u > lv->size) {
        return false;
    }
    uint32_t nx = RILL_MIN(lv->width, MEAN_SIDE), ny = RILL_MIN(lv->height, MEAN_SIDE);
    mean_acc acc = {0};
    for (uint32_t j = 0; j < ny; j++) {
        uint32_t y = spread(j, ny, lv->height);
        for (uint32_t i = 0; i < nx; i++) {
            add_rgba16f(&acc, lv->data + ((size_t)y * lv->width + spread(i, nx, lv->width)) * 8);
        }
    }
    return finish(&acc, out);
}

bool rill__texture_mean_data(const rill_tex_data *tex, float out[3]) {
    if (!tex || !tex->level_count || tex->level_count > RILL__MAX_MIPS) {
        return false;
    }
    const rill_tex_level *lv = &tex->levels[tex->level_count - 1];
    if (!lv->data || !lv->width || !lv->height) {
        return false;
    }
    switch (tex->format) {
    case RILL_TEX_FORMAT_RGBA8:
        if ((uint64_t)lv->width * lv->height * 4u > lv->size) {
            return false;
        }
        return rill__texture_mean_rgba8(lv->data, lv->width, lv->height, tex->srgb, out);
    case RILL_TEX_FORMAT_RGBA16F:
        return mean_rgba16f(lv, out);
    default:
        return rill_tex_format_is_block(tex->format) &&
               mean_blocks(lv, tex->format, tex->srgb, out);
    }
}

void rill__texture_set_mean(tex_slot *t, bool ok, const float mean[3]) {
    t->gi_mean_ok = ok;
    for (int k = 0; k < 3; k++) {
        t->gi_mean[k] = ok ? mean[k] : 1.0f;
    }
}

void rill__texture_gi_tint(const rill_renderer *r, rill_texture tex, float out[3]) {
    out[0] = out[1] = out[2] = 1.0f;
    int32_t i = tex.id ? rill_pool_index(&r->tex_pool, tex.id) : -1;
    if (i >= 0 && r->textures[i].gi_mean_ok) {
        memcpy(out, r->textures[i].gi_mean, sizeof(float) * 3);
    }
}
