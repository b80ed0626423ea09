/* events.c: typed per-frame events. Each type keeps two byte buffers, the previous frame's and
 * the current one's; rill_world_update_events drops the older and starts a new one, so an event
 * is visible for exactly two frames and systems running before or after the sender both see it. */
#include "world_internal.h"

#include <string.h>

static rill__event_queue *queue(const rill_world *w, rill_event ev) {
    return (w != NULL && ev.id != 0 && ev.id <= w->events.len) ? &w->events.data[ev.id - 1u] : NULL;
}

rill_event rill_world_register_event(rill_world *world, const char *name, uint32_t size) {
    if (world == NULL || name == NULL || name[0] == '\0' || size == 0 || size > 65536u) {
        RILL_LOG_ERROR("world", "register_event: bad name or size");
        return RILL_EVENT_NONE;
    }
    rill_event existing = rill_world_find_event(world, name);
    if (existing.id != 0) {
        if (world->events.data[existing.id - 1u].size == size) {
            return existing;
        }
        RILL_LOG_ERROR("world", "register_event: %s already registered with another size", name);
        return RILL_EVENT_NONE;
    }
    rill__event_queue q = {0};
    q.name = rill_intern(name);
    q.size = size;
    if (q.name == NULL || !rill_array_push(&world->events, q)) {
        return RILL_EVENT_NONE;
    }
    return (rill_event){world->events.len};
}

rill_event rill_world_find_event(const rill_world *world, const char *name) {
    if (world == NULL || name == NULL) {
        return RILL_EVENT_NONE;
    }
    for (uint32_t i = 0; i < world->events.len; i++) {
        if (strcmp(world->events.data[i].name, name) == 0) {
            return (rill_event){i + 1u};
        }
    }
    return RILL_EVENT_NONE;
}

bool rill_world_send_event(rill_world *world, rill_event ev, const void *data) {
    rill__event_queue *q = queue(world, ev);
    if (q == NULL || data == NULL) {
        return false;
    }
    /* Forwarding an event read this frame passes a pointer into the buffer the growth below may
     * move; remember where it lies so the copy reads the moved bytes, not freed memory. */
    const uint8_t *src = data;
    size_t used = (size_t)q->count[1] * q->size;
    bool inside = q->buf[1] != NULL && src >= q->buf[1] && src < q->buf[1] + used;
    size_t inside_at = inside ? (size_t)(src - q->buf[1]) : 0;
    uint32_t cap_bytes = q->cap[1];
    uint64_t need = (uint64_t)(q->count[1] + 1u) * q->size;
    if (need > UINT32_MAX ||
        !rill__world_grow((void **)&q->buf[1], &cap_bytes, (uint32_t)need, 1, false)) {
        return false;
    }
    q->cap[1] = cap_bytes;
    if (inside) {
        src = q->buf[1] + inside_at;
    }
    memcpy(q->buf[1] + used, src, q->size);
    q->count[1]++;
    return true;
}

uint32_t rill_world_event_count(const rill_world *world, rill_event ev) {
    rill__event_queue *q = queue(world, ev);
    return q ? q->count[0] + q->count[1] : 0;
}

const void *rill_world_event_at(const rill_world *world, rill_event ev, uint32_t index) {
    rill__event_queue *q = queue(world, ev);
    if (q == NULL) {
        return NULL;
    }
    if (index < q->count[0]) {
        return q->buf[0] + (size_t)index * q->size;
    }
    index -= q->count[0];
    return index < q->count[1] ? q->buf[1] + (size_t)index * q->size : NULL;
}

const void *rill_event_read(const rill_world *world, rill_event_reader *reader) {
    if (reader == NULL) {
        return NULL;
    }
    rill__event_queue *q = queue(world, reader->event);
    if (q == NULL) {
        return NULL;
    }
    uint64_t oldest = q->first_seq[0];
    if (reader->next_seq < oldest) {
        reader->missed += oldest - reader->next_seq;
        reader->next_seq = oldest;
    }
    uint64_t offset = reader->next_seq - oldest;
    if (offset >= (uint64_t)q->count[0] + q->count[1]) {
        return NULL;
    }
    reader->next_seq++;
    return rill_world_event_at(world, reader->event, (uint32_t)offset);
}

void rill_world_update_events(rill_world *world) {
    if (world == NULL) {
        return;
    }
    for (uint32_t i = 0; i < world->events.len; i++) {
        rill__event_queue *q = &world->events.data[i];
        /* Swap the buffers so both allocations are reused: no allocation in the steady state. */
        uint8_t *old = q->buf[0];
        uint32_t old_cap = q->cap[0];
        q->buf[0] = q->buf[1];
        q->cap[0] = q->cap[1];
        q->first_seq[0] = q->first_seq[1];
        q->count[0] = q->count[1];
        q->buf[1] = old;
        q->cap[1] = old_cap;
        q->first_seq[1] = q->first_seq[0] + q->count[0];
        q->count[1] = 0;
    }
}

void rill__events_free(rill_world *w) {
    for (uint32_t i = 0; i < w->events.len; i++) {
        rill_free(w->events.data[i].buf[0]);
        rill_free(w->events.data[i].buf[1]);
    }
    rill_array_free(&w->events);
}
