/* test_scene_load.c: scene loading: progress (0.10 after the spawn pass, then the formula), the
 * shared per-frame budget measured with a fake clock, loaded/failed events exactly once, main
 * scene replacement (cancel in flight, old scene despawned on completion), nested non-streamed
 * instances (with cycle and depth guards), the instance load/unload API, missing-asset warnings,
 * and a run with real worker threads. */
#include "scene_test_common.h"

typedef test_scene_env lfx;

/* workers: 0 = no job system (parse inside update), >0 = that many worker threads. */
static void lfx_init(lfx *fx, uint32_t workers, uint64_t budget_ns, uint64_t cost_ns) {
    test_scene_env_init(fx, "scene_load", workers, budget_ns, cost_ns);
}

static void lfx_done(lfx *fx) {
    test_scene_env_done(fx);
}

/* A scene of n entities named <prefix>_<i>, each with a Tick (the hook advances the fake clock
 * by the per-entity cost); every 10th is parented to the one before it. */
static void make_scene(lfx *fx, const char *rel, const char *prefix, uint32_t n) {
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    for (uint32_t i = 1; i <= n; i++) {
        if (i % 10 == 0) {
            rill_strbuf_printf(&sb, "entity %u parent %u \"%s_%u\" { Tick { n: %u } }\n", i, i - 1,
                               prefix, i, i);
        } else {
            rill_strbuf_printf(&sb, "entity %u \"%s_%u\" { Tick { n: %u } }\n", i, prefix, i, i);
        }
    }
    test_write_file(fx->dir, rel, sb.data);
    rill_strbuf_free(&sb);
}

/* Events of one type seen by a reader for load h since the last call. */
static uint32_t events_for(lfx *fx, rill_event_reader *rd, rill_scene_load h) {
    uint32_t n = 0;
    const rill_scene_event *e;
    while ((e = rill_event_read(fx->world, rd)) != NULL) {
        if (e->load.id == h.id) {
            n++;
        }
    }
    return n;
}

/* One frame: the loader's update, then the event frame flip. Returns the entities applied. */
static uint32_t frame(lfx *fx, uint32_t *loaded_events, uint32_t *failed_events,
                      rill_scene_load h) {
    uint32_t applied = rill_scene_loader_update(fx->loader);
    if (loaded_events) {
        *loaded_events += events_for(fx, &fx->rd_loaded, h);
    }
    if (failed_events) {
        *failed_events += events_for(fx, &fx->rd_failed, h);
    }
    rill_world_update_events(fx->world);
    return applied;
}

static void test_progress_budget_and_loaded_event(void **state) {
    (void)state;
    const uint64_t budget = 1000000, cost = 70000; /* 1 ms budget, 70 us per entity */
    lfx fx;
    lfx_init(&fx, 0, budget, cost);
    const uint32_t n = 200;
    make_scene(&fx, "scenes/a.rsn", "a", n);
    rill_error err = {0};
    rill_scene_load h = rill_scene_load_async(fx.loader, "scenes/a.rsn", &err);
    assert_true(h.id != 0);
    assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_PARSING);
    assert_true(rill_scene_load_progress(fx.loader, h) == 0.0f);

    uint32_t loaded = 0, failed = 0, applied_total = 0, frames = 0;
    float last = 0.0f;
    bool saw_tenth = false;
    while (rill_scene_load_get_state(fx.loader, h) != RILL_SCENE_LOAD_LOADED) {
        assert_true(frames++ < 1000);
        uint64_t t0 = fx.clock.now;
        uint32_t applied = frame(&fx, &loaded, &failed, h);
        uint64_t spent = fx.clock.now - t0;
        applied_total += applied;
        /* No frame's applied work exceeds the budget by more than one entity's cost. */
        assert_true(spent <= budget + cost);
        assert_true(applied * cost <= budget + cost);
        float p = rill_scene_load_progress(fx.loader, h);
        assert_true(p >= last); /* monotonic */
        last = p;
        rill_scene_load_state st = rill_scene_load_get_state(fx.loader, h);
        if (st == RILL_SCENE_LOAD_SPAWNING) {
            /* All entities exist from the spawn pass on; progress follows the formula. */
            assert_int_equal(rill_scene_load_entity_count(fx.loader, h), n);
            float want = (float)(0.10 + 0.90 * (double)applied_total / (double)n);
            assert_float_equal(p, want, 1e-6);
            if (applied_total == 0) {
                assert_float_equal(p, 0.10f, 1e-7);
                assert_int_equal(rill_world_entity_count(fx.world), n);
                saw_tenth = true;
            } else {
                /* A busy frame applies as much as the budget allows: ceil(budget / cost). */
                assert_true(applied == (budget + cost - 1) / cost || applied_total == n);
            }
        }
        if (st != RILL_SCENE_LOAD_LOADED) {
            assert_int_equal(loaded, 0);
        }
    }
    assert_true(saw_tenth);
    assert_true(rill_scene_load_progress(fx.loader, h) == 1.0f);
    assert_int_equal(applied_total, n);
    assert_int_equal(fx.tick.calls, n);
    assert_int_equal(loaded, 1);
    assert_int_equal(failed, 0);
    /* More frames: no second event. */
    for (int i = 0; i < 5; i++) {
        frame(&fx, &loaded, &failed, h);
    }
    assert_int_equal(loaded, 1);
    assert_int_equal(rill_scene_loader_pending(fx.loader), 0);
    /* Hierarchy and data came through. */
    rill_entity e10 = rill_world_find_by_name(fx.world, "a_10");
    assert_true(rill_world_get_parent(fx.world, e10) == rill_world_find_by_name(fx.world, "a_9"));
    const test_tick *t = rill_world_get(fx.world, e10, fx.ids.tick);
    assert_int_equal(t->n, 10);
    lfx_done(&fx);
}

