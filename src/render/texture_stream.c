/* texture_stream.c: the render asset cache's shared textures and texture streaming carried out
 * (the carrier of rill/stream/textures.h). Every image a model reads through the VFS becomes one
 * GPU texture per (path, colour space), shared by every model and LOD file naming it and
 * reference counted by the models (destroyed when the last one goes). Each shared texture that
 * streams (a .rmip with a "#low" tail smaller than its chain) is registered once with a
 * rill_texstream, as is every standard material's five slots; the cache's sweep feeds it the
 * users, and this file carries its decisions out: a request loads "path#low" or "path"
 * through the asset server (pack byte ranges, on its workers), at most MAX_LOADING at once; data
 * ready is reported when the load lands; the applies of one update go to the renderer as one
 * rill_render_texture_replace_many_borrowed batch, so a material's slots switch at one frame,
 * after every upload landed (the loads' payloads are handed over, not copied: the renderer reads
 * them when it records the uploads and releases the loads then); a cancel drops the queued or
 * loading request. */
#include "texture_stream.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rill/stream.h"

#define LOGM "render"
#define MAX_LOADING 64u
#define FIRST_BACKOFF 1.0f /* seconds */
#define MAX_BACKOFF 30.0f

typedef struct tsc_tex {
    rill_texture tex;
    char *path;    /* the image's VFS path; with srgb, the key it is shared under */
    uint64_t key;  /* hash of path and srgb */
    uint32_t refs; /* models naming it; 0 = a free slot */
    uint32_t ts;   /* its texstream id, RILL_TEXSTREAM_NONE = not streamed */
    bool srgb;
    bool queued;         /* waiting for a loading slot */
    int8_t want;         /* requested level, -1 = none */
    rill_asset load;     /* the load in flight (or landed, until applied) */
    bool load_started;   /* load is valid */
    bool reported;       /* data ready was reported */
    double requested_at; /* clock of the last full request (for the latency figures) */
    /* A failed load is tried again after `backoff` seconds (doubling up to MAX_BACKOFF); its
     * material keeps drawing what it has meanwhile. warned: the failure was logged (once). */
    double retry_at;
    float backoff;
    bool warned;
} tsc_tex;

/* A full swap sent to the renderer, watched until it is on screen. */
typedef struct tsc_landing {
    rill_texture tex;
    double requested_at;
} tsc_landing;

struct rill__tsc {
    rill_renderer *renderer;
    rill_asset_server *assets;
    rill_world *world;
    rill_texstream *ts;
    tsc_tex *tex; /* shared textures, indexed by slot */
    uint32_t ntex, ctex;
    RILL_ARRAY(uint32_t) free_slots;
    uint32_t *slot_of_ts; /* texstream texture id -> slot */
    uint32_t cslot_of_ts;
    rill_map by_key;              /* key -> slot */
    RILL_ARRAY(uint32_t) queue;   /* texstream ids requested, not started */
    RILL_ARRAY(uint32_t) loading; /* texstream ids started, not applied */
    RILL_ARRAY(uint32_t) waiting; /* texstream ids whose load failed, until their retry */
    /* the applies of the current update, sent as one batch */
    RILL_ARRAY(rill_texture) batch_tex;
    RILL_ARRAY(rill_tex_data) batch_data;
    RILL_ARRAY(uint32_t) batch_ids;
    RILL_ARRAY(tsc_landing) landing;
    bool has_time;
    double time, now; /* now: the clock of this update */
    rill__tsc_stats stats;
};

static double mono_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* >>ops: what the evaluator asks ------------------------------------------------------------- */

static tsc_tex *of_ts(rill__tsc *c, uint32_t t) {
    return &c->tex[c->slot_of_ts[t]];
}

static void drop_load(rill__tsc *c, tsc_tex *x) {
    if (x->load_started) {
        rill_asset_release(c->assets, x->load);
    }
    x->load_started = false;
    x->reported = false;
    x->load.id = 0;
}

static void remove_id(uint32_t *ids, uint32_t *len, uint32_t id) {
    for (uint32_t i = 0; i < *len; i++) {
        if (ids[i] == id) {
            ids[i] = ids[--*len];
            return;
        }
    }
}

/* Whatever x has in flight (queued, loading, waiting for a retry) is dropped. */
static void forget_request(rill__tsc *c, uint32_t t, tsc_tex *x) {
    if (x->queued) {
        remove_id(c->queue.data, &c->queue.len, t);
        x->queued = false;
    }
    drop_load(c, x);
    remove_id(c->loading.data, &c->loading.len, t);
    remove_id(c->waiting.data, &c->waiting.len, t);
    x->backoff = 0;
}

