/* test_rpak.c: the .rpak pack format: round trips (raw and zstd), writer validation, every
 * truncation length and random byte flips of a sample pack (errors, never crashes, never wrong
 * data), hostile index edits behind a valid checksum, corrupted entries caught by checksums,
 * range reads that fetch only the chunks they touch, and the NOTES 7 mount order including a
 * pack appended to an executable. */
#include "rill_test.h"

#include "rill/asset.h"
#include "rill/formats/rpak.h"

#include "rpak_store.h"
#include "rpak_test_util.h"

#include <stdatomic.h>

/* >>sample data */

static uint32_t lcg_next(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static uint8_t *random_bytes(size_t n, uint32_t seed) {
    uint8_t *b = rill_malloc(n ? n : 1);
    for (size_t i = 0; i < n; ++i) {
        b[i] = (uint8_t)lcg_next(&seed);
    }
    return b;
}

typedef struct sample {
    const char *path;
    uint8_t *data;
    size_t size;
    rill_rpak_compression mode;
    rill_rpak_compression expect;
} sample;

#define SAMPLE_COUNT 6

/* A small pack: text that compresses (AUTO -> zstd), a .png (AUTO -> raw), an empty file, a
 * forced-zstd and a forced-raw entry, and a two-chunk raw entry (4 KiB chunks). */
static void make_samples(sample s[SAMPLE_COUNT]) {
    static char text[3000];
    for (size_t i = 0; i < sizeof(text); ++i) {
        text[i] = "the quick brown fox jumps over the lazy dog. "[i % 45];
    }
    s[0] = (sample){"docs/readme.txt", NULL, sizeof(text), RILL_RPAK_COMPRESSION_AUTO,
                    RILL_RPAK_COMPRESSION_ZSTD};
    s[0].data = rill_malloc(sizeof(text));
    memcpy(s[0].data, text, sizeof(text));
    s[1] = (sample){"textures/rock.png", random_bytes(1500, 7), 1500, RILL_RPAK_COMPRESSION_AUTO,
                    RILL_RPAK_COMPRESSION_RAW};
    s[2] = (sample){"empty.bin", NULL, 0, RILL_RPAK_COMPRESSION_AUTO, RILL_RPAK_COMPRESSION_RAW};
    s[3] = (sample){"data/table.bin", random_bytes(300, 9), 300, RILL_RPAK_COMPRESSION_ZSTD,
                    RILL_RPAK_COMPRESSION_ZSTD};
    s[4] =
        (sample){"raw/forced.txt", NULL, 200, RILL_RPAK_COMPRESSION_RAW, RILL_RPAK_COMPRESSION_RAW};
    s[4].data = rill_malloc(200);
    memcpy(s[4].data, text, 200);
    s[5] = (sample){"textures/tail.rmip", random_bytes(5000, 11), 5000, RILL_RPAK_COMPRESSION_AUTO,
                    RILL_RPAK_COMPRESSION_RAW};
}

static void free_samples(sample s[SAMPLE_COUNT]) {
    for (int i = 0; i < SAMPLE_COUNT; ++i) {
        rill_free(s[i].data);
    }
}

static const sample *sample_by_name(const sample s[SAMPLE_COUNT], const char *name) {
    for (int i = 0; i < SAMPLE_COUNT; ++i) {
        if (strcmp(s[i].path, name) == 0) {
            return &s[i];
        }
    }
    return NULL;
}

static void build_pack(const sample s[SAMPLE_COUNT], uint32_t chunk, uint8_t **out, size_t *size) {
    rill_rpak_writer *w =
        rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = chunk}, NULL);
    assert_non_null(w);
    rill_error err = {0};
    for (int i = 0; i < SAMPLE_COUNT; ++i) {
        rill_result r = rill_rpak_writer_add(w, s[i].path, s[i].data, s[i].size, s[i].mode, &err);
        if (r != RILL_OK) {
            fail_msg("add %s: %s", s[i].path, err.msg);
        }
    }
    assert_int_equal(rill_rpak_writer_finish_memory(w, out, size, &err), RILL_OK);
    rill_rpak_writer_destroy(w);
}

