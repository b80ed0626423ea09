/* demo_gen.h: what the two world generators of `rill demo` share: the scratch world and counters a
 * generator writes scene files with (cmd_demo.c's city; demo_region.c's region of city cores,
 * suburbs and countryside, `--km`), and the city generator's helpers the region reuses (placing
 * an entity, writing the scratch world as one .rsn, a city district variant). */
#ifndef RILL_TOOLS_DEMO_GEN_H
#define RILL_TOOLS_DEMO_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "rill/world.h"

typedef struct demo_ids {
    rill_component building, prop, light, instance;
    rill_component model, point_light, directional_light, channel_mask;
} demo_ids;

/* A generator's state: entities are made in the scratch world w, then written under `out` as
 * one scene file (demo_gen_save_roots), which empties w again. Work spread over jobs (NULL: one
 * thing after another) writes the same bytes; each job writes with a scratch generator of its own
 * (demo_gen_open). */
typedef RILL_ARRAY(rill_entity) demo_entities;

typedef struct demo_gen {
    rill_world *w;
    demo_entities made; /* every entity demo_gen_put made since the last file, in order */
    demo_ids ids;
    rill_jobs *jobs;
    const char *out;
    uint64_t bytes_written;
    uint32_t files_written;
    uint32_t variants; /* district scenes (at most DEMO_DISTRICT_VARIANTS) */
    uint32_t styles;   /* image sets: district variant N builds in style N % styles */
} demo_gen;

/* The city's district: a 200 m square (streets every 50 m); its variants are
 * districts/district_N.rsn. */
#define DEMO_DISTRICT_SIZE 200.0f /* metres between district centres */
#define DEMO_DISTRICT_MAX_ENTITIES 1000u

/* Makes g's scratch world (every engine component registered) for writing under out. */
rill_result demo_gen_open(demo_gen *g, const char *out, rill_error *err);
/* Destroys g's world. */
void demo_gen_close(demo_gen *g);

/* An entity at (x, y, z) turned by yaw about +Y, named when name is not NULL, under parent when
 * it is not 0. */
rill_entity demo_gen_put(demo_gen *g, rill_entity parent, const char *name, float x, float y,
                         float z, float yaw);
/* A Model component naming path (project-relative .glb). */
void demo_gen_add_model(demo_gen *g, rill_entity e, const char *path);
/* The sky's weather on one entity routed to every camera: Clouds and a distance haze (DistanceFog
 * in the sky's colour) that is nearly opaque at `hide` metres, where streaming stops drawing.
 * Returns the entities added (1, or 0 when the components are not registered). */
uint32_t demo_gen_sky(demo_gen *g, float hide);
/* Writes every root entity of the scratch world into out/rel, then empties the world. */
rill_result demo_gen_save_roots(demo_gen *g, const char *rel, rill_error *err);
/* Writes "out/rel" into path; a path that does not fit is an error. */
rill_result demo_gen_out_path(char *path, size_t cap, const char *out, const char *rel,
                              rill_error *err);
/* Writes city district variant `variant` (districts/district_N.rsn) with about `budget` entities;
 * returns how many it holds. */
uint32_t demo_gen_city_district(demo_gen *g, uint32_t variant, uint32_t budget, rill_error *err,
                                rill_result *res);

/* demo_gen.c: the placement pieces both generators share. */
/* splitmix64 from seed *s: the next number, and one in [lo, hi). */
uint64_t demo_gen_rng_next(uint64_t *s);
float demo_gen_rng_float(uint64_t *s, float lo, float hi);
/* Turns e (its Transform's rotation) by yaw about +Y, then pitch about its X (radians). */
void demo_gen_aim(demo_gen *g, rill_entity e, float yaw, float pitch);
/* A Camera on e: the main one (the default camera, the sky's clear colour) or an inactive one
 * (`rill render --camera NAME` picks it); far_plane 0 keeps the default. */
void demo_gen_camera(demo_gen *g, rill_entity e, bool is_main, float far_plane);
/* The sun: "Sun", 500 m up, late afternoon light from the south-east (55 degrees up), shadows. */
void demo_gen_sun(demo_gen *g);
/* The harbour's sea: a Water (the FFT ocean) at height level bounded to rect (x0, x1, z0, z1), a
 * light breeze along +X, and an inactive "Harbour camera" at cam turned cam_yaw and 4 degrees
 * down. Returns the entities (2; 0 without the Water component). */
uint32_t demo_gen_harbour(demo_gen *g, const float rect[4], float level, const float cam[3],
                          float cam_yaw);

/* demo_region.c: `rill demo --km K`. Writes the region's project under out (project.toml,
 * main.rsn, districts/, country/, models/, terrain.r16, terrain_splat.png) and fly_path (the
 * crossing at low altitude and the climb to the overview). density in (0, 1] scales every
 * district's entity count (1 = the full world). Fills the counts the demo prints. */
typedef struct demo_region_result {
    uint64_t entities;  /* scene entities in the whole world (model trees come on top) */
    uint32_t districts; /* streamed instances */
    uint32_t cores, suburbs, country;
} demo_region_result;

rill_result demo_region_generate(demo_gen *g, uint32_t km, float density, const char *fly_path,
                                 demo_region_result *out, rill_error *err);

#endif /* RILL_TOOLS_DEMO_GEN_H */
