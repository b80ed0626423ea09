/* rill/render/plugins.h: the host side of effect plugins (rill/plugin.h is the plugin side).
 *
 *   rill_plugins_create attaches a plugin host to a renderer (and, optionally, a world: each
 *   effect's settings become a component of that world, named by the effect id, so a scene can
 *   hold them, and a routed settings type of the given render components, so each camera gets its
 *   own copy at rill_render_extract: rill/render/effects.h ON ROUTING). rill_plugins_load /
 *   load_dir dlopen a private copy of each library (the file can be replaced while it runs), check
 *   its ABI, compile its shaders with shaderc and register each effect in the renderer's
 *   composition registry (rill_render_effect_register: the plugin's phase and order, sorted with
 *   the engine's effects). rill_plugins_poll, once per frame, swaps a changed shader file or
 *   library in place (a reloaded library's effects are unregistered and registered again): a
 *   broken shader or a changed settings layout is refused with a message and the old one kept.
 *   With a world, an effect draws only for a camera whose routed settings hold its component;
 *   without one: always, with the host's settings (rill_plugins_set_settings). */
#ifndef RILL_RENDER_PLUGINS_H
#define RILL_RENDER_PLUGINS_H

#include "rill/plugin.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/world.h"

typedef struct rill_plugins rill_plugins;

/* renderer: required. world: optional; with a world, components (from
 * rill_render_register_components on that world) is required and gets every effect's settings
 * type as a routed settings type. Create the host (and load plugins) before a scene naming plugin
 * components is bound. Canaries must be 0. One host per renderer; destroy it before the
 * renderer. */
typedef struct rill_plugins_desc {
    uint32_t start_canary;
    rill_renderer *renderer;
    rill_world *world;
    rill_render_components *components;
    /* false (default): rill_plugins_load compiles every effect and refuses a library whose shader
     * does not compile. true: an effect is compiled the first frame a camera wants it (loading
     * many plugins costs no compile for the unused ones); a compile error is then logged naming
     * the library, the effect and file:line, counted in shader_errors, and the effect stays off
     * until its shader file changes. Library hot reloads compile at once either way. */
    bool compile_on_first_use;
    uint32_t end_canary;
} rill_plugins_desc;
rill_plugins_desc rill_plugins_query_defaults(void);
rill_plugins *rill_plugins_create(const rill_plugins_desc *desc, rill_error *err);
void rill_plugins_destroy(rill_plugins *p);

/* Loads one library. A refused library (ABI, missing entry, bad effect, shader error) returns an
 * error naming the file and leaves the host as it was. */
rill_result rill_plugins_load(rill_plugins *p, const char *path, rill_error *err);
/* Loads every *.so in dir (sorted by name). Libraries that fail are logged and skipped;
 * *out_failed (optional) counts them. Fails only when dir cannot be read. */
rill_result rill_plugins_load_dir(rill_plugins *p, const char *dir, uint32_t *out_failed,
                                  rill_error *err);
/* Checks the watched files (libraries and shader files) and swaps what changed. Returns how many
 * swaps happened; refusals are logged and counted in rill_plugins_stats. */
uint32_t rill_plugins_poll(rill_plugins *p);

typedef struct rill_plugin_info {
    const char *path, *name, *version;
    uint32_t abi_major, abi_minor;
    uint32_t effect_count;
    const char *effects[16]; /* ids of the first 16 effects */
} rill_plugin_info;
uint32_t rill_plugins_count(const rill_plugins *p);
bool rill_plugins_get(const rill_plugins *p, uint32_t index, rill_plugin_info *out);

typedef struct rill_plugin_effect_info {
    const char *id, *plugin;
    uint32_t phase;
    int32_t order;
    uint32_t settings_size;
    uint32_t generation; /* bumps on every successful shader swap */
    bool active;         /* added a pass to the last built frame */
    uint32_t inputs;     /* the rill_plugin_input bits it reads (depth, normal, motion) */
} rill_plugin_effect_info;
uint32_t rill_plugins_effect_count(const rill_plugins *p);
bool rill_plugins_effect_get(const rill_plugins *p, uint32_t index, rill_plugin_effect_info *out);

typedef struct rill_plugins_stats {
    uint32_t loads, reloads, refused, shader_errors;
    char last_error[512]; /* the last refusal or compile error, "" when none */
} rill_plugins_stats;
void rill_plugins_get_stats(const rill_plugins *p, rill_plugins_stats *out);

/* Compiles effect id now when it is not compiled yet (compile_on_first_use; a no-op otherwise):
 * a tool checks the effects it was asked for before its first frame. The error names the library,
 * the effect and the shader's file:line. */
rill_result rill_plugins_compile(rill_plugins *p, const char *id, rill_error *err);

/* Sets an effect's settings used when no world is attached (or as the defaults for new
 * components). size must equal the effect's settings_size. */
rill_result rill_plugins_set_settings(rill_plugins *p, const char *id, const void *data,
                                      uint32_t size, rill_error *err);

#endif /* RILL_RENDER_PLUGINS_H */