static void write_bytes(const char *path, const void *data, size_t size) {
    rill_error err = {0};
    if (rill_file_write_all(path, data, size, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
}

/* >>round trip */

static void check_pack_contents(rill_rpak *p, const sample s[SAMPLE_COUNT]) {
    assert_int_equal(rill_rpak_entry_count(p), SAMPLE_COUNT);
    const char *prev = "";
    for (uint32_t i = 0; i < SAMPLE_COUNT; ++i) {
        rill_rpak_entry_info info;
        assert_true(rill_rpak_entry_info_get(p, i, &info));
        assert_true(strcmp(prev, info.path) < 0); /* sorted */
        prev = info.path;
        const sample *sm = sample_by_name(s, info.path);
        assert_non_null(sm);
        assert_int_equal(info.raw_size, sm->size);
        assert_int_equal(info.compression, sm->expect);
        assert_int_equal(info.offset % 16, 0);
        if (info.compression == RILL_RPAK_COMPRESSION_ZSTD) {
            assert_true(info.stored_size < info.raw_size || sm->mode == RILL_RPAK_COMPRESSION_ZSTD);
        } else {
            assert_int_equal(info.stored_size, info.raw_size);
        }
        assert_int_equal(rill_rpak_find(p, info.path), (int32_t)i);
        uint8_t *data = NULL;
        size_t size = 99;
        rill_error err = {0};
        if (rill_rpak_read_entry(p, i, &data, &size, &err) != RILL_OK) {
            fail_msg("read %s: %s", info.path, err.msg);
        }
        assert_int_equal(size, sm->size);
        if (size) {
            assert_memory_equal(data, sm->data, size);
        }
        assert_int_equal(data[size], 0);
        rill_free(data);
        /* A range in the middle. */
        if (sm->size >= 10) {
            uint8_t buf[10];
            assert_int_equal(rill_rpak_read_range(p, i, sm->size / 2, 10, buf, &err), RILL_OK);
            assert_memory_equal(buf, sm->data + sm->size / 2, 10);
        }
    }
    assert_int_equal(rill_rpak_find(p, "nope"), -1);
    assert_int_equal(rill_rpak_find(p, "./docs//readme.txt"), rill_rpak_find(p, "docs/readme.txt"));
    uint32_t bad = 9;
    assert_int_equal(rill_rpak_verify(p, &bad, NULL), RILL_OK);
    assert_int_equal(bad, 0);
}

static void test_round_trip(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    sample s[SAMPLE_COUNT];
    make_samples(s);
    uint8_t *pack = NULL;
    size_t size = 0;
    build_pack(s, 4096, &pack, &size);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_memory(pack, size, "sample.rpak", &p, &err), RILL_OK);
    assert_string_equal(rill_rpak_name(p), "sample.rpak");
    check_pack_contents(p, s);
    rill_rpak_close(p);

    /* The same through a file, and the writer is deterministic whatever the add order. */
    char dir[512], path[1024];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_rt");
    rill_test_path(path, sizeof(path), dir, "sample.rpak");
    rill_rpak_writer *w =
        rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = 4096}, NULL);
    for (int i = SAMPLE_COUNT - 1; i >= 0; --i) {
        assert_int_equal(rill_rpak_writer_add(w, s[i].path, s[i].data, s[i].size, s[i].mode, &err),
                         RILL_OK);
    }
    assert_int_equal(rill_rpak_writer_finish_file(w, path, &err), RILL_OK);
    rill_rpak_writer_destroy(w);
    uint8_t *again = NULL;
    size_t again_size = 0;
    assert_int_equal(rill_file_read_all(path, &again, &again_size, &err), RILL_OK);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, pack, size);
    rill_free(again);
    assert_int_equal(rill_rpak_open_file(path, &p, &err), RILL_OK);
    check_pack_contents(p, s);
    rill_rpak_close(p);

    /* An empty pack is valid. */
    w = rill_rpak_writer_create(NULL, NULL);
    uint8_t *empty = NULL;
    size_t empty_size = 0;
    assert_int_equal(rill_rpak_writer_finish_memory(w, &empty, &empty_size, &err), RILL_OK);
    rill_rpak_writer_destroy(w);
    assert_int_equal(empty_size, RILL_RPAK_HEADER_SIZE + RILL_RPAK_TRAILER_SIZE);
    assert_int_equal(rill_rpak_open_memory(empty, empty_size, NULL, &p, &err), RILL_OK);
    assert_int_equal(rill_rpak_entry_count(p), 0);
    rill_rpak_close(p);
    rill_free(empty);

    rill_free(pack);
    free_samples(s);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

static void test_writer_validation(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    assert_null(rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = 1000}, NULL));
    assert_null(rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = 1024}, NULL));
    rill_rpak_writer_desc d = rill_rpak_writer_query_defaults();
    assert_int_equal(d.chunk_size, 16384);
    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_rpak_writer_add(w, "a.txt", "x", 1, RILL_RPAK_COMPRESSION_AUTO, &err),
                     RILL_OK);
    assert_int_equal(rill_rpak_writer_add(w, "./a.txt", "y", 1, RILL_RPAK_COMPRESSION_AUTO, &err),
                     RILL_ERR_ALREADY_EXISTS);
    assert_non_null(strstr(err.msg, "a.txt"));
    const char *bad[] = {"../a.txt", "/abs.txt", "a#b.txt", "", ".", "a/\x01.txt"};
    for (size_t i = 0; i < RILL_COUNTOF(bad); ++i) {
        assert_int_equal(rill_rpak_writer_add(w, bad[i], "x", 1, RILL_RPAK_COMPRESSION_AUTO, &err),
                         RILL_ERR_INVALID_ARGUMENT);
    }
    assert_int_equal(rill_rpak_writer_add(w, "b.txt", "x", 1, (rill_rpak_compression)42, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    rill_rpak_writer_destroy(w);
    RILL_TEST_LEAK_END();
}

/* Entries compressed apart from the writer (rill__rpak_store, as the exporter's workers do) and
 * filed with rill__rpak_writer_add_stored make the same pack, byte for byte, as
 * rill_rpak_writer_add; a stored entry the writer refuses (a name already in the pack) is freed. */
static void test_stored_entries_same_pack(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    sample s[SAMPLE_COUNT];
    make_samples(s);
    uint8_t *added = NULL, *stored = NULL;
    size_t added_size = 0, stored_size = 0;
    build_pack(s, 16384, &added, &added_size);
    rill_rpak_writer *w =
        rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = 16384}, NULL);
    assert_non_null(w);
    rill_error err = {0};
    for (int i = 0; i < SAMPLE_COUNT; ++i) {
        rill__rpak_stored st;
        assert_int_equal(rill__rpak_store(rill__rpak_writer_desc(w), s[i].path, s[i].data,
                                          s[i].size, s[i].mode, &st, &err),
                         RILL_OK);
        assert_int_equal(st.compression, s[i].expect);
        assert_int_equal(rill__rpak_writer_add_stored(w, s[i].path, &st, &err), RILL_OK);
    }
    rill__rpak_stored dup;
    assert_int_equal(rill__rpak_store(rill__rpak_writer_desc(w), s[0].path, s[0].data, s[0].size,
                                      s[0].mode, &dup, &err),
                     RILL_OK);
    assert_int_equal(rill__rpak_writer_add_stored(w, s[0].path, &dup, &err),
                     RILL_ERR_ALREADY_EXISTS);
    assert_int_equal(rill_rpak_writer_finish_memory(w, &stored, &stored_size, &err), RILL_OK);
    rill_rpak_writer_destroy(w);
    assert_int_equal(stored_size, added_size);
    assert_memory_equal(stored, added, added_size);
    rill_free(added);
    rill_free(stored);
    free_samples(s);
    RILL_TEST_LEAK_END();
}

/* >>hostile input */

