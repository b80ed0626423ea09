/* bench_render.c: renders a grid of N mesh instances (cubes and spheres, 8 materials, sun with 4
 * shadow cascades) at 1920x1080 and prints one JSON line per N with the CPU time to record a frame
 * (culling, sorting, instance upload, graph build/compile, command recording; measured with the GPU
 * idle so it excludes waiting) and the GPU time of each pass (timestamps).
 *
 * usage: bench_render [--counts 1000,10000,100000] [--frames 5] [--size 1920x1080] [--device NAME]
 *                     [--lights N]   (N point lights scattered over the grid; default 0)
 *                     [--profile-cpu] (adds "cpu_phase_ms": the mean CPU time of each recording
 *                                      phase: setup, cull, sort, upload, graph, commands, submit)
 *                     [--zoom Z]      (the camera Z times closer to the grid's centre, default 1:
 *                                      most of the grid falls outside the view, as in an open
 *                                      world; 4 leaves about 7 % of 100k instances visible)
 *                     [--png PATH]    (writes the last frame of each count to PATH with the count
 *                                      appended, e.g. out.png -> out.png.10000.png: lets two builds
 *                                      be compared byte for byte)
 *                     [--workers N]   (job workers the renderer culls with, as rill_app_jobs gives
 *                                      it: default one per core but the caller's; 0 = none, the
 *                                      calling thread alone)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"

#include "bench_renderer.h"

typedef struct acc {
    const char *name;
    double sum;
    uint32_t n;
} acc;

enum { PHASES = 7 };
static const char *const phase_names[PHASES] = {"setup", "cull",     "sort",  "upload",
                                                "graph", "commands", "submit"};

/* The command line's settings (see the usage above). */
typedef struct options {
    uint32_t frames, w, h, nlights;
    const char *device, *png;
    float zoom;
    bool profile_cpu;
    rill_jobs *jobs; /* NULL: --workers 0 */
} options;

