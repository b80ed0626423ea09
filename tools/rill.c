/* rill.c: the `rill` command-line program. It parses nothing itself beyond the subcommand name,
 * `help` and `--version`: each subcommand lives in its own tools/cmd_<name>.c. This file also
 * holds the log sink the subcommands share, and the shipped game: a copy of rill carrying a pack
 * takes a player's options only (>>shipped game).
 */
#include "cli_opts.h"
#include "cmds.h"
#include "demo.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "rill/formats/rpak.h"
#include "rill/render.h"

/* The project version, kept equal to `project(rill VERSION ...)` in CMakeLists.txt. */
#define RILL_CLI_VERSION "0.1.0"

/* `rill pack` is written in tools/cmd_pack.c by the asset module's owner. A weak declaration
 * lets this program build and run (with a clear message) in a tree where that file is absent. */
__attribute__((weak)) int rill_cmd_pack(int argc, char **argv);
/* `rill export` lives in tools/cmd_export.c (rill/formats/export.h does the work). */
int rill_cmd_export(int argc, char **argv);
/* `rill render` (tools/cmd_render.c, render module owner), weak for builds without the renderer. */
__attribute__((weak)) int rill_cmd_render(int argc, char **argv);
/* `rill run` (tools/cmd_run.c), weak for the same reason. */
__attribute__((weak)) int rill_cmd_run(int argc, char **argv);
/* `rill fly` (tools/cmd_fly.c, the streaming fly-through), weak for the same reason. */
__attribute__((weak)) int rill_cmd_fly(int argc, char **argv);

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

static int cmd_help(int argc, char **argv);

static const command COMMANDS[] = {
    {"scene", rill_cmd_scene, "check or load .rsn scene files"},
    {"components", rill_cmd_components, "list every component with its fields and defaults"},
    {"demo", rill_cmd_demo, "generate the demo world and load it"},
    {"pack", NULL /* resolved at run time: weak */, "build and inspect .rpak packs"},
    {"export", rill_cmd_export, "export a project to a .rpak (textures, models, LODs)"},
    {"render", NULL /* resolved at run time: weak */,
     "render a project, scene, model or pack to a PNG (headless)"},
    {"run", NULL /* resolved at run time: weak */,
     "play a project, scene, model or pack in a window"},
    {"fly", NULL /* resolved at run time: weak */,
     "fly through a project or pack with streaming on; frame times, counters, map"},
    {"plugins", rill_cmd_plugins, "list the effect plugins a folder holds, with ABI and effects"},
    {"help", cmd_help, "show this help, or a command's help"},
};

