/* gltf_test_models.h: procedural test models (cube with split normals, subdivided plane, UV
 * sphere) built directly as rill_gltf_model, plus a deep model comparison. Header-only, static
 * functions, shared by the glTF tests, the fuzz seed writer and the LOD bench. */
#ifndef RILL_GLTF_TEST_MODELS_H
#define RILL_GLTF_TEST_MODELS_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "../base64_encode.h"
#include "rill/formats/gltf.h"

static inline void *tm_alloc(size_t n, size_t size) {
    return rill_calloc_tagged(n, size, RILL_MEM_FORMATS);
}

static inline char *tm_strdup(const char *s) {
    return rill_strdup(s);
}

/* A model with one mesh of one primitive (arrays given, ownership taken), one node named
 * `name`, one scene, one material. */
static inline rill_gltf_model *tm_wrap(const char *name, uint32_t vertex_count, float *pos,
                                       float *nrm, float *uv, uint32_t index_count, uint32_t *idx) {
    rill_gltf_model *m = tm_alloc(1, sizeof(*m));
    m->mesh_count = 1;
    m->meshes = tm_alloc(1, sizeof(rill_gltf_mesh));
    m->meshes[0].name = tm_strdup(name);
    m->meshes[0].primitive_count = 1;
    m->meshes[0].primitives = tm_alloc(1, sizeof(rill_gltf_primitive));
    rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    p->vertex_count = vertex_count;
    p->positions = pos;
    p->normals = nrm;
    p->uv0 = uv;
    p->index_count = index_count;
    p->indices = idx;
    p->material = 0;
    /* Tangents from a trivial frame: these models are for geometry tests; the reader's
     * generator is exercised by the files that lack tangents. */
    p->tangents = tm_alloc((size_t)vertex_count * 4, sizeof(float));
    for (uint32_t v = 0; v < vertex_count; v++) {
        const float *n = &nrm[v * 3];
        float a[3] = {1, 0, 0};
        if (fabsf(n[0]) > 0.9f) {
            a[0] = 0;
            a[1] = 1;
        }
        float t[3] = {n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2],
                      n[0] * a[1] - n[1] * a[0]};
        float l = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        p->tangents[v * 4 + 0] = t[0] / l;
        p->tangents[v * 4 + 1] = t[1] / l;
        p->tangents[v * 4 + 2] = t[2] / l;
        p->tangents[v * 4 + 3] = 1.0f;
    }
    for (int k = 0; k < 3; k++) {
        p->bounds_min[k] = p->bounds_max[k] = pos[k];
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        for (int k = 0; k < 3; k++) {
            float x = pos[v * 3 + k];
            p->bounds_min[k] = x < p->bounds_min[k] ? x : p->bounds_min[k];
            p->bounds_max[k] = x > p->bounds_max[k] ? x : p->bounds_max[k];
        }
    }
    m->node_count = 1;
    m->nodes = tm_alloc(1, sizeof(rill_gltf_node));
    rill_gltf_node *n = &m->nodes[0];
    n->name = tm_strdup(name);
    n->parent = -1;
    n->mesh = 0;
    n->camera = -1;
    n->light = -1;
    n->rotation[3] = 1;
    n->scale[0] = n->scale[1] = n->scale[2] = 1;
    n->translation[1] = 2.5f;
    memset(n->matrix, 0, sizeof(n->matrix));
    n->matrix[0] = n->matrix[5] = n->matrix[10] = n->matrix[15] = 1;
    n->matrix[13] = 2.5f;
    m->scene_count = 1;
    m->scenes = tm_alloc(1, sizeof(rill_gltf_scene));
    m->scenes[0].node_count = 1;
    m->scenes[0].nodes = tm_alloc(1, sizeof(int32_t));
    m->default_scene = 0;
    m->material_count = 1;
    m->materials = tm_alloc(1, sizeof(rill_gltf_material));
    rill_gltf_material *mat = &m->materials[0];
    mat->name = tm_strdup("paint");
    mat->base_color_factor[0] = 0.8f;
    mat->base_color_factor[1] = 0.2f;
    mat->base_color_factor[2] = 0.1f;
    mat->base_color_factor[3] = 1.0f;
    mat->metallic_factor = 0.0f;
    mat->roughness_factor = 0.5f;
    rill_gltf_texref none = {-1, 0, 1.0f};
    mat->base_color_texture = none;
    mat->metallic_roughness_texture = none;
    mat->normal_texture = none;
    mat->occlusion_texture = none;
    mat->emissive_texture = none;
    mat->specular_texture = mat->specular_color_texture = none;
    mat->clearcoat_texture = mat->clearcoat_roughness_texture = none;
    mat->clearcoat_normal_texture = none;
    mat->alpha_cutoff = 0.5f;
    return m;
}

