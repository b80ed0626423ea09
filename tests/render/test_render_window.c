/* test_render_window.c: the windowed path on a virtual X display (run under xvfb-run): GLFW
 * surface, swapchain, acquire/present with vsync off (MAILBOX or IMMEDIATE) and on (FIFO), a
 * vsync switch at runtime (rill_renderer_set_vsync: the swapchain is made again with the other
 * present mode), and swapchain re-creation after a window resize. Validation on; any message fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "rill/render.h"

static void run_window(bool vsync) {
    if (!glfwInit()) {
        fail_msg("glfwInit failed (no display? run under xvfb-run)");
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    GLFWwindow *win = glfwCreateWindow(160, 120, "rill test", NULL, NULL);
    assert_non_null(win);
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.glfw_window = win;
    d.vsync = vsync;
    d.validation = 1;
    rill_renderer *r = NULL;
    rill_error err = {0};
    if (!(r = rill_renderer_create(&d, &err))) {
        fail_msg("%s", err.msg);
    }
    rill_mesh cube = rill_render_mesh_cube(r, &err);
    rill_material mat = rill_render_material_create(r, NULL, &err);
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = 1;
    in.mesh = cube;
    in.material = mat;
    for (int i = 0; i < 16; i++) {
        in.transform[i] = (i % 5 == 0) ? 1.0f : 0.0f;
    }
    in.transform[14] = -3.0f;
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    snap.instances = &in;
    snap.instance_count = 1;
    snap.has_sun = true;
    snap.sun.direction[1] = -1.0f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 2.0f;
    snap.sun.shadows = true;
    rill_renderer_settings rs;
    for (int f = 0; f < 12; f++) {
        if (f == 6) {
            glfwSetWindowSize(win, 200, 100); /* the swapchain must follow */
        }
        if (f == 3 || f == 9) {
            rill_renderer_set_vsync(r, f == 3 ? !vsync : vsync); /* and a vsync switch */
        }
        glfwPollEvents();
        if (rill_renderer_render(r, &snap, &err) != RILL_OK) {
            fail_msg("frame %d: %s", f, err.msg);
        }
        rill_renderer_get_settings(r, &rs);
        bool want_fifo = (f >= 3 && f < 9) ? !vsync : vsync;
        if (want_fifo != (strcmp(rs.present_mode, "fifo") == 0)) {
            fail_msg("frame %d: present mode %s with vsync %d", f, rs.present_mode, want_fifo);
        }
    }
    assert_int_equal(rill_renderer_wait_idle(r, &err), RILL_OK);
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(win, &fw, &fh);
    uint32_t w = 0, h = 0;
    rill_renderer_size(r, &w, &h);
    assert_int_equal(w, (uint32_t)fw); /* the renderer follows the window */
    assert_int_equal(h, (uint32_t)fh);
    uint8_t px[4];
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_ERR_UNSUPPORTED);
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    assert_int_equal(st.validation_messages, 0);
    assert_int_equal(st.instances_visible, 1);
    rill_renderer_destroy(r);
    glfwDestroyWindow(win);
    glfwTerminate();
}

static void test_window_vsync_off(void **state) {
    (void)state;
    run_window(false);
}

static void test_window_vsync_on(void **state) {
    (void)state;
    run_window(true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_vsync_off),
        cmocka_unit_test(test_window_vsync_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
