/* rill/scene/model.h: models, lights and render modes as world components, and the glTF scene ->
 * entities step. Components name assets (paths or asset handles), never GPU objects: the
 * renderer (rill/render.h) turns the asset handles into GPU meshes, textures and materials when
 * it extracts a frame, one upload per asset.
 *
 * ON THE COMPONENTS (rill_scene_model_register)
 *   "Model" { path: asset_path, variant: string }: a glTF model (.glb/.gltf) drawn at this
 *     entity. The model system (rill_scene_models below; rill_app_enable_models drives it in an
 *     app) loads the file through the asset server and spawns its node tree under the entity.
 *     variant names one of the file's KHR_materials_variants (empty: the default materials); the
 *     model system applies it to the spawned tree, and again whenever it changes (write Model
 *     with rill_world_add), so a variant switches at runtime without a respawn.
 *   "ModelMesh" { asset: u32, mesh: u32, primitive: u32, variant: u32 } (runtime only, not
 *     saved): one glTF primitive to draw: the asset handle id of the loaded glTF model, the mesh
 *     index in it and the primitive index in that mesh; the material is the primitive's own in
 *     material variant `variant` (0: none, the primitive's material; k: the file's variant k - 1,
 *     rill_gltf_primitive_variant_material).
 *   "RenderMode" { mode: enum normal|hidden|wireframe|ghost, ghost_opacity: f32 = 0.5 }: how the
 *     entity's own mesh draws (no component = normal). It applies to the entity only, not to its
 *     children (rill_scene_model_set_mode sets a whole spawned tree). Scene channels produce it.
 *   "MeshShown" (runtime only): the ModelMesh entities extract visits (see rill_mesh_shown).
 *   "DirectionalLight" { color: color = (1,1,1,1), illuminance: f32 = 3, shadows: bool = true }
 *     (direction = the entity's -Z axis)
 *   "PointLight" { color, intensity: f32 = 10, range: f32 = 20 }
 *   "SpotLight" { color, intensity = 10, range = 20, inner_angle = 0, outer_angle = 0.785 }
 *     (direction = -Z)
 *
 * ON SPAWNING
 *   rill_scene_model_spawn turns a loaded glTF model into entities: nodes with Name, Transform and
 *   Parent, a ModelMesh child per primitive, KHR_lights_punctual lights and cameras on the node
 *   entities. Another module that wants a model in the world without a Model component (a LOD
 *   streamer spawning `name_lod1.glb` as a hidden sibling) loads the file with rill_asset_load,
 *   waits for LOADED, calls rill_scene_model_spawn with the handle and the payload
 *   (rill_asset_get_payload_as(server, h, RILL_GLTF_ASSET_LOADER)), then
 *   rill_scene_model_set_mode(..., RILL_RENDER_MODE_HIDDEN) on the root; it keeps its asset
 *   reference while the tree lives and despawns the tree (rill_world_despawn_recursive) before
 *   releasing it.
 *
 * Depends on: base, world, asset, formats (glTF).
 */
#ifndef RILL_SCENE_MODEL_H
#define RILL_SCENE_MODEL_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/formats/gltf.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an entity's mesh draws (the RenderMode component; scene channels resolve to one of these
 * per entity). The values and their names (rill_channels_mode_name), one list. */
#define RILL_RENDER_MODE_LIST(X)                                                                   \
    X(RILL_RENDER_MODE_NORMAL, "normal")                                                           \
    X(RILL_RENDER_MODE_HIDDEN, "hidden") /* skipped by every pass, shadows included */             \
    X(RILL_RENDER_MODE_WIREFRAME,                                                                  \
      "wireframe") /* skipped by prepass, opaque and shadows; drawn as lines */                    \
    X(RILL_RENDER_MODE_GHOST, "ghost") /* draws like NORMAL (its opacity matters for passthrough)  \
                                        */
typedef enum rill_render_mode {
    RILL_RENDER_MODE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_RENDER_MODE_NUM,
    RILL_RENDER_MODE_FORCE_U32 = 0x7FFFFFFF
} rill_render_mode;

