/* test_sky.c: the physical sky on lavapipe with validation on (src/render/sky.c), as a user sees
 * it: at noon the zenith is bluer than the horizon and the horizon brighter; at sunset the horizon
 * toward the sun is redder than at noon; a face turned from the sun is lit bluish by the
 * atmosphere's image-based light (black in Color mode with no ambient); aerial perspective takes
 * a far object closer to the sky's colour than a near one; Color mode adds no sky pass and the
 * tables are made again only when the settings change; hostile settings clamp without a crash;
 * a Skybox image is the sky and lights the scene, a missing or oversized one falls back to the
 * clear colour; Clouds cover the sky as their coverage says and grey the image-based light, and
 * shade the sunlit ground below them (cloud shadows that drift with the wind).
 * RILL_SKY_PNG_DIR=dir writes each frame a test reads, to look at. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "golden.h"
#include "render_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/asset.h"
#include "rill/formats/image.h"
#include "rill/render.h"
#include "rill/render/environment.h"
#include "rill/render/post.h"
#include "rill/render/volumetric.h"

#define W 64
#define H 64

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube;
    rill_material white;
    rill_render_instance inst;
    rill_render_snapshot snap;
    rill_render_atmosphere atmo;
    rill_render_routed_settings rs;
    uint8_t px[W * H * 4];
} fixture;

static int setup(void **state) {
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 256, .quality = RILL_RENDER_QUALITY_LOW};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->cube = render_test_cube(f->r);
    f->white = render_test_material(f->r, (rill_material_desc){.base_color = {1, 1, 1, 1}});
    return 0;
}

/* An empty world seen from eye toward `at` under a sun marked as the sun (sky mode Auto resolves
 * to Atmosphere) at time of day `hours`; no ambient colour (the atmosphere's light only). */
static void scene(fixture *f, const float eye[3], const float at[3], double hours, bool marked) {
    memset(&f->snap, 0, sizeof(f->snap));
    mat4 inv;
    render_test_look_at(inv, eye, at);
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.6f;
    f->snap.view.far_plane = 60000.0f;
    f->snap.has_sun = true;
    f->snap.sun.color[0] = f->snap.sun.color[1] = f->snap.sun.color[2] = 1.0f;
    f->snap.sun.illuminance = 3.0f;
    f->snap.sun.marked = marked;
    rill_render_sun_direction_for_hour(hours, f->snap.sun.direction);
}

static void frame(fixture *f, const char *name) {
    rill_error err = {0};
    for (int i = 0; i < 2; i++) { /* the first frame uploads the cube */
        assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    }
    if (rill_renderer_read_pixels(f->r, f->px, sizeof(f->px), &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    const char *dir = getenv("RILL_SKY_PNG_DIR");
    if (dir && name) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.png", dir, name);
        assert_int_equal(rill_renderer_write_png(f->r, path, &err), RILL_OK);
    }
}

/* Mean RGB (0..255) of the 8 x 8 pixels around (x, y). */
static void mean_at(const fixture *f, int x, int y, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    for (int j = y - 4; j < y + 4; j++) {
        for (int i = x - 4; i < x + 4; i++) {
            const uint8_t *p = f->px + ((size_t)j * W + (size_t)i) * 4;
            for (int k = 0; k < 3; k++) {
                out[k] += p[k] / 64.0;
            }
        }
    }
}

static double blueness(const double c[3]) {
    return c[2] / (c[0] + c[1] + c[2] + 1e-6);
}

/* At noon the zenith is bluer than the horizon, and the horizon brighter. */
static void test_noon_zenith_bluer_horizon_brighter(void **state) {
    fixture *f = *state;
    double zen[3], hor[3];
    scene(f, (float[3]){0, 2, 0}, (float[3]){0.001f, 100, 0}, 12.0, true);
    frame(f, "noon_zenith");
    golden_expect("sky_atmosphere_noon", f->px, W, H);
    mean_at(f, W / 2, H / 2, zen);
    /* Looking east (away from the sun, which culminates toward -Z), a little above the horizon. */
    scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2 + 100 * 0.05f, 0}, 12.0, true);
    frame(f, "noon_horizon");
    mean_at(f, W / 2, H / 2, hor);
    print_message("zenith %.0f %.0f %.0f, horizon %.0f %.0f %.0f\n", zen[0], zen[1], zen[2], hor[0],
                  hor[1], hor[2]);
    assert_true(zen[2] > zen[0] + 10.0); /* a blue sky */
    assert_true(blueness(zen) > blueness(hor) + 0.02);
    assert_true(hor[0] + hor[1] + hor[2] > zen[0] + zen[1] + zen[2]);
}

