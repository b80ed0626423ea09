/* test_toml.c: the project.toml reader (values, tables, errors with their places, hostile and
 * truncated input) and the rill_project settings built on it (defaults, clamping, warnings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/app.h"

static rill_toml *parse_ok(const char *text) {
    rill_toml *doc = NULL;
    rill_error err = {0};
    rill_result r = rill_toml_parse(text, strlen(text), "t.toml", &doc, &err);
    if (r != RILL_OK) {
        fprintf(stderr, "unexpected error: %s\n", err.msg);
    }
    assert_int_equal(r, RILL_OK);
    assert_non_null(doc);
    return doc;
}

/* Parses text that must fail; returns the message, checking it starts with `where`. */
static void parse_fails(const char *text, const char *where, const char *what) {
    rill_toml *doc = (rill_toml *)(uintptr_t)1;
    rill_error err = {0};
    rill_result r = rill_toml_parse(text, strlen(text), "t.toml", &doc, &err);
    if (r == RILL_OK || strncmp(err.msg, where, strlen(where)) != 0 ||
        (what && !strstr(err.msg, what))) {
        fprintf(stderr, "input: [%s]\nresult %d, message: %s\nexpected prefix %s, text %s\n", text,
                r, err.msg, where, what ? what : "");
    }
    assert_int_not_equal(r, RILL_OK);
    assert_null(doc);
    assert_int_equal(strncmp(err.msg, where, strlen(where)), 0);
    if (what) {
        assert_non_null(strstr(err.msg, what));
    }
}

static void test_scalars(void **state) {
    (void)state;
    rill_toml *doc = parse_ok("# a comment\n"
                              "name = \"Demo \\\"world\\\"\\n\\u00e9\"  # trailing\n"
                              "lit = 'C:\\path\\no escapes'\n"
                              "i = +42\n"
                              "neg = -17\n"
                              "big = 9_223_372_036_854_775_807\n"
                              "small = -9223372036854775808\n"
                              "hex = 0xDEAD_beef\n"
                              "oct = 0o755\n"
                              "bin = 0b1101\n"
                              "f = 3.5\n"
                              "e = -2e-3\n"
                              "fe = 6.25E+2\n"
                              "pinf = +inf\n"
                              "ninf = -inf\n"
                              "nn = nan\n"
                              "t = true\n"
                              "fa = false\n"
                              "\"quoted key\" = 1\n"
                              "'lit key' = 2\n"
                              "bare-key_1 = 3\n");
    assert_string_equal(rill_toml_get_string(doc, "name", NULL), "Demo \"world\"\n\xc3\xa9");
    assert_string_equal(rill_toml_get_string(doc, "lit", NULL), "C:\\path\\no escapes");
    assert_int_equal(rill_toml_get_int(doc, "i", 0), 42);
    assert_int_equal(rill_toml_get_int(doc, "neg", 0), -17);
    assert_true(rill_toml_get_int(doc, "big", 0) == INT64_MAX);
    assert_true(rill_toml_get_int(doc, "small", 0) == INT64_MIN);
    assert_int_equal(rill_toml_get_int(doc, "hex", 0), 0xDEADBEEF);
    assert_int_equal(rill_toml_get_int(doc, "oct", 0), 0755);
    assert_int_equal(rill_toml_get_int(doc, "bin", 0), 13);
    assert_true(rill_toml_get_float(doc, "f", 0) == 3.5);
    assert_true(fabs(rill_toml_get_float(doc, "e", 0) + 0.002) < 1e-12);
    assert_true(rill_toml_get_float(doc, "fe", 0) == 625.0);
    assert_true(isinf(rill_toml_get_float(doc, "pinf", 0)) &&
                rill_toml_get_float(doc, "pinf", 0) > 0);
    assert_true(isinf(rill_toml_get_float(doc, "ninf", 0)) &&
                rill_toml_get_float(doc, "ninf", 0) < 0);
    assert_true(isnan(rill_toml_get_float(doc, "nn", 0)));
    assert_true(rill_toml_get_bool(doc, "t", false));
    assert_false(rill_toml_get_bool(doc, "fa", true));
    assert_int_equal(rill_toml_get_int(doc, "\"quoted key\"", 0), 1);
    assert_int_equal(rill_toml_get_int(doc, "'lit key'", 0), 2);
    assert_int_equal(rill_toml_get_int(doc, "bare-key_1", 0), 3);
    /* Integers read as floats; other type mismatches give the default. */
    assert_true(rill_toml_get_float(doc, "i", 0) == 42.0);
    assert_int_equal(rill_toml_get_int(doc, "f", 7), 7);
    assert_string_equal(rill_toml_get_string(doc, "i", "def"), "def");
    assert_false(rill_toml_get_bool(doc, "missing", false));
    assert_int_equal(rill_toml_value_type(rill_toml_find(doc, "t")), RILL_TOML_BOOL);
    assert_int_equal(rill_toml_value_line(rill_toml_find(doc, "i")), 4);
    assert_int_equal(rill_toml_value_col(rill_toml_find(doc, "i")), 5);
    rill_toml_destroy(doc);
}

