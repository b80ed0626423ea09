/* test_instances.c: the instance streamer's decisions under a fake clock and a scripted camera:
 * entering and leaving the radii with the enforced gap, oscillating 1 m around a boundary, a load
 * cancelled mid-way, at most 4 loads in flight nearest first, the edit/play/server modes and the
 * restore on turning streaming off, distances to bounds rather than origins (authored and
 * computed), an unload hidden over frames (max_hides_per_update entities each) and then despawned
 * over frames within the loader's budget (a return meanwhile waits for it), and 1000 load/unload
 * cycles returning entities and live bytes to their start. */
#include "stream_fixture.h"

/* 1 ms budget, 100 us per entity: 10 entities per frame. */
#define BUDGET 1000000ull
#define COST 100000ull

static rill_instance_state st_of(sfx *fx, rill_entity root) {
    return rill_stream_instance_state(fx->stream, root);
}

static void frames_until(sfx *fx, rill_entity root, rill_instance_state want, uint32_t max) {
    for (uint32_t i = 0; i < max && st_of(fx, root) != want; i++) {
        sfx_frame(fx);
    }
    assert_int_equal(st_of(fx, root), want);
}

/* An unload: the instance is UNLOADING (content hidden, despawned by the loader in its budget)
 * right after the frame that decided it, then UNLOADED once the content is gone. */
static void gone(sfx *fx, rill_entity root) {
    assert_int_equal(st_of(fx, root), RILL_INSTANCE_UNLOADING);
    frames_until(fx, root, RILL_INSTANCE_UNLOADED, 10);
    assert_int_equal(rill_world_child_count(fx->env.world, root), 0);
}

static void test_radii_and_gap(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    sfx_scene(&fx, "small.rsn", 5, 1.0f);
    rill_entity a = sfx_instance(&fx, "small.rsn", 0, 0, 50, 55, 10); /* unload forced to 60 */
    sfx_camera(&fx, 100, 0);
    sfx_frames(&fx, 3);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_UNLOADED);
    rill_stream_instance_info info;
    assert_int_equal(rill_stream_instances(fx.stream, &info, 1), 1);
    assert_true(info.unload_radius == 60.0f && info.load_radius == 50.0f);
    assert_true(info.distance == 90.0f); /* to the box's face at x = 10, not the origin */

    sfx_camera(&fx, 59, 0); /* 49 m from the box */
    sfx_frame(&fx);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADING);
    frames_until(&fx, a, RILL_INSTANCE_LOADED, 10);
    assert_int_equal(rill_world_child_count(fx.env.world, a), 5);

    sfx_camera(&fx, 69, 0); /* 59 m: inside the gap, stays */
    sfx_frames(&fx, 3);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADED);

    sfx_camera(&fx, 71, 0); /* 61 m: beyond the forced unload radius */
    sfx_frame(&fx);
    gone(&fx, a);
    assert_int_equal(rill_world_child_count(fx.env.world, a), 0);
    assert_true(rill_world_is_alive(fx.env.world, a)); /* the root and its transform stay */
    assert_true(rill_world_has(fx.env.world, a, rill_world_builtin(fx.env.world)->transform));
    rill_stream_stats s = sfx_stats(&fx);
    assert_int_equal(s.unloads, 1);
    assert_int_equal(s.entities_unloaded, 5);
    sfx_done(&fx);
}

static void test_oscillation_no_reload(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    sfx_scene(&fx, "small.rsn", 5, 1.0f);
    rill_entity a = sfx_instance(&fx, "small.rsn", 0, 0, 50, 200, 10);
    for (int i = 0; i < 200; i++) { /* +-1 m around the load radius */
        sfx_camera(&fx, (i & 1) ? 61.0f : 59.0f, 0);
        sfx_frame(&fx);
    }
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADED);
    for (int i = 0; i < 200; i++) { /* +-1 m around the unload radius */
        sfx_camera(&fx, (i & 1) ? 209.0f : 211.0f, 0);
        sfx_frame(&fx);
    }
    rill_stream_stats s = sfx_stats(&fx);
    assert_int_equal(s.loads_started, 1); /* no reload after the first */
    assert_int_equal(s.unloads, 1);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_UNLOADED);
    sfx_done(&fx);
}

