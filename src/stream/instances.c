/* instances.c: the instance streamer. It keeps one record per streamed SceneInstance root and, each
 * frame, decides from the camera's distance to the instance's world bounds which ones load (through
 * the scene loader's budgeted async spawner) and which unload (the root's descendants hidden, at
 * most max_hides_per_update entities an update, then despawned by the scene loader in budgeted
 * batches; the root and its Transform stay).
 * Rules in rill/stream.h, "ON STREAMED SCENE INSTANCES".
 *
 * Nothing here allocates in the steady state: the record array, the entity -> record map, the
 * candidate list and the walk stack grow only when the world gains instances or deeper content.
 */
#include "stream_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

typedef struct inst_rec {
    rill_entity root;
    rill_instance_state state;
    rill_scene_load load; /* while LOADING */
    uint64_t seen;        /* update stamp: records not seen in an update are dropped */
    bool bounds_known;
    float wmin[3], wmax[3]; /* world box (a point at the root's origin when unknown) */
    float distance;
    float load_r, unload_r;
    bool hiding;      /* UNLOADING, in the hide queue: not yet handed to the loader */
    float proxy_fade; /* how much of its far-world proxy stands in for it (hlod.c) */
} inst_rec;

typedef struct candidate {
    float distance;
    uint32_t index;
} candidate;

struct rill__instance_streamer {
    rill_stream *stream;
    rill_scene_loader *scenes;
    rill_component comp;
    rill_model_components models; /* model_mesh, model, render_mode: to hide unloading content */
    RILL_ARRAY(inst_rec) recs;
    rill_map by_root; /* entity -> record index + 1 */
    RILL_ARRAY(candidate) cands;
    RILL_ARRAY(rill_entity) walk;
    /* Roots whose content is being hidden, oldest first; the walk is the first one's (seeded once
     * hide_seeded). Hiding a district's tens of thousands of entities at once took milliseconds of
     * one frame: it goes max_hides_per_update entities an update. */
    RILL_ARRAY(rill_entity) hide_queue;
    bool hide_seeded;
    uint64_t stamp;
    uint64_t loads_started, loads_completed, loads_cancelled, loads_failed, unloads;
    uint64_t entities_unloaded;
};

const char *rill_instance_state_name(rill_instance_state state) {
    switch (state) {
        RILL_INSTANCE_STATE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "invalid";
    }
}

/* >>bounds ------------------------------------------------------------------------------------ */

static bool box_known(const float mn[3], const float mx[3]) {
    return mx[0] > mn[0] || mx[1] > mn[1] || mx[2] > mn[2];
}

/* Inverse of the affine column-major matrix m (rotation/scale + translation) into out. False when
 * the linear part is singular (a zero scale): the caller then keeps the bounds unknown. */
static bool affine_inverse(const float m[16], float out[16]) {
    const float a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
                i = m[10];
    const float A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    const float det = a * A + b * B + c * C;
    if (det > -1e-20f && det < 1e-20f) {
        return false;
    }
    const float k = 1.0f / det;
    float r[9] = {A * k, -(b * i - c * h) * k, (b * f - c * e) * k,
                  B * k, (a * i - c * g) * k,  -(a * f - c * d) * k,
                  C * k, -(a * h - b * g) * k, (a * e - b * d) * k}; /* row-major */
    memset(out, 0, 16 * sizeof(float));
    for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 3; col++) {
            out[col * 4 + row] = r[row * 3 + col];
        }
        out[12 + row] = -(r[row * 3] * m[12] + r[row * 3 + 1] * m[13] + r[row * 3 + 2] * m[14]);
    }
    out[15] = 1.0f;
    return true;
}

/* Computes a loaded instance's box from the world positions of its descendants (and the root's
 * own origin), stores it root-local in the SceneInstance and returns true. */
