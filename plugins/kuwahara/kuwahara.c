/* kuwahara: the Kuwahara effect plugin, painterly smoothing that keeps edges (the calmest of four
 * quadrants) (shader: kuwahara.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("radius", 0, 4.0f, 1.0f, 8.0f, "quadrant size, in pixels"),
};

RILL_PLUGIN_SINGLE_EFFECT("kuwahara", "1.0", "Kuwahara", "kuwahara.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 350)
