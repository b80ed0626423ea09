/* stream.c: the stream object: the run mode and its gate, the StreamingState resource and the
 * StreamingTurnedOff event it publishes, and the list of streamers it runs each frame.
 */
#include "stream_internal.h"

#include <stddef.h>
#include <string.h>

rill_stream_desc rill_stream_query_defaults(void) {
    rill_stream_desc d = {0};
    d.run_mode = RILL_RUN_MODE_GAME;
    d.max_loads_in_flight = 4;
    d.min_gap = 10.0f;
    d.max_hides_per_update = 2048;
    return d;
}

/* The one place where a desc's zeros become defaults. */
static rill_stream_desc desc_defaults(const rill_stream_desc *in) {
    rill_stream_desc def = rill_stream_query_defaults();
    rill_stream_desc d = *in;
    if (d.run_mode == RILL_RUN_MODE_DEFAULT) {
        d.run_mode = def.run_mode;
    }
    if (d.max_loads_in_flight == 0) {
        d.max_loads_in_flight = def.max_loads_in_flight;
    }
    if (!(d.min_gap > 0.0f)) {
        d.min_gap = def.min_gap;
    }
    if (d.max_hides_per_update == 0) {
        d.max_hides_per_update = def.max_hides_per_update;
    }
    return d;
}

static const rill_enum_item RUN_MODE_ITEMS[] = {
    {"edit", RILL_RUN_MODE_EDIT},     {"play", RILL_RUN_MODE_PLAY},
    {"paused", RILL_RUN_MODE_PAUSED}, {"simulate", RILL_RUN_MODE_SIMULATE},
    {"game", RILL_RUN_MODE_GAME},     {"server", RILL_RUN_MODE_SERVER},
};

/* Registers the StreamingState resource and the StreamingTurnedOff event (idempotent: a second
 * stream on the same world shares them). */
static bool register_gate_data(rill_stream *s) {
    rill_field fields[] = {
        RILL_FIELD(rill_streaming_state, active, BOOL),
        {.name = "run_mode",
         .type = RILL_FIELD_ENUM,
         .offset = (uint32_t)offsetof(rill_streaming_state, run_mode),
         .count = 1,
         .enum_items = RUN_MODE_ITEMS,
         .enum_count = RILL_COUNTOF(RUN_MODE_ITEMS)},
        RILL_FIELD(rill_streaming_state, camera, ENTITY),
        RILL_FIELD(rill_streaming_state, camera_position, VEC3),
        RILL_FIELD(rill_streaming_state, off_count, U32),
    };
    s->state_res = rill_world_register_resource(
        s->world, &(rill_type_desc){.name = "StreamingState",
                                    RILL_TYPE_LAYOUT(rill_streaming_state),
                                    .flags = RILL_TYPE_NO_SERIALIZE,
                                    RILL_FIELDS(fields),
                                    .doc = "the streaming gate and camera, set by the stream"});
    s->off_event = rill_world_find_event(s->world, "StreamingTurnedOff");
    if (!s->off_event.id) {
        s->off_event = rill_world_register_event(s->world, "StreamingTurnedOff",
                                                 sizeof(rill_streaming_off_event));
    }
    return s->state_res.id && s->off_event.id &&
           rill_world_set_resource(s->world, s->state_res, NULL) != NULL;
}

rill_stream *rill_stream_create(const rill_stream_desc *desc, rill_error *err) {
    if (!desc || !desc->world || desc->start_canary || desc->end_canary ||
        desc->run_mode >= RILL_RUN_MODE_NUM) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_stream_create: %s",
                       !desc || !desc->world ? "no world" : "bad desc");
        return NULL;
    }
    rill_stream *s = rill_calloc_tagged(1, sizeof *s, RILL_MEM_STREAM);
    if (!s) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_stream_create: out of memory");
        return NULL;
    }
    s->desc = desc_defaults(desc);
    s->hlod = rill_stream_hlod_default();
    s->world = desc->world;
    s->mode = s->desc.run_mode;
    s->budget_ns = RILL_STREAM_NO_BUDGET;
    if (!register_gate_data(s) ||
        (desc->scenes && !(s->instances = rill__instances_create(s, desc->scenes)))) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_stream_create: out of memory");
        rill_stream_destroy(s);
        return NULL;
    }
    rill_stream_publish(s);
    return s;
}

void rill_stream_destroy(rill_stream *s) {
    if (!s) {
        return;
    }
    rill__instances_destroy(s->instances);
    rill_free(s);
}

void rill_stream_publish(rill_stream *s) {
    if (!s) {
        return;
    }
    rill_streaming_state *st = rill_world_get_resource(s->world, s->state_res);
    if (!st) {
        return;
    }
    st->active = rill_run_mode_streams(s->mode);
    st->run_mode = (int32_t)s->mode;
    st->off_count = s->off_count;
    float pos[3] = {0.0f, 0.0f, 0.0f};
    st->camera = rill_stream_camera(s, pos);
    memcpy(st->camera_position, pos, sizeof pos);
}

