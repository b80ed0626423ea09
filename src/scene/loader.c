/* loader.c: scene loading into a world: synchronous loads, async main-scene loads with a shared
 * per-frame budget, and scene-instance loads/unloads for the streamer (docs/scenes.md).
 *
 * A load goes PARSING (a worker reads the file through the VFS, parses and binds it, expanding
 * non-streamed instances) -> SPAWNING (the main thread spawned every entity empty in one pass,
 * and applies components entity by entity within the budget) -> LOADED, or FAILED / CANCELLED.
 * The worker only fills its load_job; the main thread notices `done` in rill_scene_loader_update,
 * so the loader does not depend on who drains the job system's main-thread queue.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_BUDGET_NS 3000000ull
#define DEFAULT_MAX_LOADS 64u
#define PREFAULT_STEP 8192u /* GlobalTransforms (64 bytes each) mapped per budgeted step */
/* Work per budget check in the steps that are not one entity: each slice costs well under a
 * tenth of a millisecond on the development machine, so no step overshoots the budget by more. */
#define SPAWN_STEP 16384u /* entities spawned empty */
#define COUNT_STEP 65536u /* bound components or entities counted for the reservation */
/* Entities of a retired scene despawned together: each despawn runs the remove hooks (models, LOD,
 * texture users, render assets), so a batch is the loader's overshoot past its budget; 128 keep it
 * well under a millisecond. */
#define RETIRE_CHUNK 128u

/* Worker-side state of one read + parse + bind. Owned by its record while the record waits for
 * it; a cancelled record hands it to the loader's orphan list until the worker is done. */
typedef struct load_job {
    char *path;
    scene_types *types;
    bind_opts opts;
    _Atomic bool cancel;
    _Atomic bool done; /* set at the end of job_run; enough only when it ran inline */
    bool queued;       /* handed to rill_jobs_run: then only `counter` says it is over */
    rill_counter counter;
    rill_result result;
    rill_error err;
    bound_scene bound;
} load_job;

/* One entity of the walk over a replaced scene: `next` is the child to visit next. */
typedef struct retire_node {
    rill_entity e, next;
} retire_node;

typedef struct load_rec {
    uint32_t id; /* this record's handle id (0 when the slot is free) */
    rill_scene_load_state state;
    rill_result code; /* failure code */
    bool is_main;
    rill_entity root;
    char *path;
    load_job *job;
    bound_scene bound;
    scene_types *types;
    rill_entity *spawned; /* total entries; the first spawn_pos are spawned, the rest 0 */
    uint32_t total, applied, spawn_pos;
    float progress;
    char *error;
    uint32_t warnings;
    uint64_t finish_seq;
    uint64_t spawned_in; /* the update that spawned the entities (no applying in that one) */
    /* Storage reservation, done in budgeted steps before the first entity is applied: counts[c]
     * = components c the load adds (NULL until counted), next_reserve = the next id to reserve. */
    uint32_t *counts;
    uint32_t count_len;
    uint32_t count_comp_pos, count_ent_pos; /* counting, a slice per step */
    bool counted;
    uint32_t next_reserve;
    bool reserved;
    bool prefault_started;
    uint32_t prefault_pos, prefault_left; /* GlobalTransform elements still to prefault */
    bool complete_next;            /* all applied; completes at the start of the next update */
    RILL_ARRAY(rill_entity) roots; /* roots applied so far (main loads), the next main_roots */
} load_rec;

/* Memory of a finished load handed to a worker to free: releasing tens of megabytes returns
 * pages to the OS, which costs milliseconds that no frame should pay. */
typedef struct load_trash {
    bound_scene bound;
    rill_entity *spawned;
    rill_counter counter;
} load_trash;

struct rill_scene_loader {
    rill_world *world;
    rill_vfs *vfs;
    rill_jobs *jobs;
    rill_clock clock;
    uint64_t budget_ns;
    rill_scene_read_desc read;
    rill_pool pool;
    load_rec *recs;                     /* indexed by pool slot */
    RILL_ARRAY(uint32_t) active;        /* handle ids of loads in flight, oldest first */
    RILL_ARRAY(load_job *) orphans;     /* jobs of cancelled loads whose worker still runs */
    RILL_ARRAY(load_trash *) trash;     /* memory being freed by a worker */
    uint32_t main_pending;              /* handle id of the main load in flight, 0 = none */
    RILL_ARRAY(rill_entity) main_roots; /* roots of the current main scene */
    char *main_path;                    /* its file (NULL until one completes) */
    /* Replaced main scenes on their way out: their roots, the next one to take, and the walk
     * that lists their entities leaves first (see retire_step). */
    RILL_ARRAY(rill_entity) retiring;
    uint32_t retire_pos;
    RILL_ARRAY(retire_node) retire_stack;
    RILL_ARRAY(rill_entity) retire_chunk;
    scene_types *types;
    rill_event ev_loaded, ev_failed;
    rill_scene_components comps;
    uint64_t finish_counter;
    uint64_t update_count;
};

const char *rill_scene_load_state_name(rill_scene_load_state state) {
    switch (state) {
        RILL_SCENE_LOAD_STATE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "invalid";
    }
}

rill_scene_loader_desc rill_scene_loader_query_defaults(void) {
    rill_scene_loader_desc d = {0};
    d.budget_ns = DEFAULT_BUDGET_NS;
    d.max_loads = DEFAULT_MAX_LOADS;
    d.read.max_instance_depth = (uint32_t)RILL_MIN(rill_limit_get(RILL_LIMIT_SCENE_DEPTH), 63u);
    d.read.max_entities =
        (uint32_t)RILL_MIN(rill_limit_get(RILL_LIMIT_SCENE_ENTITIES), (uint64_t)UINT32_MAX);
    return d;
}

static load_rec *rec_get(const rill_scene_loader *ld, uint32_t id) {
    if (!ld) {
        return NULL;
    }
    int32_t idx = rill_pool_index(&ld->pool, id);
    return idx < 0 ? NULL : &ld->recs[idx];
}

