/* test_render_thread.c: the render thread (rill_renderer_desc.render_thread) draws what the calling
 * thread alone draws. Two renderers built alike, one with a render thread, run the same frames
 * while resources churn between them (a mesh, a texture and a material made each frame and the
 * previous frame's destroyed while the render thread may still record the frame that drew them);
 * every frame's snapshot lives on a stack frame that is gone when the thread records (the
 * renderer copies the struct), and the instance array is rewritten after rill_renderer_sync, as
 * the contract says. The pictures read back must be byte for byte the same, validation clean,
 * every renderer byte freed; the threaded side's stats say render_thread_ms, and they are those of
 * the frame the caller last synchronised with. The tsan build runs it too (label gpu). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <string.h>

#include "rill/render.h"

#define W 96
#define H 64
#define FRAMES 8u
#define COUNT 40u

typedef struct side {
    rill_renderer *r;
    rill_mesh cube;
    rill_material base;
    /* made for one frame, destroyed after the next frame was handed over */
    rill_mesh extra_mesh;
    rill_texture extra_tex;
    rill_material extra_mat;
    rill_render_instance inst[COUNT + 1];
} side;

static void side_create(side *s, bool thread) {
    rill_error err = {0};
    memset(s, 0, sizeof(*s));
    s->r = render_test_renderer((rill_renderer_desc){
        .width = W, .height = H, .shadow_map_size = 256, .render_thread = thread});
    assert_non_null(s->r);
    rill_renderer_settings st;
    rill_renderer_get_settings(s->r, &st);
    assert_int_equal(st.render_thread, thread);
    s->cube = rill_render_mesh_cube(s->r, &err);
    assert_true(s->cube.id != 0);
    s->base = render_test_material(
        s->r, (rill_material_desc){.base_color = {0.8f, 0.6f, 0.4f, 1}, .roughness = 0.5f});
}

/* Frame f's extra resources: a sphere of 8 + f segments with a 2 x 2 texture of f's colour. */
static void make_extra(side *s, uint32_t f) {
    rill_error err = {0};
    s->extra_mesh = rill_render_mesh_sphere(s->r, 8u + f, &err);
    uint8_t px[16];
    for (uint32_t i = 0; i < 16; i++) {
        px[i] = (uint8_t)(i % 4 == 3 ? 255 : 40u + 25u * f + 30u * (i % 4));
    }
    s->extra_tex = rill_render_texture_create(
        s->r, &(rill_texture_desc){.pixels = px, .width = 2, .height = 2, .srgb = true}, &err);
    assert_true(s->extra_mesh.id && s->extra_tex.id);
    s->extra_mat = render_test_material(
        s->r, (rill_material_desc){.base_color = {1, 1, 1, 1}, .base_color_texture = s->extra_tex});
}

static void drop_extra(side *s, rill_mesh mesh, rill_texture tex, rill_material mat) {
    rill_render_material_destroy(s->r, mat);
    rill_render_texture_destroy(s->r, tex);
    rill_render_mesh_destroy(s->r, mesh);
}

/* Hands frame f over; the snapshot struct is this function's local. */
static void draw(side *s, uint32_t f) {
    rill_error err = {0};
    /* The contract: the arrays the last snapshot pointed to change only after the sync. */
    assert_int_equal(rill_renderer_sync(s->r, &err), RILL_OK);
    for (uint32_t k = 0; k < COUNT; k++) {
        float pos[3] = {(float)(k % 8) * 1.4f - 5.0f, 0.5f + 0.1f * (float)f,
                        -(float)(k / 8) * 1.4f};
        render_test_place(&s->inst[k], k + 1u, s->cube, s->base, pos, 0.5f, (float)(k + f) * 0.2f);
    }
    render_test_place(&s->inst[COUNT], 999u, s->extra_mesh, s->extra_mat,
                      (float[3]){0.0f, 2.0f, -2.0f}, 1.2f, 0.0f);
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 world_from_view;
    render_test_look_at(world_from_view, (float[3]){0, 4, 6}, (float[3]){0, 0, -3});
    memcpy(snap.view.world_from_view, world_from_view, sizeof(mat4));
    snap.view.fov_y = 0.9f;
    snap.has_sun = true;
    snap.sun.direction[0] = -0.3f, snap.sun.direction[1] = -0.9f, snap.sun.direction[2] = -0.3f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    snap.sun.shadows = true;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.2f;
    snap.instances = s->inst;
    snap.instance_count = COUNT + 1u;
    assert_int_equal(rill_renderer_render(s->r, &snap, &err), RILL_OK);
}

/* One frame on a side: new extra resources, the frame, then last frame's resources destroyed
 * while (with the thread) this frame may be recording. */
