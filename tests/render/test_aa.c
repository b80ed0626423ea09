/* test_aa.c: the anti-aliasing effects on lavapipe with validation on: TAA (convergence on a
 * moving scene, no trail, history reset on a reset flag / camera cut / resize), FXAA, SMAA and
 * contrast-adaptive sharpening (goldens plus what each must do to the pixels), and that absent
 * settings add no pass while present ones run in their phase slots (graph dump). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "golden.h"
#include "rill/render.h"
#include "rill/render/effects.h"

#define W 96
#define H 96
#define NPX (W * H * 4)

typedef struct fixture {
    rill_renderer *r;
    rill_rg *graph; /* the frame graph (setup_graph hands it over every frame) */
    rill_mesh cube;
    rill_material white, red;
    rill_render_instance inst[2];
    rill_render_snapshot snap;
    rill_render_routed_settings settings[4];
    rill_render_taa taa;
    rill_render_fxaa fxaa;
    rill_render_smaa smaa;
    rill_render_cas cas;
    uint32_t w, h; /* output size */
} fixture;

static int live_fixtures;

static rill_result grab_graph(const rill_render_graph *fg, void *user, rill_error *err) {
    (void)err;
    ((fixture *)user)->graph = fg->graph;
    return RILL_OK;
}

static rill_material material(fixture *f, float r, float g, float b) {
    return render_test_material(
        f->r,
        (rill_material_desc){.base_color = {r, g, b, 1}, .roughness = 0.6f, .roughness_set = true});
}

static fixture *make(rill_render_quality q, uint32_t w, uint32_t h) {
    fixture *f = rill_calloc(1, sizeof(*f));
    f->r = render_test_renderer((rill_renderer_desc){.width = w,
                                                     .height = h,
                                                     .shadow_map_size = 256,
                                                     .quality = q,
                                                     .setup_graph = grab_graph,
                                                     .setup_graph_user = f});
    assert_non_null(f->r);
    rill_error err = {0};
    f->cube = rill_render_mesh_cube(f->r, &err);
    assert_true(f->cube.id != 0);
    f->white = material(f, 0.9f, 0.9f, 0.85f);
    f->red = material(f, 0.8f, 0.15f, 0.1f);
    f->cas.sharpening_strength = 0.6f;
    f->w = w;
    f->h = h;
    live_fixtures++;
    return f;
}

static void destroy(fixture *f) {
    /* the TAA history and every AA image are freed with the renderer */
    render_test_destroy_clean(f->r, --live_fixtures == 0);
    rill_free(f);
}

/* The scene: a tilted white cube at x = shift in front of a red one, lit by a sun, on a dark
 * background; camera looking down -z, turned by yaw (radians) about y. */
static void scene(fixture *f, float shift, float yaw) {
    memset(&f->snap, 0, sizeof(f->snap));
    mat4 view;
    glm_mat4_identity(view);
    glm_rotate_y(view, yaw, view);
    glm_translate(view, (vec3){0, 0, 4.0f});
    memcpy(f->snap.view.world_from_view, view, sizeof(mat4));
    f->snap.view.fov_y = 0.8f;
    f->snap.view.clear_color[0] = 0.02f;
    f->snap.view.clear_color[1] = 0.03f;
    f->snap.view.clear_color[2] = 0.05f;
    f->snap.has_sun = true;
    f->snap.sun.direction[0] = -0.3f;
    f->snap.sun.direction[1] = -0.5f;
    f->snap.sun.direction[2] = -0.8f;
    f->snap.sun.color[0] = f->snap.sun.color[1] = f->snap.sun.color[2] = 1.0f;
    f->snap.sun.illuminance = 3.0f;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.15f;
    for (int i = 0; i < 2; i++) {
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m, i == 0 ? (vec3){shift, 0, 0} : (vec3){0.3f, 0.5f, -1.5f});
        glm_rotate_z(m, i == 0 ? 0.35f : -0.2f, m);
        glm_rotate_y(m, 0.6f, m);
        glm_scale_uni(m, i == 0 ? 1.1f : 1.6f);
        rill_render_instance *in = &f->inst[i];
        memset(in, 0, sizeof(*in));
        in->id = (uint64_t)i + 1;
        in->mesh = f->cube;
        in->material = i == 0 ? f->white : f->red;
        memcpy(in->transform, m, sizeof(mat4));
    }
    f->snap.instances = f->inst;
    f->snap.instance_count = 2;
}

