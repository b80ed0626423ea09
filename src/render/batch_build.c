/* batch_build.c: building a cell: its collected members sorted by key, part and LOD level, their
 * primitives moved into cell space and merged into one mesh per key (split by vertex count). */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH_VERTICES (1u << 20)
#define BATCH_ID_BIT (UINT64_C(1) << 63)

/* Members sort by key (material, mask, edges), then part, then LOD level (the levels a part shows
 * now are mostly one, so its on members are mostly one run of indices), then entity. */
static int cmp_collected(const void *pa, const void *pb) {
    const collected *a = pa, *b = pb;
    if (a->material_key != b->material_key) {
        return a->material_key < b->material_key ? -1 : 1;
    }
    if (a->info.mask != b->info.mask) {
        return a->info.mask < b->info.mask ? -1 : 1;
    }
    if (a->has_edges != b->has_edges) {
        return a->has_edges ? 1 : -1;
    }
    if (a->part != b->part) {
        return a->part < b->part ? -1 : 1;
    }
    if (a->level != b->level) {
        return a->level < b->level ? -1 : 1;
    }
    return a->info.e < b->info.e ? -1 : a->info.e > b->info.e; /* deterministic */
}

static bool same_key(const collected *a, const collected *b) {
    return a->material_key == b->material_key && a->info.mask == b->info.mask &&
           a->has_edges == b->has_edges;
}

/* The sub-cell of a cell-space position: parts per axis cover the cell, the last one takes the
 * rest. */
static uint32_t part_of(const rill_render_batching *set, const float m[16], const float origin[3]) {
    uint32_t per = (uint32_t)ceilf(set->cell_size / set->part_size), p = 0;
    for (int k = 2; k >= 0; k--) {
        float f = floorf((m[12 + k] - origin[k]) / set->part_size);
        uint32_t q = f > 0.0f ? (uint32_t)f : 0u; /* NaN -> 0 */
        p = p * per + RILL_MIN(q, per - 1u);
    }
    return p;
}

/* Appends one member's primitive, moved into cell space (origin subtracted from the translation):
 * positions through the matrix, normals through its inverse transpose and tangents through its
 * 3x3, as mesh.vert does per instance, so a batch draws what its members drew. */
static bool append_member(rill__batcher *bt, const collected *k, const rill_gltf_primitive *p,
                          const float origin[3]) {
    const float *m = k->info.m;
    float a[9] = {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]}; /* columns */
    /* Inverse transpose of the 3x3 = cofactor matrix / det. */
    float cof[9] = {
        a[4] * a[8] - a[5] * a[7], a[5] * a[6] - a[3] * a[8], a[3] * a[7] - a[4] * a[6],
        a[2] * a[7] - a[1] * a[8], a[0] * a[8] - a[2] * a[6], a[1] * a[6] - a[0] * a[7],
        a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3]};
    float det = a[0] * cof[0] + a[1] * cof[1] + a[2] * cof[2];
    float id = fabsf(det) > 1e-30f ? 1.0f / det : 0.0f;
    uint32_t base = bt->vtmp.len;
    rill_vertex *v = rill_array_push_n(&bt->vtmp, p->vertex_count);
    uint32_t *ix = p->index_count ? rill_array_push_n(&bt->itmp, p->index_count) : NULL;
    if (!v || (p->index_count && !ix)) {
        return false;
    }
    float t[3] = {m[12] - origin[0], m[13] - origin[1], m[14] - origin[2]};
    for (uint32_t i = 0; i < p->vertex_count; i++) {
        const float *ps = p->positions + 3 * i;
        rill_vertex *o = &v[i];
        memset(o, 0, sizeof(*o));
        for (int r = 0; r < 3; r++) {
            o->position[r] = a[r] * ps[0] + a[3 + r] * ps[1] + a[6 + r] * ps[2] + t[r];
        }
        if (p->normals) {
            const float *n = p->normals + 3 * i;
            /* column r of the inverse transpose is cofactor column r / det: cof laid out by
             * columns of the cofactor matrix, transposed here. */
            for (int r = 0; r < 3; r++) {
                o->normal[r] =
                    (cof[3 * 0 + r] * n[0] + cof[3 * 1 + r] * n[1] + cof[3 * 2 + r] * n[2]) * id;
            }
        }
        if (p->uv0) {
            memcpy(o->uv, p->uv0 + 2 * i, sizeof(o->uv));
        }
        if (p->tangents) {
            const float *tg = p->tangents + 4 * i;
            for (int r = 0; r < 3; r++) {
                o->tangent[r] = a[r] * tg[0] + a[3 + r] * tg[1] + a[6 + r] * tg[2];
            }
            o->tangent[3] = tg[3];
        }
    }
    for (uint32_t i = 0; i < p->index_count; i++) {
        ix[i] = base + (p->indices[i] < p->vertex_count ? p->indices[i] : 0u);
    }
    /* The member's edges (keys keep members with and without edges apart), offset like its
     * triangles. */
    uint32_t *ex = p->edge_index_count ? rill_array_push_n(&bt->etmp, p->edge_index_count) : NULL;
    if (p->edge_index_count && !ex) {
        return false;
    }
    for (uint32_t i = 0; i < p->edge_index_count; i++) {
        ex[i] = base + (p->edge_indices[i] < p->vertex_count ? p->edge_indices[i] : 0u);
    }
    return true;
}

