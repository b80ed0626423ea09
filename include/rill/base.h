/* rill/base.h: the bottom layer every other module builds on.
 *
 * ON ERRORS
 *   Runtime failures are returned as `rill_result` codes. Functions that can say more fill an
 *   optional `rill_error*` (code + a message that names the file and the place). Codes and their
 *   strings come from one X-macro list, RILL_RESULT_LIST. API misuse is validated and reported with
 *   RILL_ERR_INVALID_ARGUMENT; internal invariants use RILL_ASSERT (no side effects inside).
 *
 * ON MEMORY
 *   Every allocation in Rill goes through rill_malloc/rill_calloc/rill_realloc/rill_free, which
 *   call the hooks installed with rill_set_allocator (default: libc). Install hooks before any
 *   other call. Each allocation carries a tag (RILL_MEM_*) so per-subsystem live bytes can be
 *   reported.
 *
 * ON LOGGING
 *   rill_logf() formats into a stack buffer and hands the line to the sink installed with
 *   rill_log_set_sink (default: stderr). The sink is called under a lock, from any thread.
 *
 * ON CONTAINERS
 *   RILL_ARRAY(T) is a growable array of T; rill_map is an open-addressing u64 -> u64 hash map;
 *   rill_pool hands out generational 32-bit handles (0 is never valid).
 *
 * ON THREADS
 *   rill_jobs is the job system: N workers run jobs; counters tell when a batch is done; workers
 *   post completions that the main thread drains under a time budget. A deterministic mode runs
 *   everything on the calling thread, in order.
 *
 * Depends on: libc, pthreads, xxhash.
 */
#ifndef RILL_BASE_H
#define RILL_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define RILL_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define RILL_PRINTF(fmt_idx, arg_idx)
#endif

/* An API that may still change shape; see CHANGELOG.md. */
#define RILL_EXPERIMENTAL

/* >>errors ------------------------------------------------------------------------------------ */

/* X(NAME, "message"). Append only: the numbers are stable and tests compare them. */
#define RILL_RESULT_LIST(X)                                                                        \
    X(OK, "ok")                                                                                    \
    X(ERR_INVALID_ARGUMENT, "invalid argument")                                                    \
    X(ERR_OUT_OF_MEMORY, "out of memory")                                                          \
    X(ERR_IO, "input/output error")                                                                \
    X(ERR_NOT_FOUND, "not found")                                                                  \
    X(ERR_PARSE, "parse error")                                                                    \
    X(ERR_TRUNCATED, "data is truncated")                                                          \
    X(ERR_CORRUPT, "data is corrupt")                                                              \
    X(ERR_UNSUPPORTED, "unsupported")                                                              \
    X(ERR_BUSY, "busy")                                                                            \
    X(ERR_CANCELLED, "cancelled")                                                                  \
    X(ERR_STALE_HANDLE, "stale or invalid handle")                                                 \
    X(ERR_POOL_EXHAUSTED, "pool exhausted")                                                        \
    X(ERR_CHECKSUM, "checksum mismatch")                                                           \
    X(ERR_LIMIT, "limit exceeded")                                                                 \
    X(ERR_VULKAN, "vulkan error")                                                                  \
    X(ERR_NO_DEVICE, "no suitable device")                                                         \
    X(ERR_ALREADY_EXISTS, "already exists")                                                        \
    X(ERR_VERSION, "version mismatch")

typedef enum rill_result {
#define RILL__RESULT_ENUM(name, msg) RILL_##name,
    RILL_RESULT_LIST(RILL__RESULT_ENUM)
#undef RILL__RESULT_ENUM
        RILL_RESULT_NUM,
    RILL_RESULT_FORCE_U32 = 0x7FFFFFFF
} rill_result;

/* The stable message of a code ("unknown" for out-of-range values). Static storage. */
const char *rill_result_str(rill_result code);
/* The stable identifier of a code, e.g. "RILL_ERR_PARSE". Static storage. */
const char *rill_result_name(rill_result code);

#define RILL_ERROR_MSG_MAX 512

/* A result code plus a human message. Zero-initialized means "no error". Callers own it. */
typedef struct rill_error {
    rill_result code;
    char msg[RILL_ERROR_MSG_MAX];
} rill_error;

/* Sets *err (when err is not NULL) and returns code, so `return rill_error_set(...)` reads well.
 * Messages name the file and the place: "scenes/a.rsn:12:5: expected '}'". */
rill_result rill_error_set(rill_error *err, rill_result code, const char *fmt, ...)
    RILL_PRINTF(3, 4);
/* Clears *err to "ok". err may be NULL. */
void rill_error_clear(rill_error *err);

/* The desc check every function taking a `rill_x_desc` runs on entry: a desc starts with
 * `uint32_t start_canary` and ends with `uint32_t end_canary`, both 0 in a zero-initialized desc,
 * so a desc filled field by field on the stack, or one built with positional initializers,
 * is refused instead of read. A NULL desc passes (it means "every default"). Returns RILL_OK, or
 * RILL_ERR_INVALID_ARGUMENT with a message naming `what` (the function). */
#define RILL_DESC_CHECK(desc, what, err)                                                           \
    ((desc) ? rill_desc_check((desc)->start_canary, (desc)->end_canary, (what), (err)) : RILL_OK)
rill_result rill_desc_check(uint32_t start_canary, uint32_t end_canary, const char *what,
                            rill_error *err);

/* >>assert ------------------------------------------------------------------------------------ */

typedef void (*rill_assert_fn)(const char *expr, const char *file, int line, void *user);
/* Replaces the assert hook (NULL restores the default, which logs and aborts). Tests install a
 * hook that records the failure and longjmps back, to check that misuse is caught (see
 * tests/rill_test.h). A hook that returns lets the failing code carry on. */
void rill_set_assert_hook(rill_assert_fn fn, void *user);
void rill__assert_fail(const char *expr, const char *file, int line);

