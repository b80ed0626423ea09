/* gpu_backend.h: how a GPU backend sits under gpu.h. gpu.h declares the renderer's GPU interface;
 * gpu_dispatch.c defines those functions once, each forwarding to the backend that made the object
 * it is called on. A backend (src/render/vk: Vulkan; src/render/null: no device) fills one
 * rill__gpu_backend table with its implementations, and every object it hands out (device, buffer,
 * image, pipeline, descriptor set, command recorder) starts with a rill__gpu_obj that the
 * dispatcher stamps with that table.
 *
 * A backend's files define gpu.h's functions under their own names: its private header defines
 * RILL__GPU_BACKEND_PREFIX (rill__vk_, rill__null_) and includes gpu_backend_names.h before gpu.h,
 * so `rill__buf_create` in those files is `rill__vk_buf_create` (or `rill__null_buf_create`), and
 * a call between two interface functions inside a backend stays inside it. A function added to
 * gpu.h needs a line in gpu_backend_names.h, a field here, a forwarder in gpu_dispatch.c and an
 * implementation in each backend (tests/render/gpu_backend_check.py fails until all are there).
 * rill__fmt_is_block, rill__fmt_unit_bytes and rill__fmt_level_bytes are plain format tables, not
 * backend functions.
 */
#ifndef RILL_RENDER_GPU_BACKEND_H
#define RILL_RENDER_GPU_BACKEND_H

#include "gpu.h"

/* The first member of every backend object. */
typedef struct rill__gpu_obj {
    const struct rill__gpu_backend *backend;
} rill__gpu_obj;

