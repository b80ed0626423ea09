/* gltf_unkept.c: what a glTF file holds that rill_gltf_model leaves out (animation channels on
 * other targets than nodes, TANGENT morph targets, attribute sets
 * beyond the kept ones, extensions Rill does not read), summed up in one
 * line so the reader can warn instead of dropping content silently; and the list of extensions
 * the reader does read. */
#include "gltf_internal.h"
#include "gltf_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* KHR_mesh_quantization only widens the component types an attribute may have; the reader
 * decodes every type (normalized or not) to floats, so it is supported by construction. */
static const char *const k_known_extensions[] = {
    "EXT_meshopt_compression",  "KHR_lights_punctual",
    "KHR_mesh_quantization",    RILL_GLTF_EXT_TEXTURE_TRANSFORM,
    RILL_GLTF_EXT_MESH_EDGES,   RILL_GLTF_EXT_EMISSIVE_STRENGTH,
    RILL_GLTF_EXT_UNLIT,        RILL_GLTF_EXT_IOR,
    RILL_GLTF_EXT_SPECULAR,     RILL_GLTF_EXT_CLEARCOAT,
    RILL_GLTF_EXT_TRANSMISSION, RILL_GLTF_EXT_VOLUME,
    RILL_GLTF_EXT_SHEEN,        RILL_GLTF_EXT_IRIDESCENCE,
    RILL_GLTF_EXT_ANISOTROPY,   RILL_GLTF_EXT_DISPERSION,
    RILL_GLTF_EXT_VARIANTS,
};

bool rill__gltf_extension_known(const char *name) {
    for (size_t i = 0; i < sizeof(k_known_extensions) / sizeof(k_known_extensions[0]); i++) {
        if (strcmp(name, k_known_extensions[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* Sets of a kept attribute family beyond those the model keeps: TEXCOORD_2 and up (UV0 and UV1
 * are kept), COLOR_1 and up, JOINTS_1 and WEIGHTS_1 and up (4 influences per vertex are kept). */
static bool attribute_unkept(const char *key) {
    const char *num = NULL;
    long keep = 0;
    if (strncmp(key, "TEXCOORD_", 9) == 0) {
        num = key + 9, keep = 2;
    } else if (strncmp(key, "COLOR_", 6) == 0) {
        num = key + 6, keep = 1;
    } else if (strncmp(key, "JOINTS_", 7) == 0) {
        num = key + 7, keep = 1;
    } else if (strncmp(key, "WEIGHTS_", 8) == 0) {
        num = key + 8, keep = 1;
    }
    char *end = NULL;
    long set = num ? strtol(num, &end, 10) : -1;
    return num && end != num && *end == '\0' && set >= keep;
}

/* Appends one item to the summary, ", " before every item but the first; a summary longer than
 * cap is cut short. */
static void put(char *out, size_t cap, size_t *len, const char *fmt, ...) RILL_PRINTF(4, 5);
static void put(char *out, size_t cap, size_t *len, const char *fmt, ...) {
    if (*len + 2 >= cap) {
        return;
    }
    if (*len) {
        memcpy(out + *len, ", ", 3);
        *len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len += w > 0 ? (size_t)w : 0;
}

/* Animation channels the reader drops: those whose target names no node or a path other than
 * translation, rotation, scale and weights (KHR_animation_pointer and the like). */
static uint32_t dropped_channels(const rill__gj *root) {
    static const char *const kept[] = {"translation", "rotation", "scale", "weights"};
    uint32_t n = 0;
    const rill__gj *an, *ch;
    RILL__GJ_FOR(an, rill__gj_get(root, "animations")) {
        RILL__GJ_FOR(ch, rill__gj_get(an, "channels")) {
            const rill__gj *t = rill__gj_get(ch, "target");
            const rill__gj *path = rill__gj_get(t, "path");
            bool ok = rill__gj_get(t, "node") != NULL && rill__gj_is_string(path);
            bool known = false;
            for (int i = 0; ok && i < 4; i++) {
                known |= strcmp(path->u.str, kept[i]) == 0;
            }
            n += !known;
        }
    }
    return n;
}

/* Primitives with TANGENT morph targets, and each unkept attribute name once (in order of
 * appearance, at most 8 names). */
static void scan_meshes(const rill__gj *root, uint32_t *morphed, const char **names,
                        uint32_t *name_count) {
    const rill__gj *mesh, *prim, *attr;
    RILL__GJ_FOR(mesh, rill__gj_get(root, "meshes")) {
        RILL__GJ_FOR(prim, rill__gj_get(mesh, "primitives")) {
            /* Position and normal displacements are read; tangent ones are not. */
            const rill__gj *t, *tangents = NULL;
            RILL__GJ_FOR(t, rill__gj_get(prim, "targets")) {
                tangents = tangents ? tangents : rill__gj_get(t, "TANGENT");
            }
            *morphed += tangents != NULL;
            RILL__GJ_FOR(attr, rill__gj_get(prim, "attributes")) {
                bool seen = !attribute_unkept(attr->key);
                for (uint32_t i = 0; !seen && i < *name_count; i++) {
                    seen = strcmp(names[i], attr->key) == 0;
                }
                if (!seen && *name_count < 8) {
                    names[(*name_count)++] = attr->key;
                }
            }
        }
    }
}

size_t rill__gltf_unkept_summary(const rill__gj *root, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    uint32_t n = dropped_channels(root);
    if (n) {
        put(out, cap, &len, "%u animation channel%s without a node target", n, n == 1 ? "" : "s");
    }
    const char *names[8];
    uint32_t name_count = 0, morphed = 0;
    scan_meshes(root, &morphed, names, &name_count);
    if (morphed) {
        put(out, cap, &len, "TANGENT morph targets on %u primitive%s", morphed,
            morphed == 1 ? "" : "s");
    }
    for (uint32_t i = 0; i < name_count; i++) {
        put(out, cap, &len, "attribute %s", names[i]);
    }
    char exts[256];
    size_t ext_len = 0;
    uint32_t ext_count = 0;
    exts[0] = '\0';
    const rill__gj *e;
    RILL__GJ_FOR(e, rill__gj_get(root, "extensionsUsed")) {
        if (rill__gj_is_string(e) && !rill__gltf_extension_known(e->u.str)) {
            put(exts, sizeof(exts), &ext_len, "%s", e->u.str);
            ext_count++;
        }
    }
    if (ext_count) {
        put(out, cap, &len, "extension%s %s", ext_count == 1 ? "" : "s", exts);
    }
    return len < cap ? len : cap - 1;
}
