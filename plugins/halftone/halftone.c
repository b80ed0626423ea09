/* halftone: the Halftone effect plugin, print-like dots on a rotated grid, bigger where the image
 * is darker (shader: halftone.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("paper", 0, 0.96f, 0.94f, 0.88f, 1.0f, "colour between the dots"),
    RILL_PLUGIN_F32("cell_size", 16, 7.0f, 2.0f, 128.0f, "grid spacing, in pixels"),
    RILL_PLUGIN_F32("angle", 20, 0.4f, -3.1416f, 3.1416f, "grid rotation, radians"),
    RILL_PLUGIN_F32("strength", 24, 1.0f, 0.0f, 1.0f, "mix with the image (1 = dots only)"),
    RILL_PLUGIN_F32("ink_saturation", 28, 1.0f, 0.0f, 2.0f,
                    "dot colour: 0 = black ink, 1 = the image colour"),
};

RILL_PLUGIN_SINGLE_EFFECT("halftone", "1.0", "Halftone", "halftone.glsl", 32, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 330)
