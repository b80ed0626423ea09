/* test_jobs.c: the job system: counters, nested waits, completion order and budget,
 * deterministic mode, full queues and destroy with work still pending. */
#include "rill_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static void add_one(void *arg) {
    atomic_fetch_add((_Atomic int *)arg, 1);
}

static void test_defaults(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_jobs *j = rill_jobs_create(NULL, NULL);
    assert_non_null(j);
    uint32_t cores = rill_cpu_count();
    assert_int_equal(rill_jobs_worker_count(j), cores > 1 ? cores - 1 : 1);
    rill_jobs_desc def = rill_jobs_query_defaults();
    assert_int_equal(def.worker_count, rill_jobs_worker_count(j));
    assert_int_equal(def.queue_capacity, 4096);
    assert_false(def.deterministic);
    assert_false(rill_jobs_is_deterministic(j));
    assert_int_equal(rill_jobs_pending_main(j), 0);
    assert_int_equal(rill_jobs_drain(j, 0), 0);
    rill_jobs_destroy(j);
    rill_jobs_destroy(NULL);
    rill_jobs *d =
        rill_jobs_create(&(rill_jobs_desc){.deterministic = true, .worker_count = 4}, NULL);
    assert_int_equal(rill_jobs_worker_count(d), 0);
    assert_true(rill_jobs_is_deterministic(d));
    rill_jobs_destroy(d);
    assert_int_equal(rill_jobs_worker_count(NULL), 0);
    assert_true(rill_counter_done(&(rill_counter){0}));
    RILL_TEST_LEAK_END();
}

static void test_many_jobs(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 3}, NULL);
    _Atomic int hits_a = 0, hits_b = 0;
    rill_counter ca = {0}, cb = {0};
    for (int i = 0; i < 20000; ++i) {
        rill_jobs_run(j, add_one, (void *)&hits_a, &ca);
        rill_jobs_run(j, add_one, (void *)&hits_b, (i & 1) ? &cb : NULL);
    }
    rill_jobs_wait(j, &ca);
    assert_true(rill_counter_done(&ca));
    assert_int_equal(atomic_load(&hits_a), 20000);
    rill_jobs_wait(j, &cb);
    rill_jobs_wait(j, NULL); /* no-op */
    rill_jobs_destroy(j);    /* finishes the uncounted ones */
    assert_int_equal(atomic_load(&hits_b), 20000);
    RILL_TEST_LEAK_END();
}

/* Nested: a parent job fans out children and waits for them from inside a worker. */
typedef struct nest_ctx {
    rill_jobs *jobs;
    _Atomic int leaves;
    int depth;
} nest_ctx;

typedef struct nest_arg {
    nest_ctx *ctx;
    int depth;
} nest_arg;

static void nest_job(void *p) {
    nest_arg *a = p;
    if (a->depth == 0) {
        atomic_fetch_add(&a->ctx->leaves, 1);
        return;
    }
    nest_arg kids[4];
    rill_counter c = {0};
    for (int i = 0; i < 4; ++i) {
        kids[i] = (nest_arg){a->ctx, a->depth - 1};
        rill_jobs_run(a->ctx->jobs, nest_job, &kids[i], &c);
    }
    rill_jobs_wait(a->ctx->jobs, &c); /* kids live on this stack: must be done before return */
}

static void test_nested_waits(void **state) {
    (void)state;
    /* One worker is the hard case: progress needs waiters to help. A tiny queue forces the
     * inline fallback inside nested jobs as well. */
    const rill_jobs_desc descs[] = {{.worker_count = 1},
                                    {.worker_count = 4},
                                    {.worker_count = 2, .queue_capacity = 3},
                                    {.deterministic = true},
                                    {.deterministic = true, .queue_capacity = 2}};
    for (size_t d = 0; d < RILL_COUNTOF(descs); ++d) {
        nest_ctx ctx = {.jobs = rill_jobs_create(&descs[d], NULL)};
        nest_arg root = {&ctx, 5}; /* 4^5 = 1024 leaves */
        rill_counter c = {0};
        rill_jobs_run(ctx.jobs, nest_job, &root, &c);
        rill_jobs_run(ctx.jobs, nest_job, &root, &c);
        rill_jobs_wait(ctx.jobs, &c);
        assert_int_equal(atomic_load(&ctx.leaves), 2048);
        rill_jobs_destroy(ctx.jobs);
    }
}

