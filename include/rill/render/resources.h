/* rill/render/resources.h: meshes, textures and materials (part of rill/render.h).
 *
 * The vertex layout, mesh descriptions (edges, shared indices, skins, morph targets, vertex
 * colours), procedural meshes, textures (RGBA8, prepared .rmip levels, render textures, atomic
 * replacement for texture streaming) and metallic-roughness / terrain materials.
 */
#ifndef RILL_RENDER_RESOURCES_H
#define RILL_RENDER_RESOURCES_H

#include "rill/base.h"
#include "rill/channels.h"
#include "rill/formats/rmip.h"
#include "rill/render/renderer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The vertex layout meshes use: 48 bytes. tangent.w is the bitangent sign; a zero tangent makes
 * the shader derive one from screen-space derivatives. */
typedef struct rill_vertex {
    float position[3];
    float normal[3];
    float uv[2];
    float tangent[4];
} rill_vertex;

/* The skin weights of one vertex of a skinned mesh (rill_mesh_desc.skin): four joint indices into
 * the joint matrices an instance is drawn with (rill_render_skin) and their weights, which should
 * sum to 1. 24 bytes. */
typedef struct rill_vertex_skin {
    uint16_t joints[4];
    float weights[4];
} rill_vertex_skin;

/* Mesh description: vertices and 32-bit indices (copied; the caller keeps ownership). An edge
 * buffer (optional; rill/formats/edges.h, a glTF primitive's RILL_mesh_edges) is a line list over
 * the same vertices: the wireframe pass draws it as lines, and a mesh without one as polygon-mode
 * lines over its triangles. A merged (batched) mesh keeps its parts' edges by offsetting each
 * part's edge indices by the part's first vertex, as its triangle indices are.
 * share_indices: a live mesh whose index buffer this mesh draws with instead of uploading its own
 * (many meshes with one topology, e.g. terrain chunks of one resolution): indices is then ignored,
 * index_count must be 0 or that mesh's count, and vertex_count must cover its largest index. The
 * mesh also draws that mesh's edge buffer (edge_indices must then be empty): a grid's edges, like
 * its triangles, depend only on its resolution. Both buffers live until the last mesh using them
 * is destroyed.
 * A mesh keeps a CPU copy of its positions and triangle indices (12 bytes a vertex and 4 an index)
 * so that picking hits MeshInstance entities exactly (rill_render_mesh_triangles); gpu_only skips
 * it, for meshes picked another way (glTF models through their asset, terrain chunks through the
 * heights) or never. A mesh sharing the indices of a gpu_only mesh keeps no copy either. */
typedef struct rill_mesh_desc {
    uint32_t start_canary; /* must be 0 */
    const rill_vertex *vertices;
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count; /* a multiple of 3 */
    const char *label;
    const uint32_t *edge_indices; /* NULL = no edge buffer */
    uint32_t edge_index_count;    /* a multiple of 2 */
    rill_mesh share_indices;
    bool gpu_only; /* keep no CPU copy of the triangles (see below) */
    /* vertex_count skin weights (copied), NULL = a rigid mesh. An instance of a skinned mesh that
     * the snapshot gives joint matrices (rill_render_snapshot.skins) is skinned on the GPU before
     * any pass draws it; without them it draws in its rest pose. */
    const rill_vertex_skin *skin;
    /* Morph targets (copied), 0 = none: per vertex, each target's position (and, when
     * morph_normals is set, normal) displacement, vertex-major: vertex v's target t at
     * [(v * morph_target_count + t) * 3]. An instance given weights (rill_render_skin) is
     * displaced by sum_t weight_t * delta_t (before skinning) on the GPU; without them it draws
     * undisplaced. At most 256 targets. */
    uint32_t morph_target_count;
    const float *morph_positions;
    const float *morph_normals;
    /* Per-vertex extras (copied; NULL = none): colors, RGBA per vertex in [0, 1] (clamped; kept
     * at 16 bits each), multiplied into the material's base colour and alpha (glTF COLOR_0);
     * uv1, a second UV set that texture slots with uv_sets[slot] 1 sample (glTF TEXCOORD_1). A
     * mesh without colors draws white, one without uv1 samples (0, 0) there. A mesh with extras
     * keeps buffers of its own (static batching leaves it out). */
    const float *colors;
    const float *uv1;
    uint32_t end_canary; /* must be 0 */
} rill_mesh_desc;

