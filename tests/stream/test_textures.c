/* test_textures.c: texture streaming decisions under a fake clock and a scripted camera: the
 * 60/90 hysteresis, the 2 Hz cadence, no thrash at a boundary, parked swaps (a material never
 * shows two levels), cancelled swaps, shared textures, custom-shader and splat exclusions, budget
 * ordering, the restore when streaming turns off, and memory after 1000 swap cycles. */
#include "rill/stream/textures.h"
#include "rill_test.h"

#include <string.h>

#define MAX_CALLS 4096

typedef struct call {
    char op; /* 'r' request, 'c' cancel, 'a' apply */
    uint32_t tex;
    rill_texstream_level level;
} call;

typedef struct rec {
    call calls[MAX_CALLS];
    uint32_t n;
} rec;

static void rec_push(rec *r, char op, uint32_t tex, rill_texstream_level level) {
    if (r->n < MAX_CALLS) {
        r->calls[r->n++] = (call){op, tex, level};
    }
}
static void on_request(void *u, uint32_t t, rill_texstream_level l) {
    rec_push(u, 'r', t, l);
}
static void on_cancel(void *u, uint32_t t, rill_texstream_level l) {
    rec_push(u, 'c', t, l);
}
static void on_apply(void *u, uint32_t t, rill_texstream_level l) {
    rec_push(u, 'a', t, l);
}

static uint32_t count(const rec *r, char op) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        n += r->calls[i].op == op;
    }
    return n;
}

typedef struct fx {
    rill_texstream *ts;
    rec rec;
    double now;
    float cam[3];
} fx;

static fx *fx_new(const rill_texstream_settings *s) {
    fx *f = calloc(1, sizeof *f);
    rill_texstream_settings d = rill_texstream_settings_default();
    f->ts = rill_texstream_create(s ? s : &d, &(rill_texstream_ops){.request = on_request,
                                                                    .cancel = on_cancel,
                                                                    .apply = on_apply,
                                                                    .user = &f->rec});
    assert_non_null(f->ts);
    return f;
}

static void fx_free(fx *f) {
    rill_texstream_destroy(f->ts);
    free(f);
}

/* A material of n fresh textures (full 1000 bytes, low 100), resident low, with one user: a unit
 * box at x. */
static uint32_t material_at(fx *f, uint32_t n, float x, uint32_t flags, uint32_t *first_tex) {
    uint32_t slots[RILL_TEXSTREAM_SLOTS];
    for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
        slots[i] = i < n ? rill_texstream_add_texture(f->ts, 1000, 100, RILL_TEX_LOW)
                         : RILL_TEXSTREAM_NONE;
    }
    if (first_tex) {
        *first_tex = slots[0];
    }
    uint32_t m = rill_texstream_add_material(f->ts, slots, flags);
    rill_texstream_add_user(f->ts, m, (float[3]){x, 0, 0}, (float[3]){x + 1, 1, 1});
    return m;
}

/* Every requested level is ready at once (the carrier loads instantly). */
static void deliver_all(fx *f) {
    for (uint32_t i = 0; i < f->rec.n; i++) {
        if (f->rec.calls[i].op == 'r') {
            rill_texstream_data_ready(f->ts, f->rec.calls[i].tex, f->rec.calls[i].level);
        }
    }
}

/* One frame of dt seconds with the camera at x (distance to a unit box at X is X - x). */
static bool frame(fx *f, double dt, float x) {
    f->now += dt;
    f->cam[0] = x;
    return rill_texstream_update(f->ts, f->now, true, f->cam);
}

/* Frames until the next evaluation, delivering data, then one more to apply. */
static void settle(fx *f, float x) {
    frame(f, 0.5, x);
    deliver_all(f);
    frame(f, 0.016, x);
}

static void test_hysteresis(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t m = material_at(f, 3, 0.0f, 0, NULL);
    settle(f, -100.0f); /* 100 m: low */
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_LOW);
    assert_int_equal(count(&f->rec, 'r'), 0);
    settle(f, -75.0f); /* between: unchanged (low) */
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_LOW);
    settle(f, -59.0f); /* < 60: full */
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_FULL);
    assert_int_equal(count(&f->rec, 'a'), 3);
    settle(f, -85.0f); /* between: stays full */
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_FULL);
    settle(f, -91.0f); /* > 90: low, full released */
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_LOW);
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_int_equal(st.resident_bytes, 300);
    assert_int_equal(st.all_full_bytes, 3000);
    fx_free(f);
}

