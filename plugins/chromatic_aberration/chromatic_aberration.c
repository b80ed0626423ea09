/* chromatic_aberration: the ChromaticAberration effect plugin (shader: chromatic_aberration.glsl
 * next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("amount", 0, 3.0f, 0.0f, 32.0f, "red/blue offset at the corners, in pixels"),
};

RILL_PLUGIN_SINGLE_EFFECT("chromatic_aberration", "1.0", "ChromaticAberration",
                          "chromatic_aberration.glsl", 16, fields, RILL_PLUGIN_PHASE_LDR_POST, 50)
