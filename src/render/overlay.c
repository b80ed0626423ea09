/* overlay.c: the text overlay (frame statistics and the like) drawn over the finished frame, and
 * frame capture (a copy of the displayed image, for screenshots of windowed renderers).
 *
 * The caller sets a string (rill_renderer_set_overlay_text); every frame the overlay pass turns it
 * into quads on the CPU with stb_easy_font, writing them straight into the frame's scratch arena
 * (no heap allocation per frame), and draws them with a tiny alpha-blended pipeline onto the
 * display-encoded "ldr" image, after end_main_pass_post_processing and before readback/present.
 * A dark backdrop quad keeps the text readable over any scene.
 *
 * A capture adds a "capture" pass after the overlay that copies "ldr" into a host-visible buffer
 * owned here, so it works the same for headless and windowed renderers (a windowed frame otherwise
 * ends in a blit to the swapchain that the CPU cannot read).
 */
#include "debug_views.h"
#include "render_internal.h"

#include <stdio.h>
#include <string.h>

#include "render_shaders.h"
#include "rill/formats/image.h"

/* stb_easy_font is a header-only library with a few static helpers this file does not call. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb/stb_easy_font.h>
/* renderer.c keeps its copy of stb_image_write static, so this file has its own. */
#pragma GCC diagnostic pop

#define LOGM "render"
/* Quads one frame may draw (the backdrop included): 64 bytes of vertices each. stb_easy_font
 * stops writing when the buffer is full, so longer text is cut, never overflows. */
#define OVERLAY_MAX_QUADS 16384u
#define OVERLAY_QUAD_BYTES 64u
#define OVERLAY_MARGIN 6.0f /* pixels between the image corner and the backdrop */
#define OVERLAY_PAD 4.0f    /* font units between the backdrop edge and the text */

typedef struct rill__overlay {
    rill__pipe *pipe;   /* built when text is first set */
    rill__buf *indices; /* 6 indices per quad: 4q + {0, 1, 2, 0, 2, 3}; also bound as vertices */
    char text[RILL_RENDER_OVERLAY_MAX_TEXT];
    uint32_t len;
    /* capture */
    bool capture_requested; /* the next frame copies its image into capture_buf */
    bool have_capture;      /* capture_buf holds a finished frame's copy of cap_w x cap_h */
    rill__buf *capture_buf;
    uint32_t cap_w, cap_h;
} rill__overlay;

/* The overlay state, created on first use. NULL when out of memory (logged). */
static rill__overlay *overlay_get(rill_renderer *r) {
    if (!r->overlay) {
        r->overlay = rill_calloc_tagged(1, sizeof(rill__overlay), RILL_MEM_RENDER);
        if (!r->overlay) {
            RILL_LOG_ERROR(LOGM, "overlay: out of memory");
        }
    }
    return r->overlay;
}

static bool overlay_init(rill_renderer *r, rill__overlay *o, rill_error *err) {
    rill__pipe_desc d;
    memset(&d, 0, sizeof(d));
    d.label = "overlay";
    d.vs = rill__spv_overlay_vert;
    d.vs_size = rill__spv_overlay_vert_size;
    d.fs = rill__spv_overlay_frag;
    d.fs_size = rill__spv_overlay_frag_size;
    d.color_formats[0] = RILL_RG_FORMAT_RGBA8_UNORM;
    d.color_count = 1;
    d.depth_format = RILL_RG_FORMAT_NONE;
    d.blend = RILL__BLEND_ALPHA;
    d.cull = RILL__CULL_NONE;
    d.set_count = 1;
    d.sets[0].bindings[0] = RILL__BIND_STORAGE;
    d.push_size = 32;
    if (!(o->pipe = rill__pipe_create(r->gpu, &d, err))) {
        return false;
    }
    uint32_t n = OVERLAY_MAX_QUADS * 6u;
    uint32_t *idx = rill_malloc_tagged(sizeof(uint32_t) * n, RILL_MEM_RENDER);
    if (!idx) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for the overlay");
        return false;
    }
    static const uint32_t corner[6] = {0, 1, 2, 0, 2, 3};
    for (uint32_t i = 0; i < n; i++) {
        idx[i] = (i / 6u) * 4u + corner[i % 6u];
    }
    /* The pipeline takes no vertex input, but binding goes through rill__cmd_bind_mesh, which
     * binds a vertex buffer too: the index buffer doubles as that (it is never read as such). */
    o->indices = rill__buf_create(r->gpu, sizeof(uint32_t) * n, RILL__BUF_INDEX | RILL__BUF_VERTEX,
                                  false, "overlay indices", err);
    bool ok = o->indices &&
              rill__buf_upload(r->gpu, o->indices, 0, idx, sizeof(uint32_t) * n, err) == RILL_OK;
    rill_free(idx);
    return ok;
}

