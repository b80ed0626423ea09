/* post_internal.h: what the post-processing effects (rill/render/post.h) share: their state on the
 * renderer (pipelines, the .cube tables loaded, the per-frame records their passes read), the
 * clamping of their settings and the registration of their components and effects.
 *   post.c           state, pipelines, per-frame records, rill_renderer_set_vfs
 *   post_settings.c  the ColorGrading, DepthOfField and MotionBlur components; clamping
 *   post_grade.c     colour grading and its .cube tables
 *   post_dof.c       depth of field
 *   post_motion.c    motion blur
 *   post_decal.c     ForwardDecal: extract, per-view culling and tile binning, the decal pass
 *   post_decal_maps.c  the decals' textures, read through the file system
 *   post_decal_atlas.c the decal atlas: the maps' cells, their copies, its use by the passes */
#ifndef RILL_RENDER_POST_INTERNAL_H
#define RILL_RENDER_POST_INTERNAL_H

#include "frame.h"
#include "rill/render/post.h"

/* The post pipelines. */
typedef enum rill__post_pipe {
    POST_PIPE_GRADE,
    POST_PIPE_GRADE_LUT,
    POST_PIPE_DOF_COC,
    POST_PIPE_DOF_BLUR,
    POST_PIPE_DOF_BOKEH,
    POST_PIPE_DOF_COMPOSITE,
    POST_PIPE_MOTION_BLUR,
    POST_PIPE_DECAL,
    POST_PIPE_DECAL_ATLAS,
    POST_PIPE_DECAL_ATLAS_GROW,
    POST_PIPE_NUM
} rill__post_pipe;

/* One use of a post pass in a frame: its images and push constants, read by its exec. */
#define POST_MAX_IMAGES 4
#define POST_PUSH_BYTES 128
typedef struct rill__post_run {
    rill__post_pipe pipe;
    rill_rg_image in[POST_MAX_IMAGES]; /* sampled, bindings 0.. */
    uint32_t in_count;
    bool in_linear[POST_MAX_IMAGES]; /* bilinear sampler (else nearest) */
    rill_rg_image out;               /* the storage image written, binding in_count */
    rill__buf *buffer;               /* a storage buffer after the image (the .cube table) */
    uint8_t push[POST_PUSH_BYTES];   /* the first 8 bytes get the output's size */
    uint32_t push_size;
} rill__post_run;

#define POST_MAX_RUNS 32
#define POST_MAX_LUTS 8
#define POST_MAX_DECAL_MAPS RILL_RENDER_MAX_DECAL_MAPS
/* The decal atlas (post_decal_atlas.c, decal_atlas.glsl): layers of SIZE x SIZE RGBA8 texels with
 * a full mip chain; a map takes a square power-of-two cell of CELL_MIN .. SIZE texels aligned to
 * its size. It starts with START_LAYERS layers and doubles while the maps in view need more, up
 * to MAX_LAYERS: one layer per map the renderer can know at once, so the maps it knows always
 * fit (Vulkan guarantees at least 256 array layers). */
#define POST_DECAL_ATLAS_SIZE 1024u
#define POST_DECAL_ATLAS_MIPS 11u
#define POST_DECAL_ATLAS_START_LAYERS 4u
#define POST_DECAL_ATLAS_MAX_LAYERS POST_MAX_DECAL_MAPS
#define POST_DECAL_CELL_MIN 16u

/* A ForwardDecal map (or why not), by the interned path and colour space: read into a texture,
 * then copied into a cell of the atlas (the texture is freed the frame after). */
typedef struct rill__post_decal_map {
    const char *path;
    bool srgb;
    bool failed;                     /* could not be read (warned once) */
    bool placed;                     /* has a cell in the atlas */
    bool warned_full;                /* the atlas had no room for it (warned once) */
    rill_texture tex;                /* the image as read, until its copy has been recorded */
    uint64_t queued;                 /* the frame its copy into the atlas was queued */
    uint64_t copied;                 /* the frame that copy was recorded (0: none yet) */
    uint32_t layer, x, y, log2_size; /* its cell (texels) */
    uint64_t last_used;
} rill__post_decal_map;