static void print_usage(FILE *f) {
    fprintf(f, "usage: rill [--limit name=value]... <command> [options]\n"
               "       rill --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(COMMANDS) / sizeof(COMMANDS[0]); i++) {
        fprintf(f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    }
    fprintf(
        f, "\nRun `rill help <command>` or `rill <command> --help` for a command's options.\n"
           "Resource limits (docs/limits.md): --limit name=value, or RILL_LIMITS=name=value,...\n");
}

static int (*command_fn(const command *c))(int, char **) {
    if (strcmp(c->name, "pack") == 0) {
        return rill_cmd_pack; /* NULL when cmd_pack.c is not linked */
    }
    if (strcmp(c->name, "render") == 0) {
        return rill_cmd_render; /* NULL when the renderer is not linked */
    }
    if (strcmp(c->name, "run") == 0) {
        return rill_cmd_run; /* NULL when cmd_run.c is not linked */
    }
    if (strcmp(c->name, "fly") == 0) {
        return rill_cmd_fly; /* NULL when cmd_fly.c is not linked */
    }
    return c->fn;
}

static const char *command_name_at(const void *ctx, uint32_t i) {
    (void)ctx;
    return COMMANDS[i].name;
}

/* "rill: unknown command 'NAME'", with the nearest command when NAME looks like a typo of one. */
static void unknown_command(const char *name) {
    const char *near = rill_suggest_name(name, strlen(name), command_name_at, NULL,
                                         (uint32_t)(sizeof(COMMANDS) / sizeof(COMMANDS[0])));
    if (near) {
        fprintf(stderr, "rill: unknown command '%s'; did you mean '%s'?\n", name, near);
    } else {
        fprintf(stderr, "rill: unknown command '%s'\n", name);
    }
}

static int cmd_help(int argc, char **argv) {
    /* COMMAND, and for scene and pack one of their subcommands (`rill help pack create`). */
    bool sub = argc > 1 && (strcmp(argv[1], "scene") == 0 || strcmp(argv[1], "pack") == 0);
    if (argc > (sub ? 3 : 2)) {
        fprintf(stderr, "rill help: unexpected argument '%s'\n", argv[sub ? 3 : 2]);
        return 2;
    }
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0) {
        printf("usage: rill help [COMMAND]\n"
               "Without COMMAND, lists the commands; with one, prints its options (the same as\n"
               "`rill COMMAND --help`).\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof(COMMANDS) / sizeof(COMMANDS[0]); i++) {
        if (strcmp(argv[1], COMMANDS[i].name) == 0 && COMMANDS[i].fn != cmd_help) {
            int (*fn)(int, char **) = command_fn(&COMMANDS[i]);
            if (!fn) {
                fprintf(stderr, "rill: '%s' is not part of this build\n", argv[1]);
                return 1;
            }
            char help_flag[] = "--help";
            char *sub_argv[] = {argv[1], help_flag, NULL};
            return fn(2, sub_argv);
        }
    }
    unknown_command(argv[1]);
    return 2;
}

/* >>log --------------------------------------------------------------------------------------- */

static _Atomic uint32_t log_counts[RILL_LOG_NONE + 1];
static bool log_verbose;

static void cli_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)user;
    if ((unsigned)level <= RILL_LOG_NONE) {
        atomic_fetch_add(&log_counts[level], 1u);
    }
    if (level >= RILL_LOG_ERROR) {
        fprintf(stderr, "error: %s\n", msg);
    } else if (level == RILL_LOG_WARN) {
        fprintf(stderr, "warning: %s\n", msg);
    } else if (log_verbose) {
        fprintf(stderr, "[%s] %s: %s\n", rill_log_level_name(level), module, msg);
    } else if (level == RILL_LOG_INFO && module && strcmp(module, "script") == 0) {
        /* rill.log is the game's own output: shown without --verbose (docs/scripting.md). */
        fprintf(stderr, "%s\n", msg);
    }
}

void rill_cli_install_log(bool verbose) {
    log_verbose = verbose;
    rill_log_set_sink(cli_sink, NULL);
    /* INFO reaches the sink for the scripts' rill.log lines; the sink drops the others. */
    rill_log_set_level(verbose ? RILL_LOG_DEBUG : RILL_LOG_INFO);
}

uint32_t rill_cli_log_count(rill_log_level level) {
    return (unsigned)level <= RILL_LOG_NONE ? atomic_load(&log_counts[level]) : 0u;
}

/* >>limits ------------------------------------------------------------------------------------ */

/* Applies RILL_LIMITS, then each leading `--limit name=value` (or `--limit=name=value`) option,
 * removing the options from argv. Returns false (after printing why) on a bad value. */
static bool apply_limits(int *argc, char **argv) {
    rill_error err = {0};
    if (rill_limits_from_env(&err) != RILL_OK) {
        fprintf(stderr, "rill: %s\n", err.msg);
        return false;
    }
    rill_limits l;
    rill_limits_get(&l);
    int i = 1;
    while (i < *argc) {
        const char *spec = NULL;
        int used = 1;
        if (strcmp(argv[i], "--limit") == 0 && i + 1 >= *argc) {
            fprintf(stderr, "rill: --limit needs a value (name=value, see docs/limits.md)\n");
            return false;
        } else if (strcmp(argv[i], "--limit") == 0) {
            spec = argv[i + 1];
            used = 2;
        } else if (strncmp(argv[i], "--limit=", 8) == 0) {
            spec = argv[i] + 8;
        } else {
            break;
        }
        if (rill_limits_parse(spec, &l, &err) != RILL_OK) {
            fprintf(stderr, "rill: --limit: %s\n", err.msg);
            return false;
        }
        i += used;
    }
    rill_limits_set(&l);
    int removed = i - 1;
    for (int k = 1; k + removed <= *argc; ++k) {
        argv[k] = argv[k + removed]; /* argv[argc] is NULL and moves too */
    }
    *argc -= removed;
    return true;
}

/* >>content hooks --------------------------------------------------------------------------- */

