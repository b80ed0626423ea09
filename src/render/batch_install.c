/* batch_install.c: a built cell's new batches replace its old ones once their meshes are uploaded,
 * at the start of a frame (before the walk): the old batches drew every frame until then, and the
 * new ones draw from this frame on. Each new member is checked against what changed since its
 * build collected it (moved, other channels or primitive, despawned, a mode of its own: it left,
 * and the cell is queued again); its range is on when it draws as a plain normal entity now, off
 * when its LOD level is switched off or crossfading. */
#include "batch_internal.h"

#include "render_internal.h"

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

static void destroy_geo(rill__batcher *bt, cell_geo *g) {
    for (uint32_t i = 0; i < g->batches.len; i++) {
        rill_render_mesh_destroy(bt->r, g->batches.data[i].mesh);
        rill_array_free(&g->batches.data[i].ranges);
    }
    g->batches.len = 0;
    g->parts.len = 0;
    g->members.len = 0;
}

void rill__batch_drop_batches(rill__batcher *bt, cell *c) {
    cell_geo g = {c->batches, c->parts, c->members};
    undraw_all(bt, c);
    bt->stats.batches -= c->batches.len;
    bt->stats.batched_entities -= c->members.len;
    destroy_geo(bt, &g);
    c->batches = g.batches;
    c->parts = g.parts;
    c->members = g.members;
    c->ready = false;
    c->on_count = 0;
    c->gen++; /* records built into the old generation no longer match */
}

void rill__batch_drop_next(rill__batcher *bt, cell *c) {
    destroy_geo(bt, &c->next);
}

static bool uploaded(const rill__batcher *bt, const cell_geo *g) {
    for (uint32_t i = 0; i < g->batches.len; i++) {
        if (!rill__mesh_get(bt->r, g->batches.data[i].mesh)) {
            return false;
        }
    }
    return true;
}

static bool touched_since(const member_rec *rc, uint32_t frame) {
    return rc->touched && (int32_t)(rc->touched - frame) >= 0;
}

/* Member i of cell ci's new generation: its range on or off (or it left), its record and the walk's
 * cache entry point at it. */
static void settle_member(rill__batcher *bt, cell *c, uint32_t ci, uint32_t i) {
    member_info *mi = &c->members.data[i];
    member_rec *rc = rill__batch_rec_if(bt, mi->e);
    bool same = rc && rc->cell == ci && !rc->moved && !touched_since(rc, c->collect_frame);
    const rill_render_mode_component *rm =
        same ? rill_world_get(bt->world, mi->e, bt->rm_comp) : NULL;
    bool parked = rm && (rm->mode == RILL_RENDER_MODE_HIDDEN ||
                         (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade != 0.0f));
    mi->left = !same || (rm && !parked && rm->mode != RILL_RENDER_MODE_NORMAL);
    mi->on = !mi->left && !parked;
    c->again |= mi->left;
    c->on_count += mi->on;
    if (!rc || rc->cell != ci) {
        return; /* despawned (its slot maybe reused), or standing in another cell now */
    }
    rc->gen = c->gen;
    rc->member = i;
    rc->listed = false;
    pos_entry *p = rill__batch_pos_of(bt, rc);
    if (p) {
        p->bits = P_NOTE | (mi->on ? P_DRAWN : 0u);
        p->cell = ci;
    }
}

/* A cell of n members was built in ms. The mean per member learns slowly and takes an outlier (a
 * new shared block allocated, the machine busy) as at most four times the mean. */
static void count_build(rill__batcher *bt, uint32_t n, double ms) {
    double per = ms / (double)RILL_MAX(n, 1u), was = bt->ms_per_member;
    bt->ms_per_member = was > 0.0 ? 0.875 * was + 0.125 * RILL_MIN(per, 4.0 * was) : per;
    bt->stats.cells_built++;
    bt->stats.cells_built_last_frame++;
    bt->stats.build_ms_total += ms;
    bt->stats.build_ms_max_cell = RILL_MAX(bt->stats.build_ms_max_cell, ms);
}

/* Cell ci's new generation replaces the old one. */
static void install(rill__batcher *bt, uint32_t ci) {
    cell *c = &bt->cells.data[ci];
    rill__batch_drop_batches(bt, c);
    cell_geo old = {c->batches, c->parts, c->members};
    c->batches = c->next.batches;
    c->parts = c->next.parts;
    c->members = c->next.members;
    c->next = old; /* empty, its memory freed below */
    rill_array_free(&c->next.batches);
    rill_array_free(&c->next.parts);
    rill_array_free(&c->next.members);
    rill_array_fit(&c->members, c->members.len);
    rill_array_fit(&c->parts, c->parts.len);
    rill_array_fit(&c->batches, c->batches.len);
    for (uint32_t i = 0; i < c->members.len; i++) {
        settle_member(bt, c, ci, i);
    }
    c->ready = true; /* its meshes are uploaded */
    count_build(bt, c->at.collected, c->at.ms);
    bt->stats.batches += c->batches.len;
    bt->stats.batched_entities += c->members.len;
    c->state = CELL_CLEAN;
    if (c->again) {
        c->again = false;
        rill__batch_mark_dirty(bt, ci);
    }
}

void rill__batch_install(rill__batcher *bt) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < bt->built.len; i++) {
        uint32_t ci = bt->built.data[i];
        if (uploaded(bt, &bt->cells.data[ci].next)) {
            install(bt, ci);
        } else {
            bt->built.data[kept++] = ci;
        }
    }
    bt->built.len = kept;
}
