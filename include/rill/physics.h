/* rill/physics.h: rigid-body physics and collision queries, built on the Open Dynamics Engine.
 *
 * ON THE PHYSICS WORLD
 *   A rill_physics belongs to one rill_world (main thread only). rill_physics_create registers the
 *   "Collider" and "RigidBody" components in that world. Each rill_physics_step:
 *     1. syncs the components: every entity with a Collider gets a collision shape (a static one,
 *        or a moving one when the entity also has a RigidBody); changed components rebuild their
 *        shape; removed components and despawned entities lose theirs;
 *     2. advances the simulation by dt (gravity, contacts, joints of contact only);
 *     3. writes the new position and rotation of every dynamic body back into its Transform (and
 *        its velocities into its RigidBody), so the renderer and gameplay see them after the next
 *        transform propagation.
 *   The app steps it in its fixed_update stage (rill_app_enable_physics, rill/app.h).
 *
 *   Only this module includes ODE's headers. ODE's own allocations go through rill_malloc with
 *   the RILL_MEM_PHYSICS tag, so rill_mem_live_bytes(RILL_MEM_PHYSICS) counts everything physics
 *   holds.
 *
 * ON SHAPES
 *   Box (half extents), sphere (radius) and capsule (radius plus the half length of its straight
 *   part, along local +Y) are described inline in the Collider. A triangle mesh or a heightfield
 *   is bulk data: create it once with rill_physics_shape_create (the data is copied) and name the
 *   returned rill_physics_shape in the Collider's `shape_data`, or in a collider added through
 *   rill_physics_collider_add. Meshes and heightfields are static only.
 *
 *   A heightfield's local frame has its first sample at the origin: sample (x, z) stands at
 *   (x * spacing_x, height, z * spacing_z); heights are row-major by z.
 *
 *   An entity's transform places its collider: translation and rotation from the GlobalTransform
 *   (else the Transform), and its scale multiplies box extents, sphere and capsule sizes (meshes
 *   and heightfields are not scaled). Dynamic bodies must be root entities, since their Transform
 *   is written with world-space values.
 *
 * ON BAD VALUES
 *   Non-finite numbers, zero or negative sizes and masses, and degenerate meshes are refused
 *   before ODE sees them. Through the API: RILL_ERR_INVALID_ARGUMENT with a message. Through
 *   components: one error logged naming the entity, the entity gets no shape, and `refused` in the
 *   stats counts it; it is retried when its Collider or RigidBody changes.
 *
 * ON QUERIES
 *   Raycasts and overlap tests run against the state after the last step (or the last
 *   rill_physics_sync) and report entities: for colliders added through the API, the entity and
 *   `part` given at creation (the terrain names its own entity and the chunk index).
 *
 * Depends on: base, world, ODE (private).
 */
#ifndef RILL_PHYSICS_H
#define RILL_PHYSICS_H

#include "rill/base.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rill_physics rill_physics;

/* A triangle mesh or heightfield owned by a physics world. 0 = none. */
typedef struct rill_physics_shape {
    uint32_t id;
} rill_physics_shape;

/* A collider added through rill_physics_collider_add. 0 = none. */
typedef struct rill_physics_collider {
    uint32_t id;
} rill_physics_collider;

/* >>components -------------------------------------------------------------------------------- */

typedef enum rill_collider_shape {
    RILL_COLLIDER_BOX = 0,     /* "box" */
    RILL_COLLIDER_SPHERE,      /* "sphere" */
    RILL_COLLIDER_CAPSULE,     /* "capsule" */
    RILL_COLLIDER_MESH,        /* "mesh": shape_data names a mesh shape */
    RILL_COLLIDER_HEIGHTFIELD, /* "heightfield": shape_data names a heightfield shape */
    RILL_COLLIDER_SHAPE_NUM,
    RILL_COLLIDER_SHAPE_FORCE_U32 = 0x7FFFFFFF
} rill_collider_shape;

/* "Collider": box half_extents (0.5, 0.5, 0.5), radius 0.5, half_height 0.5, shape_data 0
 * (runtime only, not written to scenes), friction 0.6 in [0, 10], restitution 0 in [0, 1],
 * layers 1 (bits queried by the masks of raycasts and overlaps; 0 = never queried). */
typedef struct rill_collider {
    int32_t shape; /* rill_collider_shape */
    float half_extents[3];
    float radius;
    float half_height;
    uint32_t shape_data; /* rill_physics_shape id for MESH and HEIGHTFIELD */
    float friction;
    float restitution;
    uint32_t layers;
} rill_collider;

typedef enum rill_body_kind {
    RILL_BODY_DYNAMIC = 0, /* "dynamic": moved by forces and contacts */
    RILL_BODY_KINEMATIC,   /* "kinematic": moved by its Transform only; pushes dynamic bodies */
    RILL_BODY_KIND_NUM,
    RILL_BODY_KIND_FORCE_U32 = 0x7FFFFFFF
} rill_body_kind;

