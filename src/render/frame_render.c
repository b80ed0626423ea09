/* frame_render.c: one 3D frame from a snapshot. It begins the GPU frame (recording pending
 * uploads), plans and fills the views (frame_views.c), builds and compiles the frame graph
 * (frame_graph.c), executes it (exec.c, calling the passes in frame_passes.c) and submits, timing
 * each phase for rill_render_stats. It also owns the frame's GPU state: the pipelines
 * (frame_pipelines.c) and the auto-exposure state buffer. */
#include "debug_views.h"
#include "frame.h"

#include <string.h>

rill_result rill__frame_create(rill_renderer *r, rill_error *err) {
    RILL_TRY(rill__effects_create(r, err));
    RILL_TRY(rill__pipelines_create(r, err));
    RILL_TRY(rill__ibl_create(r, err));
    RILL_TRY(rill__sky_create(r, err));
    RILL_TRY(rill__skybox_create(r, err));
    RILL_TRY(rill__vfog_create(r, err));
    RILL_TRY(rill__clouds_create(r, err));
    RILL_TRY(rill__water_create(r, err));
    RILL_TRY(rill__ocean_create(r, err));
    RILL_TRY(rill__msaa_create(r, err));
    /* One state per view (ev, initialized), RILL__EXPOSURE_STRIDE apart. */
    static const uint8_t zero_state[RILL__EXPOSURE_STRIDE * RILL_RENDER_MAX_VIEWS];
    r->exposure_buf = rill__buf_create(r->gpu, sizeof(zero_state), RILL__BUF_STORAGE, false,
                                       "auto exposure state", err);
    if (!r->exposure_buf || rill__buf_upload(r->gpu, r->exposure_buf, 0, zero_state,
                                             sizeof(zero_state), err) != RILL_OK) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    return RILL_OK;
}

void rill__frame_destroy(rill_renderer *r) {
    rill__skinning_destroy(r);
    rill__gpu_cull_destroy(r);
    rill__effects_destroy(r);
    rill__taa_destroy(r);
    rill__ibl_destroy(r);
    rill__sky_destroy(r);
    rill__probes_destroy(r);
    rill__capture_destroy(r);
    rill__skybox_destroy(r);
    rill__envmap_destroy(r);
    rill__vfog_destroy(r);
    rill__clouds_destroy(r);
    rill__water_destroy(r);
    rill__ocean_destroy(r);
    rill__msaa_destroy(r);
    rill__oit_destroy(r);
    rill__pipelines_destroy(r);
    rill__buf_destroy(r->gpu, r->exposure_buf);
    r->exposure_buf = NULL;
    for (uint32_t i = 0; i < RILL_RENDER_MAX_VIEWS; i++) {
        rill__view *vs = &r->frame.views[i];
        rill_array_free(&vs->opaque);
        rill_array_free(&vs->transparent);
        rill_array_free(&vs->casters);
        rill_array_free(&vs->wires);
        rill_array_free(&vs->ghosts);
    }
}

void rill__phase_mark(rill_renderer *r, enum rill__cpu_phase phase) {
    uint64_t now = rill_time_ns();
    r->cpu_phase_ms[phase] += (double)(now - r->phase_t) * 1e-6;
    r->phase_t = now;
}

