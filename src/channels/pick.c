/* pick.c: picking (rill/channels.h "ON PICKING"). Every drawn kind is a candidate: ModelMesh
 * entities (the glTF primitive's triangles), MeshInstance entities (the triangles desc.mesh_source
 * gives) and terrains (rill_terrain_raycast). The mesh candidates' world boxes go into a bounding
 * volume hierarchy built for the call (median split on the longest axis, by quickselect); the ray
 * visits the nearer child first and skips boxes farther than the best hit so far; at the leaves the
 * triangles are tested exactly in the entity's local space, so a scaled or rotated entity is hit
 * where it is drawn. Terrains are cast last, against the best distance the meshes left. */
#include "rill/channels.h"
#include "rill/formats/gltf.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#define LEAF_SIZE 4u
#define STACK_MAX 128u /* depth of a median-split tree of 2^32 boxes is 32: ample */
#define NAME_DEPTH 256u
#define NM_PREFIX "NM_"
#define TERRAIN_COMPONENT "Terrain"

typedef struct cand {
    rill_entity e;
    rill_pick_mesh mesh; /* local triangles */
    const float *m;      /* world matrix (GlobalTransform storage: valid during the call) */
    float mn[3], mx[3], c[3];
    bool pickable; /* else a blocker */
} cand;

/* What the build reorders: a candidate's box centre and index (moving and scanning these rather
 * than whole candidates keeps the median selections cheap and the scans sequential). */
typedef struct cand_ref {
    float c[3];
    uint32_t i;
} cand_ref;

typedef struct terrain_cand {
    rill_entity e;
    bool pickable;
} terrain_cand;

typedef struct node {
    float mn[3], mx[3];
    uint32_t first, count; /* leaf: cands[first..first+count); inner: count 0, children first, +1 */
} node;

typedef struct bvh {
    cand *c;
    cand_ref *r; /* leaves hold r[first..first+count) */
    node *nodes;
    uint32_t nnodes;
} bvh;

/* What a pick gathers: the mesh candidates and the terrains, each a pickable entity or a blocker.
 */
typedef struct gather_ctx {
    rill_world *w;
    const rill_pick_desc *d;
    const rill_channel_modes *modes;
    uint64_t bits;
    rill_component render_mode;
    RILL_ARRAY(cand) cs;
    RILL_ARRAY(terrain_cand) ts;
} gather_ctx;

/* The nearest hit so far: distance, what was hit and the normal facing the ray. */
typedef struct best_hit {
    float t;
    rill_entity e;
    bool pickable;
    float n[3];
} best_hit;

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

static void swap_ref(cand_ref *a, cand_ref *b) {
    cand_ref t = *a;
    *a = *b;
    *b = t;
}

/* Reorders c[0..n) so that c[k] holds the centre a full sort on `axis` would put there, with no
 * larger one before it and no smaller one after (quickselect, middle pivot): O(n) on average, so
 * building the hierarchy costs O(n log n) rather than the O(n log^2 n) of sorting every node. */
static void select_kth(cand_ref *c, uint32_t n, uint32_t k, int axis) {
    int64_t lo = 0, hi = (int64_t)n - 1, kk = k;
    while (lo < hi) {
        float pivot = c[lo + (hi - lo) / 2].c[axis];
        int64_t i = lo, j = hi;
        while (i <= j) { /* Hoare partition: [lo, j] <= pivot, [i, hi] >= pivot */
            while (c[i].c[axis] < pivot) {
                i++;
            }
            while (c[j].c[axis] > pivot) {
                j--;
            }
            if (i <= j) {
                swap_ref(&c[i++], &c[j--]);
            }
        }
        if (kk <= j) {
            hi = j;
        } else if (kk >= i) {
            lo = i;
        } else {
            return; /* between the two parts: equal to the pivot, in place */
        }
    }
}

static void box_reset(node *n) {
    for (int k = 0; k < 3; k++) {
        n->mn[k] = INFINITY;
        n->mx[k] = -INFINITY;
    }
}

static void box_grow(node *n, const float mn[3], const float mx[3]) {
    for (int k = 0; k < 3; k++) {
        n->mn[k] = RILL_MIN(n->mn[k], mn[k]);
        n->mx[k] = RILL_MAX(n->mx[k], mx[k]);
    }
}

/* Builds the node for candidates r[first..first+count) at index `at` (nodes preallocated: 2n-1):
 * split at the median centre along the axis where the centres spread most; boxes bottom-up. */
