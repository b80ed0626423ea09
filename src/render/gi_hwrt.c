/* gi_hwrt.c: the Hwrt global illumination tier (hardware ray tracing with ray queries), in the
 * "gi" effect (gi.c) in place of the voxel cone trace. Once a frame (the first camera that runs
 * it): every snapshot instance drawn whole with a rigid mesh gets that mesh's BLAS, made from the
 * renderer's mesh buffers the first time the mesh is seen (under the limits of gi_hwrt.h: a
 * triangle cap per mesh, a memory budget for all of them, a per-frame build budget), kept while
 * the mesh lives and destroyed once its handle goes stale; the instances go into one TLAS rebuilt
 * every frame ("hwrt_build": the new BLAS builds, then the TLAS), with a record per instance (its
 * material's albedo and emissive, where its triangles are). Per camera, "hwrt_trace"
 * (gi_hwrt_trace.comp, half resolution) traces SdfHigh's budget of 4 cosine-distributed diffuse
 * rays (plus one specular ray along the reflection) and writes what the voxel trace writes, so
 * the shared temporal and apply passes composite it. Where the device cannot trace rays (no
 * VK_KHR_acceleration_structure + VK_KHR_ray_query, the null backend, RILL_NO_RAY_QUERY=1) the
 * tier falls back to SdfHigh (gi_settings.c says so once). Skinned and morphing meshes (their
 * vertices change every frame) and meshes without triangles stay out of the traced scene. */
#include "gi_hwrt.h"
#include "frame.h"
#include "gi_internal.h"
#include "render_shaders.h"

#include <string.h>

#define HWRT_RAYS 4u             /* diffuse rays per half-resolution pixel (SdfHigh's 4 cones) */
#define HWRT_MAX_DISTANCE 100.0f /* metres a ray reaches; beyond, the sky */
#define HWRT_SWEEP 512u          /* BLAS slots checked for a stale mesh each frame */
#define HWRT_MAX_PENDING 256u    /* BLAS builds recorded a frame, at most */

/* One mesh's BLAS, by the mesh's pool slot. */
typedef struct hwrt_blas {
    rill__accel *blas;
    uint32_t mesh_id; /* the handle it was made for (another in the slot: stale) */
    uint64_t bytes;   /* structure + build scratch, as the device said */
    bool refused;     /* over a limit: not retried while this mesh lives */
} hwrt_blas;

typedef struct hwrt_pending {
    rill__accel *blas;
    rill__blas_geom geom;
} hwrt_pending;

struct rill__hwrt {
    hwrt_blas *slots; /* one per mesh pool slot */
    uint32_t slot_count, sweep;
    uint64_t bytes;      /* held by the BLASes */
    uint32_t blas_count; /* live BLASes */
    rill__accel *tlas;
    rill__pipe *pipe;
    /* this frame's */
    uint64_t frame;
    rill_rg_pass build_pass;
    rill__accel_instance *inst;
    rill__hwrt_record *rec;
    uint32_t count;
    hwrt_pending pending[HWRT_MAX_PENDING];
    uint32_t pending_count, built_triangles;
    rill__buf *rec_buf; /* the records in the frame's scratch (set by the build pass) */
    uint64_t rec_off, rec_size;
    uint32_t dropped, refused; /* instances left out this frame: over the TLAS, over a limit */
    bool failed;               /* a build failed: the TLAS goes empty this frame */
    bool logged;
};

/* >>availability ------------------------------------------------------------------------------ */

const char *rill__hwrt_unavailable(const rill_renderer *r) {
    const rill__gpu_caps *caps = rill__gpu_get_caps(r->gpu);
    if (!caps->ray_query) {
        return caps->ray_query_note;
    }
    if (r->hwrt && r->hwrt->failed && !r->hwrt->pipe) {
        return "its pipeline or structures could not be made (see the log)";
    }
    return NULL;
}

/* >>lifetime ---------------------------------------------------------------------------------- */

static void release_slot(rill_renderer *r, rill__hwrt *hw, hwrt_blas *s) {
    if (s->blas) {
        rill__accel_destroy(r->gpu, s->blas);
        hw->bytes -= RILL_MIN(hw->bytes, s->bytes);
        hw->blas_count--;
    }
    memset(s, 0, sizeof(*s));
}

void rill__hwrt_destroy(rill_renderer *r) {
    rill__hwrt *hw = r->hwrt;
    if (!hw) {
        return;
    }
    for (uint32_t i = 0; hw->slots && i < hw->slot_count; i++) {
        release_slot(r, hw, &hw->slots[i]);
    }
    rill__accel_destroy(r->gpu, hw->tlas);
    rill__pipe_destroy(r->gpu, hw->pipe);
    rill_free(hw->slots);
    rill_free(hw->inst);
    rill_free(hw->rec);
    rill_free(hw);
    r->hwrt = NULL;
}