static void test_cancel_mid_load(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    sfx_scene(&fx, "big.rsn", 200, 0.1f); /* 20 frames of budget */
    rill_entity a = sfx_instance(&fx, "big.rsn", 0, 0, 50, 100, 10);
    sfx_camera(&fx, 30, 0);
    uint32_t before = rill_world_entity_count(fx.env.world);
    sfx_frames(&fx, 5);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADING);
    assert_true(rill_world_entity_count(fx.env.world) > before); /* partial entities exist */
    sfx_camera(&fx, 500, 0);
    sfx_frame(&fx);
    /* Cancelled, but the partial entities are not despawned in the deciding frame: they join the
     * loader's budgeted retire queue (hidden meanwhile) and go in later updates. */
    assert_int_equal(rill_scene_instance_pending(fx.env.loader, a).id, 0);
    assert_true(rill_world_entity_count(fx.env.world) > before);
    gone(&fx, a);
    assert_int_equal(rill_world_entity_count(fx.env.world), before);
    assert_int_equal(rill_scene_loader_pending(fx.env.loader), 0);
    rill_stream_stats s = sfx_stats(&fx);
    assert_int_equal(s.loads_cancelled, 1);
    sfx_camera(&fx, 30, 0); /* back: loads again, to the end */
    frames_until(&fx, a, RILL_INSTANCE_LOADED, 40);
    assert_int_equal(rill_world_child_count(fx.env.world, a), 200);
    s = sfx_stats(&fx);
    assert_int_equal(s.loads_started, 2);
    assert_int_equal(s.loads_completed, 1);
    sfx_done(&fx);
}

static void test_four_in_flight_nearest_first(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    sfx_scene(&fx, "big.rsn", 50, 0.1f);
    rill_entity roots[8];
    const float xs[8] = {70, 10, 50, 30, 80, 20, 60, 40}; /* shuffled distances */
    for (int i = 0; i < 8; i++) {
        roots[i] = sfx_instance(&fx, "big.rsn", xs[i], 0, 200, 300, 1);
    }
    sfx_camera(&fx, 0, 0);
    sfx_frame(&fx);
    for (int i = 0; i < 8; i++) {
        rill_instance_state want = xs[i] <= 40.0f ? RILL_INSTANCE_LOADING : RILL_INSTANCE_UNLOADED;
        assert_int_equal(st_of(&fx, roots[i]), want);
    }
    for (int f = 0; f < 200 && sfx_stats(&fx).loaded < 8; f++) {
        sfx_frame(&fx);
        assert_true(sfx_stats(&fx).loading <= 4);
    }
    assert_int_equal(sfx_stats(&fx).loaded, 8);
    sfx_done(&fx);
}