static int run(uint32_t count, const options *o) {
    uint32_t frames = o->frames, w = o->w, h = o->h, nlights = o->nlights;
    float zoom = o->zoom;
    rill_renderer *r = bench_renderer_create(
        "bench_render",
        (rill_renderer_desc){
            .width = w, .height = h, .validation = -1, .device_name = o->device, .jobs = o->jobs});
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(r, &err), sphere = rill_render_mesh_sphere(r, 24, &err);
    rill_mesh plane = rill_render_mesh_plane(r, &err);
    rill_material mats[8];
    for (int i = 0; i < 8; i++) {
        rill_material_desc md;
        memset(&md, 0, sizeof(md));
        md.base_color[0] = 0.3f + 0.08f * (float)i, md.base_color[1] = 0.5f,
        md.base_color[2] = 0.9f - 0.08f * (float)i;
        md.base_color[3] = 1.0f;
        md.roughness = 0.3f + 0.08f * (float)i;
        md.metallic = (i & 1) ? 1.0f : 0.0f;
        mats[i] = rill_render_material_create(r, &md, &err);
    }
    rill_render_instance *inst = rill_calloc_tagged(count + 1, sizeof(*inst), RILL_MEM_RENDER);
    if (!inst) {
        return 1;
    }
    uint32_t side = (uint32_t)ceil(sqrt((double)count));
    float spacing = 1.6f, extent = (float)side * spacing;
    for (uint32_t i = 0; i < count; i++) {
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m, (vec3){((float)(i % side) - (float)side * 0.5f) * spacing, 0.5f,
                                ((float)(i / side) - (float)side * 0.5f) * spacing});
        inst[i].id = i + 1;
        inst[i].mesh = (i % 4 == 3) ? sphere : cube;
        inst[i].material = mats[(i * 7) % 8];
        memcpy(inst[i].transform, m, sizeof(mat4));
    }
    mat4 g;
    glm_mat4_identity(g);
    glm_scale_uni(g, extent * 1.5f);
    inst[count].mesh = plane;
    inst[count].material = mats[0];
    memcpy(inst[count].transform, g, sizeof(mat4));
    rill_render_snapshot s;
    memset(&s, 0, sizeof(s));
    mat4 view, inv;
    /* A high three-quarter view that keeps most of the grid in the frustum. */
    glm_lookat((vec3){0, extent * 0.55f / zoom + 3.0f, extent * 0.75f / zoom + 3.0f},
               (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, inv);
    memcpy(s.view.world_from_view, inv, sizeof(mat4));
    s.view.far_plane = extent * 4.0f + 50.0f;
    s.has_sun = true;
    s.sun.direction[0] = -0.4f, s.sun.direction[1] = -1.0f, s.sun.direction[2] = -0.3f;
    s.sun.color[0] = s.sun.color[1] = s.sun.color[2] = 1.0f;
    s.sun.illuminance = 3.0f;
    s.sun.shadows = true;
    s.ambient[0] = s.ambient[1] = s.ambient[2] = 0.05f;
    s.instances = inst;
    s.instance_count = count + 1;
    rill_render_light *lights =
        rill_calloc_tagged(nlights ? nlights : 1, sizeof(*lights), RILL_MEM_RENDER);
    if (!lights) {
        return 1;
    }
    for (uint32_t i = 0; i < nlights; i++) {
        /* A fixed pseudo-random scatter (LCG) so runs are comparable. */
        uint32_t a = i * 1664525u + 1013904223u, b = a * 1664525u + 1013904223u;
        lights[i].kind = RILL_LIGHT_POINT;
        lights[i].position[0] = ((float)(a >> 8) / 16777216.0f - 0.5f) * extent;
        lights[i].position[1] = 1.0f;
        lights[i].position[2] = ((float)(b >> 8) / 16777216.0f - 0.5f) * extent;
        lights[i].color[0] = (float)(i % 3 == 0), lights[i].color[1] = (float)(i % 3 == 1);
        lights[i].color[2] = (float)(i % 3 == 2);
        lights[i].intensity = 4.0f;
        lights[i].range = 4.0f;
    }
    s.lights = lights;
    s.light_count = nlights;
    /* Warm-up: uploads, pipeline first use, transient images. */
    for (int i = 0; i < 2; i++) {
        if (rill_renderer_render(r, &s, &err) != RILL_OK) {
            fprintf(stderr, "bench_render: %s\n", err.msg);
            return 1;
        }
    }
    double cpu_sum = 0, cpu_min = 1e30, cpu_max = 0, phase_sum[PHASES] = {0};
    acc passes[32];
    uint32_t np = 0;
    rill_render_stats st;
    memset(&st, 0, sizeof(st));
    for (uint32_t f = 0; f < frames; f++) {
        rill_renderer_wait_idle(r, NULL);
        if (rill_renderer_render(r, &s, &err) != RILL_OK) {
            fprintf(stderr, "bench_render: %s\n", err.msg);
            return 1;
        }
        rill_renderer_wait_idle(r, NULL);
        rill_renderer_stats(r, &st);
        cpu_sum += st.cpu_record_ms;
        cpu_min = fmin(cpu_min, st.cpu_record_ms);
        cpu_max = fmax(cpu_max, st.cpu_record_ms);
        const double phase[PHASES] = {st.cpu_setup_ms,  st.cpu_cull_ms,  st.cpu_sort_ms,
                                      st.cpu_upload_ms, st.cpu_graph_ms, st.cpu_commands_ms,
                                      st.cpu_submit_ms};
        for (int k = 0; k < PHASES; k++) {
            phase_sum[k] += phase[k];
        }
        for (uint32_t p = 0; p < st.pass_count; p++) {
            uint32_t k = 0;
            while (k < np && strcmp(passes[k].name, st.pass_names[p]) != 0) {
                k++;
            }
            if (k == np && np < 32) {
                passes[np++] = (acc){st.pass_names[p], 0, 0};
            }
            if (k < np) {
                passes[k].sum += st.pass_gpu_ms[p];
                passes[k].n++;
            }
        }
    }
    double gpu_total = 0;
    printf("{\"bench\":\"render_frame\",\"instances\":%u,\"lights\":%u,\"zoom\":%g,\"width\":%u,"
           "\"height\":%u,\"frames\":%u,\"workers\":%u,"
           "\"device\":\"%s\",\"visible\":%u,\"draw_calls\":%u,\"cpu_record_ms\":{\"mean\":%.3f,"
           "\"min\":%.3f,\"max\":%.3f},",
           count, nlights, (double)zoom, w, h, frames, rill_jobs_worker_count(o->jobs),
           st.device_name, st.instances_visible, st.draw_calls, cpu_sum / frames, cpu_min, cpu_max);
    if (o->profile_cpu) {
        printf("\"cpu_phase_ms\":{");
        for (int k = 0; k < PHASES; k++) {
            printf("%s\"%s\":%.3f", k ? "," : "", phase_names[k], phase_sum[k] / frames);
        }
        printf("},");
    }
    printf("\"gpu_ms\":{");
    for (uint32_t k = 0; k < np; k++) {
        double ms = passes[k].n ? passes[k].sum / passes[k].n : 0.0;
        gpu_total += ms;
        printf("%s\"%s\":%.3f", k ? "," : "", passes[k].name, ms);
    }
    printf("},\"gpu_total_ms\":%.3f}\n", gpu_total);
    fflush(stdout);
    if (o->png) {
        char path[1024];
        snprintf(path, sizeof(path), "%s.%u.png", o->png, count);
        if (rill_renderer_write_png(r, path, &err) != RILL_OK) {
            fprintf(stderr, "bench_render: %s\n", err.msg);
        }
    }
    rill_free(inst);
    rill_free(lights);
    rill_renderer_destroy(r);
    return 0;
}

