/* test_lod.c: mesh LOD: band selection with the defaults, the x2.2 extension for levels beyond
 * the distances, the cull distance, the crossfade interval, a disabled MeshLod; and, end to end
 * through the model system, the _lodN.glb probe (loose files and a pack, contiguous levels only),
 * the levels spawned as hidden siblings, and the LOD system showing one level by distance. */
#include "rill/formats/gltf.h"
#include "rill/formats/rpak.h"
#include "rill/stream.h"
#include "rill_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static rill_lod_pick at(const rill_lod_bands *b, float d) {
    return rill_lod_pick_at(b, d);
}

static void test_default_bands(void **state) {
    (void)state;
    rill_lod_settings s = rill_lod_settings_default();
    rill_lod_bands b;
    rill_lod_bands_make(&s, 4, &b); /* base + 3 baked levels */
    assert_int_equal(b.levels, 4);
    assert_true(b.start[1] == 40.0f && b.end[1] == 100.0f && b.end[2] == 220.0f);
    assert_true(isinf(b.end[3]));
    assert_int_equal(at(&b, 0).level, 0);
    assert_int_equal(at(&b, 39.9f).next, -1);
    /* Across 40: level 0 fades out and level 1 in over [40, 45). */
    rill_lod_pick p = at(&b, 42.5f);
    assert_int_equal(p.level, 0);
    assert_int_equal(p.next, 1);
    assert_true(fabsf(p.fade - 0.5f) < 1e-6f);
    assert_int_equal(at(&b, 45.0f).level, 1);
    assert_int_equal(at(&b, 45.0f).next, -1);
    assert_int_equal(at(&b, 150.0f).level, 2);
    assert_int_equal(at(&b, 5000.0f).level, 3); /* never culled by default */
    /* Fewer levels than distances: the last level runs to infinity from its start. */
    rill_lod_bands_make(&s, 2, &b);
    assert_int_equal(at(&b, 1000.0f).level, 1);
}

static void test_extension_cull_disabled(void **state) {
    (void)state;
    rill_lod_settings s = rill_lod_settings_default();
    rill_lod_bands b;
    rill_lod_bands_make(&s, 5, &b); /* 4 baked levels, 3 distances: 220 x 2.2 = 484 */
    assert_true(fabsf(b.end[3] - 484.0f) < 1e-3f);
    assert_int_equal(at(&b, 400.0f).level, 3);
    assert_int_equal(at(&b, 490.0f).level, 4);
    s.cull_distance = 300.0f;
    rill_lod_bands_make(&s, 5, &b);
    assert_int_equal(at(&b, 250.0f).level, 3);
    assert_int_equal(at(&b, 310.0f).level, -1); /* beyond the cull distance: nothing */
    s.crossfade = 0.0f;                         /* a swap: no interval */
    rill_lod_bands_make(&s, 5, &b);
    assert_int_equal(at(&b, 40.0f).level, 1);
    assert_int_equal(at(&b, 40.0f).next, -1);
    s.enabled = false; /* always the base, never culled */
    rill_lod_bands_make(&s, 5, &b);
    assert_int_equal(at(&b, 10000.0f).level, 0);
}

/* >>end to end */

/* A model of `prims` primitives (one node), each a fan of `tris` triangles, written at path. */
static void write_glb_prims(const char *path, uint32_t tris, uint32_t prims) {
    float pos[3 * 64] = {0}, nrm[3 * 64] = {0};
    uint32_t idx[3 * 62];
    uint32_t nv = tris + 2u;
    for (uint32_t i = 0; i < nv; i++) {
        pos[i * 3] = cosf((float)i * 0.1f), pos[i * 3 + 2] = sinf((float)i * 0.1f);
        nrm[i * 3 + 1] = 1.0f;
    }
    for (uint32_t t = 0; t < tris; t++) {
        idx[t * 3] = 0, idx[t * 3 + 1] = t + 1u, idx[t * 3 + 2] = t + 2u;
    }
    rill_gltf_primitive prim = {.vertex_count = nv,
                                .positions = pos,
                                .normals = nrm,
                                .index_count = tris * 3u,
                                .indices = idx,
                                .material = -1,
                                .bounds_min = {-1, 0, -1},
                                .bounds_max = {1, 0, 1}};
    rill_gltf_primitive prim_list[4] = {prim, prim, prim, prim};
    rill_gltf_mesh mesh = {.primitive_count = prims, .primitives = prim_list};
    rill_gltf_node node = RILL_GLTF_MESH_NODE(NULL, 0);
    int32_t roots[1] = {0};
    rill_gltf_scene scene = {.node_count = 1, .nodes = roots};
    rill_gltf_model m = {.mesh_count = 1,
                         .meshes = &mesh,
                         .node_count = 1,
                         .nodes = &node,
                         .scene_count = 1,
                         .scenes = &scene,
                         .default_scene = 0};
    rill_error err = {0};
    assert_int_equal(rill_glb_write_file(&m, path, NULL, &err), RILL_OK);
}

static void write_glb(const char *path, uint32_t tris) {
    write_glb_prims(path, tris, 1);
}

static rill_entity model_entity(rill_world *w, const rill_model_components *mc, const char *path,
                                float x) {
    rill_entity e = rill_world_spawn(w);
    rill_transform t = {.translation = {x, 0, 0}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}};
    rill_world_set_transform(w, e, &t);
    rill_model_ref ref = {.path = rill_intern(path)};
    rill_world_add(w, e, mc->model, &ref);
    return e;
}

static const rill_render_mode_component *mode_of(rill_world *w, const rill_model_components *mc,
                                                 rill_entity r) {
    /* the primitive entity: root -> node -> primitive */
    rill_entity node = rill_world_first_child(w, r);
    rill_entity prim = node ? rill_world_first_child(w, node) : 0;
    return prim ? rill_world_get(w, prim, mc->render_mode) : NULL;
}

static rill_render_mode mode_under(rill_world *w, const rill_model_components *mc, rill_entity r) {
    const rill_render_mode_component *rm = mode_of(w, mc, r);
    return rm ? rm->mode : RILL_RENDER_MODE_NORMAL;
}

static float fade_under(rill_world *w, const rill_model_components *mc, rill_entity r) {
    const rill_render_mode_component *rm = mode_of(w, mc, r);
    return rm ? rm->lod_fade : 0.0f;
}