/* A .cube table on the GPU (or why not), by the interned path it came from. */
typedef struct rill__post_lut {
    const char *path;
    rill__buf *buf; /* NULL: failed (logged once) */
    uint32_t size;
    float domain_min[3], domain_max[3];
    uint64_t last_used;
} rill__post_lut;

typedef struct rill__post {
    rill__pipe *pipes[POST_PIPE_NUM];
    rill_vfs *vfs;
    rill__post_run runs[POST_MAX_RUNS];
    uint32_t run_count;
    uint64_t run_frame;
    rill__post_lut luts[POST_MAX_LUTS];
    rill__warned warned;        /* (entity, type, field) keys already warned about */
    rill__img *no_decal;        /* 1x1, all 0: what the lit passes read without decals */
    rill__buf *no_decal_buf;    /* zeros: the decal pass's buffers when the frame arena is full */
    struct decal_frame *decals; /* post_decal.c: this frame's decal pass, per view */
    rill__post_decal_map maps[POST_MAX_DECAL_MAPS];
    rill__img *atlas;        /* NULL until the first map is placed */
    bool atlas_failed;       /* it could not be created (warned once) */
    rill_rg_usage atlas_use; /* what the last frame left it in */
    rill_rg_image atlas_rg;  /* this frame's import (valid in frame atlas_frame) */
    uint64_t atlas_frame;
    uint32_t atlas_layers; /* its layers now */
    uint32_t atlas_limit;  /* the most it may grow to (POST_DECAL_ATLAS_MAX_LAYERS; lower: tests,
                            * or after a growth failed) */
    /* The atlas it replaced when it grew in frame grow_frame (copied in by that frame's graph,
     * destroyed the frame after), and what that atlas was left in. */
    rill__img *atlas_old;
    rill_rg_image old_rg; /* its import in that frame */
    uint32_t old_layers;
    rill_rg_usage old_use;
    uint64_t grow_frame;
    bool grow_wanted;   /* a map found no room after this frame's graph took the atlas: grow next */
    bool warned_decals; /* a decal with a non-finite or flat box */
    bool warned_many_decals;   /* more than RILL_RENDER_MAX_DECALS in a frame */
    bool warned_many_maps;     /* more than RILL_RENDER_MAX_DECAL_MAPS in one frame */
    bool decal_depth_cull_off; /* tiles keep decals outside their depth range (tests, bench) */
} rill__post;

/* post.c: creates the pipelines and registers the effects (from rill__effects_create); frees. */
rill_result rill__post_create(rill_renderer *r, rill_error *err);
void rill__post_destroy(rill_renderer *r);
/* A fresh run record for this frame (the first of a frame forgets the last frame's); NULL when a
 * frame has used them all. */
rill__post_run *rill__post_run_new(rill_renderer *r, rill__post_pipe pipe);
/* Adds the compute pass `label` recording run (its inputs sampled, its output written). */
rill_result rill__post_add_pass(rill_render_effect_ctx *ctx, const char *label, rill__post_run *run,
                                rill_error *err);
/* The routed settings of ctx when they have the component's size, else NULL. */
const void *rill__post_settings(const rill_render_effect_ctx *ctx, uint32_t size);
/* The view's depth as distance: near, far and 1 for orthographic (3 floats); see post_dof.glsl. */
void rill__post_depth_params(const rill_render_view *v, float out[3]);

/* post_settings.c: the three components (rill_render_register_components adds them to the routed
 * settings), and their values made finite and in range, warned about once per (entity, field). */
rill_result rill__post_register_components(rill_world *w, rill_render_components *out,
                                           rill_error *err);
void rill__post_fix_grading(rill_renderer *r, rill_entity src, rill_render_color_grading *g);
void rill__post_fix_dof(rill_renderer *r, rill_entity src, rill_render_dof *d);
void rill__post_fix_motion_blur(rill_renderer *r, rill_entity src, rill_render_motion_blur *m);
/* The source entity of the routed settings `type` of v (0 when hand-built). */
rill_entity rill__post_source(const rill_render_view *v, const char *type);

