/* batch_observe.c: the batcher's world observers (RenderMode, SceneChannels, ModelMesh writes) and
 * what they do to a built member: switch its range on or off, or make it leave its batch. */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

static rill__batcher *batcher_of(rill_world *w, void *user) {
    rill_render_assets *ra = rill__render_assets_at(w, (uint32_t)(uintptr_t)user);
    rill__batcher *bt = rill__render_assets_batcher(ra);
    return bt && bt->on ? bt : NULL;
}

void rill__batch_mark_dirty(rill__batcher *bt, uint32_t ci) {
    cell *c = &bt->cells.data[ci];
    if (c->state == CELL_CLEAN) {
        c->state = CELL_DIRTY;
        rill_array_push(&bt->dirty, ci); /* out of memory: rebuilt when marked again */
    } else if (c->state == CELL_BUILDING) {
        c->redo = true; /* what it collected is out of date: queued once it completes */
    }
}

/* The record of e when a batch of its cell's current generation holds it, else NULL. */
static member_rec *built_rec(rill__batcher *bt, rill_entity e) {
    member_rec *rc = rill__batch_rec_if(bt, e);
    return rc && rc->gen && rc->gen == bt->cells.data[rc->cell].gen ? rc : NULL;
}

/* The walk's cache entry of a record's entity, or NULL when it is not (or no longer) there. */
pos_entry *rill__batch_pos_of(rill__batcher *bt, const member_rec *rc) {
    pos_entry *p = rc->pos < bt->pos.len ? &bt->pos.data[rc->pos] : NULL;
    return p && p->e == rc->e ? p : NULL;
}

/* Switches the range of built member rc: on, its batch draws it and the walk skips it; off, the
 * walk takes it again (it draws alone, or not at all when hidden). */
static void set_on(rill__batcher *bt, const member_rec *rc, bool on) {
    cell *c = &bt->cells.data[rc->cell];
    member_info *mi = &c->members.data[rc->member];
    if (mi->on == on) {
        return;
    }
    mi->on = on;
    c->on_count = on ? c->on_count + 1u : c->on_count - 1u;
    c->batches.data[mi->batch].ranges_dirty = true;
    bt->stats.range_switches++;
    pos_entry *p = rill__batch_pos_of(bt, rc);
    if (p) {
        p->bits = on ? p->bits | P_DRAWN : p->bits & ~(uint32_t)P_DRAWN;
    }
}

/* A built member changed (moved, other channels or primitive, a mode of its own): its range is off
 * until its cell is rebuilt (queued now), and it draws alone meanwhile. */
void rill__batch_leave(rill__batcher *bt, rill_entity e) {
    member_rec *rc = built_rec(bt, e);
    member_info *mi = rc ? &bt->cells.data[rc->cell].members.data[rc->member] : NULL;
    if (mi && !mi->left) {
        set_on(bt, rc, false);
        mi->left = true;
        rill__batch_mark_dirty(bt, rc->cell);
    }
}

static void on_render_mode(rill_world *w, rill_entity e, void *data, void *user) {
    const rill_render_mode_component *rm = data;
    rill__batcher *bt = batcher_of(w, user);
    member_rec *rc = bt ? built_rec(bt, e) : NULL;
    if (!rc || bt->cells.data[rc->cell].members.data[rc->member].left) {
        return;
    }
    if (rm->mode == RILL_RENDER_MODE_NORMAL || rm->mode == RILL_RENDER_MODE_HIDDEN) {
        /* Its LOD level shown whole (on), switched off or crossfading (off: drawn alone). */
        set_on(bt, rc, rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade == 0.0f);
    } else {
        rill__batch_leave(bt, e); /* wireframe or ghost of its own */
    }
}

static void on_member_change(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    rill__batcher *bt = batcher_of(w, user);
    if (bt) {
        rill__batch_leave(bt, e); /* other channels (another key) or another primitive */
    }
}

/* Installs the observers on world (once): true when they are in place. They find the batcher
 * through the world's resource (user = its id), so they stay harmless after the cache is destroyed,
 * and installing them again for another cache of the same world is a no-op. */
bool rill__batch_observe(rill__batcher *bt, rill_world *world) {
    rill_model_components mc;
    void *user = (void *)(uintptr_t)bt->resource;
    rill_component sc = rill_channels_component(world);
    bool ok = sc.id && rill_scene_model_register(world, &mc, NULL) == RILL_OK;
    bt->mm_comp = ok ? mc.model_mesh : (rill_component){0};
    bt->rm_comp = ok ? mc.render_mode : (rill_component){0};
    bt->sc_comp = sc;
    return ok && rill_world_observe_add(world, mc.render_mode, on_render_mode, user) &&
           rill_world_observe_add(world, mc.model_mesh, on_member_change, user) &&
           rill_world_observe_add(world, sc, on_member_change, user);
}
