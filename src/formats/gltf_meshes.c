/* gltf_meshes.c: the glTF reader's meshes: each primitive's attributes, indices (as a triangle
 * list), morph targets and skin attributes, decoded and checked (positions finite, normals unit),
 * and the whole model's decoded size budgeted before any accessor is decoded. */
#include "gltf_read_internal.h"

#include "rill/world.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* >>meshes ------------------------------------------------------------------------------------ */

/* Reads attribute `key` of a primitive, checking its type (comps_a or comps_b components) and,
 * when want_count != 0, its element count. Absent -> *out = NULL. */
static rill_result attribute(rd *r, const rill__gj *attrs, const char *key, const char *where,
                             uint32_t comps_a, uint32_t comps_b, uint32_t want_count, rd_check *chk,
                             float **out, const rd_accessor **info) {
    *out = NULL;
    const rill__gj *it = rill__gj_get(attrs, key);
    if (!it) {
        return RILL_OK;
    }
    /* The JSON path is built with plain copies: this runs for every attribute of every
     * primitive, and formatting it cost more than decoding a small mesh. */
    char kw[160];
    rill__rd_join_path(kw, sizeof(kw), where, ".attributes.");
    double v = rill__gj_num(it);
    if (!rill__gj_is_number(it) || !isfinite(v) || v != floor(v)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s: expected an index", kw, key);
    }
    if (v < 0.0 || v >= (double)r->accessor_count) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s%s: accessor %.0f out of range (%u)", kw, key,
                             v, r->accessor_count);
    }
    int32_t idx = (int32_t)v;
    const rd_accessor *a;
    RILL_TRY(rill__rd_accessor_info(r, idx, &a));
    if (a->comps != comps_a && a->comps != comps_b) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s%s: accessor %d has the wrong type", kw, key,
                             idx);
    }
    if (want_count && a->count != want_count) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s%s: accessor %d has %u elements, POSITION has %u", kw, key, idx,
                             a->count, want_count);
    }
    if (!want_count && a->count > (1u << 24)) {
        return rill__rd_fail(r, RILL_ERR_LIMIT, "%s%s: %u vertices (limit 2^24)", kw, key,
                             a->count);
    }
    *info = a;
    return rill__rd_accessor_floats(r, idx, a, kw, key, chk, out);
}

/* Turns strips (mode 5) and fans (mode 6) into lists, in place of *idx. */
static rill_result to_triangle_list(rd *r, int mode, const char *where, uint32_t **idx,
                                    uint32_t *count) {
    uint32_t n = *count;
    if (mode == 4) {
        if (n % 3 != 0) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: %u indices is not a multiple of 3",
                                 where, n);
        }
        return RILL_OK;
    }
    uint32_t tris = n >= 3 ? n - 2 : 0;
    RILL_TRY(rill__rd_charge(r, (uint64_t)tris * 12u, where, ": strip or fan"));
    uint32_t *dst = tris ? rill__gltf_alloc((size_t)tris * 3, sizeof(uint32_t)) : NULL;
    if (tris && !dst) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    const uint32_t *s = *idx;
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t *d = &dst[(size_t)t * 3];
        if (mode == 5) {
            /* Every other strip triangle flips its winding back to the strip's order. */
            d[0] = s[t + (t & 1u)];
            d[1] = s[t + 1 - (t & 1u)];
            d[2] = s[t + 2];
        } else {
            d[0] = s[t + 1];
            d[1] = s[t + 2];
            d[2] = s[0];
        }
    }
    rill_free(*idx);
    *idx = dst;
    *count = tris * 3;
    return RILL_OK;
}

/* glTF asks for flat shading when a primitive has no normals. Every triangle gets its own three
 * vertices (attributes copied), so the normal generator, which accumulates over shared
 * vertices, yields exactly the face normal. An edge buffer read from the file is remapped to the
 * first copy of each vertex (the weld in the edge builder makes copies equivalent). */
