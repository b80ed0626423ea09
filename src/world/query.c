/* query.c: multi-component queries. A query walks the dense array of its smallest `with` set
 * and checks the other terms through their sparse arrays, so its cost follows the rarest
 * component rather than the entity count. */
#include "world_internal.h"

#include <string.h>

rill_query rill_world_query(rill_world *world, const rill_query_desc *desc) {
    rill_query q;
    memset(&q, 0, sizeof q);
    q.world = world;
    if (world == NULL || desc == NULL) {
        return q;
    }
    q.desc = *desc;
    bool valid = true;
    for (uint32_t i = 0; i < RILL_QUERY_MAX_TERMS && desc->with[i] != 0; i++) {
        valid = valid && rill__world_comp(world, desc->with[i]) != NULL;
        q.with_count++;
    }
    for (uint32_t i = 0; i < RILL_QUERY_MAX_TERMS && desc->without[i] != 0; i++) {
        valid = valid && rill__world_comp(world, desc->without[i]) != NULL;
        q.without_count++;
    }
    if (!valid || q.with_count == 0) {
        q.with_count = 0; /* yields nothing */
        return q;
    }
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < q.with_count; i++) {
        uint32_t len = rill__world_comp(world, desc->with[i])->set.len;
        if (len < best) {
            best = len;
            q.driver = i;
        }
    }
    /* Walk the driver backwards: when the current entity loses the driver component anyway (against
     * the rules), the swap brings in an already-visited element and nothing is skipped twice. */
    q.cursor = best;
    return q;
}

bool rill_query_next(rill_query *q) {
    if (q == NULL || q->with_count == 0 || q->world == NULL) {
        return false;
    }
    rill_world *w = q->world;
    const rill__sparse_set *driver = &rill__world_comp(w, q->desc.with[q->driver])->set;
    if (q->cursor > driver->len) {
        q->cursor = driver->len; /* storage shrank under us: stay in bounds */
    }
    while (q->cursor > 0) {
        uint32_t d = --q->cursor;
        rill_entity e = driver->dense[d];
        uint32_t slot = RILL_ENTITY_INDEX(e);
        bool match = true;
        for (uint32_t i = 0; i < q->with_count && match; i++) {
            if (i == q->driver) {
                q->data[i] = driver->data + (size_t)d * driver->stride;
                continue;
            }
            q->data[i] = rill__set_get(&w->components.data[q->desc.with[i] - 1u].set, slot);
            match = q->data[i] != NULL;
        }
        for (uint32_t i = 0; i < q->without_count && match; i++) {
            match = rill__set_get(&w->components.data[q->desc.without[i] - 1u].set, slot) == NULL;
        }
        if (match) {
            q->entity = e;
            return true;
        }
    }
    q->entity = RILL_ENTITY_NULL;
    return false;
}

void *rill_query_get(const rill_query *q, uint32_t term) {
    return (q != NULL && term < q->with_count && q->entity != RILL_ENTITY_NULL) ? q->data[term]
                                                                                : NULL;
}

uint32_t rill_query_count(const rill_query *q) {
    if (q == NULL) {
        return 0;
    }
    rill_query copy = *q;
    uint32_t n = 0;
    while (rill_query_next(&copy)) {
        n++;
    }
    return n;
}
