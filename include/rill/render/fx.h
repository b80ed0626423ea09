/* rill/render/fx.h: user compute effects run in place over a graph image (part of
 * rill/render.h). rill/render/effects.h holds the engine's effect settings and plugin effects.
 */
#ifndef RILL_RENDER_FX_H
#define RILL_RENDER_FX_H

#include "rill/base.h"
#include "rill/render/graph.h"
#include "rill/render/renderer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An in-place compute effect: user SPIR-V run over a whole graph image (typically hdr between
 * end_main_pass and tonemapping, or "ldr" between tonemapping and end_main_pass_post_processing).
 * Shader contract: set 0, binding 0 is the target as a read-write storage image (declare it
 * `rgba16f` for "hdr", `rgba8` for "ldr"); push constants start with `uvec2 size` followed by up to
 * 112 bytes of parameters; the dispatch covers size with groups of group_size x group_size. */
typedef struct rill_render_fx rill_render_fx;

/* Builds the pipeline. spirv is copied. Destroy with rill_render_fx_destroy (before the renderer).
 */
rill_render_fx *rill_render_fx_create(rill_renderer *r, const uint32_t *spirv, size_t spirv_size,
                                      const char *label, uint32_t group_size, rill_error *err);
/* Releases the effect (deferred on the GPU). NULL is a no-op. */
void rill_render_fx_destroy(rill_renderer *r, rill_render_fx *fx);
/* From a setup_graph callback: adds a pass labelled `label` that reads and writes `target` in place
 * with `params` (copied) and returns it ({0} with err set on failure); order it with
 * rill_rg_add_edges between two anchors. */
rill_rg_pass rill_render_fx_add(rill_rg *graph, rill_render_fx *fx, const char *label,
                                rill_rg_image target, const void *params, uint32_t params_size,
                                rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_FX_H */
