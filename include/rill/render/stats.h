/* rill/render/stats.h: renderer statistics, the text overlay and frame capture (part of
 * rill/render.h).
 */
#ifndef RILL_RENDER_STATS_H
#define RILL_RENDER_STATS_H

#include "rill/base.h"
#include "rill/render/renderer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_RENDER_MAX_PASS_TIMINGS 128 /* every view of a split screen has its own passes */
typedef struct rill_render_stats {
    uint64_t frame_index;
    double cpu_record_ms; /* last rill_renderer_render: CPU time from frame start to submit */
    double cpu_wait_ms;   /* ... and time spent before that waiting for a free frame slot */
    /* With a render thread (rill_renderer_desc.render_thread): the wall time the thread spent on
     * its last finished frame (waiting for a free frame slot, recording, submitting), and the
     * time the calling thread spent waiting for the render thread between the last two
     * rill_renderer_render calls (in rill_renderer_sync, the renderer calls that wait, and the
     * hand-off itself). 0 without. */
    double render_thread_ms;
    double render_sync_ms;
    /* Where cpu_record_ms went (ms): camera/cascade setup, culling and draw lists (with motion
     * history), sorting, filling per-frame buffers (instances, lights, light clusters), building
     * and compiling the graph, recording its commands, and ending + submitting. */
    double cpu_setup_ms, cpu_cull_ms, cpu_sort_ms, cpu_upload_ms, cpu_graph_ms, cpu_commands_ms,
        cpu_submit_ms;
    /* GPU objects (buffers, images, pipelines) the last frame made between its start and submit
     * (render targets and tables on first use, grown scratch, oversized staging), and the CPU time
     * making them took: part of cpu_wait_ms + cpu_record_ms, whichever phase made them. */
    uint32_t gpu_objects_created;
    double cpu_create_ms;
    uint32_t pass_count; /* GPU timings of the last completed frame */
    const char *pass_names[RILL_RENDER_MAX_PASS_TIMINGS]; /* interned, static lifetime */
    double pass_gpu_ms[RILL_RENDER_MAX_PASS_TIMINGS];
    /* CPU time of recording each pass of the last recorded frame (its exec callback: draws,
     * dispatches, barriers excluded), ms; labels interned, static lifetime. */
    uint32_t pass_cpu_count;
    const char *pass_cpu_names[RILL_RENDER_MAX_PASS_TIMINGS];
    double pass_cpu_ms[RILL_RENDER_MAX_PASS_TIMINGS];
    uint32_t instances_submitted, instances_visible, draw_calls;
    /* GPU culling's occlusion: instances in the view's frustum left out as hidden behind what
     * was drawn (not counted in instances_visible); read, as GPU culling's visible count, when the
     * frame's slot comes around. */
    uint32_t instances_occluded;
    /* GPU culling (RILL_RENDER_DEBUG_GPU_CULL): instances resident in its table after the last
     * frame, and those the frame took into it (a time budget: docs/renderer.md, "GPU-driven
     * culling"; new instances past it draw on the CPU path until a later frame takes them). 0
     * without. */
    uint32_t gpu_cull_resident, gpu_cull_spawned;
    /* GPU culling: the CPU time of the last frame's scan (matching the snapshot to the table,
     * the deltas and the draw groups; part of cpu_cull_ms), and the deltas it uploaded (spawned,
     * moved, settled and despawned instances). 0 without. */
    double gpu_cull_scan_ms;
    uint32_t gpu_cull_deltas;
    /* GPU culling: the instances the last scan passed without reading them, marked unchanged by
     * rill_render_snapshot.instance_changed. */
    uint32_t gpu_cull_unchanged;
    uint32_t light_cluster_refs;  /* (cluster, light) pairs in the last frame's light grid */
    uint32_t validation_messages; /* validation warnings + errors since creation */
    uint64_t uploaded_bytes_last_frame;
    /* Bytes of uploads still queued after the last frame's: its per-frame budget
     * (rill_renderer_desc.upload_budget_bytes) left them to later frames (0 = none waiting). */
    uint64_t upload_backlog_bytes;
    uint32_t uploads_last_frame; /* meshes, buffers and image levels behind those bytes */
    uint64_t gpu_memory_block_bytes, gpu_memory_used_bytes;
    uint32_t gpu_memory_blocks;
    char device_name[256];
    bool fill_mode_non_solid; /* wireframe (polygon mode line) is available */
    bool multi_draw_indirect; /* static batches of one material draw as one indirect call */
    bool validation;          /* validation layers are on */
    uint64_t triangles;       /* triangles drawn by the last frame, all passes (shadows too) */
    uint64_t texture_bytes;   /* GPU bytes of the levels every live texture holds now */
    /* Wireframe pass draws of the last frame: edge buffers drawn as line lists, and polygon-mode
     * line fill for meshes without edges. */
    uint32_t wire_edge_draws, wire_fill_draws;
    uint32_t ghost_alpha_draws; /* mixed passthrough: draws lowering ghost pixels' alpha */
    /* Image-based light: finished bakes and bake steps recorded since creation (a bake is 7
     * steps: the source, then one per cube face), and the cube's face size (the tier's). */
    uint32_t ibl_bakes, ibl_steps, ibl_face_size;
    /* Global illumination (rill/render/gi.h): GPU ms of the GI passes in the newest timed frame
     * (ssgi* and vxgi_*), and the wall ms the last frame's CPU voxelization took on the calling
     * thread (jobs included; 0 without a voxel tier). The voxel tiers' clipmap: work units the
     * last frame's voxelization spent (rill_renderer_desc.gi_voxel_budget), voxels occupied and
     * cascades resident (holding injected radiance, 0..4). */
    double gi_ms, gi_voxelize_ms;
    uint64_t gi_voxel_units;
    uint32_t gi_voxels_filled, gi_cascades_resident;
    /* The GI tier the first camera's last frame ran (rill_gi_quality in rill/render/gi.h: 0 Off
     * or no GI pass, 1 ScreenSpace, 2 SdfLow, 3 SdfHigh, 4 Hwrt): quality Hwrt reads 3 where the
     * device cannot trace rays. gi_hwrt_why says why then ("" otherwise). */
    uint32_t gi_tier;
    char gi_hwrt_why[128];
    /* Reflection probes (rill/render/reflections.h): probes shading the last frame, cubes baked
     * since creation, sources that could not be used, sources still to bake (an image uploading
     * or waiting its frame, a capture not drawn whole: a capture takes six frames by default);
     * and the last frame's GPU time of the screen-space reflections' passes (ssr_*) and of probe
     * bakes (probe.*), ms. */
    uint32_t probes_shaded, probe_bakes, probes_failed, probes_waiting;
    double ssr_gpu_ms, probe_bake_gpu_ms;
} rill_render_stats;
/* Fills *out (zeroed for a NULL renderer). GPU timings are those of the newest finished frame.
 * With a render thread the call does not wait for the frame in progress: the fields are those the
 * thread published when it finished the last frame the caller synchronised with (the frame
 * before the one just handed to rill_renderer_render, or the last one after rill_renderer_sync,
 * rill_renderer_wait_idle or any other call that waited for it), whatever the thread has done
 * since; the GPU timings (pass_*, gi_ms, ssr_gpu_ms, probe_bake_gpu_ms) are the newest finished
 * GPU frame's as without the thread. */
