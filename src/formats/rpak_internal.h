/* rpak_internal.h: what the .rpak reader (rpak.c) and writer (rpak_write.c) share: the byte
 * layout's constants (docs/formats/rpak.md; the single source of truth for it), little-endian
 * helpers and the entry-name rule. */
#ifndef RILL_RPAK_INTERNAL_H
#define RILL_RPAK_INTERNAL_H

#include "rill/formats/rpak.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPAK_MODULE "rpak"

static const uint8_t RPAK_HEADER_MAGIC[8] = {'R', 'P', 'A', 'K', 0x0D, 0x0A, 0x1A, 0x0A};
static const uint8_t RPAK_TRAILER_MAGIC[8] = {'R', 'P', 'A', 'K', 'E', 'N', 'D', 0x1A};
#define RPAK_ENTRY_RECORD_SIZE 48u
#define RPAK_MIN_CHUNK (4u * 1024u)
#define RPAK_MAX_CHUNK (16u * 1024u * 1024u)
/* The most a zstd frame can expand: 128 KiB of output per block of at least 4 bytes. */
#define RPAK_ZSTD_MAX_RATIO ((uint64_t)128u * 1024u / 4u)

/* >>little-endian helpers --------------------------------------------------------------------- */

static inline uint16_t rd16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t rd64(const uint8_t *p) {
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}
static inline void wr16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}
static inline void wr64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline bool is_pow2(uint32_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}

/* A name is valid when it is a normalized project-relative path without '#' or control bytes
 * (rpak.c). */
bool rill__rpak_name_valid(const char *name, size_t len);

#endif
