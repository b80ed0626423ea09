/* lod_bake.c: bakes simplified LOD levels of a glTF model with meshoptimizer.
 *
 * Each level starts from a deep copy of the previous one (so node structure, names, materials,
 * images, cameras and lights carry over untouched) and replaces every primitive's geometry by a
 * simplified version whose target is the base primitive's triangle count / 2^level. Simplifying
 * the previous level rather than the base costs less and compounds little error, since every
 * step is bounded by the same relative target error. */
#include "rill/formats/lod.h"

#include <float.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

#include "gltf_internal.h"
#include "lib_hooks.h"
#include "rill/formats/edges.h"

void rill_lod_query_defaults(rill_lod_desc *out) {
    memset(out, 0, sizeof(*out));
    out->levels = 3;
    out->target_error = 0.01f;
    out->sloppy_threshold = 1.25f;
    out->min_reduction = 0.10f;
}

static rill_lod_desc resolve(const rill_lod_desc *desc) {
    rill_lod_desc d;
    rill_lod_query_defaults(&d);
    if (desc) {
        if (desc->levels) {
            d.levels = desc->levels;
        }
        if (desc->target_error > 0.0f) {
            d.target_error = desc->target_error;
        }
        if (desc->sloppy_threshold > 0.0f) {
            d.sloppy_threshold = desc->sloppy_threshold;
        }
        if (desc->min_reduction > 0.0f) {
            d.min_reduction = desc->min_reduction;
        }
        d.lock_border = desc->lock_border;
        d.skip_edges = desc->skip_edges;
    }
    if (d.levels > RILL_LOD_MAX_LEVELS) {
        d.levels = RILL_LOD_MAX_LEVELS;
    }
    return d;
}

/* Keeps only the vertices `idx` uses, in first-use order (good for vertex fetch), rewriting idx. */
static bool compact(rill_gltf_primitive *pr, uint32_t *idx, uint32_t count) {
    uint32_t n = pr->vertex_count;
    uint32_t *remap = rill__gltf_alloc(n, sizeof(uint32_t));
    if (!remap) {
        return false;
    }
    memset(remap, 0xFF, (size_t)n * sizeof(uint32_t));
    uint32_t used = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (remap[idx[i]] == UINT32_MAX) {
            remap[idx[i]] = used++;
        }
        idx[i] = remap[idx[i]];
    }
    float **arrays[] = {&pr->positions, &pr->normals, &pr->tangents,
                        &pr->uv0,       &pr->uv1,     &pr->colors};
    const uint32_t comps[] = {3, 3, 4, 2, 2, 4};
    bool ok = true;
    for (size_t a = 0; a < RILL_COUNTOF(arrays); a++) {
        float *src = *arrays[a];
        if (!src) {
            continue;
        }
        float *dst = rill__gltf_alloc((size_t)used * comps[a], sizeof(float));
        if (!dst) {
            ok = false;
            break;
        }
        for (uint32_t v = 0; v < n; v++) {
            if (remap[v] != UINT32_MAX) {
                memcpy(&dst[(size_t)remap[v] * comps[a]], &src[(size_t)v * comps[a]],
                       comps[a] * sizeof(float));
            }
        }
        rill_free(src);
        *arrays[a] = dst;
    }
    rill_free(remap);
    if (!ok) {
        return false;
    }
    rill_free(pr->indices);
    pr->indices = idx;
    pr->index_count = count;
    pr->vertex_count = used;
    rill_free(pr->edge_indices);
    pr->edge_indices = NULL;
    pr->edge_index_count = 0;
    rill__gltf_primitive_bounds(pr);
    return true;
}

/* Simplifies one primitive towards target_index_count. Returns false when out of memory. */
static bool simplify_primitive(rill_gltf_primitive *pr, size_t target_index_count,
                               const rill_lod_desc *d, uint32_t *sloppy_count) {
    size_t count = pr->index_count;
    if (target_index_count >= count) {
        return true;
    }
    uint32_t *dst = rill__gltf_alloc(count, sizeof(uint32_t));
    if (!dst) {
        return false;
    }
    unsigned int options = d->lock_border ? meshopt_SimplifyLockBorder : 0u;
    float result_error = 0.0f;
    size_t got = meshopt_simplify(dst, pr->indices, count, pr->positions, pr->vertex_count,
                                  3 * sizeof(float), target_index_count, d->target_error, options,
                                  &result_error);
    if ((double)got > (double)d->sloppy_threshold * (double)target_index_count) {
        /* The error bound stopped the standard simplifier well short of the target (flat,
         * boxy or very coarse parts do this); the sloppy one clusters vertices on a grid and
         * reaches the count. It is used only when it produced something and did better. */
        uint32_t *alt = rill__gltf_alloc(count, sizeof(uint32_t));
        if (!alt) {
            rill_free(dst);
            return false;
        }
        size_t sgot =
            meshopt_simplifySloppy(alt, pr->indices, count, pr->positions, pr->vertex_count,
                                   3 * sizeof(float), target_index_count, 1.0f, &result_error);
        if (sgot >= 3 && sgot < got) {
            rill_free(dst);
            dst = alt;
            got = sgot;
            (*sloppy_count)++;
        } else {
            rill_free(alt);
        }
    }
    if (got < 3 || got >= count) {
        /* Nothing left, or nothing gained: keep the primitive as it was. */
        rill_free(dst);
        return true;
    }
    if (!compact(pr, dst, (uint32_t)got)) {
        rill_free(dst);
        return false;
    }
    return true;
}

