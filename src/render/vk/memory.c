/* memory.c: the GPU memory sub-allocator. Device memory comes in large blocks (desc block size,
 * 64 MiB by default) per memory type; buffers and images take aligned ranges of a block through a
 * first-fit free list (range_alloc.c). Requests larger than half a block get a dedicated block of
 * their own. Host-visible blocks are mapped once, for their whole life. Empty blocks are released
 * at once except one spare per memory type: the next allocation that outgrows the live blocks
 * takes it instead of a new block (allocating a 64 MiB block was the remaining spike of a texture
 * streaming swap, whose old image is freed as its new one is made). */
#include "vk_internal.h"

#include <string.h>

static int32_t find_type(const rill__gpu *gpu, uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < gpu->memprops.memoryTypeCount; i++) {
        if ((bits & (1u << i)) && (gpu->memprops.memoryTypes[i].propertyFlags & want) == want) {
            return (int32_t)i;
        }
    }
    return -1;
}

static rill_result new_block(rill__gpu *gpu, uint32_t type, uint64_t size, bool dedicated,
                             int32_t *out_index, rill_error *err) {
    vk_block b;
    memset(&b, 0, sizeof(b));
    b.type = type;
    b.size = size;
    b.dedicated = dedicated;
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = size;
    ai.memoryTypeIndex = type;
    /* With ray queries on, buffers are found by device address (acceleration structure inputs,
     * gi_hwrt.c): every block may hold such a buffer. */
    VkMemoryAllocateFlagsInfo flags = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    if (gpu->caps.ray_query) {
        ai.pNext = &flags;
    }
    RILL__VK_TRY(err, vkAllocateMemory(gpu->dev, &ai, NULL, &b.mem));
    if (gpu->memprops.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        VkResult res = vkMapMemory(gpu->dev, b.mem, 0, VK_WHOLE_SIZE, 0, &b.mapped);
        if (res != VK_SUCCESS) {
            vkFreeMemory(gpu->dev, b.mem, NULL);
            return rill__vk_fail(err, res, "vkMapMemory", __FILE__, __LINE__);
        }
    }
    if (!rill__range_init(&b.ra, size)) {
        vkFreeMemory(gpu->dev, b.mem, NULL);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    /* Reuse a released slot so block indices held by live allocations stay valid. */
    for (uint32_t i = 0; i < gpu->blocks.len; i++) {
        if (!gpu->blocks.data[i].mem) {
            gpu->blocks.data[i] = b;
            *out_index = (int32_t)i;
            return RILL_OK;
        }
    }
    if (!rill_array_push(&gpu->blocks, b)) {
        rill__range_destroy(&b.ra);
        vkFreeMemory(gpu->dev, b.mem, NULL);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    *out_index = (int32_t)gpu->blocks.len - 1;
    return RILL_OK;
}

rill_result rill__vk_mem_alloc(rill__gpu *gpu, const VkMemoryRequirements *req, bool host_visible,
                               vk_alloc *out, rill_error *err) {
    out->block = -1;
    VkMemoryPropertyFlags want =
        host_visible ? (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
                     : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    int32_t type = find_type(gpu, req->memoryTypeBits, want);
    if (type < 0 && !host_visible) {
        type = find_type(gpu, req->memoryTypeBits, 0);
    }
    if (type < 0) {
        return rill_error_set(err, RILL_ERR_UNSUPPORTED, "render: no memory type for a %s resource",
                              host_visible ? "host-visible" : "device-local");
    }
    /* Aligning every range to bufferImageGranularity keeps linear and optimal resources from ever
     * sharing a granularity page, at the cost of a little padding. */
    uint64_t align = RILL_MAX(req->alignment, gpu->props.limits.bufferImageGranularity);
    align = RILL_MAX(align, (uint64_t)16);
    uint64_t size = RILL_ALIGN_UP(req->size, align);
    uint64_t block_size = gpu->desc.block_size_bytes;
    if (size > block_size / 2) {
        int32_t bi;
        rill_result r = new_block(gpu, (uint32_t)type, size, true, &bi, err);
        if (r != RILL_OK) {
            return r;
        }
        vk_block *b = &gpu->blocks.data[bi];
        uint64_t off = 0;
        rill__range_alloc_bytes(&b->ra, size, 1, &off);
        b->live++;
        out->block = bi;
        out->offset = 0;
        out->size = size;
        return RILL_OK;
    }
    for (uint32_t i = 0; i < gpu->blocks.len; i++) {
        vk_block *b = &gpu->blocks.data[i];
        if (!b->mem || b->dedicated || b->type != (uint32_t)type) {
            continue;
        }
        uint64_t off;
        if (rill__range_alloc_bytes(&b->ra, size, align, &off)) {
            b->live++;
            out->block = (int32_t)i;
            out->offset = off;
            out->size = size;
            return RILL_OK;
        }
    }
    int32_t bi;
    rill_result r = new_block(gpu, (uint32_t)type, block_size, false, &bi, err);
    if (r != RILL_OK) {
        return r;
    }
    vk_block *b = &gpu->blocks.data[bi];
    uint64_t off;
    if (!rill__range_alloc_bytes(&b->ra, size, align, &off)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: allocation does not fit a block");
    }
    b->live++;
    out->block = bi;
    out->offset = off;
    out->size = size;
    return RILL_OK;
}

static void release_block(rill__gpu *gpu, vk_block *b) {
    if (b->mapped) {
        vkUnmapMemory(gpu->dev, b->mem);
    }
    vkFreeMemory(gpu->dev, b->mem, NULL);
    rill__range_destroy(&b->ra);
    memset(b, 0, sizeof(*b));
}

void rill__vk_mem_free(rill__gpu *gpu, vk_alloc *alloc) {
    if (!alloc || alloc->block < 0 || (uint32_t)alloc->block >= gpu->blocks.len) {
        return;
    }
    vk_block *b = &gpu->blocks.data[alloc->block];
    if (!rill__range_free(&b->ra, alloc->offset, alloc->size)) {
        RILL_LOG_WARN("render", "memory free list could not grow; %llu bytes leak until shutdown",
                      (unsigned long long)alloc->size);
    }
    b->live--;
    if (b->live == 0) {
        bool keep = false;
        if (!b->dedicated) {
            /* Keep one empty shared block per memory type: the spare. */
            uint32_t spares = 0;
            for (uint32_t i = 0; i < gpu->blocks.len; i++) {
                const vk_block *o = &gpu->blocks.data[i];
                if (o != b && o->mem && !o->dedicated && o->type == b->type && !o->live) {
                    spares++;
                }
            }
            keep = spares == 0;
        }
        if (!keep) {
            release_block(gpu, b);
        }
    }
    alloc->block = -1;
}

void *rill__vk_mem_mapped(rill__gpu *gpu, const vk_alloc *alloc) {
    const vk_block *b = &gpu->blocks.data[alloc->block];
    return b->mapped ? (uint8_t *)b->mapped + alloc->offset : NULL;
}

VkDeviceMemory rill__vk_mem_memory(rill__gpu *gpu, const vk_alloc *alloc) {
    return gpu->blocks.data[alloc->block].mem;
}

void rill__vk_mem_shutdown(rill__gpu *gpu) {
    for (uint32_t i = 0; i < gpu->blocks.len; i++) {
        vk_block *b = &gpu->blocks.data[i];
        if (!b->mem) {
            continue;
        }
        if (b->live) {
            RILL_LOG_WARN("render", "memory block %u still holds %u allocations at shutdown", i,
                          b->live);
        }
        release_block(gpu, b);
    }
    rill_array_free(&gpu->blocks);
}

void rill__gpu_mem_stats_get(const rill__gpu *gpu, rill__gpu_mem_stats *out) {
    memset(out, 0, sizeof(*out));
    for (uint32_t i = 0; i < gpu->blocks.len; i++) {
        const vk_block *b = &gpu->blocks.data[i];
        if (!b->mem) {
            continue;
        }
        out->blocks++;
        out->block_bytes += b->size;
        out->used_bytes += b->ra.used;
        out->allocations += b->live;
    }
}