/* Creates a mesh: validates the indices (and edge indices), copies the data and queues the upload
 * (drawable once uploaded). Returns {0} with err set on bad input (a stale share_indices included)
 * or when the pool (65536) is full. */
rill_mesh rill_render_mesh_create(rill_renderer *r, const rill_mesh_desc *desc, rill_error *err);
/* A mesh's index count and local bounding sphere, for CPU-side counters (a fly-through's triangle
 * counts without drawing). False for a stale handle (the outputs are then untouched); outputs may
 * be NULL. */
bool rill_render_mesh_info(const rill_renderer *r, rill_mesh mesh, uint32_t *out_index_count,
                           float out_center[3], float *out_radius);
/* A mesh's edge-buffer index count (2 per edge); 0 without one or for a stale handle. */
uint32_t rill_render_mesh_edge_count(const rill_renderer *r, rill_mesh mesh);
/* The CPU copy of a mesh's triangles that picking tests: positions, the triangle list and the local
 * box, borrowed until the mesh is destroyed. False for a stale handle and for meshes that keep no
 * copy (gpu_only, merged static batches). */
bool rill_render_mesh_triangles(const rill_renderer *r, rill_mesh mesh, rill_pick_mesh *out);
/* Lets rill_channels_pick hit MeshInstance entities: sets desc's mesh_source to the triangles of
 * the mesh each one draws (rill_render_mesh_triangles of r, which must outlive the pick). */
void rill_render_pick_source(const rill_renderer *r, rill_pick_desc *desc);
/* Releases a mesh once the frames using it are done. Stale or zero handles are a no-op. */
void rill_render_mesh_destroy(rill_renderer *r, rill_mesh mesh);
/* Procedural meshes (through the same upload path): unit cube (-0.5..0.5), UV sphere of radius
 * 0.5 (segments 0 = 32), plane of size 1 in XZ facing +Y. */
rill_mesh rill_render_mesh_cube(rill_renderer *r, rill_error *err);
rill_mesh rill_render_mesh_sphere(rill_renderer *r, uint32_t segments, rill_error *err);
rill_mesh rill_render_mesh_plane(rill_renderer *r, rill_error *err);

/* RGBA8 texture, tightly packed (copied). srgb: color data (base color, emissive) vs linear data
 * (normal, metallic-roughness, occlusion). A full mip chain is generated. */
typedef struct rill_texture_desc {
    uint32_t start_canary; /* must be 0 */
    const uint8_t *pixels;
    uint32_t width, height;
    bool srgb;
    const char *label;
    uint32_t end_canary; /* must be 0 */
} rill_texture_desc;
/* Creates a texture (pixels copied, upload queued). Returns {0} with err set on bad input. */
rill_texture rill_render_texture_create(rill_renderer *r, const rill_texture_desc *desc,
                                        rill_error *err);
/* Render textures: a camera whose Camera.target (rill_render_view.target) names one draws into it
 * instead of the output, with its own effects, before the other cameras; a material whose image
 * URI is "target:NAME" (a glTF image, resolved by rill_render_model_create) samples it: cameras
 * drawing to the output see this frame's image, cameras drawing to a render texture last
 * frame's (a camera never waits for itself). RGBA8 sRGB, one mip level, black until drawn; the
 * size the camera asks (rill_render_view.target_size: Camera.target_width / target_height, 16 ..
 * 4096), RILL_RENDER_TARGET_SIZE square when none did. A texture asked for at a new size gets a
 * new image, switched in once uploaded (the camera draws at the old size until then). */