rill_result rill_lod_bake(const rill_gltf_model *base, const rill_lod_desc *desc,
                          rill_gltf_model **out_levels, rill_lod_level_info *out_info,
                          uint32_t *out_count, rill_error *err) {
    rill__formats_lib_hooks(); /* meshoptimizer allocates through rill */
    if (out_count) {
        *out_count = 0;
    }
    if (!base || !out_levels || !out_count) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_lod_bake: base, out_levels and out_count are required");
    }
    for (uint32_t i = 0; i < RILL_LOD_MAX_LEVELS; i++) {
        out_levels[i] = NULL;
    }
    rill_lod_desc d = resolve(desc);
    const rill_gltf_model *parent = base;
    uint64_t parent_tris = rill_gltf_model_triangle_count(base);
    uint32_t made = 0;
    for (uint32_t level = 1; level <= d.levels; level++) {
        rill_gltf_model *m = rill__gltf_model_clone(parent);
        if (!m) {
            goto oom;
        }
        rill_lod_level_info info = {0};
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
                const rill_gltf_primitive *bp = &base->meshes[i].primitives[p];
                size_t target = ((size_t)bp->index_count / 3u >> level) * 3u;
                if (target < 3) {
                    target = 3;
                }
                info.target_triangles += target / 3u;
                if (!simplify_primitive(&m->meshes[i].primitives[p], target, &d,
                                        &info.sloppy_primitives)) {
                    rill_gltf_model_free(m);
                    goto oom;
                }
            }
        }
        info.triangles = rill_gltf_model_triangle_count(m);
        /* The 10% rule: a level that barely simplifies costs memory for no drawing gain, and
         * every later level would stall the same way. */
        if ((double)info.triangles > (1.0 - (double)d.min_reduction) * (double)parent_tris) {
            rill_gltf_model_free(m);
            break;
        }
        if (!d.skip_edges) {
            rill_result res = rill_gltf_model_build_edges(m, NULL, err);
            if (res != RILL_OK) {
                rill_gltf_model_free(m);
                for (uint32_t k = 0; k < made; k++) {
                    rill_gltf_model_free(out_levels[k]);
                    out_levels[k] = NULL;
                }
                return res;
            }
        }
        out_levels[made] = m;
        if (out_info) {
            out_info[made] = info;
        }
        made++;
        parent = m;
        parent_tris = info.triangles;
    }
    *out_count = made;
    return RILL_OK;
oom:
    for (uint32_t k = 0; k < made; k++) {
        rill_gltf_model_free(out_levels[k]);
        out_levels[k] = NULL;
    }
    return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_lod_bake: out of memory");
}

bool rill_lod_path(char *dst, size_t cap, const char *model_path, uint32_t level) {
    const char *base = rill_path_basename(model_path);
    const char *dot = strrchr(base, '.');
    size_t stem = dot ? (size_t)(dot - model_path) : strlen(model_path);
    int n = snprintf(dst, cap, "%.*s_lod%u.glb", (int)stem, model_path, level);
    if (n < 0 || (size_t)n >= cap) {
        if (cap) {
            dst[0] = '\0';
        }
        return false;
    }
    return true;
}

rill_result rill_lod_bake_file(const char *glb_path, const rill_lod_desc *desc, uint32_t *out_count,
                               rill_error *err) {
    if (out_count) {
        *out_count = 0;
    }
    rill_gltf_model *base;
    rill_result res = rill_gltf_read_file(glb_path, NULL, &base, err);
    if (res != RILL_OK) {
        return res;
    }
    rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
    uint32_t count = 0;
    res = rill_lod_bake(base, desc, levels, NULL, &count, err);
    rill_gltf_model_free(base);
    if (res != RILL_OK) {
        return res;
    }
    uint32_t written = 0;
    for (uint32_t i = 0; i < count; i++) {
        char path[2048];
        if (res == RILL_OK && !rill_lod_path(path, sizeof(path), glb_path, i + 1)) {
            res = rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", glb_path);
        }
        if (res == RILL_OK) {
            res = rill_glb_write_file(levels[i], path, NULL, err);
            written += res == RILL_OK ? 1u : 0u;
        }
        rill_gltf_model_free(levels[i]);
    }
    /* Files of levels this bake did not produce are stale (an earlier bake of a different
     * model); the runtime probe takes every contiguous level it finds, so they must go. */
    for (uint32_t level = written + 1; res == RILL_OK && level <= RILL_LOD_MAX_LEVELS; level++) {
        char path[2048];
        if (rill_lod_path(path, sizeof(path), glb_path, level) && rill_file_exists(path) &&
            remove(path) != 0) {
            res = rill_error_set(err, RILL_ERR_IO, "%s: cannot remove the stale level", path);
        }
    }
    if (out_count) {
        *out_count = written;
    }
    return res;
}
