/* test_hlod_render.c: far-world proxies drawn by rill_render_hlod (rill/render/hlod.h) against the
 * instance streamer's residency, on lavapipe:
 *   - along a camera path that comes and goes, an instance's proxy is drawn exactly when its
 *     content is not resident (unloaded, loading, unloading) or in the crossfade after it arrived
 *     (with the dither share +proxy_fade), and never once that crossfade is over;
 *   - hostile: a district whose proxy is missing, one whose proxy is corrupt, and one whose proxy
 *     has no triangles all still stream in and out; the first two are warnings naming the file
 *     and the folder it was looked for in; none of them draws;
 *   - level 1: a cell of two instances draws its merged part instead of their proxies beyond
 *     level1_distance, both with complementary fades inside level_crossfade, and only the
 *     level-0 proxies nearer;
 *   - the proxies render with the validation layers clean;
 *   - a level-1 file of many parts is made over frames within max_upload_triangles and draws
 *     only once whole;
 *   - a drawn proxy is voxelized by the voxel-cone GI (its gpu_only mesh's voxel copy). */
#include "stream/stream_fixture.h"

#include <math.h>

#include "render/render_test.h"
#include "rill/formats/hlod.h"
#include "rill/render/gi.h"
#include "rill/render/hlod.h"

#define BUDGET 1000000ull
#define COST 100000ull
#define XFADE 5u

/* Writes a one-part proxy: a w-metre square at height y (two triangles), or none (tris 0). */
static void write_proxy(const char *dir, const char *rel, uint32_t level, float x0, float z0,
                        float w, bool tris) {
    rill_hlod_vertex v[4];
    memset(v, 0, sizeof v);
    for (uint32_t i = 0; i < 4; i++) {
        v[i].position[0] = x0 + (float)(i & 1u) * w;
        v[i].position[1] = 5.0f;
        v[i].position[2] = z0 + (float)(i >> 1) * w;
        v[i].normal[1] = 1.0f;
        v[i].color = i == 3;
    }
    uint32_t idx[6] = {0, 2, 1, 1, 2, 3}, pal[2] = {0xFF2020E0u, 0xFF20E020u};
    rill_hlod_part pt = {.box_min = {x0, 5, z0},
                         .box_max = {x0 + w, 5, z0 + w},
                         .cell_min = {x0, z0},
                         .cell_max = {x0 + w, z0 + w},
                         .vertex_count = tris ? 4 : 0,
                         .index_count = tris ? 6 : 0,
                         .palette_count = tris ? 2 : 0,
                         .palette = pal,
                         .vertices = v,
                         .indices = idx};
    rill_hlod h = {.level = level, .part_count = 1, .parts = &pt};
    uint8_t *data = NULL;
    size_t size = 0;
    assert_int_equal(rill_hlod_write(&h, &data, &size, NULL), RILL_OK);
    rill_test_write_file(dir, rel, data, size);
    rill_free(data);
}

/* Writes a level-1 file of n cells of w metres in a row along x from 0, one square part each. */
static void write_cells(const char *dir, const char *rel, uint32_t n, float w) {
    static rill_hlod_vertex v[16][4];
    static rill_hlod_part pt[16];
    static uint32_t idx[6] = {0, 2, 1, 1, 2, 3}, pal[2] = {0xFF2020E0u, 0xFF20E020u};
    assert_true(n <= 16);
    for (uint32_t c = 0; c < n; c++) {
        float x0 = (float)c * w;
        for (uint32_t i = 0; i < 4; i++) {
            v[c][i] = (rill_hlod_vertex){
                .position = {x0 + (float)(i & 1u) * w, 5.0f, (float)(i >> 1) * w},
                .normal = {0, 1, 0},
                .color = i == 3};
        }
        pt[c] = (rill_hlod_part){.box_min = {x0, 5, 0},
                                 .box_max = {x0 + w, 5, w},
                                 .cell_min = {x0, 0},
                                 .cell_max = {x0 + w, w},
                                 .vertex_count = 4,
                                 .index_count = 6,
                                 .palette_count = 2,
                                 .palette = pal,
                                 .vertices = v[c],
                                 .indices = idx};
    }
    rill_hlod h = {.level = 1, .part_count = n, .parts = pt};
    uint8_t *data = NULL;
    size_t size = 0;
    assert_int_equal(rill_hlod_write(&h, &data, &size, NULL), RILL_OK);
    rill_test_write_file(dir, rel, data, size);
    rill_free(data);
}

