/* jobs.c: the job system.
 *
 * Workers take jobs from one bounded FIFO queue guarded by a mutex and a condition variable;
 * correctness and simplicity come first, and the queue lock is held only to push or pop.
 * Counters are atomics, so checking a batch costs no lock; the thread that brings a counter to
 * zero broadcasts under the lock so a waiter can never miss the wake-up. Completions for the main
 * thread go through a second, growable FIFO with its own lock, so workers posting results never
 * contend with workers taking jobs.
 *
 * Deterministic mode starts no threads: queued jobs run on the thread that calls rill_jobs_drain
 * or rill_jobs_wait, strictly in submission order, which makes whole runs reproducible. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "rill/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>

/* Default bounded queue: enough for a frame's worth of streaming work without inline fallback. */
#define JOBS_DEFAULT_QUEUE 4096u
/* A sanity limit on workers; more threads than this only adds contention on one queue. */
#define JOBS_MAX_WORKERS 256u
/* First capacity of the completion queue; it doubles when full. */
#define JOBS_MAIN_INITIAL 256u

typedef struct job_item {
    rill_job_fn fn;
    void *arg;
    rill_counter *counter;
} job_item;

struct rill_jobs {
    rill_mutex lock;     /* guards the job queue, stopping and helpers_waiting */
    rill_cond work_cond; /* workers: a job arrived or the system is stopping */
    rill_cond done_cond; /* waiters: a counter reached zero or a job arrived */
    job_item *queue;     /* ring of queue_cap items */
    uint32_t queue_cap;
    uint32_t queue_head;
    uint32_t queue_len;
    uint32_t helpers_waiting;
    bool stopping;
    bool deterministic;
    uint32_t worker_count;
    pthread_t *threads;

    rill_mutex main_lock; /* guards the completion ring */
    job_item *main_queue; /* ring of main_cap items (counter unused) */
    uint32_t main_cap;
    uint32_t main_head;
    uint32_t main_len;

    _Atomic bool profile_chunks;     /* rill_jobs_set_chunk_profiling */
    _Atomic uint64_t slowest_wall;   /* the slowest chunk's wall ns, for a lock-free check */
    rill_jobs_chunk_profile slowest; /* guarded by main_lock */
};

/* Takes the oldest job. Caller holds jobs->lock. */
static bool queue_pop_locked(rill_jobs *jobs, job_item *out) {
    if (jobs->queue_len == 0) {
        return false;
    }
    *out = jobs->queue[jobs->queue_head];
    jobs->queue_head = (jobs->queue_head + 1u) % jobs->queue_cap;
    jobs->queue_len--;
    return true;
}

/* Marks one job of a batch as done. The counter is not touched after the decrement, because the
 * waiter may return and release it as soon as it reads zero. */
static void job_finish(rill_jobs *jobs, rill_counter *counter) {
    if (counter == NULL) {
        return;
    }
    int32_t prev = atomic_fetch_sub(&counter->value, 1);
    RILL_ASSERT(prev > 0);
    if (prev == 1) {
        rill_mutex_lock(&jobs->lock);
        rill_cond_broadcast(&jobs->done_cond);
        rill_mutex_unlock(&jobs->lock);
    }
}

static void job_execute(rill_jobs *jobs, const job_item *job) {
    job->fn(job->arg);
    job_finish(jobs, job->counter);
}

/* Runs queued jobs on the calling thread until the queue is empty (deterministic mode and
 * destroy). Jobs queued by those jobs run too, after the ones already waiting. */
static void run_all_queued(rill_jobs *jobs) {
    for (;;) {
        job_item job;
        rill_mutex_lock(&jobs->lock);
        bool got = queue_pop_locked(jobs, &job);
        rill_mutex_unlock(&jobs->lock);
        if (!got) {
            return;
        }
        job_execute(jobs, &job);
    }
}

static void *worker_main(void *arg) {
    rill_jobs *jobs = arg;
    rill_mutex_lock(&jobs->lock);
    for (;;) {
        while (jobs->queue_len == 0 && !jobs->stopping) {
            rill_cond_wait(&jobs->work_cond, &jobs->lock);
        }
        job_item job;
        if (!queue_pop_locked(jobs, &job)) {
            break; /* stopping, and the queue is empty: every queued job has run */
        }
        rill_mutex_unlock(&jobs->lock);
        job_execute(jobs, &job);
        rill_mutex_lock(&jobs->lock);
    }
    rill_mutex_unlock(&jobs->lock);
    return NULL;
}

