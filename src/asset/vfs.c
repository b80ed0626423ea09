/* vfs.c: the virtual file system. Resolves project-relative paths against generic mounts (packs,
 * through rill_vfs_mount_ops tables) in mount order, then loose folders in mount order.
 *
 * Thread-safety: the mount tables are arrays sized once at creation; a mount is fully written
 * before the count that publishes it is raised (under the lock), and mounts are never removed
 * before destroy. Readers snapshot the counts under the lock and then use the entries without
 * it, so I/O never runs under the VFS lock.
 */
#include "rill/asset.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define VFS_MODULE "vfs"

typedef struct vfs_mount {
    rill_vfs_mount_ops ops; /* generic mounts only */
    char *name;             /* ops name, or the folder of a loose root */
} vfs_mount;

struct rill_vfs {
    rill_vfs_desc desc;
    rill_mutex lock;
    vfs_mount *packs; /* [desc.max_mounts] */
    vfs_mount *dirs;  /* [desc.max_mounts] */
    uint32_t pack_count;
    uint32_t dir_count;
    _Atomic uint64_t read_calls;
    _Atomic uint64_t bytes_returned;
    _Atomic uint64_t misses;
};

rill_vfs_desc rill_vfs_query_defaults(void) {
    rill_vfs_desc d = {0};
    d.max_mounts = 32;
    return d;
}

static rill_vfs_desc vfs_desc_defaults(const rill_vfs_desc *desc) {
    rill_vfs_desc d = desc ? *desc : (rill_vfs_desc){0};
    rill_vfs_desc def = rill_vfs_query_defaults();
    if (d.max_mounts == 0) {
        d.max_mounts = def.max_mounts;
    }
    return d;
}

rill_vfs *rill_vfs_create(const rill_vfs_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_vfs_create", err) != RILL_OK) {
        return NULL;
    }
    rill_vfs *vfs = rill_calloc_tagged(1, sizeof(*vfs), RILL_MEM_ASSET);
    if (!vfs) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_vfs_create: out of memory");
        return NULL;
    }
    vfs->desc = vfs_desc_defaults(desc);
    vfs->packs = rill_calloc_tagged(vfs->desc.max_mounts, sizeof(vfs_mount), RILL_MEM_ASSET);
    vfs->dirs = rill_calloc_tagged(vfs->desc.max_mounts, sizeof(vfs_mount), RILL_MEM_ASSET);
    if (!vfs->packs || !vfs->dirs) {
        rill_free(vfs->packs);
        rill_free(vfs->dirs);
        rill_free(vfs);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_vfs_create: out of memory");
        return NULL;
    }
    rill_mutex_init(&vfs->lock);
    return vfs;
}

void rill_vfs_destroy(rill_vfs *vfs) {
    if (!vfs) {
        return;
    }
    for (uint32_t i = 0; i < vfs->pack_count; ++i) {
        if (vfs->packs[i].ops.close) {
            vfs->packs[i].ops.close(vfs->packs[i].ops.user);
        }
        rill_free(vfs->packs[i].name);
    }
    for (uint32_t i = 0; i < vfs->dir_count; ++i) {
        rill_free(vfs->dirs[i].name);
    }
    rill_mutex_destroy(&vfs->lock);
    rill_free(vfs->packs);
    rill_free(vfs->dirs);
    rill_free(vfs);
}

rill_result rill_vfs_mount_dir(rill_vfs *vfs, const char *dir, rill_error *err) {
    if (!vfs || !dir || !dir[0]) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "vfs: mount_dir needs a folder");
    }
    if (!rill_dir_exists(dir)) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: folder not found, cannot mount it",
                              dir);
    }
    char *copy = rill_strdup(dir);
    if (!copy) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", dir);
    }
    /* A trailing '/' would double up when paths are joined; drop it (but keep "/"). */
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/') {
        copy[--n] = '\0';
    }
    rill_mutex_lock(&vfs->lock);
    if (vfs->pack_count + vfs->dir_count >= vfs->desc.max_mounts) {
        rill_mutex_unlock(&vfs->lock);
        rill_free(copy);
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: mount table full (%u mounts)", dir,
                              vfs->desc.max_mounts);
    }
    vfs->dirs[vfs->dir_count].name = copy;
    vfs->dir_count++;
    rill_mutex_unlock(&vfs->lock);
    return RILL_OK;
}

