/* bench_skin.c: the cost of skinning N instances of a mesh bound to J joints: on the CPU, the
 * joint matrices a frame computes (per joint: a chain of local rotations composed into world
 * matrices, then mesh-inverse x world x inverse bind, what sampling, propagation and extract do)
 * and the renderer's frame recording (copying the snapshot, one dispatch per instance); on the
 * GPU, the "skinning" compute step (timestamps) and the whole frame. The mesh is a tube of 32
 * rings x 16 sides (512 vertices) along +Y, each ring weighted to its two nearest joints. Prints
 * one JSON line per (N, J):
 *   {"bench":"skin","instances":N,"joints":J,"vertices":512,"cpu_joints_ms":...,
 *    "cpu_record_ms":...,"gpu_skinning_ms":...,"gpu_frame_ms":...,"device":"..."}
 * Usage: bench_skin [--counts 100,1000,10000] [--joints 16,60] [--frames N] [--size WxH]
 *                   [--device NAME] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "bench_renderer.h"

#define RINGS 32
#define SIDES 16

static rill_mesh make_tube(rill_renderer *r, uint32_t joints) {
    static rill_vertex v[RINGS * SIDES];
    static rill_vertex_skin s[RINGS * SIDES];
    static uint32_t idx[(RINGS - 1) * SIDES * 6];
    uint32_t n = 0;
    for (uint32_t ring = 0; ring < RINGS; ring++) {
        float y = 2.0f * (float)ring / (RINGS - 1);
        float jf = (float)ring / (RINGS - 1) * (float)(joints - 1);
        uint32_t j0 = (uint32_t)jf, j1 = j0 + 1 < joints ? j0 + 1 : j0;
        float f = jf - (float)j0;
        for (uint32_t k = 0; k < SIDES; k++) {
            float a = 6.2831853f * (float)k / SIDES;
            rill_vertex *vv = &v[ring * SIDES + k];
            memset(vv, 0, sizeof(*vv));
            vv->position[0] = 0.1f * cosf(a), vv->position[1] = y, vv->position[2] = 0.1f * sinf(a);
            vv->normal[0] = cosf(a), vv->normal[2] = sinf(a);
            s[ring * SIDES + k] =
                (rill_vertex_skin){{(uint16_t)j0, (uint16_t)j1, 0, 0}, {1.0f - f, f, 0, 0}};
        }
    }
    for (uint32_t ring = 0; ring + 1 < RINGS; ring++) {
        for (uint32_t k = 0; k < SIDES; k++) {
            uint32_t a = ring * SIDES + k, b = ring * SIDES + (k + 1) % SIDES;
            uint32_t q[6] = {a, a + SIDES, b, b, a + SIDES, b + SIDES};
            memcpy(&idx[n], q, sizeof(q));
            n += 6;
        }
    }
    rill_error err = {0};
    rill_mesh m = rill_render_mesh_create(r,
                                          &(rill_mesh_desc){.vertices = v,
                                                            .vertex_count = RINGS * SIDES,
                                                            .indices = idx,
                                                            .index_count = n,
                                                            .gpu_only = true,
                                                            .skin = s,
                                                            .label = "tube"},
                                          &err);
    if (!m.id) {
        fprintf(stderr, "bench_skin: %s\n", err.msg);
    }
    return m;
}

/* Joint matrices of every instance at time t: joint k sits at y = 2k / (J - 1) and bends by a
 * small angle about Z; world matrices compose down the chain; each is then brought into the
 * instance's space through its inverse bind (a translation by -y) and the instance's inverse. */
static void joint_matrices(uint32_t n, uint32_t joints, float t, const rill_render_instance *in,
                           float *out) {
    float step = 2.0f / (float)(joints > 1 ? joints - 1 : 1);
    for (uint32_t i = 0; i < n; i++) {
        mat4 inst, inv, world;
        memcpy(inst, in[i].transform, sizeof(inst));
        glm_mat4_inv(inst, inv);
        glm_mat4_copy(inst, world);
        for (uint32_t j = 0; j < joints; j++) {
            mat4 local, w2, ibm, rel, m;
            glm_mat4_identity(local);
            glm_translate_y(local, j ? step : 0.0f);
            glm_rotate_z(local, 0.3f * sinf(t + 0.1f * (float)(i + j)), local);
            glm_mat4_mul(world, local, w2);
            glm_mat4_copy(w2, world);
            glm_mat4_identity(ibm);
            glm_translate_y(ibm, -step * (float)j);
            glm_mat4_mul(inv, w2, rel);
            glm_mat4_mul(rel, ibm, m);
            memcpy(&out[((size_t)i * joints + j) * 16], m, sizeof(m));
        }
    }
}

static double pass_ms(const rill_render_stats *s, const char *name) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        if (strcmp(s->pass_names[i], name) == 0) {
            t += s->pass_gpu_ms[i];
        }
    }
    return t;
}

static double total_ms(const rill_render_stats *s) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        t += s->pass_gpu_ms[i];
    }
    return t;
}

