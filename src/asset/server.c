/* server.c: the asset server: generational handles over a fixed slot table, path dedup through a
 * hash map, loaders chosen by extension, asynchronous loads on rill_jobs workers, and deferred
 * release at the next rill_asset_server_update.
 *
 * How a load travels: rill_asset_load creates a QUEUED slot and a load request (a private copy of
 * everything the worker needs, so the worker never reads the slot table without the lock). The
 * worker flips the slot to LOADING, runs the loader, and appends the request with its result to
 * the completion list. rill_asset_server_update pops completions under its time budget and, if
 * the handle is still the one the request was made for, publishes the payload; otherwise (the
 * asset was released and freed meanwhile) the payload is unloaded at once.
 */
#include "rill/asset.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define SERVER_MODULE "asset"

typedef struct asset_loader {
    char *name;
    char *extensions[RILL_ASSET_LOADER_MAX_EXTENSIONS];
    rill_asset_load_fn load;
    rill_asset_unload_fn unload;
    void *user;
} asset_loader;

typedef struct asset_slot {
    char *key;   /* "path#label" as normalized; owned */
    char *path;  /* the file path; owned */
    char *label; /* "" when none; owned */
    char *error; /* FAILED message; owned, NULL otherwise */
    rill_result error_code;
    uint32_t id; /* the live handle of this slot */
    uint32_t loader;
    rill_asset_state state;
    uint32_t refcount;
    bool in_map; /* false only after a (vanishingly rare) 64-bit key hash collision */
    bool release_pending;
    void *payload;
    size_t bytes;
    double load_ms;
} asset_slot;

typedef struct load_req {
    rill_asset_server *server;
    uint32_t id;
    uint32_t loader;
    char *path;
    char *label;
    /* Result, written by whoever ran the loader. */
    bool cancelled; /* the asset was freed before the loader ran */
    rill_result result;
    void *payload;
    size_t bytes;
    double load_ms;
    rill_error err;
    struct load_req *next;
} load_req;

typedef RILL_ARRAY(uint32_t) id_array;

struct rill_asset_server {
    rill_asset_server_desc desc;
    rill_mutex lock;
    rill_pool pool;
    asset_slot *slots;     /* [desc.capacity] */
    asset_loader *loaders; /* [desc.max_loaders] */
    uint32_t loader_count;
    rill_map by_key;          /* hash of key -> id */
    id_array pending_release; /* ids whose refcount reached 0 since the last update */
    load_req *inline_head;    /* loads waiting to run on the main thread (no worker threads) */
    load_req *inline_tail;
    load_req *done_head; /* finished loads waiting for update */
    load_req *done_tail;
    rill_counter in_flight; /* jobs submitted to rill_jobs and not yet finished */
    rill_asset_server_stats stats;
    /* Destroyed while assets were still referenced (see rill_asset_server_destroy): the server
     * lives on for their holders until the last of those `held` assets is released. */
    bool retired;
    uint32_t held;
};

/* >>small helpers ----------------------------------------------------------------------------- */

const char *rill_asset_state_name(rill_asset_state state) {
    switch (state) {
        RILL_ASSET_STATE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "invalid";
    }
}

/* The slot of a live id, or NULL. Call with the lock held. */
static asset_slot *slot_of(rill_asset_server *s, uint32_t id) {
    int32_t idx = rill_pool_index(&s->pool, id);
    return idx < 0 ? NULL : &s->slots[idx];
}

/* Splits and normalizes "a/./b.rmip#low" into key "a/b.rmip#low", path and label. */
static rill_result parse_key(const char *request, char *key, size_t key_cap, char *path,
                             size_t path_cap, const char **out_label, rill_error *err) {
    char raw_path[RILL_VFS_PATH_MAX + 1];
    const char *label = "";
    if (!request || !rill_path_split_label(request, raw_path, sizeof(raw_path), &label)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: asset path too long or invalid",
                              request ? request : "(null)");
    }
    if (!label) {
        label = "";
    }
    if (!rill_path_normalize(path, path_cap, raw_path) || path[0] == '\0') {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "%s: not a valid project-relative asset path", request);
    }
    int n = label[0] ? snprintf(key, key_cap, "%s#%s", path, label)
                     : snprintf(key, key_cap, "%s", path);
    if (n < 0 || (size_t)n >= key_cap) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: asset path too long", request);
    }
    *out_label = label;
    return RILL_OK;
}

