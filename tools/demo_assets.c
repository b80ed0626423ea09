/* demo_assets.c: the models and textures of the demo city, generated as a user's own assets would
 * be authored: textures as PNG images (facades, roofs, paving, leaves, bark, metal, paint) and
 * models as textured .glb files (four building kinds with recessed windows, a tree, a street lamp,
 * a bench, a car, a district ground tile, three landmarks (the tower's glass smooth and
 * half-metallic, for screen-space reflections) and a lobby with a polished floor) that name those
 * images by relative URI, the buildings and props with hand-authored detail levels
 * (name_lodN.glb). `rill export` then turns them into .rmip textures and bakes the landmarks' LOD
 * levels. Everything is deterministic: the same bytes on every run.
 */
#include "cmds.h"
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/formats/gltf.h"
#include "rill/formats/image.h"

/* >>textures ---------------------------------------------------------------------------------- */

static uint32_t hash2(uint32_t x, uint32_t y, uint32_t seed) {
    uint32_t h = x * 374761393u + y * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    return h ^ (h >> 16);
}

static float noise(uint32_t x, uint32_t y, uint32_t seed) {
    return (float)(hash2(x, y, seed) & 0xFFFFu) / 65535.0f;
}

typedef enum tex_kind {
    TEX_FACADE_BRICK,
    TEX_FACADE_CONCRETE,
    TEX_FACADE_GLASS,
    TEX_FACADE_SANDSTONE,
    TEX_ROOF,
    TEX_PAVING,
    TEX_LEAVES,
    TEX_BARK,
    TEX_METAL,
    TEX_PAINT,
    TEX_NUM
} tex_kind;

static const char *const TEX_NAMES[TEX_NUM] = {
    "facade_brick", "facade_concrete", "facade_glass", "facade_sandstone",
    "roof",         "paving",          "leaves",       "bark",
    "metal",        "paint",
};

/* Facades, roofs and paving come in styles, one per district variant, each its own set of images
 * (a city's materials vary from quarter to quarter); leaves, bark, metal and paint are shared. */
static bool tex_styled(tex_kind k) {
    return k <= TEX_PAVING;
}

/* The file name of kind k in style s: style 0 keeps the plain name ("facade_brick"), the others
 * add "_sN". */
static void tex_name(tex_kind k, uint32_t style, char *out, size_t cap) {
    if (tex_styled(k) && style) {
        snprintf(out, cap, "%s_s%u", TEX_NAMES[k], style);
    } else {
        snprintf(out, cap, "%s", TEX_NAMES[k]);
    }
}

/* A style's tint of the base colours: 1 for style 0, else a factor in [0.7, 1.3] per channel. */
static float style_tint(uint32_t style, int channel) {
    if (!style) {
        return 1.0f;
    }
    return 0.7f + 0.6f * noise(style, (uint32_t)channel, 0x5747u);
}

/* A facade tile is one window cell: wall around a window pane in the middle (u 0.25..0.75,
 * v 0.3..0.85), matching the recess the building mesh cuts at the same place. */
static void texel(tex_kind k, uint32_t style, uint32_t x, uint32_t y, uint32_t n, uint8_t out[4]) {
    float u = ((float)x + 0.5f) / (float)n, v = ((float)y + 0.5f) / (float)n;
    float nz = noise(x, y, (uint32_t)k + 16u * style), c[3];
    /* Patterns (mortar, joints) are laid out on a 128-texel grid whatever the size; the noise is
     * per texel, the detail a full-resolution chain has over its "#low" tail. */
    uint32_t xs = x * 128u / n, ys = y * 128u / n;
    static const float walls[4][3] = {
        {0.55f, 0.22f, 0.16f}, {0.62f, 0.62f, 0.60f}, {0.30f, 0.36f, 0.42f}, {0.78f, 0.68f, 0.50f}};
    switch (k) {
    case TEX_FACADE_BRICK:
    case TEX_FACADE_CONCRETE:
    case TEX_FACADE_GLASS:
    case TEX_FACADE_SANDSTONE: {
        const float *w = walls[k];
        bool pane = u > 0.25f && u < 0.75f && v > 0.15f && v < 0.70f;
        float mortar =
            (k == TEX_FACADE_BRICK && ((ys % 8u) == 0 || ((xs + (ys / 8u) * 8u) % 16u) == 0))
                ? 0.6f
                : 1.0f;
        for (int i = 0; i < 3; i++) {
            c[i] = w[i] * mortar * (0.85f + 0.3f * nz);
        }
        if (pane) {
            c[0] = 0.20f + 0.1f * v, c[1] = 0.28f + 0.1f * v, c[2] = 0.38f + 0.15f * v;
        }
        break;
    }
    case TEX_ROOF:
        for (int i = 0; i < 3; i++) {
            c[i] = 0.30f + 0.25f * nz;
        }
        break;
    case TEX_PAVING: {
        bool joint = (xs % 32u) < 2u || (ys % 32u) < 2u;
        for (int i = 0; i < 3; i++) {
            c[i] = (joint ? 0.35f : 0.55f) + 0.12f * nz;
        }
        c[2] += 0.03f;
        break;
    }
    case TEX_LEAVES:
        c[0] = 0.12f + 0.15f * nz, c[1] = 0.35f + 0.25f * nz, c[2] = 0.10f + 0.08f * nz;
        break;
    case TEX_BARK:
        c[0] = 0.30f + 0.15f * nz, c[1] = 0.20f + 0.1f * nz, c[2] = 0.12f + 0.06f * nz;
        break;
    case TEX_METAL:
        for (int i = 0; i < 3; i++) {
            c[i] = 0.45f + 0.1f * nz + 0.1f * u;
        }
        break;
    default: /* paint */
        c[0] = 0.65f + 0.1f * nz, c[1] = 0.12f + 0.05f * nz, c[2] = 0.10f + 0.05f * nz;
        break;
    }
    for (int i = 0; i < 3; i++) {
        float t = tex_styled(k) ? style_tint(style, i) : 1.0f;
        out[i] = (uint8_t)lroundf(RILL_CLAMP(c[i] * t, 0.0f, 1.0f) * 255.0f);
    }
    out[3] = 255;
}