static void test_modes_and_restore(void **state) {
    (void)state;
    /* Edit and server: everything resident whatever the distance; no unloads. */
    const rill_run_mode closed[2] = {RILL_RUN_MODE_EDIT, RILL_RUN_MODE_SERVER};
    for (int m = 0; m < 2; m++) {
        sfx fx;
        sfx_init(&fx, closed[m], BUDGET, COST);
        sfx_scene(&fx, "small.rsn", 5, 1.0f);
        for (int i = 0; i < 6; i++) {
            sfx_instance(&fx, "small.rsn", 1000.0f * (float)i, 0, 50, 60, 1);
        }
        sfx_camera(&fx, -5000, 0);
        sfx_frames(&fx, 20);
        assert_int_equal(sfx_stats(&fx).loaded, 6);
        assert_int_equal(sfx_stats(&fx).unloads, 0);
        sfx_done(&fx);
    }
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_PLAY, BUDGET, COST);
    sfx_scene(&fx, "small.rsn", 5, 1.0f);
    rill_entity a = sfx_instance(&fx, "small.rsn", 0, 0, 50, 60, 1);
    rill_entity b = sfx_instance(&fx, "small.rsn", 1000, 0, 50, 60, 1);
    sfx_frames(&fx, 5); /* play without a camera: nothing loads */
    assert_int_equal(sfx_stats(&fx).loads_started, 0);
    sfx_camera(&fx, 0, 0);
    frames_until(&fx, a, RILL_INSTANCE_LOADED, 10);
    assert_int_equal(st_of(&fx, b), RILL_INSTANCE_UNLOADED);
    /* The camera goes away: residency stays as it is. */
    rill_world_despawn(fx.env.world, fx.camera);
    fx.camera = RILL_ENTITY_NULL;
    sfx_frames(&fx, 5);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADED);
    sfx_camera(&fx, 0, 0);
    /* Streaming turns off: b starts loading on the transition itself, then everything is in. */
    rill_stream_set_mode(fx.stream, RILL_RUN_MODE_EDIT);
    assert_int_equal(st_of(&fx, b), RILL_INSTANCE_LOADING);
    frames_until(&fx, b, RILL_INSTANCE_LOADED, 10);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADED);
    assert_int_equal(sfx_stats(&fx).loads_started, 2);
    /* Play again: b is far from the camera and goes. */
    rill_stream_set_mode(fx.stream, RILL_RUN_MODE_PLAY);
    sfx_frame(&fx);
    gone(&fx, b);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADED);
    sfx_done(&fx);
}

static void test_bounds_not_origins(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    sfx_scene(&fx, "small.rsn", 5, 100.0f); /* entities at x = 0, 100, ..., 400 */
    rill_entity big = sfx_instance(&fx, "small.rsn", 0, 0, 50, 60, 500);
    sfx_camera(&fx, 400, 0); /* 400 m from the origin, inside the box */
    frames_until(&fx, big, RILL_INSTANCE_LOADED, 10);
    sfx_camera(&fx, 480, 0);
    sfx_frames(&fx, 3);
    assert_int_equal(st_of(&fx, big), RILL_INSTANCE_LOADED);
    sfx_done(&fx);

    /* No authored box: computed from the loaded content at the first load, written back. */
    sfx_init(&fx, RILL_RUN_MODE_EDIT, BUDGET, COST);
    sfx_scene(&fx, "small.rsn", 5, 100.0f);
    rill_entity e = sfx_instance(&fx, "small.rsn", 10, 0, 50, 60, 0);
    sfx_camera(&fx, 360, 0);
    frames_until(&fx, e, RILL_INSTANCE_LOADED, 10);
    const rill_scene_instance *si = rill_world_get(fx.env.world, e, fx.inst);
    assert_true(si->bounds_min[0] == 0.0f && si->bounds_max[0] == 400.0f);
    rill_stream_set_mode(fx.stream, RILL_RUN_MODE_PLAY);
    sfx_frames(&fx, 3); /* 350 m from the origin but inside the computed box: stays */
    assert_int_equal(st_of(&fx, e), RILL_INSTANCE_LOADED);
    rill_stream_instance_info info;
    rill_stream_instances(fx.stream, &info, 1);
    assert_true(info.bounds_known && info.distance == 0.0f);
    assert_true(info.bounds_min[0] == 10.0f && info.bounds_max[0] == 410.0f);
    sfx_camera(&fx, 480, 0); /* 70 m past the box: goes */
    sfx_frame(&fx);
    gone(&fx, e);
    sfx_done(&fx);
}

/* The boot load's settle: the instances near the camera are complete when it returns, the far
 * ones are untouched. */
static void test_settle_loads_nearby_now(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    sfx_scene(&fx, "big.rsn", 200, 0.1f);
    rill_entity near = sfx_instance(&fx, "big.rsn", 0, 0, 50, 60, 10);
    rill_entity far = sfx_instance(&fx, "big.rsn", 900, 0, 50, 60, 10);
    sfx_camera(&fx, 20, 0);
    assert_int_equal(rill_stream_settle(fx.stream, 0), 1);
    assert_int_equal(st_of(&fx, near), RILL_INSTANCE_LOADED);
    assert_int_equal(rill_world_child_count(fx.env.world, near), 200);
    assert_int_equal(st_of(&fx, far), RILL_INSTANCE_UNLOADED);
    sfx_done(&fx);
}

