/* cli_effects.c: the screen-effect options `rill render` and `rill run` share.
 *   plugins          the plugins shipped with Rill (cli_plugin_dir.c) load by default, after the
 *                    folders of --plugins DIR (repeatable: each adds a folder; a library named as
 *                    one already loaded is not loaded again), none with --no-plugins; one host on
 *                    the content's world, loaded before the scene is bound (so a scene may hold
 *                    plugin settings components) and polled every frame (hot reload);
 *   --effect SPEC    NAME[:field=value,...]: any routed settings component (the engine's Ssao,
 *                    Bloom, AutoExposure, the anti-aliasing ones, a plugin's), by component name
 *                    or effect id, put on every active camera with its defaults and the given
 *                    fields (the reflection text form; a vector is "tint=(1, 0.3, 0.3, 1)" or
 *                    "tint=1,0.3,0.3,1"; a camera's own settings win the route), checked before
 *                    the content loads;
 * and the line listing the effects that ran in the last frame with their GPU time. Nothing here
 * knows an effect by name: components and fields come from the world's reflection. */
#include "cmds.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rill/app.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/plugins.h"

int rill_cli_effects_arg(rill_cli_effects *fx, const char *cmd, const char *a, const char *v) {
    if (strcmp(a, "--no-plugins") == 0) {
        fx->no_plugins = true;
        return 2;
    }
    bool is_effect = strcmp(a, "--effect") == 0, is_plugins = strcmp(a, "--plugins") == 0;
    if (!is_effect && !is_plugins) {
        return 0;
    }
    if (!v) {
        fprintf(stderr, "rill %s: %s needs a value\n", cmd, a);
        return -1;
    }
    if (is_plugins) {
        if (fx->plugins_dir_count == RILL_CLI_MAX_PLUGIN_DIRS) {
            fprintf(stderr, "rill %s: at most %u --plugins folders\n", cmd,
                    RILL_CLI_MAX_PLUGIN_DIRS);
            return -1;
        }
        fx->plugins_dirs[fx->plugins_dir_count++] = v;
        return 1;
    }
    if (!v[0] || v[0] == ':') {
        fprintf(stderr, "rill %s: bad --effect '%s' (want NAME[:field=value,...])\n", cmd, v);
        return -1;
    }
    if (fx->count == RILL_CLI_MAX_EFFECTS) {
        fprintf(stderr, "rill %s: at most %u --effect options\n", cmd, RILL_CLI_MAX_EFFECTS);
        return -1;
    }
    fx->specs[fx->count++] = v;
    return 1;
}

/* Whether the shipped library called name is overridden: a --plugins folder holds a file of
 * that name (loaded, or refused: a broken copy of one's own does not fall back to the shipped). */
static bool overridden(const rill_cli_effects *fx, const char *name) {
    for (uint32_t i = 0; i < fx->plugins_dir_count; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof(path), "%s/%s", fx->plugins_dirs[i], name);
        if (access(path, F_OK) == 0) {
            return true;
        }
    }
    return false;
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Loads the libraries of the shipped folder dir that no --plugins folder overrides (in name
 * order); the number refused into *failed. */
static void load_shipped(const rill_cli_effects *fx, const char *dir, uint32_t *failed) {
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    char names[64][256];
    char *order[64];
    uint32_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < 64) {
        size_t len = strlen(ent->d_name);
        if (len > 3 && len < 256 && strcmp(ent->d_name + len - 3, ".so") == 0) {
            snprintf(names[n], sizeof(names[n]), "%s", ent->d_name);
            order[n] = names[n];
            n++;
        }
    }
    closedir(d);
    qsort(order, n, sizeof(order[0]), cmp_name);
    for (uint32_t i = 0; i < n; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof(path), "%s/%s", dir, order[i]);
        rill_error e = {0};
        if (!overridden(fx, order[i]) && rill_plugins_load(fx->host, path, &e) != RILL_OK) {
            (*failed)++;
        }
    }
}

static rill_result check_specs(rill_cli_effects *fx, rill_content *c, rill_renderer *r,
                               rill_error *err);

