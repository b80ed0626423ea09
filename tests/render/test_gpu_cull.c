/* test_gpu_cull.c: GPU-driven culling (RILL_RENDER_DEBUG_GPU_CULL, src/render/gpu_cull.c) gives
 * the visible sets of the CPU path. Two renderers built alike, one on the CPU path and one with
 * GPU culling (its visible flags read back), draw the same frames of a generated scene: opaque,
 * alpha-masked, crossfading, mirrored and ghost instances (no passthrough: which the GPU path
 * takes) among hidden, wireframe, blended, ranged, id-less and repeated-id ones (which stay on the
 * CPU path);
 * frames move instances, reorder the snapshot, bring new ids and drop others, swap materials and
 * start and end crossfades. Each frame: every resident
 * instance's view bit equals whether the CPU path listed it as opaque; its cascade bits equal a
 * sphere test against each cascade's planes (no near plane); the instances the GPU path does not
 * take are in the CPU lists exactly as on the CPU renderer, nothing hidden is resident; and the
 * pictures are the same. Occlusion (gpu_occlusion.c) is on: each instance in the view is drawn in
 * phase 1 or phase 2 or left out as occluded, and the pictures stay the CPU path's; a wall with
 * objects behind it checks that the occluded ones are left out, appear the frame they come into
 * sight, and that a camera cut forgets last frame's results. Reads the renderer's internals
 * (frame.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "rill/render.h"

#define W 96
#define H 64
#define COUNT 6000u /* two scan slices of the GPU path and part of a third */

typedef struct side {
    rill_renderer *r;
    rill_mesh cube, sphere;
    rill_material opaque, opaque2, blend, mask;
} side;

/* jobs: the renderer's culling jobs (the GPU path's scan runs over them too), or NULL;
 * occlusion: with gpu, GPU culling's occlusion on. */
static void side_create_with(side *s, bool gpu, rill_jobs *jobs, bool occlusion) {
    rill_error err = {0};
    uint32_t flags = gpu ? RILL_RENDER_DEBUG_GPU_CULL : 0u;
    flags |= gpu && !occlusion ? RILL_RENDER_DEBUG_NO_OCCLUSION : 0u;
    s->r = render_test_renderer((rill_renderer_desc){
        .width = W,
        .height = H,
        .shadow_map_size = 256,
        .debug_flags = flags,
        .jobs = jobs,
    });
    assert_non_null(s->r);
    if (gpu) {
        rill__gpu_cull_set_readback(s->r, true);
        /* Boarding by count alone (8192 new ids a frame), so what a frame takes does not depend
         * on the clock; test_boot_budget checks the time budget. */
        rill__gpu_cull_set_boarding(s->r, 8192u, 0.0);
    }
    s->cube = rill_render_mesh_cube(s->r, &err);
    s->sphere = rill_render_mesh_sphere(s->r, 12, &err);
    assert_true(s->cube.id && s->sphere.id);
    s->opaque = render_test_material(
        s->r, (rill_material_desc){.base_color = {0.8f, 0.6f, 0.4f, 1}, .roughness = 0.5f});
    s->opaque2 = render_test_material(
        s->r, (rill_material_desc){
                  .base_color = {0.3f, 0.6f, 0.9f, 1}, .roughness = 0.7f, .double_sided = true});
    s->blend =
        render_test_material(s->r, (rill_material_desc){.base_color = {0.2f, 0.5f, 0.9f, 0.5f},
                                                        .alpha_mode = RILL_ALPHA_BLEND});
    s->mask = render_test_material(s->r, (rill_material_desc){.base_color = {0.4f, 0.9f, 0.3f, 1},
                                                              .alpha_mode = RILL_ALPHA_MASK});
}

static void side_create(side *s, bool gpu, rill_jobs *jobs) {
    side_create_with(s, gpu, jobs, true);
}

static const rill_render_range cube_ranges[2] = {
    {.index_count = 18, .center = {-0.25f, 0, 0}, .radius = 0.8f},
    {.first_index = 18, .index_count = 18, .center = {0.25f, 0, 0}, .radius = 0.8f},
};

/* Instance k of frame `frame`: a grid of 100 columns, most of it outside the view. Frame 1 moves
 * every fifth instance and swaps the material of every 43rd; frame 2 hides every 41st (it leaves
 * the resident table) and gives some new ids. */
static void place(const side *s, rill_render_instance *in, uint32_t k, uint32_t frame) {
    bool blend = k % 7 == 0, mask = k % 7 == 1;
    rill_material m = blend ? s->blend : mask ? s->mask : k % 5 == 2 ? s->opaque2 : s->opaque;
    if (frame >= 1 && k % 43 == 3) {
        m = m.id == s->opaque.id ? s->opaque2 : s->opaque;
    }
    float pos[3] = {(float)(k % 100) * 1.5f - 75.0f, 0.5f, -(float)(k / 100) * 1.5f};
    if (frame >= 1 && k % 5 == 0) {
        pos[1] += 0.25f * (float)frame;
    }
    uint32_t id = k + 1u;
    if (k % 19 == 0) {
        id = 0; /* no id: the CPU path */
    } else if (k % 29 == 0) {
        id = k; /* the same id as the instance before */
    } else if (frame == 2 && k % 31 == 0) {
        id = 100000u + k; /* new this frame */
    }
    render_test_place(in, id, k % 3 ? s->cube : s->sphere, m, pos, 0.6f, (float)k * 0.1f);
    in->mode = k % 17 == 0 || (frame == 2 && k % 41 == 0) ? RILL_RENDER_MODE_HIDDEN
               : k % 11 == 0                              ? RILL_RENDER_MODE_WIREFRAME
               : k % 13 == 0                              ? RILL_RENDER_MODE_GHOST
                                                          : RILL_RENDER_MODE_NORMAL;
    in->ghost_opacity = 0.5f;
    in->lod_fade = k % 23 == (frame == 1 ? 1u : 0u) ? (k % 2 ? 0.5f : -0.5f) : 0.0f;
    if (k % 37 == 0) {
        in->transform[0] = -in->transform[0]; /* mirrored */
        in->transform[1] = -in->transform[1];
        in->transform[2] = -in->transform[2];
    }
    if (k % 3 && k % 47 == 0) {
        in->range_first = 0;
        in->range_count = 2;
    }
}

/* Fills inst with frame `frame` of the scene on s. */
static void fill(const side *s, rill_render_instance *inst, uint32_t frame) {
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
}

/* Renders snap on s and reads its picture into px; with `idle`, waits for the GPU to finish. */
static void render_read(const side *s, const rill_render_snapshot *snap, uint8_t *px, bool idle) {
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(s->r, snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(s->r, px, W * H * 4, &err), RILL_OK);
    if (idle) {
        assert_int_equal(rill_renderer_wait_idle(s->r, &err), RILL_OK);
    }
}

/* Sets snap's sun (from above, ahead and to the left) and its ambient light. */
static void sun_light(rill_render_snapshot *snap, bool shadows, float ambient) {
    snap->has_sun = true;
    snap->sun.direction[0] = -0.3f, snap->sun.direction[1] = -0.9f, snap->sun.direction[2] = -0.3f;
    snap->sun.color[0] = snap->sun.color[1] = snap->sun.color[2] = 1.0f;
    snap->sun.illuminance = 3.0f;
    snap->sun.shadows = shadows;
    snap->ambient[0] = snap->ambient[1] = snap->ambient[2] = ambient;
}

