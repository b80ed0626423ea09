/* components.c: the reflection of "Collider" and "RigidBody". */
#include "physics_internal.h"

#include <stddef.h>

#define FIELD(T, m, TYPE, ...)                                                                     \
    {                                                                                              \
        .name = #m, .type = RILL_FIELD_##TYPE, .offset = (uint32_t)offsetof(T, m), .count = 1,     \
        __VA_ARGS__                                                                                \
    }

static rill_component register_collider(rill_world *world) {
    static const rill_enum_item shapes[] = {
        {"box", RILL_COLLIDER_BOX},
        {"sphere", RILL_COLLIDER_SPHERE},
        {"capsule", RILL_COLLIDER_CAPSULE},
        {"mesh", RILL_COLLIDER_MESH},
        {"heightfield", RILL_COLLIDER_HEIGHTFIELD},
    };
    static const float half[3] = {0.5f, 0.5f, 0.5f}, half_f = 0.5f, friction = 0.6f;
    static const uint32_t layers = 1;
    const rill_field fields[] = {
        FIELD(rill_collider, shape, ENUM, .enum_items = shapes,
              .enum_count = (uint32_t)RILL_COUNTOF(shapes), .doc = "collision shape"),
        FIELD(rill_collider, half_extents, VEC3, .default_value = half,
              .doc = "box: half size along each local axis (m, > 0)"),
        FIELD(rill_collider, radius, F32, .default_value = &half_f,
              .doc = "sphere and capsule radius (m, > 0)"),
        FIELD(rill_collider, half_height, F32, .default_value = &half_f,
              .doc = "capsule: half length of the straight part along local +Y (m, >= 0)"),
        FIELD(rill_collider, shape_data, U32, .flags = RILL_FIELD_NO_SERIALIZE,
              .doc = "mesh / heightfield: the rill_physics_shape id (runtime only)"),
        FIELD(rill_collider, friction, F32, .default_value = &friction,
              .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = 0.0, .max = 10.0,
              .doc = "Coulomb friction coefficient"),
        FIELD(rill_collider, restitution, F32, .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
              .min = 0.0, .max = 1.0, .doc = "bounciness (0 = none)"),
        FIELD(rill_collider, layers, U32, .default_value = &layers,
              .doc = "bits matched by query masks"),
    };
    rill_type_desc t = {
        .name = "Collider",
        RILL_TYPE_LAYOUT(rill_collider),
        RILL_FIELDS(fields),
        .doc = "a collision shape; static unless the entity also has a RigidBody",
    };
    return rill_world_register_component(world, &t);
}

static rill_component register_body(rill_world *world) {
    static const rill_enum_item kinds[] = {
        {"dynamic", RILL_BODY_DYNAMIC},
        {"kinematic", RILL_BODY_KINEMATIC},
    };
    static const float mass = 1.0f, lin = 0.01f, ang = 0.05f;
    static const bool gravity = true;
    const rill_field fields[] = {
        FIELD(rill_rigid_body, kind, ENUM, .enum_items = kinds,
              .enum_count = (uint32_t)RILL_COUNTOF(kinds)),
        FIELD(rill_rigid_body, mass, F32, .default_value = &mass, .doc = "kg (> 0)"),
        FIELD(rill_rigid_body, linear_damping, F32, .default_value = &lin,
              .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = 0.0, .max = 1.0),
        FIELD(rill_rigid_body, angular_damping, F32, .default_value = &ang,
              .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = 0.0, .max = 1.0),
        FIELD(rill_rigid_body, gravity, BOOL, .default_value = &gravity),
        FIELD(rill_rigid_body, sleeping, BOOL, .flags = RILL_FIELD_NO_SERIALIZE,
              .doc = "runtime: resting and skipped by the solver"),
        FIELD(rill_rigid_body, linear_velocity, VEC3, .doc = "m/s, world space"),
        FIELD(rill_rigid_body, angular_velocity, VEC3, .doc = "rad/s, world space"),
    };
    rill_type_desc t = {
        .name = "RigidBody",
        RILL_TYPE_LAYOUT(rill_rigid_body),
        RILL_FIELDS(fields),
        .doc = "makes the entity's Collider move (dynamic) or be moved by its Transform "
               "(kinematic)",
    };
    return rill_world_register_component(world, &t);
}

rill_physics_components rill_physics_register(rill_world *world) {
    rill_physics_components out = {0};
    if (!world) {
        return out;
    }
    out.collider = register_collider(world);
    out.rigid_body = register_body(world);
    return out;
}
