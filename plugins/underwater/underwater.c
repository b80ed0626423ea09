/* underwater: the Underwater effect plugin, below the surface: wavy image, blue-green murk growing
 * with distance, caustic light (reads depth) (shader: underwater.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("water_color", 0, 0.03f, 0.3f, 0.4f, 1.0f, "colour of the murk"),
    RILL_PLUGIN_F32("wave_strength", 16, 0.005f, 0.0f, 0.05f,
                    "image wobble, fraction of the image"),
    RILL_PLUGIN_F32("wave_frequency", 20, 22.0f, 0.0f, 500.0f, "wobble waves over the image"),
    RILL_PLUGIN_F32("visibility", 24, 45.0f, 0.1f, 100000.0f,
                    "distance where the murk is nearly total, metres"),
    RILL_PLUGIN_F32("caustics", 28, 0.25f, 0.0f, 2.0f, "brightness of the rippling light"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("underwater", "1.0", "Underwater", "underwater.glsl", 32, fields,
                                 RILL_PLUGIN_PHASE_LDR_POST, 90, RILL_PLUGIN_INPUT_DEPTH)