/* The scene's sun, ambient, instances and cube ranges on snap; rendered on s and read into px. */
static void draw_lit(const side *s, rill_render_snapshot *snap, rill_render_instance *inst,
                     uint8_t *px) {
    sun_light(snap, true, 0.2f);
    snap->instances = inst;
    snap->instance_count = COUNT;
    snap->ranges = cube_ranges;
    snap->range_count = 2;
    render_read(s, snap, px, true);
}

/* Renders the scene's instances inst on s into px (changed: the snapshot's instance_changed). */
static void render_scene(const side *s, rill_render_instance *inst, const uint8_t *changed,
                         uint8_t *px) {
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 world_from_view;
    render_test_look_at(world_from_view, (float[3]){-40, 4, 6}, (float[3]){-40, 0, -8});
    memcpy(snap.view.world_from_view, world_from_view, sizeof(mat4));
    snap.view.fov_y = 0.9f;
    snap.instance_changed = changed;
    draw_lit(s, &snap, inst, px);
}

/* Renders frame `frame` of the scene on s into px. */
static void draw(const side *s, rill_render_instance *inst, uint32_t frame, uint8_t *px) {
    fill(s, inst, frame);
    render_scene(s, inst, NULL, px);
}

/* snap (zeroed first) with n instances inst, ambient light only, the camera looking at the
 * origin from +z. */
static void front_snapshot(rill_render_snapshot *snap, const rill_render_instance *inst,
                           uint32_t n) {
    memset(snap, 0, sizeof(*snap));
    mat4 world_from_view;
    render_test_look_at(world_from_view, (float[3]){0, 1, 8}, (float[3]){0, 0.5f, 0});
    memcpy(snap->view.world_from_view, world_from_view, sizeof(mat4));
    snap->ambient[0] = snap->ambient[1] = snap->ambient[2] = 0.5f;
    snap->instances = inst;
    snap->instance_count = n;
}

/* Draws `n` instances (inst) on s into px as front_snapshot sees them (changed: the snapshot's
 * instance_changed). */
static void draw_marked(const side *s, const rill_render_instance *inst, uint32_t n,
                        const uint8_t *changed, uint8_t *px) {
    rill_render_snapshot snap;
    front_snapshot(&snap, inst, n);
    snap.instance_changed = changed;
    render_read(s, &snap, px, false);
}

/* draw_marked without marks. */
static void draw_few(const side *s, const rill_render_instance *inst, uint32_t n, uint8_t *px) {
    draw_marked(s, inst, n, NULL, px);
}

/* s draws inst split between two views (left and right halves, the same camera) into px: a
 * composed frame. */
static void draw_split(const side *s, const rill_render_instance *inst, uint32_t n, uint8_t *px) {
    rill_render_snapshot snap;
    front_snapshot(&snap, inst, n);
    rill_render_view views[2] = {snap.view, snap.view};
    for (int v = 0; v < 2; v++) {
        const float rect[4] = {0.5f * (float)v, 0, 0.5f, 1};
        memcpy(views[v].viewport, rect, sizeof(rect));
        views[v].order = v;
    }
    snap.views = views;
    snap.view_count = 2;
    render_read(s, &snap, px, true);
}

/* A job system of `workers` threads (a renderer's culling jobs), failing the test when refused. */
static rill_jobs *jobs_create(uint32_t workers) {
    rill_error err = {0};
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = workers}, &err);
    assert_non_null(jobs);
    return jobs;
}

/* What most tests compare: a renderer on the CPU path (a) and one with GPU culling (b), built
 * alike, and the picture each drew last (pa, pb). */
typedef struct pair {
    side a, b;
    uint8_t pa[W * H * 4], pb[W * H * 4];
} pair;

/* Creates p's renderers; jobs: b's culling jobs, or NULL. */
static void pair_create(pair *p, rill_jobs *jobs) {
    side_create(&p->a, false, NULL);
    side_create(&p->b, true, jobs);
}

/* Destroys p's renderers, failing the test if either saw a validation message. */
static void pair_destroy(pair *p) {
    render_test_destroy_clean(p->a.r, false);
    render_test_destroy_clean(p->b.r, false);
}

/* Fails the test unless p's renderers drew the same picture. */
static void pair_same(const pair *p) {
    assert_memory_equal(p->pa, p->pb, sizeof(p->pa));
}

/* Draws the same n instances on both (ia with a's meshes and materials, ib with b's) as
 * draw_marked does, b's snapshot with `changed` (a's with none), and checks the pictures are the
 * same. */
static void pair_draw(pair *p, const rill_render_instance *ia, const rill_render_instance *ib,
                      uint32_t n, const uint8_t *changed) {
    draw_marked(&p->a, ia, n, NULL, p->pa);
    draw_marked(&p->b, ib, n, changed, p->pb);
    pair_same(p);
}

/* pair_draw's split-screen frame (draw_split). */
static void pair_draw_split(pair *p, const rill_render_instance *ia, const rill_render_instance *ib,
                            uint32_t n) {
    draw_split(&p->a, ia, n, p->pa);
    draw_split(&p->b, ib, n, p->pb);
    pair_same(p);
}

/* The renderers' visible counts (stats of the frame read back last): the CPU path's lists are
 * the GPU path's visible plus occluded instances, and the CPU path occludes none. */
static void pair_counts_match(const pair *p) {
    rill_render_stats sa, sb;
    rill_renderer_stats(p->a.r, &sa);
    rill_renderer_stats(p->b.r, &sb);
    assert_true(sa.instances_visible > 0);
    assert_int_equal(sb.instances_visible + sb.instances_occluded, sa.instances_visible);
    assert_int_equal(sa.instances_occluded, 0u);
}

/* Whether another position of inst has instance k's (non-zero) id. Which of the two the GPU
 * path keeps depends on last frame's positions: the checks leave such pairs out. */
static bool repeated(const rill_render_instance *inst, uint32_t k) {
    return inst[k].id && ((k > 0 && inst[k - 1].id == inst[k].id) ||
                          (k + 1 < COUNT && inst[k + 1].id == inst[k].id));
}

/* Whether the GPU path takes instance k (the CPU reference of gpu_cull.c's rule). */
static bool takes(const side *s, const rill_render_instance *in) {
    /* Ghosts draw as normal instances: the view has no mixed passthrough. */
    bool mode_ok = in->mode == RILL_RENDER_MODE_NORMAL || in->mode == RILL_RENDER_MODE_GHOST;
    return in->id && mode_ok && !in->range_count && in->material.id != s->blend.id;
}

/* The smallest signed distance of instance in's world sphere to planes (negative radius-scaled
 * margin: outside), as frame_cull.c computes the sphere. */
