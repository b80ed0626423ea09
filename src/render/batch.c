/* batch.c: static batching. Static ModelMesh geometry is merged per key (spatial cell, material,
 * LOD level, channel mask); each key's members are split into parts by a finer grid (part_size),
 * and each part is one mesh in a shared block with its own bounds, drawn as one instance at the
 * cell's origin. The renderer culls parts one by one (view and shadow cascades) and draws the
 * parts of one material with one multi-draw indirect call, so batching cuts instances and draws
 * while the triangles drawn stay close to the unbatched ones.
 *
 * Who is batched: an entity whose own RenderMode is absent or NORMAL (LOD levels switched off,
 * instances on their way out and crossfades are not), whose channels lack PRESERVE_IDENTITY, whose
 * material is not blended, and which has not moved for `static_frames` frames (moving = animated).
 * Without multi-draw indirect a group of one stays an instance (instancing draws it with its twins
 * elsewhere); with it, a group of one is batched too (it joins its material's indirect draw).
 *
 * Cells are the unit of rebuild. Each entity keeps a record (by entity index): its cell and part,
 * a signature of what its batch depends on (mesh, material, channel mask) and the cell generation
 * it was built into. A built member is out of the per-frame work: extract asks rill__batch_skip
 * first (an index, two compares and a count) and goes on to the next entity. What can change a
 * built member reaches the batcher without looking at it each frame:
 *   - its transform: this frame's changed-transform list (begin);
 *   - its RenderMode (a LOD switch, a crossfade, hidden), SceneChannels or ModelMesh: world add
 *     observers, which run when the component is written;
 *   - its despawn: its cell counts fewer members than it was built with at the end of the walk.
 * A change makes the member leave: its part stops drawing (the part's members draw one by one,
 * each with its current state, until the cell is rebuilt; the cell's other parts keep drawing) and
 * the cell is queued. Per frame:
 *   begin: moved members leave; queued cells, within the per-frame budget, drop their batches and
 *          start collecting;
 *   take:  an entity that is not a built member: a candidate in a collecting cell is collected;
 *          one that became a candidate queues its cell;
 *   end:   collected cells are built (their batches draw from the next frame, the members drew as
 *          instances this one); a cell that lost a member draws its remaining members one by one
 *          from what was recorded at build time, and is queued.
 * So the picture never depends on rebuild latency, steady-state cost is O(changed + cells) plus
 * the skip test, and a channel's render mode (resolved per part from its mask at extract) changes
 * nothing here. */
#include "batch.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CELL 64.0f
#define DEFAULT_PART 16.0f
#define DEFAULT_CELLS_PER_FRAME 16u
#define DEFAULT_STATIC_FRAMES 60u
#define MAX_BATCH_VERTICES (1u << 20)
#define MAX_PARTS_PER_AXIS 64u
#define BATCH_ID_BIT (UINT64_C(1) << 63)

enum { CELL_CLEAN, CELL_DIRTY, CELL_COLLECTING };

/* The walk's cache, by position in the ModelMesh storage (the order extract walks it): which entity
 * it last saw there and what it needs of it, so that in a settled world the walk reads memory in
 * order and never a record (40 bytes by entity index, too many for the cache). A position whose
 * entity changed (storage moved: spawns, despawns) is learnt again from the records. */
typedef struct pos_entry {
    rill_entity e;
    uint32_t bits; /* P_* */
    uint32_t cell;
} pos_entry;
enum {
    P_DRAWN = 1, /* a part draws it: the walk skips it */
    P_NOTE = 2,  /* take must look at its record (a candidate when last taken, or built) */
};

typedef struct member_rec {
    rill_entity e; /* 0 = unused */
    uint32_t cell;
    uint32_t part;        /* index into its cell's batches while built */
    uint32_t pos;         /* its last known position in the ModelMesh storage */
    uint32_t sig;         /* 0: not a candidate when last taken */
    uint32_t gen;         /* the cell generation it was built into; 0 = not in a batch */
    uint32_t moved_frame; /* frames count modulo 2^32: only differences are used */
    bool moved;
    bool left; /* built, but changed since: drawn alone until its cell is rebuilt */
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
    uint32_t part; /* the sub-cell of its origin */
    bool has_edges;
} collected;

