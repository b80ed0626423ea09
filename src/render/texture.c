/* texture.c: textures from CPU texture data (rill_tex_data: a .rmip payload or any prepared mip
 * chain) in their own format: BC1, BC4, BC5 and BC7 stay block-compressed on the GPU (decoded to
 * RGBA8 here only when the device lacks textureCompressionBC; BC3 from legacy files always is),
 * RGBA8 and RGBA16F are uploaded as they are. Every level given is uploaded; none is generated. */
#include "render_internal.h"

#include <string.h>

#include "rill/formats/rmip.h"

/* The GPU format of tex, or NONE when it must be decoded to RGBA8 first. */
static rill__fmt gpu_format(const rill__gpu_caps *caps, const rill_tex_data *tex) {
    switch (tex->format) {
    case RILL_TEX_FORMAT_RGBA8:
        return tex->srgb ? RILL_RG_FORMAT_RGBA8_SRGB : RILL_RG_FORMAT_RGBA8_UNORM;
    case RILL_TEX_FORMAT_RGBA16F:
        return RILL_RG_FORMAT_RGBA16F;
    case RILL_TEX_FORMAT_BC1:
        return !caps->texture_bc ? RILL_RG_FORMAT_NONE
               : tex->srgb       ? RILL_RG_FORMAT_BC1_SRGB
                                 : RILL_RG_FORMAT_BC1_UNORM;
    case RILL_TEX_FORMAT_BC4:
        return caps->texture_bc ? RILL_RG_FORMAT_BC4_UNORM : RILL_RG_FORMAT_NONE;
    case RILL_TEX_FORMAT_BC5:
        return caps->texture_bc ? RILL_RG_FORMAT_BC5_UNORM : RILL_RG_FORMAT_NONE;
    case RILL_TEX_FORMAT_BC7:
        return !caps->texture_bc ? RILL_RG_FORMAT_NONE
               : tex->srgb       ? RILL_RG_FORMAT_BC7_SRGB
                                 : RILL_RG_FORMAT_BC7_UNORM;
    default:
        return RILL_RG_FORMAT_NONE;
    }
}

/* Uploads tex's levels into img, decoding block formats to RGBA8 when decode is set. */
static rill_result upload_levels(rill_renderer *r, rill__img *img, const rill_tex_data *tex,
                                 bool decode, const char *label, rill_error *err) {
    const void *data[RILL__MAX_MIPS];
    uint64_t size[RILL__MAX_MIPS];
    uint8_t *decoded = NULL;
    uint64_t total = 0;
    uint32_t n = tex->level_count;
    if (decode) {
        for (uint32_t i = 0; i < n; i++) {
            total += (uint64_t)tex->levels[i].width * tex->levels[i].height * 4;
        }
        decoded = rill_malloc_tagged(total ? total : 1, RILL_MEM_RENDER);
        if (!decoded) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                  "render: texture '%s': out of memory", label);
        }
    }
    uint64_t at = 0;
    rill_result res = RILL_OK;
    for (uint32_t i = 0; i < n && res == RILL_OK; i++) {
        const rill_tex_level *lv = &tex->levels[i];
        data[i] = lv->data;
        size[i] = lv->size;
        if (decode) {
            uint64_t bytes = (uint64_t)lv->width * lv->height * 4;
            res = rill_bc_decode_image(tex->format, lv->data, lv->size, lv->width, lv->height,
                                       decoded + at, (size_t)bytes, err);
            data[i] = decoded + at;
            size[i] = bytes;
            at += bytes;
        }
    }
    if (res == RILL_OK) {
        res = rill__img_upload_levels(r->gpu, img, 0, n, data, size, err);
    }
    rill_free(decoded);
    return res;
}

/* Checks that tex is a whole, consistent chain: level i is max(1, w >> i) x max(1, h >> i). */
static bool chain_ok(const rill_tex_data *tex) {
    if (!tex->width || !tex->height || tex->width > 16384 || tex->height > 16384 ||
        !tex->level_count || tex->level_count > RILL__MAX_MIPS) {
        return false;
    }
    for (uint32_t i = 0; i < tex->level_count; i++) {
        const rill_tex_level *lv = &tex->levels[i];
        uint64_t need = 0;
        if (!lv->data || lv->width != RILL_MAX(tex->width >> i, 1u) ||
            lv->height != RILL_MAX(tex->height >> i, 1u) ||
            !rill_tex_level_size(tex->format, lv->width, lv->height, &need) || need != lv->size) {
            return false;
        }
    }
    return true;
}

