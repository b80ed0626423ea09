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

RILL_PLUGIN_SINGLE_EFFECT("crt", "1.0", "Crt", "crt.glsl", 16, fields, RILL_PLUGIN_PHASE_LDR_POST,
                          300)