/* n x n into px (n * n * 4 bytes). The demo world uses 1024: big enough that texture streaming
 * matters (a BC7 chain ~1.4 MB, its "#low" tail ~87 KB), as in a real city's materials. */
static rill_result write_texture(const char *dir, tex_kind k, uint32_t style, uint32_t n,
                                 uint8_t *px, rill_error *err) {
    for (uint32_t y = 0; y < n; y++) {
        for (uint32_t x = 0; x < n; x++) {
            texel(k, style, x, y, n, px + ((size_t)y * n + x) * 4u);
        }
    }
    char name[64], path[1200];
    tex_name(k, style, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    return rill_image_write_png(path, px, n, n, 4, err);
}

typedef struct tex_job {
    tex_kind kind;
    uint32_t style;
    rill_result res;
    rill_error err;
} tex_job;

typedef struct tex_batch {
    const char *dir;
    uint32_t n;
    tex_job *jobs;
} tex_batch;

/* Each texture its own pixels, so textures encode on every worker at once (the PNG encoder is
 * most of a big world's generation time). */
static void tex_range(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    tex_batch *b = arg;
    uint8_t *px = rill_malloc((size_t)b->n * b->n * 4u);
    for (uint32_t i = begin; i < end; i++) {
        tex_job *j = &b->jobs[i];
        j->res = px ? write_texture(b->dir, j->kind, j->style, b->n, px, &j->err)
                    : rill_error_set(&j->err, RILL_ERR_OUT_OF_MEMORY, "textures: out of memory");
    }
    rill_free(px);
}

static rill_result write_textures(const char *dir, uint32_t n, uint32_t styles, rill_jobs *jobs,
                                  rill_error *err) {
    /* Every shared kind once, every styled kind in each style. */
    tex_job *list = rill_calloc((size_t)TEX_NUM * styles, sizeof *list);
    if (!list) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "textures: out of memory");
    }
    uint32_t count = 0;
    for (int k = 0; k < TEX_NUM; k++) {
        for (uint32_t s = 0; s < (tex_styled((tex_kind)k) ? styles : 1u); s++) {
            list[count++] = (tex_job){.kind = (tex_kind)k, .style = s};
        }
    }
    tex_batch b = {dir, n, list};
    rill_jobs_for(jobs, count, 1, tex_range, &b);
    rill_result r = RILL_OK;
    for (uint32_t i = 0; r == RILL_OK && i < count; i++) { /* the first failure, in order */
        if ((r = list[i].res) != RILL_OK && err) {
            *err = list[i].err;
        }
    }
    rill_free(list);
    return r;
}

/* >>meshes ------------------------------------------------------------------------------------ */

/* A primitive being built: positions, normals, uvs and indices growing together. */
typedef struct prim {
    RILL_ARRAY(float) pos;
    RILL_ARRAY(float) nrm;
    RILL_ARRAY(float) uv;
    RILL_ARRAY(uint32_t) idx;
    int32_t material;
} prim;

static uint32_t vtx(prim *p, const float v[3], const float n[3], float u, float w) {
    uint32_t i = p->pos.len / 3u;
    for (int k = 0; k < 3; k++) {
        rill_array_push(&p->pos, v[k]), rill_array_push(&p->nrm, n[k]);
    }
    rill_array_push(&p->uv, u), rill_array_push(&p->uv, w);
    return i;
}

