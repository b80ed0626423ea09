/* batch_build.c: building a cell, step by step over frames: its collected members sorted once by
 * key, part and LOD level; then, a step at a time, groups of one key (cut by vertex count) read
 * again (batch_check.c), laid out, their primitives moved into cell space over the jobs
 * (batch_merge.c), and one merged mesh per group with its members' ranges and parts. */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_ID_BIT (UINT64_C(1) << 63)
/* A step's merge smaller than this runs on extract's thread (the same bytes): about 0.2 ms of
 * work on the loaded 2-core dev machine, where handing its few slices to a worker gained at most
 * half of that but, in the demo fly-through, now and then waited 2-5 ms for the worker (or the
 * waiting thread) to be scheduled again. */
#define JOBS_MIN_VERTICES 4096u

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

static void close_part(part *pt, const float box[6]) {
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        pt->center[k] = 0.5f * (box[k] + box[3 + k]);
        float h = 0.5f * (box[3 + k] - box[k]);
        r2 += h * h;
    }
    pt->radius = sqrtf(r2);
}

/* A build of one cell: its collected members (sorted), where their geometry is merged. */
typedef struct cell_build {
    rill__batcher *bt;
    cell *c;
    uint32_t ci;
    collected *col;
    float origin[3];
    rill_jobs *jobs;
    bool laid_out; /* every member of the merge's meshes found room in its layout */
} cell_build;

/* The members of merged mesh mm join c as members of batch bi, one part per run of one sub-cell
 * (its bounds: its members' boxes folded in order, as its vertices grow it), each member's range
 * within the mesh. False when out of memory. */
