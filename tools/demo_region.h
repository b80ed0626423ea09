/* demo_region.h: the layout of `rill demo --km K`, the region world (demo_region_layout.c): a
 * K x K km square of 200 m cells, each a city core, a suburb or countryside, around a few cities
 * joined by roads; a terrain whose heights are flat under the towns and along the roads and rise
 * into hills elsewhere, with a splat map painting roads, suburban streets and fields; and the
 * fly path that crosses the region low and climbs to an overview. Pure computation (no files), so
 * tests check the shape; demo_region.c writes the project from it. */
#ifndef RILL_TOOLS_DEMO_REGION_H
#define RILL_TOOLS_DEMO_REGION_H

#include <stdbool.h>
#include <stdint.h>

#include "rill/base.h"

#define DEMO_REGION_CELL 200.0f /* a cell is one streamed district: the city's district size */
#define DEMO_REGION_MAX_CITIES 16u
#define DEMO_REGION_MAX_ROADS 48u
#define DEMO_REGION_TERRAIN_CHUNK 128.0f
#define DEMO_REGION_TERRAIN_RES 33u
#define DEMO_REGION_MARGIN 600.0f    /* terrain beyond the cells on every side */
#define DEMO_REGION_HEIGHT 180.0f    /* metres for a height sample of 1 */
#define DEMO_REGION_GROUND (-0.15f)  /* the terrain's y: just under the city's ground tiles */
#define DEMO_REGION_SPLAT_MAX 2048u  /* splat map side (texels) */
#define DEMO_REGION_ROAD_WIDTH 10.0f /* metres of asphalt */
#define DEMO_REGION_LOW 40.0f        /* the crossing's height above the ground */
#define DEMO_REGION_OVERVIEW 500.0f  /* the overview's height */
#define DEMO_REGION_MAX_KEYS 256u
/* The harbour: a basin carved into the terrain's east margin with a Water over it. */
#define DEMO_REGION_HARBOUR_DEEP 6.0f     /* metres its floor lies below the towns' flat ground */
#define DEMO_REGION_HARBOUR_SHORE 150.0f  /* metres from its edge to its full depth */
#define DEMO_REGION_HARBOUR_LEVEL (-0.3f) /* the sea's y: under the flat ground at the rim */

typedef enum demo_region_kind {
    DEMO_REGION_CORE,
    DEMO_REGION_SUBURB,
    DEMO_REGION_COUNTRY,
    DEMO_REGION_KIND_NUM
} demo_region_kind;

typedef struct demo_region_city {
    float x, z;
    float core_radius, suburb_radius; /* metres */
} demo_region_city;

typedef struct demo_region_road {
    float a[2], b[2]; /* x, z of its ends */
} demo_region_road;

typedef struct demo_region_key {
    float pos[3];
    bool has_look;
    float look[3];
} demo_region_key;

typedef struct demo_region {
    uint32_t km;
    uint32_t side; /* cells a side */
    float half;    /* the cells span [-half, half] on x and z */
    uint32_t city_count, road_count;
    demo_region_city cities[DEMO_REGION_MAX_CITIES];
    demo_region_road roads[DEMO_REGION_MAX_ROADS];
    uint8_t *kinds; /* side * side, row-major (x fastest), demo_region_kind */
    /* The terrain: chunks a side of DEMO_REGION_TERRAIN_CHUNK from (corner, corner). */
    uint32_t chunks, samples; /* samples a side: chunks * (res - 1) + 1 */
    float corner, step;
    uint16_t *heights;   /* samples * samples, v / 65535 * DEMO_REGION_HEIGHT metres */
    uint32_t splat_side; /* texels a side over the whole terrain */
    uint8_t *splat;      /* RGBA: grass, road, field, unused */
    uint32_t key_count;  /* the fly path */
    demo_region_key keys[DEMO_REGION_MAX_KEYS];
} demo_region;

/* Lays out a km x km region (1 <= km <= DEMO_REGION_MAX_KM): cities, cell kinds, roads, heights,
 * splat map and fly path. Deterministic: the heights and splat map are computed in rows on jobs'
 * workers (NULL: on this thread), the same values either way. */
rill_result demo_region_layout(demo_region *r, uint32_t km, rill_jobs *jobs, rill_error *err);
void demo_region_free(demo_region *r);

/* The cell (cx, cz) centre's world x and z. */
void demo_region_cell_center(const demo_region *r, uint32_t cx, uint32_t cz, float out[2]);
/* The terrain surface's y at world (x, z), as the terrain draws it (bilinear over the samples). */
float demo_region_ground(const demo_region *r, float x, float z);
/* The harbour's rectangle in world x and z: x min, x max, z min, z max (in the east margin, past
 * the cells). */
void demo_region_harbour_rect(const demo_region *r, float out[4]);
/* Distance in the XZ plane from (x, z) to the nearest road's centre line. */
float demo_region_road_distance(const demo_region *r, float x, float z);

#define DEMO_REGION_MAX_KM 15u /* terrain chunks stay within the terrain's default 16384 */

#endif /* RILL_TOOLS_DEMO_REGION_H */