/* The samples in pack order (the writer sorts entries by path). */
static void samples_in_pack_order(const sample s[SAMPLE_COUNT], const sample *out[SAMPLE_COUNT]) {
    for (int i = 0; i < SAMPLE_COUNT; ++i) {
        out[i] = &s[i];
    }
    for (int i = 1; i < SAMPLE_COUNT; ++i) {
        for (int k = i; k > 0 && strcmp(out[k - 1]->path, out[k]->path) > 0; --k) {
            const sample *t = out[k];
            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    }
}

/* Opens a damaged image and reads everything it claims to hold. Returns true when it opened.
 * Any entry that reads OK must be byte-identical to the original entry at the same index (an
 * edited name is allowed to survive, wrong bytes are not): a reader may fail, but it may never
 * hand out wrong data. */
static bool exercise(const uint8_t *data, size_t size, const sample s[SAMPLE_COUNT]) {
    const sample *order[SAMPLE_COUNT];
    samples_in_pack_order(s, order);
    rill_rpak *p = NULL;
    rill_error err = {0};
    if (rill_rpak_open_memory(data, size, "damaged.rpak", &p, &err) != RILL_OK) {
        assert_null(p);
        assert_true(err.code != RILL_OK);
        assert_non_null(strstr(err.msg, "damaged.rpak"));
        return false;
    }
    assert_int_equal(rill_rpak_entry_count(p), SAMPLE_COUNT);
    for (uint32_t i = 0; i < rill_rpak_entry_count(p); ++i) {
        rill_rpak_entry_info info;
        assert_true(rill_rpak_entry_info_get(p, i, &info));
        const sample *sm = order[i];
        uint8_t *out = NULL;
        size_t out_size = 0;
        if (rill_rpak_read_entry(p, i, &out, &out_size, &err) == RILL_OK) {
            assert_int_equal(out_size, sm->size);
            if (out_size) {
                assert_memory_equal(out, sm->data, out_size);
            }
        } else {
            assert_null(out);
        }
        rill_free(out);
        if (info.raw_size >= 64 && info.raw_size < 100000) {
            uint8_t buf[64];
            uint64_t off = info.raw_size - 64;
            if (rill_rpak_read_range(p, i, off, 64, buf, &err) == RILL_OK) {
                assert_true(info.raw_size == sm->size);
                assert_memory_equal(buf, sm->data + off, 64);
            }
        }
    }
    rill_rpak_verify(p, NULL, NULL);
    rill_rpak_close(p);
    return true;
}

static void test_every_truncation(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    sample s[SAMPLE_COUNT];
    make_samples(s);
    uint8_t *pack = NULL;
    size_t size = 0;
    build_pack(s, 4096, &pack, &size);
    assert_true(exercise(pack, size, s));
    for (size_t len = 0; len < size; ++len) {
        /* Cut the tail (a download that stopped), then cut the head (a wrong start offset). Each
         * copy is exactly `len` bytes on the heap so ASan sees any read past its end. */
        uint8_t *cut = rill_malloc(len ? len : 1);
        memcpy(cut, pack, len);
        assert_false(exercise(cut, len, s));
        memcpy(cut, pack + (size - len), len);
        assert_false(exercise(cut, len, s));
        rill_free(cut);
    }
    rill_free(pack);
    free_samples(s);
    RILL_TEST_LEAK_END();
}

static void test_random_flips(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    sample s[SAMPLE_COUNT];
    make_samples(s);
    uint8_t *pack = NULL;
    size_t size = 0;
    build_pack(s, 4096, &pack, &size);
    size_t index_at = rpak_test_index_offset(pack, size);
    uint8_t *copy = rill_malloc(size);
    uint32_t seed = 12345;
    int opened = 0, opened_resealed = 0;
    for (int iter = 0; iter < 6000; ++iter) {
        memcpy(copy, pack, size);
        int flips = 1 + (int)(lcg_next(&seed) % 4);
        bool reseal = iter % 2 == 1;
        for (int k = 0; k < flips; ++k) {
            size_t at;
            if (reseal) {
                /* Edit the index, then fix its checksums, so the structural checks are hit. */
                at = index_at + lcg_next(&seed) % (size - 64 - index_at);
            } else {
                at = lcg_next(&seed) % size;
            }
            copy[at] ^= (uint8_t)(1u + lcg_next(&seed) % 255u);
        }
        if (reseal) {
            rpak_test_reseal(copy, size);
        }
        bool ok = exercise(copy, size, s);
        opened += ok;
        opened_resealed += ok && reseal;
    }
    /* Flips in the data area leave the index readable, so many images still open. */
    assert_true(opened > 100);
    print_message("random flips: %d of 6000 damaged images opened (%d resealed)\n", opened,
                  opened_resealed);
    rill_free(copy);
    rill_free(pack);
    free_samples(s);
    RILL_TEST_LEAK_END();
}

/* Edits one index record field and reseals; expects `code`. */
static void expect_edit(const uint8_t *pack, size_t size, size_t at, const void *bytes, size_t n,
                        rill_result code, const char *needle) {
    uint8_t *copy = rill_malloc(size);
    memcpy(copy, pack, size);
    memcpy(copy + at, bytes, n);
    rpak_test_reseal(copy, size);
    rill_rpak *p = NULL;
    rill_error err = {0};
    rill_result r = rill_rpak_open_memory(copy, size, "edited.rpak", &p, &err);
    if (r != code) {
        fail_msg("edit at %zu: wanted %s, got %s (%s)", at, rill_result_name(code),
                 rill_result_name(r), err.msg);
    }
    assert_null(p);
    assert_non_null(strstr(err.msg, "edited.rpak"));
    if (needle) {
        assert_non_null(strstr(err.msg, needle));
    }
    rill_free(copy);
}

static void test_hostile_index(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    sample s[SAMPLE_COUNT];
    make_samples(s);
    uint8_t *pack = NULL;
    size_t size = 0;
    build_pack(s, 4096, &pack, &size);
    size_t idx = rpak_test_index_offset(pack, size);
    size_t tr = size - 64;
    uint8_t b8[8];
    /* Entry 0's data offset far past the index. */
    rpak_test_wr64(b8, (uint64_t)size * 4);
    expect_edit(pack, size, idx + 0, b8, 8, RILL_ERR_CORRUPT, "outside the data area");
    /* Misaligned offset. */
    rpak_test_wr64(b8, rpak_test_rd64(pack + idx) + 1);
    expect_edit(pack, size, idx + 0, b8, 8, RILL_ERR_CORRUPT, NULL);
    /* Stored size that overflows offset + size. */
    rpak_test_wr64(b8, UINT64_MAX - 8);
    expect_edit(pack, size, idx + 8, b8, 8, RILL_ERR_CORRUPT, NULL);
    /* Raw size beyond the entry limit. */
    rpak_test_wr64(b8, (uint64_t)1 << 40);
    expect_edit(pack, size, idx + 16, b8, 8, RILL_ERR_LIMIT, NULL);
    /* Unknown compression. */
    uint8_t seven = 7;
    expect_edit(pack, size, idx + 38, &seven, 1, RILL_ERR_UNSUPPORTED, "compression");
    /* A name that escapes the root: rewrite the first name's first bytes to "../". */
    size_t entries = SAMPLE_COUNT;
    size_t chunks = rpak_test_rd64(pack + tr + 32) >> 32; /* chunk_count is the high half */
    size_t names_at = idx + entries * 48 + chunks * 8;
    expect_edit(pack, size, names_at, "../", 3, RILL_ERR_CORRUPT, "invalid name");
    expect_edit(pack, size, names_at + 1, "#", 1, RILL_ERR_CORRUPT, "invalid name");
    /* Name length that runs past the names table. */
    uint8_t len16[2] = {0xFF, 0x7F};
    expect_edit(pack, size, idx + 36, len16, 2, RILL_ERR_CORRUPT, "invalid name");
    /* Reserved bits set. */
    uint8_t one = 1;
    expect_edit(pack, size, idx + 39, &one, 1, RILL_ERR_CORRUPT, "reserved");
    /* Trailer: entry count beyond the limit, index that does not add up, pack larger than the
     * file, wrong version. */
    uint8_t b4[4] = {0xFF, 0xFF, 0xFF, 0x7F};
    expect_edit(pack, size, tr + 32, b4, 4, RILL_ERR_LIMIT, NULL);
    uint8_t b4b[4] = {0x00, 0x10, 0x00, 0x00};
    expect_edit(pack, size, tr + 32, b4b, 4, RILL_ERR_CORRUPT, "index");
    rpak_test_wr64(b8, (uint64_t)size + 1);
    expect_edit(pack, size, tr + 16, b8, 8, RILL_ERR_TRUNCATED, NULL);
    uint8_t v2[4] = {2, 0, 0, 0};
    expect_edit(pack, size, tr + 44, v2, 4, RILL_ERR_VERSION, NULL);
    /* Two entries with the same name: give entry 1 entry 0's bytes where lengths allow. Here we
     * craft it by duplicating the whole pack's first name into the second slot when equal in
     * length; the sample names differ in length, so build a dedicated pack instead. */
    {
        rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
        rill_rpak_writer_add(w, "a1.txt", "x", 1, RILL_RPAK_COMPRESSION_RAW, NULL);
        rill_rpak_writer_add(w, "a2.txt", "y", 1, RILL_RPAK_COMPRESSION_RAW, NULL);
        uint8_t *dup = NULL;
        size_t dup_size = 0;
        rill_rpak_writer_finish_memory(w, &dup, &dup_size, NULL);
        rill_rpak_writer_destroy(w);
        size_t didx = rpak_test_index_offset(dup, dup_size);
        size_t dchunks = rpak_test_rd64(dup + dup_size - 64 + 32) >> 32;
        size_t dnames = didx + 2 * 48 + dchunks * 8;
        expect_edit(dup, dup_size, dnames + 6 + 1, "1", 1, RILL_ERR_CORRUPT, "twice");
        rill_free(dup);
    }
    /* Without resealing, any index edit is a checksum error. */
    uint8_t *copy = rill_malloc(size);
    memcpy(copy, pack, size);
    copy[idx + 3] ^= 0x40;
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_memory(copy, size, "x.rpak", &p, &err), RILL_ERR_CHECKSUM);
    /* Not a pack at all. */
    memset(copy, 'A', size);
    assert_int_equal(rill_rpak_open_memory(copy, size, "x.rpak", &p, &err), RILL_ERR_CORRUPT);
    rill_free(copy);
    rill_free(pack);
    free_samples(s);
    RILL_TEST_LEAK_END();
}

