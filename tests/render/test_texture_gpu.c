/* test_texture_gpu.c: textures in their own formats on lavapipe with validation on.
 *   - every format rill_render_texture_create_data takes (RGBA8 sRGB and linear, RGBA16F, BC1 sRGB,
 *     BC4, BC5, BC7 sRGB and linear) at odd sizes (37 x 23, 211 x 211, 5 x 3) with whole mip
 *     chains: a quad drawn so each pixel lands on one texel centre of level 0 must reproduce the
 *     texture as the formats module decodes it (the reference image), within 3 levels per channel
 *     (BC endpoint interpolation and sRGB conversions may round differently);
 *   - mip selection on a non-power-of-two texture: a 211 x 211 chain whose levels are solid,
 *     distinct colours, drawn at 211, 105.5 and 52.75 pixels, samples levels 0, 1 and 2 (the
 *     BoxTextured question of docs/renderer.md, Textures).
 *   - texture streaming's swap: a "#low" tail replaced by the full chain and back under a live
 *     material (rill_render_texture_replace), GPU memory following the levels present;
 *   - samplers per axis (mirror / clamp / repeat on u and v separately) and KHR_texture_transform
 *     (scale, offset, rotation) on a 2 x 2 nearest-filtered texture;
 *   - uploads of 3x the frame's staging budget go in row bands over several frames, never drawn
 *     half-copied, ending in the unbudgeted picture byte for byte.
 * The 37 x 23 renders of all eight formats are also compared, as one 148 x 46 atlas, with the
 * committed golden golden/texture_formats_37x23.png (golden.h: 99.5 % of pixels within 3).
 * The quad is lit only by its emissive texture (no lights, no ambient, no tonemapping), so the
 * output is the sampled texel, sRGB-encoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "rill/formats/bc.h"
#include "rill/formats/rmip.h"
#include "rill/render.h"

#define TOLERANCE 3

typedef struct fixture {
    rill_renderer *r;
    rill_mesh plane;
    uint32_t w, h;
} fixture;

/* budget: rill_renderer_desc.upload_budget_bytes (0: the renderer's default, 32 MiB). */
static void make_renderer_budget(fixture *f, uint32_t w, uint32_t h, uint64_t budget) {
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = w, d.height = h, d.validation = 1, d.quality = RILL_RENDER_QUALITY_LOW;
    d.upload_budget_bytes = budget;
    rill_error err = {0};
    if (!(f->r = rill_renderer_create(&d, &err))) {
        fail_msg("no Vulkan renderer (install mesa-vulkan-drivers for lavapipe): %s", err.msg);
    }
    f->plane = rill_render_mesh_plane(f->r, &err);
    assert_true(f->plane.id);
    f->w = w, f->h = h;
}

static void make_renderer(fixture *f, uint32_t w, uint32_t h) {
    make_renderer_budget(f, w, h, 0);
}

static void free_renderer(fixture *f) {
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    rill_renderer_destroy(f->r);
    assert_int_equal(st.validation_messages, 0);
}

/* Draws the unit plane (uv (0,0) top-left) seen from above, filling a size x size square in the
 * middle of the output, emissive-only, for `frames` frames; reads the output into px. */
