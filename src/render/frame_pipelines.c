/* frame_pipelines.c: the engine's pipelines as one table of descriptions. A row names its
 * shaders, attachments, fixed-function state, descriptor sets and push-constant size; creation
 * walks the table in order into rill_renderer.pipes. A new pipeline is a name in RILL__PIPES
 * (render_internal.h) and a row here. */
#include "frame.h"

#include <string.h>

#include "render_shaders.h"

#define F_RGBA16F RILL_RG_FORMAT_RGBA16F
#define F_RG16F RILL_RG_FORMAT_RG16F

/* Descriptor set layouts shared by several rows. */
#define T RILL__BIND_TEXTURE
#define U RILL__BIND_UNIFORM
#define S RILL__BIND_STORAGE
#define I RILL__BIND_STORAGE_IMAGE
static const rill__set_layout frame_set_full = {{U, S, S, T, S, S, T}};
static const rill__set_layout frame_set_min = {{U, S}};
static const rill__set_layout material_set = {{U, T, T, T, T, T}};
static const rill__set_layout ssao_set = {{U, T, T, I}};
static const rill__set_layout two_in_one_out = {{T, T, I}}; /* ssao blur, bloom up */
static const rill__set_layout one_in_one_out = {{T, I}};    /* bloom down */
static const rill__set_layout ae_set = {{T, S}};
static const rill__set_layout tonemap_set = {{T, I, T, T, T, S}};
#undef T
#undef U
#undef S
#undef I

/* One row: shaders by reference (their sizes are not constant expressions). */
typedef struct pipe_row {
    rill__pipe_id id;
    const char *label;
    const uint32_t *vs, *fs, *cs;
    const size_t *vs_size, *fs_size, *cs_size;
    uint32_t color_count;
    rill__fmt color[2];
    bool depth;        /* a D32F depth attachment */
    bool depth_write;  /* with depth: LESS and write; else LESS_EQUAL, read only */
    bool double_sided; /* no culling */
    bool blend;        /* alpha blending */
    bool depth_bias;   /* dynamic depth bias (shadows) */
    bool wireframe;    /* line fill: created only when the device has it */
    const rill__set_layout *set0, *set1;
    uint32_t push_size;
} pipe_row;

#define MESH_VS rill__spv_mesh_vert, NULL, NULL, &rill__spv_mesh_vert_size, NULL, NULL
#define MESH(frag)                                                                                 \
    rill__spv_mesh_vert, rill__spv_##frag, NULL, &rill__spv_mesh_vert_size,                        \
        &rill__spv_##frag##_size, NULL
#define COMPUTE(name) NULL, NULL, rill__spv_##name, NULL, NULL, &rill__spv_##name##_size

