/* pick.c: picking (rill/channels.h "ON PICKING"). The candidates' world boxes go into a bounding
 * volume hierarchy built for the call (median split on the longest axis); the ray visits the nearer
 * child first and skips boxes farther than the best hit so far; at the leaves the triangles of the
 * glTF primitive are tested exactly in the entity's local space (Moller-Trumbore), so a scaled or
 * rotated entity is hit where it is drawn. */
#include "rill/channels.h"
#include "rill/formats/gltf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#define LEAF_SIZE 4u
#define STACK_MAX 128u /* depth of a median-split tree of 2^32 boxes is 32: ample */
#define NAME_DEPTH 256u
#define NM_PREFIX "NM_"

typedef struct cand {
    rill_entity e;
    const rill_gltf_primitive *prim;
    const float *m; /* world matrix (GlobalTransform storage: valid during the call) */
    float mn[3], mx[3], c[3];
    float key;     /* the centre on the axis being split (sorting) */
    bool pickable; /* else a blocker */
} cand;

typedef struct node {
    float mn[3], mx[3];
    uint32_t first, count; /* leaf: cands[first..first+count); inner: count 0, children first, +1 */
} node;

typedef struct bvh {
    cand *c;
    node *nodes;
    uint32_t nnodes;
} bvh;

static void world_box(const float m[16], const float lmn[3], const float lmx[3], float mn[3],
                      float mx[3]) {
    /* The box of a transformed box: centre moved, half extents through |M|. */
    for (int k = 0; k < 3; k++) {
        float c = m[12 + k], e = 0.0f;
        for (int j = 0; j < 3; j++) {
            float lc = 0.5f * (lmn[j] + lmx[j]), le = 0.5f * (lmx[j] - lmn[j]);
            c += m[j * 4 + k] * lc;
            e += fabsf(m[j * 4 + k]) * le;
        }
        mn[k] = c - e;
        mx[k] = c + e;
    }
}

static int cmp_cand(const void *a, const void *b) {
    float x = ((const cand *)a)->key, y = ((const cand *)b)->key;
    return (x > y) - (x < y);
}

/* Builds the node for cands[first..first+count) at index `at` (nodes preallocated: 2n-1). */
static void build(bvh *t, uint32_t at, uint32_t first, uint32_t count) {
    node *n = &t->nodes[at];
    for (int k = 0; k < 3; k++) {
        n->mn[k] = INFINITY;
        n->mx[k] = -INFINITY;
    }
    float cmn[3] = {INFINITY, INFINITY, INFINITY}, cmx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = first; i < first + count; i++) {
        for (int k = 0; k < 3; k++) {
            n->mn[k] = fminf(n->mn[k], t->c[i].mn[k]);
            n->mx[k] = fmaxf(n->mx[k], t->c[i].mx[k]);
            cmn[k] = fminf(cmn[k], t->c[i].c[k]);
            cmx[k] = fmaxf(cmx[k], t->c[i].c[k]);
        }
    }
    if (count <= LEAF_SIZE) {
        n->first = first;
        n->count = count;
        return;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++) {
        if (cmx[k] - cmn[k] > cmx[axis] - cmn[axis]) {
            axis = k;
        }
    }
    for (uint32_t i = first; i < first + count; i++) {
        t->c[i].key = t->c[i].c[axis];
    }
    qsort(t->c + first, count, sizeof(cand), cmp_cand);
    uint32_t half = count / 2, left = t->nnodes;
    t->nnodes += 2;
    n->first = left;
    n->count = 0;
    build(t, left, first, half);
    build(t, left + 1, first + half, count - half);
}

/* Entry distance of the ray into a box (slab test), or INFINITY when it misses within tmax. */
static float ray_box(const float o[3], const float inv[3], const float mn[3], const float mx[3],
                     float tmax) {
    float t0 = 0.0f, t1 = tmax;
    for (int k = 0; k < 3; k++) {
        float a = (mn[k] - o[k]) * inv[k], b = (mx[k] - o[k]) * inv[k];
        if (a > b) {
            float s = a;
            a = b;
            b = s;
        }
        /* NaN (0 * inf on a slab face) keeps the previous bound. */
        t0 = a > t0 ? a : t0;
        t1 = b < t1 ? b : t1;
        if (t0 > t1) {
            return INFINITY;
        }
    }
    return t0;
}

