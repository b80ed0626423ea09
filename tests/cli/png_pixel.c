/* png_pixel.c: `png_pixel FILE.png X Y [X Y ...]` prints the RGBA8 value of each pixel asked for,
 * one line "R G B A" per pixel, so the end-to-end CLI tests can check what a picture shows at a
 * place (a lit face, a background). Exit 1 with a message on a file that does not decode or a
 * pixel outside the picture; 2 on bad usage. Test-only. */
#include <stdio.h>
#include <stdlib.h>

#include "png_load.h"
#include "rill/formats/image.h"

/* Reads a non-negative pixel coordinate; -1 when text is not one. */
static long parse_coord(const char *text) {
    char *end = NULL;
    long v = strtol(text, &end, 10);
    return (end == text || *end != '\0' || v < 0) ? -1 : v;
}

int main(int argc, char **argv) {
    if (argc < 4 || (argc - 2) % 2 != 0) {
        fprintf(stderr, "usage: png_pixel FILE.png X Y [X Y ...]\n");
        return 2;
    }
    rill_image img;
    if (png_load("png_pixel", argv[1], &img)) {
        return 1;
    }
    int rc = 0;
    for (int i = 2; i + 1 < argc && rc == 0; i += 2) {
        long x = parse_coord(argv[i]), y = parse_coord(argv[i + 1]);
        if (x < 0 || y < 0 || x >= (long)img.width || y >= (long)img.height) {
            fprintf(stderr, "png_pixel: %s: pixel (%s, %s) is outside the %ux%u picture\n", argv[1],
                    argv[i], argv[i + 1], img.width, img.height);
            rc = 1;
            break;
        }
        const uint8_t *p = (const uint8_t *)img.pixels + ((size_t)y * img.width + (size_t)x) * 4;
        printf("%u %u %u %u\n", p[0], p[1], p[2], p[3]);
    }
    rill_image_free(&img);
    return rc;
}