/* >>completions */

typedef struct order_log {
    int seen[4096];
    int len;
} order_log;

typedef struct post_arg {
    order_log *log;
    int value;
} post_arg;

static void record(void *p) {
    post_arg *a = p;
    a->log->seen[a->log->len++] = a->value;
}

typedef struct poster_job {
    rill_jobs *jobs;
    post_arg args[600];
} poster_job;

static void poster(void *p) {
    poster_job *pj = p;
    for (int i = 0; i < 600; ++i) {
        rill_jobs_post_main(pj->jobs, record, &pj->args[i]);
    }
}

static void test_completions_fifo(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 2}, NULL);
    static order_log log;
    log.len = 0;
    /* Two jobs post 600 completions each (past the initial ring size): each poster's own
     * completions arrive in the order it posted them. */
    static poster_job pa, pb;
    pa.jobs = pb.jobs = j;
    for (int i = 0; i < 600; ++i) {
        pa.args[i] = (post_arg){&log, i};
        pb.args[i] = (post_arg){&log, 1000 + i};
    }
    rill_counter c = {0};
    rill_jobs_run(j, poster, &pa, &c);
    rill_jobs_run(j, poster, &pb, &c);
    rill_jobs_wait(j, &c);
    assert_int_equal(rill_jobs_pending_main(j), 1200);
    assert_int_equal(rill_jobs_drain(j, 0), 1200);
    assert_int_equal(log.len, 1200);
    int next_a = 0, next_b = 1000;
    for (int i = 0; i < log.len; ++i) {
        if (log.seen[i] < 1000) {
            assert_int_equal(log.seen[i], next_a++);
        } else {
            assert_int_equal(log.seen[i], next_b++);
        }
    }
    /* From the main thread itself: strict FIFO, interleaved with drains. */
    log.len = 0;
    post_arg args[10];
    for (int i = 0; i < 10; ++i) {
        args[i] = (post_arg){&log, i};
        rill_jobs_post_main(j, record, &args[i]);
        if (i == 4) {
            assert_int_equal(rill_jobs_drain(j, 0), 5);
        }
    }
    assert_int_equal(rill_jobs_drain(j, 0), 5);
    for (int i = 0; i < 10; ++i) {
        assert_int_equal(log.seen[i], i);
    }
    rill_jobs_destroy(j);
    RILL_TEST_LEAK_END();
}

static void busy_2ms(void *p) {
    uint64_t t0 = rill_time_ns();
    while (rill_time_ns() - t0 < 2000000) {
    }
    (*(int *)p)++;
}

typedef struct repost {
    rill_jobs *jobs;
    int runs;
} repost;

static void repost_self(void *p) {
    repost *r = p;
    r->runs++;
    if (r->runs < 100) {
        rill_jobs_post_main(r->jobs, repost_self, r);
    }
}

static void test_drain_budget(void **state) {
    (void)state;
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 1}, NULL);
    int ran = 0;
    for (int i = 0; i < 5; ++i) {
        rill_jobs_post_main(j, busy_2ms, &ran);
    }
    /* The budget is checked after each completion: one busy completion overshoots 1 ms, so
     * exactly one runs per drain. */
    assert_int_equal(rill_jobs_drain(j, 1000000), 1);
    assert_int_equal(ran, 1);
    assert_int_equal(rill_jobs_pending_main(j), 4);
    /* Each takes at least 2 ms, so a 5 ms budget allows at most three (2+2 < 5 <= 2+2+2); fewer
     * when this thread is preempted. */
    uint32_t n = rill_jobs_drain(j, 5000000);
    assert_true(n >= 1 && n <= 3);
    assert_int_equal(rill_jobs_drain(j, 0), 4 - n);
    assert_int_equal(ran, 5);
    /* A completion that posts itself again runs once per drain, so drain always returns. */
    repost r = {j, 0};
    rill_jobs_post_main(j, repost_self, &r);
    assert_int_equal(rill_jobs_drain(j, 0), 1);
    assert_int_equal(rill_jobs_drain(j, 0), 1);
    assert_int_equal(r.runs, 2);
    rill_jobs_destroy(j); /* runs the remaining 98 */
    assert_int_equal(r.runs, 100);
}