static void test_failed_event_once(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 0, 0, 0);
    test_write_file(fx.dir, "bad.rsn", "rsn 1\nentity 1 {\n  Tick { n: \"x\" }\n}\n");
    rill_log_set_level(RILL_LOG_NONE);
    const char *paths[] = {"bad.rsn", "missing.rsn"};
    const char *want[] = {"bad.rsn:3:13: Tick.n: expected an integer", "missing.rsn"};
    for (int k = 0; k < 2; k++) {
        rill_error err = {0};
        rill_scene_load h = rill_scene_load_async(fx.loader, paths[k], &err);
        assert_true(h.id != 0);
        uint32_t loaded = 0, failed = 0;
        for (int i = 0; i < 6; i++) {
            frame(&fx, &loaded, &failed, h);
        }
        assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_FAILED);
        assert_int_equal(failed, 1);
        assert_int_equal(loaded, 0);
        const char *msg = rill_scene_load_error(fx.loader, h);
        if (!strstr(msg, want[k])) {
            fail_msg("error \"%s\" lacks \"%s\"", msg, want[k]);
        }
        assert_int_equal(rill_world_entity_count(fx.world), 0);
    }
    /* The synchronous path reports the same way. */
    rill_error err = {0};
    assert_int_not_equal(rill_scene_load_sync(fx.loader, "bad.rsn", NULL, &err), RILL_OK);
    assert_non_null(strstr(err.msg, "bad.rsn:3:13"));
    rill_log_set_level(RILL_LOG_INFO);
    lfx_done(&fx);
}

static void test_new_main_load_cancels_and_replaces(void **state) {
    (void)state;
    const uint64_t budget = 1000000, cost = 100000;
    lfx fx;
    lfx_init(&fx, 0, budget, cost);
    make_scene(&fx, "old.rsn", "old", 30);
    make_scene(&fx, "a.rsn", "a", 100);
    make_scene(&fx, "b.rsn", "b", 40);
    rill_error err = {0};
    assert_int_equal(rill_scene_load_sync(fx.loader, "old.rsn", NULL, &err), RILL_OK);
    assert_int_equal(rill_world_entity_count(fx.world), 30);

    /* A is partly applied when B starts: A is cancelled and none of its entities stay (they go
     * in the next update's budgeted retire slice: test_cancel_main_retires_in_budget). */
    rill_scene_load a = rill_scene_load_async(fx.loader, "a.rsn", &err);
    uint32_t la = 0, fa = 0;
    for (int i = 0; i < 3; i++) {
        frame(&fx, &la, &fa, a);
    }
    assert_int_equal(rill_scene_load_get_state(fx.loader, a), RILL_SCENE_LOAD_SPAWNING);
    assert_int_equal(rill_world_entity_count(fx.world), 130);
    rill_scene_load b = rill_scene_load_async(fx.loader, "b.rsn", &err);
    assert_int_equal(rill_scene_load_get_state(fx.loader, a), RILL_SCENE_LOAD_CANCELLED);
    assert_true(rill_scene_loader_retiring(fx.loader));
    uint32_t lb = 0, fb = 0;
    frame(&fx, &lb, &fb, b);
    assert_false(rill_scene_loader_retiring(fx.loader));
    assert_true(rill_world_find_by_name(fx.world, "a_1") == RILL_ENTITY_NULL);
    assert_true(rill_world_find_by_name(fx.world, "a_5") == RILL_ENTITY_NULL);
    assert_true(rill_world_entity_count(fx.world) <= 30 + 40); /* old and B's entities only */

    /* The old scene stays until B completes, and goes in the very update B completes. */
    while (rill_scene_load_get_state(fx.loader, b) != RILL_SCENE_LOAD_LOADED) {
        assert_true(rill_world_find_by_name(fx.world, "old_3") != RILL_ENTITY_NULL);
        frame(&fx, &lb, &fb, b);
    }
    assert_true(rill_world_find_by_name(fx.world, "old_3") == RILL_ENTITY_NULL);
    assert_true(rill_world_find_by_name(fx.world, "b_40") != RILL_ENTITY_NULL);
    assert_int_equal(rill_world_entity_count(fx.world), 40);
    assert_int_equal(lb, 1);
    /* The cancelled load never sent an event. */
    uint32_t more_a = events_for(&fx, &fx.rd_loaded, a) + events_for(&fx, &fx.rd_failed, a);
    assert_int_equal(la + fa + more_a, 0);
    lfx_done(&fx);
}

