/* extract.c: the MeshInstance component and the extract step that turns a world into a
 * rill_render_snapshot: MeshInstances draw their GPU handles, ModelMeshes (rill/scene/model.h)
 * are resolved through the world's rill_render_assets to the uploaded model's mesh and material,
 * RenderMode picks how each draws. The snapshot holds copies (matrices, handles, light values),
 * never pointers into component storage, so the world may change while the frame is recorded. */
#include "batch.h"
#include "model_assets.h"
#include "render_internal.h"
#include "rill/channels.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const rill_field mesh_instance_fields[] = {
    RILL_FIELD(rill_mesh_instance, mesh, U32),
    RILL_FIELD(rill_mesh_instance, material, U32),
};

static rill_component reg(rill_world *w, const rill_type_desc *d) {
    rill_component c = rill_world_find_component(w, d->name);
    return c.id ? c : rill_world_register_component(w, d);
}

rill_result rill_render_register_components(rill_world *world, rill_render_components *out,
                                            rill_error *err) {
    if (!world || !out) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL world or out");
    }
    rill_type_desc mi = {.name = "MeshInstance",
                         RILL_TYPE_LAYOUT(rill_mesh_instance),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         .fields = mesh_instance_fields,
                         .field_count = 2,
                         .doc = "renderer mesh + material handles"};
    rill_model_components mc;
    if (rill_scene_model_register(world, &mc, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    out->mesh_instance = reg(world, &mi);
    out->model = mc.model;
    out->model_mesh = mc.model_mesh;
    out->render_mode = mc.render_mode;
    out->mesh_shown = mc.mesh_shown;
    out->directional_light = mc.directional_light;
    out->point_light = mc.point_light;
    out->spot_light = mc.spot_light;
    if (!out->mesh_instance.id) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: could not register the MeshInstance component");
    }
    /* Scene channels: defaults for every renderable entity, modes the extract resolves. */
    if (rill_channels_attach(world, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    out->scene_channels = rill_channels_component(world);
    return rill__render_settings_register(world, out, err);
}

void rill_render_extract_buf_free(rill_render_extract_buf *buf) {
    if (!buf) {
        return;
    }
    rill_array_free(&buf->instances);
    rill_array_free(&buf->lights);
    rill_array_free(&buf->routed_bytes);
    rill_array_free(&buf->route_sources);
    rill_array_free(&buf->shown);
    rill_array_free(&buf->shown_tmp);
}

static void neg_z(const float m[16], float out[3]) {
    float n = sqrtf(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
    if (n < 1e-12f) {
        n = 1.0f;
    }
    out[0] = -m[8] / n;
    out[1] = -m[9] / n;
    out[2] = -m[10] / n;
}

/* False for an entity whose world matrix is not finite or lies beyond RILL_WORLD_LIMIT: it is not
 * drawn, and a light or camera there is ignored (its bounds, distances or projection would be inf
 * or NaN). The first one is named once per buffer; the scene loader names the file it came from. */
static bool in_world(rill_world *world, rill_render_extract_buf *buf, rill_entity e,
                     const rill_global_transform *xf) {
    if (rill_mat4_in_world_limit(xf->m)) {
        return true;
    }
    buf->out_of_world++;
    if (!buf->warned_out_of_world) {
        buf->warned_out_of_world = true;
        const char *name = rill_world_get_name(world, e);
        RILL_LOG_WARN("render",
                      "extract: entity %u:%u%s%s%s: its world transform is not finite or beyond "
                      "+-%g (translation (%g, %g, %g)): skipped (named once; out_of_world counts "
                      "them)",
                      RILL_ENTITY_INDEX(e), RILL_ENTITY_GENERATION(e), name ? " (" : "",
                      name ? name : "", name ? ")" : "", (double)RILL_WORLD_LIMIT,
                      (double)xf->m[12], (double)xf->m[13], (double)xf->m[14]);
    }
    return false;
}

/* Appends one drawn instance with the entity's RenderMode rm and SceneChannels sc (each may be
 * NULL): how it draws. */
static bool push_looked(rill_render_extract_buf *buf, rill_entity e, rill_mesh mesh,
                        rill_material mat, const rill_global_transform *xf,
                        const rill_render_mode_component *rm, const rill_scene_channels *sc) {
    rill_render_instance in;
    memset(&in, 0, sizeof(in)); /* mode NORMAL; no stack garbage in the unset fields */
    in.id = e;
    in.mesh = mesh;
    in.material = mat;
    memcpy(in.transform, xf->m, sizeof(in.transform));
    if (rm) {
        in.mode = (uint32_t)rm->mode < RILL_RENDER_MODE_NUM ? rm->mode : RILL_RENDER_MODE_NORMAL;
        in.ghost_opacity = rm->ghost_opacity;
        in.lod_fade = rm->lod_fade;
    }
    /* The one per-entity resolution every pass reads: the entity's channels through the modes
     * resource, joined with its own RenderMode by precedence. */
    if (sc && buf->channel_modes &&
        (sc->mask & (buf->channel_modes->hidden | buf->channel_modes->wireframe |
                     buf->channel_modes->ghost))) {
        float op = 1.0f;
        rill_render_mode cm = rill_channels_resolve(buf->channel_modes, sc->mask, &op);
        in.mode = rill_channels_join(in.mode, in.ghost_opacity, cm, op, &in.ghost_opacity);
    }
    return rill_array_push(&buf->instances, in);
}

/* Appends one drawn instance; its RenderMode (when the entity has one) says how it draws. */
static bool push_instance(rill_world *world, const rill_render_components *comps,
                          rill_render_extract_buf *buf, rill_entity e, rill_mesh mesh,
                          rill_material mat, const rill_global_transform *xf) {
    const rill_render_mode_component *rm =
        comps->render_mode.id ? rill_world_get(world, e, comps->render_mode) : NULL;
    const rill_scene_channels *sc = buf->channel_modes && comps->scene_channels.id
                                        ? rill_world_get(world, e, comps->scene_channels)
                                        : NULL;
    return push_looked(buf, e, mesh, mat, xf, rm, sc);
}

/* One ModelMesh entity with static batching on: offered to the batcher, pushed when no batch
 * draws it (the component lookups are shared by both). */
static bool batch_or_push(rill_world *world, const rill_render_components *comps,
                          rill_render_extract_buf *buf, rill__batcher *bt, rill_entity e,
                          const rill_model_mesh *mm, rill_mesh mesh, rill_material mat,
                          const rill_global_transform *xf) {
    const rill_render_mode_component *rm =
        comps->render_mode.id ? rill_world_get(world, e, comps->render_mode) : NULL;
    /* A LOD level inside a crossfade draws dithered, so it stays an instance. */
    bool own_normal = !rm || (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade == 0.0f);
    /* The channels matter to the batcher only for a possible candidate, and to the drawing only
     * when some channel has a mode (as in push_instance). */
    const rill_scene_channels *sc = comps->scene_channels.id && (own_normal || buf->channel_modes)
                                        ? rill_world_get(world, e, comps->scene_channels)
                                        : NULL;
    if (rill__batch_take(bt, e, mm, mesh, mat, xf->m, sc ? sc->mask : 0, own_normal)) {
        return true;
    }
    return push_looked(buf, e, mesh, mat, xf, rm, sc);
}

/* Sorts list[0..n) by entity slot (LSD radix, three 11-bit digits), tmp holding n more. */
static void sort_by_slot(rill_entity *list, rill_entity *tmp, uint32_t n) {
    uint32_t count[2048];
    for (uint32_t shift = 0; shift < 33; shift += 11) {
        memset(count, 0, sizeof(count));
        for (uint32_t i = 0; i < n; i++) {
            count[(RILL_ENTITY_INDEX(list[i]) >> shift) & 2047u]++;
        }
        for (uint32_t d = 0, sum = 0; d < 2048; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) {
            tmp[count[(RILL_ENTITY_INDEX(list[i]) >> shift) & 2047u]++] = list[i];
        }
        memcpy(list, tmp, (size_t)n * sizeof(rill_entity));
    }
}

/* The shown ModelMesh entities (MeshShown: the detail levels a model does not show are parked out
 * of that set by rill_scene_model_set_level), sorted by slot into buf->shown. The set's own order
 * is scrambled by every level switch; walked in slot order, the lookups of each entity's
 * components (GlobalTransform above all) run forward through their storage instead of jumping
 * around it, which on the development machine made the walk 3x faster. */
static bool shown_in_slot_order(rill_world *world, rill_component shown,
                                rill_render_extract_buf *buf) {
    const rill_entity *ents = NULL;
    uint32_t n = rill_world_component_dense(world, shown, &ents, NULL);
    rill_array_clear(&buf->shown);
    rill_array_clear(&buf->shown_tmp);
    rill_entity *list = n ? rill_array_push_n(&buf->shown, n) : NULL;
    rill_entity *tmp = n ? rill_array_push_n(&buf->shown_tmp, n) : NULL;
    if (n && (!list || !tmp)) {
        return false;
    }
    if (n) {
        memcpy(list, ents, (size_t)n * sizeof(rill_entity));
        sort_by_slot(list, tmp, n);
    }
    return true;
}

/* Every shown ModelMesh with a GlobalTransform whose asset resolves, in slot order, through the
 * static batcher when it is on (batch.c: entities a batch draws are skipped; the batches are
 * appended after the walk). False when out of memory. */
static bool extract_model_meshes(rill_world *world, const rill_render_components *comps,
                                 rill_render_extract_buf *buf) {
    rill_render_assets *ra = rill__render_assets_of(world);
    if (!ra) {
        return true;
    }
    rill__batcher *bt = rill__render_assets_batcher(ra);
    bool batching = rill__batch_begin(bt, world);
    rill_component walked = comps->mesh_shown.id ? comps->mesh_shown : comps->model_mesh;
    if (!shown_in_slot_order(world, walked, buf)) {
        return false;
    }
    rill_component gt = rill_world_builtin(world)->global_transform;
    for (uint32_t i = 0; i < buf->shown.len; i++) {
        rill_entity e = buf->shown.data[i];
        rill_mesh mesh;
        rill_material mat;
        const rill_model_mesh *mm = rill_world_get(world, e, comps->model_mesh);
        if (batching && mm && rill__batch_skip(bt, e, mm)) {
            continue; /* a batch draws it */
        }
        const rill_global_transform *xf = mm ? rill_world_get(world, e, gt) : NULL;
        if (!xf || !rill__render_assets_resolve(ra, mm, &mesh, &mat)) {
            continue; /* no transform yet, or not loaded / uploaded yet, or failed (warned once) */
        }
        if (!in_world(world, buf, e, xf)) {
            continue;
        }
        bool ok = batching ? batch_or_push(world, comps, buf, bt, e, mm, mesh, mat, xf)
                           : push_instance(world, comps, buf, e, mesh, mat, xf);
        if (!ok) {
            return false;
        }
    }
    return !batching || rill__batch_end(bt, buf->channel_modes, buf);
}

/* A camera found by extract, with what it is sorted by. */
typedef struct view_key {
    const rill_camera *cam;
    const rill_global_transform *xf;
    rill_entity entity;
} view_key;

/* Drawing order: Camera.order, ties broken by entity id so the order is stable. */
static bool key_less(const view_key *a, const view_key *b) {
    if (a->cam->order != b->cam->order) {
        return a->cam->order < b->cam->order;
    }
    return a->entity < b->entity;
}

/* Clamps one normalized coordinate; NaN becomes lo. */
static float clamp01(float x, float lo, float hi) {
    return x >= lo ? (x <= hi ? x : hi) : lo;
}

/* Fills a view from a camera. The viewport is clamped to the output: x, y to [0,1], w, h to what
 * is left right of x and below y. hdr off selects the clamp-only tonemapper. */
static void view_from_camera(const rill_camera *cam, const rill_global_transform *xf,
                             rill_render_view *v) {
    memset(v, 0, sizeof(*v));
    memcpy(v->world_from_view, xf->m, sizeof(v->world_from_view));
    v->fov_y = cam->fov_y;
    v->near_plane = cam->near_plane;
    v->far_plane = cam->far_plane;
    v->orthographic = cam->projection == RILL_PROJECTION_ORTHOGRAPHIC;
    v->ortho_height = cam->ortho_height;
    memcpy(v->clear_color, cam->clear_color, sizeof(v->clear_color));
    float x = clamp01(cam->viewport[0], 0.0f, 1.0f), y = clamp01(cam->viewport[1], 0.0f, 1.0f);
    v->viewport[0] = x;
    v->viewport[1] = y;
    v->viewport[2] = clamp01(cam->viewport[2], 0.0f, 1.0f - x);
    v->viewport[3] = clamp01(cam->viewport[3], 0.0f, 1.0f - y);
    v->tonemapper = cam->hdr ? RILL_TONEMAP_DEFAULT : RILL_TONEMAP_NONE;
    v->order = cam->order;
    v->passthrough = cam->passthrough == 1 ? RILL_PASSTHROUGH_MIXED : RILL_PASSTHROUGH_OFF;
}

rill_result rill_render_extract(rill_world *world, const rill_render_components *comps,
                                rill_render_extract_buf *buf, rill_render_snapshot *out_snap,
                                rill_error *err) {
    if (!world || !comps || !buf || !out_snap) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: extract needs world, components, buffer, snapshot");
    }
    const rill_builtins *b = rill_world_builtin(world);
    memset(out_snap, 0, sizeof(*out_snap));
    rill_array_clear(&buf->instances);
    rill_array_clear(&buf->lights);
    buf->channel_modes = rill_channels_modes(world);
    buf->out_of_world = 0;

    /* Cameras: every active one becomes a view. The lowest RILL_RENDER_MAX_VIEWS by (order,
     * entity id) are kept in a sorted array (insertion: cameras are few); the primary view is the
     * one marked default, then the lowest order, then the lowest entity id. */
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = b->camera;
    qd.with[1] = b->global_transform;
    rill_query q = rill_world_query(world, &qd);
    view_key keys[RILL_RENDER_MAX_VIEWS];
    uint32_t nviews = 0, dropped = 0;
    view_key best = {0};
    bool have_best = false;
    while (rill_query_next(&q)) {
        const rill_camera *cam = rill_query_get(&q, 0);
        if (!cam->active || !in_world(world, buf, q.entity, rill_query_get(&q, 1))) {
            continue;
        }
        view_key k = {cam, rill_query_get(&q, 1), q.entity};
        if (!have_best || (cam->is_default && !best.cam->is_default) ||
            (cam->is_default == best.cam->is_default && key_less(&k, &best))) {
            best = k;
            have_best = true;
        }
        if (nviews == RILL_RENDER_MAX_VIEWS) {
            dropped++;
            if (!key_less(&k, &keys[nviews - 1])) {
                continue;
            }
            nviews--; /* the highest key falls out */
        }
        uint32_t at = nviews;
        while (at > 0 && key_less(&k, &keys[at - 1])) {
            keys[at] = keys[at - 1];
            at--;
        }
        keys[at] = k;
        nviews++;
    }
    if (!have_best) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND,
                              "render: no active camera with a GlobalTransform");
    }
    if (dropped && !buf->warned_views) {
        buf->warned_views = true;
        RILL_LOG_WARN(
            "render",
            "extract: %u active cameras, only %u views per frame; the %u with the highest "
            "order are dropped",
            nviews + dropped, RILL_RENDER_MAX_VIEWS, dropped);
    }
    for (uint32_t i = 0; i < nviews; i++) {
        view_from_camera(keys[i].cam, keys[i].xf, &buf->views[i]);
    }
    view_from_camera(best.cam, best.xf, &out_snap->view);
    out_snap->views = buf->views;
    out_snap->view_count = nviews;
    /* Effect settings: every view's routed copies (the primary view routes as its camera). */
    rill_render_view *routed_views[RILL_RENDER_MAX_VIEWS + 1];
    rill_entity cams[RILL_RENDER_MAX_VIEWS + 1];
    for (uint32_t i = 0; i < nviews; i++) {
        routed_views[i] = &buf->views[i];
        cams[i] = keys[i].entity;
    }
    routed_views[nviews] = &out_snap->view;
    cams[nviews] = best.entity;
    rill_result rr =
        rill__render_route_settings(world, comps, buf, routed_views, cams, nviews + 1, err);
    if (rr != RILL_OK) {
        return rr;
    }

    memset(&qd, 0, sizeof(qd));
    qd.with[0] = comps->mesh_instance;
    qd.with[1] = b->global_transform;
    q = rill_world_query(world, &qd);
    while (rill_query_next(&q)) {
        const rill_mesh_instance *mi = rill_query_get(&q, 0);
        rill_mesh mesh = {mi->mesh};
        rill_material mat = {mi->material};
        const rill_global_transform *xf = rill_query_get(&q, 1);
        if (!in_world(world, buf, q.entity, xf)) {
            continue;
        }
        if (!push_instance(world, comps, buf, q.entity, mesh, mat, xf)) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
        }
    }
    if (comps->model_mesh.id && rill_world_component_len(world, comps->model_mesh) &&
        !extract_model_meshes(world, comps, buf)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }

    rill_render_terrain *rt = rill__render_terrain_of(world);
    if (rt && !rill__render_terrain_extract(rt, buf)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }

    memset(&qd, 0, sizeof(qd));
    qd.with[0] = comps->directional_light;
    qd.with[1] = b->global_transform;
    q = rill_world_query(world, &qd);
    while (!out_snap->has_sun && rill_query_next(&q)) {
        const rill_directional_light *dl = rill_query_get(&q, 0);
        const rill_global_transform *xf = rill_query_get(&q, 1);
        if (!in_world(world, buf, q.entity, xf)) {
            continue;
        }
        out_snap->has_sun = true;
        neg_z(xf->m, out_snap->sun.direction);
        memcpy(out_snap->sun.color, dl->color, sizeof(float) * 3);
        out_snap->sun.illuminance = dl->illuminance;
        out_snap->sun.shadows = dl->shadows;
    }

    for (int kind = 0; kind < 2; kind++) {
        memset(&qd, 0, sizeof(qd));
        qd.with[0] = kind ? comps->spot_light : comps->point_light;
        qd.with[1] = b->global_transform;
        q = rill_world_query(world, &qd);
        while (rill_query_next(&q)) {
            const rill_global_transform *xf = rill_query_get(&q, 1);
            if (!in_world(world, buf, q.entity, xf)) {
                continue;
            }
            rill_render_light L;
            memset(&L, 0, sizeof(L));
            L.kind = kind ? RILL_LIGHT_SPOT : RILL_LIGHT_POINT;
            memcpy(L.position, &xf->m[12], sizeof(float) * 3);
            neg_z(xf->m, L.direction);
            if (kind) {
                const rill_spot_light *s = rill_query_get(&q, 0);
                memcpy(L.color, s->color, sizeof(float) * 3);
                L.intensity = s->intensity;
                L.range = s->range;
                L.inner_angle = s->inner_angle;
                L.outer_angle = s->outer_angle;
            } else {
                const rill_point_light *p = rill_query_get(&q, 0);
                memcpy(L.color, p->color, sizeof(float) * 3);
                L.intensity = p->intensity;
                L.range = p->range;
            }
            if (!rill_array_push(&buf->lights, L)) {
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                      "render: out of memory in extract");
            }
        }
    }
    out_snap->instances = buf->instances.data;
    out_snap->instance_count = buf->instances.len;
    out_snap->lights = buf->lights.data;
    out_snap->light_count = buf->lights.len;
    out_snap->ambient[0] = out_snap->ambient[1] = out_snap->ambient[2] = 0.03f;
    return RILL_OK;
}
