/* test_extract_jobs.c: rill_render_extract spreads its walk over the shown ModelMeshes over
 * rill_render_extract_buf.jobs, and the snapshot is byte for byte the one a serial walk builds,
 * with 1 worker and with 4: on a fresh cache (every asset is uploaded while the chunks are
 * merged), on a warm one, and with an asset first named in the middle of chunks; among the
 * entities are parked ones (no MeshShown), out-of-world ones, primitives their model lacks, and
 * RenderModes (ghost, crossfade). The marks of what changed since the last extract are the serial
 * ones too, and follow the positions a despawn or a spawn shifts. Models are the generated test
 * glTF (model_gen.h) on lavapipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_gen.h"
#include "rill/channels.h"
#include "rill/render.h"

#define ENTITIES 6000u /* about 12 chunks of the walk */
#define ASSETS 3

typedef struct fixture {
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_renderer *r;
    rill_world *w;
    rill_render_components rc;
    rill_render_assets *ra;
    rill_asset asset[ASSETS];
    rill_entity ents[ENTITIES];
    rill_entity cam;
    uint32_t expected, out_of_world; /* what a correct extract gives */
} fixture;

/* Writes the generated model as three files and loads each (three assets). */
static void load_models(fixture *f) {
    rill_error err = {0};
    const char *names[ASSETS] = {"robot0.glb", "robot1.glb", "robot2.glb"};
    char dir[1024], path[64];
    if (model_gen_write_files("extract_jobs", names, ASSETS, dir, sizeof(dir), &err) != RILL_OK) {
        fail_msg("glb write: %s", err.msg);
    }
    f->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, dir, &err), RILL_OK);
    f->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs}, NULL);
    assert_non_null(f->as);
    assert_int_equal(rill_gltf_register_asset_loader(f->as, &err), RILL_OK);
    for (int i = 0; i < ASSETS; i++) {
        snprintf(path, sizeof(path), "models/robot%d.glb", i);
        f->asset[i] = rill_asset_load_sync(f->as, path, &err);
        assert_int_equal(rill_asset_get_state(f->as, f->asset[i]), RILL_ASSET_STATE_LOADED);
    }
}

/* Entity i: a ModelMesh of asset i % 2 on a grid; every 97th names a primitive its model lacks,
 * every 101st stands beyond the world limit, every 11th is parked, every 7th is a ghost and every
 * 13th crossfades. */
static void spawn(fixture *f) {
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(f->w, &f->rc, &err), RILL_OK);
    rill_entity cam = f->cam = rill_world_spawn(f->w);
    rill_camera c = {.active = true, .fov_y = 0.9f, .near_plane = 0.05f, .far_plane = 1000.0f};
    assert_non_null(rill_world_add(f->w, cam, RILL_COMPONENT_CAMERA, &c));
    rill_transform ct = rill_transform_identity();
    rill_world_set_transform(f->w, cam, &ct);
    for (uint32_t i = 0; i < ENTITIES; i++) {
        rill_entity e = f->ents[i] = rill_world_spawn(f->w);
        rill_transform t = rill_transform_identity();
        t.translation[0] = (float)(i % 100) * 3.0f;
        t.translation[2] = (float)(i / 100) * 3.0f;
        if (i % 101 == 50) {
            t.translation[0] = 1e10f;
        }
        rill_world_set_transform(f->w, e, &t);
        rill_model_mesh mm = {f->asset[i % 2].id, i % 2, i % 97 == 3 ? 99u : 0u};
        assert_non_null(rill_world_add(f->w, e, f->rc.model_mesh, &mm));
        if (i % 7 == 1) {
            rill_render_mode_component rm = {RILL_RENDER_MODE_GHOST, 0.5f, 0.0f};
            assert_non_null(rill_world_add(f->w, e, f->rc.render_mode, &rm));
        } else if (i % 13 == 2) {
            rill_render_mode_component rm = {RILL_RENDER_MODE_NORMAL, 0.0f, -0.25f};
            assert_non_null(rill_world_add(f->w, e, f->rc.render_mode, &rm));
        }
        bool parked = i % 11 == 5;
        if (parked) { /* also scrambles the shown set's order */
            assert_true(rill_world_remove(f->w, e, f->rc.mesh_shown));
        }
        bool walked = !parked && i % 97 != 3; /* (a primitive it lacks: not resolved) */
        f->expected += walked && i % 101 != 50;
        f->out_of_world += walked && i % 101 == 50;
    }
    rill_world_update_transforms(f->w);
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof(*f));
    load_models(f);
    f->r = render_test_renderer(
        (rill_renderer_desc){.width = 64, .height = 48, .quality = RILL_RENDER_QUALITY_LOW});
    if (!f->r) {
        return -1;
    }
    f->w = rill_world_create(NULL, NULL);
    spawn(f);
    rill_error err = {0};
    f->ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = f->r, .assets = f->as, .world = f->w}, &err);
    assert_non_null(f->ra);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rill_render_assets_destroy(f->ra);
    rill_world_destroy(f->w);
    render_test_destroy_clean(f->r, false);
    for (int i = 0; i < ASSETS; i++) {
        rill_asset_release(f->as, f->asset[i]);
    }
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs);
    free(f);
    return 0;
}

