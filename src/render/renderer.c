/* renderer.c: the public renderer object: creation and defaults, headless readback and PNG
 * output, and statistics. Meshes, textures and materials live in render_pools.c; the frame is
 * recorded by frame_render.c and the frame_*.c files beside it, and executed by exec.c. */
#include "debug_views.h"
#include "frame.h"
#include "gi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "rill/formats/image.h"

#define LOGM "render"

rill_renderer_desc rill_renderer_query_defaults(void) {
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = 1280;
    d.height = 720;
    d.frames_in_flight = 2;
    d.upload_budget_bytes = 32u << 20;
    d.quality = RILL_RENDER_QUALITY_MEDIUM;
    d.shadow_map_size = 0; /* the tier's (Medium: 1024), following rill_renderer_set_quality */
    d.shadow_cascades = 4;
    d.shadow_distance = 60.0f;
    d.render_thread = true; /* a zero desc's false cannot mean "default": only here */
    return d;
}

/* Shadow map size per cascade of a tier (NOTES: Low 512, Medium 1024, High 2048). */
static uint32_t tier_shadow_size(rill_render_quality q) {
    return q == RILL_RENDER_QUALITY_LOW ? 512u : q == RILL_RENDER_QUALITY_HIGH ? 2048u : 1024u;
}

static void desc_defaults(rill_renderer_desc *d) {
    rill_renderer_desc def = rill_renderer_query_defaults();
    if (!d->width || !d->height) {
        d->width = def.width;
        d->height = def.height;
    }
    if (!d->frames_in_flight) {
        d->frames_in_flight = def.frames_in_flight;
    }
    if (d->frames_in_flight > 3) {
        d->frames_in_flight = 3;
    }
    if (!d->upload_budget_bytes) {
        d->upload_budget_bytes = def.upload_budget_bytes;
    }
    if (d->quality == RILL_RENDER_QUALITY_DEFAULT ||
        (unsigned)d->quality >= RILL_RENDER_QUALITY_NUM) {
        d->quality = RILL_RENDER_QUALITY_MEDIUM;
    }
    if (!d->shadow_map_size) {
        d->shadow_map_size = tier_shadow_size(d->quality);
    }
    if (d->shadow_map_size > 8192) {
        d->shadow_map_size = 8192;
    }
    if (!d->shadow_cascades) {
        d->shadow_cascades = def.shadow_cascades;
    }
    if (d->shadow_cascades > RILL__MAX_CASCADES) {
        d->shadow_cascades = RILL__MAX_CASCADES;
    }
    if (!(d->shadow_distance > 0.0f)) {
        d->shadow_distance = def.shadow_distance;
    }
    d->probe_capture_faces = RILL_CLAMP(d->probe_capture_faces, 1u, 6u);
}

/* desc.backend, with DEFAULT resolved from RILL_RENDER_BACKEND ("vulkan" or "null"; unset or
 * empty = Vulkan). */
static rill_result resolve_backend(rill_renderer_desc *d, rill_error *err) {
    if ((unsigned)d->backend >= RILL_RENDER_BACKEND_NUM) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: rill_renderer_desc.backend %u is not a backend",
                              (unsigned)d->backend);
    }
    if (d->backend != RILL_RENDER_BACKEND_DEFAULT) {
        return RILL_OK;
    }
    const char *env = getenv("RILL_RENDER_BACKEND");
    if (!env || !*env || strcmp(env, "vulkan") == 0) {
        d->backend = RILL_RENDER_BACKEND_VULKAN;
    } else if (strcmp(env, "null") == 0) {
        d->backend = RILL_RENDER_BACKEND_NULL;
    } else {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: RILL_RENDER_BACKEND=%s: expected vulkan or null", env);
    }
    return RILL_OK;
}

