/* emboss: the Emboss effect plugin, relief: the image as if pressed into grey metal, lit from one
 * side (shader: emboss.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 2.5f, 0.0f, 16.0f, "relief depth"),
    RILL_PLUGIN_F32("angle", 4, 0.785f, -3.1416f, 3.1416f, "direction of the light, radians"),
    RILL_PLUGIN_F32("amount", 8, 1.0f, 0.0f, 1.0f, "mix with the image"),
};

RILL_PLUGIN_SINGLE_EFFECT("emboss", "1.0", "Emboss", "emboss.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 410)
