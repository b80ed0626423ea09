/* test_export.c: the exporter library (rill/formats/export.h) on a generated project: pack
 * contents and paths, .rmip formats chosen by name, glTF slot and HDR, edge buffers, LOD chains,
 * checksums, the cache (second run rebuilds nothing, one edited input rebuilds exactly one,
 * --force), order-independent pack bytes, broken and conflicting inputs, loose output into the
 * project itself, and the path rule. */
#include "export_test_project.h"

#include "../gltf/morph_quad.h"
#include "../gltf/skin_bar.h"

#include "rill/asset.h"
#include "rill/formats/export.h"
#include "rill/formats/lod.h"
#include "rill/formats/rmip.h"
#include "rill/formats/rmip_cube.h"
#include "rill/formats/rpak.h"

/* Reads a pack entry (the test fails when it is missing). Caller frees. */
static uint8_t *pack_read(rill_rpak *p, const char *path, size_t *out_size) {
    int32_t i = rill_rpak_find(p, path);
    if (i < 0) {
        fail_msg("missing pack entry %s", path);
    }
    uint8_t *data = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_read_entry(p, (uint32_t)i, &data, out_size, &err), RILL_OK);
    return data;
}

static void expect_rmip(rill_rpak *p, const char *path, rill_tex_format format, bool srgb,
                        uint32_t width) {
    size_t n = 0;
    uint8_t *data = pack_read(p, path, &n);
    rill_rmip_info info;
    rill_error err = {0};
    assert_int_equal(rill_rmip_parse(data, n, n, path, &info, &err), RILL_OK);
    if (info.format != format || info.srgb != srgb) {
        fail_msg("%s: format %s srgb %d, expected %s srgb %d", path,
                 rill_tex_format_name(info.format), info.srgb, rill_tex_format_name(format), srgb);
    }
    assert_int_equal(info.width, width);
    assert_int_equal(info.level_count, rill_image_mip_count(info.width, info.height));
    rill_free(data);
}

