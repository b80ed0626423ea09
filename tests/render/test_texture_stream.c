/* test_texture_stream.c: texture streaming end to end on lavapipe, through the path a project
 * takes: a .glb and two .rmip textures in a pack, mounted in a VFS, loaded by the asset server,
 * spawned as ModelMesh entities, drawn through rill_render_assets with a StreamingState gate from
 * rill_stream (run mode GAME) and a game camera as the streaming camera.
 *   - the model uploads its textures as "#low" tails, and the bytes read for them are the tails'
 *     level bytes (not the chains');
 *   - the camera comes near: full chains load and switch; the material's two slots (base colour,
 *     emissive) switch at one frame even though the renderer's upload budget spreads their
 *     uploads over two frames: every frame drawn shows both slots low or both full, never one of
 *     each (the swap-frame golden: the pixel's colour says which level each slot samples);
 *   - the camera leaves: back to low the same way, GPU bytes back to the tails';
 *   - streaming turned off at run time: both back to full, once;
 *   - 1000 near/far cycles: every swap lands, and GPU bytes and the render, stream and formats
 *     heaps are back where they were (with RILL_TEXSTREAM_CYCLES=N in the environment only this
 *     test runs, with N cycles: the sanitizer builds' variant, render_texture_stream_cycles);
 *   - a second model naming the same images (its LOD file): one GPU texture per image, shared by
 *     both models and streamed once, kept while either is drawn, destroyed with the last.
 * The textures are 512 x 512 RGBA8 chains whose level 0 is coloured (base red, emissive blue) and
 * every other level black; the sampler has no mips (glTF min filter LINEAR), so a slot samples its
 * image's base level: the full chain's colour, or the "#low" tail's black. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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
static uint8_t *make_rmip(const uint8_t rgb[3], size_t *out_size) {
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
static uint8_t *make_glb(size_t *out_size) {
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
static rill_asset spawn_model(fx *f, const char *path, rill_entity *out_holder) {
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
 * pack (NULL = none). */
