/* test_null_backend.c: the null GPU backend (src/render/null, RILL_RENDER_BACKEND_NULL), with no
 * Vulkan driver:
 *   - through gpu.h: uploads become ready in the frame that records them, in order, under the
 *     per-frame byte budget (the first of a frame always goes); destroyed objects stay alive until
 *     the frame being recorded ends; host-visible bytes are real (uploads, buffer copies);
 *   - its command checks: a draw outside rendering or without a pipeline, a push beyond the
 *     pipeline's push constants, a transient set missing a binding, a scope left open at frame
 *     end each count as a validation message, and a correct command stream counts none;
 *   - RILL_NULL_STORAGE_RANGE raises the storage range it reports (within Vulkan's limits); a
 *     value that is not a byte count in range keeps Vulkan's minimum;
 *   - through the public API: a renderer on it draws a lit scene (culling counts, draw calls, no
 *     validation message, GPU objects made on the first frame and none on a steady one), reads
 *     back zeros, refuses a window and a bad RILL_RENDER_BACKEND.
 * Reads the renderer's GPU interface (gpu.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <stdlib.h>
#include <string.h>

#include "gpu.h"

/* A minimal SPIR-V module header: enough for the null backend's pipeline check. */
static const uint32_t spirv[5] = {0x07230203u, 0x00010000u, 0u, 1u, 0u};

static rill__gpu *null_gpu(uint64_t budget) {
    rill__gpu_desc d = {
        .backend = RILL_RENDER_BACKEND_NULL, .frames_in_flight = 2, .upload_budget_bytes = budget};
    rill__gpu *gpu = NULL;
    rill_error err = {0};
    assert_int_equal(rill__gpu_create(&d, &gpu, &err), RILL_OK);
    assert_string_equal(rill__gpu_get_caps(gpu)->device_name, "null (no GPU)");
    return gpu;
}

static void frame(rill__gpu *gpu, void (*record)(rill__cmd *cmd, void *user), void *user) {
    rill__cmd *cmd = NULL;
    rill_error err = {0};
    assert_int_equal(rill__frame_begin(gpu, &cmd, &err), RILL_OK);
    if (record) {
        record(cmd, user);
    }
    assert_int_equal(rill__frame_end(gpu, cmd, &err), RILL_OK);
}

