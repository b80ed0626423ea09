/* crt: the Crt effect plugin (shader: crt.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    {"curvature",
     RILL_PLUGIN_FIELD_F32,
     0,
     {0.08, 0, 0, 0},
     1,
     0.0f,
     0.5f,
     "barrel distortion of the screen"},
    {"scanlines",
     RILL_PLUGIN_FIELD_F32,
     4,
     {0.35, 0, 0, 0},
     1,
     0.0f,
     1.0f,
     "darkening of every other line"},
    {"line_count",
     RILL_PLUGIN_FIELD_F32,
     8,
     {120, 0, 0, 0},
     1,
     1.0f,
     4096.0f,
     "scanlines over the height"},
};

static const rill_plugin_api api = {
    RILL_PLUGIN_ABI_MAJOR, RILL_PLUGIN_ABI_MINOR, sizeof(rill_plugin_api), "crt", "1.0", NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    if (!host || host->abi_major != RILL_PLUGIN_ABI_MAJOR) {
        return &api; /* the host reports the mismatch */
    }
    rill_plugin_effect_desc d = {sizeof(d),
                                 "Crt",
                                 NULL,
                                 "crt.glsl",
                                 16,
                                 fields,
                                 sizeof(fields) / sizeof(fields[0]),
                                 RILL_PLUGIN_PHASE_LDR_POST,
                                 300};
    host->add_post_process(host->host, &d);
    return &api;
}
