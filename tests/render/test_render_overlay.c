/* test_render_overlay.c: the stats overlay on lavapipe with validation on. The text must change
 * the pixels of the top-left corner (white glyphs on a dark backdrop) and nothing else, the
 * overlay must vanish again when the text is cleared, a frame capture must hold the displayed
 * bytes, and the stats formatter must report the counters the overlay shows. */
#include "rill_test.h"

#include "rill/render.h"

#define W 192u
#define H 128u

typedef struct scene {
    rill_renderer *r;
    rill_render_instance inst;
    rill_render_snapshot snap;
} scene;

static void render_frame(scene *s, uint8_t *px) {
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(s->r, &s->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(s->r, px, W * H * 4u, &err), RILL_OK);
}

static void test_overlay_draws_text_in_its_corner_only(void **state) {
    (void)state;
    rill_renderer_desc d = {0};
    d.width = W, d.height = H;
    d.validation = 1;
    scene s;
    memset(&s, 0, sizeof(s));
    rill_error err = {0};
    if (!(s.r = rill_renderer_create(&d, &err))) {
        fail_msg("no Vulkan device: %s", err.msg);
    }
    rill_mesh cube = rill_render_mesh_cube(s.r, &err);
    rill_material mat = rill_render_material_create(s.r, NULL, &err);
    assert_true(cube.id && mat.id);
    s.inst.id = 1, s.inst.mesh = cube, s.inst.material = mat;
    for (int i = 0; i < 16; i++) {
        s.inst.transform[i] = (i % 5 == 0) ? 1.0f : 0.0f;
    }
    s.snap.instances = &s.inst;
    s.snap.instance_count = 1;
    s.snap.view.clear_color[0] = 0.2f, s.snap.view.clear_color[1] = 0.4f;
    s.snap.view.clear_color[2] = 0.6f;
    for (int i = 0; i < 16; i++) {
        s.snap.view.world_from_view[i] = (i % 5 == 0) ? 1.0f : 0.0f;
    }
    s.snap.view.world_from_view[14] = 3.0f; /* camera at z = 3 looking down -Z at the cube */
    s.snap.ambient[0] = s.snap.ambient[1] = s.snap.ambient[2] = 0.5f;

    uint8_t *plain = rill_malloc(W * H * 4u), *text = rill_malloc(W * H * 4u),
            *cleared = rill_malloc(W * H * 4u);
    assert_non_null(plain && text && cleared);
    render_frame(&s, plain); /* the first frame uploads the cube */
    render_frame(&s, plain);

    rill_render_stats st;
    rill_renderer_stats(s.r, &st);
    assert_true(st.triangles >= 12u); /* the cube: 12 triangles (shadows off: no sun) */
    assert_true(st.draw_calls >= 1u);
    char buf[RILL_RENDER_OVERLAY_MAX_TEXT];
    size_t n = rill_render_stats_format(&st, 16.6, buf, sizeof(buf));
    assert_true(n > 0 && n == strlen(buf));
    assert_non_null(strstr(buf, "frame 16.60 ms"));
    assert_non_null(strstr(buf, "triangles"));
    assert_non_null(strstr(buf, "opaque"));
    /* A tiny buffer is cut, never overrun. */
    char tiny[8];
    assert_true(rill_render_stats_format(&st, 1.0, tiny, sizeof(tiny)) < sizeof(tiny));

    /* Bytes outside printable ASCII (a tab, UTF-8, DEL) draw as '?' instead of reading outside
     * the font's glyph table (ASan would see it). */
    rill_renderer_set_overlay_text(s.r, "A\t\xc3\xa9\x7f\x01");
    render_frame(&s, text);
    rill_renderer_set_overlay_text(s.r, "FRAME 16.6 MS\nDRAWS 3");
    render_frame(&s, text);
    render_frame(&s, text); /* the overlay's index buffer uploads with the first frame */

    /* Inside the text block: many pixels changed, some of them to near white (glyphs). Outside
     * the block (x >= 120 or y >= 48): identical. */
    uint32_t changed_in = 0, white_in = 0, changed_out = 0;
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *a = plain + (y * W + x) * 4u, *b = text + (y * W + x) * 4u;
            bool diff = memcmp(a, b, 3) != 0;
            if (x < 120u && y < 48u) {
                changed_in += diff;
                white_in += b[0] > 230 && b[1] > 230 && b[2] > 230;
            } else {
                changed_out += diff;
            }
        }
    }
    assert_true(changed_in > 500u);
    assert_true(white_in > 50u);
    assert_int_equal(changed_out, 0);

    /* A capture copies the frame as displayed: the same bytes as the headless readback. */
    uint32_t cw = 0, ch = 0;
    assert_int_equal(rill_renderer_read_capture(s.r, NULL, 0, &cw, &ch, &err), RILL_ERR_NOT_FOUND);
    rill_renderer_request_capture(s.r);
    render_frame(&s, text);
    assert_int_equal(rill_renderer_read_capture(s.r, NULL, 0, &cw, &ch, &err), RILL_OK);
    assert_int_equal(cw, W);
    assert_int_equal(ch, H);
    assert_int_equal(rill_renderer_read_capture(s.r, cleared, W * H * 4u, NULL, NULL, &err),
                     RILL_OK);
    assert_memory_equal(text, cleared, W * H * 4u);

    rill_renderer_set_overlay_text(s.r, "");
    render_frame(&s, cleared);
    assert_memory_equal(plain, cleared, W * H * 4u);

    rill_renderer_stats(s.r, &st);
    assert_int_equal(st.validation_messages, 0);
    rill_free(plain);
    rill_free(text);
    rill_free(cleared);
    rill_renderer_destroy(s.r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlay_draws_text_in_its_corner_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