/* A scene that streams itself, two that stream each other, and a main scene that streams itself:
 * the copy nested inside another instance of its own file (or of the main scene's) is refused
 * (failed, with a warning), so content stops at one copy of each file instead of loading copies
 * without end (4142 instances in the first frames of a `rill fly` before the fix, one more every
 * two frames). */
static void test_self_streaming_stops(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    const char *inst = "Transform {} SceneInstance { scene: @\"%s\" streamed: true load_radius: 50 "
                       "unload_radius: 60 bounds_min: (-5, -5, -5) bounds_max: (5, 5, 5) }";
    char text[512], line[400];
    snprintf(line, sizeof line, inst, "self.rsn");
    snprintf(text, sizeof text, "rsn 1\nentity 1 { Tick {} }\nentity 2 { %s }\n", line);
    test_write_file(fx.env.dir, "self.rsn", text);
    snprintf(line, sizeof line, inst, "b.rsn");
    snprintf(text, sizeof text, "rsn 1\nentity 1 { Tick {} }\nentity 2 { %s }\n", line);
    test_write_file(fx.env.dir, "a.rsn", text);
    snprintf(line, sizeof line, inst, "a.rsn");
    snprintf(text, sizeof text, "rsn 1\nentity 1 { Tick {} }\nentity 2 { %s }\n", line);
    test_write_file(fx.env.dir, "b.rsn", text);
    rill_entity self = sfx_instance(&fx, "self.rsn", 0, 0, 50, 60, 5);
    rill_entity a = sfx_instance(&fx, "a.rsn", 0, 0, 50, 60, 5);
    sfx_camera(&fx, 0, 0);
    sfx_frames(&fx, 60);
    assert_int_equal(st_of(&fx, self), RILL_INSTANCE_LOADED);
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADED);
    /* self: its Tick and the nested self (failed); a: its Tick and b, loaded, whose Tick and
     * nested a (failed) came with it. */
    rill_stream_instance_info info[8];
    uint32_t n = rill_stream_instances(fx.stream, info, 8);
    assert_int_equal(n, 5);
    uint32_t failed = 0, loaded = 0;
    for (uint32_t i = 0; i < n; i++) {
        failed += info[i].state == RILL_INSTANCE_FAILED;
        loaded += info[i].state == RILL_INSTANCE_LOADED;
    }
    assert_int_equal(failed, 2);
    assert_int_equal(loaded, 3);
    assert_int_equal(sfx_stats(&fx).loads_failed, 2);
    assert_int_equal(rill_world_entity_count(fx.env.world), 3 + 2 + 2 + 2); /* + camera */
    sfx_done(&fx);

    /* The main scene streaming itself: refused at once, no copy of it loads. */
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    snprintf(line, sizeof line, inst, "m.rsn");
    snprintf(text, sizeof text, "rsn 1\nentity 1 { Tick {} }\nentity 2 \"Loop\" { %s }\n", line);
    test_write_file(fx.env.dir, "m.rsn", text);
    rill_error err = {0};
    assert_true(rill_scene_load_async(fx.env.loader, "m.rsn", &err).id != 0);
    sfx_camera(&fx, 0, 0);
    test_logbuf lb;
    test_log_begin(&lb);
    sfx_frames(&fx, 30);
    /* The warning names the instance as the scene does, and its entity. */
    assert_true(test_log_has(&lb, "instance \"Loop\" (entity "));
    assert_true(test_log_has(&lb, "\"m.rsn\" not loaded: it is the main scene (cycle)"));
    test_log_end(&lb);
    assert_int_equal(rill_stream_instances(fx.stream, info, 8), 1);
    assert_int_equal(info[0].state, RILL_INSTANCE_FAILED);
    assert_int_equal(rill_world_entity_count(fx.env.world), 2 + 1);
    sfx_done(&fx);
}

/* Whether the instance's content is still being hidden (not yet on the loader's retire queue). */
static bool still_hiding(sfx *fx) {
    return !rill_scene_loader_retiring(fx->env.loader);
}

