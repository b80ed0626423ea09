/* test_batch_slices.c: a static batching cell built step by step over frames (src/render/
 * batch_build.c), on lavapipe. 24 boxes of three materials stand in one 32 m cell; batch meshes of
 * at most 48 vertices (two boxes) and a build budget no step fits in make its build one mesh a
 * frame over 12 frames. Every frame of it must show the unbatched picture with each box drawn
 * exactly once (alone, or in a batch's ranges: 36 indices a box), never twice: a member settled in
 * a step draws from the cell's record from the next frame, alone through the walk the frame it is
 * settled in. test_change_mid_build changes boxes while their cell is being built: moved,
 * despawned, given other channels, switched off (as a LOD level is) before their step and after
 * it; each frame is the picture of the world as it is now, and the cell is built once again after
 * (the switched-off box is kept in the batch with its range off, and comes back without a
 * rebuild). */
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
#define BOXES 24u
#define MESHES 12u /* three keys of eight boxes, two boxes a mesh */
#define BOX_INDICES 36u

typedef struct fx {
    batch_fx b;
    rill_entity box[BOXES];
} fx;

static void place(fx *f, rill_entity e, float x, float z) {
    batch_fx_place(&f->b, e, x, z, true);
}

/* Box k: the "box" cube, the "pair" one or the pair's default-material one, by k % 3. */
static rill_entity box(fx *f, uint32_t k) {
    return batch_fx_box(&f->b, k % 3 ? 1u : 0u, k % 3 == 2 ? 1u : 0u, 1.5f + 2.5f * (float)(k % 6),
                        1.5f + 2.5f * (float)(k / 6), true);
}

static void fx_init(fx *f) {
    memset(f, 0, sizeof(*f));
    batch_fx_open(&f->b, "batch_slices", W, H, RILL_RENDER_BACKEND_DEFAULT,
                  &(batch_fx_camera){.pos = {8.0f, 9.0f, 17.0f},
                                     .pitch = 0.5f,
                                     .far_plane = 200.0f,
                                     .clear_blue = 0.2f,
                                     .sun = true});
    for (uint32_t k = 0; k < BOXES; k++) {
        f->box[k] = box(f, k);
    }
}

static void fx_done(fx *f) {
    batch_fx_assert_no_validation(&f->b);
    batch_fx_close(&f->b);
}

/* One frame (transforms, extract, render), its picture into px. */
static void frame(fx *f, uint8_t *px) {
    rill_error err = {0};
    rill_world_update_transforms(f->b.w);
    assert_int_equal(rill_render_extract(f->b.w, &f->b.rc, &f->b.xb, &f->b.snap, &err), RILL_OK);
    f->b.snap.ambient[0] = f->b.snap.ambient[1] = f->b.snap.ambient[2] = 0.2f;
    assert_int_equal(rill_renderer_render(f->b.r, &f->b.snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->b.r, px, (size_t)W * H * 4, &err), RILL_OK);
}

static double match_fraction(const uint8_t *a, const uint8_t *b) {
    uint32_t ok = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        bool same = true;
        for (int k = 0; k < 3; k++) {
            same &= abs((int)a[i * 4 + k] - (int)b[i * 4 + k]) <= RILL_GOLDEN_TOLERANCE;
        }
        ok += same;
    }
    return (double)ok / (W * H);
}

static rill_render_batching_stats stats(const fx *f) {
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(f->b.ra, &bs);
    return bs;
}

/* The last snapshot draws every box in `shown` exactly once and no other: each as its own
 * instance (not HIDDEN) at most once, the batch instances' ranges 36 indices a box, the two summing
 * to the boxes shown. Returns how many boxes batches drew. */
static uint32_t assert_each_once(const fx *f, const bool *shown) {
    uint32_t alone = 0, indices = 0, want = 0;
    for (uint32_t k = 0; k < BOXES; k++) {
        uint32_t seen = 0;
        for (uint32_t i = 0; i < f->b.snap.instance_count; i++) {
            seen += f->b.snap.instances[i].id == f->box[k] &&
                    f->b.snap.instances[i].mode != RILL_RENDER_MODE_HIDDEN; /* (no pass draws it) */
        }
        assert_true(seen <= (shown[k] ? 1u : 0u));
        alone += seen;
        want += shown[k];
    }
    for (uint32_t i = 0; i < f->b.snap.instance_count; i++) {
        const rill_render_instance *in = &f->b.snap.instances[i];
        for (uint32_t r = 0; (in->id & BATCH_BIT) && r < in->range_count; r++) {
            indices += f->b.snap.ranges[in->range_first + r].index_count;
        }
    }
    assert_int_equal(indices % BOX_INDICES, 0);
    assert_int_equal(alone + indices / BOX_INDICES, want);
    return indices / BOX_INDICES;
}

