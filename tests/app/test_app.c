/* test_app.c: the frame loop (stage order, system order, fixed and variable time steps, events,
 * job completions, render hook, async scene loading driven by frames), run modes, the streaming
 * gate with its "streaming off" notification, the streaming camera choice, and the loader's
 * budget shared with the rest of the streaming work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/app.h"

static rill_app *make_app(void) {
    rill_error err = {0};
    rill_app *app = rill_app_create(&(rill_app_desc){.deterministic = true, .root = ""}, &err);
    if (!app) {
        fprintf(stderr, "rill_app_create: %s\n", err.msg);
    }
    assert_non_null(app);
    return app;
}

/* >>run modes --------------------------------------------------------------------------------- */

static void test_gate_table(void **state) {
    (void)state;
    assert_false(rill_run_mode_streams(RILL_RUN_MODE_EDIT));
    assert_true(rill_run_mode_streams(RILL_RUN_MODE_PLAY));
    assert_true(rill_run_mode_streams(RILL_RUN_MODE_PAUSED));
    assert_true(rill_run_mode_streams(RILL_RUN_MODE_SIMULATE));
    assert_true(rill_run_mode_streams(RILL_RUN_MODE_GAME));
    assert_false(rill_run_mode_streams(RILL_RUN_MODE_SERVER));
    assert_false(rill_run_mode_streams(RILL_RUN_MODE_DEFAULT));
    assert_false(rill_run_mode_streams((rill_run_mode)99));
    assert_string_equal(rill_run_mode_name(RILL_RUN_MODE_SIMULATE), "simulate");
    assert_string_equal(rill_run_mode_name((rill_run_mode)99), "invalid");

    rill_app *app = make_app();
    assert_int_equal(rill_app_get_run_mode(app), RILL_RUN_MODE_GAME); /* the default */
    assert_true(rill_streaming_active(app));
    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_SERVER), RILL_OK);
    assert_false(rill_streaming_active(app));
    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT), RILL_OK);
    assert_false(rill_streaming_active(app));
    rill_log_set_level(RILL_LOG_NONE);
    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_DEFAULT), RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_NUM), RILL_ERR_INVALID_ARGUMENT);
    rill_log_set_level(RILL_LOG_INFO);
    assert_int_equal(rill_app_get_run_mode(app), RILL_RUN_MODE_EDIT);
    assert_false(rill_streaming_active(NULL));
    rill_app_destroy(app);
}

typedef struct transitions {
    int off_calls;
    int mode_calls;
    char log[256];
} transitions;

static void on_off(rill_app *app, void *user) {
    transitions *t = user;
    /* The mode has already switched when listeners run. */
    assert_false(rill_streaming_active(app));
    t->off_calls++;
    strcat(t->log, "OFF ");
}

static void on_mode(rill_app *app, rill_run_mode old_mode, rill_run_mode new_mode, void *user) {
    (void)app;
    transitions *t = user;
    t->mode_calls++;
    char line[40];
    snprintf(line, sizeof(line), "%s>%s ", rill_run_mode_name(old_mode),
             rill_run_mode_name(new_mode));
    strcat(t->log, line);
}

static void test_streaming_off_fires_once(void **state) {
    (void)state;
    rill_app *app = make_app();
    transitions t = {0};
    assert_true(rill_app_on_streaming_off(app, on_off, &t));
    assert_true(rill_app_on_run_mode(app, on_mode, &t));
    assert_false(rill_app_on_streaming_off(app, NULL, &t));

    rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT); /* game -> edit: turns off */
    assert_int_equal(t.off_calls, 1);
    rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT); /* no change: nothing */
    assert_int_equal(t.off_calls, 1);
    assert_int_equal(t.mode_calls, 1);
    rill_app_set_run_mode(app, RILL_RUN_MODE_PLAY);
    rill_app_set_run_mode(app, RILL_RUN_MODE_PAUSED); /* still streaming */
    rill_app_set_run_mode(app, RILL_RUN_MODE_PLAY);
    assert_int_equal(t.off_calls, 1);
    rill_app_frame(app);
    rill_app_frame(app);
    assert_int_equal(t.off_calls, 1); /* frames do not re-fire it */
    rill_app_set_run_mode(app, RILL_RUN_MODE_PAUSED);
    rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT); /* paused -> edit: turns off once */
    assert_int_equal(t.off_calls, 2);
    rill_app_set_run_mode(app, RILL_RUN_MODE_SERVER); /* edit -> server: was already off */
    assert_int_equal(t.off_calls, 2);
    rill_app_set_run_mode(app, RILL_RUN_MODE_SIMULATE);
    rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT);
    assert_int_equal(t.off_calls, 3);
    assert_int_equal(rill_app_streaming_off_count(app), 3);
    /* The same transitions as world events and resource, for modules below the app. */
    rill_event_reader rd = {.event = rill_app_streaming_off_event(app)};
    assert_int_not_equal(rd.event.id, 0);
    assert_int_equal(rd.event.id,
                     rill_world_find_event(rill_app_world(app), "StreamingTurnedOff").id);
    /* Events live two frames: the first transition was sent before two frames ran and is gone;
     * the second and third were sent since the last frame. */
    const rill_streaming_off_event *ev = rill_event_read(rill_app_world(app), &rd);
    assert_non_null(ev);
    assert_int_equal(ev->off_count, 2);
    ev = rill_event_read(rill_app_world(app), &rd);
    assert_non_null(ev);
    assert_int_equal(ev->off_count, 3);
    assert_int_equal(ev->new_mode, RILL_RUN_MODE_EDIT);
    assert_null(rill_event_read(rill_app_world(app), &rd));
    const rill_streaming_state *st = rill_app_streaming_state(app);
    assert_false(st->active);
    assert_int_equal(st->run_mode, RILL_RUN_MODE_EDIT);
    assert_int_equal(st->off_count, 3);
    assert_string_equal(t.log, "OFF game>edit edit>play play>paused paused>play play>paused OFF "
                               "paused>edit edit>server server>simulate OFF simulate>edit ");
    rill_app_frame(app);
    assert_int_equal(t.off_calls, 3);
    rill_app_destroy(app);
}

