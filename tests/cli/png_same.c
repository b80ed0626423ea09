/* png_same.c: `png_same A.png B.png [TOLERANCE [MIN_MATCH]]`, the image comparison of the
 * end-to-end CLI tests: exit 0 when both images have the same size and at least MIN_MATCH
 * (default 0.995) of the pixels have every channel within TOLERANCE (default 3) of each other,
 * the same rule as the golden images of the GPU tests; else 1 with the figures on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "png_load.h"
#include "rill/formats/image.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: png_same A.png B.png [TOLERANCE [MIN_MATCH]]\n");
        return 2;
    }
    int tol = argc > 3 ? atoi(argv[3]) : 3;
    double min_match = argc > 4 ? atof(argv[4]) : 0.995;
    rill_image a, b;
    if (png_load("png_same", argv[1], &a) || png_load("png_same", argv[2], &b)) {
        return 1;
    }
    int rc = 1;
    if (a.width != b.width || a.height != b.height) {
        fprintf(stderr, "png_same: %s is %ux%u, %s is %ux%u\n", argv[1], a.width, a.height, argv[2],
                b.width, b.height);
    } else {
        const uint8_t *p = a.pixels, *q = b.pixels;
        size_t n = (size_t)a.width * a.height, same = 0;
        int worst = 0;
        for (size_t i = 0; i < n; i++) {
            int d = 0;
            for (int k = 0; k < 4; k++) {
                int e = abs((int)p[i * 4 + k] - (int)q[i * 4 + k]);
                d = e > d ? e : d;
            }
            worst = d > worst ? d : worst;
            same += d <= tol;
        }
        double match = (double)same / (double)n;
        rc = match >= min_match ? 0 : 1;
        fprintf(rc ? stderr : stdout, "png_same: %.4f of the pixels within %d (worst %d)\n", match,
                tol, worst);
    }
    rill_image_free(&a);
    rill_image_free(&b);
    return rc;
}
