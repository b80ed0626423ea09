/* bench_gpu_cull.c: the CPU path against GPU-driven culling (RILL_RENDER_DEBUG_GPU_CULL) in the
 * same run. A grid of N mesh instances (cubes and spheres, 8 materials, a sun with 4 shadow
 * cascades) at 1920x1080, drawn by one renderer first on the CPU path, then with GPU culling;
 * one JSON line per N and path: CPU record time (mean, min, max over the frames, measured with
 * the GPU idle), its phases, the GPU time of GPU culling's compute ("gpu cull") and of every pass,
 * draw calls, and for the GPU path the resident instances, draw groups and deltas of the last
 * frame. The GPU path runs twice: with two-phase occlusion (path "gpu", its default; the
 * instances it left out as occluded and the GPU time of "gpu occlusion", the pyramid and the
 * test, which runs inside the prepass) and without (path "gpu_no_occlusion").
 *
 * usage: bench_gpu_cull [--counts 10000,100000,1000000] [--frames 10] [--size 1920x1080]
 *                       [--device NAME] [--zoom Z] [--moving PCT] [--workers N]
 *                       [--meshes K] [--materials M] [--wall 1] [--shift 1]
 *                       [--cases static,few,shift] [--paths cpu,gpu,gpu_no_occlusion]
 *                       [--marks 1] [--warmup 1] [--help]
 *   --zoom Z     the camera Z times closer to the grid's centre (default 1: most of the grid in
 *                view; 4: about 7 % of it)
 *   --moving P   P percent of the instances move every frame (default 0: a static world, where
 *                the GPU path uploads nothing after the first frame)
 *   --workers N  job workers the renderer culls with (default one per core; 0: none)
 *   --meshes K   K distinct meshes (cubes and spheres of varied detail, each its own mesh, as a
 *                city's buildings are), instance i drawing mesh i % K (default 0: one cube and
 *                one sphere, every fourth instance a sphere)
 *   --materials M  M materials (default 8), instance i drawing material (7 i) % M
 *   --wall 1     the occluded scene: a wall between the camera and the grid hides nearly all of
 *                it (default 0: no wall, occlusion finds little to cull on an open grid)
 *   --shift 1    every other frame the snapshot lists the grid from its second instance on (the
 *                first leaves and comes back, as an entity switching LOD level does), so every
 *                later snapshot position shifts by one, as in a streaming world where something
 *                comes or goes every frame (default 0: the same order every frame)
 *   --cases L    runs each named case per count, one after the other (each sets --moving and
 *                --shift): static (nothing moves, the same order), few (1 % move a frame),
 *                moving (10 % move), shift (nothing moves, every position shifts); each line's
 *                "case" names it (without --cases: "custom", or the case the flags match)
 *   --paths L    the paths measured (default all three, in that order)
 *   --marks 1    the snapshot marks the instances that may have changed since the last frame
 *                (rill_render_snapshot.instance_changed: the moving ones; none with --shift,
 *                where every position changes), so the GPU path's scan passes the others unread
 *                (default 0: no marks, every instance read every frame)
 *   --warmup 1   the GPU paths board every instance in their first (untimed) frame instead of
 *                within the per-frame budget (default 0: as an app boards them, 2048 and more
 *                while the spawns cost under 0.5 ms a frame, drawing the rest on the CPU path;
 *                1 M instances then take ~120 warm-up frames). Either way each line gives
 *                "boarding_frames" (warm-up frames that took new instances) and "warmup_s"
 * On the null backend (RILL_RENDER_BACKEND=null) set RILL_NULL_STORAGE_RANGE=4294967295 for more
 * than ~120 k instances: at Vulkan's minimum storage range the GPU path switches itself off.
 * An unknown argument, or a flag without its value, prints this usage and exits with 2.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"

#include "bench_renderer.h"

/* src/render/frame.h (a bench-only hook): every new instance boards the GPU table at once. */
void rill__gpu_cull_board_all(rill_renderer *r, bool all);

enum { PHASES = 7 };
static const char *const phase_names[PHASES] = {"setup", "cull",     "sort",  "upload",
                                                "graph", "commands", "submit"};

