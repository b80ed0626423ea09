/* fly_path.c: the camera path of `rill fly`: keyframes read from a JSON file (every value checked,
 * errors naming the file and the keyframe) or made (a loop over the streamed instances' bounds, or
 * a square around what a small project draws), timed at the flying speed and sampled per step. */
#include "fly.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* >>path -------------------------------------------------------------------------------------- */

/* Reads k's member `name` as exactly three numbers within the world limit (rill/world.h: a camera
 * beyond it is not drawn from). */
static bool key_vec3(const cJSON *k, const char *name, float out[3], char *why, size_t cap) {
    const cJSON *a = cJSON_GetObjectItem(k, name);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) {
        snprintf(why, cap, "\"%s\": want [x, y, z]", name);
        return false;
    }
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= RILL_WORLD_LIMIT)) {
            snprintf(why, cap, "\"%s\"[%d]: want a number within +-%g (the world limit)", name, i,
                     (double)RILL_WORLD_LIMIT);
            return false;
        }
        out[i] = (float)v->valuedouble;
    }
    return true;
}

/* One keyframe: "pos", optional "look", optional "t" (seconds, after the last keyframe that has
 * one). */
static bool read_key(const cJSON *k, double last_t, fly_key *fk, char *why, size_t cap) {
    memset(fk, 0, sizeof *fk);
    fk->t = -1.0;
    if (!cJSON_IsObject(k)) {
        snprintf(why, cap, "want an object {\"pos\": [x, y, z], \"look\": [x, y, z], \"t\": s}");
        return false;
    }
    fk->has_look = cJSON_GetObjectItem(k, "look") != NULL;
    if (!key_vec3(k, "pos", fk->pos, why, cap) ||
        (fk->has_look && !key_vec3(k, "look", fk->look, why, cap))) {
        return false;
    }
    const cJSON *t = cJSON_GetObjectItem(k, "t");
    if (!t) {
        return true;
    }
    if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0.0 && t->valuedouble <= FLY_MAX_SECONDS)) {
        snprintf(why, cap, "\"t\": want seconds in [0, %g]", FLY_MAX_SECONDS);
        return false;
    }
    if (!(t->valuedouble > last_t)) {
        snprintf(why, cap, "\"t\": %g is not after the previous time, %g", t->valuedouble, last_t);
        return false;
    }
    fk->t = t->valuedouble;
    return true;
}

/* Parses the --path file; false with a message naming the file and the place. */
bool fly_read_path(const char *file, fly_key *keys, uint32_t *out_n, char *why, size_t cap) {
    size_t len = 0;
    uint8_t *text = NULL;
    rill_error err = {0};
    *out_n = 0;
    if (rill_file_read_all(file, &text, &len, &err) != RILL_OK) {
        snprintf(why, cap, "%s", err.msg);
        return false;
    }
    const char *end = NULL;
    /* A UTF-8 byte-order mark at the start (Windows editors write one) is skipped. */
    size_t skip = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3u : 0u;
    cJSON *doc = cJSON_ParseWithLengthOpts((const char *)text + skip, len - skip, &end, false);
    if (!doc) {
        size_t at = end && end >= (const char *)text ? (size_t)(end - (const char *)text) : 0;
        uint32_t line = 1, col = 1;
        for (size_t i = skip; i < at && i < len; i++) {
            line += text[i] == '\n';
            col = text[i] == '\n' ? 1u : col + 1u;
        }
        snprintf(why, cap, "%s:%u:%u: not valid JSON (or cut short)", file, line, col);
        rill_free(text);
        return false;
    }
    rill_free(text);
    cJSON *list = cJSON_IsObject(doc) ? cJSON_GetObjectItem(doc, "keyframes") : doc;
    int count = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    bool ok = count >= 2 && count <= (int)FLY_MAX_KEYS;
    if (!ok) {
        snprintf(why, cap, "%s: want a JSON list of 2 to %u keyframes (or {\"keyframes\": [...]})",
                 file, FLY_MAX_KEYS);
    }
    uint32_t n = 0;
    double last_t = -1.0;
    char what[256];
    const cJSON *k;
    cJSON *items = ok ? list : NULL;
    cJSON_ArrayForEach(k, items) {
        if (!read_key(k, last_t, &keys[n], what, sizeof what)) {
            snprintf(why, cap, "%s: keyframe %u: %s", file, n, what);
            ok = false;
            break;
        }
        last_t = keys[n].t >= 0.0 ? keys[n].t : last_t;
        n++;
    }
    cJSON_Delete(doc);
    *out_n = n;
    return ok;
}

/* A rectangle 80% the size of the bounds' x/z extent, flown at a height above the tallest box,
 * starting and ending at its first corner. */