static void test_probe_spawn_and_switch(void **state) {
    (void)state;
    char dir[512], path[700];
    rill_test_tmpdir(dir, sizeof dir, "lod");
    /* Loose: a.glb + a_lod1.glb; c.glb + c_lod1.glb + c_lod3.glb (no lod2: the chain stops). */
    const char *loose[] = {"a.glb", "a_lod1.glb", "c.glb", "c_lod1.glb", "c_lod3.glb"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, loose[i]);
        write_glb(path, 8);
    }
    /* Packed: b.glb + b_lod1.glb + b_lod2.glb (the probe goes through the VFS: pack first). */
    char pk[700], tmp[700];
    snprintf(pk, sizeof pk, "%s/b.rpak", dir);
    rill_rpak_writer *wr = rill_rpak_writer_create(NULL, NULL);
    rill_error err = {0};
    const char *packed[] = {"b.glb", "b_lod1.glb", "b_lod2.glb"};
    const uint32_t tris[] = {40, 20, 10};
    for (int i = 0; i < 3; i++) {
        snprintf(tmp, sizeof tmp, "%s/tmp_%s", dir, packed[i]);
        write_glb(tmp, tris[i]);
        uint8_t *data = NULL;
        size_t size = 0;
        assert_int_equal(rill_file_read_all(tmp, &data, &size, &err), RILL_OK);
        assert_int_equal(
            rill_rpak_writer_add(wr, packed[i], data, size, RILL_RPAK_COMPRESSION_AUTO, &err),
            RILL_OK);
        rill_free(data);
    }
    assert_int_equal(rill_rpak_writer_finish_file(wr, pk, &err), RILL_OK);
    rill_rpak_writer_destroy(wr);

    rill_world *w = rill_world_create(NULL, NULL);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount_file(vfs, pk, NULL, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_server *as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    rill_scene_models *sm =
        rill_scene_models_create(&(rill_scene_models_desc){.world = w, .assets = as}, &err);
    assert_non_null(sm);
    const rill_model_components *mc = rill_scene_models_components(sm);
    rill_entity a = model_entity(w, mc, "a.glb", 0);
    rill_entity b = model_entity(w, mc, "b.glb", 1000);
    rill_entity c = model_entity(w, mc, "c.glb", 2000);
    rill_scene_models_flush(sm);
    rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS];
    assert_int_equal(rill_scene_models_levels(sm, a, roots), 2);
    assert_int_equal(rill_scene_models_levels(sm, c, roots), 2); /* contiguous: lod3 ignored */
    assert_int_equal(rill_scene_models_levels(sm, b, roots), 3); /* from the pack */
    /* Levels are hidden siblings of the base tree, all children of the Model entity. */
    assert_int_equal(rill_world_get_parent(w, roots[1]), b);
    assert_int_equal(rill_world_get_parent(w, roots[2]), b);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_NORMAL);
    assert_int_equal(mode_under(w, mc, roots[1]), RILL_RENDER_MODE_HIDDEN);
    assert_int_equal(mode_under(w, mc, roots[2]), RILL_RENDER_MODE_HIDDEN);

    /* The LOD system: 70 m from b shows level 1 only; 500 m level 2; 10 m the base again. */
    rill_lod_system *lod = rill_lod_system_create(w, sm);
    assert_non_null(lod);
    const float cams[3][3] = {{1070, 0, 0}, {1500, 0, 0}, {1010, 0, 0}};
    const int32_t want[3] = {1, 2, 0};
    for (int k = 0; k < 3; k++) {
        rill_lod_system_update(lod, cams[k]);
        assert_int_equal(rill_lod_system_level(lod, b), want[k]);
        for (int l = 0; l < 3; l++) {
            assert_int_equal(mode_under(w, mc, roots[l]),
                             l == want[k] ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN);
        }
    }
    /* Inside the crossfade across 100 m (level 1 -> 2 over [100, 105)): both trees draw, the
     * outgoing with -f and the incoming with +f (f rounded to 1/16); level 0 stays hidden. */
    const float mid[3] = {1102.5f, 0, 0}, late[3] = {1104.0f, 0, 0};
    rill_lod_system_update(lod, mid);
    int32_t next = -2;
    float fade = -1.0f;
    assert_int_equal(rill_lod_system_levels(lod, b, &next, &fade), 1);
    assert_int_equal(next, 2);
    assert_true(fabsf(fade - 0.5f) < 1e-6f);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_HIDDEN);
    assert_int_equal(mode_under(w, mc, roots[1]), RILL_RENDER_MODE_NORMAL);
    assert_int_equal(mode_under(w, mc, roots[2]), RILL_RENDER_MODE_NORMAL);
    assert_true(fade_under(w, mc, roots[1]) == -0.5f && fade_under(w, mc, roots[2]) == 0.5f);
    rill_lod_system_update(lod, late); /* 4 m in: 0.8 -> 13/16 */
    assert_true(fade_under(w, mc, roots[1]) == -13.0f / 16.0f);
    assert_true(fade_under(w, mc, roots[2]) == 13.0f / 16.0f);
    rill_lod_stats fs;
    rill_lod_system_get_stats(lod, &fs);
    assert_int_equal(fs.fading, 1);
    /* Past the interval the incoming level draws whole and the outgoing is hidden again. */
    rill_lod_system_update(lod, cams[1]);
    assert_int_equal(rill_lod_system_levels(lod, b, &next, &fade), 2);
    assert_int_equal(next, -1);
    assert_int_equal(mode_under(w, mc, roots[1]), RILL_RENDER_MODE_HIDDEN);
    assert_true(fade_under(w, mc, roots[2]) == 0.0f);
    /* Jumping from mid-crossfade straight to the base hides both blended levels. */
    rill_lod_system_update(lod, mid);
    rill_lod_system_update(lod, cams[2]);
    for (int l = 0; l < 3; l++) {
        assert_int_equal(mode_under(w, mc, roots[l]),
                         l == 0 ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN);
    }
    assert_true(fade_under(w, mc, roots[0]) == 0.0f);
    /* A MeshLod that disables the bands keeps the base at any distance. */
    rill_mesh_lod off = {.enabled = false};
    rill_world_add(w, b, mc->mesh_lod, &off);
    rill_lod_system_update(lod, cams[1]);
    assert_int_equal(rill_lod_system_level(lod, b), 0);
    rill_lod_stats st;
    rill_lod_system_get_stats(lod, &st);
    assert_int_equal(st.models, 3);

    rill_lod_system_destroy(lod);
    rill_scene_models_destroy(sm);
    rill_asset_server_destroy(as);
    rill_vfs_destroy(vfs);
    rill_world_destroy(w);
    rill_test_tmpdir_remove(dir);
}

