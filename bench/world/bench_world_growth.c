/* bench_world_growth.c: the worst single spawn while a world grows. Model-shaped trees of
 * `tree` entities (a root, then nodes each with one mesh child: Name, Transform, Parent, and on
 * the mesh children a ModelMesh-shaped component whose add observer adds a tag and a mask, as the
 * scene module's observers do) are spawned one after the other, `per_frame` trees a frame, each
 * frame ending with the transform update (which adds the GlobalTransforms), until the world holds
 * `max` entities. Every spawn and every update is timed on its own (the thread's CPU time, so
 * that other processes taking the core do not count; page faults do), so a storage that doubles
 * inside one shows up as that spawn's time. Then a streaming phase: `cycles` rounds of despawning
 * a quarter of the trees (the oldest first) and spawning as many anew. One JSON line per phase:
 *   {"bench":"world_growth","phase":"grow"|"cycle","tree":..,"entities":..,"spawns":..,
 *    "spawn_us_mean":..,"spawn_us_p99":..,"spawn_us_max":..,"spawn_max_at":..,
 *    "update_us_max":..,"update_max_at":..,"world_mb":..}
 * spawn_max_at / update_max_at: the entity count when the worst one started. world_mb: live bytes
 * tagged RILL_MEM_WORLD at the end of the phase.
 *
 * Before anything, unless raise=0, a 24 MB block is allocated and freed: the engine frees decoded
 * files that large, which with glibc raises the size from which a block gets its own mapping (up
 * to 32 MB), so the world's arrays below it live in the heap and growing one copies it, as in the
 * engine; in a fresh process they would be mappings that grow without a copy (mremap).
 *
 * usage: bench_world_growth [max=1500000] [tree=64] [per_frame=16] [cycles=8] [raise=1] */
#include "rill/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct mesh_ref {
    uint32_t asset, mesh, primitive;
} mesh_ref;

typedef struct tag {
    uint8_t unused;
} tag;

typedef struct bench {
    rill_world *w;
    rill_component mesh, shown, mask;
    const char *names[16];
    uint32_t tree;
    double *spawn_us; /* one per spawn of the phase */
    uint32_t spawns, spawns_cap;
    double spawn_max, update_max;
    uint32_t spawn_max_at, update_max_at;
} bench;

/* The scene module's ModelMesh observers, in small: the mesh joins the shown set, gets a mask. */
static void on_mesh(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    const bench *b = user;
    uint32_t all = 1u;
    rill_world_add(w, e, b->shown, NULL);
    rill_world_add(w, e, b->mask, &all);
}

static bool setup(bench *b) {
    static const rill_field mesh_fields[] = {RILL_FIELD(mesh_ref, asset, U32),
                                             RILL_FIELD(mesh_ref, mesh, U32),
                                             RILL_FIELD(mesh_ref, primitive, U32)};
    rill_type_desc md = {.name = "MeshRef", RILL_TYPE_LAYOUT(mesh_ref), RILL_FIELDS(mesh_fields)};
    rill_type_desc sd = {.name = "Shown", RILL_TYPE_LAYOUT(tag)};
    rill_type_desc kd = {.name = "Mask", RILL_TYPE_LAYOUT(uint32_t)};
    b->w = rill_world_create(NULL, NULL);
    if (!b->w) {
        return false;
    }
    b->mesh = rill_world_register_component(b->w, &md);
    b->shown = rill_world_register_component(b->w, &sd);
    b->mask = rill_world_register_component(b->w, &kd);
    for (int i = 0; i < 16; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "node_%02d", i);
        b->names[i] = rill_intern(buf);
    }
    return b->mesh.id && b->shown.id && b->mask.id &&
           rill_world_observe_add(b->w, b->mesh, on_mesh, b);
}

/* One tree, as rill_scene_model_spawn makes it; returns its root. */
static rill_entity spawn_tree(bench *b, rill_entity *ents, uint32_t k) {
    if (rill_world_spawn_n(b->w, b->tree, ents) != b->tree) {
        return RILL_ENTITY_NULL;
    }
    rill_transform t = rill_transform_identity();
    rill_world_set_name(b->w, ents[0], "model");
    rill_world_set_transform(b->w, ents[0], &t);
    for (uint32_t i = 1; i + 1 < b->tree; i += 2) {
        t.translation[0] = (float)(k % 1000u);
        t.translation[2] = (float)i;
        rill_world_set_name(b->w, ents[i], b->names[i & 15u]);
        rill_world_set_transform(b->w, ents[i], &t);
        rill_world_set_parent(b->w, ents[i], ents[0]);
        rill_transform ident = rill_transform_identity();
        rill_world_set_transform(b->w, ents[i + 1], &ident);
        rill_world_set_parent(b->w, ents[i + 1], ents[i]);
        mesh_ref mr = {k, i, 0};
        rill_world_add(b->w, ents[i + 1], b->mesh, &mr);
    }
    if (b->tree % 2u == 0) { /* the one left over: a node without a mesh */
        rill_world_set_transform(b->w, ents[b->tree - 1u], &t);
        rill_world_set_parent(b->w, ents[b->tree - 1u], ents[0]);
    }
    return ents[0];
}