static bool unweld_for_flat_normals(rill_gltf_primitive *prim) {
    uint32_t n = prim->index_count;
    uint32_t *first = rill__gltf_alloc(prim->vertex_count, sizeof(uint32_t));
    uint32_t *idx = rill__gltf_alloc(n, sizeof(uint32_t));
    if (!first || !idx) {
        rill_free(first);
        rill_free(idx);
        return false;
    }
    memset(first, 0xFF, (size_t)prim->vertex_count * sizeof(uint32_t));
    uint32_t tc3 = 3 * prim->target_count;
    float **arrays[] = {&prim->positions, &prim->tangents,         &prim->uv0,
                        &prim->uv1,       &prim->colors,           &prim->joints,
                        &prim->weights,   &prim->target_positions, &prim->target_normals};
    const uint32_t comps[] = {3, 4, 2, 2, 4, 4, 4, tc3, tc3};
    bool ok = true;
    for (size_t a = 0; a < RILL_COUNTOF(arrays) && ok; a++) {
        float *src = *arrays[a];
        if (!src) {
            continue;
        }
        float *dst = rill__gltf_alloc((size_t)n * comps[a], sizeof(float));
        if (!dst) {
            ok = false;
            break;
        }
        for (uint32_t i = 0; i < n; i++) {
            memcpy(&dst[(size_t)i * comps[a]], &src[(size_t)prim->indices[i] * comps[a]],
                   comps[a] * sizeof(float));
        }
        rill_free(src);
        *arrays[a] = dst;
    }
    if (ok) {
        for (uint32_t i = 0; i < n; i++) {
            if (first[prim->indices[i]] == UINT32_MAX) {
                first[prim->indices[i]] = i;
            }
            idx[i] = i;
        }
        bool edges_ok = true;
        for (uint32_t k = 0; k < prim->edge_index_count; k++) {
            uint32_t v = first[prim->edge_indices[k]];
            edges_ok = edges_ok && v != UINT32_MAX;
            prim->edge_indices[k] = v;
        }
        if (!edges_ok) {
            /* An edge on a vertex no triangle uses cannot be kept; the buffer is dropped and the
             * renderer falls back to triangle lines. */
            rill_free(prim->edge_indices);
            prim->edge_indices = NULL;
            prim->edge_index_count = 0;
        }
        rill_free(prim->indices);
        prim->indices = idx;
        prim->vertex_count = n;
        idx = NULL;
    }
    rill_free(first);
    rill_free(idx);
    return ok;
}

/* Non-position attributes are sanitized rather than refused: a NaN UV or color is a cosmetic
 * defect, while a NaN position would poison bounds, culling and physics. */
static void sanitize(float *v, size_t n) {
    if (!v || rill__gltf_first_non_finite(v, n) == n) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            v[i] = 0.0f;
        }
    }
}

/* True when material index mi samples a normal texture or is anisotropic. */
static bool material_needs_tangents(const rd *r, int32_t mi) {
    const rill_gltf_material *mt = mi >= 0 ? &r->m->materials[mi] : NULL;
    return mt && (mt->normal_texture.texture >= 0 || mt->clearcoat_normal_texture.texture >= 0 ||
                  mt->anisotropy_strength > 0.0f);
}

/* True when the primitive's material, or its material in one of the variants, samples a normal
 * texture or is anisotropic (its direction lies in the tangent frame), the cases that need
 * tangents (glTF: generate them where the file has none). */
static bool needs_tangents(const rd *r, const rill_gltf_primitive *prim) {
    bool need = material_needs_tangents(r, prim->material);
    for (uint32_t i = 0; !need && prim->variant_materials && i < r->m->variant_count; i++) {
        need = material_needs_tangents(r, prim->variant_materials[i]);
    }
    return need;
}

