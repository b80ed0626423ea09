/* rill/asset.h: the asset layer: a virtual file system (VFS) and the asset server.
 *
 * ON PATHS
 *   Asset paths are project-relative, use '/', and are normalized with rill_path_normalize before
 *   any lookup ("./a//b/../c.png" is "a/c.png"). Absolute paths and '..' that would leave the
 *   project root are rejected with RILL_ERR_INVALID_ARGUMENT. `path#label` names a sub-asset of a
 *   file ("rock.rmip#low", "chair.glb#mesh0"); the VFS never sees labels, the asset server splits
 *   them off and hands the label to the loader.
 *
 * ON THE VFS
 *   A rill_vfs resolves a path against its mounts. There are two kinds of mount:
 *     - generic mounts (rill_vfs_mount with a rill_vfs_mount_ops table): functions plus a user
 *       pointer. Packs (.rpak, see rill/formats/rpak.h) plug in this way, so this layer knows
 *       nothing about them;
 *     - loose roots (rill_vfs_mount_dir): a folder on disk.
 *   Lookup order: every generic mount in the order it was mounted, then every loose root in the
 *   order it was mounted. The first mount that has the file serves it. Reads are thread-safe
 *   (workers call them); mounting is meant to happen at start-up but is also safe against
 *   concurrent reads. Mounts are never removed before rill_vfs_destroy.
 *
 * ON THE ASSET SERVER
 *   rill_asset_server hands out rill_asset handles (32-bit, generational, 0 = none). Loading a
 *   path that is already known returns the same handle with its refcount increased ("a.rmip" and
 *   "a.rmip#low" are two distinct assets). Loaders are registered per file extension; a load runs
 *   the loader's `load` on a worker thread (rill_jobs), which returns a payload pointer and the
 *   number of bytes it accounts for, or an error message. States go
 *       QUEUED -> LOADING -> LOADED | FAILED
 *   and the main thread applies finished loads in rill_asset_server_update, under a time budget.
 *   When the last reference is released, the asset is freed (loader `unload`) by the first
 *   rill_asset_server_update that follows, never inside rill_asset_release, so payload pointers
 *   fetched earlier in the frame stay valid until the next update. A stale handle is a no-op
 *   everywhere; asking for the payload of an asset that is not LOADED returns NULL.
 *
 * ON THREADS
 *   rill_asset_load, rill_asset_retain, rill_asset_release and every query take the server's
 *   lock and may be called from any thread. rill_asset_server_update, rill_asset_load_sync,
 *   rill_asset_wait and rill_asset_server_destroy belong to the main thread.
 *
 * Depends on: rill/base.h.
 */
#ifndef RILL_ASSET_H
#define RILL_ASSET_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >>vfs --------------------------------------------------------------------------------------- */

/* Longest normalized asset path (bytes, without the NUL) the VFS and the server accept. */
#define RILL_VFS_PATH_MAX 1024u

typedef struct rill_vfs rill_vfs;

/* Defaults: max_mounts 0 = 32. */
typedef struct rill_vfs_desc {
    uint32_t start_canary; /* must be 0 */
    uint32_t max_mounts;   /* generic mounts and loose roots together */
    uint32_t end_canary;   /* must be 0 */
} rill_vfs_desc;

/* Called once per file by a list function. `path` is project-relative, normalized, and valid only
 * during the call. Return false to stop the listing early. */
typedef bool (*rill_vfs_list_fn)(const char *path, uint64_t size, void *user);

/* A generic mount. Every `path` given to these functions is already normalized and has no label.
 * All functions must be safe to call from several threads at once. */