static void test_low_forced_above_full(void **state) {
    (void)state;
    rill_texstream_settings s = rill_texstream_settings_default();
    s.full_distance = 60.0f;
    s.low_distance = 61.0f;
    assert_true(rill_texstream_low_distance(&s) == 65.0f);
    fx *f = fx_new(&s);
    uint32_t m = material_at(f, 1, 0.0f, 0, NULL);
    settle(f, -50.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_FULL);
    settle(f, -63.0f); /* beyond 61 but within the forced 65: still full */
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_FULL);
    settle(f, -66.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_LOW);
    fx_free(f);
}

static void test_cadence_2hz(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    material_at(f, 1, 0.0f, 0, NULL);
    assert_true(frame(f, 0.0, -100.0f)); /* the first update evaluates */
    uint32_t evals = 1;
    for (int i = 0; i < 300; i++) { /* 5 s at 60 Hz */
        evals += frame(f, 1.0 / 60.0, -100.0f);
    }
    assert_in_range(evals, 9, 11);
    /* A camera move between evaluations is not seen until the next one. */
    f->now = 100.0;
    assert_true(frame(f, 0.0, -100.0f));
    assert_false(frame(f, 0.1, -10.0f));
    assert_int_equal(count(&f->rec, 'r'), 0);
    assert_false(frame(f, 0.3, -10.0f));
    assert_true(frame(f, 0.2, -10.0f));
    assert_int_equal(count(&f->rec, 'r'), 1);
    /* A clock that goes back evaluates at once rather than waiting for it to catch up. */
    f->now = 1.0;
    assert_true(frame(f, 0.0, -10.0f));
    assert_false(frame(f, 0.1, -10.0f));
    /* A settings change evaluates at the next update. */
    rill_texstream_settings s = rill_texstream_settings_default();
    s.full_distance = 5.0f;
    rill_texstream_set_settings(f->ts, &s);
    assert_true(frame(f, 0.01, -10.0f));
    fx_free(f);
}

static void test_boundary_no_thrash(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    material_at(f, 2, 0.0f, 0, NULL);
    settle(f, -50.0f);
    uint32_t before = f->rec.n;
    for (int i = 0; i < 2000; i++) { /* oscillate across both 60 and 90 hysteresis band edges */
        float x = (i & 1) ? -65.0f : -88.0f;
        frame(f, 0.05, x);
    }
    assert_int_equal(f->rec.n, before);
    for (int i = 0; i < 200; i++) { /* jitter across 90 itself: one switch at most each way */
        frame(f, 0.25, (i & 1) ? -89.5f : -90.5f);
        deliver_all(f);
    }
    assert_true(count(&f->rec, 'a') <= 4 + 2);
    fx_free(f);
}

static void test_parked_until_all_ready(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t t0 = 0;
    uint32_t m = material_at(f, 5, 0.0f, 0, &t0);
    frame(f, 0.0, -10.0f);
    assert_int_equal(count(&f->rec, 'r'), 5);
    for (uint32_t i = 0; i < 4; i++) {
        rill_texstream_data_ready(f->ts, t0 + i, RILL_TEX_FULL);
        for (int k = 0; k < 10; k++) {
            frame(f, 0.016, -10.0f);
        }
        assert_int_equal(count(&f->rec, 'a'), 0); /* still showing low everywhere */
        for (uint32_t s = 0; s < 5; s++) {
            assert_int_equal(rill_texstream_resident(f->ts, t0 + s), RILL_TEX_LOW);
        }
    }
    rill_texstream_data_ready(f->ts, t0 + 4, RILL_TEX_FULL);
    frame(f, 0.016, -10.0f);
    /* The swap frame: all five slots switched in this one update. */
    assert_int_equal(count(&f->rec, 'a'), 5);
    for (uint32_t s = 0; s < 5; s++) {
        assert_int_equal(rill_texstream_resident(f->ts, t0 + s), RILL_TEX_FULL);
    }
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_FULL);
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(st.full, 5);
    fx_free(f);
}

