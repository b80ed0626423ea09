/* lod_bake.c: bakes simplified LOD levels of a glTF model with meshoptimizer.
 *
 * Each level copies the previous one's structure (node structure, names, materials, images,
 * cameras and lights carry over untouched) and writes every primitive's geometry straight from
 * the previous level's, simplified towards the base primitive's triangle count / 2^level.
 * Simplifying the previous level rather than the base costs less and compounds little error,
 * since every step is bounded by the same relative target error. Edge buffers are rebuilt per
 * level from a weld carried down from level 1, so only the edge pass itself runs per level;
 * together the copies and edges cost a small fraction of the simplification. */
#include "rill/formats/lod.h"

#include <float.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

#include "gltf_internal.h"
#include "lib_hooks.h"
#include "rill/formats/edges.h"

rill_lod_desc rill_lod_query_defaults(void) {
    return (rill_lod_desc){
        .levels = 3, .target_error = 0.01f, .sloppy_threshold = 1.25f, .min_reduction = 0.10f};
}

static rill_lod_desc resolve(const rill_lod_desc *desc) {
    rill_lod_desc d = rill_lod_query_defaults();
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

/* Per-primitive state carried from one level to the next: the weld of the level's vertices (a
 * simplified level's vertices are a subset of its parent's, so welding is done once, on level 1,
 * and carried down instead of redone per level). */
typedef struct lod_prim {
    uint32_t *weld; /* weld[v] for the current level's vertices; NULL until edges need it */
} lod_prim;

static bool dup_array(float **dst, const float *src, size_t n) {
    *dst = NULL;
    if (!src) {
        return true;
    }
    *dst = rill__gltf_alloc_raw(n, sizeof(float));
    if (*dst) {
        memcpy(*dst, src, n * sizeof(float));
    }
    return *dst != NULL;
}

/* dst (a shell primitive: counts copied, arrays NULL) gets the vertices of `from` that idx uses,
 * in first-use order (good for vertex fetch), and idx rewritten to them (taking ownership).
 * origin[new vertex] = its vertex in `from`. */
static bool compact_from(rill_gltf_primitive *dst, const rill_gltf_primitive *from, uint32_t *idx,
                         uint32_t count, uint32_t *remap, uint32_t *origin) {
    uint32_t n = from->vertex_count;
    memset(remap, 0xFF, (size_t)n * sizeof(uint32_t));
    uint32_t used = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = idx[i];
        if (remap[v] == UINT32_MAX) {
            origin[used] = v;
            remap[v] = used++;
        }
        idx[i] = remap[v];
    }
    const float *srcs[] = {from->positions,     from->normals, from->tangents,
                           from->uv0,           from->uv1,     from->colors,
                           from->joints,        from->weights, from->target_positions,
                           from->target_normals};
    float **dsts[] = {&dst->positions,     &dst->normals, &dst->tangents,
                      &dst->uv0,           &dst->uv1,     &dst->colors,
                      &dst->joints,        &dst->weights, &dst->target_positions,
                      &dst->target_normals};
    const uint32_t tc3 = 3 * from->target_count;
    const uint32_t comps[] = {3, 3, 4, 2, 2, 4, 4, 4, tc3, tc3};
    for (size_t a = 0; a < RILL_COUNTOF(srcs); a++) {
        if (!srcs[a]) {
            continue;
        }
        size_t c = comps[a];
        float *d = rill__gltf_alloc_raw((size_t)used * c, sizeof(float));
        if (!d) {
            rill_free(idx);
            return false;
        }
        /* Gathered in the new order: sequential writes, reads that follow the index buffer. The
         * element size is fixed per loop so each copy is a load and a store, not a call. */
        const float *sa = srcs[a];
        if (c == 2) {
            for (uint32_t v = 0; v < used; v++) {
                memcpy(&d[(size_t)v * 2], &sa[(size_t)origin[v] * 2], 8);
            }
        } else if (c == 3) {
            for (uint32_t v = 0; v < used; v++) {
                memcpy(&d[(size_t)v * 3], &sa[(size_t)origin[v] * 3], 12);
            }
        } else if (c == 4) {
            for (uint32_t v = 0; v < used; v++) {
                memcpy(&d[(size_t)v * 4], &sa[(size_t)origin[v] * 4], 16);
            }
        } else {
            for (uint32_t v = 0; v < used; v++) {
                memcpy(&d[(size_t)v * c], &sa[(size_t)origin[v] * c], c * sizeof(float));
            }
        }
        *dsts[a] = d;
    }
    dst->indices = idx;
    dst->index_count = count;
    dst->vertex_count = used;
    rill__gltf_primitive_bounds(dst);
    return true;
}

