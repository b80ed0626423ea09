/* The terrain through the user's path on lavapipe: a Terrain entity with four splat layers (a
 * weight map, albedo textures and a normal map read through the VFS), its chunks built by the
 * terrain system, drawn by rill_render_terrain via rill_render_extract, lit by a sun with shadows
 * and shadowed by a cube; compared with a golden. Chunk meshes share one GPU index buffer and the
 * terrain's CPU copies are dropped after the upload. Then the chunks stream out and their GPU
 * memory goes. In wireframe the chunks draw the grid's edges (one edge buffer shared by the chunks,
 * like the index buffer; golden). Picking through the renderer's mesh source finds the cube (a
 * MeshInstance) and the terrain. Also rill_mesh_desc.share_indices on its own: checks, the buffers
 * (indices and edges) outliving the mesh they came from, and the CPU copy picking reads. */
#include "rill_test.h"

#include "render_test.h"

#include "golden.h"
#include "rill/channels.h"
#include "rill/formats/image.h"
#include "rill/render.h"
#include "rill/terrain.h"

#include <cglm/cglm.h>
#include <math.h>

#define W 192
#define H 144

static void write_png(const char *dir, const char *name, const uint8_t *rgba, uint32_t w,
                      uint32_t h) {
    uint8_t *png = NULL;
    size_t size = 0;
    assert_int_equal(rill_image_encode_png(rgba, w, h, 4, &png, &size, NULL), RILL_OK);
    rill_test_write_file(dir, name, png, size);
    rill_free(png);
}

/* Test textures: weights that put each layer in its own region, two patterned albedos and a
 * bumpy normal map. */
static void write_layers(const char *dir) {
    static uint8_t weights[64 * 64 * 4], albedo0[32 * 32 * 4], albedo2[32 * 32 * 4],
        normal2[32 * 32 * 4];
    for (uint32_t y = 0; y < 64; y++) {
        for (uint32_t x = 0; x < 64; x++) {
            uint8_t *p = &weights[(y * 64 + x) * 4];
            float fx = (float)x / 63.0f, fy = (float)y / 63.0f;
            float snow = fx > 0.7f && fy < 0.3f ? 1.0f : 0.0f;
            float rock = fabsf(fx - fy) < 0.15f ? 1.0f : 0.0f;
            float dirt = fy > 0.65f ? 1.0f : 0.0f;
            float grass = snow + rock + dirt > 0.0f ? 0.0f : 1.0f;
            p[0] = (uint8_t)(grass * 255.0f);
            p[1] = (uint8_t)(dirt * 255.0f);
            p[2] = (uint8_t)(rock * 255.0f);
            p[3] = (uint8_t)(snow * 255.0f);
        }
    }
    for (uint32_t y = 0; y < 32; y++) {
        for (uint32_t x = 0; x < 32; x++) {
            uint8_t *a = &albedo0[(y * 32 + x) * 4], *b = &albedo2[(y * 32 + x) * 4],
                    *n = &normal2[(y * 32 + x) * 4];
            bool check = ((x / 8) + (y / 8)) % 2 == 0;
            a[0] = check ? 200 : 150, a[1] = check ? 230 : 190, a[2] = check ? 200 : 150;
            a[3] = 255;
            uint8_t stripe = (uint8_t)(y % 8 < 4 ? 230 : 120);
            b[0] = b[1] = b[2] = stripe, b[3] = 255;
            float s = sinf((float)x / 32.0f * 6.2831853f * 2.0f);
            n[0] = (uint8_t)(128.0f + 100.0f * s), n[1] = 128, n[2] = 230, n[3] = 255;
        }
    }
    write_png(dir, "splat.png", weights, 64, 64);
    write_png(dir, "grass.png", albedo0, 32, 32);
    write_png(dir, "rock.png", albedo2, 32, 32);
    write_png(dir, "rock_n.png", normal2, 32, 32);
}