static bool compute_bounds(rill__instance_streamer *is, rill_entity root) {
    rill_world *w = rill_stream_world(is->stream);
    const float *rm = rill_world_global_matrix(w, root);
    float inv[16];
    if (!rm || !affine_inverse(rm, inv)) {
        return false;
    }
    float mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0}; /* the root's own origin, root-local */
    rill_array_clear(&is->walk);
    for (rill_entity c = rill_world_first_child(w, root); c; c = rill_world_next_sibling(w, c)) {
        if (!rill_array_push(&is->walk, c)) {
            return false;
        }
    }
    while (is->walk.len) {
        rill_entity e = rill_array_pop(&is->walk);
        const float *m = rill_world_global_matrix(w, e);
        if (m) {
            for (int r = 0; r < 3; r++) {
                float v = inv[12 + r] + inv[r] * m[12] + inv[4 + r] * m[13] + inv[8 + r] * m[14];
                mn[r] = v < mn[r] ? v : mn[r];
                mx[r] = v > mx[r] ? v : mx[r];
            }
        }
        for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
            if (!rill_array_push(&is->walk, c)) {
                return false;
            }
        }
    }
    if (!box_known(mn, mx)) {
        return false; /* every position at the origin: nothing to learn */
    }
    rill_scene_instance *si = rill_world_get(w, root, is->comp);
    if (!si) {
        return false;
    }
    memcpy(si->bounds_min, mn, sizeof mn);
    memcpy(si->bounds_max, mx, sizeof mx);
    return true;
}

/* Refreshes r's world box from the component (or the root's origin when unknown). */
static void refresh_box(rill_world *w, inst_rec *r, const rill_scene_instance *si) {
    const float *m = rill_world_global_matrix(w, r->root);
    float origin[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (!m) {
        const rill_transform *tr = rill_world_get(w, r->root, rill_world_builtin(w)->transform);
        if (tr) {
            memcpy(origin + 12, tr->translation, 3 * sizeof(float));
        }
        m = origin;
    }
    r->bounds_known = box_known(si->bounds_min, si->bounds_max);
    if (r->bounds_known) {
        rill_stream_box_transform(m, si->bounds_min, si->bounds_max, r->wmin, r->wmax);
    } else {
        memcpy(r->wmin, m + 12, 3 * sizeof(float));
        memcpy(r->wmax, m + 12, 3 * sizeof(float));
    }
}

/* >>transitions ------------------------------------------------------------------------------- */

/* A failed instance, named as a user finds it: its entity's name (else "unnamed") and
 * index:generation. */
static void warn_failed(rill__instance_streamer *is, rill_entity root, const char *why) {
    const char *name = rill_world_get_name(rill_stream_world(is->stream), root);
    RILL_LOG_WARN("stream", "instance \"%s\" (entity %u:%u): %s", name ? name : "unnamed",
                  RILL_ENTITY_INDEX(root), RILL_ENTITY_GENERATION(root), why);
}

static void start_load(rill__instance_streamer *is, inst_rec *r) {
    rill_error err = {0};
    rill_scene_load h = rill_scene_instance_load(is->scenes, r->root, &err);
    if (!h.id) {
        /* A busy root (someone else loads it) or an exhausted loader: try again next update; a
         * root with no scene path, or one inside another instance of its own file or nested too
         * deep, can never load, so it is marked failed. */
        if (err.code == RILL_ERR_INVALID_ARGUMENT || err.code == RILL_ERR_LIMIT) {
            warn_failed(is, r->root, err.msg);
            r->state = RILL_INSTANCE_FAILED;
            is->loads_failed++;
        }
        return;
    }
    r->load = h;
    r->state = RILL_INSTANCE_LOADING;
    is->loads_started++;
}

/* Hides one entity: RenderMode hidden on a ModelMesh entity, and on a Model entity so the LOD
 * system shows none of its levels. */
static void hide_one(rill__instance_streamer *is, rill_world *w, rill_entity e) {
    const rill_model_components *mc = &is->models;
    const rill_render_mode_component hidden = {.mode = RILL_RENDER_MODE_HIDDEN};
    bool model = mc->model.id && rill_world_has(w, e, mc->model);
    if (!mc->render_mode.id ||
        !(model || (mc->model_mesh.id && rill_world_has(w, e, mc->model_mesh)))) {
        return;
    }
    /* On a Model entity through the world, so the LOD system hears of it at once. */
    rill_render_mode_component *rm = model ? NULL : rill_world_get(w, e, mc->render_mode);
    if (rm) {
        *rm = hidden;
    } else {
        rill_world_add(w, e, mc->render_mode, &hidden);
    }
}

/* Pushes e's children on the walk; false when memory ran out (what is left draws until despawned).
 */
static bool push_children(rill__instance_streamer *is, rill_world *w, rill_entity e) {
    for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
        if (!rill_array_push(&is->walk, c)) {
            return false;
        }
    }
    return true;
}

