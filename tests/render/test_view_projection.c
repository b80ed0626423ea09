/* test_view_projection.c: degenerate camera values (near >= far, zero or negative fov, NaN, inf)
 * resolve to a finite, invertible projection with a warning; valid values pass unchanged. */
#include "rill_test.h"
#include "view_projection.h"

#include <math.h>

#include <cglm/cglm.h>
#include <cglm/clipspace/ortho_rh_zo.h>
#include <cglm/clipspace/persp_rh_zo.h>

static uint32_t warnings;

static void count_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)module;
    (void)msg;
    (void)user;
    if (level == RILL_LOG_WARN) {
        warnings++;
    }
}

/* Both matrices built from pr are finite and invertible. */
static void expect_valid(const rill__projection *pr, const float in[4]) {
    mat4 m[2];
    glm_perspective_rh_zo(pr->fov_y, 16.0f / 9.0f, pr->znear, pr->zfar, m[0]);
    glm_ortho_rh_zo(-pr->half_h, pr->half_h, -pr->half_h, pr->half_h, pr->znear, pr->zfar, m[1]);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 16; i++) {
            if (!isfinite(m[k][i / 4][i % 4])) {
                fail_msg("input (%g, %g, %g, %g): matrix %d element %d is %g", (double)in[0],
                         (double)in[1], (double)in[2], (double)in[3], k, i,
                         (double)m[k][i / 4][i % 4]);
            }
        }
        if (fabsf(glm_mat4_det(m[k])) == 0.0f) {
            fail_msg("input (%g, %g, %g, %g): matrix %d is singular", (double)in[0], (double)in[1],
                     (double)in[2], (double)in[3], k);
        }
    }
    assert_true(pr->znear > 0.0f && pr->zfar > pr->znear);
}

static void test_degenerate_cameras_clamp(void **state) {
    (void)state;
    rill_log_set_sink(count_sink, NULL);
    const float bad[][4] = {
        {0.8f, 5.0f, 1.0f, 10.0f},        /* near > far */
        {0.8f, 2.0f, 2.0f, 10.0f},        /* near == far */
        {0.8f, 5000.0f, 1000.0f, 10.0f},  /* near past the default far */
        {-1.0f, 0.1f, 100.0f, 10.0f},     /* negative fov */
        {NAN, NAN, NAN, NAN},             /* NaN everywhere */
        {INFINITY, 0.1f, INFINITY, 1.0f}, /* inf fov and far */
        {4.0f, 0.1f, 100.0f, 10.0f},      /* fov past pi */
        {0.8f, -0.1f, 100.0f, -3.0f},     /* negative near and ortho height */
        {0.8f, 1e30f, 0.0f, 10.0f},       /* near too far away */
    };
    for (size_t i = 0; i < RILL_COUNTOF(bad); i++) {
        uint32_t before = warnings;
        rill__projection pr;
        assert_true(rill__projection_resolve(bad[i], &pr));
        expect_valid(&pr, bad[i]);
        assert_int_equal(warnings, before + 1u); /* each distinct input warns once */
        assert_true(rill__projection_resolve(bad[i], &pr));
        assert_int_equal(warnings, before + 1u); /* and not again next frame */
    }
    rill_log_set_sink(NULL, NULL);
}

static void test_valid_and_default_cameras_pass(void **state) {
    (void)state;
    rill_log_set_sink(count_sink, NULL);
    uint32_t before = warnings;
    rill__projection pr;
    const float zero[4] = {0, 0, 0, 0};
    assert_false(rill__projection_resolve(zero, &pr));
    assert_true(pr.fov_y == 0.8f && pr.znear == 0.1f && pr.zfar == 1000.0f && pr.half_h == 5.0f);
    const float ok[4] = {1.2f, 0.01f, 5000.0f, 4.0f};
    assert_false(rill__projection_resolve(ok, &pr));
    assert_true(pr.fov_y == 1.2f && pr.znear == 0.01f && pr.zfar == 5000.0f && pr.half_h == 2.0f);
    expect_valid(&pr, ok);
    assert_int_equal(warnings, before);
    rill_log_set_sink(NULL, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_degenerate_cameras_clamp),
        cmocka_unit_test(test_valid_and_default_cameras_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