static void quad_frames(fixture *f, rill_material mat, float size_x_px, float size_px, int frames,
                        uint8_t *px) {
    rill_error err = {0};
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.mesh = f->plane;
    in.material = mat;
    /* The view is 1 unit tall: h pixels per unit. */
    memset(in.transform, 0, sizeof(in.transform));
    in.transform[0] = size_x_px / (float)f->h, in.transform[5] = 1.0f;
    in.transform[10] = size_px / (float)f->h, in.transform[15] = 1.0f;
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    /* Camera at y = 5 looking down -Y, screen up = world -Z. */
    float v[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 5, 0, 1};
    memcpy(snap.view.world_from_view, v, sizeof(v));
    snap.view.orthographic = true;
    snap.view.ortho_height = 1.0f;
    snap.view.tonemapper = RILL_TONEMAP_NONE;
    snap.instances = &in;
    snap.instance_count = 1;
    for (int i = 0; i < frames; i++) {
        assert_int_equal(rill_renderer_render(f->r, &snap, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(f->r, px, (size_t)f->w * f->h * 4, &err), RILL_OK);
}

/* Three frames: uploads land in the first frame; later frames are steady. */
static void draw_mat(fixture *f, rill_material mat, float size_x_px, float size_px, uint8_t *px) {
    quad_frames(f, mat, size_x_px, size_px, 3, px);
}

/* An emissive-only material showing tex; sampler and transform of the emissive slot optional. */
static rill_material emissive_material(fixture *f, rill_texture tex,
                                       const rill_texture_sampler *sampler,
                                       const rill_texture_transform *xf) {
    rill_error err = {0};
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    md.base_color[3] = 1.0f; /* black albedo */
    md.emissive[0] = md.emissive[1] = md.emissive[2] = 1.0f;
    md.emissive_texture = tex;
    md.wrap = RILL_TEXTURE_WRAP_CLAMP;
    if (sampler) {
        md.samplers[RILL_MATERIAL_TEX_EMISSIVE] = *sampler;
    }
    if (xf) {
        md.transforms[RILL_MATERIAL_TEX_EMISSIVE] = *xf;
    }
    rill_material mat = rill_render_material_create(f->r, &md, &err);
    assert_true(mat.id);
    return mat;
}

static void draw(fixture *f, rill_texture tex, float size_x_px, float size_px, uint8_t *px) {
    rill_material mat = emissive_material(f, tex, NULL, NULL);
    draw_mat(f, mat, size_x_px, size_px, px);
    rill_render_material_destroy(f->r, mat);
}

static uint8_t srgb_encode(float x) {
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    float s = x <= 0.0031308f ? 12.92f * x : 1.055f * powf(x, 1.0f / 2.4f) - 0.055f;
    return (uint8_t)lrintf(s * 255.0f);
}

/* The source image: smooth gradients plus a hard checker, so a shifted or blurred fetch shows. */
static void pattern(uint8_t *rgba, uint32_t w, uint32_t h) {
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = rgba + 4 * ((size_t)y * w + x);
            bool check = ((x / 4) + (y / 4)) & 1;
            p[0] = (uint8_t)(255 * x / (w > 1 ? w - 1 : 1));
            p[1] = (uint8_t)(255 * y / (h > 1 ? h - 1 : 1));
            p[2] = check ? 230 : 20;
            p[3] = 255;
        }
    }
}

/* Halves an RGBA8 level with a box filter (edge texels clamp): the test's own mip chain. */
static void halve(const uint8_t *src, uint32_t w, uint32_t h, uint8_t *dst, uint32_t dw,
                  uint32_t dh) {
    for (uint32_t y = 0; y < dh; y++) {
        for (uint32_t x = 0; x < dw; x++) {
            for (int c = 0; c < 4; c++) {
                uint32_t x0 = RILL_MIN(2 * x, w - 1), x1 = RILL_MIN(2 * x + 1, w - 1);
                uint32_t y0 = RILL_MIN(2 * y, h - 1), y1 = RILL_MIN(2 * y + 1, h - 1);
                uint32_t sum = src[4 * (y0 * w + x0) + c] + src[4 * (y0 * w + x1) + c] +
                               src[4 * (y1 * w + x0) + c] + src[4 * (y1 * w + x1) + c];
                dst[4 * (y * dw + x) + c] = (uint8_t)((sum + 2) / 4);
            }
        }
    }
}

/* Builds a whole chain of `format` from the pattern; ref gets level 0 as RGBA8 as the formats
 * module decodes it (for RGBA16F: the 8-bit source). */
static void build(rill_tex_format format, bool srgb, uint32_t w, uint32_t h, rill_tex_data *tex,
                  uint8_t **ref) {
    memset(tex, 0, sizeof(*tex));
    tex->format = format, tex->srgb = srgb, tex->width = w, tex->height = h;
    uint32_t levels = 1, m = RILL_MAX(w, h);
    while (m > 1) {
        m >>= 1, levels++;
    }
    tex->level_count = levels;
    tex->full_width = w, tex->full_height = h;
    uint8_t *rgba = rill_malloc((size_t)w * h * 4);
    pattern(rgba, w, h);
    *ref = rill_malloc((size_t)w * h * 4);
    rill_error err = {0};
    for (uint32_t i = 0; i < levels; i++) {
        uint32_t lw = RILL_MAX(w >> i, 1u), lh = RILL_MAX(h >> i, 1u);
        uint64_t size = 0;
        assert_true(rill_tex_level_size(format, lw, lh, &size));
        uint8_t *data = rill_malloc((size_t)size);
        if (format == RILL_TEX_FORMAT_RGBA8) {
            memcpy(data, rgba, (size_t)size);
        } else if (format == RILL_TEX_FORMAT_RGBA16F) {
            uint16_t *hp = (uint16_t *)data;
            for (size_t k = 0; k < (size_t)lw * lh * 4; k++) {
                hp[k] = rill_f32_to_f16(rgba[k] / 255.0f);
            }
        } else {
            assert_int_equal(
                rill_bc_encode_image(format, rgba, lw, lh, 0, NULL, data, (size_t)size, &err),
                RILL_OK);
        }
        if (i == 0) {
            if (rill_tex_format_is_block(format)) {
                assert_int_equal(rill_bc_decode_image(format, data, (size_t)size, w, h, *ref,
                                                      (size_t)w * h * 4, &err),
                                 RILL_OK);
            } else {
                memcpy(*ref, rgba, (size_t)w * h * 4);
            }
        }
        tex->levels[i] = (rill_tex_level){lw, lh, data, (size_t)size};
        if (i + 1 < levels) {
            uint32_t nw = RILL_MAX(lw >> 1, 1u), nh = RILL_MAX(lh >> 1, 1u);
            uint8_t *next = rill_malloc((size_t)nw * nh * 4);
            halve(rgba, lw, lh, next, nw, nh);
            rill_free(rgba);
            rgba = next;
        }
    }
    rill_free(rgba);
}

