/* test_batching.c: static batching (rill_render_batching, src/render/batch.c) on lavapipe. Cubes of
 * the generated model stand in two 8 m cells; the test checks the batch keys (cell, material,
 * channel mask), the exclusions (PRESERVE_IDENTITY, a RenderMode of its own, a moving entity, a
 * group of one; a blended material in test_blend_excluded), that batched and unbatched frames give
 * the same image (golden rule), that changing one entity's channels rebuilds its cell only (the
 * other cell keeps its meshes), and that a channel's render mode reaches the batches without any
 * rebuild. test_parts: a cell's batches are split into parts culled one by one (batched frames draw
 * the triangles unbatched ones do, where whole-cell batches draw more), a crossfading member leaves
 * its part at once and comes back when the fade ends, and a despawned member stops being drawn the
 * frame after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_fixture.h"
#include "golden.h"
#include "rill/channels.h"
#include "rill/render.h"
#include "rill/scene/model.h"

#define W 160
#define H 120
#define BATCH_BIT (UINT64_C(1) << 63)

typedef struct fx {
    batch_fx b;
    rill_entity mover;
    float mover_x;
} fx;

static rill_entity cube(fx *f, uint32_t mesh, uint32_t prim, float x, float z, const char *name) {
    rill_entity e = batch_fx_box(&f->b, mesh, prim, x, z, true);
    if (name) {
        rill_world_set_name(f->b.w, e, name);
    }
    return e;
}

static void fx_init(fx *f) {
    memset(f, 0, sizeof(*f));
    batch_fx_open(&f->b, "batching", W, H, RILL_RENDER_BACKEND_DEFAULT,
                  &(batch_fx_camera){.pos = {8.0f, 7.0f, 15.0f},
                                     .pitch = 0.45f,
                                     .far_plane = 200.0f,
                                     .clear_blue = 0.2f,
                                     .sun = true});
}

static void fx_done(fx *f) {
    batch_fx_close(&f->b);
}

/* One frame: the mover moves, transforms update, extract, render. */
static void frame(fx *f) {
    rill_error err = {0};
    if (f->mover) {
        f->mover_x += 0.01f;
        rill_transform t = rill_transform_identity();
        t.translation[0] = f->mover_x;
        t.translation[1] = 0.5f;
        t.translation[2] = 4.0f;
        rill_world_set_transform(f->b.w, f->mover, &t);
    }
    rill_world_update_transforms(f->b.w);
    assert_int_equal(rill_render_extract(f->b.w, &f->b.rc, &f->b.xb, &f->b.snap, &err), RILL_OK);
    f->b.snap.ambient[0] = f->b.snap.ambient[1] = f->b.snap.ambient[2] = 0.2f;
    assert_int_equal(rill_renderer_render(f->b.r, &f->b.snap, &err), RILL_OK);
}

static uint32_t count_batches(const fx *f, uint64_t *ids, rill_mesh *meshes, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->b.snap.instance_count; i++) {
        if (f->b.snap.instances[i].id & BATCH_BIT) {
            if (n < cap) {
                ids[n] = f->b.snap.instances[i].id;
                meshes[n] = f->b.snap.instances[i].mesh;
            }
            n++;
        }
    }
    return n;
}

/* Frames until the batches draw (built, uploaded): at most 12. */
static uint32_t settle(fx *f, uint32_t want) {
    uint64_t ids[16];
    rill_mesh meshes[16];
    for (int i = 0; i < 12; i++) {
        frame(f);
        if (count_batches(f, ids, meshes, 16) == want) {
            return want;
        }
    }
    return count_batches(f, ids, meshes, 16);
}

static double match_fraction(const uint8_t *a, const uint8_t *b, uint32_t n) {
    uint32_t ok = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool same = true;
        for (int k = 0; k < 3; k++) {
            same &= abs((int)a[i * 4 + k] - (int)b[i * 4 + k]) <= RILL_GOLDEN_TOLERANCE;
        }
        ok += same;
    }
    return (double)ok / n;
}

