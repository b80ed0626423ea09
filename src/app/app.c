/* app.c: rill_app, the frame loop. It owns the world, the job system, the VFS, the asset server
 * and the scene loader, runs registered systems stage by stage with a fixed-step accumulator,
 * and carries the run mode with its streaming gate and listeners.
 *
 * The loop allocates nothing per frame: systems live in per-stage arrays that change only when a
 * system is added or removed.
 */
#include "rill/app.h"
#include "rill/formats/rpak.h"

#include <math.h>
#include <string.h>

#define APP_MAX_LISTENERS 32u
#define APP_MAX_SYSTEMS 4096u

typedef struct app_system {
    uint32_t id;
    int32_t order;
    uint32_t seq; /* registration sequence: ties in order run in registration order */
    rill_stage stage;
    rill_system_fn fn;
    void *user;
    char *name;
    bool removed;
    uint64_t frame_ns, last_ns; /* time of its runs in this frame so far, and in the last one */
    uint64_t frame_cpu_ns, last_cpu_ns; /* the same in thread CPU time */
} app_system;

typedef struct off_listener {
    rill_streaming_off_fn fn;
    void *user;
} off_listener;

typedef struct mode_listener {
    rill_run_mode_fn fn;
    void *user;
} mode_listener;

struct rill_app {
    rill_app_desc desc;
    rill_project project;
    char *root;
    rill_world *world;
    rill_jobs *jobs;
    rill_vfs *vfs;
    rill_asset_server *assets;
    rill_scene_loader *scenes;

    RILL_ARRAY(app_system) stages[RILL_STAGE_NUM];
    RILL_ARRAY(app_system) pending_add; /* systems added while a stage runs */
    rill_pool system_ids;
    uint32_t next_seq;
    int running_stage; /* -1 when no stage is running */
    bool stage_dirty[RILL_STAGE_NUM];

    rill_app_time time;
    double accumulator;
    uint64_t last_frame_start_ns;
    bool has_last_frame;
    uint64_t last_frame_ns;
    uint64_t last_stage_ns[RILL_STAGE_NUM];
    bool exit_requested;
    bool in_frame;

    off_listener off_listeners[APP_MAX_LISTENERS];
    uint32_t off_listener_count;
    mode_listener mode_listeners[APP_MAX_LISTENERS];
    uint32_t mode_listener_count;
    rill_stream *stream;
    uint64_t step_clock_ns;   /* deterministic mode's clock (step_clock_now) */
    uint64_t scenes_ns;       /* the last scene loader update */
    uint64_t scene_budget_ns; /* the scene loader's budget: the frame's streaming budget */
    uint64_t frame_budget_ns; /* this frame's loader budget (loader_budget) */
    uint64_t update_ns;       /* the last stream update */
    uint64_t other_ns;        /* streaming work noted since the loader's update (add_streaming) */
    uint64_t reserve_ns;      /* room asked for the next loader update (reserve_streaming) */
    /* The frame's streaming ledger: every part of this frame's streaming work so far (the loader,
     * the stream update, what add_streaming noted); streaming_ns is the last frame's whole. */
    uint64_t frame_ns;
    uint64_t streaming_ns;
    bool stream_ran;       /* this frame's stream update is done */
    uint64_t late_ns;      /* noted after this frame's stream update (the texture streaming) */
    uint64_t last_late_ns; /* the same in the last frame: what the stream update leaves room for */
};

/* Deterministic mode without a clock of the caller's: each read of the clock costs this much
 * simulated time, so a budget of B ns allows B / 1000 reads. The scene loader reads it after every
 * entity it applies and the model system after every tree it spawns, so their budgets become
 * counts of work, the same on any machine (measured time made a slow machine apply less per
 * frame). */
#define APP_STEP_CLOCK_READ_NS 1000u

static uint64_t step_clock_now(void *user) {
    uint64_t *t = user;
    return *t += APP_STEP_CLOCK_READ_NS;
}

