/* log.c: leveled logging to a replaceable sink, serialized by one process-wide lock. */
#include "rill/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

/* Lines longer than this are truncated; a stack buffer keeps logging allocation-free. */
#define LOG_LINE_MAX 2048

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static rill_log_fn log_sink = NULL; /* NULL = default stderr sink; guarded by log_lock */
static void *log_user = NULL;
static _Atomic int log_level = RILL_LOG_INFO;

static void default_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    RILL_UNUSED(user);
    fprintf(stderr, "[%s] %s: %s\n", rill_log_level_name(level), module, msg);
}

void rill_log_set_sink(rill_log_fn fn, void *user) {
    pthread_mutex_lock(&log_lock);
    log_sink = fn;
    log_user = fn != NULL ? user : NULL;
    pthread_mutex_unlock(&log_lock);
}

void rill_log_set_level(rill_log_level level) {
    atomic_store(&log_level, (int)level);
}

rill_log_level rill_log_get_level(void) {
    return (rill_log_level)atomic_load(&log_level);
}

const char *rill_log_level_name(rill_log_level level) {
    switch (level) {
        RILL_LOG_LEVEL_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "unknown";
    }
}

void rill_logv(rill_log_level level, const char *module, const char *fmt, va_list ap) {
    if ((int)level < atomic_load(&log_level) || level >= RILL_LOG_NONE) {
        return;
    }
    char line[LOG_LINE_MAX];
    vsnprintf(line, sizeof(line), fmt != NULL ? fmt : "", ap);
    pthread_mutex_lock(&log_lock);
    rill_log_fn fn = log_sink != NULL ? log_sink : default_sink;
    fn(level, module != NULL ? module : "rill", line, log_user);
    pthread_mutex_unlock(&log_lock);
}

void rill_logf(rill_log_level level, const char *module, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rill_logv(level, module, fmt, ap);
    va_end(ap);
}
