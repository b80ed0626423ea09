/* test_extract_marks.c: rill_render_extract marks what changed since the last extract into the
 * same buffer (rill_render_snapshot.instance_changed, instance_epoch / instance_changed_since), and
 * GPU culling trusts those marks only when they compare with the snapshot it scanned last.
 * Without a renderer: a moved entity is the one position marked, a despawn the position whose
 * entity changed, a spawn the new position, every position after a freed buffer; marks over jobs
 * equal the serial ones; appended instances (rill_render_extract_mark_appended) are marked the
 * same way. With two renderers built alike on lavapipe, one on the CPU path and one with GPU
 * culling: a static world's third frame passes every instance unread, a moving one all but it,
 * an extract the renderer never drew (or a second world drawn in turn) makes it read everything,
 * and in every frame the GPU path's view bits and picture are the CPU path's. Reads the
 * renderer's internals (frame.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "rill/render.h"

#define W 96
#define H 64
#define GRID 100u  /* columns of the grid of cubes */
#define MANY 9000u /* three chunks of the marking */
#define FEW 2000u  /* the GPU scenes: a part of the grid in view */

typedef struct scene {
    rill_world *w;
    rill_render_components rc;
    rill_entity cam;
    rill_entity *ents;
    uint32_t n;
} scene;

/* The place of grid cell k, lifted by `lift`. */
static void cell_transform(uint32_t k, float lift, rill_transform *t) {
    *t = rill_transform_identity();
    t->translation[0] = (float)(k % GRID) * 1.5f - 75.0f;
    t->translation[1] = 0.5f + lift;
    t->translation[2] = -(float)(k / GRID) * 1.5f;
    t->scale[0] = t->scale[1] = t->scale[2] = 0.6f;
}

/* n cubes (MeshInstance of mesh / material) on the grid and a camera looking at part of it. */
static void scene_make(scene *s, uint32_t n, uint32_t mesh, uint32_t material) {
    rill_error err = {0};
    s->w = rill_world_create(NULL, NULL);
    assert_non_null(s->w);
    assert_int_equal(rill_render_register_components(s->w, &s->rc, &err), RILL_OK);
    s->cam = rill_world_spawn(s->w);
    rill_camera c = {.active = true, .fov_y = 0.9f, .near_plane = 0.1f, .far_plane = 500.0f};
    assert_non_null(rill_world_add(s->w, s->cam, RILL_COMPONENT_CAMERA, &c));
    render_test_entity_look_at(s->w, s->cam, (float[3]){-40, 4, 6}, (float[3]){-40, 0, -8});
    s->ents = calloc(n + 8u, sizeof(*s->ents));
    assert_non_null(s->ents);
    s->n = n;
    for (uint32_t k = 0; k < n; k++) {
        rill_entity e = s->ents[k] = rill_world_spawn(s->w);
        rill_transform t;
        cell_transform(k, 0.0f, &t);
        assert_true(rill_world_set_transform(s->w, e, &t));
        rill_mesh_instance mi = {mesh, material};
        assert_non_null(rill_world_add(s->w, e, s->rc.mesh_instance, &mi));
    }
    rill_world_update_transforms(s->w);
}

static void scene_free(scene *s) {
    rill_world_destroy(s->w);
    free(s->ents);
}

/* Lifts grid cell k's entity by `lift` (0: back in its place). */
static void scene_lift(scene *s, uint32_t k, float lift) {
    rill_transform t;
    cell_transform(k, lift, &t);
    assert_true(rill_world_set_transform(s->w, s->ents[k], &t));
    rill_world_update_transforms(s->w);
}

static void extract(scene *s, rill_render_extract_buf *xb, rill_render_snapshot *snap) {
    rill_error err = {0};
    assert_int_equal(rill_render_extract(s->w, &s->rc, xb, snap, &err), RILL_OK);
}

