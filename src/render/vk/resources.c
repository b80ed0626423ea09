/* resources.c: buffers, images and their views, deferred destruction, and the staging upload path
 * (copies queued on the CPU, then recorded at the start of a frame under the per-frame byte
 * budget; images get their mip chain generated with blits). */
#include "vk_internal.h"

#include <string.h>

VkFormat rill__vk_format(rill__fmt fmt) {
    switch (fmt) {
    case RILL_RG_FORMAT_RGBA8_UNORM:
        return VK_FORMAT_R8G8B8A8_UNORM;
    case RILL_RG_FORMAT_RGBA8_SRGB:
        return VK_FORMAT_R8G8B8A8_SRGB;
    case RILL_RG_FORMAT_BGRA8_UNORM:
        return VK_FORMAT_B8G8R8A8_UNORM;
    case RILL_RG_FORMAT_BGRA8_SRGB:
        return VK_FORMAT_B8G8R8A8_SRGB;
    case RILL_RG_FORMAT_RGBA16F:
        return VK_FORMAT_R16G16B16A16_SFLOAT;
    case RILL_RG_FORMAT_RG16F:
        return VK_FORMAT_R16G16_SFLOAT;
    case RILL_RG_FORMAT_R32F:
        return VK_FORMAT_R32_SFLOAT;
    case RILL_RG_FORMAT_D32F:
        return VK_FORMAT_D32_SFLOAT;
    case RILL_RG_FORMAT_BC1_UNORM:
        return VK_FORMAT_BC1_RGBA_UNORM_BLOCK;
    case RILL_RG_FORMAT_BC1_SRGB:
        return VK_FORMAT_BC1_RGBA_SRGB_BLOCK;
    case RILL_RG_FORMAT_BC4_UNORM:
        return VK_FORMAT_BC4_UNORM_BLOCK;
    case RILL_RG_FORMAT_BC5_UNORM:
        return VK_FORMAT_BC5_UNORM_BLOCK;
    case RILL_RG_FORMAT_BC7_UNORM:
        return VK_FORMAT_BC7_UNORM_BLOCK;
    case RILL_RG_FORMAT_BC7_SRGB:
        return VK_FORMAT_BC7_SRGB_BLOCK;
    default:
        return VK_FORMAT_UNDEFINED;
    }
}

bool rill__vk_format_is_depth(rill__fmt fmt) {
    return fmt == RILL_RG_FORMAT_D32F;
}

bool rill__fmt_is_block(rill__fmt fmt) {
    return fmt >= RILL_RG_FORMAT_BC1_UNORM && fmt <= RILL_RG_FORMAT_BC7_SRGB;
}

uint32_t rill__fmt_unit_bytes(rill__fmt fmt) {
    switch (fmt) {
    case RILL_RG_FORMAT_RGBA8_UNORM:
    case RILL_RG_FORMAT_RGBA8_SRGB:
    case RILL_RG_FORMAT_BGRA8_UNORM:
    case RILL_RG_FORMAT_BGRA8_SRGB:
    case RILL_RG_FORMAT_RG16F:
    case RILL_RG_FORMAT_R32F:
    case RILL_RG_FORMAT_D32F:
        return 4;
    case RILL_RG_FORMAT_RGBA16F:
    case RILL_RG_FORMAT_BC1_UNORM:
    case RILL_RG_FORMAT_BC1_SRGB:
    case RILL_RG_FORMAT_BC4_UNORM:
        return 8;
    case RILL_RG_FORMAT_BC5_UNORM:
    case RILL_RG_FORMAT_BC7_UNORM:
    case RILL_RG_FORMAT_BC7_SRGB:
        return 16;
    default:
        return 0;
    }
}

uint64_t rill__fmt_level_bytes(rill__fmt fmt, uint32_t width, uint32_t height, uint32_t level) {
    uint32_t w = RILL_MAX(width >> level, 1u), h = RILL_MAX(height >> level, 1u);
    uint32_t unit = rill__fmt_unit_bytes(fmt);
    if (rill__fmt_is_block(fmt)) {
        return (uint64_t)((w + 3) / 4) * ((h + 3) / 4) * unit;
    }
    return (uint64_t)w * h * unit;
}

/* Outside a frame, a queue that reached dels_collect_at is collected on the spot and the mark set
 * to twice what is left (at least DEFER_COLLECT): a renderer that records no frames for a while
 * (`rill fly --no-render`, a minimized window) keeps at most DEFER_COLLECT destroyed objects
 * instead of every one until its next frame, and a frame that destroys thousands scans the queue
 * a logarithmic number of times. */
#define DEFER_COLLECT 64u

