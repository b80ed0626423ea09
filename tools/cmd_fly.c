/* cmd_fly.c: `rill fly PROJECT|PACK --out DIR`, a fly-through with streaming on. The camera follows
 * a path (a JSON list of keyframes, or an automatic loop over the world's streamed bounds that
 * leaves its start and returns to it) at a fixed simulated step of 1/60 s, so runs compare. Each
 * frame runs the whole app (streaming decisions, the budgeted spawner, transforms), the extract,
 * a CPU frustum count of what the primary view sees, and (unless --no-render) the GPU frame.
 *
 * Output in DIR: frames.jsonl (one JSON object per frame), summary.json, frametime.png (main-thread
 * and streaming time per frame with the 16.7 ms frame budget and the 3 ms streaming budget) and
 * map.png (top-down: the terrain's chunk grid by state, instance bounds coloured by state, the
 * load/unload rings at the end, the camera path). The camera keeps a clearance above the ground
 * (a downward raycast on the physics colliders, else the terrain's heights). A per-frame key is one
 * line in write_frame_keys().
 */
#include "cli_args.h"
#include "cli_opts.h"
#include "cmds.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "rill/app.h"
#include "rill/channels.h"
#include "rill/formats/image.h"
#include "rill/render.h"
#include "rill/scene/model.h"
#include "rill/stream.h"
#include "rill/terrain.h"

#define FLY_DT (1.0 / 60.0)
#define FLY_MAX_FRAMES 10000000ull
#define FLY_MAX_KEYS 4096u
#define FLY_MAX_SECONDS 1.0e6 /* the latest keyframe time (11.6 days) */
#define FLY_FRAME_BUDGET_MS 16.7
#define FLY_STREAM_BUDGET_MS 3.0
/* Frames the camera may hold still after the path until streaming has settled (10 s), so the
 * memory comparison's end is not taken mid-load. */
#define FLY_SETTLE_MAX 600u

typedef struct fly_opts {
    const char *input, *pack, *out, *path;
    float speed; /* m/s; 0 = from --frames, else 30 */
    uint64_t frames;
    uint32_t w, h;
    uint32_t workers; /* job workers; 0 = the app's default (cores - 1) */
    bool no_render, window, size_set, heatmap;
} fly_opts;

typedef struct fly_key {
    float pos[3], look[3];
    bool has_look;
    double t; /* seconds from the start */
} fly_key;

/* What one frame measured; the summary and the plots are computed from these. */
typedef struct fly_frame {
    double main_ms, stream_ms;
    double app_ms, extract_ms; /* main_ms split: the app's frame, the render snapshot (extract) */
    double main_cpu_ms; /* main_ms as the thread's CPU time: what a loaded machine does not skew */
    double extract_cpu_ms; /* of which the snapshot (extract) */
    uint32_t entities;
    uint64_t triangles, triangles_full, texture_bytes;
    float cam[3];
    uint32_t terrain_chunks, terrain_resident, chunk_rebuilds, colliders;
    uint64_t terrain_cpu_bytes, terrain_gpu_bytes;
    double physics_ms;
    /* texture streaming */
    uint64_t texture_bytes_full; /* what the GPU would hold with every streamed chain full */
    uint64_t texture_bytes_read; /* since the start */
    double texture_swap_ms, texture_stream_ms;
    /* static batching: this frame's build time and completed builds, cells queued and being built,
     * meshes made, batched members */
    double batch_build_ms;
    uint32_t batch_cells_built, batch_cells_waiting, batched_entities;
    uint32_t batch_meshes_built, batch_cells_building;
    uint32_t batch_taken_new, batch_deferred_new;
    /* the LOD system's update: models measured, due ones left to later updates, level switches */
    uint32_t lod_checked, lod_deferred, lod_switches;
    /* residency and the CPU heap per allocation tag (rill_mem_tag order), for start vs end */
    uint32_t loaded, loading, unloading;
    uint64_t loaded_set; /* which instances are loaded: a sum of their roots' hashes */
    bool settled;        /* no load, unload, model tree or despawn in flight */
    uint64_t live[RILL_MEM_TAG_NUM];
} fly_frame;

typedef struct fly_counts {
    uint64_t triangles, triangles_full;
    uint32_t draws, visible;
    uint32_t extracted; /* instances in the snapshot: what extract walked and kept */
    uint32_t lod[4];    /* visible instances per LOD level (levels above 3 count as 3) */
} fly_counts;

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: rill fly PROJECT|PACK --out DIR [options]\n"
        "  PROJECT|PACK        a project folder (or its project.toml) or a .rpak\n"
        "  --out DIR           where frames.jsonl, summary.json, frametime.png and map.png go\n"
        "  --path FILE         camera keyframes: a JSON list of {\"pos\": [x,y,z], \"look\":\n"
        "                      [x,y,z] (optional), \"t\": seconds (optional)}; default: a loop\n"
        "                      over the world's streamed bounds that returns to its start\n"
        "  --speed M/S         flying speed where keyframes have no times (default: the path\n"
        "                      in --frames frames, else 30)\n"
        "  --frames N          frames to run (default: until the path ends)\n"
        "  --size WxH          output size (default 1280x720)\n"
        "  --workers N         job worker threads (default: cores - 1); extract's walk over\n"
        "                      the shown models runs on them and the main thread\n"
        "  --no-render         skip the GPU frame only (the app, the extract, the culling and\n"
        "                      every counter still run)\n"
        "  --window            show the fly-through in a window\n"
        "  --texture-heatmap   draw every model material flat in its texture state (green full,\n"
        "                      blue #low, amber swapping, grey not streamed)\n"
        "Steps are a fixed 1/60 s of simulated time; streaming is on (run mode game).\n");
}

static int parse(int argc, char **argv, fly_opts *o) {
    memset(o, 0, sizeof *o);
    o->w = 1280, o->h = 720;
    const rill_cli_opt opts[] = {
        {"--no-render", RILL_CLI_OPT_FLAG, &o->no_render},
        {"--window", RILL_CLI_OPT_FLAG, &o->window},
        {"--texture-heatmap", RILL_CLI_OPT_FLAG, &o->heatmap},
        {"--out", RILL_CLI_OPT_STRING, &o->out},
        {"--path", RILL_CLI_OPT_STRING, &o->path},
        {"--speed", RILL_CLI_OPT_FLOAT, &o->speed, .min = 0.001, .max = 100000.0,
         .want = "metres per second in (0, 1e5]"},
        {"--frames", RILL_CLI_OPT_U64, &o->frames, .min = 1, .max = (double)FLY_MAX_FRAMES},
        {"--workers", RILL_CLI_OPT_U32, &o->workers, .min = 1, .max = 1024},
        {"--size", RILL_CLI_OPT_SIZE, &o->w, &o->h, .given = &o->size_set},
    };
    const rill_cli_parser p = {"fly", opts, RILL_COUNTOF(opts), &o->input, NULL, usage};
    int rc = rill_cli_parse(&p, argc, argv);
    if (rc)
        return rc;
    if (!o->input || !o->out) {
        fprintf(stderr, "rill fly: %s\n",
                !o->input ? "PROJECT or PACK required" : "--out DIR required");
        usage(stderr);
        return 2;
    }
    size_t n = strlen(o->input);
    if (n > 5 && strcmp(o->input + n - 5, ".rpak") == 0) {
        o->pack = o->input;
        o->input = NULL;
    }
    return 0;
}

/* >>path -------------------------------------------------------------------------------------- */

/* Reads k's member `name` as exactly three numbers within the world limit (rill/world.h: a camera
 * beyond it is not drawn from). */
static bool key_vec3(const cJSON *k, const char *name, float out[3], char *why, size_t cap) {
    const cJSON *a = cJSON_GetObjectItem(k, name);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) {
        snprintf(why, cap, "\"%s\": want [x, y, z]", name);
        return false;
    }
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= RILL_WORLD_LIMIT)) {
            snprintf(why, cap, "\"%s\"[%d]: want a number within +-%g (the world limit)", name, i,
                     (double)RILL_WORLD_LIMIT);
            return false;
        }
        out[i] = (float)v->valuedouble;
    }
    return true;
}