/* Positions marked changed; *first: the first of them (UINT32_MAX: none). */
static uint32_t marked(const rill_render_snapshot *snap, uint32_t *first) {
    assert_non_null(snap->instance_changed);
    uint32_t n = 0;
    *first = UINT32_MAX;
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        if (snap->instance_changed[i]) {
            *first = n++ ? *first : i;
        }
    }
    return n;
}

/* The snapshot position of entity e's instance (fails when it has none). */
static uint32_t position_of(const rill_render_snapshot *snap, rill_entity e) {
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        if (snap->instances[i].id == e) {
            return i;
        }
    }
    fail_msg("entity %llu not extracted", (unsigned long long)e);
    return UINT32_MAX;
}

/* The marks of snap are what comparing each position's fields with prev (prev_n instances of the
 * extract before) gives. */
static void assert_marks_compare(const rill_render_snapshot *snap, const rill_render_instance *prev,
                                 uint32_t prev_n) {
    assert_non_null(snap->instance_changed);
    size_t fields = offsetof(rill_render_instance, range_count) + sizeof(uint32_t);
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        bool differs = i >= prev_n || memcmp(&snap->instances[i], &prev[i], fields) != 0;
        assert_int_equal(snap->instance_changed[i] != 0, differs);
    }
}

/* Marks over jobs and serial: the first extract marks everything (it compares with none), a
 * second of the same world nothing; a moved entity is the one position marked; a spawn and a
 * despawn mark the positions whose instance changed: MeshInstances come in the order they were
 * added, so a spawn appends (one mark) and a despawn moves the last one into its hole (one mark,
 * nothing else shifts); a freed buffer compares with nothing again. Epochs name the
 * extract compared with and are unique across buffers. */
static void test_marks_follow_changes(void **state) {
    (void)state;
    scene s;
    scene_make(&s, MANY, 1, 1); /* handles never drawn: extract alone */
    rill_error err = {0};
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 2}, &err);
    assert_non_null(jobs);
    rill_render_extract_buf xb = {0}, xs = {0};
    xb.jobs = jobs;
    rill_render_snapshot sb, ss;
    uint32_t first;

    extract(&s, &xb, &sb);
    extract(&s, &xs, &ss);
    assert_int_equal(sb.instance_count, MANY);
    assert_int_equal(marked(&sb, &first), MANY);
    assert_int_equal(sb.instance_changed_since, 0);
    assert_true(sb.instance_epoch != 0 && ss.instance_epoch != 0);
    assert_true(sb.instance_epoch != ss.instance_epoch);
    uint64_t e1 = sb.instance_epoch;

    extract(&s, &xb, &sb);
    extract(&s, &xs, &ss);
    assert_int_equal(marked(&sb, &first), 0);
    assert_int_equal(marked(&ss, &first), 0);
    assert_int_equal(sb.instance_changed_since, e1);
    assert_true(sb.instance_epoch != e1);

    /* One moved (in the third chunk of the marking). */
    scene_lift(&s, 8123, 0.5f);
    extract(&s, &xb, &sb);
    extract(&s, &xs, &ss);
    assert_int_equal(marked(&sb, &first), 1);
    assert_int_equal(first, position_of(&sb, s.ents[8123]));
    assert_int_equal(sb.instance_prev[first], UINT32_MAX); /* changed: found nowhere */
    assert_memory_equal(sb.instance_changed, ss.instance_changed, MANY);

    /* A spawn, then a despawn: each position compared with the last extract's. */
    size_t bytes = (size_t)(MANY + 1u) * sizeof(rill_render_instance);
    rill_render_instance *prev = malloc(bytes);
    assert_non_null(prev);
    memcpy(prev, sb.instances, (size_t)sb.instance_count * sizeof(*prev));
    rill_entity extra = rill_world_spawn(s.w);
    rill_transform t;
    cell_transform(MANY, 0.0f, &t);
    assert_true(rill_world_set_transform(s.w, extra, &t));
    assert_non_null(rill_world_add(s.w, extra, s.rc.mesh_instance, &(rill_mesh_instance){1, 1}));
    rill_world_update_transforms(s.w);
    extract(&s, &xb, &sb);
    assert_int_equal(sb.instance_count, MANY + 1u);
    assert_marks_compare(&sb, prev, MANY);
    assert_int_equal(position_of(&sb, extra), MANY); /* the spawn appends: nothing shifts */
    assert_int_equal(marked(&sb, &first), 1);
    assert_int_equal(first, MANY);
    for (uint32_t i = 0; i < MANY; i++) {
        assert_int_equal(sb.instance_prev[i], i);
    }
    assert_int_equal(sb.instance_prev[MANY], UINT32_MAX);

    memcpy(prev, sb.instances, bytes);
    uint32_t gone_at = position_of(&sb, s.ents[10]);
    assert_true(rill_world_despawn(s.w, s.ents[10]));
    extract(&s, &xb, &sb);
    assert_int_equal(sb.instance_count, MANY);
    assert_marks_compare(&sb, prev, MANY + 1u);
    assert_int_equal(position_of(&sb, extra), gone_at); /* the last one fills the hole */
    assert_int_equal(marked(&sb, &first), 1);
    assert_int_equal(first, gone_at);
    free(prev);

    /* A freed buffer has nothing to compare with. */
    rill_render_extract_buf_free(&xb);
    xb.jobs = jobs;
    extract(&s, &xb, &sb);
    assert_int_equal(sb.instance_changed_since, 0);
    assert_int_equal(marked(&sb, &first), MANY);

    rill_render_extract_buf_free(&xb);
    rill_render_extract_buf_free(&xs);
    rill_jobs_destroy(jobs);
    scene_free(&s);
}