static void test_tables_and_arrays(void **state) {
    (void)state;
    rill_toml *doc = parse_ok("top = 1\n"
                              "[rendering]\n"
                              "graphics_quality = \"High\"\n"
                              "[streaming.texture]  # nested header\n"
                              "full_distance = 50\n"
                              "[a]\n"
                              "b.c = 'dotted'\n"
                              "\"x.y\" = 5\n"
                              "arr = [1, 2, [3, 4], ] # trailing comma\n"
                              "multi = [\n"
                              "  \"one\", # comment inside\n"
                              "  'two',\n"
                              "\n"
                              "]\n"
                              "empty = []\n"
                              "inl = { k = 1, s.t = \"deep\" }\n"
                              "[[layer]]\n"
                              "name = \"grass\"\n"
                              "[[layer]]\n"
                              "name = \"rock\"\n");
    assert_int_equal(rill_toml_get_int(doc, "top", 0), 1);
    assert_string_equal(rill_toml_get_string(doc, "rendering.graphics_quality", "Medium"), "High");
    assert_true(rill_toml_get_float(doc, "streaming.texture.full_distance", 0) == 50.0);
    assert_int_equal(rill_toml_value_type(rill_toml_find(doc, "streaming")), RILL_TOML_TABLE);
    assert_string_equal(rill_toml_get_string(doc, "a.b.c", NULL), "dotted");
    assert_int_equal(rill_toml_get_int(doc, "a.\"x.y\"", 0), 5);
    const rill_toml_value *arr = rill_toml_find(doc, "a.arr");
    assert_int_equal(rill_toml_value_type(arr), RILL_TOML_ARRAY);
    assert_int_equal(rill_toml_value_len(arr), 3);
    assert_int_equal(rill_toml_get_int(doc, "a.arr[1]", 0), 2);
    assert_int_equal(rill_toml_get_int(doc, "a.arr[2][1]", 0), 4);
    assert_null(rill_toml_find(doc, "a.arr[3]"));
    assert_null(rill_toml_find(doc, "a.arr[x]"));
    assert_null(rill_toml_find(doc, "a..arr"));
    assert_null(rill_toml_find(doc, "a.arr."));
    assert_string_equal(rill_toml_get_string(doc, "a.multi[1]", NULL), "two");
    assert_int_equal(rill_toml_value_len(rill_toml_find(doc, "a.multi")), 2);
    assert_int_equal(rill_toml_value_len(rill_toml_find(doc, "a.empty")), 0);
    assert_int_equal(rill_toml_get_int(doc, "a.inl.k", 0), 1);
    assert_string_equal(rill_toml_get_string(doc, "a.inl.s.t", NULL), "deep");
    assert_string_equal(rill_toml_get_string(doc, "layer[1].name", NULL), "rock");
    /* Members come in file order with their keys. */
    const rill_toml_value *root = rill_toml_root(doc);
    assert_string_equal(rill_toml_value_key(rill_toml_value_at(root, 0)), "top");
    assert_string_equal(rill_toml_value_key(rill_toml_value_at(root, 1)), "rendering");
    assert_null(rill_toml_value_at(root, 100));
    rill_toml_destroy(doc);
}