typedef struct rill_vfs_mount_ops {
    /* A short name for messages and rill_vfs_which ("game.rpak"). Copied at mount time; NULL
     * means "mount". */
    const char *name;
    /* Required. Returns true and sets *out_size when the mount holds `path`. */
    bool (*stat)(void *user, const char *path, uint64_t *out_size);
    /* Required. Reads the whole file into a buffer allocated with rill_malloc_tagged that has a NUL
     * after the last byte (not counted in *out_size); the VFS hands it to its caller, who frees
     * it with rill_free. On failure returns a code and fills err with a message naming the path. */
    rill_result (*read_all)(void *user, const char *path, uint8_t **out_data, size_t *out_size,
                            rill_error *err);
    /* Required. Reads exactly `size` bytes at `offset` of the file into dst. A range past the end
     * is RILL_ERR_TRUNCATED. It should read no more of the backing store than it needs. */
    rill_result (*read_range)(void *user, const char *path, uint64_t offset, size_t size, void *dst,
                              rill_error *err);
    /* Optional (NULL: the mount lists nothing). Calls fn for every file whose path starts with
     * `prefix`, which is "" (all files) or a folder ending in '/' ("textures/"); stops when fn
     * returns false. */
    void (*list)(void *user, const char *prefix, rill_vfs_list_fn fn, void *fn_user);
    /* Optional. Called once by rill_vfs_destroy (or when mounting fails) to release `user`. */
    void (*close)(void *user);
    void *user;
} rill_vfs_mount_ops;

/* Counters for debug overlays and tests (thread-safe snapshots). */
typedef struct rill_vfs_stats {
    uint32_t mount_count;
    uint64_t read_calls;     /* read_all + read_range calls that succeeded */
    uint64_t bytes_returned; /* bytes handed to callers */
    uint64_t misses;         /* lookups that no mount could serve */
} rill_vfs_stats;

/* Creates an empty VFS. desc may be NULL (defaults). Returns NULL when out of memory. Destroy with
 * rill_vfs_destroy. */
rill_vfs *rill_vfs_create(const rill_vfs_desc *desc, rill_error *err);
/* Closes every mount (ops.close) and frees the VFS. No read may be in flight. NULL is a no-op. */
void rill_vfs_destroy(rill_vfs *vfs);
/* The defaults rill_vfs_create applies to a zero desc (for tests). */
rill_vfs_desc rill_vfs_query_defaults(void);

/* Adds a loose root: files are read from `dir`/`path` through rill_file_open confined to `dir`
 * (no '..', no symbolic links below it unless links_inside_root allows them). `dir` is an OS
 * path (absolute or relative to the working directory), copied. A folder that does not exist is
 * RILL_ERR_NOT_FOUND; a full mount table is RILL_ERR_LIMIT. */
rill_result rill_vfs_mount_dir(rill_vfs *vfs, const char *dir, rill_error *err);
/* Adds a generic mount; *ops is copied. It is searched after the generic mounts made before it
 * and before every loose root. On failure ops->close is NOT called (the caller still owns user). */
rill_result rill_vfs_mount(rill_vfs *vfs, const rill_vfs_mount_ops *ops, rill_error *err);

/* True when some mount holds `path` (a path that cannot be normalized is simply absent). */
bool rill_vfs_exists(rill_vfs *vfs, const char *path);
/* Size in bytes of `path` as served, or -1 when no mount holds it. */
int64_t rill_vfs_size(rill_vfs *vfs, const char *path);
/* Reads the whole file. *out_data is owned by the caller (rill_free) and has a NUL after the last
 * byte (not counted in *out_size), so text parses in place. out_size may be NULL. Errors name the
 * path: RILL_ERR_NOT_FOUND, RILL_ERR_INVALID_ARGUMENT (path escapes the root), RILL_ERR_IO,
 * RILL_ERR_CHECKSUM (a pack entry failed its checksum), RILL_ERR_LIMIT (the size the mount
 * reports passes the file_bytes limit, checked before a pack entry is read or decompressed; or a
 * loose file reached through a symbolic link, see rill_file_open), ... */
rill_result rill_vfs_read_all(rill_vfs *vfs, const char *path, uint8_t **out_data, size_t *out_size,
                              rill_error *err);
