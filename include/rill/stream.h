/* rill/stream.h: streaming: the gate (which run modes stream), the streaming camera, distances to
 * world bounds, the streamer registry, and the streamed scene instances.
 *
 * ON THE GATE
 *   An app is in one run mode at a time: EDIT, PLAY, PAUSED, SIMULATE (the editor's modes), GAME
 *   (a shipped runtime) or SERVER (a dedicated server). Streaming is active in GAME, PLAY, PAUSED
 *   and SIMULATE and never in EDIT or SERVER: edit mode keeps the whole world resident for
 *   authoring, and a server has no camera and needs the full world. A rill_stream holds the mode
 *   (rill_stream_set_mode). When the gate goes from open to closed, every registered streamer's
 *   `restore` runs exactly once, on that transition, and the world event "StreamingTurnedOff" is
 *   sent once. Mesh-LOD bands are draw cost, not memory, so they are not gated.
 *
 * ON THE STREAMING CAMERA
 *   rill_streaming_camera_pick chooses it: the active game camera marked is_default, else the
 *   first active game camera, else (in SIMULATE only) the active editor camera (default first).
 *   With no camera, the contract for every streamer is "residency stays as it is": nothing loads
 *   and nothing unloads until a camera appears. rill_stream_update publishes the gate and camera
 *   once per frame (after transform propagation) into the world resource "StreamingState", then
 *   runs each streamer's `update` with that state.
 *
 * ON DISTANCES
 *   Every streaming distance is measured from the camera position to the nearest point of the
 *   thing's world-space bounding box (0 inside it), never to its origin, so a large instance is
 *   not unloaded while the camera stands inside it (rill_stream_distance_to_box).
 *
 * ON STREAMED SCENE INSTANCES
 *   The instance streamer (built in; rill_stream_create installs it when given a scene loader)
 *   watches every entity whose SceneInstance has `streamed: true`:
 *     - gate open, camera present: an UNLOADED instance within load_radius becomes LOADING
 *       (rill_scene_instance_load: the loader's budgeted async spawner, the same path as scene
 *       swaps); at most max_loads_in_flight (default 4) at once, nearest first. A LOADING or
 *       LOADED instance beyond the unload radius becomes UNLOADING (a load in flight is cancelled
 *       and its partial entities hidden and despawned): its meshes are hidden (RenderMode hidden
 *       on ModelMesh and Model entities), at most max_hides_per_update entities an update over
 *       every unloading instance (oldest first; a cancelled load's partial content at once), then
 *       rill_scene_instance_retire hands the content to the loader, which despawns it in batches
 *       within its per-update budget; the instance is
 *       UNLOADED when the root has no child left, and only then loads again. The unload
 *       radius used is max(unload_radius, load_radius + min_gap) (min_gap default 10 m), so a
 *       boundary instance cannot thrash.
 *     - gate closed (EDIT, SERVER): every streamed instance is brought in (still through the
 *       budgeted spawner, at most max_loads_in_flight at once).
 *   The root entity and its components (its Transform) always stay; only its descendants are
 *   the streamed content. Assets only that content used are released by their owners when the
 *   entities go (the model system drops a model nobody uses).
 *
 *   Bounds: SceneInstance.bounds_min/bounds_max, in the root's local space. An instance whose
 *   box is empty (max <= min on every axis) has no authored bounds: its distance is measured to
 *   the root's origin until its first load completes; the streamer then computes the box from the
 *   world positions of every loaded descendant, writes it into bounds_min/bounds_max (so a saved
 *   scene keeps it) and measures to that box from then on. Exporters and generators that know the
 *   content's extent (rill demo does) author the box so that the first load is decided right.
 *
 * ON THREADS
 *   Main thread only.
 *
 * Depends on: base, world, asset, scene.
 */
#ifndef RILL_STREAM_H
#define RILL_STREAM_H

#include "rill/base.h"
#include "rill/scene.h"
#include "rill/scene/model.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >>run modes --------------------------------------------------------------------------------- */

