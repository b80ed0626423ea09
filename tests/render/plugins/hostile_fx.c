/* hostile_fx.c: plugins that misbehave, built one per HOSTILE_FX variant for the hostile plugin
 * folder (tests/cli plugins_hostile): CRASH writes through a null pointer in its entry point, LOOP
 * never returns from it, MANY announces 2,000 effects, ESCAPE names a shader outside its folder.
 * The host must list and render around every one of them. */
#include "rill/plugin.h"

#include <stdio.h>

static const rill_plugin_api api = {
    RILL_PLUGIN_ABI_MAJOR, RILL_PLUGIN_ABI_MINOR, sizeof(rill_plugin_api), "hostile_fx", "1", NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

#define BODY "vec4 rill_effect(vec2 uv, vec4 c) { return c; }\n"

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    (void)host;
#if HOSTILE_FX == 1
    volatile int *volatile null = NULL;
    *null = 1;
#elif HOSTILE_FX == 2
    for (volatile unsigned i = 0;; i++) {
    }
#elif HOSTILE_FX == 3
    for (int i = 0; i < 2000; i++) {
        char id[32];
        snprintf(id, sizeof(id), "Many%d", i);
        rill_plugin_effect_desc d = {
            sizeof(d), id, BODY, NULL, 0, NULL, 0, RILL_PLUGIN_PHASE_LDR_POST, i};
        host->add_post_process(host->host, &d);
    }
#else
    rill_plugin_effect_desc d = {
        sizeof(d), "Escape", NULL, "../../etc/passwd", 0, NULL, 0, RILL_PLUGIN_PHASE_LDR_POST, 0};
    host->add_post_process(host->host, &d);
#endif
    return &api;
}
