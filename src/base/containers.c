/* containers.c: growable arrays (rill__array_reserve), the string buffer and the u64 -> u64 map. */
#include "rill/base.h"
#include <ctype.h>

#include <stdio.h>
#include <string.h>

/* >>array */

static bool array_grow(void **data, uint32_t *cap, uint32_t need, size_t elem_size,
                       uint32_t min_cap, rill_mem_tag tag, bool large) {
    if (need <= *cap) {
        return true;
    }
    uint64_t new_cap = *cap < min_cap ? min_cap : (uint64_t)*cap * 2u;
    if (new_cap < need) {
        new_cap = need;
    }
    if (new_cap > UINT32_MAX) {
        new_cap = UINT32_MAX;
    }
    if (elem_size == 0 || new_cap > SIZE_MAX / elem_size) {
        return false;
    }
    size_t bytes = (size_t)new_cap * elem_size;
    void *p =
        large ? rill_realloc_large(*data, bytes, tag) : rill_realloc_tagged(*data, bytes, tag);
    if (p == NULL) {
        return false;
    }
    *data = p;
    *cap = (uint32_t)new_cap;
    return true;
}

bool rill__array_grow(void **data, uint32_t *cap, uint32_t need, size_t elem_size, uint32_t min_cap,
                      rill_mem_tag tag) {
    return array_grow(data, cap, need, elem_size, min_cap, tag, false);
}

bool rill__array_grow_large(void **data, uint32_t *cap, uint32_t need, size_t elem_size,
                            uint32_t min_cap, rill_mem_tag tag) {
    return array_grow(data, cap, need, elem_size, min_cap, tag, true);
}

bool rill__array_reserve(void **data, uint32_t *cap, uint32_t need, size_t elem_size) {
    /* 8 avoids a string of tiny reallocations. */
    return rill__array_grow(data, cap, need, elem_size, 8u, RILL_MEM_CONTAINER);
}

bool rill__array_fit(void **data, uint32_t *cap, uint32_t len, uint32_t cap_to, size_t elem_size) {
    uint32_t to = RILL_MAX(cap_to, len);
    if (to == *cap) {
        return true;
    }
    if (to == 0) {
        rill_free(*data);
        *data = NULL;
        *cap = 0;
        return true;
    }
    if (elem_size == 0 || to > SIZE_MAX / elem_size) {
        return false;
    }
    /* realloc keeps the block's tag, so a grown array stays counted where it was born */
    void *p = *data ? rill_realloc_tagged(*data, (size_t)to * elem_size, RILL_MEM_CONTAINER)
                    : rill_malloc_tagged((size_t)to * elem_size, RILL_MEM_CONTAINER);
    if (p == NULL) {
        return false;
    }
    *data = p;
    *cap = to;
    return true;
}

bool rill__array_trim(void **data, uint32_t *cap, uint32_t len, uint32_t peak, size_t elem_size,
                      uint32_t floor) {
    peak = RILL_MAX(peak, len);
    if (*cap <= floor || peak >= *cap / 4u) {
        return false;
    }
    return rill__array_fit(data, cap, peak, RILL_MAX(*cap / 2u, floor), elem_size);
}

bool rill__array_size_for(void **data, uint32_t *cap, uint32_t len, uint32_t need,
                          size_t elem_size) {
    if (*cap >= need && (uint64_t)*cap <= 2u * (uint64_t)need) {
        return true;
    }
    uint64_t to = (uint64_t)need + need / 4u;
    /* a failed shrink leaves a block that still holds need */
    return rill__array_fit(data, cap, len, (uint32_t)RILL_MIN(to, UINT32_MAX), elem_size) ||
           *cap >= need;
}

/* >>strbuf */

/* Makes room for `extra` more bytes plus the terminating NUL. */
static bool strbuf_grow(rill_strbuf *sb, size_t extra) {
    uint64_t need = (uint64_t)sb->len + extra + 1u;
    if (need > UINT32_MAX) {
        return false;
    }
    return rill__array_reserve((void **)&sb->data, &sb->cap, (uint32_t)need, 1);
}

