/* dither: the Dither effect plugin, ordered (8x8 Bayer) dithering to a few levels per channel,
 * retro screens (shader: dither.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("levels", 0, 4.0f, 2.0f, 64.0f, "levels per channel"),
    RILL_PLUGIN_F32("scale", 4, 1.0f, 1.0f, 16.0f, "size of a dither cell, in pixels"),
    RILL_PLUGIN_F32("monochrome", 8, 0.0f, 0.0f, 1.0f,
                    "1 = dither the luminance only (black and white)"),
};

RILL_PLUGIN_SINGLE_EFFECT("dither", "1.0", "Dither", "dither.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 320)