/* At sunset the horizon toward the sun is redder than toward the sun at noon. */
static void test_sunset_horizon_redder(void **state) {
    fixture *f = *state;
    double c[2][3];
    const double hours[2] = {12.0, 17.6};
    for (int i = 0; i < 2; i++) {
        float d[3];
        rill_render_sun_direction_for_hour(hours[i], d);
        float h = sqrtf(d[0] * d[0] + d[2] * d[2]);
        /* The sun's azimuth, 2 degrees above the horizon and 12 degrees to its side. */
        float ax = -d[0] / h, az = -d[2] / h, s = sinf(0.21f), co = cosf(0.21f);
        float at[3] = {100 * (ax * co - az * s), 2 + 100 * 0.035f, 100 * (az * co + ax * s)};
        scene(f, (float[3]){0, 2, 0}, at, hours[i], true);
        frame(f, i ? "sunset_horizon" : "noon_toward_sun");
        mean_at(f, W / 2, H / 2, c[i]);
    }
    double rb_noon = c[0][0] / (c[0][2] + 1.0), rb_sunset = c[1][0] / (c[1][2] + 1.0);
    print_message("R/B toward the sun: noon %.2f, sunset %.2f\n", rb_noon, rb_sunset);
    assert_true(rb_sunset > rb_noon * 1.5);
}

/* A face turned from the sun gets the atmosphere's light through the image-based light: bluish
 * and brighter than black (in Color mode, with no ambient colour, the same face is black). */
static void test_shaded_face_lit_by_atmosphere(void **state) {
    fixture *f = *state;
    double c[2][3];
    for (int i = 0; i < 2; i++) {
        /* The sun at noon shines toward +Z: the camera at +Z sees the cube's face turned away. */
        scene(f, (float[3]){0, 0.5f, 3.0f}, (float[3]){0, 0.5f, 0}, 12.0, i == 0);
        render_test_place(&f->inst, 1, f->cube, f->white, (float[3]){0, 0.5f, 0}, 1.0f, 0.0f);
        f->snap.instances = &f->inst;
        f->snap.instance_count = 1;
        for (int k = 0; k < 8; k++) { /* a changed sky re-bakes one step a frame */
            frame(f, NULL);
        }
        frame(f, i ? "shaded_face_color" : "shaded_face_atmosphere");
        golden_expect(i ? "sky_color_mode" : "sky_atmosphere_face", f->px, W, H);
        mean_at(f, W / 2, H / 2, c[i]);
    }
    print_message("shaded face: atmosphere %.0f %.0f %.0f, color mode %.0f %.0f %.0f\n", c[0][0],
                  c[0][1], c[0][2], c[1][0], c[1][1], c[1][2]);
    assert_true(c[0][0] + c[0][1] + c[0][2] > 30.0);
    assert_true(c[0][2] > c[0][0]);                 /* bluish: the sky's light */
    assert_true(c[1][0] + c[1][1] + c[1][2] < 6.0); /* no atmosphere, no ambient: black */
}

/* Aerial perspective: the same cube, the same size on screen, is closer to the sky's colour
 * behind it at 20 km than at 200 m. */
static void test_aerial_perspective_far_toward_sky(void **state) {
    fixture *f = *state;
    double sky[3], c[2][3];
    const float dist[2] = {200.0f, 20000.0f};
    /* Looking east, level: the sky behind is the horizon's. */
    scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2 + 100 * 0.03f, 0}, 12.0, true);
    frame(f, "aerial_sky");
    mean_at(f, W / 2, H / 2, sky);
    for (int i = 0; i < 2; i++) {
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2 + 100 * 0.03f, 0}, 12.0, true);
        float d = dist[i];
        render_test_place(&f->inst, 1, f->cube, f->white, (float[3]){d, 2 + d * 0.03f, 0}, d * 0.1f,
                          0.0f);
        f->snap.instances = &f->inst;
        f->snap.instance_count = 1;
        frame(f, i ? "aerial_far" : "aerial_near");
        mean_at(f, W / 2, H / 2, c[i]);
    }
    double gap[2];
    for (int i = 0; i < 2; i++) {
        gap[i] = fabs(c[i][0] - sky[0]) + fabs(c[i][1] - sky[1]) + fabs(c[i][2] - sky[2]);
    }
    print_message("sky %.0f %.0f %.0f; near %.0f %.0f %.0f (gap %.0f); far %.0f %.0f %.0f (gap "
                  "%.0f)\n",
                  sky[0], sky[1], sky[2], c[0][0], c[0][1], c[0][2], gap[0], c[1][0], c[1][1],
                  c[1][2], gap[1]);
    assert_true(gap[1] < gap[0] * 0.7);
}