static rill_result read_edges_ext(rd *r, const rill__gj *p, const char *where,
                                  rill_gltf_primitive *prim) {
    const rill__gj *ext, *edges = NULL;
    RILL_TRY(rill__rd_check_extensions(r, p, where));
    RILL_TRY(rill__rd_js_member_object(r, p, "extensions", where, &ext));
    if (!ext) {
        return RILL_OK;
    }
    char ew[192];
    snprintf(ew, sizeof(ew), "%s.extensions", where);
    RILL_TRY(rill__rd_js_member_object(r, ext, RILL_GLTF_EXT_MESH_EDGES, ew, &edges));
    if (!edges) {
        return RILL_OK;
    }
    char xw[256];
    snprintf(xw, sizeof(xw), "%s.%s", ew, RILL_GLTF_EXT_MESH_EDGES);
    int32_t eacc;
    RILL_TRY(rill__rd_js_index(r, edges, "edges", xw, r->accessor_count, "accessor", &eacc));
    if (eacc >= 0) {
        RILL_TRY(rill__rd_accessor_indices(r, eacc, xw, ".edges", prim->vertex_count,
                                           &prim->edge_indices, &prim->edge_index_count));
        if (prim->edge_index_count % 2 != 0) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.edges: odd number of line indices (%u)",
                                 xw, prim->edge_index_count);
        }
    }
    return RILL_OK;
}

/* Bytes one vertex of the primitive takes across its attribute arrays. */
static uint64_t vertex_bytes(const rill_gltf_primitive *prim) {
    return sizeof(float) *
           (3u + 3u + (prim->tangents ? 4u : 0u) + (prim->uv0 ? 2u : 0u) + (prim->uv1 ? 2u : 0u) +
            (prim->colors ? 4u : 0u) + (prim->joints ? 8u : 0u) +
            3u * prim->target_count *
                ((prim->target_positions ? 1u : 0u) + (prim->target_normals ? 1u : 0u)));
}

/* Normals, tangents and bounds after the arrays are read: flat shading where normals are missing,
 * unit normals, tangents where the material needs them. */
static rill_result finish_primitive(rd *r, const char *where, bool normals_unit,
                                    rill_gltf_primitive *prim) {
    if (!prim->normals) {
        if (prim->index_count > (1u << 24)) {
            return rill__rd_fail(r, RILL_ERR_LIMIT,
                                 "%s: %u corners to unweld for flat normals (limit 2^24)", where,
                                 prim->index_count);
        }
        RILL_TRY(rill__rd_charge(r, (uint64_t)prim->index_count * (vertex_bytes(prim) + 4u), where,
                                 ": flat normals"));
        if (!unweld_for_flat_normals(prim)) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        /* Vertices no triangle used are gone: the bounds may have shrunk. */
        rill__gltf_primitive_bounds(prim);
    }
    /* Normals the decode already found unit length need no second look. */
    if (!normals_unit && !rill__gltf_primitive_fix_normals(prim, false)) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    bool gen = needs_tangents(r, prim);
    if (gen || prim->tangents) {
        /* Generation may split vertices whose corners disagree (at most doubling them). */
        uint64_t worst = (uint64_t)prim->vertex_count * (vertex_bytes(prim) + 16u);
        RILL_TRY(rill__rd_charge(r, gen ? worst : 0, where, ": tangents"));
        if (!rill__gltf_primitive_fix_tangents(prim, gen)) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
    }
    /* Bounds were taken while the positions were checked; tangent generation only copies
     * vertices, which keeps them. */
    return RILL_OK;
}

/* JOINTS_0 (VEC4 unsigned byte or short) and WEIGHTS_0 (VEC4 float, or normalized unsigned byte
 * or short), kept only together. Weights must be finite and non-negative; they are normalized to
 * sum 1 (exporters round them), and a vertex whose weights sum to 0 follows its first joint.
 * Joints of weight 0 are set to 0, so only the joints that move a vertex are checked against the
 * skin later (rill__rd_check_skinned_meshes). */
