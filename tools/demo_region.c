/* demo_region.c: `rill demo --km K` writes the region world: a K x K km square of 200 m cells laid
 * out by demo_region_layout.c, as a user's project:
 *   main.rsn                 the camera (at the fly path's start), the sun, a tower in every city,
 *                            the terrain, one streamed SceneInstance per cell and the harbour
 *                            (a Water over a basin carved into the terrain's east margin)
 *   districts/district_N.rsn the city core variants (cmd_demo.c's districts)
 *   districts/suburb_N.rsn   suburb variants: houses on 50 m blocks, gardens, street lamps, cars
 *   country/c_X_Z.rsn        every countryside cell its own scene: forests, hedgerows, farms and
 *                            roadside posts standing on the terrain's heights at that place
 *   terrain.r16, terrain_splat.png  heights (flat under the towns and across the roads, hills
 *                            elsewhere, the harbour's basin) and the layers (grass, road, field)
 *   models/                  the city's models and textures (demo_assets.c)
 * and the fly path (out/fly_path.json): across the region at DEMO_REGION_LOW metres, then up to a
 * DEMO_REGION_OVERVIEW metre overview. --density scales every district's entity count. */
#include "demo_region.h"
#include "demo.h"
#include "demo_gen.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "rill/formats/image.h"
#include "rill/render/ocean.h"
#include "rill/scene.h"
#include "rill/terrain.h"

#define REGION_SUBURB_VARIANTS 8u
/* Load and unload radii per content class. Suburbs and open countryside (a few thousand live
 * entities a cell) keep the city's 400 / 480 m; the dense classes, a city core and a forest (about
 * 14,000 live entities a cell once their models' node trees spawn), load nearer, and their
 * far-world proxies (the export's .hlod) draw them beyond: crossing a city core then keeps about
 * 250,000 entities resident instead of 377,000 (docs/benchmarks.md). */
#define REGION_LOAD_RADIUS 400.0f
#define REGION_UNLOAD_RADIUS 480.0f
#define REGION_CORE_LOAD_RADIUS 300.0f
#define REGION_CORE_UNLOAD_RADIUS 360.0f
#define REGION_FOREST_LOAD_RADIUS 250.0f
#define REGION_FOREST_UNLOAD_RADIUS 320.0f
/* Worlds of at least this many scene entities get 1024^2 textures, as the city's. */
#define REGION_BIG_TEXTURES_FROM 100000u

/* How many of n at this density: at least one where n is not 0. */
static uint32_t scaled(uint32_t n, float density) {
    return n ? RILL_MAX((uint32_t)lroundf((float)n * density), 1u) : 0u;
}

static rill_entity model_at(demo_gen *g, const char *model, float x, float y, float z, float yaw) {
    rill_entity e = demo_gen_put(g, 0, NULL, x, y, z, yaw);
    demo_gen_add_model(g, e, model);
    return e;
}

static void set_scale(demo_gen *g, rill_entity e, float sx, float sy, float sz) {
    rill_transform *t = rill_world_transform_mut(g->w, e);
    if (t) {
        t->scale[0] = sx, t->scale[1] = sy, t->scale[2] = sz;
    }
}

/* >>suburbs ----------------------------------------------------------------------------------- */

/* A suburb variant: 16 blocks of 50 m (streets on their edges, painted in the terrain's splat
 * map), each with houses (the city's low building, scaled down) facing the streets, garden trees
 * and parked cars; lamps along the streets, every fourth with a light. Returns the entities. */
