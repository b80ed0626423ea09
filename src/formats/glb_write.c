/* glb_write.c: writes a rill_gltf_model as binary glTF 2.0 (.glb).
 *
 * Layout: one bufferView per accessor (so no byteStride is needed), every view starting on a
 * 4-byte boundary, vertex views targeting ARRAY_BUFFER and index views ELEMENT_ARRAY_BUFFER,
 * POSITION accessors carrying exact min/max, indices as u16 when every index fits below the
 * u16 restart value and as u32 otherwise. The JSON chunk is padded with spaces and the BIN chunk
 * with zeros, as the GLB container requires. The output passes the Khronos glTF validator with
 * no errors (tests/gltf checks it when Node.js and gltf-validator are installed). */
#include "gltf_internal.h"
#include "lib_hooks.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_FLOAT 5126
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963

typedef struct wr {
    uint8_t *bin;
    size_t bin_len;
    size_t bin_cap;
    cJSON *views;
    cJSON *accessors;
    int view_count;
    int accessor_count;
    bool oom;
} wr;

/* Appends a new empty object to arr; NULL when out of memory (arr unchanged). */
static cJSON *push_object(cJSON *arr) {
    cJSON *o = cJSON_CreateObject();
    if (!cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* push_object that marks the writer out of memory when it fails. */
static cJSON *push_element(wr *w, cJSON *arr) {
    cJSON *o = push_object(arr);
    if (!o) {
        w->oom = true;
    }
    return o;
}

/* Appends an accessor of `count` elements of `type` (componentType ctype) over buffer view
 * `view`; returns its index or -1. */
static int push_accessor(wr *w, int view, int ctype, uint32_t count, const char *type,
                         cJSON **out) {
    cJSON *a = view >= 0 ? push_element(w, w->accessors) : NULL;
    if (!a) {
        return -1;
    }
    cJSON_AddNumberToObject(a, "bufferView", view);
    cJSON_AddNumberToObject(a, "componentType", ctype);
    cJSON_AddNumberToObject(a, "count", count);
    cJSON_AddStringToObject(a, "type", type);
    if (out) {
        *out = a;
    }
    return w->accessor_count++;
}

static bool bin_reserve(wr *w, size_t extra) {
    if (w->bin_len + extra <= w->bin_cap) {
        return true;
    }
    size_t cap = w->bin_cap ? w->bin_cap : 4096;
    while (cap < w->bin_len + extra) {
        cap *= 2;
    }
    uint8_t *n = rill_realloc_tagged(w->bin, cap, RILL_MEM_FORMATS);
    if (!n) {
        w->oom = true;
        return false;
    }
    w->bin = n;
    w->bin_cap = cap;
    return true;
}

/* Appends bytes as a new bufferView (4-byte aligned start); returns its index or -1. */
static int add_view(wr *w, const void *data, size_t size, int target) {
    size_t pad = RILL_ALIGN_UP(w->bin_len, (size_t)4) - w->bin_len;
    if (!bin_reserve(w, pad + size)) {
        return -1;
    }
    memset(w->bin + w->bin_len, 0, pad);
    w->bin_len += pad;
    size_t offset = w->bin_len;
    memcpy(w->bin + w->bin_len, data, size);
    w->bin_len += size;
    cJSON *v = push_element(w, w->views);
    if (!v) {
        return -1;
    }
    cJSON_AddNumberToObject(v, "buffer", 0);
    cJSON_AddNumberToObject(v, "byteOffset", (double)offset);
    cJSON_AddNumberToObject(v, "byteLength", (double)size);
    if (target) {
        cJSON_AddNumberToObject(v, "target", target);
    }
    return w->view_count++;
}

static cJSON *float_array(const float *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    }
    return a;
}

/* A float accessor of `count` elements of `comps` floats; with_bounds adds min/max. */
static int add_float_accessor(wr *w, const float *data, uint32_t count, int comps, const char *type,
                              bool with_bounds) {
    int view = add_view(w, data, (size_t)count * (size_t)comps * sizeof(float), GL_ARRAY_BUFFER);
    cJSON *a = NULL;
    int index = push_accessor(w, view, GL_FLOAT, count, type, &a);
    if (index >= 0 && with_bounds) {
        float lo[4], hi[4];
        for (int c = 0; c < comps; c++) {
            lo[c] = hi[c] = data[c];
        }
        for (uint32_t e = 1; e < count; e++) {
            for (int c = 0; c < comps; c++) {
                float x = data[(size_t)e * comps + c];
                lo[c] = x < lo[c] ? x : lo[c];
                hi[c] = x > hi[c] ? x : hi[c];
            }
        }
        cJSON_AddItemToObject(a, "min", float_array(lo, comps));
        cJSON_AddItemToObject(a, "max", float_array(hi, comps));
    }
    return index;
}

/* An index accessor (SCALAR u16 or u32) over `count` indices, all < vertex_count. */
static int add_index_accessor(wr *w, const uint32_t *idx, uint32_t count, uint32_t vertex_count) {
    int view;
    int ctype;
    if (vertex_count <= 65535u) {
        /* Every index is < 65535, so the u16 primitive-restart value never appears. */
        uint16_t *tmp = rill_malloc_tagged((size_t)count * 2, RILL_MEM_FORMATS);
        if (!tmp) {
            w->oom = true;
            return -1;
        }
        for (uint32_t i = 0; i < count; i++) {
            tmp[i] = (uint16_t)idx[i];
        }
        view = add_view(w, tmp, (size_t)count * 2, GL_ELEMENT_ARRAY_BUFFER);
        rill_free(tmp);
        ctype = GL_UNSIGNED_SHORT;
    } else {
        view = add_view(w, idx, (size_t)count * 4, GL_ELEMENT_ARRAY_BUFFER);
        ctype = GL_UNSIGNED_INT;
    }
    return push_accessor(w, view, ctype, count, "SCALAR", NULL);
}

/* JOINTS_0: 4 joint indices per vertex as unsigned shorts (the model keeps them as floats). */
static int add_joints_accessor(wr *w, const float *joints, uint32_t count) {
    uint16_t *tmp = rill_malloc_tagged((size_t)count * 8u, RILL_MEM_FORMATS);
    if (!tmp) {
        w->oom = true;
        return -1;
    }
    for (size_t i = 0; i < (size_t)count * 4u; i++) {
        tmp[i] = (uint16_t)joints[i];
    }
    int view = add_view(w, tmp, (size_t)count * 8u, GL_ARRAY_BUFFER);
    rill_free(tmp);
    return push_accessor(w, view, GL_UNSIGNED_SHORT, count, "VEC4", NULL);
}

/* Float data that is not vertex data (inverse bind matrices, key times and values): a view
 * without a target; with_bounds adds min/max (key times need them). */
static int add_plain_accessor(wr *w, const float *data, uint32_t count, int comps, const char *type,
                              bool with_bounds) {
    int view = add_view(w, data, (size_t)count * (size_t)comps * sizeof(float), 0);
    cJSON *a = NULL;
    int index = push_accessor(w, view, GL_FLOAT, count, type, &a);
    if (index >= 0 && with_bounds && comps == 1) {
        float lo = data[0], hi = data[0];
        for (uint32_t e = 1; e < count; e++) {
            lo = data[e] < lo ? data[e] : lo;
            hi = data[e] > hi ? data[e] : hi;
        }
        cJSON_AddItemToObject(a, "min", float_array(&lo, 1));
        cJSON_AddItemToObject(a, "max", float_array(&hi, 1));
    }
    return index;
}

/* A primitive's morph targets: per target, its POSITION (with min/max, as glTF asks) and NORMAL
 * displacements gathered out of the model's interleaved arrays. */
static void write_targets(wr *w, cJSON *po, const rill_gltf_primitive *pr) {
    uint32_t n = pr->vertex_count, tc = pr->target_count;
    cJSON *arr = cJSON_AddArrayToObject(po, "targets");
    float *tmp = rill_malloc_tagged((size_t)n * 12u, RILL_MEM_FORMATS);
    if (!arr || !tmp) {
        rill_free(tmp);
        w->oom = true;
        return;
    }
    for (uint32_t t = 0; t < tc; t++) {
        cJSON *o = push_element(w, arr);
        const float *src[2] = {pr->target_positions, pr->target_normals};
        const char *keys[2] = {"POSITION", "NORMAL"};
        for (int k = 0; o && k < 2; k++) {
            if (!src[k]) {
                continue;
            }
            for (uint32_t v = 0; v < n; v++) {
                memcpy(&tmp[(size_t)v * 3], &src[k][((size_t)v * tc + t) * 3], 12);
            }
            cJSON_AddNumberToObject(o, keys[k], add_float_accessor(w, tmp, n, 3, "VEC3", k == 0));
        }
    }
    rill_free(tmp);
}

static void add_name(cJSON *obj, const char *name) {
    if (name) {
        cJSON_AddStringToObject(obj, "name", name);
    }
}

/* push_object with its "name" (when not NULL) already set: how every named element starts. */
static cJSON *push_named(cJSON *arr, const char *name) {
    cJSON *o = push_object(arr);
    if (o) {
        add_name(o, name);
    }
    return o;
}

static void add_texref(cJSON *obj, const char *key, const rill_gltf_texref *t,
                       const char *scale_key) {
    if (t->texture < 0) {
        return;
    }
    cJSON *o = cJSON_AddObjectToObject(obj, key);
    if (!o) {
        return;
    }
    cJSON_AddNumberToObject(o, "index", t->texture);
    if (t->texcoord) {
        cJSON_AddNumberToObject(o, "texCoord", t->texcoord);
    }
    if (scale_key && t->scale != 1.0f) {
        cJSON_AddNumberToObject(o, scale_key, t->scale);
    }
    if (t->has_transform) {
        cJSON *ext = cJSON_AddObjectToObject(o, "extensions");
        cJSON *x = ext ? cJSON_AddObjectToObject(ext, RILL_GLTF_EXT_TEXTURE_TRANSFORM) : NULL;
        if (x) {
            const float off[2] = {t->offset[0], t->offset[1]};
            const float sc[2] = {t->uv_scale[0], t->uv_scale[1]};
            cJSON_AddItemToObject(x, "offset", cJSON_CreateFloatArray(off, 2));
            cJSON_AddNumberToObject(x, "rotation", t->rotation);
            cJSON_AddItemToObject(x, "scale", cJSON_CreateFloatArray(sc, 2));
            if (t->transform_texcoord >= 0) {
                cJSON_AddNumberToObject(x, "texCoord", t->transform_texcoord);
            }
        }
    }
}

/* True when a material texture reference carries KHR_texture_transform. */
static bool uses_texture_transform(const rill_gltf_model *m) {
    for (uint32_t i = 0; i < m->material_count; i++) {
        const rill_gltf_material *ma = &m->materials[i];
        const rill_gltf_texref *t[RILL_GLTF_MATERIAL_MAX_TEXREFS];
        uint32_t n = rill__gltf_material_texrefs(ma, t);
        for (uint32_t k = 0; k < n; k++) {
            if (t[k]->has_transform) {
                return true;
            }
        }
    }
    return false;
}

static bool idx_ok(int32_t i, uint32_t count) {
    return i >= -1 && (i < 0 || (uint32_t)i < count);
}

/* Skins, morph data and clips as the reader gives them: joints in range (and below 2^16 in the
 * vertices), inverse bind matrices present, target arrays present, channels naming a node and
 * a sampler with keys and a known path and interpolation. */
static rill_result validate_motion(const rill_gltf_model *m, rill_error *err) {
    for (uint32_t i = 0; i < m->skin_count; i++) {
        const rill_gltf_skin *sk = &m->skins[i];
        if (!sk->joint_count || !sk->joints || !sk->inverse_bind_matrices ||
            !idx_ok(sk->skeleton, m->node_count)) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "skins[%u]: inconsistent", i);
        }
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            if (sk->joints[j] < 0 || (uint32_t)sk->joints[j] >= m->node_count) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "skins[%u].joints[%u]: out of range", i, j);
            }
        }
    }
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            const rill_gltf_primitive *pr = &m->meshes[i].primitives[p];
            for (size_t k = 0; pr->joints && pr->weights && k < (size_t)pr->vertex_count * 4; k++) {
                if (!(pr->joints[k] >= 0.0f && pr->joints[k] < 65536.0f)) {
                    return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                          "meshes[%u].primitives[%u]: joint out of range", i, p);
                }
            }
            if (pr->target_count && !pr->target_positions && !pr->target_normals) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "meshes[%u].primitives[%u]: targets without data", i, p);
            }
        }
    }
    for (uint32_t i = 0; i < m->animation_count; i++) {
        const rill_gltf_animation *an = &m->animations[i];
        for (uint32_t k = 0; k < an->sampler_count; k++) {
            const rill_gltf_anim_sampler *sa = &an->samplers[k];
            /* A sampler without keys (a dropped channel's) is left out of the file. */
            if ((sa->key_count && (!sa->times || !sa->values || !sa->comps)) ||
                (uint32_t)sa->interpolation >= RILL_GLTF_INTERP_NUM) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "animations[%u].samplers[%u]: inconsistent", i, k);
            }
        }
        for (uint32_t k = 0; k < an->channel_count; k++) {
            const rill_gltf_anim_channel *ch = &an->channels[k];
            if (ch->node < 0 || (uint32_t)ch->node >= m->node_count ||
                ch->sampler >= an->sampler_count || (uint32_t)ch->path >= RILL_GLTF_ANIM_PATH_NUM) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "animations[%u].channels[%u]: out of range", i, k);
            }
        }
    }
    return RILL_OK;
}