static rill__img *solid_texture(rill_renderer *r, const uint8_t rgba[4], bool srgb,
                                const char *label, rill_error *err) {
    rill__img_desc d = {.width = 1,
                        .height = 1,
                        .layers = 1,
                        .mips = 1,
                        .format = srgb ? RILL_RG_FORMAT_RGBA8_SRGB : RILL_RG_FORMAT_RGBA8_UNORM,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_TRANSFER_DST,
                        .label = label};
    rill__img *img = rill__img_create(r->gpu, &d, err);
    if (img && rill__img_upload(r->gpu, img, rgba, 4, err) != RILL_OK) {
        rill__img_destroy(r->gpu, img);
        return NULL;
    }
    return img;
}

static rill_result create_readback(rill_renderer *r, rill_error *err) {
    for (uint32_t i = 0; i < r->desc.frames_in_flight; i++) {
        rill__buf_destroy(r->gpu, r->readback[i]);
        r->readback[i] = NULL;
        if (r->desc.glfw_window) {
            continue;
        }
        r->readback[i] = rill__buf_create(r->gpu, (uint64_t)r->width * r->height * 4,
                                          RILL__BUF_TRANSFER_DST, true, "readback", err);
        if (!r->readback[i]) {
            return err ? err->code : RILL_ERR_VULKAN;
        }
    }
    return RILL_OK;
}

/* The GPU layer's guard (rill__gpu_set_guard): its resource calls wait for the render thread's
 * frame in progress. */
static void guard_gpu(const void *user) {
    rill__rthread_guard(user);
}

