/* fuzz_cube.c: libFuzzer entry for the .cube reader. Every input is parsed; a table that parses is
 * sampled at the domain's corners and centre, so the lookup sees hostile domains and sizes too. */
#include "rill/formats/cube.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_cube_lut lut;
    rill_error err = {0};
    if (rill_cube_parse((const char *)data, size, "fuzz.cube", &lut, &err) == RILL_OK) {
        static const float probes[4][3] = {{0, 0, 0}, {1, 1, 1}, {0.5f, 0.25f, 0.75f}, {-9, 9, 2}};
        float out[3];
        for (int i = 0; i < 4; i++) {
            rill_cube_sample(&lut, probes[i], out);
        }
        rill_cube_free(&lut);
    }
    return 0;
}