static void test_multiline_strings(void **state) {
    (void)state;
    rill_toml *doc = parse_ok("a = \"\"\"\nline one\nline two\"\"\"\n"
                              "b = '''\n  raw \\n '''\n"
                              "c = \"\"\"joined \\\n     here\"\"\"\n"
                              "d = \"\"\"quote\"\"\"\"\"\n"
                              "e = \"\\u0000x\"\r\n"
                              "f = \"\\U0001F600\"\n");
    assert_string_equal(rill_toml_get_string(doc, "a", NULL), "line one\nline two");
    assert_string_equal(rill_toml_get_string(doc, "b", NULL), "  raw \\n ");
    assert_string_equal(rill_toml_get_string(doc, "c", NULL), "joined here");
    assert_string_equal(rill_toml_get_string(doc, "d", NULL), "quote\"\"");
    assert_int_equal(rill_toml_value_string_len(rill_toml_find(doc, "e")), 2);
    assert_string_equal(rill_toml_get_string(doc, "f", NULL), "\xF0\x9F\x98\x80");
    rill_toml_destroy(doc);
}

static void test_structure_rules(void **state) {
    (void)state;
    rill_toml *doc = parse_ok("\xEF\xBB\xBF# BOM and CRLF\r\n"
                              "[a.b]\r\n"
                              "x = 1\r\n"
                              "[a]\r\n" /* defining a table after its sub-table is fine */
                              "y = 2\r\n"
                              "[[list]]\r\n"
                              "n = 1\r\n"
                              "[list.sub]\r\n" /* a sub-table of the last list element */
                              "z = 3\r\n"
                              "[[list]]\r\n"
                              "n = 2\r\n"
                              "[c]\r\n"
                              "d . e = 'spaced dots'\r\n"
                              "\"\" = 'empty key'\r\n"
                              "esc = \"\\e\\t\"\r\n"
                              "nest = { a = { b = [ { c = 1 } ] } }\r\n");
    assert_int_equal(rill_toml_get_int(doc, "a.b.x", 0), 1);
    assert_int_equal(rill_toml_get_int(doc, "a.y", 0), 2);
    assert_int_equal(rill_toml_value_len(rill_toml_find(doc, "list")), 2);
    assert_int_equal(rill_toml_get_int(doc, "list[0].sub.z", 0), 3);
    assert_null(rill_toml_find(doc, "list[1].sub"));
    assert_int_equal(rill_toml_get_int(doc, "list[1].n", 0), 2);
    assert_string_equal(rill_toml_get_string(doc, "c.d.e", NULL), "spaced dots");
    assert_string_equal(rill_toml_get_string(doc, "c.\"\"", NULL), "empty key");
    assert_string_equal(rill_toml_get_string(doc, "c.esc", NULL), "\x1b\t");
    assert_int_equal(rill_toml_get_int(doc, "c.nest.a.b[0].c", 0), 1);
    /* The header of [a] is where the table is reported. */
    assert_int_equal(rill_toml_value_key_line(rill_toml_find(doc, "a")), 4);
    assert_int_equal(rill_toml_value_key_line(rill_toml_find(doc, "c.esc")), 15);
    assert_int_equal(rill_toml_value_key_col(rill_toml_find(doc, "c.d.e")), 5);
    rill_toml_destroy(doc);
    /* Defining a table twice, directly or through dotted keys, is an error. */
    parse_fails("[a]\nb.c = 1\n[a.b]\n", "t.toml:3:1:", "twice");
    parse_fails("[[x]]\n[x]\n", "t.toml:2:1:", "twice");
    parse_fails("a = {b = 1, b = 2}\n", "t.toml:1:13:", "duplicate");
    parse_fails("a = {b = 1\n}\n", "t.toml:1:11:", NULL);
    parse_fails("k = '''never closed\n", "t.toml:1:5:", "unterminated");
    parse_fails("\"\"\"k\"\"\" = 1\n", "t.toml:1:1:", "multi-line");
    parse_fails("a = +0x10\n", "t.toml:1:5:", "sign");
    parse_fails("a = 0b102\n", "t.toml:1:5:", "digit");
    parse_fails("a = tru\n", "t.toml:1:5:", NULL);
    parse_fails("[]\n", "t.toml:1:2:", "key");
    parse_fails("[a]]\n", "t.toml:1:4:", NULL);
}

