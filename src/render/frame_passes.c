/* frame_passes.c: what the engine's passes record. Each pass gets, as its user pointer, the view
 * it draws (rill__view), the bloom level it works on (rill__bloom_step) or the frame
 * (rill__frame), and reaches its images through the graph handles (rill_rg_image) frame_graph.c
 * stored there when it built the graph. Raster passes of a view in a rectangle keep to it (shadow
 * maps do not). */
#include "frame.h"
#include "post_internal.h"

#include <string.h>

/* Binding i of a transient set: an image (all layers) read through sampler, or written as a
 * storage image when sampler is RILL__SAMPLER_NUM. */
static void bind_img(rill__binding *b, rill__img *img, rill__sampler_kind sampler) {
    b->img = img;
    b->layer = -1;
    if (sampler != RILL__SAMPLER_NUM) {
        b->sampler = sampler;
    }
}

#define STORE RILL__SAMPLER_NUM

/* Binds set 0 of the 3D passes: frame constants and instances (and for full: lights, shadow map,
 * light clusters, ambient occlusion (white without SSAO), the image-based light, the
 * reflection probes, the decals, the opaque image transmissive surfaces see, the decal atlas, the
 * cloud shadow map and the atlas again through its sRGB view). */
static void bind_frame_set_with(const rill_renderer *r, const rill__view *vs, rill__cmd *cmd,
                                bool full, rill__img *shadow, rill__img *ao, rill__img *decal,
                                rill__img *scene, rill__buf *instances) {
    /* + the cloud shadow map, then the transparent surfaces' decals, then the atlas's sRGB view */
    rill__binding b[19 + RILL__DECAL_BINDINGS + 1];
    memset(b, 0, sizeof(b));
    b[0].buf = vs->frame_buf;
    b[0].offset = vs->frame_off;
    b[0].range = sizeof(rill__gpu_frame);
    b[1].buf = instances ? instances : vs->inst_buf;
    b[1].offset = instances ? 0 : vs->inst_off;
    b[1].range = instances ? 0 : vs->inst_size;
    b[2].buf = vs->light_buf;
    b[2].offset = vs->light_off;
    b[2].range = vs->light_size;
    bind_img(&b[3], shadow, RILL__SAMPLER_SHADOW);
    b[4].buf = vs->cluster_buf;
    b[4].offset = vs->cluster_off;
    b[4].range = vs->cluster_size;
    b[5].buf = vs->cluster_idx_buf;
    b[5].offset = vs->cluster_idx_off;
    b[5].range = vs->cluster_idx_size;
    bind_img(&b[6], ao ? ao : r->white, RILL__SAMPLER_NEAREST_CLAMP);
    if (full) {
        rill__ibl_bindings(r, &b[7]);
        rill__probes_bindings(r, &b[10]);
        /* the decal pass's layers at 15, the decal atlas after the transmission image */
        bind_img(&b[15], decal ? decal : rill__post_no_decal(r), RILL__SAMPLER_NEAREST_CLAMP);
        bind_img(&b[16], scene ? scene : r->white, RILL__SAMPLER_LINEAR_CLAMP);
        bind_img(&b[17], rill__post_decal_view_atlas(r, vs->index), RILL__SAMPLER_LINEAR_CLAMP);
        bind_img(&b[18], rill__clouds_shadow_img(r), RILL__SAMPLER_LINEAR_CLAMP);
        rill__post_decal_bindings(r, vs->index, &b[19]);
        b[21] = b[17], b[21].srgb = true;
    }
    rill__cmd_bind_transient_set(cmd, 0, b, full ? (uint32_t)RILL_COUNTOF(b) : 2);
}

/* bind_frame_set_with the view's instance buffer (the CPU path's draw lists). */
static void bind_frame_set(const rill_renderer *r, const rill__view *vs, rill__cmd *cmd, bool full,
                           rill__img *shadow, rill__img *ao, rill__img *decal, rill__img *scene) {
    bind_frame_set_with(r, vs, cmd, full, shadow, ao, decal, scene, NULL);
}

/* Length of the run of items equal in key to items[i], in a list sorted by key. Every batched
 * list's key says exactly what batches (opaque: mirrored, double-sided, material, mesh;
 * alpha-masked casters: material, mesh; plain casters and wireframes: mesh; pool slots of live
 * handles are unique within a frame), so runs are found on the sorted keys by galloping and then
 * bisecting instead of visiting every instance: the cost is per draw, not per instance. */