typedef struct rill_model_ref {
    const char *path;    /* interned asset path, NULL = none */
    const char *variant; /* interned material variant name, NULL or "" = the default */
} rill_model_ref;
typedef struct rill_model_mesh {
    uint32_t asset; /* rill_asset.id of the glTF model */
    uint32_t mesh, primitive;
    uint32_t variant; /* 0 = the primitive's material, k = the file's material variant k - 1 */
} rill_model_mesh;
typedef struct rill_render_mode_component {
    rill_render_mode mode;
    float ghost_opacity;
    /* Runtime only (not a reflected field, never saved): the LOD crossfade the LOD system writes
     * on the two level trees it blends (rill_render_instance.lod_fade; 0 = drawn whole). */
    float lod_fade;
} rill_render_mode_component;
typedef struct rill_directional_light {
    float color[4];
    float illuminance;
    bool shadows;
    /* This light is the sun: it is the snapshot's sun even when other DirectionalLights come
     * first, the sky defaults to the atmosphere (rill/render/environment.h) and the time of day
     * turns it. */
    bool sun;
} rill_directional_light;
typedef struct rill_point_light {
    float color[4];
    float intensity, range;
} rill_point_light;
typedef struct rill_spot_light {
    float color[4];
    float intensity, range, inner_angle, outer_angle;
} rill_spot_light;

/* "MeshLod" { enabled: bool = true, lod1_distance: f32 = 40, lod2_distance = 100,
 * lod3_distance = 220, crossfade = 5, cull_distance = 0 } on an entity with a Model: tunes its
 * detail bands (rill/stream.h, ON MESH LOD). lodN_distance is where level N starts (the outer edge
 * of level N-1's band); crossfade is the width of the blend after each boundary (0 = swap);
 * cull_distance > 0 draws nothing beyond it; enabled = false always draws the base level. Without
 * the component a Model uses these defaults. Distances clamped to >= 0. */
typedef struct rill_mesh_lod {
    bool enabled;
    float lod1_distance, lod2_distance, lod3_distance;
    float crossfade;
    float cull_distance;
} rill_mesh_lod;

/* "MeshShown" (runtime only, not saved, no fields): on every ModelMesh entity that may draw. Each
 * ModelMesh gets it when added, and so does a ModelMesh entity whose RenderMode is added or set to
 * anything but hidden (rill_world_add, rill_scene_model_set_mode / set_fade). Only
 * rill_scene_model_set_level takes it off: the detail levels a model does not show (LOD levels,
 * rill/stream.h) leave the set that rill_render_extract walks, so the per-frame walk follows what
 * is shown, not what is resident. An entity without it is hidden; one with it may still be hidden
 * by its RenderMode (extract marks it so). Writing a RenderMode through a pointer bypasses this:
 * set modes through rill_world_add or the functions below. */
typedef struct rill_mesh_shown {
    uint8_t unused;
} rill_mesh_shown;

/* "MeshSkin" (runtime only, never saved): on the ModelMesh entity of a primitive whose node draws
 * its mesh with a skin (rill_gltf_node.skin), the entities of the skin's joints (the node entities
 * spawned for rill_gltf_skin.joints) and a copy of their inverse bind matrices (joint_count * 16
 * floats). The component owns both arrays (one allocation, freed when it is removed). Animating
 * the joints' Transforms (an AnimationPlayer, a script) poses the mesh: rill_render_extract gives
 * the renderer each joint's GlobalTransform x inverse bind matrix, relative to the mesh entity. */
typedef struct rill_mesh_skin {
    uint32_t joint_count;
    rill_entity *joints;
    float *inverse_bind;
} rill_mesh_skin;

/* "MeshMorph" (runtime only, never saved): on the ModelMesh entity of a primitive with morph
 * targets, the weights it is drawn with (count = its target count), owned by the component
 * (freed when it is removed). Spawning starts them at the node's weights, else the mesh's, else
 * 0; an AnimationPlayer's "weights" channels write them; rill_render_extract hands them over. */
typedef struct rill_mesh_morph {
    uint32_t count;
    float *weights;
} rill_mesh_morph;

typedef struct rill_model_components {
    rill_component model, model_mesh, render_mode, directional_light, point_light, spot_light;
    rill_component mesh_lod;
    rill_component mesh_shown;
    rill_component mesh_skin;
    rill_component mesh_morph;
} rill_model_components;

/* Registers (or finds, when already registered) the components above. */
rill_result rill_scene_model_register(rill_world *world, rill_model_components *out,
                                      rill_error *err);

