/* resources.c: the null backend's buffers, images, pipelines and descriptor sets (host memory on
 * the device's live list), their deferred destruction, and uploads: checked as the Vulkan backend
 * checks them, queued, and recorded at frame begin under the same per-frame byte budget. */
#include "null_internal.h"

#include <stdio.h>
#include <string.h>

#define SPIRV_MAGIC 0x07230203u

/* >>objects --------------------------------------------------------------------------------- */

void rill__null_link(rill__gpu *gpu, null_obj *o, null_kind kind, const char *label) {
    o->kind = kind;
    snprintf(o->label, sizeof(o->label), "%s", label ? label : "?");
    o->prev = gpu->live.prev;
    o->next = &gpu->live;
    gpu->live.prev->next = o;
    gpu->live.prev = o;
    gpu->live_count++;
}

void rill__null_free(rill__gpu *gpu, null_obj *o) {
    o->prev->next = o->next;
    o->next->prev = o->prev;
    gpu->live_count--;
    if (o->kind == NULL_KIND_BUF) {
        rill__buf *b = (rill__buf *)o;
        if (b->mapped) {
            gpu->host_bytes -= b->size;
            rill_free(b->mapped);
        }
    }
    rill_free(o);
}

void rill__null_defer(rill__gpu *gpu, null_obj *o) {
    if (!gpu->in_frame || !rill_array_push(&gpu->dels, o)) {
        rill__null_free(gpu, o); /* outside a frame every earlier frame has finished */
    }
}

void rill__null_collect(rill__gpu *gpu) {
    for (uint32_t i = 0; i < gpu->dels.len; i++) {
        rill__null_free(gpu, gpu->dels.data[i]);
    }
    gpu->dels.len = 0;
}

/* >>buffers --------------------------------------------------------------------------------- */

rill__buf *rill__buf_create(rill__gpu *gpu, uint64_t size, uint32_t usage, bool host_visible,
                            const char *label, rill_error *err) {
    NULL_GUARD(gpu);
    (void)usage;
    if (size == 0) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: buffer '%s' of size 0",
                       label ? label : "?");
        return NULL;
    }
    rill__buf *b = rill_calloc_tagged(1, sizeof(*b), RILL_MEM_RENDER);
    if (b && host_visible) {
        b->mapped = size <= SIZE_MAX ? rill_calloc_tagged(1, (size_t)size, RILL_MEM_RENDER) : NULL;
        if (!b->mapped) {
            rill_free(b);
            b = NULL;
        }
    }
    if (!b) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for buffer '%s'",
                       label ? label : "?");
        return NULL;
    }
    b->size = size;
    b->ready = host_visible;
    gpu->host_bytes += host_visible ? size : 0;
    rill__null_link(gpu, &b->o, NULL_KIND_BUF, label);
    return b;
}

void *rill__buf_map(rill__buf *buf) {
    return buf->mapped;
}

uint64_t rill__buf_size(const rill__buf *buf) {
    return buf->size;
}

bool rill__buf_ready(const rill__buf *buf) {
    return buf->ready;
}

void rill__buf_mark_written(rill__buf *buf) {
    buf->ready = true;
}

uint64_t rill__buf_upload_seq(const rill__buf *buf) {
    return buf->uploads_queued;
}

bool rill__buf_seq_done(const rill__buf *buf, uint64_t seq) {
    return buf->mapped || buf->uploads_done >= seq;
}

void rill__buf_destroy(rill__gpu *gpu, rill__buf *buf) {
    NULL_GUARD(gpu);
    if (buf) {
        rill__null_drop_uploads_for(gpu, buf);
        rill__null_defer(gpu, &buf->o);
    }
}

/* >>images ---------------------------------------------------------------------------------- */