typedef struct options {
    uint32_t frames, w, h;
    const char *device;
    float zoom, moving;
    uint32_t meshes, materials;
    bool wall, shift;
    const char *case_name;
    uint32_t paths; /* bits: 1 cpu, 2 gpu, 4 gpu_no_occlusion */
    bool marks;     /* the snapshot marks what changed (instance_changed) */
    bool board_all; /* --warmup 1: the GPU paths board everything in their first frame */
    rill_jobs *jobs;
} options;

typedef struct scene {
    rill_render_instance *inst;
    uint8_t *changed; /* per instance: whether it moves (--marks 1) */
    uint32_t count, side;
    float spacing;
    rill_render_snapshot snap;
} scene;

/* Whether instance i is one of the moving. */
static bool moves(const options *o, uint32_t i) {
    return o->moving > 0.0f && (float)(i % 1000u) < o->moving * 10.0f;
}

/* Instance i's matrix in frame f: on the grid, lifted by a wave when it is one of the moving. */
static void place(const scene *s, const options *o, uint32_t i, uint32_t f) {
    mat4 m;
    glm_mat4_identity(m);
    float lift = 0.0f;
    if (moves(o, i)) {
        lift = 0.25f * sinf((float)f * 0.3f + (float)i);
    }
    glm_translate(m,
                  (vec3){((float)(i % s->side) - (float)s->side * 0.5f) * s->spacing, 0.5f + lift,
                         ((float)(i / s->side) - (float)s->side * 0.5f) * s->spacing});
    memcpy(s->inst[i].transform, m, sizeof(mat4));
}

/* The scene's materials (o->materials) and meshes (o->meshes; 0: a cube then a sphere). */
static bool assets_make(rill_renderer *r, const options *o, rill_material *mats,
                        rill_mesh *meshes) {
    rill_error err = {0};
    for (uint32_t i = 0; i < o->materials; i++) {
        float t = (float)(i % 8u) + (float)(i / 8u) / (float)((o->materials + 7u) / 8u);
        rill_material_desc md;
        memset(&md, 0, sizeof(md));
        md.base_color[0] = 0.3f + 0.08f * t, md.base_color[1] = 0.5f;
        md.base_color[2] = 0.9f - 0.08f * t, md.base_color[3] = 1.0f;
        md.roughness = 0.3f + 0.08f * t;
        md.metallic = (i & 1) ? 1.0f : 0.0f;
        mats[i] = rill_render_material_create(r, &md, &err);
        if (!mats[i].id) {
            return false;
        }
    }
    uint32_t nm = o->meshes ? o->meshes : 2u;
    for (uint32_t k = 0; k < nm; k++) {
        meshes[k] = k % 2u == 0 ? rill_render_mesh_cube(r, &err)
                                : rill_render_mesh_sphere(r, o->meshes ? 8u + k % 17u : 24u, &err);
        if (!meshes[k].id) {
            return false;
        }
    }
    return true;
}

