/* bench_script.c: the script system's costs, as JSON lines (docs/benchmarks.md, "Scripts"):
 *   transform10k  N entities (default 10,000) each running update(self, dt) that reads its
 *                 Transform translation and writes it back moved: rill_scripts_update per frame
 *                 (median, best, mean of F frames; default 200), the aim being <= 4 ms;
 *   rotate10k     the same with each update turning its Transform rotation by a step (a quat
 *                 read, a product, a write);
 *   arith10k      the same with each update moving its translation by vec3 arithmetic (a read,
 *                 a lerp method call, a product, a sum, a write);
 *   script_free   rill_scripts_update on a world of N entities with no Script, per frame (the
 *                 cost a game without scripts pays; the aim is zero);
 *   reload        a saved script to its new version running: rewrite + rill_scripts_reload_changed
 *                 (what rill run does at each frame's start) + the update that runs it, per reload.
 * Usage: bench_script [entities] [frames]. Writes its scripts under $TMPDIR (or /tmp). */
#include "rill/script.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ns: wall time per frame; cpu: the thread's CPU time per frame (what a loaded box still
 * measures fairly: time spent waiting for a core is not in it). Both are sorted here. */
static void report(const char *name, uint32_t n, uint64_t *ns, uint64_t *cpu, uint32_t frames) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < frames; i++) {
        sum += ns[i];
    }
    qsort(ns, frames, sizeof(uint64_t), cmp_u64);
    qsort(cpu, frames, sizeof(uint64_t), cmp_u64);
    printf("{\"bench\":\"script\",\"case\":\"%s\",\"entities\":%u,\"frames\":%u,"
           "\"ms_median\":%.4f,\"ms_best\":%.4f,\"ms_mean\":%.4f,\"cpu_ms_median\":%.4f,"
           "\"cpu_ms_best\":%.4f}\n",
           name, n, frames, (double)ns[frames / 2] / 1e6, (double)ns[0] / 1e6,
           (double)sum / frames / 1e6, (double)cpu[frames / 2] / 1e6, (double)cpu[0] / 1e6);
    fflush(stdout);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "bench_script: cannot write %s\n", path);
        exit(1);
    }
}

typedef struct bench {
    rill_world *w;
    rill_vfs *vfs;
    rill_scripts *s;
} bench;

static void open_bench(bench *b, const char *dir) {
    rill_error err = {0};
    b->w = rill_world_create(NULL, &err);
    b->vfs = rill_vfs_create(NULL, &err);
    if (!b->w || !b->vfs || rill_vfs_mount_dir(b->vfs, dir, &err) != RILL_OK) {
        fprintf(stderr, "bench_script: %s\n", err.msg);
        exit(1);
    }
    b->s = rill_scripts_create(&(rill_scripts_desc){.world = b->w, .vfs = b->vfs}, &err);
    if (!b->s) {
        fprintf(stderr, "bench_script: %s\n", err.msg);
        exit(1);
    }
}

static void close_bench(bench *b) {
    rill_scripts_destroy(b->s);
    rill_world_destroy(b->w);
    rill_vfs_destroy(b->vfs);
}

static void spawn(bench *b, uint32_t n, const char *script) {
    rill_component sc = rill_script_register(b->w);
    rill_script s = {rill_intern(script), NULL};
    for (uint32_t i = 0; i < n; i++) {
        rill_entity e = rill_world_spawn(b->w);
        rill_transform t = rill_transform_identity();
        t.translation[0] = (float)i;
        rill_world_set_transform(b->w, e, &t);
        if (script) {
            rill_world_add(b->w, e, sc, &s);
        }
    }
}

/* A case's check line: instances running, errors, the Lua heap, and what the first entity's
 * Transform shows (`first_KEY`) against what the steps give (`expected_KEY`). */
static void print_check(bench *b, const char *name, const char *key, float got, double want) {
    rill_scripts_stats st;
    rill_scripts_get_stats(b->s, &st);
    printf("{\"bench\":\"script\",\"case\":\"%s_check\",\"running\":%u,\"errors\":%u,"
           "\"lua_bytes\":%zu,\"first_%s\":%.4f,\"expected_%s\":%.4f}\n",
           name, st.running, st.errors, st.memory_bytes, key, (double)got, key, want);
}

/* The first entity's Transform (every case's entity 0). */
static const rill_transform *first_transform(bench *b) {
    static const rill_transform none = {{-1, -1, -1}, {-1, -1, -1, -1}, {-1, -1, -1}};
    const rill_transform *t =
        rill_world_get(b->w, RILL_ENTITY_MAKE(0, 1), RILL_COMPONENT_TRANSFORM);
    return t ? t : &none;
}

/* Starts the instances (init), then runs and times `frames` updates. */
static void time_updates(bench *b, uint32_t frames, uint64_t *ns, uint64_t *cpu) {
    rill_scripts_update(b->s, 1.0 / 60.0);
    for (uint32_t f = 0; f < frames; f++) {
        uint64_t t0 = rill_time_ns(), c0 = rill_thread_cpu_ns();
        rill_scripts_update(b->s, 1.0 / 60.0);
        ns[f] = rill_time_ns() - t0;
        cpu[f] = rill_thread_cpu_ns() - c0;
    }
}

/* arith10k: each update moves its translation by vec3 arithmetic; the check line compares the
 * first entity's y with the same steps in C. */
