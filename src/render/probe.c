/* probe.c: reflection probes on the GPU (rill/render/reflections.h, ON REFLECTION PROBES). One
 * entry per source file: read (through the snapshot's VFS, else the file system) and decoded the
 * first time a probe names it (an equirectangular image or a .rmip cube, rill_env_image_decode),
 * uploaded as an equirectangular RGBA16F image, then baked, one entry a
 * frame, with the image-based light's own passes (ibl.c): "probe.source" fills a scratch cube
 * and its mips, "probe.filter" prefilters it (GGX) into the entry's 256 x 256 RGBA16F cube. A file
 * that cannot be read or decoded is reported once, naming it and the entity, and its probes stay
 * inert. Each frame the ready probes nearest the camera (at most RILL_RENDER_MAX_SHADED_PROBES)
 * are described in a uniform block the lit passes and the SSR resolve read (probes.glsl). */
#include "frame.h"
#include "rill/asset.h"
#include "rill/formats/rmip_cube.h"
#include "rill/render/reflections.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROBE_FACE 256u
#define PROBE_SPEC_MIN 4u
#define MAX_ENTRIES 64u
#define PROBE_VEC4S 6u     /* per probe in the uniform block (probes.glsl) */
#define UNUSED_FRAMES 300u /* an entry no probe named for this long is freed */

typedef enum entry_state { ENTRY_WAIT, ENTRY_READY, ENTRY_FAILED } entry_state;

typedef struct probe_entry {
    char *path;
    entry_state state;
    rill__img *equirect; /* until baked */
    bool capture;        /* a capture source: the scene rendered at eye */
    float eye[3];
    rill__img *spec;
    rill_rg_usage spec_use;
    rill_rg_image r_spec; /* this frame's handle, {0} when not imported */
    uint64_t last_used;   /* rill_renderer.frame_counter when a probe last named it */
} probe_entry;

/* The uniform block (probes.glsl): count, then PROBE_VEC4S vec4 per shaded probe. */
typedef struct probe_ubo {
    uint32_t count[4];
    float data[RILL_RENDER_MAX_SHADED_PROBES * PROBE_VEC4S][4];
} probe_ubo;

struct rill__probes {
    RILL_ARRAY(probe_entry) entries;
    rill__img *source; /* the bakes' scratch cube (full mip chain) */
    rill_rg_usage source_use;
    int bake;                                       /* entry baked this frame, -1 none */
    uint32_t shaded[RILL_RENDER_MAX_SHADED_PROBES]; /* entries */
    uint32_t shaded_n;
    probe_ubo ubo;
    rill__buf *ubo_buf;
    uint64_t ubo_off;
    rill_rg_image r_source;
    bool bake_capture; /* the entry baked this frame is a capture (its passes follow the views) */
    uint32_t bakes;
    bool warned_full;
};

/* >>lifetime -------------------------------------------------------------------------------- */

static struct rill__probes *probes_of(rill_renderer *r) {
    if (!r->probes) {
        r->probes = rill_calloc_tagged(1, sizeof(*r->probes), RILL_MEM_RENDER);
    }
    return r->probes;
}

void rill__probes_destroy(rill_renderer *r) {
    struct rill__probes *p = r->probes;
    if (!p) {
        return;
    }
    for (uint32_t i = 0; i < p->entries.len; i++) {
        probe_entry *e = &p->entries.data[i];
        rill__img_destroy(r->gpu, e->equirect);
        rill__img_destroy(r->gpu, e->spec);
        rill_free(e->path);
    }
    rill_array_free(&p->entries);
    rill__img_destroy(r->gpu, p->source);
    rill_free(p);
    r->probes = NULL;
}

/* >>loading --------------------------------------------------------------------------------- */

/* Reads and decodes path (an equirectangular image or a .rmip cube, rill_env_image_decode) into
 * a GPU image (uploading, RGBA16F); NULL with err set. */