static rill_result read_skin_attributes(rd *r, const rill__gj *attrs, const char *where,
                                        rill_gltf_primitive *prim) {
    uint32_t n = prim->vertex_count;
    const rd_accessor *ji = NULL, *wi = NULL;
    RILL_TRY(attribute(r, attrs, "JOINTS_0", where, 4, 4, n, NULL, &prim->joints, &ji));
    if (prim->joints && (ji->normalized || (ji->component != GL_UNSIGNED_BYTE &&
                                            ji->component != GL_UNSIGNED_SHORT))) {
        return rill__rd_fail(
            r, RILL_ERR_CORRUPT,
            "%s.attributes.JOINTS_0: must be unsigned byte or short, not normalized", where);
    }
    RILL_TRY(attribute(r, attrs, "WEIGHTS_0", where, 4, 4, n, NULL, &prim->weights, &wi));
    if (prim->weights && wi->component != GL_FLOAT &&
        (!wi->normalized ||
         (wi->component != GL_UNSIGNED_BYTE && wi->component != GL_UNSIGNED_SHORT))) {
        return rill__rd_fail(
            r, RILL_ERR_CORRUPT,
            "%s.attributes.WEIGHTS_0: must be float or normalized unsigned byte or "
            "short",
            where);
    }
    if (!prim->joints || !prim->weights) {
        rill_free(prim->joints);
        rill_free(prim->weights);
        prim->joints = prim->weights = NULL;
        return RILL_OK;
    }
    for (uint32_t v = 0; v < n; v++) {
        float *w = &prim->weights[(size_t)v * 4];
        float sum = 0.0f;
        for (int k = 0; k < 4; k++) {
            if (!(w[k] >= 0.0f) || !isfinite(w[k])) {
                return rill__rd_fail(
                    r, RILL_ERR_CORRUPT,
                    "%s.attributes.WEIGHTS_0: vertex %u: weight %d is negative or not "
                    "finite",
                    where, v, k);
            }
            sum += w[k];
        }
        float *j = &prim->joints[(size_t)v * 4];
        if (!(sum > 0.0f)) {
            w[0] = 1.0f;
            sum = 1.0f;
        }
        /* Rescaled only when visibly off, so a re-read file keeps identical bits. */
        bool rescale = fabsf(sum - 1.0f) > 1e-6f;
        for (int k = 0; k < 4; k++) {
            w[k] = rescale ? w[k] / sum : w[k];
            j[k] = w[k] > 0.0f ? j[k] : 0.0f;
        }
    }
    return RILL_OK;
}

/* One attribute of every morph target into the interleaved array *out (vertex-major). Absent
 * (NULL) when `optional` and no target has it; a target without it displaces nothing. Values
 * must be finite. */
static rill_result target_attribute(rd *r, const rill__gj *targets, const char *where,
                                    const char *key, bool optional, rill_gltf_primitive *prim,
                                    float **out) {
    uint32_t n = prim->vertex_count, tc = prim->target_count, present = 0;
    const rill__gj *t;
    RILL__GJ_FOR(t, targets) {
        present += rill__gj_get(t, key) != NULL;
    }
    if (present == 0 && optional) {
        return RILL_OK;
    }
    uint64_t total = (uint64_t)n * tc * 3u;
    RILL_TRY(rill__rd_charge(r, total * sizeof(float), where, ".targets"));
    *out = rill__gltf_alloc((size_t)total, sizeof(float));
    if (!*out) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.targets: out of memory", where);
    }
    uint32_t k = 0;
    RILL__GJ_FOR(t, targets) {
        char tw[160];
        snprintf(tw, sizeof(tw), "%s.targets[%u]", where, k);
        RILL_TRY(rill__rd_js_object(r, t, tw));
        float *d = NULL;
        const rd_accessor *info = NULL;
        RILL_TRY(attribute(r, t, key, tw, 3, 3, n, NULL, &d, &info));
        if (d) {
            size_t bad = rill__gltf_first_non_finite(d, (size_t)n * 3);
            for (uint32_t v = 0; bad == (size_t)n * 3 && v < n; v++) {
                memcpy(&(*out)[((size_t)v * tc + k) * 3], &d[(size_t)v * 3], 3 * sizeof(float));
            }
            rill_free(d);
            if (bad != (size_t)n * 3) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.%s: vertex %zu is not finite", tw,
                                     key, bad / 3);
            }
        }
        k++;
    }
    return RILL_OK;
}

