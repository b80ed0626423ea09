/* test_hlod_format.c: the .hlod proxy file (rill/formats/hlod.h) and its bake by the exporter:
 * a write/parse round trip, every truncation and each kind of corruption refused with an error
 * naming the file (never a crash), a part with no triangles accepted, and the export of a small
 * generated world (two district scenes of sphere models, six streamed instances on a grid) holding
 * a level-0 proxy per district scene within the triangle budget and a level-1 proxy whose cells
 * hold every instance exactly once; --no-hlod (no_hlod) bakes none. */
#include "rill_test.h"

#include "export/export_test_project.h"
#include "rill/formats/export.h"
#include "rill/formats/hlod.h"

/* A proxy of `parts` parts: part p is a quad (2 triangles) of palette entries p and p+1, except
 * that part `empty` (if < parts) has no vertices and no triangles. */
static rill_hlod *make(uint32_t parts, uint32_t empty) {
    rill_hlod *h = calloc(1, sizeof *h);
    h->level = 1;
    h->part_count = parts;
    h->parts = calloc(parts, sizeof *h->parts);
    for (uint32_t p = 0; p < parts; p++) {
        rill_hlod_part *pt = &h->parts[p];
        pt->cell_min[0] = (float)p * 10.0f, pt->cell_max[0] = (float)p * 10.0f + 10.0f;
        pt->cell_max[1] = 10.0f;
        if (p == empty) {
            continue;
        }
        pt->vertex_count = 4, pt->index_count = 6, pt->palette_count = 2;
        pt->palette = calloc(2, 4);
        pt->palette[0] = 0xFF0000FFu, pt->palette[1] = 0xFF00FF00u + p;
        pt->vertices = calloc(4, sizeof *pt->vertices);
        for (uint32_t v = 0; v < 4; v++) {
            pt->vertices[v].position[0] = (float)(p * 10u + (v & 1u) * 5u);
            pt->vertices[v].position[2] = (float)((v >> 1) * 5u);
            pt->vertices[v].normal[1] = 1.0f;
            pt->vertices[v].color = v & 1u;
        }
        static const uint32_t idx[6] = {0, 1, 2, 2, 1, 3};
        pt->indices = calloc(6, 4);
        memcpy(pt->indices, idx, sizeof idx);
        pt->box_max[0] = 5, pt->box_max[2] = 5;
    }
    return h;
}

static void free_made(rill_hlod *h) {
    for (uint32_t p = 0; p < h->part_count; p++) {
        free(h->parts[p].palette);
        free(h->parts[p].vertices);
        free(h->parts[p].indices);
    }
    free(h->parts);
    free(h);
}

static void encode(const rill_hlod *h, uint8_t **data, size_t *size) {
    rill_error err = {0};
    assert_int_equal(rill_hlod_write(h, data, size, &err), RILL_OK);
}

static void test_round_trip(void **state) {
    (void)state;
    rill_hlod *h = make(3, 1);
    uint8_t *data = NULL;
    size_t size = 0;
    encode(h, &data, &size);
    rill_hlod *back = NULL;
    rill_error err = {0};
    assert_int_equal(rill_hlod_parse(data, size, "t.hlod", &back, &err), RILL_OK);
    assert_int_equal(back->level, 1);
    assert_int_equal(back->part_count, 3);
    assert_int_equal(rill_hlod_triangle_count(back), 4);
    assert_int_equal(back->parts[1].index_count, 0); /* the empty part survives */
    assert_int_equal(back->parts[2].palette[1], 0xFF00FF02u);
    assert_true(back->parts[2].vertices[3].position[0] == 25.0f);
    assert_true(back->parts[2].cell_min[0] == 20.0f);
    rill_hlod_free(back);
    rill_free(data);
    free_made(h);
}

/* Every prefix of a valid file, and the file with a byte more, is refused with an error naming
 * the file and an offset; nothing is returned. */
static void test_truncations(void **state) {
    (void)state;
    rill_hlod *h = make(2, 5);
    uint8_t *data = NULL;
    size_t size = 0;
    encode(h, &data, &size);
    for (size_t n = 0; n < size; n++) {
        uint8_t *cut = malloc(n + 1u);
        memcpy(cut, data, n);
        rill_hlod *out = (rill_hlod *)(uintptr_t)1;
        rill_error err = {0};
        assert_int_not_equal(rill_hlod_parse(cut, n, "cut.hlod", &out, &err), RILL_OK);
        assert_null(out);
        assert_non_null(strstr(err.msg, "cut.hlod"));
        free(cut);
    }
    uint8_t *more = malloc(size + 1u);
    memcpy(more, data, size);
    more[size] = 0;
    rill_hlod *out = NULL;
    rill_error err = {0};
    assert_int_equal(rill_hlod_parse(more, size + 1u, "more.hlod", &out, &err), RILL_ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "trailing"));
    free(more);
    rill_free(data);
    free_made(h);
}

