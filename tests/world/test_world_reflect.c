/* test_world_reflect.c: the reflection registry and its generic helpers: defaults, clamping, enum
 * names, fixed arrays, equality, numeric access, text format/parse round trips (including every
 * truncated input) and dumps. */
/* cmocka needs these before it, in this order. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "every_field.h"
#include "rill_test.h"

static void test_field_types(void **state) {
    (void)state;
    for (int t = 1; t < RILL_FIELD_TYPE_NUM; t++) {
        assert_int_equal(rill_field_type_from_name(rill_field_type_name((rill_field_type)t)), t);
        assert_true(rill_field_type_size((rill_field_type)t) > 0);
    }
    assert_int_equal(rill_field_type_from_name("banana"), RILL_FIELD_NONE);
    assert_int_equal(rill_field_type_size(RILL_FIELD_VEC3), 12);
    assert_int_equal(rill_field_type_size(RILL_FIELD_TYPE_NUM), 0);
    assert_string_equal(rill_field_type_name(RILL_FIELD_ASSET_PATH), "asset_path");
}

static void test_defaults(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_type_desc d = every_field_type("Everything");
    rill_component c = rill_world_register_component(w, &d);
    assert_int_not_equal(c.id, 0);
    const rill_type_desc *reg = rill_world_component_type(w, c);
    assert_ptr_not_equal(reg, &d);
    assert_int_equal(reg->field_count, d.field_count);

    every_field e;
    memset(&e, 0xAB, sizeof e);
    rill_type_apply_defaults(&d, &e);
    assert_false(e.flag);
    assert_int_equal(e.i32, 0);
    assert_float_equal(e.f32, 0.5f, 0);
    assert_float_equal(e.v3[2], 3.0f, 0);
    assert_float_equal(e.weights[1], 0.5f, 0);
    assert_int_equal(e.mode, EVERY_MODE_HIGH);
    assert_ptr_equal(e.str, rill_intern("default")); /* interned */
    assert_null(e.path);
    assert_null(e.tags[0]);

    /* Adding with NULL init gives the same object. */
    rill_entity ent = rill_world_spawn(w);
    every_field *stored = rill_world_add(w, ent, c, NULL);
    assert_true(rill_type_equal(reg, stored, &e));
    assert_ptr_equal(stored->str, e.str);

    /* A prototype object is applied first, field defaults on top. */
    every_field proto = {0};
    proto.u32 = 99;
    proto.f32 = 0.9f; /* overridden by the field default */
    proto.path = "textures/a.rmip";
    rill_type_desc d2 = d;
    d2.name = "Everything2";
    d2.defaults = &proto;
    rill_type_apply_defaults(&d2, &e);
    assert_int_equal(e.u32, 99);
    assert_float_equal(e.f32, 0.5f, 0);
    assert_ptr_equal(e.path, rill_intern("textures/a.rmip"));
    rill_component c2 = rill_world_register_component(w, &d2);
    every_field *s2 = rill_world_add(w, ent, c2, NULL);
    assert_int_equal(s2->u32, 99);
    assert_ptr_equal(s2->path, rill_intern("textures/a.rmip"));
    rill_world_destroy(w);
}

