/* gltf_internal.h: helpers shared by the glTF reader, the .glb writer, edge extraction and the
 * LOD bake (all in src/formats). Not part of the public API. */
#ifndef RILL_FORMATS_GLTF_INTERNAL_H
#define RILL_FORMATS_GLTF_INTERNAL_H

#include "rill/formats/gltf.h"

#include <math.h>

/* Accessor component types (glTF 2.0 accessor.componentType), read by gltf_read.c and decoded
 * by gltf_decode.c. */
#define GL_BYTE 5120
#define GL_UNSIGNED_BYTE 5121
#define GL_SHORT 5122
#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_FLOAT 5126

/* Vector helpers of the normal and tangent generators (gltf_model.c, gltf_tangents.c). */
static inline float len3(const float *v) {
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static inline void cross3(const float *a, const float *b, float *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A normal is usable when it is finite and not (nearly) zero; the threshold keeps normalization
 * well conditioned. */
static inline bool usable3(const float *v) {
    float l = len3(v);
    return isfinite(l) && l > 1e-12f;
}

/* Allocation helpers for the model: tagged RILL_MEM_FORMATS, count * size overflow-checked. */
void *rill__gltf_alloc(size_t count, size_t size);
/* Same without zeroing, for arrays the caller writes in full (the reader's decoded attributes:
 * zeroing hundreds of MB only to overwrite them cost as much as the decoding). */
void *rill__gltf_alloc_raw(size_t count, size_t size);
char *rill__gltf_strdup(const char *s); /* NULL stays NULL */

/* The texture references a material uses, into out (at most RILL_GLTF_MATERIAL_MAX_TEXREFS;
 * returns how many): the five of the standard material, then those of KHR_materials_specular
 * when has_specular, of KHR_materials_clearcoat when clearcoat_factor > 0, of _transmission when
 * transmission_factor > 0, of _volume when has_volume, of _sheen when has_sheen, of _iridescence
 * when iridescence_factor > 0 and of _anisotropy when anisotropy_strength > 0 (a material built
 * in code that leaves an extension off need not fill in its references). */
#define RILL_GLTF_MATERIAL_MAX_TEXREFS 17
uint32_t rill__gltf_material_texrefs(const rill_gltf_material *ma, const rill_gltf_texref **out);

/* Accessor kernels (gltf_decode.c). The caller has checked the byte range: `count` elements,
 * `stride` bytes apart, each `comps` components of GL component type `ct`. decode_floats applies
 * glTF's normalization when `normalized`; decode_indices widens unsigned 8/16/32-bit values and
 * returns the position of the first value >= limit (count when every value is in range). */
void rill__gltf_decode_floats(float *dst, const uint8_t *src, size_t count, uint32_t comps,
                              size_t stride, uint32_t ct, bool normalized);
size_t rill__gltf_decode_indices(uint32_t *dst, const uint8_t *src, size_t count, size_t stride,
                                 uint32_t ct, uint32_t limit);
/* One pass over count xyz positions: returns the first vertex with a NaN or infinite coordinate,
 * or count when all are finite, in which case lo/hi receive the bounds. */
size_t rill__gltf_check_positions(const float *pos, size_t count, float lo[3], float hi[3]);
/* The first NaN or infinite value of v[0..n), or n. */
size_t rill__gltf_first_non_finite(const float *v, size_t n);
/* True when every one of `count` xyz normals has |length - 1| <= 1e-5 (NaN fails): the normals
 * then need no fix-up at all. */
bool rill__gltf_normals_unit(const float *nrm, size_t count);
/* The same three checks made while copying tightly packed floats from src (any alignment) to dst,
 * so a load pays for both: copy_finite checks n floats. */
size_t rill__gltf_copy_positions(float *dst, const uint8_t *src, size_t count, float lo[3],
                                 float hi[3]);
size_t rill__gltf_copy_finite(float *dst, const uint8_t *src, size_t n);
bool rill__gltf_copy_normals(float *dst, const uint8_t *src, size_t count);

/* Extensions the reader reads (gltf_unkept.c); a file may require only these. */
bool rill__gltf_extension_known(const char *name);
/* Writes into out (cap > 0) a one-line list of what the glTF JSON root holds that the model
 * leaves out: animations, skins, morph targets, attribute sets beyond TEXCOORD_1 and COLOR_0, and
 * used extensions the reader does not know. Returns its length; 0 when nothing is left out. */
struct rill__gj;
size_t rill__gltf_unkept_summary(const struct rill__gj *root, char *out, size_t cap);

/* An EXT_meshopt_compression bufferView (gltf_meshopt.c): `count` elements of `stride` bytes
 * decoded by meshoptimizer in one mode, then filtered. */
typedef enum rill__meshopt_mode {
    RILL__MESHOPT_ATTRIBUTES = 0,
    RILL__MESHOPT_TRIANGLES,
    RILL__MESHOPT_INDICES
} rill__meshopt_mode;
typedef enum rill__meshopt_filter {
    RILL__MESHOPT_FILTER_NONE = 0,
    RILL__MESHOPT_FILTER_OCTAHEDRAL,
    RILL__MESHOPT_FILTER_QUATERNION,
    RILL__MESHOPT_FILTER_EXPONENTIAL
} rill__meshopt_filter;
typedef struct rill__gltf_meshopt {
    uint64_t count;
    uint32_t stride;
    rill__meshopt_mode mode;
    rill__meshopt_filter filter;
} rill__gltf_meshopt;
/* Why this combination of mode, filter, count and stride cannot be decoded, or NULL when it can
 * (the decoders assert on what this refuses). */
const char *rill__gltf_meshopt_check(const rill__gltf_meshopt *m);
/* Decodes `size` compressed bytes into dst (count * stride bytes); false when the data is not a
 * valid stream of that shape. Call only after rill__gltf_meshopt_check accepted m. */
bool rill__gltf_meshopt_decode(uint8_t *dst, const rill__gltf_meshopt *m, const uint8_t *src,
                               size_t size);

/* Frees the arrays a primitive owns (not the struct). */
void rill__gltf_primitive_release(rill_gltf_primitive *prim);

/* Recomputes bounds_min/bounds_max from positions. */
void rill__gltf_primitive_bounds(rill_gltf_primitive *prim);

/* Makes normals unit length, generating area-weighted ones where they are missing (NULL) or
 * degenerate. Returns false when out of memory. */
bool rill__gltf_primitive_fix_normals(rill_gltf_primitive *prim, bool generate_all);

/* Tangents (gltf_tangents.c). Given tangents are made unit length (degenerate ones replaced).
 * With generate_missing, a primitive without tangents (or with some broken) gets a full set
 * generated with MikkTSpace semantics from UV0 (any perpendicular frame without UV0); this may
 * split vertices (at most doubling vertex_count) and rewrite indices. Returns false when out of
 * memory. */
bool rill__gltf_primitive_fix_tangents(rill_gltf_primitive *prim, bool generate_missing);

/* A model's animations (gltf_anim.c): released (the arrays NULL after), and deep-copied into
 * dst, whose animations are replaced (false when out of memory: dst then holds a partial copy
 * that rill__gltf_animations_free releases). */
void rill__gltf_animations_free(rill_gltf_model *m);
bool rill__gltf_animations_clone(rill_gltf_model *dst, const rill_gltf_model *src);

/* Deep copy of a model; NULL when out of memory. */
rill_gltf_model *rill__gltf_model_clone(const rill_gltf_model *src);
/* The same without primitive geometry: every primitive struct is copied (counts, material,
 * bounds) with its arrays NULL, for a caller that fills them (the LOD bake). */
rill_gltf_model *rill__gltf_model_clone_shell(const rill_gltf_model *src);

/* A reusable scratch block for temporary arrays of a loop over many primitives (one allocation
 * that grows, instead of several per primitive). rill__scratch_get returns `bytes` bytes (old
 * contents not kept; 16-byte aligned) or NULL when out of memory. */
typedef struct rill__scratch {
    void *buf;
    size_t cap;
} rill__scratch;
void *rill__scratch_get(rill__scratch *s, size_t bytes);
void rill__scratch_free(rill__scratch *s);

/* Edge extraction in two steps (edges.c), so the LOD bake can carry a weld from level to level.
 * weld[v] = the first vertex within `tol` of v (see edges.h); false when out of memory. */
bool rill__edges_weld(const float *positions, uint32_t vertex_count, size_t stride, float tol,
                      uint32_t *weld);
/* The edge lines of an indexed triangle list from a weld (every index checked by the caller).
 * Returns RILL_OK or RILL_ERR_OUT_OF_MEMORY; *out_lines as rill_edges_build. */
rill_result rill__edges_from_weld(const float *positions, size_t stride, uint32_t vertex_count,
                                  const uint32_t *weld, const uint32_t *indices,
                                  uint32_t index_count, float angle_deg, rill__scratch *scratch,
                                  uint32_t **out_lines, uint32_t *out_count);

/* Fills matrix[16] (column major) from translation/rotation/scale. */
void rill__gltf_trs_to_matrix(const float t[3], const float r[4], const float s[3], float m[16]);

#endif /* RILL_FORMATS_GLTF_INTERNAL_H */
