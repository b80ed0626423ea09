/* gltf_model.c: the CPU glTF model's lifetime (free, deep copy) and the geometry fix-ups every
 * producer of a model shares: bounds, normal normalization/generation, tangent generation, and
 * the TRS -> matrix conversion. */
#include "gltf_internal.h"

#include <math.h>
#include <string.h>

/* Arrays of a model are written in full as soon as they are allocated (decoded, generated), so
 * large ones come from rill_malloc_bulk: huge pages, and zeros without a memset. */
void *rill__gltf_alloc(size_t count, size_t size) {
    if (count == 0 || size == 0 || count > SIZE_MAX / size) {
        return NULL;
    }
    bool zeroed = false;
    void *p = rill_malloc_bulk(count * size, RILL_MEM_FORMATS, &zeroed);
    if (p && !zeroed) {
        memset(p, 0, count * size);
    }
    return p;
}

void *rill__gltf_alloc_raw(size_t count, size_t size) {
    if (count == 0 || size == 0 || count > SIZE_MAX / size) {
        return NULL;
    }
    return rill_malloc_bulk(count * size, RILL_MEM_FORMATS, NULL);
}

void *rill__scratch_get(rill__scratch *s, size_t bytes) {
    if (bytes > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < bytes && cap <= SIZE_MAX / 2) {
            cap *= 2;
        }
        if (cap < bytes) {
            return NULL;
        }
        void *nb = rill_malloc_tagged(cap, RILL_MEM_FORMATS);
        if (!nb) {
            return NULL;
        }
        rill_free(s->buf);
        s->buf = nb;
        s->cap = cap;
    }
    return s->buf;
}

void rill__scratch_free(rill__scratch *s) {
    rill_free(s->buf);
    s->buf = NULL;
    s->cap = 0;
}

char *rill__gltf_strdup(const char *s) {
    if (!s) {
        return NULL;
    }
    size_t n = strlen(s);
    char *d = rill_malloc_tagged(n + 1, RILL_MEM_FORMATS);
    if (d) {
        memcpy(d, s, n + 1);
    }
    return d;
}

uint32_t rill__gltf_material_texrefs(const rill_gltf_material *ma, const rill_gltf_texref **out) {
    uint32_t n = 0;
    out[n++] = &ma->base_color_texture;
    out[n++] = &ma->metallic_roughness_texture;
    out[n++] = &ma->normal_texture;
    out[n++] = &ma->occlusion_texture;
    out[n++] = &ma->emissive_texture;
    if (ma->has_specular) {
        out[n++] = &ma->specular_texture;
        out[n++] = &ma->specular_color_texture;
    }
    if (ma->clearcoat_factor > 0.0f) {
        out[n++] = &ma->clearcoat_texture;
        out[n++] = &ma->clearcoat_roughness_texture;
        out[n++] = &ma->clearcoat_normal_texture;
    }
    if (ma->transmission_factor > 0.0f) {
        out[n++] = &ma->transmission_texture;
    }
    if (ma->has_volume) {
        out[n++] = &ma->thickness_texture;
    }
    if (ma->has_sheen) {
        out[n++] = &ma->sheen_color_texture;
        out[n++] = &ma->sheen_roughness_texture;
    }
    if (ma->iridescence_factor > 0.0f) {
        out[n++] = &ma->iridescence_texture;
        out[n++] = &ma->iridescence_thickness_texture;
    }
    if (ma->anisotropy_strength > 0.0f) {
        out[n++] = &ma->anisotropy_texture;
    }
    return n;
}

void rill__gltf_primitive_release(rill_gltf_primitive *prim) {
    rill_free(prim->positions);
    rill_free(prim->normals);
    rill_free(prim->tangents);
    rill_free(prim->uv0);
    rill_free(prim->uv1);
    rill_free(prim->colors);
    rill_free(prim->joints);
    rill_free(prim->weights);
    rill_free(prim->target_positions);
    rill_free(prim->target_normals);
    rill_free(prim->indices);
    rill_free(prim->edge_indices);
    rill_free(prim->variant_materials);
    memset(prim, 0, sizeof(*prim));
    prim->material = -1;
}

