/* tilt_shift: the TiltShift effect plugin, miniature look: sharp at one distance, blurred nearer
 * and farther, more saturated (reads depth) (shader: tilt_shift.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("focus_distance", 0, 9.0f, 0.05f, 100000.0f, "distance in focus, metres"),
    RILL_PLUGIN_F32("focus_range", 4, 3.0f, 0.0f, 100000.0f, "depth around it kept sharp, metres"),
    RILL_PLUGIN_F32("max_blur", 8, 5.0f, 0.0f, 32.0f, "largest blur radius, pixels"),
    RILL_PLUGIN_F32("saturation", 12, 1.25f, 0.0f, 3.0f, "colour saturation (1 = unchanged)"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("tilt_shift", "1.0", "TiltShift", "tilt_shift.glsl", 16, fields,
                                 RILL_PLUGIN_PHASE_LDR_POST, 80, RILL_PLUGIN_INPUT_DEPTH)
