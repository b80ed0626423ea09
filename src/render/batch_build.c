/* batch_build.c: building a cell: its collected members sorted by key, part and LOD level, their
 * primitives moved into cell space and merged into one mesh per key (split by vertex count). A
 * build goes member by member within the frame's time budget and carries on in the next frames
 * where it stopped (build_at); the cell's old batches draw until it is installed (batch_install.c),
 * so one large cell never takes a frame, and nothing is drawn twice or not at all meanwhile. */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch's vertices at most: a key with more is cut into several meshes. It bounds the one step of
 * a build that cannot be cut (the mesh copied into its block): 64 k vertices are 3 MiB. */
#define MAX_BATCH_VERTICES (1u << 16)
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

static void cell_origin(const rill__batcher *bt, const cell *c, float origin[3]) {
    float s = bt->set.cell_size;
    origin[0] = (float)c->ix * s;
    origin[1] = (float)c->iy * s;
    origin[2] = (float)c->iz * s;
}

/* Appends the next member of the open chunk to the scratch geometry, as a member of the batch the
 * chunk makes (a new part when its sub-cell differs from the last one's). A member whose primitive
 * is gone (its asset unloaded since) is left out. False when out of memory. */
static bool append_next(rill__batcher *bt, cell *c, const float origin[3]) {
    build_at *at = &c->at;
    const collected *k = &c->col.data[at->next++];
    const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &k->info.mm);
    if (!p) {
        return true;
    }
    member_info mi = k->info;
    mi.batch = c->next.batches.len;
    mi.first_index = bt->itmp.len;
    mi.first_edge = bt->etmp.len;
    mi.left = false;
    uint32_t v0 = bt->vtmp.len;
    if (!append_member(bt, k, p, origin)) {
        return false;
    }
    mi.index_count = bt->itmp.len - mi.first_index;
    mi.edge_count = bt->etmp.len - mi.first_edge;
    if (c->next.members.len == at->members0 || k->part != at->part) {
        part *pt = rill_array_push_n(&c->next.parts, 1);
        if (!pt) {
            return false;
        }
        pt->first = c->next.members.len;
        pt->count = 0;
        at->part = k->part;
        at->box[0] = at->box[1] = at->box[2] = INFINITY;
        at->box[3] = at->box[4] = at->box[5] = -INFINITY;
    }
    grow_box(bt, v0, at->box);
    part *pt = &c->next.parts.data[c->next.parts.len - 1u];
    pt->count++;
    close_part(pt, at->box);
    return rill_array_push(&c->next.members, mi);
}

/* The open chunk becomes one batch of c's next geometry: its mesh made from the scratch geometry.
 * When that fails (or a member could not be appended) its members are left out of the build (they
 * draw alone as candidates that are not members). */
static void close_chunk(rill__batcher *bt, cell *c) {
    build_at *at = &c->at;
    const collected *first = &c->col.data[at->chunk_first];
    rill_mesh mesh = {0};
    rill_error err = {0};
    at->chunk_open = false;
    if (!at->chunk_failed && bt->itmp.len) {
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
                .material = first->material,
                .owner = first->owner,
                .mask = first->info.mask,
                .id = BATCH_ID_BIT | bt->next_id++,
                .first_part = at->parts0,
                .part_count = c->next.parts.len - at->parts0,
                .ranges_dirty = true};
    if (!mesh.id || !rill_array_push(&c->next.batches, bb)) {
        rill_render_mesh_destroy(bt->r, mesh);
        c->next.parts.len = at->parts0;
        c->next.members.len = at->members0;
    }
}

static uint32_t prim_vertices(rill__batcher *bt, const collected *k) {
    const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &k->info.mm);
    return p ? p->vertex_count : 0u;
}

/* Opens the next chunk of c's build: the members from at->next on of one key, up to
 * MAX_BATCH_VERTICES. A key of fewer than min_group members (or the single-member rest of a
 * split key) is skipped: its members stay instances. False when nothing is left. */
