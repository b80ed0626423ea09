/* batch_merge.c: a cell's batch geometry merged on the CPU: members laid out end to end, then
 * moved into cell space over the jobs in slices (batch_merge.h says how and why the bytes are the
 * serial loop's). */
#include "batch_merge.h"

#include <math.h>
#include <string.h>

void rill__merge_clear(rill__merge *mg) {
    mg->meshes.len = 0;
    mg->members.len = 0;
    mg->pieces.len = 0;
    mg->slices.len = 0;
    mg->vertices.len = 0;
    mg->indices.len = 0;
    mg->edges.len = 0;
    mg->vertex_total = mg->index_total = mg->edge_total = 0;
}

void rill__merge_free(rill__merge *mg) {
    rill_array_free(&mg->meshes);
    rill_array_free(&mg->members);
    rill_array_free(&mg->pieces);
    rill_array_free(&mg->slices);
    rill_array_free(&mg->vertices);
    rill_array_free(&mg->indices);
    rill_array_free(&mg->edges);
    rill__merge_clear(mg);
}

/* >>layout ------------------------------------------------------------------------------------ */

bool rill__merge_mesh_begin(rill__merge *mg, uint32_t tag) {
    rill__merge_mesh mm = {.tag = tag,
                           .first_member = mg->members.len,
                           .first_vertex = mg->vertex_total,
                           .first_index = mg->index_total,
                           .first_edge = mg->edge_total};
    return rill_array_push(&mg->meshes, mm);
}

bool rill__merge_add(rill__merge *mg, const rill_gltf_primitive *p, const float *m) {
    RILL_ASSERT(mg->meshes.len > 0);
    rill__merge_mesh *mm = &mg->meshes.data[mg->meshes.len - 1u];
    if ((uint64_t)mg->vertex_total + p->vertex_count > UINT32_MAX ||
        (uint64_t)mg->index_total + p->index_count > UINT32_MAX ||
        (uint64_t)mg->edge_total + p->edge_index_count > UINT32_MAX) {
        return false;
    }
    rill__merge_member mb = {.prim = p,
                             .m = m,
                             .first_vertex = mg->vertex_total,
                             .base = mm->vertex_count,
                             .first_index = mg->index_total,
                             .first_edge = mg->edge_total,
                             .mesh = mg->meshes.len - 1u};
    if (!rill_array_push(&mg->members, mb)) {
        return false;
    }
    mm->member_count++;
    mm->vertex_count += p->vertex_count;
    mm->index_count += p->index_count;
    mm->edge_count += p->edge_index_count;
    mg->vertex_total += p->vertex_count;
    mg->index_total += p->index_count;
    mg->edge_total += p->edge_index_count;
    return true;
}

/* Cuts every member into pieces of at most RILL__MERGE_SLICE_VERTICES vertices, and the pieces
 * into slices of about that many (small members share one). False when out of memory. */
static bool cut_slices(rill__merge *mg) {
    const uint32_t per = RILL__MERGE_SLICE_VERTICES;
    uint32_t in_slice = 0;
    for (uint32_t i = 0; i < mg->members.len; i++) {
        uint32_t n = mg->members.data[i].prim->vertex_count;
        for (uint32_t v0 = 0; v0 == 0 || v0 < n; v0 += per) {
            rill__merge_piece pc = {.member = i, .v0 = v0, .v1 = n - v0 > per ? v0 + per : n};
            if ((in_slice == 0 && !rill_array_push(&mg->slices, mg->pieces.len)) ||
                !rill_array_push(&mg->pieces, pc)) {
                return false;
            }
            in_slice += pc.v1 - pc.v0 + 16u; /* a piece costs a little on its own */
            in_slice = in_slice >= per ? 0u : in_slice;
            if (n - v0 <= per) {
                break; /* v0 + per would wrap for a primitive near 2^32 vertices */
            }
        }
    }
    return rill_array_push(&mg->slices, mg->pieces.len);
}

/* >>the per-vertex work ----------------------------------------------------------------------- */

/* A member's placement: the 3x3 by columns, its inverse transpose as cofactors over the
 * determinant, its translation less the cell origin, and whether it mirrors (a negative
 * determinant: the batch draws it unmirrored, so its triangles turn and its tangents' w flips). */
typedef struct placement {
    float a[9], cof[9], inv_det, t[3];
    bool mirrored;
} placement;

static void placement_of(const float *m, const float origin[3], placement *pl) {
    const float a[9] = {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]};
    const float cof[9] = {
        a[4] * a[8] - a[5] * a[7], a[5] * a[6] - a[3] * a[8], a[3] * a[7] - a[4] * a[6],
        a[2] * a[7] - a[1] * a[8], a[0] * a[8] - a[2] * a[6], a[1] * a[6] - a[0] * a[7],
        a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3]};
    float det = a[0] * cof[0] + a[1] * cof[1] + a[2] * cof[2];
    memcpy(pl->a, a, sizeof(a));
    memcpy(pl->cof, cof, sizeof(cof));
    pl->inv_det = fabsf(det) > 1e-30f ? 1.0f / det : 0.0f;
    pl->mirrored = det < 0.0f;
    for (int r = 0; r < 3; r++) {
        pl->t[r] = m[12 + r] - origin[r];
    }
}

