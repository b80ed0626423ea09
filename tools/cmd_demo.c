/* cmd_demo.c: `rill demo` writes a deterministic demo world as .rsn scene files, loads it
 * asynchronously through the frame loop with the same progress display as `rill scene load`, and
 * renders it: the demo components become drawables (rill_demo_make_drawables) and a few views are
 * written as PNGs headless, then, with --window, the world opens in `rill run`'s viewer.
 *
 * The world is scene instances over models:
 *   main.rsn                  a camera, a sun, the landmarks, the harbour (a Water over a terrain
 *                             basin along the east edge) and one streamed SceneInstance per
 *                             district
 *   districts/district_N.rsn  district variants (16, or 8 in small test worlds): ground, buildings,
 *                             props, street lights; each in a style (its own facade, roof and
 *                             paving images: models/building_K_sN.glb, models/ground_sN.glb)
 *   models/NAME.glb           textured glTF models with authored detail levels (demo_assets.c)
 * so a million entities come from a few dozen small files. Generation is split
 * into small functions (one per scene kind) so later work (meshes, materials, streaming radii)
 * can extend one level without touching the rest.
 */
#include "cli_opts.h"
#include "cmds.h"
#include "demo.h"
#include "demo_gen.h"
#include "demo_region.h"

#include <math.h>

#include <cglm/cglm.h>

#include "rill/channels.h"
#include "rill/formats/export.h"
#include "rill/render.h"
#include "rill/render/environment.h"
#include "rill/render/gi.h"
#include "rill/render/ocean.h"
#include "rill/render/reflections.h"
#include "rill/scene/model.h"
#include "rill/stream.h"
#include "rill/terrain.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEMO_BUILDINGS_PER_DISTRICT 24u /* a 5 x 5 grid with a plaza in the middle */
#define DEMO_PROPS_PER_DISTRICT 40u
#define DEMO_LIGHTS_PER_DISTRICT 12u
#define DEMO_STREETS_PER_DISTRICT 4u
#define DEMO_DEFAULT_ENTITIES 1000000u
/* Worlds of at least this many entities get 1024^2 textures (texture streaming has something to
 * stream); smaller ones (tests) keep 128^2 so they stay quick to write and export. */
#define DEMO_BIG_TEXTURES_FROM 100000u

/* >>generation -------------------------------------------------------------------------------- */

static uint32_t rng_u32(uint64_t *s, uint32_t n) {
    return (uint32_t)(demo_gen_rng_next(s) % n);
}

typedef demo_gen gen; /* demo_gen.h: shared with the region generator (demo_region.c) */

static rill_entity put(gen *g, rill_entity parent, const char *name, float x, float y, float z,
                       float yaw) {
    rill_entity e = rill_world_spawn(g->w);
    rill_transform t = rill_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    t.rotation[1] = sinf(yaw * 0.5f);
    t.rotation[3] = cosf(yaw * 0.5f);
    rill_world_set_transform(g->w, e, &t);
    if (name) {
        rill_world_set_name(g->w, e, name);
    }
    if (parent) {
        rill_world_set_parent(g->w, e, parent);
    }
    if (!rill_array_push(&g->made, e)) {
        g->made.len = 0; /* out of memory: the file lists its roots in slot order */
    }
    return e;
}

/* Writes "out/rel" into path. A path that does not fit is an error, never a silently cut one: a
 * cut "OUT/districts" can name OUT itself or a folder above it, which generate then empties. */
static rill_result out_path(char *path, size_t cap, const char *out, const char *rel,
                            rill_error *err) {
    int n = snprintf(path, cap, "%s/%s", out, rel);
    if (n < 0 || (size_t)n >= cap) {
        /* The reason goes first: the path itself may not fit the message. */
        return rill_error_set(err, RILL_ERR_LIMIT, "path too long (%zu bytes): %s/%s",
                              strlen(out) + 1u + strlen(rel), out, rel);
    }
    return RILL_OK;
}

/* The scratch world's roots into *roots: in the order put() made them when it made every entity
 * (a world that wrote a file before reuses its entity slots in another order, so slot order
 * would make a file's bytes depend on what its world wrote before), else in slot order. */
static bool list_roots(gen *g, demo_entities *roots) {
    if (g->made.len == rill_world_entity_count(g->w)) {
        for (uint32_t i = 0; i < g->made.len; i++) {
            rill_entity e = g->made.data[i];
            if (!rill_world_get_parent(g->w, e) && !rill_array_push(roots, e)) {
                return false;
            }
        }
        return true;
    }
    rill_entity e;
    for (uint32_t it = 0; rill_world_entity_next(g->w, &it, &e);) {
        if (!rill_world_get_parent(g->w, e) && !rill_array_push(roots, e)) {
            return false;
        }
    }
    return true;
}

/* Writes every root entity of the scratch world into out/rel, then empties the world. */
static rill_result save_roots(gen *g, const char *rel, rill_error *err) {
    demo_entities roots = {0};
    if (!list_roots(g, &roots)) {
        rill_array_free(&roots);
        g->made.len = 0;
        rill_world_clear(g->w);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
    }
    char path[1024];
    rill_strbuf text = {0};
    rill_result r = out_path(path, sizeof(path), g->out, rel, err);
    if (r == RILL_OK) {
        r = rill_scene_write(g->w, roots.data, roots.len, NULL, &text, err);
    }
    if (r == RILL_OK) {
        r = rill_file_write_all(path, text.data, text.len, err);
        g->bytes_written += text.len;
        g->files_written++;
    }
    rill_strbuf_free(&text);
    rill_array_free(&roots);
    g->made.len = 0;
    rill_world_clear(g->w);
    return r;
}

/* >>city ------------------------------------------------------------------------------------- */

/* The city: DEMO_DISTRICT_VARIANTS district scenes, each a 200 m square of buildings, trees, street
 * lamps (every fourth with a point light), benches and cars, all Model entities naming the
 * generated .glb files; the main scene places one streamed SceneInstance per district on a square
 * grid (with its bounds, so the first load is decided by distance to the district's box), plus a
 * camera, the sun and the NM_ landmarks. Only the user-facing components are used. */
#define DEMO_DISTRICT_VARIANTS 16u
#define DEMO_LOAD_RADIUS 400.0f
#define DEMO_UNLOAD_RADIUS 480.0f

static void add_model(gen *g, rill_entity e, const char *path) {
    rill_model_ref m = {.path = rill_intern(path)};
    rill_world_add(g->w, e, g->ids.model, &m);
}

static void add_point_light(gen *g, rill_entity e, float intensity, float range) {
    rill_point_light l = {
        .color = {1.0f, 0.85f, 0.6f, 1.0f}, .intensity = intensity, .range = range};
    rill_world_add(g->w, e, g->ids.point_light, &l);
}

