/* thermal: the Thermal effect plugin, thermal-camera false colour: hot (bright, near) white-yellow,
 * cold blue-black (reads depth) (shader: thermal.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 1.0f, 0.0f, 1.0f, "mix with the image"),
    RILL_PLUGIN_F32("contrast", 4, 1.2f, 0.1f, 4.0f, "heat curve exponent (above 1: more cold)"),
    RILL_PLUGIN_F32("depth_weight", 8, 0.35f, 0.0f, 1.0f, "how much nearness adds heat"),
    RILL_PLUGIN_F32("range", 12, 40.0f, 0.1f, 10000.0f,
                    "distance at which nearness adds nothing, metres"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("thermal", "1.0", "Thermal", "thermal.glsl", 16, fields,
                                 RILL_PLUGIN_PHASE_LDR_POST, 380, RILL_PLUGIN_INPUT_DEPTH)
