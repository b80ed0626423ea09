/* cli_effects.c: the screen-effect options `rill render` and `rill run` share.
 *   --plugins DIR    a plugin host on the content's world, loaded before the scene is bound (so a
 *                    scene may hold plugin settings components) and polled every frame (hot
 *                    reload);
 *   --effect SPEC    NAME[:field=value,...]: any routed settings component (the engine's Ssao,
 *                    Bloom, AutoExposure, the anti-aliasing ones, a plugin's), by component name
 *                    or effect id, put on every active camera with its defaults and the given
 *                    fields (the reflection text form; a camera's own settings win the route);
 * and the line listing the effects that ran in the last frame with their GPU time. Nothing here
 * knows an effect by name: components and fields come from the world's reflection. */
#include "cmds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rill/app.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/plugins.h"

int rill_cli_effects_arg(rill_cli_effects *fx, const char *cmd, const char *a, const char *v) {
    bool is_effect = strcmp(a, "--effect") == 0, is_plugins = strcmp(a, "--plugins") == 0;
    if (!is_effect && !is_plugins) {
        return 0;
    }
    if (!v) {
        fprintf(stderr, "rill %s: %s needs a value\n", cmd, a);
        return -1;
    }
    if (is_plugins) {
        fx->plugins_dir = v;
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

rill_result rill_cli_effects_attach(rill_cli_effects *fx, rill_renderer *r, rill_content *c,
                                    rill_error *err) {
    if (!fx->plugins_dir) {
        return RILL_OK;
    }
    rill_plugins_desc d = rill_plugins_query_defaults();
    d.renderer = r;
    d.world = rill_app_world(rill_content_app(c));
    d.components = rill_content_render_components(c);
    fx->host = rill_plugins_create(&d, err);
    if (!fx->host) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    uint32_t failed = 0;
    rill_result res = rill_plugins_load_dir(fx->host, fx->plugins_dir, &failed, err);
    if (res == RILL_OK && failed) {
        fprintf(stderr,
                "warning: %u plugin(s) of %s refused (see the log; `rill plugins "
                "--plugins DIR` lists why)\n",
                failed, fx->plugins_dir);
    }
    return res;
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

/* One "field=value" (value up to len bytes) into obj. */
static rill_result set_field(const rill_type_desc *td, void *obj, const char *kv, size_t len,
                             const char *spec, rill_error *err) {
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
    if (rill_field_parse(f, obj, val, vlen, &used, &perr) != RILL_OK || used != vlen) {
        return rill_error_set(err, RILL_ERR_PARSE, "--effect '%s': %s.%s: bad value '%.*s' %s",
                              spec, td->name, fname, (int)vlen, val, perr.msg);
    }
    /* The number syntax reads nan/inf (scene files round-trip them), but no effect setting wants
     * one: the clamp would turn NaN into the minimum silently and let inf through to the GPU. */
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

/* Parses spec into obj (the type's defaults first). Commas inside brackets belong to a value
 * ("tint=(1, 0.5, 0.5, 1)"). */
static rill_result parse_spec(const rill_type_desc *td, void *obj, const char *spec,
                              const char *colon, rill_error *err) {
    rill_type_apply_defaults(td, obj);
    if (!colon) {
        return RILL_OK;
    }
    const char *p = colon + 1;
    while (*p) {
        int depth = 0;
        const char *e = p;
        for (; *e && (depth > 0 || *e != ','); e++) {
            depth += (*e == '(' || *e == '[') - (*e == ')' || *e == ']');
        }
        RILL_TRY(set_field(td, obj, p, (size_t)(e - p), spec, err));
        p = *e ? e + 1 : e;
    }
    rill_type_clamp(td, obj);
    return RILL_OK;
}

rill_result rill_cli_effects_apply(rill_cli_effects *fx, rill_content *c, rill_renderer *r,
                                   rill_error *err) {
    rill_world *w = rill_app_world(rill_content_app(c));
    const rill_render_components *comps = rill_content_render_components(c);
    for (uint32_t i = 0; i < fx->count; i++) {
        const char *spec = fx->specs[i], *colon = strchr(spec, ':');
        char name[64];
        snprintf(name, sizeof(name), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
        rill_component comp = find_settings(w, comps, r, name);
        if (!rill_component_valid(comp)) {
            rill_strbuf sb = {0};
            list_settings(w, comps, &sb);
            rill_error_set(err, RILL_ERR_NOT_FOUND,
                           "--effect '%s': no effect settings called '%s' (known: %s%s)", spec,
                           name, sb.data ? sb.data : "none",
                           fx->plugins_dir ? "" : "; plugin effects need --plugins DIR");
            rill_strbuf_free(&sb);
            return RILL_ERR_NOT_FOUND;
        }
        const rill_type_desc *td = rill_world_component_type(w, comp);
        _Alignas(16) unsigned char obj[1024];
        if (td->size > sizeof(obj)) {
            return rill_error_set(err, RILL_ERR_LIMIT, "--effect '%s': %s is too large", spec,
                                  td->name);
        }
        RILL_TRY(parse_spec(td, obj, spec, colon, err));
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