static void expect_refused(const uint8_t *data, size_t size, size_t at, uint32_t value,
                           rill_result want, const char *needle) {
    uint8_t *bad = malloc(size);
    memcpy(bad, data, size);
    for (int k = 0; k < 4; k++) {
        bad[at + (size_t)k] = (uint8_t)(value >> (8 * k));
    }
    rill_hlod *out = NULL;
    rill_error err = {0};
    assert_int_equal(rill_hlod_parse(bad, size, "bad.hlod", &out, &err), want);
    assert_null(out);
    if (!strstr(err.msg, needle)) {
        fail_msg("'%s' lacks '%s'", err.msg, needle);
    }
    free(bad);
}

static void test_corruptions(void **state) {
    (void)state;
    rill_hlod *h = make(1, 5);
    uint8_t *data = NULL;
    size_t size = 0;
    encode(h, &data, &size);
    const size_t part = RILL_HLOD_HEADER_SIZE;
    const size_t verts = part + RILL_HLOD_PART_SIZE + 2u * 4u;
    const size_t idx = verts + 4u * RILL_HLOD_VERTEX_SIZE;
    expect_refused(data, size, 0, 0x21444C48u, RILL_ERR_CORRUPT, "not a .hlod");
    expect_refused(data, size, 4, 2, RILL_ERR_VERSION, "version 2");
    expect_refused(data, size, 8, 7, RILL_ERR_CORRUPT, "level");
    expect_refused(data, size, 12, 0xFFFFFFFFu, RILL_ERR_CORRUPT, "part count");
    expect_refused(data, size, part + 40, 0x7FFFFFFFu, RILL_ERR_CORRUPT, "count out of range");
    expect_refused(data, size, part + 44, 7, RILL_ERR_CORRUPT, "count out of range");
    expect_refused(data, size, part + 48, 0, RILL_ERR_CORRUPT, "count out of range");
    expect_refused(data, size, part, 0x7FC00000u, RILL_ERR_CORRUPT, "non-finite bounds");
    expect_refused(data, size, verts, 0x7F800000u, RILL_ERR_CORRUPT, "non-finite vertex");
    expect_refused(data, size, verts + 24, 2, RILL_ERR_CORRUPT, "palette index");
    expect_refused(data, size, idx + 8, 4, RILL_ERR_CORRUPT, "index out of range");
    rill_free(data);
    free_made(h);
}

/* A proxy with no triangles at all (a district of nothing but lights) is valid. */
static void test_zero_triangles(void **state) {
    (void)state;
    rill_hlod *h = make(1, 0);
    h->level = 0;
    uint8_t *data = NULL;
    size_t size = 0;
    encode(h, &data, &size);
    rill_hlod *back = NULL;
    assert_int_equal(rill_hlod_parse(data, size, "empty.hlod", &back, NULL), RILL_OK);
    assert_int_equal(rill_hlod_triangle_count(back), 0);
    rill_hlod_free(back);
    rill_free(data);
    free_made(h);
}

static void test_paths(void **state) {
    (void)state;
    char p[64];
    assert_true(rill_hlod_path(p, sizeof p, "districts/d_1.rsn", 0));
    assert_string_equal(p, "districts/d_1.hlod");
    assert_true(rill_hlod_path(p, sizeof p, "main.rsn", 1));
    assert_string_equal(p, "main.hlod1");
    assert_false(rill_hlod_path(p, sizeof p, "main.glb", 0));
    assert_false(rill_hlod_path(p, 8, "districts/d_1.rsn", 0));
}

/* >>export ------------------------------------------------------------------------------------ */

#define GRID 3 /* instances per row */
#define SPACING 100.0f

/* A sphere whose material's base colour is a texture beside it (models/tex/red.png: pure red)
 * times a factor of (1, 1, 0.5): the proxy's colour must come from both. */