#ifdef NDEBUG
#define RILL_ASSERT(cond) ((void)0)
#else
#define RILL_ASSERT(cond) ((cond) ? (void)0 : rill__assert_fail(#cond, __FILE__, __LINE__))
#endif

#define RILL_UNUSED(x) ((void)(x))
/* Evaluates `expr` (a rill_result) once and returns it from the calling function when it is not
 * RILL_OK: the one early-return helper of every module (and tools), for functions whose callee
 * has already filled the rill_error. */
#define RILL_TRY(expr)                                                                             \
    do {                                                                                           \
        rill_result rill_try_res_ = (expr);                                                        \
        if (rill_try_res_ != RILL_OK) {                                                            \
            return rill_try_res_;                                                                  \
        }                                                                                          \
    } while (0)
/* X-macro helpers for enums defined by a `RILL_X_LIST(X)` of X(ID, "name") entries: the enum
 * body is `RILL_X_LIST(RILL_ENUM_ID)`, its _name function a switch over
 * `RILL_X_LIST(RILL_ENUM_NAME_CASE)`, so values and names cannot drift apart. */
#define RILL_ENUM_ID(id, name) id,
#define RILL_ENUM_NAME_CASE(id, name)                                                              \
    case id:                                                                                       \
        return name;
#define RILL_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))
#define RILL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RILL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define RILL_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))
#define RILL_ALIGN_UP(v, a) (((v) + ((a)-1)) & ~((a)-1))

/* >>memory ------------------------------------------------------------------------------------ */

typedef enum rill_mem_tag {
    RILL_MEM_GENERAL = 0,
    RILL_MEM_CONTAINER,
    RILL_MEM_WORLD,
    RILL_MEM_ASSET,
    RILL_MEM_SCENE,
    RILL_MEM_FORMATS,
    RILL_MEM_RENDER,
    RILL_MEM_STREAM,
    RILL_MEM_JOBS,
    RILL_MEM_APP,
    RILL_MEM_PHYSICS,
    RILL_MEM_TERRAIN,
    RILL_MEM_SCRIPT, /* the Lua state: a garbage-collected heap, so it moves between collections */
    RILL_MEM_TAG_NUM,
    RILL_MEM_TAG_FORCE_U32 = 0x7FFFFFFF
} rill_mem_tag;