static void note(bench *b, double us, bool spawn) {
    uint32_t at = rill_world_entity_count(b->w);
    if (spawn) {
        if (b->spawns < b->spawns_cap) {
            b->spawn_us[b->spawns++] = us;
        }
        if (us > b->spawn_max) {
            b->spawn_max = us;
            b->spawn_max_at = at;
        }
    } else if (us > b->update_max) {
        b->update_max = us;
        b->update_max_at = at;
    }
}

static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spawns one tree timed; its root goes to *root. */
static bool timed_tree(bench *b, rill_entity *ents, uint32_t k, rill_entity *root) {
    uint64_t t0 = cpu_ns();
    *root = spawn_tree(b, ents, k);
    note(b, (double)(cpu_ns() - t0) * 1e-3, true);
    return *root != RILL_ENTITY_NULL;
}

static void timed_update(bench *b) {
    uint64_t t0 = cpu_ns();
    rill_world_update_transforms(b->w);
    note(b, (double)(cpu_ns() - t0) * 1e-3, false);
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

static void report(bench *b, const char *phase) {
    double sum = 0;
    for (uint32_t i = 0; i < b->spawns; i++) {
        sum += b->spawn_us[i];
    }
    qsort(b->spawn_us, b->spawns, sizeof(double), cmp_double);
    double p99 = b->spawns ? b->spawn_us[(uint32_t)((double)(b->spawns - 1u) * 0.99)] : 0.0;
    printf("{\"bench\":\"world_growth\",\"phase\":\"%s\",\"tree\":%u,\"entities\":%u,"
           "\"spawns\":%u,\"spawn_us_mean\":%.2f,\"spawn_us_p99\":%.2f,\"spawn_us_max\":%.2f,"
           "\"spawn_max_at\":%u,\"update_us_max\":%.2f,\"update_max_at\":%u,\"world_mb\":%.2f}\n",
           phase, b->tree, rill_world_entity_count(b->w), b->spawns,
           b->spawns ? sum / b->spawns : 0.0, p99, b->spawn_max, b->spawn_max_at, b->update_max,
           b->update_max_at, (double)rill_mem_live_bytes(RILL_MEM_WORLD) / (1024.0 * 1024.0));
    fflush(stdout);
    b->spawns = 0;
    b->spawn_max = b->update_max = 0;
    b->spawn_max_at = b->update_max_at = 0;
}

int main(int argc, char **argv) {
    uint32_t max = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1500000u;
    uint32_t tree = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 64u;
    uint32_t per_frame = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 16u;
    uint32_t cycles = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 8u;
    bool raise = argc > 5 ? strtoul(argv[5], NULL, 10) != 0 : true;
    if (max < 1000u || max > 100000000u || tree < 3u || tree > 65536u || per_frame < 1u) {
        fprintf(stderr, "usage: bench_world_growth [max>=1000] [tree 3..65536] [per_frame>=1] "
                        "[cycles] [raise 0|1]\n");
        return 2;
    }
    if (raise) {
        char *volatile big = malloc((size_t)24 << 20);
        if (big) {
            big[0] = 1;
        }
        free(big);
    }
    bench b = {.tree = tree};
    uint32_t trees = max / tree;
    b.spawns_cap = trees;
    b.spawn_us = malloc(sizeof(double) * trees);
    rill_entity *roots = malloc(sizeof(rill_entity) * trees);
    rill_entity *ents = malloc(sizeof(rill_entity) * tree);
    if (!b.spawn_us || !roots || !ents || !setup(&b)) {
        return 1;
    }
    bool ok = true;
    for (uint32_t k = 0; k < trees && ok; k++) {
        ok = timed_tree(&b, ents, k, &roots[k]);
        if ((k + 1u) % per_frame == 0 || k + 1u == trees) {
            timed_update(&b);
        }
    }
    report(&b, "grow");
    /* Streaming: the oldest quarter goes, as many new trees come, round after round. */
    uint32_t quarter = trees / 4u, next = 0;
    for (uint32_t c = 0; c < cycles && ok; c++) {
        for (uint32_t i = 0; i < quarter; i++) {
            rill_world_despawn_recursive(b.w, roots[(next + i) % trees]);
        }
        for (uint32_t i = 0; i < quarter && ok; i++) {
            uint32_t k = (next + i) % trees;
            ok = timed_tree(&b, ents, trees + c * quarter + i, &roots[k]);
            if ((i + 1u) % per_frame == 0 || i + 1u == quarter) {
                timed_update(&b);
            }
        }
        next = (next + quarter) % trees;
    }
    if (cycles) {
        report(&b, "cycle");
    }
    rill_world_destroy(b.w);
    free(b.spawn_us);
    free(roots);
    free(ents);
    return ok ? 0 : 1;
}
