/* legacy_fx.c: a plugin as a build against ABI 1.0's rill/plugin.h made it: its tables say 1.0
 * and its effect desc is 1.0's, which ends at `order` (no `inputs`), so struct_size is smaller
 * than today's. A 1.1 host must load it unchanged and read nothing past its struct_size. The
 * effect inverts the colour. */
#include "rill/plugin.h"

#include <string.h>

/* rill_plugin_effect_desc of ABI 1.0, field for field. */
typedef struct legacy_effect_desc {
    uint32_t struct_size;
    const char *id;
    const char *shader_source;
    const char *shader_path;
    uint32_t settings_size;
    const rill_plugin_field *settings_fields;
    uint32_t settings_field_count;
    uint32_t phase;
    int32_t order;
} legacy_effect_desc;

static const rill_plugin_api api = {1u, 0u, sizeof(rill_plugin_api), "legacy_fx", "1.0", NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    /* The desc's tail padding and what follows it on the stack are garbage (all bits set) that a
     * host must not read as inputs. */
    struct {
        legacy_effect_desc d;
        uint32_t garbage[4];
    } s;
    memset(&s, 0xff, sizeof(s));
    s.d.struct_size = sizeof(legacy_effect_desc);
    s.d.id = "LegacyFx";
    s.d.shader_source = "vec4 rill_effect(vec2 uv, vec4 c) { return vec4(1.0 - c.rgb, 1.0); }\n";
    s.d.shader_path = NULL;
    s.d.settings_size = 0;
    s.d.settings_fields = NULL;
    s.d.settings_field_count = 0;
    s.d.phase = RILL_PLUGIN_PHASE_LDR_POST;
    s.d.order = 10;
    host->add_post_process(host->host, (const rill_plugin_effect_desc *)&s.d);
    return &api;
}