static void defer(rill__gpu *gpu, vk_del_kind kind, void *obj) {
    vk_del d = {kind, gpu->frame_index, obj};
    if (!rill_array_push(&gpu->dels, d)) {
        /* Out of memory for the queue: the only safe choice left is to wait for the GPU. */
        vkDeviceWaitIdle(gpu->dev);
        rill__vk_destroy_now(gpu, &d);
        return;
    }
    if (!gpu->in_frame && gpu->dels.len >= RILL_MAX(gpu->dels_collect_at, DEFER_COLLECT)) {
        (void)rill__vk_collect_deleted(gpu); /* a failure leaves them for the next frame */
        gpu->dels_collect_at = RILL_MAX(2u * gpu->dels.len, DEFER_COLLECT);
    }
}

void rill__vk_defer(rill__gpu *gpu, vk_del_kind kind, void *obj) {
    defer(gpu, kind, obj);
}

/* >>buffers --------------------------------------------------------------------------------- */

rill__buf *rill__buf_create(rill__gpu *gpu, uint64_t size, uint32_t usage, bool host_visible,
                            const char *label, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (size == 0) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: buffer '%s' of size 0",
                       label ? label : "?");
        return NULL;
    }
    rill__buf *b = rill_calloc_tagged(1, sizeof(*b), RILL_MEM_RENDER);
    if (!b) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        return NULL;
    }
    b->alloc.block = -1;
    b->size = size;
    VkBufferCreateInfo ci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = size;
    if (usage & RILL__BUF_VERTEX) {
        ci.usage |= VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    }
    if (usage & RILL__BUF_INDEX) {
        ci.usage |= VK_BUFFER_USAGE_INDEX_BUFFER_BIT;
    }
    if (usage & RILL__BUF_UNIFORM) {
        ci.usage |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    }
    if (usage & RILL__BUF_STORAGE) {
        ci.usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    }
    if (usage & RILL__BUF_TRANSFER_SRC) {
        ci.usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    }
    if (usage & RILL__BUF_TRANSFER_DST) {
        ci.usage |= VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    }
    if (usage & RILL__BUF_INDIRECT) {
        ci.usage |= VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    }
    if ((usage & RILL__BUF_ACCEL_STORAGE) && gpu->caps.ray_query) {
        ci.usage |= VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR |
                    VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    }
    if (gpu->caps.ray_query && (usage & (RILL__BUF_VERTEX | RILL__BUF_INDEX | RILL__BUF_STORAGE))) {
        /* mesh buffers are what acceleration structures are built from (gi_hwrt.c), and the
         * ray-traced GI shader reads their vertices by address */
        ci.usage |= VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR |
                    VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    }
    if (!host_visible) {
        /* filled through the staging ring; a source of GPU copies (gpu_cull_arena.c) */
        ci.usage |= VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    }
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult res = vkCreateBuffer(gpu->dev, &ci, NULL, &b->buf);
    if (res != VK_SUCCESS) {
        rill__vk_fail(err, res, "vkCreateBuffer", __FILE__, __LINE__);
        rill_free(b);
        return NULL;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(gpu->dev, b->buf, &req);
    if (rill__vk_mem_alloc(gpu, &req, host_visible, &b->alloc, err) != RILL_OK) {
        goto fail;
    }
    res =
        vkBindBufferMemory(gpu->dev, b->buf, rill__vk_mem_memory(gpu, &b->alloc), b->alloc.offset);
    if (res != VK_SUCCESS) {
        rill__vk_fail(err, res, "vkBindBufferMemory", __FILE__, __LINE__);
        goto fail;
    }
    b->mapped = host_visible ? rill__vk_mem_mapped(gpu, &b->alloc) : NULL;
    if (ci.usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) {
        b->address = rill__vk_query_address(gpu, b);
    }
    b->ready = host_visible;
    rill__vk_name(gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)b->buf, label);
    return b;
fail:
    rill__vk_mem_free(gpu, &b->alloc);
    vkDestroyBuffer(gpu->dev, b->buf, NULL);
    rill_free(b);
    return NULL;
}

void *rill__buf_map(rill__buf *buf) {
    return buf ? buf->mapped : NULL;
}
uint64_t rill__buf_size(const rill__buf *buf) {
    return buf ? buf->size : 0;
}
bool rill__buf_ready(const rill__buf *buf) {
    return buf && buf->ready;
}
void rill__buf_mark_written(rill__buf *buf) {
    if (buf) {
        buf->ready = true;
    }
}

void rill__buf_destroy(rill__gpu *gpu, rill__buf *buf) {
    RILL__GPU_GUARD(gpu);
    if (!buf) {
        return;
    }
    rill__vk_drop_uploads_for(gpu, buf);
    defer(gpu, VK_DEL_BUF, buf);
}

/* >>images ---------------------------------------------------------------------------------- */

/* A view of layer `layer` (-1: all of them) of levels [level, level + levels); a cube's default
 * view (layer -1, every level) is a cube view, its one-level views (levels 0) 2D arrays. */
