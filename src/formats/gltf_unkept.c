/* gltf_unkept.c: the list of extensions the reader reads (a file may require only these). */
#include "gltf_internal.h"

#include <string.h>

/* KHR_mesh_quantization only widens the component types an attribute may have; the reader
 * decodes every type (normalized or not) to floats, so it is supported by construction. */
static const char *const k_known_extensions[] = {
    "KHR_lights_punctual",
    "KHR_mesh_quantization",
    RILL_GLTF_EXT_TEXTURE_TRANSFORM,
    RILL_GLTF_EXT_MESH_EDGES,
};

bool rill__gltf_extension_known(const char *name) {
    for (size_t i = 0; i < sizeof(k_known_extensions) / sizeof(k_known_extensions[0]); i++) {
        if (strcmp(name, k_known_extensions[i]) == 0) {
            return true;
        }
    }
    return false;
}