static void test_cancel_when_overtaken(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t t0 = 0;
    uint32_t m = material_at(f, 2, 0.0f, 0, &t0);
    frame(f, 0.0, -10.0f); /* full requested */
    assert_int_equal(count(&f->rec, 'r'), 2);
    rill_texstream_data_ready(f->ts, t0, RILL_TEX_FULL);
    frame(f, 0.5, -200.0f); /* the camera left before the second slot arrived */
    assert_int_equal(count(&f->rec, 'c'), 2);
    rill_texstream_data_ready(f->ts, t0 + 1, RILL_TEX_FULL); /* late: ignored */
    frame(f, 0.016, -200.0f);
    assert_int_equal(count(&f->rec, 'a'), 0);
    assert_int_equal(rill_texstream_material_level(f->ts, m), RILL_TEX_LOW);
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(st.cancels, 2);
    fx_free(f);
}

static void test_shared_texture_full_while_any_needs(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t shared = rill_texstream_add_texture(f->ts, 1000, 100, RILL_TEX_LOW);
    uint32_t own_a = rill_texstream_add_texture(f->ts, 1000, 100, RILL_TEX_LOW);
    uint32_t own_b = rill_texstream_add_texture(f->ts, 1000, 100, RILL_TEX_LOW);
    uint32_t a = rill_texstream_add_material(f->ts, (uint32_t[5]){shared, own_a, ~0u, ~0u, ~0u}, 0);
    uint32_t b = rill_texstream_add_material(f->ts, (uint32_t[5]){shared, own_b, ~0u, ~0u, ~0u}, 0);
    rill_texstream_add_user(f->ts, a, (float[3]){0, 0, 0}, (float[3]){1, 1, 1});
    rill_texstream_add_user(f->ts, b, (float[3]){1000, 0, 0}, (float[3]){1001, 1, 1});
    settle(f, -10.0f); /* a near, b far */
    assert_int_equal(rill_texstream_resident(f->ts, shared), RILL_TEX_FULL);
    /* b shares a texture with a: it switches with it, so b never shows a mix of levels. */
    assert_int_equal(rill_texstream_resident(f->ts, own_b), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, b), RILL_TEX_FULL);
    settle(f, 500.0f); /* both far: low */
    assert_int_equal(rill_texstream_resident(f->ts, shared), RILL_TEX_LOW);
    settle(f, 995.0f); /* now only b near: the shared one is full again */
    assert_int_equal(rill_texstream_resident(f->ts, shared), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_resident(f->ts, own_a), RILL_TEX_FULL);
    fx_free(f);
}

static void test_exclusions_stay_full(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t tc = 0, tt = 0, tn = 0;
    uint32_t custom = material_at(f, 2, 5000.0f, RILL_TEXSTREAM_CUSTOM_SHADER, &tc);
    uint32_t splat = material_at(f, 4, 6000.0f, RILL_TEXSTREAM_TERRAIN_SPLAT, &tt);
    uint32_t normal = material_at(f, 2, 7000.0f, 0, &tn);
    settle(f, 0.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, custom), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, splat), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, normal), RILL_TEX_LOW);
    /* Even over budget the pinned ones stay full. */
    rill_texstream_settings s = rill_texstream_settings_default();
    s.budget_bytes = 1;
    rill_texstream_set_settings(f->ts, &s);
    settle(f, 0.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, custom), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, splat), RILL_TEX_FULL);
    fx_free(f);
}

