/* night_vision: the NightVision effect plugin, image-intensifier look: amplified green picture,
 * noise, a round eyepiece (shader: night_vision.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("tint", 0, 0.25f, 1.0f, 0.3f, 1.0f, "phosphor colour"),
    RILL_PLUGIN_F32("gain", 16, 1.3f, 0.0f, 32.0f, "light amplification"),
    RILL_PLUGIN_F32("noise", 20, 0.12f, 0.0f, 1.0f, "grain amplitude"),
    RILL_PLUGIN_F32("eyepiece", 24, 0.85f, 0.0f, 2.0f,
                    "radius of the round view (0 = no eyepiece)"),
};

RILL_PLUGIN_SINGLE_EFFECT("night_vision", "1.0", "NightVision", "night_vision.glsl", 32, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 370)
