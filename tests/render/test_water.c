/* test_water.c: PoolWater (rill/render/water.h, src/render/water.c) on lavapipe with validation on,
 * as a user sees it: a white floor seen through the water takes the depth colour, more so under
 * deep water than shallow; the waves move (two frames differ on the water, nowhere else) and the
 * same frame count renders the same picture on another renderer; at a grazing angle the water
 * mirrors the sky more than looking down; hostile values render as their clamped values; the
 * component reaches the snapshot through extract; a view with a pool and the sea copies its lit
 * image once for both.
 * RILL_WATER_PNG_DIR=dir writes each frame a test reads, to look at. */
#define WATER_PNG_ENV "RILL_WATER_PNG_DIR"
#include "water_fixture.h"

/* A 10 x depth x 10 m pool whose surface is at y = top, with the default PoolWater. */
static void add_pool(fixture *f, float top, float depth) {
    memset(&f->box, 0, sizeof(f->box));
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){0, top - 0.5f * depth, 0});
    glm_scale(m, (vec3){10, depth, 10});
    memcpy(f->box.world_from_box, m, sizeof(m));
    f->box.water = rill_render_pool_water_query_defaults();
    f->snap.water = &f->box;
    f->snap.water_count = 1;
}

/* A white floor (its top at y = -depth) under a 10 x depth x 10 m pool whose surface is y = 0,
 * seen from eye toward the pool's middle under a noon sun. water: with the pool. */
static void scene(fixture *f, const float eye[3], float depth, bool water) {
    look(f, eye, (float[3]){0, 0, 0}, 0.6f, 500.0f);
    sky_light(f, 3.0f, 0.3f, 0.0f, (float[3]){0.2f, 0.22f, 0.26f});
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){0, -depth - 0.5f, 0});
    glm_scale(m, (vec3){40, 1, 40});
    memset(&f->floor, 0, sizeof(f->floor));
    f->floor.id = 1;
    f->floor.mesh = f->cube;
    f->floor.material = f->white;
    memcpy(f->floor.transform, m, sizeof(m));
    f->snap.instances = &f->floor;
    f->snap.instance_count = 1;
    if (water) {
        add_pool(f, 0.0f, depth);
    }
}

/* The floor seen through the water takes the depth colour (red goes first), more under deep water
 * than shallow; without water it is white-grey. */
static void test_depth_tint(void **state) {
    fixture *f = *state;
    const float eye[3] = {0, 8, 6};
    double dry[3], c[2][3];
    scene(f, eye, 0.5f, false);
    render(f, f->r, 3, "dry");
    mean_at(f->px, W / 2, H / 2, dry);
    const float depth[2] = {0.5f, 4.0f};
    for (int i = 0; i < 2; i++) {
        scene(f, eye, depth[i], true);
        render(f, f->r, 3, i ? "deep" : "shallow");
        if (i == 1) {
            golden_expect("pool_water_deep", f->px, W, H);
        }
        mean_at(f->px, W / 2, H / 2, c[i]);
    }
    print_message("floor: dry %.0f %.0f %.0f, under 0.5 m %.0f %.0f %.0f, under 4 m %.0f %.0f "
                  "%.0f\n",
                  dry[0], dry[1], dry[2], c[0][0], c[0][1], c[0][2], c[1][0], c[1][1], c[1][2]);
    assert_true(c[0][2] > c[0][0] + 5.0); /* tinted: blue over red */
    assert_true(c[0][0] < dry[0] - 10.0);
    assert_true(sum3(c[1]) < sum3(c[0]) - 20.0); /* deeper, darker */
    assert_true(c[1][2] > c[1][0]);
}

/* The waves move: two frames differ on the water and nowhere else; the same number of frames
 * gives the same picture on a fresh renderer. */
static void test_waves_move_deterministic(void **state) {
    fixture *f = *state;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene(f, (float[3]){0, 3, 9}, 2.0f, true);
    f->box.water.wave_height = 0.3f;
    rill_renderer *r2 = make_renderer(RILL_RENDER_QUALITY_LOW);
    assert_non_null(r2);
    rill_error err = {0};
    /* The other renderer has its own cube and material: same ids, as the first's were made
     * first too. */
    assert_true(rill_render_mesh_cube(r2, &err).id == f->cube.id);
    assert_true(render_test_material(r2, (rill_material_desc){.base_color = {1, 1, 1, 1}}).id ==
                f->white.id);
    /* Both renderers at the same frame count. */
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    uint64_t done = st.frame_index;
    for (uint64_t i = 0; i < done; i++) {
        assert_int_equal(rill_renderer_render(r2, &f->snap, &err), RILL_OK);
    }
    render(f, f->r, 2, "waves_a");
    memcpy(a, f->px, sizeof(a));
    render(f, r2, 2, "waves_other");
    memcpy(b, f->px, sizeof(b));
    assert_memory_equal(a, b, sizeof(a));
    render(f, f->r, 3, "waves_b");
    int water_changed = 0, sky_changed = 0;
    for (int i = 0; i < W * H; i++) {
        bool diff = memcmp(&a[i * 4], &f->px[i * 4], 3) != 0;
        if (diff && i / W >= H / 2) {
            water_changed++;
        } else if (diff && i / W < H / 8) {
            sky_changed++;
        }
    }
    print_message("waves: %d pixels of the lower half changed, %d of the top rows\n", water_changed,
                  sky_changed);
    assert_true(water_changed > W * H / 8);
    assert_int_equal(sky_changed, 0);
    render_test_destroy_clean(r2, false);
}