static bool scene_make(scene *s, rill_renderer *r, uint32_t count, const options *o) {
    rill_error err = {0};
    rill_mesh plane = rill_render_mesh_plane(r, &err);
    uint32_t nm = o->meshes ? o->meshes : 2u;
    rill_material *mats = rill_calloc_tagged(o->materials, sizeof(*mats), RILL_MEM_RENDER);
    rill_mesh *meshes = rill_calloc_tagged(nm, sizeof(*meshes), RILL_MEM_RENDER);
    s->inst = rill_calloc_tagged(count + 2, sizeof(*s->inst), RILL_MEM_RENDER);
    s->changed = rill_calloc_tagged(count + 2, 1, RILL_MEM_RENDER);
    bool ok =
        mats && meshes && s->inst && s->changed && plane.id && assets_make(r, o, mats, meshes);
    if (!ok) {
        rill_free(mats);
        rill_free(meshes);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        s->changed[i] = moves(o, i);
    }
    s->count = count;
    s->side = (uint32_t)ceil(sqrt((double)count));
    s->spacing = 1.6f;
    float extent = (float)s->side * s->spacing;
    for (uint32_t i = 0; i < count; i++) {
        s->inst[i].id = i + 1;
        s->inst[i].mesh = o->meshes ? meshes[i % nm] : meshes[i % 4 == 3 ? 1 : 0];
        s->inst[i].material = mats[(uint32_t)(((uint64_t)i * 7u) % o->materials)];
        place(s, o, i, 0);
    }
    mat4 g;
    glm_mat4_identity(g);
    glm_scale_uni(g, extent * 1.5f);
    s->inst[count].id = count + 1;
    s->inst[count].mesh = plane;
    s->inst[count].material = mats[0];
    memcpy(s->inst[count].transform, g, sizeof(mat4));
    /* The wall: a box 1.3 grid widths wide and 0.45 high (half of it under the ground), between
     * the camera and the grid's near edge; from the camera its top hides the grid's far edge. */
    glm_mat4_identity(g);
    glm_translate(g, (vec3){0.0f, 0.0f, extent * 0.6f / o->zoom});
    glm_scale(g, (vec3){extent * 1.3f, extent * 0.9f, 1.0f});
    s->inst[count + 1].id = count + 2;
    s->inst[count + 1].mesh = meshes[0];
    s->inst[count + 1].material = mats[0];
    memcpy(s->inst[count + 1].transform, g, sizeof(mat4));
    rill_free(mats);
    rill_free(meshes);
    rill_render_snapshot *sn = &s->snap;
    memset(sn, 0, sizeof(*sn));
    mat4 view, inv;
    glm_lookat((vec3){0, extent * 0.55f / o->zoom + 3.0f, extent * 0.75f / o->zoom + 3.0f},
               (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, inv);
    memcpy(sn->view.world_from_view, inv, sizeof(mat4));
    sn->view.far_plane = extent * 4.0f + 50.0f;
    sn->has_sun = true;
    sn->sun.direction[0] = -0.4f, sn->sun.direction[1] = -1.0f, sn->sun.direction[2] = -0.3f;
    sn->sun.color[0] = sn->sun.color[1] = sn->sun.color[2] = 1.0f;
    sn->sun.illuminance = 3.0f;
    sn->sun.shadows = true;
    sn->ambient[0] = sn->ambient[1] = sn->ambient[2] = 0.05f;
    sn->instances = s->inst;
    sn->instance_count = count + (o->wall ? 2u : 1u);
    return true;
}

/* Draws `frames` frames on one path and prints its line. f0: the scene's frame number so far. */
static int measure(rill_renderer *r, scene *s, const options *o, bool gpu, bool occlusion,
                   uint32_t *f0) {
    uint32_t flags = gpu ? RILL_RENDER_DEBUG_GPU_CULL : 0u;
    rill_renderer_set_debug_flags(r, flags |
                                         (gpu && !occlusion ? RILL_RENDER_DEBUG_NO_OCCLUSION : 0u));
    rill_error err = {0};
    double cpu_sum = 0, cpu_min = 1e30, cpu_max = 0, phase_sum[PHASES] = {0};
    double cull_sum = 0, gpu_sum = 0, occl_sum = 0, scan_sum = 0;
    rill_render_stats st;
    memset(&st, 0, sizeof(st));
    /* Warm-up frames: two (uploads, pipelines, transient images), and on the GPU path more
     * until its table holds every instance listed (it takes new ones within a time budget a
     * frame; the others draw on the CPU path meanwhile) or a frame took none (GPU culling off). */
    uint32_t listed = s->snap.instance_count, warm = 0, boarding = 0;
    uint64_t warm_t0 = rill_time_ns(), warm_ns = 0;
    if (gpu && o->board_all) {
        rill__gpu_cull_board_all(r, true);
    }
    for (uint32_t f = 0; f < o->frames + warm; f++) {
        if (o->moving > 0.0f) {
            for (uint32_t i = 0; i < s->count; i++) {
                place(s, o, i, *f0);
            }
        }
        uint32_t drop = o->shift && s->count > 1u ? (*f0 & 1u) : 0u;
        uint32_t n = listed - drop;
        s->snap.instances = s->inst + drop;
        s->snap.instance_count = n;
        /* Marks: what moves; a shifted snapshot changes every position (no marks). */
        s->snap.instance_changed = o->marks && !o->shift ? s->changed : NULL;
        (*f0)++;
        rill_renderer_wait_idle(r, NULL);
        if (rill_renderer_render(r, &s->snap, &err) != RILL_OK) {
            fprintf(stderr, "bench_gpu_cull: %s\n", err.msg);
            return 1;
        }
        rill_renderer_wait_idle(r, NULL);
        s->snap.instances = s->inst;
        s->snap.instance_count = listed;
        rill_renderer_stats(r, &st);
        if (f == warm) {
            boarding += gpu && st.gpu_cull_spawned > 0;
            if (f < 2 || (gpu && st.gpu_cull_spawned > 0 && st.gpu_cull_resident < n)) {
                warm++;
                warm_ns = rill_time_ns() - warm_t0;
                continue;
            }
            rill__gpu_cull_board_all(r, false);
        }
        cpu_sum += st.cpu_record_ms;
        scan_sum += st.gpu_cull_scan_ms;
        cpu_min = fmin(cpu_min, st.cpu_record_ms);
        cpu_max = fmax(cpu_max, st.cpu_record_ms);
        const double phase[PHASES] = {st.cpu_setup_ms,  st.cpu_cull_ms,  st.cpu_sort_ms,
                                      st.cpu_upload_ms, st.cpu_graph_ms, st.cpu_commands_ms,
                                      st.cpu_submit_ms};
        for (int k = 0; k < PHASES; k++) {
            phase_sum[k] += phase[k];
        }
        for (uint32_t p = 0; p < st.pass_count; p++) {
            gpu_sum += st.pass_gpu_ms[p];
            if (strcmp(st.pass_names[p], "gpu cull") == 0) {
                cull_sum += st.pass_gpu_ms[p];
            }
            if (strcmp(st.pass_names[p], "gpu occlusion") == 0) {
                occl_sum += st.pass_gpu_ms[p]; /* inside "prepass": not added to the total */
                gpu_sum -= st.pass_gpu_ms[p];
            }
        }
    }
    double n = o->frames;
    printf("{\"bench\":\"gpu_cull\",\"case\":\"%s\",\"path\":\"%s\",\"wall\":%s,\"shift\":%s,"
           "\"instances\":%u,\"meshes\":%u,"
           "\"materials\":%u,\"zoom\":%g,\"moving_pct\":%g,\"width\":%u,\"height\":%u,\"frames\":%"
           "u,\"warmup_frames\":%u,\"boarding_frames\":%u,\"warmup_s\":%.2f,"
           "\"board_all\":%s,\"workers\":%u,\"device\":\"%s\","
           "\"draw_calls\":%u,\"cpu_visible\":%u,\"cpu_record_ms\":{\"mean\":%.3f,\"min\":%.3f,"
           "\"max\":%.3f},\"cpu_phase_ms\":{",
           o->case_name,
           !gpu        ? "cpu"
           : occlusion ? "gpu"
                       : "gpu_no_occlusion",
           o->wall ? "true" : "false", o->shift ? "true" : "false", s->count,
           o->meshes ? o->meshes : 2u, o->materials, (double)o->zoom, (double)o->moving, o->w, o->h,
           o->frames, warm, boarding, (double)warm_ns * 1e-9, o->board_all ? "true" : "false",
           rill_jobs_worker_count(o->jobs), st.device_name, st.draw_calls, st.instances_visible,
           cpu_sum / n, cpu_min, cpu_max);
    for (int k = 0; k < PHASES; k++) {
        printf("%s\"%s\":%.3f", k ? "," : "", phase_names[k], phase_sum[k] / n);
    }
    printf("},\"marks\":%s,\"gpu_cull_scan_ms\":%.3f,\"gpu_cull_resident\":%u,"
           "\"gpu_cull_deltas\":%u,\"gpu_cull_unchanged\":%u,\"instances_occluded\":%u,"
           "\"gpu_cull_ms\":%.3f,\"gpu_occlusion_ms\":%.3f,\"gpu_total_ms\":%.3f}\n",
           o->marks ? "true" : "false", scan_sum / n, st.gpu_cull_resident, st.gpu_cull_deltas,
           st.gpu_cull_unchanged, st.instances_occluded, cull_sum / n, occl_sum / n, gpu_sum / n);
    fflush(stdout);
    return 0;
}

static int run(uint32_t count, const options *o) {
    rill_renderer *r =
        bench_renderer_create("bench_gpu_cull", (rill_renderer_desc){.width = o->w,
                                                                     .height = o->h,
                                                                     .validation = -1,
                                                                     .device_name = o->device,
                                                                     .jobs = o->jobs});
    if (!r) {
        return 1;
    }
    scene s;
    int rc = 1;
    uint32_t f0 = 0;
    if (scene_make(&s, r, count, o)) {
        rc = ((o->paths & 1u) && measure(r, &s, o, false, false, &f0)) ||
             ((o->paths & 2u) && measure(r, &s, o, true, true, &f0)) ||
             ((o->paths & 4u) && measure(r, &s, o, true, false, &f0));
    } else {
        fprintf(stderr, "bench_gpu_cull: out of memory for %u instances\n", count);
    }
    rill_free(s.inst);
    rill_free(s.changed);
    rill_renderer_destroy(r);
    return rc;
}

static void usage(FILE *f) {
    fprintf(f, "usage: bench_gpu_cull [--counts 10000,100000,1000000] [--frames 10] [--size WxH]\n"
               "                      [--device NAME] [--zoom Z] [--moving PCT] [--workers N]\n"
               "                      [--meshes K] [--materials M] [--wall 0|1] [--shift 0|1]\n"
               "                      [--cases static,few,moving,shift]\n"
               "                      [--paths cpu,gpu,gpu_no_occlusion] [--marks 0|1]\n"
               "                      [--warmup 0|1] [--help]\n");
}

/* The cases --cases names: percent moving a frame, and whether positions shift. */
typedef struct bench_case {
    const char *name;
    float moving;
    bool shift;
} bench_case;

static const bench_case cases[] = {
    {"static", 0.0f, false}, {"few", 1.0f, false}, {"moving", 10.0f, false}, {"shift", 0.0f, true}};
#define CASES (sizeof(cases) / sizeof(cases[0]))

/* The case named by s[0..len), or NULL. */
static const bench_case *case_find(const char *s, size_t len) {
    for (size_t k = 0; k < CASES; k++) {
        if (strlen(cases[k].name) == len && strncmp(cases[k].name, s, len) == 0) {
            return &cases[k];
        }
    }
    return NULL;
}

/* The case the flags match (for the lines of a run without --cases), else "custom". */
static const char *case_of(const options *o) {
    for (size_t k = 0; k < CASES; k++) {
        if (cases[k].moving == o->moving && cases[k].shift == o->shift) {
            return cases[k].name;
        }
    }
    return "custom";
}

/* The bits of a comma-separated list of paths; 0 when a name is unknown. */
static uint32_t paths_parse(const char *list) {
    static const char *const names[3] = {"cpu", "gpu", "gpu_no_occlusion"};
    uint32_t bits = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ","), k = 0;
        while (k < 3 && !(strlen(names[k]) == len && strncmp(names[k], p, len) == 0)) {
            k++;
        }
        if (k == 3) {
            return 0;
        }
        bits |= 1u << k;
        p += len + (p[len] == ',');
    }
    return bits;
}

