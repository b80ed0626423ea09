/* scene_test_common.h: shared fixtures of the scene tests: "TestAll", a component with every
 * field type (every_field.h), a "Tick" component whose on_add hook advances a fake clock (so the
 * loader's budget can be measured exactly), and a log sink that keeps every message so tests can
 * look for one. */
#ifndef RILL_SCENE_TEST_COMMON_H
#define RILL_SCENE_TEST_COMMON_H

#include "every_field.h"
#include "rill/scene.h"
#include "rill_test.h"

#include <stddef.h>

typedef struct test_tick {
    uint32_t n;
} test_tick;

/* The fake clock a cost hook advances (Tick's add hook, Tock's remove hook), by how much per call,
 * and how many calls it had. */
typedef struct test_tick_state {
    rill_test_clock *clock;
    uint64_t cost_ns;
    uint32_t calls;
} test_tick_state;

static inline void test_cost_hook(rill_world *w, rill_entity e, void *data, void *user) {
    (void)w;
    (void)e;
    (void)data;
    test_tick_state *st = user;
    st->calls++;
    if (st->clock) {
        rill_test_clock_advance(st->clock, st->cost_ns);
    }
}

typedef struct test_ids {
    rill_component all, tick;
} test_ids;

static inline test_ids test_register(rill_world *w, test_tick_state *tick) {
    rill_type_desc all = every_field_type("TestAll");
    const rill_field tick_fields[] = {RILL_FIELD(test_tick, n, U32)};
    rill_type_desc tk = {.name = "Tick",
                         RILL_TYPE_LAYOUT(test_tick),
                         .fields = tick_fields,
                         .field_count = 1,
                         .on_add = tick ? test_cost_hook : NULL,
                         .hook_user = tick};
    test_ids ids = {0};
    ids.all = rill_world_register_component(w, &all);
    ids.tick = rill_world_register_component(w, &tk);
    assert_true(ids.all.id != 0 && ids.tick.id != 0);
    return ids;
}

/* The core of the scene-loading fixtures (test_scene_load.c, tests/stream): a world with TestAll
 * and Tick, a VFS over a fresh temp folder and a scene loader on a fake clock that each applied
 * Tick advances by cost_ns (so a load of n entities costs n * cost_ns against budget_ns a
 * frame), its loaded/failed events with a reader each, and `workers` job threads (0: none, the
 * loader parses inside its update). Initialized in place (the loader keeps &clock). */
typedef struct test_scene_env {
    rill_world *world;
    rill_vfs *vfs;
    rill_jobs *jobs;
    rill_scene_loader *loader;
    rill_test_clock clock;
    test_tick_state tick;
    test_ids ids;
    rill_event ev_loaded, ev_failed;
    rill_event_reader rd_loaded, rd_failed;
    char dir[512];
} test_scene_env;

static inline void test_scene_env_init(test_scene_env *fx, const char *tmp_name, uint32_t workers,
                                       uint64_t budget_ns, uint64_t cost_ns) {
    memset(fx, 0, sizeof *fx);
    fx->world = rill_world_create(NULL, NULL);
    fx->tick.clock = &fx->clock;
    fx->tick.cost_ns = cost_ns;
    fx->clock.now = 1000000000ull;
    fx->ids = test_register(fx->world, &fx->tick);
    rill_test_tmpdir(fx->dir, sizeof fx->dir, tmp_name);
    fx->vfs = rill_vfs_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_vfs_mount_dir(fx->vfs, fx->dir, &err), RILL_OK);
    if (workers) {
        rill_jobs_desc jd = {.worker_count = workers};
        fx->jobs = rill_jobs_create(&jd, NULL);
    }
    rill_scene_loader_desc d = {.world = fx->world,
                                .vfs = fx->vfs,
                                .jobs = fx->jobs,
                                .clock = rill_test_clock_make(&fx->clock),
                                .budget_ns = budget_ns};
    fx->loader = rill_scene_loader_create(&d, NULL);
    assert_non_null(fx->loader);
    rill_scene_loader_events(fx->loader, &fx->ev_loaded, &fx->ev_failed);
    assert_true(fx->ev_loaded.id && fx->ev_failed.id);
    fx->rd_loaded.event = fx->ev_loaded;
    fx->rd_failed.event = fx->ev_failed;
}

static inline void test_scene_env_done(test_scene_env *fx) {
    rill_scene_loader_destroy(fx->loader);
    rill_jobs_destroy(fx->jobs);
    rill_vfs_destroy(fx->vfs);
    rill_world_destroy(fx->world);
    rill_test_tmpdir_remove(fx->dir);
}

typedef struct test_tock {
    uint32_t n;
} test_tock;

/* Registers "Tock", whose remove hook advances st->clock by st->cost_ns: what despawning costs
 * (st must outlive the world). */
static inline rill_component test_register_tock(rill_world *w, test_tick_state *st) {
    static const rill_field tf[] = {RILL_FIELD(test_tock, n, U32)};
    rill_type_desc td = {.name = "Tock",
                         RILL_TYPE_LAYOUT(test_tock),
                         .fields = tf,
                         .field_count = 1,
                         .on_remove = test_cost_hook,
                         .hook_user = st};
    rill_component c = rill_world_register_component(w, &td);
    assert_true(c.id != 0);
    return c;
}

/* >>log: keeps every message (joined by newlines) */

typedef struct test_logbuf {
    rill_strbuf text;
    int warns, errors;
} test_logbuf;

static inline void test_log_sink(rill_log_level level, const char *module, const char *msg,
                                 void *user) {
    test_logbuf *lb = user;
    if (level == RILL_LOG_WARN) {
        lb->warns++;
    }
    if (level == RILL_LOG_ERROR) {
        lb->errors++;
    }
    rill_strbuf_printf(&lb->text, "%s %s: %s\n", rill_log_level_name(level), module, msg);
}

static inline void test_log_begin(test_logbuf *lb) {
    memset(lb, 0, sizeof *lb);
    rill_log_set_sink(test_log_sink, lb);
}

static inline void test_log_end(test_logbuf *lb) {
    rill_log_set_sink(NULL, NULL);
    rill_strbuf_free(&lb->text);
}

static inline bool test_log_has(const test_logbuf *lb, const char *needle) {
    return lb->text.data && strstr(lb->text.data, needle) != NULL;
}

/* Writes text to dir/rel (creating folders). */
static inline void test_write_file(const char *dir, const char *rel, const char *text) {
    char path[1024];
    rill_test_path(path, sizeof path, dir, rel);
    char folder[1024];
    assert_true(rill_path_dirname(folder, sizeof folder, path));
    rill_error err = {0};
    if (folder[0]) {
        assert_int_equal(rill_dir_create_all(folder, &err), RILL_OK);
    }
    assert_int_equal(rill_file_write_all(path, text, strlen(text), &err), RILL_OK);
}

#endif
