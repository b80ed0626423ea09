/* cmd_export.c: the `rill export` subcommand, a thin wrapper around rill_export_run
 * (rill/formats/export.h): parses options, draws progress, prints failures and the summary.
 *
 *   rill export PROJECT_DIR --out game.rpak [--loose-out DIR] [--lod-levels N] [--jobs N]
 *                           [--cache DIR] [--no-cache] [--force] [--quiet] [--verbose]
 *
 * Scripts (.lua) are compiled as they are packed: one that does not compile fails with its
 * file:line.
 *
 * Progress: on a terminal, one live line (bar, done/total, rebuilt/cached/failed, current file);
 * otherwise a plain line at most once a second. Failures are "error: path: reason" lines on
 * stderr. Exit codes: 0 every input exported, 1 some input failed or the output could not be
 * written (everything else is still exported), 2 usage error.
 */
#include "cli_args.h"
#include "rill/app.h"
#include "rill/formats/export.h"
#include "rill/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rill_cmd_export(int argc, char **argv);

static int export_usage(FILE *f, int code) {
    fprintf(f,
            "usage: rill export PROJECT_DIR --out game.rpak [options]\n"
            "       rill export PROJECT_DIR --loose-out DIR [options]\n\n"
            "Converts textures to .rmip, adds edge buffers and LOD levels to models, copies the\n"
            "rest, and writes a pack and/or loose files. Unchanged inputs come from the cache.\n"
            "Lua scripts are checked: one that does not compile fails with its file:line.\n\n"
            "options:\n"
            "  --out FILE        the .rpak to write (atomically)\n"
            "  --loose-out DIR   also (or instead) write the outputs as loose files into DIR\n"
            "  --lod-levels N    LOD levels to bake per model, 0..4 (default 3; 0 = none)\n"
            "  --no-hlod         bake no far-world proxies (.hlod beside streamed scenes)\n"
            "  --hlod-triangles N  triangles per far-world proxy (district, or level-1 cell),\n"
            "                    64..1000000 (default 4000)\n"
            "  --jobs N          worker threads (default: one per core)\n"
            "  --cache DIR       cache folder (default PROJECT_DIR/.rill-cache)\n"
            "  --no-cache        neither read nor write the cache\n"
            "  --force           rebuild every input\n"
            "  --quiet           no progress output (failures and the summary still print)\n"
            "  --verbose         one line per input with its status and time\n");
    return code;
}

typedef struct progress_state {
    bool tty;
    bool quiet;
    bool verbose;
    bool line_open; /* a live line is on screen and must be cleared before other output */
    double last_print;
} progress_state;

static void human_bytes(char *dst, size_t cap, uint64_t n) {
    if (n >= (1u << 20)) {
        snprintf(dst, cap, "%.2f MiB", (double)n / (1024.0 * 1024.0));
    } else if (n >= 1024u) {
        snprintf(dst, cap, "%.1f KiB", (double)n / 1024.0);
    } else {
        snprintf(dst, cap, "%llu B", (unsigned long long)n);
    }
}

static void clear_line(progress_state *ps) {
    if (ps->line_open) {
        fputs("\r\033[K", stdout);
        fflush(stdout);
        ps->line_open = false;
    }
}

/* The live line: bar, counts, and what happened last (or what is taking long). */
static void draw_bar(progress_state *ps, const rill_export_counts *c, const char *what,
                     const char *path, double secs) {
    enum { BAR = 24 };
    char bar[BAR + 1];
    uint32_t fill = c->inputs ? (uint32_t)((uint64_t)c->done * BAR / c->inputs) : BAR;
    for (uint32_t i = 0; i < BAR; i++) {
        bar[i] = i < fill ? '#' : '.';
    }
    bar[BAR] = '\0';
    char t[32] = "";
    if (secs >= 0.0) {
        snprintf(t, sizeof(t), " (%.0f s)", secs);
    }
    printf("\r\033[K[%s] %u/%u  rebuilt %u  cached %u  copied %u  failed %u  %s: %.40s%s", bar,
           c->done, c->inputs, c->rebuilt, c->cached, c->copied, c->failed, what, path ? path : "",
           t);
    fflush(stdout);
    ps->line_open = true;
}