/* The allocator hooks. All three must be set together; a zero struct means libc. */
typedef struct rill_allocator {
    void *(*alloc)(size_t size, void *user);
    void *(*realloc)(void *ptr, size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} rill_allocator;

/* Installs process-wide allocator hooks. Call before anything allocates (a block must be freed
 * by the hooks that allocated it). The hooks must return 16-byte aligned memory. NULL, or a struct
 * with any of the three functions missing, restores libc. */
void rill_set_allocator(const rill_allocator *allocator);

/* Tagged allocation. Returned memory is 16-byte aligned. A size of 0 returns NULL.
 * Free with rill_free (NULL is a no-op). rill_realloc_tagged(NULL, n) allocates; (p, 0) frees p
 * and returns NULL; on failure it returns NULL and p is untouched; a block keeps the tag it was
 * allocated with (the tag argument only applies when ptr is NULL). Tags out of range count as
 * RILL_MEM_GENERAL. */
void *rill_malloc_tagged(size_t size, rill_mem_tag tag);
void *rill_calloc_tagged(size_t count, size_t size, rill_mem_tag tag); /* overflow -> NULL */
void *rill_realloc_tagged(void *ptr, size_t size, rill_mem_tag tag);
void rill_free(void *ptr);
/* rill_realloc_tagged for arrays that grow large (the world's storage): on Linux, with the default
 * allocator, a block of RILL_MAPPED_MIN bytes or more gets a mapping of its own, which then grows
 * and shrinks by moving pages (mremap) instead of copying its contents, so doubling a 100 MB array
 * costs microseconds, not a copy of it. Elsewhere, or below that size, it is rill_realloc_tagged.
 * rill_realloc_tagged and rill_free take such blocks too, and they count under their tag. */
void *rill_realloc_large(void *ptr, size_t size, rill_mem_tag tag);
#define RILL_MAPPED_MIN ((size_t)1 << 18)
/* A block about to be written in full at once (a file read into memory, a decoded vertex
 * array). On Linux, with the default allocator, one of RILL_BULK_MIN bytes or more gets a mapping
 * of its own, aligned to 2 MiB and marked for transparent huge pages, so filling it faults once
 * per 2 MiB instead of once per 4 KiB page (on the development machine a fault costs about 20 us:
 * 28 MB read into fresh memory spent 140 ms faulting); *out_zeroed (may be NULL) then says the
 * block already reads as zeros. The last such block freed (up to 64 MiB) keeps its mapping for
 * the next one, its pages given back lazily (MADV_FREE: the kernel takes them when it needs
 * memory), so a loader reading file after file does not fault or zero again; that block is not
 * zeroed. Elsewhere, or below that size, it is rill_malloc_tagged. Free with rill_free;
 * rill_realloc_tagged and rill_realloc_large take it. NULL when out of memory. */
void *rill_malloc_bulk(size_t size, rill_mem_tag tag, bool *out_zeroed);
#define RILL_BULK_MIN ((size_t)4 << 20)
/* Whether ptr (from these functions, or NULL) is such a block with a mapping of its own: resizing
 * it moves pages instead of copying, so its owner can keep its capacity close to what it holds. */
bool rill__mem_mapped(const void *ptr);
/* A hint that [ptr, ptr + size), inside a block from these functions, is about to be written in
 * full (a bulk spawn filling fresh storage). On Linux a range of 4 MiB or more is marked for
 * transparent huge pages (madvise MADV_HUGEPAGE), so first touches fault once per 2 MiB instead of
 * once per 4 KiB page: on the development machine that halved the time to spawn a million
 * entities. Elsewhere, and for smaller ranges, it does nothing. It never fails. */
void rill_mem_advise_bulk(void *ptr, size_t size);
#define rill_malloc(size) rill_malloc_tagged((size), RILL_MEM_GENERAL)
#define rill_calloc(count, size) rill_calloc_tagged((count), (size), RILL_MEM_GENERAL)
#define rill_realloc(ptr, size) rill_realloc_tagged((ptr), (size), RILL_MEM_GENERAL)
/* A copy of s (NUL-terminated), or of its first n bytes, owned by the caller (rill_free). */
char *rill_strdup(const char *s);
char *rill_strndup(const char *s, size_t n);

/* Live bytes per tag and in total (thread-safe counters). */
size_t rill_mem_live_bytes(rill_mem_tag tag);
size_t rill_mem_live_total(void);

/* >>log --------------------------------------------------------------------------------------- */

/* rill_log_level's values and their names (rill_log_level_name), one list. */
#define RILL_LOG_LEVEL_LIST(X)                                                                     \
    X(RILL_LOG_DEBUG, "debug")                                                                     \
    X(RILL_LOG_INFO, "info")                                                                       \
    X(RILL_LOG_WARN, "warn")                                                                       \
    X(RILL_LOG_ERROR, "error")                                                                     \
    X(RILL_LOG_NONE, "none") /* as a threshold: log nothing */
typedef enum rill_log_level {
    RILL__LOG_LEVEL_ZERO,             /* not a level: the levels start at 1 (stable numbers) */
    RILL_LOG_LEVEL_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_LOG_LEVEL_FORCE_U32 = 0x7FFFFFFF
} rill_log_level;

/* A log sink. `module` and `msg` are valid only during the call. */
typedef void (*rill_log_fn)(rill_log_level level, const char *module, const char *msg, void *user);

/* Installs the sink (NULL restores the default stderr sink, which writes "[level] module: msg").
 * The sink runs under the log lock: it must not log itself. Lines longer than 2 KiB are cut. */
void rill_log_set_sink(rill_log_fn fn, void *user);
/* Messages below `level` are dropped (default RILL_LOG_INFO). */
void rill_log_set_level(rill_log_level level);
rill_log_level rill_log_get_level(void);
void rill_logf(rill_log_level level, const char *module, const char *fmt, ...) RILL_PRINTF(3, 4);
void rill_logv(rill_log_level level, const char *module, const char *fmt, va_list ap);
const char *rill_log_level_name(rill_log_level level);

#define RILL_LOG_DEBUG(module, ...) rill_logf(RILL_LOG_DEBUG, (module), __VA_ARGS__)
#define RILL_LOG_INFO(module, ...) rill_logf(RILL_LOG_INFO, (module), __VA_ARGS__)
#define RILL_LOG_WARN(module, ...) rill_logf(RILL_LOG_WARN, (module), __VA_ARGS__)
#define RILL_LOG_ERROR(module, ...) rill_logf(RILL_LOG_ERROR, (module), __VA_ARGS__)

/* >>array ------------------------------------------------------------------------------------- */

/* A growable array of T: `RILL_ARRAY(float) xs = {0};`. Zero is an empty array. Memory is owned
 * by the array; release with rill_array_free. Pointers into `data` are invalidated by growth. */
#define RILL_ARRAY(T)                                                                              \
    struct {                                                                                       \
        T *data;                                                                                   \
        uint32_t len;                                                                              \
        uint32_t cap;                                                                              \
    }

/* Grows *data to hold at least `need` elements of `elem_size` bytes. Returns false on overflow or
 * out of memory (the array is unchanged then). */
bool rill__array_reserve(void **data, uint32_t *cap, uint32_t need, size_t elem_size);
/* The growth behind it, for modules with their own arrays: capacity doubles, starting at
 * `min_cap`, so appends stay amortized O(1); memory is tagged `tag`. Same failures. */
bool rill__array_grow(void **data, uint32_t *cap, uint32_t need, size_t elem_size, uint32_t min_cap,
                      rill_mem_tag tag);
/* The same through rill_realloc_large: an array past RILL_MAPPED_MIN grows without a copy. */
bool rill__array_grow_large(void **data, uint32_t *cap, uint32_t need, size_t elem_size,
                            uint32_t min_cap, rill_mem_tag tag);

/* Gives capacity back once use has fallen, for long-lived arrays whose use swings (per-frame
 * scratch, queues, caches): when `peak` (the most elements the owner used since it last trimmed;
 * a queue's current length) is under a quarter of *cap and *cap is above `floor`, the capacity
 * halves, never below floor nor the elements in use. Growth doubles when full and this halves
 * under a quarter, so a use that sways within a factor of four never reallocates. Call it where
 * the owner already does periodic work (once a frame, once an update), never per item. Returns
 * whether it reallocated (false too when the smaller block could not be had; nothing changes). */
bool rill__array_trim(void **data, uint32_t *cap, uint32_t len, uint32_t peak, size_t elem_size,
                      uint32_t floor);
/* Sets *cap to exactly `cap_to` (at least `len`, the elements in use), growing or shrinking, for
 * an owner that knows its working set (rather than doubling up to it). Same failures as grow. */
bool rill__array_fit(void **data, uint32_t *cap, uint32_t len, uint32_t cap_to, size_t elem_size);

/* Sizes an array for a working set the owner knows (a list rebuilt each frame for `need` items):
 * when the capacity is under need or over twice need, it becomes need + need/4 (at least len);
 * otherwise it stays. The capacity then follows the current working set with a factor-of-two
 * hysteresis, not the most the array ever held nor the power of two doubling happened to reach.
 * Returns whether capacity >= need (false: out of memory, the array unchanged). */
bool rill__array_size_for(void **data, uint32_t *cap, uint32_t len, uint32_t need,
                          size_t elem_size);

#define rill_array_reserve(a, n)                                                                   \
    rill__array_reserve((void **)&(a)->data, &(a)->cap, (n), sizeof(*(a)->data))
#define rill_array_trim(a, peak, floor)                                                            \
    rill__array_trim((void **)&(a)->data, &(a)->cap, (a)->len, (peak), sizeof(*(a)->data), (floor))
#define rill_array_size_for(a, need)                                                               \
    rill__array_size_for((void **)&(a)->data, &(a)->cap, (a)->len, (need), sizeof(*(a)->data))
#define rill_array_fit(a, cap_to)                                                                  \
    rill__array_fit((void **)&(a)->data, &(a)->cap, (a)->len, (cap_to), sizeof(*(a)->data))
/* Appends v; evaluates to false when out of memory. */
#define rill_array_push(a, v)                                                                      \
    (rill_array_reserve((a), (a)->len + 1u) ? ((a)->data[(a)->len++] = (v), true) : false)
/* Appends n uninitialized elements; evaluates to a pointer to the first, or NULL. */
#define rill_array_push_n(a, n)                                                                    \
    (rill_array_reserve((a), (a)->len + (n)) ? ((a)->len += (n), &(a)->data[(a)->len - (n)]) : NULL)
#define rill_array_pop(a) ((a)->data[--(a)->len])
#define rill_array_last(a) ((a)->data[(a)->len - 1u])
#define rill_array_clear(a) ((a)->len = 0)
/* Removes element i by moving the last one into its place (O(1), order not kept). */
#define rill_array_swap_remove(a, i) ((a)->data[(i)] = (a)->data[--(a)->len])
#define rill_array_free(a)                                                                         \
    do {                                                                                           \
        rill_free((a)->data);                                                                      \
        (a)->data = NULL;                                                                          \
        (a)->len = (a)->cap = 0;                                                                   \
    } while (0)

/* A growable byte buffer with printf-style appends; always NUL-terminated when non-empty. */
typedef struct rill_strbuf {
    char *data;
    uint32_t len;
    uint32_t cap;
} rill_strbuf;
bool rill_strbuf_append(rill_strbuf *sb, const char *s, size_t n);
bool rill_strbuf_printf(rill_strbuf *sb, const char *fmt, ...) RILL_PRINTF(2, 3);
void rill_strbuf_free(rill_strbuf *sb);
/* True when a and b are equal ignoring ASCII case. */
bool rill_str_ieq(const char *a, const char *b);

/* suggest.c: "did you mean". Of the count names get(ctx, i) gives (NULL ones skipped), the one
 * closest to name[0..len) by edit distance (case ignored, a swap of two neighbours is one edit)
 * when it is close enough to be a typo of it (at most a third of its letters, 1 to 3), else NULL.
 * Names longer than 64 bytes are never suggested. */
const char *rill_suggest_name(const char *name, size_t len,
                              const char *(*get)(const void *ctx, uint32_t i), const void *ctx,
                              uint32_t count);
/* rill_suggest_name over an array of count NUL-terminated names. */
const char *rill_suggest_from_list(const char *name, const char *const *names, uint32_t count);

/* >>map --------------------------------------------------------------------------------------- */

/* An open-addressing hash map from u64 keys to u64 values (linear probing, tombstone-free
 * backward-shift deletion). Zero-initialized is an empty map. Key hashing is done inside; any
 * u64 is a valid key. */
typedef struct rill_map {
    uint64_t *keys;
    uint64_t *values;
    uint8_t *used;
    uint32_t cap; /* power of two, or 0 */
    uint32_t len;
} rill_map;

bool rill_map_get(const rill_map *map, uint64_t key, uint64_t *out_value);
/* Inserts or overwrites. Returns false when out of memory (map unchanged). */
bool rill_map_set(rill_map *map, uint64_t key, uint64_t value);
/* Removes key; returns whether it was present. */
bool rill_map_remove(rill_map *map, uint64_t key);
/* Pre-sizes for `count` keys without growth. */
bool rill_map_reserve(rill_map *map, uint32_t count);
/* The map's rill_array_trim: when its keys fill under a quarter of what it holds before growing
 * (3/16 of cap) and cap is above floor, the table halves (a rehash). Call it at the owner's
 * periodic work, not per key. Returns whether it rehashed. */
bool rill_map_trim(rill_map *map, uint32_t floor);
/* The map's rill_array_size_for: sized for `need` keys (the smallest table holding them at most 3/4
 * full) when smaller than that, or over twice it (and the keys it holds fit); otherwise it stays.
 * Returns whether it holds need keys without growing (false: out of memory, map unchanged). */
bool rill_map_size_for(rill_map *map, uint32_t need);
void rill_map_clear(rill_map *map);
void rill_map_free(rill_map *map);
/* Iteration: `for (uint32_t it = 0; rill_map_next(&m, &it, &k, &v);)`. Do not modify while
 * iterating. */
bool rill_map_next(const rill_map *map, uint32_t *iter, uint64_t *out_key, uint64_t *out_value);

/* >>hash -------------------------------------------------------------------------------------- */

/* XXH3 64-bit. */
uint64_t rill_hash64(const void *data, size_t size);
uint64_t rill_hash64_seed(const void *data, size_t size, uint64_t seed);
uint64_t rill_hash64_str(const char *s);

/* >>intern ------------------------------------------------------------------------------------ */

/* String interning: equal strings give the same pointer, stable until rill_interner_destroy.
 * Thread-safe. A process-wide interner is available through rill_intern(). */
typedef struct rill_interner rill_interner;
rill_interner *rill_interner_create(void);
void rill_interner_destroy(rill_interner *in);
/* Returns the interned copy of s[0..len) (NUL-terminated; s need not be), or NULL when out of
 * memory. s may be NULL only with len 0 (the empty string). */
const char *rill_interner_get(rill_interner *in, const char *s, size_t len);
/* The process-wide interner, created on first use; strings live until rill_intern_shutdown(),
 * which must not race with other calls (a later rill_intern starts a fresh interner). */
const char *rill_intern(const char *s);
const char *rill_intern_n(const char *s, size_t len);
void rill_intern_shutdown(void);

/* >>limits ------------------------------------------------------------------------------------ */

/* ON LIMITS
 *   Every file is hostile, so each decoder checks what a file asks for against one process-wide
 *   set of limits before it commits memory or time. The list below is the only place the limits
 *   and their defaults are written (docs/limits.md explains each); a zero field of rill_limits
 *   means "the default". Embedders set them with rill_limits_set() before loading; programs built
 *   on Rill read the RILL_LIMITS environment variable with rill_limits_from_env() (the `rill`
 *   CLI does, and also takes `--limit name=value`). A failed check is RILL_ERR_LIMIT with a message
 *   that names the file, the limit, the value asked for and how to raise it.
 *
 * X(ID, field, default, unit, what it bounds). Append only. */
#define RILL_LIMIT_LIST(X)                                                                         \
    X(FILE_BYTES, file_bytes, (uint64_t)1 << 30, "bytes", "bytes of one file read whole")          \
    X(MODEL_BYTES, model_bytes, (uint64_t)1 << 30, "bytes", "decoded bytes of one model")          \
    X(IMAGE_PIXELS, image_pixels, (uint64_t)1 << 26, "pixels", "pixels of one image")              \
    X(IMAGE_BYTES, image_bytes, (uint64_t)1 << 30, "bytes", "decoded bytes of one image")          \
    X(ENTRY_BYTES, entry_bytes, (uint64_t)1 << 30, "bytes", "decoded bytes of one pack entry")     \
    X(DECOMPRESSED_BYTES, decompressed_bytes, (uint64_t)16 << 30, "bytes",                         \
      "decompressed bytes all compressed entries of one pack declare")                             \
    X(COMPRESSION_RATIO, compression_ratio, 1024, "to 1",                                          \
      "decoded bytes per stored byte of one compressed entry")                                     \
    X(SCENE_ENTITIES, scene_entities, (uint64_t)1 << 20, "entities",                               \
      "entities one scene load may create, counted from declared counts before expansion")         \
    X(SCENE_DEPTH, scene_depth, 8, "levels", "nesting of scene instances in one load")             \
    X(MODEL_EXPANSION, model_expansion, 1024, "to 1",                                              \
      "decoded bytes of one model per byte of its file and buffers (at least 4 MiB)")

typedef enum rill_limit {
#define RILL__LIMIT_ENUM(id, field, def, unit, what) RILL_LIMIT_##id,
    RILL_LIMIT_LIST(RILL__LIMIT_ENUM)
#undef RILL__LIMIT_ENUM
        RILL_LIMIT_NUM,
    RILL_LIMIT_FORCE_U32 = 0x7FFFFFFF
} rill_limit;

/* The limits as a struct (one uint64_t field per RILL_LIMIT_LIST entry, same names), plus the
 * symbolic-link rule of rill_file_open: links_inside_root false (the default) refuses every link
 * met below a root; true follows links whose target stays inside the root. Links that leave the
 * root are always refused. */
typedef struct rill_limits {
#define RILL__LIMIT_FIELD(id, field, def, unit, what) uint64_t field;
    RILL_LIMIT_LIST(RILL__LIMIT_FIELD)
#undef RILL__LIMIT_FIELD
    bool links_inside_root;
} rill_limits;

/* Every field at its default. */
rill_limits rill_limits_query_defaults(void);
/* Copies the limits in force into *out. */
void rill_limits_get(rill_limits *out);
/* Sets every limit from *limits (zero fields mean their defaults; NULL restores all defaults).
 * Readers on other threads see each value atomically, but set the limits before loads start so a
 * load never mixes old and new values. */
void rill_limits_set(const rill_limits *limits);
/* One limit in force. Cheap (an atomic load): read it where the check happens. */
uint64_t rill_limit_get(rill_limit id);
/* The links_inside_root rule in force (false by default). */
bool rill_limits_links_inside_root(void);
/* The field name of a limit ("image_pixels"), as RILL_LIMITS and --limit spell it. Static. */
const char *rill_limit_name(rill_limit id);
/* RILL_OK when value <= the limit in force; otherwise RILL_ERR_LIMIT with the message
 * "<where>: <value> <unit> exceeds the <name> limit of <limit> (raise it: RILL_LIMITS=<name>=N,
 * rill --limit <name>=N, or rill_limits_set)". `where` names the file and place; never file bytes.
 */
rill_result rill_limit_check(rill_limit id, uint64_t value, const char *where, rill_error *err);
/* Applies "name=value[,name=value...]" to *inout. Values are decimal with an optional K, M, G or
 * T suffix (powers of 1024); "links_inside_root" takes 0 or 1. Unknown names are an error. */
rill_result rill_limits_parse(const char *spec, rill_limits *inout, rill_error *err);
/* Sets the limits from the RILL_LIMITS environment variable on top of the defaults (nothing to
 * do when it is unset). For programs; libraries leave the environment to their embedder. */
rill_result rill_limits_from_env(rill_error *err);

/* >>files ------------------------------------------------------------------------------------- */

/* ON FILES
 *   Every engine read opens its file through rill_file_open, which treats the file system as
 *   hostile: only regular files are read (a FIFO, device, socket or folder is refused before a
 *   byte is read, and the open never blocks), the size is known before memory is committed, and a
 *   read confined to a root (a project folder, a folder being packed) cannot leave it through
 *   '..' or symbolic links (see rill_limits.links_inside_root). */

/* An open, checked regular file. fd is a POSIX descriptor; size is its size when opened. */
typedef struct rill_file {
    int fd;
    uint64_t size;
} rill_file;

/* Opens path for reading. root NULL: the path is trusted (the user named it). root set: path must
 * be root + '/' + a relative rest; a '..' component or a symbolic link anywhere below root is
 * refused, unless links_inside_root is set and the link's target stays inside root. Errors name
 * the path and why (RILL_ERR_NOT_FOUND; RILL_ERR_IO, also for a file that is not a regular file;
 * RILL_ERR_LIMIT for a link or an escape). Close *out with rill_file_close. */
rill_result rill_file_open(const char *path, const char *root, rill_file *out, rill_error *err);
/* Closes f (a zeroed or already closed rill_file is fine). */
void rill_file_close(rill_file *f);
/* Reads a whole file opened through rill_file_open(path, root). A file larger than max_bytes
 * (0: the file_bytes limit) is refused before any byte is read. *out_data is owned by the caller
 * (rill_free) and has a NUL after the last byte (not counted in *out_size). */
rill_result rill_file_read_all_in(const char *root, const char *path, uint64_t max_bytes,
                                  uint8_t **out_data, size_t *out_size, rill_error *err);
/* Reads exactly `size` bytes at `offset` of a file opened through rill_file_open(path, root). A
 * short file is RILL_ERR_TRUNCATED. */
rill_result rill_file_read_range_in(const char *root, const char *path, uint64_t offset,
                                    size_t size, void *dst, rill_error *err);
/* rill_file_read_all_in(NULL, path, 0, ...): a trusted path, capped by the file_bytes limit. */
rill_result rill_file_read_all(const char *path, uint8_t **out_data, size_t *out_size,
                               rill_error *err);
/* rill_file_read_range_in(NULL, path, ...). */
rill_result rill_file_read_range(const char *path, uint64_t offset, size_t size, void *dst,
                                 rill_error *err);
/* Writes a whole file atomically (temp file in the same folder, then rename): readers see the
 * old or the new content, never a mix. No fsync: atomic against crashes of the process, not
 * against power loss. The folder must exist (RILL_ERR_NOT_FOUND otherwise). */
rill_result rill_file_write_all(const char *path, const void *data, size_t size, rill_error *err);
bool rill_file_exists(const char *path);
bool rill_dir_exists(const char *path);
/* Size in bytes, or -1 when the file cannot be stat'ed. */
int64_t rill_file_size(const char *path);
/* Modification time in nanoseconds since the epoch, or 0. */
uint64_t rill_file_mtime_ns(const char *path);
/* Creates the folder and its missing parents. */
rill_result rill_dir_create_all(const char *path, rill_error *err);
/* Removes a folder and all it holds (used by tests and tools on their own output). Symbolic links
 * are removed, never followed. A missing folder is RILL_OK; a path that is a file is
 * RILL_ERR_INVALID_ARGUMENT. */
rill_result rill_dir_remove_all(const char *path, rill_error *err);
/* Calls fn for every regular file under root, recursively, with a path relative to root using '/'.
 * Entries come in sorted order within each folder (strcmp order; files and folders mixed, so
 * "a/x" comes before "b"). Links to folders are not followed. rel_path is valid only during the
 * call. Returns the first non-OK result of fn. */
typedef rill_result (*rill_dir_visit_fn)(const char *rel_path, void *user);
rill_result rill_dir_walk(const char *root, rill_dir_visit_fn fn, void *user, rill_error *err);
/* Path of the running executable (may fail: returns false). */
bool rill_exe_path(char *dst, size_t cap);

/* >>paths ------------------------------------------------------------------------------------- */

/* All path helpers write a NUL-terminated result into dst[cap] and return false (dst set to "")
 * when it does not fit. */
/* a + '/' + b, with one '/' between them (leading '/' of b dropped); an empty side gives the
 * other. dst may be a, but must not overlap b. NULL counts as "". */
bool rill_path_join(char *dst, size_t cap, const char *a, const char *b);
/* Normalizes a project-relative asset path: '\\' -> '/', collapses '//' and '.', resolves '..',
 * drops a trailing '/' ("a/.." gives ""). Fails for absolute paths ("/x", "\\x", "C:x"), for
 * '..' that would leave the root and for input of 4 KiB or more. dst may be path (in place). */
bool rill_path_normalize(char *dst, size_t cap, const char *path);
/* Folder part without the trailing '/', "" when none ("a/b/c" -> "a/b", "a/b/" -> "a",
 * "/x" -> "/"). */
bool rill_path_dirname(char *dst, size_t cap, const char *path);
/* Pointer into path: the file name after the last '/'. */
const char *rill_path_basename(const char *path);
/* Pointer into path: the extension without the dot (after the last '.' of the basename), or "".
 * A leading dot is not an extension (".gitignore" -> ""). Split off a "#label" first. */
const char *rill_path_ext(const char *path);
/* True when the extension of path (rill_path_ext) equals ext, ignoring ASCII case ("PNG" = "png").
 */
bool rill_path_ext_is(const char *path, const char *ext);
/* Splits "a/b.rmip#low" at the first '#' into the path (copied to dst_path) and the label
 * (*out_label points into path; "" when none). out_label may be NULL. */
bool rill_path_split_label(const char *path, char *dst_path, size_t cap, const char **out_label);

/* >>text -------------------------------------------------------------------------------------- */

/* One syntax for numbers in every text format (.rsn, reflection's text form, settings):
 * integers are decimal or 0x hex with an optional sign; floats are decimal with optional
 * fraction and exponent, or inf, -inf, nan. No locale, no hex floats, no surrounding spaces: the
 * whole of s[0, len) must be the token (it need not be NUL-terminated). */

/* An integer token. *out_mag gets the magnitude (UINT64_MAX with *out_overflow set when it does
 * not fit 64 bits), *out_neg whether it is negative (never for 0). False = not an integer. */
bool rill_num_parse_int(const char *s, size_t len, bool *out_neg, uint64_t *out_mag,
                        bool *out_overflow);
/* A float token, correctly rounded to the type (never through the other type). False = bad
 * form. */
bool rill_num_parse_f32(const char *s, size_t len, float *out);
bool rill_num_parse_f64(const char *s, size_t len, double *out);
/* Writes the shortest text that rill_num_parse_* reads back to exactly v (plain decimal for
 * exponents -5..15, else d.ddde+XX; "-0", "inf", "nan"); returns its length. cap >= 32. */
uint32_t rill_num_format_f32(float v, char *dst, size_t cap);
uint32_t rill_num_format_f64(double v, char *dst, size_t cap);
/* Appends s[0, len) to out as a quoted string with C escapes (\" \\ \n \r \t \0, \xHH for
 * other control bytes): the string form of .rsn and of reflection's text. False when out of
 * memory. */
bool rill_text_quote(rill_strbuf *out, const char *s, size_t len);
/* Whether text starts with a UTF-16 byte-order mark (FF FE or FE FF: what Windows editors save
 * as "Unicode"), which the UTF-8 text readers refuse naming RILL_TEXT_UTF16_HINT. */
bool rill_text_is_utf16(const void *text, size_t len);
#define RILL_TEXT_UTF16_HINT "the file is UTF-16 (it starts with FF FE or FE FF); save it as UTF-8"
/* The value of a hex digit, or -1. */
int rill_hex_digit(char c);
/* Percent-decodes a URI into dst (NUL-terminated). False when the result contains a NUL (%00)
 * or does not fit cap. A '%' not followed by two hex digits stays as it is. */
bool rill_uri_decode(char *dst, size_t cap, const char *uri);
/* Whether a decoded URI names a path relative to the referring file: not empty, not absolute
 * ('/' or '\\' first), no scheme or drive (a ':' before the first separator, or "://"). It may
 * still hold ".." segments: join it to the referring file's folder and normalize it under the
 * root reads are confined to (rill_path_normalize, rill_file_open). */
bool rill_uri_is_relative_path(const char *path);

/* >>time -------------------------------------------------------------------------------------- */

/* Monotonic nanoseconds. */
uint64_t rill_time_ns(void);
/* CPU nanoseconds the calling thread has run (not counting time it was preempted or asleep). */
uint64_t rill_thread_cpu_ns(void);
double rill_time_sec(void);
void rill_sleep_ns(uint64_t ns);

/* A clock a subsystem reads its time from, so tests can drive time by hand. A zero clock means
 * rill_time_ns. */
typedef struct rill_clock {
    uint64_t (*now_ns)(void *user);
    void *user;
} rill_clock;
uint64_t rill_clock_now(const rill_clock *clock);

/* >>threads ----------------------------------------------------------------------------------- */

typedef struct rill_mutex {
    uint64_t opaque[8];
} rill_mutex;
typedef struct rill_cond {
    uint64_t opaque[8];
} rill_cond;
void rill_mutex_init(rill_mutex *m);
void rill_mutex_destroy(rill_mutex *m);
void rill_mutex_lock(rill_mutex *m);
void rill_mutex_unlock(rill_mutex *m);
void rill_cond_init(rill_cond *c);
void rill_cond_destroy(rill_cond *c);
void rill_cond_wait(rill_cond *c, rill_mutex *m);
/* Waits at most timeout_ns (monotonic clock). Returns false on timeout. */
bool rill_cond_wait_ns(rill_cond *c, rill_mutex *m, uint64_t timeout_ns);
void rill_cond_signal(rill_cond *c);
void rill_cond_broadcast(rill_cond *c);
/* Number of online CPU cores (at least 1). */
uint32_t rill_cpu_count(void);

/* Where a thread waited instead of running: time blocked in rill_mutex_lock (only when another
 * thread held the lock) and in rill_cond_wait / rill_cond_wait_ns, counted for the calling thread
 * since it started, plus the longest single lock and condition waits and the code addresses that
 * waited (the caller of rill_mutex_lock / rill_cond_wait, relative to the loaded binary's base:
 * `addr2line -f -e BINARY 0xADDR` names it). A measuring tool (rill fly) reads it before and after
 * a phase to tell a phase that was slow from one that waited. */
typedef struct rill_thread_blocked {
    uint64_t lock_ns;      /* total time waiting for contended locks */
    uint64_t cond_ns;      /* total time inside condition waits */
    uint64_t lock_max_ns;  /* the longest single lock wait */
    uintptr_t lock_max_at; /* its call site, relative to the binary's base */
    uint64_t cond_max_ns;  /* the longest single condition wait */
    uintptr_t cond_max_at; /* its call site (the caller of rill_cond_wait) */
} rill_thread_blocked;
rill_thread_blocked rill_thread_blocked_now(void);
/* Starts a new "longest wait" for the calling thread (lock_max_ns, cond_max_ns 0); totals keep
 * counting. */
void rill_thread_blocked_reset_max(void);

/* >>pool -------------------------------------------------------------------------------------- */

/* Generational handle pool. An id packs a slot index (low RILL_POOL_INDEX_BITS bits, stored +1 so
 * id 0 is never valid) and a generation (high bits). Capacity is fixed at init. */
#define RILL_POOL_INDEX_BITS 20u
#define RILL_POOL_MAX_CAPACITY ((1u << RILL_POOL_INDEX_BITS) - 2u)
typedef struct rill_pool {
    uint32_t capacity;
    uint32_t live;
    uint32_t *generations; /* per slot */
    uint32_t *free_list;   /* stack of free slot indices */
    uint32_t free_len;
} rill_pool;

rill_result rill_pool_init(rill_pool *pool, uint32_t capacity);
void rill_pool_destroy(rill_pool *pool);
/* A fresh id, or 0 when the pool is exhausted. */
uint32_t rill_pool_alloc(rill_pool *pool);
/* Frees id; a stale or invalid id is a no-op returning false. */
bool rill_pool_free(rill_pool *pool, uint32_t id);
/* Slot index of a live id, or -1 when the id is invalid or stale. */
int32_t rill_pool_index(const rill_pool *pool, uint32_t id);
bool rill_pool_valid(const rill_pool *pool, uint32_t id);

/* >>jobs -------------------------------------------------------------------------------------- */

typedef struct rill_jobs rill_jobs;
typedef void (*rill_job_fn)(void *arg);

/* Defaults: worker_count 0 = cores - 1 (at least 1); deterministic false; queue_capacity 0 = 4096.
 * deterministic = true: no worker threads; queued jobs run on the thread that calls
 * rill_jobs_drain or rill_jobs_wait, in submission order. */
typedef struct rill_jobs_desc {
    uint32_t start_canary; /* must be 0 */
    uint32_t worker_count;
    bool deterministic;
    uint32_t queue_capacity;
    uint32_t end_canary; /* must be 0 */
} rill_jobs_desc;

/* The desc an all-zero desc resolves to on this machine (worker_count filled in). */
rill_jobs_desc rill_jobs_query_defaults(void);

/* Counts outstanding jobs of a batch. Zero-initialized = nothing outstanding. */
typedef struct rill_counter {
    _Atomic int32_t value;
} rill_counter;

rill_jobs *rill_jobs_create(const rill_jobs_desc *desc, rill_error *err);
/* Finishes every queued job, then runs every completion still waiting for the main thread (so
 * nothing they own leaks), then joins the workers. Call from the main thread. NULL is a no-op. */
void rill_jobs_destroy(rill_jobs *jobs);
uint32_t rill_jobs_worker_count(const rill_jobs *jobs);

/* Chunk profiling (a measuring tool's switch, off by default): while on, every chunk that
 * rill_jobs_for runs on any thread is timed, and the slowest since the last take is kept with
 * what its thread did meanwhile. A chunk whose wall time is far above its CPU time was preempted
 * (involuntary switches), slept on a lock (lock_ns / voluntary switches) or stalled in page
 * faults (minor_faults): the time a caller of rill_jobs_for may spend waiting for it. */
typedef struct rill_jobs_chunk_profile {
    uint64_t wall_ns, cpu_ns, lock_ns;
    uint32_t voluntary, involuntary, minor_faults;
    bool on_worker; /* false: the thread that called rill_jobs_for ran it */
} rill_jobs_chunk_profile;
void rill_jobs_set_chunk_profiling(rill_jobs *jobs, bool on);
/* The slowest chunk since the last call (all zero when none ran), and starts over. */
rill_jobs_chunk_profile rill_jobs_take_slowest_chunk(rill_jobs *jobs);
bool rill_jobs_is_deterministic(const rill_jobs *jobs);

/* Queues fn(arg) to run on a worker. If counter is not NULL it is incremented now and decremented
 * when fn returns. Never fails: when the queue is full the job runs inline on the caller.
 * The counter must stay valid until rill_counter_done() says true (or rill_jobs_wait returns):
 * the decrement comes after fn returns, so a "done" flag set inside fn does not make it safe to
 * free memory holding the counter. */
void rill_jobs_run(rill_jobs *jobs, rill_job_fn fn, void *arg, rill_counter *counter);
/* True when every job counted by counter has finished. */
bool rill_counter_done(const rill_counter *counter);
/* Blocks until the counter reaches zero; the calling thread helps by running queued jobs (any
 * batch's), so jobs may wait on sub-jobs. NULL counter returns at once. In deterministic mode a
 * counter that no queued job can finish is a RILL_ASSERT. */
void rill_jobs_wait(rill_jobs *jobs, rill_counter *counter);

/* A parallel loop: fn(arg, begin, end, index) over [0, count) in chunks of `chunk_size` items
 * (the last may be shorter; 0 = about four chunks per thread taking part); index = begin /
 * chunk_size, the chunk's number, so outputs kept per chunk and merged in chunk order give what a
 * serial loop gives. The calling thread takes part and, unlike rill_jobs_wait, never runs other
 * queued jobs while it waits, so a long job (an asset decode) cannot stall it: workers busy
 * elsewhere simply leave more chunks to the caller. Returns when every chunk has run. NULL,
 * deterministic or worker-less jobs run the chunks inline, in order. fn may call rill_jobs_for
 * itself. */
typedef void (*rill_job_range_fn)(void *arg, uint32_t begin, uint32_t end, uint32_t index);
void rill_jobs_for(rill_jobs *jobs, uint32_t count, uint32_t chunk_size, rill_job_range_fn fn,
                   void *arg);
/* How many chunks rill_jobs_for splits count items into for a given chunk_size (0 resolved as it
 * would be): size per-chunk outputs with it. */
uint32_t rill_jobs_for_chunks(const rill_jobs *jobs, uint32_t count, uint32_t chunk_size);

/* Posts fn(arg) to run on the main thread at its next rill_jobs_drain. Callable from any thread.
 * The completion queue grows as needed (it never drops work); only if that growth fails is fn run
 * right away on the calling thread, with an error logged. */
void rill_jobs_post_main(rill_jobs *jobs, rill_job_fn fn, void *arg);
/* Main thread: runs posted completions in FIFO order until the queue is empty or budget_ns has
 * passed (checked after each completion; 0 = no limit). In deterministic mode it first runs every
 * queued job and then every waiting completion: budget_ns is not used, so how far a frame gets
 * does not depend on the machine's speed. Only completions already waiting when drain starts run;
 * ones they post wait for the next drain, so drain always returns. Returns the number of
 * completions run. */
uint32_t rill_jobs_drain(rill_jobs *jobs, uint64_t budget_ns);
/* Number of completions waiting for the main thread. */
uint32_t rill_jobs_pending_main(rill_jobs *jobs);

#ifdef __cplusplus
}
#endif
#endif /* RILL_BASE_H */
