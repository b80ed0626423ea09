/* post_decal_atlas.c: the decal atlas. Every ForwardDecal map lives in one RGBA8 2D-array image
 * (POST_DECAL_ATLAS_LAYERS layers of POST_DECAL_ATLAS_SIZE texels square, a full mip chain), so
 * the decal pass and the lit passes sample every map through one binding (decal_atlas.glsl). A
 * map gets a square power-of-two cell the size of its larger side (POST_DECAL_CELL_MIN ..
 * POST_DECAL_ATLAS_SIZE; a larger map is scaled down to fit), aligned to its size, so at every
 * level a cell covers whole texels of its own down to one texel and the sampler, kept half a texel
 * inside the cell, never reads a neighbour. A map is copied in once, the frame its texture is
 * ready (decal_atlas.comp: each level sampled from the texture's own chain, colour maps
 * sRGB-encoded), and its texture is freed the frame after the copy was recorded (a frame that
 * queued it but did not record it queues it again); a cell is only written again when the
 * map it held has been dropped (least recently used, never one a decal used this frame). When no
 * cell is free and nothing can be dropped, the map is warned about once, naming it, its size and
 * the atlas, and its decals draw without it. */
#include "post_internal.h"

#include <math.h>
#include <string.h>

/* The log2 of a map's cell: its larger side rounded up to a power of two, within the limits. */
static uint32_t cell_log2(const rill__img_desc *d) {
    uint32_t side = d->width > d->height ? d->width : d->height, lg = 0;
    while ((1u << lg) < side && (1u << lg) < POST_DECAL_ATLAS_SIZE) {
        lg++;
    }
    return (1u << lg) < POST_DECAL_CELL_MIN ? 4u : lg;
}

/* Whether the cell (layer, x, y, size) overlaps no other placed map's. */
static bool cell_free(const rill__post *p, uint32_t layer, uint32_t x, uint32_t y, uint32_t size) {
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        const rill__post_decal_map *o = &p->maps[i];
        uint32_t os = 1u << o->log2_size;
        if (o->placed && o->layer == layer && x < o->x + os && o->x < x + size && y < o->y + os &&
            o->y < y + size) {
            return false;
        }
    }
    return true;
}

/* Gives m the first free cell of 2^lg texels (layers in order, rows top-down); false: none. */
static bool find_cell(rill__post *p, rill__post_decal_map *m, uint32_t lg) {
    uint32_t size = 1u << lg;
    for (uint32_t layer = 0; layer < POST_DECAL_ATLAS_LAYERS; layer++) {
        for (uint32_t y = 0; y < POST_DECAL_ATLAS_SIZE; y += size) {
            for (uint32_t x = 0; x < POST_DECAL_ATLAS_SIZE; x += size) {
                if (cell_free(p, layer, x, y, size)) {
                    m->layer = layer, m->x = x, m->y = y, m->log2_size = lg;
                    m->placed = true;
                    return true;
                }
            }
        }
    }
    return false;
}

/* The least recently used placed map no decal used this frame, or NULL. */
static rill__post_decal_map *droppable(rill_renderer *r) {
    rill__post_decal_map *best = NULL;
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        rill__post_decal_map *m = &r->post->maps[i];
        if (m->placed && m->last_used < r->frame_counter &&
            (!best || m->last_used < best->last_used)) {
            best = m;
        }
    }
    return best;
}

/* The atlas, created the first time a map is placed; NULL when it cannot be (warned once). */
static bool atlas_ready(rill_renderer *r) {
    rill__post *p = r->post;
    if (p->atlas || p->atlas_failed) {
        return p->atlas != NULL;
    }
    rill__img_desc d = {.width = POST_DECAL_ATLAS_SIZE,
                        .height = POST_DECAL_ATLAS_SIZE,
                        .layers = POST_DECAL_ATLAS_LAYERS,
                        .mips = POST_DECAL_ATLAS_MIPS,
                        .format = RILL_RG_FORMAT_RGBA8_UNORM,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE | RILL__IMG_ARRAY,
                        .label = "decal atlas"};
    rill_error err = {0};
    p->atlas = rill__img_create(r->gpu, &d, &err);
    p->atlas_use = RILL_RG_USAGE_NONE;
    if (!p->atlas) {
        p->atlas_failed = true;
        RILL_LOG_WARN("render",
                      "ForwardDecal maps: the decal atlas cannot be created (%s); decals "
                      "draw without their maps",
                      err.msg);
    }
    return p->atlas != NULL;
}

/* Places m (its texture img ready), dropping the least recently used maps while no cell is free;
 * warns once when the atlas has no room for it this frame. */
static bool place(rill_renderer *r, rill__post_decal_map *m, rill__img *img, rill_entity entity) {
    const rill__img_desc *d = rill__img_get_desc(img);
    uint32_t lg = cell_log2(d);
    while (!find_cell(r->post, m, lg)) {
        rill__post_decal_map *old = droppable(r);
        if (!old) {
            if (!m->warned_full) {
                RILL_LOG_WARN("render",
                              "ForwardDecal map '%s' (%u x %u, entity %u:%u): the decal atlas "
                              "(%u layers of %u x %u) has no free %u x %u cell besides the maps in "
                              "view; the decal draws without it",
                              m->path, d->width, d->height, RILL_ENTITY_INDEX(entity),
                              RILL_ENTITY_GENERATION(entity), POST_DECAL_ATLAS_LAYERS,
                              POST_DECAL_ATLAS_SIZE, POST_DECAL_ATLAS_SIZE, 1u << lg, 1u << lg);
                m->warned_full = true;
            }
            return false;
        }
        rill__post_decal_map_drop(r, old);
    }
    return true;
}

