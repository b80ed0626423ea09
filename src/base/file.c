/* file.c: whole-file and range reads, atomic writes, folder creation, removal and walking (POSIX).
 *
 * Every failure becomes a rill_result plus a message that starts with the path, so callers can
 * pass it straight to the user. */
#include "rill/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Paths longer than this are refused with RILL_ERR_LIMIT rather than silently cut. */
#define FILE_PATH_MAX 4096
/* Folder nesting deeper than this is treated as a loop (for example through bind mounts). */
#define WALK_DEPTH_MAX 64

static rill_result errno_result(int e) {
    return (e == ENOENT || e == ENOTDIR) ? RILL_ERR_NOT_FOUND : RILL_ERR_IO;
}

static rill_result check_path(const char *path, rill_error *err) {
    if (path == NULL || path[0] == '\0') {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "empty path");
    }
    return RILL_OK;
}

rill_result rill_file_read_all(const char *path, uint8_t **out_data, size_t *out_size,
                               rill_error *err) {
    if (out_data == NULL || out_size == NULL) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_file_read_all: NULL output");
    }
    *out_data = NULL;
    *out_size = 0;
    rill_result r = check_path(path, err);
    if (r != RILL_OK) {
        return r;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return rill_error_set(err, errno_result(e), "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        close(fd);
        return rill_error_set(err, RILL_ERR_IO, "%s: not a readable file", path);
    }
    /* st_size is only a hint (files in /proc report 0, and files can grow while read), so the
     * loop reads until end of file and grows the buffer when needed. */
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1u : 4096u;
    size_t len = 0;
    uint8_t *buf = rill_malloc_tagged(cap, RILL_MEM_GENERAL);
    if (buf == NULL) {
        close(fd);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path,
                              cap);
    }
    for (;;) {
        if (len + 1u >= cap) {
            size_t new_cap = cap * 2u;
            uint8_t *nb =
                new_cap > cap ? rill_realloc_tagged(buf, new_cap, RILL_MEM_GENERAL) : NULL;
            if (nb == NULL) {
                rill_free(buf);
                close(fd);
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
            buf = nb;
            cap = new_cap;
        }
        ssize_t n = read(fd, buf + len, cap - 1u - len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            int e = errno;
            rill_free(buf);
            close(fd);
            return rill_error_set(err, RILL_ERR_IO, "%s: offset %zu: read failed: %s", path, len,
                                  strerror(e));
        }
        if (n == 0) {
            break;
        }
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    *out_data = buf;
    *out_size = len;
    return RILL_OK;
}

rill_result rill_file_read_range(const char *path, uint64_t offset, size_t size, void *dst,
                                 rill_error *err) {
    rill_result r = check_path(path, err);
    if (r != RILL_OK) {
        return r;
    }
    if (dst == NULL && size != 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: NULL destination", path);
    }
    if (offset > (uint64_t)INT64_MAX || size > (uint64_t)INT64_MAX - offset) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "%s: offset %llu: range of %zu bytes overflows", path,
                              (unsigned long long)offset, size);
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return rill_error_set(err, errno_result(e), "%s: cannot open: %s", path, strerror(e));
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (uint8_t *)dst + done, size - done, (off_t)(offset + done));
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            int e = errno;
            close(fd);
            return rill_error_set(err, RILL_ERR_IO, "%s: offset %llu: read failed: %s", path,
                                  (unsigned long long)(offset + done), strerror(e));
        }
        if (n == 0) {
            close(fd);
            return rill_error_set(err, RILL_ERR_TRUNCATED,
                                  "%s: offset %llu: wanted %zu bytes, file ends after %zu", path,
                                  (unsigned long long)offset, size, done);
        }
        done += (size_t)n;
    }
    close(fd);
    return RILL_OK;
}