/* Spawns the default scene of `model` (scene 0 when none is marked; every root node when the file
 * has no scenes) as entities; `asset` is the handle whose payload `model` is (its id goes into
 * every ModelMesh). One root entity per call, named after the scene ("model" when unnamed), with
 * an identity Transform, made a child of `parent` (RILL_ENTITY_NULL = a world root). Below it:
 *   - each node: an entity with Name (the node's name, "nodeN" when unnamed), Transform (from its
 *     TRS, or its matrix decomposed) and Parent;
 *   - each primitive of a node's mesh: an unnamed child entity of the node with an identity
 *     Transform and a ModelMesh (and a MeshSkin binding the skin's joint entities when the node
 *     has a skin, the primitive has weights and every joint was spawned; a MeshMorph when the
 *     primitive has morph targets);
 *   - a node's KHR_lights_punctual light: DirectionalLight (illuminance = intensity, shadows on),
 *     PointLight or SpotLight (color, intensity, range, cone angles) on the node entity; glTF's
 *     infinite range becomes sqrt(intensity * 256) (where intensity / d^2 falls to 1/256, at
 *     least 1);
 *   - a node's camera: an active Camera on the node entity (perspective fov_y = yfov; orthographic
 *     ortho_height = 2 * ymag; near = znear; far = zfar, or the Camera default 1000 when
 *     infinite).
 * All entities come from one rill_world_spawn_n. The caller keeps its asset reference while the
 * entities exist (a released asset draws nothing). GlobalTransforms appear at the next
 * rill_world_update_transforms. *out_root (may be NULL) gets the root entity, RILL_ENTITY_NULL on
 * failure. */
rill_result rill_scene_model_spawn(rill_world *world, const rill_model_components *comps,
                                   rill_asset asset, const rill_gltf_model *model,
                                   rill_entity parent, rill_entity *out_root, rill_error *err);

/* Sets RenderMode { mode, ghost_opacity } on every ModelMesh entity in the subtree of root (root
 * included). Returns how many entities it set. */
uint32_t rill_scene_model_set_mode(rill_world *world, const rill_model_components *comps,
                                   rill_entity root, rill_render_mode mode, float ghost_opacity);
/* Sets ModelMesh.variant = variant (0: the default materials, k: the file's material variant
 * k - 1) on every ModelMesh entity in the subtree of root (root included) whose variant differs,
 * through rill_world_add so observers (static batching) see the new material. Returns how many
 * entities it changed. */
uint32_t rill_scene_model_set_variant(rill_world *world, const rill_model_components *comps,
                                      rill_entity root, uint32_t variant);
/* Shows the subtree of root with a LOD crossfade: RenderMode { normal, lod_fade } on every
 * ModelMesh entity (lod_fade 0 = drawn whole, as rill_scene_model_set_mode normal). Returns how
 * many entities it set. */
uint32_t rill_scene_model_set_fade(rill_world *world, const rill_model_components *comps,
                                   rill_entity root, float lod_fade);
/* For a subtree already shown with a crossfade (set_fade or set_level shown): writes the new
 * lod_fade in place into each ModelMesh entity's RenderMode, without an add (no observer runs: the
 * mode is unchanged). A mesh without a RenderMode gets one as set_fade would. Returns how many. */
uint32_t rill_scene_model_refade(rill_world *world, const rill_model_components *comps,
                                 rill_entity root, float lod_fade);
/* Shows or parks the subtree of root as one detail level of a model: shown, as
 * rill_scene_model_set_fade(lod_fade); parked (shown false), RenderMode hidden and MeshShown taken
 * off every ModelMesh entity, so extract no longer visits them. Returns how many entities it set.
 */
uint32_t rill_scene_model_set_level(rill_world *world, const rill_model_components *comps,
                                    rill_entity root, bool shown, float lod_fade);

/* >>model system ----------------------------------------------------------------------------- */