static void test_registration_validation(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_field bad_offset[] = {{.name = "x", .type = RILL_FIELD_VEC3, .offset = 8, .count = 1}};
    rill_type_desc d = {.name = "Bad", .size = 16, .fields = bad_offset, .field_count = 1};
    assert_int_equal(rill_world_register_component(w, &d).id, 0);
    rill_field misaligned[] = {{.name = "x", .type = RILL_FIELD_F32, .offset = 2}};
    d.fields = misaligned;
    assert_int_equal(rill_world_register_component(w, &d).id, 0);
    rill_field dup[] = {{.name = "x", .type = RILL_FIELD_F32, .offset = 0},
                        {.name = "x", .type = RILL_FIELD_F32, .offset = 4}};
    d.fields = dup;
    d.field_count = 2;
    assert_int_equal(rill_world_register_component(w, &d).id, 0);
    rill_field bad_type[] = {{.name = "x", .type = (rill_field_type)99, .offset = 0}};
    d.fields = bad_type;
    d.field_count = 1;
    assert_int_equal(rill_world_register_component(w, &d).id, 0);
    rill_type_desc no_size = {.name = "NoSize"};
    assert_int_equal(rill_world_register_component(w, &no_size).id, 0);
    rill_type_desc bad_align = {.name = "BadAlign", .size = 8, .align = 3};
    assert_int_equal(rill_world_register_component(w, &bad_align).id, 0);
    assert_int_equal(rill_world_register_component(w, NULL).id, 0);
    /* The desc may be a temporary: registration copies names, fields and defaults. */
    char name[16] = "Temp";
    float def = 3.0f;
    rill_field tmp[] = {{.name = "v", .type = RILL_FIELD_F32, .offset = 0, .default_value = &def}};
    rill_type_desc td = {.name = name, .size = 4, .fields = tmp, .field_count = 1};
    rill_component c = rill_world_register_component(w, &td);
    assert_int_not_equal(c.id, 0);
    strcpy(name, "Changed");
    def = 9.0f;
    tmp[0].name = "w";
    assert_int_equal(rill_world_find_component(w, "Temp").id, c.id);
    const rill_type_desc *reg = rill_world_component_type(w, c);
    assert_non_null(rill_type_find_field(reg, "v"));
    float out = 0;
    rill_type_apply_defaults(reg, &out);
    assert_float_equal(out, 3.0f, 0);
    rill_world_destroy(w);
}

static void test_clamp(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("Everything");
    every_field e;
    rill_type_apply_defaults(&d, &e);
    assert_int_equal(rill_type_clamp(&d, &e), 0);
    e.small = 50;
    e.unit = NAN;
    e.v4[0] = 1000;
    e.v4[1] = -1000; /* no min: stays */
    e.weights[2] = -1;
    assert_int_equal(rill_type_clamp(&d, &e), 4);
    assert_int_equal(e.small, 5);
    assert_float_equal(e.unit, 0.0f, 0);
    assert_float_equal(e.v4[0], 100.0f, 0);
    assert_float_equal(e.v4[1], -1000.0f, 0);
    assert_float_equal(e.weights[2], 0.0f, 0);
    e.small = -11;
    e.unit = 1.5f;
    assert_int_equal(rill_type_clamp(&d, &e), 2);
    assert_int_equal(e.small, -5);
    assert_float_equal(e.unit, 1.0f, 0);
    assert_int_equal(rill_type_clamp(&d, &e), 0);
    /* The built-in camera clamps its viewport to [0, 1]. */
    rill_world *w = rill_world_create(NULL, NULL);
    const rill_type_desc *cam_t = rill_world_component_type(w, RILL_COMPONENT_CAMERA);
    rill_camera cam;
    rill_type_apply_defaults(cam_t, &cam);
    cam.viewport[2] = 2;
    cam.near_plane = -1;
    assert_int_equal(rill_type_clamp(cam_t, &cam), 2);
    assert_float_equal(cam.viewport[2], 1.0f, 0);
    assert_true(cam.near_plane > 0);
    rill_world_destroy(w);
}

