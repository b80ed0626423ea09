/* heat_haze: the HeatHaze effect plugin, shimmering air: the image wavers, more with distance
 * (reads depth) (shader: heat_haze.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 0.004f, 0.0f, 0.05f, "largest offset, fraction of the image"),
    RILL_PLUGIN_F32("frequency", 4, 70.0f, 1.0f, 1000.0f, "ripples over the image height"),
    RILL_PLUGIN_F32("speed", 8, 3.0f, 0.0f, 50.0f, "ripple speed"),
    RILL_PLUGIN_F32("start", 12, 3.0f, 0.0f, 100000.0f, "distance where the haze starts, metres"),
    RILL_PLUGIN_F32("end", 16, 25.0f, 0.0f, 100000.0f, "distance where it is full, metres"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("heat_haze", "1.0", "HeatHaze", "heat_haze.glsl", 32, fields,
                                 RILL_PLUGIN_PHASE_LDR_POST, 85, RILL_PLUGIN_INPUT_DEPTH)