static void op_request(void *user, uint32_t t, rill_texstream_level level) {
    rill__tsc *c = user;
    tsc_tex *x = of_ts(c, t);
    forget_request(c, t, x);
    x->want = (int8_t)level;
    x->requested_at = c->now;
    if (!x->queued && rill_array_push(&c->queue, t)) {
        x->queued = true;
    }
}

static void op_cancel(void *user, uint32_t t, rill_texstream_level level) {
    (void)level;
    rill__tsc *c = user;
    tsc_tex *x = of_ts(c, t);
    forget_request(c, t, x);
    x->want = -1;
    c->stats.cancelled++;
}

/* Collected; rill__tsc_update sends the batch after the evaluator's update. */
static void op_apply(void *user, uint32_t t, rill_texstream_level level) {
    rill__tsc *c = user;
    tsc_tex *x = of_ts(c, t);
    const rill_tex_data *data =
        x->load_started ? rill_asset_get_payload_as(c->assets, x->load, "rmip") : NULL;
    if (!data || x->want != (int8_t)level) {
        /* Only landed loads are reported ready; kept as a guard: the texture keeps its image. */
        drop_load(c, x);
        remove_id(c->loading.data, &c->loading.len, t);
        x->want = -1;
        return;
    }
    rill_tex_data copy = *data; /* the levels are copied by the replace; only srgb differs */
    if (copy.format == RILL_TEX_FORMAT_BC1 || copy.format == RILL_TEX_FORMAT_BC7 ||
        copy.format == RILL_TEX_FORMAT_RGBA8) {
        copy.srgb = x->srgb;
    }
    if (!rill_array_push(&c->batch_tex, x->tex) || !rill_array_push(&c->batch_data, copy) ||
        !rill_array_push(&c->batch_ids, t)) {
        c->batch_tex.len = c->batch_ids.len;
        c->batch_data.len = c->batch_ids.len;
        RILL_LOG_WARN(LOGM, "texture streaming: out of memory; %s keeps its image", x->path);
    }
}

/* >>lifetime --------------------------------------------------------------------------------- */

rill__tsc *rill__tsc_create(rill_renderer *r, rill_asset_server *assets, rill_world *world,
                            const rill_texstream_settings *settings) {
    rill__tsc *c = rill_calloc_tagged(1, sizeof *c, RILL_MEM_RENDER);
    if (!c) {
        return NULL;
    }
    c->renderer = r;
    c->assets = assets;
    c->world = world;
    rill_texstream_ops ops = {op_request, op_cancel, op_apply, c};
    c->ts = rill_texstream_create(settings, &ops);
    if (!c->ts) {
        rill_free(c);
        return NULL;
    }
    return c;
}

void rill__tsc_destroy(rill__tsc *c) {
    if (!c) {
        return;
    }
    for (uint32_t i = 0; i < c->ntex; i++) {
        drop_load(c, &c->tex[i]);
        rill_free(c->tex[i].path);
        if (c->tex[i].refs) {
            rill_render_texture_destroy(c->renderer, c->tex[i].tex);
        }
    }
    rill_texstream_destroy(c->ts);
    rill_free(c->tex);
    rill_free(c->slot_of_ts);
    rill_array_free(&c->free_slots);
    rill_map_free(&c->by_key);
    rill_array_free(&c->queue);
    rill_array_free(&c->loading);
    rill_array_free(&c->waiting);
    rill_array_free(&c->batch_tex);
    rill_array_free(&c->batch_data);
    rill_array_free(&c->batch_ids);
    rill_array_free(&c->landing);
    rill_free(c);
}

rill_texstream *rill__tsc_decisions(rill__tsc *c) {
    return c ? c->ts : NULL;
}

/* The gate and camera as the stream module published them this frame ("StreamingState"). */
static bool gate(const rill__tsc *c, float cam[3], bool *has_cam) {
    rill_resource res = rill_world_find_resource(c->world, "StreamingState");
    const rill_streaming_state *st =
        rill_resource_valid(res) ? rill_world_get_resource(c->world, res) : NULL;
    *has_cam = st && st->camera != RILL_ENTITY_NULL;
    if (*has_cam) {
        memcpy(cam, st->camera_position, sizeof(float) * 3);
    }
    return st && st->active;
}