rill_result rill_file_write_all(const char *path, const void *data, size_t size, rill_error *err) {
    rill_result r = check_path(path, err);
    if (r != RILL_OK) {
        return r;
    }
    if (data == NULL && size != 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: NULL data", path);
    }
    /* The temporary name is unique per process and call, so concurrent writers of the same file
     * never share a temporary; the last rename wins and readers never see a partial file. */
    static _Atomic uint32_t tmp_counter;
    char tmp[FILE_PATH_MAX];
    int w = snprintf(tmp, sizeof(tmp), "%s.tmp%ld.%u", path, (long)getpid(),
                     (unsigned)atomic_fetch_add(&tmp_counter, 1u));
    if (w < 0 || (size_t)w >= sizeof(tmp)) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", path);
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        return rill_error_set(err, errno_result(e), "%s: cannot create: %s", tmp, strerror(e));
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, (const uint8_t *)data + done, size - done);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            int e = errno;
            close(fd);
            unlink(tmp);
            return rill_error_set(err, RILL_ERR_IO, "%s: offset %zu: write failed: %s", path, done,
                                  strerror(e));
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return rill_error_set(err, RILL_ERR_IO, "%s: close failed: %s", path, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return rill_error_set(err, RILL_ERR_IO, "%s: rename failed: %s", path, strerror(e));
    }
    return RILL_OK;
}

bool rill_file_exists(const char *path) {
    struct stat st;
    return path != NULL && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool rill_dir_exists(const char *path) {
    struct stat st;
    return path != NULL && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int64_t rill_file_size(const char *path) {
    struct stat st;
    if (path == NULL || stat(path, &st) != 0) {
        return -1;
    }
    return (int64_t)st.st_size;
}

uint64_t rill_file_mtime_ns(const char *path) {
    struct stat st;
    if (path == NULL || stat(path, &st) != 0) {
        return 0;
    }
    return (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
}

rill_result rill_dir_create_all(const char *path, rill_error *err) {
    rill_result r = check_path(path, err);
    if (r != RILL_OK) {
        return r;
    }
    char buf[FILE_PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof(buf)) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", path);
    }
    memcpy(buf, path, len + 1u);
    /* Create each prefix ending at a '/', then the whole path; existing folders are fine. */
    for (size_t i = 1; i <= len; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') {
            continue;
        }
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            return rill_error_set(err, RILL_ERR_IO, "%s: cannot create folder: %s", buf,
                                  strerror(e));
        }
        buf[i] = saved;
    }
    if (!rill_dir_exists(path)) {
        return rill_error_set(err, RILL_ERR_IO, "%s: exists and is not a folder", path);
    }
    return RILL_OK;
}

/* Removes everything under the folder path (held in buf, length len, capacity FILE_PATH_MAX). */
static rill_result remove_tree(char *buf, size_t len, int depth, rill_error *err) {
    if (depth > WALK_DEPTH_MAX) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: folders nested too deep", buf);
    }
    DIR *d = opendir(buf);
    if (d == NULL) {
        int e = errno;
        return rill_error_set(err, errno_result(e), "%s: cannot open folder: %s", buf, strerror(e));
    }
    rill_result r = RILL_OK;
    struct dirent *ent;
    while (r == RILL_OK && (ent = readdir(d)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0) {
            continue;
        }
        size_t nlen = strlen(ent->d_name);
        if (len + 1u + nlen >= FILE_PATH_MAX) {
            r = rill_error_set(err, RILL_ERR_LIMIT, "%s/%s: path too long", buf, ent->d_name);
            break;
        }
        buf[len] = '/';
        memcpy(buf + len + 1u, ent->d_name, nlen + 1u);
        struct stat st;
        /* lstat: a link to a folder is removed as a link, never followed out of the tree. */
        if (lstat(buf, &st) == 0 && S_ISDIR(st.st_mode)) {
            r = remove_tree(buf, len + 1u + nlen, depth + 1, err);
            if (r == RILL_OK && rmdir(buf) != 0) {
                int e = errno;
                r = rill_error_set(err, RILL_ERR_IO, "%s: cannot remove: %s", buf, strerror(e));
            }
        } else if (unlink(buf) != 0 && errno != ENOENT) {
            int e = errno;
            r = rill_error_set(err, RILL_ERR_IO, "%s: cannot remove: %s", buf, strerror(e));
        }
        buf[len] = '\0';
    }
    closedir(d);
    return r;
}

