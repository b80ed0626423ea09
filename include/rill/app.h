/* rill/app.h: the top layer: project.toml, the project settings, run modes and the streaming gate,
 * and the frame loop that ties the world, the job system, the VFS, the asset server and the scene
 * loader together.
 *
 * ON PROJECT.TOML
 *   The TOML reader lives in formats (rill/formats/toml.h) so every module can read settings.
 *
 *   rill_project_from_toml() turns a document into a rill_project with every default resolved in
 *   one place (rill_project_defaults). Unknown keys (with a "did you mean") and values of the
 *   wrong type (the default is kept) are warnings that name their line, so a project always loads.
 *
 * ON RUN MODES AND THE STREAMING GATE
 *   The gate, the streaming camera and the streamers live in the stream module (rill/stream.h).
 *   The app owns one rill_stream (rill_app_stream) with the scene loader attached, so streamed
 *   scene instances stream in every app; it forwards run-mode changes to it and runs
 *   rill_stream_update in post_update right after transform propagation. When streaming goes
 *   from active to inactive the streamers' restore runs once, then the app's "streaming off"
 *   listeners, exactly once. Modules below the app read the same facts from the world: the
 *   "StreamingState" resource and the "StreamingTurnedOff" event (see rill_streaming_state).
 *
 * ON THE FRAME LOOP
 *   A rill_app owns a world, a job system, a VFS (packs first, then the project folder as its
 *   loose root), an asset server and a scene loader. rill_app_frame() runs one frame through
 *   fixed stages:
 *
 *       first        world events swap (built in), then user systems
 *       pre_update   job completions drained under a budget, asset server update, scene loader
 *                    update (all built in, in that order), then user systems
 *       fixed_update 0..max_fixed_steps times per frame, each with time.fixed_dt
 *       update       gameplay
 *       post_update  transform propagation, then the stream update (gate, camera, streamers;
 *                    both built in), then user systems
 *       extract      copy what the renderer needs out of the world
 *       render       user systems, then the render hook (none = headless)
 *
 *   Within a stage systems run by ascending `order`, ties in registration order. Built-in work
 *   runs at order RILL_SYSTEM_ORDER_BUILTIN, before every user system of that stage unless a
 *   system asks for an even lower order. Systems may add and remove systems (also themselves)
 *   while a stage runs; the change takes effect after the stage.
 *
 *   Time: game time advances by the frame's measured delta (clamped to max_frame_dt) in PLAY,
 *   SIMULATE, GAME and SERVER; in EDIT and PAUSED it stands still (dt = 0, no fixed steps) while
 *   real time keeps counting. The deterministic mode (desc.deterministic) runs with no worker
 *   threads and a frame delta of exactly fixed_dt, so a test sees the same frames every run.
 *
 * Depends on: base, world, asset, formats (pack mounting, glTF), scene, stream, render (the model
 * system; without the renderer rill_app_enable_models fails).
 */
#ifndef RILL_APP_H
#define RILL_APP_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/formats/toml.h"
#include "rill/physics.h"
#include "rill/scene.h"
#include "rill/script.h"
#include "rill/stream.h"
#include "rill/stream/textures.h"
#include "rill/terrain.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >>project ----------------------------------------------------------------------------------- */

/* rill_graphics_quality's values and their names (rill_graphics_quality_name), one list. */
#define RILL_GRAPHICS_QUALITY_LIST(X)                                                              \
    X(RILL_QUALITY_DEFAULT, "Medium") /* resolves to MEDIUM */                                     \
    X(RILL_QUALITY_LOW, "Low")                                                                     \
    X(RILL_QUALITY_MEDIUM, "Medium")                                                               \
    X(RILL_QUALITY_HIGH, "High")
typedef enum rill_graphics_quality {
    RILL_GRAPHICS_QUALITY_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_QUALITY_NUM,
    RILL_QUALITY_FORCE_U32 = 0x7FFFFFFF
} rill_graphics_quality;

#define RILL_PROJECT_NAME_MAX 128
#define RILL_PROJECT_PATH_MAX 512
/* A project's upload budget per frame unless [rendering] upload_budget_bytes says otherwise. At
 * 32 MiB (the renderer's default) the demo's first frame copied 32.7 MB to staging and spent
 * 10.9 ms of the H200's frame on it; 8 MiB spreads the boot backlog over a few more frames. */
#define RILL_PROJECT_UPLOAD_BUDGET_DEFAULT (8u << 20)

/* The settings of a project, from project.toml. rill_project_defaults() gives the values used
 * for every missing key:
 *   [project]   name "Rill project", version "" (none), main_scene "" (none)
 *   [window]    width 1280, height 720, vsync true, title = the project name, fullscreen false
 *   [rendering] graphics_quality "Medium" (Low | Medium | High), render_scale 1.0 in [0.1, 2.0],
 *               static_batching false (rill_render_batching: merge static model geometry),
 *               gpu_culling false (RILL_RENDER_DEBUG_GPU_CULL: GPU-driven culling and drawing),
 *               render_thread true (record and submit frames on a render thread while the
 *               app's next frame updates: rill_renderer_desc.render_thread; false: on the
 *               thread that renders),
 *               gpu_occlusion true (with gpu_culling: two-phase occlusion culling; false sets
 *               RILL_RENDER_DEBUG_NO_OCCLUSION),
 *               ambient 1.0 in [0, 1000] (the ambient multiplier of a world without a
 *               WorldEnvironment; one with it uses its own `ambient`),
 *               upload_budget_bytes 8 MiB (RILL_PROJECT_UPLOAD_BUDGET_DEFAULT: the bytes of
 *               meshes and textures copied to the GPU a frame, rill_renderer_desc
 *               .upload_budget_bytes; 0 = the renderer's own default, 32 MiB)
 *   [streaming.texture] enabled true, full_distance 60, low_distance 90 (forced to at least
 *               full_distance + 5), budget_bytes 0 (no budget)
 *   [scene]     load_budget_ms 3 (> 0)
 * Plain data: copy it freely. */
