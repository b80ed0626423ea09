/* rill/stream/terrain.h: the terrain-chunk streamer: a rill_terrain_system (rill/terrain.h) driven
 * by a rill_stream, so terrain chunks follow the same gate, camera and restore rules as every
 * other streamer.
 *
 * ON THE RULES
 *   Each rill_stream_update runs the terrain system once with the published StreamingState as its
 *   view: gate closed (EDIT, SERVER) = every chunk wanted resident; gate open with no streaming
 *   camera = residency stays as it is; gate open with a camera = the ring rule of each terrain
 *   (in at <= stream_radius from the chunk's bounds, out beyond stream_radius + chunk_size). At
 *   most max_rebuilds finished builds are applied per terrain per update. When the gate closes,
 *   restore queues the builds of every chunk that streamed out at once
 * (rill_terrain_system_restore); they are applied over the following updates under the same
 * per-frame limit.
 *
 * Depends on: stream, terrain.
 */
#ifndef RILL_STREAM_TERRAIN_H
#define RILL_STREAM_TERRAIN_H

#include "rill/stream.h"
#include "rill/terrain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers terrain (borrowed; it must outlive the registration) as a streamer of stream. False
 * when the stream has no room (16 streamers) or an argument is NULL. */
bool rill_stream_add_terrain(rill_stream *stream, rill_terrain_system *terrain);
/* Unregisters it; false when it was not registered. */
bool rill_stream_remove_terrain(rill_stream *stream, rill_terrain_system *terrain);

#ifdef __cplusplus
}
#endif
#endif /* RILL_STREAM_TERRAIN_H */