bool rill__tsc_start_low(const rill__tsc *c) {
    float cam[3];
    bool has_cam;
    return c && rill_texstream_get_settings(c->ts)->enabled && gate(c, cam, &has_cam);
}

/* >>shared textures --------------------------------------------------------------------------- */

static uint64_t share_key(const char *path, bool srgb) {
    uint64_t h = rill_hash64_str(path) ^ (srgb ? 0x9E3779B97F4A7C15ull : 0);
    return h ? h : 1;
}

/* The slot of the live texture for (path, srgb), or RILL_TEXSTREAM_NONE. */
static uint32_t find_slot(const rill__tsc *c, const char *path, bool srgb) {
    uint64_t v = 0;
    if (!rill_map_get(&c->by_key, share_key(path, srgb), &v)) {
        return RILL_TEXSTREAM_NONE;
    }
    const tsc_tex *x = &c->tex[v];
    return x->srgb == srgb && strcmp(x->path, path) == 0 ? (uint32_t)v : RILL_TEXSTREAM_NONE;
}

const char *rill__tsc_path_of(const rill__tsc *c, rill_texture tex) {
    for (uint32_t i = 0; c && tex.id && i < c->ntex; i++) {
        if (c->tex[i].refs && c->tex[i].tex.id == tex.id) {
            return c->tex[i].path;
        }
    }
    return NULL;
}

rill_texture rill__tsc_find(void *user, const char *path, bool srgb) {
    rill__tsc *c = user;
    uint32_t slot = find_slot(c, path, srgb);
    return slot == RILL_TEXSTREAM_NONE ? (rill_texture){0} : c->tex[slot].tex;
}

static uint32_t alloc_slot(rill__tsc *c) {
    if (c->free_slots.len) {
        return c->free_slots.data[--c->free_slots.len];
    }
    if (c->ntex == c->ctex) {
        uint32_t nc = c->ctex ? c->ctex * 2 : 256;
        tsc_tex *grown = rill_realloc_tagged(c->tex, (size_t)nc * sizeof *grown, RILL_MEM_RENDER);
        if (!grown) {
            return RILL_TEXSTREAM_NONE;
        }
        c->tex = grown;
        c->ctex = nc;
    }
    return c->ntex++;
}

/* Registers texture ts with the streamer's id -> slot table; false when out of memory. */
static bool map_ts(rill__tsc *c, uint32_t ts, uint32_t slot) {
    if (ts >= c->cslot_of_ts) {
        uint32_t nc = c->cslot_of_ts ? c->cslot_of_ts * 2 : 256;
        while (nc <= ts) {
            nc *= 2;
        }
        uint32_t *grown =
            rill_realloc_tagged(c->slot_of_ts, (size_t)nc * sizeof *grown, RILL_MEM_RENDER);
        if (!grown) {
            return false;
        }
        c->slot_of_ts = grown;
        c->cslot_of_ts = nc;
    }
    c->slot_of_ts[ts] = slot;
    return true;
}

/* A texture a model loaded becomes shared (one reference); its path moves here. A chain that is
 * all tail (<= 256 px) or a decoded image does not stream: nothing to gain. RILL_TEXSTREAM_NONE
 * when out of memory (the model keeps the texture as its own). */
static uint32_t add_shared(rill__tsc *c, rill__tex_origin *o, rill_texture tex) {
    uint64_t key = share_key(o->path, o->srgb);
    uint64_t clash = 0;
    if (rill_map_get(&c->by_key, key, &clash)) {
        return RILL_TEXSTREAM_NONE; /* another image under the same hash: not shared */
    }
    uint32_t slot = alloc_slot(c);
    if (slot == RILL_TEXSTREAM_NONE || !rill_map_set(&c->by_key, key, slot)) {
        if (slot != RILL_TEXSTREAM_NONE) {
            (void)rill_array_push(&c->free_slots, slot); /* the slot was popped or grown */
        }
        return RILL_TEXSTREAM_NONE;
    }
    c->tex[slot] = (tsc_tex){.tex = tex,
                             .path = o->path,
                             .key = key,
                             .refs = 1,
                             .ts = RILL_TEXSTREAM_NONE,
                             .srgb = o->srgb,
                             .want = -1};
    o->path = NULL;
    if (o->low_bytes < o->full_bytes) {
        uint32_t ts = rill_texstream_add_texture(c->ts, o->full_bytes, o->low_bytes,
                                                 o->low ? RILL_TEX_LOW : RILL_TEX_FULL);
        if (ts != RILL_TEXSTREAM_NONE && !map_ts(c, ts, slot)) {
            rill_texstream_remove_texture(c->ts, ts);
            ts = RILL_TEXSTREAM_NONE; /* out of memory: it stays as loaded */
        }
        c->tex[slot].ts = ts;
    }
    return slot;
}

