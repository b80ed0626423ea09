/* model_system.c: the model system (rill_scene_models in rill/scene/model.h). It watches the
 * world's "Model" { path } components, requests each file once through the asset server (the glTF
 * loader reads it on a worker) and spawns the model's node tree as children of every entity that
 * names it (rill_scene_model_spawn). Entities naming the same file share one asset; a per-path
 * user count decides when the asset is released. GPU uploads are the renderer's business: it
 * resolves the ModelMesh components at extract, one upload per asset. An app runs the update in
 * post_update before transform propagation, so a tree spawned in a frame has its
 * GlobalTransforms in that same frame. An update costs what changed: world add and remove observers
 * of Model queue the entities to look at (plus a small round-robin slice that catches a path
 * written in place), and the tracks waiting for their files form a queue of their own. */
#include <stdio.h>
#include <string.h>

#include "model_internal.h"
#include "rill/formats/export.h"

#define LOGM "models"
#define RESOURCE_NAME "SceneModels"
/* Tracks whose path is compared each update, round-robin (a Model written in place, not through
 * rill_world_add, is picked up within tracks / PATH_CHECK_SLICE updates). */
#define PATH_CHECK_SLICE 1024u

typedef enum entry_state {
    ENTRY_LOADING = 0, /* the asset is QUEUED or LOADING */
    ENTRY_READY,       /* loaded: spawnable */
    ENTRY_FAILED,      /* the load failed: entities naming it draw nothing */
} entry_state;

/* One model file, shared by every entity that names it. */
typedef struct model_entry {
    const char *path; /* interned: the cache key */
    rill_asset asset; /* one reference, held while the entry exists */
    entry_state state;
    char error[1024];    /* the failure message (it names the file) */
    uint32_t users;      /* tracked entities naming this path */
    uint64_t idle_since; /* frame at which users reached 0 */
    /* The baked detail levels found beside a .glb (name_lod1.glb ... name_lod4.glb, through the
     * VFS: packs first, then loose files; contiguous, the probe stops at the first missing). */
    struct model_entry *lod[RILL_SCENE_MODEL_MAX_LEVELS - 1];
    uint32_t lod_count;
    bool warned;       /* its failure was said (once, with the first entity naming it) */
    uint64_t spawn_ns; /* the last spawn of a tree of it, its levels included (0: none yet) */
} model_entry;

typedef enum track_state {
    TRACK_PENDING = 0, /* waiting for its entry */
    TRACK_SPAWNED,
    TRACK_FAILED, /* warned once; draws nothing */
    TRACK_NONE,   /* the component names no file */
} track_state;

/* One entity with a Model component. */
typedef struct model_track {
    rill_entity entity;
    const char *path;
    model_entry *entry; /* NULL for TRACK_NONE */
    rill_entity root;   /* the spawned tree, RILL_ENTITY_NULL until spawned */
    track_state state;
    rill_entity lod_root[RILL_SCENE_MODEL_MAX_LEVELS - 1]; /* hidden siblings of root */
    uint32_t lod_count;                                    /* level trees spawned */
    uint64_t level_state;      /* the LOD system's word: what the trees show (0: as spawned) */
    rill__model_levels levels; /* the trees' ModelMesh entities per level (none: walk instead) */
    const char *variant;       /* Model.variant as last applied (interned; NULL = none) */
} model_track;

struct rill_scene_models {
    rill_world *world;
    rill_asset_server *assets;
    rill_model_components comps;
    uint32_t release_delay;
    uint64_t frame;
    RILL_ARRAY(model_track) tracks;
    rill_map track_of; /* entity -> index in tracks */
    RILL_ARRAY(model_entry *) entries;
    rill_map entry_of;               /* interned path pointer -> model_entry * */
    RILL_ARRAY(rill_entity) doomed;  /* spawned roots to despawn this frame (kept, no churn) */
    uint32_t pending;                /* tracks in TRACK_PENDING */
    RILL_ARRAY(rill_entity) touched; /* Model added, replaced or removed since the last update */
    RILL_ARRAY(rill_entity) waiting; /* pending tracks in arrival order (stale ones skipped) */
    uint32_t check_cursor;           /* the round-robin path check */
    rill_resource resource;          /* the world resource through which the observers find m */
    uint64_t spawn_budget_ns;
    rill_clock clock;
    bool unbudgeted;                /* flush: spawn everything */
    bool defer;                     /* rill_scene_models_set_spawn_defer */
    bool deferred;                  /* the last update left a tree for this one */
    uint64_t ns_per_node;           /* running spawn cost per glTF node (0: none spawned yet) */
    rill_scene_models_pick_fn pick; /* how new trees spawn (the LOD system's picker) */
    void *pick_user;
    rill__entity_list spawned_meshes; /* scratch: the ModelMesh entities of one track's spawn */
    rill_scene_models_stats stats;
};

static void release_user(rill_scene_models *m, model_entry *e) {
    if (e && e->users && --e->users == 0) {
        e->idle_since = m->frame;
    }
    for (uint32_t k = 0; e && k < e->lod_count; k++) {
        model_entry *l = e->lod[k];
        if (l->users && --l->users == 0) {
            l->idle_since = m->frame;
        }
    }
}