static void test_budget_drops_farthest_first(void **state) {
    (void)state;
    rill_texstream_settings s = rill_texstream_settings_default();
    s.budget_bytes = 2 * 1000 + 100 + 100; /* two full (1 texture each) + one low + slack */
    fx *f = fx_new(&s);
    uint32_t m20 = material_at(f, 1, 20.0f, 0, NULL);
    uint32_t m10 = material_at(f, 1, 10.0f, 0, NULL);
    uint32_t m30 = material_at(f, 1, 30.0f, 0, NULL);
    settle(f, 0.0f); /* all three within 60 */
    assert_int_equal(rill_texstream_material_level(f->ts, m10), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, m20), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, m30), RILL_TEX_LOW);
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_true(st.resident_bytes <= s.budget_bytes);
    assert_true(st.target_bytes <= s.budget_bytes);
    /* Tighter budget: the next farthest goes too. */
    s.budget_bytes = 1000 + 200;
    rill_texstream_set_settings(f->ts, &s);
    settle(f, 0.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, m10), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, m20), RILL_TEX_LOW);
    /* No budget: all full. */
    s.budget_bytes = 0;
    rill_texstream_set_settings(f->ts, &s);
    settle(f, 0.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, m30), RILL_TEX_FULL);
    fx_free(f);
}

static void test_restore_when_off(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t a = material_at(f, 3, 1000.0f, 0, NULL);
    uint32_t b = material_at(f, 2, 2000.0f, 0, NULL);
    settle(f, 0.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, a), RILL_TEX_LOW);
    /* The gate closes: every texture back to full, requested once. */
    f->now += 0.016;
    assert_true(rill_texstream_update(f->ts, f->now, false, f->cam));
    assert_int_equal(count(&f->rec, 'r'), 5);
    deliver_all(f);
    for (int i = 0; i < 100; i++) {
        f->now += 0.1;
        rill_texstream_update(f->ts, f->now, false, f->cam);
    }
    assert_int_equal(count(&f->rec, 'r'), 5);
    assert_int_equal(rill_texstream_material_level(f->ts, a), RILL_TEX_FULL);
    assert_int_equal(rill_texstream_material_level(f->ts, b), RILL_TEX_FULL);
    /* enabled = false does the same; back on, the far ones drop again. */
    f->now += 0.016;
    rill_texstream_update(f->ts, f->now, true, f->cam);
    deliver_all(f);
    frame(f, 0.016, 0.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, a), RILL_TEX_LOW);
    rill_texstream_settings s = rill_texstream_settings_default();
    s.enabled = false;
    rill_texstream_set_settings(f->ts, &s);
    settle(f, 0.0f);
    assert_int_equal(rill_texstream_material_level(f->ts, a), RILL_TEX_FULL);
    /* With the gate open and no camera nothing changes. */
    s.enabled = true;
    rill_texstream_set_settings(f->ts, &s);
    uint32_t before = f->rec.n;
    for (int i = 0; i < 10; i++) {
        f->now += 0.5;
        rill_texstream_update(f->ts, f->now, true, NULL);
    }
    assert_int_equal(f->rec.n, before);
    fx_free(f);
}

static void test_memory_after_1000_cycles(void **state) {
    (void)state;
    size_t start = rill_mem_live_bytes(RILL_MEM_STREAM);
    fx *f = fx_new(NULL);
    for (uint32_t i = 0; i < 8; i++) {
        material_at(f, 5, (float)i * 3.0f, 0, NULL);
    }
    for (int c = 0; c < 1000; c++) {
        f->rec.n = 0;
        settle(f, -10.0f); /* near: full */
        f->rec.n = 0;
        settle(f, -500.0f); /* far: low */
    }
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_int_equal(st.swaps, 2000u * 40u);
    assert_int_equal(st.low, 40);
    fx_free(f);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_STREAM), start);
}

/* A sweep split into slices reaches the same decisions as one done at once, over several updates,
 * and a material added mid-sweep neither restarts it nor is lost (it is decided by the next). */
