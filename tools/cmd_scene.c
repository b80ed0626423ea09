/* cmd_scene.c: `rill scene check FILE` validates a .rsn file against the component registry (the
 * engine's, the demo's and, when the file names components the engine lacks, the shipped
 * plugins') and its asset paths against its project folder, and
 * `rill scene load FILE` loads it asynchronously through a headless frame loop, with a progress
 * display and a timing summary. The load driver (rill_cli_load_scene, cli_load.c) opens the
 * scene through rill_content and is shared with `rill demo`. */
#include "cmds.h"
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void scene_usage(FILE *f) {
    fprintf(f,
            "usage: rill scene check FILE [--lossy] [--strict]\n"
            "       rill scene load FILE [--root DIR] [--pack X.rpak] [--budget-ms N] [--verbose]\n"
            "                            [--trace-frames] [--strict]\n"
            "\n"
            "check  parse FILE and bind it to the component registry (the shipped plugins'\n"
            "       components included) and check its asset paths against the project folder\n"
            "       (the nearest folder up to three above FILE with a project.toml, else the\n"
            "       folder holding FILE); print every problem as FILE:LINE:COL (a misspelt\n"
            "       component or field gets \"did you mean\") and exit 1 when there is an error\n"
            "       --lossy       drop unknown components instead of keeping them\n"
            "       --strict      unknown components and missing assets are errors\n"
            "load   load FILE asynchronously in a headless frame loop (nested scene instances\n"
            "       included; the shipped plugins' components known as for check) and print\n"
            "       entities, frames, time and main-thread frame times.\n"
            "       --root DIR    project folder that scene paths are relative to\n"
            "                     (default: the nearest folder up to three above FILE\n"
            "                     with a project.toml, else the folder holding FILE)\n"
            "       --pack X.rpak mount a pack before the root (its files win)\n"
            "       --budget-ms N wall-clock spawn budget per frame (default: project, 3 ms)\n"
            "       --verbose     show debug and info log lines\n"
            "       --trace-frames print every frame's main-thread time\n"
            "       --strict      unknown components and missing assets fail the load\n");
}

/* >>check ------------------------------------------------------------------------------------- */

static int scene_check(int argc, char **argv) {
    const char *file = NULL;
    bool lossy = false, strict = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lossy") == 0) {
            lossy = true;
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = true;
        } else if (strcmp(argv[i], "--help") == 0) {
            scene_usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "rill scene check: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        fprintf(stderr, "rill scene check: missing FILE\n");
        scene_usage(stderr);
        return 2;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(file, &data, &size, &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    /* The scene as `rill render` opens it: its project folder (the VFS the asset paths are
     * checked against) and a world with every component the engine registers (the renderer's,
     * physics' and terrain's included) plus the demo's. */
    rill_content_desc cd = {.input = file};
    rill_cli_content_hooks(&cd);
    rill_content *c = rill_content_open(&cd, &err);
    if (!c) {
        rill_free(data);
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    rill_world *world = rill_content_world(c);
    if (rill_app_register_components(world, NULL, NULL, &err) != RILL_OK) {
        rill_free(data);
        rill_content_destroy(c);
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    rill_scene_read_desc rd = {
        .lossy = lossy, .strict = strict, .assets = rill_app_vfs(rill_content_app(c))};
    rill_scene_check_info info = {0};
    /* Components the engine lacks may be a plugin's: the shipped plugins' are added then. */
    rill_cli_plugin_components pc = {0};
    rill_cli_plugin_components_add(&pc, c, file, (const char *)data, size);
    rill_result res =
        rill_scene_check_text(world, file, (const char *)data, size, &rd, &info, &err);
    rill_free(data);
    rill_cli_plugin_components_release_host(&pc);
    rill_content_destroy(c);
    rill_cli_plugin_components_release(&pc);
    if (res != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg[0] ? err.msg : rill_result_str(res));
        return 1;
    }
    printf("%s: ok: %u entities, %u components (%u unknown), %u warnings\n", file, info.entities,
           info.components, info.unknown_components, info.warnings);
    return 0;
}

/* >>load -------------------------------------------------------------------------------------- */

static int scene_load(int argc, char **argv) {
    const char *file = NULL;
    const char *root = NULL;
    const char *pack = NULL;
    double budget_ms = 0.0;
    bool verbose = false;
    bool trace = false, strict = false;
    for (int i = 1; i < argc; i++) {
        bool takes_value = !strcmp(argv[i], "--root") || !strcmp(argv[i], "--pack") ||
                           !strcmp(argv[i], "--budget-ms");
        if (takes_value && i + 1 >= argc) {
            fprintf(stderr, "rill scene load: %s needs a value\n", argv[i]);
            return 2;
        }
        if (strcmp(argv[i], "--root") == 0) {
            root = argv[++i];
        } else if (strcmp(argv[i], "--pack") == 0) {
            pack = argv[++i];
        } else if (strcmp(argv[i], "--budget-ms") == 0) {
            char *end = NULL;
            const char *v = argv[++i];
            budget_ms = strtod(v, &end);
            if (!*v || !end || *end || !(budget_ms > 0.0) || budget_ms > 10000.0) {
                fprintf(stderr,
                        "rill scene load: bad --budget-ms '%s' (want milliseconds in (0, 10000])\n",
                        v);
                return 2;
            }
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(argv[i], "--trace-frames") == 0) {
            trace = true;
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = true;
        } else if (strcmp(argv[i], "--help") == 0) {
            scene_usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "rill scene load: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        fprintf(stderr, "rill scene load: missing FILE\n");
        scene_usage(stderr);
        return 2;
    }
    if (verbose) {
        rill_cli_install_log(true);
    }
    const char *rel = file;
    if (root) {
        /* FILE may be given as ROOT/x.rsn or as x.rsn relative to ROOT. */
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/') {
            n--;
        }
        if (strncmp(file, root, n) == 0 && file[n] == '/') {
            rel = file + n + 1;
        }
    }
    rill_cli_load_opts opts = {.root = root,
                               .pack = pack,
                               .scene = rel,
                               .budget_ms = budget_ms,
                               .progress = !trace && isatty(STDOUT_FILENO) != 0,
                               .trace_frames = trace,
                               .strict = strict,
                               .plugin_components = true};
    return rill_cli_load_scene(&opts, NULL);
}

int rill_cmd_scene(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        scene_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "check") == 0) {
        return scene_check(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "load") == 0) {
        return scene_load(argc - 1, argv + 1);
    }
    static const char *const subs[] = {"check", "load"};
    const char *near = rill_suggest_from_list(argv[1], subs, 2);
    fprintf(stderr, "rill scene: unknown subcommand '%s'%s%s%s\n", argv[1],
            near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    scene_usage(stderr);
    return 2;
}
