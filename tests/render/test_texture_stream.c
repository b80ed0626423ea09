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
 *     both models and streamed once, kept while either is drawn, destroyed with the last;
 *   - the streaming users follow what changes: a ModelMesh spawned or despawned, a level parked
 *     (its user goes at once) or shown, a moved transform (the material goes low when its only
 *     user flies away), an asset that finishes loading after its ModelMesh was added.
 * The textures are 512 x 512 RGBA8 chains whose level 0 is coloured (base red, emissive blue) and
 * every other level black; the sampler has no mips (glTF min filter LINEAR), so a slot samples its
 * image's base level: the full chain's colour, or the "#low" tail's black. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "texstream_fixture.h"

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

static void test_users_follow_changes(void **state) {
    (void)state;
    fx f;
    fx_open(&f, 0, NULL);
    int frames = 0;
    place_camera(&f, 5.0f);
    assert_int_equal(settle(&f, true, &frames), SEEN_LOW | SEEN_FULL);
    assert_int_equal(fx_decisions(&f).users, 1);
    rill_entity h2;
    rill_asset a2 = spawn_model(&f, "models/q.glb", &h2);
    frame(&f, false);
    assert_int_equal(fx_decisions(&f).users, 2);
    fx_set_shown(&f, h2, false);
    assert_int_equal(fx_decisions(&f).users, 1); /* at once, before any update */
    fx_set_shown(&f, h2, true);
    frame(&f, false);
    assert_int_equal(fx_decisions(&f).users, 2);
    assert_true(rill_world_despawn_recursive(f.w, h2) > 0);
    assert_int_equal(fx_decisions(&f).users, 1);

    /* The only user flies 1 km away: its box follows, the textures go low. */
    rill_transform t = rill_transform_identity();
    t.translation[0] = 1000.0f;
    rill_world_set_transform(f.w, f.holder, &t);
    settle(&f, false, &frames);
    assert_int_equal(frame(&f, true), SEEN_LOW);
    assert_int_equal(fx_decisions(&f).low, 2);

    /* A ModelMesh named before its asset loaded becomes a user once it is uploaded. */
    rill_error err = {0};
    rill_asset lod = rill_asset_load(f.as, "models/q_lod1.glb", &err);
    rill_entity e = rill_world_spawn(f.w);
    rill_transform id = rill_transform_identity();
    rill_world_set_transform(f.w, e, &id);
    assert_non_null(rill_world_add(f.w, e, f.rc.model_mesh, &(rill_model_mesh){lod.id, 0, 0}));
    for (int i = 0; i < 400 && fx_decisions(&f).users < 2; i++) {
        frame(&f, false);
    }
    assert_int_equal(fx_decisions(&f).users, 2);
    settle(&f, false, &frames);
    assert_int_equal(fx_decisions(&f).full, 2); /* the new user is near the camera */
    rill_world_despawn(f.w, e);
    assert_int_equal(fx_decisions(&f).users, 1);
    rill_asset_release(f.as, lod);
    rill_asset_release(f.as, a2);
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
        cmocka_unit_test(test_users_follow_changes),
        cmocka_unit_test(test_swap_frames_never_mix),
        cmocka_unit_test(test_memory_after_swap_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
