/* gltf_tangents.c: tangent generation with MikkTSpace semantics, written for Rill (glTF asks
 * that missing tangents be generated the MikkTSpace way so normal maps baked by other tools
 * shade the same).
 *
 * The algorithm, per primitive:
 *   1. Vertices are grouped by value: corners whose position, normal and UV are equal share one
 *      tangent space, whatever index they use.
 *   2. Each triangle gets its tangent direction from its UV gradient (the direction of +u on the
 *      surface, unit length) and an orientation: whether its UV mapping preserves the winding
 *      (signed UV area > 0) or mirrors it.
 *   3. At each corner, the triangle's tangent is projected onto the plane of the corner's normal,
 *      normalized, and weighted by the corner's angle (measured in that plane); corners of one
 *      vertex group with the same orientation sum into one tangent space. Mirrored and unmirrored
 *      triangles never mix, so a UV seam of mirrored halves keeps two tangent spaces.
 *   4. The sum is normalized; w = +1 for orientation-preserving groups, -1 for mirrored ones, so
 *      bitangent = cross(normal, tangent) * w points along +v.
 *   5. A vertex used by corners of both orientations is split: the second orientation gets a copy
 *      of the vertex (every attribute) and those corners are re-indexed to it.
 * Triangles without UV area or without surface area contribute nothing; their corners take the
 * vertex's existing tangent space. Where nothing contributes, the tangent is any unit vector
 * perpendicular to the normal. Differences from the reference implementation: corners are grouped
 * per vertex value and orientation, not by walking triangle fans, so two same-orientation fans
 * that meet only at one vertex share its tangent space. */
#include <math.h>
#include <string.h>

#include "gltf_internal.h"

/* Any unit vector perpendicular to n (n is unit length). */
static void any_perpendicular(const float *n, float *out) {
    float a[3] = {1.0f, 0.0f, 0.0f};
    if (fabsf(n[0]) > 0.9f) {
        a[0] = 0.0f;
        a[1] = 1.0f;
    }
    float c[3];
    cross3(n, a, c);
    float l = len3(c);
    out[0] = c[0] / l;
    out[1] = c[1] / l;
    out[2] = c[2] / l;
}

/* >>weld -------------------------------------------------------------------------------------- */

/* The bits of a float with -0 read as +0, so equal values hash equally. */
static uint32_t key_bits(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b == 0x80000000u ? 0u : b;
}

static bool same_vertex(const rill_gltf_primitive *p, uint32_t a, uint32_t b) {
    for (int k = 0; k < 3; k++) {
        if (p->positions[a * 3 + k] != p->positions[b * 3 + k] ||
            p->normals[a * 3 + k] != p->normals[b * 3 + k]) {
            return false;
        }
    }
    return p->uv0[a * 2] == p->uv0[b * 2] && p->uv0[a * 2 + 1] == p->uv0[b * 2 + 1];
}

/* weld[v] = the first vertex with the same position, normal and UV as v. An open-addressing
 * table of (hash tag, vertex) pairs: the tag settles nearly every probe without touching the
 * other vertex's attributes, which would be a cache miss per collision on a large mesh. */
