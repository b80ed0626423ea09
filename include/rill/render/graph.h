/* rill/render/graph.h: the render graph. Pure bookkeeping, no GPU calls, so every part of it can be
 * unit-tested without a device.
 *
 * ON PASSES AND RESOURCES
 *   A pass has a unique label and declares, by name, the images and buffers it reads and writes and
 *   how (a rill_rg_usage). Images are either transient (the graph allocates them, sized relative to
 *   the view by default) or imported (owned by someone else, with a known state on entry and an
 *   optional state required on exit). Buffers are imported.
 *
 * ON ORDER
 *   A pass that reads a resource runs after every other pass that writes it. Two passes writing the
 *   same resource run in the order they were added, unless explicit edges say otherwise. Explicit
 *   edges (rill_rg_add_edge) order two labelled passes; an edge naming a label that does not exist
 *   yet is refused with an error at once, so register passes before you wire them. Among passes
 *   that are free to run, the one added first goes first (a stable topological order).
 *
 * ON COMPILING
 *   rill_rg_compile runs five named phases: validate (unknown names, duplicate access, cycles are
 *   found later in order), cull (a pass whose writes nobody needs is dropped; passes that write
 *   nothing, such as anchors, and passes marked side_effect are roots), order, allocate (each
 *   transient gets a physical slot; transients with equal descriptions and disjoint lifetimes share
 *   one), barriers (per pass, the list of transitions from each resource's previous usage).
 *   rill_rg_dump prints the result.
 *
 * ON THE 3D GRAPH
 *   The renderer builds its frame graph every frame and exposes the labelled anchors
 *   RILL_RG_END_MAIN_PASS ("end_main_pass"), RILL_RG_TONEMAPPING ("tonemapping") and
 *   RILL_RG_END_MAIN_PASS_POST_PROCESSING ("end_main_pass_post_processing"). A user pass goes
 *   between two anchors with two edges, e.g. end_main_pass -> mine -> tonemapping.
 */
#ifndef RILL_RENDER_GRAPH_H
#define RILL_RENDER_GRAPH_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_RG_END_MAIN_PASS "end_main_pass"
#define RILL_RG_TONEMAPPING "tonemapping"
#define RILL_RG_END_MAIN_PASS_POST_PROCESSING "end_main_pass_post_processing"

/* rill_rg_format's values and their names (rill_rg_format_name), one list. The BC formats are
 * sampled-texture formats (not for graph images): block-compressed, 4x4 texel blocks. */
#define RILL_RG_FORMAT_LIST(X)                                                                     \
    X(RILL_RG_FORMAT_NONE, "none")                                                                 \
    X(RILL_RG_FORMAT_RGBA8_UNORM, "rgba8_unorm")                                                   \
    X(RILL_RG_FORMAT_RGBA8_SRGB, "rgba8_srgb")                                                     \
    X(RILL_RG_FORMAT_BGRA8_UNORM, "bgra8_unorm")                                                   \
    X(RILL_RG_FORMAT_BGRA8_SRGB, "bgra8_srgb")                                                     \
    X(RILL_RG_FORMAT_RGBA16F, "rgba16f")                                                           \
    X(RILL_RG_FORMAT_RG16F, "rg16f")                                                               \
    X(RILL_RG_FORMAT_R32F, "r32f")                                                                 \
    X(RILL_RG_FORMAT_D32F, "d32f")                                                                 \
    X(RILL_RG_FORMAT_BC1_UNORM, "bc1_unorm")                                                       \
    X(RILL_RG_FORMAT_BC1_SRGB, "bc1_srgb")                                                         \
    X(RILL_RG_FORMAT_BC4_UNORM, "bc4_unorm")                                                       \
    X(RILL_RG_FORMAT_BC5_UNORM, "bc5_unorm")                                                       \
    X(RILL_RG_FORMAT_BC7_UNORM, "bc7_unorm")                                                       \
    X(RILL_RG_FORMAT_BC7_SRGB, "bc7_srgb")
typedef enum rill_rg_format {
    RILL_RG_FORMAT_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_RG_FORMAT_NUM,
    RILL_RG_FORMAT_FORCE_U32 = 0x7FFFFFFF
} rill_rg_format;