rill__img *rill__img_create(rill__gpu *gpu, const rill__img_desc *desc, rill_error *err) {
    NULL_GUARD(gpu);
    const char *label = desc->label ? desc->label : "?";
    if (!desc->width || !desc->height || !desc->layers || !desc->mips ||
        desc->mips > RILL__MAX_MIPS) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: image '%s': %ux%u, %u layers, %u mips", label, desc->width,
                       desc->height, desc->layers, desc->mips);
        return NULL;
    }
    if ((desc->usage & RILL__IMG_SRGB_VIEW) && desc->format != RILL_RG_FORMAT_RGBA8_UNORM &&
        desc->format != RILL_RG_FORMAT_BGRA8_UNORM) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: image '%s': an sRGB view needs an RGBA8 or BGRA8 UNORM format",
                       label);
        return NULL;
    }
    if ((desc->usage & RILL__IMG_CUBE) && desc->layers != 6) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: cube image '%s' with %u layers",
                       label, desc->layers);
        return NULL;
    }
    rill__img *img = rill_calloc_tagged(1, sizeof(*img), RILL_MEM_RENDER);
    if (!img) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for image '%s'", label);
        return NULL;
    }
    img->desc = *desc;
    rill__null_link(gpu, &img->o, NULL_KIND_IMG, label);
    return img;
}

void rill__img_destroy(rill__gpu *gpu, rill__img *img) {
    NULL_GUARD(gpu);
    if (img) {
        rill__null_drop_uploads_for(gpu, img);
        rill__null_defer(gpu, &img->o);
    }
}

const rill__img_desc *rill__img_get_desc(const rill__img *img) {
    return &img->desc;
}

bool rill__img_ready(const rill__img *img) {
    return img->ready;
}

/* >>uploads --------------------------------------------------------------------------------- */

static rill_result queue(rill__gpu *gpu, null_upload u, rill_error *err) {
    if (!rill_array_push(&gpu->uploads, u)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for an upload");
    }
    return RILL_OK;
}

rill_result rill__buf_upload(rill__gpu *gpu, rill__buf *buf, uint64_t offset, const void *data,
                             uint64_t size, rill_error *err) {
    NULL_GUARD(gpu);
    if (!buf || !data || size == 0 || offset + size > buf->size || offset + size < offset) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: upload out of buffer range");
    }
    if (buf->mapped) {
        memcpy(buf->mapped + offset, data, size);
        return RILL_OK;
    }
    null_upload u = {.target = buf, .size = size, .seq = buf->uploads_queued + 1u};
    RILL_TRY(queue(gpu, u, err));
    buf->uploads_queued = u.seq;
    return RILL_OK;
}

rill_result rill__img_upload(rill__gpu *gpu, rill__img *img, const void *data, uint64_t size,
                             rill_error *err) {
    NULL_GUARD(gpu);
    if (!img || !data || size == 0 || img->desc.depth > 1) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: empty image upload (or a 3D image: GPU-written only)");
    }
    null_upload u = {
        .is_image = true, .target = img, .size = size, .gen_mips = true, .level_count = 1};
    return queue(gpu, u, err);
}

/* The bytes of level `level` of img (rows of pixels, or of 4x4 blocks for block formats). */
static uint64_t level_bytes(const rill__img *img, uint32_t level) {
    return rill__fmt_level_bytes(img->desc.format, img->desc.width, img->desc.height, level);
}

/* Checks levels [first, first + count) as the Vulkan backend does; their packed size in *total. */
static rill_result check_levels(const rill__img *img, uint32_t first, uint32_t count,
                                const void *const *level_data, const uint64_t *level_size,
                                uint64_t *total, rill_error *err) {
    if (!img || count == 0 || first + count > img->desc.mips ||
        rill__fmt_unit_bytes(img->desc.format) == 0 || img->desc.depth > 1) {
        return rill_error_set(
            err, RILL_ERR_INVALID_ARGUMENT, "render: image '%s': levels %u..%u out of its %u",
            img ? img->o.label : "?", first, first + count, img ? img->desc.mips : 0);
    }
    *total = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t want = level_bytes(img, first + i);
        if (!level_data[i] || level_size[i] != want) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "render: image '%s': level %u holds %llu bytes, expected %llu",
                                  img->o.label, first + i, (unsigned long long)level_size[i],
                                  (unsigned long long)want);
        }
        *total += RILL_ALIGN_UP(want, (uint64_t)16);
    }
    return RILL_OK;
}