static void test_batching(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    /* Cell (0,0,0) with 8 m cells: ten "box" cubes (material 0), two "pair" primitive-0 cubes
     * (material 1), one "pair" primitive-1 cube (the default material, alone: a group of one),
     * two ghost-masked boxes (same material, another mask), an NM_ box (preserve identity), a
     * box with its own wireframe RenderMode, and a box that moves every frame. */
    for (int i = 0; i < 10; i++) {
        cube(&f, 0, 0, 0.8f + 0.7f * (float)i, 1.0f + (float)(i % 3) * 2.0f, NULL);
    }
    cube(&f, 1, 0, 2.0f, 6.5f, NULL);
    cube(&f, 1, 0, 4.0f, 6.5f, NULL);
    cube(&f, 1, 1, 6.0f, 6.5f, NULL);
    rill_entity g1 = cube(&f, 0, 0, 1.0f, 0.5f, NULL), g2 = cube(&f, 0, 0, 3.0f, 0.5f, NULL);
    assert_true(rill_channels_set(f.b.w, g1, RILL_CHANNEL_CONTEXT | RILL_CHANNEL_GHOST));
    assert_true(rill_channels_set(f.b.w, g2, RILL_CHANNEL_CONTEXT | RILL_CHANNEL_GHOST));
    rill_entity nm = cube(&f, 0, 0, 5.0f, 0.5f, "NM_Keep");
    rill_entity wire = cube(&f, 0, 0, 7.0f, 0.5f, NULL);
    rill_render_mode_component rm = {RILL_RENDER_MODE_WIREFRAME, 1.0f};
    assert_non_null(rill_world_add(f.b.w, wire, f.b.rc.render_mode, &rm));
    f.mover = cube(&f, 0, 0, 1.0f, 4.0f, NULL);
    f.mover_x = 1.0f;
    /* Cell (1,0,0): three boxes. */
    rill_entity c1[3];
    for (int i = 0; i < 3; i++) {
        c1[i] = cube(&f, 0, 0, 9.5f + 2.0f * (float)i, 2.0f, NULL);
    }
    (void)nm;
    uint32_t entities = 10 + 3 + 2 + 1 + 1 + 1 + 3;

    /* Unbatched reference. */
    for (int i = 0; i < 3; i++) {
        frame(&f);
    }
    assert_int_equal(f.b.snap.instance_count, entities);
    static uint8_t ref[W * H * 4], px[W * H * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(f.b.r, ref, sizeof(ref), &err), RILL_OK);
    rill_render_stats rs;
    rill_renderer_stats(f.b.r, &rs);
    uint32_t draws_off = rs.draw_calls;
    (void)draws_off;

    /* Batched: cell 0 material 0 (10 boxes), cell 0 material 1 (2), cell 0 ghost mask (2), cell 1
     * material 0 (3) = 4 batches of 17 entities. The lone default-material cube is a batch of
     * one where batches of a material draw together (multi-draw indirect), else an instance. */
    bool mdi = rs.multi_draw_indirect;
    uint32_t want = 4 + mdi, batched = 17 + mdi;
    rill_render_assets_set_batching(f.b.ra,
                                    &(rill_render_batching){.enabled = true, .cell_size = 8});
    assert_int_equal(settle(&f, want), want);
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(f.b.ra, &bs);
    assert_true(bs.enabled);
    assert_int_equal(bs.batches, want);
    assert_int_equal(bs.batched_entities, batched);
    assert_int_equal(bs.cells_built, 2);
    assert_int_equal(bs.materials, 2 + mdi);
    assert_int_equal(f.b.snap.instance_count, entities - batched + want);
    for (uint32_t i = 0; i < f.b.snap.instance_count; i++) {
        rill_entity e = f.b.snap.instances[i].id;
        if (!(e & BATCH_BIT)) {
            assert_true(e == nm || e == wire || e == f.mover ||
                        (!mdi && rill_world_get_name(f.b.w, e) == NULL)); /* the lone cube */
        }
    }
    /* Same picture (the mover moved a little: its own pixels may differ; the golden rule allows
     * 0.5 %). */
    assert_int_equal(rill_renderer_read_pixels(f.b.r, px, sizeof(px), &err), RILL_OK);
    double same = match_fraction(ref, px, W * H);
    rill_renderer_stats(f.b.r, &rs);
    print_message("batched vs unbatched: %.4f of pixels match; draws %u unbatched, %u batched\n",
                  same, draws_off, rs.draw_calls);
    if (getenv("RILL_TEST_TMP")) {
        char path[1200];
        snprintf(path, sizeof path, "%s/batching/batched.png", getenv("RILL_TEST_TMP"));
        rill_renderer_write_png(f.b.r, path, NULL);
    }
    assert_true(same >= RILL_GOLDEN_MIN_MATCH);

    /* Changing one entity's channels rebuilds its cell only: cell 0's batch meshes stay. */
    uint64_t ids0[16], ids1[16];
    rill_mesh m0[16], m1[16];
    assert_int_equal(count_batches(&f, ids0, m0, 16), want);
    assert_true(rill_channels_set(f.b.w, c1[1], RILL_CHANNEL_CONTEXT | RILL_CHANNEL_GHOST));
    frame(&f); /* cell 1 broken: its members draw alone this frame */
    assert_int_equal(count_batches(&f, ids1, m1, 16), want - 1);
    assert_int_equal(f.b.snap.instance_count, entities - (batched - 3) + want - 1);
    /* cell 1 now holds two boxes of one mask (a batch) and one of another (a batch of one with
     * multi-draw indirect) */
    uint32_t want2 = want + mdi;
    assert_int_equal(settle(&f, want2), want2);
    rill_render_assets_get_batching_stats(f.b.ra, &bs);
    assert_int_equal(bs.cells_built, 3); /* one more: cell 1 */
    assert_int_equal(bs.batched_entities, batched - 1 + mdi);
    assert_int_equal(count_batches(&f, ids1, m1, 16), want2);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < want; i++) {
        for (uint32_t k = 0; k < want2; k++) {
            kept += ids0[i] == ids1[k] && m0[i].id == m1[k].id;
        }
    }
    assert_int_equal(kept, want - 1); /* cell 0's batches untouched */

    /* A channel's render mode: no rebuild, the batches carry the mode. */
    rill_channels_set_mode(f.b.w, RILL_CHANNEL_GHOST, RILL_RENDER_MODE_WIREFRAME, 1.0f);
    frame(&f);
    rill_render_assets_get_batching_stats(f.b.ra, &bs);
    assert_int_equal(bs.cells_built, 3);
    uint32_t wired = 0;
    for (uint32_t i = 0; i < f.b.snap.instance_count; i++) {
        wired += (f.b.snap.instances[i].id & BATCH_BIT) &&
                 f.b.snap.instances[i].mode == RILL_RENDER_MODE_WIREFRAME;
    }
    assert_int_equal(wired, 1 + mdi); /* the ghost-masked pair of cell 0 (and cell 1's one) */
    rill_channels_set_visible(f.b.w, RILL_CHANNEL_CONTEXT, false);
    frame(&f);
    rill_render_assets_get_batching_stats(f.b.ra, &bs);
    assert_int_equal(bs.cells_built, 3);
    for (uint32_t i = 0; i < f.b.snap.instance_count; i++) {
        if (f.b.snap.instances[i].id & BATCH_BIT) {
            assert_int_equal(f.b.snap.instances[i].mode, RILL_RENDER_MODE_HIDDEN);
        }
    }

    /* Off: every entity is an instance again. */
    rill_render_assets_set_batching(f.b.ra, &(rill_render_batching){.enabled = false});
    frame(&f);
    assert_int_equal(f.b.snap.instance_count, entities);
    rill_render_assets_get_batching_stats(f.b.ra, &bs);
    assert_int_equal(bs.batches, 0);
    rill_renderer_stats(f.b.r, &rs);
    assert_int_equal(rs.validation_messages, 0);
    fx_done(&f);
}

