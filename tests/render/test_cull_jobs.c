/* test_cull_jobs.c: culling split over the job system (rill_renderer_desc.jobs) gives what the
 * calling thread alone gives. Two renderers built alike, one without jobs and one with three
 * workers, draw the same frames of a scene of several culling slices (every list kind, hidden
 * instances, instances without id or sharing one, moved and reordered instances, instances drawn
 * as ranges); each frame's draw lists must be equal item for item (keys, snapshot positions,
 * motion history slots, ranges) and so must the pictures. Reads the renderer's internals (frame.h)
 * to compare the lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <string.h>

#include "frame.h"
#include "rill/render.h"

#define W 96
#define H 64
#define COUNT 7000u /* three culling slices and part of a fourth */

typedef struct side {
    rill_renderer *r;
    rill_mesh cube, sphere;
    rill_material opaque, blend, mask;
} side;

static void side_create(side *s, rill_jobs *jobs) {
    rill_error err = {0};
    s->r = render_test_renderer(
        (rill_renderer_desc){.width = W, .height = H, .shadow_map_size = 256, .jobs = jobs});
    assert_non_null(s->r);
    /* The motion history takes every new id of the first frame (COUNT), whatever the clock says:
     * under its time budget the serial and the parallel renderer took different numbers. */
    rill__motion_history_set_new_ids(s->r, 8192u, 0.0);
    s->cube = rill_render_mesh_cube(s->r, &err);
    s->sphere = rill_render_mesh_sphere(s->r, 12, &err);
    assert_true(s->cube.id && s->sphere.id);
    s->opaque = render_test_material(
        s->r, (rill_material_desc){.base_color = {0.8f, 0.6f, 0.4f, 1}, .roughness = 0.5f});
    s->blend =
        render_test_material(s->r, (rill_material_desc){.base_color = {0.2f, 0.5f, 0.9f, 0.5f},
                                                        .alpha_mode = RILL_ALPHA_BLEND});
    s->mask = render_test_material(s->r, (rill_material_desc){.base_color = {0.4f, 0.9f, 0.3f, 1},
                                                              .alpha_mode = RILL_ALPHA_MASK,
                                                              .double_sided = true});
}

/* Instance k of frame `frame` for side s: a grid of 100 columns, most of it outside the view;
 * frame 1 moves every fifth instance, frame 2 also lists a block of them in reverse order (so
 * their history is found through the map, not their position) and gives some new ids. */
static void place(const side *s, rill_render_instance *in, uint32_t k, uint32_t frame) {
    bool blend = k % 7 == 0, mask = k % 7 == 1;
    rill_material m = blend ? s->blend : mask ? s->mask : s->opaque;
    float pos[3] = {(float)(k % 100) * 1.5f - 75.0f, 0.5f, -(float)(k / 100) * 1.5f};
    if (frame >= 1 && k % 5 == 0) {
        pos[1] += 0.25f * (float)frame;
    }
    uint32_t id = k + 1u;
    if (k % 19 == 0) {
        id = 0; /* no motion history */
    } else if (k % 29 == 0) {
        id = k; /* the same id as the instance before */
    } else if (frame == 2 && k % 31 == 0) {
        id = 100000u + k; /* new this frame */
    }
    render_test_place(in, id, k % 3 ? s->cube : s->sphere, m, pos, 0.6f, (float)k * 0.1f);
    in->mode = k % 17 == 0   ? RILL_RENDER_MODE_HIDDEN
               : k % 11 == 0 ? RILL_RENDER_MODE_WIREFRAME
                             : RILL_RENDER_MODE_NORMAL;
    in->lod_fade = k % 23 == 0 ? 0.5f : 0.0f;
    if (k % 3 && k % 13 == 0) { /* a cube drawn as ranges, the last beyond its indices */
        in->range_first = 0;
        in->range_count = k % 2 ? 2 : 3;
    }
}

/* The cube's halves as two ranges, each culled on its own sphere, and one beyond the cube's 36
 * indices (draws nothing). */
static const rill_render_range cube_ranges[3] = {
    {.index_count = 18, .center = {-0.25f, 0, 0}, .radius = 0.8f},
    {.first_index = 18, .index_count = 18, .center = {0.25f, 0, 0}, .radius = 0.8f},
    {.first_index = 30, .index_count = 18, .radius = 1.0f},
};

