/* test_gltf_fidelity.c: glTF features seen in pixels, through the path a user's file takes
 * (.gltf text -> reader -> renderer model -> frame), on lavapipe with validation on. Each case
 * renders the square of fidelity_quad.h, seen head on, and checks what the feature must do to the
 * picture: vertex colours (three encodings) tint each corner and agree; an occlusion map read
 * through TEXCOORD_1 darkens the side UV set 1 puts its dark texel on (the other side with
 * TEXCOORD_0); KHR_texture_transform's offset shifts the texture by half its width and its
 * texCoord override picks UV set 1; unlit ignores the light; clear coat adds a highlight a rough
 * surface lacks, and its textures mask it (strength), blur it (roughness) or tilt it away (its
 * normal map) on the half their texel says; specular 0 and ior 1 take a smooth dielectric's
 * highlight away, and the specular texture's alpha does so on its half; a transmissive square
 * shows the red square behind it (sharp when smooth, spread when rough, darkened through an
 * absorbing volume), an opaque one hides it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fidelity_quad.h"
#include "golden.h"
#include "render_test.h"

#include <stdlib.h>

#include "rill/formats/gltf.h"

#define W 64
#define H 64

#include "fidelity_view.h" /* after W and H */

typedef struct fq_light {
    float sun;     /* illuminance of a sun shining straight at the square; 0 = none */
    float ambient; /* sky light */
} fq_light;

/* Reads the file o describes and renders its model, turned by yaw radians about +Y, into px
 * (W * H * 4). */
static void render_posed(rill_renderer *r, const fq_opts *o, fq_light light, float yaw,
                         uint8_t *px) {
    rill_render_model rm;
    rill_gltf_model *m = fq_load(r, o, "fidelity.gltf", &rm);
    rill_render_instance in = rm.instances[0];
    if (yaw != 0.0f) {
        glm_mat4_identity((vec4 *)in.transform);
        in.transform[0] = in.transform[10] = cosf(yaw);
        in.transform[2] = -sinf(yaw);
        in.transform[8] = sinf(yaw);
    }
    fq_render(r, &in, 1, light.sun, light.ambient, px);
    rill_render_model_destroy(r, &rm);
    rill_gltf_model_free(m);
}

static void render_file(rill_renderer *r, const fq_opts *o, fq_light light, uint8_t *px) {
    render_posed(r, o, light, 0.0f, px);
}

/* The mean luma of the square's left (side -1) or right (side 1) half, inset from the edges. */
static float half_luma(const uint8_t *px, int side) {
    float sum = 0.0f;
    int n = 0;
    for (float y = -0.8f; y <= 0.8f; y += 0.1f) {
        for (float x = 0.15f; x <= 0.85f; x += 0.1f) {
            sum += fq_luma(fq_at(px, x * (float)side, y));
            n++;
        }
    }
    return sum / (float)n;
}

static const char k_unlit_white[] = "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},"
                                    "\"extensions\":{\"KHR_materials_unlit\":{}}}";

/* COLOR_0 as float RGBA, normalized bytes (RGB) and normalized shorts: each corner shows its
 * colour, and the encodings draw the same picture. */
static void test_vertex_colors(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t px[3][W * H * 4], plain[W * H * 4];
    const fq_colors kinds[3] = {FQ_FLOAT_VEC4, FQ_UBYTE_VEC3, FQ_USHORT_VEC4};
    for (int k = 0; k < 3; k++) {
        render_file(r, &(fq_opts){.colors = kinds[k], .material = k_unlit_white}, (fq_light){0, 1},
                    px[k]);
    }
    render_file(r, &(fq_opts){.material = k_unlit_white}, (fq_light){0, 1}, plain);
    const uint8_t *bl = fq_at(px[0], -0.85f, -0.85f), *br = fq_at(px[0], 0.85f, -0.85f);
    const uint8_t *tr = fq_at(px[0], 0.85f, 0.85f), *tl = fq_at(px[0], -0.85f, 0.85f);
    print_message("corners: bl %u,%u,%u br %u,%u,%u tr %u,%u,%u tl %u,%u,%u\n", bl[0], bl[1], bl[2],
                  br[0], br[1], br[2], tr[0], tr[1], tr[2], tl[0], tl[1], tl[2]);
    assert_true(bl[0] > bl[1] + 60 && bl[0] > bl[2] + 60);  /* red */
    assert_true(br[1] > br[0] + 60 && br[1] > br[2] + 60);  /* green */
    assert_true(tr[2] > tr[0] + 60 && tr[2] > tr[1] + 60);  /* blue */
    assert_true(tl[0] > 150 && tl[1] > 150 && tl[2] > 150); /* white */
    /* Without COLOR_0 the square is white all over. */
    const uint8_t *pb = fq_at(plain, -0.85f, -0.85f);
    assert_true(pb[0] > 150 && pb[1] > 150 && pb[2] > 150);
    for (int k = 1; k < 3; k++) {
        uint32_t off = 0;
        for (size_t i = 0; i < (size_t)W * H * 4; i++) {
            off += abs((int)px[k][i] - (int)px[0][i]) > 2;
        }
        print_message("encoding %d: %u channel values off the float colours\n", k, off);
        assert_true(off <= W * H / 100);
    }
    render_test_destroy_clean(r, false);
}