static rill_entity add_camera(rill_world *w, int role, bool active, bool is_default) {
    rill_entity e = rill_world_spawn(w);
    rill_camera cam;
    rill_type_apply_defaults(rill_world_component_type(w, rill_world_builtin(w)->camera), &cam);
    cam.role = role;
    cam.active = active;
    cam.is_default = is_default;
    assert_non_null(rill_world_add(w, e, rill_world_builtin(w)->camera, &cam));
    return e;
}

static void test_camera_pick(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_GAME), RILL_ENTITY_NULL);
    assert_int_equal(rill_streaming_camera_pick(NULL, RILL_RUN_MODE_GAME), RILL_ENTITY_NULL);

    rill_entity editor = add_camera(w, RILL_CAMERA_ROLE_EDITOR, true, false);
    /* An editor camera streams only in Simulate. */
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_PLAY), RILL_ENTITY_NULL);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_GAME), RILL_ENTITY_NULL);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_SIMULATE), editor);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_EDIT), RILL_ENTITY_NULL);

    rill_entity inactive = add_camera(w, RILL_CAMERA_ROLE_GAME, false, true);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_PLAY), RILL_ENTITY_NULL);
    rill_entity game1 = add_camera(w, RILL_CAMERA_ROLE_GAME, true, false);
    rill_entity game2 = add_camera(w, RILL_CAMERA_ROLE_GAME, true, false);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_PLAY), game1);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_GAME), game1);
    /* The game camera wins over the editor camera in Simulate too. */
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_SIMULATE), game1);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_PAUSED), game1);

    /* Marking the second one default makes it the choice. */
    rill_camera *c2 = rill_world_get(w, game2, rill_world_builtin(w)->camera);
    c2->is_default = true;
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_GAME), game2);
    /* Deactivating it falls back to the first active game camera. */
    c2->active = false;
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_GAME), game1);
    /* Never in EDIT or SERVER. */
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_EDIT), RILL_ENTITY_NULL);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_SERVER), RILL_ENTITY_NULL);
    /* "First" follows slot order, not storage order: removing and re-adding the component of the
     * first camera moves it in dense storage, not in the choice. */
    rill_camera keep = *(rill_camera *)rill_world_get(w, game1, rill_world_builtin(w)->camera);
    rill_world_remove(w, game1, rill_world_builtin(w)->camera);
    c2 = rill_world_get(w, game2, rill_world_builtin(w)->camera);
    c2->active = true;
    c2->is_default = false;
    rill_world_add(w, game1, rill_world_builtin(w)->camera, &keep);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_GAME), game1);
    /* Only the editor camera left, and it is in Simulate. */
    rill_world_despawn(w, game1);
    rill_world_despawn(w, game2);
    rill_world_despawn(w, inactive);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_GAME), RILL_ENTITY_NULL);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_SIMULATE), editor);
    /* An editor camera marked default beats an earlier editor camera in Simulate. */
    rill_entity editor2 = add_camera(w, RILL_CAMERA_ROLE_EDITOR, true, true);
    assert_int_equal(rill_streaming_camera_pick(w, RILL_RUN_MODE_SIMULATE), editor2);
    rill_world_destroy(w);
}

static void test_app_streaming_camera_position(void **state) {
    (void)state;
    rill_app *app = make_app();
    rill_world *w = rill_app_world(app);
    float pos[3] = {9, 9, 9};
    assert_int_equal(rill_app_streaming_camera(app, pos), RILL_ENTITY_NULL);
    assert_true(pos[0] == 9.0f); /* untouched without a camera */
    rill_entity parent = rill_world_spawn(w);
    rill_transform t = rill_transform_identity();
    t.translation[0] = 100.0f;
    rill_world_set_transform(w, parent, &t);
    rill_entity cam = add_camera(w, RILL_CAMERA_ROLE_GAME, true, false);
    t.translation[0] = 5.0f;
    t.translation[2] = -3.0f;
    rill_world_set_transform(w, cam, &t);
    rill_world_set_parent(w, cam, parent);
    rill_app_frame(app); /* post_update propagates transforms */
    assert_int_equal(rill_app_streaming_camera(app, pos), cam);
    assert_true(fabsf(pos[0] - 105.0f) < 1e-4f);
    assert_true(fabsf(pos[2] + 3.0f) < 1e-4f);
    /* The StreamingState resource carries the same, readable by field name through reflection
     * (as the stream module does, which cannot include app.h). */
    rill_resource res = rill_world_find_resource(w, "StreamingState");
    assert_int_not_equal(res.id, 0);
    const void *data = rill_world_get_resource(w, res);
    const rill_type_desc *type = rill_world_resource_type(w, res);
    const rill_field *f_cam = rill_type_find_field(type, "camera");
    const rill_field *f_pos = rill_type_find_field(type, "camera_position");
    const rill_field *f_active = rill_type_find_field(type, "active");
    assert_non_null(f_cam);
    assert_non_null(f_pos);
    assert_int_equal(*(const rill_entity *)RILL_FIELD_PTR(data, f_cam), cam);
    double x;
    assert_true(rill_field_get_f64(f_pos, data, 0, &x));
    assert_true(fabs(x - 105.0) < 1e-4);
    assert_true(*(const bool *)RILL_FIELD_PTR(data, f_active));
    /* Moving the camera shows up after the next frame's post_update. */
    rill_world_transform_mut(w, cam)->translation[0] = 6.0f;
    rill_app_frame(app);
    assert_true(fabsf(rill_app_streaming_state(app)->camera_position[0] - 106.0f) < 1e-4f);
    rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT);
    assert_int_equal(rill_app_streaming_camera(app, pos), RILL_ENTITY_NULL);
    /* The resource follows the mode change at once. */
    assert_int_equal(rill_app_streaming_state(app)->camera, RILL_ENTITY_NULL);
    assert_false(rill_app_streaming_state(app)->active);
    rill_app_destroy(app);
}

