/* gpu_cull.c: GPU-driven culling and drawing (RILL_RENDER_DEBUG_GPU_CULL). Plain instances -- an
 * id, drawn normally (not hidden or wireframe; a ghost where the view has no mixed passthrough,
 * which draws it as normal), a whole mesh (no ranges), an opaque or
 * alpha-masked material; LOD crossfading and mirrored ones included -- live in an instance table
 * resident on the GPU, one slot per instance id; every other instance keeps the CPU path
 * (frame_cull.c), which skips the ones taken here. Each frame:
 *
 *   scan    (CPU, over the renderer's jobs) each snapshot instance is matched to its slot (the
 *           slot its position had last frame, else the id map, both read in the jobs: an
 *           instance added or removed shifts every later position, so the map is the usual
 *           answer while LOD levels switch and cells stream) and its matrix and bounds hashed:
 *           only what changed becomes a delta (spawned, moved, settled: the frame after a move,
 *           its previous matrix catches up; despawned: not in the snapshot any more).
 *   groups  slots share a draw group per (mesh, material, cuts, mirrored): "cuts" for a masked
 *           material or a LOD crossfade (the prepass and shadows draw those with the discarding
 *           shaders), mirrored for the clockwise front face; the live groups are ordered by those,
 *           double-sidedness, material and buffers, so a run of them is one multi-draw indirect.
 *   record  one compute shader (shaders/gpu_cull.comp) applies the deltas, writes each list's
 *           indirect commands (list 0: the view; 1..4: the shadow cascades) with no instances,
 *           then tests every resident sphere against each list's planes and appends the
 *           survivors' instance data to their group's range, counting them in the command.
 *   draw    the prepass, opaque and shadow passes draw the runs with vkCmdDrawIndexedIndirect:
 *           the CPU records one call per run, whatever the instance count.
 *   occlude (gpu_occlusion.c) with occlusion, the view's list holds only the instances visible
 *           last frame (phase 1); the prepass then builds a depth pyramid, tests the others
 *           against it and draws the ones not hidden (phase 2, a list of its own after the
 *           cascades'), and every result is the next frame's visibility.
 *
 * Every view of a frame (split-screen cameras, render-texture cameras, a probe's capture faces)
 * takes this path: the scan, the groups and the deltas are the frame's, done once (with its
 * first view); each view then culls the one table with its own frustum and cascades into lists,
 * commands, counts and flags of its own (gc_view: the flags hold its occlusion history), so its
 * passes draw only what it sees. */
#include "frame.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define GC_LISTS 5u       /* the view and up to four cascades */
#define GC_LISTS_ALL 6u   /* and the view's phase-2 list (occlusion) */
#define COUNT_OCCLUDED 8u /* the counts' entry of the instances occlusion culled */
#define GC_SLICE 4096u    /* snapshot positions per scan job */
#define GC_NONE UINT32_MAX
#define COUNT_STRIDE 256u /* bytes per frame slot of the counts (storage offset alignment) */
/* Frames a view slot keeps its buffers and depth pyramid without culling (a split screen closed,
 * a probe's capture done): then they are given back. */
#define GC_VIEW_IDLE 8u
/* New instances the table takes per frame: a time budget. A spawn is serial (a map insert, a
 * group, a delta of 96 bytes to upload): the boot frame of a city of 36 k instances cost 17 ms of
 * cull on the H200 with them all at once. A frame takes GC_BOARD_MIN new ids, then more while its
 * spawns have cost less than GC_BOARD_MS (the clock read every GC_BOARD_STEP spawns): a fast CPU
 * boards a large world in fewer frames, a slow or loaded one spreads it without a hitch, and the
 * floor bounds the frames a boot takes whatever the clock says. Ids past it draw on the CPU path
 * that frame (no pop-in) and are taken in a later one, as the CPU path's motion history does. */
#define GC_BOARD_MIN 2048u
#define GC_BOARD_MS 0.5
#define GC_BOARD_STEP 256u

/* Must match `Delta` in gpu_cull.glsl (std430). */
typedef struct gc_delta {
    float model[16];
    float sphere[4];
    uint32_t meta[4]; /* slot, group, op, the LOD fade's bits */
} gc_delta;

enum { OP_SPAWN = 0, OP_MOVE = 1, OP_SETTLE = 2, OP_DESPAWN = 3 };

/* Must match `Group` in gpu_cull.glsl. */
typedef struct gc_group_gpu {
    uint32_t index_count, first_index;
    int32_t vertex_offset;
    uint32_t base, cmd, pad[3];
} gc_group_gpu;

/* Must match `Params` in gpu_cull.glsl. */
typedef struct gc_params {
    float planes[GC_LISTS][6][4];
    uint32_t info[4];  /* lists, commands per list, output entries per list, groups */
    uint32_t info2[4]; /* runs of the three kinds, -, lists laid out, occlusion bits */
} gc_params;

/* Must match `CmdRun` in gpu_cull.glsl: per kind of run (casters, shapes, materials), the draw
 * count slot of the command's run and the run's first command. */
typedef struct gc_cmd_run {
    uint32_t slot[4], first[4];
} gc_cmd_run;

/* One resident instance (CPU side): what the scan compares against. The frames it was last seen
 * and last moved live in arrays of their own (rill__gpu_cull seen, moved), so a frame where
 * nothing changed reads the slots without writing them (32 MB of slots at 1 M instances). */
typedef struct gc_slot {
    uint64_t id, hash; /* id 0: free */
    uint32_t mesh, mat, group;
    uint32_t kind; /* GROUP_CUTS | GROUP_MIRRORED */
} gc_slot;

/* What besides mesh and material keeps instances in separate groups. */
enum { GROUP_CUTS = 1u, GROUP_MIRRORED = 2u };

/* A draw group: the resident instances of one mesh with one material and kind. */
typedef struct gc_group {
    rill_mesh mesh;
    rill_material mat;
    uint32_t kind;
    uint32_t count;     /* resident instances, 0: free */
    uint32_t cmd, base; /* this frame's command and first output entry (within a list) */
    rill__gc_geom geom; /* this frame's buffers and place in them (gpu_cull_arena.c) */
} gc_group;

typedef RILL_ARRAY(rill__gpu_cull_run) gc_runs;

/* What a snapshot position became in the scan: on the CPU path; its guessed slot, unchanged or
 * moved; a slot found through the id map (settled by the serial pass: another position may hold
 * the same id); left to the serial pass (new id, or a new mesh, material or kind). */
enum { ST_CPU = 0, ST_SAME, ST_MOVED, ST_FOUND, ST_SERIAL };
/* Or'ed into ST_SAME: the position's instance was matched by its guess and its mesh's bounds are
 * fixed (not a skin or morph target): unchanged next frame (rill_render_snapshot.instance_changed),
 * the position is passed without reading it. */
#define ST_STABLE 0x40u

typedef struct gc_slice {
    uint32_t moved, found, serial, seen;
    uint32_t quiet;  /* passed unread (rill_render_snapshot.instance_changed) */
    uint32_t todo;   /* positions for the serial pass (moved or unresolved), listed in todo */
    uint32_t mapped; /* positions looked up in the id map */
    uint32_t at;     /* where its moves' deltas start (moves_slice) */
} gc_slice;

/* One view of the frame (a view slot: a camera, a render texture's camera, a probe's face): what
 * its cull writes and its passes read, and what it keeps between frames (its flags: the
 * occlusion history). The resident table, the groups and the runs are shared by every view. */
typedef struct gc_view {
    rill__buf *out, *cmds, *flags;
    /* With drawIndirectCount: per kind of run and list the commands compacted to the front of
     * their run, and per list each run's draw count. */
    rill__buf *compact, *draw_counts;
    uint64_t out_entries, cmd_count, flag_slots, compact_cmds, draw_count_slots;
    uint32_t lists;  /* the view and its cascades */
    uint32_t culled; /* the frame (rill__gpu_cull frame) it last culled; 0: never */
    uint64_t key;    /* the view it belongs to (view_key) */
    bool compacted;  /* this frame's draws read compact */
    bool counted[4]; /* per frame slot: its counts are this view's */
    /* Occlusion (gpu_occlusion.c): this frame's phase-2 list (0: the view does not occlude),
     * the lists laid out (lists, and the phase-2 list), whether last frame's results were
     * forgotten; the cull's bindings, bound again by the occlusion pass. */
    uint32_t counted_late[4]; /* per frame slot: its phase-2 list (0: it did not occlude) */
    rill__gc_occl *occl;
    uint32_t late, nlists;
    bool occl_reset;
    rill__binding cull_set[11];
} gc_view;