/* Routes the named settings (taa, fxaa, smaa, cas: any subset) to the view. */
static void route(fixture *f, bool taa, bool fxaa, bool smaa, bool cas) {
    uint32_t n = 0;
    if (taa) {
        f->settings[n++] =
            (rill_render_routed_settings){"TemporalAntiAliasing", &f->taa, sizeof(f->taa), 0};
    }
    if (fxaa) {
        f->settings[n++] = (rill_render_routed_settings){"Fxaa", &f->fxaa, sizeof(f->fxaa), 0};
    }
    if (smaa) {
        f->settings[n++] = (rill_render_routed_settings){"Smaa", &f->smaa, sizeof(f->smaa), 0};
    }
    if (cas) {
        f->settings[n++] =
            (rill_render_routed_settings){"ContrastAdaptiveSharpening", &f->cas, sizeof(f->cas), 0};
    }
    f->snap.view.settings = n ? f->settings : NULL;
    f->snap.view.settings_count = n;
}

static void frame(fixture *f, uint8_t *px) {
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    if (px) {
        if (rill_renderer_read_pixels(f->r, px, (size_t)f->w * f->h * 4, &err) != RILL_OK) {
            fail_msg("read_pixels: %s", err.msg);
        }
    }
}

static void check_golden(const char *name, const uint8_t *px) {
    golden_expect(name, px, W, H);
}

static bool has_pass(const fixture *f, const char *label) {
    return rill_rg_order_of(f->graph, label) >= 0;
}

static int32_t at(const fixture *f, const char *label) {
    return rill_rg_order_of(f->graph, label);
}

/* Pixels that differ from at least one 4-neighbour by more than 8 but from every 4-neighbour by
 * less than `hard`: the in-between values anti-aliasing puts on edges. */
static uint32_t soft_edge_pixels(const uint8_t *px, int hard) {
    uint32_t n = 0;
    for (int y = 1; y < H - 1; y++) {
        for (int x = 1; x < W - 1; x++) {
            const uint8_t *c = px + ((size_t)y * W + x) * 4;
            const uint8_t *nb[4] = {c - 4, c + 4, c - W * 4, c + W * 4};
            int most = 0;
            for (int k = 0; k < 4; k++) {
                int d = abs(c[0] - nb[k][0]) + abs(c[1] - nb[k][1]) + abs(c[2] - nb[k][2]);
                most = d > most ? d : most;
            }
            n += most > 8 && most < hard;
        }
    }
    return n;
}

/* Gradient energy: the sum over 4-neighbour pairs of the squared colour difference. Smoothing a
 * hard step of size d into two steps of d / 2 halves its energy: anti-aliasing lowers it,
 * sharpening raises it. */
static double energy(const uint8_t *px) {
    double e = 0;
    for (int y = 0; y < H - 1; y++) {
        for (int x = 0; x < W - 1; x++) {
            const uint8_t *c = px + ((size_t)y * W + x) * 4;
            for (int k = 0; k < 3; k++) {
                double dx = c[k] - c[k + 4], dy = c[k] - c[k + W * 4];
                e += dx * dx + dy * dy;
            }
        }
    }
    return e;
}

/* Sum of |4 x centre - 4 neighbours| over the image (local contrast). */
static double laplacian(const uint8_t *px) {
    double s = 0;
    for (int y = 1; y < H - 1; y++) {
        for (int x = 1; x < W - 1; x++) {
            const uint8_t *c = px + ((size_t)y * W + x) * 4;
            for (int k = 0; k < 3; k++) {
                s += fabs(4.0 * c[k] - c[k - 4] - c[k + 4] - c[k - W * 4] - c[k + W * 4]);
            }
        }
    }
    return s;
}

