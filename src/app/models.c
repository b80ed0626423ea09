/* models.c: rill_app_enable_models (rill/app.h): the scene module's model system (Model ->
 * spawned entities, rill/scene/model.h) run in post_update, and the renderer's asset cache
 * (ModelMesh -> GPU uploads, rill_render_assets in rill/render.h) updated in the extract stage. */
#include <string.h>

#include "rill/app.h"
#include "rill/scene/anim.h"
#include "rill/scene/model.h"

#if RILL_APP_HAS_RENDER
#include "rill/render.h"

struct rill_app_models {
    rill_app *app;
    rill_scene_models *scene;
    rill_scene_anim *anim; /* AnimationPlayer components, sampled after the spawns */
    rill_render_assets *gpu;
    rill_system spawn_system, upload_system, lod_system;
    rill_lod_system *lod;
    bool share_budget; /* no spawn budget of its own: spawns take what the scene loader left */
};

/* New trees spawn at the level the LOD system will show, measured from the camera it measures
 * from (where that camera was at the last transform propagation). */
static void spawn_camera(rill_app_models *m) {
    float cam[3];
    bool has = rill_lod_camera(rill_app_world(m->app), rill_app_get_run_mode(m->app), cam) != 0;
    rill_lod_system_set_spawn_camera(m->lod, has ? cam : NULL);
}

/* Tree spawns, dropped trees' despawns and file releases share the frame's streaming budget with
 * the scene loader (a frame that spent it on loading spawns one tree and retires one), unless the
 * desc gave them their own budget or the app runs deterministic (its budgets count a step clock,
 * not the loader's real time). The update is streaming work: noted in the frame's ledger, so the
 * stream update after it and the next frame's loader get that much less. */
static void sys_spawn(rill_app *app, void *user) {
    rill_app_models *m = user;
    if (m->share_budget) {
        rill_scene_models_set_spawn_budget(m->scene, rill_app_streaming_budget_left_ns(app));
    }
    spawn_camera(m);
    uint64_t t0 = rill_time_ns();
    rill_scene_models_update(m->scene);
    rill_app_add_streaming_ns(app, rill_time_ns() - t0);
    if (m->share_budget) { /* a tree that did not fit gets room in the next frame */
        rill_app_reserve_streaming_ns(app, rill_scene_models_deferred_ns(m->scene));
    }
    /* Animated nodes get their Transforms before this frame's propagation, trees spawned this
     * frame included. */
    rill_scene_anim_update(m->anim, (float)rill_app_get_time(app)->dt);
}

/* Detail bands after transforms (the camera and the models at this frame's positions). */
static void sys_lod(rill_app *app, void *user) {
    rill_app_models *m = user;
    float cam[3];
    bool has = rill_lod_camera(rill_app_world(app), rill_app_get_run_mode(app), cam) != 0;
    rill_lod_system_update(m->lod, has ? cam : NULL);
}

/* The texture streaming's update is streaming work: noted against the next frame's budget. */
static void sys_upload(rill_app *app, void *user) {
    rill_app_models *m = user;
    rill_render_assets_set_time(m->gpu, rill_app_get_time(app)->real_elapsed);
    rill_render_assets_update(m->gpu);
    rill_render_texture_streaming_stats tx;
    rill_render_assets_get_texture_streaming_stats(m->gpu, &tx);
    rill_app_add_streaming_ns(app, tx.update_ns_last);
}