static rill_result renderer_create(const rill_renderer_desc *desc, rill_renderer **out,
                                   rill_error *err) {
    rill_renderer *r = rill_calloc_tagged(1, sizeof(*r), RILL_MEM_RENDER);
    if (!r) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    if (desc) {
        r->desc = *desc;
    }
    r->shadow_size_auto = r->desc.shadow_map_size == 0;
    desc_defaults(&r->desc);
    rill_result res = resolve_backend(&r->desc, err);
    if (res != RILL_OK) {
        rill_free(r);
        return res;
    }
    r->width = r->desc.width;
    r->height = r->desc.height;
    r->display_scale = 1.0f;
    rill__gpu_desc gd;
    memset(&gd, 0, sizeof(gd));
    gd.backend = r->desc.backend;
    gd.app_name = "rill";
    gd.device_name = r->desc.device_name;
    gd.validation = r->desc.validation == 0 ? -1 : r->desc.validation > 0 ? 1 : 0;
    gd.sync_validation = r->desc.sync_validation;
    gd.frames_in_flight = r->desc.frames_in_flight;
    gd.upload_budget_bytes = r->desc.upload_budget_bytes;
    gd.pipeline_cache_path = r->desc.pipeline_cache_path;
    gd.glfw_window = r->desc.glfw_window;
    gd.vsync = r->desc.vsync;
    res = rill__gpu_create(&gd, &r->gpu, err);
    if (res != RILL_OK) {
        rill_free(r);
        return res;
    }
    if (r->desc.glfw_window) {
        rill__gpu_surface_size(r->gpu, &r->width, &r->height);
    }
    rill_renderer_set_render_scale(r, r->desc.render_scale);
    /* Once per launch (a renderer is made once per run): a hint, never an action. */
    if (rill__gpu_get_caps(r->gpu)->device_type == 1 &&
        r->desc.quality != RILL_RENDER_QUALITY_LOW) {
        snprintf(r->hint, sizeof(r->hint),
                 "%s is an integrated GPU: the Low quality tier may run faster",
                 rill__gpu_get_caps(r->gpu)->device_name);
        RILL_LOG_INFO(LOGM, "hint: %s", r->hint);
    }
    r->graph = rill_rg_create();
    if (!r->graph || rill__pools_create(r, err) != RILL_OK) {
        rill_renderer_destroy(r);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    static const uint8_t white[4] = {255, 255, 255, 255}, flat[4] = {128, 128, 255, 255};
    r->white = solid_texture(r, white, false, "default white", err);
    r->flat_normal = r->white ? solid_texture(r, flat, false, "default flat normal", err) : NULL;
    static const rill__vertex_extra no_extras = {{65535, 65535, 65535, 65535}, {0.0f, 0.0f}};
    r->default_extras = r->flat_normal
                            ? rill__buf_create(r->gpu, sizeof(no_extras), RILL__BUF_VERTEX, false,
                                               "default vertex extras", err)
                            : NULL;
    if (!r->default_extras ||
        rill__buf_upload(r->gpu, r->default_extras, 0, &no_extras, sizeof(no_extras), err) !=
            RILL_OK ||
        (res = rill__frame_create(r, err)) != RILL_OK ||
        (res = create_readback(r, err)) != RILL_OK) {
        rill_renderer_destroy(r);
        return err && err->code ? err->code : RILL_ERR_VULKAN;
    }
    if (r->desc.render_thread) {
        if ((res = rill__rthread_start(r, err)) != RILL_OK) {
            rill_renderer_destroy(r);
            return res;
        }
        rill__gpu_set_guard(r->gpu, guard_gpu, r);
    }
    *out = r;
    return RILL_OK;
}

rill_renderer *rill_renderer_create(const rill_renderer_desc *desc, rill_error *err) {
    rill_renderer *r = NULL;
    if (RILL_DESC_CHECK(desc, "rill_renderer_create", err) != RILL_OK ||
        renderer_create(desc, &r, err) != RILL_OK) {
        return NULL;
    }
    return r;
}

void rill_renderer_destroy(rill_renderer *r) {
    if (!r) {
        return;
    }
    rill__rthread_stop(r); /* finishes a frame in progress; the renderer is single-threaded after */
    if (r->gpu) {
        rill__gpu_set_guard(r->gpu, NULL, NULL);
        rill__gpu_wait_idle(r->gpu, NULL);
        rill__pools_destroy(r);
        for (uint32_t i = 0; i < 3; i++) {
            rill__buf_destroy(r->gpu, r->readback[i]);
        }
        rill__img_destroy(r->gpu, r->white);
        rill__img_destroy(r->gpu, r->flat_normal);
        rill__buf_destroy(r->gpu, r->default_extras);
        rill__transients_release_unused(r, true);
        rill__overlay_destroy(r);
        rill__debug_destroy(r);
        rill__frame_destroy(r);
        uint32_t vm = rill__gpu_validation_messages(r->gpu);
        if (vm) {
            RILL_LOG_WARN(LOGM, "renderer destroyed after %u validation messages", vm);
        }
        rill__gpu_destroy(r->gpu);
    }
    rill_array_free(&r->transients);
    rill_array_free(&r->slot_images);
    rill_array_free(&r->sort_tmp);
    rill_array_free(&r->cull_slices);
    rill_array_free(&r->cull_tracks);
    rill_array_free(&r->motion_prev);
    rill_array_free(&r->cluster_counts);
    rill_array_free(&r->light_ranges);
    rill_array_free(&r->light_d2);
    rill_array_free(&r->view_lights);
    rill_array_free(&r->prev_keys);
    rill_array_free(&r->prev_m);
    rill_array_free(&r->prev_remap);
    rill_array_free(&r->pos_slot);
    rill_map_free(&r->prev_index);
    rill_rg_destroy(r->graph);
    rill__pools_release(r);
    rill_free(r);
}

rill_result rill_renderer_resize(rill_renderer *r, uint32_t width, uint32_t height,
                                 rill_error *err) {
    if (!r || !width || !height || width > 16384 || height > 16384) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: bad size %ux%u", width,
                              height);
    }
    if (r->desc.glfw_window) {
        return RILL_OK;
    }
    rill__rthread_guard(r);
    rill_result res = rill__gpu_wait_idle(r->gpu, err);
    if (res != RILL_OK) {
        return res;
    }
    r->width = width;
    r->height = height;
    r->have_frame = false;
    return create_readback(r, err);
}

