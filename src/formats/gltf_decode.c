/* gltf_decode.c: the glTF reader's accessor kernels: raw bytes of a buffer view to floats or to
 * 32-bit indices. Callers have already checked every byte range; these loops only convert.
 *
 * Why one loop per component type: the reader spends most of a large file's load here, and a
 * loop with the type fixed (a memcpy for tightly packed floats, a widening loop for indices)
 * runs at memory speed where a per-component switch does not. The integer normalizations are
 * glTF's: signed values divide by the type's maximum and clamp at -1, unsigned ones divide by
 * the maximum; the divisions are kept (not multiplications by a reciprocal) so every value is
 * the correctly rounded quotient. */
#include <math.h>
#include <string.h>

#include "gltf_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define RILL__GLTF_SSE2 1
#endif

static void floats_f32(float *dst, const uint8_t *src, size_t count, uint32_t comps,
                       size_t stride) {
    size_t elem = (size_t)comps * sizeof(float);
    if (stride == elem) {
        memcpy(dst, src, count * elem);
        return;
    }
    /* Interleaved vertices: the component count is fixed per call, so these copies compile to a
     * load and a store each. */
    switch (comps) {
    case 2:
        for (size_t e = 0; e < count; e++) {
            memcpy(dst + e * 2, src + e * stride, 8);
        }
        break;
    case 3:
        for (size_t e = 0; e < count; e++) {
            memcpy(dst + e * 3, src + e * stride, 12);
        }
        break;
    case 4:
        for (size_t e = 0; e < count; e++) {
            memcpy(dst + e * 4, src + e * stride, 16);
        }
        break;
    default:
        for (size_t e = 0; e < count; e++) {
            memcpy(dst + e * comps, src + e * stride, elem);
        }
        break;
    }
}

#define RILL__DECODE_INT(T, EXPR)                                                                  \
    for (size_t e = 0; e < count; e++) {                                                           \
        const uint8_t *p = src + e * stride;                                                       \
        for (uint32_t c = 0; c < comps; c++) {                                                     \
            T v;                                                                                   \
            memcpy(&v, p + c * sizeof(T), sizeof(T));                                              \
            dst[e * comps + c] = (EXPR);                                                           \
        }                                                                                          \
    }

void rill__gltf_decode_floats(float *dst, const uint8_t *src, size_t count, uint32_t comps,
                              size_t stride, uint32_t ct, bool normalized) {
    switch (ct) {
    case GL_FLOAT:
        floats_f32(dst, src, count, comps, stride);
        break;
    case GL_BYTE:
        if (normalized) {
            RILL__DECODE_INT(int8_t, fmaxf((float)v / 127.0f, -1.0f))
        } else {
            RILL__DECODE_INT(int8_t, (float)v)
        }
        break;
    case GL_UNSIGNED_BYTE:
        if (normalized) {
            RILL__DECODE_INT(uint8_t, (float)v / 255.0f)
        } else {
            RILL__DECODE_INT(uint8_t, (float)v)
        }
        break;
    case GL_SHORT:
        if (normalized) {
            RILL__DECODE_INT(int16_t, fmaxf((float)v / 32767.0f, -1.0f))
        } else {
            RILL__DECODE_INT(int16_t, (float)v)
        }
        break;
    case GL_UNSIGNED_SHORT:
        if (normalized) {
            RILL__DECODE_INT(uint16_t, (float)v / 65535.0f)
        } else {
            RILL__DECODE_INT(uint16_t, (float)v)
        }
        break;
    case GL_UNSIGNED_INT:
        if (normalized) {
            RILL__DECODE_INT(uint32_t, (float)((double)v / 4294967295.0))
        } else {
            RILL__DECODE_INT(uint32_t, (float)v)
        }
        break;
    default:
        memset(dst, 0, count * comps * sizeof(float));
        break;
    }
}

#undef RILL__DECODE_INT

/* Widens `count` indices to uint32 and reports whether any is >= limit; the check is a branch-free
 * OR so the loop vectorizes, and the rare failure is located afterwards. */
#define RILL__DECODE_IDX(T)                                                                        \
    do {                                                                                           \
        uint32_t bad = 0;                                                                          \
        for (size_t i = 0; i < count; i++) {                                                       \
            T v;                                                                                   \
            memcpy(&v, src + i * stride, sizeof(T));                                               \
            dst[i] = v;                                                                            \
            bad |= (uint32_t)(v >= limit);                                                         \
        }                                                                                          \
        if (!bad) {                                                                                \
            return count;                                                                          \
        }                                                                                          \
    } while (0)

