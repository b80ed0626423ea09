/* physics_internal.h: the layout of a rill_physics and the helpers its files share. Only this
 * module includes ODE; nothing here leaks into the public header. */
#ifndef RILL_PHYSICS_INTERNAL_H
#define RILL_PHYSICS_INTERNAL_H

#include "rill/physics.h"

#include <ode/ode.h>

#define PHYS_LOG "physics"
/* The contacts one step may create (rill_physics_desc.max_step_contacts): the default leaves room
 * for thousands of bodies resting on each other (about 4 per touching pair), the maximum keeps
 * ODE's per-step solver memory (a few hundred bytes per contact) well under a gigabyte. */
#define PHYS_STEP_CONTACTS_DEFAULT 32768u
#define PHYS_STEP_CONTACTS_MAX (1u << 20)

/* Mesh or heightfield data ODE reads in place: the arrays live as long as the shape. */
typedef struct phys_shape {
    rill_physics_shape_type type;
    float *positions; /* mesh: vertex_count * 3 */
    uint32_t *indices;
    uint32_t vertex_count, index_count;
    float *heights; /* heightfield: samples_x * samples_z (row-major by z) */
    uint32_t samples_x, samples_z;
    float spacing_x, spacing_z;
    dTriMeshDataID tri;
    dHeightfieldDataID hf;
    size_t bytes;
    uint32_t users; /* colliders reading it: destroy scans for them only when non-zero */
} phys_shape;
/* Frees a shape's ODE data and copied geometry and zeroes the slot (shape.c). */
void rill__physics_shape_release(phys_shape *s);

/* One collision shape in the simulation, static or attached to a body. */
typedef struct phys_collider {
    dGeomID geom;
    dBodyID body; /* NULL for a static collider */
    rill_entity entity;
    uint32_t part;
    uint32_t shape_id; /* rill_physics_shape id for meshes and heightfields, else 0 */
    uint32_t layers;
    float friction, restitution;
    bool from_component;
    bool kinematic;
    uint32_t stamp; /* sync pass that last saw its component */
    /* Component copies, to see what changed since the collider was built. */
    rill_collider col;
    rill_rigid_body rb;
    bool has_rb;
    float matrix[16];               /* static / kinematic: the world matrix it was placed with */
    float last_pos[3];              /* dynamic: the Transform written back last */
    float last_rot[4];              /* (x, y, z, w) */
    float last_lin[3], last_ang[3]; /* dynamic: velocities written back last */
} phys_collider;

/* A pair of entities touching (contacts.c): keyed by a hash of the two. */
typedef struct phys_touch {
    uint64_t key;
    rill_physics_contact c; /* the event payload (its first contact) */
    uint32_t ca, cb;        /* the colliders that touched (for the asleep check) */
    uint32_t seen;          /* the step stamp that last saw the pair touching */
    bool fresh;             /* began this step: its begin event is not sent yet */
} phys_touch;

struct rill_physics {
    rill_physics_desc desc;
    rill_world *world;
    rill_physics_components comps;
    rill_component transform, global_transform, parent;
    dWorldID ode_world;
    dSpaceID static_space;  /* colliders without a body */
    dSpaceID dynamic_space; /* colliders of bodies */
    dJointGroupID contacts;
    dContactGeom *contact_scratch; /* max_contacts, for the near callback */
    dContact *contact_joints;      /* max_contacts */
    /* Queries reuse one geom of each kind rather than creating one per call. */
    dGeomID ray, query_sphere, query_box;
    rill_pool collider_pool;
    phys_collider *colliders; /* indexed by pool slot */
    rill_pool shape_pool;
    phys_shape *shapes;                 /* indexed by pool slot */
    rill_map by_entity;                 /* component entity -> collider id */
    rill_map refused;                   /* entity -> hash of the refused component bytes */
    RILL_ARRAY(uint32_t) component_ids; /* collider ids built from components */
    rill_map seen;                      /* query scratch: entities already reported */
    uint32_t stamp;
    uint32_t contacts_last;
    uint32_t contacts_dropped; /* touching pairs past max_step_contacts in the last step */
    uint64_t steps;
    uint64_t last_step_ns;
    uint64_t step_ns_total;
    uint32_t static_count, body_count;
    /* Contact events (contacts.c). */
    rill_event contact_begin, contact_end;
    RILL_ARRAY(phys_touch) touching;
    rill_map touch_index; /* key -> index into touching + 1 */
    uint32_t touch_stamp;
};

/* Validates a Collider for a shape of the given kind (dynamic: with a body); `scale` is the
 * entity's scale (NULL = 1). False with why[] filled when ODE must not see it. */
bool rill__phys_check_collider(const rill_physics *phys, const rill_collider *col,
                               const float scale[3], bool dynamic, char *why, size_t why_cap);
bool rill__phys_check_body(const rill_rigid_body *rb, char *why, size_t why_cap);
/* Builds a geom (in no space, no body) for col scaled by scale. NULL on failure (why filled). */
dGeomID rill__phys_make_geom(rill_physics *phys, const rill_collider *col, const float scale[3],
                             char *why, size_t why_cap);
/* Places a static geom at position/rotation (x, y, z, w), applying the shape's local frame
 * (capsules along +Y, heightfields from their first sample). */
void rill__phys_place_static(rill_physics *phys, dGeomID geom, const rill_collider *col,
                             const float pos[3], const float rot[4]);
/* Attaches a geom to a body with the shape's local frame (capsules turned to +Y). */
void rill__phys_attach(dGeomID geom, dBodyID body, const rill_collider *col);
/* A free collider slot: returns its id (0 when the pool is full) and zeroes the record. */
uint32_t rill__phys_collider_alloc(rill_physics *phys);
phys_collider *rill__phys_collider_get(const rill_physics *phys, uint32_t id);
/* Destroys the geom (and body) of a collider and frees its slot. */
void rill__phys_collider_free(rill_physics *phys, uint32_t id);
phys_shape *rill__phys_shape_get(const rill_physics *phys, uint32_t id);

/* Splits a column-major world matrix into translation, rotation (x, y, z, w) and scale. */
void rill__phys_decompose(const float m[16], float pos[3], float rot[4], float scale[3]);
bool rill__phys_finite(const float *v, uint32_t n);
/* rill (x, y, z, w) <-> ODE (w, x, y, z). */
void rill__phys_to_ode_quat(const float rot[4], dQuaternion out);
void rill__phys_from_ode_quat(const dReal *q, float out[4]);

/* Contact events (contacts.c): a step starts with touch_begin_step, the near callback reports
 * each colliding pair with touch_note, and touch_end_step sends the begin and end events. */
void rill__phys_touch_begin_step(rill_physics *phys);
void rill__phys_touch_note(rill_physics *phys, uint32_t ca, uint32_t cb, const dContactGeom *g);
void rill__phys_touch_end_step(rill_physics *phys);
void rill__phys_touch_free(rill_physics *phys);

/* Sync of the Collider / RigidBody components (sync.c). */
void rill__phys_sync_components(rill_physics *phys);
void rill__phys_write_back(rill_physics *phys);

#endif /* RILL_PHYSICS_INTERNAL_H */