rill_result rill__img_upload_levels(rill__gpu *gpu, rill__img *img, uint32_t first_level,
                                    uint32_t level_count, const void *const *level_data,
                                    const uint64_t *level_size, rill_error *err) {
    NULL_GUARD(gpu);
    uint64_t total = 0;
    RILL_TRY(check_levels(img, first_level, level_count, level_data, level_size, &total, err));
    null_upload u = {.is_image = true,
                     .target = img,
                     .size = total,
                     .first_level = first_level,
                     .level_count = level_count};
    return queue(gpu, u, err);
}

rill_result rill__img_upload_levels_borrowed(rill__gpu *gpu, rill__img *img, uint32_t level_count,
                                             const void *const *level_data,
                                             const uint64_t *level_size,
                                             void (*release)(void *user), void *user,
                                             rill_error *err) {
    NULL_GUARD(gpu);
    uint64_t total = 0;
    RILL_TRY(check_levels(img, 0, level_count, level_data, level_size, &total, err));
    null_upload u = {.is_image = true,
                     .target = img,
                     .size = total,
                     .release = release,
                     .release_user = user,
                     .level_count = level_count};
    return queue(gpu, u, err);
}

static void upload_end(null_upload *u) {
    if (u->release) {
        u->release(u->release_user);
        u->release = NULL;
    }
}

void rill__null_drop_uploads_for(rill__gpu *gpu, const void *target) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < gpu->uploads.len; i++) {
        if (gpu->uploads.data[i].target == target) {
            upload_end(&gpu->uploads.data[i]);
        } else {
            gpu->uploads.data[kept++] = gpu->uploads.data[i];
        }
    }
    gpu->uploads.len = kept;
}

/* The shape upload_pieces.c cuts u by, as the Vulkan backend makes it. */
static rill__upload_shape upload_shape(const null_upload *u) {
    rill__upload_shape s = {.size = u->size, .image = u->is_image};
    if (u->is_image) {
        const rill__img *img = u->target;
        s.width = img->desc.width;
        s.height = img->desc.height;
        s.first_level = u->first_level;
        s.level_count = u->level_count;
        s.unit_bytes = rill__fmt_unit_bytes(img->desc.format);
        s.block = rill__fmt_is_block(img->desc.format);
        s.whole_only =
            img->ready || img->desc.depth > 1 || (u->gen_mips && u->size != level_bytes(img, 0));
    }
    return s;
}

/* The Vulkan backend's rule: uploads go in order while the frame's budget has room, one larger
 * than what is left in pieces over the next frames (ready with its last), and the first piece of
 * a frame always goes (through its own staging there). */
void rill__null_record_uploads(rill__gpu *gpu) {
    uint64_t used = 0, budget = gpu->desc.upload_budget_bytes;
    uint32_t done = 0;
    bool head_touched = false;
    gpu->uploaded_last_frame = 0;
    while (done < gpu->uploads.len) {
        null_upload *u = &gpu->uploads.data[done];
        rill__upload_shape s = upload_shape(u);
        rill__upload_piece p;
        bool first = gpu->uploaded_last_frame == 0;
        if (!rill__upload_next_piece(&s, &u->at, used < budget ? budget - used : 0, first, &p)) {
            break;
        }
        used += RILL_ALIGN_UP(p.bytes, (uint64_t)16);
        head_touched = !p.ends;
        rill__upload_advance(&s, &u->at, &p);
        gpu->uploaded_last_frame += p.bytes;
        if (!p.ends) {
            continue;
        }
        if (u->is_image) {
            ((rill__img *)u->target)->ready = true;
        } else {
            rill__buf *b = u->target;
            b->ready = true;
            b->uploads_done = RILL_MAX(b->uploads_done, u->seq);
        }
        upload_end(u);
        done++;
    }
    if (done > 0 && done < gpu->uploads.len) { /* no data pointer when nothing was queued */
        memmove(gpu->uploads.data, gpu->uploads.data + done,
                (gpu->uploads.len - done) * sizeof(null_upload));
    }
    gpu->uploads.len -= done;
    gpu->upload_figures.uploads = done + (head_touched ? 1u : 0u);
    gpu->upload_figures.backlog_bytes = 0;
    for (uint32_t i = 0; i < gpu->uploads.len; i++) {
        gpu->upload_figures.backlog_bytes +=
            gpu->uploads.data[i].size - gpu->uploads.data[i].at.done;
    }
}

/* >>pipelines ------------------------------------------------------------------------------- */