/* Mean absolute difference (0..255 levels, RGB) between two W x H images, and the largest. */
static double image_diff(const uint8_t *a, const uint8_t *b, int *worst) {
    double sum = 0.0;
    *worst = 0;
    for (int i = 0; i < W * H * 4; i++) {
        if (i % 4 == 3) {
            continue;
        }
        int d = abs((int)a[i] - (int)b[i]);
        sum += d;
        *worst = d > *worst ? d : *worst;
    }
    return sum / (W * H * 3.0);
}

/* The sky marched per pixel (High's method) agrees with the sky view table's (Medium/Low) toward
 * the zenith at noon, the horizon at noon and the horizon toward the sun at sunset: the march's
 * step count and spacing are what this checks. Measured (mean / worst levels over the 3 views):
 * 32 steps 0.01-0.03 / 1, 16 steps 0.09-0.20 / 2, 8 steps 0.38-0.95 / 6 (fails), 4 steps 3.1 / 5
 * (fails). The two are not byte-equal (the march ran). */
static void test_marched_sky_matches_table(void **state) {
    fixture *f = *state;
    static uint8_t table[W * H * 4];
    const double hours[3] = {12.0, 12.0, 17.6};
    float sun[3];
    rill_render_sun_direction_for_hour(17.6, sun);
    float h = sqrtf(sun[0] * sun[0] + sun[2] * sun[2]);
    const float at[3][3] = {{0.001f, 100, 0},
                            {100, 2 + 100 * 0.05f, 0},
                            {-100 * sun[0] / h, 2 + 100 * 0.035f, -100 * sun[2] / h}};
    bool differs = false;
    for (int v = 0; v < 3; v++) {
        for (int m = 0; m < 2; m++) {
            scene(f, (float[3]){0, 2, 0}, at[v], hours[v], true);
            f->atmo = rill_render_atmosphere_defaults();
            f->atmo.rendering_method = m ? RILL_ATMOSPHERE_RAYMARCHED : RILL_ATMOSPHERE_LOOKUP;
            f->rs = (rill_render_routed_settings){"Atmosphere", &f->atmo, sizeof(f->atmo), 0};
            f->snap.view.settings = &f->rs;
            f->snap.view.settings_count = 1;
            frame(f, m ? "marched" : "table");
            if (!m) {
                memcpy(table, f->px, sizeof(table));
            }
        }
        int worst = 0;
        double mean = image_diff(table, f->px, &worst);
        print_message("view %d: marched vs table mean %.2f levels, worst %d\n", v, mean, worst);
        differs = differs || worst > 0;
        assert_true(mean < 0.5);
        assert_true(worst < 4);
    }
    assert_true(differs);
}

/* Whether the last frame's graph ran a pass named `name` (a dump line "NN name"). */
static bool has_pass(fixture *f, const char *name) {
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    char line[64];
    snprintf(line, sizeof(line), " %s\n", name);
    bool has = sb.data && strstr(sb.data, line) != NULL;
    if (getenv("RILL_SKY_DUMP")) {
        print_message("%s", sb.data ? sb.data : "");
    }
    rill_strbuf_free(&sb);
    return has;
}

/* Whether the last frame's graph mentions "sky" anywhere (a pass or an image). */
static bool mentions_sky(fixture *f) {
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    bool has = sb.data && strstr(sb.data, "sky") != NULL;
    rill_strbuf_free(&sb);
    return has;
}

/* Color mode (a sun not marked, no Atmosphere) adds no sky pass; Atmosphere adds the sky view,
 * aerial perspective and sky passes every frame and the transmittance and multiple scattering
 * tables only when the settings change. */