/* dst (a shell primitive) becomes a full copy of `from` (a primitive that could not be
 * simplified further). */
static bool copy_from(rill_gltf_primitive *dst, const rill_gltf_primitive *from) {
    size_t n = from->vertex_count;
    bool ok =
        dup_array(&dst->positions, from->positions, n * 3) &&
        dup_array(&dst->normals, from->normals, n * 3) &&
        dup_array(&dst->tangents, from->tangents, n * 4) &&
        dup_array(&dst->uv0, from->uv0, n * 2) && dup_array(&dst->uv1, from->uv1, n * 2) &&
        dup_array(&dst->colors, from->colors, n * 4) &&
        dup_array(&dst->joints, from->joints, n * 4) &&
        dup_array(&dst->weights, from->weights, n * 4) &&
        dup_array(&dst->target_positions, from->target_positions, n * 3 * from->target_count) &&
        dup_array(&dst->target_normals, from->target_normals, n * 3 * from->target_count);
    dst->indices = ok ? rill__gltf_alloc_raw(from->index_count, sizeof(uint32_t)) : NULL;
    if (!dst->indices) {
        return false;
    }
    memcpy(dst->indices, from->indices, (size_t)from->index_count * sizeof(uint32_t));
    return true;
}

/* Shading faults of a triangle list over prim's vertices, as area-weighted shares of its
 * triangles: `normals`, the triangles with a corner normal more than ~78 degrees off the face's
 * own (lit as if seen edge-on or from behind: the dark patches of a collapsed hard edge);
 * `uvs`, the triangles whose texture density (UV area per unit of surface) is off the primitive's
 * by more than 8x either way (a triangle that took a vertex across a UV seam smears the texture).
 * A level keeps these no worse than its parent's. */
typedef struct shading_faults {
    double normals, uvs;
    double uv_density; /* UV area per unit of surface over the whole list */
} shading_faults;