static void test_enums(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("Everything");
    const rill_field *f = rill_type_find_field(&d, "mode");
    assert_non_null(f);
    assert_string_equal(rill_field_enum_name(f, EVERY_MODE_LOW), "low");
    assert_null(rill_field_enum_name(f, 5));
    int32_t v = -1;
    assert_true(rill_field_enum_value(f, "high", &v));
    assert_int_equal(v, EVERY_MODE_HIGH);
    assert_false(rill_field_enum_value(f, "HIGH", &v));
    every_field e;
    rill_type_apply_defaults(&d, &e);
    rill_strbuf sb = {0};
    assert_true(rill_field_format(f, &e, &sb));
    assert_string_equal(sb.data, "high");
    e.mode = 5; /* no name: written as a number */
    sb.len = 0;
    assert_true(rill_field_format(f, &e, &sb));
    assert_string_equal(sb.data, "5");
    size_t used = 0;
    assert_int_equal(rill_field_parse(f, &e, "low", 3, &used, NULL), RILL_OK);
    assert_int_equal(e.mode, EVERY_MODE_LOW);
    assert_int_equal(used, 3);
    assert_int_equal(rill_field_parse(f, &e, " 7 ", 3, &used, NULL), RILL_OK);
    assert_int_equal(e.mode, EVERY_MODE_HIGH);
    rill_error err = {0};
    assert_int_equal(rill_field_parse(f, &e, "medium", 6, NULL, &err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "offset 0"));
    assert_int_equal(e.mode, EVERY_MODE_HIGH); /* untouched on failure */
    /* The camera's enums use their names. */
    rill_world *w = rill_world_create(NULL, NULL);
    const rill_type_desc *cam_t = rill_world_component_type(w, RILL_COMPONENT_CAMERA);
    const rill_field *role = rill_type_find_field(cam_t, "role");
    assert_string_equal(rill_field_enum_name(role, RILL_CAMERA_ROLE_EDITOR), "editor");
    const rill_field *proj = rill_type_find_field(cam_t, "projection");
    assert_true(rill_field_enum_value(proj, "orthographic", &v));
    assert_int_equal(v, RILL_PROJECTION_ORTHOGRAPHIC);
    assert_non_null(rill_type_find_field(cam_t, "near"));
    assert_non_null(rill_type_find_field(cam_t, "far"));
    rill_world_destroy(w);
    rill_strbuf_free(&sb);
}

static void test_arrays_and_numeric_access(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("Everything");
    every_field e;
    rill_type_apply_defaults(&d, &e);
    const rill_field *wf = rill_type_find_field(&d, "weights");
    assert_int_equal(rill_field_count(wf), 3);
    rill_strbuf sb = {0};
    assert_true(rill_field_format(wf, &e, &sb));
    assert_string_equal(sb.data, "[0.25, 0.5, 0.25]");
    assert_int_equal(rill_field_parse(wf, &e, "[1, 2, 3]", 9, NULL, NULL), RILL_OK);
    assert_float_equal(e.weights[2], 3.0f, 0);
    /* Fewer values than the array holds: the rest keep theirs (as in .rsn files). */
    assert_int_equal(rill_field_parse(wf, &e, "[4, 5,]", 7, NULL, NULL), RILL_OK);
    assert_float_equal(e.weights[1], 5.0f, 0);
    assert_float_equal(e.weights[2], 3.0f, 0);
    assert_int_equal(rill_field_parse(wf, &e, "[1, 2, 3, 4]", 12, NULL, NULL), RILL_ERR_PARSE);
    assert_int_equal(rill_field_parse(wf, &e, "1", 1, NULL, NULL), RILL_ERR_PARSE);
    assert_float_equal(e.weights[0], 4.0f, 0);

    const rill_field *pf = rill_type_find_field(&d, "points");
    e.points[1][2] = 7;
    sb.len = 0;
    assert_true(rill_field_format(pf, &e, &sb));
    assert_string_equal(sb.data, "[(0, 0, 0), (0, 0, 7)]");
    assert_int_equal(rill_field_parse(pf, &e, "[(1,2,3),(4,5,6)]", 17, NULL, NULL), RILL_OK);
    assert_float_equal(e.points[1][0], 4.0f, 0);

    /* Flat lane indices: element * lanes + lane. */
    double v = 0;
    assert_true(rill_field_get_f64(pf, &e, 5, &v));
    assert_float_equal(v, 6.0, 0);
    assert_false(rill_field_get_f64(pf, &e, 6, &v));
    assert_true(rill_field_set_f64(pf, &e, 3, -2.5));
    assert_float_equal(e.points[1][0], -2.5f, 0);
    const rill_field *i32f = rill_type_find_field(&d, "i32");
    assert_true(rill_field_set_f64(i32f, &e, 0, 1e12)); /* saturates, no UB */
    assert_int_equal(e.i32, INT32_MAX);
    assert_true(rill_field_set_f64(rill_type_find_field(&d, "u32"), &e, 0, -5));
    assert_int_equal(e.u32, 0);
    assert_true(rill_field_set_f64(rill_type_find_field(&d, "flag"), &e, 0, 1));
    assert_true(e.flag);
    assert_false(rill_field_get_f64(rill_type_find_field(&d, "str"), &e, 0, &v));
    assert_false(rill_field_get_f64(rill_type_find_field(&d, "ent"), &e, 0, &v));
    rill_strbuf_free(&sb);
}