/* A zstd entry whose index claims more content than its stored bytes could ever expand to is
 * refused at open, so a tiny hostile pack cannot make the reader allocate gigabytes. Zeros
 * compress at close to zstd's ceiling (one 4-byte RLE block per 128 KiB), and still open. */
static void test_zstd_declared_size_bounded(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    /* This test is about the physical ceiling, so the compression_ratio limit (which refuses
     * such entries long before it, see test_zstd_ratio_limit) is raised past it. */
    rill_limits lim = {0};
    lim.compression_ratio = 1u << 20;
    rill_limits_set(&lim);
    size_t zn = 8u << 20;
    uint8_t *zeros = rill_calloc(1, zn);
    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    assert_int_equal(
        rill_rpak_writer_add(w, "zeros.bin", zeros, zn, RILL_RPAK_COMPRESSION_ZSTD, NULL), RILL_OK);
    uint8_t *pack = NULL;
    size_t size = 0;
    assert_int_equal(rill_rpak_writer_finish_memory(w, &pack, &size, NULL), RILL_OK);
    rill_rpak_writer_destroy(w);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_memory(pack, size, "zeros.rpak", &p, &err), RILL_OK);
    rill_rpak_entry_info info;
    assert_true(rill_rpak_entry_info_get(p, 0, &info));
    assert_int_equal(info.compression, RILL_RPAK_COMPRESSION_ZSTD);
    assert_true(info.stored_size * 1000u < zn); /* really near the ceiling */
    uint8_t *out = NULL;
    size_t out_size = 0;
    assert_int_equal(rill_rpak_read_entry(p, 0, &out, &out_size, &err), RILL_OK);
    assert_int_equal(out_size, zn);
    assert_memory_equal(out, zeros, zn);
    rill_free(out);
    rill_rpak_close(p);
    /* The same entry claiming 3 GiB (within the 4 GiB entry limit) behind a valid index. */
    size_t idx = rpak_test_index_offset(pack, size);
    uint8_t b8[8];
    rpak_test_wr64(b8, (uint64_t)3 << 30);
    expect_edit(pack, size, idx + 16, b8, 8, RILL_ERR_CORRUPT, "cannot hold");
    /* One byte over the ceiling is refused too; exactly at it is left to the decoder. */
    rpak_test_wr64(b8, info.stored_size * 32768u + 1u);
    expect_edit(pack, size, idx + 16, b8, 8, RILL_ERR_CORRUPT, "cannot hold");
    /* With the default limits the same pack is refused when it opens: 8 MiB from a few hundred
     * bytes is far past compression_ratio, so nothing is inflated. */
    rill_limits_set(NULL);
    assert_int_equal(rill_rpak_open_memory(pack, size, "zeros.rpak", &p, &err), RILL_ERR_LIMIT);
    assert_null(p);
    assert_non_null(strstr(err.msg, "zeros.rpak: offset "));
    assert_non_null(strstr(err.msg, "entry 'zeros.bin'"));
    assert_non_null(strstr(err.msg, "compression_ratio limit of 1024"));
    rill_free(pack);
    rill_free(zeros);
    RILL_TEST_LEAK_END();
}

