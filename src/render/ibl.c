/* ibl.c: image-based light. The active sky is baked, in compute, into what every lit pass reads
 * instead of a constant ambient: a GGX-prefiltered specular cube (face 256 / 128 / 64 by tier,
 * mips down to 4 x 4, roughness = mip / (mips - 1)), diffuse irradiance as order-2 spherical
 * harmonics, and the split-sum BRDF table (128 x 128 RG16F, made once).
 *
 * A bake has seven steps: "ibl.source" fills level 0 of a source cube with the sky's radiance,
 * builds its mip chain and projects it onto the harmonics; then "ibl.face" prefilters one face (all
 * its mips) per frame into the back cube. After the sixth face the back cube and harmonics become
 * the front ones the lit passes read, so a frame never sees a half-baked cube and a moving sun
 * costs one bounded slice a frame. The first bake (and one after a tier change resizes the cubes)
 * runs all seven steps in one frame, so the first frame is lit. A sky that changes during a bake
 * starts the next bake when this one ends: the bake in flight is never restarted, or a sun that
 * keeps turning would never let one finish.
 *
 * Every IBL image is persistent and imported into each frame's graph with the usage the previous
 * frame left it in, so the graph's barriers order bakes against the frames around them. */
#include "frame.h"

#include <math.h>
#include <string.h>

#define LUT_SIZE 128u
#define LUT_SAMPLES 512u
#define SPEC_SAMPLES 64u
#define SH_LEVEL_MAX 32u  /* the harmonics are projected from the first source level this small */
#define SPEC_MIN_SIZE 4u  /* the specular chain's last level */
#define SUN_TURN_DEG 0.1f /* a sun that turns further re-bakes a sky that depends on it */
#define STEPS 7           /* the source, then six faces */

/* What the sky is baked from: compared field by field to decide a re-bake. */
typedef struct ibl_sky {
    uint32_t mode;  /* rill_render_sky_mode */
    uint32_t image; /* texture id, 0 = none */
    uint32_t version;
    uint64_t atmosphere; /* rill__sky_key: the atmosphere's settings and sun light, 0 = none */
    float zenith[3], horizon[3], ground[3];
    float rotation, brightness;
} ibl_sky;

struct rill__ibl {
    rill__img *lut, *source, *spec[2], *sh[2];
    rill_rg_usage lut_use, source_use, spec_use[2], sh_use[2];
    uint32_t front;     /* spec[front] and sh[front] are lit with */
    uint32_t face_size; /* of the cubes now (0 = none yet) */
    uint32_t spec_mips, source_mips;
    bool valid;    /* the front holds a finished bake */
    int step;      /* next bake step, -1 = idle */
    ibl_sky baked; /* the sky of the bake in flight, or of the front when idle */
    ibl_sky want;  /* this frame's sky */
    float sun[3];  /* the sun direction baked with */
    bool have_sun;
    /* This frame's work: steps [step_first, step_end), the cube they write (`target`, which is
     * the front when the bake ends this frame) and the fill's inputs. */
    int step_first, step_end;
    uint32_t target;
    bool lut_now;
    rill__img *image; /* the fill's equirectangular image (white when none) */
    float intensity;
    uint32_t bakes, steps_run;
    /* graph handles of this frame */
    rill_rg_image r_lut, r_source, r_spec, r_sh, r_spec_target, r_sh_target;
};

static uint32_t tier_face(rill_render_quality q) {
    return q == RILL_RENDER_QUALITY_HIGH ? 256u : q == RILL_RENDER_QUALITY_LOW ? 64u : 128u;
}

static uint32_t mip_count(uint32_t size, uint32_t min_size) {
    uint32_t n = 1;
    while (size > min_size) {
        size >>= 1;
        n++;
    }
    return n;
}

