/* history.c: the two images a temporal filter (TAA, SSGI, volumetric fog) writes in turn, one
 * frame's result read back the next. */
#include "frame.h"

#include <stdio.h>

bool rill__history_images_create(rill__gpu *gpu, rill__img *img[2], uint32_t w, uint32_t h,
                                 const char *name, rill_error *err) {
    for (int i = 0; i < 2; i++) {
        char label[64];
        snprintf(label, sizeof(label), "%s history %d", name, i);
        rill__img_desc d = {.width = w,
                            .height = h,
                            .layers = 1,
                            .mips = 1,
                            .format = RILL_RG_FORMAT_RGBA16F,
                            .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                            .label = label};
        img[i] = rill__img_create(gpu, &d, err);
        if (!img[i]) {
            for (int k = 0; k < i; k++) {
                rill__img_destroy(gpu, img[k]);
                img[k] = NULL;
            }
            return false;
        }
    }
    return true;
}