/* A quad from corner o along edges a and b (counter-clockwise seen from the normal a x b), with
 * uvs from uv0 spanning (su, sv). */
static void quad(prim *p, const float o[3], const float a[3], const float b[3], float u0, float v0,
                 float su, float sv) {
    float n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) {
        n[k] = l > 0 ? n[k] / l : 0;
    }
    float c[4][3];
    for (int k = 0; k < 3; k++) {
        c[0][k] = o[k], c[1][k] = o[k] + a[k], c[2][k] = o[k] + a[k] + b[k], c[3][k] = o[k] + b[k];
    }
    uint32_t i0 = vtx(p, c[0], n, u0, v0 + sv), i1 = vtx(p, c[1], n, u0 + su, v0 + sv);
    uint32_t i2 = vtx(p, c[2], n, u0 + su, v0), i3 = vtx(p, c[3], n, u0, v0);
    uint32_t t[6] = {i0, i1, i2, i0, i2, i3};
    for (int k = 0; k < 6; k++) {
        rill_array_push(&p->idx, t[k]);
    }
}

/* An axis-aligned box from mn to mx, every face mapped to the whole texture scaled by uvs. */
static void box(prim *p, const float mn[3], const float mx[3], float uvs) {
    float dx = mx[0] - mn[0], dy = mx[1] - mn[1], dz = mx[2] - mn[2];
    quad(p, (float[3]){mn[0], mn[1], mx[2]}, (float[3]){dx, 0, 0}, (float[3]){0, dy, 0}, 0, 0, uvs,
         uvs);
    quad(p, (float[3]){mx[0], mn[1], mn[2]}, (float[3]){-dx, 0, 0}, (float[3]){0, dy, 0}, 0, 0, uvs,
         uvs);
    quad(p, (float[3]){mx[0], mn[1], mx[2]}, (float[3]){0, 0, -dz}, (float[3]){0, dy, 0}, 0, 0, uvs,
         uvs);
    quad(p, (float[3]){mn[0], mn[1], mn[2]}, (float[3]){0, 0, dz}, (float[3]){0, dy, 0}, 0, 0, uvs,
         uvs);
    quad(p, (float[3]){mn[0], mx[1], mx[2]}, (float[3]){dx, 0, 0}, (float[3]){0, 0, -dz}, 0, 0, uvs,
         uvs);
    quad(p, (float[3]){mn[0], mn[1], mn[2]}, (float[3]){dx, 0, 0}, (float[3]){0, 0, dz}, 0, 0, uvs,
         uvs);
}

/* A vertical cylinder (sides only, plus a top cap) of `seg` segments. */
static void cylinder(prim *p, float cx, float cz, float y0, float y1, float r, uint32_t seg) {
    for (uint32_t i = 0; i < seg; i++) {
        float a0 = 6.2831853f * (float)i / (float)seg,
              a1 = 6.2831853f * (float)(i + 1) / (float)seg;
        float o[3] = {cx + r * sinf(a0), y0, cz + r * cosf(a0)};
        float e[3] = {r * (sinf(a1) - sinf(a0)), 0, r * (cosf(a1) - cosf(a0))};
        quad(p, o, e, (float[3]){0, y1 - y0, 0}, (float)i / (float)seg, 0, 1.0f / (float)seg, 1);
        float c[3] = {cx, y1, cz}, up[3] = {0, 1, 0};
        uint32_t t0 = vtx(p, c, up, 0.5f, 0.5f);
        uint32_t t1 = vtx(p, (float[3]){cx + r * sinf(a0), y1, cz + r * cosf(a0)}, up, 0, 0);
        uint32_t t2 = vtx(p, (float[3]){cx + r * sinf(a1), y1, cz + r * cosf(a1)}, up, 1, 0);
        rill_array_push(&p->idx, t0), rill_array_push(&p->idx, t1), rill_array_push(&p->idx, t2);
    }
}

/* A UV sphere of radius r at c with `seg` segments around and seg/2 rings. */
static void sphere(prim *p, const float c[3], float r, float ry, uint32_t seg) {
    uint32_t rings = seg / 2u, base = p->pos.len / 3u;
    for (uint32_t j = 0; j <= rings; j++) {
        float th = 3.1415927f * (float)j / (float)rings;
        for (uint32_t i = 0; i <= seg; i++) {
            float ph = 6.2831853f * (float)i / (float)seg;
            float n[3] = {sinf(th) * sinf(ph), cosf(th), sinf(th) * cosf(ph)};
            float v[3] = {c[0] + r * n[0], c[1] + ry * n[1], c[2] + r * n[2]};
            vtx(p, v, n, 2.0f * (float)i / (float)seg, (float)j / (float)rings);
        }
    }
    for (uint32_t j = 0; j < rings; j++) {
        for (uint32_t i = 0; i < seg; i++) {
            uint32_t a = base + j * (seg + 1u) + i, b = a + seg + 1u;
            uint32_t t[6] = {a, b, a + 1u, a + 1u, b, b + 1u};
            for (int k = 0; k < 6; k++) {
                rill_array_push(&p->idx, t[k]);
            }
        }
    }
}

