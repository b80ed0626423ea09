/* gltf_anim_read.c: the glTF reader's animations: each channel's sampler (times, values,
 * interpolation) read and checked against the node and path it animates. */
#include "gltf_read_internal.h"

#include "rill/world.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* >>animations -------------------------------------------------------------------------------- */

/* Key times: one SCALAR float accessor, every time finite, the first >= 0, each later one
 * larger than the one before (glTF 2.0, 3.11). A clip with times out of order would make the
 * sampler's binary search meaningless, so such a file is refused, not repaired. */
static rill_result anim_times(rd *r, int32_t acc, const char *sw, rill_gltf_anim_sampler *out) {
    const rd_accessor *a;
    RILL_TRY(rill__rd_accessor_info(r, acc, &a));
    if (a->comps != 1 || a->component != GL_FLOAT || a->normalized) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.input: accessor %d must be SCALAR float", sw,
                             acc);
    }
    RILL_TRY(rill__rd_accessor_floats(r, acc, a, sw, ".input", NULL, &out->times));
    out->key_count = a->count;
    for (uint32_t k = 0; k < a->count; k++) {
        float t = out->times[k];
        if (!isfinite(t) || t > 1e9f) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.input: accessor %d: key time %u is not finite", sw, acc, k);
        }
        if (k == 0 && t < 0.0f) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.input: accessor %d: key time 0 is negative", sw, acc);
        }
        if (k > 0 && !(t > out->times[k - 1])) {
            return rill__rd_fail(
                r, RILL_ERR_CORRUPT,
                "%s.input: accessor %d: key times do not increase (key %u: %g after %g)", sw, acc,
                k, (double)t, (double)out->times[k - 1]);
        }
    }
    return RILL_OK;
}

/* Key values: per key `comps` floats (three vectors for CUBICSPLINE), finite; rotations unit
 * quaternions (normalized here; a zero one is refused). */
static rill_result anim_values(rd *r, int32_t acc, const char *sw, rill_gltf_anim_path path,
                               rill_gltf_anim_sampler *out) {
    const rd_accessor *a;
    RILL_TRY(rill__rd_accessor_info(r, acc, &a));
    uint32_t per_key = out->interpolation == RILL_GLTF_INTERP_CUBICSPLINE ? 3u : 1u;
    uint64_t elems = (uint64_t)out->key_count * per_key;
    uint32_t want = path == RILL_GLTF_ANIM_ROTATION ? 4u : path == RILL_GLTF_ANIM_WEIGHTS ? 1u : 3u;
    bool float_only = path != RILL_GLTF_ANIM_ROTATION && path != RILL_GLTF_ANIM_WEIGHTS;
    if (a->comps != want || (a->component != GL_FLOAT && (float_only || !a->normalized))) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.output: accessor %d has the wrong type for its path", sw, acc);
    }
    if (path == RILL_GLTF_ANIM_WEIGHTS) {
        /* One scalar per morph target per key: the count must be a whole multiple. */
        if (a->count % elems != 0) {
            return rill__rd_fail(
                r, RILL_ERR_CORRUPT,
                "%s.output: accessor %d holds %u values, not a multiple of %llu keys", sw, acc,
                a->count, (unsigned long long)elems);
        }
        out->comps = (uint32_t)(a->count / elems);
    } else {
        if ((uint64_t)a->count != elems) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.output: accessor %d holds %u values for %llu keys", sw, acc,
                                 a->count, (unsigned long long)elems);
        }
        out->comps = want;
    }
    RILL_TRY(rill__rd_accessor_floats(r, acc, a, sw, ".output", NULL, &out->values));
    size_t n = (size_t)a->count * a->comps;
    size_t bad = rill__gltf_first_non_finite(out->values, n);
    if (bad < n) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.output: accessor %d: value %zu is not finite",
                             sw, acc, bad);
    }
    if (path == RILL_GLTF_ANIM_ROTATION) {
        /* Tangents of a cubic spline are not unit quaternions; only the values are. */
        for (uint64_t e = 0; e < elems; e++) {
            if (per_key == 3 && e % 3 != 1) {
                continue;
            }
            float *q = &out->values[e * 4];
            float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(l > 1e-6f) || !isfinite(l)) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                     "%s.output: accessor %d: key %llu is not a unit quaternion",
                                     sw, acc, (unsigned long long)(e / per_key));
            }
            for (int k = 0; k < 4 && fabsf(l - 1.0f) > 1e-6f; k++) {
                q[k] /= l;
            }
        }
    }
    return RILL_OK;
}

static rill_result anim_interpolation(rd *r, const rill__gj *so, const char *sw,
                                      rill_gltf_interpolation *out) {
    const char *s;
    RILL_TRY(rill__rd_js_str(r, so, "interpolation", sw, &s));
    *out = RILL_GLTF_INTERP_LINEAR;
    if (!s || strcmp(s, "LINEAR") == 0) {
        return RILL_OK;
    }
    if (strcmp(s, "STEP") == 0) {
        *out = RILL_GLTF_INTERP_STEP;
    } else if (strcmp(s, "CUBICSPLINE") == 0) {
        *out = RILL_GLTF_INTERP_CUBICSPLINE;
    } else {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.interpolation: unknown \"%.32s\"", sw, s);
    }
    return RILL_OK;
}

/* The path a channel drives; false for one the model does not keep (an extension's). */
static bool anim_path(const char *s, rill_gltf_anim_path *out) {
    static const char *const names[RILL_GLTF_ANIM_PATH_NUM] = {"translation", "rotation", "scale",
                                                               "weights"};
    for (int i = 0; s && i < RILL_GLTF_ANIM_PATH_NUM; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (rill_gltf_anim_path)i;
            return true;
        }
    }
    return false;
}

