/* golden.c: see golden.h. */
#include "golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/base.h"
#include "rill/formats/image.h"
#include "rill_test.h"

#ifndef RILL_GOLDEN_DIR
#error "RILL_GOLDEN_DIR must be defined by the build"
#endif

/* Reads a golden PNG as RGBA8 through the engine's image reader; false when it is missing or not
 * an image. */
static bool load_golden(const char *path, rill_image *out) {
    uint8_t *data = NULL;
    size_t size = 0;
    bool ok = rill_file_read_all(path, &data, &size, NULL) == RILL_OK &&
              rill_image_load(data, size, path, RILL_PIXEL_RGBA8, out, NULL) == RILL_OK;
    rill_free(data);
    return ok;
}

bool golden_check(const char *name, const uint8_t *rgba, uint32_t w, uint32_t h, char *msg,
                  size_t cap) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s.png", RILL_GOLDEN_DIR, name);
    const char *update = getenv("RILL_UPDATE_GOLDEN");
    if (update && strcmp(update, "1") == 0) {
        rill_error err = {0};
        if (rill_image_write_png(path, rgba, w, h, 4, &err) != RILL_OK) {
            snprintf(msg, cap, "%s: cannot write golden: %s", path, err.msg);
            return false;
        }
        return true;
    }
    rill_image golden = {0};
    if (!load_golden(path, &golden)) {
        snprintf(msg, cap,
                 "%s: golden missing or unreadable (run with RILL_UPDATE_GOLDEN=1 to create)",
                 path);
        return false;
    }
    if (golden.width != w || golden.height != h) {
        snprintf(msg, cap, "%s: golden is %ux%u, frame is %ux%u", path, golden.width, golden.height,
                 w, h);
        rill_image_free(&golden);
        return false;
    }
    const uint8_t *gold = golden.pixels;
    size_t n = (size_t)w * h, bad = 0;
    int worst = 0;
    uint8_t *diff = rill_malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        int md = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs((int)rgba[i * 4 + c] - (int)gold[i * 4 + c]);
            md = d > md ? d : md;
        }
        worst = md > worst ? md : worst;
        bool ok = md <= RILL_GOLDEN_TOLERANCE;
        bad += !ok;
        if (diff) {
            diff[i * 4 + 0] = ok ? gold[i * 4 + 0] / 4 : 255;
            diff[i * 4 + 1] = ok ? gold[i * 4 + 1] / 4 : 0;
            diff[i * 4 + 2] = ok ? gold[i * 4 + 2] / 4 : 0;
            diff[i * 4 + 3] = 255;
        }
    }
    double match = 1.0 - (double)bad / (double)n;
    bool pass = match >= RILL_GOLDEN_MIN_MATCH;
    if (!pass) {
        const char *tmp = getenv("RILL_TEST_TMP");
        char out[1024] = "(RILL_TEST_TMP not set)";
        if (tmp) {
            rill_dir_create_all(tmp, NULL);
            snprintf(out, sizeof(out), "%s/%s.actual.png", tmp, name);
            rill_image_write_png(out, rgba, w, h, 4, NULL);
            snprintf(out, sizeof(out), "%s/%s.diff.png", tmp, name);
            if (diff) {
                rill_image_write_png(out, diff, w, h, 4, NULL);
            }
        }
        snprintf(msg, cap,
                 "%s: %.3f%% of pixels within +-%d (need %.1f%%), worst channel diff %d; diff: %s",
                 name, match * 100.0, RILL_GOLDEN_TOLERANCE, RILL_GOLDEN_MIN_MATCH * 100.0, worst,
                 out);
    }
    rill_free(diff);
    rill_image_free(&golden);
    return pass;
}

void golden_expect(const char *name, const uint8_t *rgba, uint32_t w, uint32_t h) {
    char msg[1024];
    if (!golden_check(name, rgba, w, h, msg, sizeof msg)) {
        fail_msg("%s", msg);
    }
}
