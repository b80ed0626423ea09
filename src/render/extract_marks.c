/* extract_marks.c: which instances changed since the last extract (rill/render/extract.h, ON WHAT
 * CHANGED). Each extract keeps the instances of the one before (the buffer's two instance arrays
 * trade places), compares every position with the same position there over the extract's jobs
 * and names the pair it compared by their epochs, so a renderer can tell whether the marks are
 * relative to the snapshot it drew last. */
#include "render_internal.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/* Positions per chunk of the comparison: 4096 instances are 416 KiB of each array. */
#define MARK_CHUNK 4096u
/* Instances from which the lookup's notes run over the jobs. */
#define NOTE_JOBS_FROM (1u << 17)

/* Epochs of finished extracts, unique in the process (0: none). */
static _Atomic uint64_t last_epoch;

/* The bytes of an instance that hold its fields: it has no padding between them, and the tail
 * padding after range_count (which a copy by assignment may leave as it was) is not compared. A
 * field added to rill_render_instance must be counted here. */
#define INSTANCE_FIELD_BYTES (8u + 4u + 4u + 64u + 4u + 4u + 4u + 4u + 4u)
_Static_assert(offsetof(rill_render_instance, range_count) + sizeof(uint32_t) ==
                   INSTANCE_FIELD_BYTES,
               "rill_render_instance: the fields compared are not the fields it has");
_Static_assert(INSTANCE_FIELD_BYTES % sizeof(uint32_t) == 0, "compared in 4-byte steps at the end");

/* Whether two instances hold the same field bytes (compared a word at a time). */
static bool instance_same(const rill_render_instance *a, const rill_render_instance *b) {
    const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;
    uint64_t diff = 0;
    size_t k = 0;
    for (; k + sizeof(uint64_t) <= INSTANCE_FIELD_BYTES; k += sizeof(uint64_t)) {
        uint64_t x, y;
        memcpy(&x, pa + k, sizeof(x));
        memcpy(&y, pb + k, sizeof(y));
        diff |= x ^ y;
    }
    for (; k < INSTANCE_FIELD_BYTES; k += sizeof(uint32_t)) {
        uint32_t x, y;
        memcpy(&x, pa + k, sizeof(x));
        memcpy(&y, pb + k, sizeof(y));
        diff |= x ^ y;
    }
    return diff == 0;
}

/* The id lookup (instance_prev): a table of 2^k buckets, at least two per instance, holding the
 * position in the last extract of an instance whose id lands there (the last one written wins: a
 * clash only costs an instance read again). Whatever a bucket holds is checked (the instance
 * there must hold the same bytes), so a stale or clashing bucket is never trusted. The table
 * follows the extracts by writing only the positions an extract did not find at the same place
 * in the one before (extract_marks_begin): a still world writes none. */
static uint32_t bucket_of(uint64_t id, uint32_t shift) {
    return (uint32_t)(((id ^ (id >> 29)) * UINT64_C(0x9E3779B97F4A7C15)) >> shift);
}

/* The shift bucket_of takes for a table of len buckets (a power of two). */
static uint32_t table_shift(uint32_t len) {
    uint32_t k = 0;
    while ((1u << k) < len) {
        k++;
    }
    return 64u - k;
}

typedef struct mark_job {
    const rill_render_instance *cur, *prev;
    uint32_t from;   /* the first position marked */
    uint32_t prev_n; /* positions the last extract had */
    uint8_t *changed;
    uint32_t *prev_pos;
    _Atomic uint32_t *table; /* NULL: no lookup */
    uint32_t shift;          /* bucket_of's for the table */
} mark_job;

/* Where the last extract had cur[i] byte for byte, found through the lookup (UINT32_MAX: not). */
static uint32_t found_elsewhere(const mark_job *m, uint32_t i) {
    if (!m->table) {
        return UINT32_MAX;
    }
    uint32_t p =
        atomic_load_explicit(&m->table[bucket_of(m->cur[i].id, m->shift)], memory_order_relaxed);
    return p < m->prev_n && instance_same(&m->cur[i], &m->prev[p]) ? p : UINT32_MAX;
}

/* rill_job_range_fn: marks positions from + [begin, end) and finds where the last extract had
 * each (the same position first). */
static void mark_chunk(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    const mark_job *m = arg;
    (void)index;
    uint32_t lo = m->from + begin, hi = m->from + end;
    uint32_t both = RILL_MAX(lo, RILL_MIN(hi, m->prev_n));
    for (uint32_t i = lo; i < hi; i++) {
        bool same = i < both && instance_same(&m->cur[i], &m->prev[i]);
        m->changed[i] = !same;
        m->prev_pos[i] = same ? i : found_elsewhere(m, i);
    }
}

/* Marks buf's instances from buf->instance_changed.len on and finds their positions in the last
 * extract (over jobs: NULL marks here). False when out of memory. */