static void test_passes_by_mode(void **state) {
    fixture *f = *state;
    rill_error err = {0};
    scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2, 0}, 12.0, false);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_false(mentions_sky(f));
    f->snap.sun.marked = true;
    f->atmo = rill_render_atmosphere_defaults();
    f->rs = (rill_render_routed_settings){"Atmosphere", &f->atmo, sizeof(f->atmo), 0};
    f->snap.view.settings = &f->rs;
    f->snap.view.settings_count = 1;
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_true(has_pass(f, "sky.transmittance"));
    assert_true(has_pass(f, "sky.multiscatter"));
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_false(has_pass(f, "sky.transmittance"));
    assert_true(has_pass(f, "sky.view"));
    assert_true(has_pass(f, "sky.aerial"));
    assert_true(has_pass(f, "sky"));
    f->atmo.mie_scattering = 40.0f; /* hazier: the tables again */
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_true(has_pass(f, "sky.transmittance"));
    /* The same Atmosphere source with sky mode Color (a WorldEnvironment saying so): no sky. */
    rill_world_environment env = rill_world_environment_defaults();
    env.sky_mode = RILL_SKY_COLOR;
    rill_render_routed_settings both[2] = {f->rs, {"WorldEnvironment", &env, sizeof(env), 0}};
    f->snap.view.settings = both;
    f->snap.view.settings_count = 2;
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_false(mentions_sky(f));
}

/* Hostile Atmosphere settings (NaN, zero radii, the top below the ground, infinities) are clamped
 * with a warning: the frame renders, validation stays clean and the sky is not black. */
static void test_hostile_settings_clamp(void **state) {
    fixture *f = *state;
    const float nan = NAN, inf = INFINITY;
    for (int k = 0; k < 4; k++) {
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 20, 0}, 12.0, true);
        rill_render_atmosphere a = rill_render_atmosphere_defaults();
        if (k == 0) {
            a.ground_radius_km = nan;
            a.rayleigh_scattering[1] = nan;
            a.mie_g = nan;
        } else if (k == 1) {
            a.ground_radius_km = 0.0f;
            a.top_radius_km = 0.0f;
            a.rayleigh_scale_height_km = 0.0f;
            a.ozone_half_width_km = 0.0f;
        } else if (k == 2) {
            a.top_radius_km = a.ground_radius_km - 100.0f;
            a.sun_angular_diameter_deg = -3.0f;
        } else {
            a.mie_scattering = inf;
            a.rayleigh_scattering[0] = -inf;
            a.ground_albedo[2] = 1e30f;
            f->snap.sun.illuminance = inf;
        }
        f->atmo = a;
        f->rs = (rill_render_routed_settings){"Atmosphere", &f->atmo, sizeof(f->atmo), 0};
        f->snap.view.settings = &f->rs;
        f->snap.view.settings_count = 1;
        frame(f, NULL);
        double c[3];
        mean_at(f, W / 2, H / 4, c);
        print_message("hostile case %d: sky %.0f %.0f %.0f\n", k, c[0], c[1], c[2]);
        if (k != 1) { /* a 1 km planet under a 1 km shell of air has next to no sky */
            assert_true(c[0] + c[1] + c[2] > 3.0);
        }
    }
}

/* Writes a w x h PNG into dir/name: the top half red, the bottom half blue. */
static void write_sky_png(const char *dir, const char *name, uint32_t w, uint32_t h) {
    uint8_t *px = rill_calloc((size_t)w * h, 3);
    assert_non_null(px);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            px[((size_t)y * w + x) * 3 + (y < h / 2 ? 0 : 2)] = 255;
        }
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    rill_error err = {0};
    assert_int_equal(rill_image_write_png(path, px, w, h, 3, &err), RILL_OK);
    rill_free(px);
}

/* Writes dir/name: the head of a PNG claiming 16384 x 16384 RGB pixels and no pixel data (what a
 * reader sees before it decodes; stb does not check chunk CRCs). */
static void write_giant_png_header(const char *dir, const char *name) {
    static const uint8_t head[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0,
                                   13,   'I', 'H', 'D', 'R',  0,    0,    0x40, 0, 0, 0,
                                   0x40, 0,   8,   2,   0,    0,    0,    0,    0, 0, 0};
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(head, 1, sizeof(head), fp), sizeof(head));
    fclose(fp);
}

/* A Skybox image (red above the horizon, blue below) is the sky: red looking up, blue looking
 * down, and it lights a face turned from the sun through the image-based light (red and blue,
 * little green). A missing or oversized image renders the clear colour. */