/* One keyframe: "pos", optional "look", optional "t" (seconds, after the last keyframe that has
 * one). */
static bool read_key(const cJSON *k, double last_t, fly_key *fk, char *why, size_t cap) {
    memset(fk, 0, sizeof *fk);
    fk->t = -1.0;
    if (!cJSON_IsObject(k)) {
        snprintf(why, cap, "want an object {\"pos\": [x, y, z], \"look\": [x, y, z], \"t\": s}");
        return false;
    }
    fk->has_look = cJSON_GetObjectItem(k, "look") != NULL;
    if (!key_vec3(k, "pos", fk->pos, why, cap) ||
        (fk->has_look && !key_vec3(k, "look", fk->look, why, cap)))
        return false;
    const cJSON *t = cJSON_GetObjectItem(k, "t");
    if (!t)
        return true;
    if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0.0 && t->valuedouble <= FLY_MAX_SECONDS)) {
        snprintf(why, cap, "\"t\": want seconds in [0, %g]", FLY_MAX_SECONDS);
        return false;
    }
    if (!(t->valuedouble > last_t)) {
        snprintf(why, cap, "\"t\": %g is not after the previous time, %g", t->valuedouble, last_t);
        return false;
    }
    fk->t = t->valuedouble;
    return true;
}

/* Parses the --path file; false with a message naming the file and the place. */
static bool read_path(const char *file, fly_key *keys, uint32_t *out_n, char *why, size_t cap) {
    size_t len = 0;
    uint8_t *text = NULL;
    rill_error err = {0};
    *out_n = 0;
    if (rill_file_read_all(file, &text, &len, &err) != RILL_OK) {
        snprintf(why, cap, "%s", err.msg);
        return false;
    }
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts((const char *)text, len, &end, false);
    if (!doc) {
        size_t at = end && end >= (const char *)text ? (size_t)(end - (const char *)text) : 0;
        snprintf(why, cap, "%s: byte %zu: not valid JSON (or cut short)", file, at);
        rill_free(text);
        return false;
    }
    rill_free(text);
    cJSON *list = cJSON_IsObject(doc) ? cJSON_GetObjectItem(doc, "keyframes") : doc;
    int count = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    bool ok = count >= 2 && count <= (int)FLY_MAX_KEYS;
    if (!ok)
        snprintf(why, cap, "%s: want a JSON list of 2 to %u keyframes (or {\"keyframes\": [...]})",
                 file, FLY_MAX_KEYS);
    uint32_t n = 0;
    double last_t = -1.0;
    char what[256];
    const cJSON *k;
    cJSON *items = ok ? list : NULL;
    cJSON_ArrayForEach(k, items) {
        if (!read_key(k, last_t, &keys[n], what, sizeof what)) {
            snprintf(why, cap, "%s: keyframe %u: %s", file, n, what);
            ok = false;
            break;
        }
        last_t = keys[n].t >= 0.0 ? keys[n].t : last_t;
        n++;
    }
    cJSON_Delete(doc);
    *out_n = n;
    return ok;
}

/* A rectangle 80% the size of the bounds' x/z extent, flown at a height above the tallest box,
 * starting and ending at its first corner. */
static uint32_t auto_path(const float mn[3], const float mx[3], fly_key *keys) {
    float cx = 0.5f * (mn[0] + mx[0]), cz = 0.5f * (mn[2] + mx[2]);
    float hx = 0.4f * (mx[0] - mn[0]), hz = 0.4f * (mx[2] - mn[2]);
    float y = RILL_MAX(mx[1] + 15.0f, 25.0f);
    const float corners[5][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
    for (uint32_t i = 0; i < 5; i++) {
        keys[i] = (fly_key){.pos = {cx + corners[i][0] * hx, y, cz + corners[i][1] * hz}, .t = -1};
    }
    return 5;
}

/* Gives keyframes without times a time from the speed; returns the path's duration. */
static double time_path(fly_key *keys, uint32_t n, float speed) {
    if (keys[0].t < 0.0)
        keys[0].t = 0.0;
    for (uint32_t i = 1; i < n; i++) {
        if (keys[i].t >= 0.0)
            continue;
        float d = 0.0f;
        for (int k = 0; k < 3; k++)
            d += (keys[i].pos[k] - keys[i - 1].pos[k]) * (keys[i].pos[k] - keys[i - 1].pos[k]);
        keys[i].t = keys[i - 1].t + RILL_MAX(sqrtf(d) / speed, 1e-3f);
    }
    return keys[n - 1].t;
}

static float path_length(const fly_key *keys, uint32_t n) {
    float len = 0.0f;
    for (uint32_t i = 1; i < n; i++) {
        float d = 0.0f;
        for (int k = 0; k < 3; k++)
            d += (keys[i].pos[k] - keys[i - 1].pos[k]) * (keys[i].pos[k] - keys[i - 1].pos[k]);
        len += sqrtf(d);
    }
    return len;
}

/* The camera at time t: position along the segment, looking at the keyframe's target or along the
 * direction of travel, pitched 15 degrees down. Writes a world_from_view rotation as a quaternion.
 */
static void path_eval(const fly_key *keys, uint32_t n, double t, float pos[3], float quat[4]) {
    uint32_t i = 0;
    while (i + 2 < n && t > keys[i + 1].t)
        i++;
    const fly_key *a = &keys[i], *b = &keys[i + 1];
    float u = (float)RILL_CLAMP((t - a->t) / (b->t - a->t), 0.0, 1.0);
    float dir[3];
    for (int k = 0; k < 3; k++) {
        pos[k] = a->pos[k] + (b->pos[k] - a->pos[k]) * u;
        float la = a->has_look ? a->look[k] : b->pos[k];
        float lb = b->has_look ? b->look[k] : b->pos[k] + (b->pos[k] - a->pos[k]);
        dir[k] = (la + (lb - la) * u) - pos[k];
    }
    float yaw = atan2f(-dir[0], -dir[2]);
    float flat = sqrtf(dir[0] * dir[0] + dir[2] * dir[2]);
    bool has_look = a->has_look || b->has_look;
    float pitch = has_look ? atan2f(dir[1], RILL_MAX(flat, 1e-6f)) : -0.26f;
    /* q = Ry(yaw) * Rx(pitch) */
    float cy = cosf(yaw * 0.5f), sy = sinf(yaw * 0.5f), cp = cosf(pitch * 0.5f),
          sp = sinf(pitch * 0.5f);
    quat[0] = cy * sp;
    quat[1] = sy * cp;
    quat[2] = -sy * sp;
    quat[3] = cy * cp;
}

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
    if (depth + r < v->near_plane || depth - r > v->far_plane)
        return false;
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
        if (!parent)
            break;
        uint32_t n = rill_scene_models_levels(models, parent, roots);
        if (n) {
            child = e;
            for (uint32_t k = 0; k < n; k++) {
                if (roots[k] == child) {
                    if (n > 1)
                        g = (inst_group){parent, k};
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
    if (!gm || mm->mesh >= gm->mesh_count || mm->primitive >= gm->meshes[mm->mesh].primitive_count)
        return 0;
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
            if (rill_map_get(per_asset, asset, &tris))
                return tris;
        }
        tris += mm ? primitive_triangles(as, mm) : 0;
        for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c))
            rill_array_push(&stack, c);
    }
    if (asset)
        rill_map_set(per_asset, asset, tris);
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
        for (int j = 0; rg && j < 3; j++)
            wc[j] = m[j] * rg->center[0] + m[4 + j] * rg->center[1] + m[8 + j] * rg->center[2] +
                    m[12 + j];
        if (rg && sphere_visible(&snap->view, aspect, wc, rg->radius * sc))
            tris += rg->index_count / 3u;
    }
    return tris;
}

/* What a frame's counting reads: the renderer (mesh bounds), the app's world and model trees, and
 * the components and asset cache the batched members are found through. */
