/* rill/formats/lod.h: the mesh LOD bake (simplified copies of a model for distant drawing).
 *
 * Level n holds about 1/2^n of the base model's triangles. Each primitive is simplified on its
 * own with meshoptimizer (meshopt_simplify at a relative target error of 0.01; when that stalls
 * above 1.25x the target count, meshopt_simplifySloppy bounded to 4x that error is tried), then its
 * vertices are compacted. Node hierarchy, names, materials, textures, cameras and lights are kept
 * as they are; edge buffers are rebuilt per level. The chain stops early when a level would remove
 * less than 10% of its parent level's triangles (that level is not produced). Defaults: 3 levels,
 * at most 4.
 *
 * Files are named beside the model: "chair.glb" -> "chair_lod1.glb", "chair_lod2.glb", ...
 *
 * Depends on: base, rill/formats/gltf.h, rill/formats/edges.h, meshoptimizer.
 */
#ifndef RILL_FORMATS_LOD_H
#define RILL_FORMATS_LOD_H

#include "rill/base.h"
#include "rill/formats/gltf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_LOD_MAX_LEVELS 4u

/* Options. All zero = defaults: levels 3 (clamped to RILL_LOD_MAX_LEVELS), target_error 0.01,
 * sloppy_threshold 1.25, min_reduction 0.10, border not locked, edges rebuilt. */
typedef struct rill_lod_desc {
    uint32_t start_canary; /* must be 0 */
    uint32_t levels;
    float target_error;     /* relative to the primitive's extent (meshoptimizer's scale) */
    float sloppy_threshold; /* fall back to sloppy when result > threshold x target */
    float min_reduction;    /* a level removing less than this fraction of its parent ends it */
    bool lock_border;       /* meshopt_SimplifyLockBorder: keep open borders in place */
    bool skip_edges;        /* do not rebuild edge buffers */
    uint32_t end_canary;    /* must be 0 */
} rill_lod_desc;

/* The defaults an all-zero desc resolves to. */
rill_lod_desc rill_lod_query_defaults(void);

/* What happened to one level. */
typedef struct rill_lod_level_info {
    uint64_t triangles;
    uint64_t target_triangles;
    uint32_t sloppy_primitives; /* primitives that needed the sloppy fallback */
} rill_lod_level_info;

/* Bakes LOD levels 1..n of `base`. On success out_levels[0..*out_count) are new models owned by
 * the caller (rill_gltf_model_free each); *out_count may be 0 when even level 1 would remove too
 * little. out_levels must hold RILL_LOD_MAX_LEVELS pointers; out_info (may be NULL) as many
 * entries. desc may be NULL. */
rill_result rill_lod_bake(const rill_gltf_model *base, const rill_lod_desc *desc,
                          rill_gltf_model **out_levels, rill_lod_level_info *out_info,
                          uint32_t *out_count, rill_error *err);

/* Reads `glb_path`, bakes, and writes name_lod1.glb ... beside it. Level files left from an
 * earlier bake beyond the levels produced now are deleted, so the set on disk is always
 * contiguous and current. *out_count (may be NULL) = levels written. */
rill_result rill_lod_bake_file(const char *glb_path, const rill_lod_desc *desc, uint32_t *out_count,
                               rill_error *err);

/* The path of level `level` (1-based) of a model path: "a/chair.glb" -> "a/chair_lod2.glb".
 * Returns false when it does not fit in dst[cap]. */
bool rill_lod_path(char *dst, size_t cap, const char *model_path, uint32_t level);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_LOD_H */