/* Morph targets: POSITION and NORMAL displacements (TANGENT ones are left out and named in the
 * warning), at most RILL_GLTF_MAX_TARGETS, their bytes charged before they are allocated. */
static rill_result read_targets(rd *r, const rill__gj *p, const char *where,
                                rill_gltf_primitive *prim) {
    const rill__gj *targets;
    uint32_t tc;
    RILL_TRY(rill__rd_js_array(r, p, "targets", where, &targets, &tc));
    if (tc == 0) {
        return RILL_OK;
    }
    if (tc > RILL_GLTF_MAX_TARGETS) {
        return rill__rd_fail(r, RILL_ERR_LIMIT, "%s.targets: %u morph targets (limit %u)", where,
                             tc, RILL_GLTF_MAX_TARGETS);
    }
    prim->target_count = tc;
    RILL_TRY(target_attribute(r, targets, where, "POSITION", true, prim, &prim->target_positions));
    return target_attribute(r, targets, where, "NORMAL", true, prim, &prim->target_normals);
}

static rill_result read_primitive(rd *r, const rill__gj *p, const char *where, bool *out_skip,
                                  rill_gltf_primitive *prim) {
    *out_skip = false;
    RILL_TRY(rill__rd_js_object(r, p, where));
    uint64_t mode = 0;
    RILL_TRY(rill__rd_js_uint(r, p, "mode", where, 4, 6, &mode));
    const rill__gj *attrs;
    RILL_TRY(rill__rd_js_member_object(r, p, "attributes", where, &attrs));
    if (!attrs) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.attributes: missing", where);
    }
    RILL_TRY(rill__rd_js_index(r, p, "material", where, r->m->material_count, "material",
                               &prim->material));
    RILL_TRY(rill__rd_read_variant_mappings(r, p, where, prim));

    const rd_accessor *info = NULL;
    rd_check pc = {.kind = CHECK_POSITIONS};
    RILL_TRY(attribute(r, attrs, "POSITION", where, 3, 3, 0, &pc, &prim->positions, &info));
    if (!prim->positions) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.attributes.POSITION: missing", where);
    }
    uint32_t n = info->count;
    prim->vertex_count = n;
    if (pc.bad != n) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.attributes.POSITION: vertex %zu is not finite (NaN or infinite)",
                             where, pc.bad);
    }
    memcpy(prim->bounds_min, pc.lo, sizeof(pc.lo));
    memcpy(prim->bounds_max, pc.hi, sizeof(pc.hi));
    for (int k = 0; k < 3; k++) {
        if (!(fabsf(pc.lo[k]) <= RILL_WORLD_LIMIT && fabsf(pc.hi[k]) <= RILL_WORLD_LIMIT)) {
            return rill__rd_fail(
                r, RILL_ERR_CORRUPT,
                "%s.attributes.POSITION: vertices span %g to %g on axis %d, beyond the "
                "world limit +-%g",
                where, (double)pc.lo[k], (double)pc.hi[k], k, (double)RILL_WORLD_LIMIT);
        }
    }
    rd_check nc = {.kind = CHECK_NORMALS};
    rd_check uc0 = {.kind = CHECK_FINITE}, uc1 = {.kind = CHECK_FINITE};
    RILL_TRY(attribute(r, attrs, "NORMAL", where, 3, 3, n, &nc, &prim->normals, &info));
    RILL_TRY(attribute(r, attrs, "TANGENT", where, 4, 4, n, NULL, &prim->tangents, &info));
    RILL_TRY(attribute(r, attrs, "TEXCOORD_0", where, 2, 2, n, &uc0, &prim->uv0, &info));
    RILL_TRY(attribute(r, attrs, "TEXCOORD_1", where, 2, 2, n, &uc1, &prim->uv1, &info));
    float *col = NULL;
    RILL_TRY(attribute(r, attrs, "COLOR_0", where, 3, 4, n, NULL, &col, &info));
    if (col && info->comps == 3) {
        RILL_TRY(rill__rd_charge(r, (uint64_t)n * 16u, where, ".attributes.COLOR_0"));
        prim->colors = rill__gltf_alloc_raw((size_t)n * 4, sizeof(float));
        if (!prim->colors) {
            rill_free(col);
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        for (uint32_t v = 0; v < n; v++) {
            memcpy(&prim->colors[(size_t)v * 4], &col[(size_t)v * 3], 3 * sizeof(float));
            prim->colors[(size_t)v * 4 + 3] = 1.0f;
        }
        rill_free(col);
    } else {
        prim->colors = col;
    }
    RILL_TRY(read_skin_attributes(r, attrs, where, prim));
    RILL_TRY(read_targets(r, p, where, prim));
    if (prim->uv0 && uc0.bad != (size_t)n * 2) {
        sanitize(prim->uv0, (size_t)n * 2);
    }
    if (prim->uv1 && uc1.bad != (size_t)n * 2) {
        sanitize(prim->uv1, (size_t)n * 2);
    }
    sanitize(prim->colors, (size_t)n * 4);

    int32_t iacc;
    RILL_TRY(rill__rd_js_index(r, p, "indices", where, r->accessor_count, "accessor", &iacc));
    if (iacc >= 0) {
        RILL_TRY(rill__rd_accessor_indices(r, iacc, where, ".indices", n, &prim->indices,
                                           &prim->index_count));
    } else {
        RILL_TRY(rill__rd_charge(r, (uint64_t)n * 4u, where, ".indices"));
        prim->indices = rill__gltf_alloc_raw(n, sizeof(uint32_t));
        if (!prim->indices) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        for (uint32_t v = 0; v < n; v++) {
            prim->indices[v] = v;
        }
        prim->index_count = n;
    }
    char iw[192];
    rill__rd_join_path(iw, sizeof(iw), where, ".indices");
    if (mode < 4) {
        RILL_TRY(rill__rd_expand_points_lines(r, (int)mode, where, prim));
    } else {
        RILL_TRY(to_triangle_list(r, (int)mode, iw, &prim->indices, &prim->index_count));
    }
    if (prim->index_count == 0) {
        /* A strip or fan of fewer than three indices draws nothing; like points and lines it is
         * left out, so every primitive in the model has at least one triangle. */
        RILL_LOG_WARN("formats", "%s: %s: no triangles (or no point or line segment); skipped",
                      r->name, where);
        *out_skip = true;
        return RILL_OK;
    }
    if (mode < 4) {
        RILL_TRY(rill__rd_check_extensions(r, p, where));
        return finish_primitive(r, where, true, prim); /* flat unit normals already */
    }
    RILL_TRY(read_edges_ext(r, p, where, prim));
    return finish_primitive(r, where, prim->normals && nc.unit, prim);
}

