/* rill/formats/gltf.h: glTF 2.0 models on the CPU: the reader (.glb and .gltf), the .glb writer.
 *
 * ON THE MODEL
 *   rill_gltf_model is a plain CPU copy of a glTF asset: meshes made of triangle primitives with
 *   de-interleaved float attributes and 32-bit indices, materials (metallic-roughness), textures,
 *   samplers, images, nodes (TRS or matrix), scenes, cameras and KHR_lights_punctual lights.
 *   Every array and string in it is owned by the model and released by rill_gltf_model_free.
 *   Indices into other arrays are int32_t with -1 meaning "none"; the reader guarantees that
 *   every index it returns is in range, so users never re-check them.
 *
 * ON READING
 *   rill_gltf_read_memory / rill_gltf_read_file parse untrusted bytes. Every index, offset,
 *   stride and count is checked against its buffer with overflow checks; NaN or infinite
 *   positions are rejected. On failure no model is returned and the error names the file and
 *   the JSON path, e.g. "chair.glb: meshes[0].primitives[1].attributes.POSITION: accessor 7 out
 *   of range". Every decoded byte (the JSON tree, buffers, attribute and index arrays, generated
 *   normals and tangents) is counted against one per-model limit (desc.max_bytes) before it is
 *   allocated. Non-finite numbers in accessor min/max, node transforms, material factors, cameras
 *   and lights are errors naming the place. A primitive without normals is made flat (vertices
 *   unwelded per triangle, face normals), as glTF specifies; given normals are normalized.
 *   Tangents are kept when the file has them; when it has none and the primitive's material
 *   samples a normal texture, they are generated with MikkTSpace semantics from UV0 (which may
 *   split vertices on mirrored UV seams); otherwise tangents stays NULL. Triangle strips and fans
 *   are converted to lists; points and lines are skipped (counted in skipped_primitives and
 *   named in the left-out warning). Unindexed primitives get 0..n-1. External buffers and images
 * resolve against the folder of the file (or desc.base_dir); absolute URIs and URIs leaving that
 *   folder are refused. Extensions read: KHR_lights_punctual, KHR_texture_transform,
 *   KHR_materials_emissive_strength, KHR_materials_unlit, KHR_materials_ior,
 *   KHR_materials_specular, KHR_materials_clearcoat, KHR_materials_transmission,
 *   KHR_materials_volume, KHR_materials_sheen, KHR_materials_iridescence,
 *   KHR_materials_anisotropy and KHR_materials_dispersion (factors and textures),
 *   KHR_mesh_quantization, EXT_meshopt_compression (decoded with meshoptimizer),
 *   RILL_mesh_edges; a file requiring another is refused. Animations are read (channels on
 *   translation, rotation, scale and weights; step, linear and cubic-spline samplers): key times
 *   must be finite, start at or after 0 and strictly increase, values must be finite and the
 *   output count must match the input's, or the file is refused naming the JSON path; channels
 *   without a target node (extensions such as KHR_animation_pointer) are dropped with the rest of
 *   what is left out. Skins are read (joints, inverse bind matrices) with each primitive's
 *   JOINTS_0 and WEIGHTS_0: joint indices in range of every skin the mesh is drawn with, weights
 *   finite and non-negative (normalized to sum 1), inverse bind matrices finite and at least one
 *   per joint, or the file is refused naming the JSON path. Morph targets are read (POSITION and
 *   NORMAL displacements, mesh and node weights): at most RILL_GLTF_MAX_TARGETS, the same count on
 *   every primitive of a mesh and in its weights, finite values. What a file
 *   holds that the model does not keep (TANGENT morph targets, UV sets beyond two, JOINTS_1 and up,
 *   color sets beyond one, other extensions) is named in one warning per read.
 *
 * ON WRITING
 *   rill_glb_write_memory / rill_glb_write_file produce a binary glTF (JSON chunk + BIN chunk,
 *   4-byte aligned) that the Khronos validator accepts. Edge buffers (rill/formats/edges.h) are
 *   written as the primitive extension RILL_mesh_edges (in extensionsUsed, never required) and
 *   read back by the reader. docs/formats/gltf-extensions.md describes the extension. Skins
 *   (joints as unsigned shorts), morph targets (POSITION with min/max, NORMAL), mesh and node
 *   weights and animation clips are written too.
 *
 * Depends on: base (its own JSON parser, gltf_json.c; the writer uses cJSON; meshoptimizer
 *   decodes EXT_meshopt_compression).
 */
