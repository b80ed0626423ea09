/* test_plugins.c: effect plugins on lavapipe with validation on: the first five shipped plugins
 * against goldens (64x64), every shipped plugin loading, compiling and changing the image, a
 * plugin built for ABI 1.0 loading unchanged, the frame inputs of ABI 1.1 (depth, normals,
 * motion) bound and read, compile on first use (a broken shader reported at its first frame),
 * ABI mismatches refused, a shader file and a library hot-reloaded under a
 * running renderer, a broken shader keeping the last good pipeline, a changed settings layout
 * refused, settings as a world component (absent = no pass) and the order of plugin passes in the
 * compiled graph. RILL_PLUGIN_DIR is the build's plugins folder, RILL_TEST_PLUGIN_DIR the test
 * plugins (test_fx_v1/2/3.so, bad_abi_major.so, bad_abi_minor.so, legacy_fx.so, inputs_fx.so). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "golden.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/plugins.h"

#define W 64
#define H 64

typedef struct fixture {
    rill_renderer *r;
    rill_plugins *p;
    rill_mesh cube;
    rill_material red, green;
    char tmp[512];
} fixture;

static int setup(void **state) {
    rill_renderer_desc d = {.width = W, .height = H, .quality = RILL_RENDER_QUALITY_LOW};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    rill_error err = {0};
    f->cube = render_test_cube(f->r);
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    md.base_color[0] = 0.9f, md.base_color[1] = 0.2f, md.base_color[2] = 0.1f;
    md.base_color[3] = 1.0f;
    md.roughness = 0.6f;
    md.roughness_set = true;
    f->red = rill_render_material_create(f->r, &md, &err);
    md.base_color[0] = 0.1f, md.base_color[1] = 0.7f, md.base_color[2] = 0.3f;
    f->green = rill_render_material_create(f->r, &md, &err);
    f->p = rill_plugins_create(&(rill_plugins_desc){.renderer = f->r}, &err);
    assert_non_null(f->p);
    const char *base = getenv("RILL_TEST_TMP") ? getenv("RILL_TEST_TMP") : "/tmp";
    snprintf(f->tmp, sizeof(f->tmp), "%s/plugins_%ld_%ld", base, (long)getpid(), (long)rand());
    rill_dir_create_all(f->tmp, NULL);
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rill_plugins_destroy(f->p);
    render_test_destroy_clean(f->r, true);
    rill_free(f);
    return 0;
}

/* Two cubes in front of a blue-grey sky, lit by a sun; the green one `shift` metres to the right
 * (a frame after one with another shift has motion vectors). */
