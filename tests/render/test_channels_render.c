/* test_channels_render.c: the render side of scene channels on lavapipe with validation on.
 * Wireframe instances draw their mesh's edge buffer as lines (only the edges a person would draw)
 * and fall back to polygon-mode lines over every triangle without one; the distance fade lowers
 * far lines and skips meshes wholly beyond its end; a mixed-passthrough camera writes alpha 0
 * where nothing drew, 1 on geometry and the ghost's opacity on ghost pixels (golden: the output
 * composited over a generated camera-feed picture); hidden and wireframe casters cast no shadow.
 * Goldens follow golden.h (192x192). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "golden.h"
#include "model_gen.h"
#include "rill/formats/edges.h"
#include "rill/render.h"
#include "rill/render/effects.h"

#define W 192
#define H 192

typedef struct fixture {
    rill_renderer *r;
    rill_mesh plane, sphere;
    rill_mesh cube_edges, cube_plain; /* the same unit cube with and without an edge buffer */
    uint32_t cube_edge_count;
    rill_material grey, dark, orange, blue;
    rill_render_instance inst[32];
    uint32_t n;
    rill_render_snapshot snap;
} fixture;

static rill_material material(rill_renderer *r, float red, float green, float blue) {
    return render_test_material(r, (rill_material_desc){.base_color = {red, green, blue, 1},
                                                        .roughness = 0.6f,
                                                        .roughness_set = true});
}

/* The unit cube of model_gen.h as renderer vertices, with the edge buffer rill_edges_build gives
 * it (its 12 hard edges: every face diagonal is between coplanar triangles) or without one. */
static void make_cubes(fixture *f) {
    float pos[72], nrm[72], tan4[96];
    uint32_t idx[36];
    model_gen_cube(pos, nrm, tan4, idx);
    rill_vertex v[24];
    memset(v, 0, sizeof(v));
    for (int i = 0; i < 24; i++) {
        memcpy(v[i].position, pos + i * 3, sizeof(float) * 3);
        memcpy(v[i].normal, nrm + i * 3, sizeof(float) * 3);
        memcpy(v[i].tangent, tan4 + i * 4, sizeof(float) * 4);
    }
    uint32_t *lines = NULL, count = 0;
    rill_error err = {0};
    assert_int_equal(rill_edges_build(pos, 24, 0, idx, 36, NULL, &lines, &count, &err), RILL_OK);
    assert_int_equal(count, 24); /* 12 edges */
    rill_mesh_desc d = {.vertices = v,
                        .vertex_count = 24,
                        .indices = idx,
                        .index_count = 36,
                        .label = "cube+edges",
                        .edge_indices = lines,
                        .edge_index_count = count};
    f->cube_edges = rill_render_mesh_create(f->r, &d, &err);
    rill_mesh_desc p = {.vertices = v,
                        .vertex_count = 24,
                        .indices = idx,
                        .index_count = 36,
                        .label = "cube",
                        .edge_indices = NULL,
                        .edge_index_count = 0};
    f->cube_plain = rill_render_mesh_create(f->r, &p, &err);
    f->cube_edge_count = count;
    /* Hostile edge buffers are refused with a message, not drawn. */
    uint32_t bad[2] = {0, 24};
    rill_mesh_desc b = {.vertices = v,
                        .vertex_count = 24,
                        .indices = idx,
                        .index_count = 36,
                        .label = "bad edges",
                        .edge_indices = bad,
                        .edge_index_count = 2};
    assert_int_equal(rill_render_mesh_create(f->r, &b, &err).id, 0);
    assert_non_null(strstr(err.msg, "edge index 1 out of range"));
    rill_mesh_desc odd = {.vertices = v,
                          .vertex_count = 24,
                          .indices = idx,
                          .index_count = 36,
                          .label = "odd edges",
                          .edge_indices = bad,
                          .edge_index_count = 1};
    assert_int_equal(rill_render_mesh_create(f->r, &odd, &err).id, 0);
    assert_non_null(strstr(err.msg, "not a line list"));
    rill_free(lines);
    assert_true(f->cube_edges.id && f->cube_plain.id);
}

static int setup(void **state) {
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 512, .quality = RILL_RENDER_QUALITY_MEDIUM};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->plane = render_test_plane(f->r);
    f->sphere = render_test_sphere(f->r, 16);
    make_cubes(f);
    f->grey = material(f->r, 0.6f, 0.6f, 0.6f);
    f->dark = material(f->r, 0.12f, 0.12f, 0.14f);
    f->orange = material(f->r, 0.9f, 0.5f, 0.2f);
    f->blue = material(f->r, 0.2f, 0.35f, 0.9f);
    return 0;
}

