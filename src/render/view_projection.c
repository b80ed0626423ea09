/* view_projection.c: projection values a camera or embedder hands the renderer, clamped so the
 * matrix never divides by zero or fills with NaN (near >= far, zero or negative fov, NaN, inf). */
#include "view_projection.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

/* The ranges that keep glm's perspective and ortho matrices finite and invertible in float:
 * fov strictly inside (0, pi), near and far positive and apart, far/near within float range. */
#define FOV_MIN 1e-3f
#define FOV_MAX 3.1f
#define NEAR_MIN 1e-6f
#define NEAR_MAX 1e6f
#define FAR_MAX 1e9f

/* Zero takes the default silently; anything else outside [lo, hi] (NaN included) takes
 * `fallback` and counts as a clamp. */
static float pick(float v, float def, float lo, float hi, float fallback, bool *clamped) {
    if (v == 0.0f) {
        return def;
    }
    if (v >= lo && v <= hi) {
        return v;
    }
    *clamped = true;
    return v > hi ? hi : fallback; /* NaN and too-small values take the fallback */
}

bool rill__projection_resolve(const float in[4], rill__projection *out) {
    bool clamped = false;
    out->fov_y = pick(in[0], 0.8f, FOV_MIN, FOV_MAX, 0.8f, &clamped);
    out->znear = pick(in[1], 0.1f, NEAR_MIN, NEAR_MAX, 0.1f, &clamped);
    float far_fallback = fmaxf(1000.0f, out->znear * 1000.0f);
    out->zfar = pick(in[2], far_fallback, NEAR_MIN, FAR_MAX, far_fallback, &clamped);
    if (out->zfar <= out->znear) {
        out->zfar = far_fallback;
        clamped = true;
    }
    out->half_h = pick(in[3], 10.0f, 1e-6f, 1e9f, 10.0f, &clamped) * 0.5f;
    if (clamped) {
        /* Views are resolved every frame: warn once per distinct bad input, not 60 times a
         * second. */
        static _Atomic uint64_t last_warned;
        uint64_t key = rill_hash64(in, 4 * sizeof(float)) | 1u;
        if (atomic_exchange(&last_warned, key) != key) {
            RILL_LOG_WARN("render",
                          "camera projection fov_y %g, near %g, far %g, ortho_height %g cannot "
                          "make a valid projection; using fov_y %g, near %g, far %g, "
                          "ortho_height %g (fov_y in (0, 3.1], 0 < near < far)",
                          (double)in[0], (double)in[1], (double)in[2], (double)in[3],
                          (double)out->fov_y, (double)out->znear, (double)out->zfar,
                          (double)out->half_h * 2.0);
        }
    }
    return clamped;
}