/* The writer never makes what readers refuse: content zstd would shrink past compression_ratio
 * is stored raw, even when zstd was asked for; entries over entry_bytes are refused. */
static void test_writer_stores_bomb_like_content_raw(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    size_t zn = 4u << 20;
    uint8_t *zeros = rill_calloc(1, zn);
    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(
        rill_rpak_writer_add(w, "zeros.bin", zeros, zn, RILL_RPAK_COMPRESSION_ZSTD, &err), RILL_OK);
    rill_limits lim = {0};
    lim.entry_bytes = 1000;
    rill_limits_set(&lim);
    assert_int_equal(
        rill_rpak_writer_add(w, "big.bin", zeros, 1001, RILL_RPAK_COMPRESSION_RAW, &err),
        RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "big.bin: 1001 bytes exceeds the entry_bytes limit"));
    rill_limits_set(NULL);
    uint8_t *pack = NULL;
    size_t size = 0;
    assert_int_equal(rill_rpak_writer_finish_memory(w, &pack, &size, NULL), RILL_OK);
    rill_rpak_writer_destroy(w);
    rill_rpak *p = NULL;
    assert_int_equal(rill_rpak_open_memory(pack, size, "zeros.rpak", &p, &err), RILL_OK);
    rill_rpak_entry_info info;
    assert_true(rill_rpak_entry_info_get(p, 0, &info));
    assert_int_equal(info.compression, RILL_RPAK_COMPRESSION_RAW);
    assert_int_equal(rill_rpak_verify(p, NULL, &err), RILL_OK);
    rill_rpak_close(p);
    rill_free(pack);
    rill_free(zeros);
    RILL_TEST_LEAK_END();
}

/* decompressed_bytes caps what all zstd entries of one pack declare together, checked at open:
 * many entries each under entry_bytes cannot add up to a bomb. */
static void test_zstd_total_limit(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    uint8_t *text = rill_malloc(100000);
    uint32_t seed = 7u;
    for (size_t i = 0; i < 100000; ++i) {
        seed = seed * 1664525u + 1013904223u;
        text[i] = (uint8_t)('a' + (seed >> 24) % 26u);
    }
    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    assert_int_equal(
        rill_rpak_writer_add(w, "a.txt", text, 100000, RILL_RPAK_COMPRESSION_ZSTD, NULL), RILL_OK);
    assert_int_equal(
        rill_rpak_writer_add(w, "b.txt", text, 100000, RILL_RPAK_COMPRESSION_ZSTD, NULL), RILL_OK);
    uint8_t *pack = NULL;
    size_t size = 0;
    assert_int_equal(rill_rpak_writer_finish_memory(w, &pack, &size, NULL), RILL_OK);
    rill_rpak_writer_destroy(w);
    rill_limits lim = {0};
    lim.decompressed_bytes = 150000;
    rill_limits_set(&lim);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_memory(pack, size, "two.rpak", &p, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "two.rpak: compressed entries up to 'b.txt': 200000 bytes"));
    assert_non_null(strstr(err.msg, "decompressed_bytes limit of 150000"));
    rill_limits_set(NULL);
    assert_int_equal(rill_rpak_open_memory(pack, size, "two.rpak", &p, &err), RILL_OK);
    rill_rpak_close(p);
    rill_free(pack);
    rill_free(text);
    RILL_TEST_LEAK_END();
}

/* >>checksums on entries */