const char *rill_stage_name(rill_stage stage) {
    switch (stage) {
        RILL_STAGE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "invalid";
    }
}

rill_app_desc rill_app_query_defaults(void) {
    rill_app_desc d = {0};
    d.run_mode = RILL_RUN_MODE_GAME;
    d.fixed_dt = 1.0 / 60.0;
    d.max_fixed_steps = 8;
    d.max_frame_dt = 0.25;
    d.drain_budget_ns = 2000000u;
    return d;
}

/* The one place where a desc's zeros become defaults. */
static rill_app_desc desc_defaults(const rill_app_desc *in) {
    rill_app_desc def = rill_app_query_defaults();
    rill_app_desc d = in ? *in : def;
    if (d.run_mode == RILL_RUN_MODE_DEFAULT) {
        d.run_mode = def.run_mode;
    }
    if (!(d.fixed_dt > 0.0) || !isfinite(d.fixed_dt)) {
        d.fixed_dt = def.fixed_dt;
    }
    if (d.max_fixed_steps == 0) {
        d.max_fixed_steps = def.max_fixed_steps;
    }
    if (!(d.max_frame_dt > 0.0) || !isfinite(d.max_frame_dt)) {
        d.max_frame_dt = def.max_frame_dt;
    }
    if (d.drain_budget_ns == 0) {
        d.drain_budget_ns = def.drain_budget_ns;
    }
    return d;
}

/* >>built-in systems -------------------------------------------------------------------------- */

static void sys_events(rill_app *app, void *user) {
    (void)user;
    rill_world_update_events(app->world);
}

static void sys_drain_jobs(rill_app *app, void *user) {
    (void)user;
    rill_jobs_drain(app->jobs, app->desc.drain_budget_ns);
}

static void sys_assets(rill_app *app, void *user) {
    (void)user;
    rill_asset_server_update(app->assets);
}

/* This frame's loader budget: the streaming budget less the streaming work the loader does not
 * do, as the last frame measured it (the stream update, and what rill_app_add_streaming_ns noted:
 * the texture streaming), so the frame's streaming work together stays within the budget; at
 * least a quarter of it, so loads always progress. A deterministic app keeps the whole budget
 * (its budgets count a step clock, not time). */
static uint64_t loader_budget(const rill_app *app) {
    uint64_t b = app->scene_budget_ns;
    if (app->desc.deterministic) {
        return b;
    }
    uint64_t other = app->update_ns + app->other_ns;
    uint64_t least = RILL_MAX(b / 4u, (uint64_t)1u);
    uint64_t budget = other < b && b - other > least ? b - other : least;
    /* Room asked for work left from the last frame (a model tree that did not fit): the loader
     * gives it up, down to a sixteenth of the budget. */
    uint64_t floor = RILL_MAX(b / 16u, (uint64_t)1u);
    if (app->reserve_ns) {
        budget =
            budget > app->reserve_ns + floor ? budget - app->reserve_ns : RILL_MIN(budget, floor);
    }
    return budget;
}

static void sys_scenes(rill_app *app, void *user) {
    (void)user;
    app->frame_budget_ns = loader_budget(app);
    app->other_ns = 0;
    app->reserve_ns = 0;
    rill_scene_loader_set_budget(app->scenes, app->frame_budget_ns);
    uint64_t t0 = rill_time_ns();
    rill_scene_loader_update(app->scenes);
    app->scenes_ns = rill_time_ns() - t0;
    app->frame_ns += app->scenes_ns;
}

/* What the stream update may spend on the work it can defer (terrain applies, hides): the
 * streaming budget less this frame's streaming work so far and less what the last frame spent
 * after its stream update (the texture streaming, which this one's will cost about as much). No
 * time limit in a deterministic app (its streamers keep their counts). */