/* Deterministic mode does not stop on the clock: the five 2 ms completions that a 1 ms budget
 * spreads over five drains with workers all run in one drain, on any machine. */
static void test_drain_deterministic(void **state) {
    (void)state;
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    int ran = 0;
    for (int i = 0; i < 5; ++i) {
        rill_jobs_post_main(j, busy_2ms, &ran);
    }
    assert_int_equal(rill_jobs_drain(j, 1000000), 5);
    assert_int_equal(ran, 5);
    assert_int_equal(rill_jobs_pending_main(j), 0);
    rill_jobs_destroy(j);
}

/* >>deterministic */

typedef struct det_log {
    rill_jobs *jobs;
    int order[256];
    int len;
} det_log;

typedef struct det_arg {
    det_log *log;
    int id;
    int spawn; /* id of a job to queue from inside this one, or 0 */
} det_arg;

static det_arg det_args[300];

static void det_job(void *p) {
    det_arg *a = p;
    a->log->order[a->log->len++] = a->id;
    if (a->spawn != 0) {
        rill_jobs_run(a->log->jobs, det_job, &det_args[a->spawn], NULL);
    }
}

static void test_deterministic_order(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    static det_log log;
    memset(&log, 0, sizeof(log));
    log.jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    for (int i = 1; i <= 5; ++i) {
        det_args[i] = (det_arg){&log, i, i == 2 ? 100 : 0};
    }
    det_args[100] = (det_arg){&log, 100, 0};
    for (int i = 1; i <= 5; ++i) {
        rill_jobs_run(log.jobs, det_job, &det_args[i], NULL);
    }
    assert_int_equal(log.len, 0); /* nothing runs until drain or wait */
    assert_int_equal(rill_jobs_drain(log.jobs, 0), 0);
    const int want[] = {1, 2, 3, 4, 5, 100}; /* the spawned job runs after those already queued */
    assert_int_equal(log.len, 6);
    for (int i = 0; i < 6; ++i) {
        assert_int_equal(log.order[i], want[i]);
    }
    /* wait runs queued jobs in order on the calling thread. */
    log.len = 0;
    rill_counter c = {0};
    for (int i = 1; i <= 3; ++i) {
        det_args[i].spawn = 0;
        rill_jobs_run(log.jobs, det_job, &det_args[i], &c);
    }
    assert_false(rill_counter_done(&c));
    rill_jobs_wait(log.jobs, &c);
    assert_int_equal(log.len, 3);
    assert_int_equal(log.order[2], 3);
    rill_jobs_destroy(log.jobs);

    /* A full queue in deterministic mode keeps submission order. */
    memset(&log, 0, sizeof(log));
    log.jobs =
        rill_jobs_create(&(rill_jobs_desc){.deterministic = true, .queue_capacity = 4}, NULL);
    for (int i = 1; i <= 200; ++i) {
        det_args[i] = (det_arg){&log, i, 0};
        rill_jobs_run(log.jobs, det_job, &det_args[i], NULL);
    }
    rill_jobs_drain(log.jobs, 0);
    assert_int_equal(log.len, 200);
    for (int i = 0; i < 200; ++i) {
        assert_int_equal(log.order[i], i + 1);
    }
    rill_jobs_destroy(log.jobs);
    RILL_TEST_LEAK_END();
}

static void test_deterministic_self_wait_asserts(void **state) {
    (void)state;
    if (!RILL_TEST_HAS_ASSERTS) {
        skip();
    }
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    /* A counter no queued job will ever bring to zero cannot be waited on without workers. */
    rill_counter c = {1};
    RILL_TEST_EXPECT_ASSERT(rill_jobs_wait(j, &c));
    atomic_store(&c.value, 0);
    rill_jobs_destroy(j);
}

/* Job A spins until job B has run. With one worker, whichever of A and B the worker takes, the
 * waiting main thread must run the other one, or the wait never ends. */
typedef struct gate {
    _Atomic int open;
} gate;