typedef struct rill__gpu_backend {
    const char *name; /* "vulkan", "null" */
    rill_result (*gpu_create)(const rill__gpu_desc *desc, rill__gpu **out, rill_error *err);
    void (*gpu_destroy)(rill__gpu *gpu);
    const rill__gpu_caps *(*gpu_get_caps)(const rill__gpu *gpu);
    uint32_t (*gpu_validation_messages)(const rill__gpu *gpu);
    rill_result (*gpu_wait_idle)(rill__gpu *gpu, rill_error *err);
    void (*gpu_mem_stats_get)(const rill__gpu *gpu, rill__gpu_mem_stats *out);
    rill__buf *(*buf_create)(rill__gpu *gpu, uint64_t size, uint32_t usage, bool host_visible,
                             const char *label, rill_error *err);
    void *(*buf_map)(rill__buf *buf);
    uint64_t (*buf_size)(const rill__buf *buf);
    void (*buf_destroy)(rill__gpu *gpu, rill__buf *buf);
    rill__accel *(*blas_create)(rill__gpu *gpu, const rill__blas_geom *g, const char *label,
                                rill__accel_sizes *out_sizes, rill_error *err);
    rill__accel *(*tlas_create)(rill__gpu *gpu, uint32_t max_instances, const char *label,
                                rill__accel_sizes *out_sizes, rill_error *err);
    uint64_t (*buf_address)(const rill__buf *buf);
    uint64_t (*accel_address)(const rill__accel *a);
    void (*accel_destroy)(rill__gpu *gpu, rill__accel *a);
    rill_result (*cmd_build_blas)(rill__cmd *cmd, rill__accel *blas, const rill__blas_geom *g,
                                  rill_error *err);
    void (*cmd_build_tlas)(rill__cmd *cmd, rill__accel *tlas, const rill__accel_instance *inst,
                           uint32_t count);
    rill__img *(*img_create)(rill__gpu *gpu, const rill__img_desc *desc, rill_error *err);
    void (*img_destroy)(rill__gpu *gpu, rill__img *img);
    const rill__img_desc *(*img_get_desc)(const rill__img *img);
    rill_result (*buf_upload)(rill__gpu *gpu, rill__buf *buf, uint64_t offset, const void *data,
                              uint64_t size, rill_error *err);
    rill_result (*img_upload)(rill__gpu *gpu, rill__img *img, const void *data, uint64_t size,
                              rill_error *err);
    rill_result (*img_upload_levels)(rill__gpu *gpu, rill__img *img, uint32_t first_level,
                                     uint32_t level_count, const void *const *level_data,
                                     const uint64_t *level_size, rill_error *err);
    rill_result (*img_upload_levels_borrowed)(rill__gpu *gpu, rill__img *img, uint32_t level_count,
                                              const void *const *level_data,
                                              const uint64_t *level_size,
                                              void (*release)(void *user), void *user,
                                              rill_error *err);
    bool (*buf_ready)(const rill__buf *buf);
    void (*buf_mark_written)(rill__buf *buf);
    uint64_t (*buf_upload_seq)(const rill__buf *buf);
    bool (*buf_seq_done)(const rill__buf *buf, uint64_t seq);
    bool (*img_ready)(const rill__img *img);
    rill__sampler_kind (*sampler_material)(rill__gpu *gpu, const rill__sampler_desc *d,
                                           rill_error *err);
    bool (*sampler_desc_of)(const rill__gpu *gpu, rill__sampler_kind kind, rill__sampler_desc *out);
    rill__pipe *(*pipe_create)(rill__gpu *gpu, const rill__pipe_desc *desc, rill_error *err);
    void (*pipe_destroy)(rill__gpu *gpu, rill__pipe *pipe);
    rill__dset *(*dset_create)(rill__gpu *gpu, const rill__pipe *pipe, uint32_t set_index,
                               const rill__binding *bindings, uint32_t count, rill_error *err);
    void (*dset_destroy)(rill__gpu *gpu, rill__dset *set);
    rill_result (*frame_begin)(rill__gpu *gpu, rill__cmd **out_cmd, rill_error *err);
    rill_result (*frame_end)(rill__gpu *gpu, rill__cmd *cmd, rill_error *err);
    rill__img *(*frame_swapchain_image)(rill__gpu *gpu);
    void (*gpu_surface_size)(const rill__gpu *gpu, uint32_t *out_w, uint32_t *out_h);
    void (*gpu_set_guard)(rill__gpu *gpu, void (*fn)(const void *user), const void *user);
    void (*gpu_set_framebuffer_size)(rill__gpu *gpu, int w, int h);
    void (*gpu_set_vsync)(rill__gpu *gpu, bool vsync);
    const char *(*gpu_present_mode)(const rill__gpu *gpu);
    uint64_t (*gpu_frame_index)(const rill__gpu *gpu);
    uint32_t (*gpu_frame_slot)(const rill__gpu *gpu);
    uint32_t (*gpu_frames_in_flight)(const rill__gpu *gpu);
    uint64_t (*gpu_uploaded_last_frame)(const rill__gpu *gpu);
    void (*gpu_upload_figures)(const rill__gpu *gpu, rill__upload_figures *out);
    uint32_t (*gpu_timings)(rill__gpu *gpu, const char *const **out_names, const double **out_ms);
    void (*cmd_barriers)(rill__cmd *cmd, const rill_rg_barrier *barriers, uint32_t count,
                         rill__img *const *images, rill__buf *const *buffers);
    void (*cmd_label_begin)(rill__cmd *cmd, const char *label);
    void (*cmd_label_end)(rill__cmd *cmd);
    void (*cmd_timestamp_begin)(rill__cmd *cmd, const char *name);
    void (*cmd_timestamp_end)(rill__cmd *cmd);
    void (*cmd_begin_rendering)(rill__cmd *cmd, const rill__attachment *colors,
                                uint32_t color_count, const rill__attachment *depth, uint32_t width,
                                uint32_t height);
    void (*cmd_end_rendering)(rill__cmd *cmd);
    void (*cmd_bind_pipe)(rill__cmd *cmd, rill__pipe *pipe);
    void (*cmd_bind_set)(rill__cmd *cmd, uint32_t set_index, rill__dset *set);
    rill_result (*cmd_bind_transient_set)(rill__cmd *cmd, uint32_t set_index,
                                          const rill__binding *bindings, uint32_t count);
    void (*cmd_push)(rill__cmd *cmd, const void *data, uint32_t size);
    void (*cmd_depth_bias)(rill__cmd *cmd, float constant, float slope);
    void (*cmd_front_face)(rill__cmd *cmd, bool clockwise);
    void (*cmd_bind_mesh)(rill__cmd *cmd, rill__buf *vertices, rill__buf *indices);
    void (*cmd_bind_mesh_extras)(rill__cmd *cmd, rill__buf *vertices, rill__buf *extras,
                                 uint32_t extra_stride, rill__buf *indices);
    void (*cmd_draw_indexed_at)(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                                uint32_t first_index, int32_t vertex_offset,
                                uint32_t first_instance);
    void (*cmd_draw_indexed_indirect)(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                      uint32_t count);
    void (*cmd_draw_indexed_indirect_count)(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                            rill__buf *count_buf, uint64_t count_offset,
                                            uint32_t max_count);
    void (*cmd_draw_indexed)(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                             uint32_t first_index, uint32_t first_instance);
    void (*cmd_dispatch)(rill__cmd *cmd, uint32_t x, uint32_t y, uint32_t z);
    void (*cmd_copy_image_to_buffer)(rill__cmd *cmd, rill__img *img, rill__buf *buf);
    void (*cmd_host_read_barrier)(rill__cmd *cmd);
    void (*cmd_set_render_rect)(rill__cmd *cmd, const uint32_t rect[4]);
    void (*cmd_compute_barrier)(rill__cmd *cmd);
    void (*cmd_skinning_barrier)(rill__cmd *cmd, bool after);
    void (*cmd_indirect_barrier)(rill__cmd *cmd);
    void (*cmd_copy_buffer)(rill__cmd *cmd, rill__buf *src, uint64_t src_off, rill__buf *dst,
                            uint64_t dst_off, uint64_t size, bool first, bool last);
    void (*cmd_copy_image_general)(rill__cmd *cmd, rill__img *src, rill__img *dst);
    void (*cmd_clear_color)(rill__cmd *cmd, rill__img *img, const float rgba[4]);
    void (*cmd_copy_image_to)(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t x,
                              uint32_t y);
    void (*cmd_blit)(rill__cmd *cmd, rill__img *src, rill__img *dst);
    void (*cmd_blit_layer)(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t layer,
                           bool flip_x);
    void (*cmd_resolve)(rill__cmd *cmd, rill__img *src, rill__img *dst);
    void *(*frame_alloc)(rill__cmd *cmd, uint64_t size, uint64_t align, rill__buf **out_buf,
                         uint64_t *out_offset);
} rill__gpu_backend;

extern const rill__gpu_backend rill__gpu_backend_vk;
extern const rill__gpu_backend rill__gpu_backend_null;

#endif /* RILL_RENDER_GPU_BACKEND_H */