/* An optional "weights" array of morph weights: exactly `want` finite numbers (want 0: the
 * array must be absent or empty). */
rill_result rill__rd_js_weights(rd *r, const rill__gj *obj, const char *where, uint32_t want,
                                uint32_t *out_count, float **out) {
    const rill__gj *arr;
    uint32_t n;
    *out = NULL;
    *out_count = 0;
    RILL_TRY(rill__rd_js_array(r, obj, "weights", where, &arr, &n));
    if (n == 0) {
        return RILL_OK;
    }
    if (n != want) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.weights: %u weights for %u morph targets",
                             where, n, want);
    }
    *out = rill__gltf_alloc(n, sizeof(float));
    if (!*out) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.weights: out of memory", where);
    }
    *out_count = n;
    uint32_t k = 0;
    const rill__gj *e;
    RILL__GJ_FOR(e, arr) {
        double v = rill__gj_num(e);
        if (!rill__gj_is_number(e) || !isfinite(v) || fabs(v) > 1e6) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.weights[%u]: not a finite number", where,
                                 k);
        }
        (*out)[k++] = (float)v;
    }
    return RILL_OK;
}

/* Every primitive of a mesh has the same number of morph targets (glTF 2.0, 3.7.2.2); its
 * weights, when given, one per target. */