/* One extract into xb over jobs (NULL: serial). */
static void extract(fixture *f, rill_jobs *jobs, rill_render_extract_buf *xb,
                    rill_render_snapshot *snap) {
    rill_error err = {0};
    xb->jobs = jobs;
    assert_int_equal(rill_render_extract(f->w, &f->rc, xb, snap, &err), RILL_OK);
}

/* The two snapshots' instances are the same bytes, and so are the out-of-world counts. */
static void assert_same(const rill_render_snapshot *a, const rill_render_extract_buf *xa,
                        const rill_render_snapshot *b, const rill_render_extract_buf *xb) {
    assert_int_equal(a->instance_count, b->instance_count);
    assert_memory_equal(a->instances, b->instances,
                        (size_t)a->instance_count * sizeof(rill_render_instance));
    assert_int_equal(xa->out_of_world, xb->out_of_world);
}

/* The two snapshots' marks of what changed (rill_render_snapshot.instance_changed) are the same:
 * their buffers went through the same extracts, one over jobs. */
static void assert_same_marks(const rill_render_snapshot *a, const rill_render_snapshot *b) {
    assert_int_equal(a->instance_count, b->instance_count);
    assert_int_equal(a->instance_changed_since != 0, b->instance_changed_since != 0);
    assert_true(a->instance_changed && b->instance_changed);
    assert_memory_equal(a->instance_changed, b->instance_changed, a->instance_count);
}

static rill_jobs *jobs_of(uint32_t workers) {
    rill_jobs *j = rill_jobs_create(&(rill_jobs_desc){.worker_count = workers}, NULL);
    assert_non_null(j);
    return j;
}