/* Hides every mesh below root now and returns how many descendants root has. */
static uint64_t hide_content(rill__instance_streamer *is, rill_entity root) {
    rill_world *w = rill_stream_world(is->stream);
    uint64_t n = 0;
    rill_array_clear(&is->walk);
    bool ok = push_children(is, w, root);
    while (ok && is->walk.len) {
        rill_entity e = rill_array_pop(&is->walk);
        n++;
        hide_one(is, w, e);
        ok = push_children(is, w, e);
    }
    rill_array_clear(&is->walk);
    return n;
}

/* Hands a hidden instance to the scene loader, which despawns its content within its per-update
 * budget. The record stays UNLOADING until the root has no child left. */
static void retire(rill__instance_streamer *is, inst_rec *r) {
    r->hiding = false;
    r->state = rill_scene_instance_retire(is->scenes, r->root) != 0 ? RILL_INSTANCE_UNLOADING
                                                                    : RILL_INSTANCE_UNLOADED;
}

/* Hides an update makes whatever the stream's time budget says, and how often past them it reads
 * the clock: a hide costs about 0.2 us, so an update that finds the frame's streaming budget spent
 * still hides a district of 14,000 entities within 55 updates. */
#define HIDE_STEP 256u

/* Whether the stream's time budget for this update is spent, read every HIDE_STEP hides past the
 * first HIDE_STEP (`done` of them so far). */
static bool hides_spent(const rill__instance_streamer *is, uint32_t done) {
    return done >= HIDE_STEP && done % HIDE_STEP == 0 &&
           rill_stream_budget_left_ns(is->stream) == 0;
}

/* Continues the hide queue for at most `budget` entities, and no further once the stream's time
 * budget is spent (hides_spent): the first root's walk goes on where the last update left it
 * (entities despawned meanwhile are skipped); a root whose walk ends is retired, and the next one
 * starts. */
static void hide_step(rill__instance_streamer *is, uint32_t budget) {
    rill_world *w = rill_stream_world(is->stream);
    uint32_t done = 0;
    while (is->hide_queue.len) {
        rill_entity root = is->hide_queue.data[0];
        uint64_t v = 0;
        inst_rec *r = rill_map_get(&is->by_root, root, &v) ? &is->recs.data[v - 1] : NULL;
        bool live = r && r->hiding && rill_world_is_alive(w, root);
        if (live && !is->hide_seeded) {
            rill_array_clear(&is->walk);
            is->hide_seeded = true;
            live = push_children(is, w, root);
        }
        while (live && is->walk.len && budget && !hides_spent(is, done)) {
            rill_entity e = rill_array_pop(&is->walk);
            if (!rill_world_is_alive(w, e)) {
                continue;
            }
            budget--;
            done++;
            is->entities_unloaded++;
            hide_one(is, w, e);
            live = push_children(is, w, e);
        }
        if (live && is->walk.len) {
            return; /* the budget is spent: the rest next update */
        }
        if (r && r->hiding) {
            retire(is, r);
        }
        rill_array_clear(&is->walk);
        is->hide_seeded = false;
        memmove(is->hide_queue.data, is->hide_queue.data + 1,
                (is->hide_queue.len - 1u) * sizeof(rill_entity));
        is->hide_queue.len--;
        if (!budget) {
            return;
        }
    }
}

/* A loaded instance goes: its content is queued for hiding (hide_step, a slice an update), then
 * retired to the loader. A load in flight is cancelled now, its partial entities hidden at once and
 * queued on the loader (the retire call cancels the load). Either way the record is UNLOADING until
 * the root has no child left; only then can the instance load again. */