/* A unit cube with 24 vertices (4 per face, split normals) and 12 triangles. */
static inline rill_gltf_model *tm_cube(void) {
    float *pos = tm_alloc(24 * 3, sizeof(float));
    float *nrm = tm_alloc(24 * 3, sizeof(float));
    float *uv = tm_alloc(24 * 2, sizeof(float));
    uint32_t *idx = tm_alloc(36, sizeof(uint32_t));
    /* Each face: axis a, sign s; corners in the face's (u, v) plane ordered counter-clockwise
     * seen from outside. */
    for (int f = 0; f < 6; f++) {
        int a = f / 2;
        float s = (f % 2) ? -1.0f : 1.0f;
        int u = (a + 1) % 3, w = (a + 2) % 3;
        float cu[4] = {-1, 1, 1, -1}, cw[4] = {-1, -1, 1, 1};
        for (int c = 0; c < 4; c++) {
            int v = f * 4 + c;
            float p[3];
            p[a] = 0.5f * s;
            p[u] = 0.5f * cu[c] * s;
            p[w] = 0.5f * cw[c];
            memcpy(&pos[v * 3], p, sizeof(p));
            nrm[v * 3 + a] = s;
            uv[v * 2] = (cu[c] + 1) * 0.5f;
            uv[v * 2 + 1] = (cw[c] + 1) * 0.5f;
        }
        uint32_t b = (uint32_t)f * 4;
        uint32_t q[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
        memcpy(&idx[f * 6], q, sizeof(q));
    }
    return tm_wrap("cube", 24, pos, nrm, uv, 36, idx);
}

/* Gives primitive p vertex colours (channel values cycling 0, 0.25 .. 1) and a second UV set (a
 * copy of the first). */
static inline void tm_add_colors_uv1(rill_gltf_primitive *p) {
    p->colors = tm_alloc((size_t)p->vertex_count * 4, sizeof(float));
    p->uv1 = tm_alloc((size_t)p->vertex_count * 2, sizeof(float));
    for (uint32_t v = 0; v < p->vertex_count * 4; v++) {
        p->colors[v] = (float)(v % 5) * 0.25f;
    }
    memcpy(p->uv1, p->uv0, (size_t)p->vertex_count * 2 * sizeof(float));
}

/* A flat n x n quad grid in the XZ plane, (n+1)^2 vertices, 2 n^2 triangles. */
static inline rill_gltf_model *tm_plane(uint32_t n) {
    uint32_t vc = (n + 1) * (n + 1);
    float *pos = tm_alloc((size_t)vc * 3, sizeof(float));
    float *nrm = tm_alloc((size_t)vc * 3, sizeof(float));
    float *uv = tm_alloc((size_t)vc * 2, sizeof(float));
    uint32_t *idx = tm_alloc((size_t)n * n * 6, sizeof(uint32_t));
    for (uint32_t z = 0; z <= n; z++) {
        for (uint32_t x = 0; x <= n; x++) {
            uint32_t v = z * (n + 1) + x;
            pos[v * 3] = (float)x / (float)n;
            pos[v * 3 + 2] = (float)z / (float)n;
            nrm[v * 3 + 1] = 1.0f;
            uv[v * 2] = (float)x / (float)n;
            uv[v * 2 + 1] = (float)z / (float)n;
        }
    }
    uint32_t k = 0;
    for (uint32_t z = 0; z < n; z++) {
        for (uint32_t x = 0; x < n; x++) {
            uint32_t a = z * (n + 1) + x, b = a + 1, c = a + n + 1, d = c + 1;
            uint32_t q[6] = {a, c, b, b, c, d};
            memcpy(&idx[k], q, sizeof(q));
            k += 6;
        }
    }
    return tm_wrap("plane", vc, pos, nrm, uv, k, idx);
}

/* A UV sphere of radius 1: `seg` segments around, `rings` rings, duplicated seam and pole
 * vertices (as exporters write them), poles as triangle fans. */
static inline rill_gltf_model *tm_sphere(uint32_t seg, uint32_t rings) {
    uint32_t vc = (seg + 1) * (rings + 1);
    float *pos = tm_alloc((size_t)vc * 3, sizeof(float));
    float *nrm = tm_alloc((size_t)vc * 3, sizeof(float));
    float *uv = tm_alloc((size_t)vc * 2, sizeof(float));
    uint32_t *idx = tm_alloc((size_t)seg * rings * 6, sizeof(uint32_t));
    const float pi = 3.14159265358979f;
    for (uint32_t r = 0; r <= rings; r++) {
        float th = pi * (float)r / (float)rings;
        for (uint32_t s = 0; s <= seg; s++) {
            float ph = 2.0f * pi * (float)(s % seg) / (float)seg;
            uint32_t v = r * (seg + 1) + s;
            float p[3] = {sinf(th) * cosf(ph), cosf(th), sinf(th) * sinf(ph)};
            if (r == 0 || r == rings) {
                p[0] = 0.0f;
                p[2] = 0.0f;
            }
            memcpy(&pos[v * 3], p, sizeof(p));
            memcpy(&nrm[v * 3], p, sizeof(p));
            uv[v * 2] = (float)s / (float)seg;
            uv[v * 2 + 1] = (float)r / (float)rings;
        }
    }
    uint32_t k = 0;
    for (uint32_t r = 0; r < rings; r++) {
        for (uint32_t s = 0; s < seg; s++) {
            uint32_t a = r * (seg + 1) + s, b = a + 1, c = a + seg + 1, d = c + 1;
            if (r != 0) {
                idx[k++] = a;
                idx[k++] = b;
                idx[k++] = c;
            }
            if (r != rings - 1) {
                idx[k++] = b;
                idx[k++] = d;
                idx[k++] = c;
            }
        }
    }
    return tm_wrap("sphere", vc, pos, nrm, uv, k, idx);
}

static inline bool tm_str_eq(const char *a, const char *b) {
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static inline bool tm_floats_eq(const float *a, const float *b, size_t n) {
    if (!a || !b) {
        return a == b;
    }
    return memcmp(a, b, n * sizeof(float)) == 0;
}

/* Deep equality of two models (bit-exact floats). Writes the first difference to why. */
static inline bool tm_models_equal(const rill_gltf_model *a, const rill_gltf_model *b,
                                   const char **why) {
#define TM_CHECK(cond, what)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            *why = what;                                                                           \
            return false;                                                                          \
        }                                                                                          \
    } while (0)
    TM_CHECK(a->mesh_count == b->mesh_count, "mesh_count");
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const rill_gltf_mesh *ma = &a->meshes[i], *mb = &b->meshes[i];
        TM_CHECK(tm_str_eq(ma->name, mb->name), "mesh name");
        TM_CHECK(ma->primitive_count == mb->primitive_count, "primitive_count");
        for (uint32_t p = 0; p < ma->primitive_count; p++) {
            const rill_gltf_primitive *pa = &ma->primitives[p], *pb = &mb->primitives[p];
            size_t n = pa->vertex_count;
            TM_CHECK(pa->vertex_count == pb->vertex_count, "vertex_count");
            TM_CHECK(tm_floats_eq(pa->positions, pb->positions, n * 3), "positions");
            TM_CHECK(tm_floats_eq(pa->normals, pb->normals, n * 3), "normals");
            TM_CHECK(tm_floats_eq(pa->tangents, pb->tangents, n * 4), "tangents");
            TM_CHECK(tm_floats_eq(pa->uv0, pb->uv0, n * 2), "uv0");
            TM_CHECK(tm_floats_eq(pa->uv1, pb->uv1, n * 2), "uv1");
            TM_CHECK(tm_floats_eq(pa->colors, pb->colors, n * 4), "colors");
            TM_CHECK(pa->index_count == pb->index_count, "index_count");
            TM_CHECK(memcmp(pa->indices, pb->indices, pa->index_count * 4u) == 0, "indices");
            TM_CHECK(pa->edge_index_count == pb->edge_index_count, "edge_index_count");
            TM_CHECK(pa->edge_index_count == 0 ||
                         memcmp(pa->edge_indices, pb->edge_indices, pa->edge_index_count * 4u) == 0,
                     "edge_indices");
            TM_CHECK(pa->material == pb->material, "primitive material");
            TM_CHECK(tm_floats_eq(pa->bounds_min, pb->bounds_min, 3), "bounds_min");
            TM_CHECK(tm_floats_eq(pa->bounds_max, pb->bounds_max, 3), "bounds_max");
        }
    }
    TM_CHECK(a->node_count == b->node_count, "node_count");
    for (uint32_t i = 0; i < a->node_count; i++) {
        const rill_gltf_node *na = &a->nodes[i], *nb = &b->nodes[i];
        TM_CHECK(tm_str_eq(na->name, nb->name), "node name");
        TM_CHECK(na->parent == nb->parent && na->mesh == nb->mesh && na->camera == nb->camera &&
                     na->light == nb->light && na->child_count == nb->child_count,
                 "node links");
        TM_CHECK(na->child_count == 0 ||
                     memcmp(na->children, nb->children, na->child_count * 4u) == 0,
                 "node children");
        TM_CHECK(na->has_matrix == nb->has_matrix, "node has_matrix");
        TM_CHECK(tm_floats_eq(na->matrix, nb->matrix, 16), "node matrix");
    }
    TM_CHECK(a->scene_count == b->scene_count && a->default_scene == b->default_scene, "scenes");
    for (uint32_t i = 0; i < a->scene_count; i++) {
        TM_CHECK(tm_str_eq(a->scenes[i].name, b->scenes[i].name), "scene name");
        TM_CHECK(a->scenes[i].node_count == b->scenes[i].node_count, "scene node_count");
    }
    TM_CHECK(a->material_count == b->material_count, "material_count");
    for (uint32_t i = 0; i < a->material_count; i++) {
        const rill_gltf_material *x = &a->materials[i], *y = &b->materials[i];
        TM_CHECK(tm_str_eq(x->name, y->name), "material name");
        TM_CHECK(tm_floats_eq(x->base_color_factor, y->base_color_factor, 4) &&
                     x->metallic_factor == y->metallic_factor &&
                     x->roughness_factor == y->roughness_factor &&
                     tm_floats_eq(x->emissive_factor, y->emissive_factor, 3) &&
                     x->alpha_mode == y->alpha_mode && x->double_sided == y->double_sided,
                 "material factors");
        TM_CHECK(x->base_color_texture.texture == y->base_color_texture.texture &&
                     x->normal_texture.texture == y->normal_texture.texture &&
                     x->normal_texture.scale == y->normal_texture.scale &&
                     x->occlusion_texture.scale == y->occlusion_texture.scale &&
                     x->emissive_texture.texture == y->emissive_texture.texture &&
                     x->metallic_roughness_texture.texture == y->metallic_roughness_texture.texture,
                 "material textures");
        const rill_gltf_texref *xr[5] = {&x->base_color_texture, &x->normal_texture,
                                         &x->metallic_roughness_texture, &x->occlusion_texture,
                                         &x->emissive_texture};
        const rill_gltf_texref *yr[5] = {&y->base_color_texture, &y->normal_texture,
                                         &y->metallic_roughness_texture, &y->occlusion_texture,
                                         &y->emissive_texture};
        for (int k = 0; k < 5; k++) {
            TM_CHECK(xr[k]->has_transform == yr[k]->has_transform &&
                         (!xr[k]->has_transform ||
                          (tm_floats_eq(xr[k]->offset, yr[k]->offset, 2) &&
                           xr[k]->rotation == yr[k]->rotation &&
                           tm_floats_eq(xr[k]->uv_scale, yr[k]->uv_scale, 2) &&
                           xr[k]->transform_texcoord == yr[k]->transform_texcoord)),
                     "texture transform");
        }
    }
    TM_CHECK(a->texture_count == b->texture_count && a->sampler_count == b->sampler_count &&
                 a->image_count == b->image_count,
             "texture/sampler/image counts");
    for (uint32_t i = 0; i < a->image_count; i++) {
        TM_CHECK(a->images[i].size == b->images[i].size &&
                     tm_str_eq(a->images[i].uri, b->images[i].uri),
                 "image");
        TM_CHECK(a->images[i].size == 0 ||
                     memcmp(a->images[i].data, b->images[i].data, a->images[i].size) == 0,
                 "image bytes");
    }
    TM_CHECK(a->camera_count == b->camera_count && a->light_count == b->light_count,
             "camera/light counts");
    for (uint32_t i = 0; i < a->camera_count; i++) {
        TM_CHECK(a->cameras[i].type == b->cameras[i].type &&
                     a->cameras[i].yfov == b->cameras[i].yfov &&
                     a->cameras[i].znear == b->cameras[i].znear &&
                     a->cameras[i].zfar == b->cameras[i].zfar,
                 "camera");
    }
    for (uint32_t i = 0; i < a->light_count; i++) {
        TM_CHECK(a->lights[i].type == b->lights[i].type &&
                     a->lights[i].intensity == b->lights[i].intensity &&
                     tm_floats_eq(a->lights[i].color, b->lights[i].color, 3),
                 "light");
    }
#undef TM_CHECK
    return true;
}

#endif /* RILL_GLTF_TEST_MODELS_H */
