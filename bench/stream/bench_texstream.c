/* bench_texstream.c: the texture streaming evaluator at scale. N material users (default
 * 100000) on a grid 2 km wide, U users per material, 3 textures per material; the camera flies
 * across the grid with one update per 60 Hz frame and data delivered at once. Prints one JSON
 * line per work budget (the default sliced sweep, then the whole evaluation in one update):
 * worst and mean evaluation time (a whole sweep), worst update (one slice + parked swaps), swaps.
 * Times are thread CPU time. Usage: bench_texstream [users] [users_per_material] [work_per_update]
 */
#include "rill/stream/textures.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Thread CPU time: on a shared machine a wall-clock maximum is the scheduler's, not ours. */
static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

typedef struct pending {
    uint32_t *tex;
    rill_texstream_level *lv;
    uint32_t n, cap;
} pending;

static void on_request(void *u, uint32_t t, rill_texstream_level l) {
    pending *p = u;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 1024;
        p->tex = realloc(p->tex, p->cap * sizeof *p->tex);
        p->lv = realloc(p->lv, p->cap * sizeof *p->lv);
    }
    p->tex[p->n] = t;
    p->lv[p->n++] = l;
}

static void run(uint32_t users, uint32_t per_material, uint32_t work) {
    pending p = {0};
    rill_texstream_settings s = rill_texstream_settings_default();
    s.work_per_update = work;
    rill_texstream *ts =
        rill_texstream_create(&s, &(rill_texstream_ops){.request = on_request, .user = &p});
    uint32_t materials = (users + per_material - 1) / per_material;
    uint32_t side = 1;
    while (side * side < users) {
        side++;
    }
    float step = 2000.0f / (float)side;
    for (uint32_t m = 0; m < materials; m++) {
        uint32_t slots[RILL_TEXSTREAM_SLOTS] = {~0u, ~0u, ~0u, ~0u, ~0u};
        for (uint32_t i = 0; i < 3; i++) {
            slots[i] = rill_texstream_add_texture(ts, 1398100, 87380, RILL_TEX_LOW);
        }
        rill_texstream_add_material(ts, slots, 0);
    }
    for (uint32_t u = 0; u < users; u++) {
        /* users of one material are scattered over the grid (u % materials) */
        float x = (float)(u % side) * step, z = (float)(u / side) * step;
        rill_texstream_add_user(ts, u % materials, (float[3]){x, 0, z},
                                (float[3]){x + 4, 4, z + 4});
    }
    double t = 0;
    uint64_t worst_update = 0, first_update = 0, eval_total = 0;
    uint32_t evals = 0;
    for (uint32_t f = 0; f < 600; f++) { /* 10 s at 60 Hz, 100 m/s across the grid */
        float cam[3] = {(float)f * (2000.0f / 600.0f), 2, 1000};
        uint64_t t0 = now_ns();
        bool ev = rill_texstream_update(ts, t, true, cam);
        uint64_t dt = now_ns() - t0;
        if (f == 0) {
            first_update = dt; /* groups built and every material decided once */
        } else if (dt > worst_update) {
            worst_update = dt;
        }
        if (ev) {
            evals++;
        }
        for (uint32_t i = 0; i < p.n; i++) {
            rill_texstream_data_ready(ts, p.tex[i], p.lv[i]);
        }
        p.n = 0;
        t += 1.0 / 60.0;
    }
    rill_texstream_stats st;
    rill_texstream_get_stats(ts, &st);
    (void)eval_total;
    printf("{\"bench\":\"texstream\",\"users\":%u,\"materials\":%u,\"textures\":%u,"
           "\"work_per_update\":%u,\"evaluations\":%u,\"evaluate_ms_max\":%.3f,"
           "\"first_update_ms\":%.3f,\"update_ms_max\":%.3f,\"swaps\":%llu,"
           "\"resident_bytes\":%llu,\"all_full_bytes\":%llu}\n",
           users, materials, st.textures, work, evals, (double)st.evaluate_ns_max / 1e6,
           (double)first_update / 1e6, (double)worst_update / 1e6, (unsigned long long)st.swaps,
           (unsigned long long)st.resident_bytes, (unsigned long long)st.all_full_bytes);
    rill_texstream_destroy(ts);
    free(p.tex);
    free(p.lv);
}

int main(int argc, char **argv) {
    uint32_t users = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000u;
    uint32_t per_material = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 5u;
    uint32_t work = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0u;
    run(users, per_material, work);       /* 0 = the default slice */
    run(users, per_material, UINT32_MAX); /* one update per evaluation, for comparison */
    return 0;
}
