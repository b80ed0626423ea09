/* batch.c: static batching. Static ModelMesh geometry is merged per key (spatial cell, material,
 * LOD level, channel mask) into one mesh per key, drawn as one instance at the cell's origin.
 *
 * Who is batched: an entity whose own RenderMode is absent or NORMAL (LOD levels switched off,
 * instances on their way out and crossfades are not), whose channels lack PRESERVE_IDENTITY, whose
 * material is not blended, and which has not moved for `static_frames` frames (moving = animated).
 * Without multi-draw indirect a group of one stays an instance (instancing draws it with its twins
 * elsewhere); with it, a group of one is batched too (it joins its material's indirect draw).
 *
 * Cells are the unit of rebuild. Each entity keeps a record (by entity index): its cell, a
 * signature of what its batch depends on (mesh, material, channel mask, candidacy) and the cell
 * generation it was built into. Per frame:
 *   begin: entities in this frame's changed-transform list mark their cell dirty; a dirty cell's
 *          batches are dropped (its members draw as instances) and, within the per-frame budget,
 *          it starts collecting;
 *   take:  an entity built into its cell's current generation is skipped (the batch draws it);
 *          one whose signature changed leaves the batch now (it draws as an instance with its new
 *          state) and breaks the cell; a candidate in a collecting cell is collected;
 *   end:   collected cells are built (their batches draw from the next frame, the members drew as
 *          instances this one); a broken cell (or one that lost a member) draws its remaining
 *          members one by one from what was recorded at build time, and is rebuilt next frame.
 * So the picture never depends on rebuild latency, and a channel's render mode (resolved per
 * batch from its mask at extract) changes nothing here. */
#include "batch.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CELL 64.0f
#define DEFAULT_CELLS_PER_FRAME 16u
#define DEFAULT_STATIC_FRAMES 60u
#define MAX_BATCH_VERTICES (1u << 20)
#define BATCH_ID_BIT (UINT64_C(1) << 63)

enum { CELL_CLEAN, CELL_DIRTY, CELL_COLLECTING };

typedef struct member_rec {
    rill_entity e; /* 0 = unused */
    uint32_t cell;
    uint32_t sig;
    uint32_t gen;           /* the cell generation it was built into; 0 = not in a batch */
    uint32_t skipped_frame; /* last frame a batch was to draw it (take returned true) */
    uint32_t moved_frame;   /* frames count modulo 2^32: only differences are used */
    bool moved;
} member_rec;

/* What a cell keeps of a member: enough to draw it alone while the cell waits for a rebuild. */
typedef struct member_info {
    rill_entity e;
    rill_mesh mesh;
    rill_material material;
    uint64_t mask;
    float m[16];
} member_info;

typedef struct collected {
    member_info info;
    rill_model_mesh mm;
    uint64_t material_key;  /* the material's content (model_assets.c) */
    rill_material material; /* the shared material of that content */
    uint32_t owner;         /* the asset holding it */
    uint32_t level;
    bool has_edges;
} collected;

typedef struct batch {
    rill_mesh mesh;
    rill_material material;
    uint32_t owner; /* asset of the material: kept uploaded while the batch draws */
    uint64_t mask;
    uint64_t id;
} batch;

typedef struct cell {
    int32_t ix, iy, iz;
    uint32_t gen;
    uint8_t state;
    bool broken;          /* a member changed during this frame's walk */
    uint32_t built_frame; /* batches draw from the frame after */
    uint32_t seen;        /* members taken this frame */
    RILL_ARRAY(batch) batches;
    RILL_ARRAY(member_info) members; /* built into the batches */
    RILL_ARRAY(collected) col;
} cell;

struct rill__batcher {
    rill_renderer *r;
    rill_render_assets *ra;
    rill_render_batching set;
    bool on;
    uint32_t frame;
    uint64_t next_id;
    RILL_ARRAY(member_rec) recs; /* by entity index */
    RILL_ARRAY(cell) cells;
    rill_map cell_of; /* packed cell coordinates -> index + 1 */
    RILL_ARRAY(uint32_t) dirty;
    RILL_ARRAY(rill_vertex) vtmp;
    RILL_ARRAY(uint32_t) itmp;
    RILL_ARRAY(uint32_t) etmp; /* edge indices */
    rill_render_batching_stats stats;
};

