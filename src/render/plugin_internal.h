/* plugin_internal.h: what the effect plugin host (rill/render/plugins.h) shares between its files:
 * the limits, the host's records of libraries and effects, and the functions one file calls in
 * another.
 *   plugin_host.c     the registry entries (each effect's pass), lifetime and queries
 *   plugin_shaders.c  effect shaders (shaderc into compute pipelines) and settings components
 *   plugin_load.c     the host table, loading (probe child, ELF check, ABI) and hot reload */
#ifndef RILL_RENDER_PLUGIN_INTERNAL_H
#define RILL_RENDER_PLUGIN_INTERNAL_H

#include "render_internal.h"
#include "rill/render/effects.h"
#include "rill/render/plugins.h"

#include <shaderc/shaderc.h>

/* Limits on what one library may announce (docs/limits.md, docs/plugins.md): effects per plugin
 * (each is a compiled pipeline and a registered component: 2,000 took over a minute to list),
 * settings bytes and fields per effect, and the bytes of one effect's GLSL. */
#define PLUG_MAX_EFFECTS 64u
#define PLUG_MAX_SHADER_BYTES (1u << 20)
/* How long a library's load and entry point may take in the probe child before it is killed. */
#define PLUG_PROBE_MS 5000
#define PLUG_MAX_SETTINGS 256u
#define PLUG_MAX_FIELDS 32u
#define PLUG_PUSH_SIZE 48u
/* The frame inputs this host gives (rill_plugin_input): the view's prepass images. */
#define PLUG_HOST_INPUTS RILL_PLUGIN_INPUTS_1_1

typedef struct plug_effect {
    char id[64];
    char plugin[64];
    uint32_t lib; /* index in libs */
    uint32_t phase;
    int32_t order;
    uint32_t inputs;    /* rill_plugin_input bits it reads (0 for a plugin built for ABI 1.0) */
    bool warned_inputs; /* said once that a frame lacked one of them */
    char *source;       /* inline source (owned) */
    char shader_path[512];
    char shader_root[512]; /* the plugin's folder a relative shader_path stays in ("" = absolute) */
    int64_t shader_mtime;
    uint32_t settings_size; /* as declared */
    rill_plugin_field fields[PLUG_MAX_FIELDS];
    char field_names[PLUG_MAX_FIELDS][48];
    uint32_t field_count;
    uint8_t settings[PLUG_MAX_SETTINGS]; /* defaults, or rill_plugins_set_settings */
    rill__pipe *pipe;
    rill_component comp;
    uint32_t fx; /* its handle in the renderer's composition registry (0 = not registered) */
    uint32_t generation;
    bool dead;           /* dropped by a library reload */
    bool compile_failed; /* lazy: its first compile failed (retried when its shader changes) */
} plug_effect;

typedef struct plug_lib {
    char path[512];
    char name[64], version[32];
    uint32_t abi_major, abi_minor;
    void *dl;
    const rill_plugin_api *api;
    int64_t mtime;
} plug_lib;

typedef struct plug_pass plug_pass;

/* One effect's entry in the registry (its user pointer). */
struct plug_pass {
    rill_plugins *p;
    uint32_t effect; /* index in p->effects */
};

struct rill_plugins {
    rill_renderer *r;
    rill_world *world;
    rill_render_components *comps; /* the routed settings types plugins add theirs to */
    shaderc_compiler_t sc;
    RILL_ARRAY(plug_lib) libs;
    RILL_ARRAY(plug_effect) effects;
    RILL_ARRAY(plug_effect) staged; /* effects announced by the entry call in progress */
    const char *staging_lib;        /* path, for messages */
    bool staging_failed;
    rill_plugins_stats stats;
    bool lazy; /* rill_plugins_desc.compile_on_first_use */
    uint32_t copies;
    plug_pass *passes; /* RILL_RENDER_MAX_EFFECTS records, by effect index */
};

/* plugin_host.c */

/* Keeps msg as the last error (rill_plugins_get_stats) and logs it. */
void rill__plug_note_error(rill_plugins *p, const char *msg);
/* Puts e into the renderer's composition registry (phase and order from the plugin; settings =
 * the component named by its id when the host has a world). */
rill_result rill__plug_effect_register(rill_plugins *p, plug_effect *e, rill_error *err);
void rill__plug_effect_unregister(rill_plugins *p, plug_effect *e);

/* plugin_shaders.c */

/* Reads the effect's current GLSL (its file when it has one); NULL with err set when unreadable. */
char *rill__plug_read_body(const plug_effect *e, rill_error *err);
/* Compiles e's shader into a pipeline; on failure *out is untouched and err names the library
 * (lib) and the effect and holds shaderc's messages (file:line: error: ...). */
rill_result rill__plug_compile(rill_plugins *p, const plug_effect *e, const char *lib,
                               rill__pipe **out, rill_error *err);
/* The bytes of a settings field of type t (rill_plugin_field_type); 0 for an unknown type. */
uint32_t rill__plug_field_bytes(uint32_t t);
/* Same layout: same size and the same fields (name, type, offset) in the same order. */
bool rill__plug_same_layout(const plug_effect *a, const plug_effect *b);
/* Registers e's settings as a component routed to cameras (nothing without a world). */
rill_result rill__plug_register_component(rill_plugins *p, plug_effect *e, rill_error *err);

/* plugin_load.c */

/* The live effect named id (not dropped by a reload), or -1. */
int rill__plug_find_effect(const rill_plugins *p, const char *id);
/* Frees the effects announced by a library that was not taken. */
void rill__plug_free_staged(rill_plugins *p);
/* Runs the library's shutdown and closes it. */
void rill__plug_close_lib(plug_lib *lib);

#endif