/* >>jobs -------------------------------------------------------------------------------------- */

static void job_free(load_job *job) {
    if (!job) {
        return;
    }
    rill__bound_free(&job->bound);
    rill__scene_types_release(job->types);
    rill_free(job->path);
    rill_free(job);
}

/* Worker: read, parse, bind. Touches only the job. */
static void job_run(void *arg) {
    load_job *job = arg;
    char *text = NULL;
    size_t len = 0;
    rsn_doc doc;
    job->result = RILL_OK;
    if (atomic_load(&job->cancel)) {
        job->result = rill_error_set(&job->err, RILL_ERR_CANCELLED, "%s: cancelled", job->path);
    } else {
        job->result = rill__scene_read_file(job->opts.vfs, job->path, &text, &len, &job->err);
    }
    if (job->result == RILL_OK) {
        job->result = rill__rsn_parse_owned(&doc, job->path, text, len, &job->err);
        if (job->result == RILL_OK) {
            job->result =
                rill__scene_bind(job->types, &job->opts, &doc, job->path, &job->bound, &job->err);
            rill__rsn_doc_free(&doc);
        }
    }
    atomic_store(&job->done, true);
}

/* True when the job's worker is completely finished with it (its memory may be freed). The
 * counter is decremented after job_run returns, so for queued jobs `done` alone is not enough. */
static bool job_finished(load_job *job) {
    return job->queued ? rill_counter_done(&job->counter) : atomic_load(&job->done);
}

static scene_types *current_types(rill_scene_loader *ld) {
    if (!ld->types || ld->types->world_component_count != rill_world_component_count(ld->world)) {
        scene_types *t = rill__scene_types_create(ld->world);
        if (!t) {
            return NULL;
        }
        rill__scene_types_release(ld->types);
        ld->types = t;
    }
    return ld->types;
}

/* >>records ----------------------------------------------------------------------------------- */

static void rec_clear(load_rec *r) {
    rill__bound_free(&r->bound);
    rill__scene_types_release(r->types);
    rill_free(r->spawned);
    rill_free(r->counts);
    rill_array_free(&r->roots);
    rill_free(r->error);
    rill_free(r->path);
    memset(r, 0, sizeof *r);
}

static void active_remove(rill_scene_loader *ld, uint32_t id) {
    for (uint32_t i = 0; i < ld->active.len; i++) {
        if (ld->active.data[i] == id) {
            memmove(&ld->active.data[i], &ld->active.data[i + 1],
                    (ld->active.len - i - 1u) * sizeof(uint32_t));
            ld->active.len--;
            break;
        }
    }
    if (ld->main_pending == id) {
        ld->main_pending = 0;
    }
}

/* Detaches the record's job: freed now when its worker is done, else parked as an orphan. */
static void rec_drop_job(rill_scene_loader *ld, load_rec *r) {
    load_job *job = r->job;
    r->job = NULL;
    if (!job) {
        return;
    }
    atomic_store(&job->cancel, true);
    if (!job->queued || job_finished(job)) {
        job_free(job);
    } else if (!rill_array_push(&ld->orphans, job)) {
        rill_jobs_wait(ld->jobs, &job->counter); /* no memory to park it: wait instead */
        job_free(job);
    }
}

static void trash_run(void *arg) {
    load_trash *t = arg;
    rill__bound_free(&t->bound);
    rill_free(t->spawned);
    t->spawned = NULL;
}

/* Frees the record's bound scene and entity list: on a worker when there is a threaded job
 * system (the trash record itself is freed by a later update), else right here. */
static void rec_free_bulk(rill_scene_loader *ld, load_rec *r) {
    load_trash *t = NULL;
    if (ld->jobs && !rill_jobs_is_deterministic(ld->jobs) && r->total >= 1024u) {
        t = rill_calloc_tagged(1, sizeof *t, RILL_MEM_SCENE);
        if (t && !rill_array_push(&ld->trash, t)) {
            rill_free(t);
            t = NULL;
        }
    }
    if (t) {
        t->bound = r->bound;
        t->spawned = r->spawned;
        memset(&r->bound, 0, sizeof r->bound);
        r->spawned = NULL;
        rill_jobs_run(ld->jobs, trash_run, t, &t->counter);
        return;
    }
    rill__bound_free(&r->bound);
    rill_free(r->spawned);
    r->spawned = NULL;
}

static void rec_finish(rill_scene_loader *ld, uint32_t id, load_rec *r,
                       rill_scene_load_state state) {
    r->state = state;
    r->finish_seq = ++ld->finish_counter;
    active_remove(ld, id);
    rec_free_bulk(ld, r);
    rill_free(r->counts);
    r->counts = NULL;
    rill_array_free(&r->roots);
    rill__scene_types_release(r->types);
    r->types = NULL;
}

static void send_event(rill_scene_loader *ld, rill_event ev, uint32_t id, const load_rec *r) {
    rill_scene_event e = {
        .load = {id}, .root = r->root, .entity_count = r->total, .is_main = r->is_main};
    rill_world_send_event(ld->world, ev, &e);
}

static void rec_fail(rill_scene_loader *ld, uint32_t id, load_rec *r, rill_result code,
                     const char *msg) {
    r->code = code == RILL_OK ? RILL_ERR_PARSE : code;
    rill_free(r->error);
    r->error = rill_strdup(msg && *msg ? msg : "scene load failed");
    RILL_LOG_ERROR(SCENE_LOG, "%s", r->error ? r->error : "scene load failed");
    /* Entities of a failed load never stay behind (one batch: see rill_world_despawn_recursive). */
    if (r->spawned) {
        rill_world_despawn_recursive_n(ld->world, r->spawned, r->total);
    }
    rec_finish(ld, id, r, RILL_SCENE_LOAD_FAILED);
    send_event(ld, ld->ev_failed, id, r);
}

/* Queues a replaced scene's roots for retire_step. Without memory for the queue they go at once,
 * as one batch. */