static void unload(rill__instance_streamer *is, inst_rec *r) {
    if (r->state == RILL_INSTANCE_UNLOADING) {
        return;
    }
    if (r->state != RILL_INSTANCE_FAILED) {
        is->unloads++;
    }
    if (r->state == RILL_INSTANCE_LOADED && rill_array_push(&is->hide_queue, r->root)) {
        r->state = RILL_INSTANCE_UNLOADING;
        r->hiding = true;
        return;
    }
    bool loading = r->state == RILL_INSTANCE_LOADING;
    is->entities_unloaded += hide_content(is, r->root);
    retire(is, r);
    if (loading) {
        is->loads_cancelled++;
        rill_scene_load_release(is->scenes, r->load); /* cancelled above: forgets the record */
        r->load = (rill_scene_load){0};
    }
}

/* Follows a load in flight to its end. */
static void poll_load(rill__instance_streamer *is, inst_rec *r, const rill_scene_instance *si) {
    rill_scene_load_state st = rill_scene_load_get_state(is->scenes, r->load);
    if (st == RILL_SCENE_LOAD_PARSING || st == RILL_SCENE_LOAD_SPAWNING) {
        return;
    }
    if (st == RILL_SCENE_LOAD_LOADED) {
        r->state = RILL_INSTANCE_LOADED;
        is->loads_completed++;
        if (!box_known(si->bounds_min, si->bounds_max)) {
            compute_bounds(is, r->root);
        }
    } else if (st == RILL_SCENE_LOAD_FAILED) {
        warn_failed(is, r->root, rill_scene_load_error(is->scenes, r->load));
        r->state = RILL_INSTANCE_FAILED;
        is->loads_failed++;
    } else {
        r->state = RILL_INSTANCE_UNLOADED; /* cancelled by someone else, or recycled */
    }
    rill_scene_load_release(is->scenes, r->load);
    r->load = (rill_scene_load){0};
}

/* >>update ------------------------------------------------------------------------------------ */

static inst_rec *record_for(rill__instance_streamer *is, rill_entity root) {
    uint64_t v;
    if (rill_map_get(&is->by_root, root, &v)) {
        return &is->recs.data[v - 1];
    }
    inst_rec r = {.root = root, .state = RILL_INSTANCE_UNLOADED, .proxy_fade = 1.0f};
    /* Content already under the root (an editor's synchronous expand) counts as loaded. */
    if (rill_world_first_child(rill_stream_world(is->stream), root)) {
        r.state = RILL_INSTANCE_LOADED;
        r.proxy_fade = 0.0f;
    }
    if (!rill_array_push(&is->recs, r)) {
        return NULL;
    }
    if (!rill_map_set(&is->by_root, root, is->recs.len)) {
        is->recs.len--;
        return NULL;
    }
    return &rill_array_last(&is->recs);
}

/* Drops the records of roots that died or stopped being streamed (their content is left as is). */
static void drop_unseen(rill__instance_streamer *is) {
    for (uint32_t i = 0; i < is->recs.len;) {
        inst_rec *r = &is->recs.data[i];
        if (r->seen == is->stamp) {
            i++;
            continue;
        }
        if (r->state == RILL_INSTANCE_LOADING) {
            rill_scene_load_release(is->scenes, r->load);
        }
        rill_map_remove(&is->by_root, r->root);
        rill_array_swap_remove(&is->recs, i);
        if (i < is->recs.len) {
            rill_map_set(&is->by_root, is->recs.data[i].root, i + 1u);
        }
    }
}

/* Refreshes every record from the world: radii, box, distance, loads that ended. */
static void sync_records(rill__instance_streamer *is, const rill_streaming_state *st) {
    rill_world *w = rill_stream_world(is->stream);
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = rill_world_component_dense(w, is->comp, &ents, &data);
    const bool has_cam = st->active && st->camera != RILL_ENTITY_NULL;
    is->stamp++;
    for (uint32_t i = 0; i < n; i++) {
        const rill_scene_instance *si = (const rill_scene_instance *)data + i;
        if (!si->streamed) {
            continue;
        }
        inst_rec *r = record_for(is, ents[i]);
        if (!r) {
            continue;
        }
        r->seen = is->stamp;
        if (r->state == RILL_INSTANCE_LOADING) {
            poll_load(is, r, si);
        }
        if (r->state == RILL_INSTANCE_UNLOADING && !r->hiding &&
            !rill_world_first_child(w, r->root)) {
            r->state = RILL_INSTANCE_UNLOADED; /* the loader despawned the last of it */
        }
        r->load_r = si->load_radius;
        float gapped = si->load_radius + is->stream->desc.min_gap;
        r->unload_r = si->unload_radius > gapped ? si->unload_radius : gapped;
        refresh_box(w, r, si);
        r->distance =
            has_cam ? rill_stream_distance_to_box(st->camera_position, r->wmin, r->wmax) : FLT_MAX;
    }
    drop_unseen(is);
}