/* >>frame loop -------------------------------------------------------------------------------- */

typedef struct trace {
    char log[2048];
    rill_app *app;
    rill_system self;
    rill_system added;
    int calls;
} trace;

static void trace_sys(rill_app *app, void *user) {
    (void)app;
    strcat((char *)user, " ");
}

typedef struct named {
    trace *t;
    const char *name;
} named;

static void named_sys(rill_app *app, void *user) {
    (void)app;
    named *n = user;
    strcat(n->t->log, n->name);
    strcat(n->t->log, " ");
}

static void render_hook(rill_app *app, void *user) {
    (void)app;
    strcat(((trace *)user)->log, "HOOK ");
}

static void test_stage_and_system_order(void **state) {
    (void)state;
    rill_app *app = make_app();
    trace t = {0};
    named n[] = {{&t, "render"},   {&t, "extract"},  {&t, "post"},
                 {&t, "update_b"}, {&t, "update_a"}, {&t, "pre"},
                 {&t, "first"},    {&t, "update_c"}, {&t, "fixed"}};
    rill_stage stages[] = {RILL_STAGE_RENDER, RILL_STAGE_EXTRACT, RILL_STAGE_POST_UPDATE,
                           RILL_STAGE_UPDATE, RILL_STAGE_UPDATE,  RILL_STAGE_PRE_UPDATE,
                           RILL_STAGE_FIRST,  RILL_STAGE_UPDATE,  RILL_STAGE_FIXED_UPDATE};
    int32_t orders[] = {0, 0, 0, 5, -5, 0, 0, 5, 0};
    for (int i = 0; i < 9; i++) {
        rill_system s = rill_app_add_system(app, &(rill_system_desc){.name = n[i].name,
                                                                     .stage = stages[i],
                                                                     .order = orders[i],
                                                                     .fn = named_sys,
                                                                     .user = &n[i]});
        assert_int_not_equal(s.id, 0);
    }
    rill_app_set_render_hook(app, render_hook, &t);
    rill_app_frame(app); /* deterministic: dt = fixed_dt, exactly one fixed step */
    assert_string_equal(t.log,
                        "first pre fixed update_a update_b update_c post extract render HOOK ");
    /* Bad descs are refused. */
    rill_log_set_level(RILL_LOG_NONE);
    assert_int_equal(rill_app_add_system(app, &(rill_system_desc){.stage = RILL_STAGE_UPDATE}).id,
                     0);
    assert_int_equal(
        rill_app_add_system(app, &(rill_system_desc){.stage = RILL_STAGE_NUM, .fn = trace_sys}).id,
        0);
    rill_log_set_level(RILL_LOG_INFO);
    rill_app_destroy(app);
}

static void self_removing(rill_app *app, void *user) {
    trace *t = user;
    t->calls++;
    assert_true(rill_app_remove_system(app, t->self));
    assert_false(rill_app_remove_system(app, t->self)); /* stale now */
}

static void adder(rill_app *app, void *user) {
    trace *t = user;
    if (!t->added.id) {
        static named late;
        late.t = t;
        late.name = "late";
        t->added = rill_app_add_system(
            app, &(rill_system_desc){
                     .stage = RILL_STAGE_UPDATE, .order = 100, .fn = named_sys, .user = &late});
    }
    strcat(t->log, "adder ");
}

static void test_add_remove_during_frame(void **state) {
    (void)state;
    rill_app *app = make_app();
    trace t = {0};
    t.self = rill_app_add_system(
        app, &(rill_system_desc){.stage = RILL_STAGE_UPDATE, .fn = self_removing, .user = &t});
    rill_app_add_system(app,
                        &(rill_system_desc){.stage = RILL_STAGE_UPDATE, .fn = adder, .user = &t});
    rill_app_frame(app);
    /* The system added during the stage runs from the next frame on. */
    assert_string_equal(t.log, "adder ");
    rill_app_frame(app);
    assert_string_equal(t.log, "adder adder late ");
    assert_int_equal(t.calls, 1);
    assert_true(rill_app_remove_system(app, t.added));
    rill_app_frame(app);
    assert_string_equal(t.log, "adder adder late adder ");
    rill_app_destroy(app);
}

typedef struct fixed_count {
    uint32_t steps;
    double fixed_elapsed_seen;
    uint32_t last_index;
} fixed_count;

