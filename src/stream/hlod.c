/* hlod.c: the far-world proxy decisions of the instance streamer (rill/stream.h, "ON FAR-WORLD
 * PROXIES"): the settings and the per-instance proxy share that instances.c advances once per
 * update. What a proxy is and where it draws is the renderer's (src/render/hlod.c); here is only
 * how much of it stands in for each instance. */
#include "stream_internal.h"

rill_stream_hlod_settings rill_stream_hlod_default(void) {
    return (rill_stream_hlod_settings){.enabled = true,
                                       .far_distance = 6000.0f,
                                       .level1_distance = 1200.0f,
                                       .level_crossfade = 100.0f,
                                       .crossfade_frames = 30};
}

void rill_stream_set_hlod(rill_stream *s, const rill_stream_hlod_settings *settings) {
    if (!s) {
        return;
    }
    rill_stream_hlod_settings d = rill_stream_hlod_default();
    rill_stream_hlod_settings v = settings ? *settings : d;
    if (!(v.far_distance > 0.0f)) {
        v.far_distance = d.far_distance;
    }
    if (!(v.level1_distance > 0.0f)) {
        v.level1_distance = d.level1_distance;
    }
    if (!(v.level_crossfade > 0.0f)) {
        v.level_crossfade = d.level_crossfade;
    }
    if (!v.crossfade_frames) {
        v.crossfade_frames = d.crossfade_frames;
    }
    if (v.level1_distance > v.far_distance) {
        v.level1_distance = v.far_distance;
    }
    s->hlod = v;
}

rill_stream_hlod_settings rill_stream_get_hlod(const rill_stream *s) {
    return s ? s->hlod : rill_stream_hlod_default();
}

float rill__hlod_next_fade(const rill_stream_hlod_settings *hs, rill_instance_state state,
                           float fade) {
    if (state != RILL_INSTANCE_LOADED) {
        return 1.0f; /* nothing of the content draws: the proxy stands in whole, at once */
    }
    float step = 1.0f / (float)(hs->crossfade_frames ? hs->crossfade_frames : 1u);
    fade -= step;
    return fade > 1e-6f ? fade : 0.0f;
}