static void test_skybox_image(void **state) {
    fixture *f = *state;
    char dir[] = "/tmp/rill_skyboxXXXXXX";
    assert_non_null(mkdtemp(dir));
    write_sky_png(dir, "sky.png", 16, 8);
    write_sky_png(dir, "huge.png", 8200, 2);
    write_sky_png(dir, "tiny.png", 1, 1);
    write_giant_png_header(dir, "giant.png");
    rill_error err = {0};
    rill_vfs *vfs = rill_vfs_create(&(rill_vfs_desc){0}, &err);
    assert_non_null(vfs);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_renderer_set_vfs(f->r, vfs);
    rill_render_skybox box = rill_render_skybox_query_defaults();
    box.image = "sky.png";
    rill_render_routed_settings rs = {"Skybox", &box, sizeof(box), 0};
    double up[3], down[3], face[3];
    scene(f, (float[3]){0, 2, 0}, (float[3]){0.001f, 100, 0}, 12.0, false);
    f->snap.view.settings = &rs;
    f->snap.view.settings_count = 1;
    frame(f, "skybox_up");
    golden_expect("sky_skybox", f->px, W, H);
    mean_at(f, W / 2, H / 2, up);
    assert_true(has_pass(f, "skybox"));
    scene(f, (float[3]){0, 2, 0}, (float[3]){0.001f, -100, 0}, 12.0, false);
    f->snap.view.settings = &rs;
    f->snap.view.settings_count = 1;
    frame(f, "skybox_down");
    mean_at(f, W / 2, H / 2, down);
    scene(f, (float[3]){0, 0.5f, 3.0f}, (float[3]){0, 0.5f, 0}, 12.0, false);
    f->snap.view.settings = &rs;
    f->snap.view.settings_count = 1;
    render_test_place(&f->inst, 1, f->cube, f->white, (float[3]){0, 0.5f, 0}, 1.0f, 0.0f);
    f->snap.instances = &f->inst;
    f->snap.instance_count = 1;
    for (int k = 0; k < 8; k++) { /* the image's bake, one step a frame */
        frame(f, NULL);
    }
    frame(f, "skybox_face");
    mean_at(f, W / 2, H / 2, face);
    print_message("skybox: up %.0f %.0f %.0f, down %.0f %.0f %.0f, shaded face %.0f %.0f %.0f\n",
                  up[0], up[1], up[2], down[0], down[1], down[2], face[0], face[1], face[2]);
    assert_true(up[0] > 150.0 && up[2] < 40.0);
    assert_true(down[2] > 150.0 && down[0] < 40.0);
    assert_true(face[0] > face[1] + 20.0 && face[2] > face[1] + 20.0);
    /* Missing, oversized (8200 wide; 16384 x 16384, refused from its header before any pixel is
     * allocated) and 1 x 1 images: a warning, the clear colour, no skybox pass. */
    const char *bad[4] = {"missing.png", "huge.png", "tiny.png", "giant.png"};
    for (int i = 0; i < 4; i++) {
        box.image = bad[i];
        scene(f, (float[3]){0, 2, 0}, (float[3]){0.001f, 100, 0}, 12.0, false);
        f->snap.view.settings = &rs;
        f->snap.view.settings_count = 1;
        frame(f, NULL);
        assert_false(has_pass(f, "skybox"));
        mean_at(f, W / 2, H / 2, up);
        assert_true(up[0] < 40.0); /* not the red sky */
    }
    rill_renderer_set_vfs(f->r, NULL);
    rill_vfs_destroy(vfs);
    char path[600];
    snprintf(path, sizeof(path), "%s/sky.png", dir);
    remove(path);
    snprintf(path, sizeof(path), "%s/huge.png", dir);
    remove(path);
    snprintf(path, sizeof(path), "%s/tiny.png", dir);
    remove(path);
    snprintf(path, sizeof(path), "%s/giant.png", dir);
    remove(path);
    remove(dir);
}

/* Pixels of the frame brighter than `level` (0..765, the sum of R, G and B). */
static int bright_pixels(const fixture *f, int level) {
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = f->px + (size_t)i * 4;
        n += p[0] + p[1] + p[2] > level;
    }
    return n;
}

/* NightStars: at midnight points of light show in the black sky; without the component, or at
 * noon (the fade), none. */
static void test_night_stars(void **state) {
    fixture *f = *state;
    rill_render_night_stars ns = rill_render_night_stars_query_defaults();
    ns.intensity = 4.0f;
    rill_render_routed_settings rs = {"NightStars", &ns, sizeof(ns), 0};
    int n[3];
    const double hours[3] = {0.0, 0.0, 12.0};
    for (int i = 0; i < 3; i++) {
        scene(f, (float[3]){0, 2, 0}, (float[3]){30, 60, 40}, hours[i], true);
        f->snap.view.settings = &rs;
        f->snap.view.settings_count = i == 1 ? 0 : 1;
        frame(f, i == 0 ? "night_stars" : NULL);
        if (i == 0) {
            golden_expect("sky_night_stars", f->px, W, H);
        }
        n[i] = bright_pixels(f, 60);
        if (i == 2) { /* the noon sky is bright everywhere: count pixels far above its mean */
            double c[3];
            mean_at(f, W / 2, H / 2, c);
            n[i] = bright_pixels(f, (int)(c[0] + c[1] + c[2]) + 60);
        }
    }
    print_message("star pixels: night %d, night without NightStars %d, noon %d\n", n[0], n[1],
                  n[2]);
    assert_true(n[0] >= 3);
    assert_int_equal(n[1], 0);
    assert_int_equal(n[2], 0);
}

