/* Composition registry and settings routing (rill/render/effects.h), on lavapipe: phase ordering
 * of engine and registered effects, absent settings add no pass (graph dump), routing (camera
 * first, then other sources by entity id; removal the same frame), the tier ceiling. */
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/scene.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "render_test.h"

typedef struct fixture {
    rill_renderer *r;
    rill_rg *graph; /* the frame graph (setup_graph hands it over every frame) */
} fixture;

static rill_result grab_graph(const rill_render_graph *fg, void *user, rill_error *err) {
    (void)err;
    ((fixture *)user)->graph = fg->graph;
    return RILL_OK;
}

static fixture *make(rill_render_quality q) {
    fixture *f = rill_calloc(1, sizeof(*f));
    f->r = render_test_renderer((rill_renderer_desc){.width = 64,
                                                     .height = 64,
                                                     .shadow_map_size = 256,
                                                     .quality = q,
                                                     .setup_graph = grab_graph,
                                                     .setup_graph_user = f});
    assert_non_null(f->r);
    return f;
}

static void destroy(fixture *f) {
    render_test_destroy_clean(f->r, false);
    rill_free(f);
}

static void render(fixture *f, const rill_render_view *v) {
    rill_render_snapshot s;
    memset(&s, 0, sizeof(s));
    s.view = *v;
    s.view.world_from_view[0] = s.view.world_from_view[5] = s.view.world_from_view[10] = 1.0f;
    s.view.world_from_view[15] = 1.0f;
    s.view.world_from_view[14] = 5.0f;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &s, &err), RILL_OK);
}

static bool has_pass(const fixture *f, const char *label) {
    return rill_rg_order_of(f->graph, label) >= 0;
}

/* Absent settings: no pass in the compiled graph dump; present: the passes are there. */
static void test_absent_adds_no_pass(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH);
    rill_render_view v;
    memset(&v, 0, sizeof(v));
    render(f, &v);
    rill_strbuf sb = {0};
    rill_rg_dump(f->graph, &sb);
    assert_null(strstr(sb.data, "ssao"));
    assert_null(strstr(sb.data, "bloom"));
    assert_null(strstr(sb.data, "auto_exposure"));
    rill_strbuf_free(&sb);
    v.ssao.enabled = v.bloom.enabled = v.auto_exposure.enabled = true;
    render(f, &v);
    assert_true(has_pass(f, "ssao") && has_pass(f, "bloom_down0") && has_pass(f, "auto_exposure"));
    destroy(f);
}

/* The tier ceiling only switches effects off: Low drops all three, Medium drops SSAO. */
static void test_tier_ceiling(void **state) {
    (void)state;
    static const rill_render_quality tiers[3] = {
        RILL_RENDER_QUALITY_LOW, RILL_RENDER_QUALITY_MEDIUM, RILL_RENDER_QUALITY_HIGH};
    for (int i = 0; i < 3; i++) {
        fixture *f = make(tiers[i]);
        rill_render_view v;
        memset(&v, 0, sizeof(v));
        v.ssao.enabled = v.bloom.enabled = v.auto_exposure.enabled = true;
        render(f, &v);
        assert_int_equal(has_pass(f, "ssao"), i == 2);
        assert_int_equal(has_pass(f, "bloom_down0"), i >= 1);
        assert_int_equal(has_pass(f, "auto_exposure"), i >= 1);
        destroy(f);
    }
}

/* The tier is a ceiling changed at runtime: with Ssao, Bloom and AutoExposure on a "world
 * environment" entity, Low drops their passes while the sources and the routed copies stay;
 * raising it back restores every pass. The shadow map follows the tier (512/1024/2048) unless the
 * desc gave a size. */