#ifndef RILL_FORMATS_GLTF_H
#define RILL_FORMATS_GLTF_H

#include "rill/asset.h"
#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* KHR_materials_emissive_strength: read into rill_gltf_material.emissive_strength. */
#define RILL_GLTF_EXT_EMISSIVE_STRENGTH "KHR_materials_emissive_strength"
/* Material extensions read into rill_gltf_material (their factors; see there). */
#define RILL_GLTF_EXT_UNLIT "KHR_materials_unlit"
#define RILL_GLTF_EXT_IOR "KHR_materials_ior"
#define RILL_GLTF_EXT_SPECULAR "KHR_materials_specular"
#define RILL_GLTF_EXT_CLEARCOAT "KHR_materials_clearcoat"
#define RILL_GLTF_EXT_TRANSMISSION "KHR_materials_transmission"
#define RILL_GLTF_EXT_VOLUME "KHR_materials_volume"
#define RILL_GLTF_EXT_SHEEN "KHR_materials_sheen"
#define RILL_GLTF_EXT_IRIDESCENCE "KHR_materials_iridescence"
#define RILL_GLTF_EXT_ANISOTROPY "KHR_materials_anisotropy"
#define RILL_GLTF_EXT_DISPERSION "KHR_materials_dispersion"
/* KHR_materials_variants: the file's named material sets (rill_gltf_model.variant_names) and each
 * primitive's material per variant (rill_gltf_primitive.variant_materials). */
#define RILL_GLTF_EXT_VARIANTS "KHR_materials_variants"
/* KHR_texture_transform: read on every texture reference (rill_gltf_texref). */
#define RILL_GLTF_EXT_TEXTURE_TRANSFORM "KHR_texture_transform"
/* The name of Rill's edge-buffer primitive extension. */
#define RILL_GLTF_EXT_MESH_EDGES "RILL_mesh_edges"

/* >>model ------------------------------------------------------------------------------------- */

/* A reference from a material to a texture. texture -1 = no texture. `scale` is the normal-map
 * scale for the normal texture, the strength for occlusion, and 1 otherwise. */
typedef struct rill_gltf_texref {
    int32_t texture;
    uint32_t texcoord;
    float scale;
    /* KHR_texture_transform on this reference (has_transform false = none): uv' = T(offset) *
     * R(rotation) * S(scale) * uv; transform_texcoord is its texCoord override (-1 = none). */
    bool has_transform;
    float offset[2], rotation, uv_scale[2];
    int32_t transform_texcoord;
} rill_gltf_texref;

typedef enum rill_gltf_alpha_mode {
    RILL_GLTF_ALPHA_OPAQUE = 0,
    RILL_GLTF_ALPHA_MASK,
    RILL_GLTF_ALPHA_BLEND,
    RILL_GLTF_ALPHA_NUM,
    RILL_GLTF_ALPHA_FORCE_U32 = 0x7FFFFFFF
} rill_gltf_alpha_mode;