/* One facade of a building: a wall of floors x cols window cells in the plane spanned by `along`
 * (unit, horizontal) and up, facing `out`. Each cell is wall around a window recessed 0.3 m. */
static void facade(prim *p, const float o[3], const float along[3], const float out[3],
                   uint32_t floors, uint32_t cols, float cw, float fh) {
    const float d = 0.3f;
    for (uint32_t f = 0; f < floors; f++) {
        for (uint32_t c = 0; c < cols; c++) {
            float base[3];
            for (int k = 0; k < 3; k++) {
                base[k] = o[k] + along[k] * cw * (float)c;
            }
            base[1] += fh * (float)f;
            /* window opening in cell units: u 0.25..0.75, v 0.3..0.85 (texture v is flipped) */
            float u0 = 0.25f, u1 = 0.75f, v0 = 0.30f, v1 = 0.85f;
            float A[3], U[3] = {0, fh, 0};
            for (int k = 0; k < 3; k++) {
                A[k] = along[k] * cw;
            }
            float P[4][3]; /* opening corners on the wall plane */
            float us[2] = {u0, u1}, vs[2] = {v0, v1};
            for (int k = 0; k < 3; k++) {
                P[0][k] = base[k] + A[k] * us[0] + U[k] * vs[0];
                P[1][k] = base[k] + A[k] * us[1] + U[k] * vs[0];
                P[2][k] = base[k] + A[k] * us[1] + U[k] * vs[1];
                P[3][k] = base[k] + A[k] * us[0] + U[k] * vs[1];
            }
            float Ab[3], Ub[3], At[3], Ut[3], Al[3], Ul[3];
            for (int k = 0; k < 3; k++) {
                Ab[k] = A[k], Ub[k] = U[k] * v0;             /* below the window */
                At[k] = A[k], Ut[k] = U[k] * (1.0f - v1);    /* above */
                Al[k] = A[k] * u0, Ul[k] = U[k] * (v1 - v0); /* left and right */
            }
            quad(p, base, Ab, Ub, 0, 1.0f - v0, 1, v0);
            float top[3], left[3], right[3];
            for (int k = 0; k < 3; k++) {
                top[k] = base[k] + U[k] * v1;
                left[k] = base[k] + U[k] * v0;
                right[k] = base[k] + A[k] * u1 + U[k] * v0;
            }
            quad(p, top, At, Ut, 0, 0, 1, 1.0f - v1);
            quad(p, left, Al, Ul, 0, 1.0f - v1, u0, v1 - v0);
            quad(p, right, Al, Ul, u1, 1.0f - v1, u0, v1 - v0);
            /* the recess: four reveals and the pane at depth d */
            float in[3];
            for (int k = 0; k < 3; k++) {
                in[k] = -out[k] * d;
            }
            for (int e = 0; e < 4; e++) {
                const float *a = P[e], *b = P[(e + 1) % 4];
                float edge[3];
                for (int k = 0; k < 3; k++) {
                    edge[k] = b[k] - a[k];
                }
                quad(p, a, in, edge, 0.2f, 0.2f, 0.05f, 0.05f);
            }
            float pane[3], W[3], H[3];
            for (int k = 0; k < 3; k++) {
                pane[k] = P[0][k] + in[k];
                W[k] = P[1][k] - P[0][k];
                H[k] = P[3][k] - P[0][k];
            }
            quad(p, pane, W, H, u0, 1.0f - v1, u1 - u0, v1 - v0);
        }
    }
}

/* >>models ------------------------------------------------------------------------------------ */

/* A model being built: primitives with one material each, every material a base colour texture. */
typedef struct mdl {
    prim prims[4];
    uint32_t prim_count;
    tex_kind tex[4];
    float rough[4], metal[4]; /* each primitive's material (its kind's unless a builder sets it) */
    uint32_t style;           /* which style's images the styled kinds name */
} mdl;

