/* film_grain: the FilmGrain effect plugin (shader: film_grain.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_F32("intensity", 0, 0.08f, 0.0f, 1.0f, "grain amplitude"),
    RILL_PLUGIN_U32("animated", 4, 1u, "1 = new grain every frame, 0 = fixed"),
};

RILL_PLUGIN_SINGLE_EFFECT("film_grain", "1.0", "FilmGrain", "film_grain.glsl", 16, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 400)