static void retire_roots(rill_scene_loader *ld, const rill_entity *roots, uint32_t n) {
    if (n == 0) {
        return;
    }
    rill_entity *slot = rill_array_push_n(&ld->retiring, n);
    if (!slot) {
        rill_world_despawn_recursive_n(ld->world, roots, n);
        return;
    }
    memcpy(slot, roots, (size_t)n * sizeof(rill_entity));
}

/* Cancels a load in flight and queues its partial entities for the budgeted retire batches
 * instead of despawning them now: with whatever got attached below them (model trees), a partly
 * applied district is thousands of entities. Entries not spawned yet are 0 and skipped. */
static void rec_cancel_retire(rill_scene_loader *ld, uint32_t id, load_rec *r) {
    rec_drop_job(ld, r);
    if (r->spawned) {
        retire_roots(ld, r->spawned, r->spawn_pos);
    }
    rec_finish(ld, id, r, RILL_SCENE_LOAD_CANCELLED);
}

/* Recursive despawns: whatever got attached under a cancelled load's entities (a streamed
 * instance's contents, say) goes with them instead of being left as orphaned roots. */
static void rec_cancel(rill_scene_loader *ld, uint32_t id, load_rec *r) {
    rec_drop_job(ld, r);
    if (r->spawned) {
        rill_world_despawn_recursive_n(ld->world, r->spawned, r->total);
    }
    rec_finish(ld, id, r, RILL_SCENE_LOAD_CANCELLED);
}

/* Lists up to RETIRE_CHUNK entities of the scenes being retired, leaves first (every entity after
 * all its children), and despawns them as one batch. The walk keeps a stack of the ancestors it is
 * inside; each step restarts their child cursors from their first child, since the children
 * listed by earlier steps are gone. A small batch erases entity by entity in each storage (no
 * compaction pass over whole storages), so a step costs about the same whatever the world's size.
 * Returns true while entities remain. */
static bool retire_step(rill_scene_loader *ld) {
    rill_world *w = ld->world;
    /* Drop ancestors that died meanwhile (with whatever is above them on the stack). */
    for (uint32_t k = 0; k < ld->retire_stack.len; k++) {
        if (!rill_world_is_alive(w, ld->retire_stack.data[k].e)) {
            ld->retire_stack.len = k;
            break;
        }
        ld->retire_stack.data[k].next = rill_world_first_child(w, ld->retire_stack.data[k].e);
    }
    ld->retire_chunk.len = 0;
    while (ld->retire_chunk.len < RETIRE_CHUNK) {
        if (ld->retire_stack.len == 0) {
            if (ld->retire_pos >= ld->retiring.len) {
                break;
            }
            rill_entity root = ld->retiring.data[ld->retire_pos++];
            if (!rill_world_is_alive(w, root)) {
                continue;
            }
            retire_node n = {root, rill_world_first_child(w, root)};
            if (!rill_array_push(&ld->retire_stack, n)) {
                rill_world_despawn_recursive(w, root); /* no memory to walk it: all at once */
            }
            continue;
        }
        retire_node *top = &ld->retire_stack.data[ld->retire_stack.len - 1u];
        if (top->next != RILL_ENTITY_NULL) {
            rill_entity c = top->next;
            top->next = rill_world_next_sibling(w, c);
            retire_node n = {c, rill_world_first_child(w, c)};
            if (!rill_array_push(&ld->retire_stack, n)) {
                break; /* the next step walks it again */
            }
            continue;
        }
        if (!rill_array_push(&ld->retire_chunk, top->e)) {
            break;
        }
        ld->retire_stack.len--;
    }
    rill_world_despawn_recursive_n(w, ld->retire_chunk.data, ld->retire_chunk.len);
    bool more = ld->retire_stack.len > 0 || ld->retire_pos < ld->retiring.len;
    if (!more) {
        /* The queue drained: what a big unload made it hold goes back (rill_array_trim). */
        rill_array_trim(&ld->retiring, ld->retiring.len, 512u);
        ld->retiring.len = 0;
        ld->retire_pos = 0;
    }
    return more;
}

static void rec_complete(rill_scene_loader *ld, uint32_t id, load_rec *r) {
    r->progress = 1.0f;
    if (r->is_main) {
        /* The previous main scene starts to go in the update the new one completes, so there is
         * no frame without a scene: in budgeted slices from then on (retire_step), all of it in
         * that same update when it fits. Streamed instance contents under it go too. The new
         * roots were collected while applying. */
        retire_roots(ld, ld->main_roots.data, ld->main_roots.len);
        rill_array_free(&ld->main_roots);
        ld->main_roots.data = r->roots.data;
        ld->main_roots.len = r->roots.len;
        ld->main_roots.cap = r->roots.cap;
        memset(&r->roots, 0, sizeof r->roots);
        char *path = rill_strdup(r->path);
        if (path) { /* without memory the old name stays: only the cycle check reads it */
            rill_free(ld->main_path);
            ld->main_path = path;
        }
    }
    rec_finish(ld, id, r, RILL_SCENE_LOAD_LOADED);
    send_event(ld, ld->ev_loaded, id, r);
}

/* One slice of counting the components the load adds (bound components, then names and parent
 * links per entity); the last slice turns the counts into what the reservation needs. */