/* The glTF standard material; defaults are those of the glTF specification. */
typedef struct rill_gltf_material {
    char *name; /* may be NULL */
    float base_color_factor[4];
    rill_gltf_texref base_color_texture;
    float metallic_factor;
    float roughness_factor;
    rill_gltf_texref metallic_roughness_texture;
    rill_gltf_texref normal_texture;
    rill_gltf_texref occlusion_texture;
    rill_gltf_texref emissive_texture;
    float emissive_factor[3];
    /* KHR_materials_emissive_strength: multiplies emissive_factor (HDR emission). 0 = not given
     * (1); a file's strength of 0 is read as a zero emissive_factor instead. */
    float emissive_strength;
    /* KHR_materials_unlit: drawn with its base colour only, no lighting. */
    bool unlit;
    /* KHR_materials_ior: the index of refraction, >= 1; 0 = not given (1.5). */
    float ior;
    /* KHR_materials_specular (has_specular false = not given: 1 and white): the strength and
     * colour of the dielectric specular reflection, times specular_texture's alpha and
     * specular_color_texture's RGB (sRGB). */
    bool has_specular;
    float specular_factor;
    float specular_color_factor[3];
    rill_gltf_texref specular_texture, specular_color_texture;
    /* KHR_materials_clearcoat: the coat's strength and roughness factors, 0 = none, times the red
     * channel of clearcoat_texture and the green of clearcoat_roughness_texture; the coat's own
     * normal map (its `scale` the normal scale; none = the geometric normal). */
    float clearcoat_factor;
    float clearcoat_roughness_factor;
    rill_gltf_texref clearcoat_texture, clearcoat_roughness_texture, clearcoat_normal_texture;
    /* KHR_materials_transmission: the share of light (0 to 1, times transmission_texture's red)
     * that passes through the surface, refracted; 0 = opaque as usual. */
    float transmission_factor;
    rill_gltf_texref transmission_texture;
    /* KHR_materials_volume (has_volume false = thin-walled): the thickness under the surface in
     * the mesh's units (times thickness_texture's green) and how light fades through it:
     * attenuation_color reached after attenuation_distance (0 = never fades). */
    bool has_volume;
    float thickness_factor;
    rill_gltf_texref thickness_texture;
    float attenuation_distance;
    float attenuation_color[3];
    /* KHR_materials_sheen (has_sheen false = none): the colour (0 to 1, times
     * sheen_color_texture's RGB, sRGB) and roughness (0 to 1, times sheen_roughness_texture's
     * alpha) of a cloth-like layer that brightens grazing angles (Charlie distribution). */
    bool has_sheen;
    float sheen_color_factor[3];
    float sheen_roughness_factor;
    rill_gltf_texref sheen_color_texture, sheen_roughness_texture;
    /* KHR_materials_iridescence (iridescence_factor 0 = none): a thin film of index of refraction
     * iridescence_ior (1 to 1000; the file's default 1.3) over the surface whose interference
     * tints the specular reflection; its strength is the factor (0 to 1) times the red of
     * iridescence_texture, its thickness in nanometres (0 to 1e6) goes from
     * iridescence_thickness_min to _max by the green of iridescence_thickness_texture (without
     * one: the maximum). */
    float iridescence_factor;
    rill_gltf_texref iridescence_texture;
    float iridescence_ior;
    float iridescence_thickness_min, iridescence_thickness_max;
    rill_gltf_texref iridescence_thickness_texture;
    /* KHR_materials_anisotropy (anisotropy_strength 0 = none): the highlight stretches along a
     * direction of the tangent frame, the tangent turned by anisotropy_rotation radians
     * (counter-clockwise), with the strength (0 to 1) times the blue of anisotropy_texture,
     * whose red and green (mapped to -1..1) turn the direction per texel. */
    float anisotropy_strength;
    float anisotropy_rotation;
    rill_gltf_texref anisotropy_texture;
    /* KHR_materials_dispersion (0 = none, 0 to 1000): how much a volume's refraction spreads by
     * wavelength (20 / the Abbe number), so red, green and blue bend apart. */
    float dispersion;
    /* (A model built in code need not fill in an extension's references while the extension is
     * off: has_specular, has_volume, has_sheen false, clearcoat_factor, transmission_factor,
     * iridescence_factor or anisotropy_strength 0;
     * once on, -1 means none as everywhere.) */
    rill_gltf_alpha_mode alpha_mode;
    float alpha_cutoff; /* used in MASK mode, default 0.5 */
    bool double_sided;
} rill_gltf_material;

/* Sampler filters and wraps keep the glTF (OpenGL) enum values; 0 = not given. */
typedef struct rill_gltf_sampler {
    char *name;
    uint32_t mag_filter;
    uint32_t min_filter;
    uint32_t wrap_s; /* default 10497 (REPEAT) */
    uint32_t wrap_t;
} rill_gltf_sampler;

typedef struct rill_gltf_texture {
    char *name;
    int32_t sampler; /* -1 = default sampler */
    int32_t image;   /* -1 = none */
} rill_gltf_texture;

/* An image is either bytes (a bufferView in the file or a data: URI; `data` set) or a path
 * relative to the model's folder (`uri` set, bytes not loaded), or a render texture by name: a URI
 * "target:NAME" (RILL_GLTF_TARGET_SCHEME, kept as written; NAME 1 to 63 characters) names the
 * image a camera with Camera.target NAME draws (rill/render.h, rill_render_target_texture). */
