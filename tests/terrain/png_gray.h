/* png_gray.h: a minimal greyscale PNG encoder for terrain tests (8- or 16-bit samples, zlib
 * "stored" blocks, no compression), so tests can write exact heightmaps without a PNG library
 * that speaks 16 bits. Test-only. */
#ifndef RILL_TEST_PNG_GRAY_H
#define RILL_TEST_PNG_GRAY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t png_gray__crc(const uint8_t *p, size_t n, uint32_t crc) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

static void png_gray__be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Appends a chunk (length, type, data, CRC) at *pos. */
static void png_gray__chunk(uint8_t *out, size_t *pos, const char *type, const uint8_t *data,
                            uint32_t len) {
    png_gray__be32(out + *pos, len);
    memcpy(out + *pos + 4, type, 4);
    if (len) {
        memcpy(out + *pos + 8, data, len);
    }
    png_gray__be32(out + *pos + 8 + len, png_gray__crc(out + *pos + 4, len + 4u, 0));
    *pos += 12u + len;
}

/* Encodes a w x h grey image; samples are 16-bit values (depth 16) or 0..255 (depth 8). Returns
 * a malloc'ed buffer and its size in *out_size. */
static uint8_t *png_gray_encode(const uint16_t *samples, uint32_t w, uint32_t h, int depth,
                                size_t *out_size) {
    uint32_t bpp = depth == 16 ? 2u : 1u;
    size_t row = 1u + (size_t)w * bpp, raw_len = row * h;
    uint8_t *raw = malloc(raw_len);
    for (uint32_t y = 0; y < h; y++) {
        raw[y * row] = 0; /* filter: none */
        for (uint32_t x = 0; x < w; x++) {
            uint16_t v = samples[(size_t)y * w + x];
            uint8_t *p = raw + y * row + 1 + (size_t)x * bpp;
            if (bpp == 2) {
                p[0] = (uint8_t)(v >> 8);
                p[1] = (uint8_t)v;
            } else {
                p[0] = (uint8_t)v;
            }
        }
    }
    size_t blocks = raw_len / 65535u + 1u;
    size_t z_len = 2u + raw_len + blocks * 5u + 4u;
    uint8_t *z = malloc(z_len);
    size_t zp = 0;
    z[zp++] = 0x78;
    z[zp++] = 0x01;
    uint32_t a = 1, b = 0;
    for (size_t off = 0; off < raw_len || off == 0;) {
        size_t n = raw_len - off > 65535u ? 65535u : raw_len - off;
        z[zp++] = off + n >= raw_len ? 1 : 0;
        z[zp++] = (uint8_t)n;
        z[zp++] = (uint8_t)(n >> 8);
        z[zp++] = (uint8_t)~n;
        z[zp++] = (uint8_t)(~n >> 8);
        memcpy(z + zp, raw + off, n);
        for (size_t i = 0; i < n; i++) {
            a = (a + raw[off + i]) % 65521u;
            b = (b + a) % 65521u;
        }
        zp += n;
        off += n;
        if (off >= raw_len) {
            break;
        }
    }
    png_gray__be32(z + zp, (b << 16) | a);
    zp += 4;
    uint8_t *out = malloc(8 + 25 + 12 + zp + 12);
    size_t pos = 0;
    static const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    memcpy(out, sig, 8);
    pos = 8;
    uint8_t ihdr[13];
    png_gray__be32(ihdr, w);
    png_gray__be32(ihdr + 4, h);
    ihdr[8] = (uint8_t)depth;
    ihdr[9] = 0; /* greyscale */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    png_gray__chunk(out, &pos, "IHDR", ihdr, 13);
    png_gray__chunk(out, &pos, "IDAT", z, (uint32_t)zp);
    png_gray__chunk(out, &pos, "IEND", NULL, 0);
    free(raw);
    free(z);
    *out_size = pos;
    return out;
}

#endif /* RILL_TEST_PNG_GRAY_H */
