/* golden.c: see golden.h. */
#include "golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/base.h"
#include "rill/formats/image.h"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop
#pragma GCC diagnostic ignored "-Wunused-function"

#ifndef RILL_GOLDEN_DIR
#error "RILL_GOLDEN_DIR must be defined by the build"
#endif

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
    int gw = 0, gh = 0, gc = 0;
    uint8_t *gold = stbi_load(path, &gw, &gh, &gc, 4);
    if (!gold) {
        snprintf(msg, cap,
                 "%s: golden missing or unreadable (run with RILL_UPDATE_GOLDEN=1 to create)",
                 path);
        return false;
    }
    if ((uint32_t)gw != w || (uint32_t)gh != h) {
        snprintf(msg, cap, "%s: golden is %dx%d, frame is %ux%u", path, gw, gh, w, h);
        stbi_image_free(gold);
        return false;
    }
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
            if (diff)
                rill_image_write_png(out, diff, w, h, 4, NULL);
        }
        snprintf(msg, cap,
                 "%s: %.3f%% of pixels within +-%d (need %.1f%%), worst channel diff %d; diff: %s",
                 name, match * 100.0, RILL_GOLDEN_TOLERANCE, RILL_GOLDEN_MIN_MATCH * 100.0, worst,
                 out);
    }
    rill_free(diff);
    stbi_image_free(gold);
    return pass;
}

uint8_t *golden_png_encode(const uint8_t *rgba, uint32_t w, uint32_t h, size_t *out_size) {
    uint8_t *png = NULL;
    if (rill_image_encode_png(rgba, w, h, 4, &png, out_size, NULL) != RILL_OK) {
        *out_size = 0;
    }
    return png;
}

void golden_png_free(uint8_t *png) {
    rill_free(png);
}