static uint64_t frame_triangles(fx *f) {
    frame(f);
    rill_render_stats rs;
    rill_renderer_stats(f->b.r, &rs);
    return rs.triangles;
}

/* The instance of entity e in the last snapshot, or NULL. */
static const rill_render_instance *instance_of(const fx *f, rill_entity e) {
    for (uint32_t i = 0; i < f->b.snap.instance_count; i++) {
        if (f->b.snap.instances[i].id == e) {
            return &f->b.snap.instances[i];
        }
    }
    return NULL;
}

/* The ranges of the batch instances in the last snapshot. */
static uint32_t batch_ranges(const fx *f) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->b.snap.instance_count; i++) {
        if (f->b.snap.instances[i].id & BATCH_BIT) {
            n += f->b.snap.instances[i].range_count;
        }
    }
    return n;
}

static rill_render_batching_stats batching_stats(const fx *f) {
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(f->b.ra, &bs);
    return bs;
}

static void test_parts(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    /* One 32 m cell (origin 0): 12 boxes, one per 4 m sub-cell, in front of the camera (z 2..10)
     * and behind it (z 26..30, the camera stands at z 15 looking towards -z). */
    rill_entity box[12];
    for (int i = 0; i < 12; i++) {
        float x = 2.0f + 4.0f * (float)(i % 4), z = i < 8 ? 2.0f + 4.0f * (float)(i / 4) : 30.0f;
        box[i] = cube(&f, 0, 0, x, z, NULL);
    }
    uint64_t tri_off = frame_triangles(&f);
    frame(&f);
    assert_int_equal(f.b.snap.instance_count, 12);
    static uint8_t ref[W * H * 4], px[W * H * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(f.b.r, ref, sizeof(ref), &err), RILL_OK);

    /* Whole-cell parts: one batch, one range, culled as a whole. */
    rill_render_assets_set_batching(
        f.b.ra, &(rill_render_batching){.enabled = true, .cell_size = 32, .part_size = 32});
    assert_int_equal(settle(&f, 1), 1);
    uint64_t tri_cell = frame_triangles(&f);
    assert_int_equal(batch_ranges(&f), 1);
    /* Parts of 4 m: still one batch (one mesh, one instance) but one range per box, each culled
     * on its own: the ones behind the camera are culled like the boxes were. */
    rill_render_assets_set_batching(
        f.b.ra, &(rill_render_batching){.enabled = true, .cell_size = 32, .part_size = 4});
    assert_int_equal(settle(&f, 1), 1);
    uint64_t tri_parts = frame_triangles(&f);
    print_message("triangles: unbatched %llu, whole-cell batch %llu, 4 m parts %llu\n",
                  (unsigned long long)tri_off, (unsigned long long)tri_cell,
                  (unsigned long long)tri_parts);
    assert_int_equal(f.b.snap.instance_count, 1);
    assert_int_equal(batch_ranges(&f), 12);
    assert_true(tri_cell > tri_off);
    assert_int_equal(tri_parts, tri_off);
    assert_int_equal(rill_renderer_read_pixels(f.b.r, px, sizeof(px), &err), RILL_OK);
    assert_true(match_fraction(ref, px, W * H) >= RILL_GOLDEN_MIN_MATCH);
    rill_render_batching_stats bs = batching_stats(&f);
    uint64_t built = bs.cells_built;
    assert_int_equal(bs.batched_entities, 12);

    /* A crossfade on box 1 (the LOD system writes RenderMode.lod_fade): its range is off at once
     * and it draws alone with its fade; nothing is rebuilt. */
    rill_render_mode_component fade = {RILL_RENDER_MODE_NORMAL, 0.5f, 0.5f};
    assert_non_null(rill_world_add(f.b.w, box[1], f.b.rc.render_mode, &fade));
    frame(&f);
    const rill_render_instance *in = instance_of(&f, box[1]);
    assert_non_null(in);
    assert_true(in->lod_fade == 0.5f);
    assert_int_equal(f.b.snap.instance_count, 2);
    assert_int_equal(batch_ranges(&f), 11);
    /* The fade ends: its range is on again, still without a rebuild. */
    rill_render_mode_component whole = {RILL_RENDER_MODE_NORMAL, 1.0f, 0.0f};
    assert_non_null(rill_world_add(f.b.w, box[1], f.b.rc.render_mode, &whole));
    frame(&f);
    assert_null(instance_of(&f, box[1]));
    assert_int_equal(batch_ranges(&f), 12);
    assert_int_equal(batching_stats(&f).cells_built, built);

    /* A despawned member: not drawn from the next frame on (the batch's mesh still holds it until
     * the cell is rebuilt, so the cell's other members draw alone meanwhile). */
    assert_true(rill_world_despawn(f.b.w, box[0]));
    frame(&f);
    uint64_t ids[16];
    rill_mesh meshes[16];
    assert_int_equal(count_batches(&f, ids, meshes, 16), 0);
    assert_int_equal(f.b.snap.instance_count, 11);
    assert_null(instance_of(&f, box[0]));
    assert_int_equal(settle(&f, 1), 1);
    assert_int_equal(batching_stats(&f).batched_entities, 11);
    assert_int_equal(batch_ranges(&f), 11);
    rill_render_stats rs;
    rill_renderer_stats(f.b.r, &rs);
    assert_int_equal(rs.validation_messages, 0);
    fx_done(&f);
}

