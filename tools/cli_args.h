/* cli_args.h: strict argument parsing shared by the `rill` subcommands: integers, floats, sizes,
 * enum names, and the check that an output path can be written before any work starts.
 * Header-only (static inline) so a test can link one cmd_<name>.c without the dispatcher. */
#ifndef RILL_TOOLS_CLI_ARGS_H
#define RILL_TOOLS_CLI_ARGS_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "rill/base.h"

/* Parses all of s as a decimal integer in [min, max]. A sign is accepted only when min < 0, so
 * "-1" is refused for counts instead of wrapping to a huge value as strtoul would. */
static inline bool rill_cli_parse_int(const char *s, long long min, long long max, long long *out) {
    if (!s || !*s || (*s == '-' && min >= 0) || *s == '+' || *s == ' ') {
        return false;
    }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || !end || *end != '\0' || v < min || v > max) {
        return false;
    }
    *out = v;
    return true;
}

/* Parses all of s as a finite number in [min, max]. */
static inline bool rill_cli_parse_float(const char *s, double min, double max, float *out) {
    if (!s || !*s || *s == ' ') {
        return false;
    }
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || !end || *end != '\0' || !isfinite(v) || v < min || v > max) {
        return false;
    }
    *out = (float)v;
    return true;
}

/* Parses "WxH" with both decimal in [1, 16384]. Each side goes through rill_cli_parse_int (sscanf's
 * %u wrapped "4294967312x16" to 16x16 and took "16x-4294967280"). */
static inline bool rill_cli_parse_size(const char *s, uint32_t *w, uint32_t *h) {
    const char *x = s ? strchr(s, 'x') : NULL;
    char side[8];
    long long a = 0, b = 0;
    if (!x || x == s || (size_t)(x - s) >= sizeof side || s[0] < '0' || s[0] > '9' || x[1] < '0' ||
        x[1] > '9') {
        return false;
    }
    memcpy(side, s, (size_t)(x - s));
    side[x - s] = '\0';
    if (!rill_cli_parse_int(side, 1, 16384, &a) || !rill_cli_parse_int(x + 1, 1, 16384, &b)) {
        return false;
    }
    *w = (uint32_t)a, *h = (uint32_t)b;
    return true;
}

/* Looks s up in the NULL-terminated `names`; returns its index, or -1. */
static inline int rill_cli_enum(const char *s, const char *const *names) {
    for (int i = 0; s && names[i]; i++) {
        if (strcmp(s, names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* Prints "WHO: bad OPTION 'VALUE' (one of a, b, c)" for an enum flag (WHO: "rill render"), then
 * "; did you mean 'b'?" when VALUE looks like a typo of one. */
static inline void rill_cli_bad_enum(const char *who, const char *opt, const char *value,
                                     const char *const *names) {
    fprintf(stderr, "%s: bad %s '%s' (one of", who, opt, value);
    uint32_t n = 0;
    for (; names[n]; n++) {
        fprintf(stderr, "%s %s", n ? "," : "", names[n]);
    }
    const char *near = rill_suggest_from_list(value, names, n);
    fprintf(stderr, ")%s%s%s\n", near ? "; did you mean '" : "", near ? near : "",
            near ? "'?" : "");
}

/* Whether a file can be written at path: its folder exists and is writable, and the path is not
 * a folder or a read-only file. On false, why (cap bytes) says which. Nothing is created. */
static inline bool rill_cli_writable(const char *path, char *why, size_t cap) {
    struct stat st;
    if (!path || !*path) {
        snprintf(why, cap, "empty path");
        return false;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(why, cap, "%.400s is a folder", path);
            return false;
        }
        if (access(path, W_OK) != 0) {
            snprintf(why, cap, "%.400s: %s", path, strerror(errno));
            return false;
        }
        return true;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, sizeof(dir), ".");
    } else if (slash == path) {
        snprintf(dir, sizeof(dir), "/");
    } else {
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, cap, "%.400s: the folder %.400s does not exist", path, dir);
        return false;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(why, cap, "%.400s: cannot write in %.400s: %s", path, dir, strerror(errno));
        return false;
    }
    return true;
}

#endif /* RILL_TOOLS_CLI_ARGS_H */