static bool open_chunk(rill__batcher *bt, cell *c, uint32_t min_group) {
    build_at *at = &c->at;
    const collected *col = c->col.data;
    uint32_t n = c->col.len;
    while (at->next < n) {
        if (at->next >= at->run_end) {
            uint32_t b = at->next + 1u;
            while (b < n && same_key(&col[at->next], &col[b])) {
                b++;
            }
            at->run_end = b;
            if (b - at->next < min_group) {
                at->next = b;
                continue;
            }
        }
        uint32_t lo = at->next, hi = lo, verts = 0;
        while (hi < at->run_end &&
               (hi == lo || verts + prim_vertices(bt, &col[hi]) <= MAX_BATCH_VERTICES)) {
            verts += prim_vertices(bt, &col[hi]);
            hi++;
        }
        if (hi - lo < min_group) {
            at->next = hi;
            continue;
        }
        at->chunk_first = lo;
        at->chunk_end = hi;
        at->parts0 = c->next.parts.len;
        at->members0 = c->next.members.len;
        at->chunk_open = true;
        at->chunk_failed = false;
        bt->vtmp.len = 0;
        bt->itmp.len = 0;
        bt->etmp.len = 0;
        return true;
    }
    return false;
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

void rill__batch_start_build(rill__batcher *bt, uint32_t ci) {
    uint64_t t0 = rill_time_ns();
    cell *c = &bt->cells.data[ci];
    float origin[3];
    cell_origin(bt, c, origin);
    c->col.len = prepare_collected(bt, c->col.data, c->col.len, origin);
    qsort(c->col.data, c->col.len, sizeof(collected), cmp_collected);
    memset(&c->at, 0, sizeof(c->at));
    if (!rill_array_push(&bt->building, ci)) {
        c->col.len = 0; /* out of memory: built when queued again */
        c->state = CELL_CLEAN;
        return;
    }
    c->state = CELL_BUILDING;
    c->at.ms = (double)(rill_time_ns() - t0) * 1e-6;
    bt->stats.build_ms_last_frame += c->at.ms;
}

/* One step of c's build: opens a chunk, appends one member (*appended counts them) or closes a
 * chunk into a batch. True when c has nothing left to build. */
static bool build_step(rill__batcher *bt, cell *c, uint32_t min_group, uint32_t *appended) {
    build_at *at = &c->at;
    if (!at->chunk_open && !open_chunk(bt, c, min_group)) {
        return true;
    }
    if (at->next < at->chunk_end) {
        float origin[3];
        cell_origin(bt, c, origin);
        if (at->chunk_failed) {
            at->next++; /* out of memory: the chunk's members stay instances */
        } else if (!append_next(bt, c, origin)) {
            at->chunk_failed = true;
        }
        (*appended)++;
        return false;
    }
    close_chunk(bt, c);
    return at->next >= c->col.len;
}

/* c's build is done: it waits for its meshes' uploads (batch_install.c). */
static void finish_build(rill__batcher *bt, uint32_t ci) {
    cell *c = &bt->cells.data[ci];
    c->at.collected = c->col.len;
    rill_array_free(&c->col); /* a cell collects again only when it is rebuilt */
    c->state = CELL_BUILT;
    if (!rill_array_push(&bt->built, ci)) {
        rill__batch_drop_next(bt, c); /* out of memory: its old batches stay */
        c->state = CELL_CLEAN;
    }
}

void rill__batch_build(rill__batcher *bt) {
    uint64_t t0 = rill_time_ns(), limit = (uint64_t)((double)bt->set.build_ms * 1e6);
    /* A group of one is worth a batch only when batches of a material draw together. */
    uint32_t min_group = rill__gpu_get_caps(bt->r->gpu)->multi_draw_indirect ? 1u : 2u;
    uint32_t appended = 0;
    uint64_t now = t0;
    while (bt->build_head < bt->building.len && (!appended || now - t0 < limit)) {
        uint32_t ci = bt->building.data[bt->build_head];
        cell *c = &bt->cells.data[ci];
        uint64_t from = now;
        bool done = false;
        while (!done && (!appended || now - t0 < limit)) {
            done = build_step(bt, c, min_group, &appended);
            now = rill_time_ns();
        }
        c->at.ms += (double)(now - from) * 1e-6;
        if (done) {
            bt->build_head++;
            finish_build(bt, ci);
        }
    }
    bt->stats.build_ms_last_frame += (double)(now - t0) * 1e-6;
    if (bt->build_head == bt->building.len) { /* nothing building: the scratch goes back */
        bt->building.len = 0;
        bt->build_head = 0;
        rill_array_trim(&bt->building, 0, 16); /* halving a frame, so a busy spell never churns */
        rill_array_trim(&bt->vtmp, 0, 0);
        rill_array_trim(&bt->itmp, 0, 0);
        rill_array_trim(&bt->etmp, 0, 0);
    }
}