static void step(side *s, uint32_t f) {
    rill_mesh old_mesh = s->extra_mesh;
    rill_texture old_tex = s->extra_tex;
    rill_material old_mat = s->extra_mat;
    make_extra(s, f);
    draw(s, f);
    drop_extra(s, old_mesh, old_tex, old_mat);
}

static void same_pixels_with_churn(void **state) {
    (void)state;
    side *a = rill_calloc(1, sizeof(side)), *b = rill_calloc(1, sizeof(side));
    assert_true(a && b);
    side_create(a, false);
    side_create(b, true);
    static uint8_t pa[W * H * 4], pb[W * H * 4];
    rill_error err = {0};
    for (uint32_t f = 0; f < FRAMES; f++) {
        step(a, f);
        step(b, f);
        if (f == 3 || f + 1 == FRAMES) {
            assert_int_equal(rill_renderer_read_pixels(a->r, pa, sizeof(pa), &err), RILL_OK);
            assert_int_equal(rill_renderer_read_pixels(b->r, pb, sizeof(pb), &err), RILL_OK);
            assert_memory_equal(pa, pb, sizeof(pa));
        }
    }
    rill_render_stats sa, sb;
    rill_renderer_stats(a->r, &sa);
    rill_renderer_stats(b->r, &sb);
    assert_true(sa.render_thread_ms == 0.0);
    assert_true(sb.render_thread_ms > 0.0);
    assert_int_equal(sa.instances_submitted, sb.instances_submitted);
    assert_int_equal(sa.draw_calls, sb.draw_calls);
    drop_extra(a, a->extra_mesh, a->extra_tex, a->extra_mat);
    drop_extra(b, b->extra_mesh, b->extra_tex, b->extra_mat);
    assert_int_equal(render_test_destroy(a->r), 0);
    assert_int_equal(render_test_destroy(b->r), 0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_RENDER), 0);
    rill_free(a);
    rill_free(b);
}

/* Destroying a renderer right after a hand-off finishes the frame first; sync is a no-op without
 * a thread and refuses NULL. */
static void destroy_in_flight(void **state) {
    (void)state;
    side *s = rill_calloc(1, sizeof(side));
    assert_non_null(s);
    side_create(s, true);
    make_extra(s, 0);
    draw(s, 0);
    rill_renderer_destroy(s->r); /* the frame is still being recorded */
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_RENDER), 0);
    side_create(s, false);
    rill_error err = {0};
    assert_int_equal(rill_renderer_sync(s->r, &err), RILL_OK);
    assert_int_equal(rill_renderer_sync(NULL, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(render_test_destroy(s->r), 0);
    rill_free(s);
}

/* rill_renderer_stats gives the frame the caller last synchronised with, however far the thread
 * has got: after a hand-off the frame before (fly's frames.jsonl lines rely on it), after a sync
 * the frame handed over. GPU timings after rill_renderer_wait_idle are the waited frame's, as
 * without the thread. */
static void stats_of_the_synced_frame(void **state) {
    (void)state;
    side *s = rill_calloc(1, sizeof(side)), *plain = rill_calloc(1, sizeof(side));
    assert_true(s && plain);
    side_create(s, true);
    side_create(plain, false);
    rill_error err = {0};
    make_extra(s, 0);
    make_extra(plain, 0);
    draw(s, 0);
    draw(plain, 0);
    assert_int_equal(rill_renderer_wait_idle(s->r, &err), RILL_OK);
    assert_int_equal(rill_renderer_wait_idle(plain->r, &err), RILL_OK);
    rill_render_stats first, now, ref;
    rill_renderer_stats(s->r, &first);
    rill_renderer_stats(plain->r, &ref);
    assert_true(ref.pass_count > 0);
    assert_int_equal(first.pass_count, ref.pass_count);
    for (uint32_t i = 0; i < ref.pass_count; i++) {
        assert_string_equal(first.pass_names[i], ref.pass_names[i]);
    }
    draw(s, 1);
    rill_sleep_ns(300u * 1000u * 1000u); /* the thread finishes frame 1 meanwhile, unseen */
    rill_renderer_stats(s->r, &now);
    assert_true(now.frame_index == first.frame_index);
    assert_true(now.render_thread_ms == first.render_thread_ms);
    assert_int_equal(rill_renderer_sync(s->r, &err), RILL_OK);
    rill_renderer_stats(s->r, &now);
    assert_true(now.frame_index > first.frame_index);
    drop_extra(s, s->extra_mesh, s->extra_tex, s->extra_mat);
    drop_extra(plain, plain->extra_mesh, plain->extra_tex, plain->extra_mat);
    assert_int_equal(render_test_destroy(s->r), 0);
    assert_int_equal(render_test_destroy(plain->r), 0);
    rill_free(s);
    rill_free(plain);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_pixels_with_churn),
        cmocka_unit_test(destroy_in_flight),
        cmocka_unit_test(stats_of_the_synced_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
