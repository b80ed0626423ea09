/* rmip_cube.c: the .rmip cube (version 4): reprojecting an equirectangular image onto six faces
 * with a box-filtered mip chain and writing it, reading one back (with the cube's own limits),
 * and resampling a cube into an equirectangular image (rill/formats/rmip_cube.h). */
#include "rill/formats/rmip_cube.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f

void rill_rmip_cube_face_dir(uint32_t face, float sc, float tc, float out_dir[3]) {
    const float d[6][3] = {{1.0f, -tc, -sc}, {-1.0f, -tc, sc}, {sc, 1.0f, tc},
                           {sc, -1.0f, -tc}, {sc, -tc, 1.0f},  {-sc, -tc, -1.0f}};
    memcpy(out_dir, d[face < 6 ? face : 0], sizeof(float) * 3);
}

/* The face and its coordinates sc, tc in [-1, 1] that direction d falls on (Vulkan's table). */
static uint32_t dir_face(const float d[3], float *sc, float *tc) {
    float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);
    uint32_t f;
    float s, t, m;
    if (ax >= ay && ax >= az) {
        f = d[0] >= 0.0f ? 0u : 1u;
        s = d[0] >= 0.0f ? -d[2] : d[2];
        t = -d[1];
        m = ax;
    } else if (ay >= az) {
        f = d[1] >= 0.0f ? 2u : 3u;
        s = d[0];
        t = d[1] >= 0.0f ? d[2] : -d[2];
        m = ay;
    } else {
        f = d[2] >= 0.0f ? 4u : 5u;
        s = d[2] >= 0.0f ? d[0] : -d[0];
        t = -d[1];
        m = az;
    }
    m = m > 0.0f ? m : 1.0f;
    *sc = s / m;
    *tc = t / m;
    return f;
}

/* Bilinear sample of an RGBA32F equirectangular image toward d (u repeats, v clamps). */
static void sample_equirect(const rill_image *img, const float d[3], float out[4]) {
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    float y = RILL_CLAMP(d[1] / len, -1.0f, 1.0f);
    float u = atan2f(d[0], -d[2]) * (0.5f / PI_F) + 0.5f;
    float v = acosf(y) / PI_F;
    float fx = u * (float)img->width - 0.5f, fy = v * (float)img->height - 0.5f;
    float x0f = floorf(fx), y0f = floorf(fy);
    float ax = fx - x0f, ay = fy - y0f;
    int32_t w = (int32_t)img->width, h = (int32_t)img->height;
    int32_t x0 = ((int32_t)x0f % w + w) % w, x1 = (x0 + 1) % w;
    int32_t y0 = RILL_CLAMP((int32_t)y0f, 0, h - 1), y1 = RILL_CLAMP((int32_t)y0f + 1, 0, h - 1);
    const float *px = img->pixels;
    const float *a = px + ((size_t)y0 * (size_t)w + (size_t)x0) * 4;
    const float *b = px + ((size_t)y0 * (size_t)w + (size_t)x1) * 4;
    const float *c = px + ((size_t)y1 * (size_t)w + (size_t)x0) * 4;
    const float *e = px + ((size_t)y1 * (size_t)w + (size_t)x1) * 4;
    for (int k = 0; k < 4; k++) {
        float top = a[k] + (b[k] - a[k]) * ax, bot = c[k] + (e[k] - c[k]) * ax;
        out[k] = top + (bot - top) * ay;
    }
}

static bool pow2(uint32_t v) {
    return v && (v & (v - 1u)) == 0;
}

static uint32_t auto_face(uint32_t width) {
    uint32_t f = 16;
    while (f * 2u <= width / 4u && f < RILL_RMIP_EQUIRECT_FACE) {
        f *= 2u;
    }
    return f;
}

/* Level 0 of the six faces (face-major, rows top to bottom) from the image: 2 x 2 samples a texel.
 */
static void fill_faces(const rill_image *img, uint32_t n, float *out) {
    for (uint32_t f = 0; f < 6; f++) {
        for (uint32_t y = 0; y < n; y++) {
            for (uint32_t x = 0; x < n; x++) {
                float acc[4] = {0, 0, 0, 0};
                for (int j = 0; j < 4; j++) {
                    float sc = 2.0f * ((float)x + 0.25f + 0.5f * (float)(j & 1)) / (float)n - 1.0f;
                    float tc = 2.0f * ((float)y + 0.25f + 0.5f * (float)(j >> 1)) / (float)n - 1.0f;
                    float d[3], s[4];
                    rill_rmip_cube_face_dir(f, sc, tc, d);
                    sample_equirect(img, d, s);
                    for (int k = 0; k < 4; k++) {
                        acc[k] += 0.25f * s[k];
                    }
                }
                memcpy(out + (((size_t)f * n + y) * n + x) * 4, acc, sizeof(acc));
            }
        }
    }
}

