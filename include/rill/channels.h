/* rill/channels.h: scene channels, a 64-bit mask per entity naming the groups of geometry it
 * belongs to, and a render mode per channel that the renderer applies to every entity in it.
 *
 * ON CHANNELS
 *   Bits 0-3 are built in: CONTEXT (background geometry hidden or drawn as a group), SELECTABLE
 *   (picked by rill_channels_pick), PRESERVE_IDENTITY (never merged by static batching), GHOST
 *   (walls and structures ghosted on their own). Bits 4-31 are reserved for the engine, bits 32-63
 *   belong to applications.
 *
 * ON DEFAULTS (rill_channels_attach)
 *   Once attached to a world, the channels module watches the components that make an entity
 *   renderable (Model, ModelMesh, MeshInstance) and Name, through world add observers, so every
 *   creation path (scene loads, streamed scene instances, model spawns, code) assigns channels at
 *   the moment the entity becomes renderable; nothing scans the world per frame. The default of a
 *   renderable entity: the nearest entity on its ancestor chain (itself first) that either carries
 *   an explicitly set SceneChannels (its mask is inherited) or has a Name starting "NM_"
 *   (SELECTABLE | PRESERVE_IDENTITY); when there is none, CONTEXT. A model's primitives thus
 *   follow the Model entity they were spawned under. Non-renderable entities get no component
 *   (mask 0). rill_channels_set is explicit: it clears from_defaults and the value is never
 *   replaced by defaults. Renaming an entity refreshes the defaulted values of it and its
 *   subtree only. Reparenting is not watched: call rill_channels_refresh on the moved subtree.
 *
 * ON RENDER MODES
 *   The world resource "SceneChannelModes" holds one mode per channel bit: NORMAL, HIDDEN,
 *   WIREFRAME or GHOST with an opacity in [0, 1]. An entity's mode resolves over the bits of its
 *   mask: HIDDEN beats WIREFRAME beats GHOST beats NORMAL, several ghost bits give the lowest
 *   opacity; a RenderMode component on the entity (rill/scene/model.h, e.g. a hidden LOD level)
 *   joins the same precedence. rill_render_extract resolves every instance this way, once, and
 *   every pass reads the result. Changing a mode writes the resource only: nothing is rebuilt.
 *
 * ON PICKING (rill_channels_pick)
 *   A ray (from a screen point: rill_channels_screen_ray) finds the nearest entity whose mask
 *   holds one of the picked channels (SELECTABLE by default), whatever draws it:
 *     - ModelMesh entities: the triangles of the glTF primitive (CPU data of the loaded asset);
 *     - MeshInstance entities: the triangles of the renderer's mesh, through desc.mesh_source
 *       (rill_render_pick_source fills it; without one they are neither picked nor block);
 *     - Terrain entities: the height field's cells, exactly as the chunk meshes triangulate them,
 *       of resident chunks (the drawn ones: rill_terrain_raycast of desc.terrain, resident_only);
 *       without desc.terrain terrains are neither picked nor block.
 *   A candidate is drawn unless its mode is HIDDEN, resolved as the renderer does (the channel
 *   modes of its mask joined with its RenderMode component). Mesh candidates' world boxes go into
 *   a bounding volume hierarchy built for the call, the ray walks it nearest box first, and the
 *   triangles are tested exactly in the entity's local space; terrains are then cast against the
 *   best distance so far. With opaque_blocks, drawn geometry outside the picked channels in front
 *   of a pickable entity hides it, as the picture does: NORMAL and GHOST geometry blocks (a ghost
 *   is drawn opaque and writes depth), WIREFRAME does not (the ray passes between its lines).
 *   Cost: O(n log n) in the mesh candidates plus the cells a terrain ray crosses, per call; meant
 *   for clicks, not per frame.
 *
 * Depends on: base, world, asset, formats (glTF payloads), scene (model components), terrain.
 */
#ifndef RILL_CHANNELS_H
#define RILL_CHANNELS_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/scene/model.h"
#include "rill/terrain.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_CHANNEL_CONTEXT (UINT64_C(1) << 0)
#define RILL_CHANNEL_SELECTABLE (UINT64_C(1) << 1)
#define RILL_CHANNEL_PRESERVE_IDENTITY (UINT64_C(1) << 2)
#define RILL_CHANNEL_GHOST (UINT64_C(1) << 3)
#define RILL_CHANNEL_ENGINE_FIRST 4u /* bits 4..31: engine */
#define RILL_CHANNEL_APP_FIRST 32u   /* bits 32..63: applications */
#define RILL_CHANNEL_COUNT 64u

/* "SceneChannels" { mask: u64, from_defaults: bool } (runtime: assigned, not saved). */
typedef struct rill_scene_channels {
    uint64_t mask;
    bool from_defaults;
} rill_scene_channels;

