/* pages.c: the world's entity-indexed storage in pages (world_internal.h): the slot pages
 * (generations and flags) and each component's sparse index pages. A page is made when a slot of
 * its range is first used and never moves, so growing the world costs a page table entry and one
 * small zeroed block at a time instead of doubling (copying and zeroing) whole arrays. */
#include "world_internal.h"

#include <string.h>

/* Grows a page table (*table, *cap entries) to hold page index p; new entries are NULL. */
static bool table_reserve(void ***table, uint32_t *cap, uint32_t p) {
    return rill__world_grow((void **)table, cap, p + 1u, sizeof(void *), true);
}

bool rill__slots_reserve(rill_world *w, uint32_t n) {
    if (n <= w->slot_cap) {
        return true;
    }
    uint32_t last = (n - 1u) >> RILL__PAGE_BITS;
    if (!table_reserve((void ***)&w->slot_pages, &w->slot_page_cap, last)) {
        return false;
    }
    for (uint32_t p = w->slot_cap >> RILL__PAGE_BITS; p <= last; p++) {
        w->slot_pages[p] = rill_calloc_tagged(1, sizeof(struct rill__slot_page), RILL_MEM_WORLD);
        if (w->slot_pages[p] == NULL) {
            return false;
        }
        w->slot_cap = (p + 1u) << RILL__PAGE_BITS;
    }
    return true;
}

void rill__slots_free(rill_world *w) {
    for (uint32_t p = 0; p < w->slot_page_cap; p++) {
        rill_free(w->slot_pages[p]);
    }
    rill_free(w->slot_pages);
    w->slot_pages = NULL;
    w->slot_page_cap = w->slot_cap = 0;
}

bool rill__set_page(rill__sparse_set *s, uint32_t slot) {
    uint32_t p = slot >> RILL__PAGE_BITS;
    if (p < s->page_cap && s->pages[p] != NULL) {
        return true;
    }
    if (!table_reserve((void ***)&s->pages, &s->page_cap, p)) {
        return false;
    }
    s->pages[p] = rill_calloc_tagged(1, sizeof(rill__index_page), RILL_MEM_WORLD);
    return s->pages[p] != NULL;
}

void rill__set_put(rill__sparse_set *s, uint32_t slot, uint32_t d) {
    uint32_t p = slot >> RILL__PAGE_BITS;
    rill__index_page *page = p < s->page_cap ? s->pages[p] : NULL;
    if (page == NULL) {
        RILL_ASSERT(d == 0);
        return;
    }
    uint32_t *at = &page->at[slot & RILL__PAGE_MASK];
    if (*at == 0 && d != 0) {
        page->used++;
    } else if (*at != 0 && d == 0) {
        page->used--;
    }
    *at = d;
}

void rill__set_trim_pages(rill__sparse_set *s) {
    uint32_t top = 0; /* pages in use: table entries below this */
    for (uint32_t p = 0; p < s->page_cap; p++) {
        if (s->pages[p] != NULL && s->pages[p]->used == 0) {
            rill_free(s->pages[p]);
            s->pages[p] = NULL;
        }
        top = s->pages[p] != NULL ? p + 1u : top;
    }
    rill__array_trim((void **)&s->pages, &s->page_cap, top, top, sizeof(void *), 64u);
}

void rill__set_free_pages(rill__sparse_set *s) {
    for (uint32_t p = 0; p < s->page_cap; p++) {
        rill_free(s->pages[p]);
    }
    rill_free(s->pages);
    s->pages = NULL;
    s->page_cap = 0;
}
