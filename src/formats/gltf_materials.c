/* gltf_materials.c: the glTF reader's samplers, textures, images and materials (metallic-roughness
 * and the KHR_materials_* / KHR_texture_transform extensions Rill reads). */
#include "gltf_read_internal.h"

#include "rill/world.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* >>materials, textures, images --------------------------------------------------------------- */

/* KHR_texture_transform on a texture reference: offset [0, 0], rotation 0, scale [1, 1] and an
 * optional texCoord override, as the extension defines them. */
static rill_result texture_transform(rd *r, const rill__gj *t, const char *tw,
                                     rill_gltf_texref *out) {
    out->has_transform = false;
    out->offset[0] = out->offset[1] = 0.0f;
    out->rotation = 0.0f;
    out->uv_scale[0] = out->uv_scale[1] = 1.0f;
    out->transform_texcoord = -1;
    const rill__gj *ext, *x;
    RILL_TRY(rill__rd_js_member_object(r, t, "extensions", tw, &ext));
    if (!ext) {
        return RILL_OK;
    }
    char xw[200];
    snprintf(xw, sizeof(xw), "%s.extensions", tw);
    RILL_TRY(rill__rd_js_member_object(r, ext, RILL_GLTF_EXT_TEXTURE_TRANSFORM, xw, &x));
    if (!x) {
        return RILL_OK;
    }
    snprintf(xw, sizeof(xw), "%s.extensions.%s", tw, RILL_GLTF_EXT_TEXTURE_TRANSFORM);
    out->has_transform = true;
    RILL_TRY(rill__rd_js_floats(r, x, "offset", xw, 2, out->offset, NULL));
    RILL_TRY(rill__rd_js_float(r, x, "rotation", xw, 0.0f, &out->rotation));
    RILL_TRY(rill__rd_js_floats(r, x, "scale", xw, 2, out->uv_scale, NULL));
    if (rill__gj_get(x, "texCoord")) {
        uint64_t tc = 0;
        RILL_TRY(rill__rd_js_uint(r, x, "texCoord", xw, 0, 255, &tc));
        out->transform_texcoord = (int32_t)tc;
    }
    return RILL_OK;
}

static rill_result texref(rd *r, const rill__gj *obj, const char *key, const char *where,
                          const char *scale_key, rill_gltf_texref *out) {
    out->texture = -1;
    out->texcoord = 0;
    out->scale = 1.0f;
    const rill__gj *t;
    RILL_TRY(rill__rd_js_member_object(r, obj, key, where, &t));
    if (!t) {
        return RILL_OK;
    }
    char tw[160];
    snprintf(tw, sizeof(tw), "%s.%s", where, key);
    RILL_TRY(rill__rd_check_extensions(r, t, tw));
    RILL_TRY(rill__rd_js_index(r, t, "index", tw, r->m->texture_count, "texture", &out->texture));
    if (out->texture < 0) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.index: missing", tw);
    }
    uint64_t tc = 0;
    RILL_TRY(rill__rd_js_uint(r, t, "texCoord", tw, 0, 255, &tc));
    out->texcoord = (uint32_t)tc;
    if (scale_key) {
        RILL_TRY(rill__rd_js_float(r, t, scale_key, tw, 1.0f, &out->scale));
    }
    return texture_transform(r, t, tw, out);
}

/* KHR_materials_emissive_strength: a finite, non-negative multiplier of the emissive factor. */
static rill_result emissive_strength(rd *r, const rill__gj *ma, const char *where,
                                     rill_gltf_material *mat) {
    const rill__gj *ext = rill__gj_get(ma, "extensions");
    const rill__gj *es = ext ? rill__gj_get(ext, RILL_GLTF_EXT_EMISSIVE_STRENGTH) : NULL;
    if (!es) {
        return RILL_OK;
    }
    char ew[160];
    snprintf(ew, sizeof(ew), "%s.extensions." RILL_GLTF_EXT_EMISSIVE_STRENGTH, where);
    float v = 1.0f;
    RILL_TRY(rill__rd_js_float(r, es, "emissiveStrength", ew, 1.0f, &v));
    if (v < 0.0f || v > 1e6f) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.emissiveStrength: %g is out of range [0, 1e6]", ew, (double)v);
    }
    if (v == 0.0f) {
        mat->emissive_factor[0] = mat->emissive_factor[1] = mat->emissive_factor[2] = 0.0f;
        return RILL_OK;
    }
    mat->emissive_strength = v == 1.0f ? 0.0f : v;
    return RILL_OK;
}