static float sphere_margin(const rill_renderer *r, const rill_render_instance *in,
                           const float planes[6][4]) {
    const mesh_slot *ms = rill__mesh_get(r, in->mesh);
    const float *m = in->transform, *c = ms->center;
    float x = m[0] * c[0] + m[4] * c[1] + m[8] * c[2] + m[12];
    float y = m[1] * c[0] + m[5] * c[1] + m[9] * c[2] + m[13];
    float z = m[2] * c[0] + m[6] * c[1] + m[10] * c[2] + m[14];
    float sx = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    float sy = m[4] * m[4] + m[5] * m[5] + m[6] * m[6];
    float sz = m[8] * m[8] + m[9] * m[9] + m[10] * m[10];
    float rad = ms->radius * sqrtf(fmaxf(sx, fmaxf(sy, sz)));
    float best = INFINITY;
    for (int p = 0; p < 6; p++) {
        best = fminf(best,
                     planes[p][0] * x + planes[p][1] * y + planes[p][2] * z + planes[p][3] + rad);
    }
    return best; /* >= 0: inside */
}

/* Whether list l (the CPU path's lists, 0 opaque .. 4 ghosts) of view v holds position k. */
static bool listed(const rill__view *v, int l, uint32_t k) {
    const draw_item *items[5] = {v->opaque.data, v->transparent.data, v->casters.data,
                                 v->wires.data, v->ghosts.data};
    uint32_t n[5] = {v->opaque.len, v->transparent.len, v->casters.len, v->wires.len,
                     v->ghosts.len};
    for (uint32_t j = 0; j < n[l]; j++) {
        if (items[l][j].inst == k) {
            return true;
        }
    }
    return false;
}

/* Occlusion's bits of an instance's flags (gpu_cull.comp): drawn in phase 1, in phase 2, left
 * out as occluded. */
#define F_PHASE1 0x100u
#define F_PHASE2 0x200u
#define F_OCCLUDED 0x400u

/* View slot v of the frame just drawn by cpu and gpu (the same snapshot in inst): visible sets
 * equal. */
static void check_view(const side *cpu, const side *gpu, const rill_render_instance *inst,
                       uint32_t v, uint32_t *taken_visible) {
    const rill__view *vc = &cpu->r->frame.views[v], *vg = &gpu->r->frame.views[v];
    assert_true(vg->cascades >= 1 && vg->cascades <= 4);
    float view_planes[6][4], casc[4][6][4];
    rill__frustum_planes(vg->view_proj, view_planes);
    for (uint32_t c = 0; c < vg->cascades; c++) {
        rill__frustum_planes(vg->cascade_vp[c], casc[c]);
        casc[c][4][0] = casc[c][4][1] = casc[c][4][2] = 0.0f;
        casc[c][4][3] = 1.0f;
    }
    rill__gpu_cull_stats st;
    rill__gpu_cull_view_info(gpu->r, v, &st);
    assert_true(st.active);
    assert_int_equal(st.lists, 1u + vg->cascades);
    uint32_t resident = 0, near_miss = 0;
    for (uint32_t k = 0; k < COUNT; k++) {
        const rill_render_instance *in = &inst[k];
        if (repeated(inst, k)) {
            continue;
        }
        bool take = takes(gpu, in);
        uint32_t flags = in->id ? rill__gpu_cull_view_flags(gpu->r, v, in->id) : UINT32_MAX;
        if (!take) {
            /* Not resident (hidden ones included), and listed as on the CPU renderer. */
            assert_true(flags == UINT32_MAX);
            for (int l = 0; l < 5; l++) {
                assert_int_equal(listed(vc, l, k), listed(vg, l, k));
            }
            continue;
        }
        resident++;
        assert_true(flags != UINT32_MAX);
        for (int l = 0; l < 5; l++) {
            assert_false(listed(vg, l, k)); /* the CPU path skipped it */
        }
        bool want = listed(vc, 0, k);
        bool got = (flags & 1u) != 0;
        if (want != got) {
            /* Only a sphere touching a plane may round the other way on the GPU. */
            assert_true(fabsf(sphere_margin(gpu->r, in, view_planes)) < 1e-3f);
            near_miss++;
        }
        *taken_visible += got;
        /* With occlusion, an instance in the view is drawn in one phase or left out, one of
         * the three; outside it, none. */
        uint32_t phases = flags & (F_PHASE1 | F_PHASE2 | F_OCCLUDED);
        if (st.occluding && got) {
            assert_true(phases == F_PHASE1 || phases == F_PHASE2 || phases == F_OCCLUDED);
        } else {
            assert_int_equal(phases, 0u);
        }
        for (uint32_t c = 0; c < vg->cascades; c++) {
            float mg = sphere_margin(gpu->r, in, casc[c]);
            bool cwant = mg >= 0.0f, cgot = (flags >> (1u + c)) & 1u;
            if (cwant != cgot) {
                assert_true(fabsf(mg) < 1e-3f);
                near_miss++;
            }
        }
    }
    assert_true(st.resident >= resident && st.resident < resident + COUNT / 29u + 1u);
    assert_true(near_miss <= 2);
}

static void check_frame(const side *cpu, const side *gpu, const rill_render_instance *inst,
                        uint32_t *taken_visible) {
    check_view(cpu, gpu, inst, 0, taken_visible);
}

static void test_gpu_cull_matches_cpu(void **state) {
    (void)state;
    rill_jobs *jobs = jobs_create(3);
    pair p;
    pair_create(&p, jobs); /* the scan's slices over three workers */
    /* Where the device has subgroup operations the cull appends once per group and subgroup
     * (lavapipe has them); test_per_instance_appends runs the other variant. */
    bool sg = rill__gpu_get_caps(p.b.r->gpu)->subgroup_ballot_arith;
    const char *env = getenv("RILL_GPU_CULL_SUBGROUP");
    bool want = sg && !(env && strcmp(env, "0") == 0);
    assert_int_equal(p.b.r->pipes[RILL__PIPE_GPU_CULL_SUBGROUP] != NULL, want);
    static rill_render_instance ia[COUNT], ib[COUNT];
    for (uint32_t frame = 0; frame < 3; frame++) {
        draw(&p.a, ia, frame, p.pa);
        draw(&p.b, ib, frame, p.pb);
        uint32_t visible = 0;
        check_frame(&p.a, &p.b, ib, &visible);
        /* The view sees part of the GPU path's instances, not all of them. */
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        assert_true(visible > 0 && visible < st.resident / 2);
        if (frame > 0) {
            assert_true(st.deltas > 0); /* moves, settles, new and dropped ids */
        }
        pair_same(&p);
    }
    /* A frame without changes uploads nothing (frame 2 moved nothing new: its moves settle). */
    draw(&p.b, ib, 2, p.pb);
    draw(&p.b, ib, 2, p.pb);
    rill__gpu_cull_stats st;
    rill__gpu_cull_info(p.b.r, &st);
    assert_int_equal(st.deltas, 0);
    pair_same(&p);
    /* The visible count: the CPU path's lists plus the GPU's count of the view, read when its
     * frame slot comes around (two frames in flight: the count of the first redraw, whose
     * snapshot is this one). */
    pair_counts_match(&p);
    pair_destroy(&p);
    rill_jobs_destroy(jobs);
}

/* The same with one atomic per appended instance (RILL_GPU_CULL_SUBGROUP=0): the variant devices
 * without subgroup operations run. */
static void test_per_instance_appends(void **state) {
    setenv("RILL_GPU_CULL_SUBGROUP", "0", 1);
    test_gpu_cull_matches_cpu(state);
    unsetenv("RILL_GPU_CULL_SUBGROUP");
}