static uint32_t write_suburb(demo_gen *g, uint32_t variant, float density, rill_result *res,
                             rill_error *err) {
    uint64_t s = 0x5B0B000ull + variant * 7919ull;
    char house[64], rel[64];
    uint32_t count = 0, lamps = 0, style = variant % g->styles;
    for (uint32_t b = 0; b < 16u; b++) {
        float bx = -75.0f + 50.0f * (float)(b % 4u), bz = -75.0f + 50.0f * (float)(b / 4u);
        uint32_t houses = scaled(4, density), trees = scaled(14, density),
                 cars = scaled(2, density);
        for (uint32_t h = 0; h < houses; h++) {
            float ox = h & 1u ? 11.0f : -11.0f, oz = h & 2u ? 11.0f : -11.0f;
            uint32_t kind = (demo_gen_rng_next(&s) >> 33) % 2u ? 3u : 0u;
            if (style) {
                snprintf(house, sizeof house, "models/building_%u_s%u.glb", kind, style);
            } else {
                snprintf(house, sizeof house, "models/building_%u.glb", kind);
            }
            float yaw = fabsf(ox) > fabsf(oz) ? 0.0f : 1.5707963f;
            rill_entity e = model_at(g, house, bx + ox, 0.0f, bz + oz, yaw);
            set_scale(g, e, kind ? 0.4f : 0.6f, 0.45f, 0.6f);
            count++;
        }
        for (uint32_t t = 0; t < trees; t++, count++) {
            model_at(g, "models/tree.glb", bx + demo_gen_rng_float(&s, -18.0f, 18.0f), 0.0f,
                     bz + demo_gen_rng_float(&s, -18.0f, 18.0f),
                     demo_gen_rng_float(&s, 0.0f, 6.2831853f));
        }
        for (uint32_t c = 0; c < cars; c++, count++) { /* on the street south of the block */
            model_at(g, "models/car.glb", bx + demo_gen_rng_float(&s, -20.0f, 20.0f), 0.0f,
                     bz - 23.0f, 1.5707963f);
        }
        if (b % 2u == 0u || density >= 0.5f) { /* a lamp at the block's corner */
            rill_entity l = model_at(g, "models/lamp.glb", bx - 21.5f, 0.0f, bz - 21.5f, 0.0f);
            count++;
            if (lamps++ % 4u == 0u && g->ids.point_light.id) {
                rill_entity lt = demo_gen_put(g, l, NULL, 0.0f, 6.0f, 0.0f, 0.0f);
                rill_point_light pl = {
                    .color = {1.0f, 0.85f, 0.6f, 1.0f}, .intensity = 300.0f, .range = 18.0f};
                rill_world_add(g->w, lt, g->ids.point_light, &pl);
                count++;
            }
        }
    }
    snprintf(rel, sizeof rel, "districts/suburb_%u.rsn", variant);
    *res = demo_gen_save_roots(g, rel, err);
    return count;
}

/* >>countryside ------------------------------------------------------------------------------- */

/* A countryside cell with its centre at c is a forest where a slow noise is high. */
static bool is_forest(const float c[2]) {
    return rill_terrain_noise(11u, 1500.0f, c[0], c[1]) > 0.55f;
}

/* One countryside cell (centre c), in its instance's space, every entity on the ground where it
 * stands: a forest where the forest noise is high, else hedgerow trees and, in one cell of four, a
 * farm (a house, a barn, cars); posts along any road crossing the cell. Trees keep off the roads
 * and the fields' strips. Returns the entities; *lo / *hi the cell's height range. */
static uint32_t country_cell(demo_gen *g, const demo_region *r, uint32_t cx, uint32_t cz,
                             float density, float *lo, float *hi) {
    float c[2];
    demo_region_cell_center(r, cx, cz, c);
    uint64_t s = 0xC0C0000ull + ((uint64_t)cz << 20) + cx;
    uint32_t count = 0;
    float half = 0.5f * DEMO_REGION_CELL;
    *lo = INFINITY, *hi = -INFINITY;
    bool forest = is_forest(c);
    uint32_t trees = scaled(forest ? 800u : 80u, density);
    for (uint32_t i = 0; i < trees; i++) {
        float x = demo_gen_rng_float(&s, -half, half), z = demo_gen_rng_float(&s, -half, half);
        if (!forest) { /* hedgerows: on the lines between fields */
            x = roundf(x / 48.0f) * 48.0f + demo_gen_rng_float(&s, -2.0f, 2.0f);
        }
        if (demo_region_road_distance(r, c[0] + x, c[1] + z) < 12.0f) {
            continue;
        }
        float y = demo_region_ground(r, c[0] + x, c[1] + z);
        rill_entity e =
            model_at(g, "models/tree.glb", x, y, z, demo_gen_rng_float(&s, 0.0f, 6.2831853f));
        float k = demo_gen_rng_float(&s, 0.8f, 1.4f);
        set_scale(g, e, k, k, k);
        *lo = fminf(*lo, y), *hi = fmaxf(*hi, y + 8.0f * k);
        count++;
    }
    if (!forest && (demo_gen_rng_next(&s) >> 40) % 4u == 0u && density >= 0.05f) {
        static const char *const farm[] = {"models/building_0.glb", "models/building_3.glb",
                                           "models/car.glb", "models/car.glb"};
        static const float at[4][2] = {{-20, 10}, {15, 12}, {-5, -8}, {0, -10}};
        for (uint32_t i = 0; i < 4u; i++) {
            float y = demo_region_ground(r, c[0] + at[i][0], c[1] + at[i][1]);
            rill_entity e = model_at(g, farm[i], at[i][0], y, at[i][1], 0.3f * (float)i);
            if (i < 2u) {
                set_scale(g, e, i ? 0.45f : 0.6f, 0.4f, 0.6f);
            }
            *lo = fminf(*lo, y), *hi = fmaxf(*hi, y + 15.0f);
            count++;
        }
    }
    /* Posts (lamp models) every 40 m, 8 m off any road crossing the cell. */
    for (float z = -half + 20.0f; z < half; z += 40.0f) {
        for (float x = -half + 20.0f; x < half; x += 40.0f) {
            float d = demo_region_road_distance(r, c[0] + x, c[1] + z);
            if (d > 20.0f || density < 0.2f) {
                continue;
            }
            float y = demo_region_ground(r, c[0] + x, c[1] + z);
            model_at(g, "models/lamp.glb", x, y, z, 0.0f);
            *lo = fminf(*lo, y), *hi = fmaxf(*hi, y + 7.0f);
            count++;
        }
    }
    if (!count) {
        *lo = *hi = demo_region_ground(r, c[0], c[1]);
    }
    return count;
}