/* Drops track i (swap-remove), queueing its spawned tree for despawn. */
static void drop_track(rill_scene_models *m, uint32_t i) {
    model_track *t = &m->tracks.data[i];
    rill_world *w = m->world;
    if (t->root && rill_world_is_alive(w, t->root)) {
        rill_array_push(&m->doomed, t->root); /* on OOM the tree stays: never a crash */
    }
    for (uint32_t k = 0; k < t->lod_count; k++) {
        if (rill_world_is_alive(w, t->lod_root[k])) {
            rill_array_push(&m->doomed, t->lod_root[k]);
        }
    }
    if (t->state == TRACK_PENDING) {
        m->pending--;
    }
    rill__model_levels_free(&t->levels);
    release_user(m, t->entry);
    rill_map_remove(&m->track_of, t->entity);
    uint32_t last = m->tracks.len - 1;
    if (i != last) {
        m->tracks.data[i] = m->tracks.data[last];
        rill_map_set(&m->track_of, m->tracks.data[i].entity, i);
    }
    m->tracks.len--;
}

static model_entry *find_or_request(rill_scene_models *m, const char *path, bool probe);

/* Finds name_lod1.glb ... beside the .glb `path` (the file e loads) and requests each; a level's
 * own file is not probed. */
static void probe_levels(rill_scene_models *m, model_entry *e, const char *path) {
    rill_vfs *vfs = rill_asset_server_vfs(m->assets);
    size_t n = strlen(path);
    if (!vfs || n < 5 || n > 900 || strcmp(path + n - 4, ".glb") != 0) {
        return; /* only .glb models have baked levels */
    }
    char p[1024];
    for (uint32_t k = 1; k < RILL_SCENE_MODEL_MAX_LEVELS; k++) {
        snprintf(p, sizeof p, "%.*s_lod%u.glb", (int)(n - 4), path, k);
        if (!rill_vfs_exists(vfs, p)) {
            break;
        }
        model_entry *l = find_or_request(m, rill_intern(p), false);
        if (!l) {
            break;
        }
        e->lod[e->lod_count++] = l;
    }
}

/* The file a model path loads: the path itself, or, when it is not there but the name it is
 * exported under is (rill_export_output_path: "chair.gltf" -> "chair.glb", "Crate.GLB" ->
 * "Crate.glb"), that one, so a script or scene written against a project's sources finds its
 * models in the exported pack. Interned. */
static const char *shipped_path(rill_scene_models *m, const char *path) {
    rill_vfs *vfs = rill_asset_server_vfs(m->assets);
    char out[1024];
    if (!vfs || rill_export_kind_of(path) != RILL_EXPORT_KIND_MODEL ||
        !rill_export_output_path(out, sizeof out, path) || strcmp(out, path) == 0 ||
        rill_vfs_exists(vfs, path) || !rill_vfs_exists(vfs, out)) {
        return path;
    }
    const char *shipped = rill_intern(out);
    return shipped ? shipped : path;
}

static model_entry *find_or_request(rill_scene_models *m, const char *path, bool probe) {
    uint64_t v = 0;
    if (rill_map_get(&m->entry_of, (uint64_t)(uintptr_t)path, &v)) {
        return (model_entry *)(uintptr_t)v;
    }
    model_entry *e = rill_calloc_tagged(1, sizeof(*e), RILL_MEM_SCENE);
    if (!e) {
        return NULL;
    }
    if (!rill_array_push(&m->entries, e) ||
        !rill_map_set(&m->entry_of, (uint64_t)(uintptr_t)path, (uint64_t)(uintptr_t)e)) {
        if (m->entries.len && m->entries.data[m->entries.len - 1] == e) {
            m->entries.len--;
        }
        rill_free(e);
        return NULL;
    }
    e->path = path;
    rill_error err = {0};
    const char *file = shipped_path(m, path);
    e->asset = rill_asset_load(m->assets, file, &err);
    if (!e->asset.id) {
        e->state = ENTRY_FAILED;
        snprintf(e->error, sizeof(e->error), "%s", err.msg[0] ? err.msg : "cannot be requested");
    } else if (probe) {
        probe_levels(m, e, file);
    }
    return e;
}

/* LOADING entries whose asset finished: spawnable (LOADED) or remember the message (FAILED). */
static void advance_entries(rill_scene_models *m) {
    rill_asset_server *as = m->assets;
    for (uint32_t i = 0; i < m->entries.len; i++) {
        model_entry *e = m->entries.data[i];
        if (e->state != ENTRY_LOADING) {
            continue;
        }
        rill_asset_state st = rill_asset_get_state(as, e->asset);
        if (st == RILL_ASSET_STATE_LOADED) {
            if (!rill_asset_get_payload_as(as, e->asset, RILL_GLTF_ASSET_LOADER)) {
                e->state = ENTRY_FAILED;
                snprintf(e->error, sizeof(e->error), "%.400s: not a glTF model", e->path);
            } else {
                e->state = ENTRY_READY;
            }
        } else if (st == RILL_ASSET_STATE_FAILED || st == RILL_ASSET_STATE_INVALID) {
            e->state = ENTRY_FAILED;
            snprintf(e->error, sizeof(e->error), "%s", rill_asset_error(as, e->asset));
        }
    }
}

