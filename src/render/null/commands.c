/* commands.c: the null backend's frames and commands. A frame begins (uploads recorded under the
 * budget, the slot's scratch reset) and ends at once, freeing what was destroyed during it.
 * Commands draw nothing; each checks what a Vulkan command buffer needs at that point (inside or
 * outside dynamic rendering, a pipeline of the right kind bound, sets and push constants within
 * the pipeline's layout, ranges within their buffers, balanced scopes) and complains otherwise.
 * Buffer-to-buffer copies between host-visible buffers copy their bytes. */
#include "null_internal.h"

#include <string.h>

/* >>frames ---------------------------------------------------------------------------------- */

rill_result rill__frame_begin(rill__gpu *gpu, rill__cmd **out_cmd, rill_error *err) {
    *out_cmd = NULL;
    if (gpu->in_frame) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: frame already begun");
    }
    gpu->frame_index++;
    gpu->in_frame = true;
    gpu->frames[gpu->frame_index % gpu->desc.frames_in_flight].scratch_used = 0;
    rill__null_record_uploads(gpu);
    memset(&gpu->cmd, 0, sizeof(gpu->cmd));
    gpu->cmd.gpu = gpu;
    *out_cmd = &gpu->cmd;
    return RILL_OK;
}

rill_result rill__frame_end(rill__gpu *gpu, rill__cmd *cmd, rill_error *err) {
    if (!gpu->in_frame || cmd != &gpu->cmd) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: no frame to end");
    }
    if (cmd->rendering || cmd->labels || cmd->timestamps) {
        rill__null_complain(gpu, "frame ended with rendering %s, %u labels, %u timestamps open",
                            cmd->rendering ? "open" : "closed", cmd->labels, cmd->timestamps);
    }
    gpu->in_frame = false;
    rill__null_collect(gpu);
    return RILL_OK;
}

rill__img *rill__frame_swapchain_image(rill__gpu *gpu) {
    (void)gpu;
    return NULL;
}

void rill__gpu_surface_size(const rill__gpu *gpu, uint32_t *out_w, uint32_t *out_h) {
    (void)gpu;
    *out_w = 0;
    *out_h = 0;
}

void rill__gpu_set_guard(rill__gpu *gpu, void (*fn)(const void *user), const void *user) {
    gpu->guard = fn;
    gpu->guard_user = user;
}

void rill__gpu_set_framebuffer_size(rill__gpu *gpu, int w, int h) {
    (void)gpu, (void)w, (void)h; /* headless: no window to follow */
}

void rill__gpu_set_vsync(rill__gpu *gpu, bool vsync) {
    NULL_GUARD(gpu);
    gpu->desc.vsync = vsync;
}