/* >>main scene -------------------------------------------------------------------------------- */

static void camera_and_sun(demo_gen *g, const demo_region *r) {
    const float *p = r->keys[0].pos, *n = r->keys[1].pos;
    rill_entity cam = demo_gen_put(g, 0, "Camera", p[0], p[1], p[2], 0.0f);
    /* along the path, 15 degrees down */
    demo_gen_aim(g, cam, atan2f(-(n[0] - p[0]), -(n[2] - p[2])), -0.26f);
    demo_gen_camera(g, cam, true, 6000.0f);
    demo_gen_sun(g);                               /* as the city's */
    for (uint32_t i = 0; i < r->city_count; i++) { /* a tower on a crossing near each centre */
        char name[32];
        snprintf(name, sizeof name, "NM_Tower %u", i);
        float x = roundf(r->cities[i].x / 50.0f) * 50.0f,
              z = roundf(r->cities[i].z / 50.0f) * 50.0f;
        rill_entity e = demo_gen_put(g, 0, name, x, 0.0f, z, 0.0f);
        demo_gen_add_model(g, e, "models/tower.glb");
    }
}

/* The harbour's sea: a Water (the FFT ocean) bounded to the basin's rectangle, a light breeze
 * along +X, and an inactive camera over it. 2 entities (0 without the Water component). */
static uint32_t harbour(demo_gen *g, const demo_region *r) {
    float rect[4];
    demo_region_harbour_rect(r, rect);
    /* An inactive camera 20 m up on the west shore, looking east over the water (yaw -90
     * degrees, toward +X): `rill render --camera 'Harbour camera'`. */
    const float cam[3] = {rect[0] - 20.0f, 20.0f, 0.5f * (rect[2] + rect[3])};
    return demo_gen_harbour(g, rect, DEMO_REGION_HARBOUR_LEVEL, cam, -1.5707963f);
}

static void terrain_entity(demo_gen *g, const demo_region *r) {
    rill_entity e = demo_gen_put(g, 0, "Terrain", r->corner,
                                 DEMO_REGION_GROUND - DEMO_REGION_HARBOUR_DEEP, r->corner, 0.0f);
    rill_component tc = rill_world_find_component(g->w, "Terrain");
    rill_terrain t;
    rill_type_apply_defaults(rill_world_component_type(g->w, tc), &t);
    t.chunks_x = t.chunks_z = r->chunks;
    t.chunk_size = DEMO_REGION_TERRAIN_CHUNK;
    t.resolution = DEMO_REGION_TERRAIN_RES;
    t.height_scale = DEMO_REGION_HEIGHT;
    t.heightmap = rill_intern("terrain.r16");
    t.splat_map = rill_intern("terrain_splat.png");
    t.stream = true;
    t.stream_radius = 640.0f;
    t.layer_count = 3;
    static const float colors[3][3] = {{0.30f, 0.42f, 0.22f},  /* grass */
                                       {0.13f, 0.13f, 0.14f},  /* road */
                                       {0.52f, 0.44f, 0.26f}}; /* field */
    for (int i = 0; i < 3; i++) {
        memcpy(t.layer_color[i], colors[i], sizeof colors[i]), t.layer_color[i][3] = 1.0f;
    }
    rill_world_add(g->w, e, tc, &t);
}

