/* frame_pipelines.c: the engine's pipelines as one table of descriptions. A row names its
 * shaders, attachments, fixed-function state, descriptor sets and push-constant size; creation
 * walks the table in order into rill_renderer.pipes. A new pipeline is a name in RILL__PIPES
 * (render_internal.h) and a row here. */
#include "frame.h"

#include <stdlib.h>
#include <string.h>

#include "render_shaders.h"

#define F_RGBA16F RILL_RG_FORMAT_RGBA16F
#define F_RG16F RILL_RG_FORMAT_RG16F

/* Descriptor set layouts shared by several rows. */
#define T RILL__BIND_TEXTURE
#define U RILL__BIND_UNIFORM
#define S RILL__BIND_STORAGE
#define I RILL__BIND_STORAGE_IMAGE
/* 15: the decal pass's image (3 layers); 16: the transmission image; 17: the decal atlas; 18: cloud
 * shadows; 19, 20: the decals and their tile lists for transparent surfaces (pbr_decals.glsl); 21:
 * the decal atlas's sRGB view */
static const rill__set_layout frame_set_full = {
    {U, S, S, T, S, S, T, T, T, T, U, T, T, T, T, T, T, T, T, S, S, T}};
static const rill__set_layout frame_set_min = {{U, S}};
static const rill__set_layout material_set = {
    {U, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T}};
static const rill__set_layout ssao_set = {{U, T, T, I}};
static const rill__set_layout two_in_one_out = {{T, T, I}}; /* ssao blur, bloom up */
static const rill__set_layout one_in_one_out = {{T, I}};    /* bloom down */
static const rill__set_layout ae_set = {{T, S}};
static const rill__set_layout tonemap_set = {{T, I, T, T, T, S}};
static const rill__set_layout taa_set = {{T, T, T, T, I, I}};
static const rill__set_layout fog_set = {{U, T, I, T, U}}; /* + sky view table, sky block */
static const rill__set_layout ssr_hiz_set = {{T, I, I}};
static const rill__set_layout ssr_trace_set = {{U, T, T, T, T, I}};
static const rill__set_layout ssr_resolve_set = {{U, T, T, T, T, T, I, T, T, U, T, T, T, T}};
static const rill__set_layout ssgi_set = {{U, T, T, T, I}};             /* ssgi trace */
static const rill__set_layout ssgi_four_in_set = {{U, T, T, T, T, I}};  /* temporal */
static const rill__set_layout ssgi_apply_set = {{U, T, T, T, T, I, T}}; /* + specular cone */
/* frame, shadows, voxels, lights, cascade out; frame, depth, normal, sky, 4 cascades, out */
static const rill__set_layout vxgi_inject_set = {{U, T, S, S, I}};
static const rill__set_layout vxgi_trace_set = {{U, T, T, T, T, T, T, T, I, I}}; /* + specular */
static const rill__set_layout vxgi_debug_set = {{U, T, T, T, T, T, T, T, I}};
static const rill__set_layout one_out = {{I}};         /* ibl brdf table, cloud shadow map */
static const rill__set_layout out_and_in = {{I, T}};   /* ibl fill: cube out, image in */
static const rill__set_layout image_in_out = {{I, I}}; /* ibl mips, harmonics */
static const rill__set_layout sky_trans_set = {{U, I}};
static const rill__set_layout sky_ms_set = {{U, T, I}};
static const rill__set_layout sky_view_set = {{U, T, T, I}}; /* aerial volume, IBL fill too */
static const rill__set_layout sky_set = {{U, T, T, T, T, T, I, T}}; /* + cloud panorama */
static const rill__set_layout sky_ibl_set = {{U, T, T, I, T}};      /* + cloud panorama */
static const rill__set_layout skybox_set = {{T, T, I}};
/* frame, shadows, harmonics, block, boxes, volume, lights, light clusters, cluster lists,
 * history in, history out, cloud shadow map */
static const rill__set_layout vfog_set = {{U, T, T, U, S, I, S, S, S, T, I, T}};
/* PoolWater (water.c): frame, depth, hdr, boxes, sky, the scene copy */
static const rill__set_layout water_set = {{U, T, I, S, T, T}};
/* Water (ocean.c): spectrum (workspace, block), fft (workspace), maps (workspace, block,
 * displacement, slopes), draw (frame, depth, hdr, block, sky, displacement, slopes) */