static VkImageView make_view_as(rill__gpu *gpu, rill__img *img, int32_t layer, uint32_t level,
                                uint32_t levels, VkFormat format, rill_error *err) {
    bool cube_view = layer < 0 && levels > 0 && (img->desc.usage & RILL__IMG_CUBE);
    levels = levels ? levels : 1;
    VkImageViewCreateInfo ci = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    ci.image = img->img;
    ci.format = format;
    /* a view in another format than the image's (the sRGB twin) is only sampled */
    VkImageViewUsageCreateInfo uci = {VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
    uci.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
    ci.pNext = format != img->vkfmt ? &uci : NULL;
    ci.viewType = (layer < 0 && (img->desc.layers > 1 || (img->desc.usage & RILL__IMG_ARRAY)))
                      ? VK_IMAGE_VIEW_TYPE_2D_ARRAY
                      : VK_IMAGE_VIEW_TYPE_2D;
    if (cube_view) {
        ci.viewType = VK_IMAGE_VIEW_TYPE_CUBE;
    }
    if (img->desc.depth > 1) {
        ci.viewType = VK_IMAGE_VIEW_TYPE_3D;
    }
    ci.subresourceRange.aspectMask = rill__vk_format_is_depth(img->desc.format)
                                         ? VK_IMAGE_ASPECT_DEPTH_BIT
                                         : VK_IMAGE_ASPECT_COLOR_BIT;
    ci.subresourceRange.baseMipLevel = level;
    ci.subresourceRange.levelCount = levels;
    ci.subresourceRange.baseArrayLayer = layer < 0 ? 0 : (uint32_t)layer;
    ci.subresourceRange.layerCount = layer < 0 ? img->desc.layers : 1;
    VkImageView view = VK_NULL_HANDLE;
    VkResult res = vkCreateImageView(gpu->dev, &ci, NULL, &view);
    if (res != VK_SUCCESS) {
        rill__vk_fail(err, res, "vkCreateImageView", __FILE__, __LINE__);
        return VK_NULL_HANDLE;
    }
    rill__vk_name(gpu, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)view, img->desc.label);
    return view;
}

/* A view of layer `layer` (-1: all of them) of levels [level, level + levels) in the image's own
 * format. */
static VkImageView make_view(rill__gpu *gpu, rill__img *img, int32_t layer, uint32_t level,
                             uint32_t levels, rill_error *err) {
    return make_view_as(gpu, img, layer, level, levels, img->vkfmt, err);
}

/* The sRGB twin of an 8-bit UNORM colour format (RILL__IMG_SRGB_VIEW), else UNDEFINED. */
static VkFormat srgb_twin(VkFormat f) {
    switch (f) {
    case VK_FORMAT_R8G8B8A8_UNORM:
        return VK_FORMAT_R8G8B8A8_SRGB;
    case VK_FORMAT_B8G8R8A8_UNORM:
        return VK_FORMAT_B8G8R8A8_SRGB;
    default:
        return VK_FORMAT_UNDEFINED;
    }
}

static void destroy_img_now(rill__gpu *gpu, rill__img *img) {
    if (img->mip_views) {
        for (uint32_t i = 0; i < img->desc.mips; i++) {
            if (img->mip_views[i]) {
                vkDestroyImageView(gpu->dev, img->mip_views[i], NULL);
            }
        }
        rill_free(img->mip_views);
    }
    if (img->layer_views) {
        for (uint32_t i = 0; i < img->desc.layers; i++) {
            if (img->layer_views[i]) {
                vkDestroyImageView(gpu->dev, img->layer_views[i], NULL);
            }
        }
        rill_free(img->layer_views);
    }
    if (img->view) {
        vkDestroyImageView(gpu->dev, img->view, NULL);
    }
    if (img->srgb_view) {
        vkDestroyImageView(gpu->dev, img->srgb_view, NULL);
    }
    if (!img->swapchain && img->img) {
        vkDestroyImage(gpu->dev, img->img, NULL);
    }
    rill__vk_mem_free(gpu, &img->alloc);
    rill_free((char *)img->desc.label);
    rill_free(img);
}

/* One view per mip level (compute writes one level: of every face for a cube, as a 2D array). */
static bool make_mip_views(rill__gpu *gpu, rill__img *img, rill_error *err) {
    img->mip_views = rill_calloc_tagged(img->desc.mips, sizeof(VkImageView), RILL_MEM_RENDER);
    if (!img->mip_views) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        return false;
    }
    for (uint32_t m = 0; m < img->desc.mips; m++) {
        img->mip_views[m] = make_view(gpu, img, -1, m, 0, err);
        if (!img->mip_views[m]) {
            return false;
        }
    }
    return true;
}