bool rill_strbuf_append(rill_strbuf *sb, const char *s, size_t n) {
    /* s may lie inside the buffer (appending its own text), and growing may move the buffer:
     * remember the offset so the copy reads the moved bytes, not freed memory. */
    bool inside = sb->data != NULL && s >= sb->data && s < sb->data + sb->len;
    size_t inside_at = inside ? (size_t)(s - sb->data) : 0;
    if (!strbuf_grow(sb, n)) {
        return false;
    }
    if (inside) {
        s = sb->data + inside_at;
    }
    if (n > 0) {
        memcpy(sb->data + sb->len, s, n);
    }
    sb->len += (uint32_t)n;
    sb->data[sb->len] = '\0';
    return true;
}

bool rill_strbuf_printf(rill_strbuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    /* Try to format into the spare room first; only a miss costs a second pass. */
    size_t room = sb->cap > sb->len ? sb->cap - sb->len : 0;
    int n = vsnprintf(room > 0 ? sb->data + sb->len : NULL, room, fmt, ap);
    va_end(ap);
    bool ok = n >= 0;
    if (ok && (size_t)n >= room) {
        ok = strbuf_grow(sb, (size_t)n);
        if (ok) {
            vsnprintf(sb->data + sb->len, (size_t)n + 1u, fmt, ap2);
        }
    }
    va_end(ap2);
    if (ok) {
        sb->len += (uint32_t)n;
    } else if (sb->data != NULL) {
        sb->data[sb->len] = '\0'; /* undo a partial write into the spare room */
    }
    return ok;
}

