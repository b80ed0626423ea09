/* texstream_fixture.h: the lavapipe fixture of the texture streaming and render asset tests: a
 * pack with a textured quad model (models/q.glb), its LOD file naming the same images
 * (models/q_lod1.glb) and their two .rmip textures, mounted in a VFS, loaded by an asset server,
 * drawn through rill_render_assets with a StreamingState gate from rill_stream (run mode GAME) and
 * a game camera as the streaming camera. The textures are 512 x 512 RGBA8 chains whose level 0 is
 * coloured (base red, emissive blue) and every other level black; the sampler has no mips, so a
 * slot samples its image's base level: the full chain's colour, or the "#low" tail's black.
 * Header-only (static functions); include after cmocka.h. */
#ifndef RILL_TEST_TEXSTREAM_FIXTURE_H
#define RILL_TEST_TEXSTREAM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/formats/rmip.h"
#include "rill/formats/rpak.h"
#include "rill/render.h"
#include "rill/stream.h"

#define W 48
#define H 32
#define SIDE 512u
#define LEVELS 10u

/* A 512^2 RGBA8 chain: level 0 = rgb, the rest black. */
static inline uint8_t *make_rmip(const uint8_t rgb[3], size_t *out_size) {
    rill_rmip_write_desc d;
    memset(&d, 0, sizeof d);
    d.format = RILL_TEX_FORMAT_RGBA8;
    d.srgb = true;
    d.width = d.height = SIDE;
    d.level_count = LEVELS;
    uint8_t *levels[LEVELS];
    for (uint32_t i = 0; i < LEVELS; i++) {
        uint32_t s = SIDE >> i;
        size_t n = (size_t)s * s * 4u;
        levels[i] = calloc(n, 1);
        for (size_t p = 0; i == 0 && p < n; p += 4) {
            memcpy(levels[i] + p, rgb, 3);
        }
        for (size_t p = 3; p < n; p += 4) {
            levels[i][p] = 255;
        }
        d.level_data[i] = levels[i];
        d.level_size[i] = n;
    }
    uint8_t *out = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&d, &out, out_size, &err), RILL_OK);
    for (uint32_t i = 0; i < LEVELS; i++) {
        free(levels[i]);
    }
    return out;
}

/* A 2 x 2 quad facing +Z, base colour texture 0 and emissive texture 1 ("tex/a.png" and
 * "tex/b.png": their exported .rmip is what the VFS holds), a no-mip sampler. */
static inline uint8_t *make_glb(size_t *out_size) {
    static float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    static float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    static uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    rill_gltf_primitive prim = {.vertex_count = 4,
                                .positions = pos,
                                .normals = nrm,
                                .uv0 = uv,
                                .index_count = 6,
                                .indices = idx,
                                .material = 0,
                                .bounds_min = {-1, -1, 0},
                                .bounds_max = {1, 1, 0}};
    rill_gltf_material mat = {.base_color_factor = {1, 1, 1, 1},
                              .base_color_texture = {.texture = 0, .scale = 1},
                              .emissive_texture = {.texture = 1, .scale = 1},
                              .emissive_factor = {1, 1, 1},
                              .metallic_factor = 0,
                              .roughness_factor = 1,
                              .metallic_roughness_texture = {.texture = -1, .scale = 1},
                              .normal_texture = {.texture = -1, .scale = 1},
                              .occlusion_texture = {.texture = -1, .scale = 1},
                              .alpha_cutoff = 0.5f};
    rill_gltf_sampler smp = {
        .mag_filter = 9728, .min_filter = 9729, .wrap_s = 33071, .wrap_t = 33071};
    rill_gltf_texture tex[2] = {{.sampler = 0, .image = 0}, {.sampler = 0, .image = 1}};
    rill_gltf_image img[2] = {{.uri = "tex/a.png", .mime_type = "image/png"},
                              {.uri = "tex/b.png", .mime_type = "image/png"}};
    rill_gltf_mesh mesh = {.name = "quad", .primitive_count = 1, .primitives = &prim};
    rill_gltf_node node = RILL_GLTF_MESH_NODE("quad", 0);
    int32_t roots[1] = {0};
    rill_gltf_scene scene = {.name = "quad", .node_count = 1, .nodes = roots};
    rill_gltf_model model = {.mesh_count = 1,
                             .meshes = &mesh,
                             .node_count = 1,
                             .nodes = &node,
                             .scene_count = 1,
                             .scenes = &scene,
                             .default_scene = 0,
                             .material_count = 1,
                             .materials = &mat,
                             .sampler_count = 1,
                             .samplers = &smp,
                             .texture_count = 2,
                             .textures = tex,
                             .image_count = 2,
                             .images = img};
    uint8_t *out = NULL;
    rill_error err = {0};
    assert_int_equal(rill_glb_write_memory(&model, NULL, &out, out_size, &err), RILL_OK);
    return out;
}

