/* frame.c: frames in flight on one timeline semaphore, deferred deletion, GPU timestamps,
 * command recording (barriers from graph usages, dynamic rendering, draws, dispatches, copies),
 * and the windowed present step (GLFW surface, swapchain, acquire/present). Headless and windowed
 * frames share everything except the acquire before and the present after. */
#include "vk_internal.h"

#include <string.h>

#include <GLFW/glfw3.h>

static void framebuffer_size(const rill__gpu *gpu, int *w, int *h);

/* >>usage mapping ----------------------------------------------------------------------------- */

typedef struct usage_info {
    VkPipelineStageFlags2 stage;
    VkAccessFlags2 access;
    VkImageLayout layout;
} usage_info;

static usage_info usage_map(rill_rg_usage u) {
    usage_info i = {VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED};
    switch (u) {
    case RILL_RG_USAGE_NONE:
        /* Discarded contents: wait for whatever touched the memory before (an aliased transient
         * or the previous frame), then transition from UNDEFINED. */
        i.access = VK_ACCESS_2_MEMORY_WRITE_BIT;
        break;
    case RILL_RG_USAGE_COLOR_WRITE:
        i.stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        i.access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL;
        break;
    case RILL_RG_USAGE_DEPTH_WRITE:
        i.stage = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                  VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
        i.access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                   VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL;
        break;
    case RILL_RG_USAGE_DEPTH_READ:
        i.stage = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                  VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
        i.access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL;
        break;
    case RILL_RG_USAGE_SAMPLED_FRAGMENT:
        i.stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
        i.access = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL;
        break;
    case RILL_RG_USAGE_SAMPLED_COMPUTE:
        i.stage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        i.access = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL;
        break;
    case RILL_RG_USAGE_STORAGE_READ:
        i.stage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        i.access = VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_GENERAL;
        break;
    case RILL_RG_USAGE_STORAGE_WRITE:
        i.stage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        i.access = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_GENERAL;
        break;
    case RILL_RG_USAGE_TRANSFER_SRC:
        i.stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
        i.access = VK_ACCESS_2_TRANSFER_READ_BIT;
        i.layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        break;
    case RILL_RG_USAGE_TRANSFER_DST:
        i.stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
        i.access = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        i.layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        break;
    case RILL_RG_USAGE_PRESENT:
        i.stage = VK_PIPELINE_STAGE_2_NONE;
        i.access = 0;
        i.layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
        break;
    case RILL_RG_USAGE_SHADER_READ:
        i.stage = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        i.access = VK_ACCESS_2_SHADER_READ_BIT;
        break;
    case RILL_RG_USAGE_VERTEX_INPUT:
        i.stage =
            VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT;
        i.access = VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT;
        break;
    case RILL_RG_USAGE_STORAGE_FRAGMENT:
        i.stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
        i.access = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
        break;
    default:
        break;
    }
    return i;
}

void rill__cmd_barriers(rill__cmd *cmd, const rill_rg_barrier *barriers, uint32_t count,
                        rill__img *const *images, rill__buf *const *buffers) {
    VkImageMemoryBarrier2 ib[32];
    VkBufferMemoryBarrier2 bb[32];
    uint32_t ni = 0, nb = 0;
    for (uint32_t i = 0; i < count; i++) {
        const rill_rg_barrier *b = &barriers[i];
        usage_info s = usage_map(b->src), d = usage_map(b->dst);
        if (b->dst == RILL_RG_USAGE_PRESENT) {
            d.stage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        }
        if (b->is_image) {
            rill__img *img = images[i];
            if (!img || ni == 32) {
                continue;
            }
            VkImageMemoryBarrier2 *m = &ib[ni++];
            memset(m, 0, sizeof(*m));
            m->sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2;
            m->srcStageMask = s.stage;
            m->srcAccessMask = s.access;
            m->dstStageMask = d.stage;
            m->dstAccessMask = d.access;
            m->oldLayout = s.layout;
            m->newLayout = d.layout;
            m->srcQueueFamilyIndex = m->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
            m->image = img->img;
            m->subresourceRange.aspectMask = rill__vk_format_is_depth(img->desc.format)
                                                 ? VK_IMAGE_ASPECT_DEPTH_BIT
                                                 : VK_IMAGE_ASPECT_COLOR_BIT;
            m->subresourceRange.levelCount = VK_REMAINING_MIP_LEVELS;
            m->subresourceRange.layerCount = VK_REMAINING_ARRAY_LAYERS;
        } else {
            rill__buf *buf = buffers[i];
            if (!buf || nb == 32) {
                continue;
            }
            VkBufferMemoryBarrier2 *m = &bb[nb++];
            memset(m, 0, sizeof(*m));
            m->sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2;
            m->srcStageMask = s.stage;
            m->srcAccessMask = s.access;
            m->dstStageMask = d.stage;
            m->dstAccessMask = d.access;
            m->srcQueueFamilyIndex = m->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
            m->buffer = buf->buf;
            m->size = VK_WHOLE_SIZE;
        }
    }
    if (ni + nb == 0) {
        return;
    }
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = ni;
    dep.pImageMemoryBarriers = ib;
    dep.bufferMemoryBarrierCount = nb;
    dep.pBufferMemoryBarriers = bb;
    vkCmdPipelineBarrier2(cmd->cb, &dep);
}