static int cmp_candidate(const void *a, const void *b) {
    const candidate *x = a, *y = b;
    if (x->distance != y->distance) {
        return x->distance < y->distance ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Decides: unloads beyond the unload radius, then starts the nearest wanted loads up to the cap.
 * want_all (gate closed) wants every instance regardless of distance and unloads nothing. */
static void decide(rill__instance_streamer *is, bool want_all, bool has_cam) {
    uint32_t in_flight = 0;
    rill_array_clear(&is->cands);
    for (uint32_t i = 0; i < is->recs.len; i++) {
        inst_rec *r = &is->recs.data[i];
        bool beyond = has_cam && r->distance > r->unload_r;
        if (!want_all && beyond && r->state != RILL_INSTANCE_UNLOADED &&
            r->state != RILL_INSTANCE_UNLOADING) {
            unload(is, r);
        }
        if (r->state == RILL_INSTANCE_LOADING) {
            in_flight++;
        }
        bool wanted = want_all || (has_cam && r->distance <= r->load_r);
        if (r->state == RILL_INSTANCE_UNLOADED && wanted) {
            rill_array_push(&is->cands, ((candidate){r->distance, i}));
        }
    }
    if (!is->cands.len) {
        return;
    }
    qsort(is->cands.data, is->cands.len, sizeof(candidate), cmp_candidate);
    const uint32_t cap = is->stream->desc.max_loads_in_flight;
    for (uint32_t k = 0; k < is->cands.len && in_flight < cap; k++) {
        inst_rec *r = &is->recs.data[is->cands.data[k].index];
        start_load(is, r);
        if (r->state == RILL_INSTANCE_LOADING) {
            in_flight++;
        }
    }
}

static void instances_update(rill_stream *s, const rill_streaming_state *st, void *user) {
    rill__instance_streamer *is = user;
    (void)s;
    sync_records(is, st);
    const bool has_cam = st->active && st->camera != RILL_ENTITY_NULL;
    if (!st->active) {
        decide(is, true, false);
    } else if (has_cam) {
        decide(is, false, true);
    }
    /* Gate open without a camera: residency stays as it is (loads in flight still complete), and
     * so do hides under way. */
    hide_step(is, is->stream->desc.max_hides_per_update);
    /* After the decisions, so an instance that starts unloading this update has its proxy whole
     * in the same frame (while its content is hidden over the next updates, the proxy overlaps
     * what is left of it rather than leave a hole). */
    for (uint32_t i = 0; i < is->recs.len; i++) {
        inst_rec *r = &is->recs.data[i];
        r->proxy_fade = rill__hlod_next_fade(&is->stream->hlod, r->state, r->proxy_fade);
    }
    /* The walk is the hides' scratch, empty between them: a district's worth of it goes back over
     * the next frames. */
    if (!is->hide_queue.len) {
        rill_array_trim(&is->walk, 0, 256u);
    }
    rill_array_trim(&is->hide_queue, 0, 64u);
}

/* The gate closed: start bringing everything back now rather than at the next update. */
static void instances_restore(rill_stream *s, void *user) {
    rill__instance_streamer *is = user;
    const rill_streaming_state *st = rill_stream_state(s);
    rill_streaming_state copy = st ? *st : (rill_streaming_state){0};
    copy.active = false;
    sync_records(is, &copy);
    decide(is, true, false);
}

/* >>lifetime ---------------------------------------------------------------------------------- */

rill__instance_streamer *rill__instances_create(rill_stream *s, rill_scene_loader *scenes) {
    rill__instance_streamer *is = rill_calloc_tagged(1, sizeof *is, RILL_MEM_STREAM);
    if (!is) {
        return NULL;
    }
    is->stream = s;
    is->scenes = scenes;
    is->comp = rill_scene_register(rill_stream_world(s)).instance;
    rill_error err = {0};
    if (!is->comp.id ||
        rill_scene_model_register(rill_stream_world(s), &is->models, &err) != RILL_OK ||
        !rill_stream_add_streamer(s, &(rill_streamer_desc){.name = "instances",
                                                           .update = instances_update,
                                                           .restore = instances_restore,
                                                           .user = is})) {
        rill_free(is);
        return NULL;
    }
    return is;
}

void rill__instances_destroy(rill__instance_streamer *is) {
    if (!is) {
        return;
    }
    rill_array_free(&is->recs);
    rill_array_free(&is->cands);
    rill_array_free(&is->walk);
    rill_array_free(&is->hide_queue);
    rill_map_free(&is->by_root);
    rill_free(is);
}

void rill__instances_stats(const rill__instance_streamer *is, rill_stream_stats *out) {
    if (!is) {
        return;
    }
    out->instances = is->recs.len;
    for (uint32_t i = 0; i < is->recs.len; i++) {
        switch (is->recs.data[i].state) {
        case RILL_INSTANCE_LOADED:
            out->loaded++;
            break;
        case RILL_INSTANCE_LOADING:
            out->loading++;
            break;
        case RILL_INSTANCE_FAILED:
            out->failed++;
            break;
        case RILL_INSTANCE_UNLOADING:
            out->unloading++;
            break;
        default:
            out->unloaded++;
            break;
        }
    }
    out->loads_started = is->loads_started;
    out->loads_completed = is->loads_completed;
    out->loads_cancelled = is->loads_cancelled;
    out->loads_failed = is->loads_failed;
    out->unloads = is->unloads;
    out->entities_unloaded = is->entities_unloaded;
}

uint32_t rill__instances_list(const rill__instance_streamer *is, rill_stream_instance_info *out,
                              uint32_t cap) {
    if (!is) {
        return 0;
    }
    for (uint32_t i = 0; i < is->recs.len && i < cap && out; i++) {
        const inst_rec *r = &is->recs.data[i];
        out[i] = (rill_stream_instance_info){.root = r->root,
                                             .state = r->state,
                                             .bounds_known = r->bounds_known,
                                             .distance = r->distance,
                                             .load_radius = r->load_r,
                                             .unload_radius = r->unload_r,
                                             .proxy_fade = r->proxy_fade};
        memcpy(out[i].bounds_min, r->wmin, sizeof r->wmin);
        memcpy(out[i].bounds_max, r->wmax, sizeof r->wmax);
    }
    return is->recs.len;
}

rill_instance_state rill__instances_state(const rill__instance_streamer *is, rill_entity root) {
    uint64_t v;
    if (!is || !rill_map_get(&is->by_root, root, &v)) {
        return RILL_INSTANCE_UNLOADED;
    }
    return is->recs.data[v - 1].state;
}

uint32_t rill__instances_settle(rill__instance_streamer *is, uint64_t max_ns) {
    if (!is) {
        return 0;
    }
    rill_world *w = rill_stream_world(is->stream);
    uint64_t start = rill_time_ns(), done0 = is->loads_completed;
    /* Outside the frame: the last frame's leftover of the streaming budget does not hold here. */
    uint64_t budget = rill_stream_budget_left_ns(is->stream);
    rill_stream_set_budget_ns(is->stream, RILL_STREAM_NO_BUDGET);
    for (;;) {
        rill_world_update_transforms(w);
        rill_stream_update(is->stream);
        uint32_t loading = 0;
        for (uint32_t i = 0; i < is->recs.len; i++) {
            loading += is->recs.data[i].state == RILL_INSTANCE_LOADING;
        }
        if (!loading || rill_time_ns() - start > max_ns) {
            break;
        }
        if (!rill_scene_loader_update(is->scenes)) {
            rill_sleep_ns(100000u); /* a worker parses */
        }
    }
    rill_stream_set_budget_ns(is->stream, budget);
    return (uint32_t)(is->loads_completed - done0);
}