static void test_terrain_golden_and_stream_out(void **state) {
    (void)state;
    char dir[512];
    rill_test_tmpdir(dir, sizeof dir, "terrain_render");
    write_layers(dir);
    rill_error err = {0};
    rill_renderer *r = render_test_renderer((rill_renderer_desc){
        .width = W, .height = H, .shadow_map_size = 512, .quality = RILL_RENDER_QUALITY_HIGH});
    assert_non_null(r);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_terrain_system *ts = rill_terrain_system_create(
        &(rill_terrain_system_desc){.world = w, .jobs = jobs, .vfs = vfs}, &err);
    assert_non_null(ts);
    rill_render_terrain *rt = rill_render_terrain_create(
        &(rill_render_terrain_desc){.renderer = r, .world = w, .terrain = ts, .vfs = vfs}, &err);
    assert_non_null(rt);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(w);

    /* A 64 m terrain of 2 x 2 chunks centred on the origin. */
    rill_terrain t;
    rill_terrain_defaults(&t);
    t.chunks_x = t.chunks_z = 2;
    t.chunk_size = 32.0f;
    t.resolution = 33;
    t.height_scale = 14.0f;
    t.height_offset = -7.0f;
    t.noise_scale = 48.0f;
    t.seed = 7;
    t.stream = true;
    t.stream_radius = 32.0f;
    t.splat_map = rill_intern("splat.png");
    t.layer_count = 4;
    t.layer_albedo[0] = rill_intern("grass.png");
    t.layer_albedo[2] = rill_intern("rock.png");
    t.layer_normal[2] = rill_intern("rock_n.png");
    t.layer_tile[0] = 4.0f;
    t.layer_tile[2] = 6.0f;
    rill_entity te = rill_world_spawn(w);
    rill_transform tr = rill_transform_identity();
    tr.translation[0] = -32.0f;
    tr.translation[2] = -32.0f;
    rill_world_set_transform(w, te, &tr);
    rill_world_add(w, te, rill_terrain_register(w), &t);
    rill_terrain_view edit = {0};
    rill_terrain_system_flush(ts, &edit);
    rill_terrain_info info;
    assert_true(rill_terrain_get_info(ts, te, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_int_equal(info.resident, 4);
    assert_int_equal(info.resident_bytes, 4u * 33u * 33u * 24u); /* positions + normals */
    const uint64_t cpu_before = rill_mem_live_bytes(RILL_MEM_TERRAIN);

    /* A cube hovering over the middle casts a shadow on the terrain. */
    rill_mesh cube = rill_render_mesh_cube(r, &err);
    rill_material red = rill_render_material_create(
        r, &(rill_material_desc){.base_color = {0.8f, 0.15f, 0.1f, 1}, .roughness = 0.5f}, &err);
    rill_entity box = rill_world_spawn(w);
    rill_mesh_instance mi = {cube.id, red.id};
    rill_world_add(w, box, rc.mesh_instance, &mi);
    float ground = 0;
    assert_true(rill_terrain_height_at(ts, te, 0, 0, &ground, NULL));
    tr = rill_transform_identity();
    tr.translation[1] = ground + 4.0f;
    tr.scale[0] = tr.scale[1] = tr.scale[2] = 4.0f;
    rill_world_set_transform(w, box, &tr);

    rill_entity sun = rill_world_spawn(w);
    rill_directional_light *dl = rill_world_add(w, sun, rc.directional_light, NULL);
    dl->shadows = true;
    render_test_entity_look_at(w, sun, (float[3]){0, 0, 0}, (float[3]){0.5f, -1.0f, 0.35f});
    rill_entity cam = rill_world_spawn(w);
    rill_camera *c = rill_world_add(w, cam, b->camera, NULL);
    c->clear_color[0] = 0.35f, c->clear_color[1] = 0.5f, c->clear_color[2] = 0.7f;
    c->far_plane = 400.0f;
    render_test_entity_look_at(w, cam, (float[3]){-30, 28, 42}, (float[3]){2, -4, -4});
    rill_world_update_transforms(w);

    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("extract: %s", err.msg);
    }
    assert_int_equal(snap.instance_count, 5); /* four chunks and the cube */
    rill_render_terrain_stats rs;
    rill_render_terrain_get_stats(rt, &rs);
    assert_int_equal(rs.terrains, 1);
    assert_int_equal(rs.meshes, 4);
    /* Per chunk on the GPU: 33 * 33 vertices of 48 bytes; one index buffer (32 * 32 * 6 indices)
     * for all four. The terrain's CPU copies of the meshes are gone after the upload. */
    const uint64_t chunk_vb = 33u * 33u * 48u, shared_ib = 32u * 32u * 6u * 4u;
    assert_int_equal(rs.index_buffers, 1);
    assert_int_equal(rs.vertex_bytes, 4u * chunk_vb);
    assert_int_equal(rs.index_bytes, shared_ib);
    assert_true(rill_terrain_get_info(ts, te, &info));
    assert_int_equal(info.resident_bytes, 0); /* no physics here: no colliders either */
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_TERRAIN) + 4u * 33u * 33u * 24u, cpu_before);
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.08f;
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    static uint8_t px[W * H * 4];
    if (rill_renderer_read_pixels(r, px, sizeof px, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    assert_int_equal(st.validation_messages, 0);
    uint64_t used_resident = st.gpu_memory_used_bytes;
    golden_expect("terrain_splat", px, W, H);

    /* Scene channels: the terrain is renderable, so it defaults to context; hiding context hides
     * its chunks (the cube, a MeshInstance, is context too), wireframe and ghost reach every
     * chunk. */
    assert_int_equal(rill_channels_get(w, te), RILL_CHANNEL_CONTEXT);
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_HIDDEN, 1.0f);
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("extract: %s", err.msg);
    }
    assert_int_equal(snap.instance_count, 1); /* the cube, resolved hidden by the renderer */
    assert_int_equal(snap.instances[0].mode, RILL_RENDER_MODE_HIDDEN);
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_GHOST, 0.4f);
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("extract: %s", err.msg);
    }
    assert_int_equal(snap.instance_count, 5);
    for (uint32_t i = 0; i < snap.instance_count; i++) {
        assert_int_equal(snap.instances[i].mode, RILL_RENDER_MODE_GHOST);
        assert_true(fabsf(snap.instances[i].ghost_opacity - 0.4f) < 1e-6f);
    }

    /* Wireframe: each chunk draws the grid's edges as lines (its own draw, the shared edge
     * buffer); the cube has no edge buffer and falls back to line fill. */
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_WIREFRAME, 1.0f);
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("extract: %s", err.msg);
    }
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.08f;
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    if (rill_renderer_read_pixels(r, px, sizeof px, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    rill_renderer_stats(r, &st);
    assert_int_equal(st.wire_edge_draws, 4);
    assert_int_equal(st.wire_fill_draws, 1);
    rill_render_terrain_get_stats(rt, &rs);
    assert_int_equal(rs.edge_bytes, 33u * 32u * 4u * 4u); /* 2 * 33 * 32 segments of 2 indices */
    golden_expect("terrain_wire_edges", px, W, H);
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_NORMAL, 1.0f);

    /* Picking through the renderer: straight down onto the cube (4 m across, centred 4 m over the
     * ground), selectable now; without the renderer's mesh source only the terrain is seen. */
    assert_true(rill_channels_set(w, box, RILL_CHANNEL_SELECTABLE));
    rill_pick_desc pd = {.origin = {0.0f, 60.0f, 0.0f},
                         .dir = {0.0f, -1.0f, 0.0f},
                         .opaque_blocks = true,
                         .terrain = ts};
    rill_render_pick_source(r, &pd);
    rill_pick_hit hit;
    assert_true(rill_channels_pick(w, NULL, &pd, &hit));
    assert_true(hit.entity == box);
    assert_float_equal(hit.point[1], ground + 6.0f, 1e-3);
    pd.channels = RILL_CHANNEL_CONTEXT;
    assert_false(rill_channels_pick(w, NULL, &pd, &hit)); /* the selectable cube hides it */
    pd.mesh_source = NULL;
    assert_true(rill_channels_pick(w, NULL, &pd, &hit));
    assert_true(hit.entity == te);
    assert_float_equal(hit.point[1], ground, 1e-3);
    rill_channels_refresh(w, box, true);
    rill_pick_mesh pm;
    assert_true(rill_render_mesh_triangles(r, cube, &pm));
    assert_int_equal(pm.index_count, 36);
    assert_float_equal(pm.bounds_max[1], 0.5f, 1e-6);

    /* Streaming on with the camera far away: every chunk goes out, and with it its GPU mesh. */
    rill_terrain_view away = {
        .streaming = true, .has_camera = true, .camera_position = {900, 0, 0}};
    rill_terrain_system_update(ts, &away);
    assert_true(rill_terrain_get_info(ts, te, &info));
    assert_int_equal(info.resident, 0);
    for (int frame = 0; frame < 4; frame++) {
        if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
            fail_msg("%s", err.msg);
        }
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    }
    assert_int_equal(snap.instance_count, 1);
    rill_render_terrain_get_stats(rt, &rs);
    assert_int_equal(rs.meshes, 0);
    assert_int_equal(rs.releases, 4);
    assert_int_equal(rs.index_buffers, 0);
    assert_int_equal(rs.vertex_bytes, 0);
    assert_int_equal(rs.index_bytes, 0);
    assert_int_equal(rill_renderer_wait_idle(r, &err), RILL_OK);
    rill_renderer_stats(r, &st);
    /* The four vertex buffers and the one shared index buffer are freed on the GPU too (and there
     * was only one: four would free three more; measured 64 bytes over, alignment). */
    uint64_t freed = used_resident - st.gpu_memory_used_bytes;
    assert_true(freed >= 4u * chunk_vb + shared_ib);
    assert_true(freed < 4u * chunk_vb + 2u * shared_ib);

    /* Back in edit mode the chunks are rebuilt and uploaded again, sharing one index buffer. */
    rill_terrain_system_flush(ts, &edit);
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    assert_int_equal(snap.instance_count, 5);
    rill_render_terrain_get_stats(rt, &rs);
    assert_int_equal(rs.meshes, 4);
    assert_int_equal(rs.index_buffers, 1);
    assert_int_equal(rs.vertex_bytes, 4u * chunk_vb);
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);

    /* Another resolution: the terrain reloads, its chunks share one index buffer of 16 * 16 cells
     * and the old one goes with the old meshes. */
    rill_terrain *tc = rill_world_get(w, te, rill_terrain_register(w));
    tc->resolution = 17;
    rill_terrain_system_flush(ts, &edit);
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    rill_render_terrain_get_stats(rt, &rs);
    assert_int_equal(rs.meshes, 4);
    assert_int_equal(rs.index_buffers, 1);
    assert_int_equal(rs.vertex_bytes, 4u * 17u * 17u * 48u);
    assert_int_equal(rs.index_bytes, 16u * 16u * 6u * 4u);
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);

    /* share_indices: the cube's 36 indices (up to 23) drawn over another 24 vertices. */
    rill_vertex verts[24];
    memset(verts, 0, sizeof verts);
    rill_mesh_desc sd = {.vertices = verts, .vertex_count = 23, .share_indices = cube};
    assert_int_equal(rill_render_mesh_create(r, &sd, &err).id, 0); /* index 23 needs 24 */
    sd.vertex_count = 24;
    sd.index_count = 30;
    assert_int_equal(rill_render_mesh_create(r, &sd, &err).id, 0); /* not the cube's count */
    sd.index_count = 0;
    rill_mesh twin = rill_render_mesh_create(r, &sd, &err);
    assert_true(twin.id != 0);
    rill_render_mesh_destroy(r, cube);
    uint32_t twin_indices = 0;
    assert_true(rill_render_mesh_info(r, twin, &twin_indices, NULL, NULL));
    assert_int_equal(twin_indices, 36);
    assert_true(rill_render_mesh_triangles(r, twin, &pm)); /* its own copy of the cube's indices */
    assert_int_equal(pm.index_count, 36);
    assert_int_equal(pm.vertex_count, 24);
    assert_false(rill_render_mesh_triangles(r, cube, &pm));        /* stale */
    assert_int_equal(rill_render_mesh_create(r, &sd, &err).id, 0); /* the cube is stale now */
    rill_mesh_instance *bmi = rill_world_get(w, box, rc.mesh_instance);
    bmi->mesh = twin.id;
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK); /* draws with the shared ib */
    rill_render_mesh_destroy(r, twin);

    /* Sharing a mesh with edges shares its edge buffer too (and refuses edges of its own); a
     * gpu_only mesh keeps no CPU copy, nor does a mesh sharing its indices. */
    uint32_t tri[3] = {0, 1, 2}, edges[6] = {0, 1, 1, 2, 2, 0};
    rill_mesh_desc ed = {.vertices = verts,
                         .vertex_count = 3,
                         .indices = tri,
                         .index_count = 3,
                         .edge_indices = edges,
                         .edge_index_count = 6,
                         .gpu_only = true};
    rill_mesh edged = rill_render_mesh_create(r, &ed, &err);
    assert_true(edged.id != 0);
    assert_false(rill_render_mesh_triangles(r, edged, &pm));
    rill_mesh_desc shd = {.vertices = verts,
                          .vertex_count = 3,
                          .share_indices = edged,
                          .edge_indices = edges,
                          .edge_index_count = 6};
    assert_int_equal(rill_render_mesh_create(r, &shd, &err).id, 0);
    shd.edge_indices = NULL;
    shd.edge_index_count = 0;
    rill_mesh edged_twin = rill_render_mesh_create(r, &shd, &err);
    assert_true(edged_twin.id != 0);
    assert_int_equal(rill_render_mesh_edge_count(r, edged_twin), 6);
    assert_false(rill_render_mesh_triangles(r, edged_twin, &pm));
    rill_render_mesh_destroy(r, edged);
    assert_int_equal(rill_render_mesh_edge_count(r, edged_twin), 6);
    rill_render_mesh_destroy(r, edged_twin);

    rill_render_extract_buf_free(&xb);
    rill_render_terrain_destroy(rt);
    rill_render_material_destroy(r, red);
    rill_terrain_system_destroy(ts);
    rill_world_destroy(w);
    rill_jobs_destroy(jobs);
    rill_vfs_destroy(vfs);
    render_test_destroy_clean(r, true);
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terrain_golden_and_stream_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