static prim *mdl_prim(mdl *m, tex_kind t) {
    for (uint32_t i = 0; i < m->prim_count; i++) {
        if (m->tex[i] == t) {
            return &m->prims[i];
        }
    }
    m->tex[m->prim_count] = t;
    m->rough[m->prim_count] = t == TEX_FACADE_GLASS ? 0.4f : 0.85f;
    m->metal[m->prim_count] = t == TEX_METAL ? 0.8f : 0.0f;
    m->prims[m->prim_count].material = (int32_t)m->prim_count;
    return &m->prims[m->prim_count++];
}

/* The material of m's primitive of kind t: roughness and metalness. */
static void mdl_finish(mdl *m, tex_kind t, float rough, float metal) {
    prim *p = mdl_prim(m, t);
    m->rough[p - m->prims] = rough;
    m->metal[p - m->prims] = metal;
}

static void mdl_free(mdl *m) {
    for (uint32_t i = 0; i < m->prim_count; i++) {
        rill_array_free(&m->prims[i].pos);
        rill_array_free(&m->prims[i].nrm);
        rill_array_free(&m->prims[i].uv);
        rill_array_free(&m->prims[i].idx);
    }
}

/* Writes m as dir/name.glb: one node, one mesh, a material and a texture per primitive, images
 * named by URI "textures/<kind>.png" (beside the model, in its textures/ folder). */
static rill_result mdl_write(mdl *m, const char *dir, const char *name, rill_error *err) {
    rill_gltf_primitive gp[4];
    rill_gltf_material mat[4];
    rill_gltf_texture tex[4];
    rill_gltf_image img[4];
    char uris[4][64];
    memset(gp, 0, sizeof gp), memset(mat, 0, sizeof mat), memset(tex, 0, sizeof tex);
    memset(img, 0, sizeof img);
    for (uint32_t i = 0; i < m->prim_count; i++) {
        prim *p = &m->prims[i];
        gp[i].vertex_count = p->pos.len / 3u;
        gp[i].positions = p->pos.data, gp[i].normals = p->nrm.data, gp[i].uv0 = p->uv.data;
        gp[i].index_count = p->idx.len, gp[i].indices = p->idx.data;
        gp[i].material = (int32_t)i;
        for (int k = 0; k < 3; k++) {
            gp[i].bounds_min[k] = 1e30f, gp[i].bounds_max[k] = -1e30f;
        }
        for (uint32_t v = 0; v < gp[i].vertex_count; v++) {
            for (int k = 0; k < 3; k++) {
                gp[i].bounds_min[k] = RILL_MIN(gp[i].bounds_min[k], p->pos.data[v * 3 + k]);
                gp[i].bounds_max[k] = RILL_MAX(gp[i].bounds_max[k], p->pos.data[v * 3 + k]);
            }
        }
        mat[i] = (rill_gltf_material){.base_color_factor = {1, 1, 1, 1},
                                      .base_color_texture = {.texture = (int32_t)i, .scale = 1},
                                      .metallic_factor = m->metal[i],
                                      .roughness_factor = m->rough[i],
                                      .metallic_roughness_texture = {.texture = -1, .scale = 1},
                                      .normal_texture = {.texture = -1, .scale = 1},
                                      .occlusion_texture = {.texture = -1, .scale = 1},
                                      .emissive_texture = {.texture = -1, .scale = 1},
                                      .alpha_cutoff = 0.5f};
        tex[i] = (rill_gltf_texture){.sampler = -1, .image = (int32_t)i};
        char tn[48];
        tex_name(m->tex[i], m->style, tn, sizeof tn);
        snprintf(uris[i], sizeof uris[i], "textures/%s.png", tn);
        img[i] = (rill_gltf_image){.uri = uris[i], .mime_type = "image/png"};
    }
    rill_gltf_mesh mesh = {
        .name = (char *)name, .primitive_count = m->prim_count, .primitives = gp};
    rill_gltf_node node = RILL_GLTF_MESH_NODE((char *)name, 0);
    int32_t roots[1] = {0};
    rill_gltf_scene scene = {.name = (char *)name, .node_count = 1, .nodes = roots};
    rill_gltf_model model = {.mesh_count = 1,
                             .meshes = &mesh,
                             .node_count = 1,
                             .nodes = &node,
                             .scene_count = 1,
                             .scenes = &scene,
                             .default_scene = 0,
                             .material_count = m->prim_count,
                             .materials = mat,
                             .texture_count = m->prim_count,
                             .textures = tex,
                             .image_count = m->prim_count,
                             .images = img};
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.glb", dir, name);
    return rill_glb_write_file(&model, path, NULL, err);
}