static void test_sliced_sweep(void **state) {
    (void)state;
    rill_texstream_settings s = rill_texstream_settings_default();
    s.work_per_update = 3;
    fx *f = fx_new(&s);
    uint32_t near[4], far[4];
    for (uint32_t i = 0; i < 4; i++) {
        near[i] = material_at(f, 1, (float)i, 0, NULL);
        far[i] = material_at(f, 1, 500.0f + (float)i, 0, NULL);
    }
    /* 8 users + 8 groups + 8 materials + 8 textures = 32 items: 11 updates. */
    uint32_t updates = 1;
    while (!frame(f, 0.001, -10.0f)) {
        updates++;
        assert_true(updates < 100);
        if (updates == 4) {
            material_at(f, 1, 1.0f, 0, NULL); /* arrives mid-sweep */
        }
    }
    assert_in_range(updates, 11, 13);
    assert_in_range(count(&f->rec, 'r'), 4, 5); /* the near ones (+ the late one if measured) */
    deliver_all(f);
    for (int i = 0; i < 40; i++) {
        frame(f, 0.02, -10.0f);
        deliver_all(f);
    }
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(rill_texstream_material_level(f->ts, near[i]), RILL_TEX_FULL);
        assert_int_equal(rill_texstream_material_level(f->ts, far[i]), RILL_TEX_LOW);
    }
    assert_int_equal(rill_texstream_material_level(f->ts, 8), RILL_TEX_FULL); /* the late one */
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_false(st.sweeping);
    assert_int_equal(st.full, 5);
    fx_free(f);
}

/* The budget pass runs in slices too (one item a texture summed, a group offered, a group
 * dropped) and drops the same groups as at once: the farthest. */
static void test_budget_sliced(void **state) {
    (void)state;
    rill_texstream_settings s = rill_texstream_settings_default();
    s.work_per_update = 1;
    s.budget_bytes = 2 * 1000 + 4 * 100; /* two full, four low */
    fx *f = fx_new(&s);
    uint32_t m[6];
    for (uint32_t i = 0; i < 6; i++) {
        m[i] = material_at(f, 1, 5.0f + 10.0f * (float)i, 0, NULL); /* 5..55: all within 60 */
    }
    uint32_t updates = 1;
    while (!frame(f, 0.001, 0.0f)) {
        updates++;
        assert_true(updates < 100);
    }
    /* 6 users + 6 groups + 6 materials + 6 textures summed + 6 groups offered + 4 dropped + 6
     * textures retargeted = 40 items, one per update. */
    assert_int_equal(updates, 40);
    deliver_all(f);
    frame(f, 0.001, 0.0f);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(rill_texstream_material_level(f->ts, m[i]),
                         i < 2 ? RILL_TEX_FULL : RILL_TEX_LOW);
    }
    fx_free(f);
}

/* Removing a texture cancels its request; a removed material is no longer decided. */
static void test_remove(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t t0 = 0;
    uint32_t m = material_at(f, 2, 0.0f, 0, &t0);
    frame(f, 0.0, -10.0f);
    assert_int_equal(count(&f->rec, 'r'), 2);
    rill_texstream_remove_texture(f->ts, t0 + 1);
    assert_int_equal(count(&f->rec, 'c'), 1);
    rill_texstream_data_ready(f->ts, t0, RILL_TEX_FULL);
    frame(f, 0.016, -10.0f); /* the remaining slot applies alone */
    assert_int_equal(count(&f->rec, 'a'), 1);
    rill_texstream_remove_material(f->ts, m);
    rill_texstream_remove_texture(f->ts, t0);
    f->rec.n = 0;
    settle(f, -500.0f);
    assert_int_equal(f->rec.n, 0);
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_int_equal(st.textures, 0);
    assert_int_equal(st.resident_bytes, 0);
    fx_free(f);
}

/* Ids are reused: a removed texture's at once, a removed material's once the groups are rebuilt
 * (at the next evaluation), with a new generation so the old id (and a user left on it) stays
 * dead; 1000 add/remove cycles keep memory flat. */
