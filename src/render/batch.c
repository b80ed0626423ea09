/* batch.c: static batching. Static ModelMesh geometry is merged per key (spatial cell, material,
 * channel mask): one mesh per key and cell in a shared block, drawn as one instance at the cell's
 * origin whose ranges (rill_render_range) are its members. Every member is a range of indices;
 * members are ordered by part (a finer grid, part_size), then LOD level, so the members of a part
 * that draw now make few ranges, each culled on its part's bounds by the renderer and drawn with
 * one indirect command (touching ranges join). No mesh lookup per part, one instance per key.
 *
 * A cell's batch holds every LOD level of its members that it has seen: a member's range is on
 * while the member draws as a plain NORMAL entity, off while its level is switched off (hidden) or
 * crossfading (it then draws alone, dithered, as an instance). A LOD switch flips bits, it rebuilds
 * nothing; a rebuild keeps the hidden and fading members it holds.
 *
 * Who is batched: an entity whose own RenderMode is absent or NORMAL, whose channels lack
 * PRESERVE_IDENTITY, whose material is not blended, and which has not moved for `static_frames`
 * frames (moving = animated). Without multi-draw indirect a group of one stays an instance.
 *
 * Cells are the unit of rebuild. Each entity keeps a record (by entity index): its cell, its member
 * index, a signature of what its batch depends on (mesh, material, channel mask) and the cell
 * generation it was built into. A member whose range is on is out of the per-frame work: extract
 * asks rill__batch_skip first (an index, two compares and a count). What changes a member reaches
 * the batcher without looking at it each frame:
 *   - its RenderMode (LOD level shown, hidden, crossfading; a mode of its own): a world add
 *     observer flips its range, or makes it leave for a mode of its own;
 *   - its transform (this frame's changed-transform list), SceneChannels or ModelMesh (observers):
 *     it leaves: its range is off for good, it draws alone, its cell is queued for a rebuild;
 *   - its despawn: its cell counts fewer drawn members than it has on at the end of the walk (the
 *     cell's members then draw alone from what was recorded at build time, and it is queued).
 * Per frame:
 *   begin: moved members leave; queued cells, within the time budget (build_ms, estimated from
 *          the mean time per member built), drop their batches and start collecting (their
 *          hidden and fading members come from what the cell recorded, the others from the walk);
 *   take:  an entity that is not a built member: a candidate in a collecting cell is collected;
 *          one that became a candidate queues its cell;
 *   end:   collected cells are built (their batches draw from the next frame, the members drew as
 *          instances this one); the others append one instance per batch with its on ranges.
 * So the picture never depends on rebuild latency, and a channel's render mode (resolved per batch
 * from its mask at extract) changes nothing here. */
#include "batch.h"

#include "model_assets.h"
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CELL 64.0f
#define DEFAULT_PART 16.0f
#define DEFAULT_BUILD_MS 1.0f
#define DEFAULT_STATIC_FRAMES 60u
#define MAX_BATCH_VERTICES (1u << 20)
#define MAX_PARTS_PER_AXIS 64u
#define BATCH_ID_BIT (UINT64_C(1) << 63)

enum { CELL_CLEAN, CELL_DIRTY, CELL_COLLECTING };

/* The walk's cache, by position in the ModelMesh storage (the order extract walks it): which entity
 * it last saw there and what it needs of it, so that in a settled world the walk reads memory in
 * order and never a record. A position whose entity changed is learnt again from the records. */
typedef struct pos_entry {
    rill_entity e;
    uint32_t bits; /* P_* */
    uint32_t cell;
} pos_entry;
enum {
    P_DRAWN = 1, /* its range is on: the walk skips it */
    P_NOTE = 2,  /* take must look at its record (a candidate when last taken, or built) */
};

typedef struct member_rec {
    rill_entity e; /* 0 = unused */
    uint32_t cell;
    uint32_t member;      /* index into its cell's members while built */
    uint32_t pos;         /* its last known position in the ModelMesh storage */
    uint32_t sig;         /* 0: not a candidate when last taken */
    uint32_t gen;         /* the cell generation it was built into; 0 = not in a batch */
    uint32_t moved_frame; /* frames count modulo 2^32: only differences are used */
    bool moved;
} member_rec;

