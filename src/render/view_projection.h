/* view_projection.h: a view's projection values made safe to build a matrix from (pure logic, so
 * it is unit-tested without a GPU). */
#ifndef RILL_RENDER_VIEW_PROJECTION_H
#define RILL_RENDER_VIEW_PROJECTION_H

#include "rill/base.h"

/* The values a projection matrix is built from. */
typedef struct rill__projection {
    float fov_y, znear, zfar, half_h; /* half_h: half the orthographic height */
} rill__projection;

/* Resolves a view's fov_y, near, far and ortho_height (in that order in `in`) to values that give
 * a finite, invertible projection. Zero means the default (0.8 rad, 0.1, 1000, 10). A negative,
 * non-finite or out-of-range value, or near >= far, is clamped and a warning names the bad values
 * (once per distinct input). Returns true when something was clamped. */
bool rill__projection_resolve(const float in[4], rill__projection *out);

#endif