static void test_equal_and_copy(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("Everything");
    every_field a, b;
    rill_type_apply_defaults(&d, &a);
    rill_type_apply_defaults(&d, &b);
    assert_true(rill_type_equal(&d, &a, &b));
    char buf[8] = "default";
    b.str = buf; /* same content, another pointer */
    assert_true(rill_type_equal(&d, &a, &b));
    b.f32 = -0.0f;
    a.f32 = 0.0f;
    assert_true(rill_type_equal(&d, &a, &b));
    a.tags[1] = "";
    assert_true(rill_type_equal(&d, &a, &b)); /* NULL reads as "" */
    b.u64 = (1ull << 60) + 1;
    a.u64 = (1ull << 60);
    assert_false(rill_type_equal(&d, &a, &b));
    rill_type_copy(&d, &a, &b);
    assert_true(rill_type_equal(&d, &a, &b));
    a.points[0][0] = 1;
    assert_false(rill_type_equal(&d, &a, &b));
}

static void test_format_parse_round_trip(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("Everything");
    every_field a;
    rill_type_apply_defaults(&d, &a);
    a.flag = true;
    a.i32 = -7;
    a.u32 = 4000000000u;
    a.i64 = INT64_MIN;
    a.u64 = UINT64_MAX;
    a.f32 = 0.1f;
    a.f64 = 1.0 / 3.0;
    a.v2[0] = 1e30f;
    a.v2[1] = -1e-30f;
    a.v4[3] = 0.3f;
    a.q[3] = 1;
    a.color[0] = 0.2f;
    a.str = rill_intern("quote \" back\\slash\nnew\ttab \x01 end");
    a.path = rill_intern("models/chair.glb#mesh0");
    a.ent = RILL_ENTITY_MAKE(5, 9);
    a.mode = EVERY_MODE_LOW;
    a.modes[1] = EVERY_MODE_HIGH;
    a.tags[0] = rill_intern("a");
    every_field b;
    memset(&b, 0, sizeof b);
    rill_strbuf sb = {0};
    for (uint32_t i = 0; i < d.field_count; i++) {
        const rill_field *f = &d.fields[i];
        sb.len = 0;
        assert_true(rill_field_format(f, &a, &sb));
        size_t used = 0;
        rill_error err = {0};
        rill_result r = rill_field_parse(f, &b, sb.data, sb.len, &used, &err);
        if (r != RILL_OK) {
            print_error("field %s: '%s': %s\n", f->name, sb.data, err.msg);
        }
        assert_int_equal(r, RILL_OK);
        assert_int_equal(used, sb.len);
    }
    assert_true(rill_type_equal(&d, &a, &b));
    assert_ptr_equal(a.str, b.str); /* parse interns */
    /* Short float forms keep diffs readable. */
    sb.len = 0;
    rill_field_format(rill_type_find_field(&d, "f32"), &a, &sb);
    assert_string_equal(sb.data, "0.1");
    rill_strbuf_free(&sb);
}

/* Every prefix of every valid text must parse or fail cleanly (ASan checks the reads), and
 * garbage must fail with an offset. */