/* What a cell keeps of a member: enough to draw it alone while the cell waits for a rebuild, to
 * collect it again (hidden or fading) when it is rebuilt, and its range in its batch's mesh. */
typedef struct member_info {
    rill_entity e;
    rill_mesh mesh;
    rill_material material;
    uint64_t mask;
    float m[16];
    rill_model_mesh mm;
    uint32_t batch;
    uint32_t first_index, index_count, first_edge, edge_count;
    bool on;   /* its range draws (and the walk skips it) */
    bool left; /* changed since it was built: off until its cell is rebuilt */
} member_info;

typedef struct collected {
    member_info info;
    uint64_t material_key;  /* the material's content (model_assets.c) */
    rill_material material; /* the shared material of that content */
    uint32_t owner;         /* the asset holding it */
    uint32_t level;
    uint32_t part; /* the sub-cell of its origin */
    bool has_edges;
} collected;

/* Members [first, first + count) of a batch in one sub-cell, and their bounds (cell space). */
typedef struct part {
    uint32_t first, count;
    float center[3], radius;
} part;

/* One key's mesh in a cell. */
typedef struct batch {
    rill_mesh mesh;
    rill_material material;
    uint32_t owner; /* asset of the material: kept uploaded while the batch draws */
    uint64_t mask;
    uint64_t id;
    uint32_t first_part, part_count;
    RILL_ARRAY(rill_render_range) ranges; /* its on members' ranges, part by part */
    bool ranges_dirty;                    /* a member's range was switched since */
} batch;