static void test_tier_runtime_ceiling_and_restore(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH); /* shadow_map_size 256 given: stays */
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    render_test_world_camera(w, NULL);
    rill_entity env = rill_world_spawn(w);
    assert_non_null(rill_world_add(w, env, comps.ssao, NULL));
    assert_non_null(rill_world_add(w, env, comps.bloom, NULL));
    assert_non_null(rill_world_add(w, env, comps.auto_exposure, NULL));
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    static const rill_render_quality seq[4] = {RILL_RENDER_QUALITY_HIGH, RILL_RENDER_QUALITY_LOW,
                                               RILL_RENDER_QUALITY_MEDIUM,
                                               RILL_RENDER_QUALITY_HIGH};
    for (int i = 0; i < 4; i++) {
        rill_renderer_set_quality(f->r, seq[i]);
        rill_render_snapshot s;
        assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
        s.view_count = 0;
        s.view.world_from_view[14] = 5.0f;
        assert_int_equal(rill_renderer_render(f->r, &s, &err), RILL_OK);
        bool high = seq[i] == RILL_RENDER_QUALITY_HIGH, low = seq[i] == RILL_RENDER_QUALITY_LOW;
        assert_int_equal(has_pass(f, "ssao"), high);
        assert_int_equal(has_pass(f, "bloom_down0"), !low);
        assert_int_equal(has_pass(f, "auto_exposure"), !low);
        /* The ceiling never touches the settings: sources and routed copies are all there. */
        assert_true(rill_world_has(w, env, comps.bloom) && rill_world_has(w, env, comps.ssao));
        assert_non_null(rill_render_view_settings(&s.view, "Ssao", NULL));
        assert_non_null(rill_render_view_settings(&s.view, "Bloom", NULL));
        rill_renderer_settings rs;
        rill_renderer_get_settings(f->r, &rs);
        assert_int_equal(rs.quality, seq[i]);
        assert_int_equal(rs.shadow_map_size, 256);
    }
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
    destroy(f);
    /* Without a given size the shadow map follows the tier. */
    rill_renderer_desc d = rill_renderer_query_defaults();
    d.width = d.height = 16;
    d.validation = 1;
    rill_renderer *r = NULL;
    assert_non_null(r = rill_renderer_create(&d, &err));
    static const uint32_t sizes[4] = {2048, 512, 1024, 2048};
    for (int i = 0; i < 4; i++) {
        rill_renderer_set_quality(r, seq[i]);
        rill_renderer_settings rs;
        rill_renderer_get_settings(r, &rs);
        assert_int_equal(rs.shadow_map_size, sizes[i]);
    }
    rill_renderer_destroy(r);
}

/* render_scale is a fraction of the logical window in [0.1, 2], applied as at most the output's
 * size (headless: display scale 1, so 2.0 draws at 1.0); the LDR output stays full size. */
static void test_render_scale_range(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_LOW);
    static const float asked[5] = {0.5f, 2.0f, 3.0f, 0.01f, 0.0f};
    static const float want[5] = {0.5f, 2.0f, 2.0f, 0.1f, 1.0f};
    static const float applied[5] = {0.5f, 1.0f, 1.0f, 0.1f, 1.0f};
    for (int i = 0; i < 5; i++) {
        rill_renderer_set_render_scale(f->r, asked[i]);
        rill_renderer_settings rs;
        rill_renderer_get_settings(f->r, &rs);
        assert_float_equal(rs.render_scale, want[i], 1e-6);
        assert_float_equal(rs.render_scale_applied, applied[i], 1e-6);
        assert_float_equal(rs.display_scale, 1.0f, 0.0);
        rill_render_view v;
        memset(&v, 0, sizeof(v));
        render(f, &v);
        int32_t hdr = rill_rg_resource_find(f->graph, "hdr");
        int32_t ldr = rill_rg_resource_find(f->graph, "ldr");
        rill_rg_image_desc hd, ld;
        rill_rg_resource_image_desc(f->graph, (uint32_t)hdr, &hd);
        rill_rg_resource_image_desc(f->graph, (uint32_t)ldr, &ld);
        assert_float_equal(hd.scale, applied[i], 1e-6);
        assert_float_equal(ld.scale, 1.0f, 0.0);
    }
    destroy(f);
}

#define add_marker render_test_add_marker