static rill_render_batching defaults(const rill_render_batching *s) {
    rill_render_batching d = s ? *s : (rill_render_batching){0};
    if (!(d.cell_size > 0.0f) || !isfinite(d.cell_size)) {
        d.cell_size = DEFAULT_CELL;
    }
    d.cells_per_frame = d.cells_per_frame ? d.cells_per_frame : DEFAULT_CELLS_PER_FRAME;
    d.static_frames = d.static_frames ? d.static_frames : DEFAULT_STATIC_FRAMES;
    return d;
}

rill__batcher *rill__batch_create(rill_renderer *r, rill_render_assets *ra) {
    rill__batcher *bt = rill_calloc_tagged(1, sizeof(*bt), RILL_MEM_RENDER);
    if (bt) {
        bt->r = r;
        bt->ra = ra;
        bt->set = defaults(NULL);
        bt->frame = 1;
    }
    return bt;
}

static void drop_batches(rill__batcher *bt, cell *c) {
    for (uint32_t i = 0; i < c->batches.len; i++) {
        rill_render_mesh_destroy(bt->r, c->batches.data[i].mesh);
    }
    bt->stats.batches -= c->batches.len;
    bt->stats.batched_entities -= c->members.len;
    c->batches.len = 0;
    c->members.len = 0;
    c->gen++; /* records built into the old generation no longer match */
    c->broken = false;
}

static void drop_all(rill__batcher *bt) {
    for (uint32_t i = 0; i < bt->cells.len; i++) {
        cell *c = &bt->cells.data[i];
        drop_batches(bt, c);
        rill_array_free(&c->batches);
        rill_array_free(&c->members);
        rill_array_free(&c->col);
    }
    bt->cells.len = 0;
    rill_map_free(&bt->cell_of);
    bt->recs.len = 0;
    bt->dirty.len = 0;
    bt->stats.cells = 0;
}

void rill__batch_destroy(rill__batcher *bt) {
    if (!bt) {
        return;
    }
    drop_all(bt);
    rill_array_free(&bt->cells);
    rill_array_free(&bt->recs);
    rill_array_free(&bt->dirty);
    rill_array_free(&bt->vtmp);
    rill_array_free(&bt->itmp);
    rill_array_free(&bt->etmp);
    rill_free(bt);
}

void rill__batch_configure(rill__batcher *bt, const rill_render_batching *settings) {
    rill_render_batching d = defaults(settings);
    if (d.cell_size != bt->set.cell_size || !d.enabled) {
        drop_all(bt); /* other cells (or off): everything is rebuilt from scratch */
    }
    bt->set = d;
    bt->on = d.enabled;
}

void rill__batch_stats(const rill__batcher *bt, rill_render_batching_stats *out) {
    *out = bt->stats;
    rill_map seen = {0}; /* distinct materials of the batches */
    for (uint32_t i = 0; i < bt->cells.len; i++) {
        const cell *c = &bt->cells.data[i];
        for (uint32_t k = 0; k < c->batches.len; k++) {
            uint64_t v = 0;
            if (!rill_map_get(&seen, c->batches.data[k].material.id, &v) &&
                rill_map_set(&seen, c->batches.data[k].material.id, 1)) {
                out->materials++;
            }
        }
    }
    rill_map_free(&seen);
    out->enabled = bt->on;
    out->cell_size = bt->set.cell_size;
}

/* >>records and cells ---------------------------------------------------------------------------
 */

static member_rec *rec_of(rill__batcher *bt, rill_entity e) {
    uint32_t i = RILL_ENTITY_INDEX(e);
    if (i >= bt->recs.len) {
        uint32_t want = RILL_MAX(i + 1u, bt->recs.len * 2u);
        if (!rill_array_reserve(&bt->recs, want)) {
            return NULL;
        }
        memset(bt->recs.data + bt->recs.len, 0, (want - bt->recs.len) * sizeof(member_rec));
        bt->recs.len = want;
    }
    return &bt->recs.data[i];
}

static uint64_t pack_cell(int32_t x, int32_t y, int32_t z) {
    const uint64_t m = (1u << 21) - 1u;
    return ((uint64_t)(uint32_t)x & m) | (((uint64_t)(uint32_t)y & m) << 21) |
           (((uint64_t)(uint32_t)z & m) << 42);
}

static int32_t cell_coord(float v, float size) {
    float c = floorf(v / size);
    return c > 1e6f ? 1000000 : c < -1e6f ? -1000000 : (int32_t)c; /* NaN -> 0 */
}