/* A building kind: floors x (cols_x, cols_z) window cells of 4 x 3.5 m, a flat roof. */
static void build_building(mdl *m, uint32_t kind) {
    static const uint32_t floors[4] = {4, 8, 14, 6}, cx[4] = {4, 5, 4, 7}, cz[4] = {3, 4, 4, 3};
    const float cw = 4.0f, fh = 3.5f;
    float w = cw * (float)cx[kind], d = cw * (float)cz[kind], h = fh * (float)floors[kind];
    prim *f = mdl_prim(m, (tex_kind)(TEX_FACADE_BRICK + kind));
    float x0 = -w * 0.5f, z0 = -d * 0.5f;
    facade(f, (float[3]){x0, 0, -z0}, (float[3]){1, 0, 0}, (float[3]){0, 0, 1}, floors[kind],
           cx[kind], cw, fh);
    facade(f, (float[3]){-x0, 0, z0}, (float[3]){-1, 0, 0}, (float[3]){0, 0, -1}, floors[kind],
           cx[kind], cw, fh);
    facade(f, (float[3]){-x0, 0, -z0}, (float[3]){0, 0, -1}, (float[3]){1, 0, 0}, floors[kind],
           cz[kind], cw, fh);
    facade(f, (float[3]){x0, 0, z0}, (float[3]){0, 0, 1}, (float[3]){-1, 0, 0}, floors[kind],
           cz[kind], cw, fh);
    prim *r = mdl_prim(m, TEX_ROOF);
    quad(r, (float[3]){x0, h, -z0}, (float[3]){w, 0, 0}, (float[3]){0, 0, -d}, 0, 0, w / 8, d / 8);
    box(r, (float[3]){-2.0f, h, -2.0f}, (float[3]){2.0f, h + 2.5f, 2.0f}, 1); /* stair house */
}

/* The same building as its far level (written as building_N_lod1.glb: a hand-authored level, so
 * export keeps it and bakes none): each facade one quad whose UVs repeat the window cell over
 * cols x floors (the facade texture is one cell with its pane where the recess is), the same
 * roof and stair house. The silhouette and the windows stay; only the recess depth goes: about
 * 20 triangles instead of 18 per window cell. */
static void build_building_far(mdl *m, uint32_t kind) {
    static const uint32_t floors[4] = {4, 8, 14, 6}, cx[4] = {4, 5, 4, 7}, cz[4] = {3, 4, 4, 3};
    const float cw = 4.0f, fh = 3.5f;
    float w = cw * (float)cx[kind], d = cw * (float)cz[kind], h = fh * (float)floors[kind];
    prim *f = mdl_prim(m, (tex_kind)(TEX_FACADE_BRICK + kind));
    float x0 = -w * 0.5f, z0 = -d * 0.5f, nf = (float)floors[kind];
    quad(f, (float[3]){x0, 0, -z0}, (float[3]){w, 0, 0}, (float[3]){0, h, 0}, 0, 0, (float)cx[kind],
         nf);
    quad(f, (float[3]){-x0, 0, z0}, (float[3]){-w, 0, 0}, (float[3]){0, h, 0}, 0, 0,
         (float)cx[kind], nf);
    quad(f, (float[3]){-x0, 0, -z0}, (float[3]){0, 0, -d}, (float[3]){0, h, 0}, 0, 0,
         (float)cz[kind], nf);
    quad(f, (float[3]){x0, 0, z0}, (float[3]){0, 0, d}, (float[3]){0, h, 0}, 0, 0, (float)cz[kind],
         nf);
    prim *r = mdl_prim(m, TEX_ROOF);
    quad(r, (float[3]){x0, h, -z0}, (float[3]){w, 0, 0}, (float[3]){0, 0, -d}, 0, 0, w / 8, d / 8);
    box(r, (float[3]){-2.0f, h, -2.0f}, (float[3]){2.0f, h + 2.5f, 2.0f}, 1);
}

/* The props come with hand-authored detail levels (name_lodN.glb, level 1..3: fewer segments,
 * wheels as boxes then none), as an artist would make them: the baked levels of these small
 * closed shapes stall (UV seams and poles keep the simplifier near the base count). */
static const uint32_t TREE_SEG[4] = {18, 10, 6, 4}, TRUNK_SEG[4] = {10, 6, 4, 3};

static void build_tree(mdl *m, uint32_t level) {
    cylinder(mdl_prim(m, TEX_BARK), 0, 0, 0, 3.0f, 0.25f, TRUNK_SEG[level]);
    sphere(mdl_prim(m, TEX_LEAVES), (float[3]){0, 4.5f, 0}, 2.2f, 2.6f, TREE_SEG[level]);
}

static void build_lamp(mdl *m, uint32_t level) {
    static const uint32_t pole[4] = {10, 6, 4, 3}, head[4] = {12, 6, 4, 0};
    prim *p = mdl_prim(m, TEX_METAL);
    cylinder(p, 0, 0, 0, 6.0f, 0.1f, pole[level]);
    if (head[level]) {
        sphere(p, (float[3]){0, 6.2f, 0}, 0.35f, 0.25f, head[level]);
    }
}