void rill_gltf_model_free(rill_gltf_model *m) {
    if (!m) {
        return;
    }
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        rill_gltf_mesh *mesh = &m->meshes[i];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            rill__gltf_primitive_release(&mesh->primitives[p]);
        }
        rill_free(mesh->primitives);
        rill_free(mesh->name);
        rill_free(mesh->weights);
    }
    rill_free(m->meshes);
    for (uint32_t i = 0; i < m->node_count; i++) {
        rill_free(m->nodes[i].name);
        rill_free(m->nodes[i].children);
        rill_free(m->nodes[i].weights);
    }
    rill_free(m->nodes);
    for (uint32_t i = 0; i < m->scene_count; i++) {
        rill_free(m->scenes[i].name);
        rill_free(m->scenes[i].nodes);
    }
    rill_free(m->scenes);
    for (uint32_t i = 0; i < m->material_count; i++) {
        rill_free(m->materials[i].name);
    }
    rill_free(m->materials);
    for (uint32_t i = 0; i < m->texture_count; i++) {
        rill_free(m->textures[i].name);
    }
    rill_free(m->textures);
    for (uint32_t i = 0; i < m->sampler_count; i++) {
        rill_free(m->samplers[i].name);
    }
    rill_free(m->samplers);
    for (uint32_t i = 0; i < m->image_count; i++) {
        rill_free(m->images[i].name);
        rill_free(m->images[i].uri);
        rill_free(m->images[i].mime_type);
        rill_free(m->images[i].data);
    }
    rill_free(m->images);
    for (uint32_t i = 0; i < m->camera_count; i++) {
        rill_free(m->cameras[i].name);
    }
    rill_free(m->cameras);
    for (uint32_t i = 0; i < m->light_count; i++) {
        rill_free(m->lights[i].name);
    }
    rill_free(m->lights);
    rill__gltf_animations_free(m);
    for (uint32_t i = 0; i < m->skin_count; i++) {
        rill_free(m->skins[i].name);
        rill_free(m->skins[i].joints);
        rill_free(m->skins[i].inverse_bind_matrices);
    }
    rill_free(m->skins);
    for (uint32_t i = 0; i < m->variant_count; i++) {
        rill_free(m->variant_names[i]);
    }
    rill_free(m->variant_names);
    rill_free(m);
}

uint64_t rill_gltf_model_triangle_count(const rill_gltf_model *m) {
    uint64_t n = 0;
    if (!m) {
        return 0;
    }
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            n += m->meshes[i].primitives[p].index_count / 3u;
        }
    }
    return n;
}

void rill__gltf_primitive_bounds(rill_gltf_primitive *prim) {
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    if (prim->vertex_count) {
        memcpy(lo, prim->positions, sizeof(lo));
        memcpy(hi, prim->positions, sizeof(hi));
    }
    for (uint32_t v = 1; v < prim->vertex_count; v++) {
        const float *p = &prim->positions[(size_t)v * 3];
        for (int k = 0; k < 3; k++) {
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
        }
    }
    memcpy(prim->bounds_min, lo, sizeof(lo));
    memcpy(prim->bounds_max, hi, sizeof(hi));
}

