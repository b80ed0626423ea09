/* cli_canvas.c: the tools' PNG canvas (cli_canvas.h). */
#include "cli_canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rill/base.h"
#include "rill/formats/image.h"

void cli_canvas_put(cli_canvas *c, int x, int y, const uint8_t rgb[3], float a) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) {
        return;
    }
    uint8_t *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 4u;
    for (int k = 0; k < 3; k++) {
        p[k] = (uint8_t)(p[k] + (rgb[k] - p[k]) * a);
    }
    p[3] = 255;
}

void cli_canvas_line(cli_canvas *c, float x0, float y0, float x1, float y1, const uint8_t rgb[3],
                     float a) {
    float dx = x1 - x0, dy = y1 - y0;
    int n = (int)RILL_MAX(fabsf(dx), fabsf(dy)) + 1;
    if (n > 100000) {
        n = 100000;
    }
    for (int i = 0; i <= n; i++) {
        float u = (float)i / (float)n;
        cli_canvas_put(c, (int)lroundf(x0 + dx * u), (int)lroundf(y0 + dy * u), rgb, a);
    }
}

void cli_canvas_rect(cli_canvas *c, float x0, float y0, float x1, float y1, const uint8_t rgb[3],
                     float fill) {
    for (int y = (int)y0; y <= (int)y1; y++) {
        for (int x = (int)x0; x <= (int)x1; x++) {
            cli_canvas_put(c, x, y, rgb, fill);
        }
    }
    cli_canvas_line(c, x0, y0, x1, y0, rgb, 1), cli_canvas_line(c, x1, y0, x1, y1, rgb, 1);
    cli_canvas_line(c, x1, y1, x0, y1, rgb, 1), cli_canvas_line(c, x0, y1, x0, y0, rgb, 1);
}

void cli_canvas_circle(cli_canvas *c, float cx, float cy, float r, const uint8_t rgb[3]) {
    int n = (int)RILL_CLAMP(r * 7.0f, 32.0f, 4096.0f);
    for (int i = 0; i < n; i++) {
        float a0 = 6.2831853f * (float)i / (float)n, a1 = 6.2831853f * (float)(i + 1) / (float)n;
        cli_canvas_line(c, cx + r * cosf(a0), cy + r * sinf(a0), cx + r * cosf(a1),
                        cy + r * sinf(a1), rgb, 1);
    }
}

/* A 3 x 5 pixel font for A-Z (rows top to bottom, 3 bits each, the high bit left). */
static const uint16_t FONT_3X5[26] = {0x2bed, 0x6bae, 0x3923, 0x6b6e, 0x79a7, 0x79a4, 0x396b,
                                      0x5bed, 0x7497, 0x126a, 0x5bad, 0x4927, 0x5fed, 0x6b6d,
                                      0x2b6a, 0x6ba4, 0x2b73, 0x6bad, 0x388e, 0x7492, 0x5b6f,
                                      0x5b6a, 0x5bfd, 0x5aad, 0x5a92, 0x72a7};

void cli_canvas_text(cli_canvas *c, int x, int y, const char *s, const uint8_t rgb[3], int scale) {
    for (; *s; s++, x += 4 * scale) {
        int ch = *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s;
        if (ch < 'A' || ch > 'Z') {
            continue; /* a space, or what the font lacks */
        }
        uint16_t g = FONT_3X5[ch - 'A'];
        for (int row = 0; row < 5; row++) {
            for (int col = 0; col < 3; col++) {
                if (g & (1u << (14 - (row * 3 + col)))) {
                    for (int dy = 0; dy < scale; dy++) {
                        for (int dx = 0; dx < scale; dx++) {
                            cli_canvas_put(c, x + col * scale + dx, y + row * scale + dy, rgb, 1);
                        }
                    }
                }
            }
        }
    }
}

bool cli_canvas_make(cli_canvas *c, int w, int h) {
    c->w = w, c->h = h;
    c->px = malloc((size_t)w * (size_t)h * 4u);
    if (c->px) {
        memset(c->px, 255, (size_t)w * (size_t)h * 4u);
    }
    return c->px != NULL;
}

bool cli_canvas_write_png(cli_canvas *c, const char *path) {
    bool ok = rill_image_write_png(path, c->px, c->w, c->h, 4, NULL) == RILL_OK;
    free(c->px);
    c->px = NULL;
    return ok;
}
