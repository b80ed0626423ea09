/* debug_views.h: the debug panels' hooks into the frame (debug_views.c), private to render.
 * frame_views.c calls rill__debug_view_begin when view 0's settings are resolved (the observer
 * replaces its camera there) and rill__debug_cull_planes once its view-projection is known (the
 * culling frustum: live, the camera's own under the observer, or frozen); frame_render.c calls
 * rill__debug_plan once the views are planned (the panel's lines and text); the overlay pass
 * draws them (rill__debug_line_quads, rill__debug_text). */
#ifndef RILL_RENDER_DEBUG_VIEWS_H
#define RILL_RENDER_DEBUG_VIEWS_H

#include "render_internal.h"

void rill__debug_view_begin(rill_renderer *r, const rill_render_snapshot *snap, rill__view *vs);
/* Replaces planes (view vs's frustum planes) with the culling frustum's when it differs. */
void rill__debug_cull_planes(rill_renderer *r, const rill__view *vs, float aspect,
                             float planes[6][4]);
void rill__debug_plan(rill_renderer *r);
/* After a frame is submitted: the stats panel keeps its counters for the next frame's text. */
void rill__debug_frame_end(rill_renderer *r);
/* Whether the overlay pass has panel lines or text to draw this frame. */
bool rill__debug_draws(const rill_renderer *r);
/* The panel's lines projected into view 0's rectangle as screen-space quads (stb_easy_font's
 * vertex layout, 64 bytes each) into verts, at most max_quads; returns how many. */
uint32_t rill__debug_line_quads(const rill_renderer *r, float *verts, uint32_t max_quads);
/* The panel's text ("" when none). */
const char *rill__debug_text(const rill_renderer *r);
/* The stats panel's text of s into buf (at most cap bytes, NUL-terminated); its length. */
size_t rill__debug_stats_text(const rill_render_stats *s, char *buf, size_t cap);
void rill__debug_destroy(rill_renderer *r);

/* overlay.c: builds the overlay's pipeline when it has none; false (logged) when it cannot. */
bool rill__overlay_ensure(rill_renderer *r);

#endif