static void test_uploads_under_the_budget(void **state) {
    (void)state;
    rill__gpu *gpu = null_gpu(4096);
    rill_error err = {0};
    static uint8_t bytes[3000];
    rill__buf *a = rill__buf_create(gpu, 3000, RILL__BUF_VERTEX, false, "a", &err);
    rill__buf *b = rill__buf_create(gpu, 3000, RILL__BUF_VERTEX, false, "b", &err);
    assert_int_equal(rill__buf_upload(gpu, a, 0, bytes, 3000, &err), RILL_OK);
    assert_int_equal(rill__buf_upload(gpu, b, 0, bytes, 3000, &err), RILL_OK);
    assert_int_not_equal(rill__buf_upload(gpu, b, 1, bytes, 3000, &err), RILL_OK); /* range */
    assert_false(rill__buf_ready(a) || rill__buf_ready(b));
    frame(gpu, NULL, NULL); /* a: 3008 of 4096; b's first 1088 bytes fill the rest */
    assert_true(rill__buf_ready(a));
    assert_false(rill__buf_ready(b));
    assert_false(rill__buf_seq_done(b, rill__buf_upload_seq(b)));
    assert_int_equal(rill__gpu_uploaded_last_frame(gpu), 3000 + 1088);
    frame(gpu, NULL, NULL);
    assert_int_equal(rill__gpu_uploaded_last_frame(gpu), 3000 - 1088);
    assert_true(rill__buf_ready(b) && rill__buf_seq_done(b, rill__buf_upload_seq(b)));
    /* An image larger than the budget goes in row bands over the next frames, each within the
     * budget, and is ready only with the last one. */
    rill__img_desc id = {.width = 64,
                         .height = 64,
                         .layers = 1,
                         .mips = 1,
                         .format = RILL_RG_FORMAT_RGBA8_UNORM,
                         .usage = RILL__IMG_SAMPLED | RILL__IMG_TRANSFER_DST,
                         .label = "big"};
    rill__img *img = rill__img_create(gpu, &id, &err);
    static uint8_t pixels[64 * 64 * 4];
    const void *level = pixels;
    uint64_t wrong = sizeof(pixels) - 4, right = sizeof(pixels);
    assert_int_not_equal(rill__img_upload_levels(gpu, img, 0, 1, &level, &wrong, &err), RILL_OK);
    assert_int_equal(rill__img_upload_levels(gpu, img, 0, 1, &level, &right, &err), RILL_OK);
    for (int f = 0; f < 4; f++) {
        assert_false(rill__img_ready(img));
        frame(gpu, NULL, NULL);
        assert_int_equal(rill__gpu_uploaded_last_frame(gpu), 4096);
    }
    assert_true(rill__img_ready(img));
    /* So does a buffer: 3x the budget is three frames, and its upload is done with the third. */
    static uint8_t big[3 * 4096];
    rill__buf *c = rill__buf_create(gpu, sizeof(big), RILL__BUF_VERTEX, false, "c", &err);
    assert_int_equal(rill__buf_upload(gpu, c, 0, big, sizeof(big), &err), RILL_OK);
    for (int f = 0; f < 3; f++) {
        assert_false(rill__buf_ready(c) || rill__buf_seq_done(c, rill__buf_upload_seq(c)));
        frame(gpu, NULL, NULL);
        assert_int_equal(rill__gpu_uploaded_last_frame(gpu), 4096);
        rill__upload_figures fig;
        rill__gpu_upload_figures(gpu, &fig);
        assert_int_equal(fig.uploads, 1);
        assert_int_equal(fig.backlog_bytes, sizeof(big) - 4096u * (uint64_t)(f + 1));
    }
    assert_true(rill__buf_ready(c) && rill__buf_seq_done(c, rill__buf_upload_seq(c)));
    rill__buf_destroy(gpu, c);
    rill__img_destroy(gpu, img);
    rill__buf_destroy(gpu, a);
    rill__buf_destroy(gpu, b);
    rill__gpu_mem_stats st;
    rill__gpu_mem_stats_get(gpu, &st);
    assert_int_equal(st.allocations, 2); /* the two frame scratch buffers */
    assert_int_equal(rill__gpu_validation_messages(gpu), 0);
    rill__gpu_destroy(gpu);
}

typedef struct copy_case {
    rill__gpu *gpu;
    rill__buf *src, *dst;
    uint32_t live_in_frame;
} copy_case;

static void record_copy(rill__cmd *cmd, void *user) {
    copy_case *c = user;
    rill__cmd_copy_buffer(cmd, c->src, 0, c->dst, 4, 8, true, true);
    rill__buf_destroy(c->gpu, c->src); /* deferred: the copy above still reads it */
    rill__gpu_mem_stats st;
    rill__gpu_mem_stats_get(c->gpu, &st);
    c->live_in_frame = st.allocations;
}

static void test_copies_and_deferred_destruction(void **state) {
    (void)state;
    rill__gpu *gpu = null_gpu(1u << 20);
    rill_error err = {0};
    copy_case c = {.gpu = gpu};
    c.src = rill__buf_create(gpu, 16, RILL__BUF_TRANSFER_SRC, true, "src", &err);
    c.dst = rill__buf_create(gpu, 16, RILL__BUF_TRANSFER_DST, true, "dst", &err);
    memcpy(rill__buf_map(c.src), "0123456789abcdef", 16);
    frame(gpu, record_copy, &c);
    assert_int_equal(c.live_in_frame, 4); /* two scratch buffers, src (destroyed) and dst */
    assert_memory_equal((uint8_t *)rill__buf_map(c.dst) + 4, "01234567", 8);
    rill__gpu_mem_stats st;
    rill__gpu_mem_stats_get(gpu, &st);
    assert_int_equal(st.allocations, 3); /* src went when the frame ended */
    rill__buf_destroy(gpu, c.dst);
    assert_int_equal(rill__gpu_validation_messages(gpu), 0);
    rill__gpu_destroy(gpu);
}

typedef struct stream_case {
    rill__gpu *gpu;
    rill__pipe *pipe;
    rill__img *color;
    rill__buf *ubo;
    bool broken;
} stream_case;