static uint32_t reg(fixture *f, const char *id, rill_render_phase ph, int32_t order,
                    const char *settings) {
    rill_error err = {0};
    rill_render_effect_desc d = {
        .id = id, .phase = ph, .order = order, .settings = settings, .add = add_marker};
    uint32_t h = rill_render_effect_register(f->r, &d, &err);
    assert_true(h != 0);
    return h;
}

/* Registration order never decides placement: phase, then order, ties by registration. */
static void test_phase_order(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH);
    reg(f, "ldr_b", RILL_RENDER_PHASE_LDR_POST, 5, NULL);
    reg(f, "hdr_late", RILL_RENDER_PHASE_HDR_POST, 300, NULL);
    reg(f, "hdr_mid", RILL_RENDER_PHASE_HDR_POST, 150, NULL);
    reg(f, "ovl", RILL_RENDER_PHASE_OVERLAY, -100, NULL);
    reg(f, "ldr_a", RILL_RENDER_PHASE_LDR_POST, 5, NULL);
    reg(f, "hdr_first", RILL_RENDER_PHASE_HDR_POST, -1, NULL);
    rill_error err = {0};
    rill_render_effect_desc dup = {
        .id = "ldr_a", .phase = RILL_RENDER_PHASE_LDR_POST, .add = add_marker};
    assert_int_equal(rill_render_effect_register(f->r, &dup, &err), 0);
    /* the registry lists them sorted, engine effects interleaved by order; the anti-aliasing
     * anchors (taa, fxaa, smaa, cas) come first in their phase whatever the others' order; the
     * post effects (render/post.h) at their orders, color_grading before hdr_mid (same order,
     * registered first), forward_decal in the GI phase */
    static const char *const want[] = {"ssao",
                                       "forward_decal",
                                       "gi",
                                       "ssr",
                                       "taa",
                                       "hdr_first",
                                       "depth_of_field",
                                       "motion_blur",
                                       "auto_exposure",
                                       "color_grading",
                                       "hdr_mid",
                                       "bloom",
                                       "hdr_late",
                                       "color_grading_lut",
                                       "ldr_b",
                                       "ldr_a",
                                       "fxaa",
                                       "smaa",
                                       "cas",
                                       "ovl"};
    assert_int_equal(rill_render_effect_count(f->r), 20);
    for (uint32_t i = 0; i < 20; i++) {
        rill_render_effect_info info;
        assert_true(rill_render_effect_get(f->r, i, &info));
        assert_string_equal(info.id, want[i]);
    }
    rill_render_view v;
    memset(&v, 0, sizeof(v));
    v.bloom.enabled = v.auto_exposure.enabled = true;
    render(f, &v);
    int32_t first = rill_rg_order_of(f->graph, "hdr_first");
    int32_t tm = rill_rg_order_of(f->graph, RILL_RG_TONEMAPPING);
    assert_true(first >= 0 && tm >= 0);
    assert_true(rill_rg_order_of(f->graph, "opaque") < first);
    assert_true(rill_rg_order_of(f->graph, "hdr_late") < tm);
    assert_true(rill_rg_order_of(f->graph, "ldr_b") > tm);
    assert_true(rill_rg_order_of(f->graph, "ldr_a") > tm);
    assert_true(rill_rg_order_of(f->graph, "ovl") > tm);
    /* unregistering removes the pass from the next frame */
    for (uint32_t i = 0; i < rill_render_effect_count(f->r); i++) {
        rill_render_effect_info info;
        rill_render_effect_get(f->r, i, &info);
        if (strcmp(info.id, "ovl") == 0) {
            rill_render_effect_unregister(f->r, info.handle);
            break;
        }
    }
    render(f, &v);
    assert_false(has_pass(f, "ovl"));
    destroy(f);
}