static uint64_t stream_budget(const rill_app *app) {
    if (app->desc.deterministic) {
        return RILL_STREAM_NO_BUDGET;
    }
    uint64_t used = app->frame_ns + app->last_late_ns;
    return used < app->scene_budget_ns ? app->scene_budget_ns - used : 0u;
}

static void sys_transforms(rill_app *app, void *user) {
    (void)user;
    rill_world_update_transforms(app->world);
}

/* The gate, the camera and the streamers: the stream module does the work after transforms. */
static void sys_stream(rill_app *app, void *user) {
    (void)user;
    rill_stream_set_budget_ns(app->stream, stream_budget(app));
    rill_stream_update(app->stream);
    rill_stream_stats st;
    rill_stream_get_stats(app->stream, &st);
    app->update_ns = st.update_ns;
    app->frame_ns += st.update_ns;
    app->stream_ran = true;
}

bool rill_run_mode_ticks(rill_run_mode mode) {
    return mode == RILL_RUN_MODE_PLAY || mode == RILL_RUN_MODE_SIMULATE ||
           mode == RILL_RUN_MODE_GAME || mode == RILL_RUN_MODE_SERVER;
}

/* >>systems ----------------------------------------------------------------------------------- */

static int system_cmp(const app_system *a, const app_system *b) {
    if (a->order != b->order) {
        return a->order < b->order ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : (a->seq > b->seq ? 1 : 0);
}

/* Inserts s into its stage keeping the order (insertion sort step: registration is rare). */
static bool stage_insert(rill_app *app, const app_system *s) {
    if (!rill_array_push(&app->stages[s->stage], *s)) {
        return false;
    }
    app_system *data = app->stages[s->stage].data;
    uint32_t i = app->stages[s->stage].len - 1u;
    while (i > 0 && system_cmp(&data[i], &data[i - 1u]) < 0) {
        app_system t = data[i];
        data[i] = data[i - 1u];
        data[i - 1u] = t;
        i--;
    }
    return true;
}

/* Drops removed systems from a stage (after it ran) and merges systems added meanwhile. */
static void stage_settle(rill_app *app) {
    for (int st = 0; st < RILL_STAGE_NUM; st++) {
        if (!app->stage_dirty[st]) {
            continue;
        }
        app->stage_dirty[st] = false;
        uint32_t w = 0;
        for (uint32_t r = 0; r < app->stages[st].len; r++) {
            app_system *s = &app->stages[st].data[r];
            if (s->removed) {
                rill_free(s->name);
                continue;
            }
            app->stages[st].data[w++] = *s;
        }
        app->stages[st].len = w;
    }
    for (uint32_t i = 0; i < app->pending_add.len; i++) {
        app_system *s = &app->pending_add.data[i];
        if (s->removed || !stage_insert(app, s)) {
            if (!s->removed) {
                RILL_LOG_ERROR("app", "out of memory adding system '%s'", s->name);
                rill_pool_free(&app->system_ids, s->id);
            }
            rill_free(s->name);
        }
    }
    rill_array_clear(&app->pending_add);
}

rill_system rill_app_add_system(rill_app *app, const rill_system_desc *desc) {
    if (RILL_DESC_CHECK(desc, "rill_app_add_system", NULL) != RILL_OK) {
        return (rill_system){0};
    }
    rill_system none = {0};
    if (!app || !desc || !desc->fn || (unsigned)desc->stage >= RILL_STAGE_NUM) {
        RILL_LOG_ERROR("app", "rill_app_add_system: %s",
                       !app || !desc ? "NULL argument"
                       : !desc->fn   ? "fn is NULL"
                                     : "invalid stage");
        return none;
    }
    uint32_t id = rill_pool_alloc(&app->system_ids);
    if (!id) {
        RILL_LOG_ERROR("app", "rill_app_add_system: more than %u systems", APP_MAX_SYSTEMS);
        return none;
    }
    app_system s = {0};
    s.id = id;
    s.order = desc->order;
    s.seq = app->next_seq++;
    s.stage = desc->stage;
    s.fn = desc->fn;
    s.user = desc->user;
    s.name = rill_strdup(desc->name ? desc->name : "system");
    bool ok;
    if (app->running_stage >= 0) {
        ok = rill_array_push(&app->pending_add, s);
    } else {
        ok = stage_insert(app, &s);
    }
    if (!ok) {
        rill_free(s.name);
        rill_pool_free(&app->system_ids, id);
        return none;
    }
    return (rill_system){id};
}

bool rill_app_remove_system(rill_app *app, rill_system system) {
    if (!app || !rill_pool_valid(&app->system_ids, system.id)) {
        return false;
    }
    rill_pool_free(&app->system_ids, system.id);
    for (uint32_t i = 0; i < app->pending_add.len; i++) {
        if (app->pending_add.data[i].id == system.id) {
            app->pending_add.data[i].removed = true;
            return true;
        }
    }
    for (int st = 0; st < RILL_STAGE_NUM; st++) {
        for (uint32_t i = 0; i < app->stages[st].len; i++) {
            app_system *s = &app->stages[st].data[i];
            if (s->id == system.id && !s->removed) {
                s->removed = true;
                app->stage_dirty[st] = true;
                if (app->running_stage < 0) {
                    stage_settle(app);
                }
                return true;
            }
        }
    }
    return false;
}

void rill_app_set_render_hook(rill_app *app, rill_render_fn fn, void *user) {
    if (app) {
        app->desc.render = fn;
        app->desc.render_user = user;
    }
}

/* >>lifetime ---------------------------------------------------------------------------------- */

static bool add_builtin(rill_app *app, rill_stage stage, int32_t order, const char *name,
                        rill_system_fn fn) {
    return rill_app_add_system(
               app, &(rill_system_desc){.name = name, .stage = stage, .order = order, .fn = fn})
               .id != 0;
}

rill_app *rill_app_create(const rill_app_desc *desc, rill_error *err) {
    if (desc && (desc->start_canary || desc->end_canary)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_app_create: desc canaries are not zero (uninitialized desc?)");
        return NULL;
    }
    rill_app_desc d = desc_defaults(desc);
    if ((unsigned)d.run_mode >= RILL_RUN_MODE_NUM) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_app_create: invalid run mode %d",
                       (int)d.run_mode);
        return NULL;
    }
    rill_app *app = rill_calloc_tagged(1, sizeof(*app), RILL_MEM_APP);
    if (!app) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_create: out of memory");
        return NULL;
    }
    app->desc = d;
    if (d.deterministic && !d.clock.now_ns) {
        app->desc.clock = (rill_clock){step_clock_now, &app->step_clock_ns};
    }
    app->running_stage = -1;
    if (d.project) {
        app->project = *d.project;
    } else {
        rill_project_defaults(&app->project);
    }
    app->desc.project = &app->project;
    app->root = rill_strdup(d.root ? d.root : ".");
    app->desc.root = app->root;
    app->time.fixed_dt = d.fixed_dt;
    if (!app->root || rill_pool_init(&app->system_ids, APP_MAX_SYSTEMS) != RILL_OK) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_create: out of memory");
        goto fail;
    }

    if (!(app->jobs = rill_jobs_create(
              &(rill_jobs_desc){.worker_count = d.worker_count, .deterministic = d.deterministic},
              err)) ||
        !(app->world = rill_world_create(&(rill_world_desc){.entity_capacity = d.entity_capacity,
                                                            .skip_hooks_on_destroy = true,
                                                            .label = "app"},
                                         err)) ||
        !(app->vfs = rill_vfs_create(NULL, err))) {
        goto fail;
    }
    /* Packs first: the VFS searches generic mounts before loose roots anyway, and mounting them
     * first keeps the command-line pack ahead of the appended one. */
    if (d.pack || d.mount_packs) {
        rill_result r = d.mount_packs ? rill_rpak_mount_default(app->vfs, d.pack, NULL, err)
                                      : rill_rpak_mount_file(app->vfs, d.pack, NULL, err);
        if (r != RILL_OK) {
            goto fail;
        }
    }
    if (app->root[0] && rill_vfs_mount_dir(app->vfs, app->root, err) != RILL_OK) {
        goto fail;
    }
    uint64_t scene_budget = d.scene_budget_ns;
    if (scene_budget == 0) {
        scene_budget = (uint64_t)((double)app->project.scene.load_budget_ms * 1e6);
    }
    app->scene_budget_ns = scene_budget;
    app->frame_budget_ns = scene_budget;
    if (!(app->assets = rill_asset_server_create(
              &(rill_asset_server_desc){.vfs = app->vfs, .jobs = app->jobs}, err)) ||
        !(app->scenes =
              rill_scene_loader_create(&(rill_scene_loader_desc){.world = app->world,
                                                                 .vfs = app->vfs,
                                                                 .jobs = app->jobs,
                                                                 .clock = app->desc.clock,
                                                                 .budget_ns = scene_budget},
                                       err))) {
        goto fail;
    }
    app->stream = rill_stream_create(
        &(rill_stream_desc){.world = app->world, .scenes = app->scenes, .run_mode = d.run_mode},
        err);
    if (!app->stream) {
        goto fail;
    }
    if (!add_builtin(app, RILL_STAGE_FIRST, RILL_SYSTEM_ORDER_BUILTIN, "rill.events", sys_events) ||
        !add_builtin(app, RILL_STAGE_PRE_UPDATE, RILL_SYSTEM_ORDER_BUILTIN, "rill.jobs",
                     sys_drain_jobs) ||
        !add_builtin(app, RILL_STAGE_PRE_UPDATE, RILL_SYSTEM_ORDER_BUILTIN, "rill.assets",
                     sys_assets) ||
        !add_builtin(app, RILL_STAGE_PRE_UPDATE, RILL_SYSTEM_ORDER_BUILTIN, "rill.scenes",
                     sys_scenes) ||
        !add_builtin(app, RILL_STAGE_POST_UPDATE, RILL_SYSTEM_ORDER_BUILTIN, "rill.transforms",
                     sys_transforms) ||
        !add_builtin(app, RILL_STAGE_POST_UPDATE, RILL_SYSTEM_ORDER_BUILTIN + 1, "rill.stream",
                     sys_stream)) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_create: out of memory");
        goto fail;
    }
    return app;
