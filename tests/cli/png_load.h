/* png_load.h: reading a picture for the CLI tests' image tools (png_same, png_pixel). */
#ifndef RILL_TEST_CLI_PNG_LOAD_H
#define RILL_TEST_CLI_PNG_LOAD_H

#include <stdio.h>

#include "rill/formats/image.h"

/* Reads the image file at path as RGBA8 into out: 0, or 1 after printing "tool: why" on stderr. */
static inline int png_load(const char *tool, const char *path, rill_image *out) {
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(path, &data, &size, &err) != RILL_OK ||
        rill_image_load(data, size, path, RILL_PIXEL_RGBA8, out, &err) != RILL_OK) {
        fprintf(stderr, "%s: %s\n", tool, err.msg);
        rill_free(data);
        return 1;
    }
    rill_free(data);
    return 0;
}

#endif
