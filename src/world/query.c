/* query.c: multi-component queries. A query walks the dense array of its smallest `with` set
 * and hands out runs: stretches of that array whose entities sit in the same order at
 * consecutive positions of every other term's dense array. Entities that got their components
 * together (a bulk spawn, a scene load) lie that way, so a run covers thousands of them, is found
 * by comparing two arrays of ids, and is walked as plain arrays with no per-entity lookup. Where
 * the orders differ, runs shrink to single entities and the cost falls back to one sparse lookup
 * per term, as before. The per-entity iterator buffers a run and steps through it. */
#include "world_internal.h"

#include <string.h>

/* A query over desc, without a cache. */
static rill_query query_make(rill_world *world, const rill_query_desc *desc) {
    rill_query q;
    memset(&q, 0, sizeof q);
    q.world = world;
    if (world == NULL || desc == NULL) {
        return q;
    }
    q.desc = *desc;
    bool valid = true;
    for (uint32_t i = 0; i < RILL_QUERY_MAX_TERMS && desc->with[i].id != 0; i++) {
        valid = valid && rill__world_comp(world, desc->with[i]) != NULL;
        q.with_count++;
    }
    for (uint32_t i = 0; i < RILL_QUERY_MAX_TERMS && desc->without[i].id != 0; i++) {
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
    for (uint32_t i = 0; i < q.with_count; i++) {
        q.strides[i] = rill__world_comp(world, desc->with[i])->set.stride;
    }
    q.world_epoch = &world->epoch;
    /* Walk the driver backwards: when the current entity loses the driver component anyway (against
     * the rules), the swap brings in an already-visited element and nothing is skipped twice. */
    q.cursor = best;
    return q;
}

static const rill__sparse_set *term_set(const rill_query *q, uint32_t i) {
    return &q->world->components.data[q->desc.with[i].id - 1u].set;
}

static bool has_none_of_without(const rill_query *q, uint32_t slot) {
    for (uint32_t i = 0; i < q->without_count; i++) {
        const rill__sparse_set *s = &q->world->components.data[q->desc.without[i].id - 1u].set;
        if (rill__set_get(s, slot) != NULL) {
            return false;
        }
    }
    return true;
}

/* How far the run ending at driver index d (inclusive) reaches down: the largest k <= limit such
 * that driver entities d-k+1..d sit at other-term indices j[t]-k+1..j[t] and have no `without`
 * component. The single-other-term case without exclusions is the common one and gets a loop of
 * its own (two streams of ids compared in lockstep). */
static uint32_t run_length(const rill_query *q, const rill_entity *dd, uint32_t d,
                           const uint32_t *j, uint32_t limit) {
    uint32_t k = 1;
    if (q->with_count == 2 && q->without_count == 0) {
        const rill_entity *od = term_set(q, q->driver == 0 ? 1u : 0u)->dense;
        uint32_t jo = j[q->driver == 0 ? 1u : 0u];
        while (k < limit && dd[d - k] == od[jo - k]) {
            k++;
        }
        return k;
    }
    for (; k < limit; k++) {
        rill_entity e = dd[d - k];
        bool same = true;
        for (uint32_t t = 0; t < q->with_count && same; t++) {
            same = t == q->driver || term_set(q, t)->dense[j[t] - k] == e;
        }
        if (!same || !has_none_of_without(q, RILL_ENTITY_INDEX(e))) {
            break;
        }
    }
    return k;
}

/* Finds the next run below the cursor and fills count, entities and columns; starts[t] (when
 * not NULL) receives term t's dense index of entities[0]. */
static bool find_run(rill_query *q, uint32_t *starts) {
    q->count = 0;
    q->run_left = 0;
    if (q->with_count == 0 || q->world == NULL) {
        return false;
    }
    rill_world *w = q->world;
    q->epoch = w->epoch;
    const rill__sparse_set *driver = term_set(q, q->driver);
    if (q->cursor > driver->len) {
        q->cursor = driver->len; /* storage shrank under us: stay in bounds */
    }
    uint32_t j[RILL_QUERY_MAX_TERMS];
    while (q->cursor > 0) {
        uint32_t d = q->cursor - 1u;
        uint32_t slot = RILL_ENTITY_INDEX(driver->dense[d]);
        uint32_t limit = d + 1u; /* the run can reach down to driver index 0 */
        bool match = true;
        for (uint32_t t = 0; t < q->with_count && match; t++) {
            if (t == q->driver) {
                j[t] = d;
                continue;
            }
            const rill__sparse_set *s = term_set(q, t);
            uint32_t sd = rill__set_index(s, slot);
            match = sd != 0;
            j[t] = sd - 1u;
            limit = match ? RILL_MIN(limit, sd) : limit;
        }
        if (!match || !has_none_of_without(q, slot)) {
            q->cursor--;
            continue;
        }
        uint32_t k = run_length(q, driver->dense, d, j, limit);
        q->cursor = d + 1u - k;
        q->count = k;
        q->entities = driver->dense + q->cursor;
        for (uint32_t t = 0; t < q->with_count; t++) {
            const rill__sparse_set *s = term_set(q, t);
            q->columns[t] = s->data + (size_t)(j[t] + 1u - k) * s->stride;
            if (starts != NULL) {
                starts[t] = j[t] + 1u - k;
            }
        }
        return true;
    }
    return false;
}

/* >>cache ------------------------------------------------------------------------------------ */

struct rill_query_cache {
    rill_world *world;
    rill_query_desc desc;
    uint32_t versions[2 * RILL_QUERY_MAX_TERMS]; /* with, then without sets, when recorded */
    bool valid;     /* the records describe the storages as they are at `versions` */
    bool recording; /* an iteration is appending records */
    uint32_t token; /* the recording iteration's token: a newer iteration may take over */
    uint32_t used;  /* the world's memo clock at its last use (memo entries only) */
    uint32_t *runs; /* records of 2 + with_count: driver start, count, start of each term */
    uint32_t len, cap;
};

/* Term storages of a query in cache order: the with terms, then the without terms. */
static const rill__sparse_set *cache_set(const rill_query *q, uint32_t i) {
    rill_component c = i < q->with_count ? q->desc.with[i] : q->desc.without[i - q->with_count];
    return &q->world->components.data[c.id - 1u].set;
}

static bool versions_match(const rill_query *q, const rill_query_cache *c) {
    for (uint32_t i = 0; i < q->with_count + q->without_count; i++) {
        if (cache_set(q, i)->version != c->versions[i]) {
            return false;
        }
    }
    return true;
}

rill_query_cache *rill_world_query_cache(rill_world *world, const rill_query_desc *desc) {
    if (world == NULL || desc == NULL) {
        return NULL;
    }
    rill_query_cache *c = rill_calloc_tagged(1, sizeof *c, RILL_MEM_WORLD);
    if (c != NULL) {
        c->world = world;
        c->desc = *desc;
    }
    return c;
}

void rill_query_cache_destroy(rill_query_cache *cache) {
    if (cache != NULL) {
        rill_free(cache->runs);
        rill_free(cache);
    }
}

/* Points q at cache c: it replays c's records when they describe the storages as they are,
 * else it records its runs there. A newer iteration takes the recording over (the older one
 * then goes on without recording), so nested or abandoned iterations never mix records. */
static void cache_begin(rill_query *q, rill_query_cache *c) {
    q->cache = c;
    if (c->valid && versions_match(q, c)) {
        q->replaying = true;
        return;
    }
    c->valid = false;
    c->recording = true;
    c->len = 0;
    q->token = ++c->token;
    for (uint32_t i = 0; i < q->with_count + q->without_count; i++) {
        c->versions[i] = cache_set(q, i)->version;
    }
}

rill_query rill_query_cache_iter(rill_query_cache *cache) {
    if (cache == NULL) {
        return query_make(NULL, NULL);
    }
    rill_query q = query_make(cache->world, &cache->desc);
    if (q.with_count != 0) {
        cache_begin(&q, cache);
    }
    return q;
}

/* >>memo: the world's caches of plain queries, found by desc, the least recently used one
 * replaced when all RILL__QUERY_MEMO are taken. */

static rill_query_cache *memo_get(rill_world *w, const rill_query_desc *desc) {
    uint32_t oldest = 0;
    for (uint32_t i = 0; i < RILL__QUERY_MEMO; i++) {
        rill_query_cache *c = w->query_memo[i];
        if (c != NULL && memcmp(&c->desc, desc, sizeof *desc) == 0) {
            return c;
        }
        if (c == NULL || (w->query_memo[oldest] != NULL && c->used < w->query_memo[oldest]->used)) {
            oldest = i;
        }
    }
    rill_query_cache *c = w->query_memo[oldest];
    if (c == NULL) {
        c = rill_world_query_cache(w, desc);
        w->query_memo[oldest] = c;
    } else {
        c->desc = *desc; /* reused: its records describe another query */
        c->valid = false;
        c->recording = false;
        c->len = 0;
    }
    return c;
}

rill_query rill_world_query(rill_world *world, const rill_query_desc *desc) {
    rill_query q = query_make(world, desc);
    if (q.with_count == 0) {
        return q;
    }
    rill_query_cache *c = memo_get(world, &q.desc);
    if (c != NULL) {
        c->used = ++world->query_memo_clock;
        cache_begin(&q, c);
    }
    return q;
}

void rill__query_memo_free(rill_world *w) {
    for (uint32_t i = 0; i < RILL__QUERY_MEMO; i++) {
        rill_query_cache_destroy(w->query_memo[i]);
        w->query_memo[i] = NULL;
    }
}

/* Appends the run just found. Worlds so churned that runs are short are not worth remembering
 * (a record per handful of entities): past that bound the cache stops recording. */
static void cache_record(rill_query *q, const uint32_t *starts) {
    rill_query_cache *c = q->cache;
    uint32_t rec = 2u + q->with_count;
    uint32_t limit = 64u + term_set(q, q->driver)->len / 8u;
    if (c->len / rec >= limit ||
        !rill__world_grow((void **)&c->runs, &c->cap, c->len + rec, sizeof(uint32_t), false)) {
        c->recording = false;
        return;
    }
    uint32_t *r = c->runs + c->len;
    r[0] = q->cursor;
    r[1] = q->count;
    memcpy(r + 2, starts, q->with_count * sizeof(uint32_t));
    c->len += rec;
}

/* The next run of a cached iteration that replays its records. A structural change in the middle
 * (against the rules) drops the records and goes on finding runs from the cursor, as does an
 * iteration whose memo entry another query took over meanwhile. */
static bool replay_run(rill_query *q) {
    rill_query_cache *c = q->cache;
    bool mine = memcmp(&c->desc, &q->desc, sizeof q->desc) == 0; /* not taken over */
    if (!mine || !c->valid || !versions_match(q, c)) {
        if (mine) {
            c->valid = false; /* the storages changed under this iteration */
        }
        q->replaying = false;
        q->cache = NULL;
        return find_run(q, NULL);
    }
    q->run_left = 0;
    q->epoch = q->world->epoch;
    if (q->replay >= c->len) {
        q->count = 0;
        return false;
    }
    const uint32_t *r = c->runs + q->replay;
    q->replay += 2u + q->with_count;
    q->cursor = r[0];
    q->count = r[1];
    q->entities = term_set(q, q->driver)->dense + r[0];
    for (uint32_t t = 0; t < q->with_count; t++) {
        const rill__sparse_set *s = term_set(q, t);
        q->columns[t] = s->data + (size_t)r[2 + t] * s->stride;
    }
    return true;
}

/* The next run, from the cache's records or the storages (recording when the cache asks). */
static bool advance(rill_query *q) {
    if (q->replaying) {
        return replay_run(q);
    }
    uint32_t starts[RILL_QUERY_MAX_TERMS];
    bool recording = q->cache != NULL && q->cache->recording && q->cache->token == q->token;
    bool found = find_run(q, recording ? starts : NULL);
    if (!recording) {
        return found;
    }
    if (found) {
        cache_record(q, starts);
    } else {
        q->cache->recording = false;
        q->cache->valid = versions_match(q, q->cache);
    }
    return found;
}

/* >>iteration -------------------------------------------------------------------------------- */

bool rill_query_next_run(rill_query *q) {
    if (q == NULL) {
        return false;
    }
    q->entity = RILL_ENTITY_NULL;
    return advance(q);
}

bool rill__query_refill(rill_query *q) {
    if (q == NULL || q->with_count == 0 || q->world == NULL) {
        return false;
    }
    /* A structural change since the run was found (against the rules, but it must not crash)
     * invalidates its pointers: find a fresh run from the cursor instead. Within a run the walk
     * goes downwards, matching the driver's backward walk. */
    if (q->run_left != 0) {
        q->cursor += q->run_left; /* run elements not yet visited */
        q->run_left = 0;
        q->replaying = false; /* the cache's records are stale now */
        if (q->cache != NULL) {
            q->cache->valid = false;
            q->cache->recording = false;
            q->cache = NULL;
        }
    }
    if (!advance(q)) {
        q->entity = RILL_ENTITY_NULL;
        return false;
    }
    q->run_left = q->count;
    return true;
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
    copy.cursor = q->cursor + q->run_left;
    copy.run_left = 0;
    copy.cache = NULL;
    copy.replaying = false;
    uint32_t n = 0;
    while (find_run(&copy, NULL)) {
        n += copy.count;
    }
    return n;
}
