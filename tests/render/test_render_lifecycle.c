/* test_render_lifecycle.c: GPU tests of the renderer's lifetime on lavapipe with validation on:
 * create / destroy cycles give everything back, a renderer recording no frames still frees what is
 * destroyed, uploads keep to their per-frame budget (a mesh of 3x the budget goes over several
 * frames and draws only once whole). No Vulkan device is a failure, never a skip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "golden.h"
#include "model_gen.h"
#include "rill/formats/image.h"
#include "rill/render.h"

#include "gpu_fixture.h"

/* Lifetime details: resizing a headless renderer, the on-disk pipeline cache, idempotent destroy
 * of stale handles, and argument checks. */
static void test_lifecycle(void **state) {
    (void)state;
    const char *tmp = getenv("RILL_TEST_TMP");
    char cache[1024];
    snprintf(cache, sizeof(cache), "%s/pipelines.bin", tmp ? tmp : ".");
    if (tmp) {
        rill_dir_create_all(tmp, NULL);
    }
    remove(cache);
    for (int round = 0; round < 2; round++) {
        rill_renderer_desc d;
        memset(&d, 0, sizeof(d));
        d.width = 64;
        d.height = 64;
        d.validation = 1;
        d.pipeline_cache_path = cache;
        rill_renderer *r = NULL;
        rill_error err = {0};
        assert_non_null(r = rill_renderer_create(&d, &err));
        rill_render_snapshot snap;
        memset(&snap, 0, sizeof(snap));
        snap.view.clear_color[1] = 1.0f;
        snap.view.tonemapper = RILL_TONEMAP_NONE;
        uint8_t px[64 * 64 * 4]; /* big enough for 64x64 and 80x48 */
        /* No frame yet: nothing to read. */
        assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_ERR_NOT_FOUND);
        snap.view.ssao.enabled = true; /* requested, but the default Medium tier switches it off */
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
        rill_strbuf sb = {0};
        rill_renderer_dump_graph(r, &sb);
        assert_null(strstr(sb.data, "ssao"));
        rill_strbuf_free(&sb);
        assert_int_equal(rill_renderer_resize(r, 80, 48, &err), RILL_OK);
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
        uint32_t w, h;
        rill_renderer_size(r, &w, &h);
        assert_int_equal(w, 80);
        assert_int_equal(h, 48);
        assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
        assert_int_equal(px[(47 * 80 + 79) * 4 + 1], 255); /* the green clear reaches the corner */
        assert_int_equal(rill_renderer_read_pixels(r, px, 16, &err), RILL_ERR_INVALID_ARGUMENT);
        assert_int_equal(rill_renderer_resize(r, 0, 10, &err), RILL_ERR_INVALID_ARGUMENT);
        rill_mesh m = rill_render_mesh_cube(r, &err);
        rill_render_mesh_destroy(r, m);
        rill_render_mesh_destroy(r, m); /* stale: no-op */
        rill_mesh none = {0};
        rill_render_mesh_destroy(r, none);
        rill_mesh_desc bad;
        memset(&bad, 0, sizeof(bad));
        assert_int_equal(rill_render_mesh_create(r, &bad, &err).id, 0);
        assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
        rill_vertex v[3];
        memset(v, 0, sizeof(v));
        uint32_t idx[3] = {0, 1, 7};
        rill_mesh_desc oob = {
            .vertices = v, .vertex_count = 3, .indices = idx, .index_count = 3, .label = "oob"};
        assert_int_equal(rill_render_mesh_create(r, &oob, &err).id, 0); /* index out of range */
        /* Every wrap mode and filter makes a usable material (one sampler each). */
        for (int wrap = 0; wrap < RILL_TEXTURE_WRAP_NUM; wrap++) {
            for (int nearest = 0; nearest < 2; nearest++) {
                rill_material_desc md;
                memset(&md, 0, sizeof(md));
                md.wrap = (rill_texture_wrap)wrap;
                md.nearest = nearest;
                rill_material mm = rill_render_material_create(r, &md, &err);
                assert_true(mm.id != 0);
                rill_render_instance in;
                memset(&in, 0, sizeof(in));
                in.mesh = rill_render_mesh_cube(r, &err);
                in.material = mm;
                for (int k = 0; k < 16; k++) {
                    in.transform[k] = (k % 5 == 0) ? 1.0f : 0.0f;
                }
                in.transform[14] = -3.0f;
                snap.instances = &in;
                snap.instance_count = 1;
                assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
                snap.instances = NULL;
                snap.instance_count = 0;
            }
        }
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        assert_int_equal(st.validation_messages, 0);
        rill_renderer_destroy(r);
        assert_true(rill_file_exists(cache)); /* written at destroy, read back in round 2 */
    }
    rill_renderer_destroy(NULL);
}

