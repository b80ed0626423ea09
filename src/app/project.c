/* project.c: the rill_project settings struct read from project.toml. Defaults are resolved in
 * one place (rill_project_defaults); the reader walks the document once, applies every key it
 * knows from one table of known keys, and warns about the rest with their line and column.
 */
#include "rill/app.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROJECT_DEFAULT_NAME "Rill project"

void rill_project_defaults(rill_project *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", PROJECT_DEFAULT_NAME);
    out->window.width = 1280;
    out->window.height = 720;
    out->window.vsync = true;
    snprintf(out->window.title, sizeof(out->window.title), "%s", PROJECT_DEFAULT_NAME);
    out->rendering.graphics_quality = RILL_QUALITY_MEDIUM;
    out->rendering.render_scale = 1.0f;
    out->rendering.ambient = 1.0f;
    out->rendering.gpu_occlusion = true;
    out->rendering.upload_budget_bytes = RILL_PROJECT_UPLOAD_BUDGET_DEFAULT;
    out->rendering.render_thread = true;
    out->streaming.texture.enabled = true;
    out->streaming.texture.full_distance = 60.0f;
    out->streaming.texture.low_distance = 90.0f;
    out->streaming.texture.budget_bytes = 0;
    out->scene.load_budget_ms = 3.0f;
}

const char *rill_graphics_quality_name(rill_graphics_quality q) {
    switch (q) {
        RILL_GRAPHICS_QUALITY_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "Medium";
    }
}

rill_graphics_quality rill_graphics_quality_parse(const char *s) {
    if (!s) {
        return RILL_QUALITY_DEFAULT;
    }
    if (rill_str_ieq(s, "low")) {
        return RILL_QUALITY_LOW;
    }
    if (rill_str_ieq(s, "medium")) {
        return RILL_QUALITY_MEDIUM;
    }
    if (rill_str_ieq(s, "high")) {
        return RILL_QUALITY_HIGH;
    }
    return RILL_QUALITY_DEFAULT;
}

/* >>known keys -------------------------------------------------------------------------------- */

typedef enum key_kind {
    K_NAME,      /* string into a RILL_PROJECT_NAME_MAX buffer */
    K_PATH,      /* string into a RILL_PROJECT_PATH_MAX buffer */
    K_DIMENSION, /* integer in [1, 16384] */
    K_BOOL,
    K_QUALITY, /* "Low" | "Medium" | "High" */
    K_FLOAT,   /* number, clamped to [lo, hi] */
    K_BYTES,   /* integer >= 0 */
} key_kind;

typedef struct known_key {
    const char *path;
    key_kind kind;
    size_t offset;
    double lo, hi;
} known_key;

#define OFF(field) offsetof(rill_project, field)
static const known_key KNOWN[] = {
    {"project.name", K_NAME, OFF(name), 0, 0},
    {"project.main_scene", K_PATH, OFF(main_scene), 0, 0},
    {"project.version", K_NAME, OFF(version), 0, 0},
    {"window.width", K_DIMENSION, OFF(window.width), 1, 16384},
    {"window.height", K_DIMENSION, OFF(window.height), 1, 16384},
    {"window.vsync", K_BOOL, OFF(window.vsync), 0, 0},
    {"window.title", K_NAME, OFF(window.title), 0, 0},
    {"window.fullscreen", K_BOOL, OFF(window.fullscreen), 0, 0},
    {"rendering.graphics_quality", K_QUALITY, OFF(rendering.graphics_quality), 0, 0},
    {"rendering.render_scale", K_FLOAT, OFF(rendering.render_scale), 0.1, 2.0},
    {"rendering.static_batching", K_BOOL, OFF(rendering.static_batching), 0, 0},
    {"rendering.gpu_culling", K_BOOL, OFF(rendering.gpu_culling), 0, 0},
    {"rendering.render_thread", K_BOOL, OFF(rendering.render_thread), 0, 0},
    {"rendering.gpu_occlusion", K_BOOL, OFF(rendering.gpu_occlusion), 0, 0},
    {"rendering.ambient", K_FLOAT, OFF(rendering.ambient), 0.0, 1000.0},
    {"rendering.upload_budget_bytes", K_BYTES, OFF(rendering.upload_budget_bytes), 0, 0},
    {"streaming.texture.enabled", K_BOOL, OFF(streaming.texture.enabled), 0, 0},
    {"streaming.texture.full_distance", K_FLOAT, OFF(streaming.texture.full_distance), 0, 1e9},
    {"streaming.texture.low_distance", K_FLOAT, OFF(streaming.texture.low_distance), 0, 1e9},
    {"streaming.texture.budget_bytes", K_BYTES, OFF(streaming.texture.budget_bytes), 0, 0},
    {"scene.load_budget_ms", K_FLOAT, OFF(scene.load_budget_ms), 0.01, 1000.0},
};
#undef OFF