typedef struct count_ctx {
    rill_renderer *r;
    rill_app *app;
    rill_scene_models *models;
    const rill_render_components *rc;
    rill_render_assets *ra;
    float aspect;
} count_ctx;

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
    if (!rill_render_mesh_info(cx->r, mesh, &idx, c, &rad))
        return false;
    float wc[3];
    for (int k = 0; k < 3; k++)
        wc[k] = m[k] * c[0] + m[4 + k] * c[1] + m[8 + k] * c[2] + m[12 + k];
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
    if (!gm || mm->mesh >= gm->mesh_count || mm->primitive >= gm->meshes[mm->mesh].primitive_count)
        return false;
    uint32_t gi = mm->primitive;
    for (uint32_t k = 0; k < mm->mesh; k++)
        gi += gm->meshes[k].primitive_count;
    if (gi >= up->mesh_count)
        return false;
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
            !mesh_in_view(cx, view, mesh, xf->m, &tris))
            continue;
        count_entity(cx, cs, e, tris, out);
    }
}

/* Counts what the primary view sees (instances and static batch ranges as drawn) and what it
 * would draw with every model at level 0, batched or not (triangles_full). */
static void count_snapshot(const count_ctx *cx, const rill_render_snapshot *snap, fly_counts *out) {
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
        if (in->mode == RILL_RENDER_MODE_HIDDEN)
            continue;
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
        if (!mesh_in_view(cx, &snap->view, in->mesh, in->transform, &tris))
            continue;
        out->visible++;
        out->triangles += tris;
        count_entity(cx, &cs, (rill_entity)in->id, tris, out);
    }
    if (batched && cx->rc && cx->ra)
        count_batched(cx, &cs, &snap->view, out);
    out->draws = out->visible;
    out->extracted = snap->instance_count;
}

/* >>records ----------------------------------------------------------------------------------- */

typedef struct jw {
    FILE *f;
    bool first;
} jw;

static void jw_begin(jw *w) {
    fputc('{', w->f);
    w->first = true;
}
static void jw_key(jw *w, const char *k) {
    fprintf(w->f, "%s\"%s\":", w->first ? "" : ",", k);
    w->first = false;
}
static void jw_u64(jw *w, const char *k, uint64_t v) {
    jw_key(w, k);
    fprintf(w->f, "%llu", (unsigned long long)v);
}
static void jw_f64(jw *w, const char *k, double v) {
    jw_key(w, k);
    fprintf(w->f, "%.4f", isfinite(v) ? v : 0.0);
}
static void jw_u32s(jw *w, const char *k, const uint32_t *v, uint32_t n) {
    jw_key(w, k);
    fputc('[', w->f);
    for (uint32_t i = 0; i < n; i++)
        fprintf(w->f, "%s%u", i ? "," : "", v[i]);
    fputc(']', w->f);
}
/* The renderer's GPU time per graph pass of the newest finished frame, as {"name": ms, ...}. */
static void jw_passes(jw *w, const char *k, const rill_render_stats *rs) {
    jw_key(w, k);
    fputc('{', w->f);
    for (uint32_t i = 0; i < rs->pass_count; i++)
        fprintf(w->f, "%s\"%s\":%.4f", i ? "," : "", rs->pass_names[i] ? rs->pass_names[i] : "?",
                isfinite(rs->pass_gpu_ms[i]) ? rs->pass_gpu_ms[i] : 0.0);
    fputc('}', w->f);
}
/* The app's systems' main-thread time in the frame, as {"name": ms, ...}. */
static void jw_systems(jw *w, const char *k, const rill_app *app) {
    rill_system_timing t[64];
    uint32_t n = RILL_MIN(rill_app_system_timings(app, t, RILL_COUNTOF(t)), RILL_COUNTOF(t));
    jw_key(w, k);
    fputc('{', w->f);
    for (uint32_t i = 0; i < n; i++)
        fprintf(w->f, "%s\"%s\":%.4f", i ? "," : "", t[i].name, (double)t[i].ns / 1e6);
    fputc('}', w->f);
}
/* The parts of the renderer's CPU time (rill_render_stats' cpu_*_ms), as {"cull": ms, ...}. */
static void jw_render_phases(jw *w, const char *k, const rill_render_stats *rs) {
    jw_key(w, k);
    fprintf(w->f,
            "{\"setup\":%.4f,\"cull\":%.4f,\"sort\":%.4f,\"upload\":%.4f,\"graph\":%.4f,"
            "\"commands\":%.4f,\"submit\":%.4f}",
            rs->cpu_setup_ms, rs->cpu_cull_ms, rs->cpu_sort_ms, rs->cpu_upload_ms, rs->cpu_graph_ms,
            rs->cpu_commands_ms, rs->cpu_submit_ms);
}
static void jw_end(jw *w) {
    fputs("}\n", w->f);
}

/* One frame's line in frames.jsonl. Adding a key is one line here. */
static void write_frame_keys(jw *w, uint64_t frame, double t, const fly_frame *fr, double gpu_ms,
                             const rill_stream_stats *ss, const fly_counts *fc,
                             const rill_render_texture_streaming_stats *tx,
                             const rill_render_stats *rs, const rill_app *app) {
    jw_begin(w);
    jw_u64(w, "frame", frame);
    jw_f64(w, "t", t);
    jw_f64(w, "main_ms", fr->main_ms);
    jw_f64(w, "main_cpu_ms", fr->main_cpu_ms);
    jw_f64(w, "extract_cpu_ms", fr->extract_cpu_ms);
    jw_f64(w, "stream_ms", fr->stream_ms);
    jw_f64(w, "gpu_ms", gpu_ms);
    jw_u64(w, "entities", fr->entities);
    jw_u64(w, "instances_loaded", ss->loaded);
    jw_u64(w, "instances_loading", ss->loading);
    jw_u64(w, "instances_unloaded", ss->unloaded + ss->failed);
    jw_u64(w, "triangles", fc->triangles);
    jw_u64(w, "triangles_full", fc->triangles_full);
    jw_u64(w, "draws", fc->draws);
    jw_u64(w, "extracted", fc->extracted);
    jw_u32s(w, "lod", fc->lod, 4);
    jw_u64(w, "texture_bytes", fr->texture_bytes); /* GPU bytes of every texture's levels now */
    jw_u64(w, "texture_bytes_full", fr->texture_bytes_full);
    jw_u64(w, "textures_full", tx->decisions.full);
    jw_u64(w, "textures_low", tx->decisions.low);
    jw_u64(w, "texture_swaps_in_flight", tx->decisions.in_flight + tx->replacing);
    jw_u64(w, "texture_bytes_read", fr->texture_bytes_read);
    jw_f64(w, "texture_swap_ms", fr->texture_swap_ms);
    jw_f64(w, "texture_stream_ms", fr->texture_stream_ms);
    jw_f64(w, "batch_build_ms", fr->batch_build_ms);
    jw_u64(w, "batch_cells_built", fr->batch_cells_built);
    jw_u64(w, "batch_cells_waiting", fr->batch_cells_waiting);
    jw_u64(w, "batch_cells_building", fr->batch_cells_building);
    jw_u64(w, "batch_meshes_built", fr->batch_meshes_built);
    jw_u64(w, "batched_entities", fr->batched_entities);
    jw_u64(w, "batch_taken_new", fr->batch_taken_new);
    jw_u64(w, "batch_deferred_new", fr->batch_deferred_new);
    jw_u64(w, "lod_checked", fr->lod_checked);
    jw_u64(w, "lod_deferred", fr->lod_deferred);
    jw_u64(w, "lod_switches", fr->lod_switches);
    jw_u64(w, "terrain_chunks", fr->terrain_chunks);
    jw_u64(w, "terrain_chunks_resident", fr->terrain_resident);
    jw_u64(w, "chunk_rebuilds", fr->chunk_rebuilds);
    jw_u64(w, "colliders", fr->colliders);
    jw_u64(w, "terrain_cpu_bytes", fr->terrain_cpu_bytes);
    jw_u64(w, "terrain_gpu_bytes", fr->terrain_gpu_bytes);
    jw_f64(w, "physics_ms", fr->physics_ms);
    jw_u64(w, "live_bytes", rill_mem_live_total()); /* CPU heap through rill's allocator */
    /* What the renderer itself saw (zero with --no-render): CPU recording, waiting for a free
     * frame slot, triangles of every pass (shadow cascades too), and GPU time per pass. */
    jw_f64(w, "app_ms", fr->app_ms);
    jw_f64(w, "extract_ms", fr->extract_ms);
    jw_f64(w, "render_cpu_ms", rs->cpu_record_ms);
    jw_f64(w, "render_wait_ms", rs->cpu_wait_ms);
    jw_u64(w, "upload_bytes", rs->uploaded_bytes_last_frame); /* copied to staging in the wait */
    jw_render_phases(w, "render_cpu_phases", rs);
    jw_u64(w, "gpu_triangles", rs->triangles);
    jw_passes(w, "gpu_passes", rs);
    jw_systems(w, "systems", app);
    jw_end(w);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* >>pictures ---------------------------------------------------------------------------------- */

typedef struct canvas {
    uint8_t *px;
    int w, h;
} canvas;

static void put(canvas *c, int x, int y, const uint8_t rgb[3], float a) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h)
        return;
    uint8_t *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 4u;
    for (int k = 0; k < 3; k++)
        p[k] = (uint8_t)(p[k] + (rgb[k] - p[k]) * a);
    p[3] = 255;
}