rill_result rill_vfs_mount(rill_vfs *vfs, const rill_vfs_mount_ops *ops, rill_error *err) {
    if (!vfs || !ops || !ops->stat || !ops->read_all || !ops->read_range) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "vfs: mount needs stat, read_all and read_range");
    }
    char *name = rill_strdup(ops->name ? ops->name : "mount");
    if (!name) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "vfs: out of memory");
    }
    rill_mutex_lock(&vfs->lock);
    if (vfs->pack_count + vfs->dir_count >= vfs->desc.max_mounts) {
        rill_mutex_unlock(&vfs->lock);
        rill_free(name);
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: mount table full (%u mounts)",
                              ops->name ? ops->name : "mount", vfs->desc.max_mounts);
    }
    vfs_mount *m = &vfs->packs[vfs->pack_count];
    m->ops = *ops;
    m->ops.name = name;
    m->name = name;
    vfs->pack_count++;
    rill_mutex_unlock(&vfs->lock);
    return RILL_OK;
}

/* >>resolution -------------------------------------------------------------------------------- */

/* Normalizes `path` into dst. The empty path names no file. */
static bool vfs_normalize(const char *path, char *dst, size_t cap) {
    if (!path || !rill_path_normalize(dst, cap, path)) {
        return false;
    }
    return dst[0] != '\0';
}

static void vfs_snapshot(rill_vfs *vfs, uint32_t *out_packs, uint32_t *out_dirs) {
    rill_mutex_lock(&vfs->lock);
    *out_packs = vfs->pack_count;
    *out_dirs = vfs->dir_count;
    rill_mutex_unlock(&vfs->lock);
}

/* Stats a loose file; only regular files count (a folder with an asset's name is not a file). */
static bool dir_stat(const vfs_mount *m, const char *path, char *full, size_t cap,
                     uint64_t *out_size) {
    if (!rill_path_join(full, cap, m->name, path)) {
        return false;
    }
    struct stat st;
    if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
        return false;
    }
    if (out_size) {
        *out_size = (uint64_t)st.st_size;
    }
    return true;
}

/* The mount that serves `norm`: *out_pack for a generic mount, else *out_dir (one is set). */
typedef struct vfs_hit {
    const vfs_mount *pack;
    const vfs_mount *dir;
    uint64_t size;
    char full[RILL_VFS_PATH_MAX * 2 + 8]; /* the OS path of a loose file */
} vfs_hit;

static bool vfs_resolve(rill_vfs *vfs, const char *norm, vfs_hit *hit) {
    uint32_t np, nd;
    vfs_snapshot(vfs, &np, &nd);
    hit->pack = NULL;
    hit->dir = NULL;
    for (uint32_t i = 0; i < np; ++i) {
        const vfs_mount *m = &vfs->packs[i];
        if (m->ops.stat(m->ops.user, norm, &hit->size)) {
            hit->pack = m;
            return true;
        }
    }
    for (uint32_t i = 0; i < nd; ++i) {
        const vfs_mount *m = &vfs->dirs[i];
        if (dir_stat(m, norm, hit->full, sizeof(hit->full), &hit->size)) {
            hit->dir = m;
            return true;
        }
    }
    atomic_fetch_add(&vfs->misses, 1);
    return false;
}

static rill_result vfs_not_found(rill_vfs *vfs, const char *path, rill_error *err) {
    uint32_t np, nd;
    vfs_snapshot(vfs, &np, &nd);
    return rill_error_set(err, RILL_ERR_NOT_FOUND,
                          "%s: not found (searched %u pack mount(s) and %u folder(s))", path, np,
                          nd);
}

bool rill_vfs_exists(rill_vfs *vfs, const char *path) {
    return rill_vfs_size(vfs, path) >= 0;
}

