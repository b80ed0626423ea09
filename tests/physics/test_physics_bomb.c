/* Physics bombs (issue 32, docs/limits.md "Physics"): many dynamic boxes overlapping at one point
 * touch every other box, so the touching pairs grow with the square of their number. The step
 * caps the contacts it creates (max_step_contacts), so 1,000 such boxes step in bounded time and
 * memory and the step reports what it left out; a world full of colliders refuses the next one
 * with a message naming the max_colliders limit. */
#include "rill_test.h"

#include "rill/physics.h"

#include <sys/resource.h>

static double now_s(void) {
    return (double)rill_time_ns() * 1e-9;
}

static long peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

/* n dynamic unit boxes, every one at the origin. */
static void spawn_boxes_at_one_point(rill_world *w, rill_physics_components c, uint32_t n) {
    rill_collider col;
    rill_type_apply_defaults(rill_world_component_type(w, c.collider), &col);
    rill_rigid_body rb;
    rill_type_apply_defaults(rill_world_component_type(w, c.rigid_body), &rb);
    for (uint32_t i = 0; i < n; i++) {
        rill_entity e = rill_world_spawn(w);
        rill_transform t = rill_transform_identity();
        rill_world_set_transform(w, e, &t);
        assert_non_null(rill_world_add(w, e, c.collider, &col));
        assert_non_null(rill_world_add(w, e, c.rigid_body, &rb));
    }
}

static void test_thousand_boxes_at_one_point(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_physics_desc d = {.world = w};
    rill_physics *phys = rill_physics_create(&d, NULL);
    assert_non_null(phys);
    rill_physics_components c = rill_physics_register(w);
    spawn_boxes_at_one_point(w, c, 1000);
    double t0 = now_s();
    rill_physics_stats st;
    for (int frame = 0; frame < 3; frame++) {
        rill_physics_step(phys, 1.0 / 60.0);
        rill_physics_get_stats(phys, &st);
        assert_int_equal(st.bodies, 1000);
        /* 499,500 touching pairs: the step keeps the cap and counts the rest. */
        assert_true(st.contacts <= rill_physics_query_defaults().max_step_contacts);
        if (frame == 0) {
            assert_true(st.contacts_dropped > 0);
        }
    }
    double secs = now_s() - t0;
    long rss = peak_rss_mb();
    print_message("1000 boxes at one point: 3 steps in %.2f s, peak RSS %ld MB, %u contacts, "
                  "%u pairs over the cap\n",
                  secs, rss, st.contacts, st.contacts_dropped);
    /* Before the cap: 61 s and 2.5 GB on the 2-core dev box. Generous bounds for a loaded CI. */
    assert_true(secs < 30.0);
    assert_true(rss < 512);
    rill_physics_destroy(phys);
    rill_world_destroy(w);
}

static void test_collider_cap_named(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_physics_desc d = {.world = w, .max_colliders = 64};
    rill_physics *phys = rill_physics_create(&d, NULL);
    assert_non_null(phys);
    rill_physics_components c = rill_physics_register(w);
    spawn_boxes_at_one_point(w, c, 100);
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    rill_physics_step(phys, 1.0 / 60.0);
    rill_test_log_end(&cap);
    rill_physics_stats st;
    rill_physics_get_stats(phys, &st);
    assert_int_equal(st.bodies, 64);
    assert_int_equal(st.refused, 36);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_ERROR), 36);
    assert_true(rill_test_log_last_has(&cap, "max_colliders limit"));
    rill_physics_destroy(phys);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thousand_boxes_at_one_point),
        cmocka_unit_test(test_collider_cap_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