/* >>lifetime ---------------------------------------------------------------------------------- */

rill_asset_server_desc rill_asset_server_query_defaults(void) {
    rill_asset_server_desc d = {0};
    d.capacity = 4096;
    d.max_loaders = 32;
    d.update_budget_ns = 2000000;
    return d;
}

static rill_asset_server_desc server_desc_defaults(const rill_asset_server_desc *desc) {
    rill_asset_server_desc d = *desc;
    rill_asset_server_desc def = rill_asset_server_query_defaults();
    if (d.capacity == 0) {
        d.capacity = def.capacity;
    }
    if (d.capacity > RILL_POOL_MAX_CAPACITY) {
        d.capacity = RILL_POOL_MAX_CAPACITY;
    }
    if (d.max_loaders == 0) {
        d.max_loaders = def.max_loaders;
    }
    if (d.update_budget_ns == 0) {
        d.update_budget_ns = def.update_budget_ns;
    }
    return d;
}

rill_asset_server *rill_asset_server_create(const rill_asset_server_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_asset_server_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->vfs) {
        RILL_LOG_ERROR(SERVER_MODULE, "asset server: a desc with a vfs is required");
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_asset_server_create: a desc with a vfs is required");
        return NULL;
    }
    rill_asset_server *s = rill_calloc_tagged(1, sizeof(*s), RILL_MEM_ASSET);
    if (!s) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_asset_server_create: out of memory");
        return NULL;
    }
    s->desc = server_desc_defaults(desc);
    s->slots = rill_calloc_tagged(s->desc.capacity, sizeof(asset_slot), RILL_MEM_ASSET);
    s->loaders = rill_calloc_tagged(s->desc.max_loaders, sizeof(asset_loader), RILL_MEM_ASSET);
    if (!s->slots || !s->loaders || rill_pool_init(&s->pool, s->desc.capacity) != RILL_OK) {
        rill_free(s->slots);
        rill_free(s->loaders);
        rill_free(s);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_asset_server_create: out of memory");
        return NULL;
    }
    rill_mutex_init(&s->lock);
    return s;
}

static void free_req(load_req *r) {
    rill_free(r->path);
    rill_free(r->label);
    rill_free(r);
}

static void unload_payload(rill_asset_server *s, uint32_t loader, void *payload, size_t bytes) {
    if (loader < s->loader_count && s->loaders[loader].unload) {
        s->loaders[loader].unload(payload, bytes, s->loaders[loader].user);
    } else {
        rill_free(payload);
    }
}

static void free_slot_strings(asset_slot *slot) {
    rill_free(slot->key);
    rill_free(slot->path);
    rill_free(slot->label);
    rill_free(slot->error);
    memset(slot, 0, sizeof(*slot));
}

/* Frees the server itself: its slots hold nothing any more. */
static void free_server(rill_asset_server *s) {
    for (uint32_t i = 0; i < s->loader_count; ++i) {
        rill_free(s->loaders[i].name);
        for (uint32_t e = 0; e < RILL_ASSET_LOADER_MAX_EXTENSIONS; ++e) {
            rill_free(s->loaders[i].extensions[e]);
        }
    }
    rill_map_free(&s->by_key);
    rill_array_free(&s->pending_release);
    rill_pool_destroy(&s->pool);
    rill_mutex_destroy(&s->lock);
    rill_free(s->slots);
    rill_free(s->loaders);
    rill_free(s);
}

/* Frees slot id now when nothing references it any more (checked under the lock: another
 * thread may have retained it since); its payload is unloaded when it was loaded. */
static void free_slot_now(rill_asset_server *s, uint32_t id) {
    rill_mutex_lock(&s->lock);
    asset_slot *slot = slot_of(s, id);
    if (slot && (slot->refcount > 0 || !(slot->release_pending || s->retired))) {
        slot = NULL;
    }
    bool loaded = slot && slot->state == RILL_ASSET_STATE_LOADED;
    void *payload = loaded ? slot->payload : NULL;
    size_t bytes = loaded ? slot->bytes : 0;
    uint32_t loader = loaded ? slot->loader : UINT32_MAX;
    if (loaded) {
        s->stats.loaded_bytes -= slot->bytes;
        s->stats.unloads++;
    }
    if (slot) {
        if (slot->in_map) {
            rill_map_remove(&s->by_key, rill_hash64_str(slot->key));
        }
        free_slot_strings(slot);
        rill_pool_free(&s->pool, id);
    }
    rill_mutex_unlock(&s->lock);
    if (loaded) {
        unload_payload(s, loader, payload, bytes);
    }
}