/* ON THE MODEL SYSTEM
 *   rill_scene_models watches the world's Model components. Each rill_scene_models_update (main
 *   thread, once per frame, before transform propagation):
 *     - requests the file of every new Model entity with rill_asset_load (once per path; the glTF
 *       loader, which create registers, reads it on a worker);
 *     - spawns the model's default scene under each such entity once it is LOADED
 *       (rill_scene_model_spawn: one root child per entity), within a per-update time budget
 *       (spawn_budget_ns; the rest wait for later updates); an entity whose own RenderMode is
 *       hidden (a streamed instance on its way out) gets its tree hidden; a .glb with baked levels
 * beside it (name_lod1.glb ... name_lod4.glb, pack first then loose, contiguous) has each level
 *       requested too and spawned as a hidden sibling tree (rill_scene_models_levels) of
 *       geometry only: the nodes that hold primitives and their ModelMesh children, no lights,
 *       no cameras (the base tree's stand for the model whichever level shows);
 *     - on FAILED logs one warning (module "models") naming the entity (id and Name) and the
 *       file, and spawns nothing;
 *     - when an entity is despawned, loses its Model or names another path, despawns the tree it
 *       spawned (in one batch) and drops its use of the file; a file nobody has used for
 *       release_delay_frames updates has its asset reference released.
 *   An update costs what changed: world add and remove observers of Model queue the entities to
 *   look at, so write Model with rill_world_add (a path written in place through rill_world_get is
 *   still found, by a round-robin check of 1024 tracked entities per update). One model system per
 *   world: create fails while another is attached (world resource "SceneModels").
 *   The spawned trees are runtime entities; they are not meant to be saved with the world. */
typedef struct rill_scene_models rill_scene_models;

/* world and assets are borrowed. release_delay_frames 0 = 2. */
typedef struct rill_scene_models_desc {
    uint32_t start_canary; /* must be 0 */
    rill_world *world;
    rill_asset_server *assets;
    uint32_t release_delay_frames;
    /* Time one update may spend spawning trees (a streamed district names hundreds of models,
     * each with its level trees): once it is spent, the trees still waiting spawn in later
     * updates (at least one per update). 0 = 1 ms. rill_scene_models_flush ignores it. */
    uint64_t spawn_budget_ns;
    rill_clock clock;    /* what the budget is measured with; zero = rill_time_ns */
    uint32_t end_canary; /* must be 0 */
} rill_scene_models_desc;

/* Counters: tracked entities (with a Model), spawned, pending (waiting for their file), failed
 * (warned, drawing nothing), models (files held, loading or loaded), and totals since create:
 * spawns, warnings, releases (files released). */
typedef struct rill_scene_models_stats {
    uint32_t tracked, spawned, pending, failed, models;
    uint64_t spawns, warnings, releases;
    uint64_t last_spawn_ns; /* time the last update spent spawning trees */
    /* With deferral on (rill_scene_models_set_spawn_defer): what the tree the last update left for
     * the next one is expected to cost (its file's last spawn), 0 when none waited so. */
    uint64_t last_deferred_ns;
} rill_scene_models_stats;

/* Registers the model components and the glTF asset loader. NULL + err on failure. */
rill_scene_models *rill_scene_models_create(const rill_scene_models_desc *desc, rill_error *err);
/* Despawns every tree it spawned and releases its assets. NULL is a no-op. */
void rill_scene_models_destroy(rill_scene_models *m);
/* One step of the system (see above). */
void rill_scene_models_update(rill_scene_models *m);
/* Runs update, blocks until every requested file is LOADED or FAILED, runs update again and
 * propagates transforms: the models exist when it returns. */
void rill_scene_models_flush(rill_scene_models *m);
/* Sets the time later updates may spend spawning trees (taken as is: 0 = one tree per update). */
void rill_scene_models_set_spawn_budget(rill_scene_models *m, uint64_t ns);
/* Deferral (off by default): a ready tree whose file's last spawn cost more than the budget has
 * left waits for the next update (stats.last_deferred_ns says what it will cost, for the caller to
 * leave it room), where it spawns whatever the budget says: one tree every other update at least,
 * instead of one every update spawned over the budget. An app sharing the streaming budget turns
 * it on (docs/streaming.md "Counters"). */
void rill_scene_models_set_spawn_defer(rill_scene_models *m, bool on);
/* stats.last_deferred_ns without the counting rill_scene_models_get_stats does (NULL: 0). */
uint64_t rill_scene_models_deferred_ns(const rill_scene_models *m);
void rill_scene_models_get_stats(const rill_scene_models *m, rill_scene_models_stats *out);
/* The trees spawned for entity e, level by level: out_roots[0] the base (the tree
 * rill_scene_models_root returns), then the baked detail levels, spawned as hidden siblings under
 * e (RenderMode hidden and parked: rill_scene_model_set_level; the LOD system in rill/stream.h
 * shows one at a time). Returns the number
 * of levels (0 when nothing is spawned for e). out_roots may be NULL. */