size_t rill__gltf_decode_indices(uint32_t *dst, const uint8_t *src, size_t count, size_t stride,
                                 uint32_t ct, uint32_t limit) {
    if (ct == GL_UNSIGNED_INT && stride == 4) {
        /* Copy and range check in one pass: the indices are read once, not twice. */
        uint32_t bad = 0;
        size_t i0 = 0;
#if RILL__GLTF_SSE2
        /* SSE2 has no unsigned compare: flipping the sign bit of both sides makes the signed
         * one order them as unsigned. ok stays all ones while every value is below limit. */
        const __m128i flip = _mm_set1_epi32((int)0x80000000u);
        const __m128i lim = _mm_xor_si128(_mm_set1_epi32((int)limit), flip);
        __m128i ok = _mm_set1_epi32(-1);
        for (; i0 + 4 <= count; i0 += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i0 * 4));
            _mm_storeu_si128((__m128i *)(void *)(dst + i0), v);
            ok = _mm_and_si128(ok, _mm_cmpgt_epi32(lim, _mm_xor_si128(v, flip)));
        }
        bad = (uint32_t)(_mm_movemask_epi8(ok) != 0xFFFF);
#endif
        for (size_t i = i0; i < count; i++) {
            uint32_t v;
            memcpy(&v, src + i * 4, 4);
            dst[i] = v;
            bad |= (uint32_t)(v >= limit);
        }
        if (!bad) {
            return count;
        }
    } else if (ct == GL_UNSIGNED_INT) {
        RILL__DECODE_IDX(uint32_t);
    } else if (ct == GL_UNSIGNED_SHORT) {
        RILL__DECODE_IDX(uint16_t);
    } else {
        RILL__DECODE_IDX(uint8_t);
    }
    size_t i = 0;
    while (i < count && dst[i] < limit) {
        i++;
    }
    return i;
}

#undef RILL__DECODE_IDX

/* The three check kernels below read `src` (any alignment) and, when `dst` is not NULL, copy it
 * there in the same pass: a load pays for both the copy and the check. */

static inline float load_f(const uint8_t *p) {
    float f;
    memcpy(&f, p, 4);
    return f;
}

static size_t positions_impl(const uint8_t *src, float *dst, size_t count, float lo[3],
                             float hi[3]) {
    float l[3] = {0, 0, 0}, h[3] = {0, 0, 0};
    uint32_t nan = 0;
    for (int k = 0; count && k < 3; k++) {
        l[k] = h[k] = load_f(src + k * 4);
    }
    size_t v0 = 0;
#if RILL__GLTF_SSE2
    /* Four vertices are three vectors; lane j of vector p holds coordinate (4p + j) mod 3, so
     * per-lane minima and maxima fold back into x, y and z at the end. */
    if (count >= 4) {
        __m128 mn[3], mx[3], un = _mm_setzero_ps();
        for (int p = 0; p < 3; p++) {
            mn[p] = mx[p] = _mm_loadu_ps((const float *)(const void *)(src + p * 16));
        }
        for (; v0 + 4 <= count; v0 += 4) {
            for (int p = 0; p < 3; p++) {
                size_t off = v0 * 12 + (size_t)p * 16;
                __m128 x = _mm_loadu_ps((const float *)(const void *)(src + off));
                if (dst) {
                    _mm_storeu_ps(dst + off / 4, x);
                }
                mn[p] = _mm_min_ps(x, mn[p]);
                mx[p] = _mm_max_ps(x, mx[p]);
                un = _mm_or_ps(un, _mm_cmpunord_ps(x, x));
            }
        }
        nan |= (uint32_t)(_mm_movemask_ps(un) != 0);
        float a[12], b[12];
        for (int p = 0; p < 3; p++) {
            _mm_storeu_ps(a + p * 4, mn[p]);
            _mm_storeu_ps(b + p * 4, mx[p]);
        }
        for (int j = 0; j < 12; j++) {
            l[j % 3] = a[j] < l[j % 3] ? a[j] : l[j % 3];
            h[j % 3] = b[j] > h[j % 3] ? b[j] : h[j % 3];
        }
    }
#endif
    /* min/max ignore NaN (every comparison with it is false) and carry infinities into the
     * bounds, so one pass finds both the bounds and whether any value is not finite. */
    for (size_t v = v0; v < count; v++) {
        for (int k = 0; k < 3; k++) {
            float x = load_f(src + (v * 3 + (size_t)k) * 4);
            if (dst) {
                dst[v * 3 + (size_t)k] = x;
            }
            l[k] = x < l[k] ? x : l[k];
            h[k] = x > h[k] ? x : h[k];
            nan |= (uint32_t)(x != x);
        }
    }
    bool finite = !nan;
    for (int k = 0; k < 3; k++) {
        finite = finite && isfinite(l[k]) && isfinite(h[k]);
    }
    if (!finite) {
        size_t i = 0;
        while (i < count * 3 && isfinite(load_f(src + i * 4))) {
            i++;
        }
        return i / 3;
    }
    memcpy(lo, l, sizeof(l));
    memcpy(hi, h, sizeof(h));
    return count;
}

