/* demo_region_layout.c: the layout of the region world (`rill demo --km K`, demo_region.h):
 * where the cities stand, which cells are city cores, suburbs or countryside, the roads joining
 * the cities and leaving the region, the terrain's heights and splat map, and the fly path. No
 * files: demo_region.c writes the project from this. */
#include "demo_region.h"

#include <math.h>
#include <string.h>

#include "rill/terrain.h"

/* >>random ------------------------------------------------------------------------------------ */

/* A hash of (a, b, seed) in [0, 1): the same on every platform. */
static float hash01(uint32_t a, uint32_t b, uint32_t seed) {
    uint32_t h = a * 374761393u + b * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    h ^= h >> 16;
    return (float)(h & 0xFFFFFFu) / 16777216.0f;
}

static float smooth01(float e0, float e1, float x) {
    float t = fminf(fmaxf((x - e0) / (e1 - e0), 0.0f), 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

/* >>cities and roads -------------------------------------------------------------------------- */

/* Cities on a jittered grid, about one per 25 km^2 (at least one); a city core reaches 150 m per
 * km of region up to 900 m, its suburbs 350 m per km up to 2 km. */
static void place_cities(demo_region *r) {
    uint32_t want = (uint32_t)lroundf((float)(r->km * r->km) / 25.0f);
    want = RILL_CLAMP(want, 1u, DEMO_REGION_MAX_CITIES);
    uint32_t grid = 1;
    while (grid * grid < want) {
        grid++;
    }
    float span = 2.0f * r->half / (float)grid;
    float core = fminf(150.0f * (float)r->km, 900.0f),
          suburb = fminf(350.0f * (float)r->km, 2000.0f);
    r->city_count = 0;
    for (uint32_t i = 0; i < grid * grid && r->city_count < want; i++) {
        float jx = want > 1 ? 0.3f * (hash01(i, 1, 17) - 0.5f) : 0.0f;
        float jz = want > 1 ? 0.3f * (hash01(i, 2, 17) - 0.5f) : 0.0f;
        demo_region_city *c = &r->cities[r->city_count++];
        c->x = -r->half + span * ((float)(i % grid) + 0.5f + jx);
        c->z = -r->half + span * ((float)(i / grid) + 0.5f + jz);
        float size = 0.8f + 0.4f * hash01(i, 3, 17); /* cities differ in size */
        c->core_radius = core * size;
        c->suburb_radius = suburb * size;
    }
}

static void add_road(demo_region *r, float ax, float az, float bx, float bz) {
    if (r->road_count < DEMO_REGION_MAX_ROADS) {
        r->roads[r->road_count++] = (demo_region_road){{ax, az}, {bx, bz}};
    }
}

/* Roads: the cities joined by a minimum spanning tree (Prim's, nearest first), and from every city
 * one road out of the region, to its nearest edge (a single city gets all four). */
static void lay_roads(demo_region *r) {
    bool in[DEMO_REGION_MAX_CITIES] = {true};
    r->road_count = 0;
    for (uint32_t n = 1; n < r->city_count; n++) {
        float best = INFINITY;
        uint32_t bi = 0, bj = 0;
        for (uint32_t i = 0; i < r->city_count; i++) {
            for (uint32_t j = 0; in[i] && j < r->city_count; j++) {
                float dx = r->cities[i].x - r->cities[j].x, dz = r->cities[i].z - r->cities[j].z;
                if (!in[j] && dx * dx + dz * dz < best) {
                    best = dx * dx + dz * dz, bi = i, bj = j;
                }
            }
        }
        in[bj] = true;
        add_road(r, r->cities[bi].x, r->cities[bi].z, r->cities[bj].x, r->cities[bj].z);
    }
    float edge = r->half + DEMO_REGION_MARGIN;
    for (uint32_t i = 0; i < r->city_count; i++) {
        const demo_region_city *c = &r->cities[i];
        float d[4] = {c->x + r->half, r->half - c->x, c->z + r->half, r->half - c->z};
        uint32_t k = 0;
        for (uint32_t e = 1; e < 4; e++) {
            k = d[e] < d[k] ? e : k;
        }
        for (uint32_t e = 0; e < 4; e++) {
            if (e != k && r->city_count > 1) {
                continue;
            }
            float bx = e == 0 ? -edge : e == 1 ? edge : c->x;
            float bz = e == 2 ? -edge : e == 3 ? edge : c->z;
            add_road(r, c->x, c->z, bx, bz);
        }
    }
}

float demo_region_road_distance(const demo_region *r, float x, float z) {
    float best = INFINITY;
    for (uint32_t i = 0; i < r->road_count; i++) {
        const demo_region_road *rd = &r->roads[i];
        float ex = rd->b[0] - rd->a[0], ez = rd->b[1] - rd->a[1];
        float len2 = ex * ex + ez * ez;
        float t = len2 > 0.0f ? ((x - rd->a[0]) * ex + (z - rd->a[1]) * ez) / len2 : 0.0f;
        t = fminf(fmaxf(t, 0.0f), 1.0f);
        float dx = x - (rd->a[0] + t * ex), dz = z - (rd->a[1] + t * ez);
        best = fminf(best, dx * dx + dz * dz);
    }
    return sqrtf(best);
}

/* The nearest point on the nearest road to (x, z). */
static void road_nearest(const demo_region *r, float x, float z, float out[2]) {
    float best = INFINITY;
    out[0] = x, out[1] = z;
    for (uint32_t i = 0; i < r->road_count; i++) {
        const demo_region_road *rd = &r->roads[i];
        float ex = rd->b[0] - rd->a[0], ez = rd->b[1] - rd->a[1];
        float len2 = ex * ex + ez * ez;
        float t = len2 > 0.0f ? ((x - rd->a[0]) * ex + (z - rd->a[1]) * ez) / len2 : 0.0f;
        t = fminf(fmaxf(t, 0.0f), 1.0f);
        float px = rd->a[0] + t * ex, pz = rd->a[1] + t * ez;
        float d = (x - px) * (x - px) + (z - pz) * (z - pz);
        if (d < best) {
            best = d, out[0] = px, out[1] = pz;
        }
    }
}

/* How far (x, z) is inside the nearest city's radii: < 1 within a core, < 2 within the suburbs
 * (the ring between the radii maps to [1, 2)), >= 2 beyond. Edges wobble a little by angle. */
static float urban_rank(const demo_region *r, float x, float z) {
    float best = INFINITY;
    for (uint32_t i = 0; i < r->city_count; i++) {
        const demo_region_city *c = &r->cities[i];
        float dx = x - c->x, dz = z - c->z, d = sqrtf(dx * dx + dz * dz);
        float wobble = 1.0f + 0.12f * sinf(5.0f * atan2f(dz, dx) + (float)i);
        float core = c->core_radius * wobble, sub = c->suburb_radius * wobble;
        float rank = d < core ? d / core : 1.0f + (d - core) / (sub - core);
        best = fminf(best, rank);
    }
    return best;
}

static void classify_cells(demo_region *r) {
    for (uint32_t cz = 0; cz < r->side; cz++) {
        for (uint32_t cx = 0; cx < r->side; cx++) {
            float c[2];
            demo_region_cell_center(r, cx, cz, c);
            float rank = urban_rank(r, c[0], c[1]);
            r->kinds[cz * r->side + cx] = (uint8_t)(rank < 1.0f   ? DEMO_REGION_CORE
                                                    : rank < 2.0f ? DEMO_REGION_SUBURB
                                                                  : DEMO_REGION_COUNTRY);
        }
    }
}

void demo_region_cell_center(const demo_region *r, uint32_t cx, uint32_t cz, float out[2]) {
    out[0] = -r->half + DEMO_REGION_CELL * ((float)cx + 0.5f);
    out[1] = -r->half + DEMO_REGION_CELL * ((float)cz + 0.5f);
}

/* >>terrain ----------------------------------------------------------------------------------- */

/* Flat (0) in every town cell out to 60 m past the suburbs' edge, rising over 500 m to the hills:
 * the distance, in metres, from (x, z) to the nearest non-country cell's square. */
static float town_distance(const demo_region *r, float x, float z) {
    float best = INFINITY;
    for (uint32_t i = 0; i < r->city_count; i++) {
        const demo_region_city *c = &r->cities[i];
        float d = sqrtf((x - c->x) * (x - c->x) + (z - c->z) * (z - c->z));
        best = fminf(best, d - 1.15f * c->suburb_radius);
    }
    return best;
}

void demo_region_harbour_rect(const demo_region *r, float out[4]) {
    out[0] = r->half + 60.0f;
    out[1] = r->half + DEMO_REGION_MARGIN - 40.0f;
    out[2] = -0.5f * r->half;
    out[3] = 0.5f * r->half;
}

/* Metres from (x, z) to the harbour's rectangle (0 inside); into `in`, metres inside its edge. */
static float harbour_distance(const demo_region *r, float x, float z, float *in) {
    float rc[4];
    demo_region_harbour_rect(r, rc);
    float dx = fmaxf(fmaxf(rc[0] - x, x - rc[1]), 0.0f);
    float dz = fmaxf(fmaxf(rc[2] - z, z - rc[3]), 0.0f);
    *in = fminf(fminf(x - rc[0], rc[1] - x), fminf(z - rc[2], rc[3] - z));
    return sqrtf(dx * dx + dz * dz);
}

/* Hills: fractal noise, faded to 0 around the towns and the harbour. */
static float hills(const demo_region *r, float x, float z) {
    float in;
    float fade = smooth01(0.0f, 500.0f, town_distance(r, x, z)) *
                 smooth01(0.0f, 500.0f, harbour_distance(r, x, z, &in));
    return fade * rill_terrain_noise(7u, 900.0f, x, z);
}

/* A sample in [0, 1]: the hills, flattened across the roads (a road keeps the height of the hills
 * at its centre line, so it climbs and falls with them, level from side to side). */
static float height01(const demo_region *r, float x, float z) {
    float h = hills(r, x, z);
    float d = demo_region_road_distance(r, x, z);
    if (d < 60.0f) {
        float p[2];
        road_nearest(r, x, z, p);
        float t = smooth01(0.6f * DEMO_REGION_ROAD_WIDTH, 60.0f, d);
        h = hills(r, p[0], p[1]) * (1.0f - t) + h * t;
    }
    /* Every sample is raised by the harbour's depth (the terrain sits that much lower), except
     * in the basin, which falls to the floor over the shore's width. */
    float in;
    harbour_distance(r, x, z, &in);
    float keep = 1.0f - smooth01(0.0f, DEMO_REGION_HARBOUR_SHORE, in);
    h = (fmaxf(h, 0.0f) + DEMO_REGION_HARBOUR_DEEP / DEMO_REGION_HEIGHT) * keep;
    return fminf(fmaxf(h, 0.0f), 1.0f);
}

/* Rows [begin, end) of the heights. */
static void heights_rows(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    demo_region *r = arg;
    for (uint32_t z = begin; z < end; z++) {
        for (uint32_t x = 0; x < r->samples; x++) {
            float v = height01(r, r->corner + (float)x * r->step, r->corner + (float)z * r->step);
            r->heights[(size_t)z * r->samples + x] = (uint16_t)(v * 65535.0f + 0.5f);
        }
    }
}

static rill_result make_heights(demo_region *r, rill_jobs *jobs, rill_error *err) {
    r->heights = rill_malloc((size_t)r->samples * r->samples * sizeof(uint16_t));
    if (!r->heights) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "region heights: out of memory");
    }
    rill_jobs_for(jobs, r->samples, 16, heights_rows, r);
    return RILL_OK;
}