rill_result rill__ibl_create(rill_renderer *r, rill_error *err) {
    rill__ibl *ibl = rill_calloc_tagged(1, sizeof(*ibl), RILL_MEM_RENDER);
    if (!ibl) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    r->ibl = ibl;
    ibl->step = -1;
    rill__img_desc d = {.width = LUT_SIZE,
                        .height = LUT_SIZE,
                        .layers = 1,
                        .mips = 1,
                        .format = RILL_RG_FORMAT_RG16F,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                        .label = "ibl brdf table"};
    ibl->lut = rill__img_create(r->gpu, &d, err);
    if (!ibl->lut) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    for (int i = 0; i < 2; i++) {
        rill__img_desc sd = {.width = 9,
                             .height = 1,
                             .layers = 1,
                             .mips = 1,
                             .format = RILL_RG_FORMAT_RGBA16F,
                             .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                             .label = i ? "ibl harmonics 1" : "ibl harmonics 0"};
        ibl->sh[i] = rill__img_create(r->gpu, &sd, err);
        if (!ibl->sh[i]) {
            return err ? err->code : RILL_ERR_VULKAN;
        }
    }
    ibl->lut_now = true;
    return RILL_OK;
}

static void destroy_cubes(rill_renderer *r, rill__ibl *ibl) {
    rill__img_destroy(r->gpu, ibl->source);
    rill__img_destroy(r->gpu, ibl->spec[0]);
    rill__img_destroy(r->gpu, ibl->spec[1]);
    ibl->source = ibl->spec[0] = ibl->spec[1] = NULL;
    ibl->face_size = 0;
    ibl->valid = false;
}

void rill__ibl_destroy(rill_renderer *r) {
    rill__ibl *ibl = r->ibl;
    if (!ibl) {
        return;
    }
    destroy_cubes(r, ibl);
    rill__img_destroy(r->gpu, ibl->lut);
    rill__img_destroy(r->gpu, ibl->sh[0]);
    rill__img_destroy(r->gpu, ibl->sh[1]);
    rill_free(ibl);
    r->ibl = NULL;
}

/* (Re)creates the source and the two specular cubes at `size`; on failure IBL stays off. */
static bool make_cubes(rill_renderer *r, rill__ibl *ibl, uint32_t size) {
    destroy_cubes(r, ibl);
    rill_error err = {0};
    uint32_t usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE | RILL__IMG_CUBE;
    rill__img_desc sd = {.width = size,
                         .height = size,
                         .layers = 6,
                         .mips = mip_count(size, 1),
                         .format = RILL_RG_FORMAT_RGBA16F,
                         .usage = usage,
                         .label = "ibl source"};
    ibl->source = rill__img_create(r->gpu, &sd, &err);
    for (int i = 0; i < 2 && ibl->source; i++) {
        rill__img_desc pd = {.width = size,
                             .height = size,
                             .layers = 6,
                             .mips = mip_count(size, SPEC_MIN_SIZE),
                             .format = RILL_RG_FORMAT_RGBA16F,
                             .usage = usage,
                             .label = i ? "ibl specular 1" : "ibl specular 0"};
        ibl->spec[i] = rill__img_create(r->gpu, &pd, &err);
        if (!ibl->spec[i]) {
            break;
        }
    }
    if (!ibl->source || !ibl->spec[1]) {
        RILL_LOG_WARN("render", "image-based light off: %s", err.msg);
        destroy_cubes(r, ibl);
        return false;
    }
    ibl->face_size = size;
    ibl->source_mips = sd.mips;
    ibl->spec_mips = mip_count(size, SPEC_MIN_SIZE);
    ibl->source_use = ibl->spec_use[0] = ibl->spec_use[1] = RILL_RG_USAGE_NONE;
    ibl->sh_use[0] = ibl->sh_use[1] = RILL_RG_USAGE_NONE;
    return true;
}

static float finite_or(float v, float fallback) {
    return isfinite(v) ? v : fallback;
}

/* The sky this snapshot asks for. The colour gradient (sky mode `color`): the ambient colour at
 * the zenith, 0.7 of it at the horizon and 0.35 of it below (the hemisphere the constant ambient
 * used to be); an image when one is set; the atmosphere when the frame shows one. */
