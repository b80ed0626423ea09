/* cli_canvas.h: a small RGBA canvas the tools draw their plots and maps on (`rill fly`'s
 * frametime.png and map.png) and write as PNG: points blended by alpha, lines, rectangles,
 * circles and labels in a tiny font, everything clipped to the canvas. */
#ifndef RILL_TOOLS_CLI_CANVAS_H
#define RILL_TOOLS_CLI_CANVAS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_canvas {
    uint8_t *px; /* w * h RGBA, row-major; malloc'd by cli_canvas_make, freed by cli_canvas_free */
    int w, h;
} cli_canvas;

/* A white canvas of w x h; false when out of memory. */
bool cli_canvas_make(cli_canvas *c, int w, int h);
/* Blends rgb over the pixel at (x, y) by a in [0, 1]; outside the canvas is a no-op. */
void cli_canvas_put(cli_canvas *c, int x, int y, const uint8_t rgb[3], float a);
void cli_canvas_line(cli_canvas *c, float x0, float y0, float x1, float y1, const uint8_t rgb[3],
                     float a);
/* A rectangle filled at alpha `fill` with an opaque outline. */
void cli_canvas_rect(cli_canvas *c, float x0, float y0, float x1, float y1, const uint8_t rgb[3],
                     float fill);
void cli_canvas_circle(cli_canvas *c, float cx, float cy, float r, const uint8_t rgb[3]);
/* Upper-case letters of s (a-z drawn as A-Z; anything else is a space) in a 3 x 5 pixel font at
 * `scale` pixels per font pixel, the top-left corner at (x, y): labels and legends. */
void cli_canvas_text(cli_canvas *c, int x, int y, const char *s, const uint8_t rgb[3], int scale);
/* Writes the canvas as an RGBA PNG and frees it; false when the file could not be written. */
bool cli_canvas_write_png(cli_canvas *c, const char *path);

#endif /* RILL_TOOLS_CLI_CANVAS_H */