void rill_renderer_stats(const rill_renderer *r, rill_render_stats *out);
/* Appends the last frame's compiled graph listing to sb. */
void rill_renderer_dump_graph(const rill_renderer *r, rill_strbuf *sb);

/* >>overlay ---------------------------------------------------------------------------------- */

/* Longest overlay text kept (bytes, the terminating NUL included); longer text is cut. */
#define RILL_RENDER_OVERLAY_MAX_TEXT 4096
/* Sets the text drawn over every following frame, in the top-left corner on a dark backdrop, after
 * tonemapping (at end_main_pass_post_processing, before readback or present). '\n' breaks lines;
 * the glyphs are stb_easy_font's (about 6 x 12 pixels, doubled on outputs 600 pixels tall or
 * more). text is copied; NULL or "" hides the overlay (no pass is added then). The first call
 * builds the overlay's pipeline; failures are logged and leave the overlay off. */
void rill_renderer_set_overlay_text(rill_renderer *r, const char *text);
/* Formats stats for an overlay or a log: frame time (frame_ms: the caller's measured CPU frame
 * time; <= 0 leaves it out), CPU record time, draw calls, triangles, visible instances and the GPU
 * time of each pass, one item per line. Writes at most cap bytes (always NUL-terminated when cap >
 * 0) and returns the length written. */
size_t rill_render_stats_format(const rill_render_stats *s, double frame_ms, char *buf, size_t cap);

/* Frame capture, for screenshots of windowed renderers (headless ones work too): the next
 * rill_renderer_render copies its final image (overlay included, as displayed) into a buffer the
 * renderer keeps; read it with rill_renderer_read_capture (waits for the GPU; dst NULL = only
 * report the size in *out_w x *out_h; RGBA8 sRGB-encoded, top row first, w * h * 4 bytes) or
 * write it with rill_renderer_write_capture_png. Reading before a captured frame is
 * RILL_ERR_NOT_FOUND. The capture stays readable until the next one. */
void rill_renderer_request_capture(rill_renderer *r);
rill_result rill_renderer_read_capture(rill_renderer *r, uint8_t *dst, size_t dst_size,
                                       uint32_t *out_w, uint32_t *out_h, rill_error *err);
rill_result rill_renderer_write_capture_png(rill_renderer *r, const char *path, rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_STATS_H */
