/* rill/scene.h: .rsn scene files (read, check, write) and scene loading: synchronous, async with a
 * per-frame budget, and scene instances.
 *
 * ON THE FORMAT
 *   A .rsn file is text: a version line, then one block per entity with a file-local id, an
 *   optional parent id, an optional name, and components written `Name { field: value ... }`.
 *   The world's reflection registry says which components and fields exist; see
 *   docs/formats/rsn.md for the grammar and docs/scenes.md for a guide. Missing fields take their
 *   defaults, out-of-range values are clamped with a warning, unknown fields warn, and unknown
 *   components warn and are kept verbatim (in the SceneUnknown component, so the writer emits
 *   them back) unless the lossy option skips them; the strict option makes unknown components
 *   and missing assets errors. Every message names `path:line:col`, and a misspelt component or
 *   field name gets "did you mean" the registered one closest to it.
 *
 * ON LOADING
 *   A rill_scene_loader owns all loads into one world. Create it once:
 *
 *       rill_scene_loader *ld = rill_scene_loader_create(&(rill_scene_loader_desc){
 *           .world = world, .vfs = vfs, .jobs = jobs }, NULL);
 *
 *   Boot and editor opens load synchronously (the world is complete when the call returns):
 *
 *       rill_scene_load_sync(ld, "scenes/main.rsn", &err);
 *
 *   Gameplay swaps scenes asynchronously, then calls rill_scene_loader_update once per frame on
 *   the main thread:
 *
 *       rill_scene_load h = rill_scene_load_async(ld, "scenes/level2.rsn", &err);
 *       ...each frame: rill_scene_loader_update(ld);
 *       float p = rill_scene_load_progress(ld, h);   // loading bar: 0 -> 0.10 -> 1
 *
 *   The file is read (packs first, then loose files, through the VFS) and parsed on a worker.
 *   When parsing ends, every entity of the scene (nested non-streamed instances included) is
 *   spawned empty in one pass (progress 0.10), then, under a wall-clock budget per frame (default
 *   3 ms) that all loads in flight share, the world's storage is grown for the load (one component
 *   per step) and components are applied entity by entity; progress is
 *   0.10 + 0.90 * applied / total. One main scene at a time: a new main load cancels the one in
 *   flight (its partial entities are despawned); the previous main scene is despawned in the same
 *   update in which the new one completes, so no frame is empty. A main load that replaces a
 *   scene completes at the start of the update after the one that applied its last entity, so
 *   the old scene's despawn (one batch) does not share a frame with a full budget of applying.
 *
 *   Completion is reported twice, pick either: world events "SceneLoaded" and "SceneLoadFailed"
 *   (payload rill_scene_event; ids from rill_scene_loader_events), each sent exactly once per load,
 *   and polling (rill_scene_load_state / _progress / _error).
 *
 * ON SCENE INSTANCES
 *   An entity with a SceneInstance component stands for the contents of another scene file,
 *   parented under it. Non-streamed instances are expanded as part of the load that contains
 *   them (same budget), with cycle and depth guards. Streamed instances are left empty; the
 *   streamer calls rill_scene_instance_load / rill_scene_instance_unload on them.
 *
 * ON THREADS
 *   Every function here belongs to the main thread (the thread that owns the world). Workers of
 *   the job system read and parse files for async loads; they touch no world state.
 *
 * Depends on: base, world, asset.
 */
#ifndef RILL_SCENE_H
#define RILL_SCENE_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The .rsn version this build reads and writes. */
#define RILL_SCENE_FORMAT_VERSION 1u

/* >>components -------------------------------------------------------------------------------- */

/* "SceneInstance" { scene: asset_path, streamed: bool = false, load_radius: f32 = 150,
 * unload_radius: f32 = 200, bounds_min: vec3 = 0, bounds_max: vec3 = 0 } (radii clamped to
 * >= 0). bounds_min/max: the contents' box in the root's local space, which streaming measures
 * distances to; an empty box (max <= min on every axis) means "not known yet" (see rill/stream.h:
 * the streamer computes and stores it at the first load). */
typedef struct rill_scene_instance {
    const char *scene; /* interned asset path of the .rsn, NULL = none */
    bool streamed;
    float load_radius;
    float unload_radius;
    float bounds_min[3];
    float bounds_max[3];
} rill_scene_instance;

