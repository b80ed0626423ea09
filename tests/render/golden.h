/* golden.h: golden-image comparison for the GPU tests. An image matches when at least
 * RILL_GOLDEN_MIN_MATCH of its pixels have every channel within RILL_GOLDEN_TOLERANCE of the
 * golden. On a mismatch the actual image and a diff image (red where a pixel is out of
 * tolerance, the golden dimmed elsewhere) are written to $RILL_TEST_TMP. With
 * RILL_UPDATE_GOLDEN=1 the golden is (re)written instead; goldens are only committed after a
 * person has looked at them. */
#ifndef RILL_TEST_RENDER_GOLDEN_H
#define RILL_TEST_RENDER_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RILL_GOLDEN_TOLERANCE 3
#define RILL_GOLDEN_MIN_MATCH 0.995

/* Returns true on a match (or after an update); false with a message in msg otherwise. */
bool golden_check(const char *name, const uint8_t *rgba, uint32_t w, uint32_t h, char *msg,
                  size_t msg_cap);
/* golden_check that fails the running cmocka test with its message on a mismatch. */
void golden_expect(const char *name, const uint8_t *rgba, uint32_t w, uint32_t h);

#endif
