/* The region layout of `rill demo --km K` (tools/demo_region.h): at 2 and 10 km it has city cores,
 * suburbs and countryside, roads that leave every city, a terrain flat under the towns and along
 * the roads and hilly elsewhere, a splat map that paints the roads, and a fly path that crosses the
 * region low (within DEMO_REGION_LOW + a margin of the ground) and climbs to the overview height;
 * a harbour basin in the east margin under the sea's level with a dry rim; the same layout from
 * worker threads as from one; sizes outside [1, DEMO_REGION_MAX_KM] are refused. */
#include "rill_test.h"

#include <math.h>

#include "demo_region.h"

static uint32_t count_kind(const demo_region *r, demo_region_kind k) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->side * r->side; i++) {
        n += r->kinds[i] == k;
    }
    return n;
}

/* The splat map's road weight (0..255) at world (x, z). */
static uint32_t splat_road(const demo_region *r, float x, float z) {
    float size = (float)r->chunks * DEMO_REGION_TERRAIN_CHUNK;
    uint32_t u = (uint32_t)((x - r->corner) / size * (float)r->splat_side);
    uint32_t v = (uint32_t)((z - r->corner) / size * (float)r->splat_side);
    return r->splat[((size_t)v * r->splat_side + u) * 4u + 1u];
}

/* Checks the shape of a km region; leaves it in *out (demo_region_free it). */
static void check_region(uint32_t km, demo_region *out) {
    demo_region r;
    rill_error err = {0};
    assert_int_equal(demo_region_layout(&r, km, NULL, &err), RILL_OK);
    assert_int_equal(r.side, km * 5u);
    assert_true(r.city_count >= 1u);
    uint32_t cores = count_kind(&r, DEMO_REGION_CORE), suburbs = count_kind(&r, DEMO_REGION_SUBURB),
             country = count_kind(&r, DEMO_REGION_COUNTRY);
    assert_true(cores > 0 && suburbs > 0 && country > 0);
    assert_int_equal(cores + suburbs + country, r.side * r.side);
    /* Countryside is the larger part; the towns are not a token. */
    assert_true(country > r.side * r.side / 3u);
    assert_true(cores + suburbs > r.side * r.side / 10u);
    /* Roads: every city has one, and they reach the region's edge. */
    assert_true(r.road_count >= r.city_count);
    bool to_edge = false;
    for (uint32_t i = 0; i < r.road_count; i++) {
        for (int e = 0; e < 2; e++) {
            to_edge |= fabsf(r.roads[i].b[e]) > r.half;
        }
    }
    assert_true(to_edge);
    for (uint32_t i = 0; i < r.city_count; i++) {
        assert_true(demo_region_road_distance(&r, r.cities[i].x, r.cities[i].z) < 1.0f);
        /* A city centre is flat ground; the road there is painted. */
        assert_float_equal(demo_region_ground(&r, r.cities[i].x, r.cities[i].z), DEMO_REGION_GROUND,
                           0.01f);
        assert_true(splat_road(&r, r.cities[i].x, r.cities[i].z) > 128u);
    }
    /* The terrain covers the cells and is hilly in the countryside (some country cell's centre is
     * more than 20 m above the towns' ground), level across a road. */
    assert_true(r.corner <= -r.half && -r.corner >= r.half);
    float highest = 0.0f;
    for (uint32_t i = 0; i < r.side * r.side; i++) {
        float c[2];
        demo_region_cell_center(&r, i % r.side, i / r.side, c);
        if (r.kinds[i] == DEMO_REGION_COUNTRY) {
            highest = fmaxf(highest, demo_region_ground(&r, c[0], c[1]));
        } else {
            assert_float_equal(demo_region_ground(&r, c[0], c[1]), DEMO_REGION_GROUND, 0.01f);
        }
    }
    assert_true(highest > 20.0f);
    const demo_region_road *rd = &r.roads[r.road_count - 1u];
    float mx = 0.5f * (rd->a[0] + rd->b[0]), mz = 0.5f * (rd->a[1] + rd->b[1]);
    float ex = rd->b[0] - rd->a[0], ez = rd->b[1] - rd->a[1], len = hypotf(ex, ez);
    float nx = -ez / len * 3.0f, nz = ex / len * 3.0f; /* 3 m either side of the centre line */
    assert_float_equal(demo_region_ground(&r, mx + nx, mz + nz),
                       demo_region_ground(&r, mx - nx, mz - nz), 0.3f);
    /* The harbour: its basin in the east margin, past the cells and on the terrain, lies well
     * under the sea's level in the middle, and its rim (the rectangle's edge) is dry ground. */
    float hb[4];
    demo_region_harbour_rect(&r, hb);
    assert_true(hb[0] > r.half && hb[1] < -r.corner);
    float sea = DEMO_REGION_HARBOUR_LEVEL;
    float mid = demo_region_ground(&r, 0.5f * (hb[0] + hb[1]), 0.5f * (hb[2] + hb[3]));
    print_message("%u km: harbour floor %.2f m under a sea at %.2f m\n", km, mid, sea);
    assert_true(mid < sea - 0.6f * DEMO_REGION_HARBOUR_DEEP);
    for (int k = 0; k < 4; k++) {
        float x = k < 2 ? hb[k] : 0.5f * (hb[0] + hb[1]), z = k < 2 ? 0.0f : hb[k];
        assert_true(demo_region_ground(&r, x, z) > sea);
    }
    /* The fly path: low across the region (west edge to east edge), then the overview. */
    assert_true(r.key_count >= 4u);
    float west = INFINITY, east = -INFINITY, top = 0.0f;
    for (uint32_t i = 0; i < r.key_count; i++) {
        const demo_region_key *k = &r.keys[i];
        top = fmaxf(top, k->pos[1]);
        if (k->has_look) {
            continue;
        }
        west = fminf(west, k->pos[0]), east = fmaxf(east, k->pos[0]);
        float above = k->pos[1] - demo_region_ground(&r, k->pos[0], k->pos[2]);
        assert_true(above >= DEMO_REGION_LOW - 0.5f && above <= DEMO_REGION_LOW + 150.0f);
    }
    assert_true(east - west >= 2.0f * r.half - 250.0f);
    assert_float_equal(top, DEMO_REGION_OVERVIEW, 0.01f);
    assert_float_equal(r.keys[r.key_count - 1u].pos[1], DEMO_REGION_OVERVIEW, 0.01f);
    *out = r;
}

