/* bench_bc.c: block-compression quality and speed on real images (JSON lines on stdout).
 *
 *   bench_bc [--quality N] [--quick] FILE_OR_DIR...
 *
 * A directory is read for the scikit-image sample photographs and textures (Debian package
 * python3-skimage: /usr/lib/python3/dist-packages/skimage/data), a file is used as given. For each
 * image: BC7 at the chosen quality levels (RGB PSNR on the image as is; RGBA PSNR on a copy whose
 * alpha is 255 - luminance, so alpha carries real detail), BC1 (RGB), BC5 (R and G) and BC4 (R).
 * Speed is megapixels per second of one thread (the encoders are single-threaded), measured on
 * the thread's CPU clock so other load on the machine counts less. A summary line per codec gives
 * the averages over all images. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "image_psnr.h"
#include "rill/formats/bc.h"
#include "rill/formats/image.h"

static const char *SKIMAGE_SET[] = {
    /* photographs */
    "astronaut.png",
    "chelsea.png",
    "coffee.png",
    "rocket.jpg",
    "motorcycle_left.png",
    "hubble_deep_field.jpg",
    "retina.jpg",
    "ihc.png",
    /* textures (greyscale in the package) */
    "brick.png",
    "grass.png",
    "gravel.png",
};

static double thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sums over images; speed is reported as total megapixels over total seconds. */
typedef struct acc {
    double psnr, psnr2, mp, sec;
    int n;
} acc;

/* Encodes, decodes, measures. Returns seconds of thread CPU time; psnr over (first, channels). */
static double run(rill_tex_format f, const rill_image *img, const rill_bc7_params *p, uint8_t *enc,
                  size_t enc_size, uint8_t *dec) {
    rill_error err;
    double t0 = thread_seconds();
    if (rill_bc_encode_image(f, img->pixels, img->width, img->height, 0, p, enc, enc_size, &err) !=
        RILL_OK) {
        fprintf(stderr, "encode failed: %s\n", err.msg);
        return -1;
    }
    double t1 = thread_seconds();
    rill_bc_decode_image(f, enc, enc_size, img->width, img->height, dec,
                         (size_t)img->width * img->height * 4, &err);
    return t1 - t0;
}

static void bench_image(const char *path, const uint32_t *qualities, int nq, acc *bc7, acc *bc1,
                        acc *bc5, acc *bc4) {
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err;
    if (rill_file_read_all(path, &file, &size, &err) != RILL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    rill_image img;
    if (rill_image_load(file, size, path, RILL_PIXEL_RGBA8, &img, &err) != RILL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        rill_free(file);
        return;
    }
    rill_free(file);
    size_t px = (size_t)img.width * img.height;
    double mp = (double)px / 1e6;
    rill_image alpha = img;
    alpha.pixels = rill_malloc(img.size);
    memcpy(alpha.pixels, img.pixels, img.size);
    uint8_t *a = alpha.pixels;
    for (size_t i = 0; i < px; i++) {
        int lum = (a[i * 4] * 54 + a[i * 4 + 1] * 183 + a[i * 4 + 2] * 19) >> 8;
        a[i * 4 + 3] = (uint8_t)(255 - lum);
    }
    uint64_t enc_size = 0;
    rill_tex_level_size(RILL_TEX_FORMAT_BC7, img.width, img.height, &enc_size);
    uint8_t *enc = rill_malloc((size_t)enc_size);
    uint8_t *dec = rill_malloc(px * 4);
    const char *name = rill_path_basename(path);
    for (int k = 0; k < nq; k++) {
        rill_bc7_params p = {.quality = qualities[k]};
        double s = run(RILL_TEX_FORMAT_BC7, &img, &p, enc, (size_t)enc_size, dec);
        double rgb = rill_test_psnr(img.pixels, dec, px, 0, 3);
        double s2 = run(RILL_TEX_FORMAT_BC7, &alpha, &p, enc, (size_t)enc_size, dec);
        double rgba = rill_test_psnr(alpha.pixels, dec, px, 0, 4);
        printf("{\"bench\":\"bc\",\"image\":\"%s\",\"w\":%u,\"h\":%u,\"format\":\"bc7\","
               "\"quality\":%u,\"psnr_rgb\":%.3f,\"psnr_rgba\":%.3f,\"mpix_s\":%.3f,"
               "\"mpix_s_rgba\":%.3f}\n",
               name, img.width, img.height, qualities[k], rgb, rgba, mp / s, mp / s2);
        acc *A = &bc7[k];
        A->psnr += rgb;
        A->psnr2 += rgba;
        A->mp += mp;
        A->sec += s;
        A->n++;
    }
    struct {
        rill_tex_format f;
        const char *fname;
        int first, channels;
        acc *A;
    } others[] = {
        {RILL_TEX_FORMAT_BC1, "bc1", 0, 3, bc1},
        {RILL_TEX_FORMAT_BC5, "bc5", 0, 2, bc5},
        {RILL_TEX_FORMAT_BC4, "bc4", 0, 1, bc4},
    };
    for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
        uint64_t es = 0;
        rill_tex_level_size(others[k].f, img.width, img.height, &es);
        double s = run(others[k].f, &img, NULL, enc, (size_t)es, dec);
        double v = rill_test_psnr(img.pixels, dec, px, others[k].first, others[k].channels);
        printf("{\"bench\":\"bc\",\"image\":\"%s\",\"w\":%u,\"h\":%u,\"format\":\"%s\","
               "\"psnr\":%.3f,\"mpix_s\":%.3f}\n",
               name, img.width, img.height, others[k].fname, v, mp / s);
        others[k].A->psnr += v;
        others[k].A->mp += mp;
        others[k].A->sec += s;
        others[k].A->n++;
    }
    fflush(stdout);
    rill_free(enc);
    rill_free(dec);
    rill_free(alpha.pixels);
    rill_image_free(&img);
}

