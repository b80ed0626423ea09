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

void rill__batch_prefetch(const rill__batcher *bt, const rill_model_mesh *mm) {
    if (mm && mm >= bt->mm_base && (uint32_t)(mm - bt->mm_base) < bt->pos.len) {
        __builtin_prefetch(&bt->pos.data[mm - bt->mm_base]);
    }
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

/* The signature take gives record rc now: 0 when it cannot be batched (moving, a mode of its own,
 * keeping its identity, a blended material or one not uploaded, a skinned mesh: its pose moves
 * while its entity stands still; a mesh with vertex extras, which merged blocks do not carry). */
static uint32_t sig_now(const rill__batcher *bt, const member_rec *rc, const rill__batch_offer *o) {
    const mesh_slot *msh = rill__mesh_get(bt->r, o->mesh);
    bool maybe =
        maybe_candidate(o->mask, o->own_normal) && !(msh && (msh->sb || msh->mb || msh->xb));
    const mat_slot *ms = maybe && !rc->moved ? rill__material_get(bt->r, o->mat) : NULL;
    return ms && ms->alpha_mode != RILL_ALPHA_BLEND ? signature(o->mesh, o->mat, o->mask) : 0u;
}

/* Take's first look at o: nothing to do (not a candidate now nor when last taken, or built into
 * its cell with its range off: drawn alone), a record to make (a first-time candidate), or
 * *out_rc to look at. */
enum { TAKE_NOTHING, TAKE_NEW, TAKE_REC };
static int first_look(const rill__batcher *bt, const rill__batch_offer *o,
                      const member_rec **out_rc) {
    bool maybe = maybe_candidate(o->mask, o->own_normal);
    const pos_entry *p = pos_seen(bt, o->e, o->mm);
    if (!maybe && p && !(p->bits & P_NOTE)) {
        return TAKE_NOTHING;
    }
    const member_rec *rc = rill__batch_rec_if(bt, o->e);
    *out_rc = rc;
    if (!rc) {
        return maybe ? TAKE_NEW : TAKE_NOTHING;
    }
    return rc->gen && rc->gen == bt->cells.data[rc->cell].gen ? TAKE_NOTHING : TAKE_REC;
}

static bool unmoves(const rill__batcher *bt, const member_rec *rc) {
    return rc->moved && bt->frame - rc->moved_frame > bt->set.static_frames;
}

bool rill__batch_wants_take(const rill__batcher *bt, const rill__batch_offer *o) {
    const member_rec *rc = NULL;
    int look = first_look(bt, o, &rc);
    if (look != TAKE_REC || unmoves(bt, rc)) {
        return look != TAKE_NOTHING;
    }
    /* Take changes what it is (candidate or not), collects it, or refreshes a stale cache entry
     * (the rest of take below, without its writes); for a candidate waiting in a queued cell,
     * frame after frame, it does nothing. */
    const pos_entry *p = pos_seen(bt, o->e, o->mm);
    uint32_t sig = sig_now(bt, rc, o), pos = (uint32_t)(o->mm - bt->mm_base);
    return sig != rc->sig || (sig && bt->cells.data[rc->cell].state == CELL_COLLECTING) ||
           (p && (p->cell != rc->cell || p->bits != (sig ? P_NOTE : 0u) || rc->pos != pos));
}

void rill__batch_take(rill__batcher *bt, const rill__batch_offer *o) {
    const member_rec *known = NULL; /* (looked up again, writable, below) */
    int look = first_look(bt, o, &known);
    if (look == TAKE_NOTHING) {
        return;
    }
    if (look == TAKE_NEW && bt->new_recs >= bt->set.new_per_frame) {
        bt->deferred++; /* drawn alone; offered again by the next extract */
        return;
    }
    const float *m = o->m;
    member_rec *rc =
        look == TAKE_NEW ? rill__batch_new_rec(bt, o->e, &m[12]) : rill__batch_rec_if(bt, o->e);
    bt->new_recs += look == TAKE_NEW && rc;
    if (!rc) {
        return; /* out of memory: it stays an instance */
    }
    cell *c = &bt->cells.data[rc->cell];
    if (unmoves(bt, rc)) {
        rc->moved = false; /* still long enough: batched again, in the cell it stands in now */
        uint32_t ci = rill__batch_cell_at(bt, &m[12]);
        if (ci != UINT32_MAX) {
            rc->cell = ci;
            c = &bt->cells.data[ci];
        }
    }
    uint32_t sig = sig_now(bt, rc, o);
    bool candidate = sig != 0;
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
            k->info.e = o->e;
            k->info.mesh = o->mesh;
            k->info.material = o->mat;
            k->info.mask = o->mask;
            memcpy(k->info.m, m, sizeof(k->info.m));
            k->info.mm = *o->mm;
            k->info.on = true;
        }
    }
    if (pos_seen(bt, o->e, o->mm)) {
        uint32_t pos = (uint32_t)(o->mm - bt->mm_base);
        learn(bt, &bt->pos.data[pos], o->e, rc, pos);
    }
}