struct rill__gpu_cull {
    RILL_ARRAY(gc_slot) slots;
    RILL_ARRAY(uint32_t) seen, moved; /* per slot: the frame last in the snapshot, last moved */
    RILL_ARRAY(uint32_t) free_slots;
    rill_map by_id;
    uint32_t live;
    RILL_ARRAY(uint32_t) moved_last, moved_now;
    RILL_ARRAY(uint32_t) pos_slot; /* snapshot position -> slot, last frame's guess */
    RILL_ARRAY(uint32_t) slot_pos; /* slot -> its position last frame (GC_NONE: unknown) */
    RILL_ARRAY(uint8_t) state;     /* snapshot position -> ST_* (non-zero: taken here) */
    RILL_ARRAY(uint64_t) hash_of;  /* snapshot position -> its hash (ST_FOUND only) */
    RILL_ARRAY(gc_slice) slices;
    /* Per slice (from its first position on): the positions the serial pass visits. */
    RILL_ARRAY(uint32_t) todo;
    /* Per chunk of GC_SLICE slots (from its first slot on): the slots not seen this frame. */
    RILL_ARRAY(uint32_t) unseen;
    RILL_ARRAY(uint32_t) unseen_count;
    RILL_ARRAY(gc_group) groups;
    RILL_ARRAY(uint32_t) free_groups;
    rill_map group_by_key[4];   /* by kind */
    RILL_ARRAY(uint32_t) order; /* live groups in draw order */
    gc_runs runs_mat, runs_shape, runs_geo;
    rill__gc_arena *arena; /* the shared geometry the groups draw from */
    RILL_ARRAY(gc_delta) deltas;
    uint32_t frame, ncmds, total;
    bool active, readback, warned;
    /* GPU buffers (device-local): the resident table, shared by the views. */
    rill__buf *res;
    /* Host-visible: per frame slot and view (COUNT_STRIDE bytes apart) the visible count of
     * each list, read when the slot comes around again (its frame has finished then). */
    rill__buf *counts;
    uint64_t res_slots;
    uint32_t deltas_last, resolved, spawned; /* for stats */
    double scan_ms;                          /* for stats */
    uint32_t quiet, mapped;                  /* for stats */
    /* Boarding (GC_BOARD_*; tests may set them): new ids a frame takes whatever the clock says,
     * the budget of the rest (ms), and this frame's start of boarding (0: not yet). */
    uint32_t board_min;
    double board_ms;
    uint64_t board_t0;
    bool board_full;
    bool board_all; /* every new id, no budget (rill__gpu_cull_board_all) */
    /* What the last scan saw (rill_render_snapshot.instance_changed is trusted when the same):
     * the renderer's frame counter, assets destroyed, and whether ghosts drew as normal; and the
     * snapshot's instance_epoch (0: none), which an epoch-carrying snapshot's marks must have
     * been compared with. */
    uint64_t scanned_frame, scanned_epoch;
    uint32_t scanned_destroyed;
    bool scanned_ghosts;
    /* Per slot: the first position (frame << 32 | position) that found it through the id map
     * this frame, claimed by the scan's jobs (see settle_slice). */
    _Atomic uint64_t *claim;
    uint32_t claim_cap;
    /* The slots when this frame's scan began, and whether the resident buffer held the table as
     * it was then (the last scan was recorded): what a new resident buffer starts from. */
    uint32_t slots_before;
    bool buf_current;
    uint32_t recorded; /* the frame whose deltas the resident buffer has seen */
    /* This frame's shared inputs (recorded by the first view to cull, in the frame's scratch):
     * the deltas, the group table and the command runs; whether the resident buffer is new. */
    rill__binding deltas_set, groups_set, runs_set;
    bool res_fresh;
    uint32_t views_culled; /* views culled this frame (stats) */
    /* View slots, found per frame by the view's key, so a camera keeps its slot (its occlusion
     * history) when the frame's view order shifts (a render texture's camera becoming ready, a
     * probe's capture faces drawn first); slot_of: this frame's view index -> slot (GC_NONE). */
    gc_view views[RILL_RENDER_MAX_VIEWS];
    uint32_t slot_of[RILL_RENDER_MAX_VIEWS];
};

/* >>state ------------------------------------------------------------------------------------ */

static void gc_free_view(rill_renderer *r, gc_view *v) {
    rill__buf_destroy(r->gpu, v->out);
    rill__buf_destroy(r->gpu, v->cmds);
    rill__buf_destroy(r->gpu, v->flags);
    rill__buf_destroy(r->gpu, v->compact);
    rill__buf_destroy(r->gpu, v->draw_counts);
    v->out = v->cmds = v->flags = v->compact = v->draw_counts = NULL;
    v->out_entries = v->cmd_count = v->flag_slots = v->compact_cmds = v->draw_count_slots = 0;
    memset(v->counted, 0, sizeof(v->counted));
    memset(v->counted_late, 0, sizeof(v->counted_late));
    v->culled = 0;
}

static void gc_free_buffers(rill_renderer *r, rill__gpu_cull *g) {
    rill__buf_destroy(r->gpu, g->res);
    rill__buf_destroy(r->gpu, g->counts);
    g->res = g->counts = NULL;
    g->res_slots = 0;
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        gc_free_view(r, &g->views[v]);
    }
}

/* Forgets every resident instance (the next active frame spawns them again). */
static void gc_reset(rill_renderer *r, rill__gpu_cull *g) {
    g->slots.len = g->seen.len = g->moved.len = 0;
    g->free_slots.len = g->moved_last.len = g->moved_now.len = 0;
    g->groups.len = g->free_groups.len = g->order.len = 0;
    g->runs_mat.len = g->runs_shape.len = g->runs_geo.len = 0;
    g->pos_slot.len = g->slot_pos.len = 0;
    rill__gc_arena_destroy(r, g->arena); /* its copies are not recorded yet, or drawn already */
    g->arena = NULL;
    rill_map_clear(&g->by_id);
    for (int k = 0; k < 4; k++) {
        rill_map_clear(&g->group_by_key[k]);
    }
    g->live = g->ncmds = g->total = 0;
    g->active = false;
    gc_free_buffers(r, g); /* the new table must not see the old one's slots */
}

void rill__gpu_cull_destroy(rill_renderer *r) {
    rill__gpu_cull *g = r->gpu_cull;
    if (!g) {
        return;
    }
    gc_free_buffers(r, g);
    rill__gc_arena_destroy(r, g->arena);
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        rill__gc_occl_destroy(r, g->views[v].occl);
    }
    rill_array_free(&g->slots);
    rill_array_free(&g->seen);
    rill_array_free(&g->moved);
    rill_array_free(&g->hash_of);
    rill_array_free(&g->free_slots);
    rill_map_free(&g->by_id);
    rill_array_free(&g->moved_last);
    rill_array_free(&g->moved_now);
    rill_array_free(&g->pos_slot);
    rill_array_free(&g->slot_pos);
    rill_array_free(&g->state);
    rill_array_free(&g->slices);
    rill_array_free(&g->todo);
    rill_array_free(&g->unseen);
    rill_array_free(&g->unseen_count);
    rill_array_free(&g->groups);
    rill_array_free(&g->free_groups);
    for (int k = 0; k < 4; k++) {
        rill_map_free(&g->group_by_key[k]);
    }
    rill_array_free(&g->order);
    rill_array_free(&g->runs_mat);
    rill_array_free(&g->runs_shape);
    rill_array_free(&g->runs_geo);
    rill_array_free(&g->deltas);
    rill_free((void *)g->claim);
    rill_free(g);
    r->gpu_cull = NULL;
}

static rill__gpu_cull *gc_get(rill_renderer *r) {
    if (!r->gpu_cull) {
        r->gpu_cull = rill_calloc_tagged(1, sizeof(rill__gpu_cull), RILL_MEM_RENDER);
        if (r->gpu_cull) {
            r->gpu_cull->board_min = GC_BOARD_MIN;
            r->gpu_cull->board_ms = GC_BOARD_MS;
        }
    }
    return r->gpu_cull;
}

void rill__gpu_cull_set_boarding(rill_renderer *r, uint32_t min, double ms) {
    rill__gpu_cull *g = gc_get(r);
    if (g) {
        g->board_min = min;
        g->board_ms = ms;
    }
}

void rill__gpu_cull_board_all(rill_renderer *r, bool all) {
    rill__gpu_cull *g = gc_get(r);
    if (g) {
        g->board_all = all;
    }
}

/* Sizes the claims for every slot (new ones never claimed: frame 0). False: out of memory. */
static bool claims_size(rill__gpu_cull *g) {
    uint32_t n = g->slots.len;
    if (n <= g->claim_cap) {
        return true;
    }
    uint32_t cap = RILL_MAX(n + n / 2u, 1024u);
    _Atomic uint64_t *c = rill_malloc_tagged((size_t)cap * sizeof(*c), RILL_MEM_RENDER);
    if (!c) {
        return false;
    }
    for (uint32_t s = 0; s < cap; s++) {
        atomic_init(&c[s], s < g->claim_cap ? atomic_load(&g->claim[s]) : 0u);
    }
    rill_free((void *)g->claim);
    g->claim = c;
    g->claim_cap = cap;
    return true;
}

void rill__gpu_cull_set_readback(rill_renderer *r, bool on) {
    rill__gpu_cull *g = gc_get(r);
    if (g && g->readback != on) {
        gc_reset(r, g);
        g->readback = on;
    }
}

/* >>scan ------------------------------------------------------------------------------------- */

/* A direct-mapped cache of handle -> slot pointer (NULL: not drawable) for one scan job. */
#define GC_CACHE 256u
typedef struct gc_cache {
    uint32_t id[GC_CACHE];
    const void *ptr[GC_CACHE];
} gc_cache;

static const mesh_slot *cached_mesh(const rill_renderer *r, gc_cache *c, rill_mesh h) {
    uint32_t k = h.id & (GC_CACHE - 1u);
    if (c->id[k] != h.id) {
        c->id[k] = h.id;
        c->ptr[k] = rill__mesh_get(r, h);
    }
    return c->ptr[k];
}

static const mat_slot *cached_mat(const rill_renderer *r, gc_cache *c, rill_material h) {
    uint32_t k = h.id & (GC_CACHE - 1u);
    if (c->id[k] != h.id) {
        c->id[k] = h.id;
        c->ptr[k] = rill__material_get(r, h);
    }
    return c->ptr[k];
}

/* Whether an instance takes the GPU path (see the file comment; ghosts: a ghost draws as a normal
 * instance, the view having no mixed passthrough); *ms and *mto get its mesh and material. */
static bool eligible(const rill_renderer *r, gc_cache *mc, gc_cache *tc,
                     const rill_render_instance *in, bool ghosts, const mesh_slot **ms,
                     const mat_slot **mto) {
    bool mode_ok =
        in->mode == RILL_RENDER_MODE_NORMAL || (ghosts && in->mode == RILL_RENDER_MODE_GHOST);
    if (!in->id || !mode_ok || in->range_count) {
        return false;
    }
    const mat_slot *mt = cached_mat(r, tc, in->material);
    if (!mt || mt->alpha_mode == RILL_ALPHA_BLEND) {
        return false;
    }
    *mto = mt;
    *ms = cached_mesh(r, mc, in->mesh);
    return *ms && (*ms)->index_count;
}

/* An eligible instance's group kind (mt: its material). */
static uint32_t kind_of(const mat_slot *mt, const rill_render_instance *in) {
    bool cuts = mt->alpha_mode == RILL_ALPHA_MASK || in->lod_fade != 0.0f;
    return (cuts ? GROUP_CUTS : 0u) |
           (rill__instance_mirrored(in->transform) ? GROUP_MIRRORED : 0u);
}