static void test_workers_match_serial(void **state) {
    fixture *f = *state;
    rill_jobs *one = jobs_of(1), *four = jobs_of(4);
    rill_render_extract_buf serial = {0}, by_one = {0}, by_four = {0};
    rill_render_snapshot ss, s1, s4;

    /* Fresh cache: every chunk meets an asset not uploaded yet and leaves its rest to the merge. */
    extract(f, four, &by_four, &s4);
    extract(f, NULL, &serial, &ss);
    extract(f, one, &by_one, &s1);
    assert_int_equal(ss.instance_count, f->expected);
    for (uint32_t i = 1; i < ss.instance_count; i++) { /* walked in slot order */
        assert_true(RILL_ENTITY_INDEX(ss.instances[i].id) >
                    RILL_ENTITY_INDEX(ss.instances[i - 1].id));
    }
    assert_int_equal(serial.out_of_world, f->out_of_world);
    assert_true(serial.walk_ns > 0 && by_four.walk_ns > 0); /* timed for the tools */
    assert_true(f->out_of_world > 0);
    assert_same(&s4, &by_four, &ss, &serial);
    assert_same(&s1, &by_one, &ss, &serial);
    uint32_t ghosts = 0, fading = 0;
    for (uint32_t i = 0; i < ss.instance_count; i++) {
        ghosts += ss.instances[i].mode == RILL_RENDER_MODE_GHOST;
        fading += ss.instances[i].lod_fade != 0.0f;
    }
    assert_true(ghosts > 0 && fading > 0);

    /* Warm: the chunks resolve everything themselves. */
    for (int k = 0; k < 3; k++) {
        extract(f, four, &by_four, &s4);
        extract(f, NULL, &serial, &ss);
        assert_same(&s4, &by_four, &ss, &serial);
        assert_same_marks(&s4, &ss);
    }

    /* An asset first named in the middle of chunks: those chunks stop there and the merge
     * uploads it, in the serial walk's order. */
    for (uint32_t i = 150; i < ENTITIES; i += 300) {
        rill_model_mesh *mm = rill_world_get(f->w, f->ents[i], f->rc.model_mesh);
        mm->asset = f->asset[2].id;
    }
    rill_render_assets_stats st;
    rill_render_assets_get_stats(f->ra, &st);
    assert_int_equal(st.uploads, 2);
    extract(f, four, &by_four, &s4);
    rill_render_assets_get_stats(f->ra, &st);
    assert_int_equal(st.uploads, 3);
    extract(f, NULL, &serial, &ss);
    extract(f, one, &by_one, &s1);
    assert_int_equal(ss.instance_count, f->expected);
    assert_same(&s4, &by_four, &ss, &serial);
    assert_same(&s1, &by_one, &ss, &serial);
    const rill_render_model *third = rill_render_assets_model(f->ra, f->asset[2]);
    assert_non_null(third);
    uint32_t of_third = 0;
    for (uint32_t i = 0; i < ss.instance_count; i++) {
        for (uint32_t m = 0; m < third->mesh_count; m++) {
            of_third += ss.instances[i].mesh.id == third->meshes[m].id;
        }
    }
    assert_true(of_third > 0);

    rill_render_extract_buf_free(&serial);
    rill_render_extract_buf_free(&by_one);
    rill_render_extract_buf_free(&by_four);
    rill_jobs_destroy(one);
    rill_jobs_destroy(four);
}

/* The position of entity e's instance in s (fails when it has none). */
static uint32_t position_of(const rill_render_snapshot *s, rill_entity e) {
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (s->instances[i].id == e) {
            return i;
        }
    }
    fail_msg("entity %llu not extracted", (unsigned long long)e);
    return UINT32_MAX;
}

/* The marks of s are 1 exactly from position `from` on, and are what comparing each position
 * with prev (prev_n instances of the extract before) gives. */
static void assert_marked_from(const rill_render_snapshot *s, const rill_render_instance *prev,
                               uint32_t prev_n, uint32_t from) {
    assert_non_null(s->instance_changed);
    for (uint32_t i = 0; i < s->instance_count; i++) {
        bool differs = i >= prev_n || memcmp(&s->instances[i], &prev[i], sizeof(*prev)) != 0;
        assert_int_equal(s->instance_changed[i] != 0, differs);
        assert_int_equal(s->instance_changed[i] != 0, i >= from);
    }
}

/* instance_prev of s: position i came from prev position i + shift for i in [from, to), from i
 * before `from` (UINT32_MAX at `fresh`, when it is not UINT32_MAX); it agrees with the marks, and
 * every position it names held the same bytes and id. */