/* A prop on the sidewalk ring of block (bx, bz) of the 4 x 4 block grid (50 m blocks, streets
 * along their edges). Returns its position in district space. */
static void sidewalk_spot(uint64_t *s, float out[2]) {
    int bx = (int)rng_u32(s, 4), bz = (int)rng_u32(s, 4);
    float cx = -75.0f + 50.0f * (float)bx, cz = -75.0f + 50.0f * (float)bz;
    float t = demo_gen_rng_float(s, -18.0f, 18.0f);
    switch (rng_u32(s, 4)) {
    case 0:
        out[0] = cx + t, out[1] = cz - 19.0f;
        break;
    case 1:
        out[0] = cx + t, out[1] = cz + 19.0f;
        break;
    case 2:
        out[0] = cx - 19.0f, out[1] = cz + t;
        break;
    default:
        out[0] = cx + 19.0f, out[1] = cz + t;
        break;
    }
}

/* One district variant with `budget` entities. Returns how many it holds. */
static uint32_t gen_district(gen *g, uint32_t variant, uint32_t budget, rill_error *err,
                             rill_result *res) {
    uint64_t s = 0xD157000ull + variant * 7919ull;
    uint32_t count = 0;
    rill_entity ground = put(g, 0, "Ground", 0, 0, 0, 0);
    char name[48], path[64], style[16] = "";
    if (variant % g->styles) { /* style 0 keeps the plain names (demo_assets.c) */
        snprintf(style, sizeof style, "_s%u", variant % g->styles);
    }
    snprintf(path, sizeof path, "models/ground%s.glb", style);
    add_model(g, ground, path);
    count++;
    /* One building per block, the middle blocks of variant 0 and 4 left as plazas. */
    for (uint32_t b = 0; b < 16u && count < budget; b++) {
        if ((variant % 4u) == 0 && (b == 5 || b == 10)) {
            continue;
        }
        float x = -75.0f + 50.0f * (float)(b % 4u), z = -75.0f + 50.0f * (float)(b / 4u);
        uint32_t kind = rng_u32(&s, 4);
        snprintf(name, sizeof name, "Building %u", b);
        snprintf(path, sizeof path, "models/building_%u%s.glb", kind, style);
        rill_entity e = put(g, 0, name, x, 0, z, 1.5707963f * (float)rng_u32(&s, 4));
        add_model(g, e, path);
        /* Buildings are in the ghost channel only (their spawned primitives inherit it), so they
         * ghost independently of the context geometry around them: `--channel
         * context=wireframe --channel ghost=ghost:0.35` draws streets and props as lines and the
         * buildings as ghosts (hidden > wireframe > ghost would make a context|ghost building a
         * wireframe). */
        rill_channel_mask cm = {RILL_CHANNEL_GHOST};
        if (g->ids.channel_mask.id) {
            rill_world_add(g->w, e, g->ids.channel_mask, &cm);
        }
        count++;
    }
    static const char *const props[] = {"models/tree.glb",  "models/lamp.glb", "models/tree.glb",
                                        "models/bench.glb", "models/car.glb",  "models/tree.glb"};
    uint32_t lamps = 0;
    while (count < budget) {
        uint32_t k = rng_u32(&s, RILL_COUNTOF(props));
        float p[2];
        sidewalk_spot(&s, p);
        if (k == 4) {
            p[1] += p[1] > 0 ? 3.0f : -3.0f; /* cars park on the street */
        }
        rill_entity e = put(g, 0, NULL, p[0], 0, p[1], demo_gen_rng_float(&s, 0, 6.2831853f));
        add_model(g, e, props[k]);
        count++;
        if (k == 1 && (lamps++ % 4u) == 0 && count < budget) {
            rill_entity l = put(g, e, NULL, 0, 6.0f, 0, 0);
            add_point_light(g, l, 300.0f, 18.0f);
            count++;
        }
    }
    snprintf(path, sizeof path, "districts/district_%u.rsn", variant);
    *res = save_roots(g, path, err);
    return count;
}

/* >>shared ----------------------------------------------------------------------------------- */

/* The helpers the region generator (demo_region.c, `--km`) builds with (demo_gen.h). */
rill_result demo_gen_open(demo_gen *g, const char *out, rill_error *err) {
    memset(g, 0, sizeof *g);
    g->out = out;
    g->w = rill_world_create(NULL, NULL);
    if (!g->w) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "demo world: out of memory");
    }
    rill_result r = rill_app_register_components(g->w, NULL, NULL, err);
    if (r != RILL_OK) {
        demo_gen_close(g);
        return r;
    }
    g->ids.instance = rill_scene_register(g->w).instance;
    g->ids.model = rill_world_find_component(g->w, "Model");
    g->ids.point_light = rill_world_find_component(g->w, "PointLight");
    g->ids.directional_light = rill_world_find_component(g->w, "DirectionalLight");
    g->ids.channel_mask = rill_world_find_component(g->w, "ChannelMask");
    return RILL_OK;
}

void demo_gen_close(demo_gen *g) {
    rill_world_destroy(g->w);
    rill_array_free(&g->made);
    g->w = NULL;
}

rill_entity demo_gen_put(demo_gen *g, rill_entity parent, const char *name, float x, float y,
                         float z, float yaw) {
    return put(g, parent, name, x, y, z, yaw);
}

void demo_gen_add_model(demo_gen *g, rill_entity e, const char *path) {
    add_model(g, e, path);
}

rill_result demo_gen_save_roots(demo_gen *g, const char *rel, rill_error *err) {
    return save_roots(g, rel, err);
}

rill_result demo_gen_out_path(char *path, size_t cap, const char *out, const char *rel,
                              rill_error *err) {
    return out_path(path, cap, out, rel, err);
}

uint32_t demo_gen_city_district(demo_gen *g, uint32_t variant, uint32_t budget, rill_error *err,
                                rill_result *res) {
    return gen_district(g, variant, budget, err, res);
}

/* >>terrain ---------------------------------------------------------------------------------- */

/* The city stands on a terrain that reaches DEMO_TERRAIN_MARGIN past it on every side: flat just
 * under the district ground tiles, rising into noise hills beyond the city's edge. The heights are
 * written as a raw 16-bit file (terrain.r16), which export copies as it is. A few cars fall from
 * the sky near the start camera and settle on the terrain (dynamic bodies on its colliders). */
#define DEMO_TERRAIN_CHUNK 128.0f
#define DEMO_TERRAIN_RES 33u
#define DEMO_TERRAIN_MARGIN 1600.0f
#define DEMO_TERRAIN_HEIGHT 180.0f /* metres for a sample of 1 */
#define DEMO_TERRAIN_FLAT (-0.15f) /* just below the ground tiles */
#define DEMO_FALLING_CARS 6u

typedef struct demo_terrain {
    uint32_t chunks;
    float corner; /* x and z of the first sample */
} demo_terrain;

