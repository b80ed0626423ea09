/* crt: the Crt effect plugin (shader: crt.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("curvature", 0, 0.08f, 0.0f, 0.5f, "barrel distortion of the screen"),
    RILL_PLUGIN_F32("scanlines", 4, 0.35f, 0.0f, 1.0f, "darkening of every other line"),
    RILL_PLUGIN_F32("line_count", 8, 120.0f, 1.0f, 4096.0f, "scanlines over the height"),
};

RILL_PLUGIN_SINGLE_EFFECT("crt", "1.0", "Crt", "crt.glsl", 16, fields, RILL_PLUGIN_PHASE_LDR_POST,
                          300)
