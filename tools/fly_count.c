/* fly_count.c: the CPU count of what `rill fly`'s primary view sees each frame: instances and
 * static batch ranges culled against the view as drawn (triangles, draws, the level histogram),
 * and what would be drawn with every model at level 0 (triangles_full). The tool's measurement,
 * kept out of the frame's timed work. */
#include "fly.h"

#include <math.h>
#include <string.h>

#include "rill/channels.h"
#include "rill/scene/model.h"

/* >>counting ---------------------------------------------------------------------------------- */

/* Frustum test of a world-space sphere against the primary view (perspective or orthographic). */
static bool sphere_visible(const rill_render_view *v, float aspect, const float c[3], float r) {
    const float *m = v->world_from_view;
    float d[3] = {c[0] - m[12], c[1] - m[13], c[2] - m[14]};
    /* view = R^T * d for a rigid world_from_view (columns are the view axes) */
    float x = m[0] * d[0] + m[1] * d[1] + m[2] * d[2];
    float y = m[4] * d[0] + m[5] * d[1] + m[6] * d[2];
    float z = m[8] * d[0] + m[9] * d[1] + m[10] * d[2];
    float depth = -z;
    if (depth + r < v->near_plane || depth - r > v->far_plane) {
        return false;
    }
    if (v->orthographic) {
        float hh = 0.5f * v->ortho_height, hw = hh * aspect;
        return fabsf(x) - r <= hw && fabsf(y) - r <= hh;
    }
    float ty = tanf(0.5f * v->fov_y), tx = ty * aspect;
    float sx = sqrtf(1.0f + tx * tx), sy = sqrtf(1.0f + ty * ty);
    return (fabsf(x) - tx * depth) / sx <= r && (fabsf(y) - ty * depth) / sy <= r;
}

/* Which Model (group) and which of its levels an instance's entity belongs to: the walk up the
 * parents meets the Model entity; the child it came from is one of the level roots. Instances of
 * models without levels (or not from a model) get group 0, level 0. */
typedef struct inst_group {
    rill_entity group;
    uint32_t level;
} inst_group;

static inst_group group_of(rill_world *w, rill_scene_models *models, rill_entity e) {
    inst_group g = {0, 0};
    rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS];
    rill_entity child = e;
    for (int depth = 0; depth < 16 && e; depth++) {
        rill_entity parent = rill_world_get_parent(w, e);
        if (!parent) {
            break;
        }
        uint32_t n = rill_scene_models_levels(models, parent, roots);
        if (n) {
            child = e;
            for (uint32_t k = 0; k < n; k++) {
                if (roots[k] == child) {
                    if (n > 1) {
                        g = (inst_group){parent, k};
                    }
                    return g;
                }
            }
            return g;
        }
        e = parent;
    }
    return g;
}

/* Triangles of one primitive of a loaded glTF model (0 when the asset is not loaded). */
static uint64_t primitive_triangles(rill_asset_server *as, const rill_model_mesh *mm) {
    const rill_gltf_model *gm =
        rill_asset_get_payload_as(as, (rill_asset){mm->asset}, RILL_GLTF_ASSET_LOADER);
    if (!gm || mm->mesh >= gm->mesh_count ||
        mm->primitive >= gm->meshes[mm->mesh].primitive_count) {
        return 0;
    }
    const rill_gltf_primitive *p = &gm->meshes[mm->mesh].primitives[mm->primitive];
    return (p->index_count ? p->index_count : p->vertex_count) / 3u;
}

/* Triangles of a spawned level tree, drawn or parked: its ModelMesh entities' primitives. Trees of
 * one file are alike, so the count is kept per asset of the tree's first ModelMesh. */