static void test_cancel_while_parsing(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 0, 0, 0);
    make_scene(&fx, "a.rsn", "a", 10);
    rill_error err = {0};
    rill_scene_load a = rill_scene_load_async(fx.loader, "a.rsn", &err);
    assert_true(rill_scene_load_cancel(fx.loader, a));
    assert_false(rill_scene_load_cancel(fx.loader, a));
    assert_int_equal(rill_scene_load_get_state(fx.loader, a), RILL_SCENE_LOAD_CANCELLED);
    for (int i = 0; i < 3; i++) {
        frame(&fx, NULL, NULL, a);
    }
    assert_int_equal(rill_world_entity_count(fx.world), 0);
    rill_scene_load_release(fx.loader, a);
    assert_int_equal(rill_scene_load_get_state(fx.loader, a), RILL_SCENE_LOAD_INVALID);
    lfx_done(&fx);
}

static uint32_t count_descendants(rill_world *w, rill_entity e) {
    uint32_t n = 0;
    for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
        n += 1 + count_descendants(w, c);
    }
    return n;
}

/* A component block given twice in one entity: said with its place, and the later block
 * replaces the earlier one whole (Tick.n of the first is not kept). */
static void test_component_twice(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 0, 0, 0);
    test_write_file(fx.dir, "twice.rsn",
                    "rsn 1\nentity 1 \"t\" {\n  Tick { n: 7 }\n  TestAll { i: 3 }\n"
                    "  Tick {}\n}\n");
    test_logbuf lb;
    test_log_begin(&lb);
    rill_error err = {0};
    rill_scene_load h = rill_scene_load_async(fx.loader, "twice.rsn", &err);
    uint32_t loaded = 0;
    for (int i = 0; i < 100 && rill_scene_load_get_state(fx.loader, h) != RILL_SCENE_LOAD_LOADED;
         i++) {
        frame(&fx, &loaded, NULL, h);
    }
    assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_LOADED);
    assert_true(test_log_has(&lb, "twice.rsn:5:3: Tick given twice in this entity; the last block "
                                  "replaces the earlier one"));
    assert_false(test_log_has(&lb, "TestAll given twice"));
    test_log_end(&lb);
    const test_tick *t =
        rill_world_get(fx.world, rill_world_find_by_name(fx.world, "t"), fx.ids.tick);
    assert_non_null(t);
    assert_int_equal(t->n, 0);
    lfx_done(&fx);
}

