/* texture_stream.c: texture streaming carried out (the carrier of rill/stream/textures.h for the
 * render asset cache). It registers every streamable model texture (a .rmip read through the
 * VFS) and every standard material's five slots with a rill_texstream, feeds it the users the
 * cache's sweep finds, and carries its decisions out: a request loads "path#low" or "path"
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

typedef struct tsc_tex {
    rill_texture tex;
    char *path; /* the .rmip VFS path */
    bool srgb;
    bool queued;         /* waiting for a loading slot */
    int8_t want;         /* requested level, -1 = none */
    rill_asset load;     /* the load in flight (or landed, until applied) */
    bool load_started;   /* load is valid */
    bool reported;       /* data ready was reported */
    double requested_at; /* clock of the last full request (for the latency figures) */
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
    tsc_tex *tex; /* indexed by texstream texture id */
    uint32_t ntex, ctex;
    RILL_ARRAY(uint32_t) queue;   /* requested, not started */
    RILL_ARRAY(uint32_t) loading; /* started, not applied */
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

static void op_request(void *user, uint32_t t, rill_texstream_level level) {
    rill__tsc *c = user;
    tsc_tex *x = &c->tex[t];
    drop_load(c, x);
    remove_id(c->loading.data, &c->loading.len, t);
    x->want = (int8_t)level;
    x->requested_at = c->now;
    if (!x->queued && rill_array_push(&c->queue, t)) {
        x->queued = true;
    }
}

static void op_cancel(void *user, uint32_t t, rill_texstream_level level) {
    (void)level;
    rill__tsc *c = user;
    tsc_tex *x = &c->tex[t];
    if (x->queued) {
        remove_id(c->queue.data, &c->queue.len, t);
        x->queued = false;
    }
    drop_load(c, x);
    remove_id(c->loading.data, &c->loading.len, t);
    x->want = -1;
    c->stats.cancelled++;
}