int64_t rill_vfs_size(rill_vfs *vfs, const char *path) {
    char norm[RILL_VFS_PATH_MAX + 1];
    if (!vfs || !vfs_normalize(path, norm, sizeof(norm))) {
        return -1;
    }
    vfs_hit hit;
    if (!vfs_resolve(vfs, norm, &hit) || hit.size > (uint64_t)INT64_MAX) {
        return -1;
    }
    return (int64_t)hit.size;
}

const char *rill_vfs_which(rill_vfs *vfs, const char *path) {
    char norm[RILL_VFS_PATH_MAX + 1];
    if (!vfs || !vfs_normalize(path, norm, sizeof(norm))) {
        return NULL;
    }
    vfs_hit hit;
    if (!vfs_resolve(vfs, norm, &hit)) {
        return NULL;
    }
    return hit.pack ? hit.pack->name : hit.dir->name;
}

/* Normalizes path into norm (RILL_VFS_PATH_MAX + 1 bytes) and finds the mount that serves it. */
static rill_result vfs_find(rill_vfs *vfs, const char *path, char *norm, vfs_hit *hit,
                            rill_error *err) {
    if (!vfs_normalize(path, norm, RILL_VFS_PATH_MAX + 1)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "%s: not a valid project-relative path", path);
    }
    return vfs_resolve(vfs, norm, hit) ? RILL_OK : vfs_not_found(vfs, norm, err);
}

rill_result rill_vfs_read_all(rill_vfs *vfs, const char *path, uint8_t **out_data, size_t *out_size,
                              rill_error *err) {
    if (out_data) {
        *out_data = NULL;
    }
    if (out_size) {
        *out_size = 0;
    }
    if (!vfs || !path || !out_data) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: vfs read_all: bad arguments",
                              path ? path : "(null)");
    }
    char norm[RILL_VFS_PATH_MAX + 1];
    vfs_hit hit;
    rill_result found = vfs_find(vfs, path, norm, &hit, err);
    if (found != RILL_OK) {
        return found;
    }
    /* The size a mount reports (a pack entry's declared size) is checked before the mount
     * reads or decompresses anything. */
    rill_result r = rill_limit_check(RILL_LIMIT_FILE_BYTES, hit.size, norm, err);
    if (r != RILL_OK) {
        return r;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    if (hit.pack) {
        r = hit.pack->ops.read_all(hit.pack->ops.user, norm, &data, &size, err);
    } else {
        /* Confined to the loose root: a link or '..' cannot lead the project out of it. */
        r = rill_file_read_all_in(hit.dir->name, hit.full, 0, &data, &size, err);
    }
    if (r != RILL_OK) {
        rill_free(data);
        return r;
    }
    atomic_fetch_add(&vfs->read_calls, 1);
    atomic_fetch_add(&vfs->bytes_returned, (uint64_t)size);
    *out_data = data;
    if (out_size) {
        *out_size = size;
    }
    return RILL_OK;
}

rill_result rill_vfs_read_range(rill_vfs *vfs, const char *path, uint64_t offset, size_t size,
                                void *dst, rill_error *err) {
    if (!vfs || !path || (!dst && size > 0)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: vfs read_range: bad arguments",
                              path ? path : "(null)");
    }
    char norm[RILL_VFS_PATH_MAX + 1];
    vfs_hit hit;
    rill_result found = vfs_find(vfs, path, norm, &hit, err);
    if (found != RILL_OK) {
        return found;
    }
    if (offset > hit.size || (uint64_t)size > hit.size - offset) {
        return rill_error_set(err, RILL_ERR_TRUNCATED,
                              "%s: offset %llu: range of %zu bytes is past the end (%llu bytes)",
                              norm, (unsigned long long)offset, size, (unsigned long long)hit.size);
    }
    if (size == 0) {
        return RILL_OK;
    }
    rill_result r;
    if (hit.pack) {
        r = hit.pack->ops.read_range(hit.pack->ops.user, norm, offset, size, dst, err);
    } else {
        r = rill_file_read_range_in(hit.dir->name, hit.full, offset, size, dst, err);
    }
    if (r == RILL_OK) {
        atomic_fetch_add(&vfs->read_calls, 1);
        atomic_fetch_add(&vfs->bytes_returned, (uint64_t)size);
    }
    return r;
}

