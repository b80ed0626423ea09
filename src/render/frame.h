/* frame.h: what the files of the 3D frame share. A frame is recorded in this order:
 *
 *   frame_render.c     rill__frame_render: begin the GPU frame, plan the views, build the graph,
 *                      execute it, submit. Also creates and destroys the frame's GPU state.
 *   frame_views.c      rill__frame_plan_views: which views the snapshot draws and where, each
 *                      filled into a view slot by rill__view_fill (matrices, cascades, draw lists,
 *                      frame constants, instance/light/cluster buffers, its effects planned).
 *                      One view = views[0].
 *   frame_cull.c       culling and sorting one view's draw lists (and motion history).
 *   frame_lights.c     the light buffer and the clustered light grid of one view.
 *   frame_graph.c      rill__frame_build_graph: the engine's images, passes and anchors; the
 *                      handles the graph returns are stored where the passes read them.
 *   frame_passes.c     the passes' recording functions: each gets its view (or bloom step, or
 *                      the frame) as its user pointer and reads nothing else per frame.
 *   frame_pipelines.c  the table of pipeline descriptions behind rill_renderer.pipes.
 *
 * Adding a pass: write `void rill__pass_x(rill_rg_ctx *ctx, void *user)` in frame_passes.c
 * (user: the rill__view it draws), add its rill_rg_image fields to rill__view_res (or rill__frame)
 * and add it in frame_graph.c (rill_rg_add_pass, rill_rg_use_image), storing the handles there;
 * the pass reads them with rill__ctx_img. Adding a pipeline: a name in
 * RILL__PIPES (render_internal.h) and a row in frame_pipelines.c's table. */
#ifndef RILL_RENDER_FRAME_H
#define RILL_RENDER_FRAME_H

#include "render_internal.h"
#include "rill/render/effects.h"

#include <cglm/cglm.h>

/* Must match `Frame` in shaders/common.glsl (std140). */
typedef struct rill__gpu_frame {
    float view[16], proj[16], view_proj[16], prev_view_proj[16];
    float cascade_vp[4][16];
    float cascade_far[4];
    float cascade_texel[4];
    float camera_pos[4];
    float sun_dir[4];
    float sun_color[4];
    float ambient[4]; /* x: IBL intensity (WorldEnvironment.ambient), y: specular cube's last mip */
    float shadow_params[4];
    uint32_t counts[4];
    float cluster_params[4];
    float jitter[4]; /* xy: TAA's sub-pixel offset of the projection, clip space */
    /* The cloud shadow map (clouds.c): xy its corner's world x, z (m), z 1 / its size (per m),
     * w 1 when there is one. */
    float cloud_shadow[4];
} rill__gpu_frame;

/* A bounding sphere. */
typedef struct rill__sphere {
    float c[3];
    float r;
} rill__sphere;

/* frame_render.c: adds the time since the previous mark to `phase`. */
void rill__phase_mark(rill_renderer *r, enum rill__cpu_phase phase);

/* frame_pipelines.c */
rill_result rill__pipelines_create(rill_renderer *r, rill_error *err);
void rill__pipelines_destroy(rill_renderer *r);
/* The description of pipeline id's row (variants such as msaa.c's start from it); false: none. */
bool rill__pipeline_desc(rill__pipe_id id, rill__pipe_desc *out);

/* frame_views.c: fills r->frame.views for the snapshot (view_count >= 1 on success) and sets
 * each view's effects and the frame's shadows and cascades. Each view's view_proj is the camera
 * motion reference of its next frame. */
rill_result rill__frame_plan_views(rill_renderer *r, rill__cmd *cmd,
                                   const rill_render_snapshot *snap, rill_error *err);
/* The settings of v with every default resolved. */
void rill__view_defaults(const rill_render_view *v, rill__view_settings *out);

/* frame_cull.c: culls the snapshot's instances against the view (planes: its frustum) and the
 * shadow volume (when shadows: sphere wc/wr swept along sun), fills and sorts the view's draw
 * lists and updates the motion history. */
typedef struct rill__cull_params {
    float planes[6][4];
    bool shadows;
    float shadow_center[3], shadow_radius, sun_dir[3];
    float cam_pos[3], cam_fwd[3];
    /* Per snapshot position, non-zero: the GPU path (gpu_cull.c) draws it; NULL: none. */
    const uint8_t *gpu_taken;
} rill__cull_params;
rill_result rill__view_cull(rill_renderer *r, rill__view *vs, const rill__cull_params *p,
                            rill_error *err);
