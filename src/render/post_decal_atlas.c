/* post_decal_atlas.c: the decal atlas. Every ForwardDecal map lives in one RGBA8 2D-array image
 * (layers of POST_DECAL_ATLAS_SIZE texels square, a full mip chain, and an sRGB view the colour
 * maps are sampled through), so the decal pass and the lit passes sample every map through one
 * image (decal_atlas.glsl). A map gets a square power-of-two cell the size of its larger side
 * (POST_DECAL_CELL_MIN .. POST_DECAL_ATLAS_SIZE; a larger map is scaled down to fit), aligned to
 * its size, so at every level a cell covers whole texels of its own down to one texel and the
 * sampler, kept half a texel inside the cell, never reads a neighbour. A map is copied in once,
 * the frame its texture is ready (decal_atlas.comp: each level sampled from the texture's own
 * chain, colour maps sRGB-encoded), and its texture is freed the frame after the copy was
 * recorded (a frame that queued it but did not record it queues it again); a cell is only written
 * again when the map it held has been dropped. When a map finds no free cell, the maps no decal
 * used this frame that fill the cell freed most cheaply (least recently used) are dropped; when
 * every candidate cell holds a map in use, the atlas grows: a new image of twice the layers
 * (at most POST_DECAL_ATLAS_MAX_LAYERS) into which the frame's graph first copies the old one
 * (decal_atlas_grow.comp), so every cell keeps its place and contents. Only when it cannot grow
 * is the map warned about once, naming it, its size, the decal's entity and the atlas, and its
 * decals draw without it. */
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

/* Whether placed map o overlaps the cell (layer, x, y, size). */
static bool overlaps(const rill__post_decal_map *o, uint32_t layer, uint32_t x, uint32_t y,
                     uint32_t size) {
    uint32_t os = 1u << o->log2_size;
    return o->placed && o->layer == layer && x < o->x + os && o->x < x + size && y < o->y + os &&
           o->y < y + size;
}

/* Whether the cell (layer, x, y, size) overlaps no placed map's. */
static bool cell_free(const rill__post *p, uint32_t layer, uint32_t x, uint32_t y, uint32_t size) {
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        if (overlaps(&p->maps[i], layer, x, y, size)) {
            return false;
        }
    }
    return true;
}

