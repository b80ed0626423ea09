/* thread.c: mutex and condition variable wrappers over pthreads, kept in the opaque storage of
 * rill_mutex / rill_cond so public headers need not include <pthread.h>. */
#include "rill/base.h"

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

void rill_mutex_lock(rill_mutex *m) {
    int rc = pthread_mutex_lock(as_mutex(m));
    RILL_ASSERT(rc == 0);
    RILL_UNUSED(rc);
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
    pthread_cond_wait(as_cond(c), as_mutex(m));
}

bool rill_cond_wait_ns(rill_cond *c, rill_mutex *m, uint64_t timeout_ns) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + timeout_ns % 1000000000ull;
    ts.tv_sec += (time_t)(timeout_ns / 1000000000ull + ns / 1000000000ull);
    ts.tv_nsec = (long)(ns % 1000000000ull);
    return pthread_cond_timedwait(as_cond(c), as_mutex(m), &ts) != ETIMEDOUT;
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
