/* image_psnr.h: PSNR of two RGBA8 images, the quality measure of the block-compression tests
 * (tests/bc) and benchmark (bench/bc), so both report the same number. Needs only libm. */
#ifndef RILL_TEST_IMAGE_PSNR_H
#define RILL_TEST_IMAGE_PSNR_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* PSNR in dB over channels [first, first + channels) of `pixels` RGBA8 pixels; 99 when equal. */
static inline double rill_test_psnr(const uint8_t *a, const uint8_t *b, size_t pixels, int first,
                                    int channels) {
    double se = 0;
    for (size_t i = 0; i < pixels; i++) {
        for (int c = first; c < first + channels; c++) {
            double d = (double)a[i * 4 + c] - (double)b[i * 4 + c];
            se += d * d;
        }
    }
    if (se == 0) {
        return 99.0;
    }
    double mse = se / ((double)pixels * channels);
    return 10.0 * log10(255.0 * 255.0 / mse);
}

#endif