static bool mark_rest(rill_render_extract_buf *buf, rill_jobs *jobs) {
    uint32_t from = buf->instance_changed.len, n = buf->instances.len;
    if (n <= from) {
        return true;
    }
    if (!rill_array_size_for(&buf->instance_changed, n) ||
        !rill_array_push_n(&buf->instance_changed, n - from) ||
        !rill_array_size_for(&buf->instance_prev, n) ||
        !rill_array_push_n(&buf->instance_prev, n - from)) {
        return false;
    }
    uint32_t prev_n = buf->prev_epoch ? buf->prev_instances.len : 0u;
    bool lookup = prev_n && buf->lookup.len;
    mark_job m = {buf->instances.data,
                  buf->prev_instances.data,
                  from,
                  prev_n,
                  buf->instance_changed.data,
                  buf->instance_prev.data,
                  lookup ? (_Atomic uint32_t *)buf->lookup.data : NULL,
                  lookup ? table_shift(buf->lookup.len) : 0u};
    rill_jobs_for(jobs, n - from, MARK_CHUNK, mark_chunk, &m);
    return true;
}

/* rill_job_range_fn: writes the last extract's positions [begin, end) into the lookup, those it
 * did not find at the same place (all when `from` is UINT32_MAX: a table just emptied). */
static void note_chunk(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    const mark_job *m = arg;
    (void)index;
    bool all = m->from == UINT32_MAX;
    for (uint32_t i = begin; i < end; i++) {
        if (all || m->prev_pos[i] != i) {
            atomic_store_explicit(&m->table[bucket_of(m->prev[i].id, m->shift)], i,
                                  memory_order_relaxed);
        }
    }
}

/* Before an extract: the lookup learns where the last one (buf->prev_instances, its
 * instance_prev still there) put its instances; grown (4 to 8 buckets per instance, emptied and
 * written whole) when it holds fewer than 2. A failed last extract is not noted: this one then
 * finds nothing elsewhere, so the next notes all of this one's. */
static void note_last(rill_render_extract_buf *buf) {
    uint32_t n = buf->prev_instances.len;
    if (!buf->prev_epoch || !n || buf->instance_prev.len < n) {
        return;
    }
    bool all = buf->lookup.len < 2u * (uint64_t)n;
    if (all) {
        uint32_t k = 4;
        while (k < 30u && (1u << k) < 4u * (uint64_t)n) {
            k++;
        }
        rill_array_clear(&buf->lookup);
        if (!rill_array_push_n(&buf->lookup, 1u << k)) {
            rill_array_clear(&buf->lookup); /* no lookup: instance_prev finds same places only */
            return;
        }
        memset(buf->lookup.data, 0xFF, (size_t)buf->lookup.len * sizeof(uint32_t));
    }
    mark_job m = {.prev = buf->prev_instances.data,
                  .from = all ? UINT32_MAX : 0u,
                  .prev_pos = buf->instance_prev.data,
                  .table = (_Atomic uint32_t *)buf->lookup.data,
                  .shift = table_shift(buf->lookup.len)};
    /* a still world writes nothing: a read of 4 bytes per instance, not worth waking the jobs
     * for unless the table is written whole or the world is large */
    rill_jobs_for(all || n >= NOTE_JOBS_FROM ? buf->jobs : NULL, n, MARK_CHUNK, note_chunk, &m);
}

void rill__extract_marks_begin(rill_render_extract_buf *buf) {
    rill_render_instance *data = buf->instances.data;
    uint32_t len = buf->instances.len, cap = buf->instances.cap;
    buf->instances.data = buf->prev_instances.data;
    buf->instances.len = buf->prev_instances.len;
    buf->instances.cap = buf->prev_instances.cap;
    buf->prev_instances.data = data;
    buf->prev_instances.len = len;
    buf->prev_instances.cap = cap;
    buf->prev_epoch = buf->instance_epoch;
    buf->instance_epoch = 0; /* until this extract finishes */
    uint64_t t0 = rill_time_ns();
    note_last(buf);
    rill_array_clear(&buf->instance_changed);
    rill_array_clear(&buf->instance_prev);
    buf->mark_ns = rill_time_ns() - t0;
}

bool rill__extract_marks_finish(rill_render_extract_buf *buf, rill_render_snapshot *snap) {
    uint64_t t0 = rill_time_ns();
    if (!mark_rest(buf, buf->jobs)) {
        return false;
    }
    buf->mark_ns += rill_time_ns() - t0;
    buf->instance_epoch = atomic_fetch_add(&last_epoch, 1u) + 1u;
    snap->instance_changed = buf->instances.len ? buf->instance_changed.data : NULL;
    snap->instance_prev = buf->instances.len ? buf->instance_prev.data : NULL;
    snap->instance_epoch = buf->instance_epoch;
    snap->instance_changed_since = buf->prev_epoch;
    return true;
}

rill_result rill_render_extract_mark_appended(rill_render_extract_buf *buf,
                                              rill_render_snapshot *snap, rill_error *err) {
    if (!buf || !snap) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: extract_mark_appended needs a buffer and a snapshot");
    }
    if (!snap->instance_epoch || snap->instance_epoch != buf->instance_epoch) {
        snap->instance_changed = NULL; /* not this buffer's finished extract: no marks */
        snap->instance_prev = NULL;
        return RILL_OK;
    }
    if (!mark_rest(buf, NULL)) {
        snap->instance_changed = NULL;
        snap->instance_prev = NULL;
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory marking");
    }
    snap->instances = buf->instances.data;
    snap->instance_count = buf->instances.len;
    snap->instance_changed = buf->instances.len ? buf->instance_changed.data : NULL;
    snap->instance_prev = buf->instances.len ? buf->instance_prev.data : NULL;
    return RILL_OK;
}
