/* test_rmip.c: the .rmip container: round trips in every format, the reference engine's v1/v2
 * files (built here), exact sizes of a 2048^2 BC7 chain and its #low tail, the #low range holding
 * exactly the tail's bytes, every truncation length and random byte flips (errors, never
 * crashes), hostile headers, the asset loader reading #low as one range, and the converter. */
#include "rill_test.h"

#include <math.h>

#include "rill/asset.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip.h"
#include "rill/formats/rpak.h"

/* >>helpers */

static uint32_t lcg(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Level payloads filled with a pattern unique to (level, byte), so misplaced data shows. */
typedef struct chain {
    rill_rmip_write_desc desc;
    uint8_t *data[RILL_RMIP_MAX_LEVELS];
} chain;

static void chain_make(chain *c, rill_tex_format format, bool srgb, uint32_t w, uint32_t h,
                       uint32_t levels) {
    memset(c, 0, sizeof(*c));
    c->desc.format = format;
    c->desc.srgb = srgb;
    c->desc.width = w;
    c->desc.height = h;
    c->desc.level_count = levels;
    c->desc.flags = RILL_RMIP_FLAG_HAS_ALPHA;
    for (uint32_t i = 0; i < levels; i++) {
        uint64_t size = 0;
        assert_true(rill_tex_level_size(format, RILL_MAX(1u, w >> i), RILL_MAX(1u, h >> i), &size));
        c->data[i] = rill_malloc((size_t)size);
        for (uint64_t b = 0; b < size; b++) {
            c->data[i][b] = (uint8_t)(b * 7 + i * 31 + 1);
        }
        c->desc.level_data[i] = c->data[i];
        c->desc.level_size[i] = (size_t)size;
    }
}

static void chain_free(chain *c) {
    for (uint32_t i = 0; i < RILL_RMIP_MAX_LEVELS; i++) {
        rill_free(c->data[i]);
    }
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* A legacy (v1/v2) file: 24-byte header, levels largest first. */
static uint8_t *legacy_make(uint32_t version, uint32_t code, rill_tex_format format, uint32_t w,
                            uint32_t h, uint32_t levels, size_t *out_size) {
    size_t total = 24;
    for (uint32_t i = 0; i < levels; i++) {
        uint64_t s = 0;
        rill_tex_level_size(format, RILL_MAX(1u, w >> i), RILL_MAX(1u, h >> i), &s);
        total += (size_t)s;
    }
    uint8_t *f = rill_malloc(total);
    memcpy(f, "RMIP", 4);
    put32(f + 4, version);
    put32(f + 8, w);
    put32(f + 12, h);
    put32(f + 16, levels);
    put32(f + 20, code);
    for (size_t i = 24; i < total; i++) {
        f[i] = (uint8_t)(i * 13);
    }
    *out_size = total;
    return f;
}

/* >>round trips */

static void test_round_trip_every_format(void **state) {
    (void)state;
    const struct {
        rill_tex_format f;
        bool srgb;
    } fmts[] = {
        {RILL_TEX_FORMAT_RGBA8, true},    {RILL_TEX_FORMAT_RGBA8, false},
        {RILL_TEX_FORMAT_RGBA16F, false}, {RILL_TEX_FORMAT_BC1, true},
        {RILL_TEX_FORMAT_BC1, false},     {RILL_TEX_FORMAT_BC3, true},
        {RILL_TEX_FORMAT_BC4, false},     {RILL_TEX_FORMAT_BC5, false},
        {RILL_TEX_FORMAT_BC7, true},      {RILL_TEX_FORMAT_BC7, false},
    };
    const uint32_t dims[][3] = {{37, 20, 6}, {1, 1, 1}, {300, 7, 9}, {512, 512, 3}};
    for (size_t k = 0; k < RILL_COUNTOF(fmts); k++) {
        for (size_t d = 0; d < RILL_COUNTOF(dims); d++) {
            chain c;
            chain_make(&c, fmts[k].f, fmts[k].srgb, dims[d][0], dims[d][1], dims[d][2]);
            uint8_t *file = NULL;
            size_t size = 0;
            rill_error err = {0};
            assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);
            rill_tex_data tex;
            assert_int_equal(rill_rmip_read(file, size, "t.rmip", &tex, &err), RILL_OK);
            assert_int_equal(tex.format, fmts[k].f);
            assert_int_equal(tex.srgb, fmts[k].srgb);
            assert_int_equal(tex.flags, RILL_RMIP_FLAG_HAS_ALPHA);
            assert_int_equal(tex.width, dims[d][0]);
            assert_int_equal(tex.height, dims[d][1]);
            assert_int_equal(tex.level_count, dims[d][2]);
            for (uint32_t i = 0; i < tex.level_count; i++) {
                assert_int_equal(tex.levels[i].width, RILL_MAX(1u, dims[d][0] >> i));
                assert_int_equal(tex.levels[i].height, RILL_MAX(1u, dims[d][1] >> i));
                assert_int_equal(tex.levels[i].size, c.desc.level_size[i]);
                assert_memory_equal(tex.levels[i].data, c.data[i], c.desc.level_size[i]);
            }
            rill_tex_data_free(&tex);
            rill_free(file);
            chain_free(&c);
        }
    }
}

/* The figures the streaming page quotes: a 2048^2 BC7 full chain is ~5.6 MB, its #low ~87 KB. */
static void test_sizes_2048_bc7(void **state) {
    (void)state;
    chain c;
    chain_make(&c, RILL_TEX_FORMAT_BC7, true, 2048, 2048, 12);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);
    rill_rmip_info info;
    assert_int_equal(rill_rmip_parse(file, RILL_RMIP_PREFIX_MAX, size, "big.rmip", &info, &err),
                     RILL_OK);
    uint64_t levels_total = 0;
    for (uint32_t i = 0; i < info.level_count; i++) {
        levels_total += info.levels[i].size;
    }
    /* 4194304 + 1048576 + 262144 + 65536 + 16384 + 4096 + 1024 + 256 + 64 + 3 * 16 */
    assert_int_equal(levels_total, 5592432u);
    /* Header 32 + index 12 * 16 = 224 (already 16-aligned); BC7 levels need no padding. */
    assert_int_equal(info.header_bytes, 224u);
    assert_int_equal(size, 224u + 5592432u);
    rill_rmip_range low, full;
    rill_rmip_low_range(&info, &low);
    rill_rmip_full_range(&info, &full);
    assert_int_equal(low.first_level, 3); /* 256 x 256 */
    assert_int_equal(low.level_count, 9);
    /* 65536 + 16384 + 4096 + 1024 + 256 + 64 + 3 * 16 */
    assert_int_equal(low.size, 87408u);
    assert_int_equal(low.offset, 224u);
    assert_int_equal(full.offset, 224u);
    assert_int_equal(full.size, 5592432u);
    /* The range holds exactly the tail levels, smallest first, and nothing else. */
    size_t at = 0;
    for (uint32_t i = info.level_count; i-- > low.first_level;) {
        assert_int_equal(info.levels[i].offset, low.offset + at);
        assert_memory_equal(file + low.offset + at, c.data[i], c.desc.level_size[i]);
        at += c.desc.level_size[i];
    }
    assert_int_equal(at, low.size);
    rill_tex_data tex;
    assert_int_equal(rill_rmip_texture_from_range(&info, &low, file + low.offset, (size_t)low.size,
                                                  "big.rmip#low", &tex, &err),
                     RILL_OK);
    assert_int_equal(tex.width, 256);
    assert_int_equal(tex.first_level, 3);
    assert_int_equal(tex.full_width, 2048);
    assert_int_equal(tex.storage_size, 87408u);
    rill_tex_data_free(&tex);
    rill_free(file);
    chain_free(&c);
}