static void test_nested_instances_expand(void **state) {
    (void)state;
    const uint64_t budget = 500000, cost = 100000;
    lfx fx;
    lfx_init(&fx, 0, budget, cost);
    test_write_file(
        fx.dir, "main.rsn",
        "rsn 1\n"
        "entity 1 \"house\" { SceneInstance { scene: @\"sub/room.rsn\" } Tick {} }\n"
        "entity 2 \"house2\" { SceneInstance { scene: @\"sub/room.rsn\" } }\n"
        "entity 3 \"far\" { SceneInstance { scene: @\"sub/room.rsn\" streamed: true } }\n"
        "entity 4 \"loop\" { SceneInstance { scene: @\"main.rsn\" } }\n"
        "entity 5 \"gone\" { SceneInstance { scene: @\"nope.rsn\" } }\n");
    test_write_file(fx.dir, "sub/room.rsn",
                    "rsn 1\n"
                    "entity 1 \"room\" { Tick {} TestAll { ent: &2 } }\n"
                    "entity 2 parent 1 \"chair\" { Tick {} }\n"
                    "entity 3 \"lamp\" { SceneInstance { scene: @\"sub/lamp.rsn\" } }\n");
    test_write_file(fx.dir, "sub/lamp.rsn",
                    "rsn 1\nentity 1 \"bulb\" { Tick {} }\nentity 2 \"back\" { SceneInstance { "
                    "scene: @\"sub/room.rsn\" } }\n");
    test_logbuf lb;
    test_log_begin(&lb);
    rill_error err = {0};
    rill_scene_load h = rill_scene_load_async(fx.loader, "main.rsn", &err);
    uint32_t loaded = 0, failed = 0;
    for (int i = 0; i < 100 && rill_scene_load_get_state(fx.loader, h) != RILL_SCENE_LOAD_LOADED;
         i++) {
        uint64_t t0 = fx.clock.now;
        frame(&fx, &loaded, &failed, h);
        assert_true(fx.clock.now - t0 <= budget + cost); /* nested content shares the budget */
    }
    assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_LOADED);
    assert_int_equal(loaded, 1);
    /* main: 5; each room: room, chair, lamp + bulb, back (back -> room is a cycle) = 5, twice. */
    assert_int_equal(rill_scene_load_entity_count(fx.loader, h), 5 + 2 * 5);
    assert_int_equal(rill_world_entity_count(fx.world), 15);
    rill_entity house = rill_world_find_by_name(fx.world, "house");
    assert_int_equal(count_descendants(fx.world, house), 5);
    assert_int_equal(rill_world_child_count(fx.world, house), 2); /* room, lamp */
    rill_entity room = rill_world_first_child(fx.world, house);
    assert_string_equal(rill_world_get_name(fx.world, room), "room");
    /* The reference inside the instanced file points at that instance's own chair. */
    const every_field *ta = rill_world_get(fx.world, room, fx.ids.all);
    assert_true(ta->ent == rill_world_first_child(fx.world, room));
    rill_entity far = rill_world_find_by_name(fx.world, "far");
    assert_int_equal(rill_world_child_count(fx.world, far), 0); /* streamed: left for later */
    assert_int_equal(rill_world_child_count(fx.world, rill_world_find_by_name(fx.world, "loop")),
                     0);
    if (getenv("SCENE_TEST_PRINT")) {
        fprintf(stderr, "%s", lb.text.data);
    }
    assert_true(test_log_has(&lb, "it instances itself (cycle)"));
    assert_true(
        test_log_has(&lb, "main.rsn:6:42: SceneInstance.scene: asset \"nope.rsn\" is missing"));
    assert_true(test_log_has(
        &lb, "main.rsn:6:42: SceneInstance.scene: scene instance \"nope.rsn\" not expanded"));
    assert_true(test_log_has(&lb, "main.rsn:5:42: SceneInstance.scene: scene instance \"main.rsn\" "
                                  "not expanded: it instances itself"));
    test_log_end(&lb);

    /* The streamer's API: load the streamed instance under its root, then unload it. */
    rill_transform tf = rill_transform_identity();
    tf.translation[0] = 42.0f;
    rill_world_set_transform(fx.world, far, &tf);
    rill_scene_load ih = rill_scene_instance_load(fx.loader, far, &err);
    assert_true(ih.id != 0);
    assert_true(rill_scene_instance_pending(fx.loader, far).id == ih.id);
    assert_int_equal(rill_scene_instance_load(fx.loader, far, &err).id, 0); /* one at a time */
    uint32_t il = 0;
    for (int i = 0; i < 100 && rill_scene_load_get_state(fx.loader, ih) != RILL_SCENE_LOAD_LOADED;
         i++) {
        frame(&fx, &il, NULL, ih);
    }
    assert_int_equal(il, 1);
    assert_int_equal(count_descendants(fx.world, far), 5);
    assert_int_equal(rill_scene_instance_unload(fx.loader, far), 5);
    assert_true(rill_world_is_alive(fx.world, far));
    assert_int_equal(rill_world_child_count(fx.world, far), 0);
    const rill_transform *kept = rill_world_get(fx.world, far, RILL_COMPONENT_TRANSFORM);
    assert_true(kept && kept->translation[0] == 42.0f);

    /* Unloading while the instance load is in flight cancels it; nothing stays behind. */
    uint32_t before = rill_world_entity_count(fx.world);
    rill_scene_loader_set_budget(fx.loader, 1); /* one Tick entity per frame */
    ih = rill_scene_instance_load(fx.loader, far, &err);
    frame(&fx, NULL, NULL, ih); /* parsed + spawned */
    frame(&fx, NULL, NULL, ih); /* partly applied */
    assert_int_equal(rill_scene_load_get_state(fx.loader, ih), RILL_SCENE_LOAD_SPAWNING);
    assert_true(rill_world_entity_count(fx.world) > before);
    rill_scene_instance_unload(fx.loader, far);
    assert_int_equal(rill_scene_load_get_state(fx.loader, ih), RILL_SCENE_LOAD_CANCELLED);
    assert_int_equal(rill_world_entity_count(fx.world), before);
    lfx_done(&fx);
}

static void test_instance_depth_limit(void **state) {
    (void)state;
    lfx fx;
    memset(&fx, 0, sizeof fx);
    lfx_init(&fx, 0, 0, 0);
    rill_scene_loader_destroy(fx.loader);
    rill_scene_loader_desc d = {.world = fx.world, .vfs = fx.vfs, .read.max_instance_depth = 2};
    fx.loader = rill_scene_loader_create(&d, NULL);
    /* d0 -> d1 -> d2 -> d3: with depth 2, d0's load expands d1 and d2 but not d3. */
    for (int i = 0; i < 4; i++) {
        char rel[32], text[256];
        snprintf(rel, sizeof rel, "d%d.rsn", i);
        snprintf(text, sizeof text,
                 "rsn 1\nentity 1 \"n%d\" { SceneInstance { scene: @\"d%d.rsn\" } }\n", i, i + 1);
        test_write_file(fx.dir, rel, text);
    }
    test_logbuf lb;
    test_log_begin(&lb);
    rill_error err = {0};
    rill_scene_load h;
    assert_int_equal(rill_scene_load_sync(fx.loader, "d0.rsn", &h, &err), RILL_OK);
    assert_int_equal(rill_world_entity_count(fx.world), 3);
    assert_true(test_log_has(&lb, "nesting deeper than 2"));
    test_log_end(&lb);
    lfx_done(&fx);
}

/* With real workers the parse happens on another thread; the result is the same. */
static void test_worker_threads(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 2, 0, 0);
    fx.tick.clock = NULL;
    make_scene(&fx, "a.rsn", "a", 2000);
    make_scene(&fx, "b.rsn", "b", 500);
    rill_error err = {0};
    rill_scene_load a = rill_scene_load_async(fx.loader, "a.rsn", &err);
    rill_scene_load b = rill_scene_load_async(fx.loader, "b.rsn", &err); /* cancels a */
    assert_int_equal(rill_scene_load_get_state(fx.loader, a), RILL_SCENE_LOAD_CANCELLED);
    uint32_t loaded = 0;
    for (int i = 0; i < 100000 && rill_scene_load_get_state(fx.loader, b) != RILL_SCENE_LOAD_LOADED;
         i++) {
        frame(&fx, &loaded, NULL, b);
        rill_sleep_ns(100000);
    }
    assert_int_equal(rill_scene_load_get_state(fx.loader, b), RILL_SCENE_LOAD_LOADED);
    assert_int_equal(loaded, 1);
    assert_int_equal(rill_world_entity_count(fx.world), 500);
    /* Destroying with a load in flight cancels it cleanly. */
    rill_scene_load_async(fx.loader, "a.rsn", &err);
    frame(&fx, NULL, NULL, b);
    lfx_done(&fx);
}

