/* batch.c: static batching's lifecycle and per-frame start (batch_internal.h describes the design):
 * create, configure, stats, destroy; rill__batch_begin (moved members leave, queued cells are
 * admitted to a rebuild within the time budget). */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <string.h>

#define DEFAULT_CELL 64.0f
#define DEFAULT_PART 16.0f
#define DEFAULT_BUILD_MS 1.0f
#define DEFAULT_STATIC_FRAMES 60u
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
        bt->scan_hidden = true;
    }
    return bt;
}

static void drop_all(rill__batcher *bt) {
    for (uint32_t i = 0; i < bt->cells.len; i++) {
        cell *c = &bt->cells.data[i];
        rill__batch_drop_batches(bt, c);
        rill__batch_drop_next(bt, c);
        rill_array_free(&c->batches);
        rill_array_free(&c->parts);
        rill_array_free(&c->members);
        rill_array_free(&c->next.batches);
        rill_array_free(&c->next.parts);
        rill_array_free(&c->next.members);
        rill_array_free(&c->col);
        rill_array_free(&c->hidden);
    }
    bt->cells.len = 0;
    rill_map_free(&bt->cell_of);
    bt->recs.len = 0;
    bt->pos.len = 0;
    bt->dirty.len = 0;
    bt->building.len = 0;
    bt->build_head = 0;
    bt->built.len = 0;
    bt->hidden_queue.len = 0;
    bt->scan_hidden = true; /* the observers saw nothing while it was off */
    bt->stats.cells = 0;
}

void rill__batch_destroy(rill__batcher *bt) {
    if (!bt) {
        return;
    }
    drop_all(bt);
    rill_array_free(&bt->cells);
    rill_array_free(&bt->recs);
    rill_array_free(&bt->pos);
    rill_array_free(&bt->dirty);
    rill_array_free(&bt->building);
    rill_array_free(&bt->built);
    rill_array_free(&bt->hidden_queue);
    rill_array_free(&bt->vtmp);
    rill_array_free(&bt->itmp);
    rill_array_free(&bt->etmp);
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
    out->cells_waiting = bt->dirty.len + (bt->building.len - bt->build_head) + bt->built.len;
}

/* Cell ci, about to be rebuilt, collects the members it holds that the walk will not offer: those
 * whose range is on (their batch draws them, so the walk skips them; nothing changed since they
 * were built, or they would have left) and those whose range is off because their LOD level is
 * switched off or crossfading (not those that left: the walk offers them); still alive, in this
 * cell and not moved. */
static void collect_members(rill__batcher *bt, cell *c, uint32_t ci) {
    for (uint32_t i = 0; i < c->members.len; i++) {
        const member_info *mi = &c->members.data[i];
        const member_rec *rc = mi->left ? NULL : rill__batch_rec_if(bt, mi->e);
        bool ok = rc && rc->cell == ci && !rc->moved && rill_world_is_alive(bt->world, mi->e);
        const rill_render_mode_component *rm =
            ok && !mi->on ? rill_world_get(bt->world, mi->e, bt->rm_comp) : NULL;
        bool parked = rm && (rm->mode == RILL_RENDER_MODE_HIDDEN ||
                             (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade != 0.0f));
        collected *k = ok && (mi->on || parked) ? rill_array_push_n(&c->col, 1) : NULL;
        if (k) {
            memset(k, 0, sizeof(*k));
            k->info = *mi;
            k->info.on = true;
        }
    }
}

/* The build time the cells building now are still expected to take. */
static double building_ms(const rill__batcher *bt) {
    double ms = 0.0;
    for (uint32_t i = bt->build_head; i < bt->building.len; i++) {
        const cell *c = &bt->cells.data[bt->building.data[i]];
        ms += bt->ms_per_member * (double)(c->col.len - RILL_MIN(c->at.next, c->col.len));
    }
    return ms;
}

/* Queued cells start collecting while the builds planned stay within two frames of the time budget
 * (and one at least when nothing is building): a cell is expected to take the running mean time
 * per member times its members (those it holds, or the candidates standing in it, whichever is
 * more). The builds themselves go on across frames within the budget (batch_build.c); the cells
 * keep drawing their old batches until their new ones are installed. */
static void admit_dirty(rill__batcher *bt) {
    double planned = building_ms(bt), most = 2.0 * (double)bt->set.build_ms;
    bool idle = bt->build_head == bt->building.len;
    uint32_t kept = 0, admitted = 0;
    for (uint32_t i = 0; i < bt->dirty.len; i++) {
        uint32_t ci = bt->dirty.data[i];
        cell *c = &bt->cells.data[ci];
        if (c->state != CELL_DIRTY) {
            continue;
        }
        double est = bt->ms_per_member * (double)RILL_MAX(1u, RILL_MAX(c->cands, c->members.len));
        bool fits = bt->ms_per_member > 0.0 && planned + est <= most;
        if ((idle && admitted == 0) || fits) {
            admitted++;
            planned += est;
            c->col.len = 0;
            collect_members(bt, c, ci);
            rill__batch_collect_hidden(bt, c, ci);
            c->state = CELL_COLLECTING;
            c->collect_frame = bt->frame;
        } else {
            bt->dirty.data[kept++] = ci;
        }
    }
    bt->dirty.len = kept;
    rill_array_trim(&bt->dirty, kept, 64);
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
        if (!rill_array_reserve(&bt->pos, bt->mm_len)) {
            return false;
        }
        memset(bt->pos.data + had, 0, (bt->mm_len - had) * sizeof(pos_entry));
        bt->pos.len = bt->mm_len;
    }
    bt->stats.cells_built_last_frame = 0;
    bt->stats.build_ms_last_frame = 0.0;
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
        rc->touched = bt->frame;
        rill__batch_leave(bt, moved[i]);
    }
    rill__batch_note_hidden(bt);
    rill__batch_install(bt);
    admit_dirty(bt);
    return true;
}