/* Nearest triangle of c hit by the world ray; true with *best_t (world distance), normal set when
 * it is nearer than *best_t. */
static bool ray_prim(const cand *c, const float o[3], const float d[3], float *best_t,
                     float out_n[3]) {
    const rill_gltf_primitive *p = c->prim;
    mat4 m, inv;
    memcpy(m, c->m, sizeof(m));
    glm_mat4_inv(m, inv);
    vec4 wo = {o[0], o[1], o[2], 1.0f}, wd = {d[0], d[1], d[2], 0.0f}, lo4, ld4;
    glm_mat4_mulv(inv, wo, lo4);
    glm_mat4_mulv(inv, wd, ld4);
    vec3 lo = {lo4[0], lo4[1], lo4[2]}, ld = {ld4[0], ld4[1], ld4[2]};
    /* Local t equals world t: the local direction is the world one through the inverse. */
    bool hit = false;
    uint32_t n = p->indices ? p->index_count : p->vertex_count;
    for (uint32_t i = 0; i + 2 < n; i += 3) {
        uint32_t ia = p->indices ? p->indices[i] : i, ib = p->indices ? p->indices[i + 1] : i + 1,
                 ic = p->indices ? p->indices[i + 2] : i + 2;
        if (ia >= p->vertex_count || ib >= p->vertex_count || ic >= p->vertex_count) {
            continue;
        }
        const float *a = p->positions + 3 * ia, *b = p->positions + 3 * ib,
                    *cc = p->positions + 3 * ic;
        vec3 e1 = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        vec3 e2 = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]}, pv, tv, qv;
        glm_vec3_cross(ld, e2, pv);
        float det = glm_vec3_dot(e1, pv);
        if (fabsf(det) < 1e-12f) {
            continue;
        }
        float id = 1.0f / det;
        tv[0] = lo[0] - a[0];
        tv[1] = lo[1] - a[1];
        tv[2] = lo[2] - a[2];
        float u = glm_vec3_dot(tv, pv) * id;
        if (u < 0.0f || u > 1.0f) {
            continue;
        }
        glm_vec3_cross(tv, e1, qv);
        float v = glm_vec3_dot(ld, qv) * id;
        if (v < 0.0f || u + v > 1.0f) {
            continue;
        }
        float t = glm_vec3_dot(e2, qv) * id;
        if (t > 0.0f && t < *best_t) {
            *best_t = t;
            /* World normal: the cross product of the world edges. */
            vec3 wa, wb, wc, we1, we2;
            glm_mat4_mulv3(m, (float *)a, 1.0f, wa);
            glm_mat4_mulv3(m, (float *)b, 1.0f, wb);
            glm_mat4_mulv3(m, (float *)cc, 1.0f, wc);
            glm_vec3_sub(wb, wa, we1);
            glm_vec3_sub(wc, wa, we2);
            glm_vec3_cross(we1, we2, out_n);
            glm_vec3_normalize(out_n);
            if (glm_vec3_dot(out_n, (float *)d) > 0.0f) {
                glm_vec3_negate(out_n);
            }
            hit = true;
        }
    }
    return hit;
}

/* Whether e is drawn at all, and whether it blocks (not wireframe). */
static bool drawn_mode(const rill_world *w, const rill_channel_modes *modes, rill_component rm_c,
                       rill_entity e, uint64_t mask, bool *blocks) {
    rill_render_mode mode = RILL_RENDER_MODE_NORMAL;
    float op = 1.0f;
    const rill_render_mode_component *rm = rm_c.id ? rill_world_get(w, e, rm_c) : NULL;
    if (rm && (uint32_t)rm->mode < RILL_RENDER_MODE_NUM) {
        mode = rm->mode;
        op = rm->ghost_opacity;
    }
    float cop = 1.0f;
    rill_render_mode cm = rill_channels_resolve(modes, mask, &cop);
    mode = rill_channels_join(mode, op, cm, cop, &op);
    *blocks = mode == RILL_RENDER_MODE_NORMAL || mode == RILL_RENDER_MODE_GHOST;
    return mode != RILL_RENDER_MODE_HIDDEN;
}