void rill__renderer_apply_scale(rill_renderer *r) {
    float ds = 1.0f;
    if (r->desc.glfw_window) {
        float sx = 1.0f, sy = 1.0f;
        glfwGetWindowContentScale((GLFWwindow *)r->desc.glfw_window, &sx, &sy);
        ds = sx > sy ? sx : sy;
        ds = ds >= 1.0f && ds <= 8.0f ? ds : 1.0f;
    }
    r->display_scale = ds;
    /* A fraction of the logical window is req / ds of the physical output; never above it. */
    float s = r->render_scale_req / ds;
    r->render_scale = s < 1.0f ? s : 1.0f;
}

void rill_renderer_set_render_scale(rill_renderer *r, float scale) {
    if (!r) {
        return;
    }
    rill__rthread_guard(r);
    if (!(scale > 0.0f)) { /* 0 and NaN mean the default */
        scale = 1.0f;
    }
    r->render_scale_req = RILL_CLAMP(scale, 0.1f, 2.0f);
    rill__renderer_apply_scale(r);
}

static uint32_t tier_shadow_size_of(const rill_renderer *r, rill_render_quality q) {
    return r->shadow_size_auto ? tier_shadow_size(q) : r->desc.shadow_map_size;
}

void rill_renderer_set_quality(rill_renderer *r, rill_render_quality quality) {
    if (!r) {
        return;
    }
    rill__rthread_guard(r);
    if (quality == RILL_RENDER_QUALITY_DEFAULT || (unsigned)quality >= RILL_RENDER_QUALITY_NUM) {
        quality = RILL_RENDER_QUALITY_MEDIUM;
    }
    r->desc.shadow_map_size = tier_shadow_size_of(r, quality);
    r->desc.quality = quality;
    if (quality == RILL_RENDER_QUALITY_LOW) {
        r->hint[0] = 0; /* acted on: the condition is gone */
    }
}

void rill_renderer_set_vsync(rill_renderer *r, bool vsync) {
    if (r) {
        rill__rthread_guard(r);
        r->desc.vsync = vsync;
        rill__gpu_set_vsync(r->gpu, vsync);
    }
}

void rill_renderer_get_settings(const rill_renderer *r, rill_renderer_settings *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    if (!r) {
        return;
    }
    rill__rthread_guard(r);
    out->quality = r->desc.quality;
    out->shadow_map_size = r->desc.shadow_map_size;
    out->render_scale = r->render_scale_req;
    out->display_scale = r->display_scale;
    out->render_scale_applied = r->render_scale;
    out->width = r->width;
    out->height = r->height;
    out->width_3d = (uint32_t)((float)r->width * r->render_scale + 0.5f);
    out->height_3d = (uint32_t)((float)r->height * r->render_scale + 0.5f);
    out->vsync = r->desc.vsync;
    out->present_mode = rill__gpu_present_mode(r->gpu);
    out->integrated_gpu = rill__gpu_get_caps(r->gpu)->device_type == 1;
    out->hint = r->hint;
    out->render_thread = r->rthread != NULL;
    out->upload_budget_bytes = r->desc.upload_budget_bytes;
}

void rill_renderer_set_debug_flags(rill_renderer *r, uint32_t flags) {
    if (r) {
        rill__rthread_guard(r);
        r->desc.debug_flags = flags;
    }
}

void rill_renderer_size(const rill_renderer *r, uint32_t *out_w, uint32_t *out_h) {
    rill__rthread_guard(r);
    *out_w = r ? r->width : 0;
    *out_h = r ? r->height : 0;
}

rill_result rill_renderer_wait_idle(rill_renderer *r, rill_error *err) {
    if (!r) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL renderer");
    }
    rill_result res = rill_renderer_sync(r, err);
    return res != RILL_OK ? res : rill__gpu_wait_idle(r->gpu, err);
}

/* >>frames ---------------------------------------------------------------------------------- */