static uint32_t key_run(const draw_item *items, uint32_t i, uint32_t n) {
    uint64_t key = items[i].key;
    /* Equal keys are contiguous: items[k].key == key holds for k in [i, end) and fails after.
     * Invariant: it holds at lo - 1, and fails at hi unless hi == n. */
    uint32_t lo = i + 1, hi = n, step = 1;
    while (lo < hi) {
        uint32_t probe = step - 1 < hi - lo ? lo + step - 1 : hi - 1;
        if (items[probe].key != key) {
            hi = probe;
            break;
        }
        lo = probe + 1;
        step *= 2;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (items[mid].key == key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo - i;
}

/* How draw_list binds: pipes[double_sided] with set 0 (full or not, with the shadow map and ambient
 * occlusion) and the push constants; pipes NULL keeps the bound pipeline and binds no materials
 * (shadows, wireframes). */
typedef struct draw_binding {
    rill__pipe *const *pipes;
    bool full_set;
    rill__img *shadow, *ao;
    const void *push;
    uint32_t push_size;
    bool edges; /* draw the meshes' edge buffers (line lists) instead of their triangles */
    /* The pipes take their front face per draw (P_FRONT_FACE): clockwise for mirrored instances.
     * A list drawn this way keeps mirrored and unmirrored instances in separate runs (the opaque
     * key; the transparent list draws one by one). */
    bool mirrors;
    /* When set: the pipes ghost instances draw with instead of pipes (mixed passthrough's
     * transparent pass: their colour without alpha). */
    rill__pipe *const *ghost_pipes;
    /* ForwardDecal albedo, normal and roughness with their coverage, one layer each
     * (post_decal.c); NULL: none */
    rill__img *decal;
    rill__img *scene; /* transmission.c's opaque image, NULL: none (white bound) */
} draw_binding;

/* One VkDrawIndexedIndirectCommand. */
typedef struct indirect_cmd {
    uint32_t index_count, instance_count, first_index;
    int32_t vertex_offset;
    uint32_t first_instance;
} indirect_cmd;

/* Items i.. that can share one indirect draw with item i: meshes in the same shared block (same
 * buffers) and, when materials are bound, the same material; with same_winding, instances that
 * all mirror or all do not (one front face). Returns the end of the span. */
static uint32_t block_span(const rill_renderer *r, const rill__view *vs, const draw_item *items,
                           uint32_t i, uint32_t n, bool same_material, bool same_winding) {
    const rill_render_instance *inst = vs->snap->instances;
    const rill_render_instance *a = &inst[items[i].inst];
    uint32_t block = rill__mesh_get(r, a->mesh)->block, j = i + 1;
    bool mirrored = same_winding && rill__instance_mirrored(a->transform);
    while (j < n) {
        const rill_render_instance *b = &inst[items[j].inst];
        const mesh_slot *bm = rill__mesh_get(r, b->mesh);
        if (!bm || bm->block != block || (same_material && b->material.id != a->material.id) ||
            (same_winding && rill__instance_mirrored(b->transform) != mirrored)) {
            break;
        }
        j++;
    }
    return j;
}

/* The next span of a ranged item's ranges rg[*k..n): ranges that touch (one ends where the next
 * begins) joined, empty ones passed over; triangle indices or, with edges, edge indices. False
 * when none is left. */
static bool next_span(const rill_render_range *rg, uint32_t n, uint32_t *k, bool edges,
                      uint32_t *first, uint32_t *count) {
    *count = 0;
    for (; *k < n; (*k)++) {
        uint32_t f = edges ? rg[*k].first_edge : rg[*k].first_index;
        uint32_t c = edges ? rg[*k].edge_count : rg[*k].index_count;
        if (c && *count && f != *first + *count) {
            break;
        }
        if (c && !*count) {
            *first = f;
        }
        *count += c;
    }
    return *count != 0;
}

/* How many indirect commands items[i..end) need: one per run of equal keys (batch) or item, and
 * for a ranged item one per range at most. */
static uint32_t indirect_count(const draw_item *items, uint32_t i, uint32_t end, bool batch) {
    uint32_t count = 0;
    for (uint32_t k = i; k < end;) {
        uint32_t run = batch && !items[k].range_n ? key_run(items, k, end) : 1;
        count += items[k].range_n ? items[k].range_n : 1u;
        k += run;
    }
    return count;
}

/* Draws items[i..end) (meshes of one shared block, or one ranged item) as one indirect draw: one
 * command per run of equal keys (instanced), per span of a ranged item's ranges; with edges, of
 * their edge indices (a block's meshes keep them after their triangles in the block's index
 * buffer). False when the frame has no room for the commands. */
static bool draw_indirect(rill_rg_ctx *ctx, const rill__view *vs, const draw_item *items,
                          uint32_t i, uint32_t end, uint32_t first, bool batch, bool edges) {
    rill_renderer *r = ctx->r;
    const rill_render_instance *inst = vs->snap->instances;
    uint32_t count = indirect_count(items, i, end, batch);
    rill__buf *buf = NULL;
    uint64_t off = 0;
    indirect_cmd *c =
        rill__frame_alloc(ctx->cmd, (uint64_t)count * sizeof(indirect_cmd), 16, &buf, &off);
    if (!c) {
        return false;
    }
    uint32_t at = 0;
    for (uint32_t k = i; k < end;) {
        const draw_item *it = &items[k];
        uint32_t run = batch && !it->range_n ? key_run(items, k, end) : 1;
        const mesh_slot *ms = rill__mesh_get(r, inst[it->inst].mesh);
        if (it->range_n) {
            const rill_render_range *rg = vs->snap->ranges + it->range;
            uint32_t q = 0, sf = 0, sn = 0;
            while (next_span(rg, it->range_n, &q, edges, &sf, &sn)) {
                c[at++] = (indirect_cmd){sn, 1, (edges ? ms->first_edge : ms->first_index) + sf,
                                         ms->vertex_offset, first + k};
                r->triangles += edges ? 0u : sn / 3u;
            }
        } else if (edges) {
            c[at++] = (indirect_cmd){ms->edge_index_count, run, ms->first_edge, ms->vertex_offset,
                                     first + k};
        } else {
            c[at++] =
                (indirect_cmd){ms->index_count, run, ms->first_index, ms->vertex_offset, first + k};
            r->triangles += (uint64_t)(ms->index_count / 3u) * run;
        }
        k += run;
    }
    if (at) {
        rill__cmd_draw_indexed_indirect(ctx->cmd, buf, off, at);
        r->draw_calls++;
    }
    return true;
}

/* A ranged item without indirect drawing (or its edges): one draw per span of its ranges. */
static void draw_ranges(rill_renderer *r, rill__cmd *cmd, const rill__view *vs, const mesh_slot *ms,
                        const draw_item *it, uint32_t first_instance, bool edges) {
    const rill_render_range *rg = vs->snap->ranges + it->range;
    uint32_t q = 0, sf = 0, sn = 0;
    while (next_span(rg, it->range_n, &q, edges, &sf, &sn)) {
        /* Edges index the mesh's own vertices: only the vertex offset applies. */
        rill__cmd_draw_indexed_at(cmd, sn, 1, (edges ? ms->first_edge : ms->first_index) + sf,
                                  ms->vertex_offset, first_instance);
        r->draw_calls++;
        r->triangles += edges ? 0u : sn / 3u;
    }
}

/* Sets the front face for instance a's run when it is not the one set (front: -1 none, 1
 * clockwise, 0 counter-clockwise); returns the one now set. */
static int set_front_face(rill__cmd *cmd, int front, const rill_render_instance *a) {
    int cw = rill__instance_mirrored(a->transform) ? 1 : 0;
    if (cw != front) {
        rill__cmd_front_face(cmd, cw == 1);
    }
    return cw;
}

/* Draws items[0..n) whose instance data starts at `first` in the view's instance buffer. With
 * batch, neighbours with the same key (mesh and material) become one instanced draw. Meshes in a
 * shared block (static batches) that follow each other with one material (any material for
 * edges), and the ranges of a ranged instance, draw as one indirect draw where the device has
 * multi-draw indirect, triangles and edges alike. */
static void draw_list(rill_rg_ctx *ctx, const rill__view *vs, const draw_item *items, uint32_t n,
                      uint32_t first, const draw_binding *db, bool batch) {
    rill_renderer *r = ctx->r;
    rill__cmd *cmd = ctx->cmd;
    const rill_render_instance *inst = vs->snap->instances;
    rill__pipe *bound = NULL;
    const rill__buf *cur_vb = NULL, *cur_ib = NULL, *cur_xb = NULL;
    uint32_t cur_mat = 0;
    int front = -1; /* the front face set since the pipeline was bound (1: clockwise), -1 none */
    bool mdi = rill__gpu_get_caps(r->gpu)->multi_draw_indirect;
    for (uint32_t i = 0; i < n;) {
        const rill_render_instance *a = &inst[items[i].inst];
        const mesh_slot *ms = rill__mesh_get(r, a->mesh);
        const mat_slot *mt = rill__material_get(r, a->material);
        bool ranged = items[i].range_n != 0;
        uint32_t run = batch && !ranged ? key_run(items, i, n) : 1;
        if (db && db->pipes) {
            bool ghost = db->ghost_pipes && a->mode == RILL_RENDER_MODE_GHOST;
            rill__pipe *p = (ghost ? db->ghost_pipes : db->pipes)[mt->double_sided ? 1 : 0];
            if (p != bound) {
                rill__cmd_bind_pipe(cmd, p);
                bind_frame_set(r, vs, cmd, db->full_set, db->shadow, db->ao, db->decal, db->scene);
                if (db->push_size) {
                    rill__cmd_push(cmd, db->push, db->push_size);
                }
                bound = p;
                cur_mat = 0;
                front = -1;
            }
            if (a->material.id != cur_mat) {
                rill__cmd_bind_set(cmd, 1, mt->set);
                cur_mat = a->material.id;
            }
            if (db->mirrors) {
                front = set_front_face(cmd, front, a);
            }
        }
        bool edges = db && db->edges;
        rill__buf *ib = edges ? rill__mesh_edges(ms) : ms->ib;
        rill__buf *xb = rill__mesh_extras(r, ms);
        if (ms->vb != cur_vb || ib != cur_ib || xb != cur_xb) {
            rill__cmd_bind_mesh_extras(cmd, ms->vb, xb ? xb : r->default_extras,
                                       xb ? (uint32_t)sizeof(rill__vertex_extra) : 0u, ib);
            cur_vb = ms->vb;
            cur_ib = ib;
            cur_xb = xb;
        }
        /* a mesh with its own edge buffer draws its edges alone */
        bool in_block = ms->block && !(edges && ms->eb);
        if ((in_block || ranged) && mdi) {
            bool bound_mat = db && db->pipes, winding = bound_mat && db->mirrors;
            uint32_t end = in_block ? block_span(r, vs, items, i, n, bound_mat, winding) : i + 1;
            if ((end > i + run || ranged) &&
                draw_indirect(ctx, vs, items, i, end, first, batch, edges)) {
                i = end;
                continue;
            }
        }
        if (ranged) {
            draw_ranges(r, cmd, vs, ms, &items[i], first + i, edges);
            i++;
            continue;
        }
        /* Edges index the mesh's own vertices: only the vertex offset applies. */
        rill__cmd_draw_indexed_at(cmd, edges ? ms->edge_index_count : ms->index_count, run,
                                  edges ? ms->first_edge : ms->first_index, ms->vertex_offset,
                                  first + i);
        r->draw_calls++;
        r->triangles += edges ? 0u : (uint64_t)(ms->index_count / 3u) * run;
        i += run;
    }
}

/* Which of GPU culling's runs draw_gpu draws: all, the solid ones (no mask, no crossfade), those
 * that cut, or the solid ones across materials (through pipelines that read no material). */
typedef enum gpu_runs { GPU_RUNS_ALL, GPU_RUNS_SOLID, GPU_RUNS_CUTS, GPU_RUNS_SHAPES } gpu_runs;

/* Draws GPU culling's list `list` (0: the view, 1 + c: cascade c; gpu_cull.c), the runs `which`
 * selects: one indirect draw per run of commands. With db->pipes, through those pipelines with
 * their materials (runs of one kind, pipeline, material and buffers; the front face per run where
 * db->mirrors; GPU_RUNS_SHAPES: runs across materials, none bound), else through `pipe` with push
 * (plain shadow casters: runs of one pair of buffers). */
static void draw_gpu(rill_rg_ctx *ctx, const rill__view *vs, uint32_t list, const draw_binding *db,
                     rill__pipe *pipe, const void *push, uint32_t push_size, gpu_runs which) {
    rill_renderer *r = ctx->r;
    rill__cmd *cmd = ctx->cmd;
    rill__gpu_cull_draw d;
    if (!rill__gpu_cull_draws(r, vs, &d) || list >= d.lists) {
        return;
    }
    bool pipes = db && db->pipes, mats = pipes && which != GPU_RUNS_SHAPES;
    const rill__gpu_cull_run *runs = !pipes ? d.runs_geo : mats ? d.runs_mat : d.runs_shape;
    uint32_t nruns = !pipes ? d.nruns_geo : mats ? d.nruns_mat : d.nruns_shape;
    /* the kind of runs (geo, shape, mat) and the draw count slot of its first run */
    uint32_t kind = !pipes ? 0u : mats ? 2u : 1u;
    uint32_t slot0 =
        list * d.nruns + (kind > 0 ? d.nruns_geo : 0u) + (kind > 1 ? d.nruns_shape : 0u);
    rill__pipe *bound = NULL;
    const rill__buf *cur_vb = NULL, *cur_ib = NULL, *cur_xb = NULL;
    uint32_t cur_mat = 0;
    int front = -1; /* the front face set since the pipeline was bound (1: clockwise) */
    for (uint32_t k = 0; k < nruns; k++) {
        const rill__gpu_cull_run *run = &runs[k];
        const mat_slot *mt = mats ? rill__material_get(r, run->mat) : NULL;
        if ((mats && !mt) || (which != GPU_RUNS_ALL && which != GPU_RUNS_CUTS && run->cuts) ||
            (which == GPU_RUNS_CUTS && !run->cuts)) {
            continue;
        }
        rill__pipe *p = pipes ? db->pipes[run->double_sided ? 1 : 0] : pipe;
        if (p != bound) {
            rill__cmd_bind_pipe(cmd, p);
            if (pipes) {
                bind_frame_set_with(r, vs, cmd, db->full_set, db->shadow, db->ao, db->decal,
                                    db->scene, d.instances);
                if (db->push_size) {
                    rill__cmd_push(cmd, db->push, db->push_size);
                }
            } else {
                bind_frame_set_with(r, vs, cmd, false, NULL, NULL, NULL, NULL, d.instances);
                rill__cmd_push(cmd, push, push_size);
            }
            bound = p;
            cur_mat = 0;
            front = -1;
        }
        if (pipes && db->mirrors && front != (int)run->mirrored) {
            rill__cmd_front_face(cmd, run->mirrored);
            front = run->mirrored;
        }
        if (mats && run->mat.id != cur_mat) {
            rill__cmd_bind_set(cmd, 1, mt->set);
            cur_mat = run->mat.id;
        }
        if (run->vb != cur_vb || run->ib != cur_ib || run->xb != cur_xb) {
            rill__cmd_bind_mesh_extras(cmd, run->vb, run->xb ? run->xb : r->default_extras,
                                       run->xb ? (uint32_t)sizeof(rill__vertex_extra) : 0u,
                                       run->ib);
            cur_vb = run->vb;
            cur_ib = run->ib;
            cur_xb = run->xb;
        }
        if (d.compact) { /* only the commands with instances, as many as the GPU counted */
            uint64_t at = (((uint64_t)kind * d.lists + list) * d.ncmds + run->first) * 20u;
            rill__cmd_draw_indexed_indirect_count(cmd, d.compact, at, d.draw_counts,
                                                  (uint64_t)(slot0 + k) * 4u, run->count);
        } else {
            uint64_t at = ((uint64_t)list * d.ncmds + run->first) * 20u;
            rill__cmd_draw_indexed_indirect(cmd, d.cmds, at, run->count);
        }
        r->draw_calls++;
    }
}

/* Starts and ends a raster pass over the view's depth image (every view has its own images). */
static void view_begin(rill_rg_ctx *ctx, const rill__view *vs, const rill__attachment *col,
                       uint32_t ncol, const rill__attachment *depth) {
    (void)vs;
    const rill__img_desc *dd = rill__img_get_desc(depth->img);
    rill__cmd_begin_rendering(ctx->cmd, col, ncol, depth, dd->width, dd->height);
}

static void view_end(rill_rg_ctx *ctx, const rill__view *vs) {
    (void)vs;
    rill__cmd_end_rendering(ctx->cmd);
}

/* Draws ghosts[from, to) in runs of one opacity, each with the opacity pushed (vec4, x): with
 * db NULL through the bound pipeline (batched: the opaque ghosts' keys hold their mesh), else
 * one by one through db's pipes, which push db->push when bound. Counts the draws as ghost alpha
 * draws. */
static void ghost_runs(rill_rg_ctx *ctx, const rill__view *vs, uint32_t from, uint32_t to,
                       draw_binding *db) {
    rill_renderer *r = ctx->r;
    uint32_t first = vs->opaque.len + vs->transparent.len + vs->casters.len + vs->wires.len;
    const draw_item *g = vs->ghosts.data;
    const rill_render_instance *inst = vs->snap->instances;
    uint32_t before = r->draw_calls;
    for (uint32_t i = from; i < to;) {
        /* The sort packs keys (order and equality kept, values not), so the opacity is read
         * from the instance; the list is sorted by it, so equal opacities are adjacent. */
        uint32_t q = rill__ghost_opacity_q(&inst[g[i].inst]);
        uint32_t end = i + 1;
        while (end < to && rill__ghost_opacity_q(&inst[g[end].inst]) == q) {
            end++;
        }
        float push[4] = {(float)q / 65535.0f, 0, 0, 0};
        if (db) {
            db->push = push;
            draw_list(ctx, vs, g + i, end - i, first + i, db, false);
        } else {
            rill__cmd_push(ctx->cmd, push, sizeof(push));
            draw_list(ctx, vs, g + i, end - i, first + i, NULL, true);
        }
        i = end;
    }
    r->ghost_alpha_draws += r->draw_calls - before;
}

/* Mixed passthrough, inside the opaque pass: the opaque ghost instances again, depth tested EQUAL
 * (the same vertex shader gives the same depth) with alpha-only writes, so the visible pixels of
 * each ghost get its opacity as alpha and their colour stays lit. */
static void ghost_alpha(rill_rg_ctx *ctx, const rill__view *vs, rill__pipe *pipe) {
    rill_renderer *r = ctx->r;
    if (!vs->ghosts_opaque || !pipe) {
        return;
    }
    rill__cmd_bind_pipe(ctx->cmd, pipe);
    bind_frame_set(r, vs, ctx->cmd, false, NULL, NULL, NULL, NULL);
    ghost_runs(ctx, vs, 0, vs->ghosts_opaque, NULL);
}

/* Mixed passthrough, after the transparent draws: the blended ghost instances (whose colour the
 * transparent pass drew without alpha) again with alpha-only writes blended over the pixel, each
 * covering it by opacity x material alpha, as its own faces do (same culling, same depth test). */
static void ghost_blend_alpha(rill_rg_ctx *ctx, const rill__view *vs) {
    if (vs->ghosts_opaque == vs->ghosts.len) {
        return;
    }
    draw_binding db = {
        .pipes = &ctx->r->pipes[RILL__PIPE_GHOST_BLEND_ALPHA], .push_size = 16, .mirrors = true};
    ghost_runs(ctx, vs, vs->ghosts_opaque, vs->ghosts.len, &db);
}

/* >>view passes ----------------------------------------------------------------------------- */

void rill__pass_shadows(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill_renderer *r = ctx->r;
    rill__img *map = rill__ctx_img(ctx, vs->res.shadow_map);
    const rill__img_desc *d = rill__img_get_desc(map);
    uint32_t first = vs->opaque.len + vs->transparent.len;
    uint32_t plain = vs->casters_plain, ncast = vs->casters.len;
    for (uint32_t c = 0; c < d->layers; c++) {
        rill__attachment depth = {
            .img = map, .layer = (int32_t)c, .clear = true, .clear_color = {1.0f, 0, 0, 0}};
        rill__cmd_begin_rendering(ctx->cmd, NULL, 0, &depth, d->width, d->height);
        if (c < vs->cascades && ncast) {
            rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SHADOW]);
            bind_frame_set(r, vs, ctx->cmd, false, NULL, NULL, NULL, NULL);
            uint32_t push[4] = {c, 0, 0, 0};
            rill__cmd_push(ctx->cmd, push, sizeof(push));
            rill__cmd_depth_bias(ctx->cmd, 1.25f, 1.75f);
            /* Opaque casters first (sorted ahead), then alpha-masked ones with their material. */
            draw_list(ctx, vs, vs->casters.data, plain, first, NULL, true);
            if (plain < ncast) {
                rill__pipe *mask[2] = {r->pipes[RILL__PIPE_SHADOW_MASK],
                                       r->pipes[RILL__PIPE_SHADOW_MASK]};
                draw_binding db = {.pipes = mask, .push = push, .push_size = sizeof(push)};
                draw_list(ctx, vs, vs->casters.data + plain, ncast - plain, first + plain, &db,
                          true);
            }
        }
        if (c < vs->cascades) {
            /* GPU culling's casters of this cascade: plain ones, then those that cut. */
            uint32_t push[4] = {c, 0, 0, 0};
            rill__cmd_depth_bias(ctx->cmd, 1.25f, 1.75f);
            draw_gpu(ctx, vs, 1u + c, NULL, r->pipes[RILL__PIPE_SHADOW], push, sizeof(push),
                     GPU_RUNS_SOLID);
            rill__pipe *mask[2] = {r->pipes[RILL__PIPE_SHADOW_MASK],
                                   r->pipes[RILL__PIPE_SHADOW_MASK]};
            draw_binding db = {.pipes = mask, .push = push, .push_size = sizeof(push)};
            draw_gpu(ctx, vs, 1u + c, &db, NULL, NULL, 0, GPU_RUNS_CUTS);
        }
        rill__cmd_end_rendering(ctx->cmd);
    }
}