static rill__img *load_equirect(rill_renderer *r, struct rill_vfs *vfs, const char *path,
                                rill_error *err) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    rill_result res;
    if (vfs) {
        res = rill_vfs_read_all(vfs, path, &bytes, &size, err);
    } else {
        res = rill_file_read_all(path, &bytes, &size, err);
    }
    if (res != RILL_OK) {
        return NULL;
    }
    rill_image im;
    res = rill_env_image_decode(bytes, size, path, &im, err);
    rill_free(bytes);
    if (res != RILL_OK) {
        return NULL;
    }
    size_t n = (size_t)im.width * im.height * 4u;
    uint16_t *half = rill_malloc_tagged(n * sizeof(uint16_t), RILL_MEM_RENDER);
    const float *f = im.pixels;
    for (size_t i = 0; half && i < n; i++) {
        half[i] = rill_f32_to_f16(f[i]); /* finite, in [0, 65000]: the decoder's */
    }
    rill__img *img = NULL;
    if (half) {
        rill__img_desc d = {.width = im.width,
                            .height = im.height,
                            .layers = 1,
                            .mips = 1,
                            .format = RILL_RG_FORMAT_RGBA16F,
                            .usage = RILL__IMG_SAMPLED | RILL__IMG_TRANSFER_DST,
                            .label = "probe source image"};
        img = rill__img_create(r->gpu, &d, err);
        if (img && rill__img_upload(r->gpu, img, half, n * sizeof(uint16_t), err) != RILL_OK) {
            rill__img_destroy(r->gpu, img);
            img = NULL;
        }
    } else {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    rill_free(half);
    rill_image_free(&im);
    return img;
}

/* The entry of path, made (and its file read) when new; NULL when the table is full. */
static probe_entry *entry_for(rill_renderer *r, const rill_render_snapshot *snap,
                              const rill_render_probe *probe) {
    struct rill__probes *p = r->probes;
    char key[64];
    const char *path = probe->source;
    if (probe->capture) { /* one cube per probe entity and capture_version */
        snprintf(key, sizeof(key), "capture:%u:%u:%u", RILL_ENTITY_INDEX(probe->entity),
                 RILL_ENTITY_GENERATION(probe->entity), probe->capture_version);
        path = key;
    }
    for (uint32_t i = 0; i < p->entries.len; i++) {
        if (strcmp(p->entries.data[i].path, path) == 0) {
            return &p->entries.data[i];
        }
    }
    if (p->entries.len >= MAX_ENTRIES) {
        if (!p->warned_full) {
            p->warned_full = true;
            RILL_LOG_WARN("render",
                          "reflection probe of entity %u:%u: more than %u probe sources "
                          "in use; '%s' is not loaded",
                          RILL_ENTITY_INDEX(probe->entity), RILL_ENTITY_GENERATION(probe->entity),
                          MAX_ENTRIES, path);
        }
        return NULL;
    }
    probe_entry e;
    memset(&e, 0, sizeof(e));
    e.path = rill_strdup(path);
    if (!e.path || !rill_array_push(&p->entries, e)) {
        rill_free(e.path);
        return NULL;
    }
    probe_entry *ne = &p->entries.data[p->entries.len - 1];
    rill_error err = {0};
    ne->capture = probe->capture;
    memcpy(ne->eye, &probe->world_from_probe[12], sizeof(ne->eye));
    ne->equirect = probe->capture ? NULL : load_equirect(r, snap->probe_vfs, probe->source, &err);
    if (ne->equirect || ne->capture) {
        rill__img_desc cd = {.width = PROBE_FACE,
                             .height = PROBE_FACE,
                             .layers = 6,
                             .format = RILL_RG_FORMAT_RGBA16F,
                             .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE | RILL__IMG_CUBE,
                             .label = "probe cube"};
        uint32_t mips = 1;
        for (uint32_t s = PROBE_FACE; s > PROBE_SPEC_MIN; s >>= 1) {
            mips++;
        }
        cd.mips = mips;
        ne->spec = rill__img_create(r->gpu, &cd, &err);
    }
    if ((!ne->equirect && !ne->capture) || !ne->spec) {
        ne->state = ENTRY_FAILED;
        RILL_LOG_WARN("render",
                      "reflection probe of entity %u:%u: source '%s' not usable (%s); "
                      "the probe stays inert",
                      RILL_ENTITY_INDEX(probe->entity), RILL_ENTITY_GENERATION(probe->entity), path,
                      err.msg[0] ? err.msg : "no memory");
        rill__img_destroy(r->gpu, ne->equirect);
        ne->equirect = NULL;
    }
    return ne;
}

/* >>planning -------------------------------------------------------------------------------- */