bool rill__overlay_ensure(rill_renderer *r) {
    rill__overlay *o = overlay_get(r);
    if (!o) {
        return false;
    }
    if (!o->pipe) {
        rill_error err = {0};
        if (!overlay_init(r, o, &err)) {
            RILL_LOG_ERROR(LOGM, "overlay: %s", err.msg);
            rill__pipe_destroy(r->gpu, o->pipe);
            rill__buf_destroy(r->gpu, o->indices);
            o->pipe = NULL;
            o->indices = NULL;
            return false;
        }
    }
    return true;
}

void rill_renderer_set_overlay_text(rill_renderer *r, const char *text) {
    rill__rthread_guard(r);
    if (!r) {
        return;
    }
    if (!text || !text[0]) {
        if (r->overlay) {
            r->overlay->len = 0;
        }
        return;
    }
    if (!rill__overlay_ensure(r)) {
        return;
    }
    size_t n = strlen(text);
    if (n >= sizeof(r->overlay->text)) {
        n = sizeof(r->overlay->text) - 1u;
    }
    /* stb_easy_font indexes its glyph table with (c - 32) and knows only printable ASCII: any
     * other byte (tabs, UTF-8, control characters) would read outside the table, so it becomes
     * '?'. */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        r->overlay->text[i] = (c == '\n' || (c >= 32u && c <= 126u)) ? (char)c : '?';
    }
    r->overlay->text[n] = 0;
    r->overlay->len = (uint32_t)n;
}

void rill__overlay_destroy(rill_renderer *r) {
    if (!r->overlay) {
        return;
    }
    rill__pipe_destroy(r->gpu, r->overlay->pipe);
    rill__buf_destroy(r->gpu, r->overlay->indices);
    rill__buf_destroy(r->gpu, r->overlay->capture_buf);
    rill_free(r->overlay);
    r->overlay = NULL;
}

/* Writes one axis-aligned quad in stb_easy_font's vertex layout. */
static void put_quad(float *v, float x0, float y0, float x1, float y1, const uint8_t rgba[4]) {
    const float xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
    for (int i = 0; i < 4; i++) {
        v[i * 4 + 0] = xs[i];
        v[i * 4 + 1] = ys[i];
        v[i * 4 + 2] = 0.0f;
        memcpy(&v[i * 4 + 3], rgba, 4);
    }
}

/* The overlay's push constants (overlay.vert). */
typedef struct overlay_push {
    float size[2], origin[2], scale, pad[3];
} overlay_push;

/* Draws quads [0, quads) of the vertices at (buf, off) with push p. */
static void draw_quads(rill_rg_ctx *ctx, rill__overlay *o, rill__buf *buf, uint64_t off,
                       uint32_t quads, const overlay_push *p) {
    rill__binding b;
    memset(&b, 0, sizeof(b));
    b.buf = buf;
    b.offset = off;
    b.range = (uint64_t)quads * OVERLAY_QUAD_BYTES;
    b.layer = -1;
    if (rill__cmd_bind_transient_set(ctx->cmd, 0, &b, 1) == RILL_OK) {
        rill__cmd_push(ctx->cmd, p, sizeof(*p));
        rill__cmd_bind_mesh(ctx->cmd, o->indices, o->indices);
        rill__cmd_draw_indexed(ctx->cmd, quads * 6u, 1, 0, 0);
    }
}

/* The debug panel's lines (debug_views.c), in output pixels. */
static void draw_panel_lines(rill_rg_ctx *ctx, rill__overlay *o) {
    rill_renderer *r = ctx->r;
    if (!rill__debug_draws(r)) {
        return;
    }
    rill__buf *buf = NULL;
    uint64_t off = 0;
    float *verts = rill__frame_alloc(ctx->cmd, (uint64_t)OVERLAY_MAX_QUADS * OVERLAY_QUAD_BYTES, 16,
                                     &buf, &off);
    uint32_t quads = verts ? rill__debug_line_quads(r, verts, OVERLAY_MAX_QUADS) : 0;
    if (quads) {
        overlay_push push = {{(float)r->width, (float)r->height}, {0, 0}, 1.0f, {0, 0, 0}};
        draw_quads(ctx, o, buf, off, quads, &push);
    }
}