static void free_levels(rill_tex_data *tex) {
    for (uint32_t i = 0; i < tex->level_count; i++) {
        rill_free((void *)tex->levels[i].data);
    }
}

static void test_formats_odd_sizes(void **state) {
    (void)state;
    static const struct {
        rill_tex_format format;
        bool srgb;
        int channels; /* compared: BC4 has only R, BC5 R and G */
    } cases[] = {
        {RILL_TEX_FORMAT_RGBA8, true, 3},    {RILL_TEX_FORMAT_RGBA8, false, 3},
        {RILL_TEX_FORMAT_RGBA16F, false, 3}, {RILL_TEX_FORMAT_BC1, true, 3},
        {RILL_TEX_FORMAT_BC4, false, 1},     {RILL_TEX_FORMAT_BC5, false, 2},
        {RILL_TEX_FORMAT_BC7, true, 3},      {RILL_TEX_FORMAT_BC7, false, 3},
    };
    static const uint32_t sizes[][2] = {{37, 23}, {211, 211}, {5, 3}};
    for (size_t si = 0; si < RILL_COUNTOF(sizes); si++) {
        uint32_t w = sizes[si][0], h = sizes[si][1];
        fixture f;
        memset(&f, 0, sizeof(f));
        make_renderer(&f, w, h);
        uint8_t *px = rill_malloc((size_t)w * h * 4);
        /* The 37 x 23 renders of every format, 4 x 2, are also a committed golden image. */
        uint32_t aw = 4 * w, ah = 2 * h;
        uint8_t *atlas = si == 0 ? rill_calloc((size_t)aw * ah, 4) : NULL;
        for (size_t ci = 0; ci < RILL_COUNTOF(cases); ci++) {
            rill_tex_data tex;
            uint8_t *ref = NULL;
            build(cases[ci].format, cases[ci].srgb, w, h, &tex, &ref);
            rill_error err = {0};
            rill_texture t = rill_render_texture_create_data(f.r, &tex, "test", &err);
            if (!t.id) {
                fail_msg("%s %ux%u: %s", rill_tex_format_name(cases[ci].format), w, h, err.msg);
            }
            /* The quad is exactly w x h pixels when w == h; otherwise the view's aspect maps one
             * unit to h pixels, so stretch the plane's x by w / h through the size argument. */
            draw(&f, t, (float)w, (float)h, px);
            int worst = 0;
            for (uint32_t y = 0; y < h; y++) {
                for (uint32_t x = 0; x < w; x++) {
                    const uint8_t *rp = ref + 4 * ((size_t)y * w + x);
                    const uint8_t *pp = px + 4 * ((size_t)y * w + x);
                    for (int c = 0; c < cases[ci].channels; c++) {
                        uint8_t want = cases[ci].srgb ? rp[c] : srgb_encode(rp[c] / 255.0f);
                        int d = abs((int)pp[c] - (int)want);
                        worst = d > worst ? d : worst;
                    }
                }
            }
            if (worst > TOLERANCE) {
                fail_msg("%s%s %ux%u: worst channel difference %d > %d",
                         rill_tex_format_name(cases[ci].format), cases[ci].srgb ? " sRGB" : "", w,
                         h, worst, TOLERANCE);
            }
            print_message("%-8s %-6s %3ux%-3u worst difference %d\n",
                          rill_tex_format_name(cases[ci].format),
                          cases[ci].srgb ? "sRGB" : "linear", w, h, worst);
            if (atlas) {
                uint32_t ox = (uint32_t)(ci % 4) * w, oy = (uint32_t)(ci / 4) * h;
                for (uint32_t y = 0; y < h; y++) {
                    memcpy(atlas + 4 * ((size_t)(oy + y) * aw + ox), px + 4 * (size_t)y * w,
                           (size_t)w * 4);
                }
            }
            rill_render_texture_destroy(f.r, t);
            free_levels(&tex);
            rill_free(ref);
        }
        if (atlas) {
            golden_expect("texture_formats_37x23", atlas, aw, ah);
            rill_free(atlas);
        }
        rill_free(px);
        free_renderer(&f);
    }
}