/* Drops a model's reference; the last one destroys the texture and stops streaming it. */
static void release_shared(rill__tsc *c, uint32_t slot) {
    tsc_tex *x = &c->tex[slot];
    if (--x->refs) {
        return;
    }
    if (x->ts != RILL_TEXSTREAM_NONE) {
        rill_texstream_remove_texture(c->ts, x->ts); /* cancels its request through op_cancel */
        forget_request(c, x->ts, x);
    }
    rill_render_texture_destroy(c->renderer, x->tex);
    rill_map_remove(&c->by_key, x->key);
    rill_free(x->path);
    memset(x, 0, sizeof *x);
    x->want = -1;
    if (!rill_array_push(&c->free_slots, slot)) {
        RILL_LOG_WARN(LOGM, "texture sharing: out of memory; a texture slot is not reused");
    }
}

/* >>models ----------------------------------------------------------------------------------- */

void rill__tsc_add_model(rill__tsc *c, const rill_gltf_model *m, const rill_render_model *gpu,
                         rill__tex_origin *origins, uint32_t *slots, uint32_t *ts_mat) {
    for (uint32_t t = 0; t < m->texture_count; t++) {
        slots[t] = RILL_TEXSTREAM_NONE;
        rill__tex_origin *o = &origins[t];
        c->stats.bytes_read += o->read_bytes;
        if (!o->path || !gpu->textures[t].id) {
            continue; /* embedded or unreadable: the model's own */
        }
        if (o->shared) {
            /* Found at load; not found now only when its first user failed to share it (out of
             * memory), and then the handle is that model's own texture (this model's too). */
            slots[t] = find_slot(c, o->path, o->srgb);
            if (slots[t] != RILL_TEXSTREAM_NONE) {
                c->tex[slots[t]].refs++;
            }
            continue;
        }
        slots[t] = add_shared(c, o, gpu->textures[t]);
    }
    /* Every glTF material is a standard material (custom-shader and terrain materials are not
     * made from glTF files, so they are never registered and stay full). */
    for (uint32_t i = 0; i < m->material_count; i++) {
        const rill_gltf_material *mt = &m->materials[i];
        const int32_t refs[RILL_TEXSTREAM_SLOTS] = {
            mt->base_color_texture.texture, mt->normal_texture.texture,
            mt->metallic_roughness_texture.texture, mt->occlusion_texture.texture,
            mt->emissive_texture.texture};
        uint32_t ts[RILL_TEXSTREAM_SLOTS];
        bool any = false;
        for (uint32_t k = 0; k < RILL_TEXSTREAM_SLOTS; k++) {
            uint32_t slot = refs[k] >= 0 && (uint32_t)refs[k] < m->texture_count
                                ? slots[refs[k]]
                                : RILL_TEXSTREAM_NONE;
            ts[k] = slot != RILL_TEXSTREAM_NONE ? c->tex[slot].ts : RILL_TEXSTREAM_NONE;
            any |= ts[k] != RILL_TEXSTREAM_NONE;
        }
        ts_mat[i] = any ? rill_texstream_add_material(c->ts, ts, 0) : RILL_TEXSTREAM_NONE;
    }
    ts_mat[m->material_count] = RILL_TEXSTREAM_NONE; /* the default material has no textures */
}

void rill__tsc_remove_model(rill__tsc *c, rill_render_model *gpu, const uint32_t *slots,
                            uint32_t texture_count, const uint32_t *ts_mat,
                            uint32_t material_count) {
    for (uint32_t i = 0; i < material_count; i++) {
        if (ts_mat[i] != RILL_TEXSTREAM_NONE) {
            rill_texstream_remove_material(c->ts, ts_mat[i]);
        }
    }
    for (uint32_t t = 0; t < texture_count; t++) {
        if (slots[t] < c->ntex) {
            gpu->textures[t].id = 0; /* not the model's to destroy */
            release_shared(c, slots[t]);
        }
    }
}

/* >>per frame -------------------------------------------------------------------------------- */

/* A load that failed: counted, logged once (the file and the reason) until a load of that texture
 * lands, and tried again after a back-off. It is not reported ready: the texture's group keeps
 * its previous state whole (never a hole, never a mix) until the retry lands or the camera
 * cancels the request. */