static size_t finite_impl(const uint8_t *src, float *dst, size_t n) {
    uint32_t bad = 0;
    size_t i0 = 0;
#if RILL__GLTF_SSE2
    const __m128i exp = _mm_set1_epi32(0x7F800000);
    __m128i acc = _mm_setzero_si128();
    for (; i0 + 4 <= n; i0 += 4) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(src + i0 * 4));
        if (dst) {
            _mm_storeu_si128((__m128i *)(void *)(dst + i0), x);
        }
        acc = _mm_or_si128(acc, _mm_cmpeq_epi32(_mm_and_si128(x, exp), exp));
    }
    bad = (uint32_t)(_mm_movemask_epi8(acc) != 0);
#endif
    for (size_t i = i0; i < n; i++) {
        uint32_t b;
        memcpy(&b, src + i * 4, 4);
        if (dst) {
            memcpy(dst + i, &b, 4);
        }
        bad |= (uint32_t)((b & 0x7F800000u) == 0x7F800000u);
    }
    if (!bad) {
        return n;
    }
    size_t i = 0;
    while (i < n && isfinite(load_f(src + i * 4))) {
        i++;
    }
    return i;
}

static bool unit_impl(const uint8_t *src, float *dst, size_t count) {
    uint32_t off = 0;
    size_t v0 = 0;
#if RILL__GLTF_SSE2
    /* Four normals per step. The shuffles gather each vertex's x², y² and z² into one lane, in
     * that order, so every sum is computed exactly as the scalar loop below computes it. */
    const __m128 one = _mm_set1_ps(1.0f), tol = _mm_set1_ps(1e-5f);
    const __m128 absmask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    __m128 good = _mm_castsi128_ps(_mm_set1_epi32(-1));
    for (; v0 + 4 <= count; v0 += 4) {
        const float *p = (const float *)(const void *)(src + v0 * 12);
        __m128 q0 = _mm_loadu_ps(p), q1 = _mm_loadu_ps(p + 4), q2 = _mm_loadu_ps(p + 8);
        if (dst) {
            _mm_storeu_ps(dst + v0 * 3, q0);
            _mm_storeu_ps(dst + v0 * 3 + 4, q1);
            _mm_storeu_ps(dst + v0 * 3 + 8, q2);
        }
        q0 = _mm_mul_ps(q0, q0);
        q1 = _mm_mul_ps(q1, q1);
        q2 = _mm_mul_ps(q2, q2);
        __m128 ua = _mm_shuffle_ps(q1, q2, _MM_SHUFFLE(0, 1, 0, 2));
        __m128 a = _mm_shuffle_ps(q0, ua, _MM_SHUFFLE(2, 0, 3, 0));
        __m128 w = _mm_shuffle_ps(q0, q1, _MM_SHUFFLE(3, 0, 0, 1));
        __m128 y = _mm_shuffle_ps(q1, q2, _MM_SHUFFLE(0, 2, 0, 3));
        __m128 b = _mm_shuffle_ps(w, y, _MM_SHUFFLE(2, 0, 2, 0));
        __m128 c1 = _mm_shuffle_ps(q0, q1, _MM_SHUFFLE(0, 1, 0, 2));
        __m128 c2 = _mm_shuffle_ps(q2, q2, _MM_SHUFFLE(0, 3, 0, 0));
        __m128 c = _mm_shuffle_ps(c1, c2, _MM_SHUFFLE(2, 0, 2, 0));
        __m128 l = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(a, b), c));
        __m128 d = _mm_and_ps(_mm_sub_ps(l, one), absmask);
        good = _mm_and_ps(good, _mm_cmple_ps(d, tol));
    }
    off |= (uint32_t)(_mm_movemask_ps(good) != 0xF);
#endif
    for (size_t v = v0; v < count; v++) {
        float d[3];
        memcpy(d, src + v * 12, 12);
        if (dst) {
            memcpy(dst + v * 3, d, 12);
        }
        float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        off |= (uint32_t) !(fabsf(l - 1.0f) <= 1e-5f);
    }
    return !off;
}

size_t rill__gltf_check_positions(const float *pos, size_t count, float lo[3], float hi[3]) {
    return positions_impl((const uint8_t *)pos, NULL, count, lo, hi);
}

size_t rill__gltf_first_non_finite(const float *v, size_t n) {
    return finite_impl((const uint8_t *)v, NULL, n);
}

bool rill__gltf_normals_unit(const float *nrm, size_t count) {
    return unit_impl((const uint8_t *)nrm, NULL, count);
}

size_t rill__gltf_copy_positions(float *dst, const uint8_t *src, size_t count, float lo[3],
                                 float hi[3]) {
    return positions_impl(src, dst, count, lo, hi);
}

size_t rill__gltf_copy_finite(float *dst, const uint8_t *src, size_t n) {
    return finite_impl(src, dst, n);
}

bool rill__gltf_copy_normals(float *dst, const uint8_t *src, size_t count) {
    return unit_impl(src, dst, count);
}