static void sky_of(const rill_renderer *r, const rill_render_snapshot *snap, ibl_sky *out) {
    const rill_render_environment *e = &snap->environment;
    memset(out, 0, sizeof(*out));
    out->mode = (uint32_t)e->mode;
    for (int k = 0; k < 3; k++) {
        float a = RILL_CLAMP(finite_or(snap->ambient[k], 0.0f), 0.0f, 65000.0f);
        out->zenith[k] = a;
        out->horizon[k] = a * 0.7f;
        out->ground[k] = a * 0.35f;
    }
    int32_t ti = e->image.id ? rill_pool_index(&r->tex_pool, e->image.id) : -1;
    if (ti >= 0 && rill__img_ready(r->textures[ti].img)) {
        out->image = e->image.id;
        out->rotation = finite_or(e->rotation, 0.0f);
        out->brightness = RILL_CLAMP(finite_or(e->brightness, 0.0f), 0.0f, 65000.0f);
    }
    out->version = e->version;
    /* A frame showing the physical atmosphere bakes it (sky.c fills the source from its tables). */
    out->atmosphere = rill__sky_key(r);
    rill_texture box;
    float turn, bright;
    if (rill__envmap_get(r, &box, &turn, &bright)) { /* an EnvironmentMapLight wins over the sky */
        out->mode = RILL_RENDER_SKY_SKYBOX;
        out->atmosphere = 0;
        out->image = box.id;
        out->rotation = turn;
        out->brightness = bright;
    } else if (out->atmosphere) {
        out->mode = RILL_RENDER_SKY_ATMOSPHERE;
        out->image = 0;
    } else if (rill__skybox_get(r, &box, &turn, &bright)) { /* a Skybox component's image */
        out->mode = RILL_RENDER_SKY_SKYBOX;
        out->image = box.id;
        out->rotation = turn;
        out->brightness = RILL_CLAMP(finite_or(bright, 0.0f), 0.0f, 65000.0f);
    } else if (out->mode == RILL_RENDER_SKY_ATMOSPHERE) {
        out->mode = RILL_RENDER_SKY_COLOR; /* no atmosphere resolved: the gradient */
    }
}

static bool sun_turned(const rill__ibl *ibl, const rill_render_snapshot *snap) {
    if (snap->has_sun != ibl->have_sun) {
        return true;
    }
    if (!snap->has_sun) {
        return false;
    }
    const float *d = snap->sun.direction, *b = ibl->sun;
    float la = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    float lb = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (!(la > 0.0f) || !(lb > 0.0f) || !isfinite(la)) {
        return false;
    }
    float c = (d[0] * b[0] + d[1] * b[1] + d[2] * b[2]) / (la * lb);
    return c < cosf(SUN_TURN_DEG * 3.14159265f / 180.0f);
}

/* Whether this frame's sky differs from the one last baked (or being baked). Only an atmosphere
 * depends on where the sun is; a colour or an image does not. */
static bool sky_changed(const rill__ibl *ibl, const rill_render_snapshot *snap) {
    if (memcmp(&ibl->want, &ibl->baked, sizeof(ibl_sky)) != 0) {
        return true;
    }
    return ibl->want.mode == RILL_RENDER_SKY_ATMOSPHERE && sun_turned(ibl, snap);
}

static void start_bake(rill__ibl *ibl, const rill_render_snapshot *snap) {
    ibl->baked = ibl->want;
    ibl->have_sun = snap->has_sun;
    memcpy(ibl->sun, snap->sun.direction, sizeof(ibl->sun));
    ibl->step = 0;
}