static const uint8_t colours[8][3] = {{255, 0, 0},     {0, 255, 0},    {0, 0, 255},
                                      {255, 255, 0},   {255, 0, 255},  {0, 255, 255},
                                      {255, 255, 255}, {128, 128, 128}};

/* The 211 x 211 RGBA8 sRGB chain whose level i is solid colours[i]. */
static void coloured_levels(rill_tex_data *tex) {
    memset(tex, 0, sizeof(*tex));
    tex->format = RILL_TEX_FORMAT_RGBA8, tex->srgb = true, tex->width = tex->height = 211;
    tex->full_width = tex->full_height = 211;
    tex->level_count = 8;
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t s = RILL_MAX(211u >> i, 1u);
        uint8_t *d = rill_malloc((size_t)s * s * 4);
        for (uint32_t k = 0; k < s * s; k++) {
            memcpy(d + 4 * k, colours[i], 3);
            d[4 * k + 3] = 255;
        }
        tex->levels[i] = (rill_tex_level){s, s, d, (size_t)s * s * 4};
    }
}

/* The tail of a chain from level `first` on, as a "#low" load gives it (sharing the storage). */
static rill_tex_data tail(const rill_tex_data *full, uint32_t first) {
    rill_tex_data t = *full;
    t.first_level = first;
    t.level_count = full->level_count - first;
    t.width = full->levels[first].width;
    t.height = full->levels[first].height;
    for (uint32_t i = 0; i < t.level_count; i++) {
        t.levels[i] = full->levels[first + i];
    }
    return t;
}

static void expect_colour(const uint8_t *px, uint32_t w, uint32_t x, uint32_t y,
                          const uint8_t want[3], const char *what) {
    const uint8_t *c = px + 4 * ((size_t)y * w + x);
    for (int k = 0; k < 3; k++) {
        if (abs((int)c[k] - (int)want[k]) > TOLERANCE) {
            fail_msg("%s: pixel (%u, %u) is (%u, %u, %u), expected (%u, %u, %u)", what, x, y, c[0],
                     c[1], c[2], want[0], want[1], want[2]);
        }
    }
}

/* Texture streaming's swap: a texture made from the "#low" tail (levels 3..7 of the chain) is
 * replaced by the full chain and back, under a material created before the swaps. Each frame
 * shows one whole image: the tail's base (level 3's colour) or the full base (level 0's). */
static void test_replace_mip_range(void **state) {
    (void)state;
    rill_tex_data full;
    coloured_levels(&full);
    rill_tex_data low = tail(&full, 3);
    fixture f;
    memset(&f, 0, sizeof(f));
    make_renderer(&f, 211, 211);
    rill_error err = {0};
    rill_texture t = rill_render_texture_create_data(f.r, &low, "streamed", &err);
    assert_true(t.id);
    rill_material mat = emissive_material(&f, t, NULL, NULL);
    uint8_t *px = rill_malloc(211 * 211 * 4);
    rill_render_stats st;
    draw_mat(&f, mat, 211, 211, px);
    expect_colour(px, 211, 105, 105, colours[3], "low");
    rill_renderer_stats(f.r, &st);
    uint64_t mem_low = st.gpu_memory_used_bytes;

    assert_int_equal(rill_render_texture_replace(f.r, t, &full, &err), RILL_OK);
    assert_true(rill_render_texture_pending(f.r, t));
    draw_mat(&f, mat, 211, 211, px);
    assert_false(rill_render_texture_pending(f.r, t));
    expect_colour(px, 211, 105, 105, colours[0], "full");
    rill_renderer_stats(f.r, &st);
    uint64_t mem_full = st.gpu_memory_used_bytes;

    assert_int_equal(rill_render_texture_replace(f.r, t, &low, &err), RILL_OK);
    draw_mat(&f, mat, 211, 211, px);
    expect_colour(px, 211, 105, 105, colours[3], "low again");
    draw_mat(&f, mat, 211, 211, px); /* the full image is freed once its frames are done */
    rill_renderer_stats(f.r, &st);
    print_message("GPU memory used: low %llu, full %llu, low again %llu bytes\n",
                  (unsigned long long)mem_low, (unsigned long long)mem_full,
                  (unsigned long long)st.gpu_memory_used_bytes);
    assert_true(mem_full > mem_low);
    assert_true(st.gpu_memory_used_bytes < mem_full);

    /* Another image is refused and changes nothing. */
    rill_tex_data other = full;
    other.srgb = false;
    assert_int_equal(rill_render_texture_replace(f.r, t, &other, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "not the texture's image"));
    assert_false(rill_render_texture_pending(f.r, t));
    rill_texture stale = {t.id + 1};
    assert_int_not_equal(rill_render_texture_replace(f.r, stale, &full, &err), RILL_OK);

    rill_render_material_destroy(f.r, mat);
    rill_render_texture_destroy(f.r, t);
    rill_free(px);
    free_levels(&full);
    free_renderer(&f);
}