typedef struct rill_project {
    char name[RILL_PROJECT_NAME_MAX];
    char version[RILL_PROJECT_NAME_MAX];    /* free text ("1.2.0"), "" = none; a shipped game's
                                               --version prints it beside the name */
    char main_scene[RILL_PROJECT_PATH_MAX]; /* project-relative path, "" = none */
    struct {
        uint32_t width, height; /* in [1, 16384] */
        bool vsync;
        char title[RILL_PROJECT_NAME_MAX];
        bool fullscreen; /* the primary monitor at its current mode (width/height ignored) */
    } window;
    struct {
        rill_graphics_quality graphics_quality; /* LOW, MEDIUM or HIGH after resolution */
        float render_scale;
        bool static_batching;
        bool gpu_culling;   /* rill_content_renderer_desc sets RILL_RENDER_DEBUG_GPU_CULL */
        bool render_thread; /* rill_content_renderer_desc sets rill_renderer_desc.render_thread */
        bool gpu_occlusion; /* false: rill_content_renderer_desc sets ..._NO_OCCLUSION */
        /* the ambient multiplier of worlds without a WorldEnvironment, [0, 1000], default 1 */
        float ambient;
        uint64_t upload_budget_bytes; /* rill_content_renderer_desc sets it (0: the renderer's) */
    } rendering;
    struct {
        struct {
            bool enabled;
            float full_distance, low_distance;
            uint64_t budget_bytes;
        } texture;
    } streaming;
    struct {
        float load_budget_ms;
    } scene;
    /* How many warnings (unknown keys, clamped values) reading the file produced. Each one was
     * logged at WARN level with its file:line:col. */
    uint32_t warning_count;
} rill_project;

/* Fills *out with the defaults listed above. */
void rill_project_defaults(rill_project *out);
/* Fills *out from a document: defaults first, then every known key. Everything wrong in a read
 * document is a warning naming file:line:column, so the project still loads: unknown keys and
 * tables (with the nearest known key: "did you mean 'window.fullscreen'?"), a known key holding
 * the wrong type (the setting keeps its default) and out-of-range values (clamped). doc may be
 * NULL (defaults only). Fails only when out is NULL. */
rill_result rill_project_from_toml(const rill_toml *doc, rill_project *out, rill_error *err);
/* The texture streaming settings of a project's [streaming.texture] (the other fields at
 * rill_texstream_settings_default); project NULL = the defaults. */
rill_texstream_settings rill_app_texture_streaming_settings(const rill_project *project);
/* Reads a project.toml file into *out (rill_toml_load + rill_project_from_toml). */
rill_result rill_project_load(const char *path, rill_project *out, rill_error *err);
/* "Low", "Medium" or "High" ("Medium" for DEFAULT). Static storage. */
const char *rill_graphics_quality_name(rill_graphics_quality q);
/* Parses "Low"/"Medium"/"High" (case-insensitive); returns DEFAULT for anything else. */
rill_graphics_quality rill_graphics_quality_parse(const char *s);

/* >>run modes -------------------------------------------------------------------------------- */

/* rill_run_mode, the gate (rill_run_mode_streams), the camera pick and the StreamingState /
 * StreamingTurnedOff world data live in rill/stream.h, which this header includes. */

/* Whether game time advances in a mode (PLAY, SIMULATE, GAME, SERVER). */
bool rill_run_mode_ticks(rill_run_mode mode);

/* >>app --------------------------------------------------------------------------------------- */

typedef struct rill_app rill_app;

/* rill_stage's values and their names (rill_stage_name), one list. */
#define RILL_STAGE_LIST(X)                                                                         \
    X(RILL_STAGE_FIRST, "first")                                                                   \
    X(RILL_STAGE_PRE_UPDATE, "pre_update")                                                         \
    X(RILL_STAGE_FIXED_UPDATE, "fixed_update")                                                     \
    X(RILL_STAGE_UPDATE, "update")                                                                 \
    X(RILL_STAGE_POST_UPDATE, "post_update")                                                       \
    X(RILL_STAGE_EXTRACT, "extract")                                                               \
    X(RILL_STAGE_RENDER, "render")
typedef enum rill_stage {
    RILL_STAGE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_STAGE_NUM,
    RILL_STAGE_FORCE_U32 = 0x7FFFFFFF
} rill_stage;

/* "first", "pre_update", "fixed_update", "update", "post_update", "extract", "render". */
const char *rill_stage_name(rill_stage stage);

/* The order of the app's built-in work inside its stage. */
#define RILL_SYSTEM_ORDER_BUILTIN (-1000000)

/* Time as systems see it, read with rill_app_get_time. Seconds unless said otherwise. */
typedef struct rill_app_time {
    uint64_t frame;                  /* index of the frame being run (0 for the first) */
    double dt;                       /* game-time step of this frame (0 in EDIT and PAUSED) */
    double real_dt;                  /* measured step, clamped to max_frame_dt */
    double elapsed;                  /* game time: sum of dt */
    double real_elapsed;             /* sum of real_dt */
    double fixed_dt;                 /* the fixed step */
    uint64_t fixed_steps;            /* fixed steps run since creation */
    uint32_t fixed_steps_this_frame; /* fixed steps this frame (valid from fixed_update on) */
    uint32_t fixed_step_index;       /* inside fixed_update: 0..fixed_steps_this_frame-1 */
    double alpha;           /* leftover accumulator / fixed_dt, in [0, 1), to interpolate */
    uint64_t dropped_steps; /* fixed steps skipped by the max_fixed_steps cap, in total */
} rill_app_time;

/* A system: called once per frame in its stage (fixed_update systems once per fixed step). */
typedef void (*rill_system_fn)(rill_app *app, void *user);

/* name: for stats and logs (copied; NULL = "system"). stage: where it runs. order: ascending
 * within the stage, ties in registration order. fn: required. user: passed back. */
typedef struct rill_system_desc {
    uint32_t start_canary; /* must be 0 */
    const char *name;
    rill_stage stage;
    int32_t order;
    rill_system_fn fn;
    void *user;
    uint32_t end_canary; /* must be 0 */
} rill_system_desc;

