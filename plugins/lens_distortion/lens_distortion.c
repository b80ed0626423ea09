/* lens_distortion: the LensDistortion effect plugin, radial lens distortion (barrel or pincushion)
 * with colour fringes (shader: lens_distortion.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("k1", 0, -0.2f, -1.0f, 1.0f,
                    "quadratic term: below 0 barrel, above 0 pincushion"),
    RILL_PLUGIN_F32("k2", 4, 0.0f, -1.0f, 1.0f, "quartic term"),
    RILL_PLUGIN_F32("zoom", 8, 1.0f, 0.25f, 4.0f,
                    "above 1 crops in (hides the black border of barrel)"),
    RILL_PLUGIN_F32("dispersion", 12, 0.015f, 0.0f, 0.2f,
                    "red and blue distorted by this much more and less"),
};

RILL_PLUGIN_SINGLE_EFFECT("lens_distortion", "1.0", "LensDistortion", "lens_distortion.glsl", 16,
                          fields, RILL_PLUGIN_PHASE_LDR_POST, 60)
