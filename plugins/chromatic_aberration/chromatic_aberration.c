/* chromatic_aberration: the ChromaticAberration effect plugin (shader: chromatic_aberration.glsl
 * next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    {"amount",
     RILL_PLUGIN_FIELD_F32,
     0,
     {3, 0, 0, 0},
     1,
     0.0f,
     32.0f,
     "red/blue offset at the corners, in pixels"},
};

static const rill_plugin_api api = {RILL_PLUGIN_ABI_MAJOR,
                                    RILL_PLUGIN_ABI_MINOR,
                                    sizeof(rill_plugin_api),
                                    "chromatic_aberration",
                                    "1.0",
                                    NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    if (!host || host->abi_major != RILL_PLUGIN_ABI_MAJOR) {
        return &api; /* the host reports the mismatch */
    }
    rill_plugin_effect_desc d = {sizeof(d),
                                 "ChromaticAberration",
                                 NULL,
                                 "chromatic_aberration.glsl",
                                 16,
                                 fields,
                                 sizeof(fields) / sizeof(fields[0]),
                                 RILL_PLUGIN_PHASE_LDR_POST,
                                 50};
    host->add_post_process(host->host, &d);
    return &api;
}