/* A registered system. 0 = none. */
typedef struct rill_system {
    uint32_t id;
} rill_system;

/* The render stage hook: called last in the render stage of every frame. The renderer module
 * installs one; an app without it is headless. */
typedef void (*rill_render_fn)(rill_app *app, void *user);

/* Called with the old and new mode after a change (only when the mode really changes). */
typedef void (*rill_run_mode_fn)(rill_app *app, rill_run_mode old_mode, rill_run_mode new_mode,
                                 void *user);
/* Called when streaming turns off (the gate goes from open to closed: back to EDIT, or to
 * SERVER), exactly once per such transition, before the mode-change listeners. Streamers bring
 * every piece of content back to full residency from here. */
typedef void (*rill_streaming_off_fn)(rill_app *app, void *user);

/* Defaults (resolved by rill_app_query_defaults / rill_app_create):
 *   project NULL = rill_project_defaults (the struct is copied);
 *   root NULL = "." (the project folder, mounted as the VFS's loose root); "" = mount nothing;
 *   pack NULL = none: a .rpak given on the command line, mounted before everything else;
 *   mount_packs false: when true, also mount a pack appended to the executable and
 *     `<exe>.rpak` (rill_rpak_mount_default). Packs are always searched before the loose root;
 *   run_mode DEFAULT = GAME;
 *   deterministic false; worker_count 0 = cores - 1 (at least 1; ignored when deterministic);
 *   fixed_dt 0 = 1/60 s; max_fixed_steps 0 = 8; max_frame_dt 0 = 0.25 s;
 *   drain_budget_ns 0 = 2 ms (job completions drained per frame; unused when deterministic);
 *   scene_budget_ns 0 = project.scene.load_budget_ms;
 *   entity_capacity 0 = the world's default;
 *   clock zero = rill_time_ns (frame deltas and the scene and model spawn budgets read it); when
 *     deterministic, zero = a step clock instead: each read advances it 1 us, so those budgets
 *     count work (about one read per entity applied or tree spawned), the same on any machine;
 *   render NULL = headless. */
typedef struct rill_app_desc {
    uint32_t start_canary; /* must be 0 */
    const rill_project *project;
    const char *root;
    const char *pack;
    bool mount_packs;
    rill_run_mode run_mode;
    bool deterministic;
    uint32_t worker_count;
    double fixed_dt;
    uint32_t max_fixed_steps;
    double max_frame_dt;
    uint64_t drain_budget_ns;
    uint64_t scene_budget_ns;
    uint32_t entity_capacity;
    rill_clock clock;
    rill_render_fn render;
    void *render_user;
    uint32_t end_canary; /* must be 0 */
} rill_app_desc;

/* The desc with every default filled in (project and root stay NULL). */
rill_app_desc rill_app_query_defaults(void);

/* Creates an app: world, jobs, VFS (root mounted), asset server, scene loader. desc may be NULL.
 * Returns NULL and fills err (may be NULL) when the desc is invalid, the root folder does not
 * exist, a pack cannot be mounted (the message names it), or memory runs out. Destroy with
 * rill_app_destroy. */
rill_app *rill_app_create(const rill_app_desc *desc, rill_error *err);
/* Destroys the scene loader (cancelling loads), the asset server, the world, the VFS and the
 * jobs, in that order. NULL is a no-op. Must not be called from a system. */
void rill_app_destroy(rill_app *app);

/* The parts the app owns; valid until rill_app_destroy. */
rill_world *rill_app_world(const rill_app *app);
/* The clock the app's budgets read (rill_app_desc.clock, or the deterministic step clock). */
rill_clock rill_app_clock(const rill_app *app);
rill_jobs *rill_app_jobs(const rill_app *app);
rill_vfs *rill_app_vfs(const rill_app *app);
rill_asset_server *rill_app_assets(const rill_app *app);
rill_scene_loader *rill_app_scenes(const rill_app *app);
/* The project settings the app was created with (its own copy). */
const rill_project *rill_app_project(const rill_app *app);
/* The current time (valid until the next frame). */
const rill_app_time *rill_app_get_time(const rill_app *app);

/* The initial boot load: loads project.main_scene synchronously (the world is complete when it
 * returns), as NOTES asks for the boot and editor opens, then the streamed instances the camera
 * starts next to (rill_stream_settle). Does nothing and returns RILL_OK when the
 * project names no main scene. Errors name the file and the place. */
rill_result rill_app_load_main_scene(rill_app *app, rill_error *err);

/* Registers a system. Returns {0} (and logs) for a NULL fn or an invalid stage. */
rill_system rill_app_add_system(rill_app *app, const rill_system_desc *desc);
/* Removes a system; false for a stale handle. Safe from inside a system (even itself). */
bool rill_app_remove_system(rill_app *app, rill_system system);
/* Replaces the render hook (NULL = headless). */
void rill_app_set_render_hook(rill_app *app, rill_render_fn fn, void *user);

/* Runs one frame. The step is measured on the app's clock since the previous frame (the first
 * frame uses fixed_dt), or is exactly fixed_dt in deterministic mode. */
void rill_app_frame(rill_app *app);
/* Runs one frame with an explicit step in seconds (negative and NaN read as 0; clamped to
 * max_frame_dt). For tools and tests that drive time by hand. */
void rill_app_frame_dt(rill_app *app, double dt);
/* Runs frames until rill_app_request_exit is called or max_frames have run (0 = no limit).
 * Returns the number of frames run. */
uint64_t rill_app_run(rill_app *app, uint64_t max_frames);
void rill_app_request_exit(rill_app *app);
bool rill_app_exit_requested(const rill_app *app);

/* Main-thread time of the last complete frame in nanoseconds, and per stage. */
uint64_t rill_app_last_frame_ns(const rill_app *app);
uint64_t rill_app_last_stage_ns(const rill_app *app, rill_stage stage);

/* One system's main-thread time in the last complete frame (its runs summed: a fixed-update
 * system runs 0..max_fixed_steps times a frame), wall clock and thread CPU time (what it ran,
 * without the time the thread was preempted). name lives as long as the system. */