static void test_ids_reused(void **state) {
    (void)state;
    fx *f = fx_new(NULL);
    uint32_t t0 = 0;
    uint32_t near = material_at(f, 1, 1.0f, 0, &t0); /* its user stays behind when it goes */
    rill_texstream_remove_material(f->ts, near);
    rill_texstream_remove_texture(f->ts, t0);
    assert_int_equal(rill_texstream_add_texture(f->ts, 1000, 100, RILL_TEX_LOW), t0);
    assert_int_equal(rill_texstream_add_user(f->ts, near, (float[3]){0}, (float[3]){1, 1, 1}),
                     RILL_TEXSTREAM_NONE);
    settle(f, 0.0f); /* the evaluation rebuilds the groups and frees the material's id */
    uint32_t slots[RILL_TEXSTREAM_SLOTS] = {t0, RILL_TEXSTREAM_NONE, RILL_TEXSTREAM_NONE,
                                            RILL_TEXSTREAM_NONE, RILL_TEXSTREAM_NONE};
    uint32_t far = rill_texstream_add_material(f->ts, slots, 0);
    assert_true(far != near);
    assert_int_equal(far & 0xFFFFFFu, near & 0xFFFFFFu); /* the same index, a new generation */
    rill_texstream_add_user(f->ts, far, (float[3]){500, 0, 0}, (float[3]){501, 1, 1});
    settle(f, 0.0f);
    /* The old material's user (1 m away) no longer counts: the new one is decided far. */
    assert_int_equal(rill_texstream_material_level(f->ts, far), RILL_TEX_LOW);
    assert_int_equal(rill_texstream_material_level(f->ts, near), RILL_TEX_LOW);
    assert_false(rill_texstream_material_swapping(f->ts, near));
    size_t warm = 0;
    for (int c = 0; c < 1000; c++) {
        uint32_t two[RILL_TEXSTREAM_SLOTS] = {
            rill_texstream_add_texture(f->ts, 1000, 100, RILL_TEX_LOW),
            rill_texstream_add_texture(f->ts, 1000, 100, RILL_TEX_LOW), RILL_TEXSTREAM_NONE,
            RILL_TEXSTREAM_NONE, RILL_TEXSTREAM_NONE};
        uint32_t m = rill_texstream_add_material(f->ts, two, 0);
        float x = (float)(c % 200);
        uint32_t u = rill_texstream_add_user(f->ts, m, (float[3]){x, 0, 0}, (float[3]){x, 1, 1});
        settle(f, 0.0f);
        rill_texstream_remove_user(f->ts, u);
        rill_texstream_remove_material(f->ts, m);
        rill_texstream_remove_texture(f->ts, two[0]);
        rill_texstream_remove_texture(f->ts, two[1]);
        if (c == 10) {
            warm = rill_mem_live_bytes(RILL_MEM_STREAM);
        }
    }
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_STREAM), warm);
    rill_texstream_stats st;
    rill_texstream_get_stats(f->ts, &st);
    assert_int_equal(st.textures, 1);
    assert_int_equal(st.materials, 1);
    fx_free(f);
}

/* Ready groups beyond the update's apply bytes wait for the next update, whole. */
static void test_apply_bytes_spread(void **state) {
    (void)state;
    rill_texstream_settings s = rill_texstream_settings_default();
    s.apply_bytes_per_update = 2000; /* one two-texture group (2 x 1000 full bytes) */
    fx *f = fx_new(&s);
    for (int i = 0; i < 3; i++) {
        material_at(f, 2, (float)i, 0, NULL);
    }
    frame(f, 0.0, -10.0f);
    assert_int_equal(count(&f->rec, 'r'), 6);
    deliver_all(f);
    for (uint32_t k = 1; k <= 3; k++) {
        frame(f, 0.016, -10.0f);
        assert_int_equal(count(&f->rec, 'a'), 2 * k); /* one group per update, never half */
    }
    fx_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_low_forced_above_full),
        cmocka_unit_test(test_cadence_2hz),
        cmocka_unit_test(test_boundary_no_thrash),
        cmocka_unit_test(test_parked_until_all_ready),
        cmocka_unit_test(test_cancel_when_overtaken),
        cmocka_unit_test(test_shared_texture_full_while_any_needs),
        cmocka_unit_test(test_exclusions_stay_full),
        cmocka_unit_test(test_budget_drops_farthest_first),
        cmocka_unit_test(test_budget_sliced),
        cmocka_unit_test(test_restore_when_off),
        cmocka_unit_test(test_memory_after_1000_cycles),
        cmocka_unit_test(test_sliced_sweep),
        cmocka_unit_test(test_remove),
        cmocka_unit_test(test_apply_bytes_spread),
        cmocka_unit_test(test_ids_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