static void fx_open(fx *f, uint64_t upload_budget, const rill_vfs_mount_ops *first) {
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
    if (!(f->r = rill_renderer_create(&d, &err)))
        fail_msg("no Vulkan renderer (install mesa-vulkan-drivers for lavapipe): %s", err.msg);
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

static void fx_close(fx *f) {
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

static void place_camera(fx *f, float z) {
    rill_transform t = rill_transform_identity();
    t.translation[2] = z;
    rill_world_set_transform(f->w, f->cam, &t);
}

enum { SEEN_LOW = 1, SEEN_FULL = 2, SEEN_MIX = 4 };

/* One frame at 60 Hz; the view is a close-up of the quad whatever the streaming camera's place.
 * Returns what the centre pixel shows: both slots low (black), both full (red base lit by the
 * sun + blue emissive), or a mix (one of them). */
static int frame(fx *f, bool draw) {
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
static int settle(fx *f, bool draw, int *frames) {
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

static void test_swap_frames_never_mix(void **state) {
    (void)state;
    fx f;
    fx_open(&f, 64u << 10, NULL); /* one texture's chain per frame: the two uploads land apart */
    int frames = 0;
    place_camera(&f, 200.0f); /* 200 m: beyond low_distance */
    int seen = settle(&f, true, &frames);
    assert_int_equal(seen, SEEN_LOW);
    rill_render_texture_streaming_stats st;
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.decisions.textures, 2);
    assert_int_equal(st.decisions.low, 2);
    /* The model read its textures as "#low" from the pack: each tail's byte range, nothing more
     * (the header is read too, not counted here). */
    assert_int_equal(st.bytes_read, 2 * f.low_bytes);
    rill_render_stats rs;
    rill_renderer_stats(f.r, &rs);
    uint64_t low_gpu = rs.texture_bytes;

    place_camera(&f, 5.0f); /* near: full */
    seen = settle(&f, true, &frames);
    assert_int_equal(seen & SEEN_MIX, 0); /* the swap frame switched both slots */
    assert_int_equal(seen, SEEN_LOW | SEEN_FULL);
    assert_int_equal(frame(&f, true), SEEN_FULL);
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.decisions.full, 2);
    assert_int_equal(st.swaps, 2);
    assert_int_equal(st.batches, 1);
    uint64_t full_chain = 0;
    for (uint32_t i = 0; i < LEVELS; i++) {
        full_chain += (uint64_t)(SIDE >> i) * (SIDE >> i) * 4u;
    }
    assert_int_equal(st.bytes_read, 2 * f.low_bytes + 2 * f.full_file_bytes);
    assert_true(st.full_landed == 2 && st.full_latency_ms_max > 0.0);
    rill_renderer_stats(f.r, &rs);
    assert_true(rs.texture_bytes >= low_gpu + 2 * (full_chain - f.low_bytes));

    place_camera(&f, 200.0f); /* and away again */
    seen = settle(&f, true, &frames);
    assert_int_equal(seen & SEEN_MIX, 0);
    assert_int_equal(frame(&f, true), SEEN_LOW);
    rill_renderer_wait_idle(f.r, NULL);
    frame(&f, false);
    rill_renderer_stats(f.r, &rs);
    assert_int_equal(rs.texture_bytes, low_gpu);

    /* Streaming turned off at run time, camera still far: both back to full, once. */
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    uint64_t swaps = st.swaps;
    rill_texstream_settings s = rill_render_assets_get_texture_streaming(f.ra);
    s.enabled = false;
    rill_render_assets_set_texture_streaming(f.ra, &s);
    seen = settle(&f, true, &frames);
    assert_int_equal(seen & SEEN_MIX, 0);
    for (int i = 0; i < 60; i++) { /* a second of 2 Hz evaluations: nothing more to do */
        frame(&f, false);
    }
    assert_int_equal(frame(&f, true), SEEN_FULL);
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.swaps, swaps + 2);
    print_message("texture stream: %d frames, %llu bytes read\n", frames,
                  (unsigned long long)st.bytes_read);
    fx_close(&f);
}

static int swap_cycles = 1000;

/* Near and far swap_cycles times (1000 unless RILL_TEXSTREAM_CYCLES says; a short interval so a
 * cycle takes a few frames): every swap lands, and memory is back where it started. */
static void test_memory_after_swap_cycles(void **state) {
    (void)state;
    size_t render0 = rill_mem_live_bytes(RILL_MEM_RENDER);
    size_t stream0 = rill_mem_live_bytes(RILL_MEM_STREAM);
    size_t formats0 = rill_mem_live_bytes(RILL_MEM_FORMATS);
    fx f;
    fx_open(&f, 0, NULL);
    rill_texstream_settings s = rill_render_assets_get_texture_streaming(f.ra);
    s.interval = 1e-3;
    rill_render_assets_set_texture_streaming(f.ra, &s);
    int frames = 0;
    place_camera(&f, 200.0f);
    settle(&f, false, &frames);
    rill_render_stats rs;
    rill_renderer_stats(f.r, &rs);
    uint64_t gpu0 = rs.texture_bytes;
    size_t render1 = rill_mem_live_bytes(RILL_MEM_RENDER);
    for (int c = 0; c < swap_cycles; c++) {
        place_camera(&f, (c & 1) ? 200.0f : 5.0f);
        for (int i = 0; i < 3; i++) {
            frame(&f, false);
        }
    }
    place_camera(&f, 200.0f);
    settle(&f, false, &frames);
    rill_renderer_wait_idle(f.r, NULL);
    frame(&f, false);
    frame(&f, false);
    rill_render_texture_streaming_stats st;
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    print_message("%d cycles: %llu swaps, %llu cancelled, %llu batches\n", swap_cycles,
                  (unsigned long long)st.swaps, (unsigned long long)st.cancelled,
                  (unsigned long long)st.batches);
    /* Most cycles switched both ways (some were overtaken). */
    assert_true(st.swaps >= (uint64_t)(2 * swap_cycles / 5));
    assert_int_equal(st.decisions.low, 2);
    rill_renderer_stats(f.r, &rs);
    assert_int_equal(rs.texture_bytes, gpu0);
    /* The streamer's arrays may have grown to their high-water mark; nothing else remains. */
    assert_true(rill_mem_live_bytes(RILL_MEM_RENDER) <= render1 + 64u * 1024u);
    fx_close(&f);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_RENDER), render0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_STREAM), stream0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), formats0);
}

/* The model and its LOD file name the same two images: they upload them once, share them (both
 * materials sample the same textures, one swap each), keep them while either is drawn, and the
 * last one to go destroys them. */