static rill_jobs_desc jobs_desc_defaults(const rill_jobs_desc *desc) {
    rill_jobs_desc d = desc != NULL ? *desc : (rill_jobs_desc){0};
    if (d.deterministic) {
        d.worker_count = 0;
    } else if (d.worker_count == 0) {
        uint32_t cores = rill_cpu_count();
        d.worker_count = cores > 1u ? cores - 1u : 1u;
    }
    d.worker_count = RILL_MIN(d.worker_count, JOBS_MAX_WORKERS);
    if (d.queue_capacity == 0) {
        d.queue_capacity = JOBS_DEFAULT_QUEUE;
    }
    return d;
}

rill_jobs_desc rill_jobs_query_defaults(void) {
    return jobs_desc_defaults(NULL);
}

rill_jobs *rill_jobs_create(const rill_jobs_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_jobs_create", err) != RILL_OK) {
        return NULL;
    }
    rill_jobs_desc d = jobs_desc_defaults(desc);
    rill_jobs *jobs = rill_calloc_tagged(1, sizeof(*jobs), RILL_MEM_JOBS);
    if (jobs == NULL) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_jobs_create: out of memory");
        return NULL;
    }
    rill_mutex_init(&jobs->lock);
    rill_cond_init(&jobs->work_cond);
    rill_cond_init(&jobs->done_cond);
    rill_mutex_init(&jobs->main_lock);
    jobs->deterministic = d.deterministic;
    jobs->queue_cap = d.queue_capacity;
    jobs->queue = rill_calloc_tagged(d.queue_capacity, sizeof(job_item), RILL_MEM_JOBS);
    jobs->main_cap = JOBS_MAIN_INITIAL;
    jobs->main_queue = rill_calloc_tagged(jobs->main_cap, sizeof(job_item), RILL_MEM_JOBS);
    if (d.worker_count > 0) {
        jobs->threads = rill_calloc_tagged(d.worker_count, sizeof(pthread_t), RILL_MEM_JOBS);
    }
    if (jobs->queue == NULL || jobs->main_queue == NULL ||
        (d.worker_count > 0 && jobs->threads == NULL)) {
        rill_jobs_destroy(jobs);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_jobs_create: out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < d.worker_count; ++i) {
        if (pthread_create(&jobs->threads[i], NULL, worker_main, jobs) != 0) {
            break;
        }
        jobs->worker_count++;
    }
    if (jobs->worker_count < d.worker_count) {
        RILL_LOG_WARN("jobs", "started %u of %u worker threads", jobs->worker_count,
                      d.worker_count);
        if (jobs->worker_count == 0) {
            rill_jobs_destroy(jobs);
            rill_error_set(err, RILL_ERR_IO, "rill_jobs_create: no worker thread started");
            return NULL;
        }
    }
    return jobs;
}

void rill_jobs_destroy(rill_jobs *jobs) {
    if (jobs == NULL) {
        return;
    }
    rill_mutex_lock(&jobs->lock);
    jobs->stopping = true;
    rill_cond_broadcast(&jobs->work_cond);
    rill_mutex_unlock(&jobs->lock);
    /* Workers leave only once the queue is empty, so joining them finishes every queued job. */
    for (uint32_t i = 0; i < jobs->worker_count; ++i) {
        pthread_join(jobs->threads[i], NULL);
    }
    jobs->worker_count = 0;
    /* Completions may queue more jobs and jobs may post more completions; with the workers gone
     * both run here until neither queue holds anything. */
    if (jobs->queue != NULL && jobs->main_queue != NULL) {
        for (;;) {
            run_all_queued(jobs);
            uint32_t ran = rill_jobs_drain(jobs, 0);
            rill_mutex_lock(&jobs->lock);
            bool more = jobs->queue_len > 0;
            rill_mutex_unlock(&jobs->lock);
            if (ran == 0 && !more) {
                break;
            }
        }
    }
    rill_free(jobs->threads);
    rill_free(jobs->queue);
    rill_free(jobs->main_queue);
    rill_mutex_destroy(&jobs->main_lock);
    rill_cond_destroy(&jobs->done_cond);
    rill_cond_destroy(&jobs->work_cond);
    rill_mutex_destroy(&jobs->lock);
    rill_free(jobs);
}

