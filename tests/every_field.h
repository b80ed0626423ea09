/* every_field.h: one reflected struct with a field of every type, arrays of several types and
 * clamped fields, shared by the reflection tests, the scene tests and both text fuzzers (so a
 * new field type is added once and all four exercise it). Needs only rill/world.h. */
#ifndef RILL_TEST_EVERY_FIELD_H
#define RILL_TEST_EVERY_FIELD_H

#include "rill/world.h"

#include <stddef.h>

typedef enum every_mode {
    EVERY_MODE_BACK = -5,
    EVERY_MODE_OFF = 0,
    EVERY_MODE_LOW = 1,
    EVERY_MODE_HIGH = 7
} every_mode;

/* Defaults: f32 0.5, v3 (1, 2, 3), str "default", mode high, weights [0.25, 0.5, 0.25]; the
 * rest zero. Bounds: v4 <= 100, weights >= 0, unit in [0, 1], small in [-5, 5]. points is not
 * serialized. */
typedef struct every_field {
    bool flag;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    float v2[2];
    float v3[3];
    float v4[4];
    float q[4];
    float color[4];
    const char *str;
    const char *path;
    rill_entity ent;
    int32_t mode;
    float weights[3];
    const char *tags[2];
    int32_t modes[2];
    int32_t ints[2];
    rill_entity refs[2];
    float points[2][3];
    float unit;
    int32_t small;
} every_field;

/* The type desc of every_field, registered under `name` (the field table is static). */
static inline rill_type_desc every_field_type(const char *name) {
    static const rill_enum_item modes[] = {{"off", EVERY_MODE_OFF},
                                           {"low", EVERY_MODE_LOW},
                                           {"high", EVERY_MODE_HIGH},
                                           {"back", EVERY_MODE_BACK}};
    static const float def_f32 = 0.5f;
    static const float def_v3[3] = {1, 2, 3};
    static const char *const def_str = "default";
    static const int32_t def_mode = EVERY_MODE_HIGH;
    static const float def_weights[3] = {0.25f, 0.5f, 0.25f};
    static const rill_field fields[] = {
        RILL_FIELD(every_field, flag, BOOL),
        RILL_FIELD(every_field, i32, I32),
        RILL_FIELD(every_field, u32, U32),
        RILL_FIELD(every_field, i64, I64),
        RILL_FIELD(every_field, u64, U64),
        RILL_FIELD_WITH(every_field, f32, F32, .default_value = &def_f32),
        RILL_FIELD(every_field, f64, F64),
        RILL_FIELD(every_field, v2, VEC2),
        RILL_FIELD_WITH(every_field, v3, VEC3, .default_value = def_v3),
        RILL_FIELD_WITH(every_field, v4, VEC4, RILL_FIELD_MAX(100)),
        RILL_FIELD(every_field, q, QUAT),
        RILL_FIELD(every_field, color, COLOR),
        RILL_FIELD_WITH(every_field, str, STRING, .default_value = &def_str),
        RILL_FIELD(every_field, path, ASSET_PATH),
        RILL_FIELD(every_field, ent, ENTITY),
        RILL_FIELD_WITH(every_field, mode, ENUM, .default_value = &def_mode, .enum_items = modes,
                        .enum_count = 4),
        {.name = "weights",
         .type = RILL_FIELD_F32,
         .offset = offsetof(every_field, weights),
         .count = 3,
         .default_value = def_weights,
         RILL_FIELD_MIN(0)},
        {.name = "tags",
         .type = RILL_FIELD_STRING,
         .offset = offsetof(every_field, tags),
         .count = 2},
        {.name = "modes",
         .type = RILL_FIELD_ENUM,
         .offset = offsetof(every_field, modes),
         .count = 2,
         .enum_items = modes,
         .enum_count = 4},
        {.name = "ints", .type = RILL_FIELD_I32, .offset = offsetof(every_field, ints), .count = 2},
        {.name = "refs",
         .type = RILL_FIELD_ENTITY,
         .offset = offsetof(every_field, refs),
         .count = 2},
        {.name = "points",
         .type = RILL_FIELD_VEC3,
         .offset = offsetof(every_field, points),
         .count = 2,
         .flags = RILL_FIELD_NO_SERIALIZE},
        RILL_FIELD_WITH(every_field, unit, F32, RILL_FIELD_RANGE(0, 1)),
        RILL_FIELD_WITH(every_field, small, I32, RILL_FIELD_RANGE(-5, 5)),
    };
    return (rill_type_desc){.name = name,
                            RILL_TYPE_LAYOUT(every_field),
                            .fields = fields,
                            .field_count = (uint32_t)RILL_COUNTOF(fields)};
}

#endif