static float finite_in(float v, float lo, float hi, float def) {
    return !isfinite(v) ? def : v < lo ? lo : v > hi ? hi : v;
}

/* Distance from point c to probe q's box (0 inside), and its axes and half extents. */
static float box_distance(const rill_render_probe *q, const float c[3], float axes[3][3],
                          float half[3]) {
    const float *m = q->world_from_probe;
    float d2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        float len =
            sqrtf(m[k * 4] * m[k * 4] + m[k * 4 + 1] * m[k * 4 + 1] + m[k * 4 + 2] * m[k * 4 + 2]);
        len = isfinite(len) && len > 1e-6f ? len : 1e-6f;
        half[k] = 0.5f * len;
        float along = 0.0f;
        for (int j = 0; j < 3; j++) {
            axes[k][j] = m[k * 4 + j] / len;
            along += (c[j] - m[12 + j]) * axes[k][j];
        }
        float out = fabsf(along) - half[k];
        d2 += out > 0.0f ? out * out : 0.0f;
    }
    return sqrtf(d2);
}

/* Writes shaded probe slot s from snapshot probe q. */
static void fill_slot(probe_ubo *u, uint32_t s, const rill_render_probe *q, float mips) {
    float axes[3][3], half[3], zero[3] = {0, 0, 0};
    box_distance(q, zero, axes, half);
    float(*v)[4] = &u->data[s * PROBE_VEC4S];
    memcpy(v[0], &q->world_from_probe[12], sizeof(float) * 3);
    v[0][3] = finite_in(q->falloff, 0.0f, 1.0f, 0.1f);
    for (int k = 0; k < 3; k++) {
        memcpy(v[1 + k], axes[k], sizeof(float) * 3);
        v[1 + k][3] = half[k];
    }
    bool custom = q->parallax == RILL_PARALLAX_CUSTOM;
    for (int k = 0; k < 3; k++) {
        v[4][k] = custom ? finite_in(q->half_extents[k], 0.01f, 1e5f, 1.0f) : half[k];
    }
    v[4][3] = q->parallax == RILL_PARALLAX_NONE ? 0.0f : 1.0f;
    v[5][0] = finite_in(q->intensity, 0.0f, 1000.0f, 1.0f);
    v[5][1] = mips - 1.0f;
    v[5][2] = v[5][3] = 0.0f;
}