static void test_low_range_edge_cases(void **state) {
    (void)state;
    rill_error err = {0};
    /* A base already <= 256: the tail is the whole chain. A single 1024 level: the tail is that
     * level (nothing smaller exists). A 4096 x 16 strip: the first level whose longer side is
     * <= 256 is 256 x 1. RGBA8 levels of odd size get padding; the range still covers them. */
    const struct {
        rill_tex_format f;
        uint32_t w, h, n, first;
    } cases[] = {
        {RILL_TEX_FORMAT_BC7, 200, 100, 8, 0},
        {RILL_TEX_FORMAT_BC1, 1024, 1024, 1, 0},
        {RILL_TEX_FORMAT_BC4, 4096, 16, 13, 4},
        {RILL_TEX_FORMAT_RGBA8, 513, 3, 10, 1},
    };
    for (size_t k = 0; k < RILL_COUNTOF(cases); k++) {
        chain c;
        chain_make(&c, cases[k].f, false, cases[k].w, cases[k].h, cases[k].n);
        uint8_t *file = NULL;
        size_t size = 0;
        assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);
        rill_rmip_info info;
        assert_int_equal(rill_rmip_parse(file, size, size, "e.rmip", &info, &err), RILL_OK);
        rill_rmip_range low;
        rill_rmip_low_range(&info, &low);
        assert_int_equal(low.first_level, cases[k].first);
        assert_int_equal(low.first_level + low.level_count, cases[k].n);
        uint64_t sum = 0;
        for (uint32_t i = low.first_level; i < info.level_count; i++) {
            sum += info.levels[i].size;
            assert_true(info.levels[i].offset >= low.offset);
            assert_true(info.levels[i].offset + info.levels[i].size <= low.offset + low.size);
        }
        /* Only alignment padding (< 16 bytes per level) between tail levels. */
        assert_true(low.size >= sum && low.size < sum + 16u * low.level_count);
        rill_free(file);
        chain_free(&c);
    }
}