/* One streamed instance per cell, row-major as the city's districts (so `rill demo`'s views find
 * the middle): the cell's scene and its box. */
static void cell_instances(demo_gen *g, const demo_region *r, const uint32_t *core_variant,
                           const float (*country_range)[2]) {
    char name[48], scene[64];
    for (uint32_t i = 0; i < r->side * r->side; i++) {
        uint32_t cx = i % r->side, cz = i / r->side;
        float c[2];
        demo_region_cell_center(r, cx, cz, c);
        demo_region_kind k = (demo_region_kind)r->kinds[i];
        rill_scene_instance si = {.streamed = true,
                                  .load_radius = REGION_LOAD_RADIUS,
                                  .unload_radius = REGION_UNLOAD_RADIUS,
                                  .bounds_min = {-100.0f, 0.0f, -100.0f},
                                  .bounds_max = {100.0f, 55.0f, 100.0f}};
        if (k == DEMO_REGION_CORE) {
            snprintf(name, sizeof name, "Core %u,%u", cx, cz);
            snprintf(scene, sizeof scene, "districts/district_%u.rsn", core_variant[i]);
            si.load_radius = REGION_CORE_LOAD_RADIUS, si.unload_radius = REGION_CORE_UNLOAD_RADIUS;
        } else if (k == DEMO_REGION_SUBURB) {
            snprintf(name, sizeof name, "Suburb %u,%u", cx, cz);
            snprintf(scene, sizeof scene, "districts/suburb_%u.rsn",
                     (cx * 3u + cz * 5u) % REGION_SUBURB_VARIANTS);
            si.bounds_max[1] = 25.0f;
        } else {
            snprintf(name, sizeof name, "Country %u,%u", cx, cz);
            snprintf(scene, sizeof scene, "country/c_%u_%u.rsn", cx, cz);
            si.bounds_min[1] = country_range[i][0], si.bounds_max[1] = country_range[i][1];
            if (is_forest(c)) {
                si.load_radius = REGION_FOREST_LOAD_RADIUS;
                si.unload_radius = REGION_FOREST_UNLOAD_RADIUS;
            }
        }
        si.scene = rill_intern(scene);
        rill_entity e = demo_gen_put(g, 0, name, c[0], 0.0f, c[1], 0.0f);
        rill_world_add(g->w, e, g->ids.instance, &si);
    }
}

/* >>files ------------------------------------------------------------------------------------- */

static rill_result write_terrain_files(demo_gen *g, const demo_region *r, rill_error *err) {
    char path[1024];
    size_t n = (size_t)r->samples * r->samples;
    uint8_t *raw = rill_malloc(n * 2u);
    if (!raw) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "terrain.r16: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        raw[2u * i] = (uint8_t)r->heights[i], raw[2u * i + 1u] = (uint8_t)(r->heights[i] >> 8);
    }
    rill_result res = demo_gen_out_path(path, sizeof path, g->out, "terrain.r16", err);
    if (res == RILL_OK) {
        res = rill_file_write_all(path, raw, n * 2u, err);
    }
    rill_free(raw);
    if (res == RILL_OK) {
        res = demo_gen_out_path(path, sizeof path, g->out, "terrain_splat.png", err);
    }
    if (res == RILL_OK) {
        res = rill_image_write_png(path, r->splat, r->splat_side, r->splat_side, 4, err);
    }
    if (res == RILL_OK) {
        g->bytes_written += n * 2u, g->files_written += 2u;
    }
    return res;
}