static void test_records_recycle(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 0, 0, 0);
    rill_scene_loader_destroy(fx.loader);
    rill_scene_loader_desc d = {.world = fx.world, .vfs = fx.vfs, .max_loads = 2};
    fx.loader = rill_scene_loader_create(&d, NULL);
    make_scene(&fx, "a.rsn", "a", 3);
    rill_error err = {0};
    rill_scene_load first = {0};
    for (int i = 0; i < 5; i++) {
        rill_scene_load h;
        assert_int_equal(rill_scene_load_sync(fx.loader, "a.rsn", &h, &err), RILL_OK);
        if (i == 0) {
            first = h;
        }
    }
    assert_int_equal(rill_scene_load_get_state(fx.loader, first), RILL_SCENE_LOAD_INVALID);
    assert_int_equal(rill_world_entity_count(fx.world), 3);
    lfx_done(&fx);
}

/* Sync loads send the event too; rill_scene_save writes a file that loads back the same; the
 * instance API refuses bad roots. */
static void test_sync_event_save_and_misuse(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 0, 0, 0);
    make_scene(&fx, "a.rsn", "a", 25);
    rill_error err = {0};
    rill_scene_load h;
    assert_int_equal(rill_scene_load_sync(fx.loader, "a.rsn", &h, &err), RILL_OK);
    assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_LOADED);
    assert_int_equal(events_for(&fx, &fx.rd_loaded, h), 1);
    assert_int_equal(rill_scene_load_entity_count(fx.loader, h), 25);
    assert_int_equal(rill_scene_loader_pending(fx.loader), 0);

    rill_entity roots[64];
    uint32_t n = rill_scene_loader_main_roots(fx.loader, roots, 64);
    assert_int_equal(n, 23); /* 25 entities, 2 of them children */
    char path[1024];
    rill_test_path(path, sizeof path, fx.dir, "saved.rsn");
    assert_int_equal(rill_scene_save(fx.world, roots, n, NULL, path, &err), RILL_OK);
    rill_strbuf first = {0};
    assert_int_equal(rill_scene_write(fx.world, roots, n, NULL, &first, &err), RILL_OK);
    assert_int_equal(rill_scene_load_sync(fx.loader, "saved.rsn", NULL, &err), RILL_OK);
    assert_int_equal(rill_world_entity_count(fx.world), 25);
    n = rill_scene_loader_main_roots(fx.loader, roots, 64);
    rill_strbuf second = {0};
    assert_int_equal(rill_scene_write(fx.world, roots, n, NULL, &second, &err), RILL_OK);
    assert_string_equal(first.data, second.data);
    rill_strbuf_free(&first);
    rill_strbuf_free(&second);

    /* Misuse: dead root, root without SceneInstance, stale handles. */
    rill_entity plain = rill_world_spawn(fx.world);
    assert_int_equal(rill_scene_instance_load(fx.loader, plain, &err).id, 0);
    assert_non_null(strstr(err.msg, "no SceneInstance"));
    rill_world_despawn(fx.world, plain);
    assert_int_equal(rill_scene_instance_load(fx.loader, plain, &err).id, 0);
    assert_int_equal(rill_scene_instance_unload(fx.loader, plain), 0);
    rill_scene_load stale = {12345};
    assert_int_equal(rill_scene_load_get_state(fx.loader, stale), RILL_SCENE_LOAD_INVALID);
    assert_false(rill_scene_load_cancel(fx.loader, stale));
    assert_string_equal(rill_scene_load_error(fx.loader, stale), "");
    rill_scene_load_release(fx.loader, stale);
    assert_int_equal(rill_scene_load_async(fx.loader, "", &err).id, 0);
    assert_int_equal(rill_scene_load_async(fx.loader, "../outside.rsn", &err).id, 0);
    lfx_done(&fx);
}

/* Two loads in flight (the main scene and an instance) share one budget per frame: the frame's
 * total stays within budget + one entity, and the older load goes first. */
