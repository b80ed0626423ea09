/* color_blindness: the ColorBlindness effect plugin, how the image looks with a colour vision
 * deficiency (Machado 2009, full severity) (shader: color_blindness.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_U32("mode", 0, 1u, "0 = protanopia, 1 = deuteranopia, 2 = tritanopia"),
    RILL_PLUGIN_F32("strength", 4, 1.0f, 0.0f, 1.0f, "0 = unchanged, 1 = full simulation"),
};

RILL_PLUGIN_SINGLE_EFFECT("color_blindness", "1.0", "ColorBlindness", "color_blindness.glsl", 16,
                          fields, RILL_PLUGIN_PHASE_LDR_POST, 600)
