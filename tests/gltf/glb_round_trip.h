/* glb_round_trip.h: the checks the glTF extension tests (skins, morph targets, variants) share:
 * a model written as .glb and read back, written again to the same bytes, and every prefix of a
 * file read without a crash. Header-only (static inline); include after cmocka.h. */
#ifndef RILL_TEST_GLB_ROUND_TRIP_H
#define RILL_TEST_GLB_ROUND_TRIP_H

#include <stddef.h>
#include <stdint.h>

#include "rill/formats/gltf.h"

/* Writes m as .glb into *glb (the caller frees it with rill_free, or hands it to
 * glb_rewrites_same) and returns the model read back from it; the test fails when either step
 * is refused. */
static inline rill_gltf_model *glb_round_trip(const rill_gltf_model *m, uint8_t **glb,
                                              size_t *glb_size) {
    rill_error err = {0};
    assert_int_equal(rill_glb_write_memory(m, NULL, glb, glb_size, &err), RILL_OK);
    rill_gltf_model *r = NULL;
    if (rill_gltf_read_memory(*glb, *glb_size, NULL, &r, &err) != RILL_OK) {
        fail_msg("written file refused: %s", err.msg);
    }
    return r;
}

/* Fails the test unless r written as .glb is the glb_size bytes of glb (r read back from them:
 * writing is stable); frees glb. */
static inline void glb_rewrites_same(const rill_gltf_model *r, uint8_t *glb, size_t glb_size) {
    uint8_t *again = NULL;
    size_t n = 0;
    rill_error err = {0};
    assert_int_equal(rill_glb_write_memory(r, NULL, &again, &n, &err), RILL_OK);
    assert_int_equal(n, glb_size);
    assert_memory_equal(again, glb, glb_size);
    rill_free(again);
    rill_free(glb);
}

/* Reads every prefix of text (lengths 0, step, 2 step .. below n): none may crash or leak; a
 * prefix that reads is freed. */
static inline void gltf_read_prefixes(const char *text, size_t n, size_t step) {
    for (size_t k = 0; k < n; k += step) {
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        if (rill_gltf_read_memory(text, k, NULL, &m, &err) == RILL_OK) {
            rill_gltf_model_free(m);
        }
    }
}

#endif