static double tri_area2(const float *p, uint32_t a, uint32_t b, uint32_t c, float n[3]) {
    const float *pa = &p[(size_t)a * 3], *pb = &p[(size_t)b * 3], *pc = &p[(size_t)c * 3];
    float e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    float e2[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    return sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
}

static double uv_area2(const float *uv, uint32_t a, uint32_t b, uint32_t c) {
    const float *ua = &uv[(size_t)a * 2], *ub = &uv[(size_t)b * 2], *uc = &uv[(size_t)c * 2];
    return fabs((double)(ub[0] - ua[0]) * (uc[1] - ua[1]) -
                (double)(uc[0] - ua[0]) * (ub[1] - ua[1]));
}

static bool normal_off(const float *normals, const uint32_t *t, const float n[3], double len) {
    for (int k = 0; k < 3; k++) {
        const float *v = &normals[(size_t)t[k] * 3];
        if (((double)v[0] * n[0] + (double)v[1] * n[1] + (double)v[2] * n[2]) < 0.2 * len) {
            return true;
        }
    }
    return false;
}

/* uv_density: the reference density (UV area / surface area); 0 = the list's own. */
static shading_faults measure_faults(const rill_gltf_primitive *pr, const uint32_t *idx,
                                     size_t count, double uv_density) {
    shading_faults f = {0};
    double total = 0.0, uv_total = 0.0;
    for (size_t i = 0; i + 2 < count; i += 3) {
        float n[3];
        double a = tri_area2(pr->positions, idx[i], idx[i + 1], idx[i + 2], n);
        total += a;
        if (pr->normals && a > 0.0 && normal_off(pr->normals, &idx[i], n, a)) {
            f.normals += a;
        }
        if (pr->uv0) {
            uv_total += uv_area2(pr->uv0, idx[i], idx[i + 1], idx[i + 2]);
        }
    }
    f.uv_density = total > 0.0 ? uv_total / total : 0.0;
    double ref = uv_density > 0.0 ? uv_density : f.uv_density;
    for (size_t i = 0; pr->uv0 && ref > 0.0 && i + 2 < count; i += 3) {
        float n[3];
        double a = tri_area2(pr->positions, idx[i], idx[i + 1], idx[i + 2], n);
        double d = uv_area2(pr->uv0, idx[i], idx[i + 1], idx[i + 2]);
        if (a > 0.0 && (d > 8.0 * ref * a || d * 8.0 < ref * a)) {
            f.uvs += a;
        }
    }
    if (total > 0.0) {
        f.normals /= total;
        f.uvs /= total;
    }
    return f;
}

/* Whether the triangle list idx (a simplification of `from`) shades no worse than `from`: its
 * shares of faulty normals and texture densities (measured against `from`'s density) grow by at
 * most 5 % of the area (a low sphere's level 3 smears its UV seam over 4 %). Meshoptimizer's
 * sloppy clustering knows positions only: on hard-edged parts (the flat-shaded faces of a CAD
 * model, a box's corners) it keeps one of the vertices that meet at an edge and its normal for
 * every face around it, which then draws dark. */
static bool shading_kept(const rill_gltf_primitive *from, const uint32_t *idx, size_t count) {
    shading_faults before = measure_faults(from, from->indices, from->index_count, 0.0);
    shading_faults after = measure_faults(from, idx, count, before.uv_density);
    return after.normals <= before.normals + 0.05 && after.uvs <= before.uvs + 0.05;
}

/* Sloppy clustering keeps one vertex per cell, and where flat-shaded faces meet, that vertex is
 * one of the copies at the corner, with one face's normal, for every face around it. Each
 * triangle corner whose normal is off its face (as measure_faults counts it) is moved to the copy
 * at the same position (welded within the edge tolerance) whose normal fits the face best: the
 * same point, so the shape and the edges do not change, and the copy's UVs belong to that face's
 * side of the seam too. False when out of memory. */
static bool repair_corners(const rill_gltf_primitive *from, uint32_t *idx, size_t count) {
    uint32_t n = from->vertex_count;
    if (!from->normals || n == 0) {
        return true;
    }
    uint32_t *weld = rill__gltf_alloc_raw((size_t)n * 2u, sizeof(uint32_t));
    if (!weld) {
        return false;
    }
    uint32_t *next = weld + n; /* the copies of one point, chained from the first */
    if (!rill__edges_weld(from->positions, n, 0, rill_edges_query_defaults().weld_tolerance,
                          weld)) {
        rill_free(weld);
        return false;
    }
    for (uint32_t v = 0; v < n; v++) {
        next[v] = UINT32_MAX;
        if (weld[v] != v) {
            next[v] = next[weld[v]];
            next[weld[v]] = v;
        }
    }
    const float *nr = from->normals;
    for (size_t i = 0; i + 2 < count; i += 3) {
        float f[3];
        double a = tri_area2(from->positions, idx[i], idx[i + 1], idx[i + 2], f);
        for (int k = 0; a > 0.0 && k < 3; k++) {
            uint32_t best = idx[i + k];
            double best_dot = (double)nr[best * 3] * f[0] + (double)nr[best * 3 + 1] * f[1] +
                              (double)nr[best * 3 + 2] * f[2];
            if (best_dot >= 0.2 * a) {
                continue;
            }
            for (uint32_t u = weld[idx[i + k]]; u != UINT32_MAX; u = next[u]) {
                double d = (double)nr[u * 3] * f[0] + (double)nr[u * 3 + 1] * f[1] +
                           (double)nr[u * 3 + 2] * f[2];
                if (d > best_dot) {
                    best = u;
                    best_dot = d;
                }
            }
            idx[i + k] = best;
        }
    }
    rill_free(weld);
    return true;
}

/* Simplifies `from` towards target_index_count into the shell primitive dst. *origin_out gets
 * the origin map (NULL when dst is an unchanged copy). Returns false when out of memory. */
static bool simplify_primitive(rill_gltf_primitive *dst, const rill_gltf_primitive *from,
                               size_t target_index_count, const rill_lod_desc *d,
                               uint32_t *sloppy_count, rill__scratch *scratch,
                               uint32_t **origin_out) {
    *origin_out = NULL;
    size_t count = from->index_count;
    if (target_index_count >= count) {
        return copy_from(dst, from);
    }
    uint32_t *out = rill__gltf_alloc_raw(count, sizeof(uint32_t));
    if (!out) {
        return false;
    }
    unsigned int options = d->lock_border ? meshopt_SimplifyLockBorder : 0u;
    float result_error = 0.0f;
    size_t got = meshopt_simplify(out, from->indices, count, from->positions, from->vertex_count,
                                  3 * sizeof(float), target_index_count, d->target_error, options,
                                  &result_error);
    if ((double)got > (double)d->sloppy_threshold * (double)target_index_count) {
        /* The error bound stopped the standard simplifier well short of the target (flat,
         * boxy or very coarse parts do this); the sloppy one clusters vertices on a grid and
         * reaches the count. Its error is bounded to 4x the target (unbounded, clusters on
         * textured parts take an arbitrary vertex's UVs and the level looks broken). It is used
         * only when it produced something, did better, and shades no worse (shading_kept). */
        uint32_t *alt = rill__gltf_alloc_raw(count, sizeof(uint32_t));
        if (!alt) {
            rill_free(out);
            return false;
        }
        size_t sgot = meshopt_simplifySloppy(
            alt, from->indices, count, from->positions, from->vertex_count, 3 * sizeof(float),
            target_index_count, 4.0f * d->target_error, &result_error);
        if (sgot >= 3 && sgot < got && !repair_corners(from, alt, sgot)) {
            rill_free(alt);
            rill_free(out);
            return false;
        }
        if (sgot >= 3 && sgot < got && shading_kept(from, alt, sgot)) {
            rill_free(out);
            out = alt;
            got = sgot;
            (*sloppy_count)++;
        } else {
            rill_free(alt);
        }
    }
    if (got < 3 || got >= count) {
        /* Nothing left, or nothing gained: keep the primitive as it was. */
        rill_free(out);
        return copy_from(dst, from);
    }
    uint32_t *remap = rill__scratch_get(scratch, (size_t)from->vertex_count * 8u);
    if (!remap) {
        rill_free(out);
        return false;
    }
    uint32_t *origin = remap + from->vertex_count;
    if (!compact_from(dst, from, out, (uint32_t)got, remap, origin)) {
        return false;
    }
    *origin_out = origin;
    return true;
}

/* The weld of a level's primitive: carried from the parent's through the origin map when there
 * is one (the representative of each group is the group's first vertex in the new order, as a
 * fresh weld would pick), welded afresh otherwise. */
static bool level_weld(const rill_gltf_primitive *pr, const rill_gltf_primitive *parent,
                       const uint32_t *origin, rill__scratch *scratch, lod_prim *state) {
    uint32_t n = pr->vertex_count;
    uint32_t *weld = rill__gltf_alloc_raw(n ? n : 1, sizeof(uint32_t));
    if (!weld) {
        return false;
    }
    bool ok = true;
    if (state->weld && origin) {
        uint32_t *first = rill__scratch_get(scratch, (size_t)parent->vertex_count * 4u);
        ok = first != NULL;
        if (ok) {
            memset(first, 0xFF, (size_t)parent->vertex_count * sizeof(uint32_t));
            for (uint32_t v = 0; v < n; v++) {
                uint32_t rep = state->weld[origin[v]];
                if (first[rep] == UINT32_MAX) {
                    first[rep] = v;
                }
                weld[v] = first[rep];
            }
        }
    } else if (state->weld && !origin) {
        memcpy(weld, state->weld, (size_t)n * sizeof(uint32_t)); /* an unchanged copy */
    } else {
        rill_edges_desc ed = rill_edges_query_defaults();
        ok = rill__edges_weld(pr->positions, n, 0, ed.weld_tolerance, weld);
    }
    if (!ok) {
        rill_free(weld);
        return false;
    }
    rill_free(state->weld);
    state->weld = weld;
    return true;
}

static void free_levels(rill_gltf_model **levels, uint32_t made) {
    for (uint32_t k = 0; k < made; k++) {
        rill_gltf_model_free(levels[k]);
        levels[k] = NULL;
    }
}

rill_result rill_lod_bake(const rill_gltf_model *base, const rill_lod_desc *desc,
                          rill_gltf_model **out_levels, rill_lod_level_info *out_info,
                          uint32_t *out_count, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_lod_bake", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
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
    uint32_t prim_total = 0;
    for (uint32_t i = 0; i < base->mesh_count; i++) {
        prim_total += base->meshes[i].primitive_count;
    }
    lod_prim *state = prim_total ? rill__gltf_alloc(prim_total, sizeof(lod_prim)) : NULL;
    if (prim_total && !state) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_lod_bake: out of memory");
    }
    rill_edges_desc ed = rill_edges_query_defaults();
    /* Temporary arrays live in three scratch blocks reused by every primitive of every level. */
    rill__scratch s_compact = {0}, s_weld = {0}, s_edges = {0};
    const rill_gltf_model *parent = base;
    uint64_t parent_tris = rill_gltf_model_triangle_count(base);
    uint32_t made = 0;
    bool oom = false;
    for (uint32_t level = 1; level <= d.levels && !oom; level++) {
        /* Everything but geometry is copied once per level; geometry is written straight from
         * the parent's (never copied and then replaced). */
        rill_gltf_model *m = rill__gltf_model_clone_shell(parent);
        if (!m) {
            oom = true;
            break;
        }
        rill_lod_level_info info = {0};
        uint32_t pi = 0;
        for (uint32_t i = 0; i < m->mesh_count && !oom; i++) {
            for (uint32_t p = 0; p < m->meshes[i].primitive_count && !oom; p++, pi++) {
                const rill_gltf_primitive *bp = &base->meshes[i].primitives[p];
                const rill_gltf_primitive *pp = &parent->meshes[i].primitives[p];
                rill_gltf_primitive *np = &m->meshes[i].primitives[p];
                size_t target = ((size_t)bp->index_count / 3u >> level) * 3u;
                if (target < 3) {
                    target = 3;
                }
                info.target_triangles += target / 3u;
                uint32_t *origin = NULL;
                oom = !simplify_primitive(np, pp, target, &d, &info.sloppy_primitives, &s_compact,
                                          &origin);
                /* Edges come from the level's weld, carried from the parent's. */
                if (!oom && !d.skip_edges) {
                    oom = !level_weld(np, pp, origin, &s_weld, &state[pi]);
                    uint32_t *lines = NULL, lc = 0;
                    if (!oom) {
                        oom = rill__edges_from_weld(np->positions, 0, np->vertex_count,
                                                    state[pi].weld, np->indices, np->index_count,
                                                    ed.angle_deg, &s_edges, &lines, &lc) != RILL_OK;
                    }
                    np->edge_indices = lines;
                    np->edge_index_count = lc;
                }
            }
        }
        if (oom) {
            rill_gltf_model_free(m);
            break;
        }
        info.triangles = rill_gltf_model_triangle_count(m);
        /* The 10% rule: a level that barely simplifies costs memory for no drawing gain, and
         * every later level would stall the same way. */
        if ((double)info.triangles > (1.0 - (double)d.min_reduction) * (double)parent_tris) {
            rill_gltf_model_free(m);
            break;
        }
        out_levels[made] = m;
        if (out_info) {
            out_info[made] = info;
        }
        made++;
        parent = m;
        parent_tris = info.triangles;
    }
    for (uint32_t k = 0; k < prim_total; k++) {
        rill_free(state[k].weld);
    }
    rill__scratch_free(&s_compact);
    rill__scratch_free(&s_weld);
    rill__scratch_free(&s_edges);
    rill_free(state);
    if (oom) {
        free_levels(out_levels, made);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_lod_bake: out of memory");
    }
    *out_count = made;
    return RILL_OK;
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
    if (RILL_DESC_CHECK(desc, "rill_lod_bake_file", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
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