static void fixed_sys(rill_app *app, void *user) {
    fixed_count *f = user;
    const rill_app_time *t = rill_app_get_time(app);
    f->steps++;
    f->fixed_elapsed_seen += t->fixed_dt;
    f->last_index = t->fixed_step_index;
}

static void test_fixed_and_variable_time(void **state) {
    (void)state;
    rill_app *app = rill_app_create(&(rill_app_desc){.root = "",
                                                     .fixed_dt = 0.01,
                                                     .max_fixed_steps = 4,
                                                     .max_frame_dt = 0.5,
                                                     .worker_count = 1},
                                    NULL);
    assert_non_null(app);
    fixed_count f = {0};
    rill_app_add_system(
        app, &(rill_system_desc){.stage = RILL_STAGE_FIXED_UPDATE, .fn = fixed_sys, .user = &f});
    const rill_app_time *t = rill_app_get_time(app);
    rill_app_frame_dt(app, 0.025); /* 2 steps, 0.005 left */
    assert_int_equal(f.steps, 2);
    assert_int_equal(t->fixed_steps_this_frame, 2);
    assert_int_equal(f.last_index, 1);
    assert_true(fabs(t->alpha - 0.5) < 1e-9);
    assert_true(fabs(t->dt - 0.025) < 1e-12);
    rill_app_frame_dt(app, 0.006); /* 0.011: one step */
    assert_int_equal(f.steps, 3);
    assert_true(fabs(t->alpha - 0.1) < 1e-9);
    rill_app_frame_dt(app, 0.004); /* 0.005: none */
    assert_int_equal(f.steps, 3);
    assert_int_equal(t->fixed_steps_this_frame, 0);
    /* A long stall: capped at 4 steps; the rest is dropped, not carried into later frames. */
    rill_app_frame_dt(app, 0.2);
    assert_int_equal(f.steps, 7);
    assert_true(t->dropped_steps >= 15);
    assert_true(t->alpha < 1.0);
    rill_app_frame_dt(app, 0.0);
    assert_int_equal(f.steps, 7);
    /* max_frame_dt clamps; negative and NaN read as zero. */
    rill_app_frame_dt(app, 10.0);
    assert_true(t->real_dt == 0.5);
    rill_app_frame_dt(app, -1.0);
    assert_true(t->real_dt == 0.0);
    rill_app_frame_dt(app, NAN);
    assert_true(t->real_dt == 0.0);
    /* In PAUSED and EDIT game time stands still: no fixed steps, dt 0; real time counts. */
    rill_app_set_run_mode(app, RILL_RUN_MODE_PAUSED);
    double elapsed = t->elapsed, real = t->real_elapsed;
    uint32_t before = f.steps;
    rill_app_frame_dt(app, 0.1);
    assert_int_equal(f.steps, before);
    assert_true(t->dt == 0.0);
    assert_true(t->elapsed == elapsed);
    assert_true(t->real_elapsed > real);
    rill_app_set_run_mode(app, RILL_RUN_MODE_PLAY);
    rill_app_frame_dt(app, 0.01);
    assert_int_equal(f.steps, before + 1);
    assert_int_equal(t->frame, 10);
    rill_app_destroy(app);
}

/* Busy for at least *user nanoseconds of the monotonic clock. */
static void busy_sys(rill_app *app, void *user) {
    (void)app;
    uint64_t until = rill_time_ns() + *(const uint64_t *)user;
    while (rill_time_ns() < until) {
    }
}

/* Asleep for *user nanoseconds: wall-clock time without CPU time. */
static void sleep_sys(rill_app *app, void *user) {
    (void)app;
    rill_sleep_ns(*(const uint64_t *)user);
}

/* Each system's time in the last frame, its fixed-update runs summed; a frame where a system does
 * not run reports 0 for it. Thread CPU time (cpu_ns) is what the system ran: never above the wall
 * time, and a system that sleeps has almost none. */
static const rill_system_timing *find_timing(const rill_system_timing *t, uint32_t n,
                                             const char *name) {
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(t[i].name, name) == 0) {
            return &t[i];
        }
    }
    return NULL;
}

static void test_system_timings(void **state) {
    (void)state;
    rill_app *app = rill_app_create(
        &(rill_app_desc){.root = "", .fixed_dt = 0.01, .max_fixed_steps = 4, .worker_count = 1},
        NULL);
    assert_non_null(app);
    uint32_t engine = rill_app_system_timings(app, NULL, 0); /* the app's own systems */
    uint64_t ms2 = 2000000u, ms1 = 1000000u;
    rill_app_add_system(
        app, &(rill_system_desc){
                 .name = "slow", .stage = RILL_STAGE_UPDATE, .fn = busy_sys, .user = &ms2});
    rill_app_add_system(app, &(rill_system_desc){.name = "stepper",
                                                 .stage = RILL_STAGE_FIXED_UPDATE,
                                                 .fn = busy_sys,
                                                 .user = &ms1});
    uint64_t ms5 = 5000000u;
    rill_app_add_system(
        app, &(rill_system_desc){
                 .name = "sleeper", .stage = RILL_STAGE_UPDATE, .fn = sleep_sys, .user = &ms5});
    engine++; /* counted with the app's own below */
    rill_system_timing t[64];
    assert_int_equal(rill_app_system_timings(app, NULL, 0), engine + 2);
    rill_app_frame_dt(app, 0.025); /* two fixed steps */
    uint32_t n = rill_app_system_timings(app, t, 64);
    assert_int_equal(n, engine + 2);
    const rill_system_timing *sleeper = find_timing(t, n, "sleeper");
    assert_non_null(sleeper);
    assert_true(sleeper->ns >= ms5);
    assert_true(sleeper->cpu_ns < ms5 / 2u);
    const rill_system_timing *step = find_timing(t, n, "stepper"),
                             *slow = find_timing(t, n, "slow");
    assert_non_null(step);
    assert_non_null(slow);
    /* Stage order: FIXED_UPDATE runs before UPDATE. */
    assert_true(step < slow);
    assert_int_equal(step->stage, RILL_STAGE_FIXED_UPDATE);
    assert_true(step->ns >= 2 * ms1);
    assert_int_equal(slow->stage, RILL_STAGE_UPDATE);
    assert_true(slow->ns >= ms2);
    assert_true(slow->cpu_ns > 0 && slow->cpu_ns <= slow->ns + 100000u);
    rill_app_frame_dt(app, 0.001); /* no fixed step this frame */
    rill_app_system_timings(app, t, 64);
    assert_int_equal(step->ns, 0);
    assert_true(slow->ns >= ms2);
    assert_int_equal(rill_app_system_timings(app, t, 1), engine + 2); /* writes 1, counts all */
    assert_int_equal(rill_app_system_timings(NULL, t, 8), 0);
    rill_app_destroy(app);
}