rill_result rill__ibl_plan(rill_renderer *r, const rill_render_snapshot *snap, rill_error *err) {
    rill__ibl *ibl = r->ibl;
    ibl->step_first = ibl->step_end = 0;
    const rill_render_environment *e = &snap->environment;
    float k = e->intensity_set ? finite_or(e->intensity, 0.0f) : 1.0f;
    ibl->intensity = RILL_CLAMP(k, 0.0f, 1000.0f);
    sky_of(r, snap, &ibl->want);
    uint32_t size = tier_face(r->desc.quality);
    if (ibl->face_size != size && !make_cubes(r, ibl, size)) {
        return rill_error_set(err, RILL_ERR_VULKAN, "render: no memory for the %ux%u IBL cubes",
                              size, size);
    }
    if (!ibl->valid) {
        start_bake(ibl, snap); /* nothing to light with yet: the whole bake in this frame */
        ibl->step_end = STEPS;
    } else {
        /* A sky that changes during a bake is baked again once this bake ends (want differs from
         * baked then): restarting would never finish under a sun that keeps turning. */
        if (ibl->step < 0 && sky_changed(ibl, snap)) {
            start_bake(ibl, snap);
        }
        if (ibl->step >= 0) {
            ibl->step_first = ibl->step;
            ibl->step_end = ibl->step + 1;
        }
    }
    ibl->target = ibl->front ^ 1u;
    if (ibl->step_end > ibl->step_first) {
        int32_t ti = ibl->baked.image ? rill_pool_index(&r->tex_pool, ibl->baked.image) : -1;
        ibl->image =
            ti >= 0 && rill__img_ready(r->textures[ti].img) ? r->textures[ti].img : r->white;
        if (ibl->image == r->white) {
            ibl->baked.image = 0; /* destroyed since: the gradient */
        }
        ibl->steps_run += (uint32_t)(ibl->step_end - ibl->step_first);
        ibl->step = ibl->step_end;
        if (ibl->step_end == STEPS) { /* done: lit with from this frame on */
            ibl->front = ibl->target;
            ibl->valid = true;
            ibl->bakes++;
            ibl->step = -1;
        }
    }
    return RILL_OK;
}

/* Imports img as name: *use is what the previous frame left it in and becomes `final`, what this
 * frame leaves it in. */
static rill_result import(rill_rg *g, const char *name, rill__img *img, rill_rg_usage *use,
                          rill_rg_usage final, rill_rg_image *out, rill_error *err) {
    const rill__img_desc *id = rill__img_get_desc(img);
    rill_rg_image_desc d;
    memset(&d, 0, sizeof(d));
    d.format = id->format;
    d.size_mode = RILL_RG_SIZE_ABSOLUTE;
    d.width = id->width;
    d.height = id->height;
    d.layers = id->layers;
    d.mips = id->mips;
    *out = rill_rg_import_image(g, name, &d, img, *use, final, err);
    if (!out->id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    *use = final;
    return RILL_OK;
}

static rill_rg_pass add_pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, void *user,
                             rill_error *err) {
    /* Read by later frames: never culled. */
    rill_rg_pass_desc d = {.label = label, .exec = fn, .user = user, .side_effect = true};
    return rill_rg_add_pass(g, &d, err);
}

static void pass_lut(rill_rg_ctx *ctx, void *user);
static void pass_source(rill_rg_ctx *ctx, void *user);
static void pass_faces(rill_rg_ctx *ctx, void *user);

static const char *const spec_name[2] = {"ibl.specular0", "ibl.specular1"};
static const char *const sh_name[2] = {"ibl.sh0", "ibl.sh1"};

rill_result rill__ibl_add_passes(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__ibl *ibl = r->ibl;
    const rill_rg_usage lit = RILL_RG_USAGE_SAMPLED_FRAGMENT, wr = RILL_RG_USAGE_STORAGE_WRITE;
    const rill_rg_usage cs = RILL_RG_USAGE_SAMPLED_COMPUTE;
    RILL_TRY(import(g, "ibl.lut", ibl->lut, &ibl->lut_use, lit, &ibl->r_lut, err));
    if (ibl->lut_now) {
        rill_rg_pass p = add_pass(g, "ibl.lut", pass_lut, r, err);
        RILL_TRY(rill_rg_use_image(g, p, ibl->r_lut, wr, err));
        ibl->lut_now = false;
    }
    uint32_t f = ibl->front, t = ibl->target;
    bool source = ibl->step_first == 0 && ibl->step_end > 0;
    bool faces = ibl->step_end > 1;
    /* The front cube and harmonics, which the lit passes read (written first when the bake ends
     * this frame: t == f). */
    RILL_TRY(import(g, spec_name[f], ibl->spec[f], &ibl->spec_use[f], lit, &ibl->r_spec, err));
    RILL_TRY(import(g, sh_name[f], ibl->sh[f], &ibl->sh_use[f], lit, &ibl->r_sh, err));
    ibl->r_spec_target = ibl->r_spec;
    ibl->r_sh_target = ibl->r_sh;
    if (t != f && faces) {
        RILL_TRY(
            import(g, spec_name[t], ibl->spec[t], &ibl->spec_use[t], wr, &ibl->r_spec_target, err));
    }
    if (t != f && source) {
        RILL_TRY(import(g, sh_name[t], ibl->sh[t], &ibl->sh_use[t], wr, &ibl->r_sh_target, err));
    }
    if (source || faces) {
        RILL_TRY(import(g, "ibl.source", ibl->source, &ibl->source_use, faces ? cs : wr,
                        &ibl->r_source, err));
    }
    if (source) {
        rill_rg_pass p = add_pass(g, "ibl.source", pass_source, r, err);
        RILL_TRY(rill_rg_use_image(g, p, ibl->r_source, wr, err));
        if (ibl->baked.mode == RILL_RENDER_SKY_ATMOSPHERE) {
            RILL_TRY(rill__sky_access(r, g, p, err));
            RILL_TRY(rill__clouds_access(r, g, p, err));
        }
        RILL_TRY(rill_rg_use_image(g, p, ibl->r_sh_target, wr, err));
    }
    if (faces) {
        rill_rg_pass p = add_pass(g, "ibl.face", pass_faces, r, err);
        RILL_TRY(rill_rg_use_image(g, p, ibl->r_source, cs, err));
        RILL_TRY(rill_rg_use_image(g, p, ibl->r_spec_target, wr, err));
    }
    return RILL_OK;
}