typedef struct reader {
    const char *file;
    rill_project *out;
    bool title_set;
} reader;

/* Logs a warning at the value (at_key false) or at its key (at_key true). */
RILL_PRINTF(4, 5)
static void warn(reader *r, const rill_toml_value *v, bool at_key, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    r->out->warning_count++;
    RILL_LOG_WARN("app", "%s:%u:%u: %s", r->file,
                  at_key ? rill_toml_value_key_line(v) : rill_toml_value_line(v),
                  at_key ? rill_toml_value_key_col(v) : rill_toml_value_col(v), what);
}

/* The default the field of k still holds (rill_project_defaults ran first), as TOML text. */
static const char *default_text(const reader *r, const known_key *k, char *buf, size_t cap) {
    const char *base = (const char *)r->out;
    const void *field = base + k->offset;
    switch (k->kind) {
    case K_NAME:
    case K_PATH:
        snprintf(buf, cap, "\"%s\"", (const char *)field);
        break;
    case K_DIMENSION:
        snprintf(buf, cap, "%u", *(const uint32_t *)field);
        break;
    case K_BOOL:
        snprintf(buf, cap, "%s", *(const bool *)field ? "true" : "false");
        break;
    case K_QUALITY:
        snprintf(buf, cap, "\"%s\"",
                 rill_graphics_quality_name(*(const rill_graphics_quality *)field));
        break;
    case K_FLOAT:
        snprintf(buf, cap, "%g", (double)*(const float *)field);
        break;
    case K_BYTES:
        snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    }
    return buf;
}

/* A value of the wrong type is a warning: the setting keeps its default, the project loads. */
static void type_error(reader *r, const rill_toml_value *v, const known_key *k,
                       const char *expected) {
    char def[160];
    warn(r, v, false, "'%s' must be %s, not %s; using the default %s", k->path, expected,
         rill_toml_type_name(rill_toml_value_type(v)), default_text(r, k, def, sizeof def));
}

static void apply(reader *r, const known_key *k, const rill_toml_value *v) {
    char *base = (char *)r->out;
    rill_toml_type t = rill_toml_value_type(v);
    switch (k->kind) {
    case K_NAME:
    case K_PATH: {
        if (t != RILL_TOML_STRING) {
            type_error(r, v, k, "a string");
            return;
        }
        size_t cap = k->kind == K_NAME ? RILL_PROJECT_NAME_MAX : RILL_PROJECT_PATH_MAX;
        const char *s = rill_toml_value_string(v, "");
        if (strlen(s) >= cap) {
            warn(r, v, false, "'%s' is longer than %zu bytes and was cut", k->path, cap - 1u);
        }
        snprintf(base + k->offset, cap, "%s", s);
        if (k->offset == offsetof(rill_project, window.title)) {
            r->title_set = true;
        }
        return;
    }
    case K_DIMENSION: {
        if (t != RILL_TOML_INT) {
            type_error(r, v, k, "an integer");
            return;
        }
        int64_t i = rill_toml_value_int(v, 0);
        int64_t c = RILL_CLAMP(i, (int64_t)k->lo, (int64_t)k->hi);
        if (c != i) {
            warn(r, v, false, "'%s' = %lld is out of range [%g, %g]; using %lld", k->path,
                 (long long)i, k->lo, k->hi, (long long)c);
        }
        *(uint32_t *)(void *)(base + k->offset) = (uint32_t)c;
        return;
    }
    case K_BOOL:
        if (t != RILL_TOML_BOOL) {
            type_error(r, v, k, "a boolean");
            return;
        }
        *(bool *)(void *)(base + k->offset) = rill_toml_value_bool(v, false);
        return;
    case K_QUALITY: {
        if (t != RILL_TOML_STRING) {
            type_error(r, v, k, "a string (\"Low\", \"Medium\" or \"High\")");
            return;
        }
        rill_graphics_quality q = rill_graphics_quality_parse(rill_toml_value_string(v, ""));
        if (q == RILL_QUALITY_DEFAULT) {
            warn(r, v, false, "'%s' = \"%s\" is not Low, Medium or High; using Medium", k->path,
                 rill_toml_value_string(v, ""));
            q = RILL_QUALITY_MEDIUM;
        }
        *(rill_graphics_quality *)(void *)(base + k->offset) = q;
        return;
    }
    case K_FLOAT: {
        if (t != RILL_TOML_FLOAT && t != RILL_TOML_INT) {
            type_error(r, v, k, "a number");
            return;
        }
        double d = rill_toml_value_float(v, 0.0);
        if (isnan(d)) {
            warn(r, v, false, "'%s' is nan; keeping the default", k->path);
            return;
        }
        double c = RILL_CLAMP(d, k->lo, k->hi);
        if (c != d) {
            warn(r, v, false, "'%s' = %g is out of range [%g, %g]; using %g", k->path, d, k->lo,
                 k->hi, c);
        }
        *(float *)(void *)(base + k->offset) = (float)c;
        return;
    }
    case K_BYTES: {
        if (t != RILL_TOML_INT) {
            type_error(r, v, k, "an integer");
            return;
        }
        int64_t i = rill_toml_value_int(v, 0);
        if (i < 0) {
            warn(r, v, false, "'%s' = %lld is negative; using 0", k->path, (long long)i);
            i = 0;
        }
        *(uint64_t *)(void *)(base + k->offset) = (uint64_t)i;
        return;
    }
    }
    return;
}

