/* msaa.c: multisample anti-aliasing (Msaa, rill/render/msaa.h). It registers the Msaa and
 * OrderIndependentTransparency settings components, decides each view's sample count (its routed
 * Msaa, off while OIT is enabled for the camera, within what the device draws), makes the
 * multisampled pipeline variants (one table per sample count, on first use), the view's
 * multisampled images and the `msaa_resolve` pass. The depth-only `prepass_msaa` and the opaque
 * pass's multisampled attachments are recorded in frame_passes.c. */
#include "rill/render/msaa.h"
#include "frame.h"

#include <stddef.h>
#include <string.h>

/* The rows drawn into multisampled images: the prepass's (depth only, no colour outputs) and the
 * opaque pass's. */
static const rill__pipe_id ms_ids[] = {RILL__PIPE_PREPASS,       RILL__PIPE_PREPASS_DS,
                                       RILL__PIPE_PREPASS_SOLID, RILL__PIPE_PREPASS_SOLID_DS,
                                       RILL__PIPE_OPAQUE,        RILL__PIPE_OPAQUE_DS,
                                       RILL__PIPE_GHOST_ALPHA};

#define MS_COUNTS 3 /* 2, 4, 8 samples */

typedef struct rill__msaa {
    rill__pipe *pipes[MS_COUNTS][RILL__PIPE_NUM]; /* [log2(samples) - 1][id]; others NULL */
    bool made[MS_COUNTS], failed[MS_COUNTS];
    uint32_t said_device; /* bit n: a request for n samples the device lacks was logged */
    rill__warned warned;  /* Msaa.samples replaced, by entity */
    /* Cameras OIT holds at one sample: last frame's and this frame's (warned when new). */
    uint64_t frame;
    rill_entity forced[2][RILL_RENDER_MAX_VIEWS];
    uint32_t nforced[2];
} rill__msaa;

/* >>components ------------------------------------------------------------------------------ */

static const rill_enum_item sample_items[] = {{"Off", RILL_MSAA_OFF},
                                              {"Sample2", RILL_MSAA_SAMPLE2},
                                              {"Sample4", RILL_MSAA_SAMPLE4},
                                              {"Sample8", RILL_MSAA_SAMPLE8}};
static const rill_field msaa_fields[] = {
    {.name = "samples",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_render_msaa, samples),
     .enum_items = sample_items,
     .enum_count = 4,
     .doc = "samples per pixel of the opaque pass: Off, Sample2, Sample4 (default), Sample8"},
};

static const uint32_t u_layers = 8;
static const bool b_true = true;
static const rill_field oit_fields[] = {
    {.name = "layer_count",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_render_oit, layer_count),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = RILL_RENDER_OIT_MAX_LAYERS,
     .default_value = &u_layers,
     .doc = "transparent fragments kept per pixel (1..16); later ones are dropped"},
    {.name = "alpha_threshold",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_oit, alpha_threshold),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0,
     .max = 1,
     .doc = "fragments with a lower alpha are not stored (0..1)"},
    {.name = "enabled",
     .type = RILL_FIELD_BOOL,
     .offset = offsetof(rill_render_oit, enabled),
     .default_value = &b_true,
     .doc = "on: transparent surfaces sorted per pixel; turns the camera's Msaa off"},
};

rill_result rill__msaa_register(rill_world *w, rill_render_components *out, rill_error *err) {
    static const rill_render_msaa msaa_default = {RILL_MSAA_SAMPLE4};
    static const rill_render_oit oit_default = {8, 0.0f, true};
    const rill_type_desc d[2] = {
        {.name = "Msaa",
         RILL_TYPE_LAYOUT(rill_render_msaa),
         RILL_FIELDS(msaa_fields),
         .defaults = &msaa_default,
         .doc = "multisample anti-aliasing of the opaque pass, routed to cameras (off without "
                "it; off while OrderIndependentTransparency is enabled)"},
        {.name = "OrderIndependentTransparency",
         RILL_TYPE_LAYOUT(rill_render_oit),
         RILL_FIELDS(oit_fields),
         .defaults = &oit_default,
         .doc = "transparent surfaces stored in per-pixel layers and blended in depth order, "
                "routed to cameras"},
    };
    return rill__render_settings_ensure(w, d, 2, out, NULL, err);
}