/* The fingerprint of what the resident table holds of an instance: its matrix, its mesh's
 * bounding sphere (a skinned mesh's bounds move with its pose) and its LOD fade. Twelve 64-bit
 * words in two lanes of multiply-xorshift rounds (short dependency chains; frame_cull.c's
 * matrix_hash does the same over eight), mixed at the end. */
static uint64_t instance_hash(const rill_render_instance *in, const mesh_slot *ms) {
    uint64_t w[12] = {0}, a = 0x9e3779b97f4a7c15ull, b = 0xc2b2ae3d27d4eb4full;
    memcpy(w, in->transform, sizeof(float) * 16);
    memcpy(&w[8], ms->center, sizeof(float) * 3);
    memcpy((char *)&w[9] + 4, &ms->radius, sizeof(float));
    memcpy(&w[10], &in->lod_fade, sizeof(float));
    for (int i = 0; i < 12; i += 2) {
        a = (a ^ w[i]) * 0xff51afd7ed558ccdull;
        b = (b ^ w[i + 1]) * 0xc4ceb9fe1a85ec53ull;
        a ^= a >> 29;
        b ^= b >> 31;
    }
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

typedef struct scan_job {
    const rill_renderer *r;
    rill__gpu_cull *g;
    const rill_render_snapshot *snap;
    uint32_t guesses; /* positions with a guess from last frame */
    uint32_t n, last; /* positions of this snapshot and of last frame's */
    bool ghosts;      /* ghosts draw as normal instances (no mixed passthrough) */
    /* The snapshot's instance_changed when it can be trusted (the last scan was of the frame
     * before, with the same meshes, materials and passthrough), else NULL. */
    const uint8_t *changed;
} scan_job;

/* The slot of the instance's id when it still holds the instance's mesh, material and kind, else
 * GC_NONE. Reads only what the serial pass writes (the map, the slots' ids, meshes, materials and
 * kinds), so the jobs may call it. */
static uint32_t slot_by_id(const rill__gpu_cull *g, const rill_render_instance *in, uint32_t kind) {
    uint64_t v;
    if (!rill_map_get(&g->by_id, in->id, &v)) {
        return GC_NONE;
    }
    const gc_slot *sl = &g->slots.data[v];
    bool same = sl->mesh == in->mesh.id && sl->mat == in->material.id && sl->kind == kind;
    return same ? (uint32_t)v : GC_NONE;
}

/* A job's copy of last frame's slots of its positions [begin, end), taken at its first missed
 * guess (the positions before it matched theirs, so none was rewritten yet; one that was simply
 * misses). Positions past this snapshot's end no job writes: read where they are. */
typedef struct old_guesses {
    uint32_t slot[GC_SLICE];
    uint32_t begin, end; /* copied: [begin, end); end == begin: not yet */
    bool copied;
} old_guesses;

static uint32_t old_slot(const scan_job *j, const old_guesses *o, int64_t p) {
    if (p >= (int64_t)o->begin && p < (int64_t)o->end) {
        return o->slot[p - o->begin];
    }
    return p >= (int64_t)j->n && p < (int64_t)j->last ? j->g->pos_slot.data[p] : GC_NONE;
}

/* The slot of last frame's position i + shift (the shift the job found last: one instance added
 * or removed before moves every later one by the same amount) when it holds the instance's id,
 * mesh, material and kind, else GC_NONE. Reads last frame's positions and the slots only. */
static uint32_t shifted_guess(const scan_job *j, const old_guesses *o,
                              const rill_render_instance *in, uint32_t kind, uint32_t i,
                              int64_t shift) {
    const rill__gpu_cull *g = j->g;
    uint32_t s = shift ? old_slot(j, o, (int64_t)i + shift) : GC_NONE;
    const gc_slot *sl = s < g->slots.len ? &g->slots.data[s] : NULL;
    bool same = sl && sl->id == in->id && sl->mesh == in->mesh.id && sl->mat == in->material.id &&
                sl->kind == kind;
    return same ? s : GC_NONE;
}

/* Takes the job's copy of last frame's slots at its first missed guess (see old_guesses). */
static void guesses_copy(const scan_job *j, old_guesses *o, const uint32_t *pos_slot,
                         uint32_t end) {
    if (!o->copied) {
        o->copied = true;
        o->end = RILL_MAX(o->begin, RILL_MIN(end, j->guesses));
        memcpy(o->slot, pos_slot + o->begin, (size_t)(o->end - o->begin) * sizeof(uint32_t));
    }
}

/* Lowers a slot's claim to `mine` (frame << 32 | position) unless an earlier position claimed it
 * this frame. */
static void claim_first(_Atomic uint64_t *c, uint64_t mine) {
    uint64_t old = atomic_load_explicit(c, memory_order_relaxed);
    while ((old >> 32) != (mine >> 32) || old > mine) {
        if (atomic_compare_exchange_weak_explicit(c, &old, mine, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            return;
        }
    }
}

/* The positions from i on (below end) passed unread: marked unchanged (instance_changed) and
 * matched last frame by their guess with fixed bounds (ST_SAME | ST_STABLE). Each one's slot is
 * marked seen, nothing else is touched. A word of eight marks all zero beside a word of eight
 * states all quiet goes at once: a static world is long runs of them. Returns the first position
 * that is not passed (or end). */
static uint32_t quiet_run(const uint8_t *restrict changed, const uint8_t *restrict state,
                          const uint32_t *restrict pos_slot, uint32_t *restrict seen,
                          uint32_t frame, uint32_t i, uint32_t end) {
    const uint8_t quiet = ST_SAME | ST_STABLE;
    const uint64_t quiet8 = 0x0101010101010101ull * quiet;
    while (i + 8u <= end) {
        uint64_t c, st;
        memcpy(&c, changed + i, sizeof(c));
        memcpy(&st, state + i, sizeof(st));
        if (c || st != quiet8) {
            break;
        }
        for (uint32_t k = 0; k < 8u; k++) {
            seen[pos_slot[i + k]] = frame;
        }
        i += 8u;
    }
    while (i < end && !changed[i] && state[i] == quiet) {
        seen[pos_slot[i]] = frame;
        i++;
    }
    return i;
}

/* Positions [begin, end) (a rill_job_range_fn): each instance whose position's slot of last frame
 * still holds its id, mesh and material is settled here (seen; moved when its hash changed). When
 * the guess misses, the id map is read here too: a slot found there is claimed for the position
 * (ST_FOUND; settle_slice decides, as another position may hold the same id), and only new ids
 * and changed meshes, materials or kinds go through resolve. Slots are written only through the
 * position that guessed them, so the jobs never share one. */
static void scan_slice(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    const scan_job *j = arg;
    rill__gpu_cull *g = j->g;
    gc_cache mc, tc;
    memset(mc.id, 0, sizeof(mc.id));
    memset(tc.id, 0, sizeof(tc.id));
    gc_slice out = {0, 0, 0, 0, 0, 0, 0, 0};
    /* The arrays in locals: the stores below would otherwise make the compiler reload them. */
    uint32_t *todo = g->todo.data + begin, *pos_slot = g->pos_slot.data, *seen = g->seen.data;
    old_guesses old;
    old.begin = old.end = begin;
    old.copied = false;
    uint8_t *state = g->state.data;
    gc_slot *slots = g->slots.data;
    const uint32_t nslots = g->slots.len, frame = g->frame, guesses = j->guesses;
    const uint8_t *changed = j->changed;
    uint32_t quiet_end = changed ? RILL_MIN(end, guesses) : begin;
    int64_t shift = 0; /* last frame's position minus this one, of the last instance found */
    for (uint32_t i = begin; i < end; i++) {
        if (i < quiet_end && !changed[i] && state[i] == (ST_SAME | ST_STABLE)) {
            /* As they were: their slots, hashes and states. */
            uint32_t q = quiet_run(changed, state, pos_slot, seen, frame, i, quiet_end);
            out.seen += q - i;
            out.quiet += q - i;
            i = q - 1u;
            continue;
        }
        const rill_render_instance *in = &j->snap->instances[i];
        const mesh_slot *ms = NULL;
        const mat_slot *mt = NULL;
        uint8_t st = ST_CPU;
        uint32_t s = GC_NONE;
        if (eligible(j->r, &mc, &tc, in, j->ghosts, &ms, &mt)) {
            s = i < guesses ? pos_slot[i] : GC_NONE;
            gc_slot *sl = s < nslots ? &slots[s] : NULL;
            uint32_t kind = kind_of(mt, in);
            if (sl && sl->id == in->id && sl->mesh == in->mesh.id && sl->mat == in->material.id &&
                sl->kind == kind) {
                uint64_t h = instance_hash(in, ms);
                seen[s] = frame;
                out.seen++;
                st = ms->rewritten ? ST_SAME : ST_SAME | ST_STABLE;
                if (h != sl->hash) {
                    sl->hash = h;
                    g->moved.data[s] = frame;
                    st = ST_MOVED;
                    out.moved++;
                }
            } else if ((s = (guesses_copy(j, &old, pos_slot, end),
                             shifted_guess(j, &old, in, kind, i, shift))) != GC_NONE ||
                       (out.mapped++, s = slot_by_id(g, in, kind)) != GC_NONE) {
                uint32_t was = g->slot_pos.data[s];
                shift = was != GC_NONE ? (int64_t)was - (int64_t)i : shift;
                g->hash_of.data[i] = instance_hash(in, ms);
                claim_first(&g->claim[s], (uint64_t)frame << 32 | i);
                st = ST_FOUND;
                out.found++;
            } else {
                st = ST_SERIAL;
                out.serial++;
            }
        }
        state[i] = st;
        if (st == ST_FOUND) {
            pos_slot[i] = s;
        } else if ((st == ST_CPU || st == ST_SERIAL) && i < guesses) {
            pos_slot[i] = GC_NONE; /* see resolve */
        }
        if (st == ST_MOVED || st == ST_SERIAL) {
            todo[out.todo++] = i;
        }
    }
    g->slices.data[index] = out;
}

/* Positions [begin, end) again, after every job's claims: each position the jobs found through
 * the id map (ST_FOUND) takes its slot unless the position that guessed the slot took it (seen
 * this frame) or an earlier position claimed it; either way it is a repeated id and stays on the
 * CPU path. Taken, the slot is seen, and moved when its hash changed. A slot has one winner, the
 * only position that writes it here, so this runs in the jobs (a shifted snapshot, where nearly
 * every position is found through the map, used to settle them one by one on one thread). */
static void settle_slice(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    const scan_job *j = arg;
    rill__gpu_cull *g = j->g;
    gc_slice *out = &g->slices.data[index];
    if (!out->found) {
        return;
    }
    uint32_t frame = g->frame;
    for (uint32_t i = begin; i < end; i++) {
        if (g->state.data[i] != ST_FOUND) {
            continue;
        }
        uint32_t s = g->pos_slot.data[i];
        uint64_t mine = (uint64_t)frame << 32 | i;
        if (atomic_load_explicit(&g->claim[s], memory_order_relaxed) != mine ||
            g->seen.data[s] == frame) {
            g->state.data[i] = ST_CPU;
            g->pos_slot.data[i] = GC_NONE;
            continue;
        }
        g->seen.data[s] = frame;
        g->slot_pos.data[s] = i;
        out->seen++;
        gc_slot *sl = &g->slots.data[s];
        uint64_t h = g->hash_of.data[i];
        g->state.data[i] = ST_SAME;
        if (h != sl->hash) {
            sl->hash = h;
            g->moved.data[s] = frame;
            g->state.data[i] = ST_MOVED;
            out->moved++;
            g->todo.data[begin + out->todo++] = i; /* at most one entry per position */
        }
    }
    out->found = 0;
}

/* A draw group for (mesh, material), made when new; counts one more instance. GC_NONE: out of
 * memory. */
static uint64_t group_key(rill_mesh mesh, rill_material mat) {
    return (uint64_t)mesh.id << 32 | mat.id;
}

static uint32_t group_acquire(rill__gpu_cull *g, rill_mesh mesh, rill_material mat, uint32_t kind) {
    uint64_t key = group_key(mesh, mat), v;
    rill_map *by_key = &g->group_by_key[kind];
    uint32_t k;
    if (rill_map_get(by_key, key, &v)) {
        k = (uint32_t)v;
    } else {
        if (g->free_groups.len) {
            k = rill_array_pop(&g->free_groups);
        } else {
            if (!rill_array_reserve(&g->groups, g->groups.len + 1u)) {
                return GC_NONE;
            }
            k = g->groups.len++;
        }
        if (!rill_map_set(by_key, key, k)) {
            g->groups.data[k].count = 0;
            (void)rill_array_push(&g->free_groups, k);
            return GC_NONE;
        }
        g->groups.data[k] = (gc_group){mesh, mat, kind, 0, GC_NONE, 0};
    }
    g->groups.data[k].count++;
    return k;
}

static void group_release(rill__gpu_cull *g, uint32_t k) {
    gc_group *gr = &g->groups.data[k];
    if (--gr->count == 0) {
        rill_map_remove(&g->group_by_key[gr->kind], group_key(gr->mesh, gr->mat));
        (void)rill_array_push(&g->free_groups, k);
    }
}

/* Writes slot s's delta into d (the instance's data with spawn and move). */
static void delta_fill(gc_delta *d, const rill__gpu_cull *g, uint32_t s, uint32_t op,
                       const rill_render_instance *in, const mesh_slot *ms) {
    memset(d, 0, sizeof(*d));
    if (in) {
        memcpy(d->model, in->transform, sizeof(d->model));
        memcpy(d->sphere, ms->center, sizeof(float) * 3);
        d->sphere[3] = ms->radius;
        memcpy(&d->meta[3], &in->lod_fade, sizeof(float));
    }
    d->meta[0] = s;
    d->meta[1] = g->slots.data[s].group;
    d->meta[2] = op;
}

/* Appends a delta for slot s (delta_fill). False: out of memory. */
static bool push_delta(rill__gpu_cull *g, uint32_t s, uint32_t op, const rill_render_instance *in,
                       const mesh_slot *ms) {
    gc_delta *d = rill_array_push_n(&g->deltas, 1u);
    if (!d) {
        return false;
    }
    delta_fill(d, g, s, op, in, ms);
    return true;
}

/* Positions [begin, end) again (a rill_job_range_fn), after the claims are settled: the deltas of
 * the slice's moved positions, at the slice's place in the frame's deltas (moves first, a slice's
 * after the slices before it), and their slots at the same place in moved_now. A world where a
 * few percent move used to write every move's 96 bytes on the calling thread. */
static void moves_slice(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)end;
    const scan_job *j = arg;
    rill__gpu_cull *g = j->g;
    const gc_slice *sc = &g->slices.data[index];
    if (!sc->moved) {
        return;
    }
    gc_cache mc;
    memset(mc.id, 0, sizeof(mc.id));
    const uint32_t *todo = g->todo.data + begin;
    uint32_t at = sc->at;
    for (uint32_t k = 0; k < sc->todo; k++) {
        uint32_t i = todo[k];
        if (g->state.data[i] != ST_MOVED) {
            continue;
        }
        const rill_render_instance *in = &j->snap->instances[i];
        uint32_t s = g->pos_slot.data[i];
        delta_fill(&g->deltas.data[at], g, s, OP_MOVE, in, cached_mesh(j->r, &mc, in->mesh));
        g->moved_now.data[at++] = s;
    }
}

/* Lays out the moved positions' deltas slice after slice (gc_slice.at) and writes them over the
 * jobs (moves_slice). False: out of memory. */
static bool scan_moves(rill_renderer *r, rill__gpu_cull *g, scan_job *j, uint32_t nslices) {
    uint32_t moves = 0;
    for (uint32_t t = 0; t < nslices; t++) {
        g->slices.data[t].at = moves;
        moves += g->slices.data[t].moved;
    }
    if (!rill_array_reserve(&g->deltas, moves ? moves : 1u) ||
        !rill_array_reserve(&g->moved_now, moves ? moves : 1u)) {
        return false;
    }
    g->deltas.len = g->moved_now.len = moves;
    if (moves) {
        rill_jobs_for(r->desc.jobs, j->n, GC_SLICE, moves_slice, j);
    }
    return true;
}

/* Whether this frame may take one more new id (GC_BOARD_*): board_min of them, then more until
 * the spawns since the first have cost board_ms (the clock read every GC_BOARD_STEP). */
static bool board_take(rill__gpu_cull *g) {
    if (!g->board_t0) {
        g->board_t0 = rill_time_ns();
    }
    if (g->board_all || g->spawned < g->board_min) {
        return true;
    }
    if (!g->board_full && (g->spawned - g->board_min) % GC_BOARD_STEP == 0) {
        g->board_full = (double)(rill_time_ns() - g->board_t0) * 1e-6 >= g->board_ms;
    }
    return !g->board_full;
}

/* A position the jobs could not settle: its id through the map (a new slot when new, a new group
 * when its mesh or material changed); a second position with an id already seen this frame
 * stays on the CPU path. False: out of memory. A slot is some position's guess only when that
 * position took it this frame: positions left on the CPU path forget theirs (here and in
 * scan_slice), and the others get a new one here, so no two jobs of the next scan can settle the
 * same slot (a repeated id that went away and came back would otherwise be taken twice). */
static bool resolve(rill_renderer *r, rill__gpu_cull *g, const rill_render_instance *in,
                    uint32_t i) {
    const mesh_slot *ms = rill__mesh_get(r, in->mesh);
    uint64_t v, h = instance_hash(in, ms);
    if (rill_map_get(&g->by_id, in->id, &v)) {
        gc_slot *sl = &g->slots.data[v];
        if (g->seen.data[v] == g->frame) {
            g->state.data[i] = ST_CPU; /* a repeated id */
            g->pos_slot.data[i] = GC_NONE;
            return true;
        }
        g->seen.data[v] = g->frame;
        g->pos_slot.data[i] = (uint32_t)v;
        g->slot_pos.data[v] = i;
        uint32_t kind = kind_of(rill__material_get(r, in->material), in);
        if (sl->mesh != in->mesh.id || sl->mat != in->material.id || sl->kind != kind) {
            uint32_t k = group_acquire(g, in->mesh, in->material, kind);
            if (k == GC_NONE) {
                return false;
            }
            group_release(g, sl->group);
            sl->group = k;
            sl->mesh = in->mesh.id;
            sl->mat = in->material.id;
            sl->kind = kind;
            sl->hash = h ^ 1u; /* moves below */
        }
        if (h != sl->hash) {
            sl->hash = h;
            g->moved.data[v] = g->frame;
            return push_delta(g, (uint32_t)v, OP_MOVE, in, ms) &&
                   rill_array_push(&g->moved_now, (uint32_t)v);
        }
        return true;
    }
    if (!board_take(g)) {
        g->state.data[i] = ST_CPU; /* taken in a later frame */
        g->pos_slot.data[i] = GC_NONE;
        return true;
    }
    uint32_t kind = kind_of(rill__material_get(r, in->material), in);
    uint32_t k = group_acquire(g, in->mesh, in->material, kind);
    if (k == GC_NONE) {
        return false;
    }
    uint32_t s;
    if (g->free_slots.len) {
        s = rill_array_pop(&g->free_slots);
    } else if (rill_array_reserve(&g->slots, g->slots.len + 1u) &&
               rill_array_reserve(&g->seen, g->slots.len + 1u) &&
               rill_array_reserve(&g->moved, g->slots.len + 1u) &&
               rill_array_reserve(&g->slot_pos, g->slots.len + 1u)) {
        s = g->slots.len++;
        g->seen.len = g->moved.len = g->slot_pos.len = g->slots.len;
    } else {
        group_release(g, k);
        return false;
    }
    if (!rill_map_set(&g->by_id, in->id, s)) {
        group_release(g, k);
        g->slots.data[s].id = 0;
        (void)rill_array_push(&g->free_slots, s);
        return false;
    }
    g->slots.data[s] = (gc_slot){in->id, h, in->mesh.id, in->material.id, k, kind};
    g->seen.data[s] = g->frame;
    g->moved.data[s] = 0;
    g->live++;
    g->spawned++;
    g->pos_slot.data[i] = s;
    g->slot_pos.data[s] = i;
    return push_delta(g, s, OP_SPAWN, in, ms);
}

/* Despawns the live slots among the n listed (slots not seen this frame). False: out of memory. */
static bool despawn_listed(rill__gpu_cull *g, const uint32_t *list, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) {
        uint32_t s = list[k];
        gc_slot *sl = &g->slots.data[s];
        if (!sl->id) {
            continue;
        }
        rill_map_remove(&g->by_id, sl->id);
        group_release(g, sl->group);
        if (!push_delta(g, s, OP_DESPAWN, NULL, NULL) || !rill_array_push(&g->free_slots, s)) {
            return false;
        }
        sl->id = 0;
        g->live--;
    }
    return true;
}