/* Instances appended behind an extract (as rill_content appends its proxies) are marked by
 * rill_render_extract_mark_appended against the last extract's; a snapshot of another buffer,
 * or of a failed extract, keeps no marks. */
static void test_marks_appended(void **state) {
    (void)state;
    scene s;
    scene_make(&s, 50, 1, 1);
    rill_render_extract_buf xb = {0}, other = {0};
    rill_render_snapshot snap, snap2;
    uint32_t first;
    rill_error err = {0};
    for (uint32_t frame = 0; frame < 3; frame++) {
        extract(&s, &xb, &snap);
        for (uint32_t k = 0; k < 3; k++) {
            rill_render_instance in = xb.instances.data[k];
            in.id = 1000u + k;
            in.transform[13] += frame == 2 && k == 1 ? 1.0f : 0.0f; /* frame 2 moves one */
            assert_true(rill_array_push(&xb.instances, in));
        }
        assert_int_equal(rill_render_extract_mark_appended(&xb, &snap, &err), RILL_OK);
        assert_int_equal(snap.instance_count, 53u);
        assert_ptr_equal(snap.instances, xb.instances.data);
        uint32_t n = marked(&snap, &first);
        assert_int_equal(n, frame == 0 ? 53u : frame == 1 ? 0u : 1u);
        assert_int_equal(first, frame == 0 ? 0u : frame == 1 ? UINT32_MAX : 51u);
    }
    extract(&s, &other, &snap2);
    assert_int_equal(rill_render_extract_mark_appended(&xb, &snap2, &err), RILL_OK);
    assert_null(snap2.instance_changed);
    /* A world without an active camera: the extract fails and marks nothing. */
    rill_camera *cam = rill_world_get(s.w, s.cam, RILL_COMPONENT_CAMERA);
    cam->active = false;
    assert_int_equal(rill_render_extract(s.w, &s.rc, &xb, &snap, &err), RILL_ERR_NOT_FOUND);
    assert_int_equal(rill_render_extract_mark_appended(&xb, &snap, &err), RILL_OK);
    assert_null(snap.instance_changed);
    cam->active = true;
    extract(&s, &xb, &snap); /* the failed one left nothing to compare with */
    assert_int_equal(snap.instance_changed_since, 0);
    assert_int_equal(marked(&snap, &first), 50u);
    rill_render_extract_buf_free(&xb);
    rill_render_extract_buf_free(&other);
    scene_free(&s);
}