static int run(rill_renderer *r, rill_material mat, uint32_t count, uint32_t joints,
               uint32_t frames) {
    rill_mesh mesh = make_tube(r, joints);
    rill_render_instance *in = calloc(count, sizeof(*in));
    rill_render_skin *sk = calloc(count, sizeof(*sk));
    float *jm = malloc((size_t)count * joints * 64);
    if (!mesh.id || !in || !sk || !jm) {
        free(in), free(sk), free(jm);
        return 1;
    }
    uint32_t side = (uint32_t)ceilf(sqrtf((float)count));
    for (uint32_t i = 0; i < count; i++) {
        in[i].id = i + 1;
        in[i].mesh = mesh;
        in[i].material = mat;
        for (int k = 0; k < 16; k++) {
            in[i].transform[k] = (k % 5 == 0) ? 1.0f : 0.0f;
        }
        in[i].transform[12] = ((float)(i % side) - 0.5f * (float)side) * 0.5f;
        in[i].transform[14] = -3.0f - 0.5f * (float)(i / side);
        sk[i] = (rill_render_skin){i, i * joints, joints};
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    for (int k = 0; k < 16; k++) {
        snap.view.world_from_view[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    snap.view.world_from_view[13] = 1.0f;
    snap.instances = in;
    snap.instance_count = count;
    snap.skins = sk;
    snap.skin_count = count;
    snap.joint_matrices = jm;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.3f;
    double cpu_joints = 0, record = 0, gpu_skin = 0, gpu_frame = 0;
    uint32_t measured = 0;
    rill_error err = {0};
    for (uint32_t f = 0; f < frames + 3; f++) {
        uint64_t t0 = rill_time_ns();
        joint_matrices(count, joints, 0.05f * (float)f, in, jm);
        double cj = (double)(rill_time_ns() - t0) * 1e-6;
        if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
            rill_renderer_wait_idle(r, &err) != RILL_OK) {
            fprintf(stderr, "bench_skin: %s\n", err.msg);
            break;
        }
        if (f < 3) {
            continue; /* uploads and first-use targets */
        }
        rill_render_stats s;
        rill_renderer_stats(r, &s);
        cpu_joints += cj;
        record += s.cpu_record_ms;
        gpu_skin += pass_ms(&s, "skinning");
        gpu_frame += total_ms(&s);
        measured++;
    }
    rill_render_stats s;
    rill_renderer_stats(r, &s);
    double m = measured ? (double)measured : 1.0;
    printf("{\"bench\":\"skin\",\"instances\":%u,\"joints\":%u,\"vertices\":%u,"
           "\"cpu_joints_ms\":%.3f,\"cpu_record_ms\":%.3f,\"gpu_skinning_ms\":%.3f,"
           "\"gpu_frame_ms\":%.3f,\"device\":\"%s\"}\n",
           count, joints, RINGS * SIDES, cpu_joints / m, record / m, gpu_skin / m, gpu_frame / m,
           s.device_name);
    fflush(stdout);
    /* Let the targets of this run go before the next mesh. */
    snap.skin_count = 0;
    snap.instance_count = 0;
    for (int k = 0; k < 12; k++) {
        rill_renderer_render(r, &snap, NULL);
    }
    rill_render_mesh_destroy(r, mesh);
    free(in), free(sk), free(jm);
    return 0;
}

static uint32_t parse_list(const char *s, uint32_t *out, uint32_t cap) {
    uint32_t n = 0;
    while (s && *s && n < cap) {
        out[n++] = (uint32_t)strtoul(s, NULL, 10);
        s = strchr(s, ',');
        s = s ? s + 1 : NULL;
    }
    return n;
}

int main(int argc, char **argv) {
    uint32_t counts[8] = {100, 1000, 10000}, nc = 3, joints[8] = {16, 60}, nj = 2;
    uint32_t frames = 20, w = 1280, h = 720;
    const char *device = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--counts") == 0) {
            nc = parse_list(argv[i + 1], counts, 8);
        } else if (strcmp(argv[i], "--joints") == 0) {
            nj = parse_list(argv[i + 1], joints, 8);
        } else if (strcmp(argv[i], "--frames") == 0) {
            frames = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--size") == 0) {
            sscanf(argv[i + 1], "%ux%u", &w, &h);
        } else if (strcmp(argv[i], "--device") == 0) {
            device = argv[i + 1];
        }
    }
    rill_renderer *r = bench_renderer_create(
        "bench_skin", (rill_renderer_desc){.width = w, .height = h, .device_name = device});
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_material mat = rill_render_material_create(r, &(rill_material_desc){0}, &err);
    int rc = 0;
    for (uint32_t a = 0; a < nc && rc == 0; a++) {
        for (uint32_t b = 0; b < nj && rc == 0; b++) {
            rc = run(r, mat, counts[a], joints[b] ? joints[b] : 1, frames);
        }
    }
    rill_renderer_destroy(r);
    return rc;
}