static bool count_step(rill_scene_loader *ld, load_rec *r) {
    if (!r->counts) {
        uint32_t n = rill_world_component_count(ld->world);
        r->counts = rill_calloc_tagged(n + 1u, sizeof(uint32_t), RILL_MEM_SCENE);
        if (!r->counts) { /* only an optimization */
            r->reserved = true;
            return false;
        }
        r->count_len = n + 1u;
    }
    uint32_t nc = r->count_len - 1u;
    const rill_builtins *bi = rill_world_builtin(ld->world);
    uint32_t *counts = r->counts;
    if (r->count_comp_pos < r->bound.comps.len) {
        uint32_t end = RILL_MIN(r->bound.comps.len, r->count_comp_pos + COUNT_STEP);
        for (uint32_t i = r->count_comp_pos; i < end; i++) {
            rill_component c = r->bound.comps.data[i].comp;
            if (c.id <= nc) {
                counts[c.id]++;
            }
        }
        r->count_comp_pos = end;
        return true;
    }
    if (r->count_ent_pos < r->total) {
        uint32_t end = RILL_MIN(r->total, r->count_ent_pos + COUNT_STEP);
        for (uint32_t i = r->count_ent_pos; i < end; i++) {
            const bound_entity *be = &r->bound.ents.data[i];
            if (be->name && bi->name.id <= nc) {
                counts[bi->name.id]++;
            }
            if ((be->parent != RSN_NONE_INDEX || r->root) && bi->parent.id <= nc) {
                counts[bi->parent.id]++;
                counts[bi->children.id]++; /* an upper bound on new parents */
            }
        }
        r->count_ent_pos = end;
        return true;
    }
    /* Transform propagation adds a GlobalTransform to each new Transform. */
    if (bi->transform.id <= nc && bi->global_transform.id <= nc) {
        counts[bi->global_transform.id] += counts[bi->transform.id];
        r->prefault_left = counts[bi->transform.id];
    }
    r->next_reserve = 1;
    r->counted = true;
    return true;
}

/* One step of growing the storage of every component the load will add, before its first entity
 * is applied. Otherwise a component's dense arrays double in the middle of some budgeted frame,
 * and that one entity's copy of a large array overshoots the budget by far more than an entity's
 * usual cost. The first steps count; each later step reserves one component (a large world's
 * sparse arrays take a fraction of a millisecond each to grow), so the steps fit in the budget
 * instead of adding to the spawn frame. Returns false once everything is reserved. */
static bool reserve_step(rill_scene_loader *ld, load_rec *r) {
    if (r->reserved) {
        return false;
    }
    if (!r->counted) {
        return count_step(ld, r);
    }
    while (r->next_reserve < r->count_len && !r->counts[r->next_reserve]) {
        r->next_reserve++;
    }
    if (r->next_reserve >= r->count_len && r->prefault_left > 0) {
        /* GlobalTransforms are written as each entity is applied (apply_next): map their pages
         * here, a slice per step, so the applying frames do not pay the page faults of the whole
         * load's new storage on top of their entities (on the development machine they were half
         * the cost of computing the matrices). */
        rill_component gt = rill_world_builtin(ld->world)->global_transform;
        if (!r->prefault_started) {
            r->prefault_pos = rill_world_component_len(ld->world, gt);
            r->prefault_started = true;
        }
        uint32_t n = RILL_MIN(r->prefault_left, PREFAULT_STEP);
        rill_world_component_prefault(ld->world, gt, r->prefault_pos, n);
        r->prefault_pos += n;
        r->prefault_left -= n;
        return true;
    }
    if (r->next_reserve >= r->count_len) {
        rill_free(r->counts);
        r->counts = NULL;
        r->reserved = true;
        return false;
    }
    rill_component c = {r->next_reserve++};
    uint32_t want = rill_world_component_len(ld->world, c) + r->counts[c.id];
    rill_world_component_reserve(ld->world, c, want);
    return true;
}

/* Names an entity placed out of the world (rill/world.h: its matrix not finite or beyond
 * RILL_WORLD_LIMIT): extract does not draw it or its subtree. Only the topmost such entity is
 * named; its children inherit the matrix and would repeat the warning. */
static void check_placed(rill_scene_loader *ld, load_rec *r, rill_entity e) {
    rill_component gt = rill_world_builtin(ld->world)->global_transform;
    const rill_global_transform *xf = rill_world_get(ld->world, e, gt);
    if (!xf || rill_mat4_in_world_limit(xf->m)) {
        return;
    }
    const rill_global_transform *pxf =
        rill_world_get(ld->world, rill_world_get_parent(ld->world, e), gt);
    if (pxf && !rill_mat4_in_world_limit(pxf->m)) {
        return;
    }
    const char *name = rill_world_get_name(ld->world, e);
    RILL_LOG_WARN(SCENE_LOG,
                  "%s: entity %u:%u%s%s%s: its world transform is not finite or beyond +-%g "
                  "(translation (%g, %g, %g)): it and its children are skipped (not drawn; a "
                  "camera or light there is ignored)",
                  r->path, RILL_ENTITY_INDEX(e), RILL_ENTITY_GENERATION(e), name ? " (" : "",
                  name ? name : "", name ? ")" : "", (double)RILL_WORLD_LIMIT, (double)xf->m[12],
                  (double)xf->m[13], (double)xf->m[14]);
    r->warnings++;
}

/* Applies entity r->applied; a main load also records the new scene's roots as it goes, so the
 * completing update does not walk every entity again. */
static void apply_next(rill_scene_loader *ld, load_rec *r) {
    uint32_t i = r->applied;
    rill__scene_apply_entity(ld->world, r->types, &r->bound, i, r->spawned,
                             r->is_main ? RILL_ENTITY_NULL : r->root);
    /* Its GlobalTransform now, inside the budget, rather than in the frame's transform pass,
     * which would otherwise compute a whole frame's worth of new entities on top of it. */
    rill_world_update_transforms_of(ld->world, &r->spawned[i], 1);
    check_placed(ld, r, r->spawned[i]);
    if (r->is_main && r->bound.ents.data[i].parent == RSN_NONE_INDEX) {
        if (!rill_array_push(&r->roots, r->spawned[i])) {
            RILL_LOG_ERROR(SCENE_LOG, "%s: out of memory listing the scene's roots", r->path);
        }
    }
    r->applied++;
}

/* Parse finished: take the bound scene; its entities are then spawned empty, in budgeted slices
 * (spawn_step), before any component is applied. */