rill_texture rill_render_texture_create_data(rill_renderer *r, const rill_tex_data *tex,
                                             const char *label, rill_error *err) {
    rill__rthread_guard(r);
    rill_texture h = {0};
    label = label ? label : "texture";
    if (!r || !tex || !chain_ok(tex)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: texture '%s': not a whole mip chain (bad size, level count or "
                       "level bytes)",
                       label);
        return h;
    }
    rill__fmt fmt = gpu_format(rill__gpu_get_caps(r->gpu), tex);
    bool decode = fmt == RILL_RG_FORMAT_NONE;
    if (decode) {
        if (!rill_tex_format_is_block(tex->format)) {
            rill_error_set(err, RILL_ERR_UNSUPPORTED, "render: texture '%s': format %s", label,
                           rill_tex_format_name(tex->format));
            return h;
        }
        fmt = tex->srgb ? RILL_RG_FORMAT_RGBA8_SRGB : RILL_RG_FORMAT_RGBA8_UNORM;
    }
    uint32_t id = rill_pool_alloc(&r->tex_pool);
    if (!id) {
        rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "render: texture pool exhausted");
        return h;
    }
    rill__img_desc d = {.width = tex->width,
                        .height = tex->height,
                        .layers = 1,
                        .mips = tex->level_count,
                        .format = fmt,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_TRANSFER_DST,
                        .label = label};
    rill__img *img = rill__img_create(r->gpu, &d, err);
    bool ok = img && upload_levels(r, img, tex, decode, label, err) == RILL_OK;
    tex_slot info = {.format = tex->format,
                     .srgb = tex->srgb,
                     .full_width = tex->full_width ? tex->full_width : tex->width,
                     .full_height = tex->full_height ? tex->full_height : tex->height};
    float mean[3];
    rill__texture_set_mean(&info, rill__texture_mean_data(tex, mean), mean);
    return rill__texture_finish(r, id, img, ok, &info);
}

/* A new image holding data's levels (its base = data's first level), upload queued. With
 * release set and no decoding, the levels are borrowed (rill__img_upload_levels_borrowed) and the
 * upload owns release(user) on success; *owned tells whether it took it. */
static rill__img *make_image_ex(rill_renderer *r, const rill_tex_data *data, const char *label,
                                rill_render_release_fn release, void *user, bool *owned,
                                rill_error *err) {
    *owned = false;
    rill__fmt fmt = gpu_format(rill__gpu_get_caps(r->gpu), data);
    bool decode = fmt == RILL_RG_FORMAT_NONE;
    if (decode) {
        if (!rill_tex_format_is_block(data->format)) {
            rill_error_set(err, RILL_ERR_UNSUPPORTED, "render: texture '%s': format %s", label,
                           rill_tex_format_name(data->format));
            return NULL;
        }
        fmt = data->srgb ? RILL_RG_FORMAT_RGBA8_SRGB : RILL_RG_FORMAT_RGBA8_UNORM;
    }
    rill__img_desc d = {.width = data->width,
                        .height = data->height,
                        .layers = 1,
                        .mips = data->level_count,
                        .format = fmt,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_TRANSFER_DST,
                        .label = label};
    rill__img *img = rill__img_create(r->gpu, &d, err);
    if (!img) {
        return NULL;
    }
    rill_result res;
    if (release && !decode) {
        const void *lv[RILL__MAX_MIPS];
        uint64_t sz[RILL__MAX_MIPS];
        for (uint32_t i = 0; i < data->level_count; i++) {
            lv[i] = data->levels[i].data;
            sz[i] = data->levels[i].size;
        }
        res = rill__img_upload_levels_borrowed(r->gpu, img, data->level_count, lv, sz, release,
                                               user, err);
        *owned = res == RILL_OK;
    } else {
        res = upload_levels(r, img, data, decode, label, err);
    }
    if (res != RILL_OK) {
        rill__img_destroy(r->gpu, img); /* drops a borrowed upload, so release runs once */
        img = NULL;
    }
    return img;
}

static rill__img *make_image(rill_renderer *r, const rill_tex_data *data, const char *label,
                             rill_error *err) {
    bool owned;
    return make_image_ex(r, data, label, NULL, NULL, &owned, err);
}

/* Checks that data may replace texture tex; the slot on success, NULL + err otherwise. */
static tex_slot *replace_check(rill_renderer *r, rill_texture tex, const rill_tex_data *data,
                               rill_error *err) {
    int32_t i = r ? rill_pool_index(&r->tex_pool, tex.id) : -1;
    if (i < 0 || !data) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: texture replace: stale texture or no data");
        return NULL;
    }
    tex_slot *t = &r->textures[i];
    uint32_t fw = data->full_width ? data->full_width : data->width;
    uint32_t fh = data->full_height ? data->full_height : data->height;
    if (!chain_ok(data)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: texture replace: not a whole mip chain (bad size, level count or "
                       "level bytes)");
        return NULL;
    }
    if (data->format != t->format || data->srgb != t->srgb || fw != t->full_width ||
        fh != t->full_height) {
        rill_error_set(
            err, RILL_ERR_INVALID_ARGUMENT,
            "render: texture replace: %s%s %ux%u is not the texture's image (%s%s %ux%u)",
            rill_tex_format_name(data->format), data->srgb ? " sRGB" : "", fw, fh,
            rill_tex_format_name(t->format), t->srgb ? " sRGB" : "", t->full_width, t->full_height);
        return NULL;
    }
    return t;
}