/* Sky pixels (of the whole frame) that differ from `base` by more than 6 in a channel. */
static int changed_pixels(const fixture *f, const uint8_t *base) {
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        for (int k = 0; k < 3; k++) {
            if (abs((int)f->px[i * 4 + k] - (int)base[i * 4 + k]) > 6) {
                n++;
                break;
            }
        }
    }
    return n;
}

/* Clouds (Medium tier) cover the sky where coverage says: coverage 0 changes no byte of it, 0.5
 * part of it, 1 nearly all of it (greyer, less blue); the Low tier has none and no pass. A
 * face turned from the sun takes the overcast sky's grey light instead of the clear sky's blue
 * (the image-based light bakes the clouds). Hostile values render as their clamped values. */
static void test_clouds(void **state) {
    fixture *f = *state;
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_MEDIUM);
    static uint8_t clear[W * H * 4];
    rill_render_clouds cl = rill_render_clouds_query_defaults();
    cl.wind[0] = 0.0f; /* still: frames compare */
    rill_render_routed_settings rs = {"Clouds", &cl, sizeof(cl), 0};
    const float eye[3] = {0, 2, 0}, up[3] = {100, 45, 30};
    scene(f, eye, up, 10.0, true);
    frame(f, "clouds_none");
    memcpy(clear, f->px, sizeof(clear));
    double clear_c[3], over_c[3];
    mean_at(f, W / 2, H / 2, clear_c);
    int changed[3];
    const float coverage[3] = {0.0f, 0.5f, 1.0f};
    for (int i = 0; i < 3; i++) {
        scene(f, eye, up, 10.0, true);
        cl.coverage = coverage[i];
        f->snap.view.settings = &rs;
        f->snap.view.settings_count = 1;
        frame(f, i == 0 ? "clouds_0" : i == 1 ? "clouds_half" : "clouds_overcast");
        if (i == 1) {
            golden_expect("sky_clouds_half", f->px, W, H);
        }
        changed[i] = changed_pixels(f, clear);
        if (i == 0) {
            assert_memory_equal(f->px, clear, sizeof(clear));
        }
        assert_true(has_pass(f, "clouds"));
    }
    mean_at(f, W / 2, H / 2, over_c);
    print_message("clouds: changed sky pixels at coverage 0 / 0.5 / 1: %d %d %d of %d; zenith "
                  "clear %.0f %.0f %.0f, overcast %.0f %.0f %.0f\n",
                  changed[0], changed[1], changed[2], W * H, clear_c[0], clear_c[1], clear_c[2],
                  over_c[0], over_c[1], over_c[2]);
    assert_int_equal(changed[0], 0);
    assert_true(changed[1] > W * H / 10 && changed[1] < W * H * 9 / 10);
    assert_true(changed[2] > W * H * 9 / 10);
    assert_true(blueness(over_c) < blueness(clear_c) - 0.05);

    /* The Low tier: no clouds, no pass. */
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_LOW);
    frame(f, NULL);
    assert_false(has_pass(f, "clouds"));
    assert_memory_equal(f->px, clear, sizeof(clear));
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_MEDIUM);

    /* The image-based light: a face turned from the sun, clear sky against overcast. */
    double face[2][3];
    for (int i = 0; i < 2; i++) {
        scene(f, (float[3]){0, 0.5f, 3.0f}, (float[3]){0, 0.5f, 0}, 12.0, true);
        render_test_place(&f->inst, 1, f->cube, f->white, (float[3]){0, 0.5f, 0}, 1.0f, 0.0f);
        f->snap.instances = &f->inst;
        f->snap.instance_count = 1;
        cl.coverage = 1.0f;
        f->snap.view.settings = &rs;
        f->snap.view.settings_count = (uint32_t)i;
        for (int k = 0; k < 8; k++) { /* a changed sky re-bakes one step a frame */
            frame(f, NULL);
        }
        frame(f, i ? "clouds_face_overcast" : "clouds_face_clear");
        mean_at(f, W / 2, H / 2, face[i]);
    }
    print_message("shaded face: clear sky %.0f %.0f %.0f, overcast %.0f %.0f %.0f\n", face[0][0],
                  face[0][1], face[0][2], face[1][0], face[1][1], face[1][2]);
    assert_true(blueness(face[1]) < blueness(face[0]) - 0.02);

    /* Hostile values: NaN coverage is 0.5, an infinite density 0.03, a huge altitude 50 km, a NaN
     * wind none. */
    static uint8_t want[W * H * 4];
    for (int i = 0; i < 2; i++) {
        scene(f, eye, up, 10.0, true);
        cl = rill_render_clouds_query_defaults();
        cl.wind[0] = 0.0f;
        cl.altitude = 50000.0f;
        if (i == 1) {
            cl.coverage = NAN;
            cl.density = INFINITY;
            cl.altitude = 1e12f;
            cl.wind[0] = NAN;
        }
        rs.source = 9;
        f->snap.view.settings = &rs;
        f->snap.view.settings_count = 1;
        frame(f, NULL);
        if (i == 0) {
            memcpy(want, f->px, sizeof(want));
        }
    }
    assert_memory_equal(f->px, want, sizeof(want));
}

