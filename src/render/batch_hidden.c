/* batch_hidden.c: LOD levels that are switched off (RenderMode hidden) are not in the walk, so
 * without this a cell's first build would hold only the levels shown then, and the first switch to
 * another level would rebuild the cell. The RenderMode observer notes every entity hidden before
 * its cell held it (and the first begin every entity hidden already); begin gives each that could
 * be batched a record in its cell's list and queues the cell, whose build collects those still
 * hidden (resolved then, as the walk would). So a cell's first build holds every level of its
 * models, and a level switch flips ranges. Noting is sliced by time like the builds. */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <string.h>

/* Noting: main-thread time a frame, read every NOTE_CHECK entities, at least NOTE_MIN of them. */
#define NOTE_BUDGET_NS 250000u
#define NOTE_CHECK 64u
#define NOTE_MIN 256u

void rill__batch_hidden_seen(rill__batcher *bt, rill_entity e) {
    rill_array_push(&bt->hidden_queue, e); /* out of memory: its level is built when first shown */
}

/* Queues every entity hidden now (the observers were not installed, or batching was off). */
static void scan_hidden(rill__batcher *bt) {
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = rill_world_component_dense(bt->world, bt->rm_comp, &ents, &data);
    const rill_render_mode_component *rm = data;
    for (uint32_t i = 0; i < n; i++) {
        if (rm[i].mode == RILL_RENDER_MODE_HIDDEN) {
            rill__batch_hidden_seen(bt, ents[i]);
        }
    }
    bt->scan_hidden = false;
}

typedef enum hidden_kind {
    HIDDEN_NO,    /* shown, or it would not be batched as it stands */
    HIDDEN_LATER, /* its material is still uploading: looked at again next frame */
    HIDDEN_YES,
} hidden_kind;

/* Whether e is hidden now and would be batched when shown as it stands (static, not
 * preserve-identity, an opaque or cut-out material, resolved): *out then holds what a build needs
 * of it, as the walk would have collected it. */
static hidden_kind hidden_candidate(rill__batcher *bt, rill_entity e, member_info *out) {
    rill_world *w = bt->world;
    const rill_render_mode_component *rm = rill_world_get(w, e, bt->rm_comp);
    const rill_model_mesh *mm =
        rm && rm->mode == RILL_RENDER_MODE_HIDDEN ? rill_world_get(w, e, bt->mm_comp) : NULL;
    const rill_global_transform *xf = mm ? rill_world_get(w, e, bt->gt_comp) : NULL;
    const rill_scene_channels *sc = xf ? rill_world_get(w, e, bt->sc_comp) : NULL;
    uint64_t mask = sc ? sc->mask : 0u;
    memset(out, 0, sizeof(*out));
    if (!xf || (mask & RILL_CHANNEL_PRESERVE_IDENTITY) ||
        !rill__render_assets_resolve(bt->ra, mm, &out->mesh, &out->material)) {
        return HIDDEN_NO;
    }
    const mat_slot *ms = rill__material_get(bt->r, out->material);
    if (!ms || ms->alpha_mode == RILL_ALPHA_BLEND) {
        return ms ? HIDDEN_NO : HIDDEN_LATER;
    }
    out->e = e;
    out->mask = mask;
    memcpy(out->m, xf->m, sizeof(out->m));
    out->mm = *mm;
    out->on = true;
    return HIDDEN_YES;
}

static bool built(const rill__batcher *bt, const member_rec *rc) {
    return rc->gen && rc->gen == bt->cells.data[rc->cell].gen;
}

/* Hidden entity e, when it could be batched, stands in its cell's list and queues the cell. */
static void note(rill__batcher *bt, rill_entity e) {
    member_rec *rc = rill__batch_rec_if(bt, e);
    member_info mi;
    hidden_kind k =
        rc && (rc->listed || rc->moved || built(bt, rc)) ? HIDDEN_NO : hidden_candidate(bt, e, &mi);
    if (k == HIDDEN_LATER) {
        rill__batch_hidden_seen(bt, e);
    }
    if (k != HIDDEN_YES) {
        return;
    }
    if (!rc && !(rc = rill__batch_new_rec(bt, e, &mi.m[12]))) {
        return;
    }
    if (!rill_array_push(&bt->cells.data[rc->cell].hidden, e)) {
        return;
    }
    if (!rc->sig) {
        rill__batch_count_candidate(bt, rc->cell, true);
    }
    rc->sig = rill__batch_signature(mi.mesh, mi.material, mi.mask);
    rc->listed = true;
    rill__batch_mark_dirty(bt, rc->cell);
}

void rill__batch_note_hidden(rill__batcher *bt) {
    if (bt->scan_hidden) {
        scan_hidden(bt);
    }
    uint64_t t0 = rill_time_ns();
    uint32_t i = 0, n = bt->hidden_queue.len; /* those noted later are put after n */
    for (; i < n; i++) {
        if (i >= NOTE_MIN && i % NOTE_CHECK == 0 && rill_time_ns() - t0 > NOTE_BUDGET_NS) {
            break;
        }
        note(bt, bt->hidden_queue.data[i]);
    }
    if (i) { /* the rest waits for the next frame */
        uint32_t rest = bt->hidden_queue.len - i;
        memmove(bt->hidden_queue.data, bt->hidden_queue.data + i, rest * sizeof(rill_entity));
        bt->hidden_queue.len = rest;
    }
    rill_array_trim(&bt->hidden_queue, n, 256);
}

void rill__batch_collect_hidden(rill__batcher *bt, cell *c, uint32_t ci) {
    for (uint32_t i = 0; i < c->hidden.len; i++) {
        member_rec *rc = rill__batch_rec_if(bt, c->hidden.data[i]);
        if (!rc || !rc->listed) {
            continue;
        }
        rc->listed = false; /* shown since (the walk offers it) or collected now */
        member_info mi;
        if (rc->cell != ci || rc->moved || built(bt, rc) || !hidden_candidate(bt, rc->e, &mi)) {
            continue;
        }
        collected *k = rill_array_push_n(&c->col, 1);
        if (k) {
            memset(k, 0, sizeof(*k));
            k->info = mi;
        }
    }
    rill_array_free(&c->hidden);
}