/* "SceneUnknown" { blocks: string }: the verbatim text of the components of this entity that
 * the registry did not know when the scene was read, so the writer can emit them back. Blocks are
 * separated by the byte 0x01 (which no .rsn text can contain). RILL_TYPE_NO_SERIALIZE: generic
 * dumps skip it; the scene writer writes its blocks. */
typedef struct rill_scene_unknown {
    const char *blocks; /* interned */
} rill_scene_unknown;

/* The component ids the scene module registers. */
typedef struct rill_scene_components {
    rill_component instance; /* SceneInstance */
    rill_component unknown;  /* SceneUnknown */
} rill_scene_components;

/* Registers SceneInstance and SceneUnknown in world (idempotent) and returns their ids
 * (zero ids when registration failed). The loader does this itself; tools that only read or
 * write text call it directly. */
rill_scene_components rill_scene_register(rill_world *world);

/* >>text ------------------------------------------------------------------------------------- */

/* Options shared by reading functions. Zero = defaults: keep unknown components verbatim,
 * instance depth and entity count from the scene_depth and scene_entities limits (rill/base.h,
 * docs/limits.md; 8 and 1 Mi unless raised). */
typedef struct rill_scene_read_desc {
    uint32_t start_canary; /* must be 0 */
    bool lossy;            /* skip unknown components (with a warning) instead of keeping them */
    uint32_t
        max_instance_depth; /* nested non-streamed instances deeper than this are not expanded */
    /* 0 = scene_entities. A load whose files declare more entities once their instances expand
     * fails with ERR_LIMIT before anything is expanded. */
    uint32_t max_entities;
    /* Unknown components and missing assets fail the read (the message names file:line:col)
     * instead of being warnings. */
    bool strict;
    /* rill_scene_check_text only: check every asset path against this VFS (a warning per missing
     * file, an error with strict); NULL = paths are not checked. Loaders check against their own
     * VFS. Borrowed. */
    rill_vfs *assets;
    uint32_t end_canary; /* must be 0 */
} rill_scene_read_desc;

/* What rill_scene_check_text found. */
typedef struct rill_scene_check_info {
    uint32_t entities;           /* entity blocks in the file (instances not expanded) */
    uint32_t components;         /* component blocks */
    uint32_t unknown_components; /* of those, unknown to the registry */
    uint32_t warnings;           /* warnings logged (clamps, unknown fields, ...) */
} rill_scene_check_info;

/* Parses text[0..len) and binds every value to the registry of `world` (which must have the
 * components registered; the world's entities are not touched). `path` names the file in
 * messages. Warnings go to the log (module "scene"); the first error goes to err as
 * "path:line:col: message". out_info may be NULL. desc may be NULL. Registers the scene
 * components first (main thread). Asset paths are not checked against a VFS and instances are not
 * expanded. This is what `rill scene check` runs. */
rill_result rill_scene_check_text(rill_world *world, const char *path, const char *text, size_t len,
                                  const rill_scene_read_desc *desc, rill_scene_check_info *out_info,
                                  rill_error *err);

/* Writer options. Zero = defaults. */
typedef struct rill_scene_write_desc {
    uint32_t start_canary; /* must be 0 */
    /* false (default): an entity with a SceneInstance is written without its descendants, since
     * they came from the instanced file; true writes them too. */
    bool include_instance_content;
    uint32_t end_canary; /* must be 0 */
} rill_scene_write_desc;

/* Writes roots[0..count) and all their descendants (Parent relation -> parent ids) as canonical
 * .rsn text appended to *out (caller owns it: rill_strbuf_free). Entities are numbered 1.. in
 * depth-first order; entity fields pointing outside the written set become `none`. The Name
 * component becomes the block's name; NO_SERIALIZE types and fields are skipped; SceneUnknown
 * blocks are written back verbatim. desc may be NULL. Dead roots are skipped. */
rill_result rill_scene_write(rill_world *world, const rill_entity *roots, uint32_t count,
                             const rill_scene_write_desc *desc, rill_strbuf *out, rill_error *err);
/* rill_scene_write into a file at OS path `os_path` (written atomically). */
rill_result rill_scene_save(rill_world *world, const rill_entity *roots, uint32_t count,
                            const rill_scene_write_desc *desc, const char *os_path,
                            rill_error *err);

/* >>loader ----------------------------------------------------------------------------------- */

typedef struct rill_scene_loader rill_scene_loader;

/* A load, async or finished. 0 = none. A handle stays valid until rill_scene_load_release, or
 * until the loader recycles the record of a finished load because max_loads are in use. */
