/* pipeline.c: graphics and compute pipelines (dynamic rendering, through the pipeline cache),
 * their descriptor set layouts, and descriptor sets: persistent ones from growing pools with
 * free support (materials), transient ones from per-frame pools reset when the frame slot comes
 * back around. */
#include "vk_internal.h"

#include <string.h>

static VkDescriptorType desc_type(rill__bind_kind k) {
    switch (k) {
    case RILL__BIND_UNIFORM:
        return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case RILL__BIND_STORAGE:
        return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case RILL__BIND_TEXTURE:
        return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    case RILL__BIND_STORAGE_IMAGE:
        return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case RILL__BIND_SAMPLED_IMAGE:
        return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case RILL__BIND_SAMPLER:
        return VK_DESCRIPTOR_TYPE_SAMPLER;
    case RILL__BIND_ACCEL:
        return VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
    default:
        return VK_DESCRIPTOR_TYPE_MAX_ENUM;
    }
}

static VkShaderModule make_module(rill__gpu *gpu, const uint32_t *code, size_t size,
                                  rill_error *err) {
    VkShaderModuleCreateInfo ci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = size;
    ci.pCode = code;
    VkShaderModule m = VK_NULL_HANDLE;
    VkResult res = vkCreateShaderModule(gpu->dev, &ci, NULL, &m);
    if (res != VK_SUCCESS) {
        rill__vk_fail(err, res, "vkCreateShaderModule", __FILE__, __LINE__);
        return VK_NULL_HANDLE;
    }
    return m;
}

static VkCompareOp cmp_op(rill__cmp c) {
    switch (c) {
    case RILL__CMP_LESS_EQUAL:
        return VK_COMPARE_OP_LESS_OR_EQUAL;
    case RILL__CMP_EQUAL:
        return VK_COMPARE_OP_EQUAL;
    case RILL__CMP_ALWAYS:
        return VK_COMPARE_OP_ALWAYS;
    default:
        return VK_COMPARE_OP_LESS;
    }
}

static rill_result make_layouts(rill__gpu *gpu, rill__pipe *p, const rill__pipe_desc *d,
                                rill_error *err) {
    p->set_count = d->set_count;
    for (uint32_t s = 0; s < d->set_count; s++) {
        p->sets[s] = d->sets[s];
        VkDescriptorSetLayoutBinding b[RILL__MAX_BINDINGS];
        uint32_t n = 0;
        for (uint32_t i = 0; i < RILL__MAX_BINDINGS && d->sets[s].bindings[i] != RILL__BIND_NONE;
             i++) {
            memset(&b[n], 0, sizeof(b[n]));
            b[n].binding = i;
            b[n].descriptorType = desc_type(d->sets[s].bindings[i]);
            b[n].descriptorCount = 1;
            b[n].stageFlags = d->cs ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_ALL_GRAPHICS;
            n++;
        }
        VkDescriptorSetLayoutCreateInfo ci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        ci.bindingCount = n;
        ci.pBindings = b;
        RILL__VK_TRY(err, vkCreateDescriptorSetLayout(gpu->dev, &ci, NULL, &p->set_layouts[s]));
    }
    VkPushConstantRange pr = {d->cs ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_ALL_GRAPHICS, 0,
                              d->push_size};
    VkPipelineLayoutCreateInfo ci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    ci.setLayoutCount = d->set_count;
    ci.pSetLayouts = p->set_layouts;
    ci.pushConstantRangeCount = d->push_size ? 1 : 0;
    ci.pPushConstantRanges = &pr;
    RILL__VK_TRY(err, vkCreatePipelineLayout(gpu->dev, &ci, NULL, &p->layout));
    p->push_size = d->push_size;
    return RILL_OK;
}

