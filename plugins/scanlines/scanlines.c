/* scanlines: the Scanlines effect plugin, dark horizontal lines, a slow rolling bright band and
 * flicker (shader: scanlines.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("line_count", 0, 180.0f, 8.0f, 4096.0f, "lines over the image height"),
    RILL_PLUGIN_F32("strength", 4, 0.45f, 0.0f, 1.0f, "darkness of a line"),
    RILL_PLUGIN_F32("sharpness", 8, 2.0f, 1.0f, 16.0f, "above 1: thinner, crisper lines"),
    RILL_PLUGIN_F32("roll_speed", 12, 0.15f, -10.0f, 10.0f,
                    "bright band travel, image heights per second"),
    RILL_PLUGIN_F32("flicker", 16, 0.03f, 0.0f, 1.0f, "brightness flicker per frame"),
};

RILL_PLUGIN_SINGLE_EFFECT("scanlines", "1.0", "Scanlines", "scanlines.glsl", 32, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 420)