fail:
    rill_app_destroy(app);
    return NULL;
}

void rill_app_destroy(rill_app *app) {
    if (!app) {
        return;
    }
    /* The loader and the asset server hand work to the jobs and read through the VFS, so they go
     * first; the world outlives the loader because cancelling a load despawns its entities. */
    rill_stream_destroy(app->stream);
    rill_scene_loader_destroy(app->scenes);
    rill_asset_server_destroy(app->assets);
    rill_jobs_destroy(app->jobs);
    rill_world_destroy(app->world);
    rill_vfs_destroy(app->vfs);
    for (int st = 0; st < RILL_STAGE_NUM; st++) {
        for (uint32_t i = 0; i < app->stages[st].len; i++) {
            rill_free(app->stages[st].data[i].name);
        }
        rill_array_free(&app->stages[st]);
    }
    for (uint32_t i = 0; i < app->pending_add.len; i++) {
        rill_free(app->pending_add.data[i].name);
    }
    rill_array_free(&app->pending_add);
    rill_pool_destroy(&app->system_ids);
    rill_free(app->root);
    rill_free(app);
}

rill_clock rill_app_clock(const rill_app *app) {
    return app ? app->desc.clock : (rill_clock){0};
}

rill_world *rill_app_world(const rill_app *app) {
    return app ? app->world : NULL;
}