/* How a pass touches a resource. Each maps to one pipeline stage, access mask and image layout. */
/* rill_rg_usage's values and their names (rill_rg_usage_name), one list. */
#define RILL_RG_USAGE_LIST(X)                                                                      \
    X(RILL_RG_USAGE_NONE, "none") /* undefined contents (initial state of transients) */           \
    X(RILL_RG_USAGE_COLOR_WRITE, "color_write")           /* color attachment */                   \
    X(RILL_RG_USAGE_DEPTH_WRITE, "depth_write")           /* depth attachment, test + write */     \
    X(RILL_RG_USAGE_DEPTH_READ, "depth_read")             /* depth attachment, test only */        \
    X(RILL_RG_USAGE_SAMPLED_FRAGMENT, "sampled_fragment") /* sampled in a fragment shader */       \
    X(RILL_RG_USAGE_SAMPLED_COMPUTE, "sampled_compute")   /* sampled in a compute shader */        \
    X(RILL_RG_USAGE_STORAGE_READ, "storage_read")   /* storage image/buffer read by compute */     \
    X(RILL_RG_USAGE_STORAGE_WRITE, "storage_write") /* storage image/buffer written by compute */  \
    X(RILL_RG_USAGE_TRANSFER_SRC, "transfer_src")                                                  \
    X(RILL_RG_USAGE_TRANSFER_DST, "transfer_dst")                                                  \
    X(RILL_RG_USAGE_PRESENT, "present")                                                            \
    X(RILL_RG_USAGE_SHADER_READ,                                                                   \
      "shader_read") /* buffer read by any shader stage (uniform or storage) */                    \
    X(RILL_RG_USAGE_VERTEX_INPUT, "vertex_input") /* vertex/index buffer */
typedef enum rill_rg_usage {
    RILL_RG_USAGE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_RG_USAGE_NUM,
    RILL_RG_USAGE_FORCE_U32 = 0x7FFFFFFF
} rill_rg_usage;

/* True for usages that modify the resource. */
bool rill_rg_usage_is_write(rill_rg_usage usage);
const char *rill_rg_usage_name(rill_rg_usage usage);
const char *rill_rg_format_name(rill_rg_format format);

typedef enum rill_rg_size_mode {
    RILL_RG_SIZE_VIEW_RELATIVE = 0, /* width = view width x scale (default scale 1.0) */
    RILL_RG_SIZE_ABSOLUTE,
    RILL_RG_SIZE_FORCE_U32 = 0x7FFFFFFF
} rill_rg_size_mode;

/* Image description. Defaults (zero): view-relative, scale 1.0, 1 layer, 1 mip, RGBA16F. */
typedef struct rill_rg_image_desc {
    rill_rg_format format;
    rill_rg_size_mode size_mode;
    float scale;
    uint32_t width, height; /* absolute size */
    uint32_t layers, mips;
    bool array_view; /* shaders see it as an array even with one layer (shadow maps) */
} rill_rg_image_desc;

typedef struct rill_rg rill_rg;
typedef struct rill_rg_ctx rill_rg_ctx;

/* Records a pass's commands. ctx is valid only during the call. */
typedef void (*rill_rg_exec_fn)(rill_rg_ctx *ctx, void *user);

/* Pass description. label is required and copied. Defaults: exec NULL (a pass that records
 * nothing, e.g. an anchor), side_effect false. */
typedef struct rill_rg_pass_desc {
    const char *label;
    rill_rg_exec_fn exec;
    void *user;
    bool side_effect; /* never culled (readbacks, presents) */
} rill_rg_pass_desc;

typedef struct rill_rg_barrier {
    uint32_t resource; /* index into the graph's resources */
    bool is_image;
    rill_rg_usage src, dst; /* src NONE = contents discarded */
} rill_rg_barrier;

/* Creates an empty graph (view size 1x1 until set). Free with rill_rg_destroy. */
rill_rg *rill_rg_create(void);
void rill_rg_destroy(rill_rg *g);
/* Forgets passes, resources and results but keeps memory, so rebuilding each frame is cheap. */
void rill_rg_reset(rill_rg *g);
void rill_rg_set_view_size(rill_rg *g, uint32_t width, uint32_t height);

/* Declares a transient image. Re-declaring a name is RILL_ERR_ALREADY_EXISTS. desc may be NULL. */
rill_result rill_rg_declare_image(rill_rg *g, const char *name, const rill_rg_image_desc *desc,
                                  rill_error *err);