/* A clock the test moves by hand. */
static uint64_t fake_now(void *user) {
    return *(uint64_t *)user;
}

static void test_measured_dt_and_determinism(void **state) {
    (void)state;
    uint64_t now = 1000000000u;
    rill_app *app = rill_app_create(
        &(rill_app_desc){.root = "", .clock = {fake_now, &now}, .worker_count = 1}, NULL);
    assert_non_null(app);
    const rill_app_time *t = rill_app_get_time(app);
    rill_app_frame(app); /* first frame: fixed_dt */
    assert_true(fabs(t->real_dt - 1.0 / 60.0) < 1e-12);
    now += 40000000u; /* 40 ms */
    rill_app_frame(app);
    assert_true(fabs(t->real_dt - 0.04) < 1e-9);
    now += 5000000000u; /* 5 s stall: clamped to 0.25 */
    rill_app_frame(app);
    assert_true(t->real_dt == 0.25);
    rill_app_destroy(app);

    /* Deterministic mode: two apps see identical time, whatever the wall clock does. */
    rill_app *a = make_app();
    rill_app *b = make_app();
    assert_int_equal(rill_jobs_worker_count(rill_app_jobs(a)), 0);
    for (int i = 0; i < 30; i++) {
        rill_app_frame(a);
        rill_app_frame(b);
    }
    assert_memory_equal(rill_app_get_time(a), rill_app_get_time(b), sizeof(rill_app_time));
    assert_int_equal(rill_app_get_time(a)->fixed_steps, 30);
    assert_true(fabs(rill_app_get_time(a)->elapsed - 0.5) < 1e-9);
    rill_app_destroy(a);
    rill_app_destroy(b);
}

/* >>events and completions -------------------------------------------------------------------- */

typedef struct ev_state {
    rill_event ev;
    rill_event_reader reader;
    int send_on_frame;
    int received;
    uint64_t received_frame;
    uint32_t visible[8];
} ev_state;

static void ev_sender(rill_app *app, void *user) {
    ev_state *s = user;
    const rill_app_time *t = rill_app_get_time(app);
    if ((int)t->frame == s->send_on_frame) {
        uint32_t payload = 42;
        rill_world_send_event(rill_app_world(app), s->ev, &payload);
    }
}

static void ev_reader(rill_app *app, void *user) {
    ev_state *s = user;
    const rill_app_time *t = rill_app_get_time(app);
    if (t->frame < 8) {
        s->visible[t->frame] = rill_world_event_count(rill_app_world(app), s->ev);
    }
    const uint32_t *p;
    while ((p = rill_event_read(rill_app_world(app), &s->reader)) != NULL) {
        assert_int_equal(*p, 42);
        s->received++;
        s->received_frame = t->frame;
    }
}

static void test_events_swap_per_frame(void **state) {
    (void)state;
    rill_app *app = make_app();
    ev_state s = {0};
    s.ev = rill_world_register_event(rill_app_world(app), "TestEvent", sizeof(uint32_t));
    s.reader.event = s.ev;
    s.send_on_frame = 2;
    /* The reader runs before the sender in the same stage: it sees the event one frame later. */
    rill_app_add_system(
        app,
        &(rill_system_desc){.stage = RILL_STAGE_UPDATE, .order = 0, .fn = ev_reader, .user = &s});
    rill_app_add_system(
        app,
        &(rill_system_desc){.stage = RILL_STAGE_UPDATE, .order = 1, .fn = ev_sender, .user = &s});
    for (int i = 0; i < 6; i++) {
        rill_app_frame(app);
    }
    assert_int_equal(s.received, 1);
    assert_int_equal(s.received_frame, 3);
    /* Visible (to count) in frames 3 (as previous) then gone from frame 4 on. */
    assert_int_equal(s.visible[2], 0);
    assert_int_equal(s.visible[3], 1);
    assert_int_equal(s.visible[4], 0);
    rill_app_destroy(app);
}

typedef struct job_state {
    rill_app *app;
    int completions;
    uint64_t completion_frame;
    int seen_in_update;
} job_state;

static void job_done(void *arg) {
    job_state *s = arg;
    s->completions++;
    s->completion_frame = rill_app_get_time(s->app)->frame;
}

