/* rill/formats/cube.h: 3D colour look-up tables in the Adobe / Resolve `.cube` text format: a
 * hostile-input reader and a CPU reference lookup (the renderer's ColorGrading applies them on the
 * GPU, rill/render/post.h).
 *
 * ON THE FORMAT (docs/renderer.md "Colour grading")
 *   Lines of text; `#` starts a comment; blank lines are skipped; CR LF and LF both end a line.
 *   Keywords first, then the table:
 *     TITLE "text"                    optional, at most once (kept up to 127 bytes)
 *     LUT_3D_SIZE N                   required, 2 <= N <= RILL_CUBE_MAX_SIZE
 *     DOMAIN_MIN r g b                optional, default 0 0 0
 *     DOMAIN_MAX r g b                optional, default 1 1 1 (each above its DOMAIN_MIN)
 *     LUT_3D_INPUT_RANGE min max      Resolve's form of the domain (same value on r, g, b)
 *   then exactly N^3 lines of three numbers (output r g b), red changing fastest, then green,
 *   then blue. LUT_1D_SIZE (1D tables) is refused by name.
 *
 * ON HOSTILE INPUT
 *   The size is checked before anything is allocated (N^3 * 3 floats: 24 MiB at the limit);
 *   every number must be finite and within +-RILL_CUBE_MAX_VALUE; a keyword after the table, a
 *   repeated keyword, an unknown keyword, a line with the wrong count of numbers, a NUL byte, a
 *   line longer than RILL_CUBE_MAX_LINE and too few or too many entries are refused. Errors read
 *   "NAME:LINE: what" (NAME as given, LINE counted from 1).
 *
 * Depends on: rill/base.h. */
#ifndef RILL_FORMATS_CUBE_H
#define RILL_FORMATS_CUBE_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_CUBE_MAX_SIZE 128u      /* entries per axis (Resolve writes 17, 33 and 65) */
#define RILL_CUBE_MAX_LINE 1024u     /* bytes per line */
#define RILL_CUBE_MAX_VALUE 65504.0f /* largest output value (the largest half float) */

/* A parsed table. rgb holds size^3 entries of r, g, b (red fastest, then green, then blue),
 * owned by the table (rill_cube_free). */
typedef struct rill_cube_lut {
    uint32_t size;
    float domain_min[3], domain_max[3];
    char title[128];
    float *rgb;
} rill_cube_lut;

/* Parses `len` bytes of .cube text; `name` is the file named in errors (NULL: "cube"). On failure
 * *out is zeroed and nothing stays allocated. */
rill_result rill_cube_parse(const char *text, size_t len, const char *name, rill_cube_lut *out,
                            rill_error *err);

/* Frees the table's entries and zeroes it. NULL is a no-op. */
void rill_cube_free(rill_cube_lut *lut);

/* The table at `in` (mapped from the domain to the table, clamped to it), trilinear: what the
 * GPU computes, for tests and tools. */
void rill_cube_sample(const rill_cube_lut *lut, const float in[3], float out[3]);

#ifdef __cplusplus
}
#endif

#endif