static void test_errors_name_the_place(void **state) {
    (void)state;
    parse_fails("a = 1\nb 2\n", "t.toml:2:3:", "'='");
    parse_fails("a = \"open\n", "t.toml:1:5:", "unterminated");
    parse_fails("a = 1\na = 2\n", "t.toml:2:1:", "duplicate");
    parse_fails("[x]\n[x]\n", "t.toml:2:1:", "twice");
    parse_fails("a = [1, 2\n", "t.toml:2:1:", "unterminated array");
    parse_fails("a = 1979-05-27\n", "t.toml:1:5:", "dates");
    parse_fails("a = 07:30:00\n", "t.toml:1:5:", "dates");
    parse_fails("a = \"\\q\"\n", "t.toml:1:6:", "escape");
    parse_fails("a = \"\\uD800\"\n", "t.toml:1:6:", "Unicode");
    parse_fails("a = 012\n", "t.toml:1:5:", "leading zeros");
    parse_fails("a = 1__0\n", "t.toml:1:5:", "'_'");
    parse_fails("a = 9223372036854775808\n", "t.toml:1:5:", "64 bits");
    parse_fails("a = 0x8000000000000000\n", "t.toml:1:5:", "64 bits");
    parse_fails("a = 1. \n", "t.toml:1:5:", "'.'");
    parse_fails("a = 1e\n", "t.toml:1:5:", NULL);
    parse_fails("a = hello\n",
                "t.toml:1:5:", "expected a value, found 'hello' (a string needs quotes: \"hello\"");
    parse_fails("main_scene = scenes/main.rsn\n", "t.toml:1:14:", "\"scenes/main.rsn\"");
    parse_fails("vsync = True\n", "t.toml:1:9:", "booleans are true and false");
    parse_fails("vsync = no\n", "t.toml:1:9:", "found 'no' (a string needs quotes");
    /* Saved as UTF-16 ("Unicode" in Windows editors): said so, not "NUL byte". */
    {
        static const char utf16[] = "\xFF\xFE[\0a\0]\0\n\0";
        rill_toml *doc = NULL;
        rill_error err = {0};
        assert_int_equal(rill_toml_parse(utf16, sizeof utf16 - 1, "t.toml", &doc, &err),
                         RILL_ERR_PARSE);
        assert_string_equal(err.msg, "t.toml:1:1: " RILL_TEXT_UTF16_HINT);
        parse_fails("\xFE\xFF", "t.toml:1:1:", "UTF-16");
    }
    parse_fails("a = 1 b = 2\n", "t.toml:1:7:", "end of the line");
    parse_fails("a = \n", "t.toml:1:5:", "expected a value");
    parse_fails("[a\n", "t.toml:1:3:", "']'");
    parse_fails("x = \"\"\"\nnever\nclosed\n", "t.toml:1:5:", "unterminated multi-line");
    parse_fails("a = { b = 1 }\n[a]\n", "t.toml:2:1:", NULL);
    parse_fails("a = { b = 1 }\na.c = 2\n", "t.toml:2:1:", NULL);
    parse_fails("a = [1]\n[[a]]\n", "t.toml:2:1:", NULL);
    parse_fails("a = 1\na.b = 2\n", "t.toml:2:1:", NULL);
    parse_fails("a = \"x\0y\"\n", "t.toml:1:5:", NULL); /* strlen stops at the NUL: unterminated */
    parse_fails("a = 'tab\there ok' \x01\n", "t.toml:1:19:", NULL);
    parse_fails("# bad \x7f comment\n", "t.toml:1:7:", "control");
    /* Embedded NUL with an explicit length. */
    {
        rill_toml *doc = NULL;
        rill_error err = {0};
        assert_int_equal(rill_toml_parse("a = 1\nb\0= 2\n", 12, "n.toml", &doc, &err),
                         RILL_ERR_PARSE);
        assert_string_equal(err.msg, "n.toml:2:2: NUL byte in a text file");
        assert_null(doc);
    }
}