/* rill_run_mode's values and their names (rill_run_mode_name), one list. */
#define RILL_RUN_MODE_LIST(X)                                                                      \
    X(RILL_RUN_MODE_DEFAULT, "invalid") /* in a desc: GAME */                                      \
    X(RILL_RUN_MODE_EDIT, "edit")       /* editor, editing: the whole world stays resident */      \
    X(RILL_RUN_MODE_PLAY, "play")       /* editor, playing in the game camera */                   \
    X(RILL_RUN_MODE_PAUSED,                                                                        \
      "paused") /* editor, play paused (streaming keeps its state and stays on) */                 \
    X(RILL_RUN_MODE_SIMULATE, "simulate") /* editor, simulating seen through the editor camera */  \
    X(RILL_RUN_MODE_GAME, "game")         /* a shipped runtime */                                  \
    X(RILL_RUN_MODE_SERVER, "server")     /* a dedicated server: no camera, full world */
typedef enum rill_run_mode {
    RILL_RUN_MODE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_RUN_MODE_NUM,
    RILL_RUN_MODE_FORCE_U32 = 0x7FFFFFFF
} rill_run_mode;

/* "edit", "play", "paused", "simulate", "game", "server" ("invalid" otherwise). Static storage. */
const char *rill_run_mode_name(rill_run_mode mode);
/* The streaming gate as a pure function: true for GAME, PLAY, PAUSED and SIMULATE; false for
 * EDIT, SERVER and anything invalid. */
bool rill_run_mode_streams(rill_run_mode mode);

/* Picks the camera that streaming measures distances from, for `mode`, among the world's entities
 * with a Camera component whose `active` is true:
 *   1. while the gate is closed (EDIT, SERVER): none;
 *   2. a game camera marked is_default (in SIMULATE an editor camera marked is_default counts
 *      too, after game cameras);
 *   3. the first game camera;
 *   4. in SIMULATE only: the first editor camera.
 * "First" is entity slot order, which is stable for a given world history. Returns
 * RILL_ENTITY_NULL when no camera qualifies. world may be NULL (none). */
rill_entity rill_streaming_camera_pick(const rill_world *world, rill_run_mode mode);

/* The gate as world data, in the resource "StreamingState" (reflected, so code that does not see
 * this struct reads its fields by name). Fields: active bool, run_mode enum (edit, play, paused,
 * simulate, game, server), camera entity (0 = none: leave residency as it is), camera_position
 * vec3 (world space), off_count u32 (gate closings so far). */
typedef struct rill_streaming_state {
    bool active;
    int32_t run_mode; /* rill_run_mode */
    rill_entity camera;
    float camera_position[3];
    uint32_t off_count;
} rill_streaming_state;

/* Payload of the "StreamingTurnedOff" world event (sent once per gate closing). */
typedef struct rill_streaming_off_event {
    uint32_t off_count; /* gate closings so far, this one included */
    int32_t new_mode;   /* rill_run_mode now in force */
} rill_streaming_off_event;

/* >>distance ---------------------------------------------------------------------------------- */

/* Distance from p to the nearest point of the box [mn, mx] (0 when p is inside). */
float rill_stream_distance_to_box(const float p[3], const float mn[3], const float mx[3]);
/* The world-space box that holds the local box [lmin, lmax] under the column-major affine
 * matrix m (the 8 corners transformed). out_min/out_max may not alias the inputs. */
void rill_stream_box_transform(const float m[16], const float lmin[3], const float lmax[3],
                               float out_min[3], float out_max[3]);

/* >>stream ------------------------------------------------------------------------------------ */

typedef struct rill_stream rill_stream;

/* A streamer: the instance streamer is built in; the terrain-chunk and texture streamers register
 * the same way. update runs every rill_stream_update (gate open or closed: it reads st->active)
 * and must keep its work bounded per frame; restore runs once when the gate closes and must
 * bring all of its content back to full residency (it may do so over the following updates). */