static rill_result write_fly_path(const demo_region *r, const char *path, rill_error *err) {
    rill_strbuf sb = {0};
    bool ok = rill_strbuf_append(&sb, "[\n", 2);
    for (uint32_t i = 0; ok && i < r->key_count; i++) {
        const demo_region_key *k = &r->keys[i];
        char line[160];
        int n = k->has_look ? snprintf(line, sizeof line,
                                       "  {\"pos\": [%.1f, %.1f, %.1f], \"look\": [%.1f, %.1f, "
                                       "%.1f]}%s\n",
                                       (double)k->pos[0], (double)k->pos[1], (double)k->pos[2],
                                       (double)k->look[0], (double)k->look[1], (double)k->look[2],
                                       i + 1u < r->key_count ? "," : "")
                            : snprintf(line, sizeof line, "  {\"pos\": [%.1f, %.1f, %.1f]}%s\n",
                                       (double)k->pos[0], (double)k->pos[1], (double)k->pos[2],
                                       i + 1u < r->key_count ? "," : "");
        ok = n > 0 && (size_t)n < sizeof line && rill_strbuf_append(&sb, line, (size_t)n);
    }
    ok = ok && rill_strbuf_append(&sb, "]\n", 2);
    rill_result res = ok ? rill_file_write_all(path, sb.data, sb.len, err)
                         : rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    rill_strbuf_free(&sb);
    return res;
}

static const char REGION_TOML[] = "# The region world written by `rill demo --km K`.\n"
                                  "[project]\n"
                                  "name = \"Rill demo region\"\n"
                                  "main_scene = \"main.rsn\"\n"
                                  "\n"
                                  "[window]\n"
                                  "width = 1280\n"
                                  "height = 720\n"
                                  "\n"
                                  "[scene]\n"
                                  "load_budget_ms = 3\n";

static rill_result make_dirs(demo_gen *g, rill_error *err) {
    static const char *const dirs[] = {"districts", "country", "models"};
    char path[1024];
    rill_result res = RILL_OK;
    for (uint32_t i = 0; res == RILL_OK && i < RILL_COUNTOF(dirs); i++) {
        res = demo_gen_out_path(path, sizeof path, g->out, dirs[i], err);
        if (res == RILL_OK) {
            rill_dir_remove_all(path, NULL);
            res = rill_dir_create_all(path, err);
        }
    }
    if (res == RILL_OK) {
        res = demo_gen_out_path(path, sizeof path, g->out, "project.toml", err);
    }
    if (res == RILL_OK) {
        res = rill_file_write_all(path, REGION_TOML, strlen(REGION_TOML), err);
    }
    return res;
}

/* >>parallel ---------------------------------------------------------------------------------- */

/* Scratch generators for work spread over the job system: one per thread that can take part, each
 * with its own world, made on the main thread. A job takes a free one for its run (at most that
 * many jobs run at once) and gives it back; each scene file is numbered on its own, so which
 * generator writes it does not change its bytes. */
typedef struct gen_pool {
    demo_gen *gens;
    _Atomic uint32_t *busy;
    uint32_t count;
} gen_pool;

static void pool_close(gen_pool *p) {
    for (uint32_t i = 0; p->gens && i < p->count; i++) {
        demo_gen_close(&p->gens[i]);
    }
    rill_free(p->gens);
    rill_free((void *)p->busy);
    memset(p, 0, sizeof *p);
}

static rill_result pool_open(gen_pool *p, const demo_gen *g, rill_error *err) {
    memset(p, 0, sizeof *p);
    uint32_t n = g->jobs ? rill_jobs_worker_count(g->jobs) + 1u : 1u;
    p->gens = rill_calloc(n, sizeof *p->gens);
    p->busy = rill_calloc(n, sizeof *p->busy);
    if (!p->gens || !p->busy) {
        pool_close(p);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "region: out of memory");
    }
    for (p->count = 0; p->count < n; p->count++) {
        rill_result r = demo_gen_open(&p->gens[p->count], g->out, err);
        if (r != RILL_OK) {
            pool_close(p);
            return r;
        }
        p->gens[p->count].variants = g->variants, p->gens[p->count].styles = g->styles;
    }
    return RILL_OK;
}

static demo_gen *pool_take(gen_pool *p) {
    for (;;) { /* one is always free: no more jobs run at once than there are generators */
        for (uint32_t i = 0; i < p->count; i++) {
            uint32_t free_ = 0;
            if (atomic_compare_exchange_strong(&p->busy[i], &free_, 1u)) {
                return &p->gens[i];
            }
        }
    }
}

static void pool_give(gen_pool *p, demo_gen *g) {
    atomic_store(&p->busy[g - p->gens], 0u);
}

/* The bytes and files every generator of the pool wrote, added to g's. */
static void pool_count_into(const gen_pool *p, demo_gen *g) {
    for (uint32_t i = 0; i < p->count; i++) {
        g->bytes_written += p->gens[i].bytes_written, g->files_written += p->gens[i].files_written;
    }
}

