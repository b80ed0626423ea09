/* letterbox: the Letterbox effect plugin, cinema bars: the image cut to a wider (or taller) aspect
 * ratio (shader: letterbox.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("color", 0, 0.0f, 0.0f, 0.0f, 1.0f, "bar colour"),
    RILL_PLUGIN_F32("aspect", 16, 2.39f, 0.1f, 10.0f, "aspect ratio (width / height) left visible"),
};

RILL_PLUGIN_SINGLE_EFFECT("letterbox", "1.0", "Letterbox", "letterbox.glsl", 32, fields,
                          RILL_PLUGIN_PHASE_OVERLAY, 900)