static void record_stream(rill__cmd *cmd, void *user) {
    stream_case *s = user;
    rill__attachment at = {.img = s->color, .layer = -1, .clear = true};
    if (s->broken) {
        rill__cmd_draw_indexed(cmd, 3, 1, 0, 0); /* outside rendering, no pipeline */
        rill__cmd_bind_pipe(cmd, s->pipe);
        rill__cmd_push(cmd, (float[32]){0}, 128); /* the pipeline takes 64 */
        rill__binding none = {0};
        (void)rill__cmd_bind_transient_set(cmd, 0, &none, 1); /* the uniform buffer missing */
        rill__cmd_begin_rendering(cmd, &at, 1, NULL, 32, 32);
        rill__cmd_label_begin(cmd, "left open");
        return; /* rendering and the label left open at frame end */
    }
    rill__cmd_label_begin(cmd, "ok");
    rill__cmd_begin_rendering(cmd, &at, 1, NULL, 32, 32);
    /* dynamic state before any pipeline is bound: legal in Vulkan (the shadow pass's GPU-culled
     * casters set their bias before draw_gpu binds the shadow pipeline) */
    rill__cmd_depth_bias(cmd, 1.25f, 1.75f);
    rill__cmd_front_face(cmd, true);
    rill__cmd_bind_pipe(cmd, s->pipe);
    rill__cmd_push(cmd, (float[16]){0}, 64);
    rill__binding ubo = {.buf = s->ubo};
    assert_int_equal(rill__cmd_bind_transient_set(cmd, 0, &ubo, 1), RILL_OK);
    rill__cmd_draw_indexed(cmd, 3, 1, 0, 0);
    rill__cmd_end_rendering(cmd);
    rill__cmd_label_end(cmd);
}

static void test_command_checks(void **state) {
    (void)state;
    rill__gpu *gpu = null_gpu(1u << 20);
    rill_error err = {0};
    stream_case s = {.gpu = gpu};
    rill__pipe_desc pd = {.label = "tri",
                          .vs = spirv,
                          .vs_size = sizeof(spirv),
                          .fs = spirv,
                          .fs_size = sizeof(spirv),
                          .color_formats = {RILL_RG_FORMAT_RGBA8_UNORM},
                          .color_count = 1,
                          .sets = {{.bindings = {RILL__BIND_UNIFORM}}},
                          .set_count = 1,
                          .push_size = 64};
    s.pipe = rill__pipe_create(gpu, &pd, &err);
    assert_non_null(s.pipe);
    rill__pipe_desc not_spirv = pd;
    not_spirv.vs = (const uint32_t *)"not spirv, just text";
    assert_null(rill__pipe_create(gpu, &not_spirv, &err));
    s.color = rill__img_create(gpu,
                               &(rill__img_desc){.width = 32,
                                                 .height = 32,
                                                 .layers = 1,
                                                 .mips = 1,
                                                 .format = RILL_RG_FORMAT_RGBA8_UNORM,
                                                 .usage = RILL__IMG_COLOR,
                                                 .label = "color"},
                               &err);
    s.ubo = rill__buf_create(gpu, 256, RILL__BUF_UNIFORM, true, "ubo", &err);
    frame(gpu, record_stream, &s);
    assert_int_equal(rill__gpu_validation_messages(gpu), 0);
    s.broken = true;
    frame(gpu, record_stream, &s);
    /* draw, push, transient set, frame end with scopes open */
    assert_int_equal(rill__gpu_validation_messages(gpu), 4);
    rill__buf_destroy(gpu, s.ubo);
    rill__img_destroy(gpu, s.color);
    rill__pipe_destroy(gpu, s.pipe);
    rill__gpu_destroy(gpu);
}

