/* component.c: the "Terrain" component (reflection, defaults, range checks) and the pure
 * streaming rule. */
#include "terrain_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const float layer_colors[RILL_TERRAIN_MAX_LAYERS][4] = {
    {0.35f, 0.45f, 0.25f, 1.0f}, /* grass */
    {0.45f, 0.40f, 0.35f, 1.0f}, /* dirt */
    {0.55f, 0.55f, 0.55f, 1.0f}, /* rock */
    {0.90f, 0.90f, 0.92f, 1.0f}, /* snow */
};

void rill_terrain_defaults(rill_terrain *out) {
    memset(out, 0, sizeof *out);
    out->chunks_x = 4;
    out->chunks_z = 4;
    out->chunk_size = 64.0f;
    out->resolution = 129;
    out->height_scale = 64.0f;
    out->seed = 1;
    out->noise_scale = 256.0f;
    out->stream_radius = 256.0f;
    out->max_rebuilds = 2;
    out->layer_count = 1;
    memcpy(out->layer_color, layer_colors, sizeof layer_colors);
    for (int i = 0; i < RILL_TERRAIN_MAX_LAYERS; i++) {
        out->layer_tile[i] = 8.0f;
    }
}

#define FIELD(m, TYPE, ...)                                                                        \
    {                                                                                              \
        .name = #m, .type = RILL_FIELD_##TYPE, .offset = (uint32_t)offsetof(rill_terrain, m),      \
        .count = 1, __VA_ARGS__                                                                    \
    }
#define RANGE(lo, hi) .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi)

rill_component rill_terrain_register(rill_world *world) {
    if (!world) {
        return RILL_COMPONENT_NONE;
    }
    rill_physics_register(world);
    rill_terrain defaults;
    rill_terrain_defaults(&defaults);
    const rill_field fields[] = {
        FIELD(chunks_x, U32, RANGE(1, RILL_TERRAIN_MAX_CHUNKS_SIDE), .doc = "chunks along X"),
        FIELD(chunks_z, U32, RANGE(1, RILL_TERRAIN_MAX_CHUNKS_SIDE), .doc = "chunks along Z"),
        FIELD(chunk_size, F32, RANGE(0.01, 1e6), .doc = "edge of one chunk (m)"),
        FIELD(resolution, U32, RANGE(2, RILL_TERRAIN_MAX_RESOLUTION),
              .doc = "height samples per chunk edge (shared with the neighbour)"),
        FIELD(height_scale, F32, .doc = "metres for a sample of 1"),
        FIELD(height_offset, F32, .doc = "metres added to every height"),
        FIELD(heightmap, ASSET_PATH, .doc = ".png (16-bit grey), .r16 or .r32/.f32; empty = noise"),
        FIELD(seed, U32, .doc = "generated terrain: noise seed"),
        FIELD(noise_scale, F32, RANGE(0.01, 1e7), .doc = "generated terrain: feature size (m)"),
        FIELD(stream, BOOL, .doc = "chunks stream with camera distance while streaming is on"),
        FIELD(stream_radius, F32, RANGE(0.0, 1e7),
              .doc = "chunks within this distance are resident (never below chunk_size)"),
        FIELD(max_rebuilds, U32, RANGE(1, 64), .doc = "chunk builds applied per frame"),
        FIELD(splat_map, ASSET_PATH, .doc = "RGBA weights of layers 0..3 (empty = layer 0)"),
        FIELD(layer_count, U32, RANGE(0, RILL_TERRAIN_MAX_LAYERS)),
        {.name = "layer_color",
         .type = RILL_FIELD_COLOR,
         .offset = (uint32_t)offsetof(rill_terrain, layer_color),
         .count = RILL_TERRAIN_MAX_LAYERS,
         .doc = "base colour (tint) of each layer"},
        {.name = "layer_albedo",
         .type = RILL_FIELD_ASSET_PATH,
         .offset = (uint32_t)offsetof(rill_terrain, layer_albedo),
         .count = RILL_TERRAIN_MAX_LAYERS,
         .doc = "albedo texture of each layer (optional)"},
        {.name = "layer_normal",
         .type = RILL_FIELD_ASSET_PATH,
         .offset = (uint32_t)offsetof(rill_terrain, layer_normal),
         .count = RILL_TERRAIN_MAX_LAYERS,
         .doc = "normal map of each layer (optional)"},
        {.name = "layer_tile",
         .type = RILL_FIELD_F32,
         .offset = (uint32_t)offsetof(rill_terrain, layer_tile),
         .count = RILL_TERRAIN_MAX_LAYERS,
         .flags = RILL_FIELD_HAS_MIN,
         .min = 0.01,
         .doc = "metres per texture repeat"},
    };
    rill_type_desc t = {
        .name = "Terrain",
        RILL_TYPE_LAYOUT(rill_terrain),
        RILL_FIELDS(fields),
        .defaults = &defaults,
        .doc = "a chunked heightmap terrain with splat layers and physics colliders",
    };
    return rill_world_register_component(world, &t);
}