/* Counts the releases of a borrowed replacement's data, and whether the bytes were still live. */
typedef struct borrow_probe {
    int released;
    const rill_tex_data *data;
    uint8_t first_byte; /* of level 0 when handed over */
    bool intact;        /* level 0's first byte unchanged at release */
} borrow_probe;

static void probe_release(void *user) {
    borrow_probe *p = user;
    p->released++;
    p->intact = ((const uint8_t *)p->data->levels[0].data)[0] == p->first_byte;
}

/* rill_render_texture_replace_many_borrowed (texture streaming's hand-over): nothing is copied or
 * released on the call; the frame that records the upload reads the caller's bytes, switches the
 * texture and releases each item exactly once; a refused batch releases every item at once; a
 * texture destroyed before its upload releases its item without drawing. */
static void test_replace_borrowed(void **state) {
    (void)state;
    rill_tex_data full;
    coloured_levels(&full);
    rill_tex_data low = tail(&full, 3);
    fixture f;
    memset(&f, 0, sizeof(f));
    make_renderer(&f, 211, 211);
    rill_error err = {0};
    rill_texture t = rill_render_texture_create_data(f.r, &low, "streamed", &err);
    rill_texture t2 = rill_render_texture_create_data(f.r, &low, "second", &err);
    assert_true(t.id && t2.id);
    rill_material mat = emissive_material(&f, t, NULL, NULL);
    uint8_t *px = rill_malloc(211 * 211 * 4);

    borrow_probe probe = {0, &full, ((const uint8_t *)full.levels[0].data)[0], false};
    const rill_tex_data *one[1] = {&full};
    void *users[2] = {&probe, NULL};
    assert_int_equal(
        rill_render_texture_replace_many_borrowed(f.r, 1, &t, one, probe_release, users, &err),
        RILL_OK);
    assert_int_equal(probe.released, 0); /* borrowed, not copied: still the caller's */
    assert_true(rill_render_texture_pending(f.r, t));
    draw_mat(&f, mat, 211, 211, px);
    assert_int_equal(probe.released, 1);
    assert_true(probe.intact);
    assert_false(rill_render_texture_pending(f.r, t));
    expect_colour(px, 211, 105, 105, colours[0], "full from borrowed levels");

    /* A refused batch (the second item is another image) queues nothing and releases both. */
    rill_tex_data other = full;
    other.srgb = false;
    borrow_probe pa = {0, &low, ((const uint8_t *)low.levels[0].data)[0], false};
    borrow_probe pb = pa;
    rill_texture pair[2] = {t, t2};
    const rill_tex_data *two[2] = {&low, &other};
    void *pusers[2] = {&pa, &pb};
    assert_int_equal(
        rill_render_texture_replace_many_borrowed(f.r, 2, pair, two, probe_release, pusers, &err),
        RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(pa.released, 1);
    assert_int_equal(pb.released, 1);
    assert_false(rill_render_texture_pending(f.r, t));
    assert_false(rill_render_texture_pending(f.r, t2));
    assert_int_equal(rill_render_texture_replace_many_borrowed(f.r, 1, &t, one, NULL, users, &err),
                     RILL_ERR_INVALID_ARGUMENT); /* a borrow needs a release */

    /* Replaced again before its frame: the first hand-over is released when the second wins; the
     * texture destroyed before its frame: released once, nothing drawn from it. */
    borrow_probe p1 = {0, &full, ((const uint8_t *)full.levels[0].data)[0], false};
    borrow_probe p2 = p1, p3 = p1;
    void *u1[1] = {&p1}, *u2[1] = {&p2}, *u3[1] = {&p3};
    assert_int_equal(
        rill_render_texture_replace_many_borrowed(f.r, 1, &t2, one, probe_release, u1, &err),
        RILL_OK);
    assert_int_equal(
        rill_render_texture_replace_many_borrowed(f.r, 1, &t2, one, probe_release, u2, &err),
        RILL_OK);
    assert_int_equal(p1.released, 1);
    assert_int_equal(p2.released, 0);
    rill_render_texture_destroy(f.r, t2);
    assert_int_equal(p2.released, 1);
    const rill_tex_data *lowp[1] = {&low};
    assert_int_equal(
        rill_render_texture_replace_many_borrowed(f.r, 1, &t, lowp, probe_release, u3, &err),
        RILL_OK);
    draw_mat(&f, mat, 211, 211, px);
    assert_int_equal(p3.released, 1);
    expect_colour(px, 211, 105, 105, colours[3], "low from borrowed levels");
    assert_int_equal(p1.released + p2.released, 2); /* never twice */

    rill_render_material_destroy(f.r, mat);
    rill_render_texture_destroy(f.r, t);
    rill_free(px);
    free_levels(&full);
    free_renderer(&f);
}

/* A 2 x 2 texture A B / C D (nearest filtering): checks the centre of each 16 x 16 cell of a
 * 64 x 64 output against the expected texel. */
static void expect_cells(const uint8_t *px, const char *layout, const uint8_t quad[4][3],
                         const char *what) {
    for (int cy = 0; cy < 4; cy++) {
        for (int cx = 0; cx < 4; cx++) {
            int q = layout[cy * 4 + cx] - 'A';
            expect_colour(px, 64, (uint32_t)(cx * 16 + 8), (uint32_t)(cy * 16 + 8), quad[q], what);
        }
    }
}

/* Samplers per axis and KHR_texture_transform: wrap u mirror / v clamp on UVs scaled to [0, 2],
 * the axes swapped, an offset of half the texture, and a quarter turn. */
static void test_sampler_axes_and_transform(void **state) {
    (void)state;
    static const uint8_t quad[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    uint8_t texels[16];
    for (int i = 0; i < 4; i++) {
        memcpy(texels + 4 * i, quad[i], 3);
        texels[4 * i + 3] = 255;
    }
    rill_tex_data tex;
    memset(&tex, 0, sizeof(tex));
    tex.format = RILL_TEX_FORMAT_RGBA8, tex.srgb = true, tex.width = tex.height = 2;
    tex.level_count = 1;
    tex.levels[0] = (rill_tex_level){2, 2, texels, sizeof(texels)};
    fixture f;
    memset(&f, 0, sizeof(f));
    make_renderer(&f, 64, 64);
    rill_error err = {0};
    rill_texture t = rill_render_texture_create_data(f.r, &tex, "quad", &err);
    assert_true(t.id);
    uint8_t *px = rill_malloc(64 * 64 * 4);
    rill_texture_sampler near = {.set = true,
                                 .mag_filter = RILL_TEXTURE_FILTER_NEAREST,
                                 .min_filter = RILL_TEXTURE_FILTER_NEAREST,
                                 .mip_filter = RILL_TEXTURE_MIP_NONE};

    /* uv * 2; u mirrored (A B | B A), v clamped (row 1 from v = 0.5 on). */
    rill_texture_sampler s1 = near;
    s1.wrap_u = RILL_TEXTURE_WRAP_MIRROR, s1.wrap_v = RILL_TEXTURE_WRAP_CLAMP;
    rill_texture_transform x1 = {.set = true, .scale = {2, 2}};
    rill_material m = emissive_material(&f, t, &s1, &x1);
    draw_mat(&f, m, 64, 64, px);
    expect_cells(px, "ABBACDDCCDDCCDDC", quad, "mirror u, clamp v, scale 2");
    rill_render_material_destroy(f.r, m);

    /* u repeated and v mirrored: the axes are independent. */
    rill_texture_sampler s2 = near;
    s2.wrap_u = RILL_TEXTURE_WRAP_REPEAT, s2.wrap_v = RILL_TEXTURE_WRAP_MIRROR;
    m = emissive_material(&f, t, &s2, &x1);
    draw_mat(&f, m, 64, 64, px);
    expect_cells(px, "ABABCDCDCDCDABAB", quad, "repeat u, mirror v, scale 2");
    rill_render_material_destroy(f.r, m);

    /* Offset (0.5, 0), repeat: the columns swap. */
    rill_texture_transform x3 = {.set = true, .offset = {0.5f, 0.0f}, .scale = {1, 1}};
    m = emissive_material(&f, t, &near, &x3);
    draw_mat(&f, m, 64, 64, px);
    expect_cells(px, "BBAABBAADDCCDDCC", quad, "offset 0.5");
    rill_render_material_destroy(f.r, m);

    /* A quarter turn: u' = v, v' = -u (repeat). */
    rill_texture_transform x4 = {.set = true, .rotation = 1.5707963f, .scale = {1, 1}};
    m = emissive_material(&f, t, &near, &x4);
    draw_mat(&f, m, 64, 64, px);
    expect_cells(px, "CCAACCAADDBBDDBB", quad, "rotation pi/2");
    rill_render_material_destroy(f.r, m);

    rill_render_texture_destroy(f.r, t);
    rill_free(px);
    free_renderer(&f);
}

/* A chain whose level i is solid colours[i]: which level the sampler picks at a given size. */
static void test_mip_selection_npot(void **state) {
    (void)state;
    rill_tex_data tex;
    coloured_levels(&tex);
    fixture f;
    memset(&f, 0, sizeof(f));
    make_renderer(&f, 211, 211);
    rill_error err = {0};
    rill_texture t = rill_render_texture_create_data(f.r, &tex, "levels", &err);
    assert_true(t.id);
    uint8_t *px = rill_malloc(211 * 211 * 4);
    /* 211 / 2^k pixels: the footprint of one pixel is 2^k texels of level 0, so LOD k exactly. */
    static const float sizes[3] = {211.0f, 105.5f, 52.75f};
    for (int lvl = 0; lvl < 3; lvl++) {
        draw(&f, t, sizes[lvl], sizes[lvl], px);
        const uint8_t *c = px + 4 * (105 * 211 + 105);
        print_message("211^2 texture drawn at %.0f px: centre (%u, %u, %u)\n", (double)sizes[lvl],
                      c[0], c[1], c[2]);
        for (int k = 0; k < 3; k++) {
            assert_true(abs((int)c[k] - (int)colours[lvl][k]) <= TOLERANCE);
        }
    }
    rill_free(px);
    rill_render_texture_destroy(f.r, t);
    free_levels(&tex);
    free_renderer(&f);
}

/* Bad chains are refused with a message, never uploaded. */
/* The bytes the GPU copies for tex's levels (each padded to 16, as staging packs them). */
static uint64_t chain_bytes(const rill_tex_data *tex) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < tex->level_count; i++) {
        total += (tex->levels[i].size + 15u) & ~(size_t)15u;
    }
    return total;
}