/* "ChannelMask" { mask: u64 } (saved in scenes): channels authored in a scene file. Adding it
 * (a scene load, a streamed instance, code) is an explicit rill_channels_set of `mask`; the
 * entity's spawned model primitives inherit it. E.g. `ChannelMask { mask: 9 }` = context | ghost
 * on a building's Model entity makes it ghostable with the ghost channel. */
typedef struct rill_channel_mask {
    uint64_t mask;
} rill_channel_mask;

/* The "SceneChannelModes" resource. Read it with rill_channels_modes; write it through the
 * setters below (they keep the summary masks in step). */
typedef struct rill_channel_modes {
    uint8_t mode[RILL_CHANNEL_COUNT]; /* rill_render_mode per bit */
    float opacity[RILL_CHANNEL_COUNT];
    uint64_t hidden, wireframe, ghost; /* bits whose mode is that one */
    uint64_t changes;                  /* count of mode changes */
    /* Private: ids the observers use. */
    rill_component comp, name, model, model_mesh, mesh_instance, authored;
    rill_component watched[4]; /* more renderable components (rill_channels_watch) */
    uint32_t watched_count;
} rill_channel_modes;

/* Registers SceneChannels and SceneChannelModes and installs the default observers on Name,
 * Model, ModelMesh and (when registered) MeshInstance. Idempotent: call it again after
 * registering MeshInstance (rill_render_register_components does). Renderable entities that exist
 * before the first attach get their defaults then. */
rill_result rill_channels_attach(rill_world *world, rill_error *err);
/* Makes entities carrying `comp` renderable for the defaults (a module with its own drawable
 * component, such as Terrain, calls it once after creating its drawer): they get channels when
 * `comp` is added, and those that have it already get them now. Attaches first if needed.
 * Idempotent per component; at most 4 such components per world. */
rill_result rill_channels_watch(rill_world *world, rill_component comp, rill_error *err);
/* The SceneChannels component, 0 before attach. */
rill_component rill_channels_component(const rill_world *world);
/* The modes resource, NULL before attach. */
const rill_channel_modes *rill_channels_modes(const rill_world *world);

/* An entity's mask (0 when it has none). */
uint64_t rill_channels_get(const rill_world *world, rill_entity e);
/* Explicit set: mask replaces the value and from_defaults is cleared; the defaulted values in e's
 * subtree are refreshed (they inherit it). False for a stale entity or before attach. */
bool rill_channels_set(rill_world *world, rill_entity e, uint64_t mask);
/* Back to defaults for e and the defaulted values of its subtree (after a reparent, or to drop an
 * explicit value: clear_explicit). */
void rill_channels_refresh(rill_world *world, rill_entity e, bool clear_explicit);

/* What rill_channels_take_census counts over a world's renderable entities (those the defaults
 * watch: Model, ModelMesh, MeshInstance and the rill_channels_watch components). */
typedef struct rill_channels_census {
    uint32_t renderable;
    uint32_t unassigned; /* renderable without SceneChannels: a creation path the defaults missed */
    uint32_t stale;      /* defaulted values that differ from what the defaults give now (e.g. a
                          * subtree moved without rill_channels_refresh) */
    uint32_t explicit_set; /* values set explicitly (rill_channels_set, ChannelMask) */
    uint32_t bits[4]; /* entities per built-in bit: context, selectable, preserve-identity, ghost */
} rill_channels_census;
/* Counts the renderable entities and their channels (O(renderable x ancestor depth): for tools
 * and tests, e.g. `rill render --stats`, not per frame). Zeroes *out before attach. */
void rill_channels_take_census(const rill_world *world, rill_channels_census *out);

/* Sets the mode of every bit in `channels`; opacity (GHOST only) is clamped to [0, 1]. */
void rill_channels_set_mode(rill_world *world, uint64_t channels, rill_render_mode mode,
                            float opacity);
/* visible -> NORMAL, invisible -> HIDDEN. */
void rill_channels_set_visible(rill_world *world, uint64_t channels, bool visible);
/* The mode of one channel bit (0..63); *opacity (may be NULL) gets its ghost opacity. */
rill_render_mode rill_channels_get_mode(const rill_world *world, uint32_t bit, float *opacity);

/* The mode a mask resolves to (precedence above); *opacity = the lowest ghost opacity (1 when not
 * ghost). modes NULL = NORMAL. */
rill_render_mode rill_channels_resolve(const rill_channel_modes *modes, uint64_t mask,
                                       float *opacity);
/* Joins two modes by precedence (ghost opacities: the lower). */
rill_render_mode rill_channels_join(rill_render_mode a, float a_opacity, rill_render_mode b,
                                    float b_opacity, float *out_opacity);