/* The primitive entity of a spawned tree (root -> node -> primitive). */
static rill_entity prim_of(rill_world *w, rill_entity root) {
    rill_entity node = rill_world_first_child(w, root);
    return node ? rill_world_first_child(w, node) : RILL_ENTITY_NULL;
}

/* ModelMesh entities that extract visits (those with MeshShown). */
static uint32_t shown_meshes(rill_world *w, const rill_model_components *mc) {
    rill_query_desc qd = {.with = {mc->model_mesh, mc->mesh_shown}};
    rill_query q = rill_world_query(w, &qd);
    uint32_t n = 0;
    while (rill_query_next(&q)) {
        n++;
    }
    return n;
}

typedef struct lod_fixture {
    char dir[512];
    rill_world *w;
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_scene_models *sm;
    const rill_model_components *mc;
    rill_lod_system *lod;
    rill_entity x; /* a Model of d.glb at the origin, spawned */
} lod_fixture;

/* d.glb, e.glb with two levels each, f.glb with one, loose in a temporary folder; a Model entity
 * of d.glb at the origin, its trees spawned. */
static int lod_setup(void **state) {
    lod_fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    *state = f;
    rill_test_tmpdir(f->dir, sizeof f->dir, "lodpark");
    const char *files[] = {"d.glb",      "d_lod1.glb", "d_lod2.glb", "e.glb",
                           "e_lod1.glb", "e_lod2.glb", "f.glb",      "f_lod1.glb",
                           "k.glb",      "k_lod1.glb", "l.glb",      "l_lod1.glb"};
    char path[700];
    for (int i = 0; i < 12; i++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, files[i]);
        write_glb_prims(path, 8, i < 8 ? 1u : 3u); /* k and l: three meshes per level */
    }
    rill_error err = {0};
    f->w = rill_world_create(NULL, NULL);
    f->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, f->dir, &err), RILL_OK);
    f->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs}, NULL);
    f->sm =
        rill_scene_models_create(&(rill_scene_models_desc){.world = f->w, .assets = f->as}, &err);
    assert_non_null(f->sm);
    f->mc = rill_scene_models_components(f->sm);
    f->lod = rill_lod_system_create(f->w, f->sm);
    assert_non_null(f->lod);
    f->x = model_entity(f->w, f->mc, "d.glb", 0);
    rill_scene_models_flush(f->sm);
    return 0;
}

static int lod_teardown(void **state) {
    lod_fixture *f = *state;
    rill_lod_system_destroy(f->lod);
    rill_scene_models_destroy(f->sm);
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs);
    rill_world_destroy(f->w);
    rill_test_tmpdir_remove(f->dir);
    free(f);
    return 0;
}

/* Levels not drawn are parked out of the set extract walks (MeshShown), and a RenderMode set
 * back to normal (or a new ModelMesh) rejoins it. */
static void test_parked_levels(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    const rill_model_components *mc = f->mc;
    rill_entity x = f->x;
    rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS];
    assert_int_equal(rill_scene_models_levels(f->sm, x, roots), 3);
    /* As spawned: the base walked, both levels parked. */
    assert_true(rill_world_has(w, prim_of(w, roots[0]), mc->mesh_shown));
    assert_false(rill_world_has(w, prim_of(w, roots[1]), mc->mesh_shown));
    assert_false(rill_world_has(w, prim_of(w, roots[2]), mc->mesh_shown));
    assert_int_equal(shown_meshes(w, mc), 1);
    const float far[3] = {70, 0, 0}, fading[3] = {102.5f, 0, 0};
    rill_lod_system_update(f->lod, far);
    assert_false(rill_world_has(w, prim_of(w, roots[0]), mc->mesh_shown));
    assert_true(rill_world_has(w, prim_of(w, roots[1]), mc->mesh_shown));
    assert_int_equal(shown_meshes(w, mc), 1);
    rill_lod_system_update(f->lod, fading); /* both blended levels are walked */
    assert_int_equal(shown_meshes(w, mc), 2);
    /* A RenderMode written through the world brings a parked mesh back; so does a new mesh. */
    rill_world_add(w, prim_of(w, roots[0]), mc->render_mode,
                   &(rill_render_mode_component){RILL_RENDER_MODE_WIREFRAME, 1.0f, 0.0f});
    assert_true(rill_world_has(w, prim_of(w, roots[0]), mc->mesh_shown));
    rill_entity loose = rill_world_spawn(w);
    rill_world_add(w, loose, mc->model_mesh, &(rill_model_mesh){0, 0, 0});
    assert_true(rill_world_has(w, loose, mc->mesh_shown));
    /* A hidden RenderMode alone does not park: the entity is still walked (and drawn hidden). */
    rill_world_add(w, loose, mc->render_mode,
                   &(rill_render_mode_component){RILL_RENDER_MODE_HIDDEN, 0.5f, 0.0f});
    assert_true(rill_world_has(w, loose, mc->mesh_shown));
}

/* What the LOD system knows of a model goes with its trees: a Model entity that names another
 * file starts from a fresh tree's state (its new level trees are switched, not assumed), and
 * Models that die leave nothing behind (spawn/despawn cycles do not grow memory). */
