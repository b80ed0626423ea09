/* test_model_system.c: the app's model system (rill_app_enable_models) driven over frames with the
 * deterministic job system on a headless renderer (lavapipe, validation on): asset states
 * QUEUED -> LOADED, one upload shared by two entities naming the same file, spawned trees with
 * their GlobalTransforms, a failed file that warns (naming the entity and the file) and draws
 * nothing, despawn and component removal releasing the trees, the upload and the asset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/model_gen.h"
#include "rill/app.h"
#include "rill/render.h"

typedef struct log_capture {
    char last_warn[1024];
    uint32_t warns;
} log_capture;

static void capture_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    log_capture *c = user;
    if (level == RILL_LOG_WARN && strcmp(module, "models") == 0) {
        snprintf(c->last_warn, sizeof(c->last_warn), "%s", msg);
        c->warns++;
    }
}

static rill_entity spawn_model(rill_world *w, const rill_render_components *rc, const char *path,
                               float x, const char *name) {
    rill_entity e = rill_world_spawn(w);
    rill_transform t = rill_transform_identity();
    t.translation[0] = x;
    rill_world_set_transform(w, e, &t);
    rill_world_set_name(w, e, name);
    rill_model_ref ref = {rill_intern(path)};
    assert_non_null(rill_world_add(w, e, rc->model, &ref));
    return e;
}

/* The primitives the spawned trees draw (ModelMesh entities naming the model asset). */
static uint32_t mesh_instances(rill_world *w, const rill_render_components *rc) {
    return rill_world_component_len(w, rc->model_mesh);
}

/* A project folder `name` under the test tmp folder holding robot.glb (model_gen.h), an app rooted
 * there (deterministic jobs) and a w x h headless renderer (validation on, Low). */
typedef struct models_env {
    char dir[1024];
    rill_app *app;
    rill_renderer *r;
} models_env;

static void env_init_app(models_env *env, const char *name, uint32_t w, uint32_t h,
                         rill_app_desc app_desc) {
    const char *tmp_env = getenv("RILL_TEST_TMP");
    snprintf(env->dir, sizeof(env->dir), "%s/%s", tmp_env ? tmp_env : "/tmp/rill_test_models",
             name);
    assert_int_equal(rill_dir_create_all(env->dir, NULL), RILL_OK);
    rill_error err = {0};
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    assert_int_equal(model_gen_glb(&glb, &glb_size, &err), RILL_OK);
    char path[1200];
    snprintf(path, sizeof(path), "%s/robot.glb", env->dir);
    assert_int_equal(rill_file_write_all(path, glb, glb_size, NULL), RILL_OK);
    rill_free(glb);
    app_desc.root = env->dir;
    env->app = rill_app_create(&app_desc, &err);
    assert_non_null(env->app);
    rill_renderer_desc d = {
        .width = w, .height = h, .validation = 1, .quality = RILL_RENDER_QUALITY_LOW};
    if (!(env->r = rill_renderer_create(&d, &err))) {
        fail_msg("no Vulkan renderer (install mesa-vulkan-drivers for lavapipe): %s", err.msg);
    }
}

static void env_init(models_env *env, const char *name, uint32_t w, uint32_t h) {
    env_init_app(env, name, w, h, (rill_app_desc){.deterministic = true});
}

/* The model system on env's app, and n entities naming robot.glb at x = 0, 1, ... */
static rill_app_models *env_models(models_env *env, const rill_app_models_desc *desc, int n,
                                   rill_render_components *rc) {
    rill_error err = {0};
    rill_app_models *models = rill_app_enable_models(env->app, env->r, desc, &err);
    assert_non_null(models);
    rill_world *w = rill_app_world(env->app);
    assert_int_equal(rill_render_register_components(w, rc, &err), RILL_OK);
    for (int i = 0; i < n; i++) {
        spawn_model(w, rc, "robot.glb", (float)i, NULL);
    }
    return models;
}

