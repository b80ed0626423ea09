/* test_render_graph.c: render graph logic without a GPU: stable topological order, explicit
 * edges beating declaration order, culling, transient aliasing, barrier lists, refused calls and
 * their sticky error, the names the graph gives per-view copies, cycles, and the dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "rill/render/graph.h"

/* The small frame's graph and the handles its building returned. */
typedef struct fg {
    rill_rg *g;
    rill_rg_image depth, hdr, debug, half, shadow_map, out;
    rill_rg_pass debug_view, opaque, prepass, shadows, transparent, end_main, tonemap, end_post,
        output;
} fg;

static rill_rg_pass pass(rill_rg *g, const char *label, bool side) {
    rill_error err = {0};
    rill_rg_pass p =
        rill_rg_add_pass(g, &(rill_rg_pass_desc){.label = label, .side_effect = side}, &err);
    if (!p.id) {
        fail_msg("%s", err.msg);
    }
    return p;
}

static void use(rill_rg *g, rill_rg_pass p, rill_rg_image img, rill_rg_usage u) {
    rill_error err = {0};
    if (rill_rg_use_image(g, p, img, u, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
}

static rill_rg_image image(rill_rg *g, const char *name, const rill_rg_image_desc *d) {
    rill_rg_image img = rill_rg_create_image(g, name, d, NULL);
    assert_true(img.id != 0);
    return img;
}

/* A small frame: shadows, prepass, opaque, transparent, anchors, tonemap, output; plus a debug
 * pass whose output nobody reads. */
static fg frame_graph(void) {
    fg f;
    rill_rg *g = f.g = rill_rg_create();
    rill_rg_set_view_size(g, 320, 200);
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_D32F};
    f.depth = image(g, "depth", &d);
    d.format = RILL_RG_FORMAT_RGBA16F;
    f.hdr = image(g, "hdr", &d);
    f.debug = image(g, "debug", &d);
    d = (rill_rg_image_desc){.format = RILL_RG_FORMAT_RGBA8_UNORM, .scale = 0.5f};
    f.half = image(g, "half", &d);
    rill_rg_image_desc sd = {RILL_RG_FORMAT_D32F, RILL_RG_SIZE_ABSOLUTE, 0, 1024, 1024, 4, 1, true};
    f.shadow_map = image(g, "shadow_map", &sd);
    rill_rg_image_desc od = {RILL_RG_FORMAT_RGBA8_UNORM};
    static int external = 42;
    f.out = rill_rg_import_image(g, "out", &od, &external, RILL_RG_USAGE_NONE,
                                 RILL_RG_USAGE_TRANSFER_SRC, NULL);
    assert_true(f.out.id != 0);
    f.debug_view = pass(g, "debug_view", false);
    use(g, f.debug_view, f.depth, RILL_RG_USAGE_SAMPLED_FRAGMENT);
    use(g, f.debug_view, f.debug, RILL_RG_USAGE_COLOR_WRITE);
    /* Added out of order on purpose: opaque before the passes it depends on. */
    f.opaque = pass(g, "opaque", false);
    use(g, f.opaque, f.depth, RILL_RG_USAGE_DEPTH_READ);
    use(g, f.opaque, f.shadow_map, RILL_RG_USAGE_SAMPLED_FRAGMENT);
    use(g, f.opaque, f.hdr, RILL_RG_USAGE_COLOR_WRITE);
    f.prepass = pass(g, "prepass", false);
    use(g, f.prepass, f.depth, RILL_RG_USAGE_DEPTH_WRITE);
    f.shadows = pass(g, "shadows", false);
    use(g, f.shadows, f.shadow_map, RILL_RG_USAGE_DEPTH_WRITE);
    f.transparent = pass(g, "transparent", false);
    use(g, f.transparent, f.depth, RILL_RG_USAGE_DEPTH_READ);
    use(g, f.transparent, f.hdr, RILL_RG_USAGE_COLOR_WRITE);
    f.end_main = pass(g, RILL_RG_END_MAIN_PASS, false);
    f.tonemap = pass(g, RILL_RG_TONEMAPPING, false);
    use(g, f.tonemap, f.hdr, RILL_RG_USAGE_SAMPLED_COMPUTE);
    use(g, f.tonemap, f.half, RILL_RG_USAGE_STORAGE_WRITE);
    f.end_post = pass(g, RILL_RG_END_MAIN_PASS_POST_PROCESSING, false);
    f.output = pass(g, "output", false);
    use(g, f.output, f.half, RILL_RG_USAGE_TRANSFER_SRC);
    use(g, f.output, f.out, RILL_RG_USAGE_TRANSFER_DST);
    rill_rg_pass chain[] = {f.transparent, f.end_main, f.tonemap, f.end_post, f.output};
    assert_int_equal(rill_rg_add_edges(g, chain, 5, NULL), RILL_OK);
    return f;
}

static void test_order_is_stable_topological(void **state) {
    (void)state;
    fg f = frame_graph();
    rill_rg *g = f.g;
    rill_error err = {0};
    if (rill_rg_compile(g, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    const char *want[] = {"prepass",
                          "shadows",
                          "opaque",
                          "transparent",
                          RILL_RG_END_MAIN_PASS,
                          RILL_RG_TONEMAPPING,
                          RILL_RG_END_MAIN_PASS_POST_PROCESSING,
                          "output"};
    assert_int_equal(rill_rg_ordered_count(g), 8);
    for (uint32_t i = 0; i < 8; i++) {
        assert_string_equal(rill_rg_ordered_label(g, i), want[i]);
    }
    /* Compiling again gives the same order. */
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    for (uint32_t i = 0; i < 8; i++) {
        assert_string_equal(rill_rg_ordered_label(g, i), want[i]);
    }
    rill_rg_destroy(g);
}

static void test_cull_unread_outputs(void **state) {
    (void)state;
    fg f = frame_graph();
    assert_int_equal(rill_rg_compile(f.g, NULL), RILL_OK);
    assert_true(rill_rg_is_culled(f.g, "debug_view"));
    assert_int_equal(rill_rg_pass_order(f.g, f.debug_view), -1);
    assert_false(rill_rg_is_culled(f.g, "prepass"));
    assert_int_equal(rill_rg_pass_order(f.g, f.prepass), rill_rg_order_of(f.g, "prepass"));
    /* Marking its output as a frame output keeps it. */
    assert_int_equal(rill_rg_mark_output(f.g, f.debug, NULL), RILL_OK);
    assert_int_equal(rill_rg_compile(f.g, NULL), RILL_OK);
    assert_false(rill_rg_is_culled(f.g, "debug_view"));
    rill_rg_destroy(f.g);
}

static void test_user_node_between_anchors(void **state) {
    (void)state;
    fg f = frame_graph();
    rill_rg *g = f.g;
    /* A node that reads and writes the HDR image, added last but slotted before tonemapping. */
    rill_rg_pass ssgi = pass(g, "ssgi", false);
    use(g, ssgi, f.hdr, RILL_RG_USAGE_STORAGE_WRITE);
    rill_rg_pass chain[] = {f.end_main, ssgi, f.tonemap};
    assert_int_equal(rill_rg_add_edges(g, chain, 3, NULL), RILL_OK);
    rill_error err = {0};
    if (rill_rg_compile(g, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    assert_true(rill_rg_pass_order(g, f.end_main) < rill_rg_pass_order(g, ssgi));
    assert_true(rill_rg_pass_order(g, ssgi) < rill_rg_pass_order(g, f.tonemap));
    assert_true(rill_rg_pass_order(g, f.transparent) < rill_rg_pass_order(g, ssgi));
    rill_rg_destroy(g);
}

/* Duplicates are refused where they happen; a refused call is sticky: later calls and compile
 * return its error (with its message) until the graph is reset. */
static void test_errors_are_sticky(void **state) {
    (void)state;
    fg f = frame_graph();
    rill_rg *g = f.g;
    rill_error err = {0};
    assert_int_equal(rill_rg_use_image(g, f.opaque, f.hdr, RILL_RG_USAGE_COLOR_WRITE, &err),
                     RILL_ERR_ALREADY_EXISTS);
    assert_non_null(strstr(err.msg, "'opaque' accesses 'hdr' twice"));
    rill_error later = {0};
    assert_int_equal(rill_rg_add_edge(g, f.prepass, f.opaque, &later), RILL_ERR_ALREADY_EXISTS);
    assert_string_equal(later.msg, err.msg);
    assert_int_equal(rill_rg_compile(g, &later), RILL_ERR_ALREADY_EXISTS);
    assert_string_equal(later.msg, err.msg);
    /* A failed create hands back {0}; the next use reports the create's error. */
    rill_rg_reset(g);
    rill_rg_image a = rill_rg_create_image(g, "a", NULL, &err);
    rill_rg_image a2 = rill_rg_create_image(g, "a", NULL, &err);
    assert_true(a.id != 0);
    assert_int_equal(a2.id, 0);
    assert_int_equal(err.code, RILL_ERR_ALREADY_EXISTS);
    rill_rg_pass p = rill_rg_add_pass(g, &(rill_rg_pass_desc){.label = "p"}, &later);
    assert_int_equal(p.id, 0);
    assert_int_equal(rill_rg_use_image(g, p, a2, RILL_RG_USAGE_COLOR_WRITE, &later),
                     RILL_ERR_ALREADY_EXISTS);
    assert_non_null(strstr(later.msg, "'a' declared twice"));
    /* After a reset: {0} and stale handles, a buffer usage on an image, an edge to itself. */
    rill_rg_reset(g);
    p = pass(g, "p", true);
    assert_int_equal(rill_rg_use_image(g, p, a, RILL_RG_USAGE_COLOR_WRITE, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "no such image"));
    rill_rg_reset(g);
    p = pass(g, "p", true);
    a = image(g, "a", NULL);
    assert_int_equal(rill_rg_use_image(g, p, a, RILL_RG_USAGE_VERTEX_INPUT, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "uses image 'a' as vertex_input"));
    rill_rg_reset(g);
    p = pass(g, "p", true);
    assert_int_equal(rill_rg_add_edge(g, p, p, &err), RILL_ERR_INVALID_ARGUMENT);
    rill_rg_pass none = {0};
    rill_rg_reset(g);
    p = pass(g, "p", true);
    assert_int_equal(rill_rg_add_edge(g, p, none, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "no such pass"));
    rill_rg_destroy(g);
}

/* The graph names the passes and images of view N > 0 itself: "label.N", "name.N", with the
 * base image's description. */
static void test_view_names(void **state) {
    (void)state;
    rill_rg *g = rill_rg_create();
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_D32F, .scale = 0.5f};
    rill_rg_image depth = image(g, "depth", &d);
    rill_rg_image depth2 = rill_rg_create_view_image(g, depth, 2, NULL);
    assert_true(depth2.id != 0 && depth2.id != depth.id);
    rill_rg_pass p0 = pass(g, "prepass", true);
    rill_rg_pass p2 = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "prepass", .side_effect = true, .view = 2}, NULL);
    assert_true(p2.id != 0);
    use(g, p0, depth, RILL_RG_USAGE_DEPTH_WRITE);
    use(g, p2, depth2, RILL_RG_USAGE_DEPTH_WRITE);
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    assert_string_equal(rill_rg_pass_label(g, p2.id - 1), "prepass.2");
    assert_string_equal(rill_rg_resource_name(g, (uint32_t)rill_rg_image_resource(g, depth2)),
                        "depth.2");
    rill_rg_image_desc a, b;
    rill_rg_resource_image_desc(g, (uint32_t)rill_rg_image_resource(g, depth), &a);
    rill_rg_resource_image_desc(g, (uint32_t)rill_rg_image_resource(g, depth2), &b);
    assert_memory_equal(&a, &b, sizeof(a));
    /* Both prepasses draw into their own depth, so they share no order constraint: added order. */
    assert_int_equal(rill_rg_pass_order(g, p0), 0);
    assert_int_equal(rill_rg_pass_order(g, p2), 1);
    rill_rg_destroy(g);
}

static void test_cycle_reported(void **state) {
    (void)state;
    rill_rg *g = rill_rg_create();
    rill_rg_pass a = pass(g, "a", true), b = pass(g, "b", true), c = pass(g, "c", true);
    assert_int_equal(rill_rg_add_edge(g, a, b, NULL), RILL_OK);
    assert_int_equal(rill_rg_add_edge(g, b, c, NULL), RILL_OK);
    assert_int_equal(rill_rg_add_edge(g, c, a, NULL), RILL_OK);
    rill_error err = {0};
    assert_int_equal(rill_rg_compile(g, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "cycle"));
    rill_rg_destroy(g);
}

static void test_barriers(void **state) {
    (void)state;
    fg f = frame_graph();
    rill_rg *g = f.g;
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    int32_t depth = rill_rg_image_resource(g, f.depth), hdr = rill_rg_image_resource(g, f.hdr);
    int32_t out = rill_rg_image_resource(g, f.out);
    assert_int_equal(depth, rill_rg_resource_find(g, "depth"));
    uint32_t n;
    /* prepass: depth none -> depth_write (layout transition from undefined). */
    const rill_rg_barrier *b = rill_rg_barriers(g, (uint32_t)rill_rg_pass_order(g, f.prepass), &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].resource, depth);
    assert_int_equal(b[0].src, RILL_RG_USAGE_NONE);
    assert_int_equal(b[0].dst, RILL_RG_USAGE_DEPTH_WRITE);
    /* opaque: depth write -> read, shadow map write -> sampled, hdr none -> color. */
    b = rill_rg_barriers(g, (uint32_t)rill_rg_pass_order(g, f.opaque), &n);
    assert_int_equal(n, 3);
    assert_int_equal(b[0].src, RILL_RG_USAGE_DEPTH_WRITE);
    assert_int_equal(b[0].dst, RILL_RG_USAGE_DEPTH_READ);
    assert_int_equal(b[1].dst, RILL_RG_USAGE_SAMPLED_FRAGMENT);
    assert_int_equal(b[2].resource, hdr);
    /* transparent: depth stays read-only (no barrier), hdr write after write needs one. */
    b = rill_rg_barriers(g, (uint32_t)rill_rg_pass_order(g, f.transparent), &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].resource, hdr);
    assert_int_equal(b[0].src, RILL_RG_USAGE_COLOR_WRITE);
    assert_int_equal(b[0].dst, RILL_RG_USAGE_COLOR_WRITE);
    /* anchors have none */
    rill_rg_barriers(g, (uint32_t)rill_rg_pass_order(g, f.end_main), &n);
    assert_int_equal(n, 0);
    /* the imported output ends in its final usage */
    b = rill_rg_final_barriers(g, &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].resource, out);
    assert_int_equal(b[0].src, RILL_RG_USAGE_TRANSFER_DST);
    assert_int_equal(b[0].dst, RILL_RG_USAGE_TRANSFER_SRC);
    rill_rg_destroy(g);
}