/* A renderer that records no frames (`rill fly --no-render`, a minimized window) still gives back
 * what is destroyed meanwhile: deferred destruction is collected outside frames too, so meshes made
 * and destroyed in a loop keep the renderer's bytes flat (they grew by every object before). */
static void test_destroy_without_frames(void **state) {
    (void)state;
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = 32;
    d.height = 32;
    d.validation = 1;
    rill_error err = {0};
    rill_renderer *r = rill_renderer_create(&d, &err);
    assert_non_null(r);
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK); /* one frame, then none */
    assert_int_equal(rill_renderer_wait_idle(r, &err), RILL_OK);
    rill_vertex v[3];
    memset(v, 0, sizeof(v));
    v[1].position[0] = 1.0f;
    v[2].position[1] = 1.0f;
    uint32_t idx[3] = {0, 1, 2};
    rill_mesh_desc md = {
        .vertices = v, .vertex_count = 3, .indices = idx, .index_count = 3, .label = "tri"};
    size_t before = 0;
    for (int i = 0; i < 3000; i++) {
        if (i == 1000) {
            before = rill_mem_live_bytes(RILL_MEM_RENDER);
        }
        rill_mesh m = rill_render_mesh_create(r, &md, &err);
        assert_true(m.id != 0);
        rill_render_mesh_destroy(r, m);
    }
    size_t after = rill_mem_live_bytes(RILL_MEM_RENDER);
    print_message("render bytes after 1000 / 3000 meshes made and destroyed: %zu / %zu\n", before,
                  after);
    assert_true(after <= before + 16u * 1024u); /* at most DEFER_COLLECT (64) objects wait */
    rill_renderer_destroy(r);
}

/* The staging ring spends at most the per-frame budget: an upload larger than it (the 16 KiB
 * texture) goes in pieces over several frames; resources become drawable as their uploads land,
 * never before. */
static void test_upload_budget(void **state) {
    (void)state;
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = d.height = 32;
    d.validation = 1;
    d.upload_budget_bytes = 4096;
    rill_renderer *r = NULL;
    rill_error err = {0};
    assert_non_null(r = rill_renderer_create(&d, &err));
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    rill_material m = rill_render_material_create(r, &md, &err);
    rill_render_instance inst[12];
    memset(inst, 0, sizeof(inst));
    for (int i = 0; i < 12; i++) {
        inst[i].mesh = rill_render_mesh_cube(r, &err); /* 1296 bytes each */
        inst[i].material = m;
        trs(inst[i].transform, (float)(i % 4) - 1.5f, (float)(i / 4) - 1.0f, -6.0f, 0.5f, 0.5f,
            0.5f, 0);
    }
    static uint8_t big[64 * 64 * 4]; /* 16 KiB: larger than the whole budget */
    rill_texture_desc td = {.pixels = big, .width = 64, .height = 64, .srgb = true, .label = "big"};
    assert_true(rill_render_texture_create(r, &td, &err).id != 0);
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    snap.instances = inst;
    snap.instance_count = 12;
    uint32_t visible_prev = 0;
    bool saw_partial = false;
    for (int f = 0; f < 12; f++) {
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        assert_true(st.uploaded_bytes_last_frame <= 4096);
        assert_true(st.instances_visible >= visible_prev);
        saw_partial |= st.instances_visible > 0 && st.instances_visible < 12;
        visible_prev = st.instances_visible;
    }
    assert_true(saw_partial);
    assert_int_equal(visible_prev, 12);
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    assert_int_equal(st.validation_messages, 0);
    rill_renderer_destroy(r);
}

