/* rill/render/hlod.h: drawing far-world proxies (HLOD) where streamed instances are not resident.
 *
 * ON FAR-WORLD PROXIES
 *   A rill_render_hlod reads the instance streamer's decisions (rill_stream_instances: each
 *   instance's world box and proxy_fade, rill/stream.h "ON FAR-WORLD PROXIES") and turns them into
 *   draws of the proxies `rill export` baked (rill/formats/hlod.h):
 *     - level 0, `<scene>.hlod` of the scene an instance streams, placed at the instance root's
 *       world transform, for every instance with proxy_fade > 0 within far_distance of the eye;
 *       while 0 < proxy_fade < 1 (the content arrived) it draws with lod_fade = +proxy_fade, the
 *       dither share of the LOD crossfade, so it thins out over the content and is gone when the
 *       fade reaches 0; never drawn together with finished content;
 *     - level 1, `<main scene>.hlod1`: one part per cell of neighbouring instances. A cell none of
 *       whose instances is resident or crossfading (proxy_fade 1 for all) and whose box is at least
 *       level1_distance away draws its part instead of its members' level-0 proxies; over the
 *       first level_crossfade metres past level1_distance the two levels dither complementarily
 *       (+w on the cell, -w on the members). An instance belongs to the cell whose rectangle holds
 *       its box's centre (x/z).
 *   Files are read through the VFS on the job system's workers (at most max_loads in flight) and
 *   turned into a mesh, a 16 x 16 palette atlas and a material per part on the main thread (at
 *   most max_uploads files a frame, and parts worth at most max_upload_triangles a frame: a part
 *   costs its triangles plus 256; the part that crosses the budget is made, so at least one a
 *   frame). A file with more parts than a frame's budget is made over several frames and draws
 *   once all its parts are made (the level-1 file of a large world arrives at once otherwise). A
 * proxy that is missing or does not parse is a warning naming the file and the pack (or folder) it
 * was looked for in, once; its instance streams as before without it. A part with no triangles
 * draws nothing. Proxies are drawn in the normal mode whatever the channels of their content say
 * (they stand for a whole district).
 *
 * Depends on: rill/render.h, rill/stream.h, rill/asset.h.
 */
#ifndef RILL_RENDER_HLOD_H
#define RILL_RENDER_HLOD_H

#include "rill/asset.h"
#include "rill/render.h"
#include "rill/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rill_render_hlod rill_render_hlod;

/* renderer, world, stream and vfs are required and borrowed (they must outlive it). jobs: NULL
 * reads on the calling thread. main_scene: the scene whose `.hlod1` holds the level-1 cells
 * (NULL = no level 1). max_loads 0 = 4; max_uploads 0 = 2; max_upload_triangles 0 = 16384. */
typedef struct rill_render_hlod_desc {
    uint32_t start_canary; /* must be 0 */
    rill_renderer *renderer;
    rill_world *world;
    rill_stream *stream;
    rill_vfs *vfs;
    rill_jobs *jobs;
    const char *main_scene;
    uint32_t max_loads;
    uint32_t max_uploads;
    uint32_t max_upload_triangles;
    uint32_t end_canary; /* must be 0 */
} rill_render_hlod_desc;

rill_render_hlod_desc rill_render_hlod_query_defaults(void);
rill_render_hlod *rill_render_hlod_create(const rill_render_hlod_desc *desc, rill_error *err);
/* Waits for reads in flight, then releases every GPU object (deferred by the renderer). */
void rill_render_hlod_destroy(rill_render_hlod *hlod);

/* What one draw of the last update stands for. */
typedef struct rill_render_hlod_draw {
    rill_entity root; /* level 0: the instance root; level 1: RILL_ENTITY_NULL */
    uint32_t level;
    uint32_t part; /* level 1: the cell's part */
    float lod_fade;
} rill_render_hlod_draw;

/* Main thread, once a frame after the stream update: finishes loads, starts the ones newly
 * needed, and decides this frame's proxies seen from eye. Returns how many; *out_instances (and
 * *out_draws, may be NULL) point at them until the next update or destroy. */
uint32_t rill_render_hlod_update(rill_render_hlod *hlod, const float eye[3],
                                 const rill_render_instance **out_instances,
                                 const rill_render_hlod_draw **out_draws);

typedef struct rill_render_hlod_stats {
    uint32_t drawn, drawn_level0, drawn_level1;      /* the last update's draws */
    uint64_t triangles;                              /* of those draws */
    uint32_t files, ready, loading, missing, failed; /* proxy files seen so far, by state */
    uint64_t gpu_triangles;                          /* in the ready proxies' meshes */
} rill_render_hlod_stats;
void rill_render_hlod_get_stats(const rill_render_hlod *hlod, rill_render_hlod_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_HLOD_H */