/* One part: a mesh of a key's members in one sub-cell. */
typedef struct batch {
    rill_mesh mesh;
    rill_material material;
    uint32_t owner; /* asset of the material: kept uploaded while the batch draws */
    uint64_t mask;
    uint64_t id;
    uint32_t first, count; /* its members in the cell's members */
    bool broken;           /* a member left: the others draw alone until the cell is rebuilt */
} batch;

typedef struct cell {
    int32_t ix, iy, iz;
    uint32_t gen;
    uint8_t state;
    uint32_t built_frame; /* batches draw from the frame after */
    bool ready;           /* every part's mesh was uploaded */
    uint32_t seen;        /* built members skipped or taken this frame */
    RILL_ARRAY(batch) batches;
    RILL_ARRAY(member_info) members; /* built into the batches */
    RILL_ARRAY(collected) col;
} cell;

struct rill__batcher {
    rill_renderer *r;
    rill_render_assets *ra;
    uint32_t resource; /* the world resource holding ra (the observers find it through it) */
    rill_render_batching set;
    bool on;
    bool observing; /* the world observers are installed */
    uint32_t frame;
    uint64_t next_id;
    RILL_ARRAY(member_rec) recs;    /* by entity index */
    RILL_ARRAY(pos_entry) pos;      /* by position in the ModelMesh storage */
    const rill_model_mesh *mm_base; /* that storage this frame */
    uint32_t mm_len;
    rill_component mm_comp;
    rill_world *world; /* of the frame being extracted */
    RILL_ARRAY(cell) cells;
    rill_map cell_of; /* packed cell coordinates -> index + 1 */
    RILL_ARRAY(uint32_t) dirty;
    RILL_ARRAY(rill_vertex) vtmp;
    RILL_ARRAY(uint32_t) itmp;
    RILL_ARRAY(uint32_t) etmp; /* edge indices */
    rill_render_batching_stats stats;
};

static float size_or(float v, float fallback) {
    return v > 0.0f && isfinite(v) ? v : fallback;
}

static rill_render_batching defaults(const rill_render_batching *s) {
    rill_render_batching d = s ? *s : (rill_render_batching){0};
    d.cell_size = size_or(d.cell_size, DEFAULT_CELL);
    d.part_size = size_or(d.part_size, DEFAULT_PART);
    /* Parts no finer than MAX_PARTS_PER_AXIS per axis of a cell. */
    d.part_size =
        RILL_MIN(RILL_MAX(d.part_size, d.cell_size / (float)MAX_PARTS_PER_AXIS), d.cell_size);
    d.cells_per_frame = d.cells_per_frame ? d.cells_per_frame : DEFAULT_CELLS_PER_FRAME;
    d.static_frames = d.static_frames ? d.static_frames : DEFAULT_STATIC_FRAMES;
    return d;
}

/* >>observers: what changes a built member reaches the batcher when it is written ------------- */

static rill__batcher *batcher_of(rill_world *w, void *user) {
    rill_render_assets *ra = rill__render_assets_at(w, (uint32_t)(uintptr_t)user);
    rill__batcher *bt = rill__render_assets_batcher(ra);
    return bt && bt->on ? bt : NULL;
}

static void mark_dirty(rill__batcher *bt, uint32_t ci) {
    cell *c = &bt->cells.data[ci];
    if (c->state == CELL_CLEAN) {
        c->state = CELL_DIRTY;
        rill_array_push(&bt->dirty, ci); /* out of memory: rebuilt when marked again */
    }
}

/* The record of e when a batch of its cell's current generation holds it, else NULL. */
static member_rec *built_rec(rill__batcher *bt, rill_entity e) {
    uint32_t idx = RILL_ENTITY_INDEX(e);
    member_rec *rc = idx < bt->recs.len ? &bt->recs.data[idx] : NULL;
    return rc && rc->e == e && rc->gen && rc->gen == bt->cells.data[rc->cell].gen ? rc : NULL;
}

