/* time.c: the monotonic clock, sleeping, and rill_clock (a time source tests can replace). */
#include "rill/base.h"

#include <errno.h>
#include <time.h>

uint64_t rill_time_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t rill_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double rill_time_sec(void) {
    return (double)rill_time_ns() * 1e-9;
}

void rill_sleep_ns(uint64_t ns) {
    struct timespec req = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    struct timespec rem;
    /* A signal cuts nanosleep short; sleep the remainder so callers get the full delay. */
    while (nanosleep(&req, &rem) != 0 && errno == EINTR) {
        req = rem;
    }
}

uint64_t rill_clock_now(const rill_clock *clock) {
    if (clock == NULL || clock->now_ns == NULL) {
        return rill_time_ns();
    }
    return clock->now_ns(clock->user);
}
