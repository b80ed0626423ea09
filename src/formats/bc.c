/* bc.c: texture format size arithmetic, the BC1/BC4/BC5 encoders, the BC1/BC3/BC4/BC5 decoders,
 * and the whole-image encode/decode loops shared by every block format (BC7's block functions
 * live in bc7.c). */
#include "rill/formats/bc.h"

#include <math.h>
#include <string.h>

/* >>formats ----------------------------------------------------------------------------------- */

const char *rill_tex_format_name(rill_tex_format format) {
    switch (format) {
        RILL_TEX_FORMAT_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "none";
    }
}

bool rill_tex_format_is_block(rill_tex_format format) {
    return format == RILL_TEX_FORMAT_BC1 || format == RILL_TEX_FORMAT_BC3 ||
           format == RILL_TEX_FORMAT_BC4 || format == RILL_TEX_FORMAT_BC5 ||
           format == RILL_TEX_FORMAT_BC7;
}

uint32_t rill_tex_format_unit_bytes(rill_tex_format format) {
    switch (format) {
    case RILL_TEX_FORMAT_RGBA8:
        return 4;
    case RILL_TEX_FORMAT_RGBA16F:
        return 8;
    case RILL_TEX_FORMAT_BC1:
    case RILL_TEX_FORMAT_BC4:
        return 8;
    case RILL_TEX_FORMAT_BC3:
    case RILL_TEX_FORMAT_BC5:
    case RILL_TEX_FORMAT_BC7:
        return 16;
    default:
        return 0;
    }
}

bool rill_tex_level_size(rill_tex_format format, uint32_t width, uint32_t height,
                         uint64_t *out_size) {
    *out_size = 0;
    uint32_t unit = rill_tex_format_unit_bytes(format);
    if (unit == 0 || width == 0 || height == 0) {
        return false;
    }
    uint64_t w = width, h = height;
    if (rill_tex_format_is_block(format)) {
        w = (w + 3) / 4;
        h = (h + 3) / 4;
    }
    /* w * h fits in 64 bits (both are below 2^32); the factor of up to 16 may not. */
    if (w * h > UINT64_MAX / unit) {
        return false;
    }
    *out_size = w * h * unit;
    return true;
}

/* >>bc1 --------------------------------------------------------------------------------------- */

static inline int expand5(int v) {
    return (v << 3) | (v >> 2);
}
static inline int expand6(int v) {
    return (v << 2) | (v >> 4);
}

static void bc1_palette(uint16_t c0, uint16_t c1, bool force4, int pal[4][4]) {
    int a[3] = {expand5(c0 >> 11), expand6((c0 >> 5) & 63), expand5(c0 & 31)};
    int b[3] = {expand5(c1 >> 11), expand6((c1 >> 5) & 63), expand5(c1 & 31)};
    for (int c = 0; c < 3; c++) {
        pal[0][c] = a[c];
        pal[1][c] = b[c];
        if (force4 || c0 > c1) {
            pal[2][c] = (2 * a[c] + b[c] + 1) / 3;
            pal[3][c] = (a[c] + 2 * b[c] + 1) / 3;
        } else {
            pal[2][c] = (a[c] + b[c]) / 2;
            pal[3][c] = 0;
        }
    }
    pal[0][3] = pal[1][3] = pal[2][3] = 255;
    pal[3][3] = (force4 || c0 > c1) ? 255 : 0;
}

static void bc1_decode_color(const uint8_t block[8], bool force4, uint8_t out_rgba[64]) {
    uint16_t c0 = (uint16_t)(block[0] | (block[1] << 8));
    uint16_t c1 = (uint16_t)(block[2] | (block[3] << 8));
    uint32_t bits = (uint32_t)block[4] | ((uint32_t)block[5] << 8) | ((uint32_t)block[6] << 16) |
                    ((uint32_t)block[7] << 24);
    int pal[4][4];
    bc1_palette(c0, c1, force4, pal);
    for (int i = 0; i < 16; i++) {
        int k = (int)((bits >> (2 * i)) & 3u);
        for (int c = 0; c < 4; c++) {
            out_rgba[4 * i + c] = (uint8_t)pal[k][c];
        }
    }
}