/* One factor of a material extension: a finite number in [lo, hi], def when absent. */
static rill_result ext_factor(rd *r, const rill__gj *x, const char *key, const char *xw, float def,
                              float lo, float hi, float *out) {
    RILL_TRY(rill__rd_js_float(r, x, key, xw, def, out));
    if (!(*out >= lo && *out <= hi)) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.%s: %g is out of range [%g, %g]", xw, key,
                             (double)*out, (double)lo, (double)hi);
    }
    return RILL_OK;
}

/* A texture reference no file gave: texture -1, UV set 0, scale 1, no transform. */
static void texref_none(rill_gltf_texref *t) {
    memset(t, 0, sizeof(*t));
    t->texture = -1;
    t->scale = 1.0f;
    t->uv_scale[0] = t->uv_scale[1] = 1.0f;
    t->transform_texcoord = -1;
}

/* KHR_materials_specular: the factor and colour (0 to 1e6 each) and their two textures. */
static rill_result specular_ext(rd *r, const rill__gj *x, const char *xw, rill_gltf_material *mat) {
    mat->has_specular = true;
    RILL_TRY(ext_factor(r, x, "specularFactor", xw, 1.0f, 0.0f, 1.0f, &mat->specular_factor));
    float c[3] = {1.0f, 1.0f, 1.0f};
    RILL_TRY(rill__rd_js_floats(r, x, "specularColorFactor", xw, 3, c, NULL));
    for (int k = 0; k < 3; k++) {
        if (!(c[k] >= 0.0f && c[k] <= 1e6f)) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.specularColorFactor[%d]: %g is out of range [0, 1e6]", xw, k,
                                 (double)c[k]);
        }
        mat->specular_color_factor[k] = c[k];
    }
    RILL_TRY(texref(r, x, "specularTexture", xw, NULL, &mat->specular_texture));
    return texref(r, x, "specularColorTexture", xw, NULL, &mat->specular_color_texture);
}

/* KHR_materials_clearcoat: strength and roughness (0 to 1) and the three textures. */
static rill_result clearcoat_ext(rd *r, const rill__gj *x, const char *xw,
                                 rill_gltf_material *mat) {
    RILL_TRY(ext_factor(r, x, "clearcoatFactor", xw, 0.0f, 0.0f, 1.0f, &mat->clearcoat_factor));
    RILL_TRY(ext_factor(r, x, "clearcoatRoughnessFactor", xw, 0.0f, 0.0f, 1.0f,
                        &mat->clearcoat_roughness_factor));
    RILL_TRY(texref(r, x, "clearcoatTexture", xw, NULL, &mat->clearcoat_texture));
    RILL_TRY(
        texref(r, x, "clearcoatRoughnessTexture", xw, NULL, &mat->clearcoat_roughness_texture));
    RILL_TRY(texref(r, x, "clearcoatNormalTexture", xw, "scale", &mat->clearcoat_normal_texture));
    if (!(fabsf(mat->clearcoat_normal_texture.scale) <= 1e3f)) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.clearcoatNormalTexture.scale: %g is out of range [-1000, 1000]",
                             xw, (double)mat->clearcoat_normal_texture.scale);
    }
    return RILL_OK;
}

/* KHR_materials_transmission: the factor (0 to 1) and its texture. */
static rill_result transmission_ext(rd *r, const rill__gj *x, const char *xw,
                                    rill_gltf_material *mat) {
    RILL_TRY(
        ext_factor(r, x, "transmissionFactor", xw, 0.0f, 0.0f, 1.0f, &mat->transmission_factor));
    return texref(r, x, "transmissionTexture", xw, NULL, &mat->transmission_texture);
}

