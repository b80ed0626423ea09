/* terrain_pngs DIR: writes the images of a splatted terrain test project into DIR: heights.png
 * (65 x 65, 16-bit grey: a ridge with fine steps only 16 bits can hold) and splat.png (64 x 64
 * RGBA weights: layer 0 in the west, layer 1 in the east, layer 2 on the ridge) and rock.png
 * (32 x 32 RGBA checks, layer 2's albedo). Test-only. */
#include "../terrain/png_gray.h"

#include "rill/formats/image.h"

#include <math.h>
#include <stdio.h>

/* Writes a size x size RGBA PNG into dir; 1 (and a message) when it cannot. */
static int write_rgba(const char *dir, const char *name, int size, const uint8_t *px) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rill_error err = {0};
    if (rill_image_write_png(path, px, (uint32_t)size, (uint32_t)size, 4, &err) != RILL_OK) {
        fprintf(stderr, "terrain_pngs: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int write_file(const char *dir, const char *name, const uint8_t *data, size_t size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) {
        fprintf(stderr, "terrain_pngs: cannot write %s\n", path);
        if (f) {
            fclose(f);
        }
        return 1;
    }
    return fclose(f) != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: terrain_pngs DIR\n");
        return 2;
    }
    enum { HN = 65, SN = 64 };
    static uint16_t h[HN * HN];
    for (int z = 0; z < HN; z++) {
        for (int x = 0; x < HN; x++) {
            double ridge = exp(-((x - 32) * (x - 32)) / 120.0);
            double v = 0.15 + 0.6 * ridge + 0.1 * sin(z * 0.2) + 0.0004 * ((x * 7 + z * 3) % 5);
            h[z * HN + x] = (uint16_t)lround(v * 65535.0);
        }
    }
    size_t n = 0;
    uint8_t *png = png_gray_encode(h, HN, HN, 16, &n);
    int rc = write_file(argv[1], "heights.png", png, n);
    free(png);
    static uint8_t s[SN * SN * 4];
    for (int y = 0; y < SN; y++) {
        for (int x = 0; x < SN; x++) {
            uint8_t *p = &s[(y * SN + x) * 4];
            int ridge = abs(x - 32) < 6;
            p[0] = (uint8_t)(!ridge && x < 32 ? 255 : 0);
            p[1] = (uint8_t)(!ridge && x >= 32 ? 255 : 0);
            p[2] = (uint8_t)(ridge ? 255 : 0);
            p[3] = 0;
        }
    }
    rc |= write_rgba(argv[1], "splat.png", SN, s);
    static uint8_t r[32 * 32 * 4];
    for (int i = 0; i < 32 * 32; i++) {
        uint8_t v = ((i % 32) / 8 + (i / 32) / 8) % 2 ? 230 : 90;
        r[i * 4 + 0] = r[i * 4 + 1] = r[i * 4 + 2] = v;
        r[i * 4 + 3] = 255;
    }
    rc |= write_rgba(argv[1], "rock.png", 32, r);
    return rc;
}