static void test_transients_alias(void **state) {
    (void)state;
    rill_rg *g = rill_rg_create();
    rill_rg_set_view_size(g, 100, 50);
    rill_rg_image_desc d = {0};
    rill_rg_image a = image(g, "a", &d), b = image(g, "b", &d), c = image(g, "c", &d);
    rill_rg_buffer sink =
        rill_rg_import_buffer(g, "sink", NULL, RILL_RG_USAGE_NONE, RILL_RG_USAGE_NONE, NULL);
    rill_rg_pass p1 = pass(g, "p1", false);
    use(g, p1, a, RILL_RG_USAGE_COLOR_WRITE);
    rill_rg_pass p2 = pass(g, "p2", false);
    use(g, p2, a, RILL_RG_USAGE_SAMPLED_FRAGMENT);
    use(g, p2, b, RILL_RG_USAGE_COLOR_WRITE);
    rill_rg_pass p3 = pass(g, "p3", false);
    use(g, p3, b, RILL_RG_USAGE_SAMPLED_FRAGMENT);
    use(g, p3, c, RILL_RG_USAGE_COLOR_WRITE);
    rill_rg_pass p4 = pass(g, "p4", true);
    use(g, p4, c, RILL_RG_USAGE_TRANSFER_SRC);
    assert_int_equal(rill_rg_use_buffer(g, p4, sink, RILL_RG_USAGE_TRANSFER_DST, NULL), RILL_OK);
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    /* a dies at p2 and c is born at p3: they share a slot; b overlaps both. */
    int32_t sa = rill_rg_resource_slot(g, (uint32_t)rill_rg_image_resource(g, a));
    int32_t sb = rill_rg_resource_slot(g, (uint32_t)rill_rg_image_resource(g, b));
    int32_t sc = rill_rg_resource_slot(g, (uint32_t)rill_rg_image_resource(g, c));
    assert_int_equal(sa, sc);
    assert_int_not_equal(sa, sb);
    assert_int_equal(rill_rg_slot_count(g), 2);
    rill_rg_image_desc rd;
    rill_rg_resource_image_desc(g, (uint32_t)rill_rg_image_resource(g, a), &rd);
    assert_int_equal(rd.width, 100);
    assert_int_equal(rd.height, 50);
    assert_int_equal(rd.format, RILL_RG_FORMAT_RGBA16F);
    rill_rg_destroy(g);
}

