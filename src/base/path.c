/* path.c: string helpers for project-relative paths ('/' separators, optional "#label"). They
 * touch no file system; every result goes into a caller buffer that is checked for room. */
#include "rill/base.h"

#include <string.h>

/* Copies src[0..len) into dst as a NUL-terminated string; on overflow dst becomes "". */
static bool put(char *dst, size_t cap, const char *src, size_t len) {
    if (dst == NULL || cap == 0) {
        return false;
    }
    if (len >= cap) {
        dst[0] = '\0';
        return false;
    }
    memmove(dst, src, len); /* memmove: src may lie inside dst */
    dst[len] = '\0';
    return true;
}

static bool fail(char *dst, size_t cap) {
    if (dst != NULL && cap > 0) {
        dst[0] = '\0';
    }
    return false;
}

bool rill_path_join(char *dst, size_t cap, const char *a, const char *b) {
    if (dst == NULL || cap == 0) {
        return false;
    }
    a = a != NULL ? a : "";
    b = b != NULL ? b : "";
    size_t alen = strlen(a);
    if (alen == 0) {
        return put(dst, cap, b, strlen(b));
    }
    while (*b == '/') {
        b++; /* "a" + "/b" is "a/b": the join never doubles the separator */
    }
    size_t blen = strlen(b);
    bool sep = blen > 0 && a[alen - 1] != '/';
    size_t total = alen + (sep ? 1u : 0u) + blen;
    if (total >= cap) {
        return fail(dst, cap);
    }
    /* a may be dst itself (join(buf, n, buf, "x")); b must not overlap dst. */
    memmove(dst, a, alen);
    if (sep) {
        dst[alen] = '/';
    }
    memcpy(dst + alen + (sep ? 1u : 0u), b, blen);
    dst[total] = '\0';
    return true;
}

static bool starts_with_drive(const char *p) {
    char c = (char)(p[0] | 0x20);
    return c >= 'a' && c <= 'z' && p[1] == ':';
}

/* Longest path normalize accepts; longer input is refused rather than cut. */
#define PATH_NORMALIZE_MAX 4096

bool rill_path_normalize(char *dst, size_t cap, const char *path) {
    if (dst == NULL || cap == 0 || path == NULL) {
        return fail(dst, cap);
    }
    /* Absolute paths, drive letters ("C:") and UNC names ("\\host") are refused: asset paths are
     * always relative to a project root. */
    if (path[0] == '/' || path[0] == '\\' || starts_with_drive(path)) {
        return fail(dst, cap);
    }
    /* Work in a scratch buffer: "long/name/../x" may only fit dst once resolved, and dst may be
     * path itself. The result is never longer than the input. */
    char tmp[PATH_NORMALIZE_MAX];
    if (strnlen(path, sizeof(tmp)) >= sizeof(tmp)) {
        return fail(dst, cap);
    }
    size_t out = 0;
    size_t i = 0;
    for (;;) {
        while (path[i] == '/' || path[i] == '\\') {
            i++;
        }
        if (path[i] == '\0') {
            break;
        }
        size_t start = i;
        while (path[i] != '\0' && path[i] != '/' && path[i] != '\\') {
            i++;
        }
        size_t len = i - start;
        if (len == 1 && path[start] == '.') {
            continue;
        }
        if (len == 2 && path[start] == '.' && path[start + 1] == '.') {
            if (out == 0) {
                return fail(dst, cap); /* would climb above the root */
            }
            while (out > 0 && tmp[out - 1] != '/') {
                out--;
            }
            if (out > 0) {
                out--; /* drop the separator before the removed component */
            }
            continue;
        }
        if (out > 0) {
            tmp[out++] = '/';
        }
        memcpy(tmp + out, path + start, len);
        out += len;
    }
    tmp[out] = '\0';
    /* "x/../C:/y" resolves to a drive path: refused too, so normalizing is idempotent. */
    if (starts_with_drive(tmp)) {
        return fail(dst, cap);
    }
    return put(dst, cap, tmp, out);
}

bool rill_path_dirname(char *dst, size_t cap, const char *path) {
    if (path == NULL) {
        return fail(dst, cap);
    }
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') {
        len--; /* "a/b/" has the folder "a", like "a/b" */
    }
    while (len > 0 && path[len - 1] != '/') {
        len--;
    }
    if (len == 0) {
        return put(dst, cap, "", 0);
    }
    while (len > 1 && path[len - 1] == '/') {
        len--;
    }
    return put(dst, cap, path, len); /* "/x" keeps its root "/" */
}

const char *rill_path_basename(const char *path) {
    if (path == NULL) {
        return "";
    }
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

const char *rill_path_ext(const char *path) {
    const char *base = rill_path_basename(path);
    const char *dot = strrchr(base, '.');
    /* A leading dot names a hidden file (".gitignore"), not an extension. */
    if (dot == NULL || dot == base) {
        return base + strlen(base);
    }
    return dot + 1;
}

bool rill_path_ext_is(const char *path, const char *ext) {
    return rill_str_ieq(rill_path_ext(path), ext);
}

bool rill_path_split_label(const char *path, char *dst_path, size_t cap, const char **out_label) {
    if (out_label != NULL) {
        *out_label = "";
    }
    if (path == NULL) {
        return fail(dst_path, cap);
    }
    const char *hash = strchr(path, '#');
    size_t len = hash != NULL ? (size_t)(hash - path) : strlen(path);
    if (out_label != NULL) {
        *out_label = hash != NULL ? hash + 1 : path + len;
    }
    return put(dst_path, cap, path, len);
}