/* Shows one LOD level of a pair (crossfading: fade to the shown one, -fade to the other). */
static void show_level(fx *f, const rill_model_components *mc, const rill_entity *a,
                       const rill_entity *b, uint32_t n, bool show_a, float fade) {
    for (uint32_t i = 0; i < n; i++) {
        rill_scene_model_set_level(f->b.w, mc, show_a ? a[i] : b[i], true, fade);
        if (fade != 0.0f) {
            rill_scene_model_set_level(f->b.w, mc, show_a ? b[i] : a[i], true, -fade);
        } else {
            rill_scene_model_set_level(f->b.w, mc, show_a ? b[i] : a[i], false, 0.0f);
        }
    }
}

static void read_frame(fx *f, uint8_t *px, uint32_t frames) {
    for (uint32_t i = 0; i < frames; i++) {
        frame(f);
    }
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(f->b.r, px, (size_t)W * H * 4, &err), RILL_OK);
}

static void test_lod_switch(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    rill_model_components mc;
    assert_int_equal(rill_scene_model_register(f.b.w, &mc, NULL), RILL_OK);
    /* Six models of two LOD levels in one cell: level A a "box" cube, level B a "pair" cube
     * (another material), at the same places; B starts switched off. */
    enum { N = 6 };
    rill_entity a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = cube(&f, 0, 0, 1.5f + 2.5f * (float)i, 3.0f + (float)(i % 2) * 3.0f, NULL);
        b[i] = cube(&f, 1, 0, 1.5f + 2.5f * (float)i, 3.0f + (float)(i % 2) * 3.0f, NULL);
    }
    show_level(&f, &mc, a, b, N, true, 0.0f);
    static uint8_t ref_a[W * H * 4], ref_b[W * H * 4], px[W * H * 4];
    read_frame(&f, ref_a, 2);
    assert_int_equal(f.b.snap.instance_count, N);
    show_level(&f, &mc, a, b, N, false, 0.0f);
    read_frame(&f, ref_b, 2);
    show_level(&f, &mc, a, b, N, true, 0.0f);

    rill_render_assets_set_batching(f.b.ra,
                                    &(rill_render_batching){.enabled = true, .cell_size = 32});
    assert_int_equal(settle(&f, 1), 1);
    assert_int_equal(batching_stats(&f).batched_entities, N); /* level B never shown yet */
    /* B shown: its members are new (drawn alone until the cell is rebuilt with both levels). */
    show_level(&f, &mc, a, b, N, false, 0.0f);
    for (int i = 0; i < 12 && batching_stats(&f).batched_entities != 2 * N; i++) {
        frame(&f);
    }
    assert_int_equal(batching_stats(&f).batched_entities, 2 * N);
    assert_int_equal(settle(&f, 1), 1);
    rill_render_batching_stats bs = batching_stats(&f);
    uint64_t built = bs.cells_built, switches = bs.range_switches;
    assert_int_equal(bs.batches, 2);

    /* From now on switching levels flips ranges: no rebuild, one instance, the same pictures. */
    for (int round = 0; round < 2; round++) {
        show_level(&f, &mc, a, b, N, true, 0.0f);
        read_frame(&f, px, 1);
        assert_int_equal(f.b.snap.instance_count, 1);
        assert_true(match_fraction(ref_a, px, W * H) >= RILL_GOLDEN_MIN_MATCH);
        show_level(&f, &mc, a, b, N, false, 0.0f);
        read_frame(&f, px, 1);
        assert_int_equal(f.b.snap.instance_count, 1);
        assert_true(match_fraction(ref_b, px, W * H) >= RILL_GOLDEN_MIN_MATCH);
    }
    /* A crossfade: both levels draw alone (dithered), the batches draw nothing; then A alone. */
    show_level(&f, &mc, a, b, N, true, 0.5f);
    frame(&f);
    assert_int_equal(f.b.snap.instance_count, 2 * N);
    for (uint32_t i = 0; i < f.b.snap.instance_count; i++) {
        assert_true(f.b.snap.instances[i].lod_fade != 0.0f);
    }
    show_level(&f, &mc, a, b, N, true, 0.0f);
    read_frame(&f, px, 1);
    assert_int_equal(f.b.snap.instance_count, 1);
    assert_true(match_fraction(ref_a, px, W * H) >= RILL_GOLDEN_MIN_MATCH);
    bs = batching_stats(&f);
    print_message("LOD switches: %llu range switches, %llu rebuilds\n",
                  (unsigned long long)(bs.range_switches - switches),
                  (unsigned long long)(bs.cells_built - built));
    assert_int_equal(bs.cells_built, built);
    assert_true(bs.range_switches >= switches + 4u * 2u * N);
    rill_render_stats rs;
    rill_renderer_stats(f.b.r, &rs);
    assert_int_equal(rs.validation_messages, 0);
    fx_done(&f);
}

