/* heights.c: where a terrain's heights come from: a 16-bit PNG, a raw 16-bit or 32-bit float file,
 * or a deterministic noise. Every file is treated as hostile: its size is checked against the
 * terrain's sample count before anything is decoded, and every sample must be finite. */
#include "terrain_internal.h"

#include "rill/formats/image.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* >>noise */

/* A 32-bit integer hash of a lattice point (a murmur3-style finalizer over the mixed inputs). */
static uint32_t lattice_hash(int32_t x, int32_t z, uint32_t seed) {
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)z * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static float lattice_value(int32_t x, int32_t z, uint32_t seed) {
    return (float)(lattice_hash(x, z, seed) >> 8) * (1.0f / 16777216.0f);
}

static float smooth(float t) {
    return t * t * (3.0f - 2.0f * t);
}

static float value_noise(float x, float z, uint32_t seed) {
    float fx = floorf(x), fz = floorf(z);
    int32_t ix = (int32_t)fx, iz = (int32_t)fz;
    float tx = smooth(x - fx), tz = smooth(z - fz);
    float a = lattice_value(ix, iz, seed), b = lattice_value(ix + 1, iz, seed);
    float c = lattice_value(ix, iz + 1, seed), d = lattice_value(ix + 1, iz + 1, seed);
    float top = a + (b - a) * tx, bottom = c + (d - c) * tx;
    return top + (bottom - top) * tz;
}

/* Six octaves of value noise, each half the size and half the weight of the one before. */
float rill_terrain_noise(uint32_t seed, float noise_scale, float x, float z) {
    float freq = 1.0f / (noise_scale > 0.0f ? noise_scale : 1.0f);
    float amp = 1.0f, sum = 0.0f, norm = 0.0f;
    for (uint32_t o = 0; o < 6; o++) {
        sum += amp * value_noise(x * freq, z * freq, seed + o * 1013u);
        norm += amp;
        amp *= 0.5f;
        freq *= 2.0f;
    }
    return sum / norm;
}

/* >>files */

/* The chunk counts and resolution a w x h heightmap fits as it is ("; it fits chunks_x: 7,
 * chunks_z: 7, resolution: 74"): resolution - 1 divides both sides less one, at most 256 chunks
 * a side; the resolution nearest the default 129 when several do. "" when none does. */
static void fit_hint(uint32_t w, uint32_t h, char *out, size_t cap) {
    uint32_t best = 0;
    for (uint32_t d = 1; w > 1 && h > 1 && d < RILL_TERRAIN_MAX_RESOLUTION; d++) {
        if ((w - 1) % d || (h - 1) % d || (w - 1) / d > RILL_TERRAIN_MAX_CHUNKS_SIDE ||
            (h - 1) / d > RILL_TERRAIN_MAX_CHUNKS_SIDE) {
            continue;
        }
        uint32_t gap = d > 128 ? d - 128 : 128 - d, best_gap = best > 128 ? best - 128 : 128 - best;
        if (!best || gap < best_gap) {
            best = d;
        }
    }
    out[0] = '\0';
    if (best) {
        snprintf(out, cap, "; it fits chunks_x: %u, chunks_z: %u, resolution: %u", (w - 1) / best,
                 (h - 1) / best, best + 1);
    }
}

static rill_result read_png(const uint8_t *data, size_t size, const char *path, uint32_t sx,
                            uint32_t sz, float *out, rill_error *err) {
    uint32_t w = 0, h = 0;
    uint16_t *samples = NULL;
    rill_result r = rill_image_load_u16(data, size, path, &w, &h, &samples, err);
    if (r != RILL_OK) {
        return r;
    }
    if (w != sx || h != sz) {
        rill_free(samples);
        char hint[96];
        fit_hint(w, h, hint, sizeof hint);
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "%s: heightmap is %ux%u, the terrain needs %ux%u samples "
                              "(chunks * (resolution - 1) + 1 a side)%s",
                              path, w, h, sx, sz, hint);
    }
    for (size_t i = 0; i < (size_t)sx * sz; i++) {
        out[i] = (float)samples[i] / 65535.0f;
    }
    rill_free(samples);
    return RILL_OK;
}