/* One channel: its target node and path, and the sampler it names (whose keys are read the first
 * time a channel uses it, since the output's shape depends on the path). */
static rill_result anim_channel(rd *r, const rill__gj *ch, const char *aw, const char *cw,
                                const rill__gj *samplers, rill_gltf_animation *an,
                                uint8_t *sampler_path, bool *out_kept) {
    *out_kept = false;
    RILL_TRY(rill__rd_js_object(r, ch, cw));
    int32_t si;
    RILL_TRY(rill__rd_js_index(r, ch, "sampler", cw, an->sampler_count, "sampler", &si));
    if (si < 0) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.sampler: missing", cw);
    }
    const rill__gj *target;
    char tw[96];
    snprintf(tw, sizeof(tw), "%s.target", cw);
    RILL_TRY(rill__rd_js_member_object(r, ch, "target", cw, &target));
    if (!target) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: missing", tw);
    }
    int32_t node;
    const char *path_name;
    RILL_TRY(rill__rd_js_index(r, target, "node", tw, r->m->node_count, "node", &node));
    RILL_TRY(rill__rd_js_str(r, target, "path", tw, &path_name));
    rill_gltf_anim_path path;
    if (node < 0 || !anim_path(path_name, &path)) {
        return RILL_OK; /* an extension's target (KHR_animation_pointer): not kept */
    }
    rill_gltf_anim_sampler *smp = &an->samplers[si];
    /* A sampler drives one kind of value: two channels reading it as different paths would
     * read its output with two shapes. */
    uint8_t kind = (uint8_t)(path == RILL_GLTF_ANIM_ROTATION  ? 2
                             : path == RILL_GLTF_ANIM_WEIGHTS ? 3
                                                              : 1);
    if (sampler_path[si] && sampler_path[si] != kind) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.sampler: sampler %d already drives another path", cw, si);
    }
    if (!sampler_path[si]) {
        sampler_path[si] = kind;
        const rill__gj *so = NULL, *it;
        uint32_t k = 0;
        RILL__GJ_FOR(it, samplers) {
            if (k++ == (uint32_t)si) {
                so = it;
                break;
            }
        }
        char sw[96];
        snprintf(sw, sizeof(sw), "%s.samplers[%d]", aw, si);
        RILL_TRY(rill__rd_js_object(r, so, sw));
        int32_t in_acc, out_acc;
        RILL_TRY(rill__rd_js_index(r, so, "input", sw, r->accessor_count, "accessor", &in_acc));
        RILL_TRY(rill__rd_js_index(r, so, "output", sw, r->accessor_count, "accessor", &out_acc));
        if (in_acc < 0 || out_acc < 0) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: input and output are required", sw);
        }
        RILL_TRY(anim_interpolation(r, so, sw, &smp->interpolation));
        RILL_TRY(anim_times(r, in_acc, sw, smp));
        RILL_TRY(anim_values(r, out_acc, sw, path, smp));
        float last = smp->times[smp->key_count - 1];
        an->duration = last > an->duration ? last : an->duration;
    }
    an->channels[an->channel_count++] = (rill_gltf_anim_channel){node, path, (uint32_t)si};
    *out_kept = true;
    return RILL_OK;
}

static rill_result read_animation(rd *r, const rill__gj *ao, const char *where,
                                  rill_gltf_animation *an) {
    RILL_TRY(rill__rd_js_object(r, ao, where));
    RILL_TRY(rill__rd_js_name(r, ao, where, &an->name));
    const rill__gj *channels, *samplers;
    uint32_t cc, sc;
    RILL_TRY(rill__rd_js_array(r, ao, "channels", where, &channels, &cc));
    RILL_TRY(rill__rd_js_array(r, ao, "samplers", where, &samplers, &sc));
    RILL_TRY(rill__rd_charge(r,
                             (uint64_t)cc * sizeof(rill_gltf_anim_channel) +
                                 (uint64_t)sc * (sizeof(rill_gltf_anim_sampler) + 1u),
                             where, ""));
    if (cc) {
        an->channels = rill__gltf_alloc(cc, sizeof(rill_gltf_anim_channel));
    }
    if (sc) {
        an->samplers = rill__gltf_alloc(sc, sizeof(rill_gltf_anim_sampler));
    }
    uint8_t *sampler_path = rill__gltf_alloc(sc + 1u, 1);
    if ((cc && !an->channels) || (sc && !an->samplers) || !sampler_path) {
        rill_free(sampler_path);
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    an->sampler_count = sc;
    rill_result res = RILL_OK;
    const rill__gj *ch;
    uint32_t i = 0;
    RILL__GJ_FOR(ch, channels) {
        char cw[80];
        snprintf(cw, sizeof(cw), "%s.channels[%u]", where, i++);
        bool kept;
        res = anim_channel(r, ch, where, cw, samplers, an, sampler_path, &kept);
        if (res != RILL_OK) {
            break;
        }
    }
    rill_free(sampler_path);
    return res;
}

rill_result rill__rd_read_animations(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "animations", "", &arr, &count));
    if (!count) {
        return RILL_OK;
    }
    RILL_TRY(rill__rd_charge(r, (uint64_t)count * sizeof(rill_gltf_animation), "animations", ""));
    r->m->animations = rill__gltf_alloc(count, sizeof(rill_gltf_animation));
    if (!r->m->animations) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "animations: out of memory");
    }
    const rill__gj *ao;
    RILL__GJ_FOR(ao, arr) {
        uint32_t i = r->m->animation_count++;
        char where[48];
        rill__rd_index_path(where, sizeof(where), "animations", i);
        RILL_TRY(read_animation(r, ao, where, &r->m->animations[i]));
    }
    return RILL_OK;
}