static void line(canvas *c, float x0, float y0, float x1, float y1, const uint8_t rgb[3], float a) {
    float dx = x1 - x0, dy = y1 - y0;
    int n = (int)RILL_MAX(fabsf(dx), fabsf(dy)) + 1;
    if (n > 100000)
        n = 100000;
    for (int i = 0; i <= n; i++) {
        float u = (float)i / (float)n;
        put(c, (int)lroundf(x0 + dx * u), (int)lroundf(y0 + dy * u), rgb, a);
    }
}

static void rect(canvas *c, float x0, float y0, float x1, float y1, const uint8_t rgb[3],
                 float fill) {
    for (int y = (int)y0; y <= (int)y1; y++)
        for (int x = (int)x0; x <= (int)x1; x++)
            put(c, x, y, rgb, fill);
    line(c, x0, y0, x1, y0, rgb, 1), line(c, x1, y0, x1, y1, rgb, 1);
    line(c, x1, y1, x0, y1, rgb, 1), line(c, x0, y1, x0, y0, rgb, 1);
}

static void circle(canvas *c, float cx, float cy, float r, const uint8_t rgb[3]) {
    int n = (int)RILL_CLAMP(r * 7.0f, 32.0f, 4096.0f);
    for (int i = 0; i < n; i++) {
        float a0 = 6.2831853f * (float)i / (float)n, a1 = 6.2831853f * (float)(i + 1) / (float)n;
        line(c, cx + r * cosf(a0), cy + r * sinf(a0), cx + r * cosf(a1), cy + r * sinf(a1), rgb, 1);
    }
}

static bool canvas_make(canvas *c, int w, int h) {
    c->w = w, c->h = h;
    c->px = malloc((size_t)w * (size_t)h * 4u);
    if (c->px)
        memset(c->px, 255, (size_t)w * (size_t)h * 4u);
    return c->px != NULL;
}

static bool write_frametime(const char *path, const fly_frame *fr, uint64_t n) {
    canvas c;
    const int W = 1200, H = 360, L = 40, B = 20;
    if (!canvas_make(&c, W, H))
        return false;
    double top = FLY_FRAME_BUDGET_MS * 1.5;
    for (uint64_t i = 0; i < n; i++)
        top = RILL_MAX(top, fr[i].main_ms * 1.05);
    const uint8_t grid[3] = {225, 225, 225}, red[3] = {220, 30, 30}, orange[3] = {240, 150, 0},
                  blue[3] = {40, 90, 200}, green[3] = {20, 160, 60}, black[3] = {0, 0, 0};
    float ph = (float)(H - B - 10);
#define YOF(ms) ((float)(H - B) - (float)((ms) / top) * ph)
    for (double ms = 5.0; ms < top; ms += 5.0)
        line(&c, L, YOF(ms), W - 5, YOF(ms), grid, 1);
    line(&c, L, YOF(0.0), W - 5, YOF(0.0), black, 1);
    line(&c, L, YOF(0.0), L, 5, black, 1);
    float xs = n > 1 ? (float)(W - 5 - L) / (float)(n - 1) : 0.0f;
    for (uint64_t i = 1; i < n; i++) {
        float x0 = L + xs * (float)(i - 1), x1 = L + xs * (float)i;
        line(&c, x0, YOF(fr[i - 1].stream_ms), x1, YOF(fr[i].stream_ms), green, 1);
        line(&c, x0, YOF(fr[i - 1].main_ms), x1, YOF(fr[i].main_ms), blue, 1);
    }
    for (int x = L; x < W - 5; x += 6) {
        line(&c, (float)x, YOF(FLY_FRAME_BUDGET_MS), (float)x + 3, YOF(FLY_FRAME_BUDGET_MS), red,
             1);
        line(&c, (float)x, YOF(FLY_STREAM_BUDGET_MS), (float)x + 3, YOF(FLY_STREAM_BUDGET_MS),
             orange, 1);
    }
#undef YOF
    bool ok = rill_image_write_png(path, c.px, W, H, 4, NULL) == RILL_OK;
    free(c.px);
    return ok;
}

static bool write_map(const char *path, const rill_stream_instance_info *inst, uint32_t ni,
                      const fly_frame *fr, uint64_t n, const float cam[3],
                      const rill_terrain_system *terrain) {
    float mn[2] = {FLT_MAX, FLT_MAX}, mx[2] = {-FLT_MAX, -FLT_MAX};
    for (uint32_t i = 0; i < ni; i++) {
        mn[0] = RILL_MIN(mn[0], inst[i].bounds_min[0]),
        mx[0] = RILL_MAX(mx[0], inst[i].bounds_max[0]);
        mn[1] = RILL_MIN(mn[1], inst[i].bounds_min[2]),
        mx[1] = RILL_MAX(mx[1], inst[i].bounds_max[2]);
    }
    for (uint64_t i = 0; i < n; i++) {
        mn[0] = RILL_MIN(mn[0], fr[i].cam[0]), mx[0] = RILL_MAX(mx[0], fr[i].cam[0]);
        mn[1] = RILL_MIN(mn[1], fr[i].cam[2]), mx[1] = RILL_MAX(mx[1], fr[i].cam[2]);
    }
    float span = RILL_MAX(RILL_MAX(mx[0] - mn[0], mx[1] - mn[1]), 1.0f) * 1.04f;
    float ox = 0.5f * (mn[0] + mx[0]) - 0.5f * span, oz = 0.5f * (mn[1] + mx[1]) - 0.5f * span;
    const int S = 1024;
    canvas c;
    if (!canvas_make(&c, S, S))
        return false;
    float k = (float)S / span;
    /* The terrain's chunk grid by state underneath (resident, building, unloaded). */
    float wmn[2] = {ox, oz}, wmx[2] = {ox + span, oz + span};
    rill_terrain_draw_chunk_map(terrain, wmn, wmx, c.px, (uint32_t)S, (uint32_t)S);
#define MX(x) (((x)-ox) * k)
#define MZ(z) (((z)-oz) * k)
    static const uint8_t colors[RILL_INSTANCE_STATE_NUM][3] = {
        {150, 150, 150}, /* unloaded */
        {240, 180, 0},   /* loading */
        {30, 170, 70},   /* loaded */
        {210, 40, 40},   /* failed */
        {120, 60, 160},  /* unloading */
    };
    for (uint32_t i = 0; i < ni; i++) {
        const uint8_t *col =
            colors[(unsigned)inst[i].state < RILL_INSTANCE_STATE_NUM ? inst[i].state : 0];
        rect(&c, MX(inst[i].bounds_min[0]), MZ(inst[i].bounds_min[2]), MX(inst[i].bounds_max[0]),
             MZ(inst[i].bounds_max[2]), col, 0.35f);
    }
    const uint8_t path_col[3] = {20, 40, 160}, load_col[3] = {0, 120, 255},
                  unload_col[3] = {200, 0, 200};
    for (uint64_t i = 1; i < n; i++) {
        line(&c, MX(fr[i - 1].cam[0]), MZ(fr[i - 1].cam[2]), MX(fr[i].cam[0]), MZ(fr[i].cam[2]),
             path_col, 1);
    }
    /* The rings of the instance nearest the camera's last position, which are the radii in play. */
    float best = FLT_MAX, lr = 0, ur = 0;
    for (uint32_t i = 0; i < ni; i++) {
        if (inst[i].distance < best)
            best = inst[i].distance, lr = inst[i].load_radius, ur = inst[i].unload_radius;
    }
    if (ni) {
        circle(&c, MX(cam[0]), MZ(cam[2]), lr * k, load_col);
        circle(&c, MX(cam[0]), MZ(cam[2]), ur * k, unload_col);
    }
#undef MX
#undef MZ
    bool ok = rill_image_write_png(path, c.px, S, S, 4, NULL) == RILL_OK;
    free(c.px);
    return ok;
}