static void test_parse_truncated_and_garbage(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("Everything");
    every_field a;
    rill_type_apply_defaults(&d, &a);
    a.str = rill_intern("esc \"x\" \x7f");
    rill_strbuf sb = {0};
    for (uint32_t i = 0; i < d.field_count; i++) {
        const rill_field *f = &d.fields[i];
        sb.len = 0;
        rill_field_format(f, &a, &sb);
        for (size_t n = 0; n < sb.len; n++) {
            /* A heap copy of exactly n bytes, so a read past the end is caught. */
            char *copy = rill_malloc(n + 1);
            memcpy(copy, sb.data, n);
            every_field b = a;
            size_t used = 0;
            rill_result r = rill_field_parse(f, &b, n ? copy : NULL, n, &used, NULL);
            if (r == RILL_OK) {
                assert_true(used <= n);
            }
            rill_free(copy);
        }
    }
    static const struct {
        const char *field;
        const char *text;
    } bad[] = {
        {"flag", "yes"},
        {"i32", "1.5"},
        {"i32", "99999999999"},
        {"u32", "-1"},
        {"u64", "18446744073709551616"},
        {"f32", "abc"},
        {"f32", ""},
        {"v3", "(1, 2)"},
        {"v3", "(1, 2, 3, 4)"},
        {"v3", "1, 2, 3"},
        {"str", "\"open"},
        {"str", "\"\\q\""},
        {"str", "\"\\x0\""},
        {"str", "noquote"},
        {"ent", "-3"},
        {"mode", "9x"},
        {"tags", "\"a\""},
        {"str", "\"a\nb\""},
        {"f32", "1e999"},
        {"v3", "(1, 2, 3"},
        {"weights", "[1 2]"},
        {"i64", "--5"},
        {"i32", "0x"},
    };
    for (size_t i = 0; i < RILL_COUNTOF(bad); i++) {
        const rill_field *f = rill_type_find_field(&d, bad[i].field);
        every_field b = a;
        rill_error err = {0};
        rill_result r = rill_field_parse(f, &b, bad[i].text, strlen(bad[i].text), NULL, &err);
        if (r != RILL_ERR_PARSE) {
            print_error("'%s' for %s parsed\n", bad[i].text, bad[i].field);
        }
        assert_int_equal(r, RILL_ERR_PARSE);
        assert_non_null(strstr(err.msg, "offset "));
        assert_true(rill_type_equal(&d, &a, &b));
    }
    /* Valid edge cases. */
    const rill_field *i32f = rill_type_find_field(&d, "i32");
    assert_int_equal(rill_field_parse(i32f, &a, "-2147483648", 11, NULL, NULL), RILL_OK);
    assert_int_equal(a.i32, INT32_MIN);
    assert_int_equal(rill_field_parse(i32f, &a, "0x10", 4, NULL, NULL), RILL_OK);
    assert_int_equal(a.i32, 16);
    const rill_field *f32f = rill_type_find_field(&d, "f32");
    assert_int_equal(rill_field_parse(f32f, &a, "inf", 3, NULL, NULL), RILL_OK);
    assert_true(isinf(a.f32));
    size_t used = 0;
    assert_int_equal(rill_field_parse(f32f, &a, "  2.5 }", 7, &used, NULL), RILL_OK);
    assert_int_equal(used, 5);
    rill_strbuf_free(&sb);
}

/* A rotation written as Euler angles in degrees: euler(pitch X, yaw Y, roll Z), yaw applied
 * last; the same quaternion as the tuple form. */