static void test_depth_limit(void **state) {
    (void)state;
    char deep[4096];
    size_t n = 0;
    n += (size_t)snprintf(deep, sizeof(deep), "a = ");
    for (int i = 0; i < 1000; i++) {
        deep[n++] = '[';
    }
    deep[n] = '\0';
    rill_toml *doc = NULL;
    rill_error err = {0};
    assert_int_equal(rill_toml_parse(deep, n, "d.toml", &doc, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "nested too deeply"));
    /* Just below the limit parses. */
    n = (size_t)snprintf(deep, sizeof(deep), "a = ");
    for (unsigned i = 0; i < RILL_TOML_MAX_DEPTH; i++) {
        deep[n++] = '[';
    }
    for (unsigned i = 0; i < RILL_TOML_MAX_DEPTH; i++) {
        deep[n++] = ']';
    }
    deep[n] = '\0';
    assert_int_equal(rill_toml_parse(deep, n, "d.toml", &doc, &err), RILL_OK);
    rill_toml_destroy(doc);
}

static const char SAMPLE[] = "[project]\n"
                             "name = \"Open World\"\n"
                             "version = \"1.2.0\"\n"
                             "main_scene = \"scenes/main.rsn\"\n"
                             "\n"
                             "[window]\n"
                             "width = 1920\n"
                             "height = 1080\n"
                             "vsync = false\n"
                             "fullscreen = true\n"
                             "\n"
                             "[rendering]\n"
                             "graphics_quality = \"High\"\n"
                             "render_scale = 0.75\n"
                             "static_batching = true\n"
                             "gpu_culling = true\n"
                             "render_thread = false\n"
                             "gpu_occlusion = false\n"
                             "upload_budget_bytes = 65536\n"
                             "\n"
                             "[streaming.texture]\n"
                             "enabled = true\n"
                             "full_distance = 40\n"
                             "low_distance = 70.5\n"
                             "\n"
                             "[scene]\n"
                             "load_budget_ms = 4\n";

/* Every prefix of a valid file either parses or fails cleanly with a message; never crashes. */
static void test_truncation(void **state) {
    (void)state;
    size_t len = strlen(SAMPLE);
    for (size_t cut = 0; cut <= len; cut++) {
        rill_toml *doc = NULL;
        rill_error err = {0};
        /* A heap copy of exactly `cut` bytes, so ASan sees any read past the end. */
        char *copy = rill_malloc(cut ? cut : 1);
        memcpy(copy, SAMPLE, cut);
        rill_result r = rill_toml_parse(copy, cut, "cut.toml", &doc, &err);
        if (r == RILL_OK) {
            rill_project p;
            rill_log_set_level(RILL_LOG_ERROR);
            (void)rill_project_from_toml(doc, &p, &err);
            rill_log_set_level(RILL_LOG_INFO);
            rill_toml_destroy(doc);
        } else {
            assert_null(doc);
            assert_int_equal(strncmp(err.msg, "cut.toml:", 9), 0);
        }
        rill_free(copy);
    }
}

/* Many keys in one table: the hash index keeps lookups right past the index threshold. */
static void test_large_table(void **state) {
    (void)state;
    rill_strbuf sb = {0};
    for (int i = 0; i < 2000; i++) {
        rill_strbuf_printf(&sb, "k%d = %d\n", i, i * 3);
    }
    rill_toml *doc = NULL;
    rill_error err = {0};
    assert_int_equal(rill_toml_parse(sb.data, sb.len, "big.toml", &doc, &err), RILL_OK);
    for (int i = 0; i < 2000; i += 37) {
        char key[16];
        snprintf(key, sizeof(key), "k%d", i);
        assert_int_equal(rill_toml_get_int(doc, key, -1), i * 3);
    }
    assert_int_equal(rill_toml_value_len(rill_toml_root(doc)), 2000);
    rill_toml_destroy(doc);
    /* A duplicate far past the threshold is still found. */
    rill_strbuf_printf(&sb, "k1999 = 1\n");
    assert_int_equal(rill_toml_parse(sb.data, sb.len, "big.toml", &doc, &err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "big.toml:2001:1: duplicate key"));
    rill_strbuf_free(&sb);
}

/* >>project ----------------------------------------------------------------------------------- */

typedef struct captured {
    char lines[16][300];
    int count;
} captured;

static void capture_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)module;
    captured *c = user;
    if (level == RILL_LOG_WARN && c->count < 16) {
        snprintf(c->lines[c->count++], sizeof(c->lines[0]), "%s", msg);
    }
}

