/* model.c: glTF model -> renderer resources (see rill_render_model in rill/render.h). Images are
 * decoded with the formats module; textures used as base color or emissive are sRGB, others
 * linear. Instances come from the default scene's node hierarchy. */
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/formats/export.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip.h"

#define LOGM "render"

/* Where external image URIs are read from: a disk folder, or a VFS and the model's VFS path.
 * With origins (the render asset cache), images read through the VFS are recorded there, a
 * texture share finds is taken instead of loading the image again, and with start_low .rmip
 * textures are read as their "#low" tail only. */
typedef struct image_source {
    const char *base_dir;
    rill_vfs *vfs;
    const char *model_path;
    rill__tex_origin *origins; /* texture_count entries, or NULL */
    const rill__tex_share *share;
    bool start_low;
} image_source;

/* The model a warning names: its VFS path, else the folder its images are read from. */
static const char *model_name(const image_source *src) {
    return src->model_path ? src->model_path : src->base_dir ? src->base_dir : "model";
}

/* One texture that could not be made: the material draws with the placeholder instead. */
static void warn_texture(const image_source *src, int32_t ti, const char *why) {
    RILL_LOG_WARN(LOGM, "%s: texture %d: %s; placeholder used", model_name(src), ti, why);
}

/* The VFS path an external image URI names (the exported .rmip when it exists). */
static bool vfs_pick(const image_source *src, int32_t ti, const char *uri, char *out, size_t cap) {
    char path[1024], dir[1024], rmip[1024];
    rill_path_dirname(dir, sizeof(dir), src->model_path ? src->model_path : "");
    if (!rill_path_join(path, sizeof(path), dir, uri) ||
        !rill_path_normalize(path, sizeof(path), path)) {
        RILL_LOG_WARN(LOGM, "%s: texture %d: image '%s': bad path; placeholder used",
                      model_name(src), ti, uri);
        return false;
    }
    const char *pick = path;
    if (rill_export_output_path(rmip, sizeof(rmip), path) && strcmp(rmip, path) != 0 &&
        rill_vfs_exists(src->vfs, rmip)) {
        pick = rmip;
    }
    return (size_t)snprintf(out, cap, "%s", pick) < cap;
}

/* Reads an external image (URI relative to the model's folder). Through a VFS, the exported
 * texture (the path rule of rill_export_output_path: "rock.png" -> "rock.rmip") is preferred when
 * it exists, so an exported model finds its .rmip in the pack or the loose output; *out_path gets
 * the path read. NULL + a warning on failure. */
static uint8_t *read_external(const image_source *src, int32_t ti, const char *uri,
                              size_t *out_size, char *out_path, size_t path_cap) {
    char path[1024];
    uint8_t *file = NULL;
    rill_error e = {0};
    snprintf(out_path, path_cap, "%s", uri);
    if (src->vfs) {
        if (!vfs_pick(src, ti, uri, path, sizeof(path))) {
            return NULL;
        }
        if (rill_vfs_read_all(src->vfs, path, &file, out_size, &e) != RILL_OK) {
            warn_texture(src, ti, e.msg);
            return NULL;
        }
        snprintf(out_path, path_cap, "%s", path);
        return file;
    }
    if (!src->base_dir) {
        RILL_LOG_WARN(LOGM, "%s: texture %d: external image '%s' without a base folder; skipped",
                      model_name(src), ti, uri);
        return NULL;
    }
    /* Confined to the model's folder: a URI with '..' or a symbolic link cannot read outside. */
    if (!rill_path_join(path, sizeof(path), src->base_dir, uri) ||
        rill_file_read_all_in(src->base_dir, path, 0, &file, out_size, &e) != RILL_OK) {
        warn_texture(src, ti, e.msg[0] ? e.msg : "path too long");
        return NULL;
    }
    return file;
}

/* A .rmip image: uploaded in its own format with its own mip chain. The color space is the
 * material slot's (the exporter picks it the same way). */
static rill_texture load_rmip(rill_renderer *r, const image_source *src, const uint8_t *bytes,
                              size_t size, const char *name, bool srgb, int32_t ti) {
    rill_texture out = {0};
    rill_tex_data tex;
    rill_error e = {0};
    if (rill_rmip_read(bytes, size, name, &tex, &e) != RILL_OK) {
        warn_texture(src, ti, e.msg);
        return out;
    }
    if (tex.format == RILL_TEX_FORMAT_BC1 || tex.format == RILL_TEX_FORMAT_BC7 ||
        tex.format == RILL_TEX_FORMAT_RGBA8) {
        tex.srgb = srgb;
    }
    out = rill_render_texture_create_data(r, &tex, name, &e);
    if (!out.id) {
        warn_texture(src, ti, e.msg);
    }
    rill_tex_data_free(&tex);
    return out;
}

