/* gpu_dispatch.c: gpu.h's functions, each forwarding to the backend that made the object it is
 * called on (gpu_backend.h): the device picks its backend at rill__gpu_create, and every object a
 * backend hands out is stamped with that backend's table on its way out. */
#include "gpu_backend.h"

/* rill__gpu_create_time's totals, per thread (the render thread's frame reads its own). */
static _Thread_local uint64_t create_ns;
static _Thread_local uint32_t create_calls;

void rill__gpu_create_time(uint64_t *ns, uint32_t *calls) {
    *ns = create_ns;
    *calls = create_calls;
}

/* Adds the time since t0 to this thread's creation totals and hands obj back. */
static void *timed(uint64_t t0, void *obj) {
    create_ns += rill_time_ns() - t0;
    create_calls++;
    return obj;
}

static const rill__gpu_backend *backend_of(const void *obj) {
    return ((const rill__gpu_obj *)obj)->backend;
}

/* Marks obj (NULL: nothing) as made by backend and hands it back. */
static void *stamp(const rill__gpu_backend *backend, void *obj) {
    if (obj) {
        ((rill__gpu_obj *)obj)->backend = backend;
    }
    return obj;
}

static const rill__gpu_backend *backend_for(rill_render_backend kind) {
    return kind == RILL_RENDER_BACKEND_NULL ? &rill__gpu_backend_null : &rill__gpu_backend_vk;
}

rill_result rill__gpu_create(const rill__gpu_desc *desc, rill__gpu **out, rill_error *err) {
    const rill__gpu_backend *backend = backend_for(desc->backend);
    rill_result res = backend->gpu_create(desc, out, err);
    if (res == RILL_OK) {
        stamp(backend, *out);
    }
    return res;
}

void rill__gpu_destroy(rill__gpu *gpu) {
    if (!gpu) {
        return;
    }
    backend_of(gpu)->gpu_destroy(gpu);
}

const rill__gpu_caps *rill__gpu_get_caps(const rill__gpu *gpu) {
    return backend_of(gpu)->gpu_get_caps(gpu);
}

uint32_t rill__gpu_validation_messages(const rill__gpu *gpu) {
    return backend_of(gpu)->gpu_validation_messages(gpu);
}

rill_result rill__gpu_wait_idle(rill__gpu *gpu, rill_error *err) {
    return backend_of(gpu)->gpu_wait_idle(gpu, err);
}

void rill__gpu_mem_stats_get(const rill__gpu *gpu, rill__gpu_mem_stats *out) {
    backend_of(gpu)->gpu_mem_stats_get(gpu, out);
}

rill__buf *rill__buf_create(rill__gpu *gpu, uint64_t size, uint32_t usage, bool host_visible,
                            const char *label, rill_error *err) {
    uint64_t t0 = rill_time_ns();
    return timed(t0, stamp(backend_of(gpu), backend_of(gpu)->buf_create(gpu, size, usage,
                                                                        host_visible, label, err)));
}

void *rill__buf_map(rill__buf *buf) {
    if (!buf) {
        return NULL;
    }
    return backend_of(buf)->buf_map(buf);
}

uint64_t rill__buf_size(const rill__buf *buf) {
    if (!buf) {
        return 0;
    }
    return backend_of(buf)->buf_size(buf);
}

void rill__buf_destroy(rill__gpu *gpu, rill__buf *buf) {
    backend_of(gpu)->buf_destroy(gpu, buf);
}

rill__accel *rill__blas_create(rill__gpu *gpu, const rill__blas_geom *g, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err) {
    return stamp(backend_of(gpu), backend_of(gpu)->blas_create(gpu, g, label, out_sizes, err));
}

rill__accel *rill__tlas_create(rill__gpu *gpu, uint32_t max_instances, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err) {
    return stamp(backend_of(gpu),
                 backend_of(gpu)->tlas_create(gpu, max_instances, label, out_sizes, err));
}

uint64_t rill__buf_address(const rill__buf *buf) {
    if (!buf) {
        return 0;
    }
    return backend_of(buf)->buf_address(buf);
}

uint64_t rill__accel_address(const rill__accel *a) {
    if (!a) {
        return 0;
    }
    return backend_of(a)->accel_address(a);
}

void rill__accel_destroy(rill__gpu *gpu, rill__accel *a) {
    backend_of(gpu)->accel_destroy(gpu, a);
}

rill_result rill__cmd_build_blas(rill__cmd *cmd, rill__accel *blas, const rill__blas_geom *g,
                                 rill_error *err) {
    return backend_of(cmd)->cmd_build_blas(cmd, blas, g, err);
}

