/* rill/render/model.h: a glTF model uploaded as renderer meshes, materials, textures and
 * instances (part of rill/render.h).
 */
#ifndef RILL_RENDER_MODEL_H
#define RILL_RENDER_MODEL_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/formats/gltf.h"
#include "rill/render/renderer.h"
#include "rill/render/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A glTF model turned into renderer resources: one mesh per primitive, one material per glTF
 * material (plus a default), one texture per glTF texture that a material uses, and one instance
 * per (node, primitive) of the default scene with its world matrix. All arrays are owned by the
 * model and released (with the GPU resources) by rill_render_model_destroy. The meshes are
 * gpu_only: the glTF data holds their triangles (ModelMesh entities are picked through it). */
typedef struct rill_render_model {
    rill_mesh *meshes;
    uint32_t mesh_count;
    rill_material *materials;
    uint32_t material_count;
    rill_texture *textures;
    uint32_t texture_count;
    rill_render_instance *instances;
    uint32_t instance_count;
    float bounds_min[3], bounds_max[3]; /* world-space bounds of all instances */
} rill_render_model;

/* Uploads `model`. base_dir resolves external image URIs (NULL = embedded images only; others are
 * skipped with a warning and draw untextured). Images that fail to decode are warnings too. */
rill_result rill_render_model_create(rill_renderer *r, const rill_gltf_model *model,
                                     const char *base_dir, rill_render_model *out, rill_error *err);
/* Same, with external image URIs resolved relative to model_path (a VFS path: the folder part of
 * it) and read through vfs, so a model inside a pack finds its images in the pack. A missing or
 * undecodable image is a warning naming the model and the image, and its texture draws as the
 * placeholder (white for color and occlusion data, a flat normal for normal maps). */
rill_result rill_render_model_create_vfs(rill_renderer *r, const rill_gltf_model *model,
                                         rill_vfs *vfs, const char *model_path,
                                         rill_render_model *out, rill_error *err);
/* Destroys the model's meshes, materials and textures and frees its arrays; *model is zeroed. */
void rill_render_model_destroy(rill_renderer *r, rill_render_model *model);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_MODEL_H */