/* An occlusion map (dark left texel, white right) sampled through texCoord 1, whose UVs are the
 * mirror of UV set 0: the right side is lit, the left side occluded; with texCoord 0 the other
 * way round. The KHR_texture_transform texCoord override picks the set the same way. */
static void test_texcoord1_occlusion(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t uv0[W * H * 4], uv1[W * H * 4], over[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"metallicFactor\":0,\"roughnessFactor\":1},"
                      "\"occlusionTexture\":{\"index\":0,\"texCoord\":%d%s}}";
    char mat[512];
    fq_opts o = {.texels = {{0, 0, 0, 255}, {255, 255, 255, 255}}, .material = mat};
    snprintf(mat, sizeof(mat), fmt, 0, "");
    render_file(r, &o, (fq_light){0, 1}, uv0);
    snprintf(mat, sizeof(mat), fmt, 1, "");
    render_file(r, &o, (fq_light){0, 1}, uv1);
    snprintf(mat, sizeof(mat), fmt, 0,
             ",\"extensions\":{\"KHR_texture_transform\":{\"texCoord\":1}}");
    render_file(r, &o, (fq_light){0, 1}, over);
    float l0 = half_luma(uv0, -1), r0 = half_luma(uv0, 1);
    float l1 = half_luma(uv1, -1), r1 = half_luma(uv1, 1);
    float lo = half_luma(over, -1), ro = half_luma(over, 1);
    print_message("texCoord 0: left %.1f right %.1f; texCoord 1: left %.1f right %.1f; "
                  "override: left %.1f right %.1f\n",
                  (double)l0, (double)r0, (double)l1, (double)r1, (double)lo, (double)ro);
    assert_true(r0 > 20.0f && r0 > l0 * 2.0f);
    assert_true(r1 < l1 * 0.5f && l1 > 20.0f);
    assert_true(fabsf(l1 - r0) < 3.0f && fabsf(r1 - l0) < 3.0f);
    assert_true(fabsf(lo - l1) < 1.0f && fabsf(ro - r1) < 1.0f);
    render_test_destroy_clean(r, false);
}

/* KHR_texture_transform offset [0.5, 0] on a red | green base colour texture (nearest, repeat):
 * the left half shows green and the right half red, the reverse of the untransformed texture. */
static void test_texture_transform_offset(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t plain[W * H * 4], moved[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0%s}},"
                      "\"extensions\":{\"KHR_materials_unlit\":{}}}";
    char mat[512];
    fq_opts o = {.texels = {{255, 0, 0, 255}, {0, 255, 0, 255}}, .material = mat};
    snprintf(mat, sizeof(mat), fmt, "");
    render_file(r, &o, (fq_light){0, 1}, plain);
    snprintf(mat, sizeof(mat), fmt,
             ",\"extensions\":{\"KHR_texture_transform\":{\"offset\":[0.5,0]}}");
    render_file(r, &o, (fq_light){0, 1}, moved);
    const uint8_t *pl = fq_at(plain, -0.5f, 0.0f), *pr = fq_at(plain, 0.5f, 0.0f);
    const uint8_t *ml = fq_at(moved, -0.5f, 0.0f), *mr = fq_at(moved, 0.5f, 0.0f);
    print_message("plain: left %u,%u right %u,%u; offset: left %u,%u right %u,%u (r,g)\n", pl[0],
                  pl[1], pr[0], pr[1], ml[0], ml[1], mr[0], mr[1]);
    assert_true(pl[0] > pl[1] + 100 && pr[1] > pr[0] + 100);
    assert_true(ml[1] > ml[0] + 100 && mr[0] > mr[1] + 100);
    render_test_destroy_clean(r, false);
}