#define RILL_RENDER_TARGET_SIZE 512u
#define RILL_RENDER_MAX_TARGETS 16u
/* The render texture named `name` (1 to 63 characters), made on first use and owned by the
 * renderer (rill_render_texture_destroy ignores it). {0} with err set for a bad name or beyond
 * RILL_RENDER_MAX_TARGETS. */
rill_texture rill_render_target_texture(rill_renderer *r, const char *name, rill_error *err);

/* A texture from prepared levels in their own format (a .rmip payload: rill_rmip_read, or the
 * rmip asset loader): BC1, BC4, BC5 and BC7 stay block-compressed on the GPU (sRGB or linear as
 * tex->srgb says; BC4 samples as (r, 0, 0, 1), BC5 as (r, g, 0, 1)); RGBA8 and RGBA16F upload as
 * they are. Every level of tex is uploaded as given and none is generated: levels[0] is the
 * image's base (tex->width x tex->height, any size, odd and non-multiple-of-4 included) and level
 * i must be max(1, width >> i) x max(1, height >> i) with exactly rill_tex_level_size bytes. A
 * device without textureCompressionBC gets the BC levels decoded to RGBA8 here (BC3 from legacy
 * files always is). {0} with err set on a broken chain or an unknown format. */
rill_texture rill_render_texture_create_data(rill_renderer *r, const rill_tex_data *tex,
                                             const char *label, rill_error *err);
/* Replaces the contents of tex with another mip range of the same image (texture streaming swaps
 * a full chain and its "#low" tail both ways): tex must have been made from a rill_tex_data of the
 * same format, colour space and full size (full_width x full_height; 0 = width x height). A new
 * GPU image is made for data's levels and uploaded; the swap is atomic: every frame draws either
 * the old image or the new one, never a partial upload. At the start of the first frame whose
 * upload holds the new image, the texture switches to it, the materials that use the texture get
 * new descriptor sets, and the old image (and sets) are freed once the frames using them are done.
 * GPU memory follows the levels present. rill_render_texture_pending says whether a replacement
 * is still waiting. {err} on a different image or a broken chain (the texture is unchanged). */
rill_result rill_render_texture_replace(rill_renderer *r, rill_texture tex,
                                        const rill_tex_data *data, rill_error *err);
/* Replaces count textures together: every one is checked first (nothing is queued when one
 * fails), and they switch at the start of one frame, the first whose uploads hold all of them
 * (the staging budget may spread their uploads over several frames; none switches before the
 * last has landed). Texture streaming swaps a material's slots with it, so no frame draws a
 * material with some slots switched and others not. A texture replaced again before its batch
 * switched leaves that batch for the new one. */
rill_result rill_render_texture_replace_many(rill_renderer *r, uint32_t count,
                                             const rill_texture *tex,
                                             const rill_tex_data *const *data, rill_error *err);
/* rill_render_texture_replace_many without copying the level bytes on this call: data[k]'s
 * levels are read when a later frame records their upload (within the staging budget), so they
 * must stay valid until release(users[k]) runs. release runs exactly once for every k: when the
 * upload was recorded, the texture replaced again or destroyed, the renderer destroyed, or at once
 * (on failure, or when the levels had to be decoded to RGBA8 and were copied). Texture streaming
 * hands the loaded .rmip payloads over this way (a 1024^2 BC7 chain copied on the main thread cost
 * about 0.8 ms). */
typedef void (*rill_render_release_fn)(void *user);
rill_result rill_render_texture_replace_many_borrowed(rill_renderer *r, uint32_t count,
                                                      const rill_texture *tex,
                                                      const rill_tex_data *const *data,
                                                      rill_render_release_fn release,
                                                      void *const *users, rill_error *err);
