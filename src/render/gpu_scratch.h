/* gpu_scratch.h: the per-frame scratch allocator both GPU backends share. Each frame slot owns
 * one host-visible buffer; allocations bump an offset and the slot resets when the frame starts
 * again. A backend's internal header includes this after gpu_backend_names.h, so the buffer calls
 * below compile to that backend's own functions (rill__vk_buf_create, rill__null_buf_create, ...).
 */
#ifndef RILL_RENDER_GPU_SCRATCH_H
#define RILL_RENDER_GPU_SCRATCH_H

#ifndef RILL__GPU_BACKEND_PREFIX
#error                                                                                             \
    "gpu_scratch.h is for backend files: include it after gpu_backend_names.h (the backend's internal header does)"
#endif

#include "gpu.h"

/* A frame slot's first scratch size. Growing mid-frame costs that frame a new host-visible
 * allocation (and, where the driver maps lazily, a page fault per first-touched page): at 4 MiB
 * the demo's two-camera fly used 3.9 MiB with a probe capture face, and a capture face that binned
 * a million light references grew both slots in turn. 16 MiB is made at start-up, outside any
 * frame; pages a driver maps lazily are paid as use first reaches them, a few at a time. */
#define RILL__SCRATCH_FIRST_BYTES (16u << 20)

/* Hands out size bytes at an offset aligned to align (a power of two) in *scratch, growing it
 * (twice the size, at least size + align) when full; the old buffer is destroyed deferred, so
 * allocations already handed out this frame stay valid. NULL when the new buffer fails. */
static inline void *rill__scratch_alloc(rill__gpu *gpu, rill__buf **scratch, uint64_t *used,
                                        uint64_t size, uint64_t align, rill__buf **out_buf,
                                        uint64_t *out_offset) {
    uint64_t off = RILL_ALIGN_UP(*used, align);
    uint64_t have = rill__buf_size(*scratch);
    if (off + size > have) {
        uint64_t want = RILL_MAX(have * 2, size + align);
        rill__buf *nb =
            rill__buf_create(gpu, want, RILL__BUF_STORAGE | RILL__BUF_UNIFORM | RILL__BUF_INDIRECT,
                             true, "frame scratch", NULL);
        if (!nb) {
            return NULL;
        }
        rill__buf_destroy(gpu, *scratch);
        *scratch = nb;
        off = 0;
    }
    *used = off + size;
    *out_buf = *scratch;
    *out_offset = off;
    return (uint8_t *)rill__buf_map(*scratch) + off;
}

#endif