typedef struct fx {
    uint8_t *pack_bytes;
    size_t pack_size;
    rill_rpak *pak;
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_renderer *r;
    rill_world *w;
    rill_render_components rc;
    rill_stream *stream;
    rill_render_assets *ra;
    rill_entity cam, holder;
    rill_asset model;
    rill_render_extract_buf xb;
    double now;
    uint64_t low_bytes;       /* one texture's "#low" byte range (its tail's levels) */
    uint64_t full_file_bytes; /* its whole chain's byte range */
} fx;

/* Loads a model and spawns it under a new holder entity at the origin (*out_holder). */
static inline rill_asset spawn_model(fx *f, const char *path, rill_entity *out_holder) {
    rill_error err = {0};
    rill_asset a = rill_asset_load_sync(f->as, path, &err);
    const rill_gltf_model *gm = rill_asset_get_payload_as(f->as, a, RILL_GLTF_ASSET_LOADER);
    assert_non_null(gm);
    rill_model_components mc;
    assert_int_equal(rill_scene_model_register(f->w, &mc, &err), RILL_OK);
    rill_entity root = RILL_ENTITY_NULL;
    *out_holder = rill_world_spawn(f->w);
    rill_transform ht = rill_transform_identity();
    rill_world_set_transform(f->w, *out_holder, &ht);
    assert_int_equal(rill_scene_model_spawn(f->w, &mc, a, gm, *out_holder, &root, &err), RILL_OK);
    return a;
}

/* upload_budget 0 = the renderer's default (32 MiB per frame); first: a mount put before the
 * pack (NULL = none); the renderer on `backend` (NULL for tests that read no pixels). */
static inline void fx_open_on(fx *f, uint64_t upload_budget, const rill_vfs_mount_ops *first,
                              rill_render_backend backend) {
    memset(f, 0, sizeof *f);
    rill_error err = {0};
    size_t na = 0, nb = 0, ng = 0;
    uint8_t *a = make_rmip((const uint8_t[3]){255, 0, 0}, &na);
    uint8_t *b = make_rmip((const uint8_t[3]){0, 0, 255}, &nb);
    uint8_t *g = make_glb(&ng);
    rill_rpak_writer *pw = rill_rpak_writer_create(NULL, NULL);
    assert_int_equal(
        rill_rpak_writer_add(pw, "models/q.glb", g, ng, RILL_RPAK_COMPRESSION_AUTO, &err), RILL_OK);
    assert_int_equal(
        rill_rpak_writer_add(pw, "models/q_lod1.glb", g, ng, RILL_RPAK_COMPRESSION_AUTO, &err),
        RILL_OK);
    assert_int_equal(
        rill_rpak_writer_add(pw, "models/tex/a.rmip", a, na, RILL_RPAK_COMPRESSION_AUTO, &err),
        RILL_OK);
    assert_int_equal(
        rill_rpak_writer_add(pw, "models/tex/b.rmip", b, nb, RILL_RPAK_COMPRESSION_AUTO, &err),
        RILL_OK);
    assert_int_equal(rill_rpak_writer_finish_memory(pw, &f->pack_bytes, &f->pack_size, &err),
                     RILL_OK);
    rill_rpak_writer_destroy(pw);
    rill_rmip_info info;
    assert_int_equal(rill_rmip_parse(a, na, na, "a", &info, &err), RILL_OK);
    rill_rmip_range low;
    rill_rmip_low_range(&info, &low);
    assert_int_equal(low.first_level, 1); /* the tail: 256 x 256 and below */
    f->low_bytes = low.size;
    rill_rmip_range full;
    rill_rmip_full_range(&info, &full);
    f->full_file_bytes = full.size;
    rill_free(a), rill_free(b), rill_free(g);
    assert_int_equal(rill_rpak_open_memory(f->pack_bytes, f->pack_size, "t.rpak", &f->pak, &err),
                     RILL_OK);
    f->vfs = rill_vfs_create(NULL, NULL);
    if (first) {
        assert_int_equal(rill_vfs_mount(f->vfs, first, &err), RILL_OK);
    }
    assert_int_equal(rill_rpak_mount(f->vfs, f->pak, &err), RILL_OK);
    f->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(f->as, &err), RILL_OK);

    rill_renderer_desc d;
    memset(&d, 0, sizeof d);
    d.width = W, d.height = H, d.validation = 1, d.quality = RILL_RENDER_QUALITY_LOW;
    d.upload_budget_bytes = upload_budget;
    d.backend = backend;
    if (!(f->r = rill_renderer_create(&d, &err))) {
        fail_msg("no Vulkan renderer (install mesa-vulkan-drivers for lavapipe): %s", err.msg);
    }
    f->w = rill_world_create(NULL, NULL);
    assert_int_equal(rill_render_register_components(f->w, &f->rc, &err), RILL_OK);
    rill_stream_desc sd = rill_stream_query_defaults();
    sd.world = f->w;
    sd.run_mode = RILL_RUN_MODE_GAME;
    f->stream = rill_stream_create(&sd, &err);
    assert_non_null(f->stream);
    f->cam = rill_world_spawn(f->w);
    rill_camera c = {.active = true, .fov_y = 0.9f, .near_plane = 0.05f, .far_plane = 1000.0f};
    assert_non_null(rill_world_add(f->w, f->cam, RILL_COMPONENT_CAMERA, &c));
    f->ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = f->r, .assets = f->as, .world = f->w}, &err);
    assert_non_null(f->ra);
    f->model = spawn_model(f, "models/q.glb", &f->holder);
}