/* Whether a world matrix mirrors (the determinant of its upper 3x3 is negative): the instance's
 * triangles then wind clockwise seen from their front (glTF 2.0). The opaque list's key holds
 * it, and the passes set the front face from it, so both take it from here. */
bool rill__instance_mirrored(const float m[16]);
/* A ghost instance's opacity clamped to [0, 1] in 16 bits (NaN: 0); the ghost list's sort key
 * holds it above the mesh. */
uint32_t rill__ghost_opacity_q(const rill_render_instance *in);
/* This instance's world matrix last frame (prev: its history slot, or UINT32_MAX). */
const float *rill__prev_model(const rill_renderer *r, const rill_render_instance *in,
                              uint32_t prev);

/* frame_views.c: the frustum planes of a view-projection (zero-to-one clip space), as
 * frame_cull.c tests them (a, b, c, d with ax + by + cz + d >= 0 inside). */
void rill__frustum_planes(const float vp[16], float out[6][4]);
/* The shadow cascades' light view-projections a camera with settings st would get this frame
 * (debug panels: the camera's own while its image is drawn from an observer); their count. */
uint32_t rill__cascades_for(const rill_renderer *r, const rill_render_snapshot *snap,
                            const rill__view_settings *st, float aspect, float out_vp[][16]);

/* gpu_cull.c: GPU-driven culling and drawing (RILL_RENDER_DEBUG_GPU_CULL; see the file).
 * scan matches the view's snapshot to the resident instance table (on false: the table is
 * dropped) and returns, per snapshot position, non-zero for the instances the GPU path draws
 * (NULL: none this frame, err set when on and it failed); the frame's first view (index 0) scans,
 * the others get the same answer. record adds the compute work that applies the deltas (once a
 * frame) and culls the table with the view's frustum into the view's own lists (after the CPU
 * lists are made); draws gives the view's passes what to draw (false: nothing); info reads its
 * state for stats and tests. */
typedef struct rill__gpu_cull rill__gpu_cull;
typedef struct rill__gpu_cull_run {
    uint32_t first, count;   /* commands [first, first + count) of a list */
    rill_material mat;       /* the material of the run's first group */
    rill__buf *vb, *ib, *xb; /* the buffers it draws from (xb NULL: the default extras) */
    bool double_sided;
    bool cuts;     /* masked or crossfading: the prepass and shadows discard (sorted last) */
    bool mirrored; /* clockwise front face */
} rill__gpu_cull_run;
typedef struct rill__gpu_cull_draw {
    rill__buf *cmds, *instances; /* commands (20 bytes each, ncmds per list), instance data */
    /* lists laid out: list 0: the view, 1 + c: cascade c, then with occlusion the view's phase-2
     * list (late, else 0) */
    uint32_t ncmds, lists, late;
    /* Runs of commands: runs_mat of one pipeline state (kind, double-sidedness), material and
     * buffers (the passes that bind materials); runs_shape the same across materials (passes whose
     * shaders read none); runs_geo of one pair of buffers and cuts (shadows). */
    const rill__gpu_cull_run *runs_mat, *runs_shape, *runs_geo;
    uint32_t nruns_mat, nruns_shape, nruns_geo;
    /* With drawIndirectCount (else NULL): per kind of run (0 geo, 1 shape, 2 mat) and list, ncmds
     * commands, each run's non-empty ones at its front; draw_counts: per list nruns counts, the
     * runs of the three kinds numbered one after the other. */
    rill__buf *compact, *draw_counts;
    uint32_t nruns;
} rill__gpu_cull_draw;
typedef struct rill__gpu_cull_stats {
    bool active;
    uint32_t resident, groups, deltas, lists;
    /* Snapshot positions the last scan resolved one by one (new ids, repeated ids, changed
     * meshes or materials); the others were matched in the scan's jobs. */
    uint32_t resolved;
    uint32_t spawned; /* new ids the last scan took into the table (see GC_BOARD_MS) */
    double scan_ms;   /* the last scan's CPU time (matching, deltas, groups) */
    uint32_t quiet;   /* positions it passed unread (rill_render_snapshot.instance_changed) */
    uint32_t mapped;  /* positions its jobs looked up in the id map (guess and shift missed) */
    uint32_t runs_mat, runs_shape, runs_geo; /* per list */
    uint64_t arena_bytes;
    uint32_t arena_meshes;
    bool compacted;       /* the draws read the compacted commands with GPU counts */
    bool occluding;       /* this frame's view culls by occlusion (gpu_occlusion.c) */
    bool occlusion_reset; /* ... forgetting last frame's results (first frame, a camera cut) */
    uint32_t views;       /* views of this frame that culled the table (each its own lists) */
    uint32_t view_slots;  /* view slots holding buffers (given back after 8 frames unused) */
} rill__gpu_cull_stats;
const uint8_t *rill__gpu_cull_scan(rill_renderer *r, const rill__view *vs, bool on,
                                   rill_error *err);