/* Grows box (min xyz, max xyz) by the vertices from `from` on. */
static void grow_box(const rill__batcher *bt, uint32_t from, float box[6]) {
    for (uint32_t i = from; i < bt->vtmp.len; i++) {
        const float *p = bt->vtmp.data[i].position;
        for (int k = 0; k < 3; k++) {
            box[k] = fminf(box[k], p[k]);
            box[3 + k] = fmaxf(box[3 + k], p[k]);
        }
    }
}

static void close_part(part *pt, const float box[6]) {
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        pt->center[k] = 0.5f * (box[k] + box[3 + k]);
        float h = 0.5f * (box[3 + k] - box[k]);
        r2 += h * h;
    }
    pt->radius = sqrtf(r2);
}

/* Appends col[a..b) to the scratch geometry as members of batch bi of c, one part per run of one
 * sub-cell. False when out of memory. */
static bool append_members(rill__batcher *bt, cell *c, uint32_t bi, const collected *col,
                           uint32_t a, uint32_t b, const float origin[3]) {
    float box[6];
    for (uint32_t i = a; i < b; i++) {
        const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &col[i].info.mm);
        member_info mi = col[i].info;
        mi.batch = bi;
        mi.first_index = bt->itmp.len;
        mi.first_edge = bt->etmp.len;
        mi.left = false;
        uint32_t v0 = bt->vtmp.len;
        if (!p || !append_member(bt, &col[i], p, origin)) {
            return false;
        }
        mi.index_count = bt->itmp.len - mi.first_index;
        mi.edge_count = bt->etmp.len - mi.first_edge;
        if (i == a || col[i].part != col[i - 1].part) {
            part *pt = rill_array_push_n(&c->parts, 1);
            if (!pt) {
                return false;
            }
            pt->first = c->members.len;
            pt->count = 0;
            box[0] = box[1] = box[2] = INFINITY;
            box[3] = box[4] = box[5] = -INFINITY;
        }
        grow_box(bt, v0, box);
        part *pt = &c->parts.data[c->parts.len - 1u];
        pt->count++;
        close_part(pt, box);
        if (!rill_array_push(&c->members, mi)) {
            return false;
        }
    }
    return true;
}

/* The members of c from `first` on are built into the current generation: records, walk cache. */
static void settle_members(rill__batcher *bt, cell *c, uint32_t first) {
    for (uint32_t i = first; i < c->members.len; i++) {
        member_info *mi = &c->members.data[i];
        member_rec *rc = rill__batch_rec_of(bt, mi->e);
        if (!rc || rc->e != mi->e) {
            mi->on = false; /* no record: it would never be skipped */
            continue;
        }
        rc->gen = c->gen;
        rc->member = i;
        c->on_count += mi->on;
        pos_entry *p = rill__batch_pos_of(bt, rc);
        if (p) {
            p->bits = P_NOTE | (mi->on ? P_DRAWN : 0u);
            p->cell = rc->cell;
        }
    }
}