void rill_bc1_decode_block(const uint8_t block[8], uint8_t out_rgba[64]) {
    bc1_decode_color(block, false, out_rgba);
}

static inline uint16_t pack565(const float e[3]) {
    int r = (int)(RILL_CLAMP(e[0], 0.0f, 255.0f) * 31.0f / 255.0f + 0.5f);
    int g = (int)(RILL_CLAMP(e[1], 0.0f, 255.0f) * 63.0f / 255.0f + 0.5f);
    int b = (int)(RILL_CLAMP(e[2], 0.0f, 255.0f) * 31.0f / 255.0f + 0.5f);
    return (uint16_t)((r << 11) | (g << 5) | b);
}

/* Indices and error of 16 pixels against the 4-colour palette of (c0, c1). */
static uint32_t bc1_eval(const int px[16][3], uint16_t c0, uint16_t c1, uint8_t idx[16]) {
    int pal[4][4];
    bc1_palette(c0, c1, true, pal);
    uint32_t err = 0;
    for (int i = 0; i < 16; i++) {
        uint32_t best = UINT32_MAX;
        for (int k = 0; k < 4; k++) {
            uint32_t e = 0;
            for (int c = 0; c < 3; c++) {
                int d = px[i][c] - pal[k][c];
                e += (uint32_t)(d * d);
            }
            if (e < best) {
                best = e;
                idx[i] = (uint8_t)k;
            }
        }
        err += best;
    }
    return err;
}

void rill_bc1_encode_block(const uint8_t rgba[64], uint8_t out_block[8]) {
    int px[16][3];
    float mean[3] = {0, 0, 0};
    for (int i = 0; i < 16; i++) {
        for (int c = 0; c < 3; c++) {
            px[i][c] = rgba[4 * i + c];
            mean[c] += (float)px[i][c] / 16.0f;
        }
    }
    float cov[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 16; i++) {
        float d[3] = {(float)px[i][0] - mean[0], (float)px[i][1] - mean[1],
                      (float)px[i][2] - mean[2]};
        cov[0] += d[0] * d[0];
        cov[1] += d[0] * d[1];
        cov[2] += d[0] * d[2];
        cov[3] += d[1] * d[1];
        cov[4] += d[1] * d[2];
        cov[5] += d[2] * d[2];
    }
    float axis[3] = {1, 1, 1};
    for (int it = 0; it < 8; it++) {
        float r[3] = {cov[0] * axis[0] + cov[1] * axis[1] + cov[2] * axis[2],
                      cov[1] * axis[0] + cov[3] * axis[1] + cov[4] * axis[2],
                      cov[2] * axis[0] + cov[4] * axis[1] + cov[5] * axis[2]};
        float mx = fmaxf(fabsf(r[0]), fmaxf(fabsf(r[1]), fabsf(r[2])));
        if (mx < 1e-9f) {
            break;
        }
        for (int c = 0; c < 3; c++) {
            axis[c] = r[c] / mx;
        }
    }
    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int c = 0; c < 3; c++) {
        axis[c] /= len;
    }
    float tmin = 0, tmax = 0;
    for (int i = 0; i < 16; i++) {
        float t = 0;
        for (int c = 0; c < 3; c++) {
            t += ((float)px[i][c] - mean[c]) * axis[c];
        }
        tmin = fminf(tmin, t);
        tmax = fmaxf(tmax, t);
    }
    float e0[3], e1[3];
    for (int c = 0; c < 3; c++) {
        e0[c] = mean[c] + tmax * axis[c];
        e1[c] = mean[c] + tmin * axis[c];
    }
    uint16_t best0 = pack565(e0), best1 = pack565(e1);
    uint8_t best_idx[16];
    uint32_t best_err = bc1_eval(px, best0, best1, best_idx);
    /* Least-squares refinement on the 4-colour weights 0, 1/3, 2/3, 1. */
    static const float w[4] = {0.0f, 1.0f, 1.0f / 3.0f, 2.0f / 3.0f};
    for (int it = 0; it < 3 && best_err > 0; it++) {
        float a = 0, b = 0, cc = 0, x0[3] = {0, 0, 0}, x1[3] = {0, 0, 0};
        for (int i = 0; i < 16; i++) {
            float t = w[best_idx[i]], u = 1.0f - t;
            a += u * u;
            b += u * t;
            cc += t * t;
            for (int c = 0; c < 3; c++) {
                x0[c] += u * (float)px[i][c];
                x1[c] += t * (float)px[i][c];
            }
        }
        float det = a * cc - b * b;
        if (fabsf(det) < 1e-6f) {
            break;
        }
        for (int c = 0; c < 3; c++) {
            e0[c] = (cc * x0[c] - b * x1[c]) / det;
            e1[c] = (a * x1[c] - b * x0[c]) / det;
        }
        uint16_t c0 = pack565(e0), c1 = pack565(e1);
        uint8_t idx[16];
        uint32_t err = bc1_eval(px, c0, c1, idx);
        if (err >= best_err) {
            break;
        }
        best_err = err;
        best0 = c0;
        best1 = c1;
        memcpy(best_idx, idx, 16);
    }
    /* Keep the 4-colour mode: c0 must compare greater than c1. */
    if (best0 < best1) {
        uint16_t t = best0;
        best0 = best1;
        best1 = t;
        static const uint8_t swap[4] = {1, 0, 3, 2};
        for (int i = 0; i < 16; i++) {
            best_idx[i] = swap[best_idx[i]];
        }
    }
    uint32_t bits = 0;
    if (best0 != best1) {
        for (int i = 0; i < 16; i++) {
            bits |= (uint32_t)best_idx[i] << (2 * i);
        }
    }
    out_block[0] = (uint8_t)best0;
    out_block[1] = (uint8_t)(best0 >> 8);
    out_block[2] = (uint8_t)best1;
    out_block[3] = (uint8_t)(best1 >> 8);
    for (int i = 0; i < 4; i++) {
        out_block[4 + i] = (uint8_t)(bits >> (8 * i));
    }
}