/* A big instance (5000 entities in chains of 4, each a mesh) and its unload: hidden 2048 entities
 * an update, then despawned over several frames, each frame's loader work within the budget plus
 * one batch; a camera coming back while it is still unloading waits for the end, then loads it
 * again. */
static void test_unload_spread_over_frames(void **state) {
    (void)state;
    enum { N = 5000 };
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, 1000); /* loads: 1 us per entity */
    /* despawning costs 1 us of fake clock per entity (a component's remove hook) */
    test_tick_state tock = {.clock = &fx.env.clock, .cost_ns = 1000};
    test_register_tock(fx.env.world, &tock);
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    for (uint32_t i = 1; i <= N; i++) {
        if (i % 4 != 1) {
            rill_strbuf_printf(&sb, "entity %u parent %u { Tock { n: %u } }\n", i, i - 1, i);
        } else {
            rill_strbuf_printf(&sb, "entity %u { Tock { n: %u } }\n", i, i);
        }
    }
    test_write_file(fx.env.dir, "big.rsn", sb.data);
    rill_strbuf_free(&sb);
    rill_entity a = sfx_instance(&fx, "big.rsn", 0, 0, 50, 60, 10);
    sfx_camera(&fx, 0, 0);
    frames_until(&fx, a, RILL_INSTANCE_LOADED, 100);
    uint32_t start = rill_world_entity_count(fx.env.world);
    rill_model_components mc;
    rill_error err = {0};
    assert_int_equal(rill_scene_model_register(fx.env.world, &mc, &err), RILL_OK);
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t nt = rill_world_component_dense(
        fx.env.world, rill_world_find_component(fx.env.world, "Tock"), &ents, &data);
    assert_int_equal(nt, N);
    rill_entity *meshes = malloc(N * sizeof *meshes);
    assert_non_null(meshes);
    memcpy(meshes, ents, N * sizeof *meshes);
    for (uint32_t i = 0; i < N; i++) {
        assert_non_null(rill_world_add(fx.env.world, meshes[i], mc.model_mesh, NULL));
    }

    sfx_camera(&fx, 1000, 0);
    /* The burst is spread: the meshes are hidden max_hides_per_update (2048) entities an update,
     * 5000 over 3 updates, and the loader gets the content (and despawns any) only after the last
     * one is hidden. */
    uint32_t hide_frames = 0;
    do {
        sfx_frame(&fx);
        hide_frames++;
        assert_int_equal(st_of(&fx, a), RILL_INSTANCE_UNLOADING);
        assert_int_equal(sfx_stats(&fx).unloading, 1);
        uint32_t hidden = 0;
        for (uint32_t i = 0; i < N; i++) {
            const rill_render_mode_component *rm =
                rill_world_get(fx.env.world, meshes[i], mc.render_mode);
            hidden += rm && rm->mode == RILL_RENDER_MODE_HIDDEN;
        }
        assert_int_equal(hidden, RILL_MIN((uint32_t)N, hide_frames * 2048u));
        assert_int_equal(sfx_stats(&fx).entities_unloaded, hidden);
        assert_int_equal(rill_world_entity_count(fx.env.world), start);
    } while (still_hiding(&fx) && hide_frames < 10);
    assert_int_equal(hide_frames, 3);
    assert_true(rill_scene_loader_retiring(fx.env.loader));
    assert_int_equal(sfx_stats(&fx).entities_unloaded, N);
    uint32_t frames = 0, shrinking = 0, prev = rill_world_entity_count(fx.env.world);
    sfx_camera(&fx, 0, 0); /* back at once: the reload waits for the unload to finish */
    while (st_of(&fx, a) == RILL_INSTANCE_UNLOADING) {
        assert_true(frames++ < 100);
        /* Every mesh still alive is hidden. */
        for (uint32_t i = 0; i < N; i++) {
            if (!rill_world_is_alive(fx.env.world, meshes[i])) {
                continue;
            }
            const rill_render_mode_component *rm =
                rill_world_get(fx.env.world, meshes[i], mc.render_mode);
            assert_non_null(rm);
            assert_int_equal(rm->mode, RILL_RENDER_MODE_HIDDEN);
        }
        uint64_t t0 = fx.env.clock.now;
        sfx_frame(&fx);
        assert_true(fx.env.clock.now - t0 <= BUDGET + 128u * 1000u);
        uint32_t count = rill_world_entity_count(fx.env.world);
        assert_true(count <= prev);
        shrinking += count < prev;
        prev = count;
        /* No load starts while content is left; the update that sees the last go starts it. */
        if (st_of(&fx, a) == RILL_INSTANCE_UNLOADING) {
            assert_int_equal(sfx_stats(&fx).loads_started, 1);
        }
    }
    assert_true(shrinking >= 4); /* 5000 despawns at 1 us in 1 ms budgets */
    assert_int_equal(rill_world_entity_count(fx.env.world), start - N);
    assert_false(rill_scene_loader_retiring(fx.env.loader));
    assert_int_equal(st_of(&fx, a), RILL_INSTANCE_LOADING);
    frames_until(&fx, a, RILL_INSTANCE_LOADED, 100);
    assert_int_equal(sfx_stats(&fx).loads_started, 2);
    assert_int_equal(rill_world_entity_count(fx.env.world), start);
    free(meshes);
    sfx_done(&fx);
}

