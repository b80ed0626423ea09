/* test_render_graph.c: render graph logic without a GPU: stable topological order, explicit
 * edges beating declaration order, culling, transient aliasing, barrier lists, the error for an
 * edge to an unknown label, cycles, and the dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "rill/render/graph.h"

static void pass(rill_rg *g, const char *label, bool side) {
    rill_rg_pass_desc d = {label, NULL, NULL, side};
    assert_int_equal(rill_rg_add_pass(g, &d, NULL), RILL_OK);
}

static void acc(rill_rg *g, const char *p, const char *res, rill_rg_usage u) {
    rill_error err = {0};
    if (rill_rg_access(g, p, res, u, &err) != RILL_OK)
        fail_msg("%s", err.msg);
}

/* A small frame: shadows, prepass, opaque, transparent, anchors, tonemap, output; plus a debug
 * pass whose output nobody reads. */
static rill_rg *frame_graph(void) {
    rill_rg *g = rill_rg_create();
    rill_rg_set_view_size(g, 320, 200);
    rill_rg_image_desc d = {0};
    d.format = RILL_RG_FORMAT_D32F;
    assert_int_equal(rill_rg_declare_image(g, "depth", &d, NULL), RILL_OK);
    d.format = RILL_RG_FORMAT_RGBA16F;
    assert_int_equal(rill_rg_declare_image(g, "hdr", &d, NULL), RILL_OK);
    assert_int_equal(rill_rg_declare_image(g, "debug", &d, NULL), RILL_OK);
    d.format = RILL_RG_FORMAT_RGBA8_UNORM;
    d.scale = 0.5f;
    assert_int_equal(rill_rg_declare_image(g, "half", &d, NULL), RILL_OK);
    rill_rg_image_desc sd = {RILL_RG_FORMAT_D32F, RILL_RG_SIZE_ABSOLUTE, 0, 1024, 1024, 4, 1, true};
    assert_int_equal(rill_rg_declare_image(g, "shadow_map", &sd, NULL), RILL_OK);
    rill_rg_image_desc od = {RILL_RG_FORMAT_RGBA8_UNORM};
    int external = 42;
    assert_int_equal(rill_rg_import_image(g, "out", &od, &external, RILL_RG_USAGE_NONE,
                                          RILL_RG_USAGE_TRANSFER_SRC, NULL),
                     RILL_OK);
    pass(g, "debug_view", false);
    acc(g, "debug_view", "depth", RILL_RG_USAGE_SAMPLED_FRAGMENT);
    acc(g, "debug_view", "debug", RILL_RG_USAGE_COLOR_WRITE);
    /* Declared out of order on purpose: opaque before the passes it depends on. */
    pass(g, "opaque", false);
    acc(g, "opaque", "depth", RILL_RG_USAGE_DEPTH_READ);
    acc(g, "opaque", "shadow_map", RILL_RG_USAGE_SAMPLED_FRAGMENT);
    acc(g, "opaque", "hdr", RILL_RG_USAGE_COLOR_WRITE);
    pass(g, "prepass", false);
    acc(g, "prepass", "depth", RILL_RG_USAGE_DEPTH_WRITE);
    pass(g, "shadows", false);
    acc(g, "shadows", "shadow_map", RILL_RG_USAGE_DEPTH_WRITE);
    pass(g, "transparent", false);
    acc(g, "transparent", "depth", RILL_RG_USAGE_DEPTH_READ);
    acc(g, "transparent", "hdr", RILL_RG_USAGE_COLOR_WRITE);
    pass(g, RILL_RG_END_MAIN_PASS, false);
    pass(g, RILL_RG_TONEMAPPING, false);
    acc(g, RILL_RG_TONEMAPPING, "hdr", RILL_RG_USAGE_SAMPLED_COMPUTE);
    acc(g, RILL_RG_TONEMAPPING, "half", RILL_RG_USAGE_STORAGE_WRITE);
    pass(g, RILL_RG_END_MAIN_PASS_POST_PROCESSING, false);
    pass(g, "output", false);
    acc(g, "output", "half", RILL_RG_USAGE_TRANSFER_SRC);
    acc(g, "output", "out", RILL_RG_USAGE_TRANSFER_DST);
    const char *chain[] = {"transparent", RILL_RG_END_MAIN_PASS, RILL_RG_TONEMAPPING,
                           RILL_RG_END_MAIN_PASS_POST_PROCESSING, "output"};
    assert_int_equal(rill_rg_add_edges(g, chain, 5, NULL), RILL_OK);
    return g;
}

