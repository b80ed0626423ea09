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

typedef struct mark_job {
    const rill_render_instance *cur, *prev;
    uint32_t from;   /* the first position marked */
    uint32_t prev_n; /* positions the last extract had */
    uint8_t *changed;
} mark_job;

/* rill_job_range_fn: marks positions from + [begin, end). */
static void mark_chunk(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    const mark_job *m = arg;
    (void)index;
    uint32_t lo = m->from + begin, hi = m->from + end;
    uint32_t both = RILL_MAX(lo, RILL_MIN(hi, m->prev_n));
    for (uint32_t i = lo; i < both; i++) {
        m->changed[i] = !instance_same(&m->cur[i], &m->prev[i]);
    }
    for (uint32_t i = both; i < hi; i++) {
        m->changed[i] = 1u;
    }
}

/* Marks buf's instances from buf->instance_changed.len on (over jobs: NULL marks here). False
 * when out of memory. */
static bool mark_rest(rill_render_extract_buf *buf, rill_jobs *jobs) {
    uint32_t from = buf->instance_changed.len, n = buf->instances.len;
    if (n <= from) {
        return true;
    }
    if (!rill_array_size_for(&buf->instance_changed, n) ||
        !rill_array_push_n(&buf->instance_changed, n - from)) {
        return false;
    }
    uint32_t prev_n = buf->prev_epoch ? buf->prev_instances.len : 0u;
    mark_job m = {buf->instances.data, buf->prev_instances.data, from, prev_n,
                  buf->instance_changed.data};
    rill_jobs_for(jobs, n - from, MARK_CHUNK, mark_chunk, &m);
    return true;
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
    rill_array_clear(&buf->instance_changed);
    buf->mark_ns = 0;
}

bool rill__extract_marks_finish(rill_render_extract_buf *buf, rill_render_snapshot *snap) {
    uint64_t t0 = rill_time_ns();
    if (!mark_rest(buf, buf->jobs)) {
        return false;
    }
    buf->mark_ns = rill_time_ns() - t0;
    buf->instance_epoch = atomic_fetch_add(&last_epoch, 1u) + 1u;
    snap->instance_changed = buf->instances.len ? buf->instance_changed.data : NULL;
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
        return RILL_OK;
    }
    if (!mark_rest(buf, NULL)) {
        snap->instance_changed = NULL;
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory marking");
    }
    snap->instances = buf->instances.data;
    snap->instance_count = buf->instances.len;
    snap->instance_changed = buf->instances.len ? buf->instance_changed.data : NULL;
    return RILL_OK;
}