static void assert_prev(const rill_render_snapshot *s, const rill_render_instance *prev,
                        uint32_t prev_n, uint32_t from, int shift, uint32_t fresh) {
    assert_non_null(s->instance_prev);
    for (uint32_t i = 0; i < s->instance_count; i++) {
        uint32_t p = s->instance_prev[i];
        uint32_t want = i == fresh ? UINT32_MAX : i < from ? i : (uint32_t)((int)i + shift);
        assert_int_equal(p, want);
        assert_int_equal(p == i, s->instance_changed[i] == 0);
        if (p != UINT32_MAX) {
            assert_true(p < prev_n);
            assert_true(s->instances[i].id == prev[p].id);
            assert_memory_equal(&s->instances[i], &prev[p],
                                offsetof(rill_render_instance, range_count) + sizeof(uint32_t));
        }
    }
}

/* Marks over the jobs follow positions that shift: the shown models are walked in slot order, so
 * a despawn in the middle shifts every later instance one position down (each is marked, the ones
 * before are not), and a spawn that takes the freed slot shifts them back up; instance_prev finds
 * each shifted one where the last extract had it, and names the spawn new. */
static void test_marks_follow_shifts(void **state) {
    fixture *f = *state;
    rill_jobs *four = jobs_of(4);
    rill_render_extract_buf xb = {0};
    rill_render_snapshot s;
    extract(f, four, &xb, &s);
    extract(f, four, &xb, &s);
    assert_int_equal(s.instance_count, f->expected);
    assert_marked_from(&s, s.instances, s.instance_count, s.instance_count); /* none */
    size_t bytes = (size_t)f->expected * sizeof(rill_render_instance);
    rill_render_instance *prev = malloc(bytes);
    assert_non_null(prev);

    memcpy(prev, s.instances, bytes);
    rill_entity gone = f->ents[1000];
    uint32_t at = position_of(&s, gone);
    assert_true(at > 100 && at + 100 < s.instance_count);
    assert_true(rill_world_despawn(f->w, gone));
    extract(f, four, &xb, &s);
    assert_int_equal(s.instance_count, f->expected - 1u);
    assert_marked_from(&s, prev, f->expected, at);
    assert_prev(&s, prev, f->expected, at, 1, UINT32_MAX); /* each found one further on */

    memcpy(prev, s.instances, bytes - sizeof(rill_render_instance));
    rill_entity e = rill_world_spawn(f->w);
    assert_int_equal(RILL_ENTITY_INDEX(e), RILL_ENTITY_INDEX(gone)); /* the freed slot */
    rill_transform t = rill_transform_identity();
    rill_world_set_transform(f->w, e, &t);
    rill_model_mesh mm = {f->asset[0].id, 0, 0};
    assert_non_null(rill_world_add(f->w, e, f->rc.model_mesh, &mm));
    rill_world_update_transforms(f->w);
    extract(f, four, &xb, &s);
    assert_int_equal(s.instance_count, f->expected);
    assert_int_equal(position_of(&s, e), at);
    assert_marked_from(&s, prev, f->expected - 1u, at);
    assert_prev(&s, prev, f->expected - 1u, at, -1, at); /* the spawn is new */

    free(prev);
    rill_render_extract_buf_free(&xb);
    rill_jobs_destroy(four);
}

/* A world of more shown entities than the slot sort takes on the calling thread (65,536: below, it
 * sorts there; above, over the jobs), in an order scrambled by parking and showing again: over 4
 * workers the snapshot is the serial one, walked in slot order. */