/* The next level of six faces of n x n (n >= 2) into six of n/2: 2 x 2 box filter. */
static void down_faces(const float *src, uint32_t n, float *dst) {
    uint32_t m = n / 2u;
    for (uint32_t f = 0; f < 6; f++) {
        const float *s = src + (size_t)f * n * n * 4;
        float *d = dst + (size_t)f * m * m * 4;
        for (uint32_t y = 0; y < m; y++) {
            for (uint32_t x = 0; x < m; x++) {
                for (int k = 0; k < 4; k++) {
                    size_t i = ((size_t)(2 * y) * n + 2 * x) * 4 + (size_t)k;
                    d[((size_t)y * m + x) * 4 + (size_t)k] =
                        0.25f * (s[i] + s[i + 4] + s[i + (size_t)n * 4] + s[i + (size_t)n * 4 + 4]);
                }
            }
        }
    }
}

static void to_half(const float *src, size_t count, uint16_t *dst) {
    for (size_t i = 0; i < count; i++) {
        float v = src[i];
        v = isnan(v) ? 0.0f : RILL_CLAMP(v, 0.0f, 65000.0f);
        dst[i] = rill_f32_to_f16(v);
    }
}

rill_result rill_rmip_cube_from_equirect(const rill_image *equirect, uint32_t face,
                                         uint8_t **out_data, size_t *out_size, rill_error *err) {
    *out_data = NULL;
    *out_size = 0;
    if (!equirect || equirect->type != RILL_PIXEL_RGBA32F || !equirect->pixels ||
        equirect->width < RILL_ENV_IMAGE_MIN_WIDTH ||
        equirect->height < RILL_ENV_IMAGE_MIN_HEIGHT) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rmip cube: needs an RGBA32F image of at least %ux%u",
                              RILL_ENV_IMAGE_MIN_WIDTH, RILL_ENV_IMAGE_MIN_HEIGHT);
    }
    uint32_t n = face ? face : auto_face(equirect->width);
    if (!pow2(n) || n < RILL_RMIP_MIN_FACE || n > RILL_RMIP_MAX_FACE) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rmip cube: face size %u (a power of two, %u to %u)", n,
                              RILL_RMIP_MIN_FACE, RILL_RMIP_MAX_FACE);
    }
    uint32_t levels = rill_image_mip_count(n, n);
    size_t texels = (size_t)6 * n * n;
    float *cur = rill_malloc_tagged(texels * 4 * sizeof(float), RILL_MEM_FORMATS);
    float *next = rill_malloc_tagged(texels * sizeof(float), RILL_MEM_FORMATS); /* n/2 faces */
    uint16_t *half = rill_malloc_tagged(texels * 4 * sizeof(uint16_t) * 2, RILL_MEM_FORMATS);
    rill_result res = RILL_OK;
    if (!cur || !next || !half) {
        res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rmip cube: out of memory (%u faces)", n);
        goto done;
    }
    rill_rmip_write_desc wd;
    memset(&wd, 0, sizeof(wd));
    wd.format = RILL_TEX_FORMAT_RGBA16F;
    wd.flags = RILL_RMIP_FLAG_HDR;
    wd.width = wd.height = n;
    wd.level_count = levels;
    wd.faces = 6;
    fill_faces(equirect, n, cur);
    /* The halves of every level, back to back (the chain is less than 4/3 of level 0). */
    uint16_t *h = half;
    for (uint32_t l = 0, s = n; l < levels; l++, s /= 2u) {
        size_t count = (size_t)6 * s * s * 4;
        to_half(cur, count, h);
        wd.level_data[l] = h;
        wd.level_size[l] = count * sizeof(uint16_t);
        h += count;
        if (s > 1) {
            down_faces(cur, s, next);
            float *t = cur;
            cur = next;
            next = t;
        }
    }
    res = rill_rmip_write(&wd, out_data, out_size, err);
done:
    rill_free(cur);
    rill_free(next);
    rill_free(half);
    return res;
}

