/* batch_internal.h: static batching, the batcher's state shared by its files (batch.c: lifecycle
 * and per-frame start; batch_observe.c: world observers; batch_records.c: records and cells;
 * batch_walk.c: skip/take; batch_build.c: cell builds step by step, their geometry merged by
 * batch_merge.c; batch_check.c: a collected member read again before its step; batch_draw.c:
 * rill__batch_end).
 *
 * Static batching. Static ModelMesh geometry is merged per key (spatial cell, material,
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
 * asks rill__batch_skip first (an index and two compares; the walk's chunks run it at the same time
 * and extract counts the skipped per cell, rill__batch_seen). What changes a member reaches
 * the batcher without looking at it each frame:
 *   - its RenderMode (LOD level shown, hidden, crossfading; a mode of its own): a world add
 *     observer flips its range, or makes it leave for a mode of its own;
 *   - its transform (this frame's changed-transform list), SceneChannels or ModelMesh (observers):
 *     it leaves: its range is off for good, it draws alone, its cell is queued for a rebuild;
 *   - its despawn: its cell counts fewer drawn members than it has on at the end of the walk (the
 *     cell's members then draw alone from what was recorded at build time, and it is queued).
 * Per frame:
 *   begin: moved members leave; queued cells, within the time budget (build_ms, estimated from
 *          the mean time per member built, less what the cells being built still need; one when
 *          none is being built), drop their batches and start collecting (their hidden and fading
 *          members come from what the cell recorded, the others from the walk);
 *   take:  an entity that is not a built member: a candidate in a collecting cell is collected;
 *          one that became a candidate queues its cell (the walk's chunks note the entities
 *          rill__batch_wants_take names; extract's merge takes them in walk order, one thread);
 *   end:   collected cells are sorted once and start building (CELL_BUILDING); the cells being
 *          built, oldest first, make batch meshes one step at a time (groups of one key, cut at
 *          mesh_vertices, each member's vertices, indices and edges moved into cell space over
 *          extract's jobs, batch_merge.h) until the frame's build time passes build_ms, at least
 *          one mesh a frame; the others append one instance per batch with its on ranges.
 * A build spans frames, so what was collected can change before it is merged: right before a
 * group is merged each member is read again (batch_check.c: alive, same ModelMesh, channels and
 * matrix, not moved, its RenderMode saying whether its range starts on or parked), a changed one is
 * left out (it draws alone through the walk, as any non-member) and the cell is built again once
 * this build completes (`redo`, also set when a member settled in an earlier step leaves or is
 * despawned meanwhile). A member settled in a step is drawn from the cell's record (push_members)
 * and skipped by the walk from the next frame on, until the cell is complete and its batches are
 * uploaded; the cell's batches draw from the frame after its last step.
 * So the picture never depends on rebuild latency, and a channel's render mode (resolved per batch
 * from its mask at extract) changes nothing here. */
#ifndef RILL_RENDER_BATCH_INTERNAL_H
#define RILL_RENDER_BATCH_INTERNAL_H

#include "batch.h"
#include "batch_merge.h"

/* CLEAN -> DIRTY (queued) -> COLLECTING (one extract's walk) -> BUILDING (steps, over frames) ->
 * CLEAN. */
enum { CELL_CLEAN, CELL_DIRTY, CELL_COLLECTING, CELL_BUILDING };