static void test_model_system_async(void **state) {
    (void)state;
    /* The project folder: a good model, and a .glb that is not one. */
    models_env env;
    env_init(&env, "models_project", 64, 48);
    char path[1200];
    snprintf(path, sizeof(path), "%s/broken.glb", env.dir);
    assert_int_equal(rill_file_write_all(path, "not a glb at all", 16, NULL), RILL_OK);
    rill_app *app = env.app;
    rill_renderer *r = env.r;
    rill_error err = {0};

    assert_null(rill_app_enable_models(NULL, r, NULL, &err));
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
    rill_app_models *models = rill_app_enable_models(app, r, NULL, &err);
    assert_non_null(models);
    rill_world *w = rill_app_world(app);
    rill_asset_server *as = rill_app_assets(app);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);

    log_capture cap;
    memset(&cap, 0, sizeof(cap));
    rill_log_set_sink(capture_sink, &cap);

    rill_entity a = spawn_model(w, &rc, "robot.glb", 0.0f, "left");
    rill_entity b = spawn_model(w, &rc, "robot.glb", 5.0f, "right");
    rill_entity bad = spawn_model(w, &rc, "broken.glb", 0.0f, "wreck");

    /* Frame 1: the requests go out; nothing is loaded yet. */
    rill_app_frame(app);
    rill_asset robot = rill_asset_find(as, "robot.glb");
    assert_true(robot.id != 0);
    assert_int_equal(rill_asset_get_state(as, robot), RILL_ASSET_STATE_QUEUED);
    assert_int_equal(rill_asset_refcount(as, robot), 1); /* one reference for both entities */
    rill_app_models_stats st;
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.tracked, 3);
    assert_int_equal(st.pending, 3);
    assert_int_equal(st.models, 2);
    assert_int_equal(mesh_instances(w, &rc), 0);

    /* The loads finish within a few frames; the trees appear in the frame they do. */
    int frames = 0;
    while (rill_asset_get_state(as, robot) != RILL_ASSET_STATE_LOADED && frames < 10) {
        rill_app_frame(app);
        frames++;
    }
    assert_int_equal(rill_asset_get_state(as, robot), RILL_ASSET_STATE_LOADED);
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.spawned, 2);
    assert_int_equal(st.failed, 1);
    assert_int_equal(st.pending, 0);
    assert_int_equal(st.uploads, 1); /* shared by both entities */
    assert_int_equal(mesh_instances(w, &rc), 6);
    rill_entity ra = rill_app_models_root(models, a), rb = rill_app_models_root(models, b);
    assert_true(ra && rb && ra != rb);
    assert_int_equal(rill_world_get_parent(w, ra), a);
    assert_int_equal(rill_app_models_root(models, bad), RILL_ENTITY_NULL);
    assert_int_equal(rill_world_child_count(w, bad), 0);
    /* GlobalTransforms were propagated in the same frame: b's "base" node sits at x = 5. */
    rill_entity base_b = rill_world_first_child(w, rb);
    assert_string_equal(rill_world_get_name(w, base_b), "base");
    const float *gm = rill_world_global_matrix(w, base_b);
    assert_non_null(gm);
    assert_float_equal(gm[12], 5.0f, 1e-5);
    assert_float_equal(gm[13], 0.5f, 1e-5);
    /* The failure warned once, naming the entity and the file. */
    assert_int_equal(cap.warns, 1);
    assert_non_null(strstr(cap.last_warn, "wreck"));
    assert_non_null(strstr(cap.last_warn, "broken.glb"));

    /* The spawned world renders (the models' cameras are in it) without validation messages. */
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
    assert_int_equal(snap.instance_count, 6);
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    rill_render_extract_buf_free(&xb);

    /* Despawning one user keeps the shared upload. */
    rill_world_despawn_recursive(w, a);
    rill_app_frame(app);
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.tracked, 2);
    assert_int_equal(mesh_instances(w, &rc), 3);
    assert_int_equal(st.unloads, 0);
    /* One reference for the model system (both entities), one for the renderer's upload. */
    assert_int_equal(rill_asset_refcount(as, robot), 2);

    /* Removing the last user's Model despawns its tree (the entity stays), then the upload and
     * the asset go after the release delay (2 frames). */
    assert_true(rill_world_remove(w, b, rc.model));
    rill_app_frame(app);
    assert_int_equal(mesh_instances(w, &rc), 0);
    assert_false(rill_world_is_alive(w, rb));
    assert_true(rill_world_is_alive(w, b));
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.unloads, 0);
    for (int i = 0; i < 3; i++) {
        rill_app_frame(app);
    }
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.unloads, 1);
    assert_int_equal(st.models, 1); /* broken.glb is still named by "wreck" */
    rill_app_frame(app);            /* the server frees the released asset at its next update */
    assert_int_equal(rill_asset_get_state(as, robot), RILL_ASSET_STATE_INVALID);

    /* Naming the file again loads and uploads it again. */
    rill_entity c = spawn_model(w, &rc, "robot.glb", 0.0f, "again");
    for (int i = 0; i < 4; i++) {
        rill_app_frame(app);
    }
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.uploads, 2);
    assert_true(rill_app_models_root(models, c) != RILL_ENTITY_NULL);
    assert_int_equal(mesh_instances(w, &rc), 3);
    assert_int_equal(cap.warns, 1); /* the failed entity warned only once */

    rill_log_set_sink(NULL, NULL);
    rill_app_disable_models(models);
    assert_int_equal(mesh_instances(w, &rc), 0);
    rill_render_stats rs;
    rill_renderer_stats(r, &rs);
    rill_renderer_destroy(r);
    assert_int_equal(rs.validation_messages, 0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_RENDER), 0);
    rill_app_destroy(app);
}