/* >>frames ---------------------------------------------------------------------------------- */

static void collect_timings(rill__gpu *gpu, vk_frame *f) {
    if (!f->queries || f->query_count == 0) {
        return;
    }
    uint64_t ts[RILL__VK_MAX_QUERIES];
    VkResult res = vkGetQueryPoolResults(gpu->dev, f->queries, 0, f->query_count, sizeof(ts), ts,
                                         sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
    if (res != VK_SUCCESS) {
        return;
    }
    uint32_t n = f->query_count / 2;
    for (uint32_t i = 0; i < n; i++) {
        gpu->timing_names[i] = f->ts_names[i];
        uint64_t d = ts[2 * i + 1] >= ts[2 * i] ? ts[2 * i + 1] - ts[2 * i] : 0;
        gpu->timing_ms[i] = (double)d * gpu->caps.timestamp_period_ns * 1e-6;
    }
    gpu->timing_count = n;
}

void rill__gpu_set_vsync(rill__gpu *gpu, bool vsync) {
    RILL__GPU_GUARD(gpu);
    if (gpu->desc.vsync != vsync) {
        gpu->desc.vsync = vsync;
        gpu->swap_dirty = gpu->surface != VK_NULL_HANDLE;
    }
}

const char *rill__gpu_present_mode(const rill__gpu *gpu) {
    if (!gpu->swapchain) {
        return "none";
    }
    return gpu->present_mode == VK_PRESENT_MODE_FIFO_KHR        ? "fifo"
           : gpu->present_mode == VK_PRESENT_MODE_MAILBOX_KHR   ? "mailbox"
           : gpu->present_mode == VK_PRESENT_MODE_IMMEDIATE_KHR ? "immediate"
                                                                : "other";
}

static rill_result recreate_swapchain(rill__gpu *gpu, rill_error *err) {
    gpu->swap_dirty = false;
    RILL__VK_TRY(err, vkDeviceWaitIdle(gpu->dev));
    rill__vk_swapchain_destroy(gpu);
    return rill__vk_swapchain_create(gpu, err);
}

/* Destroys every deferred object whose frame the GPU has finished. */
VkResult rill__vk_collect_deleted(rill__gpu *gpu) {
    uint64_t completed = 0;
    VkResult r = vkGetSemaphoreCounterValue(gpu->dev, gpu->timeline, &completed);
    if (r != VK_SUCCESS) {
        return r;
    }
    for (uint32_t i = 0; i < gpu->dels.len;) {
        if (gpu->dels.data[i].after <= completed) {
            rill__vk_destroy_now(gpu, &gpu->dels.data[i]);
            rill_array_swap_remove(&gpu->dels, i);
        } else {
            i++;
        }
    }
    gpu->dels_collect_at = 0; /* defer's next on-the-spot collection: at DEFER_COLLECT again */
    return VK_SUCCESS;
}

rill_result rill__frame_begin(rill__gpu *gpu, rill__cmd **out_cmd, rill_error *err) {
    *out_cmd = NULL;
    if (gpu->in_frame) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: frame already begun");
    }
    uint64_t index = gpu->frame_index + 1;
    vk_frame *f = &gpu->frames[index % gpu->desc.frames_in_flight];
    if (f->value) {
        VkSemaphoreWaitInfo wi = {VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wi.semaphoreCount = 1;
        wi.pSemaphores = &gpu->timeline;
        wi.pValues = &f->value;
        RILL__VK_TRY(err, vkWaitSemaphores(gpu->dev, &wi, UINT64_MAX));
        collect_timings(gpu, f);
    }
    RILL__VK_TRY(err, rill__vk_collect_deleted(gpu));
    if (gpu->surface) {
        /* Not every platform reports a resized window as an out-of-date swapchain, so compare
         * the framebuffer size too (a minimized window, 0 x 0, keeps the old swapchain). */
        int fw = 0, fh = 0;
        framebuffer_size(gpu, &fw, &fh);
        if (fw > 0 && fh > 0 &&
            ((uint32_t)fw != gpu->swap_w || (uint32_t)fh != gpu->swap_h || gpu->swap_dirty)) {
            rill_result r = recreate_swapchain(gpu, err);
            if (r != RILL_OK) {
                return r;
            }
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            VkResult res = vkAcquireNextImageKHR(gpu->dev, gpu->swapchain, UINT64_MAX, f->acquire,
                                                 VK_NULL_HANDLE, &gpu->swap_index);
            if (res == VK_ERROR_OUT_OF_DATE_KHR && attempt == 0) {
                rill_result r = recreate_swapchain(gpu, err);
                if (r != RILL_OK) {
                    return r;
                }
                continue;
            }
            if (res != VK_SUCCESS && res != VK_SUBOPTIMAL_KHR) {
                return rill__vk_fail(err, res, "vkAcquireNextImageKHR", __FILE__, __LINE__);
            }
            break;
        }
        gpu->swap_acquired = true;
    }
    RILL__VK_TRY(err, vkResetCommandPool(gpu->dev, f->pool, 0));
    for (uint32_t i = 0; i < f->dpools.len; i++) {
        RILL__VK_TRY(err, vkResetDescriptorPool(gpu->dev, f->dpools.data[i], 0));
    }
    f->dpool_cur = 0;
    f->staging_used = 0;
    f->scratch_used = 0;
    f->query_count = 0;
    f->ts_count = 0;
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    RILL__VK_TRY(err, vkBeginCommandBuffer(f->cb, &bi));
    gpu->frame_index = index;
    gpu->in_frame = true;
    if (f->queries) {
        vkCmdResetQueryPool(f->cb, f->queries, 0, RILL__VK_MAX_QUERIES);
    }
    rill__vk_record_uploads(gpu, f->cb, f);
    memset(&gpu->cmd, 0, sizeof(gpu->cmd));
    gpu->cmd.gpu = gpu;
    gpu->cmd.cb = f->cb;
    gpu->cmd.f = f;
    *out_cmd = &gpu->cmd;
    return RILL_OK;
}

rill_result rill__frame_end(rill__gpu *gpu, rill__cmd *cmd, rill_error *err) {
    if (!gpu->in_frame || cmd != &gpu->cmd) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: no frame to end");
    }
    vk_frame *f = cmd->f;
    gpu->in_frame = false;
    RILL__VK_TRY(err, vkEndCommandBuffer(f->cb));
    VkCommandBufferSubmitInfo cbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = f->cb;
    VkSemaphoreSubmitInfo sig[2] = {{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO},
                                    {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO}};
    sig[0].semaphore = gpu->timeline;
    sig[0].value = gpu->frame_index;
    sig[0].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkSemaphoreSubmitInfo wait = {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    VkSubmitInfo2 si = {VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.commandBufferInfoCount = 1;
    si.pCommandBufferInfos = &cbi;
    si.signalSemaphoreInfoCount = 1;
    si.pSignalSemaphoreInfos = sig;
    bool present = gpu->surface && gpu->swap_acquired;
    if (present) {
        wait.semaphore = f->acquire;
        wait.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        si.waitSemaphoreInfoCount = 1;
        si.pWaitSemaphoreInfos = &wait;
        sig[1].semaphore = gpu->swap_done.data[gpu->swap_index];
        sig[1].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        si.signalSemaphoreInfoCount = 2;
    }
    RILL__VK_TRY(err, vkQueueSubmit2(gpu->queue, 1, &si, VK_NULL_HANDLE));
    f->value = gpu->frame_index;
    if (present) {
        gpu->swap_acquired = false;
        VkPresentInfoKHR pi = {VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
        pi.waitSemaphoreCount = 1;
        pi.pWaitSemaphores = &gpu->swap_done.data[gpu->swap_index];
        pi.swapchainCount = 1;
        pi.pSwapchains = &gpu->swapchain;
        pi.pImageIndices = &gpu->swap_index;
        VkResult res = vkQueuePresentKHR(gpu->queue, &pi);
        if (res == VK_ERROR_OUT_OF_DATE_KHR || res == VK_SUBOPTIMAL_KHR) {
            return recreate_swapchain(gpu, err);
        }
        RILL__VK_TRY(err, res);
    }
    return RILL_OK;
}

rill__img *rill__frame_swapchain_image(rill__gpu *gpu) {
    return gpu->surface && gpu->swap_acquired ? gpu->swap_images.data[gpu->swap_index] : NULL;
}

void rill__gpu_set_guard(rill__gpu *gpu, void (*fn)(const void *user), const void *user) {
    gpu->guard = fn;
    gpu->guard_user = user;
}

void rill__gpu_set_framebuffer_size(rill__gpu *gpu, int w, int h) {
    gpu->fb_w = w;
    gpu->fb_h = h;
    gpu->fb_given = true;
}

/* The window's framebuffer size: the one the GLFW thread gave, else asked of GLFW. */
static void framebuffer_size(const rill__gpu *gpu, int *w, int *h) {
    if (gpu->fb_given) {
        *w = gpu->fb_w;
        *h = gpu->fb_h;
        return;
    }
    glfwGetFramebufferSize((GLFWwindow *)gpu->desc.glfw_window, w, h);
}

void rill__gpu_surface_size(const rill__gpu *gpu, uint32_t *out_w, uint32_t *out_h) {
    *out_w = gpu->swap_w;
    *out_h = gpu->swap_h;
}

uint64_t rill__gpu_frame_index(const rill__gpu *gpu) {
    return gpu->frame_index;
}
uint32_t rill__gpu_frame_slot(const rill__gpu *gpu) {
    return (uint32_t)(gpu->frame_index % gpu->desc.frames_in_flight);
}
uint32_t rill__gpu_frames_in_flight(const rill__gpu *gpu) {
    return gpu->desc.frames_in_flight;
}

uint32_t rill__gpu_timings(rill__gpu *gpu, const char *const **out_names, const double **out_ms) {
    /* Pick up the newest frame if it has finished, so stats are fresh without waiting for its
     * slot to come around again. */
    if (gpu->frame_index && !gpu->in_frame) {
        vk_frame *f = &gpu->frames[gpu->frame_index % gpu->desc.frames_in_flight];
        uint64_t done = 0;
        if (f->value && vkGetSemaphoreCounterValue(gpu->dev, gpu->timeline, &done) == VK_SUCCESS &&
            done >= f->value) {
            collect_timings(gpu, f);
        }
    }
    *out_names = gpu->timing_names;
    *out_ms = gpu->timing_ms;
    return gpu->timing_count;
}

void *rill__frame_alloc(rill__cmd *cmd, uint64_t size, uint64_t align, rill__buf **out_buf,
                        uint64_t *out_offset) {
    vk_frame *f = cmd->f;
    rill__gpu *gpu = cmd->gpu;
    align = RILL_MAX(align, gpu->props.limits.minStorageBufferOffsetAlignment);
    align = RILL_MAX(align, gpu->props.limits.minUniformBufferOffsetAlignment);
    return rill__scratch_alloc(gpu, &f->scratch, &f->scratch_used, size, align, out_buf,
                               out_offset);
}

/* >>commands -------------------------------------------------------------------------------- */

void rill__cmd_label_begin(rill__cmd *cmd, const char *label) {
    if (!cmd->gpu->label_begin) {
        return;
    }
    VkDebugUtilsLabelEXT l = {VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    l.pLabelName = label;
    cmd->gpu->label_begin(cmd->cb, &l);
}

void rill__cmd_label_end(rill__cmd *cmd) {
    if (cmd->gpu->label_end) {
        cmd->gpu->label_end(cmd->cb);
    }
}

void rill__cmd_timestamp_begin(rill__cmd *cmd, const char *name) {
    vk_frame *f = cmd->f;
    if (!f->queries || f->query_count + 2 > RILL__VK_MAX_QUERIES || cmd->ts_depth >= 8) {
        return;
    }
    uint32_t q = f->query_count;
    f->query_count += 2;
    f->ts_names[q / 2] = name;
    cmd->ts_stack[cmd->ts_depth++] = q;
    vkCmdWriteTimestamp2(cmd->cb, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, f->queries, q);
}

void rill__cmd_timestamp_end(rill__cmd *cmd) {
    vk_frame *f = cmd->f;
    if (!f->queries || cmd->ts_depth == 0) {
        return;
    }
    uint32_t q = cmd->ts_stack[--cmd->ts_depth];
    vkCmdWriteTimestamp2(cmd->cb, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, f->queries, q + 1);
}

static VkImageView att_view(const rill__attachment *a) {
    return a->layer >= 0 && a->img->layer_views ? a->img->layer_views[a->layer] : a->img->view;
}

void rill__cmd_begin_rendering(rill__cmd *cmd, const rill__attachment *colors, uint32_t color_count,
                               const rill__attachment *depth, uint32_t width, uint32_t height) {
    VkRenderingAttachmentInfo ca[RILL__MAX_COLOR];
    VkRenderingAttachmentInfo da = {VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    for (uint32_t i = 0; i < color_count && i < RILL__MAX_COLOR; i++) {
        memset(&ca[i], 0, sizeof(ca[i]));
        ca[i].sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO;
        ca[i].imageView = att_view(&colors[i]);
        ca[i].imageLayout = VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL;
        ca[i].loadOp = colors[i].clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD;
        ca[i].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        memcpy(ca[i].clearValue.color.float32, colors[i].clear_color, sizeof(float) * 4);
    }
    VkRenderingInfo ri = {VK_STRUCTURE_TYPE_RENDERING_INFO};
    /* A render rectangle (one camera view) keeps clears, viewport and scissor inside it. */
    uint32_t rx = 0, ry = 0, rw = width, rh = height;
    if (cmd->rect[2] && cmd->rect[3] && cmd->rect[0] < width && cmd->rect[1] < height) {
        rx = cmd->rect[0], ry = cmd->rect[1];
        rw = RILL_MIN(cmd->rect[2], width - rx), rh = RILL_MIN(cmd->rect[3], height - ry);
    }
    ri.renderArea.offset.x = (int32_t)rx;
    ri.renderArea.offset.y = (int32_t)ry;
    ri.renderArea.extent.width = rw;
    ri.renderArea.extent.height = rh;
    ri.layerCount = 1;
    ri.colorAttachmentCount = color_count;
    ri.pColorAttachments = ca;
    if (depth) {
        da.imageView = att_view(depth);
        /* A depth attachment that is neither cleared nor written (test only) sits in the
         * read-only layout the graph put it in. */
        da.imageLayout = depth->read_only ? VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL
                                          : VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL;
        da.loadOp = depth->clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD;
        da.storeOp = da.imageLayout == VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL
                         ? VK_ATTACHMENT_STORE_OP_NONE
                         : VK_ATTACHMENT_STORE_OP_STORE;
        da.clearValue.depthStencil.depth = depth->clear_color[0];
        ri.pDepthAttachment = &da;
    }
    vkCmdBeginRendering(cmd->cb, &ri);
    /* Negative height flips Y so that clip space is y-up like the math library assumes. */
    VkViewport vp = {(float)rx, (float)(ry + rh), (float)rw, -(float)rh, 0.0f, 1.0f};
    VkRect2D sc = {{(int32_t)rx, (int32_t)ry}, {rw, rh}};
    vkCmdSetViewport(cmd->cb, 0, 1, &vp);
    vkCmdSetScissor(cmd->cb, 0, 1, &sc);
}

void rill__cmd_end_rendering(rill__cmd *cmd) {
    vkCmdEndRendering(cmd->cb);
}

void rill__cmd_bind_pipe(rill__cmd *cmd, rill__pipe *pipe) {
    cmd->bound = pipe;
    vkCmdBindPipeline(
        cmd->cb, pipe->compute ? VK_PIPELINE_BIND_POINT_COMPUTE : VK_PIPELINE_BIND_POINT_GRAPHICS,
        pipe->pipe);
}

void rill__cmd_bind_set(rill__cmd *cmd, uint32_t set_index, rill__dset *set) {
    rill__pipe *p = cmd->bound;
    if (!p || !set || set_index >= p->set_count) {
        return;
    }
    vkCmdBindDescriptorSets(
        cmd->cb, p->compute ? VK_PIPELINE_BIND_POINT_COMPUTE : VK_PIPELINE_BIND_POINT_GRAPHICS,
        p->layout, set_index, 1, &set->set, 0, NULL);
}

void rill__cmd_push(rill__cmd *cmd, const void *data, uint32_t size) {
    rill__pipe *p = cmd->bound;
    if (!p || size > p->push_size) {
        return;
    }
    vkCmdPushConstants(cmd->cb, p->layout,
                       p->compute ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_ALL_GRAPHICS, 0,
                       size, data);
}

void rill__cmd_depth_bias(rill__cmd *cmd, float constant, float slope) {
    vkCmdSetDepthBias(cmd->cb, constant, 0.0f, slope);
}

void rill__cmd_front_face(rill__cmd *cmd, bool clockwise) {
    vkCmdSetFrontFace(cmd->cb,
                      clockwise ? VK_FRONT_FACE_CLOCKWISE : VK_FRONT_FACE_COUNTER_CLOCKWISE);
}

void rill__cmd_bind_mesh(rill__cmd *cmd, rill__buf *vertices, rill__buf *indices) {
    VkDeviceSize off = 0;
    vkCmdBindVertexBuffers(cmd->cb, 0, 1, &vertices->buf, &off);
    vkCmdBindIndexBuffer(cmd->cb, indices->buf, 0, VK_INDEX_TYPE_UINT32);
}

void rill__cmd_bind_mesh_extras(rill__cmd *cmd, rill__buf *vertices, rill__buf *extras,
                                uint32_t extra_stride, rill__buf *indices) {
    VkBuffer bufs[2] = {vertices->buf, extras->buf};
    VkDeviceSize offs[2] = {0, 0};
    VkDeviceSize strides[2] = {48, extra_stride}; /* rill_vertex */
    vkCmdBindVertexBuffers2(cmd->cb, 0, 2, bufs, offs, NULL, strides);
    vkCmdBindIndexBuffer(cmd->cb, indices->buf, 0, VK_INDEX_TYPE_UINT32);
}

void rill__cmd_draw_indexed(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                            uint32_t first_index, uint32_t first_instance) {
    vkCmdDrawIndexed(cmd->cb, index_count, instance_count, first_index, 0, first_instance);
}

void rill__cmd_draw_indexed_at(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                               uint32_t first_index, int32_t vertex_offset,
                               uint32_t first_instance) {
    vkCmdDrawIndexed(cmd->cb, index_count, instance_count, first_index, vertex_offset,
                     first_instance);
}

void rill__cmd_draw_indexed_indirect(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                     uint32_t count) {
    /* Lavapipe (Mesa 22.3, a CPU device) keeps the count buffer of the last
     * vkCmdDrawIndexedIndirectCount in its draw state and reads a later plain indirect draw's
     * count from it: a static batch drawn after GPU culling's counted draws drew that many
     * commands (none, when the last count was 0). There, plain indirect draws are counted draws
     * with their own count, which is the same draw. */
    if (cmd->gpu->caps.draw_indirect_count && cmd->gpu->caps.device_type == 4) {
        rill__buf *cbuf = NULL;
        uint64_t coff = 0;
        uint32_t *n = rill__frame_alloc(cmd, sizeof(uint32_t), 4, &cbuf, &coff);
        if (n) {
            *n = count;
            vkCmdDrawIndexedIndirectCount(cmd->cb, buf->buf, offset, cbuf->buf, coff, count,
                                          (uint32_t)sizeof(VkDrawIndexedIndirectCommand));
            return;
        }
    }
    vkCmdDrawIndexedIndirect(cmd->cb, buf->buf, offset, count,
                             (uint32_t)sizeof(VkDrawIndexedIndirectCommand));
}

void rill__cmd_draw_indexed_indirect_count(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                           rill__buf *count_buf, uint64_t count_offset,
                                           uint32_t max_count) {
    vkCmdDrawIndexedIndirectCount(cmd->cb, buf->buf, offset, count_buf->buf, count_offset,
                                  max_count, (uint32_t)sizeof(VkDrawIndexedIndirectCommand));
}

void rill__cmd_dispatch(rill__cmd *cmd, uint32_t x, uint32_t y, uint32_t z) {
    vkCmdDispatch(cmd->cb, x, y, z);
}

void rill__cmd_copy_image_to_buffer(rill__cmd *cmd, rill__img *img, rill__buf *buf) {
    VkBufferImageCopy c = {0};
    c.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    c.imageSubresource.layerCount = 1;
    c.imageExtent.width = img->desc.width;
    c.imageExtent.height = img->desc.height;
    c.imageExtent.depth = 1;
    vkCmdCopyImageToBuffer(cmd->cb, img->img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf->buf, 1,
                           &c);
}

/* One global memory barrier: writes of (src_stage, src_access) become visible to (dst_stage,
 * dst_access). */
void rill__vk_memory_barrier(VkCommandBuffer cb, VkPipelineStageFlags2 src_stage,
                             VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                             VkAccessFlags2 dst_access) {
    VkMemoryBarrier2 mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    mb.srcStageMask = src_stage;
    mb.srcAccessMask = src_access;
    mb.dstStageMask = dst_stage;
    mb.dstAccessMask = dst_access;
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &mb;
    vkCmdPipelineBarrier2(cb, &dep);
}

void rill__cmd_host_read_barrier(rill__cmd *cmd) {
    rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                            VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                            VK_ACCESS_2_HOST_READ_BIT);
}

void rill__cmd_set_render_rect(rill__cmd *cmd, const uint32_t rect[4]) {
    for (int i = 0; i < 4; i++) {
        cmd->rect[i] = rect ? rect[i] : 0;
    }
}

void rill__cmd_compute_barrier(rill__cmd *cmd) {
    rill__vk_memory_barrier(
        cmd->cb, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

void rill__cmd_skinning_barrier(rill__cmd *cmd, bool after) {
    if (!after) {
        /* The previous frame's draws (and copies) read the vertices this dispatch rewrites. */
        rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
                                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        return;
    }
    rill__vk_memory_barrier(
        cmd->cb, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT, VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT);
}

void rill__cmd_indirect_barrier(rill__cmd *cmd) {
    rill__vk_memory_barrier(
        cmd->cb, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
            VK_PIPELINE_STAGE_2_HOST_BIT,
        VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
            VK_ACCESS_2_HOST_READ_BIT);
}

void rill__cmd_copy_buffer(rill__cmd *cmd, rill__buf *src, uint64_t src_off, rill__buf *dst,
                           uint64_t dst_off, uint64_t size, bool first, bool last) {
    if (first) {
        rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                VK_ACCESS_2_MEMORY_WRITE_BIT | VK_ACCESS_2_MEMORY_READ_BIT,
                                VK_PIPELINE_STAGE_2_COPY_BIT,
                                VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT);
    }
    VkBufferCopy c = {src_off, dst_off, size};
    vkCmdCopyBuffer(cmd->cb, src->buf, dst->buf, 1, &c);
    if (last) {
        rill__vk_memory_barrier(
            cmd->cb, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT,
            VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT);
    }
}

void rill__cmd_copy_image_general(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    /* The graph's barrier into GENERAL targets compute; the copy is a transfer. */
    rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                            VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                            VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkImageCopy c = {0};
    c.srcSubresource.aspectMask = c.dstSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    c.srcSubresource.layerCount = c.dstSubresource.layerCount = 1;
    c.extent.width = src->desc.width < dst->desc.width ? src->desc.width : dst->desc.width;
    c.extent.height = src->desc.height < dst->desc.height ? src->desc.height : dst->desc.height;
    c.extent.depth = 1;
    vkCmdCopyImage(cmd->cb, src->img, VK_IMAGE_LAYOUT_GENERAL, dst->img, VK_IMAGE_LAYOUT_GENERAL, 1,
                   &c);
    rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_COPY_BIT,
                            VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_SHADER_SAMPLED_READ_BIT |
                                VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

void rill__cmd_clear_color(rill__cmd *cmd, rill__img *img, const float rgba[4]) {
    VkClearColorValue c;
    memcpy(c.float32, rgba, sizeof(c.float32));
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd->cb, img->img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c, 1, &range);
}

void rill__cmd_copy_image_to(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t x,
                             uint32_t y) {
    if (x >= dst->desc.width || y >= dst->desc.height) {
        return;
    }
    /* Earlier clears and copies into dst may cover the same pixels: they land first. */
    rill__vk_memory_barrier(cmd->cb, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                            VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                            VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkImageCopy c = {0};
    c.srcSubresource.aspectMask = c.dstSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    c.srcSubresource.layerCount = c.dstSubresource.layerCount = 1;
    c.dstOffset.x = (int32_t)x;
    c.dstOffset.y = (int32_t)y;
    uint32_t room_w = dst->desc.width - x, room_h = dst->desc.height - y;
    c.extent.width = src->desc.width < room_w ? src->desc.width : room_w;
    c.extent.height = src->desc.height < room_h ? src->desc.height : room_h;
    c.extent.depth = 1;
    vkCmdCopyImage(cmd->cb, src->img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst->img,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &c);
}

void rill__cmd_blit(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    VkImageBlit b = {0};
    b.srcSubresource.aspectMask = b.dstSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.srcSubresource.layerCount = b.dstSubresource.layerCount = 1;
    b.srcOffsets[1].x = (int32_t)src->desc.width;
    b.srcOffsets[1].y = (int32_t)src->desc.height;
    b.srcOffsets[1].z = 1;
    b.dstOffsets[1].x = (int32_t)dst->desc.width;
    b.dstOffsets[1].y = (int32_t)dst->desc.height;
    b.dstOffsets[1].z = 1;
    vkCmdBlitImage(cmd->cb, src->img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst->img,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &b, VK_FILTER_LINEAR);
}

void rill__cmd_blit_layer(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t layer,
                          bool flip_x) {
    VkImageBlit b = {0};
    b.srcSubresource.aspectMask = b.dstSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.srcSubresource.layerCount = b.dstSubresource.layerCount = 1;
    b.dstSubresource.baseArrayLayer = layer;
    b.srcOffsets[1].x = (int32_t)src->desc.width;
    b.srcOffsets[1].y = (int32_t)src->desc.height;
    b.srcOffsets[1].z = 1;
    b.dstOffsets[0].x = flip_x ? (int32_t)dst->desc.width : 0;
    b.dstOffsets[1].x = flip_x ? 0 : (int32_t)dst->desc.width;
    b.dstOffsets[1].y = (int32_t)dst->desc.height;
    b.dstOffsets[1].z = 1;
    vkCmdBlitImage(cmd->cb, src->img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst->img,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &b, VK_FILTER_LINEAR);
}

void rill__cmd_resolve(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    VkImageResolve rv = {0};
    rv.srcSubresource.aspectMask = rv.dstSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    rv.srcSubresource.layerCount = rv.dstSubresource.layerCount = 1;
    rv.extent.width = RILL_MIN(src->desc.width, dst->desc.width);
    rv.extent.height = RILL_MIN(src->desc.height, dst->desc.height);
    rv.extent.depth = 1;
    vkCmdResolveImage(cmd->cb, src->img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst->img,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &rv);
}

/* >>swapchain ------------------------------------------------------------------------------- */

rill_result rill__vk_swapchain_create(rill__gpu *gpu, rill_error *err) {
    VkSurfaceCapabilitiesKHR caps;
    RILL__VK_TRY(err, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(gpu->pd, gpu->surface, &caps));
    uint32_t nf = 0;
    RILL__VK_TRY(err, vkGetPhysicalDeviceSurfaceFormatsKHR(gpu->pd, gpu->surface, &nf, NULL));
    VkSurfaceFormatKHR fmts[64];
    if (nf > 64) {
        nf = 64;
    }
    RILL__VK_TRY(err, vkGetPhysicalDeviceSurfaceFormatsKHR(gpu->pd, gpu->surface, &nf, fmts));
    /* The tonemapper already writes sRGB-encoded values, so a UNORM swapchain receives them as
     * they are; an _SRGB one would encode twice. */
    VkSurfaceFormatKHR pick = fmts[0];
    for (uint32_t i = 0; i < nf; i++) {
        if (fmts[i].format == VK_FORMAT_B8G8R8A8_UNORM ||
            fmts[i].format == VK_FORMAT_R8G8B8A8_UNORM) {
            pick = fmts[i];
            break;
        }
    }
    uint32_t np = 0;
    RILL__VK_TRY(err, vkGetPhysicalDeviceSurfacePresentModesKHR(gpu->pd, gpu->surface, &np, NULL));
    VkPresentModeKHR modes[16];
    if (np > 16) {
        np = 16;
    }
    RILL__VK_TRY(err, vkGetPhysicalDeviceSurfacePresentModesKHR(gpu->pd, gpu->surface, &np, modes));
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR; /* vsync on; always supported */
    if (!gpu->desc.vsync) {
        bool mailbox = false, immediate = false;
        for (uint32_t i = 0; i < np; i++) {
            mailbox |= modes[i] == VK_PRESENT_MODE_MAILBOX_KHR;
            immediate |= modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR;
        }
        mode = mailbox     ? VK_PRESENT_MODE_MAILBOX_KHR
               : immediate ? VK_PRESENT_MODE_IMMEDIATE_KHR
                           : mode;
    }
    gpu->present_mode = mode;
    VkExtent2D ext = caps.currentExtent;
    if (ext.width == UINT32_MAX) {
        int w = 0, h = 0;
        framebuffer_size(gpu, &w, &h);
        ext.width = RILL_CLAMP((uint32_t)w, caps.minImageExtent.width, caps.maxImageExtent.width);
        ext.height =
            RILL_CLAMP((uint32_t)h, caps.minImageExtent.height, caps.maxImageExtent.height);
    }
    if (ext.width == 0 || ext.height == 0) {
        ext.width = ext.height = 1;
    }
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount) {
        count = caps.maxImageCount;
    }
    VkSwapchainCreateInfoKHR ci = {VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    ci.surface = gpu->surface;
    ci.minImageCount = count;
    ci.imageFormat = pick.format;
    ci.imageColorSpace = pick.colorSpace;
    ci.imageExtent = ext;
    ci.imageArrayLayers = 1;
    ci.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.preTransform = caps.currentTransform;
    ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    ci.presentMode = mode;
    ci.clipped = VK_TRUE;
    RILL__VK_TRY(err, vkCreateSwapchainKHR(gpu->dev, &ci, NULL, &gpu->swapchain));
    gpu->swap_format = pick.format;
    gpu->swap_w = ext.width;
    gpu->swap_h = ext.height;
    uint32_t n = 0;
    RILL__VK_TRY(err, vkGetSwapchainImagesKHR(gpu->dev, gpu->swapchain, &n, NULL));
    VkImage imgs[16];
    if (n > 16) {
        n = 16;
    }
    RILL__VK_TRY(err, vkGetSwapchainImagesKHR(gpu->dev, gpu->swapchain, &n, imgs));
    for (uint32_t i = 0; i < n; i++) {
        rill__img *img = rill_calloc_tagged(1, sizeof(*img), RILL_MEM_RENDER);
        if (!img || !rill_array_push(&gpu->swap_images, img)) {
            rill_free(img);
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        }
        img->img = imgs[i];
        img->swapchain = true;
        img->alloc.block = -1;
        img->vkfmt = pick.format;
        img->desc.width = ext.width;
        img->desc.height = ext.height;
        img->desc.layers = img->desc.mips = 1;
        img->desc.format = pick.format == VK_FORMAT_B8G8R8A8_UNORM ? RILL_RG_FORMAT_BGRA8_UNORM
                                                                   : RILL_RG_FORMAT_RGBA8_UNORM;
        img->desc.label = rill_strdup("swapchain");
        img->ready = true;
        VkSemaphoreCreateInfo sci = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VkSemaphore s;
        RILL__VK_TRY(err, vkCreateSemaphore(gpu->dev, &sci, NULL, &s));
        if (!rill_array_push(&gpu->swap_done, s)) {
            vkDestroySemaphore(gpu->dev, s, NULL);
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        }
    }
    RILL_LOG_INFO("render", "swapchain %ux%u, %u images, present mode %d", ext.width, ext.height, n,
                  (int)mode);
    return RILL_OK;
}

void rill__vk_swapchain_destroy(rill__gpu *gpu) {
    for (uint32_t i = 0; i < gpu->swap_images.len; i++) {
        rill__img *img = gpu->swap_images.data[i];
        rill_free((char *)img->desc.label);
        rill_free(img);
    }
    rill_array_free(&gpu->swap_images);
    for (uint32_t i = 0; i < gpu->swap_done.len; i++) {
        vkDestroySemaphore(gpu->dev, gpu->swap_done.data[i], NULL);
    }
    rill_array_free(&gpu->swap_done);
    if (gpu->swapchain) {
        vkDestroySwapchainKHR(gpu->dev, gpu->swapchain, NULL);
    }
    gpu->swapchain = VK_NULL_HANDLE;
}
