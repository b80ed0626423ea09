/* render_internal.h: the renderer object shared by renderer.c (lifetime, resources, readback),
 * frame3d.c (the 3D frame graph and its passes) and exec.c (graph execution). */
#ifndef RILL_RENDER_INTERNAL_H
#define RILL_RENDER_INTERNAL_H

#include "rill/render.h"

#include "gpu.h"

#define RILL__MAX_CASCADES 4

/* Phases of recording a frame on the CPU, timed for rill_render_stats. */
enum rill__cpu_phase {
    RILL__CPU_SETUP,    /* camera and cascade matrices */
    RILL__CPU_CULL,     /* frustum and shadow culling, draw lists, motion history */
    RILL__CPU_SORT,     /* sorting the draw lists */
    RILL__CPU_UPLOAD,   /* per-frame buffers: frame uniforms, instances, lights, clusters */
    RILL__CPU_GRAPH,    /* building and compiling the frame graph */
    RILL__CPU_COMMANDS, /* executing the graph: barriers, passes, draws */
    RILL__CPU_SUBMIT,   /* ending and submitting the command buffer */
    RILL__CPU_PHASES
};

typedef struct mesh_slot {
    rill__buf *vb, *ib;
    uint32_t index_count;
    float center[3], radius; /* local bounding sphere */
} mesh_slot;

typedef struct tex_slot {
    rill__img *img;
} tex_slot;

typedef struct mat_slot {
    rill__buf *ubo;
    rill__dset *set;
    rill_alpha_mode alpha_mode;
    bool double_sided;
} mat_slot;

/* A physical image backing graph transients, reused across frames by description. */
typedef struct transient_img {
    rill_rg_image_desc desc;
    rill__img *img;
    uint64_t last_frame;
    bool used;
} transient_img;

/* One entry of the per-frame draw list. */
typedef struct draw_item {
    uint64_t key;  /* sort key */
    uint32_t inst; /* index into the snapshot's instances */
    uint32_t prev; /* slot in rill_renderer.prev holding last frame's matrix, or UINT32_MAX */
} draw_item;

/* An instance's world matrix for the two most recent frames it was seen in (by frame parity), so
 * motion vectors cost one hash lookup per instance and frame. */
typedef struct prev_xform {
    float m[2][16];
    uint64_t frame; /* last frame that wrote m[frame & 1] */
    uint64_t id;
} prev_xform;

/* One camera view of a frame that draws several (or one into part of the output): what its
 * passes need, swapped into the renderer while they record. */
typedef struct rill__view_slot {
    const rill_render_view *view;
    uint32_t rect[4];     /* pixels of the 3D images (x, y, w, h; top-left origin) */
    uint32_t out_rect[4]; /* pixels of the output */
    RILL_ARRAY(draw_item) opaque, transparent, casters, wires;
    uint32_t casters_plain;
    rill__buf *frame_buf, *inst_buf, *light_buf, *cluster_buf, *cluster_idx_buf;
    uint64_t frame_off, inst_off, inst_size, light_off, light_size;
    uint64_t cluster_off, cluster_size, cluster_idx_off, cluster_idx_size;
    uint32_t cascades;
    float cascade_vp[RILL__MAX_CASCADES][16];
} rill__view_slot;

struct rill_rg_ctx {
    rill_renderer *r;
    rill__cmd *cmd;
    const rill_rg *g;
};