static void test_dump(void **state) {
    (void)state;
    fg f = frame_graph();
    rill_rg *g = f.g;
    rill_strbuf sb = {0};
    rill_rg_dump(g, &sb);
    assert_non_null(strstr(sb.data, "not compiled"));
    sb.len = 0;
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    rill_rg_dump(g, &sb);
    assert_non_null(strstr(sb.data, "render graph: 8 passes (1 culled)"));
    assert_non_null(strstr(sb.data, " 0 prepass (anchor)"));
    assert_non_null(strstr(sb.data, "barrier depth: depth_write -> depth_read"));
    assert_non_null(strstr(sb.data, "culled debug_view"));
    assert_non_null(strstr(sb.data, "image half: transient rgba8_unorm 160x100"));
    assert_non_null(strstr(sb.data, "final barrier out: transfer_dst -> transfer_src"));
    rill_strbuf_free(&sb);
    rill_rg_destroy(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_is_stable_topological),
        cmocka_unit_test(test_cull_unread_outputs),
        cmocka_unit_test(test_user_node_between_anchors),
        cmocka_unit_test(test_errors_are_sticky),
        cmocka_unit_test(test_view_names),
        cmocka_unit_test(test_cycle_reported),
        cmocka_unit_test(test_barriers),
        cmocka_unit_test(test_transients_alias),
        cmocka_unit_test(test_dump),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rill_intern_shutdown();
    return rc;
}
