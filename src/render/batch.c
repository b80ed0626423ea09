/* batch.c: static batching's lifecycle and per-frame start (batch_internal.h describes the design):
 * create, configure, stats, destroy; rill__batch_begin (moved members leave, queued cells are
 * admitted to a rebuild within the time budget, beside the cells still being built). */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <string.h>

#define DEFAULT_CELL 64.0f
#define DEFAULT_PART 16.0f
#define DEFAULT_BUILD_MS 1.0f
#define DEFAULT_STATIC_FRAMES 60u
#define DEFAULT_NEW_PER_FRAME 4096u
/* A step merges half of this to one and a half: at ~50 ns a vertex on the loaded 2-core dev
 * machine, 0.4-1.2 ms, about the default build_ms. */
#define DEFAULT_MESH_VERTICES 16384u
#define MAX_PARTS_PER_AXIS 64u

static float size_or(float v, float fallback) {
    return v > 0.0f && isfinite(v) ? v : fallback;
}

static rill_render_batching defaults(const rill_render_batching *s) {
    rill_render_batching d = s ? *s : (rill_render_batching){0};
    d.cell_size = size_or(d.cell_size, DEFAULT_CELL);
    d.part_size = size_or(d.part_size, DEFAULT_PART);
    /* Parts no finer than MAX_PARTS_PER_AXIS per axis of a cell. */
    d.part_size =
        RILL_MIN(RILL_MAX(d.part_size, d.cell_size / (float)MAX_PARTS_PER_AXIS), d.cell_size);
    d.build_ms = size_or(d.build_ms, DEFAULT_BUILD_MS);
    d.static_frames = d.static_frames ? d.static_frames : DEFAULT_STATIC_FRAMES;
    d.new_per_frame = d.new_per_frame ? d.new_per_frame : DEFAULT_NEW_PER_FRAME;
    d.mesh_vertices = d.mesh_vertices ? d.mesh_vertices : DEFAULT_MESH_VERTICES;
    return d;
}

rill__batcher *rill__batch_create(rill_renderer *r, rill_render_assets *ra, uint32_t resource) {
    rill__batcher *bt = rill_calloc_tagged(1, sizeof(*bt), RILL_MEM_RENDER);
    if (bt) {
        bt->r = r;
        bt->ra = ra;
        bt->resource = resource;
        bt->set = defaults(NULL);
        bt->frame = 1;
    }
    return bt;
}

/* The walk takes every member of c again (none is drawn by a batch). */
static void undraw_all(rill__batcher *bt, const cell *c) {
    for (uint32_t i = 0; i < c->members.len; i++) {
        const member_rec *rc = rill__batch_rec_if(bt, c->members.data[i].e);
        pos_entry *p = rc ? rill__batch_pos_of(bt, rc) : NULL;
        if (p) {
            p->bits &= ~(uint32_t)P_DRAWN;
        }
    }
}

static void drop_batches(rill__batcher *bt, cell *c) {
    for (uint32_t i = 0; i < c->batches.len; i++) {
        rill_render_mesh_destroy(bt->r, c->batches.data[i].mesh);
        rill_array_free(&c->batches.data[i].ranges);
    }
    undraw_all(bt, c);
    c->ready = false;
    bt->stats.batches -= c->batches.len;
    bt->stats.batched_entities -= c->members.len;
    c->batches.len = 0;
    c->parts.len = 0;
    c->members.len = 0;
    c->on_count = 0;
    c->gen++; /* records built into the old generation no longer match */
}

static void drop_all(rill__batcher *bt) {
    for (uint32_t i = 0; i < bt->cells.len; i++) {
        cell *c = &bt->cells.data[i];
        drop_batches(bt, c);
        rill_array_free(&c->batches);
        rill_array_free(&c->parts);
        rill_array_free(&c->members);
        rill_array_free(&c->col);
    }
    bt->cells.len = 0;
    rill_map_free(&bt->cell_of);
    rill__batch_free_recs(bt);
    bt->pos.len = 0;
    bt->dirty.len = 0;
    bt->building.len = 0;
    bt->stats.cells = 0;
}

void rill__batch_destroy(rill__batcher *bt) {
    if (!bt) {
        return;
    }
    drop_all(bt);
    rill_array_free(&bt->cells);
    rill_array_free(&bt->pos);
    rill_array_free(&bt->dirty);
    rill_array_free(&bt->building);
    rill__merge_free(&bt->merge);
    rill_free(bt);
}

void rill__batch_configure(rill__batcher *bt, const rill_render_batching *settings) {
    rill_render_batching d = defaults(settings);
    if (d.cell_size != bt->set.cell_size || d.part_size != bt->set.part_size || !d.enabled) {
        drop_all(bt); /* other cells (or off): everything is rebuilt from scratch */
    }
    bt->set = d;
    bt->on = d.enabled;
}

void rill__batch_stats(const rill__batcher *bt, rill_render_batching_stats *out) {
    *out = bt->stats;
    rill_map seen = {0}; /* distinct materials of the batches */
    for (uint32_t i = 0; i < bt->cells.len; i++) {
        const cell *c = &bt->cells.data[i];
        out->candidates += c->cands;
        for (uint32_t k = 0; k < c->batches.len; k++) {
            uint64_t v = 0;
            if (!rill_map_get(&seen, c->batches.data[k].material.id, &v) &&
                rill_map_set(&seen, c->batches.data[k].material.id, 1)) {
                out->materials++;
            }
        }
    }
    rill_map_free(&seen);
    out->enabled = bt->on;
    out->cell_size = bt->set.cell_size;
    out->part_size = bt->set.part_size;
    out->build_ms = bt->set.build_ms;
    out->cells_waiting = bt->dirty.len;
    out->cells_building = bt->building.len;
    out->taken_new_last_frame = bt->new_recs;
    out->deferred_new_last_frame = bt->deferred;
}

