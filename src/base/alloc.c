/* alloc.c: tagged allocation through replaceable hooks, with live-byte accounting per tag.
 *
 * Every block carries a 16-byte header in front of the pointer handed out: the requested size and
 * the tag. The header keeps the user pointer 16-byte aligned (the hooks must return 16-byte
 * aligned memory, which glibc malloc does on 64-bit targets) and lets rill_free and rill_realloc
 * update the counters without the caller restating size or tag. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* mremap */
#endif
#include "rill/base.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
#define ALLOC_HAVE_MAPPED 1
#else
#define ALLOC_HAVE_MAPPED 0
#endif

typedef struct alloc_header {
    uint64_t size;
    uint32_t tag;
    uint32_t magic; /* catches frees of pointers that did not come from rill_malloc */
} alloc_header;

_Static_assert(sizeof(alloc_header) == 16, "the header must keep 16-byte alignment");

#define ALLOC_MAGIC 0x52494C4Cu /* "RILL" */
#define ALLOC_FREED 0x44454144u /* "DEAD": written on free to catch double frees in debug */
#define ALLOC_MAPPED                                                                               \
    0x4D415050u /* "MAPP": a block with a mapping of its own (rill_realloc_large) */
#define ALLOC_BULK                                                                                 \
    0x4B4C5542u /* "BULK": the same from rill_malloc_bulk (kept for reuse when freed) */

static _Atomic size_t live_bytes[RILL_MEM_TAG_NUM];
static _Atomic size_t live_total;

static void *libc_alloc(size_t size, void *user) {
    RILL_UNUSED(user);
    return malloc(size);
}
static void *libc_realloc(void *ptr, size_t size, void *user) {
    RILL_UNUSED(user);
    return realloc(ptr, size);
}
static void libc_free(void *ptr, void *user) {
    RILL_UNUSED(user);
    free(ptr);
}

static rill_allocator hooks = {libc_alloc, libc_realloc, libc_free, NULL};

void rill_set_allocator(const rill_allocator *allocator) {
    if (allocator == NULL || allocator->alloc == NULL || allocator->realloc == NULL ||
        allocator->free == NULL) {
        /* A partial set of hooks would mix allocators on the same block, so it means libc. */
        hooks = (rill_allocator){libc_alloc, libc_realloc, libc_free, NULL};
        return;
    }
    hooks = *allocator;
}

static uint32_t clamp_tag(rill_mem_tag tag) {
    return (uint32_t)tag < (uint32_t)RILL_MEM_TAG_NUM ? (uint32_t)tag : (uint32_t)RILL_MEM_GENERAL;
}

static void account_add(uint32_t tag, size_t size) {
    atomic_fetch_add_explicit(&live_bytes[tag], size, memory_order_relaxed);
    atomic_fetch_add_explicit(&live_total, size, memory_order_relaxed);
}

static void account_sub(uint32_t tag, size_t size) {
    atomic_fetch_sub_explicit(&live_bytes[tag], size, memory_order_relaxed);
    atomic_fetch_sub_explicit(&live_total, size, memory_order_relaxed);
}

void *rill_malloc_tagged(size_t size, rill_mem_tag tag) {
    if (size == 0 || size > SIZE_MAX - sizeof(alloc_header)) {
        return NULL;
    }
    alloc_header *h = hooks.alloc(sizeof(alloc_header) + size, hooks.user);
    if (h == NULL) {
        return NULL;
    }
    RILL_ASSERT(((uintptr_t)h & 15u) == 0);
    h->size = size;
    h->tag = clamp_tag(tag);
    h->magic = ALLOC_MAGIC;
    account_add(h->tag, size);
    return h + 1;
}

void *rill_calloc_tagged(size_t count, size_t size, rill_mem_tag tag) {
    if (count != 0 && size > SIZE_MAX / count) {
        return NULL;
    }
    void *p = rill_malloc_tagged(count * size, tag);
    if (p != NULL) {
        memset(p, 0, count * size);
    }
    return p;
}

/* >>mapped blocks: the header at the start of a mapping of its own, which grows and shrinks by
 * moving pages (mremap) instead of copying. */

#if ALLOC_HAVE_MAPPED
static size_t map_len(size_t size) {
    const size_t page = 4096;
    return (sizeof(alloc_header) + size + page - 1u) & ~(page - 1u);
}

static void *map_resize(alloc_header *h, size_t size) {
    size_t from = map_len((size_t)h->size), to = map_len(size);
    alloc_header *n = to == from ? h : mremap(h, from, to, MREMAP_MAYMOVE);
    if (n == MAP_FAILED) {
        return NULL; /* the old mapping is untouched */
    }
    account_sub(n->tag, (size_t)n->size);
    account_add(n->tag, size);
    n->size = size;
    return n + 1;
}

