/* vignette: the Vignette effect plugin (shader: vignette.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("intensity", 0, 0.6f, 0.0f, 1.0f, "darkening at the corners"),
    RILL_PLUGIN_F32("radius", 4, 0.75f, 0.0f, 2.0f,
                    "distance from the centre where darkening starts"),
    RILL_PLUGIN_F32("softness", 8, 0.45f, 0.001f, 2.0f, "width of the falloff"),
};

RILL_PLUGIN_SINGLE_EFFECT("vignette", "1.0", "Vignette", "vignette.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 200)
