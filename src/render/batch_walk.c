/* batch_walk.c: what extract's walk asks of the batcher per ModelMesh entity: rill__batch_skip
 * (a batch draws it; rill__batch_seen counts those), rill__batch_wants_take (read-only: whether
 * take has anything to do) and rill__batch_take (it is noted as a candidate and collected by a
 * cell that is being rebuilt). */
#include "batch_internal.h"

#include "render_internal.h"

#include <string.h>

static uint32_t signature(rill_mesh mesh, rill_material mat, uint64_t mask) {
    uint64_t h = (uint64_t)mesh.id * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)mat.id + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= mask * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    uint32_t s = (uint32_t)(h ^ (h >> 32));
    return s ? s : 1u; /* 0 means "not a candidate" */
}

/* Whether a batch draws the member of record rc now. */
static bool drawn(const rill__batcher *bt, const member_rec *rc) {
    const cell *c = &bt->cells.data[rc->cell];
    return rc->gen && rc->gen == c->gen && c->members.data[rc->member].on;
}

/* Position p learns entity e from its record (NULL: none); true when a batch draws e. */
static bool learn(rill__batcher *bt, pos_entry *p, rill_entity e, member_rec *rc, uint32_t pos) {
    p->e = e;
    p->bits = 0;
    p->cell = 0;
    if (!rc) {
        return false;
    }
    rc->pos = pos;
    p->cell = rc->cell;
    const cell *c = &bt->cells.data[rc->cell];
    bool built = rc->gen && rc->gen == c->gen;
    p->bits = (built || rc->sig ? P_NOTE : 0u) | (drawn(bt, rc) ? P_DRAWN : 0u);
    return p->bits & P_DRAWN;
}

bool rill__batch_skip(rill__batcher *bt, rill_entity e, const rill_model_mesh *mm,
                      uint32_t *out_cell) {
    uint32_t pos = (uint32_t)(mm - bt->mm_base);
    if (mm < bt->mm_base || pos >= bt->pos.len) {
        return false; /* not in the storage begin saw (cannot happen during a walk) */
    }
    pos_entry *p = &bt->pos.data[pos];
    if (p->e != e && !learn(bt, p, e, rill__batch_rec_if(bt, e), pos)) {
        return false;
    }
    if (!(p->bits & P_DRAWN)) {
        return false;
    }
    *out_cell = p->cell;
    return true;
}

void rill__batch_seen(rill__batcher *bt, uint32_t ci, uint32_t n) {
    bt->cells.data[ci].seen += n;
}

/* Whether a candidate could be batched: its own mode NORMAL, its channels keep no identity. */
static bool maybe_candidate(uint64_t mask, bool own_normal) {
    return own_normal && !(mask & RILL_CHANNEL_PRESERVE_IDENTITY);
}

/* The walk's cache entry of e at mm's position once skip learnt it, else NULL. */
static const pos_entry *pos_seen(const rill__batcher *bt, rill_entity e,
                                 const rill_model_mesh *mm) {
    uint32_t pos = (uint32_t)(mm - bt->mm_base);
    bool in = mm >= bt->mm_base && pos < bt->pos.len && bt->pos.data[pos].e == e;
    return in ? &bt->pos.data[pos] : NULL;
}

bool rill__batch_wants_take(const rill__batcher *bt, rill_entity e, const rill_model_mesh *mm,
                            uint64_t mask, bool own_normal) {
    bool maybe = maybe_candidate(mask, own_normal);
    const pos_entry *p = pos_seen(bt, e, mm);
    if (!maybe && p && !(p->bits & P_NOTE)) {
        return false; /* not a candidate, nor was it one when last taken: nothing to note */
    }
    uint32_t idx = RILL_ENTITY_INDEX(e);
    const member_rec *rc =
        idx < bt->recs.len && bt->recs.data[idx].e == e ? &bt->recs.data[idx] : NULL;
    if (!rc) {
        return maybe; /* never a candidate so far: no record needed */
    }
    /* Built, its range off (left, or crossfading): drawn alone, nothing to note. */
    return !rc->gen || rc->gen != bt->cells.data[rc->cell].gen;
}

void rill__batch_take(rill__batcher *bt, rill_entity e, const rill_model_mesh *mm, rill_mesh mesh,
                      rill_material mat, const float m[16], uint64_t mask, bool own_normal) {
    if (!rill__batch_wants_take(bt, e, mm, mask, own_normal)) {
        return;
    }
    bool maybe = maybe_candidate(mask, own_normal);
    member_rec *rc = rill__batch_rec_if(bt, e);
    if (!rc && !(rc = rill__batch_new_rec(bt, e, &m[12]))) {
        return; /* out of memory: it stays an instance */
    }
    cell *c = &bt->cells.data[rc->cell];
    if (rc->moved && bt->frame - rc->moved_frame > bt->set.static_frames) {
        rc->moved = false; /* still long enough: batched again, in the cell it stands in now */
        uint32_t ci = rill__batch_cell_at(bt, &m[12]);
        if (ci != UINT32_MAX) {
            rc->cell = ci;
            c = &bt->cells.data[ci];
        }
    }
    const mat_slot *ms = maybe && !rc->moved ? rill__material_get(bt->r, mat) : NULL;
    bool candidate = ms && ms->alpha_mode != RILL_ALPHA_BLEND;
    uint32_t sig = candidate ? signature(mesh, mat, mask) : 0u;
    if (rc->sig != sig) {
        if (!rc->sig != !sig) {
            rill__batch_count_candidate(bt, rc->cell, sig != 0);
        }
        rc->sig = sig;
        if (candidate) {
            rill__batch_mark_dirty(bt, rc->cell);
        }
    }
    if (candidate && c->state == CELL_COLLECTING) {
        collected *k = rill_array_push_n(&c->col, 1);
        if (k) {
            memset(k, 0, sizeof(*k));
            k->info.e = e;
            k->info.mesh = mesh;
            k->info.material = mat;
            k->info.mask = mask;
            memcpy(k->info.m, m, sizeof(k->info.m));
            k->info.mm = *mm;
            k->info.on = true;
        }
    }
    if (pos_seen(bt, e, mm)) {
        uint32_t pos = (uint32_t)(mm - bt->mm_base);
        learn(bt, &bt->pos.data[pos], e, rc, pos);
    }
}