static void gate_wait_job(void *p) {
    gate *g = p;
    while (!atomic_load(&g->open)) {
        rill_sleep_ns(10000);
    }
}

static void gate_open_job(void *p) {
    atomic_store(&((gate *)p)->open, 1);
}

static void test_wait_helps(void **state) {
    (void)state;
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 1}, NULL);
    for (int round = 0; round < 20; ++round) {
        gate g = {0};
        rill_counter c = {0};
        rill_jobs_run(j, gate_wait_job, &g, &c);
        rill_jobs_run(j, gate_open_job, &g, &c);
        rill_jobs_wait(j, &c);
        assert_int_equal(atomic_load(&g.open), 1);
    }
    rill_jobs_destroy(j);
}

static void test_misuse_asserts(void **state) {
    (void)state;
    if (!RILL_TEST_HAS_ASSERTS) {
        skip();
    }
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 1}, NULL);
    rill_counter c = {0};
    RILL_TEST_EXPECT_ASSERT(rill_jobs_run(j, NULL, NULL, &c));
    assert_true(rill_counter_done(&c)); /* nothing was counted */
    RILL_TEST_EXPECT_ASSERT(rill_jobs_post_main(j, NULL, NULL));
    assert_int_equal(rill_jobs_pending_main(j), 0);
    rill_jobs_destroy(j);
}

/* >>full queue and destroy */

static void slow_add(void *arg) {
    rill_sleep_ns(20000);
    atomic_fetch_add((_Atomic int *)arg, 1);
}

static void test_full_queue_inline(void **state) {
    (void)state;
    rill_jobs *j =
        rill_jobs_create(&(rill_jobs_desc){.worker_count = 1, .queue_capacity = 2}, NULL);
    _Atomic int hits = 0;
    rill_counter c = {0};
    for (int i = 0; i < 200; ++i) {
        rill_jobs_run(j, slow_add, (void *)&hits, &c);
    }
    rill_jobs_wait(j, &c);
    assert_int_equal(atomic_load(&hits), 200);
    rill_jobs_destroy(j);
}

typedef struct pending_ctx {
    rill_jobs *jobs;
    _Atomic int jobs_ran;
    int completions_ran; /* main thread only */
} pending_ctx;

static void pending_completion(void *p) {
    ((pending_ctx *)p)->completions_ran++;
}

static void pending_job(void *p) {
    pending_ctx *ctx = p;
    rill_sleep_ns(10000);
    atomic_fetch_add(&ctx->jobs_ran, 1);
    rill_jobs_post_main(ctx->jobs, pending_completion, ctx);
}

static void test_destroy_with_pending(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    const rill_jobs_desc descs[] = {{.worker_count = 2}, {.deterministic = true}};
    for (size_t d = 0; d < RILL_COUNTOF(descs); ++d) {
        pending_ctx ctx = {.jobs = rill_jobs_create(&descs[d], NULL)};
        for (int i = 0; i < 500; ++i) {
            rill_jobs_run(ctx.jobs, pending_job, &ctx, NULL);
        }
        rill_jobs_destroy(ctx.jobs); /* no wait, no drain: destroy must finish both */
        assert_int_equal(atomic_load(&ctx.jobs_ran), 500);
        assert_int_equal(ctx.completions_ran, 500);
    }
    RILL_TEST_LEAK_END();
}

/* Parallel loop: every item once, chunk index = begin / chunk, per-chunk outputs in order. */
typedef struct for_ctx {
    _Atomic uint32_t hits[1000];
    uint32_t begin_of[200];
    uint32_t end_of[200];
    _Atomic uint32_t calls;
    pthread_t caller;
    _Atomic uint32_t on_caller;
} for_ctx;

static void for_mark(void *arg, uint32_t begin, uint32_t end, uint32_t chunk) {
    for_ctx *c = arg;
    for (uint32_t i = begin; i < end; i++) {
        atomic_fetch_add(&c->hits[i], 1);
    }
    c->begin_of[chunk] = begin;
    c->end_of[chunk] = end;
    atomic_fetch_add(&c->calls, 1);
    if (pthread_equal(pthread_self(), c->caller)) {
        atomic_fetch_add(&c->on_caller, 1);
    }
}

