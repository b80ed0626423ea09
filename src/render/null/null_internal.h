/* null_internal.h: the null GPU backend's private structures, shared by the files of
 * src/render/null. The null backend (rill_renderer_desc.backend = RILL_RENDER_BACKEND_NULL) has no
 * device: objects are host memory with the Vulkan backend's lifetimes (destruction deferred past
 * the frame being recorded), uploads are queued and recorded at frame begin under the same byte
 * budget, host-visible buffers hold real bytes, and every command is checked against the state a
 * Vulkan command buffer would need (a broken rule is a validation message, as the Vulkan
 * validation layers would report it), but nothing is drawn. Nothing outside this folder includes
 * it: the rest of the renderer sees only ../gpu.h. */
#ifndef RILL_RENDER_NULL_INTERNAL_H
#define RILL_RENDER_NULL_INTERNAL_H

/* This folder defines gpu.h's functions as rill__null_* (../gpu_backend.h). */
#define RILL__GPU_BACKEND_PREFIX rill__null_
#include "../gpu_backend_names.h"

#include "../gpu.h"
#include "../gpu_backend.h"
#include "../gpu_scratch.h"
#include "../upload_pieces.h"

#define RILL__NULL_MAX_FRAMES 3
/* Offsets frame_alloc hands out are multiples of this (the largest minimum offset alignment of
 * storage and uniform buffers Vulkan allows). */
#define RILL__NULL_ALLOC_ALIGN 256u

/* First in a resource call: lets the render thread's guard wait for a frame in progress
 * (render_thread.c) when the call comes from another thread, as the Vulkan backend does. */
#define NULL_GUARD(gpu)                                                                            \
    do {                                                                                           \
        if ((gpu)->guard) {                                                                        \
            (gpu)->guard((gpu)->guard_user);                                                       \
        }                                                                                          \
    } while (0)

typedef enum null_kind { NULL_KIND_BUF, NULL_KIND_IMG, NULL_KIND_PIPE, NULL_KIND_DSET } null_kind;

/* The head of every object the backend allocates: on the device's live list until freed. */
typedef struct null_obj {
    rill__gpu_obj stamp; /* first: the dispatcher's backend stamp */
    struct null_obj *prev, *next;
    null_kind kind;
    char label[48];
} null_obj;

struct rill__buf {
    null_obj o;
    uint64_t size;
    uint8_t *mapped; /* host-visible buffers: their bytes; others keep none */
    bool ready;
    uint64_t uploads_queued, uploads_done; /* as the Vulkan backend's (rill__buf_upload_seq) */
};

struct rill__img {
    null_obj o;
    rill__img_desc desc;
    bool ready;
};

struct rill__pipe {
    null_obj o;
    rill__set_layout sets[RILL__MAX_SETS];
    uint32_t set_count;
    uint32_t push_size;
    bool compute;
};

struct rill__dset {
    null_obj o;
    rill__set_layout layout;
};

/* The recorder of the frame being built, and the state its checks need. */
struct rill__cmd {
    rill__gpu_obj stamp;
    rill__gpu *gpu;
    rill__pipe *bound;
    bool rendering;
    uint32_t labels, timestamps; /* open label and timestamp scopes */
};

typedef struct null_upload {
    bool is_image;
    void *target; /* rill__buf* or rill__img* */
    uint64_t size;
    uint64_t seq;                /* buffers: the target's upload number */
    void (*release)(void *user); /* borrowed levels: called once recorded or dropped */
    void *release_user;
    /* Images: level 0 with its chain generated (rill__img_upload), or levels [first_level,
     * first_level + level_count) as given. */
    bool gen_mips;
    uint32_t first_level, level_count;
    rill__upload_cursor at; /* how much of it earlier frames recorded (upload_pieces.h) */
} null_upload;

typedef struct null_frame {
    rill__buf *scratch;
    uint64_t scratch_used;
} null_frame;

struct rill__gpu {
    rill__gpu_obj stamp; /* first: the dispatcher's backend stamp */
    rill__gpu_desc desc;
    /* rill__gpu_set_guard: called first by the resource calls (NULL_GUARD), as on Vulkan */
    void (*guard)(const void *user);
    const void *guard_user;
    rill__gpu_caps caps;
    null_obj live; /* sentinel of the list of every live object */
    uint32_t live_count;
    uint64_t host_bytes;         /* bytes held by host-visible buffers */
    RILL_ARRAY(null_obj *) dels; /* destroyed while a frame is recorded: freed at its end */
    RILL_ARRAY(null_upload) uploads;
    RILL_ARRAY(rill__sampler_desc) material_samplers;
    uint64_t frame_index; /* last frame begun (1-based); 0 = none */
    bool in_frame;
    null_frame frames[RILL__NULL_MAX_FRAMES];
    rill__cmd cmd;
    uint64_t uploaded_last_frame;
    rill__upload_figures upload_figures; /* the last frame's uploads */
    uint32_t validation_messages;
};

/* Reports a broken rule of the command stream or of an object's use: logged (the first few) and
 * counted in rill__gpu_validation_messages. */
void rill__null_complain(rill__gpu *gpu, const char *fmt, ...) RILL_PRINTF(2, 3);
/* Puts o on the live list as a `kind` labelled `label`. */
void rill__null_link(rill__gpu *gpu, null_obj *o, null_kind kind, const char *label);
/* Frees o now (it leaves the live list). */
void rill__null_free(rill__gpu *gpu, null_obj *o);
/* Frees o now outside a frame, or once the frame being recorded ends. */
void rill__null_defer(rill__gpu *gpu, null_obj *o);
/* Frees what was deferred during the last frame. */
void rill__null_collect(rill__gpu *gpu);
/* Records queued uploads in order until the frame's byte budget is spent (the first always goes):
 * their targets become ready. */
void rill__null_record_uploads(rill__gpu *gpu);
/* Ends every queued upload of target (borrowed ones release their levels). */
void rill__null_drop_uploads_for(rill__gpu *gpu, const void *target);
/* True when bindings (count of them) give every binding of layout what its kind needs; else
 * complains naming `what` and returns false. */
bool rill__null_check_bindings(rill__gpu *gpu, const char *what, const rill__set_layout *layout,
                               const rill__binding *bindings, uint32_t count);

#endif