/* >>legacy */

static void test_legacy_v1_v2(void **state) {
    (void)state;
    const struct {
        uint32_t code;
        rill_tex_format f;
        bool srgb;
    } codes[] = {
        {0, RILL_TEX_FORMAT_RGBA8, true}, {1, RILL_TEX_FORMAT_RGBA8, false},
        {2, RILL_TEX_FORMAT_BC7, true},   {3, RILL_TEX_FORMAT_BC7, false},
        {4, RILL_TEX_FORMAT_BC5, false},  {5, RILL_TEX_FORMAT_BC1, true},
        {6, RILL_TEX_FORMAT_BC1, false},  {7, RILL_TEX_FORMAT_BC3, true},
        {8, RILL_TEX_FORMAT_BC3, false},  {9, RILL_TEX_FORMAT_BC4, false},
    };
    for (uint32_t version = 1; version <= 2; version++) {
        for (size_t k = 0; k < RILL_COUNTOF(codes); k++) {
            size_t size = 0;
            uint8_t *f = legacy_make(version, codes[k].code, codes[k].f, 300, 40, 9, &size);
            rill_tex_data tex;
            rill_error err = {0};
            assert_int_equal(rill_rmip_read(f, size, "old.rmip", &tex, &err), RILL_OK);
            assert_int_equal(tex.format, codes[k].f);
            assert_int_equal(tex.srgb, codes[k].srgb);
            assert_int_equal(tex.level_count, 9);
            size_t off = 24;
            for (uint32_t i = 0; i < 9; i++) {
                assert_int_equal(tex.levels[i].width, RILL_MAX(1u, 300u >> i));
                assert_memory_equal(tex.levels[i].data, f + off, tex.levels[i].size);
                off += tex.levels[i].size;
            }
            assert_int_equal(off, size);
            /* The legacy tail is the end of the file: levels 1.. (150 x 20 is <= 256). */
            rill_rmip_info info;
            assert_int_equal(rill_rmip_parse(f, 24, size, "old.rmip", &info, &err), RILL_OK);
            rill_rmip_range low;
            rill_rmip_low_range(&info, &low);
            assert_int_equal(low.first_level, 1);
            assert_int_equal(low.offset + low.size, size);
            rill_tex_data_free(&tex);
            rill_free(f);
        }
    }
    /* An unknown legacy format code names the offset. */
    size_t size = 0;
    uint8_t *f = legacy_make(2, 10, RILL_TEX_FORMAT_BC7, 4, 4, 1, &size);
    rill_tex_data tex;
    rill_error err = {0};
    assert_int_equal(rill_rmip_read(f, size, "old.rmip", &tex, &err), RILL_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "old.rmip: offset 20"));
    rill_free(f);
}

/* >>hostile input */

static void expect_fail(const uint8_t *data, size_t size) {
    rill_tex_data tex;
    rill_error err = {0};
    rill_result r = rill_rmip_read(data, size, "bad.rmip", &tex, &err);
    assert_int_not_equal(r, RILL_OK);
    assert_non_null(strstr(err.msg, "bad.rmip"));
    assert_null(tex.storage);
}