static bool is_rmip(const uint8_t *bytes, size_t size) {
    return size >= 4 && memcmp(bytes, "RMIP", 4) == 0;
}

static bool rmip_path(const char *path) {
    size_t n = strlen(path);
    return n > 5 && rill_str_ieq(path + n - 5, ".rmip");
}

/* GPU bytes of the full chain of tex's image and of its "#low" tail (the levels from the first
 * whose longer side is <= RILL_RMIP_LOW_MAX_SIDE, or the last). */
void rill__tex_chain_bytes(const rill_tex_data *tex, uint64_t *out_full, uint64_t *out_low) {
    uint32_t fw = tex->full_width ? tex->full_width : tex->width;
    uint32_t fh = tex->full_height ? tex->full_height : tex->height;
    uint32_t n = tex->first_level + tex->level_count;
    uint64_t full = 0, low = 0;
    bool in_low = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t w = RILL_MAX(fw >> i, 1u), h = RILL_MAX(fh >> i, 1u);
        uint64_t b = 0;
        rill_tex_level_size(tex->format, w, h, &b);
        in_low |= RILL_MAX(w, h) <= RILL_RMIP_LOW_MAX_SIDE || i + 1 == n;
        full += b;
        low += in_low ? b : 0;
    }
    *out_full = full;
    *out_low = low;
}

/* A streamed .rmip: read whole, or only its "#low" tail (one byte range) with start_low, and
 * recorded in origin for the texture streamer. {0} when it cannot be read (the caller warns). */
static rill_texture load_rmip_streamed(rill_renderer *r, const image_source *src, const char *path,
                                       bool srgb, int32_t ti, rill__tex_origin *origin) {
    rill_texture out = {0};
    rill_asset_load_ctx ctx = {src->vfs, path, src->start_low ? "low" : "", {0}, NULL};
    void *payload = NULL;
    size_t bytes = 0;
    rill_error e = {0};
    if (rill_rmip_load(&ctx, &payload, &bytes, &e) != RILL_OK) {
        warn_texture(src, ti, e.msg);
        return out;
    }
    rill_tex_data *tex = payload;
    if (tex->format == RILL_TEX_FORMAT_BC1 || tex->format == RILL_TEX_FORMAT_BC7 ||
        tex->format == RILL_TEX_FORMAT_RGBA8) {
        tex->srgb = srgb;
    }
    out = rill_render_texture_create_data(r, tex, path, &e);
    if (!out.id) {
        warn_texture(src, ti, e.msg);
    } else if ((origin->path = rill_strdup(path)) != NULL) {
        rill__tex_chain_bytes(tex, &origin->full_bytes, &origin->low_bytes);
        origin->low = src->start_low;
        origin->srgb = srgb; /* the slot's colour space: the key it is shared under */
        origin->read_bytes = bytes;
    }
    rill_tex_data_free(tex);
    rill_free(tex);
    return out;
}

/* A texture already uploaded for the image at VFS path pick in colour space srgb: one share
 * finds (another model's), or an earlier texture of this model naming the same image. origin
 * records it as shared; {0} when there is none (or no memory to record it: then it is loaded). */
static rill_texture find_shared(const image_source *src, const rill_render_model *out, int32_t ti,
                                const char *pick, bool srgb) {
    rill_texture found = {0};
    if (src->share) {
        found = src->share->find(src->share->user, pick, srgb);
    }
    for (int32_t k = 0; !found.id && k < ti; k++) {
        const rill__tex_origin *o = &src->origins[k];
        if (o->path && o->srgb == srgb && strcmp(o->path, pick) == 0) {
            found = out->textures[k];
        }
    }
    rill__tex_origin *o = &src->origins[ti];
    if (found.id && (o->path = rill_strdup(pick)) != NULL) {
        o->srgb = srgb;
        o->shared = true;
        return found;
    }
    return (rill_texture){0};
}

