/* bench_world.c: world module throughput. Prints one JSON line per measurement:
 *   {"bench":"world","case":...,"n":...,"ns_per_entity":...,"entities_per_s":...}
 * Cases: spawn (empty entities), spawn4 (Name, Transform, GlobalTransform and a custom component:
 * the shape of streamed content), add and remove of one component, a two-component query, the
 * first transform update, and despawn. Sizes 10k, 100k and 1M (argv[1] caps the largest). Each
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
    rill_type_desc d = {
        .name = "Velocity", RILL_TYPE_LAYOUT(velocity), .fields = fields, .field_count = 2};
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
    uint64_t t_spawn = UINT64_MAX, t_spawn4 = UINT64_MAX, t_add = UINT64_MAX, t_remove = UINT64_MAX,
             t_query = UINT64_MAX, t_update = UINT64_MAX, t_despawn = UINT64_MAX;
    volatile float sink = 0;
    for (int run = 0; run < RUNS; run++) {
        rill_world *w = rill_world_create(NULL);
        BEST(t_spawn, for (uint32_t i = 0; i < n; i++) ents[i] = rill_world_spawn(w));
        rill_world_destroy(w);

        w = rill_world_create(NULL);
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
            float acc = 0;
            while (rill_query_next(&q)) {
                const rill_transform *t = rill_query_get(&q, 0);
                const velocity *vv = rill_query_get(&q, 1);
                acc += t->translation[0] * vv->v[0];
            }
            sink += acc;
        });
        BEST(t_remove, for (uint32_t i = 0; i < n; i++) rill_world_remove(w, ents[i], vel));
        BEST(t_add, for (uint32_t i = 0; i < n; i++) rill_world_add(w, ents[i], vel, &v));
        BEST(t_despawn, for (uint32_t i = 0; i < n; i++) rill_world_despawn(w, ents[i]));
        rill_world_destroy(w);
    }
    report("spawn", n, t_spawn);
    report("spawn4", n, t_spawn4);
    report("add_component", n, t_add);
    report("remove_component", n, t_remove);
    report("query2", n, t_query);
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