/* KHR_materials_volume: thickness (0 to 1e6), its texture, the attenuation distance (positive;
 * absent: infinite, kept as 0) and colour (0 to 1). */
static rill_result volume_ext(rd *r, const rill__gj *x, const char *xw, rill_gltf_material *mat) {
    mat->has_volume = true;
    RILL_TRY(ext_factor(r, x, "thicknessFactor", xw, 0.0f, 0.0f, 1e6f, &mat->thickness_factor));
    RILL_TRY(texref(r, x, "thicknessTexture", xw, NULL, &mat->thickness_texture));
    mat->attenuation_distance = 0.0f;
    if (rill__gj_get(x, "attenuationDistance")) {
        RILL_TRY(ext_factor(r, x, "attenuationDistance", xw, 0.0f, 1e-6f, 1e30f,
                            &mat->attenuation_distance));
    }
    float c[3] = {1.0f, 1.0f, 1.0f};
    RILL_TRY(rill__rd_js_floats(r, x, "attenuationColor", xw, 3, c, NULL));
    for (int k = 0; k < 3; k++) {
        if (!(c[k] >= 0.0f && c[k] <= 1.0f)) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.attenuationColor[%d]: %g is out of range [0, 1]", xw, k,
                                 (double)c[k]);
        }
        mat->attenuation_color[k] = c[k];
    }
    return RILL_OK;
}

/* KHR_materials_sheen: colour (0 to 1 each), roughness (0 to 1) and their textures. */
static rill_result sheen_ext(rd *r, const rill__gj *x, const char *xw, rill_gltf_material *mat) {
    mat->has_sheen = true;
    float c[3] = {0.0f, 0.0f, 0.0f};
    RILL_TRY(rill__rd_js_floats(r, x, "sheenColorFactor", xw, 3, c, NULL));
    for (int k = 0; k < 3; k++) {
        if (!(c[k] >= 0.0f && c[k] <= 1.0f)) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s.sheenColorFactor[%d]: %g is out of range [0, 1]", xw, k,
                                 (double)c[k]);
        }
        mat->sheen_color_factor[k] = c[k];
    }
    RILL_TRY(ext_factor(r, x, "sheenRoughnessFactor", xw, 0.0f, 0.0f, 1.0f,
                        &mat->sheen_roughness_factor));
    RILL_TRY(texref(r, x, "sheenColorTexture", xw, NULL, &mat->sheen_color_texture));
    return texref(r, x, "sheenRoughnessTexture", xw, NULL, &mat->sheen_roughness_texture);
}

/* KHR_materials_iridescence: the strength (0 to 1), the film's ior (1 to 1000), its thickness
 * range in nanometres (0 to 1e6 each) and the two textures. */
static rill_result iridescence_ext(rd *r, const rill__gj *x, const char *xw,
                                   rill_gltf_material *mat) {
    RILL_TRY(ext_factor(r, x, "iridescenceFactor", xw, 0.0f, 0.0f, 1.0f, &mat->iridescence_factor));
    RILL_TRY(texref(r, x, "iridescenceTexture", xw, NULL, &mat->iridescence_texture));
    RILL_TRY(ext_factor(r, x, "iridescenceIor", xw, 1.3f, 1.0f, 1e3f, &mat->iridescence_ior));
    RILL_TRY(ext_factor(r, x, "iridescenceThicknessMinimum", xw, 100.0f, 0.0f, 1e6f,
                        &mat->iridescence_thickness_min));
    RILL_TRY(ext_factor(r, x, "iridescenceThicknessMaximum", xw, 400.0f, 0.0f, 1e6f,
                        &mat->iridescence_thickness_max));
    return texref(r, x, "iridescenceThicknessTexture", xw, NULL,
                  &mat->iridescence_thickness_texture);
}

/* KHR_materials_anisotropy: the strength (0 to 1), the rotation (radians, at most 1e6 either
 * way) and the direction texture. */