/* >>bc4 --------------------------------------------------------------------------------------- */

static void bc4_palette(int r0, int r1, int pal[8]) {
    pal[0] = r0;
    pal[1] = r1;
    if (r0 > r1) {
        for (int i = 2; i < 8; i++) {
            pal[i] = ((8 - i) * r0 + (i - 1) * r1 + 3) / 7;
        }
    } else {
        for (int i = 2; i < 6; i++) {
            pal[i] = ((6 - i) * r0 + (i - 1) * r1 + 2) / 5;
        }
        pal[6] = 0;
        pal[7] = 255;
    }
}

void rill_bc4_decode_block(const uint8_t block[8], uint8_t out_values[16]) {
    int pal[8];
    bc4_palette(block[0], block[1], pal);
    uint64_t bits = 0;
    for (int i = 0; i < 6; i++) {
        bits |= (uint64_t)block[2 + i] << (8 * i);
    }
    for (int i = 0; i < 16; i++) {
        out_values[i] = (uint8_t)pal[(bits >> (3 * i)) & 7u];
    }
}

static uint32_t bc4_eval(const uint8_t v[16], int r0, int r1, uint8_t idx[16]) {
    int pal[8];
    bc4_palette(r0, r1, pal);
    uint32_t err = 0;
    for (int i = 0; i < 16; i++) {
        uint32_t best = UINT32_MAX;
        for (int k = 0; k < 8; k++) {
            int d = v[i] - pal[k];
            uint32_t e = (uint32_t)(d * d);
            if (e < best) {
                best = e;
                idx[i] = (uint8_t)k;
            }
        }
        err += best;
    }
    return err;
}