/* One scene file to write: what it holds once written, or how it failed. */
typedef struct cell_job {
    uint32_t index; /* a variant, or a cell (cz * side + cx) */
    uint32_t count; /* entities */
    float lo, hi;   /* a country cell's height range */
    rill_result res;
    rill_error err;
} cell_job;

typedef struct cell_batch {
    gen_pool *pool;
    const demo_region *r;
    float density;
    cell_job *jobs;
    uint32_t count;
    _Atomic uint32_t done; /* for the progress lines */
    uint64_t t0;
} cell_batch;

/* The first failure in order, into err. */
static rill_result batch_result(const cell_batch *b, rill_error *err) {
    for (uint32_t i = 0; i < b->count; i++) {
        if (b->jobs[i].res != RILL_OK) {
            if (err) {
                *err = b->jobs[i].err;
            }
            return b->jobs[i].res;
        }
    }
    return RILL_OK;
}

/* Variants [begin, end): the city core variants first, then the suburb variants. */
static void variant_range(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    cell_batch *b = arg;
    demo_gen *g = pool_take(b->pool);
    uint32_t per = scaled(DEMO_DISTRICT_MAX_ENTITIES, b->density);
    for (uint32_t i = begin; i < end; i++) {
        cell_job *j = &b->jobs[i];
        if (j->index < g->variants) {
            j->count = demo_gen_city_district(g, j->index, RILL_MAX(per, 20u), &j->err, &j->res);
        } else {
            j->count = write_suburb(g, j->index - g->variants, b->density, &j->res, &j->err);
        }
    }
    pool_give(b->pool, g);
}

/* Countryside cells [begin, end): each its own scene file; a progress line at every tenth. */
static void country_range(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    cell_batch *b = arg;
    demo_gen *g = pool_take(b->pool);
    for (uint32_t i = begin; i < end; i++) {
        cell_job *j = &b->jobs[i];
        uint32_t cx = j->index % b->r->side, cz = j->index / b->r->side;
        char rel[64];
        j->count = country_cell(g, b->r, cx, cz, b->density, &j->lo, &j->hi);
        j->lo -= 1.0f; /* the box holds what stands on the ground */
        snprintf(rel, sizeof rel, "country/c_%u_%u.rsn", cx, cz);
        j->res = demo_gen_save_roots(g, rel, &j->err);
    }
    pool_give(b->pool, g);
    uint32_t n = end - begin, done = atomic_fetch_add(&b->done, n) + n;
    if ((done - n) * 10u / b->count != done * 10u / b->count) {
        printf("  countryside: %u of %u cells, %.1f s\n", done, b->count,
               (double)(rill_time_ns() - b->t0) * 1e-9);
    }
}

/* >>generate ---------------------------------------------------------------------------------- */

/* The city core and suburb variants (models and textures first). sizes get each one's count. */
static rill_result write_variants(demo_gen *g, gen_pool *pool, const demo_region *r, float density,
                                  uint32_t core_sizes[16], uint32_t suburb_sizes[8],
                                  rill_error *err) {
    char path[1024];
    rill_result res = demo_gen_out_path(path, sizeof path, g->out, "models", err);
    if (res == RILL_OK) {
        bool big = (float)(r->side * r->side) * 300.0f * density >= (float)REGION_BIG_TEXTURES_FROM;
        res = rill_demo_write_assets(path, big ? 1024u : 128u, g->styles, g->jobs, err);
    }
    cell_job jobs[16u + REGION_SUBURB_VARIANTS];
    memset(jobs, 0, sizeof jobs);
    cell_batch b = {.pool = pool,
                    .density = density,
                    .jobs = jobs,
                    .count = g->variants + REGION_SUBURB_VARIANTS};
    for (uint32_t v = 0; v < b.count; v++) {
        jobs[v].index = v;
    }
    if (res == RILL_OK) {
        rill_jobs_for(g->jobs, b.count, 1, variant_range, &b);
        res = batch_result(&b, err);
    }
    for (uint32_t v = 0; res == RILL_OK && v < b.count; v++) {
        if (v < g->variants) {
            core_sizes[v] = jobs[v].count;
        } else {
            suburb_sizes[v - g->variants] = jobs[v].count;
        }
    }
    return res;
}

/* Every countryside cell's scene file; counts and height ranges per cell into `range` and the
 * world's entity count. */
