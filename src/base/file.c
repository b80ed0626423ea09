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

/* The kind of a non-regular file, for messages. */
static const char *kind_name(mode_t m) {
    return S_ISDIR(m)    ? "a folder"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

/* Length of root without trailing '/' (but "/" stays 1). */
static size_t root_len(const char *root) {
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/') {
        n--;
    }
    return n;
}

/* True when the real path `real` lies strictly inside the real folder `real_root`. */
static bool real_inside(const char *real, const char *real_root) {
    size_t n = root_len(real_root);
    if (n == 1 && real_root[0] == '/') {
        return real[0] == '/' && real[1] != '\0';
    }
    return strncmp(real, real_root, n) == 0 && real[n] == '/' && real[n + 1] != '\0';
}

/* Checks that path = root + '/' + rest stays under root: no '..' component, and no symbolic link
 * below root unless links_inside_root allows it and its target stays inside. On success
 * *out_follow is true when a link was met (the caller then opens the resolved path, written to
 * resolved[FILE_PATH_MAX]). */
static rill_result confine(const char *path, const char *root, bool *out_follow, char *resolved,
                           rill_error *err) {
    *out_follow = false;
    size_t rl = root_len(root);
    bool slash_root = rl == 1 && root[0] == '/';
    size_t rest_at = slash_root ? 1u : rl + 1u;
    if (strncmp(path, root, rl) != 0 || (!slash_root && path[rl] != '/') || path[rest_at] == '\0') {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: lies outside %s", path, root);
    }
    size_t len = strlen(path);
    if (len >= FILE_PATH_MAX) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", path);
    }
    char buf[FILE_PATH_MAX];
    memcpy(buf, path, len + 1u);
    bool link = false;
    /* Each component after root: lstat the prefix ending there. */
    for (size_t i = rest_at; i <= len; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') {
            continue;
        }
        size_t c0 = i;
        while (c0 > rest_at && buf[c0 - 1] != '/') {
            c0--;
        }
        if (i - c0 == 2 && buf[c0] == '.' && buf[c0 + 1] == '.') {
            return rill_error_set(err, RILL_ERR_LIMIT, "%s: '..' may not leave %s", path, root);
        }
        char saved = buf[i];
        buf[i] = '\0';
        struct stat lst;
        if (lstat(buf, &lst) != 0) {
            int e = errno;
            return rill_error_set(err, errno_result(e), "%s: cannot open: %s", path, strerror(e));
        }
        if (S_ISLNK(lst.st_mode)) {
            if (!rill_limits_links_inside_root()) {
                bool last = saved == '\0';
                return rill_error_set(err, RILL_ERR_LIMIT,
                                      "%s: %s%sis a symbolic link; links below %s are refused "
                                      "(RILL_LIMITS=links_inside_root=1 follows links that stay "
                                      "inside it)",
                                      path, last ? "" : buf, last ? "" : " ", root);
            }
            link = true;
        }
        buf[i] = saved;
    }
    if (!link) {
        return RILL_OK;
    }
    char real_root[FILE_PATH_MAX];
    if (realpath(path, resolved) == NULL || realpath(root, real_root) == NULL) {
        int e = errno;
        return rill_error_set(err, errno_result(e), "%s: cannot resolve: %s", path, strerror(e));
    }
    if (!real_inside(resolved, real_root)) {
        return rill_error_set(err, RILL_ERR_LIMIT,
                              "%s: a symbolic link leads outside %s; links may not leave it", path,
                              root);
    }
    *out_follow = true;
    return RILL_OK;
}

rill_result rill_file_open(const char *path, const char *root, rill_file *out, rill_error *err) {
    if (out == NULL) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_file_open: NULL output");
    }
    out->fd = -1;
    out->size = 0;
    rill_result r = check_path(path, err);
    if (r != RILL_OK) {
        return r;
    }
    char resolved[FILE_PATH_MAX];
    bool follow = false;
    if (root != NULL && root[0] != '\0') {
        r = confine(path, root, &follow, resolved, err);
        if (r != RILL_OK) {
            return r;
        }
    }
    const char *open_path = follow ? resolved : path;
    /* stat first so a device is never opened (opening some has effects), then O_NONBLOCK so a
     * FIFO swapped in meanwhile cannot block the open, then fstat the descriptor itself: that
     * check is the one that cannot race. */
    struct stat st;
    if (stat(open_path, &st) != 0) {
        int e = errno;
        return rill_error_set(err, errno_result(e), "%s: cannot open: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        return rill_error_set(err, RILL_ERR_IO, "%s: is %s, not a regular file", path,
                              kind_name(st.st_mode));
    }
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (root != NULL ? O_NOFOLLOW : 0);
    int fd = open(open_path, flags);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP) {
            return rill_error_set(err, RILL_ERR_LIMIT, "%s: became a symbolic link while opened",
                                  path);
        }
        return rill_error_set(err, errno_result(e), "%s: cannot open: %s", path, strerror(e));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return rill_error_set(err, RILL_ERR_IO, "%s: is %s, not a regular file", path,
                              kind_name(st.st_mode));
    }
    out->fd = fd;
    out->size = st.st_size > 0 ? (uint64_t)st.st_size : 0u;
    return RILL_OK;
}

