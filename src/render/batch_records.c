/* batch_records.c: the batcher's records (one per entity that was ever a candidate, by entity
 * index) and its cells (by packed grid coordinates). */
#include "batch_internal.h"

#include <math.h>
#include <string.h>

member_rec *rill__batch_rec_of(rill__batcher *bt, rill_entity e) {
    uint32_t i = RILL_ENTITY_INDEX(e);
    if (i >= bt->recs.len) {
        uint32_t want = RILL_MAX(i + 1u, bt->recs.len * 2u);
        if (!rill_array_reserve(&bt->recs, want)) {
            return NULL;
        }
        memset(bt->recs.data + bt->recs.len, 0, (want - bt->recs.len) * sizeof(member_rec));
        bt->recs.len = want;
    }
    return &bt->recs.data[i];
}

static uint64_t pack_cell(int32_t x, int32_t y, int32_t z) {
    const uint64_t m = (1u << 21) - 1u;
    return ((uint64_t)(uint32_t)x & m) | (((uint64_t)(uint32_t)y & m) << 21) |
           (((uint64_t)(uint32_t)z & m) << 42);
}

static int32_t cell_coord(float v, float size) {
    float c = floorf(v / size);
    return c > 1e6f ? 1000000 : c < -1e6f ? -1000000 : (int32_t)c; /* NaN -> 0 */
}

/* The cell holding world position p (created when new); UINT32_MAX when out of memory. */
uint32_t rill__batch_cell_at(rill__batcher *bt, const float p[3]) {
    int32_t x = cell_coord(p[0], bt->set.cell_size), y = cell_coord(p[1], bt->set.cell_size),
            z = cell_coord(p[2], bt->set.cell_size);
    uint64_t key = pack_cell(x, y, z), v = 0;
    if (rill_map_get(&bt->cell_of, key, &v)) {
        return (uint32_t)(v - 1u);
    }
    cell c;
    memset(&c, 0, sizeof(c));
    c.ix = x;
    c.iy = y;
    c.iz = z;
    c.gen = 1;
    if (!rill_array_push(&bt->cells, c)) {
        return UINT32_MAX;
    }
    if (!rill_map_set(&bt->cell_of, key, bt->cells.len)) {
        bt->cells.len--;
        return UINT32_MAX;
    }
    bt->stats.cells = bt->cells.len;
    return bt->cells.len - 1u;
}

member_rec *rill__batch_rec_if(rill__batcher *bt, rill_entity e) {
    uint32_t idx = RILL_ENTITY_INDEX(e);
    return idx < bt->recs.len && bt->recs.data[idx].e == e ? &bt->recs.data[idx] : NULL;
}

/* A record of cell ci became (or stopped being) a candidate. */
void rill__batch_count_candidate(rill__batcher *bt, uint32_t ci, bool now) {
    cell *c = &bt->cells.data[ci];
    c->cands = now ? c->cands + 1u : c->cands - (c->cands != 0);
}

/* A fresh record for e standing at p; NULL when out of memory. */
member_rec *rill__batch_new_rec(rill__batcher *bt, rill_entity e, const float p[3]) {
    member_rec *rc = rill__batch_rec_of(bt, e);
    if (!rc) {
        return NULL;
    }
    if (rc->e && rc->sig) { /* its entity is gone: the slot is reused */
        rill__batch_count_candidate(bt, rc->cell, false);
    }
    memset(rc, 0, sizeof(*rc));
    rc->cell = rill__batch_cell_at(bt, p);
    if (rc->cell == UINT32_MAX) {
        return NULL;
    }
    rc->e = e;
    return rc;
}