static void free_entry(rill_scene_models *m, model_entry *e) {
    rill_asset_release(m->assets, e->asset);
    m->stats.releases++;
    rill_map_remove(&m->entry_of, (uint64_t)(uintptr_t)e->path);
    rill_free(e);
}

static bool levels_loading(const model_entry *e) {
    for (uint32_t k = 0; k < e->lod_count; k++) {
        if (e->lod[k]->state == ENTRY_LOADING) {
            return true;
        }
    }
    return false;
}

/* The levels of t's file that can spawn: the base, then the detail levels up to the first that
 * failed (levels stay contiguous). */
static uint32_t ready_levels(const model_track *t) {
    uint32_t n = 1;
    while (n - 1u < t->entry->lod_count && t->entry->lod[n - 1u]->state == ENTRY_READY) {
        n++;
    }
    return n;
}

/* How level k's meshes start: as the picker says, else the base shown and the levels parked out
 * of extract's walk (the LOD system shows one at a time). The detail levels spawn geometry only:
 * the base's lights and cameras stand for the model whichever level shows. */
static rill__spawn_as spawn_as(const rill_scene_model_spawn_pick *pick, uint32_t k) {
    bool shown = pick ? pick->shown[k] : k == 0;
    float fade = pick ? pick->lod_fade[k] : 0.0f;
    rill__spawn_as as = {false, {RILL_RENDER_MODE_NORMAL, 0.5f, 0.0f}, RILL__MESH_SET, k > 0};
    if (!shown) {
        as = (rill__spawn_as){true, {RILL_RENDER_MODE_HIDDEN, 0.5f, 0.0f}, RILL__MESH_PARK, k > 0};
    } else if (fade != 0.0f) {
        as = (rill__spawn_as){true, {RILL_RENDER_MODE_NORMAL, 0.5f, fade}, RILL__MESH_SET, k > 0};
    }
    return as;
}

/* Spawns level k of t's trees under its entity (k = 0: the base), its meshes listed in the scratch
 * list when the file has levels (*listed goes false when the list ran out of memory). Returns
 * whether the tree exists. */
static bool spawn_level(rill_scene_models *m, const model_track *t, uint32_t k,
                        const rill_scene_model_spawn_pick *pick, rill_entity *root, bool *listed,
                        rill_error *err) {
    const model_entry *e = k ? t->entry->lod[k - 1u] : t->entry;
    const rill_gltf_model *gm =
        rill_asset_get_payload_as(m->assets, e->asset, RILL_GLTF_ASSET_LOADER);
    *root = RILL_ENTITY_NULL;
    if (!gm) {
        return false;
    }
    rill__spawn_as as = spawn_as(pick, k);
    rill__entity_list *list = t->entry->lod_count ? &m->spawned_meshes : NULL;
    rill_result r = rill__scene_model_spawn_as(m->world, &m->comps, e->asset, gm, t->entity, &as,
                                               list, root, err);
    *listed = *listed && r == RILL_OK;
    return *root != RILL_ENTITY_NULL;
}

/* The detail levels as sibling trees of the base (children of the Model entity), spawned as the
 * pick says (else parked), their meshes listed per level with the base's (ends[0] given). A level
 * that fails ends the chain. */
static void spawn_levels(rill_scene_models *m, model_track *t, uint32_t n,
                         const rill_scene_model_spawn_pick *pick, uint32_t *ends, bool *listed) {
    for (uint32_t k = 1; k < n; k++) {
        rill_entity root;
        if (!spawn_level(m, t, k, pick, &root, listed, NULL)) {
            break;
        }
        t->lod_root[t->lod_count++] = root;
        ends[k] = m->spawned_meshes.len;
    }
    if (!t->lod_count || !*listed ||
        !rill__model_levels_set(&t->levels, &m->spawned_meshes, ends, 1u + t->lod_count)) {
        rill__model_levels_free(&t->levels); /* levels are then written by walking their trees */
    }
}

/* A picked spawn whose levels did not all spawn goes back to what a spawn without a picker shows
 * (the base whole, the levels parked, word 0): the pick's word names levels that are missing. */
static void unpick(rill_scene_models *m, model_track *t) {
    for (uint32_t k = 0; k <= t->lod_count; k++) {
        rill_scene_models_set_level(m, t->entity, k, k == 0, 0.0f);
    }
    t->level_state = 0;
}

/* A Model entity hidden by its own RenderMode (a streamed instance unloading hides them, then
 * despawns them in budgeted batches) gets a hidden tree: a file that finished loading meanwhile
 * must not draw. The LOD system keeps the levels hidden for such entities. */
static void hide_if_retired(rill_scene_models *m, const model_track *t) {
    const rill_render_mode_component *rm =
        rill_world_get(m->world, t->entity, m->comps.render_mode);
    if (rm && rm->mode == RILL_RENDER_MODE_HIDDEN) {
        rill_scene_model_set_mode(m->world, &m->comps, t->root, RILL_RENDER_MODE_HIDDEN, 0.0f);
    }
}