static rill_result make_graphics(rill__gpu *gpu, rill__pipe *p, const rill__pipe_desc *d,
                                 VkShaderModule vs, VkShaderModule fs, rill_error *err) {
    VkPipelineShaderStageCreateInfo st[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                             {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    st[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    st[0].module = vs;
    st[0].pName = "main";
    st[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    st[1].module = fs;
    st[1].pName = "main";
    /* Binding 1: the vertex extras (rill__vertex_extra), their stride dynamic (0 for meshes
     * without, which all read the renderer's one default). */
    VkVertexInputBindingDescription vb[2] = {{0, 48, VK_VERTEX_INPUT_RATE_VERTEX},
                                             {1, 16, VK_VERTEX_INPUT_RATE_VERTEX}};
    VkVertexInputAttributeDescription va[6] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},   {1, 0, VK_FORMAT_R32G32B32_SFLOAT, 12},
        {2, 0, VK_FORMAT_R32G32_SFLOAT, 24},     {3, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 32},
        {4, 1, VK_FORMAT_R16G16B16A16_UNORM, 0}, {5, 1, VK_FORMAT_R32G32_SFLOAT, 8},
    };
    VkPipelineVertexInputStateCreateInfo vi = {
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    if (d->mesh_vertex_input) {
        vi.vertexBindingDescriptionCount = 2;
        vi.pVertexBindingDescriptions = vb;
        vi.vertexAttributeDescriptionCount = 6;
        vi.pVertexAttributeDescriptions = va;
    }
    VkPipelineInputAssemblyStateCreateInfo ia = {
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology =
        d->line_list ? VK_PRIMITIVE_TOPOLOGY_LINE_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo vp = {VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo rs = {
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode =
        d->wireframe && gpu->caps.fill_mode_non_solid ? VK_POLYGON_MODE_LINE : VK_POLYGON_MODE_FILL;
    rs.cullMode = d->cull == RILL__CULL_NONE    ? VK_CULL_MODE_NONE
                  : d->cull == RILL__CULL_FRONT ? VK_CULL_MODE_FRONT_BIT
                                                : VK_CULL_MODE_BACK_BIT;
    /* Viewports are flipped (negative height), so counter-clockwise stays front-facing. A
     * pipeline with a dynamic front face gets it per draw (mirrored instances: clockwise). */
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.depthBiasEnable = d->depth_bias;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms = {
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples =
        d->samples > 1 ? (VkSampleCountFlagBits)d->samples : VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds = {
        VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    ds.depthTestEnable = d->depth_test;
    ds.depthWriteEnable = d->depth_write;
    ds.depthCompareOp = cmp_op(d->depth_cmp);
    VkPipelineColorBlendAttachmentState cba[RILL__MAX_COLOR];
    memset(cba, 0, sizeof(cba));
    for (uint32_t i = 0; i < d->color_count; i++) {
        VkColorComponentFlags rgb =
            VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT;
        cba[i].colorWriteMask = d->alpha_only ? VK_COLOR_COMPONENT_A_BIT
                                : d->rgb_only ? rgb
                                              : rgb | VK_COLOR_COMPONENT_A_BIT;
        if (d->blend == RILL__BLEND_ALPHA) {
            cba[i].blendEnable = VK_TRUE;
            cba[i].srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
            cba[i].dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
            cba[i].colorBlendOp = VK_BLEND_OP_ADD;
            cba[i].srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
            cba[i].dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
            cba[i].alphaBlendOp = VK_BLEND_OP_ADD;
        }
    }
    VkPipelineColorBlendStateCreateInfo cb = {
        VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = d->color_count;
    cb.pAttachments = cba;
    /* VK_DYNAMIC_STATE_FRONT_FACE is core in Vulkan 1.3 (no feature to enable). */
    VkDynamicState dyn[5] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    uint32_t ndyn = 2;
    if (d->mesh_vertex_input) { /* core in Vulkan 1.3 */
        dyn[ndyn++] = VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE;
    }
    if (d->depth_bias) {
        dyn[ndyn++] = VK_DYNAMIC_STATE_DEPTH_BIAS;
    }
    if (d->dynamic_front_face) {
        dyn[ndyn++] = VK_DYNAMIC_STATE_FRONT_FACE;
    }
    VkPipelineDynamicStateCreateInfo dy = {VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dy.dynamicStateCount = ndyn;
    dy.pDynamicStates = dyn;
    VkFormat cf[RILL__MAX_COLOR];
    for (uint32_t i = 0; i < d->color_count; i++) {
        cf[i] = rill__vk_format(d->color_formats[i]);
    }
    VkPipelineRenderingCreateInfo ri = {VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    ri.colorAttachmentCount = d->color_count;
    ri.pColorAttachmentFormats = cf;
    ri.depthAttachmentFormat =
        d->depth_format ? rill__vk_format(d->depth_format) : VK_FORMAT_UNDEFINED;
    VkGraphicsPipelineCreateInfo ci = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    ci.pNext = &ri;
    ci.stageCount = fs ? 2 : 1;
    ci.pStages = st;
    ci.pVertexInputState = &vi;
    ci.pInputAssemblyState = &ia;
    ci.pViewportState = &vp;
    ci.pRasterizationState = &rs;
    ci.pMultisampleState = &ms;
    ci.pDepthStencilState = &ds;
    ci.pColorBlendState = &cb;
    ci.pDynamicState = &dy;
    ci.layout = p->layout;
    RILL__VK_TRY(err, vkCreateGraphicsPipelines(gpu->dev, gpu->pcache, 1, &ci, NULL, &p->pipe));
    return RILL_OK;
}

/* The pipeline's descriptors of each kind, counted per shader stage (every binding is visible
 * to every stage of its pipeline), against the device's per-stage limits. Vulkan guarantees
 * only 16 samplers per stage, and a material alone binds 17 textures (RILL_MATERIAL_TEX_NUM),
 * the lit passes the frame's (shadows, sky light, probes, decals...) besides: on a device below
 * that the renderer cannot be created, and says so here by name and number instead of failing
 * inside the driver. */
static rill_result check_stage_limits(const rill__gpu *gpu, const rill__pipe_desc *d,
                                      rill_error *err) {
    uint32_t tex = 0, ubo = 0, ssbo = 0, simg = 0, smp = 0;
    for (uint32_t s = 0; s < d->set_count; s++) {
        for (uint32_t i = 0; i < RILL__MAX_BINDINGS && d->sets[s].bindings[i] != RILL__BIND_NONE;
             i++) {
            rill__bind_kind k = d->sets[s].bindings[i];
            tex += k == RILL__BIND_TEXTURE || k == RILL__BIND_SAMPLED_IMAGE;
            smp += k == RILL__BIND_TEXTURE || k == RILL__BIND_SAMPLER;
            ubo += k == RILL__BIND_UNIFORM;
            ssbo += k == RILL__BIND_STORAGE;
            simg += k == RILL__BIND_STORAGE_IMAGE;
        }
    }
    const VkPhysicalDeviceLimits *l = &gpu->props.limits;
    const struct {
        uint32_t need, have;
        const char *what, *limit;
    } c[] = {
        {smp, l->maxPerStageDescriptorSamplers, "samplers", "maxPerStageDescriptorSamplers"},
        {tex, l->maxPerStageDescriptorSampledImages, "sampled images",
         "maxPerStageDescriptorSampledImages"},
        {ubo, l->maxPerStageDescriptorUniformBuffers, "uniform buffers",
         "maxPerStageDescriptorUniformBuffers"},
        {ssbo, l->maxPerStageDescriptorStorageBuffers, "storage buffers",
         "maxPerStageDescriptorStorageBuffers"},
        {simg, l->maxPerStageDescriptorStorageImages, "storage images",
         "maxPerStageDescriptorStorageImages"},
        {tex + ubo + ssbo + simg + d->color_count, l->maxPerStageResources, "resources",
         "maxPerStageResources"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        if (c[i].need > c[i].have) {
            rill_error_set(err, RILL_ERR_UNSUPPORTED,
                           "render: pipeline '%s' binds %u %s per shader stage; this device (%s) "
                           "allows %u (%s)",
                           d->label ? d->label : "?", c[i].need, c[i].what, gpu->props.deviceName,
                           c[i].have, c[i].limit);
            return RILL_ERR_UNSUPPORTED;
        }
    }
    return RILL_OK;
}

rill__pipe *rill__pipe_create(rill__gpu *gpu, const rill__pipe_desc *desc, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (desc->set_count > RILL__MAX_SETS || desc->color_count > RILL__MAX_COLOR ||
        (!desc->cs && !desc->vs)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: pipeline '%s': bad description",
                       desc->label ? desc->label : "?");
        return NULL;
    }
    if (check_stage_limits(gpu, desc, err) != RILL_OK) {
        return NULL;
    }
    rill__pipe *p = rill_calloc_tagged(1, sizeof(*p), RILL_MEM_RENDER);
    if (!p) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        return NULL;
    }
    p->compute = desc->cs != NULL;
    VkShaderModule m0 = VK_NULL_HANDLE, m1 = VK_NULL_HANDLE;
    rill_result r = make_layouts(gpu, p, desc, err);
    if (r == RILL_OK) {
        m0 = make_module(gpu, desc->cs ? desc->cs : desc->vs,
                         desc->cs ? desc->cs_size : desc->vs_size, err);
        if (!m0) {
            r = RILL_ERR_VULKAN;
        }
    }
    if (r == RILL_OK && !desc->cs && desc->fs) {
        m1 = make_module(gpu, desc->fs, desc->fs_size, err);
        if (!m1) {
            r = RILL_ERR_VULKAN;
        }
    }
    if (r == RILL_OK) {
        if (desc->cs) {
            VkComputePipelineCreateInfo ci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
            ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
            ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
            ci.stage.module = m0;
            ci.stage.pName = "main";
            ci.layout = p->layout;
            VkResult res = vkCreateComputePipelines(gpu->dev, gpu->pcache, 1, &ci, NULL, &p->pipe);
            if (res != VK_SUCCESS) {
                r = rill__vk_fail(err, res, "vkCreateComputePipelines", __FILE__, __LINE__);
            }
        } else {
            r = make_graphics(gpu, p, desc, m0, m1, err);
        }
    }
    if (m0) {
        vkDestroyShaderModule(gpu->dev, m0, NULL);
    }
    if (m1) {
        vkDestroyShaderModule(gpu->dev, m1, NULL);
    }
    if (r != RILL_OK) {
        /* Partially built: destroy what exists (Vulkan ignores null handles). */
        vk_del d = {VK_DEL_PIPE, 0, p};
        rill__vk_destroy_now(gpu, &d);
        return NULL;
    }
    rill__vk_name(gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)p->pipe, desc->label);
    return p;
}

/* >>descriptor sets -------------------------------------------------------------------------- */

static VkResult new_pool(rill__gpu *gpu, bool freeable, VkDescriptorPool *out) {
    VkDescriptorPoolSize sizes[7] = {
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1024},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1024},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4096},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 256},
        {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 256},
        {VK_DESCRIPTOR_TYPE_SAMPLER, 256},
        /* only where the device has them (the Hwrt GI tier's TLAS) */
        {VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, 64},
    };
    VkDescriptorPoolCreateInfo ci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    ci.flags = freeable ? VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT : 0;
    ci.maxSets = 1024;
    ci.poolSizeCount = gpu->caps.ray_query ? 7 : 6;
    ci.pPoolSizes = sizes;
    return vkCreateDescriptorPool(gpu->dev, &ci, NULL, out);
}

/* Allocates from the last pool of `pools`, adding a pool when it is full. */
static rill_result alloc_set(rill__gpu *gpu, void *pools_arr, uint32_t *cur, bool freeable,
                             VkDescriptorSetLayout layout, VkDescriptorSet *out_set,
                             VkDescriptorPool *out_pool, rill_error *err) {
    RILL_ARRAY(VkDescriptorPool) *pools = pools_arr;
    for (int attempt = 0; attempt < 2; attempt++) {
        for (uint32_t i = *cur; i < pools->len; i++) {
            VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
            ai.descriptorPool = pools->data[i];
            ai.descriptorSetCount = 1;
            ai.pSetLayouts = &layout;
            VkResult res = vkAllocateDescriptorSets(gpu->dev, &ai, out_set);
            if (res == VK_SUCCESS) {
                *out_pool = pools->data[i];
                if (!freeable) {
                    *cur = i;
                }
                return RILL_OK;
            }
            if (res != VK_ERROR_OUT_OF_POOL_MEMORY && res != VK_ERROR_FRAGMENTED_POOL) {
                return rill__vk_fail(err, res, "vkAllocateDescriptorSets", __FILE__, __LINE__);
            }
        }
        VkDescriptorPool pool;
        RILL__VK_TRY(err, new_pool(gpu, freeable, &pool));
        if (!rill_array_push(pools, pool)) {
            vkDestroyDescriptorPool(gpu->dev, pool, NULL);
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        }
    }
    return rill_error_set(err, RILL_ERR_VULKAN, "render: descriptor pool allocation failed");
}

static void write_set(rill__gpu *gpu, VkDescriptorSet set, const rill__set_layout *layout,
                      const rill__binding *bindings, uint32_t count) {
    VkWriteDescriptorSet w[RILL__MAX_BINDINGS];
    VkDescriptorBufferInfo bi[RILL__MAX_BINDINGS];
    VkDescriptorImageInfo ii[RILL__MAX_BINDINGS];
    VkWriteDescriptorSetAccelerationStructureKHR ai[RILL__MAX_BINDINGS];
    VkAccelerationStructureKHR as[RILL__MAX_BINDINGS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < count && i < RILL__MAX_BINDINGS; i++) {
        rill__bind_kind k = layout->bindings[i];
        if (k == RILL__BIND_NONE) {
            break;
        }
        const rill__binding *b = &bindings[i];
        memset(&w[n], 0, sizeof(w[n]));
        w[n].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[n].dstSet = set;
        w[n].dstBinding = i;
        w[n].descriptorCount = 1;
        w[n].descriptorType = desc_type(k);
        if (k == RILL__BIND_UNIFORM || k == RILL__BIND_STORAGE) {
            bi[n].buffer = b->buf->buf;
            bi[n].offset = b->offset;
            bi[n].range = b->range ? b->range : VK_WHOLE_SIZE;
            w[n].pBufferInfo = &bi[n];
        } else if (k == RILL__BIND_ACCEL) {
            as[n] = rill__vk_accel_handle(b->accel);
            ai[n] = (VkWriteDescriptorSetAccelerationStructureKHR){
                VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
            ai[n].accelerationStructureCount = 1;
            ai[n].pAccelerationStructures = &as[n];
            w[n].pNext = &ai[n];
        } else if (k == RILL__BIND_SAMPLER) {
            memset(&ii[n], 0, sizeof(ii[n]));
            ii[n].sampler = rill__vk_sampler(gpu, b->sampler);
            w[n].pImageInfo = &ii[n];
        } else {
            const rill__img *img = b->img;
            ii[n].imageView =
                b->layer >= 0 && img->layer_views ? img->layer_views[b->layer] : img->view;
            if (b->one_level && img->mip_views && b->level < img->desc.mips) {
                ii[n].imageView = img->mip_views[b->level];
            }
            if (b->srgb && img->srgb_view && b->layer < 0 && !b->one_level &&
                k == RILL__BIND_TEXTURE) {
                ii[n].imageView = img->srgb_view;
            }
            ii[n].sampler =
                k == RILL__BIND_TEXTURE ? rill__vk_sampler(gpu, b->sampler) : VK_NULL_HANDLE;
            ii[n].imageLayout = k == RILL__BIND_STORAGE_IMAGE || k == RILL__BIND_SAMPLED_IMAGE
                                    ? VK_IMAGE_LAYOUT_GENERAL
                                    : VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL;
            w[n].pImageInfo = &ii[n];
        }
        n++;
    }
    vkUpdateDescriptorSets(gpu->dev, n, w, 0, NULL);
}

rill__dset *rill__dset_create(rill__gpu *gpu, const rill__pipe *pipe, uint32_t set_index,
                              const rill__binding *bindings, uint32_t count, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    if (set_index >= pipe->set_count) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: pipeline has no set %u", set_index);
        return NULL;
    }
    rill__dset *s = rill_calloc_tagged(1, sizeof(*s), RILL_MEM_RENDER);
    if (!s) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        return NULL;
    }
    uint32_t cur = 0;
    if (alloc_set(gpu, &gpu->persistent_pools, &cur, true, pipe->set_layouts[set_index], &s->set,
                  &s->pool, err) != RILL_OK) {
        rill_free(s);
        return NULL;
    }
    write_set(gpu, s->set, &pipe->sets[set_index], bindings, count);
    return s;
}

rill_result rill__cmd_bind_transient_set(rill__cmd *cmd, uint32_t set_index,
                                         const rill__binding *bindings, uint32_t count) {
    rill__pipe *p = cmd->bound;
    if (!p || set_index >= p->set_count) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    VkDescriptorSet set;
    VkDescriptorPool pool;
    rill_error err = {0};
    rill_result r = alloc_set(cmd->gpu, &cmd->f->dpools, &cmd->f->dpool_cur, false,
                              p->set_layouts[set_index], &set, &pool, &err);
    if (r != RILL_OK) {
        RILL_LOG_ERROR("render", "%s", err.msg);
        return r;
    }
    write_set(cmd->gpu, set, &p->sets[set_index], bindings, count);
    vkCmdBindDescriptorSets(
        cmd->cb, p->compute ? VK_PIPELINE_BIND_POINT_COMPUTE : VK_PIPELINE_BIND_POINT_GRAPHICS,
        p->layout, set_index, 1, &set, 0, NULL);
    return RILL_OK;
}
