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