static void test_budget_shared_by_loads(void **state) {
    (void)state;
    const uint64_t budget = 1000000, cost = 100000;
    lfx fx;
    lfx_init(&fx, 0, budget, cost);
    make_scene(&fx, "main.rsn", "m", 60);
    make_scene(&fx, "inst.rsn", "i", 40);
    rill_error err = {0};
    /* An instance root outside the main scene, loaded alongside. */
    rill_entity root = rill_world_spawn(fx.world);
    rill_scene_components sc = rill_scene_register(fx.world);
    rill_scene_instance *si = rill_world_add(fx.world, root, sc.instance, NULL);
    si->scene = rill_intern("inst.rsn");
    si->streamed = true;
    rill_scene_load m = rill_scene_load_async(fx.loader, "main.rsn", &err);
    rill_scene_load in = rill_scene_instance_load(fx.loader, root, &err);
    assert_true(m.id && in.id);
    uint32_t frames = 0, lm = 0, li = 0;
    bool instance_waited = false;
    while (rill_scene_loader_pending(fx.loader) > 0) {
        assert_true(frames++ < 200);
        uint64_t t0 = fx.clock.now;
        uint32_t applied = rill_scene_loader_update(fx.loader);
        lm += events_for(&fx, &fx.rd_loaded, m);
        rill_world_update_events(fx.world);
        assert_true(fx.clock.now - t0 <= budget + cost);
        assert_true(applied * cost <= budget + cost);
        /* While the main load still has work, a full frame goes to it first. */
        if (rill_scene_load_get_state(fx.loader, m) == RILL_SCENE_LOAD_SPAWNING &&
            rill_scene_load_progress(fx.loader, in) == 0.10f && applied > 0) {
            instance_waited = true;
        }
    }
    li = rill_scene_load_get_state(fx.loader, in) == RILL_SCENE_LOAD_LOADED;
    assert_int_equal(rill_scene_load_get_state(fx.loader, m), RILL_SCENE_LOAD_LOADED);
    assert_int_equal(li, 1);
    assert_int_equal(lm, 1);
    assert_true(instance_waited);
    assert_int_equal(count_descendants(fx.world, root), 40);
    assert_int_equal(fx.tick.calls, 100);
    /* 100 entities at 10 per frame plus the spawn frame: the budget left by a finished load
     * goes to the next one in the same frame. */
    assert_true(frames <= 12);
    lfx_done(&fx);
}

/* Replacing a main scene: the update that applies the new scene's last entity leaves the old
 * scene in place; the next update completes the load before applying anything else, despawning
 * the old scene (as one batch) in that same update, so no frame is empty and the swap's despawn
 * does not pile on top of a full budget of applying. */
static void test_swap_completes_in_own_update(void **state) {
    (void)state;
    const uint64_t budget = 1000000, cost = 100000;
    lfx fx;
    lfx_init(&fx, 0, budget, cost);
    make_scene(&fx, "old.rsn", "old", 200);
    make_scene(&fx, "new.rsn", "new", 95);
    rill_error err = {0};
    assert_int_equal(rill_scene_load_sync(fx.loader, "old.rsn", NULL, &err), RILL_OK);
    rill_entity roots[256];
    assert_int_equal(rill_scene_loader_main_roots(fx.loader, roots, 256), 180);
    rill_scene_load h = rill_scene_load_async(fx.loader, "new.rsn", &err);
    uint32_t loaded = 0, frames = 0, applied_total = 0;
    bool saw_all_applied = false;
    while (rill_scene_load_get_state(fx.loader, h) != RILL_SCENE_LOAD_LOADED) {
        assert_true(frames++ < 100);
        bool was_all_applied = applied_total == 95;
        uint32_t applied = frame(&fx, &loaded, NULL, h);
        applied_total += applied;
        rill_scene_load_state st = rill_scene_load_get_state(fx.loader, h);
        if (st == RILL_SCENE_LOAD_SPAWNING) {
            /* Old scene still whole, no event yet. */
            assert_int_equal(rill_world_entity_count(fx.world), 200 + 95);
            assert_int_equal(loaded, 0);
            if (applied_total == 95) {
                saw_all_applied = true;
            }
        } else {
            assert_int_equal(st, RILL_SCENE_LOAD_LOADED);
            /* Completed at the start of the update after the last entity, applying nothing. */
            assert_true(was_all_applied);
            assert_int_equal(applied, 0);
        }
    }
    assert_true(saw_all_applied);
    assert_int_equal(loaded, 1);
    assert_int_equal(rill_world_entity_count(fx.world), 95);
    assert_true(rill_world_find_by_name(fx.world, "old_7") == RILL_ENTITY_NULL);
    assert_true(rill_world_find_by_name(fx.world, "new_95") != RILL_ENTITY_NULL);
    /* The new main roots were collected while applying: file order, roots only. */
    uint32_t nr = rill_scene_loader_main_roots(fx.loader, roots, 256);
    assert_int_equal(nr, 86);
    assert_true(roots[0] == rill_world_find_by_name(fx.world, "new_1"));
    assert_true(roots[nr - 1] == rill_world_find_by_name(fx.world, "new_95"));
    for (uint32_t i = 0; i < nr; i++) {
        assert_true(rill_world_get_parent(fx.world, roots[i]) == RILL_ENTITY_NULL);
    }
    /* A first main scene (nothing to replace) completes in the update of its last entity. */
    lfx_done(&fx);
    lfx_init(&fx, 0, budget, cost);
    make_scene(&fx, "new.rsn", "new", 15);
    h = rill_scene_load_async(fx.loader, "new.rsn", &err);
    frame(&fx, NULL, NULL, h); /* parse + spawn */
    frame(&fx, NULL, NULL, h); /* 10 */
    assert_int_equal(frame(&fx, NULL, NULL, h), 5);
    assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_LOADED);
    lfx_done(&fx);
}