/* Destroyed with assets still referenced: the holders (render assets, texture uploads that borrow
 * a payload) were not destroyed first, and their later release calls would touch freed memory.
 * So the server frees everything else and lives on for them: a load still on its way fails, a
 * loaded payload stays valid, and the last release frees the server. */
static void retire(rill_asset_server *s, uint32_t held, const asset_slot *first) {
    RILL_LOG_WARN(SERVER_MODULE,
                  "asset server destroyed while %u asset(s) are still referenced (first '%s', %u "
                  "reference(s)): destroy their holders (render assets, texture streaming) before "
                  "the server; it stays until they release them",
                  held, first->key, first->refcount);
    s->retired = true;
    s->held = held;
    s->desc.jobs = NULL; /* both may be destroyed after this call */
    s->desc.vfs = NULL;
    for (uint32_t i = 0; i < s->desc.capacity; ++i) {
        asset_slot *slot = &s->slots[i];
        if (!slot->key) {
            continue;
        }
        if (slot->refcount == 0) {
            free_slot_now(s, slot->id);
        } else if (slot->state == RILL_ASSET_STATE_QUEUED ||
                   slot->state == RILL_ASSET_STATE_LOADING) {
            slot->state = RILL_ASSET_STATE_FAILED; /* a rill_asset_wait must not spin forever */
            slot->error_code = RILL_ERR_INVALID_ARGUMENT;
            slot->error = rill_strdup("the asset server was destroyed before the load finished");
        }
    }
}

void rill_asset_server_destroy(rill_asset_server *server) {
    if (!server || server->retired) {
        return;
    }
    rill_asset_server *s = server;
    if (s->desc.jobs) {
        rill_jobs_wait(s->desc.jobs, &s->in_flight);
    }
    /* Loads that never ran are simply dropped; finished ones are unloaded. */
    for (load_req *r = s->inline_head; r;) {
        load_req *next = r->next;
        free_req(r);
        r = next;
    }
    for (load_req *r = s->done_head; r;) {
        load_req *next = r->next;
        if (!r->cancelled && r->result == RILL_OK) {
            unload_payload(s, r->loader, r->payload, r->bytes);
        }
        free_req(r);
        r = next;
    }
    s->inline_head = s->inline_tail = s->done_head = s->done_tail = NULL;
    uint32_t held = 0;
    const asset_slot *first = NULL;
    for (uint32_t i = 0; i < s->desc.capacity; ++i) {
        if (s->slots[i].key && s->slots[i].refcount > 0) {
            first = first ? first : &s->slots[i];
            held++;
        }
    }
    if (held) {
        retire(s, held, first);
        return;
    }
    for (uint32_t i = 0; i < s->desc.capacity; ++i) {
        asset_slot *slot = &s->slots[i];
        if (slot->key && slot->state == RILL_ASSET_STATE_LOADED) {
            unload_payload(s, slot->loader, slot->payload, slot->bytes);
        }
        if (slot->key) {
            free_slot_strings(slot);
        }
    }
    free_server(s);
}

rill_vfs *rill_asset_server_vfs(rill_asset_server *server) {
    return server ? server->desc.vfs : NULL;
}