static uint32_t differing(const uint8_t *a, const uint8_t *b, size_t n, int tol) {
    uint32_t d = 0;
    for (size_t i = 0; i < n; i += 4) {
        d += abs(a[i] - b[i]) > tol || abs(a[i + 1] - b[i + 1]) > tol ||
             abs(a[i + 2] - b[i + 2]) > tol;
    }
    return d;
}

#define add_marker render_test_add_marker

/* Absent settings: no pass and no image of any AA effect in the compiled graph; present: each
 * runs in its slot (TAA after the main pass and before bloom and tonemapping; FXAA, SMAA and CAS
 * after tonemapping and LDR_POST, before OVERLAY effects, in that order). */
static void test_absent_and_slots(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    rill_error err = {0};
    rill_render_effect_desc ldr = {
        .id = "ldr_marker", .phase = RILL_RENDER_PHASE_LDR_POST, .order = 1000, .add = add_marker};
    rill_render_effect_desc ovl = {.id = "overlay_marker",
                                   .phase = RILL_RENDER_PHASE_OVERLAY,
                                   .order = -1000,
                                   .add = add_marker};
    assert_true(rill_render_effect_register(f->r, &ldr, &err) != 0);
    assert_true(rill_render_effect_register(f->r, &ovl, &err) != 0);
    scene(f, 0, 0);
    frame(f, NULL);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    assert_null(strstr(sb.data, "taa"));
    assert_null(strstr(sb.data, "fxaa"));
    assert_null(strstr(sb.data, "smaa"));
    assert_false(has_pass(f, "cas"));
    rill_strbuf_free(&sb);
    for (uint32_t i = 0; i < rill_render_effect_count(f->r); i++) {
        rill_render_effect_info info;
        assert_true(rill_render_effect_get(f->r, i, &info));
        if (strcmp(info.id, "taa") == 0 || strcmp(info.id, "cas") == 0) {
            assert_false(info.ran_last_frame);
        }
    }

    scene(f, 0, 0);
    f->snap.view.bloom.enabled = true;
    route(f, true, true, true, true);
    frame(f, NULL);
    const char *passes[] = {"taa",        "fxaa", "smaa_edges", "smaa_weights",
                            "smaa_blend", "cas",  "ldr_marker", "overlay_marker"};
    for (int i = 0; i < 8; i++) {
        if (!has_pass(f, passes[i])) {
            fail_msg("pass %s missing", passes[i]);
        }
    }
    int32_t tm = at(f, RILL_RG_TONEMAPPING);
    assert_true(at(f, "opaque") < at(f, "taa"));
    assert_true(at(f, "taa") < at(f, "bloom_down0"));
    assert_true(at(f, "taa") < tm);
    assert_true(tm < at(f, "ldr_marker"));
    assert_true(at(f, "ldr_marker") < at(f, "fxaa"));
    assert_true(at(f, "fxaa") < at(f, "smaa_edges"));
    assert_true(at(f, "smaa_blend") < at(f, "cas"));
    assert_true(at(f, "cas") < at(f, "overlay_marker"));
    for (uint32_t i = 0; i < rill_render_effect_count(f->r); i++) {
        rill_render_effect_info info;
        assert_true(rill_render_effect_get(f->r, i, &info));
        if (strcmp(info.id, "taa") == 0 || strcmp(info.id, "cas") == 0) {
            assert_true(info.ran_last_frame);
        }
    }
    destroy(f);
}

/* TAA is off at the Low tier (NOTES §9), on at Medium; the LDR filters ignore the tier. */
static void test_taa_tier(void **state) {
    (void)state;
    for (int q = 0; q < 2; q++) {
        fixture *f = make(q ? RILL_RENDER_QUALITY_MEDIUM : RILL_RENDER_QUALITY_LOW, W, H);
        scene(f, 0, 0);
        route(f, true, true, false, false);
        frame(f, NULL);
        assert_int_equal(has_pass(f, "taa"), q == 1);
        assert_true(has_pass(f, "fxaa"));
        destroy(f);
    }
}