static rill_result anisotropy_ext(rd *r, const rill__gj *x, const char *xw,
                                  rill_gltf_material *mat) {
    RILL_TRY(
        ext_factor(r, x, "anisotropyStrength", xw, 0.0f, 0.0f, 1.0f, &mat->anisotropy_strength));
    RILL_TRY(
        ext_factor(r, x, "anisotropyRotation", xw, 0.0f, -1e6f, 1e6f, &mat->anisotropy_rotation));
    return texref(r, x, "anisotropyTexture", xw, NULL, &mat->anisotropy_texture);
}

/* KHR_materials_unlit, _ior, _specular, _clearcoat, _transmission, _volume, _sheen,
 * _iridescence, _anisotropy and _dispersion: factors and textures. Out-of-range factors and bad
 * texture references refuse the file naming the place.
 */
static rill_result material_lighting_exts(rd *r, const rill__gj *ma, const char *where,
                                          rill_gltf_material *mat) {
    const rill__gj *ext = rill__gj_get(ma, "extensions"), *x;
    char xw[192];
    texref_none(&mat->specular_texture);
    texref_none(&mat->specular_color_texture);
    texref_none(&mat->clearcoat_texture);
    texref_none(&mat->clearcoat_roughness_texture);
    texref_none(&mat->clearcoat_normal_texture);
    texref_none(&mat->transmission_texture);
    texref_none(&mat->thickness_texture);
    texref_none(&mat->sheen_color_texture);
    texref_none(&mat->sheen_roughness_texture);
    texref_none(&mat->iridescence_texture);
    texref_none(&mat->iridescence_thickness_texture);
    texref_none(&mat->anisotropy_texture);
    mat->iridescence_ior = 1.3f;
    mat->iridescence_thickness_min = 100.0f;
    mat->iridescence_thickness_max = 400.0f;
    mat->attenuation_color[0] = mat->attenuation_color[1] = mat->attenuation_color[2] = 1.0f;
    mat->unlit = ext && rill__gj_get(ext, RILL_GLTF_EXT_UNLIT);
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_IOR)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_IOR, where);
        RILL_TRY(ext_factor(r, x, "ior", xw, 1.5f, 1.0f, 1e3f, &mat->ior));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_SPECULAR)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_SPECULAR, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(specular_ext(r, x, xw, mat));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_CLEARCOAT)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_CLEARCOAT, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(clearcoat_ext(r, x, xw, mat));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_TRANSMISSION)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_TRANSMISSION, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(transmission_ext(r, x, xw, mat));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_VOLUME)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_VOLUME, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(volume_ext(r, x, xw, mat));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_SHEEN)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_SHEEN, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(sheen_ext(r, x, xw, mat));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_IRIDESCENCE)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_IRIDESCENCE, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(iridescence_ext(r, x, xw, mat));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_ANISOTROPY)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_ANISOTROPY, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(anisotropy_ext(r, x, xw, mat));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_DISPERSION)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_DISPERSION, where);
        RILL_TRY(rill__rd_js_object(r, x, xw));
        RILL_TRY(ext_factor(r, x, "dispersion", xw, 0.0f, 0.0f, 1e3f, &mat->dispersion));
    }
    return RILL_OK;
}

