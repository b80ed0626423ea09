/* device.c: the null device: creation (capabilities of a device that can do everything the
 * renderer asks, so every path of it is planned and recorded), destruction with the objects still
 * alive, material samplers, memory statistics and the validation count. */
#include "null_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOGM "render"
/* Validation messages logged in full; the rest are only counted. */
#define NULL_LOGGED_MESSAGES 16u
/* Distinct material samplers (Vulkan guarantees 4000 sampler objects). */
#define NULL_MAX_SAMPLERS 4000u

void rill__null_complain(rill__gpu *gpu, const char *fmt, ...) {
    if (gpu->validation_messages++ < NULL_LOGGED_MESSAGES) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        RILL_LOG_WARN(LOGM, "null backend: frame %llu: %s", (unsigned long long)gpu->frame_index,
                      msg);
    }
}

/* Vulkan's guaranteed minimum of maxStorageBufferRange (the null device's default), and the most
 * a device may report (the limit is a 32-bit field). */
#define NULL_STORAGE_RANGE_MIN (1u << 27)
#define NULL_STORAGE_RANGE_MAX UINT32_MAX

/* The storage range the null device reports: RILL_NULL_STORAGE_RANGE (bytes, in [2^27, 2^32 - 1])
 * when set and valid, so that paths a real device takes only past Vulkan's minimum (GPU culling
 * of a million instances) can be planned and recorded here; else the minimum, with a warning
 * naming a value it refuses. */
static uint64_t storage_range(void) {
    const char *env = getenv("RILL_NULL_STORAGE_RANGE");
    if (!env || !*env) {
        return NULL_STORAGE_RANGE_MIN;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    bool ok = errno == 0 && end != env && *end == '\0' && env[0] >= '0' && env[0] <= '9' &&
              v >= NULL_STORAGE_RANGE_MIN && v <= NULL_STORAGE_RANGE_MAX;
    if (!ok) {
        RILL_LOG_WARN(LOGM,
                      "null backend: RILL_NULL_STORAGE_RANGE '%.32s' is not a byte count in "
                      "[%u, %u]; using %u",
                      env, NULL_STORAGE_RANGE_MIN, NULL_STORAGE_RANGE_MAX, NULL_STORAGE_RANGE_MIN);
        return NULL_STORAGE_RANGE_MIN;
    }
    return v;
}

static void fill_caps(rill__gpu_caps *caps) {
    snprintf(caps->device_name, sizeof(caps->device_name), "null (no GPU)");
    caps->device_type = 0;
    caps->fill_mode_non_solid = true;
    caps->texture_bc = true;
    caps->anisotropy = true;
    caps->multi_draw_indirect = true;
    caps->draw_indirect_count = true;
    caps->max_storage_range = storage_range();
    caps->timestamps = false;
    caps->validation = true; /* the command stream is always checked */
    caps->timestamp_period_ns = 1.0f;
    caps->msaa_counts = 0xFu; /* 1, 2, 4 and 8 samples */
    caps->fragment_stores = true;
    caps->ray_query = false; /* no acceleration structures: the Hwrt GI tier falls back */
    snprintf(caps->ray_query_note, sizeof(caps->ray_query_note),
             "the null backend has no acceleration structures");
}

rill_result rill__gpu_create(const rill__gpu_desc *desc, rill__gpu **out, rill_error *err) {
    *out = NULL;
    if (desc->glfw_window) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: the null backend is headless (a window was given)");
    }
    rill__gpu *gpu = rill_calloc_tagged(1, sizeof(*gpu), RILL_MEM_RENDER);
    if (!gpu) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    gpu->desc = *desc;
    gpu->desc.frames_in_flight = RILL_CLAMP(desc->frames_in_flight, 1u, RILL__NULL_MAX_FRAMES);
    gpu->live.next = gpu->live.prev = &gpu->live;
    fill_caps(&gpu->caps);
    for (uint32_t i = 0; i < gpu->desc.frames_in_flight; i++) {
        gpu->frames[i].scratch = rill__buf_create(
            gpu, RILL__SCRATCH_FIRST_BYTES,
            RILL__BUF_STORAGE | RILL__BUF_UNIFORM | RILL__BUF_INDIRECT, true, "frame scratch", err);
        if (!gpu->frames[i].scratch) {
            rill__gpu_destroy(gpu);
            return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
        }
    }
    RILL_LOG_INFO(LOGM, "null backend: no GPU (commands are checked, nothing is drawn)");
    *out = gpu;
    return RILL_OK;
}

void rill__gpu_destroy(rill__gpu *gpu) {
    if (!gpu) {
        return;
    }
    rill__null_collect(gpu);
    for (uint32_t i = 0; i < gpu->uploads.len; i++) {
        if (gpu->uploads.data[i].release) {
            gpu->uploads.data[i].release(gpu->uploads.data[i].release_user);
        }
    }
    rill_array_free(&gpu->uploads);
    for (uint32_t i = 0; i < RILL__NULL_MAX_FRAMES; i++) {
        if (gpu->frames[i].scratch) {
            rill__null_free(gpu, &gpu->frames[i].scratch->o);
        }
    }
    if (gpu->live_count) {
        RILL_LOG_WARN(LOGM, "null backend: %u objects still alive at destroy (freed now)",
                      gpu->live_count);
    }
    while (gpu->live.next != &gpu->live) {
        rill__null_free(gpu, gpu->live.next);
    }
    rill_array_free(&gpu->dels);
    rill_array_free(&gpu->material_samplers);
    rill_free(gpu);
}

const rill__gpu_caps *rill__gpu_get_caps(const rill__gpu *gpu) {
    return &gpu->caps;
}

uint32_t rill__gpu_validation_messages(const rill__gpu *gpu) {
    return gpu->validation_messages;
}

rill_result rill__gpu_wait_idle(rill__gpu *gpu, rill_error *err) {
    (void)err;
    NULL_GUARD(gpu);
    return RILL_OK;
}

void rill__gpu_mem_stats_get(const rill__gpu *gpu, rill__gpu_mem_stats *out) {
    memset(out, 0, sizeof(*out));
    out->used_bytes = gpu->host_bytes;
    out->allocations = gpu->live_count;
}

rill__sampler_kind rill__sampler_material(rill__gpu *gpu, const rill__sampler_desc *d,
                                          rill_error *err) {
    NULL_GUARD(gpu);
    for (uint32_t i = 0; i < gpu->material_samplers.len; i++) {
        if (memcmp(&gpu->material_samplers.data[i], d, sizeof(*d)) == 0) {
            return (rill__sampler_kind)(RILL__SAMPLER_NUM + i);
        }
    }
    if (gpu->material_samplers.len >= NULL_MAX_SAMPLERS ||
        !rill_array_push(&gpu->material_samplers, *d)) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: no room for another sampler");
        return RILL__SAMPLER_LINEAR_REPEAT;
    }
    return (rill__sampler_kind)(RILL__SAMPLER_NUM + gpu->material_samplers.len - 1);
}

bool rill__sampler_desc_of(const rill__gpu *gpu, rill__sampler_kind kind, rill__sampler_desc *out) {
    if ((uint32_t)kind < RILL__SAMPLER_NUM ||
        (uint32_t)kind - RILL__SAMPLER_NUM >= gpu->material_samplers.len) {
        return false;
    }
    *out = gpu->material_samplers.data[(uint32_t)kind - RILL__SAMPLER_NUM];
    return true;
}