float demo_region_ground(const demo_region *r, float x, float z) {
    float fx = (x - r->corner) / r->step, fz = (z - r->corner) / r->step;
    float lim = (float)(r->samples - 1u);
    fx = fminf(fmaxf(fx, 0.0f), lim), fz = fminf(fmaxf(fz, 0.0f), lim);
    uint32_t x0 = (uint32_t)fx, z0 = (uint32_t)fz;
    uint32_t x1 = RILL_MIN(x0 + 1u, r->samples - 1u), z1 = RILL_MIN(z0 + 1u, r->samples - 1u);
    float tx = fx - (float)x0, tz = fz - (float)z0;
    const uint16_t *h = r->heights;
    size_t n = r->samples;
    float a = h[z0 * n + x0] + (h[z0 * n + x1] - (float)h[z0 * n + x0]) * tx;
    float b = h[z1 * n + x0] + (h[z1 * n + x1] - (float)h[z1 * n + x0]) * tx;
    return (a + (b - a) * tz) / 65535.0f * DEMO_REGION_HEIGHT + DEMO_REGION_GROUND -
           DEMO_REGION_HARBOUR_DEEP;
}

/* The cell kind at world (x, z); country beyond the cells. */
static demo_region_kind kind_at(const demo_region *r, float x, float z) {
    float fx = (x + r->half) / DEMO_REGION_CELL, fz = (z + r->half) / DEMO_REGION_CELL;
    if (fx < 0.0f || fz < 0.0f || fx >= (float)r->side || fz >= (float)r->side) {
        return DEMO_REGION_COUNTRY;
    }
    return (demo_region_kind)r->kinds[(uint32_t)fz * r->side + (uint32_t)fx];
}

