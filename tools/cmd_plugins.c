/* cmd_plugins.c: `rill plugins [--plugins DIR] [--json]` loads every effect plugin of a folder
 * (default: the shipped plugins, cli_plugin_dir.c) on a headless renderer (ABI check, shaderc
 * compilation: the same path `run` and `render` take) and lists each library with its ABI version
 * and effects; refused libraries are reported on stderr with the reason and make the exit code 1.
 */
#include "cmds.h"

#include "rill/render/plugins.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: rill plugins [--plugins DIR] [--json]\n"
            "  --plugins DIR  the folder of plugin libraries (*.so) and their shaders\n"
            "                 (default: the plugins shipped with Rill: <prefix>/lib/rill/plugins\n"
            "                 beside an installed bin/rill, build/<preset>/plugins in a build)\n"
            "  --json         one JSON object per plugin on stdout\n"
            "Loads every plugin of DIR (ABI check, shader compilation) and lists each with its\n"
            "ABI version and effects. Exit code 1 when a library is refused.\n");
}

static const char *phase_name(uint32_t phase) {
    static const char *names[] = {"gi", "hdr_post", "ldr_post", "overlay"};
    return phase < 4 ? names[phase] : "?";
}

static void print_plugin(const rill_plugins *p, uint32_t i, bool json) {
    rill_plugin_info info;
    rill_plugins_get(p, i, &info);
    if (json) {
        printf(
            "{\"name\":\"%s\",\"version\":\"%s\",\"abi\":\"%u.%u\",\"path\":\"%s\",\"effects\":[",
            info.name, info.version, info.abi_major, info.abi_minor, info.path);
    } else {
        printf("%s %s  ABI %u.%u  %s\n", info.name, info.version, info.abi_major, info.abi_minor,
               info.path);
    }
    uint32_t shown = 0;
    for (uint32_t k = 0; k < rill_plugins_effect_count(p); k++) {
        rill_plugin_effect_info e;
        rill_plugins_effect_get(p, k, &e);
        if (strcmp(e.plugin, info.name) != 0) {
            continue;
        }
        char reads[40];
        snprintf(reads, sizeof(reads), "%s%s%s", e.inputs & RILL_PLUGIN_INPUT_DEPTH ? " depth" : "",
                 e.inputs & RILL_PLUGIN_INPUT_NORMAL ? " normal" : "",
                 e.inputs & RILL_PLUGIN_INPUT_MOTION ? " motion" : "");
        if (json) {
            printf("%s{\"id\":\"%s\",\"phase\":\"%s\",\"order\":%d,\"settings_size\":%u,"
                   "\"reads\":\"%s\"}",
                   shown ? "," : "", e.id, phase_name(e.phase), e.order, e.settings_size,
                   reads[0] ? reads + 1 : "");
        } else {
            printf("  %s  phase %s, order %d, %u bytes of settings%s%s\n", e.id,
                   phase_name(e.phase), e.order, e.settings_size, reads[0] ? ", reads" : "", reads);
        }
        shown++;
    }
    if (json) {
        printf("]}\n");
    }
}

int rill_cmd_plugins(int argc, char **argv) {
    char dir[PATH_MAX];
    bool shipped = rill_cli_shipped_plugins_dir(dir, sizeof(dir));
    bool dir_given = false;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--plugins") == 0 && i + 1 >= argc) {
            fprintf(stderr, "rill plugins: --plugins needs a value\n");
            return 2;
        } else if (strcmp(argv[i], "--plugins") == 0) {
            snprintf(dir, sizeof(dir), "%s", argv[++i]);
            dir_given = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else {
            fprintf(stderr, "rill plugins: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!dir_given && !shipped) {
        fprintf(stderr,
                "rill plugins: no shipped plugins beside this program (looked for %s); name a "
                "folder with --plugins DIR\n",
                dir);
        return 1;
    }
    rill_cli_install_log(false);
    rill_renderer_desc rd = rill_renderer_query_defaults();
    rd.width = rd.height = 16;
    rd.render_thread = false; /* a plugin host: it draws no frame */
    rill_renderer *r = NULL;
    rill_error err = {0};
    if (!(r = rill_renderer_create(&rd, &err))) {
        fprintf(stderr, "rill plugins: %s\n", err.msg);
        return 1;
    }
    rill_plugins *p = rill_plugins_create(&(rill_plugins_desc){.renderer = r}, &err);
    uint32_t failed = 0;
    int rc = 0;
    if (!p || rill_plugins_load_dir(p, dir, &failed, &err) != RILL_OK) {
        fprintf(stderr, "rill plugins: %s\n", err.msg);
        rc = 1;
    } else {
        for (uint32_t i = 0; i < rill_plugins_count(p); i++) {
            print_plugin(p, i, json);
        }
        if (!json) {
            printf("%u plugin(s) loaded from %s, %u refused\n", rill_plugins_count(p), dir, failed);
        }
        rc = failed ? 1 : 0;
    }
    rill_plugins_destroy(p);
    rill_renderer_destroy(r);
    return rc;
}
