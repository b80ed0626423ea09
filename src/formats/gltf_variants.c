/* gltf_variants.c: KHR_materials_variants. The reader's part (the file's variant names, each
 * primitive's mappings from variants to materials, checked as hostile input with their JSON
 * paths) and the two lookups (rill/formats/gltf.h): a variant by name, a primitive's material in a
 * variant. */
#include "gltf_read_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define EXT RILL_GLTF_EXT_VARIANTS

/* The object of this extension in obj's "extensions" (NULL when absent). */
static rill_result ext_of(rd *r, const rill__gj *obj, const char *where, char *ew, size_t cap,
                          const rill__gj **out) {
    const rill__gj *ext;
    *out = NULL;
    RILL_TRY(rill__rd_js_member_object(r, obj, "extensions", where, &ext));
    if (!ext) {
        return RILL_OK;
    }
    snprintf(ew, cap, "%s%sextensions", where, where[0] ? "." : "");
    RILL_TRY(rill__rd_js_member_object(r, ext, EXT, ew, out));
    snprintf(ew, cap, "%s%sextensions.%s", where, where[0] ? "." : "", EXT);
    return RILL_OK;
}

rill_result rill__rd_read_variants(rd *r) {
    const rill__gj *v, *arr;
    char ew[128];
    RILL_TRY(ext_of(r, r->root, "", ew, sizeof(ew), &v));
    if (!v) {
        return RILL_OK;
    }
    uint32_t n;
    RILL_TRY(rill__rd_js_array(r, v, "variants", ew, &arr, &n));
    if (n > RILL_GLTF_MAX_VARIANTS) {
        return rill__rd_fail(r, RILL_ERR_LIMIT, "%s.variants: %u variants (limit %u)", ew, n,
                             RILL_GLTF_MAX_VARIANTS);
    }
    if (n == 0) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.variants: missing or empty", ew);
    }
    RILL_TRY(rill__rd_charge(r, (uint64_t)n * sizeof(char *), ew, ".variants"));
    r->m->variant_names = rill__gltf_alloc(n, sizeof(char *));
    if (!r->m->variant_names) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.variants: out of memory", ew);
    }
    const rill__gj *it;
    RILL__GJ_FOR(it, arr) {
        char iw[160], pfx[144];
        snprintf(pfx, sizeof(pfx), "%s.variants", ew);
        rill__rd_index_path(iw, sizeof(iw), pfx, r->m->variant_count);
        RILL_TRY(rill__rd_js_object(r, it, iw));
        const rill__gj *name = rill__gj_get(it, "name");
        if (!rill__gj_is_string(name)) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.name: missing (a variant needs a name)",
                                 iw);
        }
        char **slot = &r->m->variant_names[r->m->variant_count];
        r->m->variant_count++; /* counted first so a failure below frees what it holds */
        RILL_TRY(rill__rd_js_name(r, it, iw, slot));
        if (!*slot) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.name: out of memory", iw);
        }
    }
    return RILL_OK;
}

/* One mapping: its material for each variant it lists, each variant mapped once per primitive. */
static rill_result read_mapping(rd *r, const rill__gj *mp, const char *mw, int32_t *per_variant,
                                uint8_t *mapped) {
    RILL_TRY(rill__rd_js_object(r, mp, mw));
    int32_t mat;
    RILL_TRY(rill__rd_js_index(r, mp, "material", mw, r->m->material_count, "material", &mat));
    if (mat < 0) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.material: missing", mw);
    }
    const rill__gj *vars, *it;
    uint32_t vc;
    RILL_TRY(rill__rd_js_array(r, mp, "variants", mw, &vars, &vc));
    if (vc == 0) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.variants: missing or empty", mw);
    }
    uint32_t k = 0;
    RILL__GJ_FOR(it, vars) {
        double v = rill__gj_num(it);
        if (!rill__gj_is_number(it) || !isfinite(v) || v != floor(v)) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.variants[%u]: expected an index", mw, k);
        }
        if (v < 0.0 || v >= (double)r->m->variant_count) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.variants[%u]: variant %.0f out of range (%u)", mw, k, v,
                                 r->m->variant_count);
        }
        uint32_t vi = (uint32_t)v;
        if (mapped[vi]) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.variants[%u]: variant %u is mapped twice on this primitive",
                                 mw, k, vi);
        }
        mapped[vi] = 1;
        per_variant[vi] = mat;
        k++;
    }
    return RILL_OK;
}

rill_result rill__rd_read_variant_mappings(rd *r, const rill__gj *p, const char *where,
                                           rill_gltf_primitive *prim) {
    const rill__gj *v, *arr, *mp;
    char ew[256];
    RILL_TRY(ext_of(r, p, where, ew, sizeof(ew), &v));
    if (!v) {
        return RILL_OK;
    }
    uint32_t n;
    RILL_TRY(rill__rd_js_array(r, v, "mappings", ew, &arr, &n));
    if (n == 0) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.mappings: missing or empty", ew);
    }
    if (r->m->variant_count == 0) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.mappings: the file names no variants (extensions.%s.variants)", ew,
                             EXT);
    }
    uint32_t vc = r->m->variant_count;
    RILL_TRY(rill__rd_charge(r, (uint64_t)vc * (sizeof(int32_t) + 1u), ew, ".mappings"));
    prim->variant_materials = rill__gltf_alloc_raw(vc, sizeof(int32_t));
    uint8_t *mapped = rill__gltf_alloc(vc, 1);
    if (!prim->variant_materials || !mapped) {
        rill_free(mapped);
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", ew);
    }
    for (uint32_t i = 0; i < vc; i++) {
        prim->variant_materials[i] = prim->material;
    }
    rill_result res = RILL_OK;
    uint32_t k = 0;
    RILL__GJ_FOR(mp, arr) {
        char mw[288], pfx[272];
        snprintf(pfx, sizeof(pfx), "%s.mappings", ew);
        rill__rd_index_path(mw, sizeof(mw), pfx, k++);
        res = read_mapping(r, mp, mw, prim->variant_materials, mapped);
        if (res != RILL_OK) {
            break;
        }
    }
    rill_free(mapped);
    return res;
}

int32_t rill_gltf_model_find_variant(const rill_gltf_model *model, const char *name) {
    if (!model || !name || !name[0]) {
        return -1;
    }
    for (uint32_t i = 0; i < model->variant_count; i++) {
        if (model->variant_names[i] && strcmp(model->variant_names[i], name) == 0) {
            return (int32_t)i;
        }
    }
    return -1;
}

int32_t rill_gltf_primitive_variant_material(const rill_gltf_model *model,
                                             const rill_gltf_primitive *prim, uint32_t variant) {
    if (!prim) {
        return -1;
    }
    if (variant == 0 || !model || variant > model->variant_count || !prim->variant_materials) {
        return prim->material;
    }
    return prim->variant_materials[variant - 1u];
}