/* Fields: country cells whose hash says so are ploughed in a few strips. */
static bool field_at(const demo_region *r, float x, float z) {
    float fx = (x + r->half) / DEMO_REGION_CELL, fz = (z + r->half) / DEMO_REGION_CELL;
    if (kind_at(r, x, z) != DEMO_REGION_COUNTRY || fx < 0.0f || fz < 0.0f) {
        return false;
    }
    uint32_t cx = (uint32_t)fx, cz = (uint32_t)fz;
    if (hash01(cx, cz, 41) > 0.45f || rill_terrain_noise(11u, 1500.0f, x, z) > 0.55f) {
        return false;
    }
    float lx = x + r->half - (float)cx * DEMO_REGION_CELL; /* strips 40 m wide, 8 m of grass */
    return fmodf(lx, 48.0f) < 40.0f && fmodf(z + r->half, DEMO_REGION_CELL) > 8.0f;
}

/* Rows [begin, end) of the splat map. */
static void splat_rows(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    demo_region *r = arg;
    uint32_t n = r->splat_side;
    float size = (float)r->chunks * DEMO_REGION_TERRAIN_CHUNK, texel = size / (float)n;
    for (uint32_t v = begin; v < end; v++) {
        for (uint32_t u = 0; u < n; u++) {
            float x = r->corner + ((float)u + 0.5f) * texel,
                  z = r->corner + ((float)v + 0.5f) * texel;
            float road = 1.0f - smooth01(0.5f * DEMO_REGION_ROAD_WIDTH,
                                         0.5f * DEMO_REGION_ROAD_WIDTH + texel,
                                         demo_region_road_distance(r, x, z));
            if (kind_at(r, x, z) == DEMO_REGION_SUBURB) {
                float sx = fmodf(x + r->half + 25.0f, 50.0f),
                      sz = fmodf(z + r->half + 25.0f, 50.0f);
                float street = fminf(fabsf(sx - 25.0f), fabsf(sz - 25.0f));
                road = fmaxf(road, street < 3.5f ? 1.0f : 0.0f);
            }
            float field = field_at(r, x, z) ? 1.0f - road : 0.0f;
            uint8_t *px = &r->splat[((size_t)v * n + u) * 4u];
            px[1] = (uint8_t)(road * 255.0f + 0.5f);
            px[2] = (uint8_t)(field * 255.0f + 0.5f);
            px[0] = (uint8_t)(255u - px[1] - px[2]);
            px[3] = 0;
        }
    }
}