/* >>listing ----------------------------------------------------------------------------------- */

typedef struct vfs_list_ctx {
    rill_vfs *vfs;
    rill_map seen; /* hash of path -> 1: the first mount that lists a path wins */
    rill_vfs_list_fn fn;
    void *user;
    uint32_t count;
    bool stopped;
    const char *prefix; /* "" or "folder/" */
    const vfs_mount *dir;
} vfs_list_ctx;

static bool vfs_list_emit(const char *path, uint64_t size, void *user) {
    vfs_list_ctx *ctx = user;
    if (ctx->stopped) {
        return false;
    }
    uint64_t h = rill_hash64_str(path);
    uint64_t dummy;
    if (rill_map_get(&ctx->seen, h, &dummy)) {
        return true;
    }
    rill_map_set(&ctx->seen, h, 1);
    ctx->count++;
    if (!ctx->fn(path, size, ctx->user)) {
        ctx->stopped = true;
        return false;
    }
    return true;
}

static rill_result vfs_list_dir_visit(const char *rel_path, void *user) {
    vfs_list_ctx *ctx = user;
    char full[RILL_VFS_PATH_MAX + 2];
    char norm[RILL_VFS_PATH_MAX + 1];
    int n = snprintf(full, sizeof(full), "%s%s", ctx->prefix, rel_path);
    if (n < 0 || (size_t)n >= sizeof(full) || !vfs_normalize(full, norm, sizeof(norm))) {
        return RILL_OK; /* a name the VFS could never serve is not listed */
    }
    char os_path[RILL_VFS_PATH_MAX * 2 + 8];
    uint64_t size = 0;
    if (!dir_stat(ctx->dir, norm, os_path, sizeof(os_path), &size)) {
        return RILL_OK;
    }
    return vfs_list_emit(norm, size, ctx) ? RILL_OK : RILL_ERR_CANCELLED;
}

uint32_t rill_vfs_list(rill_vfs *vfs, const char *prefix, rill_vfs_list_fn fn, void *user) {
    if (!vfs || !fn) {
        return 0;
    }
    char norm[RILL_VFS_PATH_MAX + 2] = "";
    if (prefix && prefix[0]) {
        if (!rill_path_normalize(norm, sizeof(norm) - 1, prefix)) {
            return 0;
        }
        size_t n = strlen(norm);
        if (n > 0 && norm[n - 1] != '/') {
            norm[n] = '/';
            norm[n + 1] = '\0';
        }
    }
    vfs_list_ctx ctx = {.vfs = vfs, .fn = fn, .user = user, .prefix = norm};
    uint32_t np, nd;
    vfs_snapshot(vfs, &np, &nd);
    for (uint32_t i = 0; i < np && !ctx.stopped; ++i) {
        const vfs_mount *m = &vfs->packs[i];
        if (m->ops.list) {
            m->ops.list(m->ops.user, norm, vfs_list_emit, &ctx);
        }
    }
    for (uint32_t i = 0; i < nd && !ctx.stopped; ++i) {
        ctx.dir = &vfs->dirs[i];
        char root[RILL_VFS_PATH_MAX * 2 + 8];
        if (!rill_path_join(root, sizeof(root), ctx.dir->name, norm[0] ? norm : ".")) {
            continue;
        }
        if (!rill_dir_exists(root)) {
            continue;
        }
        rill_dir_walk(root, vfs_list_dir_visit, &ctx, NULL);
    }
    rill_map_free(&ctx.seen);
    return ctx.count;
}

void rill_vfs_get_stats(rill_vfs *vfs, rill_vfs_stats *out_stats) {
    if (!out_stats) {
        return;
    }
    memset(out_stats, 0, sizeof(*out_stats));
    if (!vfs) {
        return;
    }
    uint32_t np, nd;
    vfs_snapshot(vfs, &np, &nd);
    out_stats->mount_count = np + nd;
    out_stats->read_calls = atomic_load(&vfs->read_calls);
    out_stats->bytes_returned = atomic_load(&vfs->bytes_returned);
    out_stats->misses = atomic_load(&vfs->misses);
}