typedef struct fixture {
    sfx fx;
    rill_renderer *r;
    rill_render_hlod *h;
} fixture;

static void setup_quality(fixture *f, const char *main_scene, rill_render_quality quality) {
    sfx_init(&f->fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    f->r = render_test_renderer((rill_renderer_desc){
        .width = 64, .height = 64, .shadow_map_size = 256, .quality = quality});
    assert_non_null(f->r);
    rill_stream_hlod_settings hs = rill_stream_hlod_default();
    hs.crossfade_frames = XFADE;
    hs.level1_distance = 500.0f;
    hs.level_crossfade = 100.0f;
    rill_stream_set_hlod(f->fx.stream, &hs);
    /* main_scene is read at create (make_hlod): the cells must be on disk before. */
    f->h = NULL;
    (void)main_scene;
}

static void setup(fixture *f, const char *main_scene) {
    setup_quality(f, main_scene, RILL_RENDER_QUALITY_DEFAULT);
}

static void make_hlod_budget(fixture *f, const char *main_scene, uint32_t max_tris) {
    rill_error err = {0};
    f->h = rill_render_hlod_create(&(rill_render_hlod_desc){.renderer = f->r,
                                                            .world = f->fx.env.world,
                                                            .stream = f->fx.stream,
                                                            .vfs = f->fx.env.vfs,
                                                            .main_scene = main_scene,
                                                            .max_upload_triangles = max_tris},
                                   &err);
    assert_non_null(f->h);
}

static void make_hlod(fixture *f, const char *main_scene) {
    make_hlod_budget(f, main_scene, 0);
}

static void teardown(fixture *f) {
    rill_render_hlod_destroy(f->h);
    render_test_destroy_clean(f->r, false);
    sfx_done(&f->fx);
}

/* One app frame, then this frame's proxies seen from the camera. */
static uint32_t frame(fixture *f, float x, float z, const rill_render_hlod_draw **draws) {
    sfx_camera(&f->fx, x, z);
    sfx_frame(&f->fx);
    return rill_render_hlod_update(f->h, (float[3]){x, 0, z}, NULL, draws);
}

static const rill_render_hlod_draw *drawn(const rill_render_hlod_draw *d, uint32_t n,
                                          rill_entity root) {
    for (uint32_t i = 0; i < n; i++) {
        if (d[i].root == root && d[i].level == 0) {
            return &d[i];
        }
    }
    return NULL;
}

static rill_stream_instance_info info_of(fixture *f, rill_entity root) {
    rill_stream_instance_info infos[8];
    uint32_t n = rill_stream_instances(f->fx.stream, infos, 8);
    for (uint32_t i = 0; i < n && i < 8; i++) {
        if (infos[i].root == root) {
            return infos[i];
        }
    }
    fail_msg("instance not listed");
    return infos[0];
}

/* What the residency test follows frame by frame. */
typedef struct track {
    rill_entity a, m, c, z;
    uint32_t frames, since_loaded, crossfades;
} track;

/* One frame at (x, 0): instance a's proxy is drawn exactly when its content is not resident or
 * within XFADE frames of arriving (then with +proxy_fade), never after; m, c and z never draw. */
static void step(fixture *f, track *t, float x) {
    const rill_render_hlod_draw *d = NULL;
    uint32_t n = frame(f, x, 0, &d);
    t->frames++;
    rill_stream_instance_info ia = info_of(f, t->a);
    const rill_render_hlod_draw *da = drawn(d, n, t->a);
    bool loaded = ia.state == RILL_INSTANCE_LOADED;
    t->since_loaded = loaded ? t->since_loaded + 1u : 0u;
    if (t->frames > 2) { /* the proxy is read, then uploaded at the next update */
        assert_int_equal(da != NULL, !loaded || t->since_loaded < XFADE);
    } else {
        assert_true(!da || !loaded);
    }
    if (da && loaded) {
        t->crossfades++;
        assert_true(da->lod_fade > 0.0f && da->lod_fade < 1.0f);
        assert_true(fabsf(da->lod_fade - ia.proxy_fade) < 1e-6f);
    } else if (da) {
        assert_true(da->lod_fade == 0.0f); /* not resident: the proxy whole */
    }
    assert_null(drawn(d, n, t->m));
    assert_null(drawn(d, n, t->c));
    assert_null(drawn(d, n, t->z));
    uint32_t level0 = 0;
    for (uint32_t i = 0; i < n; i++) {
        level0 += d[i].level == 0;
    }
    assert_int_equal(level0, da ? 1u : 0u);
}

static void test_drawn_exactly_where_not_resident(void **state) {
    (void)state;
    fixture f;
    setup(&f, NULL);
    const char *dir = f.fx.env.dir;
    sfx_scene(&f.fx, "d.rsn", 30, 1.0f);
    sfx_scene(&f.fx, "missing.rsn", 5, 1.0f);
    sfx_scene(&f.fx, "bad.rsn", 5, 1.0f);
    sfx_scene(&f.fx, "empty.rsn", 5, 1.0f);
    write_proxy(dir, "d.hlod", 0, -10, -10, 20, true);
    static const uint8_t bad[24] = {'R', 'H', 'L', 'D', 1,   0,   0,   0,   0,   0,   0,   0,
                                    5,   0,   0,   0,   'g', 'a', 'r', 'b', 'a', 'g', 'e', '!'};
    rill_test_write_file(dir, "bad.hlod", bad, sizeof bad);
    write_proxy(dir, "empty.hlod", 0, -10, -10, 20, false);
    rill_entity a = sfx_instance(&f.fx, "d.rsn", 0, 0, 100, 150, 10);
    rill_entity m = sfx_instance(&f.fx, "missing.rsn", 0, 40, 100, 150, 10);
    rill_entity c = sfx_instance(&f.fx, "bad.rsn", 40, 0, 100, 150, 10);
    rill_entity z = sfx_instance(&f.fx, "empty.rsn", 40, 40, 100, 150, 10);
    make_hlod(&f, NULL);
    test_logbuf lb;
    test_log_begin(&lb);
    /* Out, in, out again, in again: x from 1000 down to 0 and back, twice, each leg followed by
     * frames standing still so loads and unloads finish. */
    track t = {.a = a, .m = m, .c = c, .z = z};
    for (int leg = 0; leg < 4; leg++) {
        for (int s = 0; s <= 40; s++) {
            step(&f, &t, leg % 2 ? 25.0f * (float)s : 1000.0f - 25.0f * (float)s);
        }
        for (int k = 0; k < 20; k++) {
            step(&f, &t, leg % 2 ? 1000.0f : 0.0f);
        }
        if (leg % 2 == 0) {
            /* Every district streamed in, proxies or not. */
            assert_int_equal(info_of(&f, a).state, RILL_INSTANCE_LOADED);
            assert_int_equal(info_of(&f, m).state, RILL_INSTANCE_LOADED);
            assert_int_equal(info_of(&f, c).state, RILL_INSTANCE_LOADED);
            assert_int_equal(info_of(&f, z).state, RILL_INSTANCE_LOADED);
        } else {
            assert_int_equal(info_of(&f, a).state, RILL_INSTANCE_UNLOADED);
        }
    }
    uint32_t crossfades = t.crossfades;
    assert_true(crossfades >= 2 * (XFADE - 1u)); /* both arrivals crossfaded */
    /* Warned once each, naming the file and where it was looked for. */
    assert_true(test_log_has(&lb, "far-world proxy missing.hlod"));
    assert_true(test_log_has(&lb, "far-world proxy bad.hlod"));
    assert_true(test_log_has(&lb, "not found"));
    assert_true(test_log_has(&lb, rill_path_basename(dir)));
    assert_int_equal(lb.warns, 2);
    rill_render_hlod_stats st;
    rill_render_hlod_get_stats(f.h, &st);
    assert_int_equal(st.missing, 1);
    assert_int_equal(st.failed, 1);
    assert_int_equal(st.ready, 2);
    test_log_end(&lb);
    teardown(&f);
}

static void test_level1_cells(void **state) {
    (void)state;
    fixture f;
    setup(&f, "main.rsn");
    const char *dir = f.fx.env.dir;
    sfx_scene(&f.fx, "d.rsn", 3, 1.0f);
    write_proxy(dir, "d.hlod", 0, -10, -10, 20, true);
    write_proxy(dir, "main.hlod1", 1, 0, 0, 100, true); /* one cell: [0, 100) x [0, 100) */
    rill_entity a = sfx_instance(&f.fx, "d.rsn", 30, 30, 50, 60, 10);
    rill_entity b = sfx_instance(&f.fx, "d.rsn", 90, 90, 50, 60, 9);
    make_hlod(&f, "main.rsn");
    const rill_render_hlod_draw *d = NULL;
    uint32_t n = 0;
    /* Far: the cell (its box reaches x = 100) 900 m away draws alone. */
    for (int k = 0; k < 4; k++) {
        n = frame(&f, 1000, 50, &d);
    }
    assert_int_equal(n, 1);
    assert_int_equal(d[0].level, 1);
    assert_true(d[0].root == RILL_ENTITY_NULL && d[0].lod_fade == 0.0f);
    /* 550 m: half way through the level crossfade (500 + 100): +0.5 on the cell, -0.5 on both. */
    n = frame(&f, 650, 50, &d);
    assert_int_equal(n, 3);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(fabsf(d[i].lod_fade - (d[i].level ? 0.5f : -0.5f)) < 1e-3f);
    }
    assert_non_null(drawn(d, n, a));
    assert_non_null(drawn(d, n, b));
    /* Nearer than level1_distance: only the instances' own proxies. */
    n = frame(&f, 400, 50, &d);
    assert_int_equal(n, 2);
    assert_true(d[0].level == 0 && d[1].level == 0 && d[0].lod_fade == 0.0f);
    /* One member resident: the cell stands aside even far away (the other keeps its proxy). */
    for (int k = 0; k < 20; k++) {
        frame(&f, 30, 30, NULL);
    }
    assert_int_equal(info_of(&f, a).state, RILL_INSTANCE_LOADED);
    rill_stream_hlod_settings hs = rill_stream_get_hlod(f.fx.stream);
    hs.level1_distance = 10.0f; /* the cell is "far" from here, but a member is in */
    hs.level_crossfade = 1.0f;
    rill_stream_set_hlod(f.fx.stream, &hs);
    n = frame(&f, 30, 30, &d);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(d[i].level, 0);
    }
    assert_null(drawn(d, n, a));
    assert_non_null(drawn(d, n, b));
    /* And they render, validation clean. */
    const rill_render_instance *ins = NULL;
    n = rill_render_hlod_update(f.h, (float[3]){1000, 30, 50}, &ins, NULL);
    rill_render_snapshot snap = {0};
    mat4 wfv; /* aligned: cglm's SSE inverse stores aligned (the snapshot's array is not) */
    render_test_look_at(wfv, (float[3]){1000, 30, 50}, (float[3]){50, 5, 50});
    memcpy(snap.view.world_from_view, wfv, sizeof(wfv));
    snap.view.far_plane = 5000.0f;
    snap.instances = ins;
    snap.instance_count = n;
    rill_error err = {0};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(rill_renderer_render(f.r, &snap, &err), RILL_OK);
    }
    teardown(&f);
}