/* Collected; rill__tsc_update sends the batch after the evaluator's update. */
static void op_apply(void *user, uint32_t t, rill_texstream_level level) {
    rill__tsc *c = user;
    tsc_tex *x = &c->tex[t];
    const rill_tex_data *data =
        x->load_started ? rill_asset_get_payload_as(c->assets, x->load, "rmip") : NULL;
    if (!data || x->want != (int8_t)level) {
        /* The load failed (warned when it landed): the texture keeps the image it has. */
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
    }
    rill_texstream_destroy(c->ts);
    rill_free(c->tex);
    rill_array_free(&c->queue);
    rill_array_free(&c->loading);
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

/* >>models ----------------------------------------------------------------------------------- */

void rill__tsc_add_model(rill__tsc *c, const rill_gltf_model *m, const rill_render_model *gpu,
                         rill__tex_origin *origins, uint32_t *ts_tex, uint32_t *ts_mat) {
    for (uint32_t t = 0; t < m->texture_count; t++) {
        ts_tex[t] = RILL_TEXSTREAM_NONE;
        rill__tex_origin *o = &origins[t];
        c->stats.bytes_read += o->read_bytes;
        if (!o->path || !gpu->textures[t].id || o->low_bytes >= o->full_bytes) {
            continue; /* not streamable, or a chain that is all tail (<= 256 px): nothing to gain */
        }
        uint32_t id = rill_texstream_add_texture(c->ts, o->full_bytes, o->low_bytes,
                                                 o->low ? RILL_TEX_LOW : RILL_TEX_FULL);
        if (id == RILL_TEXSTREAM_NONE) {
            continue; /* out of memory: this texture stays as loaded */
        }
        if (id >= c->ctex) {
            uint32_t nc = c->ctex ? c->ctex * 2 : 256;
            while (nc <= id) {
                nc *= 2;
            }
            tsc_tex *grown =
                rill_realloc_tagged(c->tex, (size_t)nc * sizeof *grown, RILL_MEM_RENDER);
            if (!grown) {
                rill_texstream_remove_texture(c->ts, id);
                continue;
            }
            c->tex = grown;
            c->ctex = nc;
        }
        c->tex[id] =
            (tsc_tex){.tex = gpu->textures[t], .path = o->path, .srgb = o->srgb, .want = -1};
        o->path = NULL; /* owned here now */
        c->ntex = RILL_MAX(c->ntex, id + 1);
        ts_tex[t] = id;
    }
    /* Every glTF material is a standard material (custom-shader and terrain materials are not
     * made from glTF files, so they are never registered and stay full). */
    for (uint32_t i = 0; i < m->material_count; i++) {
        const rill_gltf_material *mt = &m->materials[i];
        const int32_t refs[RILL_TEXSTREAM_SLOTS] = {
            mt->base_color_texture.texture, mt->normal_texture.texture,
            mt->metallic_roughness_texture.texture, mt->occlusion_texture.texture,
            mt->emissive_texture.texture};
        uint32_t slots[RILL_TEXSTREAM_SLOTS];
        bool any = false;
        for (uint32_t k = 0; k < RILL_TEXSTREAM_SLOTS; k++) {
            slots[k] = refs[k] >= 0 && (uint32_t)refs[k] < m->texture_count ? ts_tex[refs[k]]
                                                                            : RILL_TEXSTREAM_NONE;
            any |= slots[k] != RILL_TEXSTREAM_NONE;
        }
        ts_mat[i] = any ? rill_texstream_add_material(c->ts, slots, 0) : RILL_TEXSTREAM_NONE;
    }
    ts_mat[m->material_count] = RILL_TEXSTREAM_NONE; /* the default material has no textures */
}

void rill__tsc_remove_model(rill__tsc *c, const uint32_t *ts_tex, uint32_t texture_count,
                            const uint32_t *ts_mat, uint32_t material_count) {
    for (uint32_t i = 0; i < material_count; i++) {
        if (ts_mat[i] != RILL_TEXSTREAM_NONE) {
            rill_texstream_remove_material(c->ts, ts_mat[i]);
        }
    }
    for (uint32_t t = 0; t < texture_count; t++) {
        uint32_t id = ts_tex[t];
        if (id == RILL_TEXSTREAM_NONE || id >= c->ntex) {
            continue;
        }
        rill_texstream_remove_texture(c->ts, id); /* cancels its request through op_cancel */
        tsc_tex *x = &c->tex[id];
        if (x->queued) {
            remove_id(c->queue.data, &c->queue.len, id);
        }
        drop_load(c, x);
        remove_id(c->loading.data, &c->loading.len, id);
        rill_free(x->path);
        memset(x, 0, sizeof *x);
        x->want = -1;
    }
}

/* >>per frame -------------------------------------------------------------------------------- */

static void start_loads(rill__tsc *c) {
    uint32_t started = 0;
    while (c->queue.len && c->loading.len < MAX_LOADING) {
        uint32_t t = c->queue.data[0];
        memmove(c->queue.data, c->queue.data + 1, (c->queue.len - 1) * sizeof(uint32_t));
        c->queue.len--;
        tsc_tex *x = &c->tex[t];
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
            /* Reported as landed: op_apply finds no payload and keeps the image. */
            RILL_LOG_WARN(LOGM, "texture streaming: %s: %s", key, err.msg);
            c->stats.load_failures++;
            x->reported = true;
            rill_texstream_data_ready(c->ts, t, (rill_texstream_level)x->want);
        }
        started++;
    }
    (void)started;
}

static void poll_loads(rill__tsc *c) {
    for (uint32_t i = 0; i < c->loading.len; i++) {
        uint32_t t = c->loading.data[i];
        tsc_tex *x = &c->tex[t];
        if (x->reported || !x->load_started) {
            continue;
        }
        rill_asset_state st = rill_asset_get_state(c->assets, x->load);
        if (st == RILL_ASSET_STATE_LOADED) {
            size_t bytes = 0;
            rill_asset_get_payload(c->assets, x->load, &bytes);
            c->stats.bytes_read += bytes;
        } else if (st == RILL_ASSET_STATE_FAILED || st == RILL_ASSET_STATE_INVALID) {
            RILL_LOG_WARN(LOGM, "texture streaming: %s; the texture keeps its image",
                          rill_asset_error(c->assets, x->load));
            c->stats.load_failures++;
        } else {
            continue;
        }
        x->reported = true;
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
        tsc_tex *x = &c->tex[c->batch_ids.data[i]];
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
        if (c->tex[t].want == RILL_TEX_FULL) {
            tsc_landing l = {c->tex[t].tex, c->tex[t].requested_at};
            (void)rill_array_push(&c->landing, l); /* out of memory: one figure fewer */
        }
        drop_load(c, &c->tex[t]);
        remove_id(c->loading.data, &c->loading.len, t);
        c->tex[t].want = -1;
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