/* The walk's cache entry of a record's entity, or NULL when it is not (or no longer) there. */
static pos_entry *pos_of(rill__batcher *bt, const member_rec *rc) {
    pos_entry *p = rc->pos < bt->pos.len ? &bt->pos.data[rc->pos] : NULL;
    return p && p->e == rc->e ? p : NULL;
}

/* Members [first, first + n) of c are no longer drawn by a part: the walk takes them again. */
static void undraw(rill__batcher *bt, const cell *c, uint32_t first, uint32_t n) {
    for (uint32_t i = first; i < first + n; i++) {
        rill_entity e = c->members.data[i].e;
        uint32_t idx = RILL_ENTITY_INDEX(e); /* below recs.len: recs shrink only with the cells */
        if (bt->recs.data[idx].e == e) {
            pos_entry *p = pos_of(bt, &bt->recs.data[idx]);
            if (p) {
                p->bits &= ~(uint32_t)P_DRAWN;
            }
        }
    }
}

/* A built member changed: its part stops drawing (its members draw alone), its cell is queued. */
static void leave(rill__batcher *bt, rill_entity e) {
    member_rec *rc = built_rec(bt, e);
    if (rc && !rc->left) {
        rc->left = true;
        cell *c = &bt->cells.data[rc->cell];
        batch *b = &c->batches.data[rc->part];
        if (!b->broken) {
            b->broken = true;
            undraw(bt, c, b->first, b->count);
        }
        mark_dirty(bt, rc->cell);
    }
}

static void on_render_mode(rill_world *w, rill_entity e, void *data, void *user) {
    const rill_render_mode_component *rm = data;
    rill__batcher *bt = batcher_of(w, user);
    if (bt && (rm->mode != RILL_RENDER_MODE_NORMAL || rm->lod_fade != 0.0f)) {
        leave(bt, e); /* switched off, crossfading, wireframe or ghost of its own */
    }
}

static void on_member_change(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    rill__batcher *bt = batcher_of(w, user);
    if (bt) {
        leave(bt, e); /* other channels (another key) or another primitive */
    }
}

/* Installs the observers on world (once): true when they are in place. They find the batcher
 * through the world's resource (user = its id), so they stay harmless after the cache is destroyed,
 * and installing them again for another cache of the same world is a no-op. */
static bool observe(rill__batcher *bt, rill_world *world) {
    rill_model_components mc;
    void *user = (void *)(uintptr_t)bt->resource;
    rill_component sc = rill_channels_component(world);
    bool ok = sc.id && rill_scene_model_register(world, &mc, NULL) == RILL_OK;
    bt->mm_comp = ok ? mc.model_mesh : (rill_component){0};
    return ok && rill_world_observe_add(world, mc.render_mode, on_render_mode, user) &&
           rill_world_observe_add(world, mc.model_mesh, on_member_change, user) &&
           rill_world_observe_add(world, sc, on_member_change, user);
}

rill__batcher *rill__batch_create(rill_renderer *r, rill_render_assets *ra, uint32_t resource) {
    rill__batcher *bt = rill_calloc_tagged(1, sizeof(*bt), RILL_MEM_RENDER);
    if (bt) {
        bt->r = r;
        bt->ra = ra;
        bt->resource = resource;
        bt->set = defaults(NULL);
        bt->frame = 1;
    }
    return bt;
}

static void drop_batches(rill__batcher *bt, cell *c) {
    for (uint32_t i = 0; i < c->batches.len; i++) {
        rill_render_mesh_destroy(bt->r, c->batches.data[i].mesh);
    }
    undraw(bt, c, 0, c->members.len);
    c->ready = false;
    bt->stats.batches -= c->batches.len;
    bt->stats.batched_entities -= c->members.len;
    c->batches.len = 0;
    c->members.len = 0;
    c->gen++; /* records built into the old generation no longer match */
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
    bt->pos.len = 0;
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
    rill_array_free(&bt->pos);
    rill_array_free(&bt->dirty);
    rill_array_free(&bt->vtmp);
    rill_array_free(&bt->itmp);
    rill_array_free(&bt->etmp);
    rill_free(bt);
}