/* KHR_materials_unlit: the same picture with and without light; a lit material differs. */
static void test_unlit(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t dark[W * H * 4], bright[W * H * 4], lit[W * H * 4];
    const char *unlit = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.2,0.6,0.9,1]},"
                        "\"extensions\":{\"KHR_materials_unlit\":{}}}";
    render_file(r, &(fq_opts){.material = unlit}, (fq_light){0, 0.1f}, dark);
    render_file(r, &(fq_opts){.material = unlit}, (fq_light){6, 1}, bright);
    render_file(r,
                &(fq_opts){.material = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                                       "[0.2,0.6,0.9,1],\"metallicFactor\":0}}"},
                (fq_light){6, 1}, lit);
    const uint8_t *d = fq_at(dark, 0, 0), *b = fq_at(bright, 0, 0), *l = fq_at(lit, 0, 0);
    print_message("unlit %u,%u,%u in the dark, %u,%u,%u in the sun; lit %u,%u,%u\n", d[0], d[1],
                  d[2], b[0], b[1], b[2], l[0], l[1], l[2]);
    for (int c = 0; c < 3; c++) {
        assert_true(abs((int)d[c] - (int)b[c]) <= 1);
    }
    assert_true(b[2] > b[1] && b[1] > b[0]);
    assert_true(abs((int)l[1] - (int)b[1]) > 10);
    render_test_destroy_clean(r, false);
}

/* The brightest pixel's luma over the middle of the square. */
static float peak(const uint8_t *px) {
    float best = 0.0f;
    for (float y = -0.3f; y <= 0.3f; y += 0.05f) {
        for (float x = -0.3f; x <= 0.3f; x += 0.05f) {
            best = fmaxf(best, fq_luma(fq_at(px, x, y)));
        }
    }
    return best;
}

/* KHR_materials_clearcoat on a rough surface adds the coat's sharp highlight where the sun
 * reflects into the camera (the middle of the square). */
static void test_clearcoat(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t bare[W * H * 4], coated[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.1,0.1,0.1,1],"
                      "\"metallicFactor\":0,\"roughnessFactor\":1}%s}";
    char mat[512];
    snprintf(mat, sizeof(mat), fmt, "");
    render_file(r, &(fq_opts){.material = mat}, (fq_light){2, 0.2f}, bare);
    snprintf(mat, sizeof(mat), fmt,
             ",\"extensions\":{\"KHR_materials_clearcoat\":{\"clearcoatFactor\":1,"
             "\"clearcoatRoughnessFactor\":0.3}}");
    render_file(r, &(fq_opts){.material = mat}, (fq_light){2, 0.2f}, coated);
    float pb = peak(bare), pc = peak(coated);
    print_message("peak luma: bare %.1f, coated %.1f\n", (double)pb, (double)pc);
    assert_true(pc > pb + 40.0f);
    render_test_destroy_clean(r, false);
}

/* The mean luma of the square's band |x| in [0.05, 0.35], |y| <= 0.3 on one side (-1 left, +1
 * right): where the sun's reflection falls on either side of the middle. */
static float near_luma(const uint8_t *px, float side) {
    float sum = 0.0f;
    int n = 0;
    for (float y = -0.3f; y <= 0.3f; y += 0.05f) {
        for (float x = 0.05f; x <= 0.35f; x += 0.05f) {
            sum += fq_luma(fq_at(px, side * x, y));
            n++;
        }
    }
    return sum / (float)n;
}

/* KHR_materials_clearcoat's textures, through the 2 x 1 image (left texel, right texel): the
 * strength texture (red 0 | 255) leaves the left half bare and the right coated; the roughness
 * texture (green 255 | 0 over a roughness factor 1) blurs the left half's highlight away; the
 * coat's normal map (flat | tilted) keeps the highlight on the left and turns it away on the
 * right. The masked picture is the golden gltf_clearcoat_texture. */