static void test_project_defaults(void **state) {
    (void)state;
    rill_project p;
    assert_int_equal(rill_project_from_toml(NULL, &p, NULL), RILL_OK);
    assert_string_equal(p.name, "Rill project");
    assert_string_equal(p.main_scene, "");
    assert_int_equal(p.window.width, 1280);
    assert_int_equal(p.window.height, 720);
    assert_true(p.window.vsync);
    assert_false(p.window.fullscreen);
    assert_string_equal(p.version, "");
    assert_int_equal(p.rendering.graphics_quality, RILL_QUALITY_MEDIUM);
    assert_true(p.rendering.render_scale == 1.0f);
    assert_false(p.rendering.static_batching);
    assert_false(p.rendering.gpu_culling);
    assert_true(p.rendering.render_thread); /* issue 29: the render thread is the default */
    assert_true(p.rendering.gpu_occlusion);
    assert_int_equal(p.rendering.upload_budget_bytes, 8u << 20);
    assert_true(p.streaming.texture.enabled);
    assert_true(p.streaming.texture.full_distance == 60.0f);
    assert_true(p.streaming.texture.low_distance == 90.0f);
    assert_true(p.scene.load_budget_ms == 3.0f);
    assert_int_equal(p.warning_count, 0);
    /* An empty file gives the same. */
    rill_toml *doc = parse_ok("");
    rill_project q;
    assert_int_equal(rill_project_from_toml(doc, &q, NULL), RILL_OK);
    assert_memory_equal(&p, &q, sizeof(p));
    rill_toml_destroy(doc);
}

static void test_project_values(void **state) {
    (void)state;
    rill_toml *doc = parse_ok(SAMPLE);
    rill_project p;
    assert_int_equal(rill_project_from_toml(doc, &p, NULL), RILL_OK);
    assert_string_equal(p.name, "Open World");
    assert_string_equal(p.window.title, "Open World"); /* follows the name */
    assert_string_equal(p.main_scene, "scenes/main.rsn");
    assert_string_equal(p.version, "1.2.0");
    assert_true(p.window.fullscreen);
    assert_int_equal(p.window.width, 1920);
    assert_int_equal(p.window.height, 1080);
    assert_false(p.window.vsync);
    assert_int_equal(p.rendering.graphics_quality, RILL_QUALITY_HIGH);
    assert_true(p.rendering.render_scale == 0.75f);
    assert_true(p.rendering.static_batching);
    assert_true(p.rendering.gpu_culling);
    assert_false(p.rendering.render_thread); /* turned off */
    assert_false(p.rendering.gpu_occlusion);
    assert_int_equal(p.rendering.upload_budget_bytes, 65536);
    assert_true(p.streaming.texture.full_distance == 40.0f);
    assert_true(p.streaming.texture.low_distance == 70.5f);
    assert_true(p.scene.load_budget_ms == 4.0f);
    assert_int_equal(p.warning_count, 0);
    rill_toml_destroy(doc);
}

static void test_project_warnings_and_clamps(void **state) {
    (void)state;
    captured cap = {0};
    rill_log_set_sink(capture_sink, &cap);
    rill_toml *doc = parse_ok("[window]\n"
                              "title = \"T\"\n"
                              "fulscreen = true\n"
                              "[rendering]\n"
                              "render_scale = 5.0\n"
                              "graphics_quality = \"ultra\"\n"
                              "[audio]\n"
                              "volume = 1\n"
                              "[streaming.texture]\n"
                              "full_distance = 100\n");
    rill_project p;
    assert_int_equal(rill_project_from_toml(doc, &p, NULL), RILL_OK);
    rill_log_set_sink(NULL, NULL);
    assert_string_equal(p.window.title, "T");
    assert_true(p.rendering.render_scale == 2.0f);
    assert_int_equal(p.rendering.graphics_quality, RILL_QUALITY_MEDIUM);
    assert_true(p.streaming.texture.low_distance == 105.0f); /* forced to full + 5 */
    assert_int_equal(p.warning_count, 5);
    assert_int_equal(cap.count, 5);
    assert_string_equal(cap.lines[0], "t.toml:3:1: unknown key 'window.fulscreen' (ignored); did "
                                      "you mean 'window.fullscreen'?");
    assert_non_null(strstr(cap.lines[1], "t.toml:5:16:"));
    assert_non_null(strstr(cap.lines[2], "t.toml:6:20:"));
    assert_string_equal(cap.lines[3],
                        "t.toml:7:1: unknown table 'audio' (ignored)"); /* none near */
    assert_non_null(strstr(cap.lines[4], "low_distance"));
    rill_toml_destroy(doc);

    /* render_scale below the range clamps up. */
    doc = parse_ok("rendering.render_scale = 0.01\n");
    rill_log_set_level(RILL_LOG_ERROR);
    assert_int_equal(rill_project_from_toml(doc, &p, NULL), RILL_OK);
    rill_log_set_level(RILL_LOG_INFO);
    assert_true(fabsf(p.rendering.render_scale - 0.1f) < 1e-6f);
    rill_toml_destroy(doc);
}