/* Vertex i of p, placed, into *o. */
static void place_vertex(const placement *pl, const rill_gltf_primitive *p, uint32_t i,
                         rill_vertex *o) {
    const float *a = pl->a, *cof = pl->cof, *ps = p->positions + 3 * (size_t)i;
    memset(o, 0, sizeof(*o));
    for (int r = 0; r < 3; r++) {
        o->position[r] = a[r] * ps[0] + a[3 + r] * ps[1] + a[6 + r] * ps[2] + pl->t[r];
    }
    if (p->normals) {
        const float *n = p->normals + 3 * (size_t)i;
        /* Column r of the inverse transpose is cofactor column r / det: cof is laid out by
         * columns of the cofactor matrix, transposed here. */
        for (int r = 0; r < 3; r++) {
            o->normal[r] = (cof[r] * n[0] + cof[3 + r] * n[1] + cof[6 + r] * n[2]) * pl->inv_det;
        }
    }
    if (p->uv0) {
        memcpy(o->uv, p->uv0 + 2 * (size_t)i, sizeof(o->uv));
    }
    if (p->tangents) {
        const float *tg = p->tangents + 4 * (size_t)i;
        for (int r = 0; r < 3; r++) {
            o->tangent[r] = a[r] * tg[0] + a[3 + r] * tg[1] + a[6 + r] * tg[2];
        }
        o->tangent[3] = pl->mirrored ? -tg[3] : tg[3]; /* as mesh.vert does per instance */
    }
}

/* The first of `total` indices that belong with vertex v of n, in whole primitives of `unit`
 * indices (a triangle stays in one piece): proportional, 0 at 0, all at n. */
static uint32_t share_of(uint32_t total, uint32_t unit, uint32_t v, uint32_t n, bool end) {
    if (end && v == n) {
        return total;
    }
    return v == 0 ? 0u : (uint32_t)((uint64_t)(total / unit) * v / n) * unit;
}

/* src[0..count) offset by base into dst (an index past the primitive's n vertices reads 0). */
static void offset_indices(const uint32_t *src, uint32_t count, uint32_t n, uint32_t base,
                           uint32_t *dst) {
    for (uint32_t i = 0; i < count; i++) {
        dst[i] = base + (src[i] < n ? src[i] : 0u);
    }
}

/* A mirrored member's triangles, turned ((a, b, c) -> (a, c, b)) so they face out again once the
 * batch draws them unmirrored; a trailing partial triangle stays. count from a triangle's start. */
static void turn_triangles(uint32_t *dst, uint32_t count) {
    for (uint32_t i = 0; i + 3u <= count; i += 3u) {
        uint32_t b = dst[i + 1u];
        dst[i + 1u] = dst[i + 2u];
        dst[i + 2u] = b;
    }
}

/* Grows box by point q: fminf/fmaxf, as rill__merge_box_grow folds boxes, so a box folded from
 * pieces is the one grown vertex by vertex. */
static void grow_point(float box[6], const float q[3]) {
    for (int k = 0; k < 3; k++) {
        box[k] = fminf(box[k], q[k]);
        box[3 + k] = fmaxf(box[3 + k], q[k]);
    }
}

/* Writes piece pc: its vertices (growing its box), its share of its member's indices and edges. */
static void write_piece(const rill__merge *mg, rill__merge_piece *pc) {
    const rill__merge_member *mb = &mg->members.data[pc->member];
    const rill_gltf_primitive *p = mb->prim;
    placement pl;
    placement_of(mb->m, mg->origin, &pl);
    float *box = pc->box;
    box[0] = box[1] = box[2] = INFINITY;
    box[3] = box[4] = box[5] = -INFINITY;
    rill_vertex *out = mg->vertices.data + mb->first_vertex;
    for (uint32_t i = pc->v0; i < pc->v1; i++) {
        place_vertex(&pl, p, i, &out[i]);
        grow_point(box, out[i].position);
    }
    uint32_t n = p->vertex_count;
    uint32_t i0 = share_of(p->index_count, 3u, pc->v0, n, false);
    uint32_t i1 = share_of(p->index_count, 3u, pc->v1, n, true);
    if (i1 > i0) {
        uint32_t *dst = mg->indices.data + mb->first_index + i0;
        offset_indices(p->indices + i0, i1 - i0, n, mb->base, dst);
        if (pl.mirrored) {
            turn_triangles(dst, i1 - i0);
        }
    }
    uint32_t e0 = share_of(p->edge_index_count, 2u, pc->v0, n, false);
    uint32_t e1 = share_of(p->edge_index_count, 2u, pc->v1, n, true);
    if (e1 > e0) {
        offset_indices(p->edge_indices + e0, e1 - e0, n, mb->base,
                       mg->edges.data + mb->first_edge + e0);
    }
}