static void test_order_is_stable_topological(void **state) {
    (void)state;
    rill_rg *g = frame_graph();
    rill_error err = {0};
    if (rill_rg_compile(g, &err) != RILL_OK)
        fail_msg("%s", err.msg);
    const char *want[] = {"prepass",
                          "shadows",
                          "opaque",
                          "transparent",
                          RILL_RG_END_MAIN_PASS,
                          RILL_RG_TONEMAPPING,
                          RILL_RG_END_MAIN_PASS_POST_PROCESSING,
                          "output"};
    assert_int_equal(rill_rg_ordered_count(g), 8);
    for (uint32_t i = 0; i < 8; i++)
        assert_string_equal(rill_rg_ordered_label(g, i), want[i]);
    /* Compiling again gives the same order. */
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    for (uint32_t i = 0; i < 8; i++)
        assert_string_equal(rill_rg_ordered_label(g, i), want[i]);
    rill_rg_destroy(g);
}

static void test_cull_unread_outputs(void **state) {
    (void)state;
    rill_rg *g = frame_graph();
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    assert_true(rill_rg_is_culled(g, "debug_view"));
    assert_int_equal(rill_rg_order_of(g, "debug_view"), -1);
    assert_false(rill_rg_is_culled(g, "prepass"));
    /* Marking its output as a frame output keeps it. */
    assert_int_equal(rill_rg_mark_output(g, "debug", NULL), RILL_OK);
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    assert_false(rill_rg_is_culled(g, "debug_view"));
    rill_rg_destroy(g);
}

static void test_user_node_between_anchors(void **state) {
    (void)state;
    rill_rg *g = frame_graph();
    /* A node that reads and writes the HDR image, added last but slotted before tonemapping. */
    pass(g, "ssgi", false);
    acc(g, "ssgi", "hdr", RILL_RG_USAGE_STORAGE_WRITE);
    const char *chain[] = {RILL_RG_END_MAIN_PASS, "ssgi", RILL_RG_TONEMAPPING};
    assert_int_equal(rill_rg_add_edges(g, chain, 3, NULL), RILL_OK);
    rill_error err = {0};
    if (rill_rg_compile(g, &err) != RILL_OK)
        fail_msg("%s", err.msg);
    assert_true(rill_rg_order_of(g, RILL_RG_END_MAIN_PASS) < rill_rg_order_of(g, "ssgi"));
    assert_true(rill_rg_order_of(g, "ssgi") < rill_rg_order_of(g, RILL_RG_TONEMAPPING));
    assert_true(rill_rg_order_of(g, "transparent") < rill_rg_order_of(g, "ssgi"));
    rill_rg_destroy(g);
}

static void test_unknown_label_is_an_error_at_once(void **state) {
    (void)state;
    rill_rg *g = frame_graph();
    rill_error err = {0};
    assert_int_equal(rill_rg_add_edge(g, RILL_RG_END_MAIN_PASS, "lumen_trace", &err),
                     RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "lumen_trace"));
    assert_int_equal(rill_rg_add_edge(g, "nope", RILL_RG_TONEMAPPING, &err), RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "'nope'"));
    /* The graph is unchanged and still compiles. */
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    /* Duplicates and unknown resources. */
    rill_rg_pass_desc d = {"opaque", NULL, NULL, false};
    assert_int_equal(rill_rg_add_pass(g, &d, &err), RILL_ERR_ALREADY_EXISTS);
    assert_int_equal(rill_rg_access(g, "opaque", "hdr", RILL_RG_USAGE_COLOR_WRITE, &err),
                     RILL_ERR_ALREADY_EXISTS);
    acc(g, "opaque", "ghost", RILL_RG_USAGE_SAMPLED_FRAGMENT);
    assert_int_equal(rill_rg_compile(g, &err), RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "ghost"));
    rill_rg_destroy(g);
}

static void test_cycle_reported(void **state) {
    (void)state;
    rill_rg *g = rill_rg_create();
    pass(g, "a", true);
    pass(g, "b", true);
    pass(g, "c", true);
    assert_int_equal(rill_rg_add_edge(g, "a", "b", NULL), RILL_OK);
    assert_int_equal(rill_rg_add_edge(g, "b", "c", NULL), RILL_OK);
    assert_int_equal(rill_rg_add_edge(g, "c", "a", NULL), RILL_OK);
    rill_error err = {0};
    assert_int_equal(rill_rg_compile(g, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "cycle"));
    rill_rg_destroy(g);
}