static rill_result mesh_targets(rd *r, const rill__gj *me, const char *where,
                                rill_gltf_mesh *mesh) {
    uint32_t tc = mesh->primitive_count ? mesh->primitives[0].target_count : 0;
    for (uint32_t p = 1; p < mesh->primitive_count; p++) {
        if (mesh->primitives[p].target_count != tc) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.primitives[%u].targets: %u morph targets, primitive 0 has %u",
                                 where, p, mesh->primitives[p].target_count, tc);
        }
    }
    return rill__rd_js_weights(r, me, where, tc, &mesh->weight_count, &mesh->weights);
}

/* Decoded bytes of accessor `key` of attrs (0 when absent or not a checked accessor: the decode
 * names those errors). */
static uint64_t attribute_bytes(rd *r, const rill__gj *attrs, const char *key, uint32_t *count) {
    const rill__gj *it = rill__gj_get(attrs, key);
    double v = it && rill__gj_is_number(it) ? rill__gj_num(it) : -1.0;
    const rd_accessor *a;
    if (!(v >= 0.0 && v < (double)r->accessor_count && v == floor(v)) ||
        rill__rd_accessor_info(r, (int32_t)v, &a) != RILL_OK) {
        rill_error_clear(r->err);
        return 0;
    }
    *count = a->count;
    return (uint64_t)a->count * a->comps * sizeof(float);
}

/* The least a primitive's morph targets decode to: per attribute (POSITION, NORMAL) that any of
 * them has, a displacement per vertex and target (read_targets' interleaved array). 0 when the
 * count is past RILL_GLTF_MAX_TARGETS (the decode refuses that). */
static uint64_t target_bytes(const rill__gj *p, uint32_t vertices) {
    const rill__gj *targets = rill__gj_get(p, "targets");
    uint64_t tc = 0, keys = 0;
    bool pos = false, nrm = false;
    const rill__gj *t;
    RILL__GJ_FOR(t, targets) {
        tc++;
        pos = pos || rill__gj_get(t, "POSITION") != NULL;
        nrm = nrm || rill__gj_get(t, "NORMAL") != NULL;
    }
    if (tc == 0 || tc > RILL_GLTF_MAX_TARGETS) {
        return 0;
    }
    keys = (pos ? 1u : 0u) + (nrm ? 1u : 0u);
    return (uint64_t)vertices * tc * keys * 3u * sizeof(float);
}

/* The least every triangle primitive will decode to (its attributes, skin joints and weights, and
 * morph targets as floats, indices as u32, and the unwelding for flat normals where NORMAL is
 * missing), summed over the model and checked against the limits before any accessor is decoded:
 * a model past them is refused naming the primitive where the sum crossed, without first spending
 * the time to decode those before it. What the decode charges later is never less than this. */