rill_result rill__gpu_cull_record(rill_renderer *r, rill__cmd *cmd, const rill__view *vs,
                                  const float planes[6][4], rill_error *err);
bool rill__gpu_cull_draws(const rill_renderer *r, const rill__view *vs, rill__gpu_cull_draw *out);
/* Occlusion's phase 2, recorded by the prepass after phase 1's draws (depth: the view's depth,
 * held DEPTH_WRITE, and so again on return): true when the view's phase-2 list (draws' late) is
 * to be drawn. */
bool rill__gpu_cull_occlusion(rill_renderer *r, rill__cmd *cmd, const rill__view *vs,
                              rill__img *depth);
void rill__gpu_cull_info(const rill_renderer *r, rill__gpu_cull_stats *out);
/* The same with view slot `view`'s lists, compaction and occlusion (info: view 0's). */
void rill__gpu_cull_view_info(const rill_renderer *r, uint32_t view, rill__gpu_cull_stats *out);
void rill__gpu_cull_destroy(rill_renderer *r);
/* Tests: with readback on (it drops the table), the visible-list bits (bit l: list l) the last
 * finished frame's culling wrote for instance id; UINT32_MAX: not resident. */
void rill__gpu_cull_set_readback(rill_renderer *r, bool on);
/* Tests: GPU culling's boarding (gpu_cull.c GC_BOARD_*): new ids a frame takes whatever the
 * clock says, and the budget in ms for more (0: exactly min a frame). */
void rill__gpu_cull_set_boarding(rill_renderer *r, uint32_t min, double ms);
/* Benches: with `all` on, every frame takes every new id (no budget), so a bench boards a large
 * table in one untimed frame; off: the budget above again. */
void rill__gpu_cull_board_all(rill_renderer *r, bool all);
/* Tests: the motion history's new ids a frame (frame_cull.c HISTORY_NEW_*): min taken whatever the
 * clock says, and the budget in ms for more (0: exactly min a frame). */
void rill__motion_history_set_new_ids(rill_renderer *r, uint32_t min, double ms);
uint32_t rill__gpu_cull_flags(const rill_renderer *r, uint64_t id);
/* The same for view slot `view` (each view culls into flags of its own; flags: view 0's). */
uint32_t rill__gpu_cull_view_flags(const rill_renderer *r, uint32_t view, uint64_t id);

/* gpu_cull_arena.c: the shared vertex and index buffers GPU culling draws from. place gives where
 * a mesh draws from this frame (copying it into the arena the first time it is placed: the copies
 * are recorded by record, before any draw of the frame; its own buffers when the arena cannot
 * hold it); sweep gives back the ranges of meshes not placed this frame (once no frame in flight
 * reads them). False: out of memory. */
typedef struct rill__gc_arena rill__gc_arena;
typedef struct rill__gc_geom {
    rill__buf *vb, *ib, *xb; /* xb NULL: the default extras */
    uint32_t first_index;
    int32_t vertex_offset;
} rill__gc_geom;
rill__gc_arena *rill__gc_arena_create(void);
void rill__gc_arena_destroy(rill_renderer *r, rill__gc_arena *a);
bool rill__gc_arena_place(rill_renderer *r, rill__gc_arena *a, rill_mesh h, const mesh_slot *ms,
                          rill__gc_geom *out);
void rill__gc_arena_sweep(rill_renderer *r, rill__gc_arena *a);
void rill__gc_arena_record(rill__gc_arena *a, rill__cmd *cmd);
uint64_t rill__gc_arena_bytes(const rill__gc_arena *a);
uint32_t rill__gc_arena_meshes(const rill__gc_arena *a); /* meshes placed (own buffers too) */

/* gpu_occlusion.c: GPU culling's two-phase occlusion (see the file). plan says whether the view
 * occludes this frame (*o made on first use) and whether last frame's results are forgotten;
 * record builds the depth pyramid and runs the phase-2 test (depth held DEPTH_WRITE before and
 * after) with the cull's buffers as bound for it (in). */
