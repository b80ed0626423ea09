/* motion_trails: the MotionTrails effect plugin, streaks behind moving things, drawn along their
 * motion vectors (reads motion) (shader: motion_trails.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("streak", 0, 1.5f, 0.0f, 8.0f, "streak length, in frames of motion"),
    RILL_PLUGIN_F32("threshold", 4, 0.5f, 0.0f, 100.0f,
                    "motion below this many pixels a frame draws no streak"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("motion_trails", "1.0", "MotionTrails", "motion_trails.glsl", 16,
                                 fields, RILL_PLUGIN_PHASE_LDR_POST, 130, RILL_PLUGIN_INPUT_MOTION)
