/* bench_gltf.c: glTF reader throughput on the two shapes of file users export: a city of 4,096
 * small meshes (about 30 MB) and one 1 M-triangle grid (about 28 MB), both written to disk with
 * Rill's own .glb writer, plus the same grid with a normal-mapped material (which makes the
 * reader generate tangents). Each file is read from memory `reps` times; when cgltf is built in
 * (see CMakeLists.txt), its parse + load + validate + decode-every-accessor runs interleaved
 * with Rill's on the same bytes and its decoded positions, UVs and indices are compared with
 * Rill's. Prints one JSON line per file and reader, medians and MB/s.
 * Usage: bench_gltf [--reps N] [--dir FOLDER] [--only city|grid_1m_t|normal] (files are written to
 * FOLDER, default ".") */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/formats/gltf.h"
#ifdef RILL_BENCH_HAVE_CGLTF
#include "peer_cgltf.h"
#endif

static void *zalloc(size_t n, size_t size) {
    void *p = rill_calloc_tagged(n, size, RILL_MEM_FORMATS);
    if (!p) {
        fprintf(stderr, "bench_gltf: out of memory\n");
        exit(1);
    }
    return p;
}

static char *dupstr(const char *s) {
    return rill_strdup(s);
}

static uint32_t rng_state = 12345u;
static float rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 16777216.0f;
}

/* Materials: `n` materials; the first `normal_mapped` sample a normal texture (an external image,
 * as exporters write them), so the reader must generate tangents for their primitives. */
static void add_materials(rill_gltf_model *m, uint32_t n, uint32_t normal_mapped) {
    m->material_count = n;
    m->materials = zalloc(n, sizeof(rill_gltf_material));
    m->image_count = m->texture_count = normal_mapped;
    if (normal_mapped) {
        m->images = zalloc(normal_mapped, sizeof(rill_gltf_image));
        m->textures = zalloc(normal_mapped, sizeof(rill_gltf_texture));
    }
    rill_gltf_texref none = {-1, 0, 1.0f};
    for (uint32_t i = 0; i < n; i++) {
        rill_gltf_material *mt = &m->materials[i];
        char name[32];
        snprintf(name, sizeof(name), "facade_%u", i);
        mt->name = dupstr(name);
        for (int k = 0; k < 4; k++) {
            mt->base_color_factor[k] = k == 3 ? 1.0f : 0.3f + 0.6f * rnd();
        }
        mt->metallic_factor = 0.0f;
        mt->roughness_factor = 0.8f;
        mt->base_color_texture = mt->metallic_roughness_texture = none;
        mt->normal_texture = mt->occlusion_texture = mt->emissive_texture = none;
        mt->alpha_cutoff = 0.5f;
        if (i < normal_mapped) {
            snprintf(name, sizeof(name), "textures/facade_%u_n.png", i);
            m->images[i].uri = dupstr(name);
            m->images[i].mime_type = dupstr("image/png");
            m->textures[i].image = (int32_t)i;
            m->textures[i].sampler = -1;
            mt->normal_texture = (rill_gltf_texref){(int32_t)i, 0, 1.0f};
        }
    }
}