typedef struct rill__gc_occl rill__gc_occl;
typedef struct rill__gc_occl_in {
    rill__binding res, groups, cmds, out, flags, counts;
    uint32_t late, ncmds, total, slots; /* the phase-2 list, commands and entries per list */
} rill__gc_occl_in;
bool rill__gc_occl_plan(rill_renderer *r, rill__gc_occl **o, const rill__view *vs,
                        const float planes[6][4], bool *out_reset);
rill_result rill__gc_occl_record(rill_renderer *r, rill__gc_occl *o, rill__cmd *cmd,
                                 const rill__view *vs, rill__img *depth,
                                 const rill__gc_occl_in *in);
void rill__gc_occl_destroy(rill_renderer *r, rill__gc_occl *o);

/* frame_lights.c: writes the view's light buffer and (clustered) its light grid; fr gets the
 * light count and cluster parameters. */
rill_result rill__view_lights(rill_renderer *r, rill__cmd *cmd, rill__view *vs, mat4 view,
                              mat4 proj, bool clustered, rill__gpu_frame *fr, rill_error *err);

/* frame_graph.c: rebuilds and compiles r->graph for the planned frame. */
rill_result rill__frame_build_graph(rill_renderer *r, rill_error *err);

/* effects.c / effects_engine.c: the composition registry (rill/render/effects.h). create registers
 * the engine's effects; frame_begin forgets last frame's plan and state memory; plan_view decides
 * which effects run for one view (its routed settings; the quality tier ceiling is applied in
 * effects_engine.c) and clears its rill__view_fx; add_phase adds one phase's effects for a view
 * (in its graph scope). */
rill_result rill__effects_create(rill_renderer *r, rill_error *err);
void rill__effects_destroy(rill_renderer *r);
rill_result rill__effects_register_engine(rill_renderer *r, rill_error *err);
/* Registers an engine anchor: first in its phase whatever its order (among anchors: order, then
 * registration). The anti-aliasing effects are anchors (effects_aa.c). */
uint32_t rill__effect_register_anchor(rill_renderer *r, const rill_render_effect_desc *d,
                                      rill_error *err);
/* effects_aa.c: registers TAA, FXAA, SMAA and CAS; plans TAA for a view (its history, by view
 * index, reset and jitter in the view's 3D pixels) after rill__effects_plan_view; frees the TAA
 * histories (destroy_view: one view's). */
rill_result rill__effects_register_aa(rill_renderer *r, rill_error *err);
void rill__taa_plan(rill_renderer *r, rill__view *vs);
void rill__taa_destroy(rill_renderer *r);
void rill__taa_destroy_view(rill_renderer *r, uint32_t view);
/* history.c: creates a temporal filter's two history images (RGBA16F, sampled and storage) at
 * w x h into img[0] and img[1], labelled "<name> history 0" and "<name> history 1"; false (err
 * set, both NULL) when one cannot be made. */
bool rill__history_images_create(rill__gpu *gpu, rill__img *img[2], uint32_t w, uint32_t h,
                                 const char *name, rill_error *err);
void rill__effects_frame_begin(rill_renderer *r);
void rill__effects_plan_view(rill_renderer *r, rill__view *vs);
rill_result rill__effects_add_phase(rill_renderer *r, rill_rg *g, rill__view *vs,
                                    rill_render_phase phase, rill_error *err);
/* The GI effects registered with after_lighting, on the view's lit HDR image (after
 * end_main_pass). */
rill_result rill__effects_add_gi_lit(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err);

/* ibl.c: image-based light (the baked sky every lit pass reads). create makes the BRDF table's
 * and harmonics' images; plan (before the graph) decides this frame's bake steps from the
 * snapshot's sky and the tier; add_passes imports the IBL images and adds the bake's passes;
 * access declares a lit pass's reads; bindings gives the lit passes' set 0 bindings 7..9
 * (specular cube, BRDF table, harmonics); frame_consts fills rill__gpu_frame.ambient. */