/* A new mapped block holding ptr's contents (ptr, a heap block, is freed). */
static void *map_new(void *ptr, size_t size, rill_mem_tag tag) {
    alloc_header *h =
        mmap(NULL, map_len(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h == MAP_FAILED) {
        return NULL;
    }
    const alloc_header *old = ptr ? (const alloc_header *)ptr - 1 : NULL;
    h->size = size;
    h->tag = old ? old->tag : clamp_tag(tag);
    h->magic = ALLOC_MAPPED;
    account_add(h->tag, size);
    if (old) {
        memcpy(h + 1, ptr, RILL_MIN((size_t)old->size, size));
        rill_free(ptr);
    }
    return h + 1;
}

static bool is_mapped(uint32_t magic) {
    return magic == ALLOC_MAPPED || magic == ALLOC_BULK;
}

/* >>bulk spares: the last bulk block freed (up to BULK_SPARE_MAX bytes) keeps its mapping for the
 * next rill_malloc_bulk, its pages handed back lazily (MADV_FREE: the kernel takes them when it
 * needs memory; until then the next block reuses them without faulting or zeroing). A loader
 * reading file after file then maps once, as a heap allocator's free list would give it. */

#define BULK_SPARE_MAX ((size_t)64 << 20)

static atomic_flag spare_lock = ATOMIC_FLAG_INIT;
static void *spare;      /* a freed bulk mapping, or NULL */
static size_t spare_len; /* its length */

static void spare_lock_take(void) {
    while (atomic_flag_test_and_set_explicit(&spare_lock, memory_order_acquire)) {
    }
}

static void spare_lock_give(void) {
    atomic_flag_clear_explicit(&spare_lock, memory_order_release);
}

/* Keeps a freed bulk mapping (len bytes) as the spare, unmapping the one it replaces; unmaps it
 * instead when it is too large or the system cannot free it lazily. */
static void spare_put(void *m, size_t len) {
#if defined(MADV_FREE)
    if (len <= BULK_SPARE_MAX && madvise(m, len, MADV_FREE) == 0) {
        spare_lock_take();
        void *old = spare;
        size_t old_len = spare_len;
        spare = m;
        spare_len = len;
        spare_lock_give();
        if (old != NULL) {
            munmap(old, old_len);
        }
        return;
    }
#endif
    munmap(m, len);
}

/* The spare mapping, cut to len bytes, when it has at least that many; else NULL. */
static void *spare_take(size_t len) {
    spare_lock_take();
    void *m = spare_len >= len ? spare : NULL;
    size_t have = spare_len;
    if (m != NULL) {
        spare = NULL;
        spare_len = 0;
    }
    spare_lock_give();
    if (m != NULL && have > len) {
        munmap((uint8_t *)m + len, have - len);
    }
    return m;
}

/* A new mapped block of `size` bytes: the spare when it is large enough (*out_fresh false: its
 * contents are whatever was there), else a mapping that starts on a 2 MiB boundary and is marked
 * for transparent huge pages before anything touches it, so every whole 2 MiB of it faults in
 * at once. The kernel only places a mapping on that boundary when its length is a multiple of
 * 2 MiB, so 2 MiB more is mapped and the ends outside the aligned range are unmapped again. */
static void *map_bulk(size_t size, rill_mem_tag tag, bool *out_fresh) {
    const size_t huge = (size_t)2 << 20;
    size_t len = map_len(size);
    uint8_t *start = spare_take(len);
    *out_fresh = start == NULL;
    if (start == NULL) {
        uint8_t *raw =
            mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) {
            return NULL;
        }
        start = (uint8_t *)(((uintptr_t)raw + huge - 1u) & ~(uintptr_t)(huge - 1u));
        if (start > raw) {
            munmap(raw, (size_t)(start - raw));
        }
        if (raw + len + huge > start + len) {
            munmap(start + len, (size_t)(raw + len + huge - (start + len)));
        }
#if defined(MADV_HUGEPAGE)
        (void)madvise(start, len, MADV_HUGEPAGE);
#endif
    }
    alloc_header *h = (alloc_header *)(void *)start;
    h->size = size;
    h->tag = clamp_tag(tag);
    h->magic = ALLOC_BULK;
    account_add(h->tag, size);
    return h + 1;
}
#endif

