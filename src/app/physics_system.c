/* physics_system.c: steps a rill_physics world in the app's fixed_update stage. The physics
 * module sits below the app and cannot add systems itself; this is the glue. */
#include "rill/app.h"

struct rill_app_physics {
    rill_app *app;
    rill_physics *phys;
    rill_system system;
};

static void sys_physics(rill_app *app, void *user) {
    rill_app_physics *p = user;
    rill_physics_step(p->phys, rill_app_get_time(app)->fixed_dt);
}

rill_app_physics *rill_app_enable_physics(rill_app *app, const rill_physics_desc *desc,
                                          rill_error *err) {
    if (!app) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_app_enable_physics: NULL app");
        return NULL;
    }
    rill_physics_desc d = desc ? *desc : (rill_physics_desc){0};
    d.world = rill_app_world(app);
    rill_app_physics *p = rill_calloc_tagged(1, sizeof *p, RILL_MEM_APP);
    if (!p) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_enable_physics: out of memory");
        return NULL;
    }
    p->app = app;
    p->phys = rill_physics_create(&d, err);
    if (!p->phys) {
        rill_free(p);
        return NULL;
    }
    /* Before user fixed_update systems, so they see this step's contacts and positions. */
    p->system = rill_app_add_system(app, &(rill_system_desc){.name = "rill.physics",
                                                             .stage = RILL_STAGE_FIXED_UPDATE,
                                                             .order = RILL_SYSTEM_ORDER_BUILTIN,
                                                             .fn = sys_physics,
                                                             .user = p});
    if (!p->system.id) {
        rill_physics_destroy(p->phys);
        rill_free(p);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                       "rill_app_enable_physics: cannot add the system");
        return NULL;
    }
    return p;
}

rill_physics *rill_app_physics_world(const rill_app_physics *p) {
    return p ? p->phys : NULL;
}

void rill_app_disable_physics(rill_app_physics *p) {
    if (!p) {
        return;
    }
    rill_app_remove_system(p->app, p->system);
    rill_physics_destroy(p->phys);
    rill_free(p);
}