rill_result rill_asset_server_register_loader(rill_asset_server *server,
                                              const rill_asset_loader *loader, rill_error *err) {
    if (!server || !loader || !loader->name || !loader->name[0] || !loader->load) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "asset loader: name and load are required");
    }
    asset_loader copy = {0};
    uint32_t ext_count = 0;
    bool ok = (copy.name = rill_strdup(loader->name)) != NULL;
    for (uint32_t e = 0; ok && e < RILL_ASSET_LOADER_MAX_EXTENSIONS; ++e) {
        const char *ext = loader->extensions[e];
        if (!ext || !ext[0]) {
            continue;
        }
        if (ext[0] == '.') {
            ext++; /* ".png" is a common slip; accept it as "png" */
        }
        ok = (copy.extensions[ext_count++] = rill_strdup(ext)) != NULL;
    }
    rill_result r = RILL_OK;
    if (!ok) {
        r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "asset loader %s: out of memory",
                           loader->name);
    } else if (ext_count == 0) {
        r = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "asset loader %s: no extensions",
                           loader->name);
    }
    if (r == RILL_OK) {
        copy.load = loader->load;
        copy.unload = loader->unload;
        copy.user = loader->user;
        rill_mutex_lock(&server->lock);
        if (server->loader_count >= server->desc.max_loaders) {
            r = rill_error_set(err, RILL_ERR_LIMIT, "asset loader %s: loader table full (%u)",
                               loader->name, server->desc.max_loaders);
        } else {
            server->loaders[server->loader_count++] = copy;
        }
        rill_mutex_unlock(&server->lock);
    }
    if (r != RILL_OK) {
        rill_free(copy.name);
        for (uint32_t e = 0; e < RILL_ASSET_LOADER_MAX_EXTENSIONS; ++e) {
            rill_free(copy.extensions[e]);
        }
    }
    return r;
}

/* The loader for a file path, latest registration first; UINT32_MAX when none. Lock held. */
static uint32_t find_loader(const rill_asset_server *s, const char *path) {
    const char *ext = rill_path_ext(path);
    if (!ext || !ext[0]) {
        return UINT32_MAX;
    }
    for (uint32_t i = s->loader_count; i-- > 0;) {
        for (uint32_t e = 0; e < RILL_ASSET_LOADER_MAX_EXTENSIONS && s->loaders[i].extensions[e];
             ++e) {
            if (rill_str_ieq(ext, s->loaders[i].extensions[e])) {
                return i;
            }
        }
    }
    return UINT32_MAX;
}

/* >>loading ----------------------------------------------------------------------------------- */

/* Runs the loader of a request (worker or main thread) and files the result for update. */
static void execute_req(load_req *r) {
    rill_asset_server *s = r->server;
    rill_mutex_lock(&s->lock);
    asset_slot *slot = slot_of(s, r->id);
    bool run = slot && slot->state == RILL_ASSET_STATE_QUEUED;
    if (run) {
        slot->state = RILL_ASSET_STATE_LOADING;
    }
    rill_asset_load_fn load = s->loaders[r->loader].load;
    void *user = s->loaders[r->loader].user;
    rill_mutex_unlock(&s->lock);

    if (!run) {
        /* The asset was freed before its turn came: skip the work. */
        r->cancelled = true;
    } else {
        rill_asset_load_ctx ctx = {
            .vfs = s->desc.vfs,
            .path = r->path,
            .label = r->label,
            .handle = {r->id},
            .loader_user = user,
        };
        uint64_t t0 = rill_time_ns();
        r->payload = NULL;
        r->bytes = 0;
        rill_error_clear(&r->err);
        r->result = load(&ctx, &r->payload, &r->bytes, &r->err);
        r->load_ms = (double)(rill_time_ns() - t0) / 1e6;
        if (r->result != RILL_OK) {
            r->payload = NULL;
            r->bytes = 0;
            if (r->err.msg[0] == '\0') {
                snprintf(r->err.msg, sizeof(r->err.msg), "%s: %s", r->path,
                         rill_result_str(r->result));
            }
        }
    }
    rill_mutex_lock(&s->lock);
    r->next = NULL;
    if (s->done_tail) {
        s->done_tail->next = r;
    } else {
        s->done_head = r;
    }
    s->done_tail = r;
    rill_mutex_unlock(&s->lock);
}

static void load_job(void *arg) {
    execute_req(arg);
}