/* The writer trusts only what it checks: a model built by hand gets the same guarantees the
 * reader gives, so a bad index cannot make it read out of bounds. */
/* A primitive's variant materials name materials of the model (or -1). */
static bool variants_ok(const rill_gltf_model *m, const rill_gltf_primitive *pr) {
    for (uint32_t i = 0; pr->variant_materials && i < m->variant_count; i++) {
        if (!idx_ok(pr->variant_materials[i], m->material_count)) {
            return false;
        }
    }
    return true;
}

static rill_result validate(const rill_gltf_model *m, rill_error *err) {
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const rill_gltf_mesh *mesh = &m->meshes[i];
        if (mesh->primitive_count == 0) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "meshes[%u]: no primitives", i);
        }
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const rill_gltf_primitive *pr = &mesh->primitives[p];
            if (pr->vertex_count == 0 || !pr->positions || pr->index_count == 0 ||
                pr->index_count % 3 != 0 || !pr->indices || pr->edge_index_count % 2 != 0 ||
                (pr->edge_index_count && !pr->edge_indices) ||
                !idx_ok(pr->material, m->material_count) || !variants_ok(m, pr)) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "meshes[%u].primitives[%u]: inconsistent primitive", i, p);
            }
            for (uint32_t k = 0; k < pr->index_count; k++) {
                if (pr->indices[k] >= pr->vertex_count) {
                    return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                          "meshes[%u].primitives[%u]: index %u out of range", i, p,
                                          k);
                }
            }
            for (uint32_t k = 0; k < pr->edge_index_count; k++) {
                if (pr->edge_indices[k] >= pr->vertex_count) {
                    return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                          "meshes[%u].primitives[%u]: edge index %u out of range",
                                          i, p, k);
                }
            }
        }
    }
    for (uint32_t i = 0; i < m->node_count; i++) {
        const rill_gltf_node *n = &m->nodes[i];
        if (!idx_ok(n->mesh, m->mesh_count) || !idx_ok(n->camera, m->camera_count) ||
            !idx_ok(n->light, m->light_count) || (n->child_count && !n->children)) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "nodes[%u]: index out of range",
                                  i);
        }
        for (uint32_t c = 0; c < n->child_count; c++) {
            if (n->children[c] < 0 || (uint32_t)n->children[c] >= m->node_count) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "nodes[%u].children[%u]: out of range", i, c);
            }
        }
    }
    for (uint32_t i = 0; i < m->scene_count; i++) {
        for (uint32_t c = 0; c < m->scenes[i].node_count; c++) {
            int32_t n = m->scenes[i].nodes[c];
            if (n < 0 || (uint32_t)n >= m->node_count) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "scenes[%u].nodes[%u]: out of range", i, c);
            }
        }
    }
    RILL_TRY(validate_motion(m, err));
    if (!idx_ok(m->default_scene, m->scene_count)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "scene: out of range");
    }
    for (uint32_t i = 0; i < m->texture_count; i++) {
        if (!idx_ok(m->textures[i].image, m->image_count) ||
            !idx_ok(m->textures[i].sampler, m->sampler_count)) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "textures[%u]: index out of range", i);
        }
    }
    for (uint32_t i = 0; i < m->material_count; i++) {
        const rill_gltf_material *ma = &m->materials[i];
        const rill_gltf_texref *t[RILL_GLTF_MATERIAL_MAX_TEXREFS];
        uint32_t n = rill__gltf_material_texrefs(ma, t);
        for (uint32_t k = 0; k < n; k++) {
            if (!idx_ok(t[k]->texture, m->texture_count)) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "materials[%u]: texture out of range", i);
            }
        }
    }
    return RILL_OK;
}