uint32_t rill_jobs_worker_count(const rill_jobs *jobs) {
    return jobs != NULL ? jobs->worker_count : 0;
}

bool rill_jobs_is_deterministic(const rill_jobs *jobs) {
    return jobs != NULL && jobs->deterministic;
}

void rill_jobs_run(rill_jobs *jobs, rill_job_fn fn, void *arg, rill_counter *counter) {
    RILL_ASSERT(jobs != NULL && fn != NULL);
    if (jobs == NULL || fn == NULL) {
        return;
    }
    if (counter != NULL) {
        atomic_fetch_add(&counter->value, 1);
    }
    job_item job = {fn, arg, counter};
    for (;;) {
        rill_mutex_lock(&jobs->lock);
        if (jobs->queue_len < jobs->queue_cap) {
            uint32_t tail = (jobs->queue_head + jobs->queue_len) % jobs->queue_cap;
            jobs->queue[tail] = job;
            jobs->queue_len++;
            if (!jobs->deterministic) {
                rill_cond_signal(&jobs->work_cond);
            }
            if (jobs->helpers_waiting > 0) {
                rill_cond_broadcast(&jobs->done_cond); /* waiters help with queued jobs */
            }
            rill_mutex_unlock(&jobs->lock);
            return;
        }
        rill_mutex_unlock(&jobs->lock);
        if (!jobs->deterministic) {
            /* Full queue: run inline rather than block, so a producer can never deadlock. */
            job_execute(jobs, &job);
            return;
        }
        /* Deterministic mode keeps submission order: run what is queued, then queue this one. */
        run_all_queued(jobs);
    }
}

bool rill_counter_done(const rill_counter *counter) {
    return counter == NULL || atomic_load(&counter->value) == 0;
}

void rill_jobs_wait(rill_jobs *jobs, rill_counter *counter) {
    if (jobs == NULL || counter == NULL) {
        return;
    }
    while (!rill_counter_done(counter)) {
        rill_mutex_lock(&jobs->lock);
        job_item job;
        if (queue_pop_locked(jobs, &job)) {
            rill_mutex_unlock(&jobs->lock);
            job_execute(jobs, &job);
            continue;
        }
        if (rill_counter_done(counter)) {
            rill_mutex_unlock(&jobs->lock);
            break;
        }
        if (jobs->worker_count == 0) {
            /* No queued job and no worker: the counter can only be waiting on a job that is
             * running further up this very thread's stack, which would never finish. */
            rill_mutex_unlock(&jobs->lock);
            RILL_ASSERT(!"rill_jobs_wait: counter cannot finish (waiting on own job?)");
            return;
        }
        jobs->helpers_waiting++;
        rill_cond_wait(&jobs->done_cond, &jobs->lock);
        jobs->helpers_waiting--;
        rill_mutex_unlock(&jobs->lock);
    }
}

void rill_jobs_post_main(rill_jobs *jobs, rill_job_fn fn, void *arg) {
    RILL_ASSERT(jobs != NULL && fn != NULL);
    if (jobs == NULL || fn == NULL) {
        return;
    }
    rill_mutex_lock(&jobs->main_lock);
    if (jobs->main_len == jobs->main_cap) {
        /* Grow and unwrap the ring so the oldest completion sits at index 0. */
        uint32_t new_cap = jobs->main_cap * 2u;
        job_item *q = new_cap > jobs->main_cap
                          ? rill_malloc_tagged((size_t)new_cap * sizeof(job_item), RILL_MEM_JOBS)
                          : NULL;
        if (q == NULL) {
            rill_mutex_unlock(&jobs->main_lock);
            /* Losing a completion would leak what it owns; running it here is the lesser harm. */
            RILL_LOG_ERROR("jobs",
                           "out of memory for a completion; running it off the main thread");
            fn(arg);
            return;
        }
        for (uint32_t i = 0; i < jobs->main_len; ++i) {
            q[i] = jobs->main_queue[(jobs->main_head + i) % jobs->main_cap];
        }
        rill_free(jobs->main_queue);
        jobs->main_queue = q;
        jobs->main_cap = new_cap;
        jobs->main_head = 0;
    }
    uint32_t tail = (jobs->main_head + jobs->main_len) % jobs->main_cap;
    jobs->main_queue[tail] = (job_item){fn, arg, NULL};
    jobs->main_len++;
    rill_mutex_unlock(&jobs->main_lock);
}