/* GPU culling's list `list` (0: the view, or occlusion's phase 2) in the prepass, through pipes
 * with solid_pipe for the runs that never cut (the solid pipeline reads no material unless it
 * packs it: runs across materials). */
static void prepass_gpu(rill_rg_ctx *ctx, const rill__view *vs, rill__pipe *const *pipes,
                        rill__pipe_id solid_pipe, uint32_t list) {
    draw_binding db = {.pipes = &pipes[solid_pipe], .mirrors = true};
    draw_gpu(ctx, vs, list, &db, NULL, NULL, 0,
             solid_pipe == RILL__PIPE_PREPASS_PACK ? GPU_RUNS_SOLID : GPU_RUNS_SHAPES);
    db.pipes = &pipes[RILL__PIPE_PREPASS];
    draw_gpu(ctx, vs, list, &db, NULL, NULL, 0, GPU_RUNS_CUTS);
}

/* The prepass's draws through pipes (r->pipes, or the view's multisampled ones) with solid_pipe
 * for the surfaces that never cut. */
static void prepass_draws(rill_rg_ctx *ctx, const rill__view *vs, rill__pipe *const *pipes,
                          rill__pipe_id solid_pipe) {
    /* Solid surfaces first (sorted ahead) with a shader that never discards, so depth is tested
     * before shading; then those that cut (alpha mask, LOD crossfade dither). */
    uint32_t solid = vs->opaque_solid, n = vs->opaque.len;
    draw_binding db = {.pipes = &pipes[solid_pipe], .mirrors = true};
    draw_list(ctx, vs, vs->opaque.data, solid, 0, &db, true);
    db.pipes = &pipes[RILL__PIPE_PREPASS];
    draw_list(ctx, vs, vs->opaque.data + solid, n - solid, solid, &db, true);
    prepass_gpu(ctx, vs, pipes, solid_pipe, 0);
}

