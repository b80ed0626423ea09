/* settings_fix.c: how every settings type's resolution makes its values safe: a value out of
 * range is clamped, a NaN or infinity replaced by the default, and the first time a (source
 * entity, type, field) is replaced a warning names them. Each user keeps its own warned set
 * (rill__warned: the environment, GI and post-processing state), so one noisy type cannot use
 * up another's. Routing (settings_route.c) first takes the non-finite values out of every routed
 * copy by the fields' reflected ranges and defaults (rill__settings_fix_nonfinite). */
#include "render_internal.h"

#include <math.h>

bool rill__warned_first(rill__warned *w, uint64_t key) {
    for (uint32_t i = 0; i < w->n; i++) {
        if (w->keys[i] == key) {
            return false;
        }
    }
    if (w->n < RILL_COUNTOF(w->keys)) {
        w->keys[w->n++] = key;
    }
    return true;
}

void rill__fix_warn(const rill__fix_src *s, const char *field, double was, double now) {
    uint64_t key = rill_hash64_seed(&s->entity, sizeof(s->entity),
                                    rill_hash64_str(field) ^ rill_hash64_str(s->type) * 31u);
    if (rill__warned_first(s->warned, key)) {
        RILL_LOG_WARN("render", "%s of entity %u:%u: %s = %g is out of range; using %g", s->type,
                      RILL_ENTITY_INDEX(s->entity), RILL_ENTITY_GENERATION(s->entity), field, was,
                      now);
    }
}

float rill__fix(const rill__fix_src *s, const char *field, float v, float lo, float hi, float def) {
    float out = !isfinite(v) ? def : v < lo ? lo : v > hi ? hi : v;
    if (out != v) {
        rill__fix_warn(s, field, (double)v, (double)out);
    }
    return out;
}

uint32_t rill__fix_u32(const rill__fix_src *s, const char *field, uint32_t v, uint32_t lo,
                       uint32_t hi) {
    uint32_t out = v < lo ? lo : v > hi ? hi : v;
    if (out != v) {
        rill__fix_warn(s, field, (double)v, (double)out);
    }
    return out;
}

float rill__settings_fix(rill_renderer *r, const char *type, rill_entity source, const char *field,
                         float v, float lo, float hi, float def) {
    rill__fix_src s = {&r->env_warned, type, source};
    return rill__fix(&s, field, v, lo, hi, def);
}

/* The value a non-finite lane of f becomes: the bound on its side, else the default's lane. */
static double nonfinite_replacement(const rill_field *f, const void *defaults, uint32_t lane,
                                    double was) {
    if (was > 0.0 && (f->flags & RILL_FIELD_HAS_MAX)) {
        return f->max;
    }
    if (was < 0.0 && (f->flags & RILL_FIELD_HAS_MIN)) {
        return f->min;
    }
    double def = 0.0;
    if (!defaults || !rill_field_get_f64(f, defaults, lane, &def) || !isfinite(def)) {
        def = (f->flags & RILL_FIELD_HAS_MIN) ? f->min : 0.0;
    }
    return def;
}

static bool is_float_field(rill_field_type t) {
    return t == RILL_FIELD_F32 || t == RILL_FIELD_F64 || t == RILL_FIELD_VEC2 ||
           t == RILL_FIELD_VEC3 || t == RILL_FIELD_VEC4 || t == RILL_FIELD_QUAT ||
           t == RILL_FIELD_COLOR;
}

/* Whether (source, type, field) is new to buf's warned keys (then remembered, up to 256). */
static bool settings_warned_first(rill_render_extract_buf *buf, rill_entity source,
                                  const char *type, const char *field) {
    uint64_t key = rill_hash64_seed(&source, sizeof(source),
                                    rill_hash64_str(field) ^ rill_hash64_str(type) * 31u);
    for (size_t i = 0; i < buf->settings_warned.len; i++) {
        if (buf->settings_warned.data[i] == key) {
            return false;
        }
    }
    if (buf->settings_warned.len < 256u) {
        (void)rill_array_push(&buf->settings_warned, key);
    }
    return true;
}

void rill__settings_fix_nonfinite(const rill_type_desc *td, rill_entity source, void *data,
                                  rill_render_extract_buf *warned) {
    _Alignas(16) unsigned char defaults[1024];
    bool have_defaults = false;
    for (uint32_t fi = 0; fi < td->field_count; fi++) {
        const rill_field *f = &td->fields[fi];
        if (!is_float_field(f->type)) {
            continue;
        }
        double v;
        for (uint32_t lane = 0; rill_field_get_f64(f, data, lane, &v); lane++) {
            if (isfinite(v)) {
                continue;
            }
            if (!have_defaults && td->size <= sizeof(defaults)) {
                rill_type_apply_defaults(td, defaults);
                have_defaults = true;
            }
            double now = nonfinite_replacement(f, have_defaults ? defaults : NULL, lane, v);
            rill_field_set_f64(f, data, lane, now);
            if (settings_warned_first(warned, source, td->name, f->name)) {
                RILL_LOG_WARN("render", "%s of entity %u:%u: %s = %g is out of range; using %g",
                              td->name, RILL_ENTITY_INDEX(source), RILL_ENTITY_GENERATION(source),
                              f->name, v, now);
            }
        }
    }
}