rill_jobs *rill_app_jobs(const rill_app *app) {
    return app ? app->jobs : NULL;
}

rill_vfs *rill_app_vfs(const rill_app *app) {
    return app ? app->vfs : NULL;
}

rill_asset_server *rill_app_assets(const rill_app *app) {
    return app ? app->assets : NULL;
}

rill_scene_loader *rill_app_scenes(const rill_app *app) {
    return app ? app->scenes : NULL;
}

const rill_project *rill_app_project(const rill_app *app) {
    return app ? &app->project : NULL;
}

const rill_app_time *rill_app_get_time(const rill_app *app) {
    return app ? &app->time : NULL;
}

rill_result rill_app_load_main_scene(rill_app *app, rill_error *err) {
    if (!app) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_app_load_main_scene: NULL app");
    }
    if (!app->project.main_scene[0]) {
        return RILL_OK;
    }
    rill_result r = rill_scene_load_sync(app->scenes, app->project.main_scene, NULL, err);
    if (r == RILL_OK) {
        rill_stream_settle(app->stream, 0); /* streamed content the camera starts next to */
    }
    return r;
}

/* >>frame ------------------------------------------------------------------------------------- */

static void run_stage(rill_app *app, rill_stage stage) {
    app->running_stage = (int)stage;
    /* Index loop: systems added meanwhile wait in pending_add, removed ones are only flagged, so
     * the array does not move under us. */
    for (uint32_t i = 0; i < app->stages[stage].len; i++) {
        app_system *s = &app->stages[stage].data[i];
        if (!s->removed) {
            uint64_t t0 = rill_time_ns(), c0 = rill_thread_cpu_ns();
            s->fn(app, s->user);
            s->frame_ns += rill_time_ns() - t0;
            s->frame_cpu_ns += rill_thread_cpu_ns() - c0;
        }
    }
    if (stage == RILL_STAGE_RENDER && app->desc.render) {
        app->desc.render(app, app->desc.render_user);
    }
    app->running_stage = -1;
    stage_settle(app);
}