/* post_grade.c, post_dof.c, post_motion.c: register the effects. */
rill_result rill__post_register_grade(rill_renderer *r, rill_error *err);
rill_result rill__post_register_dof(rill_renderer *r, rill_error *err);
rill_result rill__post_register_motion(rill_renderer *r, rill_error *err);
/* post_decal.c: the ForwardDecal boxes of the world into buf->decals and the snapshot (false: out
 * of memory); the decal effect; the image the lit passes bind without decals. */
bool rill__post_extract_decals(rill_world *w, rill_render_extract_buf *buf,
                               rill_render_snapshot *out);
rill_result rill__post_register_decals(rill_renderer *r, rill_error *err);
rill__img *rill__post_no_decal(const rill_renderer *r);
/* Whether the decal pass's tiles drop the decals outside their depth range (on by default; off
 * only to compare pictures and timings in tests and bench_post). */
void rill__post_decal_depth_cull(rill_renderer *r, bool on);
/* The lit passes' bindings 20 and 21 for view view_index (pbr_decals.glsl): this frame's decals
 * and tile lists when its decal pass has recorded, else empty lists. */
void rill__post_decal_bindings(const rill_renderer *r, uint32_t view_index,
                               rill__binding out[RILL__DECAL_BINDINGS]);
/* post_decal_maps.c: the entry of the decal map at path (srgb: a colour map) for this frame, read
 * the first time (a failure is warned about once, naming entity and the file); NULL for no path or
 * when every entry is in use this frame (warned once). */
rill__post_decal_map *rill__post_decal_map_get(rill_renderer *r, const char *path, bool srgb,
                                               rill_entity entity);
/* Forgets entry m: frees its texture and gives back its cell. */
void rill__post_decal_map_drop(rill_renderer *r, rill__post_decal_map *m);

/* One map's copy into its atlas cell, and a camera's copies of a frame. */
typedef struct rill__post_decal_copy {
    rill__post_decal_map *map; /* its entry (marked copied when recorded) */
    rill__img *src;
    uint32_t layer, x, y, log2_size;
    bool srgb;
} rill__post_decal_copy;
typedef struct rill__post_decal_copies {
    rill_renderer *r;
    rill__post_decal_copy c[POST_MAX_DECAL_MAPS];
    uint32_t n;
} rill__post_decal_copies;

/* post_decal_atlas.c: the atlas code (decal_atlas.glsl) of map m for this frame: 0 while it is
 * not read yet or has no cell; places it when its texture is ready (warning once when the atlas
 * is full) and queues its copy in copies. */
uint32_t rill__post_decal_atlas_code(rill_renderer *r, rill__post_decal_map *m, rill_entity entity,
                                     rill__post_decal_copies *copies);
/* Imports the atlas into this frame's graph (once a frame) and adds a pass recording the copies
 * (none: no pass). Nothing without an atlas. */
rill_result rill__post_decal_atlas_add(rill_renderer *r, rill_rg *g,
                                       rill__post_decal_copies *copies, rill_error *err);
/* Pass p's use of the atlas when this frame imported it (the decal pass, the lit passes), and the
 * image they bind: the atlas, or the 1 x 1 layer of zeros. */
rill_result rill__post_decal_atlas_access(const rill_renderer *r, rill_rg *g, rill_rg_pass p,
                                          rill_rg_usage usage, rill_error *err);
rill__img *rill__post_decal_atlas_img(const rill_renderer *r);
/* post_decal.c: what the lit passes of view view_index bind for the atlas: the atlas when that
 * view's decal pass has recorded this frame, else the 1 x 1 layer of zeros. */
rill__img *rill__post_decal_view_atlas(const rill_renderer *r, uint32_t view_index);
/* At the start of a camera's decals each frame: frees the textures of maps whose copies an earlier
 * frame recorded and the atlas an earlier frame grew from, and grows the atlas when a map found
 * no room after the last frame's graph had taken it. */
void rill__post_decal_atlas_begin(rill_renderer *r);
/* The most layers the atlas may grow to (tests; clamped to 1 .. POST_DECAL_ATLAS_MAX_LAYERS). */
void rill__post_decal_atlas_limit(rill_renderer *r, uint32_t layers);
/* post_grade.c: frees the tables. */
void rill__post_luts_destroy(rill_renderer *r);

#endif