static void test_clearcoat_textures(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t plain[W * H * 4], masked[W * H * 4], rough[W * H * 4], tilted[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.1,0.1,0.1,1],"
                      "\"metallicFactor\":0,\"roughnessFactor\":1},"
                      "\"extensions\":{\"KHR_materials_clearcoat\":{\"clearcoatFactor\":1,"
                      "\"clearcoatRoughnessFactor\":%s%s}}}";
    char mat[512];
    fq_light sun = {2, 0.2f};
    snprintf(mat, sizeof(mat), fmt, "0.3", "");
    render_file(r, &(fq_opts){.material = mat}, sun, plain);
    snprintf(mat, sizeof(mat), fmt, "0.3", ",\"clearcoatTexture\":{\"index\":0}");
    render_file(r, &(fq_opts){.material = mat, .texels = {{0, 0, 0, 255}, {255, 255, 255, 255}}},
                sun, masked);
    snprintf(mat, sizeof(mat), fmt, "1", ",\"clearcoatRoughnessTexture\":{\"index\":0}");
    render_file(r, &(fq_opts){.material = mat, .texels = {{0, 255, 0, 255}, {0, 77, 0, 255}}}, sun,
                rough);
    snprintf(mat, sizeof(mat), fmt, "0.3", ",\"clearcoatNormalTexture\":{\"index\":0}");
    render_file(r,
                &(fq_opts){.material = mat, .texels = {{128, 128, 255, 255}, {250, 128, 140, 255}}},
                sun, tilted);
    float pl = near_luma(plain, -1), pr = near_luma(plain, 1);
    float ml = near_luma(masked, -1), mr = near_luma(masked, 1);
    float rl = near_luma(rough, -1), rr = near_luma(rough, 1);
    float tl = near_luma(tilted, -1), tr = near_luma(tilted, 1);
    print_message("coat highlight (left, right): plain %.1f %.1f, strength map %.1f %.1f, "
                  "roughness map %.1f %.1f, normal map %.1f %.1f\n",
                  (double)pl, (double)pr, (double)ml, (double)mr, (double)rl, (double)rr,
                  (double)tl, (double)tr);
    assert_true(fabsf(pl - pr) < 2.0f); /* no texture: symmetric */
    assert_true(fabsf(mr - pr) < 2.0f); /* white texel: the coat as without a texture */
    assert_true(ml < pl - 20.0f);       /* black texel: the second highlight is gone */
    assert_true(rr > rl + 15.0f);       /* roughness 0.3 (77/255) sharp, 1 blurred */
    assert_true(fabsf(tl - pl) < 6.0f); /* flat texel (128 is not exactly 0): as without a map */
    assert_true(tr < pr - 20.0f);       /* tilted: the reflection leaves the camera */
    golden_expect("gltf_clearcoat_texture", masked, W, H);
    render_test_destroy_clean(r, false);
}

/* KHR_materials_specular's textures: specularTexture's alpha (0 | 255) takes a smooth
 * dielectric's highlight away on the left half only; specularColorTexture's colour (red | white
 * texels, sRGB) tints the left half's highlight red. */
static void test_specular_textures(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t plain[W * H * 4], masked[W * H * 4], tinted[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.02,0.02,0.02,1],"
                      "\"metallicFactor\":0,\"roughnessFactor\":0.4},"
                      "\"extensions\":{\"KHR_materials_specular\":{\"specularFactor\":1%s}}}";
    char mat[512];
    fq_light sun = {1, 0.05f};
    snprintf(mat, sizeof(mat), fmt, "");
    render_file(r, &(fq_opts){.material = mat}, sun, plain);
    snprintf(mat, sizeof(mat), fmt, ",\"specularTexture\":{\"index\":0}");
    render_file(r,
                &(fq_opts){.material = mat, .texels = {{255, 255, 255, 0}, {255, 255, 255, 255}}},
                sun, masked);
    snprintf(mat, sizeof(mat), fmt, ",\"specularColorTexture\":{\"index\":0}");
    render_file(r, &(fq_opts){.material = mat, .texels = {{255, 0, 0, 255}, {255, 255, 255, 255}}},
                sun, tinted);
    float pl = near_luma(plain, -1), pr = near_luma(plain, 1);
    float ml = near_luma(masked, -1), mr = near_luma(masked, 1);
    const uint8_t *tl = fq_at(tinted, -0.1f, 0.0f), *tr = fq_at(tinted, 0.1f, 0.0f);
    print_message("specular highlight (left, right): plain %.1f %.1f, strength map %.1f %.1f; "
                  "colour map left %u,%u,%u right %u,%u,%u\n",
                  (double)pl, (double)pr, (double)ml, (double)mr, tl[0], tl[1], tl[2], tr[0], tr[1],
                  tr[2]);
    assert_true(fabsf(mr - pr) < 2.0f);
    assert_true(ml < pl - 10.0f);
    assert_true(tl[0] > tl[1] + 10 && tl[0] > tl[2] + 10);
    assert_true(abs((int)tr[0] - (int)tr[1]) <= 3);
    render_test_destroy_clean(r, false);
}