static void test_euler_rotation(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("EveryEuler");
    const rill_field *qf = rill_type_find_field(&d, "q");
    every_field a;
    memset(&a, 0, sizeof a);
    const char *yaw = "euler(0, 90, 0)";
    assert_int_equal(rill_field_parse(qf, &a, yaw, strlen(yaw), NULL, NULL), RILL_OK);
    assert_float_equal(a.q[0], 0.0f, 1e-6f);
    assert_float_equal(a.q[1], 0.70710678f, 1e-6f);
    assert_float_equal(a.q[2], 0.0f, 1e-6f);
    assert_float_equal(a.q[3], 0.70710678f, 1e-6f);
    /* The example project's camera: 25 degrees down. */
    const char *pitch = "euler( -25 , 0, 0, )";
    assert_int_equal(rill_field_parse(qf, &a, pitch, strlen(pitch), NULL, NULL), RILL_OK);
    assert_float_equal(a.q[0], -0.2164396f, 1e-6f);
    assert_float_equal(a.q[3], 0.9762960f, 1e-6f);
    /* Yaw after pitch after roll: q = yaw * pitch * roll. */
    const char *all = "euler(90, 90, 90)";
    assert_int_equal(rill_field_parse(qf, &a, all, strlen(all), NULL, NULL), RILL_OK);
    assert_float_equal(a.q[0], 0.70710678f, 1e-6f);
    assert_float_equal(a.q[1], 0.0f, 1e-6f);
    assert_float_equal(a.q[2], 0.0f, 1e-6f);
    assert_float_equal(a.q[3], 0.70710678f, 1e-6f);
    rill_error err = {0};
    const char *bad[] = {"euler(1, 2)", "euler(1, 2, 3, 4)", "euler 1, 2, 3", "euler(1, inf, 0)",
                         "euler"};
    for (size_t i = 0; i < RILL_COUNTOF(bad); i++) {
        float before[4] = {a.q[0], a.q[1], a.q[2], a.q[3]};
        assert_int_equal(rill_field_parse(qf, &a, bad[i], strlen(bad[i]), NULL, &err),
                         RILL_ERR_PARSE);
        assert_memory_equal(before, a.q, sizeof before);
    }
}

/* What the hooks of rill_field_parse_ex saw, in order. */
typedef struct hook_log {
    char text[512];
    size_t len;
} hook_log;

static void log_line(hook_log *l, const char *fmt, ...) RILL_PRINTF(2, 3);
static void log_line(hook_log *l, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
    va_end(ap);
    l->len += n > 0 ? (size_t)n : 0;
    assert_true(l->len < sizeof l->text);
}

static void hook_warn(void *user, size_t pos, const char *msg) {
    log_line(user, "warn@%zu %s;", pos, msg);
}

/* Ids 1..9 exist (entity index = id); others are missing and read as none. */
static bool hook_ref(void *user, uint32_t id, uint32_t elem, size_t pos, rill_entity *out) {
    log_line(user, "ref@%zu &%u[%u];", pos, id, elem);
    *out = id < 10 ? RILL_ENTITY_MAKE(id, 1) : RILL_ENTITY_NULL;
    return true;
}

static bool hook_ref_format(void *user, rill_entity e, uint64_t *out_id) {
    (void)user;
    *out_id = RILL_ENTITY_INDEX(e);
    return RILL_ENTITY_INDEX(e) < 10;
}

static const char *hook_asset(void *user, const char *path, size_t pos) {
    log_line(user, "asset@%zu %s;", pos, path);
    return rill_intern("normalized/path.glb");
}

static rill_result parse_ex(const rill_type_desc *d, const char *field, every_field *e,
                            const char *text, hook_log *l, size_t *pos, rill_error *err) {
    const rill_field_text opt = {.flags = RILL_FIELD_TEXT_CLAMP,
                                 .user = l,
                                 .warn = hook_warn,
                                 .entity_ref = hook_ref,
                                 .asset_path = hook_asset};
    l->len = 0;
    l->text[0] = '\0';
    return rill_field_parse_ex(rill_type_find_field(d, field), e, text, strlen(text), &opt, pos,
                               err);
}

/* The scene reader's use of the parser: clamping with warnings at the value's offset, entity
 * references and asset paths through hooks, and errors that say where they are. */