typedef struct rill_scene_load {
    uint32_t id;
} rill_scene_load;

/* rill_scene_load_state's values and their names (rill_scene_load_state_name), one list. */
#define RILL_SCENE_LOAD_STATE_LIST(X)                                                              \
    X(RILL_SCENE_LOAD_INVALID, "invalid") /* zero, stale or recycled handle */                     \
    X(RILL_SCENE_LOAD_PARSING, "parsing") /* reading and parsing on a worker; progress 0 */        \
    X(RILL_SCENE_LOAD_SPAWNING,                                                                    \
      "spawning") /* entities exist; components being applied under the budget */                  \
    X(RILL_SCENE_LOAD_LOADED, "loaded")       /* complete; progress 1 */                           \
    X(RILL_SCENE_LOAD_FAILED, "failed")       /* rill_scene_load_error says why */                 \
    X(RILL_SCENE_LOAD_CANCELLED, "cancelled") /* cancelled; partial entities despawned or queued   \
                                               */
typedef enum rill_scene_load_state {
    RILL_SCENE_LOAD_STATE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_SCENE_LOAD_STATE_NUM,
    RILL_SCENE_LOAD_STATE_FORCE_U32 = 0x7FFFFFFF
} rill_scene_load_state;

/* "invalid", "parsing", "spawning", "loaded", "failed", "cancelled". Static storage. */
const char *rill_scene_load_state_name(rill_scene_load_state state);

/* Payload of the world events "SceneLoaded" and "SceneLoadFailed". */
typedef struct rill_scene_event {
    rill_scene_load load;
    rill_entity root;      /* the instance root for instance loads, RILL_ENTITY_NULL for main */
    uint32_t entity_count; /* entities the load created */
    bool is_main;
} rill_scene_event;

/* Defaults: budget_ns 0 = 3 ms; max_loads 0 = 64 (records, finished ones included); clock zero =
 * rill_time_ns; read defaults as in rill_scene_read_desc. world is required and borrowed. vfs is
 * borrowed; NULL reads OS paths relative to the working directory. jobs is borrowed; NULL parses
 * on the main thread inside rill_scene_loader_update (a deterministic rill_jobs works too). */
typedef struct rill_scene_loader_desc {
    uint32_t start_canary; /* must be 0 */
    rill_world *world;
    rill_vfs *vfs;
    rill_jobs *jobs;
    rill_clock clock;
    uint64_t budget_ns;
    uint32_t max_loads;
    rill_scene_read_desc read;
    uint32_t end_canary; /* must be 0 */
} rill_scene_loader_desc;

/* The defaults rill_scene_loader_create applies (world, vfs, jobs stay NULL). */
rill_scene_loader_desc rill_scene_loader_query_defaults(void);
/* Creates a loader, registers the scene components and the two events. NULL when desc or
 * desc->world is NULL or memory runs out. */
rill_scene_loader *rill_scene_loader_create(const rill_scene_loader_desc *desc, rill_error *err);
/* Cancels loads in flight (despawning their partial entities), waits for their workers, and frees
 * the loader. Entities of completed loads stay in the world. NULL is a no-op. */
void rill_scene_loader_destroy(rill_scene_loader *loader);
/* Changes the per-frame budget (0 = default 3 ms). */
void rill_scene_loader_set_budget(rill_scene_loader *loader, uint64_t budget_ns);
/* Makes later loads strict or not (rill_scene_read_desc.strict): unknown components and missing
 * assets fail them. */
void rill_scene_loader_set_strict(rill_scene_loader *loader, bool strict);
/* The event ids registered by the loader ("SceneLoaded", "SceneLoadFailed"). */
void rill_scene_loader_events(const rill_scene_loader *loader, rill_event *out_loaded,
                              rill_event *out_failed);

/* Starts loading `path` (VFS path) as the main scene. Cancels a main load in flight (its partial
 * entities are despawned in the budgeted slices of later updates, like a replaced scene). Returns
 * the handle, or {0} with err set when no record is free. A file that cannot be read or parsed is
 * not an error here: the load becomes FAILED in a later update (with its event). */
rill_scene_load rill_scene_load_async(rill_scene_loader *loader, const char *path, rill_error *err);
/* Loads `path` as the main scene right now: read, parse, spawn, apply, expand instances. Cancels
 * a main load in flight, then despawns the previous main scene. On failure the world keeps the
 * previous main scene. Sends SceneLoaded/SceneLoadFailed too. out_load (may be NULL) receives the
 * handle of the finished load. */