#define MANY 70001u
static void test_many_sorted_over_jobs(void **state) {
    fixture *f = *state;
    rill_error err = {0};
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_entity cam = rill_world_spawn(w);
    rill_camera c = {.active = true, .fov_y = 0.9f, .near_plane = 0.05f, .far_plane = 1000.0f};
    assert_non_null(rill_world_add(w, cam, RILL_COMPONENT_CAMERA, &c));
    rill_transform ct = rill_transform_identity();
    rill_world_set_transform(w, cam, &ct);
    for (uint32_t i = 0; i < MANY; i++) {
        rill_entity e = rill_world_spawn(w);
        rill_transform t = rill_transform_identity();
        t.translation[0] = (float)(i % 300), t.translation[2] = (float)(i / 300);
        rill_world_set_transform(w, e, &t);
        rill_model_mesh mm = {f->asset[i % 2].id, i % 2, 0};
        assert_non_null(rill_world_add(w, e, rc.model_mesh, &mm));
        if (i % 3 == 1) { /* parked, then shown again: out of slot order in the shown set */
            assert_true(rill_world_remove(w, e, rc.mesh_shown));
            rill_mesh_shown shown = {0};
            assert_non_null(rill_world_add(w, e, rc.mesh_shown, &shown));
        }
    }
    rill_world_update_transforms(w);
    rill_render_assets *ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = f->r, .assets = f->as, .world = w}, &err);
    assert_non_null(ra);
    rill_jobs *four = jobs_of(4);
    rill_render_extract_buf serial = {0}, by_four = {0};
    rill_render_snapshot ss, s4;
    for (int k = 0; k < 2; k++) { /* cold (assets uploaded by the merge), then warm */
        serial.jobs = NULL, by_four.jobs = four;
        assert_int_equal(rill_render_extract(w, &rc, &serial, &ss, &err), RILL_OK);
        assert_int_equal(rill_render_extract(w, &rc, &by_four, &s4, &err), RILL_OK);
        assert_int_equal(ss.instance_count, MANY);
        for (uint32_t i = 1; i < ss.instance_count; i++) {
            assert_true(RILL_ENTITY_INDEX(ss.instances[i].id) >
                        RILL_ENTITY_INDEX(ss.instances[i - 1].id));
        }
        assert_same(&s4, &by_four, &ss, &serial);
    }
    rill_render_extract_buf_free(&serial);
    rill_render_extract_buf_free(&by_four);
    rill_jobs_destroy(four);
    rill_render_assets_destroy(ra);
    rill_world_destroy(w);
}

/* >>static batching: the batched walk over the jobs against the serial one. Two identical
 * fixtures, one extracted without jobs (each entity skipped or taken as the walk reaches it), one
 * over 4 workers (chunks note what the batcher must see, the merge replays it in order), go
 * through the same frames: cells built, members moved, given other channels (some keeping their
 * identity), switched off and on
 * (as LOD levels are), despawned, a new asset named mid-chunk. Every frame their snapshots
 * (instances and ranges) and batching counts must be the same bytes; the over-jobs fixture builds
 * its cells over the jobs too (each cell's geometry in several slices), so once the cells are built
 * and again at the end their pictures, seen from above, must be the same bytes. */

#define BATCH_BIT (UINT64_C(1) << 63)

/* Batching on with a build budget that admits one queued cell a frame (build_ms below any cell's
 * time) or every one (above): either way both fixtures build the same cells in the same frames. */
static void batching_on(fixture *f, float build_ms) {
    rill_render_assets_set_batching(
        f->ra, &(rill_render_batching){
                   .enabled = true, .cell_size = 48.0f, .build_ms = build_ms, .static_frames = 2});
    rill_channels_set_mode(f->w, RILL_CHANNEL_GHOST, RILL_RENDER_MODE_GHOST, 0.5f);
    for (uint32_t i = 0; i < ENTITIES && build_ms < 1.0f; i += 17) { /* never batched */
        assert_true(rill_channels_set(f->w, f->ents[i],
                                      RILL_CHANNEL_CONTEXT | RILL_CHANNEL_PRESERVE_IDENTITY));
    }
}

static void assert_same_batching(const fixture *a, const fixture *b) {
    rill_render_batching_stats sa, sb;
    rill_render_assets_get_batching_stats(a->ra, &sa);
    rill_render_assets_get_batching_stats(b->ra, &sb);
    assert_int_equal(sa.cells, sb.cells);
    assert_int_equal(sa.cells_built, sb.cells_built);
    assert_int_equal(sa.batches, sb.batches);
    assert_int_equal(sa.batched_entities, sb.batched_entities);
    assert_int_equal(sa.candidates, sb.candidates);
    assert_int_equal(sa.range_switches, sb.range_switches);
    assert_int_equal(sa.cells_waiting, sb.cells_waiting);
}