/* Publishes one finished load (main thread). */
static void apply_req(rill_asset_server *s, load_req *r) {
    bool drop = false;
    bool failed = false;
    rill_mutex_lock(&s->lock);
    asset_slot *slot = slot_of(s, r->id);
    if (r->cancelled) {
        /* Nothing was loaded. */
    } else if (!slot || slot->state != RILL_ASSET_STATE_LOADING) {
        drop = r->result == RILL_OK;
    } else if (r->result == RILL_OK) {
        slot->state = RILL_ASSET_STATE_LOADED;
        slot->payload = r->payload;
        slot->bytes = r->bytes;
        slot->load_ms = r->load_ms;
        s->stats.loads_completed++;
        s->stats.loaded_bytes += r->bytes;
        if (s->stats.loaded_bytes > s->stats.peak_loaded_bytes) {
            s->stats.peak_loaded_bytes = s->stats.loaded_bytes;
        }
    } else {
        slot->state = RILL_ASSET_STATE_FAILED;
        slot->error = rill_strdup(r->err.msg);
        slot->error_code = r->result;
        slot->load_ms = r->load_ms;
        s->stats.loads_failed++;
        failed = true;
    }
    rill_mutex_unlock(&s->lock);
    if (failed) {
        /* The requester says it, with what the file was for (the model system names the entity,
         * texture streaming warns once per texture however often it retries): a warning here
         * repeated each of them. */
        RILL_LOG_INFO(SERVER_MODULE, "load failed: %s", r->err.msg);
    }
    if (drop) {
        unload_payload(s, r->loader, r->payload, r->bytes);
    }
    free_req(r);
}

/* Pops the next finished load, or NULL. */
static load_req *pop_done(rill_asset_server *s) {
    rill_mutex_lock(&s->lock);
    load_req *r = s->done_head;
    if (r) {
        s->done_head = r->next;
        if (!s->done_head) {
            s->done_tail = NULL;
        }
    }
    rill_mutex_unlock(&s->lock);
    return r;
}

static load_req *pop_inline(rill_asset_server *s) {
    rill_mutex_lock(&s->lock);
    load_req *r = s->inline_head;
    if (r) {
        s->inline_head = r->next;
        if (!s->inline_head) {
            s->inline_tail = NULL;
        }
    }
    rill_mutex_unlock(&s->lock);
    return r;
}

static void run_inline_queue(rill_asset_server *s) {
    for (load_req *r; (r = pop_inline(s)) != NULL;) {
        execute_req(r);
    }
}

/* Waits until every submitted job has finished (the calling thread helps run them). */
static void wait_in_flight(rill_asset_server *s) {
    if (s->desc.jobs) {
        rill_jobs_wait(s->desc.jobs, &s->in_flight);
    }
    run_inline_queue(s);
}

/* Finds the slot of `key` or creates a QUEUED one; returns its id with one more reference, or 0.
 * *out_req receives a new load request when a new slot was created. */
static uint32_t acquire(rill_asset_server *s, const char *request, load_req **out_req,
                        rill_error *err) {
    char key[RILL_VFS_PATH_MAX + 1];
    char path[RILL_VFS_PATH_MAX + 1];
    const char *label = "";
    *out_req = NULL;
    if (!s || s->retired) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       s ? "asset load: the server was destroyed" : "asset load: no server");
        return 0;
    }
    if (parse_key(request, key, sizeof(key), path, sizeof(path), &label, err) != RILL_OK) {
        return 0;
    }
    uint64_t h = rill_hash64_str(key);
    rill_mutex_lock(&s->lock);
    uint64_t found;
    if (rill_map_get(&s->by_key, h, &found)) {
        asset_slot *slot = slot_of(s, (uint32_t)found);
        if (slot && strcmp(slot->key, key) == 0) {
            slot->refcount++;
            slot->release_pending = false;
            rill_mutex_unlock(&s->lock);
            return (uint32_t)found;
        }
    }
    uint32_t loader = find_loader(s, path);
    if (loader == UINT32_MAX) {
        rill_mutex_unlock(&s->lock);
        rill_error_set(err, RILL_ERR_UNSUPPORTED, "%s: no asset loader for extension '%s'", key,
                       rill_path_ext(path));
        return 0;
    }
    uint32_t id = rill_pool_alloc(&s->pool);
    if (id == 0) {
        rill_mutex_unlock(&s->lock);
        rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "%s: asset pool full (%u assets)", key,
                       s->desc.capacity);
        return 0;
    }
    asset_slot *slot = slot_of(s, id);
    memset(slot, 0, sizeof(*slot));
    load_req *r = rill_calloc_tagged(1, sizeof(*r), RILL_MEM_ASSET);
    slot->key = rill_strdup(key);
    slot->path = rill_strdup(path);
    slot->label = rill_strdup(label);
    if (r) {
        r->path = rill_strdup(path);
        r->label = rill_strdup(label);
    }
    bool in_map = !rill_map_get(&s->by_key, h, &found);
    if (!r || !r->path || !r->label || !slot->key || !slot->path || !slot->label ||
        (in_map && !rill_map_set(&s->by_key, h, id))) {
        free_slot_strings(slot);
        rill_pool_free(&s->pool, id);
        rill_mutex_unlock(&s->lock);
        if (r) {
            free_req(r);
        }
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", key);
        return 0;
    }
    slot->in_map = in_map;
    slot->id = id;
    slot->loader = loader;
    slot->state = RILL_ASSET_STATE_QUEUED;
    slot->refcount = 1;
    r->server = s;
    r->id = id;
    r->loader = loader;
    s->stats.loads_started++;
    rill_mutex_unlock(&s->lock);
    *out_req = r;
    return id;
}