static void hook_world(rill_world *world, void *user) {
    (void)user;
    rill_demo_register_components(world);
}

/* The demo's own components become drawables; a world with any gets the demo's daylight look. */
static int hook_loaded(rill_content *c, rill_renderer *r, void *user, rill_error *err) {
    (void)user;
    int64_t n = rill_demo_make_drawables(r, rill_content_world(c), err);
    if (n < 0) {
        return 1;
    }
    if (n > 0) {
        rill_content_look *look = rill_content_get_look(c);
        look->set_clear_color = true;
        look->clear_color[0] = 0.42f, look->clear_color[1] = 0.58f, look->clear_color[2] = 0.80f;
        look->ambient[0] = 0.16f, look->ambient[1] = 0.18f, look->ambient[2] = 0.22f;
    }
    return 0;
}

void rill_cli_content_hooks(rill_content_desc *desc) {
    desc->on_world = hook_world;
    desc->on_loaded = hook_loaded;
    desc->mount_packs = true;
}

bool rill_cli_has_appended_pack(void) {
    char exe[4096], side[4112];
    if (!rill_exe_path(exe, sizeof(exe))) {
        return false;
    }
    snprintf(side, sizeof(side), "%s.rpak", exe);
    if (rill_file_exists(side)) {
        return true;
    }
    rill_rpak *pak = NULL;
    rill_error err = {0};
    if (rill_rpak_open_file(exe, &pak, &err) != RILL_OK) {
        return false;
    }
    rill_rpak_close(pak);
    return true;
}

/* Whether this program ends with a pack trailer but the pack cannot be opened (a game whose
 * appended pack was damaged: cut short, overwritten); why says what is wrong. */
static bool appended_pack_damaged(char *why, size_t cap) {
    static const uint8_t magic[8] = {'R', 'P', 'A', 'K', 'E', 'N', 'D', 0x1A};
    char exe[4096];
    uint8_t tail[8];
    int64_t size = rill_exe_path(exe, sizeof(exe)) ? rill_file_size(exe) : -1;
    if (size < 8 || rill_file_read_range(exe, (uint64_t)size - 8u, 8, tail, NULL) != RILL_OK ||
        memcmp(tail, magic, 8) != 0) {
        return false;
    }
    rill_rpak *pak = NULL;
    rill_error err = {0};
    if (rill_rpak_open_file(exe, &pak, &err) == RILL_OK) {
        rill_rpak_close(pak);
        return false;
    }
    snprintf(why, cap, "%s", err.msg);
    return true;
}

/* >>shipped game ------------------------------------------------------------------------------ */

/* A copy of rill carrying a pack (`rill pack append`) is a game, not the developer tool: with no
 * arguments it plays its pack as `rill run` would, it takes only the options a player needs, and
 * its --help and --version are the game's (its project.toml's name and version). The developer
 * commands (export, pack, scene, render, ...) are not reachable from it. */
typedef struct game_opt {
    const char *name;
    bool value; /* takes a value (the next argument, or after '=') */
    const char *help;
} game_opt;

static const game_opt GAME_OPTS[] = {
    {"--window", false, "play in a window (default)"},
    {"--fullscreen", false, "play full screen on the primary monitor"},
    {"--size", true, "WxH  window size (default: the game's)"},
    {"--quality", true, "low|medium|high  graphics quality (default: the game's)"},
    {"--vsync", true, "on|off  wait for the display (default: on)"},
    {"--frames", true, "N  quit after N frames"},
    {"--screenshot", true, "PNG  save the last frame"},
    {"--headless", false, "no window: play --frames N frames (tests, servers)"},
    {"--help", false, "show this help"},
    {"--version", false, "show the game's name and version"},
};

static const char *game_exe_name(const char *argv0) {
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    return slash ? slash + 1 : (argv0 && argv0[0] ? argv0 : "game");
}

/* The game's project (from its pack's project.toml); false after printing why. */
static bool game_project(const char *exe, rill_project *out) {
    rill_error err = {0};
    rill_content_desc cd = {0};
    rill_cli_content_hooks(&cd);
    rill_content *c = rill_content_open(&cd, &err);
    if (!c) {
        fprintf(stderr, "%s: %s\n", exe, err.msg);
        return false;
    }
    *out = *rill_content_project(c);
    rill_content_destroy(c);
    return true;
}