rill_result rill__ibl_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass, rill_error *err) {
    rill__ibl *ibl = r->ibl;
    const rill_rg_usage lit = RILL_RG_USAGE_SAMPLED_FRAGMENT;
    RILL_TRY(rill_rg_use_image(g, pass, ibl->r_lut, lit, err));
    RILL_TRY(rill_rg_use_image(g, pass, ibl->r_spec, lit, err));
    return rill_rg_use_image(g, pass, ibl->r_sh, lit, err);
}

rill_result rill__ibl_access_compute(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                     rill_error *err) {
    rill__ibl *ibl = r->ibl;
    const rill_rg_usage use = RILL_RG_USAGE_SAMPLED_COMPUTE;
    RILL_TRY(rill_rg_use_image(g, pass, ibl->r_lut, use, err));
    return rill_rg_use_image(g, pass, ibl->r_spec, use, err);
}

rill_result rill__ibl_access_sh_compute(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                        rill_error *err) {
    return rill_rg_use_image(g, pass, r->ibl->r_sh, RILL_RG_USAGE_SAMPLED_COMPUTE, err);
}

void rill__ibl_bindings(const rill_renderer *r, rill__binding out[3]) {
    const rill__ibl *ibl = r->ibl;
    memset(out, 0, 3 * sizeof(*out));
    out[0].img = ibl->spec[ibl->front];
    out[0].layer = -1;
    out[0].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    out[1].img = ibl->lut;
    out[1].layer = -1;
    out[1].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    out[2].img = ibl->sh[ibl->front];
    out[2].layer = -1;
    out[2].sampler = RILL__SAMPLER_NEAREST_CLAMP;
}

void rill__ibl_frame_consts(const rill_renderer *r, float out[4]) {
    const rill__ibl *ibl = r->ibl;
    out[0] = ibl->intensity;
    out[1] = (float)(ibl->spec_mips ? ibl->spec_mips - 1 : 0);
    out[2] = out[3] = 0.0f;
}

void rill__ibl_stats(const rill_renderer *r, uint32_t *out_bakes, uint32_t *out_steps,
                     uint32_t *out_face) {
    const rill__ibl *ibl = r->ibl;
    *out_bakes = ibl ? ibl->bakes : 0;
    *out_steps = ibl ? ibl->steps_run : 0;
    *out_face = ibl ? ibl->face_size : 0;
}

/* >>recording ------------------------------------------------------------------------------- */

static void bind_level(rill__binding *b, rill__img *img, uint32_t level) {
    b->img = img;
    b->layer = -1;
    b->one_level = true;
    b->level = level;
}

static uint32_t groups(uint32_t n) {
    return (n + 7u) / 8u;
}

