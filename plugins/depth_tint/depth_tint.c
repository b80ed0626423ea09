/* depth_tint: the DepthTint effect plugin, colour laid over what is far: fog-of-war, haze or a dusk
 * tint (reads depth) (shader: depth_tint.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("color", 0, 0.45f, 0.5f, 0.62f, 1.0f, "tint colour"),
    RILL_PLUGIN_F32("start", 16, 6.0f, 0.0f, 100000.0f, "distance where the tint starts, metres"),
    RILL_PLUGIN_F32("end", 20, 30.0f, 0.0f, 100000.0f, "distance where it reaches density, metres"),
    RILL_PLUGIN_F32("density", 24, 0.85f, 0.0f, 1.0f, "strongest tint"),
    RILL_PLUGIN_F32("sky", 28, 1.0f, 0.0f, 1.0f, "tint of the sky (where nothing drew)"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("depth_tint", "1.0", "DepthTint", "depth_tint.glsl", 32, fields,
                                 RILL_PLUGIN_PHASE_LDR_POST, 40, RILL_PLUGIN_INPUT_DEPTH)