/* Makes one batch of col[a..b) (same key); false when it could not (members stay instances). */
static bool make_batch(rill__batcher *bt, cell *c, const collected *col, uint32_t a, uint32_t b,
                       const float origin[3]) {
    bt->vtmp.len = 0;
    bt->itmp.len = 0;
    bt->etmp.len = 0;
    uint32_t parts0 = c->parts.len, members0 = c->members.len;
    bool ok = append_members(bt, c, c->batches.len, col, a, b, origin) && bt->itmp.len;
    rill_mesh mesh = {0};
    rill_error err = {0};
    if (ok) {
        char label[64];
        snprintf(label, sizeof(label), "batch %d,%d,%d", c->ix, c->iy, c->iz);
        rill_mesh_desc md = {.vertices = bt->vtmp.data,
                             .vertex_count = bt->vtmp.len,
                             .indices = bt->itmp.data,
                             .index_count = bt->itmp.len,
                             .label = label,
                             .edge_indices = bt->etmp.len ? bt->etmp.data : NULL,
                             .edge_index_count = bt->etmp.len};
        mesh = rill__mesh_create_merged(bt->r, &md, &err);
        if (!mesh.id) {
            RILL_LOG_WARN("render", "static batching: cell %d,%d,%d: %s (drawn unbatched)", c->ix,
                          c->iy, c->iz, err.msg);
        }
    }
    batch bb = {.mesh = mesh,
                .material = col[a].material,
                .owner = col[a].owner,
                .mask = col[a].info.mask,
                .id = BATCH_ID_BIT | bt->next_id++,
                .first_part = parts0,
                .part_count = c->parts.len - parts0,
                .ranges_dirty = true};
    if (!mesh.id || !rill_array_push(&c->batches, bb)) {
        rill_render_mesh_destroy(bt->r, mesh);
        c->parts.len = parts0; /* its members stay instances */
        c->members.len = members0;
        return false;
    }
    settle_members(bt, c, members0);
    bt->stats.batches++;
    bt->stats.batched_entities += b - a;
    return true;
}

static uint32_t prim_vertices(rill__batcher *bt, const collected *k) {
    const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &k->info.mm);
    return p ? p->vertex_count : 0u;
}

/* Fills in what the build needs of each collected member; drops those whose primitive is gone
 * (an unloaded asset). Returns how many are left. */
static uint32_t prepare_collected(rill__batcher *bt, collected *col, uint32_t n,
                                  const float origin[3]) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        collected k = col[i];
        const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &k.info.mm);
        if (!p) {
            continue;
        }
        k.level = rill__render_assets_level(bt->ra, k.info.mm.asset);
        k.has_edges = p->edge_index_count != 0;
        k.part = part_of(&bt->set, k.info.m, origin);
        if (!rill__render_assets_material_of(bt->ra, &k.info.mm, &k.material_key, &k.material,
                                             &k.owner)) {
            k.material_key = k.info.material.id; /* its own material, alone */
            k.material = k.info.material;
            k.owner = k.info.mm.asset;
        }
        col[kept++] = k;
    }
    return kept;
}

/* A cell of n members was built in ms. The mean per member learns slowly and takes an outlier (a
 * new shared block allocated, the machine busy) as at most four times the mean. */
static void count_build(rill__batcher *bt, uint32_t n, double ms) {
    double per = ms / (double)RILL_MAX(n, 1u), was = bt->ms_per_member;
    bt->ms_per_member = was > 0.0 ? 0.875 * was + 0.125 * RILL_MIN(per, 4.0 * was) : per;
    bt->stats.cells_built++;
    bt->stats.cells_built_last_frame++;
    bt->stats.build_ms_last_frame += ms;
    bt->stats.build_ms_total += ms;
    bt->stats.build_ms_max_cell = RILL_MAX(bt->stats.build_ms_max_cell, ms);
}

void rill__batch_build_cell(rill__batcher *bt, cell *c) {
    uint64_t t0 = rill_time_ns();
    float s = bt->set.cell_size;
    float origin[3] = {(float)c->ix * s, (float)c->iy * s, (float)c->iz * s};
    collected *col = c->col.data;
    uint32_t n = prepare_collected(bt, col, c->col.len, origin);
    qsort(col, n, sizeof(collected), cmp_collected);
    /* A group of one is worth a batch only when batches of a material draw together. */
    uint32_t min_group = rill__gpu_get_caps(bt->r->gpu)->multi_draw_indirect ? 1u : 2u;
    for (uint32_t a = 0; a < n;) {
        uint32_t b = a + 1;
        while (b < n && same_key(&col[a], &col[b])) {
            b++;
        }
        /* Large groups split by vertex count. */
        for (uint32_t lo = a; b - a >= min_group && lo < b;) {
            uint32_t hi = lo, verts = 0;
            while (hi < b &&
                   (hi == lo || verts + prim_vertices(bt, &col[hi]) <= MAX_BATCH_VERTICES)) {
                verts += prim_vertices(bt, &col[hi]);
                hi++;
            }
            if (hi - lo >= min_group) {
                make_batch(bt, c, col, lo, hi, origin);
            }
            lo = hi;
        }
        a = b;
    }
    c->col.len = 0;
    c->state = CELL_CLEAN;
    c->built_frame = bt->frame;
    count_build(bt, n, (double)(rill_time_ns() - t0) * 1e-6);
}