static void write_red_ball(const char *dir) {
    uint8_t px[8 * 8 * 4];
    for (int i = 0; i < 64; i++) {
        px[i * 4] = 255, px[i * 4 + 1] = 0, px[i * 4 + 2] = 0, px[i * 4 + 3] = 255;
    }
    uint8_t *png = NULL;
    size_t size = 0;
    assert_int_equal(rill_image_encode_png(px, 8, 8, 4, &png, &size, NULL), RILL_OK);
    rill_test_write_file(dir, "models/tex/red.png", png, size);
    rill_free(png);
    rill_gltf_model *m = tm_sphere(24, 12);
    m->image_count = 1;
    m->images = tm_alloc(1, sizeof *m->images);
    m->images[0].uri = tm_strdup("tex/red.png");
    m->texture_count = 1;
    m->textures = tm_alloc(1, sizeof *m->textures);
    m->textures[0] = (rill_gltf_texture){.sampler = -1, .image = 0};
    m->materials[0].base_color_texture.texture = 0;
    m->materials[0].base_color_texture.scale = 1.0f;
    m->materials[0].base_color_factor[0] = m->materials[0].base_color_factor[1] = 1.0f;
    m->materials[0].base_color_factor[2] = 0.5f;
    m->materials[0].base_color_factor[3] = 1.0f;
    uint8_t *bytes = NULL;
    size_t n = 0;
    assert_int_equal(rill_glb_write_memory(m, NULL, &bytes, &n, NULL), RILL_OK);
    rill_test_write_file(dir, "models/ball.glb", bytes, n);
    rill_free(bytes);
    rill_gltf_model_free(m);
}

static void write_world(const char *dir) {
    write_red_ball(dir); /* 528 triangles */
    ep_write_sphere(dir, "models/pebble.glb", 8, 4);
    rill_strbuf a = {0}, b = {0};
    rill_strbuf_printf(&a, "rsn 1\n");
    rill_strbuf_printf(&b, "rsn 1\n");
    for (uint32_t i = 0; i < 30; i++) {
        rill_strbuf_printf(&a,
                           "entity %u \"b%u\" {\n  Model { path: @\"models/ball.glb\" }\n"
                           "  Transform { translation: (%d, 2, %d) rotation: (0, 0, 0, 1) "
                           "scale: (3, 3, 3) }\n}\n",
                           i + 1, i, (int)(i % 6) * 12 - 30, (int)(i / 6) * 12 - 30);
        rill_strbuf_printf(&b,
                           "entity %u {\n  Model { path: @\"models/pebble.glb\" }\n"
                           "  Transform { translation: (%d, 0, 0) }\n}\n",
                           i + 1, (int)i * 3 - 45);
    }
    /* A child placed through its parent, and a model that is not there (left out, warned). */
    rill_strbuf_printf(&a, "entity 100 parent 1 { Model { path: @\"models/ball.glb\" } "
                           "Transform { translation: (0, 10, 0) } }\n"
                           "entity 101 { Model { path: @\"models/missing.glb\" } }\n");
    ep_write_text(dir, "districts/a.rsn", a.data);
    ep_write_text(dir, "districts/b.rsn", b.data);
    ep_write_text(dir, "districts/unused.rsn", b.data);
    rill_strbuf m = {0};
    rill_strbuf_printf(&m, "rsn 1\n");
    for (uint32_t i = 0; i < GRID * 2; i++) {
        rill_strbuf_printf(
            &m,
            "entity %u {\n  SceneInstance {\n    scene: @\"districts/%s.rsn\"\n"
            "    streamed: true\n    bounds_min: (-50, 0, -50)\n"
            "    bounds_max: (50, 20, 50)\n  }\n  Transform { translation: (%g, 0, %g) }\n}\n",
            i + 1, i % 2 ? "b" : "a", (double)(i % GRID) * SPACING, (double)(i / GRID) * SPACING);
    }
    ep_write_text(dir, "main.rsn", m.data);
    ep_write_text(dir, "project.toml", "[project]\nname = \"hlod\"\nmain_scene = \"main.rsn\"\n");
    rill_strbuf_free(&a);
    rill_strbuf_free(&b);
    rill_strbuf_free(&m);
}