/* The cell holding world position p (created when new); UINT32_MAX when out of memory. */
static uint32_t cell_at(rill__batcher *bt, const float p[3]) {
    int32_t x = cell_coord(p[0], bt->set.cell_size), y = cell_coord(p[1], bt->set.cell_size),
            z = cell_coord(p[2], bt->set.cell_size);
    uint64_t key = pack_cell(x, y, z), v = 0;
    if (rill_map_get(&bt->cell_of, key, &v)) {
        return (uint32_t)(v - 1u);
    }
    cell c;
    memset(&c, 0, sizeof(c));
    c.ix = x;
    c.iy = y;
    c.iz = z;
    c.gen = 1;
    if (!rill_array_push(&bt->cells, c)) {
        return UINT32_MAX;
    }
    if (!rill_map_set(&bt->cell_of, key, bt->cells.len)) {
        bt->cells.len--;
        return UINT32_MAX;
    }
    bt->stats.cells = bt->cells.len;
    return bt->cells.len - 1u;
}

static void mark_dirty(rill__batcher *bt, uint32_t ci) {
    cell *c = &bt->cells.data[ci];
    if (c->state == CELL_CLEAN) {
        c->state = CELL_DIRTY;
        rill_array_push(&bt->dirty, ci); /* out of memory: rebuilt when marked again */
    }
}

static uint32_t signature(rill_mesh mesh, rill_material mat, uint64_t mask, bool candidate) {
    uint64_t h = (uint64_t)mesh.id * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)mat.id + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= mask * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    uint32_t s = (uint32_t)(h ^ (h >> 32));
    return (s & ~1u) | (candidate ? 1u : 0u) | (s == 0 ? 2u : 0u); /* never 0 */
}

/* >>per frame -----------------------------------------------------------------------------------
 */

bool rill__batch_begin(rill__batcher *bt, rill_world *world) {
    if (!bt || !bt->on) {
        return false;
    }
    bt->frame++;
    bt->stats.cells_built_last_frame = 0;
    bt->stats.build_ms_last_frame = 0.0;
    /* Moved entities leave their batches (and stay out for static_frames). */
    uint32_t nmoved = 0;
    const rill_entity *moved = rill_world_changed_transforms(world, &nmoved);
    for (uint32_t i = 0; i < nmoved; i++) {
        uint32_t idx = RILL_ENTITY_INDEX(moved[i]);
        if (idx >= bt->recs.len || bt->recs.data[idx].e != moved[i]) {
            continue; /* not seen yet: a new entity is placed, not animated */
        }
        member_rec *rc = &bt->recs.data[idx];
        rc->moved = true; /* not a candidate now: its signature changes once, when next taken */
        rc->moved_frame = bt->frame;
        if (rc->gen && rc->gen == bt->cells.data[rc->cell].gen) {
            mark_dirty(bt, rc->cell);
        }
    }
    /* Dirty cells: drop their batches now; collect as many as the budget allows. */
    uint32_t budget = bt->set.cells_per_frame, kept = 0;
    for (uint32_t i = 0; i < bt->dirty.len; i++) {
        uint32_t ci = bt->dirty.data[i];
        cell *c = &bt->cells.data[ci];
        if (c->state != CELL_DIRTY) {
            continue;
        }
        if (c->batches.len || c->members.len) {
            drop_batches(bt, c);
        }
        if (budget) {
            budget--;
            c->state = CELL_COLLECTING;
            c->col.len = 0;
        } else {
            bt->dirty.data[kept++] = ci;
        }
    }
    bt->dirty.len = kept;
    return true;
}