static void test_every_truncation(void **state) {
    (void)state;
    chain c;
    chain_make(&c, RILL_TEX_FORMAT_BC7, true, 40, 24, 6);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);
    for (size_t n = 0; n < size; n++) {
        uint8_t *copy = rill_malloc(n ? n : 1);
        memcpy(copy, file, n);
        expect_fail(copy, n);
        rill_free(copy);
    }
    size_t lsize = 0;
    uint8_t *legacy = legacy_make(1, 4, RILL_TEX_FORMAT_BC5, 24, 12, 5, &lsize);
    for (size_t n = 0; n < lsize; n++) {
        uint8_t *copy = rill_malloc(n ? n : 1);
        memcpy(copy, legacy, n);
        expect_fail(copy, n);
        rill_free(copy);
    }
    rill_free(legacy);
    rill_free(file);
    chain_free(&c);
}

static void test_random_flips(void **state) {
    (void)state;
    chain c;
    chain_make(&c, RILL_TEX_FORMAT_RGBA8, false, 13, 9, 4);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);
    uint8_t *copy = rill_malloc(size);
    uint32_t seed = 1234;
    int ok = 0, failed = 0;
    for (int it = 0; it < 4000; it++) {
        memcpy(copy, file, size);
        int flips = 1 + (int)(lcg(&seed) % 3);
        for (int k = 0; k < flips; k++) {
            /* Most flips land in the header and index, where the interesting checks live. */
            size_t at = (lcg(&seed) % 4) ? lcg(&seed) % 112 : lcg(&seed) % size;
            copy[at] ^= (uint8_t)(1u << (lcg(&seed) % 8));
        }
        rill_tex_data tex;
        if (rill_rmip_read(copy, size, "flip.rmip", &tex, &err) == RILL_OK) {
            /* Whatever was accepted is self-consistent. */
            for (uint32_t i = 0; i < tex.level_count; i++) {
                uint64_t s = 0;
                assert_true(
                    rill_tex_level_size(tex.format, tex.levels[i].width, tex.levels[i].height, &s));
                assert_int_equal(s, tex.levels[i].size);
            }
            rill_tex_data_free(&tex);
            ok++;
        } else {
            assert_true(err.msg[0] != 0);
            failed++;
        }
    }
    assert_true(failed > 0);
    assert_true(ok > 0); /* flips in level data alone are valid files */
    rill_free(copy);
    rill_free(file);
    chain_free(&c);
}

static void test_hostile_headers(void **state) {
    (void)state;
    chain c;
    chain_make(&c, RILL_TEX_FORMAT_BC1, false, 8, 8, 4);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);
    uint8_t *b = rill_malloc(size);
    rill_tex_data tex;
#define EDIT(stmt, code)                                                                           \
    do {                                                                                           \
        memcpy(b, file, size);                                                                     \
        stmt;                                                                                      \
        assert_int_equal(rill_rmip_read(b, size, "h.rmip", &tex, &err), (code));                   \
    } while (0)
    EDIT(b[0] = 'X', RILL_ERR_CORRUPT);
    EDIT(put32(b + 4, 5), RILL_ERR_VERSION); /* 4 is a cube (or a texture without the flag) */
    EDIT(put32(b + 4, 0), RILL_ERR_VERSION);
    EDIT(put32(b + 8, 0), RILL_ERR_CORRUPT);
    EDIT(put32(b + 8, 100000), RILL_ERR_LIMIT);
    EDIT(put32(b + 12, 0xffffffffu), RILL_ERR_LIMIT);
    EDIT(put32(b + 16, 0), RILL_ERR_CORRUPT);
    EDIT(put32(b + 16, 5), RILL_ERR_CORRUPT); /* 8x8 has 4 levels */
    EDIT(put32(b + 16, 1000), RILL_ERR_CORRUPT);
    EDIT(put32(b + 20, 0), RILL_ERR_UNSUPPORTED);
    EDIT(put32(b + 20, 77), RILL_ERR_UNSUPPORTED);
    EDIT(put32(b + 24, 2), RILL_ERR_CORRUPT);
    EDIT(put64(b + 32 + 8, 9), RILL_ERR_CORRUPT);            /* level 0 size */
    EDIT(put64(b + 32, 8), RILL_ERR_CORRUPT);                /* inside the header */
    EDIT(put64(b + 32, size), RILL_ERR_TRUNCATED);           /* past the end */
    EDIT(put64(b + 32, UINT64_MAX - 4), RILL_ERR_TRUNCATED); /* offset + size wraps */
    EDIT(put64(b + 48 + 8, UINT64_MAX), RILL_ERR_CORRUPT);   /* level 1 size */
    /* Header claims the maximum size with a tiny file: rejected before any allocation. */
    EDIT((put32(b + 8, 16384), put32(b + 12, 16384), put32(b + 16, 4)), RILL_ERR_CORRUPT);
    /* Legacy: a huge chain in a tiny file. */
    size_t ls = 0;
    uint8_t *legacy = legacy_make(2, 2, RILL_TEX_FORMAT_BC7, 4, 4, 1, &ls);
    put32(legacy + 8, 16384);
    put32(legacy + 12, 16384);
    put32(legacy + 16, 15);
    assert_int_equal(rill_rmip_read(legacy, ls, "h.rmip", &tex, &err), RILL_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "h.rmip: offset 24"));
    rill_free(legacy);
