/* vk_internal.h: the Vulkan backend's private structures, shared by the files of src/render/vk.
 * Nothing outside this folder includes it: the rest of the renderer sees only ../gpu.h. */
#ifndef RILL_RENDER_VK_INTERNAL_H
#define RILL_RENDER_VK_INTERNAL_H

#include <vulkan/vulkan.h>

/* This folder defines gpu.h's functions as rill__vk_* (../gpu_backend.h). */
#define RILL__GPU_BACKEND_PREFIX rill__vk_
#include "../gpu_backend_names.h"

#include "../gpu.h"
#include "../gpu_backend.h"
#include "../gpu_scratch.h"
#include "../range_alloc.h"
#include "../upload_pieces.h"

#define RILL__VK_MAX_FRAMES 3
#define RILL__VK_MAX_QUERIES                                                                       \
    256 /* two per timed pass: 128 passes (split screens time every view) */

/* Checks a VkResult and turns a failure into a rill_error naming the call; evaluates `call` in
 * every build (never inside an assert). */
/* First in a resource call: lets the render thread's guard wait for a frame in progress
 * (render_thread.c) when the call comes from another thread. */
#define RILL__GPU_GUARD(gpu)                                                                       \
    do {                                                                                           \
        if ((gpu)->guard) {                                                                        \
            (gpu)->guard((gpu)->guard_user);                                                       \
        }                                                                                          \
    } while (0)

