/* accel.c: acceleration structures for ray queries (caps.ray_query; the Hwrt GI tier,
 * ../gi_hwrt.c). A bottom-level structure (BLAS) holds one mesh's triangles, read straight from
 * the renderer's mesh buffers by device address; a top-level one (TLAS) holds instances of
 * BLASes, rebuilt every frame from host-visible instance memory with one slot per frame in
 * flight. Each structure lives in its own device-local buffer; a BLAS build's scratch is a buffer
 * destroyed once its frame has finished, a TLAS keeps its scratch. Builds record their own
 * barriers (the render graph knows images and buffers, not structures). */
#include "vk_internal.h"

#include <string.h>

struct rill__accel {
    rill__gpu_obj obj; /* first: the dispatcher's backend stamp */
    VkAccelerationStructureKHR as;
    rill__buf *storage;   /* holds the structure */
    rill__buf *scratch;   /* TLAS: its build scratch (a BLAS makes one per build) */
    rill__buf *instances; /* TLAS: frames in flight x max_instances records, host-visible */
    uint64_t address, scratch_size;
    uint32_t max_instances, triangles;
    bool top;
};

#define LOAD(gpu, field, name)                                                                     \
    ((gpu)->field = (PFN_##name)vkGetDeviceProcAddr((gpu)->dev, #name)) != NULL

rill_result rill__vk_accel_load(rill__gpu *gpu, rill_error *err) {
    bool ok = LOAD(gpu, create_as, vkCreateAccelerationStructureKHR) &&
              LOAD(gpu, destroy_as, vkDestroyAccelerationStructureKHR) &&
              LOAD(gpu, as_sizes, vkGetAccelerationStructureBuildSizesKHR) &&
              LOAD(gpu, cmd_build_as, vkCmdBuildAccelerationStructuresKHR) &&
              LOAD(gpu, as_address, vkGetAccelerationStructureDeviceAddressKHR);
    if (!ok) {
        return rill_error_set(err, RILL_ERR_VULKAN,
                              "vulkan: accel.c: the device enabled VK_KHR_acceleration_structure "
                              "but does not give its functions");
    }
    VkPhysicalDeviceAccelerationStructurePropertiesKHR ap = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
    VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &ap;
    vkGetPhysicalDeviceProperties2(gpu->pd, &p2);
    gpu->as_scratch_align = RILL_MAX(ap.minAccelerationStructureScratchOffsetAlignment, 1u);
    return RILL_OK;
}

uint64_t rill__buf_address(const rill__buf *buf) {
    return buf ? buf->address : 0;
}

uint64_t rill__vk_query_address(const rill__gpu *gpu, const rill__buf *buf) {
    VkBufferDeviceAddressInfo info = {VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = buf->buf;
    return vkGetBufferDeviceAddress(gpu->dev, &info);
}

VkAccelerationStructureKHR rill__vk_accel_handle(const rill__accel *a) {
    return a ? a->as : VK_NULL_HANDLE;
}

/* >>geometry --------------------------------------------------------------------------------- */

/* g's triangles as one opaque geometry (addresses filled: size queries ignore them). */
static VkAccelerationStructureGeometryKHR blas_geometry(const rill__gpu *gpu,
                                                        const rill__blas_geom *g) {
    VkAccelerationStructureGeometryKHR geo = {
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    geo.geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR;
    geo.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
    VkAccelerationStructureGeometryTrianglesDataKHR *t = &geo.geometry.triangles;
    t->sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR;
    t->vertexFormat = VK_FORMAT_R32G32B32_SFLOAT;
    t->vertexData.deviceAddress = rill__vk_query_address(gpu, g->vertices);
    t->vertexStride = g->vertex_stride;
    t->maxVertex = g->max_vertex;
    t->indexType = VK_INDEX_TYPE_UINT32;
    t->indexData.deviceAddress = rill__vk_query_address(gpu, g->indices);
    return geo;
}

static VkAccelerationStructureGeometryKHR tlas_geometry(uint64_t instances_address) {
    VkAccelerationStructureGeometryKHR geo = {
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    geo.geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR;
    geo.geometry.instances.sType =
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR;
    geo.geometry.instances.arrayOfPointers = VK_FALSE;
    geo.geometry.instances.data.deviceAddress = instances_address;
    return geo;
}

static VkAccelerationStructureBuildGeometryInfoKHR
build_info(bool top, const VkAccelerationStructureGeometryKHR *geo) {
    VkAccelerationStructureBuildGeometryInfoKHR bi = {
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
    bi.type = top ? VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR
                  : VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR;
    bi.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
    bi.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
    bi.geometryCount = 1;
    bi.pGeometries = geo;
    return bi;
}

/* >>creation --------------------------------------------------------------------------------- */

static rill__accel *accel_fail(rill__gpu *gpu, rill__accel *a) {
    if (a) {
        rill__vk_accel_destroy_now(gpu, a);
    }
    return NULL;
}

/* Makes a's structure of `size` bytes in its own buffer and reads its address. */
static rill_result accel_make(rill__gpu *gpu, rill__accel *a, uint64_t size, const char *label,
                              rill_error *err) {
    a->storage = rill__buf_create(gpu, size, RILL__BUF_ACCEL_STORAGE, false, label, err);
    if (!a->storage) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    VkAccelerationStructureCreateInfoKHR ci = {
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
    ci.buffer = a->storage->buf;
    ci.size = size;
    ci.type = a->top ? VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR
                     : VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR;
    RILL__VK_TRY(err, gpu->create_as(gpu->dev, &ci, NULL, &a->as));
    rill__vk_name(gpu, VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR, (uint64_t)a->as, label);
    VkAccelerationStructureDeviceAddressInfoKHR ai = {
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
    ai.accelerationStructure = a->as;
    a->address = gpu->as_address(gpu->dev, &ai);
    return RILL_OK;
}

static rill__accel *accel_new(rill__gpu *gpu, const char *label, rill_error *err) {
    if (!gpu->caps.ray_query) {
        rill_error_set(err, RILL_ERR_UNSUPPORTED,
                       "render: acceleration structure '%s': no ray queries on this device (%s)",
                       label ? label : "?", gpu->caps.ray_query_note);
        return NULL;
    }
    rill__accel *a = rill_calloc_tagged(1, sizeof(*a), RILL_MEM_RENDER);
    if (!a) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (accel)");
    }
    return a;
}

rill__accel *rill__blas_create(rill__gpu *gpu, const rill__blas_geom *g, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (!g->vertices || !g->indices || g->index_count < 3 || g->vertex_offset < 0 ||
        g->vertex_stride < 12) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: BLAS '%s': no triangles or a bad vertex layout",
                       label ? label : "?");
        return NULL;
    }
    rill__accel *a = accel_new(gpu, label, err);
    if (!a) {
        return NULL;
    }
    a->triangles = g->index_count / 3u;
    VkAccelerationStructureGeometryKHR geo = blas_geometry(gpu, g);
    VkAccelerationStructureBuildGeometryInfoKHR bi = build_info(false, &geo);
    VkAccelerationStructureBuildSizesInfoKHR sz = {
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
    gpu->as_sizes(gpu->dev, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &bi, &a->triangles,
                  &sz);
    a->scratch_size = sz.buildScratchSize;
    if (accel_make(gpu, a, sz.accelerationStructureSize, label, err) != RILL_OK) {
        return accel_fail(gpu, a);
    }
    if (out_sizes) {
        *out_sizes = (rill__accel_sizes){sz.accelerationStructureSize, sz.buildScratchSize};
    }
    return a;
}

rill__accel *rill__tlas_create(rill__gpu *gpu, uint32_t max_instances, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    rill__accel *a = accel_new(gpu, label, err);
    if (!a) {
        return NULL;
    }
    a->top = true;
    a->max_instances = RILL_MAX(max_instances, 1u);
    uint64_t slot = (uint64_t)a->max_instances * sizeof(VkAccelerationStructureInstanceKHR);
    a->instances = rill__buf_create(gpu, slot * gpu->desc.frames_in_flight, RILL__BUF_STORAGE, true,
                                    "tlas instances", err);
    if (!a->instances) {
        return accel_fail(gpu, a);
    }
    VkAccelerationStructureGeometryKHR geo = tlas_geometry(0);
    VkAccelerationStructureBuildGeometryInfoKHR bi = build_info(true, &geo);
    VkAccelerationStructureBuildSizesInfoKHR sz = {
        VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
    gpu->as_sizes(gpu->dev, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &bi, &a->max_instances,
                  &sz);
    a->scratch_size = sz.buildScratchSize;
    if (accel_make(gpu, a, sz.accelerationStructureSize, label, err) != RILL_OK) {
        return accel_fail(gpu, a);
    }
    a->scratch = rill__buf_create(gpu, a->scratch_size + gpu->as_scratch_align, RILL__BUF_STORAGE,
                                  false, "tlas scratch", err);
    if (!a->scratch) {
        return accel_fail(gpu, a);
    }
    if (out_sizes) {
        *out_sizes = (rill__accel_sizes){sz.accelerationStructureSize, sz.buildScratchSize};
    }
    return a;
}

uint64_t rill__accel_address(const rill__accel *a) {
    return a ? a->address : 0;
}

void rill__vk_accel_destroy_now(rill__gpu *gpu, rill__accel *a) {
    if (a->as) {
        gpu->destroy_as(gpu->dev, a->as, NULL);
    }
    rill__buf *bufs[3] = {a->storage, a->scratch, a->instances};
    for (int i = 0; i < 3; i++) {
        if (bufs[i]) {
            vk_del d = {VK_DEL_BUF, 0, bufs[i]};
            rill__vk_drop_uploads_for(gpu, bufs[i]);
            rill__vk_destroy_now(gpu, &d);
        }
    }
    rill_free(a);
}

void rill__accel_destroy(rill__gpu *gpu, rill__accel *a) {
    RILL__GPU_GUARD(gpu);
    if (a) {
        rill__vk_defer(gpu, VK_DEL_ACCEL, a);
    }
}

/* >>builds ----------------------------------------------------------------------------------- */

static uint64_t align_up(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

rill_result rill__cmd_build_blas(rill__cmd *cmd, rill__accel *blas, const rill__blas_geom *g,
                                 rill_error *err) {
    rill__gpu *gpu = cmd->gpu;
    if (!blas || blas->top || g->index_count / 3u != blas->triangles) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: accel.c: a BLAS build with other geometry than it was "
                              "created for");
    }
    rill__buf *scratch = rill__buf_create(gpu, blas->scratch_size + gpu->as_scratch_align,
                                          RILL__BUF_STORAGE, false, "blas scratch", err);
    if (!scratch) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    /* every earlier write (the mesh's upload, skinning) is seen by the build's reads */
    rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                            VK_ACCESS_2_MEMORY_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                            VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
    VkAccelerationStructureGeometryKHR geo = blas_geometry(gpu, g);
    VkAccelerationStructureBuildGeometryInfoKHR bi = build_info(false, &geo);
    bi.dstAccelerationStructure = blas->as;
    bi.scratchData.deviceAddress =
        align_up(rill__vk_query_address(gpu, scratch), gpu->as_scratch_align);
    VkAccelerationStructureBuildRangeInfoKHR range = {0};
    range.primitiveCount = blas->triangles;
    range.primitiveOffset = g->first_index * (uint32_t)sizeof(uint32_t);
    range.firstVertex = (uint32_t)g->vertex_offset;
    const VkAccelerationStructureBuildRangeInfoKHR *ranges = &range;
    gpu->cmd_build_as(cmd->cb, 1, &bi, &ranges);
    rill__buf_destroy(gpu, scratch); /* deferred past this frame */
    return RILL_OK;
}

void rill__cmd_build_tlas(rill__cmd *cmd, rill__accel *tlas, const rill__accel_instance *inst,
                          uint32_t count) {
    rill__gpu *gpu = cmd->gpu;
    if (!tlas || !tlas->top) {
        return;
    }
    count = RILL_MIN(count, tlas->max_instances);
    uint32_t slot = (uint32_t)(cmd->f - gpu->frames);
    uint64_t slot_bytes =
        (uint64_t)tlas->max_instances * sizeof(VkAccelerationStructureInstanceKHR);
    uint8_t *dst = (uint8_t *)rill__buf_map(tlas->instances) + slot * slot_bytes;
    _Static_assert(sizeof(rill__accel_instance) == sizeof(VkAccelerationStructureInstanceKHR),
                   "rill__accel_instance is laid out as VkAccelerationStructureInstanceKHR");
    if (count) {
        memcpy(dst, inst, (size_t)count * sizeof(*inst));
    }
    /* the BLAS builds (and last frame's trace of this TLAS) before this build */
    rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                            VK_ACCESS_2_MEMORY_WRITE_BIT | VK_ACCESS_2_MEMORY_READ_BIT,
                            VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                            VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
    VkAccelerationStructureGeometryKHR geo =
        tlas_geometry(rill__vk_query_address(gpu, tlas->instances) + slot * slot_bytes);
    VkAccelerationStructureBuildGeometryInfoKHR bi = build_info(true, &geo);
    bi.dstAccelerationStructure = tlas->as;
    bi.scratchData.deviceAddress =
        align_up(rill__vk_query_address(gpu, tlas->scratch), gpu->as_scratch_align);
    VkAccelerationStructureBuildRangeInfoKHR range = {0};
    range.primitiveCount = count;
    const VkAccelerationStructureBuildRangeInfoKHR *ranges = &range;
    gpu->cmd_build_as(cmd->cb, 1, &bi, &ranges);
    /* the build is seen by the compute passes' ray queries */
    rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                            VK_ACCESS_2_ACCELERATION_STRUCTURE_WRITE_BIT_KHR,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_ACCELERATION_STRUCTURE_READ_BIT_KHR);
}