#undef EDIT
    /* A prefix that stops inside the index asks for more. */
    rill_rmip_info info;
    assert_int_equal(rill_rmip_parse(file, 40, size, "p.rmip", &info, &err), RILL_ERR_TRUNCATED);
    assert_int_equal(rill_rmip_parse(file, size, size - 1, "p.rmip", &info, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    rill_free(b);
    rill_free(file);
    chain_free(&c);
}

/* >>loader */

/* "#low" from inside a pack: the loader's two range reads go through the pack mount, which reads
 * (and checksums) only the 16 KiB chunks they touch, never the whole entry. */
static void test_loader_low_from_pack(void **state) {
    (void)state;
    chain c;
    chain_make(&c, RILL_TEX_FORMAT_BC7, true, 2048, 1024, 12);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);

    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    assert_int_equal(
        rill_rpak_writer_add(w, "tex/big.rmip", file, size, RILL_RPAK_COMPRESSION_AUTO, &err),
        RILL_OK);
    uint8_t *pack_bytes = NULL;
    size_t pack_size = 0;
    assert_int_equal(rill_rpak_writer_finish_memory(w, &pack_bytes, &pack_size, &err), RILL_OK);
    rill_rpak_writer_destroy(w);
    rill_rpak *pak = NULL;
    assert_int_equal(rill_rpak_open_memory(pack_bytes, pack_size, "game.rpak", &pak, &err),
                     RILL_OK);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_rpak_mount(vfs, pak, &err), RILL_OK);

    rill_rmip_info info;
    assert_int_equal(rill_rmip_parse(file, size, size, "x", &info, &err), RILL_OK);
    rill_rmip_range low;
    rill_rmip_low_range(&info, &low);

    rill_rpak_stats before, after;
    rill_rpak_get_stats(pak, &before);
    rill_asset_load_ctx ctx = {vfs, "tex/big.rmip", "low", {1}, NULL};
    void *payload = NULL;
    size_t bytes = 0;
    assert_int_equal(rill_rmip_load(&ctx, &payload, &bytes, &err), RILL_OK);
    rill_rpak_get_stats(pak, &after);
    rill_tex_data *tex = payload;
    assert_int_equal(tex->width, 256);
    assert_int_equal(tex->height, 128);
    for (uint32_t i = 0; i < tex->level_count; i++) {
        assert_memory_equal(tex->levels[i].data, c.data[i + tex->first_level],
                            c.desc.level_size[i + tex->first_level]);
    }
    /* The chunks the header prefix and the tail touch, and nothing more. */
    const uint64_t chunk = RILL_RPAK_DEFAULT_CHUNK_SIZE;
    uint64_t prefix_span = RILL_ALIGN_UP((uint64_t)RILL_RMIP_PREFIX_MAX, chunk);
    uint64_t tail_span = RILL_ALIGN_UP(low.offset + low.size, chunk) - (low.offset / chunk) * chunk;
    uint64_t read = after.bytes_read - before.bytes_read;
    assert_true(read > 0);
    assert_true(read <= prefix_span + tail_span);
    assert_true(read * 20 < size); /* the full entry is ~2.8 MB; the tail ~44 KB */
    assert_int_equal(after.checksum_failures, 0);
    rill_rmip_loader().unload(payload, bytes, NULL);

    rill_vfs_destroy(vfs); /* closes the pack it owns */
    rill_free(pack_bytes);
    rill_free(file);
    chain_free(&c);
}