static bool weld_vertices(const rill_gltf_primitive *p, uint32_t *weld) {
    uint32_t n = p->vertex_count;
    size_t cap = 16;
    while (cap < (size_t)n * 2) {
        cap *= 2;
    }
    uint64_t *table = rill__gltf_alloc_raw(cap, sizeof(uint64_t));
    if (!table) {
        return false;
    }
    memset(table, 0xFF, cap * sizeof(uint64_t));
    /* Hashes first (a sequential pass), then the probes, each slot prefetched a few vertices
     * ahead: on a large mesh every probe is a cache miss, and this lets them overlap. */
    uint64_t *hashes = rill__gltf_alloc_raw(n, sizeof(uint64_t));
    if (!hashes) {
        rill_free(table);
        return false;
    }
    for (uint32_t v = 0; v < n; v++) {
        uint32_t bits[8];
        for (int k = 0; k < 3; k++) {
            bits[k] = key_bits(p->positions[(size_t)v * 3 + k]);
            bits[3 + k] = key_bits(p->normals[(size_t)v * 3 + k]);
        }
        bits[6] = key_bits(p->uv0[(size_t)v * 2]);
        bits[7] = key_bits(p->uv0[(size_t)v * 2 + 1]);
        /* A multiply-xor mix inline: a library hash call per vertex cost more than the probe. */
        uint64_t hv = 0x9E3779B97F4A7C15ull;
        for (int k = 0; k < 8; k++) {
            hv = (hv ^ bits[k]) * 0xFF51AFD7ED558CCDull;
        }
        hv ^= hv >> 33; /* the low bits index the table: fold the well-mixed high ones in */
        hv *= 0xC4CEB9FE1A85EC53ull;
        hv ^= hv >> 29;
        hashes[v] = hv;
    }
    for (uint32_t v = 0; v < n; v++) {
#if defined(__GNUC__)
        if (v + 16 < n) {
            __builtin_prefetch(&table[(size_t)hashes[v + 16] & (cap - 1)]);
        }
#endif
        uint64_t hv = hashes[v];
        size_t h = (size_t)hv & (cap - 1);
        uint64_t tag = (hv >> 32) & 0x7FFFFFFFu; /* never all ones: that marks an empty slot */
        for (;;) {
            uint64_t e = table[h];
            if (e == UINT64_MAX) {
                table[h] = (tag << 32) | v;
                weld[v] = v;
                break;
            }
            if ((e >> 32) == tag && same_vertex(p, (uint32_t)e, v)) {
                weld[v] = (uint32_t)e;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    rill_free(hashes);
    rill_free(table);
    return true;
}

/* >>generate ---------------------------------------------------------------------------------- */

/* Corner orientation codes: bit 0 = orientation preserving; DEGENERATE marks corners of
 * triangles that contribute nothing (resolved after every other corner is summed). */
#define ORIENT_PRESERVING 1u
#define ORIENT_DEGENERATE 2u

/* The unit tangent (direction of +u) and orientation of one triangle; false when its UV or
 * surface area is zero. */
static bool triangle_tangent(const rill_gltf_primitive *p, const uint32_t *tri, float *out,
                             bool *preserving) {
    const float *p1 = &p->positions[(size_t)tri[0] * 3];
    const float *p2 = &p->positions[(size_t)tri[1] * 3];
    const float *p3 = &p->positions[(size_t)tri[2] * 3];
    const float *t1 = &p->uv0[(size_t)tri[0] * 2];
    const float *t2 = &p->uv0[(size_t)tri[1] * 2];
    const float *t3 = &p->uv0[(size_t)tri[2] * 2];
    float t21x = t2[0] - t1[0], t21y = t2[1] - t1[1];
    float t31x = t3[0] - t1[0], t31y = t3[1] - t1[1];
    float d1[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
    float d2[3] = {p3[0] - p1[0], p3[1] - p1[1], p3[2] - p1[2]};
    float area = t21x * t31y - t21y * t31x;
    if (!(fabsf(area) > 1e-30f) || !isfinite(area)) {
        return false;
    }
    /* t31y*d1 - t21y*d2 is dP/du scaled by the signed UV area; dividing by the area's sign
     * makes it point along +u for mirrored triangles too. */
    float s = area > 0.0f ? 1.0f : -1.0f;
    float os[3];
    for (int k = 0; k < 3; k++) {
        os[k] = s * (t31y * d1[k] - t21y * d2[k]);
    }
    float l = len3(os);
    if (!(l > 1e-30f) || !isfinite(l)) {
        return false;
    }
    out[0] = os[0] / l;
    out[1] = os[1] / l;
    out[2] = os[2] / l;
    *preserving = area > 0.0f;
    return true;
}

/* acos for x in [-1, 1], within 2e-8 of the true value before float rounding (Abramowitz and
 * Stegun 4.4.46: acos(x) = sqrt(1 - x) * p(x) on [0, 1], and acos(-x) = pi - acos(x)). Inline
 * and branch-light, it costs a fraction of the libm call that was a fifth of a large load. */
static float acos_unit(float x) {
    float ax = fabsf(x);
    float r = -0.0012624911f;
    r = r * ax + 0.0066700901f;
    r = r * ax - 0.0170881256f;
    r = r * ax + 0.0308918810f;
    r = r * ax - 0.0501743046f;
    r = r * ax + 0.0889789874f;
    r = r * ax - 0.2145988016f;
    r = r * ax + 1.5707963050f;
    r *= sqrtf(1.0f - ax);
    return x < 0.0f ? 3.14159265f - r : r;
}

/* Adds the angle-weighted projection of the triangle's unit tangent `t` to the group sum of each
 * of its three corners. The projections onto a corner's normal plane are written through dot
 * products (for unit n: |e - n(n.e)|^2 = |e|^2 - (n.e)^2, and the same for dot products), so the
 * edge vectors and their lengths are computed once per triangle, not once per corner. */
static void add_triangle(const rill_gltf_primitive *p, const uint32_t *tri, const float *t,
                         float *const sum[3]) {
    const float *P[3] = {&p->positions[(size_t)tri[0] * 3], &p->positions[(size_t)tri[1] * 3],
                         &p->positions[(size_t)tri[2] * 3]};
    float E[3][3], EE[3];
    for (int k = 0; k < 3; k++) {
        const float *a = P[k], *b = P[(k + 1) % 3];
        E[k][0] = b[0] - a[0];
        E[k][1] = b[1] - a[1];
        E[k][2] = b[2] - a[2];
        EE[k] = E[k][0] * E[k][0] + E[k][1] * E[k][1] + E[k][2] * E[k][2];
    }
    for (int c = 0; c < 3; c++) {
        /* Corner c's edges: to the next corner (E[c]) and to the previous one (-E[c+2]). */
        const float *en = E[c], *ep = E[(c + 2) % 3];
        const float *n = &p->normals[(size_t)tri[c] * 3];
        float d = n[0] * t[0] + n[1] * t[1] + n[2] * t[2];
        float lt2 = 1.0f - d * d;
        float a = n[0] * en[0] + n[1] * en[1] + n[2] * en[2];
        float b = -(n[0] * ep[0] + n[1] * ep[1] + n[2] * ep[2]);
        float l1 = EE[c] - a * a, l2 = EE[(c + 2) % 3] - b * b;
        if (!(lt2 > 1e-12f) || !(l1 > 0.0f) || !(l2 > 0.0f)) {
            continue; /* the tangent or an edge is (nearly) along the normal: no direction */
        }
        float dot = -(en[0] * ep[0] + en[1] * ep[1] + en[2] * ep[2]) - a * b;
        float cosang = dot / sqrtf(l1 * l2);
        cosang = cosang > 1.0f ? 1.0f : (cosang < -1.0f ? -1.0f : cosang);
        float w = acos_unit(cosang) / sqrtf(lt2);
        if (!isfinite(w)) {
            continue;
        }
        float *sm = sum[c];
        sm[0] += (t[0] - n[0] * d) * w;
        sm[1] += (t[1] - n[1] * d) * w;
        sm[2] += (t[2] - n[2] * d) * w;
    }
}

/* Gives every vertex needing one a copy at index n + k (all attributes), for the corners of the
 * other orientation. dup[v] = the copy's index or UINT32_MAX. */
static bool split_vertices(rill_gltf_primitive *p, const uint32_t *dup, uint32_t dups) {
    uint32_t n = p->vertex_count;
    uint32_t total = n + dups;
    float **arrays[] = {&p->positions, &p->normals,          &p->uv0,
                        &p->uv1,       &p->colors,           &p->joints,
                        &p->weights,   &p->target_positions, &p->target_normals};
    const uint32_t comps[] = {3, 3, 2, 2, 4, 4, 4, 3 * p->target_count, 3 * p->target_count};
    for (size_t a = 0; a < RILL_COUNTOF(arrays); a++) {
        float *src = *arrays[a];
        if (!src) {
            continue;
        }
        size_t c = comps[a];
        float *dst = rill_realloc_tagged(src, (size_t)total * c * sizeof(float), RILL_MEM_FORMATS);
        if (!dst) {
            return false;
        }
        for (uint32_t v = 0; v < n; v++) {
            if (dup[v] != UINT32_MAX) {
                memcpy(&dst[(size_t)dup[v] * c], &dst[(size_t)v * c], c * sizeof(float));
            }
        }
        *arrays[a] = dst;
    }
    p->vertex_count = total;
    return true;
}

static bool generate(rill_gltf_primitive *p) {
    uint32_t n = p->vertex_count, m = p->index_count;
    bool ok = false;
    uint32_t *weld = rill__gltf_alloc_raw(n, sizeof(uint32_t));
    float *sum = rill__gltf_alloc((size_t)n * 6, sizeof(float)); /* [weld rep][orient][xyz] */
    uint8_t *orient = rill__gltf_alloc_raw(m, 1);
    uint8_t *primary = rill__gltf_alloc_raw(n, 1);
    uint32_t *dup = rill__gltf_alloc_raw(n, sizeof(uint32_t));
    float *tan = NULL;
    if (!weld || !sum || !orient || !primary || !dup || !weld_vertices(p, weld)) {
        goto done;
    }
    /* >>sum: every non-degenerate triangle adds to the groups of its three corners. */
    for (uint32_t t = 0; t < m; t += 3) {
        const uint32_t *tri = &p->indices[t];
        float tv[3];
        bool pres;
        if (!triangle_tangent(p, tri, tv, &pres)) {
            orient[t] = orient[t + 1] = orient[t + 2] = ORIENT_DEGENERATE;
            continue;
        }
        float *sums[3];
        for (int c = 0; c < 3; c++) {
            orient[t + c] = pres ? ORIENT_PRESERVING : 0u;
            sums[c] = &sum[(size_t)weld[tri[c]] * 6 + (pres ? 3 : 0)];
        }
        add_triangle(p, tri, tv, sums);
    }
    /* >>assign: corners of degenerate triangles join the vertex's group that has a tangent
     * (preserving first); then each vertex keeps its first corner's orientation and gets a copy
     * for the other, if any corner uses it. */
    memset(primary, 0xFF, n);
    memset(dup, 0xFF, (size_t)n * sizeof(uint32_t));
    uint32_t dups = 0;
    for (uint32_t c = 0; c < m; c++) {
        uint32_t v = p->indices[c];
        if (orient[c] == ORIENT_DEGENERATE) {
            const float *s = &sum[(size_t)weld[v] * 6];
            orient[c] = (usable3(s + 3) || !usable3(s)) ? ORIENT_PRESERVING : 0u;
        }
        if (primary[v] == 0xFF) {
            primary[v] = orient[c];
        } else if (primary[v] != orient[c] && dup[v] == UINT32_MAX) {
            dup[v] = n + dups++;
        }
    }
    if (dups && !split_vertices(p, dup, dups)) {
        goto done;
    }
    tan = rill__gltf_alloc_raw((size_t)p->vertex_count * 4, sizeof(float));
    if (!tan) {
        goto done;
    }
    /* >>write: every vertex (and copy) gets its group's normalized sum and the orientation's
     * sign; vertices no triangle uses get a perpendicular. */
    for (uint32_t v = 0; v < n; v++) {
        uint8_t o = primary[v] == 0xFF ? ORIENT_PRESERVING : primary[v];
        for (int copy = 0; copy < 2; copy++) {
            uint32_t out = copy ? dup[v] : v;
            if (copy && out == UINT32_MAX) {
                break;
            }
            uint8_t oo = copy ? (uint8_t)(o ^ ORIENT_PRESERVING) : o;
            const float *s = &sum[(size_t)weld[v] * 6 + (oo ? 3 : 0)];
            float *d = &tan[(size_t)out * 4];
            float l = len3(s);
            if (isfinite(l) && l > 1e-20f) {
                d[0] = s[0] / l;
                d[1] = s[1] / l;
                d[2] = s[2] / l;
            } else {
                any_perpendicular(&p->normals[(size_t)v * 3], d);
            }
            d[3] = oo ? 1.0f : -1.0f;
        }
    }
    for (uint32_t c = 0; c < m; c++) {
        uint32_t v = p->indices[c];
        if (orient[c] != primary[v]) {
            p->indices[c] = dup[v];
        }
    }
    rill_free(p->tangents);
    p->tangents = tan;
    tan = NULL;
    ok = true;
done:
    rill_free(weld);
    rill_free(sum);
    rill_free(orient);
    rill_free(primary);
    rill_free(dup);
    rill_free(tan);
    return ok;
}

/* No UVs: no tangent direction is defined, so any frame perpendicular to the normal serves. */
static bool perpendicular_all(rill_gltf_primitive *p) {
    float *tan = rill__gltf_alloc_raw((size_t)p->vertex_count * 4, sizeof(float));
    if (!tan) {
        return false;
    }
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        any_perpendicular(&p->normals[(size_t)v * 3], &tan[(size_t)v * 4]);
        tan[(size_t)v * 4 + 3] = 1.0f;
    }
    rill_free(p->tangents);
    p->tangents = tan;
    return true;
}

bool rill__gltf_primitive_fix_tangents(rill_gltf_primitive *prim, bool generate_missing) {
    uint32_t n = prim->vertex_count;
    if (n == 0) {
        return true;
    }
    if (prim->tangents) {
        bool all_usable = true;
        for (uint32_t v = 0; v < n && all_usable; v++) {
            const float *t = &prim->tangents[(size_t)v * 4];
            all_usable = usable3(t) && isfinite(t[3]);
        }
        if (!all_usable && generate_missing) {
            /* A file whose tangents are partly broken gets a fresh, consistent set. */
            rill_free(prim->tangents);
            prim->tangents = NULL;
        } else {
            for (uint32_t v = 0; v < n; v++) {
                float *d = &prim->tangents[(size_t)v * 4];
                const float *nv = &prim->normals[(size_t)v * 3];
                float l = len3(d);
                float c[3];
                cross3(nv, d, c);
                if (!isfinite(l) || l < 1e-12f || !(len3(c) > 1e-4f * l)) {
                    /* Missing, or parallel to the normal (a file's tangent along its normal
                     * spans no frame): any perpendicular direction shades the same. */
                    any_perpendicular(nv, d);
                } else if (fabsf(l - 1.0f) > 1e-5f) {
                    /* Only visibly non-unit vectors are rescaled, so a re-read file keeps its
                     * tangents bit for bit. */
                    d[0] /= l;
                    d[1] /= l;
                    d[2] /= l;
                }
                d[3] = d[3] < 0.0f ? -1.0f : 1.0f;
            }
            return true;
        }
    }
    if (!generate_missing) {
        return true;
    }
    return prim->uv0 ? generate(prim) : perpendicular_all(prim);
}
