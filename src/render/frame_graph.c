/* frame_graph.c: the frame graph of a planned frame. Each view (camera) gets its own images and
 * passes in its view scope of the graph (view N > 0: "name.N"): raster passes, the effects
 * registry's four phases (effects.c: SSAO, auto exposure, bloom, TAA, FXAA, plugins ...) and
 * tonemapping; several views are then composed into the output's ldr. It adds the output pass and
 * the anchors user passes order against, lets the user add passes, and compiles. Every handle the
 * graph returns is kept in the rill__view (or frame, or bloom step) the pass gets as its user
 * pointer, and in r->frame.fg for effects and setup_graph. */
#include "frame.h"
#include "post_internal.h"

#include <stdio.h>
#include <string.h>

/* The images of view vs, in its scope of the graph (view N > 0: "name.N", sized relative to the
 * view's rectangle): depth, normal, hdr, motion, the shadow map and its ldr (for a single view the
 * frame's output itself, created outside any scope by the caller). */
static void view_images(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err) {
    rill__view_res *res = &vs->res;
    /* The 3D images follow render_scale; the tonemapped colour is at full size. */
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_D32F, .scale = r->render_scale};
    res->depth = rill_rg_create_image(g, "depth", &d, err);
    d.format = RILL_RG_FORMAT_RGBA16F;
    res->normal = rill_rg_create_image(g, "normal", &d, err);
    res->hdr = rill_rg_create_image(g, "hdr", &d, err);
    d.format = RILL_RG_FORMAT_RG16F;
    res->motion = rill_rg_create_image(g, "motion", &d, err);
    if (r->frame.composed) {
        d = (rill_rg_image_desc){.format = RILL_RG_FORMAT_RGBA8_UNORM, .scale = 1.0f};
        res->ldr = rill_rg_create_image(g, "view_ldr", &d, err);
    }
    uint32_t size = r->frame.shadows ? r->desc.shadow_map_size : 1;
    d = (rill_rg_image_desc){.format = RILL_RG_FORMAT_D32F,
                             .size_mode = RILL_RG_SIZE_ABSOLUTE,
                             .scale = 1.0f,
                             .width = size,
                             .height = size,
                             .layers = r->frame.shadows ? r->frame.cascades : 1,
                             .array_view = true};
    res->shadow_map = rill_rg_create_image(g, "shadow_map", &d, err);
}

/* The handles the view's effects get (rill_render_effect_ctx.frame): its own images and its part
 * of the auto-exposure state (imported per view, so views never wait on each other through it;
 * always imported, so the state earlier frames wrote stays visible), the frame's anchors. Called
 * in the view's scope. */
static void view_handles(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err) {
    rill_render_graph *fg = &vs->fx.fg;
    *fg = r->frame.fg;
    fg->exposure = rill_rg_import_buffer(g, "exposure", r->exposure_buf,
                                         RILL_RG_USAGE_STORAGE_WRITE, RILL_RG_USAGE_NONE, err);
    fg->depth = vs->res.depth;
    fg->normal = vs->res.normal;
    fg->motion = vs->res.motion;
    fg->shadow_map = vs->res.shadow_map;
    fg->hdr = vs->res.hdr;
    fg->ldr = vs->res.ldr;
}

/* A pass of view vs (in its scope) whose user pointer is the view. */
static rill_rg_pass view_pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, rill__view *vs,
                              rill_error *err) {
    rill_rg_pass_desc d = {.label = label, .exec = fn, .user = vs};
    return rill_rg_add_pass(g, &d, err);
}

/* A raster pass of a view drawing into its hdr: reads ao (with SSAO), depth and (shadows: a lit
 * pass) the view's shadow map and the image-based light. */
/* A pass of a view drawing to the output samples the render textures other cameras drew this
 * frame: it runs after their copies (a view drawing into a render texture reads none: it sees
 * last frame's, and the textures keep their sampled layout until every such view has drawn). */
