/* cli_wireframe.c: the wireframe look options of `rill render` and `rill run`
 * (--wireframe-fade START,END[,MIN_ALPHA], --wireframe-color R,G,B,A) into the snapshot's
 * rill_render_wireframe (docs/channels.md "Wireframe"). */
#include "cmds.h"

#include "cli_args.h"

#include "rill/render.h"

/* Splits "a,b,c" into at most max numbers, each all of its part; the count, or -1. */
static int parse_list(const char *v, float *out, int max) {
    int n = 0;
    const char *p = v;
    while (p && n < max) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char part[64];
        if (len >= sizeof part) {
            return -1;
        }
        memcpy(part, p, len);
        part[len] = '\0';
        if (!rill_cli_parse_float(part, -1e30, 1e30, &out[n++])) {
            return -1;
        }
        p = comma ? comma + 1 : NULL;
    }
    return p ? -1 : n; /* p left: more parts than max */
}

bool rill_cli_wireframe_fade(const char *cmd, const char *v, rill_render_wireframe *wf) {
    float f[3] = {0};
    int n = v ? parse_list(v, f, 3) : -1;
    float min_alpha = n == 3 ? f[2] : 0.08f;
    if (n < 2 || !(f[0] > 0.0f) || !(f[1] > f[0]) || !(min_alpha > 0.0f && min_alpha <= 1.0f)) {
        fprintf(stderr,
                "rill %s: bad --wireframe-fade '%s' (want START,END[,MIN_ALPHA] in metres, "
                "0 < START < END, MIN_ALPHA in (0, 1], default 0.08)\n",
                cmd, v ? v : "");
        return false;
    }
    wf->fade = true;
    wf->fade_start = f[0];
    wf->fade_end = f[1];
    wf->min_alpha = min_alpha;
    return true;
}

bool rill_cli_wireframe_color(const char *cmd, const char *v, rill_render_wireframe *wf) {
    float c[4] = {0};
    int n = v ? parse_list(v, c, 4) : -1;
    bool ok = n == 4 && c[3] > 0.0f && c[3] <= 1.0f;
    for (int i = 0; ok && i < 3; i++) {
        ok = c[i] >= 0.0f && c[i] <= 100.0f;
    }
    if (!ok) {
        fprintf(stderr,
                "rill %s: bad --wireframe-color '%s' (want R,G,B,A: linear R, G, B in [0, 100], "
                "A in (0, 1])\n",
                cmd, v ? v : "");
        return false;
    }
    memcpy(wf->color, c, sizeof(c));
    return true;
}

void rill_cli_wireframe_apply(const rill_render_wireframe *given, rill_render_wireframe *snap) {
    if (given->color[3] > 0.0f) {
        memcpy(snap->color, given->color, sizeof(snap->color));
    }
    if (given->fade) {
        snap->fade = true;
        snap->fade_start = given->fade_start;
        snap->fade_end = given->fade_end;
        snap->min_alpha = given->min_alpha;
    }
}
