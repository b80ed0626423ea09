/* test_upload_pieces.c: cutting uploads into pieces that fit a frame's staging budget
 * (src/render/upload_pieces.c), without a GPU. Each case plays frames as both backends do (the
 * first piece of a frame always goes, then pieces while they fit) and checks:
 *   - no frame copies more than the budget, except a single piece that alone exceeds it;
 *   - an upload of 3x the budget takes at least 3 frames and ends exactly once, on its last piece;
 *   - the pieces rebuilt into each level give back the upload's bytes (buffer ranges, whole levels
 *     packed with their 16-byte padding, row bands of pixels and of 4x4 blocks at odd sizes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "rill/base.h"
#include "upload_pieces.h"

typedef struct played {
    uint32_t frames;     /* frames that copied something */
    uint32_t ends;       /* pieces that said they end the upload */
    uint64_t max_frame;  /* most bytes copied by one frame */
    uint32_t max_pieces; /* most pieces in one frame */
} played;

/* Plays frames of `budget` until the upload ends, copying each piece from src into dst at the
 * same packed offset (so dst == src afterwards when the pieces cover every byte). A frame over
 * budget must be a single piece. */
static played play(const rill__upload_shape *s, uint64_t budget, const uint8_t *src, uint8_t *dst) {
    played out = {0};
    rill__upload_cursor c = {0};
    bool ended = false;
    for (uint32_t frame = 0; !ended && frame < 100000; frame++) {
        uint64_t used = 0, copied = 0;
        uint32_t pieces = 0;
        rill__upload_piece p;
        while (!ended &&
               rill__upload_next_piece(s, &c, used < budget ? budget - used : 0, pieces == 0, &p)) {
            assert_true(p.bytes > 0);
            assert_true(p.src + p.bytes <= s->size);
            memcpy(dst + p.src, src + p.src, p.bytes);
            used += (p.bytes + 15u) & ~(uint64_t)15u;
            copied += p.bytes;
            pieces++;
            out.ends += p.ends;
            ended = p.ends;
            rill__upload_advance(s, &c, &p);
        }
        assert_true(pieces > 0); /* the first piece of a frame always goes */
        if (copied > budget) {
            assert_int_equal(pieces, 1);
        }
        out.frames++;
        out.max_frame = RILL_MAX(out.max_frame, copied);
        out.max_pieces = RILL_MAX(out.max_pieces, pieces);
    }
    assert_true(ended);
    assert_int_equal(out.ends, 1);
    assert_int_equal(c.done, s->size);
    return out;
}

static uint8_t *pattern_bytes(uint64_t n) {
    uint8_t *b = rill_malloc((size_t)n);
    for (uint64_t i = 0; i < n; i++) {
        b[i] = (uint8_t)(i * 131u + (i >> 8) * 7u + 1u);
    }
    return b;
}

/* The padding between packed levels is not data: compare each level's own bytes. */
static void expect_levels_equal(const rill__upload_shape *s, const uint8_t *a, const uint8_t *b) {
    for (uint32_t l = 0; l < s->level_count; l++) {
        uint64_t at = rill__upload_level_offset(s, l);
        uint64_t n = rill__upload_row_bytes(s, l) * rill__upload_level_rows(s, l);
        assert_memory_equal(a + at, b + at, n);
    }
}

static void test_buffer_three_budgets(void **state) {
    (void)state;
    uint64_t budget = 4096;
    rill__upload_shape s = {.size = 3 * budget + 5};
    uint8_t *src = pattern_bytes(s.size), *dst = rill_calloc(1, (size_t)s.size);
    played p = play(&s, budget, src, dst);
    assert_int_equal(p.frames, 4); /* 4096, 4096, 4096, 5 */
    assert_true(p.max_frame <= budget);
    assert_memory_equal(src, dst, (size_t)s.size);
    /* Exactly 3x: three frames. */
    s.size = 3 * budget;
    memset(dst, 0, (size_t)s.size);
    p = play(&s, budget, src, dst);
    assert_int_equal(p.frames, 3);
    assert_memory_equal(src, dst, (size_t)s.size);
    rill_free(src);
    rill_free(dst);
}

/* An image shape of w x h with `levels` levels from first_level, its packed size filled in. */
static rill__upload_shape image(uint32_t w, uint32_t h, uint32_t first, uint32_t levels,
                                uint32_t unit, bool block) {
    rill__upload_shape s = {.image = true,
                            .width = w,
                            .height = h,
                            .first_level = first,
                            .level_count = levels,
                            .unit_bytes = unit,
                            .block = block};
    s.size = rill__upload_level_offset(&s, levels);
    return s;
}