static void batching_on(fx *f, float build_ms, uint32_t mesh_vertices) {
    rill_render_assets_set_batching(f->b.ra,
                                    &(rill_render_batching){.enabled = true,
                                                            .cell_size = 32.0f,
                                                            .build_ms = build_ms,
                                                            .static_frames = 1000,
                                                            .mesh_vertices = mesh_vertices});
}

/* Frames until the cell is built and its batches draw (at most 40); each is checked. */
static uint32_t run_build(fx *f, const uint8_t *ref, uint8_t *px, const bool *shown,
                          uint32_t *most_meshes) {
    uint32_t frames = 0, batched = 0;
    for (; frames < 40 && !batched; frames++) {
        frame(f, px);
        rill_render_batching_stats bs = stats(f);
        *most_meshes = RILL_MAX(*most_meshes, bs.meshes_built_last_frame);
        assert_true(match_fraction(ref, px) >= RILL_GOLDEN_MIN_MATCH);
        batched = assert_each_once(f, shown);
    }
    return frames;
}

static void test_sliced_build(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    static uint8_t ref[W * H * 4], px[W * H * 4];
    bool shown[BOXES];
    for (uint32_t k = 0; k < BOXES; k++) {
        shown[k] = true;
    }
    frame(&f, ref);
    frame(&f, ref);
    assert_int_equal(f.b.snap.instance_count, BOXES);
    /* A budget no step fits in: one mesh a frame, the cell built over twelve frames, every one of
     * them the unbatched picture with each box once. */
    batching_on(&f, 1e-6f, 2 * 24);
    uint32_t most = 0, frames = run_build(&f, ref, px, shown, &most);
    rill_render_batching_stats bs = stats(&f);
    print_message("built over %u frames, at most %u meshes a frame, %u batches\n", frames, most,
                  bs.batches);
    assert_int_equal(most, 1);
    assert_true(frames >= MESHES);
    assert_int_equal(bs.cells_built, 1);
    assert_int_equal(bs.batches, MESHES);
    assert_int_equal(bs.meshes_built, MESHES);
    assert_int_equal(bs.cells_building, 0);
    assert_int_equal(assert_each_once(&f, shown), BOXES);
    rill_render_stats rs;
    rill_renderer_stats(f.b.r, &rs);
    uint32_t draws_small = rs.draw_calls;
    /* A large budget: the same cell in one frame (all twelve meshes), the same picture. */
    rill_render_assets_set_batching(f.b.ra, &(rill_render_batching){.enabled = false});
    frame(&f, px);
    batching_on(&f, 1000.0f, 2 * 24);
    most = 0;
    frames = run_build(&f, ref, px, shown, &most);
    assert_int_equal(most, MESHES);
    /* Default mesh size: one mesh per key; meshes of a material share a block, so the draws are
     * the same. */
    rill_render_assets_set_batching(f.b.ra, &(rill_render_batching){.enabled = false});
    frame(&f, px);
    batching_on(&f, 1000.0f, 0);
    most = 0;
    run_build(&f, ref, px, shown, &most);
    frame(&f, px);
    rill_renderer_stats(f.b.r, &rs);
    print_message("draws: %u with 12 meshes, %u with 3\n", draws_small, rs.draw_calls);
    assert_int_equal(stats(&f).batches, 3);
    assert_int_equal(rs.draw_calls, draws_small);
    /* Meshes smaller than one box: one box a mesh, and every step still moves on. */
    rill_render_assets_set_batching(f.b.ra, &(rill_render_batching){.enabled = false});
    frame(&f, px);
    batching_on(&f, 1000.0f, 1);
    run_build(&f, ref, px, shown, &most);
    assert_int_equal(stats(&f).batches, BOXES);
    fx_done(&f);
}

/* The changes made while the cell is being built: boxes 0, 5, 10, 15 and 20 moved, 1 and 13
 * despawned, 2 and 14 given other channels, 3 and 16 switched off as a LOD level is. Spread over
 * the three keys and the cell, some are settled in a batch mesh already, some not yet. */