static void build(bvh *t, uint32_t at, uint32_t first, uint32_t count) {
    node *n = &t->nodes[at];
    if (count <= LEAF_SIZE) {
        box_reset(n);
        for (uint32_t i = first; i < first + count; i++) {
            box_grow(n, t->c[t->r[i].i].mn, t->c[t->r[i].i].mx);
        }
        n->first = first;
        n->count = count;
        return;
    }
    float cmn[3] = {INFINITY, INFINITY, INFINITY}, cmx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = first; i < first + count; i++) {
        for (int k = 0; k < 3; k++) {
            cmn[k] = RILL_MIN(cmn[k], t->r[i].c[k]);
            cmx[k] = RILL_MAX(cmx[k], t->r[i].c[k]);
        }
    }
    int axis = 0;
    for (int k = 1; k < 3; k++) {
        if (cmx[k] - cmn[k] > cmx[axis] - cmn[axis]) {
            axis = k;
        }
    }
    uint32_t half = count / 2, left = t->nnodes;
    select_kth(t->r + first, count, half, axis);
    t->nnodes += 2;
    build(t, left, first, half);
    build(t, left + 1, first + half, count - half);
    box_reset(n);
    box_grow(n, t->nodes[left].mn, t->nodes[left].mx);
    box_grow(n, t->nodes[left + 1].mn, t->nodes[left + 1].mx);
    n->first = left;
    n->count = 0;
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

/* The unit normal of the plane through a, b, c, turned to face against d. */
static void facing_normal(const float a[3], const float b[3], const float c[3], const float d[3],
                          float out_n[3]) {
    vec3 e1, e2;
    glm_vec3_sub((float *)b, (float *)a, e1);
    glm_vec3_sub((float *)c, (float *)a, e2);
    glm_vec3_cross(e1, e2, out_n);
    glm_vec3_normalize(out_n);
    if (glm_vec3_dot(out_n, (float *)d) > 0.0f) {
        glm_vec3_negate(out_n);
    }
}

/* The nearest triangle of c hit by the world ray, when nearer than best->t (then updated). */
static void ray_mesh(const cand *c, const float o[3], const float d[3], best_hit *best) {
    const rill_pick_mesh *p = &c->mesh;
    mat4 m, inv;
    memcpy(m, c->m, sizeof(m));
    glm_mat4_inv(m, inv);
    vec4 wo = {o[0], o[1], o[2], 1.0f}, wd = {d[0], d[1], d[2], 0.0f}, lo4, ld4;
    glm_mat4_mulv(inv, wo, lo4);
    glm_mat4_mulv(inv, wd, ld4);
    /* Local t equals world t: the local direction is the world one through the inverse. */
    uint32_t n = p->indices ? p->index_count : p->vertex_count;
    for (uint32_t i = 0; i + 2 < n; i += 3) {
        uint32_t ia = p->indices ? p->indices[i] : i, ib = p->indices ? p->indices[i + 1] : i + 1,
                 ic = p->indices ? p->indices[i + 2] : i + 2;
        if (ia >= p->vertex_count || ib >= p->vertex_count || ic >= p->vertex_count) {
            continue;
        }
        const float *a = p->positions + 3 * ia, *b = p->positions + 3 * ib,
                    *cc = p->positions + 3 * ic;
        float t;
        if (!rill_ray_triangle(lo4, ld4, a, b, cc, &t) || t >= best->t) {
            continue;
        }
        vec3 wa, wb, wc;
        glm_mat4_mulv3(m, (float *)a, 1.0f, wa);
        glm_mat4_mulv3(m, (float *)b, 1.0f, wb);
        glm_mat4_mulv3(m, (float *)cc, 1.0f, wc);
        best->t = t;
        best->e = c->e;
        best->pickable = c->pickable;
        facing_normal(wa, wb, wc, d, best->n);
    }
}

/* Whether e takes part in the pick (drawn, and pickable or, with opaque_blocks, a blocker); its
 * role in *out_pickable. Drawn means not HIDDEN; a blocker is drawn solid (NORMAL or GHOST). */
static bool role(const gather_ctx *g, rill_entity e, bool *out_pickable) {
    uint64_t mask = rill_channels_get(g->w, e);
    rill_render_mode mode = RILL_RENDER_MODE_NORMAL;
    float op = 1.0f, cop = 1.0f;
    const rill_render_mode_component *rm =
        g->render_mode.id ? rill_world_get(g->w, e, g->render_mode) : NULL;
    if (rm && (uint32_t)rm->mode < RILL_RENDER_MODE_NUM) {
        mode = rm->mode;
        op = rm->ghost_opacity;
    }
    rill_render_mode cm = rill_channels_resolve(g->modes, mask, &cop);
    mode = rill_channels_join(mode, op, cm, cop, &op);
    bool blocks = mode == RILL_RENDER_MODE_NORMAL || mode == RILL_RENDER_MODE_GHOST;
    *out_pickable = (mask & g->bits) != 0;
    return mode != RILL_RENDER_MODE_HIDDEN && (*out_pickable || (g->d->opaque_blocks && blocks));
}