/* >>observers: Model added, replaced or removed queues its entity for the next update. They find
 * the system through its world resource (the id is their user pointer), so a destroyed system is
 * never reached and a new one in the same world reuses them. */

typedef struct models_resource {
    rill_scene_models *m;
} models_resource;

static void on_model_touched(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    const models_resource *r =
        rill_world_get_resource(w, (rill_resource){(uint32_t)(uintptr_t)user});
    if (r && r->m) {
        rill_array_push(&r->m->touched, e); /* out of memory: the path check finds it later */
    }
}

/* The resource, the observers, and every Model entity that exists already queued. */
static rill_result attach(rill_scene_models *m, rill_error *err) {
    rill_world *w = m->world;
    if (rill_world_find_resource(w, RESOURCE_NAME).id &&
        rill_world_get_resource(w, rill_world_find_resource(w, RESOURCE_NAME))) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_scene_models_create: the world has a model system already");
    }
    rill_type_desc td = {.name = RESOURCE_NAME,
                         RILL_TYPE_LAYOUT(models_resource),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         .doc = "the scene model system (runtime only)"};
    m->resource = rill_world_register_resource(w, &td);
    void *user = (void *)(uintptr_t)m->resource.id;
    models_resource r = {m};
    if (!m->resource.id || !rill_world_set_resource(w, m->resource, &r) ||
        !rill_world_observe_add(w, m->comps.model, on_model_touched, user) ||
        !rill_world_observe_remove(w, m->comps.model, on_model_touched, user)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "rill_scene_models_create: cannot observe Model");
    }
    const rill_entity *ents = NULL;
    uint32_t n = rill_world_component_dense(w, m->comps.model, &ents, NULL);
    for (uint32_t i = 0; i < n; i++) {
        rill_array_push(&m->touched, ents[i]);
    }
    return RILL_OK;
}

/* A new track for e naming ref's path (a NULL or empty path: TRACK_NONE). */
static void add_track(rill_scene_models *m, rill_entity e, const rill_model_ref *ref) {
    model_track t = {e, ref->path, NULL, RILL_ENTITY_NULL, TRACK_NONE, {0}, 0, 0, {0}, NULL};
    t.variant = ref->variant;
    if (t.path && t.path[0]) {
        t.entry = find_or_request(m, t.path, true);
        if (!t.entry) {
            rill_array_push(&m->touched, e); /* out of memory: tried again next frame */
            return;
        }
        t.entry->users++;
        for (uint32_t k = 0; k < t.entry->lod_count; k++) {
            t.entry->lod[k]->users++;
        }
        t.state = TRACK_PENDING;
    }
    if (!rill_array_push(&m->tracks, t) ||
        !rill_map_set(&m->track_of, t.entity, m->tracks.len - 1)) {
        if (m->tracks.len && m->tracks.data[m->tracks.len - 1].entity == t.entity) {
            m->tracks.len--;
        }
        release_user(m, t.entry);
        return;
    }
    if (t.state == TRACK_PENDING) {
        m->pending++;
        rill_array_push(&m->waiting, e);
    }
}

/* The material variant `name` names in level k's file of t: 1 + its index, 0 for none. */
static uint32_t variant_in(const rill_scene_models *m, const model_track *t, uint32_t k,
                           const char *name) {
    const model_entry *e = k ? t->entry->lod[k - 1u] : t->entry;
    const rill_gltf_model *gm =
        rill_asset_get_payload_as(m->assets, e->asset, RILL_GLTF_ASSET_LOADER);
    return (uint32_t)(rill_gltf_model_find_variant(gm, name) + 1);
}

/* Writes t's material variant on its spawned trees (each level resolves the name in its own
 * file); a name the base file lacks draws the default materials, with one warning. */
static void apply_variant(rill_scene_models *m, model_track *t) {
    if (t->state != TRACK_SPAWNED) {
        return;
    }
    const char *name = t->variant && t->variant[0] ? t->variant : NULL;
    uint32_t v = name ? variant_in(m, t, 0, name) : 0u;
    if (name && v == 0) {
        const rill_gltf_model *gm = rill_scene_models_model(m, t->entity);
        RILL_LOG_WARN(LOGM,
                      "entity %u:%u: model '%s' has no material variant '%s' (it has %u%s%s); "
                      "drawn with its default materials",
                      RILL_ENTITY_INDEX(t->entity), RILL_ENTITY_GENERATION(t->entity), t->path,
                      name, gm ? gm->variant_count : 0u,
                      gm && gm->variant_count ? ", the first " : "",
                      gm && gm->variant_count ? gm->variant_names[0] : "");
        m->stats.warnings++;
    }
    rill_scene_model_set_variant(m->world, &m->comps, t->root, v);
    for (uint32_t k = 0; k < t->lod_count; k++) {
        uint32_t lv = name ? variant_in(m, t, k + 1u, name) : 0u;
        rill_scene_model_set_variant(m->world, &m->comps, t->lod_root[k], lv);
    }
}

/* e's Model changed: a track whose entity died, lost its Model or names another path goes; an
 * entity with a Model and no track gets one; a new variant on the same path is applied. */
