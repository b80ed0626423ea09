/* rill/scene/anim.h: glTF animation clips played on spawned models: the AnimationPlayer
 * component and the animation system that samples it.
 *
 * ON THE COMPONENT
 *   "AnimationPlayer" { clip: string = "", index: i32 = 0, playing: bool = true,
 *   loop: bool = true, speed: f32 = 1, time: f32 = 0, fade: f32 = 0 } on an entity with a Model
 *   plays one of the model's clips (rill_gltf_animation) on the node entities spawned for it:
 *   the clip named `clip`, or clip number `index` when `clip` is empty (a name or index the
 *   model lacks plays nothing). `time` is the position in the clip in seconds; while `playing`
 *   the system advances it by the frame's step times `speed` (negative plays backwards). At the
 *   end a looping clip wraps, a non-looping one holds its last pose and stops (`playing` goes
 *   false); each time a clip ends the world event "AnimationEnded" (rill_animation_ended) is
 *   sent. Naming another clip while one plays cross-fades from the old clip (which keeps
 *   playing) to the new one over `fade` seconds (0 = cut), blending translations and scales
 *   linearly and rotations by slerp; a node one of the two clips does not animate blends with
 *   its rest pose. Channels on morph weights are read but not applied (morph targets are not
 *   drawn yet).
 *
 * ON THE SYSTEM
 *   rill_scene_anim_update (main thread, once a frame, after the model system's update and
 *   before transform propagation) binds each player to the node entities of the tree the model
 *   system spawned for its entity (the binding follows the spawned tree's order: nodes
 *   reparented by hand afterwards are not animated), samples every player on the job system
 *   (one chunk of players per worker, disjoint outputs) and writes the sampled Transforms on
 *   the main thread. Players whose entity dies, loses its AnimationPlayer or has its tree
 *   respawned release or rebuild their binding in the same update, so instances streamed in
 *   and out leave nothing behind.
 *
 * Depends on: base, world, formats (glTF), scene (the model system).
 */
#ifndef RILL_SCENE_ANIM_H
#define RILL_SCENE_ANIM_H

#include "rill/base.h"
#include "rill/scene/model.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rill_animation_player {
    const char *clip; /* interned clip name; NULL or "" = use index */
    int32_t index;
    bool playing;
    bool loop;
    float speed;
    float time;
    float fade;
    /* Runtime only (not reflected, never saved): the clip playing (+1; 0 = none yet), the clip
     * fading out (+1; 0 = none), its time, and how far the fade has gone (seconds). */
    int32_t active_plus1, from_plus1;
    float from_time, fade_elapsed;
} rill_animation_player;

/* The data of the "AnimationEnded" event: the player's entity and the clip that ended. */
typedef struct rill_animation_ended {
    rill_entity entity;
    int32_t clip;
} rill_animation_ended;

typedef struct rill_scene_anim rill_scene_anim;

/* world, models and jobs are borrowed (jobs NULL = sample on the calling thread). */
typedef struct rill_scene_anim_desc {
    uint32_t start_canary; /* must be 0 */
    rill_world *world;
    rill_scene_models *models;
    rill_jobs *jobs;
    uint32_t end_canary; /* must be 0 */
} rill_scene_anim_desc;

typedef struct rill_scene_anim_stats {
    uint32_t players;        /* entities with an AnimationPlayer bound to a spawned model */
    uint32_t bindings;       /* bindings held (one per bound player) */
    uint64_t nodes_written;  /* Transforms written by the last update */
    uint64_t last_sample_ns; /* time the last update spent sampling */
} rill_scene_anim_stats;

/* Registers AnimationPlayer (or finds it; rill_app_register_components calls this, so scenes
 * load and save it) and returns its id, RILL_COMPONENT_NONE with err set on failure. */
rill_component rill_scene_anim_register(rill_world *world, rill_error *err);
/* Registers AnimationPlayer and AnimationEnded (or finds them) and returns the system. */
rill_scene_anim *rill_scene_anim_create(const rill_scene_anim_desc *desc, rill_error *err);
void rill_scene_anim_destroy(rill_scene_anim *a);
/* Advances every playing player by dt seconds and writes the poses (see above). */
void rill_scene_anim_update(rill_scene_anim *a, float dt);
rill_component rill_scene_anim_component(const rill_scene_anim *a);
rill_event rill_scene_anim_ended_event(const rill_scene_anim *a);
void rill_scene_anim_get_stats(const rill_scene_anim *a, rill_scene_anim_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* RILL_SCENE_ANIM_H */