bool rill__gltf_primitive_fix_normals(rill_gltf_primitive *prim, bool generate_all) {
    uint32_t n = prim->vertex_count;
    if (n == 0) {
        return true;
    }
    bool need = generate_all || !prim->normals;
    if (!need) {
        /* The common case: every normal already unit length within the tolerance of the
         * rescale below, so there is nothing to do. */
        if (rill__gltf_normals_unit(prim->normals, n)) {
            return true;
        }
        for (uint32_t v = 0; v < n && !need; v++) {
            need = !usable3(&prim->normals[(size_t)v * 3]);
        }
    }
    if (need) {
        /* Area-weighted face normals accumulated on the vertices the index buffer shares: the
         * cross product's length is twice the triangle area, so summing it unnormalized weighs
         * big faces more, which is what smooth shading of an unnormaled mesh expects. */
        float *acc = rill__gltf_alloc((size_t)n * 3, sizeof(float));
        if (!acc) {
            return false;
        }
        for (uint32_t t = 0; t + 2 < prim->index_count; t += 3) {
            uint32_t i0 = prim->indices[t], i1 = prim->indices[t + 1], i2 = prim->indices[t + 2];
            const float *p0 = &prim->positions[(size_t)i0 * 3];
            const float *p1 = &prim->positions[(size_t)i1 * 3];
            const float *p2 = &prim->positions[(size_t)i2 * 3];
            float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
            float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
            float fn[3];
            cross3(e1, e2, fn);
            if (!isfinite(fn[0] + fn[1] + fn[2])) {
                continue;
            }
            for (int k = 0; k < 3; k++) {
                acc[(size_t)i0 * 3 + k] += fn[k];
                acc[(size_t)i1 * 3 + k] += fn[k];
                acc[(size_t)i2 * 3 + k] += fn[k];
            }
        }
        if (!prim->normals) {
            prim->normals = acc;
            generate_all = true;
        } else {
            for (uint32_t v = 0; v < n; v++) {
                float *dst = &prim->normals[(size_t)v * 3];
                if (generate_all || !usable3(dst)) {
                    memcpy(dst, &acc[(size_t)v * 3], sizeof(float) * 3);
                }
            }
            rill_free(acc);
        }
    }
    for (uint32_t v = 0; v < n; v++) {
        float *d = &prim->normals[(size_t)v * 3];
        float l = len3(d);
        if (!isfinite(l) || l <= 1e-20f) {
            d[0] = 0.0f;
            d[1] = 0.0f;
            d[2] = 1.0f;
        } else if (fabsf(l - 1.0f) > 1e-5f) {
            /* Only visibly non-unit vectors are rescaled, so reading a written file leaves
             * normals bit-identical (normalizing twice can change the last bit). */
            d[0] /= l;
            d[1] /= l;
            d[2] /= l;
        }
    }
    return true;
}