rill_result rill_rmip_cube_read(const void *data, size_t size, const char *name, rill_tex_data *out,
                                rill_error *err) {
    if (!name) {
        name = "<memory>";
    }
    rill_result res = rill_rmip_read(data, size, name, out, err);
    if (res != RILL_OK) {
        return res;
    }
    const char *why = NULL;
    if (out->faces != 6) {
        why = "not a cube map (a version-4 file with the CUBE flag)";
    } else if (out->format != RILL_TEX_FORMAT_RGBA16F) {
        why = "a cube map must be RGBA16F";
    } else if (!pow2(out->width) || out->width < RILL_RMIP_MIN_FACE ||
               out->width > RILL_RMIP_MAX_FACE) {
        why = "cube faces must be a power of two from 4 to 4096 pixels";
    }
    if (why) {
        res = rill_error_set(err, RILL_ERR_UNSUPPORTED, "%s: %s (%ux%u %s)", name, why, out->width,
                             out->height, rill_tex_format_name(out->format));
        rill_tex_data_free(out);
    }
    return res;
}

/* Bilinear sample of one face of level lv (n x n halves, six faces back to back). */
static void sample_face(const uint16_t *faces, uint32_t n, uint32_t f, float sc, float tc,
                        float out[4]) {
    float fx = (sc * 0.5f + 0.5f) * (float)n - 0.5f, fy = (tc * 0.5f + 0.5f) * (float)n - 0.5f;
    fx = RILL_CLAMP(fx, 0.0f, (float)(n - 1));
    fy = RILL_CLAMP(fy, 0.0f, (float)(n - 1));
    uint32_t x0 = (uint32_t)fx, y0 = (uint32_t)fy;
    uint32_t x1 = RILL_MIN(x0 + 1u, n - 1u), y1 = RILL_MIN(y0 + 1u, n - 1u);
    float ax = fx - (float)x0, ay = fy - (float)y0;
    const uint16_t *base = faces + (size_t)f * n * n * 4;
    for (int k = 0; k < 4; k++) {
        float a = rill_f16_to_f32(base[((size_t)y0 * n + x0) * 4 + (size_t)k]);
        float b = rill_f16_to_f32(base[((size_t)y0 * n + x1) * 4 + (size_t)k]);
        float c = rill_f16_to_f32(base[((size_t)y1 * n + x0) * 4 + (size_t)k]);
        float d = rill_f16_to_f32(base[((size_t)y1 * n + x1) * 4 + (size_t)k]);
        float top = a + (b - a) * ax, bot = c + (d - c) * ax;
        out[k] = top + (bot - top) * ay;
    }
}

rill_result rill_rmip_cube_to_equirect(const rill_tex_data *cube, rill_image *out,
                                       rill_error *err) {
    memset(out, 0, sizeof(*out));
    if (!cube || cube->faces != 6 || cube->format != RILL_TEX_FORMAT_RGBA16F ||
        cube->level_count == 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rmip cube: not an RGBA16F cube");
    }
    uint32_t l = 0;
    while (l + 1 < cube->level_count && cube->levels[l].width > RILL_RMIP_EQUIRECT_FACE) {
        l++;
    }
    const rill_tex_level *lv = &cube->levels[l];
    uint32_t n = lv->width;
    if (lv->height != n || lv->size != (size_t)6 * n * n * 8) {
        return rill_error_set(err, RILL_ERR_CORRUPT, "rmip cube: level %u is not six faces", l);
    }
    RILL_TRY(rill_image_alloc(out, 4u * n, 2u * n, RILL_PIXEL_RGBA32F, err));
    const uint16_t *faces = (const uint16_t *)lv->data;
    float *px = out->pixels;
    for (uint32_t y = 0; y < out->height; y++) {
        float theta = ((float)y + 0.5f) / (float)out->height * PI_F;
        for (uint32_t x = 0; x < out->width; x++) {
            float phi = (((float)x + 0.5f) / (float)out->width - 0.5f) * 2.0f * PI_F;
            float d[3] = {sinf(theta) * sinf(phi), cosf(theta), -sinf(theta) * cosf(phi)};
            float sc, tc;
            uint32_t f = dir_face(d, &sc, &tc);
            sample_face(faces, n, f, sc, tc, px + ((size_t)y * out->width + x) * 4);
        }
    }
    out->source_channels = 4;
    out->source_hdr = true;
    return RILL_OK;
}
