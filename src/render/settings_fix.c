/* settings_fix.c: how every settings type's resolution makes its values safe: a value out of
 * range is clamped, a NaN or infinity replaced by the default, and the first time a (source
 * entity, type, field) is replaced a warning names them. Each user keeps its own warned set
 * (rill__warned: the environment, GI and post-processing state), so one noisy type cannot use
 * up another's. */
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
