/* bench_world.c: world module throughput. Prints one JSON line per measurement:
 *   {"bench":"world","case":...,"n":...,"ns_per_entity":...,"entities_per_s":...}
 * Cases: spawn (empty entities), spawn4 (Name, Transform, GlobalTransform and a custom component:
 * the shape of streamed content, one add at a time), spawn4_bulk (the same through
 * rill_world_spawn_bulk from prepared arrays), add and remove of one component, a two-component
 * query entity by entity (query2) and run by run (query2_runs; both add velocity to translation),
 * the first transform update, and despawn. Sizes 10k, 100k and 1M (argv[1] caps the largest). Each
 * case runs in a fresh world, best of 3 runs, so allocation growth is part of the figure. */
#include "rill/world.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct velocity {
    float v[3];
    uint32_t flags;
} velocity;

static rill_component register_velocity(rill_world *w) {
    static const rill_field fields[] = {RILL_FIELD(velocity, v, VEC3),
                                        RILL_FIELD(velocity, flags, U32)};
    rill_type_desc d = {.name = "Velocity", RILL_TYPE_LAYOUT(velocity), RILL_FIELDS(fields)};
    return rill_world_register_component(w, &d);
}

static void report(const char *name, uint32_t n, uint64_t ns) {
    double per = (double)ns / (double)n;
    printf("{\"bench\":\"world\",\"case\":\"%s\",\"n\":%u,\"ns_per_entity\":%.2f,"
           "\"entities_per_s\":%.0f}\n",
           name, n, per, per > 0 ? 1e9 / per : 0.0);
    fflush(stdout);
}

#define RUNS 3
#define BEST(var, expr)                                                                            \
    do {                                                                                           \
        uint64_t t0_ = rill_time_ns();                                                             \
        expr;                                                                                      \
        uint64_t dt_ = rill_time_ns() - t0_;                                                       \
        if (dt_ < (var))                                                                           \
            (var) = dt_;                                                                           \
    } while (0)

static void run_size(uint32_t n, rill_entity *ents) {
    const char *names[64];
    char buf[32];
    for (int i = 0; i < 64; i++) {
        snprintf(buf, sizeof buf, "rock_%02d", i);
        names[i] =
            rill_intern(buf); /* the scene reader interns while parsing, off the main thread */
    }
    uint64_t t_bulk = UINT64_MAX, t_runs = UINT64_MAX;
    rill_name *name_arr = rill_malloc(sizeof(rill_name) * n);
    rill_transform *tr_arr = rill_malloc(sizeof(rill_transform) * n);
    velocity *vel_arr = rill_malloc(sizeof(velocity) * n);
    for (uint32_t i = 0; i < n; i++) {
        name_arr[i].value = names[i & 63];
        tr_arr[i] = rill_transform_identity();
        tr_arr[i].translation[0] = (float)i;
        vel_arr[i] = (velocity){{1, 0, 0}, 0};
    }
    uint64_t t_spawn = UINT64_MAX, t_spawn4 = UINT64_MAX, t_add = UINT64_MAX, t_remove = UINT64_MAX,
             t_query = UINT64_MAX, t_update = UINT64_MAX, t_despawn = UINT64_MAX;
    volatile float sink = 0;
    for (int run = 0; run < RUNS; run++) {
        rill_world *w = rill_world_create(NULL, NULL);
        BEST(t_spawn, for (uint32_t i = 0; i < n; i++) ents[i] = rill_world_spawn(w));
        rill_world_destroy(w);

        w = rill_world_create(NULL, NULL);
        rill_component vel = register_velocity(w);
        rill_transform tr = rill_transform_identity();
        velocity v = {{1, 0, 0}, 0};
        BEST(t_spawn4, {
            for (uint32_t i = 0; i < n; i++) {
                rill_entity e = rill_world_spawn(w);
                ents[i] = e;
                rill_world_add(w, e, RILL_COMPONENT_NAME, &(rill_name){names[i & 63]});
                tr.translation[0] = (float)i;
                rill_world_add(w, e, RILL_COMPONENT_TRANSFORM, &tr);
                rill_world_add(w, e, RILL_COMPONENT_GLOBAL_TRANSFORM, NULL);
                rill_world_add(w, e, vel, &v);
            }
        });
        BEST(t_update, rill_world_update_transforms(w));
        BEST(t_query, {
            rill_query q =
                rill_world_query(w, &(rill_query_desc){.with = {RILL_COMPONENT_TRANSFORM, vel}});
            while (rill_query_next(&q)) {
                rill_transform *t = rill_query_get(&q, 0);
                const velocity *vv = rill_query_get(&q, 1);
                t->translation[0] += vv->v[0];
                t->translation[1] += vv->v[1];
                t->translation[2] += vv->v[2];
            }
        });
        BEST(t_runs, {
            rill_query q =
                rill_world_query(w, &(rill_query_desc){.with = {RILL_COMPONENT_TRANSFORM, vel}});
            while (rill_query_next_run(&q)) {
                rill_transform *t = q.columns[0];
                const velocity *vv = q.columns[1];
                for (uint32_t k = 0; k < q.count; k++) {
                    t[k].translation[0] += vv[k].v[0];
                    t[k].translation[1] += vv[k].v[1];
                    t[k].translation[2] += vv[k].v[2];
                }
            }
        });
        sink += ((rill_transform *)rill_world_get(w, ents[n / 2], RILL_COMPONENT_TRANSFORM))
                    ->translation[0];
        BEST(t_remove, for (uint32_t i = 0; i < n; i++) rill_world_remove(w, ents[i], vel));
        BEST(t_add, for (uint32_t i = 0; i < n; i++) rill_world_add(w, ents[i], vel, &v));
        BEST(t_despawn, for (uint32_t i = 0; i < n; i++) rill_world_despawn(w, ents[i]));
        rill_world_destroy(w);

        w = rill_world_create(NULL, NULL);
        vel = register_velocity(w);
        rill_spawn_desc sd = {.count = n,
                              .components = {RILL_COMPONENT_NAME, RILL_COMPONENT_TRANSFORM,
                                             RILL_COMPONENT_GLOBAL_TRANSFORM, vel},
                              .data = {name_arr, tr_arr, NULL, vel_arr}};
        BEST(t_bulk, rill_world_spawn_bulk(w, &sd, ents));
        rill_world_destroy(w);
    }
    rill_free(name_arr);
    rill_free(tr_arr);
    rill_free(vel_arr);
    report("spawn", n, t_spawn);
    report("spawn4", n, t_spawn4);
    report("spawn4_bulk", n, t_bulk);
    report("add_component", n, t_add);
    report("remove_component", n, t_remove);
    report("query2", n, t_query);
    report("query2_runs", n, t_runs);
    report("update_transforms", n, t_update);
    report("despawn4", n, t_despawn);
    (void)sink;
}

int main(int argc, char **argv) {
    uint32_t max = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
    static const uint32_t sizes[] = {10000, 100000, 1000000};
    rill_entity *ents = rill_malloc(sizeof(rill_entity) * max);
    if (ents == NULL) {
        return 1;
    }
    for (size_t i = 0; i < RILL_COUNTOF(sizes); i++) {
        if (sizes[i] <= max) {
            run_size(sizes[i], ents);
        }
    }
    rill_free(ents);
    return 0;
}