bool rill__batch_take(rill__batcher *bt, rill_entity e, const rill_model_mesh *mm, rill_mesh mesh,
                      rill_material mat, const float m[16], uint64_t mask, bool own_normal) {
    member_rec *rc = rec_of(bt, e);
    if (!rc) {
        return false;
    }
    if (rc->e != e) { /* first sight (or a new entity in a reused slot) */
        memset(rc, 0, sizeof(*rc));
        rc->e = e;
        rc->cell = cell_at(bt, &m[12]);
        if (rc->cell == UINT32_MAX) {
            rc->e = 0;
            return false;
        }
    }
    if (rc->moved && bt->frame - rc->moved_frame > bt->set.static_frames) {
        rc->moved = false; /* still long enough: batched again, in the cell it stands in now */
        bool in_batch = rc->gen && rc->gen == bt->cells.data[rc->cell].gen;
        uint32_t ci = in_batch ? UINT32_MAX : cell_at(bt, &m[12]);
        if (ci != UINT32_MAX) {
            rc->cell = ci;
        }
    }
    const mat_slot *ms = rill__material_get(bt->r, mat);
    bool candidate = own_normal && ms && ms->alpha_mode != RILL_ALPHA_BLEND && !rc->moved &&
                     !(mask & RILL_CHANNEL_PRESERVE_IDENTITY);
    uint32_t sig = signature(mesh, mat, mask, candidate);
    cell *c = &bt->cells.data[rc->cell];
    bool built = rc->gen && rc->gen == c->gen;
    if (rc->sig != sig) {
        rc->sig = sig;
        if (built) {
            c->broken = true; /* drawn alone from now on; the cell's other members too */
            rc->gen = 0;
            built = false;
        }
        if (candidate) {
            mark_dirty(bt, rc->cell); /* (a broken cell is marked at the end of the walk) */
        }
    }
    if (built) {
        c->seen++;
        if (c->broken) {
            return false;
        }
        rc->skipped_frame = bt->frame;
        return true;
    }
    if (candidate && c->state == CELL_COLLECTING) {
        collected *k = rill_array_push_n(&c->col, 1);
        if (k) {
            memset(k, 0, sizeof(*k));
            k->info.e = e;
            k->info.mesh = mesh;
            k->info.material = mat;
            k->info.mask = mask;
            memcpy(k->info.m, m, sizeof(k->info.m));
            k->mm = *mm;
        }
    }
    return false;
}

/* >>building ------------------------------------------------------------------------------------
 */

static int cmp_collected(const void *pa, const void *pb) {
    const collected *a = pa, *b = pb;
    if (a->material_key != b->material_key) {
        return a->material_key < b->material_key ? -1 : 1;
    }
    if (a->level != b->level) {
        return a->level < b->level ? -1 : 1;
    }
    if (a->info.mask != b->info.mask) {
        return a->info.mask < b->info.mask ? -1 : 1;
    }
    if (a->has_edges != b->has_edges) {
        return a->has_edges ? 1 : -1;
    }
    return a->info.e < b->info.e ? -1 : a->info.e > b->info.e; /* deterministic */
}

static bool same_key(const collected *a, const collected *b) {
    return a->material_key == b->material_key && a->level == b->level &&
           a->info.mask == b->info.mask && a->has_edges == b->has_edges;
}

/* Appends one member's primitive, moved into cell space (origin subtracted from the translation):
 * positions through the matrix, normals through its inverse transpose and tangents through its
 * 3x3, as mesh.vert does per instance, so a batch draws what its members drew. */
static bool append_member(rill__batcher *bt, const collected *k, const rill_gltf_primitive *p,
                          const float origin[3]) {
    const float *m = k->info.m;
    float a[9] = {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]}; /* columns */
    /* Inverse transpose of the 3x3 = cofactor matrix / det. */
    float cof[9] = {
        a[4] * a[8] - a[5] * a[7], a[5] * a[6] - a[3] * a[8], a[3] * a[7] - a[4] * a[6],
        a[2] * a[7] - a[1] * a[8], a[0] * a[8] - a[2] * a[6], a[1] * a[6] - a[0] * a[7],
        a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3]};
    float det = a[0] * cof[0] + a[1] * cof[1] + a[2] * cof[2];
    float id = fabsf(det) > 1e-30f ? 1.0f / det : 0.0f;
    uint32_t base = bt->vtmp.len;
    rill_vertex *v = rill_array_push_n(&bt->vtmp, p->vertex_count);
    uint32_t *ix = p->index_count ? rill_array_push_n(&bt->itmp, p->index_count) : NULL;
    if (!v || (p->index_count && !ix)) {
        return false;
    }
    float t[3] = {m[12] - origin[0], m[13] - origin[1], m[14] - origin[2]};
    for (uint32_t i = 0; i < p->vertex_count; i++) {
        const float *ps = p->positions + 3 * i;
        rill_vertex *o = &v[i];
        memset(o, 0, sizeof(*o));
        for (int r = 0; r < 3; r++) {
            o->position[r] = a[r] * ps[0] + a[3 + r] * ps[1] + a[6 + r] * ps[2] + t[r];
        }
        if (p->normals) {
            const float *n = p->normals + 3 * i;
            /* column r of the inverse transpose is cofactor column r / det: cof laid out by
             * columns of the cofactor matrix, transposed here. */
            for (int r = 0; r < 3; r++) {
                o->normal[r] =
                    (cof[3 * 0 + r] * n[0] + cof[3 * 1 + r] * n[1] + cof[3 * 2 + r] * n[2]) * id;
            }
        }
        if (p->uv0) {
            memcpy(o->uv, p->uv0 + 2 * i, sizeof(o->uv));
        }
        if (p->tangents) {
            const float *tg = p->tangents + 4 * i;
            for (int r = 0; r < 3; r++) {
                o->tangent[r] = a[r] * tg[0] + a[3 + r] * tg[1] + a[6 + r] * tg[2];
            }
            o->tangent[3] = tg[3];
        }
    }
    for (uint32_t i = 0; i < p->index_count; i++) {
        ix[i] = base + (p->indices[i] < p->vertex_count ? p->indices[i] : 0u);
    }
    /* The member's edges (keys keep members with and without edges apart), offset like its
     * triangles. */
    uint32_t *ex = p->edge_index_count ? rill_array_push_n(&bt->etmp, p->edge_index_count) : NULL;
    if (p->edge_index_count && !ex) {
        return false;
    }
    for (uint32_t i = 0; i < p->edge_index_count; i++) {
        ex[i] = base + (p->edge_indices[i] < p->vertex_count ? p->edge_indices[i] : 0u);
    }
    return true;
}