static void test_two_km(void **state) {
    (void)state;
    demo_region r;
    check_region(2, &r);
    demo_region_free(&r);
}

static void test_ten_km(void **state) {
    (void)state;
    demo_region r;
    check_region(10, &r);
    /* The 100 km^2 region has several cities joined by roads. */
    assert_true(r.city_count >= 4u);
    assert_true(r.road_count >= 2u * r.city_count - 1u);
    demo_region_free(&r);
}

/* Heights and splat map computed in rows on worker threads are the same values as on one thread:
 * `rill demo --jobs N` writes the same terrain files whatever N. */
static void test_jobs_same_layout(void **state) {
    (void)state;
    rill_error err = {0};
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 3}, &err);
    assert_non_null(jobs);
    demo_region one, many;
    assert_int_equal(demo_region_layout(&one, 3, NULL, &err), RILL_OK);
    assert_int_equal(demo_region_layout(&many, 3, jobs, &err), RILL_OK);
    assert_int_equal(one.samples, many.samples);
    assert_int_equal(one.splat_side, many.splat_side);
    assert_memory_equal(one.heights, many.heights,
                        (size_t)one.samples * one.samples * sizeof *one.heights);
    assert_memory_equal(one.splat, many.splat, (size_t)one.splat_side * one.splat_side * 4u);
    assert_memory_equal(one.keys, many.keys, sizeof one.keys);
    demo_region_free(&one);
    demo_region_free(&many);
    rill_jobs_destroy(jobs);
}

static void test_sizes_refused(void **state) {
    (void)state;
    demo_region r;
    rill_error err = {0};
    assert_int_equal(demo_region_layout(&r, 0, NULL, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(demo_region_layout(&r, DEMO_REGION_MAX_KM + 1u, NULL, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "km"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_km),
        cmocka_unit_test(test_ten_km),
        cmocka_unit_test(test_jobs_same_layout),
        cmocka_unit_test(test_sizes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