/* Slots [begin, end) (a rill_job_range_fn): lists the slots not seen this frame (live or free)
 * for despawn_unseen. */
static void unseen_slice(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    rill__gpu_cull *g = arg;
    uint32_t *out = g->unseen.data + begin, n = 0, frame = g->frame;
    for (uint32_t s = begin; s < end; s++) {
        if (g->seen.data[s] != frame) {
            out[n++] = s;
        }
    }
    g->unseen_count.data[index] = n;
}

/* Despawns the live slots the snapshot no longer has (found over the jobs: only the slots not
 * seen are visited here). */
static bool despawn_unseen(rill_renderer *r, rill__gpu_cull *g) {
    uint32_t n = g->slots.len, chunks = (n + GC_SLICE - 1u) / GC_SLICE;
    if (!rill_array_size_for(&g->unseen, n ? n : 1u) ||
        !rill_array_size_for(&g->unseen_count, chunks ? chunks : 1u)) {
        return false;
    }
    rill_jobs_for(r->desc.jobs, n, GC_SLICE, unseen_slice, g);
    for (uint32_t c = 0; c < chunks; c++) {
        if (!despawn_listed(g, g->unseen.data + (size_t)c * GC_SLICE, g->unseen_count.data[c])) {
            return false;
        }
    }
    return true;
}

