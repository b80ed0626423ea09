/* stream_internal.h: what the files of the stream module share: the stream object's layout and the
 * instance streamer's entry points (instances.c), installed by rill_stream_create (stream.c).
 */
#ifndef RILL_STREAM_INTERNAL_H
#define RILL_STREAM_INTERNAL_H

#include "rill/stream.h"

#define STREAM_MAX_STREAMERS 16u

typedef struct rill__instance_streamer rill__instance_streamer;

struct rill_stream {
    rill_stream_desc desc;
    rill_world *world;
    rill_run_mode mode;
    uint32_t off_count;
    rill_resource state_res;
    rill_event off_event;
    rill_streamer_desc streamers[STREAM_MAX_STREAMERS];
    uint32_t streamer_count;
    rill__instance_streamer *instances; /* NULL without a scene loader */
    uint64_t update_ns, update_ns_max;
};

/* Creates the instance streamer and registers it as a streamer of s. NULL on out of memory. */
rill__instance_streamer *rill__instances_create(rill_stream *s, rill_scene_loader *scenes);
void rill__instances_destroy(rill__instance_streamer *is);
void rill__instances_stats(const rill__instance_streamer *is, rill_stream_stats *out);
uint32_t rill__instances_list(const rill__instance_streamer *is, rill_stream_instance_info *out,
                              uint32_t cap);
uint32_t rill__instances_settle(rill__instance_streamer *is, uint64_t max_ns);
rill_instance_state rill__instances_state(const rill__instance_streamer *is, rill_entity root);

#endif