bool rill_stream_set_mode(rill_stream *s, rill_run_mode mode) {
    if (!s || mode <= RILL_RUN_MODE_DEFAULT || mode >= RILL_RUN_MODE_NUM) {
        RILL_LOG_ERROR("stream", "rill_stream_set_mode: invalid mode %d", (int)mode);
        return false;
    }
    rill_run_mode old = s->mode;
    if (old == mode) {
        return false;
    }
    s->mode = mode;
    bool turned_off = rill_run_mode_streams(old) && !rill_run_mode_streams(mode);
    if (turned_off) {
        s->off_count++;
        rill_streaming_off_event ev = {.off_count = s->off_count, .new_mode = (int32_t)mode};
        rill_world_send_event(s->world, s->off_event, &ev);
    }
    rill_stream_publish(s);
    if (turned_off) {
        for (uint32_t i = 0; i < s->streamer_count; i++) {
            if (s->streamers[i].restore) {
                s->streamers[i].restore(s, s->streamers[i].user);
            }
        }
    }
    return true;
}

rill_run_mode rill_stream_get_mode(const rill_stream *s) {
    return s ? s->mode : RILL_RUN_MODE_DEFAULT;
}

bool rill_stream_active(const rill_stream *s) {
    return s && rill_run_mode_streams(s->mode);
}

uint32_t rill_stream_off_count(const rill_stream *s) {
    return s ? s->off_count : 0u;
}

rill_entity rill_stream_camera(const rill_stream *s, float out_position[3]) {
    if (!s) {
        return RILL_ENTITY_NULL;
    }
    rill_entity cam = rill_streaming_camera_pick(s->world, s->mode);
    if (cam && out_position) {
        const float *m = rill_world_global_matrix(s->world, cam);
        const rill_transform *tr =
            rill_world_get(s->world, cam, rill_world_builtin(s->world)->transform);
        for (int i = 0; i < 3; i++) {
            out_position[i] = m ? m[12 + i] : tr ? tr->translation[i] : 0.0f;
        }
    }
    return cam;
}

const rill_streaming_state *rill_stream_state(const rill_stream *s) {
    return s ? rill_world_get_resource(s->world, s->state_res) : NULL;
}

rill_event rill_stream_off_event(const rill_stream *s) {
    return s ? s->off_event : RILL_EVENT_NONE;
}

rill_world *rill_stream_world(const rill_stream *s) {
    return s ? s->world : NULL;
}

void rill_stream_update(rill_stream *s) {
    if (!s) {
        return;
    }
    uint64_t t0 = rill_time_ns();
    s->update_start_ns = t0 ? t0 : 1u;
    rill_stream_publish(s);
    const rill_streaming_state *st = rill_stream_state(s);
    rill_streaming_state copy = st ? *st : (rill_streaming_state){0};
    for (uint32_t i = 0; i < s->streamer_count; i++) {
        s->streamers[i].update(s, &copy, s->streamers[i].user);
    }
    s->update_ns = rill_time_ns() - t0;
    s->update_start_ns = 0;
    if (s->update_ns > s->update_ns_max) {
        s->update_ns_max = s->update_ns;
    }
}

void rill_stream_set_budget_ns(rill_stream *s, uint64_t ns) {
    if (s) {
        s->budget_ns = ns;
    }
}

uint64_t rill_stream_budget_left_ns(const rill_stream *s) {
    if (!s || s->budget_ns == RILL_STREAM_NO_BUDGET) {
        return RILL_STREAM_NO_BUDGET;
    }
    if (!s->update_start_ns) {
        return s->budget_ns;
    }
    uint64_t spent = rill_time_ns() - s->update_start_ns;
    return spent < s->budget_ns ? s->budget_ns - spent : 0u;
}

bool rill_stream_add_streamer(rill_stream *s, const rill_streamer_desc *desc) {
    if (RILL_DESC_CHECK(desc, "rill_stream_add_streamer", NULL) != RILL_OK) {
        return false;
    }
    if (!s || !desc || !desc->update || s->streamer_count >= STREAM_MAX_STREAMERS) {
        return false;
    }
    s->streamers[s->streamer_count++] = *desc;
    return true;
}

bool rill_stream_remove_streamer(rill_stream *s,
                                 void (*update)(rill_stream *, const rill_streaming_state *,
                                                void *),
                                 void *user) {
    for (uint32_t i = 0; s && i < s->streamer_count; i++) {
        if (s->streamers[i].update == update && s->streamers[i].user == user) {
            memmove(&s->streamers[i], &s->streamers[i + 1],
                    (s->streamer_count - i - 1) * sizeof(s->streamers[0]));
            s->streamer_count--;
            return true;
        }
    }
    return false;
}

void rill_stream_get_stats(const rill_stream *s, rill_stream_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (!s) {
        return;
    }
    rill__instances_stats(s->instances, out);
    out->update_ns = s->update_ns;
    out->update_ns_max = s->update_ns_max;
}

uint32_t rill_stream_instances(const rill_stream *s, rill_stream_instance_info *out, uint32_t cap) {
    return s ? rill__instances_list(s->instances, out, cap) : 0u;
}

rill_instance_state rill_stream_instance_state(const rill_stream *s, rill_entity root) {
    return s ? rill__instances_state(s->instances, root) : RILL_INSTANCE_UNLOADED;
}

uint32_t rill_stream_settle(rill_stream *s, uint64_t max_ns) {
    return s ? rill__instances_settle(s->instances, max_ns ? max_ns : 10000000000ull) : 0u;
}