static rill_result budget_meshes(rd *r, const rill__gj *arr) {
    uint64_t sum = 0;
    uint32_t i = 0;
    const rill__gj *me;
    RILL__GJ_FOR(me, arr) {
        uint32_t pi = 0;
        const rill__gj *p;
        RILL__GJ_FOR(p, rill__gj_get(me, "primitives")) {
            const rill__gj *attrs = rill__gj_get(p, "attributes");
            const rill__gj *mode = rill__gj_get(p, "mode");
            uint32_t n = 0, unused = 0, corners = 0;
            if (!attrs || (mode && !rill__gj_is_number(mode)) ||
                !attribute_bytes(r, attrs, "POSITION", &n)) {
                pi++;
                continue;
            }
            sum += (uint64_t)n * 12u;
            static const char *const keys[] = {"NORMAL",  "TANGENT",  "TEXCOORD_0", "TEXCOORD_1",
                                               "COLOR_0", "JOINTS_0", "WEIGHTS_0"};
            for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                sum += attribute_bytes(r, attrs, keys[k], &unused);
            }
            sum += target_bytes(p, n);
            corners = n;
            const rill__gj *ix = rill__gj_get(p, "indices");
            double iv = ix && rill__gj_is_number(ix) ? rill__gj_num(ix) : -1.0;
            const rd_accessor *a;
            if (iv >= 0.0 && iv < (double)r->accessor_count && iv == floor(iv)) {
                if (rill__rd_accessor_info(r, (int32_t)iv, &a) == RILL_OK) {
                    sum += (uint64_t)a->count * 4u;
                    corners = a->count;
                } else {
                    rill_error_clear(r->err);
                }
            }
            if (!rill__gj_get(attrs, "NORMAL") && corners <= (1u << 24)) {
                sum += (uint64_t)corners * 28u; /* position, normal and an index per corner */
            }
            char pw[128];
            snprintf(pw, sizeof(pw), "meshes[%u].primitives[%u]", i, pi);
            uint64_t before = r->decoded;
            rill_result res = rill__rd_charge(r, sum, pw, ": the primitives up to here");
            r->decoded = before;
            RILL_TRY(res);
            pi++;
        }
        i++;
    }
    return RILL_OK;
}

rill_result rill__rd_read_meshes(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "meshes", "", &arr, &count));
    RILL_TRY(budget_meshes(r, arr));
    if (count) {
        r->m->meshes = rill__gltf_alloc(count, sizeof(rill_gltf_mesh));
        if (!r->m->meshes) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "meshes: out of memory");
        }
    }
    const rill__gj *me;
    RILL__GJ_FOR(me, arr) {
        uint32_t i = r->m->mesh_count;
        rill_gltf_mesh *mesh = &r->m->meshes[i];
        r->m->mesh_count++; /* counted first so a failure below frees what it holds */
        char where[64];
        rill__rd_index_path(where, sizeof(where), "meshes", i);
        RILL_TRY(rill__rd_js_object(r, me, where));
        RILL_TRY(rill__rd_js_name(r, me, where, &mesh->name));
        const rill__gj *prims;
        uint32_t pc;
        RILL_TRY(rill__rd_js_array(r, me, "primitives", where, &prims, &pc));
        if (pc == 0) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.primitives: missing or empty", where);
        }
        mesh->primitives = rill__gltf_alloc(pc, sizeof(rill_gltf_primitive));
        if (!mesh->primitives) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        uint32_t pi = 0;
        const rill__gj *p;
        RILL__GJ_FOR(p, prims) {
            char pw[128];
            char pfx[80];
            rill__rd_join_path(pfx, sizeof(pfx), where, ".primitives");
            rill__rd_index_path(pw, sizeof(pw), pfx, pi);
            rill_gltf_primitive *prim = &mesh->primitives[mesh->primitive_count];
            prim->material = -1;
            bool skip;
            rill_result res = read_primitive(r, p, pw, &skip, prim);
            if (res != RILL_OK || skip) {
                rill__gltf_primitive_release(prim);
                if (res != RILL_OK) {
                    return res;
                }
                r->m->skipped_primitives++;
            } else {
                mesh->primitive_count++;
            }
            pi++;
        }
        RILL_TRY(mesh_targets(r, me, where, mesh));
    }
    return RILL_OK;
}
