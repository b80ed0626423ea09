/* build.c: one chunk's build, run on a worker: world-space positions and normals for the render
 * mesh, and the height samples the physics heightfield is made from. The job owns a copy of its
 * inputs, so the terrain may change or go while it runs. Also the chunk grid's edge list, which,
 * like its triangle list, depends only on the resolution. */
#include "terrain_internal.h"

#include <math.h>
#include <string.h>

float rill__terrain_cell_height(float h00, float h10, float h01, float h11, float fx, float fz) {
    if (fx + fz <= 1.0f) {
        return h00 + (h10 - h00) * fx + (h01 - h00) * fz;
    }
    return h11 + (h01 - h11) * (1.0f - fx) + (h10 - h11) * (1.0f - fz);
}

uint32_t *rill__terrain_grid_edges(uint32_t res, uint32_t *out_count) {
    /* res rows of res - 1 segments along x, and as many columns along z; no diagonals. */
    size_t count = (size_t)res * (res - 1) * 4u;
    uint32_t *ix = rill_malloc_tagged(count * sizeof(uint32_t), RILL_MEM_TERRAIN);
    if (!ix) {
        return NULL;
    }
    size_t k = 0;
    for (uint32_t a = 0; a < res; a++) {
        for (uint32_t b = 0; b + 1 < res; b++) {
            ix[k++] = a * res + b; /* row a, along x */
            ix[k++] = a * res + b + 1;
            ix[k++] = b * res + a; /* column a, along z */
            ix[k++] = (b + 1) * res + a;
        }
    }
    *out_count = (uint32_t)count;
    return ix;
}

chunk_job *rill__terrain_chunk_job_make(const terrain_rec *t, uint32_t chunk) {
    uint32_t res = t->comp.resolution;
    uint32_t cx = chunk % t->comp.chunks_x, cz = chunk / t->comp.chunks_x;
    chunk_job *job = rill_calloc_tagged(1, sizeof *job, RILL_MEM_TERRAIN);
    if (!job) {
        return NULL;
    }
    job->border =
        rill_malloc_tagged((size_t)(res + 2) * (res + 2) * sizeof(float), RILL_MEM_TERRAIN);
    if (!job->border) {
        rill_free(job);
        return NULL;
    }
    int64_t x0 = (int64_t)cx * (res - 1) - 1, z0 = (int64_t)cz * (res - 1) - 1;
    for (uint32_t z = 0; z < res + 2; z++) {
        int64_t gz = RILL_CLAMP(z0 + (int64_t)z, 0, (int64_t)t->samples_z - 1);
        for (uint32_t x = 0; x < res + 2; x++) {
            int64_t gx = RILL_CLAMP(x0 + (int64_t)x, 0, (int64_t)t->samples_x - 1);
            job->border[(size_t)z * (res + 2) + x] = t->heights[(size_t)gz * t->samples_x + gx];
        }
    }
    job->entity = t->entity;
    job->generation = t->generation;
    job->chunk = chunk;
    job->seq = t->chunks[chunk].build_seq;
    job->res = res;
    job->spacing = t->comp.chunk_size / (float)(res - 1);
    job->origin[0] = t->origin[0] + (float)cx * t->comp.chunk_size;
    job->origin[1] = t->origin[1];
    job->origin[2] = t->origin[2] + (float)cz * t->comp.chunk_size;
    return job;
}

void rill__terrain_chunk_result_free(chunk_result *r) {
    if (!r) {
        return;
    }
    rill_free(r->vertices);
    rill_free(r->samples);
    rill_free(r);
}

void rill__terrain_chunk_job_free(chunk_job *job) {
    if (!job) {
        return;
    }
    rill__terrain_chunk_result_free(job->result);
    rill_free(job->border);
    rill_free(job);
}

void rill__terrain_chunk_job_run(void *arg) {
    chunk_job *job = arg;
    uint64_t t0 = rill_time_ns();
    uint32_t res = job->res, stride = res + 2;
    size_t n = (size_t)res * res;
    chunk_result *r = rill_calloc_tagged(1, sizeof *r, RILL_MEM_TERRAIN);
    if (r) {
        r->vertices = rill_malloc_tagged(n * 6u * sizeof(float), RILL_MEM_TERRAIN);
        r->samples = rill_malloc_tagged(n * sizeof(float), RILL_MEM_TERRAIN);
    }
    if (!r || !r->vertices || !r->samples) {
        rill__terrain_chunk_result_free(r);
        return; /* job->result stays NULL: the completion reports out of memory */
    }
    const float *b = job->border;
    float sp = job->spacing, inv2 = 0.5f / sp;
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t z = 0; z < res; z++) {
        for (uint32_t x = 0; x < res; x++) {
            const float *c = &b[(size_t)(z + 1) * stride + (x + 1)];
            float h = c[0];
            float *v = &r->vertices[((size_t)z * res + x) * 6u];
            v[0] = job->origin[0] + (float)x * sp;
            v[1] = job->origin[1] + h;
            v[2] = job->origin[2] + (float)z * sp;
            /* Central differences over the bordered samples: the normal of the surface y = h(x, z)
             * is (-dh/dx, 1, -dh/dz), normalized. */
            float dx = (c[1] - c[-1]) * inv2;
            float dz = (c[stride] - c[-(ptrdiff_t)stride]) * inv2;
            float len = sqrtf(dx * dx + 1.0f + dz * dz);
            v[3] = -dx / len;
            v[4] = 1.0f / len;
            v[5] = -dz / len;
            r->samples[(size_t)z * res + x] = h;
            lo = RILL_MIN(lo, h);
            hi = RILL_MAX(hi, h);
        }
    }
    r->bounds_min[0] = job->origin[0];
    r->bounds_min[1] = job->origin[1] + lo;
    r->bounds_min[2] = job->origin[2];
    r->bounds_max[0] = job->origin[0] + (float)(res - 1) * sp;
    r->bounds_max[1] = job->origin[1] + hi;
    r->bounds_max[2] = job->origin[2] + (float)(res - 1) * sp;
    r->build_ns = rill_time_ns() - t0;
    job->result = r;
}