static void test_corrupt_entry_detected(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    sample s[SAMPLE_COUNT];
    make_samples(s);
    uint8_t *pack = NULL;
    size_t size = 0;
    build_pack(s, 4096, &pack, &size);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_memory(pack, size, "good.rpak", &p, &err), RILL_OK);
    rill_rpak_entry_info png, txt, tail;
    assert_true(
        rill_rpak_entry_info_get(p, (uint32_t)rill_rpak_find(p, "textures/rock.png"), &png));
    assert_true(rill_rpak_entry_info_get(p, (uint32_t)rill_rpak_find(p, "docs/readme.txt"), &txt));
    assert_true(
        rill_rpak_entry_info_get(p, (uint32_t)rill_rpak_find(p, "textures/tail.rmip"), &tail));
    uint64_t png_off = png.offset, txt_off = txt.offset, tail_off = tail.offset;
    rill_rpak_close(p);

    char dir[512], path[1024];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_corrupt");
    rill_test_path(path, sizeof(path), dir, "bad.rpak");
    pack[png_off + 100] ^= 0x01;        /* raw entry */
    pack[txt_off + 5] ^= 0x80;          /* zstd entry */
    pack[tail_off + 4096 + 10] ^= 0x20; /* second 4 KiB chunk of a raw entry */
    write_bytes(path, pack, size);

    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_rpak *mounted = NULL;
    assert_int_equal(rill_rpak_mount_file(vfs, path, &mounted, &err), RILL_OK);
    uint8_t *data = NULL;
    assert_int_equal(rill_vfs_read_all(vfs, "textures/rock.png", &data, NULL, &err),
                     RILL_ERR_CHECKSUM);
    assert_null(data);
    assert_non_null(strstr(err.msg, "textures/rock.png"));
    assert_non_null(strstr(err.msg, "bad.rpak"));
    assert_int_equal(rill_vfs_read_all(vfs, "docs/readme.txt", &data, NULL, &err),
                     RILL_ERR_CHECKSUM);
    assert_non_null(strstr(err.msg, "docs/readme.txt"));
    /* Range reads: the damaged chunk fails, the intact first chunk still reads. */
    uint8_t buf[32];
    assert_int_equal(rill_vfs_read_range(vfs, "textures/tail.rmip", 4096 + 5, 16, buf, &err),
                     RILL_ERR_CHECKSUM);
    assert_non_null(strstr(err.msg, "textures/tail.rmip"));
    assert_int_equal(rill_vfs_read_range(vfs, "textures/tail.rmip", 100, 32, buf, &err), RILL_OK);
    assert_memory_equal(buf, s[5].data + 100, 32);
    /* Untouched entries still read. */
    assert_int_equal(rill_vfs_read_all(vfs, "data/table.bin", &data, NULL, &err), RILL_OK);
    rill_free(data);
    uint32_t bad = 0;
    assert_int_equal(rill_rpak_verify(mounted, &bad, &err), RILL_ERR_CHECKSUM);
    assert_int_equal(bad, 3);
    /* Per entry: a damaged raw chunk is reported with the chunk's offset in the pack. */
    int32_t ti = rill_rpak_find(mounted, "textures/tail.rmip");
    assert_int_equal(rill_rpak_verify_entry(mounted, (uint32_t)ti, &err), RILL_ERR_CHECKSUM);
    char where[64];
    snprintf(where, sizeof(where), "offset %llu: chunk", (unsigned long long)(tail_off + 4096));
    assert_non_null(strstr(err.msg, where));
    assert_int_equal(
        rill_rpak_verify_entry(mounted, (uint32_t)rill_rpak_find(mounted, "empty.bin"), &err),
        RILL_OK);
    rill_rpak_stats st;
    rill_rpak_get_stats(mounted, &st);
    assert_true(st.checksum_failures >= 3);
    rill_vfs_destroy(vfs);
    rill_free(pack);
    free_samples(s);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

/* >>range reads touch only their chunks */

static uint64_t bytes_read(const rill_rpak *p) {
    rill_rpak_stats st;
    rill_rpak_get_stats(p, &st);
    return st.bytes_read;
}

