/* range_alloc.h: a first-fit free-list allocator over an abstract range [0, size). The GPU memory
 * sub-allocator uses one per memory block; it is pure logic so it is unit-tested without a GPU. */
#ifndef RILL_RENDER_RANGE_ALLOC_H
#define RILL_RENDER_RANGE_ALLOC_H

#include "rill/base.h"

typedef struct rill__range {
    uint64_t offset, size;
} rill__range;

typedef struct rill__range_alloc {
    uint64_t size;
    uint64_t used;
    RILL_ARRAY(rill__range) free; /* sorted by offset, never adjacent (always coalesced) */
} rill__range_alloc;

bool rill__range_init(rill__range_alloc *ra, uint64_t size);
void rill__range_destroy(rill__range_alloc *ra);
/* Returns true and the offset of `size` bytes aligned to `align` (a power of two). */
bool rill__range_alloc_bytes(rill__range_alloc *ra, uint64_t size, uint64_t align,
                             uint64_t *out_offset);
/* Frees a range returned by rill__range_alloc_bytes (same size). False when out of memory. */
bool rill__range_free(rill__range_alloc *ra, uint64_t offset, uint64_t size);
/* The largest free range, for fragmentation reports. */
uint64_t rill__range_largest_free(const rill__range_alloc *ra);

#endif