static void test_state_follows_trees(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    const rill_model_components *mc = f->mc;
    rill_entity x = f->x;
    const float cam[3] = {500, 0, 0};
    rill_lod_system_update(f->lod, cam);
    assert_int_equal(rill_lod_system_level(f->lod, x), 2);
    /* Another file with as many levels: at the same distance the same level is wanted. The new
     * trees spawn showing it (measured from the last update's camera), not their base, and the
     * next update has nothing to switch. */
    rill_world_add(w, x, mc->model, &(rill_model_ref){rill_intern("e.glb")});
    rill_scene_models_flush(f->sm);
    rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS];
    assert_int_equal(rill_scene_models_levels(f->sm, x, roots), 3);
    for (int l = 0; l < 3; l++) {
        assert_int_equal(mode_under(w, mc, roots[l]),
                         l == 2 ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN);
    }
    rill_lod_stats before;
    rill_lod_system_get_stats(f->lod, &before);
    rill_lod_system_update(f->lod, cam);
    assert_int_equal(rill_lod_system_level(f->lod, x), 2);
    rill_lod_stats after;
    rill_lod_system_get_stats(f->lod, &after);
    assert_int_equal(after.switches, before.switches);
    for (int l = 0; l < 3; l++) {
        assert_int_equal(mode_under(w, mc, roots[l]),
                         l == 2 ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN);
    }
    assert_int_equal(shown_meshes(w, mc), 1);

    /* Cycles of 300 Models spawned, switched and despawned: the same live bytes after each (a
     * record kept per dead Model would grow a map by 300 keys a cycle). */
    size_t live[5];
    rill_entity many[300];
    for (int cycle = 0; cycle < 5; cycle++) {
        for (int i = 0; i < 300; i++) {
            many[i] = model_entity(w, mc, "f.glb", (float)(i % 20) * 30.0f);
        }
        rill_scene_models_flush(f->sm);
        rill_lod_system_update(f->lod, cam);
        rill_lod_stats st;
        rill_lod_system_get_stats(f->lod, &st);
        assert_int_equal(st.models, 301);
        for (int i = 0; i < 300; i++) {
            rill_world_despawn(w, many[i]);
        }
        rill_scene_models_update(f->sm);
        rill_lod_system_update(f->lod, cam);
        rill_lod_system_get_stats(f->lod, &st);
        assert_int_equal(st.models, 1);
        assert_int_equal(rill_lod_system_level(f->lod, many[0]), -1);
        /* The maps and records of the model and LOD systems (entity storage is left out: which
         * slots the free list hands back, and so the sparse arrays' reach, may shift a little). */
        live[cycle] = rill_mem_live_bytes(RILL_MEM_CONTAINER) +
                      rill_mem_live_bytes(RILL_MEM_STREAM) + rill_mem_live_bytes(RILL_MEM_SCENE);
    }
    assert_true(live[4] == live[1]);
}

/* A fake clock: every reading is 0.6 ms after the last. */
static uint64_t ticking(void *user) {
    uint64_t *t = user;
    return *t += 600000u;
}

/* Tree spawning keeps to the model system's budget (1 ms: two trees per update at 0.6 ms a
 * reading), and a Model entity hidden before its tree spawns (a streamed instance unloading) gets
 * a hidden tree. */
static void test_spawn_budget_and_retired(void **state) {
    (void)state;
    char dir[512], path[700];
    rill_test_tmpdir(dir, sizeof dir, "lodbudget");
    snprintf(path, sizeof path, "%s/m.glb", dir);
    write_glb(path, 8);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_server *as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    uint64_t now = 0;
    rill_scene_models *sm = rill_scene_models_create(
        &(rill_scene_models_desc){.world = w, .assets = as, .clock = {ticking, &now}}, &err);
    assert_non_null(sm);
    const rill_model_components *mc = rill_scene_models_components(sm);
    model_entity(w, mc, "m.glb", 0);
    rill_scene_models_flush(sm); /* the file is loaded; flush spawns without a budget */
    rill_entity e[6];
    for (int i = 0; i < 6; i++) {
        e[i] = model_entity(w, mc, "m.glb", (float)i);
    }
    const rill_render_mode_component hidden = {.mode = RILL_RENDER_MODE_HIDDEN};
    rill_world_add(w, e[5], mc->render_mode, &hidden);
    rill_scene_models_stats st;
    for (uint32_t u = 1; u <= 3; u++) {
        rill_scene_models_update(sm);
        rill_scene_models_get_stats(sm, &st);
        assert_int_equal(st.spawned, 1 + 2 * u);
        assert_int_equal(st.pending, 6 - 2 * u);
        assert_true(st.last_spawn_ns >= 1000000u);
    }
    for (int i = 0; i < 6; i++) {
        assert_int_equal(mode_under(w, mc, rill_scene_models_root(sm, e[i])),
                         i == 5 ? RILL_RENDER_MODE_HIDDEN : RILL_RENDER_MODE_NORMAL);
    }
    rill_scene_models_destroy(sm);
    rill_asset_server_destroy(as);
    rill_vfs_destroy(vfs);
    rill_world_destroy(w);
    rill_test_tmpdir_remove(dir);
}

/* >>amortized checks: every update equals a full evaluation */

