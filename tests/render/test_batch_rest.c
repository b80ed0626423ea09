/* test_batch_rest.c: when static batching takes back an entity that stopped moving, counted in
 * extracts (the batcher's frames), on the null GPU backend. Boxes of the generated model and a
 * mover stand in one 8 m cell; the mover moves for a few frames, then the world updates without
 * moving it: it stays out of the batches for static_frames extracts and is taken back right after,
 * its cell rebuilt once, with no app frame in between (what bench_extract saw on the H200, where
 * the demo's falling cars stopped in a frame too short for a physics step). While the world's last
 * update did move it, no number of extracts batches it. A rebuilt cell draws its members one by one
 * until a frame is rendered (its new batch uploaded), then as one batch again. */
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
#include "rill/render.h"
#include "rill/scene/model.h"

#define BATCH_BIT (UINT64_C(1) << 63)
#define STATIC_FRAMES 5u
#define BOXES 4u

typedef struct fx {
    batch_fx b;
    rill_entity mover;
} fx;

static void place(fx *f, rill_entity e, float x, float z) {
    batch_fx_place(&f->b, e, x, z, false);
}

static rill_entity box(fx *f, float x, float z) {
    return batch_fx_box(&f->b, 0, 0, x, z, false);
}

static void fx_init(fx *f) {
    memset(f, 0, sizeof(*f));
    batch_fx_open(
        &f->b, "batch_rest", 96, 64, RILL_RENDER_BACKEND_NULL,
        &(batch_fx_camera){.pos = {4.0f, 6.0f, 12.0f}, .pitch = 0.45f, .far_plane = 100.0f});
    for (uint32_t i = 0; i < BOXES; i++) {
        box(f, 1.0f + 1.5f * (float)i, 2.0f);
    }
    f->mover = box(f, 1.0f, 5.0f);
}

static void fx_done(fx *f) {
    batch_fx_assert_no_validation(&f->b);
    batch_fx_close(&f->b);
}

static void extract(fx *f) {
    rill_error err = {0};
    assert_int_equal(rill_render_extract(f->b.w, &f->b.rc, &f->b.xb, &f->b.snap, &err), RILL_OK);
}

/* An app frame: the mover moves to x (or, x < 0, stays), transforms update, extract, render. */
static void frame(fx *f, float x) {
    rill_error err = {0};
    if (x >= 0.0f) {
        place(f, f->mover, x, 5.0f);
    }
    rill_world_update_transforms(f->b.w);
    extract(f);
    assert_int_equal(rill_renderer_render(f->b.r, &f->b.snap, &err), RILL_OK);
}

static bool drawn_alone(const fx *f, rill_entity e) {
    for (uint32_t i = 0; i < f->b.snap.instance_count; i++) {
        if (f->b.snap.instances[i].id == e) {
            return true;
        }
    }
    return false;
}

static uint32_t batches_drawn(const fx *f) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->b.snap.instance_count; i++) {
        n += (f->b.snap.instances[i].id & BATCH_BIT) != 0;
    }
    return n;
}

static rill_render_batching_stats stats(const fx *f) {
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(f->b.ra, &bs);
    return bs;
}

/* Batching on while the mover moves: the boxes are one batch, the mover an instance. */
static void start_moving(fx *f) {
    rill_render_assets_set_batching(
        f->b.ra, &(rill_render_batching){
                     .enabled = true, .cell_size = 8.0f, .static_frames = STATIC_FRAMES});
    for (int i = 0; i < 6; i++) {
        frame(f, 1.0f + 0.1f * (float)i);
    }
    assert_int_equal(batches_drawn(f), 1);
    assert_true(drawn_alone(f, f->mover));
    assert_int_equal(stats(f).batched_entities, BOXES);
}

static void test_rest_counted_in_extracts(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    start_moving(&f);
    uint64_t built = stats(&f).cells_built;
    /* The world's last update moved the mover: however many extracts run, it moved last frame. */
    for (uint32_t i = 0; i < 4 * STATIC_FRAMES; i++) {
        extract(&f);
        assert_true(drawn_alone(&f, f.mover));
    }
    assert_int_equal(stats(&f).cells_built, built);
    /* An update that moves nothing (an app frame without a physics step): static_frames extracts
     * later, and not before, the mover is taken back and its cell rebuilt, without app frames. */
    frame(&f, -1.0f);
    uint32_t at = 0;
    for (uint32_t i = 1; i <= 3 * STATIC_FRAMES && !at; i++) {
        extract(&f);
        at = stats(&f).cells_built > built ? i : 0;
    }
    print_message("the mover's cell was rebuilt %u extracts after the last update\n", at);
    assert_true(at > STATIC_FRAMES && at <= STATIC_FRAMES + 3);
    rill_render_batching_stats bs = stats(&f);
    assert_int_equal(bs.cells_built, built + 1);
    assert_int_equal(bs.batched_entities, BOXES + 1);
    /* Until a frame uploads the new batch, its members draw one by one (the mover too), and the
     * output stays so. */
    for (int i = 0; i < 3; i++) {
        extract(&f);
        assert_int_equal(batches_drawn(&f), 0);
        assert_int_equal(f.b.snap.instance_count, BOXES + 1);
        assert_true(drawn_alone(&f, f.mover));
    }
    /* Rendered once, the cell draws its batch, the mover in it. */
    frame(&f, -1.0f);
    frame(&f, -1.0f);
    assert_int_equal(batches_drawn(&f), 1);
    assert_int_equal(f.b.snap.instance_count, 1);
    assert_false(drawn_alone(&f, f.mover));
    assert_int_equal(stats(&f).cells_built, built + 1);
    fx_done(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_counted_in_extracts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