void rill__gltf_trs_to_matrix(const float t[3], const float r[4], const float s[3], float m[16]) {
    float x = r[0], y = r[1], z = r[2], w = r[3];
    float xx = x * x, yy = y * y, zz = z * z;
    float xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    m[0] = (1 - 2 * (yy + zz)) * s[0];
    m[1] = (2 * (xy + wz)) * s[0];
    m[2] = (2 * (xz - wy)) * s[0];
    m[3] = 0;
    m[4] = (2 * (xy - wz)) * s[1];
    m[5] = (1 - 2 * (xx + zz)) * s[1];
    m[6] = (2 * (yz + wx)) * s[1];
    m[7] = 0;
    m[8] = (2 * (xz + wy)) * s[2];
    m[9] = (2 * (yz - wx)) * s[2];
    m[10] = (1 - 2 * (xx + yy)) * s[2];
    m[11] = 0;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

/* >>clone ------------------------------------------------------------------------------------- */

static bool dup_floats(float **dst, const float *src, size_t n) {
    *dst = NULL;
    if (!src || n == 0) {
        return true;
    }
    *dst = rill__gltf_alloc(n, sizeof(float));
    if (!*dst) {
        return false;
    }
    memcpy(*dst, src, n * sizeof(float));
    return true;
}

static bool dup_u32(uint32_t **dst, const uint32_t *src, size_t n) {
    *dst = NULL;
    if (!src || n == 0) {
        return true;
    }
    *dst = rill__gltf_alloc(n, sizeof(uint32_t));
    if (!*dst) {
        return false;
    }
    memcpy(*dst, src, n * sizeof(uint32_t));
    return true;
}

static bool dup_i32(int32_t **dst, const int32_t *src, size_t n) {
    *dst = NULL;
    if (!src || n == 0) {
        return true;
    }
    *dst = rill__gltf_alloc(n, sizeof(int32_t));
    if (!*dst) {
        return false;
    }
    memcpy(*dst, src, n * sizeof(int32_t));
    return true;
}

/* Copies `count` structs of `size` bytes; the caller then deep-copies their pointers. */
static bool dup_structs(void **dst, const void *src, size_t count, size_t size) {
    *dst = NULL;
    if (count == 0) {
        return true;
    }
    *dst = rill__gltf_alloc(count, size);
    if (!*dst) {
        return false;
    }
    memcpy(*dst, src, count * size);
    return true;
}

static bool dup_str(char **dst, const char *src) {
    *dst = NULL;
    if (!src) {
        return true;
    }
    *dst = rill__gltf_strdup(src);
    return *dst != NULL;
}

/* Every array is first copied shallowly, then every pointer in it is cleared before being deep
 * copied from the source, so a failure halfway leaves a model that frees only its own memory. */
static rill_gltf_model *clone_impl(const rill_gltf_model *src, bool geometry) {
    rill_gltf_model *m = rill__gltf_alloc(1, sizeof(*m));
    if (!m) {
        return NULL;
    }
    m->default_scene = src->default_scene;
    m->skipped_primitives = src->skipped_primitives;
    bool ok = true;
#define RILL__CLONE_ARRAY(field, count)                                                            \
    do {                                                                                           \
        ok = ok && dup_structs((void **)&m->field, src->field, src->count, sizeof(*src->field));   \
        if (ok) {                                                                                  \
            m->count = src->count;                                                                 \
        }                                                                                          \
    } while (0)
    RILL__CLONE_ARRAY(meshes, mesh_count);
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        m->meshes[i].name = NULL;
        m->meshes[i].primitives = NULL;
        m->meshes[i].primitive_count = 0;
        m->meshes[i].weights = NULL;
    }
    for (uint32_t i = 0; ok && i < m->mesh_count; i++) {
        rill_gltf_mesh *mesh = &m->meshes[i];
        const rill_gltf_mesh *sm = &src->meshes[i];
        ok = dup_str(&mesh->name, sm->name) &&
             dup_floats(&mesh->weights, sm->weights, sm->weight_count) &&
             dup_structs((void **)&mesh->primitives, sm->primitives, sm->primitive_count,
                         sizeof(*sm->primitives));
        if (!ok) {
            break;
        }
        mesh->primitive_count = sm->primitive_count;
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            rill_gltf_primitive *d = &mesh->primitives[p];
            d->positions = d->normals = d->tangents = d->uv0 = d->uv1 = d->colors = NULL;
            d->joints = d->weights = NULL;
            d->target_positions = d->target_normals = NULL;
            d->indices = d->edge_indices = NULL;
            d->variant_materials = NULL;
        }
        for (uint32_t p = 0; ok && p < mesh->primitive_count; p++) {
            const rill_gltf_primitive *s = &sm->primitives[p];
            ok = !s->variant_materials || dup_i32(&mesh->primitives[p].variant_materials,
                                                  s->variant_materials, src->variant_count);
        }
        for (uint32_t p = 0; ok && geometry && p < mesh->primitive_count; p++) {
            rill_gltf_primitive *d = &mesh->primitives[p];
            const rill_gltf_primitive *s = &sm->primitives[p];
            size_t n = s->vertex_count;
            ok = dup_floats(&d->positions, s->positions, n * 3) &&
                 dup_floats(&d->normals, s->normals, n * 3) &&
                 dup_floats(&d->tangents, s->tangents, n * 4) &&
                 dup_floats(&d->uv0, s->uv0, n * 2) && dup_floats(&d->uv1, s->uv1, n * 2) &&
                 dup_floats(&d->colors, s->colors, n * 4) &&
                 dup_floats(&d->joints, s->joints, n * 4) &&
                 dup_floats(&d->weights, s->weights, n * 4) &&
                 dup_floats(&d->target_positions, s->target_positions, n * 3 * s->target_count) &&
                 dup_floats(&d->target_normals, s->target_normals, n * 3 * s->target_count) &&
                 dup_u32(&d->indices, s->indices, s->index_count) &&
                 dup_u32(&d->edge_indices, s->edge_indices, s->edge_index_count);
        }
    }
    RILL__CLONE_ARRAY(nodes, node_count);
    for (uint32_t i = 0; i < m->node_count; i++) {
        m->nodes[i].name = NULL;
        m->nodes[i].children = NULL;
        m->nodes[i].weights = NULL;
    }
    for (uint32_t i = 0; ok && i < m->node_count; i++) {
        ok = dup_str(&m->nodes[i].name, src->nodes[i].name) &&
             dup_floats(&m->nodes[i].weights, src->nodes[i].weights, src->nodes[i].weight_count) &&
             dup_i32(&m->nodes[i].children, src->nodes[i].children, src->nodes[i].child_count);
    }
    RILL__CLONE_ARRAY(scenes, scene_count);
    for (uint32_t i = 0; i < m->scene_count; i++) {
        m->scenes[i].name = NULL;
        m->scenes[i].nodes = NULL;
    }
    for (uint32_t i = 0; ok && i < m->scene_count; i++) {
        ok = dup_str(&m->scenes[i].name, src->scenes[i].name) &&
             dup_i32(&m->scenes[i].nodes, src->scenes[i].nodes, src->scenes[i].node_count);
    }