rill_result rill_dir_remove_all(const char *path, rill_error *err) {
    rill_result r = check_path(path, err);
    if (r != RILL_OK) {
        return r;
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
        return RILL_OK; /* nothing to remove is success: callers use this to start clean */
    }
    if (!S_ISDIR(st.st_mode)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: not a folder", path);
    }
    char buf[FILE_PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof(buf)) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", path);
    }
    memcpy(buf, path, len + 1u);
    r = remove_tree(buf, len, 0, err);
    if (r == RILL_OK && rmdir(path) != 0) {
        int e = errno;
        r = rill_error_set(err, RILL_ERR_IO, "%s: cannot remove: %s", path, strerror(e));
    }
    return r;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct walk_state {
    rill_dir_visit_fn fn;
    void *user;
    rill_error *err;
    char full[FILE_PATH_MAX]; /* root + '/' + relative path */
    size_t rel_start;         /* where the relative path begins inside full */
} walk_state;

/* Walks the folder whose full path is ws->full[0..len). */
static rill_result walk_dir(walk_state *ws, size_t len, int depth) {
    if (depth > WALK_DEPTH_MAX) {
        return rill_error_set(ws->err, RILL_ERR_LIMIT, "%s: folders nested too deep", ws->full);
    }
    DIR *d = opendir(ws->full);
    if (d == NULL) {
        int e = errno;
        return rill_error_set(ws->err, errno_result(e), "%s: cannot open folder: %s", ws->full,
                              strerror(e));
    }
    /* Names are collected and sorted so the walk order is the same on every machine. */
    RILL_ARRAY(char *) names = {0};
    rill_result r = RILL_OK;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0) {
            continue;
        }
        char *name = rill_strdup(ent->d_name);
        if (name == NULL || !rill_array_push(&names, name)) {
            rill_free(name);
            r = rill_error_set(ws->err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", ws->full);
            break;
        }
    }
    closedir(d);
    if (r == RILL_OK && names.len > 1) {
        qsort(names.data, names.len, sizeof(char *), compare_names);
    }
    for (uint32_t i = 0; r == RILL_OK && i < names.len; ++i) {
        size_t nlen = strlen(names.data[i]);
        if (len + 1u + nlen >= FILE_PATH_MAX) {
            r = rill_error_set(ws->err, RILL_ERR_LIMIT, "%s/%s: path too long", ws->full,
                               names.data[i]);
            break;
        }
        ws->full[len] = '/';
        memcpy(ws->full + len + 1u, names.data[i], nlen + 1u);
        struct stat st;
        struct stat lst;
        if (stat(ws->full, &st) == 0) {
            if (S_ISREG(st.st_mode)) {
                r = ws->fn(ws->full + ws->rel_start, ws->user);
            } else if (S_ISDIR(st.st_mode) && lstat(ws->full, &lst) == 0 && !S_ISLNK(lst.st_mode)) {
                /* Links to folders are not followed, so a link cycle cannot loop the walk. */
                r = walk_dir(ws, len + 1u + nlen, depth + 1);
            }
        }
        ws->full[len] = '\0';
    }
    for (uint32_t i = 0; i < names.len; ++i) {
        rill_free(names.data[i]);
    }
    rill_array_free(&names);
    return r;
}

rill_result rill_dir_walk(const char *root, rill_dir_visit_fn fn, void *user, rill_error *err) {
    rill_result r = check_path(root, err);
    if (r != RILL_OK) {
        return r;
    }
    if (fn == NULL) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: NULL visit function", root);
    }
    walk_state *ws = rill_malloc_tagged(sizeof(walk_state), RILL_MEM_GENERAL);
    if (ws == NULL) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", root);
    }
    ws->fn = fn;
    ws->user = user;
    ws->err = err;
    size_t len = strlen(root);
    while (len > 1 && root[len - 1] == '/') {
        len--; /* "out/" and "out" walk the same way */
    }
    if (len + 1u >= FILE_PATH_MAX) {
        rill_free(ws);
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", root);
    }
    memcpy(ws->full, root, len);
    ws->full[len] = '\0';
    ws->rel_start = len + 1u; /* relative paths start after "root/" */
    r = walk_dir(ws, len, 0);
    rill_free(ws);
    return r;
}

bool rill_exe_path(char *dst, size_t cap) {
    if (dst == NULL || cap == 0) {
        return false;
    }
    ssize_t n = readlink("/proc/self/exe", dst, cap);
    if (n <= 0 || (size_t)n >= cap) {
        dst[0] = '\0';
        return false;
    }
    dst[n] = '\0';
    return true;
}