/* Makes one batch of col[a..b) (same key); false when it could not (members stay instances). */
static bool make_batch(rill__batcher *bt, cell *c, const collected *col, uint32_t a, uint32_t b,
                       const float origin[3]) {
    bt->vtmp.len = 0;
    bt->itmp.len = 0;
    bt->etmp.len = 0;
    for (uint32_t i = a; i < b; i++) {
        const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &col[i].mm);
        if (!p || !append_member(bt, &col[i], p, origin)) {
            return false;
        }
    }
    if (!bt->itmp.len) {
        return false;
    }
    char label[64];
    snprintf(label, sizeof(label), "batch %d,%d,%d", c->ix, c->iy, c->iz);
    rill_mesh_desc md = {.vertices = bt->vtmp.data,
                         .vertex_count = bt->vtmp.len,
                         .indices = bt->itmp.data,
                         .index_count = bt->itmp.len,
                         .label = label,
                         .edge_indices = bt->etmp.len ? bt->etmp.data : NULL,
                         .edge_index_count = bt->etmp.len};
    rill_error err = {0};
    rill_mesh mesh = rill__mesh_create_merged(bt->r, &md, &err);
    if (!mesh.id) {
        RILL_LOG_WARN("render", "static batching: cell %d,%d,%d: %s (drawn unbatched)", c->ix,
                      c->iy, c->iz, err.msg);
        return false;
    }
    batch bb = {mesh, col[a].material, col[a].owner, col[a].info.mask,
                BATCH_ID_BIT | bt->next_id++};
    if (!rill_array_push(&c->batches, bb)) {
        rill_render_mesh_destroy(bt->r, mesh);
        return false;
    }
    for (uint32_t i = a; i < b; i++) {
        if (!rill_array_push(&c->members, col[i].info)) {
            return false; /* the batch draws them; a missing record breaks the cell next frame */
        }
        member_rec *rc = rec_of(bt, col[i].info.e);
        if (rc && rc->e == col[i].info.e) {
            rc->gen = c->gen;
        }
    }
    bt->stats.batches++;
    bt->stats.batched_entities += b - a;
    return true;
}

static uint32_t prim_vertices(rill__batcher *bt, const collected *k) {
    const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &k->mm);
    return p ? p->vertex_count : 0u;
}