static void spawn_failed(rill_scene_loader *ld, uint32_t id, load_rec *r) {
    char msg[RILL_ERROR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s: out of memory spawning %u entities", r->path, r->total);
    rec_fail(ld, id, r, RILL_ERR_OUT_OF_MEMORY, msg);
}

static void rec_parsed(rill_scene_loader *ld, uint32_t id, load_rec *r) {
    load_job *job = r->job;
    r->job = NULL;
    if (job->result != RILL_OK) {
        rec_fail(ld, id, r, job->result, job->err.msg);
        job_free(job);
        return;
    }
    r->bound = job->bound;
    memset(&job->bound, 0, sizeof job->bound);
    r->warnings = r->bound.warnings;
    r->types = job->types;
    job->types = NULL;
    job_free(job);
    r->total = r->bound.ents.len;
    if (r->total) {
        /* Zeroed: entries not spawned yet read as RILL_ENTITY_NULL to a cancel or failure. */
        r->spawned = rill_calloc_tagged(r->total, sizeof(rill_entity), RILL_MEM_SCENE);
        if (!r->spawned) {
            spawn_failed(ld, id, r);
            return;
        }
    }
    r->state = RILL_SCENE_LOAD_SPAWNING;
    r->progress = 0.10f;
    r->spawned_in = ld->update_count;
}

/* Spawns the next slice of the load's entities, empty. Returns false when the record failed (out
 * of memory; it has left the active list then). The update that spawns the last slice applies
 * nothing of this load, as before. */
static bool spawn_step(rill_scene_loader *ld, uint32_t id, load_rec *r) {
    uint32_t n = RILL_MIN(SPAWN_STEP, r->total - r->spawn_pos);
    if (rill_world_spawn_n(ld->world, n, r->spawned + r->spawn_pos) != n) {
        spawn_failed(ld, id, r);
        return false;
    }
    r->spawn_pos += n;
    r->spawned_in = ld->update_count;
    return true;
}

static uint32_t rec_alloc(rill_scene_loader *ld, rill_error *err) {
    uint32_t id = rill_pool_alloc(&ld->pool);
    if (!id) {
        /* Recycle the oldest finished record. */
        uint64_t best = UINT64_MAX;
        uint32_t best_slot = UINT32_MAX;
        for (uint32_t s = 0; s < ld->pool.capacity; s++) {
            load_rec *r = &ld->recs[s];
            bool finished = r->state == RILL_SCENE_LOAD_LOADED ||
                            r->state == RILL_SCENE_LOAD_FAILED ||
                            r->state == RILL_SCENE_LOAD_CANCELLED;
            if (finished && r->finish_seq < best) {
                best = r->finish_seq;
                best_slot = s;
            }
        }
        if (best_slot == UINT32_MAX) {
            rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "scene loader: %u loads in flight",
                           ld->pool.capacity);
            return 0;
        }
        uint32_t old_id = ld->recs[best_slot].id;
        rec_clear(&ld->recs[best_slot]);
        rill_pool_free(&ld->pool, old_id);
        id = rill_pool_alloc(&ld->pool);
        if (!id) {
            rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "scene loader: no free load record");
            return 0;
        }
    }
    load_rec *r = rec_get(ld, id);
    if (!r) {
        return 0;
    }
    memset(r, 0, sizeof *r);
    r->id = id;
    return id;
}

/* Starts a load: a record in PARSING with its job queued (or to be run by update). */
static uint32_t start_load(rill_scene_loader *ld, const char *path, bool is_main, rill_entity root,
                           bool queue, rill_error *err) {
    char norm[RILL_VFS_PATH_MAX + 1];
    if (!path || !*path) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "scene load: no path");
        return 0;
    }
    if (ld->vfs) {
        if (!rill_path_normalize(norm, sizeof norm, path)) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: not a valid project path", path);
            return 0;
        }
    } else {
        if (strlen(path) >= sizeof norm) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "scene path too long");
            return 0;
        }
        strcpy(norm, path);
    }
    scene_types *types = current_types(ld);
    if (!types) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "scene load: out of memory");
        return 0;
    }
    uint32_t id = rec_alloc(ld, err);
    if (!id) {
        return 0;
    }
    load_rec *r = rec_get(ld, id);
    load_job *job = rill_calloc_tagged(1, sizeof *job, RILL_MEM_SCENE);
    r->path = rill_strdup(norm);
    if (!job || !r->path || !rill_array_push(&ld->active, id)) {
        rill_free(job);
        rec_clear(r);
        rill_pool_free(&ld->pool, id);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "scene load: out of memory");
        return 0;
    }
    job->path = rill_strdup(norm);
    rill__scene_types_retain(types);
    job->types = types;
    job->opts = (bind_opts){
        .vfs = ld->vfs,
        .check_assets = true,
        .expand_instances = true,
        .lossy = ld->read.lossy,
        .strict = ld->read.strict,
        .max_depth = ld->read.max_instance_depth,
        .max_entities = ld->read.max_entities,
        .cancel = &job->cancel,
    };
    r->state = RILL_SCENE_LOAD_PARSING;
    r->is_main = is_main;
    r->root = root;
    r->job = job;
    if (!job->path) {
        job->result = rill_error_set(&job->err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        atomic_store(&job->done, true);
    } else if (queue && ld->jobs) {
        job->queued = true;
        rill_jobs_run(ld->jobs, job_run, job, &job->counter);
    }
    return id;
}

/* >>public ------------------------------------------------------------------------------------ */

rill_scene_loader *rill_scene_loader_create(const rill_scene_loader_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_scene_loader_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->world) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scene_loader_create: no world");
        return NULL;
    }
    rill_scene_loader_desc d = rill_scene_loader_query_defaults();
    rill_scene_loader *ld = rill_calloc_tagged(1, sizeof *ld, RILL_MEM_SCENE);
    if (!ld) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_scene_loader_create: out of memory");
        return NULL;
    }
    ld->world = desc->world;
    ld->vfs = desc->vfs;
    ld->jobs = desc->jobs;
    ld->clock = desc->clock;
    ld->budget_ns = desc->budget_ns ? desc->budget_ns : d.budget_ns;
    ld->read = desc->read;
    if (!ld->read.max_instance_depth) {
        ld->read.max_instance_depth = d.read.max_instance_depth;
    }
    if (!ld->read.max_entities) {
        ld->read.max_entities = d.read.max_entities;
    }
    uint32_t cap = desc->max_loads ? desc->max_loads : d.max_loads;
    ld->comps = rill_scene_register(ld->world);
    ld->ev_loaded = rill_world_register_event(ld->world, "SceneLoaded", sizeof(rill_scene_event));
    ld->ev_failed =
        rill_world_register_event(ld->world, "SceneLoadFailed", sizeof(rill_scene_event));
    ld->recs = rill_calloc_tagged(cap, sizeof *ld->recs, RILL_MEM_SCENE);
    if (!ld->recs || rill_pool_init(&ld->pool, cap) != RILL_OK || !ld->comps.instance.id ||
        !ld->ev_loaded.id || !ld->ev_failed.id) {
        rill_free(ld->recs);
        rill_pool_destroy(&ld->pool);
        rill_free(ld);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_scene_loader_create: out of memory");
        return NULL;
    }
    return ld;
}

