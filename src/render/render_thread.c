/* render_thread.c: the optional render thread (rill_renderer_desc.render_thread). The calling
 * thread hands it one snapshot at a time (rill__rthread_submit); the thread records and submits
 * that frame (rill__frame_render) while the caller runs its next frame's update. There is no
 * shared mutable state between the two while a frame is in progress: the snapshot struct is
 * copied at the hand-off and the arrays it points to are the caller's, unchanged until the sync,
 * and every renderer call from another thread waits for the frame first (rill__rthread_guard at the
 * renderer's entry points and in the GPU layer's resource calls), so each call sees the renderer as
 * the single-threaded order would. Statistics are published by the thread at the end of each frame
 * under the lock; the caller reads those of the last frame it synchronised with (the hand-off, a
 * sync, any call that waited for the frame), so reading them does not wait and a frame's figures
 * do not depend on how far the thread has got. */
#include "frame.h"

#include <pthread.h>
#include <string.h>

#define LOGM "render"

typedef struct rill__rthread {
    pthread_t thread;
    bool started;
    rill_mutex lock;
    rill_cond wake; /* caller -> thread: a frame was handed over, or quit */
    rill_cond done; /* thread -> caller: the frame is finished */
    bool busy;      /* a frame is handed over and not finished */
    bool quit;
    const rill_render_snapshot *snap; /* &copy while a frame is handed over */
    /* The snapshot struct itself, copied at the hand-off: callers keep theirs on the stack (the
     * arrays it points to stay the caller's until the sync). */
    rill_render_snapshot copy;
    rill_result result; /* the first failure not yet reported, else RILL_OK */
    rill_error err;
    rill_render_stats stats; /* published at the end of each frame */
    /* What rill_renderer_stats gives the caller: `stats` as it was at the caller's last
     * synchronisation with the thread (wait_frame, a guard that found it idle, the hand-off). */
    rill_render_stats stats_seen;
    /* `stats` was published after the last copy into stats_seen: every renderer call from the
     * main thread passes a guard, and copying the ~5 KB statistics in each (a frame of `rill fly`
     * makes tens of thousands of calls) cost more than the calls themselves. */
    bool stats_fresh;
    double sync_ms;      /* waits for the thread since the last hand-off */
    double sync_ms_last; /* ... between the last two hand-offs */
} rill__rthread;

/* Set on the render thread: its own renderer calls never wait for themselves. */
static _Thread_local bool on_render_thread;

bool rill__rthread_here(void) {
    return on_render_thread;
}

/* One frame on the render thread: record, submit, publish the statistics. */
static void thread_frame(rill_renderer *r, rill__rthread *t, const rill_render_snapshot *snap) {
    uint64_t t0 = rill_time_ns();
    rill_error err = {0};
    rill_result res = rill__frame_render(r, snap, &err);
    double ms = (double)(rill_time_ns() - t0) * 1e-6;
    rill_render_stats st;
    rill__renderer_fill_stats(r, &st);
    st.render_thread_ms = ms;
    rill_mutex_lock(&t->lock);
    if (res != RILL_OK && t->result == RILL_OK) {
        t->result = res;
        t->err = err;
    }
    t->stats = st;
    t->stats_fresh = true;
    t->snap = NULL;
    t->busy = false;
    rill_cond_broadcast(&t->done);
    rill_mutex_unlock(&t->lock);
}

static void *thread_main(void *arg) {
    rill_renderer *r = arg;
    rill__rthread *t = r->rthread;
    on_render_thread = true;
    rill_mutex_lock(&t->lock);
    for (;;) {
        while (!t->busy && !t->quit) {
            rill_cond_wait(&t->wake, &t->lock);
        }
        if (!t->busy) {
            break; /* quit with nothing handed over */
        }
        const rill_render_snapshot *snap = t->snap;
        rill_mutex_unlock(&t->lock);
        thread_frame(r, t, snap);
        rill_mutex_lock(&t->lock);
    }
    rill_mutex_unlock(&t->lock);
    return NULL;
}

