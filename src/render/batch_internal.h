/* batch_internal.h: static batching, the batcher's state shared by its files (batch.c: lifecycle
 * and per-frame start; batch_observe.c: world observers; batch_records.c: records and cells;
 * batch_walk.c: skip/take; batch_hidden.c: hidden LOD levels; batch_build.c: cell builds across
 * frames; batch_install.c: a built cell replaces its batches; batch_draw.c: rill__batch_end).
 *
 * Static batching. Static ModelMesh geometry is merged per key (spatial cell, material,
 * channel mask): one mesh per key and cell in a shared block, drawn as one instance at the cell's
 * origin whose ranges (rill_render_range) are its members. Every member is a range of indices;
 * members are ordered by part (a finer grid, part_size), then LOD level, so the members of a part
 * that draw now make few ranges, each culled on its part's bounds by the renderer and drawn with
 * one indirect command (touching ranges join). No mesh lookup per part, one instance per key.
 *
 * A cell's batch holds every LOD level of its members: a member's range is on while the member
 * draws as a plain NORMAL entity, off while its level is switched off (hidden) or crossfading (it
 * then draws alone, dithered, as an instance). A LOD switch flips bits, it rebuilds nothing. The
 * levels switched off before their cell was built are noted from their RenderMode (hidden) and
 * collected by the build, so the first showing of a level rebuilds nothing either.
 *
 * Who is batched: an entity whose own RenderMode is absent or NORMAL (or hidden: a parked level),
 * whose channels lack PRESERVE_IDENTITY, whose material is not blended, and which has not moved
 * for `static_frames` frames (moving = animated). Without multi-draw indirect a group of one stays
 * an instance.
 *
 * Cells are the unit of rebuild. Each entity keeps a record (by entity index): its cell, its member
 * index, a signature of what its batch depends on (mesh, material, channel mask) and the cell
 * generation it was built into. A member whose range is on is out of the per-frame work: extract
 * asks rill__batch_skip first (an index and two compares; the walk's chunks run it at the same time
 * and extract counts the skipped per cell, rill__batch_seen). What changes a member reaches
 * the batcher without looking at it each frame:
 *   - its RenderMode (LOD level shown, hidden, crossfading; a mode of its own): a world add
 *     observer flips its range, or makes it leave for a mode of its own;
 *   - its transform (this frame's changed-transform list), SceneChannels or ModelMesh (add and
 *     remove observers, so its despawn too): it leaves: its range is off for good, it draws alone
 *     (or not at all), its cell is queued for a rebuild;
 *   - a despawn the observers missed: its cell counts fewer drawn members than it has on at the
 *     end of the walk (the cell's members then draw alone from what was recorded at build time).
 * Per frame:
 *   begin: moved members leave; hidden entities noted; built cells whose meshes are uploaded are
 *          installed (their new batches replace the old ones); queued cells, while the builds
 *          planned fit two frames of the budget, start collecting: the members they hold that did
 *          not leave (on, hidden or fading) and their noted hidden levels from what was recorded,
 *          the others (new candidates, members that left) from the walk;
 *   take:  an entity that no batch draws: a candidate in a collecting cell is collected; one that
 *          became a candidate queues its cell (the walk's chunks note the entities
 *          rill__batch_wants_take names; extract's merge takes them in walk order, one thread);
 *   end:   collecting cells are sorted and queued for building; every cell draws what it drew
 *          (its old batches with their on ranges); then the queued builds go on, member by member,
 *          within build_ms of this frame, the rest in the next frames.
 * A cell's old batches draw until its new ones are installed, so the picture never depends on
 * rebuild latency, no entity is drawn twice or not at all, and a channel's render mode (resolved
 * per batch from its mask at extract) changes nothing here. */
#ifndef RILL_RENDER_BATCH_INTERNAL_H
#define RILL_RENDER_BATCH_INTERNAL_H

#include "batch.h"

/* A cell's state: clean; queued (in bt->dirty); collecting its members during this frame's walk;
 * building them into `next` over as many frames as the time budget takes (in bt->building); built
 * and waiting for the uploads of `next` (in bt->built), after which `next` replaces its batches.
 * Until then its old batches keep drawing. */
enum { CELL_CLEAN, CELL_DIRTY, CELL_COLLECTING, CELL_BUILDING, CELL_BUILT };

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
    uint32_t touched;     /* the frame it last moved or changed channels or primitive (0: never) */
    bool moved;
    bool listed; /* in its cell's list of hidden levels */
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

typedef RILL_ARRAY(batch) batch_list;
typedef RILL_ARRAY(part) part_list;
typedef RILL_ARRAY(member_info) member_list;

/* A cell's geometry: its batches, their parts and members (batch by batch, part by part). */
typedef struct cell_geo {
    batch_list batches;
    part_list parts;
    member_list members;
} cell_geo;