/* Occlusion's phase 2 (gpu_occlusion.c), after phase 1's draws: the depth pyramid and the test,
 * then the instances it found visible drawn over what the prepass drew (col and depth loaded). */
static void prepass_late(rill_rg_ctx *ctx, const rill__view *vs, rill__attachment col[2],
                         rill__attachment *depth, rill__pipe_id solid_pipe) {
    rill__gpu_cull_draw d;
    if (!rill__gpu_cull_draws(ctx->r, vs, &d) || !d.late ||
        !rill__gpu_cull_occlusion(ctx->r, ctx->cmd, vs, depth->img)) {
        return;
    }
    /* Phase 1's colour writes come before phase 2's (a render pass apart). */
    rill_rg_barrier b[2] = {{0, true, RILL_RG_USAGE_COLOR_WRITE, RILL_RG_USAGE_COLOR_WRITE},
                            {0, true, RILL_RG_USAGE_COLOR_WRITE, RILL_RG_USAGE_COLOR_WRITE}};
    rill__img *imgs[2] = {col[0].img, col[1].img};
    rill__cmd_barriers(ctx->cmd, b, 2, imgs, NULL);
    col[0].clear = col[1].clear = depth->clear = false;
    view_begin(ctx, vs, col, 2, depth);
    prepass_gpu(ctx, vs, ctx->r->pipes, solid_pipe, d.late);
    view_end(ctx, vs);
}