uint32_t rill_jobs_drain(rill_jobs *jobs, uint64_t budget_ns) {
    if (jobs == NULL) {
        return 0;
    }
    if (jobs->deterministic) {
        run_all_queued(jobs);
        budget_ns = 0; /* the same work per frame on any machine: never stop on the clock */
    }
    uint64_t start = rill_time_ns();
    /* Only completions already waiting run now; ones they post wait for the next drain, so a
     * completion that re-posts itself cannot keep drain from returning. */
    rill_mutex_lock(&jobs->main_lock);
    uint32_t limit = jobs->main_len;
    rill_mutex_unlock(&jobs->main_lock);
    uint32_t ran = 0;
    while (ran < limit) {
        rill_mutex_lock(&jobs->main_lock);
        if (jobs->main_len == 0) {
            rill_mutex_unlock(&jobs->main_lock);
            break;
        }
        job_item item = jobs->main_queue[jobs->main_head];
        jobs->main_head = (jobs->main_head + 1u) % jobs->main_cap;
        jobs->main_len--;
        rill_mutex_unlock(&jobs->main_lock);
        item.fn(item.arg);
        ran++;
        if (budget_ns != 0 && rill_time_ns() - start >= budget_ns) {
            break;
        }
    }
    return ran;
}

uint32_t rill_jobs_pending_main(rill_jobs *jobs) {
    if (jobs == NULL) {
        return 0;
    }
    rill_mutex_lock(&jobs->main_lock);
    uint32_t n = jobs->main_len;
    rill_mutex_unlock(&jobs->main_lock);
    return n;
}

/* >>parallel loop: a shared chunk cursor. Helper jobs may start after the loop is over (their
 * worker was busy): they then find no chunk left and only drop their reference, so the state
 * lives on the heap until its last holder lets go, and fn/arg are touched only while a chunk is
 * still unfinished (the caller is then still waiting inside rill_jobs_for). */
typedef struct for_state {
    _Atomic uint32_t refs;
    _Atomic uint32_t next; /* next chunk to take */
    _Atomic uint32_t done; /* chunks finished */
    uint32_t chunks, chunk, count;
    rill_job_range_fn fn;
    void *arg;
    rill_jobs *jobs;
} for_state;

static uint32_t for_chunk_size(const rill_jobs *jobs, uint32_t count, uint32_t chunk) {
    if (chunk > 0) {
        return chunk;
    }
    uint32_t threads = rill_jobs_worker_count(jobs) + 1u;
    uint32_t parts = threads * 4u;
    return RILL_MAX(1u, (uint32_t)(((uint64_t)count + parts - 1u) / parts));
}

uint32_t rill_jobs_for_chunks(const rill_jobs *jobs, uint32_t count, uint32_t chunk) {
    uint32_t size = for_chunk_size(jobs, count, chunk);
    return (uint32_t)(((uint64_t)count + size - 1u) / size);
}

static void for_release(for_state *st) {
    if (atomic_fetch_sub(&st->refs, 1) == 1) {
        rill_free(st);
    }
}

void rill_jobs_set_chunk_profiling(rill_jobs *jobs, bool on) {
    if (jobs) {
        atomic_store(&jobs->profile_chunks, on);
    }
}

rill_jobs_chunk_profile rill_jobs_take_slowest_chunk(rill_jobs *jobs) {
    rill_jobs_chunk_profile p = {0};
    if (jobs) {
        rill_mutex_lock(&jobs->main_lock);
        p = jobs->slowest;
        jobs->slowest = (rill_jobs_chunk_profile){0};
        atomic_store(&jobs->slowest_wall, 0);
        rill_mutex_unlock(&jobs->main_lock);
    }
    return p;
}

/* What a thread has used so far, to difference around a profiled chunk. */
typedef struct chunk_usage {
    uint64_t wall, cpu, lock;
    struct rusage ru;
} chunk_usage;

