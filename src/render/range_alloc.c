/* range_alloc.c: first-fit free list with coalescing (see range_alloc.h). Blocks hold a few
 * hundred allocations at most, so a sorted array beats a tree here. */
#include "range_alloc.h"

#include <string.h>

bool rill__range_init(rill__range_alloc *ra, uint64_t size) {
    memset(ra, 0, sizeof(*ra));
    ra->size = size;
    rill__range r = {0, size};
    return size == 0 || rill_array_push(&ra->free, r);
}

void rill__range_destroy(rill__range_alloc *ra) {
    rill_array_free(&ra->free);
    memset(ra, 0, sizeof(*ra));
}

static bool insert_at(rill__range_alloc *ra, uint32_t at, rill__range r) {
    if (!rill_array_reserve(&ra->free, ra->free.len + 1)) {
        return false;
    }
    memmove(&ra->free.data[at + 1], &ra->free.data[at], (ra->free.len - at) * sizeof(rill__range));
    ra->free.data[at] = r;
    ra->free.len++;
    return true;
}

static void remove_at(rill__range_alloc *ra, uint32_t at) {
    memmove(&ra->free.data[at], &ra->free.data[at + 1],
            (ra->free.len - at - 1) * sizeof(rill__range));
    ra->free.len--;
}

bool rill__range_alloc_bytes(rill__range_alloc *ra, uint64_t size, uint64_t align,
                             uint64_t *out_offset) {
    if (size == 0 || align == 0 || (align & (align - 1)) != 0) {
        return false;
    }
    for (uint32_t i = 0; i < ra->free.len; i++) {
        rill__range f = ra->free.data[i];
        uint64_t start = RILL_ALIGN_UP(f.offset, align);
        if (start < f.offset || start - f.offset > f.size || f.size - (start - f.offset) < size) {
            continue;
        }
        uint64_t front = start - f.offset;
        uint64_t back = f.size - front - size;
        /* Reserve room first so a failed insert leaves the list untouched. */
        if (front && back && !rill_array_reserve(&ra->free, ra->free.len + 1)) {
            return false;
        }
        if (front) {
            ra->free.data[i].size = front;
            if (back) {
                rill__range b = {start + size, back};
                insert_at(ra, i + 1, b);
            }
        } else if (back) {
            ra->free.data[i].offset = start + size;
            ra->free.data[i].size = back;
        } else {
            remove_at(ra, i);
        }
        ra->used += size;
        *out_offset = start;
        return true;
    }
    return false;
}

bool rill__range_free(rill__range_alloc *ra, uint64_t offset, uint64_t size) {
    uint32_t at = 0;
    while (at < ra->free.len && ra->free.data[at].offset < offset) {
        at++;
    }
    bool merge_prev = at > 0 && ra->free.data[at - 1].offset + ra->free.data[at - 1].size == offset;
    bool merge_next = at < ra->free.len && offset + size == ra->free.data[at].offset;
    if (merge_prev && merge_next) {
        ra->free.data[at - 1].size += size + ra->free.data[at].size;
        remove_at(ra, at);
    } else if (merge_prev) {
        ra->free.data[at - 1].size += size;
    } else if (merge_next) {
        ra->free.data[at].offset = offset;
        ra->free.data[at].size += size;
    } else {
        rill__range r = {offset, size};
        if (!insert_at(ra, at, r)) {
            return false;
        }
    }
    ra->used -= size;
    return true;
}

uint64_t rill__range_largest_free(const rill__range_alloc *ra) {
    uint64_t best = 0;
    for (uint32_t i = 0; i < ra->free.len; i++) {
        best = RILL_MAX(best, ra->free.data[i].size);
    }
    return best;
}