static void build_bench(mdl *m, uint32_t level) {
    prim *p = mdl_prim(m, TEX_BARK);
    if (level >= 2) { /* one block where the seat and back are */
        box(p, (float[3]){-0.9f, 0.0f, -0.25f}, (float[3]){0.9f, 0.95f, 0.22f}, 1);
        return;
    }
    box(p, (float[3]){-0.9f, 0.42f, -0.22f}, (float[3]){0.9f, 0.5f, 0.22f}, 1);
    box(p, (float[3]){-0.9f, 0.5f, -0.25f}, (float[3]){0.9f, 0.95f, -0.19f}, 1);
    if (level == 0) {
        box(mdl_prim(m, TEX_METAL), (float[3]){-0.85f, 0, -0.2f}, (float[3]){-0.75f, 0.42f, 0.2f},
            1);
        box(mdl_prim(m, TEX_METAL), (float[3]){0.75f, 0, -0.2f}, (float[3]){0.85f, 0.42f, 0.2f}, 1);
    }
}

static void build_car(mdl *m, uint32_t level) {
    prim *b = mdl_prim(m, TEX_PAINT);
    box(b, (float[3]){-0.9f, level == 3 ? 0.0f : 0.35f, -2.1f}, (float[3]){0.9f, 1.0f, 2.1f}, 1);
    box(b, (float[3]){-0.8f, 1.0f, -1.1f}, (float[3]){0.8f, 1.5f, 0.9f}, 1);
    if (level == 3) {
        return; /* the body reaches the ground: no wheels */
    }
    prim *w = mdl_prim(m, TEX_METAL);
    const float wx[2] = {-0.95f, 0.95f}, wz[2] = {-1.3f, 1.3f};
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            if (level == 2) {
                box(w, (float[3]){wx[i] - 0.12f, 0, wz[j] - 0.35f},
                    (float[3]){wx[i] + 0.12f, 0.7f, wz[j] + 0.35f}, 1);
            } else {
                sphere(w, (float[3]){wx[i], 0.35f, wz[j]}, 0.12f, 0.35f, level ? 6 : 12);
            }
        }
    }
}

/* The district ground: 8 x 8 paving quads; its level 1 is one quad with the same UVs. */
static void build_ground(mdl *m, uint32_t level) {
    prim *p = mdl_prim(m, TEX_PAVING);
    const int n = level ? 1 : 8;
    const float s = 200.0f / (float)n;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            quad(p, (float[3]){-100.0f + s * (float)i, 0, -100.0f + s * (float)(j + 1)},
                 (float[3]){s, 0, 0}, (float[3]){0, 0, -s}, 0, 0, s / 6.0f, s / 6.0f);
        }
    }
}

/* The glass-front tower: a smooth, half-metallic glass facade (roughness 0.08) that
 * screen-space reflections mirror the city in. */
static void build_tower(mdl *m) {
    prim *p = mdl_prim(m, TEX_FACADE_GLASS);
    cylinder(p, 0, 0, 0, 90.0f, 9.0f, 32);
    cylinder(p, 0, 0, 90.0f, 120.0f, 5.0f, 32);
    mdl_finish(m, TEX_FACADE_GLASS, 0.08f, 0.6f);
    cylinder(mdl_prim(m, TEX_METAL), 0, 0, 120.0f, 150.0f, 0.8f, 12);
}

/* A lobby of 11 x 11 m, 5 m high, open to +Z through a 4 m doorway: a polished stone floor
 * (roughness 0.1: it shows the captured probe's reflection of the room), sandstone walls, a
 * concrete ceiling. 0.3 m walls and slabs, inside the 11 m square. */
static void build_lobby(mdl *m) {
    const float h = 5.5f, t = 0.3f, hw = 5.5f;
    box(mdl_prim(m, TEX_PAVING), (float[3]){-hw, 0, -hw}, (float[3]){hw, 0.1f, hw}, 2);
    mdl_finish(m, TEX_PAVING, 0.1f, 0.0f);
    box(mdl_prim(m, TEX_FACADE_CONCRETE), (float[3]){-hw, h - t, -hw}, (float[3]){hw, h, hw}, 2);
    prim *w = mdl_prim(m, TEX_FACADE_SANDSTONE);
    box(w, (float[3]){-hw, 0, -hw}, (float[3]){hw, h - t, -hw + t}, 2);     /* back */
    box(w, (float[3]){-hw, 0, -hw + t}, (float[3]){-hw + t, h - t, hw}, 2); /* sides */
    box(w, (float[3]){hw - t, 0, -hw + t}, (float[3]){hw, h - t, hw}, 2);
    box(w, (float[3]){-hw + t, 0, hw - t}, (float[3]){-2.0f, h - t, hw}, 1); /* front */
    box(w, (float[3]){2.0f, 0, hw - t}, (float[3]){hw - t, h - t, hw}, 1);
    box(w, (float[3]){-2.0f, 3.5f, hw - t}, (float[3]){2.0f, h - t, hw}, 1); /* lintel */
}