/* Parses the flags into o (and *counts, *workers, *case_list). False: an unknown flag or one
 * without its value. */
static bool parse_args(int argc, char **argv, options *o, const char **counts, long *workers,
                       const char **case_list) {
    for (int i = 1; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v || strncmp(k, "--", 2) != 0) {
            fprintf(stderr, "bench_gpu_cull: %s '%s'\n", v ? "unknown argument" : "no value for",
                    k);
            return false;
        } else if (strcmp(k, "--counts") == 0) {
            *counts = v;
        } else if (strcmp(k, "--frames") == 0) {
            o->frames = (uint32_t)strtoul(v, NULL, 10);
        } else if (strcmp(k, "--size") == 0) {
            if (sscanf(v, "%ux%u", &o->w, &o->h) != 2) {
                fprintf(stderr, "bench_gpu_cull: --size wants WxH, not '%s'\n", v);
                return false;
            }
        } else if (strcmp(k, "--zoom") == 0) {
            o->zoom = strtof(v, NULL);
        } else if (strcmp(k, "--moving") == 0) {
            o->moving = strtof(v, NULL);
        } else if (strcmp(k, "--device") == 0) {
            o->device = v;
        } else if (strcmp(k, "--workers") == 0) {
            *workers = strtol(v, NULL, 10);
        } else if (strcmp(k, "--meshes") == 0) {
            o->meshes = (uint32_t)strtoul(v, NULL, 10);
        } else if (strcmp(k, "--materials") == 0) {
            o->materials = (uint32_t)strtoul(v, NULL, 10);
        } else if (strcmp(k, "--wall") == 0) {
            o->wall = strtoul(v, NULL, 10) != 0;
        } else if (strcmp(k, "--shift") == 0) {
            o->shift = strtoul(v, NULL, 10) != 0;
        } else if (strcmp(k, "--marks") == 0) {
            o->marks = strtoul(v, NULL, 10) != 0;
        } else if (strcmp(k, "--warmup") == 0) {
            o->board_all = strtoul(v, NULL, 10) != 0;
        } else if (strcmp(k, "--cases") == 0) {
            *case_list = v;
        } else if (strcmp(k, "--paths") == 0) {
            if (!(o->paths = paths_parse(v))) {
                fprintf(stderr, "bench_gpu_cull: --paths wants cpu, gpu, gpu_no_occlusion\n");
                return false;
            }
        } else {
            fprintf(stderr, "bench_gpu_cull: unknown argument '%s'\n", k);
            return false;
        }
    }
    return true;
}