/* A large load with real workers: the bound scene is freed by a worker after completion, and a
 * replacing load of the same size swaps it out completely. */
static void test_large_swap_with_workers(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 2, 0, 0);
    make_scene(&fx, "big.rsn", "big", 3000);
    rill_error err = {0};
    for (int k = 0; k < 2; k++) {
        rill_scene_load h = rill_scene_load_async(fx.loader, "big.rsn", &err);
        uint32_t loaded = 0;
        for (int i = 0;
             i < 100000 && rill_scene_load_get_state(fx.loader, h) != RILL_SCENE_LOAD_LOADED; i++) {
            frame(&fx, &loaded, NULL, h);
            rill_sleep_ns(100000);
        }
        assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_LOADED);
        assert_int_equal(loaded, 1);
        assert_int_equal(rill_world_entity_count(fx.world), 3000);
        assert_int_equal(rill_world_component_len(fx.world, fx.ids.tick), 3000);
    }
    lfx_done(&fx);
}

/* n entities "old_1".."old_n" with a Tock (and a Tick when ticks), in chains of four. */
static void make_tock_scene(lfx *fx, const char *rel, uint32_t n, bool ticks) {
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    for (uint32_t i = 1; i <= n; i++) {
        if (i % 4 != 1) {
            rill_strbuf_printf(&sb, "entity %u parent %u \"old_%u\" { Tock { n: %u }", i, i - 1, i,
                               i);
        } else {
            rill_strbuf_printf(&sb, "entity %u \"old_%u\" { Tock { n: %u }", i, i, i);
        }
        rill_strbuf_printf(&sb, ticks ? " Tick { n: %u } }\n" : " }\n", i);
    }
    test_write_file(fx->dir, rel, sb.data);
    rill_strbuf_free(&sb);
}

/* Replacing a large main scene: the old scene goes in budgeted slices from the update the new one
 * completes (as much as fits there), every update stays within the budget plus one slice, the
 * old scene never disappears before the new one is complete, and in the end nothing of it is
 * left. */
static void test_swap_retires_old_scene_in_budget(void **state) {
    (void)state;
    const uint64_t budget = 1000000, tock_cost = 1000; /* 1 ms; 1 us per despawned entity */
    lfx fx;
    lfx_init(&fx, 0, budget, 0);
    /* every removed Tock costs tock_cost: what a replaced scene's despawn costs */
    test_tick_state tock = {.clock = &fx.clock, .cost_ns = tock_cost};
    test_register_tock(fx.world, &tock);
    enum { OLD = 5000, NEW = 50 };
    make_tock_scene(&fx, "old.rsn", OLD, false);
    make_scene(&fx, "new.rsn", "new", NEW);
    rill_error err = {0};
    assert_int_equal(rill_scene_load_sync(fx.loader, "old.rsn", NULL, &err), RILL_OK);
    assert_int_equal(rill_world_entity_count(fx.world), OLD);
    rill_scene_load h = rill_scene_load_async(fx.loader, "new.rsn", &err);
    uint32_t loaded = 0, frames = 0, retire_frames = 0, prev = OLD + NEW;
    bool was_loaded = false;
    while (rill_world_entity_count(fx.world) > NEW || !was_loaded) {
        assert_true(frames++ < 100);
        uint64_t t0 = fx.clock.now;
        frame(&fx, &loaded, NULL, h);
        /* No update exceeds the budget by more than one slice of despawns. */
        assert_true(fx.clock.now - t0 <= budget + 128u * tock_cost);
        uint32_t count = rill_world_entity_count(fx.world);
        bool is_loaded = rill_scene_load_get_state(fx.loader, h) == RILL_SCENE_LOAD_LOADED;
        if (!is_loaded) {
            /* The old scene stays whole until the new one completes. */
            assert_true(rill_world_find_by_name(fx.world, "old_1") != RILL_ENTITY_NULL);
            assert_true(count >= OLD);
        } else {
            /* The new scene is complete from then on; the old one shrinks. */
            assert_true(rill_world_find_by_name(fx.world, "new_50") != RILL_ENTITY_NULL);
            assert_true(count >= NEW && count <= prev);
            if (count < prev) {
                retire_frames++;
            }
            assert_true(rill_scene_loader_retiring(fx.loader) == (count > NEW));
        }
        was_loaded = is_loaded;
        prev = count;
    }
    assert_false(rill_scene_loader_retiring(fx.loader));
    assert_int_equal(loaded, 1);
    /* 5000 despawns at 1 us each in 1 ms budgets: spread over several updates. */
    assert_true(retire_frames >= 4);
    assert_int_equal(rill_world_entity_count(fx.world), NEW);
    assert_true(rill_world_find_by_name(fx.world, "old_4999") == RILL_ENTITY_NULL);
    assert_int_equal(
        rill_world_component_len(fx.world, rill_world_find_component(fx.world, "Tock")), 0);
    lfx_done(&fx);
}

/* A new main load cancels the one in flight: the partial entities are not despawned in the call
 * (one batch, however many were spawned) but in the budgeted retire slices of later updates, and
 * in the end nothing of the cancelled load is left. */
