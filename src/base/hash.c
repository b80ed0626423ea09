/* hash.c: 64-bit hashing through XXH3 (libxxhash). */
#include "rill/base.h"

#include <string.h>
#include <xxhash.h>

uint64_t rill_hash64(const void *data, size_t size) {
    return (uint64_t)XXH3_64bits(data, size);
}

uint64_t rill_hash64_seed(const void *data, size_t size, uint64_t seed) {
    return (uint64_t)XXH3_64bits_withSeed(data, size, (XXH64_hash_t)seed);
}

uint64_t rill_hash64_str(const char *s) {
    return s != NULL ? rill_hash64(s, strlen(s)) : rill_hash64("", 0);
}