/* A deterministic generator (xorshift64*) for the scripted runs. */
static uint64_t rng_next(uint64_t *x) {
    *x ^= *x >> 12, *x ^= *x << 25, *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

static float rng_unit(uint64_t *x) {
    return (float)(rng_next(x) >> 40) / (float)(1u << 24);
}

static float rng_range(uint64_t *x, float lo, float hi) {
    return lo + (hi - lo) * rng_unit(x);
}

/* What a full evaluation shows for Model e: the pick at the camera's distance, the fade rounded to
 * sixteenths (0 or 16: one level whole), nothing for a hidden Model entity. */
static void expected_levels(rill_world *w, const rill_model_components *mc, rill_entity e,
                            uint32_t n, const float *cam, int32_t *a, int32_t *b, float *fade) {
    *a = 0, *b = -1, *fade = 0.0f;
    if (cam) {
        const rill_mesh_lod *ml = rill_world_get(w, e, mc->mesh_lod);
        rill_lod_settings st = rill_lod_settings_default();
        if (ml) {
            st = (rill_lod_settings){ml->enabled,
                                     {ml->lod1_distance, ml->lod2_distance, ml->lod3_distance},
                                     ml->crossfade,
                                     ml->cull_distance};
        }
        rill_lod_bands bands;
        rill_lod_bands_make(&st, n, &bands);
        const float *m = rill_world_global_matrix(w, e);
        float d = 0.0f;
        if (m) {
            float dx = m[12] - cam[0], dy = m[13] - cam[1], dz = m[14] - cam[2];
            d = sqrtf(dx * dx + dy * dy + dz * dz);
        }
        rill_lod_pick p = rill_lod_pick_at(&bands, d);
        *a = p.level;
        uint32_t q = p.next >= 0 && p.level >= 0 ? (uint32_t)(p.fade * 16.0f + 0.5f) : 0u;
        if (q >= 16u) {
            *a = p.next;
        } else if (q > 0) {
            *b = p.next, *fade = (float)q / 16.0f;
        }
    }
    const rill_render_mode_component *rm = rill_world_get(w, e, mc->render_mode);
    if (rm && rm->mode == RILL_RENDER_MODE_HIDDEN) {
        *a = -1, *b = -1, *fade = 0.0f;
    }
}

/* Asserts that every spawned Model shows what a full evaluation would, in the LOD system's record
 * and on its trees (modes and fades). Returns how many models have levels. */
static uint32_t assert_full_evaluation(lod_fixture *f, const rill_entity *models, uint32_t count,
                                       const float *cam) {
    uint32_t with_levels = 0;
    for (uint32_t i = 0; i < count; i++) {
        rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS];
        uint32_t n = rill_scene_models_levels(f->sm, models[i], roots);
        if (n < 2) {
            continue;
        }
        with_levels++;
        int32_t a, b, next;
        float fade, got_fade;
        expected_levels(f->w, f->mc, models[i], n, cam, &a, &b, &fade);
        assert_int_equal(rill_lod_system_levels(f->lod, models[i], &next, &got_fade), a);
        assert_int_equal(next, b);
        assert_true(got_fade == fade);
        for (int32_t l = 0; l < (int32_t)n; l++) {
            bool shown = l == a || l == b;
            assert_int_equal(mode_under(f->w, f->mc, roots[l]),
                             shown ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN);
            if (shown) {
                assert_true(fade_under(f->w, f->mc, roots[l]) == (b < 0    ? 0.0f
                                                                  : l == b ? fade
                                                                           : -fade));
            }
        }
    }
    return with_levels;
}

#define SCRIPT_MODELS 48u

/* One scripted change of the world: a model moved, a MeshLod added, edited in place or removed, a
 * Model entity hidden or shown again (through the world), or a Model despawned and another one
 * spawned in its place. */
static void script_change(lod_fixture *f, rill_entity *models, uint64_t *x) {
    rill_world *w = f->w;
    const rill_model_components *mc = f->mc;
    rill_entity e = models[rng_next(x) % SCRIPT_MODELS];
    uint32_t kind = (uint32_t)(rng_next(x) % 6u);
    if (kind == 0) {
        rill_transform *t = rill_world_transform_mut(w, e);
        t->translation[0] += rng_range(x, -30.0f, 30.0f);
        t->translation[2] += rng_range(x, -30.0f, 30.0f);
    } else if (kind == 1) {
        rill_mesh_lod ml = {.enabled = rng_unit(x) < 0.85f,
                            .lod1_distance = rng_range(x, 10.0f, 60.0f),
                            .lod2_distance = rng_range(x, 60.0f, 150.0f),
                            .lod3_distance = rng_range(x, 150.0f, 300.0f),
                            .crossfade = rng_unit(x) < 0.2f ? 0.0f : rng_range(x, 0.5f, 12.0f),
                            .cull_distance =
                                rng_unit(x) < 0.5f ? 0.0f : rng_range(x, 30.0f, 250.0f)};
        rill_world_add(w, e, mc->mesh_lod, &ml);
    } else if (kind == 2) {
        rill_mesh_lod *ml = rill_world_get(w, e, mc->mesh_lod);
        if (ml) { /* written in place, as an inspector would */
            ml->lod1_distance = rng_range(x, 5.0f, ml->lod2_distance), ml->crossfade *= 0.5f;
        } else {
            rill_world_remove(w, models[rng_next(x) % SCRIPT_MODELS], mc->mesh_lod);
        }
    } else if (kind == 3) {
        rill_mesh_lod *ml = rill_world_get(w, e, mc->mesh_lod);
        if (ml) {
            rill_world_remove(w, e, mc->mesh_lod);
        }
    } else if (kind == 4) {
        const rill_render_mode_component *rm = rill_world_get(w, e, mc->render_mode);
        bool hide = !rm || rm->mode != RILL_RENDER_MODE_HIDDEN;
        rill_world_add(w, e, mc->render_mode,
                       &(rill_render_mode_component){
                           hide ? RILL_RENDER_MODE_HIDDEN : RILL_RENDER_MODE_NORMAL, 0.5f, 0.0f});
    } else {
        static const char *const files[] = {"d.glb", "e.glb", "f.glb"};
        uint32_t i = (uint32_t)(rng_next(x) % SCRIPT_MODELS);
        rill_world_despawn(w, models[i]);
        models[i] = model_entity(w, mc, files[rng_next(x) % 3u], rng_range(x, -250.0f, 250.0f));
    }
}

/* A camera on a random walk (steps of centimetres to metres, pauses, teleports, a few frames with
 * no camera) over Models that move, get MeshLods edited, hidden and shown, despawned and spawned:
 * after every update each model shows exactly what a full evaluation would, while the updates
 * measure a small part of the models. */
static void test_amortized_equals_full(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    static const char *const files[] = {"d.glb", "e.glb", "f.glb"};
    rill_entity models[SCRIPT_MODELS];
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    for (uint32_t i = 0; i < SCRIPT_MODELS; i++) {
        models[i] = model_entity(w, f->mc, files[i % 3u], rng_range(&x, -250.0f, 250.0f));
        rill_world_transform_mut(w, models[i])->translation[2] = rng_range(&x, -250.0f, 250.0f);
    }
    rill_scene_models_flush(f->sm);
    float cam[3] = {0.0f, 2.0f, 0.0f};
    uint64_t measured = 0, evaluated = 0;
    for (uint32_t frame = 0; frame < 1500; frame++) {
        rill_world_update_events(w);
        float r = rng_unit(&x);
        bool has_camera = true;
        if (r < 0.01f) {
            cam[0] = rng_range(&x, -400.0f, 400.0f), cam[2] = rng_range(&x, -400.0f, 400.0f);
        } else if (r < 0.02f) {
            has_camera = false;
        } else if (r > 0.15f) { /* else the camera pauses */
            float step = rng_unit(&x) < 0.5f ? 0.02f : 2.5f;
            for (int k = 0; k < 3; k += 2) {
                cam[k] += rng_range(&x, -step, step);
            }
        }
        if (rng_unit(&x) < 0.15f) {
            script_change(f, models, &x);
        }
        rill_scene_models_flush(f->sm); /* spawns, drops and propagates transforms */
        rill_lod_system_update(f->lod, has_camera ? cam : NULL);
        uint32_t n = assert_full_evaluation(f, models, SCRIPT_MODELS, has_camera ? cam : NULL);
        rill_lod_stats st;
        rill_lod_system_get_stats(f->lod, &st);
        assert_int_equal(st.models, n + 1u); /* the fixture's own model too */
        measured += st.checked, evaluated += st.models;
    }
    /* The walk moves a few metres at most per update: most models keep their check. */
    assert_true(measured * 4u < evaluated);
}

