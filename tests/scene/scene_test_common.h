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
    if (st->clock)
        rill_test_clock_advance(st->clock, st->cost_ns);
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
    if (level == RILL_LOG_WARN)
        lb->warns++;
    if (level == RILL_LOG_ERROR)
        lb->errors++;
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
    if (folder[0])
        assert_int_equal(rill_dir_create_all(folder, &err), RILL_OK);
    assert_int_equal(rill_file_write_all(path, text, strlen(text), &err), RILL_OK);
}

#endif