/* Warnings for the keys in text, into cap; the project read from it into p. */
static void read_warnings(const char *text, rill_project *p, captured *cap) {
    memset(cap, 0, sizeof *cap);
    rill_toml *doc = parse_ok(text);
    rill_log_set_sink(capture_sink, cap);
    assert_int_equal(rill_project_from_toml(doc, p, NULL), RILL_OK);
    rill_log_set_sink(NULL, NULL);
    assert_int_equal(p->warning_count, (uint32_t)cap->count);
    rill_toml_destroy(doc);
}

/* A misspelt key or table names the nearest known one: in its own table, else the known key of
 * that name in another table; nothing when no known name is close. */
static void test_project_did_you_mean(void **state) {
    (void)state;
    rill_project p;
    captured cap;
    read_warnings("[renderng]\n"
                  "render_scale = 0.5\n"
                  "[window]\n"
                  "Width = 800\n"
                  "render_scale = 0.5\n"
                  "[streaming.textures]\n"
                  "enabled = false\n"
                  "[scene]\n"
                  "load_budget = 2\n"
                  "[project]\n"
                  "main_scene_path = \"a.rsn\"\n"
                  "colour = 3\n",
                  &p, &cap);
    assert_int_equal(cap.count, 7);
    assert_string_equal(
        cap.lines[0], "t.toml:1:1: unknown table 'renderng' (ignored); did you mean 'rendering'?");
    assert_string_equal(cap.lines[1], "t.toml:4:1: unknown key 'window.Width' (ignored); did you "
                                      "mean 'window.width'?");
    assert_string_equal(cap.lines[2], "t.toml:5:1: unknown key 'window.render_scale' (ignored); "
                                      "did you mean 'rendering.render_scale'?");
    assert_string_equal(cap.lines[3], "t.toml:6:1: unknown table 'streaming.textures' (ignored); "
                                      "did you mean 'streaming.texture'?");
    assert_string_equal(cap.lines[4], "t.toml:9:1: unknown key 'scene.load_budget' (ignored); did "
                                      "you mean 'scene.load_budget_ms'?");
    assert_string_equal(cap.lines[5], "t.toml:11:1: unknown key 'project.main_scene_path' "
                                      "(ignored); did you mean 'project.main_scene'?");
    assert_string_equal(cap.lines[6], "t.toml:12:1: unknown key 'project.colour' (ignored)");
    /* Nothing was applied from the misspelt keys. */
    assert_int_equal(p.window.width, 1280);
    assert_true(p.rendering.render_scale == 1.0f);
    assert_true(p.streaming.texture.enabled);
    assert_string_equal(p.main_scene, "");
    /* At the top level, a known key's name alone points at its table. */
    read_warnings("load_budget_ms = 2\nvsync = false\n[rendering]\nquality = \"High\"\n", &p, &cap);
    assert_int_equal(cap.count, 3);
    assert_string_equal(cap.lines[2], "t.toml:4:1: unknown key 'rendering.quality' (ignored); "
                                      "did you mean 'rendering.graphics_quality'?");
    assert_string_equal(cap.lines[0], "t.toml:1:1: unknown key 'load_budget_ms' (ignored); did you "
                                      "mean 'scene.load_budget_ms'?");
    assert_string_equal(cap.lines[1], "t.toml:2:1: unknown key 'vsync' (ignored); did you mean "
                                      "'window.vsync'?");
}

/* A known key with a value of the wrong type is a warning naming the key, the type it wants and
 * the place; the setting keeps its default and the rest of the file still applies. */