/* Reads exactly `size` bytes at `offset` of `path` into dst (caller memory of at least `size`
 * bytes), reading only that part of the file (a pack may read the whole checksum chunks the range
 * touches). A range past the end of the file is RILL_ERR_TRUNCATED. size 0 is OK. */
rill_result rill_vfs_read_range(rill_vfs *vfs, const char *path, uint64_t offset, size_t size,
                                void *dst, rill_error *err);
/* Calls fn for every file under folder `prefix` ("" = everything; "textures" lists
 * "textures/..."), each path once (the mount that would serve it wins). Order: generic mounts in
 * their own order, then loose roots sorted per folder. Returns the number of files reported. */
uint32_t rill_vfs_list(rill_vfs *vfs, const char *prefix, rill_vfs_list_fn fn, void *user);
/* The name of the mount that serves `path` (the ops name, or the folder for a loose root), or NULL
 * when none does. The string lives as long as the VFS. */
const char *rill_vfs_which(rill_vfs *vfs, const char *path);
void rill_vfs_get_stats(rill_vfs *vfs, rill_vfs_stats *out_stats);

/* >>asset server ------------------------------------------------------------------------------ */

/* A handle to an asset. 0 = none. Zero-initialize to mean "no asset". */
typedef struct rill_asset {
    uint32_t id;
} rill_asset;

/* rill_asset_state's values and their names (rill_asset_state_name), one list. */
#define RILL_ASSET_STATE_LIST(X)                                                                   \
    X(RILL_ASSET_STATE_INVALID, "invalid") /* a zero, stale or unknown handle */                   \
    X(RILL_ASSET_STATE_QUEUED, "queued")   /* waiting for a worker */                              \
    X(RILL_ASSET_STATE_LOADING, "loading") /* a worker runs its loader */                          \
    X(RILL_ASSET_STATE_LOADED, "loaded")   /* the payload is ready */                              \
    X(RILL_ASSET_STATE_FAILED, "failed")   /* rill_asset_error says why, naming the file */
typedef enum rill_asset_state {
    RILL_ASSET_STATE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_ASSET_STATE_NUM,
    RILL_ASSET_STATE_FORCE_U32 = 0x7FFFFFFF
} rill_asset_state;

/* "invalid", "queued", "loading", "loaded", "failed". Static storage. */
const char *rill_asset_state_name(rill_asset_state state);

/* What a loader's `load` receives. Everything is valid only during the call. */
typedef struct rill_asset_load_ctx {
    rill_vfs *vfs;     /* read the file (or only a range of it) through this */
    const char *path;  /* normalized file path, no label: "textures/rock.rmip" */
    const char *label; /* the sub-asset label, "" when none: "low" for "rock.rmip#low" */
    rill_asset handle; /* the asset being loaded (for messages; do not call the server) */
    void *loader_user; /* rill_asset_loader.user */
} rill_asset_load_ctx;

/* Runs on a worker thread (or on the main thread for rill_asset_load_sync and in deterministic
 * mode). On success returns RILL_OK, sets *out_payload (may be NULL for an empty asset) and
 * *out_bytes (the memory it accounts for; 0 allowed). On failure returns a code and fills err
 * with a message naming the file and the place ("textures/a.rmip: offset 24: bad mip count"); the
 * loader must then have freed everything it allocated. It must not call the asset server. */
typedef rill_result (*rill_asset_load_fn)(const rill_asset_load_ctx *ctx, void **out_payload,
                                          size_t *out_bytes, rill_error *err);
/* Frees a payload returned by load. Runs on the main thread (in rill_asset_server_update or
 * rill_asset_server_destroy). payload may be NULL when load returned NULL. */
typedef void (*rill_asset_unload_fn)(void *payload, size_t bytes, void *loader_user);

#define RILL_ASSET_LOADER_MAX_EXTENSIONS 8

/* A loader. `name` and the extension strings are copied at registration. Extensions have no dot
 * and match case-insensitively ("rmip", "png"). A later registration of the same extension
 * replaces the earlier one for that extension. */
