/* fisheye: the Fisheye effect plugin, fisheye lens: the centre bulges, the edges squeeze in
 * (shader: fisheye.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("strength", 0, 1.25f, 0.01f, 1.5f,
                    "bulge (angle mapped to the corners, radians)"),
    RILL_PLUGIN_F32("zoom", 4, 1.0f, 0.25f, 4.0f, "above 1 crops in"),
};

RILL_PLUGIN_SINGLE_EFFECT("fisheye", "1.0", "Fisheye", "fisheye.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 70)
