/* duotone: the Duotone effect plugin, two-ink print: shadows in one colour, highlights in another
 * (shader: duotone.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("shadows", 0, 0.12f, 0.05f, 0.3f, 1.0f, "colour of the dark end"),
    RILL_PLUGIN_COLOR("highlights", 16, 1.0f, 0.82f, 0.45f, 1.0f, "colour of the bright end"),
    RILL_PLUGIN_F32("strength", 32, 1.0f, 0.0f, 1.0f, "mix with the image"),
    RILL_PLUGIN_F32("contrast", 36, 1.0f, 0.1f, 4.0f, "above 1: harder split between the two"),
};

RILL_PLUGIN_SINGLE_EFFECT("duotone", "1.0", "Duotone", "duotone.glsl", 48, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 120)