static void refresh(rill_scene_models *m, rill_entity e) {
    const rill_model_ref *ref = rill_world_get(m->world, e, m->comps.model);
    uint64_t i = 0;
    if (rill_map_get(&m->track_of, e, &i)) {
        model_track *t = &m->tracks.data[i];
        if (ref && ref->path == t->path) {
            if (ref->variant != t->variant) {
                t->variant = ref->variant;
                apply_variant(m, t);
            }
            return;
        }
        drop_track(m, (uint32_t)i);
    }
    if (ref) {
        add_track(m, e, ref);
    }
}

/* The queued entities, then a slice of the tracks compared with their Model in place. */
static void refresh_touched(rill_scene_models *m) {
    uint32_t n = m->touched.len; /* a refresh out of memory queues its entity again, after n */
    for (uint32_t i = 0; i < n; i++) {
        refresh(m, m->touched.data[i]);
    }
    /* An empty queue may own no array yet: memmove on its null pointer is undefined even for 0. */
    if (m->touched.len > n) {
        memmove(m->touched.data, m->touched.data + n, (m->touched.len - n) * sizeof(rill_entity));
    }
    m->touched.len -= n;
    for (uint32_t k = 0; k < PATH_CHECK_SLICE && m->tracks.len; k++) {
        m->check_cursor = m->check_cursor < m->tracks.len ? m->check_cursor : 0;
        const model_track *t = &m->tracks.data[m->check_cursor++];
        const rill_model_ref *ref = rill_world_get(m->world, t->entity, m->comps.model);
        if (!ref || ref->path != t->path || ref->variant != t->variant) {
            rill_array_push(&m->touched, t->entity); /* next update: the order stays simple */
        }
    }
}

/* A pending track whose files are ready: its trees spawned (the levels parked), or, when its file
 * failed, a warning naming the first entity that names it (a thousand entities naming one broken
 * file say it once; the failure count still counts each). */
static void spawn_track(rill_scene_models *m, model_track *t) {
    rill_world *w = m->world;
    if (t->entry->state == ENTRY_FAILED) {
        const char *name = rill_world_get_name(w, t->entity);
        if (!t->entry->warned) {
            RILL_LOG_WARN(LOGM, "entity %u:%u%s%s%s: model '%s' failed, nothing is drawn: %s",
                          RILL_ENTITY_INDEX(t->entity), RILL_ENTITY_GENERATION(t->entity),
                          name ? " (" : "", name ? name : "", name ? ")" : "", t->path,
                          t->entry->error);
        } else {
            RILL_LOG_DEBUG(LOGM, "entity %u:%u: model '%s' failed (said above)",
                           RILL_ENTITY_INDEX(t->entity), RILL_ENTITY_GENERATION(t->entity),
                           t->path);
        }
        t->entry->warned = true;
        t->state = TRACK_FAILED;
        m->stats.warnings++;
        return;
    }
    uint32_t n = ready_levels(t);
    rill_scene_model_spawn_pick pick;
    bool picked = n >= 2 && m->pick && m->pick(m->pick_user, t->entity, n, &pick);
    uint32_t ends[RILL_SCENE_MODEL_MAX_LEVELS] = {0};
    bool listed = true;
    rill_error err = {0};
    rill_array_clear(&m->spawned_meshes);
    if (!spawn_level(m, t, 0, picked ? &pick : NULL, &t->root, &listed, &err)) {
        RILL_LOG_WARN(LOGM, "entity %u:%u: model '%s': spawn failed: %s",
                      RILL_ENTITY_INDEX(t->entity), RILL_ENTITY_GENERATION(t->entity), t->path,
                      err.msg);
        t->state = TRACK_FAILED;
        m->stats.warnings++;
        return;
    }
    t->state = TRACK_SPAWNED;
    m->stats.spawns++;
    ends[0] = m->spawned_meshes.len;
    spawn_levels(m, t, n, picked ? &pick : NULL, ends, &listed);
    if (!picked) {
        hide_if_retired(m, t);
    } else if (1u + t->lod_count == n) {
        t->level_state = pick.level_state;
    } else {
        unpick(m, t);
    }
    if (t->variant && t->variant[0]) {
        apply_variant(m, t);
    }
}

/* The glTF nodes t's spawn makes: its base file's and its ready levels' (1 at least). */
static uint64_t track_nodes(const rill_scene_models *m, const model_track *t) {
    uint64_t n = 0;
    uint32_t levels = t->entry->state == ENTRY_READY ? ready_levels(t) : 0u;
    for (uint32_t k = 0; k < levels; k++) {
        const model_entry *e = k ? t->entry->lod[k - 1u] : t->entry;
        const rill_gltf_model *gm =
            rill_asset_get_payload_as(m->assets, e->asset, RILL_GLTF_ASSET_LOADER);
        n += gm ? gm->node_count : 0u;
    }
    return RILL_MAX(n, (uint64_t)1u);
}

/* What t's spawn is expected to cost: its file's last spawn, else its nodes at the system's
 * running cost per node (0: nothing spawned yet, unknown). */