static void exec_overlay(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill_renderer *r = ctx->r;
    rill__overlay *o = r->overlay;
    rill__attachment col = {.img = rill__ctx_img(ctx, ctx->r->frame.ldr_color), .layer = -1};
    rill__cmd_begin_rendering(ctx->cmd, &col, 1, NULL, r->width, r->height);
    bool ready = o && o->pipe && rill__buf_ready(o->indices);
    if (ready) {
        rill__cmd_bind_pipe(ctx->cmd, o->pipe);
        draw_panel_lines(ctx, o);
    }
    /* The caller's text, then the debug panel's below it. */
    const char *panel = rill__debug_text(r);
    char text[RILL_RENDER_OVERLAY_MAX_TEXT * 2];
    snprintf(text, sizeof(text), "%s%s%s", o ? o->text : "",
             o && o->len && panel[0] && o->text[o->len - 1] != '\n' ? "\n" : "", panel);
    rill__buf *buf = NULL;
    uint64_t off = 0;
    float *verts = NULL;
    if (ready && text[0]) {
        verts = rill__frame_alloc(ctx->cmd, (uint64_t)OVERLAY_MAX_QUADS * OVERLAY_QUAD_BYTES, 16,
                                  &buf, &off);
    }
    if (verts) {
        /* Quad 0 is the backdrop; the text follows, offset by the padding. */
        int quads = stb_easy_font_print(OVERLAY_PAD, OVERLAY_PAD, text,
                                        (unsigned char[4]){255, 255, 255, 255}, verts + 16,
                                        (int)((OVERLAY_MAX_QUADS - 1u) * 64u));
        float w = (float)stb_easy_font_width(text) + 2.0f * OVERLAY_PAD;
        float h = (float)stb_easy_font_height(text) + 2.0f * OVERLAY_PAD;
        put_quad(verts, 0.0f, 0.0f, w, h, (const uint8_t[4]){0, 0, 0, 170});
        /* Twice the font size on larger outputs (stb_easy_font glyphs are about 6 x 12 pixels). */
        float scale = r->height >= 600 ? 2.0f : 1.0f;
        overlay_push push = {{(float)r->width, (float)r->height},
                             {OVERLAY_MARGIN, OVERLAY_MARGIN},
                             scale,
                             {0, 0, 0}};
        draw_quads(ctx, o, buf, off, (uint32_t)quads + 1u, &push);
    }
    rill__cmd_end_rendering(ctx->cmd);
}

static void exec_capture(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill__cmd_copy_image_to_buffer(ctx->cmd, rill__ctx_img(ctx, ctx->r->frame.ldr_color),
                                   ctx->r->overlay->capture_buf);
    rill__cmd_host_read_barrier(ctx->cmd);
}

/* Makes sure the capture buffer fits this frame's output size. */
static rill_result capture_prepare(rill_renderer *r, rill__overlay *o, rill_error *err) {
    uint64_t need = (uint64_t)r->width * r->height * 4u;
    if (o->capture_buf && rill__buf_size(o->capture_buf) == need) {
        return RILL_OK;
    }
    rill__buf_destroy(r->gpu, o->capture_buf); /* deferred past the frames that may use it */
    o->capture_buf =
        rill__buf_create(r->gpu, need, RILL__BUF_TRANSFER_DST, true, "frame capture", err);
    return o->capture_buf ? RILL_OK : (err && err->code ? err->code : RILL_ERR_VULKAN);
}