/* Hands a new request to the workers, or to the main-thread queue when there are none. */
static void submit(rill_asset_server *s, load_req *r) {
    if (s->desc.jobs) {
        rill_jobs_run(s->desc.jobs, load_job, r, &s->in_flight);
        return;
    }
    rill_mutex_lock(&s->lock);
    r->next = NULL;
    if (s->inline_tail) {
        s->inline_tail->next = r;
    } else {
        s->inline_head = r;
    }
    s->inline_tail = r;
    rill_mutex_unlock(&s->lock);
}

rill_asset rill_asset_load(rill_asset_server *server, const char *path, rill_error *err) {
    load_req *r = NULL;
    uint32_t id = acquire(server, path, &r, err);
    if (r) {
        submit(server, r);
    }
    return (rill_asset){id};
}

static void apply_all(rill_asset_server *s) {
    for (load_req *r; (r = pop_done(s)) != NULL;) {
        apply_req(s, r);
    }
}

rill_asset_state rill_asset_wait(rill_asset_server *server, rill_asset handle) {
    if (!server) {
        return RILL_ASSET_STATE_INVALID;
    }
    for (;;) {
        rill_asset_state st = rill_asset_get_state(server, handle);
        if (st != RILL_ASSET_STATE_QUEUED && st != RILL_ASSET_STATE_LOADING) {
            return st;
        }
        wait_in_flight(server);
        apply_all(server);
    }
}

rill_asset rill_asset_load_sync(rill_asset_server *server, const char *path, rill_error *err) {
    load_req *r = NULL;
    uint32_t id = acquire(server, path, &r, err);
    if (id == 0) {
        return (rill_asset){0};
    }
    if (r) {
        /* A new asset: run its loader right here instead of queueing it. */
        execute_req(r);
        apply_all(server);
    }
    rill_asset h = {id};
    if (rill_asset_wait(server, h) == RILL_ASSET_STATE_FAILED) {
        rill_mutex_lock(&server->lock);
        asset_slot *slot = slot_of(server, id);
        rill_error_set(err, slot ? slot->error_code : RILL_ERR_NOT_FOUND, "%s",
                       slot && slot->error ? slot->error : path);
        rill_mutex_unlock(&server->lock);
    }
    return h;
}

/* >>references -------------------------------------------------------------------------------- */

bool rill_asset_retain(rill_asset_server *server, rill_asset handle) {
    if (!server) {
        return false;
    }
    rill_mutex_lock(&server->lock);
    asset_slot *slot = slot_of(server, handle.id);
    if (slot) {
        slot->refcount++;
        slot->release_pending = false;
    }
    rill_mutex_unlock(&server->lock);
    return slot != NULL;
}

void rill_asset_release(rill_asset_server *server, rill_asset handle) {
    if (!server) {
        return;
    }
    rill_mutex_lock(&server->lock);
    asset_slot *slot = slot_of(server, handle.id);
    bool retired_last = false;
    if (slot && slot->refcount > 0) {
        slot->refcount--;
        if (slot->refcount == 0 && server->retired) {
            retired_last = true; /* no update will come: freed below */
        } else if (slot->refcount == 0 && !slot->release_pending) {
            slot->release_pending = true;
            if (!rill_array_push(&server->pending_release, handle.id)) {
                /* Out of memory: keep the asset alive rather than lose track of it. */
                slot->release_pending = false;
                slot->refcount = 1;
                RILL_LOG_ERROR(SERVER_MODULE, "%s: cannot queue release (out of memory)",
                               slot->key);
            }
        }
    }
    rill_mutex_unlock(&server->lock);
    if (retired_last) {
        free_slot_now(server, handle.id);
        /* Counted down after the unload, so the thread that frees the server is the last one
         * inside it. */
        rill_mutex_lock(&server->lock);
        bool last = --server->held == 0;
        rill_mutex_unlock(&server->lock);
        if (last) {
            free_server(server);
        }
    }
}