/* Checks every name of the comma-separated case list; false (with a message) on an unknown one. */
static bool cases_valid(const char *list) {
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (!case_find(p, len)) {
            fprintf(stderr, "bench_gpu_cull: unknown case '%.*s' (static, few, moving, shift)\n",
                    (int)len, p);
            return false;
        }
        p += len + (p[len] == ',');
    }
    return true;
}

/* Runs count instances in every case of list (NULL: the flags as given). */
static int run_cases(uint32_t count, const options *o, const char *list) {
    if (!list) {
        options one = *o;
        one.case_name = case_of(o);
        return run(count, &one);
    }
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        const bench_case *c = case_find(p, len);
        options one = *o;
        one.moving = c->moving;
        one.shift = c->shift;
        one.case_name = c->name;
        if (run(count, &one)) {
            return 1;
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *counts = "10000,100000,1000000", *case_list = NULL;
    options o = {.frames = 10, .w = 1920, .h = 1080, .zoom = 1.0f, .materials = 8, .paths = 7u};
    long workers = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    }
    if (!parse_args(argc, argv, &o, &counts, &workers, &case_list)) {
        usage(stderr);
        return 2;
    }
    if (!o.frames) {
        o.frames = 1;
    }
    if (!(o.zoom >= 1.0f && o.zoom <= 1000.0f) || !(o.moving >= 0.0f && o.moving <= 100.0f) ||
        workers < -1 || workers > 256 || o.meshes > 20000 || o.materials < 1 ||
        o.materials > 20000 || !o.w || !o.h) {
        fprintf(stderr,
                "bench_gpu_cull: --zoom in [1, 1000], --moving in [0, 100], --workers in "
                "[0, 256], --meshes in [0, 20000], --materials in [1, 20000], --size not 0\n");
        return 2;
    }
    if (case_list && !cases_valid(case_list)) {
        return 2;
    }
    rill_log_set_level(RILL_LOG_WARN);
    rill_error err = {0};
    if (workers != 0 &&
        !(o.jobs = rill_jobs_create(
              &(rill_jobs_desc){.worker_count = workers < 0 ? 0u : (uint32_t)workers}, &err))) {
        fprintf(stderr, "bench_gpu_cull: %s\n", err.msg);
        return 1;
    }
    int rc = 0;
    const char *p = counts;
    while (*p && rc == 0) {
        uint32_t n = (uint32_t)strtoul(p, (char **)&p, 10);
        if (n && run_cases(n, &o, case_list)) {
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