/* >>world size -------------------------------------------------------------------------------- */

/* Entities below root (not counting root). */
static uint64_t descendants(rill_world *w, rill_entity root) {
    uint64_t n = 0;
    RILL_ARRAY(rill_entity) stack = {0};
    for (rill_entity c = rill_world_first_child(w, root); c; c = rill_world_next_sibling(w, c))
        rill_array_push(&stack, c);
    while (stack.len) {
        rill_entity e = rill_array_pop(&stack);
        n++;
        for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c))
            rill_array_push(&stack, c);
    }
    rill_array_free(&stack);
    return n;
}

/* Remembers, per scene file, the most entities a loaded instance of it held in the live world
 * (its own entities plus the node trees its models spawned). */
static void sample_live(rill_app *app, rill_map *live) {
    rill_world *w = rill_app_world(app);
    rill_stream *s = rill_app_stream(app);
    rill_component ic = rill_world_find_component(w, "SceneInstance");
    uint32_t ni = rill_stream_instances(s, NULL, 0);
    rill_stream_instance_info *inst = calloc(ni ? ni : 1, sizeof *inst);
    ni = inst ? rill_stream_instances(s, inst, ni) : 0;
    for (uint32_t i = 0; i < ni; i++) {
        const rill_scene_instance *si = rill_world_get(w, inst[i].root, ic);
        if (inst[i].state != RILL_INSTANCE_LOADED || !si || !si->scene)
            continue;
        uint64_t n = descendants(w, inst[i].root), old = 0;
        if (!rill_map_get(live, (uint64_t)(uintptr_t)si->scene, &old) || n > old)
            rill_map_set(live, (uint64_t)(uintptr_t)si->scene, n);
    }
    free(inst);
}

/* Entities the whole world holds, counted like the per-frame `entities`: what no streamed instance
 * brought, plus each streamed instance's content as measured live (sample_live). A scene file no
 * instance loaded during the fly is counted by loading it into a scratch world (its own entities
 * only, so the total is then a lower bound). */
static uint64_t world_entities(rill_app *app, const rill_stream_instance_info *inst, uint32_t ni,
                               const rill_map *live) {
    rill_world *w = rill_app_world(app);
    uint64_t total = rill_world_entity_count(w);
    rill_component ic = rill_world_find_component(w, "SceneInstance");
    for (uint32_t i = 0; i < ni; i++)
        total -= descendants(w, inst[i].root);
    rill_world *scratch = rill_world_create(NULL, NULL);
    rill_app_register_components(scratch, NULL, NULL, NULL);
    rill_demo_register_components(scratch);
    rill_scene_loader *ld = rill_scene_loader_create(
        &(rill_scene_loader_desc){.world = scratch, .vfs = rill_app_vfs(app)}, NULL);
    rill_map counts = {0}; /* interned scene path -> entity count */
    for (uint32_t i = 0; i < ni && ld; i++) {
        const rill_scene_instance *si = rill_world_get(w, inst[i].root, ic);
        if (!si || !si->scene)
            continue;
        uint64_t v = 0, key = (uint64_t)(uintptr_t)si->scene;
        if (!rill_map_get(live, key, &v) && !rill_map_get(&counts, key, &v)) {
            rill_entity root = rill_world_spawn(scratch);
            rill_scene_instance copy = *si;
            copy.streamed = false;
            rill_world_add(scratch, root, rill_scene_register(scratch).instance, &copy);
            rill_scene_load h = rill_scene_instance_load(ld, root, NULL);
            while (rill_scene_load_get_state(ld, h) == RILL_SCENE_LOAD_PARSING ||
                   rill_scene_load_get_state(ld, h) == RILL_SCENE_LOAD_SPAWNING) {
                rill_scene_loader_update(ld);
            }
            v = rill_scene_load_entity_count(ld, h);
            rill_scene_load_release(ld, h);
            rill_world_despawn_recursive(scratch, root);
            rill_map_set(&counts, key, v);
        }
        total += v;
    }
    rill_map_free(&counts);
    rill_scene_loader_destroy(ld);
    rill_world_destroy(scratch);
    return total;
}

/* >>main -------------------------------------------------------------------------------------- */

static bool make_dir(const char *dir) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return true;
    return false;
}

typedef struct fly_run {
    fly_opts o;
    rill_content *content;
    rill_renderer *r;
    rill_window *win;
    fly_key keys[FLY_MAX_KEYS];
    uint32_t nkeys;
    fly_frame *frames;
    FILE *jsonl;
    rill_map live;                   /* scene path -> most live entities an instance of it held */
    rill_stream_instance_info *inst; /* scratch of loaded_set (malloc: not the engine's memory) */
    uint32_t inst_cap;
    uint64_t physics_ns;   /* rill_physics_stats.step_ns_total at the previous frame */
    uint64_t lod_switches; /* rill_lod_stats.switches at the previous frame */
    char path[1200];
} fly_run;

static const char *out_path(fly_run *run, const char *name) {
    snprintf(run->path, sizeof run->path, "%s/%s", run->o.out, name);
    return run->path;
}

/* World bounds for the automatic path: the streamed instances' boxes, else around the camera. */
/* The box over every streamed instance's bounds; false when there is none. */
static bool world_bounds(rill_app *app, float mn[3], float mx[3]) {
    rill_stream *s = rill_app_stream(app);
    rill_stream_update(s); /* records and boxes for every streamed instance */
    uint32_t n = rill_stream_instances(s, NULL, 0);
    rill_stream_instance_info *inst = calloc(n ? n : 1, sizeof *inst);
    n = inst ? rill_stream_instances(s, inst, n) : 0;
    for (int k = 0; k < 3; k++)
        mn[k] = FLT_MAX, mx[k] = -FLT_MAX;
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            mn[k] = RILL_MIN(mn[k], inst[i].bounds_min[k]);
            mx[k] = RILL_MAX(mx[k], inst[i].bounds_max[k]);
        }
    }
    free(inst);
    return n != 0;
}

/* Without streamed instances: a square around what the world draws, 1.5 times its largest half
 * size out from its centre (at least 2 m) and as high above it, looking at the centre, so a small
 * project is in view the whole way; a world that draws nothing gets a 200 m square around the
 * camera. */
static uint32_t content_path(rill_content *content, fly_key *keys) {
    float lo[3], hi[3], c[3], r = 1.0f;
    if (!rill_content_bounds(content, lo, hi)) {
        float p[3] = {0, 0, 0};
        rill_app_streaming_camera(rill_content_app(content), p);
        for (int k = 0; k < 3; k++)
            lo[k] = p[k] - 100.0f, hi[k] = p[k] + 100.0f;
        lo[1] = hi[1] = 0.0f;
        return auto_path(lo, hi, keys);
    }
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (lo[k] + hi[k]);
        r = RILL_MAX(r, 0.5f * (hi[k] - lo[k]));
    }
    const float corners[5][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
    for (uint32_t i = 0; i < 5; i++) {
        keys[i] = (fly_key){.pos = {c[0] + corners[i][0] * 1.5f * r, c[1] + 1.5f * r,
                                    c[2] + corners[i][1] * 1.5f * r},
                            .look = {c[0], c[1], c[2]},
                            .has_look = true,
                            .t = -1};
    }
    return 5;
}

static rill_render_assets *fly_assets(const fly_run *run) {
    return rill_app_models_render_assets(rill_content_models(run->content));
}