typedef struct rill__ibl rill__ibl;
rill_result rill__ibl_create(rill_renderer *r, rill_error *err);
void rill__ibl_destroy(rill_renderer *r);
rill_result rill__ibl_plan(rill_renderer *r, const rill_render_snapshot *snap, rill_error *err);
rill_result rill__ibl_add_passes(rill_renderer *r, rill_rg *g, rill_error *err);
rill_result rill__ibl_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass, rill_error *err);
/* The same reads for a compute pass (screen-space reflections' resolve). */
rill_result rill__ibl_access_compute(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                     rill_error *err);
/* The harmonics alone, for a compute pass (volumetric fog's ambient light). */
rill_result rill__ibl_access_sh_compute(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                        rill_error *err);
/* Reflection probes reuse the bake: the fill of a storage cube with a full mip chain (held
 * STORAGE_WRITE) from an equirectangular image times brightness, then its mips; and the GGX
 * prefilter of every face and level of spec (held STORAGE_WRITE) from source (SAMPLED_COMPUTE). */
void rill__ibl_record_fill(rill_renderer *r, rill__cmd *cmd, rill__img *cube, rill__img *image,
                           float brightness);
void rill__ibl_record_prefilter(rill_renderer *r, rill__cmd *cmd, rill__img *source,
                                rill__img *spec);
/* The mips of a storage cube (held STORAGE_WRITE) from its level 0 (a probe capture's). */
void rill__ibl_record_mips(rill_renderer *r, rill__cmd *cmd, rill__img *cube);
void rill__ibl_bindings(const rill_renderer *r, rill__binding out[3]);
void rill__ibl_frame_consts(const rill_renderer *r, float out[4]);
void rill__ibl_stats(const rill_renderer *r, uint32_t *out_bakes, uint32_t *out_steps,
                     uint32_t *out_face);

/* sky.c: the physical sky (Hillaire 2020) when a view's sky mode resolves to Atmosphere. plan
 * (before the IBL's) finds the frame's atmosphere (the first view showing one) and writes its
 * settings block; add_passes adds the tables' passes (the transmittance and multiple scattering
 * tables only when the settings changed); access declares a pass's reads of the tables; add_view
 * adds a view's aerial perspective and "sky" passes after `after` (out_last: the last of them, or
 * `after` when the view shows no atmosphere); ibl_fill records level 0 of the IBL source cube from
 * the tables; fog_bindings gives the fog pass the settings block and the sky view table; key
 * changes when what the IBL bakes from the atmosphere changes (0: no atmosphere this frame). */
typedef struct rill__sky rill__sky;
rill_result rill__sky_create(rill_renderer *r, rill_error *err);
void rill__sky_destroy(rill_renderer *r);
rill_result rill__sky_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                           rill_error *err);
bool rill__sky_on(const rill_renderer *r);
uint64_t rill__sky_key(const rill_renderer *r);
rill_result rill__sky_add_passes(rill_renderer *r, rill_rg *g, rill_error *err);
rill_result rill__sky_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass, rill_error *err);
rill_result rill__sky_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                               rill_rg_pass *out_last, rill_error *err);
void rill__sky_ibl_fill(rill_rg_ctx *ctx, rill_renderer *r, rill__img *cube, uint32_t size);
void rill__sky_fog_bindings(rill_rg_ctx *ctx, const rill_renderer *r, rill__binding *ubo,
                            rill__binding *view_lut);
void rill__sky_stats(const rill_renderer *r, uint32_t *out_lut_runs);
/* probe.c: reflection probes. plan (after the IBL's) loads new sources, picks this frame's bake
 * and the shaded probes and writes their uniform block; add_passes imports their cubes and adds
 * the bake; access declares a pass's reads of the shaded cubes; bindings gives the probe block
 * and the four cubes (the sky's cube in unused slots); bakes counts finished bakes. */
rill_result rill__probes_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                              rill_error *err);
rill_result rill__probes_add_passes(rill_renderer *r, rill_rg *g, rill_error *err);
rill_result rill__probes_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                rill_rg_usage usage, rill_error *err);
void rill__probes_bindings(const rill_renderer *r, rill__binding out[5]);
void rill__probes_destroy(rill_renderer *r);
/* A capture source's faces, after the views that drew them, and its bake once the last is drawn
 * (frame_graph.c). */
rill_result rill__probes_add_capture_passes(rill_renderer *r, rill_rg *g, rill_error *err);

/* probe_capture.c: capture sources. request (from probes_plan, at most once a frame) asks for the
 * six render textures and says whether this frame draws faces of the capture `key` from eye (a
 * new capture starts when none is under way; LAST: this frame draws its last faces); busy: a
 * capture has faces drawn and more to draw (the scratch cube holds them); abandon forgets it;
 * snapshot gives the snapshot the frame then draws (the input plus this frame's face views);
 * add_pass blits their pictures onto the layers of `cube` (held TRANSFER_DST) after the views'
 * passes, *out_last: the cube is whole. */