/* The frame is over: its streaming ledger becomes the last frame's streaming work. */
static void close_streaming(rill_app *app) {
    app->streaming_ns = app->frame_ns;
    app->frame_ns = 0;
    app->last_late_ns = app->late_ns;
    app->late_ns = 0;
    app->stream_ran = false;
}

/* The frame is over: each system's time in it becomes its last frame's time. */
static void close_system_times(rill_app *app) {
    for (int st = 0; st < RILL_STAGE_NUM; st++) {
        for (uint32_t i = 0; i < app->stages[st].len; i++) {
            app_system *s = &app->stages[st].data[i];
            s->last_ns = s->frame_ns;
            s->last_cpu_ns = s->frame_cpu_ns;
            s->frame_ns = s->frame_cpu_ns = 0;
        }
    }
}

uint32_t rill_app_system_timings(const rill_app *app, rill_system_timing *out, uint32_t max) {
    uint32_t n = 0;
    for (int st = 0; app && st < RILL_STAGE_NUM; st++) {
        for (uint32_t i = 0; i < app->stages[st].len; i++) {
            const app_system *s = &app->stages[st].data[i];
            if (s->removed) {
                continue;
            }
            if (out && n < max) {
                out[n] = (rill_system_timing){s->name, (rill_stage)st, s->last_ns, s->last_cpu_ns};
            }
            n++;
        }
    }
    return n;
}