/* Frame `frame` of the scene (place) seen by n views: n 2, two cameras side by side, each
 * looking at its own part of the grid; n 4, three cameras on the output (the 2 x 2 grid's first
 * three) and a fourth drawing into the render texture "gc_monitor" (drawn once its image has
 * uploaded, a frame or two in). Every camera has the sun's shadows; none has passthrough. */
static void draw_views(const side *s, rill_render_instance *inst, uint32_t frame, uint32_t n,
                       uint8_t *px) {
    for (uint32_t k = 0; k < COUNT; k++) {
        place(s, &inst[k], k, frame);
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    rill_render_view views[4];
    memset(views, 0, sizeof(views));
    for (uint32_t v = 0; v < n; v++) {
        mat4 world_from_view;
        float x = -60.0f + 30.0f * (float)v; /* 30 m apart: one's history is not another's */
        render_test_look_at(world_from_view, (float[3]){x, 4.0f + (float)v, 6},
                            (float[3]){x + 4.0f, 0, -8});
        memcpy(views[v].world_from_view, world_from_view, sizeof(mat4));
        views[v].fov_y = 0.9f;
        views[v].order = (int32_t)v;
        const float half[4] = {0.5f * (float)(v % 2), 0.5f * (float)(v / 2), 0.5f,
                               n == 2 ? 1.0f : 0.5f};
        memcpy(views[v].viewport, half, sizeof(half));
    }
    if (n == 4) {
        views[3].target = "gc_monitor";
        views[3].target_size[0] = 64;
        views[3].target_size[1] = 48;
    }
    snap.view = views[0];
    snap.views = views;
    snap.view_count = n;
    draw_lit(s, &snap, inst, px);
}

/* Frames of several views (issue 27): split screen and a render-texture camera cull on the GPU
 * too, each view the one resident table with its own frustum, cascades and occlusion into lists
 * of its own. Per view, what the GPU path takes is culled as the CPU renderer's same view culls
 * it (hidden, wireframe, blended, ranged and repeated-id instances staying on the CPU path,
 * listed as there), and the composed picture is the CPU path's, frame after frame. */
static void test_multi_view_matches_cpu(void **state) {
    (void)state;
    static rill_render_instance ia[COUNT], ib[COUNT];
    const uint32_t counts[2] = {2, 4};
    for (uint32_t c = 0; c < 2; c++) {
        uint32_t n = counts[c];
        pair p;
        pair_create(&p, NULL);
        uint32_t frames[5] = {0, 1, 2, 2, 2}, last_nv = 0;
        for (uint32_t f = 0; f < 5; f++) {
            draw_views(&p.a, ia, frames[f], n, p.pa);
            draw_views(&p.b, ib, frames[f], n, p.pb);
            uint32_t nv = p.b.r->frame.view_count;
            assert_int_equal(p.a.r->frame.view_count, nv);
            rill__gpu_cull_stats st;
            rill__gpu_cull_info(p.b.r, &st);
            assert_int_equal(st.views, nv);
            for (uint32_t v = 0; v < nv; v++) {
                uint32_t visible = 0;
                check_view(&p.a, &p.b, ib, v, &visible);
                assert_true(visible > 0);
                /* The frame the render texture's camera starts drawing (first: the others'
                 * positions shift by one), each camera keeps its occlusion history. */
                rill__gpu_cull_stats vst;
                rill__gpu_cull_view_info(p.b.r, v, &vst);
                assert_true(vst.occluding);
                if (f > 0 && nv > last_nv && !p.b.r->frame.views[v].target_tex.id) {
                    assert_false(vst.occlusion_reset);
                }
            }
            last_nv = nv;
            pair_same(&p);
            if (f == 4) {
                assert_int_equal(nv, n);        /* the render texture's camera draws by now */
                assert_int_equal(st.deltas, 0); /* one table: nothing changed, nothing sent */
            }
        }
        /* The visible counts of every view: the CPU path's lists plus the GPU's counts. */
        pair_counts_match(&p);
        pair_destroy(&p);
    }
}

/* Instances of the scene in view (frame 2): a plain opaque cube and an alpha-masked cube. */
#define IN_VIEW_CUBE 524u
#define IN_VIEW_MASKED 526u

/* Applies edit e (0: none; 1: the cube lifted out of the view; 2: and the masked cube's id
 * dropped, which puts it on the CPU path; 3: the masked cube with a new id instead) to the scene's
 * frame 2 in inst. */
static void edit_scene(const side *s, rill_render_instance *inst, uint32_t e) {
    fill(s, inst, 2);
    assert_true(takes(s, &inst[IN_VIEW_CUBE]) && takes(s, &inst[IN_VIEW_MASKED]));
    if (e >= 1) {
        inst[IN_VIEW_CUBE].transform[13] += 100.0f;
    }
    if (e >= 2) {
        inst[IN_VIEW_MASKED].id = e == 2 ? 0u : 900000u;
    }
}

/* The table follows by deltas alone: from a settled frame, one instance moving out of view is one
 * delta (a move) and then one more (its previous matrix settles), one id dropped is one (a
 * despawn), one new id one (a spawn); every frame's visible sets and picture are the CPU path's.
 * The snapshot marks only the two edited positions as changed (instance_changed), so from the
 * third frame the scan passes every other resident instance without reading it. */
static void test_delta_updates(void **state) {
    (void)state;
    rill_jobs *jobs = jobs_create(2);
    pair p;
    pair_create(&p, jobs);
    static rill_render_instance ia[COUNT], ib[COUNT];
    static uint8_t changed[COUNT];
    changed[IN_VIEW_CUBE] = changed[IN_VIEW_MASKED] = 1;
    /* Edits 0, 0 (settled), 1 (a move), 1 (its settle), 2 (a despawn), 3 (a spawn), 3. */
    const uint32_t edits[7] = {0, 0, 1, 1, 2, 3, 3};
    const uint32_t deltas[7] = {0, 0, 1, 1, 1, 1, 0};
    uint32_t resident = 0;
    for (uint32_t f = 0; f < 7; f++) {
        edit_scene(&p.a, ia, edits[f]);
        edit_scene(&p.b, ib, edits[f]);
        render_scene(&p.a, ia, NULL, p.pa);
        render_scene(&p.b, ib, changed, p.pb);
        uint32_t visible = 0;
        check_frame(&p.a, &p.b, ib, &visible);
        pair_same(&p);
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        if (f == 0) {
            resident = st.resident; /* the first frame spawns the table */
            continue;
        }
        assert_int_equal(st.deltas, deltas[f]);
        assert_int_equal(st.spawned, edits[f] == 3 && edits[f - 1] != 3 ? 1u : 0u);
        assert_int_equal(st.resident, resident - (edits[f] == 2 ? 1u : 0u));
        assert_true(f < 2 ? st.quiet == 0 : st.quiet + 2u >= st.resident);
        bool cube_seen = (rill__gpu_cull_flags(p.b.r, ib[IN_VIEW_CUBE].id) & 1u) != 0;
        assert_int_equal(cube_seen, edits[f] == 0); /* in view until lifted out of it */
    }
    /* The new id is resident and seen; the dropped one is not resident. */
    assert_true(rill__gpu_cull_flags(p.b.r, 900000u) & 1u);
    assert_int_equal(rill__gpu_cull_flags(p.b.r, IN_VIEW_MASKED + 1u), UINT32_MAX);
    pair_destroy(&p);
    rill_jobs_destroy(jobs);
}

/* Long runs (runs_place): positions k % 64 in RUN_CPU are blended (the CPU path), the others plain
 * opaque cubes the GPU path takes, so runs of 8, 7, 21 and 22 taken positions lie between them:
 * the CPU path walks past a run a word of eight positions at a time (frame_cull.c skip_taken) and
 * the scan passes unchanged runs eight at a time (gpu_cull.c quiet_run). RUN_MOVER, inside a run
 * and in view, is the one position marked changed. */
#define RUN_MOVER 524u
static bool run_cpu(uint32_t k) {
    uint32_t m = k % 64u;
    return m == 0 || m == 9 || m == 17 || m == 18 || m == 40 || m == 63;
}

static void runs_place(const side *s, rill_render_instance *inst, float lift) {
    for (uint32_t k = 0; k < COUNT; k++) {
        float pos[3] = {(float)(k % 100) * 1.5f - 75.0f, 0.5f, -(float)(k / 100) * 1.5f};
        pos[1] += k == RUN_MOVER ? lift : 0.0f;
        render_test_place(&inst[k], k + 1u, s->cube, run_cpu(k) ? s->blend : s->opaque, pos, 0.6f,
                          (float)k * 0.1f);
    }
}

/* Runs of taken and unchanged positions go a word at a time, and what breaks a run is never
 * skipped: every blended instance between runs is listed by the CPU path as on the CPU renderer
 * (and none of the taken ones), the one marked position inside a run is read (its moves and its
 * settle are one delta each) while every other resident instance is passed unread, and the
 * pictures are the CPU path's. */
static void test_long_runs(void **state) {
    (void)state;
    rill_jobs *jobs = jobs_create(2);
    pair p;
    pair_create(&p, jobs);
    static rill_render_instance ia[COUNT], ib[COUNT];
    static uint8_t changed[COUNT];
    changed[RUN_MOVER] = 1;
    /* The mover's lift per frame: still, still, up, up again, held (its settle), held. */
    const float lift[6] = {0.0f, 0.0f, 0.3f, 0.6f, 0.6f, 0.6f};
    const uint32_t deltas[6] = {0, 0, 1, 1, 1, 0};
    for (uint32_t f = 0; f < 6; f++) {
        runs_place(&p.a, ia, lift[f]);
        runs_place(&p.b, ib, lift[f]);
        render_scene(&p.a, ia, NULL, p.pa);
        render_scene(&p.b, ib, changed, p.pb);
        uint32_t visible = 0;
        check_frame(&p.a, &p.b, ib, &visible);
        pair_same(&p);
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        uint32_t taken = 0, cpu_listed = 0;
        for (uint32_t k = 0; k < COUNT; k++) {
            taken += !run_cpu(k);
            cpu_listed += run_cpu(k) && listed(&p.b.r->frame.views[0], 1, k);
        }
        assert_int_equal(st.resident, taken);
        assert_true(cpu_listed > 0); /* blended instances between runs are in view */
        assert_true((rill__gpu_cull_flags(p.b.r, RUN_MOVER + 1u) & 1u) != 0); /* in view */
        if (f == 0) {
            continue; /* the first frame spawns the table */
        }
        assert_int_equal(st.deltas, deltas[f]);
        assert_int_equal(st.quiet, f < 2 ? 0u : taken - 1u);
    }
    pair_destroy(&p);
    rill_jobs_destroy(jobs);
}

/* Marks are trusted only as far as they can be: a mesh destroyed while the snapshot still says
 * "unchanged" of the instances drawing it (an application's bug, or a frame racing an unload)
 * makes the scan read every instance again, so the table drops them as the CPU path does, and
 * the pictures stay the CPU path's. */
static void test_marks_distrusted_after_destroy(void **state) {
    (void)state;
    pair p;
    pair_create(&p, NULL);
    const uint8_t unchanged[3] = {0, 0, 0};
    rill_error err = {0};
    rill_mesh ball_a = rill_render_mesh_sphere(p.a.r, 10, &err);
    rill_mesh ball_b = rill_render_mesh_sphere(p.b.r, 10, &err);
    assert_true(ball_a.id && ball_b.id);
    rill_render_instance ia[3], ib[3];
    for (uint32_t k = 0; k < 3; k++) {
        float pos[3] = {(float)k * 2.5f - 2.5f, 0.5f, 0.0f};
        render_test_place(&ia[k], 10u + k, k == 1 ? ball_a : p.a.cube, p.a.opaque, pos, 1.0f, 0.3f);
        render_test_place(&ib[k], 10u + k, k == 1 ? ball_b : p.b.cube, p.b.opaque, pos, 1.0f, 0.3f);
    }
    rill__gpu_cull_stats st;
    for (uint32_t frame = 0; frame < 5; frame++) {
        if (frame == 3) {
            rill_render_mesh_destroy(p.a.r, ball_a);
            rill_render_mesh_destroy(p.b.r, ball_b);
        }
        pair_draw(&p, ia, ib, 3, frame ? unchanged : NULL);
        rill__gpu_cull_info(p.b.r, &st);
        assert_int_equal(st.resident, frame < 3 ? 3u : 2u);
        /* Frame 2 passes all three unread; frame 3 (a mesh gone) reads them all. */
        assert_int_equal(st.quiet, frame == 2 ? 3u : frame == 4 ? 2u : 0u);
    }
    pair_destroy(&p);
}

/* A repeated id whose first position left the GPU path (hidden, or past a shorter snapshot's end)
 * while the id moved to another position, then came back: the two positions must not both be
 * taken (one resident slot), so the CPU path draws the second and both show, as on the CPU
 * renderer. */
static void test_repeated_id_comes_back(void **state) {
    (void)state;
    pair p;
    pair_create(&p, NULL);
    const float xs[3] = {-2.5f, 0.0f, 2.5f};
    for (uint32_t frame = 0; frame < 4; frame++) {
        rill_render_instance ia[3], ib[3];
        for (uint32_t k = 0; k < 3; k++) {
            float pos[3] = {xs[k], 0.5f, 0.0f};
            render_test_place(&ia[k], 10u + k, p.a.cube, p.a.opaque, pos, 1.0f, 0.3f);
            render_test_place(&ib[k], 10u + k, p.b.cube, p.b.opaque, pos, 1.0f, 0.3f);
        }
        /* frame 0: ids 10 11 12; frame 1: position 0 hidden, position 2 takes id 10; frames 2
         * and 3: positions 0 and 2 both id 10, both drawn. */
        if (frame >= 1) {
            ia[2].id = ib[2].id = 10u;
        }
        if (frame == 1) {
            ia[0].mode = ib[0].mode = RILL_RENDER_MODE_HIDDEN;
        }
        pair_draw(&p, ia, ib, 3, NULL);
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        assert_int_equal(st.resident, frame == 0 ? 3u : 2u); /* then ids 10 and 11 */
        if (frame >= 2) {
            /* One of the two positions of id 10 is on the CPU path's opaque list. */
            const rill__view *v = &p.b.r->frame.views[0];
            assert_int_equal(v->opaque.len, 1u);
        }
    }
    /* The same through a shorter snapshot: ids (11, 12, 10), then (10) alone, then (10, 11, 10):
     * the third position's guess from before the short frame must not count. */
    const uint32_t ids[3][3] = {{11, 12, 10}, {10, 0, 0}, {10, 11, 10}};
    const uint32_t counts[3] = {3, 1, 3};
    for (uint32_t frame = 0; frame < 3; frame++) {
        rill_render_instance ia[3], ib[3];
        for (uint32_t k = 0; k < counts[frame]; k++) {
            float pos[3] = {xs[k], 0.5f, 0.0f};
            render_test_place(&ia[k], ids[frame][k], p.a.cube, p.a.opaque, pos, 1.0f, 0.3f);
            render_test_place(&ib[k], ids[frame][k], p.b.cube, p.b.opaque, pos, 1.0f, 0.3f);
        }
        pair_draw(&p, ia, ib, counts[frame], NULL);
    }
    assert_int_equal(p.b.r->frame.views[0].opaque.len, 1u);
    pair_destroy(&p);
}

/* Instance k of the shift scene (SHIFT_N small cubes in view, k: its place in the grid, id
 * k + 1), lifted from frame 1 on when k is a tenth; with `swap`, instance 5 takes opaque2. */
#define SHIFT_N 300u
static void shift_place(const side *s, rill_render_instance *in, uint32_t k, uint32_t frame,
                        bool swap) {
    float pos[3] = {(float)(k % 20) * 0.3f - 3.0f, (float)(k / 20) * 0.25f - 1.5f, 0.0f};
    if (frame >= 1 && k % 10 == 0) {
        pos[1] += 0.05f;
    }
    rill_material m = swap && k == 5 ? s->opaque2 : s->opaque;
    render_test_place(in, k + 1u, s->cube, m, pos, 0.1f, 0.3f);
}

/* Frame `frame` of the shift scene on s (inst: SHIFT_N + 1 entries): frame 1 lists a new instance
 * first, shifting every other one a position on; frame 2 drops it again and swaps instance 5's
 * material. Returns the instance count. */
static uint32_t shift_scene(const side *s, rill_render_instance *inst, uint32_t frame) {
    uint32_t at = frame == 1 ? 1u : 0u;
    if (at) {
        float pos[3] = {0.0f, 2.0f, 0.0f};
        render_test_place(&inst[0], 1000u, s->cube, s->opaque, pos, 0.2f, 0.0f);
    }
    for (uint32_t k = 0; k < SHIFT_N; k++) {
        shift_place(s, &inst[at + k], k, frame, frame == 2);
    }
    return SHIFT_N + at;
}

/* An instance added at the snapshot's front moves every other one a position on: the scan finds
 * the first shifted one through the id map and the others at their old position plus the same
 * shift (no map lookup each), all in its jobs, so only the new id (then the changed material) is
 * resolved one by one, and the deltas are that spawn, the moves and the despawn, never a slot
 * per shifted instance; the pictures stay the CPU path's. */
static void test_shift_resolves_only_new(void **state) {
    (void)state;
    rill_jobs *jobs = jobs_create(2);
    pair p;
    pair_create(&p, jobs);
    static rill_render_instance ia[SHIFT_N + 1u], ib[SHIFT_N + 1u];
    /* frame 0: all new; 1: one new in front, 30 lifted; 2: the new one gone, the 30 settle, one
     * material swapped (a new group: resolved, and a move). */
    const uint32_t resolved[3] = {SHIFT_N, 1, 1};
    const uint32_t deltas[3] = {SHIFT_N, 1 + SHIFT_N / 10u, 1 + SHIFT_N / 10u + 1};
    for (uint32_t frame = 0; frame < 3; frame++) {
        uint32_t n = shift_scene(&p.a, ia, frame);
        assert_int_equal(shift_scene(&p.b, ib, frame), n);
        pair_draw(&p, ia, ib, n, NULL);
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        assert_true(st.active);
        assert_int_equal(st.resident, n);
        assert_int_equal(st.resolved, resolved[frame]);
        /* The shift is found once (the first shifted instance, through the map) and the others
         * follow it; the new id in front is looked up too. Frame 0 looks up every new id. */
        assert_int_equal(st.mapped, frame == 0 ? SHIFT_N : 2u);
        assert_int_equal(st.deltas, deltas[frame]);
        assert_int_equal(p.b.r->frame.views[0].opaque.len, 0u); /* all drawn by the GPU path */
    }
    pair_destroy(&p);
    rill_jobs_destroy(jobs);
}

/* More new instances than the table takes in a frame (boarding set to 8192 a frame, no time
 * budget): the first frame takes 8192 and the CPU path draws the rest, the next frames take the
 * others, growing the resident buffer (a copy of the old one, not every slot spawned again: the
 * deltas are only the new ones); every frame's picture is the CPU path's. */
#define BOOT_N 20000u
/* BOOT_N small cubes in a grid facing the camera, for a's renderer in ia and b's in ib. */
static void boot_grid(const side *a, const side *b, rill_render_instance *ia,
                      rill_render_instance *ib) {
    for (uint32_t k = 0; k < BOOT_N; k++) {
        float pos[3] = {(float)(k % 200u) * 0.04f - 4.0f, (float)(k / 200u) * 0.04f - 1.5f, 0};
        render_test_place(&ia[k], k + 1u, a->cube, a->opaque, pos, 0.02f, 0.3f);
        render_test_place(&ib[k], k + 1u, b->cube, b->opaque, pos, 0.02f, 0.3f);
    }
}

static void test_boot_capped_and_growth(void **state) {
    (void)state;
    pair p;
    pair_create(&p, NULL);
    static rill_render_instance ia[BOOT_N], ib[BOOT_N];
    boot_grid(&p.a, &p.b, ia, ib);
    const uint32_t resident[4] = {8192u, 16384u, BOOT_N, BOOT_N};
    const uint32_t deltas[4] = {8192u, 8192u, BOOT_N - 16384u, 0u};
    for (uint32_t frame = 0; frame < 4; frame++) {
        pair_draw(&p, ia, ib, BOOT_N, NULL);
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        assert_int_equal(st.resident, resident[frame]);
        assert_int_equal(st.spawned, frame < 3 ? deltas[frame] : 0u);
        assert_int_equal(st.deltas, deltas[frame]);
        rill_render_stats rs;
        rill_renderer_stats(p.b.r, &rs);
        assert_int_equal(rs.gpu_cull_resident, resident[frame]);
    }
    pair_destroy(&p);
}

/* The default boarding (gpu_cull.c GC_BOARD_*): a frame takes at least its floor of new ids and
 * more only as the clock allows, so a boot of BOOT_N takes a few frames, every one taking some
 * until all are resident, with the CPU path's picture throughout. */
static void test_boot_budget(void **state) {
    (void)state;
    pair p;
    pair_create(&p, NULL);
    rill__gpu_cull_set_boarding(p.b.r, 2048u, 0.5);
    static rill_render_instance ia[BOOT_N], ib[BOOT_N];
    boot_grid(&p.a, &p.b, ia, ib);
    uint32_t had = 0, frames = 0;
    while (had < BOOT_N) {
        assert_true(frames++ < BOOT_N / 2048u + 1u);
        pair_draw(&p, ia, ib, BOOT_N, NULL);
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        assert_int_equal(st.resident, had + st.spawned);
        assert_true(st.spawned >= RILL_MIN(2048u, BOOT_N - had));
        had = st.resident;
    }
    pair_destroy(&p);
}

/* Single-view and split-screen frames share the one table: a split frame after single-view ones
 * finds every instance resident and spawns none (both views cull it, and it used to sit those
 * frames out), nor does the single-view frame after it; each frame draws the CPU path's picture. */
static void test_table_shared_by_split_frame(void **state) {
    (void)state;
    pair p;
    pair_create(&p, NULL);
    static rill_render_instance ia[BOOT_N], ib[BOOT_N];
    boot_grid(&p.a, &p.b, ia, ib);
    for (uint32_t frame = 0; frame < 3; frame++) {
        draw_few(&p.b, ib, BOOT_N, p.pb);
    }
    rill__gpu_cull_stats st;
    rill__gpu_cull_info(p.b.r, &st);
    assert_int_equal(st.resident, BOOT_N);
    ib[7].transform[12] += 0.5f; /* one instance moves in the split frame */
    ia[7].transform[12] += 0.5f;
    pair_draw_split(&p, ia, ib, BOOT_N);
    rill__gpu_cull_info(p.b.r, &st);
    assert_true(st.active);
    assert_int_equal(st.views, 2u);
    assert_int_equal(st.resident, BOOT_N);
    assert_int_equal(st.spawned, 0u);
    assert_int_equal(st.deltas, 1u); /* the move, once for both views */
    pair_draw(&p, ia, ib, BOOT_N, NULL);
    rill__gpu_cull_info(p.b.r, &st);
    assert_true(st.active);
    assert_int_equal(st.views, 1u);
    assert_int_equal(st.resident, BOOT_N);
    assert_int_equal(st.spawned, 0u);
    /* The split's two views are not the single view (other rectangles): their slots are kept a
     * few frames. */
    assert_int_equal(st.view_slots, 3u);
    pair_same(&p);
    /* Eight frames without the split's views give their buffers back; the split comes back. */
    for (uint32_t frame = 0; frame < 8; frame++) {
        draw_few(&p.b, ib, BOOT_N, p.pb);
    }
    rill__gpu_cull_info(p.b.r, &st);
    assert_int_equal(st.view_slots, 1u);
    pair_draw_split(&p, ia, ib, BOOT_N);
    rill__gpu_cull_info(p.b.r, &st);
    assert_int_equal(st.view_slots, 3u);
    pair_same(&p);
    pair_destroy(&p);
}

/* A quad facing +z with red vertex colours: a mesh with extras, which keeps its own buffers. */
static rill_mesh colored_quad(rill_renderer *r) {
    static const rill_vertex v[4] = {{{-0.5f, -0.5f, 0}, {0, 0, 1}, {0, 0}, {1, 0, 0, 1}},
                                     {{0.5f, -0.5f, 0}, {0, 0, 1}, {1, 0}, {1, 0, 0, 1}},
                                     {{0.5f, 0.5f, 0}, {0, 0, 1}, {1, 1}, {1, 0, 0, 1}},
                                     {{-0.5f, 0.5f, 0}, {0, 0, 1}, {0, 1}, {1, 0, 0, 1}}};
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    static const float colors[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    rill_error err = {0};
    rill_mesh m = rill_render_mesh_create(r,
                                          &(rill_mesh_desc){.vertices = v,
                                                            .vertex_count = 4,
                                                            .indices = idx,
                                                            .index_count = 6,
                                                            .colors = colors,
                                                            .label = "colored quad"},
                                          &err);
    assert_true(m.id != 0);
    return m;
}

/* Distinct meshes of one material draw as one run (gpu_cull_arena.c): their geometry is copied
 * into shared buffers, so the view's solid instances of 12 meshes make one indirect draw per pass,
 * the alpha-masked ones another, and a mesh with vertex colours (own buffers) a third, as the
 * pictures stay those of the CPU path; a mesh the GPU path stops drawing leaves the arena. */
static void test_meshes_share_runs(void **state) {
    (void)state;
    pair p;
    pair_create(&p, NULL);
    enum { MESHES = 12, N = 24 };
    rill_mesh ma[MESHES], mb[MESHES];
    rill_mesh qa = colored_quad(p.a.r), qb = colored_quad(p.b.r);
    rill_error err = {0};
    for (uint32_t k = 0; k < MESHES; k++) {
        ma[k] = k % 2 ? rill_render_mesh_sphere(p.a.r, 6 + k, &err)
                      : rill_render_mesh_cube(p.a.r, &err);
        mb[k] = k % 2 ? rill_render_mesh_sphere(p.b.r, 6 + k, &err)
                      : rill_render_mesh_cube(p.b.r, &err);
        assert_true(ma[k].id && mb[k].id);
    }
    for (uint32_t frame = 0; frame < 3; frame++) {
        rill_render_instance ia[N + 1], ib[N + 1];
        const float qpos[3] = {0.0f, -0.6f, 0.5f};
        render_test_place(&ia[N], 99u, qa, p.a.opaque, qpos, 1.0f, 0.0f);
        render_test_place(&ib[N], 99u, qb, p.b.opaque, qpos, 1.0f, 0.0f);
        for (uint32_t k = 0; k < N; k++) {
            /* frame 2: the first half of the meshes are not drawn any more */
            uint32_t m = frame == 2 ? MESHES / 2 + k % (MESHES / 2) : k % MESHES;
            float pos[3] = {-5.5f + (float)(k % 12), 0.5f + 1.2f * (float)(k / 12), 0.0f};
            bool mask = k % 5 == 4;
            render_test_place(&ia[k], 100u + k, ma[m], mask ? p.a.mask : p.a.opaque, pos, 0.45f,
                              0.3f);
            render_test_place(&ib[k], 100u + k, mb[m], mask ? p.b.mask : p.b.opaque, pos, 0.45f,
                              0.3f);
        }
        pair_draw(&p, ia, ib, N + 1, NULL);
        uint32_t red = 0; /* the coloured quad is in the picture (red: its vertex colours) */
        for (uint32_t i = 0; i < W * H; i++) {
            red += p.pb[i * 4] > 40 && p.pb[i * 4] > 3 * p.pb[i * 4 + 1];
        }
        assert_true(red > 20u);
        rill__gpu_cull_stats st;
        rill__gpu_cull_info(p.b.r, &st);
        assert_int_equal(st.resident, N + 1);
        assert_true(st.groups > (frame == 2 ? MESHES / 2u : MESHES)); /* and masked ones */
        /* solid, then those that cut; the coloured quad's own buffers a run apart */
        assert_int_equal(st.runs_geo, 3u);
        assert_int_equal(st.runs_shape, 3u);
        assert_int_equal(st.runs_mat, 3u);
        assert_true(st.arena_bytes > 0);
        assert_int_equal(st.arena_meshes, (frame == 2 ? MESHES / 2 : MESHES) + 1u);
        /* Where the device can, only commands with instances are drawn (GPU counts). */
        assert_int_equal(st.compacted, rill__gpu_get_caps(p.b.r->gpu)->draw_indirect_count);
    }
    pair_destroy(&p);
}

/* The occluder scene: a wall (plain, the GPU path's) across most of the view, two cubes in
 * front of it and a grid of HIDDEN cubes behind it; the camera at eye looking at `at`. */
#define HIDDEN 24u
static uint32_t wall_scene(const side *s, rill_render_instance *inst) {
    const float wall[3] = {0.0f, 1.0f, 2.0f};
    render_test_place(&inst[0], 1u, s->cube, s->opaque2, wall, 1.0f, 0.0f);
    inst[0].transform[0] = 7.0f; /* 7 x 6 x 0.4 */
    inst[0].transform[5] = 6.0f;
    inst[0].transform[10] = 0.4f;
    for (uint32_t k = 0; k < 2; k++) {
        const float pos[3] = {k ? 1.5f : -1.5f, 0.5f, 4.0f};
        render_test_place(&inst[1 + k], 2u + k, s->sphere, s->opaque, pos, 0.8f, 0.0f);
    }
    for (uint32_t k = 0; k < HIDDEN; k++) {
        const float pos[3] = {-2.5f + (float)(k % 6), 0.6f, -1.0f - 1.5f * (float)(k / 6)};
        render_test_place(&inst[3 + k], 100u + k, k % 2 ? s->sphere : s->cube,
                          k % 3 ? s->opaque : s->mask, pos, 0.8f, 0.3f * (float)k);
    }
    return 3u + HIDDEN;
}

static void draw_wall(const side *s, const float eye[3], const float at[3], uint8_t *px) {
    rill_render_instance inst[3 + HIDDEN];
    uint32_t n = wall_scene(s, inst);
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 world_from_view;
    render_test_look_at(world_from_view, eye, at);
    memcpy(snap.view.world_from_view, world_from_view, sizeof(mat4));
    snap.view.fov_y = 0.8f;
    sun_light(&snap, false, 0.3f);
    snap.instances = inst;
    snap.instance_count = n;
    render_read(s, &snap, px, true);
}

/* draw_wall on both of p, checking the pictures are the same. */
static void pair_draw_wall(pair *p, const float eye[3], const float at[3]) {
    draw_wall(&p->a, eye, at, p->pa);
    draw_wall(&p->b, eye, at, p->pb);
    pair_same(p);
}

/* How many of the hidden cubes' flags (the last finished frame) have any of `bits`. */
static uint32_t hidden_with(const side *s, uint32_t bits) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < HIDDEN; k++) {
        uint32_t f = rill__gpu_cull_flags(s->r, 100u + k);
        assert_true(f != UINT32_MAX);
        n += (f & bits) != 0;
    }
    return n;
}