void rill_scene_loader_destroy(rill_scene_loader *ld) {
    if (!ld) {
        return;
    }
    while (ld->active.len) {
        uint32_t id = ld->active.data[0];
        rec_cancel(ld, id, rec_get(ld, id));
    }
    for (uint32_t i = 0; i < ld->orphans.len; i++) {
        if (ld->jobs) {
            rill_jobs_wait(ld->jobs, &ld->orphans.data[i]->counter);
        }
        job_free(ld->orphans.data[i]);
    }
    for (uint32_t i = 0; i < ld->trash.len; i++) {
        rill_jobs_wait(ld->jobs, &ld->trash.data[i]->counter);
        rill_free(ld->trash.data[i]);
    }
    for (uint32_t s = 0; s < ld->pool.capacity; s++) {
        rec_clear(&ld->recs[s]);
    }
    rill_array_free(&ld->active);
    rill_array_free(&ld->orphans);
    rill_array_free(&ld->trash);
    while (retire_step(ld)) { /* replaced scenes still on their way out go now */
    }
    rill_array_free(&ld->main_roots);
    rill_free(ld->main_path);
    rill_array_free(&ld->retiring);
    rill_array_free(&ld->retire_stack);
    rill_array_free(&ld->retire_chunk);
    rill__scene_types_release(ld->types);
    rill_pool_destroy(&ld->pool);
    rill_free(ld->recs);
    rill_free(ld);
}

void rill_scene_loader_set_budget(rill_scene_loader *ld, uint64_t budget_ns) {
    if (ld) {
        ld->budget_ns = budget_ns ? budget_ns : DEFAULT_BUDGET_NS;
    }
}

void rill_scene_loader_set_strict(rill_scene_loader *ld, bool strict) {
    if (ld) {
        ld->read.strict = strict;
    }
}

void rill_scene_loader_events(const rill_scene_loader *ld, rill_event *out_loaded,
                              rill_event *out_failed) {
    if (out_loaded) {
        *out_loaded = ld ? ld->ev_loaded : RILL_EVENT_NONE;
    }
    if (out_failed) {
        *out_failed = ld ? ld->ev_failed : RILL_EVENT_NONE;
    }
}

/* A new main load replaces the one in flight: its partial entities (with whatever got attached
 * below them) join the budgeted retire queue rather than going in one batch in this call. */
static void cancel_main_pending(rill_scene_loader *ld) {
    if (ld->main_pending) {
        uint32_t id = ld->main_pending;
        rec_cancel_retire(ld, id, rec_get(ld, id));
    }
}

rill_scene_load rill_scene_load_async(rill_scene_loader *ld, const char *path, rill_error *err) {
    rill_scene_load h = {0};
    if (!ld) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scene_load_async: no loader");
        return h;
    }
    cancel_main_pending(ld);
    h.id = start_load(ld, path, true, RILL_ENTITY_NULL, true, err);
    ld->main_pending = h.id;
    return h;
}

/* Runs a PARSING record's job to the end on this thread (sync loads, no job system). */
static void run_job_now(rill_scene_loader *ld, load_rec *r) {
    load_job *job = r->job;
    if (!job) {
        return;
    }
    if (job->queued) {
        rill_jobs_wait(ld->jobs, &job->counter);
    } else if (!atomic_load(&job->done)) {
        job_run(job);
    }
}

rill_result rill_scene_load_sync(rill_scene_loader *ld, const char *path, rill_scene_load *out_load,
                                 rill_error *err) {
    if (out_load) {
        out_load->id = 0;
    }
    if (!ld) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scene_load_sync: no loader");
    }
    cancel_main_pending(ld);
    uint32_t id = start_load(ld, path, true, RILL_ENTITY_NULL, false, err);
    if (!id) {
        return err && err->code ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    if (out_load) {
        out_load->id = id;
    }
    load_rec *r = rec_get(ld, id);
    run_job_now(ld, r);
    rec_parsed(ld, id, r);
    if (r->state == RILL_SCENE_LOAD_FAILED) {
        return rill_error_set(err, r->code, "%s", r->error ? r->error : "load failed");
    }
    while (r->spawn_pos < r->total) {
        if (!spawn_step(ld, id, r)) {
            return rill_error_set(err, r->code, "%s", r->error ? r->error : "load failed");
        }
    }
    while (reserve_step(ld, r)) {
    }
    while (r->applied < r->total) {
        apply_next(ld, r);
    }
    rec_complete(ld, id, r);
    while (retire_step(ld)) { /* a synchronous load replaces the old scene at once */
    }
    return RILL_OK;
}

static bool find_instance_pending(const rill_scene_loader *ld, rill_entity root, uint32_t *out) {
    for (uint32_t i = 0; i < ld->active.len; i++) {
        const load_rec *r = rec_get(ld, ld->active.data[i]);
        if (r && !r->is_main && r->root == root) {
            *out = ld->active.data[i];
            return true;
        }
    }
    return false;
}

/* A streamed instance inside the content of another instance of the same file (a scene that
 * streams itself, or A streams B streams A), or of the main scene's file, would load copies of
 * itself without end, and instances nested deeper than max_instance_depth are refused like
 * non-streamed ones: false with RILL_ERR_LIMIT. The ancestors' SceneInstance components say which
 * files are open above, the main scene's path the file at the top. */