rill_result rill_cli_effects_attach(rill_cli_effects *fx, rill_renderer *r, rill_content *c,
                                    rill_error *err) {
    char shipped[PATH_MAX];
    bool have_shipped = !fx->no_plugins && rill_cli_shipped_plugins_dir(shipped, sizeof(shipped));
    if (fx->plugins_dir_count || have_shipped) {
        rill_plugins_desc d = rill_plugins_query_defaults();
        d.renderer = r;
        d.world = rill_app_world(rill_content_app(c));
        d.components = rill_content_render_components(c);
        d.compile_on_first_use = true; /* 33 shipped plugins: compile only what a camera uses */
        fx->host = rill_plugins_create(&d, err);
        if (!fx->host) {
            return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
        }
    }
    for (uint32_t i = 0; i < fx->plugins_dir_count; i++) {
        uint32_t failed = 0;
        RILL_TRY(rill_plugins_load_dir(fx->host, fx->plugins_dirs[i], &failed, err));
        if (failed) {
            fprintf(stderr,
                    "warning: %u plugin(s) of %s refused (see the log; `rill plugins "
                    "--plugins DIR` lists why)\n",
                    failed, fx->plugins_dirs[i]);
        }
    }
    if (have_shipped) {
        uint32_t failed = 0;
        load_shipped(fx, shipped, &failed);
        if (failed) {
            fprintf(stderr,
                    "warning: %u shipped plugin(s) of %s refused (`rill plugins` lists why)\n",
                    failed, shipped);
        }
    }
    return check_specs(fx, c, r, err);
}

/* The routed settings component called name (case-insensitive), or named by the effect id name
 * (the registry's "bloom" -> "Bloom"); RILL_COMPONENT_NONE when none. */
static rill_component find_settings(rill_world *w, const rill_render_components *comps,
                                    rill_renderer *r, const char *name) {
    const char *via_id = NULL;
    for (uint32_t i = 0; r && i < rill_render_effect_count(r); i++) {
        rill_render_effect_info fi;
        if (rill_render_effect_get(r, i, &fi) && fi.settings && strcasecmp(fi.id, name) == 0) {
            via_id = fi.settings;
        }
    }
    for (uint32_t i = 0; i < comps->settings_count; i++) {
        const rill_type_desc *td = rill_world_component_type(w, comps->settings[i]);
        if (td && (strcasecmp(td->name, name) == 0 || (via_id && !strcmp(td->name, via_id)))) {
            return comps->settings[i];
        }
    }
    return RILL_COMPONENT_NONE;
}

static void list_settings(rill_world *w, const rill_render_components *comps, rill_strbuf *sb) {
    for (uint32_t i = 0; i < comps->settings_count; i++) {
        const rill_type_desc *td = rill_world_component_type(w, comps->settings[i]);
        rill_strbuf_printf(sb, "%s%s", i ? ", " : "", td ? td->name : "?");
    }
}

/* Where a value of an --effect is, for the clamp warnings. */
typedef struct effect_place {
    const char *spec, *type, *field;
    bool warn; /* print them (the first of the two parses of each spec) */
} effect_place;

static void effect_warn(void *user, size_t pos, const char *msg) {
    const effect_place *at = user;
    (void)pos;
    if (at->warn) {
        fprintf(stderr, "warning: --effect '%s': %s.%s: %s\n", at->spec, at->type, at->field, msg);
    }
}

/* One "field=value" (value up to len bytes) into obj; warn: print clamp warnings. */
static rill_result set_field(const rill_type_desc *td, void *obj, const char *kv, size_t len,
                             const char *spec, bool warn, rill_error *err) {
    const char *eq = memchr(kv, '=', len);
    if (!eq || eq == kv) {
        return rill_error_set(err, RILL_ERR_PARSE, "--effect '%s': '%.*s' is not field=value", spec,
                              (int)len, kv);
    }
    char fname[64];
    snprintf(fname, sizeof(fname), "%.*s", (int)(eq - kv), kv);
    const rill_field *f = rill_type_find_field(td, fname);
    if (!f) {
        rill_strbuf sb = {0};
        for (uint32_t i = 0; i < td->field_count; i++) {
            rill_strbuf_printf(&sb, "%s%s", i ? ", " : "", td->fields[i].name);
        }
        rill_error_set(err, RILL_ERR_NOT_FOUND, "--effect '%s': %s has no field '%s' (fields: %s)",
                       spec, td->name, fname, sb.data ? sb.data : "none");
        rill_strbuf_free(&sb);
        return RILL_ERR_NOT_FOUND;
    }
    const char *val = eq + 1;
    size_t vlen = len - (size_t)(val - kv), used = 0;
    rill_error perr = {0};
    /* Out of the field's range (inf and NaN included): clamped, with a warning naming it. */
    effect_place at = {spec, td->name, fname, warn};
    const rill_field_text opt = {.flags = RILL_FIELD_TEXT_CLAMP, .user = &at, .warn = effect_warn};
    if (rill_field_parse_ex(f, obj, val, vlen, &opt, &used, &perr) != RILL_OK || used != vlen) {
        return rill_error_set(err, RILL_ERR_PARSE, "--effect '%s': %s.%s: bad value '%.*s' %s",
                              spec, td->name, fname, (int)vlen, val, perr.msg);
    }
    /* The number syntax reads nan/inf (scene files round-trip them), but no effect setting wants
     * one: what no bound brought back to a finite number is refused. */
    double lane;
    for (uint32_t i = 0; rill_field_get_f64(f, obj, i, &lane); i++) {
        if (!isfinite(lane)) {
            return rill_error_set(err, RILL_ERR_PARSE,
                                  "--effect '%s': %s.%s: bad value '%.*s' (not a finite number)",
                                  spec, td->name, fname, (int)vlen, val);
        }
    }
    return RILL_OK;
}

