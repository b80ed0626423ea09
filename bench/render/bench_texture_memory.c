/* bench_texture_memory.c: GPU memory of one texture as BC7 (.rmip, whole mip chain) versus its
 * RGBA8 source (rill_render_texture_create, mip chain generated on the GPU), measured as the
 * growth of the renderer's device-memory sub-allocator (rill_render_stats.gpu_memory_used_bytes)
 * when the texture is created, next to the bytes its levels hold. One JSON line per (image,
 * format):
 *   {"bench":"texture_memory","image":...,"width":W,"height":H,"format":"rgba8|bc7",
 *    "levels":N,"level_bytes":..,"gpu_bytes":..,"encode_ms":..}
 * usage: bench_texture_memory [IMAGE.png ...]   (default: a generated 1024 x 1024 image and, when
 * Debian's assimp-testmodels is installed, BoxTextured's 211 x 211 CesiumLogoFlat.png) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/formats/image.h"
#include "rill/formats/rmip.h"
#include "rill/render.h"

#include "bench_renderer.h"

static uint64_t used(rill_renderer *r) {
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    return st.gpu_memory_used_bytes;
}

/* Renders one empty frame so queued uploads (and their staging) are flushed. */
static void settle(rill_renderer *r) {
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    float ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 5, 1};
    memcpy(snap.view.world_from_view, ident, sizeof(ident));
    rill_error err = {0};
    for (int i = 0; i < 3; i++) {
        rill_renderer_render(r, &snap, &err);
    }
    rill_renderer_wait_idle(r, &err);
}

static int measure(rill_renderer *r, const char *name, const uint8_t *file, size_t size) {
    rill_error err = {0};
    rill_image img;
    if (rill_image_load(file, size, name, RILL_PIXEL_RGBA8, &img, &err) != RILL_OK) {
        fprintf(stderr, "bench_texture_memory: %s\n", err.msg);
        return 1;
    }
    uint32_t levels = rill_image_mip_count(img.width, img.height);
    uint64_t rgba_level_bytes = 0;
    for (uint32_t i = 0; i < levels; i++) {
        uint64_t b = 0;
        rill_tex_level_size(RILL_TEX_FORMAT_RGBA8, RILL_MAX(img.width >> i, 1u),
                            RILL_MAX(img.height >> i, 1u), &b);
        rgba_level_bytes += b;
    }
    settle(r);
    uint64_t before = used(r);
    rill_texture_desc td = {.pixels = img.pixels,
                            .width = img.width,
                            .height = img.height,
                            .srgb = true,
                            .label = name};
    rill_texture t = rill_render_texture_create(r, &td, &err);
    settle(r);
    uint64_t rgba_gpu = used(r) - before;
    printf("{\"bench\":\"texture_memory\",\"image\":\"%s\",\"width\":%u,\"height\":%u,"
           "\"format\":\"rgba8\",\"levels\":%u,\"level_bytes\":%llu,\"gpu_bytes\":%llu}\n",
           name, img.width, img.height, levels, (unsigned long long)rgba_level_bytes,
           (unsigned long long)rgba_gpu);
    rill_render_texture_destroy(r, t);
    settle(r);

    rill_rmip_convert_desc cd;
    memset(&cd, 0, sizeof(cd));
    cd.usage = RILL_TEX_USAGE_COLOR; /* BC7 sRGB */
    uint8_t *rmip = NULL;
    size_t rmip_size = 0;
    uint64_t t0 = rill_time_ns();
    if (rill_rmip_convert(file, size, name, &cd, &rmip, &rmip_size, NULL, &err) != RILL_OK) {
        fprintf(stderr, "bench_texture_memory: %s\n", err.msg);
        rill_image_free(&img);
        return 1;
    }
    double encode_ms = (double)(rill_time_ns() - t0) / 1e6;
    rill_tex_data tex;
    if (rill_rmip_read(rmip, rmip_size, name, &tex, &err) != RILL_OK) {
        fprintf(stderr, "bench_texture_memory: %s\n", err.msg);
        rill_free(rmip);
        rill_image_free(&img);
        return 1;
    }
    uint64_t bc_level_bytes = 0;
    for (uint32_t i = 0; i < tex.level_count; i++) {
        bc_level_bytes += tex.levels[i].size;
    }
    before = used(r);
    t = rill_render_texture_create_data(r, &tex, name, &err);
    settle(r);
    uint64_t bc_gpu = used(r) - before;
    printf("{\"bench\":\"texture_memory\",\"image\":\"%s\",\"width\":%u,\"height\":%u,"
           "\"format\":\"bc7\",\"levels\":%u,\"level_bytes\":%llu,\"gpu_bytes\":%llu,"
           "\"encode_ms\":%.1f}\n",
           name, tex.width, tex.height, tex.level_count, (unsigned long long)bc_level_bytes,
           (unsigned long long)bc_gpu, encode_ms);
    rill_render_texture_destroy(r, t);
    rill_tex_data_free(&tex);
    rill_free(rmip);
    rill_image_free(&img);
    return t.id ? 0 : 1;
}

/* A 1024 x 1024 PNG with gradients and noise (what a real colour texture roughly is). */
static uint8_t *generated_png(size_t *out_size) {
    enum { S = 1024 };
    uint8_t *px = malloc((size_t)S * S * 4);
    uint32_t seed = 12345u;
    for (uint32_t y = 0; y < S; y++) {
        for (uint32_t x = 0; x < S; x++) {
            seed = seed * 1664525u + 1013904223u;
            uint8_t *p = px + 4 * ((size_t)y * S + x);
            p[0] = (uint8_t)(x / 4 + (seed >> 28));
            p[1] = (uint8_t)(y / 4 + ((seed >> 20) & 15));
            p[2] = (uint8_t)((x ^ y) & 0xff);
            p[3] = 255;
        }
    }
    uint8_t *png = NULL;
    rill_image_encode_png(px, S, S, 4, &png, out_size, NULL);
    free(px);
    return png;
}

int main(int argc, char **argv) {
    rill_renderer *r = bench_renderer_create("bench_texture_memory",
                                             (rill_renderer_desc){.width = 64, .height = 64});
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    int rc = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            uint8_t *data = NULL;
            size_t size = 0;
            if (rill_file_read_all(argv[i], &data, &size, &err) != RILL_OK) {
                fprintf(stderr, "bench_texture_memory: %s\n", err.msg);
                rc = 1;
                continue;
            }
            rc |= measure(r, argv[i], data, size);
            rill_free(data);
        }
    } else {
        size_t size = 0;
        uint8_t *png = generated_png(&size);
        rc |= png ? measure(r, "generated-1024.png", png, size) : 1;
        rill_free(png);
        const char *box = "/usr/share/assimp/models/glTF2/BoxTextured-glTF/CesiumLogoFlat.png";
        uint8_t *data = NULL;
        if (rill_file_read_all(box, &data, &size, NULL) == RILL_OK) {
            rc |= measure(r, box, data, size);
            rill_free(data);
        }
    }
    rill_renderer_destroy(r);
    return rc;
}