static bool same_path(const char *a, const char *b) {
    if (!a) {
        a = "";
    }
    if (!b) {
        b = "";
    }
    return strcmp(a, b) == 0;
}

bool rill__terrain_needs_reload(const rill_terrain *a, const rill_terrain *b) {
    return a->chunks_x != b->chunks_x || a->chunks_z != b->chunks_z ||
           a->chunk_size != b->chunk_size || a->resolution != b->resolution ||
           a->height_scale != b->height_scale || a->height_offset != b->height_offset ||
           !same_path(a->heightmap, b->heightmap) || a->seed != b->seed ||
           a->noise_scale != b->noise_scale || !same_path(a->splat_map, b->splat_map);
}

void rill__terrain_sanitize(rill_terrain *t) {
    t->chunks_x = RILL_CLAMP(t->chunks_x, 1u, RILL_TERRAIN_MAX_CHUNKS_SIDE);
    t->chunks_z = RILL_CLAMP(t->chunks_z, 1u, RILL_TERRAIN_MAX_CHUNKS_SIDE);
    t->resolution = RILL_CLAMP(t->resolution, 2u, RILL_TERRAIN_MAX_RESOLUTION);
    if (!isfinite(t->chunk_size) || t->chunk_size < 0.01f) {
        t->chunk_size = 64.0f;
    }
    if (!isfinite(t->height_scale)) {
        t->height_scale = 0.0f;
    }
    if (!isfinite(t->height_offset)) {
        t->height_offset = 0.0f;
    }
    if (!isfinite(t->noise_scale) || t->noise_scale < 0.01f) {
        t->noise_scale = 256.0f;
    }
    if (!isfinite(t->stream_radius)) {
        t->stream_radius = 256.0f;
    }
    t->stream_radius = RILL_MAX(t->stream_radius, t->chunk_size);
    t->max_rebuilds = RILL_CLAMP(t->max_rebuilds, 1u, 64u);
    t->layer_count = RILL_MIN(t->layer_count, (uint32_t)RILL_TERRAIN_MAX_LAYERS);
}

/* >>streaming rule */

float rill_terrain_rect_distance(const float p[2], const float rect_min[2],
                                 const float rect_max[2]) {
    float dx = RILL_MAX(RILL_MAX(rect_min[0] - p[0], 0.0f), p[0] - rect_max[0]);
    float dz = RILL_MAX(RILL_MAX(rect_min[1] - p[1], 0.0f), p[1] - rect_max[1]);
    return sqrtf(dx * dx + dz * dz);
}

int rill_terrain_chunk_decision(float distance, float radius, float chunk_size) {
    radius = RILL_MAX(radius, chunk_size);
    if (distance <= radius) {
        return 1;
    }
    if (distance > radius + chunk_size) {
        return -1;
    }
    return 0;
}