static void build_cell(rill__batcher *bt, cell *c) {
    uint64_t t0 = rill_time_ns();
    float s = bt->set.cell_size;
    float origin[3] = {(float)c->ix * s, (float)c->iy * s, (float)c->iz * s};
    collected *col = c->col.data;
    uint32_t n = c->col.len;
    for (uint32_t i = 0; i < n; i++) {
        const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &col[i].mm);
        col[i].level = rill__render_assets_level(bt->ra, col[i].mm.asset);
        col[i].has_edges = p && p->edge_index_count;
        if (!rill__render_assets_material_of(bt->ra, &col[i].mm, &col[i].material_key,
                                             &col[i].material, &col[i].owner)) {
            col[i].material_key = col[i].info.material.id; /* its own material, alone */
            col[i].material = col[i].info.material;
            col[i].owner = col[i].mm.asset;
        }
    }
    qsort(col, n, sizeof(collected), cmp_collected);
    /* A group of one is worth a batch only when batches of a material draw together. */
    uint32_t min_group = rill__gpu_get_caps(bt->r->gpu)->multi_draw_indirect ? 1u : 2u;
    for (uint32_t a = 0; a < n;) {
        uint32_t b = a + 1;
        while (b < n && same_key(&col[a], &col[b])) {
            b++;
        }
        /* Large groups split by vertex count. */
        for (uint32_t lo = a; b - a >= min_group && lo < b;) {
            uint32_t hi = lo, verts = 0;
            while (hi < b &&
                   (hi == lo || verts + prim_vertices(bt, &col[hi]) <= MAX_BATCH_VERTICES)) {
                verts += prim_vertices(bt, &col[hi]);
                hi++;
            }
            if (hi - lo >= min_group) {
                make_batch(bt, c, col, lo, hi, origin);
            }
            lo = hi;
        }
        a = b;
    }
    c->col.len = 0;
    c->state = CELL_CLEAN;
    c->broken = false;
    c->built_frame = bt->frame;
    double ms = (double)(rill_time_ns() - t0) * 1e-6;
    bt->stats.cells_built++;
    bt->stats.cells_built_last_frame++;
    bt->stats.build_ms_last_frame += ms;
    bt->stats.build_ms_total += ms;
    bt->stats.build_ms_max_cell = RILL_MAX(bt->stats.build_ms_max_cell, ms);
}

/* >>drawing -------------------------------------------------------------------------------------
 */

static bool push(rill_render_extract_buf *buf, uint64_t id, rill_mesh mesh, rill_material mat,
                 const float m[16], uint64_t mask, const rill_channel_modes *modes) {
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = id;
    in.mesh = mesh;
    in.material = mat;
    memcpy(in.transform, m, sizeof(in.transform));
    in.ghost_opacity = 1.0f;
    if (modes && (mask & (modes->hidden | modes->wireframe | modes->ghost))) {
        in.mode = rill_channels_resolve(modes, mask, &in.ghost_opacity);
    }
    return rill_array_push(&buf->instances, in);
}

static bool cell_ready(const rill__batcher *bt, const cell *c) {
    if (c->broken || c->built_frame == bt->frame || c->seen != c->members.len) {
        return false;
    }
    for (uint32_t i = 0; i < c->batches.len; i++) {
        if (!rill__mesh_get(bt->r, c->batches.data[i].mesh) ||
            !rill__material_get(bt->r, c->batches.data[i].material)) {
            return false; /* still uploading (or its material is gone) */
        }
    }
    return true;
}

bool rill__batch_end(rill__batcher *bt, const rill_channel_modes *modes,
                     rill_render_extract_buf *buf) {
    float s = bt->set.cell_size;
    for (uint32_t ci = 0; ci < bt->cells.len; ci++) {
        cell *c = &bt->cells.data[ci];
        if (c->state == CELL_COLLECTING) {
            build_cell(bt, c);
            c->seen = 0;
            continue;
        }
        if (!c->members.len) {
            c->seen = 0;
            continue;
        }
        if (cell_ready(bt, c)) {
            float m[16] = {1,
                           0,
                           0,
                           0,
                           0,
                           1,
                           0,
                           0,
                           0,
                           0,
                           1,
                           0,
                           (float)c->ix * s,
                           (float)c->iy * s,
                           (float)c->iz * s,
                           1};
            for (uint32_t i = 0; i < c->batches.len; i++) {
                const batch *b = &c->batches.data[i];
                rill__render_assets_touch(bt->ra, b->owner);
                if (!push(buf, b->id, b->mesh, b->material, m, b->mask, modes)) {
                    return false;
                }
            }
        } else {
            /* Members the batches were to draw this frame draw alone. */
            for (uint32_t i = 0; i < c->members.len; i++) {
                const member_info *mi = &c->members.data[i];
                uint32_t idx = RILL_ENTITY_INDEX(mi->e);
                const member_rec *rc = idx < bt->recs.len ? &bt->recs.data[idx] : NULL;
                if (rc && rc->e == mi->e && rc->skipped_frame == bt->frame &&
                    !push(buf, mi->e, mi->mesh, mi->material, mi->m, mi->mask, modes)) {
                    return false;
                }
            }
            if (c->broken || c->seen != c->members.len) {
                mark_dirty(bt, ci); /* rebuilt from next frame's walk */
            }
        }
        c->seen = 0;
    }
    return true;
}