/* The serial pass after the jobs (the moved positions' deltas written there: scan_moves): the
 * positions left to it resolved, the slots that moved last frame and not this one settled, the
 * missing ones despawned. */
static bool scan_serial(rill_renderer *r, rill__gpu_cull *g, const rill_render_snapshot *snap,
                        uint32_t nslices) {
    uint32_t seen = 0;
    g->resolved = g->spawned = 0;
    g->board_t0 = 0;
    g->board_full = false;
    for (uint32_t t = 0; t < nslices; t++) {
        const gc_slice *sc = &g->slices.data[t];
        seen += sc->seen;
        const uint32_t *todo = g->todo.data + (size_t)t * GC_SLICE;
        for (uint32_t k = 0; sc->serial && k < sc->todo; k++) {
            uint32_t i = todo[k];
            if (g->state.data[i] == ST_SERIAL) {
                const rill_render_instance *in = &snap->instances[i];
                g->resolved++;
                if (!resolve(r, g, in, i)) {
                    return false;
                }
                seen += g->state.data[i] != ST_CPU;
            }
        }
    }
    for (uint32_t k = 0; k < g->moved_last.len; k++) {
        uint32_t s = g->moved_last.data[k];
        const gc_slot *sl = &g->slots.data[s];
        if (sl->id && g->seen.data[s] == g->frame && g->moved.data[s] != g->frame &&
            !push_delta(g, s, OP_SETTLE, NULL, NULL)) {
            return false;
        }
    }
    if (seen != g->live && !despawn_unseen(r, g)) {
        return false;
    }
    /* This frame's moves settle next frame. */
    uint32_t *data = g->moved_last.data, cap = g->moved_last.cap;
    g->moved_last.data = g->moved_now.data;
    g->moved_last.len = g->moved_now.len;
    g->moved_last.cap = g->moved_now.cap;
    g->moved_now.data = data;
    g->moved_now.len = 0;
    g->moved_now.cap = cap;
    return true;
}

/* >>groups and runs -------------------------------------------------------------------------- */

typedef struct order_key {
    uint32_t cuts;
    uintptr_t vb, ib, xb;
    uint32_t mirrored, double_sided, mat, mesh, group;
} order_key;

static int order_cmp(const void *pa, const void *pb) {
    const order_key *a = pa, *b = pb;
#define CMP(f)                                                                                     \
    if (a->f != b->f) {                                                                            \
        return a->f < b->f ? -1 : 1;                                                               \
    }
    CMP(cuts)
    CMP(vb)
    CMP(ib)
    CMP(xb)
    CMP(mirrored)
    CMP(double_sided)
    CMP(mat)
    CMP(mesh)
    CMP(group)
#undef CMP
    return 0;
}

/* Appends run to list, or lengthens the list's last run when `same`. False: out of memory. */
static bool run_add(gc_runs *list, bool same, const rill__gpu_cull_run *run) {
    if (same) {
        list->data[list->len - 1u].count++;
        return true;
    }
    return rill_array_push(list, *run);
}

/* Places every live group's mesh (gpu_cull_arena.c), orders the groups for drawing (cuts,
 * buffers, mirrored, double-sided, material), gives each its command and output range, and cuts
 * the order into runs: runs_geo (one pair of buffers and cuts: shadows), runs_shape (and one
 * pipeline state: passes without materials) and runs_mat (and one material). Meshes in the arena
 * share its buffers, so a pass draws them with one call per pipeline state (and material).
 * Without multi-draw indirect every run is one group. */
static bool build_groups(rill_renderer *r, rill__gpu_cull *g) {
    uint32_t n = g->groups.len;
    order_key *keys = rill_malloc_tagged((size_t)(n ? n : 1u) * sizeof(order_key), RILL_MEM_RENDER);
    if (!g->arena) {
        g->arena = rill__gc_arena_create();
    }
    if (!keys || !g->arena || !rill_array_reserve(&g->order, n ? n : 1u)) {
        rill_free(keys);
        return false;
    }
    uint32_t live = 0;
    for (uint32_t k = 0; k < n; k++) {
        gc_group *gr = &g->groups.data[k];
        gr->cmd = GC_NONE;
        const mesh_slot *ms = gr->count ? rill__mesh_get(r, gr->mesh) : NULL;
        const mat_slot *mt = gr->count ? rill__material_get(r, gr->mat) : NULL;
        if (!ms || !mt) {
            continue; /* instances of a mesh gone since the scan never are */
        }
        if (!rill__gc_arena_place(r, g->arena, gr->mesh, ms, &gr->geom)) {
            rill_free(keys);
            return false;
        }
        keys[live++] = (order_key){(gr->kind & GROUP_CUTS) != 0,
                                   (uintptr_t)gr->geom.vb,
                                   (uintptr_t)gr->geom.ib,
                                   (uintptr_t)gr->geom.xb,
                                   (gr->kind & GROUP_MIRRORED) != 0,
                                   mt->double_sided,
                                   gr->mat.id,
                                   gr->mesh.id,
                                   k};
    }
    rill__gc_arena_sweep(r, g->arena);
    qsort(keys, live, sizeof(*keys), order_cmp);
    bool mdi = rill__gpu_get_caps(r->gpu)->multi_draw_indirect;
    g->runs_mat.len = g->runs_shape.len = g->runs_geo.len = 0;
    uint32_t base = 0;
    bool ok = true;
    for (uint32_t c = 0; c < live && ok; c++) {
        gc_group *gr = &g->groups.data[keys[c].group];
        const order_key *p = c ? &keys[c - 1] : NULL, *q = &keys[c];
        gr->cmd = c;
        gr->base = base;
        base += gr->count;
        g->order.data[c] = q->group;
        bool same_geo =
            p && mdi && p->cuts == q->cuts && p->vb == q->vb && p->ib == q->ib && p->xb == q->xb;
        bool same_shape =
            same_geo && p->mirrored == q->mirrored && p->double_sided == q->double_sided;
        bool same_mat = same_shape && p->mat == q->mat;
        rill__gpu_cull_run run = {c,
                                  1,
                                  gr->mat,
                                  gr->geom.vb,
                                  gr->geom.ib,
                                  gr->geom.xb,
                                  q->double_sided != 0,
                                  q->cuts != 0,
                                  q->mirrored != 0};
        ok = run_add(&g->runs_geo, same_geo, &run) && run_add(&g->runs_shape, same_shape, &run) &&
             run_add(&g->runs_mat, same_mat, &run);
    }
    g->order.len = live;
    g->ncmds = live;
    g->total = base;
    rill_free(keys);
    return ok;
}

/* >>the frame -------------------------------------------------------------------------------- */

/* Each view's visible count of the last frame recorded into this frame slot (finished now: the
 * slot was waited for), for rill_render_stats.instances_visible and instances_occluded. */
static void read_counts(rill_renderer *r, rill__gpu_cull *g) {
    uint32_t slot = rill__gpu_frame_slot(r->gpu);
    const uint32_t *c = slot < 4u && g->counts ? rill__buf_map(g->counts) : NULL;
    for (uint32_t v = 0; c && v < RILL_RENDER_MAX_VIEWS; v++) {
        gc_view *gv = &g->views[v];
        if (!gv->counted[slot]) {
            continue;
        }
        const uint32_t *vc = c + (slot * RILL_RENDER_MAX_VIEWS + v) * (COUNT_STRIDE / 4u);
        uint32_t late = gv->counted_late[slot];
        r->instances_visible += vc[0] + (late ? vc[late] : 0u);
        r->instances_occluded += late ? vc[COUNT_OCCLUDED] : 0u;
        gv->counted[slot] = false;
    }
}