/* "RigidBody" (with a Collider on the same entity): kind dynamic, mass 1 (kg, > 0),
 * linear_damping 0.01 and angular_damping 0.05 (fractions per step, in [0, 1]), gravity true,
 * linear_velocity and angular_velocity (0, 0, 0): read them for the body's state after each step;
 * write them to set it. `sleeping` (runtime only) is true while the body rests and is skipped by
 * the solver. */
typedef struct rill_rigid_body {
    int32_t kind; /* rill_body_kind */
    float mass;
    float linear_damping;
    float angular_damping;
    bool gravity;
    bool sleeping;
    float linear_velocity[3];
    float angular_velocity[3];
} rill_rigid_body;

/* The ids of the physics components in a world (registering again returns the same ids). */
typedef struct rill_physics_components {
    rill_component collider;
    rill_component rigid_body;
} rill_physics_components;

/* Registers "Collider" and "RigidBody" (with their reflection) in world. Zero ids when world is
 * NULL. rill_physics_create calls it; scene tools call it to read scenes naming them. */
rill_physics_components rill_physics_register(rill_world *world);

/* >>world ------------------------------------------------------------------------------------- */

/* Defaults: gravity (0, -9.81, 0); solver_iterations 0 = 20; max_colliders 0 = 65536 (pool of
 * collider and shape handles, sized once; at most RILL_POOL_MAX_CAPACITY); max_contacts 0 = 4 per
 * touching pair (at most 256); max_step_contacts 0 = 32768 contacts in one step (at most 1 Mi:
 * pairs found once the step holds that many get none, and are counted in contacts_dropped, so
 * bodies piled at one point cost bounded time and memory, docs/limits.md); sleep true (resting
 * bodies stop being simulated until touched). world is required. */
typedef struct rill_physics_desc {
    uint32_t start_canary; /* must be 0 */
    rill_world *world;
    float gravity[3];
    bool gravity_set; /* false = the default gravity (a zero vector is a valid setting) */
    uint32_t solver_iterations;
    uint32_t max_colliders;
    uint32_t max_contacts;
    uint32_t max_step_contacts;
    bool no_sleep;
    uint32_t end_canary; /* must be 0 */
} rill_physics_desc;

/* The desc with every default filled in (world stays as given: NULL). */
rill_physics_desc rill_physics_query_defaults(void);

/* Creates a physics world bound to desc->world. Returns NULL and fills err (may be NULL) for an
 * invalid desc (no world, canaries, non-finite gravity) or out of memory. Destroy with
 * rill_physics_destroy before the world. */
rill_physics *rill_physics_create(const rill_physics_desc *desc, rill_error *err);
/* Destroys every collider, body and shape. NULL is a no-op. */
void rill_physics_destroy(rill_physics *phys);

/* Syncs the components (step 1 above) without advancing time: after it, queries see colliders
 * added this frame. */
void rill_physics_sync(rill_physics *phys);
/* Sync, advance by dt seconds (0 < dt <= 1; anything else only syncs), write back. */
void rill_physics_step(rill_physics *phys, double dt);

/* Counters: colliders (all shapes in the simulation), static_colliders (without a body), bodies
 * (dynamic and kinematic), awake (bodies not sleeping), shapes (mesh and heightfield data),
 * refused (component colliders refused, now), contacts (in the last step), contacts_dropped
 * (touching pairs the last step left without contacts: max_step_contacts was reached), steps, and
 * the main-thread time of the last step (sync + simulate + write-back) in nanoseconds. */
typedef struct rill_physics_stats {
    uint32_t colliders, static_colliders, bodies, awake, shapes, refused, contacts;
    uint32_t contacts_dropped;
    uint64_t steps;
    uint64_t last_step_ns;
    uint64_t step_ns_total; /* all steps and syncs since creation (per-frame time = difference) */
} rill_physics_stats;
void rill_physics_get_stats(const rill_physics *phys, rill_physics_stats *out);

/* >>shapes ------------------------------------------------------------------------------------ */

typedef enum rill_physics_shape_type {
    RILL_PHYSICS_SHAPE_NONE = 0,
    RILL_PHYSICS_SHAPE_MESH,
    RILL_PHYSICS_SHAPE_HEIGHTFIELD,
    RILL_PHYSICS_SHAPE_TYPE_NUM,
    RILL_PHYSICS_SHAPE_TYPE_FORCE_U32 = 0x7FFFFFFF
} rill_physics_shape_type;

/* type MESH: positions (vertex_count xyz triples) and indices (index_count, a multiple of 3, each
 *   < vertex_count); at least one triangle of non-zero area.
 * type HEIGHTFIELD: samples_x by samples_z heights (each >= 2, at most 4097), row-major by z,
 *   spacing_x and spacing_z > 0 (metres between samples).
 * Everything is copied; the arrays may be freed after the call. Non-finite values are refused. */
typedef struct rill_physics_shape_desc {
    uint32_t start_canary; /* must be 0 */
    rill_physics_shape_type type;
    const float *positions;
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count;
    const float *heights;
    uint32_t samples_x, samples_z;
    float spacing_x, spacing_z;
    const char *label;   /* for messages; NULL = "shape" */
    uint32_t end_canary; /* must be 0 */
} rill_physics_shape_desc;