/* >>the GPU path against the CPU path */

typedef struct side {
    rill_renderer *r;
    rill_mesh cube;
    rill_material mat;
} side;

static void side_create(side *s, bool gpu) {
    rill_error err = {0};
    s->r = render_test_renderer((rill_renderer_desc){
        .width = W,
        .height = H,
        .shadow_map_size = 256,
        .debug_flags = gpu ? RILL_RENDER_DEBUG_GPU_CULL : 0u,
    });
    assert_non_null(s->r);
    if (gpu) {
        rill__gpu_cull_set_readback(s->r, true);
        rill__gpu_cull_set_boarding(s->r, 8192u, 0.0); /* every new id in its first frame */
    }
    s->cube = rill_render_mesh_cube(s->r, &err);
    s->mat = render_test_material(
        s->r, (rill_material_desc){.base_color = {0.8f, 0.6f, 0.4f, 1}, .roughness = 0.5f});
}

typedef struct pair {
    side cpu, gpu;
    uint8_t pc[W * H * 4], pg[W * H * 4];
} pair;

/* Two renderers with the same handles (the worlds name them by number). */
static pair *pair_create(void) {
    pair *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    side_create(&p->cpu, false);
    side_create(&p->gpu, true);
    assert_int_equal(p->cpu.cube.id, p->gpu.cube.id);
    assert_int_equal(p->cpu.mat.id, p->gpu.mat.id);
    return p;
}

static void pair_destroy(pair *p) {
    render_test_destroy_clean(p->cpu.r, false);
    render_test_destroy_clean(p->gpu.r, false);
    free(p);
}

/* Whether the CPU renderer listed snapshot position k as opaque in its view. */
static bool cpu_listed(const rill_renderer *r, uint32_t k) {
    const rill__view *v = &r->frame.views[0];
    for (uint32_t j = 0; j < v->opaque.len; j++) {
        if (v->opaque.data[j].inst == k) {
            return true;
        }
    }
    return false;
}

/* Draws snap on both; the pictures are the same and so are the view bits (the GPU path takes
 * every instance: opaque, with ids). Position `exact` (UINT32_MAX: none) must agree exactly;
 * elsewhere a sphere touching a plane may round the other way, twice at most. Returns the
 * instances the GPU path passed unread. */
static uint32_t draw_both(pair *p, const rill_render_snapshot *snap, uint32_t exact) {
    rill_error err = {0};
    const side *sides[2] = {&p->cpu, &p->gpu};
    uint8_t *px[2] = {p->pc, p->pg};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(rill_renderer_render(sides[k]->r, snap, &err), RILL_OK);
        assert_int_equal(rill_renderer_read_pixels(sides[k]->r, px[k], W * H * 4, &err), RILL_OK);
        assert_int_equal(rill_renderer_wait_idle(sides[k]->r, &err), RILL_OK);
    }
    uint32_t near_miss = 0, seen = 0;
    for (uint32_t k = 0; k < snap->instance_count; k++) {
        uint32_t flags = rill__gpu_cull_flags(p->gpu.r, snap->instances[k].id);
        assert_true(flags != UINT32_MAX); /* resident */
        bool want = cpu_listed(p->cpu.r, k), got = (flags & 1u) != 0;
        seen += got;
        if (k == exact) {
            assert_int_equal(want, got);
        }
        near_miss += want != got;
    }
    assert_true(near_miss <= 2);
    assert_true(seen > 0 && seen < snap->instance_count / 2);
    assert_memory_equal(p->pc, p->pg, sizeof(p->pc));
    rill_render_stats st;
    rill_renderer_stats(p->gpu.r, &st);
    assert_int_equal(st.gpu_cull_resident, snap->instance_count);
    return st.gpu_cull_unchanged;
}

/* Grid cell of the instance that moves: in the view, lifted far out of it and back. */
#define MOVER 523u
#define OUT_OF_VIEW 40.0f