static void test_project_type_errors(void **state) {
    (void)state;
    rill_project p;
    captured cap;
    read_warnings("[window]\n"
                  "width = \"wide\"\n"
                  "height = 600\n"
                  "vsync = \"yes\"\n"
                  "title = 7\n"
                  "[rendering]\n"
                  "render_scale = \"half\"\n"
                  "graphics_quality = 3\n"
                  "[streaming]\n"
                  "texture = 3\n"
                  "[scene.load_budget_ms]\n"
                  "x = 1\n",
                  &p, &cap);
    assert_int_equal(cap.count, 7);
    assert_string_equal(cap.lines[0], "t.toml:2:9: 'window.width' must be an integer, not string; "
                                      "using the default 1280");
    assert_string_equal(cap.lines[1], "t.toml:4:9: 'window.vsync' must be a boolean, not string; "
                                      "using the default true");
    assert_string_equal(cap.lines[2], "t.toml:5:9: 'window.title' must be a string, not integer; "
                                      "using the default \"Rill project\"");
    assert_string_equal(cap.lines[3], "t.toml:7:16: 'rendering.render_scale' must be a number, not "
                                      "string; using the default 1");
    assert_non_null(strstr(cap.lines[4], "t.toml:8:20: 'rendering.graphics_quality' must be a "
                                         "string (\"Low\", \"Medium\" or \"High\"), not integer; "
                                         "using the default \"Medium\""));
    assert_string_equal(cap.lines[5], "t.toml:10:11: 'streaming.texture' must be a table of "
                                      "settings, not integer (ignored)");
    assert_non_null(strstr(cap.lines[6], "'scene.load_budget_ms' must be a number, not table"));
    assert_int_equal(p.window.width, 1280);
    assert_int_equal(p.window.height, 600); /* the rest still applies */
    assert_true(p.window.vsync);
    assert_string_equal(p.window.title, "Rill project");
    assert_true(p.rendering.render_scale == 1.0f);
    assert_true(p.scene.load_budget_ms == 3.0f);
}

static void test_project_load_file(void **state) {
    (void)state;
    const char *tmp = getenv("RILL_TEST_TMP");
    char dir[512], path[600];
    snprintf(dir, sizeof(dir), "%s", tmp ? tmp : "/tmp/rill_app_toml");
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
    snprintf(path, sizeof(path), "%s/project.toml", dir);
    assert_int_equal(rill_file_write_all(path, SAMPLE, strlen(SAMPLE), NULL), RILL_OK);
    rill_project p;
    rill_error err = {0};
    assert_int_equal(rill_project_load(path, &p, &err), RILL_OK);
    assert_int_equal(p.window.width, 1920);
    /* A byte-order mark (Windows editors write one) at the start is fine; anywhere else it is an
     * error naming the place. */
    static const char bom[] = "\xEF\xBB\xBF[window]\r\nwidth = 640\r\n";
    assert_int_equal(rill_file_write_all(path, bom, strlen(bom), NULL), RILL_OK);
    assert_int_equal(rill_project_load(path, &p, &err), RILL_OK);
    assert_int_equal(p.window.width, 640);
    assert_int_equal(p.warning_count, 0);
    static const char mid[] = "[window]\n\xEF\xBB\xBFwidth = 640\n";
    assert_int_equal(rill_file_write_all(path, mid, strlen(mid), NULL), RILL_OK);
    assert_int_equal(rill_project_load(path, &p, &err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "project.toml:2:1: "));
    assert_non_null(strstr(err.msg, "byte-order mark"));
    assert_int_equal(p.window.width, 1280);
    snprintf(path, sizeof(path), "%s/missing.toml", dir);
    assert_int_not_equal(rill_project_load(path, &p, &err), RILL_OK);
    assert_int_equal(p.window.width, 1280);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_tables_and_arrays),
        cmocka_unit_test(test_multiline_strings),
        cmocka_unit_test(test_structure_rules),
        cmocka_unit_test(test_errors_name_the_place),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_large_table),
        cmocka_unit_test(test_project_defaults),
        cmocka_unit_test(test_project_values),
        cmocka_unit_test(test_project_warnings_and_clamps),
        cmocka_unit_test(test_project_did_you_mean),
        cmocka_unit_test(test_project_type_errors),
        cmocka_unit_test(test_project_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