/* Two boxes in each of `cells` 8 m cells along +x. */
static void two_boxes_a_cell(fx *f, int cells) {
    for (int k = 0; k < cells; k++) {
        for (int i = 0; i < 2; i++) {
            cube(f, 0, 0, 8.0f * (float)k + 2.0f + 3.0f * (float)i, 3.0f, NULL);
        }
    }
}

static void test_build_budget(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    /* Six 8 m cells of two boxes each. */
    enum { CELLS = 6 };
    two_boxes_a_cell(&f, CELLS);
    /* A budget no build fits in: one cell a frame, the others wait (drawn unbatched). */
    rill_render_assets_set_batching(
        f.b.ra, &(rill_render_batching){.enabled = true, .cell_size = 8, .build_ms = 1e-6f});
    uint32_t frames = 0, most = 0;
    for (; frames < 20 && batching_stats(&f).cells_built < CELLS; frames++) {
        frame(&f);
        rill_render_batching_stats bs = batching_stats(&f);
        most = RILL_MAX(most, bs.cells_built_last_frame);
        /* every box draws: batched, or alone while its cell waits */
        assert_true(f.b.snap.instance_count >= CELLS - (uint32_t)bs.cells_built);
    }
    rill_render_batching_stats bs = batching_stats(&f);
    assert_int_equal(bs.cells_built, CELLS);
    assert_int_equal(most, 1);
    assert_true(bs.build_ms == 1e-6f);
    assert_int_equal(bs.cells_waiting, 0);
    /* A large budget: every queued cell in one frame. */
    rill_render_assets_set_batching(f.b.ra, &(rill_render_batching){.enabled = false});
    frame(&f);
    rill_render_assets_set_batching(
        f.b.ra, &(rill_render_batching){.enabled = true, .cell_size = 8, .build_ms = 1000.0f});
    most = 0;
    for (int i = 0; i < 4; i++) {
        frame(&f);
        most = RILL_MAX(most, batching_stats(&f).cells_built_last_frame);
    }
    assert_int_equal(most, CELLS);
    fx_done(&f);
}