void rill_bc4_encode_block(const uint8_t values[16], uint8_t out_block[8]) {
    int mn = 255, mx = 0, mn6 = 255, mx6 = 0;
    for (int i = 0; i < 16; i++) {
        mn = RILL_MIN(mn, (int)values[i]);
        mx = RILL_MAX(mx, (int)values[i]);
        if (values[i] != 0 && values[i] != 255) {
            mn6 = RILL_MIN(mn6, (int)values[i]);
            mx6 = RILL_MAX(mx6, (int)values[i]);
        }
    }
    int b0 = mx, b1 = mn;
    uint8_t best_idx[16];
    uint32_t best = bc4_eval(values, b0, b1, best_idx);
    if (mx > mn) {
        /* 8-value mode (r0 > r1): search a small neighbourhood of the extremes; the best pair is
         * often slightly inside the range. */
        /* The neighbourhood grows with the range but is capped: 8 x 8 pairs at most. */
        int span = RILL_CLAMP((mx - mn) / 14, 1, 3);
        for (int r0 = mx - 2 * span; r0 <= mx + 1 && best; r0++) {
            for (int r1 = mn - 1; r1 <= mn + 2 * span && best; r1++) {
                if (r0 > 255 || r1 < 0 || r0 <= r1) {
                    continue;
                }
                uint8_t idx[16];
                uint32_t e = bc4_eval(values, r0, r1, idx);
                if (e < best) {
                    best = e;
                    b0 = r0;
                    b1 = r1;
                    memcpy(best_idx, idx, 16);
                }
            }
        }
        /* 6-value mode (r0 <= r1) with exact 0 and 255 for blocks that hold the extremes. */
        if (best && mn6 <= mx6 && (mn == 0 || mx == 255)) {
            uint8_t idx[16];
            uint32_t e = bc4_eval(values, mn6, mx6, idx);
            if (e < best) {
                best = e;
                b0 = mn6;
                b1 = mx6;
                memcpy(best_idx, idx, 16);
            }
        }
    }
    out_block[0] = (uint8_t)b0;
    out_block[1] = (uint8_t)b1;
    uint64_t bits = 0;
    for (int i = 0; i < 16; i++) {
        bits |= (uint64_t)best_idx[i] << (3 * i);
    }
    for (int i = 0; i < 6; i++) {
        out_block[2 + i] = (uint8_t)(bits >> (8 * i));
    }
}

/* >>bc5, bc3 ---------------------------------------------------------------------------------- */

void rill_bc5_encode_block(const uint8_t rgba[64], uint8_t out_block[16]) {
    uint8_t r[16], g[16];
    for (int i = 0; i < 16; i++) {
        r[i] = rgba[4 * i];
        g[i] = rgba[4 * i + 1];
    }
    rill_bc4_encode_block(r, out_block);
    rill_bc4_encode_block(g, out_block + 8);
}

void rill_bc5_decode_block(const uint8_t block[16], uint8_t out_rgba[64]) {
    uint8_t r[16], g[16];
    rill_bc4_decode_block(block, r);
    rill_bc4_decode_block(block + 8, g);
    for (int i = 0; i < 16; i++) {
        out_rgba[4 * i] = r[i];
        out_rgba[4 * i + 1] = g[i];
        out_rgba[4 * i + 2] = 0;
        out_rgba[4 * i + 3] = 255;
    }
}

void rill_bc3_decode_block(const uint8_t block[16], uint8_t out_rgba[64]) {
    uint8_t a[16];
    rill_bc4_decode_block(block, a);
    bc1_decode_color(block + 8, true, out_rgba);
    for (int i = 0; i < 16; i++) {
        out_rgba[4 * i + 3] = a[i];
    }
}

/* >>images ------------------------------------------------------------------------------------ */

