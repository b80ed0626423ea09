/* procmesh.c: procedural meshes (cube, UV sphere, plane) with normals, UVs and tangents, used by
 * tests, benchmarks and `rill render` when no model is given. They go through the same upload path
 * as loaded meshes. */
#include "render_internal.h"

#include <math.h>
#include <string.h>

static bool alloc_mesh(uint32_t vn, uint32_t in, rill_vertex **out_v, uint32_t **out_i) {
    *out_v = rill_calloc_tagged(vn, sizeof(rill_vertex), RILL_MEM_RENDER);
    *out_i = rill_calloc_tagged(in, sizeof(uint32_t), RILL_MEM_RENDER);
    if (!*out_v || !*out_i) {
        rill_free(*out_v);
        rill_free(*out_i);
        *out_v = NULL;
        *out_i = NULL;
        return false;
    }
    return true;
}

static void set_v(rill_vertex *v, float px, float py, float pz, float nx, float ny, float nz,
                  float u, float t, float tx, float ty, float tz) {
    v->position[0] = px, v->position[1] = py, v->position[2] = pz;
    v->normal[0] = nx, v->normal[1] = ny, v->normal[2] = nz;
    v->uv[0] = u, v->uv[1] = t;
    v->tangent[0] = tx, v->tangent[1] = ty, v->tangent[2] = tz, v->tangent[3] = 1.0f;
}

bool rill__procmesh_cube(rill_vertex **out_v, uint32_t *out_vn, uint32_t **out_i,
                         uint32_t *out_in) {
    if (!alloc_mesh(24, 36, out_v, out_i)) {
        return false;
    }
    /* Per face: normal n, tangent t (the +u direction), bitangent b = n x t (the +v direction). */
    static const float faces[6][9] = {
        {1, 0, 0, 0, 0, -1, 0, 1, 0}, {-1, 0, 0, 0, 0, 1, 0, 1, 0}, {0, 1, 0, 1, 0, 0, 0, 0, -1},
        {0, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 1, 1, 0, 0, 0, 1, 0},  {0, 0, -1, -1, 0, 0, 0, 1, 0},
    };
    static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (uint32_t f = 0; f < 6; f++) {
        const float *n = faces[f], *t = faces[f] + 3, *b = faces[f] + 6;
        for (uint32_t c = 0; c < 4; c++) {
            float su = corners[c][0], sv = corners[c][1];
            float p[3];
            for (int k = 0; k < 3; k++) {
                p[k] = 0.5f * (n[k] + su * t[k] + sv * b[k]);
            }
            set_v(&(*out_v)[f * 4 + c], p[0], p[1], p[2], n[0], n[1], n[2], (su + 1) * 0.5f,
                  1.0f - (sv + 1) * 0.5f, t[0], t[1], t[2]);
        }
        uint32_t *ix = *out_i + f * 6, base = f * 4;
        ix[0] = base, ix[1] = base + 1, ix[2] = base + 2;
        ix[3] = base, ix[4] = base + 2, ix[5] = base + 3;
    }
    *out_vn = 24;
    *out_in = 36;
    return true;
}

bool rill__procmesh_sphere(uint32_t segments, rill_vertex **out_v, uint32_t *out_vn,
                           uint32_t **out_i, uint32_t *out_in) {
    uint32_t seg = RILL_CLAMP(segments, 3u, 512u), rings = RILL_MAX(seg / 2, 2u);
    uint32_t vn = (seg + 1) * (rings + 1), in = seg * rings * 6;
    if (!alloc_mesh(vn, in, out_v, out_i)) {
        return false;
    }
    const float pi = 3.14159265358979f;
    for (uint32_t y = 0; y <= rings; y++) {
        float v = (float)y / (float)rings, th = v * pi;
        for (uint32_t x = 0; x <= seg; x++) {
            float u = (float)x / (float)seg, ph = u * 2.0f * pi;
            float nx = sinf(th) * cosf(ph), ny = cosf(th), nz = -sinf(th) * sinf(ph);
            set_v(&(*out_v)[y * (seg + 1) + x], 0.5f * nx, 0.5f * ny, 0.5f * nz, nx, ny, nz, u, v,
                  -sinf(ph), 0.0f, -cosf(ph));
        }
    }
    uint32_t k = 0;
    for (uint32_t y = 0; y < rings; y++) {
        for (uint32_t x = 0; x < seg; x++) {
            uint32_t a = y * (seg + 1) + x, b = a + seg + 1;
            (*out_i)[k++] = a, (*out_i)[k++] = b, (*out_i)[k++] = a + 1;
            (*out_i)[k++] = a + 1, (*out_i)[k++] = b, (*out_i)[k++] = b + 1;
        }
    }
    *out_vn = vn;
    *out_in = in;
    return true;
}

bool rill__procmesh_plane(rill_vertex **out_v, uint32_t *out_vn, uint32_t **out_i,
                          uint32_t *out_in) {
    if (!alloc_mesh(4, 6, out_v, out_i)) {
        return false;
    }
    set_v(&(*out_v)[0], -0.5f, 0, 0.5f, 0, 1, 0, 0, 1, 1, 0, 0);
    set_v(&(*out_v)[1], 0.5f, 0, 0.5f, 0, 1, 0, 1, 1, 1, 0, 0);
    set_v(&(*out_v)[2], 0.5f, 0, -0.5f, 0, 1, 0, 1, 0, 1, 0, 0);
    set_v(&(*out_v)[3], -0.5f, 0, -0.5f, 0, 1, 0, 0, 0, 1, 0, 0);
    static const uint32_t ix[6] = {0, 1, 2, 0, 2, 3};
    memcpy(*out_i, ix, sizeof(ix));
    *out_vn = 4;
    *out_in = 6;
    return true;
}
