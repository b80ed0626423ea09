/* bench_base.c: micro-benchmarks of the base layer's hot paths: the u64 map, interning and the
 * job system (per-job overhead and completion round trips). Prints one JSON line per figure. */
#include "rill/base.h"

#include <stdatomic.h>
#include <stdio.h>

static uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

static void report(const char *name, uint64_t ns, uint64_t ops) {
    printf("{\"bench\":\"%s\",\"ops\":%llu,\"ns_total\":%llu,\"ns_per_op\":%.2f}\n", name,
           (unsigned long long)ops, (unsigned long long)ns, (double)ns / (double)ops);
}

static void bench_map(void) {
    const uint64_t n = 1000000;
    rill_map m = {0};
    uint64_t t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        rill_map_set(&m, mix(i), i);
    }
    report("map_set_grow", rill_time_ns() - t0, n);
    uint64_t sum = 0, v = 0;
    t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        if (rill_map_get(&m, mix(i), &v)) {
            sum += v;
        }
    }
    report("map_get_hit", rill_time_ns() - t0, n);
    t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        sum += rill_map_get(&m, mix(i + n), &v);
    }
    report("map_get_miss", rill_time_ns() - t0, n);
    t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        rill_map_remove(&m, mix(i));
    }
    report("map_remove", rill_time_ns() - t0, n);
    rill_map_free(&m);
    if (sum == 42) {
        printf("#\n"); /* keeps the loops from being optimized away */
    }
}

static void bench_intern(void) {
    const uint64_t n = 200000;
    char buf[32];
    uint64_t t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        int len = snprintf(buf, sizeof(buf), "assets/mesh_%llu.glb", (unsigned long long)i);
        rill_intern_n(buf, (size_t)len);
    }
    report("intern_new", rill_time_ns() - t0, n);
    t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        int len = snprintf(buf, sizeof(buf), "assets/mesh_%llu.glb", (unsigned long long)i);
        rill_intern_n(buf, (size_t)len);
    }
    report("intern_existing", rill_time_ns() - t0, n);
    rill_intern_shutdown();
}

static void nop_job(void *arg) {
    atomic_fetch_add((_Atomic uint64_t *)arg, 1);
}

static void nop_completion(void *arg) {
    (*(uint64_t *)arg)++;
}

typedef struct roundtrip {
    rill_jobs *jobs;
    uint64_t done;
} roundtrip;

static void post_back(void *arg) {
    roundtrip *rt = arg;
    rill_jobs_post_main(rt->jobs, nop_completion, &rt->done);
}

static void bench_jobs(uint32_t workers) {
    char name[64];
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = workers}, NULL);
    const uint64_t n = 200000;
    _Atomic uint64_t hits = 0;
    rill_counter c = {0};
    uint64_t t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        rill_jobs_run(jobs, nop_job, (void *)&hits, &c);
    }
    rill_jobs_wait(jobs, &c);
    snprintf(name, sizeof(name), "jobs_run_wait_w%u", rill_jobs_worker_count(jobs));
    report(name, rill_time_ns() - t0, n);
    /* Job -> completion -> drain round trips, in batches of 1000 like a frame would see. */
    roundtrip rt = {jobs, 0};
    t0 = rill_time_ns();
    for (uint64_t b = 0; b < n / 1000; ++b) {
        for (int i = 0; i < 1000; ++i) {
            rill_jobs_run(jobs, post_back, &rt, &c);
        }
        rill_jobs_wait(jobs, &c);
        rill_jobs_drain(jobs, 0);
    }
    snprintf(name, sizeof(name), "jobs_roundtrip_w%u", rill_jobs_worker_count(jobs));
    report(name, rill_time_ns() - t0, n);
    rill_jobs_destroy(jobs);
    rill_jobs *det = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    t0 = rill_time_ns();
    for (uint64_t i = 0; i < n; ++i) {
        rill_jobs_run(det, nop_job, (void *)&hits, &c);
    }
    rill_jobs_wait(det, &c);
    report("jobs_deterministic", rill_time_ns() - t0, n);
    rill_jobs_destroy(det);
}

int main(void) {
    bench_map();
    bench_intern();
    bench_jobs(1);
    bench_jobs(0);
    return 0;
}