int main(int argc, char **argv) {
    uint32_t qualities[3] = {1, 2, 3};
    int nq = 3;
    acc bc7[3] = {{0}}, bc1 = {0}, bc5 = {0}, bc4 = {0};
    int images = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quality") == 0 && i + 1 < argc) {
            qualities[0] = (uint32_t)atoi(argv[++i]);
            nq = 1;
            continue;
        }
        if (strcmp(argv[i], "--quick") == 0) {
            nq = 2; /* levels 1 and 2 only: level 3 is slow */
            continue;
        }
        if (rill_dir_exists(argv[i])) {
            for (size_t k = 0; k < sizeof(SKIMAGE_SET) / sizeof(SKIMAGE_SET[0]); k++) {
                char path[1024];
                if (!rill_path_join(path, sizeof(path), argv[i], SKIMAGE_SET[k]) ||
                    !rill_file_exists(path)) {
                    continue;
                }
                bench_image(path, qualities, nq, bc7, &bc1, &bc5, &bc4);
                images++;
            }
        } else {
            bench_image(argv[i], qualities, nq, bc7, &bc1, &bc5, &bc4);
            images++;
        }
    }
    if (images == 0) {
        fprintf(stderr, "usage: bench_bc [--quality N] [--quick] FILE_OR_DIR...\n"
                        "  e.g. bench_bc /usr/lib/python3/dist-packages/skimage/data\n");
        return 1;
    }
    for (int k = 0; k < nq; k++) {
        if (bc7[k].n) {
            printf("{\"bench\":\"bc\",\"summary\":\"bc7\",\"quality\":%u,\"images\":%d,"
                   "\"avg_psnr_rgb\":%.3f,\"avg_psnr_rgba\":%.3f,\"avg_mpix_s\":%.3f}\n",
                   qualities[k], bc7[k].n, bc7[k].psnr / bc7[k].n, bc7[k].psnr2 / bc7[k].n,
                   bc7[k].mp / bc7[k].sec);
        }
    }
    const struct {
        const char *n;
        acc *A;
    } s[] = {{"bc1", &bc1}, {"bc5", &bc5}, {"bc4", &bc4}};
    for (int k = 0; k < 3; k++) {
        if (s[k].A->n) {
            printf("{\"bench\":\"bc\",\"summary\":\"%s\",\"images\":%d,\"avg_psnr\":%.3f,"
                   "\"avg_mpix_s\":%.3f}\n",
                   s[k].n, s[k].A->n, s[k].A->psnr / s[k].A->n, s[k].A->mp / s[k].A->sec);
        }
    }
    return 0;
}