static void job_work(void *arg) {
    job_state *s = arg;
    rill_jobs_post_main(rill_app_jobs(s->app), job_done, s);
}

static void job_check(rill_app *app, void *user) {
    (void)app;
    job_state *s = user;
    s->seen_in_update = s->completions;
}

static void test_job_completions_drained(void **state) {
    (void)state;
    rill_app *app = make_app();
    job_state s = {.app = app};
    rill_app_add_system(
        app, &(rill_system_desc){.stage = RILL_STAGE_UPDATE, .fn = job_check, .user = &s});
    rill_app_frame(app);
    rill_jobs_run(rill_app_jobs(app), job_work, &s, NULL);
    assert_int_equal(s.completions, 0);
    rill_app_frame(app);
    /* Drained in pre_update, so update already sees it. */
    assert_int_equal(s.completions, 1);
    assert_int_equal(s.completion_frame, 1);
    assert_int_equal(s.seen_in_update, 1);
    rill_app_destroy(app);
}

/* >>scene loading through the loop ------------------------------------------------------------ */

typedef struct load_watch {
    rill_event loaded, failed;
    rill_event_reader rl, rf;
    int loaded_events, failed_events;
} load_watch;

static void watch_sys(rill_app *app, void *user) {
    load_watch *w = user;
    while (rill_event_read(rill_app_world(app), &w->rl)) {
        w->loaded_events++;
    }
    while (rill_event_read(rill_app_world(app), &w->rf)) {
        w->failed_events++;
    }
}

/* An empty folder `name` under RILL_TEST_TMP (or /tmp/rill_test_app), written to dir. */
static void fresh_dir(char *dir, size_t cap, const char *name) {
    const char *tmp = getenv("RILL_TEST_TMP");
    snprintf(dir, cap, "%s/%s", tmp ? tmp : "/tmp/rill_test_app", name);
    rill_dir_remove_all(dir, NULL);
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
}

/* Deterministic mode budgets count work, not time (the app's step clock): two runs of the same
 * budgeted load report the same progress after every frame (a measured 20 us budget split each
 * run its own way), and the load spreads over many frames. */
static void test_deterministic_load_split(void **state) {
    (void)state;
    char dir[512], path[600];
    fresh_dir(dir, sizeof(dir), "split_root");
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    for (int i = 1; i <= 300; i++) {
        rill_strbuf_printf(&sb, "entity %d \"e%d\" {\n    Transform {}\n}\n", i, i);
    }
    snprintf(path, sizeof(path), "%s/main.rsn", dir);
    assert_int_equal(rill_file_write_all(path, sb.data, sb.len, NULL), RILL_OK);
    rill_strbuf_free(&sb);
    enum { MAX_FRAMES = 2000 };
    static float progress[2][MAX_FRAMES];
    int frames[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
        rill_app *app = rill_app_create(
            &(rill_app_desc){.root = dir, .deterministic = true, .scene_budget_ns = 20000}, NULL);
        assert_non_null(app);
        rill_scene_load h = rill_scene_load_async(rill_app_scenes(app), "main.rsn", NULL);
        assert_int_not_equal(h.id, 0);
        while (rill_scene_load_get_state(rill_app_scenes(app), h) != RILL_SCENE_LOAD_LOADED &&
               frames[run] < MAX_FRAMES) {
            rill_app_frame(app);
            progress[run][frames[run]++] = rill_scene_load_progress(rill_app_scenes(app), h);
        }
        assert_int_equal(rill_world_entity_count(rill_app_world(app)), 300);
        rill_app_destroy(app);
    }
    assert_true(frames[0] > 5 && frames[0] < MAX_FRAMES);
    assert_int_equal(frames[0], frames[1]);
    assert_memory_equal(progress[0], progress[1], sizeof(float) * (size_t)frames[0]);
    rill_dir_remove_all(dir, NULL);
}

/* The streaming work the loader does not do (the stream update, texture streaming noted with
 * rill_app_add_streaming_ns) comes off the next frame's loader budget: 2.5 of 3 ms noted leaves
 * the floor (a quarter), 1 ms noted leaves 2 ms less the stream update, none noted about all of
 * it; a deterministic app keeps the whole budget (its budgets count steps). */
static void test_streaming_budget_shared(void **state) {
    (void)state;
    const uint64_t ms = 1000000u;
    for (int det = 0; det < 2; det++) {
        rill_app *app = rill_app_create(
            &(rill_app_desc){.root = "", .deterministic = det, .scene_budget_ns = 3 * ms}, NULL);
        assert_non_null(app);
        assert_int_equal(rill_app_streaming_budget_ns(app), 3 * ms);
        rill_app_frame(app);
        rill_app_add_streaming_ns(app, 5 * ms / 2);
        rill_app_frame(app);
        uint64_t spent = rill_app_streaming_budget_ns(app);
        rill_app_add_streaming_ns(app, ms);
        rill_app_frame(app);
        uint64_t some = rill_app_streaming_budget_ns(app);
        rill_app_frame(app);
        uint64_t none = rill_app_streaming_budget_ns(app);
        print_message(
            "loader budget: %llu ns after 2.5 ms noted, %llu after 1 ms, %llu after none\n",
            (unsigned long long)spent, (unsigned long long)some, (unsigned long long)none);
        if (det) {
            assert_true(spent == 3 * ms && some == 3 * ms && none == 3 * ms);
        } else {
            assert_int_equal(spent, 3 * ms / 4);
            assert_true(some <= 2 * ms && some > 3 * ms / 2);
            assert_true(none <= 3 * ms && none > 5 * ms / 2);
        }
        assert_true(rill_app_streaming_budget_left_ns(app) <= none);
        rill_app_destroy(app);
    }
}