rill_result rill__probes_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                              rill_error *err) {
    struct rill__probes *p = probes_of(r);
    if (!p) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (probes)");
    }
    p->bake = -1;
    p->bake_capture = false;
    p->shaded_n = 0;
    /* Sources no probe named for a while give their cubes back (deferred past the GPU's use). */
    for (uint32_t i = 0; i < p->entries.len;) {
        probe_entry *e = &p->entries.data[i];
        e->r_spec = (rill_rg_image){0};
        if (e->last_used + UNUSED_FRAMES < r->frame_counter) {
            rill__img_destroy(r->gpu, e->equirect);
            rill__img_destroy(r->gpu, e->spec);
            rill_free(e->path);
            rill_array_swap_remove(&p->entries, i);
            continue;
        }
        i++;
    }
    /* The nearest ready probes (insertion by distance), and one waiting upload baked. */
    const float *eye = &snap->view.world_from_view[12];
    float best_d[RILL_RENDER_MAX_SHADED_PROBES];
    uint32_t best_q[RILL_RENDER_MAX_SHADED_PROBES];
    uint32_t n = 0;
    for (uint32_t i = 0; snap->probes && i < snap->probe_count; i++) {
        const rill_render_probe *q = &snap->probes[i];
        if (!q->source && !q->capture) {
            continue;
        }
        probe_entry *e = entry_for(r, snap, q);
        if (e) {
            e->last_used = r->frame_counter;
        }
        if (!e || e->state == ENTRY_FAILED) {
            continue;
        }
        uint32_t ei = (uint32_t)(e - p->entries.data);
        if (e->state == ENTRY_WAIT && e->capture) {
            /* Faces drawn by this frame's views and blitted after them; baked (and shaded from
             * the next frame) once the last face is drawn (add_bake). */
            if (p->bake < 0 && rill__capture_request(r, e->path, e->eye) != RILL__CAPTURE_WAIT) {
                p->bake = (int)ei;
                p->bake_capture = true;
            }
            continue;
        }
        if (e->state == ENTRY_WAIT) {
            /* A capture under way holds the scratch cube: its faces so far are in it. */
            if (p->bake >= 0 || rill__capture_busy(r) || !rill__img_ready(e->equirect)) {
                continue;
            }
            p->bake = (int)ei; /* baked before this frame's lit passes read it */
            e->state = ENTRY_READY;
        }
        if (p->bake_capture && (int)ei == p->bake) {
            continue; /* being captured this frame */
        }
        float axes[3][3], half[3];
        float d = box_distance(q, eye, axes, half);
        uint32_t at = n < RILL_RENDER_MAX_SHADED_PROBES ? n++ : n;
        while (at > 0 && best_d[at - 1] > d) {
            if (at < RILL_RENDER_MAX_SHADED_PROBES) {
                best_d[at] = best_d[at - 1];
                best_q[at] = best_q[at - 1];
            }
            at--;
        }
        if (at < RILL_RENDER_MAX_SHADED_PROBES) {
            best_d[at] = d;
            best_q[at] = i;
        }
    }
    if (!p->bake_capture && rill__capture_busy(r)) {
        rill__capture_abandon(r); /* its probe is gone (or its entry): the cube is free again */
    }
    memset(&p->ubo, 0, sizeof(p->ubo));
    for (uint32_t s = 0; s < n; s++) {
        const rill_render_probe *q = &snap->probes[best_q[s]];
        probe_entry *e = entry_for(r, snap, q);
        p->shaded[s] = (uint32_t)(e - p->entries.data);
        fill_slot(&p->ubo, s, q, (float)rill__img_get_desc(e->spec)->mips);
    }
    p->shaded_n = n;
    p->ubo.count[0] = n;
    void *dst = rill__frame_alloc(cmd, sizeof(p->ubo), 256, &p->ubo_buf, &p->ubo_off);
    if (!dst) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: frame arena full (probes)");
    }
    memcpy(dst, &p->ubo, sizeof(p->ubo));
    return RILL_OK;
}

/* >>graph ----------------------------------------------------------------------------------- */