#define RILL_GLTF_TARGET_SCHEME "target:"
typedef struct rill_gltf_image {
    char *name;
    char *uri;       /* external reference, percent-decoded; NULL when embedded */
    char *mime_type; /* may be NULL for external images */
    uint8_t *data;
    size_t size;
} rill_gltf_image;

/* One triangle list. Attribute arrays hold vertex_count elements; NULL when absent. positions and
 * normals are always present after reading; tangents whenever the file gave them or the material
 * samples a normal texture. */
typedef struct rill_gltf_primitive {
    uint32_t vertex_count;
    float *positions; /* xyz */
    float *normals;   /* xyz, unit length */
    float *tangents;  /* xyzw, w = +-1 handedness */
    float *uv0;       /* uv, first set */
    float *uv1;       /* uv, second set (materials may sample it through texcoord 1) */
    float *colors;    /* rgba (RGB sources get a = 1) */
    /* JOINTS_0 / WEIGHTS_0 (NULL unless the file gives both): 4 joint indices per vertex, whole
     * numbers stored as floats, each below the joint count of every skin a node draws this mesh
     * with (a joint of weight 0 is set to 0); 4 weights per vertex, finite, >= 0, summing to 1
     * (a vertex whose weights sum to 0 gets (1, 0, 0, 0)). */
    float *joints;
    float *weights;
    /* Morph targets (target_count, at most RILL_GLTF_MAX_TARGETS): per vertex, each target's
     * POSITION (and NORMAL, when every target gives one) displacement, interleaved by vertex:
     * vertex v's target t at [(v * target_count + t) * 3]. NULL when there are none. */
    uint32_t target_count;
    float *target_positions;
    float *target_normals;
    uint32_t index_count; /* a multiple of 3 */
    uint32_t *indices;
    uint32_t edge_index_count; /* a multiple of 2; 0 = no edge buffer */
    uint32_t *edge_indices;    /* line list into this primitive's vertices */
    int32_t material;          /* -1 = default material */
    /* KHR_materials_variants: the material this primitive draws with in each of the model's
     * variant_count variants (-1 = the default material), the primitive's `material` where the
     * file maps none; NULL when the file maps no variant on this primitive (then `material` in
     * every variant). See rill_gltf_primitive_variant_material. */
    int32_t *variant_materials;
    float bounds_min[3];
    float bounds_max[3];
} rill_gltf_primitive;

typedef struct rill_gltf_mesh {
    char *name;
    uint32_t primitive_count;
    rill_gltf_primitive *primitives;
    /* The default morph weights (weight_count = every primitive's target_count; NULL/0 when the
     * file gives none: all 0). */
    uint32_t weight_count;
    float *weights;
} rill_gltf_mesh;

/* Point and line primitives (modes 0 to 3) are read as triangles: each point an octahedron, each
 * line segment a triangular prism along it, of radius RILL_GLTF_POINT_LINE_SIZE times the
 * primitive's bounding diagonal, at least RILL_GLTF_POINT_LINE_MIN (mesh units); every generated
 * vertex keeps the attributes of the vertex it stands for. */
#define RILL_GLTF_POINT_LINE_SIZE 0.005f
#define RILL_GLTF_POINT_LINE_MIN 0.001f

/* The most morph targets a primitive may have (the reader refuses more). */
#define RILL_GLTF_MAX_TARGETS 256u

typedef struct rill_gltf_node {
    char *name;
    int32_t parent; /* -1 = root */
    uint32_t child_count;
    int32_t *children;
    int32_t mesh;   /* -1 = none */
    int32_t camera; /* -1 = none */
    int32_t light;  /* KHR_lights_punctual, -1 = none */
    /* The skin the node's mesh is drawn with: -1 or any value >= the model's skin_count = none
     * (so a node a program builds with skin 0 in a model without skins has none). */
    int32_t skin;
    /* The node's morph weights, overriding its mesh's (weight_count = the mesh's target count;
     * NULL/0 = the mesh's). */
    uint32_t weight_count;
    float *weights;
    bool has_matrix; /* the file gave a matrix; translation/rotation/scale are then unused */
    float translation[3];
    float rotation[4]; /* quaternion xyzw */
    float scale[3];
    float matrix[16]; /* local transform, column major; always filled (from TRS when !has_matrix) */
} rill_gltf_node;