/* The splat map: the road layer on the roads and on the suburbs' streets (every 50 m, 7 m wide,
 * as the city's blocks), the field layer on fields, grass elsewhere. Row 0 is the terrain's first
 * row of samples (z = corner), as the heights. */
static rill_result make_splat(demo_region *r, rill_jobs *jobs, rill_error *err) {
    uint32_t n = RILL_MIN(r->chunks * 32u, DEMO_REGION_SPLAT_MAX);
    r->splat_side = n;
    r->splat = rill_malloc((size_t)n * n * 4u);
    if (!r->splat) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "region splat map: out of memory");
    }
    rill_jobs_for(jobs, n, 16, splat_rows, r);
    return RILL_OK;
}

/* >>fly path ---------------------------------------------------------------------------------- */

static void add_key(demo_region *r, float x, float y, float z, const float *look) {
    if (r->key_count >= DEMO_REGION_MAX_KEYS) {
        return;
    }
    demo_region_key *k = &r->keys[r->key_count++];
    *k = (demo_region_key){.pos = {x, y, z}, .has_look = look != NULL};
    if (look) {
        memcpy(k->look, look, sizeof k->look);
    }
}

/* West to east through the city nearest the middle, DEMO_REGION_LOW above the highest ground of
 * each 250 m stretch; then up to DEMO_REGION_OVERVIEW while turning back, and across half the
 * region looking at its middle. */
