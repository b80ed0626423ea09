/* bench_models.h: generated models the way users export them, shared by the glTF and LOD
 * benches: a city of small building meshes (walls and roof of a box, each face a grid of quads,
 * UVs in metres, half the materials normal-mapped with TANGENT written for them) and a terrain
 * grid (gentle hills, analytic normals). Header-only, static functions. */
#ifndef RILL_BENCH_MODELS_H
#define RILL_BENCH_MODELS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/formats/gltf.h"

static inline void *bm_zalloc(size_t n, size_t size) {
    void *p = rill_calloc_tagged(n, size, RILL_MEM_FORMATS);
    if (!p) {
        fprintf(stderr, "bench_gltf: out of memory\n");
        exit(1);
    }
    return p;
}

static inline char *bm_dupstr(const char *s) {
    return rill_strdup(s);
}

static uint32_t bm_rng_state = 12345u;
static inline float bm_rnd(void) {
    bm_rng_state = bm_rng_state * 1664525u + 1013904223u;
    return (float)(bm_rng_state >> 8) / 16777216.0f;
}

/* Materials: `n` materials; the first `normal_mapped` sample a normal texture (an external image,
 * as exporters write them), so the reader must generate tangents for their primitives. */
static inline void add_materials(rill_gltf_model *m, uint32_t n, uint32_t normal_mapped) {
    m->material_count = n;
    m->materials = bm_zalloc(n, sizeof(rill_gltf_material));
    m->image_count = m->texture_count = normal_mapped;
    if (normal_mapped) {
        m->images = bm_zalloc(normal_mapped, sizeof(rill_gltf_image));
        m->textures = bm_zalloc(normal_mapped, sizeof(rill_gltf_texture));
    }
    rill_gltf_texref none = {-1, 0, 1.0f};
    for (uint32_t i = 0; i < n; i++) {
        rill_gltf_material *mt = &m->materials[i];
        char name[32];
        snprintf(name, sizeof(name), "facade_%u", i);
        mt->name = bm_dupstr(name);
        for (int k = 0; k < 4; k++) {
            mt->base_color_factor[k] = k == 3 ? 1.0f : 0.3f + 0.6f * bm_rnd();
        }
        mt->metallic_factor = 0.0f;
        mt->roughness_factor = 0.8f;
        mt->base_color_texture = mt->metallic_roughness_texture = none;
        mt->normal_texture = mt->occlusion_texture = mt->emissive_texture = none;
        mt->alpha_cutoff = 0.5f;
        if (i < normal_mapped) {
            snprintf(name, sizeof(name), "textures/facade_%u_n.png", i);
            m->images[i].uri = bm_dupstr(name);
            m->images[i].mime_type = bm_dupstr("image/png");
            m->textures[i].image = (int32_t)i;
            m->textures[i].sampler = -1;
            mt->normal_texture = (rill_gltf_texref){(int32_t)i, 0, 1.0f};
        }
    }
}

static inline void add_node(rill_gltf_node *n, const char *name, int32_t mesh, float x, float z) {
    n->name = bm_dupstr(name);
    n->parent = -1;
    n->mesh = mesh;
    n->camera = -1;
    n->light = -1;
    n->translation[0] = x;
    n->translation[2] = z;
    n->rotation[3] = 1.0f;
    n->scale[0] = n->scale[1] = n->scale[2] = 1.0f;
    n->matrix[0] = n->matrix[5] = n->matrix[10] = n->matrix[15] = 1.0f;
    n->matrix[12] = x;
    n->matrix[14] = z;
}

/* One building: the four walls and the roof of a box, each face an s x s grid of quads with its
 * own normal and UVs in metres (facade textures repeat every metre). */