static void test_loader_full_and_low(void **state) {
    (void)state;
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "rmip_loader");
    chain c;
    chain_make(&c, RILL_TEX_FORMAT_BC7, true, 1024, 512, 11);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&c.desc, &file, &size, &err), RILL_OK);
    rill_test_write_file(dir, "tex/rock.rmip", file, size);
    rill_test_write_file(dir, "tex/bad.rmip", "RMIPxxxx", 8);

    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_loader loader = rill_rmip_loader();
    assert_string_equal(loader.name, "rmip");
    assert_string_equal(loader.extensions[0], "rmip");

    rill_asset_load_ctx ctx = {vfs, "tex/rock.rmip", "", {1}, NULL};
    void *payload = NULL;
    size_t bytes = 0;
    rill_vfs_stats before, after;
    rill_vfs_get_stats(vfs, &before);
    assert_int_equal(rill_rmip_load(&ctx, &payload, &bytes, &err), RILL_OK);
    rill_vfs_get_stats(vfs, &after);
    assert_int_equal(after.bytes_returned - before.bytes_returned, size);
    rill_tex_data *tex = payload;
    assert_int_equal(tex->level_count, 11);
    assert_int_equal(tex->width, 1024);
    assert_int_equal(bytes, tex->storage_size);
    assert_memory_equal(tex->levels[0].data, c.data[0], c.desc.level_size[0]);
    loader.unload(payload, bytes, NULL);

    ctx.label = "low";
    rill_vfs_get_stats(vfs, &before);
    assert_int_equal(rill_rmip_load(&ctx, &payload, &bytes, &err), RILL_OK);
    rill_vfs_get_stats(vfs, &after);
    tex = payload;
    assert_int_equal(tex->first_level, 2); /* 256 x 128 */
    assert_int_equal(tex->width, 256);
    assert_int_equal(tex->height, 128);
    assert_int_equal(tex->level_count, 9);
    for (uint32_t i = 0; i < tex->level_count; i++) {
        assert_memory_equal(tex->levels[i].data, c.data[i + 2], c.desc.level_size[i + 2]);
    }
    /* Two reads: the header + index prefix, then exactly the tail. */
    rill_rmip_info info;
    assert_int_equal(rill_rmip_parse(file, size, size, "x", &info, &err), RILL_OK);
    rill_rmip_range low;
    rill_rmip_low_range(&info, &low);
    assert_int_equal(after.read_calls - before.read_calls, 2);
    assert_int_equal(after.bytes_returned - before.bytes_returned, RILL_RMIP_PREFIX_MAX + low.size);
    assert_int_equal(low.size, 43728u); /* 32768 + 8192 + 2048 + 512 + 128 + 32 + 3 * 16 */
    loader.unload(payload, bytes, NULL);

    ctx.label = "high";
    assert_int_not_equal(rill_rmip_load(&ctx, &payload, &bytes, &err), RILL_OK);
    assert_non_null(strstr(err.msg, "tex/rock.rmip#high"));
    ctx.label = "low";
    ctx.path = "tex/bad.rmip";
    assert_int_not_equal(rill_rmip_load(&ctx, &payload, &bytes, &err), RILL_OK);
    assert_non_null(strstr(err.msg, "tex/bad.rmip#low"));
    ctx.path = "tex/missing.rmip";
    assert_int_not_equal(rill_rmip_load(&ctx, &payload, &bytes, &err), RILL_OK);
    assert_null(payload);

    /* Through a real asset server: "rock.rmip" and "rock.rmip#low" are two assets, each with its
     * own payload and accounted bytes. */
    rill_asset_server *server =
        rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    assert_non_null(server);
    assert_int_equal(rill_asset_server_register_loader(server, &loader, &err), RILL_OK);
    rill_asset full = rill_asset_load_sync(server, "tex/rock.rmip", &err);
    rill_asset tail = rill_asset_load_sync(server, "tex/rock.rmip#low", &err);
    assert_int_equal(rill_asset_get_state(server, full), RILL_ASSET_STATE_LOADED);
    assert_int_equal(rill_asset_get_state(server, tail), RILL_ASSET_STATE_LOADED);
    size_t full_bytes = 0, tail_bytes = 0;
    rill_tex_data *tf = rill_asset_get_payload(server, full, &full_bytes);
    rill_tex_data *tt = rill_asset_get_payload_as(server, tail, "rmip");
    assert_non_null(tf);
    assert_non_null(tt);
    rill_asset_get_payload(server, tail, &tail_bytes);
    assert_int_equal(tf->level_count, 11);
    assert_int_equal(tt->level_count, 9);
    assert_int_equal(tail_bytes, 43728u);
    assert_int_equal(full_bytes, 524288u + 131072u + 43728u);
    rill_asset bad = rill_asset_load_sync(server, "tex/bad.rmip", &err);
    assert_int_equal(rill_asset_get_state(server, bad), RILL_ASSET_STATE_FAILED);
    rill_asset_release(server, full);
    rill_asset_release(server, tail);
    rill_asset_release(server, bad);
    rill_asset_server_update(server);
    rill_asset_server_destroy(server);

    rill_vfs_destroy(vfs);
    rill_free(file);
    chain_free(&c);
    rill_test_tmpdir_remove(dir);
}