/* Frees the assets whose refcount reached zero before this update and is still zero. */
static void free_released(rill_asset_server *s) {
    rill_mutex_lock(&s->lock);
    id_array ids = s->pending_release;
    s->pending_release = (id_array){0};
    rill_mutex_unlock(&s->lock);
    for (uint32_t i = 0; i < ids.len; ++i) {
        free_slot_now(s, ids.data[i]);
    }
    rill_array_free(&ids);
}

uint32_t rill_asset_server_update(rill_asset_server *server) {
    if (!server) {
        return 0;
    }
    rill_asset_server *s = server;
    /* Releases recorded before this call are applied first, so an asset released in frame N is
     * gone after the update of frame N+1 and payload pointers stay valid through frame N. */
    free_released(s);
    /* Deterministic mode stops on a count, never on the clock: how many loads a slow machine
     * applies in 2 ms must not change what the next frame sees. */
    bool timed = true;
    if (!s->desc.jobs) {
        run_inline_queue(s);
    } else if (rill_jobs_is_deterministic(s->desc.jobs)) {
        rill_jobs_wait(s->desc.jobs, &s->in_flight);
        timed = false;
    }
    uint32_t max = s->desc.update_max_applied ? s->desc.update_max_applied : UINT32_MAX;
    uint64_t start = rill_time_ns();
    uint32_t applied = 0;
    for (load_req *r; applied < max && (r = pop_done(s)) != NULL;) {
        apply_req(s, r);
        applied++;
        if (timed && rill_time_ns() - start >= s->desc.update_budget_ns) {
            break;
        }
    }
    return applied;
}

/* >>queries ----------------------------------------------------------------------------------- */

rill_asset_state rill_asset_get_state(rill_asset_server *server, rill_asset handle) {
    if (!server) {
        return RILL_ASSET_STATE_INVALID;
    }
    rill_mutex_lock(&server->lock);
    asset_slot *slot = slot_of(server, handle.id);
    rill_asset_state st = slot ? slot->state : RILL_ASSET_STATE_INVALID;
    rill_mutex_unlock(&server->lock);
    return st;
}

void *rill_asset_get_payload(rill_asset_server *server, rill_asset handle, size_t *out_bytes) {
    void *p = NULL;
    size_t bytes = 0;
    if (server) {
        rill_mutex_lock(&server->lock);
        asset_slot *slot = slot_of(server, handle.id);
        if (slot && slot->state == RILL_ASSET_STATE_LOADED) {
            p = slot->payload;
            bytes = slot->bytes;
        }
        rill_mutex_unlock(&server->lock);
    }
    if (out_bytes) {
        *out_bytes = bytes;
    }
    return p;
}

void *rill_asset_get_payload_as(rill_asset_server *server, rill_asset handle, const char *loader) {
    void *p = NULL;
    if (server && loader) {
        rill_mutex_lock(&server->lock);
        asset_slot *slot = slot_of(server, handle.id);
        if (slot && slot->state == RILL_ASSET_STATE_LOADED &&
            strcmp(server->loaders[slot->loader].name, loader) == 0) {
            p = slot->payload;
        }
        rill_mutex_unlock(&server->lock);
    }
    return p;
}

const char *rill_asset_error(rill_asset_server *server, rill_asset handle) {
    const char *msg = "";
    if (server) {
        rill_mutex_lock(&server->lock);
        asset_slot *slot = slot_of(server, handle.id);
        if (slot && slot->state == RILL_ASSET_STATE_FAILED && slot->error) {
            msg = slot->error;
        }
        rill_mutex_unlock(&server->lock);
    }
    return msg;
}

uint32_t rill_asset_refcount(rill_asset_server *server, rill_asset handle) {
    uint32_t rc = 0;
    if (server) {
        rill_mutex_lock(&server->lock);
        asset_slot *slot = slot_of(server, handle.id);
        rc = slot ? slot->refcount : 0;
        rill_mutex_unlock(&server->lock);
    }
    return rc;
}