rill_result rill_renderer_render(rill_renderer *r, const rill_render_snapshot *snap,
                                 rill_error *err) {
    if (!r || !snap) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL renderer or snapshot");
    }
    if (snap->instance_count && !snap->instances) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: instance_count without instances");
    }
    if (snap->range_count && !snap->ranges) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: range_count without ranges");
    }
    if (snap->light_count && !snap->lights) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: light_count without lights");
    }
    if (!r->rthread) {
        return rill__frame_render(r, snap, err);
    }
    rill_result res = rill_renderer_sync(r, NULL); /* a failure is taken by the submit below */
    if (res == RILL_OK && r->desc.glfw_window) {
        /* GLFW answers these on its own thread only: read here, used by the render thread. */
        int fw = 0, fh = 0;
        glfwGetFramebufferSize((GLFWwindow *)r->desc.glfw_window, &fw, &fh);
        rill__gpu_set_framebuffer_size(r->gpu, fw, fh);
        rill__renderer_apply_scale(r);
    }
    return rill__rthread_submit(r, snap, err);
}

rill_result rill_renderer_read_pixels(rill_renderer *r, uint8_t *dst, size_t dst_size,
                                      rill_error *err) {
    if (!r || !dst) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL argument");
    }
    if (r->desc.glfw_window) {
        return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                              "render: read_pixels needs a headless renderer");
    }
    size_t need = (size_t)r->width * r->height * 4;
    if (dst_size < need) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: read_pixels needs %zu bytes",
                              need);
    }
    rill_result res = rill_renderer_sync(r, err);
    if (res != RILL_OK) {
        return res;
    }
    if (!r->have_frame) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND,
                              "render: no frame rendered at this size yet");
    }
    res = rill__gpu_wait_idle(r->gpu, err);
    if (res != RILL_OK) {
        return res;
    }
    memcpy(dst, rill__buf_map(r->readback[r->readback_slot]), need);
    return RILL_OK;
}

rill_result rill_renderer_write_png(rill_renderer *r, const char *path, rill_error *err) {
    if (!r || !path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL argument");
    }
    size_t n = (size_t)r->width * r->height * 4;
    uint8_t *px = rill_malloc_tagged(n, RILL_MEM_RENDER);
    if (!px) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    rill_result res = rill_renderer_read_pixels(r, px, n, err);
    if (res == RILL_OK) {
        res = rill_image_write_png(path, px, r->width, r->height, 4, err);
    }
    rill_free(px);
    return res;
}

void rill_renderer_stats(const rill_renderer *r, rill_render_stats *out) {
    memset(out, 0, sizeof(*out));
    if (!r) {
        return;
    }
    if (r->rthread && !rill__rthread_here()) {
        rill__rthread_stats(r, out);
        return;
    }
    rill__renderer_fill_stats(r, out);
}

void rill__renderer_fill_gpu_timings(const rill_renderer *r, rill_render_stats *out) {
    const char *const *names;
    const double *ms;
    uint32_t n = rill__gpu_timings(r->gpu, &names, &ms);
    out->pass_count = RILL_MIN(n, (uint32_t)RILL_RENDER_MAX_PASS_TIMINGS);
    out->ssr_gpu_ms = 0.0;
    out->probe_bake_gpu_ms = 0.0;
    for (uint32_t i = 0; i < out->pass_count; i++) {
        const char *label = names[i];
        double t = ms[i];
        out->pass_names[i] = label;
        out->pass_gpu_ms[i] = t;
        out->ssr_gpu_ms += label && strncmp(label, "ssr_", 4) == 0 ? t : 0.0;
        out->probe_bake_gpu_ms += label && strncmp(label, "probe.", 6) == 0 ? t : 0.0;
    }
    out->gi_ms = rill__gi_gpu_ms(out);
}