/* A model without baked levels draws as spawned, but its MeshLod cull distance holds as it does
 * for a model with levels (a loose project, or a box too small to bake, was never culled while
 * its exported pack was): hidden beyond it, shown within, and shown again when the cull distance
 * is taken off. */
static void test_cull_without_levels(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    const rill_model_components *mc = f->mc;
    char path[700];
    snprintf(path, sizeof path, "%s/g.glb", f->dir);
    write_glb(path, 8);
    rill_entity g = model_entity(w, mc, "g.glb", 0);
    rill_entity plain = model_entity(w, mc, "g.glb", 0);
    rill_scene_models_flush(f->sm);
    rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS], plain_roots[RILL_SCENE_MODEL_MAX_LEVELS];
    assert_int_equal(rill_scene_models_levels(f->sm, g, roots), 1);
    assert_int_equal(rill_scene_models_levels(f->sm, plain, plain_roots), 1);
    rill_mesh_lod ml = {.enabled = true,
                        .lod1_distance = 40,
                        .lod2_distance = 100,
                        .lod3_distance = 220,
                        .crossfade = 5,
                        .cull_distance = 50};
    rill_world_add(w, g, mc->mesh_lod, &ml);
    const float near[3] = {30, 0, 0}, far[3] = {80, 0, 0};
    rill_lod_system_update(f->lod, near);
    assert_int_equal(rill_lod_system_level(f->lod, g), 0);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_NORMAL);
    rill_lod_system_update(f->lod, far);
    assert_int_equal(rill_lod_system_level(f->lod, g), -1);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_HIDDEN);
    /* Without a MeshLod the same model is not touched. */
    assert_int_equal(mode_under(w, mc, plain_roots[0]), RILL_RENDER_MODE_NORMAL);
    rill_lod_system_update(f->lod, near);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_NORMAL);
    rill_lod_system_update(f->lod, far);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_HIDDEN);
    rill_world_remove(w, g, mc->mesh_lod);
    rill_lod_system_update(f->lod, far);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_NORMAL);
}

/* >>spawn at level: new trees show what the first check picks */

#define SPAWN_ROUND 30u

/* Models spawned while the LOD system knows a camera spawn showing what a full evaluation picks,
 * on every band, inside crossfades, past a cull distance and hidden; the update after switches
 * none of them. Three rounds from three camera positions, the last with no spawn camera set (the
 * last update's camera counts). A model spawned before any camera, or before its entity has a
 * world position, spawns with its base shown and is switched by the update. */
static void test_spawn_at_level(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    const rill_model_components *mc = f->mc;
    rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS];
    assert_int_equal(rill_scene_models_levels(f->sm, f->x, roots), 3); /* spawned camera-less */
    for (int l = 0; l < 3; l++) {
        assert_int_equal(mode_under(w, mc, roots[l]),
                         l == 0 ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN);
    }
    static const char *const files[] = {"d.glb", "e.glb", "f.glb"};
    /* On each default band, inside the crossfades over [40, 45) and [100, 105), far out; with the
     * MeshLod below (bands 30 / 80, crossfade 8, cull at 90) some of these are culled. */
    static const float dist[] = {5, 39.5f, 41.25f, 43.9f, 70, 100.3f, 102.5f, 104.8f, 150, 400};
    const rill_mesh_lod culling = {true, 30.0f, 80.0f, 200.0f, 8.0f, 90.0f};
    const float cams[3][3] = {{0, 0, 0}, {300, 0, -50}, {-120, 0, 260}};
    rill_entity models[SPAWN_ROUND];
    for (uint32_t r = 0; r < 3; r++) {
        const float *cam = cams[r];
        rill_lod_system_update(f->lod, cam); /* the models already there settle first */
        rill_lod_system_set_spawn_camera(f->lod, r < 2 ? cam : NULL);
        for (uint32_t i = 0; i < SPAWN_ROUND; i++) {
            float d = dist[i % 10u], a = 0.7f * (float)i;
            models[i] = model_entity(w, mc, files[(i + r) % 3u], cam[0] + d * cosf(a));
            rill_world_transform_mut(w, models[i])->translation[2] = cam[2] + d * sinf(a);
            if (i % 4u == 1u) {
                rill_world_add(w, models[i], mc->mesh_lod, &culling);
            }
            if (i % 7u == 3u) {
                rill_world_add(w, models[i], mc->render_mode,
                               &(rill_render_mode_component){RILL_RENDER_MODE_HIDDEN, 0.5f, 0});
            }
        }
        rill_world_update_transforms(w); /* world positions, as the scene loader gives them */
        rill_scene_models_flush(f->sm);
        assert_int_equal(assert_full_evaluation(f, models, SPAWN_ROUND, cam), SPAWN_ROUND);
        rill_lod_stats before, after;
        rill_lod_system_get_stats(f->lod, &before);
        rill_lod_system_update(f->lod, cam);
        rill_lod_system_get_stats(f->lod, &after);
        assert_int_equal(after.switches, before.switches);
        assert_true(after.checked >= SPAWN_ROUND); /* each measured, from the update's camera */
        assert_full_evaluation(f, models, SPAWN_ROUND, cam);
    }
    /* No world position yet at spawn: the base is shown, and the update switches it (70 m). */
    rill_entity late = model_entity(w, mc, "d.glb", cams[2][0] + 70.0f);
    rill_world_transform_mut(w, late)->translation[2] = cams[2][2];
    rill_scene_models_flush(f->sm);
    assert_int_equal(rill_scene_models_levels(f->sm, late, roots), 3);
    assert_int_equal(mode_under(w, mc, roots[0]), RILL_RENDER_MODE_NORMAL);
    rill_lod_system_update(f->lod, cams[2]);
    assert_int_equal(rill_lod_system_level(f->lod, late), 1);
    assert_full_evaluation(f, &late, 1, cams[2]);
}