#define RILL__CLONE_NAMED(field, count)                                                            \
    do {                                                                                           \
        RILL__CLONE_ARRAY(field, count);                                                           \
        for (uint32_t i = 0; i < m->count; i++) {                                                  \
            m->field[i].name = NULL;                                                               \
        }                                                                                          \
        for (uint32_t i = 0; ok && i < m->count; i++) {                                            \
            ok = dup_str(&m->field[i].name, src->field[i].name);                                   \
        }                                                                                          \
    } while (0)
    RILL__CLONE_NAMED(materials, material_count);
    RILL__CLONE_NAMED(textures, texture_count);
    RILL__CLONE_NAMED(samplers, sampler_count);
    RILL__CLONE_NAMED(cameras, camera_count);
    RILL__CLONE_NAMED(lights, light_count);
    RILL__CLONE_ARRAY(images, image_count);
    for (uint32_t i = 0; i < m->image_count; i++) {
        m->images[i].name = m->images[i].uri = m->images[i].mime_type = NULL;
        m->images[i].data = NULL;
    }
    for (uint32_t i = 0; ok && i < m->image_count; i++) {
        rill_gltf_image *im = &m->images[i];
        const rill_gltf_image *si = &src->images[i];
        ok = dup_str(&im->name, si->name) && dup_str(&im->uri, si->uri) &&
             dup_str(&im->mime_type, si->mime_type);
        if (ok && si->data && si->size) {
            im->data = rill_malloc_tagged(si->size, RILL_MEM_FORMATS);
            ok = im->data != NULL;
            if (ok) {
                memcpy(im->data, si->data, si->size);
            }
        }
    }
    RILL__CLONE_NAMED(skins, skin_count);
    for (uint32_t i = 0; i < m->skin_count; i++) {
        m->skins[i].joints = NULL;
        m->skins[i].inverse_bind_matrices = NULL;
    }
    for (uint32_t i = 0; ok && i < m->skin_count; i++) {
        const rill_gltf_skin *ss = &src->skins[i];
        ok = dup_i32(&m->skins[i].joints, ss->joints, ss->joint_count) &&
             dup_floats(&m->skins[i].inverse_bind_matrices, ss->inverse_bind_matrices,
                        (size_t)ss->joint_count * 16);
    }
    if (ok && src->variant_count) {
        m->variant_names = rill__gltf_alloc(src->variant_count, sizeof(char *));
        ok = m->variant_names != NULL;
        for (uint32_t i = 0; ok && i < src->variant_count; i++) {
            m->variant_count = i + 1u;
            ok = dup_str(&m->variant_names[i], src->variant_names[i]);
        }
    }
#undef RILL__CLONE_NAMED
#undef RILL__CLONE_ARRAY
    ok = ok && rill__gltf_animations_clone(m, src);
    if (!ok) {
        rill_gltf_model_free(m);
        return NULL;
    }
    return m;
}

rill_gltf_model *rill__gltf_model_clone(const rill_gltf_model *src) {
    return clone_impl(src, true);
}

rill_gltf_model *rill__gltf_model_clone_shell(const rill_gltf_model *src) {
    return clone_impl(src, false);
}