/* The end of the field=value starting at p: the next top-level comma followed by a "name="
 * (commas inside brackets, and commas between the lanes of an unbracketed vector
 * "tint=1,0.3,0.3,1", belong to the value). */
static const char *field_end(const char *p) {
    int depth = 0;
    for (const char *e = p;; e++) {
        if (!*e) {
            return e;
        }
        depth += (*e == '(' || *e == '[') - (*e == ')' || *e == ']');
        if (depth > 0 || *e != ',') {
            continue;
        }
        const char *n = e + 1; /* a comma: does a field name and '=' follow? */
        while (*n == ' ') {
            n++;
        }
        while ((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
               *n == '_') {
            n++;
        }
        while (*n == ' ') {
            n++;
        }
        if (*n == '=') {
            return e;
        }
    }
}

/* Parses spec into obj (the type's defaults first). A value of several comma-separated lanes
 * without brackets is read as the vector "(lanes)". */
static rill_result parse_spec(const rill_type_desc *td, void *obj, const char *spec,
                              const char *colon, bool warn, rill_error *err) {
    rill_type_apply_defaults(td, obj);
    if (!colon) {
        return RILL_OK;
    }
    const char *p = colon + 1;
    while (*p) {
        const char *e = field_end(p), *eq = memchr(p, '=', (size_t)(e - p));
        char kv[512];
        size_t len = (size_t)(e - p);
        if (eq && memchr(eq, ',', (size_t)(e - eq)) && eq[1] != '(' && eq[1] != '[' &&
            len + 3 < sizeof(kv)) {
            int k = snprintf(kv, sizeof(kv), "%.*s(%.*s)", (int)(eq + 1 - p), p, (int)(e - eq - 1),
                             eq + 1);
            RILL_TRY(set_field(td, obj, kv, (size_t)k, spec, warn, err));
        } else {
            RILL_TRY(set_field(td, obj, p, len, spec, warn, err));
        }
        p = *e ? e + 1 : e;
    }
    rill_type_clamp(td, obj);
    return RILL_OK;
}

/* The settings component spec names, or an error listing the known ones. */
static rill_result spec_component(rill_cli_effects *fx, rill_content *c, rill_renderer *r,
                                  const char *spec, rill_component *out, rill_error *err) {
    rill_world *w = rill_app_world(rill_content_app(c));
    const rill_render_components *comps = rill_content_render_components(c);
    const char *colon = strchr(spec, ':');
    char name[64];
    snprintf(name, sizeof(name), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
    *out = find_settings(w, comps, r, name);
    if (rill_component_valid(*out)) {
        return RILL_OK;
    }
    /* The known names (the engine's and every plugin effect's: longer than an error message
     * holds) go to stderr whole; the error says where they are. */
    rill_strbuf sb = {0};
    list_settings(w, comps, &sb);
    const char *why = fx->no_plugins ? "; --no-plugins left out the shipped plugins"
                      : fx->host     ? ""
                                     : "; no shipped plugins were found: add --plugins DIR";
    fprintf(stderr, "--effect '%s': no effect settings called '%s' (known: %s%s)\n", spec, name,
            sb.data ? sb.data : "none", why);
    rill_error_set(err, RILL_ERR_NOT_FOUND,
                   "--effect '%s': no effect settings called '%s' (the known ones are listed "
                   "above%s)",
                   spec, name, why);
    rill_strbuf_free(&sb);
    return RILL_ERR_NOT_FOUND;
}

/* Parses spec into obj (at least 1024 bytes) as *out_comp's settings; warn: print the clamp
 * warnings (the check before loading does, the apply after it does not repeat them). */
static rill_result spec_settings(rill_cli_effects *fx, rill_content *c, rill_renderer *r,
                                 const char *spec, void *obj, rill_component *out_comp, bool warn,
                                 rill_error *err) {
    RILL_TRY(spec_component(fx, c, r, spec, out_comp, err));
    const rill_type_desc *td =
        rill_world_component_type(rill_app_world(rill_content_app(c)), *out_comp);
    if (td->size > 1024) {
        return rill_error_set(err, RILL_ERR_LIMIT, "--effect '%s': %s is too large", spec,
                              td->name);
    }
    return parse_spec(td, obj, spec, strchr(spec, ':'), warn, err);
}

static rill_result check_specs(rill_cli_effects *fx, rill_content *c, rill_renderer *r,
                               rill_error *err) {
    for (uint32_t i = 0; i < fx->count; i++) {
        _Alignas(16) unsigned char obj[1024];
        rill_component comp;
        RILL_TRY(spec_settings(fx, c, r, fx->specs[i], obj, &comp, true, err));
        /* A plugin effect asked for by name compiles now: a broken shader fails the command
         * (the plugins compile on first use otherwise). */
        const rill_type_desc *td =
            rill_world_component_type(rill_app_world(rill_content_app(c)), comp);
        for (uint32_t k = 0; fx->host && td && k < rill_plugins_effect_count(fx->host); k++) {
            rill_plugin_effect_info ei;
            if (rill_plugins_effect_get(fx->host, k, &ei) && strcmp(ei.id, td->name) == 0) {
                RILL_TRY(rill_plugins_compile(fx->host, ei.id, err));
            }
        }
    }
    return RILL_OK;
}

rill_result rill_cli_effects_apply(rill_cli_effects *fx, rill_content *c, rill_renderer *r,
                                   rill_error *err) {
    rill_world *w = rill_app_world(rill_content_app(c));
    for (uint32_t i = 0; i < fx->count; i++) {
        const char *spec = fx->specs[i];
        _Alignas(16) unsigned char obj[1024];
        rill_component comp;
        RILL_TRY(spec_settings(fx, c, r, spec, obj, &comp, false, err));
        /* On every active camera: a camera's own settings come first on its route. */
        const rill_builtins *b = rill_world_builtin(w);
        rill_query q = rill_world_query(w, &(rill_query_desc){.with = {b->camera}});
        uint32_t cams = 0;
        while (rill_query_next(&q)) {
            const rill_camera *cam = rill_query_get(&q, 0);
            if (cam->active) {
                rill_entity e = q.entity;
                rill_world_remove(w, e, comp);
                if (!rill_world_add(w, e, comp, obj)) {
                    return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "--effect: out of memory");
                }
                cams++;
            }
        }
        if (!cams) {
            return rill_error_set(err, RILL_ERR_NOT_FOUND, "--effect '%s': no active camera", spec);
        }
    }
    return RILL_OK;
}

void rill_cli_effects_poll(rill_cli_effects *fx) {
    if (fx->host) {
        rill_plugins_poll(fx->host);
    }
}

size_t rill_cli_effects_format(rill_renderer *r, char *buf, size_t cap) {
    size_t n = 0;
    int k = snprintf(buf, cap, "effects:");
    n = k > 0 ? (size_t)k : 0;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < rill_render_effect_count(r) && n < cap; i++) {
        rill_render_effect_info fi;
        if (!rill_render_effect_get(r, i, &fi) || !fi.ran_last_frame) {
            continue;
        }
        k = snprintf(buf + n, cap - n, " %s %.2f ms", fi.id, fi.gpu_ms);
        n += k > 0 ? (size_t)k : 0;
        shown++;
    }
    if (!shown && n < cap) {
        k = snprintf(buf + n, cap - n, " none");
        n += k > 0 ? (size_t)k : 0;
    }
    return n < cap ? n : cap - 1;
}

void rill_cli_effects_release(rill_cli_effects *fx) {
    rill_plugins_destroy(fx->host);
    fx->host = NULL;
}