static void test_range_reads_read_only_touched_chunks(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    const size_t big = 16u * 65536u + 1000u; /* 16 full 64 KiB chunks and a 1000-byte tail */
    uint8_t *mips = random_bytes(big, 3);
    uint8_t *text = rill_malloc(200000);
    /* Letters from a small generator: zstd keeps them (about 1.7x smaller), and the ratio stays
     * far below compression_ratio, which a periodic text would pass (the writer then stores it
     * raw, see test_writer_stores_bomb_like_content_raw). */
    uint32_t seed = 12345u;
    for (size_t i = 0; i < 200000; ++i) {
        seed = seed * 1664525u + 1013904223u;
        text[i] = (uint8_t)('a' + (seed >> 24) % 26u);
    }
    rill_rpak_writer *w =
        rill_rpak_writer_create(&(rill_rpak_writer_desc){.chunk_size = 65536}, NULL);
    rill_error err = {0};
    assert_int_equal(
        rill_rpak_writer_add(w, "tex/big.rmip", mips, big, RILL_RPAK_COMPRESSION_AUTO, &err),
        RILL_OK);
    assert_int_equal(
        rill_rpak_writer_add(w, "text/long.txt", text, 200000, RILL_RPAK_COMPRESSION_AUTO, &err),
        RILL_OK);
    char dir[512], path[1024];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_range");
    rill_test_path(path, sizeof(path), dir, "range.rpak");
    assert_int_equal(rill_rpak_writer_finish_file(w, path, &err), RILL_OK);
    rill_rpak_writer_destroy(w);

    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_rpak *p = NULL;
    assert_int_equal(rill_rpak_mount_file(vfs, path, &p, &err), RILL_OK);
    uint8_t *buf = rill_malloc(200000);
    struct {
        uint64_t offset;
        size_t size;
        uint64_t expect_read;
    } cases[] = {
        {200000, 1000, 65536},                 /* inside chunk 3 */
        {3 * 65536 - 10, 20, 2 * 65536},       /* straddles chunks 2 and 3 */
        {0, 1, 65536},                         /* first byte */
        {big - 100, 100, 1000},                /* inside the short last chunk */
        {big - 1000 - 5, 10, 65536 + 1000},    /* last full chunk and the tail */
        {65536, 65536, 65536},                 /* exactly one chunk */
        {5 * 65536 + 1, 3 * 65536, 4 * 65536}, /* a long range: 4 chunks */
    };
    for (size_t i = 0; i < RILL_COUNTOF(cases); ++i) {
        uint64_t before = bytes_read(p);
        rill_result r =
            rill_vfs_read_range(vfs, "tex/big.rmip", cases[i].offset, cases[i].size, buf, &err);
        if (r != RILL_OK) {
            fail_msg("case %zu: %s", i, err.msg);
        }
        assert_memory_equal(buf, mips + cases[i].offset, cases[i].size);
        uint64_t delta = bytes_read(p) - before;
        if (delta != cases[i].expect_read) {
            fail_msg("case %zu: read %llu bytes, expected %llu", i, (unsigned long long)delta,
                     (unsigned long long)cases[i].expect_read);
        }
        /* The same through the pack API directly. */
        before = bytes_read(p);
        int32_t e = rill_rpak_find(p, "tex/big.rmip");
        assert_int_equal(
            rill_rpak_read_range(p, (uint32_t)e, cases[i].offset, cases[i].size, buf, &err),
            RILL_OK);
        assert_int_equal(bytes_read(p) - before, cases[i].expect_read);
    }
    /* Past the end is an error and reads nothing. */
    uint64_t before = bytes_read(p);
    assert_int_equal(rill_vfs_read_range(vfs, "tex/big.rmip", big - 10, 11, buf, &err),
                     RILL_ERR_TRUNCATED);
    assert_int_equal(bytes_read(p), before);
    /* A zstd entry cannot be read in place: a range read fetches its stored bytes once. */
    int32_t ti = rill_rpak_find(p, "text/long.txt");
    rill_rpak_entry_info info;
    assert_true(rill_rpak_entry_info_get(p, (uint32_t)ti, &info));
    assert_int_equal(info.compression, RILL_RPAK_COMPRESSION_ZSTD);
    before = bytes_read(p);
    assert_int_equal(rill_vfs_read_range(vfs, "text/long.txt", 150000, 50, buf, &err), RILL_OK);
    assert_memory_equal(buf, text + 150000, 50);
    assert_int_equal(bytes_read(p) - before, info.stored_size);
    /* A whole read fetches the stored bytes exactly once. */
    before = bytes_read(p);
    uint8_t *all = NULL;
    size_t all_size = 0;
    assert_int_equal(rill_vfs_read_all(vfs, "tex/big.rmip", &all, &all_size, &err), RILL_OK);
    assert_int_equal(all_size, big);
    assert_memory_equal(all, mips, big);
    assert_int_equal(bytes_read(p) - before, big);
    rill_free(all);
    rill_free(buf);
    rill_vfs_destroy(vfs);
    rill_free(mips);
    rill_free(text);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

/* >>mount order and packs appended to an executable */

static void write_pack(const char *path, const char *const *names, const char *const *texts,
                       int n) {
    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    for (int i = 0; i < n; ++i) {
        assert_int_equal(rill_rpak_writer_add(w, names[i], texts[i], strlen(texts[i]),
                                              RILL_RPAK_COMPRESSION_AUTO, NULL),
                         RILL_OK);
    }
    rill_error err = {0};
    assert_int_equal(rill_rpak_writer_finish_file(w, path, &err), RILL_OK);
    rill_rpak_writer_destroy(w);
}

static void expect_vfs_text(rill_vfs *vfs, const char *path, const char *want) {
    uint8_t *data = NULL;
    rill_error err = {0};
    if (rill_vfs_read_all(vfs, path, &data, NULL, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    assert_string_equal((char *)data, want);
    rill_free(data);
}

static void test_mount_default_order(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char dir[512], exe[1024], side[1024], cmd[1024], appended[1024], loose[1024];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_exe");
    rill_test_path(exe, sizeof(exe), dir, "game");
    rill_test_path(side, sizeof(side), dir, "game.rpak");
    rill_test_path(cmd, sizeof(cmd), dir, "cmd.rpak");
    rill_test_path(appended, sizeof(appended), dir, "appended.rpak");
    rill_test_path(loose, sizeof(loose), dir, "loose");
    /* A fake executable whose size is not a multiple of 16. */
    uint8_t *fake = random_bytes(1001, 5);
    write_bytes(exe, fake, 1001);
    rill_free(fake);
    const char *n_app[] = {"x.txt", "app_only.txt", "tex/a.png"};
    const char *t_app[] = {"appended", "app", "pngdata-pngdata-pngdata"};
    write_pack(appended, n_app, t_app, 3);
    const char *n_side[] = {"x.txt", "side_only.txt", "app_only.txt"};
    const char *t_side[] = {"side", "side", "side"};
    write_pack(side, n_side, t_side, 3);
    const char *n_cmd[] = {"x.txt"};
    const char *t_cmd[] = {"cmdline"};
    write_pack(cmd, n_cmd, t_cmd, 1);
    rill_error err = {0};

    /* Before appending, the executable holds no pack: only the side pack mounts. */
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    uint32_t mounted = 99;
    assert_int_equal(rill_rpak_mount_default_exe(vfs, NULL, exe, &mounted, &err), RILL_OK);
    assert_int_equal(mounted, 1);
    expect_vfs_text(vfs, "x.txt", "side");
    rill_vfs_destroy(vfs);

    assert_int_equal(rill_rpak_append_to_file(exe, appended, &err), RILL_OK);
    assert_int_equal(rill_file_size(exe), 1008 + rill_file_size(appended));
    rill_rpak *p = NULL;
    assert_int_equal(rill_rpak_open_file(exe, &p, &err), RILL_OK);
    assert_int_equal(rill_rpak_entry_count(p), 3);
    rill_rpak_close(p);

    /* All three: command line, then appended, then side; loose files last. */
    rill_dir_create_all(loose, NULL);
    char loose_x[1100];
    rill_test_path(loose_x, sizeof(loose_x), loose, "x.txt");
    write_bytes(loose_x, "loose", 5);
    rill_test_path(loose_x, sizeof(loose_x), loose, "loose_only.txt");
    write_bytes(loose_x, "loose", 5);
    vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, loose, &err), RILL_OK);
    assert_int_equal(rill_rpak_mount_default_exe(vfs, cmd, exe, &mounted, &err), RILL_OK);
    assert_int_equal(mounted, 3);
    expect_vfs_text(vfs, "x.txt", "cmdline");
    expect_vfs_text(vfs, "app_only.txt", "app");
    expect_vfs_text(vfs, "side_only.txt", "side");
    expect_vfs_text(vfs, "loose_only.txt", "loose");
    expect_vfs_text(vfs, "tex/a.png", "pngdata-pngdata-pngdata");
    assert_string_equal(rill_vfs_which(vfs, "x.txt"), cmd);
    assert_string_equal(rill_vfs_which(vfs, "app_only.txt"), exe);
    /* Range read inside the appended pack. */
    char buf[8];
    assert_int_equal(rill_vfs_read_range(vfs, "tex/a.png", 8, 7, buf, &err), RILL_OK);
    assert_memory_equal(buf, "pngdata", 7);
    rill_vfs_destroy(vfs);

    vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount_default_exe(vfs, NULL, exe, &mounted, &err), RILL_OK);
    assert_int_equal(mounted, 2);
    expect_vfs_text(vfs, "x.txt", "appended");
    rill_vfs_destroy(vfs);

    /* A command-line pack that is missing is an error naming it. */
    vfs = rill_vfs_create(NULL, NULL);
    char missing[1100];
    rill_test_path(missing, sizeof(missing), dir, "missing.rpak");
    assert_int_equal(rill_rpak_mount_default_exe(vfs, missing, exe, &mounted, &err),
                     RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "missing.rpak"));
    rill_vfs_destroy(vfs);

    /* A damaged side pack is an error, not silently skipped. */
    write_bytes(side,
                "RPAK but not really a pack at all, just text that is long enough to "
                "pass the size check of a pack reader for sure......",
                120);
    vfs = rill_vfs_create(NULL, NULL);
    assert_int_not_equal(rill_rpak_mount_default_exe(vfs, NULL, exe, &mounted, &err), RILL_OK);
    assert_non_null(strstr(err.msg, "game.rpak"));
    assert_int_equal(mounted, 1); /* the appended pack was mounted before the side pack failed */
    rill_vfs_destroy(vfs);

    /* The running test program has no pack: nothing mounts, no error. */
    vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount_default(vfs, NULL, &mounted, &err), RILL_OK);
    assert_int_equal(mounted, 0);
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

