/* grayscale: the Grayscale effect plugin, black and white (Rec. 709 luminance) (shader:
 * grayscale.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 1.0f, 0.0f, 1.0f, "0 = unchanged, 1 = grey only"),
};

RILL_PLUGIN_SINGLE_EFFECT("grayscale", "1.0", "Grayscale", "grayscale.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 110)