/* A keyframe without "t" is reached at the path's speed, which may be after the next keyframe's
 * own "t"; and a path without --frames must fit FLY_MAX_FRAMES (frames are stored per step). */
static bool path_times_ok(const fly_run *run, float speed, double duration, rill_error *err) {
    for (uint32_t i = 1; i < run->nkeys; i++) {
        if (!(run->keys[i].t > run->keys[i - 1].t)) {
            rill_error_set(err, RILL_ERR_PARSE,
                           "%s: keyframe %u: \"t\" %g is not after %g, when keyframe %u is "
                           "reached at %g m/s",
                           run->o.path, i, run->keys[i].t, run->keys[i - 1].t, i - 1,
                           (double)speed);
            return false;
        }
    }
    if (!run->o.frames && !(duration / FLY_DT < (double)FLY_MAX_FRAMES)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "the path lasts %g s, more than %llu frames of 1/60 s: pass --frames N or "
                       "a faster --speed",
                       duration, FLY_MAX_FRAMES);
        return false;
    }
    return true;
}

static int fly_setup(fly_run *run, rill_error *err) {
    rill_content_desc cd = {
        .input = run->o.input, .pack = run->o.pack, .worker_count = run->o.workers};
    rill_cli_content_hooks(&cd);
    run->content = rill_content_open(&cd, err);
    if (!run->content)
        return 1;
    rill_renderer_desc d;
    memset(&d, 0, sizeof d);
    rill_content_renderer_desc(run->content, &d);
    d.vsync = false;
    d.width = run->o.w, d.height = run->o.h;
    if (run->o.window) {
        rill_window_desc wd = {
            .title = "rill fly", .width = run->o.w, .height = run->o.h, .fixed_size = true};
        if (!(run->win = rill_window_create(&wd, err)))
            return 1;
        d.glfw_window = rill_window_glfw(run->win);
    }
    if (!(run->r = rill_renderer_create(&d, err)))
        return 1;
    if (rill_content_load(run->content, run->r, err) != RILL_OK)
        return 1;
    rill_app *app = rill_content_app(run->content);
    if (rill_app_get_run_mode(app) != RILL_RUN_MODE_GAME)
        rill_app_set_run_mode(app, RILL_RUN_MODE_GAME);
    if (run->o.heatmap)
        rill_render_assets_set_texture_heatmap(fly_assets(run), true);
    char why[512];
    if (run->o.path) {
        if (!read_path(run->o.path, run->keys, &run->nkeys, why, sizeof why)) {
            rill_error_set(err, RILL_ERR_PARSE, "%s", why);
            return 1;
        }
    } else {
        float mn[3], mx[3];
        run->nkeys = world_bounds(app, mn, mx) ? auto_path(mn, mx, run->keys)
                                               : content_path(run->content, run->keys);
    }
    float speed = run->o.speed;
    if (speed <= 0.0f) {
        float len = path_length(run->keys, run->nkeys);
        speed = run->o.frames > 1
                    ? RILL_MAX(len / (float)((double)(run->o.frames - 1u) * FLY_DT), 0.001f)
                    : 30.0f;
    }
    double duration = time_path(run->keys, run->nkeys, speed);
    if (!path_times_ok(run, speed, duration, err))
        return 1;
    if (!run->o.frames)
        run->o.frames = (uint64_t)ceil(duration / FLY_DT) + 1u;
    run->frames = calloc(run->o.frames + FLY_SETTLE_MAX, sizeof(fly_frame));
    run->jsonl = fopen(out_path(run, "frames.jsonl"), "w");
    if (!run->frames || !run->jsonl) {
        rill_error_set(err, RILL_ERR_IO, "%s: cannot write", run->path);
        return 1;
    }
    printf("fly: %u keyframes, %.0f m at %.1f m/s, %llu frames of 1/60 s%s\n", run->nkeys,
           (double)path_length(run->keys, run->nkeys), (double)speed,
           (unsigned long long)run->o.frames, run->o.no_render ? " (no render)" : "");
    return 0;
}

/* The camera never goes below FLY_CLEARANCE metres above the ground under it: a downward raycast
 * on the physics colliders (resident terrain chunks, bodies), else the terrain's heights where no
 * chunk is resident there. */
#define FLY_CLEARANCE 12.0f
static void keep_above_ground(fly_run *run, float pos[3]) {
    rill_physics *phys = rill_app_physics_world(rill_content_physics(run->content));
    float from[3] = {pos[0], pos[1] + 2000.0f, pos[2]}, down[3] = {0.0f, -1.0f, 0.0f};
    rill_physics_hit hit;
    float ground;
    if (phys && rill_physics_raycast(phys, from, down, 10000.0f, 0, &hit)) {
        ground = hit.position[1];
    } else if (!rill_terrain_height_at(rill_app_terrain_system(rill_content_terrain(run->content)),
                                       RILL_ENTITY_NULL, pos[0], pos[2], &ground, NULL)) {
        return;
    }
    pos[1] = RILL_MAX(pos[1], ground + FLY_CLEARANCE);
}

/* This frame's terrain and physics counters. */
static void terrain_counters(fly_run *run, fly_frame *fr) {
    rill_terrain_stats ts;
    rill_terrain_get_stats(rill_app_terrain_system(rill_content_terrain(run->content)), &ts);
    rill_physics_stats ps;
    rill_physics_get_stats(rill_app_physics_world(rill_content_physics(run->content)), &ps);
    fr->terrain_chunks = ts.chunks;
    fr->terrain_resident = ts.resident;
    fr->terrain_cpu_bytes = ts.height_bytes + ts.resident_bytes;
    rill_render_terrain_stats rs;
    rill_render_terrain_get_stats(rill_content_render_terrain(run->content), &rs);
    fr->terrain_gpu_bytes = rs.vertex_bytes + rs.index_bytes;
    fr->chunk_rebuilds = ts.rebuilds_last_update;
    fr->colliders = ps.colliders;
    fr->physics_ms = (double)(ps.step_ns_total - run->physics_ns) / 1e6;
    run->physics_ns = ps.step_ns_total;
}

/* This frame's LOD counters (the update ran in the app's frame). */
static void lod_counters(fly_run *run, fly_frame *fr) {
    rill_lod_stats ls;
    rill_lod_system_get_stats(rill_app_models_lod(rill_content_models(run->content)), &ls);
    fr->lod_checked = ls.checked;
    fr->lod_deferred = ls.deferred;
    fr->lod_switches = (uint32_t)(ls.switches - run->lod_switches);
    run->lod_switches = ls.switches;
}

/* One frame: camera on the path, the app's frame, extract, counts, and the GPU frame. */
/* Which streamed instances are loaded, as an order-free fingerprint: the sum of their roots'
 * hashes (two frames with the same loaded set have the same value). */
static uint64_t loaded_set(fly_run *run, rill_app *app) {
    rill_stream *s = rill_app_stream(app);
    uint32_t n = rill_stream_instances(s, NULL, 0);
    if (n > run->inst_cap) {
        free(run->inst);
        run->inst_cap = n;
        run->inst = malloc((size_t)n * sizeof *run->inst);
    }
    n = run->inst ? rill_stream_instances(s, run->inst, RILL_MIN(n, run->inst_cap)) : 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        if (run->inst[i].state == RILL_INSTANCE_LOADED)
            sum += rill_hash64(&run->inst[i].root, sizeof run->inst[i].root);
    return sum;
}