rill_result rill__rthread_start(rill_renderer *r, rill_error *err) {
    rill__rthread *t = rill_calloc_tagged(1, sizeof(*t), RILL_MEM_RENDER);
    if (!t) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    rill_mutex_init(&t->lock);
    rill_cond_init(&t->wake);
    rill_cond_init(&t->done);
    rill__renderer_fill_stats(r, &t->stats); /* what stats say before the first frame */
    t->stats_seen = t->stats;
    r->rthread = t;
    if (pthread_create(&t->thread, NULL, thread_main, r) != 0) {
        rill__rthread_stop(r);
        return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                              "render: render_thread: cannot start the render thread");
    }
    t->started = true;
    return RILL_OK;
}

void rill__rthread_stop(rill_renderer *r) {
    rill__rthread *t = r->rthread;
    if (!t) {
        return;
    }
    if (t->started) {
        rill_mutex_lock(&t->lock);
        t->quit = true; /* the thread finishes a frame in progress first */
        rill_cond_broadcast(&t->wake);
        rill_mutex_unlock(&t->lock);
        pthread_join(t->thread, NULL);
        if (t->result != RILL_OK) {
            RILL_LOG_ERROR(LOGM, "render thread: last frame failed, never reported: %s",
                           t->err.msg);
        }
    }
    rill_cond_destroy(&t->done);
    rill_cond_destroy(&t->wake);
    rill_mutex_destroy(&t->lock);
    rill_free(t);
    r->rthread = NULL;
}

/* Waits while a frame is in progress (lock held); the caller has seen that frame's statistics
 * after. */
static void wait_frame(rill__rthread *t) {
    if (t->busy) {
        uint64_t t0 = rill_time_ns();
        while (t->busy) {
            rill_cond_wait(&t->done, &t->lock);
        }
        t->sync_ms += (double)(rill_time_ns() - t0) * 1e-6;
    }
    if (t->stats_fresh) {
        t->stats_seen = t->stats;
        t->stats_fresh = false;
    }
}

void rill__rthread_guard(const rill_renderer *r) {
    rill__rthread *t = r ? r->rthread : NULL;
    if (!t || on_render_thread) {
        return;
    }
    rill_mutex_lock(&t->lock);
    wait_frame(t);
    rill_mutex_unlock(&t->lock);
}

/* Waits for the frame and reports the failure it left, if any (lock held); `take` clears it (the
 * hand-off does: a failure is reported by the next rill_renderer_render, and by every sync before
 * it). */
static rill_result frame_result(rill__rthread *t, bool take, rill_error *err) {
    wait_frame(t);
    rill_result res = t->result;
    if (res != RILL_OK && err) {
        *err = t->err;
    }
    if (take) {
        t->result = RILL_OK;
        memset(&t->err, 0, sizeof(t->err));
    }
    return res;
}

rill_result rill_renderer_sync(rill_renderer *r, rill_error *err) {
    if (!r) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL renderer");
    }
    rill__rthread *t = r->rthread;
    if (!t || on_render_thread) {
        return RILL_OK;
    }
    rill_mutex_lock(&t->lock);
    rill_result res = frame_result(t, false, err);
    rill_mutex_unlock(&t->lock);
    return res;
}

rill_result rill__rthread_submit(rill_renderer *r, const rill_render_snapshot *snap,
                                 rill_error *err) {
    rill__rthread *t = r->rthread;
    rill_mutex_lock(&t->lock);
    rill_result res = frame_result(t, true, err);
    if (res == RILL_OK) {
        t->sync_ms_last = t->sync_ms;
        t->sync_ms = 0.0;
        t->copy = *snap;
        t->snap = &t->copy;
        t->busy = true;
        rill_cond_signal(&t->wake);
    }
    rill_mutex_unlock(&t->lock);
    return res;
}

/* The statistics of the last frame the caller synchronised with. The GPU timings are the newest
 * finished GPU frame's, as without the thread: read afresh while the thread is idle (it cannot
 * start a frame while the lock is held), so a wait for the GPU is followed by that frame's. */
void rill__rthread_stats(const rill_renderer *r, rill_render_stats *out) {
    rill__rthread *t = r->rthread;
    rill_mutex_lock(&t->lock);
    *out = t->stats_seen;
    out->render_sync_ms = t->sync_ms_last;
    if (!t->busy) {
        rill__renderer_fill_gpu_timings(r, out);
    }
    rill_mutex_unlock(&t->lock);
}