/* FXAA and SMAA: goldens; jaggy steps turn into in-between values, flat areas stay untouched. */
static void test_fxaa_smaa(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    static uint8_t none[NPX], fx[NPX], sm[NPX];
    scene(f, 0, 0);
    frame(f, none);
    route(f, false, true, false, false);
    frame(f, fx);
    check_golden("aa_fxaa", fx);
    route(f, false, false, true, false);
    frame(f, sm);
    check_golden("aa_smaa", sm);
    uint32_t soft0 = soft_edge_pixels(none, 120), soft_fx = soft_edge_pixels(fx, 120);
    uint32_t soft_sm = soft_edge_pixels(sm, 120);
    double e0 = energy(none), e_fx = energy(fx), e_sm = energy(sm);
    print_message(
        "none soft %u energy %.0f | fxaa soft %u energy %.0f | smaa soft %u energy %.0f\n", soft0,
        e0, soft_fx, e_fx, soft_sm, e_sm);
    assert_true(e_fx < 0.8 * e0);
    assert_true(e_sm < 0.8 * e0);
    assert_true(soft_fx > soft0);
    assert_true(soft_sm > soft0);
    /* both only touch edges: most of the image is unchanged */
    assert_true(differing(none, fx, NPX, 2) < W * H / 5);
    assert_true(differing(none, sm, NPX, 2) < W * H / 5);
    destroy(f);
}

/* CAS (after FXAA, whose softened edges give it something to restore): golden at the default
 * strength; local contrast grows with the strength (strength 0 is still a mild sharpening) and
 * never past the neighbourhood (no rims: energy stays below the unfiltered frame's); denoise
 * holds some back. */
static void test_cas(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    static uint8_t none[NPX], soft[NPX], mild[NPX], def[NPX], full[NPX], dn[NPX];
    scene(f, 0, 0);
    frame(f, none);
    route(f, false, true, false, false);
    frame(f, soft);
    route(f, false, true, false, true);
    f->cas.sharpening_strength = 0.0f;
    frame(f, mild);
    f->cas.sharpening_strength = 0.6f;
    frame(f, def);
    check_golden("aa_cas", def);
    f->cas.sharpening_strength = 1.0f;
    frame(f, full);
    f->cas.denoise = true;
    frame(f, dn);
    double l0 = laplacian(soft), l1 = laplacian(mild), l2 = laplacian(def), l3 = laplacian(full);
    double l4 = laplacian(dn);
    print_message("laplacian fxaa %.0f +cas s0 %.0f s0.6 %.0f s1 %.0f s1+denoise %.0f\n", l0, l1,
                  l2, l3, l4);
    assert_true(l1 > l0);
    assert_true(l2 > l1);
    assert_true(l3 > l2);
    assert_true(l4 < l3);
    assert_true(energy(full) < energy(none));
    destroy(f);
}

/* TAA on a moving scene: the white cube slides right 16 frames; the last frame (golden) has soft
 * edges where the plain frame has jaggies, and no trail where the cube was; then it stops and the
 * result settles (no frame-to-frame flicker from the jitter). */
static void test_taa_moving(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    static uint8_t plain[NPX], taa[NPX];
    const int frames = 16;
    const float speed = 0.02f;
    float last = -0.3f + speed * (float)(frames - 1);
    scene(f, last, 0);
    frame(f, plain);
    for (int i = 0; i < frames; i++) {
        scene(f, -0.3f + speed * (float)i, 0);
        route(f, true, false, false, false);
        frame(f, i + 1 == frames ? taa : NULL);
    }
    check_golden("aa_taa_moving", taa);
    double e0 = energy(plain), e1 = energy(taa);
    uint32_t soft0 = soft_edge_pixels(plain, 120), soft1 = soft_edge_pixels(taa, 120);
    print_message("plain soft %u energy %.0f | taa soft %u energy %.0f\n", soft0, e0, soft1, e1);
    assert_true(e1 < 0.8 * e0);
    assert_true(soft1 > soft0);
    /* No trail: away from the cube's edges the TAA frame matches the plain one. */
    uint32_t off = differing(plain, taa, NPX, 24);
    print_message("pixels off by > 24: %u\n", off);
    assert_true(off < W * H / 25);
    /* Converged: once the cube stops, the jittered frames settle (a plain jittered frame moves
     * every edge pixel by up to the full step; here no pixel changes by more than 24). */
    static uint8_t a[NPX], b[NPX];
    for (int i = 0; i < 24; i++) {
        frame(f, i == 22 ? a : (i == 23 ? b : NULL));
    }
    uint32_t flicker = differing(a, b, NPX, 24);
    print_message("still: pixels changing by > 24 between frames: %u\n", flicker);
    assert_int_equal(flicker, 0);
    /* ... while the projection really is jittered: a frame without history is not the plain one */
    f->taa.reset = true;
    frame(f, a);
    assert_true(differing(a, plain, NPX, 24) > 20);
    destroy(f);
}