/* A level-1 file of ten cells made over frames: a part costs its 2 triangles + 256, so a budget
 * of 600 makes 3 parts a frame (the one crossing it included); no cell draws until all ten are
 * made, then all ten do (900 m and more away, past level1_distance + level_crossfade). The
 * default budget makes the same file in one frame. */
static void test_parts_over_frames(void **state) {
    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        fixture f;
        setup(&f, "main.rsn");
        const char *dir = f.fx.env.dir;
        sfx_scene(&f.fx, "d.rsn", 3, 1.0f);
        write_proxy(dir, "d.hlod", 0, -10, -10, 20, true);
        write_cells(dir, "main.hlod1", 10, 100);
        sfx_instance(&f.fx, "d.rsn", 5000, 5000, 50, 60, 10);
        make_hlod_budget(&f, "main.rsn", pass == 0 ? 600u : 0u);
        uint32_t made_frames = 0, first_drawn = 0;
        uint64_t before = 0;
        for (uint32_t k = 1; k <= 12 && !first_drawn; k++) {
            const rill_render_hlod_draw *d = NULL;
            uint32_t n = frame(&f, -900, 50, &d);
            rill_render_hlod_stats st;
            rill_render_hlod_get_stats(f.h, &st);
            uint64_t made = st.gpu_triangles - before; /* this frame's, 2 a part */
            before = st.gpu_triangles;
            assert_true(made <= (pass == 0 ? 6u : 20u));
            made_frames += made > 0;
            uint32_t level1 = 0;
            for (uint32_t i = 0; i < n; i++) {
                level1 += d[i].level == 1;
            }
            if (st.gpu_triangles < 20) {
                assert_int_equal(level1, 0); /* some parts made: the file does not draw yet */
            } else {
                assert_int_equal(level1, 10);
                first_drawn = k;
            }
        }
        print_message("budget %s: the ten cells made over %u frames\n",
                      pass == 0 ? "600" : "default", made_frames);
        assert_int_equal(made_frames, pass == 0 ? 4u : 1u);
        assert_true(first_drawn > 0);
        teardown(&f);
    }
}