static void test_image_levels_and_bands(void **state) {
    (void)state;
    static const struct {
        uint32_t w, h, first, levels, unit;
        bool block;
    } cases[] = {
        {211, 211, 0, 8, 4, false}, /* RGBA8, odd size, whole chain */
        {211, 211, 0, 8, 16, true}, /* BC7: rows of 4x4 blocks, partial edge blocks */
        {37, 23, 0, 6, 8, false},   /* RGBA16F */
        {256, 128, 2, 3, 8, true},  /* BC1, a range of levels not starting at 0 */
        {64, 64, 0, 1, 4, false},   /* one level (rill__img_upload's level 0) */
    };
    for (size_t i = 0; i < RILL_COUNTOF(cases); i++) {
        rill__upload_shape s = image(cases[i].w, cases[i].h, cases[i].first, cases[i].levels,
                                     cases[i].unit, cases[i].block);
        uint8_t *src = pattern_bytes(s.size), *dst = rill_calloc(1, (size_t)s.size);
        uint64_t budget = s.size / 3; /* the upload is 3x the budget (a little more) */
        played p = play(&s, budget, src, dst);
        print_message("%ux%u unit %u%s: %llu bytes over %u frames of at most %llu\n", cases[i].w,
                      cases[i].h, cases[i].unit, cases[i].block ? " (blocks)" : "",
                      (unsigned long long)s.size, p.frames, (unsigned long long)p.max_frame);
        assert_true(p.frames >= 3);
        assert_true(p.max_frame <= budget);
        expect_levels_equal(&s, src, dst);
        /* Unbudgeted (the budget holds it all): one frame, one piece of whole levels. */
        memset(dst, 0, (size_t)s.size);
        p = play(&s, s.size, src, dst);
        assert_int_equal(p.frames, 1);
        assert_int_equal(p.max_pieces, 1);
        expect_levels_equal(&s, src, dst);
        rill_free(src);
        rill_free(dst);
    }
}

/* A piece never cuts a row: a band is whole rows, and a row bigger than the room waits for the
 * next frame unless it is the frame's first piece (then it goes alone, over budget). */
static void test_rows_whole_and_first_piece(void **state) {
    (void)state;
    rill__upload_shape s = image(100, 10, 0, 1, 4, false); /* 400-byte rows */
    rill__upload_cursor c = {0};
    rill__upload_piece p;
    assert_true(rill__upload_next_piece(&s, &c, 1000, false, &p));
    assert_int_equal(p.rows, 2);
    assert_int_equal(p.bytes, 800);
    assert_true(p.begins_level && !p.ends_level && !p.ends);
    rill__upload_advance(&s, &c, &p);
    assert_false(rill__upload_next_piece(&s, &c, 399, false, &p));
    assert_true(rill__upload_next_piece(&s, &c, 399, true, &p)); /* the frame's first */
    assert_int_equal(p.rows, 1);
    assert_int_equal(p.row, 2);
    assert_false(p.begins_level);
    /* A whole_only upload (an image already drawn) never splits. */
    rill__upload_shape w = s;
    w.whole_only = true;
    rill__upload_cursor z = {0};
    assert_false(rill__upload_next_piece(&w, &z, 1000, false, &p));
    assert_true(rill__upload_next_piece(&w, &z, 1000, true, &p));
    assert_int_equal(p.bytes, 4000);
    assert_true(p.ends && p.ends_level && p.begins_level);
    played pl = play(&w, 1000, (const uint8_t[4000]){0}, (uint8_t[4000]){0});
    assert_int_equal(pl.frames, 1);
    assert_int_equal(pl.max_frame, 4000);
}

/* Small levels after a band share a frame as whole levels. */
static void test_small_levels_share_a_frame(void **state) {
    (void)state;
    rill__upload_shape s = image(64, 64, 0, 7, 4, false); /* 16384 + 4096 + 1024 + ... */
    rill__upload_cursor c = {0};
    rill__upload_piece p;
    assert_true(rill__upload_next_piece(&s, &c, 16384, true, &p));
    assert_true(p.rows == 0 && p.levels == 1 && p.ends_level); /* level 0 exactly fits */
    rill__upload_advance(&s, &c, &p);
    assert_true(rill__upload_next_piece(&s, &c, 8192, true, &p));
    assert_int_equal(p.level, 1);
    assert_int_equal(p.levels, 6); /* 4096 + 1024 + 256 + 64 + 16 + 16 (4 padded) */
    assert_true(p.ends);
    rill__upload_advance(&s, &c, &p);
    assert_int_equal(c.done, s.size);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffer_three_budgets),
        cmocka_unit_test(test_image_levels_and_bands),
        cmocka_unit_test(test_rows_whole_and_first_piece),
        cmocka_unit_test(test_small_levels_share_a_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