static void on_event(const rill_export_event *ev, void *user) {
    progress_state *ps = user;
    const rill_export_counts *c = &ev->counts;
    if (ev->type == RILL_EXPORT_EVENT_INPUT_DONE && ev->status == RILL_EXPORT_STATUS_FAILED) {
        clear_line(ps);
        fprintf(stderr, "error: %s\n", ev->message ? ev->message : ev->path);
        fflush(stderr);
    }
    if (ps->quiet) {
        return;
    }
    if (ev->type == RILL_EXPORT_EVENT_INPUT_DONE && ps->verbose) {
        clear_line(ps);
        printf("  %-8s %7.3f s  %s (%u output%s)\n", rill_export_status_name(ev->status),
               ev->input_sec, ev->path, ev->output_count, ev->output_count == 1 ? "" : "s");
    }
    if (ev->type == RILL_EXPORT_EVENT_BEGIN && !ps->tty) {
        printf("export: %u inputs\n", c->inputs);
        fflush(stdout);
    } else if (ev->type == RILL_EXPORT_EVENT_INPUT_DONE) {
        if (ps->tty) {
            draw_bar(ps, c, "done", ev->path, -1.0);
        } else if (ev->elapsed_sec - ps->last_print >= 1.0 || c->done == c->inputs) {
            ps->last_print = ev->elapsed_sec;
            printf("export: %u/%u done (rebuilt %u, cached %u, copied %u, failed %u)\n", c->done,
                   c->inputs, c->rebuilt, c->cached, c->copied, c->failed);
            fflush(stdout);
        }
    } else if (ev->type == RILL_EXPORT_EVENT_TICK && ps->tty && ev->input_sec >= 1.0) {
        /* A long input: say what is being worked on, so a slow texture does not look like a
         * hang. */
        draw_bar(ps, c, "working on", ev->path, ev->input_sec);
    } else if (ev->type == RILL_EXPORT_EVENT_WRITING) {
        clear_line(ps);
        if (!ps->tty) {
            printf("export: writing %s\n", ev->path ? ev->path : "the pack");
            fflush(stdout);
        }
    } else if (ev->type == RILL_EXPORT_EVENT_END) {
        clear_line(ps);
    }
}

/* Scripts are checked as they are packed: one that does not compile fails the export with its
 * file:line (the game would log the same error at its first frame). */
/* The project's own settings: a project.toml that does not read fails the export (the game
 * would not start); its warnings (unknown keys, wrong types) are logged, and a main_scene that
 * is not in the project folder (user) is said too. */
static bool check_project_file(const char *project_dir, const uint8_t *data, size_t size,
                               rill_error *err) {
    rill_toml *doc = NULL;
    if (rill_toml_parse((const char *)data, size, "project.toml", &doc, err) != RILL_OK) {
        return false;
    }
    rill_project p;
    rill_project_from_toml(doc, &p, NULL);
    rill_toml_destroy(doc);
    char os[4096];
    if (p.main_scene[0] && rill_path_join(os, sizeof os, project_dir, p.main_scene) &&
        !rill_file_exists(os)) {
        RILL_LOG_WARN("export",
                      "project.toml: main_scene '%s' is not in the project: the game "
                      "will not find its scene",
                      p.main_scene);
    }
    return true;
}

static bool check_input(const char *path, const uint8_t *data, size_t size, void *user,
                        rill_error *err) {
    if (strcmp(path, "project.toml") == 0) {
        return check_project_file(user, data, size, err);
    }
    size_t n = strlen(path);
    if (n < 4 || !rill_str_ieq(path + n - 4, ".lua")) {
        return true;
    }
    return rill_scripts_check_source(path, (const char *)data, size, err) == RILL_OK;
}

