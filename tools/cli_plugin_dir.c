/* cli_plugin_dir.c: where the plugins shipped with Rill are, found from the path of the running
 * program so a build tree and an install both work without --plugins:
 *   <bin>/../plugins            a build tree (build/<preset>/tools/rill -> build/<preset>/plugins,
 *                               told by build/<preset>/CMakeCache.txt);
 *   <bin>/RILL_PLUGINS_FROM_BIN an install (<prefix>/bin/rill -> <prefix>/lib/rill/plugins: CMake
 *                               sets it from the install folders, tools/CMakeLists.txt). */
#include "cmds.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RILL_PLUGINS_FROM_BIN
#define RILL_PLUGINS_FROM_BIN "../lib/rill/plugins"
#endif

/* Whether path is a folder; if so it is made canonical in place (no "bin/../lib"). */
static bool is_dir(char *path, size_t cap) {
    struct stat st;
    char real[PATH_MAX];
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        return false;
    }
    if (realpath(path, real)) {
        snprintf(path, cap, "%s", real);
    }
    return true;
}

bool rill_cli_shipped_plugins_dir(char *buf, size_t cap) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        snprintf(buf, cap, "%s", RILL_PLUGINS_FROM_BIN);
        return false;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
        *slash = 0;
    }
    /* A build tree (its CMakeCache.txt one level up): tools/ and plugins/ are siblings. */
    snprintf(buf, cap, "%s/../CMakeCache.txt", exe);
    if (access(buf, F_OK) == 0) {
        snprintf(buf, cap, "%s/../plugins", exe);
        return is_dir(buf, cap);
    }
    snprintf(buf, cap, "%s/%s", exe, RILL_PLUGINS_FROM_BIN);
    return is_dir(buf, cap);
}