/* Objects behind a wall: with occlusion the GPU path leaves them out (flags and stats say so)
 * and the picture is the CPU path's, as with occlusion off; moving the camera past the wall's
 * edge brings some into sight, drawn in phase 2 that same frame, pixel for pixel the CPU path's;
 * a camera cut (a turn around) forgets last frame's results. */
static void test_occlusion_wall(void **state) {
    (void)state;
    pair p;
    side c;
    pair_create(&p, NULL);
    side_create_with(&c, true, NULL, false);
    static uint8_t pc[W * H * 4];
    const float eye[3] = {0.0f, 1.5f, 9.0f}, at[3] = {0.0f, 1.5f, 0.0f};
    rill__gpu_cull_stats st;
    for (uint32_t frame = 0; frame < 5; frame++) {
        pair_draw_wall(&p, eye, at);
        draw_wall(&c, eye, at, pc);
        assert_memory_equal(p.pa, pc, sizeof(p.pa));
        rill__gpu_cull_info(p.b.r, &st);
        assert_true(st.occluding);
        assert_int_equal(st.occlusion_reset, frame == 0); /* the first frame knows nothing */
        /* Frame 0 draws everything in phase 2 (nothing was visible before), frame 1 everything
         * in phase 1 and finds the hidden cubes behind the wall; from frame 2 they are left out. */
        assert_int_equal(hidden_with(&p.b, F_OCCLUDED), frame >= 2 ? HIDDEN : 0u);
        assert_int_equal(hidden_with(&p.b, F_PHASE2), frame == 0 ? HIDDEN : 0u);
        rill__gpu_cull_info(c.r, &st);
        assert_false(st.occluding);
        assert_int_equal(hidden_with(&c, F_PHASE1 | F_PHASE2 | F_OCCLUDED), 0u);
    }
    /* The stats of frame 2 (read when its frame slot came around): the hidden cubes are
     * occluded, not visible; the CPU path and occlusion off count them visible. */
    rill_render_stats sa, sb, sc;
    rill_renderer_stats(p.a.r, &sa);
    rill_renderer_stats(p.b.r, &sb);
    rill_renderer_stats(c.r, &sc);
    assert_int_equal(sb.instances_occluded, HIDDEN);
    assert_int_equal(sb.instances_visible + HIDDEN, sa.instances_visible);
    assert_int_equal(sc.instances_visible, sa.instances_visible);
    assert_int_equal(sc.instances_occluded, 0u);
    /* Past the wall's right edge: some hidden cubes come into sight, drawn in phase 2 the frame
     * they appear; the others stay occluded. */
    const float eye2[3] = {6.0f, 1.5f, 9.0f}, at2[3] = {0.0f, 1.0f, -2.0f};
    pair_draw_wall(&p, eye2, at2);
    rill__gpu_cull_info(p.b.r, &st);
    assert_false(st.occlusion_reset);
    uint32_t appeared = hidden_with(&p.b, F_PHASE2);
    assert_true(appeared > 0 && appeared < HIDDEN);
    assert_int_equal(hidden_with(&p.b, F_PHASE1), 0u);
    /* A cut: turned around behind the cubes, last frame's visibility is forgotten (everything
     * in view is phase 2) and the picture is still the CPU path's. */
    const float eye3[3] = {0.0f, 1.5f, -12.0f}, at3[3] = {0.0f, 1.0f, 0.0f};
    pair_draw_wall(&p, eye3, at3);
    rill__gpu_cull_info(p.b.r, &st);
    assert_true(st.occlusion_reset);
    assert_int_equal(hidden_with(&p.b, F_PHASE1), 0u);
    assert_true(hidden_with(&p.b, F_PHASE2) > HIDDEN / 2u);
    pair_destroy(&p);
    render_test_destroy_clean(c.r, false);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_cull_matches_cpu),
        cmocka_unit_test(test_per_instance_appends),
        cmocka_unit_test(test_delta_updates),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_boot_budget),
        cmocka_unit_test(test_marks_distrusted_after_destroy),
        cmocka_unit_test(test_repeated_id_comes_back),
        cmocka_unit_test(test_shift_resolves_only_new),
        cmocka_unit_test(test_boot_capped_and_growth),
        cmocka_unit_test(test_table_shared_by_split_frame),
        cmocka_unit_test(test_multi_view_matches_cpu),
        cmocka_unit_test(test_meshes_share_runs),
        cmocka_unit_test(test_occlusion_wall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