/* The square of `front` with, 1.5 behind it, an unlit red square of 0.4 its size, in the sky
 * light only, into px. */
static void render_over_red(rill_renderer *r, const char *front, uint8_t *px) {
    fq_render_over(r, front, "[1,0,0,1]", "fidelity.gltf", px);
}

/* KHR_materials_transmission and _volume: a white square in front of a small red one. Opaque, it
 * hides the red; transmissive and smooth, the red shows through sharp in the middle and the
 * black background around it; rough, the red spreads past its edge and dims in the middle;
 * through a volume absorbing red (attenuation colour 0.1, 1, 1 over 0.5 of 1 thickness) it
 * darkens. The smooth picture is the golden gltf_transmission. */
static void test_transmission(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t opaque[W * H * 4], sharp[W * H * 4], rough[W * H * 4], absorbed[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1,1],"
                      "\"metallicFactor\":0,\"roughnessFactor\":%s}%s}";
    char mat[512];
    snprintf(mat, sizeof(mat), fmt, "0", "");
    render_over_red(r, mat, opaque);
    snprintf(mat, sizeof(mat), fmt, "0",
             ",\"extensions\":{\"KHR_materials_transmission\":{\"transmissionFactor\":1}}");
    render_over_red(r, mat, sharp);
    snprintf(mat, sizeof(mat), fmt, "0.8",
             ",\"extensions\":{\"KHR_materials_transmission\":{\"transmissionFactor\":1}}");
    render_over_red(r, mat, rough);
    snprintf(mat, sizeof(mat), fmt, "0",
             ",\"extensions\":{\"KHR_materials_transmission\":{\"transmissionFactor\":1},"
             "\"KHR_materials_volume\":{\"thicknessFactor\":1,\"attenuationDistance\":0.5,"
             "\"attenuationColor\":[0.1,1,1]}}");
    render_over_red(r, mat, absorbed);
    const uint8_t *oc = fq_at(opaque, 0, 0), *sc = fq_at(sharp, 0, 0),
                  *se = fq_at(sharp, 0.8f, 0.8f);
    const uint8_t *rc = fq_at(rough, 0, 0), *re = fq_at(rough, 0.4f, 0),
                  *sx = fq_at(sharp, 0.4f, 0);
    const uint8_t *ac = fq_at(absorbed, 0, 0);
    print_message("middle: opaque %u,%u,%u, transmissive %u,%u,%u, rough %u,%u,%u, absorbed "
                  "%u,%u,%u; corner %u,%u,%u; past the red's edge: sharp %u, rough %u (red)\n",
                  oc[0], oc[1], oc[2], sc[0], sc[1], sc[2], rc[0], rc[1], rc[2], ac[0], ac[1],
                  ac[2], se[0], se[1], se[2], sx[0], re[0]);
    assert_true(abs((int)oc[0] - (int)oc[1]) < 10);        /* opaque: no red */
    assert_true(sc[0] > 150 && sc[0] > sc[1] + 100);       /* the red shows through */
    assert_true(se[0] < 60);                               /* black around it */
    assert_true(rc[0] < sc[0] - 10 && rc[0] > rc[1] + 20); /* rough: dimmer, still red */
    assert_true(re[0] > sx[0] + 10);                       /* and spread past the edge */
    assert_true(ac[0] < sc[0] - 60);                       /* the volume absorbs red */
    golden_expect("gltf_transmission", sharp, W, H);
    render_test_destroy_clean(r, false);
}

/* KHR_materials_sheen on a dark rough square lit from the camera: facing the camera (the half
 * vector along the normal, where the Charlie lobe is nil) it changes almost nothing; turned 75
 * degrees (grazing for the eye and the light) it brightens the square a lot. A red sheen colour
 * texture makes that rim red. The grazing picture is the golden gltf_sheen. */
