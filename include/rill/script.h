/* rill/script.h: gameplay scripts in Lua 5.4: the "Script" component, the script system that runs
 * them (lifecycle, the rill.* API, the sandbox, hot reload) and its settings.
 *
 * ON SCRIPTS
 *   An entity with a "Script" { path, properties } component runs the Lua file at `path` (a VFS
 *   path: a pack first, then the project folder). The file is run once per script system in an
 *   environment of its own; the global functions it defines are the script's callbacks, called for
 *   every entity that runs it with that entity's `self` table:
 *
 *       init(self)               once, in the first script update after the component appears
 *       update(self, dt)         every frame (the app's `update` stage), dt in seconds of game time
 *       fixed_update(self, dt)   every fixed step (the app's `fixed_update` stage, the physics
 * step) on_event(self, event)    events (docs/scripting.md lists them), before update final(self)
 * once, when the component or the entity goes on_reload(self)          after the file was reloaded
 * (hot reload), with self kept
 *
 *   A global `properties` table declares the script's properties and their defaults; `self` starts
 *   as a copy of it, then the component's `properties` text (a Lua table body such as
 *   `speed = 3, target = "door"`, evaluated with no globals but vec3/quat) overrides them.
 *   Instances run in a stable order: the order their Script components appeared in.
 *
 * ON THE SANDBOX
 *   Scripts share one Lua state with no io, os, debug, package, load/loadfile/dofile, string.dump
 *   or collectgarbage; `require` reads modules through the VFS. The allocator refuses memory past
 *   memory_limit and a count hook stops any callback that runs past instruction_budget (pcall in
 *   a script cannot catch either). A script stopped for either is disabled (every instance of it)
 *   until its file changes; a runtime error disables the one instance. Each is logged at ERROR
 *   with file:line and a traceback; the engine carries on. A file that does not compile is logged
 *   with file:line and changes nothing: its instances keep the last good version.
 *
 * ON THREADS
 *   Main thread only, like the world it drives.
 *
 * Depends on: base, world, asset (the VFS), scene (load_scene), physics (raycasts), terrain
 * (terrain raycasts), channels (channel modes).
 */
#ifndef RILL_SCRIPT_H
#define RILL_SCRIPT_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/physics.h"
#include "rill/scene.h"
#include "rill/terrain.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >>component --------------------------------------------------------------------------------- */

/* "Script" { path: asset_path, properties: string }. path: the .lua file (VFS path, NULL = none:
 * the entity runs nothing). properties: overrides of the script's declared properties, a Lua
 * table body ("speed = 3, target = 'door', offset = vec3(0, 1, 0)"); NULL = none. */
typedef struct rill_script {
    const char *path;       /* interned */
    const char *properties; /* interned */
} rill_script;

/* Registers "Script" in world (idempotent). RILL_COMPONENT_NONE when out of memory. */
rill_component rill_script_register(rill_world *world);

/* >>input ------------------------------------------------------------------------------------- */

#define RILL_SCRIPT_KEY_COUNT 349 /* GLFW key codes, the same as rill/app.h's RILL_KEY_* */
#define RILL_SCRIPT_MOUSE_BUTTONS 8

#define RILL_SCRIPT_GAMEPADS 4 /* the same as rill/app.h's RILL_GAMEPAD_* */
#define RILL_SCRIPT_GAMEPAD_BUTTONS 15
#define RILL_SCRIPT_GAMEPAD_AXES 6

/* One gamepad as rill.gamepad_* read it: buttons and axes in GLFW's standard order (rill/app.h
 * "Gamepads"; triggers 0..1). Zero = not connected, everything neutral. */
typedef struct rill_script_gamepad {
    bool connected;
    bool button_down[RILL_SCRIPT_GAMEPAD_BUTTONS];
    bool button_pressed[RILL_SCRIPT_GAMEPAD_BUTTONS];
    float axis[RILL_SCRIPT_GAMEPAD_AXES];
} rill_script_gamepad;

/* What rill.key_down and friends read: the window's input of this frame, copied in by the app
 * (rill_scripts_set_input). Zero = nothing pressed (headless runs). */
typedef struct rill_script_input {
    bool key_down[RILL_SCRIPT_KEY_COUNT];
    bool key_pressed[RILL_SCRIPT_KEY_COUNT];
    bool mouse_down[RILL_SCRIPT_MOUSE_BUTTONS];
    bool mouse_pressed[RILL_SCRIPT_MOUSE_BUTTONS];
    double mouse_x, mouse_y, mouse_dx, mouse_dy, scroll_y;
    rill_script_gamepad gamepads[RILL_SCRIPT_GAMEPADS];
} rill_script_input;