typedef struct rill_asset_loader {
    const char *name;                                         /* required, e.g. "rmip" */
    const char *extensions[RILL_ASSET_LOADER_MAX_EXTENSIONS]; /* unused entries NULL */
    rill_asset_load_fn load;                                  /* required */
    rill_asset_unload_fn unload; /* NULL: payload is freed with rill_free */
    void *user;
} rill_asset_loader;

typedef struct rill_asset_server rill_asset_server;

/* Defaults: capacity 0 = 4096 assets; max_loaders 0 = 32; update_budget_ns 0 = 2 ms (the time
 * rill_asset_server_update may spend applying finished loads; at least one is applied per call);
 * update_max_applied 0 = no limit on the number of finished loads one update applies.
 * vfs is required and borrowed (must outlive the server). jobs is borrowed and may be NULL: then
 * loads run on the main thread inside rill_asset_server_update, in request order. With a
 * deterministic rill_jobs the queued loads run inside rill_asset_server_update too, and the time
 * budget is not used: an update applies every finished load (up to update_max_applied), so the
 * same requests give the same states after each update on any machine, however slow. */
typedef struct rill_asset_server_desc {
    uint32_t start_canary; /* must be 0 */
    rill_vfs *vfs;
    rill_jobs *jobs;
    uint32_t capacity;
    uint32_t max_loaders;
    uint64_t update_budget_ns;
    uint32_t update_max_applied;
    uint32_t end_canary; /* must be 0 */
} rill_asset_server_desc;

/* Per-server counters (rill_asset_server_get_stats). */
typedef struct rill_asset_server_stats {
    uint32_t live;                           /* assets with a handle (any state) */
    uint32_t by_state[RILL_ASSET_STATE_NUM]; /* live assets per state */
    uint32_t pending_release;                /* refcount 0, freed at a coming update */
    uint64_t loaded_bytes;                   /* sum of the bytes of LOADED assets */
    uint64_t peak_loaded_bytes;
    uint64_t loads_started;
    uint64_t loads_completed; /* LOADED */
    uint64_t loads_failed;    /* FAILED */
    uint64_t unloads;
} rill_asset_server_stats;

/* A snapshot of one asset for debug views. Strings live until the asset is freed. */
typedef struct rill_asset_info {
    rill_asset handle;
    const char *key;    /* the full requested path, "a.rmip#low" */
    const char *path;   /* the file path without the label */
    const char *label;  /* "" when none */
    const char *loader; /* the loader's name, "" when none was found */
    rill_asset_state state;
    uint32_t refcount;
    uint64_t bytes; /* as reported by the loader; 0 unless LOADED */
    double load_ms; /* worker time spent in load (LOADED or FAILED) */
} rill_asset_info;

/* Called once per live asset by rill_asset_server_each; return false to stop. The server's lock
 * is held: the callback must not call the server. */
typedef bool (*rill_asset_each_fn)(const rill_asset_info *info, void *user);

/* Creates a server. Returns NULL when desc is NULL, desc->vfs is NULL, or memory runs out. */
rill_asset_server *rill_asset_server_create(const rill_asset_server_desc *desc, rill_error *err);
/* Waits for in-flight loads, unloads every asset and frees the server. Main thread. NULL is a
 * no-op. Destroy what holds references first (render assets, texture streaming, whose renderer
 * uploads borrow payloads until they are recorded). If some assets are still referenced, a
 * warning names the first, and the server frees everything else but lives on for their holders:
 * their payloads stay valid, loads still on the way become FAILED, new loads are refused, a second
 * destroy is a no-op, and the release of the last reference frees the server. So the wrong
 * shutdown order is a warning, never a use after free. */
void rill_asset_server_destroy(rill_asset_server *server);
/* The defaults rill_asset_server_create applies to zero fields (vfs and jobs stay NULL). */
rill_asset_server_desc rill_asset_server_query_defaults(void);

/* Registers a loader (copied). RILL_ERR_INVALID_ARGUMENT when name, load or every extension is
 * missing; RILL_ERR_LIMIT when max_loaders are registered. */