static const rill__set_layout trace_set = {{
    RILL__BIND_UNIFORM,       /* 0 frame */
    RILL__BIND_TEXTURE,       /* 1 depth */
    RILL__BIND_STORAGE,       /* 2 lights */
    RILL__BIND_TEXTURE,       /* 3 sky irradiance (harmonics) */
    RILL__BIND_TEXTURE,       /* 4 normal + packed material */
    RILL__BIND_ACCEL,         /* 5 TLAS */
    RILL__BIND_STORAGE,       /* 6 records */
    RILL__BIND_STORAGE_IMAGE, /* 7 diffuse out */
    RILL__BIND_STORAGE_IMAGE, /* 8 specular out */
}};

typedef struct hwrt_push {
    uint32_t fw, fh, hw, hh, rays, frame_index, spec;
    float max_distance;
} hwrt_push;

/* The state with its pipeline, TLAS and CPU arrays (once); NULL (logged) when they cannot be
 * made, and then not tried again. */
static rill__hwrt *hwrt_get(rill_renderer *r, rill_error *err) {
    if (r->hwrt) {
        return r->hwrt->pipe ? r->hwrt : NULL;
    }
    rill__hwrt *hw = rill_calloc_tagged(1, sizeof(*hw), RILL_MEM_RENDER);
    if (!hw) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (gi_hwrt)");
        return NULL;
    }
    r->hwrt = hw;
    hw->slot_count = r->mesh_pool.capacity;
    hw->slots = rill_calloc_tagged(hw->slot_count, sizeof(*hw->slots), RILL_MEM_RENDER);
    hw->inst = rill_malloc_tagged(sizeof(*hw->inst) * RILL__HWRT_MAX_INSTANCES, RILL_MEM_RENDER);
    hw->rec = rill_malloc_tagged(sizeof(*hw->rec) * RILL__HWRT_MAX_INSTANCES, RILL_MEM_RENDER);
    rill_error e = {0};
    rill__accel_sizes ts = {0};
    if (hw->slots && hw->inst && hw->rec) {
        hw->tlas = rill__tlas_create(r->gpu, RILL__HWRT_MAX_INSTANCES, "hwrt tlas", &ts, &e);
    } else {
        rill_error_set(&e, RILL_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (hw->tlas) {
        rill__pipe_desc pd = {.label = "hwrt trace",
                              .cs = rill__spv_gi_hwrt_trace_comp,
                              .cs_size = rill__spv_gi_hwrt_trace_comp_size,
                              .sets = {trace_set},
                              .set_count = 1,
                              .push_size = sizeof(hwrt_push)};
        hw->pipe = rill__pipe_create(r->gpu, &pd, &e);
    }
    if (!hw->pipe) {
        hw->failed = true;
        RILL_LOG_WARN("render", "gi_hwrt.c: the Hwrt GI tier cannot run: %s", e.msg);
        return NULL;
    }
    RILL_LOG_INFO("render",
                  "gi_hwrt: TLAS for up to %u instances (%.1f MiB + %.1f MiB scratch), BLAS "
                  "budget %.0f MiB",
                  RILL__HWRT_MAX_INSTANCES, (double)ts.structure / 1048576.0,
                  (double)ts.scratch / 1048576.0, (double)RILL__HWRT_BLAS_BUDGET_BYTES / 1048576.0);
    return hw;
}

/* >>the frame's instances ---------------------------------------------------------------------- */

/* Destroys the BLASes of a few slots whose mesh is gone (a slice a frame). */
static void sweep_stale(rill_renderer *r, rill__hwrt *hw) {
    for (uint32_t k = 0; k < HWRT_SWEEP && hw->slot_count; k++) {
        hwrt_blas *s = &hw->slots[hw->sweep];
        hw->sweep = (hw->sweep + 1) % hw->slot_count;
        if ((s->blas || s->refused) && !rill_pool_valid(&r->mesh_pool, s->mesh_id)) {
            release_slot(r, hw, s);
        }
    }
}

static rill__blas_geom geom_of(const mesh_slot *m) {
    rill__blas_geom g = {.vertices = m->vb,
                         .indices = m->ib,
                         .vertex_stride = (uint32_t)sizeof(rill_vertex),
                         .max_vertex = (uint32_t)RILL_MAX(m->vertex_offset, 0) + m->max_index,
                         .first_index = m->first_index,
                         .index_count = m->index_count / 3u * 3u,
                         .vertex_offset = m->vertex_offset};
    return g;
}

/* The BLAS of mesh m (handle id) in its slot: made now when the limits allow (its build queued
 * for this frame's build pass), NULL when it has none (yet). */
static rill__accel *blas_for(rill_renderer *r, rill__hwrt *hw, uint32_t id, const mesh_slot *m) {
    int32_t i = rill_pool_index(&r->mesh_pool, id);
    if (i < 0 || (uint32_t)i >= hw->slot_count) {
        return NULL;
    }
    hwrt_blas *s = &hw->slots[i];
    if (s->mesh_id != id) {
        release_slot(r, hw, s); /* the slot's last mesh is gone */
        s->mesh_id = id;
    }
    if (s->blas || s->refused) {
        return s->blas;
    }
    rill__blas_geom g = geom_of(m);
    rill__hwrt_verdict v =
        rill__hwrt_blas_verdict(g.index_count / 3u, hw->bytes, RILL__HWRT_BLAS_BUDGET_BYTES,
                                hw->built_triangles, RILL__HWRT_BUILD_TRIANGLES_PER_FRAME);
    if (v == RILL__HWRT_DEFER || hw->pending_count == HWRT_MAX_PENDING) {
        return NULL;
    }
    if (v != RILL__HWRT_BUILD) {
        s->refused = true;
        return NULL;
    }
    rill_error err = {0};
    rill__accel_sizes sz = {0};
    s->blas = rill__blas_create(r->gpu, &g, "hwrt blas", &sz, &err);
    if (!s->blas) {
        RILL_LOG_WARN("render", "gi_hwrt.c: mesh %u gets no BLAS: %s", id, err.msg);
        s->refused = true;
        return NULL;
    }
    s->bytes = sz.structure + sz.scratch;
    hw->bytes += s->bytes;
    hw->blas_count++;
    hw->built_triangles += g.index_count / 3u;
    hw->pending[hw->pending_count++] = (hwrt_pending){s->blas, g};
    return s->blas;
}

/* The record a hit on instance `in` of mesh m reads. */
static void record_of(const rill_renderer *r, const rill_render_instance *in, const mesh_slot *m,
                      rill__hwrt_record *out) {
    memset(out, 0, sizeof(*out));
    const mat_slot *mat = rill__material_get(r, in->material);
    float tint[3] = {1.0f, 1.0f, 1.0f}; /* the base-colour texture's mean colour */
    if (mat) {
        rill__texture_gi_tint(r, mat->gi_texture, tint);
    }
    for (int k = 0; k < 3; k++) {
        out->albedo[k] = mat ? mat->gi_albedo[k] * tint[k] : 0.8f;
        out->emissive[k] = mat ? mat->gi_emissive[k] : 0.0f;
    }
    uint64_t vb = rill__buf_address(m->vb), ib = rill__buf_address(m->ib);
    out->vb[0] = (uint32_t)vb, out->vb[1] = (uint32_t)(vb >> 32);
    out->ib[0] = (uint32_t)ib, out->ib[1] = (uint32_t)(ib >> 32);
    out->first_index = m->first_index;
    out->vertex_offset = m->vertex_offset;
    out->stride_floats = (uint32_t)(sizeof(rill_vertex) / sizeof(float));
}

/* This frame's instances and records from the snapshot. */
static void gather(rill_renderer *r, rill__hwrt *hw, const rill_render_snapshot *snap) {
    hw->count = hw->pending_count = hw->built_triangles = hw->dropped = hw->refused = 0;
    hw->failed = false;
    for (uint32_t i = 0; snap && i < snap->instance_count; i++) {
        const rill_render_instance *in = &snap->instances[i];
        if (in->mode != 0 || in->range_count != 0 || in->lod_fade < 0.0f) {
            continue; /* ghosts, wireframes, partial draws, outgoing LOD levels */
        }
        const mesh_slot *m = rill__mesh_get(r, in->mesh);
        if (!m || m->rewritten || m->sb || m->morph_targets || m->index_count < 3) {
            continue;
        }
        rill__accel *blas = blas_for(r, hw, in->mesh.id, m);
        if (!blas) {
            hw->refused++;
            continue;
        }
        if (hw->count == RILL__HWRT_MAX_INSTANCES) {
            hw->dropped++;
            continue;
        }
        if (rill__hwrt_pack_instance(in->transform, hw->count, rill__accel_address(blas),
                                     &hw->inst[hw->count])) {
            record_of(r, in, m, &hw->rec[hw->count]);
            hw->count++;
        }
    }
}

/* >>passes ------------------------------------------------------------------------------------ */

static void pass_build(rill_rg_ctx *ctx, void *user) {
    rill__hwrt *hw = user;
    for (uint32_t i = 0; i < hw->pending_count; i++) {
        rill_error err = {0};
        if (rill__cmd_build_blas(ctx->cmd, hw->pending[i].blas, &hw->pending[i].geom, &err) !=
            RILL_OK) {
            RILL_LOG_WARN("render", "gi_hwrt.c: a BLAS build failed: %s", err.msg);
            hw->failed = true; /* its instances would read an unbuilt BLAS */
        }
    }
    uint32_t n = hw->failed ? 0u : hw->count;
    rill__cmd_build_tlas(ctx->cmd, hw->tlas, hw->inst, n);
    uint64_t bytes = sizeof(rill__hwrt_record) * (uint64_t)RILL_MAX(n, 1u);
    void *dst = rill__frame_alloc(ctx->cmd, bytes, 256, &hw->rec_buf, &hw->rec_off);
    if (!dst) {
        RILL_LOG_WARN("render", "gi_hwrt.c: the frame arena is full: no records this frame");
        hw->rec_buf = NULL;
        return;
    }
    memset(dst, 0, (size_t)bytes);
    memcpy(dst, hw->rec, sizeof(rill__hwrt_record) * (size_t)n);
    hw->rec_size = bytes;
}

rill__hwrt *rill__gi_hwrt_prepare(rill_renderer *r, const rill__view *vs, rill_rg *g,
                                  rill_error *err) {
    rill__hwrt *hw = hwrt_get(r, err);
    if (!hw) {
        return NULL;
    }
    if (hw->frame == r->frame_counter && hw->build_pass.id) {
        return hw; /* another camera already did */
    }
    hw->frame = r->frame_counter;
    sweep_stale(r, hw);
    gather(r, hw, vs->snap);
    rill_rg_pass_desc pd = {
        .label = "hwrt_build", .exec = pass_build, .user = hw, .side_effect = true};
    hw->build_pass = rill_rg_add_pass(g, &pd, err);
    if (!hw->logged || hw->pending_count) {
        RILL_LOG_DEBUG("render",
                       "gi_hwrt: %u BLAS (%u new, %.1f MiB), TLAS %u instances (%u without a "
                       "BLAS, %u over the TLAS)",
                       hw->blas_count, hw->pending_count, (double)hw->bytes / 1048576.0, hw->count,
                       hw->refused, hw->dropped);
    }
    if (!hw->logged && hw->count) {
        hw->logged = true;
        RILL_LOG_INFO("render", "gi_hwrt: first TLAS: %u instances over %u BLAS (%.1f MiB)",
                      hw->count, hw->blas_count, (double)hw->bytes / 1048576.0);
    }
    return hw->build_pass.id ? hw : NULL;
}

static void pass_trace(rill_rg_ctx *ctx, void *user) {
    const rill__gi *gi = user;
    rill__hwrt *hw = ctx->r->hwrt;
    if (!hw || !hw->rec_buf) {
        return; /* logged by the build pass */
    }
    rill__gi_trace_io io;
    rill__gi_trace_io_get(ctx, gi, &io);
    rill__cmd_bind_pipe(ctx->cmd, hw->pipe);
    rill__binding b[9];
    memset(b, 0, sizeof(b));
    b[0] = io.frame;
    b[1] = io.depth;
    b[2] = (rill__binding){
        .buf = gi->view->light_buf, .offset = gi->view->light_off, .range = gi->view->light_size};
    b[3] = io.sky;
    b[4] = io.normal;
    b[5] = (rill__binding){.accel = hw->tlas};
    b[6] = (rill__binding){.buf = hw->rec_buf, .offset = hw->rec_off, .range = hw->rec_size};
    b[7] = io.raw;
    b[8] = io.spec;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 9);
    hwrt_push push = {io.full[0],
                      io.full[1],
                      io.half[0],
                      io.half[1],
                      HWRT_RAYS,
                      gi->frame_index,
                      gi->cur.specular_intensity > 0.0f ? 1u : 0u,
                      HWRT_MAX_DISTANCE};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__gi_trace_dispatch(ctx, &io);
}

rill_result rill__gi_add_hwrt_trace(rill_render_effect_ctx *ctx, rill__gi *gi, rill__hwrt *hw,
                                    rill_error *err) {
    rill_rg_pass p;
    RILL_TRY(rill__gi_add_trace_pass(ctx, gi, "hwrt_trace", pass_trace, &p, err));
    return rill_rg_add_edge(ctx->graph, hw->build_pass, p, err);
}