/* The ground from 400 m up, looking 3 km ahead (the lower half of the frame is a white floor
 * lit by the noon sun) under clouds of `coverage`, the wind (wind_x, 0). */
static void cloud_floor_scene(fixture *f, rill_render_clouds *cl, rill_render_routed_settings *rs,
                              float coverage, float wind_x, double hours) {
    scene(f, (float[3]){0, 400, 0}, (float[3]){3000, 0, 0}, hours, true);
    f->snap.view.fov_y = 1.0f;
    render_test_place(&f->inst, 1, f->cube, f->white, (float[3]){0, -0.5f, 0}, 1.0f, 0.0f);
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){0, -0.5f, 0});
    glm_scale(m, (vec3){40000, 1, 40000});
    memcpy(f->inst.transform, m, sizeof(m));
    f->snap.instances = &f->inst;
    f->snap.instance_count = 1;
    *cl = rill_render_clouds_query_defaults();
    cl->coverage = coverage;
    cl->wind[0] = wind_x;
    *rs = (rill_render_routed_settings){"Clouds", cl, sizeof(*cl), 0};
    f->snap.view.settings = rs;
    f->snap.view.settings_count = 1;
}

/* Pixels of the floor (the frame's lower third) whose R+G+B is below `share` of base's. */
static int darker_floor_pixels(const fixture *f, const uint8_t *base, double share) {
    int n = 0;
    for (int i = W * H * 2 / 3; i < W * H; i++) {
        int a = f->px[i * 4] + f->px[i * 4 + 1] + f->px[i * 4 + 2];
        int b = base[i * 4] + base[i * 4 + 1] + base[i * 4 + 2];
        n += a < b * share;
    }
    return n;
}

/* Floor pixels (the frame's lower third) that differ from base by more than 6 in a channel. */
static int changed_floor_pixels(const fixture *f, const uint8_t *base) {
    int n = 0;
    for (int i = W * H * 2 / 3; i < W * H; i++) {
        for (int k = 0; k < 3; k++) {
            if (abs((int)f->px[i * 4 + k] - (int)base[i * 4 + k]) > 6) {
                n++;
                break;
            }
        }
    }
    return n;
}

/* Cloud shadows (Medium tier): under coverage 0.5 part of the sunlit floor falls in the clouds'
 * shadow (under 60 % of the clear sky's brightness) and under overcast nearly all of it; the
 * shadows drift with the wind (two frames half a second apart differ on the floor) and stand still
 * without it; the pass "clouds.shadow" runs while the sun is up, not at night, and not at Low. */