/* At a grazing angle the water mirrors the sky (Fresnel): through clear water a white floor looks
 * nearly as it does dry when seen from above, and much less so at a grazing angle, where the
 * reflection of the (darker) sky takes over. */
static void test_fresnel(void **state) {
    fixture *f = *state;
    double change[2];
    const float eyes[2][3] = {{0, 10, 1}, {0, 0.6f, 9}};
    for (int i = 0; i < 2; i++) {
        double wet[3], dry[3];
        scene(f, eyes[i], 3.0f, true);
        f->box.water.clarity = 1000.0f; /* clear: the floor shows through */
        f->box.water.wave_height = 0.0f;
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m, (vec3){0, -3.5f, 0});
        glm_scale(m, (vec3){400, 1, 400});
        memcpy(f->floor.transform, m, sizeof(m));
        render(f, f->r, 3, i ? "grazing_wet" : "down_wet");
        mean_at(f->px, W / 2, H / 2, wet);
        f->snap.water_count = 0;
        render(f, f->r, 3, i ? "grazing_dry" : "down_dry");
        mean_at(f->px, W / 2, H / 2, dry);
        change[i] = fabs(sum3(wet) - sum3(dry));
        print_message("%s: wet %.0f %.0f %.0f, dry %.0f %.0f %.0f\n", i ? "grazing" : "down",
                      wet[0], wet[1], wet[2], dry[0], dry[1], dry[2]);
    }
    assert_true(change[1] > change[0] * 3.0 + 30.0);
}

/* Hostile values render as their clamped values: NaN clarity is 3, a negative wave height 0, a
 * zero wind direction (1, 0), a depth colour above 1 is 1; a degenerate matrix drops the box. */
static void test_hostile_clamp(void **state) {
    fixture *f = *state;
    static uint8_t want[W * H * 4], none[W * H * 4];
    for (int k = 0; k < 2; k++) {
        scene(f, (float[3]){0, 6, 6}, 2.0f, true);
        rill_render_pool_water *w = &f->box.water;
        if (k == 0) {
            w->wave_height = 0.0f;
            w->depth_color[1] = 1.0f;
        } else {
            w->clarity = NAN;
            w->wave_height = -4.0f;
            w->wind_direction[0] = w->wind_direction[1] = 0.0f;
            w->depth_color[1] = 7.0f;
        }
        f->box.entity = 11;
        render(f, f->r, 2, k ? "hostile" : "hostile_clamped");
        if (k == 0) {
            memcpy(want, f->px, sizeof(want));
        }
    }
    assert_memory_equal(f->px, want, sizeof(want));
    scene(f, (float[3]){0, 6, 6}, 2.0f, false);
    render(f, f->r, 2, NULL);
    memcpy(none, f->px, sizeof(none));
    scene(f, (float[3]){0, 6, 6}, 2.0f, true);
    memset(f->box.world_from_box, 0, sizeof(f->box.world_from_box));
    render(f, f->r, 2, NULL);
    assert_memory_equal(f->px, none, sizeof(none));
}

/* The user's path: a PoolWater with a GlobalTransform reaches the snapshot with its entity. */
static void test_extract(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(w);
    render_test_world_camera(w, NULL); /* extract draws from a camera */
    rill_component pw = rill_world_find_component(w, "PoolWater");
    assert_true(pw.id != 0);
    rill_render_pool_water v;
    rill_type_apply_defaults(rill_world_component_type(w, pw), &v);
    assert_float_equal(v.depth_color[1], 0.15f, 0.0);
    assert_float_equal(v.depth_color[2], 0.2f, 0.0);
    v.clarity = 7.0f;
    rill_entity e = rill_world_spawn(w);
    assert_non_null(rill_world_add(w, e, pw, &v));
    assert_non_null(rill_world_add(w, e, b->transform, NULL));
    assert_non_null(rill_world_add(w, e, b->global_transform, NULL));
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.water_count, 1);
    assert_int_equal(s.water[0].entity, e);
    assert_float_equal(s.water[0].water.clarity, 7.0f, 0.0);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

/* A Medium tier renderer (where screen-space reflections run) with a cube and a white material. */
static rill_renderer *medium_renderer(rill_mesh *cube, rill_material *white) {
    rill_renderer *r = make_renderer(RILL_RENDER_QUALITY_MEDIUM);
    assert_non_null(r);
    rill_error err = {0};
    *cube = rill_render_mesh_cube(r, &err);
    *white = render_test_material(r, (rill_material_desc){.base_color = {1, 1, 1, 1}});
    return r;
}