void rill__cmd_build_tlas(rill__cmd *cmd, rill__accel *tlas, const rill__accel_instance *inst,
                          uint32_t count) {
    backend_of(cmd)->cmd_build_tlas(cmd, tlas, inst, count);
}

rill__img *rill__img_create(rill__gpu *gpu, const rill__img_desc *desc, rill_error *err) {
    uint64_t t0 = rill_time_ns();
    return timed(t0, stamp(backend_of(gpu), backend_of(gpu)->img_create(gpu, desc, err)));
}

void rill__img_destroy(rill__gpu *gpu, rill__img *img) {
    backend_of(gpu)->img_destroy(gpu, img);
}

const rill__img_desc *rill__img_get_desc(const rill__img *img) {
    if (!img) {
        return NULL;
    }
    return backend_of(img)->img_get_desc(img);
}

rill_result rill__buf_upload(rill__gpu *gpu, rill__buf *buf, uint64_t offset, const void *data,
                             uint64_t size, rill_error *err) {
    return backend_of(gpu)->buf_upload(gpu, buf, offset, data, size, err);
}

rill_result rill__img_upload(rill__gpu *gpu, rill__img *img, const void *data, uint64_t size,
                             rill_error *err) {
    return backend_of(gpu)->img_upload(gpu, img, data, size, err);
}

rill_result rill__img_upload_levels(rill__gpu *gpu, rill__img *img, uint32_t first_level,
                                    uint32_t level_count, const void *const *level_data,
                                    const uint64_t *level_size, rill_error *err) {
    return backend_of(gpu)->img_upload_levels(gpu, img, first_level, level_count, level_data,
                                              level_size, err);
}

rill_result rill__img_upload_levels_borrowed(rill__gpu *gpu, rill__img *img, uint32_t level_count,
                                             const void *const *level_data,
                                             const uint64_t *level_size,
                                             void (*release)(void *user), void *user,
                                             rill_error *err) {
    return backend_of(gpu)->img_upload_levels_borrowed(gpu, img, level_count, level_data,
                                                       level_size, release, user, err);
}

bool rill__buf_ready(const rill__buf *buf) {
    if (!buf) {
        return false;
    }
    return backend_of(buf)->buf_ready(buf);
}

void rill__buf_mark_written(rill__buf *buf) {
    if (!buf) {
        return;
    }
    backend_of(buf)->buf_mark_written(buf);
}

uint64_t rill__buf_upload_seq(const rill__buf *buf) {
    if (!buf) {
        return 0;
    }
    return backend_of(buf)->buf_upload_seq(buf);
}

bool rill__buf_seq_done(const rill__buf *buf, uint64_t seq) {
    if (!buf) {
        return false;
    }
    return backend_of(buf)->buf_seq_done(buf, seq);
}

bool rill__img_ready(const rill__img *img) {
    if (!img) {
        return false;
    }
    return backend_of(img)->img_ready(img);
}

rill__sampler_kind rill__sampler_material(rill__gpu *gpu, const rill__sampler_desc *d,
                                          rill_error *err) {
    return backend_of(gpu)->sampler_material(gpu, d, err);
}

bool rill__sampler_desc_of(const rill__gpu *gpu, rill__sampler_kind kind, rill__sampler_desc *out) {
    return backend_of(gpu)->sampler_desc_of(gpu, kind, out);
}

rill__pipe *rill__pipe_create(rill__gpu *gpu, const rill__pipe_desc *desc, rill_error *err) {
    uint64_t t0 = rill_time_ns();
    return timed(t0, stamp(backend_of(gpu), backend_of(gpu)->pipe_create(gpu, desc, err)));
}

void rill__pipe_destroy(rill__gpu *gpu, rill__pipe *pipe) {
    backend_of(gpu)->pipe_destroy(gpu, pipe);
}

rill__dset *rill__dset_create(rill__gpu *gpu, const rill__pipe *pipe, uint32_t set_index,
                              const rill__binding *bindings, uint32_t count, rill_error *err) {
    return stamp(backend_of(gpu),
                 backend_of(gpu)->dset_create(gpu, pipe, set_index, bindings, count, err));
}

void rill__dset_destroy(rill__gpu *gpu, rill__dset *set) {
    backend_of(gpu)->dset_destroy(gpu, set);
}

rill_result rill__frame_begin(rill__gpu *gpu, rill__cmd **out_cmd, rill_error *err) {
    rill_result res = backend_of(gpu)->frame_begin(gpu, out_cmd, err);
    if (res == RILL_OK) {
        stamp(backend_of(gpu), *out_cmd);
    }
    return res;
}