/* Percent-encodes a relative path for a glTF "uri" (the reader decodes it again), so names with
 * spaces, '%' or non-ASCII bytes survive a write/read cycle unchanged. NULL when out of memory. */
static char *encode_uri(const char *path) {
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(path);
    char *out = rill_malloc_tagged(n * 3 + 1, RILL_MEM_FORMATS);
    if (!out) {
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
        if (plain) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return out;
}

/* The MIME type of embedded image bytes, from the model or sniffed from the signature. */
static const char *image_mime(const rill_gltf_image *im) {
    if (im->mime_type) {
        return im->mime_type;
    }
    if (im->size >= 8 && memcmp(im->data, "\x89PNG", 4) == 0) {
        return "image/png";
    }
    if (im->size >= 3 && memcmp(im->data, "\xFF\xD8\xFF", 3) == 0) {
        return "image/jpeg";
    }
    return "application/octet-stream";
}

/* The material extensions (KHR_materials_unlit, _ior, _specular, _clearcoat, _transmission,
 * _volume, _sheen, _iridescence, _anisotropy, _dispersion) a material uses, as bits 1, 2, 4 and
 * so on, in k_lighting_exts' order. */
static unsigned material_lighting_exts(const rill_gltf_material *ma) {
    return (ma->unlit ? 1u : 0u) | (ma->ior > 0.0f ? 2u : 0u) | (ma->has_specular ? 4u : 0u) |
           (ma->clearcoat_factor > 0.0f ? 8u : 0u) | (ma->transmission_factor > 0.0f ? 16u : 0u) |
           (ma->has_volume ? 32u : 0u) | (ma->has_sheen ? 64u : 0u) |
           (ma->iridescence_factor > 0.0f ? 128u : 0u) |
           (ma->anisotropy_strength > 0.0f ? 256u : 0u) | (ma->dispersion > 0.0f ? 512u : 0u);
}

#define LIGHTING_EXTS 10
static const char *const k_lighting_exts[LIGHTING_EXTS] = {
    RILL_GLTF_EXT_UNLIT,     RILL_GLTF_EXT_IOR,          RILL_GLTF_EXT_SPECULAR,
    RILL_GLTF_EXT_CLEARCOAT, RILL_GLTF_EXT_TRANSMISSION, RILL_GLTF_EXT_VOLUME,
    RILL_GLTF_EXT_SHEEN,     RILL_GLTF_EXT_IRIDESCENCE,  RILL_GLTF_EXT_ANISOTROPY,
    RILL_GLTF_EXT_DISPERSION};

/* KHR_materials_iridescence, _anisotropy and _dispersion into their objects (NULL: not used). */
static void write_film_exts(const rill_gltf_material *ma, cJSON *irid, cJSON *aniso, cJSON *disp) {
    if (irid) {
        cJSON_AddNumberToObject(irid, "iridescenceFactor", ma->iridescence_factor);
        add_texref(irid, "iridescenceTexture", &ma->iridescence_texture, NULL);
        cJSON_AddNumberToObject(irid, "iridescenceIor", ma->iridescence_ior);
        cJSON_AddNumberToObject(irid, "iridescenceThicknessMinimum", ma->iridescence_thickness_min);
        cJSON_AddNumberToObject(irid, "iridescenceThicknessMaximum", ma->iridescence_thickness_max);
        add_texref(irid, "iridescenceThicknessTexture", &ma->iridescence_thickness_texture, NULL);
    }
    if (aniso) {
        cJSON_AddNumberToObject(aniso, "anisotropyStrength", ma->anisotropy_strength);
        cJSON_AddNumberToObject(aniso, "anisotropyRotation", ma->anisotropy_rotation);
        add_texref(aniso, "anisotropyTexture", &ma->anisotropy_texture, NULL);
    }
    if (disp) {
        cJSON_AddNumberToObject(disp, "dispersion", ma->dispersion);
    }
}

/* Writes the material extensions ma uses into its "extensions" object (made when needed). */
static void write_lighting_exts(const rill_gltf_material *ma, cJSON *o) {
    unsigned used = material_lighting_exts(ma);
    cJSON *ext = cJSON_GetObjectItem(o, "extensions");
    if (used && !ext) {
        ext = cJSON_AddObjectToObject(o, "extensions");
    }
    cJSON *x[LIGHTING_EXTS] = {NULL};
    for (int k = 0; ext && k < LIGHTING_EXTS; k++) {
        x[k] = used & (1u << k) ? cJSON_AddObjectToObject(ext, k_lighting_exts[k]) : NULL;
    }
    if (x[1]) {
        cJSON_AddNumberToObject(x[1], "ior", ma->ior);
    }
    if (x[2]) {
        cJSON_AddNumberToObject(x[2], "specularFactor", ma->specular_factor);
        cJSON_AddItemToObject(x[2], "specularColorFactor",
                              float_array(ma->specular_color_factor, 3));
        add_texref(x[2], "specularTexture", &ma->specular_texture, NULL);
        add_texref(x[2], "specularColorTexture", &ma->specular_color_texture, NULL);
    }
    if (x[3]) {
        cJSON_AddNumberToObject(x[3], "clearcoatFactor", ma->clearcoat_factor);
        cJSON_AddNumberToObject(x[3], "clearcoatRoughnessFactor", ma->clearcoat_roughness_factor);
        add_texref(x[3], "clearcoatTexture", &ma->clearcoat_texture, NULL);
        add_texref(x[3], "clearcoatRoughnessTexture", &ma->clearcoat_roughness_texture, NULL);
        add_texref(x[3], "clearcoatNormalTexture", &ma->clearcoat_normal_texture, "scale");
    }
    if (x[4]) {
        cJSON_AddNumberToObject(x[4], "transmissionFactor", ma->transmission_factor);
        add_texref(x[4], "transmissionTexture", &ma->transmission_texture, NULL);
    }
    if (x[5]) {
        cJSON_AddNumberToObject(x[5], "thicknessFactor", ma->thickness_factor);
        add_texref(x[5], "thicknessTexture", &ma->thickness_texture, NULL);
        if (ma->attenuation_distance > 0.0f) {
            cJSON_AddNumberToObject(x[5], "attenuationDistance", ma->attenuation_distance);
        }
        cJSON_AddItemToObject(x[5], "attenuationColor", float_array(ma->attenuation_color, 3));
    }
    if (x[6]) {
        cJSON_AddItemToObject(x[6], "sheenColorFactor", float_array(ma->sheen_color_factor, 3));
        cJSON_AddNumberToObject(x[6], "sheenRoughnessFactor", ma->sheen_roughness_factor);
        add_texref(x[6], "sheenColorTexture", &ma->sheen_color_texture, NULL);
        add_texref(x[6], "sheenRoughnessTexture", &ma->sheen_roughness_texture, NULL);
    }
    write_film_exts(ma, x[7], x[8], x[9]);
}

static void write_materials(const rill_gltf_model *m, cJSON *root) {
    if (!m->material_count) {
        return;
    }
    cJSON *arr = cJSON_AddArrayToObject(root, "materials");
    for (uint32_t i = 0; arr && i < m->material_count; i++) {
        const rill_gltf_material *ma = &m->materials[i];
        cJSON *o = push_named(arr, ma->name);
        if (!o) {
            return;
        }
        cJSON *pbr = cJSON_AddObjectToObject(o, "pbrMetallicRoughness");
        if (pbr) {
            cJSON_AddItemToObject(pbr, "baseColorFactor", float_array(ma->base_color_factor, 4));
            cJSON_AddNumberToObject(pbr, "metallicFactor", ma->metallic_factor);
            cJSON_AddNumberToObject(pbr, "roughnessFactor", ma->roughness_factor);
            add_texref(pbr, "baseColorTexture", &ma->base_color_texture, NULL);
            add_texref(pbr, "metallicRoughnessTexture", &ma->metallic_roughness_texture, NULL);
        }
        add_texref(o, "normalTexture", &ma->normal_texture, "scale");
        add_texref(o, "occlusionTexture", &ma->occlusion_texture, "strength");
        add_texref(o, "emissiveTexture", &ma->emissive_texture, NULL);
        if (ma->emissive_factor[0] != 0.0f || ma->emissive_factor[1] != 0.0f ||
            ma->emissive_factor[2] != 0.0f) {
            cJSON_AddItemToObject(o, "emissiveFactor", float_array(ma->emissive_factor, 3));
        }
        if (ma->emissive_strength > 0.0f && ma->emissive_strength != 1.0f) {
            cJSON *ext = cJSON_AddObjectToObject(o, "extensions");
            cJSON *es = ext ? cJSON_AddObjectToObject(ext, RILL_GLTF_EXT_EMISSIVE_STRENGTH) : NULL;
            if (es) {
                cJSON_AddNumberToObject(es, "emissiveStrength", ma->emissive_strength);
            }
        }
        write_lighting_exts(ma, o);
        if (ma->alpha_mode == RILL_GLTF_ALPHA_MASK) {
            cJSON_AddStringToObject(o, "alphaMode", "MASK");
            cJSON_AddNumberToObject(o, "alphaCutoff", ma->alpha_cutoff);
        } else if (ma->alpha_mode == RILL_GLTF_ALPHA_BLEND) {
            cJSON_AddStringToObject(o, "alphaMode", "BLEND");
        }
        if (ma->double_sided) {
            cJSON_AddBoolToObject(o, "doubleSided", true);
        }
    }
}

static void write_nodes_scenes(const rill_gltf_model *m, cJSON *root) {
    if (m->node_count) {
        cJSON *arr = cJSON_AddArrayToObject(root, "nodes");
        for (uint32_t i = 0; arr && i < m->node_count; i++) {
            const rill_gltf_node *n = &m->nodes[i];
            cJSON *o = push_named(arr, n->name);
            if (!o) {
                return;
            }
            if (n->child_count) {
                cJSON_AddItemToObject(o, "children",
                                      cJSON_CreateIntArray(n->children, (int)n->child_count));
            }
            if (n->mesh >= 0) {
                cJSON_AddNumberToObject(o, "mesh", n->mesh);
            }
            if (n->camera >= 0) {
                cJSON_AddNumberToObject(o, "camera", n->camera);
            }
            if (n->skin >= 0 && (uint32_t)n->skin < m->skin_count) {
                cJSON_AddNumberToObject(o, "skin", n->skin);
            }
            if (n->weight_count) {
                cJSON_AddItemToObject(o, "weights", float_array(n->weights, (int)n->weight_count));
            }
            if (n->has_matrix) {
                cJSON_AddItemToObject(o, "matrix", float_array(n->matrix, 16));
            } else {
                if (n->translation[0] != 0.0f || n->translation[1] != 0.0f ||
                    n->translation[2] != 0.0f) {
                    cJSON_AddItemToObject(o, "translation", float_array(n->translation, 3));
                }
                if (n->rotation[0] != 0.0f || n->rotation[1] != 0.0f || n->rotation[2] != 0.0f ||
                    n->rotation[3] != 1.0f) {
                    cJSON_AddItemToObject(o, "rotation", float_array(n->rotation, 4));
                }
                if (n->scale[0] != 1.0f || n->scale[1] != 1.0f || n->scale[2] != 1.0f) {
                    cJSON_AddItemToObject(o, "scale", float_array(n->scale, 3));
                }
            }
            if (n->light >= 0) {
                cJSON *ext = cJSON_AddObjectToObject(o, "extensions");
                cJSON *lp = ext ? cJSON_AddObjectToObject(ext, "KHR_lights_punctual") : NULL;
                if (lp) {
                    cJSON_AddNumberToObject(lp, "light", n->light);
                }
            }
        }
    }
    if (m->scene_count) {
        cJSON *arr = cJSON_AddArrayToObject(root, "scenes");
        for (uint32_t i = 0; arr && i < m->scene_count; i++) {
            cJSON *o = push_named(arr, m->scenes[i].name);
            if (!o) {
                return;
            }
            if (m->scenes[i].node_count) {
                cJSON_AddItemToObject(
                    o, "nodes",
                    cJSON_CreateIntArray(m->scenes[i].nodes, (int)m->scenes[i].node_count));
            }
        }
    }
    if (m->default_scene >= 0) {
        cJSON_AddNumberToObject(root, "scene", m->default_scene);
    }
}

static void write_cameras_lights(const rill_gltf_model *m, cJSON *root, cJSON *root_ext) {
    if (m->camera_count) {
        cJSON *arr = cJSON_AddArrayToObject(root, "cameras");
        for (uint32_t i = 0; arr && i < m->camera_count; i++) {
            const rill_gltf_camera *c = &m->cameras[i];
            cJSON *o = push_named(arr, c->name);
            if (!o) {
                return;
            }
            if (c->type == RILL_GLTF_CAMERA_ORTHOGRAPHIC) {
                cJSON_AddStringToObject(o, "type", "orthographic");
                cJSON *p = cJSON_AddObjectToObject(o, "orthographic");
                if (p) {
                    cJSON_AddNumberToObject(p, "xmag", c->xmag);
                    cJSON_AddNumberToObject(p, "ymag", c->ymag);
                    cJSON_AddNumberToObject(p, "znear", c->znear);
                    cJSON_AddNumberToObject(p, "zfar", c->zfar);
                }
            } else {
                cJSON_AddStringToObject(o, "type", "perspective");
                cJSON *p = cJSON_AddObjectToObject(o, "perspective");
                if (p) {
                    cJSON_AddNumberToObject(p, "yfov", c->yfov);
                    if (c->aspect_ratio > 0.0f) {
                        cJSON_AddNumberToObject(p, "aspectRatio", c->aspect_ratio);
                    }
                    cJSON_AddNumberToObject(p, "znear", c->znear);
                    if (c->zfar > 0.0f) {
                        cJSON_AddNumberToObject(p, "zfar", c->zfar);
                    }
                }
            }
        }
    }
    if (m->light_count && root_ext) {
        cJSON *lp = cJSON_AddObjectToObject(root_ext, "KHR_lights_punctual");
        cJSON *arr = lp ? cJSON_AddArrayToObject(lp, "lights") : NULL;
        static const char *types[] = {"directional", "point", "spot"};
        for (uint32_t i = 0; arr && i < m->light_count; i++) {
            const rill_gltf_light *l = &m->lights[i];
            cJSON *o = push_named(arr, l->name);
            if (!o) {
                return;
            }
            uint32_t t = (uint32_t)l->type < 3u ? (uint32_t)l->type : 1u;
            cJSON_AddStringToObject(o, "type", types[t]);
            cJSON_AddItemToObject(o, "color", float_array(l->color, 3));
            cJSON_AddNumberToObject(o, "intensity", l->intensity);
            if (l->range > 0.0f && l->type != RILL_GLTF_LIGHT_DIRECTIONAL) {
                cJSON_AddNumberToObject(o, "range", l->range);
            }
            if (l->type == RILL_GLTF_LIGHT_SPOT) {
                cJSON *s = cJSON_AddObjectToObject(o, "spot");
                if (s) {
                    cJSON_AddNumberToObject(s, "innerConeAngle", l->inner_cone_angle);
                    cJSON_AddNumberToObject(s, "outerConeAngle", l->outer_cone_angle);
                }
            }
        }
    }
}

static void write_textures(const rill_gltf_model *m, cJSON *root, wr *w) {
    if (m->sampler_count) {
        cJSON *arr = cJSON_AddArrayToObject(root, "samplers");
        for (uint32_t i = 0; arr && i < m->sampler_count; i++) {
            const rill_gltf_sampler *s = &m->samplers[i];
            cJSON *o = push_named(arr, s->name);
            if (!o) {
                return;
            }
            if (s->mag_filter) {
                cJSON_AddNumberToObject(o, "magFilter", s->mag_filter);
            }
            if (s->min_filter) {
                cJSON_AddNumberToObject(o, "minFilter", s->min_filter);
            }
            if (s->wrap_s && s->wrap_s != 10497) {
                cJSON_AddNumberToObject(o, "wrapS", s->wrap_s);
            }
            if (s->wrap_t && s->wrap_t != 10497) {
                cJSON_AddNumberToObject(o, "wrapT", s->wrap_t);
            }
        }
    }
    if (m->image_count) {
        cJSON *arr = cJSON_AddArrayToObject(root, "images");
        for (uint32_t i = 0; arr && i < m->image_count; i++) {
            const rill_gltf_image *im = &m->images[i];
            cJSON *o = push_named(arr, im->name);
            if (!o) {
                return;
            }
            if (im->data && im->size) {
                int view = add_view(w, im->data, im->size, 0);
                if (view >= 0) {
                    cJSON_AddNumberToObject(o, "bufferView", view);
                }
                cJSON_AddStringToObject(o, "mimeType", image_mime(im));
            } else if (im->uri) {
                char *uri = encode_uri(im->uri);
                if (!uri) {
                    w->oom = true;
                    return;
                }
                cJSON_AddStringToObject(o, "uri", uri);
                rill_free(uri);
                if (im->mime_type) {
                    cJSON_AddStringToObject(o, "mimeType", im->mime_type);
                }
            } else {
                /* No bytes and no file (an empty data URI was read): an empty data URI again,
                 * since a bufferView may not be empty and an image needs a uri or a view. */
                const char *mime = im->mime_type ? im->mime_type : "";
                if (!mime[0] || strlen(mime) > 64 || strpbrk(mime, ",;\"%")) {
                    mime = "image/png"; /* the model's own type only where it reads back as one */
                }
                char uri[96];
                snprintf(uri, sizeof(uri), "data:%s;base64,", mime);
                cJSON_AddStringToObject(o, "uri", uri);
            }
        }
    }
    if (m->texture_count) {
        cJSON *arr = cJSON_AddArrayToObject(root, "textures");
        for (uint32_t i = 0; arr && i < m->texture_count; i++) {
            const rill_gltf_texture *t = &m->textures[i];
            cJSON *o = push_named(arr, t->name);
            if (!o) {
                return;
            }
            if (t->sampler >= 0) {
                cJSON_AddNumberToObject(o, "sampler", t->sampler);
            }
            if (t->image >= 0) {
                cJSON_AddNumberToObject(o, "source", t->image);
            }
        }
    }
}

/* Skins: joints, their inverse bind matrices, the skeleton. */
static void write_skins(const rill_gltf_model *m, cJSON *root, wr *w) {
    cJSON *arr = m->skin_count ? cJSON_AddArrayToObject(root, "skins") : NULL;
    for (uint32_t i = 0; arr && i < m->skin_count; i++) {
        const rill_gltf_skin *sk = &m->skins[i];
        cJSON *o = push_named(arr, sk->name);
        if (!o) {
            w->oom = true;
            return;
        }
        cJSON_AddItemToObject(o, "joints", cJSON_CreateIntArray(sk->joints, (int)sk->joint_count));
        int a =
            add_plain_accessor(w, sk->inverse_bind_matrices, sk->joint_count, 16, "MAT4", false);
        cJSON_AddNumberToObject(o, "inverseBindMatrices", a);
        if (sk->skeleton >= 0) {
            cJSON_AddNumberToObject(o, "skeleton", sk->skeleton);
        }
    }
}

/* A sampler the writer can write: one with keys (the reader leaves the samplers of the channels it
 * drops without any). */
static bool sampler_kept(const rill_gltf_anim_sampler *sa) {
    return sa->key_count && sa->times && sa->values && sa->comps;
}

/* The index sampler k gets among the kept samplers of `an`, or -1 when it is not kept. */
static int kept_index(const rill_gltf_animation *an, uint32_t k) {
    if (k >= an->sampler_count || !sampler_kept(&an->samplers[k])) {
        return -1;
    }
    int n = 0;
    for (uint32_t i = 0; i < k; i++) {
        n += sampler_kept(&an->samplers[i]);
    }
    return n;
}

static void write_sampler(const rill_gltf_animation *an, uint32_t k, cJSON *samplers, wr *w) {
    static const char *const interps[] = {"LINEAR", "STEP", "CUBICSPLINE"};
    const rill_gltf_anim_sampler *sa = &an->samplers[k];
    uint32_t per_key = sa->interpolation == RILL_GLTF_INTERP_CUBICSPLINE ? 3u : 1u;
    uint32_t comps = sa->comps;
    /* Weights values are scalars (comps per key); the others vectors of comps. */
    bool scalar = false;
    for (uint32_t c = 0; c < an->channel_count; c++) {
        scalar |= an->channels[c].sampler == k && an->channels[c].path == RILL_GLTF_ANIM_WEIGHTS;
    }
    uint32_t elems = sa->key_count * per_key * (scalar ? comps : 1u);
    cJSON *so = push_element(w, samplers);
    if (!so) {
        return;
    }
    cJSON_AddNumberToObject(so, "input",
                            add_plain_accessor(w, sa->times, sa->key_count, 1, "SCALAR", true));
    const char *type = scalar ? "SCALAR" : comps == 3 ? "VEC3" : "VEC4";
    cJSON_AddNumberToObject(
        so, "output",
        add_plain_accessor(w, sa->values, elems, scalar ? 1 : (int)comps, type, false));
    cJSON_AddStringToObject(so, "interpolation", interps[sa->interpolation]);
}

/* Clips: each kept sampler's key times (with min/max) and values, each channel on a kept sampler
 * with its node and path; a clip left without channels is not written. */
static void write_animations(const rill_gltf_model *m, cJSON *root, wr *w) {
    static const char *const paths[] = {"translation", "rotation", "scale", "weights"};
    cJSON *arr = NULL;
    for (uint32_t i = 0; i < m->animation_count; i++) {
        const rill_gltf_animation *an = &m->animations[i];
        uint32_t live = 0;
        for (uint32_t k = 0; k < an->channel_count; k++) {
            live += kept_index(an, an->channels[k].sampler) >= 0;
        }
        if (!live) {
            continue;
        }
        arr = arr ? arr : cJSON_AddArrayToObject(root, "animations");
        cJSON *o = arr ? push_named(arr, an->name) : NULL;
        cJSON *samplers = o ? cJSON_AddArrayToObject(o, "samplers") : NULL;
        cJSON *channels = o ? cJSON_AddArrayToObject(o, "channels") : NULL;
        if (!samplers || !channels) {
            w->oom = true;
            return;
        }
        for (uint32_t k = 0; k < an->sampler_count; k++) {
            if (sampler_kept(&an->samplers[k])) {
                write_sampler(an, k, samplers, w);
            }
        }
        for (uint32_t k = 0; k < an->channel_count; k++) {
            const rill_gltf_anim_channel *ch = &an->channels[k];
            int si = kept_index(an, ch->sampler);
            if (si < 0) {
                continue;
            }
            cJSON *co = push_element(w, channels);
            cJSON *t = co ? cJSON_AddObjectToObject(co, "target") : NULL;
            if (!t) {
                w->oom = true;
                return;
            }
            cJSON_AddNumberToObject(co, "sampler", si);
            cJSON_AddNumberToObject(t, "node", ch->node);
            cJSON_AddStringToObject(t, "path", paths[ch->path]);
        }
    }
}

/* KHR_materials_variants on one primitive: a mapping per material its variants draw with (a
 * variant that draws the default material, -1, cannot be mapped and keeps the primitive's). */
static void write_variant_mappings(const rill_gltf_model *m, const rill_gltf_primitive *pr,
                                   cJSON *po) {
    if (!pr->variant_materials || !m->variant_count) {
        return;
    }
    cJSON *ext = cJSON_GetObjectItem(po, "extensions");
    ext = ext ? ext : cJSON_AddObjectToObject(po, "extensions");
    cJSON *v = ext ? cJSON_AddObjectToObject(ext, RILL_GLTF_EXT_VARIANTS) : NULL;
    cJSON *maps = v ? cJSON_AddArrayToObject(v, "mappings") : NULL;
    for (uint32_t i = 0; maps && i < m->variant_count; i++) {
        int32_t mat = pr->variant_materials[i];
        bool first = mat >= 0;
        for (uint32_t j = 0; first && j < i; j++) {
            first = pr->variant_materials[j] != mat;
        }
        cJSON *mo = first ? push_object(maps) : NULL;
        cJSON *vars = mo ? cJSON_AddArrayToObject(mo, "variants") : NULL;
        if (!vars) {
            continue;
        }
        cJSON_AddNumberToObject(mo, "material", mat);
        for (uint32_t j = i; j < m->variant_count; j++) {
            if (pr->variant_materials[j] == mat) {
                cJSON_AddItemToArray(vars, cJSON_CreateNumber(j));
            }
        }
    }
}

/* The file's variant names (root extensions) when it has any. */
static void write_variant_names(const rill_gltf_model *m, cJSON *root_ext, cJSON *used) {
    if (!m->variant_count) {
        return;
    }
    cJSON *v = cJSON_AddObjectToObject(root_ext, RILL_GLTF_EXT_VARIANTS);
    cJSON *arr = v ? cJSON_AddArrayToObject(v, "variants") : NULL;
    for (uint32_t i = 0; arr && i < m->variant_count; i++) {
        cJSON *o = push_object(arr);
        if (o) {
            cJSON_AddStringToObject(o, "name", m->variant_names[i] ? m->variant_names[i] : "");
        }
    }
    if (used) {
        cJSON_AddItemToArray(used, cJSON_CreateString(RILL_GLTF_EXT_VARIANTS));
    }
}

static bool write_meshes(const rill_gltf_model *m, const rill_glb_write_desc *d, cJSON *root, wr *w,
                         bool *used_edges) {
    if (!m->mesh_count) {
        return true;
    }
    cJSON *arr = cJSON_AddArrayToObject(root, "meshes");
    for (uint32_t i = 0; arr && i < m->mesh_count; i++) {
        const rill_gltf_mesh *mesh = &m->meshes[i];
        cJSON *o = push_named(arr, mesh->name);
        if (!o) {
            return false;
        }
        if (mesh->weight_count) {
            cJSON_AddItemToObject(o, "weights",
                                  float_array(mesh->weights, (int)mesh->weight_count));
        }
        cJSON *prims = cJSON_AddArrayToObject(o, "primitives");
        for (uint32_t p = 0; prims && p < mesh->primitive_count; p++) {
            const rill_gltf_primitive *pr = &mesh->primitives[p];
            cJSON *po = push_object(prims);
            if (!po) {
                return false;
            }
            cJSON *attrs = cJSON_AddObjectToObject(po, "attributes");
            if (!attrs) {
                return false;
            }
            uint32_t n = pr->vertex_count;
            int a = add_float_accessor(w, pr->positions, n, 3, "VEC3", true);
            cJSON_AddNumberToObject(attrs, "POSITION", a);
            if (pr->normals) {
                a = add_float_accessor(w, pr->normals, n, 3, "VEC3", false);
                cJSON_AddNumberToObject(attrs, "NORMAL", a);
            }
            if (pr->tangents) {
                a = add_float_accessor(w, pr->tangents, n, 4, "VEC4", false);
                cJSON_AddNumberToObject(attrs, "TANGENT", a);
            }
            if (pr->uv0) {
                a = add_float_accessor(w, pr->uv0, n, 2, "VEC2", false);
                cJSON_AddNumberToObject(attrs, "TEXCOORD_0", a);
            }
            if (pr->uv1) {
                a = add_float_accessor(w, pr->uv1, n, 2, "VEC2", false);
                cJSON_AddNumberToObject(attrs, "TEXCOORD_1", a);
            }
            if (pr->colors) {
                a = add_float_accessor(w, pr->colors, n, 4, "VEC4", false);
                cJSON_AddNumberToObject(attrs, "COLOR_0", a);
            }
            if (pr->joints && pr->weights) {
                a = add_joints_accessor(w, pr->joints, n);
                cJSON_AddNumberToObject(attrs, "JOINTS_0", a);
                a = add_float_accessor(w, pr->weights, n, 4, "VEC4", false);
                cJSON_AddNumberToObject(attrs, "WEIGHTS_0", a);
            }
            if (pr->target_count) {
                write_targets(w, po, pr);
            }
            a = add_index_accessor(w, pr->indices, pr->index_count, n);
            cJSON_AddNumberToObject(po, "indices", a);
            if (pr->material >= 0) {
                cJSON_AddNumberToObject(po, "material", pr->material);
            }
            cJSON_AddNumberToObject(po, "mode", 4);
            if (pr->edge_index_count && !d->skip_edges) {
                a = add_index_accessor(w, pr->edge_indices, pr->edge_index_count, n);
                cJSON *ext = cJSON_AddObjectToObject(po, "extensions");
                cJSON *e = ext ? cJSON_AddObjectToObject(ext, RILL_GLTF_EXT_MESH_EDGES) : NULL;
                if (e) {
                    cJSON_AddNumberToObject(e, "edges", a);
                }
                *used_edges = true;
            }
            write_variant_mappings(m, pr, po);
            if (w->oom) {
                return false;
            }
        }
    }
    return !w->oom;
}

rill_result rill_glb_write_memory(const rill_gltf_model *model, const rill_glb_write_desc *desc,
                                  uint8_t **out_data, size_t *out_size, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_glb_write_memory", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    rill__formats_lib_hooks();
    if (out_data) {
        *out_data = NULL;
    }
    if (out_size) {
        *out_size = 0;
    }
    if (!model || !out_data || !out_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_glb_write_memory: model, out_data and out_size are required");
    }
    rill_result res = validate(model, err);
    if (res != RILL_OK) {
        return res;
    }
    rill_glb_write_desc d = desc ? *desc : (rill_glb_write_desc){0};
    wr w = {0};
    cJSON *root = cJSON_CreateObject();
    char *json = NULL;
    res = RILL_ERR_OUT_OF_MEMORY;
    if (!root) {
        goto done;
    }
    cJSON *asset = cJSON_AddObjectToObject(root, "asset");
    if (!asset) {
        goto done;
    }
    cJSON_AddStringToObject(asset, "version", "2.0");
    cJSON_AddStringToObject(asset, "generator", d.generator ? d.generator : "rill");
    /* Views and accessors are filled while meshes and images are written, then attached. */
    w.views = cJSON_CreateArray();
    w.accessors = cJSON_CreateArray();
    cJSON *root_ext = cJSON_CreateObject();
    if (!w.views || !w.accessors || !root_ext) {
        cJSON_Delete(root_ext);
        goto done;
    }
    bool used_edges = false;
    bool ok = write_meshes(model, &d, root, &w, &used_edges);
    write_materials(model, root);
    write_textures(model, root, &w);
    write_nodes_scenes(model, root);
    write_cameras_lights(model, root, root_ext);
    write_skins(model, root, &w);
    write_animations(model, root, &w);
    if (!ok || w.oom) {
        cJSON_Delete(root_ext);
        goto done;
    }
    bool used_xf = uses_texture_transform(model);
    bool used_es = false;
    unsigned used_lit = 0;
    for (uint32_t i = 0; i < model->material_count; i++) {
        used_es |= model->materials[i].emissive_strength > 0.0f &&
                   model->materials[i].emissive_strength != 1.0f;
        used_lit |= material_lighting_exts(&model->materials[i]);
    }
    cJSON *used = NULL;
    if (used_edges || model->light_count || used_xf || used_es || used_lit ||
        model->variant_count) {
        used = cJSON_AddArrayToObject(root, "extensionsUsed");
        if (used && used_es) {
            cJSON_AddItemToArray(used, cJSON_CreateString(RILL_GLTF_EXT_EMISSIVE_STRENGTH));
        }
        for (int k = 0; used && k < LIGHTING_EXTS; k++) {
            if (used_lit & (1u << k)) {
                cJSON_AddItemToArray(used, cJSON_CreateString(k_lighting_exts[k]));
            }
        }
        if (used && used_xf) {
            cJSON_AddItemToArray(used, cJSON_CreateString(RILL_GLTF_EXT_TEXTURE_TRANSFORM));
        }
        if (used && used_edges) {
            cJSON_AddItemToArray(used, cJSON_CreateString(RILL_GLTF_EXT_MESH_EDGES));
        }
        if (used && model->light_count) {
            cJSON_AddItemToArray(used, cJSON_CreateString("KHR_lights_punctual"));
        }
    }
    write_variant_names(model, root_ext, used);
    if (cJSON_GetArraySize(root_ext) > 0) {
        cJSON_AddItemToObject(root, "extensions", root_ext);
    } else {
        cJSON_Delete(root_ext);
    }
    if (w.accessor_count) {
        cJSON_AddItemToObject(root, "accessors", w.accessors);
        w.accessors = NULL;
    }
    if (w.view_count) {
        cJSON_AddItemToObject(root, "bufferViews", w.views);
        w.views = NULL;
        cJSON *bufs = cJSON_AddArrayToObject(root, "buffers");
        cJSON *b = bufs ? push_object(bufs) : NULL;
        if (!b) {
            goto done;
        }
        cJSON_AddNumberToObject(b, "byteLength", (double)w.bin_len);
    }
    json = cJSON_PrintUnformatted(root);
    if (!json) {
        goto done;
    }
    size_t json_len = strlen(json);
    size_t json_padded = RILL_ALIGN_UP(json_len, (size_t)4);
    size_t bin_padded = RILL_ALIGN_UP(w.bin_len, (size_t)4);
    size_t total = 12 + 8 + json_padded + (w.bin_len ? 8 + bin_padded : 0);
    if (total > UINT32_MAX) {
        res = rill_error_set(err, RILL_ERR_LIMIT, "glb larger than 4 GiB");
        goto done;
    }
    uint8_t *out = rill_malloc_tagged(total, RILL_MEM_FORMATS);
    if (!out) {
        goto done;
    }
    uint32_t hdr[5] = {0x46546C67u, 2u, (uint32_t)total, (uint32_t)json_padded, 0x4E4F534Au};
    memcpy(out, hdr, 20);
    memcpy(out + 20, json, json_len);
    memset(out + 20 + json_len, ' ', json_padded - json_len);
    if (w.bin_len) {
        uint8_t *p = out + 20 + json_padded;
        uint32_t ch[2] = {(uint32_t)bin_padded, 0x004E4942u};
        memcpy(p, ch, 8);
        memcpy(p + 8, w.bin, w.bin_len);
        memset(p + 8 + w.bin_len, 0, bin_padded - w.bin_len);
    }
    *out_data = out;
    *out_size = total;
    res = RILL_OK;
done:
    if (res == RILL_ERR_OUT_OF_MEMORY) {
        rill_error_set(err, res, "glb writer: out of memory");
    }
    cJSON_free(json);
    cJSON_Delete(root);
    cJSON_Delete(w.views);
    cJSON_Delete(w.accessors);
    rill_free(w.bin);
    return res;
}

rill_result rill_glb_write_file(const rill_gltf_model *model, const char *path,
                                const rill_glb_write_desc *desc, rill_error *err) {
    if (!path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_glb_write_file: no path");
    }
    uint8_t *data;
    size_t size;
    rill_result res = rill_glb_write_memory(model, desc, &data, &size, err);
    if (res != RILL_OK) {
        return res;
    }
    res = rill_file_write_all(path, data, size, err);
    rill_free(data);
    return res;
}
