/* cmds.h: the subcommands of the `rill` program and the few helpers they share. Each subcommand
 * lives in tools/cmd_<name>.c and is `int rill_cmd_<name>(int argc, char **argv)`, where argv[0]
 * is the subcommand's own name; it returns the process exit code (0 ok, 1 failure, 2 usage). */
#ifndef RILL_TOOLS_CMDS_H
#define RILL_TOOLS_CMDS_H

#include <stdbool.h>
#include <stdint.h>

#include "rill/app.h"

int rill_cmd_scene(int argc, char **argv); /* cmd_scene.c: check, load */
int rill_cmd_demo(int argc, char **argv);  /* cmd_demo.c: generate and load the demo world */
int rill_cmd_pack(int argc, char **argv);  /* cmd_pack.c (asset helper): .rpak packing */

/* Installs a log sink that prints "warning: ..." / "error: ..." lines on stderr, and counts them
 * (rill_cli_log_count). Debug and info messages are shown only when verbose. */
void rill_cli_install_log(bool verbose);
uint32_t rill_cli_log_count(rill_log_level level);

/* Registers the components the demo world uses (DemoBuilding, DemoProp, DemoLight) in world, so
 * that `rill scene check/load` know them as well as `rill demo` does. Idempotent. */
void rill_demo_register_components(rill_world *world);

/* Options of an asynchronous scene load driven by a frame loop (shared by `rill scene load` and
 * `rill demo`). */
typedef struct rill_cli_load_opts {
    const char *root;    /* project folder (the VFS loose root) */
    const char *pack;    /* a .rpak mounted before the root (NULL = none) */
    const char *scene;   /* VFS path of the scene inside root */
    double budget_ms;    /* per-frame spawn budget; 0 = the project's (3 ms) */
    bool progress;       /* draw a live bar (stdout is a terminal) instead of periodic lines */
    uint64_t max_frames; /* give up after this many frames; 0 = 1,000,000 */
    bool trace_frames;   /* print one line per frame with its main-thread time */
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
} rill_cli_load_result;

/* Creates an app on opts->root, loads opts->scene asynchronously, runs frames until the load
 * completes or fails, prints progress and a summary on stdout (errors on stderr). Returns 0 when
 * the scene loaded, 1 otherwise. out may be NULL. */
int rill_cli_load_scene(const rill_cli_load_opts *opts, rill_cli_load_result *out);

#endif /* RILL_TOOLS_CMDS_H */
