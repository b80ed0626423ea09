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

RILL_PLUGIN_SINGLE_EFFECT("vignette", "1.0", "Vignette", "vignette.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 200)