static void test_cloud_shadows(void **state) {
    fixture *f = *state;
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_MEDIUM);
    rill_render_clouds cl;
    rill_render_routed_settings rs;
    static uint8_t clear[W * H * 4], first[W * H * 4];
    const int floor_px = W * H - W * H * 2 / 3;
    int shaded[3];
    const float coverage[3] = {0.0f, 0.5f, 1.0f};
    for (int i = 0; i < 3; i++) {
        cloud_floor_scene(f, &cl, &rs, coverage[i], 0.0f, 12.0);
        for (int k = 0; k < 4; k++) { /* the image-based light re-bakes the cloudy sky */
            frame(f, NULL);
        }
        frame(f, i == 0 ? "cloud_shadow_0" : i == 1 ? "cloud_shadow_half" : "cloud_shadow_1");
        assert_true(has_pass(f, "clouds.shadow"));
        if (i == 0) {
            memcpy(clear, f->px, sizeof(clear));
        }
        shaded[i] = darker_floor_pixels(f, clear, 0.6);
    }
    print_message("cloud shadows: floor pixels under 60 %% of the clear sky's at coverage 0 / 0.5 "
                  "/ 1: %d %d %d of %d\n",
                  shaded[0], shaded[1], shaded[2], floor_px);
    assert_int_equal(shaded[0], 0);
    assert_true(shaded[1] > floor_px / 10 && shaded[1] < floor_px * 9 / 10);
    assert_true(shaded[2] > floor_px * 9 / 10);

    /* Wind: the shadows move between frames half a second apart; without wind they do not. */
    int moved[2];
    for (int i = 0; i < 2; i++) {
        cloud_floor_scene(f, &cl, &rs, 0.5f, i ? 300.0f : 0.0f, 12.0);
        for (int k = 0; k < 5; k++) { /* the image-based light re-bakes the changed sky */
            frame(f, NULL);
        }
        memcpy(first, f->px, sizeof(first));
        rill_error err = {0};
        for (int k = 0; k < 30; k++) {
            assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
        }
        frame(f, i ? "cloud_shadow_drift" : NULL);
        moved[i] = changed_floor_pixels(f, first);
    }
    print_message("cloud shadows: floor pixels changed in half a second, still air %d, wind "
                  "300 m/s %d\n",
                  moved[0], moved[1]);
    assert_int_equal(moved[0], 0);
    assert_true(moved[1] > 20);

    /* At night there is no sun to shade: no pass. At Low there are no clouds: no pass, and the
     * floor is the clear sky's. */
    cloud_floor_scene(f, &cl, &rs, 0.5f, 0.0f, 0.0);
    frame(f, NULL);
    assert_true(has_pass(f, "clouds"));
    assert_false(has_pass(f, "clouds.shadow"));
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_LOW);
    cloud_floor_scene(f, &cl, &rs, 1.0f, 0.0f, 12.0);
    frame(f, NULL);
    assert_false(has_pass(f, "clouds.shadow"));
    assert_int_equal(darker_floor_pixels(f, clear, 0.9), 0);
}

/* Tier switches at runtime with the whole world look routed (atmosphere, clouds, volumetric fog):
 * the frame renders at every step, the passes follow the tier (clouds and fog off at Low, on at
 * Medium and High; the sky's method a field, never a pass added or removed), and the renderer's
 * teardown sees no validation message. */
static void test_tier_switches(void **state) {
    fixture *f = *state;
    rill_render_clouds cl = rill_render_clouds_query_defaults();
    rill_render_volumetric_fog vf = rill_render_volumetric_fog_query_defaults();
    rill_render_routed_settings rs[2] = {{"Clouds", &cl, sizeof(cl), 0},
                                         {"VolumetricFog", &vf, sizeof(vf), 0}};
    static const rill_render_quality seq[5] = {RILL_RENDER_QUALITY_HIGH, RILL_RENDER_QUALITY_LOW,
                                               RILL_RENDER_QUALITY_MEDIUM, RILL_RENDER_QUALITY_HIGH,
                                               RILL_RENDER_QUALITY_LOW};
    for (int i = 0; i < 5; i++) {
        rill_renderer_set_quality(f->r, seq[i]);
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 30, 0}, 10.0, true);
        render_test_place(&f->inst, 1, f->cube, f->white, (float[3]){20, 1, 0}, 2.0f, 0.0f);
        f->snap.instances = &f->inst;
        f->snap.instance_count = 1;
        f->snap.view.settings = rs;
        f->snap.view.settings_count = 2;
        frame(f, NULL);
        bool low = seq[i] == RILL_RENDER_QUALITY_LOW;
        assert_true(has_pass(f, "sky"));
        assert_int_equal(has_pass(f, "clouds"), !low);
        assert_int_equal(has_pass(f, "clouds.shadow"), !low);
        assert_int_equal(has_pass(f, "vfog"), !low);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_noon_zenith_bluer_horizon_brighter, setup,
                                        render_test_teardown),
        cmocka_unit_test_setup_teardown(test_sunset_horizon_redder, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_shaded_face_lit_by_atmosphere, setup,
                                        render_test_teardown),
        cmocka_unit_test_setup_teardown(test_aerial_perspective_far_toward_sky, setup,
                                        render_test_teardown),
        cmocka_unit_test_setup_teardown(test_passes_by_mode, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_hostile_settings_clamp, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_skybox_image, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_night_stars, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_clouds, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_cloud_shadows, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_tier_switches, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_marched_sky_matches_table, setup,
                                        render_test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