static rill_render_instance *add(fixture *f, rill_mesh mesh, rill_material mat, float x, float y,
                                 float z, float s, float rot_y) {
    rill_render_instance *in = &f->inst[f->n];
    render_test_place(in, f->n + 1, mesh, mat, (float[3]){x, y, z}, s, rot_y);
    f->n++;
    return in;
}

/* A new scene: camera at e looking at t, a sun (shadows on), a little ambient. */
static void scene(fixture *f, const float e[3], const float t[3]) {
    mat4 inv;
    render_test_look_at(inv, e, t);
    memset(&f->snap, 0, sizeof(f->snap));
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.9f;
    f->snap.view.clear_color[0] = 0.05f;
    f->snap.view.clear_color[1] = 0.07f;
    f->snap.view.clear_color[2] = 0.12f;
    f->snap.has_sun = true;
    float l = sqrtf(0.25f + 1.0f + 0.09f);
    f->snap.sun.direction[0] = -0.5f / l;
    f->snap.sun.direction[1] = -1.0f / l;
    f->snap.sun.direction[2] = -0.3f / l;
    f->snap.sun.color[0] = f->snap.sun.color[1] = f->snap.sun.color[2] = 1.0f;
    f->snap.sun.illuminance = 3.0f;
    f->snap.sun.shadows = true;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.08f;
    f->n = 0;
}

static void render(fixture *f, uint8_t *px) {
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    if (rill_renderer_read_pixels(f->r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
}

static void check(const char *golden, const uint8_t *px) {
    golden_expect(golden, px, W, H);
}

static uint32_t pixels_differing(const uint8_t *a, const uint8_t *b, int tol) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        for (int c = 0; c < 4; c++) {
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > tol) {
                n++;
                break;
            }
        }
    }
    return n;
}

static const uint8_t *at(const uint8_t *px, uint32_t x, uint32_t y) {
    return px + ((size_t)y * W + x) * 4;
}

/* Two wireframe cubes and a wireframe sphere on a normal ground: with edges the cubes show their
 * 12 edges (one instanced line-list draw) and the sphere, which has none, polygon-mode lines;
 * without edges the cubes show every triangle too. */
static void wire_scene(fixture *f, rill_mesh cube) {
    scene(f, (float[]){0, 2.2f, 4.5f}, (float[]){0, 0.5f, 0});
    add(f, f->plane, f->dark, 0, 0, 0, 12.0f, 0);
    add(f, cube, f->orange, -1.4f, 0.5f, 0, 1.0f, 0.4f)->mode = RILL_RENDER_MODE_WIREFRAME;
    add(f, cube, f->orange, 1.4f, 0.5f, 0, 1.0f, -0.3f)->mode = RILL_RENDER_MODE_WIREFRAME;
    add(f, f->sphere, f->orange, 0, 0.6f, -0.6f, 1.2f, 0)->mode = RILL_RENDER_MODE_WIREFRAME;
}

static void test_wireframe_edges_and_fallback(void **state) {
    fixture *f = *state;
    assert_int_equal(rill_render_mesh_edge_count(f->r, f->cube_edges), f->cube_edge_count);
    assert_int_equal(rill_render_mesh_edge_count(f->r, f->cube_plain), 0);
    static uint8_t edges[W * H * 4], fill[W * H * 4];
    wire_scene(f, f->cube_edges);
    render(f, edges);
    check("wireframe_edges", edges);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.wire_edge_draws, 1); /* both cubes, one instanced line-list draw */
    assert_int_equal(st.wire_fill_draws, 1); /* the sphere */
    assert_int_equal(st.instances_visible, 4);
    wire_scene(f, f->cube_plain);
    render(f, fill);
    check("wireframe_fallback", fill);
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.wire_edge_draws, 0);
    assert_int_equal(st.wire_fill_draws, 2); /* cube mesh, then sphere mesh */
    /* The fallback adds the face diagonals: many pixels differ, all of them inside the cubes. */
    assert_true(pixels_differing(edges, fill, 8) > 150);
}

/* A row of edge cubes going away from the camera with the fade on (start 3, end 12): near ones
 * full, far ones faint, the last ones (wholly beyond 12) not drawn at all. */