typedef struct rill_system_timing {
    const char *name;
    rill_stage stage;
    uint64_t ns;
    uint64_t cpu_ns;
} rill_system_timing;
/* Writes up to max timings of the registered systems (stage order, then run order) into out and
 * returns how many systems there are (out may be NULL to count). */
uint32_t rill_app_system_timings(const rill_app *app, rill_system_timing *out, uint32_t max);

/* >>gate -------------------------------------------------------------------------------------- */

rill_run_mode rill_app_get_run_mode(const rill_app *app);
/* Switches the run mode. When the streaming gate closes (a streaming mode -> EDIT or SERVER), the
 * streaming-off listeners run once, now; then the mode listeners run. Setting the current mode
 * again does nothing. RILL_ERR_INVALID_ARGUMENT for DEFAULT or out-of-range values. */
rill_result rill_app_set_run_mode(rill_app *app, rill_run_mode mode);
/* The streaming gate of the app's current mode (rill_run_mode_streams). app NULL = false. */
bool rill_streaming_active(const rill_app *app);
/* The app's stream (gate, camera, streamers: rill/stream.h); valid until rill_app_destroy. */
rill_stream *rill_app_stream(const rill_app *app);
/* Main-thread time of the last frame's streaming work, in nanoseconds: the frame's ledger of the
 * scene loader's budgeted update, rill_stream_update and what rill_app_add_streaming_ns noted (the
 * model system's update, the texture streaming update). */
uint64_t rill_app_last_streaming_ns(const rill_app *app);
/* What this frame's loader budget (rill_app_streaming_budget_ns) has left after this frame's
 * scene loader update and what was noted since (rill_app_add_streaming_ns), in nanoseconds; the
 * model system spends it on spawning model trees and retiring dropped ones, so the loader and the
 * model system share one budget. 0 when spent. */
uint64_t rill_app_streaming_budget_left_ns(const rill_app *app);
/* This frame's scene loader budget, in nanoseconds: the streaming budget ([scene] load_budget_ms
 * or rill_app_desc.scene_budget_ns) less the streaming work of the last frame the loader does not
 * do (the stream update, and what rill_app_add_streaming_ns noted), at least a quarter of the
 * budget; the whole budget in a deterministic app. */
uint64_t rill_app_streaming_budget_ns(const rill_app *app);
/* Notes ns of main-thread streaming work done outside the loader and the stream update (the
 * model system notes its update and the texture streaming update): it joins the frame's ledger
 * (rill_app_last_streaming_ns), the stream update after it in the frame gets that much less
 * (rill_stream_set_budget_ns), and so does the next frame's loader budget. */
void rill_app_add_streaming_ns(rill_app *app, uint64_t ns);
/* Asks the next frame's loader to leave ns of its budget for streaming work that waited (the model
 * system's tree that did not fit in this frame's budget left): its budget is that much smaller,
 * down to a sixteenth of the streaming budget. A deterministic app keeps the whole budget. */
void rill_app_reserve_streaming_ns(rill_app *app, uint64_t ns);
/* rill_streaming_camera_pick on the app's world and mode. When out_position is not NULL and a
 * camera is returned, it receives the camera's world position (from GlobalTransform, else its
 * Transform translation, else the origin). */
rill_entity rill_app_streaming_camera(const rill_app *app, float out_position[3]);
/* Listener registration; at most 32 of each kind. False when full or fn is NULL. */
bool rill_app_on_streaming_off(rill_app *app, rill_streaming_off_fn fn, void *user);
bool rill_app_on_run_mode(rill_app *app, rill_run_mode_fn fn, void *user);
/* The app's "StreamingState" resource (see rill_streaming_state); valid until rill_app_destroy. */
const rill_streaming_state *rill_app_streaming_state(const rill_app *app);
/* The id of the "StreamingTurnedOff" world event. */
rill_event rill_app_streaming_off_event(const rill_app *app);
/* How many times streaming has turned off since the app was created. */
uint32_t rill_app_streaming_off_count(const rill_app *app);

/* >>windows ---------------------------------------------------------------------------------- */

/* ON WINDOWS
 *   rill_window is a thin layer over GLFW for tools and games that show the renderer's output: it
 *   initializes GLFW, creates a window with no client API (the renderer brings its own Vulkan
 *   surface: pass rill_window_glfw() as rill_renderer_desc.glfw_window), and keeps the input state
 *   (keys, mouse buttons, cursor motion, scroll) up to date on every rill_window_poll. One window
 *   at a time per process; GLFW is terminated when it is destroyed. Main thread only.
 */
typedef struct rill_window rill_window;

/* Key codes: the same numbers as GLFW's printable keys (ASCII upper case letters and digits) and
 * the named keys below. */
#define RILL_KEY_SPACE 32
#define RILL_KEY_ESCAPE 256
#define RILL_KEY_ENTER 257
#define RILL_KEY_TAB 258
#define RILL_KEY_RIGHT 262
#define RILL_KEY_LEFT 263
#define RILL_KEY_DOWN 264
#define RILL_KEY_UP 265
#define RILL_KEY_F1 290 /* F2 = 291, ..., F12 = 301 */
#define RILL_KEY_LEFT_SHIFT 340
#define RILL_KEY_LEFT_CONTROL 341
#define RILL_KEY_RIGHT_SHIFT 344
#define RILL_KEY_RIGHT_CONTROL 345
#define RILL_KEY_COUNT 349

#define RILL_MOUSE_LEFT 0
#define RILL_MOUSE_RIGHT 1
#define RILL_MOUSE_MIDDLE 2
#define RILL_MOUSE_BUTTON_COUNT 8

/* Gamepads: GLFW's standard layout (SDL_GameControllerDB mappings), buttons and axes in GLFW's
 * order: buttons a, b, x, y, left_bumper, right_bumper, back, start, guide, left_thumb,
 * right_thumb, dpad_up, dpad_right, dpad_down, dpad_left; axes left_x, left_y, right_x, right_y
 * (-1..1, +y = down as GLFW reports), left_trigger, right_trigger (0 released .. 1 fully
 * pressed: GLFW's -1..1 moved so that released is neutral). */
