/* bench_anim.c: animation sampling cost for many instances. A clip of JOINTS nodes, each with a
 * rotation (slerp) and a translation (lerp) channel of KEYS keys over 2 s, is sampled for N
 * instances at different times each frame, on the job system (chunks of 16 instances, as the
 * AnimationPlayer system samples them) and on one thread. Prints one JSON line per run: the
 * median and best frame time over FRAMES frames. This is the sampling stage alone (the scene
 * system then writes one Transform per animated node on the main thread).
 * Usage: bench_anim [instances=10000] [joints=60] [keys=30] [frames=30] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/base.h"
#include "rill/formats/gltf.h"

typedef struct ctx {
    const rill_gltf_animation *an;
    uint32_t joints;
    float *out; /* instances * joints * 7 */
    float t0;
} ctx;

static void sample_range(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    ctx *c = arg;
    for (uint32_t i = begin; i < end; i++) {
        float t = fmodf(c->t0 + (float)i * 0.013f, 2.0f);
        float *o = c->out + (size_t)i * c->joints * 7;
        for (uint32_t ch = 0; ch < c->an->channel_count; ch++) {
            const rill_gltf_anim_channel *k = &c->an->channels[ch];
            bool rot = k->path == RILL_GLTF_ANIM_ROTATION;
            rill_gltf_sampler_eval(&c->an->samplers[k->sampler], t, rot,
                                   o + (size_t)k->node * 7 + (rot ? 3 : 0));
        }
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run(const char *mode, rill_jobs *jobs, ctx *c, uint32_t n, uint32_t frames) {
    double *ms = malloc(sizeof(double) * frames);
    for (uint32_t f = 0; f < frames; f++) {
        c->t0 = (float)f * 0.016f;
        uint64_t a = rill_time_ns();
        rill_jobs_for(jobs, n, 16, sample_range, c);
        ms[f] = (double)(rill_time_ns() - a) / 1e6;
    }
    qsort(ms, frames, sizeof(double), cmp);
    printf("{\"bench\":\"anim_sample\",\"mode\":\"%s\",\"workers\":%u,\"instances\":%u,"
           "\"joints\":%u,\"channels_per_joint\":2,\"median_ms\":%.3f,\"best_ms\":%.3f,"
           "\"samples_per_s\":%.0f}\n",
           mode, jobs ? rill_jobs_worker_count(jobs) : 0, n, c->joints, ms[frames / 2], ms[0],
           (double)n * c->joints * 2.0 / (ms[frames / 2] / 1e3));
    free(ms);
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
    uint32_t joints = argc > 2 ? (uint32_t)atoi(argv[2]) : 60;
    uint32_t keys = argc > 3 ? (uint32_t)atoi(argv[3]) : 30;
    uint32_t frames = argc > 4 ? (uint32_t)atoi(argv[4]) : 30;
    if (!n || !joints || keys < 2 || !frames) {
        return 2;
    }
    rill_gltf_animation an = {.channel_count = joints * 2, .sampler_count = joints * 2};
    an.channels = calloc(an.channel_count, sizeof(*an.channels));
    an.samplers = calloc(an.sampler_count, sizeof(*an.samplers));
    for (uint32_t j = 0; j < joints; j++) {
        for (int p = 0; p < 2; p++) {
            uint32_t s = j * 2 + (uint32_t)p;
            uint32_t comps = p ? 3 : 4;
            rill_gltf_anim_sampler *sm = &an.samplers[s];
            *sm = (rill_gltf_anim_sampler){keys, comps, RILL_GLTF_INTERP_LINEAR,
                                           malloc(sizeof(float) * keys),
                                           malloc(sizeof(float) * keys * comps)};
            for (uint32_t k = 0; k < keys; k++) {
                sm->times[k] = 2.0f * (float)k / (float)(keys - 1);
                float a = 0.3f * sinf((float)(k + j));
                float *v = sm->values + k * comps;
                if (comps == 4) {
                    v[0] = sinf(a), v[1] = 0, v[2] = 0, v[3] = cosf(a);
                } else {
                    v[0] = a, v[1] = 1.0f, v[2] = -a;
                }
            }
            an.channels[s] = (rill_gltf_anim_channel){
                (int32_t)j, p ? RILL_GLTF_ANIM_TRANSLATION : RILL_GLTF_ANIM_ROTATION, s};
        }
    }
    ctx c = {&an, joints, calloc((size_t)n * joints * 7, sizeof(float)), 0};
    rill_jobs *jobs = rill_jobs_create(NULL, NULL);
    run("jobs", jobs, &c, n, frames);
    run("serial", NULL, &c, n, frames);
    rill_jobs_destroy(jobs);
    for (uint32_t s = 0; s < an.sampler_count; s++) {
        free(an.samplers[s].times);
        free(an.samplers[s].values);
    }
    free(an.samplers);
    free(an.channels);
    free(c.out);
    return 0;
}