static void test_cancel_main_retires_in_budget(void **state) {
    (void)state;
    const uint64_t budget = 1000000, cost = 1000, tock_cost = 1000; /* 1 ms; 1 us each */
    lfx fx;
    lfx_init(&fx, 0, budget, cost);
    test_tick_state tock = {.clock = &fx.clock, .cost_ns = tock_cost};
    test_register_tock(fx.world, &tock);
    enum { OLD = 5000, NEW = 50 };
    make_tock_scene(&fx, "old.rsn", OLD, true);
    make_scene(&fx, "new.rsn", "new", NEW);
    rill_error err = {0};
    rill_scene_load old = rill_scene_load_async(fx.loader, "old.rsn", &err);
    uint32_t frames = 0, tocks = 0;
    rill_component tock_c = rill_world_find_component(fx.world, "Tock");
    while ((tocks = rill_world_component_len(fx.world, tock_c)) < OLD / 2) {
        assert_true(frames++ < 100);
        frame(&fx, NULL, NULL, old);
    }
    assert_int_equal(rill_scene_load_get_state(fx.loader, old), RILL_SCENE_LOAD_SPAWNING);
    uint32_t partial = rill_world_entity_count(fx.world);
    uint64_t t0 = fx.clock.now;
    rill_scene_load h = rill_scene_load_async(fx.loader, "new.rsn", &err);
    /* Cancelled, but nothing despawned by the call itself. */
    assert_int_equal(rill_scene_load_get_state(fx.loader, old), RILL_SCENE_LOAD_CANCELLED);
    assert_true(fx.clock.now == t0);
    assert_int_equal(rill_world_entity_count(fx.world), partial);
    assert_true(rill_scene_loader_retiring(fx.loader));
    uint32_t loaded = 0, retire_frames = 0, prev = partial;
    frames = 0;
    while (rill_world_entity_count(fx.world) > NEW ||
           rill_scene_load_get_state(fx.loader, h) != RILL_SCENE_LOAD_LOADED) {
        assert_true(frames++ < 100);
        t0 = fx.clock.now;
        frame(&fx, &loaded, NULL, h);
        /* No update exceeds the budget by more than one slice of despawns (or one entity). */
        assert_true(fx.clock.now - t0 <= budget + 128u * tock_cost + cost);
        uint32_t count = rill_world_component_len(fx.world, tock_c);
        retire_frames += count < prev;
        prev = count;
    }
    /* OLD / 2 despawns or more at 1 us each in 1 ms budgets: spread over several updates. */
    assert_true(retire_frames >= 2);
    assert_false(rill_scene_loader_retiring(fx.loader));
    assert_int_equal(loaded, 1);
    assert_int_equal(rill_world_component_len(fx.world, tock_c), 0);
    assert_int_equal(rill_world_entity_count(fx.world), NEW);
    assert_true(rill_world_find_by_name(fx.world, "old_1") == RILL_ENTITY_NULL);
    rill_scene_load_release(fx.loader, old);
    lfx_done(&fx);
}

/* A load computes the GlobalTransforms of what it applies within its own budget: after an
 * update, applied entities have their world matrix (children composed with their parents)
 * before any transform pass runs. */
static void test_load_propagates_transforms(void **state) {
    (void)state;
    lfx fx;
    lfx_init(&fx, 0, 1000000, 100000);
    test_write_file(fx.dir, "t.rsn",
                    "rsn 1\n"
                    "entity 1 \"p\" { Tick { n: 1 } Transform { translation: (1, 2, 3) } }\n"
                    "entity 2 parent 1 \"c\" { Tick { n: 2 } Transform { translation: (10, 0, "
                    "0) } }\n");
    rill_error err = {0};
    rill_scene_load h = rill_scene_load_async(fx.loader, "t.rsn", &err);
    for (int i = 0; i < 10 && rill_scene_load_get_state(fx.loader, h) != RILL_SCENE_LOAD_LOADED;
         i++) {
        frame(&fx, NULL, NULL, h);
    }
    assert_int_equal(rill_scene_load_get_state(fx.loader, h), RILL_SCENE_LOAD_LOADED);
    const float *m = rill_world_global_matrix(fx.world, rill_world_find_by_name(fx.world, "c"));
    assert_non_null(m);
    assert_true(m[12] == 11.0f && m[13] == 2.0f && m[14] == 3.0f);
    /* Nothing is left for the frame's transform pass. */
    assert_int_equal(rill_world_update_transforms(fx.world), 0);
    lfx_done(&fx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_budget_and_loaded_event),
        cmocka_unit_test(test_failed_event_once),
        cmocka_unit_test(test_new_main_load_cancels_and_replaces),
        cmocka_unit_test(test_cancel_while_parsing),
        cmocka_unit_test(test_nested_instances_expand),
        cmocka_unit_test(test_component_twice),
        cmocka_unit_test(test_instance_depth_limit),
        cmocka_unit_test(test_worker_threads),
        cmocka_unit_test(test_records_recycle),
        cmocka_unit_test(test_sync_event_save_and_misuse),
        cmocka_unit_test(test_budget_shared_by_loads),
        cmocka_unit_test(test_swap_completes_in_own_update),
        cmocka_unit_test(test_large_swap_with_workers),
        cmocka_unit_test(test_swap_retires_old_scene_in_budget),
        cmocka_unit_test(test_cancel_main_retires_in_budget),
        cmocka_unit_test(test_load_propagates_transforms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