typedef struct rill__capture rill__capture;
typedef enum rill__capture_step {
    RILL__CAPTURE_WAIT,  /* no face this frame */
    RILL__CAPTURE_FACES, /* some faces this frame, more after */
    RILL__CAPTURE_LAST   /* the last faces this frame: the cube is baked after them */
} rill__capture_step;
rill__capture_step rill__capture_request(rill_renderer *r, const char *key, const float eye[3]);
bool rill__capture_busy(const rill_renderer *r);
void rill__capture_abandon(rill_renderer *r);
const rill_render_snapshot *rill__capture_snapshot(rill_renderer *r,
                                                   const rill_render_snapshot *snap);
rill_result rill__capture_add_pass(rill_renderer *r, rill_rg *g, rill_rg_image cube, bool *out_last,
                                   rill_error *err);
void rill__capture_destroy(rill_renderer *r);
void rill__probes_stats(const rill_renderer *r, uint32_t *out_shaded, uint32_t *out_bakes,
                        uint32_t *out_failed, uint32_t *out_waiting);

/* skybox.c: sky mode Skybox. plan loads the first Skybox view's image (once per path; a warning
 * and the clear colour when it fails); add_view adds a view's "skybox" pass after `after`
 * (out_last as rill__sky_add_view); get gives the IBL the image, its turn (radians) and
 * brightness while one is shown. */
typedef struct rill__skybox rill__skybox;
rill_result rill__skybox_create(rill_renderer *r, rill_error *err);
void rill__skybox_destroy(rill_renderer *r);
void rill__skybox_plan(rill_renderer *r, const rill_render_snapshot *snap);
rill_result rill__skybox_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                  rill_rg_pass *out_last, rill_error *err);
bool rill__skybox_get(const rill_renderer *r, rill_texture *out_tex, float *out_rotation,
                      float *out_brightness);

/* envmap.c: EnvironmentMapLight. plan loads the first view's image with one (once per path; a
 * warning naming the entity and the file when it fails); get gives the IBL the image, its turn
 * (radians) and intensity while it is uploaded (the IBL then bakes it instead of the sky).
 * env_texture_load reads an environment image (rill_env_image_decode: an equirectangular image or
 * a .rmip cube) through the renderer's file system into one RGBA16F level; {0} with err set. */
typedef struct rill__envmap rill__envmap;
void rill__envmap_plan(rill_renderer *r, const rill_render_snapshot *snap);
bool rill__envmap_get(const rill_renderer *r, rill_texture *out_tex, float *out_rotation,
                      float *out_intensity);
void rill__envmap_destroy(rill_renderer *r);
rill_texture rill__env_texture_load(rill_renderer *r, const char *path, const char *label,
                                    rill_error *err);

/* clouds.c: the cloud layer of the physical sky. plan (from sky.c's, for the first atmosphere
 * view: its route, camera, field of view and size) says whether the frame has clouds; add_pass
 * adds the "clouds" panorama pass (after the sky tables); access declares a pass's read of the
 * panorama; binding gives it (r->white, unread, without clouds); key changes with the settings
 * (for the image-based light's re-bake; 0 without clouds). sky.c's clouds_bindings gives the
 * panorama pass its settings block and the transmittance and sky view tables (b[0..2]). The cloud
 * shadow map (sun above the horizon; sun_to points toward it): frame_consts gives
 * frame.cloud_shadow (w 0: none), shadow_access declares a lit pass's read of the map (nothing
 * without it), shadow_img is the map to bind (r->white without it). */
typedef struct rill__clouds rill__clouds;
rill_result rill__clouds_create(rill_renderer *r, rill_error *err);
void rill__clouds_destroy(rill_renderer *r);
bool rill__clouds_plan(rill_renderer *r, const rill_render_view *v, const float camera[3],
                       float fov_y, uint32_t width, uint32_t height, const float sun_to[3]);
void rill__clouds_frame_consts(const rill_renderer *r, float out[4]);
rill_result rill__clouds_shadow_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                       rill_rg_usage usage, rill_error *err);
rill__img *rill__clouds_shadow_img(const rill_renderer *r);
bool rill__clouds_on(const rill_renderer *r);
uint64_t rill__clouds_key(const rill_renderer *r);
rill_result rill__clouds_add_pass(rill_renderer *r, rill_rg *g, rill_error *err);
rill_result rill__clouds_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass, rill_error *err);
void rill__clouds_binding(rill_rg_ctx *ctx, const rill_renderer *r, rill__binding *b);
void rill__sky_clouds_bindings(rill_rg_ctx *ctx, const rill_renderer *r, rill__binding b[3]);