static void test_models_share_textures(void **state) {
    (void)state;
    fx f;
    fx_open(&f, 0, NULL);
    rill_render_stats rs;
    rill_renderer_stats(f.r, &rs);
    uint64_t gpu0 = rs.texture_bytes; /* before any model was uploaded */
    int frames = 0;
    place_camera(&f, 200.0f);
    settle(&f, false, &frames);
    rill_renderer_stats(f.r, &rs);
    uint64_t one_model = rs.texture_bytes;
    assert_true(one_model > gpu0);

    rill_entity holder2;
    rill_asset lod = spawn_model(&f, "models/q_lod1.glb", &holder2);
    settle(&f, false, &frames);
    rill_renderer_stats(f.r, &rs);
    assert_int_equal(rs.texture_bytes, one_model); /* nothing uploaded again */
    const rill_render_model *a = rill_render_assets_model(f.ra, f.model);
    const rill_render_model *b = rill_render_assets_model(f.ra, lod);
    assert_true(a && b && a != b);
    assert_int_equal(a->textures[0].id, b->textures[0].id);
    assert_int_equal(a->textures[1].id, b->textures[1].id);
    rill_render_texture_streaming_stats st;
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.decisions.textures, 2);
    uint64_t full_chain = 0;
    for (uint32_t i = 0; i < LEVELS; i++) {
        full_chain += (uint64_t)(SIDE >> i) * (SIDE >> i) * 4u;
    }
    assert_int_equal(st.decisions.all_full_bytes, 2 * full_chain); /* each image once */

    place_camera(&f, 5.0f); /* near: each texture swaps once, for both models */
    assert_int_equal(settle(&f, true, &frames) & SEEN_MIX, 0);
    assert_int_equal(frame(&f, true), SEEN_FULL);
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.swaps, 2);
    assert_int_equal(st.decisions.full, 2);

    /* The first model goes: the textures stay, full, for the LOD file. */
    assert_true(rill_world_despawn_recursive(f.w, f.holder) > 0);
    settle(&f, false, &frames);
    assert_int_equal(frame(&f, true), SEEN_FULL);
    rill_render_assets_stats as;
    rill_render_assets_get_stats(f.ra, &as);
    assert_int_equal(as.models, 1);
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.decisions.textures, 2);
    assert_int_equal(st.decisions.full, 2);

    /* The last user goes: both textures are destroyed. */
    assert_true(rill_world_despawn_recursive(f.w, holder2) > 0);
    for (int i = 0; i < 4; i++) {
        frame(&f, false);
    }
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.decisions.textures, 0);
    rill_renderer_wait_idle(f.r, NULL);
    rill_renderer_stats(f.r, &rs);
    assert_int_equal(rs.texture_bytes, gpu0);
    rill_asset_release(f.as, lod);
    fx_close(&f);
}

/* A mount serving models/tex/b.rmip from a copy of the pack whose whole-file reads (the full
 * chain's load) fail while `broken` is set; its "#low" byte ranges always read. */
typedef struct flaky {
    rill_vfs *inner;
    _Atomic bool broken;
} flaky;

static bool flaky_stat(void *user, const char *path, uint64_t *out_size) {
    flaky *k = user;
    int64_t n =
        k->inner && strcmp(path, "models/tex/b.rmip") == 0 ? rill_vfs_size(k->inner, path) : -1;
    *out_size = n > 0 ? (uint64_t)n : 0;
    return n > 0;
}

static rill_result flaky_read_all(void *user, const char *path, uint8_t **out_data,
                                  size_t *out_size, rill_error *err) {
    flaky *k = user;
    if (k->broken) {
        return rill_error_set(err, RILL_ERR_IO, "%s: read failed (test)", path);
    }
    return rill_vfs_read_all(k->inner, path, out_data, out_size, err);
}

static rill_result flaky_read_range(void *user, const char *path, uint64_t offset, size_t size,
                                    void *dst, rill_error *err) {
    flaky *k = user;
    return rill_vfs_read_range(k->inner, path, offset, size, dst, err);
}

/* A full chain whose read fails: the material keeps drawing low (never a mix), the failure is
 * counted and retried with back-off, and when the file reads again both slots switch together. */
