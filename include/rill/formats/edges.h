/* rill/formats/edges.h: edge buffers for wireframe drawing.
 *
 * An edge buffer is a line list over a mesh's own vertices holding only the edges a person
 * would draw: boundary edges (used by one triangle), hard edges (the two triangles meet at a
 * dihedral angle of at least 30 degrees, i.e. the dot of their unit normals is <= cos 30), and
 * non-manifold edges (shared by three or more triangles). Positions are welded first (tolerance
 * 1e-5, in model units) so split normals or UV seams do not make every seam a boundary; each
 * output index names the first vertex of its weld group. Degenerate (zero-area) triangles are
 * ignored. Without an edge buffer a renderer falls back to polygon-mode lines over all triangles.
 *
 * Depends on: base, rill/formats/gltf.h (for the model-wide helper).
 */
#ifndef RILL_FORMATS_EDGES_H
#define RILL_FORMATS_EDGES_H

#include "rill/base.h"
#include "rill/formats/gltf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options. All zero = defaults: weld_tolerance 1e-5, angle_deg 30. */
typedef struct rill_edges_desc {
    uint32_t start_canary; /* must be 0 */
    float weld_tolerance;  /* positions closer than this (per axis and in distance) are one */
    float angle_deg;       /* keep an edge whose faces meet at >= this dihedral angle */
    uint32_t end_canary;   /* must be 0 */
} rill_edges_desc;

/* The defaults an all-zero desc resolves to. */
rill_edges_desc rill_edges_query_defaults(void);

/* Builds the edge line list of an indexed triangle list. positions: vertex_count xyz floats,
 * `stride` bytes apart (0 = 12). Every index must be < vertex_count (else
 * RILL_ERR_INVALID_ARGUMENT). On success *out_lines is owned by the caller (rill_free; NULL when
 * there are no edges) and holds *out_count indices (2 per edge). desc may be NULL. */
rill_result rill_edges_build(const float *positions, uint32_t vertex_count, size_t stride,
                             const uint32_t *indices, uint32_t index_count,
                             const rill_edges_desc *desc, uint32_t **out_lines, uint32_t *out_count,
                             rill_error *err);

/* Rebuilds the edge buffer of every primitive of the model (replacing any it had). */
rill_result rill_gltf_model_build_edges(rill_gltf_model *model, const rill_edges_desc *desc,
                                        rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_EDGES_H */
