/* kaleidoscope: the Kaleidoscope effect plugin, mirrored wedges around the centre (shader:
 * kaleidoscope.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("segments", 0, 6.0f, 2.0f, 64.0f, "number of mirrored wedges"),
    RILL_PLUGIN_F32("angle", 4, 0.0f, -6.2832f, 6.2832f, "rotation, radians"),
    RILL_PLUGIN_F32("zoom", 8, 1.0f, 0.1f, 10.0f, "above 1 shows less of the image"),
};

RILL_PLUGIN_SINGLE_EFFECT("kaleidoscope", "1.0", "Kaleidoscope", "kaleidoscope.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 95)