/* Gives back the buffers and depth pyramid of the view slots idle for GC_VIEW_IDLE frames (their
 * frames in flight are long done; a view coming back starts with no occlusion history, as it
 * would anyway after a frame away). */
static void release_idle_views(rill_renderer *r, rill__gpu_cull *g) {
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        gc_view *gv = &g->views[v];
        if (gv->culled && g->frame >= gv->culled + GC_VIEW_IDLE) {
            gc_free_view(r, gv);
            rill__gc_occl_destroy(r, gv->occl);
            gv->occl = NULL;
        }
    }
}

/* Whether ghosts draw as normal instances in every view of the frame (none has mixed
 * passthrough): the views share what the table takes. */
static bool ghosts_plain(const rill__view *vs) {
    const rill_render_snapshot *snap = vs->snap;
    bool plain = !vs->passthrough;
    uint32_t n = snap->views ? RILL_MIN(snap->view_count, (uint32_t)RILL_RENDER_MAX_VIEWS) : 0u;
    for (uint32_t i = 0; i < n; i++) {
        plain &= snap->views[i].passthrough != RILL_PASSTHROUGH_MIXED;
    }
    return plain;
}

/* Whether the snapshot's marks compare with what the last scan saw: a snapshot from
 * rill_render_extract (an epoch) must have been compared with the one scanned last; one built by
 * hand (no epoch) is taken to follow the last one. */
static bool marks_follow(const rill__gpu_cull *g, const rill_render_snapshot *snap) {
    return !snap->instance_epoch ||
           (snap->instance_changed_since && snap->instance_changed_since == g->scanned_epoch);
}

const uint8_t *rill__gpu_cull_scan(rill_renderer *r, const rill__view *vs, bool on,
                                   rill_error *err) {
    rill__gpu_cull *g = on || r->gpu_cull ? gc_get(r) : NULL;
    if (!g) {
        if (on) {
            rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (gpu culling)");
        }
        return NULL;
    }
    if (!on) {
        if (g->active || g->slots.len) {
            gc_reset(r, g); /* GPU culling switched off forgets the table */
        }
        return NULL;
    }
    if (vs->index != 0) {
        /* Another view of the frame: every view draws the same snapshot, scanned for the first
         * (the views share what the table takes; each culls it with its own frustum). */
        return g->active ? g->state.data : NULL;
    }
    g->active = false; /* until this frame's scan succeeds */
    g->views_culled = 0;
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        g->slot_of[v] = GC_NONE;
    }
    read_counts(r, g);
    release_idle_views(r, g);
    uint64_t t0 = rill_time_ns();
    const rill_render_snapshot *snap = vs->snap;
    uint32_t n = snap->instance_count;
    uint32_t nslices = (n + GC_SLICE - 1u) / GC_SLICE;
    uint32_t guesses = g->pos_slot.len;
    if (!claims_size(g) || !rill_array_reserve(&g->state, n ? n : 1u) ||
        !rill_array_size_for(&g->todo, n ? n : 1u) ||
        !rill_array_reserve(&g->pos_slot, n ? n : 1u) ||
        !rill_array_size_for(&g->hash_of, n ? n : 1u) ||
        !rill_array_size_for(&g->slices, nslices ? nslices : 1u)) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (gpu culling)");
        return NULL;
    }
    for (uint32_t i = guesses; i < n; i++) {
        g->pos_slot.data[i] = GC_NONE;
    }
    /* Positions past the snapshot's end keep last frame's slots for this scan's shifted guesses
     * (no job writes them), then are forgotten. */
    g->pos_slot.len = n;
    g->slots_before = g->slots.len;
    g->buf_current = g->res && g->recorded == g->frame;
    g->frame++;
    g->deltas.len = 0;
    g->moved_now.len = 0;
    bool ghosts = ghosts_plain(vs);
    bool trusted = g->scanned_frame + 1u == r->frame_counter &&
                   g->scanned_destroyed == r->assets_destroyed && g->scanned_ghosts == ghosts &&
                   marks_follow(g, snap);
    scan_job j = {r, g,       snap,   RILL_MIN(guesses, n),
                  n, guesses, ghosts, trusted ? snap->instance_changed : NULL};
    g->scanned_frame = r->frame_counter;
    g->scanned_epoch = snap->instance_epoch;
    g->scanned_destroyed = r->assets_destroyed;
    g->scanned_ghosts = ghosts;
    rill_jobs_for(r->desc.jobs, n, GC_SLICE, scan_slice, &j);
    uint32_t found = 0;
    g->quiet = g->mapped = 0;
    for (uint32_t t = 0; t < nslices; t++) {
        found += g->slices.data[t].found;
        g->quiet += g->slices.data[t].quiet;
        g->mapped += g->slices.data[t].mapped;
    }
    if (found) {
        rill_jobs_for(r->desc.jobs, n, GC_SLICE, settle_slice, &j);
    }
    bool ok =
        scan_moves(r, g, &j, nslices) && scan_serial(r, g, snap, nslices) && build_groups(r, g);
    g->scan_ms = (double)(rill_time_ns() - t0) * 1e-6;
    if (!ok) {
        gc_reset(r, g);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (gpu culling)");
        return NULL;
    }
    /* The table and the output are bound whole: past what one binding may see (or without
     * multi-draw indirect with a first instance, which the commands need) the CPU path draws. */
    const rill__gpu_caps *caps = rill__gpu_get_caps(r->gpu);
    uint64_t out_bytes = (uint64_t)GC_LISTS * g->total * 3u / 2u * 144u;
    uint64_t res_bytes = (uint64_t)g->slots.len * 3u / 2u * 160u;
    if (!caps->multi_draw_indirect || out_bytes > caps->max_storage_range ||
        res_bytes > caps->max_storage_range) {
        if (!g->warned) {
            g->warned = true;
            RILL_LOG_WARN("render", "GPU culling off: %s",
                          caps->multi_draw_indirect
                              ? "its buffers would exceed the device's storage buffer range"
                              : "the device lacks multiDrawIndirect or drawIndirectFirstInstance");
        }
        gc_reset(r, g);
        return NULL;
    }
    g->active = true;
    return g->state.data;
}

/* Per command, for each kind of run, its run's draw count slot (the runs of the three kinds
 * numbered one after the other) and first command. */
static void fill_cmd_runs(const rill__gpu_cull *g, gc_cmd_run *cr) {
    const gc_runs *kinds[3] = {&g->runs_geo, &g->runs_shape, &g->runs_mat};
    uint32_t slot = 0;
    for (uint32_t k = 0; k < 3u; k++) {
        for (uint32_t i = 0; i < kinds[k]->len; i++, slot++) {
            const rill__gpu_cull_run *run = &kinds[k]->data[i];
            for (uint32_t c = run->first; c < run->first + run->count; c++) {
                cr[c].slot[k] = slot;
                cr[c].first[k] = run->first;
            }
        }
    }
}

/* A device-local buffer of at least `need` elements of size `elem` (grown by half again); true
 * when it had to be made anew (its contents are then undefined). */
static bool ensure_buf(rill_renderer *r, rill__buf **buf, uint64_t *have, uint64_t need,
                       uint64_t elem, uint32_t usage, bool host, const char *label, bool *failed) {
    if (*buf && *have >= need) {
        return false;
    }
    uint64_t want = RILL_MAX(need + need / 2u, 64u);
    rill__buf_destroy(r->gpu, *buf);
    *buf = rill__buf_create(r->gpu, want * elem, usage, host, label, NULL);
    *have = *buf ? want : 0;
    *failed |= !*buf;
    return true;
}

/* Every slot of the table again (a new resident buffer): live ones spawn from this frame's
 * snapshot, the others are cleared. */
static bool respawn_all(rill_renderer *r, rill__gpu_cull *g, const rill_render_snapshot *snap) {
    g->deltas.len = 0;
    g->moved_now.len = 0;
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        if (g->state.data[i] != ST_CPU) {
            const rill_render_instance *in = &snap->instances[i];
            if (!push_delta(g, g->pos_slot.data[i], OP_SPAWN, in, rill__mesh_get(r, in->mesh))) {
                return false;
            }
        }
    }
    for (uint32_t s = 0; s < g->slots.len; s++) {
        if (!g->slots.data[s].id && !push_delta(g, s, OP_DESPAWN, NULL, NULL)) {
            return false;
        }
    }
    g->moved_last.len = 0;
    return true;
}

/* Runs one of the shader's steps over invocations [first, end), in dispatches of at most 65535
 * workgroups of 64 (the least maxComputeWorkGroupCount[0] Vulkan allows). */
static void gc_dispatch_range(rill__cmd *cmd, uint32_t mode, uint32_t first, uint32_t end) {
    const uint32_t most = 65535u * 64u;
    for (uint32_t at = first; at < end; at += most) {
        uint32_t n = RILL_MIN(end - at, most);
        uint32_t push[3] = {mode, end, at};
        rill__cmd_push(cmd, push, sizeof(push));
        rill__cmd_dispatch(cmd, (n + 63u) / 64u, 1, 1);
    }
}

static void gc_dispatch(rill__cmd *cmd, uint32_t mode, uint32_t count) {
    gc_dispatch_range(cmd, mode, 0, count);
}

/* Deltas per job of their copy into the frame's scratch (a 10 % moving world of 1 M instances
 * has 100 k of them, 9.6 MB: 1.7 ms of one thread on the H200 host). */
#define GC_COPY_DELTAS 8192u

typedef struct delta_copy {
    gc_delta *dst;
    const gc_delta *src;
} delta_copy;

/* Deltas [begin, end) into the scratch (a rill_job_range_fn). */
static void copy_slice(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    const delta_copy *c = arg;
    memcpy(c->dst + begin, c->src + begin, (size_t)(end - begin) * sizeof(gc_delta));
}

/* The frame's shared part, recorded once, before the first view's cull: the resident buffer
 * (grown by a copy, or spawned again whole), the counts, and this frame's deltas, group table and
 * command runs in the frame's scratch memory, which every view's cull binds; the arena's copies.
 * The first view's cull applies the deltas (cull_view). */