static rill_texture load_texture(rill_renderer *r, const rill_gltf_model *m, int32_t ti, bool srgb,
                                 const image_source *src, const rill_render_model *model) {
    rill_texture none = {0};
    const rill_gltf_texture *t = &m->textures[ti];
    if (t->image < 0) {
        return none;
    }
    const rill_gltf_image *im = &m->images[t->image];
    size_t scheme = strlen(RILL_GLTF_TARGET_SCHEME);
    if (im->uri && strncmp(im->uri, RILL_GLTF_TARGET_SCHEME, scheme) == 0) {
        /* A render texture: the renderer's, drawn by the camera whose target names it. */
        rill_error e = {0};
        rill_texture rt = rill_render_target_texture(r, im->uri + scheme, &e);
        if (!rt.id) {
            warn_texture(src, ti, e.msg);
        }
        return rt;
    }
    const uint8_t *bytes = im->data;
    size_t size = im->size;
    uint8_t *file = NULL;
    char read_path[1024];
    const char *name = im->uri ? im->uri : im->name ? im->name : "image";
    bool record = false; /* an image read through the VFS: recorded in its origin (shareable) */
    if (!bytes && im->uri && src->vfs && src->origins) {
        char pick[1024];
        if (!vfs_pick(src, ti, im->uri, pick, sizeof(pick))) {
            return none;
        }
        rill_texture shared = find_shared(src, model, ti, pick, srgb);
        if (shared.id) {
            return shared;
        }
        if (rmip_path(pick)) {
            return load_rmip_streamed(r, src, pick, srgb, ti, &src->origins[ti]);
        }
        record = true;
    }
    if (!bytes && im->uri) {
        file = read_external(src, ti, im->uri, &size, read_path, sizeof(read_path));
        bytes = file;
        name = read_path;
    }
    if (!bytes) {
        return none;
    }
    if (is_rmip(bytes, size)) {
        rill_texture out = load_rmip(r, src, bytes, size, name, srgb, ti);
        rill_free(file);
        return out;
    }
    rill_image img;
    rill_error e = {0};
    rill_texture out = none;
    if (rill_image_load(bytes, size, name, RILL_PIXEL_RGBA8, &img, &e) == RILL_OK) {
        rill_texture_desc td = {.pixels = img.pixels,
                                .width = img.width,
                                .height = img.height,
                                .srgb = srgb,
                                .label = name};
        out = rill_render_texture_create(r, &td, &e);
        if (!out.id) {
            warn_texture(src, ti, e.msg);
        }
        rill_image_free(&img);
    } else {
        warn_texture(src, ti, e.msg);
    }
    rill__tex_origin *o = record && out.id ? &src->origins[ti] : NULL;
    if (o && (o->path = rill_strdup(read_path)) != NULL) {
        o->srgb = srgb; /* decoded: shareable, not streamable (no "#low" tail) */
    }
    rill_free(file);
    return out;
}

/* GL enums of glTF samplers. */
enum {
    GL_NEAREST = 9728,
    GL_LINEAR = 9729,
    GL_NEAREST_MIPMAP_NEAREST = 9984,
    GL_LINEAR_MIPMAP_NEAREST = 9985,
    GL_NEAREST_MIPMAP_LINEAR = 9986,
    GL_LINEAR_MIPMAP_LINEAR = 9987,
    GL_CLAMP_TO_EDGE = 33071,
    GL_MIRRORED_REPEAT = 33648,
};

static rill_texture_wrap gl_wrap(uint32_t wrap) {
    return wrap == GL_CLAMP_TO_EDGE     ? RILL_TEXTURE_WRAP_CLAMP
           : wrap == GL_MIRRORED_REPEAT ? RILL_TEXTURE_WRAP_MIRROR
                                        : RILL_TEXTURE_WRAP_REPEAT;
}

/* A texture reference's sampler (wrap per axis, the filters as the file says them; an unset
 * minification filter is trilinear), its KHR_texture_transform and its UV set (the transform's
 * texCoord override first). Returns whether it asks for a UV set beyond the two meshes carry
 * (it then draws with UV set 0). */
static bool slot_from_gltf(const rill_gltf_model *m, const rill_gltf_texref *ref,
                           rill_texture_sampler *out_s, rill_texture_transform *out_x,
                           uint8_t *out_set) {
    if (ref->texture < 0 || (uint32_t)ref->texture >= m->texture_count) {
        return false;
    }
    int32_t si = m->textures[ref->texture].sampler;
    out_s->set = true; /* the default sampler: repeat, linear, trilinear */
    if (si >= 0 && (uint32_t)si < m->sampler_count) {
        const rill_gltf_sampler *gs = &m->samplers[si];
        uint32_t mf = gs->min_filter;
        out_s->wrap_u = gl_wrap(gs->wrap_s);
        out_s->wrap_v = gl_wrap(gs->wrap_t);
        out_s->mag_filter =
            gs->mag_filter == GL_NEAREST ? RILL_TEXTURE_FILTER_NEAREST : RILL_TEXTURE_FILTER_LINEAR;
        out_s->min_filter =
            mf == GL_NEAREST || mf == GL_NEAREST_MIPMAP_NEAREST || mf == GL_NEAREST_MIPMAP_LINEAR
                ? RILL_TEXTURE_FILTER_NEAREST
                : RILL_TEXTURE_FILTER_LINEAR;
        out_s->mip_filter = mf == GL_NEAREST || mf == GL_LINEAR ? RILL_TEXTURE_MIP_NONE
                            : mf == GL_NEAREST_MIPMAP_NEAREST || mf == GL_LINEAR_MIPMAP_NEAREST
                                ? RILL_TEXTURE_MIP_NEAREST
                                : RILL_TEXTURE_MIP_LINEAR;
    }
    if (ref->has_transform) {
        out_x->set = true;
        out_x->offset[0] = ref->offset[0];
        out_x->offset[1] = ref->offset[1];
        out_x->rotation = ref->rotation;
        out_x->scale[0] = ref->uv_scale[0];
        out_x->scale[1] = ref->uv_scale[1];
    }
    int32_t uv_set = ref->has_transform && ref->transform_texcoord >= 0 ? ref->transform_texcoord
                                                                        : (int32_t)ref->texcoord;
    *out_set = uv_set == 1 ? 1 : 0;
    return uv_set > 1;
}