/* A Model entity without a Transform is drawn where its parent places it (the origin at the top),
 * so it is measured from there: seen from 70 m it shows level 1, as one with a Transform does
 * (it was measured at distance 0 and kept level 0 however far the camera was). */
static void test_model_without_transform(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    rill_entity bare = rill_world_spawn(w), parent = rill_world_spawn(w),
                child = rill_world_spawn(w);
    rill_model_ref ref = {.path = rill_intern("d.glb")};
    rill_world_add(w, bare, f->mc->model, &ref);
    rill_transform pt = {.translation = {500, 0, 0}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}};
    rill_world_set_transform(w, parent, &pt);
    rill_world_set_parent(w, child, parent);
    rill_world_add(w, child, f->mc->model, &ref);
    rill_world_update_transforms(w);
    rill_scene_models_flush(f->sm);
    const float far_from_origin[3] = {70, 0, 0}, near_parent[3] = {505, 0, 0};
    rill_lod_system_update(f->lod, far_from_origin);
    assert_int_equal(rill_lod_system_level(f->lod, bare), 1);
    rill_lod_system_update(f->lod, near_parent);
    assert_int_equal(rill_lod_system_level(f->lod, child), 0);
    assert_int_equal(rill_lod_system_level(f->lod, bare), 2);
}

/* >>level lists: a level is written through the meshes listed at spawn */

/* The ModelMesh entities of tree `root` (root -> node -> primitives), up to cap. */
static uint32_t meshes_of(rill_world *w, rill_entity root, rill_entity *out, uint32_t cap) {
    uint32_t n = 0;
    rill_entity node = rill_world_first_child(w, root);
    for (rill_entity c = node ? rill_world_first_child(w, node) : 0; c && n < cap;
         c = rill_world_next_sibling(w, c)) {
        out[n++] = c;
    }
    return n;
}

/* A level is shown, refaded and parked through the model system's lists (three meshes a level):
 * a member despawned (its slot handed to a new ModelMesh entity), moved out of the level's tree or
 * orphaned by its node's despawn is no longer written; one moved within the tree still is; a
 * Model that names another file gets the lists of its new trees. */
static void test_level_lists(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    const rill_model_components *mc = f->mc;
    rill_scene_models *sm = f->sm;
    rill_entity g = model_entity(w, mc, "k.glb", 0);
    rill_scene_models_flush(sm);
    rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS], p[3], q[3];
    assert_int_equal(rill_scene_models_levels(sm, g, roots), 2);
    assert_int_equal(meshes_of(w, roots[1], p, 3), 3);
    assert_int_equal(rill_scene_models_set_level(sm, g, 1, true, 0.25f), 3);
    assert_int_equal(rill_scene_models_refade(sm, g, 1, 0.5f), 3);
    for (int i = 0; i < 3; i++) {
        const rill_render_mode_component *rm = rill_world_get(w, p[i], mc->render_mode);
        assert_true(rm && rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade == 0.5f);
        assert_true(rill_world_has(w, p[i], mc->mesh_shown));
    }
    rill_world_despawn(w, p[0]);
    rill_entity reuse = rill_world_spawn(w); /* may take p[0]'s slot, never its id */
    rill_world_add(w, reuse, mc->model_mesh, &(rill_model_mesh){0, 0, 0});
    rill_world_set_parent(w, reuse, rill_world_first_child(w, roots[1]));
    rill_entity elsewhere = rill_world_spawn(w);
    rill_world_set_parent(w, p[1], elsewhere);
    rill_world_set_parent(w, p[2], roots[1]);
    assert_int_equal(rill_scene_models_set_level(sm, g, 1, false, 0.0f), 1);
    const rill_render_mode_component *moved = rill_world_get(w, p[1], mc->render_mode);
    assert_true(moved->mode == RILL_RENDER_MODE_NORMAL && moved->lod_fade == 0.5f);
    assert_true(rill_world_has(w, p[1], mc->mesh_shown));
    assert_null(rill_world_get(w, reuse, mc->render_mode));
    const rill_render_mode_component *kept = rill_world_get(w, p[2], mc->render_mode);
    assert_true(kept->mode == RILL_RENDER_MODE_HIDDEN);
    assert_false(rill_world_has(w, p[2], mc->mesh_shown));
    /* Dropped for good: moved back, p[1] is still not written. */
    rill_world_set_parent(w, p[1], roots[1]);
    assert_int_equal(rill_scene_models_set_level(sm, g, 1, true, 0.0f), 1);
    /* The base level's list is its own; its node despawned alone orphans all three. */
    assert_int_equal(meshes_of(w, roots[0], q, 3), 3);
    assert_int_equal(rill_scene_models_set_level(sm, g, 0, true, -0.5f), 3);
    rill_world_despawn(w, rill_world_first_child(w, roots[0]));
    assert_int_equal(rill_scene_models_set_level(sm, g, 0, false, 0.0f), 0);
    assert_int_equal(rill_scene_models_set_level(sm, g, 2, true, 0.0f), 0); /* no such level */
    /* Another file: new trees, listed afresh. */
    rill_world_add(w, g, mc->model, &(rill_model_ref){rill_intern("l.glb")});
    rill_scene_models_flush(sm);
    assert_int_equal(rill_scene_models_levels(sm, g, roots), 2);
    assert_int_equal(rill_scene_models_set_level(sm, g, 1, true, 0.0f), 3);
    assert_int_equal(rill_scene_models_set_level(sm, g, 0, false, 0.0f), 3);
    assert_int_equal(meshes_of(w, roots[0], q, 3), 3);
    for (int i = 0; i < 3; i++) {
        assert_false(rill_world_has(w, q[i], mc->mesh_shown));
    }
}

/* >>check budget: a bounded update measures the nearest first, and every model in turn */

#define BUDGET_MODELS 600u
#define BUDGET_CHECKS 64u

