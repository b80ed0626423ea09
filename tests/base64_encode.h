/* base64_encode.h: standard base64 (RFC 4648, with '=' padding) of bytes, for the data: URIs of
 * the glTF files tests write by hand. Header-only (static inline). */
#ifndef RILL_TEST_BASE64_ENCODE_H
#define RILL_TEST_BASE64_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* Base64 of src's n bytes into dst (4 * ((n + 2) / 3) + 1 bytes, '\0' ended). */
static inline void rill_test_base64(const uint8_t *src, size_t n, char *dst) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)src[i] << 16 | (i + 1 < n ? (uint32_t)src[i + 1] << 8 : 0) |
                     (i + 2 < n ? src[i + 2] : 0);
        dst[o++] = t[(v >> 18) & 63];
        dst[o++] = t[(v >> 12) & 63];
        dst[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        dst[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    dst[o] = '\0';
}

#endif