static void add_node(rill_gltf_node *n, const char *name, int32_t mesh, float x, float z) {
    n->name = dupstr(name);
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
static void building(rill_gltf_primitive *p, uint32_t s, float w, float d, float h, bool tangents) {
    uint32_t per_face = (s + 1) * (s + 1);
    p->vertex_count = 5 * per_face;
    p->index_count = 5 * s * s * 6;
    p->positions = zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->normals = zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->uv0 = zalloc((size_t)p->vertex_count * 2, sizeof(float));
    p->tangents = tangents ? zalloc((size_t)p->vertex_count * 4, sizeof(float)) : NULL;
    p->indices = zalloc(p->index_count, sizeof(uint32_t));
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

static rill_gltf_model *make_city(uint32_t meshes, uint32_t s) {
    rill_gltf_model *m = zalloc(1, sizeof(*m));
    add_materials(m, 16, 8);
    m->mesh_count = meshes;
    m->meshes = zalloc(meshes, sizeof(rill_gltf_mesh));
    m->node_count = meshes;
    m->nodes = zalloc(meshes, sizeof(rill_gltf_node));
    m->scene_count = 1;
    m->scenes = zalloc(1, sizeof(rill_gltf_scene));
    m->scenes[0].nodes = zalloc(meshes, sizeof(int32_t));
    m->scenes[0].node_count = meshes;
    m->default_scene = 0;
    uint32_t side = (uint32_t)ceil(sqrt((double)meshes));
    for (uint32_t i = 0; i < meshes; i++) {
        char name[32];
        snprintf(name, sizeof(name), "building_%u", i);
        m->meshes[i].name = dupstr(name);
        m->meshes[i].primitive_count = 1;
        m->meshes[i].primitives = zalloc(1, sizeof(rill_gltf_primitive));
        rill_gltf_primitive *p = &m->meshes[i].primitives[0];
        /* Half the materials are normal-mapped; their meshes carry TANGENT, as exporters
         * write it when asked to (bench_gltf's third file measures the reader generating them). */
        building(p, s, 4.0f + 6.0f * rnd(), 4.0f + 6.0f * rnd(), 8.0f + 60.0f * rnd(),
                 i % 16u < 8u);
        p->material = (int32_t)(i % 16u);
        add_node(&m->nodes[i], name, (int32_t)i, 25.0f * (float)(i % side),
                 25.0f * (float)(i / side));
        m->scenes[0].nodes[i] = (int32_t)i;
    }
    return m;
}

/* A terrain grid of cx x cz cells (2 triangles each), gentle hills, analytic normals. */
static rill_gltf_model *make_grid(uint32_t cx, uint32_t cz, bool normal_mapped) {
    rill_gltf_model *m = zalloc(1, sizeof(*m));
    add_materials(m, 1, normal_mapped ? 1 : 0);
    m->mesh_count = 1;
    m->meshes = zalloc(1, sizeof(rill_gltf_mesh));
    m->meshes[0].name = dupstr("terrain");
    m->meshes[0].primitive_count = 1;
    m->meshes[0].primitives = zalloc(1, sizeof(rill_gltf_primitive));
    rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    uint32_t vx = cx + 1, vz = cz + 1;
    p->vertex_count = vx * vz;
    p->index_count = cx * cz * 6;
    p->positions = zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->normals = zalloc((size_t)p->vertex_count * 3, sizeof(float));
    p->uv0 = zalloc((size_t)p->vertex_count * 2, sizeof(float));
    p->indices = zalloc(p->index_count, sizeof(uint32_t));
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
    m->nodes = zalloc(1, sizeof(rill_gltf_node));
    add_node(&m->nodes[0], "terrain", 0, 0.0f, 0.0f);
    m->scene_count = 1;
    m->scenes = zalloc(1, sizeof(rill_gltf_scene));
    m->scenes[0].nodes = zalloc(1, sizeof(int32_t));
    m->scenes[0].node_count = 1;
    m->default_scene = 0;
    for (int k = 0; k < 3; k++) {
        p->bounds_min[k] = 0.0f;
        p->bounds_max[k] = (float)(k == 0 ? cx : (k == 2 ? cz : 3));
    }
    p->bounds_min[1] = -3.0f;
    return m;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void report(const char *file, const char *reader, size_t bytes, double ms,
                   uint64_t triangles) {
    printf("{\"bench\":\"gltf_read\",\"file\":\"%s\",\"reader\":\"%s\",\"bytes\":%zu,"
           "\"triangles\":%llu,\"ms_median\":%.2f,\"mb_per_s\":%.1f}\n",
           file, reader, bytes, (unsigned long long)triangles, ms,
           (double)bytes / 1e6 / (ms / 1e3));
}

static int bench_file(const char *label, const char *path, int reps) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(path, &bytes, &size, &err) != RILL_OK) {
        fprintf(stderr, "bench_gltf: %s\n", err.msg);
        return 1;
    }
    double *rill_ms = zalloc((size_t)reps, sizeof(double));
    double *peer_ms = zalloc((size_t)reps, sizeof(double));
    uint64_t tris = 0;
    int peer_ok = 1;
    for (int r = 0; r < reps; r++) {
        rill_gltf_model *m = NULL;
        uint64_t t0 = rill_time_ns();
        rill_gltf_read_desc desc = {.name = label};
        if (rill_gltf_read_memory(bytes, size, &desc, &m, &err) != RILL_OK) {
            fprintf(stderr, "bench_gltf: %s\n", err.msg);
            return 1;
        }
        rill_ms[r] = (double)(rill_time_ns() - t0) / 1e6;
        tris = rill_gltf_model_triangle_count(m);
#ifdef RILL_BENCH_HAVE_CGLTF
        if (r == 0) {
            peer_ok = peer_cgltf_compare(bytes, size, m);
        }
        t0 = rill_time_ns();
        if (peer_cgltf_load(bytes, size) == 0) {
            peer_ok = 0;
        }
        peer_ms[r] = (double)(rill_time_ns() - t0) / 1e6;
#endif
        rill_gltf_model_free(m);
    }
    double rm = median(rill_ms, reps);
    report(label, "rill", size, rm, tris);
#ifdef RILL_BENCH_HAVE_CGLTF
    double pm = median(peer_ms, reps);
    report(label, "cgltf", size, pm, tris);
    printf("{\"bench\":\"gltf_read_vs_cgltf\",\"file\":\"%s\",\"same_output\":%s,"
           "\"rill_over_cgltf_speed\":%.2f}\n",
           label, peer_ok ? "true" : "false", pm / rm);
#else
    (void)peer_ok;
#endif
    fflush(stdout);
    rill_free(rill_ms);
    rill_free(peer_ms);
    rill_free(bytes);
    return 0;
}

int main(int argc, char **argv) {
    int reps = 7;
    const char *dir = ".";
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        }
    }
    if (reps < 1 || reps > 1000) {
        reps = 7;
    }
    rill_log_set_level(RILL_LOG_ERROR);
    const char *labels[3] = {"city_4096_meshes", "grid_1m_triangles", "grid_1m_normal_mapped"};
    int rc = 0;
    for (int f = 0; f < 3 && rc == 0; f++) {
        if (only && !strstr(labels[f], only)) {
            continue;
        }
        rill_gltf_model *model = f == 0 ? make_city(4096, 4) : make_grid(1000, 500, f == 2);
        char path[1024];
        snprintf(path, sizeof(path), "%s/bench_%s.glb", dir, labels[f]);
        rill_error err = {0};
        if (rill_glb_write_file(model, path, NULL, &err) != RILL_OK) {
            fprintf(stderr, "bench_gltf: %s\n", err.msg);
            rc = 1;
        }
        rill_gltf_model_free(model);
        if (rc == 0) {
            rc = bench_file(labels[f], path, reps);
        }
    }
    return rc;
}