static void change_boxes(fx *f, bool *shown, rill_entity *hidden) {
    for (uint32_t k = 0; k < BOXES; k += 5) {
        place(f, f->box[k], 1.5f + 2.5f * (float)(k % 6) + 0.7f, 1.5f + 2.5f * (float)(k / 6));
    }
    const uint32_t gone[] = {1, 13}, chan[] = {2, 14}, off[] = {3, 16};
    for (int i = 0; i < 2; i++) {
        assert_true(rill_world_despawn(f->b.w, f->box[gone[i]]));
        shown[gone[i]] = false;
        assert_true(
            rill_channels_set(f->b.w, f->box[chan[i]], RILL_CHANNEL_CONTEXT | RILL_CHANNEL_GHOST));
        rill_render_mode_component rm = {RILL_RENDER_MODE_HIDDEN, 1.0f, 0.0f};
        assert_non_null(rill_world_add(f->b.w, f->box[off[i]], f->b.rc.render_mode, &rm));
        shown[off[i]] = false;
        hidden[i] = f->box[off[i]];
    }
}

/* The two switched-off boxes (boxes 3 and 16) shown again, or switched off again. */
static void set_shown(fx *f, const rill_entity *hidden, bool *shown, bool on) {
    for (int i = 0; i < 2; i++) {
        rill_render_mode_component rm = {on ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN,
                                         1.0f, 0.0f};
        assert_non_null(rill_world_add(f->b.w, hidden[i], f->b.rc.render_mode, &rm));
    }
    shown[3] = shown[16] = on;
}

static void test_change_mid_build(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    static uint8_t ref[W * H * 4], px[W * H * 4];
    static uint8_t seen[40][W * H * 4];
    bool shown[BOXES];
    for (uint32_t k = 0; k < BOXES; k++) {
        shown[k] = true;
    }
    frame(&f, ref);
    frame(&f, ref);
    batching_on(&f, 1e-6f, 2 * 24);
    /* Half way through the build (six of its twelve meshes): the boxes change. */
    uint32_t n = 0;
    while (stats(&f).meshes_built < MESHES / 2) {
        frame(&f, px);
        assert_true(match_fraction(ref, px) >= RILL_GOLDEN_MIN_MATCH);
        assert_each_once(&f, shown);
        assert_true(++n < 20);
    }
    rill_render_batching_stats bs = stats(&f);
    assert_int_equal(bs.cells_building, 1);
    uint64_t switches = bs.range_switches;
    rill_entity hidden[2];
    change_boxes(&f, shown, hidden);
    /* From this frame on: the world as it is now, each box once, until the cell is complete, built
     * once again (the changes) and drawn as batches. */
    uint32_t batched = 0;
    for (n = 0; n < 40 && !(stats(&f).cells_built == 2 && batched); n++) {
        frame(&f, seen[n]);
        batched = assert_each_once(&f, shown);
    }
    bs = stats(&f);
    print_message("changed mid-build: %llu left out at their step, %llu ranges switched off after "
                  "it, rebuilt %llu times, %u frames\n",
                  (unsigned long long)bs.members_changed,
                  (unsigned long long)(bs.range_switches - switches),
                  (unsigned long long)bs.cells_built, n);
    assert_true(n < 40);
    assert_int_equal(bs.cells_built, 2); /* the build, then once again for the changes */
    assert_int_equal(bs.cells_building, 0);
    assert_int_equal(bs.cells_waiting, 0);
    assert_true(bs.members_changed > 0);       /* changed before their step */
    assert_true(bs.range_switches > switches); /* ... and after it */
    /* moved and despawned boxes are out; the switched-off two are held, off */
    assert_int_equal(bs.batched_entities, BOXES - 5 - 2);
    /* The switched-off boxes are held in the batch with their range off: shown again, they draw
     * from it without a rebuild; switched off again, neither. */
    uint32_t batched_now = assert_each_once(&f, shown);
    set_shown(&f, hidden, shown, true);
    frame(&f, px);
    assert_int_equal(assert_each_once(&f, shown), batched_now + 2);
    set_shown(&f, hidden, shown, false);
    frame(&f, px);
    assert_int_equal(assert_each_once(&f, shown), batched_now);
    assert_int_equal(stats(&f).cells_built, 2);
    /* The reference: the same world unbatched; every frame since the changes showed it. */
    rill_render_assets_set_batching(f.b.ra, &(rill_render_batching){.enabled = false});
    frame(&f, ref);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(match_fraction(ref, seen[i]) >= RILL_GOLDEN_MIN_MATCH);
    }
    fx_done(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliced_build),
        cmocka_unit_test(test_change_mid_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