void rill_app_frame_dt(rill_app *app, double dt) {
    if (!app) {
        return;
    }
    if (app->in_frame) {
        RILL_LOG_ERROR("app", "rill_app_frame called from inside a frame; ignored");
        return;
    }
    app->in_frame = true;
    uint64_t frame_start = rill_time_ns();
    if (!(dt > 0.0)) {
        dt = 0.0; /* negative and NaN */
    }
    if (dt > app->desc.max_frame_dt) {
        dt = app->desc.max_frame_dt;
    }
    rill_app_time *t = &app->time;
    bool ticks = rill_run_mode_ticks(rill_stream_get_mode(app->stream));
    t->real_dt = dt;
    t->real_elapsed += dt;
    t->dt = ticks ? dt : 0.0;
    t->elapsed += t->dt;
    t->fixed_steps_this_frame = 0;
    t->fixed_step_index = 0;

    uint64_t s0 = rill_time_ns();
    run_stage(app, RILL_STAGE_FIRST);
    uint64_t s1 = rill_time_ns();
    app->last_stage_ns[RILL_STAGE_FIRST] = s1 - s0;
    run_stage(app, RILL_STAGE_PRE_UPDATE);
    uint64_t s2 = rill_time_ns();
    app->last_stage_ns[RILL_STAGE_PRE_UPDATE] = s2 - s1;

    /* Fixed steps: the accumulator collects game time; each step consumes fixed_dt. A frame that
     * would need more than max_fixed_steps (a long stall) drops the excess instead of spiralling
     * into ever longer frames. */
    app->accumulator += t->dt;
    uint32_t steps = 0;
    while (app->accumulator >= t->fixed_dt && steps < app->desc.max_fixed_steps) {
        t->fixed_step_index = steps;
        t->fixed_steps_this_frame = steps + 1u;
        run_stage(app, RILL_STAGE_FIXED_UPDATE);
        app->accumulator -= t->fixed_dt;
        t->fixed_steps++;
        steps++;
    }
    if (app->accumulator >= t->fixed_dt) {
        uint64_t drop = (uint64_t)(app->accumulator / t->fixed_dt);
        t->dropped_steps += drop;
        app->accumulator -= (double)drop * t->fixed_dt;
    }
    t->fixed_steps_this_frame = steps;
    t->alpha = app->accumulator / t->fixed_dt;
    if (t->alpha < 0.0) {
        t->alpha = 0.0;
    }
    uint64_t s3 = rill_time_ns();
    app->last_stage_ns[RILL_STAGE_FIXED_UPDATE] = s3 - s2;

    uint64_t prev = s3;
    for (int st = RILL_STAGE_UPDATE; st < RILL_STAGE_NUM; st++) {
        run_stage(app, (rill_stage)st);
        uint64_t now = rill_time_ns();
        app->last_stage_ns[st] = now - prev;
        prev = now;
    }
    app->last_frame_ns = prev - frame_start;
    close_streaming(app);
    close_system_times(app);
    t->frame++;
    app->in_frame = false;
}

void rill_app_frame(rill_app *app) {
    if (!app) {
        return;
    }
    double dt;
    if (app->desc.deterministic) {
        dt = app->desc.fixed_dt;
    } else {
        uint64_t now = rill_clock_now(&app->desc.clock);
        dt = app->has_last_frame ? (double)(now - app->last_frame_start_ns) * 1e-9
                                 : app->desc.fixed_dt;
        app->last_frame_start_ns = now;
        app->has_last_frame = true;
    }
    rill_app_frame_dt(app, dt);
}

uint64_t rill_app_run(rill_app *app, uint64_t max_frames) {
    uint64_t n = 0;
    while (app && !app->exit_requested && (max_frames == 0 || n < max_frames)) {
        rill_app_frame(app);
        n++;
    }
    return n;
}

void rill_app_request_exit(rill_app *app) {
    if (app) {
        app->exit_requested = true;
    }
}

bool rill_app_exit_requested(const rill_app *app) {
    return app && app->exit_requested;
}

uint64_t rill_app_last_frame_ns(const rill_app *app) {
    return app ? app->last_frame_ns : 0u;
}

uint64_t rill_app_last_stage_ns(const rill_app *app, rill_stage stage) {
    return app && (unsigned)stage < RILL_STAGE_NUM ? app->last_stage_ns[stage] : 0u;
}