typedef struct rill_streamer_desc {
    uint32_t start_canary; /* must be 0 */
    const char *name;      /* for logs (borrowed; must outlive the stream) */
    void (*update)(rill_stream *stream, const rill_streaming_state *st, void *user);
    void (*restore)(rill_stream *stream, void *user);
    void *user;
    uint32_t end_canary; /* must be 0 */
} rill_streamer_desc;

/* Defaults (resolved in one place by rill_stream_query_defaults):
 *   world: required, borrowed. scenes: borrowed; NULL = no instance streamer.
 *   run_mode DEFAULT = GAME. max_loads_in_flight 0 = 4. min_gap 0 = 10 m (a negative value is
 *   read as 0 = default; the gap is never below 0). max_hides_per_update 0 = 2048: an unloading
 *   instance's content is hidden at most that many entities an update (a district of tens of
 *   thousands of entities goes over several frames, never in one), then handed to the loader. */
typedef struct rill_stream_desc {
    uint32_t start_canary; /* must be 0 */
    rill_world *world;
    rill_scene_loader *scenes;
    rill_run_mode run_mode;
    uint32_t max_loads_in_flight;
    float min_gap;
    uint32_t max_hides_per_update;
    uint32_t end_canary; /* must be 0 */
} rill_stream_desc;

rill_stream_desc rill_stream_query_defaults(void);
/* Creates a stream: registers the StreamingState resource, the StreamingTurnedOff event and (with
 * scenes) the instance streamer, and publishes the state once. NULL with err set when the desc is
 * invalid or memory runs out. */
rill_stream *rill_stream_create(const rill_stream_desc *desc, rill_error *err);
/* Frees the stream. Entities stay as they are (loads in flight belong to the scene loader and are
 * cancelled by its destruction). NULL: no-op. */
void rill_stream_destroy(rill_stream *stream);

/* Changes the run mode. When the gate closes, sends "StreamingTurnedOff", republishes the state
 * and runs every streamer's restore, once. Setting the current mode again does nothing and
 * returns false; returns true when the mode changed. RILL_RUN_MODE_DEFAULT or out-of-range: false
 * and an error log (nothing changes). */
bool rill_stream_set_mode(rill_stream *stream, rill_run_mode mode);
rill_run_mode rill_stream_get_mode(const rill_stream *stream);
/* rill_run_mode_streams(current mode); NULL = false. */
bool rill_stream_active(const rill_stream *stream);
/* Gate closings since creation. */
uint32_t rill_stream_off_count(const rill_stream *stream);
/* The camera pick for the current mode, now (not as of the last update), with its world position
 * (GlobalTransform, else Transform translation, else the origin) when out_position is not NULL. */
rill_entity rill_stream_camera(const rill_stream *stream, float out_position[3]);
/* The published state (the world resource); valid until the stream is destroyed. */
const rill_streaming_state *rill_stream_state(const rill_stream *stream);
rill_event rill_stream_off_event(const rill_stream *stream);
rill_world *rill_stream_world(const rill_stream *stream);

/* Once per frame, main thread, after transform propagation: publishes the state, then runs every
 * streamer's update. */
void rill_stream_update(rill_stream *stream);
/* The time the next rill_stream_update's streamers may spend on the work they can leave to a later
 * update (terrain chunk applies, the hides of unloading content), in nanoseconds: each still does
 * at least one unit of that work an update, and its own per-update counts still hold. The app
 * gives it what the frame's streaming budget has left (docs/streaming.md "Counters").
 * RILL_STREAM_NO_BUDGET (the default, and a deterministic app's): no time limit, the counts only.
 * Kept until set again. */
#define RILL_STREAM_NO_BUDGET UINT64_MAX
void rill_stream_set_budget_ns(rill_stream *stream, uint64_t ns);
/* Within an update: what its budget has left now (0 when spent); RILL_STREAM_NO_BUDGET when it
 * has none. Outside an update: the budget the next update gets. */
