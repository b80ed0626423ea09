/* bench_query_flecs.c: Rill's world against flecs on the workload of an ECS loop, built only when
 * flecs's single-file distribution is found outside the repository (RILL_FLECS_DIR, see
 * CMakeLists.txt; github.com/SanderMertens/flecs). Both worlds get 1 M entities with a name
 * pointer, Transform (40 bytes), GlobalTransform (64) and Velocity (16), spawned in bulk
 * (rill_world_spawn_bulk, ecs_bulk_init); then "translation += velocity" over the entities having
 * Transform and Velocity: flecs through a cached query, Rill run by run through a plain query
 * (rill_world_query + rill_query_next_run, as a system written against the API loops) and through
 * a cached one (rill_query_cache). Each figure is the median of `reps` rounds, the three loops
 * interleaved within a round, each loop timed as the median of 5 passes on the thread's CPU
 * clock (the shared machine's wall clock swings). Prints JSON lines, entities per second.
 * Usage: bench_query_flecs [--n N] [--reps R] */
#include "flecs.h"
#include "rill/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct velocity {
    float v[3];
    uint32_t flags;
} velocity;

typedef struct peer_name {
    const char *value;
} peer_name;

typedef struct peer_transform {
    float translation[3];
    float rotation[4];
    float scale[3];
} peer_transform;

typedef struct peer_global {
    float m[16];
} peer_global;

static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* >>flecs */

ECS_COMPONENT_DECLARE(peer_name);
ECS_COMPONENT_DECLARE(peer_transform);
ECS_COMPONENT_DECLARE(peer_global);
ECS_COMPONENT_DECLARE(velocity);

static ecs_world_t *flecs_make(uint32_t n, void *names, void *trs, void *vels, double *spawn_ms) {
    ecs_world_t *ecs = ecs_init();
    ECS_COMPONENT_DEFINE(ecs, peer_name);
    ECS_COMPONENT_DEFINE(ecs, peer_transform);
    ECS_COMPONENT_DEFINE(ecs, peer_global);
    ECS_COMPONENT_DEFINE(ecs, velocity);
    peer_global *gl = calloc(n, sizeof(peer_global));
    void *data[] = {names, trs, gl, vels};
    double t0 = cpu_ms();
    ecs_bulk_init(ecs, &(ecs_bulk_desc_t){.count = (int32_t)n,
                                          .ids = {ecs_id(peer_name), ecs_id(peer_transform),
                                                  ecs_id(peer_global), ecs_id(velocity)},
                                          .data = data});
    *spawn_ms = cpu_ms() - t0;
    free(gl);
    return ecs;
}

static void flecs_loop(ecs_world_t *ecs, ecs_query_t *q) {
    ecs_iter_t it = ecs_query_iter(ecs, q);
    while (ecs_query_next(&it)) {
        peer_transform *t = ecs_field(&it, peer_transform, 0);
        const velocity *v = ecs_field(&it, velocity, 1);
        for (int32_t k = 0; k < it.count; k++) {
            t[k].translation[0] += v[k].v[0];
            t[k].translation[1] += v[k].v[1];
            t[k].translation[2] += v[k].v[2];
        }
    }
}

/* >>rill */

static rill_component register_velocity(rill_world *w) {
    static const rill_field fields[] = {RILL_FIELD(velocity, v, VEC3),
                                        RILL_FIELD(velocity, flags, U32)};
    rill_type_desc d = {.name = "Velocity", RILL_TYPE_LAYOUT(velocity), RILL_FIELDS(fields)};
    return rill_world_register_component(w, &d);
}

static void rill_loop(rill_query q) {
    while (rill_query_next_run(&q)) {
        rill_transform *t = q.columns[0];
        const velocity *v = q.columns[1];
        for (uint32_t k = 0; k < q.count; k++) {
            t[k].translation[0] += v[k].v[0];
            t[k].translation[1] += v[k].v[1];
            t[k].translation[2] += v[k].v[2];
        }
    }
}

#define PASSES 5