static int fly_frame_run(fly_run *run, uint64_t f, rill_entity cam, rill_error *err) {
    rill_app *app = rill_content_app(run->content);
    rill_world *w = rill_app_world(app);
    double t = (double)RILL_MIN(f, run->o.frames - 1u) * FLY_DT; /* settle frames hold still */
    fly_frame *fr = &run->frames[f];
    uint64_t t0 = rill_time_ns(), cpu0 = rill_cli_thread_cpu_ns();
    rill_transform tr = {.scale = {1, 1, 1}};
    path_eval(run->keys, run->nkeys, t, tr.translation, tr.rotation);
    keep_above_ground(run, tr.translation);
    rill_world_set_transform(w, cam, &tr);
    memcpy(fr->cam, tr.translation, sizeof fr->cam);
    rill_app_frame_dt(app, FLY_DT);
    uint64_t t_app = rill_time_ns();
    rill_render_snapshot snap;
    uint64_t x0 = rill_cli_thread_cpu_ns();
    if (rill_content_snapshot(run->content, tr.translation, &snap, err) != RILL_OK)
        return 1;
    fr->app_ms = (double)(t_app - t0) / 1e6;
    fr->extract_ms = (double)(rill_time_ns() - t_app) / 1e6;
    fr->extract_cpu_ms = (double)(rill_cli_thread_cpu_ns() - x0) / 1e6;
    /* The counting below is the tool's measurement, not engine work: kept out of main_ms. */
    uint64_t c0 = rill_time_ns(), count_cpu0 = rill_cli_thread_cpu_ns();
    fly_counts fc;
    count_ctx cx = {run->r,
                    app,
                    rill_app_models_scene(rill_content_models(run->content)),
                    rill_content_render_components(run->content),
                    fly_assets(run),
                    (float)run->o.w / (float)run->o.h};
    count_snapshot(&cx, &snap, &fc);
    uint64_t count_ns = rill_time_ns() - c0, count_cpu = rill_cli_thread_cpu_ns() - count_cpu0;
    double wait_ms = 0.0;
    rill_render_stats rs;
    if (!run->o.no_render) {
        if (run->win)
            rill_window_poll(run->win);
        if (rill_renderer_render(run->r, &snap, err) != RILL_OK)
            return 1;
    }
    rill_renderer_stats(run->r, &rs);
    if (!run->o.no_render)
        wait_ms = rs.cpu_wait_ms;
    uint64_t t1 = rill_time_ns();
    fr->main_ms = (double)(t1 - t0 - count_ns) / 1e6 - wait_ms;
    fr->main_cpu_ms = (double)(rill_cli_thread_cpu_ns() - cpu0 - count_cpu) / 1e6;
    /* Real time keeps pace with the simulated step, so workers (file reads, parses) take the time
     * they would in a game; a frame that runs long is not made up for. */
    if (t1 - t0 < (uint64_t)(FLY_DT * 1e9))
        rill_sleep_ns((uint64_t)(FLY_DT * 1e9) - (t1 - t0));
    /* Streaming work: the scene loader (instance loads, budgeted despawns), the streamers, and
     * the model trees spawned for what the loads brought in. */
    rill_scene_models_stats ms;
    rill_scene_models_get_stats(rill_app_models_scene(rill_content_models(run->content)), &ms);
    fr->stream_ms = (double)(rill_app_last_streaming_ns(app) + ms.last_spawn_ns) / 1e6;
    fr->entities = rill_world_entity_count(w);
    fr->triangles = fc.triangles;
    fr->triangles_full = fc.triangles_full;
    fr->texture_bytes = rs.texture_bytes;
    terrain_counters(run, fr);
    lod_counters(run, fr);
    double gpu_ms = 0.0;
    for (uint32_t i = 0; !run->o.no_render && i < rs.pass_count; i++)
        gpu_ms += rs.pass_gpu_ms[i];
    if (!run->o.no_render)
        fc.draws = rs.draw_calls;
    rill_stream_stats ss;
    rill_stream_get_stats(rill_app_stream(app), &ss);
    fr->loaded = ss.loaded, fr->loading = ss.loading, fr->unloading = ss.unloading;
    fr->loaded_set = loaded_set(run, app);
    fr->settled = !ss.loading && !ss.unloading && !ms.pending &&
                  !rill_scene_loader_retiring(rill_app_scenes(app));
    for (int tag = 0; tag < RILL_MEM_TAG_NUM; tag++)
        fr->live[tag] = rill_mem_live_bytes((rill_mem_tag)tag);
    rill_render_texture_streaming_stats tx;
    rill_render_assets_get_texture_streaming_stats(fly_assets(run), &tx);
    /* All-full: the textures that do not stream as they are, the streamed ones at full. */
    uint64_t streamed = RILL_MIN(tx.decisions.resident_bytes, fr->texture_bytes);
    fr->texture_bytes_full = fr->texture_bytes - streamed + tx.decisions.all_full_bytes;
    fr->texture_bytes_read = tx.bytes_read;
    fr->texture_swap_ms = (double)tx.swap_ns_last / 1e6;
    fr->texture_stream_ms = (double)tx.update_ns_last / 1e6;
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(fly_assets(run), &bs);
    fr->batch_build_ms = bs.build_ms_last_frame;
    fr->batch_cells_built = bs.cells_built_last_frame;
    fr->batch_cells_waiting = bs.cells_waiting;
    fr->batch_cells_building = bs.cells_building;
    fr->batch_meshes_built = bs.meshes_built_last_frame;
    fr->batched_entities = bs.batched_entities;
    fr->batch_taken_new = bs.taken_new_last_frame;
    fr->batch_deferred_new = bs.deferred_new_last_frame;
    jw jwr = {.f = run->jsonl};
    if (f < run->o.frames)
        write_frame_keys(&jwr, f, t, fr, gpu_ms, &ss, &fc, &tx, &rs, app);
    return run->win && rill_window_should_close(run->win) ? -1 : 0;
}

/* The frame the memory comparison starts from: the first settled one (nothing loading, unloading,
 * spawning model trees or despawning) with the same instances loaded as at the end, so both hold
 * the same content (an out-and-back path ends where it started); else the first settled one with
 * as many loaded, else the first with nothing loading or unloading and as many, else 0. *same
 * says whether the first rule found it. */
static uint64_t memory_start(const fly_frame *frames, uint64_t n, uint64_t end, bool *same) {
    const fly_frame *e = &frames[end];
    *same = true;
    for (uint64_t i = 1; i < n; i++)
        if (frames[i].settled && frames[i].loaded_set == e->loaded_set &&
            frames[i].loaded == e->loaded)
            return i;
    *same = false;
    for (uint64_t i = 1; i < n; i++)
        if (frames[i].settled && frames[i].loaded == e->loaded)
            return i;
    for (uint64_t i = 1; i < n; i++)
        if (!frames[i].loading && !frames[i].unloading && frames[i].loaded == e->loaded)
            return i;
    return 0;
}

/* Entities and CPU heap per allocation tag at the start frame and at the end: the last frame of
 * the path, or the settle frame after it (`end` >= n - 1) where streaming came to rest. */
static void write_memory(jw *w, const fly_frame *frames, uint64_t n, uint64_t end) {
    bool same = false;
    uint64_t at[2] = {n ? memory_start(frames, n, end, &same) : 0, end};
    jw_u64(w, "memory_same_instances", same);
    jw_u64(w, "memory_settle_frames", end + 1u > n ? end + 1u - n : 0);
    const char *names[2][4] = {
        {"memory_start_frame", "entities_start", "live_bytes_start", "live_bytes_by_tag_start"},
        {"memory_end_frame", "entities_end", "live_bytes_end", "live_bytes_by_tag_end"}};
    for (int k = 0; k < 2 && n; k++) {
        const fly_frame *fr = &frames[at[k]];
        uint64_t total = 0;
        uint32_t tags[RILL_MEM_TAG_NUM];
        for (int tag = 0; tag < RILL_MEM_TAG_NUM; tag++)
            total += fr->live[tag], tags[tag] = (uint32_t)RILL_MIN(fr->live[tag], UINT32_MAX);
        jw_u64(w, names[k][0], at[k]);
        jw_u64(w, names[k][1], fr->entities);
        jw_u64(w, names[k][2], total);
        jw_u32s(w, names[k][3], tags, RILL_MEM_TAG_NUM);
    }
}

/* The median, 99th percentile and maximum of the frames' main-thread times (wall or CPU). */
typedef struct fly_spread {
    double median, p99, max;
} fly_spread;

static fly_spread spread_of(const fly_frame *frames, uint64_t n, bool cpu) {
    fly_spread sp = {0, 0, 0};
    double *sorted = calloc(n ? n : 1, sizeof(double));
    if (!sorted || !n) {
        free(sorted);
        return sp;
    }
    for (uint64_t i = 0; i < n; i++)
        sorted[i] = cpu ? frames[i].main_cpu_ms : frames[i].main_ms;
    qsort(sorted, n, sizeof(double), cmp_double);
    sp = (fly_spread){sorted[(n - 1) / 2], sorted[(size_t)((double)(n - 1) * 0.99)], sorted[n - 1]};
    free(sorted);
    return sp;
}

