/* batch_records.c: the batcher's records (one per entity that was ever a candidate, by entity
 * index, in pages made on first use) and its cells (by packed grid coordinates). */
#include "batch_internal.h"

#include <math.h>
#include <string.h>

/* The page table holds at least page + 1 entries (the new ones NULL); false when out of memory. */
static bool grow_page_table(rill__batcher *bt, uint32_t page) {
    if (page < bt->rec_page_count) {
        return true;
    }
    uint32_t want = RILL_MAX(page + 1u, bt->rec_page_count * 2u);
    member_rec **t = rill_realloc_tagged(bt->rec_pages, (size_t)want * sizeof(*t), RILL_MEM_RENDER);
    if (!t) {
        return false;
    }
    memset(t + bt->rec_page_count, 0, (size_t)(want - bt->rec_page_count) * sizeof(*t));
    bt->rec_pages = t;
    bt->rec_page_count = want;
    return true;
}

member_rec *rill__batch_rec_of(rill__batcher *bt, rill_entity e) {
    uint32_t i = RILL_ENTITY_INDEX(e), page = i >> REC_PAGE_BITS;
    if (!grow_page_table(bt, page)) {
        return NULL;
    }
    if (!bt->rec_pages[page] && !(bt->rec_pages[page] = rill_calloc_tagged(
                                      REC_PAGE, sizeof(member_rec), RILL_MEM_RENDER))) {
        return NULL;
    }
    return &bt->rec_pages[page][i & (REC_PAGE - 1u)];
}

void rill__batch_free_recs(rill__batcher *bt) {
    for (uint32_t i = 0; i < bt->rec_page_count; i++) {
        rill_free(bt->rec_pages[i]);
    }
    rill_free(bt->rec_pages);
    bt->rec_pages = NULL;
    bt->rec_page_count = 0;
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

member_rec *rill__batch_rec_if(const rill__batcher *bt, rill_entity e) {
    uint32_t i = RILL_ENTITY_INDEX(e), page = i >> REC_PAGE_BITS;
    member_rec *rc = page < bt->rec_page_count && bt->rec_pages[page]
                         ? &bt->rec_pages[page][i & (REC_PAGE - 1u)]
                         : NULL;
    return rc && rc->e == e ? rc : NULL;
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
