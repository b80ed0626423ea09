/* pixelate: the Pixelate effect plugin, big square pixels (each the colour at its centre) (shader:
 * pixelate.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("pixel_size", 0, 6.0f, 1.0f, 256.0f, "size of a pixel block, in output pixels"),
};

RILL_PLUGIN_SINGLE_EFFECT("pixelate", "1.0", "Pixelate", "pixelate.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 300)