/* Imports an image owned elsewhere. `external` is an opaque pointer handed back at execution
 * (rill_rg_resource_external). initial = its usage before the frame (NONE = contents don't
 * matter); final = the usage it must be left in (NONE = whatever the last pass left). */
rill_result rill_rg_import_image(rill_rg *g, const char *name, const rill_rg_image_desc *desc,
                                 void *external, rill_rg_usage initial, rill_rg_usage final,
                                 rill_error *err);
rill_result rill_rg_import_buffer(rill_rg *g, const char *name, void *external,
                                  rill_rg_usage initial, rill_rg_usage final, rill_error *err);

/* Adds a pass; the label must be unique (RILL_ERR_ALREADY_EXISTS). */
rill_result rill_rg_add_pass(rill_rg *g, const rill_rg_pass_desc *desc, rill_error *err);
/* Declares an access of `pass` (a label) to the resource `name`. The usage decides read or write.
 * A pass may access a resource once; unknown names are reported by the validate phase. */
rill_result rill_rg_access(rill_rg *g, const char *pass, const char *name, rill_rg_usage usage,
                           rill_error *err);
/* Orders pass `from` before pass `to`. Both labels must already exist: otherwise the edge is
 * refused now with RILL_ERR_NOT_FOUND and a message naming the missing label. */
rill_result rill_rg_add_edge(rill_rg *g, const char *from, const char *to, rill_error *err);
/* Edges along a chain: labels[0] -> labels[1] -> ... (stops at the first error). */
rill_result rill_rg_add_edges(rill_rg *g, const char *const *labels, uint32_t count,
                              rill_error *err);
/* Marks a resource the frame's output: the passes producing it are culling roots. */
rill_result rill_rg_mark_output(rill_rg *g, const char *name, rill_error *err);

/* Runs validate, cull, order, allocate and barriers. On error the graph is not executable. */
rill_result rill_rg_compile(rill_rg *g, rill_error *err);
/* Appends a human-readable listing of the compiled graph to sb. */
void rill_rg_dump(const rill_rg *g, rill_strbuf *sb);

/* >>results (valid after a successful compile, until the next reset) */
uint32_t rill_rg_pass_count(const rill_rg *g);    /* passes added */
uint32_t rill_rg_ordered_count(const rill_rg *g); /* passes that survive culling */
/* The label of the i-th pass added (i < rill_rg_pass_count; valid until the next reset), or
 * NULL. */
const char *rill_rg_pass_label(const rill_rg *g, uint32_t i);
/* The i-th pass to run: its label (owned by the graph). */
const char *rill_rg_ordered_label(const rill_rg *g, uint32_t i);
/* Index in execution order of the pass with this label, or -1 when culled or unknown. */
int32_t rill_rg_order_of(const rill_rg *g, const char *label);
bool rill_rg_is_culled(const rill_rg *g, const char *label);
/* Barriers to issue before the i-th ordered pass; count in *out_count. Owned by the graph. */
const rill_rg_barrier *rill_rg_barriers(const rill_rg *g, uint32_t i, uint32_t *out_count);
/* Barriers after the last pass, bringing imported resources to their final usage. */
const rill_rg_barrier *rill_rg_final_barriers(const rill_rg *g, uint32_t *out_count);
uint32_t rill_rg_resource_count(const rill_rg *g);
const char *rill_rg_resource_name(const rill_rg *g, uint32_t resource);
int32_t rill_rg_resource_find(const rill_rg *g, const char *name);
/* Physical slot of a transient image (-1 for imported ones); slots are shared when aliased. */
int32_t rill_rg_resource_slot(const rill_rg *g, uint32_t resource);
uint32_t rill_rg_slot_count(const rill_rg *g);
/* Resolved size and description of an image resource (view-relative sizes applied). */
void rill_rg_resource_image_desc(const rill_rg *g, uint32_t resource, rill_rg_image_desc *out);
void *rill_rg_resource_external(const rill_rg *g, uint32_t resource);
void rill_rg_set_resource_external(rill_rg *g, uint32_t resource, void *external);
/* The exec callback and user pointer of the i-th ordered pass. */
rill_rg_exec_fn rill_rg_ordered_exec(const rill_rg *g, uint32_t i, void **out_user);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_GRAPH_H */