static void test_parse_ex_hooks(void **state) {
    (void)state;
    rill_type_desc d = every_field_type("Everything");
    every_field e;
    rill_type_apply_defaults(&d, &e);
    hook_log l;
    size_t pos = 0;
    rill_error err = {0};

    /* Out of range: clamped to the field's bounds (or the type's range), one warning each. */
    assert_int_equal(parse_ex(&d, "small", &e, " 99", &l, &pos, &err), RILL_OK);
    assert_int_equal(e.small, 5);
    assert_string_equal(l.text, "warn@1 value 99 out of range, clamped to 5;");
    assert_int_equal(parse_ex(&d, "u32", &e, "-3", &l, &pos, &err), RILL_OK);
    assert_int_equal(e.u32, 0);
    assert_int_equal(parse_ex(&d, "i64", &e, "99999999999999999999", &l, &pos, &err), RILL_OK);
    assert_true(e.i64 == INT64_MAX);
    assert_int_equal(parse_ex(&d, "unit", &e, "nan", &l, &pos, &err), RILL_OK);
    assert_float_equal(e.unit, 0.0f, 0);
    assert_string_equal(l.text, "warn@0 value nan out of range, clamped to 0;");
    assert_int_equal(parse_ex(&d, "v4", &e, "(1, # x\n 200, 3, 4,)", &l, &pos, &err), RILL_OK);
    assert_float_equal(e.v4[1], 100.0f, 0);
    assert_string_equal(l.text, "warn@9 value 200 out of range, clamped to 100;");
    assert_int_equal(pos, 20);
    /* In range: no warning, and plain rill_field_parse refuses what the clamp mode clamps. */
    assert_int_equal(parse_ex(&d, "weights", &e, "[0.5, 1]", &l, &pos, &err), RILL_OK);
    assert_string_equal(l.text, "");
    assert_int_equal(rill_field_parse(rill_type_find_field(&d, "u32"), &e, "-3", 2, NULL, &err),
                     RILL_ERR_PARSE);
    assert_string_equal(err.msg, "offset 0: value -3 out of range");

    /* Entity references: &id through the hook (element index given), none without it. */
    assert_int_equal(parse_ex(&d, "ent", &e, "&7", &l, &pos, &err), RILL_OK);
    assert_true(e.ent == RILL_ENTITY_MAKE(7, 1));
    assert_string_equal(l.text, "ref@0 &7[0];");
    assert_int_equal(parse_ex(&d, "ent", &e, "none", &l, &pos, &err), RILL_OK);
    assert_true(e.ent == RILL_ENTITY_NULL);
    assert_string_equal(l.text, "");
    assert_int_equal(parse_ex(&d, "ent", &e, "&0", &l, &pos, &err), RILL_ERR_PARSE);
    assert_int_equal(parse_ex(&d, "ent", &e, "7", &l, &pos, &err), RILL_ERR_PARSE);
    assert_string_equal(err.msg, "expected &id or none, found a number");
    e.ent = RILL_ENTITY_MAKE(3, 1);
    const rill_field_text fmt = {.flags = RILL_FIELD_TEXT_ASSET_AT, .ref_format = hook_ref_format};
    rill_strbuf sb = {0};
    assert_true(rill_field_format_ex(rill_type_find_field(&d, "ent"), &e, &fmt, &sb));
    assert_string_equal(sb.data, "&3");
    e.ent = RILL_ENTITY_MAKE(12, 1);
    sb.len = 0;
    assert_true(rill_field_format_ex(rill_type_find_field(&d, "ent"), &e, &fmt, &sb));
    assert_string_equal(sb.data, "none");

    /* Asset paths: @"..." or "...", stored as the hook says; written back with the '@'. */
    assert_int_equal(parse_ex(&d, "path", &e, "@ \"a/../b.glb\"", &l, &pos, &err), RILL_OK);
    assert_string_equal(e.path, "normalized/path.glb");
    assert_string_equal(l.text, "asset@0 a/../b.glb;");
    assert_int_equal(parse_ex(&d, "path", &e, "\"\"", &l, &pos, &err), RILL_OK);
    assert_null(e.path); /* "" is an unset path: no hook call */
    e.path = rill_intern("m.glb");
    sb.len = 0;
    assert_true(rill_field_format_ex(rill_type_find_field(&d, "path"), &e, &fmt, &sb));
    assert_string_equal(sb.data, "@\"m.glb\"");

    /* Errors: the message names what was expected and found, pos says where, obj is unchanged. */
    static const struct {
        const char *field, *text, *msg;
        size_t pos;
    } bad[] = {
        {"i32", "\"x\"", "expected an integer, found a string", 0},
        {"v3", "(1, 2)", "expected a tuple of 3 numbers, found a tuple of another size", 0},
        {"v3", "(1, x, 3)", "expected a number, found a name", 4},
        {"mode", "Down", "'Down' is not a value of this enum", 0},
        {"modes", "[low, low, off]", "array has 3 values, the field holds 2", 0},
        {"weights", "[1, 1e999]", "number too large for a 32-bit float (write inf for infinity)",
         4},
        {"f32", "1.2.3", "'1.2.3' is not a number", 0},
        {"flag", "  none", "expected true or false, found 'none'", 2},
        {"str", "\"a\\qb\"", "invalid escape in string", 2},
        {"tags", "\"a\"", "expected an array [...] of 2, found a string", 0},
    };
    every_field before = e;
    for (size_t i = 0; i < RILL_COUNTOF(bad); i++) {
        rill_result r = parse_ex(&d, bad[i].field, &e, bad[i].text, &l, &pos, &err);
        if (r != RILL_ERR_PARSE || strcmp(err.msg, bad[i].msg) != 0 || pos != bad[i].pos) {
            fail_msg("%s '%s': got %d '%s' at %zu", bad[i].field, bad[i].text, (int)r, err.msg,
                     pos);
        }
        assert_true(rill_type_equal(&d, &before, &e));
    }
    rill_strbuf_free(&sb);
}