/* The capture pass: copies the output colour into the capture buffer, after `before`. */
static rill_result add_capture(rill_renderer *r, rill__overlay *o, rill_rg *g, rill_rg_pass before,
                               rill_rg_pass out_pass, rill_error *err) {
    o->capture_requested = false;
    o->have_capture = false;
    RILL_TRY(capture_prepare(r, o, err));
    rill_rg_buffer buf = rill_rg_import_buffer(g, "capture", o->capture_buf, RILL_RG_USAGE_NONE,
                                               RILL_RG_USAGE_NONE, err);
    rill_rg_pass_desc d = {.label = "capture", .exec = exec_capture, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    RILL_TRY(rill_rg_use_image(g, p, r->frame.ldr_color, RILL_RG_USAGE_TRANSFER_SRC, err));
    RILL_TRY(rill_rg_use_buffer(g, p, buf, RILL_RG_USAGE_TRANSFER_DST, err));
    rill_rg_pass chain[] = {before, p, out_pass};
    RILL_TRY(rill_rg_add_edges(g, chain, 3, err));
    o->have_capture = true;
    o->cap_w = r->width;
    o->cap_h = r->height;
    return RILL_OK;
}

rill_result rill__overlay_add_pass(rill_renderer *r, rill_rg *g, rill_rg_pass out_pass,
                                   rill_error *err) {
    rill__overlay *o = r->overlay;
    if (!o) {
        return RILL_OK;
    }
    rill_rg_pass before = r->frame.fg.end_main_pass_post_processing;
    if ((o->len || rill__debug_draws(r)) && o->pipe) {
        rill_rg_pass_desc d = {.label = "overlay", .exec = exec_overlay};
        rill_rg_pass p = rill_rg_add_pass(g, &d, err);
        RILL_TRY(rill_rg_use_image(g, p, r->frame.ldr_color, RILL_RG_USAGE_COLOR_WRITE, err));
        rill_rg_pass chain[] = {before, p, out_pass};
        RILL_TRY(rill_rg_add_edges(g, chain, 3, err));
        before = p;
    }
    return o->capture_requested ? add_capture(r, o, g, before, out_pass, err) : RILL_OK;
}

void rill_renderer_request_capture(rill_renderer *r) {
    rill__rthread_guard(r);
    rill__overlay *o = r ? overlay_get(r) : NULL;
    if (o) {
        o->capture_requested = true;
    }
}

rill_result rill_renderer_read_capture(rill_renderer *r, uint8_t *dst, size_t dst_size,
                                       uint32_t *out_w, uint32_t *out_h, rill_error *err) {
    rill__rthread_guard(r);
    if (!r) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL renderer");
    }
    rill__overlay *o = r->overlay;
    if (!o || !o->have_capture) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND,
                              "render: no captured frame (call rill_renderer_request_capture "
                              "before rill_renderer_render)");
    }
    size_t need = (size_t)o->cap_w * o->cap_h * 4u;
    if (out_w) {
        *out_w = o->cap_w;
    }
    if (out_h) {
        *out_h = o->cap_h;
    }
    if (!dst) {
        return RILL_OK;
    }
    if (dst_size < need) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: the capture needs %zu bytes",
                              need);
    }
    rill_result res = rill__gpu_wait_idle(r->gpu, err);
    if (res == RILL_OK) {
        memcpy(dst, rill__buf_map(o->capture_buf), need);
    }
    return res;
}

rill_result rill_renderer_write_capture_png(rill_renderer *r, const char *path, rill_error *err) {
    uint32_t w = 0, h = 0;
    if (!path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL path");
    }
    rill_result res = rill_renderer_read_capture(r, NULL, 0, &w, &h, err);
    if (res != RILL_OK) {
        return res;
    }
    size_t n = (size_t)w * h * 4u;
    uint8_t *px = rill_malloc_tagged(n, RILL_MEM_RENDER);
    if (!px) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    res = rill_renderer_read_capture(r, px, n, NULL, NULL, err);
    if (res == RILL_OK) {
        res = rill_image_write_png(path, px, w, h, 4, err);
    }
    rill_free(px);
    return res;
}

size_t rill_render_stats_format(const rill_render_stats *s, double frame_ms, char *buf,
                                size_t cap) {
    if (!buf || !cap) {
        return 0;
    }
    buf[0] = 0;
    if (!s) {
        return 0;
    }
    size_t n = 0;
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (n < cap) {                                                                             \
            int k_ = snprintf(buf + n, cap - n, __VA_ARGS__);                                      \
            if (k_ > 0)                                                                            \
                n += (size_t)k_;                                                                   \
        }                                                                                          \
    } while (0)
    double gpu_total = 0.0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        gpu_total += s->pass_gpu_ms[i];
    }
    if (frame_ms > 0.0) {
        APPEND("frame %.2f ms (%.0f fps)  cpu record %.2f ms\n", frame_ms, 1000.0 / frame_ms,
               s->cpu_record_ms);
    } else {
        APPEND("cpu record %.2f ms\n", s->cpu_record_ms);
    }
    APPEND("draws %u  triangles %llu  instances %u / %u visible\n", s->draw_calls,
           (unsigned long long)s->triangles, s->instances_visible, s->instances_submitted);
    APPEND("gpu %.2f ms total\n", gpu_total);
    if (s->gi_ms > 0.0) {
        APPEND("gi %.2f ms (voxelize %.2f ms)\n", s->gi_ms, s->gi_voxelize_ms);
        if (s->gi_cascades_resident > 0) {
            APPEND("gi voxels %u  cascades %u/4  units %llu\n", s->gi_voxels_filled,
                   s->gi_cascades_resident, (unsigned long long)s->gi_voxel_units);
        }
    }
    for (uint32_t i = 0; i < s->pass_count; i++) {
        APPEND("  %-14s %7.2f ms\n", s->pass_names[i] ? s->pass_names[i] : "?", s->pass_gpu_ms[i]);
    }
#undef APPEND
    return n < cap ? n : cap - 1u;
}