/* A root node named NAME (char *, may be NULL) that draws mesh MESH with the identity transform
 * and holds no camera or light: the one node of a one-mesh model a writer builds. */
#define RILL_GLTF_MESH_NODE(NAME, MESH)                                                            \
    ((rill_gltf_node){.name = (NAME),                                                              \
                      .parent = -1,                                                                \
                      .mesh = (MESH),                                                              \
                      .camera = -1,                                                                \
                      .light = -1,                                                                 \
                      .skin = -1,                                                                  \
                      .rotation = {0, 0, 0, 1},                                                    \
                      .scale = {1, 1, 1},                                                          \
                      .matrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}})

typedef struct rill_gltf_scene {
    char *name;
    uint32_t node_count;
    int32_t *nodes; /* root nodes */
} rill_gltf_scene;

typedef enum rill_gltf_camera_type {
    RILL_GLTF_CAMERA_PERSPECTIVE = 0,
    RILL_GLTF_CAMERA_ORTHOGRAPHIC,
    RILL_GLTF_CAMERA_NUM,
    RILL_GLTF_CAMERA_FORCE_U32 = 0x7FFFFFFF
} rill_gltf_camera_type;

typedef struct rill_gltf_camera {
    char *name;
    rill_gltf_camera_type type;
    float yfov;         /* perspective, radians */
    float aspect_ratio; /* perspective, 0 = not given */
    float xmag, ymag;   /* orthographic */
    float znear;
    float zfar; /* 0 = infinite (perspective only) */
} rill_gltf_camera;

typedef enum rill_gltf_light_type {
    RILL_GLTF_LIGHT_DIRECTIONAL = 0,
    RILL_GLTF_LIGHT_POINT,
    RILL_GLTF_LIGHT_SPOT,
    RILL_GLTF_LIGHT_NUM,
    RILL_GLTF_LIGHT_FORCE_U32 = 0x7FFFFFFF
} rill_gltf_light_type;

typedef struct rill_gltf_light {
    char *name;
    rill_gltf_light_type type;
    float color[3];
    float intensity;
    float range; /* 0 = infinite */
    float inner_cone_angle;
    float outer_cone_angle;
} rill_gltf_light;

/* A skin (glTF 2.0, 3.7.3): the nodes whose world transforms deform a skinned mesh, and the
 * inverse bind matrix of each (column major; identity where the file gives none). A vertex drawn
 * with the skin lands at sum_k weight_k * world(joints[joint_k]) * inverse_bind[joint_k] * v; the
 * transform of the node that draws the mesh is not applied. skeleton is the common root the
 * file names (-1 = none; informative only). joint_count is 1..RILL_GLTF_MAX_JOINTS. */
typedef struct rill_gltf_skin {
    char *name;
    uint32_t joint_count;
    int32_t *joints; /* node indices */
    float *inverse_bind_matrices;
    int32_t skeleton;
} rill_gltf_skin;

/* The most joints a skin may have (the reader refuses more). */
#define RILL_GLTF_MAX_JOINTS 1024u

/* >>animation --------------------------------------------------------------------------------- */

/* What an animation channel drives on its node. */
typedef enum rill_gltf_anim_path {
    RILL_GLTF_ANIM_TRANSLATION = 0, /* 3 values */
    RILL_GLTF_ANIM_ROTATION,        /* 4 values: a unit quaternion xyzw */
    RILL_GLTF_ANIM_SCALE,           /* 3 values */
    RILL_GLTF_ANIM_WEIGHTS,         /* one value per morph target of the node's mesh */
    RILL_GLTF_ANIM_PATH_NUM,
    RILL_GLTF_ANIM_PATH_FORCE_U32 = 0x7FFFFFFF
} rill_gltf_anim_path;

typedef enum rill_gltf_interpolation {
    RILL_GLTF_INTERP_LINEAR = 0,  /* lerp; rotations slerp */
    RILL_GLTF_INTERP_STEP,        /* the value of the last key at or before t */
    RILL_GLTF_INTERP_CUBICSPLINE, /* Hermite spline with in/out tangents per key */
    RILL_GLTF_INTERP_NUM,
    RILL_GLTF_INTERP_FORCE_U32 = 0x7FFFFFFF
} rill_gltf_interpolation;

