/* glitch: the Glitch effect plugin, digital corruption: torn rows, shifted blocks and split colour,
 * changing over time (shader: glitch.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 0.6f, 0.0f, 1.0f, "how much of the image is torn"),
    RILL_PLUGIN_F32("block_size", 4, 16.0f, 2.0f, 256.0f,
                    "height of a torn row and size of a block, in pixels"),
    RILL_PLUGIN_F32("speed", 8, 8.0f, 0.0f, 60.0f, "new corruption patterns per second"),
    RILL_PLUGIN_F32("color_split", 12, 4.0f, 0.0f, 64.0f,
                    "red/blue separation in torn parts, in pixels"),
};

RILL_PLUGIN_SINGLE_EFFECT("glitch", "1.0", "Glitch", "glitch.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 360)