/* Parses s as a whole number in [min, max] into out; else prints "bad OPT 'S' (want ...)". */
static bool parse_count(const char *opt, const char *s, long long min, long long max,
                        uint32_t *out) {
    long long v = 0;
    if (!rill_cli_parse_int(s, min, max, &v)) {
        fprintf(stderr, "rill export: bad %s '%s' (want a count in [%lld, %lld])\n", opt, s, min,
                max);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* Whether a is one of export's options that take a value. */
static bool takes_value(const char *a) {
    static const char *const names[] = {"--out",  "--loose-out",      "--cache", "--lod-levels",
                                        "--jobs", "--hlod-triangles", NULL};
    return rill_cli_enum(a, names) >= 0;
}

int rill_cmd_export(int argc, char **argv) {
    rill_export_desc desc = {0};
    bool quiet = false;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (takes_value(a) && i + 1 >= argc) {
            fprintf(stderr, "rill export: %s needs a value\n", a);
            return 2;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            return export_usage(stdout, 0);
        } else if (strcmp(a, "--out") == 0) {
            desc.out_pack = argv[++i];
        } else if (strcmp(a, "--loose-out") == 0) {
            desc.loose_out = argv[++i];
        } else if (strcmp(a, "--cache") == 0) {
            desc.cache_dir = argv[++i];
        } else if (strcmp(a, "--lod-levels") == 0) {
            if (!parse_count(a, argv[++i], 0, 4, &desc.lod_levels)) {
                return 2;
            }
            desc.no_lods = desc.lod_levels == 0;
        } else if (strcmp(a, "--jobs") == 0) {
            if (!parse_count(a, argv[++i], 1, 1024, &desc.jobs)) {
                return 2;
            }
        } else if (strcmp(a, "--hlod-triangles") == 0) {
            if (!parse_count(a, argv[++i], 64, 1000000, &desc.hlod_triangles)) {
                return 2;
            }
        } else if (strcmp(a, "--no-hlod") == 0) {
            desc.no_hlod = true;
        } else if (strcmp(a, "--no-cache") == 0) {
            desc.no_cache = true;
        } else if (strcmp(a, "--force") == 0) {
            desc.force = true;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = true;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            verbose = true;
        } else if (a[0] != '-' && !desc.project_dir) {
            desc.project_dir = a;
        } else {
            fprintf(stderr, "rill export: unexpected argument '%s'\n\n", a);
            return export_usage(stderr, 2);
        }
    }
    if (!desc.project_dir || (!desc.out_pack && !desc.loose_out)) {
        fprintf(stderr, "rill export: missing %s\n\n",
                !desc.project_dir ? "PROJECT_DIR" : "--out FILE or --loose-out DIR");
        return export_usage(stderr, 2);
    }
    /* An output that cannot be written fails now, not after the whole export. The pack's folder
     * is created as the export would create it. */
    if (desc.out_pack) {
        char dir[4096], why[1024];
        rill_error derr = {0};
        if (rill_path_dirname(dir, sizeof(dir), desc.out_pack) && dir[0] &&
            rill_dir_create_all(dir, &derr) != RILL_OK) {
            fprintf(stderr, "rill export: cannot write --out: %s\n", derr.msg);
            return 1;
        }
        if (!rill_cli_writable(desc.out_pack, why, sizeof(why))) {
            fprintf(stderr, "rill export: cannot write --out: %s\n", why);
            return 1;
        }
    }
    char toml[4096];
    if (rill_dir_exists(desc.project_dir) &&
        rill_path_join(toml, sizeof toml, desc.project_dir, "project.toml") &&
        !rill_file_exists(toml)) {
        fprintf(stderr,
                "rill export: warning: %s holds no project.toml: the pack will have no main "
                "scene to play (a project folder holds one: docs/project-toml.md)\n",
                desc.project_dir);
    }
    progress_state ps = {0};
    ps.tty = isatty(fileno(stdout)) != 0;
    ps.quiet = quiet;
    ps.verbose = verbose;
    ps.last_print = -1.0;
    desc.progress = on_event;
    desc.progress_user = &ps;
    desc.check = check_input;
    desc.check_user = (void *)desc.project_dir;

    rill_export_result res = {0};
    rill_error err = {0};
    rill_result r = rill_export_run(&desc, &res, &err);
    const rill_export_counts *c = &res.counts;
    char in_b[32], out_b[32];
    human_bytes(in_b, sizeof(in_b), c->bytes_in);
    human_bytes(out_b, sizeof(out_b), c->bytes_out);
    printf("export: %u inputs, %u outputs: rebuilt %u, from cache %u, copied %u, failed %u\n",
           c->inputs, c->outputs, c->rebuilt, c->cached, c->copied, c->failed);
    char where[1100] = "";
    if (desc.out_pack) {
        snprintf(where, sizeof(where), " (%s)", desc.out_pack);
    }
    printf("export: %s in -> %s out%s; %.2f s on %u worker%s\n", in_b, out_b, where, res.seconds,
           res.worker_count, res.worker_count == 1 ? "" : "s");
    int code = 0;
    if (r != RILL_OK) {
        if (res.failure_count == 0 || c->failed == 0) {
            fprintf(stderr, "error: %s\n", err.msg);
        } else {
            fprintf(stderr, "error: %u input%s failed (listed above); the rest was exported\n",
                    c->failed, c->failed == 1 ? "" : "s");
        }
        code = 1;
    }
    rill_export_result_free(&res);
    return code;
}
