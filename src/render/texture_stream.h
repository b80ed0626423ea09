/* texture_stream.h: the render asset cache's texture streaming carrier (texture_stream.c). */
#ifndef RILL_RENDER_TEXTURE_STREAM_H
#define RILL_RENDER_TEXTURE_STREAM_H

#include "render_internal.h"
#include "rill/stream/textures.h"

typedef struct rill__tsc rill__tsc;

typedef struct rill__tsc_stats {
    uint64_t bytes_read;    /* level bytes read for streamed textures (model uploads + swaps) */
    uint64_t swaps;         /* textures switched through the renderer */
    uint64_t batches;       /* replace_many batches sent */
    uint64_t cancelled;     /* requests dropped (camera overtook them, model unloaded) */
    uint64_t load_failures; /* loads that failed (the texture kept its image) */
    uint32_t queued, loading;
    uint64_t swap_ns_last, swap_ns_max;     /* main-thread time sending a batch */
    uint64_t update_ns_last, update_ns_max; /* main-thread time of rill__tsc_update */
    /* Full swaps from request (the evaluation that wanted them) to the frame that switched them,
     * on the streamer's clock. */
    uint64_t full_landed;
    double full_latency_ms_max, full_latency_ms_sum;
} rill__tsc_stats;

rill__tsc *rill__tsc_create(rill_renderer *r, rill_asset_server *assets, rill_world *world,
                            const rill_texstream_settings *settings);
void rill__tsc_destroy(rill__tsc *c);
rill_texstream *rill__tsc_decisions(rill__tsc *c);
/* Whether models uploaded now should read their textures as "#low" (streaming on and active). */
bool rill__tsc_start_low(const rill__tsc *c);
/* rill__tex_share.find for this carrier (user = the carrier): the live shared texture for an
 * image's VFS path and colour space, or {0}. */
rill_texture rill__tsc_find(void *user, const char *path, bool srgb);
/* The VFS path of a texture the carrier holds (NULL: not one of its textures), for debug views. */
const char *rill__tsc_path_of(const rill__tsc *c, rill_texture tex);
/* Registers a model (origins from rill__render_model_create_streamed; the paths of the textures it
 * loaded move here): each texture read through the VFS becomes shared (or gains a reference when
 * the model took it from the share), each streaming one is registered once with the streamer, and
 * so are its materials. Fills slots[texture_count] (shared texture slots, RILL_TEXSTREAM_NONE =
 * the model's own) and ts_mat[material_count + 1] (texstream ids, RILL_TEXSTREAM_NONE = not
 * streamed). */
void rill__tsc_add_model(rill__tsc *c, const rill_gltf_model *m, const rill_render_model *gpu,
                         rill__tex_origin *origins, uint32_t *slots, uint32_t *ts_mat);
/* Forgets a model's materials and drops its references (the last one destroys the texture); the
 * shared textures' handles in gpu are cleared so rill_render_model_destroy leaves them. */
void rill__tsc_remove_model(rill__tsc *c, rill_render_model *gpu, const uint32_t *slots,
                            uint32_t texture_count, const uint32_t *ts_mat,
                            uint32_t material_count);
/* The clock of the evaluator's cadence (seconds); without it the monotonic clock is used. */
void rill__tsc_set_time(rill__tsc *c, double seconds);
/* Once per frame, after the user sweep's slice: loads started and polled, the evaluator's update,
 * its applies sent as one batch. */
void rill__tsc_update(rill__tsc *c);
void rill__tsc_get_stats(const rill__tsc *c, rill__tsc_stats *out);
/* Requests in flight (+1 while an evaluation is in progress): 0 = settled. */
uint32_t rill__tsc_pending(const rill__tsc *c);

#endif