rill_result rill__frame_end(rill__gpu *gpu, rill__cmd *cmd, rill_error *err) {
    return backend_of(gpu)->frame_end(gpu, cmd, err);
}

rill__img *rill__frame_swapchain_image(rill__gpu *gpu) {
    return stamp(backend_of(gpu), backend_of(gpu)->frame_swapchain_image(gpu));
}

void rill__gpu_surface_size(const rill__gpu *gpu, uint32_t *out_w, uint32_t *out_h) {
    backend_of(gpu)->gpu_surface_size(gpu, out_w, out_h);
}

void rill__gpu_set_guard(rill__gpu *gpu, void (*fn)(const void *user), const void *user) {
    backend_of(gpu)->gpu_set_guard(gpu, fn, user);
}

void rill__gpu_set_framebuffer_size(rill__gpu *gpu, int w, int h) {
    backend_of(gpu)->gpu_set_framebuffer_size(gpu, w, h);
}

void rill__gpu_set_vsync(rill__gpu *gpu, bool vsync) {
    backend_of(gpu)->gpu_set_vsync(gpu, vsync);
}

const char *rill__gpu_present_mode(const rill__gpu *gpu) {
    return backend_of(gpu)->gpu_present_mode(gpu);
}

uint64_t rill__gpu_frame_index(const rill__gpu *gpu) {
    return backend_of(gpu)->gpu_frame_index(gpu);
}

uint32_t rill__gpu_frame_slot(const rill__gpu *gpu) {
    return backend_of(gpu)->gpu_frame_slot(gpu);
}

uint32_t rill__gpu_frames_in_flight(const rill__gpu *gpu) {
    return backend_of(gpu)->gpu_frames_in_flight(gpu);
}

uint64_t rill__gpu_uploaded_last_frame(const rill__gpu *gpu) {
    return backend_of(gpu)->gpu_uploaded_last_frame(gpu);
}

void rill__gpu_upload_figures(const rill__gpu *gpu, rill__upload_figures *out) {
    backend_of(gpu)->gpu_upload_figures(gpu, out);
}

uint32_t rill__gpu_timings(rill__gpu *gpu, const char *const **out_names, const double **out_ms) {
    return backend_of(gpu)->gpu_timings(gpu, out_names, out_ms);
}

void rill__cmd_barriers(rill__cmd *cmd, const rill_rg_barrier *barriers, uint32_t count,
                        rill__img *const *images, rill__buf *const *buffers) {
    backend_of(cmd)->cmd_barriers(cmd, barriers, count, images, buffers);
}

void rill__cmd_label_begin(rill__cmd *cmd, const char *label) {
    backend_of(cmd)->cmd_label_begin(cmd, label);
}

void rill__cmd_label_end(rill__cmd *cmd) {
    backend_of(cmd)->cmd_label_end(cmd);
}

void rill__cmd_timestamp_begin(rill__cmd *cmd, const char *name) {
    backend_of(cmd)->cmd_timestamp_begin(cmd, name);
}

void rill__cmd_timestamp_end(rill__cmd *cmd) {
    backend_of(cmd)->cmd_timestamp_end(cmd);
}

void rill__cmd_begin_rendering(rill__cmd *cmd, const rill__attachment *colors, uint32_t color_count,
                               const rill__attachment *depth, uint32_t width, uint32_t height) {
    backend_of(cmd)->cmd_begin_rendering(cmd, colors, color_count, depth, width, height);
}

void rill__cmd_end_rendering(rill__cmd *cmd) {
    backend_of(cmd)->cmd_end_rendering(cmd);
}

void rill__cmd_bind_pipe(rill__cmd *cmd, rill__pipe *pipe) {
    backend_of(cmd)->cmd_bind_pipe(cmd, pipe);
}

void rill__cmd_bind_set(rill__cmd *cmd, uint32_t set_index, rill__dset *set) {
    backend_of(cmd)->cmd_bind_set(cmd, set_index, set);
}

rill_result rill__cmd_bind_transient_set(rill__cmd *cmd, uint32_t set_index,
                                         const rill__binding *bindings, uint32_t count) {
    return backend_of(cmd)->cmd_bind_transient_set(cmd, set_index, bindings, count);
}

void rill__cmd_push(rill__cmd *cmd, const void *data, uint32_t size) {
    backend_of(cmd)->cmd_push(cmd, data, size);
}

void rill__cmd_depth_bias(rill__cmd *cmd, float constant, float slope) {
    backend_of(cmd)->cmd_depth_bias(cmd, constant, slope);
}

