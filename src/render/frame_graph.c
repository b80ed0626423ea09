/* frame_graph.c: the frame graph of a planned frame. It declares the engine's images, adds the
 * per-view passes (once per view, later views' names suffixed ".N"), the effects registry's four
 * phases (effects.c: SSAO, auto exposure, bloom, plugins), tonemapping and the output pass with
 * their accesses and the anchors user passes order against, lets the user add passes, and compiles.
 * Every resource a pass uses is found here, once, and stored as a rill__res in the view (or frame,
 * or bloom step) the pass gets as its user pointer. */
#include "frame.h"

#include <stdio.h>
#include <string.h>

static rill__res find(const rill_rg *g, const char *name) {
    rill__res res = {rill_rg_resource_find(g, name)};
    return res;
}

static rill_result pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, void *user, bool side,
                        rill_error *err) {
    rill_rg_pass_desc d = {label, fn, user, side};
    return rill_rg_add_pass(g, &d, err);
}

/* The pass or image name of a view: base for the first, "base.N" for view N. */
static void view_name(char dst[32], const char *base, uint32_t view) {
    if (view == 0) {
        snprintf(dst, 32, "%s", base);
    } else {
        snprintf(dst, 32, "%s.%u", base, view);
    }
}

/* The images every frame has: view 0's depth, normal, motion and shadow map, the shared hdr and
 * the full-size ldr output. */
static rill_result declare_images(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill_rg_image_desc d;
    memset(&d, 0, sizeof(d));
    /* The 3D images follow render_scale; the tonemapped output is always at full size. */
    d.scale = r->render_scale;
    d.format = RILL_RG_FORMAT_D32F;
    RILL_TRY(rill_rg_declare_image(g, "depth", &d, err));
    d.format = RILL_RG_FORMAT_RGBA16F;
    RILL_TRY(rill_rg_declare_image(g, "normal", &d, err));
    RILL_TRY(rill_rg_declare_image(g, "hdr", &d, err));
    d.format = RILL_RG_FORMAT_RG16F;
    RILL_TRY(rill_rg_declare_image(g, "motion", &d, err));
    d.scale = 1.0f;
    d.format = RILL_RG_FORMAT_RGBA8_UNORM;
    RILL_TRY(rill_rg_declare_image(g, "ldr", &d, err));
    d.format = RILL_RG_FORMAT_D32F;
    d.size_mode = RILL_RG_SIZE_ABSOLUTE;
    d.width = d.height = r->frame.shadows ? r->desc.shadow_map_size : 1;
    d.layers = r->frame.shadows ? r->frame.cascades : 1;
    d.array_view = true;
    return rill_rg_declare_image(g, "shadow_map", &d, err);
}

/* View N > 0 gets its own copies of view 0's depth, normal, motion and shadow map. */
static rill_result declare_view_images(rill_rg *g, uint32_t vi, rill_error *err) {
    static const char *const base[4] = {"depth", "normal", "motion", "shadow_map"};
    for (int i = 0; i < 4; i++) {
        char name[32];
        view_name(name, base[i], vi);
        rill_rg_image_desc vd;
        rill_rg_resource_image_desc(g, (uint32_t)rill_rg_resource_find(g, base[i]), &vd);
        RILL_TRY(rill_rg_declare_image(g, name, &vd, err));
    }
    return RILL_OK;
}

/* A raster pass of a view drawing into the shared hdr: reads ao (with SSAO), depth and
 * (shadow_map non-NULL) the view's shadow map. */