static bool is_spirv(const uint32_t *code, size_t size) {
    return code && size >= 20 && size % 4 == 0 && code[0] == SPIRV_MAGIC;
}

rill__pipe *rill__pipe_create(rill__gpu *gpu, const rill__pipe_desc *desc, rill_error *err) {
    NULL_GUARD(gpu);
    const char *label = desc->label ? desc->label : "?";
    bool compute = desc->cs != NULL;
    bool shaders = compute ? is_spirv(desc->cs, desc->cs_size)
                           : is_spirv(desc->vs, desc->vs_size) &&
                                 (!desc->fs || is_spirv(desc->fs, desc->fs_size));
    if (!shaders || desc->set_count > RILL__MAX_SETS || desc->color_count > RILL__MAX_COLOR) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: pipeline '%s': shaders that are not SPIR-V, or too many sets or "
                       "colour targets",
                       label);
        return NULL;
    }
    rill__pipe *p = rill_calloc_tagged(1, sizeof(*p), RILL_MEM_RENDER);
    if (!p) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for pipeline '%s'",
                       label);
        return NULL;
    }
    memcpy(p->sets, desc->sets, sizeof(p->sets));
    p->set_count = desc->set_count;
    p->push_size = desc->push_size;
    p->compute = compute;
    rill__null_link(gpu, &p->o, NULL_KIND_PIPE, label);
    return p;
}

void rill__pipe_destroy(rill__gpu *gpu, rill__pipe *pipe) {
    NULL_GUARD(gpu);
    if (pipe) {
        rill__null_defer(gpu, &pipe->o);
    }
}

/* Whether b gives a binding of kind what it needs. */
static bool binding_ok(rill__bind_kind kind, const rill__binding *b) {
    switch (kind) {
    case RILL__BIND_UNIFORM:
    case RILL__BIND_STORAGE:
        return b->buf && b->offset + b->range <= b->buf->size && b->offset < b->buf->size;
    case RILL__BIND_TEXTURE:
    case RILL__BIND_STORAGE_IMAGE:
    case RILL__BIND_SAMPLED_IMAGE:
        return b->img && (b->layer < 0 || (uint32_t)b->layer < b->img->desc.layers) &&
               (!b->one_level || b->level < b->img->desc.mips);
    default:
        return true;
    }
}

bool rill__null_check_bindings(rill__gpu *gpu, const char *what, const rill__set_layout *layout,
                               const rill__binding *bindings, uint32_t count) {
    uint32_t needed = 0;
    while (needed < RILL__MAX_BINDINGS && layout->bindings[needed] != RILL__BIND_NONE) {
        needed++;
    }
    if (count < needed || count > RILL__MAX_BINDINGS) {
        rill__null_complain(gpu, "%s: %u bindings for a set of %u", what, count, needed);
        return false;
    }
    for (uint32_t i = 0; i < needed; i++) {
        if (!binding_ok(layout->bindings[i], &bindings[i])) {
            rill__null_complain(gpu, "%s: binding %u is missing or out of range", what, i);
            return false;
        }
    }
    return true;
}

rill__dset *rill__dset_create(rill__gpu *gpu, const rill__pipe *pipe, uint32_t set_index,
                              const rill__binding *bindings, uint32_t count, rill_error *err) {
    NULL_GUARD(gpu);
    if (!pipe || set_index >= pipe->set_count) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: descriptor set %u of pipeline '%s'",
                       set_index, pipe ? pipe->o.label : "?");
        return NULL;
    }
    if (!rill__null_check_bindings(gpu, pipe->o.label, &pipe->sets[set_index], bindings, count)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: descriptor set %u of pipeline '%s': bad bindings", set_index,
                       pipe->o.label);
        return NULL;
    }
    rill__dset *s = rill_calloc_tagged(1, sizeof(*s), RILL_MEM_RENDER);
    if (!s) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for a descriptor set");
        return NULL;
    }
    s->layout = pipe->sets[set_index];
    rill__null_link(gpu, &s->o, NULL_KIND_DSET, pipe->o.label);
    return s;
}

void rill__dset_destroy(rill__gpu *gpu, rill__dset *set) {
    NULL_GUARD(gpu);
    if (set) {
        rill__null_defer(gpu, &set->o);
    }
}
