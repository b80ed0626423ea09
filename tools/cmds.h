/* cmds.h: the subcommands of the `rill` program and the few helpers they share. Each subcommand
 * lives in tools/cmd_<name>.c and is `int rill_cmd_<name>(int argc, char **argv)`, where argv[0]
 * is the subcommand's own name; it returns the process exit code (0 ok, 1 failure, 2 usage). */
#ifndef RILL_TOOLS_CMDS_H
#define RILL_TOOLS_CMDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rill/app.h"
#include "rill/render.h"
#include "rill/render/debug.h"

int rill_cmd_scene(int argc, char **argv);      /* cmd_scene.c: check, load */
int rill_cmd_components(int argc, char **argv); /* cmd_components.c: the component reference */
int rill_cmd_demo(int argc, char **argv);       /* cmd_demo.c: generate and load the demo world */
int rill_cmd_plugins(int argc, char **argv);    /* cmd_plugins.c: load and list effect plugins */
int rill_cmd_pack(int argc, char **argv);       /* cmd_pack.c (asset helper): .rpak packing */

int rill_cmd_run(int argc, char **argv); /* cmd_run.c: the windowed viewer */
int rill_cmd_fly(int argc, char **argv); /* cmd_fly.c: the streaming fly-through */

/* Installs a log sink that prints "warning: ..." / "error: ..." lines on stderr, and counts them
 * (rill_cli_log_count). Debug and info messages are shown only when verbose. */
void rill_cli_install_log(bool verbose);
uint32_t rill_cli_log_count(rill_log_level level);
/* CPU time of the calling thread in ns (cli_load.c): on a machine shared with other work,
 * wall-clock frame times include time the thread spent preempted. */
uint64_t rill_cli_thread_cpu_ns(void);
typedef struct rill_cli_thread_waits {
    uint64_t major_faults, voluntary_switches, involuntary_switches;
} rill_cli_thread_waits;
rill_cli_thread_waits rill_cli_thread_waits_now(void);

/* Feedback on slow work (cli_progress.c): each step of `rill render` / `rill run` / a game is
 * named as it starts; a step still running after a second is printed on stderr as
 * "PROG: STEP ...", and its end then adds "done in T s: RESULT". On when stderr is a terminal or
 * RILL_PROGRESS=1 (all: every step at once; 0: off). */