void rill__pass_prepass(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__attachment col[2] = {
        {.img = rill__ctx_img(ctx, vs->res.normal), .layer = -1, .clear = true},
        {.img = rill__ctx_img(ctx, vs->res.motion), .layer = -1, .clear = true}};
    rill__attachment depth = {.img = rill__ctx_img(ctx, vs->res.depth),
                              .layer = -1,
                              .clear = true,
                              .clear_color = {1.0f, 0, 0, 0}};
    rill__pipe_id solid =
        vs->fx.material_in_normal ? RILL__PIPE_PREPASS_PACK : RILL__PIPE_PREPASS_SOLID;
    view_begin(ctx, vs, col, 2, &depth);
    prepass_draws(ctx, vs, ctx->r->pipes, solid);
    view_end(ctx, vs);
    prepass_late(ctx, vs, col, &depth, solid);
}

/* With MSAA: the same surfaces into the multisampled depth alone, which the opaque pass tests. */
void rill__pass_prepass_msaa(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__attachment depth = {.img = rill__ctx_img(ctx, vs->res.depth_ms),
                              .layer = -1,
                              .clear = true,
                              .clear_color = {1.0f, 0, 0, 0}};
    view_begin(ctx, vs, NULL, 0, &depth);
    prepass_draws(ctx, vs, rill__msaa_pipes(ctx->r, vs), RILL__PIPE_PREPASS_SOLID);
    view_end(ctx, vs);
}