static void test_dump(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_entity e = rill_world_spawn(w);
    rill_transform *t = rill_world_add(w, e, RILL_COMPONENT_TRANSFORM, NULL);
    t->translation[1] = 1.5f;
    rill_strbuf sb = {0};
    assert_true(rill_type_dump(rill_world_component_type(w, RILL_COMPONENT_TRANSFORM), t, &sb));
    assert_string_equal(
        sb.data, "Transform { translation: (0, 1.5, 0) rotation: (0, 0, 0, 1) scale: (1, 1, 1) }");
    sb.len = 0;
    rill_world_set_name(w, e, "Player \"one\"");
    assert_true(rill_type_dump(rill_world_component_type(w, RILL_COMPONENT_NAME),
                               rill_world_get(w, e, RILL_COMPONENT_NAME), &sb));
    assert_string_equal(sb.data, "Name { value: \"Player \\\"one\\\"\" }");
    sb.len = 0;
    rill_camera *cam = rill_world_add(w, e, RILL_COMPONENT_CAMERA, NULL);
    assert_true(rill_type_dump(rill_world_component_type(w, RILL_COMPONENT_CAMERA), cam, &sb));
    assert_string_equal(
        sb.data, "Camera { active: true is_default: false role: game projection: perspective "
                 "fov_y: 0.8 near: 0.1 far: 1000 ortho_height: 10 viewport: (0, 0, 1, 1) "
                 "clear_color: (0, 0, 0, 1) hdr: true order: 0 passthrough: off target: \"\" "
                 "target_width: 512 target_height: 512 }");
    /* NO_SERIALIZE fields are left out. */
    rill_type_desc d = every_field_type("Everything");
    every_field x;
    rill_type_apply_defaults(&d, &x);
    sb.len = 0;
    assert_true(rill_type_dump(&d, &x, &sb));
    assert_null(strstr(sb.data, "points"));
    assert_non_null(strstr(sb.data, "mode: high"));
    rill_strbuf_free(&sb);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_types),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_registration_validation),
        cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_enums),
        cmocka_unit_test(test_arrays_and_numeric_access),
        cmocka_unit_test(test_equal_and_copy),
        cmocka_unit_test(test_format_parse_round_trip),
        cmocka_unit_test(test_parse_truncated_and_garbage),
        cmocka_unit_test(test_euler_rotation),
        cmocka_unit_test(test_parse_ex_hooks),
        cmocka_unit_test(test_dump),
    };
    return cmocka_run_group_tests(tests, rill_test_setup_quiet, NULL);
}
