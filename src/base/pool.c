/* pool.c: generational 32-bit handles.
 *
 * An id is (generation << RILL_POOL_INDEX_BITS) | (slot + 1). Each slot stores its current
 * generation (low bits) and a live flag (top bit); an id is valid only while its slot is live with
 * the same generation, so freed and recycled ids are detected as stale. Generations have
 * 32 - RILL_POOL_INDEX_BITS = 12 bits and wrap, so a handle kept across 4096 reuses of one slot
 * could alias; that is the usual trade of 32-bit handles. */
#include "rill/base.h"

#include <string.h>

#define POOL_INDEX_MASK ((1u << RILL_POOL_INDEX_BITS) - 1u)
#define POOL_GEN_MASK ((1u << (32u - RILL_POOL_INDEX_BITS)) - 1u)
#define POOL_LIVE 0x80000000u

rill_result rill_pool_init(rill_pool *pool, uint32_t capacity) {
    if (pool == NULL) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    memset(pool, 0, sizeof(*pool));
    if (capacity == 0 || capacity > RILL_POOL_MAX_CAPACITY) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    pool->generations = rill_calloc_tagged(capacity, sizeof(uint32_t), RILL_MEM_CONTAINER);
    pool->free_list = rill_malloc_tagged((size_t)capacity * sizeof(uint32_t), RILL_MEM_CONTAINER);
    if (pool->generations == NULL || pool->free_list == NULL) {
        rill_pool_destroy(pool);
        return RILL_ERR_OUT_OF_MEMORY;
    }
    /* Pushed in reverse so slot 0 is handed out first: ids come out in a predictable order. */
    for (uint32_t i = 0; i < capacity; ++i) {
        pool->free_list[i] = capacity - 1u - i;
    }
    pool->free_len = capacity;
    pool->capacity = capacity;
    return RILL_OK;
}

void rill_pool_destroy(rill_pool *pool) {
    if (pool == NULL) {
        return;
    }
    rill_free(pool->generations);
    rill_free(pool->free_list);
    memset(pool, 0, sizeof(*pool));
}

uint32_t rill_pool_alloc(rill_pool *pool) {
    if (pool == NULL || pool->free_len == 0) {
        return 0;
    }
    uint32_t slot = pool->free_list[--pool->free_len];
    uint32_t gen = pool->generations[slot] & POOL_GEN_MASK;
    pool->generations[slot] = gen | POOL_LIVE;
    pool->live++;
    return (gen << RILL_POOL_INDEX_BITS) | (slot + 1u);
}

int32_t rill_pool_index(const rill_pool *pool, uint32_t id) {
    if (pool == NULL || id == 0) {
        return -1;
    }
    uint32_t slot = (id & POOL_INDEX_MASK) - 1u;
    if ((id & POOL_INDEX_MASK) == 0 || slot >= pool->capacity) {
        return -1;
    }
    uint32_t want = (id >> RILL_POOL_INDEX_BITS) | POOL_LIVE;
    return pool->generations[slot] == want ? (int32_t)slot : -1;
}

bool rill_pool_valid(const rill_pool *pool, uint32_t id) {
    return rill_pool_index(pool, id) >= 0;
}

bool rill_pool_free(rill_pool *pool, uint32_t id) {
    int32_t slot = rill_pool_index(pool, id);
    if (slot < 0) {
        return false;
    }
    /* Bumping the generation on free makes every copy of the old id stale at once. */
    uint32_t gen = (pool->generations[slot] + 1u) & POOL_GEN_MASK;
    pool->generations[slot] = gen;
    pool->free_list[pool->free_len++] = (uint32_t)slot;
    pool->live--;
    return true;
}
