/* thread.c: mutex and condition variable wrappers over pthreads, kept in the opaque storage of
 * rill_mutex / rill_cond so public headers need not include <pthread.h>. */
#define _GNU_SOURCE /* dladdr */
#include "rill/base.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(pthread_mutex_t) <= sizeof(rill_mutex), "rill_mutex storage too small");
_Static_assert(alignof(pthread_mutex_t) <= alignof(rill_mutex), "rill_mutex alignment too small");
_Static_assert(sizeof(pthread_cond_t) <= sizeof(rill_cond), "rill_cond storage too small");
_Static_assert(alignof(pthread_cond_t) <= alignof(rill_cond), "rill_cond alignment too small");

static pthread_mutex_t *as_mutex(rill_mutex *m) {
    return (pthread_mutex_t *)(void *)m->opaque;
}

static pthread_cond_t *as_cond(rill_cond *c) {
    return (pthread_cond_t *)(void *)c->opaque;
}

void rill_mutex_init(rill_mutex *m) {
    int rc = pthread_mutex_init(as_mutex(m), NULL);
    RILL_ASSERT(rc == 0);
    RILL_UNUSED(rc);
}

void rill_mutex_destroy(rill_mutex *m) {
    pthread_mutex_destroy(as_mutex(m));
}

static _Thread_local rill_thread_blocked blocked;

/* A code address relative to the base of the binary that holds it (0 stays 0). dladdr walks the
 * loader's lists under its lock, and rill_thread_blocked_now is read around every profiled chunk
 * (rill_jobs_set_chunk_profiling), so each site keeps its last answer in `memo` ({address,
 * relative}): the longest wait's site rarely changes between two reads. */
static uintptr_t relative_to_binary(uintptr_t at, uintptr_t memo[2]) {
    if (at == 0 || at == memo[0]) {
        return at == 0 ? 0 : memo[1];
    }
    Dl_info info;
    uintptr_t rel = at;
    if (dladdr((void *)at, &info) != 0 && info.dli_fbase) {
        rel = at - (uintptr_t)info.dli_fbase;
    }
    memo[0] = at;
    memo[1] = rel;
    return rel;
}

rill_thread_blocked rill_thread_blocked_now(void) {
    rill_thread_blocked b = blocked;
    static _Thread_local uintptr_t lock_memo[2], cond_memo[2];
    b.lock_max_at = relative_to_binary(b.lock_max_at, lock_memo);
    b.cond_max_at = relative_to_binary(b.cond_max_at, cond_memo);
    return b;
}

void rill_thread_blocked_reset_max(void) {
    blocked.lock_max_ns = 0;
    blocked.lock_max_at = 0;
    blocked.cond_max_ns = 0;
    blocked.cond_max_at = 0;
}

static void note_cond_wait(uint64_t t0, uintptr_t at) {
    uint64_t dt = rill_time_ns() - t0;
    blocked.cond_ns += dt;
    if (dt > blocked.cond_max_ns) {
        blocked.cond_max_ns = dt;
        blocked.cond_max_at = at;
    }
}

/* An uncontended lock costs one try; a contended one is timed (rill_thread_blocked). */
void rill_mutex_lock(rill_mutex *m) {
    if (pthread_mutex_trylock(as_mutex(m)) == 0) {
        return;
    }
    uint64_t t0 = rill_time_ns();
    int rc = pthread_mutex_lock(as_mutex(m));
    RILL_ASSERT(rc == 0);
    RILL_UNUSED(rc);
    uint64_t dt = rill_time_ns() - t0;
    blocked.lock_ns += dt;
    if (dt > blocked.lock_max_ns) {
        blocked.lock_max_ns = dt;
        blocked.lock_max_at = (uintptr_t)__builtin_return_address(0);
    }
}

void rill_mutex_unlock(rill_mutex *m) {
    int rc = pthread_mutex_unlock(as_mutex(m));
    RILL_ASSERT(rc == 0);
    RILL_UNUSED(rc);
}

void rill_cond_init(rill_cond *c) {
    /* Timed waits measure against the monotonic clock, so wall-clock jumps do not stretch them. */
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(as_cond(c), &attr);
    pthread_condattr_destroy(&attr);
    RILL_ASSERT(rc == 0);
    RILL_UNUSED(rc);
}

void rill_cond_destroy(rill_cond *c) {
    pthread_cond_destroy(as_cond(c));
}

void rill_cond_wait(rill_cond *c, rill_mutex *m) {
    uint64_t t0 = rill_time_ns();
    pthread_cond_wait(as_cond(c), as_mutex(m));
    note_cond_wait(t0, (uintptr_t)__builtin_return_address(0));
}

bool rill_cond_wait_ns(rill_cond *c, rill_mutex *m, uint64_t timeout_ns) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + timeout_ns % 1000000000ull;
    ts.tv_sec += (time_t)(timeout_ns / 1000000000ull + ns / 1000000000ull);
    ts.tv_nsec = (long)(ns % 1000000000ull);
    uint64_t t0 = rill_time_ns();
    bool woken = pthread_cond_timedwait(as_cond(c), as_mutex(m), &ts) != ETIMEDOUT;
    note_cond_wait(t0, (uintptr_t)__builtin_return_address(0));
    return woken;
}

void rill_cond_signal(rill_cond *c) {
    pthread_cond_signal(as_cond(c));
}

void rill_cond_broadcast(rill_cond *c) {
    pthread_cond_broadcast(as_cond(c));
}

uint32_t rill_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1u;
}