static uint64_t glb_triangles(rill_rpak *p, const char *path, bool *out_has_edges) {
    size_t n = 0;
    uint8_t *data = pack_read(p, path, &n);
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    if (rill_gltf_read_memory(data, n, NULL, &m, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    uint64_t tris = rill_gltf_model_triangle_count(m);
    if (out_has_edges) {
        *out_has_edges = m->mesh_count > 0 && m->meshes[0].primitives[0].edge_index_count > 0;
    }
    rill_gltf_model_free(m);
    rill_free(data);
    return tris;
}

static void expect_same_file(const char *x, const char *y) {
    uint8_t *a = NULL, *b = NULL;
    size_t an = 0, bn = 0;
    assert_int_equal(rill_file_read_all(x, &a, &an, NULL), RILL_OK);
    assert_int_equal(rill_file_read_all(y, &b, &bn, NULL), RILL_OK);
    assert_int_equal(an, bn);
    assert_memory_equal(a, b, an);
    rill_free(a);
    rill_free(b);
}

static rill_result run_export(const char *proj, const char *pack, const char *loose, bool force,
                              uint32_t jobs, rill_export_result *res) {
    rill_export_desc d = {0};
    d.project_dir = proj;
    d.out_pack = pack;
    d.loose_out = loose;
    d.force = force;
    d.bc7_quality = 1; /* the fast encoder keeps the test quick (under sanitizers too) */
    d.jobs = jobs;
    rill_error err = {0};
    rill_result r = rill_export_run(&d, res, &err);
    if (r != RILL_OK) {
        fprintf(stderr, "export: %s\n", err.msg);
    }
    return r;
}

static void test_pack_contents_and_cache(void **state) {
    (void)state;
    char dir[512], proj[1024], pack[1024], pack2[1024];
    rill_test_tmpdir(dir, sizeof(dir), "export");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "out/game.rpak");
    rill_test_path(pack2, sizeof(pack2), dir, "out/game2.rpak");
    ep_make_project(proj);

    rill_export_result res = {0};
    RILL_TEST_LEAK_BEGIN();
    assert_int_equal(run_export(proj, pack, NULL, false, 3, &res), RILL_OK);
    assert_int_equal(res.counts.inputs, EP_INPUTS);
    assert_int_equal(res.counts.rebuilt, EP_CONVERTED);
    assert_int_equal(res.counts.cached, 0);
    assert_int_equal(res.counts.copied, EP_INPUTS - EP_CONVERTED);
    assert_int_equal(res.counts.failed, 0);
    assert_int_equal(res.failure_count, 0);
    assert_true(res.counts.bytes_out > 0 && res.counts.bytes_in > 0);
    uint32_t outputs = res.counts.outputs;
    rill_export_result_free(&res);
    RILL_TEST_LEAK_END();

    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    assert_int_equal(rill_rpak_entry_count(p), outputs);
    uint32_t bad = 1;
    assert_int_equal(rill_rpak_verify(p, &bad, &err), RILL_OK);
    assert_int_equal(bad, 0);
    /* Formats: by name, by glTF slot (bumps.png has no suffix; "panel mr.png" comes through a
     * percent-encoded URI), HDR. */
    expect_rmip(p, "textures/albedo.rmip", RILL_TEX_FORMAT_BC7, true, 128);
    expect_rmip(p, "textures/brick_n.rmip", RILL_TEX_FORMAT_BC5, false, 64);
    expect_rmip(p, "textures/sky.rmip", RILL_TEX_FORMAT_RGBA16F, false, 64);
    expect_rmip(p, "models/panel/bumps.rmip", RILL_TEX_FORMAT_BC5, false, 64);
    expect_rmip(p, "models/panel/panel mr.rmip", RILL_TEX_FORMAT_BC7, false, 64);
    /* Sources replaced, copies present, skipped folders absent. */
    assert_true(rill_rpak_find(p, "textures/albedo.png") < 0);
    assert_true(rill_rpak_find(p, "models/panel/panel.gltf") < 0);
    assert_true(rill_rpak_find(p, "models/panel/panel.glb") >= 0);
    assert_true(rill_rpak_find(p, "scenes/main.rsn") >= 0);
    assert_true(rill_rpak_find(p, "project.toml") >= 0);
    assert_true(rill_rpak_find(p, "audio/beep.ogg") >= 0);
    assert_true(rill_rpak_find(p, "build/junk.txt") < 0);
    assert_true(rill_rpak_find(p, ".git/HEAD") < 0);
    assert_true(rill_rpak_find(p, ".rill-cache") < 0);
    /* LODs: the sphere gets 3 levels, each with at most 90% of its parent's triangles; the rock has
     * an authored level 1 and nothing baked. */
    /* The quad's four border edges are its edge buffer (a smooth closed sphere has none). */
    bool edges = false;
    assert_int_equal(glb_triangles(p, "models/panel/panel.glb", &edges), 2);
    assert_true(edges);
    uint64_t t0 = glb_triangles(p, "models/sphere.glb", NULL);
    uint64_t prev = t0;
    for (uint32_t l = 1; l <= 3; l++) {
        char lp[64];
        snprintf(lp, sizeof(lp), "models/sphere_lod%u.glb", l);
        uint64_t t = glb_triangles(p, lp, NULL);
        if (!(t < prev && t <= prev * 9 / 10)) {
            fail_msg("%s: %llu triangles after %llu", lp, (unsigned long long)t,
                     (unsigned long long)prev);
        }
        prev = t;
    }
    assert_true(rill_rpak_find(p, "models/sphere_lod4.glb") < 0);
    assert_true(rill_rpak_find(p, "models/rock_lod1.glb") >= 0);
    assert_true(rill_rpak_find(p, "models/rock_lod2.glb") < 0);
    assert_true(rill_rpak_find(p, "models/rock_lod1_lod1.glb") < 0);
    /* What the runtime reads: the scene names the exported .glb (strings that are not a model of
     * the project, and comments, stay as they were); the model names its exported .rmip images
     * (the path rule); the baked levels sit where the runtime's probe (rill_lod_path) looks. */
    size_t sn = 0;
    char *scene = (char *)pack_read(p, "scenes/main.rsn", &sn);
    char *scene_z = rill_malloc(sn + 1);
    memcpy(scene_z, scene, sn);
    scene_z[sn] = '\0';
    assert_non_null(strstr(scene_z, "@\"models/panel/panel.glb\""));
    assert_null(strstr(scene_z, "panel.gltf"));
    assert_non_null(strstr(scene_z, "\"missing.gltf\""));
    assert_non_null(strstr(scene_z, "(\"x.gltf\")"));
    rill_free(scene_z);
    rill_free(scene);
    size_t gn = 0;
    uint8_t *panel = pack_read(p, "models/panel/panel.glb", &gn);
    rill_gltf_model *pm = NULL;
    assert_int_equal(rill_gltf_read_memory(panel, gn, NULL, &pm, &err), RILL_OK);
    assert_int_equal(pm->image_count, 2);
    assert_string_equal(pm->images[0].uri, "bumps.rmip");
    assert_string_equal(pm->images[1].uri, "panel mr.rmip");
    rill_gltf_model_free(pm);
    rill_free(panel);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount_file(vfs, pack, NULL, &err), RILL_OK);
    char probe[256];
    assert_true(rill_lod_path(probe, sizeof(probe), "models/sphere.glb", 1));
    assert_true(rill_vfs_exists(vfs, probe));
    assert_true(rill_lod_path(probe, sizeof(probe), "models/sphere.glb", 3));
    assert_true(rill_vfs_exists(vfs, probe));
    assert_true(rill_vfs_exists(vfs, "models/panel/bumps.rmip"));
    rill_vfs_destroy(vfs);
    rill_rpak_close(p);

    /* Rebuilt with another worker count (other completion order, other texture banding): the
     * same bytes. */
    assert_int_equal(run_export(proj, pack2, NULL, true, 1, &res), RILL_OK);
    assert_int_equal(res.counts.rebuilt, EP_CONVERTED);
    rill_export_result_free(&res);
    expect_same_file(pack, pack2);
    /* Second run: nothing rebuilt, same bytes again. */
    assert_int_equal(run_export(proj, pack2, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.rebuilt, 0);
    assert_int_equal(res.counts.cached, EP_CONVERTED);
    assert_int_equal(res.counts.outputs, outputs);
    rill_export_result_free(&res);
    expect_same_file(pack, pack2);

    /* Edit one texture and the .gltf's external buffer: exactly those rebuild. */
    ep_write_png(proj, "textures/albedo.png", 128, 128, 9, false);
    assert_int_equal(run_export(proj, pack, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.rebuilt, 1);
    assert_int_equal(res.counts.cached, EP_CONVERTED - 1);
    rill_export_result_free(&res);
    uint8_t bin[92];
    {
        char binp[1100];
        rill_test_path(binp, sizeof(binp), proj, "models/panel/panel.bin");
        assert_int_equal(rill_file_read_range(binp, 0, sizeof(bin), bin, NULL), RILL_OK);
        float z = 0.25f;
        memcpy(bin + 8, &z, 4); /* vertex 0 z */
        rill_test_write_file(proj, "models/panel/panel.bin", bin, sizeof(bin));
    }
    assert_int_equal(run_export(proj, pack, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.rebuilt, 1); /* panel.gltf; panel.bin itself is a copy */
    rill_export_result_free(&res);

    /* --force rebuilds everything. */
    assert_int_equal(run_export(proj, pack, NULL, true, 2, &res), RILL_OK);
    assert_int_equal(res.counts.rebuilt, EP_CONVERTED);
    rill_export_result_free(&res);
    rill_test_tmpdir_remove(dir);
}

typedef struct events_seen {
    uint32_t begin, done, end, failed;
    char failed_path[256];
    char failed_msg[1024];
} events_seen;

static void count_events(const rill_export_event *ev, void *user) {
    events_seen *s = user;
    if (ev->type == RILL_EXPORT_EVENT_BEGIN) {
        s->begin++;
    } else if (ev->type == RILL_EXPORT_EVENT_INPUT_DONE) {
        s->done++;
        if (ev->status == RILL_EXPORT_STATUS_FAILED) {
            s->failed++;
            snprintf(s->failed_path, sizeof(s->failed_path), "%s", ev->path);
            snprintf(s->failed_msg, sizeof(s->failed_msg), "%s", ev->message);
        }
    } else if (ev->type == RILL_EXPORT_EVENT_END) {
        s->end++;
    }
}

static void test_broken_and_conflicting_inputs(void **state) {
    (void)state;
    char dir[512], proj[1024], pack[1024];
    rill_test_tmpdir(dir, sizeof(dir), "export_bad");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    ep_make_project(proj);
    const char junk[] = "\x89PNG\r\n\x1a\n this is not really a png";
    rill_test_write_file(proj, "textures/broken.png", junk, sizeof(junk));

    events_seen seen = {0};
    rill_export_desc d = {0};
    d.project_dir = proj;
    d.out_pack = pack;
    d.bc7_quality = 1;
    d.progress = count_events;
    d.progress_user = &seen;
    rill_export_result res = {0};
    rill_error err = {0};
    assert_int_not_equal(rill_export_run(&d, &res, &err), RILL_OK);
    assert_non_null(strstr(err.msg, "textures/broken.png"));
    assert_int_equal(res.counts.failed, 1);
    assert_int_equal(res.failure_count, 1);
    assert_string_equal(res.failures[0].path, "textures/broken.png");
    assert_true(strncmp(res.failures[0].message, "textures/broken.png: ", 21) == 0);
    assert_int_equal(res.counts.inputs, EP_INPUTS + 1);
    assert_int_equal(seen.begin, 1);
    assert_int_equal(seen.end, 1);
    assert_int_equal(seen.done, EP_INPUTS + 1);
    assert_int_equal(seen.failed, 1);
    assert_string_equal(seen.failed_path, "textures/broken.png");
    rill_export_result_free(&res);
    /* The rest is packed. */
    rill_rpak *p = NULL;
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    assert_true(rill_rpak_find(p, "textures/albedo.rmip") >= 0);
    assert_true(rill_rpak_find(p, "models/sphere_lod1.glb") >= 0);
    assert_true(rill_rpak_find(p, "textures/broken.rmip") < 0);
    assert_int_equal(rill_rpak_verify(p, NULL, &err), RILL_OK);
    rill_rpak_close(p);

    /* Two inputs with one output path: the later one (path order) fails, naming both. */
    rill_test_tmpdir_remove(proj);
    ep_make_project(proj);
    rill_test_write_file(proj, "textures/albedo.rmip", "baked", 5);
    assert_int_not_equal(rill_export_run(&d, &res, &err), RILL_OK);
    assert_int_equal(res.failure_count, 1);
    assert_string_equal(res.failures[0].path, "textures/albedo.rmip");
    assert_non_null(strstr(res.failures[0].message, "textures/albedo.png"));
    rill_export_result_free(&res);

    /* Bad arguments. */
    rill_export_desc none = {0};
    assert_int_equal(rill_export_run(&none, &res, &err), RILL_ERR_INVALID_ARGUMENT);
    none.project_dir = proj;
    assert_int_equal(rill_export_run(&none, &res, &err), RILL_ERR_INVALID_ARGUMENT);
    none.out_pack = pack;
    none.project_dir = "/nonexistent/rill/project";
    assert_int_equal(rill_export_run(&none, &res, &err), RILL_ERR_NOT_FOUND);
    rill_export_result_free(&res);
    rill_test_tmpdir_remove(dir);
}

/* Loose output into the project itself: generated files appear beside their sources, a second
 * export does not take them for inputs, inputs are never overwritten, and the same path works
 * from the pack and from the loose folder. */
/* A skinned, animated model and a morphed one keep their skin, weights, targets and clips through
 * the export (before rill-export/2 the .glb dropped them). */
static void test_motion_kept(void **state) {
    (void)state;
    char dir[512], proj[1024], pack[1024];
    static char text[65536];
    rill_test_tmpdir(dir, sizeof(dir), "export_motion");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    size_t n = skin_bar_text(&(skin_bar_opts){0}, text, sizeof(text));
    rill_test_write_file(proj, "models/bar.gltf", text, n);
    n = morph_quad_text(&(morph_quad_opts){.weight = 0.5f}, text, sizeof(text));
    rill_test_write_file(proj, "models/quad.gltf", text, n);
    rill_test_write_file(proj, "project.toml", "[project]\nname = \"m\"\n", 22);
    rill_export_result res = {0};
    assert_int_equal(run_export(proj, pack, NULL, false, 1, &res), RILL_OK);
    rill_export_result_free(&res);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    const char *names[] = {"models/bar.glb", "models/quad.glb"};
    for (int k = 0; k < 2; k++) {
        size_t len = 0;
        uint8_t *data = pack_read(p, names[k], &len);
        rill_gltf_model *m = NULL;
        if (rill_gltf_read_memory(data, len, NULL, &m, &err) != RILL_OK) {
            fail_msg("%s: %s", names[k], err.msg);
        }
        assert_int_equal(m->animation_count, 1);
        const rill_gltf_primitive *pr = &m->meshes[0].primitives[0];
        if (k == 0) {
            assert_int_equal(m->skin_count, 1);
            assert_int_equal(m->skins[0].joint_count, 2);
            assert_non_null(pr->joints);
            assert_non_null(pr->weights);
        } else {
            assert_int_equal(pr->target_count, 1);
            assert_int_equal(m->meshes[0].weight_count, 1);
        }
        rill_gltf_model_free(m);
        rill_free(data);
    }
    rill_rpak_close(p);
}

static void test_loose_into_project(void **state) {
    (void)state;
    char dir[512], proj[1024], pack[1024], path[1100];
    rill_test_tmpdir(dir, sizeof(dir), "export_loose");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    ep_make_project(proj);
    rill_test_path(path, sizeof(path), proj, "models/sphere.glb");
    uint8_t *before = NULL;
    size_t before_n = 0;
    assert_int_equal(rill_file_read_all(path, &before, &before_n, NULL), RILL_OK);

    rill_export_result res = {0};
    assert_int_equal(run_export(proj, pack, proj, false, 2, &res), RILL_OK);
    rill_export_result_free(&res);
    rill_test_path(path, sizeof(path), proj, "textures/albedo.rmip");
    assert_true(rill_file_exists(path));
    rill_test_path(path, sizeof(path), proj, "models/sphere_lod2.glb");
    assert_true(rill_file_exists(path));
    rill_test_path(path, sizeof(path), proj, RILL_EXPORT_MANIFEST);
    assert_true(rill_file_exists(path));
    /* The source model is untouched. */
    rill_test_path(path, sizeof(path), proj, "models/sphere.glb");
    uint8_t *after = NULL;
    size_t after_n = 0;
    assert_int_equal(rill_file_read_all(path, &after, &after_n, NULL), RILL_OK);
    assert_int_equal(before_n, after_n);
    assert_memory_equal(before, after, before_n);
    rill_free(before);
    rill_free(after);

    /* Again: the generated files are not inputs (no conflicts, same counts, nothing rebuilt). */
    assert_int_equal(run_export(proj, pack, proj, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.inputs, EP_INPUTS);
    assert_int_equal(res.counts.rebuilt, 0);
    assert_int_equal(res.counts.failed, 0);
    rill_export_result_free(&res);

    /* The scene's texture path resolves from the pack and from the loose project alike. */
    rill_vfs *packed = rill_vfs_create(NULL, NULL);
    rill_vfs *loose = rill_vfs_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_rpak_mount_file(packed, pack, NULL, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount_dir(loose, proj, &err), RILL_OK);
    /* (scenes/main.rsn is not among them: the pack's copy names the exported panel.glb, while
     * the loose project keeps its source scene, since inputs are never overwritten.) */
    const char *names[] = {"textures/albedo.rmip", "models/sphere_lod1.glb",
                           "models/panel/bumps.rmip", "project.toml"};
    for (size_t i = 0; i < RILL_COUNTOF(names); i++) {
        uint8_t *x = NULL, *y = NULL;
        size_t xn = 0, yn = 0;
        assert_int_equal(rill_vfs_read_all(packed, names[i], &x, &xn, &err), RILL_OK);
        assert_int_equal(rill_vfs_read_all(loose, names[i], &y, &yn, &err), RILL_OK);
        assert_int_equal(xn, yn);
        assert_memory_equal(x, y, xn);
        rill_free(x);
        rill_free(y);
    }
    rill_vfs_destroy(packed);
    rill_vfs_destroy(loose);

    /* A loose folder elsewhere inside the project is not walked; one left by an earlier run
     * (it holds a manifest) is skipped too. */
    /* A pack inside the project, as output or left over, is never an input. */
    char inner[1100];
    rill_test_path(inner, sizeof(inner), proj, "game.rpak");
    assert_int_equal(run_export(proj, inner, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.inputs, EP_INPUTS);
    rill_export_result_free(&res);
    assert_int_equal(run_export(proj, pack, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.inputs, EP_INPUTS);
    rill_export_result_free(&res);
    char preview[1100];
    rill_test_path(preview, sizeof(preview), proj, "preview");
    assert_int_equal(run_export(proj, NULL, preview, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.inputs, EP_INPUTS);
    rill_export_result_free(&res);
    assert_int_equal(run_export(proj, pack, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.inputs, EP_INPUTS);
    rill_export_result_free(&res);
    rill_test_tmpdir_remove(dir);
}

typedef struct damage_ctx {
    const char *root;
    uint32_t count;
} damage_ctx;

/* Flips one byte in the middle of a cache entry. */
static rill_result damage_entry(const char *rel, void *user) {
    damage_ctx *c = user;
    char path[1200];
    rill_test_path(path, sizeof(path), c->root, rel);
    uint8_t *data = NULL;
    size_t n = 0;
    assert_int_equal(rill_file_read_all(path, &data, &n, NULL), RILL_OK);
    data[n / 2] ^= 0x40;
    assert_int_equal(rill_file_write_all(path, data, n, NULL), RILL_OK);
    rill_free(data);
    c->count++;
    return RILL_OK;
}

static void test_paths_and_options(void **state) {
    (void)state;
    char out[256];
    assert_true(rill_export_output_path(out, sizeof(out), "a/rock.PNG"));
    assert_string_equal(out, "a/rock.rmip");
    assert_true(rill_export_output_path(out, sizeof(out), "sky.hdr"));
    assert_string_equal(out, "sky.rmip");
    assert_true(rill_export_output_path(out, sizeof(out), "m/chair.gltf"));
    assert_string_equal(out, "m/chair.glb");
    assert_true(rill_export_output_path(out, sizeof(out), "scenes/a.rsn"));
    assert_string_equal(out, "scenes/a.rsn");
    assert_false(rill_export_output_path(out, 4, "scenes/a.rsn"));
    assert_int_equal(rill_export_kind_of("x.jpeg"), RILL_EXPORT_KIND_TEXTURE);
    assert_int_equal(rill_export_kind_of("x.tga"), RILL_EXPORT_KIND_TEXTURE);
    assert_int_equal(rill_export_kind_of("x.glb"), RILL_EXPORT_KIND_MODEL);
    assert_int_equal(rill_export_kind_of("x.rmip"), RILL_EXPORT_KIND_COPY);
    assert_int_equal(rill_export_kind_of(".png"), RILL_EXPORT_KIND_COPY);

    rill_export_desc d = {0};
    d.project_dir = "proj";
    char cache[256];
    rill_export_desc r = rill_export_resolve_desc(&d, cache, sizeof(cache));
    assert_string_equal(r.cache_dir, "proj/.rill-cache");
    assert_int_equal(r.lod_levels, 3);
    d.lod_levels = 9;
    r = rill_export_resolve_desc(&d, cache, sizeof(cache));
    assert_int_equal(r.lod_levels, 4);

    /* lod_levels 1, no cache, a deterministic job system borrowed from the caller. */
    char dir[512], proj[1024], pack[1024], cdir[1100];
    rill_test_tmpdir(dir, sizeof(dir), "export_opts");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    ep_make_project(proj);
    rill_jobs_desc jd = {0};
    jd.deterministic = true;
    rill_jobs *jobs = rill_jobs_create(&jd, NULL);
    d.project_dir = proj;
    d.out_pack = pack;
    d.lod_levels = 1;
    d.no_cache = true;
    d.bc7_quality = 1;
    d.job_system = jobs;
    rill_export_result res = {0};
    rill_error err = {0};
    assert_int_equal(rill_export_run(&d, &res, &err), RILL_OK);
    assert_int_equal(res.counts.rebuilt, EP_CONVERTED);
    rill_export_result_free(&res);
    rill_jobs_destroy(jobs);
    rill_test_path(cdir, sizeof(cdir), proj, ".rill-cache");
    assert_false(rill_dir_exists(cdir));
    rill_rpak *p = NULL;
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    assert_true(rill_rpak_find(p, "models/sphere_lod1.glb") >= 0);
    assert_true(rill_rpak_find(p, "models/sphere_lod2.glb") < 0);
    rill_rpak_close(p);

    /* A damaged cache entry is rebuilt, not trusted. */
    d.job_system = NULL;
    d.no_cache = false;
    assert_int_equal(rill_export_run(&d, &res, &err), RILL_OK);
    rill_export_result_free(&res);
    damage_ctx dc = {cdir, 0};
    assert_int_equal(rill_dir_walk(cdir, damage_entry, &dc, &err), RILL_OK);
    assert_int_equal(dc.count, EP_CONVERTED);
    assert_int_equal(rill_export_run(&d, &res, &err), RILL_OK);
    assert_int_equal(res.counts.rebuilt, EP_CONVERTED);
    assert_int_equal(res.counts.cached, 0);
    rill_export_result_free(&res);
    assert_int_equal(rill_export_run(&d, &res, &err), RILL_OK);
    assert_int_equal(res.counts.cached, EP_CONVERTED);
    rill_export_result_free(&res);
    rill_test_tmpdir_remove(dir);
}

/* Images a Terrain names ship as they are (the terrain decodes 16-bit heights and reads weights
 * on the CPU); one a glTF material also uses is converted and copied; strings of other components
 * and commented-out Terrain blocks change nothing. */
static void test_terrain_images(void **state) {
    (void)state;
    char dir[512], proj[1024], pack[1024];
    rill_test_tmpdir(dir, sizeof(dir), "export_terrain");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    ep_write_png(proj, "terrain/heights.png", 33, 33, 5, false);
    ep_write_png(proj, "terrain/splat map.png", 16, 16, 6, false);
    ep_write_png(proj, "textures/plain.png", 16, 16, 7, false);
    ep_write_png(proj, "textures/commented.png", 16, 16, 8, false);
    ep_write_png(proj, "models/panel/bumps.png", 64, 64, 3, true);
    ep_write_png(proj, "models/panel/panel mr.png", 64, 64, 4, false);
    ep_write_panel_gltf(proj, "models/panel");
    ep_write_text(proj, "scenes/main.rsn",
                  "rsn 1\n"
                  "entity 1 \"Terrain\" {\n"
                  "    Texture { path: \"textures/plain.png\" }\n"
                  "    # Terrain { heightmap: @\"textures/commented.png\" }\n"
                  "    Terrain {\n"
                  "        heightmap: @\"terrain/./heights.png\"\n"
                  "        splat_map: @\"terrain/splat map.png\"\n"
                  "        layer_normal: [@\"models/panel/bumps.png\", @\"\", @\"gone.png\"]\n"
                  "    }\n"
                  "    Model { path: @\"models/panel/panel.gltf\" }\n"
                  "}\n");
    rill_export_result res = {0};
    assert_int_equal(run_export(proj, pack, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.failed, 0);
    rill_export_result_free(&res);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    static const char *const raw[] = {"terrain/heights.png", "terrain/splat map.png",
                                      "models/panel/bumps.png"};
    for (size_t i = 0; i < RILL_COUNTOF(raw); i++) {
        size_t n = 0;
        uint8_t *got = pack_read(p, raw[i], &n);
        char src[1200];
        rill_test_path(src, sizeof(src), proj, raw[i]);
        uint8_t *want = NULL;
        size_t wn = 0;
        assert_int_equal(rill_file_read_all(src, &want, &wn, NULL), RILL_OK);
        assert_int_equal(n, wn);
        assert_memory_equal(got, want, n);
        rill_free(got);
        rill_free(want);
    }
    assert_true(rill_rpak_find(p, "terrain/heights.rmip") < 0);
    assert_true(rill_rpak_find(p, "terrain/splat map.rmip") < 0);
    /* Used by the panel's material as well: converted for it, copied for the terrain. */
    expect_rmip(p, "models/panel/bumps.rmip", RILL_TEX_FORMAT_BC5, false, 64);
    expect_rmip(p, "textures/plain.rmip", RILL_TEX_FORMAT_BC7, true, 16);
    expect_rmip(p, "textures/commented.rmip", RILL_TEX_FORMAT_BC7, true, 16);
    assert_true(rill_rpak_find(p, "textures/plain.png") < 0);
    assert_true(rill_rpak_find(p, "textures/commented.png") < 0);
    rill_rpak_close(p);

    /* The second run comes from the cache and ships the same files. */
    assert_int_equal(run_export(proj, pack, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.rebuilt, 0);
    rill_export_result_free(&res);
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    assert_true(rill_rpak_find(p, "models/panel/bumps.png") >= 0);
    assert_true(rill_rpak_find(p, "models/panel/bumps.rmip") >= 0);
    assert_true(rill_rpak_find(p, "terrain/heights.png") >= 0);
    rill_rpak_close(p);
    rill_test_tmpdir_remove(dir);
}

/* The maps a ForwardDecal names are converted by their field, whatever their file names say:
 * albedo as colour (BC7 sRGB), normal as a normal map (BC5), roughness as linear data (BC7); the
 * same image under another component keeps the name's usage. */
static void test_decal_maps(void **state) {
    (void)state;
    char dir[512], proj[1024], pack[1024];
    rill_test_tmpdir(dir, sizeof(dir), "export_decal");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    ep_write_png(proj, "decals/crack.png", 32, 32, 5, false);
    ep_write_png(proj, "decals/dent.png", 32, 32, 6, true);
    ep_write_png(proj, "decals/wet.png", 32, 32, 7, false);
    ep_write_png(proj, "decals/other.png", 16, 16, 8, false);
    ep_write_text(proj, "scenes/main.rsn",
                  "rsn 1\n"
                  "entity 1 \"Crack\" {\n"
                  "    Transform { scale: (2, 1, 2) }\n"
                  "    # ForwardDecal { normal: @\"decals/other.png\" }\n"
                  "    ForwardDecal {\n"
                  "        base_color: (1, 1, 1, 1)\n"
                  "        albedo: @\"decals/crack.png\"\n"
                  "        normal: @\"decals/./dent.png\"\n"
                  "        roughness: @\"decals/wet.png\"\n"
                  "        normal_strength: 0.5\n"
                  "    }\n"
                  "}\n");
    rill_export_result res = {0};
    assert_int_equal(run_export(proj, pack, NULL, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.failed, 0);
    rill_export_result_free(&res);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    expect_rmip(p, "decals/crack.rmip", RILL_TEX_FORMAT_BC7, true, 32);
    expect_rmip(p, "decals/dent.rmip", RILL_TEX_FORMAT_BC5, false, 32);
    expect_rmip(p, "decals/wet.rmip", RILL_TEX_FORMAT_BC7, false, 32);
    expect_rmip(p, "decals/other.rmip", RILL_TEX_FORMAT_BC7, true, 16); /* commented out */
    assert_true(rill_rpak_find(p, "decals/crack.png") < 0);
    assert_true(rill_rpak_find(p, "scenes/main.rsn") >= 0);
    rill_rpak_close(p);
    rill_test_tmpdir_remove(dir);
}

/* Images a Skybox, an EnvironmentMapLight and a ReflectionProbeSource name become .rmip cubes
 * holding the texels the engine's own reprojection gives (export -> load -> same texels), and the
 * exported scene names the cubes; a texture named elsewhere stays a 2D .rmip and its string is
 * kept. */
static void test_environment_images(void **state) {
    (void)state;
    char dir[512], proj[1024], loose[1024];
    rill_test_tmpdir(dir, sizeof(dir), "export_env");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(loose, sizeof(loose), dir, "loose");
    ep_write_hdr(proj, "sky/sky.hdr", 64, 32);
    ep_write_png(proj, "sky/light.png", 64, 32, 9, false);
    ep_write_png(proj, "probes/room.png", 32, 16, 10, false);
    ep_write_png(proj, "textures/plain.png", 16, 16, 7, false);
    ep_write_text(proj, "scenes/main.rsn",
                  "rsn 1\n"
                  "entity 1 \"Sky\" {\n"
                  "    Skybox { image: @\"sky/sky.hdr\" }\n"
                  "    EnvironmentMapLight { image: @\"sky/light.png\" intensity: 2 }\n"
                  "}\n"
                  "entity 2 \"Probe\" {\n"
                  "    ReflectionProbeSource { source: @\"probes/room.png\" }\n"
                  "    Texture { path: \"textures/plain.png\" }\n"
                  "}\n");
    rill_export_result res = {0};
    assert_int_equal(run_export(proj, NULL, loose, false, 2, &res), RILL_OK);
    assert_int_equal(res.counts.failed, 0);
    rill_export_result_free(&res);
    static const char *const src[] = {"sky/sky.hdr", "sky/light.png", "probes/room.png"};
    static const char *const cube[] = {"sky/sky.rmip", "sky/light.rmip", "probes/room.rmip"};
    for (size_t i = 0; i < RILL_COUNTOF(src); i++) {
        char path[1200];
        uint8_t *got = NULL, *in = NULL, *want = NULL;
        size_t gn = 0, in_n = 0, wn = 0;
        rill_error err = {0};
        rill_test_path(path, sizeof(path), loose, cube[i]);
        assert_int_equal(rill_file_read_all(path, &got, &gn, NULL), RILL_OK);
        rill_tex_data t;
        if (rill_rmip_cube_read(got, gn, cube[i], &t, &err) != RILL_OK) {
            fail_msg("%s", err.msg);
        }
        assert_int_equal(t.faces, 6);
        assert_int_equal(t.width, 16); /* a quarter of the width, at least 16 */
        rill_tex_data_free(&t);
        /* The same texels as the engine's reprojection of the source. */
        rill_test_path(path, sizeof(path), proj, src[i]);
        assert_int_equal(rill_file_read_all(path, &in, &in_n, NULL), RILL_OK);
        rill_image img;
        assert_int_equal(rill_env_image_decode(in, in_n, src[i], &img, &err), RILL_OK);
        assert_int_equal(rill_rmip_cube_from_equirect(&img, 0, &want, &wn, &err), RILL_OK);
        assert_int_equal(gn, wn);
        assert_memory_equal(got, want, gn);
        rill_image_free(&img);
        rill_free(got);
        rill_free(in);
        rill_free(want);
    }
    char path[1200];
    rill_test_path(path, sizeof(path), loose, "textures/plain.rmip");
    uint8_t *data = NULL;
    size_t n = 0;
    rill_error err = {0};
    assert_int_equal(rill_file_read_all(path, &data, &n, NULL), RILL_OK);
    rill_rmip_info info;
    assert_int_equal(rill_rmip_parse(data, n, n, path, &info, &err), RILL_OK);
    assert_int_equal(info.faces, 1);
    rill_free(data);
    rill_test_path(path, sizeof(path), loose, "scenes/main.rsn");
    assert_int_equal(rill_file_read_all(path, &data, &n, NULL), RILL_OK);
    char *text = rill_calloc(1, n + 1);
    memcpy(text, data, n);
    assert_non_null(strstr(text, "Skybox { image: @\"sky/sky.rmip\" }"));
    assert_non_null(
        strstr(text, "EnvironmentMapLight { image: @\"sky/light.rmip\" intensity: 2 }"));
    assert_non_null(strstr(text, "ReflectionProbeSource { source: @\"probes/room.rmip\" }"));
    assert_non_null(strstr(text, "Texture { path: \"textures/plain.png\" }"));
    rill_free(text);
    rill_free(data);
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    rill_log_set_level(RILL_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_and_options),
        cmocka_unit_test(test_pack_contents_and_cache),
        cmocka_unit_test(test_broken_and_conflicting_inputs),
        cmocka_unit_test(test_loose_into_project),
        cmocka_unit_test(test_motion_kept),
        cmocka_unit_test(test_terrain_images),
        cmocka_unit_test(test_decal_maps),
        cmocka_unit_test(test_environment_images),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