/* >>converter */

/* An encoded image file in memory (rill_image_encode_png/hdr; free data with rill_free). */
typedef struct membuf {
    uint8_t *data;
    size_t size;
} membuf;

static void test_convert(void **state) {
    (void)state;
    const int w = 96, h = 40;
    uint8_t *rgb = rill_malloc((size_t)w * h * 3);
    uint8_t *grey = rill_malloc((size_t)w * h);
    float *hdr = rill_malloc((size_t)w * h * 3 * sizeof(float));
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            rgb[i * 3] = (uint8_t)(x * 2);
            rgb[i * 3 + 1] = (uint8_t)(y * 5);
            rgb[i * 3 + 2] = (uint8_t)(128 + 100 * sinf((float)x * 0.1f));
            grey[i] = (uint8_t)((x + y) * 2);
            for (int c = 0; c < 3; c++) {
                hdr[i * 3 + c] = (float)(x + c) * 0.05f;
            }
        }
    }
    membuf png = {0}, gpng = {0}, hdrf = {0};
    assert_int_equal(rill_image_encode_png(rgb, w, h, 3, &png.data, &png.size, NULL), RILL_OK);
    assert_int_equal(rill_image_encode_png(grey, w, h, 1, &gpng.data, &gpng.size, NULL), RILL_OK);
    assert_int_equal(rill_image_encode_hdr(hdr, w, h, 3, &hdrf.data, &hdrf.size, NULL), RILL_OK);

    const struct {
        membuf *src;
        const char *name;
        rill_tex_usage usage;
        rill_tex_format format;
        bool srgb;
        uint32_t flags;
    } cases[] = {
        {&png, "albedo.png", RILL_TEX_USAGE_COLOR, RILL_TEX_FORMAT_BC7, true, 0},
        {&png, "rock_normal.png", RILL_TEX_USAGE_NORMAL, RILL_TEX_FORMAT_BC5, false,
         RILL_RMIP_FLAG_NORMAL_MAP},
        {&png, "rock_n.png", RILL_TEX_USAGE_NORMAL, RILL_TEX_FORMAT_BC5, false,
         RILL_RMIP_FLAG_NORMAL_MAP},
        {&gpng, "rough.png", RILL_TEX_USAGE_SINGLE, RILL_TEX_FORMAT_BC4, false, 0},
        {&hdrf, "sky.hdr", RILL_TEX_USAGE_HDR, RILL_TEX_FORMAT_RGBA16F, false, RILL_RMIP_FLAG_HDR},
    };
    for (size_t k = 0; k < RILL_COUNTOF(cases); k++) {
        uint8_t *out = NULL;
        size_t size = 0;
        rill_tex_usage used = RILL_TEX_USAGE_AUTO;
        rill_error err = {0};
        assert_int_equal(rill_rmip_convert(cases[k].src->data, cases[k].src->size, cases[k].name,
                                           NULL, &out, &size, &used, &err),
                         RILL_OK);
        assert_int_equal(used, cases[k].usage);
        rill_tex_data tex;
        assert_int_equal(rill_rmip_read(out, size, cases[k].name, &tex, &err), RILL_OK);
        assert_int_equal(tex.format, cases[k].format);
        assert_int_equal(tex.srgb, cases[k].srgb);
        assert_int_equal(tex.flags, cases[k].flags);
        assert_int_equal(tex.level_count, 7); /* 96 x 40 -> 1 x 1 */
        assert_int_equal(tex.levels[6].width, 1);
        if (cases[k].format == RILL_TEX_FORMAT_BC7) {
            uint8_t *dec = rill_malloc((size_t)w * h * 4);
            assert_int_equal(rill_bc_decode_image(RILL_TEX_FORMAT_BC7, tex.levels[0].data,
                                                  tex.levels[0].size, w, h, dec, (size_t)w * h * 4,
                                                  &err),
                             RILL_OK);
            double se = 0;
            for (size_t i = 0; i < (size_t)w * h; i++) {
                for (int c = 0; c < 3; c++) {
                    double d = (double)dec[i * 4 + c] - rgb[i * 3 + c];
                    se += d * d;
                }
            }
            double p = 10 * log10(255.0 * 255.0 / (se / ((double)w * h * 3) + 1e-9));
            assert_true(p > 38.0);
            rill_free(dec);
        }
        if (cases[k].format == RILL_TEX_FORMAT_RGBA16F) {
            const uint16_t *hp = (const uint16_t *)tex.levels[0].data;
            /* Pixel (50, 0), red: 50 * 0.05 = 2.5 (HDR's shared exponent keeps it within 1%). */
            assert_true(fabsf(rill_f16_to_f32(hp[50 * 4]) - 2.5f) < 0.03f);
        }
        rill_tex_data_free(&tex);
        rill_free(out);
    }
    /* Forced options: no mips, uncompressed; a format that does not fit the usage; garbage. */
    rill_rmip_convert_desc d = {0};
    d.no_mips = true;
    d.format = RILL_TEX_FORMAT_RGBA8;
    uint8_t *out = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_convert(png.data, png.size, "a.png", &d, &out, &size, NULL, &err),
                     RILL_OK);
    rill_tex_data tex;
    assert_int_equal(rill_rmip_read(out, size, "a.rmip", &tex, &err), RILL_OK);
    assert_int_equal(tex.level_count, 1);
    assert_int_equal(tex.format, RILL_TEX_FORMAT_RGBA8);
    assert_int_equal(tex.levels[0].data[4 * 5], rgb[3 * 5]);
    rill_tex_data_free(&tex);
    rill_free(out);
    d.format = RILL_TEX_FORMAT_RGBA16F;
    assert_int_equal(rill_rmip_convert(png.data, png.size, "a.png", &d, &out, &size, NULL, &err),
                     RILL_ERR_UNSUPPORTED);
    assert_int_equal(rill_rmip_convert("nope", 4, "junk.png", NULL, &out, &size, NULL, &err),
                     RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "junk.png"));
    assert_null(out);

    rill_free(png.data);
    rill_free(gpng.data);
    rill_free(hdrf.data);
    rill_free(rgb);
    rill_free(grey);
    rill_free(hdr);
}