rill__img *rill__img_create(rill__gpu *gpu, const rill__img_desc *desc, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    rill__img *img = rill_calloc_tagged(1, sizeof(*img), RILL_MEM_RENDER);
    if (!img) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        return NULL;
    }
    img->alloc.block = -1;
    img->desc = *desc;
    img->desc.label = rill_strdup(desc->label ? desc->label : "image");
    if (img->desc.layers == 0) {
        img->desc.layers = 1;
    }
    if (img->desc.mips == 0) {
        img->desc.mips = 1;
    }
    img->vkfmt = rill__vk_format(desc->format);
    bool cube = (desc->usage & RILL__IMG_CUBE) != 0;
    bool volume = desc->depth > 1;
    VkFormat twin =
        (desc->usage & RILL__IMG_SRGB_VIEW) ? srgb_twin(img->vkfmt) : VK_FORMAT_UNDEFINED;
    if (img->vkfmt == VK_FORMAT_UNDEFINED || desc->width == 0 || desc->height == 0 ||
        ((desc->usage & RILL__IMG_SRGB_VIEW) && twin == VK_FORMAT_UNDEFINED) ||
        (cube && (img->desc.layers != 6 || desc->width != desc->height)) ||
        (volume && (cube || img->desc.layers != 1 || (desc->usage & RILL__IMG_ARRAY) ||
                    rill__vk_format_is_depth(desc->format)))) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: image '%s': bad format or size",
                       img->desc.label ? img->desc.label : "?");
        destroy_img_now(gpu, img);
        return NULL;
    }
    VkImageCreateInfo ci = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.imageType = volume ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
    ci.format = img->vkfmt;
    ci.extent.width = desc->width;
    ci.extent.height = desc->height;
    ci.extent.depth = volume ? desc->depth : 1;
    ci.mipLevels = img->desc.mips;
    ci.arrayLayers = img->desc.layers;
    ci.samples = desc->samples > 1 ? (VkSampleCountFlagBits)desc->samples : VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    uint32_t u = desc->usage;
    if (u & RILL__IMG_SAMPLED) {
        ci.usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
    }
    if (u & RILL__IMG_STORAGE) {
        ci.usage |= VK_IMAGE_USAGE_STORAGE_BIT;
    }
    if (u & RILL__IMG_COLOR) {
        ci.usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    }
    if (u & RILL__IMG_DEPTH) {
        ci.usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
    }
    if (u & RILL__IMG_TRANSFER_SRC) {
        ci.usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    }
    if (u & RILL__IMG_TRANSFER_DST) {
        ci.usage |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    }
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    ci.flags = cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0;
    /* the sRGB view: the two formats the image is viewed in, named so drivers keep compression */
    VkFormat both[2] = {img->vkfmt, twin};
    VkImageFormatListCreateInfo fl = {VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
    if (twin != VK_FORMAT_UNDEFINED) {
        ci.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
        fl.viewFormatCount = 2;
        fl.pViewFormats = both;
        ci.pNext = &fl;
    }
    VkResult res = vkCreateImage(gpu->dev, &ci, NULL, &img->img);
    if (res != VK_SUCCESS) {
        rill__vk_fail(err, res, "vkCreateImage", __FILE__, __LINE__);
        img->img = VK_NULL_HANDLE;
        destroy_img_now(gpu, img);
        return NULL;
    }
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(gpu->dev, img->img, &req);
    if (rill__vk_mem_alloc(gpu, &req, false, &img->alloc, err) != RILL_OK) {
        destroy_img_now(gpu, img);
        return NULL;
    }
    res = vkBindImageMemory(gpu->dev, img->img, rill__vk_mem_memory(gpu, &img->alloc),
                            img->alloc.offset);
    if (res != VK_SUCCESS) {
        rill__vk_fail(err, res, "vkBindImageMemory", __FILE__, __LINE__);
        destroy_img_now(gpu, img);
        return NULL;
    }
    rill__vk_name(gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)img->img, img->desc.label);
    img->view = make_view(gpu, img, -1, 0, img->desc.mips, err);
    if (twin != VK_FORMAT_UNDEFINED) {
        img->srgb_view = make_view_as(gpu, img, -1, 0, img->desc.mips, twin, err);
    }
    if (!img->view || (twin != VK_FORMAT_UNDEFINED && !img->srgb_view)) {
        destroy_img_now(gpu, img);
        return NULL;
    }
    if (img->desc.layers > 1 || (img->desc.usage & RILL__IMG_ARRAY)) {
        img->layer_views =
            rill_calloc_tagged(img->desc.layers, sizeof(VkImageView), RILL_MEM_RENDER);
        if (!img->layer_views) {
            rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
            destroy_img_now(gpu, img);
            return NULL;
        }
        for (uint32_t i = 0; i < img->desc.layers; i++) {
            img->layer_views[i] = make_view(gpu, img, (int32_t)i, 0, img->desc.mips, err);
            if (!img->layer_views[i]) {
                destroy_img_now(gpu, img);
                return NULL;
            }
        }
    }
    if ((u & RILL__IMG_STORAGE) && (cube || img->desc.mips > 1) && !make_mip_views(gpu, img, err)) {
        destroy_img_now(gpu, img);
        return NULL;
    }
    return img;
}