static const rill__set_layout ocean_spectrum_set = {{S, S}};
static const rill__set_layout ocean_fft_set = {{S}};
static const rill__set_layout ocean_maps_set = {{S, S, I, I}};
static const rill__set_layout ocean_draw_set = {{U, T, I, S, T, T, T, T}}; /* + the scene copy */
static const rill__set_layout vfog_apply_set = {{T, T, I, U}};             /* volume, depth, hdr */
static const rill__set_layout gpu_cull_set = {{S, S, S, S, S, S, S, S, S, S, S}}; /* gpu_cull.c */
static const rill__set_layout gpu_occlusion_set = {{S, S, S, S, S, S, S, T}}; /* gpu_occlusion.c */
#undef T
#undef U
#undef S
#undef I

/* Fixed-function state of a row, as flags. */
enum {
    P_DEPTH = 1u << 0,       /* a D32F depth attachment, tested LESS_EQUAL, read only */
    P_DEPTH_WRITE = 1u << 1, /* with P_DEPTH: tested LESS and written */
    P_NO_CULL = 1u << 2,     /* double-sided */
    P_BLEND = 1u << 3,       /* alpha blending */
    P_BIAS = 1u << 4,        /* dynamic depth bias (shadows) */
    P_LINES = 1u << 5,       /* line fill: created only when the device has it */
    P_LINE_LIST = 1u << 6,   /* line list topology (edge buffers) */
    P_DEPTH_EQUAL = 1u << 7, /* with P_DEPTH: tested EQUAL (redraws of drawn surfaces) */
    P_ALPHA_ONLY = 1u << 8,  /* colour writes touch alpha only */
    /* Dynamic front face, set per run of draws: mirrored instances (negative determinant) turn
     * their triangles' winding around. For the pipelines that cull back faces or tell front
     * from back faces (gl_FrontFacing: the double-sided ones). */
    P_FRONT_FACE = 1u << 9,
    P_RGB_ONLY = 1u << 10, /* colour writes leave alpha alone */
    P_SUBGROUP = 1u << 11, /* subgroup ballot + arithmetic: created only when the device has them */
};

/* Shaders by reference (their sizes are not constant expressions). */
typedef struct pipe_shaders {
    const uint32_t *code;
    const size_t *size;
} pipe_shaders;

typedef struct pipe_row {
    rill__pipe_id id;
    const char *label;
    pipe_shaders vs, fs, cs;
    uint32_t color_count;
    rill__fmt color[2];
    uint32_t flags; /* P_* */
    const rill__set_layout *set0, *set1;
    uint32_t push_size;
} pipe_row;