/* Creates a shape. Returns RILL_ERR_INVALID_ARGUMENT (with the reason) for bad data,
 * RILL_ERR_POOL_EXHAUSTED when max_colliders handles are in use, RILL_ERR_OUT_OF_MEMORY. */
rill_result rill_physics_shape_create(rill_physics *phys, const rill_physics_shape_desc *desc,
                                      rill_physics_shape *out_shape, rill_error *err);
/* Destroys a shape. Colliders still using it lose their geometry first (component colliders are
 * rebuilt, and then refused, at the next sync). Stale handles are a no-op. */
void rill_physics_shape_destroy(rill_physics *phys, rill_physics_shape shape);
/* Bytes of data a shape holds (0 for a stale handle). */
size_t rill_physics_shape_bytes(const rill_physics *phys, rill_physics_shape shape);

/* >>api colliders ----------------------------------------------------------------------------- */

/* A static collider not tied to a Collider component. position and rotation (x, y, z, w; all
 * zero = identity) place it; entity and part are what queries report for it. */
typedef struct rill_physics_collider_desc {
    uint32_t start_canary;  /* must be 0 */
    rill_collider collider; /* shape, sizes, shape_data, friction, restitution, layers */
    float position[3];
    float rotation[4];
    rill_entity entity;
    uint32_t part;
    uint32_t end_canary; /* must be 0 */
} rill_physics_collider_desc;

/* Adds a static collider. Bad values are RILL_ERR_INVALID_ARGUMENT (nothing added). */
rill_result rill_physics_collider_add(rill_physics *phys, const rill_physics_collider_desc *desc,
                                      rill_physics_collider *out_collider, rill_error *err);
/* Removes it; stale handles are a no-op. */
void rill_physics_collider_remove(rill_physics *phys, rill_physics_collider collider);

/* >>queries ----------------------------------------------------------------------------------- */

/* One raycast hit: the entity (and part) of the collider, the point, the surface normal (unit,
 * facing the ray) and the distance from the origin. */
typedef struct rill_physics_hit {
    rill_entity entity;
    uint32_t part;
    float position[3];
    float normal[3];
    float distance;
} rill_physics_hit;

/* The nearest hit along origin + t * dir for t in [0, max_distance] among colliders whose layers
 * share a bit with mask (0 = all). dir need not be unit length (it must not be zero). Returns
 * false on a miss or bad arguments (non-finite values, max_distance <= 0). out_hit may be NULL. */
bool rill_physics_raycast(rill_physics *phys, const float origin[3], const float dir[3],
                          float max_distance, uint32_t mask, rill_physics_hit *out_hit);

/* The entities whose colliders overlap a sphere / an oriented box (rotation x, y, z, w; NULL =
 * identity). Each entity is reported once, in no particular order; up to cap go to out (may be
 * NULL when cap is 0). Returns how many overlap (may exceed cap), 0 for bad arguments. */
uint32_t rill_physics_overlap_sphere(rill_physics *phys, const float center[3], float radius,
                                     uint32_t mask, rill_entity *out, uint32_t cap);
uint32_t rill_physics_overlap_box(rill_physics *phys, const float center[3],
                                  const float half_extents[3], const float rotation[4],
                                  uint32_t mask, rill_entity *out, uint32_t cap);

/* >>contacts ---------------------------------------------------------------------------------- */

/* Contact events: each step compares the pairs of entities whose colliders touch (ODE produced at
 * least one contact between them) with the previous step's, and sends into the world
 * "PhysicsContactBegin" for a pair that started touching and "PhysicsContactEnd" for one that
 * stopped (or whose collider went). A pair is two entities: several colliders or terrain chunks
 * of one entity touching another count once. A pair whose bodies fell asleep touching stays
 * touching (no end) until one wakes and parts. Pairs left without contacts by max_step_contacts
 * look parted for that step. Read them with a rill_event_reader (rill/world.h) after the
 * fixed_update stage; scripts get them as on_event's contact_begin / contact_end. */
#define RILL_PHYSICS_CONTACT_BEGIN_EVENT "PhysicsContactBegin"
#define RILL_PHYSICS_CONTACT_END_EVENT "PhysicsContactEnd"

/* The payload of both events. point, normal and depth: ODE's first contact of the step the pair
 * began touching (an end event repeats them). normal is unit and points from b toward a (moving a
 * along it by depth separates them). part_a, part_b: the colliders' parts (terrain chunks). */
typedef struct rill_physics_contact {
    rill_entity a, b;
    uint32_t part_a, part_b;
    float point[3];
    float normal[3];
    float depth;
} rill_physics_contact;

/* Registers the two event types in world (idempotent; rill_physics_create does it) and returns
 * them. Zero ids when world is NULL or out of memory. */
void rill_physics_contact_events(rill_world *world, rill_event *out_begin, rill_event *out_end);
/* The pairs touching after the last step. */
uint32_t rill_physics_touching_count(const rill_physics *phys);

#ifdef __cplusplus
}
#endif
#endif /* RILL_PHYSICS_H */