rill_result rill__rd_read_materials(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "materials", "", &arr, &count));
    if (count) {
        r->m->materials = rill__gltf_alloc(count, sizeof(rill_gltf_material));
        if (!r->m->materials) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "materials: out of memory");
        }
    }
    const rill__gj *ma;
    RILL__GJ_FOR(ma, arr) {
        uint32_t i = r->m->material_count;
        rill_gltf_material *mat = &r->m->materials[i];
        r->m->material_count++;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "materials", i);
        RILL_TRY(rill__rd_js_object(r, ma, where));
        RILL_TRY(rill__rd_js_name(r, ma, where, &mat->name));
        RILL_TRY(rill__rd_check_extensions(r, ma, where));
        const rill__gj *pbr;
        RILL_TRY(rill__rd_js_member_object(r, ma, "pbrMetallicRoughness", where, &pbr));
        char pw[96];
        snprintf(pw, sizeof(pw), "%s.pbrMetallicRoughness", where);
        static const rill__gj empty = {.type = RILL__GJ_OBJECT};
        const rill__gj *pb = pbr ? pbr : &empty;
        mat->base_color_factor[0] = mat->base_color_factor[1] = mat->base_color_factor[2] = 1.0f;
        mat->base_color_factor[3] = 1.0f;
        RILL_TRY(rill__rd_js_floats(r, pb, "baseColorFactor", pw, 4, mat->base_color_factor, NULL));
        RILL_TRY(rill__rd_js_float(r, pb, "metallicFactor", pw, 1.0f, &mat->metallic_factor));
        RILL_TRY(rill__rd_js_float(r, pb, "roughnessFactor", pw, 1.0f, &mat->roughness_factor));
        RILL_TRY(texref(r, pb, "baseColorTexture", pw, NULL, &mat->base_color_texture));
        RILL_TRY(
            texref(r, pb, "metallicRoughnessTexture", pw, NULL, &mat->metallic_roughness_texture));
        RILL_TRY(texref(r, ma, "normalTexture", where, "scale", &mat->normal_texture));
        RILL_TRY(texref(r, ma, "occlusionTexture", where, "strength", &mat->occlusion_texture));
        RILL_TRY(texref(r, ma, "emissiveTexture", where, NULL, &mat->emissive_texture));
        RILL_TRY(rill__rd_js_floats(r, ma, "emissiveFactor", where, 3, mat->emissive_factor, NULL));
        RILL_TRY(emissive_strength(r, ma, where, mat));
        RILL_TRY(material_lighting_exts(r, ma, where, mat));
        const char *mode;
        RILL_TRY(rill__rd_js_str(r, ma, "alphaMode", where, &mode));
        mat->alpha_mode = RILL_GLTF_ALPHA_OPAQUE;
        if (mode && strcmp(mode, "MASK") == 0) {
            mat->alpha_mode = RILL_GLTF_ALPHA_MASK;
        } else if (mode && strcmp(mode, "BLEND") == 0) {
            mat->alpha_mode = RILL_GLTF_ALPHA_BLEND;
        } else if (mode && strcmp(mode, "OPAQUE") != 0) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.alphaMode: unknown \"%s\"", where, mode);
        }
        RILL_TRY(rill__rd_js_float(r, ma, "alphaCutoff", where, 0.5f, &mat->alpha_cutoff));
        if (mat->alpha_cutoff < 0.0f) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.alphaCutoff: negative", where);
        }
        RILL_TRY(rill__rd_js_bool(r, ma, "doubleSided", where, &mat->double_sided));
    }
    return RILL_OK;
}

rill_result rill__rd_read_samplers_textures(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "samplers", "", &arr, &count));
    if (count) {
        r->m->samplers = rill__gltf_alloc(count, sizeof(rill_gltf_sampler));
        if (!r->m->samplers) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "samplers: out of memory");
        }
    }
    const rill__gj *s;
    RILL__GJ_FOR(s, arr) {
        uint32_t i = r->m->sampler_count;
        rill_gltf_sampler *smp = &r->m->samplers[i];
        r->m->sampler_count++;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "samplers", i);
        RILL_TRY(rill__rd_js_object(r, s, where));
        RILL_TRY(rill__rd_js_name(r, s, where, &smp->name));
        uint64_t v = 0;
        RILL_TRY(rill__rd_js_uint(r, s, "magFilter", where, 0, 65535, &v));
        smp->mag_filter = (uint32_t)v;
        RILL_TRY(rill__rd_js_uint(r, s, "minFilter", where, 0, 65535, &v));
        smp->min_filter = (uint32_t)v;
        RILL_TRY(rill__rd_js_uint(r, s, "wrapS", where, 10497, 65535, &v));
        smp->wrap_s = (uint32_t)v;
        RILL_TRY(rill__rd_js_uint(r, s, "wrapT", where, 10497, 65535, &v));
        smp->wrap_t = (uint32_t)v;
    }
    RILL_TRY(rill__rd_js_array(r, r->root, "images", "", &arr, &count));
    uint32_t image_count = count;
    RILL_TRY(rill__rd_js_array(r, r->root, "textures", "", &arr, &count));
    if (count) {
        r->m->textures = rill__gltf_alloc(count, sizeof(rill_gltf_texture));
        if (!r->m->textures) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "textures: out of memory");
        }
    }
    const rill__gj *t;
    RILL__GJ_FOR(t, arr) {
        uint32_t i = r->m->texture_count;
        rill_gltf_texture *tex = &r->m->textures[i];
        r->m->texture_count++;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "textures", i);
        RILL_TRY(rill__rd_js_object(r, t, where));
        RILL_TRY(rill__rd_js_name(r, t, where, &tex->name));
        RILL_TRY(rill__rd_js_index(r, t, "sampler", where, r->m->sampler_count, "sampler",
                                   &tex->sampler));
        RILL_TRY(rill__rd_js_index(r, t, "source", where, image_count, "image", &tex->image));
    }
    return RILL_OK;
}