/* Everything recorded between the frame's begin and end. */
static rill_result record_frame(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                                rill_error *err) {
    r->frame_counter++;
    r->draw_calls = 0;
    r->edge_draws = 0;
    r->fill_wire_draws = 0;
    r->ghost_alpha_draws = 0;
    r->triangles = 0;
    r->instances_visible = 0;
    r->instances_occluded = 0;
    if (r->desc.glfw_window) {
        rill__gpu_surface_size(r->gpu, &r->width, &r->height);
        if (!r->rthread) { /* the render thread's caller applied it (GLFW's thread) */
            rill__renderer_apply_scale(r); /* the window may have moved to another display */
        }
    }
    /* The image-based light's bake steps first: the views' frame constants read its state. */
    rill_result res = rill__sky_plan(r, cmd, snap, err);
    if (res == RILL_OK) {
        rill__skybox_plan(r, snap);
        rill__envmap_plan(r, snap);
        res = rill__ibl_plan(r, snap, err);
    }
    if (res == RILL_OK) {
        res = rill__probes_plan(r, cmd, snap, err);
        snap = rill__capture_snapshot(r, snap); /* plus the face views a capture draws this frame */
    }
    if (res == RILL_OK) {
        res = rill__frame_plan_views(r, cmd, snap, err);
    }
    if (res == RILL_OK) {
        res = rill__vfog_plan(r, cmd, snap, err);
    }
    if (res == RILL_OK) {
        res = rill__water_plan(r, cmd, snap, err);
    }
    if (res == RILL_OK) {
        res = rill__ocean_plan(r, cmd, snap, err);
    }
    if (res == RILL_OK) {
        rill__debug_plan(r); /* the debug panel's lines and text for the overlay */
        res = rill__frame_build_graph(r, err);
    }
    rill__phase_mark(r, RILL__CPU_GRAPH);
    if (res == RILL_OK) {
        res = rill__graph_execute(r, cmd, err);
    }
    rill__phase_mark(r, RILL__CPU_COMMANDS);
    return res;
}

rill_result rill__frame_render(rill_renderer *r, const rill_render_snapshot *snap,
                               rill_error *err) {
    uint64_t t0 = rill_time_ns(), create_ns0 = 0;
    uint32_t created0 = 0;
    rill__gpu_create_time(&create_ns0, &created0);
    /* Begin first: pending uploads are recorded at the start of the frame, so resources created
     * before this call can already be drawn by it. */
    rill__cmd *cmd;
    RILL_TRY(rill__frame_begin(r->gpu, &cmd, err));
    /* Replaced textures whose new image was just uploaded switch over before any draw. */
    rill__pools_commit_replacements(r);
    uint64_t t_begun = rill_time_ns(); /* frame_begin may wait for the GPU: not recording time */
    memset(r->cpu_phase_ms, 0, sizeof(r->cpu_phase_ms));
    r->phase_t = t_begun;
    r->frame.view_count = 0;
    /* Skinned instances are posed first; the passes draw their posed copies. */
    rill_render_snapshot posed;
    rill_result res = rill__skinning_run(r, cmd, snap, &posed, err);
    if (res == RILL_OK) {
        res = record_frame(r, cmd, &posed, err);
    }
    /* The frame is submitted even after an error so the command buffer and frame slot stay in a
     * consistent state; the first error is the one reported. */
    rill_result end = rill__frame_end(r->gpu, cmd, res == RILL_OK ? err : NULL);
    rill__phase_mark(r, RILL__CPU_SUBMIT);
    if (res == RILL_OK) {
        res = end;
    }
    if (res == RILL_OK && !r->desc.glfw_window) {
        r->have_frame = true;
    }
    /* Each view's camera motion reference for its next frame (a view slot that did not draw
     * starts without one). */
    r->have_prev_view_proj = 0;
    for (uint32_t i = 0; i < r->frame.view_count; i++) {
        memcpy(r->prev_view_proj[i], r->frame.views[i].view_proj, sizeof(mat4));
        r->have_prev_view_proj |= 1u << i;
    }
    rill__transients_release_unused(r, false);
    r->cpu_wait_ms = (double)(t_begun - t0) * 1e-6;
    r->cpu_record_ms = (double)(rill_time_ns() - t_begun) * 1e-6;
    uint64_t create_ns = 0;
    uint32_t created = 0;
    rill__gpu_create_time(&create_ns, &created);
    r->cpu_create_ms = (double)(create_ns - create_ns0) * 1e-6;
    r->gpu_objects_created = created - created0;
    rill__debug_frame_end(r);
    return res;
}
