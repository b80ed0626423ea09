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

/* Offset of the first index record of a well-formed pack image (pack at the start). */
static inline size_t rpak_test_index_offset(const uint8_t *data, size_t size) {
    return (size_t)rpak_test_rd64(data + size - 64);
}

#endif /* RILL_RPAK_TEST_UTIL_H */