static uint64_t track_cost(const rill_scene_models *m, const model_track *t) {
    return t->entry->spawn_ns ? t->entry->spawn_ns : track_nodes(m, t) * m->ns_per_node;
}

/* With deferral on: whether t's tree waits for the next update, expected to cost more than the
 * budget has left (`used` of it spent; track_cost); never twice in a row, never in a flush. */
static bool defer_track(rill_scene_models *m, const model_track *t, uint64_t used) {
    if (!m->defer || m->unbudgeted || m->deferred) {
        return false;
    }
    uint64_t cost = track_cost(m, t);
    uint64_t left = used < m->spawn_budget_ns ? m->spawn_budget_ns - used : 0u;
    if (!cost || cost <= left) {
        return false;
    }
    m->stats.last_deferred_ns = cost;
    return true;
}

/* Learns from a spawn of t that took ns: its file's cost, and the running cost per node. */
static void note_spawn_cost(rill_scene_models *m, const model_track *t, uint64_t ns) {
    ns = RILL_MAX(ns, (uint64_t)1u);
    t->entry->spawn_ns = ns;
    if (t->state == TRACK_SPAWNED) {
        uint64_t per = RILL_MAX(ns / track_nodes(m, t), (uint64_t)1u);
        m->ns_per_node = m->ns_per_node ? (3u * m->ns_per_node + per) / 4u : per;
    }
}

/* Spawns the waiting tracks whose files are ready, in arrival order, within the spawn budget (a
 * tree expected not to fit may wait an update: defer_track). */
static void spawn_waiting(rill_scene_models *m, uint64_t update_t0) {
    uint64_t t0 = rill_clock_now(&m->clock), now = t0;
    /* With deferral on (an app sharing the streaming budget), the update's work before the spawns
     * (the touched Models: new tracks, file requests and level probes, up to 2 ms in a frame of
     * the 100 km² world on dev) counts against the budget too. */
    uint64_t start = m->defer ? update_t0 : t0;
    bool spent = false;
    uint32_t kept = 0, i = 0;
    m->stats.last_deferred_ns = 0;
    for (; i < m->waiting.len && !spent; i++) {
        uint64_t ti = 0;
        if (!rill_map_get(&m->track_of, m->waiting.data[i], &ti)) {
            continue; /* dropped */
        }
        model_track *t = &m->tracks.data[ti];
        if (t->state != TRACK_PENDING) {
            continue; /* dropped and tracked again: a later entry is its own */
        }
        if (t->entry->state == ENTRY_LOADING || levels_loading(t->entry)) {
            m->waiting.data[kept++] = t->entity;
            continue;
        }
        if (defer_track(m, t, now - start)) {
            break; /* it and the rest wait: i is not consumed */
        }
        m->pending--;
        uint64_t s0 = now;
        spawn_track(m, t);
        now = rill_clock_now(&m->clock);
        note_spawn_cost(m, t, now - s0);
        spent = !m->unbudgeted && now - start >= m->spawn_budget_ns;
    }
    m->deferred = m->stats.last_deferred_ns != 0;
    if (m->waiting.len > i) {
        memmove(m->waiting.data + kept, m->waiting.data + i,
                (m->waiting.len - i) * sizeof(rill_entity));
    }
    m->waiting.len = kept + (m->waiting.len - i);
    m->stats.last_spawn_ns = now - t0;
}

/* Whether the update that began at t0 has spent the spawn budget (never in a flush). */
static bool update_spent(const rill_scene_models *m, uint64_t t0) {
    return !m->unbudgeted && rill_clock_now(&m->clock) - t0 >= m->spawn_budget_ns;
}

/* Despawns dropped trees, one at a time (a tree can be thousands of entities), until the update
 * that began at t0 has spent the budget; the first always goes, the rest wait for the next update
 * (still drawn until then: a Model renamed or removed shows its old tree a frame longer). */
static void retire_trees(rill_scene_models *m, uint64_t t0) {
    uint32_t n = 0;
    while (n < m->doomed.len && (n == 0 || !update_spent(m, t0))) {
        rill_entity root = m->doomed.data[n++];
        rill_world_despawn_recursive_n(m->world, &root, 1);
    }
    if (n) {
        memmove(m->doomed.data, m->doomed.data + n, (m->doomed.len - n) * sizeof(rill_entity));
        m->doomed.len -= n;
    }
}

/* Frees files nobody used for release_delay frames (a file dropped and named again soon after is
 * not loaded twice), within the budget like retire_trees: one at least an update. */
static void release_idle(rill_scene_models *m, uint64_t t0) {
    uint32_t freed = 0;
    for (uint32_t i = 0; i < m->entries.len;) {
        model_entry *e = m->entries.data[i];
        if (e->users == 0 && m->frame - e->idle_since >= m->release_delay) {
            if (freed && update_spent(m, t0)) {
                return;
            }
            free_entry(m, e);
            freed++;
            rill_array_swap_remove(&m->entries, i);
        } else {
            i++;
        }
    }
}