void rill__img_destroy(rill__gpu *gpu, rill__img *img) {
    RILL__GPU_GUARD(gpu);
    if (!img) {
        return;
    }
    rill__vk_drop_uploads_for(gpu, img);
    defer(gpu, VK_DEL_IMG, img);
}

const rill__img_desc *rill__img_get_desc(const rill__img *img) {
    return &img->desc;
}
bool rill__img_ready(const rill__img *img) {
    return img && img->ready;
}

void rill__vk_destroy_now(rill__gpu *gpu, const vk_del *d) {
    switch (d->kind) {
    case VK_DEL_BUF: {
        rill__buf *b = d->obj;
        vkDestroyBuffer(gpu->dev, b->buf, NULL);
        rill__vk_mem_free(gpu, &b->alloc);
        rill_free(b);
        break;
    }
    case VK_DEL_IMG:
        destroy_img_now(gpu, d->obj);
        break;
    case VK_DEL_PIPE: {
        rill__pipe *p = d->obj;
        vkDestroyPipeline(gpu->dev, p->pipe, NULL);
        vkDestroyPipelineLayout(gpu->dev, p->layout, NULL);
        for (uint32_t i = 0; i < p->set_count; i++) {
            vkDestroyDescriptorSetLayout(gpu->dev, p->set_layouts[i], NULL);
        }
        rill_free(p);
        break;
    }
    case VK_DEL_DSET: {
        rill__dset *s = d->obj;
        vkFreeDescriptorSets(gpu->dev, s->pool, 1, &s->set);
        rill_free(s);
        break;
    }
    case VK_DEL_ACCEL:
        rill__vk_accel_destroy_now(gpu, d->obj);
        break;
    }
}

void rill__pipe_destroy(rill__gpu *gpu, rill__pipe *pipe) {
    RILL__GPU_GUARD(gpu);
    if (pipe) {
        defer(gpu, VK_DEL_PIPE, pipe);
    }
}

void rill__dset_destroy(rill__gpu *gpu, rill__dset *set) {
    RILL__GPU_GUARD(gpu);
    if (set) {
        defer(gpu, VK_DEL_DSET, set);
    }
}

/* >>uploads --------------------------------------------------------------------------------- */

static rill_result queue_upload(rill__gpu *gpu, bool is_image, void *target, uint64_t offset,
                                const void *data, uint64_t size, rill_error *err) {
    vk_upload u = {is_image, target, offset, size, rill_malloc_tagged(size, RILL_MEM_RENDER)};
    if (!u.data) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for an upload");
    }
    memcpy(u.data, data, size);
    u.gen_mips = is_image;
    u.level_count = 1;
    if (!is_image) {
        u.seq = ((rill__buf *)target)->uploads_queued + 1u;
    }
    if (!rill_array_push(&gpu->uploads, u)) {
        rill_free(u.data);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for an upload");
    }
    if (!is_image) {
        ((rill__buf *)target)->uploads_queued = u.seq;
    }
    return RILL_OK;
}

uint64_t rill__buf_upload_seq(const rill__buf *buf) {
    return buf ? buf->uploads_queued : 0u;
}

bool rill__buf_seq_done(const rill__buf *buf, uint64_t seq) {
    return buf && (buf->mapped || buf->uploads_done >= seq);
}

rill_result rill__buf_upload(rill__gpu *gpu, rill__buf *buf, uint64_t offset, const void *data,
                             uint64_t size, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (!buf || !data || size == 0 || offset + size > buf->size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: upload out of buffer range");
    }
    if (buf->mapped) {
        memcpy((uint8_t *)buf->mapped + offset, data, size);
        return RILL_OK;
    }
    return queue_upload(gpu, false, buf, offset, data, size, err);
}

rill_result rill__img_upload(rill__gpu *gpu, rill__img *img, const void *data, uint64_t size,
                             rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (!img || !data || size == 0 || img->desc.depth > 1) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: empty image upload (or a 3D image: GPU-written only)");
    }
    return queue_upload(gpu, true, img, 0, data, size, err);
}

/* The bytes of level `level` of img. A packed upload's levels follow each other, each 16-byte
 * aligned (a multiple of every texel block size, as vkCmdCopyBufferToImage needs). */
static uint64_t level_bytes(const rill__img *img, uint32_t level) {
    return rill__fmt_level_bytes(img->desc.format, img->desc.width, img->desc.height, level);
}

