/* terrain.c: the terrain-chunk streamer: turns the published StreamingState and what the stream's
 * budget has left into the terrain system's view each update, and its restore into
 * rill_terrain_system_restore. The chunk rules themselves (ring, hysteresis, per-frame limits)
 * live in the terrain module. */
#include "rill/stream/terrain.h"

#include <string.h>

static void terrain_update(rill_stream *s, const rill_streaming_state *st, void *user) {
    uint64_t left = rill_stream_budget_left_ns(s);
    rill_terrain_view view = {.streaming = st->active,
                              .has_camera = st->camera != 0,
                              .timed = left != RILL_STREAM_NO_BUDGET,
                              .budget_ns = left};
    memcpy(view.camera_position, st->camera_position, sizeof view.camera_position);
    rill_terrain_system_update(user, &view);
}

static void terrain_restore(rill_stream *s, void *user) {
    (void)s;
    rill_terrain_system_restore(user);
}

bool rill_stream_add_terrain(rill_stream *stream, rill_terrain_system *terrain) {
    if (!stream || !terrain) {
        return false;
    }
    return rill_stream_add_streamer(stream, &(rill_streamer_desc){.name = "terrain",
                                                                  .update = terrain_update,
                                                                  .restore = terrain_restore,
                                                                  .user = terrain});
}

bool rill_stream_remove_terrain(rill_stream *stream, rill_terrain_system *terrain) {
    return rill_stream_remove_streamer(stream, terrain_update, terrain);
}