/* Renders frame `frame` of the scene on s into px. */
static void draw(const side *s, rill_render_instance *inst, uint32_t frame, uint8_t *px) {
    for (uint32_t k = 0; k < COUNT; k++) {
        place(s, &inst[k], k, frame);
    }
    if (frame == 2) {
        for (uint32_t a = 3000, b = 3999; a < b; a++, b--) {
            rill_render_instance t = inst[a];
            inst[a] = inst[b];
            inst[b] = t;
        }
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 world_from_view;
    render_test_look_at(world_from_view, (float[3]){-40, 4, 6}, (float[3]){-40, 0, -8});
    memcpy(snap.view.world_from_view, world_from_view, sizeof(mat4));
    snap.view.fov_y = 0.9f;
    snap.has_sun = true;
    snap.sun.direction[0] = -0.3f, snap.sun.direction[1] = -0.9f, snap.sun.direction[2] = -0.3f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    snap.sun.shadows = true;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.2f;
    snap.instances = inst;
    snap.instance_count = COUNT;
    snap.ranges = cube_ranges;
    snap.range_count = 3;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(s->r, &snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(s->r, px, W * H * 4, &err), RILL_OK);
}

/* The draw lists of the frames just drawn by a and b are equal item for item. */
static void lists_equal(const side *a, const side *b) {
    const rill__view *va = &a->r->frame.views[0], *vb = &b->r->frame.views[0];
    assert_int_equal(a->r->frame.view_count, b->r->frame.view_count);
    assert_int_equal(va->opaque_solid, vb->opaque_solid);
    assert_int_equal(va->casters_plain, vb->casters_plain);
    assert_int_equal(va->wires_edges, vb->wires_edges);
    const draw_item *la[5] = {va->opaque.data, va->transparent.data, va->casters.data,
                              va->wires.data, va->ghosts.data};
    const draw_item *lb[5] = {vb->opaque.data, vb->transparent.data, vb->casters.data,
                              vb->wires.data, vb->ghosts.data};
    uint32_t na[5] = {va->opaque.len, va->transparent.len, va->casters.len, va->wires.len,
                      va->ghosts.len};
    uint32_t nb[5] = {vb->opaque.len, vb->transparent.len, vb->casters.len, vb->wires.len,
                      vb->ghosts.len};
    for (int l = 0; l < 5; l++) {
        assert_int_equal(na[l], nb[l]);
        for (uint32_t k = 0; k < na[l]; k++) {
            assert_true(la[l][k].key == lb[l][k].key);
            assert_int_equal(la[l][k].inst, lb[l][k].inst);
            assert_int_equal(la[l][k].prev, lb[l][k].prev);
            assert_int_equal(la[l][k].range, lb[l][k].range);
            assert_int_equal(la[l][k].range_n, lb[l][k].range_n);
        }
    }
    /* The scene exercises every list but ghosts, ranged items too, and culls part of the grid. */
    assert_true(na[0] > 0 && na[1] > 0 && na[2] > 0 && na[3] > 0);
    uint32_t ranged = 0;
    for (uint32_t k = 0; k < na[0]; k++) {
        ranged += la[0][k].range_n != 0;
    }
    assert_true(ranged > 0);
    assert_true(na[0] + na[1] + na[3] < COUNT / 2);
}

/* Serial and parallel culling give the same lists, motion included, and the same pictures. */
static void test_jobs_equal_serial(void **state) {
    (void)state;
    rill_error err = {0};
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 3}, &err);
    assert_non_null(jobs);
    side a, b;
    side_create(&a, NULL);
    side_create(&b, jobs);
    static rill_render_instance ia[COUNT], ib[COUNT];
    static uint8_t pa[W * H * 4], pb[W * H * 4];
    uint32_t moving = 0;
    for (uint32_t frame = 0; frame < 3; frame++) {
        draw(&a, ia, frame, pa);
        draw(&b, ib, frame, pb);
        lists_equal(&a, &b);
        assert_memory_equal(pa, pb, sizeof(pa));
        const rill__view *v = &a.r->frame.views[0];
        for (uint32_t k = 0; k < v->opaque.len; k++) {
            moving += v->opaque.data[k].prev != UINT32_MAX;
        }
    }
    assert_true(moving > 0); /* some items carried last frame's matrix */
    render_test_destroy_clean(a.r, false);
    render_test_destroy_clean(b.r, false);
    rill_jobs_destroy(jobs);
}

/* Frame `frame` of the shift scene (n small cubes in view, ids 1..n, all lifted a little more
 * each frame): from frame 1 on, a new instance (id 1000 + frame) is listed first, shifting every
 * other one a position on. Renders it on s and returns the instance count. */
static uint32_t shift_draw(const side *s, rill_render_instance *inst, uint32_t n, uint32_t frame) {
    uint32_t at = frame ? 1u : 0u;
    if (at) {
        float pos[3] = {0.0f, 2.0f, 0.0f};
        render_test_place(&inst[0], 1000u + frame, s->cube, s->opaque, pos, 0.2f, 0.0f);
    }
    for (uint32_t k = 0; k < n; k++) {
        float pos[3] = {(float)(k % 20) * 0.3f - 3.0f,
                        (float)(k / 20) * 0.25f - 1.5f + 0.01f * (float)frame, 0.0f};
        render_test_place(&inst[at + k], k + 1u, s->cube, s->opaque, pos, 0.1f, 0.3f);
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 world_from_view;
    render_test_look_at(world_from_view, (float[3]){0, 1, 8}, (float[3]){0, 0.5f, 0});
    memcpy(snap.view.world_from_view, world_from_view, sizeof(mat4));
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.5f;
    snap.instances = inst;
    snap.instance_count = n + at;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(s->r, &snap, &err), RILL_OK);
    return n + at;
}

/* An instance added at the snapshot's front shifts every other one a position on: the culling
 * jobs find their motion history through the id map, so the serial pass looks up only the new
 * id, and every moved instance still carries last frame's matrix. */
static void test_history_survives_shift(void **state) {
    (void)state;
    rill_error err = {0};
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 2}, &err);
    assert_non_null(jobs);
    side a;
    side_create(&a, jobs);
    enum { N = 300 };
    static rill_render_instance inst[N + 1];
    for (uint32_t frame = 0; frame < 3; frame++) {
        uint32_t n = shift_draw(&a, inst, N, frame);
        assert_int_equal(a.r->history_lookups, frame ? 1u : (uint32_t)N);
        const rill__view *v = &a.r->frame.views[0];
        uint32_t listed = 0, moving = 0;
        for (uint32_t k = 0; k < v->opaque.len; k++) {
            const draw_item *it = &v->opaque.data[k];
            listed += inst[it->inst].id <= N;
            moving += inst[it->inst].id <= N && it->prev != UINT32_MAX;
        }
        assert_true(listed > N / 2 && listed < n + 1u);
        assert_int_equal(moving, frame ? listed : 0u);
    }
    render_test_destroy_clean(a.r, false);
    rill_jobs_destroy(jobs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobs_equal_serial),
        cmocka_unit_test(test_history_survives_shift),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
