/* rpak_test_util.h: helpers shared by the .rpak tests and the fuzz target.
 *
 * rpak_test_reseal recomputes the index and trailer checksums of a pack image after a test (or
 * the fuzzer) has edited its index, so the reader's structural checks are exercised directly
 * instead of stopping at the checksum. It follows docs/formats/rpak.md and trusts nothing: it
 * reports false (after refreshing the trailer checksum) when the trailer does not locate an index
 * inside the buffer. */
#ifndef RILL_RPAK_TEST_UTIL_H
#define RILL_RPAK_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rill/base.h"

static inline uint64_t rpak_test_rd64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) {
        v = (v << 8) | p[i];
    }
    return v;
}

static inline void rpak_test_wr64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline bool rpak_test_reseal(uint8_t *data, size_t size) {
    if (size < 96) {
        return false;
    }
    uint8_t *tr = data + size - 64;
    uint64_t index_offset = rpak_test_rd64(tr + 0);
    uint64_t index_size = rpak_test_rd64(tr + 8);
    uint64_t pack_size = rpak_test_rd64(tr + 16);
    bool index_ok = pack_size >= 96 && pack_size <= size && index_offset <= pack_size - 64 &&
                    index_size <= pack_size - 64 - index_offset;
    if (index_ok) {
        uint64_t base = size - pack_size;
        rpak_test_wr64(tr + 24, rill_hash64(data + base + index_offset, (size_t)index_size));
    }
    /* The trailer checksum is always refreshed, so trailer edits reach the reader's checks. */
    rpak_test_wr64(tr + 48, rill_hash64(tr, 48));
    return index_ok;
}

/* Like rpak_test_reseal, but first recomputes every entry checksum and chunk checksum that lies
 * inside the buffer, as a forger would. Used only by the fuzz target, to push arbitrary entry
 * bytes past the checksums into the zstd decoder and the chunked range reads. Bounds-checked:
 * the input is untrusted. */
static inline bool rpak_test_reseal_all(uint8_t *data, size_t size) {
    if (size < 96) {
        return false;
    }
    const uint8_t *tr = data + size - 64;
    uint64_t index_offset = rpak_test_rd64(tr + 0);
    uint64_t index_size = rpak_test_rd64(tr + 8);
    uint64_t pack_size = rpak_test_rd64(tr + 16);
    uint64_t entry_count = tr[32] | (tr[33] << 8) | (tr[34] << 16) | ((uint64_t)tr[35] << 24);
    uint64_t chunk_count = tr[36] | (tr[37] << 8) | (tr[38] << 16) | ((uint64_t)tr[39] << 24);
    if (pack_size < 96 || pack_size > size || index_offset > pack_size - 64 ||
        index_size > pack_size - 64 - index_offset || entry_count > index_size / 48 ||
        chunk_count > (index_size - entry_count * 48) / 8) {
        return rpak_test_reseal(data, size);
    }
    uint8_t *base = data + (size - pack_size);
    uint64_t chunk = base[16] | (base[17] << 8) | (base[18] << 16) | ((uint64_t)base[19] << 24);
    bool chunk_ok = chunk >= 4096 && chunk <= (16u << 20) && (chunk & (chunk - 1)) == 0;
    uint8_t *records = base + index_offset;
    uint8_t *chunks = records + entry_count * 48;
    for (uint64_t i = 0; i < entry_count; ++i) {
        uint8_t *rec = records + i * 48;
        uint64_t off = rpak_test_rd64(rec + 0);
        uint64_t stored = rpak_test_rd64(rec + 8);
        if (off > pack_size || stored > pack_size - off) {
            continue;
        }
        rpak_test_wr64(rec + 24, rill_hash64(base + off, (size_t)stored));
        uint64_t first = rec[40] | (rec[41] << 8) | (rec[42] << 16) | ((uint64_t)rec[43] << 24);
        if (rec[38] != 1 || !chunk_ok) {
            continue;
        }
        for (uint64_t c = 0; c * chunk < stored && first + c < chunk_count; ++c) {
            uint64_t len = stored - c * chunk < chunk ? stored - c * chunk : chunk;
            rpak_test_wr64(chunks + (first + c) * 8, rill_hash64(base + off + c * chunk, len));
        }
    }
    return rpak_test_reseal(data, size);
}

/* Offset of the first index record of a well-formed pack image (pack at the start). */
static inline size_t rpak_test_index_offset(const uint8_t *data, size_t size) {
    return (size_t)rpak_test_rd64(data + size - 64);
}

#endif /* RILL_RPAK_TEST_UTIL_H */