void rill__batch_configure(rill__batcher *bt, const rill_render_batching *settings) {
    rill_render_batching d = defaults(settings);
    if (d.cell_size != bt->set.cell_size || d.part_size != bt->set.part_size || !d.enabled) {
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
    out->part_size = bt->set.part_size;
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

static uint32_t signature(rill_mesh mesh, rill_material mat, uint64_t mask) {
    uint64_t h = (uint64_t)mesh.id * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)mat.id + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= mask * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    uint32_t s = (uint32_t)(h ^ (h >> 32));
    return s ? s : 1u; /* 0 means "not a candidate" */
}

/* >>per frame -----------------------------------------------------------------------------------
 */

bool rill__batch_begin(rill__batcher *bt, rill_world *world) {
    if (!bt || !bt->on) {
        return false;
    }
    if (!bt->observing && !(bt->observing = observe(bt, world))) {
        return false; /* without them built members could not be kept out of the walk */
    }
    bt->frame++;
    bt->world = world;
    const rill_entity *ents = NULL;
    void *data = NULL;
    bt->mm_len = rill_world_component_dense(world, bt->mm_comp, &ents, &data);
    bt->mm_base = data;
    if (bt->mm_len > bt->pos.len) {
        uint32_t had = bt->pos.len;
        if (!rill_array_reserve(&bt->pos, bt->mm_len)) {
            return false;
        }
        memset(bt->pos.data + had, 0, (bt->mm_len - had) * sizeof(pos_entry));
        bt->pos.len = bt->mm_len;
    }
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
        rc->moved = true; /* not a candidate now */
        rc->moved_frame = bt->frame;
        leave(bt, moved[i]);
    }
    /* Queued cells: as many as the budget allows drop their batches and collect this frame; the
     * others keep drawing their unbroken parts. */
    uint32_t budget = bt->set.cells_per_frame, kept = 0;
    for (uint32_t i = 0; i < bt->dirty.len; i++) {
        uint32_t ci = bt->dirty.data[i];
        cell *c = &bt->cells.data[ci];
        if (c->state != CELL_DIRTY) {
            continue;
        }
        if (budget) {
            budget--;
            drop_batches(bt, c);
            c->state = CELL_COLLECTING;
            c->col.len = 0;
        } else {
            bt->dirty.data[kept++] = ci;
        }
    }
    bt->dirty.len = kept;
    return true;
}

/* Whether a part draws the member of record rc now. */
static bool drawn(const rill__batcher *bt, const member_rec *rc) {
    const cell *c = &bt->cells.data[rc->cell];
    return rc->gen && rc->gen == c->gen && !rc->left && !c->batches.data[rc->part].broken;
}

/* Position p learns entity e from its record (NULL: none); true when a part draws e. */
static bool learn(rill__batcher *bt, pos_entry *p, rill_entity e, member_rec *rc, uint32_t pos) {
    p->e = e;
    p->bits = 0;
    p->cell = 0;
    if (!rc) {
        return false;
    }
    rc->pos = pos;
    p->cell = rc->cell;
    const cell *c = &bt->cells.data[rc->cell];
    bool built = rc->gen && rc->gen == c->gen;
    p->bits = (built || rc->sig ? P_NOTE : 0u) | (drawn(bt, rc) ? P_DRAWN : 0u);
    return p->bits & P_DRAWN;
}

static member_rec *rec_if(rill__batcher *bt, rill_entity e) {
    uint32_t idx = RILL_ENTITY_INDEX(e);
    return idx < bt->recs.len && bt->recs.data[idx].e == e ? &bt->recs.data[idx] : NULL;
}