static void game_title(const rill_project *p, FILE *f) {
    fprintf(f, "%s%s%s\n", p->name, p->version[0] ? " " : "", p->version);
}

static void game_usage(const char *exe, const rill_project *p, FILE *f) {
    if (p) {
        game_title(p, f);
    }
    fprintf(f, "usage: %s [options]\n\noptions:\n", exe);
    for (size_t i = 0; i < RILL_COUNTOF(GAME_OPTS); i++) {
        const char *h = GAME_OPTS[i].help;
        const char *gap = GAME_OPTS[i].value ? strchr(h, ' ') : NULL;
        char left[48];
        snprintf(left, sizeof left, "%s%s%.*s", GAME_OPTS[i].name, gap ? " " : "",
                 gap ? (int)(gap - h) : 0, h);
        fprintf(f, "  %-26s %s\n", left, gap ? gap + 2 : h);
    }
    fprintf(f, "\nkeys: WASD move, Q/E down/up, right mouse drag looks around, F1 overlay, "
               "Esc quits\n");
}

/* Which game option argument a names (with "=value" allowed on value options); NULL = none. */
static const game_opt *game_find(const char *a) {
    for (size_t i = 0; i < RILL_COUNTOF(GAME_OPTS); i++) {
        size_t n = strlen(GAME_OPTS[i].name);
        if (strncmp(a, GAME_OPTS[i].name, n) == 0 &&
            (a[n] == '\0' || (a[n] == '=' && GAME_OPTS[i].value))) {
            return &GAME_OPTS[i];
        }
    }
    return NULL;
}

static int play_appended_pack(int argc, char **argv) {
    rill_cli_install_log(false);
    const char *exe = game_exe_name(argv[0]);
    rill_project project;
    for (int i = 1; i < argc; i++) {
        const game_opt *o = game_find(argv[i]);
        if (!o) {
            fprintf(stderr, "%s: unknown %s '%s' (this is a game: %s --help lists what it takes)\n",
                    exe, argv[i][0] == '-' ? "option" : "argument", argv[i], exe);
            return 2;
        }
        if (strcmp(o->name, "--help") == 0 || strcmp(o->name, "--version") == 0) {
            bool help = o->name[2] == 'h';
            if (!game_project(exe, &project)) {
                return 1;
            }
            if (help) {
                game_usage(exe, &project, stdout);
            } else {
                game_title(&project, stdout);
            }
            return 0;
        }
        if (o->value && !strchr(argv[i], '=')) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", exe, o->name);
                return 2;
            }
            i++; /* its value, whatever it looks like: `rill run` checks it */
        }
    }
    if (!rill_cmd_run) {
        fprintf(stderr, "%s: 'run' is not part of this build\n", exe);
        return 1;
    }
    char run_name[] = "run";
    argv[0] = run_name;
    rill_cli_progress_start(exe); /* its slow steps are named as the game's */
    rill_cli_set_program(exe);    /* and its refusals of a player's options */
    return rill_cmd_run(argc, argv);
}

int main(int argc, char **argv) {
    if (!apply_limits(&argc, argv)) {
        return 2;
    }
    char why[1024];
    if (appended_pack_damaged(why, sizeof why)) {
        fprintf(stderr, "%s: the pack appended to this program is damaged: %s\n",
                game_exe_name(argv[0]), why);
        return 1;
    }
    if (rill_cli_has_appended_pack()) {
        return play_appended_pack(argc, argv);
    }
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        if (argc > 2) {
            fprintf(stderr, "rill: unexpected argument '%s' after %s\n", argv[2], name);
            return 2;
        }
        printf("rill %s\n", RILL_CLI_VERSION);
        return 0;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_usage(stdout);
        return 0;
    }
    rill_cli_install_log(false);
    for (size_t i = 0; i < sizeof(COMMANDS) / sizeof(COMMANDS[0]); i++) {
        if (strcmp(name, COMMANDS[i].name) == 0) {
            int (*fn)(int, char **) = command_fn(&COMMANDS[i]);
            if (!fn) {
                fprintf(stderr, "rill: '%s' is not part of this build\n", name);
                return 1;
            }
            return fn(argc - 1, argv + 1);
        }
    }
    unknown_command(name);
    fprintf(stderr, "\n");
    print_usage(stderr);
    return 2;
}