static void test_barriers(void **state) {
    (void)state;
    rill_rg *g = frame_graph();
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    int32_t depth = rill_rg_resource_find(g, "depth"), hdr = rill_rg_resource_find(g, "hdr");
    int32_t out = rill_rg_resource_find(g, "out");
    uint32_t n;
    /* prepass: depth none -> depth_write (layout transition from undefined). */
    const rill_rg_barrier *b = rill_rg_barriers(g, (uint32_t)rill_rg_order_of(g, "prepass"), &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].resource, depth);
    assert_int_equal(b[0].src, RILL_RG_USAGE_NONE);
    assert_int_equal(b[0].dst, RILL_RG_USAGE_DEPTH_WRITE);
    /* opaque: depth write -> read, shadow map write -> sampled, hdr none -> color. */
    b = rill_rg_barriers(g, (uint32_t)rill_rg_order_of(g, "opaque"), &n);
    assert_int_equal(n, 3);
    assert_int_equal(b[0].src, RILL_RG_USAGE_DEPTH_WRITE);
    assert_int_equal(b[0].dst, RILL_RG_USAGE_DEPTH_READ);
    assert_int_equal(b[1].dst, RILL_RG_USAGE_SAMPLED_FRAGMENT);
    assert_int_equal(b[2].resource, hdr);
    /* transparent: depth stays read-only (no barrier), hdr write after write needs one. */
    b = rill_rg_barriers(g, (uint32_t)rill_rg_order_of(g, "transparent"), &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].resource, hdr);
    assert_int_equal(b[0].src, RILL_RG_USAGE_COLOR_WRITE);
    assert_int_equal(b[0].dst, RILL_RG_USAGE_COLOR_WRITE);
    /* anchors have none */
    rill_rg_barriers(g, (uint32_t)rill_rg_order_of(g, RILL_RG_END_MAIN_PASS), &n);
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
    assert_int_equal(rill_rg_declare_image(g, "a", &d, NULL), RILL_OK);
    assert_int_equal(rill_rg_declare_image(g, "b", &d, NULL), RILL_OK);
    assert_int_equal(rill_rg_declare_image(g, "c", &d, NULL), RILL_OK);
    assert_int_equal(
        rill_rg_import_buffer(g, "sink", NULL, RILL_RG_USAGE_NONE, RILL_RG_USAGE_NONE, NULL),
        RILL_OK);
    pass(g, "p1", false);
    acc(g, "p1", "a", RILL_RG_USAGE_COLOR_WRITE);
    pass(g, "p2", false);
    acc(g, "p2", "a", RILL_RG_USAGE_SAMPLED_FRAGMENT);
    acc(g, "p2", "b", RILL_RG_USAGE_COLOR_WRITE);
    pass(g, "p3", false);
    acc(g, "p3", "b", RILL_RG_USAGE_SAMPLED_FRAGMENT);
    acc(g, "p3", "c", RILL_RG_USAGE_COLOR_WRITE);
    pass(g, "p4", true);
    acc(g, "p4", "c", RILL_RG_USAGE_TRANSFER_SRC);
    acc(g, "p4", "sink", RILL_RG_USAGE_TRANSFER_DST);
    assert_int_equal(rill_rg_compile(g, NULL), RILL_OK);
    /* a dies at p2 and c is born at p3: they share a slot; b overlaps both. */
    int32_t sa = rill_rg_resource_slot(g, (uint32_t)rill_rg_resource_find(g, "a"));
    int32_t sb = rill_rg_resource_slot(g, (uint32_t)rill_rg_resource_find(g, "b"));
    int32_t sc = rill_rg_resource_slot(g, (uint32_t)rill_rg_resource_find(g, "c"));
    assert_int_equal(sa, sc);
    assert_int_not_equal(sa, sb);
    assert_int_equal(rill_rg_slot_count(g), 2);
    rill_rg_image_desc rd;
    rill_rg_resource_image_desc(g, (uint32_t)rill_rg_resource_find(g, "a"), &rd);
    assert_int_equal(rd.width, 100);
    assert_int_equal(rd.height, 50);
    assert_int_equal(rd.format, RILL_RG_FORMAT_RGBA16F);
    rill_rg_destroy(g);
}

static void test_dump(void **state) {
    (void)state;
    rill_rg *g = frame_graph();
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
        cmocka_unit_test(test_unknown_label_is_an_error_at_once),
        cmocka_unit_test(test_cycle_reported),
        cmocka_unit_test(test_barriers),
        cmocka_unit_test(test_transients_alias),
        cmocka_unit_test(test_dump),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rill_intern_shutdown();
    return rc;
}
