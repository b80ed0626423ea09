/* fuzz_gltf.c: libFuzzer target for the glTF reader. Any input must give either an error or a
 * model that keeps the reader's promises (every index in range); a model that loads is then run
 * through edge extraction and written to .glb, and the written bytes must read back. External
 * URIs are refused (no base folder), and buffers are capped at 16 MiB so the fuzzer measures the
 * parser, not the allocator. */
#include <stdint.h>
#include <stdlib.h>

#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"

static void check(const rill_gltf_model *m) {
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            const rill_gltf_primitive *pr = &m->meshes[i].primitives[p];
            if (pr->index_count % 3 != 0) {
                abort();
            }
            for (uint32_t k = 0; k < pr->index_count; k++) {
                if (pr->indices[k] >= pr->vertex_count) {
                    abort();
                }
            }
            for (uint32_t k = 0; k < pr->edge_index_count; k++) {
                if (pr->edge_indices[k] >= pr->vertex_count) {
                    abort();
                }
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rill_log_set_level(RILL_LOG_NONE);
    rill_gltf_read_desc desc = {.name = "fuzz.glb", .max_bytes = 16u << 20};
    rill_gltf_model *m = NULL;
    rill_error err;
    if (rill_gltf_read_memory(data, size, &desc, &m, &err) != RILL_OK) {
        if (m != NULL) {
            abort();
        }
        return 0;
    }
    check(m);
    if (rill_gltf_model_triangle_count(m) < 100000) {
        rill_gltf_model_build_edges(m, NULL, &err);
    }
    uint8_t *out;
    size_t out_size;
    if (rill_glb_write_memory(m, NULL, &out, &out_size, &err) == RILL_OK) {
        rill_gltf_model *again = NULL;
        if (rill_gltf_read_memory(out, out_size, &desc, &again, &err) != RILL_OK) {
            abort(); /* the writer produced something its own reader refuses */
        }
        check(again);
        rill_gltf_model_free(again);
        rill_free(out);
    }
    rill_gltf_model_free(m);
    return 0;
}
