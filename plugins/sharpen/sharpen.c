/* sharpen: the Sharpen effect plugin, crisper detail (unsharp mask over the 3x3 neighbourhood)
 * (shader: sharpen.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 0.8f, 0.0f, 4.0f, "amount of detail added back"),
    RILL_PLUGIN_F32("radius", 4, 1.0f, 0.5f, 4.0f, "distance of the neighbours, pixels"),
};

RILL_PLUGIN_SINGLE_EFFECT("sharpen", "1.0", "Sharpen", "sharpen.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 400)