static int fly_finish(fly_run *run, uint64_t n, uint64_t end) {
    rill_app *app = rill_content_app(run->content);
    rill_stream *s = rill_app_stream(app);
    uint32_t ni = rill_stream_instances(s, NULL, 0);
    rill_stream_instance_info *inst = calloc(ni ? ni : 1, sizeof *inst);
    ni = inst ? rill_stream_instances(s, inst, ni) : 0;
    fly_spread wall = spread_of(run->frames, n, false), cpu = spread_of(run->frames, n, true);
    double main_max = 0, stream_max = 0, tri = 0, tri_full = 0, swap_max = 0, tstream_max = 0;
    uint64_t ent_max = 0, tex_max = 0, tex_full_max = 0;
    for (uint64_t i = 0; i < n; i++) {
        const fly_frame *fr = &run->frames[i];
        main_max = RILL_MAX(main_max, fr->main_ms);
        stream_max = RILL_MAX(stream_max, fr->stream_ms);
        ent_max = RILL_MAX(ent_max, (uint64_t)fr->entities);
        tex_max = RILL_MAX(tex_max, fr->texture_bytes);
        tex_full_max = RILL_MAX(tex_full_max, fr->texture_bytes_full);
        swap_max = RILL_MAX(swap_max, fr->texture_swap_ms);
        tstream_max = RILL_MAX(tstream_max, fr->texture_stream_ms);
        tri += (double)fr->triangles, tri_full += (double)fr->triangles_full;
    }
    double p99 = wall.p99;
    sample_live(app, &run->live);
    uint64_t world = world_entities(app, inst, ni, &run->live);
    FILE *f = fopen(out_path(run, "summary.json"), "w");
    if (f) {
        jw w = {.f = f};
        jw_begin(&w);
        jw_u64(&w, "frames", n);
        jw_u64(&w, "workers", rill_jobs_worker_count(rill_app_jobs(app)));
        jw_u64(&w, "world_entities", world);
        jw_u64(&w, "entities_max", ent_max);
        jw_f64(&w, "main_ms_max", main_max);
        jw_f64(&w, "main_ms_p99", p99);
        jw_f64(&w, "main_ms_median", wall.median);
        jw_f64(&w, "main_cpu_ms_max", cpu.max);
        jw_f64(&w, "main_cpu_ms_p99", cpu.p99);
        jw_f64(&w, "main_cpu_ms_median", cpu.median);
        jw_f64(&w, "stream_ms_max", stream_max);
        jw_f64(&w, "triangles_mean", n ? tri / (double)n : 0.0);
        jw_f64(&w, "triangles_full_mean", n ? tri_full / (double)n : 0.0);
        rill_render_texture_streaming_stats tx;
        rill_render_assets_get_texture_streaming_stats(fly_assets(run), &tx);
        double secs = (double)n * FLY_DT;
        jw_u64(&w, "texture_bytes_max", tex_max);
        /* The most the GPU would have held with every streamed texture at full resolution. */
        jw_u64(&w, "texture_bytes_full", tex_full_max);
        jw_u64(&w, "texture_bytes_read", n ? run->frames[n - 1].texture_bytes_read : 0);
        jw_f64(&w, "texture_bytes_read_per_s",
               n ? (double)run->frames[n - 1].texture_bytes_read / secs : 0.0);
        jw_u64(&w, "texture_swaps", tx.swaps);
        jw_u64(&w, "texture_swaps_cancelled", tx.cancelled);
        jw_f64(&w, "texture_swap_ms_max", swap_max);
        jw_f64(&w, "texture_stream_ms_max", tstream_max);
        jw_u64(&w, "texture_full_landed", tx.full_landed);
        jw_f64(&w, "texture_full_latency_ms_max", tx.full_latency_ms_max);
        jw_f64(&w, "texture_full_latency_ms_mean", tx.full_latency_ms_mean);
        write_memory(&w, run->frames, n, end);
        jw_end(&w);
        fclose(f);
    }
    bool ok = f != NULL;
    ok = write_frametime(out_path(run, "frametime.png"), run->frames, n) && ok;
    float cam[3] = {0, 0, 0};
    if (n)
        memcpy(cam, run->frames[n - 1].cam, sizeof cam);
    ok = write_map(out_path(run, "map.png"), inst, ni, run->frames, n, cam,
                   rill_app_terrain_system(rill_content_terrain(run->content))) &&
         ok;
    printf("fly: %llu frames; main thread max %.2f ms, p99 %.2f ms; streaming max %.2f ms; "
           "entities max %llu of %llu; triangles mean %.0f (full detail %.0f); textures max "
           "%.1f MB (all full %.1f MB) -> %s\n",
           (unsigned long long)n, main_max, p99, stream_max, (unsigned long long)ent_max,
           (unsigned long long)world, n ? tri / (double)n : 0.0, n ? tri_full / (double)n : 0.0,
           (double)tex_max / 1e6, (double)tex_full_max / 1e6, run->o.out);
    free(inst);
    return ok ? 0 : 1;
}

/* The frame the memory comparison ends at: the path's last settled frame among its final
 * FLY_SETTLE_MAX (the camera is back near its start there), else the camera holds still at the
 * path's end until streaming has settled (at most FLY_SETTLE_MAX more frames, not written to
 * frames.jsonl); the last frame run when it never settles. */
static uint64_t fly_settle(fly_run *run, uint64_t n, rill_error *err, int *rc) {
    for (uint64_t i = n; i-- > 1u && i + FLY_SETTLE_MAX >= n;)
        if (run->frames[i].settled)
            return i;
    rill_entity cam = rill_app_streaming_camera(rill_content_app(run->content), NULL);
    uint64_t end = n - 1u;
    while (*rc == 0 && !run->frames[end].settled && end + 1u < n + FLY_SETTLE_MAX) {
        int fr = fly_frame_run(run, end + 1u, cam, err);
        if (fr < 0)
            break; /* the window closed */
        *rc = fr;
        end++;
    }
    return end;
}

int rill_cmd_fly(int argc, char **argv) {
    static fly_run run; /* large (keyframes); one fly per process */
    memset(&run, 0, sizeof run);
    int prc = parse(argc, argv, &run.o);
    if (prc)
        return prc < 0 ? 0 : prc;
    if (!make_dir(run.o.out)) {
        fprintf(stderr, "rill fly: cannot create %s: %s\n", run.o.out, strerror(errno));
        return 1;
    }
    rill_error err = {0};
    int rc = fly_setup(&run, &err);
    uint64_t n = 0;
    if (rc == 0) {
        rill_entity cam = rill_app_streaming_camera(rill_content_app(run.content), NULL);
        if (!cam) {
            rill_error_set(&err, RILL_ERR_NOT_FOUND, "the world has no active game camera");
            rc = 1;
        }
        /* What the content load settled in (instances within reach of the scene's camera) is
         * counted too: the path's first frame may unload it at once. */
        if (rc == 0)
            sample_live(rill_content_app(run.content), &run.live);
        for (; rc == 0 && n < run.o.frames; n++) {
            int fr = fly_frame_run(&run, n, cam, &err);
            if (n % 30u == 29u)
                sample_live(rill_content_app(run.content), &run.live);
            if (fr < 0) {
                n++;
                break;
            }
            rc = fr;
        }
    }
    uint64_t end = n ? n - 1u : 0;
    if (rc == 0 && n == run.o.frames)
        end = fly_settle(&run, n, &err, &rc);
    if (run.jsonl)
        fclose(run.jsonl);
    if (rc == 0)
        rc = fly_finish(&run, n, end);
    else
        fprintf(stderr, "rill fly: %s\n", err.msg);
    if (run.r)
        rill_renderer_wait_idle(run.r, NULL);
    rill_content_release(run.content);
    rill_renderer_destroy(run.r);
    rill_window_destroy(run.win);
    rill_content_destroy(run.content);
    free(run.frames);
    free(run.inst);
    rill_map_free(&run.live);
    return rc;
}
