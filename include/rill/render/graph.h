/* rill/render/graph.h: the render graph. Pure bookkeeping, no GPU calls, so every part of it can be
 * unit-tested without a device.
 *
 * ON HANDLES
 *   Creating or importing a resource returns a typed handle (rill_rg_image, rill_rg_buffer), adding
 *   a pass returns a rill_rg_pass; accesses and edges take handles, so passing a buffer where an
 *   image is wanted does not compile. A handle is valid until the next rill_rg_reset; {0} is
 * "none". Names and labels are for dumps, timings and debugging only (rill_rg_order_of and
 *   rill_rg_resource_find look them up for tests; engine code keeps the handles it was given).
 *   Per-view copies are named by the graph: a pass with desc.view = N > 0 is labelled "label.N",
 *   rill_rg_create_view_image names view N's copy of an image "name.N", and inside a view scope
 *   (rill_rg_begin_view) every pass and resource is view N's that way.
 *
 * ON ERRORS
 *   Errors are sticky: the first failing call is kept, and every later building call (and
 *   rill_rg_compile) returns it again with its message, so a {0} handle from a failed create is
 *   reported as that failure by the next call that uses it.
 *
 * ON PASSES AND RESOURCES
 *   A pass declares the images and buffers it reads and writes and how (a rill_rg_usage). Images
 *   are either transient (the graph allocates them, sized relative to the view by default) or
 *   imported (owned by someone else, with a known state on entry and an optional state required on
 *   exit). Buffers are imported.
 *
 * ON ORDER
 *   A pass that reads a resource runs after every other pass that writes it. Two passes writing the
 *   same resource run in the order they were added, unless explicit edges say otherwise. Explicit
 *   edges (rill_rg_add_edge) order two passes. Among passes that are free to run, the one added
 *   first goes first (a stable topological order).
 *
 * ON COMPILING
 *   rill_rg_compile runs five named phases: validate (a transient read but never written), cull (a
 *   pass whose writes nobody needs is dropped; passes that write nothing, such as anchors, and
 *   passes marked side_effect are roots), order (cycles are found here), allocate (each transient
 *   gets a physical slot; transients with equal descriptions and disjoint lifetimes share one),
 *   barriers (per pass, the list of transitions from each resource's previous usage).
 *   rill_rg_dump prints the result.
 *
 * ON THE 3D GRAPH
 *   The renderer builds its frame graph every frame and hands its anchors and images to effects and
 *   to rill_renderer_desc.setup_graph as handles (rill_render_graph in rill/render.h): the passes
 *   labelled RILL_RG_END_MAIN_PASS ("end_main_pass"), RILL_RG_TONEMAPPING ("tonemapping") and
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
    X(RILL_RG_USAGE_VERTEX_INPUT, "vertex_input") /* vertex/index buffer */                        \
    X(RILL_RG_USAGE_STORAGE_FRAGMENT,                                                              \
      "storage_fragment") /* storage buffer read and written by fragment shaders (OIT layers) */
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
    bool array_view;  /* shaders see it as an array even with one layer (shadow maps) */
    uint32_t samples; /* 0 or 1: one sample per pixel; 2, 4, 8: multisampled (an attachment
                         and a resolve source only) */
} rill_rg_image_desc;

typedef struct rill_rg rill_rg;
typedef struct rill_rg_ctx rill_rg_ctx;

/* Typed handles (index + 1; id 0 = none). Distinct types, so a wrong kind is a compile error. */
typedef struct rill_rg_image {
    uint32_t id;
} rill_rg_image;
typedef struct rill_rg_buffer {
    uint32_t id;
} rill_rg_buffer;
typedef struct rill_rg_pass {
    uint32_t id;
} rill_rg_pass;

/* Records a pass's commands. ctx is valid only during the call. */
typedef void (*rill_rg_exec_fn)(rill_rg_ctx *ctx, void *user);

/* Pass description. label is required and copied. Defaults: exec NULL (a pass that records
 * nothing, e.g. an anchor), side_effect false, view 0. view N > 0: the graph labels the pass
 * "label.N" (the same pass for another camera view). */
typedef struct rill_rg_pass_desc {
    const char *label;
    rill_rg_exec_fn exec;
    void *user;
    bool side_effect; /* never culled (readbacks, presents) */
    uint32_t view;
} rill_rg_pass_desc;

typedef struct rill_rg_barrier {
    uint32_t resource; /* index into the graph's resources */
    bool is_image;
    rill_rg_usage src, dst; /* src NONE = contents discarded */
} rill_rg_barrier;

/* Creates an empty graph (view size 1x1 until set). Free with rill_rg_destroy. */
rill_rg *rill_rg_create(void);
void rill_rg_destroy(rill_rg *g);
/* Forgets passes, resources, results and the sticky error but keeps memory, so rebuilding each
 * frame is cheap. Every handle of the graph becomes stale. */