int main(int argc, char **argv) {
    const char *counts = "1000,10000,100000";
    options o = {.frames = 5, .w = 1920, .h = 1080, .zoom = 1.0f};
    long workers = -1;
    for (int i = 1; i < argc; i += 2) {
        if (strcmp(argv[i], "--profile-cpu") == 0) {
            o.profile_cpu = true;
            i--; /* a flag without a value */
            continue;
        }
        if (i + 1 >= argc) {
            break;
        }
        if (strcmp(argv[i], "--counts") == 0) {
            counts = argv[i + 1];
        } else if (strcmp(argv[i], "--frames") == 0) {
            o.frames = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--size") == 0) {
            sscanf(argv[i + 1], "%ux%u", &o.w, &o.h);
        } else if (strcmp(argv[i], "--lights") == 0) {
            o.nlights = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--zoom") == 0) {
            o.zoom = strtof(argv[i + 1], NULL);
        } else if (strcmp(argv[i], "--device") == 0) {
            o.device = argv[i + 1];
        } else if (strcmp(argv[i], "--png") == 0) {
            o.png = argv[i + 1];
        } else if (strcmp(argv[i], "--workers") == 0) {
            workers = strtol(argv[i + 1], NULL, 10);
        }
    }
    if (!o.frames) {
        o.frames = 1;
    }
    if (!(o.zoom >= 1.0f && o.zoom <= 1000.0f)) {
        fprintf(stderr, "bench_render: --zoom takes a number in [1, 1000]\n");
        return 2;
    }
    if (workers < -1 || workers > 256) {
        fprintf(stderr, "bench_render: --workers takes a number in [0, 256]\n");
        return 2;
    }
    rill_log_set_level(RILL_LOG_WARN);
    rill_error err = {0};
    if (workers != 0 &&
        !(o.jobs = rill_jobs_create(
              &(rill_jobs_desc){.worker_count = workers < 0 ? 0u : (uint32_t)workers}, &err))) {
        fprintf(stderr, "bench_render: %s\n", err.msg);
        return 1;
    }
    int rc = 0;
    const char *p = counts;
    while (*p && rc == 0) {
        uint32_t n = (uint32_t)strtoul(p, (char **)&p, 10);
        if (n && run(n, &o)) {
            rc = 1;
        }
        while (*p == ',') {
            p++;
        }
        if (*p && (*p < '0' || *p > '9')) {
            break;
        }
    }
    rill_jobs_destroy(o.jobs);
    return rc;
}
