/* toon: the Toon effect plugin, cel shading: the light in flat bands, more saturated, inked where
 * normals turn (reads depth and normals) (shader: toon.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("ink", 0, 0.03f, 0.03f, 0.05f, 1.0f, "edge colour; alpha = opacity"),
    RILL_PLUGIN_F32("bands", 16, 4.0f, 2.0f, 16.0f, "number of light levels"),
    RILL_PLUGIN_F32("saturation", 20, 1.25f, 0.0f, 3.0f, "colour saturation (1 = unchanged)"),
    RILL_PLUGIN_F32("edge_threshold", 24, 0.4f, 0.0f, 2.0f,
                    "normal change (1 - cosine) inked as an edge"),
};

RILL_PLUGIN_SINGLE_EFFECT_INPUTS("toon", "1.0", "Toon", "toon.glsl", 32, fields,
                                 RILL_PLUGIN_PHASE_LDR_POST, 240,
                                 RILL_PLUGIN_INPUT_DEPTH | RILL_PLUGIN_INPUT_NORMAL)