/* What the model holds that the renderer does not draw, said once per upload: texture slots
 * sampling a UV set beyond the second (the reader keeps two; drawn with UV set 0). */
static void warn_not_drawn(const image_source *src, uint32_t far_slots) {
    if (far_slots) {
        RILL_LOG_WARN(LOGM,
                      "%s: not drawn: UV sets beyond 1, which %u texture slot(s) sample (drawn "
                      "with UV set 0)",
                      model_name(src), far_slots);
    }
}

/* The extensions' references count only when the material uses the extension (code that builds
 * a model may leave them zero). */
void rill__model_material_refs(const rill_gltf_material *mt,
                               const rill_gltf_texref *out[RILL_MATERIAL_TEX_NUM]) {
    static const rill_gltf_texref none = {.texture = -1, .scale = 1.0f};
    bool spec = mt->has_specular, coat = mt->clearcoat_factor > 0.0f;
    out[RILL_MATERIAL_TEX_BASE_COLOR] = &mt->base_color_texture;
    out[RILL_MATERIAL_TEX_NORMAL] = &mt->normal_texture;
    out[RILL_MATERIAL_TEX_METALLIC_ROUGHNESS] = &mt->metallic_roughness_texture;
    out[RILL_MATERIAL_TEX_OCCLUSION] = &mt->occlusion_texture;
    out[RILL_MATERIAL_TEX_EMISSIVE] = &mt->emissive_texture;
    out[RILL_MATERIAL_TEX_SPECULAR] = spec ? &mt->specular_texture : &none;
    out[RILL_MATERIAL_TEX_SPECULAR_COLOR] = spec ? &mt->specular_color_texture : &none;
    out[RILL_MATERIAL_TEX_CLEARCOAT] = coat ? &mt->clearcoat_texture : &none;
    out[RILL_MATERIAL_TEX_CLEARCOAT_ROUGHNESS] = coat ? &mt->clearcoat_roughness_texture : &none;
    out[RILL_MATERIAL_TEX_CLEARCOAT_NORMAL] = coat ? &mt->clearcoat_normal_texture : &none;
    out[RILL_MATERIAL_TEX_TRANSMISSION] =
        mt->transmission_factor > 0.0f ? &mt->transmission_texture : &none;
    out[RILL_MATERIAL_TEX_THICKNESS] = mt->has_volume ? &mt->thickness_texture : &none;
    out[RILL_MATERIAL_TEX_SHEEN_COLOR] = mt->has_sheen ? &mt->sheen_color_texture : &none;
    out[RILL_MATERIAL_TEX_SHEEN_ROUGHNESS] = mt->has_sheen ? &mt->sheen_roughness_texture : &none;
    bool irid = mt->iridescence_factor > 0.0f;
    out[RILL_MATERIAL_TEX_IRIDESCENCE] = irid ? &mt->iridescence_texture : &none;
    out[RILL_MATERIAL_TEX_IRIDESCENCE_THICKNESS] =
        irid ? &mt->iridescence_thickness_texture : &none;
    out[RILL_MATERIAL_TEX_ANISOTROPY] =
        mt->anisotropy_strength > 0.0f ? &mt->anisotropy_texture : &none;
}

/* Slots whose texels are colours (sRGB); the others hold data. */
static bool slot_is_color(int slot) {
    return slot == RILL_MATERIAL_TEX_BASE_COLOR || slot == RILL_MATERIAL_TEX_EMISSIVE ||
           slot == RILL_MATERIAL_TEX_SPECULAR_COLOR || slot == RILL_MATERIAL_TEX_SHEEN_COLOR;
}