/* Encoding on the job system (bands of block rows) gives the very same bytes as one thread. */
static void test_convert_with_jobs(void **state) {
    (void)state;
    const int w = 150, h = 300;
    uint8_t *rgba = rill_malloc((size_t)w * h * 4);
    uint32_t seed = 3;
    for (int i = 0; i < w * h; i++) {
        rgba[i * 4] = (uint8_t)(i % w + (lcg(&seed) & 7));
        rgba[i * 4 + 1] = (uint8_t)(i / w);
        rgba[i * 4 + 2] = (uint8_t)(lcg(&seed) & 63);
        rgba[i * 4 + 3] = (uint8_t)(i % 7 == 0 ? 128 : 255);
    }
    membuf png = {0};
    assert_int_equal(rill_image_encode_png(rgba, w, h, 4, &png.data, &png.size, NULL), RILL_OK);
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 2}, NULL);
    uint8_t *a = NULL, *b = NULL;
    size_t as = 0, bs = 0;
    rill_error err = {0};
    rill_rmip_convert_desc d = {0};
    d.bc7.quality = 1;
    assert_int_equal(rill_rmip_convert(png.data, png.size, "c.png", &d, &a, &as, NULL, &err),
                     RILL_OK);
    d.jobs = jobs;
    assert_int_equal(rill_rmip_convert(png.data, png.size, "c.png", &d, &b, &bs, NULL, &err),
                     RILL_OK);
    assert_int_equal(as, bs);
    assert_memory_equal(a, b, as);
    rill_jobs_destroy(jobs);
    rill_free(a);
    rill_free(b);
    rill_free(png.data);
    rill_free(rgba);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_format), cmocka_unit_test(test_sizes_2048_bc7),
        cmocka_unit_test(test_low_range_edge_cases),    cmocka_unit_test(test_legacy_v1_v2),
        cmocka_unit_test(test_every_truncation),        cmocka_unit_test(test_random_flips),
        cmocka_unit_test(test_hostile_headers),         cmocka_unit_test(test_loader_full_and_low),
        cmocka_unit_test(test_loader_low_from_pack),    cmocka_unit_test(test_convert),
        cmocka_unit_test(test_convert_with_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