static uint64_t tree_triangles(rill_world *w, rill_asset_server *as, rill_component mmc,
                               rill_entity root, rill_map *per_asset) {
    static RILL_ARRAY(rill_entity) stack;
    uint64_t tris = 0;
    uint32_t asset = 0;
    rill_array_clear(&stack);
    rill_array_push(&stack, root);
    while (stack.len) {
        rill_entity e = rill_array_pop(&stack);
        const rill_model_mesh *mm = rill_world_get(w, e, mmc);
        if (mm && !asset) {
            asset = mm->asset;
            if (rill_map_get(per_asset, asset, &tris)) {
                return tris;
            }
        }
        tris += mm ? primitive_triangles(as, mm) : 0;
        for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
            rill_array_push(&stack, c);
        }
    }
    if (asset) {
        rill_map_set(per_asset, asset, tris);
    }
    return tris;
}

/* The triangles of a ranged instance's ranges in the primary view (sc: its matrix's scale). */
static uint64_t ranges_seen(const rill_render_snapshot *snap, const rill_render_instance *in,
                            float aspect, float sc) {
    uint64_t tris = 0;
    const float *m = in->transform;
    for (uint32_t k = 0; k < in->range_count; k++) {
        uint64_t at = (uint64_t)in->range_first + k;
        const rill_render_range *rg = at < snap->range_count ? &snap->ranges[at] : NULL;
        float wc[3];
        for (int j = 0; rg && j < 3; j++) {
            wc[j] = m[j] * rg->center[0] + m[4 + j] * rg->center[1] + m[8 + j] * rg->center[2] +
                    m[12 + j];
        }
        if (rg && sphere_visible(&snap->view, aspect, wc, rg->radius * sc)) {
            tris += rg->index_count / 3u;
        }
    }
    return tris;
}

/* Scratch of one frame's count: Model groups already counted for triangles_full, level 0 tree
 * triangles per asset, and the entities the snapshot draws as themselves. */
typedef struct count_scratch {
    rill_map seen_groups, level0_tris, in_snap;
} count_scratch;

