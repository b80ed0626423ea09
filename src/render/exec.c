/* exec.c: runs a compiled render graph on the GPU. Physical images for the graph's transient
 * slots come from a cache keyed by description (kept across frames, released after a few frames
 * unused); each pass gets its barriers, a debug label and a pair of GPU timestamps around its
 * callback. */
#include "render_internal.h"

#include <stdio.h>
#include <string.h>

#define TRANSIENT_KEEP_FRAMES 3

static bool desc_eq(const rill_rg_image_desc *a, const rill_rg_image_desc *b) {
    return a->format == b->format && a->width == b->width && a->height == b->height &&
           a->layers == b->layers && a->mips == b->mips && a->array_view == b->array_view &&
           a->samples == b->samples;
}

static uint32_t transient_usage(const rill_rg_image_desc *d) {
    if (d->samples > 1) { /* multisampled: drawn into, then resolved */
        return d->format == RILL_RG_FORMAT_D32F ? RILL__IMG_DEPTH
                                                : RILL__IMG_COLOR | RILL__IMG_TRANSFER_SRC;
    }
    uint32_t u = RILL__IMG_SAMPLED;
    switch (d->format) {
    case RILL_RG_FORMAT_D32F:
        u |= RILL__IMG_DEPTH;
        break;
    case RILL_RG_FORMAT_RGBA8_UNORM:
    case RILL_RG_FORMAT_RGBA16F:
    case RILL_RG_FORMAT_R32F:
        u |= RILL__IMG_COLOR | RILL__IMG_STORAGE | RILL__IMG_TRANSFER_SRC | RILL__IMG_TRANSFER_DST;
        break;
    default:
        u |= RILL__IMG_COLOR | RILL__IMG_TRANSFER_SRC | RILL__IMG_TRANSFER_DST;
        break;
    }
    if (d->array_view) {
        u |= RILL__IMG_ARRAY;
    }
    return u;
}

static rill__img *acquire_transient(rill_renderer *r, const rill_rg_image_desc *d, uint32_t slot,
                                    rill_error *err) {
    uint64_t frame = rill__gpu_frame_index(r->gpu);
    for (uint32_t i = 0; i < r->transients.len; i++) {
        transient_img *t = &r->transients.data[i];
        if (!t->used && desc_eq(&t->desc, d)) {
            t->used = true;
            t->last_frame = frame;
            return t->img;
        }
    }
    char label[64];
    snprintf(label, sizeof(label), "transient %u (%s %ux%u)", slot, rill_rg_format_name(d->format),
             d->width, d->height);
    rill__img_desc id = {.width = d->width,
                         .height = d->height,
                         .layers = d->layers,
                         .mips = d->mips,
                         .format = d->format,
                         .usage = transient_usage(d),
                         .label = label,
                         .samples = d->samples};
    rill__img *img = rill__img_create(r->gpu, &id, err);
    if (!img) {
        return NULL;
    }
    transient_img t = {*d, img, frame, true};
    if (!rill_array_push(&r->transients, t)) {
        rill__img_destroy(r->gpu, img);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        return NULL;
    }
    return img;
}

void rill__transients_release_unused(rill_renderer *r, bool all) {
    uint64_t frame = rill__gpu_frame_index(r->gpu);
    for (uint32_t i = 0; i < r->transients.len;) {
        transient_img *t = &r->transients.data[i];
        t->used = false;
        if (all || t->last_frame + TRANSIENT_KEEP_FRAMES < frame) {
            rill__img_destroy(r->gpu, t->img); /* deferred until the GPU is done with it */
            rill_array_swap_remove(&r->transients, i);
        } else {
            i++;
        }
    }
}

rill__img *rill__ctx_img(rill_rg_ctx *ctx, rill_rg_image image) {
    int32_t res = rill_rg_image_resource(ctx->g, image);
    if (res < 0) {
        return NULL;
    }
    int32_t slot = rill_rg_resource_slot(ctx->g, (uint32_t)res);
    if (slot >= 0) {
        return (uint32_t)slot < ctx->r->slot_images.len ? ctx->r->slot_images.data[slot] : NULL;
    }
    return rill_rg_resource_external(ctx->g, (uint32_t)res);
}

static void issue_barriers(rill_renderer *r, rill__cmd *cmd, const rill_rg *g,
                           const rill_rg_barrier *b, uint32_t n) {
    rill__img *imgs[32];
    rill__buf *bufs[32];
    for (uint32_t start = 0; start < n; start += 32) {
        uint32_t cnt = RILL_MIN(n - start, 32u);
        for (uint32_t i = 0; i < cnt; i++) {
            const rill_rg_barrier *br = &b[start + i];
            int32_t slot = rill_rg_resource_slot(g, br->resource);
            void *ext = rill_rg_resource_external(g, br->resource);
            imgs[i] = br->is_image ? (slot >= 0 ? r->slot_images.data[slot] : ext) : NULL;
            bufs[i] = br->is_image ? NULL : ext;
        }
        rill__cmd_barriers(cmd, b + start, cnt, imgs, bufs);
    }
}

rill_result rill__graph_execute(rill_renderer *r, rill__cmd *cmd, rill_error *err) {
    const rill_rg *g = r->graph;
    uint32_t nslots = rill_rg_slot_count(g);
    rill_array_clear(&r->slot_images);
    if (!rill_array_reserve(&r->slot_images, nslots ? nslots : 1)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    r->slot_images.len = nslots;
    for (uint32_t s = 0; s < nslots; s++) {
        r->slot_images.data[s] = NULL;
    }
    for (uint32_t res = 0; res < rill_rg_resource_count(g); res++) {
        int32_t slot = rill_rg_resource_slot(g, res);
        if (slot < 0 || r->slot_images.data[slot]) {
            continue;
        }
        rill_rg_image_desc d;
        rill_rg_resource_image_desc(g, res, &d);
        r->slot_images.data[slot] = acquire_transient(r, &d, (uint32_t)slot, err);
        if (!r->slot_images.data[slot]) {
            return err ? err->code : RILL_ERR_VULKAN;
        }
    }
    rill_rg_ctx ctx = {r, cmd, g};
    r->pass_cpu_count = 0;
    for (uint32_t i = 0; i < rill_rg_ordered_count(g); i++) {
        uint32_t nb;
        const rill_rg_barrier *b = rill_rg_barriers(g, i, &nb);
        issue_barriers(r, cmd, g, b, nb);
        void *user;
        rill_rg_exec_fn fn = rill_rg_ordered_exec(g, i, &user);
        if (!fn) {
            continue; /* anchors record nothing */
        }
        const char *label =
            rill_rg_ordered_label(g, i); /* interned: lives as long as the process */
        rill__cmd_label_begin(cmd, label);
        rill__cmd_timestamp_begin(cmd, label);
        uint64_t t0 = rill_time_ns();
        fn(&ctx, user);
        if (r->pass_cpu_count < RILL_RENDER_MAX_PASS_TIMINGS) {
            r->pass_cpu_names[r->pass_cpu_count] = label;
            r->pass_cpu_ms[r->pass_cpu_count++] = (double)(rill_time_ns() - t0) * 1e-6;
        }
        rill__cmd_timestamp_end(cmd);
        rill__cmd_label_end(cmd);
    }
    uint32_t nf;
    const rill_rg_barrier *fb = rill_rg_final_barriers(g, &nf);
    issue_barriers(r, cmd, g, fb, nf);
    return RILL_OK;
}