/* The stream's time budget (rill_stream_set_budget_ns, what the app's frame has left) stops the
 * hides too: with it spent (0) an update still hides 256 entities (nothing starves), so 1000
 * meshes go over 4 updates instead of 1; with it unlimited again the count alone holds. */
static void test_hides_stop_at_spent_budget(void **state) {
    (void)state;
    enum { N = 1000 };
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, 1000);
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    for (uint32_t i = 1; i <= N; i++) {
        rill_strbuf_printf(&sb, "entity %u { Transform {} }\n", i);
    }
    test_write_file(fx.env.dir, "wide.rsn", sb.data);
    rill_strbuf_free(&sb);
    rill_entity a = sfx_instance(&fx, "wide.rsn", 0, 0, 50, 60, 10);
    rill_entity b = sfx_instance(&fx, "wide.rsn", 0, 0, 50, 60, 10);
    sfx_camera(&fx, 0, 0);
    frames_until(&fx, a, RILL_INSTANCE_LOADED, 1000);
    frames_until(&fx, b, RILL_INSTANCE_LOADED, 1000);
    assert_int_equal(rill_stream_budget_left_ns(fx.stream), RILL_STREAM_NO_BUDGET);
    rill_stream_set_budget_ns(fx.stream, 0);
    assert_int_equal(rill_stream_budget_left_ns(fx.stream), 0);
    sfx_camera(&fx, 1000, 0);
    uint32_t frames = 0;
    uint64_t hidden = sfx_stats(&fx).entities_unloaded;
    while (still_hiding(&fx) && frames < 100) {
        sfx_frame(&fx);
        frames++;
        uint64_t now = sfx_stats(&fx).entities_unloaded;
        assert_true(now - hidden <= 256u);
        hidden = now;
    }
    assert_int_equal(frames, 4); /* the first instance: 1000 = 3 x 256 + 232 */
    rill_stream_set_budget_ns(fx.stream, RILL_STREAM_NO_BUDGET);
    sfx_frame(&fx); /* the second one's 1000 within max_hides_per_update (2048) */
    assert_int_equal(sfx_stats(&fx).entities_unloaded, 2u * N);
    sfx_done(&fx);
}

static void cycle(sfx *fx, rill_entity a) {
    sfx_camera(fx, 0, 0);
    frames_until(fx, a, RILL_INSTANCE_LOADED, 10);
    sfx_camera(fx, 1000, 0);
    sfx_frame(fx);
    gone(fx, a);
}