/* water.c: PoolWater. plan (after the views) clamps the snapshot's boxes into this frame's
 * buffer; add_view adds a view's "water" pass after `after` (out_last as rill__sky_add_view). */
/* ocean.c: Water. plan (after the views) picks the ocean, clamps its settings and fills this
 * frame's block; add_passes adds the simulation once a frame (before any view's passes);
 * add_view adds a view's "ocean" pass after `after` (out_last as rill__sky_add_view). */
typedef struct rill__ocean rill__ocean;
rill_result rill__ocean_create(rill_renderer *r, rill_error *err);
void rill__ocean_destroy(rill_renderer *r);
rill_result rill__ocean_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                             rill_error *err);
rill_result rill__ocean_add_passes(rill_renderer *r, rill_rg *g, rill_error *err);
rill_result rill__ocean_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                 rill_rg_pass *out_last, rill_error *err);
typedef struct rill__water rill__water;
rill_result rill__water_create(rill_renderer *r, rill_error *err);
void rill__water_destroy(rill_renderer *r);
rill_result rill__water_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                             rill_error *err);
rill_result rill__water_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                 rill_rg_pass *out_last, rill_error *err);
/* The view's screen-space reflections on water (Water and PoolWater; ocean_draw.c): its
 * ScreenSpaceReflections at Medium and High into out: x intensity (0: none), y thickness (m),
 * z steps. */
void rill__water_ssr_settings(const rill_renderer *r, const rill__view *vs, float out[4]);

/* transmission.c: when the view's transparent list holds a transmissive material, adds the copy
 * of its lit HDR image (vs->res.scene, vs->scene_levels mips) after `after` (out_last as
 * rill__sky_add_view); _img is the image a pass binds for it (white without). */
rill_result rill__transmission_add_view(rill_renderer *r, rill_rg *g, rill__view *vs,
                                        rill_rg_pass after, rill_rg_pass *out_last,
                                        rill_error *err);
rill__img *rill__transmission_img(rill_rg_ctx *ctx, const rill__view *vs);

/* fog_volume.c: volumetric fog (VolumetricFog on a view, FogVolume boxes). plan (after the
 * views) resolves each view's settings (clamped, warnings naming the entity) and writes their
 * uniform blocks and the frame's boxes; add_view adds a view's "vfog" (froxel volume) and
 * "vfog.apply" passes after `after` (out_last as rill__sky_add_view); stats: views fogged last
 * frame and boxes used. */
typedef struct rill__vfog rill__vfog;
rill_result rill__vfog_create(rill_renderer *r, rill_error *err);
void rill__vfog_destroy(rill_renderer *r);
rill_result rill__vfog_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                            rill_error *err);
rill_result rill__vfog_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                rill_rg_pass *out_last, rill_error *err);

/* msaa.c: Msaa (rill/render/msaa.h). register adds the Msaa and OrderIndependentTransparency
 * settings components; plan_view sets vs->msaa (routed Msaa, 1 while OIT is enabled, the
 * device's counts; makes the pipelines on first use); pipes is the pipeline table the view's
 * multisampled passes draw with (r->pipes without MSAA), indexed by rill__pipe_id; add_images
 * makes the view's depth_ms and hdr_ms (in its scope; none without MSAA); add_resolve adds
 * `msaa_resolve` (hdr_ms into hdr). routed_settings: the routed copy of `type` (size checked)
 * and its source, or NULL. */
rill_result rill__msaa_create(rill_renderer *r, rill_error *err);
void rill__msaa_destroy(rill_renderer *r);
void rill__msaa_plan_view(rill_renderer *r, rill__view *vs);
rill__pipe *const *rill__msaa_pipes(const rill_renderer *r, const rill__view *vs);
void rill__msaa_add_images(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err);
rill_result rill__msaa_add_resolve(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass *out,
                                   rill_error *err);
const void *rill__routed_settings(const rill_render_view *v, const char *type, uint32_t size,
                                  rill_entity *out_source);
