/* batch.h: static batching (batch.c), private to render. The extract step (extract.c) asks
 * rill__batch_skip first for every ModelMesh entity (true: a built batch draws it, nothing else is
 * done for it); the others are resolved and pushed as instances as before, and those for which
 * rill__batch_wants_take says so are offered to rill__batch_take, in walk order (the walk's chunks
 * note them, its merge replays them). rill__batch_end appends one instance per batch, with its
 * members' ranges that draw (rill_render_range, into the buffer's ranges), starts building the
 * cells collected this frame and takes this frame's build steps. */
#ifndef RILL_RENDER_BATCH_H
#define RILL_RENDER_BATCH_H

#include "rill/channels.h"
#include "rill/render.h"

typedef struct rill__batcher rill__batcher;

/* resource: the id of the world resource that holds ra (rill__render_assets_at finds ra through
 * it): the batcher's world observers (RenderMode, SceneChannels, ModelMesh writes, installed by the
 * first rill__batch_begin) use it. */
rill__batcher *rill__batch_create(rill_renderer *r, rill_render_assets *ra, uint32_t resource);
void rill__batch_destroy(rill__batcher *bt);
void rill__batch_configure(rill__batcher *bt, const rill_render_batching *settings);
void rill__batch_stats(const rill__batcher *bt, rill_render_batching_stats *out);

/* Per extract: false when batching is off (then nothing else is called this frame). Applies the
 * transform changes of this frame and drops the batches of the queued cells that the time budget
 * lets be rebuilt this frame. */
bool rill__batch_begin(rill__batcher *bt, rill_world *world);
/* Before anything else is done for a ModelMesh entity (mm: its component in the storage the walk
 * goes through, rill_query_get): true when a batch draws it this frame (the caller skips it and
 * counts it in *out_cell with rill__batch_seen). In a settled world it reads a cache laid out like
 * that storage, so it costs a compare in order. An entity at a new position is learnt from its
 * record, which writes only that position's entry and that entity's record: chunks of the walk
 * may call it for their own entities at the same time, while nothing else changes the batcher. */
bool rill__batch_skip(rill__batcher *bt, rill_entity e, const rill_model_mesh *mm,
                      uint32_t *out_cell);
/* Asks for the cache entry rill__batch_skip will read for mm (the walk calls it some entities
 * ahead, so the reads of entries far apart overlap). mm may be NULL. */
void rill__batch_prefetch(const rill__batcher *bt, const rill_model_mesh *mm);
/* n entities of cell that rill__batch_skip skipped this frame (before rill__batch_end: a cell
 * whose count falls short of the members it draws lost one, and draws them one by one). */
void rill__batch_seen(rill__batcher *bt, uint32_t cell, uint32_t n);
/* A drawable ModelMesh entity that rill__batch_skip did not skip, as the walk offers it. */
typedef struct rill__batch_offer {
    rill_entity e;
    const rill_model_mesh *mm; /* as for skip */
    const float *m;            /* its world matrix (GlobalTransform) */
    uint64_t mask;             /* its SceneChannels */
    rill_mesh mesh;
    rill_material mat;
    bool own_normal; /* it has no RenderMode, or a plain NORMAL one */
} rill__batch_offer;
/* Whether rill__batch_take has anything to do for o: false when it is not a candidate and was none
 * when last taken, when its batch holds it with its range off, and for a candidate that stays one
 * in a cell that is not being rebuilt. Reads the batcher only (any number of walk chunks at once,
 * after their entity's skip). */
bool rill__batch_wants_take(const rill__batcher *bt, const rill__batch_offer *o);
/* In walk order, on one thread: o draws as an instance this frame (the caller pushes it), and
 * becomes a candidate (its cell queued for a rebuild), stops being one, or is collected into a
 * cell being rebuilt. */
void rill__batch_take(rill__batcher *bt, const rill__batch_offer *o);
/* Appends the batch instances with their ranges (modes resolved from their channel masks through
 * modes) plus, for a cell that lost a member during this frame's walk or is still being built, its
 * members that draw one by one; then the cells collected this frame start building, and the cells
 * being built take steps within build_ms (batch_build.c). False when out of memory. */
bool rill__batch_end(rill__batcher *bt, const rill_channel_modes *modes,
                     rill_render_extract_buf *buf);

#endif