uint32_t rill__post_decal_atlas_code(rill_renderer *r, rill__post_decal_map *m, rill_entity entity,
                                     rill__post_decal_copies *copies) {
    if (!m || m->failed) {
        return 0;
    }
    rill__img *img = m->tex.id ? rill__texture_img(r, m->tex) : NULL;
    bool ready = img && rill__img_ready(img) && copies->n < POST_MAX_DECAL_MAPS;
    if (!m->placed && (!ready || !atlas_ready(r) || !place(r, m, img, entity))) {
        return 0;
    }
    /* queued once; again only when the frame that queued it did not record it */
    if (!m->copied && m->queued != r->frame_counter) {
        if (!ready) {
            return 0;
        }
        copies->c[copies->n++] =
            (rill__post_decal_copy){m, img, m->layer, m->x, m->y, m->log2_size, m->srgb};
        m->queued = r->frame_counter;
    }
    uint32_t unit = POST_DECAL_CELL_MIN;
    return 1u << 31 | m->layer << 16 | m->log2_size << 12 | (m->y / unit) << 6 | m->x / unit;
}

/* Records each queued copy: every level of the map's cell, sampled from its texture. */
static void exec_copies(rill_rg_ctx *ctx, void *user) {
    rill__post_decal_copies *cs = user;
    rill_renderer *r = ctx->r;
    rill__img *atlas = rill__ctx_img(ctx, r->post->atlas_rg);
    rill__cmd_bind_pipe(ctx->cmd, r->post->pipes[POST_PIPE_DECAL_ATLAS]);
    for (uint32_t i = 0; i < cs->n; i++) {
        const rill__post_decal_copy *c = &cs->c[i];
        c->map->copied = r->frame_counter;
        const rill__img_desc *sd = rill__img_get_desc(c->src);
        float src_lg = log2f((float)(sd->width > sd->height ? sd->width : sd->height));
        for (uint32_t level = 0; level <= c->log2_size; level++) {
            struct {
                int32_t origin[2];
                uint32_t size, layer;
                float lod;
                uint32_t srgb;
            } push = {{(int32_t)(c->x >> level), (int32_t)(c->y >> level)},
                      1u << (c->log2_size - level),
                      c->layer,
                      fmaxf(src_lg - (float)(c->log2_size - level), 0.0f),
                      c->srgb ? 1u : 0u};
            rill__binding b[2] = {
                {.img = c->src, .layer = -1, .sampler = RILL__SAMPLER_LINEAR_CLAMP},
                {.img = atlas, .layer = -1, .one_level = true, .level = level}};
            rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
            rill__cmd_push(ctx->cmd, &push, sizeof(push));
            rill__cmd_dispatch(ctx->cmd, (push.size + 7u) / 8u, (push.size + 7u) / 8u, 1);
        }
    }
}

rill_result rill__post_decal_atlas_add(rill_renderer *r, rill_rg *g,
                                       rill__post_decal_copies *copies, rill_error *err) {
    rill__post *p = r->post;
    if (!p->atlas) {
        return RILL_OK;
    }
    if (p->atlas_frame != r->frame_counter || !p->atlas_rg.id) {
        rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA8_UNORM,
                                .size_mode = RILL_RG_SIZE_ABSOLUTE,
                                .width = POST_DECAL_ATLAS_SIZE,
                                .height = POST_DECAL_ATLAS_SIZE,
                                .layers = POST_DECAL_ATLAS_LAYERS,
                                .mips = POST_DECAL_ATLAS_MIPS,
                                .array_view = true};
        p->atlas_rg = rill_rg_import_image(g, "decal_atlas", &d, p->atlas, p->atlas_use,
                                           RILL_RG_USAGE_SAMPLED_FRAGMENT, err);
        if (!p->atlas_rg.id) {
            return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
        }
        p->atlas_use = RILL_RG_USAGE_SAMPLED_FRAGMENT;
        p->atlas_frame = r->frame_counter;
    }
    if (!copies->n) {
        return RILL_OK;
    }
    copies->r = r;
    /* read by later frames too: never culled */
    rill_rg_pass_desc pd = {
        .label = "decal_atlas", .exec = exec_copies, .user = copies, .side_effect = true};
    rill_rg_pass cp = rill_rg_add_pass(g, &pd, err);
    return rill_rg_use_image(g, cp, p->atlas_rg, RILL_RG_USAGE_STORAGE_WRITE, err);
}

rill_result rill__post_decal_atlas_access(const rill_renderer *r, rill_rg *g, rill_rg_pass p,
                                          rill_rg_usage usage, rill_error *err) {
    const rill__post *pp = r->post;
    if (!pp || !pp->atlas || pp->atlas_frame != r->frame_counter || !pp->atlas_rg.id) {
        return RILL_OK;
    }
    return rill_rg_use_image(g, p, pp->atlas_rg, usage, err);
}

rill__img *rill__post_decal_atlas_img(const rill_renderer *r) {
    const rill__post *p = r->post;
    bool live = p && p->atlas && p->atlas_frame == r->frame_counter && p->atlas_rg.id;
    return live ? p->atlas : p->no_decal;
}

void rill__post_decal_atlas_trim(rill_renderer *r) {
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        rill__post_decal_map *m = &r->post->maps[i];
        if (m->tex.id && m->copied && m->copied < r->frame_counter) {
            rill_render_texture_destroy(r, m->tex);
            m->tex = (rill_texture){0};
        }
    }
}