/* Keyframes: key_count strictly increasing, finite times (times[0] >= 0) and their values,
 * `comps` floats each. CUBICSPLINE stores three vectors per key, in the file's order: in-tangent,
 * value, out-tangent (so values holds key_count * 3 * comps floats, else key_count * comps).
 * Rotation values are unit quaternions (the reader normalizes them); integer outputs are
 * already normalized to floats. */
typedef struct rill_gltf_anim_sampler {
    uint32_t key_count;
    uint32_t comps;
    rill_gltf_interpolation interpolation;
    float *times;
    float *values;
} rill_gltf_anim_sampler;

typedef struct rill_gltf_anim_channel {
    int32_t node; /* always a valid node index (channels without a node are dropped) */
    rill_gltf_anim_path path;
    uint32_t sampler; /* index into the animation's samplers */
} rill_gltf_anim_channel;

/* One clip. duration = the largest key time of its samplers (0 for a single-key clip). */
typedef struct rill_gltf_animation {
    char *name; /* may be NULL */
    uint32_t channel_count;
    rill_gltf_anim_channel *channels;
    uint32_t sampler_count;
    rill_gltf_anim_sampler *samplers;
    float duration;
} rill_gltf_animation;

typedef struct rill_gltf_model {
    uint32_t mesh_count;
    rill_gltf_mesh *meshes;
    uint32_t node_count;
    rill_gltf_node *nodes;
    uint32_t scene_count;
    rill_gltf_scene *scenes;
    int32_t default_scene; /* -1 = none given */
    uint32_t material_count;
    rill_gltf_material *materials;
    uint32_t texture_count;
    rill_gltf_texture *textures;
    uint32_t sampler_count;
    rill_gltf_sampler *samplers;
    uint32_t image_count;
    rill_gltf_image *images;
    uint32_t camera_count;
    rill_gltf_camera *cameras;
    uint32_t light_count;
    rill_gltf_light *lights;
    uint32_t animation_count;
    rill_gltf_animation *animations;
    uint32_t skin_count;
    rill_gltf_skin *skins;
    uint32_t skipped_primitives; /* primitives the reader left out (no triangles, no shape) */
    /* KHR_materials_variants: the names of the file's material variants (each non-NULL; names
     * may repeat, rill_gltf_model_find_variant finds the first), at most RILL_GLTF_MAX_VARIANTS. */
    uint32_t variant_count;
    char **variant_names;
} rill_gltf_model;

/* The most material variants a model may have (the reader refuses more). */
#define RILL_GLTF_MAX_VARIANTS 1024u

/* >>read -------------------------------------------------------------------------------------- */

/* Reads a file the model refers to (an external buffer or image). `path` is the resolved path
 * (base_dir + URI). On success *out_data is owned by the caller and freed with rill_free. */
typedef rill_result (*rill_gltf_file_fn)(const char *path, uint8_t **out_data, size_t *out_size,
                                         void *user, rill_error *err);

/* Reader options. All zero = defaults:
 *   name: the name used in error messages (default "<memory>", or the path for read_file);
 *   base_dir: folder that external URIs resolve against (default: the file's folder for
 *     read_file; for read_memory NULL means external URIs are an error);
 *   read_file: how external files are read (default: rill_file_read_all_in confined to base_dir,
 *     so a symbolic link beside the model cannot lead out of its folder);
 *   uri_up_levels: how many folders above base_dir an external URI may climb with "..": the
 *     depth of the model's folder inside its project (a model in "models/box/" of a project gives
 *     2, so "../textures/a.png" is read as "models/textures/a.png"), so URIs may leave the
 *     model's folder but never the project root. Default 0: URIs stay in the model's folder. A
 *     kept image URI (rill_gltf_image.uri) then starts with its "../" segments;
 *   max_bytes: limit on the decoded bytes of the whole model, the JSON tree and buffers included
 *     (default: the process-wide model_bytes limit, rill_limit_get(RILL_LIMIT_MODEL_BYTES), 1 GiB
 *     unless changed); a file that needs more fails with RILL_ERR_LIMIT naming the place. */
typedef struct rill_gltf_read_desc {
    uint32_t start_canary; /* must be 0 */
    const char *name;
    const char *base_dir;
    rill_gltf_file_fn read_file;
    void *read_file_user;
    size_t max_bytes;
    uint32_t uri_up_levels;
    uint32_t end_canary; /* must be 0 */
} rill_gltf_read_desc;