#define RILL_SCENE_MODEL_MAX_LEVELS 5u
uint32_t rill_scene_models_levels(const rill_scene_models *m, rill_entity e,
                                  rill_entity out_roots[RILL_SCENE_MODEL_MAX_LEVELS]);
/* Iterates the spawned Model entities: `for (uint32_t it = 0, n; (n =
 * rill_scene_models_each(m, &it, &e));)` gives each entity and its level count. Do not update
 * the system while iterating. */
uint32_t rill_scene_models_each(const rill_scene_models *m, uint32_t *iter,
                                rill_entity *out_entity);
/* rill_scene_models_each that also gives *out_level_state: a word the LOD system (rill/stream.h)
 * keeps per spawned model, in its own encoding, 0 when the trees were just spawned. It lives and
 * dies with the trees: a Model entity that dies or names another file takes its word with it, and
 * a tree spawned again starts from 0. */
uint32_t rill_scene_models_each_state(rill_scene_models *m, uint32_t *iter, rill_entity *out_entity,
                                      uint64_t **out_level_state);
/* The LOD system's word for entity e (see rill_scene_models_each_state), 0 when nothing is
 * spawned for e. */
uint64_t rill_scene_models_level_state(const rill_scene_models *m, rill_entity e);
/* The same word, writable (NULL when nothing is spawned for e); valid until the next update. */
uint64_t *rill_scene_models_state_of(rill_scene_models *m, rill_entity e);
/* Shows or parks level `level` of the trees spawned for e, as rill_scene_model_set_level does on
 * that level's root, but through the list of ModelMesh entities the model system keeps per level
 * (made at spawn; a member that died, lost its ModelMesh or was moved out of its level's tree is
 * dropped when next written), so no hierarchy is walked. A ModelMesh entity put into a level tree
 * after the spawn is not in the list: write it yourself. Returns how many entities it set. */
uint32_t rill_scene_models_set_level(rill_scene_models *m, rill_entity e, uint32_t level,
                                     bool shown, float lod_fade);
/* rill_scene_model_refade of one level of e's trees, through the same list. */
uint32_t rill_scene_models_refade(rill_scene_models *m, rill_entity e, uint32_t level,
                                  float lod_fade);
/* How the trees of a model with baked levels spawn, as the LOD system (rill/stream.h) would show
 * them: per level shown (with RenderMode.lod_fade, 0 = whole) or parked, and the word stored as
 * the model's level state. */
typedef struct rill_scene_model_spawn_pick {
    uint64_t level_state;
    bool shown[RILL_SCENE_MODEL_MAX_LEVELS];
    float lod_fade[RILL_SCENE_MODEL_MAX_LEVELS];
} rill_scene_model_spawn_pick;
/* Called before a model's trees spawn with its entity and level count (>= 2); true when it filled
 * *out, false to spawn as without a picker (the base shown, the levels parked, word 0). */
typedef bool (*rill_scene_models_pick_fn)(void *user, rill_entity model_entity, uint32_t levels,
                                          rill_scene_model_spawn_pick *out);
/* Installs the picker (one per model system; fn NULL removes it). A model hidden by its own
 * RenderMode still gets what the picker says: the LOD system parks every level of such a model. */
void rill_scene_models_set_spawn_pick(rill_scene_models *m, rill_scene_models_pick_fn fn,
                                      void *user);
/* The root of the tree spawned for entity e, or RILL_ENTITY_NULL. */
rill_entity rill_scene_models_root(const rill_scene_models *m, rill_entity e);
/* The glTF model whose tree is spawned for entity e (the base level's file), or NULL; valid
 * while the tree stays spawned. */
const rill_gltf_model *rill_scene_models_model(const rill_scene_models *m, rill_entity e);
const rill_model_components *rill_scene_models_components(const rill_scene_models *m);

#ifdef __cplusplus
}
#endif
#endif /* RILL_SCENE_MODEL_H */