rill_result rill_bc_encode_image(rill_tex_format format, const uint8_t *rgba, uint32_t width,
                                 uint32_t height, size_t stride, const rill_bc7_params *bc7,
                                 uint8_t *dst, size_t dst_size, rill_error *err) {
    if (!rgba || !dst || width == 0 || height == 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "bc encode: empty image or NULL");
    }
    if (format != RILL_TEX_FORMAT_BC1 && format != RILL_TEX_FORMAT_BC4 &&
        format != RILL_TEX_FORMAT_BC5 && format != RILL_TEX_FORMAT_BC7) {
        return rill_error_set(err, RILL_ERR_UNSUPPORTED, "bc encode: cannot encode format %s",
                              rill_tex_format_name(format));
    }
    uint64_t need = 0;
    if (!rill_tex_level_size(format, width, height, &need) || need > dst_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "bc encode: destination holds %zu bytes, %llu needed", dst_size,
                              (unsigned long long)need);
    }
    if (stride == 0) {
        stride = (size_t)width * 4;
    }
    uint32_t unit = rill_tex_format_unit_bytes(format);
    uint32_t bw = (width + 3) / 4, bh = (height + 3) / 4;
    uint8_t *out = dst;
    for (uint32_t by = 0; by < bh; by++) {
        for (uint32_t bx = 0; bx < bw; bx++) {
            uint8_t blk[64];
            for (uint32_t y = 0; y < 4; y++) {
                uint32_t sy = RILL_MIN(by * 4 + y, height - 1);
                const uint8_t *row = rgba + (size_t)sy * stride;
                for (uint32_t x = 0; x < 4; x++) {
                    uint32_t sx = RILL_MIN(bx * 4 + x, width - 1);
                    memcpy(blk + (y * 4 + x) * 4, row + (size_t)sx * 4, 4);
                }
            }
            switch (format) {
            case RILL_TEX_FORMAT_BC1:
                rill_bc1_encode_block(blk, out);
                break;
            case RILL_TEX_FORMAT_BC4: {
                uint8_t v[16];
                for (int i = 0; i < 16; i++) {
                    v[i] = blk[4 * i];
                }
                rill_bc4_encode_block(v, out);
                break;
            }
            case RILL_TEX_FORMAT_BC5:
                rill_bc5_encode_block(blk, out);
                break;
            default:
                rill_bc7_encode_block(blk, bc7, out);
                break;
            }
            out += unit;
        }
    }
    return RILL_OK;
}

rill_result rill_bc_decode_image(rill_tex_format format, const uint8_t *src, size_t src_size,
                                 uint32_t width, uint32_t height, uint8_t *dst, size_t dst_size,
                                 rill_error *err) {
    if (!src || !dst || width == 0 || height == 0 || !rill_tex_format_is_block(format)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "bc decode: bad arguments");
    }
    uint64_t need = 0;
    rill_tex_level_size(format, width, height, &need);
    if (need > src_size) {
        return rill_error_set(err, RILL_ERR_TRUNCATED, "bc decode: %zu bytes given, %llu needed",
                              src_size, (unsigned long long)need);
    }
    if ((uint64_t)width * height * 4 > dst_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "bc decode: destination too small");
    }
    uint32_t unit = rill_tex_format_unit_bytes(format);
    uint32_t bw = (width + 3) / 4, bh = (height + 3) / 4;
    const uint8_t *in = src;
    for (uint32_t by = 0; by < bh; by++) {
        for (uint32_t bx = 0; bx < bw; bx++) {
            uint8_t blk[64];
            switch (format) {
            case RILL_TEX_FORMAT_BC1:
                rill_bc1_decode_block(in, blk);
                break;
            case RILL_TEX_FORMAT_BC3:
                rill_bc3_decode_block(in, blk);
                break;
            case RILL_TEX_FORMAT_BC4: {
                uint8_t v[16];
                rill_bc4_decode_block(in, v);
                for (int i = 0; i < 16; i++) {
                    blk[4 * i] = blk[4 * i + 1] = blk[4 * i + 2] = v[i];
                    blk[4 * i + 3] = 255;
                }
                break;
            }
            case RILL_TEX_FORMAT_BC5:
                rill_bc5_decode_block(in, blk);
                break;
            default:
                rill_bc7_decode_block(in, blk);
                break;
            }
            for (uint32_t y = 0; y < 4 && by * 4 + y < height; y++) {
                for (uint32_t x = 0; x < 4 && bx * 4 + x < width; x++) {
                    memcpy(dst + (((size_t)(by * 4 + y) * width) + bx * 4 + x) * 4,
                           blk + (y * 4 + x) * 4, 4);
                }
            }
            in += unit;
        }
    }
    return RILL_OK;
}
