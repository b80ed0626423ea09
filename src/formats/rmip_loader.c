/* rmip_loader.c: the asset-server loader for .rmip files. "path" reads the whole file in one
 * call; "path#low" reads the header and index (one small range read), computes the tail's byte
 * range from them, and reads exactly that range, so a streamed-out texture costs its ~1.6% tail. */
#include <stdio.h>
#include <string.h>

#include "rill/formats/rmip.h"

static void rmip_unload(void *payload, size_t bytes, void *user) {
    RILL_UNUSED(bytes);
    RILL_UNUSED(user);
    rill_tex_data *tex = payload;
    rill_tex_data_free(tex);
    rill_free(tex);
}

rill_result rill_rmip_load(const rill_asset_load_ctx *ctx, void **out_payload, size_t *out_bytes,
                           rill_error *err) {
    *out_payload = NULL;
    *out_bytes = 0;
    const char *label = ctx->label ? ctx->label : "";
    bool low = strcmp(label, "low") == 0;
    char name[RILL_VFS_PATH_MAX + 16];
    snprintf(name, sizeof(name), "%s%s%s", ctx->path, label[0] ? "#" : "", label);
    if (label[0] && !low) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: unknown sub-asset (only #low)", name);
    }
    rill_tex_data *tex = rill_calloc_tagged(1, sizeof(*tex), RILL_MEM_FORMATS);
    if (!tex) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    }
    rill_result res;
    uint8_t *buf = NULL;
    if (!low) {
        size_t size = 0;
        res = rill_vfs_read_all(ctx->vfs, ctx->path, &buf, &size, err);
        if (res == RILL_OK) {
            res = rill_rmip_read(buf, size, name, tex, err);
        }
    } else {
        int64_t file_size = rill_vfs_size(ctx->vfs, ctx->path);
        if (file_size < 0) {
            res = rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: not found", name);
            goto done;
        }
        uint8_t prefix[RILL_RMIP_PREFIX_MAX];
        size_t prefix_size = (size_t)RILL_MIN((uint64_t)file_size, (uint64_t)RILL_RMIP_PREFIX_MAX);
        res = rill_vfs_read_range(ctx->vfs, ctx->path, 0, prefix_size, prefix, err);
        if (res != RILL_OK) {
            goto done;
        }
        rill_rmip_info info;
        res = rill_rmip_parse(prefix, prefix_size, (uint64_t)file_size, name, &info, err);
        if (res != RILL_OK) {
            goto done;
        }
        rill_rmip_range range;
        rill_rmip_low_range(&info, &range);
        /* parse checked every level against the file size, so the range fits in memory terms of
         * the file; it still needs an allocation of its own. */
        buf = rill_malloc_tagged((size_t)range.size, RILL_MEM_FORMATS);
        if (!buf) {
            res = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
            goto done;
        }
        res = rill_vfs_read_range(ctx->vfs, ctx->path, range.offset, (size_t)range.size, buf, err);
        if (res == RILL_OK) {
            res = rill_rmip_texture_from_range(&info, &range, buf, (size_t)range.size, name, tex,
                                               err);
        }
    }
done:
    rill_free(buf);
    if (res == RILL_OK && tex->faces == 6) {
        res = rill_error_set(err, RILL_ERR_UNSUPPORTED,
                             "%s: a cube map (for a Skybox, EnvironmentMapLight or "
                             "ReflectionProbeSource), not a texture",
                             name);
    }
    if (res != RILL_OK) {
        rill_tex_data_free(tex);
        rill_free(tex);
        return res;
    }
    *out_payload = tex;
    *out_bytes = tex->storage_size;
    return RILL_OK;
}

rill_asset_loader rill_rmip_loader(void) {
    rill_asset_loader l;
    memset(&l, 0, sizeof(l));
    l.name = "rmip";
    l.extensions[0] = "rmip";
    l.load = rill_rmip_load;
    l.unload = rmip_unload;
    return l;
}