int main(int argc, char **argv) {
    uint32_t n = 1000000;
    int reps = 7;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            n = (uint32_t)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        }
    }
    if (n < 1 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: bench_query_flecs [--n N] [--reps R]\n");
        return 2;
    }
    const char *names[64];
    for (int i = 0; i < 64; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "rock_%02d", i);
        names[i] = rill_intern(buf);
    }
    rill_name *name_arr = rill_malloc(sizeof(rill_name) * n);
    rill_transform *tr_arr = rill_malloc(sizeof(rill_transform) * n);
    velocity *vel_arr = rill_malloc(sizeof(velocity) * n);
    for (uint32_t i = 0; i < n; i++) {
        name_arr[i].value = names[i & 63];
        tr_arr[i] = rill_transform_identity();
        tr_arr[i].translation[0] = (float)i;
        vel_arr[i] = (velocity){{1, 0, 0}, 0};
    }
    _Static_assert(sizeof(peer_transform) == sizeof(rill_transform), "same Transform");
    double flecs_spawn = 0;
    ecs_world_t *ecs = flecs_make(n, name_arr, tr_arr, vel_arr, &flecs_spawn);
    ecs_query_t *fq = ecs_query(
        ecs, {.terms = {{.id = ecs_id(peer_transform)}, {.id = ecs_id(velocity), .inout = EcsIn}},
              .cache_kind = EcsQueryCacheAuto});

    rill_world *w = rill_world_create(NULL, NULL);
    rill_component vel = register_velocity(w);
    rill_spawn_desc sd = {.count = n,
                          .components = {RILL_COMPONENT_NAME, RILL_COMPONENT_TRANSFORM,
                                         RILL_COMPONENT_GLOBAL_TRANSFORM, vel},
                          .data = {name_arr, tr_arr, NULL, vel_arr}};
    double t0 = cpu_ms();
    if (rill_world_spawn_bulk(w, &sd, NULL) != n) {
        fprintf(stderr, "bench_query_flecs: spawn failed\n");
        return 1;
    }
    double rill_spawn = cpu_ms() - t0;
    rill_query_desc qd = {.with = {RILL_COMPONENT_TRANSFORM, vel}};
    rill_query_cache *cache = rill_world_query_cache(w, &qd);

    double *res = calloc((size_t)reps * 3u, sizeof(double));
    for (int r = 0; r < reps; r++) {
        for (int turn = 0; turn < 3; turn++) {
            int which = (turn + r) % 3; /* 0 flecs cached, 1 Rill runs, 2 Rill cached */
            double pass[PASSES];
            for (int p = 0; p < PASSES; p++) {
                double c0 = cpu_ms();
                if (which == 0) {
                    flecs_loop(ecs, fq);
                } else if (which == 1) {
                    rill_loop(rill_world_query(w, &qd));
                } else {
                    rill_loop(rill_query_cache_iter(cache));
                }
                pass[p] = cpu_ms() - c0;
            }
            res[which * reps + r] = median(pass, PASSES);
        }
    }
    const char *labels[3] = {"flecs_cached_query", "rill_query_runs", "rill_query_cache_runs"};
    double flecs_ms = median(res, reps);
    for (int k = 0; k < 3; k++) {
        double ms = median(res + k * reps, reps);
        printf("{\"bench\":\"query_vs_flecs\",\"loop\":\"%s\",\"n\":%u,\"cpu_ms_median\":%.3f,"
               "\"entities_per_s\":%.0f,\"over_flecs\":%.2f}\n",
               labels[k], n, ms, (double)n / (ms / 1e3), flecs_ms / ms);
    }
    printf("{\"bench\":\"spawn_vs_flecs\",\"n\":%u,\"rill_cpu_ms\":%.1f,\"flecs_cpu_ms\":%.1f}\n",
           n, rill_spawn, flecs_spawn);
    free(res);
    rill_query_cache_destroy(cache);
    rill_world_destroy(w);
    ecs_query_fini(fq);
    ecs_fini(ecs);
    rill_free(name_arr);
    rill_free(tr_arr);
    rill_free(vel_arr);
    return 0;
}