static void pass_lut(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__binding b;
    memset(&b, 0, sizeof(b));
    b.img = rill__ctx_img(ctx, r->ibl->r_lut);
    b.layer = -1;
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_IBL_LUT]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, &b, 1);
    uint32_t push[2] = {LUT_SIZE, LUT_SAMPLES};
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, groups(LUT_SIZE), groups(LUT_SIZE), 1);
}

/* The fill's push constants (ibl_fill.comp). */
typedef struct fill_push {
    float zenith[4], horizon[4], ground[4], rot[4];
    uint32_t size[4];
} fill_push;

/* Level 0 of the source from the sky, its mip chain, and the harmonics of its first level of at
 * most SH_LEVEL_MAX texels. */
static void pass_source(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__ibl *ibl = r->ibl;
    rill__cmd *cmd = ctx->cmd;
    rill__img *src = rill__ctx_img(ctx, ibl->r_source);
    fill_push fp;
    memset(&fp, 0, sizeof(fp));
    memcpy(fp.zenith, ibl->baked.zenith, sizeof(float) * 3);
    memcpy(fp.horizon, ibl->baked.horizon, sizeof(float) * 3);
    memcpy(fp.ground, ibl->baked.ground, sizeof(float) * 3);
    fp.rot[0] = cosf(ibl->baked.rotation);
    fp.rot[1] = sinf(ibl->baked.rotation);
    fp.rot[2] = ibl->baked.brightness;
    fp.rot[3] = ibl->baked.image ? 1.0f : 0.0f;
    fp.size[0] = ibl->face_size;
    fp.size[1] = rill__img_get_desc(ibl->image)->mips;
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    bind_level(&b[0], src, 0);
    b[1].img = ibl->image;
    b[1].layer = -1;
    /* Around (u) the image repeats; at the poles (v) it stops at its first and last rows. */
    rill__sampler_desc sd = {.wrap_u = 0, .wrap_v = 1};
    b[1].sampler = rill__sampler_material(r->gpu, &sd, NULL);
    if (ibl->baked.mode == RILL_RENDER_SKY_ATMOSPHERE) {
        rill__sky_ibl_fill(ctx, r, src, ibl->face_size);
    } else {
        rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_IBL_FILL]);
        rill__cmd_bind_transient_set(cmd, 0, b, 2);
        rill__cmd_push(cmd, &fp, sizeof(fp));
        rill__cmd_dispatch(cmd, groups(ibl->face_size), groups(ibl->face_size), 6);
    }
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_IBL_DOWN]);
    uint32_t sh_level = 0;
    for (uint32_t m = 1; m < ibl->source_mips; m++) {
        uint32_t size = RILL_MAX(ibl->face_size >> m, 1u);
        if ((ibl->face_size >> (m - 1)) > SH_LEVEL_MAX) {
            sh_level = m;
        }
        rill__cmd_compute_barrier(cmd);
        memset(b, 0, sizeof(b));
        bind_level(&b[0], src, m - 1);
        bind_level(&b[1], src, m);
        rill__cmd_bind_transient_set(cmd, 0, b, 2);
        rill__cmd_push(cmd, &size, sizeof(size));
        rill__cmd_dispatch(cmd, groups(size), groups(size), 6);
    }
    rill__cmd_compute_barrier(cmd);
    memset(b, 0, sizeof(b));
    bind_level(&b[0], src, sh_level);
    b[1].img = rill__ctx_img(ctx, ibl->r_sh_target);
    b[1].layer = -1;
    uint32_t sh_size = RILL_MAX(ibl->face_size >> sh_level, 1u);
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_IBL_SH]);
    rill__cmd_bind_transient_set(cmd, 0, b, 2);
    rill__cmd_push(cmd, &sh_size, sizeof(sh_size));
    rill__cmd_dispatch(cmd, 1, 1, 1);
}

/* The prefilter's push constants (ibl_prefilter.comp). */
typedef struct face_push {
    uint32_t face, size, src_size, src_mips;
    float rough;
    uint32_t samples;
} face_push;