rill_result rill__img_upload_levels(rill__gpu *gpu, rill__img *img, uint32_t first_level,
                                    uint32_t level_count, const void *const *level_data,
                                    const uint64_t *level_size, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (!img || level_count == 0 || first_level + level_count > img->desc.mips ||
        rill__fmt_unit_bytes(img->desc.format) == 0 || img->desc.depth > 1) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: image '%s': levels %u..%u out of its %u",
                              img ? img->desc.label : "?", first_level, first_level + level_count,
                              img ? img->desc.mips : 0);
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < level_count; i++) {
        if (!level_data[i] || level_size[i] != level_bytes(img, first_level + i)) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "render: image '%s': level %u holds %llu bytes, expected %llu",
                                  img->desc.label, first_level + i,
                                  (unsigned long long)level_size[i],
                                  (unsigned long long)level_bytes(img, first_level + i));
        }
        total += RILL_ALIGN_UP(level_size[i], (uint64_t)16);
    }
    vk_upload u = {true, img, 0, total, rill_malloc_tagged(total, RILL_MEM_RENDER)};
    if (!u.data) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for an upload");
    }
    uint64_t at = 0;
    for (uint32_t i = 0; i < level_count; i++) {
        memcpy((uint8_t *)u.data + at, level_data[i], level_size[i]);
        at += RILL_ALIGN_UP(level_size[i], (uint64_t)16);
    }
    u.first_level = first_level;
    u.level_count = level_count;
    u.gen_mips = false;
    if (!rill_array_push(&gpu->uploads, u)) {
        rill_free(u.data);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for an upload");
    }
    return RILL_OK;
}

rill_result rill__img_upload_levels_borrowed(rill__gpu *gpu, rill__img *img, uint32_t level_count,
                                             const void *const *level_data,
                                             const uint64_t *level_size,
                                             void (*release)(void *user), void *user,
                                             rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (!img || level_count == 0 || level_count > img->desc.mips ||
        rill__fmt_unit_bytes(img->desc.format) == 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: image '%s': %u levels out of its %u",
                              img ? img->desc.label : "?", level_count, img ? img->desc.mips : 0);
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < level_count; i++) {
        if (!level_data[i] || level_size[i] != level_bytes(img, i)) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "render: image '%s': level %u holds %llu bytes, expected %llu",
                                  img->desc.label, i, (unsigned long long)level_size[i],
                                  (unsigned long long)level_bytes(img, i));
        }
        total += RILL_ALIGN_UP(level_size[i], (uint64_t)16);
    }
    vk_upload u = {true, img, 0, total, NULL};
    u.borrowed = rill_malloc_tagged(level_count * sizeof(void *), RILL_MEM_RENDER);
    if (!u.borrowed) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for an upload");
    }
    memcpy(u.borrowed, level_data, level_count * sizeof(void *));
    u.release = release;
    u.release_user = user;
    u.first_level = 0;
    u.level_count = level_count;
    if (!rill_array_push(&gpu->uploads, u)) {
        rill_free(u.borrowed);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for an upload");
    }
    return RILL_OK;
}

void rill__vk_upload_free(vk_upload *u) {
    rill_free(u->data);
    rill_free(u->borrowed);
    if (u->release) {
        u->release(u->release_user);
    }
    u->data = NULL;
    u->borrowed = NULL;
    u->release = NULL;
}

/* The shape upload_pieces.c cuts u by. An image already drawn goes whole (a band would leave it
 * mid-copy while sampled), as does a 3D image or a level 0 whose bytes are not the level's. */
static rill__upload_shape upload_shape(const vk_upload *u) {
    rill__upload_shape s = {.size = u->size, .image = u->is_image};
    if (u->is_image) {
        const rill__img *img = u->target;
        s.width = img->desc.width;
        s.height = img->desc.height;
        s.first_level = u->first_level;
        s.level_count = u->level_count;
        s.unit_bytes = rill__fmt_unit_bytes(img->desc.format);
        s.block = rill__fmt_is_block(img->desc.format);
        s.whole_only =
            img->ready || img->desc.depth > 1 || (u->gen_mips && u->size != level_bytes(img, 0));
    }
    return s;
}

/* Copies piece p of u to dst: from its own copy, or from its borrowed levels packed the way the
 * pieces count them (each level padded to 16 bytes). An own copy holds one level, unpadded: a
 * piece of whole levels counts its padding too, which is past the copy's end and never read by
 * the image copy, so only the bytes the copy has are read. */
static void piece_copy_out(const vk_upload *u, const rill__upload_shape *s,
                           const rill__upload_piece *p, uint8_t *dst) {
    if (!u->borrowed) {
        uint64_t have = u->size > p->src ? u->size - p->src : 0u;
        memcpy(dst, (const uint8_t *)u->data + p->src, RILL_MIN(p->bytes, have));
        return;
    }
    if (p->rows) {
        const uint8_t *level = u->borrowed[p->level];
        memcpy(dst, level + (uint64_t)p->row * rill__upload_row_bytes(s, p->level), p->bytes);
        return;
    }
    uint64_t at = 0;
    for (uint32_t i = 0; i < p->levels; i++) {
        uint64_t n = level_bytes(u->target, u->first_level + p->level + i);
        memcpy(dst + at, u->borrowed[p->level + i], n);
        at += RILL_ALIGN_UP(n, (uint64_t)16);
    }
}