/* >>concurrent reads */

typedef struct pack_reader {
    rill_vfs *vfs;
    const sample *s;
    _Atomic int *failures;
    int seed;
} pack_reader;

static void pack_reader_job(void *p) {
    pack_reader *r = p;
    uint32_t seed = (uint32_t)r->seed;
    for (int k = 0; k < 200; ++k) {
        const sample *sm = &r->s[lcg_next(&seed) % SAMPLE_COUNT];
        uint8_t *data = NULL;
        size_t size = 0;
        if (rill_vfs_read_all(r->vfs, sm->path, &data, &size, NULL) != RILL_OK ||
            size != sm->size || (size && memcmp(data, sm->data, size) != 0)) {
            atomic_fetch_add(r->failures, 1);
        }
        rill_free(data);
        if (sm->size > 16) {
            uint8_t buf[16];
            uint64_t off = lcg_next(&seed) % (sm->size - 16);
            if (rill_vfs_read_range(r->vfs, sm->path, off, 16, buf, NULL) != RILL_OK ||
                memcmp(buf, sm->data + off, 16) != 0) {
                atomic_fetch_add(r->failures, 1);
            }
        }
    }
}

static void test_concurrent_pack_reads(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    sample s[SAMPLE_COUNT];
    make_samples(s);
    uint8_t *pack = NULL;
    size_t size = 0;
    build_pack(s, 4096, &pack, &size);
    char dir[512], path[1024];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_threads");
    rill_test_path(path, sizeof(path), dir, "t.rpak");
    write_bytes(path, pack, size);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount_file(vfs, path, NULL, NULL), RILL_OK);
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 4}, NULL);
    _Atomic int failures = 0;
    pack_reader readers[8];
    rill_counter c = {0};
    for (int i = 0; i < 8; ++i) {
        readers[i] = (pack_reader){vfs, s, &failures, i + 1};
        rill_jobs_run(jobs, pack_reader_job, &readers[i], &c);
    }
    rill_jobs_wait(jobs, &c);
    assert_int_equal(atomic_load(&failures), 0);
    rill_jobs_destroy(jobs);
    rill_vfs_destroy(vfs);
    rill_free(pack);
    free_samples(s);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

typedef struct count_acc {
    int n;
} count_acc;

static bool count_cb(const char *path, uint64_t size, void *user) {
    (void)path;
    (void)size;
    ((count_acc *)user)->n++;
    return true;
}

static void test_add_dir_and_list(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char dir[512], src[1024], f[1100], out[1024];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_dir");
    rill_test_path(src, sizeof(src), dir, "src");
    rill_test_path(out, sizeof(out), dir, "out.rpak");
    const char *rels[] = {"a.txt", "sub/b.txt", "sub/deeper/c.png"};
    for (int i = 0; i < 3; ++i) {
        char folder[1100];
        rill_test_path(f, sizeof(f), src, rels[i]);
        rill_path_dirname(folder, sizeof(folder), f);
        rill_dir_create_all(folder, NULL);
        write_bytes(f, rels[i], strlen(rels[i]));
    }
    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_rpak_writer_add_dir(w, src, RILL_RPAK_COMPRESSION_AUTO, &err), RILL_OK);
    assert_int_equal(rill_rpak_writer_finish_file(w, out, &err), RILL_OK);
    rill_rpak_writer_destroy(w);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount_file(vfs, out, NULL, &err), RILL_OK);
    for (int i = 0; i < 3; ++i) {
        expect_vfs_text(vfs, rels[i], rels[i]);
    }
    count_acc acc = {0};
    assert_int_equal(rill_vfs_list(vfs, "sub", count_cb, &acc), 2);
    assert_int_equal(acc.n, 2);
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_validation),
        cmocka_unit_test(test_stored_entries_same_pack),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_random_flips),
        cmocka_unit_test(test_hostile_index),
        cmocka_unit_test(test_zstd_declared_size_bounded),
        cmocka_unit_test(test_writer_stores_bomb_like_content_raw),
        cmocka_unit_test(test_zstd_total_limit),
        cmocka_unit_test(test_corrupt_entry_detected),
        cmocka_unit_test(test_range_reads_read_only_touched_chunks),
        cmocka_unit_test(test_mount_default_order),
        cmocka_unit_test(test_add_dir_and_list),
        cmocka_unit_test(test_concurrent_pack_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