/* Frames of the quad until t is no longer pending (at most 64): none copies more than budget,
 * each shows `before` while the replacement is pending and `after` from the frame it switches.
 * Returns how many frames copied bytes. */
static int frames_until_switched(fixture *f, rill_texture t, rill_material mat, uint64_t budget,
                                 const uint8_t *before, const uint8_t *after, uint8_t *px) {
    int copying = 0;
    size_t n = (size_t)f->w * f->h * 4;
    for (int i = 0; i < 64 && rill_render_texture_pending(f->r, t); i++) {
        quad_frames(f, mat, (float)f->w, (float)f->h, 1, px);
        rill_render_stats st;
        rill_renderer_stats(f->r, &st);
        assert_true(st.uploaded_bytes_last_frame <= budget);
        copying += st.uploaded_bytes_last_frame > 0;
        bool pending = rill_render_texture_pending(f->r, t);
        if (memcmp(px, pending ? before : after, n) != 0) {
            fail_msg("frame %d (%s): the picture is not the %s image", i,
                     pending ? "pending" : "switched", pending ? "old" : "whole new");
        }
    }
    assert_false(rill_render_texture_pending(f->r, t));
    return copying;
}

/* Uploads of about 3x the frame's budget (rill_renderer_desc.upload_budget_bytes) go in pieces:
 *   - a 211 x 211 chain replacing its 4-level tail under a live material, RGBA8 sRGB and BC7 sRGB
 *     (row bands of pixels and of 4x4 blocks): at least 3 frames copy it, none more than the
 *     budget, every frame shows the tail's picture or the whole new one (never a part), and the
 *     end is byte for byte what an unbudgeted renderer draws;
 *   - a 211 x 211 image given as pixels (rill_render_texture_create: its chain generated on the
 *     GPU after level 0's last band): the same picture as unbudgeted. */