/* Gives m the first free cell of 2^lg texels (layers in order, rows top-down); false: none. */
static bool find_cell(rill__post *p, rill__post_decal_map *m, uint32_t lg) {
    uint32_t size = 1u << lg;
    for (uint32_t layer = 0; layer < p->atlas_layers; layer++) {
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

/* Frees a cell of 2^lg texels for m by dropping the maps in it, when no decal used any of them
 * this frame: of the cells that qualify, the one whose most recently used map was used longest
 * ago. Only the cell of that size holding a placed map's corner need be looked at: any cell to be
 * freed holds a map, and either holds its corner or lies inside it (then the cell at the map's
 * corner is freed by dropping that map alone). False: none qualifies. */
static bool evict_for(rill_renderer *r, rill__post_decal_map *m, uint32_t lg) {
    rill__post *p = r->post;
    uint32_t size = 1u << lg, best = POST_MAX_DECAL_MAPS;
    uint64_t best_age = UINT64_MAX;
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        const rill__post_decal_map *c = &p->maps[i];
        if (!c->placed || c->last_used >= r->frame_counter) {
            continue;
        }
        uint32_t x = c->x & ~(size - 1u), y = c->y & ~(size - 1u);
        uint64_t newest = 0;
        for (uint32_t k = 0; k < POST_MAX_DECAL_MAPS && newest < UINT64_MAX; k++) {
            const rill__post_decal_map *o = &p->maps[k];
            if (overlaps(o, c->layer, x, y, size)) {
                newest = o->last_used >= r->frame_counter
                             ? UINT64_MAX
                             : (o->last_used > newest ? o->last_used : newest);
            }
        }
        if (newest < best_age) {
            best_age = newest, best = i;
        }
    }
    if (best == POST_MAX_DECAL_MAPS) {
        return false;
    }
    const rill__post_decal_map *c = &p->maps[best];
    uint32_t layer = c->layer, x = c->x & ~(size - 1u), y = c->y & ~(size - 1u);
    for (uint32_t k = 0; k < POST_MAX_DECAL_MAPS; k++) {
        if (overlaps(&p->maps[k], layer, x, y, size)) {
            rill__post_decal_map_drop(r, &p->maps[k]);
        }
    }
    m->layer = layer, m->x = x, m->y = y, m->log2_size = lg;
    m->placed = true;
    return true;
}

/* A new atlas image of `layers` layers, or NULL with err set. */
static rill__img *atlas_create(rill_renderer *r, uint32_t layers, rill_error *err) {
    rill__img_desc d = {.width = POST_DECAL_ATLAS_SIZE,
                        .height = POST_DECAL_ATLAS_SIZE,
                        .layers = layers,
                        .mips = POST_DECAL_ATLAS_MIPS,
                        .format = RILL_RG_FORMAT_RGBA8_UNORM,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE | RILL__IMG_ARRAY |
                                 RILL__IMG_SRGB_VIEW,
                        .label = "decal atlas"};
    return rill__img_create(r->gpu, &d, err);
}

static uint32_t atlas_limit(const rill__post *p) {
    return p->atlas_limit ? p->atlas_limit : POST_DECAL_ATLAS_MAX_LAYERS;
}

/* The atlas, created the first time a map is placed; NULL when it cannot be (warned once). */
static bool atlas_ready(rill_renderer *r) {
    rill__post *p = r->post;
    if (p->atlas || p->atlas_failed) {
        return p->atlas != NULL;
    }
    uint32_t layers = POST_DECAL_ATLAS_START_LAYERS;
    layers = layers < atlas_limit(p) ? layers : atlas_limit(p);
    rill_error err = {0};
    p->atlas = atlas_create(r, layers, &err);
    p->atlas_use = RILL_RG_USAGE_NONE;
    p->atlas_layers = layers;
    if (!p->atlas) {
        p->atlas_failed = true;
        RILL_LOG_WARN("render",
                      "ForwardDecal maps: the decal atlas cannot be created (%s); decals "
                      "draw without their maps",
                      err.msg);
    }
    return p->atlas != NULL;
}

/* Replaces the atlas by one of twice the layers (at most its limit), which this frame's graph
 * fills with the old one first; false when it is at its limit, has grown this frame, or this
 * frame's graph has already taken it (then it grows next frame: grow_wanted). A failed creation
 * is warned about once and makes the current size the limit. */
static bool grow(rill_renderer *r) {
    rill__post *p = r->post;
    if (p->atlas_layers >= atlas_limit(p) || p->atlas_old) {
        return false;
    }
    if (p->atlas_frame == r->frame_counter) {
        p->grow_wanted = true;
        return false;
    }
    uint32_t layers = p->atlas_layers * 2u;
    layers = layers < atlas_limit(p) ? layers : atlas_limit(p);
    rill_error err = {0};
    rill__img *img = atlas_create(r, layers, &err);
    if (!img) {
        RILL_LOG_WARN("render",
                      "ForwardDecal maps: the decal atlas cannot grow from %u to %u layers (%s); "
                      "it stays at %u",
                      p->atlas_layers, layers, err.msg, p->atlas_layers);
        p->atlas_limit = p->atlas_layers;
        return false;
    }
    p->atlas_old = p->atlas, p->old_layers = p->atlas_layers, p->old_use = p->atlas_use;
    p->atlas = img, p->atlas_layers = layers, p->atlas_use = RILL_RG_USAGE_NONE;
    p->grow_frame = r->frame_counter;
    return true;
}

/* Places m (its texture img ready) in a free cell, else in one freed by dropping maps out of
 * use, else in the grown atlas; warns once when none of these finds room this frame (not when
 * the atlas grows next frame). */
static bool place(rill_renderer *r, rill__post_decal_map *m, rill__img *img, rill_entity entity) {
    const rill__img_desc *d = rill__img_get_desc(img);
    uint32_t lg = cell_log2(d);
    if (find_cell(r->post, m, lg) || evict_for(r, m, lg) ||
        (grow(r) && find_cell(r->post, m, lg))) {
        return true;
    }
    if (!m->warned_full && !r->post->grow_wanted) {
        rill__post *p = r->post;
        RILL_LOG_WARN("render",
                      "ForwardDecal map '%s' (%u x %u, entity %u:%u): the decal atlas (%u layer%s "
                      "of %u x %u, the most it grows to) has no free %u x %u cell besides the maps "
                      "in view; the decal draws without it",
                      m->path, d->width, d->height, RILL_ENTITY_INDEX(entity),
                      RILL_ENTITY_GENERATION(entity), p->atlas_layers,
                      p->atlas_layers == 1 ? "" : "s", POST_DECAL_ATLAS_SIZE, POST_DECAL_ATLAS_SIZE,
                      1u << lg, 1u << lg);
        m->warned_full = true;
    }
    return false;
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

/* Records the growth: every level of every layer of the old atlas into the new one. */
static void exec_grow(rill_rg_ctx *ctx, void *user) {
    rill__post *p = user;
    rill__img *old = rill__ctx_img(ctx, p->old_rg), *atlas = rill__ctx_img(ctx, p->atlas_rg);
    rill__cmd_bind_pipe(ctx->cmd, p->pipes[POST_PIPE_DECAL_ATLAS_GROW]);
    for (uint32_t level = 0; level < POST_DECAL_ATLAS_MIPS; level++) {
        uint32_t size = POST_DECAL_ATLAS_SIZE >> level;
        int32_t push = (int32_t)level;
        rill__binding b[2] = {{.img = old, .layer = -1, .sampler = RILL__SAMPLER_NEAREST_CLAMP},
                              {.img = atlas, .layer = -1, .one_level = true, .level = level}};
        rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
        rill__cmd_push(ctx->cmd, &push, sizeof(push));
        rill__cmd_dispatch(ctx->cmd, (size + 7u) / 8u, (size + 7u) / 8u, p->old_layers);
    }
}

/* An atlas image of `layers` layers into this frame's graph. */
static rill_rg_image atlas_import(rill_rg *g, const char *name, rill__img *img, uint32_t layers,
                                  rill_rg_usage initial, rill_rg_usage final, rill_error *err) {
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA8_UNORM,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = POST_DECAL_ATLAS_SIZE,
                            .height = POST_DECAL_ATLAS_SIZE,
                            .layers = layers,
                            .mips = POST_DECAL_ATLAS_MIPS,
                            .array_view = true};
    return rill_rg_import_image(g, name, &d, img, initial, final, err);
}

/* Imports the atlas into this frame's graph, after the pass that fills it from the one it grew
 * from when it grew this frame. */
static rill_result import_atlas(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__post *p = r->post;
    p->atlas_rg = atlas_import(g, "decal_atlas", p->atlas, p->atlas_layers, p->atlas_use,
                               RILL_RG_USAGE_SAMPLED_FRAGMENT, err);
    if (!p->atlas_rg.id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    p->atlas_use = RILL_RG_USAGE_SAMPLED_FRAGMENT;
    p->atlas_frame = r->frame_counter;
    if (!p->atlas_old || p->grow_frame != r->frame_counter) {
        return RILL_OK;
    }
    p->old_rg = atlas_import(g, "decal_atlas_old", p->atlas_old, p->old_layers, p->old_use,
                             RILL_RG_USAGE_NONE, err);
    if (!p->old_rg.id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    /* read by later frames too: never culled */
    rill_rg_pass_desc pd = {
        .label = "decal_atlas_grow", .exec = exec_grow, .user = p, .side_effect = true};
    rill_rg_pass gp = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill_rg_use_image(g, gp, p->old_rg, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    return rill_rg_use_image(g, gp, p->atlas_rg, RILL_RG_USAGE_STORAGE_WRITE, err);
}

rill_result rill__post_decal_atlas_add(rill_renderer *r, rill_rg *g,
                                       rill__post_decal_copies *copies, rill_error *err) {
    rill__post *p = r->post;
    if (!p->atlas) {
        return RILL_OK;
    }
    if (p->atlas_frame != r->frame_counter || !p->atlas_rg.id) {
        RILL_TRY(import_atlas(r, g, err));
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

void rill__post_decal_atlas_begin(rill_renderer *r) {
    rill__post *p = r->post;
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        rill__post_decal_map *m = &p->maps[i];
        if (m->tex.id && m->copied && m->copied < r->frame_counter) {
            rill_render_texture_destroy(r, m->tex);
            m->tex = (rill_texture){0};
        }
    }
    if (p->atlas_old && p->grow_frame < r->frame_counter) {
        rill__img_destroy(r->gpu, p->atlas_old);
        p->atlas_old = NULL;
    }
    if (p->grow_wanted && p->atlas_frame != r->frame_counter) {
        p->grow_wanted = false;
        grow(r);
    }
}

void rill__post_decal_atlas_limit(rill_renderer *r, uint32_t layers) {
    layers = layers < 1u ? 1u : layers;
    r->post->atlas_limit =
        layers < POST_DECAL_ATLAS_MAX_LAYERS ? layers : POST_DECAL_ATLAS_MAX_LAYERS;
}
