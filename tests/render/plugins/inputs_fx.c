/* inputs_fx.c: an ABI 1.1 plugin reading every frame input (depth, normals, motion vectors) and
 * writing them as colour, for the test that checks what the host binds: red = view depth / 10 m,
 * green = the world normal's z * 0.5 + 0.5, blue = 0.5 + 20 * the motion's x in UV units. */
#include "rill/plugin.h"

static const rill_plugin_api api = {RILL_PLUGIN_ABI_MAJOR,
                                    RILL_PLUGIN_ABI_MINOR,
                                    sizeof(rill_plugin_api),
                                    "inputs_fx",
                                    "1.0",
                                    NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    rill_plugin_effect_desc d = {
        sizeof(d),
        "InputsFx",
        "vec4 rill_effect(vec2 uv, vec4 c) {\n"
        "    return vec4(clamp(rill_view_depth(uv) / 10.0, 0.0, 1.0),\n"
        "                rill_normal(uv).z * 0.5 + 0.5, 0.5 + 20.0 * rill_motion(uv).x, 1.0);\n"
        "}\n",
        NULL,
        0,
        NULL,
        0,
        RILL_PLUGIN_PHASE_LDR_POST,
        10,
        RILL_PLUGIN_INPUT_DEPTH | RILL_PLUGIN_INPUT_NORMAL | RILL_PLUGIN_INPUT_MOTION};
    host->add_post_process(host->host, &d);
    return &api;
}
