/* test_gate.c: the stream object's gate (restore runs once per closing, the event, the published
 * state), streamer registration, and the distance helpers (nearest point of a box, transformed
 * boxes). */
#include "stream_fixture.h"

#include <math.h>

typedef struct counts {
    uint32_t updates, restores;
    bool last_active;
} counts;

static void on_update(rill_stream *s, const rill_streaming_state *st, void *user) {
    (void)s;
    counts *c = user;
    c->updates++;
    c->last_active = st->active;
}

static void on_restore(rill_stream *s, void *user) {
    counts *c = user;
    c->restores++;
    assert_false(rill_stream_active(s)); /* restore sees the closed gate */
}

static void test_gate_restores_once_per_closing(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_error err = {0};
    rill_stream *s = rill_stream_create(&(rill_stream_desc){.world = w}, &err);
    assert_non_null(s);
    assert_int_equal(rill_stream_get_mode(s), RILL_RUN_MODE_GAME);
    counts c = {0};
    assert_true(rill_stream_add_streamer(
        s, &(rill_streamer_desc){
               .name = "t", .update = on_update, .restore = on_restore, .user = &c}));
    assert_false(rill_stream_add_streamer(s, &(rill_streamer_desc){.name = "no update"}));
    rill_event_reader rd = {.event = rill_stream_off_event(s)};

    assert_true(rill_stream_set_mode(s, RILL_RUN_MODE_PLAY));
    assert_false(rill_stream_set_mode(s, RILL_RUN_MODE_PLAY)); /* no change */
    assert_true(rill_stream_set_mode(s, RILL_RUN_MODE_PAUSED));
    assert_int_equal(c.restores, 0);
    assert_true(rill_stream_set_mode(s, RILL_RUN_MODE_EDIT)); /* closes: once */
    assert_int_equal(c.restores, 1);
    assert_true(rill_stream_set_mode(s, RILL_RUN_MODE_SERVER)); /* already closed */
    assert_int_equal(c.restores, 1);
    assert_true(rill_stream_set_mode(s, RILL_RUN_MODE_SIMULATE));
    assert_true(rill_stream_set_mode(s, RILL_RUN_MODE_SERVER)); /* closes again */
    assert_int_equal(c.restores, 2);
    assert_int_equal(rill_stream_off_count(s), 2);
    assert_false(rill_stream_set_mode(s, RILL_RUN_MODE_DEFAULT));
    assert_false(rill_stream_set_mode(s, (rill_run_mode)77));

    uint32_t events = 0;
    rill_world_update_events(w);
    while (rill_event_read(w, &rd)) {
        events++;
    }
    assert_int_equal(events, 2);

    const rill_streaming_state *st = rill_stream_state(s);
    assert_false(st->active);
    assert_int_equal(st->run_mode, RILL_RUN_MODE_SERVER);
    assert_int_equal(st->off_count, 2);
    /* The resource is reflected by name for modules that do not see the struct. */
    assert_true(rill_world_find_resource(w, "StreamingState").id != 0);

    rill_stream_update(s);
    assert_int_equal(c.updates, 1);
    assert_false(c.last_active);
    rill_stream_set_mode(s, RILL_RUN_MODE_GAME);
    rill_stream_update(s);
    assert_true(c.last_active);
    rill_stream_destroy(s);
    rill_world_destroy(w);
}

static void test_camera_position_published(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_stream *s =
        rill_stream_create(&(rill_stream_desc){.world = w, .run_mode = RILL_RUN_MODE_PLAY}, NULL);
    rill_stream_update(s);
    assert_int_equal(rill_stream_state(s)->camera, RILL_ENTITY_NULL);
    rill_entity cam = rill_world_spawn(w);
    rill_camera c = {.active = true, .role = RILL_CAMERA_ROLE_GAME};
    rill_world_add(w, cam, rill_world_builtin(w)->camera, &c);
    rill_transform t = {.translation = {3, 4, 5}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}};
    rill_world_set_transform(w, cam, &t);
    rill_world_update_transforms(w);
    rill_stream_update(s);
    assert_int_equal(rill_stream_state(s)->camera, cam);
    assert_true(rill_stream_state(s)->camera_position[2] == 5.0f);
    rill_stream_set_mode(s, RILL_RUN_MODE_EDIT); /* closed gate: no camera */
    assert_int_equal(rill_stream_state(s)->camera, RILL_ENTITY_NULL);
    rill_stream_destroy(s);
    rill_world_destroy(w);
}

static void test_distance_to_box(void **state) {
    (void)state;
    const float mn[3] = {-10, 0, -10}, mx[3] = {10, 5, 10};
    assert_true(rill_stream_distance_to_box((float[3]){0, 1, 0}, mn, mx) == 0.0f); /* inside */
    assert_true(rill_stream_distance_to_box((float[3]){13, 1, 0}, mn, mx) == 3.0f);
    assert_true(fabsf(rill_stream_distance_to_box((float[3]){13, 9, 0}, mn, mx) - 5.0f) < 1e-5f);
    assert_true(rill_stream_distance_to_box((float[3]){0, 0, -30}, mn, mx) == 20.0f);
    /* A box rotated 90 degrees about y and moved: x extent becomes z extent. */
    const float m[16] = {0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 100, 0, 0, 1};
    float wmin[3], wmax[3];
    rill_stream_box_transform(m, (float[3]){-1, 0, -4}, (float[3]){1, 2, 4}, wmin, wmax);
    assert_true(wmin[0] == 96.0f && wmax[0] == 104.0f);
    assert_true(wmin[2] == -1.0f && wmax[2] == 1.0f);
    assert_true(wmin[1] == 0.0f && wmax[1] == 2.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gate_restores_once_per_closing),
        cmocka_unit_test(test_camera_position_published),
        cmocka_unit_test(test_distance_to_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