/* Whether any known key lies under the table `prefix` (so the table itself is known). */
static bool known_table(const char *prefix, size_t len) {
    for (size_t i = 0; i < RILL_COUNTOF(KNOWN); i++) {
        if (strncmp(KNOWN[i].path, prefix, len) == 0 && KNOWN[i].path[len] == '.') {
            return true;
        }
    }
    return false;
}

static const known_key *known_leaf(const char *path) {
    for (size_t i = 0; i < RILL_COUNTOF(KNOWN); i++) {
        if (strcmp(KNOWN[i].path, path) == 0) {
            return &KNOWN[i];
        }
    }
    return NULL;
}

/* >>did you mean ------------------------------------------------------------------------------ */

#define KEY_SEGMENTS_MAX 64 /* more than KNOWN has */

typedef struct segments {
    char name[KEY_SEGMENTS_MAX][48];
    uint32_t count;
} segments;

static const char *segment_get(const void *ctx, uint32_t i) {
    return ((const segments *)ctx)->name[i];
}

static void segment_add(segments *s, const char *from, size_t len) {
    if (s->count < KEY_SEGMENTS_MAX && len < sizeof s->name[0]) {
        memcpy(s->name[s->count], from, len);
        s->name[s->count++][len] = '\0';
    }
}

/* The name of s that holds leaf or is held in it (`quality` and `graphics_quality`), both at
 * least 4 bytes, or NULL. */
static const char *containing(const char *leaf, const segments *s) {
    if (strlen(leaf) < 4) {
        return NULL;
    }
    for (uint32_t i = 0; i < s->count; i++) {
        const char *n = s->name[i];
        if (strlen(n) >= 4 && (strstr(n, leaf) || strstr(leaf, n))) {
            return n;
        }
    }
    return NULL;
}

/* Into out: "; did you mean 'P.X'?" where X is the known key or table under the table P =
 * path[0..plen) closest to the unknown leaf path[plen..] (plen skips its dot) or holding it or
 * held in it, or else the known
 * key anywhere whose last part is closest to the leaf (`render_scale` under [window] is
 * 'rendering.render_scale'); "" when nothing is close. */
static void suggest_key(const char *path, size_t plen, char *out, size_t cap) {
    const char *leaf = path + plen + (plen ? 1u : 0u);
    segments near = {0};
    for (size_t i = 0; i < RILL_COUNTOF(KNOWN); i++) {
        const char *k = KNOWN[i].path;
        if (plen && (strncmp(k, path, plen) != 0 || k[plen] != '.')) {
            continue;
        }
        const char *seg = k + plen + (plen ? 1u : 0u);
        const char *dot = strchr(seg, '.');
        segment_add(&near, seg, dot ? (size_t)(dot - seg) : strlen(seg));
    }
    const char *hit = rill_suggest_name(leaf, strlen(leaf), segment_get, &near, near.count);
    if (!hit) {
        hit = containing(leaf, &near);
    }
    if (hit) {
        snprintf(out, cap, "; did you mean '%.*s%s%s'?", (int)plen, path, plen ? "." : "", hit);
        return;
    }
    segments last = {0};
    for (size_t i = 0; i < RILL_COUNTOF(KNOWN); i++) {
        const char *dot = strrchr(KNOWN[i].path, '.');
        const char *seg = dot ? dot + 1 : KNOWN[i].path;
        segment_add(&last, seg, strlen(seg));
    }
    hit = rill_suggest_name(leaf, strlen(leaf), segment_get, &last, last.count);
    for (size_t i = 0; hit && i < RILL_COUNTOF(KNOWN); i++) {
        const char *dot = strrchr(KNOWN[i].path, '.');
        if (strcmp(dot ? dot + 1 : KNOWN[i].path, hit) == 0) {
            snprintf(out, cap, "; did you mean '%s'?", KNOWN[i].path);
            return;
        }
    }
    out[0] = '\0';
}