#define RILL_GAMEPAD_MAX 4
#define RILL_GAMEPAD_BUTTON_COUNT 15
#define RILL_GAMEPAD_AXIS_COUNT 6

/* One gamepad slot: all false / zero while nothing is connected there. */
typedef struct rill_gamepad {
    bool connected;
    bool button_down[RILL_GAMEPAD_BUTTON_COUNT];
    bool button_pressed[RILL_GAMEPAD_BUTTON_COUNT]; /* went down since the previous poll */
    float axis[RILL_GAMEPAD_AXIS_COUNT];
} rill_gamepad;

/* The input state after the last rill_window_poll. "pressed" is true only in the poll that saw
 * the key go down (edges between polls are not lost: a key pressed and released within one poll
 * still reads pressed once). Cursor motion and scroll are summed since the previous poll. */
typedef struct rill_input {
    bool key_down[RILL_KEY_COUNT];
    bool key_pressed[RILL_KEY_COUNT];
    bool mouse_down[RILL_MOUSE_BUTTON_COUNT];
    bool mouse_pressed[RILL_MOUSE_BUTTON_COUNT];
    double mouse_x, mouse_y;   /* cursor position in window coordinates */
    double mouse_dx, mouse_dy; /* motion since the previous poll */
    double scroll_y;           /* vertical scroll since the previous poll (+ = away from user) */
    /* Connected gamepads with a standard mapping, in the order GLFW numbers them (the first four).
     */
    rill_gamepad gamepads[RILL_GAMEPAD_MAX];
} rill_input;

/* Window description. Zero = defaults: title "Rill", 1280x720 (screen coordinates), resizable,
 * visible. */
typedef struct rill_window_desc {
    uint32_t start_canary; /* must be 0 */
    const char *title;
    uint32_t width, height;
    bool fixed_size; /* not resizable */
    bool hidden;
    /* Full screen on the primary monitor at its current video mode (width and height are then
     * ignored); a display without a monitor GLFW can name falls back to a window, with a
     * warning. */
    bool fullscreen;
    uint32_t end_canary; /* must be 0 */
} rill_window_desc;

/* Whether a display looks reachable (DISPLAY or WAYLAND_DISPLAY is set). A cheap check before
 * rill_window_create, which also fails cleanly without one. */
bool rill_window_display_available(void);
/* Initializes GLFW and opens a window. desc may be NULL (defaults). Fails with RILL_ERR_NO_DEVICE
 * and a message saying why when there is no display or GLFW cannot start, RILL_ERR_BUSY when a
 * window is already open; NULL on failure. */
rill_window *rill_window_create(const rill_window_desc *desc, rill_error *err);
/* Closes the window and terminates GLFW. Destroy the renderer that uses it first. NULL: no-op. */
void rill_window_destroy(rill_window *w);
/* The GLFWwindow pointer (for rill_renderer_desc.glfw_window). */
void *rill_window_glfw(const rill_window *w);
/* Processes pending events and refreshes the input state. */
void rill_window_poll(rill_window *w);
/* The input state (valid until rill_window_destroy; updated by each poll). */
const rill_input *rill_window_input(const rill_window *w);
/* True once the user asked to close the window (or rill_window_request_close was called). */
bool rill_window_should_close(const rill_window *w);
void rill_window_request_close(rill_window *w);
/* The framebuffer size in pixels (0 x 0 while minimized). */
void rill_window_framebuffer_size(const rill_window *w, uint32_t *out_w, uint32_t *out_h);
/* The window's size in window coordinates (the units of rill_input.mouse_x/y); 0 x 0 when
 * minimized. */
void rill_window_size(const rill_window *w, uint32_t *out_w, uint32_t *out_h);
/* Replaces the title (copied). */
void rill_window_set_title(rill_window *w, const char *title);

/* >>models ----------------------------------------------------------------------------------- */

/* ON MODELS
 *   rill_app_enable_models runs two systems over the world's "Model" { path } components
 *   (rill/scene/model.h):
 *     - in post_update, before transform propagation, the scene module's model system
 *       (rill_scene_models): it requests the file of every new Model entity with rill_asset_load
 *       (once per path; the glTF loader, which enable registers, reads it on a worker), spawns the
 *       model's default scene under each such entity once it is LOADED (nodes, ModelMesh
 *       primitives naming the asset, lights and cameras), warns once per entity on FAILED (naming
 *       the entity and the file), despawns the tree of an entity that is despawned, loses its
 *       Model or names another path, and releases a file nobody has used for
 *       release_delay_frames frames;
 *     - in the extract stage, the renderer's asset cache (rill_render_assets_update): one GPU
 *       upload per model asset, shared by every entity naming it, destroyed release_delay_frames
 *       frames after no ModelMesh names it. Images resolve relative to the model through the VFS.
 *   Model paths are asset paths (VFS-relative). The spawned trees are runtime entities of the
 *   world; they are not meant to be saved with it. Built without the renderer, enable fails with
 *   RILL_ERR_UNSUPPORTED. */
typedef struct rill_renderer rill_renderer;
typedef struct rill_render_assets rill_render_assets;
typedef struct rill_app_models rill_app_models;

/* Options; all zero = defaults: release_delay_frames 0 = 2; spawn_budget_ns 0 = tree spawns share
 * the frame's streaming budget with the scene loader (what rill_app_streaming_budget_left_ns says
 * is left; at least one tree a frame; 1 ms in a deterministic app), else the time of tree
 * spawning per frame (rill_scene_models_desc; UINT64_MAX spawns every ready tree at once). */
typedef struct rill_app_models_desc {
    uint32_t start_canary; /* must be 0 */
    uint32_t release_delay_frames;
    uint64_t spawn_budget_ns;
    uint32_t end_canary; /* must be 0 */
} rill_app_models_desc;

/* Counters for tests and overlays: tracked entities (with a Model), spawned, pending (waiting for
 * their file), failed (warned, drawing nothing), models (files in the cache, loading or
 * uploaded), and totals since enable: uploads, unloads (uploads destroyed), spawns, warnings. */