static demo_terrain demo_terrain_size(uint32_t side) {
    float city = (float)side * DEMO_DISTRICT_SIZE;
    demo_terrain t;
    t.chunks = (uint32_t)ceilf((city + 2.0f * DEMO_TERRAIN_MARGIN) / DEMO_TERRAIN_CHUNK);
    t.chunks = RILL_MIN(t.chunks, RILL_TERRAIN_MAX_CHUNKS_SIDE);
    t.corner = -0.5f * (float)t.chunks * DEMO_TERRAIN_CHUNK;
    return t;
}

/* The harbour along the city's east edge: a basin of the terrain from the apron outward and the
 * Water over it (gen_harbour). Its rectangle in world x and z, and the water's level. */
#define DEMO_HARBOUR_WIDTH 700.0f    /* metres east of the apron */
#define DEMO_HARBOUR_OVERHANG 300.0f /* metres past the city to the north and south */
#define DEMO_HARBOUR_DEEP 6.0f       /* metres the basin's floor lies below the flat terrain */
#define DEMO_HARBOUR_SHORE 150.0f    /* metres from the basin's edge to its full depth */
#define DEMO_HARBOUR_LEVEL (-0.05f)  /* the sea: under the ground tiles, above the flat terrain */

static void harbour_rect(uint32_t side, float out[4]) {
    float half_city = 0.5f * (float)side * DEMO_DISTRICT_SIZE + 40.0f;
    out[0] = half_city;                            /* x min */
    out[1] = half_city + DEMO_HARBOUR_WIDTH;       /* x max */
    out[2] = -(half_city + DEMO_HARBOUR_OVERHANG); /* z min */
    out[3] = half_city + DEMO_HARBOUR_OVERHANG;    /* z max */
}

/* 1 outside the harbour, falling to 0 over DEMO_HARBOUR_SHORE metres inside its edge. */
static float harbour_keep(const float rect[4], float x, float z) {
    float in = fminf(fminf(x - rect[0], rect[1] - x), fminf(z - rect[2], rect[3] - z));
    float t = fminf(fmaxf(in / DEMO_HARBOUR_SHORE, 0.0f), 1.0f);
    return 1.0f - t * t * (3.0f - 2.0f * t);
}

/* Height samples in [0, 1] above DEMO_TERRAIN_FLAT - DEMO_HARBOUR_DEEP: the flat level under the
 * city (plus a 40 m apron), noise hills beyond that, faded in over 400 m so the city's edge meets
 * a gentle slope, and the harbour's basin sloping down to the floor along the east edge. */
static rill_result write_heightmap(gen *g, const demo_terrain *t, uint32_t side, rill_error *err) {
    uint32_t n = t->chunks * (DEMO_TERRAIN_RES - 1u) + 1u;
    float step = DEMO_TERRAIN_CHUNK / (float)(DEMO_TERRAIN_RES - 1u);
    float half_city = 0.5f * (float)side * DEMO_DISTRICT_SIZE + 40.0f, harbour[4];
    harbour_rect(side, harbour);
    uint8_t *raw = rill_malloc((size_t)n * n * 2u);
    if (!raw) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "terrain.r16: out of memory");
    }
    for (uint32_t z = 0; z < n; z++) {
        for (uint32_t x = 0; x < n; x++) {
            float wx = t->corner + (float)x * step, wz = t->corner + (float)z * step;
            float dx = fmaxf(fabsf(wx) - half_city, 0.0f), dz = fmaxf(fabsf(wz) - half_city, 0.0f);
            float out = sqrtf(dx * dx + dz * dz);
            float fade = fminf(out / 400.0f, 1.0f);
            fade = fade * fade * (3.0f - 2.0f * fade);
            float v = fade * rill_terrain_noise(7u, 700.0f, wx, wz);
            v = (v + DEMO_HARBOUR_DEEP / DEMO_TERRAIN_HEIGHT) * harbour_keep(harbour, wx, wz);
            uint32_t q = (uint32_t)(fminf(fmaxf(v, 0.0f), 1.0f) * 65535.0f + 0.5f);
            raw[((size_t)z * n + x) * 2u] = (uint8_t)q;
            raw[((size_t)z * n + x) * 2u + 1u] = (uint8_t)(q >> 8);
        }
    }
    char path[1024];
    rill_result r = out_path(path, sizeof path, g->out, "terrain.r16", err);
    if (r == RILL_OK) {
        r = rill_file_write_all(path, raw, (size_t)n * n * 2u, err);
    }
    if (r == RILL_OK) {
        g->bytes_written += (uint64_t)n * n * 2u;
        g->files_written++;
    }
    rill_free(raw);
    return r;
}

static uint32_t gen_terrain(gen *g, uint32_t side, float cam_x, float cam_z, rill_error *err,
                            rill_result *res) {
    demo_terrain dt = demo_terrain_size(side);
    *res = write_heightmap(g, &dt, side, err);
    if (*res != RILL_OK) {
        return 0;
    }
    rill_entity e =
        put(g, 0, "Terrain", dt.corner, DEMO_TERRAIN_FLAT - DEMO_HARBOUR_DEEP, dt.corner, 0);
    rill_component tc = rill_world_find_component(g->w, "Terrain");
    rill_terrain t;
    rill_type_apply_defaults(rill_world_component_type(g->w, tc), &t);
    t.chunks_x = t.chunks_z = dt.chunks;
    t.chunk_size = DEMO_TERRAIN_CHUNK;
    t.resolution = DEMO_TERRAIN_RES;
    t.height_scale = DEMO_TERRAIN_HEIGHT;
    t.heightmap = rill_intern("terrain.r16");
    t.stream = true;
    t.stream_radius = 640.0f;
    t.layer_count = 1;
    t.layer_color[0][0] = 0.30f, t.layer_color[0][1] = 0.42f, t.layer_color[0][2] = 0.22f;
    rill_world_add(g->w, e, tc, &t);
    /* Cars dropped 15-35 m above the street in front of the start camera. */
    rill_physics_components pc = rill_physics_register(g->w);
    uint64_t s = 0xCA45ull;
    for (uint32_t i = 0; i < DEMO_FALLING_CARS; i++) {
        char name[32];
        snprintf(name, sizeof name, "Falling car %u", i);
        rill_entity car = put(g, 0, name, cam_x - 40.0f + demo_gen_rng_float(&s, -12.0f, 12.0f),
                              demo_gen_rng_float(&s, 15.0f, 35.0f),
                              cam_z - 50.0f + demo_gen_rng_float(&s, -12.0f, 12.0f),
                              demo_gen_rng_float(&s, 0, 6.28f));
        rill_transform *ct = rill_world_transform_mut(g->w, car);
        if (ct) { /* a tilt about X as well, so they land on a corner and tumble */
            float a = demo_gen_rng_float(&s, -0.6f, 0.6f), qx = sinf(0.5f * a), qw = cosf(0.5f * a);
            float y = ct->rotation[1], w = ct->rotation[3];
            ct->rotation[0] = w * qx, ct->rotation[1] = y * qw, ct->rotation[2] = -y * qx;
            ct->rotation[3] = w * qw;
        }
        rill_collider col;
        rill_type_apply_defaults(rill_world_component_type(g->w, pc.collider), &col);
        col.half_extents[0] = 0.9f, col.half_extents[1] = 0.75f, col.half_extents[2] = 2.1f;
        rill_world_add(g->w, car, pc.collider, &col);
        rill_rigid_body rb;
        rill_type_apply_defaults(rill_world_component_type(g->w, pc.rigid_body), &rb);
        rb.mass = 1200.0f;
        rill_world_add(g->w, car, pc.rigid_body, &rb);
        /* The model's origin is at its wheels: it hangs half the box below the body's centre. */
        rill_entity body = put(g, car, NULL, 0, -0.75f, 0, 0);
        add_model(g, body, "models/car.glb");
    }
    return 1u + 2u * DEMO_FALLING_CARS;
}