/* fx_open_on with the default backend (Vulkan). */
static inline void fx_open(fx *f, uint64_t upload_budget, const rill_vfs_mount_ops *first) {
    fx_open_on(f, upload_budget, first, RILL_RENDER_BACKEND_DEFAULT);
}

/* The texture streaming decisions' counters. */
static inline rill_texstream_stats fx_decisions(const fx *f) {
    rill_render_texture_streaming_stats st;
    rill_render_assets_get_texture_streaming_stats(f->ra, &st);
    return st.decisions;
}

/* Parks (hidden, out of extract's walk) or shows every ModelMesh under holder. */
static inline void fx_set_shown(fx *f, rill_entity holder, bool shown) {
    rill_model_components mc;
    rill_error err = {0};
    assert_int_equal(rill_scene_model_register(f->w, &mc, &err), RILL_OK);
    assert_true(rill_scene_model_set_level(f->w, &mc, holder, shown, 0.0f) > 0);
}

static inline void fx_close(fx *f) {
    rill_renderer_wait_idle(f->r, NULL);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.validation_messages, 0);
    rill_render_extract_buf_free(&f->xb);
    rill_render_assets_destroy(f->ra);
    rill_asset_release(f->as, f->model);
    rill_stream_destroy(f->stream);
    rill_world_destroy(f->w);
    rill_renderer_destroy(f->r);
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs); /* closes the pack */
    rill_free(f->pack_bytes);
}

static inline void place_camera(fx *f, float z) {
    rill_transform t = rill_transform_identity();
    t.translation[2] = z;
    rill_world_set_transform(f->w, f->cam, &t);
}

enum { SEEN_LOW = 1, SEEN_FULL = 2, SEEN_MIX = 4 };

/* One frame at 60 Hz; the view is a close-up of the quad whatever the streaming camera's place.
 * Returns what the centre pixel shows: both slots low (black), both full (red base lit by the
 * sun + blue emissive), or a mix (one of them). */
static inline int frame(fx *f, bool draw) {
    rill_error err = {0};
    f->now += 1.0 / 60.0;
    rill_world_update_transforms(f->w);
    rill_stream_update(f->stream);
    rill_asset_server_update(f->as);
    rill_render_assets_set_time(f->ra, f->now);
    rill_render_assets_update(f->ra);
    rill_render_snapshot snap;
    assert_int_equal(rill_render_extract(f->w, &f->rc, &f->xb, &snap, &err), RILL_OK);
    float v[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1.2f, 1};
    memcpy(snap.view.world_from_view, v, sizeof v);
    snap.view.tonemapper = RILL_TONEMAP_NONE;
    snap.has_sun = true;
    snap.sun =
        (rill_render_dir_light){.direction = {0, 0, -1}, .color = {1, 1, 1}, .illuminance = 3.0f};
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.0f;
    assert_int_equal(rill_renderer_render(f->r, &snap, &err), RILL_OK);
    if (!draw) {
        return 0;
    }
    static uint8_t px[W * H * 4];
    assert_int_equal(rill_renderer_read_pixels(f->r, px, sizeof px, &err), RILL_OK);
    const uint8_t *c = px + ((H / 2) * W + W / 2) * 4;
    bool red = c[0] > 60, blue = c[2] > 60;
    return red && blue ? SEEN_FULL : !red && !blue ? SEEN_LOW : SEEN_MIX;
}

/* Frames until the streamer has nothing in flight and the renderer no switch waiting. */
static inline int settle(fx *f, bool draw, int *frames) {
    int seen = 0;
    for (int i = 0; i < 400; i++) {
        seen |= frame(f, draw);
        (*frames)++;
        rill_render_texture_streaming_stats st;
        rill_render_assets_get_texture_streaming_stats(f->ra, &st);
        if (i > 40 && !rill_render_assets_texture_streaming_pending(f->ra) && !st.replacing) {
            return seen;
        }
    }
    fail_msg("texture streaming did not settle");
    return seen;
}

#endif