typedef struct rill_app_models_stats {
    uint32_t tracked, spawned, pending, failed, models;
    uint64_t uploads, unloads, spawns, warnings;
} rill_app_models_stats;

/* Registers the model components and the glTF asset loader in the app, attaches a
 * rill_render_assets to its world and adds the two systems (post_update and extract, order
 * RILL_SYSTEM_ORDER_BUILTIN - 1). renderer is borrowed. desc may be NULL.
 * Returns NULL and fills err on failure. Call rill_app_disable_models before rill_app_destroy and
 * before rill_renderer_destroy. */
rill_app_models *rill_app_enable_models(rill_app *app, rill_renderer *renderer,
                                        const rill_app_models_desc *desc, rill_error *err);
/* Removes the system, despawns every tree it spawned, destroys the uploads and releases the
 * assets. NULL is a no-op. Not from inside a system of the same app's post_update stage. */
void rill_app_disable_models(rill_app_models *models);
/* Main thread, outside the frame: runs the model system once, blocks until every file it has
 * requested is LOADED or FAILED (rill_asset_wait), runs it again so their trees are spawned (or
 * their failures warned), then propagates transforms. For tools and boot loads that want the
 * models in their first frame; the frame loop does the same work without blocking. NULL: no-op. */
void rill_app_models_flush(rill_app_models *models);
/* Fills *out (zero for NULL models). */
void rill_app_models_get_stats(const rill_app_models *models, rill_app_models_stats *out);
/* The scene module's model system and the LOD system (rill/stream.h) the app runs; NULL when
 * models are not enabled. The LOD system runs in post_update after transforms (order
 * RILL_SYSTEM_ORDER_BUILTIN + 2), measuring from rill_lod_camera. */
rill_scene_models *rill_app_models_scene(const rill_app_models *models);
rill_lod_system *rill_app_models_lod(const rill_app_models *models);
/* The root of the tree spawned for entity e, or RILL_ENTITY_NULL (not spawned yet, failed, or e
 * has no Model). */
rill_entity rill_app_models_root(const rill_app_models *models, rill_entity e);
/* The renderer's asset cache the models use (attached to the app's world), or NULL. */
rill_render_assets *rill_app_models_render_assets(const rill_app_models *models);

/* >>physics ---------------------------------------------------------------------------------- */

/* ON PHYSICS
 *   rill_app_enable_physics creates a rill_physics world (rill/physics.h) bound to the app's
 *   world and steps it once per fixed step, in fixed_update at order RILL_SYSTEM_ORDER_BUILTIN
 *   (before user fixed_update systems), with time.fixed_dt. Dynamic bodies' Transforms are written
 *   there, and transform propagation in post_update carries them to their GlobalTransforms. */
typedef struct rill_app_physics rill_app_physics;

/* desc may be NULL (defaults); its world is ignored (the app's world is used). Returns NULL and
 * fills err on failure. Call rill_app_disable_physics before rill_app_destroy. */
rill_app_physics *rill_app_enable_physics(rill_app *app, const rill_physics_desc *desc,
                                          rill_error *err);
/* The physics world, for queries and shapes (valid until disable). NULL for NULL. */
rill_physics *rill_app_physics_world(const rill_app_physics *p);
/* Removes the system and destroys the physics world. NULL is a no-op. Not from inside a system. */
void rill_app_disable_physics(rill_app_physics *p);

/* >>terrain ---------------------------------------------------------------------------------- */

/* ON TERRAIN
 *   rill_app_enable_terrain creates a rill_terrain_system (rill/terrain.h) on the app's world,
 *   jobs and VFS and registers it as a streamer of the app's stream (rill_stream_add_terrain,
 *   rill/stream/terrain.h): it runs once per frame inside the stream update (post_update, after
 *   transform propagation) with the published StreamingState as its view, and its restore runs
 *   when the gate closes. Chunk builds complete through the job completions the app drains in
 *   pre_update. */
typedef struct rill_app_terrain rill_app_terrain;

/* physics may be NULL (no colliders); it must outlive the terrain. NULL + err on failure. Call
 * rill_app_disable_terrain before disabling physics and before rill_app_destroy. */
rill_app_terrain *rill_app_enable_terrain(rill_app *app, rill_physics *physics, rill_error *err);
rill_terrain_system *rill_app_terrain_system(const rill_app_terrain *t);
/* The view the terrain system gets this frame: the gate (streaming), whether a streaming camera
 * exists, and its position. */
rill_terrain_view rill_app_terrain_view(const rill_app *app);
/* Main thread, outside the frame: loads every terrain and builds every chunk the current view
 * wants, ignoring the per-frame limit (boot loads, tools). NULL: no-op. */
void rill_app_terrain_flush(rill_app_terrain *t);
/* Unregisters the streamer and destroys the terrain system. NULL is a no-op. */
void rill_app_disable_terrain(rill_app_terrain *t);

/* >>scripts ---------------------------------------------------------------------------------- */

/* ON SCRIPTS
 *   rill_app_enable_scripts creates a script system (rill/script.h) on the app's world, VFS and
 *   scene loader and runs it as two systems: rill_scripts_update first in `update` (order
 *   RILL_SYSTEM_ORDER_BUILTIN: before every user update system, so C systems and post_update's
 *   transform propagation see what scripts wrote the same frame) and rill_scripts_fixed_update in
 *   `fixed_update` right after the physics step. Both run only while game time runs
 *   (rill_run_mode_ticks). rill_content_load enables it for every content, so `rill run`,
 *   `rill render` and a packed game all run a project's scripts. */
typedef struct rill_app_scripts rill_app_scripts;

/* desc: world, vfs and scenes (when NULL) are the app's; physics, terrain, limits, hot_reload as
 * given (desc may be NULL). NULL + err on failure. Disable before physics, terrain and the app. */
rill_app_scripts *rill_app_enable_scripts(rill_app *app, const rill_scripts_desc *desc,
                                          rill_error *err);