rill_result rill_scene_load_sync(rill_scene_loader *loader, const char *path,
                                 rill_scene_load *out_load, rill_error *err);

/* Loads the scene named by root's SceneInstance.scene asynchronously under root (the sub-scene's
 * root entities become children of root). Streamed or not. Instance loads do not replace the main
 * scene and are not cancelled by main loads (a load whose root dies is cancelled). Children root
 * already has are left alone: call rill_scene_instance_unload first to reload. {0} with err set
 * when root is dead, has no SceneInstance or no scene path, already has a load in flight, or no
 * record is free. */
rill_scene_load rill_scene_instance_load(rill_scene_loader *loader, rill_entity root,
                                         rill_error *err);
/* Cancels root's instance load in flight, if any, then despawns every descendant of root. root
 * and its components (its Transform) stay. Returns the number of entities despawned. */
uint32_t rill_scene_instance_unload(rill_scene_loader *loader, rill_entity root);
/* Cancels root's instance load in flight, if any (its partial entities join the queue below
 * rather than going at once), then queues root's children for despawning with their subtrees in
 * the budgeted batches rill_scene_loader_update uses for a replaced main scene (the same
 * per-update budget as loads; leaves first). They stay attached and alive until
 * their batch comes: hide them first if they must not draw meanwhile. Returns how many children
 * were queued; the content is gone when root has no child left (rill_scene_loader_retiring turns
 * false once nothing is queued). */
uint32_t rill_scene_instance_retire(rill_scene_loader *loader, rill_entity root);
/* The handle of root's instance load in flight, or {0}. */
rill_scene_load rill_scene_instance_pending(const rill_scene_loader *loader, rill_entity root);

/* Cancels a load in flight: its partial entities are despawned and it becomes CANCELLED (no event
 * is sent). False when the handle is stale or the load already finished. */
bool rill_scene_load_cancel(rill_scene_loader *loader, rill_scene_load load);
/* Forgets a finished load's record (the entities stay). A load in flight is cancelled first. */
void rill_scene_load_release(rill_scene_loader *loader, rill_scene_load load);

/* Main thread, once per frame: completes main loads that finished applying in the previous call
 * and replace a scene (sending events, despawning the replaced scene), collects finished parses,
 * spawns their entities, then grows storage and applies components within the budget (shared by
 * every load in flight, oldest first), completing the other loads that finish. Returns the
 * number of entities whose components were applied in this call. */
uint32_t rill_scene_loader_update(rill_scene_loader *loader);
/* Number of loads in flight (parsing or spawning). */
uint32_t rill_scene_loader_pending(const rill_scene_loader *loader);
/* True while a replaced main scene is still being despawned in budgeted steps (from the update
 * its replacement completed; see docs/scenes.md). */
bool rill_scene_loader_retiring(const rill_scene_loader *loader);

/* Poll API. All are safe on stale handles (INVALID / 0 / ""). */
rill_scene_load_state rill_scene_load_get_state(const rill_scene_loader *loader,
                                                rill_scene_load load);
/* 0 while parsing, 0.10 once entities exist, 0.10 + 0.90 * applied / total while spawning, 1 when
 * loaded. Never decreases. A failed or cancelled load keeps its last value. */
float rill_scene_load_progress(const rill_scene_loader *loader, rill_scene_load load);
/* The failure message ("scenes/a.rsn:12:5: expected '}'"), "" unless FAILED. Valid until the
 * record is released or recycled. */
const char *rill_scene_load_error(const rill_scene_loader *loader, rill_scene_load load);
/* Warnings the load logged so far (clamps, unknown fields and components, missing assets). */
uint32_t rill_scene_load_warnings(const rill_scene_loader *loader, rill_scene_load load);
/* Entities the load created (0 until spawned). */
uint32_t rill_scene_load_entity_count(const rill_scene_loader *loader, rill_scene_load load);
/* The root entities of the current main scene (file order), copied into out[0..cap); returns how
 * many there are. Feed them to rill_scene_write to save the scene back. */
uint32_t rill_scene_loader_main_roots(const rill_scene_loader *loader, rill_entity *out,
                                      uint32_t cap);

#ifdef __cplusplus
}
#endif
#endif /* RILL_SCENE_H */