/* rill_job_range_fn over slices: each writes its own pieces. */
static void write_slices(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    rill__merge *mg = arg;
    for (uint32_t s = begin; s < end; s++) {
        for (uint32_t k = mg->slices.data[s]; k < mg->slices.data[s + 1u]; k++) {
            write_piece(mg, &mg->pieces.data[k]);
        }
    }
}

void rill__merge_box_grow(float box[6], const float by[6]) {
    for (int k = 0; k < 3; k++) {
        box[k] = fminf(box[k], by[k]);
        box[3 + k] = fmaxf(box[3 + k], by[3 + k]);
    }
}

/* Each member's box: its pieces' folded in order (pieces are in member order); each mesh's box:
 * its members', and its centre. */
static void fold_boxes(rill__merge *mg) {
    for (uint32_t k = 0; k < mg->pieces.len; k++) {
        const rill__merge_piece *pc = &mg->pieces.data[k];
        float *box = mg->members.data[pc->member].box;
        if (pc->v0 == 0) {
            memcpy(box, pc->box, sizeof(pc->box));
        } else {
            rill__merge_box_grow(box, pc->box);
        }
    }
    for (uint32_t k = 0; k < mg->meshes.len; k++) {
        rill__merge_mesh *mm = &mg->meshes.data[k];
        float *box = mm->box;
        box[0] = box[1] = box[2] = INFINITY;
        box[3] = box[4] = box[5] = -INFINITY;
        for (uint32_t i = mm->first_member; i < mm->first_member + mm->member_count; i++) {
            rill__merge_box_grow(box, mg->members.data[i].box);
        }
        for (int c = 0; c < 3; c++) {
            mm->center[c] = 0.5f * (box[c] + box[3 + c]);
        }
    }
}

/* rill_job_range_fn over slices: each piece's largest squared distance from its mesh's centre. */
static void measure_slices(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    rill__merge *mg = arg;
    for (uint32_t s = begin; s < end; s++) {
        for (uint32_t k = mg->slices.data[s]; k < mg->slices.data[s + 1u]; k++) {
            rill__merge_piece *pc = &mg->pieces.data[k];
            const rill__merge_member *mb = &mg->members.data[pc->member];
            const float *c = mg->meshes.data[mb->mesh].center;
            const rill_vertex *v = mg->vertices.data + mb->first_vertex;
            float r2 = 0.0f;
            for (uint32_t i = pc->v0; i < pc->v1; i++) {
                float d2 = 0.0f;
                for (int k3 = 0; k3 < 3; k3++) {
                    float d = v[i].position[k3] - c[k3];
                    d2 += d * d;
                }
                r2 = fmaxf(r2, d2);
            }
            pc->r2 = r2;
        }
    }
}

/* Each mesh's radius: its pieces' squared distances folded in order. */
static void fold_radii(rill__merge *mg) {
    for (uint32_t k = 0; k < mg->meshes.len; k++) {
        mg->meshes.data[k].radius = 0.0f;
    }
    for (uint32_t k = 0; k < mg->pieces.len; k++) {
        const rill__merge_piece *pc = &mg->pieces.data[k];
        rill__merge_mesh *mm = &mg->meshes.data[mg->members.data[pc->member].mesh];
        mm->radius = fmaxf(mm->radius, pc->r2); /* squared until the end */
    }
    for (uint32_t k = 0; k < mg->meshes.len; k++) {
        mg->meshes.data[k].radius = sqrtf(mg->meshes.data[k].radius);
    }
}

bool rill__merge_run(rill__merge *mg, rill_jobs *jobs, const float origin[3]) {
    mg->pieces.len = 0;
    mg->slices.len = 0;
    if (!rill_array_reserve(&mg->vertices, mg->vertex_total) ||
        !rill_array_reserve(&mg->indices, mg->index_total) ||
        !rill_array_reserve(&mg->edges, mg->edge_total) || !cut_slices(mg)) {
        return false;
    }
    mg->vertices.len = mg->vertex_total;
    mg->indices.len = mg->index_total;
    mg->edges.len = mg->edge_total;
    memcpy(mg->origin, origin, sizeof(mg->origin));
    /* One slice a chunk: slices are already about equal work. */
    rill_jobs_for(jobs, mg->slices.len - 1u, 1, write_slices, mg);
    fold_boxes(mg);
    rill_jobs_for(jobs, mg->slices.len - 1u, 1, measure_slices, mg);
    fold_radii(mg);
    return true;
}