uint32_t fly_auto_path(const float mn[3], const float mx[3], fly_key *keys) {
    float cx = 0.5f * (mn[0] + mx[0]), cz = 0.5f * (mn[2] + mx[2]);
    float hx = 0.4f * (mx[0] - mn[0]), hz = 0.4f * (mx[2] - mn[2]);
    float y = RILL_MAX(mx[1] + 15.0f, 25.0f);
    const float corners[5][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
    for (uint32_t i = 0; i < 5; i++) {
        keys[i] = (fly_key){.pos = {cx + corners[i][0] * hx, y, cz + corners[i][1] * hz}, .t = -1};
    }
    return 5;
}

/* Gives keyframes without times a time from the speed; returns the path's duration. */
double fly_time_path(fly_key *keys, uint32_t n, float speed) {
    if (keys[0].t < 0.0) {
        keys[0].t = 0.0;
    }
    for (uint32_t i = 1; i < n; i++) {
        if (keys[i].t >= 0.0) {
            continue;
        }
        float d = 0.0f;
        for (int k = 0; k < 3; k++) {
            d += (keys[i].pos[k] - keys[i - 1].pos[k]) * (keys[i].pos[k] - keys[i - 1].pos[k]);
        }
        keys[i].t = keys[i - 1].t + RILL_MAX(sqrtf(d) / speed, 1e-3f);
    }
    return keys[n - 1].t;
}

float fly_path_length(const fly_key *keys, uint32_t n) {
    float len = 0.0f;
    for (uint32_t i = 1; i < n; i++) {
        float d = 0.0f;
        for (int k = 0; k < 3; k++) {
            d += (keys[i].pos[k] - keys[i - 1].pos[k]) * (keys[i].pos[k] - keys[i - 1].pos[k]);
        }
        len += sqrtf(d);
    }
    return len;
}

/* The camera at time t: position along the segment, looking at the keyframe's target or along the
 * direction of travel, pitched 15 degrees down. Writes a world_from_view rotation as a quaternion.
 */
void fly_path_eval(const fly_key *keys, uint32_t n, double t, float pos[3], float quat[4]) {
    uint32_t i = 0;
    while (i + 2 < n && t > keys[i + 1].t) {
        i++;
    }
    const fly_key *a = &keys[i], *b = &keys[i + 1];
    float u = (float)RILL_CLAMP((t - a->t) / (b->t - a->t), 0.0, 1.0);
    float dir[3];
    for (int k = 0; k < 3; k++) {
        pos[k] = a->pos[k] + (b->pos[k] - a->pos[k]) * u;
        float la = a->has_look ? a->look[k] : b->pos[k];
        float lb = b->has_look ? b->look[k] : b->pos[k] + (b->pos[k] - a->pos[k]);
        dir[k] = (la + (lb - la) * u) - pos[k];
    }
    float yaw = atan2f(-dir[0], -dir[2]);
    float flat = sqrtf(dir[0] * dir[0] + dir[2] * dir[2]);
    bool has_look = a->has_look || b->has_look;
    float pitch = has_look ? atan2f(dir[1], RILL_MAX(flat, 1e-6f)) : -0.26f;
    /* q = Ry(yaw) * Rx(pitch) */
    float cy = cosf(yaw * 0.5f), sy = sinf(yaw * 0.5f), cp = cosf(pitch * 0.5f),
          sp = sinf(pitch * 0.5f);
    quat[0] = cy * sp;
    quat[1] = sy * cp;
    quat[2] = -sy * sp;
    quat[3] = cy * cp;
}

/* World bounds for the automatic path: the streamed instances' boxes, else around the camera. */
/* The box over every streamed instance's bounds; false when there is none. */
bool fly_world_bounds(rill_app *app, float mn[3], float mx[3]) {
    rill_stream *s = rill_app_stream(app);
    rill_stream_update(s); /* records and boxes for every streamed instance */
    uint32_t n = rill_stream_instances(s, NULL, 0);
    rill_stream_instance_info *inst = calloc(n ? n : 1, sizeof *inst);
    n = inst ? rill_stream_instances(s, inst, n) : 0;
    for (int k = 0; k < 3; k++) {
        mn[k] = FLT_MAX, mx[k] = -FLT_MAX;
    }
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            mn[k] = RILL_MIN(mn[k], inst[i].bounds_min[k]);
            mx[k] = RILL_MAX(mx[k], inst[i].bounds_max[k]);
        }
    }
    free(inst);
    return n != 0;
}

/* Without streamed instances: a square around what the world draws, 1.5 times its largest half
 * size out from its centre (at least 2 m) and as high above it, looking at the centre, so a small
 * project is in view the whole way; a world that draws nothing gets a 200 m square around the
 * camera. */
uint32_t fly_content_path(rill_content *content, fly_key *keys) {
    float lo[3], hi[3], c[3], r = 1.0f;
    if (!rill_content_bounds(content, lo, hi)) {
        float p[3] = {0, 0, 0};
        rill_app_streaming_camera(rill_content_app(content), p);
        for (int k = 0; k < 3; k++) {
            lo[k] = p[k] - 100.0f, hi[k] = p[k] + 100.0f;
        }
        lo[1] = hi[1] = 0.0f;
        return fly_auto_path(lo, hi, keys);
    }
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (lo[k] + hi[k]);
        r = RILL_MAX(r, 0.5f * (hi[k] - lo[k]));
    }
    const float corners[5][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
    for (uint32_t i = 0; i < 5; i++) {
        keys[i] = (fly_key){.pos = {c[0] + corners[i][0] * 1.5f * r, c[1] + 1.5f * r,
                                    c[2] + corners[i][1] * 1.5f * r},
                            .look = {c[0], c[1], c[2]},
                            .has_look = true,
                            .t = -1};
    }
    return 5;
}

/* A keyframe without "t" is reached at the path's speed, which may be after the next keyframe's
 * own "t"; and a path without --frames must fit FLY_MAX_FRAMES (frames are stored per step). */
bool fly_path_times_ok(const fly_run *run, float speed, double duration, rill_error *err) {
    for (uint32_t i = 1; i < run->nkeys; i++) {
        if (!(run->keys[i].t > run->keys[i - 1].t)) {
            rill_error_set(err, RILL_ERR_PARSE,
                           "%s: keyframe %u: \"t\" %g is not after %g, when keyframe %u is "
                           "reached at %g m/s",
                           run->o.path, i, run->keys[i].t, run->keys[i - 1].t, i - 1,
                           (double)speed);
            return false;
        }
    }
    if (!run->o.frames && !(duration / FLY_DT < (double)FLY_MAX_FRAMES)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "the path lasts %g s, more than %llu frames of 1/60 s: pass --frames N or "
                       "a faster --speed",
                       duration, FLY_MAX_FRAMES);
        return false;
    }
    return true;
}
