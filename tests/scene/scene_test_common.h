/* scene_test_common.h: shared fixtures of the scene tests: a component with every field type,
 * a "Tick" component whose on_add hook advances a fake clock (so the loader's budget can be
 * measured exactly), and a log sink that keeps every message so tests can look for one. */
#ifndef RILL_SCENE_TEST_COMMON_H
#define RILL_SCENE_TEST_COMMON_H

#include "rill/scene.h"
#include "rill_test.h"

#include <stddef.h>

typedef enum test_hinge {
    TEST_HINGE_LEFT = 0,
    TEST_HINGE_RIGHT = 1,
    TEST_HINGE_TOP = 7
} test_hinge;

typedef struct test_all {
    bool b;
    int32_t i;
    uint32_t u;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
    float v2[2];
    float v3[3];
    float v4[4];
    float q[4];
    float col[4];
    const char *s;
    const char *asset;
    rill_entity ref;
    int32_t hinge;
    float arr[3];
    int32_t iarr[2];
    float unit;    /* clamped to [0, 1] */
    int32_t small; /* clamped to [-5, 5] */
} test_all;

typedef struct test_tick {
    uint32_t n;
} test_tick;

static const rill_enum_item test_hinge_items[] = {
    {"Left", TEST_HINGE_LEFT}, {"Right", TEST_HINGE_RIGHT}, {"Top", TEST_HINGE_TOP}};

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
    static const float f_def = 0.5f;
    static const float v3_def[3] = {1, 2, 3};
    static const char *const s_def = "default";
    const rill_field fields[] = {
        RILL_FIELD(test_all, b, BOOL),
        RILL_FIELD(test_all, i, I32),
        RILL_FIELD(test_all, u, U32),
        RILL_FIELD(test_all, i64, I64),
        RILL_FIELD(test_all, u64, U64),
        RILL_FIELD_WITH(test_all, f, F32, .default_value = &f_def),
        RILL_FIELD(test_all, d, F64),
        RILL_FIELD(test_all, v2, VEC2),
        RILL_FIELD_WITH(test_all, v3, VEC3, .default_value = v3_def),
        RILL_FIELD(test_all, v4, VEC4),
        RILL_FIELD(test_all, q, QUAT),
        RILL_FIELD(test_all, col, COLOR),
        RILL_FIELD_WITH(test_all, s, STRING, .default_value = &s_def),
        RILL_FIELD(test_all, asset, ASSET_PATH),
        RILL_FIELD(test_all, ref, ENTITY),
        RILL_FIELD_WITH(test_all, hinge, ENUM, .enum_items = test_hinge_items, .enum_count = 3),
        {.name = "arr", .type = RILL_FIELD_F32, .offset = offsetof(test_all, arr), .count = 3},
        {.name = "iarr", .type = RILL_FIELD_I32, .offset = offsetof(test_all, iarr), .count = 2},
        RILL_FIELD_WITH(test_all, unit, F32, RILL_FIELD_RANGE(0, 1)),
        RILL_FIELD_WITH(test_all, small, I32, RILL_FIELD_RANGE(-5, 5)),
    };
    rill_type_desc all = {.name = "TestAll",
                          RILL_TYPE_LAYOUT(test_all),
                          .fields = fields,
                          .field_count = (uint32_t)RILL_COUNTOF(fields)};
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