/* Updates with the camera held at cam until no model is left due; returns how many it took and
 * asserts none measured more than the budget. */
static uint32_t settle_bounded(lod_fixture *f, const float *cam, uint32_t limit) {
    rill_lod_stats st;
    for (uint32_t u = 1; u <= limit; u++) {
        rill_lod_system_update(f->lod, cam);
        rill_lod_system_get_stats(f->lod, &st);
        assert_true(st.checked <= BUDGET_CHECKS);
        if (st.deferred == 0) {
            return u;
        }
    }
    return limit + 1u;
}

/* 600 Models with a budget of 64 checks an update. The camera's first update makes every model
 * due: it measures 64, the nearest models among them, and with the camera still every model shows
 * what a full evaluation picks within models / (64 / 8) + 1 updates. The same after a random walk
 * with jumps of kilometres and frames without a camera. */
static void test_check_budget(void **state) {
    lod_fixture *f = *state;
    rill_world *w = f->w;
    static const char *const files[] = {"d.glb", "e.glb", "f.glb"};
    rill_entity models[BUDGET_MODELS];
    float d2[BUDGET_MODELS];
    uint64_t x = UINT64_C(0x5DEECE66D);
    const float cam[3] = {10, 0, -20};
    for (uint32_t i = 0; i < BUDGET_MODELS; i++) {
        float px = rng_range(&x, -300.0f, 300.0f), pz = rng_range(&x, -300.0f, 300.0f);
        models[i] = model_entity(w, f->mc, files[i % 3u], px);
        rill_world_transform_mut(w, models[i])->translation[2] = pz;
        d2[i] = (px - cam[0]) * (px - cam[0]) + (pz - cam[2]) * (pz - cam[2]);
    }
    rill_scene_models_flush(f->sm); /* no camera yet: every tree spawns with its base shown */
    rill_lod_system_set_check_budget(f->lod, BUDGET_CHECKS);
    rill_lod_system_update(f->lod, cam);
    rill_lod_stats st;
    rill_lod_system_get_stats(f->lod, &st);
    assert_int_equal(st.checked, BUDGET_CHECKS);
    assert_int_equal(st.deferred, BUDGET_MODELS + 1u - BUDGET_CHECKS);
    /* The nearest (all but the budget's sweep share) are decided by the first update. */
    uint32_t near = BUDGET_CHECKS - BUDGET_CHECKS / 8u;
    for (uint32_t i = 0; i < BUDGET_MODELS; i++) {
        uint32_t nearer = 0;
        for (uint32_t j = 0; j < BUDGET_MODELS; j++) {
            nearer += d2[j] < d2[i];
        }
        if (nearer < near) {
            assert_full_evaluation(f, &models[i], 1, cam);
        }
    }
    const uint32_t bound = (BUDGET_MODELS + 1u) / (BUDGET_CHECKS / 8u) + 1u;
    assert_true(settle_bounded(f, cam, bound) <= bound);
    assert_full_evaluation(f, models, BUDGET_MODELS, cam);

    /* As many models as the budget on a ring inside the crossfade over [40, 45) around p, and the
     * camera jittering 1 m a frame at p: the ring is due every update and nearer than any other
     * model, yet the sweep share moves the 600 far ones (jumped from) to their level 2 within the
     * bound (nearest first alone would measure only the ring). */
    const float p[3] = {2000, 0, 0};
    rill_entity ring[BUDGET_CHECKS];
    const uint32_t ring_count = RILL_COUNTOF(ring);
    for (uint32_t i = 0; i < ring_count; i++) {
        float r = 41.0f + 0.05f * (float)i, a = 0.11f * (float)i;
        ring[i] = model_entity(w, f->mc, files[i % 3u], p[0] + r * cosf(a));
        rill_world_transform_mut(w, ring[i])->translation[2] = p[2] + r * sinf(a);
    }
    rill_scene_models_flush(f->sm);
    const uint32_t ring_bound = (BUDGET_MODELS + 1u + ring_count) / (BUDGET_CHECKS / 8u) + 1u;
    float jitter[3] = {p[0], p[1], p[2]};
    for (uint32_t u = 0; u < ring_bound; u++) {
        jitter[0] = p[0] + (u % 2u ? 0.5f : -0.5f);
        rill_lod_system_update(f->lod, jitter);
        rill_lod_system_get_stats(f->lod, &st);
        assert_true(st.checked <= BUDGET_CHECKS);
    }
    assert_full_evaluation(f, models, BUDGET_MODELS, jitter);

    float walk[3] = {0, 0, 0};
    for (uint32_t frame = 0; frame < 300; frame++) {
        float r = rng_unit(&x);
        if (r < 0.03f) {
            walk[0] = rng_range(&x, -3000.0f, 3000.0f), walk[2] = rng_range(&x, -3000.0f, 3000.0f);
        } else {
            walk[0] += rng_range(&x, -3.0f, 3.0f), walk[2] += rng_range(&x, -3.0f, 3.0f);
        }
        rill_lod_system_update(f->lod, r > 0.98f ? NULL : walk);
        rill_lod_system_get_stats(f->lod, &st);
        assert_true(st.checked <= BUDGET_CHECKS);
    }
    assert_true(settle_bounded(f, walk, bound) <= bound);
    assert_full_evaluation(f, models, BUDGET_MODELS, walk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_bands),
        cmocka_unit_test(test_extension_cull_disabled),
        cmocka_unit_test(test_probe_spawn_and_switch),
        cmocka_unit_test(test_spawn_budget_and_retired),
        cmocka_unit_test_setup_teardown(test_parked_levels, lod_setup, lod_teardown),
        cmocka_unit_test_setup_teardown(test_state_follows_trees, lod_setup, lod_teardown),
        cmocka_unit_test_setup_teardown(test_amortized_equals_full, lod_setup, lod_teardown),
        cmocka_unit_test_setup_teardown(test_cull_without_levels, lod_setup, lod_teardown),
        cmocka_unit_test_setup_teardown(test_spawn_at_level, lod_setup, lod_teardown),
        cmocka_unit_test_setup_teardown(test_level_lists, lod_setup, lod_teardown),
        cmocka_unit_test_setup_teardown(test_check_budget, lod_setup, lod_teardown),
        cmocka_unit_test_setup_teardown(test_model_without_transform, lod_setup, lod_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