static void test_thousand_cycles_return_to_start(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    sfx_scene(&fx, "small.rsn", 20, 1.0f);
    rill_entity a = sfx_instance(&fx, "small.rsn", 0, 0, 50, 60, 10);
    /* The first cycles size storage, arrays, free lists and event buffers once. */
    for (int i = 0; i < 3; i++) {
        cycle(&fx, a);
    }
    uint32_t entities = rill_world_entity_count(fx.env.world);
    size_t live[RILL_MEM_TAG_NUM];
    for (int t = 0; t < RILL_MEM_TAG_NUM; t++) {
        live[t] = rill_mem_live_bytes((rill_mem_tag)t);
    }
    for (int i = 0; i < 1000; i++) {
        cycle(&fx, a);
    }
    assert_int_equal(rill_world_entity_count(fx.env.world), entities);
    for (int t = 0; t < RILL_MEM_TAG_NUM; t++) {
        assert_int_equal(rill_mem_live_bytes((rill_mem_tag)t), live[t]);
    }
    rill_stream_stats s = sfx_stats(&fx);
    assert_int_equal(s.loads_completed, 1003);
    assert_int_equal(s.unloads, 1003);
    assert_int_equal(s.entities_unloaded, 1003u * 20u);
    sfx_done(&fx);
}

/* Live bytes per allocation tag, containers included, after a district of 100x the entities came
 * and went: back to what the small cycles held before it, within TOLERANCE per tag (capacity
 * follows what is in use, not the most ever held: rill_array_trim, the world's set trim). The
 * world keeps, per entity slot the district added, its generation, flags, free-list entry and
 * one sparse-index entry per component it had (slots are reused, never given back): at most
 * SLOT_BYTES each. Before the trims: containers +55 KB, world +431 KB. */
#define TOLERANCE (16u * 1024u)
#define BIG 2000u
#define SLOT_BYTES 48u
static void test_big_district_gives_memory_back(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, 1000); /* 1000 entities per frame */
    sfx_scene(&fx, "small.rsn", 20, 1.0f);
    sfx_scene(&fx, "big.rsn", BIG, 0.1f);
    rill_entity a = sfx_instance(&fx, "small.rsn", 0, 0, 50, 60, 10);
    rill_entity b = sfx_instance(&fx, "big.rsn", 2000, 0, 50, 60, 10);
    for (int i = 0; i < 3; i++) {
        cycle(&fx, a);
    }
    size_t live[RILL_MEM_TAG_NUM];
    for (int t = 0; t < RILL_MEM_TAG_NUM; t++) {
        live[t] = rill_mem_live_bytes((rill_mem_tag)t);
    }
    uint32_t entities = rill_world_entity_count(fx.env.world);
    for (int i = 0; i < 3; i++) {
        sfx_camera(&fx, 2000, 0);
        frames_until(&fx, b, RILL_INSTANCE_LOADED, 20);
        sfx_camera(&fx, 5000, 0);
        sfx_frame(&fx);
        gone(&fx, b);
    }
    for (int i = 0; i < 1000; i++) {
        cycle(&fx, a);
    }
    assert_int_equal(rill_world_entity_count(fx.env.world), entities);
    bool ok = true;
    for (int t = 0; t < RILL_MEM_TAG_NUM; t++) {
        size_t now = rill_mem_live_bytes((rill_mem_tag)t);
        size_t tol = TOLERANCE + (t == RILL_MEM_WORLD ? BIG * SLOT_BYTES : 0u);
        if (now > live[t] + tol || live[t] > now + tol) {
            print_message("tag %d: %zu bytes before the big district, %zu after\n", t, live[t],
                          now);
            ok = false;
        }
    }
    assert_true(ok);
    sfx_done(&fx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_radii_and_gap),
        cmocka_unit_test(test_oscillation_no_reload),
        cmocka_unit_test(test_cancel_mid_load),
        cmocka_unit_test(test_four_in_flight_nearest_first),
        cmocka_unit_test(test_modes_and_restore),
        cmocka_unit_test(test_bounds_not_origins),
        cmocka_unit_test(test_settle_loads_nearby_now),
        cmocka_unit_test(test_self_streaming_stops),
        cmocka_unit_test(test_unload_spread_over_frames),
        cmocka_unit_test(test_hides_stop_at_spent_budget),
        cmocka_unit_test(test_thousand_cycles_return_to_start),
        cmocka_unit_test(test_big_district_gives_memory_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