/* The lighting extensions of a glTF material (unlit, ior, specular, clear coat factors). */
static void lighting_from_gltf(const rill_gltf_material *mt, rill_material_desc *d) {
    d->unlit = mt->unlit;
    d->ior = mt->ior;
    d->specular_set = mt->has_specular;
    d->specular = mt->specular_factor;
    memcpy(d->specular_color, mt->specular_color_factor, sizeof(d->specular_color));
    d->clearcoat = mt->clearcoat_factor;
    d->clearcoat_roughness = mt->clearcoat_roughness_factor;
    d->clearcoat_normal_scale = mt->clearcoat_normal_texture.scale;
    d->transmission = mt->transmission_factor;
    d->volume_set = mt->has_volume;
    d->thickness = mt->thickness_factor;
    d->attenuation_distance = mt->attenuation_distance;
    memcpy(d->attenuation_color, mt->attenuation_color, sizeof(d->attenuation_color));
    if (mt->has_sheen) {
        memcpy(d->sheen_color, mt->sheen_color_factor, sizeof(d->sheen_color));
        d->sheen_roughness = mt->sheen_roughness_factor;
    }
    /* A film of no thickness at all reflects like no film: off (the desc reads 0, 0 as the
     * default range). */
    bool film = mt->iridescence_thickness_min > 0.0f || mt->iridescence_thickness_max > 0.0f;
    d->iridescence = film ? mt->iridescence_factor : 0.0f;
    d->iridescence_ior = mt->iridescence_ior;
    d->iridescence_thickness_min = mt->iridescence_thickness_min;
    d->iridescence_thickness_max = mt->iridescence_thickness_max;
    d->anisotropy = mt->anisotropy_strength;
    d->anisotropy_rotation = mt->anisotropy_rotation;
    d->dispersion = mt->dispersion;
}

static rill_texture tex_ref(const rill_render_model *out, const rill_gltf_texref *ref) {
    rill_texture none = {0};
    return ref->texture >= 0 && (uint32_t)ref->texture < out->texture_count
               ? out->textures[ref->texture]
               : none;
}

/* The material's textures, slot by slot. */
static void textures_from_gltf(const rill_render_model *out,
                               const rill_gltf_texref *const refs[RILL_MATERIAL_TEX_NUM],
                               rill_material_desc *d) {
    rill_texture *slot[RILL_MATERIAL_TEX_NUM] = {&d->base_color_texture,
                                                 &d->normal_texture,
                                                 &d->metallic_roughness_texture,
                                                 &d->occlusion_texture,
                                                 &d->emissive_texture,
                                                 &d->specular_texture,
                                                 &d->specular_color_texture,
                                                 &d->clearcoat_texture,
                                                 &d->clearcoat_roughness_texture,
                                                 &d->clearcoat_normal_texture,
                                                 &d->transmission_texture,
                                                 &d->thickness_texture,
                                                 &d->sheen_color_texture,
                                                 &d->sheen_roughness_texture,
                                                 &d->iridescence_texture,
                                                 &d->iridescence_thickness_texture,
                                                 &d->anisotropy_texture};
    for (int k = 0; k < RILL_MATERIAL_TEX_NUM; k++) {
        *slot[k] = tex_ref(out, refs[k]);
    }
}

static void walk(const rill_gltf_model *m, int32_t node, const float parent[16],
                 rill_render_model *out, const uint32_t *prim_base, uint32_t depth) {
    if (depth > 256) {
        return; /* the reader guarantees a tree; this only bounds the recursion */
    }
    const rill_gltf_node *n = &m->nodes[node];
    /* cglm's SIMD paths need 16-byte aligned matrices; model and caller arrays may not be. */
    mat4 pm, local, world;
    memcpy(pm, parent, sizeof(mat4));
    memcpy(local, n->matrix, sizeof(mat4));
    glm_mat4_mul(pm, local, world);
    if (n->mesh >= 0) {
        const rill_gltf_mesh *mesh = &m->meshes[n->mesh];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            rill_render_instance *in = &out->instances[out->instance_count++];
            memset(in, 0, sizeof(*in));
            in->id = ((uint64_t)(uint32_t)node << 20) | (uint64_t)(prim_base[n->mesh] + p + 1);
            in->mesh = out->meshes[prim_base[n->mesh] + p];
            int32_t mi = mesh->primitives[p].material;
            in->material = out->materials[mi >= 0 ? (uint32_t)mi : m->material_count];
            memcpy(in->transform, world, sizeof(world));
            const rill_gltf_primitive *pr = &mesh->primitives[p];
            for (int c = 0; c < 8; c++) {
                vec3 corner = {(c & 1) ? pr->bounds_max[0] : pr->bounds_min[0],
                               (c & 2) ? pr->bounds_max[1] : pr->bounds_min[1],
                               (c & 4) ? pr->bounds_max[2] : pr->bounds_min[2]};
                vec3 w;
                glm_mat4_mulv3(world, corner, 1.0f, w);
                for (int k = 0; k < 3; k++) {
                    out->bounds_min[k] = fminf(out->bounds_min[k], w[k]);
                    out->bounds_max[k] = fmaxf(out->bounds_max[k], w[k]);
                }
            }
        }
    }
    for (uint32_t c = 0; c < n->child_count; c++) {
        walk(m, n->children[c], (const float *)world, out, prim_base, depth + 1);
    }
}