const char *rill__gpu_present_mode(const rill__gpu *gpu) {
    (void)gpu;
    return "none";
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

uint64_t rill__gpu_uploaded_last_frame(const rill__gpu *gpu) {
    return gpu->uploaded_last_frame;
}

void rill__gpu_upload_figures(const rill__gpu *gpu, rill__upload_figures *out) {
    *out = gpu->upload_figures;
}

uint32_t rill__gpu_timings(rill__gpu *gpu, const char *const **out_names, const double **out_ms) {
    (void)gpu;
    *out_names = NULL;
    *out_ms = NULL;
    return 0;
}

void *rill__frame_alloc(rill__cmd *cmd, uint64_t size, uint64_t align, rill__buf **out_buf,
                        uint64_t *out_offset) {
    rill__gpu *gpu = cmd->gpu;
    null_frame *f = &gpu->frames[gpu->frame_index % gpu->desc.frames_in_flight];
    align = RILL_MAX(align, (uint64_t)RILL__NULL_ALLOC_ALIGN);
    return rill__scratch_alloc(gpu, &f->scratch, &f->scratch_used, size, align, out_buf,
                               out_offset);
}

/* >>checks ---------------------------------------------------------------------------------- */

/* A transfer or compute command: outside dynamic rendering. */
static bool outside_rendering(rill__cmd *cmd, const char *what) {
    if (cmd->rendering) {
        rill__null_complain(cmd->gpu, "%s inside dynamic rendering", what);
        return false;
    }
    return true;
}

/* A draw: inside dynamic rendering with a graphics pipeline bound. */
static bool can_draw(rill__cmd *cmd, const char *what) {
    if (!cmd->rendering || !cmd->bound || cmd->bound->compute) {
        rill__null_complain(cmd->gpu, "%s %s", what,
                            !cmd->rendering ? "outside dynamic rendering"
                                            : "without a graphics pipeline bound");
        return false;
    }
    return true;
}

static bool has_pipe(rill__cmd *cmd, const char *what) {
    if (!cmd->bound) {
        rill__null_complain(cmd->gpu, "%s without a pipeline bound", what);
        return false;
    }
    return true;
}

static void check_images(rill__cmd *cmd, const char *what, const rill__img *a, const rill__img *b) {
    if (outside_rendering(cmd, what) && (!a || !b)) {
        rill__null_complain(cmd->gpu, "%s: a missing image", what);
    }
}

/* >>commands -------------------------------------------------------------------------------- */

void rill__cmd_barriers(rill__cmd *cmd, const rill_rg_barrier *barriers, uint32_t count,
                        rill__img *const *images, rill__buf *const *buffers) {
    if (!outside_rendering(cmd, "barriers")) {
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        const rill_rg_barrier *b = &barriers[i];
        bool present = b->is_image ? images && images[i] : buffers && buffers[i];
        if (!present) {
            rill__null_complain(cmd->gpu, "barrier on graph resource %u, which has no %s",
                                b->resource, b->is_image ? "image" : "buffer");
        }
    }
}

void rill__cmd_label_begin(rill__cmd *cmd, const char *label) {
    (void)label;
    cmd->labels++;
}

void rill__cmd_label_end(rill__cmd *cmd) {
    if (cmd->labels == 0) {
        rill__null_complain(cmd->gpu, "label ended without one begun");
        return;
    }
    cmd->labels--;
}

void rill__cmd_timestamp_begin(rill__cmd *cmd, const char *name) {
    (void)name;
    cmd->timestamps++;
}

void rill__cmd_timestamp_end(rill__cmd *cmd) {
    if (cmd->timestamps == 0) {
        rill__null_complain(cmd->gpu, "timestamp ended without one begun");
        return;
    }
    cmd->timestamps--;
}

/* Whether attachment a (an image with `usage`, at least w x h) can be rendered to. */
static bool attachment_ok(const rill__attachment *a, uint32_t usage, uint32_t w, uint32_t h) {
    const rill__img_desc *d = a->img ? &a->img->desc : NULL;
    return d && (d->usage & usage) && d->width >= w && d->height >= h &&
           (a->layer < 0 || (uint32_t)a->layer < d->layers);
}

void rill__cmd_begin_rendering(rill__cmd *cmd, const rill__attachment *colors, uint32_t color_count,
                               const rill__attachment *depth, uint32_t width, uint32_t height) {
    bool ok = !cmd->rendering && color_count <= RILL__MAX_COLOR && width && height;
    for (uint32_t i = 0; ok && i < color_count; i++) {
        ok = attachment_ok(&colors[i], RILL__IMG_COLOR, width, height);
    }
    if (ok && depth) {
        ok = attachment_ok(depth, RILL__IMG_DEPTH, width, height);
    }
    if (!ok) {
        rill__null_complain(cmd->gpu,
                            "begin_rendering (%ux%u, %u colours%s): nested, or an attachment "
                            "missing, of the wrong usage or smaller than the area",
                            width, height, color_count, depth ? " + depth" : "");
    }
    cmd->rendering = true;
}

void rill__cmd_end_rendering(rill__cmd *cmd) {
    if (!cmd->rendering) {
        rill__null_complain(cmd->gpu, "end_rendering without begin_rendering");
    }
    cmd->rendering = false;
}

void rill__cmd_bind_pipe(rill__cmd *cmd, rill__pipe *pipe) {
    if (!pipe) {
        rill__null_complain(cmd->gpu, "bind_pipe of no pipeline");
    }
    cmd->bound = pipe;
}

void rill__cmd_bind_set(rill__cmd *cmd, uint32_t set_index, rill__dset *set) {
    if (has_pipe(cmd, "bind_set") && (!set || set_index >= cmd->bound->set_count)) {
        rill__null_complain(cmd->gpu, "bind_set %u: no set, or beyond pipeline '%s's %u sets",
                            set_index, cmd->bound->o.label, cmd->bound->set_count);
    }
}

rill_result rill__cmd_bind_transient_set(rill__cmd *cmd, uint32_t set_index,
                                         const rill__binding *bindings, uint32_t count) {
    if (!has_pipe(cmd, "bind_transient_set")) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (set_index >= cmd->bound->set_count) {
        rill__null_complain(cmd->gpu, "transient set %u beyond pipeline '%s's %u sets", set_index,
                            cmd->bound->o.label, cmd->bound->set_count);
        return RILL_ERR_INVALID_ARGUMENT;
    }
    return rill__null_check_bindings(cmd->gpu, cmd->bound->o.label, &cmd->bound->sets[set_index],
                                     bindings, count)
               ? RILL_OK
               : RILL_ERR_INVALID_ARGUMENT;
}

void rill__cmd_push(rill__cmd *cmd, const void *data, uint32_t size) {
    if (has_pipe(cmd, "push") && (!data || size > cmd->bound->push_size)) {
        rill__null_complain(cmd->gpu, "push of %u bytes into pipeline '%s's %u", size,
                            cmd->bound->o.label, cmd->bound->push_size);
    }
}

/* Depth bias and front face are dynamic state: Vulkan takes them with or without a pipeline bound
 * (they hold for the draws after), so the null backend takes them anywhere in a command buffer. */
void rill__cmd_depth_bias(rill__cmd *cmd, float constant, float slope) {
    (void)constant;
    (void)slope;
    (void)cmd;
}

void rill__cmd_front_face(rill__cmd *cmd, bool clockwise) {
    (void)clockwise;
    (void)cmd;
}

void rill__cmd_bind_mesh(rill__cmd *cmd, rill__buf *vertices, rill__buf *indices) {
    if (!vertices || !indices) {
        rill__null_complain(cmd->gpu, "bind_mesh without vertices or indices");
    }
}

void rill__cmd_bind_mesh_extras(rill__cmd *cmd, rill__buf *vertices, rill__buf *extras,
                                uint32_t extra_stride, rill__buf *indices) {
    (void)extra_stride;
    if (!vertices || !extras || !indices) {
        rill__null_complain(cmd->gpu, "bind_mesh_extras without vertices, extras or indices");
    }
}

void rill__cmd_draw_indexed(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                            uint32_t first_index, uint32_t first_instance) {
    (void)index_count, (void)instance_count, (void)first_index, (void)first_instance;
    can_draw(cmd, "draw_indexed");
}

void rill__cmd_draw_indexed_at(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                               uint32_t first_index, int32_t vertex_offset,
                               uint32_t first_instance) {
    (void)index_count, (void)instance_count, (void)first_index, (void)vertex_offset;
    (void)first_instance;
    can_draw(cmd, "draw_indexed_at");
}

/* An indirect draw's records (20 bytes each) lie within buf. */
static void check_indirect(rill__cmd *cmd, const char *what, const rill__buf *buf, uint64_t offset,
                           uint32_t count) {
    if (can_draw(cmd, what) && (!buf || offset + 20u * (uint64_t)count > buf->size)) {
        rill__null_complain(cmd->gpu, "%s: %u records at %llu beyond the buffer", what, count,
                            (unsigned long long)offset);
    }
}

void rill__cmd_draw_indexed_indirect(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                     uint32_t count) {
    check_indirect(cmd, "draw_indexed_indirect", buf, offset, count);
}

void rill__cmd_draw_indexed_indirect_count(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                           rill__buf *count_buf, uint64_t count_offset,
                                           uint32_t max_count) {
    check_indirect(cmd, "draw_indexed_indirect_count", buf, offset, max_count);
    if (!count_buf || count_offset + 4u > count_buf->size) {
        rill__null_complain(cmd->gpu, "draw_indexed_indirect_count: count beyond its buffer");
    }
}

void rill__cmd_dispatch(rill__cmd *cmd, uint32_t x, uint32_t y, uint32_t z) {
    (void)x, (void)y, (void)z;
    if (outside_rendering(cmd, "dispatch") && (!cmd->bound || !cmd->bound->compute)) {
        rill__null_complain(cmd->gpu, "dispatch without a compute pipeline bound");
    }
}

void rill__cmd_copy_image_to_buffer(rill__cmd *cmd, rill__img *img, rill__buf *buf) {
    if (!outside_rendering(cmd, "copy_image_to_buffer")) {
        return;
    }
    const rill__img_desc *d = img ? &img->desc : NULL;
    if (!d || !buf ||
        (uint64_t)d->width * d->height * rill__fmt_unit_bytes(d->format) > buf->size) {
        rill__null_complain(cmd->gpu, "copy_image_to_buffer: missing, or the buffer is too small");
    }
}

void rill__cmd_host_read_barrier(rill__cmd *cmd) {
    outside_rendering(cmd, "host_read_barrier");
}

void rill__cmd_set_render_rect(rill__cmd *cmd, const uint32_t rect[4]) {
    (void)cmd;
    (void)rect;
}

void rill__cmd_compute_barrier(rill__cmd *cmd) {
    outside_rendering(cmd, "compute_barrier");
}

void rill__cmd_skinning_barrier(rill__cmd *cmd, bool after) {
    (void)after;
    outside_rendering(cmd, "skinning_barrier");
}

void rill__cmd_indirect_barrier(rill__cmd *cmd) {
    outside_rendering(cmd, "indirect_barrier");
}

void rill__cmd_copy_buffer(rill__cmd *cmd, rill__buf *src, uint64_t src_off, rill__buf *dst,
                           uint64_t dst_off, uint64_t size, bool first, bool last) {
    (void)first, (void)last;
    if (!outside_rendering(cmd, "copy_buffer")) {
        return;
    }
    if (!src || !dst || src_off + size > src->size || dst_off + size > dst->size) {
        rill__null_complain(cmd->gpu, "copy_buffer of %llu bytes beyond a buffer",
                            (unsigned long long)size);
        return;
    }
    if (src->mapped && dst->mapped) {
        memmove(dst->mapped + dst_off, src->mapped + src_off, size);
    }
}

void rill__cmd_copy_image_general(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    check_images(cmd, "copy_image_general", src, dst);
}

void rill__cmd_clear_color(rill__cmd *cmd, rill__img *img, const float rgba[4]) {
    (void)rgba;
    check_images(cmd, "clear_color", img, img);
}

void rill__cmd_copy_image_to(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t x,
                             uint32_t y) {
    (void)x, (void)y;
    check_images(cmd, "copy_image_to", src, dst);
}

void rill__cmd_blit(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    check_images(cmd, "blit", src, dst);
}

void rill__cmd_blit_layer(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t layer,
                          bool flip_x) {
    (void)flip_x;
    check_images(cmd, "blit_layer", src, dst);
    if (dst && layer >= dst->desc.layers) {
        rill__null_complain(cmd->gpu, "blit_layer to layer %u of %u", layer, dst->desc.layers);
    }
}

void rill__cmd_resolve(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    check_images(cmd, "resolve", src, dst);
    if (src && src->desc.samples < 2) {
        rill__null_complain(cmd->gpu, "resolve of a single-sampled image");
    }
}