/* Queues img (made from data) as tex's replacement in batch; the texture's mean colour becomes
 * data's. */
static rill_result replace_queue(rill_renderer *r, rill_texture tex, tex_slot *t, rill__img *img,
                                 const rill_tex_data *data, uint32_t batch, rill_error *err) {
    float mean[3];
    if (rill__texture_mean_data(data, mean)) {
        rill__texture_set_mean(t, true, mean);
    }
    bool queued = t->pending != NULL; /* a second replace before the first landed wins */
    rill__img_destroy(r->gpu, t->pending);
    t->pending = img;
    t->batch = batch;
    if (!queued && !rill_array_push(&r->tex_replacing, tex.id)) {
        rill__img_destroy(r->gpu, img);
        t->pending = NULL;
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: texture replace: out of memory");
    }
    return RILL_OK;
}

rill_result rill_render_texture_replace(rill_renderer *r, rill_texture tex,
                                        const rill_tex_data *data, rill_error *err) {
    rill__rthread_guard(r);
    tex_slot *t = replace_check(r, tex, data, err);
    if (!t) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    rill__img *img = make_image(r, data, "texture replacement", err);
    if (!img) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    return replace_queue(r, tex, t, img, data, 0, err);
}

rill_result rill__texture_replace_resized(rill_renderer *r, rill_texture tex,
                                          const rill_tex_data *data, rill_error *err) {
    int32_t i = r ? rill_pool_index(&r->tex_pool, tex.id) : -1;
    if (i < 0 || !data || !chain_ok(data)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: texture resize: stale texture or a broken image");
    }
    rill__img *img = make_image(r, data, "texture resized", err);
    if (!img) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    tex_slot *t = &r->textures[i];
    t->full_width = data->width;
    t->full_height = data->height;
    return replace_queue(r, tex, t, img, data, 0, err);
}

/* Runs release for users[from, count) (the ones no upload owns). */
static void release_rest(rill_render_release_fn release, void *const *users, uint32_t from,
                         uint32_t count) {
    for (uint32_t k = from; release && k < count; k++) {
        release(users ? users[k] : NULL);
    }
}

static rill_result replace_many(rill_renderer *r, uint32_t count, const rill_texture *tex,
                                const rill_tex_data *const *data, rill_render_release_fn release,
                                void *const *users, rill_error *err) {
    for (uint32_t k = 0; k < count; k++) {
        if (!replace_check(r, tex[k], data[k], err)) {
            release_rest(release, users, 0, count);
            return err ? err->code : RILL_ERR_INVALID_ARGUMENT; /* nothing queued */
        }
    }
    if (!count) {
        return RILL_OK;
    }
    uint32_t batch = ++r->tex_next_batch ? r->tex_next_batch : ++r->tex_next_batch;
    rill_result res = RILL_OK;
    uint32_t k = 0;
    for (; k < count && res == RILL_OK; k++) {
        tex_slot *t = &r->textures[rill_pool_index(&r->tex_pool, tex[k].id)];
        bool owned = false;
        rill__img *img = make_image_ex(r, data[k], "texture replacement", release,
                                       users ? users[k] : NULL, &owned, err);
        if (release && !owned) {
            release(users ? users[k] : NULL); /* copied (decoded) or failed: done with it */
        }
        res = img ? replace_queue(r, tex[k], t, img, data[k], batch, err)
                  : (err ? err->code : RILL_ERR_VULKAN);
    }
    release_rest(release, users, k, count); /* the ones never tried */
    if (res != RILL_OK) {                   /* all or nothing: drop what this batch queued */
        for (uint32_t j = 0; j < count; j++) {
            tex_slot *t = &r->textures[rill_pool_index(&r->tex_pool, tex[j].id)];
            if (t->pending && t->batch == batch) {
                rill__img_destroy(r->gpu, t->pending);
                t->pending = NULL;
            }
        }
    }
    return res;
}

rill_result rill_render_texture_replace_many(rill_renderer *r, uint32_t count,
                                             const rill_texture *tex,
                                             const rill_tex_data *const *data, rill_error *err) {
    rill__rthread_guard(r);
    return replace_many(r, count, tex, data, NULL, NULL, err);
}

rill_result rill_render_texture_replace_many_borrowed(rill_renderer *r, uint32_t count,
                                                      const rill_texture *tex,
                                                      const rill_tex_data *const *data,
                                                      rill_render_release_fn release,
                                                      void *const *users, rill_error *err) {
    rill__rthread_guard(r);
    if (!release) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: texture replace (borrowed): no release function");
    }
    return replace_many(r, count, tex, data, release, users, err);
}

bool rill_render_texture_pending(const rill_renderer *r, rill_texture tex) {
    rill__rthread_guard(r);
    int32_t i = r ? rill_pool_index(&r->tex_pool, tex.id) : -1;
    return i >= 0 && r->textures[i].pending != NULL;
}