/* The skin weights of a primitive with JOINTS_0 and WEIGHTS_0 (*out NULL when a joint index does
 * not fit 16 bits, which the reader never gives: the mesh is then rigid). False when out of
 * memory. */
static bool skin_weights(const rill_gltf_primitive *pr, rill_vertex_skin **out) {
    *out = NULL;
    for (size_t i = 0; i < (size_t)pr->vertex_count * 4; i++) {
        if (!(pr->joints[i] >= 0.0f && pr->joints[i] <= 65535.0f)) {
            return true;
        }
    }
    rill_vertex_skin *s = rill_malloc_tagged(
        (size_t)(pr->vertex_count ? pr->vertex_count : 1) * sizeof(*s), RILL_MEM_RENDER);
    if (!s) {
        return false;
    }
    for (uint32_t v = 0; v < pr->vertex_count; v++) {
        for (int k = 0; k < 4; k++) {
            s[v].joints[k] = (uint16_t)pr->joints[(size_t)v * 4 + k];
            s[v].weights[k] = pr->weights[(size_t)v * 4 + k];
        }
    }
    *out = s;
    return true;
}

/* The voxel GI's copy of every rigid primitive's triangles (gpu_only meshes keep none), simplified
 * on a grid in world metres: each primitive's scale is the largest its nodes draw it at. */
static rill_result keep_vox_sources(rill_renderer *r, const rill_gltf_model *m,
                                    const uint32_t *prim_base, rill_render_model *out,
                                    rill_error *err) {
    float *scale =
        rill_calloc_tagged(out->mesh_count ? out->mesh_count : 1u, sizeof(float), RILL_MEM_RENDER);
    if (!scale) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    for (uint32_t i = 0; i < out->instance_count; i++) {
        const rill_render_instance *in = &out->instances[i];
        uint64_t pi = (in->id & 0xFFFFFu) - 1u; /* walk's id: the primitive's index + 1 */
        if (pi >= out->mesh_count || out->meshes[pi].id != in->mesh.id) {
            continue;
        }
        for (int c = 0; c < 3; c++) {
            const float *col = &in->transform[4 * c];
            float len = sqrtf(col[0] * col[0] + col[1] * col[1] + col[2] * col[2]);
            scale[pi] = isfinite(len) && len > scale[pi] ? len : scale[pi];
        }
    }
    rill_result res = RILL_OK;
    for (uint32_t mi = 0; mi < m->mesh_count && res == RILL_OK; mi++) {
        for (uint32_t p = 0; p < m->meshes[mi].primitive_count; p++) {
            const rill_gltf_primitive *pr = &m->meshes[mi].primitives[p];
            uint32_t k = prim_base[mi] + p;
            float s = scale[k] > 0.0f ? scale[k] : 1.0f;
            if (!rill__mesh_keep_vox_source(r, out->meshes[k], pr->positions, pr->vertex_count,
                                            pr->indices, pr->index_count, s)) {
                res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
                break;
            }
        }
    }
    rill_free(scale);
    return res;
}