void rill__pass_opaque(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    const float *cc = vs->view->clear_color;
    /* Mixed passthrough: where nothing draws, alpha 0 lets the camera feed show. */
    float clear_a = vs->passthrough ? 0.0f : 1.0f;
    /* With MSAA: the multisampled images (msaa_resolve then writes hdr). */
    bool ms = vs->res.hdr_ms.id != 0;
    rill__pipe *const *pipes = rill__msaa_pipes(ctx->r, vs);
    rill__attachment col = {.img = rill__ctx_img(ctx, ms ? vs->res.hdr_ms : vs->res.hdr),
                            .layer = -1,
                            .clear = true,
                            .clear_color = {cc[0], cc[1], cc[2], clear_a}};
    rill__attachment depth = {.img = rill__ctx_img(ctx, ms ? vs->res.depth_ms : vs->res.depth),
                              .layer = -1,
                              .read_only = true,
                              .clear_color = {1.0f, 0, 0, 0}};
    view_begin(ctx, vs, &col, 1, &depth);
    draw_binding db = {.pipes = &pipes[RILL__PIPE_OPAQUE],
                       .full_set = true,
                       .shadow = rill__ctx_img(ctx, vs->res.shadow_map),
                       .ao = rill__ctx_img(ctx, vs->res.ao),
                       .mirrors = true};
    db.decal = vs->res.decal.id ? rill__ctx_img(ctx, vs->res.decal) : NULL;
    draw_list(ctx, vs, vs->opaque.data, vs->opaque.len, 0, &db, true);
    draw_gpu(ctx, vs, 0, &db, NULL, NULL, 0, GPU_RUNS_ALL);
    rill__gpu_cull_draw d; /* and occlusion's phase 2 (gpu_occlusion.c) */
    if (rill__gpu_cull_draws(ctx->r, vs, &d) && d.late) {
        draw_gpu(ctx, vs, d.late, &db, NULL, NULL, 0, GPU_RUNS_ALL);
    }
    ghost_alpha(ctx, vs, pipes[RILL__PIPE_GHOST_ALPHA]);
    view_end(ctx, vs);
}

/* With OIT: the transparent surfaces appended to the pixels' layers (oit.c), in any order. */
static void transparent_oit(rill_rg_ctx *ctx, const rill__view *vs) {
    rill__attachment depth = {.img = rill__ctx_img(ctx, vs->res.depth),
                              .layer = -1,
                              .read_only = true,
                              .clear_color = {1.0f, 0, 0, 0}};
    view_begin(ctx, vs, NULL, 0, &depth);
    rill__pipe *const *pipes = rill__oit_begin_draws(ctx, vs);
    draw_binding db = {.pipes = pipes,
                       .full_set = true,
                       .shadow = rill__ctx_img(ctx, vs->res.shadow_map),
                       .ao = rill__ctx_img(ctx, vs->res.ao),
                       .mirrors = true};
    db.scene = rill__transmission_img(ctx, vs);
    draw_list(ctx, vs, vs->transparent.data, vs->transparent.len, vs->opaque.len, &db, false);
    view_end(ctx, vs);
}

void rill__pass_transparent(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    if (vs->oit_layers) {
        transparent_oit(ctx, vs);
        return;
    }
    rill__attachment col = {.img = rill__ctx_img(ctx, vs->res.hdr), .layer = -1};
    rill__attachment depth = {.img = rill__ctx_img(ctx, vs->res.depth),
                              .layer = -1,
                              .read_only = true,
                              .clear_color = {1.0f, 0, 0, 0}};
    view_begin(ctx, vs, &col, 1, &depth);
    draw_binding db = {.pipes = &ctx->r->pipes[RILL__PIPE_TRANSPARENT],
                       .full_set = true,
                       .shadow = rill__ctx_img(ctx, vs->res.shadow_map),
                       .ao = rill__ctx_img(ctx, vs->res.ao),
                       .mirrors = true};
    if (vs->passthrough) {
        db.ghost_pipes = &ctx->r->pipes[RILL__PIPE_TRANSPARENT_RGB];
    }
    db.scene = rill__transmission_img(ctx, vs);
    draw_list(ctx, vs, vs->transparent.data, vs->transparent.len, vs->opaque.len, &db, false);
    ghost_blend_alpha(ctx, vs);
    view_end(ctx, vs);
}

/* The wireframe pass: meshes with an edge buffer draw it as a line list (wires[0, wires_edges),
 * sorted first), the others polygon-mode lines over their triangles where the device has line
 * fill; both with the same colour and distance fade. */