static rill_hlod *read_proxy(const char *dir, const char *rel) {
    char path[1024];
    rill_test_path(path, sizeof path, dir, rel);
    uint8_t *data = NULL;
    size_t size = 0;
    if (rill_file_read_all(path, &data, &size, NULL) != RILL_OK) {
        return NULL;
    }
    rill_hlod *h = NULL;
    rill_error err = {0};
    if (rill_hlod_parse(data, size, rel, &h, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    rill_free(data);
    return h;
}

static void test_export_bakes_proxies(void **state) {
    (void)state;
    char dir[512], out[512], none[512];
    rill_test_tmpdir(dir, sizeof dir, "hlod_export");
    rill_test_path(out, sizeof out, dir, "out");
    rill_test_path(none, sizeof none, dir, "none");
    char proj[600];
    rill_test_path(proj, sizeof proj, dir, "proj");
    write_world(proj);
    rill_error err = {0};
    rill_export_result res;
    assert_int_equal(rill_export_run(&(rill_export_desc){.project_dir = proj,
                                                         .loose_out = out,
                                                         .no_cache = true,
                                                         .hlod_triangles = 200},
                                     &res, &err),
                     RILL_OK);
    rill_export_result_free(&res);
    rill_hlod *a = read_proxy(out, "districts/a.hlod");
    rill_hlod *b = read_proxy(out, "districts/b.hlod");
    assert_non_null(a);
    assert_non_null(b);
    assert_null(read_proxy(out, "districts/unused.hlod")); /* no streamed instance names it */
    assert_int_equal(a->level, 0);
    assert_int_equal(a->part_count, 1);
    /* 31 balls of 528 triangles went in; the budget (with the sloppy fallback's 1.25) holds. */
    uint64_t ta = rill_hlod_triangle_count(a);
    assert_true(ta > 20 && ta <= 250);
    /* The child ball stands 10 m above its parent (2 m up, scale 3): the box reaches y >= 30. */
    assert_true(a->parts[0].box_max[1] > 30.0f);
    /* Every ball is red (texture mean x factor): the palette holds that red, nothing greener. */
    assert_true(a->parts[0].palette_count >= 1);
    for (uint32_t i = 0; i < a->parts[0].palette_count; i++) {
        uint32_t c = a->parts[0].palette[i];
        if (!((c & 0xFFu) >= 250u && ((c >> 8) & 0xFFu) <= 4u && ((c >> 16) & 0xFFu) <= 4u)) {
            print_error("palette[%u] = %08x\n", i, c);
        }
        assert_true((c & 0xFFu) >= 250u && ((c >> 8) & 0xFFu) <= 4u && ((c >> 16) & 0xFFu) <= 4u);
    }
    rill_hlod *l1 = read_proxy(out, "main.hlod1");
    assert_non_null(l1);
    assert_int_equal(l1->level, 1);
    /* Cells of 3 x 100 m: the 3 x 2 grid of instances (0..200, 0..100) falls into one cell. */
    assert_int_equal(l1->part_count, 1);
    for (uint32_t i = 0; i < GRID * 2; i++) {
        float cx = (float)(i % GRID) * SPACING, cz = (float)(i / GRID) * SPACING;
        uint32_t holders = 0;
        for (uint32_t p = 0; p < l1->part_count; p++) {
            const rill_hlod_part *pt = &l1->parts[p];
            holders += cx >= pt->cell_min[0] && cx < pt->cell_max[0] && cz >= pt->cell_min[1] &&
                       cz < pt->cell_max[1];
        }
        assert_int_equal(holders, 1);
    }
    assert_true(rill_hlod_triangle_count(l1) <= 250);
    rill_hlod_free(a);
    rill_hlod_free(b);
    rill_hlod_free(l1);
    /* Smaller cells: one cell per instance column and row. */
    assert_int_equal(rill_export_run(&(rill_export_desc){.project_dir = proj,
                                                         .loose_out = out,
                                                         .no_cache = true,
                                                         .hlod_cell = 100.0f},
                                     &res, &err),
                     RILL_OK);
    rill_export_result_free(&res);
    l1 = read_proxy(out, "main.hlod1");
    assert_int_equal(l1->part_count, GRID * 2);
    rill_hlod_free(l1);
    /* Proxies off: none. */
    assert_int_equal(rill_export_run(&(rill_export_desc){.project_dir = proj,
                                                         .loose_out = none,
                                                         .no_cache = true,
                                                         .no_hlod = true},
                                     &res, &err),
                     RILL_OK);
    rill_export_result_free(&res);
    assert_null(read_proxy(none, "districts/a.hlod"));
    assert_null(read_proxy(none, "main.hlod1"));
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),  cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_corruptions), cmocka_unit_test(test_zero_triangles),
        cmocka_unit_test(test_paths),       cmocka_unit_test(test_export_bakes_proxies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