/* Adds mesh candidate e (triangles pm at world matrix m). False when out of memory. */
static bool push_mesh(gather_ctx *g, rill_entity e, bool pickable, const rill_pick_mesh *pm,
                      const float m[16]) {
    if (!pm->positions || !pm->vertex_count) {
        return true;
    }
    cand c;
    memset(&c, 0, sizeof(c));
    c.e = e;
    c.mesh = *pm;
    c.m = m;
    c.pickable = pickable;
    world_box(m, pm->bounds_min, pm->bounds_max, c.mn, c.mx);
    for (int k = 0; k < 3; k++) {
        c.c[k] = 0.5f * (c.mn[k] + c.mx[k]);
    }
    return rill_array_push(&g->cs, c);
}

/* ModelMesh entities with loaded triangles. */
static bool gather_model_meshes(gather_ctx *g, rill_asset_server *assets, rill_component mm_c) {
    if (!assets) {
        return true;
    }
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = mm_c;
    qd.with[1] = rill_world_builtin(g->w)->global_transform;
    rill_query q = rill_world_query(g->w, &qd);
    while (rill_query_next(&q)) {
        const rill_model_mesh *mm = rill_query_get(&q, 0);
        const rill_global_transform *xf = rill_query_get(&q, 1);
        bool pickable = false;
        if (!role(g, q.entity, &pickable)) {
            continue;
        }
        const rill_gltf_model *gm =
            rill_asset_get_payload_as(assets, (rill_asset){mm->asset}, RILL_GLTF_ASSET_LOADER);
        if (!gm || mm->mesh >= gm->mesh_count ||
            mm->primitive >= gm->meshes[mm->mesh].primitive_count) {
            continue;
        }
        const rill_gltf_primitive *p = &gm->meshes[mm->mesh].primitives[mm->primitive];
        rill_pick_mesh pm = {.positions = p->positions,
                             .vertex_count = p->vertex_count,
                             .indices = p->indices,
                             .index_count = p->index_count};
        memcpy(pm.bounds_min, p->bounds_min, sizeof(pm.bounds_min));
        memcpy(pm.bounds_max, p->bounds_max, sizeof(pm.bounds_max));
        if (!push_mesh(g, q.entity, pickable, &pm, xf->m)) {
            return false;
        }
    }
    return true;
}

/* MeshInstance entities, through desc.mesh_source. */
static bool gather_mesh_instances(gather_ctx *g) {
    if (!g->d->mesh_source || !g->modes->mesh_instance.id) {
        return true;
    }
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = g->modes->mesh_instance;
    qd.with[1] = rill_world_builtin(g->w)->global_transform;
    rill_query q = rill_world_query(g->w, &qd);
    while (rill_query_next(&q)) {
        const rill_global_transform *xf = rill_query_get(&q, 1);
        bool pickable = false;
        rill_pick_mesh pm;
        memset(&pm, 0, sizeof(pm));
        if (role(g, q.entity, &pickable) &&
            g->d->mesh_source(g->d->mesh_source_user, g->w, q.entity, &pm) &&
            !push_mesh(g, q.entity, pickable, &pm, xf->m)) {
            return false;
        }
    }
    return true;
}

/* Terrain entities, when desc.terrain is given. */
static bool gather_terrains(gather_ctx *g) {
    rill_component tc = rill_world_find_component(g->w, TERRAIN_COMPONENT);
    if (!g->d->terrain || !tc.id) {
        return true;
    }
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = tc;
    rill_query q = rill_world_query(g->w, &qd);
    while (rill_query_next(&q)) {
        terrain_cand t = {q.entity, false};
        if (role(g, q.entity, &t.pickable) && !rill_array_push(&g->ts, t)) {
            return false;
        }
    }
    return true;
}

/* Walks the hierarchy over the mesh candidates, nearest box first. */
static void walk(const bvh *t, const float o[3], const float d[3], best_hit *best) {
    float inv[3] = {1.0f / d[0], 1.0f / d[1], 1.0f / d[2]};
    uint32_t stack[STACK_MAX], sp = 0;
    if (ray_box(o, inv, t->nodes[0].mn, t->nodes[0].mx, best->t) < INFINITY) {
        stack[sp++] = 0;
    }
    while (sp) {
        const node *nd = &t->nodes[stack[--sp]];
        if (ray_box(o, inv, nd->mn, nd->mx, best->t) == INFINITY) {
            continue; /* farther than the best hit found since it was pushed */
        }
        if (nd->count) {
            for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
                const cand *c = &t->c[t->r[i].i];
                if (ray_box(o, inv, c->mn, c->mx, best->t) < INFINITY) {
                    ray_mesh(c, o, d, best);
                }
            }
            continue;
        }
        uint32_t a = nd->first, b = nd->first + 1;
        float ta = ray_box(o, inv, t->nodes[a].mn, t->nodes[a].mx, best->t);
        float tb = ray_box(o, inv, t->nodes[b].mn, t->nodes[b].mx, best->t);
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
}