/* Warns about the unknown member m at path (its table's path is path[0..plen)). */
static void warn_unknown(reader *r, const rill_toml_value *m, const char *path, size_t plen) {
    char hint[160];
    suggest_key(path, plen, hint, sizeof hint);
    warn(r, m, true, "unknown %s '%s' (ignored)%s",
         rill_toml_value_type(m) == RILL_TOML_TABLE ? "table" : "key", path, hint);
}

/* >>walk -------------------------------------------------------------------------------------- */

/* Walks table t whose dotted path is path[0..len). Known tables nest at most three deep, so the
 * recursion is bounded by the known keys, not by the file. */
static void walk(reader *r, const rill_toml_value *t, char *path, size_t len, size_t cap) {
    for (uint32_t i = 0; i < rill_toml_value_len(t); i++) {
        const rill_toml_value *m = rill_toml_value_at(t, i);
        const char *key = rill_toml_value_key(m);
        int n = snprintf(path + len, cap - len, "%s%s", len ? "." : "", key);
        if (n < 0 || (size_t)n >= cap - len) {
            warn(r, m, true, "unknown key '%s' (ignored)", key);
            path[len] = '\0';
            continue;
        }
        size_t sub = len + (size_t)n;
        const known_key *k = known_leaf(path);
        if (k) {
            apply(r, k, m);
        } else if (known_table(path, sub)) {
            if (rill_toml_value_type(m) == RILL_TOML_TABLE) {
                walk(r, m, path, sub, cap);
            } else {
                warn(r, m, false, "'%s' must be a table of settings, not %s (ignored)", path,
                     rill_toml_type_name(rill_toml_value_type(m)));
            }
        } else {
            warn_unknown(r, m, path, len);
        }
        path[len] = '\0';
    }
}

rill_result rill_project_from_toml(const rill_toml *doc, rill_project *out, rill_error *err) {
    if (!out) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_project_from_toml: NULL out");
    }
    rill_project_defaults(out);
    if (!doc) {
        return RILL_OK;
    }
    reader r = {.file = rill_toml_name(doc), .out = out};
    char path[256] = {0};
    walk(&r, rill_toml_root(doc), path, 0, sizeof(path));
    /* The title follows the project name unless the file sets it. */
    if (!r.title_set) {
        snprintf(out->window.title, sizeof(out->window.title), "%s", out->name);
    }
    /* Texture streaming needs a gap between its two distances, or a material at the boundary
     * would swap back and forth every evaluation. */
    if (out->streaming.texture.low_distance < out->streaming.texture.full_distance + 5.0f) {
        const rill_toml_value *v = rill_toml_find(doc, "streaming.texture.low_distance");
        if (!v) {
            v = rill_toml_find(doc, "streaming.texture.full_distance");
        }
        float forced = out->streaming.texture.full_distance + 5.0f;
        warn(&r, v, false, "streaming.texture.low_distance %g is below full_distance + 5; using %g",
             (double)out->streaming.texture.low_distance, (double)forced);
        out->streaming.texture.low_distance = forced;
    }
    return RILL_OK;
}

rill_result rill_project_load(const char *path, rill_project *out, rill_error *err) {
    if (out) {
        rill_project_defaults(out);
    }
    if (!path || !out) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_project_load: NULL argument");
    }
    rill_toml *doc = NULL;
    rill_result r = rill_toml_load(path, &doc, err);
    if (r != RILL_OK) {
        return r;
    }
    r = rill_project_from_toml(doc, out, err);
    rill_toml_destroy(doc);
    return r;
}

rill_texstream_settings rill_app_texture_streaming_settings(const rill_project *project) {
    rill_texstream_settings s = rill_texstream_settings_default();
    if (project) {
        s.enabled = project->streaming.texture.enabled;
        s.full_distance = project->streaming.texture.full_distance;
        s.low_distance = project->streaming.texture.low_distance;
        s.budget_bytes = project->streaming.texture.budget_bytes;
    }
    return s;
}