static rill_result write_country(demo_gen *g, gen_pool *pool, const demo_region *r, float density,
                                 float (*range)[2], demo_region_result *out, rill_error *err) {
    uint32_t cells = r->side * r->side, n = 0;
    cell_job *jobs = rill_calloc(cells, sizeof *jobs);
    if (!jobs) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "region: out of memory");
    }
    for (uint32_t i = 0; i < cells; i++) {
        if (r->kinds[i] == DEMO_REGION_COUNTRY) {
            jobs[n++].index = i;
        }
    }
    cell_batch b = {
        .pool = pool, .r = r, .density = density, .jobs = jobs, .count = n, .t0 = rill_time_ns()};
    rill_jobs_for(g->jobs, n, 4, country_range, &b);
    rill_result res = batch_result(&b, err);
    for (uint32_t i = 0; res == RILL_OK && i < n; i++) {
        range[jobs[i].index][0] = jobs[i].lo, range[jobs[i].index][1] = jobs[i].hi;
        out->entities += jobs[i].count;
    }
    out->country = n;
    rill_free(jobs);
    return res;
}

static double seconds_since(uint64_t t0) {
    return (double)(rill_time_ns() - t0) * 1e-9;
}

rill_result demo_region_generate(demo_gen *g, uint32_t km, float density, const char *fly_path,
                                 demo_region_result *out, rill_error *err) {
    memset(out, 0, sizeof *out);
    demo_region r;
    uint64_t t0 = rill_time_ns();
    rill_result res = demo_region_layout(&r, km, g->jobs, err);
    if (res != RILL_OK) {
        return res;
    }
    printf("  layout (cells, roads, heights, splat map): %.1f s\n", seconds_since(t0));
    uint32_t cells = r.side * r.side, core_sizes[16] = {0}, suburb_sizes[8] = {0};
    uint32_t *core_variant = rill_calloc(cells, sizeof *core_variant);
    float(*range)[2] = rill_calloc(cells, sizeof *range);
    bool big = (float)cells * 300.0f * density >= (float)REGION_BIG_TEXTURES_FROM;
    g->variants = big ? 16u : 8u;
    g->styles = big ? g->variants : 2u;
    gen_pool pool = {0};
    if (!core_variant || !range) {
        res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "region: out of memory");
    }
    if (res == RILL_OK) {
        res = make_dirs(g, err);
    }
    if (res == RILL_OK) {
        res = pool_open(&pool, g, err);
    }
    if (res == RILL_OK) {
        t0 = rill_time_ns();
        res = write_variants(g, &pool, &r, density, core_sizes, suburb_sizes, err);
        printf("  models, textures and %u district kinds: %.1f s\n",
               g->variants + REGION_SUBURB_VARIANTS, seconds_since(t0));
    }
    if (res == RILL_OK) {
        t0 = rill_time_ns();
        res = write_country(g, &pool, &r, density, range, out, err);
    }
    for (uint32_t i = 0; res == RILL_OK && i < cells; i++) {
        uint32_t cx = i % r.side, cz = i / r.side;
        if (r.kinds[i] == DEMO_REGION_CORE) {
            core_variant[i] = (i * 5u + cz) % g->variants;
            out->entities += core_sizes[core_variant[i]], out->cores++;
        } else if (r.kinds[i] == DEMO_REGION_SUBURB) {
            out->entities += suburb_sizes[(cx * 3u + cz * 5u) % REGION_SUBURB_VARIANTS];
            out->suburbs++;
        }
    }
    pool_count_into(&pool, g);
    pool_close(&pool);
    if (res == RILL_OK) {
        camera_and_sun(g, &r);
        cell_instances(g, &r, core_variant, (const float(*)[2])range);
        terrain_entity(g, &r);
        uint32_t sky = demo_gen_sky(g, REGION_UNLOAD_RADIUS + 60.0f);
        sky += harbour(g, &r);
        out->entities += 2u + r.city_count + cells + 1u + sky;
        out->districts = cells;
        res = demo_gen_save_roots(g, "main.rsn", err);
    }
    if (res == RILL_OK) {
        res = write_terrain_files(g, &r, err);
    }
    if (res == RILL_OK) {
        res = write_fly_path(&r, fly_path, err);
    }
    rill_free(core_variant);
    rill_free(range);
    demo_region_free(&r);
    return res;
}