/* The view's ScreenSpaceReflections (the defaults). */
static rill_render_ssr ssr;
static rill_render_routed_settings ssr_route = {"ScreenSpaceReflections", &ssr, sizeof(ssr), 0};
static void use_ssr(fixture *f) {
    ssr = rill_render_ssr_query_defaults();
    f->snap.view.settings = &ssr_route;
    f->snap.view.settings_count = 1;
}

/* Screen-space reflections on pool water (Medium tier, the view's ScreenSpaceReflections), as on
 * the ocean: a red wall standing just behind the pool shows in the water in front of it, which
 * without them reflects only the sky. Calm water (no waves) for a clear mirror image. */
static void test_reflects_the_scene(void **state) {
    fixture *f = *state;
    rill_mesh cube;
    rill_material white;
    rill_renderer *r = medium_renderer(&cube, &white);
    rill_material red = render_test_material(
        r, (rill_material_desc){.base_color = {1, 0, 0, 1}, .emissive = {2, 0, 0}, .roughness = 1});
    rill_render_instance inst[2];
    double red_water[2];
    for (int i = 0; i < 2; i++) {
        scene(f, (float[3]){0, 1.5f, 9}, 2.0f, true);
        f->box.water.wave_height = 0.0f;
        inst[0] = f->floor;
        inst[0].mesh = cube;
        inst[0].material = white;
        /* The wall: 16 x 7 m, 0.5 m thick, 0.5 m behind the pool's far edge (z = -5). */
        place_box(&inst[1], 2, cube, red, (float[3]){-8, -2, -6}, (float[3]){8, 5, -5.5f});
        f->snap.instances = inst;
        f->snap.instance_count = 2;
        if (i) {
            use_ssr(f);
        }
        render(f, r, 3, i ? "pool_ssr_on" : "pool_ssr_off");
        red_water[i] = redness(f->px, H / 2 - 2, H / 2 + 10); /* the water before the wall */
    }
    print_message("pool water before a red wall: redness %.1f without reflections, %.1f with\n",
                  red_water[0], red_water[1]);
    assert_true(red_water[1] > red_water[0] + 10.0);
    render_test_destroy_clean(r, false);
}

/* A view with both waters (a pool on a slab standing in the sea, Medium tier with the view's
 * ScreenSpaceReflections, which the pool reflects with) copies its lit image once for both: one
 * "water.scene" pass a frame, read by the pool's pass and the sea's; the picture is the golden one
 * rendered when each water made its own copy. */
static void test_pool_and_sea_share_one_copy(void **state) {
    fixture *f = *state;
    rill_mesh cube;
    rill_material white;
    rill_renderer *r = medium_renderer(&cube, &white);
    look(f, (float[3]){0, 8, 14}, (float[3]){0, 0, 0}, 0.8f, 500.0f);
    sky_light(f, 3.0f, 0.3f, 0.5f, (float[3]){0.6f, 0.7f, 0.9f});
    use_ssr(f);
    place_box(&f->floor, 1, cube, white, (float[3]){-5, -1, -5}, (float[3]){5, 1, 5});
    f->snap.instances = &f->floor;
    f->snap.instance_count = 1;
    add_pool(f, 3.0f, 2.0f);            /* on the slab */
    memset(&f->sea, 0, sizeof(f->sea)); /* the sea: y = 0 */
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    memcpy(f->sea.world_from_water, id, sizeof(id));
    f->sea.water = rill_render_water_query_defaults();
    f->sea.entity = 5;
    f->snap.oceans = &f->sea;
    f->snap.ocean_count = 1;
    render(f, r, 3, "pool_and_sea");
    golden_expect("pool_and_sea", f->px, W, H);
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    int copies = 0, pool = 0, sea = 0;
    for (uint32_t i = 0; i < st.pass_count; i++) {
        const char *n = st.pass_names[i];
        copies += strstr(n, ".scene") != NULL;
        pool += strcmp(n, "water") == 0;
        sea += strcmp(n, "ocean") == 0;
    }
    print_message("passes: %d scene copies, %d pool, %d sea\n", copies, pool, sea);
    assert_int_equal(pool, 1);
    assert_int_equal(sea, 1);
    assert_int_equal(copies, 1);
    render_test_destroy_clean(r, false);
}

int main(void) {
    const struct CMUnitTest cpu[] = {cmocka_unit_test(test_extract)};
    const struct CMUnitTest gpu[] = {
        cmocka_unit_test(test_depth_tint),
        cmocka_unit_test(test_waves_move_deterministic),
        cmocka_unit_test(test_fresnel),
        cmocka_unit_test(test_hostile_clamp),
        cmocka_unit_test(test_reflects_the_scene),
        cmocka_unit_test(test_pool_and_sea_share_one_copy),
    };
    int failed = cmocka_run_group_tests_name("water_cpu", cpu, NULL, NULL);
    return failed + cmocka_run_group_tests_name("water_gpu", gpu, setup, render_test_teardown);
}