#define RILL__VK_TRY(err, call)                                                                    \
    do {                                                                                           \
        VkResult vk_try_res_ = (call);                                                             \
        if (vk_try_res_ != VK_SUCCESS)                                                             \
            return rill__vk_fail((err), vk_try_res_, #call, __FILE__, __LINE__);                   \
    } while (0)

rill_result rill__vk_fail(rill_error *err, VkResult res, const char *what, const char *file,
                          int line);
const char *rill__vk_result_str(VkResult res);

/* >>memory */
typedef struct vk_block {
    VkDeviceMemory mem;
    uint32_t type;
    uint64_t size;
    void *mapped;
    bool dedicated;
    uint32_t live; /* allocations in it */
    rill__range_alloc ra;
} vk_block;

typedef struct vk_alloc {
    int32_t block; /* -1 = none */
    uint64_t offset, size;
} vk_alloc;

rill_result rill__vk_mem_alloc(rill__gpu *gpu, const VkMemoryRequirements *req, bool host_visible,
                               vk_alloc *out, rill_error *err);
void rill__vk_mem_free(rill__gpu *gpu, vk_alloc *alloc);
void *rill__vk_mem_mapped(rill__gpu *gpu, const vk_alloc *alloc);
VkDeviceMemory rill__vk_mem_memory(rill__gpu *gpu, const vk_alloc *alloc);
void rill__vk_mem_shutdown(rill__gpu *gpu);

/* >>objects */
struct rill__buf {
    rill__gpu_obj obj; /* first: the dispatcher's backend stamp */
    VkBuffer buf;
    vk_alloc alloc;
    uint64_t size;
    void *mapped;
    bool ready;
    /* Uploads queued into it and recorded so far (recorded in FIFO order): a range uploaded
     * with number n is ready once uploads_done >= n. */
    uint64_t uploads_queued, uploads_done;
    uint64_t address; /* its device address when made with one (caps.ray_query), else 0 */
};

struct rill__img {
    rill__gpu_obj obj; /* first: the dispatcher's backend stamp */
    VkImage img;
    VkImageView view;         /* 2D, or 2D array when layers > 1 */
    VkImageView *layer_views; /* one per layer when layers > 1 */
    VkImageView *mip_views;   /* cube storage images: one 2D array view per mip level */
    VkImageView srgb_view;    /* RILL__IMG_SRGB_VIEW: the default view in the sRGB twin format */
    VkFormat vkfmt;
    vk_alloc alloc;
    rill__img_desc desc;
    bool ready;
    bool swapchain; /* not owned */
};

struct rill__pipe {
    rill__gpu_obj obj; /* first: the dispatcher's backend stamp */
    VkPipeline pipe;
    VkPipelineLayout layout;
    VkDescriptorSetLayout set_layouts[RILL__MAX_SETS];
    rill__set_layout sets[RILL__MAX_SETS];
    uint32_t set_count;
    uint32_t push_size;
    bool compute;
};

struct rill__dset {
    rill__gpu_obj obj; /* first: the dispatcher's backend stamp */
    VkDescriptorSet set;
    VkDescriptorPool pool;
};

typedef enum vk_del_kind {
    VK_DEL_BUF,
    VK_DEL_IMG,
    VK_DEL_PIPE,
    VK_DEL_DSET,
    VK_DEL_ACCEL
} vk_del_kind;
typedef struct vk_del {
    vk_del_kind kind;
    uint64_t after; /* destroy once the timeline reaches this frame */
    void *obj;
} vk_del;

typedef struct vk_upload {
    bool is_image;
    void *target; /* rill__buf* or rill__img* */
    uint64_t offset, size;
    void *data; /* owned copy (NULL for a borrowed upload) */
    /* Borrowed levels (rill__img_upload_levels_borrowed): level pointers (owned array) read when
     * the upload is recorded; release(release_user) once recorded or dropped. */
    const void **borrowed;
    void (*release)(void *user);
    void *release_user;
    /* Images: gen_mips = data is level 0, the rest of the chain is generated with blits; else
     * data holds levels [first_level, first_level + level_count), each 16-byte aligned. */
    bool gen_mips;
    uint32_t first_level, level_count;
    uint64_t seq;           /* buffers: the target's upload number (rill__buf_upload_seq) */
    rill__upload_cursor at; /* how much of it earlier frames recorded (upload_pieces.h) */
} vk_upload;

/* Frees an upload's copy, or ends a borrowed upload (its release callback runs). */
void rill__vk_upload_free(vk_upload *u);

typedef struct vk_frame {
    VkCommandPool pool;
    VkCommandBuffer cb;
    uint64_t value; /* timeline value signalled when this slot's last frame finished */
    RILL_ARRAY(VkDescriptorPool) dpools;
    uint32_t dpool_cur;
    rill__buf *staging;
    uint64_t staging_used;
    rill__buf *scratch;
    uint64_t scratch_used;
    VkQueryPool queries;
    uint32_t query_count;
    const char *ts_names[RILL__VK_MAX_QUERIES / 2];
    uint32_t ts_count;
    VkSemaphore acquire; /* windowed: image acquired */
} vk_frame;

struct rill__cmd {
    rill__gpu_obj obj; /* first: the dispatcher's backend stamp */
    rill__gpu *gpu;
    VkCommandBuffer cb;
    vk_frame *f;
    rill__pipe *bound;
    uint32_t ts_stack[8];
    uint32_t ts_depth;
    uint32_t rect[4]; /* render area of the next begin_rendering (x, y, w, h); w = 0: whole */
};

struct rill__gpu {
    rill__gpu_obj obj; /* first: the dispatcher's backend stamp */
    rill__gpu_desc desc;
    /* rill__gpu_set_guard: called first by the resource calls (RILL__GPU_GUARD) */
    void (*guard)(const void *user);
    const void *guard_user;
    /* rill__gpu_set_framebuffer_size: the window's framebuffer size read by the thread that may
     * call GLFW, used instead of asking GLFW when fb_given */
    int fb_w, fb_h;
    bool fb_given;
    rill__gpu_caps caps;
    VkInstance inst;
    VkDebugUtilsMessengerEXT messenger;
    bool debug_utils;
    PFN_vkSetDebugUtilsObjectNameEXT set_name;
    PFN_vkCmdBeginDebugUtilsLabelEXT label_begin;
    PFN_vkCmdEndDebugUtilsLabelEXT label_end;
    _Atomic uint32_t validation_messages;
    VkPhysicalDevice pd;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memprops;
    VkDevice dev;
    VkQueue queue;
    uint32_t qfam;
    VkPipelineCache pcache;
    /* Ray queries (accel.c): the acceleration-structure functions, loaded when caps.ray_query,
     * and the alignment of a build's scratch address. */
    PFN_vkCreateAccelerationStructureKHR create_as;
    PFN_vkDestroyAccelerationStructureKHR destroy_as;
    PFN_vkGetAccelerationStructureBuildSizesKHR as_sizes;
    PFN_vkCmdBuildAccelerationStructuresKHR cmd_build_as;
    PFN_vkGetAccelerationStructureDeviceAddressKHR as_address;
    uint32_t as_scratch_align;
    VkSampler samplers[RILL__SAMPLER_NUM];
    /* Material samplers (rill__sampler_material): kind RILL__SAMPLER_NUM + i. */
    RILL_ARRAY(rill__sampler_desc) material_sampler_descs;
    RILL_ARRAY(VkSampler) material_samplers;
    RILL_ARRAY(vk_block) blocks;
    RILL_ARRAY(vk_del) dels;
    uint32_t dels_collect_at; /* outside a frame, the queue length that collects it (defer) */
    RILL_ARRAY(vk_upload) uploads;
    RILL_ARRAY(VkDescriptorPool) persistent_pools;
    VkSemaphore timeline;
    uint64_t frame_index; /* last frame begun (1-based); 0 = none */
    bool in_frame;
    vk_frame frames[RILL__VK_MAX_FRAMES];
    rill__cmd cmd;
    uint64_t uploaded_last_frame;
    rill__upload_figures upload_figures; /* the last frame's uploads */
    /* timings of the last completed frame */
    const char *timing_names[RILL__VK_MAX_QUERIES / 2];
    double timing_ms[RILL__VK_MAX_QUERIES / 2];
    uint32_t timing_count;
    /* windowed */
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    VkFormat swap_format;
    uint32_t swap_w, swap_h;
    VkPresentModeKHR present_mode; /* of the current swapchain */
    bool swap_dirty;               /* recreate at the next frame (vsync changed) */
    RILL_ARRAY(rill__img *) swap_images;
    RILL_ARRAY(VkSemaphore) swap_done;
    uint32_t swap_index;
    bool swap_acquired;
};

VkFormat rill__vk_format(rill__fmt fmt);
bool rill__vk_format_is_depth(rill__fmt fmt);
/* The VkSampler of a kind (built-in or material). */
VkSampler rill__vk_sampler(const rill__gpu *gpu, rill__sampler_kind kind);
void rill__vk_name(rill__gpu *gpu, VkObjectType type, uint64_t handle, const char *name);
/* One global memory barrier recorded into cb (frame.c). */
void rill__vk_memory_barrier(VkCommandBuffer cb, VkPipelineStageFlags2 src_stage,
                             VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                             VkAccessFlags2 dst_access);
void rill__vk_destroy_now(rill__gpu *gpu, const vk_del *d);
/* Queues obj for destruction once the frames that may use it have finished (resources.c). */
void rill__vk_defer(rill__gpu *gpu, vk_del_kind kind, void *obj);
/* accel.c: loads the acceleration-structure functions (caps.ray_query); destroys a structure
 * now (its deferred deletion). */
rill_result rill__vk_accel_load(rill__gpu *gpu, rill_error *err);
void rill__vk_accel_destroy_now(rill__gpu *gpu, rill__accel *a);
VkAccelerationStructureKHR rill__vk_accel_handle(const rill__accel *a);
/* A buffer's device address (caps.ray_query: mesh, storage and structure buffers). */
uint64_t rill__vk_query_address(const rill__gpu *gpu, const rill__buf *buf);
VkResult rill__vk_collect_deleted(rill__gpu *gpu);
rill_result rill__vk_swapchain_create(rill__gpu *gpu, rill_error *err);
void rill__vk_swapchain_destroy(rill__gpu *gpu);
void rill__vk_record_uploads(rill__gpu *gpu, VkCommandBuffer cb, vk_frame *f);
void rill__vk_drop_uploads_for(rill__gpu *gpu, const void *target);

#endif