static void bench_arith(const char *dir, uint32_t n, uint32_t frames, uint64_t *ns, uint64_t *cpu) {
    char path[600];
    snprintf(path, sizeof(path), "%s/arith.lua", dir);
    write_file(path, "local GOAL, UP = vec3(0, 10, 0), vec3(0, 1, 0)\n"
                     "function update(self, dt)\n"
                     "  local t = self.entity.Transform\n"
                     "  t.translation = t.translation:lerp(GOAL, 0.01) + UP * dt\n"
                     "end\n");
    bench b;
    open_bench(&b, dir);
    spawn(&b, n, "arith.lua");
    time_updates(&b, frames, ns, cpu);
    report("arith10k", n, ns, cpu, frames);
    float y = 0;
    for (uint32_t f = 0; f <= frames; f++) {
        y = (float)(y + (10.0 - y) * 0.01 + 1.0 / 60.0);
    }
    print_check(&b, "arith10k", "y", first_transform(&b)->translation[1], y);
    close_bench(&b);
    unlink(path);
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
    uint32_t frames = argc > 2 ? (uint32_t)atoi(argv[2]) : 200;
    if (n == 0 || frames == 0) {
        return 2;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[512], path[600];
    snprintf(dir, sizeof(dir), "%s/bench_script_%d", tmp, (int)getpid());
    mkdir(dir, 0755);
    snprintf(path, sizeof(path), "%s/mover.lua", dir);
    write_file(path, "function update(self, dt)\n"
                     "  local t = self.entity.Transform\n"
                     "  local p = t.translation\n"
                     "  p.y = p.y + dt\n"
                     "  t.translation = p\n"
                     "end\n");
    uint64_t *ns = malloc(sizeof(uint64_t) * frames), *cpu = malloc(sizeof(uint64_t) * frames);
    if (!ns || !cpu) {
        return 1;
    }

    bench b;
    open_bench(&b, dir);
    spawn(&b, n, "mover.lua");
    time_updates(&b, frames, ns, cpu);
    report("transform10k", n, ns, cpu, frames);
    print_check(&b, "transform10k", "y", first_transform(&b)->translation[1], (frames + 1) / 60.0);
    close_bench(&b);

    /* rotate10k: the same with the rotation, turned a step each frame (a quat read, a quat
     * product, a write). */
    char spin_path[600];
    snprintf(spin_path, sizeof(spin_path), "%s/spin.lua", dir);
    write_file(spin_path, "local STEP = quat.axis_angle(vec3(0, 1, 0), 0.01)\n"
                          "function update(self, dt)\n"
                          "  local t = self.entity.Transform\n"
                          "  t.rotation = t.rotation * STEP\n"
                          "end\n");
    open_bench(&b, dir);
    spawn(&b, n, "spin.lua");
    time_updates(&b, frames, ns, cpu);
    report("rotate10k", n, ns, cpu, frames);
    print_check(&b, "rotate10k", "w", first_transform(&b)->rotation[3],
                cos(0.01 * (frames + 1) / 2));
    close_bench(&b);
    unlink(spin_path);
    bench_arith(dir, n, frames, ns, cpu);

    open_bench(&b, dir);
    spawn(&b, n, NULL);
    for (uint32_t f = 0; f < frames; f++) {
        uint64_t t1 = rill_time_ns(), c1 = rill_thread_cpu_ns();
        rill_scripts_update(b.s, 1.0 / 60.0);
        rill_scripts_fixed_update(b.s, 1.0 / 60.0);
        ns[f] = rill_time_ns() - t1;
        cpu[f] = rill_thread_cpu_ns() - c1;
    }
    report("script_free", n, ns, cpu, frames);
    close_bench(&b);

    open_bench(&b, dir);
    spawn(&b, 1, "mover.lua");
    rill_scripts_update(b.s, 1.0 / 60.0);
    uint32_t reloads = frames < 50 ? frames : 50;
    for (uint32_t r = 0; r < reloads; r++) {
        char text[256];
        snprintf(text, sizeof(text),
                 "-- version %u\nfunction update(self, dt) local t = self.entity.Transform\n"
                 "  t.translation = vec3(%u, 0, 0) end\n",
                 r, r);
        uint64_t t1 = rill_time_ns(), c1 = rill_thread_cpu_ns();
        write_file(path, text);
        struct timespec ts[2] = {{0, UTIME_NOW}, {(time_t)(r + 1000), 0}}; /* a new mtime */
        utimensat(AT_FDCWD, path, ts, 0);
        uint32_t done = rill_scripts_reload_changed(b.s);
        rill_scripts_update(b.s, 1.0 / 60.0);
        ns[r] = rill_time_ns() - t1;
        cpu[r] = rill_thread_cpu_ns() - c1;
        const rill_transform *t =
            rill_world_get(b.w, RILL_ENTITY_MAKE(0, 1), RILL_COMPONENT_TRANSFORM);
        if (done != 1 || !t || t->translation[0] != (float)r) {
            fprintf(stderr, "bench_script: reload %u did not take\n", r);
            return 1;
        }
    }
    report("reload", 1, ns, cpu, reloads);
    close_bench(&b);
    unlink(path);
    rmdir(dir);
    free(ns);
    free(cpu);
    return 0;
}