/* >>gate -------------------------------------------------------------------------------------- */

rill_run_mode rill_app_get_run_mode(const rill_app *app) {
    return app ? rill_stream_get_mode(app->stream) : RILL_RUN_MODE_DEFAULT;
}

rill_result rill_app_set_run_mode(rill_app *app, rill_run_mode mode) {
    if (!app || mode <= RILL_RUN_MODE_DEFAULT || mode >= RILL_RUN_MODE_NUM) {
        RILL_LOG_ERROR("app", "rill_app_set_run_mode: invalid mode %d", (int)mode);
        return RILL_ERR_INVALID_ARGUMENT;
    }
    rill_run_mode old = rill_stream_get_mode(app->stream);
    uint32_t offs = rill_stream_off_count(app->stream);
    /* The stream sends the event, republishes the state and restores its streamers. */
    if (!rill_stream_set_mode(app->stream, mode)) {
        return RILL_OK;
    }
    RILL_LOG_DEBUG("app", "run mode %s -> %s", rill_run_mode_name(old), rill_run_mode_name(mode));
    if (rill_stream_off_count(app->stream) != offs) {
        for (uint32_t i = 0; i < app->off_listener_count; i++) {
            app->off_listeners[i].fn(app, app->off_listeners[i].user);
        }
    }
    for (uint32_t i = 0; i < app->mode_listener_count; i++) {
        app->mode_listeners[i].fn(app, old, mode, app->mode_listeners[i].user);
    }
    return RILL_OK;
}

bool rill_streaming_active(const rill_app *app) {
    return app && rill_stream_active(app->stream);
}

rill_stream *rill_app_stream(const rill_app *app) {
    return app ? app->stream : NULL;
}

uint64_t rill_app_streaming_budget_left_ns(const rill_app *app) {
    if (!app) {
        return 0u;
    }
    uint64_t used = app->scenes_ns + app->other_ns;
    return used < app->frame_budget_ns ? app->frame_budget_ns - used : 0u;
}

uint64_t rill_app_streaming_budget_ns(const rill_app *app) {
    return app ? app->frame_budget_ns : 0u;
}

void rill_app_add_streaming_ns(rill_app *app, uint64_t ns) {
    if (app) {
        app->other_ns += ns;
        app->frame_ns += ns;
        if (app->stream_ran) {
            app->late_ns += ns;
        }
    }
}

void rill_app_reserve_streaming_ns(rill_app *app, uint64_t ns) {
    if (app) {
        app->reserve_ns += ns;
    }
}

uint64_t rill_app_last_streaming_ns(const rill_app *app) {
    return app ? app->streaming_ns : 0u;
}

rill_entity rill_app_streaming_camera(const rill_app *app, float out_position[3]) {
    return app ? rill_stream_camera(app->stream, out_position) : RILL_ENTITY_NULL;
}

bool rill_app_on_streaming_off(rill_app *app, rill_streaming_off_fn fn, void *user) {
    if (!app || !fn || app->off_listener_count >= APP_MAX_LISTENERS) {
        return false;
    }
    app->off_listeners[app->off_listener_count++] = (off_listener){fn, user};
    return true;
}

bool rill_app_on_run_mode(rill_app *app, rill_run_mode_fn fn, void *user) {
    if (!app || !fn || app->mode_listener_count >= APP_MAX_LISTENERS) {
        return false;
    }
    app->mode_listeners[app->mode_listener_count++] = (mode_listener){fn, user};
    return true;
}

const rill_streaming_state *rill_app_streaming_state(const rill_app *app) {
    return app ? rill_stream_state(app->stream) : NULL;
}

rill_event rill_app_streaming_off_event(const rill_app *app) {
    return app ? rill_stream_off_event(app->stream) : RILL_EVENT_NONE;
}

uint32_t rill_app_streaming_off_count(const rill_app *app) {
    return app ? rill_stream_off_count(app->stream) : 0u;
}