typedef struct cell {
    int32_t ix, iy, iz;
    uint32_t gen;
    uint8_t state;
    uint32_t built_frame; /* batches draw from the frame after */
    bool ready;           /* every batch's mesh was uploaded */
    uint32_t seen;        /* members with their range on, skipped by this frame's walk */
    uint32_t on_count;    /* members with their range on */
    uint32_t cands;       /* records standing in it that were candidates when last taken */
    RILL_ARRAY(batch) batches;
    RILL_ARRAY(part) parts;
    RILL_ARRAY(member_info) members; /* built into the batches, batch by batch, part by part */
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
    double ms_per_member;        /* running mean of the build time per member (0: none built yet) */
    RILL_ARRAY(member_rec) recs; /* by entity index */
    RILL_ARRAY(pos_entry) pos;   /* by position in the ModelMesh storage */
    const rill_model_mesh *mm_base; /* that storage this frame */
    uint32_t mm_len;
    rill_component mm_comp, rm_comp;
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
    d.build_ms = size_or(d.build_ms, DEFAULT_BUILD_MS);
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

/* Switches the range of built member rc: on, its batch draws it and the walk skips it; off, the
 * walk takes it again (it draws alone, or not at all when hidden). */
static void set_on(rill__batcher *bt, const member_rec *rc, bool on) {
    cell *c = &bt->cells.data[rc->cell];
    member_info *mi = &c->members.data[rc->member];
    if (mi->on == on) {
        return;
    }
    mi->on = on;
    c->on_count = on ? c->on_count + 1u : c->on_count - 1u;
    c->batches.data[mi->batch].ranges_dirty = true;
    bt->stats.range_switches++;
    pos_entry *p = pos_of(bt, rc);
    if (p) {
        p->bits = on ? p->bits | P_DRAWN : p->bits & ~(uint32_t)P_DRAWN;
    }
}

/* A built member changed (moved, other channels or primitive, a mode of its own): its range is off
 * until its cell is rebuilt (queued now), and it draws alone meanwhile. */
static void leave(rill__batcher *bt, rill_entity e) {
    member_rec *rc = built_rec(bt, e);
    member_info *mi = rc ? &bt->cells.data[rc->cell].members.data[rc->member] : NULL;
    if (mi && !mi->left) {
        set_on(bt, rc, false);
        mi->left = true;
        mark_dirty(bt, rc->cell);
    }
}

static void on_render_mode(rill_world *w, rill_entity e, void *data, void *user) {
    const rill_render_mode_component *rm = data;
    rill__batcher *bt = batcher_of(w, user);
    member_rec *rc = bt ? built_rec(bt, e) : NULL;
    if (!rc || bt->cells.data[rc->cell].members.data[rc->member].left) {
        return;
    }
    if (rm->mode == RILL_RENDER_MODE_NORMAL || rm->mode == RILL_RENDER_MODE_HIDDEN) {
        /* Its LOD level shown whole (on), switched off or crossfading (off: drawn alone). */
        set_on(bt, rc, rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade == 0.0f);
    } else {
        leave(bt, e); /* wireframe or ghost of its own */
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
    bt->rm_comp = ok ? mc.render_mode : (rill_component){0};
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

/* The walk takes every member of c again (none is drawn by a batch). */
static void undraw_all(rill__batcher *bt, const cell *c) {
    for (uint32_t i = 0; i < c->members.len; i++) {
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

static void drop_batches(rill__batcher *bt, cell *c) {
    for (uint32_t i = 0; i < c->batches.len; i++) {
        rill_render_mesh_destroy(bt->r, c->batches.data[i].mesh);
        rill_array_free(&c->batches.data[i].ranges);
    }
    undraw_all(bt, c);
    c->ready = false;
    bt->stats.batches -= c->batches.len;
    bt->stats.batched_entities -= c->members.len;
    c->batches.len = 0;
    c->parts.len = 0;
    c->members.len = 0;
    c->on_count = 0;
    c->gen++; /* records built into the old generation no longer match */
}

static void drop_all(rill__batcher *bt) {
    for (uint32_t i = 0; i < bt->cells.len; i++) {
        cell *c = &bt->cells.data[i];
        drop_batches(bt, c);
        rill_array_free(&c->batches);
        rill_array_free(&c->parts);
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
    out->build_ms = bt->set.build_ms;
    out->cells_waiting = bt->dirty.len;
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

static member_rec *rec_if(rill__batcher *bt, rill_entity e) {
    uint32_t idx = RILL_ENTITY_INDEX(e);
    return idx < bt->recs.len && bt->recs.data[idx].e == e ? &bt->recs.data[idx] : NULL;
}

/* Cell ci, about to be rebuilt, collects the members it holds that the walk will not offer: those
 * whose range is off because their LOD level is switched off or crossfading (not those that left),
 * still alive, in this cell and with that RenderMode. */
static void collect_parked(rill__batcher *bt, cell *c, uint32_t ci) {
    for (uint32_t i = 0; i < c->members.len; i++) {
        const member_info *mi = &c->members.data[i];
        const member_rec *rc = mi->on || mi->left ? NULL : rec_if(bt, mi->e);
        const rill_render_mode_component *rm =
            rc && rc->cell == ci && !rc->moved && rill_world_is_alive(bt->world, mi->e)
                ? rill_world_get(bt->world, mi->e, bt->rm_comp)
                : NULL;
        bool parked = rm && (rm->mode == RILL_RENDER_MODE_HIDDEN ||
                             (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade != 0.0f));
        collected *k = parked ? rill_array_push_n(&c->col, 1) : NULL;
        if (k) {
            memset(k, 0, sizeof(*k));
            k->info = *mi;
        }
    }
}

/* Queued cells start collecting, as many as the time budget allows (at least one a frame): a cell
 * is expected to take the running mean time per member times its members (those it holds, or
 * the candidates standing in it, whichever is more). The others keep drawing their on ranges and
 * wait. */
static void admit_dirty(rill__batcher *bt) {
    double planned = 0.0;
    uint32_t kept = 0, admitted = 0;
    for (uint32_t i = 0; i < bt->dirty.len; i++) {
        uint32_t ci = bt->dirty.data[i];
        cell *c = &bt->cells.data[ci];
        if (c->state != CELL_DIRTY) {
            continue;
        }
        double est = bt->ms_per_member * (double)RILL_MAX(1u, RILL_MAX(c->cands, c->members.len));
        bool fits = bt->ms_per_member > 0.0 && planned + est <= (double)bt->set.build_ms;
        if (admitted == 0 || fits) {
            admitted++;
            planned += est;
            c->col.len = 0;
            collect_parked(bt, c, ci);
            drop_batches(bt, c);
            c->state = CELL_COLLECTING;
        } else {
            bt->dirty.data[kept++] = ci;
        }
    }
    bt->dirty.len = kept;
}

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
        member_rec *rc = rec_if(bt, moved[i]);
        if (!rc) {
            continue; /* not seen yet: a new entity is placed, not animated */
        }
        rc->moved = true; /* not a candidate now */
        rc->moved_frame = bt->frame;
        leave(bt, moved[i]);
    }
    admit_dirty(bt);
    return true;
}

/* Whether a batch draws the member of record rc now. */
static bool drawn(const rill__batcher *bt, const member_rec *rc) {
    const cell *c = &bt->cells.data[rc->cell];
    return rc->gen && rc->gen == c->gen && c->members.data[rc->member].on;
}

/* Position p learns entity e from its record (NULL: none); true when a batch draws e. */
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

/* A record of cell ci became (or stopped being) a candidate. */
static void count_candidate(rill__batcher *bt, uint32_t ci, bool now) {
    cell *c = &bt->cells.data[ci];
    c->cands = now ? c->cands + 1u : c->cands - (c->cands != 0);
}

/* A fresh record for e standing at p; NULL when out of memory. */
static member_rec *new_rec(rill__batcher *bt, rill_entity e, const float p[3]) {
    member_rec *rc = rec_of(bt, e);
    if (!rc) {
        return NULL;
    }
    if (rc->e && rc->sig) {
        count_candidate(bt, rc->cell, false); /* its entity is gone: the slot is reused */
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
        return false; /* built, its range off (left, or crossfading): drawn alone */
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
        if (!rc->sig != !sig) {
            count_candidate(bt, rc->cell, sig != 0);
        }
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
            k->info.mm = *mm;
            k->info.on = true;
        }
    }
    if (p) {
        learn(bt, p, e, rc, pos);
    }
    return false;
}

/* >>building ------------------------------------------------------------------------------------
 */

/* Members sort by key (material, mask, edges), then part, then LOD level (the levels a part shows
 * now are mostly one, so its on members are mostly one run of indices), then entity. */
static int cmp_collected(const void *pa, const void *pb) {
    const collected *a = pa, *b = pb;
    if (a->material_key != b->material_key) {
        return a->material_key < b->material_key ? -1 : 1;
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
    if (a->level != b->level) {
        return a->level < b->level ? -1 : 1;
    }
    return a->info.e < b->info.e ? -1 : a->info.e > b->info.e; /* deterministic */
}

static bool same_key(const collected *a, const collected *b) {
    return a->material_key == b->material_key && a->info.mask == b->info.mask &&
           a->has_edges == b->has_edges;
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

/* Grows box (min xyz, max xyz) by the vertices from `from` on. */
static void grow_box(const rill__batcher *bt, uint32_t from, float box[6]) {
    for (uint32_t i = from; i < bt->vtmp.len; i++) {
        const float *p = bt->vtmp.data[i].position;
        for (int k = 0; k < 3; k++) {
            box[k] = fminf(box[k], p[k]);
            box[3 + k] = fmaxf(box[3 + k], p[k]);
        }
    }
}

static void close_part(part *pt, const float box[6]) {
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        pt->center[k] = 0.5f * (box[k] + box[3 + k]);
        float h = 0.5f * (box[3 + k] - box[k]);
        r2 += h * h;
    }
    pt->radius = sqrtf(r2);
}

/* Appends col[a..b) to the scratch geometry as members of batch bi of c, one part per run of one
 * sub-cell. False when out of memory. */
static bool append_members(rill__batcher *bt, cell *c, uint32_t bi, const collected *col,
                           uint32_t a, uint32_t b, const float origin[3]) {
    float box[6];
    for (uint32_t i = a; i < b; i++) {
        const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &col[i].info.mm);
        member_info mi = col[i].info;
        mi.batch = bi;
        mi.first_index = bt->itmp.len;
        mi.first_edge = bt->etmp.len;
        mi.left = false;
        uint32_t v0 = bt->vtmp.len;
        if (!p || !append_member(bt, &col[i], p, origin)) {
            return false;
        }
        mi.index_count = bt->itmp.len - mi.first_index;
        mi.edge_count = bt->etmp.len - mi.first_edge;
        if (i == a || col[i].part != col[i - 1].part) {
            part *pt = rill_array_push_n(&c->parts, 1);
            if (!pt) {
                return false;
            }
            pt->first = c->members.len;
            pt->count = 0;
            box[0] = box[1] = box[2] = INFINITY;
            box[3] = box[4] = box[5] = -INFINITY;
        }
        grow_box(bt, v0, box);
        part *pt = &c->parts.data[c->parts.len - 1u];
        pt->count++;
        close_part(pt, box);
        if (!rill_array_push(&c->members, mi)) {
            return false;
        }
    }
    return true;
}

/* The members of c from `first` on are built into the current generation: records, walk cache. */
static void settle_members(rill__batcher *bt, cell *c, uint32_t first) {
    for (uint32_t i = first; i < c->members.len; i++) {
        member_info *mi = &c->members.data[i];
        member_rec *rc = rec_of(bt, mi->e);
        if (!rc || rc->e != mi->e) {
            mi->on = false; /* no record: it would never be skipped */
            continue;
        }
        rc->gen = c->gen;
        rc->member = i;
        c->on_count += mi->on;
        pos_entry *p = pos_of(bt, rc);
        if (p) {
            p->bits = P_NOTE | (mi->on ? P_DRAWN : 0u);
            p->cell = rc->cell;
        }
    }
}

/* Makes one batch of col[a..b) (same key); false when it could not (members stay instances). */
static bool make_batch(rill__batcher *bt, cell *c, const collected *col, uint32_t a, uint32_t b,
                       const float origin[3]) {
    bt->vtmp.len = 0;
    bt->itmp.len = 0;
    bt->etmp.len = 0;
    uint32_t parts0 = c->parts.len, members0 = c->members.len;
    bool ok = append_members(bt, c, c->batches.len, col, a, b, origin) && bt->itmp.len;
    rill_mesh mesh = {0};
    rill_error err = {0};
    if (ok) {
        char label[64];
        snprintf(label, sizeof(label), "batch %d,%d,%d", c->ix, c->iy, c->iz);
        rill_mesh_desc md = {.vertices = bt->vtmp.data,
                             .vertex_count = bt->vtmp.len,
                             .indices = bt->itmp.data,
                             .index_count = bt->itmp.len,
                             .label = label,
                             .edge_indices = bt->etmp.len ? bt->etmp.data : NULL,
                             .edge_index_count = bt->etmp.len};
        mesh = rill__mesh_create_merged(bt->r, &md, &err);
        if (!mesh.id) {
            RILL_LOG_WARN("render", "static batching: cell %d,%d,%d: %s (drawn unbatched)", c->ix,
                          c->iy, c->iz, err.msg);
        }
    }
    batch bb = {.mesh = mesh,
                .material = col[a].material,
                .owner = col[a].owner,
                .mask = col[a].info.mask,
                .id = BATCH_ID_BIT | bt->next_id++,
                .first_part = parts0,
                .part_count = c->parts.len - parts0,
                .ranges_dirty = true};
    if (!mesh.id || !rill_array_push(&c->batches, bb)) {
        rill_render_mesh_destroy(bt->r, mesh);
        c->parts.len = parts0; /* its members stay instances */
        c->members.len = members0;
        return false;
    }
    settle_members(bt, c, members0);
    bt->stats.batches++;
    bt->stats.batched_entities += b - a;
    return true;
}

static uint32_t prim_vertices(rill__batcher *bt, const collected *k) {
    const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &k->info.mm);
    return p ? p->vertex_count : 0u;
}

/* Fills in what the build needs of each collected member; drops those whose primitive is gone
 * (an unloaded asset). Returns how many are left. */
static uint32_t prepare_collected(rill__batcher *bt, collected *col, uint32_t n,
                                  const float origin[3]) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        collected k = col[i];
        const rill_gltf_primitive *p = rill__render_assets_primitive(bt->ra, &k.info.mm);
        if (!p) {
            continue;
        }
        k.level = rill__render_assets_level(bt->ra, k.info.mm.asset);
        k.has_edges = p->edge_index_count != 0;
        k.part = part_of(&bt->set, k.info.m, origin);
        if (!rill__render_assets_material_of(bt->ra, &k.info.mm, &k.material_key, &k.material,
                                             &k.owner)) {
            k.material_key = k.info.material.id; /* its own material, alone */
            k.material = k.info.material;
            k.owner = k.info.mm.asset;
        }
        col[kept++] = k;
    }
    return kept;
}

/* A cell of n members was built in ms. The mean per member learns slowly and takes an outlier (a
 * new shared block allocated, the machine busy) as at most four times the mean. */
static void count_build(rill__batcher *bt, uint32_t n, double ms) {
    double per = ms / (double)RILL_MAX(n, 1u), was = bt->ms_per_member;
    bt->ms_per_member = was > 0.0 ? 0.875 * was + 0.125 * RILL_MIN(per, 4.0 * was) : per;
    bt->stats.cells_built++;
    bt->stats.cells_built_last_frame++;
    bt->stats.build_ms_last_frame += ms;
    bt->stats.build_ms_total += ms;
    bt->stats.build_ms_max_cell = RILL_MAX(bt->stats.build_ms_max_cell, ms);
}

static void build_cell(rill__batcher *bt, cell *c) {
    uint64_t t0 = rill_time_ns();
    float s = bt->set.cell_size;
    float origin[3] = {(float)c->ix * s, (float)c->iy * s, (float)c->iz * s};
    collected *col = c->col.data;
    uint32_t n = prepare_collected(bt, col, c->col.len, origin);
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
    c->built_frame = bt->frame;
    count_build(bt, n, (double)(rill_time_ns() - t0) * 1e-6);
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
    if (c->built_frame == bt->frame || c->seen != c->on_count) {
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

/* Batch b's ranges again: per part, one range per run of members whose range is on. */
static bool batch_ranges(cell *c, batch *b) {
    b->ranges.len = 0;
    for (uint32_t k = 0; k < b->part_count; k++) {
        const part *pt = &c->parts.data[b->first_part + k];
        for (uint32_t i = pt->first; i < pt->first + pt->count;) {
            const member_info *mi = &c->members.data[i];
            if (!mi->on) {
                i++;
                continue;
            }
            rill_render_range rg = {mi->first_index, 0, mi->first_edge, 0, {0}, pt->radius};
            memcpy(rg.center, pt->center, sizeof(rg.center));
            for (; i < pt->first + pt->count && c->members.data[i].on; i++) {
                rg.index_count += c->members.data[i].index_count;
                rg.edge_count += c->members.data[i].edge_count;
            }
            if (!rill_array_push(&b->ranges, rg)) {
                return false;
            }
        }
    }
    b->ranges_dirty = false;
    return true;
}

/* Appends a ready cell's batches (one instance each, at the cell's origin, with its on ranges). */
static bool push_batches(rill__batcher *bt, cell *c, const rill_channel_modes *modes,
                         rill_render_extract_buf *buf) {
    float s = bt->set.cell_size;
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    m[12] = (float)c->ix * s;
    m[13] = (float)c->iy * s;
    m[14] = (float)c->iz * s;
    for (uint32_t i = 0; i < c->batches.len; i++) {
        batch *b = &c->batches.data[i];
        if (b->ranges_dirty && !batch_ranges(c, b)) {
            return false;
        }
        if (!b->ranges.len) {
            continue; /* every member off */
        }
        rill__render_assets_touch(bt->ra, b->owner);
        uint32_t first = buf->ranges.len;
        rill_render_range *rg = rill_array_push_n(&buf->ranges, b->ranges.len);
        if (!rg || !push(buf, b->id, b->mesh, b->material, m, b->mask, modes)) {
            return false;
        }
        memcpy(rg, b->ranges.data, b->ranges.len * sizeof(*rg));
        rill_render_instance *in = &buf->instances.data[buf->instances.len - 1u];
        in->range_first = first;
        in->range_count = b->ranges.len;
    }
    return true;
}

/* A cell that cannot draw its batches this frame (uploading, or a member is gone): the members
 * whose range is on (the walk skipped them) draw alone, as recorded at build time. */
static bool push_members(rill__batcher *bt, const cell *c, const rill_channel_modes *modes,
                         rill_render_extract_buf *buf) {
    for (uint32_t i = 0; i < c->members.len; i++) {
        const member_info *mi = &c->members.data[i];
        if (mi->on && rill_world_is_alive(bt->world, mi->e) &&
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
            ok = push_batches(bt, c, modes, buf);
        } else if (c->members.len) {
            ok = push_members(bt, c, modes, buf);
            if (c->seen != c->on_count) {
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