/* rill_app_models_flush: the trees exist (with GlobalTransforms) when it returns; a Model with no
 * path is tracked but spawns nothing and does not warn. */
static void test_model_system_flush(void **state) {
    (void)state;
    models_env env;
    env_init(&env, "models_flush", 32, 32);
    rill_app *app = env.app;
    rill_renderer *r = env.r;
    rill_error err = {0};
    rill_app_models *models = rill_app_enable_models(app, r, NULL, &err);
    assert_non_null(models);
    rill_world *w = rill_app_world(app);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_entity e = spawn_model(w, &rc, "robot.glb", 2.0f, "one");
    rill_entity none = rill_world_spawn(w);
    rill_model_ref empty = {NULL};
    assert_non_null(rill_world_add(w, none, rc.model, &empty));
    rill_app_models_flush(models);
    rill_app_models_stats st;
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.tracked, 2);
    assert_int_equal(st.spawned, 1);
    assert_int_equal(st.failed, 0);
    assert_int_equal(st.warnings, 0);
    rill_entity root = rill_app_models_root(models, e);
    assert_true(root != RILL_ENTITY_NULL);
    const float *gm = rill_world_global_matrix(w, rill_world_first_child(w, root));
    assert_non_null(gm);
    assert_float_equal(gm[12], 2.0f, 1e-5);
    assert_int_equal(rill_world_child_count(w, none), 0);
    rill_app_disable_models(models);
    rill_renderer_destroy(r);
    rill_app_destroy(app);
}

/* Many entities naming one file: one upload, every tree spawned in the frame the file loads, and
 * the steady-state cost of the system (post_update, where transforms are clean) printed. */
static void test_model_system_many(void **state) {
    (void)state;
    enum { N = 2000 };
    models_env env;
    env_init(&env, "models_many", 32, 32);
    rill_app *app = env.app;
    rill_renderer *r = env.r;
    /* No spawn budget: this measures spawning all N trees in one frame. */
    rill_render_components rc;
    rill_app_models *models =
        env_models(&env, &(rill_app_models_desc){.spawn_budget_ns = UINT64_MAX}, N, &rc);
    rill_world *w = rill_app_world(app);
    rill_app_frame(app); /* requests */
    rill_app_frame(app); /* loads, uploads once, spawns every tree */
    rill_app_models_stats st;
    rill_app_models_get_stats(models, &st);
    assert_int_equal(st.spawned, N);
    assert_int_equal(st.uploads, 1);
    assert_int_equal(mesh_instances(w, &rc), 3 * N);
    uint64_t spawn_ns = rill_app_last_stage_ns(app, RILL_STAGE_POST_UPDATE);
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        rill_app_frame(app);
        uint64_t ns = rill_app_last_stage_ns(app, RILL_STAGE_POST_UPDATE);
        best = ns < best ? ns : best;
    }
    print_message("model system: %d entities x 8 spawned (+ transforms) in %.2f ms; steady "
                  "post_update %.3f ms\n",
                  N, (double)spawn_ns / 1e6, (double)best / 1e6);
    rill_app_disable_models(models);
    assert_int_equal(rill_world_entity_count(w), N);
    rill_renderer_destroy(r);
    rill_app_destroy(app);
}

/* Tree spawns share the frame's streaming budget with the scene loader: with the whole budget
 * spent (1 ns), the first ready tree spawns (its cost unknown yet), then a tree that would not fit
 * waits one frame (the next frame's loader is asked to leave it room) and spawns in the next: one
 * tree every other frame, never all of them; and the despawns of dropped trees share it too:
 * every Model removed at once, one tree goes a frame. */