/* Gathers the candidates: ModelMesh entities that are drawn, with loaded triangles. */
static bool gather(rill_world *w, rill_asset_server *assets, const rill_pick_desc *d,
                   uint64_t pick_bits, cand **out, uint32_t *out_n) {
    const rill_channel_modes *modes = rill_channels_modes(w);
    rill_model_components mc;
    rill_error err = {0};
    if (!modes || rill_scene_model_register(w, &mc, &err) != RILL_OK) {
        return false;
    }
    RILL_ARRAY(cand) cs = {0};
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = mc.model_mesh;
    qd.with[1] = rill_world_builtin(w)->global_transform;
    rill_query q = rill_world_query(w, &qd);
    while (rill_query_next(&q)) {
        const rill_model_mesh *mm = rill_query_get(&q, 0);
        const rill_global_transform *xf = rill_query_get(&q, 1);
        uint64_t mask = rill_channels_get(w, q.entity);
        bool pickable = (mask & pick_bits) != 0, blocks = false;
        if (!drawn_mode(w, modes, mc.render_mode, q.entity, mask, &blocks) ||
            (!pickable && !(d->opaque_blocks && blocks))) {
            continue;
        }
        const rill_gltf_model *gm =
            rill_asset_get_payload_as(assets, (rill_asset){mm->asset}, RILL_GLTF_ASSET_LOADER);
        if (!gm || mm->mesh >= gm->mesh_count ||
            mm->primitive >= gm->meshes[mm->mesh].primitive_count) {
            continue;
        }
        cand c;
        memset(&c, 0, sizeof(c));
        c.e = q.entity;
        c.prim = &gm->meshes[mm->mesh].primitives[mm->primitive];
        if (!c.prim->positions || !c.prim->vertex_count) {
            continue;
        }
        c.m = xf->m;
        c.pickable = pickable;
        world_box(xf->m, c.prim->bounds_min, c.prim->bounds_max, c.mn, c.mx);
        for (int k = 0; k < 3; k++) {
            c.c[k] = 0.5f * (c.mn[k] + c.mx[k]);
        }
        if (!rill_array_push(&cs, c)) {
            rill_array_free(&cs);
            return false;
        }
    }
    *out = cs.data;
    *out_n = cs.len;
    return true;
}