static bool instance_nesting_ok(rill_scene_loader *ld, rill_entity root, const char *scene,
                                rill_error *err) {
    if (ld->main_path && strcmp(ld->main_path, scene) == 0) {
        rill_error_set(err, RILL_ERR_LIMIT,
                       "scene instance \"%s\" not loaded: it is the main scene (cycle)", scene);
        return false;
    }
    uint32_t depth = 0;
    for (rill_entity a = rill_world_get_parent(ld->world, root); a;
         a = rill_world_get_parent(ld->world, a)) {
        const rill_scene_instance *up = rill_world_get(ld->world, a, ld->comps.instance);
        if (!up || !up->scene) {
            continue;
        }
        if (strcmp(up->scene, scene) == 0) {
            rill_error_set(err, RILL_ERR_LIMIT,
                           "scene instance \"%s\" not loaded: it instances itself (cycle)", scene);
            return false;
        }
        if (++depth >= ld->read.max_instance_depth) {
            rill_error_set(err, RILL_ERR_LIMIT,
                           "scene instance \"%s\" not loaded: nesting deeper than %u", scene,
                           ld->read.max_instance_depth);
            return false;
        }
    }
    return true;
}

rill_scene_load rill_scene_instance_load(rill_scene_loader *ld, rill_entity root, rill_error *err) {
    rill_scene_load h = {0};
    if (!ld || !rill_world_is_alive(ld->world, root)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "scene instance load: %s",
                       ld ? "root entity is not alive" : "no loader");
        return h;
    }
    const rill_scene_instance *si = rill_world_get(ld->world, root, ld->comps.instance);
    if (!si || !si->scene) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "scene instance load: entity %u:%u has %s",
                       RILL_ENTITY_INDEX(root), RILL_ENTITY_GENERATION(root),
                       si ? "no scene path" : "no SceneInstance");
        return h;
    }
    uint32_t pending;
    if (find_instance_pending(ld, root, &pending)) {
        rill_error_set(err, RILL_ERR_BUSY, "scene instance load: %s is already loading", si->scene);
        return h;
    }
    if (!instance_nesting_ok(ld, root, si->scene, err)) {
        return h;
    }
    h.id = start_load(ld, si->scene, false, root, true, err);
    return h;
}

uint32_t rill_scene_instance_unload(rill_scene_loader *ld, rill_entity root) {
    if (!ld || !rill_world_is_alive(ld->world, root)) {
        return 0;
    }
    uint32_t pending;
    if (find_instance_pending(ld, root, &pending)) {
        rec_cancel(ld, pending, rec_get(ld, pending));
    }
    /* All children's subtrees as one batch (see rill_world_despawn_recursive_n); child by child
     * only when there is no memory for the list. */
    uint32_t n = 0;
    uint32_t count = rill_world_child_count(ld->world, root);
    rill_entity *kids =
        count ? rill_malloc_tagged((size_t)count * sizeof(rill_entity), RILL_MEM_SCENE) : NULL;
    if (kids) {
        count = rill_world_children(ld->world, root, kids, count);
        n = rill_world_despawn_recursive_n(ld->world, kids, count);
        rill_free(kids);
    }
    rill_entity c;
    while ((c = rill_world_first_child(ld->world, root)) != RILL_ENTITY_NULL) {
        uint32_t k = rill_world_despawn_recursive(ld->world, c);
        if (!k) {
            break;
        }
        n += k;
    }
    return n;
}

uint32_t rill_scene_instance_retire(rill_scene_loader *ld, rill_entity root) {
    if (!ld || !rill_world_is_alive(ld->world, root)) {
        return 0;
    }
    uint32_t pending;
    if (find_instance_pending(ld, root, &pending)) {
        rec_cancel_retire(ld, pending, rec_get(ld, pending));
    }
    /* The children join the replaced main scenes' queue: retire_step despawns them in the same
     * budgeted batches, so unloads and swaps share one budget. Without memory for the queue they
     * go at once (rill_scene_instance_unload). */
    uint32_t count = rill_world_child_count(ld->world, root);
    if (count == 0) {
        return 0;
    }
    rill_entity *slot = rill_array_push_n(&ld->retiring, count);
    if (!slot) {
        rill_scene_instance_unload(ld, root);
        return count;
    }
    uint32_t got = rill_world_children(ld->world, root, slot, count);
    ld->retiring.len -= count - (got < count ? got : count);
    return got < count ? got : count;
}

rill_scene_load rill_scene_instance_pending(const rill_scene_loader *ld, rill_entity root) {
    rill_scene_load h = {0};
    uint32_t id;
    if (ld && find_instance_pending(ld, root, &id)) {
        h.id = id;
    }
    return h;
}

bool rill_scene_load_cancel(rill_scene_loader *ld, rill_scene_load load) {
    load_rec *r = rec_get(ld, load.id);
    if (!r || (r->state != RILL_SCENE_LOAD_PARSING && r->state != RILL_SCENE_LOAD_SPAWNING)) {
        return false;
    }
    rec_cancel(ld, load.id, r);
    return true;
}

void rill_scene_load_release(rill_scene_loader *ld, rill_scene_load load) {
    load_rec *r = rec_get(ld, load.id);
    if (!r) {
        return;
    }
    if (r->state == RILL_SCENE_LOAD_PARSING || r->state == RILL_SCENE_LOAD_SPAWNING) {
        rec_cancel(ld, load.id, r);
    }
    rec_clear(r);
    rill_pool_free(&ld->pool, load.id);
}