static rill_result model_create(rill_renderer *r, const rill_gltf_model *m, const image_source *src,
                                rill_render_model *out, rill_error *err) {
    if (!r || !m || !out) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL argument");
    }
    memset(out, 0, sizeof(*out));
    uint32_t prims = 0;
    uint32_t *prim_base = rill_calloc_tagged(m->mesh_count + 1, sizeof(uint32_t), RILL_MEM_RENDER);
    if (!prim_base) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        prim_base[i] = prims;
        prims += m->meshes[i].primitive_count;
    }
    /* Instances: count (node, primitive) pairs over the whole node list (an upper bound). */
    uint32_t max_inst = 0;
    for (uint32_t i = 0; i < m->node_count; i++) {
        if (m->nodes[i].mesh >= 0) {
            max_inst += m->meshes[m->nodes[i].mesh].primitive_count;
        }
    }
    out->meshes = rill_calloc_tagged(prims ? prims : 1, sizeof(rill_mesh), RILL_MEM_RENDER);
    out->materials =
        rill_calloc_tagged(m->material_count + 1, sizeof(rill_material), RILL_MEM_RENDER);
    out->textures = rill_calloc_tagged(m->texture_count ? m->texture_count : 1,
                                       sizeof(rill_texture), RILL_MEM_RENDER);
    out->instances =
        rill_calloc_tagged(max_inst ? max_inst : 1, sizeof(rill_render_instance), RILL_MEM_RENDER);
    rill_vertex *verts = NULL;
    rill_vertex_skin *skin = NULL;
    rill_result res = RILL_OK;
    if (!out->meshes || !out->materials || !out->textures || !out->instances) {
        res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        goto done;
    }
    out->mesh_count = prims;
    out->material_count = m->material_count + 1;
    out->texture_count = m->texture_count;
    /* Textures: sRGB when any material uses them for color. */
    for (uint32_t t = 0; t < m->texture_count; t++) {
        bool used = false, srgb = false;
        for (uint32_t i = 0; i < m->material_count; i++) {
            const rill_gltf_texref *refs[RILL_MATERIAL_TEX_NUM];
            rill__model_material_refs(&m->materials[i], refs);
            for (int k = 0; k < RILL_MATERIAL_TEX_NUM; k++) {
                bool here = refs[k]->texture == (int32_t)t;
                used |= here;
                srgb |= here && slot_is_color(k);
            }
        }
        if (used) {
            out->textures[t] = load_texture(r, m, (int32_t)t, srgb, src, out);
        }
    }
    uint32_t far_slots = 0;
    for (uint32_t i = 0; i <= m->material_count; i++) {
        rill_material_desc d;
        memset(&d, 0, sizeof(d));
        if (i < m->material_count) {
            const rill_gltf_material *mt = &m->materials[i];
            memcpy(d.base_color, mt->base_color_factor, sizeof(d.base_color));
            if (d.base_color[0] == 0 && d.base_color[1] == 0 && d.base_color[2] == 0 &&
                d.base_color[3] == 0) {
                d.base_color[3] = 1e-6f; /* a genuinely black, invisible material: not "default" */
            }
            d.metallic = mt->metallic_factor;
            d.roughness = mt->roughness_factor;
            d.roughness_set = true;
            memcpy(d.emissive, mt->emissive_factor, sizeof(d.emissive));
            for (int k = 0; k < 3 && mt->emissive_strength > 0.0f; k++) {
                d.emissive[k] *= mt->emissive_strength;
            }
            d.normal_scale = mt->normal_texture.scale;
            d.occlusion_strength =
                mt->occlusion_texture.texture >= 0 ? mt->occlusion_texture.scale : 1.0f;
            d.alpha_cutoff = mt->alpha_cutoff;
            d.alpha_mode = mt->alpha_mode == RILL_GLTF_ALPHA_BLEND  ? RILL_ALPHA_BLEND
                           : mt->alpha_mode == RILL_GLTF_ALPHA_MASK ? RILL_ALPHA_MASK
                                                                    : RILL_ALPHA_OPAQUE;
            d.double_sided = mt->double_sided;
            const rill_gltf_texref *refs[RILL_MATERIAL_TEX_NUM];
            rill__model_material_refs(mt, refs);
            for (int k = 0; k < RILL_MATERIAL_TEX_NUM; k++) {
                far_slots +=
                    slot_from_gltf(m, refs[k], &d.samplers[k], &d.transforms[k], &d.uv_sets[k]);
            }
            lighting_from_gltf(mt, &d);
            textures_from_gltf(out, refs, &d);
            d.label = mt->name;
        } else {
            /* A primitive without a material gets glTF's default material: white, fully
             * metallic and fully rough (glTF 2.0, 3.9.6), not the renderer's grey dielectric. */
            d.metallic = 1.0f;
            d.roughness = 1.0f;
            d.roughness_set = true;
            d.label = "gltf default";
        }
        out->materials[i] = rill_render_material_create(r, &d, err);
        if (!out->materials[i].id) {
            res = err ? err->code : RILL_ERR_VULKAN;
            goto done;
        }
    }
    warn_not_drawn(src, far_slots);
    for (uint32_t mi = 0; mi < m->mesh_count; mi++) {
        const rill_gltf_mesh *mesh = &m->meshes[mi];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const rill_gltf_primitive *pr = &mesh->primitives[p];
            rill_free(verts);
            verts = rill_calloc_tagged(pr->vertex_count ? pr->vertex_count : 1, sizeof(rill_vertex),
                                       RILL_MEM_RENDER);
            if (!verts) {
                res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
                goto done;
            }
            for (uint32_t v = 0; v < pr->vertex_count; v++) {
                memcpy(verts[v].position, pr->positions + 3 * v, sizeof(float) * 3);
                if (pr->normals) {
                    memcpy(verts[v].normal, pr->normals + 3 * v, sizeof(float) * 3);
                }
                if (pr->uv0) {
                    memcpy(verts[v].uv, pr->uv0 + 2 * v, sizeof(float) * 2);
                }
                if (pr->tangents) {
                    memcpy(verts[v].tangent, pr->tangents + 4 * v, sizeof(float) * 4);
                }
            }
            rill_free(skin);
            skin = NULL;
            if (pr->joints && pr->weights && !skin_weights(pr, &skin)) {
                res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
                goto done;
            }
            char label[96];
            snprintf(label, sizeof(label), "%s#%u", mesh->name ? mesh->name : "mesh", p);
            rill_mesh_desc md = {.vertices = verts,
                                 .vertex_count = pr->vertex_count,
                                 .indices = pr->indices,
                                 .index_count = pr->index_count,
                                 .label = label,
                                 .edge_indices = pr->edge_indices,
                                 .edge_index_count = pr->edge_index_count,
                                 /* Picked through the asset's own CPU triangles. */
                                 .gpu_only = true,
                                 .skin = skin,
                                 .morph_target_count = pr->target_count,
                                 .morph_positions = pr->target_positions,
                                 .morph_normals = pr->target_normals,
                                 .colors = pr->colors,
                                 .uv1 = pr->uv1};
            out->meshes[prim_base[mi] + p] = rill_render_mesh_create(r, &md, err);
            if (!out->meshes[prim_base[mi] + p].id) {
                res = err ? err->code : RILL_ERR_VULKAN;
                goto done;
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        out->bounds_min[k] = INFINITY;
        out->bounds_max[k] = -INFINITY;
    }
    mat4 ident;
    glm_mat4_identity(ident);
    int32_t scene = m->default_scene >= 0 ? m->default_scene : (m->scene_count ? 0 : -1);
    if (scene >= 0) {
        for (uint32_t i = 0; i < m->scenes[scene].node_count; i++) {
            walk(m, m->scenes[scene].nodes[i], (float *)ident, out, prim_base, 0);
        }
    } else {
        for (uint32_t i = 0; i < m->node_count; i++) {
            if (m->nodes[i].parent < 0) {
                walk(m, (int32_t)i, (float *)ident, out, prim_base, 0);
            }
        }
    }
    if (out->instance_count == 0) {
        for (int k = 0; k < 3; k++) {
            out->bounds_min[k] = out->bounds_max[k] = 0.0f;
        }
    }
    res = keep_vox_sources(r, m, prim_base, out, err);
done:
    rill_free(verts);
    rill_free(skin);
    rill_free(prim_base);
    if (res != RILL_OK) {
        for (uint32_t t = 0; src->origins && out->textures && t < m->texture_count; t++) {
            if (src->origins[t].shared) {
                out->textures[t].id = 0; /* owned elsewhere */
            }
        }
        rill_render_model_destroy(r, out);
    }
    return res;
}