static void plan_flight(demo_region *r) {
    uint32_t mid = 0;
    for (uint32_t i = 1; i < r->city_count; i++) {
        if (hypotf(r->cities[i].x, r->cities[i].z) < hypotf(r->cities[mid].x, r->cities[mid].z)) {
            mid = i;
        }
    }
    float z = r->cities[mid].z + 60.0f, x0 = -r->half + 100.0f, x1 = r->half - 100.0f;
    uint32_t steps = (uint32_t)ceilf((x1 - x0) / 250.0f);
    r->key_count = 0;
    for (uint32_t i = 0; i <= steps; i++) {
        float x = x0 + (x1 - x0) * (float)i / (float)steps, top = -INFINITY;
        for (int s = -5; s <= 5; s++) {
            top = fmaxf(top, demo_region_ground(r, x + 25.0f * (float)s, z));
        }
        add_key(r, x, top + DEMO_REGION_LOW, z, NULL);
    }
    const float middle[3] = {0.0f, 0.0f, 0.0f};
    float q = 0.5f * r->half;
    add_key(r, x1 - q, DEMO_REGION_OVERVIEW, z - q, middle);
    add_key(r, -q, DEMO_REGION_OVERVIEW, z - 1.6f * q, middle);
}

/* >>layout ------------------------------------------------------------------------------------ */

rill_result demo_region_layout(demo_region *r, uint32_t km, rill_jobs *jobs, rill_error *err) {
    memset(r, 0, sizeof *r);
    if (km < 1u || km > DEMO_REGION_MAX_KM) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "region: %u km is not in [1, %u]", km,
                              DEMO_REGION_MAX_KM);
    }
    r->km = km;
    r->side = (uint32_t)(1000.0f * (float)km / DEMO_REGION_CELL + 0.5f);
    r->half = 0.5f * (float)r->side * DEMO_REGION_CELL;
    r->chunks =
        (uint32_t)ceilf((2.0f * (r->half + DEMO_REGION_MARGIN)) / DEMO_REGION_TERRAIN_CHUNK);
    r->samples = r->chunks * (DEMO_REGION_TERRAIN_RES - 1u) + 1u;
    r->corner = -0.5f * (float)r->chunks * DEMO_REGION_TERRAIN_CHUNK;
    r->step = DEMO_REGION_TERRAIN_CHUNK / (float)(DEMO_REGION_TERRAIN_RES - 1u);
    r->kinds = rill_malloc((size_t)r->side * r->side);
    if (!r->kinds) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "region: out of memory");
    }
    place_cities(r);
    lay_roads(r);
    classify_cells(r);
    rill_result res = make_heights(r, jobs, err);
    if (res == RILL_OK) {
        res = make_splat(r, jobs, err);
    }
    if (res == RILL_OK) {
        plan_flight(r);
    }
    if (res != RILL_OK) {
        demo_region_free(r);
    }
    return res;
}

void demo_region_free(demo_region *r) {
    rill_free(r->kinds);
    rill_free(r->heights);
    rill_free(r->splat);
    r->kinds = NULL, r->heights = NULL, r->splat = NULL;
}
