/* bench_renderer.h: the renderer every GPU bench starts from: `d` as the bench filled it (size,
 * device, quality, validation), created or, on failure, NULL after printing "<bench>: why" to
 * stderr. Header-only. */
#ifndef RILL_BENCH_RENDERER_H
#define RILL_BENCH_RENDERER_H

#include <stdio.h>

#include "rill/render.h"

static inline rill_renderer *bench_renderer_create(const char *bench, rill_renderer_desc d) {
    rill_error err = {0};
    rill_renderer *r = rill_renderer_create(&d, &err);
    if (!r) {
        fprintf(stderr, "%s: %s\n", bench, err.msg);
    }
    return r;
}

#endif