/* >>picking -------------------------------------------------------------------------------- */

/* Triangles a pick tests, in the entity's local space: positions (xyz per vertex), a triangle list
 * (NULL indices: vertices in threes) and their local box. Borrowed for the call. */
typedef struct rill_pick_mesh {
    const float *positions;
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count;
    float bounds_min[3], bounds_max[3];
} rill_pick_mesh;
/* Fills *out with the triangles MeshInstance entity e draws; false when it has none. */
typedef bool (*rill_pick_mesh_fn)(const void *user, const rill_world *world, rill_entity e,
                                  rill_pick_mesh *out);

/* Zero = defaults: SELECTABLE, nothing blocks, unlimited distance, no MeshInstance or terrain. */
typedef struct rill_pick_desc {
    uint32_t start_canary; /* must be 0 */
    float origin[3];
    float dir[3];       /* need not be unit length; (0,0,0) picks nothing */
    uint64_t channels;  /* pickable when the mask holds one of these; 0 = SELECTABLE */
    bool opaque_blocks; /* drawn geometry outside `channels` in front hides what is behind */
    float max_distance; /* 0 = unlimited */
    rill_pick_mesh_fn mesh_source;      /* MeshInstance triangles (rill_render_pick_source) */
    const void *mesh_source_user;       /* passed to mesh_source */
    const rill_terrain_system *terrain; /* terrains to cast against; NULL = none */
    uint32_t end_canary;                /* must be 0 */
} rill_pick_desc;

typedef struct rill_pick_hit {
    rill_entity entity; /* the entity hit: ModelMesh, MeshInstance or Terrain */
    float distance;     /* world units along the normalized ray */
    float point[3];     /* world position of the hit */
    float normal[3];    /* world-space normal of the triangle, facing the ray */
} rill_pick_hit;

/* The world-space ray through pixel (x, y) of a w x h view (origin top-left, y down) of a camera
 * at world_from_view (column-major, looking down -Z, +Y up) with vertical fov_y in radians (or an
 * orthographic camera showing ortho_height world units vertically). dir is unit length. False for
 * a zero-sized view or a non-finite result. */
bool rill_channels_screen_ray(const float world_from_view[16], bool orthographic, float fov_y,
                              float ortho_height, float x, float y, float w, float h,
                              float out_origin[3], float out_dir[3]);
/* The nearest pickable entity on the ray (see ON PICKING). assets resolves ModelMesh triangles
 * (NULL: ModelMesh entities are not tested).
 * True with *out filled on a hit; false on a miss, bad arguments, or out of memory. */
bool rill_channels_pick(rill_world *world, rill_asset_server *assets, const rill_pick_desc *desc,
                        rill_pick_hit *out);
/* The name to show for a picked entity: the name of the entity its channels come from (the
 * nearest on its ancestor chain, itself first, with an explicit SceneChannels or an NM_ name),
 * else the nearest name on the chain; NULL when none has one. */
const char *rill_channels_pick_name(const rill_world *world, rill_entity e);

/* "Picked": the event of a pick a user made (a click in `rill run`, its --pick), sent into the
 * world by the tool that picked (rill_channels_send_pick) so that gameplay reads it like any event
 * (rill/world.h; scripts get on_event's "pick"). entity is RILL_ENTITY_NULL when the pick hit
 * nothing; x, y are the window pixel (origin top-left). */
#define RILL_CHANNELS_PICK_EVENT "Picked"
typedef struct rill_pick_event {
    rill_entity entity;
    float distance;
    float point[3];
    float normal[3];
    float x, y;
} rill_pick_event;
/* Registers the "Picked" event type in world (idempotent) and returns it; 0 when world is NULL or
 * out of memory. */
rill_event rill_channels_pick_event(rill_world *world);
/* Sends a Picked event for hit (NULL: the pick hit nothing) at window pixel (x, y). False when
 * world is NULL or out of memory. */
bool rill_channels_send_pick(rill_world *world, const rill_pick_hit *hit, float x, float y);

/* Channel names for tools: "context", "selectable", "preserve-identity", "ghost", or "bitN"
 * (N = 0..63). Parses "NAME=MODE" where MODE is normal | hidden | wireframe | ghost[:OPACITY]
 * (opacity default 0.5). False with a message in err for anything else. */
bool rill_channels_parse_assignment(const char *text, uint64_t *out_channels,
                                    rill_render_mode *out_mode, float *out_opacity,
                                    rill_error *err);
/* "normal", "hidden", "wireframe", "ghost". */
const char *rill_channels_mode_name(rill_render_mode mode);

#ifdef __cplusplus
}
#endif
#endif /* RILL_CHANNELS_H */
