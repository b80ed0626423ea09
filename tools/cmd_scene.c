/* cmd_scene.c: `rill scene check FILE` validates a .rsn file against the component registry and
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
            "usage: rill scene check FILE [--lossy]\n"
            "       rill scene load FILE [--root DIR] [--pack X.rpak] [--budget-ms N] [--verbose]\n"
            "                            [--trace-frames]\n"
            "\n"
            "check  parse FILE and bind it to the component registry; print every problem as\n"
            "       FILE:LINE:COL and exit 1 when there is an error\n"
            "load   load FILE asynchronously in a headless frame loop (nested scene instances\n"
            "       included) and print entities, frames, time and main-thread frame times.\n"
            "       --root DIR    project folder that scene paths are relative to\n"
            "                     (default: the nearest folder up to three above FILE\n"
            "                     with a project.toml, else the folder holding FILE)\n"
            "       --pack X.rpak mount a pack before the root (its files win)\n"
            "       --budget-ms N wall-clock spawn budget per frame (default: project, 3 ms)\n"
            "       --verbose     show debug and info log lines\n"
            "       --trace-frames print every frame's main-thread time\n");
}

/* >>check ------------------------------------------------------------------------------------- */

static int scene_check(int argc, char **argv) {
    const char *file = NULL;
    bool lossy = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lossy") == 0) {
            lossy = true;
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
    rill_world *world = rill_world_create(NULL, NULL);
    if (!world) {
        rill_free(data);
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    /* Every component the engine registers (the renderer's, physics' and terrain's included),
     * so their names and values are checked, plus the demo's. */
    if (rill_app_register_components(world, NULL, NULL, &err) != RILL_OK) {
        rill_free(data);
        rill_world_destroy(world);
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    rill_demo_register_components(world);
    rill_scene_check_info info = {0};
    rill_result r = rill_scene_check_text(world, file, (const char *)data, size,
                                          &(rill_scene_read_desc){.lossy = lossy}, &info, &err);
    rill_free(data);
    rill_world_destroy(world);
    if (r != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg[0] ? err.msg : rill_result_str(r));
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
    bool trace = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            root = argv[++i];
        } else if (strcmp(argv[i], "--pack") == 0 && i + 1 < argc) {
            pack = argv[++i];
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            char *end = NULL;
            budget_ms = strtod(argv[++i], &end);
            if (!end || *end || !(budget_ms > 0.0) || budget_ms > 10000.0) {
                fprintf(stderr, "rill scene load: --budget-ms needs a number of milliseconds "
                                "in (0, 10000]\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(argv[i], "--trace-frames") == 0) {
            trace = true;
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
                               .trace_frames = trace};
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
    fprintf(stderr, "rill scene: unknown subcommand '%s'\n", argv[1]);
    scene_usage(stderr);
    return 2;
}
