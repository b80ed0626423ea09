/* lod_due.c: which of the models due for a LOD check are measured this update when more are due
 * than the check budget allows (the first update, the camera appearing or jumping, moves lost): a
 * sweep share in model order from a cursor that carries over between updates, so every model is
 * measured within a bounded number of updates, and the rest of the budget to the models nearest
 * the camera, which matter most to the picture.
 */
#include "stream_internal.h"

static void swap_due(rill__lod_due *a, rill__lod_due *b) {
    rill__lod_due t = *a;
    *a = *b;
    *b = t;
}

static float median3(float a, float b, float c) {
    if (a > b) {
        float t = a;
        a = b, b = t;
    }
    return c < a ? a : c > b ? b : c;
}

/* Moves the k smallest d2 to d[0, k) (quickselect, three-way partitions so equal keys end it). */
static void select_smallest(rill__lod_due *d, uint32_t len, uint32_t k) {
    uint32_t lo = 0, hi = len;
    while (hi - lo > 1u && k > lo && k < hi) {
        float p = median3(d[lo].d2, d[lo + (hi - lo) / 2u].d2, d[hi - 1u].d2);
        uint32_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (d[i].d2 < p) {
                swap_due(&d[lt++], &d[i++]);
            } else if (d[i].d2 > p) {
                swap_due(&d[i], &d[--gt]);
            } else {
                i++; /* equal, or NaN: kept in the middle */
            }
        }
        if (k <= lt) {
            hi = lt;
        } else if (k >= gt) {
            lo = gt;
        } else {
            return;
        }
    }
}

uint32_t rill__lod_due_choose(rill__lod_due *due, uint32_t len, uint32_t budget, uint32_t *cursor) {
    if (!budget || len <= budget) {
        return len;
    }
    uint32_t sweep = budget / LOD_SWEEP_SHARE ? budget / LOD_SWEEP_SHARE : 1u;
    uint32_t first = 0; /* due is in model order: the first at or after the cursor */
    while (first < len && due[first].model < *cursor) {
        first++;
    }
    uint32_t last = 0;
    for (uint32_t k = 0; k < sweep; k++) {
        uint32_t i = (first + k) % len;
        due[i].d2 = -1.0f; /* before any distance */
        last = due[i].model;
    }
    *cursor = last + 1u;
    select_smallest(due, len, budget);
    return budget;
}