/* An effect with a settings type runs only for a camera whose routed settings hold it. */
static void test_settings_gate(void **state) {
    (void)state;
    fixture *f = make(RILL_RENDER_QUALITY_HIGH);
    reg(f, "tint", RILL_RENDER_PHASE_LDR_POST, 0, "Tint");
    rill_render_view v;
    memset(&v, 0, sizeof(v));
    render(f, &v);
    assert_false(has_pass(f, "tint"));
    float tint[4] = {1, 0, 0, 1};
    rill_render_routed_settings rs = {"Tint", tint, sizeof(tint), 0};
    v.settings = &rs;
    v.settings_count = 1;
    render(f, &v);
    assert_true(has_pass(f, "tint"));
    destroy(f);
}

/* Routing at extract: the camera's own settings first, else the lowest entity id; removing a
 * source removes the copy at the next extract. */
static void test_routing(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    rill_entity cam = render_test_world_camera(w, NULL);
    rill_entity a = rill_world_spawn(w), z = rill_world_spawn(w);
    rill_render_bloom bl;
    rill_type_apply_defaults(rill_world_component_type(w, comps.bloom), &bl);
    assert_true(bl.enabled);
    assert_true(bl.intensity > 0.149f && bl.intensity < 0.151f);
    bl.intensity = 0.7f;
    assert_non_null(rill_world_add(w, z, comps.bloom, &bl));
    bl.intensity = 0.3f;
    assert_non_null(rill_world_add(w, a, comps.bloom, &bl));

    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_true(s.view.bloom.enabled);
    assert_float_equal(s.view.bloom.intensity, 0.3f, 1e-6); /* a: lower id than z */
    uint32_t size = 0;
    const rill_render_bloom *rb = rill_render_view_settings(&s.view, "Bloom", &size);
    assert_non_null(rb);
    assert_int_equal(size, sizeof(rill_render_bloom));
    assert_false(s.view.ssao.enabled);
    assert_null(rill_render_view_settings(&s.view, "Ssao", NULL));

    bl.intensity = 0.9f; /* the camera's own wins */
    assert_non_null(rill_world_add(w, cam, comps.bloom, &bl));
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_float_equal(s.view.bloom.intensity, 0.9f, 1e-6);
    assert_float_equal(s.views[0].bloom.intensity, 0.9f, 1e-6);

    rill_world_remove(w, cam, comps.bloom);
    rill_world_despawn(w, a); /* same frame: the next source takes over */
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_float_equal(s.view.bloom.intensity, 0.7f, 1e-6);
    rill_world_remove(w, z, comps.bloom);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_false(s.view.bloom.enabled);
    assert_null(rill_render_view_settings(&s.view, "Bloom", NULL));
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

/* Ssao: presets and clamps as a scene writes them. */
static void test_ssao_clamps(void **state) {
    (void)state;
    rill_render_ssao s;
    memset(&s, 0, sizeof(s));
    uint32_t slices, side;
    float th;
    s.quality = RILL_SSAO_CUSTOM;
    s.slice_count = 40;
    s.samples_per_slice_side = 0;
    s.thickness = -3.0f;
    s.thickness_set = true;
    rill_render_ssao_resolve(&s, &slices, &side, &th);
    assert_int_equal(slices, 16);
    assert_int_equal(side, 1);
    assert_float_equal(th, 0.0f, 0.0);
    static const rill_ssao_quality q[4] = {RILL_SSAO_LOW, RILL_SSAO_MEDIUM, RILL_SSAO_HIGH,
                                           RILL_SSAO_ULTRA};
    static const uint32_t samples[4] = {4, 8, 18, 54};
    for (int i = 0; i < 4; i++) {
        memset(&s, 0, sizeof(s));
        s.quality = q[i];
        rill_render_ssao_resolve(&s, &slices, &side, &th);
        assert_int_equal(slices * side * 2, samples[i]);
        assert_float_equal(th, 0.25f, 1e-6);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routing),
        cmocka_unit_test(test_ssao_clamps),
        cmocka_unit_test(test_absent_adds_no_pass),
        cmocka_unit_test(test_tier_ceiling),
        cmocka_unit_test(test_tier_runtime_ceiling_and_restore),
        cmocka_unit_test(test_render_scale_range),
        cmocka_unit_test(test_phase_order),
        cmocka_unit_test(test_settings_gate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