rill_app_models *rill_app_enable_models(rill_app *app, rill_renderer *renderer,
                                        const rill_app_models_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_app_enable_models", err) != RILL_OK) {
        return NULL;
    }
    if (!app || !renderer) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_app_enable_models: NULL app or renderer");
        return NULL;
    }
    rill_app_models *m = rill_calloc_tagged(1, sizeof(*m), RILL_MEM_APP);
    if (!m) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_enable_models: out of memory");
        return NULL;
    }
    m->app = app;
    m->share_budget =
        !(desc && desc->spawn_budget_ns) && !rill_jobs_is_deterministic(rill_app_jobs(app));
    uint32_t delay = desc ? desc->release_delay_frames : 0;
    rill_world *w = rill_app_world(app);
    m->scene = rill_scene_models_create(
        &(rill_scene_models_desc){.world = w,
                                  .assets = rill_app_assets(app),
                                  .release_delay_frames = delay,
                                  .spawn_budget_ns = desc ? desc->spawn_budget_ns : 0,
                                  .clock = rill_app_clock(app)},
        err);
    if (m->scene) {
        rill_scene_models_set_spawn_defer(m->scene, m->share_budget);
        m->anim = rill_scene_anim_create(
            &(rill_scene_anim_desc){.world = w, .models = m->scene, .jobs = rill_app_jobs(app)},
            err);
    }
    rill_texstream_settings ts = rill_app_texture_streaming_settings(rill_app_project(app));
    if (m->anim) {
        m->gpu =
            rill_render_assets_create(&(rill_render_assets_desc){.renderer = renderer,
                                                                 .assets = rill_app_assets(app),
                                                                 .world = w,
                                                                 .release_delay_frames = delay,
                                                                 .texture_streaming = &ts},
                                      err);
    }
    /* Spawning runs before the built-in transform propagation of post_update: trees spawned this
     * frame get their GlobalTransforms in this frame. */
    if (m->gpu) {
        m->spawn_system =
            rill_app_add_system(app, &(rill_system_desc){.name = "rill.models",
                                                         .stage = RILL_STAGE_POST_UPDATE,
                                                         .order = RILL_SYSTEM_ORDER_BUILTIN - 1,
                                                         .fn = sys_spawn,
                                                         .user = m});
        m->upload_system =
            rill_app_add_system(app, &(rill_system_desc){.name = "rill.model_uploads",
                                                         .stage = RILL_STAGE_EXTRACT,
                                                         .order = RILL_SYSTEM_ORDER_BUILTIN - 1,
                                                         .fn = sys_upload,
                                                         .user = m});
        m->lod = rill_lod_system_create(w, m->scene);
        m->lod_system =
            rill_app_add_system(app, &(rill_system_desc){.name = "rill.lod",
                                                         .stage = RILL_STAGE_POST_UPDATE,
                                                         .order = RILL_SYSTEM_ORDER_BUILTIN + 2,
                                                         .fn = sys_lod,
                                                         .user = m});
        if (!m->spawn_system.id || !m->upload_system.id || !m->lod || !m->lod_system.id) {
            rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                           "rill_app_enable_models: cannot add the systems");
        }
    }
    if (!m->gpu || !m->spawn_system.id || !m->upload_system.id) {
        rill_app_disable_models(m);
        return NULL;
    }
    return m;
}

void rill_app_disable_models(rill_app_models *m) {
    if (!m) {
        return;
    }
    if (m->spawn_system.id) {
        rill_app_remove_system(m->app, m->spawn_system);
    }
    if (m->upload_system.id) {
        rill_app_remove_system(m->app, m->upload_system);
    }
    if (m->lod_system.id) {
        rill_app_remove_system(m->app, m->lod_system);
    }
    rill_lod_system_destroy(m->lod);
    rill_scene_anim_destroy(m->anim);
    rill_scene_models_destroy(m->scene); /* despawns the trees first */
    rill_render_assets_destroy(m->gpu);
    rill_free(m);
}

rill_scene_models *rill_app_models_scene(const rill_app_models *m) {
    return m ? m->scene : NULL;
}

rill_lod_system *rill_app_models_lod(const rill_app_models *m) {
    return m ? m->lod : NULL;
}

void rill_app_models_flush(rill_app_models *m) {
    if (!m) {
        return;
    }
    spawn_camera(m);
    rill_scene_models_flush(m->scene);
    rill_render_assets_set_time(m->gpu, rill_app_get_time(m->app)->real_elapsed);
    rill_render_assets_update(m->gpu);
}

void rill_app_models_get_stats(const rill_app_models *m, rill_app_models_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    if (!m) {
        return;
    }
    rill_scene_models_stats s;
    rill_render_assets_stats g;
    rill_scene_models_get_stats(m->scene, &s);
    rill_render_assets_get_stats(m->gpu, &g);
    out->tracked = s.tracked;
    out->spawned = s.spawned;
    out->pending = s.pending;
    out->failed = s.failed;
    out->models = s.models;
    out->spawns = s.spawns;
    out->warnings = s.warnings;
    out->uploads = g.uploads;
    out->unloads = g.unloads;
}

rill_entity rill_app_models_root(const rill_app_models *m, rill_entity e) {
    return m ? rill_scene_models_root(m->scene, e) : RILL_ENTITY_NULL;
}

rill_render_assets *rill_app_models_render_assets(const rill_app_models *m) {
    return m ? m->gpu : NULL;
}

#else /* built without the renderer */

rill_app_models *rill_app_enable_models(rill_app *app, rill_renderer *renderer,
                                        const rill_app_models_desc *desc, rill_error *err) {
    (void)app, (void)renderer, (void)desc;
    rill_error_set(err, RILL_ERR_UNSUPPORTED, "rill_app_enable_models: built without the renderer");
    return NULL;
}

void rill_app_disable_models(rill_app_models *m) {
    (void)m;
}

void rill_app_models_flush(rill_app_models *m) {
    (void)m;
}

void rill_app_models_get_stats(const rill_app_models *m, rill_app_models_stats *out) {
    (void)m;
    if (out) {
        memset(out, 0, sizeof(*out));
    }
}

rill_entity rill_app_models_root(const rill_app_models *m, rill_entity e) {
    (void)m, (void)e;
    return RILL_ENTITY_NULL;
}

rill_render_assets *rill_app_models_render_assets(const rill_app_models *m) {
    (void)m;
    return NULL;
}

rill_scene_models *rill_app_models_scene(const rill_app_models *m) {
    (void)m;
    return NULL;
}

rill_lod_system *rill_app_models_lod(const rill_app_models *m) {
    (void)m;
    return NULL;
}

#endif