void *rill_malloc_bulk(size_t size, rill_mem_tag tag, bool *out_zeroed) {
    if (out_zeroed) {
        *out_zeroed = false;
    }
#if ALLOC_HAVE_MAPPED
    if (size >= RILL_BULK_MIN && size <= SIZE_MAX / 2u && hooks.alloc == libc_alloc) {
        bool fresh = false;
        void *p = map_bulk(size, tag, &fresh);
        if (p != NULL) {
            if (out_zeroed) {
                *out_zeroed = fresh; /* a fresh anonymous mapping reads as zeros */
            }
            return p;
        }
    }
#endif
    return rill_malloc_tagged(size, tag);
}

void *rill_realloc_large(void *ptr, size_t size, rill_mem_tag tag) {
#if ALLOC_HAVE_MAPPED
    const alloc_header *old = ptr ? (const alloc_header *)ptr - 1 : NULL;
    bool mapped = old && is_mapped(old->magic);
    if (!mapped && size >= RILL_MAPPED_MIN && size <= SIZE_MAX / 2u && hooks.alloc == libc_alloc) {
        return map_new(ptr, size, tag);
    }
#endif
    return rill_realloc_tagged(ptr, size, tag);
}

bool rill__mem_mapped(const void *ptr) {
#if ALLOC_HAVE_MAPPED
    return ptr != NULL && ((const alloc_header *)ptr - 1)->magic == ALLOC_MAPPED;
#else
    RILL_UNUSED(ptr);
    return false;
#endif
}

void *rill_realloc_tagged(void *ptr, size_t size, rill_mem_tag tag) {
    if (ptr == NULL) {
        return rill_malloc_tagged(size, tag);
    }
    if (size == 0) {
        rill_free(ptr);
        return NULL;
    }
    if (size > SIZE_MAX - sizeof(alloc_header)) {
        return NULL;
    }
    alloc_header *old = (alloc_header *)ptr - 1;
#if ALLOC_HAVE_MAPPED
    if (is_mapped(old->magic)) {
        return map_resize(old, size);
    }
#endif
    RILL_ASSERT(old->magic == ALLOC_MAGIC);
    /* The block keeps the tag it was born with, so the per-tag counters stay balanced even when
     * a caller reallocates with a different tag. */
    uint32_t keep_tag = old->tag;
    size_t old_size = (size_t)old->size;
    alloc_header *h = hooks.realloc(old, sizeof(alloc_header) + size, hooks.user);
    if (h == NULL) {
        return NULL; /* the old block is untouched, as with realloc */
    }
    RILL_ASSERT(((uintptr_t)h & 15u) == 0);
    h->size = size;
    account_sub(keep_tag, old_size);
    account_add(keep_tag, size);
    return h + 1;
}

void rill_free(void *ptr) {
    if (ptr == NULL) {
        return;
    }
    alloc_header *h = (alloc_header *)ptr - 1;
#if ALLOC_HAVE_MAPPED
    if (is_mapped(h->magic)) {
        account_sub(h->tag, (size_t)h->size);
        if (h->magic == ALLOC_BULK) {
            spare_put(h, map_len((size_t)h->size));
        } else {
            munmap(h, map_len((size_t)h->size));
        }
        return;
    }
#endif
    RILL_ASSERT(h->magic == ALLOC_MAGIC);
    account_sub(h->tag, (size_t)h->size);
    h->magic = ALLOC_FREED;
    hooks.free(h, hooks.user);
}

char *rill_strdup(const char *s) {
    if (s == NULL) {
        return NULL;
    }
    return rill_strndup(s, strlen(s));
}

char *rill_strndup(const char *s, size_t n) {
    if (s == NULL) {
        return NULL;
    }
    size_t len = strnlen(s, n);
    char *d = rill_malloc_tagged(len + 1, RILL_MEM_GENERAL);
    if (d != NULL) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

size_t rill_mem_live_bytes(rill_mem_tag tag) {
    if ((uint32_t)tag >= (uint32_t)RILL_MEM_TAG_NUM) {
        return 0;
    }
    return atomic_load_explicit(&live_bytes[tag], memory_order_relaxed);
}

size_t rill_mem_live_total(void) {
    return atomic_load_explicit(&live_total, memory_order_relaxed);
}

void rill_mem_advise_bulk(void *ptr, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Only whole pages inside the range; small ranges are not worth a system call (nor a huge
     * page). The advice is ignored for memory that is not anonymous (a custom allocator's). */
    if (ptr == NULL || size < ((size_t)4 << 20)) {
        return;
    }
    const uintptr_t page = 4096;
    uintptr_t a = ((uintptr_t)ptr + page - 1) & ~(page - 1);
    uintptr_t b = ((uintptr_t)ptr + size) & ~(page - 1);
    if (b > a) {
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#else
    RILL_UNUSED(ptr);
    RILL_UNUSED(size);
#endif
}