static void test_wireframe_fade(void **state) {
    fixture *f = *state;
    scene(f, (float[]){0, 1.5f, 2.0f}, (float[]){0, 0.3f, -6.0f});
    f->snap.has_sun = false;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.3f;
    for (int i = 0; i < 7; i++) {
        float z = -1.0f - 3.0f * (float)i; /* distances ~3..21 from the camera */
        add(f, f->cube_edges, f->orange, (i % 2) ? 0.8f : -0.8f, 0.5f, z, 1.0f, 0.5f)->mode =
            RILL_RENDER_MODE_WIREFRAME;
    }
    f->snap.wireframe.fade = true;
    f->snap.wireframe.fade_start = 3.0f;
    f->snap.wireframe.fade_end = 12.0f;
    static uint8_t px[W * H * 4];
    render(f, px);
    check("wireframe_fade", px);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    /* Cubes at z = -1, -4, -7, -10 are within 12 m (bounds radius ~0.87); -13, -16, -19 are not. */
    assert_int_equal(st.instances_visible, 4);
    /* Without the fade every cube is drawn, at full strength. */
    static uint8_t flat[W * H * 4];
    f->snap.wireframe.fade = false;
    render(f, flat);
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.instances_visible, 7);
    assert_true(pixels_differing(px, flat, 8) > 50);
}

/* A generated "camera feed": diagonal warm and cool stripes over a vertical gradient. */
static void camera_feed(uint8_t *px) {
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            uint8_t *p = px + ((size_t)y * W + x) * 4;
            bool stripe = ((x + y) / 16) % 2 == 0;
            uint8_t g = (uint8_t)(80 + y * 120 / H);
            p[0] = stripe ? 200 : 60;
            p[1] = g;
            p[2] = stripe ? 70 : 190;
            p[3] = 255;
        }
    }
}

/* out = feed * (1 - a) + scene * a, per channel on the encoded values (what a compositor showing
 * the PNG over the feed does). */
static void composite(const uint8_t *scene_px, const uint8_t *feed, uint8_t *out) {
    for (uint32_t i = 0; i < W * H; i++) {
        uint32_t a = scene_px[i * 4 + 3];
        for (int c = 0; c < 3; c++) {
            out[i * 4 + c] =
                (uint8_t)((feed[i * 4 + c] * (255u - a) + scene_px[i * 4 + c] * a + 127u) / 255u);
        }
        out[i * 4 + 3] = 255;
    }
}

/* A ghost wall (opacity 0.35) in front of a blue sphere, a normal orange cube beside it, a ground
 * plane under both. */
static void ghost_scene(fixture *f, rill_passthrough pt, rill_render_mode wall_mode) {
    scene(f, (float[]){0, 1.6f, 4.5f}, (float[]){0, 0.6f, 0});
    f->snap.view.passthrough = pt;
    add(f, f->plane, f->grey, 0, 0, -1.0f, 14.0f, 0);
    add(f, f->sphere, f->blue, 0.3f, 0.7f, -1.2f, 1.2f, 0);
    rill_render_instance *wall = add(f, f->cube_plain, f->grey, -0.4f, 0.8f, 0.2f, 1.6f, 0);
    wall->mode = wall_mode;
    wall->ghost_opacity = 0.35f;
    add(f, f->cube_edges, f->orange, 1.5f, 0.5f, 0, 1.0f, 0.5f);
    /* A second ghost, another mesh and opacity: the ghost list is then sorted (its keys packed),
     * and each run must still push its own opacity. */
    rill_render_instance *ball = add(f, f->sphere, f->orange, -1.9f, 0.45f, 1.2f, 0.9f, 0);
    ball->mode = wall_mode;
    ball->ghost_opacity = 0.7f;
}

