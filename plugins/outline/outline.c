/* outline: the Outline effect plugin, dark lines where the depth jumps or the surface turns (reads
 * depth and normals) (shader: outline.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("color", 0, 0.02f, 0.02f, 0.02f, 1.0f, "line colour; alpha = opacity"),
    RILL_PLUGIN_F32("thickness", 16, 1.0f, 0.5f, 8.0f,
                    "distance to the neighbours compared, in pixels"),
    RILL_PLUGIN_F32("depth_threshold", 20, 0.08f, 0.001f, 10.0f,
                    "relative depth jump that makes a line"),
    RILL_PLUGIN_F32("normal_threshold", 24, 0.35f, 0.0f, 2.0f,
                    "normal change (1 - cosine) that makes a line"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("outline", "1.0", "Outline", "outline.glsl", 32, fields,
                                 RILL_PLUGIN_PHASE_LDR_POST, 250,
                                 RILL_PLUGIN_INPUT_DEPTH | RILL_PLUGIN_INPUT_NORMAL)