void rill_cli_progress_start(const char *prog);
void rill_cli_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ends the current step; fmt (NULL = none) says what it did. */
void rill_cli_step_done(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rill_cli_progress_stop(void);

/* Sets desc's hooks for the tools' content (rill_content in rill/app.h): the demo components are
 * registered before loading and turned into drawables after (rill_demo_make_drawables), and packs
 * appended to this program (or `<exe>.rpak`) are mounted. `render`, `run` and `demo` share it. */
void rill_cli_content_hooks(rill_content_desc *desc);
/* Whether this program carries an appended pack (`rill pack append`) or has `<exe>.rpak` beside
 * it: then INPUT may be left out of `rill run` and `rill render`. */
bool rill_cli_has_appended_pack(void);

/* Options of an asynchronous scene load driven by a frame loop (shared by `rill scene load` and
 * `rill demo`). The content is opened through rill_content (rill/app.h), so the project folder,
 * its settings and the packs are resolved as `rill render` and `rill run` resolve them. */
typedef struct rill_cli_load_opts {
    const char *root;  /* project folder (the VFS loose root; "" = packs only); NULL = from scene */
    const char *pack;  /* a .rpak mounted before the root (NULL = none) */
    const char *scene; /* VFS path of the scene inside root; without root, a file path */
    double budget_ms;  /* per-frame spawn budget; 0 = the project's (3 ms) */
    bool progress;     /* draw a live bar (stdout is a terminal) instead of periodic lines */
    uint64_t max_frames; /* give up after this many frames; 0 = 1,000,000 */
    bool trace_frames;   /* print one line per frame with its main-thread time */
    bool strict;         /* unknown components and missing assets fail the load */
    /* The shipped plugins' components are known when the scene file names components the engine
     * lacks (`rill scene load`; cli_plugin_components.c). */
    bool plugin_components;
    /* Called once the scene has loaded, before the app is destroyed (NULL = none); a non-zero
     * return becomes rill_cli_load_scene's result. `rill demo` renders the world from here. */
    int (*on_loaded)(rill_app *app, void *user);
    void *on_loaded_user;
} rill_cli_load_opts;

/* What a load did, for the summary and for tests. */
typedef struct rill_cli_load_result {
    bool ok;
    uint32_t entities;   /* entities in the world when the load completed */
    uint64_t frames;     /* frames run from the start of the load to its completion */
    double seconds;      /* wall-clock time of the load */
    double max_frame_ms; /* main-thread time of the slowest frame */
    double p99_frame_ms; /* 99th percentile of main-thread frame time */
    double mean_frame_ms;
    double max_frame_cpu_ms; /* the same two on the main thread's CPU clock (preemption left out) */
    double p99_frame_cpu_ms;
} rill_cli_load_result;

/* Opens the content (cli_load.c), loads opts->scene asynchronously, runs frames until the load
 * completes or fails, prints progress and a summary on stdout (errors on stderr). Returns 0 when
 * the scene loaded, 1 otherwise. out may be NULL. */
int rill_cli_load_scene(const rill_cli_load_opts *opts, rill_cli_load_result *out);

/* >>viewer (cmd_run.c) ------------------------------------------------------------------------- */

struct rill_renderer;

/* >>effects (cli_effects.c): the plugins, --plugins DIR, --no-plugins and
 * --effect NAME[:field=value,...] of render/run */

#define RILL_CLI_MAX_EFFECTS 16u
#define RILL_CLI_MAX_PLUGIN_DIRS 8u
struct rill_plugins;
typedef struct rill_cli_effects {
    const char *plugins_dirs[RILL_CLI_MAX_PLUGIN_DIRS]; /* --plugins, in order */
    uint32_t plugins_dir_count;
    bool no_plugins; /* --no-plugins: not even the shipped ones */
    const char *specs[RILL_CLI_MAX_EFFECTS];
    uint32_t count;
    struct rill_plugins *host; /* after attach */
} rill_cli_effects;
/* Takes --effect / --plugins (value v) and --no-plugins: 1 consumed with v (skip it), 2 consumed
 * alone, 0 not one of them, -1 usage error (printed). */
int rill_cli_effects_arg(rill_cli_effects *fx, const char *cmd, const char *a, const char *v);
/* The folder of the plugins shipped with Rill, found from this program's path (cli_plugin_dir.c):
 * <bin>/../plugins in a build tree, <prefix>/lib/rill/plugins beside an installed bin/rill. False
 * (buf holds the install path looked for) when neither folder exists. */
bool rill_cli_shipped_plugins_dir(char *buf, size_t cap);
/* Creates the plugin host on the content's world and loads each --plugins DIR, then the shipped
 * plugins (one whose file name a --plugins folder holds is skipped: a folder of one's own
 * overrides them), unless --no-plugins; then checks every --effect against the components that
 * exist (name, fields, values) so a typo fails before the content loads. After the renderer, before
 * rill_content_load (the scene may name plugin components). */
rill_result rill_cli_effects_attach(rill_cli_effects *fx, struct rill_renderer *r, rill_content *c,
                                    rill_error *err);
/* Puts each --effect on every active camera (after rill_content_load: the default camera exists
 * then). Unknown names and fields fail with the known ones listed. */
rill_result rill_cli_effects_apply(rill_cli_effects *fx, rill_content *c, struct rill_renderer *r,
                                   rill_error *err);
/* --variant NAME (render, run; after rill_content_load): every Model entity draws its glTF material
 * variant NAME from the next frame. Fails, naming the variants the first model has, when no
 * loaded model has one of that name. */
rill_result rill_cli_apply_variant(rill_content *c, const char *variant, rill_error *err);
/* Hot reload: once per frame. */
void rill_cli_effects_poll(rill_cli_effects *fx);
/* "effects: ssao 0.31 ms bloom 0.12 ms Sepia 0.02 ms" (what ran in the last frame, GPU time of
 * the newest finished frame); returns the length written (< cap). */
size_t rill_cli_effects_format(struct rill_renderer *r, char *buf, size_t cap);
/* Destroys the plugin host (before the renderer). */
void rill_cli_effects_release(rill_cli_effects *fx);

/* cli_plugin_components.c: the shipped plugins' components for `rill scene check` and `rill scene
 * load`, which bind a scene without rendering it. */
typedef struct rill_cli_plugin_components {
    struct rill_renderer *r; /* a 16x16 headless renderer, only when needed */
    rill_cli_effects fx;     /* its plugin host on the content's world */
} rill_cli_plugin_components;
/* When text (the scene file `file`) names components c's world lacks, registers the shipped
 * plugins' components in it (through a small headless renderer: the plugin host needs one); else
 * does nothing. A note on stderr when they cannot be registered. Before the scene binds. */
void rill_cli_plugin_components_add(rill_cli_plugin_components *pc, rill_content *c,
                                    const char *file, const char *text, size_t size);
/* Destroys the plugin host: before rill_content_destroy. */
void rill_cli_plugin_components_release_host(rill_cli_plugin_components *pc);
/* Destroys what is left (the host, then the renderer): after rill_content_destroy. */
void rill_cli_plugin_components_release(rill_cli_plugin_components *pc);

/* Viewer options (`rill run`, `rill demo --window`). Zero = defaults. */
/* cli_wireframe.c: --wireframe-fade START,END[,MIN_ALPHA] and --wireframe-color R,G,B,A into
 * *wf (only the fields the option sets); false after printing "rill CMD: bad ..." on stderr. */
bool rill_cli_wireframe_fade(const char *cmd, const char *v, rill_render_wireframe *wf);
bool rill_cli_wireframe_color(const char *cmd, const char *v, rill_render_wireframe *wf);
/* Puts what the options gave (a colour with alpha > 0, fade on) over the snapshot's look. */
void rill_cli_wireframe_apply(const rill_render_wireframe *given, rill_render_wireframe *snap);

/* cli_debug_view.c: the debug panel settings a tool uses for panel (culling freezes; observe: the
 * culling and cameras panels are seen from behind the camera, as `rill render` shows them). */
rill_render_debug_desc rill_cli_debug_desc(rill_render_panel panel, bool observe);
/* The material resolver: picks the entity drawn at pixel (x, y) of a w x h output through snap's
 * primary view (any channel) and describes what draws it (rill_render_describe_instance) as
 * overlay text and one JSON object; false (text and JSON saying so) when nothing is there. */
bool rill_cli_debug_material(rill_content *c, rill_renderer *r, const rill_render_snapshot *snap,
                             float x, float y, float w, float h, char *text, size_t text_cap,
                             char *json, size_t json_cap);

typedef struct rill_cli_viewer_opts {
    const char *title;      /* NULL = the project's [window] title */
    uint32_t width, height; /* 0 = the project's [window] size */
    int vsync;              /* -1 = the project's [window] vsync; 0 off; 1 on */
    int fullscreen;         /* -1 = the project's [window] fullscreen; 0 window; 1 full screen */
    uint64_t frames;        /* quit after this many frames; 0 = run until closed */
    const char *screenshot; /* PNG of the last frame; NULL = none */
    float shadow_distance;  /* 0 = the renderer's default */
    bool has_start;         /* start the fly camera at eye looking at target (else: the world's
                               primary camera, or the stated default one) */
    float eye[3], target[3];
    float near_plane, far_plane; /* 0 = the world camera's */
    float speed;                 /* fly speed in units per second; 0 = from the far plane */
    /* --channel NAME=MODE (already validated), applied in order after the content loads */
    const char *channels[64];
    uint32_t channel_count;
    bool has_pick; /* --pick X,Y: pick at that pixel on the last frame and print the hit */
    /* --press KEYS: the channel keys (1-4) KEYS[f] pressed on frame f as the keyboard would,
     * each printed with the overlay's channel line; NULL = none */
    const char *press;
    float pick_x, pick_y;
    /* --debug-view stats|culling|cameras|material: the debug panel to start with (F9 cycles
     * them); 0 = none */
    int debug_panel;
    /* --key KEY@FRAME,...: script keys pressed on those frames (1 = the first) for the scripts
     * (rill.key_pressed / key_down), in a window or headless; codes from rill_scripts_key_code */
    struct {
        int code;
        uint64_t frame;
    } keys[16];
    uint32_t key_count;
    /* --wireframe-fade / --wireframe-color: the wireframe look (zero = the snapshot's own) */
    rill_render_wireframe wireframe;
    int quality;                      /* 0 = the project's tier, else rill_render_quality */
    float render_scale;               /* 0 = the project's */
    struct rill_cli_effects *effects; /* --effect / --plugins (NULL = none) */
    bool headless;   /* --headless: no window; an offscreen renderer runs `frames` frames */
    bool no_overlay; /* --no-overlay: the overlay (and the hint toast) starts hidden; F1 toggles */
    /* rill_cli_render_thread: 0 = the project's [rendering] render_thread (on by default),
     * 1 = --render-thread, -1 = --no-render-thread */
    int render_thread;
    bool time_of_day_set; /* --time-of-day HOURS: turn the sun after the load (F8 steps it) */
    float time_of_day;
    const char *variant; /* --variant NAME: every Model drawn in that material variant */
    int passthrough;     /* --passthrough: 0 = each Camera's own, else 1 + rill_passthrough */
} rill_cli_viewer_opts;

/* Opens the window and a renderer on it (sized and tuned by the content's project), loads the
 * content (rill_content_load), then runs its app's frame loop with a fly camera and the stats
 * overlay until the window closes, Esc is pressed or opts->frames have run. Releases what the
 * load made before returning; the caller destroys the content. Prints why and returns 1 when
 * there is no display; 0 on success. */
int rill_cli_viewer_run(const rill_cli_viewer_opts *opts, rill_content *content);

#endif /* RILL_TOOLS_CMDS_H */