const void *rill__routed_settings(const rill_render_view *v, const char *type, uint32_t size,
                                  rill_entity *out_source) {
    for (uint32_t i = 0; v && v->settings && i < v->settings_count; i++) {
        const rill_render_routed_settings *s = &v->settings[i];
        if (s->type && s->data && s->size == size && strcmp(s->type, type) == 0) {
            if (out_source) {
                *out_source = s->source;
            }
            return s->data;
        }
    }
    return NULL;
}

/* >>lifetime -------------------------------------------------------------------------------- */

rill_result rill__msaa_create(rill_renderer *r, rill_error *err) {
    r->msaa = rill_calloc_tagged(1, sizeof(rill__msaa), RILL_MEM_RENDER);
    return r->msaa ? RILL_OK
                   : rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (msaa)");
}

void rill__msaa_destroy(rill_renderer *r) {
    rill__msaa *m = r->msaa;
    if (!m) {
        return;
    }
    for (int k = 0; k < MS_COUNTS; k++) {
        for (uint32_t i = 0; i < RILL__PIPE_NUM; i++) {
            rill__pipe_destroy(r->gpu, m->pipes[k][i]);
        }
    }
    rill_free(m);
    r->msaa = NULL;
}

/* >>planning -------------------------------------------------------------------------------- */

static uint32_t count_index(uint32_t samples) {
    return samples >= 8 ? 2u : samples >= 4 ? 1u : 0u;
}

static bool is_prepass(rill__pipe_id id) {
    return id == RILL__PIPE_PREPASS || id == RILL__PIPE_PREPASS_DS ||
           id == RILL__PIPE_PREPASS_SOLID || id == RILL__PIPE_PREPASS_SOLID_DS;
}

/* The pipelines for `samples` (made once; false: they could not be, said once). */
static bool make_pipes(rill_renderer *r, rill__msaa *m, uint32_t samples) {
    uint32_t k = count_index(samples);
    if (m->made[k] || m->failed[k]) {
        return m->made[k];
    }
    for (size_t i = 0; i < RILL_COUNTOF(ms_ids); i++) {
        rill__pipe_id id = ms_ids[i];
        rill__pipe_desc d;
        if (!r->pipes[id] || !rill__pipeline_desc(id, &d)) {
            continue;
        }
        d.samples = samples;
        if (is_prepass(id)) {
            d.color_count = 0; /* depth only: the normals and motion stay single-sampled */
        }
        rill_error e = {0};
        m->pipes[k][id] = rill__pipe_create(r->gpu, &d, &e);
        if (!m->pipes[k][id]) {
            RILL_LOG_ERROR("render",
                           "Msaa: the %ux pipeline '%s' could not be made (%s); drawing "
                           "without MSAA",
                           samples, d.label, e.msg);
            m->failed[k] = true;
            return false;
        }
    }
    m->made[k] = true;
    return true;
}

/* A routed Msaa.samples as 1, 2, 4 or 8: other values become the power of two below (at most
 * 8, at least 1) with one warning naming the entity. */
static uint32_t valid_samples(rill__msaa *m, int32_t s, rill_entity source) {
    uint32_t n = s >= 8 ? 8u : s >= 4 ? 4u : s >= 2 ? 2u : 1u;
    if ((int64_t)n != (int64_t)s) {
        rill__fix_src fs = {&m->warned, "Msaa", source};
        rill__fix_warn(&fs, "samples", (double)s, (double)n);
    }
    return n;
}

/* n lowered to the largest count the device draws (logged once per n). */
static uint32_t device_samples(rill_renderer *r, rill__msaa *m, uint32_t n) {
    uint32_t counts = rill__gpu_get_caps(r->gpu)->msaa_counts | 1u, k = n;
    while (k > 1 && !(counts & k)) {
        k >>= 1;
    }
    if (k != n && !(m->said_device & n)) {
        m->said_device |= n;
        RILL_LOG_WARN("render", "Msaa: this device cannot draw %u samples per pixel; using %u%s", n,
                      k, k == 1 ? " (no MSAA)" : "");
    }
    return k;
}