void rill_file_close(rill_file *f) {
    if (f != NULL && f->fd >= 0) {
        close(f->fd);
        f->fd = -1;
    }
}

/* One read(2) of up to cap bytes into dst, retried on EINTR; the count, 0 at end of file, or -1
 * with the error in *out_errno. */
static ssize_t read_some(int fd, uint8_t *dst, size_t cap, int *out_errno) {
    for (;;) {
        ssize_t n = read(fd, dst, cap);
        if (n >= 0 || errno != EINTR) {
            *out_errno = n < 0 ? errno : 0;
            return n;
        }
    }
}

/* Reads the open file f until its end or until more than max bytes came (then RILL_ERR_LIMIT). */
static rill_result read_whole(rill_file *f, const char *path, uint64_t max, bool named_limit,
                              uint8_t **out_data, size_t *out_size, rill_error *err) {
    /* st_size is only a hint (files in /proc report 0, and files can grow while read), so the
     * loop reads until end of file and grows the buffer when needed, never past max. A buffer
     * that is full when the file should end is probed with a small read on the stack first: a
     * file of the size it said (the usual case) then ends without growing the buffer, which
     * copied every byte once more and touched twice the memory. */
    uint64_t want = f->size + 1u;
    size_t cap = want > 4096u ? (size_t)want : 4096u;
    size_t len = 0;
    uint8_t *buf = rill_malloc_bulk(cap, RILL_MEM_GENERAL, NULL);
    if (buf == NULL) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path,
                              cap);
    }
    uint8_t probe[512];
    for (;;) {
        if (len + 1u >= cap) {
            int e = 0;
            ssize_t n = (uint64_t)len > max ? 0 : read_some(f->fd, probe, sizeof(probe), &e);
            if (n < 0) {
                rill_free(buf);
                return rill_error_set(err, RILL_ERR_IO, "%s: offset %zu: read failed: %s", path,
                                      len, strerror(e));
            }
            if (n == 0) {
                break; /* end of file, or past max: reported below */
            }
            size_t extra = (size_t)n;
            size_t new_cap = cap * 2u > len + 1u + extra ? cap * 2u : len + 1u + extra;
            uint8_t *nb =
                new_cap > cap ? rill_realloc_tagged(buf, new_cap, RILL_MEM_GENERAL) : NULL;
            if (nb == NULL) {
                rill_free(buf);
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
            buf = nb;
            cap = new_cap;
            memcpy(buf + len, probe, extra);
            len += extra;
            continue;
        }
        int e = 0;
        ssize_t n = read_some(f->fd, buf + len, cap - 1u - len, &e);
        if (n < 0) {
            rill_free(buf);
            return rill_error_set(err, RILL_ERR_IO, "%s: offset %zu: read failed: %s", path, len,
                                  strerror(e));
        }
        if (n == 0) {
            break;
        }
        len += (size_t)n;
    }
    if ((uint64_t)len > max) {
        rill_free(buf);
        return named_limit
                   ? rill_limit_check(RILL_LIMIT_FILE_BYTES, len, path, err)
                   : rill_error_set(err, RILL_ERR_LIMIT, "%s: grew past %llu bytes while read",
                                    path, (unsigned long long)max);
    }
    buf[len] = '\0';
    *out_data = buf;
    *out_size = len;
    return RILL_OK;
}

rill_result rill_file_read_all_in(const char *root, const char *path, uint64_t max_bytes,
                                  uint8_t **out_data, size_t *out_size, rill_error *err) {
    if (out_data == NULL || out_size == NULL) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_file_read_all: NULL output");
    }
    *out_data = NULL;
    *out_size = 0;
    rill_file f;
    rill_result r = rill_file_open(path, root, &f, err);
    if (r != RILL_OK) {
        return r;
    }
    uint64_t limit = rill_limit_get(RILL_LIMIT_FILE_BYTES);
    bool named = max_bytes == 0 || max_bytes >= limit;
    uint64_t max = named ? limit : max_bytes;
    if (max > (uint64_t)SIZE_MAX / 4u) {
        max = (uint64_t)SIZE_MAX / 4u;
    }
    if (f.size > max) {
        rill_file_close(&f);
        return named ? rill_limit_check(RILL_LIMIT_FILE_BYTES, f.size, path, err)
                     : rill_error_set(err, RILL_ERR_LIMIT,
                                      "%s: %llu bytes exceeds the limit of %llu bytes for this "
                                      "kind of file",
                                      path, (unsigned long long)f.size, (unsigned long long)max);
    }
    r = read_whole(&f, path, max, named, out_data, out_size, err);
    rill_file_close(&f);
    return r;
}

rill_result rill_file_read_all(const char *path, uint8_t **out_data, size_t *out_size,
                               rill_error *err) {
    return rill_file_read_all_in(NULL, path, 0, out_data, out_size, err);
}

rill_result rill_file_read_range_in(const char *root, const char *path, uint64_t offset,
                                    size_t size, void *dst, rill_error *err) {
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
    rill_file f;
    r = rill_file_open(path, root, &f, err);
    if (r != RILL_OK) {
        return r;
    }
    int fd = f.fd;
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

rill_result rill_file_read_range(const char *path, uint64_t offset, size_t size, void *dst,
                                 rill_error *err) {
    return rill_file_read_range_in(NULL, path, offset, size, dst, err);
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