static void test_failed_load_retried_never_a_mix(void **state) {
    (void)state;
    flaky k = {.inner = NULL, .broken = false};
    rill_vfs_mount_ops ops = {.name = "flaky",
                              .stat = flaky_stat,
                              .read_all = flaky_read_all,
                              .read_range = flaky_read_range,
                              .user = &k};
    fx f;
    fx_open(&f, 0, &ops);
    /* Its own copy of the pack, before the first frame reads a texture. */
    rill_error err = {0};
    rill_rpak *pak2 = NULL;
    assert_int_equal(rill_rpak_open_memory(f.pack_bytes, f.pack_size, "t2.rpak", &pak2, &err),
                     RILL_OK);
    k.inner = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount(k.inner, pak2, &err), RILL_OK);
    int frames = 0;
    place_camera(&f, 200.0f);
    assert_int_equal(settle(&f, true, &frames), SEEN_LOW);

    k.broken = true;
    place_camera(&f, 5.0f); /* near: a's full chain loads, b's fails */
    int seen = 0;
    for (int i = 0; i < 240; i++) { /* 4 s: failures at about 0, 1 and 3 s (back-off 1, 2) */
        seen |= frame(&f, i % 8 == 0);
    }
    assert_int_equal(seen, SEEN_LOW); /* the material kept its state whole */
    rill_render_texture_streaming_stats st;
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_in_range(st.load_failures, 2, 4);
    assert_int_equal(st.decisions.low, 2);
    assert_int_equal(st.swaps, 0);
    assert_true(rill_render_assets_texture_streaming_pending(f.ra) > 0);

    k.broken = false; /* the next retry lands: both slots switch at one frame */
    seen = settle(&f, true, &frames);
    assert_int_equal(seen & SEEN_MIX, 0);
    assert_int_equal(frame(&f, true), SEEN_FULL);
    rill_render_assets_get_texture_streaming_stats(f.ra, &st);
    assert_int_equal(st.decisions.full, 2);
    assert_int_equal(st.swaps, 2);
    fx_close(&f);
    rill_vfs_destroy(k.inner);
}

/* A 2048^2 RGBA8 texture (about 21 MB with its generated mips, a third of a 64 MiB block). */
static rill_texture big_texture(fx *f) {
    rill_error err = {0};
    uint8_t *px = calloc((size_t)2048 * 2048, 4);
    assert_non_null(px);
    rill_texture t = rill_render_texture_create(
        f->r, &(rill_texture_desc){.pixels = px, .width = 2048, .height = 2048}, &err);
    free(px);
    assert_true(t.id != 0);
    return t;
}

static uint32_t memory_blocks(fx *f) {
    rill_render_stats rs;
    rill_renderer_stats(f->r, &rs);
    return rs.gpu_memory_blocks;
}

/* A swap frees an old image and makes a new one: the device-memory block that empties is kept as
 * the spare, so the next texture does not allocate a new block. */
static void test_emptied_block_kept_as_spare(void **state) {
    (void)state;
    fx f;
    fx_open(&f, 0, NULL);
    int frames = 0;
    place_camera(&f, 200.0f);
    settle(&f, false, &frames);
    uint32_t blocks0 = memory_blocks(&f);
    rill_texture t[8];
    uint32_t n = 0;
    while (memory_blocks(&f) == blocks0) { /* until one texture needs a new block */
        assert_true(n < 8);
        t[n++] = big_texture(&f);
    }
    for (int i = 0; i < 4; i++) {
        frame(&f, false);
    }
    rill_render_texture_destroy(f.r, t[--n]); /* the new block's only texture */
    rill_renderer_wait_idle(f.r, NULL);
    for (int i = 0; i < 4; i++) { /* the deferred frees run */
        frame(&f, false);
    }
    rill_renderer_wait_idle(f.r, NULL);
    assert_int_equal(memory_blocks(&f), blocks0 + 1); /* emptied, kept */
    t[n++] = big_texture(&f);
    assert_int_equal(memory_blocks(&f), blocks0 + 1); /* the spare took it */
    for (uint32_t i = 0; i < n; i++) {
        rill_render_texture_destroy(f.r, t[i]);
    }
    fx_close(&f);
}

int main(void) {
    const char *cycles = getenv("RILL_TEXSTREAM_CYCLES");
    if (cycles) {
        swap_cycles = atoi(cycles) > 0 ? atoi(cycles) : swap_cycles;
        const struct CMUnitTest only[] = {cmocka_unit_test(test_memory_after_swap_cycles)};
        return cmocka_run_group_tests(only, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_emptied_block_kept_as_spare),
        cmocka_unit_test(test_failed_load_retried_never_a_mix),
        cmocka_unit_test(test_models_share_textures),
        cmocka_unit_test(test_swap_frames_never_mix),
        cmocka_unit_test(test_memory_after_swap_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