/* Notes that OIT holds camera `cam` at one sample this frame (warned the first frame of a run). */
static void note_forced(rill_renderer *r, rill__msaa *m, rill_entity cam, uint32_t samples) {
    uint64_t frame = rill__gpu_frame_index(r->gpu);
    if (frame != m->frame) {
        memcpy(m->forced[0], m->forced[1], sizeof(m->forced[0]));
        m->nforced[0] = m->nforced[1];
        m->nforced[1] = 0;
        m->frame = frame;
    }
    for (uint32_t j = 0; j < 2; j++) {
        for (uint32_t i = 0; i < m->nforced[j]; i++) {
            if (m->forced[j][i] == cam) {
                if (j == 0 && m->nforced[1] < RILL_RENDER_MAX_VIEWS) {
                    m->forced[1][m->nforced[1]++] = cam;
                }
                return;
            }
        }
    }
    RILL_LOG_WARN("render",
                  "camera entity %u:%u: OrderIndependentTransparency is enabled, so its Msaa (%u "
                  "samples) is off until OIT is disabled",
                  RILL_ENTITY_INDEX(cam), RILL_ENTITY_GENERATION(cam), samples);
    if (m->nforced[1] < RILL_RENDER_MAX_VIEWS) {
        m->forced[1][m->nforced[1]++] = cam;
    }
}

void rill__msaa_plan_view(rill_renderer *r, rill__view *vs) {
    vs->msaa = 1;
    rill__msaa *m = r->msaa;
    if (!m || !vs->view) {
        return;
    }
    rill_entity src = 0;
    const rill_render_msaa *ms =
        rill__routed_settings(vs->view, "Msaa", sizeof(rill_render_msaa), &src);
    uint32_t want = ms ? valid_samples(m, (int32_t)ms->samples, src) : 1u;
    if (want > 1 && rill__oit_enabled(vs->view)) {
        note_forced(r, m, vs->view->camera, want);
        return;
    }
    uint32_t n = want > 1 ? device_samples(r, m, want) : 1u;
    vs->msaa = n > 1 && make_pipes(r, m, n) ? n : 1u;
}

rill__pipe *const *rill__msaa_pipes(const rill_renderer *r, const rill__view *vs) {
    if (vs->msaa < 2 || !r->msaa) {
        return r->pipes;
    }
    return r->msaa->pipes[count_index(vs->msaa)];
}

/* >>graph ----------------------------------------------------------------------------------- */

void rill__msaa_add_images(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err) {
    if (vs->msaa < 2) {
        return;
    }
    rill_rg_image_desc d = {
        .format = RILL_RG_FORMAT_D32F, .scale = r->render_scale, .samples = vs->msaa};
    vs->res.depth_ms = rill_rg_create_image(g, "depth_ms", &d, err);
    d.format = RILL_RG_FORMAT_RGBA16F;
    vs->res.hdr_ms = rill_rg_create_image(g, "hdr_ms", &d, err);
}

static void pass_resolve(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__cmd_resolve(ctx->cmd, rill__ctx_img(ctx, vs->res.hdr_ms),
                      rill__ctx_img(ctx, vs->res.hdr));
}

rill_result rill__msaa_add_resolve(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass *out,
                                   rill_error *err) {
    (void)r;
    rill_rg_pass_desc d = {.label = "msaa_resolve", .exec = pass_resolve, .user = vs};
    rill_rg_pass p = *out = rill_rg_add_pass(g, &d, err);
    RILL_TRY(rill_rg_use_image(g, p, vs->res.hdr_ms, RILL_RG_USAGE_TRANSFER_SRC, err));
    return rill_rg_use_image(g, p, vs->res.hdr, RILL_RG_USAGE_TRANSFER_DST, err);
}