void rill__renderer_fill_stats(const rill_renderer *r, rill_render_stats *out) {
    memset(out, 0, sizeof(*out));
    const rill__gpu_caps *caps = rill__gpu_get_caps(r->gpu);
    out->frame_index = rill__gpu_frame_index(r->gpu);
    out->cpu_record_ms = r->cpu_record_ms;
    out->cpu_wait_ms = r->cpu_wait_ms;
    out->cpu_setup_ms = r->cpu_phase_ms[RILL__CPU_SETUP];
    out->cpu_cull_ms = r->cpu_phase_ms[RILL__CPU_CULL];
    out->cpu_sort_ms = r->cpu_phase_ms[RILL__CPU_SORT];
    out->cpu_upload_ms = r->cpu_phase_ms[RILL__CPU_UPLOAD];
    out->cpu_graph_ms = r->cpu_phase_ms[RILL__CPU_GRAPH];
    out->cpu_commands_ms = r->cpu_phase_ms[RILL__CPU_COMMANDS];
    out->cpu_submit_ms = r->cpu_phase_ms[RILL__CPU_SUBMIT];
    out->cpu_create_ms = r->cpu_create_ms;
    out->gpu_objects_created = r->gpu_objects_created;
    rill__renderer_fill_gpu_timings(r, out);
    out->pass_cpu_count = r->pass_cpu_count;
    memcpy(out->pass_cpu_names, r->pass_cpu_names, sizeof(out->pass_cpu_names));
    memcpy(out->pass_cpu_ms, r->pass_cpu_ms, sizeof(out->pass_cpu_ms));
    out->instances_submitted = r->instances_submitted;
    out->instances_visible = r->instances_visible;
    out->instances_occluded = r->instances_occluded;
    rill__gpu_cull_stats gc;
    rill__gpu_cull_info(r, &gc);
    out->gpu_cull_resident = gc.active ? gc.resident : 0u;
    out->gpu_cull_spawned = gc.active ? gc.spawned : 0u;
    out->gpu_cull_scan_ms = gc.active ? gc.scan_ms : 0.0;
    out->gpu_cull_deltas = gc.active ? gc.deltas : 0u;
    out->gpu_cull_unchanged = gc.active ? gc.quiet : 0u;
    out->draw_calls = r->draw_calls;
    out->wire_edge_draws = r->edge_draws;
    out->wire_fill_draws = r->fill_wire_draws;
    out->ghost_alpha_draws = r->ghost_alpha_draws;
    rill__ibl_stats(r, &out->ibl_bakes, &out->ibl_steps, &out->ibl_face_size);
    rill__gi_stats(r, out);
    rill__probes_stats(r, &out->probes_shaded, &out->probe_bakes, &out->probes_failed,
                       &out->probes_waiting);
    out->triangles = r->triangles;
    out->texture_bytes = rill__texture_bytes(r);
    out->light_cluster_refs = r->light_cluster_refs;
    out->validation_messages = rill__gpu_validation_messages(r->gpu);
    out->uploaded_bytes_last_frame = rill__gpu_uploaded_last_frame(r->gpu);
    rill__upload_figures uf;
    rill__gpu_upload_figures(r->gpu, &uf);
    out->uploads_last_frame = uf.uploads;
    out->upload_backlog_bytes = uf.backlog_bytes;
    rill__gpu_mem_stats ms2;
    rill__gpu_mem_stats_get(r->gpu, &ms2);
    out->gpu_memory_blocks = ms2.blocks;
    out->gpu_memory_block_bytes = ms2.block_bytes;
    out->gpu_memory_used_bytes = ms2.used_bytes;
    memcpy(out->device_name, caps->device_name, sizeof(out->device_name));
    out->fill_mode_non_solid = caps->fill_mode_non_solid;
    out->multi_draw_indirect = caps->multi_draw_indirect;
    out->validation = caps->validation;
}

void rill_renderer_dump_graph(const rill_renderer *r, rill_strbuf *sb) {
    if (r) {
        rill__rthread_guard(r);
        rill_rg_dump(r->graph, sb);
    }
}