static rill_result import(rill_rg *g, const char *name, rill__img *img, rill_rg_usage *use,
                          rill_rg_usage final, rill_rg_image *out, rill_error *err) {
    const rill__img_desc *id = rill__img_get_desc(img);
    rill_rg_image_desc d = {.format = id->format,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = id->width,
                            .height = id->height,
                            .layers = id->layers,
                            .mips = id->mips};
    *out = rill_rg_import_image(g, name, &d, img, *use, final, err);
    if (!out->id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    *use = final;
    return RILL_OK;
}

static void pass_source(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    struct rill__probes *p = r->probes;
    probe_entry *e = &p->entries.data[p->bake];
    rill__ibl_record_fill(r, ctx->cmd, rill__ctx_img(ctx, p->r_source), e->equirect, 1.0f);
}

static void pass_filter(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    struct rill__probes *p = r->probes;
    probe_entry *e = &p->entries.data[p->bake];
    rill__ibl_record_prefilter(r, ctx->cmd, rill__ctx_img(ctx, p->r_source),
                               rill__ctx_img(ctx, e->r_spec));
    rill__img_destroy(r->gpu, e->equirect); /* deferred past this frame */
    e->equirect = NULL;
    p->bakes++;
}

static void pass_capture_mips(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__ibl_record_mips(r, ctx->cmd, rill__ctx_img(ctx, r->probes->r_source));
}

static rill_result add_bake(rill_renderer *r, rill_rg *g, bool shaded, rill_error *err) {
    struct rill__probes *p = r->probes;
    probe_entry *e = &p->entries.data[p->bake];
    const rill_rg_usage wr = RILL_RG_USAGE_STORAGE_WRITE, cs = RILL_RG_USAGE_SAMPLED_COMPUTE;
    if (!p->source) {
        rill__img_desc d = {.width = PROBE_FACE,
                            .height = PROBE_FACE,
                            .layers = 6,
                            .mips = 9,
                            .format = RILL_RG_FORMAT_RGBA16F,
                            .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE | RILL__IMG_CUBE |
                                     RILL__IMG_TRANSFER_DST,
                            .label = "probe bake source"};
        p->source = rill__img_create(r->gpu, &d, err);
        if (!p->source) {
            return err ? err->code : RILL_ERR_VULKAN;
        }
        p->source_use = RILL_RG_USAGE_NONE;
    }
    RILL_TRY(import(g, "probe.source", p->source, &p->source_use, cs, &p->r_source, err));
    rill_rg_pass_desc d = {
        .label = "probe.source", .exec = pass_source, .user = r, .side_effect = true};
    if (p->bake_capture) { /* this frame's faces onto level 0; once all six are, the mips */
        bool last = false;
        RILL_TRY(rill__capture_add_pass(r, g, p->r_source, &last, err));
        if (!last) {
            return RILL_OK;
        }
        e->state = ENTRY_READY; /* shaded from the next frame */
        d.label = "probe.capture_mips";
        d.exec = pass_capture_mips;
    }
    if (!shaded) {
        RILL_TRY(import(g, "probe.cube", e->spec, &e->spec_use, wr, &e->r_spec, err));
    }
    rill_rg_pass ps = rill_rg_add_pass(g, &d, err);
    RILL_TRY(rill_rg_use_image(g, ps, p->r_source, wr, err));
    d.label = "probe.filter";
    d.exec = pass_filter;
    rill_rg_pass pf = rill_rg_add_pass(g, &d, err);
    RILL_TRY(rill_rg_use_image(g, pf, p->r_source, cs, err));
    return rill_rg_use_image(g, pf, e->r_spec, wr, err);
}

rill_result rill__probes_add_passes(rill_renderer *r, rill_rg *g, rill_error *err) {
    struct rill__probes *p = r->probes;
    bool bake_shaded = false;
    for (uint32_t s = 0; s < p->shaded_n; s++) {
        probe_entry *e = &p->entries.data[p->shaded[s]];
        char name[32];
        snprintf(name, sizeof(name), "probe.cube%u", p->shaded[s]);
        RILL_TRY(import(g, name, e->spec, &e->spec_use, RILL_RG_USAGE_SAMPLED_FRAGMENT, &e->r_spec,
                        err));
        bake_shaded |= (int)p->shaded[s] == p->bake;
    }
    return p->bake >= 0 && !p->bake_capture ? add_bake(r, g, bake_shaded, err) : RILL_OK;
}

rill_result rill__probes_add_capture_passes(rill_renderer *r, rill_rg *g, rill_error *err) {
    struct rill__probes *p = r->probes;
    return p && p->bake >= 0 && p->bake_capture ? add_bake(r, g, false, err) : RILL_OK;
}

rill_result rill__probes_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                rill_rg_usage usage, rill_error *err) {
    struct rill__probes *p = r->probes;
    for (uint32_t s = 0; p && s < p->shaded_n; s++) {
        RILL_TRY(rill_rg_use_image(g, pass, p->entries.data[p->shaded[s]].r_spec, usage, err));
    }
    return RILL_OK;
}

void rill__probes_bindings(const rill_renderer *r, rill__binding out[5]) {
    const struct rill__probes *p = r->probes;
    rill__binding ibl[3];
    rill__ibl_bindings(r, ibl);
    memset(out, 0, 5 * sizeof(*out));
    out[0].buf = p->ubo_buf; /* this frame's (rill__probes_plan), count 0 without probes */
    out[0].offset = p->ubo_off;
    out[0].range = sizeof(probe_ubo);
    for (uint32_t s = 0; s < RILL_RENDER_MAX_SHADED_PROBES; s++) {
        out[1 + s] = ibl[0];
        if (s < p->shaded_n) {
            out[1 + s].img = p->entries.data[p->shaded[s]].spec;
        }
    }
}

void rill__probes_stats(const rill_renderer *r, uint32_t *out_shaded, uint32_t *out_bakes,
                        uint32_t *out_failed, uint32_t *out_waiting) {
    const struct rill__probes *p = r->probes;
    *out_shaded = p ? p->shaded_n : 0;
    *out_bakes = p ? p->bakes : 0;
    *out_failed = *out_waiting = 0;
    for (uint32_t i = 0; p && i < p->entries.len; i++) {
        *out_failed += p->entries.data[i].state == ENTRY_FAILED;
        *out_waiting += p->entries.data[i].state == ENTRY_WAIT;
    }
}