struct rill_renderer {
    rill_renderer_desc desc;
    rill__gpu *gpu;
    uint32_t width, height;
    float render_scale; /* of the 3D images, in [0.1, 1] */
    rill_pool mesh_pool, tex_pool, mat_pool;
    mesh_slot *meshes;
    tex_slot *textures;
    mat_slot *materials;
    rill__img *white, *flat_normal;
    rill__pipe *prepass_pipe[2], *opaque_pipe[2], *transparent_pipe[2], *shadow_pipe, *tonemap_pipe;
    rill__pipe *wire_pipe; /* NULL when the device has no polygon-mode lines */
    rill__pipe *shadow_mask_pipe, *ssao_pipe, *ssao_blur_pipe, *bloom_down_pipe, *bloom_up_pipe,
        *auto_exposure_pipe;
    rill__buf *exposure_buf; /* persistent auto-exposure state (16 bytes) */
    rill__img *frame_ao;     /* this frame's SSAO image while recording opaque/transparent */
    bool ssao_on;            /* requested by the view and allowed by the quality tier */
    bool bloom_on, auto_exposure_on;
    uint32_t casters_plain; /* casters[0, casters_plain) are opaque, the rest alpha-masked */
    rill_rg *graph;
    RILL_ARRAY(transient_img) transients;
    RILL_ARRAY(rill__img *) slot_images; /* per graph slot, this frame */
    rill__buf *readback[3];
    uint32_t readback_slot; /* slot of the last frame's readback */
    bool have_frame;
    /* per frame, rebuilt each render */
    const rill_render_snapshot *snap;
    const rill_render_view *view; /* the view being recorded (or drawn, in a view's pass) */
    /* Several views (or one not covering the output): view_count > 0 and each view's passes run
     * with its slot swapped in. 0: one view over the whole output, no swapping. */
    rill__view_slot views[RILL_RENDER_MAX_VIEWS];
    uint32_t view_count;
    bool no_view; /* every view had zero area: the output is black */
    uint32_t view_index; /* the view whose pass is recording: its images are "name.N" (N > 0) */
    RILL_ARRAY(draw_item) opaque, transparent, casters, wires, sort_tmp;
    float wire_color[4], wire_fade[4]; /* resolved rill_render_wireframe, this frame */
    rill__buf *frame_buf;              /* uniform */
    uint64_t frame_off;
    rill__buf *inst_buf;
    uint64_t inst_off, inst_size;
    rill__buf *light_buf;
    uint64_t light_off, light_size;
    rill__buf *cluster_buf, *cluster_idx_buf;
    uint64_t cluster_off, cluster_size, cluster_idx_off, cluster_idx_size;
    RILL_ARRAY(uint32_t) cluster_counts;
    RILL_ARRAY(struct cluster_range) light_ranges;
    uint32_t cascades;
    float cascade_vp[RILL__MAX_CASCADES][16];
    float prev_view_proj[16];
    bool have_prev_view_proj;
    rill_map prev_index; /* instance id -> index into prev */
    RILL_ARRAY(prev_xform) prev;
    RILL_ARRAY(uint32_t) pos_slot; /* snapshot position -> prev slot used there last time */
    uint64_t frame_counter;
    /* stats */
    double cpu_record_ms, cpu_wait_ms;
    double cpu_phase_ms[RILL__CPU_PHASES]; /* last frame, by rill__cpu_phase */
    uint64_t phase_t;                      /* time of the last phase mark (ns) */
    uint32_t instances_submitted, instances_visible, draw_calls;
    uint32_t light_cluster_refs;
    uint64_t triangles;
    struct rill__overlay *overlay; /* overlay.c: text and capture; NULL until first used */
};

/* frame3d.c */
rill_result rill__frame3d_render(rill_renderer *r, const rill_render_snapshot *snap,
                                 rill_error *err);
rill_result rill__frame3d_create_pipelines(rill_renderer *r, rill_error *err);
void rill__frame3d_destroy_pipelines(rill_renderer *r);

/* overlay.c: adds the overlay pass (when there is text) and the capture pass (when one was asked
 * for) between end_main_pass_post_processing and out_pass; frees the overlay state. */
rill_result rill__overlay_add_pass(rill_renderer *r, rill_rg *g, const char *out_pass,
                                   rill_error *err);
void rill__overlay_destroy(rill_renderer *r);

/* exec.c */
rill_result rill__graph_execute(rill_renderer *r, rill__cmd *cmd, rill_error *err);
rill__img *rill__ctx_image(rill_rg_ctx *ctx, const char *name);
void rill__transients_release_unused(rill_renderer *r, bool all);

/* procmesh.c: builds vertex/index arrays owned by the caller (rill_free both). */
bool rill__procmesh_cube(rill_vertex **out_v, uint32_t *out_vn, uint32_t **out_i, uint32_t *out_in);
bool rill__procmesh_sphere(uint32_t segments, rill_vertex **out_v, uint32_t *out_vn,
                           uint32_t **out_i, uint32_t *out_in);
bool rill__procmesh_plane(rill_vertex **out_v, uint32_t *out_vn, uint32_t **out_i,
                          uint32_t *out_in);

/* Lookups that return NULL for stale handles or resources not yet uploaded. */
const mesh_slot *rill__mesh_get(const rill_renderer *r, rill_mesh mesh);
const mat_slot *rill__material_get(const rill_renderer *r, rill_material mat);

#endif