uint64_t rill_stream_budget_left_ns(const rill_stream *stream);
/* Publishes the state only (the app does this on mode changes). */
void rill_stream_publish(rill_stream *stream);

/* The boot load's counterpart for streamed content (main thread, outside the frame): propagates
 * transforms, runs the decisions, and drives the scene loader until every instance load it
 * started has finished, again while finished content starts more (nested streamed instances),
 * so the first frame shows what the camera should see. Gives up after max_ns of wall time
 * (0 = 10 s). Returns the number of instances loaded. Nothing happens without a scene loader. */
uint32_t rill_stream_settle(rill_stream *stream, uint64_t max_ns);

/* Adds a streamer (copied); at most 16. False when full or update is NULL. */
bool rill_stream_add_streamer(rill_stream *stream, const rill_streamer_desc *desc);
/* Removes the streamer added with this update function and user (the others keep their order).
 * False when there is none. Not from inside a streamer's update or restore. */
bool rill_stream_remove_streamer(rill_stream *stream,
                                 void (*update)(rill_stream *, const rill_streaming_state *,
                                                void *),
                                 void *user);

/* >>instances --------------------------------------------------------------------------------- */

/* rill_instance_state's values and their names (rill_instance_state_name), one list. */
#define RILL_INSTANCE_STATE_LIST(X)                                                                \
    X(RILL_INSTANCE_UNLOADED, "unloaded")                                                          \
    X(RILL_INSTANCE_LOADING,                                                                       \
      "loading") /* the loader is reading, parsing or spawning its contents */                     \
    X(RILL_INSTANCE_LOADED, "loaded")                                                              \
    X(RILL_INSTANCE_FAILED,                                                                        \
      "failed") /* the last load failed; retried after the camera leaves and returns */            \
    X(RILL_INSTANCE_UNLOADING,                                                                     \
      "unloading") /* hidden; the loader despawns its contents in budgeted batches */
typedef enum rill_instance_state {
    RILL_INSTANCE_STATE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_INSTANCE_STATE_NUM,
    RILL_INSTANCE_STATE_FORCE_U32 = 0x7FFFFFFF
} rill_instance_state;

/* "unloaded", "loading", "loaded", "failed", "unloading". Static storage. */
const char *rill_instance_state_name(rill_instance_state state);

/* Counters of the instance streamer (zeros without one). Current: instances (streamed roots
 * seen), per state; totals since creation: loads started, completed, cancelled, failed, unloads,
 * entities despawned by unloads (counted when an unload starts). update_ns / update_ns_max: time of
 * the last / worst rill_stream_update (all streamers). */
typedef struct rill_stream_stats {
    uint32_t instances, loaded, loading, unloaded, failed, unloading;
    uint64_t loads_started, loads_completed, loads_cancelled, loads_failed, unloads;
    uint64_t entities_unloaded;
    uint64_t update_ns, update_ns_max;
} rill_stream_stats;

void rill_stream_get_stats(const rill_stream *stream, rill_stream_stats *out);

/* One streamed instance as the streamer sees it, for tools (the fly-through map) and tests. */
typedef struct rill_stream_instance_info {
    rill_entity root;
    rill_instance_state state;
    bool bounds_known;   /* authored or computed; else the box is the root's origin */
    float bounds_min[3]; /* world space */
    float bounds_max[3];
    float distance; /* camera -> box at the last update (FLT_MAX without a camera) */
    float load_radius;
    float unload_radius; /* with the gap enforced */
    /* How much of its far-world proxy stands in for it (see ON FAR-WORLD PROXIES): 1 while its
     * content is not resident (unloaded, loading, unloading, failed), falling to 0 over
     * rill_stream_hlod_settings.crossfade_frames updates once it is loaded; 0 = content only. */
    float proxy_fade;
} rill_stream_instance_info;

/* Copies up to cap instances (in no particular order) into out; returns how many there are. */
uint32_t rill_stream_instances(const rill_stream *stream, rill_stream_instance_info *out,
                               uint32_t cap);