/* The harbour's sea: a Water (the FFT ocean, rill/render/ocean.h) over the terrain's basin, its
 * surface DEMO_HARBOUR_LEVEL, bounded to the basin's rectangle, a light breeze along +X. */
static uint32_t gen_harbour(gen *g, uint32_t side) {
    float rect[4];
    harbour_rect(side, rect);
    /* an inactive camera 25 m over the sea, 260 m from its shore, looking back west (yaw 90
     * degrees, toward -X) at the city across the water: `rill render --camera 'Harbour camera'` */
    const float cam[3] = {rect[0] + 260.0f, 25.0f, 0.5f * (rect[2] + rect[3])};
    return demo_gen_harbour(g, rect, DEMO_HARBOUR_LEVEL, cam, 1.5707963f);
}

uint32_t demo_gen_sky(demo_gen *g, float hide) {
    rill_component cc = rill_world_find_component(g->w, "Clouds");
    rill_component fc = rill_world_find_component(g->w, "DistanceFog");
    if (!cc.id || !fc.id) {
        return 0;
    }
    rill_entity e = demo_gen_put(g, 0, "Sky", 0, 0, 0, 0);
    rill_render_clouds cl = rill_render_clouds_query_defaults();
    cl.coverage = 0.45f;
    cl.wind[0] = 6.0f, cl.wind[1] = 2.0f;
    rill_world_add(g->w, e, cc, &cl);
    /* Exponential-squared: 1 - e^-(d density)^2 is 0.95 at `hide` (d density = 1.73). */
    rill_render_distance_fog fog = rill_render_distance_fog_defaults();
    fog.enabled = true;
    fog.falloff = RILL_FOG_EXPONENTIAL_SQUARED;
    fog.density = 1.73f / hide;
    fog.sky_color = true;
    rill_world_add(g->w, e, fc, &fog);
    return 1;
}

/* The world's effect settings, on one entity and routed to every camera: ScreenSpace GI (it runs
 * at the High quality tier only, a ceiling: `--quality high`; `--effect
 * GlobalIllumination:quality=SdfLow` picks the voxel-cone tier) and screen-space reflections
 * (the tower's glass, the lobby's floor). */
static uint32_t gen_environment(gen *g) {
    rill_component gc = rill_world_find_component(g->w, "GlobalIllumination");
    rill_component sc = rill_world_find_component(g->w, "ScreenSpaceReflections");
    if (!gc.id || !sc.id) {
        return 0;
    }
    rill_entity e = put(g, 0, "Environment", 0, 0, 0, 0);
    rill_render_global_illumination gi = rill_render_global_illumination_query_defaults();
    gi.quality = RILL_GI_SCREEN_SPACE;
    rill_world_add(g->w, e, gc, &gi);
    rill_render_ssr ssr = rill_render_ssr_query_defaults();
    rill_world_add(g->w, e, sc, &ssr);
    return 1;
}

/* The lobby (models/lobby.glb, 11 x 11 x 5.5 m, open to +Z) on the free crossing at (x, z), in
 * front of the start camera: a warm light under its ceiling and a reflection probe filling the
 * room, captured from the scene once it loads, parallax-corrected to the room's box (Auto), so
 * its polished floor reflects the walls where they stand. */
static uint32_t gen_lobby(gen *g, float x, float z) {
    rill_component lp = rill_world_find_component(g->w, "LightProbe");
    rill_component rs = rill_world_find_component(g->w, "ReflectionProbeSource");
    rill_component pc = rill_world_find_component(g->w, "ParallaxCorrection");
    rill_entity lobby = put(g, 0, "NM_Lobby", x, 0, z, 0);
    add_model(g, lobby, "models/lobby.glb");
    rill_entity light = put(g, lobby, "Lobby light", 0, 4.6f, 0, 0);
    add_point_light(g, light, 400.0f, 14.0f);
    /* an inactive camera in the doorway looking in and down at the floor: `rill render --camera
     * 'Lobby camera'` */
    rill_entity cam = put(g, lobby, "Lobby camera", 0, 1.8f, 4.5f, 0);
    rill_transform *ct = rill_world_transform_mut(g->w, cam);
    if (ct) {
        ct->rotation[0] = sinf(-0.2f), ct->rotation[1] = 0, ct->rotation[2] = 0,
        ct->rotation[3] = cosf(-0.2f);
    }
    demo_gen_camera(g, cam, false, 0.0f);
    if (!lp.id || !rs.id || !pc.id) {
        return 3;
    }
    /* the probe's box is the room inside its walls: the unit cube scaled to 10.4 x 5.1 x 10.4 */
    rill_entity probe = put(g, lobby, "Lobby probe", 0, 2.65f, 0, 0);
    rill_transform *t = rill_world_transform_mut(g->w, probe);
    if (t) {
        t->scale[0] = 10.4f, t->scale[1] = 5.1f, t->scale[2] = 10.4f;
    }
    rill_light_probe l = {.falloff = 0.05f};
    rill_world_add(g->w, probe, lp, &l);
    rill_reflection_probe_source src = {.intensity = 1.0f, .capture = true};
    rill_world_add(g->w, probe, rs, &src);
    rill_parallax_correction par = {.mode = RILL_PARALLAX_AUTO, .half_extents = {1, 1, 1}};
    rill_world_add(g->w, probe, pc, &par);
    return 4;
}