static void load_failed(rill__tsc *c, uint32_t t, tsc_tex *x, const char *why) {
    c->stats.load_failures++;
    if (!x->warned) {
        RILL_LOG_WARN(LOGM, "texture streaming: %s; the texture keeps its image, retried", why);
        x->warned = true;
    }
    drop_load(c, x);
    remove_id(c->loading.data, &c->loading.len, t);
    x->backoff = x->backoff > 0 ? RILL_MIN(x->backoff * 2.0f, MAX_BACKOFF) : FIRST_BACKOFF;
    x->retry_at = c->now + x->backoff;
    if (!rill_array_push(&c->waiting, t)) {
        x->want = -1; /* out of memory: never retried; a later evaluation requests it again */
    }
}

/* Failed loads whose back-off ran out go back to the queue. */
static void requeue_due(rill__tsc *c) {
    for (uint32_t i = 0; i < c->waiting.len;) {
        uint32_t t = c->waiting.data[i];
        tsc_tex *x = of_ts(c, t);
        if (c->now < x->retry_at) {
            i++;
            continue;
        }
        rill_array_swap_remove(&c->waiting, i);
        if (!x->queued && rill_array_push(&c->queue, t)) {
            x->queued = true;
        }
    }
}

static void start_loads(rill__tsc *c) {
    while (c->queue.len && c->loading.len < MAX_LOADING) {
        uint32_t t = c->queue.data[0];
        memmove(c->queue.data, c->queue.data + 1, (c->queue.len - 1) * sizeof(uint32_t));
        c->queue.len--;
        tsc_tex *x = of_ts(c, t);
        x->queued = false;
        if (x->want < 0 || !rill_array_push(&c->loading, t)) {
            continue;
        }
        char key[RILL_VFS_PATH_MAX + 8];
        snprintf(key, sizeof key, "%s%s", x->path, x->want == RILL_TEX_LOW ? "#low" : "");
        rill_error err = {0};
        x->load = rill_asset_load(c->assets, key, &err);
        x->load_started = x->load.id != 0;
        x->reported = false;
        if (!x->load_started) {
            char why[sizeof key + sizeof err.msg + 2];
            snprintf(why, sizeof why, "%s: %s", key, err.msg);
            load_failed(c, t, x, why);
        }
    }
}

static void poll_loads(rill__tsc *c) {
    for (uint32_t i = 0; i < c->loading.len;) {
        uint32_t t = c->loading.data[i];
        tsc_tex *x = of_ts(c, t);
        rill_asset_state st = x->reported || !x->load_started
                                  ? RILL_ASSET_STATE_LOADING
                                  : rill_asset_get_state(c->assets, x->load);
        if (st == RILL_ASSET_STATE_FAILED || st == RILL_ASSET_STATE_INVALID) {
            load_failed(c, t, x, rill_asset_error(c->assets, x->load)); /* leaves loading[] */
            continue;
        }
        i++;
        if (st != RILL_ASSET_STATE_LOADED) {
            continue;
        }
        size_t bytes = 0;
        rill_asset_get_payload(c->assets, x->load, &bytes);
        c->stats.bytes_read += bytes;
        x->reported = true;
        x->warned = false;
        x->backoff = 0;
        rill_texstream_data_ready(c->ts, t, (rill_texstream_level)x->want);
    }
}

/* A landed load handed to the renderer with its payload: released when the upload is recorded. */
typedef struct tsc_hold {
    rill_asset_server *assets;
    rill_asset load;
} tsc_hold;

static void release_hold(void *user) {
    tsc_hold *h = user;
    rill_asset_release(h->assets, h->load);
    rill_free(h);
}

/* Sends the batch, handing each load over to the renderer (no copy of the levels here); false
 * when out of memory before anything was handed over. */
static bool send_borrowed(rill__tsc *c, uint32_t n, const rill_tex_data **ptrs, rill_error *err,
                          rill_result *res) {
    void **holds = rill_calloc_tagged(n, sizeof *holds, RILL_MEM_RENDER);
    bool ok = holds != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        ok = (holds[i] = rill_malloc_tagged(sizeof(tsc_hold), RILL_MEM_RENDER)) != NULL;
    }
    if (!ok) {
        for (uint32_t i = 0; holds && i < n; i++) {
            rill_free(holds[i]);
        }
        rill_free(holds);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        tsc_tex *x = of_ts(c, c->batch_ids.data[i]);
        *(tsc_hold *)holds[i] = (tsc_hold){c->assets, x->load};
        x->load_started = false; /* the hold owns the load now */
        x->load.id = 0;
    }
    *res = rill_render_texture_replace_many_borrowed(c->renderer, n, c->batch_tex.data, ptrs,
                                                     release_hold, holds, err);
    rill_free(holds);
    return true;
}