/* The state of the instance rooted at root (UNLOADED for unknown roots). */
rill_instance_state rill_stream_instance_state(const rill_stream *stream, rill_entity root);

/* >>far-world proxies ------------------------------------------------------------------------ */
/* ON FAR-WORLD PROXIES (HLOD; docs/streaming.md "Far-world proxies")
 *   `rill export` bakes a proxy for each streamed scene (rill/formats/hlod.h): its models merged
 *   and simplified, one colour per vertex. The instance streamer decides, per instance, how much
 *   of the proxy stands in for the content (rill_stream_instance_info.proxy_fade): 1 whenever the
 *   content is not resident (beyond the radius, still loading, unloading: from the update an
 *   unload starts, while its content is hidden over the next updates), then, once the
 *   instance is LOADED, down to 0 over crossfade_frames updates, during which the proxy draws as
 *   the complementary dither of the LOD crossfade (its share of the pixels shrinking), never
 *   after. The renderer (rill/render/hlod.h) draws the proxies from these decisions out to
 *   far_distance (distance to the instance's box), and, for a cell of neighbouring instances none
 *   of which is resident, the cell's merged level-1 proxy instead of their level-0 ones once the
 *   cell's box is level1_distance away (crossfading over level_crossfade metres). */
typedef struct rill_stream_hlod_settings {
    bool enabled;              /* default true; false: no proxy draws anywhere */
    float far_distance;        /* default 6000 m: beyond it no proxy draws */
    float level1_distance;     /* default 1200 m */
    float level_crossfade;     /* default 100 m */
    uint32_t crossfade_frames; /* default 30 (0.5 s at 60 Hz); 0 = the default */
} rill_stream_hlod_settings;
/* The defaults above. */
rill_stream_hlod_settings rill_stream_hlod_default(void);
/* Replaces the settings (NULL = defaults); a zero or negative distance takes its default, and
 * level1_distance is kept at or below far_distance. */
void rill_stream_set_hlod(rill_stream *stream, const rill_stream_hlod_settings *settings);
rill_stream_hlod_settings rill_stream_get_hlod(const rill_stream *stream);

/* >>mesh lod --------------------------------------------------------------------------------- */

/* ON MESH LOD
 *   A Model whose file has baked levels (name_lod1.glb ... name_lod4.glb, found pack first then
 *   loose, contiguous: the probe stops at the first missing) draws one level at a time by the
 *   camera's distance to the entity: level n over [start_n, end_n). Defaults (a MeshLod component
 *   overrides them): level 0 [0, 40), 1 [40, 100), 2 [100, 220), the last level to infinity; a
 *   model with more levels than the three distances extends each extra band's end by x2.2
 *   (220 -> 484 -> ...). cull_distance > 0 ends the last band there and nothing draws beyond it.
 *   enabled = false: level 0 at every distance. Across a boundary b the outgoing level fades out
 *   over [b, b + crossfade) while the incoming fades in over the same interval. Bands apply in
 *   every run mode (they are draw cost, not memory). */
#define RILL_LOD_MAX_LEVELS 5u /* the base + 4 baked levels */

typedef struct rill_lod_settings {
    bool enabled;
    float distances[3]; /* where levels 1, 2, 3 start */
    float crossfade;
    float cull_distance;
} rill_lod_settings;

/* The defaults above (enabled, 40/100/220, crossfade 5, no cull). */
rill_lod_settings rill_lod_settings_default(void);

typedef struct rill_lod_bands {
    uint32_t levels;                                            /* 1..RILL_LOD_MAX_LEVELS */
    float start[RILL_LOD_MAX_LEVELS], end[RILL_LOD_MAX_LEVELS]; /* end may be INFINITY */
    float crossfade;
} rill_lod_bands;

/* The bands of a model with `levels` levels (the base included; clamped to [1, 5]). */
void rill_lod_bands_make(const rill_lod_settings *settings, uint32_t levels, rill_lod_bands *out);