static const pipe_row rows[] = {
    {RILL__PIPE_PREPASS,
     "prepass",
     MESH(prepass_frag),
     2,
     {F_RGBA16F, F_RG16F},
     true,
     true,
     false,
     false,
     false,
     false,
     &frame_set_min,
     &material_set,
     0},
    {RILL__PIPE_PREPASS_DS,
     "prepass (double-sided)",
     MESH(prepass_frag),
     2,
     {F_RGBA16F, F_RG16F},
     true,
     true,
     true,
     false,
     false,
     false,
     &frame_set_min,
     &material_set,
     0},
    {RILL__PIPE_OPAQUE,
     "opaque",
     MESH(pbr_frag),
     1,
     {F_RGBA16F},
     true,
     false,
     false,
     false,
     false,
     false,
     &frame_set_full,
     &material_set,
     0},
    {RILL__PIPE_OPAQUE_DS,
     "opaque (double-sided)",
     MESH(pbr_frag),
     1,
     {F_RGBA16F},
     true,
     false,
     true,
     false,
     false,
     false,
     &frame_set_full,
     &material_set,
     0},
    {RILL__PIPE_TRANSPARENT,
     "transparent",
     MESH(pbr_frag),
     1,
     {F_RGBA16F},
     true,
     false,
     false,
     true,
     false,
     false,
     &frame_set_full,
     &material_set,
     0},
    {RILL__PIPE_TRANSPARENT_DS,
     "transparent (double-sided)",
     MESH(pbr_frag),
     1,
     {F_RGBA16F},
     true,
     false,
     true,
     true,
     false,
     false,
     &frame_set_full,
     &material_set,
     0},
    {RILL__PIPE_WIRE,
     "wireframe",
     MESH(wire_frag),
     1,
     {F_RGBA16F},
     true,
     false,
     true,
     true,
     false,
     true,
     &frame_set_min,
     NULL,
     32},
    /* Shadows: no culling (thin and open meshes cast from both sides), depth only. */
    {RILL__PIPE_SHADOW,
     "shadow",
     rill__spv_shadow_vert,
     NULL,
     NULL,
     &rill__spv_shadow_vert_size,
     NULL,
     NULL,
     0,
     {0},
     true,
     true,
     true,
     false,
     true,
     false,
     &frame_set_min,
     NULL,
     16},
    {RILL__PIPE_SHADOW_MASK,
     "shadow (alpha mask)",
     rill__spv_shadow_vert,
     rill__spv_shadow_mask_frag,
     NULL,
     &rill__spv_shadow_vert_size,
     &rill__spv_shadow_mask_frag_size,
     NULL,
     0,
     {0},
     true,
     true,
     true,
     false,
     true,
     false,
     &frame_set_min,
     &material_set,
     16},
    {RILL__PIPE_SSAO,
     "ssao",
     COMPUTE(ssao_comp),
     0,
     {0},
     false,
     false,
     false,
     false,
     false,
     false,
     &ssao_set,
     NULL,
     24},
    {RILL__PIPE_SSAO_BLUR,
     "ssao blur",
     COMPUTE(ssao_blur_comp),
     0,
     {0},
     false,
     false,
     false,
     false,
     false,
     false,
     &two_in_one_out,
     NULL,
     8},
    {RILL__PIPE_BLOOM_DOWN,
     "bloom down",
     COMPUTE(bloom_down_comp),
     0,
     {0},
     false,
     false,
     false,
     false,
     false,
     false,
     &one_in_one_out,
     NULL,
     16},
    {RILL__PIPE_BLOOM_UP,
     "bloom up",
     COMPUTE(bloom_up_comp),
     0,
     {0},
     false,
     false,
     false,
     false,
     false,
     false,
     &two_in_one_out,
     NULL,
     8},
    {RILL__PIPE_AUTO_EXPOSURE,
     "auto exposure",
     COMPUTE(auto_exposure_comp),
     0,
     {0},
     false,
     false,
     false,
     false,
     false,
     false,
     &ae_set,
     NULL,
     16},
    {RILL__PIPE_TONEMAP,
     "tonemapping",
     COMPUTE(tonemap_comp),
     0,
     {0},
     false,
     false,
     false,
     false,
     false,
     false,
     &tonemap_set,
     NULL,
     52},
};

_Static_assert(sizeof(rows) / sizeof(rows[0]) == RILL__PIPE_NUM, "one row per pipeline");

static void row_desc(const pipe_row *row, rill__pipe_desc *d) {
    memset(d, 0, sizeof(*d));
    d->label = row->label;
    d->vs = row->vs;
    d->fs = row->fs;
    d->cs = row->cs;
    d->vs_size = row->vs_size ? *row->vs_size : 0;
    d->fs_size = row->fs_size ? *row->fs_size : 0;
    d->cs_size = row->cs_size ? *row->cs_size : 0;
    d->mesh_vertex_input = row->vs != NULL;
    d->color_count = row->color_count;
    for (uint32_t i = 0; i < row->color_count; i++) {
        d->color_formats[i] = row->color[i];
    }
    if (row->depth) {
        d->depth_format = RILL_RG_FORMAT_D32F;
        d->depth_test = true;
        d->depth_write = row->depth_write;
        d->depth_cmp = row->depth_write ? RILL__CMP_LESS : RILL__CMP_LESS_EQUAL;
    }
    d->cull = row->double_sided ? RILL__CULL_NONE : RILL__CULL_BACK;
    d->blend = row->blend ? RILL__BLEND_ALPHA : RILL__BLEND_NONE;
    d->depth_bias = row->depth_bias;
    d->wireframe = row->wireframe;
    d->set_count = row->set1 ? 2 : 1;
    d->sets[0] = *row->set0;
    if (row->set1) {
        d->sets[1] = *row->set1;
    }
    d->push_size = row->push_size;
}

rill_result rill__pipelines_create(rill_renderer *r, rill_error *err) {
    bool lines = rill__gpu_get_caps(r->gpu)->fill_mode_non_solid;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const pipe_row *row = &rows[i];
        if (row->wireframe && !lines) {
            continue; /* pipes[WIRE] stays NULL: wireframe instances draw nothing */
        }
        rill__pipe_desc d;
        row_desc(row, &d);
        r->pipes[row->id] = rill__pipe_create(r->gpu, &d, err);
        if (!r->pipes[row->id]) {
            return err ? err->code : RILL_ERR_VULKAN;
        }
    }
    return RILL_OK;
}

void rill__pipelines_destroy(rill_renderer *r) {
    for (uint32_t i = 0; i < RILL__PIPE_NUM; i++) {
        rill__pipe_destroy(r->gpu, r->pipes[i]);
        r->pipes[i] = NULL;
    }
}