/* A drawn proxy is voxelized by the voxel-cone GI (SdfLow) like any mesh: its part's 20 m square
 * fills the clipmap around a view above it (the proxy mesh is gpu_only: its voxel copy). */
static void test_proxies_voxelized(void **state) {
    (void)state;
    fixture f;
    setup_quality(&f, "main.rsn", RILL_RENDER_QUALITY_HIGH);
    sfx_scene(&f.fx, "d.rsn", 3, 1.0f);
    write_proxy(f.fx.env.dir, "d.hlod", 0, -10, -10, 20, true);
    sfx_instance(&f.fx, "d.rsn", 30, 30, 50, 60, 10);
    make_hlod(&f, "main.rsn");
    const rill_render_hlod_draw *d = NULL;
    uint32_t n = 0;
    for (int k = 0; k < 4; k++) {
        n = frame(&f, 400, 30, &d); /* the district far away: not resident, its proxy drawn */
    }
    assert_int_equal(n, 1);
    const rill_render_instance *ins = NULL;
    n = rill_render_hlod_update(f.h, (float[3]){400, 0, 30}, &ins, NULL);
    assert_int_equal(n, 1);
    rill_render_global_illumination gi = rill_render_global_illumination_query_defaults();
    gi.quality = RILL_GI_SDF_LOW;
    rill_render_routed_settings routed = {"GlobalIllumination", &gi, sizeof(gi), 0};
    rill_render_snapshot snap = {0};
    mat4 wfv; /* aligned: cglm's SSE inverse stores aligned (the snapshot's array is not) */
    render_test_look_at(wfv, (float[3]){30, 15, 45}, (float[3]){30, 5, 30});
    memcpy(snap.view.world_from_view, wfv, sizeof(wfv));
    snap.view.settings = &routed;
    snap.view.settings_count = 1;
    snap.instances = ins;
    snap.instance_count = n;
    rill_error err = {0};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(rill_renderer_render(f.r, &snap, &err), RILL_OK);
    }
    rill_render_stats st;
    rill_renderer_stats(f.r, &st);
    print_message("one 20 m proxy square, SdfLow: %u voxels (%u cascades, %llu units, fade %.2f, "
                  "mode %d)\n",
                  st.gi_voxels_filled, st.gi_cascades_resident,
                  (unsigned long long)st.gi_voxel_units, ins[0].lod_fade, (int)ins[0].mode);
    assert_true(st.gi_voxels_filled > 1000);
    assert_int_equal(st.validation_messages, 0);
    teardown(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drawn_exactly_where_not_resident),
        cmocka_unit_test(test_level1_cells),
        cmocka_unit_test(test_parts_over_frames),
        cmocka_unit_test(test_proxies_voxelized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