/* Blended materials are never batched: a copy of the model whose "box" material blends, written
 * beside it; its boxes stay instances while the opaque boxes around them merge. */
static void test_blend_excluded(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    rill_error err = {0};
    const rill_gltf_model *gm =
        rill_asset_get_payload_as(f.b.as, f.b.asset, RILL_GLTF_ASSET_LOADER);
    assert_non_null(gm);
    rill_gltf_model copy = *gm;
    rill_gltf_material mats[4];
    assert_true(gm->material_count <= 4);
    memcpy(mats, gm->materials, gm->material_count * sizeof(mats[0]));
    mats[0].alpha_mode = RILL_GLTF_ALPHA_BLEND;
    mats[0].base_color_factor[3] = 0.5f;
    copy.materials = mats;
    uint8_t *glb = NULL;
    size_t n = 0;
    assert_int_equal(rill_glb_write_memory(&copy, NULL, &glb, &n, &err), RILL_OK);
    const char *tmp = getenv("RILL_TEST_TMP");
    char path[1200];
    snprintf(path, sizeof path, "%s/batching/blend.glb", tmp ? tmp : "/tmp/rill_test_batching");
    assert_int_equal(rill_file_write_all(path, glb, n, NULL), RILL_OK);
    rill_free(glb);
    rill_asset blend = rill_asset_load_sync(f.b.as, "blend.glb", &err);
    assert_int_equal(rill_asset_get_state(f.b.as, blend), RILL_ASSET_STATE_LOADED);
    rill_entity glass[4];
    for (int i = 0; i < 4; i++) {
        cube(&f, 0, 0, 1.0f + 1.5f * (float)i, 2.0f, NULL);
        glass[i] = cube(&f, 0, 0, 1.0f + 1.5f * (float)i, 5.0f, NULL);
        rill_model_mesh mm = {blend.id, 0, 0};
        assert_non_null(rill_world_add(f.b.w, glass[i], f.b.rc.model_mesh, &mm));
    }
    rill_render_assets_set_batching(f.b.ra,
                                    &(rill_render_batching){.enabled = true, .cell_size = 8});
    assert_int_equal(settle(&f, 1), 1);
    assert_int_equal(f.b.snap.instance_count, 1 + 4); /* the opaque batch, the four glass boxes */
    for (int i = 0; i < 4; i++) {
        assert_non_null(instance_of(&f, glass[i]));
    }
    assert_int_equal(batching_stats(&f).batched_entities, 4);
    rill_asset_release(f.b.as, blend);
    fx_done(&f);
}

