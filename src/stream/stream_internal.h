/* stream_internal.h: what the files of the stream module share: the stream object's layout and the
 * instance streamer's entry points (instances.c), installed by rill_stream_create (stream.c).
 */
#ifndef RILL_STREAM_INTERNAL_H
#define RILL_STREAM_INTERNAL_H

#include "rill/stream.h"

#define STREAM_MAX_STREAMERS 16u

typedef struct rill__instance_streamer rill__instance_streamer;

struct rill_stream {
    rill_stream_desc desc;
    rill_world *world;
    rill_run_mode mode;
    uint32_t off_count;
    rill_resource state_res;
    rill_event off_event;
    rill_streamer_desc streamers[STREAM_MAX_STREAMERS];
    uint32_t streamer_count;
    rill__instance_streamer *instances; /* NULL without a scene loader */
    rill_stream_hlod_settings hlod;     /* far-world proxies (hlod.c) */
    uint64_t update_ns, update_ns_max;
    uint64_t budget_ns;       /* rill_stream_set_budget_ns (RILL_STREAM_NO_BUDGET: none) */
    uint64_t update_start_ns; /* when the update under way began (0: none under way) */
};

/* Creates the instance streamer and registers it as a streamer of s. NULL on out of memory. */
rill__instance_streamer *rill__instances_create(rill_stream *s, rill_scene_loader *scenes);
void rill__instances_destroy(rill__instance_streamer *is);
void rill__instances_stats(const rill__instance_streamer *is, rill_stream_stats *out);
uint32_t rill__instances_list(const rill__instance_streamer *is, rill_stream_instance_info *out,
                              uint32_t cap);
uint32_t rill__instances_settle(rill__instance_streamer *is, uint64_t max_ns);
rill_instance_state rill__instances_state(const rill__instance_streamer *is, rill_entity root);
/* The proxy share after one more update (hlod.c): 1 unless LOADED, then falling by
 * 1 / crossfade_frames to 0. */
float rill__hlod_next_fade(const rill_stream_hlod_settings *hs, rill_instance_state state,
                           float fade);

/* >>mesh lod: what makes a model's band check due (lod_watch.c for lod_system.c) */

/* The LOD system's word per model (rill_scene_models_each_state): bits 0-23 what the trees show,
 * LOD_WORD_CHECKED once the model was checked, and the high 32 bits the camera travel (in ticks)
 * at which the check is due again. Clearing LOD_WORD_CHECKED makes it due at the next update. */
#define LOD_WORD_CHECKED (UINT64_C(1) << 24)
#define LOD_TICKS_PER_M 256.0 /* travel is counted in 1/256 m */
#define LOD_SLACK_MAX 1.0e6f  /* the longest travel a check is trusted for (m) */

typedef struct rill__lod_watch {
    uint64_t travel;     /* the camera's path length in ticks, each update's step rounded up */
    float camera[3];     /* where the last update measured from */
    bool had_camera;     /* the last update had a camera */
    uint64_t moved_at;   /* cursor of rill_world_changed_transforms_since */
    rill_event mode_set; /* "ModelRenderModeSet": RenderMode added or replaced on a Model */
    RILL_ARRAY(rill_entity) lod_entities; /* the MeshLod storage as the last update saw it */
    RILL_ARRAY(rill_mesh_lod) lod_values;
} rill__lod_watch;

/* Registers what the watch observes on world. False when out of room or memory. */
bool rill__lod_watch_init(rill__lod_watch *lw, rill_world *world, const rill_model_components *mc);
void rill__lod_watch_free(rill__lod_watch *lw);
/* Adds the camera's step to the travel and makes due every model whose inputs changed since the
 * last call: moved (the world's changed transforms), MeshLod added, edited or removed, RenderMode
 * added or replaced on the Model entity. True when every model is due instead: the camera came
 * or went, jumped beyond LOD_SLACK_MAX, or moves were lost. */
bool rill__lod_watch_update(rill__lod_watch *lw, rill_world *world, rill_scene_models *models,
                            const rill_model_components *mc, const float *camera);

/* >>mesh lod: which due models an update measures when more are due than its budget (lod_due.c) */

/* A model due for a check: its word, entity, level count, place in the model system's order
 * (rill_scene_models_each_state) and squared distance to the camera. */
typedef struct rill__lod_due {
    uint64_t *word;
    rill_entity entity;
    uint32_t levels;
    uint32_t model;
    float d2;
} rill__lod_due;

/* The share of a bounded update's checks (1 / LOD_SWEEP_SHARE) that sweeps in model order. */
#define LOD_SWEEP_SHARE 8u

/* Orders due[0, len) (in model order) so the models to measure now come first and returns how
 * many: all of them when len <= budget or budget is 0; else `budget`: budget / LOD_SWEEP_SHARE (at
 * least 1) in model order from *cursor on, wrapping (*cursor then points past the last), and the
 * rest the smallest d2. A model that stays due is measured within about models / (budget /
 * LOD_SWEEP_SHARE) + 1 updates. Overwrites d2 of the swept ones. */
uint32_t rill__lod_due_choose(rill__lod_due *due, uint32_t len, uint32_t budget, uint32_t *cursor);

#endif
