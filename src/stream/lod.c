/* lod.c: mesh-LOD bands: the band of each level from the settings (with the x2.2 extension for
 * levels beyond the configured distances and the cull distance), and the pick at a distance
 * (one level, or two inside a crossfade). Pure functions; the LOD system applies them.
 */
#include "rill/stream.h"

#include <math.h>

rill_lod_settings rill_lod_settings_default(void) {
    return (rill_lod_settings){
        .enabled = true, .distances = {40.0f, 100.0f, 220.0f}, .crossfade = 5.0f};
}

void rill_lod_bands_make(const rill_lod_settings *s, uint32_t levels, rill_lod_bands *out) {
    if (levels < 1u) {
        levels = 1u;
    }
    if (levels > RILL_LOD_MAX_LEVELS) {
        levels = RILL_LOD_MAX_LEVELS;
    }
    rill_lod_settings def = rill_lod_settings_default();
    if (!s) {
        s = &def;
    }
    out->crossfade = s->crossfade > 0.0f ? s->crossfade : 0.0f;
    if (!s->enabled) {
        out->levels = 1;
        out->start[0] = 0.0f, out->end[0] = INFINITY;
        return;
    }
    out->levels = levels;
    float prev = 0.0f;
    for (uint32_t i = 0; i < levels; i++) {
        out->start[i] = prev;
        float end;
        if (i + 1u == levels) {
            end = INFINITY;
        } else if (i < 3u) {
            end = s->distances[i] > prev ? s->distances[i] : prev; /* bands never run backwards */
        } else {
            end = prev * 2.2f; /* more levels than distances: extend geometrically */
        }
        out->end[i] = end;
        prev = end;
    }
    if (s->cull_distance > 0.0f) {
        for (uint32_t i = 0; i < levels; i++) {
            if (out->start[i] > s->cull_distance) {
                out->start[i] = s->cull_distance;
            }
            if (out->end[i] > s->cull_distance) {
                out->end[i] = s->cull_distance;
            }
        }
    }
}

rill_lod_pick rill_lod_pick_at(const rill_lod_bands *b, float d) {
    rill_lod_pick p = {.level = -1, .next = -1, .fade = 0.0f};
    if (!(d >= 0.0f)) {
        d = 0.0f; /* NaN and negatives: the nearest band */
    }
    for (uint32_t i = 0; i < b->levels; i++) {
        if (d >= b->start[i] && d < b->end[i]) {
            /* Inside the first crossfade width of band i: level i-1 fades out, i fades in. */
            if (i > 0 && b->crossfade > 0.0f && d < b->start[i] + b->crossfade) {
                p.level = (int32_t)i - 1;
                p.next = (int32_t)i;
                p.fade = (d - b->start[i]) / b->crossfade;
            } else {
                p.level = (int32_t)i;
            }
            return p;
        }
    }
    return p; /* beyond the last band: culled */
}
