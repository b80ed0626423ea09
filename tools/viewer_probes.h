/* viewer_probes.h: the viewer's (rill run) reflection-probe selection: which probe box a pick ray
 * selects, and the wireframe box drawn for the selected probe (viewer_probes.c). */
#ifndef RILL_TOOLS_VIEWER_PROBES_H
#define RILL_TOOLS_VIEWER_PROBES_H

#include <stdbool.h>

#include "rill/render.h"
#include "rill/world.h"

/* The probe (an entity with LightProbe and GlobalTransform) whose box the ray from origin along
 * unit dir enters first from outside, nearer than max_distance (the geometry the pick hit, or
 * FLT_MAX); 0 when none. A probe box around the origin is not entered, so it is not selected
 * (the pick then goes to the geometry inside it). *out_distance: where the ray enters. */
rill_entity viewer_probe_pick(rill_world *w, const float origin[3], const float dir[3],
                              float max_distance, float *out_distance);

/* The unit box (-0.5..0.5) with an edge buffer of its 12 edges, so a wireframe draws the box's
 * outline and no face diagonals. {0} with err set on failure. */
rill_mesh viewer_probe_box_mesh(rill_renderer *r, rill_error *err);

/* Whether e is a probe (LightProbe and GlobalTransform). */
bool viewer_is_probe(rill_world *w, rill_entity e);

/* The instance that draws probe e's box as a wireframe: the unit box mesh `cube`
 * (viewer_probe_box_mesh, which the probe's transform maps onto its box), mode
 * wireframe. False when e is no longer a probe. */
bool viewer_probe_box(rill_world *w, rill_entity e, rill_mesh cube, rill_render_instance *out);

#endif