/* Where the build of a cell stands (between frames): the next collected member, the chunk of one
 * key being merged (col[chunk_first, chunk_end): one mesh), the part being grown and its box. */
typedef struct build_at {
    uint32_t next;
    uint32_t run_end; /* end of the key run the chunk is cut from */
    uint32_t chunk_first, chunk_end;
    uint32_t parts0, members0; /* next's parts and members when the chunk opened */
    uint32_t part;             /* the sub-cell of the open part */
    float box[6];
    bool chunk_open, chunk_failed;
    uint32_t collected; /* members collected (set when the build is done) */
    double ms;          /* build time so far */
} build_at;

typedef struct cell {
    int32_t ix, iy, iz;
    uint32_t gen;
    uint8_t state;
    bool again;             /* changed while building: queued again once built */
    bool ready;             /* every batch's mesh was uploaded */
    uint32_t collect_frame; /* the frame its build collected its members */
    uint32_t seen;          /* members with their range on, skipped by this frame's walk */
    uint32_t on_count;      /* members with their range on */
    uint32_t cands;         /* records standing in it that were candidates when last taken */
    batch_list batches;
    part_list parts;
    member_list members; /* built into the batches, batch by batch, part by part */
    RILL_ARRAY(collected) col;
    RILL_ARRAY(rill_entity) hidden; /* hidden LOD levels standing in it, not built yet */
    cell_geo next;                  /* what its build makes */
    build_at at;
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
    rill_component mm_comp, rm_comp, sc_comp, gt_comp;
    rill_world *world; /* of the frame being extracted */
    RILL_ARRAY(cell) cells;
    rill_map cell_of; /* packed cell coordinates -> index + 1 */
    RILL_ARRAY(uint32_t) dirty;
    RILL_ARRAY(uint32_t) building; /* cells building, first come first built, from build_head */
    uint32_t build_head;
    RILL_ARRAY(uint32_t) built;           /* cells built, waiting for their uploads */
    RILL_ARRAY(rill_entity) hidden_queue; /* entities hidden since the last begin */
    bool scan_hidden; /* the hidden entities are queued at the next begin (observers were off) */
    RILL_ARRAY(rill_vertex) vtmp; /* the chunk being built (the front building cell's) */
    RILL_ARRAY(uint32_t) itmp;
    RILL_ARRAY(uint32_t) etmp; /* edge indices */
    rill_render_batching_stats stats;
};

/* batch_observe.c */
/* Queues cell ci for a rebuild (when it is not queued or collecting already). */
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
/* The record of e when it has one, else NULL. */
member_rec *rill__batch_rec_if(rill__batcher *bt, rill_entity e);
/* The cell holding world position p (created when new); UINT32_MAX when out of memory. */
uint32_t rill__batch_cell_at(rill__batcher *bt, const float p[3]);
/* A record of cell ci became (or stopped being) a candidate. */
void rill__batch_count_candidate(rill__batcher *bt, uint32_t ci, bool now);
/* A fresh record for e standing at p; NULL when out of memory. */
member_rec *rill__batch_new_rec(rill__batcher *bt, rill_entity e, const float p[3]);

/* The signature of what a candidate's batch depends on (never 0). */
uint32_t rill__batch_signature(rill_mesh mesh, rill_material mat, uint64_t mask);

/* batch_build.c */
/* Cell ci collected its members this frame: they are prepared and sorted, and it is queued for
 * building. */
void rill__batch_start_build(rill__batcher *bt, uint32_t ci);
/* Builds the queued cells in order within the time budget (at least one member a frame). */
void rill__batch_build(rill__batcher *bt);

/* batch_install.c */
/* Drops c's batches (its members are taken by the walk again). */
void rill__batch_drop_batches(rill__batcher *bt, cell *c);
/* Drops what c's build made so far. */
void rill__batch_drop_next(rill__batcher *bt, cell *c);
/* Built cells whose meshes are uploaded replace their batches with the new ones (before the walk,
 * so the walk skips the new members and the new batches draw this frame). */
void rill__batch_install(rill__batcher *bt);

/* batch_hidden.c */
/* e's RenderMode was set to hidden (an observer): looked at by the next begin. */
void rill__batch_hidden_seen(rill__batcher *bt, rill_entity e);
/* Begin: the hidden entities seen since the last one that could be batched get a record, stand
 * in their cell's list and queue it (so its build holds every LOD level of its models). */
void rill__batch_note_hidden(rill__batcher *bt);
/* Admission: cell ci collects the listed entities still hidden (the walk does not offer them). */
void rill__batch_collect_hidden(rill__batcher *bt, cell *c, uint32_t ci);

#endif