static chunk_usage chunk_usage_now(void) {
    chunk_usage u;
    memset(&u, 0, sizeof u);
    getrusage(RUSAGE_THREAD, &u.ru);
    u.wall = rill_time_ns();
    u.cpu = rill_thread_cpu_ns();
    u.lock = rill_thread_blocked_now().lock_ns;
    return u;
}

static void chunk_note(rill_jobs *jobs, const chunk_usage *u0, bool on_worker) {
    chunk_usage u = chunk_usage_now();
    uint64_t wall = u.wall - u0->wall;
    if (wall <= atomic_load(&jobs->slowest_wall)) {
        return;
    }
    rill_jobs_chunk_profile p = {wall,
                                 u.cpu - u0->cpu,
                                 u.lock - u0->lock,
                                 (uint32_t)(u.ru.ru_nvcsw - u0->ru.ru_nvcsw),
                                 (uint32_t)(u.ru.ru_nivcsw - u0->ru.ru_nivcsw),
                                 (uint32_t)(u.ru.ru_minflt - u0->ru.ru_minflt),
                                 on_worker};
    rill_mutex_lock(&jobs->main_lock);
    if (wall > jobs->slowest.wall_ns) {
        jobs->slowest = p;
        atomic_store(&jobs->slowest_wall, wall);
    }
    rill_mutex_unlock(&jobs->main_lock);
}

/* Takes and runs chunks until none is left. */
static void for_take_chunks(for_state *st, bool on_worker) {
    bool profile = atomic_load_explicit(&st->jobs->profile_chunks, memory_order_relaxed);
    for (;;) {
        uint32_t c = atomic_fetch_add(&st->next, 1);
        if (c >= st->chunks) {
            return;
        }
        uint32_t begin = c * st->chunk;
        uint32_t end = RILL_MIN(st->count, begin + st->chunk);
        chunk_usage u0;
        if (profile) {
            u0 = chunk_usage_now();
        }
        st->fn(st->arg, begin, end, c);
        if (profile) {
            chunk_note(st->jobs, &u0, on_worker);
        }
        if (atomic_fetch_add(&st->done, 1) + 1u == st->chunks) {
            rill_mutex_lock(&st->jobs->lock);
            rill_cond_broadcast(&st->jobs->done_cond);
            rill_mutex_unlock(&st->jobs->lock);
        }
    }
}

static void for_helper(void *arg) {
    for_state *st = arg;
    for_take_chunks(st, true);
    for_release(st);
}

static void for_inline(uint32_t count, uint32_t size, rill_job_range_fn fn, void *arg) {
    for (uint32_t c = 0, begin = 0; begin < count; c++, begin += size) {
        fn(arg, begin, RILL_MIN(count, begin + size), c);
        if (count - begin <= size) {
            return; /* begin + size would pass UINT32_MAX for a huge count */
        }
    }
}

void rill_jobs_for(rill_jobs *jobs, uint32_t count, uint32_t chunk, rill_job_range_fn fn,
                   void *arg) {
    RILL_ASSERT(fn != NULL);
    if (fn == NULL || count == 0) {
        return;
    }
    uint32_t size = for_chunk_size(jobs, count, chunk);
    uint32_t chunks = rill_jobs_for_chunks(jobs, count, size);
    uint32_t helpers = RILL_MIN(rill_jobs_worker_count(jobs), chunks - 1u);
    for_state *st = NULL;
    if (helpers > 0 && !rill_jobs_is_deterministic(jobs)) {
        st = rill_malloc_tagged(sizeof(*st), RILL_MEM_JOBS);
    }
    if (st == NULL) {
        for_inline(count, size, fn, arg);
        return;
    }
    *st = (for_state){
        .chunks = chunks, .chunk = size, .count = count, .fn = fn, .arg = arg, .jobs = jobs};
    atomic_init(&st->refs, helpers + 1u);
    atomic_init(&st->next, 0);
    atomic_init(&st->done, 0);
    for (uint32_t i = 0; i < helpers; i++) {
        rill_jobs_run(jobs, for_helper, st, NULL);
    }
    for_take_chunks(st, false);
    if (atomic_load(&st->done) < chunks) {
        rill_mutex_lock(&jobs->lock);
        while (atomic_load(&st->done) < chunks) {
            rill_cond_wait(&jobs->done_cond, &jobs->lock);
        }
        rill_mutex_unlock(&jobs->lock);
    }
    for_release(st);
}