void rill_rg_reset(rill_rg *g);
void rill_rg_set_view_size(rill_rg *g, uint32_t width, uint32_t height);
/* A view scope: until rill_rg_end_view (or rill_rg_reset), every pass added with desc.view 0
 * belongs to `view` (labelled "label.N" for N > 0), and every image or buffer created or imported
 * is view N's ("name.N" for N > 0), a view-relative image sized relative to width x height
 * instead of the graph's view size. Code that adds passes for one camera (a screen effect) runs
 * unchanged for each camera of a split screen inside its scope. Scopes do not nest. */
void rill_rg_begin_view(rill_rg *g, uint32_t view, uint32_t width, uint32_t height);
void rill_rg_end_view(rill_rg *g);

/* Creates a transient image. Names are unique (RILL_ERR_ALREADY_EXISTS). desc may be NULL. {0}
 * with err set on failure. */
rill_rg_image rill_rg_create_image(rill_rg *g, const char *name, const rill_rg_image_desc *desc,
                                   rill_error *err);
/* A transient image with the description of `like` (as given, before view-relative sizes are
 * resolved). */
rill_rg_image rill_rg_create_image_like(rill_rg *g, const char *name, rill_rg_image like,
                                        rill_error *err);
/* View `view`'s own copy of `base` (view > 0): same description, named "<base's name>.<view>". */
rill_rg_image rill_rg_create_view_image(rill_rg *g, rill_rg_image base, uint32_t view,
                                        rill_error *err);
/* Imports an image owned elsewhere. `external` is an opaque pointer handed back at execution
 * (rill_rg_resource_external). initial = its usage before the frame (NONE = contents don't
 * matter); final = the usage it must be left in (NONE = whatever the last pass left). */
rill_rg_image rill_rg_import_image(rill_rg *g, const char *name, const rill_rg_image_desc *desc,
                                   void *external, rill_rg_usage initial, rill_rg_usage final,
                                   rill_error *err);
rill_rg_buffer rill_rg_import_buffer(rill_rg *g, const char *name, void *external,
                                     rill_rg_usage initial, rill_rg_usage final, rill_error *err);

/* Adds a pass; its label (suffixed for a view) must be unique (RILL_ERR_ALREADY_EXISTS). */
rill_rg_pass rill_rg_add_pass(rill_rg *g, const rill_rg_pass_desc *desc, rill_error *err);
/* Declares an access of `pass` to an image or a buffer. The usage decides read or write and must
 * suit the kind (a buffer usage on an image is RILL_ERR_INVALID_ARGUMENT). A pass may access a
 * resource once. */
rill_result rill_rg_use_image(rill_rg *g, rill_rg_pass pass, rill_rg_image image,
                              rill_rg_usage usage, rill_error *err);
rill_result rill_rg_use_buffer(rill_rg *g, rill_rg_pass pass, rill_rg_buffer buffer,
                               rill_rg_usage usage, rill_error *err);
/* Orders pass `from` before pass `to`. */
rill_result rill_rg_add_edge(rill_rg *g, rill_rg_pass from, rill_rg_pass to, rill_error *err);
/* Edges along a chain: passes[0] -> passes[1] -> ... (stops at the first error). */
rill_result rill_rg_add_edges(rill_rg *g, const rill_rg_pass *passes, uint32_t count,
                              rill_error *err);
/* Marks an image the frame's output: the passes producing it are culling roots. */
rill_result rill_rg_mark_output(rill_rg *g, rill_rg_image image, rill_error *err);

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
/* Index in execution order of a pass, or -1 when culled or unknown. */
int32_t rill_rg_pass_order(const rill_rg *g, rill_rg_pass pass);
/* Debugging and tests: the same by label (the full label, "opaque.1" for view 1). */
int32_t rill_rg_order_of(const rill_rg *g, const char *label);
bool rill_rg_is_culled(const rill_rg *g, const char *label);
/* Barriers to issue before the i-th ordered pass; count in *out_count. Owned by the graph. */
const rill_rg_barrier *rill_rg_barriers(const rill_rg *g, uint32_t i, uint32_t *out_count);
/* Barriers after the last pass, bringing imported resources to their final usage. */
const rill_rg_barrier *rill_rg_final_barriers(const rill_rg *g, uint32_t *out_count);
uint32_t rill_rg_resource_count(const rill_rg *g);
const char *rill_rg_resource_name(const rill_rg *g, uint32_t resource);
/* The resource index behind a handle (-1 for {0} or a stale handle). */
int32_t rill_rg_image_resource(const rill_rg *g, rill_rg_image image);
int32_t rill_rg_buffer_resource(const rill_rg *g, rill_rg_buffer buffer);
/* Debugging and tests: a resource's index by name, or -1. */
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
