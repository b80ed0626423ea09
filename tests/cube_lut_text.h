/* cube_lut_text.h: the text of a .cube colour table (Adobe Cube LUT 1.0) for the tests of the
 * parser (test_cube.c) and of colour grading (test_post.c). Header-only (static inline). */
#ifndef RILL_TEST_CUBE_LUT_TEXT_H
#define RILL_TEST_CUBE_LUT_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A table of n^3 entries after the lines `head`: identity, or the warm grade (r * 1.1 + 0.05, g,
 * b * 0.8). The caller frees it (free). */
static inline char *rill_test_cube_text(uint32_t n, bool warm, const char *head) {
    size_t cap = 256 + (size_t)n * n * n * 40;
    char *s = malloc(cap);
    size_t at = (size_t)snprintf(s, cap, "%sLUT_3D_SIZE %u\n", head, n);
    for (uint32_t b = 0; b < n; b++) {
        for (uint32_t g = 0; g < n; g++) {
            for (uint32_t r = 0; r < n; r++) {
                float x = (float)r / (float)(n - 1), y = (float)g / (float)(n - 1),
                      z = (float)b / (float)(n - 1);
                if (warm) {
                    x = x * 1.1f + 0.05f, z *= 0.8f;
                }
                at += (size_t)snprintf(s + at, cap - at, "%.6f %.6f %.6f\n", x, y, z);
            }
        }
    }
    return s;
}

#endif
