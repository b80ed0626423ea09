/* script_system.c: rill_app_enable_scripts, the script system (rill/script.h) as app systems:
 * rill_scripts_update first in `update` (before every user update system, so they and
 * post_update's transform propagation see what scripts wrote that frame) and
 * rill_scripts_fixed_update in `fixed_update` right after the physics step. Scripts run while
 * game time runs (PLAY, SIMULATE, GAME, SERVER); in EDIT and PAUSED they wait. */
#include "rill/app.h"

struct rill_app_scripts {
    rill_app *app;
    rill_scripts *scripts;
    rill_system update, fixed;
};

static void sys_update(rill_app *app, void *user) {
    rill_app_scripts *s = user;
    if (rill_run_mode_ticks(rill_app_get_run_mode(app))) {
        rill_scripts_update(s->scripts, rill_app_get_time(app)->dt);
    }
}

static void sys_fixed(rill_app *app, void *user) {
    rill_app_scripts *s = user;
    if (rill_run_mode_ticks(rill_app_get_run_mode(app))) {
        rill_scripts_fixed_update(s->scripts, rill_app_get_time(app)->fixed_dt);
    }
}

rill_app_scripts *rill_app_enable_scripts(rill_app *app, const rill_scripts_desc *desc,
                                          rill_error *err) {
    if (!app) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_app_enable_scripts: NULL app");
        return NULL;
    }
    rill_scripts_desc d = desc ? *desc : (rill_scripts_desc){0};
    d.world = rill_app_world(app);
    d.vfs = rill_app_vfs(app);
    if (!d.scenes) {
        d.scenes = rill_app_scenes(app);
    }
    rill_app_scripts *s = rill_calloc_tagged(1, sizeof *s, RILL_MEM_APP);
    if (!s) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_enable_scripts: out of memory");
        return NULL;
    }
    s->app = app;
    if (!(s->scripts = rill_scripts_create(&d, err))) {
        rill_free(s);
        return NULL;
    }
    s->update = rill_app_add_system(app, &(rill_system_desc){.name = "rill.scripts",
                                                             .stage = RILL_STAGE_UPDATE,
                                                             .order = RILL_SYSTEM_ORDER_BUILTIN,
                                                             .fn = sys_update,
                                                             .user = s});
    /* After the physics step (which runs at RILL_SYSTEM_ORDER_BUILTIN in this stage). */
    s->fixed = rill_app_add_system(app, &(rill_system_desc){.name = "rill.scripts.fixed",
                                                            .stage = RILL_STAGE_FIXED_UPDATE,
                                                            .order = RILL_SYSTEM_ORDER_BUILTIN + 1,
                                                            .fn = sys_fixed,
                                                            .user = s});
    if (!s->update.id || !s->fixed.id) {
        rill_app_disable_scripts(s);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_enable_scripts: cannot add systems");
        return NULL;
    }
    return s;
}

rill_scripts *rill_app_scripts_system(const rill_app_scripts *s) {
    return s ? s->scripts : NULL;
}

void rill_app_disable_scripts(rill_app_scripts *s) {
    if (!s) {
        return;
    }
    rill_app_remove_system(s->app, s->update);
    rill_app_remove_system(s->app, s->fixed);
    rill_scripts_destroy(s->scripts);
    rill_free(s);
}