static void check_for_cover(for_ctx *c, uint32_t count, uint32_t chunk, uint32_t chunks) {
    assert_int_equal(atomic_load(&c->calls), chunks);
    for (uint32_t i = 0; i < count; i++) {
        assert_int_equal(atomic_load(&c->hits[i]), 1);
    }
    for (uint32_t k = 0; k < chunks; k++) {
        assert_int_equal(c->begin_of[k], k * chunk);
        assert_int_equal(c->end_of[k], k + 1 == chunks ? count : (k + 1) * chunk);
    }
}

static void run_for_case(rill_jobs *j, uint32_t count, uint32_t chunk) {
    for_ctx *c = calloc(1, sizeof(*c));
    c->caller = pthread_self();
    rill_jobs_for(j, count, chunk, for_mark, c);
    uint32_t chunks = rill_jobs_for_chunks(j, count, chunk);
    uint32_t size = chunk ? chunk : chunks > 1 ? c->begin_of[1] : count; /* 0: as resolved */
    if (count > 0) {
        check_for_cover(c, count, size, chunks);
    } else {
        assert_int_equal(atomic_load(&c->calls), 0);
    }
    free(c);
}

static void test_for_every_item_once(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 3}, NULL);
    for (int rep = 0; rep < 300; rep++) { /* late helper jobs overlap the next loop */
        run_for_case(j, 1000, 7);
    }
    run_for_case(j, 0, 7);
    run_for_case(j, 5, 7);    /* one chunk: no helper */
    run_for_case(j, 1000, 0); /* automatic chunk size */
    run_for_case(j, 1000, 1000);
    assert_int_equal(rill_jobs_for_chunks(j, 1000, 7), 143);
    rill_jobs_destroy(j);
    rill_jobs *d = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    run_for_case(d, 1000, 7);
    rill_jobs_destroy(d);
    run_for_case(NULL, 1000, 7);
    RILL_TEST_LEAK_END();
}

/* Workers stuck in a long job: the caller runs every chunk itself and returns. */
typedef struct block_ctx {
    _Atomic int release;
    _Atomic int started;
} block_ctx;

static void block_until_released(void *arg) {
    block_ctx *b = arg;
    atomic_fetch_add(&b->started, 1);
    while (!atomic_load(&b->release)) {
        rill_sleep_ns(100000);
    }
}

static void test_for_caller_not_stalled(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 2}, NULL);
    block_ctx b = {0};
    rill_counter blocked = {0};
    rill_jobs_run(j, block_until_released, &b, &blocked);
    rill_jobs_run(j, block_until_released, &b, &blocked);
    while (atomic_load(&b.started) < 2) {
        rill_sleep_ns(100000);
    }
    for_ctx *c = calloc(1, sizeof(*c));
    c->caller = pthread_self();
    rill_jobs_for(j, 1000, 10, for_mark, c);
    check_for_cover(c, 1000, 10, 100);
    assert_int_equal(atomic_load(&c->on_caller), 100);
    free(c);
    atomic_store(&b.release, 1);
    rill_jobs_wait(j, &blocked);
    rill_jobs_destroy(j); /* the helper jobs queued behind the blockers find nothing left */
    RILL_TEST_LEAK_END();
}

/* Chunk profiling keeps the slowest chunk, with its thread's CPU time, and starts over when
 * taken; off by default. A chunk that sleeps is slow in wall time and cheap in CPU time, which is
 * what tells a preempted or blocked worker from a busy one. */
static void sleep_in_chunk_3(void *arg, uint32_t begin, uint32_t end, uint32_t chunk) {
    (void)arg;
    (void)begin;
    (void)end;
    if (chunk == 3) {
        rill_sleep_ns(30000000); /* 30 ms */
    }
}

static void test_chunk_profile_names_slowest(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 2}, NULL);
    rill_jobs_for(j, 80, 10, sleep_in_chunk_3, NULL);
    assert_int_equal(rill_jobs_take_slowest_chunk(j).wall_ns, 0); /* off: nothing kept */
    rill_jobs_set_chunk_profiling(j, true);
    rill_jobs_for(j, 80, 10, sleep_in_chunk_3, NULL);
    rill_jobs_chunk_profile p = rill_jobs_take_slowest_chunk(j);
    assert_true(p.wall_ns >= 30000000u);
    assert_true(p.cpu_ns < p.wall_ns / 2u);
    assert_true(p.voluntary >= 1u);                               /* it slept */
    assert_int_equal(rill_jobs_take_slowest_chunk(j).wall_ns, 0); /* taken: starts over */
    rill_jobs_destroy(j);
    RILL_TEST_LEAK_END();
}