void rill__vk_drop_uploads_for(rill__gpu *gpu, const void *target) {
    for (uint32_t i = 0; i < gpu->uploads.len;) {
        if (gpu->uploads.data[i].target == target) {
            rill__vk_upload_free(&gpu->uploads.data[i]);
            memmove(&gpu->uploads.data[i], &gpu->uploads.data[i + 1],
                    (gpu->uploads.len - i - 1) * sizeof(vk_upload));
            gpu->uploads.len--;
        } else {
            i++;
        }
    }
}

static void img_barrier(VkCommandBuffer cb, VkImage image, uint32_t mip, uint32_t mips,
                        VkImageLayout from, VkImageLayout to, VkPipelineStageFlags2 src_stage,
                        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                        VkAccessFlags2 dst_access) {
    VkImageMemoryBarrier2 b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    b.srcStageMask = src_stage;
    b.srcAccessMask = src_access;
    b.dstStageMask = dst_stage;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.subresourceRange.baseMipLevel = mip;
    b.subresourceRange.levelCount = mips;
    b.subresourceRange.layerCount = VK_REMAINING_ARRAY_LAYERS;
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &b;
    vkCmdPipelineBarrier2(cb, &dep);
}

/* Generates levels 1.. of img from level 0 (in TRANSFER_DST, as every level is) with blits, and
 * leaves every level ready to sample. */