static void test_sheen(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t face0[W * H * 4], face1[W * H * 4], graze0[W * H * 4], graze1[W * H * 4],
        tinted[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.1,0.1,0.1,1],"
                      "\"metallicFactor\":0,\"roughnessFactor\":1}%s}";
    const char *sheen = ",\"extensions\":{\"KHR_materials_sheen\":{\"sheenColorFactor\":[1,1,1],"
                        "\"sheenRoughnessFactor\":0.5%s}}";
    char mat[512], ext[256];
    fq_light sun = {2, 0.1f};
    const float graze = 75.0f * 3.14159265f / 180.0f;
    snprintf(mat, sizeof(mat), fmt, "");
    render_posed(r, &(fq_opts){.material = mat}, sun, 0.0f, face0);
    render_posed(r, &(fq_opts){.material = mat}, sun, graze, graze0);
    snprintf(ext, sizeof(ext), sheen, "");
    snprintf(mat, sizeof(mat), fmt, ext);
    render_posed(r, &(fq_opts){.material = mat}, sun, 0.0f, face1);
    render_posed(r, &(fq_opts){.material = mat}, sun, graze, graze1);
    snprintf(ext, sizeof(ext), sheen, ",\"sheenColorTexture\":{\"index\":0}");
    snprintf(mat, sizeof(mat), fmt, ext);
    render_posed(r, &(fq_opts){.material = mat, .texels = {{255, 0, 0, 255}, {255, 0, 0, 255}}},
                 sun, graze, tinted);
    float f0 = fq_luma(fq_at(face0, 0, 0)), f1 = fq_luma(fq_at(face1, 0, 0));
    float g0 = fq_luma(fq_at(graze0, 0, 0)), g1 = fq_luma(fq_at(graze1, 0, 0));
    const uint8_t *t = fq_at(tinted, 0, 0);
    print_message("luma facing: %.1f -> %.1f with sheen; grazing: %.1f -> %.1f; red sheen "
                  "%u,%u,%u\n",
                  (double)f0, (double)f1, (double)g0, (double)g1, t[0], t[1], t[2]);
    assert_true(fabsf(f1 - f0) < 4.0f);
    assert_true(g1 > g0 + 25.0f);
    assert_true(t[0] > t[1] + 20 && t[0] > t[2] + 20);
    golden_expect("gltf_sheen", graze1, W, H);
    render_test_destroy_clean(r, false);
}

/* A smooth dark dielectric reflects the sun into the camera; KHR_materials_specular with factor 0
 * and KHR_materials_ior 1 (no reflectance at normal incidence) take that highlight away, and a
 * higher ior makes it brighter. */
static void test_specular_and_ior(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t base[W * H * 4], nospec[W * H * 4], ior1[W * H * 4], ior2[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.05,0.05,0.05,1],"
                      "\"metallicFactor\":0,\"roughnessFactor\":0.6}%s}";
    char mat[512];
    fq_light sun = {1, 0.1f};
    snprintf(mat, sizeof(mat), fmt, "");
    render_file(r, &(fq_opts){.material = mat}, sun, base);
    snprintf(mat, sizeof(mat), fmt,
             ",\"extensions\":{\"KHR_materials_specular\":{\"specularFactor\":0}}");
    render_file(r, &(fq_opts){.material = mat}, sun, nospec);
    snprintf(mat, sizeof(mat), fmt, ",\"extensions\":{\"KHR_materials_ior\":{\"ior\":1}}");
    render_file(r, &(fq_opts){.material = mat}, sun, ior1);
    snprintf(mat, sizeof(mat), fmt, ",\"extensions\":{\"KHR_materials_ior\":{\"ior\":2}}");
    render_file(r, &(fq_opts){.material = mat}, sun, ior2);
    float pb = peak(base), pn = peak(nospec), p1 = peak(ior1), p2 = peak(ior2);
    print_message("peak luma: default %.1f, specular 0 %.1f, ior 1 %.1f, ior 2 %.1f\n", (double)pb,
                  (double)pn, (double)p1, (double)p2);
    assert_true(pn < pb - 10.0f);
    assert_true(p1 < pb - 10.0f);
    assert_true(p2 > pb + 5.0f);
    render_test_destroy_clean(r, false);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vertex_colors),
        cmocka_unit_test(test_texcoord1_occlusion),
        cmocka_unit_test(test_texture_transform_offset),
        cmocka_unit_test(test_unlit),
        cmocka_unit_test(test_clearcoat),
        cmocka_unit_test(test_clearcoat_textures),
        cmocka_unit_test(test_specular_textures),
        cmocka_unit_test(test_transmission),
        cmocka_unit_test(test_sheen),
        cmocka_unit_test(test_specular_and_ior),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