/* A lock held by another thread is counted as the waiter's blocked time, with where it waited. */
typedef struct hold_ctx {
    rill_mutex lock;
    _Atomic int held, trying;
} hold_ctx;

/* Holds the lock until the test is about to take it, then 100 ms more. */
static void hold_lock(void *arg) {
    hold_ctx *h = arg;
    rill_mutex_lock(&h->lock);
    atomic_store(&h->held, 1);
    while (!atomic_load(&h->trying)) {
        rill_sleep_ns(100000);
    }
    rill_sleep_ns(100000000);
    rill_mutex_unlock(&h->lock);
}

static void test_thread_blocked_counts_lock_wait(void **state) {
    (void)state;
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = 1}, NULL);
    hold_ctx h = {0};
    rill_mutex_init(&h.lock);
    rill_counter done = {0};
    rill_jobs_run(j, hold_lock, &h, &done);
    while (!atomic_load(&h.held)) {
        rill_sleep_ns(100000);
    }
    rill_thread_blocked_reset_max();
    rill_thread_blocked b0 = rill_thread_blocked_now();
    atomic_store(&h.trying, 1);
    rill_mutex_lock(&h.lock); /* waits for the worker's sleep */
    rill_mutex_unlock(&h.lock);
    rill_thread_blocked b1 = rill_thread_blocked_now();
    assert_true(b1.lock_ns - b0.lock_ns >= 1000000u);
    assert_true(b1.lock_max_ns >= 1000000u);
    assert_true(b1.lock_max_at != 0u);
    rill_mutex_lock(&h.lock); /* uncontended: not counted */
    rill_mutex_unlock(&h.lock);
    assert_int_equal(rill_thread_blocked_now().lock_ns, b1.lock_ns);
    rill_jobs_wait(j, &done);
    rill_mutex_destroy(&h.lock);
    rill_jobs_destroy(j);
}

/* A loop body may run a loop of its own. */
typedef struct nest_for_ctx {
    rill_jobs *jobs;
    _Atomic uint32_t items;
} nest_for_ctx;

static void nest_inner(void *arg, uint32_t begin, uint32_t end, uint32_t chunk) {
    (void)chunk;
    atomic_fetch_add(&((nest_for_ctx *)arg)->items, end - begin);
}

static void nest_outer(void *arg, uint32_t begin, uint32_t end, uint32_t chunk) {
    (void)chunk;
    nest_for_ctx *n = arg;
    for (uint32_t i = begin; i < end; i++) {
        rill_jobs_for(n->jobs, 100, 3, nest_inner, n);
    }
}

static void test_for_nested(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    nest_for_ctx n = {.jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 3}, NULL)};
    rill_jobs_for(n.jobs, 64, 2, nest_outer, &n);
    assert_int_equal(atomic_load(&n.items), 6400);
    rill_jobs_destroy(n.jobs);
    RILL_TEST_LEAK_END();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_many_jobs),
        cmocka_unit_test(test_nested_waits),
        cmocka_unit_test(test_completions_fifo),
        cmocka_unit_test(test_drain_budget),
        cmocka_unit_test(test_drain_deterministic),
        cmocka_unit_test(test_deterministic_order),
        cmocka_unit_test(test_deterministic_self_wait_asserts),
        cmocka_unit_test(test_full_queue_inline),
        cmocka_unit_test(test_wait_helps),
        cmocka_unit_test(test_misuse_asserts),
        cmocka_unit_test(test_destroy_with_pending),
        cmocka_unit_test(test_for_every_item_once),
        cmocka_unit_test(test_for_caller_not_stalled),
        cmocka_unit_test(test_for_nested),
        cmocka_unit_test(test_chunk_profile_names_slowest),
        cmocka_unit_test(test_thread_blocked_counts_lock_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