/* Notes *(uint64_t *)user ns of streaming work when it runs. */
static void note_sys(rill_app *app, void *user) {
    rill_app_add_streaming_ns(app, *(const uint64_t *)user);
}

/* The frame's streaming ledger: what a system notes is part of the frame's streaming work
 * (rill_app_last_streaming_ns), and the stream update after it gets the streaming budget less the
 * frame's work so far and less what the last frame noted after its stream update (the texture
 * streaming); spent, 0 (its streamers then do one unit each). A deterministic app gives the
 * stream no time limit. */
static void test_streaming_ledger(void **state) {
    (void)state;
    const uint64_t ms = 1000000u;
    uint64_t early = 0, late = 0;
    for (int det = 0; det < 2; det++) {
        rill_app *app = rill_app_create(
            &(rill_app_desc){.root = "", .deterministic = det, .scene_budget_ns = 3 * ms}, NULL);
        assert_non_null(app);
        rill_app_add_system(
            app, &(rill_system_desc){
                     .name = "early", .stage = RILL_STAGE_UPDATE, .fn = note_sys, .user = &early});
        rill_app_add_system(
            app, &(rill_system_desc){
                     .name = "late", .stage = RILL_STAGE_EXTRACT, .fn = note_sys, .user = &late});
        rill_stream *s = rill_app_stream(app);
        early = ms, late = 0;
        rill_app_frame(app);
        assert_true(rill_app_last_streaming_ns(app) >= ms);
        uint64_t after_one = rill_stream_budget_left_ns(s);
        early = 5 * ms;
        rill_app_frame(app);
        assert_true(rill_app_last_streaming_ns(app) >= 5 * ms);
        uint64_t spent = rill_stream_budget_left_ns(s);
        early = 0, late = 2 * ms;
        rill_app_frame(app);
        assert_true(rill_app_last_streaming_ns(app) >= 2 * ms);
        late = 0;
        rill_app_frame(app);
        uint64_t after_late = rill_stream_budget_left_ns(s);
        print_message("stream budget: %llu ns after 1 ms noted, %llu after 5, %llu after 2 late\n",
                      (unsigned long long)after_one, (unsigned long long)spent,
                      (unsigned long long)after_late);
        /* Room reserved for work that waited: the next loader budget gives it up, down to a
         * sixteenth of the budget. */
        rill_app_reserve_streaming_ns(app, ms);
        rill_app_frame(app);
        uint64_t reserved = rill_app_streaming_budget_ns(app);
        rill_app_reserve_streaming_ns(app, 10 * ms);
        rill_app_frame(app);
        uint64_t floor = rill_app_streaming_budget_ns(app);
        if (det) {
            assert_true(after_one == RILL_STREAM_NO_BUDGET && spent == RILL_STREAM_NO_BUDGET &&
                        after_late == RILL_STREAM_NO_BUDGET);
            assert_true(reserved == 3 * ms && floor == 3 * ms);
        } else {
            assert_true(after_one <= 2 * ms);
            assert_int_equal(spent, 0);
            assert_true(after_late <= ms);
            assert_true(reserved <= 2 * ms);
            assert_int_equal(floor, 3 * ms / 16);
        }
        rill_app_destroy(app);
    }
}