static void test_upload_over_frames(void **state) {
    (void)state;
    const uint32_t w = 211, h = 211;
    size_t n = (size_t)w * h * 4;
    uint8_t *want = rill_malloc(n), *old = rill_malloc(n), *px = rill_malloc(n);
    static const rill_tex_format formats[] = {RILL_TEX_FORMAT_RGBA8, RILL_TEX_FORMAT_BC7};
    for (size_t k = 0; k < RILL_COUNTOF(formats); k++) {
        rill_tex_data full;
        uint8_t *ref = NULL;
        build(formats[k], true, w, h, &full, &ref);
        rill_free(ref);
        rill_tex_data low = tail(&full, 4);
        uint64_t budget = chain_bytes(&full) / 3;
        rill_error err = {0};
        fixture f0, f1;
        memset(&f0, 0, sizeof(f0));
        memset(&f1, 0, sizeof(f1));
        make_renderer(&f0, w, h); /* unbudgeted: the whole chain in one frame */
        rill_texture t0 = rill_render_texture_create_data(f0.r, &full, "whole", &err);
        assert_true(t0.id);
        draw(&f0, t0, (float)w, (float)h, want);
        rill_render_texture_destroy(f0.r, t0);
        free_renderer(&f0);

        make_renderer_budget(&f1, w, h, budget);
        rill_texture t = rill_render_texture_create_data(f1.r, &low, "streamed", &err);
        assert_true(t.id);
        rill_material mat = emissive_material(&f1, t, NULL, NULL);
        draw_mat(&f1, mat, (float)w, (float)h, old);
        assert_int_equal(rill_render_texture_replace(f1.r, t, &full, &err), RILL_OK);
        int frames = frames_until_switched(&f1, t, mat, budget, old, want, px);
        print_message("%s: %llu bytes under a %llu-byte budget: %d frames\n",
                      rill_tex_format_name(formats[k]), (unsigned long long)chain_bytes(&full),
                      (unsigned long long)budget, frames);
        assert_true(frames >= 3);
        assert_true(memcmp(old, want, n) != 0); /* the test can tell the two apart */
        draw_mat(&f1, mat, (float)w, (float)h, px);
        assert_memory_equal(px, want, n);
        rill_render_material_destroy(f1.r, mat);
        rill_render_texture_destroy(f1.r, t);
        free_renderer(&f1);
        free_levels(&full);
    }
    /* Pixels with a generated chain, 178 KB under a 48 KiB budget. */
    uint8_t *rgba = rill_malloc(n);
    pattern(rgba, w, h);
    rill_texture_desc td = {.pixels = rgba, .width = w, .height = h, .srgb = true, .label = "gen"};
    for (int budgeted = 0; budgeted < 2; budgeted++) {
        fixture f;
        memset(&f, 0, sizeof(f));
        make_renderer_budget(&f, w, h, budgeted ? 48u << 10 : 0);
        rill_error err = {0};
        rill_texture t = rill_render_texture_create(f.r, &td, &err);
        assert_true(t.id);
        rill_material mat = emissive_material(&f, t, NULL, NULL);
        int copying = 0;
        for (int i = 0; i < 64; i++) {
            quad_frames(&f, mat, (float)w, (float)h, 1, px);
            rill_render_stats st;
            rill_renderer_stats(f.r, &st);
            assert_true(!budgeted || st.uploaded_bytes_last_frame <= (48u << 10));
            copying += st.uploaded_bytes_last_frame > 0;
            if (st.upload_backlog_bytes == 0) {
                break;
            }
        }
        draw_mat(&f, mat, (float)w, (float)h, budgeted ? px : want);
        if (budgeted) {
            assert_true(copying >= 3);
            assert_memory_equal(px, want, n);
        }
        rill_render_material_destroy(f.r, mat);
        rill_render_texture_destroy(f.r, t);
        free_renderer(&f);
    }
    rill_free(rgba);
    rill_free(want);
    rill_free(old);
    rill_free(px);
}

static void test_bad_chain(void **state) {
    (void)state;
    fixture f;
    memset(&f, 0, sizeof(f));
    make_renderer(&f, 8, 8);
    rill_tex_data tex;
    uint8_t *ref = NULL;
    build(RILL_TEX_FORMAT_BC7, true, 37, 23, &tex, &ref);
    rill_error err = {0};
    tex.levels[2].size -= 16; /* level bytes that do not match the level's size */
    assert_int_equal(rill_render_texture_create_data(f.r, &tex, "bad", &err).id, 0);
    assert_non_null(strstr(err.msg, "bad"));
    tex.levels[2].size += 16;
    tex.levels[1].width++; /* a level of the wrong size */
    assert_int_equal(rill_render_texture_create_data(f.r, &tex, "bad", &err).id, 0);
    tex.levels[1].width--;
    free_levels(&tex);
    rill_free(ref);
    free_renderer(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats_odd_sizes),
        cmocka_unit_test(test_mip_selection_npot),
        cmocka_unit_test(test_replace_mip_range),
        cmocka_unit_test(test_replace_borrowed),
        cmocka_unit_test(test_sampler_axes_and_transform),
        cmocka_unit_test(test_upload_over_frames),
        cmocka_unit_test(test_bad_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