static void render_shifted(fixture *f, uint8_t *px, float shift) {
    rill_render_instance inst[2];
    render_test_place(&inst[0], 1, f->cube, f->red, (float[3]){-0.8f, 0, -4}, 1.0f, 0.0f);
    render_test_place(&inst[1], 2, f->cube, f->green, (float[3]){0.9f + shift, 0.3f, -5}, 1.0f,
                      0.0f);
    rill_render_snapshot s;
    memset(&s, 0, sizeof(s));
    float v[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    memcpy(s.view.world_from_view, v, sizeof(v));
    s.view.fov_y = 0.9f;
    s.view.clear_color[0] = 0.3f, s.view.clear_color[1] = 0.4f, s.view.clear_color[2] = 0.6f;
    s.has_sun = true;
    s.sun.direction[0] = -0.4f, s.sun.direction[1] = -0.8f, s.sun.direction[2] = -0.45f;
    s.sun.color[0] = s.sun.color[1] = s.sun.color[2] = 1.0f;
    s.sun.illuminance = 3.0f;
    s.ambient[0] = s.ambient[1] = s.ambient[2] = 0.1f;
    s.instances = inst;
    s.instance_count = 2;
    rill_error err = {0};
    if (rill_renderer_render(f->r, &s, &err) != RILL_OK) {
        fail_msg("render: %s", err.msg);
    }
    if (rill_renderer_read_pixels(f->r, px, W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
}

static void render(fixture *f, uint8_t *px) {
    render_shifted(f, px, 0.0f);
}

static double mean_abs_diff(const uint8_t *a, const uint8_t *b) {
    double sum = 0;
    for (size_t i = 0; i < W * H * 4; i++) {
        sum += abs((int)a[i] - (int)b[i]);
    }
    return sum / (W * H * 3);
}

static void copy_file(const char *from, const char *to) {
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(from, &data, &size, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s.part", to);
    FILE *fp = fopen(tmp, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, size, fp), size);
    fclose(fp);
    rill_free(data);
    assert_int_equal(rename(tmp, to), 0); /* how a build replaces a file */
}

/* Writes text to path and moves its mtime forward by `tick` seconds so a poll sees the change even
 * within one filesystem timestamp tick. */
static void write_text(const char *path, const char *text, int tick) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec += tick;
    ts[1] = ts[0];
    utimensat(AT_FDCWD, path, ts, 0);
}

static void bump_mtime(const char *path, int tick) {
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec += tick;
    ts[1] = ts[0];
    utimensat(AT_FDCWD, path, ts, 0);
}

/* The number of registry entries named id (a reload must not leave two). */
static int registry_count(rill_renderer *r, const char *id) {
    int n = 0;
    for (uint32_t i = 0; i < rill_render_effect_count(r); i++) {
        rill_render_effect_info fi;
        if (rill_render_effect_get(r, i, &fi) && strcmp(fi.id, id) == 0) {
            n++;
        }
    }
    return n;
}

static void test_shipped_plugins_goldens(void **state) {
    fixture *f = *state;
    static uint8_t base[W * H * 4], px[W * H * 4];
    render(f, base);
    golden_expect("plugin_none", base, W, H);
    const char *names[] = {"sepia", "vignette", "chromatic_aberration", "crt", "film_grain"};
    for (int i = 0; i < 5; i++) {
        /* One plugin at a time: a fresh host per plugin. */
        rill_plugins_destroy(f->p);
        rill_error err = {0};
        f->p = rill_plugins_create(&(rill_plugins_desc){.renderer = f->r}, &err);
        char path[512], golden[64];
        snprintf(path, sizeof(path), "%s/%s.so", RILL_PLUGIN_DIR, names[i]);
        if (rill_plugins_load(f->p, path, &err) != RILL_OK) {
            fail_msg("%s", err.msg);
        }
        render(f, px);
        assert_true(mean_abs_diff(base, px) > 1.0); /* the effect changed the image */
        snprintf(golden, sizeof(golden), "plugin_%s", names[i]);
        golden_expect(golden, px, W, H);
    }
}

static void test_abi_mismatch_refused(void **state) {
    fixture *f = *state;
    const char *cases[][2] = {{"bad_abi_major.so", "ABI 2.0 refused: this host has ABI 1.1"},
                              {"bad_abi_minor.so", "ABI 1.99 refused: this host has ABI 1.1"}};
    for (int i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", RILL_TEST_PLUGIN_DIR, cases[i][0]);
        rill_error err = {0};
        assert_int_equal(rill_plugins_load(f->p, path, &err), RILL_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, cases[i][1]));
    }
    assert_int_equal(rill_plugins_count(f->p), 0);
    rill_plugins_stats st;
    rill_plugins_get_stats(f->p, &st);
    assert_int_equal(st.refused, 2);
}

/* Pixels whose colour differs by more than 2 in some channel. */
static int changed_pixels(const uint8_t *a, const uint8_t *b) {
    int n = 0;
    for (size_t i = 0; i < W * H; i++) {
        for (int c = 0; c < 3; c++) {
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > 2) {
                n++;
                break;
            }
        }
    }
    return n;
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A fresh host with one library loaded (failing the test when it is refused). */
static void load_alone(fixture *f, const char *path) {
    rill_plugins_destroy(f->p);
    rill_error err = {0};
    f->p = rill_plugins_create(&(rill_plugins_desc){.renderer = f->r}, &err);
    assert_non_null(f->p);
    if (rill_plugins_load(f->p, path, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
}

/* Every library of the build's plugins folder (at least the 25 the catalogue promises) loads
 * alone, compiles and changes the image with its default settings. The frame is the second of
 * two with the green cube moving, so effects that read motion vectors have some to read. */
static void test_every_shipped_plugin_changes_image(void **state) {
    fixture *f = *state;
    static uint8_t base[W * H * 4], px[W * H * 4];
    render_shifted(f, base, -0.3f);
    render(f, base);
    char *names[256];
    int n = 0;
    DIR *d = opendir(RILL_PLUGIN_DIR);
    assert_non_null(d);
    for (struct dirent *ent; (ent = readdir(d)) && n < 256;) {
        size_t len = strlen(ent->d_name);
        if (len > 3 && strcmp(ent->d_name + len - 3, ".so") == 0) {
            names[n++] = strdup(ent->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
    assert_true(n >= 25);
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", RILL_PLUGIN_DIR, names[i]);
        load_alone(f, path);
        assert_int_equal(rill_plugins_effect_count(f->p), 1);
        render_shifted(f, px, -0.3f);
        render(f, px);
        rill_plugin_effect_info ei;
        assert_true(rill_plugins_effect_get(f->p, 0, &ei));
        assert_true(ei.active);
        int changed = changed_pixels(base, px);
        if (changed < W * H / 100) {
            fail_msg("%s (%s) changed %d of %d pixels", names[i], ei.id, changed, W * H);
        }
        free(names[i]);
    }
}

/* A plugin built as ABI 1.0 made it (1.0 tables, the desc without `inputs`, garbage after it)
 * loads into this 1.1 host and runs, reading no input. */
static void test_abi_1_0_plugin_still_loads(void **state) {
    fixture *f = *state;
    static uint8_t base[W * H * 4], px[W * H * 4];
    render(f, base);
    char path[512];
    snprintf(path, sizeof(path), "%s/legacy_fx.so", RILL_TEST_PLUGIN_DIR);
    load_alone(f, path);
    rill_plugin_info pi;
    assert_true(rill_plugins_get(f->p, 0, &pi));
    assert_int_equal(pi.abi_major, 1);
    assert_int_equal(pi.abi_minor, 0);
    rill_plugin_effect_info ei;
    assert_true(rill_plugins_effect_get(f->p, 0, &ei));
    assert_int_equal(ei.inputs, 0);
    render(f, px);
    for (size_t i = 0; i < W * H * 4; i += 4) { /* the colour inverted */
        assert_true(abs((int)px[i] - (255 - (int)base[i])) <= 1);
    }
}

/* ABI 1.1's inputs: the host binds the view's depth, normals and motion vectors. The red cube's
 * front face (x = 19, y = 32 at 64x64) is 3.5 m away and faces the camera (normal z = 1); the sky
 * is at the far plane (depth 1) with no normal; the green cube moving right has motion x > 0. */
static void test_frame_inputs_bound(void **state) {
    fixture *f = *state;
    static uint8_t px[W * H * 4];
    char path[512];
    snprintf(path, sizeof(path), "%s/inputs_fx.so", RILL_TEST_PLUGIN_DIR);
    load_alone(f, path);
    rill_plugin_effect_info ei;
    assert_true(rill_plugins_effect_get(f->p, 0, &ei));
    assert_int_equal(ei.inputs,
                     RILL_PLUGIN_INPUT_DEPTH | RILL_PLUGIN_INPUT_NORMAL | RILL_PLUGIN_INPUT_MOTION);
    render_shifted(f, px, -0.2f);
    render(f, px);
    const uint8_t *cube = &px[(32 * W + 19) * 4], *sky = &px[(2 * W + 2) * 4];
    if (abs((int)cube[0] - 89) > 8 || cube[1] < 245 || abs((int)cube[2] - 128) > 3) {
        fail_msg("red cube: %u %u %u (want ~89 = 3.5 m, 255 = facing, 128 = still)", cube[0],
                 cube[1], cube[2]);
    }
    if (sky[0] != 255 || abs((int)sky[1] - 128) > 1) {
        fail_msg("sky: %u %u (want 255 = far, 128 = no normal)", sky[0], sky[1]);
    }
    int moving = 0; /* pixels of the green cube, which moved right since the last frame */
    for (size_t i = 0; i < W * H * 4; i += 4) {
        moving += px[i + 2] > 140;
    }
    assert_true(moving > 20);
}

/* compile_on_first_use (what rill render and rill run use, loading every shipped plugin): a
 * library whose shader does not compile loads, the first frame that wants the effect reports the
 * error (library, file:line) and renders without it; a fixed shader compiles at its next use. */
static void test_compile_on_first_use(void **state) {
    fixture *f = *state;
    char so[600], glsl[600], src[600];
    snprintf(so, sizeof(so), "%s/sepia.so", f->tmp);
    snprintf(glsl, sizeof(glsl), "%s/sepia.glsl", f->tmp);
    snprintf(src, sizeof(src), "%s/sepia.so", RILL_PLUGIN_DIR);
    copy_file(src, so);
    write_text(glsl, "vec4 rill_effect(vec2 uv, vec4 c) { return c * no_such_value; }\n", 0);
    static uint8_t base[W * H * 4], px[W * H * 4];
    render(f, base);
    rill_plugins_destroy(f->p);
    rill_error err = {0};
    f->p = rill_plugins_create(&(rill_plugins_desc){.renderer = f->r, .compile_on_first_use = true},
                               &err);
    assert_non_null(f->p);
    if (rill_plugins_load(f->p, so, &err) != RILL_OK) {
        fail_msg("a lazy load compiled: %s", err.msg);
    }
    rill_plugins_stats st;
    rill_plugins_get_stats(f->p, &st);
    assert_int_equal(st.shader_errors, 0);
    render(f, px);
    rill_plugins_get_stats(f->p, &st);
    assert_int_equal(st.shader_errors, 1);
    char where[700];
    snprintf(where, sizeof(where), "%s:1:", glsl);
    assert_non_null(strstr(st.last_error, so));
    assert_non_null(strstr(st.last_error, where));
    assert_memory_equal(px, base, sizeof(px)); /* the frame rendered without it */
    render(f, px);                             /* said once, not every frame */
    rill_plugins_get_stats(f->p, &st);
    assert_int_equal(st.shader_errors, 1);
    snprintf(src, sizeof(src), "%s/sepia.glsl", RILL_PLUGIN_DIR);
    copy_file(src, glsl);
    bump_mtime(glsl, 2);
    rill_plugins_poll(f->p);
    render(f, px);
    assert_true(mean_abs_diff(base, px) > 1.0);
}

static void test_shader_hot_reload_and_broken_shader(void **state) {
    fixture *f = *state;
    char so[600], glsl[600], src[600];
    snprintf(so, sizeof(so), "%s/sepia.so", f->tmp);
    snprintf(glsl, sizeof(glsl), "%s/sepia.glsl", f->tmp);
    snprintf(src, sizeof(src), "%s/sepia.so", RILL_PLUGIN_DIR);
    copy_file(src, so);
    snprintf(src, sizeof(src), "%s/sepia.glsl", RILL_PLUGIN_DIR);
    copy_file(src, glsl);
    rill_error err = {0};
    if (rill_plugins_load(f->p, so, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    static uint8_t sepia[W * H * 4], inverted[W * H * 4], after[W * H * 4];
    render(f, sepia);
    write_text(glsl,
               "layout(set = 0, binding = 2) uniform Settings { float strength; } settings;\n"
               "vec4 rill_effect(vec2 uv, vec4 c) { return vec4(1.0 - c.rgb, 1.0); }\n",
               2);
    assert_int_equal(rill_plugins_poll(f->p), 1);
    render(f, inverted);
    rill_plugin_effect_info info;
    assert_true(rill_plugins_effect_get(f->p, 0, &info));
    assert_int_equal(info.generation, 1);
    /* The new shader's image: the inverse of no effect (sepia of a pixel is not its inverse). */
    assert_true(mean_abs_diff(sepia, inverted) > 20.0);
    /* A broken shader: refused with file:line, the inverted pipeline kept. */
    write_text(glsl,
               "layout(set = 0, binding = 2) uniform Settings { float strength; } settings;\n"
               "vec4 rill_effect(vec2 uv, vec4 c) {\n"
               "    return vec4(no_such_thing, 1.0);\n"
               "}\n",
               4);
    assert_int_equal(rill_plugins_poll(f->p), 0);
    rill_plugins_stats st;
    rill_plugins_get_stats(f->p, &st);
    assert_int_equal(st.shader_errors, 1);
    char where[700];
    snprintf(where, sizeof(where), "%s:3:", glsl);
    if (!strstr(st.last_error, where)) {
        fail_msg("expected '%s' in: %s", where, st.last_error);
    }
    render(f, after);
    assert_memory_equal(after, inverted, sizeof(after));
    /* Polling again without a change does nothing. */
    assert_int_equal(rill_plugins_poll(f->p), 0);
}

static void test_library_hot_reload_and_layout_change(void **state) {
    fixture *f = *state;
    char so[600], src[600];
    snprintf(so, sizeof(so), "%s/test_fx.so", f->tmp);
    snprintf(src, sizeof(src), "%s/test_fx_v1.so", RILL_TEST_PLUGIN_DIR);
    copy_file(src, so);
    rill_error err = {0};
    if (rill_plugins_load(f->p, so, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    static uint8_t v1[W * H * 4], v2[W * H * 4], v3[W * H * 4];
    render(f, v1);
    /* Variant 2 replaces the file: same settings layout, another shader. */
    snprintf(src, sizeof(src), "%s/test_fx_v2.so", RILL_TEST_PLUGIN_DIR);
    copy_file(src, so);
    bump_mtime(so, 2);
    assert_int_equal(rill_plugins_poll(f->p), 1);
    assert_int_equal(registry_count(f->r, "TestFx"), 1); /* unregistered, registered again */
    render(f, v2);
    assert_true(mean_abs_diff(v1, v2) > 20.0);
    rill_plugin_info pi;
    assert_true(rill_plugins_get(f->p, 0, &pi));
    assert_string_equal(pi.version, "1.2");
    /* Variant 3 changes the settings layout: refused, variant 2 kept. */
    snprintf(src, sizeof(src), "%s/test_fx_v3.so", RILL_TEST_PLUGIN_DIR);
    copy_file(src, so);
    bump_mtime(so, 4);
    assert_int_equal(rill_plugins_poll(f->p), 0);
    rill_plugins_stats st;
    rill_plugins_get_stats(f->p, &st);
    assert_int_equal(st.refused, 1);
    assert_non_null(strstr(st.last_error, "settings layout changed"));
    assert_non_null(strstr(st.last_error, "TestFx"));
    render(f, v3);
    assert_memory_equal(v2, v3, sizeof(v2));
    assert_true(rill_plugins_get(f->p, 0, &pi));
    assert_string_equal(pi.version, "1.2");
}

/* A registered engine-side effect: an empty side-effect pass writing the phase's colour. */
static void marker_exec(rill_rg_ctx *ctx, void *user) {
    (void)ctx;
    (void)user;
}

static rill_result add_marker(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_rg_pass_desc d = {.label = ctx->id, .exec = marker_exec, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(ctx->graph, &d, err);
    return rill_rg_use_image(ctx->graph, p, ctx->color, RILL_RG_USAGE_STORAGE_WRITE, err);
}

/* Renders the world's primary camera (extract: routing) with the two cubes and the sun. */
static void render_world(fixture *f, rill_world *w, const rill_render_components *comps,
                         rill_render_extract_buf *buf, uint8_t *px) {
    rill_render_snapshot s;
    rill_error err = {0};
    if (rill_render_extract(w, comps, buf, &s, &err) != RILL_OK) {
        fail_msg("extract: %s", err.msg);
    }
    rill_render_instance inst[2];
    render_test_place(&inst[0], 1, f->cube, f->red, (float[3]){-0.8f, 0, -4}, 1.0f, 0.0f);
    render_test_place(&inst[1], 2, f->cube, f->green, (float[3]){0.9f, 0.3f, -5}, 1.0f, 0.0f);
    s.view_count = 0; /* the primary view alone */
    s.instances = inst;
    s.instance_count = 2;
    s.has_sun = true;
    s.sun.direction[0] = -0.4f, s.sun.direction[1] = -0.8f, s.sun.direction[2] = -0.45f;
    s.sun.color[0] = s.sun.color[1] = s.sun.color[2] = 1.0f;
    s.sun.illuminance = 3.0f;
    if (rill_renderer_render(f->r, &s, &err) != RILL_OK) {
        fail_msg("render: %s", err.msg);
    }
    if (rill_renderer_read_pixels(f->r, px, W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
}

/* The pass labels of the compiled graph in execution order must contain want[] in this order. */
static void assert_graph_order(rill_renderer *r, const char *const *want, int n) {
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(r, &sb);
    const char *at = sb.data;
    for (int i = 0; i < n; i++) {
        char needle[64];
        snprintf(needle, sizeof(needle), " %s", want[i]);
        const char *hit = strstr(at, needle);
        if (!hit) {
            fail_msg("'%s' missing or out of order in:\n%s", want[i], sb.data);
        }
        at = hit + strlen(needle);
    }
    rill_strbuf_free(&sb);
}

/* Plugin effects are entries of the renderer's composition registry: their settings are routed
 * settings components (camera first, then other sources), absent settings add no pass (graph
 * dump), and engine-side and plugin passes interleave by order within a phase. Removing a source
 * removes the pass the same frame. */
static void test_registry_routing_and_order(void **state) {
    fixture *f = *state;
    rill_plugins_destroy(f->p);
    rill_world *w = rill_world_create(NULL, NULL);
    assert_non_null(w);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    /* A world without components is refused (its settings would never be routed). */
    assert_null(rill_plugins_create(&(rill_plugins_desc){.renderer = f->r, .world = w}, &err));
    f->p = rill_plugins_create(
        &(rill_plugins_desc){.renderer = f->r, .world = w, .components = &comps}, &err);
    assert_non_null(f->p);
    const char *names[] = {"vignette", "sepia"}; /* orders 200 and 100, loaded out of order */
    for (int i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.so", RILL_PLUGIN_DIR, names[i]);
        if (rill_plugins_load(f->p, path, &err) != RILL_OK) {
            fail_msg("%s", err.msg);
        }
    }
    /* Engine-side effects of the same phase around and between them. */
    static const struct {
        const char *id;
        int32_t order;
    } marks[3] = {{"mark_50", 50}, {"mark_150", 150}, {"mark_250", 250}};
    for (int i = 0; i < 3; i++) {
        rill_render_effect_desc d = {.id = marks[i].id,
                                     .phase = RILL_RENDER_PHASE_LDR_POST,
                                     .order = marks[i].order,
                                     .add = add_marker};
        assert_true(rill_render_effect_register(f->r, &d, &err) != 0);
    }
    assert_int_equal(registry_count(f->r, "Sepia"), 1);
    rill_component sepia = rill_world_find_component(w, "Sepia");
    rill_component vig = rill_world_find_component(w, "Vignette");
    assert_true(sepia.id && vig.id);
    const rill_builtins *b = rill_world_builtin(w);
    rill_entity cam = rill_world_spawn(w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(w, b->camera), &c);
    c.active = true;
    c.fov_y = 0.9f;
    assert_non_null(rill_world_add(w, cam, b->camera, &c));
    assert_non_null(rill_world_add(w, cam, b->transform, NULL));
    assert_non_null(rill_world_add(w, cam, b->global_transform, NULL));
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));

    static uint8_t none[W * H * 4], px[W * H * 4], again[W * H * 4];
    render_world(f, w, &comps, &buf, none);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    assert_null(strstr(sb.data, "plugin:")); /* absent settings: no pass */
    assert_non_null(strstr(sb.data, "mark_150"));
    rill_strbuf_free(&sb);
    rill_plugin_effect_info ei;
    assert_true(rill_plugins_effect_get(f->p, 0, &ei));
    assert_false(ei.active);

    /* Sepia on a "world environment" entity, Vignette on the camera: both reach the camera. */
    rill_entity env = rill_world_spawn(w);
    float sepia_settings[4] = {1.0f, 0, 0, 0};
    assert_non_null(rill_world_add(w, env, sepia, sepia_settings));
    assert_non_null(rill_world_add(w, cam, vig, NULL));
    render_world(f, w, &comps, &buf, px);
    assert_true(mean_abs_diff(none, px) > 1.0);
    const char *order[] = {"tonemapping",     "mark_50",  "plugin:Sepia", "mark_150",
                           "plugin:Vignette", "mark_250", "readback"};
    assert_graph_order(f->r, order, 7);
    assert_true(rill_plugins_effect_get(f->p, 0, &ei));
    assert_true(ei.active);

    /* The source goes: the same frame has no Sepia pass and equals Vignette alone. */
    rill_world_remove(w, env, sepia);
    render_world(f, w, &comps, &buf, again);
    rill_renderer_dump_graph(f->r, &sb);
    assert_null(strstr(sb.data, "plugin:Sepia"));
    assert_non_null(strstr(sb.data, "plugin:Vignette"));
    rill_strbuf_free(&sb);
    assert_true(mean_abs_diff(px, again) > 1.0);

    /* Destroying the host takes its effects out of the registry; the markers stay. */
    rill_plugins_destroy(f->p);
    f->p = NULL;
    assert_int_equal(registry_count(f->r, "Sepia"), 0);
    assert_int_equal(registry_count(f->r, "mark_150"), 1);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
    f->p = rill_plugins_create(&(rill_plugins_desc){.renderer = f->r}, &err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shipped_plugins_goldens, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_shipped_plugin_changes_image, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abi_1_0_plugin_still_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_inputs_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abi_mismatch_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_on_first_use, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shader_hot_reload_and_broken_shader, setup, teardown),
        cmocka_unit_test_setup_teardown(test_library_hot_reload_and_layout_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_registry_routing_and_order, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