static void test_model_system_shares_streaming_budget(void **state) {
    (void)state;
    enum { N = 6 };
    models_env env;
    env_init_app(&env, "models_shared_budget", 32, 32, (rill_app_desc){.scene_budget_ns = 1});
    rill_render_components rc;
    rill_app_models *models = env_models(&env, NULL, N, &rc);
    rill_app_models_stats st = {0};
    for (int f = 0; f < 5000 && st.spawned == 0; f++) { /* the file loads on a worker */
        rill_app_frame(env.app);
        rill_app_models_get_stats(models, &st);
        if (st.spawned == 0) {
            rill_sleep_ns(1000000);
        }
    }
    assert_int_equal(st.spawned, 1);
    assert_int_equal(rill_app_streaming_budget_left_ns(env.app), 0);
    rill_scene_models *sm = rill_app_models_scene(models);
    assert_int_equal(rill_scene_models_deferred_ns(sm), 0);
    for (uint32_t k = 2; k <= N; k++) {
        rill_app_frame(env.app);
        rill_app_models_get_stats(models, &st);
        assert_int_equal(st.spawned, k - 1);
        assert_true(rill_scene_models_deferred_ns(sm) > 0);
        rill_app_frame(env.app);
        rill_app_models_get_stats(models, &st);
        assert_int_equal(st.spawned, k);
        assert_int_equal(rill_scene_models_deferred_ns(sm), 0);
    }
    rill_world *w = rill_app_world(env.app);
    uint32_t per_tree = mesh_instances(w, &rc) / N;
    assert_true(per_tree > 0);
    const rill_entity *ents = NULL;
    uint32_t n = rill_world_component_dense(w, rc.model, &ents, NULL);
    assert_int_equal(n, N);
    rill_entity owners[N];
    memcpy(owners, ents, sizeof owners);
    for (uint32_t k = 0; k < N; k++) {
        assert_true(rill_world_remove(w, owners[k], rc.model));
    }
    for (uint32_t k = 1; k <= N; k++) {
        rill_app_frame(env.app);
        assert_int_equal(mesh_instances(w, &rc), (N - k) * per_tree);
    }
    rill_app_disable_models(models);
    rill_renderer_destroy(env.r);
    rill_app_destroy(env.app);
}

/* The system follows Model changes without walking every tracked entity: a Model removed, replaced
 * through rill_world_add or written in place (caught by the round-robin path check) takes its tree
 * away; a second model system on the same world is refused; a new one after the first is gone
 * picks up the Model entities that exist. */
static void test_model_system_follows_changes(void **state) {
    (void)state;
    models_env env;
    env_init(&env, "models_changes", 32, 32);
    rill_error err = {0};
    rill_app_models *models = rill_app_enable_models(env.app, env.r, NULL, &err);
    assert_non_null(models);
    rill_world *w = rill_app_world(env.app);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_entity e[3];
    for (int i = 0; i < 3; i++) {
        e[i] = spawn_model(w, &rc, "robot.glb", (float)i, NULL);
    }
    rill_app_models_flush(models);
    assert_int_equal(mesh_instances(w, &rc), 9);
    assert_null(rill_scene_models_create(
        &(rill_scene_models_desc){.world = w, .assets = rill_app_assets(env.app)}, &err));
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);

    assert_true(rill_world_remove(w, e[0], rc.model));
    rill_app_frame(env.app);
    assert_int_equal(mesh_instances(w, &rc), 6);
    rill_model_ref none = {rill_intern("")};
    assert_non_null(rill_world_add(w, e[1], rc.model, &none));
    rill_app_frame(env.app);
    assert_int_equal(mesh_instances(w, &rc), 3);
    rill_model_ref *in_place = rill_world_get(w, e[2], rc.model);
    in_place->path = rill_intern("");
    rill_app_frame(env.app); /* the path check finds it */
    rill_app_frame(env.app); /* and the next update drops the tree */
    assert_int_equal(mesh_instances(w, &rc), 0);

    rill_app_disable_models(models);
    for (int i = 0; i < 3; i++) {
        assert_non_null(
            rill_world_add(w, e[i], rc.model, &(rill_model_ref){rill_intern("robot.glb")}));
    }
    models = rill_app_enable_models(env.app, env.r, NULL, &err);
    assert_non_null(models);
    rill_app_models_flush(models);
    assert_int_equal(mesh_instances(w, &rc), 9);
    rill_app_disable_models(models);
    assert_int_equal(mesh_instances(w, &rc), 0);
    rill_renderer_destroy(env.r);
    rill_app_destroy(env.app);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_system_async),
        cmocka_unit_test(test_model_system_flush),
        cmocka_unit_test(test_model_system_many),
        cmocka_unit_test(test_model_system_follows_changes),
        cmocka_unit_test(test_model_system_shares_streaming_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
