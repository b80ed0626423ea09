/* invert: the Invert effect plugin, negative image (shader: invert.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 1.0f, 0.0f, 1.0f, "0 = unchanged, 1 = negative"),
};

RILL_PLUGIN_SINGLE_EFFECT("invert", "1.0", "Invert", "invert.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 500)
