/* vignette: the Vignette effect plugin (shader: vignette.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    {"intensity",
     RILL_PLUGIN_FIELD_F32,
     0,
     {0.6, 0, 0, 0},
     1,
     0.0f,
     1.0f,
     "darkening at the corners"},
    {"radius",
     RILL_PLUGIN_FIELD_F32,
     4,
     {0.75, 0, 0, 0},
     1,
     0.0f,
     2.0f,
     "distance from the centre where darkening starts"},
    {"softness",
     RILL_PLUGIN_FIELD_F32,
     8,
     {0.45, 0, 0, 0},
     1,
     0.001f,
     2.0f,
     "width of the falloff"},
};

static const rill_plugin_api api = {
    RILL_PLUGIN_ABI_MAJOR, RILL_PLUGIN_ABI_MINOR, sizeof(rill_plugin_api), "vignette", "1.0", NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    if (!host || host->abi_major != RILL_PLUGIN_ABI_MAJOR) {
        return &api; /* the host reports the mismatch */
    }
    rill_plugin_effect_desc d = {sizeof(d),
                                 "Vignette",
                                 NULL,
                                 "vignette.glsl",
                                 16,
                                 fields,
                                 sizeof(fields) / sizeof(fields[0]),
                                 RILL_PLUGIN_PHASE_LDR_POST,
                                 200};
    host->add_post_process(host->host, &d);
    return &api;
}