static void test_async_scene_load_in_loop(void **state) {
    (void)state;
    char dir[512], path[600];
    fresh_dir(dir, sizeof(dir), "scene_root");
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    for (int i = 1; i <= 500; i++) {
        rill_strbuf_printf(
            &sb,
            "\nentity %d%s \"e%d\" {\n    Transform {\n        translation: (%d, 0, 0)\n    }\n}\n",
            i, i > 1 ? " parent 1" : "", i, i);
    }
    snprintf(path, sizeof(path), "%s/main.rsn", dir);
    assert_int_equal(rill_file_write_all(path, sb.data, sb.len, NULL), RILL_OK);
    rill_strbuf_free(&sb);

    rill_error err = {0};
    /* A tiny budget, so the load must spread over several frames. */
    rill_app *app = rill_app_create(
        &(rill_app_desc){.root = dir, .deterministic = true, .scene_budget_ns = 20000}, &err);
    assert_non_null(app);
    load_watch w = {0};
    rill_scene_loader_events(rill_app_scenes(app), &w.loaded, &w.failed);
    w.rl.event = w.loaded;
    w.rf.event = w.failed;
    rill_app_add_system(
        app, &(rill_system_desc){.stage = RILL_STAGE_UPDATE, .fn = watch_sys, .user = &w});
    rill_scene_load h = rill_scene_load_async(rill_app_scenes(app), "main.rsn", &err);
    assert_int_not_equal(h.id, 0);
    float last = 0.0f;
    int frames = 0;
    while (rill_scene_load_get_state(rill_app_scenes(app), h) != RILL_SCENE_LOAD_LOADED &&
           frames < 10000) {
        rill_app_frame(app);
        float p = rill_scene_load_progress(rill_app_scenes(app), h);
        assert_true(p >= last);
        last = p;
        frames++;
        assert_int_not_equal(rill_scene_load_get_state(rill_app_scenes(app), h),
                             RILL_SCENE_LOAD_FAILED);
    }
    assert_true(frames > 2);
    assert_int_equal(rill_world_entity_count(rill_app_world(app)), 500);
    for (int i = 0; i < 3; i++) {
        rill_app_frame(app);
    }
    assert_int_equal(w.loaded_events, 1);
    assert_int_equal(w.failed_events, 0);
    /* Transforms were propagated by the loop's post_update. */
    rill_entity e = rill_world_find_by_name(rill_app_world(app), "e7");
    const float *m = rill_world_global_matrix(rill_app_world(app), e);
    assert_non_null(m);
    assert_true(fabsf(m[12] - 8.0f) < 1e-4f); /* 1 (parent) + 7 */

    /* The boot load is synchronous: the world is complete when it returns. */
    rill_project proj;
    rill_project_defaults(&proj);
    snprintf(proj.main_scene, sizeof(proj.main_scene), "main.rsn");
    rill_app *boot = rill_app_create(
        &(rill_app_desc){.root = dir, .deterministic = true, .project = &proj}, &err);
    assert_non_null(boot);
    assert_int_equal(rill_app_load_main_scene(boot, &err), RILL_OK);
    assert_int_equal(rill_world_entity_count(rill_app_world(boot)), 500);
    rill_app_destroy(boot);
    rill_app *empty = make_app();
    assert_int_equal(rill_app_load_main_scene(empty, &err), RILL_OK); /* no main scene: no-op */
    assert_int_equal(rill_world_entity_count(rill_app_world(empty)), 0);
    rill_app_destroy(empty);

    /* A missing file fails through the failed-event, once. */
    rill_log_set_level(RILL_LOG_NONE);
    h = rill_scene_load_async(rill_app_scenes(app), "missing.rsn", &err);
    for (int i = 0; i < 10; i++) {
        rill_app_frame(app);
    }
    rill_log_set_level(RILL_LOG_INFO);
    assert_int_equal(rill_scene_load_get_state(rill_app_scenes(app), h), RILL_SCENE_LOAD_FAILED);
    assert_int_equal(w.failed_events, 1);
    rill_app_destroy(app);
}

static void exit_at_five(rill_app *app, void *user) {
    (void)user;
    if (rill_app_get_time(app)->frame == 4) {
        rill_app_request_exit(app);
    }
}

static void test_run_until_exit(void **state) {
    (void)state;
    rill_app *app = make_app();
    assert_int_equal(rill_app_run(app, 3), 3);
    assert_false(rill_app_exit_requested(app));
    rill_app_add_system(app, &(rill_system_desc){.stage = RILL_STAGE_UPDATE, .fn = exit_at_five});
    /* Frames 3 and 4 run; the request made in frame 4 stops the loop. */
    assert_int_equal(rill_app_run(app, 0), 2);
    assert_true(rill_app_exit_requested(app));
    assert_int_equal(rill_app_run(app, 0), 0);
    assert_true(rill_app_last_frame_ns(app) > 0);
    assert_true(rill_app_last_frame_ns(app) >= rill_app_last_stage_ns(app, RILL_STAGE_UPDATE));
    assert_string_equal(rill_stage_name(RILL_STAGE_POST_UPDATE), "post_update");
    rill_app_destroy(app);
}

static void test_create_errors(void **state) {
    (void)state;
    rill_error err = {0};
    assert_null(rill_app_create(&(rill_app_desc){.root = "/nonexistent/rill/folder"}, &err));
    assert_int_not_equal(err.code, RILL_OK);
    assert_null(rill_app_create(&(rill_app_desc){.root = "", .pack = "/nonexistent/x.rpak"}, &err));
    assert_non_null(strstr(err.msg, "x.rpak"));
    assert_null(rill_app_create(&(rill_app_desc){.start_canary = 1}, &err));
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
    assert_null(rill_app_create(&(rill_app_desc){.run_mode = (rill_run_mode)77}, &err));
    rill_app_desc d = rill_app_query_defaults();
    assert_int_equal(d.run_mode, RILL_RUN_MODE_GAME);
    assert_true(d.fixed_dt == 1.0 / 60.0);
    assert_int_equal(d.max_fixed_steps, 8);
    /* The project is copied. */
    rill_project p;
    rill_project_defaults(&p);
    p.window.width = 640;
    rill_app *app =
        rill_app_create(&(rill_app_desc){.root = "", .project = &p, .deterministic = true}, &err);
    assert_non_null(app);
    p.window.width = 1;
    assert_int_equal(rill_app_project(app)->window.width, 640);
    rill_app_destroy(app);
    rill_app_destroy(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gate_table),
        cmocka_unit_test(test_streaming_off_fires_once),
        cmocka_unit_test(test_camera_pick),
        cmocka_unit_test(test_app_streaming_camera_position),
        cmocka_unit_test(test_stage_and_system_order),
        cmocka_unit_test(test_add_remove_during_frame),
        cmocka_unit_test(test_fixed_and_variable_time),
        cmocka_unit_test(test_system_timings),
        cmocka_unit_test(test_measured_dt_and_determinism),
        cmocka_unit_test(test_events_swap_per_frame),
        cmocka_unit_test(test_job_completions_drained),
        cmocka_unit_test(test_async_scene_load_in_loop),
        cmocka_unit_test(test_deterministic_load_split),
        cmocka_unit_test(test_streaming_budget_shared),
        cmocka_unit_test(test_streaming_ledger),
        cmocka_unit_test(test_run_until_exit),
        cmocka_unit_test(test_create_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
