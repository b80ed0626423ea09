/* cli_plugin_components.c: the shipped plugins' components for the commands that bind a scene
 * without rendering it (`rill scene check`, `rill scene load`). A quiet first look at the scene
 * text counts the components the engine lacks; only when there are some does a small headless
 * renderer start and the plugin host register the shipped plugins' settings components in the
 * content's world, so a scene's `Sepia { ... }` binds as `rill render` binds it (and --strict
 * does not refuse it), while a scene of engine components alone starts no renderer. */
#include "cmds.h"

#include <stdio.h>

#include "rill/app.h"
#include "rill/render.h"

/* Components of text unknown to world, counted with the log off (the real pass logs them). */
static uint32_t count_unknown(rill_world *world, const char *file, const char *text, size_t size) {
    rill_log_level level = rill_log_get_level();
    rill_log_set_level(RILL_LOG_NONE);
    rill_scene_check_info info = {0};
    rill_error err = {0};
    rill_result r = rill_scene_check_text(world, file, text, size, NULL, &info, &err);
    rill_log_set_level(level);
    return r == RILL_OK ? info.unknown_components : 0u;
}

void rill_cli_plugin_components_add(rill_cli_plugin_components *pc, rill_content *c,
                                    const char *file, const char *text, size_t size) {
    char dir[4096];
    if (!rill_cli_shipped_plugins_dir(dir, sizeof dir) ||
        count_unknown(rill_content_world(c), file, text, size) == 0) {
        return;
    }
    rill_renderer_desc rd = rill_renderer_query_defaults();
    rd.width = rd.height = 16;
    rd.render_thread = false; /* a plugin host: it draws no frame */
    rill_error err = {0};
    if (!(pc->r = rill_renderer_create(&rd, &err)) ||
        rill_cli_effects_attach(&pc->fx, pc->r, c, &err) != RILL_OK) {
        fprintf(stderr, "note: the shipped plugins' components are not known here: %s\n", err.msg);
    }
}

void rill_cli_plugin_components_release_host(rill_cli_plugin_components *pc) {
    rill_cli_effects_release(&pc->fx);
}

void rill_cli_plugin_components_release(rill_cli_plugin_components *pc) {
    rill_cli_effects_release(&pc->fx);
    rill_renderer_destroy(pc->r);
    pc->r = NULL;
}