/* Mirrored members (x scaled by -1): the renderer turns an instance's front face by the sign of its
 * determinant, but a batch draws at the cell's unmirrored origin, so the merge turns a mirrored
 * member's triangles (and flips its tangents' w): the batched picture is the unbatched one. Merged
 * as they are, the mirrored cubes drew inside out. */
static void test_mirrored(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    for (int i = 0; i < 8; i++) {
        rill_entity e = cube(&f, 0, 0, 0.8f + 0.9f * (float)i, 1.0f + (float)(i % 3) * 2.0f, NULL);
        if (i % 2) {
            rill_transform *t = rill_world_transform_mut(f.b.w, e);
            assert_non_null(t);
            t->scale[0] = -1.0f;
        }
    }
    for (int i = 0; i < 3; i++) {
        frame(&f);
    }
    assert_int_equal(f.b.snap.instance_count, 8);
    static uint8_t ref[W * H * 4], px[W * H * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(f.b.r, ref, sizeof(ref), &err), RILL_OK);
    rill_render_assets_set_batching(f.b.ra,
                                    &(rill_render_batching){.enabled = true, .cell_size = 8});
    assert_int_equal(settle(&f, 1), 1);
    assert_int_equal(f.b.snap.instance_count, 1);
    assert_int_equal(rill_renderer_read_pixels(f.b.r, px, sizeof(px), &err), RILL_OK);
    double same = match_fraction(ref, px, W * H);
    print_message("mirrored, batched vs unbatched: %.4f of pixels match\n", same);
    assert_true(same >= RILL_GOLDEN_MIN_MATCH);
    fx_done(&f);
}

/* The texture heatmap with batching on: a batch draws the heat material of its material's texture
 * state, as its members do unbatched (the generated model's materials stream nothing: grey), so
 * the batched picture is the unbatched one and no batch keeps its textured material. */
static void test_heatmap(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    for (int i = 0; i < 8; i++) {
        cube(&f, 0, 0, 0.8f + 0.9f * (float)i, 1.0f + (float)(i % 3) * 2.0f, NULL);
    }
    rill_render_assets_set_texture_heatmap(f.b.ra, true);
    for (int i = 0; i < 3; i++) {
        frame(&f);
    }
    assert_int_equal(f.b.snap.instance_count, 8);
    rill_material heat = f.b.snap.instances[0].material;
    for (uint32_t i = 1; i < f.b.snap.instance_count; i++) {
        assert_int_equal(f.b.snap.instances[i].material.id, heat.id);
    }
    static uint8_t ref[W * H * 4], px[W * H * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(f.b.r, ref, sizeof(ref), &err), RILL_OK);

    rill_render_assets_set_batching(f.b.ra,
                                    &(rill_render_batching){.enabled = true, .cell_size = 8});
    assert_int_equal(settle(&f, 1), 1);
    assert_int_equal(f.b.snap.instance_count, 1);
    assert_int_equal(f.b.snap.instances[0].material.id, heat.id);
    assert_int_equal(rill_renderer_read_pixels(f.b.r, px, sizeof(px), &err), RILL_OK);
    assert_true(match_fraction(ref, px, W * H) >= RILL_GOLDEN_MIN_MATCH);

    /* Heatmap off again: the batch draws its own material, the picture changes. */
    rill_render_assets_set_texture_heatmap(f.b.ra, false);
    frame(&f);
    frame(&f);
    uint32_t batches = 0;
    for (uint32_t i = 0; i < f.b.snap.instance_count; i++) {
        assert_int_not_equal(f.b.snap.instances[i].material.id, heat.id);
        batches += (f.b.snap.instances[i].id & BATCH_BIT) != 0;
    }
    assert_true(batches <= 1);
    assert_int_equal(rill_renderer_read_pixels(f.b.r, px, sizeof(px), &err), RILL_OK);
    assert_true(match_fraction(ref, px, W * H) < RILL_GOLDEN_MIN_MATCH);
    fx_done(&f);
}