static void test_renderer_on_null(void **state) {
    (void)state;
    rill_error err = {0};
    rill_renderer *r =
        rill_renderer_create(&(rill_renderer_desc){.width = 64,
                                                   .height = 48,
                                                   .quality = RILL_RENDER_QUALITY_HIGH,
                                                   .backend = RILL_RENDER_BACKEND_NULL},
                             &err);
    assert_non_null(r);
    rill_mesh cube = rill_render_mesh_cube(r, &err);
    rill_material mat = render_test_material(r, (rill_material_desc){.base_color = {1, 0, 0, 1}});
    rill_render_instance inst[2];
    render_test_place(&inst[0], 1, cube, mat, (float[3]){0, 0, 0}, 1.0f, 0.3f);
    render_test_place(&inst[1], 2, cube, mat, (float[3]){0, 0, 50}, 1.0f, 0.0f); /* behind */
    rill_render_snapshot snap = {.instances = inst, .instance_count = 2, .has_sun = true};
    snap.sun = (rill_render_dir_light){
        .direction = {0.3f, -1, -0.2f}, .color = {1, 1, 1}, .illuminance = 3, .shadows = true};
    mat4 wfv; /* cglm's SSE path stores aligned: not straight into the snapshot's floats */
    render_test_look_at(wfv, (float[3]){0, 1, 4}, (float[3]){0, 0, 0});
    memcpy(snap.view.world_from_view, wfv, sizeof wfv);
    rill_render_stats st;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
        rill_renderer_stats(r, &st);
        /* The first frame makes its render targets and tables; a steady frame makes none. */
        if (i == 0) {
            assert_true(st.gpu_objects_created > 0 && st.cpu_create_ms > 0.0);
            assert_true(st.cpu_create_ms <= st.cpu_wait_ms + st.cpu_record_ms);
        } else if (i == 5) {
            assert_int_equal(st.gpu_objects_created, 0);
            assert_true(st.cpu_create_ms == 0.0);
        }
    }
    assert_string_equal(st.device_name, "null (no GPU)");
    assert_int_equal(st.instances_submitted, 2);
    assert_int_equal(st.instances_visible, 1); /* the one behind the camera is culled */
    assert_true(st.draw_calls > 0 && st.triangles > 0);
    uint8_t px[64 * 48 * 4];
    memset(px, 0xAB, sizeof(px));
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
    assert_int_equal(px[0], 0); /* nothing is drawn */
    render_test_destroy_clean(r, true);

    int dummy_window = 0;
    assert_null(rill_renderer_create(
        &(rill_renderer_desc){.glfw_window = &dummy_window, .backend = RILL_RENDER_BACKEND_NULL},
        &err));
    setenv("RILL_RENDER_BACKEND", "metal", 1);
    assert_null(rill_renderer_create(NULL, &err));
    assert_non_null(strstr(err.msg, "RILL_RENDER_BACKEND=metal"));
    setenv("RILL_RENDER_BACKEND", "null", 1);
    r = rill_renderer_create(&(rill_renderer_desc){.width = 16, .height = 16}, &err);
    assert_non_null(r);
    rill_renderer_stats(r, &st);
    assert_string_equal(st.device_name, "null (no GPU)");
    rill_renderer_destroy(r);
    unsetenv("RILL_RENDER_BACKEND");
}

/* The storage range a null device reports with RILL_NULL_STORAGE_RANGE set to `value` (NULL:
 * unset). */
static uint64_t storage_range_with(const char *value) {
    if (value) {
        setenv("RILL_NULL_STORAGE_RANGE", value, 1);
    } else {
        unsetenv("RILL_NULL_STORAGE_RANGE");
    }
    rill__gpu *gpu = null_gpu(1u << 20);
    uint64_t range = rill__gpu_get_caps(gpu)->max_storage_range;
    rill__gpu_destroy(gpu);
    unsetenv("RILL_NULL_STORAGE_RANGE");
    return range;
}

static void test_storage_range_option(void **state) {
    (void)state;
    const uint64_t vk_min = 1u << 27;
    assert_int_equal(storage_range_with(NULL), vk_min);
    assert_int_equal(storage_range_with("4294967295"), 4294967295ull);
    assert_int_equal(storage_range_with("1073741824"), 1073741824ull);
    /* Refused (a warning, the minimum): not a number, trailing text, a sign, below the minimum,
     * past 32 bits, empty. */
    const char *bad[] = {
        "lots", "1073741824x", "-1", "+1073741824", "1000", "4294967296", "99999999999999999999999",
        ""};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        assert_int_equal(storage_range_with(bad[k]), vk_min);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uploads_under_the_budget),
        cmocka_unit_test(test_copies_and_deferred_destruction),
        cmocka_unit_test(test_command_checks),
        cmocka_unit_test(test_renderer_on_null),
        cmocka_unit_test(test_storage_range_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