static bool add_members(cell_build *cb, uint32_t bi, const rill__merge_mesh *mm) {
    cell *c = cb->c;
    float box[6];
    for (uint32_t k = 0; k < mm->member_count; k++) {
        const collected *cl = &cb->col[mm->tag + k];
        const rill__merge_member *mb = &cb->bt->merge.members.data[mm->first_member + k];
        member_info mi = cl->info;
        mi.batch = bi;
        mi.first_index = mb->first_index - mm->first_index;
        mi.index_count = mb->prim->index_count;
        mi.first_edge = mb->first_edge - mm->first_edge;
        mi.edge_count = mb->prim->edge_index_count;
        mi.left = false;
        if (k == 0 || cl->part != cl[-1].part) {
            part *pt = rill_array_push_n(&c->parts, 1);
            if (!pt) {
                return false;
            }
            pt->first = c->members.len;
            pt->count = 0;
            box[0] = box[1] = box[2] = INFINITY;
            box[3] = box[4] = box[5] = -INFINITY;
        }
        rill__merge_box_grow(box, mb->box);
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

/* The merged mesh of a batch, from its share of the merge's scratch (0 when it could not). */
static rill_mesh merged_mesh(cell_build *cb, const rill__merge_mesh *mm) {
    const rill__merge *mg = &cb->bt->merge;
    const cell *c = cb->c;
    char label[64];
    snprintf(label, sizeof(label), "batch %d,%d,%d", c->ix, c->iy, c->iz);
    rill_mesh_desc md = {.vertices = mg->vertices.data + mm->first_vertex,
                         .vertex_count = mm->vertex_count,
                         .indices = mg->indices.data + mm->first_index,
                         .index_count = mm->index_count,
                         .label = label,
                         .edge_indices = mm->edge_count ? mg->edges.data + mm->first_edge : NULL,
                         .edge_index_count = mm->edge_count};
    rill__mesh_bounds bounds;
    memcpy(bounds.box_min, mm->box, sizeof(bounds.box_min));
    memcpy(bounds.box_max, mm->box + 3, sizeof(bounds.box_max));
    memcpy(bounds.center, mm->center, sizeof(bounds.center));
    bounds.radius = mm->radius;
    rill_error err = {0};
    rill_mesh mesh = rill__mesh_create_merged(cb->bt->r, &md, &bounds, &err);
    if (!mesh.id) {
        RILL_LOG_WARN("render", "static batching: cell %d,%d,%d: %s (drawn unbatched)", c->ix,
                      c->iy, c->iz, err.msg);
    }
    return mesh;
}

static int cmp_vox_part(const void *pa, const void *pb) {
    const rill__vox_part *a = pa, *b = pb;
    return (a->first_index > b->first_index) - (a->first_index < b->first_index);
}

/* The voxel GI's view of batch mesh `mesh` (its members from members0 on): each member's own mesh
 * placed in cell space, by first index. Out of memory: the batch has no voxels. */
static void keep_vox_parts(cell_build *cb, rill_mesh mesh, uint32_t members0) {
    const cell *c = cb->c;
    uint32_t n = c->members.len - members0;
    rill__vox_part *parts = rill_malloc_tagged((size_t)n * sizeof(*parts) + 1u, RILL_MEM_RENDER);
    if (!parts) {
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        const member_info *mi = &c->members.data[members0 + k];
        parts[k].first_index = mi->first_index;
        parts[k].index_count = mi->index_count;
        parts[k].mesh = mi->mesh;
        memcpy(parts[k].local, mi->m, sizeof(parts[k].local));
        for (int j = 0; j < 3; j++) {
            parts[k].local[12 + j] -= cb->origin[j];
        }
    }
    qsort(parts, n, sizeof(*parts), cmp_vox_part);
    (void)rill__mesh_keep_vox_parts(cb->bt->r, mesh, parts, n);
    rill_free(parts);
}

/* Makes one batch of merged mesh mm (members of one key); false when it could not (its members
 * stay instances). */
static bool make_batch(cell_build *cb, const rill__merge_mesh *mm) {
    rill__batcher *bt = cb->bt;
    cell *c = cb->c;
    const collected *first = &cb->col[mm->tag];
    uint32_t parts0 = c->parts.len, members0 = c->members.len;
    bool ok = mm->index_count && add_members(cb, c->batches.len, mm);
    rill_mesh mesh = ok ? merged_mesh(cb, mm) : (rill_mesh){0};
    batch bb = {.mesh = mesh,
                .material = first->material,
                .owner = first->owner,
                .mask = first->info.mask,
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
    keep_vox_parts(cb, mesh, members0);
    settle_members(bt, c, members0);
    bt->stats.batches++;
    bt->stats.batched_entities += mm->member_count;
    return true;
}

/* The meshes laid out so far: their geometry written over the jobs, then one batch each, in
 * order; the merge is empty again. */
static void merge_meshes(cell_build *cb) {
    rill__merge *mg = &cb->bt->merge;
    rill_jobs *jobs = mg->vertex_total >= JOBS_MIN_VERTICES ? cb->jobs : NULL;
    if (cb->laid_out && rill__merge_run(mg, jobs, cb->origin)) {
        for (uint32_t k = 0; k < mg->meshes.len; k++) {
            make_batch(cb, &mg->meshes.data[k]);
        }
    }
    rill__merge_clear(mg);
    cb->laid_out = true;
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
        k.prim = p;
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

/* A cell of n members was built in ms (its steps' time, over frames). The mean per member learns
 * slowly and takes an outlier (a new shared block allocated, the machine busy) as at most four
 * times the mean. ms is wall time, what extract waited with the geometry spread over the jobs, so
 * the budget admits more cells a frame where workers take part, and fewer where they are busy
 * elsewhere. */
static void count_build(rill__batcher *bt, uint32_t n, double ms) {
    double per = ms / (double)RILL_MAX(n, 1u), was = bt->ms_per_member;
    bt->ms_per_member = was > 0.0 ? 0.875 * was + 0.125 * RILL_MIN(per, 4.0 * was) : per;
    bt->stats.cells_built++;
    bt->stats.cells_built_last_frame++;
    bt->stats.build_ms_max_cell = RILL_MAX(bt->stats.build_ms_max_cell, ms);
}

static float cell_origin(const rill__batcher *bt, const cell *c, int k) {
    int32_t i = k == 0 ? c->ix : k == 1 ? c->iy : c->iz;
    return (float)i * bt->set.cell_size;
}

/* The next group of one key from col[at]: its members read again (the changed ones dropped, the
 * others moved down to follow col[at]), as many as fit in mesh_vertices (at least one), laid out
 * as one mesh when it has min_group members. Returns where the next group starts. */
static uint32_t lay_out_group(cell_build *cb, uint32_t at, uint32_t min_group) {
    collected *col = cb->col;
    const collected key = col[at];
    uint32_t n = cb->c->col.len, cut = cb->bt->set.mesh_vertices, kept = 0, verts = 0, j = at;
    for (; j < n && same_key(&key, &col[j]); j++) {
        if (!rill__batch_check(cb->bt, cb->ci, &col[j])) {
            continue;
        }
        uint32_t v = col[j].prim->vertex_count;
        if (kept && verts + v > cut) {
            break; /* (read again by the next group's step) */
        }
        if (at + kept != j) {
            col[at + kept] = col[j];
        }
        kept++;
        verts += v;
    }
    rill__merge *mg = &cb->bt->merge;
    bool ok = kept >= min_group && cb->laid_out && rill__merge_mesh_begin(mg, at);
    for (uint32_t i = at; ok && i < at + kept; i++) {
        ok = rill__merge_add(mg, col[i].prim, col[i].info.m);
    }
    /* out of memory: the groups of this step stay instances */
    cb->laid_out = cb->laid_out && (ok || kept < min_group);
    return j;
}

/* One step of building cell ci: groups from its cursor until the merge holds half of
 * mesh_vertices (several small groups share one run over the jobs, so the job hand-off is paid
 * once for them), merged and made batches. Returns the meshes made. */
static uint32_t build_step(rill__batcher *bt, uint32_t ci, rill_jobs *jobs, uint32_t min_group) {
    cell *c = &bt->cells.data[ci];
    cell_build cb = {bt,
                     c,
                     ci,
                     c->col.data,
                     {cell_origin(bt, c, 0), cell_origin(bt, c, 1), cell_origin(bt, c, 2)},
                     jobs,
                     true};
    rill__merge_clear(&bt->merge);
    uint32_t at = c->built_to, before = c->batches.len;
    while (at < c->col.len &&
           (at == c->built_to || bt->merge.vertex_total < bt->set.mesh_vertices / 2u)) {
        at = lay_out_group(&cb, at, min_group); /* (the first always: each step moves on) */
    }
    c->built_to = at;
    merge_meshes(&cb);
    return c->batches.len - before;
}

/* Building cell ci is complete: clean, its batches draw once uploaded (from the next frame), and
 * it is queued again when a member changed meanwhile. */
static void finish_build(rill__batcher *bt, uint32_t ci) {
    cell *c = &bt->cells.data[ci];
    uint32_t n = c->col.len;
    c->col.len = 0;
    c->state = CELL_CLEAN;
    c->built_frame = bt->frame;
    count_build(bt, n, c->build_ms);
    if (c->redo) {
        c->redo = false;
        rill__batch_mark_dirty(bt, ci);
    }
}

double rill__batch_start_build(rill__batcher *bt, uint32_t ci) {
    uint64_t t0 = rill_time_ns();
    cell *c = &bt->cells.data[ci];
    float origin[3] = {cell_origin(bt, c, 0), cell_origin(bt, c, 1), cell_origin(bt, c, 2)};
    c->col.len = prepare_collected(bt, c->col.data, c->col.len, origin);
    qsort(c->col.data, c->col.len, sizeof(collected), cmp_collected);
    c->built_to = 0;
    c->redo = false;
    c->state = CELL_BUILDING;
    c->build_ms = (double)(rill_time_ns() - t0) * 1e-6;
    if (!rill_array_push(&bt->building, ci)) {
        c->col.len = 0; /* out of memory: complete and empty, queued again */
        c->redo = true;
        finish_build(bt, ci);
    }
    return c->build_ms;
}

void rill__batch_build_some(rill__batcher *bt, rill_jobs *jobs, double spent_ms) {
    /* A group of one is worth a batch only when batches of a material draw together. */
    uint32_t min_group = rill__gpu_get_caps(bt->r->gpu)->multi_draw_indirect ? 1u : 2u;
    uint32_t meshes = 0, done = 0;
    uint64_t t0 = rill_time_ns();
    while (done < bt->building.len) {
        uint32_t ci = bt->building.data[done];
        cell *c = &bt->cells.data[ci];
        if (c->built_to < c->col.len) {
            uint64_t s0 = rill_time_ns();
            meshes += build_step(bt, ci, jobs, min_group);
            c->build_ms += (double)(rill_time_ns() - s0) * 1e-6;
        }
        if (c->built_to >= c->col.len) {
            finish_build(bt, ci);
            done++;
        }
        double ms = spent_ms + (double)(rill_time_ns() - t0) * 1e-6;
        if (meshes && ms > (double)bt->set.build_ms) {
            break;
        }
    }
    if (done) { /* (the array may be empty and unallocated) */
        memmove(bt->building.data, bt->building.data + done,
                (bt->building.len - done) * sizeof(uint32_t));
        bt->building.len -= done;
    }
    double ms = spent_ms + (double)(rill_time_ns() - t0) * 1e-6;
    bt->stats.meshes_built_last_frame = meshes;
    bt->stats.meshes_built += meshes;
    bt->stats.build_ms_last_frame = ms;
    bt->stats.build_ms_total += ms;
}