/* The largest axis scale of a matrix (bounding spheres scale by it). */
static float max_scale(const float m[16]) {
    float sc = 0.0f;
    for (int col = 0; col < 3; col++) {
        const float *v = m + col * 4;
        sc = RILL_MAX(sc, sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
    return sc;
}

/* Whether mesh seen through matrix m is in the primary view; *out_tris: its triangles. */
static bool mesh_in_view(const count_ctx *cx, const rill_render_view *view, rill_mesh mesh,
                         const float m[16], uint64_t *out_tris) {
    uint32_t idx = 0;
    float c[3], rad = 0.0f;
    if (!rill_render_mesh_info(cx->r, mesh, &idx, c, &rad)) {
        return false;
    }
    float wc[3];
    for (int k = 0; k < 3; k++) {
        wc[k] = m[k] * c[0] + m[4 + k] * c[1] + m[8 + k] * c[2] + m[12 + k];
    }
    *out_tris = idx / 3u;
    return sphere_visible(view, cx->aspect, wc, rad * max_scale(m));
}

/* Counts one entity in view as it draws unbatched (tris: its mesh's triangles). A Model with baked
 * levels counts, for triangles_full, the triangles of its level 0 tree once a frame, when any of
 * its shown entities is in view (its level trees that are not drawn are parked: extract leaves
 * them out). */
static void count_entity(const count_ctx *cx, count_scratch *cs, rill_entity e, uint64_t tris,
                         fly_counts *out) {
    rill_world *w = rill_app_world(cx->app);
    inst_group g = cx->models ? group_of(w, cx->models, e) : (inst_group){0, 0};
    out->lod[RILL_MIN(g.level, 3u)]++;
    if (!g.group) {
        out->triangles_full += tris;
    } else if (!rill_map_get(&cs->seen_groups, g.group, NULL)) {
        rill_map_set(&cs->seen_groups, g.group, 1);
        rill_entity roots[RILL_SCENE_MODEL_MAX_LEVELS];
        rill_scene_models_levels(cx->models, g.group, roots);
        out->triangles_full += tree_triangles(w, rill_app_assets(cx->app),
                                              rill_scene_models_components(cx->models)->model_mesh,
                                              roots[0], &cs->level0_tris);
    }
}

/* The GPU mesh of a ModelMesh from its asset's upload (one mesh per primitive in (mesh,
 * primitive) order), or false. */
static bool model_mesh_gpu(rill_render_assets *ra, rill_asset_server *as, const rill_model_mesh *mm,
                           rill_mesh *out) {
    const rill_render_model *up = rill_render_assets_model(ra, (rill_asset){mm->asset});
    const rill_gltf_model *gm =
        up ? rill_asset_get_payload_as(as, (rill_asset){mm->asset}, RILL_GLTF_ASSET_LOADER) : NULL;
    if (!gm || mm->mesh >= gm->mesh_count ||
        mm->primitive >= gm->meshes[mm->mesh].primitive_count) {
        return false;
    }
    uint32_t gi = mm->primitive;
    for (uint32_t k = 0; k < mm->mesh; k++) {
        gi += gm->meshes[k].primitive_count;
    }
    if (gi >= up->mesh_count) {
        return false;
    }
    *out = up->meshes[gi];
    return true;
}

/* Members drawn by static batches are not in the snapshot (a batch instance stands for them): the
 * shown ModelMesh entities that are not there and not hidden by their channels are culled one by
 * one and counted for triangles_full and the level histogram as they would be unbatched. */
static void count_batched(const count_ctx *cx, count_scratch *cs, const rill_render_view *view,
                          fly_counts *out) {
    rill_world *w = rill_app_world(cx->app);
    const rill_entity *ents = NULL;
    uint32_t n = rill_world_component_dense(w, cx->rc->mesh_shown, &ents, NULL);
    const rill_channel_modes *modes = rill_channels_modes(w);
    rill_component gt = rill_world_builtin(w)->global_transform;
    for (uint32_t i = 0; i < n; i++) {
        rill_entity e = ents[i];
        const rill_model_mesh *mm = rill_world_get(w, e, cx->rc->model_mesh);
        const rill_global_transform *xf = rill_world_get(w, e, gt);
        float opacity = 1.0f;
        rill_mesh mesh;
        uint64_t tris = 0;
        if (!mm || !xf || rill_map_get(&cs->in_snap, e, NULL) ||
            (modes && rill_channels_resolve(modes, rill_channels_get(w, e), &opacity) ==
                          RILL_RENDER_MODE_HIDDEN) ||
            !model_mesh_gpu(cx->ra, rill_app_assets(cx->app), mm, &mesh) ||
            !mesh_in_view(cx, view, mesh, xf->m, &tris)) {
            continue;
        }
        count_entity(cx, cs, e, tris, out);
    }
}

/* Counts what the primary view sees (instances and static batch ranges as drawn) and what it
 * would draw with every model at level 0, batched or not (triangles_full). */
void fly_count_snapshot(const count_ctx *cx, const rill_render_snapshot *snap, fly_counts *out) {
    static count_scratch cs;
    /* the tool's own scratch is in the CPU heap figures too: sized by what the last frame saw */
    rill_map_trim(&cs.seen_groups, 1024u);
    rill_map_clear(&cs.seen_groups);
    rill_map_trim(&cs.in_snap, 1024u);
    rill_map_clear(&cs.in_snap);
    memset(out, 0, sizeof *out);
    bool batched = false;
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const rill_render_instance *in = &snap->instances[i];
        uint64_t tris = 0;
        if (in->mode == RILL_RENDER_MODE_HIDDEN) {
            continue;
        }
        if (in->range_count) {
            /* A static batch: its ranges (member runs of one part) are seen one by one; its
             * members count for triangles_full below. */
            tris = ranges_seen(snap, in, cx->aspect, max_scale(in->transform));
            out->visible += tris != 0;
            out->triangles += tris;
            batched = true;
            continue;
        }
        rill_map_set(&cs.in_snap, in->id, 1);
        if (!mesh_in_view(cx, &snap->view, in->mesh, in->transform, &tris)) {
            continue;
        }
        out->visible++;
        out->triangles += tris;
        count_entity(cx, &cs, (rill_entity)in->id, tris, out);
    }
    if (batched && cx->rc && cx->ra) {
        count_batched(cx, &cs, &snap->view, out);
    }
    out->draws = out->visible;
    out->extracted = snap->instance_count;
}