#define SPV(name)                                                                                  \
    { rill__spv_##name, &rill__spv_##name##_size }
#define NONE                                                                                       \
    { NULL, NULL }
#define MESH(frag) SPV(mesh_vert), SPV(frag), NONE
#define COMPUTE(name) NONE, NONE, SPV(name)
#define HDR                                                                                        \
    1, {                                                                                           \
        F_RGBA16F                                                                                  \
    }
#define NO_COLOR                                                                                   \
    0, {                                                                                           \
        0                                                                                          \
    }
#define OPAQUE_STATE (P_DEPTH | P_DEPTH_WRITE)

/* clang-format off */
static const pipe_row rows[] = {
    /* id                           label                          shaders                            color outputs                flags                           set 0            set 1          push */
    {RILL__PIPE_PREPASS,        "prepass",                    MESH(prepass_frag),          2, {F_RGBA16F, F_RG16F}, OPAQUE_STATE | P_FRONT_FACE, &frame_set_min,  &material_set, 0},
    {RILL__PIPE_PREPASS_DS,     "prepass (double-sided)",     MESH(prepass_frag),          2, {F_RGBA16F, F_RG16F}, OPAQUE_STATE | P_NO_CULL | P_FRONT_FACE, &frame_set_min,  &material_set, 0},
    {RILL__PIPE_PREPASS_SOLID,  "prepass (solid)",            MESH(prepass_solid_frag),    2, {F_RGBA16F, F_RG16F}, OPAQUE_STATE | P_FRONT_FACE, &frame_set_min,  &material_set, 0},
    {RILL__PIPE_PREPASS_SOLID_DS, "prepass (solid, double-sided)", MESH(prepass_solid_frag), 2, {F_RGBA16F, F_RG16F}, OPAQUE_STATE | P_NO_CULL | P_FRONT_FACE, &frame_set_min,  &material_set, 0},
    {RILL__PIPE_PREPASS_PACK,   "prepass (solid, material)",  MESH(prepass_solid_pack_frag), 2, {F_RGBA16F, F_RG16F}, OPAQUE_STATE | P_FRONT_FACE, &frame_set_min,  &material_set, 0},
    {RILL__PIPE_PREPASS_PACK_DS, "prepass (solid, material, double-sided)", MESH(prepass_solid_pack_frag), 2, {F_RGBA16F, F_RG16F}, OPAQUE_STATE | P_NO_CULL | P_FRONT_FACE, &frame_set_min,  &material_set, 0},
    {RILL__PIPE_OPAQUE,         "opaque",                     MESH(pbr_frag),              HDR,                     P_DEPTH | P_FRONT_FACE, &frame_set_full, &material_set, 0},
    {RILL__PIPE_OPAQUE_DS,      "opaque (double-sided)",      MESH(pbr_frag),              HDR,                     P_DEPTH | P_NO_CULL | P_FRONT_FACE, &frame_set_full, &material_set, 0},
    {RILL__PIPE_TRANSPARENT,    "transparent",                MESH(pbr_frag),              HDR,                     P_DEPTH | P_BLEND | P_FRONT_FACE, &frame_set_full, &material_set, 0},
    {RILL__PIPE_TRANSPARENT_DS, "transparent (double-sided)", MESH(pbr_frag),              HDR,                     P_DEPTH | P_BLEND | P_NO_CULL | P_FRONT_FACE, &frame_set_full, &material_set, 0},
    /* Mixed passthrough: a ghost's blended material draws its colour without alpha, then its
     * alpha (opacity x material alpha) alone, blended over what the pixel had. */
    {RILL__PIPE_TRANSPARENT_RGB, "transparent (colour only)", MESH(pbr_frag),              HDR,                     P_DEPTH | P_BLEND | P_RGB_ONLY | P_FRONT_FACE, &frame_set_full, &material_set, 0},
    {RILL__PIPE_TRANSPARENT_RGB_DS, "transparent (colour only, double-sided)", MESH(pbr_frag), HDR,               P_DEPTH | P_BLEND | P_RGB_ONLY | P_NO_CULL | P_FRONT_FACE, &frame_set_full, &material_set, 0},
    {RILL__PIPE_WIRE,           "wireframe",                  MESH(wire_frag),             HDR,                     P_DEPTH | P_BLEND | P_NO_CULL | P_LINES, &frame_set_min, NULL, 32},
    {RILL__PIPE_WIRE_EDGES,     "wireframe (edges)",          MESH(wire_frag),             HDR,                     P_DEPTH | P_BLEND | P_NO_CULL | P_LINE_LIST, &frame_set_min, NULL, 32},
    {RILL__PIPE_GHOST_ALPHA,    "ghost alpha",                MESH(ghost_alpha_frag),      HDR,                     P_DEPTH | P_DEPTH_EQUAL | P_NO_CULL | P_ALPHA_ONLY, &frame_set_min, NULL, 16},
    {RILL__PIPE_GHOST_BLEND_ALPHA, "ghost blend alpha",       MESH(ghost_blend_alpha_frag), HDR,                    P_DEPTH | P_BLEND | P_ALPHA_ONLY | P_FRONT_FACE, &frame_set_min, &material_set, 16},
    {RILL__PIPE_GHOST_BLEND_ALPHA_DS, "ghost blend alpha (double-sided)", MESH(ghost_blend_alpha_frag), HDR,        P_DEPTH | P_BLEND | P_ALPHA_ONLY | P_NO_CULL | P_FRONT_FACE, &frame_set_min, &material_set, 16},
    /* Shadows: no culling (thin and open meshes cast from both sides), depth only. */
    {RILL__PIPE_SHADOW,         "shadow",                     SPV(shadow_vert), NONE, NONE, NO_COLOR,               OPAQUE_STATE | P_NO_CULL | P_BIAS, &frame_set_min, NULL,        16},
    {RILL__PIPE_SHADOW_MASK,    "shadow (alpha mask)",        SPV(shadow_vert), SPV(shadow_mask_frag), NONE, NO_COLOR, OPAQUE_STATE | P_NO_CULL | P_BIAS, &frame_set_min, &material_set, 16},
    {RILL__PIPE_SSAO,           "ssao",                       COMPUTE(ssao_comp),          NO_COLOR,                0,                              &ssao_set,       NULL,          24},
    {RILL__PIPE_SSAO_BLUR,      "ssao blur",                  COMPUTE(ssao_blur_comp),     NO_COLOR,                0,                              &two_in_one_out, NULL,          8},
    {RILL__PIPE_BLOOM_DOWN,     "bloom down",                 COMPUTE(bloom_down_comp),    NO_COLOR,                0,                              &one_in_one_out, NULL,          16},
    {RILL__PIPE_BLOOM_UP,       "bloom up",                   COMPUTE(bloom_up_comp),      NO_COLOR,                0,                              &two_in_one_out, NULL,          8},
    {RILL__PIPE_AUTO_EXPOSURE,  "auto exposure",              COMPUTE(auto_exposure_comp), NO_COLOR,                0,                              &ae_set,         NULL,          16},
    {RILL__PIPE_TONEMAP,        "tonemapping",                COMPUTE(tonemap_comp),       NO_COLOR,                0,                              &tonemap_set,    NULL,          56},
    /* Anti-aliasing (effects_aa.c). */
    {RILL__PIPE_TAA,            "taa",                        COMPUTE(taa_comp),           NO_COLOR,                0,                              &taa_set,        NULL,          16},
    {RILL__PIPE_FXAA,           "fxaa",                       COMPUTE(fxaa_comp),          NO_COLOR,                0,                              &one_in_one_out, NULL,          16},
    {RILL__PIPE_SMAA_EDGES,     "smaa edges",                 COMPUTE(smaa_edges_comp),    NO_COLOR,                0,                              &one_in_one_out, NULL,          16},
    {RILL__PIPE_SMAA_WEIGHTS,   "smaa weights",               COMPUTE(smaa_weights_comp),  NO_COLOR,                0,                              &one_in_one_out, NULL,          16},
    {RILL__PIPE_SMAA_BLEND,     "smaa blend",                 COMPUTE(smaa_blend_comp),    NO_COLOR,                0,                              &two_in_one_out, NULL,          16},
    {RILL__PIPE_CAS,            "cas",                        COMPUTE(cas_comp),           NO_COLOR,                0,                              &one_in_one_out, NULL,          16},
    /* The world's look (environment.c): distance fog on the lit HDR image. */
    {RILL__PIPE_FOG,            "fog",                        COMPUTE(fog_comp),           NO_COLOR,                0,                              &fog_set,        NULL,          128},
    /* Screen-space reflections (ssr.c). */
    {RILL__PIPE_SSR_HIZ,        "ssr hiz",                    COMPUTE(ssr_hiz_comp),       NO_COLOR,                0,                              &ssr_hiz_set,    NULL,          24},
    {RILL__PIPE_SSR_TRACE,      "ssr trace",                  COMPUTE(ssr_trace_comp),     NO_COLOR,                0,                              &ssr_trace_set,  NULL,          48},
    {RILL__PIPE_SSR_BLUR,       "ssr blur",                   COMPUTE(ssr_blur_comp),      NO_COLOR,                0,                              &image_in_out,   NULL,          16},
    {RILL__PIPE_SSR_RESOLVE,    "ssr resolve",                COMPUTE(ssr_resolve_comp),   NO_COLOR,                0,                              &ssr_resolve_set, NULL,         32},
    /* Image-based light (ibl.c). */
    {RILL__PIPE_IBL_LUT,        "ibl brdf table",             COMPUTE(ibl_lut_comp),       NO_COLOR,                0,                              &one_out,        NULL,          8},
    {RILL__PIPE_IBL_FILL,       "ibl fill",                   COMPUTE(ibl_fill_comp),      NO_COLOR,                0,                              &out_and_in,     NULL,          80},
    {RILL__PIPE_IBL_DOWN,       "ibl mips",                   COMPUTE(ibl_down_comp),      NO_COLOR,                0,                              &image_in_out,   NULL,          4},
    {RILL__PIPE_IBL_SH,         "ibl harmonics",              COMPUTE(ibl_sh_comp),        NO_COLOR,                0,                              &image_in_out,   NULL,          4},
    {RILL__PIPE_IBL_PREFILTER,  "ibl prefilter",              COMPUTE(ibl_prefilter_comp), NO_COLOR,                0,                              &one_in_one_out, NULL,          24},
    /* The physical sky (sky.c). */
    {RILL__PIPE_SKY_TRANSMITTANCE, "sky transmittance",       COMPUTE(sky_transmittance_comp), NO_COLOR,            0,                              &sky_trans_set,  NULL,          0},
    {RILL__PIPE_SKY_MULTISCATTER, "sky multiple scattering",  COMPUTE(sky_multiscatter_comp), NO_COLOR,             0,                              &sky_ms_set,     NULL,          0},
    {RILL__PIPE_SKY_VIEW,       "sky view",                   COMPUTE(sky_view_comp),      NO_COLOR,                0,                              &sky_view_set,   NULL,          0},
    {RILL__PIPE_SKY_AERIAL,     "sky aerial perspective",     COMPUTE(sky_aerial_comp),    NO_COLOR,                0,                              &sky_view_set,   NULL,          80},
    {RILL__PIPE_SKY,            "sky",                        COMPUTE(sky_comp),           NO_COLOR,                0,                              &sky_set,        NULL,          96},
    {RILL__PIPE_SKY_IBL,        "sky ibl source",             COMPUTE(sky_ibl_comp),       NO_COLOR,                0,                              &sky_ibl_set,    NULL,          4},
    {RILL__PIPE_SKYBOX,         "skybox",                     COMPUTE(skybox_comp),        NO_COLOR,                0,                              &skybox_set,     NULL,          96},
    /* Volumetric fog (fog_volume.c). */
    {RILL__PIPE_VFOG,           "volumetric fog",             COMPUTE(vfog_comp),          NO_COLOR,                0,                              &vfog_set,       NULL,          0},
    {RILL__PIPE_CLOUDS,         "clouds",                     COMPUTE(clouds_comp),        NO_COLOR,                0,                              &sky_view_set,   NULL,          48},
    {RILL__PIPE_CLOUDS_SHADOW,  "cloud shadow map",           COMPUTE(clouds_shadow_comp), NO_COLOR,                0,                              &one_out,        NULL,          64},
    {RILL__PIPE_WATER,          "pool water",                 COMPUTE(water_comp),         NO_COLOR,                0,                              &water_set,      NULL,          96},
    {RILL__PIPE_OCEAN_SPECTRUM, "ocean spectrum",             COMPUTE(ocean_spectrum_comp), NO_COLOR,               0,                              &ocean_spectrum_set, NULL,      16},
    {RILL__PIPE_OCEAN_FFT,      "ocean fft",                  COMPUTE(ocean_fft_comp),     NO_COLOR,                0,                              &ocean_fft_set,  NULL,          16},
    {RILL__PIPE_OCEAN_MAPS,     "ocean maps",                 COMPUTE(ocean_maps_comp),    NO_COLOR,                0,                              &ocean_maps_set, NULL,          16},
    {RILL__PIPE_OCEAN_DRAW,     "ocean",                      COMPUTE(ocean_draw_comp),    NO_COLOR,                0,                              &ocean_draw_set, NULL,          96},
    {RILL__PIPE_VFOG_APPLY,     "volumetric fog apply",       COMPUTE(vfog_apply_comp),    NO_COLOR,                0,                              &vfog_apply_set, NULL,          0},
    /* Screen-space global illumination (gi.c): trace, accumulation, composite. */
    {RILL__PIPE_SSGI,           "ssgi",                       COMPUTE(ssgi_comp),          NO_COLOR,                0,                              &ssgi_set,       NULL,          32},
    {RILL__PIPE_SSGI_TEMPORAL,  "ssgi temporal",              COMPUTE(ssgi_temporal_comp), NO_COLOR,                0,                              &ssgi_four_in_set, NULL,        48},
    {RILL__PIPE_SSGI_APPLY,     "ssgi apply",                 COMPUTE(ssgi_apply_comp),    NO_COLOR,                0,                              &ssgi_apply_set, NULL,          32},
    /* Voxel-cone GI (gi_voxel_gpu.c, gi_voxel_trace.c): light, mips, cone trace, debug view. */
    {RILL__PIPE_VXGI_INJECT,    "vxgi inject",                COMPUTE(gi_voxel_inject_comp), NO_COLOR,              0,                              &vxgi_inject_set, NULL,         32},
    {RILL__PIPE_VXGI_MIPS,      "vxgi mips",                  COMPUTE(gi_voxel_mips_comp), NO_COLOR,                0,                              &image_in_out,   NULL,          4},
    {RILL__PIPE_VXGI_TRACE,     "vxgi trace",                 COMPUTE(gi_voxel_trace_comp), NO_COLOR,               0,                              &vxgi_trace_set, NULL,          112},
    {RILL__PIPE_VXGI_DEBUG,     "vxgi debug",                 COMPUTE(gi_voxel_debug_comp), NO_COLOR,               0,                              &vxgi_debug_set, NULL,          80},
    {RILL__PIPE_GPU_CULL,       "gpu cull",                   COMPUTE(gpu_cull_comp),      NO_COLOR,                0,                              &gpu_cull_set,   NULL,          12},
    {RILL__PIPE_GPU_CULL_SUBGROUP, "gpu cull (subgroup appends)", COMPUTE(gpu_cull_subgroup_comp), NO_COLOR,          P_SUBGROUP,                     &gpu_cull_set,   NULL,          12},
    {RILL__PIPE_GPU_OCCLUSION,  "gpu occlusion",              COMPUTE(gpu_occlusion_comp), NO_COLOR,                0,                              &gpu_occlusion_set, NULL,       8},
};
/* clang-format on */

_Static_assert(sizeof(rows) / sizeof(rows[0]) == RILL__PIPE_NUM, "one row per pipeline");

static void row_desc(const pipe_row *row, rill__pipe_desc *d) {
    memset(d, 0, sizeof(*d));
    d->label = row->label;
    d->vs = row->vs.code;
    d->fs = row->fs.code;
    d->cs = row->cs.code;
    d->vs_size = row->vs.size ? *row->vs.size : 0;
    d->fs_size = row->fs.size ? *row->fs.size : 0;
    d->cs_size = row->cs.size ? *row->cs.size : 0;
    d->mesh_vertex_input = row->vs.code != NULL;
    d->color_count = row->color_count;
    for (uint32_t i = 0; i < row->color_count; i++) {
        d->color_formats[i] = row->color[i];
    }
    if (row->flags & P_DEPTH) {
        bool write = (row->flags & P_DEPTH_WRITE) != 0;
        d->depth_format = RILL_RG_FORMAT_D32F;
        d->depth_test = true;
        d->depth_write = write;
        d->depth_cmp = write ? RILL__CMP_LESS : RILL__CMP_LESS_EQUAL;
        if (row->flags & P_DEPTH_EQUAL) {
            d->depth_cmp = RILL__CMP_EQUAL;
        }
    }
    d->cull = (row->flags & P_NO_CULL) ? RILL__CULL_NONE : RILL__CULL_BACK;
    d->blend = (row->flags & P_BLEND) ? RILL__BLEND_ALPHA : RILL__BLEND_NONE;
    d->depth_bias = (row->flags & P_BIAS) != 0;
    d->wireframe = (row->flags & P_LINES) != 0;
    d->line_list = (row->flags & P_LINE_LIST) != 0;
    d->alpha_only = (row->flags & P_ALPHA_ONLY) != 0;
    d->dynamic_front_face = (row->flags & P_FRONT_FACE) != 0;
    d->rgb_only = (row->flags & P_RGB_ONLY) != 0;
    d->set_count = row->set1 ? 2 : 1;
    d->sets[0] = *row->set0;
    if (row->set1) {
        d->sets[1] = *row->set1;
    }
    d->push_size = row->push_size;
}

bool rill__pipeline_desc(rill__pipe_id id, rill__pipe_desc *out) {
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].id == id) {
            row_desc(&rows[i], out);
            return true;
        }
    }
    return false;
}

/* GPU culling's subgroup appends: where the device has subgroup ballot and arithmetic, unless
 * RILL_GPU_CULL_SUBGROUP=0 asks for the per-instance atomics (to compare the two). */
static bool subgroup_appends_wanted(const rill_renderer *r) {
    const char *env = getenv("RILL_GPU_CULL_SUBGROUP");
    if (env && strcmp(env, "0") == 0) {
        return false;
    }
    return rill__gpu_get_caps(r->gpu)->subgroup_ballot_arith;
}

rill_result rill__pipelines_create(rill_renderer *r, rill_error *err) {
    bool lines = rill__gpu_get_caps(r->gpu)->fill_mode_non_solid;
    bool subgroup = subgroup_appends_wanted(r);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const pipe_row *row = &rows[i];
        if ((row->flags & P_LINES) && !lines) {
            continue; /* pipes[WIRE] stays NULL: wireframe instances draw nothing */
        }
        if ((row->flags & P_SUBGROUP) && !subgroup) {
            continue; /* GPU culling appends with one atomic per instance */
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