rill_result rill_asset_server_register_loader(rill_asset_server *server,
                                              const rill_asset_loader *loader, rill_error *err);

/* Requests an asset and returns a handle that holds one reference (release it with
 * rill_asset_release). A path already known returns its handle (refcount + 1) in whatever state it
 * is, even FAILED; a new one starts QUEUED and is loaded asynchronously. Returns {0} (and fills
 * err) when the path is invalid, no loader handles its extension, or the pool is full. */
rill_asset rill_asset_load(rill_asset_server *server, const char *path, rill_error *err);
/* Like rill_asset_load, then waits for the result on the main thread (running the loader inline
 * when the asset is new). Returns the handle (one reference) even when the load FAILED; err then
 * holds the loader's message. For tools and tests. */
rill_asset rill_asset_load_sync(rill_asset_server *server, const char *path, rill_error *err);
/* Main thread: blocks until `handle` is LOADED or FAILED (applying completions as they come).
 * Returns the final state (INVALID for a stale handle). */
rill_asset_state rill_asset_wait(rill_asset_server *server, rill_asset handle);

/* Adds a reference. Returns false (no-op) for a stale handle. */
bool rill_asset_retain(rill_asset_server *server, rill_asset handle);
/* Drops a reference. At zero the asset is freed by the next rill_asset_server_update (a load or
 * retain before then revives it). A stale handle is a no-op. */
void rill_asset_release(rill_asset_server *server, rill_asset handle);

/* Main thread, once per frame: applies finished loads (within update_budget_ns, or in
 * deterministic mode all of them; at most update_max_applied), runs queued loads
 * when there are no worker threads, and unloads assets whose refcount reached zero before this
 * call. Returns the number of loads applied. */
uint32_t rill_asset_server_update(rill_asset_server *server);

/* The state of an asset (INVALID for a zero or stale handle). */
rill_asset_state rill_asset_get_state(rill_asset_server *server, rill_asset handle);
/* The payload of a LOADED asset, else NULL. out_bytes (may be NULL) gets the accounted bytes (0
 * when not LOADED). The pointer stays valid while the caller holds a reference, and at least until
 * the next rill_asset_server_update after the last reference goes. */
void *rill_asset_get_payload(rill_asset_server *server, rill_asset handle, size_t *out_bytes);
/* The payload of a LOADED asset whose loader is named `loader` (e.g. "rmip"), else NULL. */
void *rill_asset_get_payload_as(rill_asset_server *server, rill_asset handle, const char *loader);
/* The failure message of a FAILED asset (it names the file), "" otherwise. The string lives until
 * the asset is freed. */
const char *rill_asset_error(rill_asset_server *server, rill_asset handle);
/* The current refcount (0 for a stale handle or an asset waiting to be freed). */
uint32_t rill_asset_refcount(rill_asset_server *server, rill_asset handle);
/* Fills *out_info for a live handle; returns false for a stale one. */
bool rill_asset_get_info(rill_asset_server *server, rill_asset handle, rill_asset_info *out_info);
/* The handle already known for `path` (no reference added), or {0}. */
rill_asset rill_asset_find(rill_asset_server *server, const char *path);
/* Fraction of `count` handles that are finished (LOADED or FAILED; stale handles count as
 * finished), in [0, 1]; 1 when count is 0. */
float rill_asset_progress(rill_asset_server *server, const rill_asset *handles, uint32_t count);
/* Number of assets QUEUED or LOADING. */
uint32_t rill_asset_server_pending(rill_asset_server *server);
void rill_asset_server_get_stats(rill_asset_server *server, rill_asset_server_stats *out_stats);
/* Visits every live asset (including those waiting to be freed) in slot order. */
void rill_asset_server_each(rill_asset_server *server, rill_asset_each_fn fn, void *user);
/* The VFS the server reads through. */
rill_vfs *rill_asset_server_vfs(rill_asset_server *server);

#ifdef __cplusplus
}
#endif
#endif /* RILL_ASSET_H */