/* Batch instances in a snapshot. */
static uint32_t batch_count(const rill_render_snapshot *s) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        n += (s->instances[i].id & BATCH_BIT) != 0;
    }
    return n;
}

/* One frame of both: a extracted serially, b over jobs; their snapshots and batchers agree. Both
 * render and wait for the GPU, so their batch meshes are uploaded in the same frame. Returns the
 * batch instances drawn. */
static uint32_t frame_both(fixture *a, fixture *b, rill_jobs *jobs, rill_render_extract_buf *xa,
                           rill_render_extract_buf *xb) {
    rill_render_snapshot sa, sb;
    rill_error err = {0};
    rill_world_update_transforms(a->w);
    rill_world_update_transforms(b->w);
    extract(a, NULL, xa, &sa);
    extract(b, jobs, xb, &sb);
    assert_same(&sa, xa, &sb, xb);
    assert_same_marks(&sa, &sb);
    assert_int_equal(sa.range_count, sb.range_count);
    assert_memory_equal(sa.ranges, sb.ranges, (size_t)sa.range_count * sizeof(rill_render_range));
    assert_same_batching(a, b);
    assert_int_equal(rill_renderer_render(a->r, &sa, &err), RILL_OK);
    assert_int_equal(rill_renderer_render(b->r, &sb, &err), RILL_OK);
    assert_int_equal(rill_renderer_wait_idle(a->r, &err), RILL_OK);
    assert_int_equal(rill_renderer_wait_idle(b->r, &err), RILL_OK);
    return batch_count(&sa);
}

/* Both cameras look down on the grid (most of its cells in view). */
static void look_down(fixture *a, fixture *b) {
    rill_transform t = rill_transform_identity();
    t.translation[0] = 150.0f;
    t.translation[1] = 140.0f;
    t.translation[2] = 90.0f;
    t.rotation[0] = -0.70710678f; /* -90 degrees about x: looking along -y */
    t.rotation[3] = 0.70710678f;
    rill_world_set_transform(a->w, a->cam, &t);
    rill_world_set_transform(b->w, b->cam, &t);
}

/* The last frames of a and b are the same picture, and it shows something (not one colour): the
 * batch meshes that b built over the jobs hold the vertices and indices a built without. */