static void test_ghost_passthrough(void **state) {
    fixture *f = *state;
    static uint8_t mixed[W * H * 4], off[W * H * 4], normal[W * H * 4];
    ghost_scene(f, RILL_PASSTHROUGH_MIXED, RILL_RENDER_MODE_GHOST);
    render(f, mixed);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.ghost_alpha_draws, 2);
    /* Sky (nothing drew): 0; ground and the normal cube: 1; the ghost wall: its opacity. */
    assert_int_equal(at(mixed, 4, 4)[3], 0);
    assert_int_equal(at(mixed, W / 2, H - 4)[3], 255);
    const uint8_t *wall = at(mixed, 70, 90);
    assert_in_range(wall[3], 88, 90); /* 0.35 * 255 */
    uint32_t ghost_px = 0, ball_px = 0, opaque_px = 0, clear_px = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        uint8_t a = mixed[i * 4 + 3];
        ghost_px += a >= 88 && a <= 90;
        ball_px += a >= 177 && a <= 179; /* 0.7 * 255 */
        opaque_px += a == 255;
        clear_px += a == 0;
    }
    assert_true(ghost_px > 1500 && opaque_px > 5000 && clear_px > 3000);
    assert_true(ball_px > 300);
    /* The blue sphere behind the wall stays occluded: only alpha is lowered, the colour is the
     * wall's, exactly as the same wall drawn opaque without passthrough. */
    ghost_scene(f, RILL_PASSTHROUGH_OFF, RILL_RENDER_MODE_GHOST);
    render(f, off);
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.ghost_alpha_draws, 0);
    ghost_scene(f, RILL_PASSTHROUGH_OFF, RILL_RENDER_MODE_NORMAL);
    render(f, normal);
    assert_int_equal(pixels_differing(off, normal, 0), 0); /* ghost without passthrough = normal */
    for (uint32_t i = 0; i < W * H; i++) {
        assert_int_equal(off[i * 4 + 3], 255);
        for (int c = 0; c < 3; c++) {
            if (abs((int)off[i * 4 + c] - (int)mixed[i * 4 + c]) > 1) {
                fail_msg("pixel %u channel %d: mixed passthrough changed the colour", i, c);
            }
        }
    }
    /* Anti-aliasing keeps the alpha: TAA (two frames, so it blends history), FXAA and sharpening
     * on the same camera give the same alpha histogram classes. */
    static rill_render_taa taa;
    static rill_render_fxaa fxaa;
    static rill_render_cas cas = {.sharpening_strength = 0.6f};
    rill_render_routed_settings aa[3] = {{"TemporalAntiAliasing", &taa, sizeof taa, 0},
                                         {"Fxaa", &fxaa, sizeof fxaa, 0},
                                         {"ContrastAdaptiveSharpening", &cas, sizeof cas, 0}};
    static uint8_t smooth[W * H * 4];
    for (int frame = 0; frame < 2; frame++) {
        ghost_scene(f, RILL_PASSTHROUGH_MIXED, RILL_RENDER_MODE_GHOST);
        f->snap.view.settings = aa;
        f->snap.view.settings_count = 3;
        render(f, smooth);
    }
    uint32_t aa_ghost = 0, aa_clear = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        aa_ghost += smooth[i * 4 + 3] >= 88 && smooth[i * 4 + 3] <= 90;
        aa_clear += smooth[i * 4 + 3] == 0;
    }
    assert_true(aa_ghost + 200 > ghost_px && aa_clear + 200 > clear_px);
    assert_int_equal(at(smooth, 70, 90)[3], wall[3]);

    /* What a viewer sees: the output over the camera feed. */
    static uint8_t feed[W * H * 4], shown[W * H * 4];
    camera_feed(feed);
    composite(mixed, feed, shown);
    check("ghost_passthrough", shown);
}

/* A blended glass cube (alpha 0.5) in front of an opaque ghost box (opacity 0.35), both over
 * nothing (no ground): part of the glass covers the box, part nothing. The glass is in the
 * given mode, a ghost of opacity 0.35 too when GHOST. */
static void glass_scene(fixture *f, rill_passthrough pt, int glass_mode, rill_material glass) {
    scene(f, (float[]){0, 1.2f, 4.0f}, (float[]){0, 0.6f, 0});
    f->snap.view.passthrough = pt;
    rill_render_instance *box = add(f, f->cube_plain, f->grey, -0.5f, 0.6f, -1.0f, 1.2f, 0.3f);
    box->mode = RILL_RENDER_MODE_GHOST;
    box->ghost_opacity = 0.35f;
    if (glass_mode >= 0) {
        rill_render_instance *g = add(f, f->cube_plain, glass, 0.35f, 0.6f, 0.4f, 1.0f, 0.4f);
        g->mode = (rill_render_mode)glass_mode;
        g->ghost_opacity = 0.35f;
    }
}

/* Mixed passthrough with a blended material in a ghosted channel: the glass's alpha is its
 * ghost's opacity times its material alpha "over" what is behind (0.35 x 0.5 = 0.175 over
 * nothing: 45; over the ghost box's 0.35, 0.175 + 0.35 x 0.825 = 0.464: 118), where an unghosted
 * glass gives 0.5 (128) and 0.675 (172); the colour is the unghosted glass's. Without
 * passthrough a ghosted glass is the unghosted one. */