bool rill__batch_skip(rill__batcher *bt, rill_entity e, const rill_model_mesh *mm) {
    uint32_t pos = (uint32_t)(mm - bt->mm_base);
    if (mm < bt->mm_base || pos >= bt->pos.len) {
        return false; /* not in the storage begin saw (cannot happen during a walk) */
    }
    pos_entry *p = &bt->pos.data[pos];
    if (p->e != e && !learn(bt, p, e, rec_if(bt, e), pos)) {
        return false;
    }
    if (!(p->bits & P_DRAWN)) {
        return false;
    }
    bt->cells.data[p->cell].seen++;
    return true;
}

/* A fresh record for e standing at p; NULL when out of memory. */
static member_rec *new_rec(rill__batcher *bt, rill_entity e, const float p[3]) {
    member_rec *rc = rec_of(bt, e);
    if (!rc) {
        return NULL;
    }
    memset(rc, 0, sizeof(*rc));
    rc->cell = cell_at(bt, p);
    if (rc->cell == UINT32_MAX) {
        return NULL;
    }
    rc->e = e;
    return rc;
}

bool rill__batch_take(rill__batcher *bt, rill_entity e, const rill_model_mesh *mm, rill_mesh mesh,
                      rill_material mat, const float m[16], uint64_t mask, bool own_normal) {
    bool maybe = own_normal && !(mask & RILL_CHANNEL_PRESERVE_IDENTITY);
    uint32_t pos = (uint32_t)(mm - bt->mm_base);
    pos_entry *p = mm >= bt->mm_base && pos < bt->pos.len && bt->pos.data[pos].e == e
                       ? &bt->pos.data[pos]
                       : NULL; /* (skip learnt it) */
    if (!maybe && p && !(p->bits & P_NOTE)) {
        return false; /* not a candidate, nor was it one when last taken: nothing to note */
    }
    member_rec *rc = rec_if(bt, e);
    if (!rc) {
        if (!maybe) {
            return false; /* never a candidate so far: no record needed */
        }
        if (!(rc = new_rec(bt, e, &m[12]))) {
            return false;
        }
    }
    cell *c = &bt->cells.data[rc->cell];
    if (rc->gen && rc->gen == c->gen) {
        c->seen++;
        return false; /* built, but left or in a broken part: drawn alone */
    }
    if (rc->moved && bt->frame - rc->moved_frame > bt->set.static_frames) {
        rc->moved = false; /* still long enough: batched again, in the cell it stands in now */
        uint32_t ci = cell_at(bt, &m[12]);
        if (ci != UINT32_MAX) {
            rc->cell = ci;
            c = &bt->cells.data[ci];
        }
    }
    const mat_slot *ms = maybe && !rc->moved ? rill__material_get(bt->r, mat) : NULL;
    bool candidate = ms && ms->alpha_mode != RILL_ALPHA_BLEND;
    uint32_t sig = candidate ? signature(mesh, mat, mask) : 0u;
    if (rc->sig != sig) {
        rc->sig = sig;
        if (candidate) {
            mark_dirty(bt, rc->cell);
        }
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
    if (p) {
        learn(bt, p, e, rc, pos);
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
    if (a->part != b->part) {
        return a->part < b->part ? -1 : 1;
    }
    return a->info.e < b->info.e ? -1 : a->info.e > b->info.e; /* deterministic */
}

static bool same_part(const collected *a, const collected *b) {
    return a->material_key == b->material_key && a->level == b->level &&
           a->info.mask == b->info.mask && a->has_edges == b->has_edges && a->part == b->part;
}

/* The sub-cell of a cell-space position: parts per axis cover the cell, the last one takes the
 * rest. */
static uint32_t part_of(const rill_render_batching *set, const float m[16], const float origin[3]) {
    uint32_t per = (uint32_t)ceilf(set->cell_size / set->part_size), p = 0;
    for (int k = 2; k >= 0; k--) {
        float f = floorf((m[12 + k] - origin[k]) / set->part_size);
        uint32_t q = f > 0.0f ? (uint32_t)f : 0u; /* NaN -> 0 */
        p = p * per + RILL_MIN(q, per - 1u);
    }
    return p;
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
    batch bb = {mesh,
                col[a].material,
                col[a].owner,
                col[a].info.mask,
                BATCH_ID_BIT | bt->next_id++,
                c->members.len,
                0,
                false};
    if (!rill_array_push(&c->batches, bb)) {
        rill_render_mesh_destroy(bt->r, mesh);
        return false;
    }
    for (uint32_t i = a; i < b; i++) {
        if (!rill_array_push(&c->members, col[i].info)) {
            return false; /* the batch draws them; a missing record breaks the cell next frame */
        }
        c->batches.data[c->batches.len - 1u].count++;
        member_rec *rc = rec_of(bt, col[i].info.e);
        if (rc && rc->e == col[i].info.e) {
            rc->gen = c->gen;
            rc->part = c->batches.len - 1u;
            rc->left = false;
            pos_entry *p = pos_of(bt, rc);
            if (p) {
                p->bits = P_NOTE | P_DRAWN;
                p->cell = rc->cell;
            }
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
        col[i].part = part_of(&bt->set, col[i].info.m, origin);
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
        while (b < n && same_part(&col[a], &col[b])) {
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

static bool cell_ready(const rill__batcher *bt, cell *c) {
    if (c->built_frame == bt->frame || c->seen != c->members.len) {
        return false;
    }
    for (uint32_t i = 0; i < c->batches.len; i++) {
        const batch *b = &c->batches.data[i];
        bool new_mat = i == 0 || b->material.id != b[-1].material.id;
        if ((!c->ready && !rill__mesh_get(bt->r, b->mesh)) ||
            (new_mat && !rill__material_get(bt->r, b->material))) {
            return false; /* still uploading (or its material is gone) */
        }
    }
    c->ready = true; /* uploads are done once: later frames only check the materials */
    return true;
}

/* Appends a ready cell's unbroken parts (one instance each, at the cell's origin). */
static bool push_parts(rill__batcher *bt, const cell *c, const rill_channel_modes *modes,
                       rill_render_extract_buf *buf) {
    float s = bt->set.cell_size;
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    m[12] = (float)c->ix * s;
    m[13] = (float)c->iy * s;
    m[14] = (float)c->iz * s;
    for (uint32_t i = 0; i < c->batches.len; i++) {
        const batch *b = &c->batches.data[i];
        rill__render_assets_touch(bt->ra, b->owner);
        if (!b->broken && !push(buf, b->id, b->mesh, b->material, m, b->mask, modes)) {
            return false;
        }
    }
    return true;
}

/* A cell that cannot draw its parts this frame (uploading, or a member is gone): the members its
 * unbroken parts were to draw (the walk skipped them) draw alone, as recorded at build time. */
static bool push_members(rill__batcher *bt, const cell *c, const rill_channel_modes *modes,
                         rill_render_extract_buf *buf) {
    for (uint32_t i = 0; i < c->members.len; i++) {
        const member_info *mi = &c->members.data[i];
        uint32_t idx = RILL_ENTITY_INDEX(mi->e);
        const member_rec *rc = &bt->recs.data[idx];
        if (rc->e == mi->e && drawn(bt, rc) && rill_world_is_alive(bt->world, mi->e) &&
            !push(buf, mi->e, mi->mesh, mi->material, mi->m, mi->mask, modes)) {
            return false;
        }
    }
    return true;
}

bool rill__batch_end(rill__batcher *bt, const rill_channel_modes *modes,
                     rill_render_extract_buf *buf) {
    for (uint32_t ci = 0; ci < bt->cells.len; ci++) {
        cell *c = &bt->cells.data[ci];
        bool ok = true;
        if (c->state == CELL_COLLECTING) {
            build_cell(bt, c);
        } else if (c->members.len && cell_ready(bt, c)) {
            ok = push_parts(bt, c, modes, buf);
        } else if (c->members.len) {
            ok = push_members(bt, c, modes, buf);
            if (c->seen != c->members.len) {
                mark_dirty(bt, ci); /* a member is gone: rebuilt from next frame's walk */
            }
        }
        c->seen = 0;
        if (!ok) {
            return false;
        }
    }
    return true;
}