static rill_result record_shared(rill_renderer *r, rill__cmd *cmd, rill__gpu_cull *g,
                                 const rill__view *vs, rill_error *err) {
    uint32_t nslots = g->slots.len, ngroups = g->groups.len;
    bool failed = false;
    rill__buf *old_res = g->res;
    g->res = NULL; /* ensure_buf would destroy it: kept for the copy below */
    uint64_t old_slots = g->res_slots;
    g->res_slots = 0;
    bool fresh = true;
    if (old_res && old_slots >= RILL_MAX(nslots, 1u)) {
        g->res = old_res, g->res_slots = old_slots, old_res = NULL, fresh = false;
    } else {
        ensure_buf(r, &g->res, &g->res_slots, RILL_MAX(nslots, 1u), 160, RILL__BUF_STORAGE, false,
                   "gpu cull instances", &failed);
    }
    if (!g->counts) {
        g->counts = rill__buf_create(r->gpu, 4u * RILL_RENDER_MAX_VIEWS * COUNT_STRIDE,
                                     RILL__BUF_STORAGE, true, "gpu cull counts", NULL);
        failed |= !g->counts;
    }
    if (failed || !r->pipes[RILL__PIPE_GPU_CULL]) {
        rill__buf_destroy(r->gpu, old_res);
        gc_reset(r, g);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: gpu culling buffers failed");
    }
    /* A grown resident buffer starts as a copy of the old one (recorded below, before the
     * deltas); a new one with nothing before it gets every slot from this frame's spawns; only a
     * table the buffer missed a frame of is spawned again whole. */
    bool copy = fresh && old_res && g->buf_current;
    bool whole = fresh ? !copy && (old_res || g->slots_before) : !g->buf_current;
    if (!copy) {
        rill__buf_destroy(r->gpu, old_res);
        old_res = NULL;
    }
    if (whole && !respawn_all(r, g, vs->snap)) {
        rill__buf_destroy(r->gpu, old_res);
        gc_reset(r, g);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (gpu culling)");
    }
    g->res_fresh = fresh;
    g->deltas_last = g->deltas.len;
    /* This frame's deltas, group table and command runs in the frame's scratch memory. */
    rill__buf *dbuf = NULL, *gbuf = NULL, *rbuf = NULL;
    uint64_t doff = 0, goff = 0, roff = 0;
    uint64_t rsize = (uint64_t)RILL_MAX(g->ncmds, 1u) * sizeof(gc_cmd_run);
    uint64_t dsize = (uint64_t)RILL_MAX(g->deltas.len, 1u) * sizeof(gc_delta);
    uint64_t gsize = (uint64_t)RILL_MAX(ngroups, 1u) * sizeof(gc_group_gpu);
    gc_delta *d = rill__frame_alloc(cmd, dsize, 16, &dbuf, &doff);
    gc_group_gpu *gg = d ? rill__frame_alloc(cmd, gsize, 16, &gbuf, &goff) : NULL;
    gc_cmd_run *cr = gg ? rill__frame_alloc(cmd, rsize, 16, &rbuf, &roff) : NULL;
    if (!cr) {
        rill__buf_destroy(r->gpu, old_res); /* next frame spawns the table again (recorded) */
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    delta_copy dc = {d, g->deltas.data};
    rill_jobs_for(r->desc.jobs, g->deltas.len, GC_COPY_DELTAS, copy_slice, &dc);
    memset(gg, 0, gsize);
    for (uint32_t k = 0; k < ngroups; k++) {
        const gc_group *gr = &g->groups.data[k];
        gg[k].cmd = GC_NONE;
        if (gr->cmd != GC_NONE) {
            const mesh_slot *ms = rill__mesh_get(r, gr->mesh);
            gg[k] = (gc_group_gpu){
                ms->index_count, gr->geom.first_index, gr->geom.vertex_offset, gr->base, gr->cmd,
                {0, 0, 0}};
        }
    }
    fill_cmd_runs(g, cr);
    g->deltas_set = (rill__binding){.buf = dbuf, .offset = doff, .range = dsize};
    g->groups_set = (rill__binding){.buf = gbuf, .offset = goff, .range = gsize};
    g->runs_set = (rill__binding){.buf = rbuf, .offset = roff, .range = rsize};
    rill__cmd_label_begin(cmd, "gpu cull table");
    rill__gc_arena_record(g->arena, cmd); /* meshes new to the arena: before any draw */
    if (old_res) {
        /* The grown table: last frame's slots, then this frame's deltas (the barrier below). */
        rill__cmd_copy_buffer(cmd, old_res, 0, g->res, 0, old_slots * 160u, true, false);
        rill__buf_destroy(r->gpu, old_res); /* deferred past this frame */
    }
    rill__cmd_skinning_barrier(cmd, false); /* last frame's draws read what this rewrites */
    rill__cmd_label_end(cmd);
    return RILL_OK;
}

/* The planes of view vs's lists into pp: the view's, then its cascades' without a near plane
 * (casters between the light and the cascade still cast into it). */
static void list_planes(const rill__view *vs, const float planes[6][4], uint32_t lists,
                        gc_params *pp) {
    memcpy(pp->planes[0], planes, sizeof(pp->planes[0]));
    for (uint32_t c = 1; c < lists; c++) {
        rill__frustum_planes(vs->cascade_vp[c - 1u], pp->planes[c]);
        pp->planes[c][4][0] = pp->planes[c][4][1] = pp->planes[c][4][2] = 0.0f;
        pp->planes[c][4][3] = 1.0f;
    }
}

/* View vs's buffers for this frame (made or grown); *reset gets whether its flags are new (they
 * hold no visibility then). False: out of memory. */
static bool view_buffers(rill_renderer *r, const rill__gpu_cull *g, gc_view *v, bool *reset) {
    bool failed = false;
    uint32_t nruns = g->runs_geo.len + g->runs_shape.len + g->runs_mat.len;
    uint32_t cmds = RILL_MAX(g->ncmds, 1u);
    ensure_buf(r, &v->out, &v->out_entries, (uint64_t)v->nlists * RILL_MAX(g->total, 1u), 144,
               RILL__BUF_STORAGE, false, "gpu cull output", &failed);
    ensure_buf(r, &v->cmds, &v->cmd_count, (uint64_t)GC_LISTS_ALL * cmds, 20,
               RILL__BUF_STORAGE | RILL__BUF_INDIRECT, false, "gpu cull commands", &failed);
    *reset |= ensure_buf(r, &v->flags, &v->flag_slots, RILL_MAX(g->slots.len, 1u), 4,
                         RILL__BUF_STORAGE, g->readback, "gpu cull flags", &failed);
    ensure_buf(r, &v->compact, &v->compact_cmds, 3u * GC_LISTS_ALL * cmds, 20,
               RILL__BUF_STORAGE | RILL__BUF_INDIRECT, false, "gpu cull compacted", &failed);
    ensure_buf(r, &v->draw_counts, &v->draw_count_slots,
               (uint64_t)GC_LISTS_ALL * RILL_MAX(nruns, 1u), 4,
               RILL__BUF_STORAGE | RILL__BUF_INDIRECT, false, "gpu cull draw counts", &failed);
    return !failed;
}

/* What tells a view from the frame's others, frame to frame: its camera entity, order, render
 * texture and viewport. */
static uint64_t view_key(const rill_render_view *v) {
    uint64_t h = rill_hash64_seed(&v->camera, sizeof(v->camera), 0x6d76u);
    h = rill_hash64_seed(&v->order, sizeof(v->order), h);
    h = rill_hash64_seed(v->viewport, sizeof(v->viewport), h);
    return v->target ? rill_hash64_seed(v->target, strlen(v->target), h) : h;
}

/* The slot of view vs this frame: the one its key had (not taken yet this frame), else the
 * least recently used one (free slots first). *same: the slot was this view's. */
static gc_view *view_slot(rill__gpu_cull *g, const rill__view *vs, bool *same) {
    uint64_t key = view_key(vs->view);
    uint32_t taken = 0, best = GC_NONE;
    for (uint32_t k = 0; k < RILL_RENDER_MAX_VIEWS; k++) {
        taken |= g->slot_of[k] != GC_NONE ? 1u << g->slot_of[k] : 0u;
    }
    for (uint32_t k = 0; k < RILL_RENDER_MAX_VIEWS && best == GC_NONE; k++) {
        const gc_view *v = &g->views[k];
        best = !(taken & (1u << k)) && v->culled && v->key == key ? k : GC_NONE;
    }
    *same = best != GC_NONE;
    for (uint32_t k = 0; k < RILL_RENDER_MAX_VIEWS && !*same; k++) {
        bool older = best == GC_NONE || g->views[k].culled < g->views[best].culled;
        best = !(taken & (1u << k)) && older ? k : best;
    }
    g->slot_of[vs->index] = best; /* one view per slot: there are as many slots as views */
    g->views[best].key = key;
    return &g->views[best];
}

/* The cull shader: the variant that appends once per group and subgroup where the device has
 * subgroup operations (frame_pipelines.c), else one atomic per instance. Same layout and steps. */
static rill__pipe *cull_pipe(const rill_renderer *r) {
    rill__pipe *sg = r->pipes[RILL__PIPE_GPU_CULL_SUBGROUP];
    return sg ? sg : r->pipes[RILL__PIPE_GPU_CULL];
}

/* View vs's cull of the shared table with its own planes into its own lists: its commands
 * reset, the deltas applied first when it is the frame's first view, its flags cleared for the
 * new instances, every resident sphere tested against its lists, its commands compacted and its
 * lists counted. */
static rill_result cull_view(rill_renderer *r, rill__cmd *cmd, rill__gpu_cull *g,
                             const rill__view *vs, const float planes[6][4], rill_error *err) {
    bool same = false;
    gc_view *v = view_slot(g, vs, &same);
    uint32_t slot = (uint32_t)(v - g->views);
    v->lists = 1u + (r->frame.shadows ? RILL_MIN(vs->cascades, GC_LISTS - 1u) : 0u);
    /* Occlusion: the view's phase-2 list comes after the cascades'. */
    bool reset = false;
    bool occl = rill__gc_occl_plan(r, &v->occl, vs, planes, &reset);
    v->late = occl ? v->lists : 0u;
    v->nlists = v->lists + (occl ? 1u : 0u);
    uint32_t fslot = rill__gpu_frame_slot(r->gpu);
    bool ok = view_buffers(r, g, v, &reset);
    gc_params *pp = NULL;
    rill__buf *pbuf = NULL;
    uint64_t poff = 0;
    if (ok && fslot < 4u) {
        pp = rill__frame_alloc(cmd, sizeof(gc_params), 16, &pbuf, &poff);
    }
    if (!pp) {
        gc_reset(r, g);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: gpu culling buffers failed");
    }
    /* A view that did not cull last frame, a slot that was another view's, a new table: no
     * results of last frame. */
    v->occl_reset = occl && (reset || !same || g->res_fresh || v->culled + 1u != g->frame);
    uint32_t ngroups = g->groups.len, nslots = g->slots.len;
    uint32_t nruns = g->runs_geo.len + g->runs_shape.len + g->runs_mat.len;
    memset(pp, 0, sizeof(*pp));
    list_planes(vs, planes, v->lists, pp);
    pp->info[0] = v->lists;
    pp->info[1] = g->ncmds;
    pp->info[2] = g->total;
    pp->info[3] = ngroups;
    pp->info2[0] = nruns;
    pp->info2[2] = v->nlists;
    pp->info2[3] = (occl ? 1u : 0u) | (v->occl_reset ? 2u : 0u);
    /* Timed per view, named as the graph names a view's passes ("opaque.1"). */
    static const char *const names[RILL_RENDER_MAX_VIEWS] = {
        "gpu cull",   "gpu cull.1", "gpu cull.2", "gpu cull.3",
        "gpu cull.4", "gpu cull.5", "gpu cull.6", "gpu cull.7"};
    rill__cmd_timestamp_begin(cmd, names[vs->index]);
    rill__cmd_label_begin(cmd, names[vs->index]);
    rill__cmd_bind_pipe(cmd, cull_pipe(r));
    uint64_t count_at = ((uint64_t)fslot * RILL_RENDER_MAX_VIEWS + slot) * COUNT_STRIDE;
    rill__binding b[11] = {g->deltas_set,
                           {.buf = g->res},
                           g->groups_set,
                           {.buf = v->cmds},
                           {.buf = v->out},
                           {.buf = v->flags},
                           {.buf = pbuf, .offset = poff, .range = sizeof(gc_params)},
                           {.buf = g->counts, .offset = count_at, .range = COUNT_STRIDE},
                           g->runs_set,
                           {.buf = v->compact},
                           {.buf = v->draw_counts}};
    RILL_TRY(rill__cmd_bind_transient_set(cmd, 0, b, 11));
    memcpy(v->cull_set, b, sizeof(b));
    if (g->deltas.len) {
        if (g->recorded != g->frame) {
            gc_dispatch(cmd, 0, g->deltas.len); /* the table's deltas, once a frame */
        }
        gc_dispatch(cmd, 5, g->deltas.len); /* this view's flags of the new instances */
    }
    g->recorded = g->frame;
    if (ngroups) {
        gc_dispatch(cmd, 1, RILL_MAX(ngroups, nruns) * v->nlists); /* commands, draw counts */
    }
    rill__cmd_compute_barrier(cmd);
    if (nslots) {
        gc_dispatch(cmd, 2, nslots);
    }
    rill__cmd_compute_barrier(cmd);
    v->compacted = rill__gpu_get_caps(r->gpu)->draw_indirect_count && g->ncmds;
    if (v->compacted) {
        gc_dispatch(cmd, 4, g->ncmds * v->lists);
    }
    gc_dispatch(cmd, 3, v->lists);
    v->counted[fslot] = true;
    v->counted_late[fslot] = v->late;
    v->culled = g->frame;
    g->views_culled++;
    rill__cmd_indirect_barrier(cmd);
    rill__cmd_label_end(cmd);
    rill__cmd_timestamp_end(cmd);
    return RILL_OK;
}

rill_result rill__gpu_cull_record(rill_renderer *r, rill__cmd *cmd, const rill__view *vs,
                                  const float planes[6][4], rill_error *err) {
    rill__gpu_cull *g = r->gpu_cull;
    if (!g || !g->active || vs->index >= RILL_RENDER_MAX_VIEWS) {
        return RILL_OK;
    }
    if (g->recorded != g->frame) { /* the frame's first view */
        rill_result res = record_shared(r, cmd, g, vs, err);
        if (res != RILL_OK) {
            return res;
        }
    }
    return cull_view(r, cmd, g, vs, planes, err);
}

/* >>what the passes and tests read ----------------------------------------------------------- */

/* The slot of the frame's view `index` when it culled this frame, else NULL. */
static const gc_view *view_culled(const rill__gpu_cull *g, uint32_t index) {
    if (!g || !g->active || index >= RILL_RENDER_MAX_VIEWS || !g->ncmds ||
        g->slot_of[index] == GC_NONE) {
        return NULL;
    }
    const gc_view *v = &g->views[g->slot_of[index]];
    return v->culled == g->frame && v->out ? v : NULL;
}

bool rill__gpu_cull_draws(const rill_renderer *r, const rill__view *vs, rill__gpu_cull_draw *out) {
    const rill__gpu_cull *g = r->gpu_cull;
    const gc_view *v = view_culled(g, vs->index);
    if (!v) {
        return false;
    }
    out->cmds = v->cmds;
    out->instances = v->out;
    out->ncmds = g->ncmds;
    out->lists = v->nlists;
    out->late = v->late;
    out->runs_mat = g->runs_mat.data;
    out->nruns_mat = g->runs_mat.len;
    out->runs_shape = g->runs_shape.data;
    out->nruns_shape = g->runs_shape.len;
    out->compact = v->compacted ? v->compact : NULL;
    out->draw_counts = v->draw_counts;
    out->nruns = g->runs_geo.len + g->runs_shape.len + g->runs_mat.len;
    out->runs_geo = g->runs_geo.data;
    out->nruns_geo = g->runs_geo.len;
    return true;
}

void rill__gpu_cull_view_info(const rill_renderer *r, uint32_t view, rill__gpu_cull_stats *out) {
    memset(out, 0, sizeof(*out));
    const rill__gpu_cull *g = r->gpu_cull;
    if (!g) {
        return;
    }
    out->active = g->active;
    out->resident = g->live;
    out->groups = g->ncmds;
    out->deltas = g->deltas_last;
    out->resolved = g->resolved;
    out->spawned = g->spawned;
    out->scan_ms = g->scan_ms;
    out->quiet = g->quiet;
    out->mapped = g->mapped;
    out->runs_mat = g->runs_mat.len;
    out->runs_shape = g->runs_shape.len;
    out->runs_geo = g->runs_geo.len;
    out->arena_bytes = rill__gc_arena_bytes(g->arena);
    out->arena_meshes = rill__gc_arena_meshes(g->arena);
    out->views = g->active ? g->views_culled : 0u;
    for (uint32_t k = 0; k < RILL_RENDER_MAX_VIEWS; k++) {
        out->view_slots += g->views[k].out != NULL;
    }
    const gc_view *v = view < RILL_RENDER_MAX_VIEWS && g->slot_of[view] != GC_NONE
                           ? &g->views[g->slot_of[view]]
                           : NULL;
    if (v && g->active && v->culled == g->frame) {
        out->lists = v->lists;
        out->compacted = v->compacted;
        out->occluding = v->late != 0;
        out->occlusion_reset = out->occluding && v->occl_reset;
    }
}

void rill__gpu_cull_info(const rill_renderer *r, rill__gpu_cull_stats *out) {
    rill__gpu_cull_view_info(r, 0, out);
}

bool rill__gpu_cull_occlusion(rill_renderer *r, rill__cmd *cmd, const rill__view *vs,
                              rill__img *depth) {
    rill__gpu_cull *g = r->gpu_cull;
    gc_view *v = (gc_view *)view_culled(g, vs->index);
    if (!v || !v->late || !depth) {
        return false;
    }
    const rill__binding *cs = v->cull_set;
    rill__gc_occl_in in = {cs[1], cs[2],   cs[3],    cs[4],    cs[5],
                           cs[7], v->late, g->ncmds, g->total, g->slots.len};
    if (rill__gc_occl_record(r, v->occl, cmd, vs, depth, &in) != RILL_OK) {
        /* Phase 2 could not run: nothing was appended to its list, and the instances phase 1
         * did not draw are missing from this frame; the next frame forgets the results. */
        RILL_LOG_WARN("render", "GPU culling's occlusion test could not be recorded");
        return false;
    }
    /* The phase-2 list's commands compacted and its instances counted, as the cull does for
     * the other lists. */
    rill__cmd_bind_pipe(cmd, cull_pipe(r));
    if (rill__cmd_bind_transient_set(cmd, 0, v->cull_set, 11) != RILL_OK) {
        return false;
    }
    if (v->compacted) {
        gc_dispatch_range(cmd, 4, v->late * g->ncmds, (v->late + 1u) * g->ncmds);
        rill__cmd_compute_barrier(cmd);
    }
    gc_dispatch_range(cmd, 3, v->late, v->late + 1u);
    rill__cmd_indirect_barrier(cmd);
    return true;
}

uint32_t rill__gpu_cull_view_flags(const rill_renderer *r, uint32_t view, uint64_t id) {
    const rill__gpu_cull *g = r->gpu_cull;
    uint64_t v;
    if (!g || !g->readback || view >= RILL_RENDER_MAX_VIEWS || g->slot_of[view] == GC_NONE ||
        !g->views[g->slot_of[view]].flags || !rill_map_get(&g->by_id, id, &v)) {
        return UINT32_MAX;
    }
    const uint32_t *f = rill__buf_map(g->views[g->slot_of[view]].flags);
    return f ? f[v] : UINT32_MAX;
}

uint32_t rill__gpu_cull_flags(const rill_renderer *r, uint64_t id) {
    return rill__gpu_cull_view_flags(r, 0, id);
}