static void test_ghost_glass_passthrough(void **state) {
    fixture *f = *state;
    rill_material glass =
        render_test_material(f->r, (rill_material_desc){.base_color = {1.0f, 0.2f, 0.1f, 0.5f},
                                                        .roughness = 0.3f,
                                                        .roughness_set = true,
                                                        .alpha_mode = RILL_ALPHA_BLEND});
    static uint8_t box[W * H * 4], plain[W * H * 4], ghost[W * H * 4], px[W * H * 4];
    glass_scene(f, RILL_PASSTHROUGH_MIXED, -1, glass);
    render(f, box);
    glass_scene(f, RILL_PASSTHROUGH_MIXED, RILL_RENDER_MODE_NORMAL, glass);
    render(f, plain);
    glass_scene(f, RILL_PASSTHROUGH_MIXED, RILL_RENDER_MODE_GHOST, glass);
    render(f, ghost);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    /* Glass pixels are those the unghosted glass changed; over nothing where the box left 0,
     * over the box where it left its opacity. */
    uint32_t over_nothing = 0, over_box = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        uint8_t a0 = box[i * 4 + 3], an = plain[i * 4 + 3], ag = ghost[i * 4 + 3];
        for (int c = 0; c < 3; c++) {
            if (abs((int)plain[i * 4 + c] - (int)ghost[i * 4 + c]) > 1) {
                fail_msg("pixel %u channel %d: a ghosted glass changed the colour", i, c);
            }
        }
        if (a0 == 0 && an >= 127 && an <= 129) {
            over_nothing++;
            if (ag < 44 || ag > 46) {
                fail_msg("pixel %u: ghosted glass over nothing has alpha %u, not 45", i, ag);
            }
        } else if (a0 >= 88 && a0 <= 90 && an >= 171 && an <= 173) {
            over_box++;
            if (ag < 117 || ag > 119) {
                fail_msg("pixel %u: ghosted glass over the ghost has alpha %u, not 118", i, ag);
            }
        }
    }
    assert_true(over_nothing > 500 && over_box > 500);
    assert_int_equal(st.ghost_alpha_draws, 2); /* the box's and the glass's */
    /* Without passthrough the ghosted glass draws as the unghosted one. */
    glass_scene(f, RILL_PASSTHROUGH_OFF, RILL_RENDER_MODE_GHOST, glass);
    render(f, px);
    glass_scene(f, RILL_PASSTHROUGH_OFF, RILL_RENDER_MODE_NORMAL, glass);
    render(f, plain);
    assert_int_equal(pixels_differing(px, plain, 0), 0);
    rill_render_material_destroy(f->r, glass);
}

/* A caster above and behind the camera (out of view) throws its shadow onto the ground in the
 * middle of the picture. Hidden, it casts nothing; wireframe, nothing either; ghost, as normal. */
static void caster_scene(fixture *f, int caster) {
    scene(f, (float[]){0, 3.0f, 4.0f}, (float[]){0, 0, 0});
    float l = sqrtf(2.0f);
    f->snap.sun.direction[0] = 0;
    f->snap.sun.direction[1] = -1.0f / l;
    f->snap.sun.direction[2] = -1.0f / l;
    add(f, f->plane, f->grey, 0, 0, 0, 16.0f, 0);
    if (caster >= 0) {
        add(f, f->cube_edges, f->orange, 0, 5.0f, 5.0f, 1.5f, 0)->mode = (rill_render_mode)caster;
    }
}

static void test_hidden_and_wireframe_cast_no_shadow(void **state) {
    fixture *f = *state;
    static uint8_t none[W * H * 4], normal[W * H * 4], px[W * H * 4];
    caster_scene(f, -1);
    render(f, none);
    caster_scene(f, RILL_RENDER_MODE_NORMAL);
    render(f, normal);
    /* The caster itself is out of view: only its shadow differs, in the middle of the ground. */
    const uint8_t *lit = at(none, W / 2, H / 2), *shaded = at(normal, W / 2, H / 2);
    assert_true(lit[0] > shaded[0] + 20);
    assert_true(pixels_differing(none, normal, 3) > 500);
    caster_scene(f, RILL_RENDER_MODE_HIDDEN);
    render(f, px);
    assert_int_equal(pixels_differing(none, px, 1), 0);
    caster_scene(f, RILL_RENDER_MODE_WIREFRAME);
    render(f, px);
    assert_int_equal(pixels_differing(none, px, 1), 0);
    caster_scene(f, RILL_RENDER_MODE_GHOST);
    render(f, px);
    assert_int_equal(pixels_differing(normal, px, 1), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_wireframe_edges_and_fallback, setup,
                                        render_test_teardown_all_freed),
        cmocka_unit_test_setup_teardown(test_wireframe_fade, setup, render_test_teardown_all_freed),
        cmocka_unit_test_setup_teardown(test_ghost_passthrough, setup,
                                        render_test_teardown_all_freed),
        cmocka_unit_test_setup_teardown(test_ghost_glass_passthrough, setup,
                                        render_test_teardown_all_freed),
        cmocka_unit_test_setup_teardown(test_hidden_and_wireframe_cast_no_shadow, setup,
                                        render_test_teardown_all_freed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