rill_scripts *rill_app_scripts_system(const rill_app_scripts *s);
/* Calls every script's final, removes the systems and destroys the script system. NULL: no-op. */
void rill_app_disable_scripts(rill_app_scripts *s);

/* >>components ------------------------------------------------------------------------------- */

/* The components one module registered: ids first .. first + count - 1. */
typedef struct rill_app_component_group {
    const char *module; /* "world", "scene", "scene/model", "render", "physics", "terrain",
                         * "script" */
    rill_component first;
    uint32_t count;
} rill_app_component_group;
#define RILL_APP_COMPONENT_GROUPS 8u

/* Registers every component the engine's modules define (world built-ins, scene, scene/model,
 * render when built with it, physics, terrain, script) in world. Registering is idempotent; in a
 * fresh world (rill_world_create) groups (may be NULL; RILL_APP_COMPONENT_GROUPS entries) receive
 * which module registered which ids and *out_count (may be NULL) how many groups were filled. */
rill_result rill_app_register_components(rill_world *world, rill_app_component_group *groups,
                                         uint32_t *out_count, rill_error *err);

/* >>content ---------------------------------------------------------------------------------- */

/* ON PLAYING CONTENT
 *   rill_content is the one path from what a user points the engine at to frames: `rill render`,
 *   `rill run`, `rill demo` and the examples all set their scenes up through it.
 *
 *       rill_content *c = rill_content_open(&(rill_content_desc){.input = "mygame"}, &err);
 *       const rill_project *p = rill_content_project(c);   // window size, quality, ...
 *       ... create a renderer from p ...
 *       rill_content_load(c, renderer, &err);               // the world, its models, defaults
 *       for (;;) {
 *           rill_app_frame(rill_content_app(c));
 *           rill_render_snapshot snap;
 *           rill_content_snapshot(c, &snap, &err);
 *           rill_renderer_render(renderer, &snap, &err);
 *       }
 *       rill_content_release(c);   // before the renderer goes
 *       rill_content_destroy(c);
 *
 *   The input (desc.input) is one of:
 *     - a project folder, or its project.toml: the project's settings and its main_scene;
 *     - a .rsn scene: the nearest project.toml in its folder or up to three folders above it
 *       makes that folder the project (root) and supplies the settings; else the scene's folder
 *       is the root and the settings are the defaults;
 *     - a glTF model (.glb/.gltf): a world holding one "Model" entity that names it;
 *     - "builtin:spheres" or "builtin:cubes:N": test scenes made of procedural meshes;
 *     - NULL with a pack (desc.pack, or desc.mount_packs finding one appended to the program):
 *       the pack's own project.toml and main scene;
 *     - a path ending in .rpak (without desc.pack): that pack, as if it were desc.pack.
 *   With a pack, an input that is not a file on disk is a path inside the pack.
 *
 *   Stated defaults. After loading (models spawned), a world with no light at all (no
 *   DirectionalLight, PointLight or SpotLight) gets a default sun entity ("Default Sun":
 *   DirectionalLight illuminance 3, colour (1, 0.96, 0.9), travelling along (-0.4, -1, -0.5));
 *   a world with no active camera gets a camera entity ("Default Camera", fov_y 0.8) framing the
 *   bounds of what it draws from the front-right-above (a Model entity without a Transform is
 *   framed where its model draws: at its parent's placement, the identity at the top). Each
 *   default is logged at INFO (module "content") and listed in rill_content_notes, so tools say
 *   so on stderr. */
typedef struct rill_content rill_content;
struct rill_render_snapshot;
struct rill_renderer_desc;

typedef enum rill_content_kind {
    RILL_CONTENT_KIND_NONE = 0,
    RILL_CONTENT_KIND_PROJECT, /* a project folder, project.toml, or a pack's project */
    RILL_CONTENT_KIND_SCENE,   /* a .rsn */
    RILL_CONTENT_KIND_MODEL,   /* a .glb/.gltf */
    RILL_CONTENT_KIND_BUILTIN, /* builtin:... */
    RILL_CONTENT_KIND_APP,     /* desc.app: a world loaded by the caller */
    RILL_CONTENT_KIND_NUM,
    RILL_CONTENT_KIND_FORCE_U32 = 0x7FFFFFFF
} rill_content_kind;

/* Defaults used by rill_content_load (bit set, rill_content_defaults_used). */
#define RILL_CONTENT_DEFAULT_LIGHT 1u
#define RILL_CONTENT_DEFAULT_CAMERA 2u

/* Options; all zero = defaults (no input: needs a pack). Strings are copied.
 *   input: see ON PLAYING CONTENT.
 *   pack: a .rpak mounted before the project folder (the command line's --pack).
 *   mount_packs: also mount a pack appended to the running program and `<exe>.rpak`.
 *   root: the project folder, given instead of found: input is then a .rsn or glTF path inside
 *     it (or inside the packs), and root's project.toml, when there is one, supplies the
 *     settings. "" = no loose folder (packs only). NULL = work the root out from input.
 *   app: borrowed; play the world this app already holds (input, pack, project ignored; nothing
 *     is loaded, the models and defaults are still set up). The caller destroys it after
 *     rill_content_destroy.
 *   deterministic, worker_count, scene_budget_ns: passed to the app rill_content_open creates
 *     (rill_app_desc; scene_budget_ns 0 = the project's [scene] load_budget_ms).
 *   on_world: called once the world exists, before anything is loaded (to register components).
 *   on_loaded: called by rill_content_load after the scene is in the world and before its
 *     models are flushed and the defaults decided; non-zero fails the load (set err).
 *   user: passed back to both. */
typedef struct rill_content_desc {
    uint32_t start_canary; /* must be 0 */
    const char *input;
    const char *pack;
    bool mount_packs;
    const char *root;
    rill_app *app;
    bool deterministic;
    uint32_t worker_count;
    uint64_t scene_budget_ns;
    void (*on_world)(rill_world *world, void *user);
    int (*on_loaded)(rill_content *content, rill_renderer *renderer, void *user, rill_error *err);
    void *user;
    /* Scripts: reload a script file when its loose file changes (rill run sets it). */
    bool hot_reload;
    uint32_t end_canary; /* must be 0 */
} rill_content_desc;

