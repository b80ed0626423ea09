/* ascii: the Ascii effect plugin, the image as text: each cell a character as dense as the cell is
 * bright (shader: ascii.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("ink", 0, 0.35f, 1.0f, 0.45f, 1.0f, "character colour when colored = 0"),
    RILL_PLUGIN_COLOR("background", 16, 0.0f, 0.02f, 0.0f, 1.0f, "colour behind the characters"),
    RILL_PLUGIN_F32("cell_size", 32, 8.0f, 4.0f, 64.0f, "character cell, in pixels"),
    RILL_PLUGIN_F32("colored", 36, 1.0f, 0.0f, 1.0f,
                    "1 = characters take the image colour, 0 = the ink colour"),
};

RILL_PLUGIN_SINGLE_EFFECT("ascii", "1.0", "Ascii", "ascii.glsl", 48, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 340)