/* Casts against each gathered terrain within best->t. */
static void cast_terrains(const gather_ctx *g, const float o[3], const float d[3], best_hit *best) {
    for (uint32_t i = 0; i < g->ts.len; i++) {
        float t = 0.0f, n[3];
        /* Resident chunks only: the others are not drawn. */
        if (rill_terrain_raycast(g->d->terrain, g->ts.data[i].e, o, d,
                                 isfinite(best->t) ? best->t : 0.0f, true, &t, n) &&
            t < best->t) {
            best->t = t;
            best->e = g->ts.data[i].e;
            best->pickable = g->ts.data[i].pickable;
            float s = glm_vec3_dot(n, (float *)d) > 0.0f ? -1.0f : 1.0f;
            glm_vec3_scale(n, s, best->n);
        }
    }
}

static bool gather(gather_ctx *g, rill_asset_server *assets) {
    rill_model_components mc;
    rill_error err = {0};
    if (rill_scene_model_register(g->w, &mc, &err) != RILL_OK) {
        return false;
    }
    g->render_mode = mc.render_mode;
    return gather_model_meshes(g, assets, mc.model_mesh) && gather_mesh_instances(g) &&
           gather_terrains(g);
}

bool rill_channels_pick(rill_world *world, rill_asset_server *assets, const rill_pick_desc *desc,
                        rill_pick_hit *out) {
    if (RILL_DESC_CHECK(desc, "rill_channels_pick", NULL) != RILL_OK) {
        return false;
    }
    if (!world || !desc || !out || !rill_channels_modes(world)) {
        return false;
    }
    vec3 d = {desc->dir[0], desc->dir[1], desc->dir[2]};
    float len = glm_vec3_norm(d);
    if (!(len > 1e-20f) || !isfinite(len)) {
        return false;
    }
    glm_vec3_scale(d, 1.0f / len, d);
    const float *o = desc->origin;
    gather_ctx g;
    memset(&g, 0, sizeof(g));
    g.w = world;
    g.d = desc;
    g.modes = rill_channels_modes(world);
    g.bits = desc->channels ? desc->channels : RILL_CHANNEL_SELECTABLE;
    best_hit best = {.t = desc->max_distance > 0.0f ? desc->max_distance : INFINITY};
    bvh t = {0};
    bool ok = gather(&g, assets);
    if (ok && g.cs.len) {
        t.c = g.cs.data;
        t.nodes = rill_calloc(2u * g.cs.len, sizeof(node));
        t.r = rill_malloc((size_t)g.cs.len * sizeof(cand_ref));
        ok = t.nodes && t.r;
        if (ok) {
            for (uint32_t i = 0; i < g.cs.len; i++) {
                memcpy(t.r[i].c, g.cs.data[i].c, sizeof(t.r[i].c));
                t.r[i].i = i;
            }
            t.nnodes = 1;
            build(&t, 0, 0, g.cs.len);
            walk(&t, o, d, &best);
        }
    }
    if (ok) {
        cast_terrains(&g, o, d, &best);
    }
    bool hit = ok && best.e != RILL_ENTITY_NULL && best.pickable;
    if (hit) {
        out->entity = best.e;
        out->distance = best.t;
        for (int k = 0; k < 3; k++) {
            out->point[k] = o[k] + d[k] * best.t;
            out->normal[k] = best.n[k];
        }
    }
    rill_free(t.nodes);
    rill_free(t.r);
    rill_array_free(&g.cs);
    rill_array_free(&g.ts);
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

rill_event rill_channels_pick_event(rill_world *world) {
    return world
               ? rill_world_register_event(world, RILL_CHANNELS_PICK_EVENT, sizeof(rill_pick_event))
               : RILL_EVENT_NONE;
}

bool rill_channels_send_pick(rill_world *world, const rill_pick_hit *hit, float x, float y) {
    rill_event ev = rill_channels_pick_event(world);
    if (!ev.id) {
        return false;
    }
    rill_pick_event p = {.x = x, .y = y};
    if (hit) {
        p.entity = hit->entity;
        p.distance = hit->distance;
        memcpy(p.point, hit->point, sizeof(p.point));
        memcpy(p.normal, hit->normal, sizeof(p.normal));
    }
    return rill_world_send_event(world, ev, &p);
}