void rill__cmd_front_face(rill__cmd *cmd, bool clockwise) {
    backend_of(cmd)->cmd_front_face(cmd, clockwise);
}

void rill__cmd_bind_mesh(rill__cmd *cmd, rill__buf *vertices, rill__buf *indices) {
    backend_of(cmd)->cmd_bind_mesh(cmd, vertices, indices);
}

void rill__cmd_bind_mesh_extras(rill__cmd *cmd, rill__buf *vertices, rill__buf *extras,
                                uint32_t extra_stride, rill__buf *indices) {
    backend_of(cmd)->cmd_bind_mesh_extras(cmd, vertices, extras, extra_stride, indices);
}

void rill__cmd_draw_indexed_at(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                               uint32_t first_index, int32_t vertex_offset,
                               uint32_t first_instance) {
    backend_of(cmd)->cmd_draw_indexed_at(cmd, index_count, instance_count, first_index,
                                         vertex_offset, first_instance);
}

void rill__cmd_draw_indexed_indirect(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                     uint32_t count) {
    backend_of(cmd)->cmd_draw_indexed_indirect(cmd, buf, offset, count);
}

void rill__cmd_draw_indexed_indirect_count(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                           rill__buf *count_buf, uint64_t count_offset,
                                           uint32_t max_count) {
    backend_of(cmd)->cmd_draw_indexed_indirect_count(cmd, buf, offset, count_buf, count_offset,
                                                     max_count);
}

void rill__cmd_draw_indexed(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                            uint32_t first_index, uint32_t first_instance) {
    backend_of(cmd)->cmd_draw_indexed(cmd, index_count, instance_count, first_index,
                                      first_instance);
}

void rill__cmd_dispatch(rill__cmd *cmd, uint32_t x, uint32_t y, uint32_t z) {
    backend_of(cmd)->cmd_dispatch(cmd, x, y, z);
}

void rill__cmd_copy_image_to_buffer(rill__cmd *cmd, rill__img *img, rill__buf *buf) {
    backend_of(cmd)->cmd_copy_image_to_buffer(cmd, img, buf);
}

void rill__cmd_host_read_barrier(rill__cmd *cmd) {
    backend_of(cmd)->cmd_host_read_barrier(cmd);
}

void rill__cmd_set_render_rect(rill__cmd *cmd, const uint32_t rect[4]) {
    backend_of(cmd)->cmd_set_render_rect(cmd, rect);
}

void rill__cmd_compute_barrier(rill__cmd *cmd) {
    backend_of(cmd)->cmd_compute_barrier(cmd);
}

void rill__cmd_skinning_barrier(rill__cmd *cmd, bool after) {
    backend_of(cmd)->cmd_skinning_barrier(cmd, after);
}

void rill__cmd_indirect_barrier(rill__cmd *cmd) {
    backend_of(cmd)->cmd_indirect_barrier(cmd);
}

void rill__cmd_copy_buffer(rill__cmd *cmd, rill__buf *src, uint64_t src_off, rill__buf *dst,
                           uint64_t dst_off, uint64_t size, bool first, bool last) {
    backend_of(cmd)->cmd_copy_buffer(cmd, src, src_off, dst, dst_off, size, first, last);
}

void rill__cmd_copy_image_general(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    backend_of(cmd)->cmd_copy_image_general(cmd, src, dst);
}

void rill__cmd_clear_color(rill__cmd *cmd, rill__img *img, const float rgba[4]) {
    backend_of(cmd)->cmd_clear_color(cmd, img, rgba);
}

void rill__cmd_copy_image_to(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t x,
                             uint32_t y) {
    backend_of(cmd)->cmd_copy_image_to(cmd, src, dst, x, y);
}

void rill__cmd_blit(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    backend_of(cmd)->cmd_blit(cmd, src, dst);
}

void rill__cmd_blit_layer(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t layer,
                          bool flip_x) {
    backend_of(cmd)->cmd_blit_layer(cmd, src, dst, layer, flip_x);
}

void rill__cmd_resolve(rill__cmd *cmd, rill__img *src, rill__img *dst) {
    backend_of(cmd)->cmd_resolve(cmd, src, dst);
}

void *rill__frame_alloc(rill__cmd *cmd, uint64_t size, uint64_t align, rill__buf **out_buf,
                        uint64_t *out_offset) {
    void *p = backend_of(cmd)->frame_alloc(cmd, size, align, out_buf, out_offset);
    if (p) {
        stamp(backend_of(cmd), *out_buf);
    }
    return p;
}