/* >>system ------------------------------------------------------------------------------------ */

typedef struct rill_scripts rill_scripts;

/* world: required, borrowed. vfs: where scripts and modules are read (required, borrowed).
 * scenes: for rill.load_scene (NULL: load_scene raises an error). physics, terrain: for raycasts
 * (NULL: they hit nothing). All must outlive the system.
 * memory_limit 0 = 64 MiB (bytes the Lua state may hold, every script together);
 * instruction_budget 0 = 50,000,000 (Lua VM instructions one callback may run; counted in steps of
 * 1000); hot_reload: check the loose files of loaded scripts for changes at each update (rill run
 * turns it on; a file in a pack never changes). */
typedef struct rill_scripts_desc {
    uint32_t start_canary; /* must be 0 */
    rill_world *world;
    rill_vfs *vfs;
    rill_scene_loader *scenes;
    rill_physics *physics;
    rill_terrain_system *terrain;
    size_t memory_limit;
    uint64_t instruction_budget;
    bool hot_reload;
    uint32_t end_canary; /* must be 0 */
} rill_scripts_desc;

/* Creates the Lua state and its sandbox and registers "Script". Entities that already have a
 * Script start at the first update. NULL + err on failure. */
rill_scripts *rill_scripts_create(const rill_scripts_desc *desc, rill_error *err);
/* Calls final(self) of every running instance, then closes the state. NULL: no-op. */
void rill_scripts_destroy(rill_scripts *s);

/* One frame: advances rill.time() by dt, reloads changed files (hot_reload), finishes instances
 * whose Script went or changed path (final), starts those whose Script appeared (init), fires due
 * timers, delivers events (on_event), then calls update(self, dt) of each instance in order. A
 * world with no Script and no instance returns at once. */
void rill_scripts_update(rill_scripts *s, double dt);
/* One fixed step: fixed_update(self, dt) of each running instance in order. */
void rill_scripts_fixed_update(rill_scripts *s, double dt);
/* The input rill.key_down / rill.mouse read from now on (copied). NULL = nothing pressed. */
void rill_scripts_set_input(rill_scripts *s, const rill_script_input *in);
/* The key code (GLFW's, an index into rill_script_input.key_down) of a key name as rill.key_down
 * takes it ("a".."z", "0".."9", "f1".."f12", "space", "left_shift", ...); -1 for an unknown name.
 * For tools that press keys for scripts (rill run --key). */
int rill_scripts_key_code(const char *name);
/* Checks the loose files of loaded scripts now and reloads those that changed (what update does
 * when hot_reload is on). Returns how many files were reloaded. */
uint32_t rill_scripts_reload_changed(rill_scripts *s);

/* Counters since creation. */
typedef struct rill_scripts_stats {
    uint32_t files;          /* script files loaded (good or not) */
    uint32_t instances;      /* instances alive (running or disabled) */
    uint32_t running;        /* instances whose callbacks run */
    uint32_t errors;         /* callbacks that failed (runtime error, budget, memory) */
    uint32_t compile_errors; /* files (or reloads) that did not compile */
    uint32_t reloads;        /* successful reloads */
    uint64_t calls;          /* callbacks called */
    size_t memory_bytes;     /* bytes the Lua state holds now */
    uint64_t last_update_ns; /* wall time of the last rill_scripts_update */
} rill_scripts_stats;
void rill_scripts_get_stats(const rill_scripts *s, rill_scripts_stats *out);

/* Whether the instance on entity e runs (false when e has none, or it was disabled by an error). */
bool rill_scripts_running(const rill_scripts *s, rill_entity e);

/* Runs `code` (a chunk name for messages, and the Lua text) in the sandbox as a one-off script,
 * with the rill.* API, under the budget and memory limit. For tools and tests. RILL_OK, or
 * RILL_ERR_PARSE (does not compile) / RILL_ERR_INVALID_ARGUMENT (runtime error) with the message.
 */
rill_result rill_scripts_exec(rill_scripts *s, const char *name, const char *code, rill_error *err);

/* Compiles a script's text without running it (no engine needed; thread-safe): RILL_OK, or
 * RILL_ERR_PARSE with "path:line: message" when it does not compile (or is a binary chunk, which
 * the engine refuses). `rill export` checks every .lua it packs with it. */
rill_result rill_scripts_check_source(const char *path, const char *text, size_t len,
                                      rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_SCRIPT_H */
