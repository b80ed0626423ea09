/* posterize: the Posterize effect plugin, few colour levels per channel, poster-like (shader:
 * posterize.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("levels", 0, 5.0f, 2.0f, 64.0f, "levels per channel"),
    RILL_PLUGIN_F32("gamma", 4, 1.0f, 0.2f, 5.0f,
                    "applied before quantizing (above 1: more dark levels)"),
};

RILL_PLUGIN_SINGLE_EFFECT("posterize", "1.0", "Posterize", "posterize.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 310)