void rill__pass_wireframe(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill_renderer *r = ctx->r;
    rill__attachment col = {.img = rill__ctx_img(ctx, vs->res.hdr), .layer = -1};
    rill__attachment depth = {.img = rill__ctx_img(ctx, vs->res.depth),
                              .layer = -1,
                              .read_only = true,
                              .clear_color = {1.0f, 0, 0, 0}};
    view_begin(ctx, vs, &col, 1, &depth);
    float push[8];
    memcpy(push, vs->wire_color, sizeof(float) * 4);
    memcpy(push + 4, vs->wire_fade, sizeof(float) * 4);
    uint32_t first = vs->opaque.len + vs->transparent.len + vs->casters.len;
    uint32_t ne = vs->wires_edges, nw = vs->wires.len;
    rill__pipe *kinds[2] = {r->pipes[RILL__PIPE_WIRE_EDGES], r->pipes[RILL__PIPE_WIRE]};
    uint32_t from[2] = {0, ne}, to[2] = {ne, nw};
    for (int k = 0; k < 2; k++) {
        if (from[k] == to[k] || !kinds[k]) {
            continue;
        }
        rill__cmd_bind_pipe(ctx->cmd, kinds[k]);
        bind_frame_set(r, vs, ctx->cmd, false, NULL, NULL, NULL, NULL);
        rill__cmd_push(ctx->cmd, push, sizeof(push));
        draw_binding db = {.edges = k == 0};
        uint32_t before = r->draw_calls;
        draw_list(ctx, vs, vs->wires.data + from[k], to[k] - from[k], first + from[k], &db, true);
        *(k == 0 ? &r->edge_draws : &r->fill_wire_draws) += r->draw_calls - before;
    }
    view_end(ctx, vs);
}

/* >>ambient occlusion ----------------------------------------------------------------------- */

static void dispatch_8x8(rill__cmd *cmd, const rill__img_desc *d) {
    rill__cmd_dispatch(cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

void rill__pass_ssao(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__img *ao = rill__ctx_img(ctx, vs->res.ao_raw);
    const rill__img_desc *d = rill__img_get_desc(ao);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSAO]);
    rill__binding b[4];
    memset(b, 0, sizeof(b));
    b[0].buf = vs->frame_buf;
    b[0].offset = vs->frame_off;
    b[0].range = sizeof(rill__gpu_frame);
    bind_img(&b[1], rill__ctx_img(ctx, vs->res.depth), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[2], rill__ctx_img(ctx, vs->res.normal), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[3], ao, STORE);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 4);
    const rill__view_settings *st = &vs->set;
    struct {
        uint32_t w, h, slices, per_side;
        float thickness, radius;
    } push = {d->width,          d->height,          st->ssao_slices,
              st->ssao_per_side, st->ssao_thickness, st->ssao_radius};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, d);
}

void rill__pass_ssao_blur(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__img *ao = rill__ctx_img(ctx, vs->res.ao);
    const rill__img_desc *d = rill__img_get_desc(ao);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSAO_BLUR]);
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, vs->res.ao_raw), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[1], rill__ctx_img(ctx, vs->res.depth), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[2], ao, STORE);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    uint32_t push[2] = {d->width, d->height};
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    dispatch_8x8(ctx->cmd, d);
}

/* >>fog ------------------------------------------------------------------------------------- */

/* Distance fog over the view's lit image (before the transparent pass). */
void rill__pass_fog(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    const rill__view_settings *st = &vs->set;
    rill__img *depth = rill__ctx_img(ctx, vs->res.depth);
    const rill__img_desc *d = rill__img_get_desc(depth);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_FOG]);
    rill__binding b[5];
    memset(b, 0, sizeof(b));
    b[0].buf = vs->frame_buf;
    b[0].offset = vs->frame_off;
    b[0].range = sizeof(rill__gpu_frame);
    bind_img(&b[1], depth, RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[2], rill__ctx_img(ctx, vs->res.hdr), STORE);
    /* With an atmosphere the sky's tables; without, placeholders the shader does not read. */
    bool sky = st->fog.sky_color && st->sky_mode == RILL_SKY_ATMOSPHERE && rill__sky_on(ctx->r);
    if (sky) {
        rill__sky_fog_bindings(ctx, ctx->r, &b[4], &b[3]);
    } else {
        bind_img(&b[3], ctx->r->white, RILL__SAMPLER_LINEAR_CLAMP);
        b[4] = b[0];
    }
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 5);
    struct {
        float inv_vp[16];
        float color[4], sun_color[4], params[4];
        uint32_t rect[4];
    } push;
    mat4 vp, inv; /* aligned copies: cglm's SSE paths need 16-byte alignment */
    memcpy(vp, vs->view_proj, sizeof(vp));
    glm_mat4_inv(vp, inv);
    memcpy(push.inv_vp, inv, sizeof(inv));
    memcpy(push.color, st->fog.color, sizeof(float) * 3);
    push.color[3] = (float)st->fog.falloff + (sky ? 4.0f : 0.0f);
    memcpy(push.sun_color, st->fog.sun_color, sizeof(float) * 3);
    push.sun_color[3] = st->fog.sun_exponent;
    push.params[0] = st->fog.density;
    push.params[1] = st->fog.start;
    push.params[2] = st->fog.end;
    push.params[3] = st->fog.height_falloff;
    push.rect[0] = push.rect[1] = 0;
    push.rect[2] = d->width;
    push.rect[3] = d->height;
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (push.rect[2] + 7) / 8, (push.rect[3] + 7) / 8, 1);
}

/* >>exposure and bloom ---------------------------------------------------------------------- */

/* The view's auto-exposure state in the renderer's exposure buffer. */
static void bind_exposure(rill__binding *b, const rill_renderer *r, const rill__view *vs) {
    b->buf = r->exposure_buf;
    b->offset = (uint64_t)vs->index * RILL__EXPOSURE_STRIDE;
    b->range = 16;
}

void rill__pass_auto_exposure(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill_renderer *r = ctx->r;
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_AUTO_EXPOSURE]);
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, vs->fx.ae_src), RILL__SAMPLER_LINEAR_CLAMP);
    bind_exposure(&b[1], r, vs);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
    float push[4] = {vs->set.ae_rate, vs->set.ae_min_ev, vs->set.ae_max_ev, 0};
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, 1, 1, 1);
}

void rill__pass_bloom_down(rill_rg_ctx *ctx, void *user) {
    const rill__bloom_step *st = user;
    rill__img *out = rill__ctx_img(ctx, st->out);
    const rill__img_desc *d = rill__img_get_desc(out);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_BLOOM_DOWN]);
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, st->src), RILL__SAMPLER_LINEAR_CLAMP);
    bind_img(&b[1], out, STORE);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
    struct {
        uint32_t w, h;
        float threshold;
        uint32_t first;
    } push = {d->width, d->height, st->view->set.bloom_threshold, st->level == 0};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, d);
}