/* TAA history restarts: a frame with `reset`, a camera cut (90 degree turn), a resize and a
 * render-scale change each give exactly the first frame of a fresh renderer (no history, the jitter
 * sequence restarted); without them the history shows (the frame differs). */
static void test_taa_reset(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    fixture *fresh = make(RILL_RENDER_QUALITY_HIGH, W, H);
    static uint8_t a[NPX], b[NPX];
    scene(fresh, 0, 0);
    route(fresh, true, false, false, false);
    frame(fresh, b);
    for (int i = 0; i < 6; i++) {
        scene(f, 0, 0);
        route(f, true, false, false, false);
        frame(f, a);
    }
    assert_true(differing(a, b, NPX, 0) > 0); /* accumulated history differs from frame 1 */
    f->taa.reset = true;
    frame(f, a);
    f->taa.reset = false;
    assert_int_equal(differing(a, b, NPX, 0), 0);
    /* a camera cut */
    frame(f, a);
    frame(f, a);
    scene(f, 0, 1.5707964f);
    route(f, true, false, false, false);
    frame(f, a);
    destroy(fresh);
    fresh = make(RILL_RENDER_QUALITY_HIGH, W, H);
    scene(fresh, 0, 1.5707964f);
    route(fresh, true, false, false, false);
    frame(fresh, b);
    assert_int_equal(differing(a, b, NPX, 0), 0);
    destroy(fresh);
    /* a resize */
    rill_error err = {0};
    scene(f, 0, 0);
    route(f, true, false, false, false);
    frame(f, NULL);
    assert_int_equal(rill_renderer_resize(f->r, W / 2, H / 2, &err), RILL_OK);
    f->w = W / 2;
    f->h = H / 2;
    frame(f, a);
    fresh = make(RILL_RENDER_QUALITY_HIGH, W / 2, H / 2);
    scene(fresh, 0, 0);
    route(fresh, true, false, false, false);
    frame(fresh, b);
    assert_int_equal(differing(a, b, (size_t)(W / 2) * (H / 2) * 4, 0), 0);
    destroy(fresh);
    /* a render-scale change: the history follows the 3D size (half of the output here) */
    frame(f, NULL);
    rill_renderer_set_render_scale(f->r, 0.5f);
    frame(f, a);
    fresh = make(RILL_RENDER_QUALITY_HIGH, W / 2, H / 2);
    rill_renderer_set_render_scale(fresh->r, 0.5f);
    scene(fresh, 0, 0);
    route(fresh, true, false, false, false);
    frame(fresh, b);
    assert_int_equal(differing(a, b, (size_t)(W / 2) * (H / 2) * 4, 0), 0);
    frame(f, a); /* and it accumulates again at that size */
    assert_true(differing(a, b, (size_t)(W / 2) * (H / 2) * 4, 0) > 0);
    destroy(fresh);
    destroy(f);
}

/* The history's GPU memory is given back once TAA has been off for 60 frames, and taken again
 * when it comes back. */