/* Every level of the faces of this frame's steps (step s >= 1 is face s - 1). */
static void pass_faces(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__ibl *ibl = r->ibl;
    rill__cmd *cmd = ctx->cmd;
    rill__img *src = rill__ctx_img(ctx, ibl->r_source);
    rill__img *dst = rill__ctx_img(ctx, ibl->r_spec_target);
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_IBL_PREFILTER]);
    int first = RILL_MAX(ibl->step_first, 1);
    for (int s = first; s < ibl->step_end; s++) {
        for (uint32_t m = 0; m < ibl->spec_mips; m++) {
            rill__binding b[2];
            memset(b, 0, sizeof(b));
            b[0].img = src;
            b[0].layer = -1;
            b[0].sampler = RILL__SAMPLER_LINEAR_CLAMP;
            bind_level(&b[1], dst, m);
            face_push fp = {
                (uint32_t)(s - 1), RILL_MAX(ibl->face_size >> m, 1u),      ibl->face_size,
                ibl->source_mips,  (float)m / (float)(ibl->spec_mips - 1), SPEC_SAMPLES};
            rill__cmd_bind_transient_set(cmd, 0, b, 2);
            rill__cmd_push(cmd, &fp, sizeof(fp));
            rill__cmd_dispatch(cmd, groups(fp.size), groups(fp.size), 1);
        }
    }
}

/* >>for reflection probes ------------------------------------------------------------------- */

void rill__ibl_record_fill(rill_renderer *r, rill__cmd *cmd, rill__img *cube, rill__img *image,
                           float brightness) {
    const rill__img_desc *cd = rill__img_get_desc(cube);
    fill_push fp;
    memset(&fp, 0, sizeof(fp));
    fp.rot[0] = 1.0f;
    fp.rot[2] = brightness;
    fp.rot[3] = 1.0f;
    fp.size[0] = cd->width;
    fp.size[1] = rill__img_get_desc(image)->mips;
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    bind_level(&b[0], cube, 0);
    b[1].img = image;
    b[1].layer = -1;
    b[1].sampler = RILL__SAMPLER_LINEAR_REPEAT;
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_IBL_FILL]);
    rill__cmd_bind_transient_set(cmd, 0, b, 2);
    rill__cmd_push(cmd, &fp, sizeof(fp));
    rill__cmd_dispatch(cmd, groups(cd->width), groups(cd->width), 6);
    rill__ibl_record_mips(r, cmd, cube);
}

void rill__ibl_record_mips(rill_renderer *r, rill__cmd *cmd, rill__img *cube) {
    const rill__img_desc *cd = rill__img_get_desc(cube);
    rill__binding b[2];
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_IBL_DOWN]);
    for (uint32_t m = 1; m < cd->mips; m++) {
        uint32_t size = RILL_MAX(cd->width >> m, 1u);
        rill__cmd_compute_barrier(cmd);
        memset(b, 0, sizeof(b));
        bind_level(&b[0], cube, m - 1);
        bind_level(&b[1], cube, m);
        rill__cmd_bind_transient_set(cmd, 0, b, 2);
        rill__cmd_push(cmd, &size, sizeof(size));
        rill__cmd_dispatch(cmd, groups(size), groups(size), 6);
    }
}

void rill__ibl_record_prefilter(rill_renderer *r, rill__cmd *cmd, rill__img *source,
                                rill__img *spec) {
    const rill__img_desc *sd = rill__img_get_desc(source), *pd = rill__img_get_desc(spec);
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_IBL_PREFILTER]);
    for (uint32_t face = 0; face < 6; face++) {
        for (uint32_t m = 0; m < pd->mips; m++) {
            rill__binding b[2];
            memset(b, 0, sizeof(b));
            b[0].img = source;
            b[0].layer = -1;
            b[0].sampler = RILL__SAMPLER_LINEAR_CLAMP;
            bind_level(&b[1], spec, m);
            float rough = pd->mips > 1 ? (float)m / (float)(pd->mips - 1) : 0.0f;
            face_push fp = {face,        RILL_MAX(pd->width >> m, 1u), sd->width, sd->mips, rough,
                            SPEC_SAMPLES};
            rill__cmd_bind_transient_set(cmd, 0, b, 2);
            rill__cmd_push(cmd, &fp, sizeof(fp));
            rill__cmd_dispatch(cmd, groups(fp.size), groups(fp.size), 1);
        }
    }
}