bool rill_render_texture_pending(const rill_renderer *r, rill_texture tex);
/* Releases a texture (deferred). Destroy the materials that use it first. Stale handles: no-op. */
void rill_render_texture_destroy(rill_renderer *r, rill_texture tex);

typedef enum rill_alpha_mode {
    RILL_ALPHA_OPAQUE = 0,
    RILL_ALPHA_MASK,
    RILL_ALPHA_BLEND,
    RILL_ALPHA_NUM,
    RILL_ALPHA_FORCE_U32 = 0x7FFFFFFF
} rill_alpha_mode;

/* How a texture is addressed outside [0, 1]. */
typedef enum rill_texture_wrap {
    RILL_TEXTURE_WRAP_REPEAT = 0,
    RILL_TEXTURE_WRAP_CLAMP,
    RILL_TEXTURE_WRAP_MIRROR,
    RILL_TEXTURE_WRAP_NUM,
    RILL_TEXTURE_WRAP_FORCE_U32 = 0x7FFFFFFF
} rill_texture_wrap;

/* A material's texture slots (index of rill_material_desc.samplers and .transforms). */
enum {
    RILL_MATERIAL_TEX_BASE_COLOR = 0,
    RILL_MATERIAL_TEX_NORMAL,
    RILL_MATERIAL_TEX_METALLIC_ROUGHNESS,
    RILL_MATERIAL_TEX_OCCLUSION,
    RILL_MATERIAL_TEX_EMISSIVE,
    RILL_MATERIAL_TEX_SPECULAR,              /* alpha: KHR_materials_specular strength */
    RILL_MATERIAL_TEX_SPECULAR_COLOR,        /* rgb (sRGB): specular colour */
    RILL_MATERIAL_TEX_CLEARCOAT,             /* red: clear coat strength */
    RILL_MATERIAL_TEX_CLEARCOAT_ROUGHNESS,   /* green: clear coat roughness */
    RILL_MATERIAL_TEX_CLEARCOAT_NORMAL,      /* the clear coat's normal map */
    RILL_MATERIAL_TEX_TRANSMISSION,          /* red: transmission */
    RILL_MATERIAL_TEX_THICKNESS,             /* green: volume thickness */
    RILL_MATERIAL_TEX_SHEEN_COLOR,           /* rgb (sRGB): sheen colour */
    RILL_MATERIAL_TEX_SHEEN_ROUGHNESS,       /* alpha: sheen roughness */
    RILL_MATERIAL_TEX_IRIDESCENCE,           /* red: iridescence strength */
    RILL_MATERIAL_TEX_IRIDESCENCE_THICKNESS, /* green: thin-film thickness, min to max */
    RILL_MATERIAL_TEX_ANISOTROPY, /* red, green: direction in the tangent frame; blue: strength */
    RILL_MATERIAL_TEX_NUM
};

typedef enum rill_texture_filter {
    RILL_TEXTURE_FILTER_LINEAR = 0,
    RILL_TEXTURE_FILTER_NEAREST,
    RILL_TEXTURE_FILTER_FORCE_U32 = 0x7FFFFFFF
} rill_texture_filter;
typedef enum rill_texture_mip_filter {
    RILL_TEXTURE_MIP_LINEAR = 0, /* trilinear (anisotropic on GPUs when min is linear) */
    RILL_TEXTURE_MIP_NEAREST,
    RILL_TEXTURE_MIP_NONE, /* the base level only */
    RILL_TEXTURE_MIP_FORCE_U32 = 0x7FFFFFFF
} rill_texture_mip_filter;

/* One texture slot's sampler. set false = the material-wide wrap (both axes) and nearest
 * (magnification) apply, with linear minification and mips. */
typedef struct rill_texture_sampler {
    bool set;
    rill_texture_wrap wrap_u, wrap_v;
    rill_texture_filter mag_filter, min_filter;
    rill_texture_mip_filter mip_filter;
} rill_texture_sampler;