/* What draws at one distance: `level` with weight 1 - fade, and, inside a crossfade, `next`
 * (level + 1) with weight fade; next = -1 outside a crossfade. level = -1: nothing (culled). */
typedef struct rill_lod_pick {
    int32_t level, next;
    float fade;
} rill_lod_pick;

rill_lod_pick rill_lod_pick_at(const rill_lod_bands *bands, float distance);

/* The LOD system: shows one level of every spawned Model with baked levels (the model system in
 * rill/scene/model.h spawns them as hidden sibling trees) by the camera's distance to the Model
 * entity, through RenderMode on the level trees (written only when the pick changes); a Model
 * entity with RenderMode hidden shows no level. Inside a crossfade interval it shows both levels,
 * the outgoing with RenderMode.lod_fade = -f and the incoming with +f (f = the pick's fade rounded
 * to 1/16; the renderer's dither draws each pixel from exactly one of them, in every pass). The
 * app runs it in post_update after transforms when models are enabled. */
typedef struct rill_lod_system rill_lod_system;

/* Counters of the last update: models with levels, how many show each level, culled; and level
 * switches since creation. */
typedef struct rill_lod_stats {
    uint32_t models;
    uint32_t per_level[RILL_LOD_MAX_LEVELS];
    uint32_t culled;
    uint32_t fading;   /* models inside a crossfade (counted in per_level by the outgoing level) */
    uint32_t checked;  /* models measured by the last update (the others kept their last check) */
    uint32_t deferred; /* models due but left to later updates by the check budget */
    uint64_t switches;
} rill_lod_stats;

/* world and models are borrowed. NULL when either is NULL or memory runs out. */
rill_lod_system *rill_lod_system_create(rill_world *world, rill_scene_models *models);
void rill_lod_system_destroy(rill_lod_system *lod);
/* camera: the world position distances are measured from; NULL shows every base level. */
void rill_lod_system_update(rill_lod_system *lod, const float camera[3]);
/* Where the trees of models that spawn from now on are measured from: the system installs itself
 * as the model system's spawn picker (rill_scene_models_set_spawn_pick), so new trees spawn
 * already showing the level their first update would pick, and that update has nothing to
 * switch. NULL (the default): the last update's camera; before any, or for a Model entity without
 * a world position yet, trees spawn with the base shown and are switched at the next update. */
void rill_lod_system_set_spawn_camera(rill_lod_system *lod, const float camera[3]);
/* The most models one update measures (0: no bound). When more are due (the first update, the
 * camera appearing or jumping more than 1000 km, moves lost), the update measures max_checks of
 * them: an eighth in model order from where the last bounded update stopped (so a model that
 * stays due is measured within about models / (max_checks / 8) + 1 updates) and the rest the
 * nearest to the camera; the others keep showing what they showed until their turn
 * (rill_lod_stats.deferred counts them). Once the camera holds still, every model shows what a
 * full evaluation picks within that many updates. */
#define RILL_LOD_CHECK_BUDGET_DEFAULT 1024u
void rill_lod_system_set_check_budget(rill_lod_system *lod, uint32_t max_checks);
/* The level shown for a Model entity (-1: culled, or nothing spawned for it). */
int32_t rill_lod_system_level(const rill_lod_system *lod, rill_entity model_entity);
/* The same, with the crossfade: *out_next the level fading in over it (-1: none) and *out_fade
 * its weight (0 when none). Either pointer may be NULL. */
int32_t rill_lod_system_levels(const rill_lod_system *lod, rill_entity model_entity,
                               int32_t *out_next, float *out_fade);
void rill_lod_system_get_stats(const rill_lod_system *lod, rill_lod_stats *out);
/* The camera bands measure from: the streaming camera pick, and in EDIT and SERVER (where the
 * gate is closed) the pick SIMULATE would make (game cameras, then the editor camera). */
rill_entity rill_lod_camera(const rill_world *world, rill_run_mode mode, float out_position[3]);

#ifdef __cplusplus
}
#endif
#endif /* RILL_STREAM_H */