/* Twelve boxes in six 8 m cells, the batcher taking 5 first-time candidates an extract: the others
 * draw as instances and are taken by the next extracts (5, 5, 2), no cell starts building while
 * candidates are still left for later, and then each cell is built once (none again for a late
 * candidate); every frame shows every
 * box (the picture of the unbatched frame). */
static void test_new_per_frame(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    enum { CELLS = 6, BOXES = 2 * CELLS };
    two_boxes_a_cell(&f, CELLS);
    uint8_t *ref = malloc(W * H * 4), *px = malloc(W * H * 4);
    assert_non_null(ref);
    assert_non_null(px);
    read_frame(&f, ref, 2);
    rill_render_assets_set_batching(
        f.b.ra, &(rill_render_batching){
                    .enabled = true, .cell_size = 8, .build_ms = 1000.0f, .new_per_frame = 5});
    const uint32_t taken[] = {5, 5, 2, 0}, deferred[] = {7, 2, 0, 0};
    for (int i = 0; i < 4; i++) {
        read_frame(&f, px, 1);
        rill_render_batching_stats bs = batching_stats(&f);
        assert_int_equal(bs.taken_new_last_frame, taken[i]);
        assert_int_equal(bs.deferred_new_last_frame, deferred[i]);
        /* no cell is admitted in the extract after one that left candidates for later (then the
         * first: a build time per member is not known before one is built) */
        assert_int_equal(bs.cells_built, i == 3 ? 1 : 0);
        assert_true(match_fraction(ref, px, W * H) > 0.995);
    }
    assert_int_equal(settle(&f, CELLS), CELLS);
    read_frame(&f, px, 1);
    assert_true(match_fraction(ref, px, W * H) > 0.995);
    rill_render_batching_stats bs = batching_stats(&f);
    assert_int_equal(bs.cells_built, CELLS); /* each once: none was built before all arrived */
    assert_int_equal(bs.batched_entities, BOXES);
    free(ref);
    free(px);
    fx_done(&f);
}

/* Records are kept by entity index in pages made on first use: boxes whose indices lie past 300 000
 * other entities cost the batcher a page, not an array of every index below theirs (one that
 * doubled cleared 29.5 MB in one extract of the demo fly-through). */
static void test_records_paged(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    enum { OTHERS = 300000 };
    rill_entity *others = malloc(OTHERS * sizeof(*others));
    assert_non_null(others);
    assert_int_equal(rill_world_spawn_n(f.b.w, OTHERS, others), OTHERS);
    for (int i = 0; i < 4; i++) {
        cube(&f, 0, 0, 2.0f + 3.0f * (float)i, 3.0f, NULL);
    }
    frame(&f);
    frame(&f);
    size_t before = rill_mem_live_total();
    rill_render_assets_set_batching(f.b.ra,
                                    &(rill_render_batching){.enabled = true, .cell_size = 64});
    assert_int_equal(settle(&f, 1), 1);
    size_t after = rill_mem_live_total();
    /* 300 000 records of 36 bytes would be 10.8 MB */
    assert_true(after < before + 1024u * 1024u);
    free(others);
    fx_done(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batching),      cmocka_unit_test(test_parts),
        cmocka_unit_test(test_lod_switch),    cmocka_unit_test(test_build_budget),
        cmocka_unit_test(test_heatmap),       cmocka_unit_test(test_blend_excluded),
        cmocka_unit_test(test_new_per_frame), cmocka_unit_test(test_records_paged),
        cmocka_unit_test(test_mirrored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