static void test_taa_history_freed(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    rill_render_stats st;
    scene(f, 0, 0);
    frame(f, NULL);
    frame(f, NULL);
    rill_renderer_stats(f->r, &st);
    uint64_t without = st.gpu_memory_used_bytes;
    route(f, true, false, false, false);
    frame(f, NULL);
    rill_renderer_stats(f->r, &st);
    uint64_t with = st.gpu_memory_used_bytes;
    assert_true(with >= without + 2ull * W * H * 8); /* two RGBA16F history images */
    route(f, false, false, false, false);
    for (int i = 0; i < 64; i++) {
        frame(f, NULL);
    }
    assert_int_equal(rill_renderer_wait_idle(f->r, NULL), RILL_OK);
    frame(f, NULL);
    frame(f, NULL);
    frame(f, NULL);
    rill_renderer_stats(f->r, &st);
    print_message("gpu used: %llu without TAA, %llu with, %llu after 60 frames off\n",
                  (unsigned long long)without, (unsigned long long)with,
                  (unsigned long long)st.gpu_memory_used_bytes);
    assert_true(st.gpu_memory_used_bytes + 2ull * W * H * 8 <= with);
    route(f, true, false, false, false);
    frame(f, NULL);
    rill_renderer_stats(f->r, &st);
    assert_true(st.gpu_memory_used_bytes >= without + 2ull * W * H * 8);
    destroy(f);
}

/* A mixed-passthrough camera's alpha (0 where no geometry is) survives TAA: resolved like the
 * colour, so it matches the frame without TAA away from the edges (and the filters keep it). */
static void test_taa_keeps_alpha(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    static uint8_t plain[NPX], taa[NPX];
    scene(f, 0, 0);
    f->snap.view.passthrough = RILL_PASSTHROUGH_MIXED;
    frame(f, plain);
    for (int i = 0; i < 8; i++) {
        scene(f, 0, 0);
        f->snap.view.passthrough = RILL_PASSTHROUGH_MIXED;
        route(f, true, true, true, true);
        frame(f, taa);
    }
    uint32_t clear = 0, off = 0;
    for (size_t i = 3; i < NPX; i += 4) {
        clear += taa[i] == 0;
        off += abs(taa[i] - plain[i]) > 24;
    }
    print_message("alpha: %u pixels clear, %u off by > 24 from the plain frame\n", clear, off);
    assert_true(clear > W * H / 4);
    assert_true(off < W * H / 25);
    destroy(f);
}

/* Settings as hostile input: out-of-range enums, a NaN or huge strength, and a routed payload
 * shorter than the struct (another type registered under the same name) all render with the
 * defaults (FXAA High, SMAA High, CAS clamped), no validation message. */
static void test_hostile_settings(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH, W, H);
    static uint8_t good[NPX], bad[NPX];
    scene(f, 0, 0);
    route(f, false, true, true, false);
    frame(f, good);
    f->fxaa.edge_threshold = (rill_fxaa_sensitivity)99;
    f->fxaa.edge_threshold_min = (rill_fxaa_sensitivity)-7;
    f->smaa.preset = (rill_smaa_preset)1000;
    frame(f, bad);
    assert_int_equal(differing(good, bad, NPX, 0), 0);
    route(f, false, false, false, true);
    f->cas.sharpening_strength = 1.0f;
    frame(f, good);
    f->cas.sharpening_strength = 1e30f;
    frame(f, bad);
    assert_int_equal(differing(good, bad, NPX, 0), 0);
    f->cas.sharpening_strength = 0.0f;
    frame(f, good);
    f->cas.sharpening_strength = NAN;
    frame(f, bad);
    assert_int_equal(differing(good, bad, NPX, 0), 0);
    /* one byte of "Smaa": defaults; still a pass */
    uint8_t tiny = 0xff;
    rill_render_routed_settings rs = {"Smaa", &tiny, 1, 0};
    f->snap.view.settings = &rs;
    f->snap.view.settings_count = 1;
    frame(f, bad);
    assert_true(has_pass(f, "smaa_blend"));
    route(f, false, false, true, false);
    f->smaa.preset = RILL_SMAA_HIGH;
    frame(f, good);
    assert_int_equal(differing(good, bad, NPX, 0), 0);
    destroy(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absent_and_slots),  cmocka_unit_test(test_taa_tier),
        cmocka_unit_test(test_fxaa_smaa),         cmocka_unit_test(test_cas),
        cmocka_unit_test(test_taa_moving),        cmocka_unit_test(test_taa_reset),
        cmocka_unit_test(test_taa_history_freed), cmocka_unit_test(test_taa_keeps_alpha),
        cmocka_unit_test(test_hostile_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