rill_result rill__rd_read_images(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "images", "", &arr, &count));
    if (count) {
        r->m->images = rill__gltf_alloc(count, sizeof(rill_gltf_image));
        if (!r->m->images) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "images: out of memory");
        }
    }
    const rill__gj *im;
    RILL__GJ_FOR(im, arr) {
        uint32_t i = r->m->image_count;
        rill_gltf_image *img = &r->m->images[i];
        r->m->image_count++;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "images", i);
        RILL_TRY(rill__rd_js_object(r, im, where));
        RILL_TRY(rill__rd_js_name(r, im, where, &img->name));
        const char *uri, *mime;
        RILL_TRY(rill__rd_js_str(r, im, "uri", where, &uri));
        RILL_TRY(rill__rd_js_str(r, im, "mimeType", where, &mime));
        int32_t view;
        RILL_TRY(rill__rd_js_index(r, im, "bufferView", where, r->view_count, "bufferView", &view));
        if ((uri != NULL) == (view >= 0)) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s: needs exactly one of uri and bufferView",
                                 where);
        }
        if (mime) {
            img->mime_type = rill__gltf_strdup(mime);
        }
        char uw[80];
        snprintf(uw, sizeof(uw), "%s.uri", where);
        if (view >= 0) {
            const rd_view *v = &r->views[view];
            if (v->length) {
                RILL_TRY(rill__rd_charge(r, v->length, where, ""));
                img->data = rill_malloc_tagged(v->length, RILL_MEM_FORMATS);
                if (!img->data) {
                    return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
                }
                memcpy(img->data, rill__rd_view_bytes(r, v), v->length);
                img->size = v->length;
            }
        } else if (strncmp(uri, "data:", 5) == 0) {
            const char *dmime;
            size_t dmime_len;
            RILL_TRY(
                rill__rd_decode_data_uri(r, uri, uw, &img->data, &img->size, &dmime, &dmime_len));
            if (!img->mime_type && dmime_len) {
                img->mime_type = rill_malloc_tagged(dmime_len + 1, RILL_MEM_FORMATS);
                if (img->mime_type) {
                    memcpy(img->mime_type, dmime, dmime_len);
                    img->mime_type[dmime_len] = '\0';
                }
            }
        } else if (strncmp(uri, RILL_GLTF_TARGET_SCHEME, strlen(RILL_GLTF_TARGET_SCHEME)) == 0) {
            /* A render texture by name (Rill's: a Camera.target draws it), kept as written. */
            if (!uri[strlen(RILL_GLTF_TARGET_SCHEME)] || strlen(uri) > 70) {
                return rill__rd_fail(r, RILL_ERR_PARSE,
                                     "%s: render texture name of 1 to 63 characters", uw);
            }
            img->uri = rill__gltf_strdup(uri);
            if (!img->uri) {
                return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        } else {
            char rel[1024];
            RILL_TRY(rill__rd_resolve_relative_uri(r, uri, uw, rel, sizeof(rel)));
            img->uri = rill__gltf_strdup(rel);
            if (!img->uri) {
                return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        }
    }
    return RILL_OK;
}