void rill_scene_models_update(rill_scene_models *m) {
    if (!m) {
        return;
    }
    uint64_t t0 = rill_clock_now(&m->clock);
    m->frame++;

    /* 1. Entities whose Model came, changed or went; new tracks wait for their files. */
    refresh_touched(m);

    /* 2. Loads that finished, then the tracks waiting for them, within the spawn budget. */
    advance_entries(m);
    spawn_waiting(m, t0);

    /* 3. Dropped trees and idle files, within what the spawns left of the budget. */
    retire_trees(m, t0);
    release_idle(m, t0);
}

rill_scene_models *rill_scene_models_create(const rill_scene_models_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_scene_models_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->world || !desc->assets) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_scene_models_create: NULL world or asset server");
        return NULL;
    }
    rill_scene_models *m = rill_calloc_tagged(1, sizeof(*m), RILL_MEM_SCENE);
    if (!m) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_scene_models_create: out of memory");
        return NULL;
    }
    m->world = desc->world;
    m->assets = desc->assets;
    m->release_delay = desc->release_delay_frames ? desc->release_delay_frames : 2;
    m->spawn_budget_ns = desc->spawn_budget_ns ? desc->spawn_budget_ns : 1000000u;
    m->clock = desc->clock;
    if (rill_scene_model_register(m->world, &m->comps, err) != RILL_OK ||
        rill_gltf_register_asset_loader(m->assets, err) != RILL_OK) {
        rill_free(m);
        return NULL;
    }
    if (attach(m, err) != RILL_OK) {
        rill_scene_models_destroy(m);
        return NULL;
    }
    return m;
}

void rill_scene_models_set_spawn_defer(rill_scene_models *m, bool on) {
    if (m) {
        m->defer = on;
        m->deferred = false;
    }
}

uint64_t rill_scene_models_deferred_ns(const rill_scene_models *m) {
    return m ? m->stats.last_deferred_ns : 0u;
}

void rill_scene_models_set_spawn_budget(rill_scene_models *m, uint64_t ns) {
    if (m) {
        m->spawn_budget_ns = ns;
    }
}

void rill_scene_models_flush(rill_scene_models *m) {
    if (!m) {
        return;
    }
    rill_asset_server *as = m->assets;
    m->unbudgeted = true;
    rill_scene_models_update(m); /* picks up new Model entities and requests their files */
    for (uint32_t i = 0; i < m->entries.len; i++) {
        if (m->entries.data[i]->state == ENTRY_LOADING) {
            rill_asset_wait(as, m->entries.data[i]->asset);
        }
    }
    rill_scene_models_update(m); /* spawns */
    m->unbudgeted = false;
    rill_world_update_transforms(m->world);
}

void rill_scene_models_destroy(rill_scene_models *m) {
    if (!m) {
        return;
    }
    rill_world *w = m->world;
    const models_resource *res = m->resource.id ? rill_world_get_resource(w, m->resource) : NULL;
    if (res && res->m == m) {
        rill_world_remove_resource(w, m->resource); /* the observers no longer reach m */
    }
    for (uint32_t i = 0; i < m->tracks.len; i++) {
        rill_entity r = m->tracks.data[i].root;
        if (r && rill_world_is_alive(w, r)) {
            rill_array_push(&m->doomed, r);
        }
        for (uint32_t k = 0; k < m->tracks.data[i].lod_count; k++) {
            if (rill_world_is_alive(w, m->tracks.data[i].lod_root[k])) {
                rill_array_push(&m->doomed, m->tracks.data[i].lod_root[k]);
            }
        }
    }
    if (m->doomed.len) {
        rill_world_despawn_recursive_n(w, m->doomed.data, m->doomed.len);
    }
    for (uint32_t i = 0; i < m->tracks.len; i++) {
        rill__model_levels_free(&m->tracks.data[i].levels);
    }
    for (uint32_t i = 0; i < m->entries.len; i++) {
        free_entry(m, m->entries.data[i]);
    }
    rill_array_free(&m->entries);
    rill_array_free(&m->tracks);
    rill_array_free(&m->doomed);
    rill_array_free(&m->touched);
    rill_array_free(&m->waiting);
    rill_array_free(&m->spawned_meshes);
    rill_map_free(&m->track_of);
    rill_map_free(&m->entry_of);
    rill_free(m);
}

void rill_scene_models_get_stats(const rill_scene_models *m, rill_scene_models_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    if (!m) {
        return;
    }
    *out = m->stats;
    out->tracked = m->tracks.len;
    out->pending = m->pending;
    out->models = m->entries.len;
    for (uint32_t i = 0; i < m->tracks.len; i++) {
        out->spawned += m->tracks.data[i].state == TRACK_SPAWNED;
        out->failed += m->tracks.data[i].state == TRACK_FAILED;
    }
}

rill_entity rill_scene_models_root(const rill_scene_models *m, rill_entity e) {
    uint64_t i = 0;
    if (!m || !rill_map_get(&m->track_of, e, &i)) {
        return RILL_ENTITY_NULL;
    }
    return m->tracks.data[i].root;
}

