/* cli_progress.c: feedback on slow work for `rill render`, `rill run` and a shipped game. The
 * program names each step as it starts (rill_cli_step); a watcher thread prints
 * "PROG: STEP ..." on stderr once the step has run for a second, and the step's end prints how
 * long it took and what it did ("... done in 2.41 s: 3124 entities") when it was shown. Quick
 * steps print nothing. On by default when stderr is a terminal; RILL_PROGRESS=1 turns it on
 * elsewhere (a log), RILL_PROGRESS=0 off, RILL_PROGRESS=all shows every step at once. */
#include "cmds.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_AFTER_NS 1000000000ull

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    bool enabled, all, thread_up, stop;
    char prog[64];
    char label[256];
    uint64_t start_ns; /* CLOCK_MONOTONIC */
    uint64_t gen;      /* counts steps: the watcher shows a step once */
    bool shown;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits on the condition until the monotonic time `until` at most (mu held). */
static void wait_until(uint64_t until) {
    uint64_t now = mono_ns();
    if (until <= now) {
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + (until - now);
    ts.tv_sec = (time_t)(t / 1000000000ull);
    ts.tv_nsec = (long)(t % 1000000000ull);
    pthread_cond_timedwait(&P.cv, &P.mu, &ts);
}

static void show_locked(void) {
    fprintf(stderr, "%s: %s ...\n", P.prog, P.label);
    fflush(stderr);
    P.shown = true;
}

static void *watch(void *arg) {
    (void)arg;
    pthread_mutex_lock(&P.mu);
    while (!P.stop) {
        if (!P.label[0] || P.shown) {
            pthread_cond_wait(&P.cv, &P.mu);
            continue;
        }
        uint64_t gen = P.gen, due = P.start_ns + PROGRESS_AFTER_NS;
        wait_until(due);
        if (!P.stop && gen == P.gen && P.label[0] && !P.shown && mono_ns() >= due) {
            show_locked();
        }
    }
    pthread_mutex_unlock(&P.mu);
    return NULL;
}

void rill_cli_progress_start(const char *prog) {
    if (P.prog[0]) {
        return; /* a game named itself before `run` started */
    }
    const char *env = getenv("RILL_PROGRESS");
    P.all = env && strcmp(env, "all") == 0;
    P.enabled = env ? (P.all || strcmp(env, "1") == 0) : isatty(STDERR_FILENO) != 0;
    snprintf(P.prog, sizeof P.prog, "%s", prog);
    if (P.enabled && !P.all && !P.thread_up) {
        P.thread_up = pthread_create(&P.thread, NULL, watch, NULL) == 0;
    }
}

/* Ends the current step (mu held): "done" with its time and result when it was shown. */
static void end_locked(const char *result) {
    if (P.label[0] && P.shown) {
        fprintf(stderr, "%s: %s ... done in %.2f s%s%s\n", P.prog, P.label,
                (double)(mono_ns() - P.start_ns) * 1e-9, result && result[0] ? ": " : "",
                result ? result : "");
    }
    P.label[0] = 0;
    P.shown = false;
}

void rill_cli_step(const char *fmt, ...) {
    if (!P.enabled) {
        return;
    }
    pthread_mutex_lock(&P.mu);
    end_locked(NULL);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P.label, sizeof P.label, fmt, ap);
    va_end(ap);
    P.start_ns = mono_ns();
    P.gen++;
    if (P.all) {
        show_locked();
    }
    pthread_cond_signal(&P.cv);
    pthread_mutex_unlock(&P.mu);
}

void rill_cli_step_done(const char *fmt, ...) {
    if (!P.enabled) {
        return;
    }
    char result[256] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(result, sizeof result, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_lock(&P.mu);
    end_locked(result);
    pthread_cond_signal(&P.cv);
    pthread_mutex_unlock(&P.mu);
}

void rill_cli_progress_stop(void) {
    if (!P.enabled) {
        return;
    }
    pthread_mutex_lock(&P.mu);
    end_locked(NULL);
    P.stop = true;
    pthread_cond_signal(&P.cv);
    pthread_mutex_unlock(&P.mu);
    if (P.thread_up) {
        pthread_join(P.thread, NULL);
    }
    P.thread_up = false;
    P.stop = false;
    P.enabled = false;
}