static void build_fountain(mdl *m) {
    prim *p = mdl_prim(m, TEX_FACADE_SANDSTONE);
    cylinder(p, 0, 0, 0, 0.8f, 8.0f, 48);
    cylinder(p, 0, 0, 0.8f, 3.0f, 1.0f, 24);
    sphere(mdl_prim(m, TEX_METAL), (float[3]){0, 3.8f, 0}, 1.2f, 1.2f, 24);
}

static void build_gate(mdl *m) {
    prim *p = mdl_prim(m, TEX_FACADE_SANDSTONE);
    box(p, (float[3]){-14, 0, -3}, (float[3]){-8, 24, 3}, 2);
    box(p, (float[3]){8, 0, -3}, (float[3]){14, 24, 3}, 2);
    box(p, (float[3]){-14, 24, -3}, (float[3]){14, 30, 3}, 2);
}

/* A door leaf of 1 x 1 m, 1 m thick, hinged at the origin (it spans x 0..1): the entity's scale
 * sizes it, its rotation about Y swings it (demo_scripts.c, scripts/door.lua). */
static void build_door(mdl *m) {
    prim *p = mdl_prim(m, TEX_BARK);
    box(p, (float[3]){0, 0, -0.5f}, (float[3]){1, 1, 0.5f}, 1);
}

/* Model i (of the names below) at detail level l in style `style`, written as
 * dir/<name>[_sN][_lodL].glb. */
static rill_result write_model(const char *dir, uint32_t i, uint32_t l, uint32_t style,
                               rill_error *err) {
    static const char *const names[] = {
        "building_0", "building_1", "building_2", "building_3", "tree", "lamp", "bench",
        "car",        "ground",     "tower",      "fountain",   "gate", "door", "lobby"};
    mdl m;
    memset(&m, 0, sizeof m);
    m.style = style;
    if (i < 4 && l == 0) {
        build_building(&m, i);
    } else if (i < 4) {
        build_building_far(&m, i);
    } else if (i == 4) {
        build_tree(&m, l);
    } else if (i == 5) {
        build_lamp(&m, l);
    } else if (i == 6) {
        build_bench(&m, l);
    } else if (i == 7) {
        build_car(&m, l);
    } else if (i == 8) {
        build_ground(&m, l);
    } else if (i == 9) {
        build_tower(&m);
    } else if (i == 10) {
        build_fountain(&m);
    } else if (i == 11) {
        build_gate(&m);
    } else if (i == 12) {
        build_door(&m);
    } else {
        build_lobby(&m);
    }
    char name[64], styled[48];
    if (style) {
        snprintf(styled, sizeof styled, "%s_s%u", names[i], style);
    } else {
        snprintf(styled, sizeof styled, "%s", names[i]);
    }
    if (l) {
        snprintf(name, sizeof name, "%s_lod%u", styled, l);
    } else {
        snprintf(name, sizeof name, "%s", styled);
    }
    rill_result r = mdl_write(&m, dir, name, err);
    mdl_free(&m);
    return r;
}

rill_result rill_demo_write_assets(const char *models_dir, uint32_t texture_size, uint32_t styles,
                                   rill_jobs *jobs, rill_error *err) {
    char tex_dir[1100];
    snprintf(tex_dir, sizeof tex_dir, "%s/textures", models_dir);
    styles = RILL_MAX(styles, 1u);
    rill_result r = rill_dir_create_all(tex_dir, err);
    if (r == RILL_OK) {
        r = write_textures(tex_dir, texture_size, styles, jobs, err);
    }
    /* Levels written per model (the base included); 1 = none authored, export bakes them. The
     * buildings (0..3) and the ground (8) are written once per style. */
    static const uint32_t levels[] = {2, 2, 2, 2, 4, 4, 3, 4, 2, 1, 1, 1, 1, 1};
    for (uint32_t i = 0; r == RILL_OK && i < RILL_COUNTOF(levels); i++) {
        uint32_t model_styles = (i < 4 || i == 8) ? styles : 1u;
        for (uint32_t s = 0; r == RILL_OK && s < model_styles; s++) {
            for (uint32_t l = 0; r == RILL_OK && l < levels[i]; l++) {
                r = write_model(models_dir, i, l, s, err);
            }
        }
    }
    return r;
}