static void assert_same_picture(fixture *a, fixture *b) {
    uint8_t pa[64 * 48 * 4], pb[64 * 48 * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(a->r, pa, sizeof(pa), &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(b->r, pb, sizeof(pb), &err), RILL_OK);
    assert_memory_equal(pa, pb, sizeof(pa));
    uint32_t differ = 0;
    for (size_t i = 4; i < sizeof(pa); i += 4) {
        differ += memcmp(pa + i, pa, 4) != 0;
    }
    assert_true(differ > sizeof(pa) / 4 / 16); /* dim (no light) cubes on black */
}

/* What changes between frames, done to both fixtures alike. */
typedef void (*change_fn)(fixture *f, uint32_t i);

static void change_both(fixture *a, fixture *b, change_fn fn, uint32_t first, uint32_t step) {
    for (uint32_t i = first; i < ENTITIES; i += step) {
        fn(a, i);
        fn(b, i);
    }
}

static void move_one(fixture *f, uint32_t i) {
    rill_transform t = rill_transform_identity();
    t.translation[0] = (float)(i % 100) * 3.0f + 0.5f;
    t.translation[2] = (float)(i / 100) * 3.0f;
    rill_world_set_transform(f->w, f->ents[i], &t);
}

static void ghost_channel(fixture *f, uint32_t i) {
    assert_true(rill_channels_set(f->w, f->ents[i], RILL_CHANNEL_CONTEXT | RILL_CHANNEL_GHOST));
}

static void keep_identity(fixture *f, uint32_t i) {
    assert_true(
        rill_channels_set(f->w, f->ents[i], RILL_CHANNEL_CONTEXT | RILL_CHANNEL_PRESERVE_IDENTITY));
}

static void set_mode(fixture *f, uint32_t i, rill_render_mode mode) {
    rill_render_mode_component rm = {mode, 1.0f, 0.0f};
    assert_non_null(rill_world_add(f->w, f->ents[i], f->rc.render_mode, &rm));
}

static void switch_off(fixture *f, uint32_t i) {
    set_mode(f, i, RILL_RENDER_MODE_HIDDEN);
}

static void switch_on(fixture *f, uint32_t i) {
    set_mode(f, i, RILL_RENDER_MODE_NORMAL);
}

static void despawn_one(fixture *f, uint32_t i) {
    if (rill_world_is_alive(f->w, f->ents[i])) {
        assert_true(rill_world_despawn(f->w, f->ents[i]));
    }
}

static void third_asset(fixture *f, uint32_t i) {
    rill_model_mesh mm =
        *(const rill_model_mesh *)rill_world_get(f->w, f->ents[i], f->rc.model_mesh);
    mm.asset = f->asset[2].id;
    assert_non_null(rill_world_add(f->w, f->ents[i], f->rc.model_mesh, &mm));
}

static void test_batched_workers_match_serial(void **state) {
    fixture *a = *state, *b = NULL;
    assert_int_equal(setup((void **)&b), 0);
    rill_jobs *four = jobs_of(4);
    rill_render_extract_buf xa = {0}, xb = {0};
    batching_on(a, 1e-6f);
    batching_on(b, 1e-6f);
    /* One cell built a frame: the others' candidates wait, walked frame after frame. */
    rill_render_batching_stats bs;
    uint32_t drawn = 0, waited = 0;
    for (int k = 0; k < 40; k++) {
        drawn = frame_both(a, b, four, &xa, &xb);
        rill_render_assets_get_batching_stats(b->ra, &bs);
        waited += bs.cells_waiting > 0;
    }
    assert_true(waited > 10 && bs.cells_waiting == 0);
    assert_true(drawn > 0 && bs.batched_entities > ENTITIES / 2);
    uint32_t cells_settled = bs.cells_built;
    look_down(a, b); /* (the cameras are no members: nothing is rebuilt) */
    drawn = frame_both(a, b, four, &xa, &xb);
    assert_true(drawn > 0);
    assert_same_picture(a, b);

    const struct {
        change_fn fn;
        uint32_t first, step;
    } changes[] = {{move_one, 7, 50},      {ghost_channel, 9, 60}, {keep_identity, 20, 45},
                   {switch_off, 13, 40},   {switch_on, 13, 40},    {despawn_one, 11, 70},
                   {third_asset, 150, 300}};
    for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
        change_both(a, b, changes[c].fn, changes[c].first, changes[c].step);
        for (int k = 0; k < 3; k++) {
            drawn = frame_both(a, b, four, &xa, &xb);
        }
        assert_true(drawn > 0);
    }
    /* Every queued cell at once until none waits. */
    batching_on(a, 1e9f);
    batching_on(b, 1e9f);
    for (int k = 0; k < 4; k++) {
        drawn = frame_both(a, b, four, &xa, &xb);
    }
    rill_render_assets_get_batching_stats(b->ra, &bs);
    assert_true(bs.cells_waiting == 0 && drawn > 0);
    assert_true(bs.cells_built > cells_settled); /* the changes rebuilt cells */
    assert_true(bs.range_switches > 0);          /* and switched members off and on */
    assert_same_picture(a, b);

    rill_render_extract_buf_free(&xa);
    rill_render_extract_buf_free(&xb);
    rill_jobs_destroy(four);
    teardown((void **)&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_workers_match_serial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_marks_follow_shifts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_sorted_over_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batched_workers_match_serial, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