uint32_t rill_scene_loader_update(rill_scene_loader *ld) {
    if (!ld) {
        return 0;
    }
    uint64_t start = rill_clock_now(&ld->clock);
    ld->update_count++;
    for (uint32_t i = 0; i < ld->trash.len;) {
        if (rill_counter_done(&ld->trash.data[i]->counter)) {
            rill_free(ld->trash.data[i]);
            rill_array_swap_remove(&ld->trash, i);
        } else {
            i++;
        }
    }
    /* Main loads whose last entity was applied in the previous update complete first, before any
     * other work: completing starts retiring the previous main scene, which then has the whole
     * budget of this update. */
    for (uint32_t i = 0; i < ld->active.len;) {
        uint32_t id = ld->active.data[i];
        load_rec *r = rec_get(ld, id);
        if (r->complete_next) {
            rec_complete(ld, id, r); /* leaves the active list */
            continue;
        }
        i++;
    }
    /* Parked jobs of cancelled loads: free the finished ones. */
    for (uint32_t i = 0; i < ld->orphans.len;) {
        if (job_finished(ld->orphans.data[i])) {
            job_free(ld->orphans.data[i]);
            rill_array_swap_remove(&ld->orphans, i);
        } else {
            i++;
        }
    }
    /* Collect finished parses; spawn their entities. Instance loads whose root died are dropped.
     * Iterate over a copy of the id since records may leave the active list. */
    for (uint32_t i = 0; i < ld->active.len;) {
        uint32_t id = ld->active.data[i];
        load_rec *r = rec_get(ld, id);
        if (!r->is_main && !rill_world_is_alive(ld->world, r->root)) {
            rec_cancel(ld, id, r);
            continue;
        }
        if (r->state == RILL_SCENE_LOAD_PARSING) {
            if (!r->job->queued) {
                if (!atomic_load(&r->job->done)) {
                    job_run(r->job);
                }
            } else if (rill_jobs_is_deterministic(ld->jobs)) {
                rill_jobs_wait(ld->jobs, &r->job->counter);
            }
            if (job_finished(r->job)) {
                rec_parsed(ld, id, r);
                if (r->state != RILL_SCENE_LOAD_SPAWNING) {
                    continue; /* failed: left the list */
                }
            }
        }
        i++;
    }
    /* Within the budget shared by all loads: first the replaced main scenes on their way out,
     * then the loads, oldest first: spawning their entities empty, reserving storage, applying
     * components (with the transforms they imply). The clock is read after every entity and
     * every slice of the other steps, so a frame overshoots by at most one such piece of work. A
     * load whose last entities were spawned in this update starts applying in the next one, and
     * the loading bar shows 0.10 meanwhile. */
    uint32_t applied = 0;
    uint64_t now = rill_clock_now(&ld->clock);
    while (now - start < ld->budget_ns && retire_step(ld)) {
        now = rill_clock_now(&ld->clock);
    }
    for (uint32_t i = 0; i < ld->active.len;) {
        uint32_t id = ld->active.data[i];
        load_rec *r = rec_get(ld, id);
        if (r->state != RILL_SCENE_LOAD_SPAWNING || r->complete_next) {
            i++;
            continue;
        }
        bool failed = false;
        while (!failed && r->spawn_pos < r->total && now - start < ld->budget_ns) {
            failed = !spawn_step(ld, id, r);
            now = rill_clock_now(&ld->clock);
        }
        if (failed) {
            continue; /* left the active list */
        }
        if (r->spawn_pos < r->total || (r->spawned_in == ld->update_count && r->total > 0)) {
            if (now - start >= ld->budget_ns) {
                break;
            }
            i++;
            continue;
        }
        while (now - start < ld->budget_ns && reserve_step(ld, r)) {
            now = rill_clock_now(&ld->clock);
        }
        uint32_t before = r->applied;
        while (r->applied < r->total && r->reserved && now - start < ld->budget_ns) {
            apply_next(ld, r);
            applied++;
            now = rill_clock_now(&ld->clock);
        }
        float p = (float)(0.10 + 0.90 * (double)r->applied / (double)(r->total ? r->total : 1));
        if (p > r->progress) {
            r->progress = p;
        }
        if (r->applied == r->total && r->reserved) {
            /* A main load that replaces a scene and applied entities in this update completes at
             * the start of the next one (see above); others complete now. */
            if (r->is_main && ld->main_roots.len > 0 && r->applied > before) {
                r->complete_next = true;
                i++;
                continue;
            }
            rec_complete(ld, id, r); /* leaves the active list */
            continue;
        }
        if (now - start >= ld->budget_ns) {
            break;
        }
        i++;
    }
    return applied;
}

bool rill_scene_loader_retiring(const rill_scene_loader *ld) {
    return ld && (ld->retire_stack.len > 0 || ld->retire_pos < ld->retiring.len);
}

uint32_t rill_scene_loader_pending(const rill_scene_loader *ld) {
    return ld ? ld->active.len : 0;
}

rill_scene_load_state rill_scene_load_get_state(const rill_scene_loader *ld, rill_scene_load load) {
    const load_rec *r = rec_get(ld, load.id);
    return r ? r->state : RILL_SCENE_LOAD_INVALID;
}

float rill_scene_load_progress(const rill_scene_loader *ld, rill_scene_load load) {
    const load_rec *r = rec_get(ld, load.id);
    return r ? r->progress : 0.0f;
}

const char *rill_scene_load_error(const rill_scene_loader *ld, rill_scene_load load) {
    const load_rec *r = rec_get(ld, load.id);
    return r && r->state == RILL_SCENE_LOAD_FAILED && r->error ? r->error : "";
}

uint32_t rill_scene_load_warnings(const rill_scene_loader *ld, rill_scene_load load) {
    const load_rec *r = rec_get(ld, load.id);
    return r ? r->warnings : 0;
}

uint32_t rill_scene_load_entity_count(const rill_scene_loader *ld, rill_scene_load load) {
    const load_rec *r = rec_get(ld, load.id);
    return r ? r->total : 0;
}

uint32_t rill_scene_loader_main_roots(const rill_scene_loader *ld, rill_entity *out, uint32_t cap) {
    if (!ld) {
        return 0;
    }
    for (uint32_t i = 0; i < ld->main_roots.len && i < cap; i++) {
        out[i] = ld->main_roots.data[i];
    }
    return ld->main_roots.len;
}
