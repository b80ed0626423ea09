/* model_assets.h: what extract needs from the render asset cache (model_assets.c). */
#ifndef RILL_RENDER_MODEL_ASSETS_H
#define RILL_RENDER_MODEL_ASSETS_H

#include "rill/render.h"

/* The cache attached to world, or NULL. */
rill_render_assets *rill__render_assets_of(const rill_world *world);
/* The GPU mesh and material of one ModelMesh (uploading its asset when needed); false when it
 * cannot be drawn (yet). */
bool rill__render_assets_resolve(rill_render_assets *ra, const rill_model_mesh *mm,
                                 rill_mesh *out_mesh, rill_material *out_material);

#endif