static rill_result read_raw(const uint8_t *data, size_t size, const char *path, uint32_t sx,
                            uint32_t sz, bool f32, float *out, rill_error *err) {
    size_t bytes_per = f32 ? 4u : 2u;
    size_t want = (size_t)sx * sz * bytes_per;
    if (size < want) {
        return rill_error_set(err, RILL_ERR_TRUNCATED,
                              "%s: truncated: %zu bytes, a %ux%u %s heightmap needs %zu", path,
                              size, sx, sz, f32 ? "32-bit float" : "16-bit", want);
    }
    if (size > want) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "%s: wrong size: %zu bytes, a %ux%u %s heightmap is exactly %zu",
                              path, size, sx, sz, f32 ? "32-bit float" : "16-bit", want);
    }
    for (size_t i = 0; i < (size_t)sx * sz; i++) {
        const uint8_t *p = data + i * bytes_per;
        if (f32) {
            uint32_t bits =
                (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            float v;
            memcpy(&v, &bits, sizeof v);
            if (!isfinite(v)) {
                return rill_error_set(err, RILL_ERR_CORRUPT,
                                      "%s: sample (%zu, %zu) is not a finite number", path, i % sx,
                                      i / sx);
            }
            out[i] = v;
        } else {
            out[i] = (float)((uint32_t)p[0] | (uint32_t)p[1] << 8) / 65535.0f;
        }
    }
    return RILL_OK;
}

rill_result rill_terrain_load_heights(rill_vfs *vfs, const rill_terrain *t, const char *path,
                                      float **out_heights, uint32_t *out_samples_x,
                                      uint32_t *out_samples_z, rill_error *err) {
    *out_heights = NULL;
    *out_samples_x = *out_samples_z = 0;
    rill_terrain c = *t;
    rill__terrain_sanitize(&c);
    uint32_t sx = c.chunks_x * (c.resolution - 1u) + 1u;
    uint32_t sz = c.chunks_z * (c.resolution - 1u) + 1u;
    const char *name = path && path[0] ? path : "<generated terrain>";
    rill_result r = rill_limit_check(RILL_LIMIT_IMAGE_PIXELS, (uint64_t)sx * sz, name, err);
    if (r != RILL_OK) {
        return r;
    }
    float *h = rill_malloc_tagged((size_t)sx * sz * sizeof(float), RILL_MEM_TERRAIN);
    if (!h) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    }
    if (!path || !path[0]) {
        float step = c.chunk_size / (float)(c.resolution - 1u);
        for (uint32_t z = 0; z < sz; z++) {
            for (uint32_t x = 0; x < sx; x++) {
                h[(size_t)z * sx + x] =
                    rill_terrain_noise(c.seed, c.noise_scale, (float)x * step, (float)z * step);
            }
        }
    } else {
        if (!vfs) {
            rill_free(h);
            return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: no file system to read it from",
                                  path);
        }
        uint8_t *data = NULL;
        size_t size = 0;
        r = rill_vfs_read_all(vfs, path, &data, &size, err);
        if (r == RILL_OK) {
            if (rill_path_ext_is(path, "png")) {
                r = read_png(data, size, path, sx, sz, h, err);
            } else if (rill_path_ext_is(path, "r16")) {
                r = read_raw(data, size, path, sx, sz, false, h, err);
            } else if (rill_path_ext_is(path, "r32") || rill_path_ext_is(path, "f32")) {
                r = read_raw(data, size, path, sx, sz, true, h, err);
            } else {
                r = rill_error_set(err, RILL_ERR_UNSUPPORTED,
                                   "%s: unknown heightmap type (use .png, .r16, .r32 or .f32)",
                                   path);
            }
        }
        rill_free(data);
        if (r != RILL_OK) {
            rill_free(h);
            return r;
        }
    }
    for (size_t i = 0; i < (size_t)sx * sz; i++) {
        h[i] = h[i] * c.height_scale + c.height_offset;
        if (!isfinite(h[i])) {
            rill_free(h);
            return rill_error_set(err, RILL_ERR_CORRUPT,
                                  "%s: sample (%zu, %zu) times height_scale is not finite", name,
                                  i % sx, i / sx);
        }
    }
    *out_heights = h;
    *out_samples_x = sx;
    *out_samples_z = sz;
    return RILL_OK;
}
