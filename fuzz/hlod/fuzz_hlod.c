/* fuzz_hlod.c: libFuzzer target for the .hlod far-world proxy parser (rill/formats/hlod.h). Each
 * input is parsed; an accepted proxy is checked the way the renderer uses it (every index below
 * the vertex count, every palette index below the palette count) and written back, and the bytes
 * written must parse again to the same triangle count. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rill/formats/hlod.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_hlod *h = NULL;
    if (rill_hlod_parse(data, size, "fuzz.hlod", &h, NULL) != RILL_OK) {
        return 0;
    }
    for (uint32_t p = 0; p < h->part_count; p++) {
        const rill_hlod_part *pt = &h->parts[p];
        for (uint32_t i = 0; i < pt->index_count; i++) {
            if (pt->indices[i] >= pt->vertex_count) {
                abort();
            }
        }
        for (uint32_t v = 0; v < pt->vertex_count; v++) {
            if (pt->vertices[v].color >= pt->palette_count) {
                abort();
            }
        }
    }
    uint8_t *out = NULL;
    size_t n = 0;
    rill_hlod *again = NULL;
    if (rill_hlod_write(h, &out, &n, NULL) != RILL_OK ||
        rill_hlod_parse(out, n, "again.hlod", &again, NULL) != RILL_OK ||
        rill_hlod_triangle_count(again) != rill_hlod_triangle_count(h)) {
        abort();
    }
    rill_hlod_free(again);
    rill_free(out);
    rill_hlod_free(h);
    return 0;
}