/* The applies of this update as one batch: they switch together at one frame. */
static void send_batch(rill__tsc *c) {
    uint32_t n = c->batch_ids.len;
    if (!n) {
        return;
    }
    uint64_t t0 = now_ns();
    const rill_tex_data **ptrs = rill_malloc_tagged(n * sizeof *ptrs, RILL_MEM_RENDER);
    rill_error err = {0};
    if (!ptrs) {
        RILL_LOG_WARN(LOGM, "texture streaming: out of memory; %u textures keep their images", n);
    } else {
        for (uint32_t i = 0; i < n; i++) {
            ptrs[i] = &c->batch_data.data[i];
        }
        rill_result res = RILL_OK;
        if (!send_borrowed(c, n, ptrs, &err, &res)) { /* out of memory: the copying path */
            res = rill_render_texture_replace_many(c->renderer, n, c->batch_tex.data, ptrs, &err);
        }
        if (res != RILL_OK) {
            RILL_LOG_WARN(LOGM, "texture streaming: a swap of %u textures failed: %s", n, err.msg);
        } else {
            c->stats.batches++;
            c->stats.swaps += n;
        }
        rill_free(ptrs);
    }
    for (uint32_t i = 0; i < n; i++) { /* the uploads own the loads (or copies): drop ours */
        uint32_t t = c->batch_ids.data[i];
        tsc_tex *x = of_ts(c, t);
        if (x->want == RILL_TEX_FULL) {
            tsc_landing l = {x->tex, x->requested_at};
            (void)rill_array_push(&c->landing, l); /* out of memory: one figure fewer */
        }
        drop_load(c, x);
        remove_id(c->loading.data, &c->loading.len, t);
        x->want = -1;
    }
    c->batch_tex.len = c->batch_data.len = c->batch_ids.len = 0;
    uint64_t dt = now_ns() - t0;
    c->stats.swap_ns_last = dt;
    c->stats.swap_ns_max = RILL_MAX(c->stats.swap_ns_max, dt);
}

void rill__tsc_set_time(rill__tsc *c, double seconds) {
    c->has_time = true;
    c->time = seconds;
}

/* Full swaps that reached the screen (the renderer switched them at a frame start): the time
 * from their request to now. */
static void watch_landings(rill__tsc *c) {
    for (uint32_t i = 0; i < c->landing.len;) {
        tsc_landing *l = &c->landing.data[i];
        if (rill_render_texture_pending(c->renderer, l->tex)) {
            i++;
            continue;
        }
        double ms = RILL_MAX(c->now - l->requested_at, 0.0) * 1000.0; /* clock switched */
        c->stats.full_latency_ms_max = RILL_MAX(c->stats.full_latency_ms_max, ms);
        c->stats.full_latency_ms_sum += ms;
        c->stats.full_landed++;
        rill_array_swap_remove(&c->landing, i);
    }
}

void rill__tsc_update(rill__tsc *c) {
    uint64_t t0 = now_ns();
    c->now = c->has_time ? c->time : mono_seconds();
    watch_landings(c);
    requeue_due(c);
    start_loads(c);
    poll_loads(c);
    float cam[3];
    bool has_cam;
    bool active = gate(c, cam, &has_cam);
    c->stats.swap_ns_last = 0;
    rill_texstream_update(c->ts, c->now, active, has_cam ? cam : NULL);
    send_batch(c);
    start_loads(c); /* requests of this update start at once */
    uint64_t dt = now_ns() - t0;
    c->stats.update_ns_last = dt;
    c->stats.update_ns_max = RILL_MAX(c->stats.update_ns_max, dt);
}

void rill__tsc_get_stats(const rill__tsc *c, rill__tsc_stats *out) {
    *out = c->stats;
    out->queued = c->queue.len;
    out->loading = c->loading.len;
}

uint32_t rill__tsc_pending(const rill__tsc *c) {
    rill_texstream_stats st;
    rill_texstream_get_stats(c->ts, &st);
    return st.in_flight + (st.sweeping ? 1u : 0u);
}