/* oit.c: order-independent transparency. enabled: whether the view's routed
 * OrderIndependentTransparency is; plan_view sets vs->oit_layers (0: off) and oit_threshold
 * (clamped settings; pipelines and buffers made or grown); add_clear imports the view's buffers
 * and adds `oit_clear`; use_layers declares the transparent pass's appends; add_resolve adds
 * `oit_resolve` after it (blending into hdr); begin_draws binds the transparent pass's OIT
 * pipeline, its buffers (set 2) and push constants and returns the two pipelines (single-,
 * double-sided) for the draws. */
bool rill__oit_enabled(const rill_render_view *v);
void rill__oit_plan_view(rill_renderer *r, rill__view *vs);
void rill__oit_destroy(rill_renderer *r);
rill_result rill__oit_add_clear(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err);
rill_result rill__oit_use_layers(rill_rg *g, rill_rg_pass transparent, const rill__view *vs,
                                 rill_error *err);
rill_result rill__oit_add_resolve(rill_renderer *r, rill_rg *g, rill__view *vs,
                                  rill_rg_pass transparent, rill_error *err);
rill__pipe *const *rill__oit_begin_draws(rill_rg_ctx *ctx, const rill__view *vs);

/* frame_passes.c: "water.scene", a copy of view vs's lit image so far into vs->res.water_scene
 * (an image of its size), what the ocean and pool water refract and reflect: made once a frame
 * per view, by the first water that asks, after *after (which then becomes the copy); a later
 * water (already after the first's pass) reads the same image. */
rill_result rill__add_scene_copy(rill_rg *g, rill__view *vs, rill_rg_pass *after, rill_error *err);
/* frame_passes.c: recording functions; user is what each comment names. */
void rill__pass_shadows(rill_rg_ctx *ctx, void *user);       /* rill__view */
void rill__pass_prepass(rill_rg_ctx *ctx, void *user);       /* rill__view */
void rill__pass_prepass_msaa(rill_rg_ctx *ctx, void *user);  /* rill__view: depth_ms only */
void rill__pass_opaque(rill_rg_ctx *ctx, void *user);        /* rill__view */
void rill__pass_transparent(rill_rg_ctx *ctx, void *user);   /* rill__view */
void rill__pass_wireframe(rill_rg_ctx *ctx, void *user);     /* rill__view */
void rill__pass_ssao(rill_rg_ctx *ctx, void *user);          /* rill__view */
void rill__pass_ssao_blur(rill_rg_ctx *ctx, void *user);     /* rill__view */
void rill__pass_fog(rill_rg_ctx *ctx, void *user);           /* rill__view */
void rill__pass_auto_exposure(rill_rg_ctx *ctx, void *user); /* rill__view */
void rill__pass_bloom_down(rill_rg_ctx *ctx, void *user);    /* rill__bloom_step */
void rill__pass_bloom_up(rill_rg_ctx *ctx, void *user);      /* rill__bloom_step */
void rill__pass_tonemap(rill_rg_ctx *ctx, void *user);       /* rill__view */
void rill__pass_compose(rill_rg_ctx *ctx, void *user);       /* rill__frame */
void rill__pass_target_copy(rill_rg_ctx *ctx, void *user);   /* rill__view */
/* ssr.c: the screen-space reflections effect and its passes (user: the rill__view) */
rill_result rill__ssr_effect_register(rill_renderer *r, rill_error *err);
void rill__pass_ssr_hiz(rill_rg_ctx *ctx, void *user);
void rill__pass_ssr_trace(rill_rg_ctx *ctx, void *user);
void rill__pass_ssr_blur(rill_rg_ctx *ctx, void *user);
void rill__pass_ssr_resolve(rill_rg_ctx *ctx, void *user);
/* effects_aa.c */
void rill__pass_taa(rill_rg_ctx *ctx, void *user);          /* rill__view */
void rill__pass_fxaa(rill_rg_ctx *ctx, void *user);         /* rill__view */
void rill__pass_smaa_edges(rill_rg_ctx *ctx, void *user);   /* rill__view */
void rill__pass_smaa_weights(rill_rg_ctx *ctx, void *user); /* rill__view */
void rill__pass_smaa_blend(rill_rg_ctx *ctx, void *user);   /* rill__view */
void rill__pass_cas(rill_rg_ctx *ctx, void *user);          /* rill__view */
void rill__pass_readback(rill_rg_ctx *ctx, void *user);     /* rill__frame */
void rill__pass_present(rill_rg_ctx *ctx, void *user);      /* rill__frame */

#endif