rill_result rill_render_model_create(rill_renderer *r, const rill_gltf_model *m,
                                     const char *base_dir, rill_render_model *out,
                                     rill_error *err) {
    image_source src = {base_dir, NULL, NULL, NULL, NULL, false};
    return model_create(r, m, &src, out, err);
}

rill_result rill_render_model_create_vfs(rill_renderer *r, const rill_gltf_model *m, rill_vfs *vfs,
                                         const char *model_path, rill_render_model *out,
                                         rill_error *err) {
    if (!vfs) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL vfs");
    }
    image_source src = {NULL, vfs, model_path, NULL, NULL, false};
    return model_create(r, m, &src, out, err);
}

rill_result rill__render_model_create_streamed(rill_renderer *r, const rill_gltf_model *m,
                                               rill_vfs *vfs, const char *model_path,
                                               const rill__tex_share *share, bool start_low,
                                               rill__tex_origin *origins, rill_render_model *out,
                                               rill_error *err) {
    if (!vfs) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL vfs");
    }
    image_source src = {NULL, vfs, model_path, origins, share, start_low};
    return model_create(r, m, &src, out, err);
}

void rill_render_model_destroy(rill_renderer *r, rill_render_model *model) {
    if (!model) {
        return;
    }
    for (uint32_t i = 0; model->meshes && i < model->mesh_count; i++) {
        rill_render_mesh_destroy(r, model->meshes[i]);
    }
    for (uint32_t i = 0; model->materials && i < model->material_count; i++) {
        rill_render_material_destroy(r, model->materials[i]);
    }
    for (uint32_t i = 0; model->textures && i < model->texture_count; i++) {
        rill_render_texture_destroy(r, model->textures[i]);
    }
    rill_free(model->meshes);
    rill_free(model->materials);
    rill_free(model->textures);
    rill_free(model->instances);
    memset(model, 0, sizeof(*model));
}