/* Resolves desc->input, reads the project settings and creates the app (root folder and packs
 * mounted). Loads nothing yet. Returns NULL and fills err (naming the input) when the input does
 * not exist, is of an unknown kind, its project.toml is invalid, or a pack cannot be mounted. */
rill_content *rill_content_open(const rill_content_desc *desc, rill_error *err);
/* Loads the content into the world with `renderer` (borrowed until rill_content_release):
 * the scene (synchronously), the Model entities (rill_app_enable_models + flush, so the first
 * frame has them), the built-in meshes, then the stated defaults; then physics and terrain
 * (rill_content_physics, rill_content_terrain), with the chunks the streaming camera wants built.
 * A Model that fails to load fails the call (each failure is also logged with its entity and
 * file); a terrain whose heightmap fails is logged and drawn empty. */
rill_result rill_content_load(rill_content *content, rill_renderer *renderer, rill_error *err);
/* Runs app frames (after rill_content_load) until the world is settled: no scene load in flight
 * (streamed instances the camera reaches included), no instance loading, no Model waiting for
 * its file, for two frames in a row; at most max_frames (0 = 600). For headless renders of
 * streamed worlds, so the picture holds what the camera should see. Returns the frames run;
 * *out_settled (may be NULL) says whether it settled before the cap. */
uint32_t rill_content_settle(rill_content *content, uint32_t max_frames, bool *out_settled);
/* Builds this frame's snapshot from the world (rill_render_extract) plus the built-in instances,
 * with every light (each view shades the RILL_RENDER_MAX_LIGHTS nearest its camera). The
 * snapshot points into storage the content owns: valid until the next call or
 * rill_content_release. */
rill_result rill_content_snapshot(rill_content *content, struct rill_render_snapshot *out,
                                  rill_error *err);
/* Releases what rill_content_load made with the renderer (models, built-in meshes). Call before
 * rill_renderer_destroy. Idempotent; NULL is a no-op. */
void rill_content_release(rill_content *content);
/* Releases, then destroys the app it created (not a borrowed one). NULL is a no-op. */
void rill_content_destroy(rill_content *content);

/* The box of what the world draws (the box a default camera frames): each spawned Model's uploaded
 * bounds through its matrix; without models, every Terrain's box (its chunks from its entity's
 * translation, its height range) and every MeshInstance and built-in instance as a box of its
 * scale around its origin. False when nothing is drawn (lo, hi untouched). After load. */
bool rill_content_bounds(rill_content *content, float lo[3], float hi[3]);

/* Fills the parts of a renderer desc the project decides: size ([window] width x height), vsync,
 * quality ([rendering] graphics_quality) and render_scale (the renderer never supersamples: a
 * scale above 1 is a warning and draws at 1), and jobs: the app's (rill_app_jobs), so the frame's
 * culling runs on its workers. Other fields are left as they are. */
void rill_content_renderer_desc(rill_content *content, struct rill_renderer_desc *inout);

/* Accessors; valid until rill_content_destroy. */
rill_app *rill_content_app(const rill_content *content);
rill_world *rill_content_world(const rill_content *content);
rill_content_kind rill_content_get_kind(const rill_content *content);
/* The settings (from project.toml, or the defaults). */
const rill_project *rill_content_project(const rill_content *content);
/* The project folder (the VFS loose root; "" when only packs are mounted). */
const char *rill_content_root(const rill_content *content);
/* The VFS path of the scene or model that rill_content_load loads ("" = none). */
const char *rill_content_scene(const rill_content *content);
/* How many packs were mounted. */
uint32_t rill_content_pack_count(const rill_content *content);
/* The model system (NULL before rill_content_load). */
rill_app_models *rill_content_models(const rill_content *content);
/* The render components of the content's world (registered at open; rill_render_extract routes
 * their settings types): a plugin host adds its effects' settings here
 * (rill_plugins_desc.components). NULL built without the renderer. */
struct rill_render_components *rill_content_render_components(rill_content *content);
/* The physics world and terrain system rill_content_load turns on for every content (Collider /
 * RigidBody entities simulate; Terrain entities load, stream with the gate and camera, and draw
 * through rill_render_terrain). NULL before load, after release, or built without the renderer. */
rill_app_physics *rill_content_physics(const rill_content *c);
rill_app_terrain *rill_content_terrain(const rill_content *c);
/* The terrain renderer drawing its chunks (rill_render_terrain_get_stats: GPU bytes). Same life. */
struct rill_render_terrain *rill_content_render_terrain(const rill_content *c);
/* The far-world proxies drawn where streamed instances are not resident (rill/render/hlod.h:
 * rill_render_hlod_get_stats). rill_content_snapshot appends this frame's proxies to the
 * snapshot's instances. Same life. */
struct rill_render_hlod *rill_content_hlod(const rill_content *c);
/* The script system rill_content_load turns on for every content (Script entities run; physics
 * and terrain raycasts reach the content's). NULL before load, after release, or built without
 * the renderer. */
rill_scripts *rill_content_scripts(const rill_content *c);
/* RILL_CONTENT_DEFAULT_* bits for the defaults rill_content_load added. */
uint32_t rill_content_defaults_used(const rill_content *content);
/* One line per stated default, '\n'-separated ("" = none). Settings read but not applied
 * yet are logged as warnings instead. */
const char *rill_content_notes(const rill_content *content);
/* Appends a line to the notes (and logs it at INFO), for tools that apply their own defaults. */
void rill_content_note(rill_content *content, const char *fmt, ...) RILL_PRINTF(2, 3);
/* Background colour and ambient light applied to every snapshot when set (a zero ambient keeps
 * the extract's). Mutable; for tools with their own look (the demo's sky). */
typedef struct rill_content_look {
    bool set_clear_color;
    float clear_color[3];
    float ambient[3];
} rill_content_look;
rill_content_look *rill_content_get_look(rill_content *content);

#ifdef __cplusplus
}
#endif
#endif /* RILL_APP_H */