static rill_result read_targets(rill_renderer *r, rill_rg *g, rill_rg_pass p, const rill__view *vs,
                                rill_error *err) {
    for (uint32_t i = 0; !vs->target_tex.id && i < r->frame.target_count; i++) {
        RILL_TRY(rill_rg_use_image(g, p, r->frame.targets[i], RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    }
    return RILL_OK;
}

static rill_result add_hdr_pass(rill_renderer *r, rill_rg *g, rill_rg_pass *out, const char *label,
                                rill_rg_exec_fn fn, rill__view *vs, bool shadows, bool ms,
                                bool no_color, rill_error *err) {
    rill_rg_pass p = *out = view_pass(g, label, fn, vs, err);
    RILL_TRY(read_targets(r, g, p, vs, err));
    if (shadows) {
        RILL_TRY(rill__ibl_access(r, g, p, err));
        RILL_TRY(rill__probes_access(r, g, p, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
        RILL_TRY(rill__clouds_shadow_access(r, g, p, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    }
    if (vs->res.ao.id) {
        RILL_TRY(rill_rg_use_image(g, p, vs->res.ao, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    }
    if (vs->res.decal.id) {
        RILL_TRY(rill_rg_use_image(g, p, vs->res.decal, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    }
    RILL_TRY(rill__post_decal_atlas_access(r, g, p, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    /* ms: the multisampled depth and colour (msaa.c) */
    RILL_TRY(rill_rg_use_image(g, p, ms ? vs->res.depth_ms : vs->res.depth,
                               RILL_RG_USAGE_DEPTH_READ, err));
    if (shadows) {
        RILL_TRY(rill_rg_use_image(g, p, vs->res.shadow_map, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
    }
    if (no_color) { /* OIT's transparent pass appends to its layers instead */
        return RILL_OK;
    }
    return rill_rg_use_image(g, p, ms ? vs->res.hdr_ms : vs->res.hdr, RILL_RG_USAGE_COLOR_WRITE,
                             err);
}

/* An anchor: a pass that records nothing and that other passes order against. */
static rill_rg_pass anchor(rill_rg *g, const char *label, rill_error *err) {
    rill_rg_pass_desc d = {.label = label};
    return rill_rg_add_pass(g, &d, err);
}

/* The scope of view vs in the graph: its passes and images are "name.N" for N > 0, sized
 * relative to its rectangle of the output. */
static void begin_view(rill_renderer *r, rill_rg *g, const rill__view *vs) {
    bool whole = !r->frame.composed;
    rill_rg_begin_view(g, vs->index, whole ? r->width : vs->out_rect[2],
                       whole ? r->height : vs->out_rect[3]);
}

/* The raster passes of view vi: shadows, prepass, (GI effects: SSAO), opaque, (fog),
 * transparent, wireframe (in pass[0..5]). For vi > 0 they run after the previous view's
 * wireframe pass (pass[5] on entry). */
static rill_result add_view(rill_renderer *r, rill_rg *g, uint32_t vi, rill_rg_pass pass[6],
                            rill_error *err) {
    rill__view *vs = &r->frame.views[vi];
    rill_rg_pass prev_wf = pass[5];
    begin_view(r, g, vs);
    view_images(r, g, vs, err);
    if (!r->frame.composed) {
        vs->res.ldr = r->frame.fg.ldr;
    }
    view_handles(r, g, vs, err);
    vs->fx.hdr_color = vs->res.hdr;
    vs->fx.ldr_color = vs->res.ldr;
    pass[0] = view_pass(g, "shadows", rill__pass_shadows, vs, err);
    RILL_TRY(rill_rg_use_image(g, pass[0], vs->res.shadow_map, RILL_RG_USAGE_DEPTH_WRITE, err));
    RILL_TRY(read_targets(r, g, pass[0], vs, err)); /* alpha-masked casters sample textures */
    pass[1] = view_pass(g, "prepass", rill__pass_prepass, vs, err);
    RILL_TRY(read_targets(r, g, pass[1], vs, err));
    RILL_TRY(rill_rg_use_image(g, pass[1], vs->res.depth, RILL_RG_USAGE_DEPTH_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, pass[1], vs->res.normal, RILL_RG_USAGE_COLOR_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, pass[1], vs->res.motion, RILL_RG_USAGE_COLOR_WRITE, err));
    bool ms = vs->msaa > 1; /* MSAA: the opaque pass draws multisampled, then is resolved */
    if (ms) {
        rill__msaa_add_images(r, g, vs, err);
        rill_rg_pass pm = view_pass(g, "prepass_msaa", rill__pass_prepass_msaa, vs, err);
        RILL_TRY(read_targets(r, g, pm, vs, err));
        RILL_TRY(rill_rg_use_image(g, pm, vs->res.depth_ms, RILL_RG_USAGE_DEPTH_WRITE, err));
    }
    /* The GI phase of the registry (SSAO): after the prepass, before lighting. */
    RILL_TRY(rill__effects_add_phase(r, g, vs, RILL_RENDER_PHASE_GI, err));
    RILL_TRY(add_hdr_pass(r, g, &pass[2], "opaque", rill__pass_opaque, vs, true, ms, false, err));
    rill_rg_pass opaque = pass[2];
    if (ms) {
        RILL_TRY(rill__msaa_add_resolve(r, g, vs, &opaque, err));
    }
    /* With an atmosphere: the sky behind everything, aerial perspective on the opaque surfaces. */
    rill_rg_pass lit, sky;
    RILL_TRY(rill__sky_add_view(r, g, vs, opaque, &sky, err));
    RILL_TRY(rill__skybox_add_view(r, g, vs, sky, &lit, err));
    RILL_TRY(rill__water_add_view(r, g, vs, lit, &lit, err)); /* PoolWater (water.c) */
    RILL_TRY(rill__ocean_add_view(r, g, vs, lit, &lit, err)); /* Water (ocean.c) */
    if (vs->set.fog_on) {
        /* Distance fog on the opaque surfaces; transparent ones blend over the fogged image. */
        rill_rg_pass fog = view_pass(g, "fog", rill__pass_fog, vs, err);
        RILL_TRY(rill_rg_use_image(g, fog, vs->res.depth, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        RILL_TRY(rill_rg_use_image(g, fog, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
        if (rill__sky_on(r)) { /* the sky's horizon colour as the fog's (sky_color) */
            RILL_TRY(rill__sky_access(r, g, fog, err));
        }
        RILL_TRY(rill_rg_add_edge(g, lit, fog, err));
        lit = fog;
    }
    RILL_TRY(rill__vfog_add_view(r, g, vs, lit, &lit, err)); /* volumetric fog (fog_volume.c) */
    RILL_TRY(rill__transmission_add_view(r, g, vs, lit, &lit, err)); /* transmission.c */
    bool oit = vs->oit_layers > 0; /* OIT: layers filled, then resolved into hdr (oit.c) */
    if (oit) {
        RILL_TRY(rill__oit_add_clear(r, g, vs, err));
    }
    RILL_TRY(add_hdr_pass(r, g, &pass[3], "transparent", rill__pass_transparent, vs, true, false,
                          oit, err));
    if (vs->res.scene.id) {
        RILL_TRY(rill_rg_use_image(g, pass[3], vs->res.scene, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
        RILL_TRY(rill_rg_add_edge(g, lit, pass[3], err));
    }
    if (oit) {
        RILL_TRY(rill__oit_use_layers(g, pass[3], vs, err));
        RILL_TRY(rill__oit_add_resolve(r, g, vs, pass[3], err));
    }
    RILL_TRY(add_hdr_pass(r, g, &pass[4], "wireframe", rill__pass_wireframe, vs, false, false,
                          false, err));
    if (vs->target_tex.id) {
        /* Its effects order against its own anchor: the frame's comes after every camera. */
        vs->target_main_end = anchor(g, "target_main_pass", err);
        RILL_TRY(rill_rg_add_edge(g, pass[4], vs->target_main_end, err));
    }
    rill_rg_end_view(g);
    if (vi > 0) {
        rill_rg_pass order[] = {prev_wf, pass[0], pass[1], pass[2], pass[3], pass[4]};
        RILL_TRY(rill_rg_add_edges(g, order, 6, err));
    }
    pass[5] = pass[4];
    return RILL_OK;
}

/* View vs between the main pass and its tonemapping, in its scope: the registry's GI effects on
 * the lit image, then its HDR_POST phase (TAA, auto exposure, bloom, plugins); its tonemapping
 * reads the colour the phases end with and writes the view's ldr. */
static rill_result add_view_post(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass *out,
                                 rill_error *err) {
    rill__view_fx *f = &vs->fx;
    begin_view(r, g, vs);
    RILL_TRY(rill__effects_add_gi_lit(r, g, vs, err));
    RILL_TRY(rill__effects_add_phase(r, g, vs, RILL_RENDER_PHASE_HDR_POST, err));
    rill_rg_pass_desc d = {.label = RILL_RG_TONEMAPPING, .exec = rill__pass_tonemap, .user = vs};
    rill_rg_pass tm = *out = rill_rg_add_pass(g, &d, err);
    rill_rg_end_view(g);
    if (f->bloom) {
        RILL_TRY(rill_rg_use_image(g, tm, f->bloom_out, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    }
    /* Always read, so the state written by earlier frames is made visible even on frames that
     * do not use it. */
    RILL_TRY(rill_rg_use_buffer(g, tm, f->fg.exposure, RILL_RG_USAGE_STORAGE_READ, err));
    RILL_TRY(rill_rg_use_image(g, tm, f->hdr_color, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, tm, vs->res.ldr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, tm, vs->res.normal, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    return rill_rg_use_image(g, tm, vs->res.motion, RILL_RG_USAGE_SAMPLED_COMPUTE, err);
}

/* Several views: the output's ldr is black, then each view's final colour in its rectangle. */
static rill_result add_compose(rill__frame *f, rill_rg *g, rill_error *err) {
    rill_rg_pass_desc d = {.label = "compose", .exec = rill__pass_compose, .user = f};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    for (uint32_t i = f->target_views; i < f->view_count; i++) {
        RILL_TRY(
            rill_rg_use_image(g, p, f->views[i].fx.ldr_color, RILL_RG_USAGE_TRANSFER_SRC, err));
    }
    RILL_TRY(rill_rg_use_image(g, p, f->fg.ldr, RILL_RG_USAGE_TRANSFER_DST, err));
    return rill_rg_add_edge(g, f->fg.end_main_pass_post_processing, p, err);
}

/* The output pass (f->fg.output): present to the window's swapchain, or copy into this frame's
 * readback buffer. */
static rill_result add_output(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__frame *f = &r->frame;
    rill_rg_pass_desc d = {.user = f, .side_effect = true};
    if (r->desc.glfw_window) {
        rill__img *swap = rill__frame_swapchain_image(r->gpu);
        rill_rg_image_desc sd = {.format = swap ? rill__img_get_desc(swap)->format
                                                : RILL_RG_FORMAT_BGRA8_UNORM};
        f->out = rill_rg_import_image(g, "swapchain", &sd, swap, RILL_RG_USAGE_NONE,
                                      RILL_RG_USAGE_PRESENT, err);
        d.label = "present";
        d.exec = rill__pass_present;
        f->fg.output = rill_rg_add_pass(g, &d, err);
        RILL_TRY(rill_rg_use_image(g, f->fg.output, f->out, RILL_RG_USAGE_TRANSFER_DST, err));
    } else {
        rill_rg_buffer rb =
            rill_rg_import_buffer(g, "readback", r->readback[rill__gpu_frame_slot(r->gpu)],
                                  RILL_RG_USAGE_NONE, RILL_RG_USAGE_NONE, err);
        d.label = "readback";
        d.exec = rill__pass_readback;
        f->fg.output = rill_rg_add_pass(g, &d, err);
        RILL_TRY(rill_rg_use_buffer(g, f->fg.output, rb, RILL_RG_USAGE_TRANSFER_DST, err));
    }
    return rill_rg_use_image(g, f->fg.output, f->ldr_color, RILL_RG_USAGE_TRANSFER_SRC, err);
}

/* A view drawing into a render texture: after its tonemapping its own post-processing anchor,
 * after its LDR phases the copy of its final image into the texture (once every camera drawing
 * into a render texture has drawn: they sample the textures unsynchronized, as last frame's). */
static rill_result add_target_copy(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err) {
    rill__frame *f = &r->frame;
    rill_rg_pass_desc d = {.label = "target_copy", .exec = rill__pass_target_copy, .user = vs};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    RILL_TRY(rill_rg_use_image(g, p, vs->fx.ldr_color, RILL_RG_USAGE_TRANSFER_SRC, err));
    RILL_TRY(rill_rg_use_image(g, p, vs->target, RILL_RG_USAGE_TRANSFER_DST, err));
    RILL_TRY(rill_rg_add_edge(g, vs->target_post_end, p, err));
    return rill_rg_add_edge(g, f->views[f->target_views - 1].target_main_end, p, err);
}

/* Each view after the main pass: GI-lit and HDR_POST effects and tonemapping (view `main`'s
 * tonemapping is fg.tonemapping: the first view drawing to the output), then the
 * end_main_pass_post_processing anchor, then each view's LDR_POST and OVERLAY phases, and the
 * composition of several views. Views drawing into render textures order against anchors of
 * their own and end in a copy into their texture. */
static rill_result add_views_post(rill_renderer *r, rill_rg *g, uint32_t main, rill_error *err) {
    rill__frame *f = &r->frame;
    rill_rg_pass tm[RILL_RENDER_MAX_VIEWS];
    for (uint32_t vi = 0; vi < f->view_count; vi++) {
        RILL_TRY(add_view_post(r, g, &f->views[vi], &tm[vi], err));
    }
    f->fg.tonemapping = tm[main];
    f->fg.end_main_pass_post_processing = anchor(g, RILL_RG_END_MAIN_PASS_POST_PROCESSING, err);
    for (uint32_t vi = 0; vi < f->view_count; vi++) {
        rill__view *vs = &f->views[vi];
        if (vs->target_tex.id) {
            begin_view(r, g, vs);
            vs->target_post_end = anchor(g, "target_post_processing", err);
            rill_rg_end_view(g);
            RILL_TRY(rill_rg_add_edge(g, tm[vi], vs->target_post_end, err));
        } else if (vi != main) {
            RILL_TRY(rill_rg_add_edge(g, tm[vi], f->fg.end_main_pass_post_processing, err));
        }
    }
    for (uint32_t vi = 0; vi < f->view_count; vi++) {
        rill__view *vs = &f->views[vi];
        begin_view(r, g, vs);
        vs->fx.fg.tonemapping = tm[vi];
        vs->fx.fg.end_main_pass_post_processing =
            vs->target_tex.id ? vs->target_post_end : f->fg.end_main_pass_post_processing;
        RILL_TRY(rill__effects_add_phase(r, g, vs, RILL_RENDER_PHASE_LDR_POST, err));
        RILL_TRY(rill__effects_add_phase(r, g, vs, RILL_RENDER_PHASE_OVERLAY, err));
        if (vs->target_tex.id) { /* in the view's scope: several cameras may draw to textures */
            RILL_TRY(add_target_copy(r, g, vs, err));
        }
        rill_rg_end_view(g);
    }
    f->ldr_color = f->composed ? f->fg.ldr : f->views[0].fx.ldr_color;
    return f->composed ? add_compose(f, g, err) : RILL_OK;
}

/* Imports the render textures the frame's views draw into (one image per texture, in its sampled
 * layout on entry and on exit). */
static void import_targets(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__frame *f = &r->frame;
    f->target_count = 0;
    for (uint32_t vi = 0; vi < f->target_views; vi++) {
        rill__view *vs = &f->views[vi];
        uint32_t k = 0;
        while (k < f->target_count && f->target_texs[k].id != vs->target_tex.id) {
            k++;
        }
        if (k == f->target_count) {
            char name[80];
            snprintf(name, sizeof(name), "target:%s", vs->view->target);
            const rill__img_desc *id = rill__img_get_desc(rill__texture_img(r, vs->target_tex));
            rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA8_SRGB,
                                    .size_mode = RILL_RG_SIZE_ABSOLUTE,
                                    .width = id->width,
                                    .height = id->height};
            f->target_texs[k] = vs->target_tex;
            f->targets[k] = rill_rg_import_image(g, name, &d, rill__texture_img(r, vs->target_tex),
                                                 RILL_RG_USAGE_SAMPLED_FRAGMENT,
                                                 RILL_RG_USAGE_SAMPLED_FRAGMENT, err);
            f->target_count++;
        }
        vs->target = f->targets[k];
    }
}

rill_result rill__frame_build_graph(rill_renderer *r, rill_error *err) {
    rill__frame *f = &r->frame;
    rill_rg *g = r->graph;
    rill_rg_reset(g);
    rill_rg_set_view_size(g, r->width, r->height);
    memset(&f->fg, 0, sizeof(f->fg));
    f->fg.graph = g;
    rill_rg_image_desc ld = {.format = RILL_RG_FORMAT_RGBA8_UNORM, .scale = 1.0f};
    f->fg.ldr = rill_rg_create_image(g, "ldr", &ld, err);
    import_targets(r, g, err);
    RILL_TRY(rill__sky_add_passes(r, g, err)); /* the tables the IBL's source may read */
    RILL_TRY(rill__ibl_add_passes(r, g, err));
    RILL_TRY(rill__probes_add_passes(r, g, err));
    RILL_TRY(rill__ocean_add_passes(r, g, err)); /* Water's simulation, once before the views */
    /* The per-view passes, in drawing order; view0 keeps those of the first view drawing to the
     * output (`main`) for the chain below. */
    uint32_t main = f->target_views < f->view_count ? f->target_views : 0;
    rill_rg_pass pass[6] = {{0}}, view0[6];
    for (uint32_t vi = 0; vi < f->view_count; vi++) {
        RILL_TRY(add_view(r, g, vi, pass, err));
        if (vi == main) {
            memcpy(view0, pass, sizeof(view0));
        }
    }
    f->fg.end_main_pass = anchor(g, RILL_RG_END_MAIN_PASS, err);
    if (f->view_count > 1) {
        RILL_TRY(rill_rg_add_edge(g, pass[5], f->fg.end_main_pass, err));
    }
    /* setup_graph sees the main view's images and the output's ldr. */
    rill__view *v0 = &f->views[main];
    f->fg.depth = v0->res.depth;
    f->fg.normal = v0->res.normal;
    f->fg.motion = v0->res.motion;
    f->fg.shadow_map = v0->res.shadow_map;
    f->fg.hdr = v0->res.hdr;
    f->fg.exposure = v0->fx.fg.exposure;
    for (uint32_t vi = 0; vi < f->view_count; vi++) {
        rill__view *vs = &f->views[vi];
        vs->fx.fg.end_main_pass = vs->target_tex.id ? vs->target_main_end : f->fg.end_main_pass;
    }
    RILL_TRY(add_views_post(r, g, main, err));
    RILL_TRY(rill__probes_add_capture_passes(r, g, err)); /* after the views that drew it */
    RILL_TRY(add_output(r, g, err));
    rill_rg_pass chain[] = {view0[3],
                            view0[4],
                            f->fg.end_main_pass,
                            f->fg.tonemapping,
                            f->fg.end_main_pass_post_processing,
                            f->fg.output};
    RILL_TRY(rill_rg_add_edges(g, chain, 6, err));
    if (r->desc.setup_graph) {
        RILL_TRY(r->desc.setup_graph(&f->fg, r->desc.setup_graph_user, err));
    }
    RILL_TRY(rill__overlay_add_pass(r, g, f->fg.output, err));
    return rill_rg_compile(g, err);
}