void rill_strbuf_free(rill_strbuf *sb) {
    rill_free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

/* >>map */

/* The murmur3 64-bit finalizer: full avalanche, so sequential ids and pointers spread well under
 * linear probing with a power-of-two mask. */
static uint64_t map_hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* Max load 3/4: probe lengths stay short while memory stays within 1.33x-2.66x of the keys. */
static bool map_over_load(uint32_t len, uint32_t cap) {
    return (uint64_t)len * 4u > (uint64_t)cap * 3u;
}

/* Finds the slot of key, or the empty slot where it would go. cap must be non-zero. */
static uint32_t map_find_slot(const rill_map *map, uint64_t key) {
    uint32_t mask = map->cap - 1u;
    uint32_t i = (uint32_t)map_hash(key) & mask;
    while (map->used[i] && map->keys[i] != key) {
        i = (i + 1u) & mask;
    }
    return i;
}

static bool map_rehash(rill_map *map, uint32_t new_cap) {
    /* One block for all three arrays: keys, then values, then the used flags. */
    size_t bytes = (size_t)new_cap * (sizeof(uint64_t) * 2u + 1u);
    uint8_t *block = rill_calloc_tagged(1, bytes, RILL_MEM_CONTAINER);
    if (block == NULL) {
        return false;
    }
    rill_map next = {0};
    next.keys = (uint64_t *)block;
    next.values = next.keys + new_cap;
    next.used = (uint8_t *)(next.values + new_cap);
    next.cap = new_cap;
    for (uint32_t i = 0; i < map->cap; ++i) {
        if (map->used[i]) {
            uint32_t s = map_find_slot(&next, map->keys[i]);
            next.used[s] = 1;
            next.keys[s] = map->keys[i];
            next.values[s] = map->values[i];
            next.len++;
        }
    }
    rill_free(map->keys);
    *map = next;
    return true;
}

bool rill_map_reserve(rill_map *map, uint32_t count) {
    uint64_t cap = map->cap != 0 ? map->cap : 16u;
    while (map_over_load(count, (uint32_t)cap)) {
        cap *= 2u;
        if (cap > (1ull << 31)) {
            return false;
        }
    }
    if (cap == map->cap) {
        return true;
    }
    return map_rehash(map, (uint32_t)cap);
}

bool rill_map_trim(rill_map *map, uint32_t floor) {
    /* Under 3/16 full: after halving it is under 3/8, well below the 3/4 that grows it. */
    if (map->cap <= RILL_MAX(floor, 16u) || (uint64_t)map->len * 16u >= (uint64_t)map->cap * 3u) {
        return false;
    }
    return map_rehash(map, map->cap / 2u);
}

/* The smallest power-of-two table (16 up) that holds count keys at most 3/4 full; 0 when none. */
static uint32_t map_cap_for(uint32_t count) {
    uint64_t cap = 16u;
    while (map_over_load(count, (uint32_t)cap)) {
        cap *= 2u;
        if (cap > (1ull << 31)) {
            return 0;
        }
    }
    return (uint32_t)cap;
}

bool rill_map_size_for(rill_map *map, uint32_t need) {
    uint32_t want = map_cap_for(RILL_MAX(need, map->len));
    if (want == 0) {
        return false;
    }
    if (map->cap >= want && (uint64_t)map->cap <= 2u * (uint64_t)want) {
        return map->cap >= map_cap_for(need);
    }
    return map_rehash(map, want) || map->cap >= map_cap_for(need);
}

bool rill_map_get(const rill_map *map, uint64_t key, uint64_t *out_value) {
    if (map->cap == 0) {
        return false;
    }
    uint32_t i = map_find_slot(map, key);
    if (!map->used[i]) {
        return false;
    }
    if (out_value != NULL) {
        *out_value = map->values[i];
    }
    return true;
}

bool rill_map_set(rill_map *map, uint64_t key, uint64_t value) {
    if (map->cap != 0) {
        uint32_t i = map_find_slot(map, key);
        if (map->used[i]) {
            map->values[i] = value;
            return true;
        }
    }
    if (map->cap == 0 || map_over_load(map->len + 1u, map->cap)) {
        if (!rill_map_reserve(map, map->len + 1u)) {
            return false;
        }
    }
    uint32_t i = map_find_slot(map, key);
    map->used[i] = 1;
    map->keys[i] = key;
    map->values[i] = value;
    map->len++;
    return true;
}

bool rill_map_remove(rill_map *map, uint64_t key) {
    if (map->cap == 0) {
        return false;
    }
    uint32_t mask = map->cap - 1u;
    uint32_t hole = map_find_slot(map, key);
    if (!map->used[hole]) {
        return false;
    }
    /* Backward-shift deletion: walk the cluster after the hole and move back every entry whose
     * home slot does not lie cyclically in (hole, j]; such an entry would otherwise become
     * unreachable once the hole breaks its probe chain. No tombstones are ever left. */
    uint32_t j = hole;
    for (;;) {
        j = (j + 1u) & mask;
        if (!map->used[j]) {
            break;
        }
        uint32_t home = (uint32_t)map_hash(map->keys[j]) & mask;
        bool home_in_range = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!home_in_range) {
            map->keys[hole] = map->keys[j];
            map->values[hole] = map->values[j];
            hole = j;
        }
    }
    map->used[hole] = 0;
    map->len--;
    return true;
}

void rill_map_clear(rill_map *map) {
    if (map->cap != 0) {
        memset(map->used, 0, map->cap);
    }
    map->len = 0;
}

void rill_map_free(rill_map *map) {
    rill_free(map->keys);
    *map = (rill_map){0};
}

bool rill_map_next(const rill_map *map, uint32_t *iter, uint64_t *out_key, uint64_t *out_value) {
    for (uint32_t i = *iter; i < map->cap; ++i) {
        if (map->used[i]) {
            if (out_key != NULL) {
                *out_key = map->keys[i];
            }
            if (out_value != NULL) {
                *out_value = map->values[i];
            }
            *iter = i + 1u;
            return true;
        }
    }
    *iter = map->cap;
    return false;
}

bool rill_str_ieq(const char *a, const char *b) {
    for (; *a && *b; ++a, ++b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
            return false;
        }
    }
    return *a == *b;
}