/* A flat grid of n x n vertices over [-1, 1]^2 at z = 0 facing +Z. */
static rill_mesh grid_mesh(rill_renderer *r, uint32_t n, rill_error *err) {
    rill_vertex *v = rill_calloc((size_t)n * n, sizeof(rill_vertex));
    uint32_t *idx = rill_malloc((size_t)(n - 1) * (n - 1) * 6 * sizeof(uint32_t));
    for (uint32_t y = 0; y < n; y++) {
        for (uint32_t x = 0; x < n; x++) {
            rill_vertex *p = &v[y * n + x];
            p->position[0] = -1.0f + 2.0f * (float)x / (float)(n - 1);
            p->position[1] = -1.0f + 2.0f * (float)y / (float)(n - 1);
            p->normal[2] = 1.0f;
            p->uv[0] = (float)x / (float)(n - 1);
            p->uv[1] = (float)y / (float)(n - 1);
            p->tangent[0] = p->tangent[3] = 1.0f;
        }
    }
    uint32_t k = 0;
    for (uint32_t y = 0; y + 1 < n; y++) {
        for (uint32_t x = 0; x + 1 < n; x++) {
            uint32_t a = y * n + x, b = a + 1, c = a + n, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(idx + k, quad, sizeof(quad));
            k += 6;
        }
    }
    rill_mesh_desc md = {
        .vertices = v, .vertex_count = n * n, .indices = idx, .index_count = k, .label = "grid"};
    rill_mesh m = rill_render_mesh_create(r, &md, err);
    rill_free(v);
    rill_free(idx);
    return m;
}

/* Renders the grid (lit by a sun) with a 16 KiB upload budget until it is drawn, or without a
 * budget; then three more frames, and reads the picture into px. Returns how many frames copied
 * bytes before the grid was drawn. */
static int draw_grid(uint64_t budget, uint8_t *px) {
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = d.height = 48;
    d.validation = 1;
    d.quality = RILL_RENDER_QUALITY_LOW;
    d.upload_budget_bytes = budget;
    rill_renderer *r = NULL;
    rill_error err = {0};
    assert_non_null(r = rill_renderer_create(&d, &err));
    rill_material_desc mdesc;
    memset(&mdesc, 0, sizeof(mdesc));
    mdesc.base_color[0] = mdesc.base_color[1] = mdesc.base_color[2] = mdesc.base_color[3] = 1.0f;
    rill_material mat = rill_render_material_create(r, &mdesc, &err);
    /* Created after the material: the grid's uploads are the last queued. 33 x 33 vertices are
     * 52,272 bytes (3.2x the budget), its indices 24,576. */
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.mesh = grid_mesh(r, 33, &err);
    in.material = mat;
    assert_true(in.mesh.id && mat.id);
    trs(in.transform, 0.0f, 0.0f, -4.0f, 1.0f, 1.0f, 1.0f, 0);
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    snap.instances = &in;
    snap.instance_count = 1;
    snap.has_sun = true;
    snap.sun.direction[1] = -0.3f;
    snap.sun.direction[2] = -1.0f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 2.0f;
    snap.view.tonemapper = RILL_TONEMAP_NONE;
    int copying = 0, after = -1;
    for (int f = 0; f < 64 && after < 3; f++) {
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        if (budget) {
            assert_true(st.uploaded_bytes_last_frame <= budget);
        }
        if (st.instances_visible == 0) { /* only while some of its bytes are still queued */
            assert_true(st.upload_backlog_bytes > 0);
            copying += st.uploaded_bytes_last_frame > 0;
        } else { /* from the frame that records its last piece */
            assert_int_equal(st.upload_backlog_bytes, 0);
            after++;
        }
    }
    assert_int_equal(after, 3);
    assert_int_equal(rill_renderer_read_pixels(r, px, 48 * 48 * 4, &err), RILL_OK);
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    assert_int_equal(st.validation_messages, 0);
    rill_renderer_destroy(r);
    return copying;
}

/* A mesh of more than 3x the budget: copied over at least 3 frames, none over the budget, not
 * drawn until every byte landed, then the same picture as without a budget, byte for byte. */
static void test_mesh_over_frames(void **state) {
    (void)state;
    static uint8_t budgeted[48 * 48 * 4], whole[48 * 48 * 4];
    int frames = draw_grid(16384, budgeted);
    print_message("grid: %d frames of uploads before it was drawn (16 KiB budget)\n", frames);
    assert_true(frames >= 3);
    assert_true(draw_grid(0, whole) <= 1);
    assert_memory_equal(budgeted, whole, sizeof(whole));
    uint32_t lit = 0;
    for (size_t i = 0; i < sizeof(whole); i += 4) {
        lit += whole[i] > 0;
    }
    assert_true(lit > 100); /* the grid is on screen */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle),
        cmocka_unit_test(test_destroy_without_frames),
        cmocka_unit_test(test_upload_budget),
        cmocka_unit_test(test_mesh_over_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