static void record_mip_chain(VkCommandBuffer cb, rill__img *img) {
    VkImage image = img->img;
    uint32_t mips = img->desc.mips;
    int32_t w = (int32_t)img->desc.width, h = (int32_t)img->desc.height;
    for (uint32_t m = 1; m < mips; m++) {
        img_barrier(cb, image, m - 1, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                    VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                    VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                    VK_ACCESS_2_TRANSFER_READ_BIT);
        VkImageBlit blit = {0};
        blit.srcSubresource.aspectMask = blit.dstSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        blit.srcSubresource.mipLevel = m - 1;
        blit.dstSubresource.mipLevel = m;
        blit.srcSubresource.layerCount = blit.dstSubresource.layerCount = 1;
        blit.srcOffsets[1].x = w;
        blit.srcOffsets[1].y = h;
        blit.srcOffsets[1].z = 1;
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
        blit.dstOffsets[1].x = w;
        blit.dstOffsets[1].y = h;
        blit.dstOffsets[1].z = 1;
        vkCmdBlitImage(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
    }
    if (mips > 1) {
        img_barrier(cb, image, 0, mips - 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                    VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                    VK_ACCESS_2_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                    VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    }
    img_barrier(cb, image, mips - 1, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
}

/* The copies of image piece p (whole levels, or a band of rows of one level) from src_off. */
static uint32_t piece_copies(const rill__img *img, const rill__upload_shape *s,
                             const rill__upload_piece *p, uint64_t src_off,
                             VkBufferImageCopy *copies) {
    uint32_t n = p->rows ? 1u : RILL_MIN(p->levels, (uint32_t)RILL__MAX_MIPS);
    uint32_t texel_rows = s->block ? 4u : 1u;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t level = s->first_level + p->level + i;
        uint32_t h = RILL_MAX(img->desc.height >> level, 1u);
        VkBufferImageCopy *c = &copies[i];
        memset(c, 0, sizeof(*c));
        c->bufferOffset = src_off + rill__upload_level_offset(s, p->level + i) -
                          rill__upload_level_offset(s, p->level);
        c->imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        c->imageSubresource.mipLevel = level;
        c->imageSubresource.layerCount = 1;
        c->imageExtent.width = RILL_MAX(img->desc.width >> level, 1u);
        c->imageExtent.height = h;
        c->imageExtent.depth = 1;
        if (p->rows) { /* a band: rows of pixels, or of 4x4 blocks */
            uint32_t y = p->row * texel_rows;
            c->bufferOffset = src_off;
            c->imageOffset.y = (int32_t)y;
            c->imageExtent.height = RILL_MIN(p->rows * texel_rows, h - y);
        }
    }
    return n;
}

/* Image piece p of u. The first piece of a level takes it from whatever it held (UNDEFINED: a
 * replacement discards the old contents; the barrier waits for every earlier command, since
 * earlier frames may have sampled it); the piece that ends the last level leaves the levels
 * ready to sample, generating the mip chain first for rill__img_upload. Between pieces a level
 * stays in TRANSFER_DST: the image is not ready, so nothing samples it. */
static void record_image_piece(VkCommandBuffer cb, rill__img *img, const vk_upload *u,
                               const rill__upload_shape *s, const rill__upload_piece *p,
                               VkBuffer src, uint64_t src_off) {
    VkImage image = img->img;
    uint32_t first = s->first_level + p->level;
    if (p->begins_level) {
        if (u->gen_mips) {
            img_barrier(cb, image, 0, img->desc.mips, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, 0,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        } else {
            img_barrier(cb, image, first, p->levels, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                        0, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        }
    }
    VkBufferImageCopy copies[RILL__MAX_MIPS];
    uint32_t n = piece_copies(img, s, p, src_off, copies);
    vkCmdCopyBufferToImage(cb, src, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n, copies);
    if (!p->ends_level) {
        return;
    }
    if (u->gen_mips) {
        record_mip_chain(cb, img);
    } else {
        img_barrier(cb, image, first, p->levels, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                    VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                    VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                    VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    }
    if (p->ends) {
        img->ready = true;
    }
}

/* Staging for a piece of `need` bytes: the frame's ring while it has room, else (the first piece
 * of a frame, larger than the whole budget) a buffer of its own, destroyed once the frame ends. */
static rill__buf *piece_staging(rill__gpu *gpu, vk_frame *f, uint64_t need, uint64_t *src_off) {
    *src_off = RILL_ALIGN_UP(f->staging_used, (uint64_t)16);
    if (*src_off + need <= gpu->desc.upload_budget_bytes) {
        f->staging_used = *src_off + need;
        return f->staging;
    }
    *src_off = 0;
    return rill__buf_create(gpu, need, RILL__BUF_TRANSFER_SRC, true, "oversized staging", NULL);
}

/* Records piece p of u from staging; false when no staging could be made for it. */
static bool record_piece(rill__gpu *gpu, VkCommandBuffer cb, vk_frame *f, vk_upload *u,
                         const rill__upload_shape *s, const rill__upload_piece *p) {
    uint64_t src_off = 0;
    rill__buf *src = piece_staging(gpu, f, RILL_ALIGN_UP(p->bytes, (uint64_t)16), &src_off);
    if (!src) {
        return false;
    }
    piece_copy_out(u, s, p, (uint8_t *)src->mapped + src_off);
    if (u->is_image) {
        record_image_piece(cb, u->target, u, s, p, src->buf, src_off);
    } else {
        rill__buf *dst = u->target;
        VkBufferCopy c = {src_off, u->offset + p->src, p->bytes};
        vkCmdCopyBuffer(cb, src->buf, dst->buf, 1, &c);
        if (p->ends) {
            dst->ready = true;
            dst->uploads_done = RILL_MAX(dst->uploads_done, u->seq);
        }
    }
    if (src != f->staging) {
        rill__buf_destroy(gpu, src); /* deferred until this frame completes */
    }
    return true;
}

/* Records queued uploads in FIFO order until the frame's byte budget is spent. An upload larger
 * than what is left goes in pieces (upload_pieces.c) over the next frames, its target ready with
 * the last; the first piece of a frame always goes (through a staging buffer of its own when one
 * row or a whole_only upload exceeds the budget), so nothing stalls the queue forever. */
void rill__vk_record_uploads(rill__gpu *gpu, VkCommandBuffer cb, vk_frame *f) {
    uint64_t budget = gpu->desc.upload_budget_bytes;
    uint64_t used = 0; /* staging bytes of this frame's pieces, each padded to 16 */
    uint32_t done = 0;
    bool any_buffer = false, head_touched = false;
    gpu->uploaded_last_frame = 0;
    while (done < gpu->uploads.len) {
        vk_upload *u = &gpu->uploads.data[done];
        rill__upload_shape s = upload_shape(u);
        rill__upload_piece p;
        bool first = gpu->uploaded_last_frame == 0;
        if (!rill__upload_next_piece(&s, &u->at, used < budget ? budget - used : 0, first, &p) ||
            !record_piece(gpu, cb, f, u, &s, &p)) {
            break;
        }
        used += RILL_ALIGN_UP(p.bytes, (uint64_t)16);
        any_buffer |= !u->is_image;
        head_touched = !p.ends;
        rill__upload_advance(&s, &u->at, &p);
        gpu->uploaded_last_frame += p.bytes;
        if (p.ends) {
            rill__vk_upload_free(u);
            done++;
        }
    }
    if (any_buffer) {
        rill__vk_memory_barrier(cb, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                                VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT);
    }
    if (done) {
        memmove(gpu->uploads.data, gpu->uploads.data + done,
                (gpu->uploads.len - done) * sizeof(vk_upload));
        gpu->uploads.len -= done;
    }
    gpu->upload_figures.uploads = done + (head_touched ? 1u : 0u);
    gpu->upload_figures.backlog_bytes = 0;
    for (uint32_t i = 0; i < gpu->uploads.len; i++) {
        gpu->upload_figures.backlog_bytes +=
            gpu->uploads.data[i].size - gpu->uploads.data[i].at.done;
    }
}

uint64_t rill__gpu_uploaded_last_frame(const rill__gpu *gpu) {
    return gpu->uploaded_last_frame;
}

void rill__gpu_upload_figures(const rill__gpu *gpu, rill__upload_figures *out) {
    *out = gpu->upload_figures;
}