/* One texture slot's UV transform (glTF KHR_texture_transform): uv' = T(offset) * R(rotation) *
 * S(scale) * uv, rotation in radians counter-clockwise in UV space. set false = identity. */
typedef struct rill_texture_transform {
    bool set;
    float offset[2];
    float rotation;
    float scale[2];
} rill_texture_transform;

typedef enum rill_material_kind {
    RILL_MATERIAL_PBR = 0, /* glTF metallic-roughness */
    RILL_MATERIAL_TERRAIN, /* splat layers blended by a weight map (see rill_material_desc) */
    RILL_MATERIAL_KIND_NUM,
    RILL_MATERIAL_KIND_FORCE_U32 = 0x7FFFFFFF
} rill_material_kind;

/* Metallic-roughness material. A zero desc gives glTF's defaults: base_color (1,1,1,1) (used when
 * all four components are 0), metallic 0, roughness 1 (a 0 roughness means "default" unless
 * roughness_set is true), emissive (0,0,0), normal_scale 1, occlusion_strength 1 (0 means
 * default for both), alpha_cutoff 0.5, opaque, single-sided. A texture handle of 0 means none
 * (white, or a flat normal). Textures are referenced, not owned: destroy materials first. */
typedef struct rill_material_desc {
    uint32_t start_canary; /* must be 0 */
    float base_color[4];
    float metallic;
    float roughness;
    bool roughness_set; /* take roughness as given even when 0 */
    float emissive[3];
    float normal_scale;
    float occlusion_strength;
    float alpha_cutoff;
    rill_alpha_mode alpha_mode;
    bool double_sided;
    rill_texture_wrap wrap; /* default repeat (both axes, slots without their own sampler) */
    bool nearest;           /* magnify with nearest texels (pixel art); default linear */
    rill_texture base_color_texture, normal_texture, metallic_roughness_texture, occlusion_texture,
        emissive_texture;
    rill_texture_sampler samplers[RILL_MATERIAL_TEX_NUM];     /* per slot (RILL_MATERIAL_TEX_*) */
    rill_texture_transform transforms[RILL_MATERIAL_TEX_NUM]; /* per slot */
    /* The UV set each slot samples (before its transform): 0 the vertex uv, 1 the mesh's uv1. */
    uint8_t uv_sets[RILL_MATERIAL_TEX_NUM];
    /* glTF KHR_materials_unlit: the base colour (times the vertex colour) is drawn as it is, with
     * no light, shadow or emission. */
    bool unlit;
    /* Dielectric reflectance (glTF KHR_materials_ior and KHR_materials_specular): ior 0 = 1.5;
     * without specular_set, specular 1 and specular_color white. The reflectance at normal
     * incidence of the non-metal part is min(((ior - 1) / (ior + 1))^2 * specular_color, 1) *
     * specular, at grazing angles specular. */
    float ior;
    bool specular_set;
    float specular;
    float specular_color[3];
    /* Their textures (0 = none, white): specular strength times specular_texture's alpha, the
     * colour times specular_color_texture's RGB (sRGB). */
    rill_texture specular_texture, specular_color_texture;
    /* glTF KHR_materials_clearcoat: a second, dielectric (ior 1.5) GGX layer of this strength
     * (0..1) and roughness over the geometric normal, darkening what is under it by its Fresnel
     * reflectance. 0 = none. Strength times clearcoat_texture's red, roughness times
     * clearcoat_roughness_texture's green; clearcoat_normal_texture (scaled by
     * clearcoat_normal_scale, 0 = 1) bends the coat's normal in the mesh's tangent frame. */
    float clearcoat, clearcoat_roughness;
    rill_texture clearcoat_texture, clearcoat_roughness_texture, clearcoat_normal_texture;
    float clearcoat_normal_scale;
    /* glTF KHR_materials_transmission: the share (0..1, times transmission_texture's red) of the
     * non-metal part's diffuse light replaced by what lies behind the surface, tinted by the base
     * colour and blurred by its roughness (the opaque image of the view, refracted through
     * the surface when it has a volume). A material with transmission draws after the opaque
     * surfaces, in the transparent pass, like a blended one (it casts no shadow). */
    float transmission;
    rill_texture transmission_texture;
    /* glTF KHR_materials_volume (volume_set; else thin-walled): thickness in the mesh's units
     * (times thickness_texture's green) bends the refracted view; light fades to
     * attenuation_color after attenuation_distance (0 = it never fades). */
    bool volume_set;
    float thickness;
    rill_texture thickness_texture;
    float attenuation_distance;
    float attenuation_color[3];
    /* glTF KHR_materials_sheen: a cloth-like layer (Charlie distribution, Ashikhmin visibility)
     * of this colour (times sheen_color_texture's RGB, sRGB; black = none) and roughness (times
     * sheen_roughness_texture's alpha) that brightens grazing angles; what is under it loses
     * the light the sheen reflects. */
    float sheen_color[3];
    float sheen_roughness;
    rill_texture sheen_color_texture, sheen_roughness_texture;
    /* glTF KHR_materials_iridescence: a thin film over the surface whose interference tints the
     * specular reflection (Belcour and Barla's model, as the Khronos sample viewer has it), of
     * this strength (0..1, times iridescence_texture's red; 0 = none), index of refraction
     * (iridescence_ior, 0 = 1.3) and thickness in nanometres (from iridescence_thickness_min to
     * _max by iridescence_thickness_texture's green; without that texture: the maximum; both 0 =
     * 100 and 400). */
    float iridescence;
    float iridescence_ior;
    float iridescence_thickness_min, iridescence_thickness_max;
    rill_texture iridescence_texture, iridescence_thickness_texture;
    /* glTF KHR_materials_anisotropy: the specular highlight stretches (anisotropic GGX) along
     * the mesh's tangent turned by anisotropy_rotation radians, with this strength (0..1, times
     * anisotropy_texture's blue; 0 = none); the texture's red and green (as -1..1) give the
     * direction per texel in the tangent frame before the rotation. */
    float anisotropy;
    float anisotropy_rotation;
    rill_texture anisotropy_texture;
    /* glTF KHR_materials_dispersion (with a volume): red, green and blue refract with the iors
     * ior -+ (ior - 1) * 0.025 * dispersion, so what shows through splits into colours. */
    float dispersion;
    const char *label;
    /* kind TERRAIN: the terrain splat material (rill_render_terrain makes these). Up to 4 layers
     * blended by splat_weights (RGBA, one channel per layer, sampled with the mesh uv; linear, not
     * sRGB), each layer its layer_color times its quadrant of layer_albedo_atlas (sRGB) with the
     * normal of its quadrant of layer_normal_atlas, tiled every layer_tile metres in world XZ
     * (quadrant of layer i: column i % 2, row i / 2). Missing textures: white albedo, flat normals,
     * equal weights for the layer_count layers. The PBR texture fields, emissive and alpha are
     * ignored; metallic, roughness and normal_scale apply. Opaque only. */
    rill_material_kind kind;
    rill_texture splat_weights, layer_albedo_atlas, layer_normal_atlas;
    uint32_t layer_count; /* 0 = 1; at most 4 */
    float layer_color[4][4];
    float layer_tile[4]; /* metres; 0 = 8 */
    uint32_t end_canary; /* must be 0 */
} rill_material_desc;
/* Creates a material; desc may be NULL (all defaults). Returns {0} with err set on failure. */
rill_material rill_render_material_create(rill_renderer *r, const rill_material_desc *desc,
                                          rill_error *err);
/* Releases a material (deferred). Stale handles are a no-op. */
void rill_render_material_destroy(rill_renderer *r, rill_material mat);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_RESOURCES_H */