static rill_result add_hdr_pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, rill__view *vs,
                                bool ssao, const char *dn, const char *smn, rill_error *err) {
    RILL_TRY(pass(g, label, fn, vs, false, err));
    if (ssao) {
        RILL_TRY(rill_rg_access(g, label, "ao", RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    }
    RILL_TRY(rill_rg_access(g, label, dn, RILL_RG_USAGE_DEPTH_READ, err));
    if (smn) {
        RILL_TRY(rill_rg_access(g, label, smn, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    }
    return rill_rg_access(g, label, "hdr", RILL_RG_USAGE_COLOR_WRITE, err);
}

/* The passes of view vi: shadows, prepass, (SSAO), opaque, transparent, wireframe. For vi > 0
 * they run after the previous view's wireframe pass (prev_wf). */
static rill_result add_view(rill_renderer *r, rill_rg *g, uint32_t vi, char prev_wf[32],
                            rill_error *err) {
    rill__view *vs = &r->frame.views[vi];
    char sh[32], pp[32], op[32], tr[32], wf[32], dn[32], nn[32], mn[32], smn[32];
    view_name(sh, "shadows", vi);
    view_name(pp, "prepass", vi);
    view_name(op, "opaque", vi);
    view_name(tr, "transparent", vi);
    view_name(wf, "wireframe", vi);
    view_name(dn, "depth", vi);
    view_name(nn, "normal", vi);
    view_name(mn, "motion", vi);
    view_name(smn, "shadow_map", vi);
    if (vi > 0) {
        RILL_TRY(declare_view_images(g, vi, err));
    }
    vs->res.depth = find(g, dn);
    vs->res.normal = find(g, nn);
    vs->res.motion = find(g, mn);
    vs->res.shadow_map = find(g, smn);
    vs->res.hdr = find(g, "hdr");
    RILL_TRY(pass(g, sh, rill__pass_shadows, vs, false, err));
    RILL_TRY(rill_rg_access(g, sh, smn, RILL_RG_USAGE_DEPTH_WRITE, err));
    RILL_TRY(pass(g, pp, rill__pass_prepass, vs, false, err));
    RILL_TRY(rill_rg_access(g, pp, dn, RILL_RG_USAGE_DEPTH_WRITE, err));
    RILL_TRY(rill_rg_access(g, pp, nn, RILL_RG_USAGE_COLOR_WRITE, err));
    RILL_TRY(rill_rg_access(g, pp, mn, RILL_RG_USAGE_COLOR_WRITE, err));
    /* The GI phase of the registry (SSAO): after the prepass, before lighting. */
    if (vi == 0) {
        RILL_TRY(rill__effects_add_phase(r, g, RILL_RENDER_PHASE_GI, err));
    }
    bool ssao = vi == 0 && r->frame.ssao;
    RILL_TRY(add_hdr_pass(g, op, rill__pass_opaque, vs, ssao, dn, smn, err));
    if (vs->set.fog_on) {
        /* Distance fog on the opaque surfaces; transparent ones blend over the fogged image. */
        char fg[32];
        view_name(fg, "fog", vi);
        RILL_TRY(pass(g, fg, rill__pass_fog, vs, false, err));
        RILL_TRY(rill_rg_access(g, fg, dn, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        RILL_TRY(rill_rg_access(g, fg, "hdr", RILL_RG_USAGE_STORAGE_WRITE, err));
        RILL_TRY(rill_rg_add_edge(g, op, fg, err));
    }
    RILL_TRY(add_hdr_pass(g, tr, rill__pass_transparent, vs, ssao, dn, smn, err));
    RILL_TRY(add_hdr_pass(g, wf, rill__pass_wireframe, vs, false, dn, NULL, err));
    if (vi > 0) {
        const char *order[] = {prev_wf, sh, pp, op, tr, wf};
        RILL_TRY(rill_rg_add_edges(g, order, 6, err));
    }
    memcpy(prev_wf, wf, 32);
    return RILL_OK;
}

/* Between the main pass and tonemapping: auto exposure's state buffer (always imported, so the
 * state written by earlier frames stays visible) and the registry's HDR_POST phase (auto exposure,
 * bloom, plugins); tonemapping reads the colour the phase ends with. */
static rill_result add_post(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__frame *f = &r->frame;
    RILL_TRY(rill_rg_import_buffer(g, "exposure", r->exposure_buf, RILL_RG_USAGE_STORAGE_WRITE,
                                   RILL_RG_USAGE_NONE, err));
    f->exposure = find(g, "exposure");
    RILL_TRY(rill__effects_add_phase(r, g, RILL_RENDER_PHASE_HDR_POST, err));
    f->hdr_final = find(g, f->hdr_name);
    return RILL_OK;
}

static rill_result add_tonemap(rill__frame *f, rill_rg *g, rill_error *err) {
    const char *tm = RILL_RG_TONEMAPPING;
    RILL_TRY(pass(g, tm, rill__pass_tonemap, f, false, err));
    if (f->bloom) {
        RILL_TRY(rill_rg_access(g, tm, "bloom_u0", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    }
    /* Always read, so the state written by earlier frames is made visible even on frames that
     * do not use it. */
    RILL_TRY(rill_rg_access(g, tm, "exposure", RILL_RG_USAGE_STORAGE_READ, err));
    RILL_TRY(rill_rg_access(g, tm, f->hdr_name, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_access(g, tm, "ldr", RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_access(g, tm, "normal", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_access(g, tm, "motion", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    return pass(g, RILL_RG_END_MAIN_PASS_POST_PROCESSING, NULL, NULL, false, err);
}

/* The output pass: present to the window's swapchain, or copy into this frame's readback buffer.
 * *out_pass gets its label. */
static rill_result add_output(rill_renderer *r, rill_rg *g, const char **out_pass,
                              rill_error *err) {
    rill__frame *f = &r->frame;
    if (r->desc.glfw_window) {
        rill__img *swap = rill__frame_swapchain_image(r->gpu);
        rill_rg_image_desc sd;
        memset(&sd, 0, sizeof(sd));
        sd.format = swap ? rill__img_get_desc(swap)->format : RILL_RG_FORMAT_BGRA8_UNORM;
        RILL_TRY(rill_rg_import_image(g, "swapchain", &sd, swap, RILL_RG_USAGE_NONE,
                                      RILL_RG_USAGE_PRESENT, err));
        f->out = find(g, "swapchain");
        *out_pass = "present";
        RILL_TRY(pass(g, *out_pass, rill__pass_present, f, true, err));
        RILL_TRY(rill_rg_access(g, *out_pass, "swapchain", RILL_RG_USAGE_TRANSFER_DST, err));
    } else {
        RILL_TRY(rill_rg_import_buffer(g, "readback", r->readback[rill__gpu_frame_slot(r->gpu)],
                                       RILL_RG_USAGE_NONE, RILL_RG_USAGE_NONE, err));
        f->out = find(g, "readback");
        *out_pass = "readback";
        RILL_TRY(pass(g, *out_pass, rill__pass_readback, f, true, err));
        RILL_TRY(rill_rg_access(g, *out_pass, "readback", RILL_RG_USAGE_TRANSFER_DST, err));
    }
    return rill_rg_access(g, *out_pass, f->ldr_name, RILL_RG_USAGE_TRANSFER_SRC, err);
}

rill_result rill__frame_build_graph(rill_renderer *r, rill_error *err) {
    rill__frame *f = &r->frame;
    rill_rg *g = r->graph;
    rill_rg_reset(g);
    rill_rg_set_view_size(g, r->width, r->height);
    RILL_TRY(declare_images(r, g, err));
    f->ldr = find(g, "ldr");
    /* The per-view passes: for view 0 the names the anchors and user passes know, later views'
     * names suffixed ".N", in drawing order. */
    char prev_wf[32] = "";
    for (uint32_t vi = 0; vi < f->view_count; vi++) {
        RILL_TRY(add_view(r, g, vi, prev_wf, err));
    }
    RILL_TRY(pass(g, RILL_RG_END_MAIN_PASS, NULL, NULL, false, err));
    if (f->view_count > 1) {
        RILL_TRY(rill_rg_add_edge(g, prev_wf, RILL_RG_END_MAIN_PASS, err));
    }
    /* GI effects on the lit image (plugins of the GI phase), then HDR_POST (TAA first). */
    RILL_TRY(rill__effects_add_gi_lit(r, g, err));
    RILL_TRY(add_post(r, g, err));
    RILL_TRY(add_tonemap(f, g, err));
    RILL_TRY(rill__effects_add_phase(r, g, RILL_RENDER_PHASE_LDR_POST, err));
    /* (FXAA/SMAA go here) */
    RILL_TRY(rill__effects_add_phase(r, g, RILL_RENDER_PHASE_OVERLAY, err));
    f->ldr_final = find(g, f->ldr_name);
    const char *out_pass;
    RILL_TRY(add_output(r, g, &out_pass, err));
    const char *chain[] = {"transparent",
                           "wireframe",
                           RILL_RG_END_MAIN_PASS,
                           RILL_RG_TONEMAPPING,
                           RILL_RG_END_MAIN_PASS_POST_PROCESSING,
                           out_pass};
    RILL_TRY(rill_rg_add_edges(g, chain, 6, err));
    if (r->desc.setup_graph) {
        RILL_TRY(r->desc.setup_graph(g, r->desc.setup_graph_user, err));
    }
    RILL_TRY(rill__overlay_add_pass(r, g, out_pass, err));
    return rill_rg_compile(g, err);
}
