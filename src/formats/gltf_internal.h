/* gltf_internal.h: helpers shared by the glTF reader, the .glb writer, edge extraction and the
 * LOD bake (all in src/formats). Not part of the public API. */
#ifndef RILL_FORMATS_GLTF_INTERNAL_H
#define RILL_FORMATS_GLTF_INTERNAL_H

#include "rill/formats/gltf.h"

/* Allocation helpers for the model: tagged RILL_MEM_FORMATS, count * size overflow-checked. */
void *rill__gltf_alloc(size_t count, size_t size);
char *rill__gltf_strdup(const char *s); /* NULL stays NULL */

/* Frees the arrays a primitive owns (not the struct). */
void rill__gltf_primitive_release(rill_gltf_primitive *prim);

/* Recomputes bounds_min/bounds_max from positions. */
void rill__gltf_primitive_bounds(rill_gltf_primitive *prim);

/* Makes normals unit length, generating area-weighted ones where they are missing (NULL) or
 * degenerate. Returns false when out of memory. */
bool rill__gltf_primitive_fix_normals(rill_gltf_primitive *prim, bool generate_all);

/* Generates tangents (from UV0 when present, else any unit vector perpendicular to the normal)
 * where missing or degenerate. Returns false when out of memory. */
bool rill__gltf_primitive_fix_tangents(rill_gltf_primitive *prim, bool generate_all);

/* Deep copy of a model; NULL when out of memory. */
rill_gltf_model *rill__gltf_model_clone(const rill_gltf_model *src);

/* Fills matrix[16] (column major) from translation/rotation/scale. */
void rill__gltf_trs_to_matrix(const float t[3], const float r[4], const float s[3], float m[16]);

#endif /* RILL_FORMATS_GLTF_INTERNAL_H */
