/* fuzz_rpak.c: libFuzzer target for the .rpak reader. Each input is tried three times: as it is
 * (the checksums reject almost everything, which is the point), with its index and trailer
 * checksums recomputed (rpak_test_reseal: reaches the structural checks of the index and entry
 * bounds), and with every entry and chunk checksum forged too (rpak_test_reseal_all: reaches the
 * zstd decoder and the chunked range reads with arbitrary bytes). Seed it with small packs made
 * by `rill pack create`. Every successful read must stay inside its entry; ASan reports anything
 * else. */
#include <stdint.h>
#include <string.h>

#include "rill/formats/rpak.h"

#include "rpak_test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(const uint8_t *data, size_t size) {
    rill_rpak *p = NULL;
    if (rill_rpak_open_memory(data, size, "fuzz.rpak", &p, NULL) != RILL_OK) {
        return;
    }
    uint32_t n = rill_rpak_entry_count(p);
    for (uint32_t i = 0; i < n && i < 64; ++i) {
        rill_rpak_entry_info info;
        if (!rill_rpak_entry_info_get(p, i, &info)) {
            __builtin_trap();
        }
        uint8_t *out = NULL;
        size_t out_size = 0;
        if (info.raw_size <= (1u << 24) &&
            rill_rpak_read_entry(p, i, &out, &out_size, NULL) == RILL_OK) {
            if (out_size != info.raw_size || out[out_size] != 0) {
                __builtin_trap();
            }
        }
        rill_free(out);
        uint8_t buf[256];
        if (info.raw_size > 0 && info.raw_size <= (1u << 24)) {
            uint64_t off = info.raw_size / 3;
            size_t len = (size_t)RILL_MIN((uint64_t)sizeof(buf), info.raw_size - off);
            rill_rpak_read_range(p, i, off, len, buf, NULL);
        }
        rill_rpak_find(p, info.path);
    }
    rill_rpak_verify(p, NULL, NULL);
    rill_rpak_close(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    exercise(data, size);
    if (size >= 96 && size <= (1u << 20)) {
        uint8_t *copy = rill_malloc(size);
        if (copy) {
            memcpy(copy, data, size);
            rpak_test_reseal(copy, size);
            exercise(copy, size);
            memcpy(copy, data, size);
            rpak_test_reseal_all(copy, size);
            exercise(copy, size);
            rill_free(copy);
        }
    }
    return 0;
}
