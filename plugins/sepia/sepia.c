/* sepia: the Sepia effect plugin (shader: sepia.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 1.0f, 0.0f, 1.0f, "0 = unchanged, 1 = full sepia"),
};

RILL_PLUGIN_SINGLE_EFFECT("sepia", "1.0", "Sepia", "sepia.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 100)
