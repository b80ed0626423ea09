/* gltf_anim.c: glTF animation clips on the CPU: evaluating a sampler at a time (step, linear with
 * shortest-arc slerp for rotations, cubic-spline Hermite), finding a clip by name, and the
 * release and deep copy of a model's animations (the reader, gltf_read.c, checks and fills
 * them). Sampling is a binary search over the key times, so a long clip costs log2(keys) per
 * channel; callers sampling many instances of one clip do it on the job system. */
#include <math.h>
#include <string.h>

#include "gltf_internal.h"

/* The key k with times[k] <= t < times[k + 1] (t inside the key range, key_count >= 2). */
static uint32_t find_key(const float *times, uint32_t n, float t) {
    uint32_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static void normalize4(float *q) {
    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (l > 1e-12f) {
        for (int i = 0; i < 4; i++) {
            q[i] /= l;
        }
    } else {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
    }
}

/* Shortest-arc slerp from a to b by u; near-parallel quaternions fall back to a normalized lerp
 * (sin of a tiny angle loses all precision). */
static void slerp(const float *a, const float *b, float u, float *out) {
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sb = 1.0f;
    if (d < 0.0f) {
        d = -d;
        sb = -1.0f;
    }
    float wa, wb;
    if (d > 0.9995f) {
        wa = 1.0f - u;
        wb = u;
    } else {
        float th = acosf(d), s = sinf(th);
        wa = sinf((1.0f - u) * th) / s;
        wb = sinf(u * th) / s;
    }
    for (int i = 0; i < 4; i++) {
        out[i] = wa * a[i] + sb * wb * b[i];
    }
    normalize4(out);
}

void rill_gltf_sampler_eval(const rill_gltf_anim_sampler *s, float t, bool rotation, float *out) {
    if (!s || !s->key_count || !s->times || !s->values) {
        return;
    }
    uint32_t n = s->key_count, c = s->comps;
    bool cubic = s->interpolation == RILL_GLTF_INTERP_CUBICSPLINE;
    /* Element e's value vector: cubic splines store (in-tangent, value, out-tangent) per key. */
    size_t vstride = cubic ? 3u * c : c, voff = cubic ? c : 0;
    if (!(t > s->times[0]) || n == 1) { /* NaN t takes the first key too */
        memcpy(out, s->values + voff, c * sizeof(float));
        return;
    }
    if (t >= s->times[n - 1]) {
        memcpy(out, s->values + (size_t)(n - 1) * vstride + voff, c * sizeof(float));
        return;
    }
    uint32_t k = find_key(s->times, n, t);
    float t0 = s->times[k], dt = s->times[k + 1] - t0;
    float u = (t - t0) / dt;
    const float *v0 = s->values + (size_t)k * vstride + voff;
    const float *v1 = s->values + (size_t)(k + 1) * vstride + voff;
    switch (s->interpolation) {
    case RILL_GLTF_INTERP_STEP:
        memcpy(out, v0, c * sizeof(float));
        return;
    case RILL_GLTF_INTERP_CUBICSPLINE: {
        /* glTF 2.0 Appendix C: p(u) = (2u^3 - 3u^2 + 1) v0 + dt (u^3 - 2u^2 + u) b0
         *                             + (-2u^3 + 3u^2) v1 + dt (u^3 - u^2) a1,
         * with b0 key k's out-tangent and a1 key k+1's in-tangent. */
        const float *b0 = v0 + c, *a1 = v1 - c;
        float u2 = u * u, u3 = u2 * u;
        float h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * dt;
        float h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * dt;
        for (uint32_t i = 0; i < c; i++) {
            out[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
        }
        if (rotation && c == 4) {
            normalize4(out);
        }
        return;
    }
    default:
        if (rotation && c == 4) {
            slerp(v0, v1, u, out);
            return;
        }
        for (uint32_t i = 0; i < c; i++) {
            out[i] = v0[i] + (v1[i] - v0[i]) * u;
        }
        return;
    }
}

int32_t rill_gltf_animation_find(const rill_gltf_model *model, const char *name) {
    if (!model || !name) {
        return -1;
    }
    for (uint32_t i = 0; i < model->animation_count; i++) {
        if (model->animations[i].name && strcmp(model->animations[i].name, name) == 0) {
            return (int32_t)i;
        }
    }
    return -1;
}

void rill__gltf_animations_free(rill_gltf_model *m) {
    for (uint32_t i = 0; i < m->animation_count; i++) {
        rill_gltf_animation *a = &m->animations[i];
        for (uint32_t s = 0; s < a->sampler_count; s++) {
            rill_free(a->samplers[s].times);
            rill_free(a->samplers[s].values);
        }
        rill_free(a->samplers);
        rill_free(a->channels);
        rill_free(a->name);
    }
    rill_free(m->animations);
    m->animations = NULL;
    m->animation_count = 0;
}

/* A copy of n floats (NULL stays NULL); false when out of memory. */
static bool dup_f(float **dst, const float *src, size_t n) {
    *dst = NULL;
    if (!src || !n) {
        return true;
    }
    *dst = rill__gltf_alloc_raw(n, sizeof(float));
    if (*dst) {
        memcpy(*dst, src, n * sizeof(float));
    }
    return *dst != NULL;
}

static bool clone_one(rill_gltf_animation *d, const rill_gltf_animation *s) {
    memset(d, 0, sizeof(*d));
    d->duration = s->duration;
    d->name = rill__gltf_strdup(s->name);
    if (s->name && !d->name) {
        return false;
    }
    if (s->channel_count) {
        d->channels = rill__gltf_alloc(s->channel_count, sizeof(*d->channels));
        if (!d->channels) {
            return false;
        }
        memcpy(d->channels, s->channels, s->channel_count * sizeof(*d->channels));
        d->channel_count = s->channel_count;
    }
    if (s->sampler_count) {
        d->samplers = rill__gltf_alloc(s->sampler_count, sizeof(*d->samplers));
        if (!d->samplers) {
            return false;
        }
        d->sampler_count = s->sampler_count;
    }
    for (uint32_t i = 0; i < s->sampler_count; i++) {
        const rill_gltf_anim_sampler *ss = &s->samplers[i];
        rill_gltf_anim_sampler *ds = &d->samplers[i];
        *ds = (rill_gltf_anim_sampler){ss->key_count, ss->comps, ss->interpolation, NULL, NULL};
        size_t per = ss->interpolation == RILL_GLTF_INTERP_CUBICSPLINE ? 3u : 1u;
        if (!dup_f(&ds->times, ss->times, ss->key_count) ||
            !dup_f(&ds->values, ss->values, (size_t)ss->key_count * per * ss->comps)) {
            return false;
        }
    }
    return true;
}

bool rill__gltf_animations_clone(rill_gltf_model *dst, const rill_gltf_model *src) {
    dst->animations = NULL;
    dst->animation_count = 0;
    if (!src->animation_count) {
        return true;
    }
    dst->animations = rill__gltf_alloc(src->animation_count, sizeof(rill_gltf_animation));
    if (!dst->animations) {
        return false;
    }
    for (uint32_t i = 0; i < src->animation_count; i++) {
        /* Counted first, so a failure halfway frees exactly what was copied. */
        dst->animation_count++;
        if (!clone_one(&dst->animations[i], &src->animations[i])) {
            return false;
        }
    }
    return true;
}