void rill__pass_bloom_up(rill_rg_ctx *ctx, void *user) {
    const rill__bloom_step *st = user;
    rill__img *out = rill__ctx_img(ctx, st->out);
    const rill__img_desc *d = rill__img_get_desc(out);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_BLOOM_UP]);
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, st->src), RILL__SAMPLER_LINEAR_CLAMP);
    bind_img(&b[1], rill__ctx_img(ctx, st->cur), RILL__SAMPLER_LINEAR_CLAMP);
    bind_img(&b[2], out, STORE);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    uint32_t push[2] = {d->width, d->height};
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    dispatch_8x8(ctx->cmd, d);
}

/* >>output ---------------------------------------------------------------------------------- */

/* Tonemapping of view vs (NULL: black) into its ldr image, whole (the output itself for a
 * single view). */
static void tonemap_dispatch(const rill_renderer *r, rill__cmd *cmd, const rill__view *vs,
                             const rill__img_desc *dst, const rill__img_desc *src,
                             rill__img *bloom) {
    uint32_t debug_view = (r->desc.debug_flags & RILL_RENDER_DEBUG_VIEW_NORMALS)  ? 1u
                          : (r->desc.debug_flags & RILL_RENDER_DEBUG_VIEW_MOTION) ? 2u
                                                                                  : 0u;
    struct {
        uint32_t w, h;
        float exposure;
        uint32_t op;
        uint32_t src_w, src_h;
        uint32_t view;
        float bloom;
        uint32_t auto_exposure;
        uint32_t off_x, off_y, ext_w, ext_h;
        uint32_t passthrough;
    } push = {dst->width,
              dst->height,
              vs ? vs->set.exposure : 1.0f,
              vs ? (uint32_t)vs->set.tonemapper : 0u,
              src->width,
              src->height,
              debug_view,
              bloom && vs ? vs->set.bloom_intensity : 0.0f,
              vs && vs->fx.auto_exposure ? 1u : 0u,
              0,
              0,
              dst->width,
              dst->height,
              vs && vs->passthrough ? 1u : 0u};
    rill__cmd_push(cmd, &push, sizeof(push));
    rill__cmd_dispatch(cmd, (dst->width + 7) / 8, (dst->height + 7) / 8, 1);
}

void rill__pass_tonemap(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    const rill__view_fx *f = &vs->fx;
    rill_renderer *r = ctx->r;
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_TONEMAP]);
    rill__binding b[6];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, f->hdr_color),
             RILL__SAMPLER_LINEAR_CLAMP); /* upscales when render_scale < 1 */
    rill__img *ldr = rill__ctx_img(ctx, vs->res.ldr);
    bind_img(&b[1], ldr, STORE);
    bind_img(&b[2], rill__ctx_img(ctx, vs->res.normal), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[3], rill__ctx_img(ctx, vs->res.motion), RILL__SAMPLER_NEAREST_CLAMP);
    rill__img *bloom = f->bloom ? rill__ctx_img(ctx, f->bloom_out) : NULL;
    bind_img(&b[4], bloom ? bloom : r->white, RILL__SAMPLER_LINEAR_CLAMP);
    bind_exposure(&b[5], r, vs);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 6);
    tonemap_dispatch(r, ctx->cmd, r->frame.no_view ? NULL : vs, rill__img_get_desc(ldr),
                     rill__img_get_desc(b[0].img), bloom);
}

/* Several views (or one in part of the output): black, then each view's final colour copied into
 * its rectangle in drawing order (a later view over an earlier one). */
void rill__pass_compose(rill_rg_ctx *ctx, void *user) {
    const rill__frame *f = user;
    rill__img *out = rill__ctx_img(ctx, f->ldr_color);
    static const float black[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    rill__cmd_clear_color(ctx->cmd, out, black);
    for (uint32_t i = f->target_views; i < f->view_count; i++) {
        const rill__view *vs = &f->views[i];
        rill__cmd_copy_image_to(ctx->cmd, rill__ctx_img(ctx, vs->fx.ldr_color), out,
                                vs->out_rect[0], vs->out_rect[1]);
    }
}

/* A camera drawing into a render texture: its final image into the texture (same size). */
void rill__pass_target_copy(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__cmd_copy_image_to(ctx->cmd, rill__ctx_img(ctx, vs->fx.ldr_color),
                            rill__ctx_img(ctx, vs->target), 0, 0);
}

void rill__pass_readback(rill_rg_ctx *ctx, void *user) {
    const rill__frame *f = user;
    rill_renderer *r = ctx->r;
    uint32_t slot = rill__gpu_frame_slot(r->gpu);
    rill__cmd_copy_image_to_buffer(ctx->cmd, rill__ctx_img(ctx, f->ldr_color), r->readback[slot]);
    rill__cmd_host_read_barrier(ctx->cmd);
    r->readback_slot = slot;
}

void rill__pass_present(rill_rg_ctx *ctx, void *user) {
    const rill__frame *f = user;
    rill__cmd_blit(ctx->cmd, rill__ctx_img(ctx, f->ldr_color), rill__ctx_img(ctx, f->out));
}

static void pass_scene_copy(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__cmd_copy_image_general(ctx->cmd, rill__ctx_img(ctx, vs->res.hdr),
                                 rill__ctx_img(ctx, vs->res.water_scene));
}

rill_result rill__add_scene_copy(rill_rg *g, rill__view *vs, rill_rg_pass *after, rill_error *err) {
    if (vs->res.water_scene.id) {
        return RILL_OK; /* copied for the other water this frame */
    }
    uint32_t w = vs->size3[0] ? vs->size3[0] : 1, h = vs->size3[1] ? vs->size3[1] : 1;
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = w,
                            .height = h};
    const char *label = "water.scene";
    vs->res.water_scene = rill_rg_create_image(g, label, &d, err);
    rill_rg_pass_desc pd = {.label = label, .exec = pass_scene_copy, .user = vs, .view = vs->index};
    rill_rg_pass copy = rill_rg_add_pass(g, &pd, err);
    /* Held as written (it only reads it) to sit between the passes before and the water's. */
    RILL_TRY(rill_rg_use_image(g, copy, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, copy, vs->res.water_scene, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, *after, copy, err));
    *after = copy;
    return RILL_OK;
}
