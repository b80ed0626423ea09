/* hostile_fx.c: plugins that misbehave, built one per HOSTILE_FX variant for the hostile plugin
 * folder (tests/cli plugins_hostile): 1 CRASH writes through a null pointer in its entry point,
 * 2 LOOP never returns from it, 3 MANY announces 2,000 effects, 4 ESCAPE names a shader outside
 * its folder, 5 INPUTS asks for depth and a frame input no host gives (bit 7), 6 HUGE declares
 * 1 GiB of settings, 7 BROKEN names a shader file (hostile_broken.glsl, written by the test) that
 * does not compile. The host must list and render around every one of them. */
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
#elif HOSTILE_FX == 4
    rill_plugin_effect_desc d = {
        sizeof(d), "Escape", NULL, "../../etc/passwd", 0, NULL, 0, RILL_PLUGIN_PHASE_LDR_POST, 0};
    host->add_post_process(host->host, &d);
#elif HOSTILE_FX == 5
    rill_plugin_effect_desc d = {sizeof(d), "Inputs",
                                 BODY,      NULL,
                                 0,         NULL,
                                 0,         RILL_PLUGIN_PHASE_LDR_POST,
                                 0,         RILL_PLUGIN_INPUT_DEPTH | (1u << 7)};
    host->add_post_process(host->host, &d);
#elif HOSTILE_FX == 6
    rill_plugin_effect_desc d = {
        sizeof(d), "Huge", BODY, NULL, 1u << 30, NULL, 0, RILL_PLUGIN_PHASE_LDR_POST, 0};
    host->add_post_process(host->host, &d);
#else
    rill_plugin_effect_desc d = {sizeof(d), "Broken", NULL, "hostile_broken.glsl",
                                 0,         NULL,     0,    RILL_PLUGIN_PHASE_LDR_POST,
                                 0};
    host->add_post_process(host->host, &d);
#endif
    return &api;
}