/* The main scene: camera, sun, landmarks and the streamed district instances. */
static uint32_t gen_main(gen *g, uint32_t districts, rill_error *err, rill_result *res) {
    uint32_t count = 0;
    uint32_t side = (uint32_t)ceil(sqrt((double)districts));
    /* The camera starts south-east of the tower, looking at it. */
    float off = side % 2u ? 100.0f : 0.0f;
    rill_entity cam = put(g, 0, "Camera", off + 60.0f, 45.0f, off + 160.0f, 0);
    demo_gen_aim(g, cam, atan2f(60.0f, 160.0f), atan2f(-15.0f, 170.9f));
    demo_gen_camera(g, cam, true, 3000.0f);
    demo_gen_sun(g);
    count += 2;
    /* Landmarks sit on street crossings, between districts, so they stand in every picture. */
    static const struct {
        const char *name, *model;
        float x, z;
    } marks[] = {
        {"NM_Tower", "models/tower.glb", 0.0f, 0.0f},
        {"NM_Fountain", "models/fountain.glb", 100.0f, 100.0f},
        {"NM_Gate", "models/gate.glb", -200.0f, 100.0f},
    };
    for (uint32_t i = 0; i < RILL_COUNTOF(marks); i++) {
        rill_entity e = put(g, 0, marks[i].name, marks[i].x + off, 0, marks[i].z + off, 0);
        add_model(g, e, marks[i].model);
        count++;
    }
    char name[32], scene[64];
    for (uint32_t i = 0; i < districts; i++) {
        float x = ((float)(i % side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
        float z = ((float)(i / side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
        snprintf(name, sizeof(name), "District %u", i);
        rill_entity e = put(g, 0, name, x, 0, z, 0);
        snprintf(scene, sizeof(scene), "districts/district_%u.rsn",
                 (i * 5u + i / side) % g->variants);
        rill_scene_instance si = {.scene = rill_intern(scene),
                                  .streamed = true,
                                  .load_radius = DEMO_LOAD_RADIUS,
                                  .unload_radius = DEMO_UNLOAD_RADIUS,
                                  .bounds_min = {-100.0f, 0.0f, -100.0f},
                                  .bounds_max = {100.0f, 55.0f, 100.0f}};
        rill_world_add(g->w, e, g->ids.instance, &si);
        count++;
    }
    count += gen_terrain(g, side, off + 60.0f, off + 160.0f, err, res);
    if (*res != RILL_OK) {
        return count;
    }
    count += gen_harbour(g, side);
    count += gen_environment(g);
    count += demo_gen_sky(g, DEMO_UNLOAD_RADIUS + 60.0f); /* past the unload radius: no pop */
    /* a crossing no traffic loop passes (demo_scripts.c CAR_BLOCKS), 60 m before the camera */
    count += gen_lobby(g, off + 50.0f, off + 100.0f);
    /* Scripted life (demo_scripts.c): traffic, the gate's doors, day and night, a district on L. */
    *res = rill_demo_add_life(g->w, g->out, &(rill_demo_layout){side, districts, off}, &count, err);
    if (*res != RILL_OK) {
        return count;
    }
    *res = save_roots(g, "main.rsn", err);
    return count;
}

static const char PROJECT_TOML[] = "# The demo city written by `rill demo`.\n"
                                   "[project]\n"
                                   "name = \"Rill demo\"\n"
                                   "main_scene = \"main.rsn\"\n"
                                   "\n"
                                   "[window]\n"
                                   "width = 1280\n"
                                   "height = 720\n"
                                   "\n"
                                   "[scene]\n"
                                   "load_budget_ms = 3\n";

/* Writes the project under `out`, aiming at `target` entities in the whole world (the main scene
 * plus every district instance's contents). */
static rill_result generate(const char *out, uint32_t target, uint32_t *out_expected,
                            uint32_t *out_districts, gen *g, rill_error *err) {
    char path[1024];
    rill_result r;
    static const char *const dirs[] = {"districts", "models"};
    for (uint32_t i = 0; i < RILL_COUNTOF(dirs); i++) {
        if ((r = out_path(path, sizeof(path), out, dirs[i], err)) != RILL_OK) {
            return r;
        }
        rill_dir_remove_all(path, NULL);
        if ((r = rill_dir_create_all(path, err)) != RILL_OK) {
            return r;
        }
    }
    if ((r = out_path(path, sizeof(path), out, "project.toml", err)) != RILL_OK ||
        (r = rill_file_write_all(path, PROJECT_TOML, strlen(PROJECT_TOML), err)) != RILL_OK) {
        return r;
    }
    /* Big worlds: 16 district variants, each in its own style (texture streaming then has a
     * city's variety of materials to stream); small test worlds keep 8 variants in 2 styles. */
    bool big = target >= DEMO_BIG_TEXTURES_FROM;
    g->variants = big ? DEMO_DISTRICT_VARIANTS : 8u;
    g->styles = big ? g->variants : 2u;
    if ((r = out_path(path, sizeof(path), out, "models", err)) != RILL_OK ||
        (r = rill_demo_write_assets(path, big ? 1024u : 128u, g->styles, g->jobs, err)) !=
            RILL_OK) {
        return r;
    }
    /* District size: the target spread over at least 16 districts, at most 1000 entities each. */
    uint32_t per = RILL_CLAMP(target / 16u, 20u, DEMO_DISTRICT_MAX_ENTITIES);
    uint32_t sizes[DEMO_DISTRICT_VARIANTS];
    for (uint32_t v = 0; v < g->variants; v++) {
        sizes[v] = gen_district(g, v, per, err, &r);
        if (r != RILL_OK) {
            return r;
        }
    }
    uint32_t districts = RILL_MAX((target + per - 1u) / per, 1u);
    uint32_t own = gen_main(g, districts, err, &r);
    uint64_t total = own;
    uint32_t side = (uint32_t)ceil(sqrt((double)districts));
    for (uint32_t i = 0; i < districts; i++) {
        total += sizes[(i * 5u + i / side) % g->variants];
    }
    *out_expected = (uint32_t)RILL_MIN(total, (uint64_t)UINT32_MAX);
    *out_districts = districts;
    return r;
}

/* >>views ------------------------------------------------------------------------------------- */

typedef struct demo_render_opts {
    const char *out;
    uint32_t width, height;
    bool render, window;
    uint64_t frames;    /* --window: quit after this many frames (0 = when closed) */
    int64_t fly_frames; /* fly-through frames after loading: -1 = the whole path, 0 = none */
    uint32_t km;        /* --km: the region world (its own fly path, flown at 100 m/s) */
} demo_render_opts;

/* The city's size and a district near its middle, from the district instances of main.rsn (laid
 * out on a square grid as gen_main does). */
static float demo_layout(rill_world *w, float center[2]) {
    rill_component inst = rill_world_find_component(w, "SceneInstance");
    uint32_t districts = 0;
    rill_entity e;
    for (uint32_t it = 0; rill_world_entity_next(w, &it, &e);) {
        if (!rill_world_get_parent(w, e) && rill_world_has(w, e, inst)) {
            districts++;
        }
    }
    uint32_t side = (uint32_t)ceil(sqrt((double)RILL_MAX(districts, 1u)));
    uint32_t mid = (side / 2u) * side + side / 2u;
    if (mid >= districts) {
        mid = 0;
    }
    center[0] = ((float)(mid % side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
    center[1] = ((float)(mid / side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
    return (float)side * DEMO_DISTRICT_SIZE;
}

typedef struct demo_view {
    const char *name;
    float eye[3], target[3];
    float fov_y;
} demo_view;

static void demo_views(rill_world *w, demo_view out[2]) {
    float c[2];
    float extent = demo_layout(w, c);
    /* Aerial: over the middle district, far enough back to see a few of its neighbours. */
    float d = RILL_CLAMP(extent * 0.8f, 260.0f, 400.0f);
    out[0] = (demo_view){
        "overview", {c[0] - 0.45f * d, 0.62f * d, c[1] + 0.64f * d}, {c[0], 0, c[1]}, 0.8f};
    /* Street level: a few metres up, down the street at x = -50 of the middle district (streets
     * run along the edges of its 50 m blocks), looking slightly down it. */
    out[1] = (demo_view){
        "street", {c[0] - 50.0f, 5.0f, c[1] + 95.0f}, {c[0] - 50.0f, 1.0f, c[1] - 60.0f}, 1.1f};
}

static void look_at_matrix(const float eye[3], const float target[3], float out[16]) {
    mat4 view, inv;
    glm_lookat((float *)eye, (float *)target, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, inv);
    memcpy(out, inv, sizeof(mat4));
}

/* The world's set-up (drawables, models, defaults, the daylight look) is rill_content's, as in
 * `rill render` and `rill run`; only the two camera placements are the demo's own. */
static int demo_render_headless(rill_app *app, const demo_render_opts *o) {
    rill_world *w = rill_app_world(app);
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = o->width, d.height = o->height;
    d.shadow_distance = 700.0f; /* the aerial view reaches a few hundred metres */
    rill_renderer *r = NULL;
    rill_error err = {0};
    uint64_t t0 = rill_time_ns();
    rill_content_desc cd = {.app = app};
    rill_cli_content_hooks(&cd);
    cd.on_world = NULL; /* the components were registered before the load */
    rill_content *c = rill_content_open(&cd, &err);
    if (c) { /* daylight: the sky's blue and some of it as ambient light in the shade */
        rill_content_look *look = rill_content_get_look(c);
        look->ambient[0] = 0.16f, look->ambient[1] = 0.18f, look->ambient[2] = 0.22f;
    }
    if (!c || !(r = rill_renderer_create(&d, &err))) {
        fprintf(stderr, "error: rill demo: %s\n", err.msg);
        rill_content_destroy(c);
        return 1;
    }
    int rc = 1;
    if (rill_content_load(c, r, &err) != RILL_OK) {
        fprintf(stderr, "error: rill demo: %s\n", err.msg);
        goto done;
    }
    printf("set up for drawing in %.2f s\n", (double)(rill_time_ns() - t0) * 1e-9);
    demo_view views[2];
    demo_views(w, views);
    rill_entity world_cam = rill_app_streaming_camera(app, NULL);
    for (int v = 0; v < 2; v++) {
        uint64_t v0 = rill_time_ns();
        /* The world's camera goes to the view so that streaming brings the districts around it
         * in, through the same budgeted loads as a game; the picture waits until they are. */
        if (world_cam) {
            rill_transform t = rill_transform_identity();
            memcpy(t.translation, views[v].eye, sizeof t.translation);
            rill_world_set_transform(w, world_cam, &t);
        }
        /* Tiny frames make new uploads resident without paying for full-size renders; the
         * picture waits until no instance is loading, no model file is pending and the drawn
         * set has stayed the same for 10 frames. */
        rill_render_snapshot snap;
        uint32_t last = UINT32_MAX, same = 0;
        if (rill_renderer_resize(r, 32, 18, &err) != RILL_OK) {
            fprintf(stderr, "error: rill demo: %s\n", err.msg);
            goto done;
        }
        for (int f = 0; f < 3000 && same < 10; f++) {
            rill_app_frame(app);
            rill_stream_stats ss;
            rill_stream_get_stats(rill_app_stream(app), &ss);
            rill_app_models_stats ms;
            rill_app_models_get_stats(rill_content_models(c), &ms);
            if (rill_content_snapshot(c, &snap, &err) != RILL_OK ||
                rill_renderer_render(r, &snap, &err) != RILL_OK) {
                fprintf(stderr, "error: rill demo: %s\n", err.msg);
                goto done;
            }
            same =
                ss.loading == 0 && ms.pending == 0 && snap.instance_count == last ? same + 1u : 0u;
            last = snap.instance_count;
        }
        if (rill_renderer_wait_idle(r, &err) != RILL_OK ||
            rill_renderer_resize(r, o->width, o->height, &err) != RILL_OK ||
            rill_content_snapshot(c, &snap, &err) != RILL_OK) {
            fprintf(stderr, "error: rill demo: %s\n", err.msg);
            goto done;
        }
        snap.views = NULL; /* the demo's own camera replaces the world's views */
        snap.view_count = 0;
        look_at_matrix(views[v].eye, views[v].target, snap.view.world_from_view);
        snap.view.fov_y = views[v].fov_y;
        snap.view.near_plane = 0.5f;
        snap.view.far_plane = 6000.0f;
        snap.view.orthographic = false;
        char path[1024];
        if (out_path(path, sizeof(path), o->out, views[v].name, &err) != RILL_OK ||
            strlen(path) + 5 > sizeof(path)) {
            fprintf(stderr, "error: rill demo: path too long\n");
            goto done;
        }
        strcat(path, ".png");
        if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
            rill_renderer_write_png(r, path, &err) != RILL_OK) {
            fprintf(stderr, "error: rill demo: %s\n", err.msg);
            goto done;
        }
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        printf("wrote %s (%ux%u): %u/%u instances visible, %u draws, %llu triangles, %u lights, "
               "%.2f s\n",
               path, o->width, o->height, st.instances_visible, st.instances_submitted,
               st.draw_calls, (unsigned long long)st.triangles, snap.light_count,
               (double)(rill_time_ns() - v0) * 1e-9);
        printf("  gpu ms:");
        for (uint32_t i = 0; i < st.pass_count; i++) {
            printf(" %s %.1f", st.pass_names[i], st.pass_gpu_ms[i]);
        }
        printf("\n");
        if (st.validation_messages) {
            fprintf(stderr, "error: rill demo: %u validation messages\n", st.validation_messages);
            goto done;
        }
    }
    rc = 0;
done:
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return rc;
}

/* The viewer starts over the middle district, as the overview picture does. */
static int demo_window(rill_app *app, const demo_render_opts *o) {
    demo_view views[2];
    demo_views(rill_app_world(app), views);
    rill_cli_viewer_opts vo = {.title = "rill demo",
                               .vsync = 1,
                               .frames = o->frames,
                               .shadow_distance = 700.0f,
                               .has_start = true,
                               .near_plane = 0.5f,
                               .far_plane = 6000.0f,
                               .speed = 40.0f};
    memcpy(vo.eye, views[0].eye, sizeof(vo.eye));
    memcpy(vo.target, views[0].target, sizeof(vo.target));
    rill_error err = {0};
    rill_content_desc cd = {.app = app};
    rill_cli_content_hooks(&cd);
    cd.on_world = NULL;
    rill_content *c = rill_content_open(&cd, &err);
    if (!c) {
        fprintf(stderr, "error: rill demo: %s\n", err.msg);
        return 1;
    }
    int rc = rill_cli_viewer_run(&vo, c);
    rill_content_destroy(c);
    return rc;
}

/* The PNGs come first (unless --no-render), then, with --window, the viewer: `make demo` on a
 * desktop writes the pictures and opens the world. */
static int demo_on_loaded(rill_app *app, void *user) {
    const demo_render_opts *o = user;
    if (o->render) {
        int rc = demo_render_headless(app, o);
        if (rc != 0 || !o->window) {
            return rc;
        }
    }
    if (o->window) {
        return demo_window(app, o);
    }
    return 0;
}

/* The city's fly path, a file a user can edit and fly again (DIR/fly_path.json), written with the
 * world whether or not the demo flies it: from the middle of the city down a street to the edge
 * (at most 1.2 km) and back at 25 m. A region world (--km) writes its own path. */
static int demo_write_city_path(const char *out, uint32_t districts) {
    uint32_t side = (uint32_t)ceil(sqrt((double)RILL_MAX(districts, 1u)));
    float reach = RILL_MIN(1200.0f, 0.45f * (float)side * DEMO_DISTRICT_SIZE);
    char path[1024], text[256];
    rill_error err = {0};
    int n =
        snprintf(text, sizeof text,
                 "[{\"pos\": [50, 25, 0]}, {\"pos\": [50, 25, %.0f]}, {\"pos\": [50, 25, 0]}]\n",
                 (double)-reach);
    if (out_path(path, sizeof path, out, "fly_path.json", &err) != RILL_OK ||
        rill_file_write_all(path, text, (size_t)n, &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* The fly-through of DIR/fly_path.json at 40 m/s (the region's at 100), with streaming on,
 * counters and plots into DIR/fly (rill fly). */
static int demo_fly(const char *out, const char *pack, const char *fly_dir,
                    const demo_render_opts *o) {
    char path[1024], size[32], frames[32];
    rill_error err = {0};
    if (out_path(path, sizeof path, out, "fly_path.json", &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    char *speed = o->km ? "100" : "40";
    snprintf(size, sizeof size, "%ux%u", o->width, o->height);
    snprintf(frames, sizeof frames, "%lld", (long long)o->fly_frames);
    char *argv[] = {"fly", (char *)pack, "--out", (char *)fly_dir, "--path",   path,   "--speed",
                    speed, "--size",     size,    "--no-render",   "--frames", frames, NULL};
    printf("fly-through: rill fly %s --out %s --path %s --speed %s --size %s --no-render\n", pack,
           fly_dir, path, speed, size);
    return rill_cmd_fly(o->fly_frames > 0 ? 13 : 11, argv);
}

/* A line every 10 s while a long export runs (the 100 km^2 world's takes minutes). */
static void export_progress(const rill_export_event *ev, void *user) {
    double *last = user; /* when the last line was printed */
    if (ev->type == RILL_EXPORT_EVENT_INPUT_DONE && ev->elapsed_sec - *last >= 10.0) {
        *last = ev->elapsed_sec;
        printf("exporting: %u of %u inputs done, %.0f s\n", ev->counts.done, ev->counts.inputs,
               ev->elapsed_sec);
    }
}

/* `--km K`: the region world (demo_region.c) and its fly path into out/fly_path.json. */
static rill_result generate_region(demo_gen *g, uint32_t km, float density, const char *out,
                                   rill_error *err) {
    char fly_path[1024];
    demo_region_result rr;
    uint64_t t0 = rill_time_ns();
    rill_result r = demo_gen_out_path(fly_path, sizeof fly_path, out, "fly_path.json", err);
    if (r == RILL_OK) {
        r = demo_region_generate(g, km, density, fly_path, &rr, err);
    }
    if (r == RILL_OK) {
        printf("generated region: %u x %u km, %llu entities in the world, %u streamed districts "
               "(%u city core, %u suburb, %u countryside), %u scene files, %.1f MB, %.2f s\n",
               km, km, (unsigned long long)rr.entities, rr.districts, rr.cores, rr.suburbs,
               rr.country, g->files_written, (double)g->bytes_written / 1e6,
               (double)(rill_time_ns() - t0) * 1e-9);
    }
    return r;
}

static void demo_usage(FILE *f) {
    fprintf(f,
            "usage: rill demo [--out DIR] [--entities N] [--budget-ms N] [--jobs N] [--no-load]\n"
            "                 [--size WxH] [--no-render] [--fly-frames N] [--window [--frames N]]\n"
            "       rill demo --km K [--density F] [same options but --entities]\n"
            "\n"
            "Writes the demo city as a project into DIR/project (project.toml, main.rsn, one\n"
            "streamed SceneInstance per 200 m district, district scenes, textured .glb models and\n"
            "their PNG textures, 1024x1024 from 100000 entities up, else 128x128), about N\n"
            "entities in the whole world (default %u); exports it\n"
            "with LODs, BC textures and edges to DIR/demo.rpak; then plays the pack: loads\n"
            "main.rsn, renders DIR/overview.png and DIR/street.png headless (--size, default\n"
            "1280x720; --no-render skips this) and flies over it into DIR/fly (`rill fly PACK\n"
            "--path DIR/fly_path.json --speed 40 --size WxH --no-render`: out and back;\n"
            "--fly-frames N stops after N frames, 0 skips it). With --window it then opens the\n"
            "world in the `rill run` viewer (needs a display; --frames N quits after N frames,\n"
            "and is refused without --window). --jobs N: threads that generate and export\n"
            "(default one per core; the files are the same whatever N).\n"
            "The counts printed exceed N: N is the scene entities written (whole districts, so\n"
            "rounded up), and each Model entity, when its model loads, spawns the model's glTF\n"
            "node tree as child entities (a building is several nodes), which `rill fly` and the\n"
            "viewer count too.\n"
            "--km K (1 to %u) writes the region world instead: K x K km of 200 m cells, city\n"
            "cores (the city's districts), suburbs and countryside (every country cell its own\n"
            "scene, on the terrain's hills), roads joining the cities, one terrain (heights and a\n"
            "splat map of grass, roads and fields); --density F (default 1) scales every\n"
            "district's entities. Its fly path (DIR/fly_path.json) crosses it 40 m above the\n"
            "ground at 100 m/s, then climbs to a 500 m overview. `--km 10` is the 100 km^2 world:\n"
            "over 10 M entities once every model's node tree is counted (docs/cli.md).\n",
            DEMO_DEFAULT_ENTITIES, DEMO_REGION_MAX_KM);
}

int rill_cmd_demo(int argc, char **argv) {
    const char *out = "rill-demo";
    uint32_t target = DEMO_DEFAULT_ENTITIES;
    float budget_ms = 0.0f;
    bool no_load = false, no_render = false, fly_set = false;
    uint32_t fly_frames = 0, km = 0, jobs_n = 0;
    float density = 1.0f;
    bool entities_set = false;
    demo_render_opts ro = {.width = 1280, .height = 720};
    const rill_cli_opt options[] = {
        {"--out", RILL_CLI_OPT_STRING, &out},
        {"--entities", RILL_CLI_OPT_U32, &target, .min = 1, .max = 10000000,
         .given = &entities_set},
        {"--km", RILL_CLI_OPT_U32, &km, .min = 1, .max = DEMO_REGION_MAX_KM},
        {"--density", RILL_CLI_OPT_FLOAT, &density, .min = 0.001, .max = 1,
         .want = "a fraction in [0.001, 1]"},
        {"--budget-ms", RILL_CLI_OPT_FLOAT, &budget_ms, .min = 0.001, .max = 10000,
         .want = "milliseconds in [0.001, 10000]"},
        {"--fly-frames", RILL_CLI_OPT_U32, &fly_frames, .min = 0, .max = 1000000,
         .given = &fly_set},
        {"--jobs", RILL_CLI_OPT_U32, &jobs_n, .min = 1, .max = 1024},
        {"--no-load", RILL_CLI_OPT_FLAG, &no_load},
        {"--no-render", RILL_CLI_OPT_FLAG, &no_render},
        {"--window", RILL_CLI_OPT_FLAG, &ro.window},
        {"--frames", RILL_CLI_OPT_U64, &ro.frames, .min = 1, .max = 1000000000},
        {"--size", RILL_CLI_OPT_SIZE, &ro.width, &ro.height},
    };
    const rill_cli_parser p = {"demo", options, RILL_COUNTOF(options), NULL, NULL, demo_usage};
    /* Progress lines reach a pipe or a log as they are printed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int prc = rill_cli_parse(&p, argc, argv);
    if (prc) {
        return prc < 0 ? 0 : prc;
    }
    if (ro.frames && !ro.window) {
        fprintf(stderr, "rill demo: --frames is a viewer option: it needs --window (the headless "
                        "pictures are one frame each; --fly-frames N limits the fly-through)\n");
        return 2;
    }
    if (km && entities_set) {
        fprintf(stderr, "rill demo: --entities sizes the city; --km sizes the region world by "
                        "its area (--density scales its districts)\n");
        return 2;
    }
    if (rill_file_exists(out)) {
        fprintf(stderr,
                "rill demo: --out %s is a file; it names the folder the demo is written "
                "into\n",
                out);
        return 1;
    }
    bool load = !no_load;
    ro.km = km;
    ro.render = !no_render;
    ro.fly_frames = fly_set ? (int64_t)fly_frames : -1;
    rill_error err = {0};
    char project[1024], pack[1024], fly_dir[1024];
    if (out_path(project, sizeof project, out, "project", &err) != RILL_OK ||
        out_path(pack, sizeof pack, out, "demo.rpak", &err) != RILL_OK ||
        out_path(fly_dir, sizeof fly_dir, out, "fly", &err) != RILL_OK ||
        rill_dir_create_all(project, &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    gen g;
    if (demo_gen_open(&g, project, &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    /* --jobs 1: everything on this thread; else jobs - 1 workers (default: one per core) beside
     * it. The generator and the export share them. */
    rill_jobs *jobs = NULL;
    if (jobs_n != 1u) {
        jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = jobs_n ? jobs_n - 1u : 0u}, &err);
        if (!jobs) {
            fprintf(stderr, "error: %s\n", err.msg);
            demo_gen_close(&g);
            return 1;
        }
    }
    g.jobs = jobs;
    uint64_t t0 = rill_time_ns();
    uint32_t expected = 0, districts = 0;
    rill_result r = km ? generate_region(&g, km, density, out, &err)
                       : generate(project, target, &expected, &districts, &g, &err);
    demo_gen_close(&g);
    rill_jobs_destroy(jobs); /* the export makes its own workers (--jobs of them) */
    if (r != RILL_OK) {
        fprintf(stderr, "error: writing the demo: %s\n", err.msg);
        return 1;
    }
    if (!km) {
        printf("generated demo: %u entities in the world, %u streamed districts (%u kinds), %u "
               "scene files, %.1f MB, %.2f s\n",
               expected, districts, g.variants, g.files_written, (double)g.bytes_written / 1e6,
               (double)(rill_time_ns() - t0) * 1e-9);
    }
    if (!load) {
        return 0;
    }
    /* Exported as a user's project is: textures to .rmip (BC), LODs and edges baked, one pack. */
    rill_export_result xr;
    uint64_t x0 = rill_time_ns();
    double last_line = 0.0;
    r = rill_export_run(&(rill_export_desc){.project_dir = project,
                                            .out_pack = pack,
                                            .jobs = jobs_n,
                                            .progress = export_progress,
                                            .progress_user = &last_line},
                        &xr, &err);
    if (r != RILL_OK || xr.failure_count) {
        fprintf(stderr, "error: exporting the demo: %s\n",
                r != RILL_OK ? err.msg : xr.failures[0].message);
        rill_export_result_free(&xr);
        return 1;
    }
    rill_export_result_free(&xr);
    printf("exported %s in %.2f s\n", pack, (double)(rill_time_ns() - x0) * 1e-9);
    ro.out = out;
    /* Played from the pack alone: no loose root. */
    rill_cli_load_opts opts = {.root = "",
                               .pack = pack,
                               .scene = "main.rsn",
                               .budget_ms = (double)budget_ms,
                               .progress = isatty(STDOUT_FILENO) != 0,
                               .on_loaded = (ro.render || ro.window) ? demo_on_loaded : NULL,
                               .on_loaded_user = &ro};
    rill_cli_load_result res;
    int rc = rill_cli_load_scene(&opts, &res);
    if (rc == 0 && !ro.km) {
        rc = demo_write_city_path(out, districts);
    }
    if (rc == 0 && ro.fly_frames != 0) {
        rc = demo_fly(out, pack, fly_dir, &ro);
    }
    return rc;
}