/* Cell ci, about to be rebuilt, collects the members it holds that the walk will not offer: those
 * whose range is off because their LOD level is switched off or crossfading (not those that left),
 * still alive, in this cell and with that RenderMode. */
static void collect_parked(rill__batcher *bt, cell *c, uint32_t ci) {
    for (uint32_t i = 0; i < c->members.len; i++) {
        const member_info *mi = &c->members.data[i];
        const member_rec *rc = mi->on || mi->left ? NULL : rill__batch_rec_if(bt, mi->e);
        const rill_render_mode_component *rm =
            rc && rc->cell == ci && !rc->moved && rill_world_is_alive(bt->world, mi->e)
                ? rill_world_get(bt->world, mi->e, bt->rm_comp)
                : NULL;
        bool parked = rm && (rm->mode == RILL_RENDER_MODE_HIDDEN ||
                             (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade != 0.0f));
        collected *k = parked ? rill_array_push_n(&c->col, 1) : NULL;
        if (k) {
            memset(k, 0, sizeof(*k));
            k->info = *mi;
        }
    }
}

/* What the cells being built are expected to take still: the running mean time per member times
 * the members their steps have not reached. */
static double building_ms(const rill__batcher *bt) {
    double ms = 0.0;
    for (uint32_t i = 0; i < bt->building.len; i++) {
        const cell *c = &bt->cells.data[bt->building.data[i]];
        ms += bt->ms_per_member * (double)(c->col.len - c->built_to);
    }
    return ms;
}

/* Queued cells start collecting, as many as the time budget allows beside what the cells being
 * built still need (one when none is being built): a cell is expected to take the running mean
 * time per member times its members (those it holds, or the candidates standing in it, whichever
 * is more). The others keep drawing their on ranges and wait: a cell admitted drops its batches,
 * so admitting more than the steps can build would draw them one by one for longer. None starts
 * while first-time candidates are still being left for later extracts (new_per_frame): a cell
 * built before all of its arrived would be built again for each. */
static void admit_dirty(rill__batcher *bt) {
    if (bt->deferred_prev) {
        return;
    }
    double planned = building_ms(bt);
    uint32_t kept = 0, admitted = bt->building.len;
    for (uint32_t i = 0; i < bt->dirty.len; i++) {
        uint32_t ci = bt->dirty.data[i];
        cell *c = &bt->cells.data[ci];
        if (c->state != CELL_DIRTY) {
            continue;
        }
        double est = bt->ms_per_member * (double)RILL_MAX(1u, RILL_MAX(c->cands, c->members.len));
        bool fits = bt->ms_per_member > 0.0 && planned + est <= (double)bt->set.build_ms;
        if (admitted == 0 || fits) {
            admitted++;
            planned += est;
            c->col.len = 0;
            collect_parked(bt, c, ci);
            drop_batches(bt, c);
            c->state = CELL_COLLECTING;
        } else {
            bt->dirty.data[kept++] = ci;
        }
    }
    bt->dirty.len = kept;
}

bool rill__batch_begin(rill__batcher *bt, rill_world *world) {
    if (!bt || !bt->on) {
        return false;
    }
    if (!bt->observing && !(bt->observing = rill__batch_observe(bt, world))) {
        return false; /* without them built members could not be kept out of the walk */
    }
    bt->frame++;
    bt->world = world;
    const rill_entity *ents = NULL;
    void *data = NULL;
    bt->mm_len = rill_world_component_dense(world, bt->mm_comp, &ents, &data);
    bt->mm_base = data;
    if (bt->mm_len > bt->pos.len) {
        uint32_t had = bt->pos.len;
        /* (mremap growth past RILL_MAPPED_MIN: the ModelMesh storage of a streaming world grows by
         * a district at a time, and a copy of the cache would land in one extract) */
        if (!rill__array_grow_large((void **)&bt->pos.data, &bt->pos.cap, bt->mm_len,
                                    sizeof(pos_entry), 1024u, RILL_MEM_RENDER)) {
            return false;
        }
        memset(bt->pos.data + had, 0, (bt->mm_len - had) * sizeof(pos_entry));
        bt->pos.len = bt->mm_len;
    }
    bt->stats.cells_built_last_frame = 0;
    bt->stats.meshes_built_last_frame = 0;
    bt->stats.build_ms_last_frame = 0.0;
    bt->deferred_prev = bt->deferred;
    bt->deferred = 0;
    bt->new_recs = 0;
    /* Moved entities leave their batches (and stay out for static_frames). */
    uint32_t nmoved = 0;
    const rill_entity *moved = rill_world_changed_transforms(world, &nmoved);
    for (uint32_t i = 0; i < nmoved; i++) {
        member_rec *rc = rill__batch_rec_if(bt, moved[i]);
        if (!rc) {
            continue; /* not seen yet: a new entity is placed, not animated */
        }
        rc->moved = true; /* not a candidate now */
        rc->moved_frame = bt->frame;
        rill__batch_leave(bt, moved[i]);
    }
    admit_dirty(bt);
    return true;
}