const rill_gltf_model *rill_scene_models_model(const rill_scene_models *m, rill_entity e) {
    uint64_t i = 0;
    if (!m || !rill_map_get(&m->track_of, e, &i)) {
        return NULL;
    }
    const model_track *t = &m->tracks.data[i];
    if (t->state != TRACK_SPAWNED || !t->entry) {
        return NULL;
    }
    return rill_asset_get_payload_as(m->assets, t->entry->asset, RILL_GLTF_ASSET_LOADER);
}

const rill_model_components *rill_scene_models_components(const rill_scene_models *m) {
    return m ? &m->comps : NULL;
}

/* The index of e's track when its trees are spawned, else UINT32_MAX. */
static uint32_t spawned_track(const rill_scene_models *m, rill_entity e) {
    uint64_t i = 0;
    if (!m || !rill_map_get(&m->track_of, e, &i) || m->tracks.data[i].state != TRACK_SPAWNED) {
        return UINT32_MAX;
    }
    return (uint32_t)i;
}

uint32_t rill_scene_models_levels(const rill_scene_models *m, rill_entity e,
                                  rill_entity out_roots[RILL_SCENE_MODEL_MAX_LEVELS]) {
    uint32_t i = spawned_track(m, e);
    if (i == UINT32_MAX) {
        return 0;
    }
    const model_track *t = &m->tracks.data[i];
    if (out_roots) {
        out_roots[0] = t->root;
        for (uint32_t k = 0; k < t->lod_count; k++) {
            out_roots[k + 1] = t->lod_root[k];
        }
    }
    return 1u + t->lod_count;
}

/* The next spawned track from *iter on (advancing it), or NULL. */
static model_track *next_spawned(const rill_scene_models *m, uint32_t *iter) {
    while (m && *iter < m->tracks.len) {
        model_track *t = &m->tracks.data[(*iter)++];
        if (t->state == TRACK_SPAWNED) {
            return t;
        }
    }
    return NULL;
}

uint32_t rill_scene_models_each(const rill_scene_models *m, uint32_t *iter,
                                rill_entity *out_entity) {
    const model_track *t = next_spawned(m, iter);
    if (!t) {
        return 0;
    }
    *out_entity = t->entity;
    return 1u + t->lod_count;
}

uint32_t rill_scene_models_each_state(rill_scene_models *m, uint32_t *iter, rill_entity *out_entity,
                                      uint64_t **out_level_state) {
    model_track *t = next_spawned(m, iter);
    if (!t) {
        return 0;
    }
    *out_entity = t->entity;
    *out_level_state = &t->level_state;
    return 1u + t->lod_count;
}

uint64_t *rill_scene_models_state_of(rill_scene_models *m, rill_entity e) {
    uint32_t i = spawned_track(m, e);
    return i != UINT32_MAX ? &m->tracks.data[i].level_state : NULL;
}

uint64_t rill_scene_models_level_state(const rill_scene_models *m, rill_entity e) {
    uint32_t i = spawned_track(m, e);
    return i != UINT32_MAX ? m->tracks.data[i].level_state : 0;
}

/* e's spawned track and the root of its tree `level`, or NULL when there is no such tree. */
static model_track *level_tree(rill_scene_models *m, rill_entity e, uint32_t level,
                               rill_entity *root) {
    uint32_t i = spawned_track(m, e);
    if (i == UINT32_MAX || level > m->tracks.data[i].lod_count) {
        return NULL;
    }
    model_track *t = &m->tracks.data[i];
    *root = level ? t->lod_root[level - 1u] : t->root;
    return t;
}

uint32_t rill_scene_models_set_level(rill_scene_models *m, rill_entity e, uint32_t level,
                                     bool shown, float lod_fade) {
    rill_entity root;
    model_track *t = level_tree(m, e, level, &root);
    if (!t) {
        return 0;
    }
    if (!t->levels.levels) { /* not listed (out of memory at spawn): walk the tree */
        return rill_scene_model_set_level(m->world, &m->comps, root, shown, lod_fade);
    }
    rill_render_mode_component rmc =
        shown ? (rill_render_mode_component){RILL_RENDER_MODE_NORMAL, 0.5f, lod_fade}
              : (rill_render_mode_component){RILL_RENDER_MODE_HIDDEN, 0.5f, 0.0f};
    return rill__model_levels_write(&t->levels, m->world, &m->comps, level, root, rmc,
                                    shown ? RILL__MESH_SET : RILL__MESH_PARK);
}

uint32_t rill_scene_models_refade(rill_scene_models *m, rill_entity e, uint32_t level,
                                  float lod_fade) {
    rill_entity root;
    model_track *t = level_tree(m, e, level, &root);
    if (!t) {
        return 0;
    }
    if (!t->levels.levels) {
        return rill_scene_model_refade(m->world, &m->comps, root, lod_fade);
    }
    return rill__model_levels_write(
        &t->levels, m->world, &m->comps, level, root,
        (rill_render_mode_component){RILL_RENDER_MODE_NORMAL, 0.5f, lod_fade}, RILL__MESH_FADE);
}

void rill_scene_models_set_spawn_pick(rill_scene_models *m, rill_scene_models_pick_fn fn,
                                      void *user) {
    if (!m) {
        return;
    }
    m->pick = fn;
    m->pick_user = fn ? user : NULL;
}