static inline void building(rill_gltf_primitive *p, uint32_t s, float w, float d, float h,
                            bool tangents) {
    uint32_t per_face = (s + 1) * (s + 1);
    p->vertex_count = 5 * per_face;
    p->index_count = 5 * s * s * 6;
    p->positions = bm_zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->normals = bm_zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->uv0 = bm_zalloc((size_t)p->vertex_count * 2, sizeof(float));
    p->tangents = tangents ? bm_zalloc((size_t)p->vertex_count * 4, sizeof(float)) : NULL;
    p->indices = bm_zalloc(p->index_count, sizeof(uint32_t));
    /* Face frames: origin, u axis (length), v axis (length), normal. */
    const float fr[5][12] = {{-w, 0, d, 2 * w, 0, 0, 0, h, 0, 0, 0, 1},
                             {w, 0, -d, -2 * w, 0, 0, 0, h, 0, 0, 0, -1},
                             {w, 0, d, 0, 0, -2 * d, 0, h, 0, 1, 0, 0},
                             {-w, 0, -d, 0, 0, 2 * d, 0, h, 0, -1, 0, 0},
                             {-w, h, d, 2 * w, 0, 0, 0, 0, -2 * d, 0, 1, 0}};
    uint32_t vi = 0, ii = 0;
    for (int f = 0; f < 5; f++) {
        const float *F = fr[f];
        float ulen = sqrtf(F[3] * F[3] + F[4] * F[4] + F[5] * F[5]);
        float vlen = sqrtf(F[6] * F[6] + F[7] * F[7] + F[8] * F[8]);
        uint32_t base = vi;
        for (uint32_t y = 0; y <= s; y++) {
            for (uint32_t x = 0; x <= s; x++) {
                float a = (float)x / (float)s, b = (float)y / (float)s;
                for (int k = 0; k < 3; k++) {
                    p->positions[vi * 3 + k] = F[k] + a * F[3 + k] + b * F[6 + k];
                    p->normals[vi * 3 + k] = F[9 + k];
                }
                p->uv0[vi * 2] = a * ulen;
                p->uv0[vi * 2 + 1] = b * vlen;
                for (int k = 0; tangents && k < 3; k++) {
                    p->tangents[vi * 4 + k] = F[3 + k] / ulen; /* +u; every face has w = +1 */
                }
                if (tangents) {
                    p->tangents[vi * 4 + 3] = 1.0f;
                }
                vi++;
            }
        }
        for (uint32_t y = 0; y < s; y++) {
            for (uint32_t x = 0; x < s; x++) {
                uint32_t i0 = base + y * (s + 1) + x, i1 = i0 + 1, i2 = i0 + s + 1, i3 = i2 + 1;
                uint32_t q[6] = {i0, i1, i3, i0, i3, i2};
                memcpy(&p->indices[ii], q, sizeof(q));
                ii += 6;
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        p->bounds_min[k] = k == 1 ? 0.0f : (k == 0 ? -w : -d);
        p->bounds_max[k] = k == 1 ? h : (k == 0 ? w : d);
    }
}

static inline rill_gltf_model *make_city(uint32_t meshes, uint32_t s) {
    rill_gltf_model *m = bm_zalloc(1, sizeof(*m));
    add_materials(m, 16, 8);
    m->mesh_count = meshes;
    m->meshes = bm_zalloc(meshes, sizeof(rill_gltf_mesh));
    m->node_count = meshes;
    m->nodes = bm_zalloc(meshes, sizeof(rill_gltf_node));
    m->scene_count = 1;
    m->scenes = bm_zalloc(1, sizeof(rill_gltf_scene));
    m->scenes[0].nodes = bm_zalloc(meshes, sizeof(int32_t));
    m->scenes[0].node_count = meshes;
    m->default_scene = 0;
    uint32_t side = (uint32_t)ceil(sqrt((double)meshes));
    for (uint32_t i = 0; i < meshes; i++) {
        char name[32];
        snprintf(name, sizeof(name), "building_%u", i);
        m->meshes[i].name = bm_dupstr(name);
        m->meshes[i].primitive_count = 1;
        m->meshes[i].primitives = bm_zalloc(1, sizeof(rill_gltf_primitive));
        rill_gltf_primitive *p = &m->meshes[i].primitives[0];
        /* Half the materials are normal-mapped; their meshes carry TANGENT, as exporters
         * write it when asked to (bench_gltf's third file measures the reader generating them). */
        building(p, s, 4.0f + 6.0f * bm_rnd(), 4.0f + 6.0f * bm_rnd(), 8.0f + 60.0f * bm_rnd(),
                 i % 16u < 8u);
        p->material = (int32_t)(i % 16u);
        add_node(&m->nodes[i], name, (int32_t)i, 25.0f * (float)(i % side),
                 25.0f * (float)(i / side));
        m->scenes[0].nodes[i] = (int32_t)i;
    }
    return m;
}

/* A terrain grid of cx x cz cells (2 triangles each), gentle hills, analytic normals. */
static inline rill_gltf_model *make_grid(uint32_t cx, uint32_t cz, bool normal_mapped) {
    rill_gltf_model *m = bm_zalloc(1, sizeof(*m));
    add_materials(m, 1, normal_mapped ? 1 : 0);
    m->mesh_count = 1;
    m->meshes = bm_zalloc(1, sizeof(rill_gltf_mesh));
    m->meshes[0].name = bm_dupstr("terrain");
    m->meshes[0].primitive_count = 1;
    m->meshes[0].primitives = bm_zalloc(1, sizeof(rill_gltf_primitive));
    rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    uint32_t vx = cx + 1, vz = cz + 1;
    p->vertex_count = vx * vz;
    p->index_count = cx * cz * 6;
    p->positions = bm_zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->normals = bm_zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->uv0 = bm_zalloc((size_t)p->vertex_count * 2, sizeof(float));
    p->indices = bm_zalloc(p->index_count, sizeof(uint32_t));
    for (uint32_t z = 0; z < vz; z++) {
        for (uint32_t x = 0; x < vx; x++) {
            uint32_t v = z * vx + x;
            float fx = (float)x, fz = (float)z;
            float hgt = 3.0f * sinf(fx * 0.05f) * cosf(fz * 0.07f);
            float dx = 0.15f * cosf(fx * 0.05f) * cosf(fz * 0.07f);
            float dz = -0.21f * sinf(fx * 0.05f) * sinf(fz * 0.07f);
            float l = sqrtf(dx * dx + 1.0f + dz * dz);
            p->positions[v * 3] = fx;
            p->positions[v * 3 + 1] = hgt;
            p->positions[v * 3 + 2] = fz;
            p->normals[v * 3] = -dx / l;
            p->normals[v * 3 + 1] = 1.0f / l;
            p->normals[v * 3 + 2] = -dz / l;
            p->uv0[v * 2] = fx / 16.0f;
            p->uv0[v * 2 + 1] = fz / 16.0f;
        }
    }
    uint32_t ii = 0;
    for (uint32_t z = 0; z < cz; z++) {
        for (uint32_t x = 0; x < cx; x++) {
            uint32_t i0 = z * vx + x, i1 = i0 + 1, i2 = i0 + vx, i3 = i2 + 1;
            uint32_t q[6] = {i0, i2, i3, i0, i3, i1};
            memcpy(&p->indices[ii], q, sizeof(q));
            ii += 6;
        }
    }
    p->material = 0;
    m->node_count = 1;
    m->nodes = bm_zalloc(1, sizeof(rill_gltf_node));
    add_node(&m->nodes[0], "terrain", 0, 0.0f, 0.0f);
    m->scene_count = 1;
    m->scenes = bm_zalloc(1, sizeof(rill_gltf_scene));
    m->scenes[0].nodes = bm_zalloc(1, sizeof(int32_t));
    m->scenes[0].node_count = 1;
    m->default_scene = 0;
    for (int k = 0; k < 3; k++) {
        p->bounds_min[k] = 0.0f;
        p->bounds_max[k] = (float)(k == 0 ? cx : (k == 2 ? cz : 3));
    }
    p->bounds_min[1] = -3.0f;
    return m;
}

#endif /* RILL_BENCH_MODELS_H */