/* A static world's third frame passes every instance unread (the first spawns the table, the
 * second settles it); an entity moving in and out of the view every frame is read (all but it
 * pass unread) and drawn where it is, as on the CPU path. */
static void test_static_world_passes_unread(void **state) {
    (void)state;
    pair *p = pair_create();
    scene s;
    scene_make(&s, FEW, p->gpu.cube.id, p->gpu.mat.id);
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    for (uint32_t frame = 0; frame < 7; frame++) {
        bool moves = frame >= 3 && frame <= 5, in_view = frame < 3 || frame == 4;
        if (moves) {
            scene_lift(&s, MOVER, in_view ? 0.0f : OUT_OF_VIEW);
        }
        extract(&s, &xb, &snap);
        uint32_t mover = position_of(&snap, s.ents[MOVER]);
        uint32_t quiet = draw_both(p, &snap, mover);
        /* Frames 3..5 read the mover (marked); frame 6 too (it moved in the last scan). */
        uint32_t want = frame < 2 ? 0u : frame < 3 ? FEW : FEW - 1u;
        assert_int_equal(quiet, want);
        assert_int_equal(cpu_listed(p->cpu.r, mover), in_view);
    }
    rill_render_extract_buf_free(&xb);
    scene_free(&s);
    pair_destroy(p);
}

/* The marks compare with the extract before, not with what the renderer drew last: an extract
 * the renderer skipped (two extracts, one render) leaves marks that say "unchanged" of an entity
 * that moved since the drawn frame. The renderer reads every instance then and draws the entity
 * where it is now; the next frame trusts the marks again. One renderer drawing two worlds in turn
 * reads everything each frame. */
static void test_skipped_extract_reads_all(void **state) {
    (void)state;
    pair *p = pair_create();
    scene s, s2;
    scene_make(&s, FEW, p->gpu.cube.id, p->gpu.mat.id);
    rill_render_extract_buf xb = {0}, xb2 = {0};
    rill_render_snapshot snap, snap2;
    uint32_t first;
    for (uint32_t frame = 0; frame < 3; frame++) {
        extract(&s, &xb, &snap);
        assert_int_equal(draw_both(p, &snap, UINT32_MAX), frame < 2 ? 0u : FEW);
    }
    scene_lift(&s, MOVER, OUT_OF_VIEW);
    extract(&s, &xb, &snap); /* marks the mover: never drawn */
    assert_int_equal(marked(&snap, &first), 1);
    extract(&s, &xb, &snap); /* marks nothing: the same as the one before */
    assert_int_equal(marked(&snap, &first), 0);
    uint32_t mover = position_of(&snap, s.ents[MOVER]);
    assert_int_equal(draw_both(p, &snap, mover), 0u);
    assert_false(cpu_listed(p->cpu.r, mover));
    extract(&s, &xb, &snap);
    assert_int_equal(draw_both(p, &snap, mover), FEW - 1u); /* (the mover moved in the last) */

    /* Two worlds in turn: the second's cubes a little higher, so the pictures differ. */
    scene_make(&s2, FEW, p->gpu.cube.id, p->gpu.mat.id);
    for (uint32_t k = 0; k < FEW; k += 7) {
        scene_lift(&s2, k, 0.3f);
    }
    for (uint32_t frame = 0; frame < 4; frame++) {
        extract(&s, &xb, &snap);
        extract(&s2, &xb2, &snap2);
        /* (the first follows the world's last drawn frame) */
        assert_int_equal(draw_both(p, &snap, UINT32_MAX), frame ? 0u : FEW);
        assert_int_equal(draw_both(p, &snap2, UINT32_MAX), 0u);
    }
    rill_render_extract_buf_free(&xb);
    rill_render_extract_buf_free(&xb2);
    scene_free(&s);
    scene_free(&s2);
    pair_destroy(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_marks_follow_changes),
        cmocka_unit_test(test_marks_appended),
        cmocka_unit_test(test_static_world_passes_unread),
        cmocka_unit_test(test_skipped_extract_reads_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