/* The uri_up_levels of a model whose folder is `dir` (project-relative): how many folders dir
 * has ("models/box" gives 2; "" and "." give 0). */
uint32_t rill_gltf_folder_depth(const char *dir);

/* Parses a .glb or .gltf held in memory (the format is detected from the "glTF" magic). The
 * bytes are not kept. On success *out_model is a new model owned by the caller (free with
 * rill_gltf_model_free); on failure *out_model is NULL and err says why. desc may be NULL. */
rill_result rill_gltf_read_memory(const void *data, size_t size, const rill_gltf_read_desc *desc,
                                  rill_gltf_model **out_model, rill_error *err);
/* Reads and parses a file; desc may be NULL (name and base_dir then come from the path). */
rill_result rill_gltf_read_file(const char *path, const rill_gltf_read_desc *desc,
                                rill_gltf_model **out_model, rill_error *err);
/* Releases a model and everything it owns. NULL is a no-op. */
void rill_gltf_model_free(rill_gltf_model *model);

/* Total triangle count over every primitive of every mesh. */
uint64_t rill_gltf_model_triangle_count(const rill_gltf_model *model);
/* The index of the model's first material variant named `name` (KHR_materials_variants), or -1
 * when it has none of that name (a NULL or empty name: -1). */
int32_t rill_gltf_model_find_variant(const rill_gltf_model *model, const char *name);
/* The material primitive `prim` of `model` draws with in variant `variant`: 0 = no variant (the
 * primitive's own material), k = the model's variant k - 1. The primitive's own material for a
 * variant the model does not have or the primitive does not map. -1 = the default material. */
int32_t rill_gltf_primitive_variant_material(const rill_gltf_model *model,
                                             const rill_gltf_primitive *prim, uint32_t variant);

/* Evaluates sampler s at time t (seconds; clamped to the first and last key) into out[0..comps):
 * STEP holds the previous key, LINEAR interpolates (a rotation, `rotation` true, by the shortest
 * slerp), CUBICSPLINE evaluates glTF's Hermite spline (rotations normalized after). A sampler
 * without keys leaves out untouched. */
void rill_gltf_sampler_eval(const rill_gltf_anim_sampler *s, float t, bool rotation, float *out);
/* The index of the animation named `name`, or -1 (NULL or no match). */
int32_t rill_gltf_animation_find(const rill_gltf_model *model, const char *name);

/* >>write ------------------------------------------------------------------------------------- */

/* Writer options. All zero = defaults: generator "rill"; edge buffers written when present. */
typedef struct rill_glb_write_desc {
    uint32_t start_canary; /* must be 0 */
    const char *generator;
    bool skip_edges;
    uint32_t end_canary; /* must be 0 */
} rill_glb_write_desc;

/* Serializes a model to .glb bytes. *out_data is owned by the caller (rill_free). desc may be
 * NULL. The model must be valid (as returned by the reader or built with the same guarantees:
 * indices in range, index counts multiples of 3); an inconsistent model is
 * RILL_ERR_INVALID_ARGUMENT. */
rill_result rill_glb_write_memory(const rill_gltf_model *model, const rill_glb_write_desc *desc,
                                  uint8_t **out_data, size_t *out_size, rill_error *err);
/* Same, written atomically to `path`. */
rill_result rill_glb_write_file(const rill_gltf_model *model, const char *path,
                                const rill_glb_write_desc *desc, rill_error *err);

/* >>asset loader ------------------------------------------------------------------------------ */

/* The loader name under which glTF payloads are registered (rill_asset_get_payload_as). */
#define RILL_GLTF_ASSET_LOADER "gltf"

/* Registers the asset-server loader for "glb" and "gltf" files. The payload of a loaded asset is
 * a rill_gltf_model (read-only for users; freed by the server). External buffers are read
 * through the server's VFS relative to the model's folder; external images stay references
 * (rill_gltf_image.uri, relative to the model's folder). Labels: "model.glb#meshN" loads a
 * model holding only mesh N (materials, textures, samplers and images kept; no nodes, scenes,
 * cameras or lights); any other label fails the load with RILL_ERR_NOT_FOUND. */
rill_result rill_gltf_register_asset_loader(rill_asset_server *server, rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_GLTF_H */