#define REC_PAGE_BITS 10u
#define REC_PAGE (1u << REC_PAGE_BITS)

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
    const rill_gltf_primitive *prim; /* looked up when the build starts */
    uint64_t material_key;           /* the material's content (model_assets.c) */
    rill_material material;          /* the shared material of that content */
    uint32_t owner;                  /* the asset holding it */
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
    uint32_t built_to;    /* BUILDING: col[0, built_to) went through a step */
    bool redo;            /* BUILDING: changed meanwhile, queued again once the build completes */
    double build_ms;      /* BUILDING: its steps' time so far */
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
    double ms_per_member; /* running mean of the build time per member (0: none built yet) */
    /* Records by entity index, in pages of REC_PAGE made when one of theirs is first written: the
     * indices of a streaming world reach far past its resident entities, and one array sized by
     * the highest index cleared tens of MB in one frame when it doubled. */
    member_rec **rec_pages;
    uint32_t rec_page_count;
    uint32_t new_recs;      /* records made by this extract's takes */
    uint32_t deferred;      /* first-time candidates this extract left for later (new_per_frame) */
    uint32_t deferred_prev; /* ... and the extract before */
    RILL_ARRAY(pos_entry) pos;      /* by position in the ModelMesh storage */
    const rill_model_mesh *mm_base; /* that storage this frame */
    uint32_t mm_len;
    rill_component mm_comp, rm_comp, sc_comp;
    rill_world *world; /* of the frame being extracted */
    RILL_ARRAY(cell) cells;
    rill_map cell_of; /* packed cell coordinates -> index + 1 */
    RILL_ARRAY(uint32_t) dirty;
    RILL_ARRAY(uint32_t) building; /* BUILDING cells, oldest first */
    rill__merge merge;             /* a cell build's geometry (batch_merge.h) */
    rill_render_batching_stats stats;
};

/* batch_observe.c */
/* Queues cell ci for a rebuild (when it is not queued or collecting already; a cell being built
 * is queued again once its build completes). */
void rill__batch_mark_dirty(rill__batcher *bt, uint32_t ci);
/* The walk's cache entry of a record's entity, or NULL when it is not (or no longer) there. */
pos_entry *rill__batch_pos_of(rill__batcher *bt, const member_rec *rc);
/* A built member changed: its range is off until its cell is rebuilt (queued now). */
void rill__batch_leave(rill__batcher *bt, rill_entity e);
/* Installs the world observers once: true when they are in place. */
bool rill__batch_observe(rill__batcher *bt, rill_world *world);

/* batch_records.c */
/* The record slot of e (grown when needed, possibly another entity's); NULL when out of memory. */
member_rec *rill__batch_rec_of(rill__batcher *bt, rill_entity e);
/* The record of e when it has one, else NULL (reads only: the walk's chunks call it too). */
member_rec *rill__batch_rec_if(const rill__batcher *bt, rill_entity e);
/* Frees every record page. */
void rill__batch_free_recs(rill__batcher *bt);
/* The cell holding world position p (created when new); UINT32_MAX when out of memory. */
uint32_t rill__batch_cell_at(rill__batcher *bt, const float p[3]);
/* A record of cell ci became (or stopped being) a candidate. */
void rill__batch_count_candidate(rill__batcher *bt, uint32_t ci, bool now);
/* A fresh record for e standing at p; NULL when out of memory. */
member_rec *rill__batch_new_rec(rill__batcher *bt, rill_entity e, const float p[3]);

/* batch_build.c */
/* Collecting cell ci starts building: what it collected is prepared and sorted (BUILDING).
 * Returns the time it took (ms), part of this extract's build time. */
double rill__batch_start_build(rill__batcher *bt, uint32_t ci);
/* The cells being built make meshes, oldest first, one step at a time, until this extract's build
 * time (spent_ms so far) passes build_ms, at least one mesh; a cell whose last step is done is
 * clean. Members' geometry is moved into cell space over jobs (NULL: on this thread; the same
 * bytes either way). */
void rill__batch_build_some(rill__batcher *bt, rill_jobs *jobs, double spent_ms);

/* batch_check.c */
/* Collected member k of building cell ci read again right before its step: true when it is as it
 * was collected (alive, in ci, not moved, same ModelMesh, channels and matrix, a NORMAL or hidden
 * RenderMode), with its primitive looked up again and its range on or parked by its RenderMode
 * now. False: it is left out of the build and the cell is noted to be built again. */
bool rill__batch_check(rill__batcher *bt, uint32_t ci, collected *k);

#endif