static void fill_info(const rill_asset_server *s, const asset_slot *slot, uint32_t id,
                      rill_asset_info *out) {
    out->handle.id = id;
    out->key = slot->key;
    out->path = slot->path;
    out->label = slot->label;
    out->loader = slot->loader < s->loader_count ? s->loaders[slot->loader].name : "";
    out->state = slot->state;
    out->refcount = slot->refcount;
    out->bytes = slot->state == RILL_ASSET_STATE_LOADED ? slot->bytes : 0;
    out->load_ms = slot->load_ms;
}

bool rill_asset_get_info(rill_asset_server *server, rill_asset handle, rill_asset_info *out_info) {
    if (!server || !out_info) {
        return false;
    }
    rill_mutex_lock(&server->lock);
    asset_slot *slot = slot_of(server, handle.id);
    if (slot) {
        fill_info(server, slot, handle.id, out_info);
    }
    rill_mutex_unlock(&server->lock);
    return slot != NULL;
}

rill_asset rill_asset_find(rill_asset_server *server, const char *path) {
    char key[RILL_VFS_PATH_MAX + 1];
    char file[RILL_VFS_PATH_MAX + 1];
    const char *label;
    if (!server || parse_key(path, key, sizeof(key), file, sizeof(file), &label, NULL) != RILL_OK) {
        return (rill_asset){0};
    }
    uint32_t id = 0;
    rill_mutex_lock(&server->lock);
    uint64_t found;
    if (rill_map_get(&server->by_key, rill_hash64_str(key), &found)) {
        asset_slot *slot = slot_of(server, (uint32_t)found);
        if (slot && strcmp(slot->key, key) == 0) {
            id = (uint32_t)found;
        }
    }
    rill_mutex_unlock(&server->lock);
    return (rill_asset){id};
}

float rill_asset_progress(rill_asset_server *server, const rill_asset *handles, uint32_t count) {
    if (!server || !handles || count == 0) {
        return 1.0f;
    }
    uint32_t done = 0;
    rill_mutex_lock(&server->lock);
    for (uint32_t i = 0; i < count; ++i) {
        asset_slot *slot = slot_of(server, handles[i].id);
        if (!slot || slot->state == RILL_ASSET_STATE_LOADED ||
            slot->state == RILL_ASSET_STATE_FAILED) {
            done++;
        }
    }
    rill_mutex_unlock(&server->lock);
    return (float)done / (float)count;
}

uint32_t rill_asset_server_pending(rill_asset_server *server) {
    rill_asset_server_stats st;
    rill_asset_server_get_stats(server, &st);
    return st.by_state[RILL_ASSET_STATE_QUEUED] + st.by_state[RILL_ASSET_STATE_LOADING];
}

void rill_asset_server_get_stats(rill_asset_server *server, rill_asset_server_stats *out_stats) {
    if (!out_stats) {
        return;
    }
    memset(out_stats, 0, sizeof(*out_stats));
    if (!server) {
        return;
    }
    rill_mutex_lock(&server->lock);
    *out_stats = server->stats;
    memset(out_stats->by_state, 0, sizeof(out_stats->by_state));
    out_stats->live = 0;
    out_stats->pending_release = 0;
    for (uint32_t i = 0; i < server->desc.capacity; ++i) {
        const asset_slot *slot = &server->slots[i];
        if (!slot->key) {
            continue;
        }
        out_stats->live++;
        if ((uint32_t)slot->state < RILL_ASSET_STATE_NUM) {
            out_stats->by_state[slot->state]++;
        }
        if (slot->release_pending) {
            out_stats->pending_release++;
        }
    }
    rill_mutex_unlock(&server->lock);
}

void rill_asset_server_each(rill_asset_server *server, rill_asset_each_fn fn, void *user) {
    if (!server || !fn) {
        return;
    }
    rill_mutex_lock(&server->lock);
    for (uint32_t i = 0; i < server->desc.capacity; ++i) {
        const asset_slot *slot = &server->slots[i];
        if (!slot->key) {
            continue;
        }
        rill_asset_info info;
        fill_info(server, slot, slot->id, &info);
        if (!fn(&info, user)) {
            break;
        }
    }
    rill_mutex_unlock(&server->lock);
}