bool rill_channels_pick(rill_world *world, rill_asset_server *assets, const rill_pick_desc *desc,
                        rill_pick_hit *out) {
    if (RILL_DESC_CHECK(desc, "rill_channels_pick", NULL) != RILL_OK) {
        return false;
    }
    if (!world || !assets || !desc || !out) {
        return false;
    }
    vec3 d = {desc->dir[0], desc->dir[1], desc->dir[2]};
    float len = glm_vec3_norm(d);
    if (!(len > 1e-20f) || !isfinite(len)) {
        return false;
    }
    glm_vec3_scale(d, 1.0f / len, d);
    const float *o = desc->origin;
    float inv[3] = {1.0f / d[0], 1.0f / d[1], 1.0f / d[2]};
    uint64_t bits = desc->channels ? desc->channels : RILL_CHANNEL_SELECTABLE;
    bvh t = {0};
    uint32_t n = 0;
    if (!gather(world, assets, desc, bits, &t.c, &n) || n == 0) {
        rill_free(t.c);
        return false;
    }
    t.nodes = rill_calloc(2u * n, sizeof(node));
    if (!t.nodes) {
        rill_free(t.c);
        return false;
    }
    t.nnodes = 1;
    build(&t, 0, 0, n);
    float best = desc->max_distance > 0.0f ? desc->max_distance : INFINITY, nrm[3] = {0};
    const cand *best_c = NULL;
    uint32_t stack[STACK_MAX], sp = 0;
    if (ray_box(o, inv, t.nodes[0].mn, t.nodes[0].mx, best) < INFINITY) {
        stack[sp++] = 0;
    }
    while (sp) {
        const node *nd = &t.nodes[stack[--sp]];
        if (ray_box(o, inv, nd->mn, nd->mx, best) == INFINITY) {
            continue; /* farther than the best hit found since it was pushed */
        }
        if (nd->count) {
            for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
                if (ray_box(o, inv, t.c[i].mn, t.c[i].mx, best) < INFINITY &&
                    ray_prim(&t.c[i], o, d, &best, nrm)) {
                    best_c = &t.c[i];
                }
            }
            continue;
        }
        uint32_t a = nd->first, b = nd->first + 1;
        float ta = ray_box(o, inv, t.nodes[a].mn, t.nodes[a].mx, best);
        float tb = ray_box(o, inv, t.nodes[b].mn, t.nodes[b].mx, best);
        if (ta > tb) { /* push the farther first so the nearer is visited first */
            uint32_t s = a;
            a = b;
            b = s;
            float f = ta;
            ta = tb;
            tb = f;
        }
        if (tb < INFINITY && sp < STACK_MAX) {
            stack[sp++] = b;
        }
        if (ta < INFINITY && sp < STACK_MAX) {
            stack[sp++] = a;
        }
    }
    bool hit = best_c && best_c->pickable;
    if (hit) {
        out->entity = best_c->e;
        out->distance = best;
        for (int k = 0; k < 3; k++) {
            out->point[k] = o[k] + d[k] * best;
            out->normal[k] = nrm[k];
        }
    }
    rill_free(t.nodes);
    rill_free(t.c);
    return hit;
}

bool rill_channels_screen_ray(const float world_from_view[16], bool orthographic, float fov_y,
                              float ortho_height, float x, float y, float w, float h,
                              float out_origin[3], float out_dir[3]) {
    if (!world_from_view || !(w > 0.0f) || !(h > 0.0f)) {
        return false;
    }
    float nx = 2.0f * x / w - 1.0f, ny = 1.0f - 2.0f * y / h, aspect = w / h;
    float lo[3] = {0, 0, 0}, ld[3];
    if (orthographic) {
        float hh = 0.5f * ortho_height;
        lo[0] = nx * hh * aspect;
        lo[1] = ny * hh;
        ld[0] = ld[1] = 0.0f;
    } else {
        float th = tanf(0.5f * fov_y);
        ld[0] = nx * th * aspect;
        ld[1] = ny * th;
    }
    ld[2] = -1.0f;
    const float *m = world_from_view;
    float len = 0.0f;
    for (int k = 0; k < 3; k++) {
        out_origin[k] = m[k] * lo[0] + m[4 + k] * lo[1] + m[8 + k] * lo[2] + m[12 + k];
        out_dir[k] = m[k] * ld[0] + m[4 + k] * ld[1] + m[8 + k] * ld[2];
        len += out_dir[k] * out_dir[k];
    }
    len = sqrtf(len);
    if (!(len > 0.0f) || !isfinite(len) ||
        !isfinite(out_origin[0] + out_origin[1] + out_origin[2])) {
        return false;
    }
    for (int k = 0; k < 3; k++) {
        out_dir[k] /= len;
    }
    return true;
}

const char *rill_channels_pick_name(const rill_world *world, rill_entity e) {
    const rill_channel_modes *m = rill_channels_modes(world);
    const char *first = NULL;
    for (uint32_t depth = 0; world && e != RILL_ENTITY_NULL && depth < NAME_DEPTH; depth++) {
        const char *name = rill_world_get_name(world, e);
        const rill_scene_channels *sc = m ? rill_world_get(world, e, m->comp) : NULL;
        bool origin = (sc && !sc->from_defaults) ||
                      (name && strncmp(name, NM_PREFIX, sizeof(NM_PREFIX) - 1) == 0);
        if (origin && name && name[0]) {
            return name; /* where the entity's channels come from: the object a user named */
        }
        if (!first && name && name[0]) {
            first = name;
        }
        e = rill_world_get_parent(world, e);
    }
    return first;
}
