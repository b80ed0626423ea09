/* bench_channels.c: what scene channels cost. Two JSON lines:
 *
 *   {"bench":"channel_mode_change", ...}: a world of N MeshInstance entities (1 % named NM_,
 *   the rest context). The thread CPU time of one rill_channels_set_mode (context -> wireframe),
 * and rill_render_extract's time per frame before the change, on the frame right after it and
 *   averaged after it: a mode change writes one resource and rebuilds nothing, so the extract
 *   after it costs what any extract costs. wireframe_instances checks the change took effect.
 *
 *   {"bench":"wireframe_pass", ...}: G x G boxes whose faces are S x S quad grids (a facade is
 *   a flat wall of many triangles), every one in wireframe mode, rendered at --size; the GPU time
 *   of the "wireframe" pass (timestamps, mean over --frames) when the mesh carries its edge buffer
 *   (the box's 12 hard edges: what rill export writes) and when it has none (polygon-mode line
 *   fill over all its triangles).
 *
 *   {"bench":"pick", ...}: rill_channels_pick over N MeshInstance cubes (1 % selectable) standing
 *   on a generated terrain of 4 x 4 chunks of 64 m (resolution 129: 513 x 513 samples), from a
 *   camera above looking down at 30 degrees: thread CPU time per pick (median and max over
 *   --picks screen rays spread over the view), with and without the terrain, and of
 *   rill_terrain_raycast alone; hits counts what the rays found. The mesh source returns a unit
 *   cube (what rill_render_pick_source gives for rill_render_mesh_cube), so no GPU is needed.
 *
 * usage: bench_channels [--entities N] [--grid G] [--subdiv S] [--frames F] [--size WxH]
 *                       [--device NAME] [--picks P] [--no-gpu]
 * defaults: 100000 entities, grid 16, subdiv 8, 20 frames, 640x360, 200 picks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cglm/cglm.h>

#include "rill/channels.h"
#include "rill/formats/edges.h"
#include "rill/render.h"
#include "rill/terrain.h"

#include "../render/bench_renderer.h"

/* CPU time of this thread (ns): on a shared machine wall time mostly measures the neighbours. */
static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double ms_since(uint64_t t0) {
    return (double)(cpu_ns() - t0) * 1e-6;
}

static int mode_change(uint32_t n) {
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components rc;
    rill_error err = {0};
    if (!w || rill_render_register_components(w, &rc, &err) != RILL_OK) {
        fprintf(stderr, "bench_channels: %s\n", err.msg);
        return 1;
    }
    char name[32];
    for (uint32_t i = 0; i < n; i++) {
        rill_entity e = rill_world_spawn(w);
        rill_transform t = rill_transform_identity();
        t.translation[0] = (float)(i % 1000u);
        t.translation[2] = (float)(i / 1000u);
        rill_world_add(w, e, RILL_COMPONENT_TRANSFORM, &t);
        if (i % 100u == 0) {
            snprintf(name, sizeof name, "NM_%u", i);
            rill_world_set_name(w, e, name);
        }
        rill_mesh_instance mi = {1u + i % 4u, 1u};
        rill_world_add(w, e, rc.mesh_instance, &mi);
    }
    /* A camera: extract draws nothing without one. */
    rill_entity cam = rill_world_spawn(w);
    rill_transform ct = rill_transform_identity();
    rill_world_add(w, cam, RILL_COMPONENT_TRANSFORM, &ct);
    rill_world_add(w, cam, RILL_COMPONENT_CAMERA, NULL);
    rill_world_update_transforms(w);
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot snap;
    const int frames = 10;
    double before = 0.0, first_after = 0.0, after = 0.0;
    for (int f = 0; f < frames + 1; f++) {
        uint64_t t0 = cpu_ns();
        rill_render_extract(w, &rc, &buf, &snap, &err);
        before += f ? ms_since(t0) : 0.0; /* frame 0 warms the buffers */
    }
    uint64_t t0 = cpu_ns();
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_WIREFRAME, 1.0f);
    double set_us = (double)(cpu_ns() - t0) * 1e-3;
    for (int f = 0; f < frames; f++) {
        t0 = cpu_ns();
        rill_render_extract(w, &rc, &buf, &snap, &err);
        double ms = ms_since(t0);
        first_after = f ? first_after : ms;
        after += ms;
    }
    uint32_t wire = 0;
    for (uint32_t i = 0; i < snap.instance_count; i++) {
        wire += snap.instances[i].mode == RILL_RENDER_MODE_WIREFRAME;
    }
    printf("{\"bench\":\"channel_mode_change\",\"entities\":%u,\"set_mode_us\":%.3f,"
           "\"extract_ms_before\":%.3f,\"extract_ms_first_after\":%.3f,\"extract_ms_after\":%.3f,"
           "\"wireframe_instances\":%u}\n",
           n, set_us, before / frames, first_after, after / frames, wire);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
    return 0;
}

/* >>pick */

typedef struct cube_source {
    rill_component mesh_instance;
    float positions[8 * 3];
    uint32_t indices[36];
} cube_source;

static void cube_init(cube_source *c) {
    static const uint32_t quads[6][4] = {{0, 1, 3, 2}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                         {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 3, 7, 5}};
    for (uint32_t v = 0; v < 8; v++) {
        for (uint32_t k = 0; k < 3; k++) {
            c->positions[v * 3 + k] = (v >> k) & 1u ? 0.5f : -0.5f;
        }
    }
    for (uint32_t f = 0; f < 6; f++) {
        const uint32_t *q = quads[f];
        uint32_t tri[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        memcpy(&c->indices[f * 6], tri, sizeof tri);
    }
}

static bool cube_triangles(const void *user, const rill_world *w, rill_entity e,
                           rill_pick_mesh *out) {
    const cube_source *c = user;
    if (!rill_world_has(w, e, c->mesh_instance)) {
        return false;
    }
    *out = (rill_pick_mesh){.positions = c->positions,
                            .vertex_count = 8,
                            .indices = c->indices,
                            .index_count = 36,
                            .bounds_min = {-0.5f, -0.5f, -0.5f},
                            .bounds_max = {0.5f, 0.5f, 0.5f}};
    return true;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and max of ms[0..n) (sorted in place). */
static void summarize(double *ms, uint32_t n, double *out_median, double *out_max) {
    qsort(ms, n, sizeof(double), cmp_double);
    *out_median = ms[n / 2];
    *out_max = ms[n - 1];
}

/* The ray through point (i of n) of a 16-column grid over the view, camera at (0, 120, 300) looking
 * down 30 degrees toward -Z. */
static void view_ray(uint32_t i, uint32_t n, float o[3], float d[3]) {
    float world_from_view[16];
    rill_transform t = rill_transform_identity();
    t.translation[1] = 120.0f;
    t.translation[2] = 300.0f;
    t.rotation[0] = sinf(-0.5f * 0.5236f);
    t.rotation[3] = cosf(-0.5f * 0.5236f);
    rill_transform_to_mat4(&t, world_from_view);
    uint32_t rows = (n + 15u) / 16u;
    float x = ((float)(i % 16u) + 0.5f) / 16.0f * 640.0f;
    float y = ((float)(i / 16u) + 0.5f) / (float)rows * 360.0f;
    rill_channels_screen_ray(world_from_view, false, 1.0f, 0.0f, x, y, 640.0f, 360.0f, o, d);
}

static int pick_cost(uint32_t n, uint32_t picks) {
    rill_world *w = rill_world_create(NULL, NULL);
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    rill_render_components rc;
    rill_error err = {0};
    rill_terrain_system *ts = w && jobs && rill_render_register_components(w, &rc, &err) == RILL_OK
                                  ? rill_terrain_system_create(
                                        &(rill_terrain_system_desc){.world = w, .jobs = jobs}, &err)
                                  : NULL;
    if (!ts) {
        fprintf(stderr, "bench_channels: %s\n", err.msg);
        return 1;
    }
    rill_terrain tc;
    rill_terrain_defaults(&tc);
    rill_entity te = rill_world_spawn(w);
    rill_transform tt = rill_transform_identity();
    tt.translation[0] = tt.translation[2] = -128.0f;
    rill_world_set_transform(w, te, &tt);
    rill_world_add(w, te, rill_terrain_register(w), &tc);
    rill_channels_watch(w, rill_terrain_register(w), &err);
    rill_terrain_view edit = {0};
    rill_terrain_system_flush(ts, &edit);
    cube_source cs = {.mesh_instance = rc.mesh_instance};
    cube_init(&cs);
    /* Cubes 2 m apart on a square grid over the terrain's middle, standing on the ground. */
    uint32_t side = (uint32_t)ceilf(sqrtf((float)n));
    float spacing = RILL_MIN(2.0f, 240.0f / (float)side);
    for (uint32_t i = 0; i < n; i++) {
        rill_entity e = rill_world_spawn(w);
        rill_transform t = rill_transform_identity();
        t.translation[0] = ((float)(i % side) - 0.5f * (float)side) * spacing;
        t.translation[2] = ((float)(i / side) - 0.5f * (float)side) * spacing;
        float g = 0.0f;
        rill_terrain_height_at(ts, te, t.translation[0], t.translation[2], &g, NULL);
        t.translation[1] = g + 0.5f;
        rill_world_set_transform(w, e, &t);
        rill_mesh_instance mi = {1u, 1u};
        rill_world_add(w, e, rc.mesh_instance, &mi);
        if (i % 100u == 0) {
            rill_channels_set(w, e, RILL_CHANNEL_SELECTABLE);
        }
    }
    rill_world_update_transforms(w);
    double *ms[3] = {rill_calloc(picks, sizeof(double)), rill_calloc(picks, sizeof(double)),
                     rill_calloc(picks, sizeof(double))};
    uint32_t hits[3] = {0, 0, 0};
    for (uint32_t i = 0; i < picks && ms[0] && ms[1] && ms[2]; i++) {
        rill_pick_desc d = {
            .opaque_blocks = true, .mesh_source = cube_triangles, .mesh_source_user = &cs};
        view_ray(i, picks, d.origin, d.dir);
        rill_pick_hit hit;
        for (int k = 0; k < 2; k++) {
            d.terrain = k ? ts : NULL;
            uint64_t t0 = cpu_ns();
            hits[k] += rill_channels_pick(w, NULL, &d, &hit);
            ms[k][i] = ms_since(t0);
        }
        float dist = 0.0f;
        uint64_t t0 = cpu_ns();
        hits[2] += rill_terrain_raycast(ts, te, d.origin, d.dir, 0.0f, true, &dist, NULL);
        ms[2][i] = ms_since(t0);
    }
    double med[3] = {0}, max[3] = {0};
    for (int k = 0; k < 3 && ms[0] && ms[1] && ms[2]; k++) {
        summarize(ms[k], picks, &med[k], &max[k]);
    }
    printf("{\"bench\":\"pick\",\"mesh_instances\":%u,\"terrain_samples\":\"513x513\",\"picks\":%u,"
           "\"meshes_ms_median\":%.4f,\"meshes_ms_max\":%.4f,\"hits_meshes\":%u,"
           "\"with_terrain_ms_median\":%.4f,\"with_terrain_ms_max\":%.4f,\"hits_with_terrain\":%u,"
           "\"terrain_raycast_ms_median\":%.4f,\"terrain_raycast_ms_max\":%.4f,"
           "\"hits_terrain\":%u}\n",
           n, picks, med[0], max[0], hits[0], med[1], max[1], hits[1], med[2], max[2], hits[2]);
    for (int k = 0; k < 3; k++) {
        rill_free(ms[k]);
    }
    rill_terrain_system_destroy(ts);
    rill_world_destroy(w);
    rill_jobs_destroy(jobs);
    return 0;
}

/* A unit box whose six faces are s x s quad grids: (s + 1)^2 vertices and 2 s^2 triangles per
 * face. Caller frees both arrays. */
static void subdivided_box(uint32_t s, rill_vertex **out_v, uint32_t *out_vn, uint32_t **out_i,
                           uint32_t *out_in) {
    static const float faces[6][9] = {
        {1, 0, 0, 0, 0, -1, 0, 1, 0}, {-1, 0, 0, 0, 0, 1, 0, 1, 0}, {0, 1, 0, 1, 0, 0, 0, 0, -1},
        {0, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 1, 1, 0, 0, 0, 1, 0},  {0, 0, -1, -1, 0, 0, 0, 1, 0},
    };
    uint32_t per = (s + 1) * (s + 1);
    rill_vertex *v = rill_calloc(6 * per, sizeof(*v));
    uint32_t *idx = rill_calloc(6 * s * s * 6, sizeof(*idx));
    uint32_t k = 0;
    for (uint32_t fc = 0; fc < 6; fc++) {
        const float *f = faces[fc];
        for (uint32_t y = 0; y <= s; y++) {
            for (uint32_t x = 0; x <= s; x++) {
                rill_vertex *p = &v[fc * per + y * (s + 1) + x];
                float a = -1.0f + 2.0f * (float)x / (float)s,
                      b = -1.0f + 2.0f * (float)y / (float)s;
                for (int c = 0; c < 3; c++) {
                    p->position[c] = 0.5f * (f[c] + a * f[3 + c] + b * f[6 + c]);
                    p->normal[c] = f[c];
                    p->tangent[c] = f[3 + c];
                }
                p->tangent[3] = 1.0f;
                p->uv[0] = (float)x / (float)s, p->uv[1] = (float)y / (float)s;
            }
        }
        for (uint32_t y = 0; y < s; y++) {
            for (uint32_t x = 0; x < s; x++) {
                uint32_t q = fc * per + y * (s + 1) + x;
                uint32_t quad[6] = {q, q + 1, q + s + 2, q, q + s + 2, q + s + 1};
                memcpy(idx + k, quad, sizeof(quad));
                k += 6;
            }
        }
    }
    *out_v = v, *out_vn = 6 * per, *out_i = idx, *out_in = k;
}

static double wire_pass_ms(const rill_render_stats *st) {
    for (uint32_t i = 0; i < st->pass_count; i++) {
        if (strcmp(st->pass_names[i], "wireframe") == 0) {
            return st->pass_gpu_ms[i];
        }
    }
    return -1.0;
}

static int wireframe_pass(uint32_t grid, uint32_t subdiv, uint32_t frames, uint32_t w, uint32_t h,
                          const char *device) {
    rill_renderer *r = bench_renderer_create(
        "bench_channels",
        (rill_renderer_desc){.width = w, .height = h, .validation = -1, .device_name = device});
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_vertex *v = NULL;
    uint32_t *idx = NULL, vn = 0, in = 0, *lines = NULL, ln = 0;
    subdivided_box(subdiv, &v, &vn, &idx, &in);
    if (rill_edges_build(v[0].position, vn, sizeof(rill_vertex), idx, in, NULL, &lines, &ln,
                         &err) != RILL_OK) {
        fprintf(stderr, "bench_channels: %s\n", err.msg);
        return 1;
    }
    rill_mesh_desc md = {.vertices = v,
                         .vertex_count = vn,
                         .indices = idx,
                         .index_count = in,
                         .label = "box+edges",
                         .edge_indices = lines,
                         .edge_index_count = ln};
    rill_mesh edged = rill_render_mesh_create(r, &md, &err);
    md.edge_indices = NULL, md.edge_index_count = 0, md.label = "box";
    rill_mesh plain = rill_render_mesh_create(r, &md, &err);
    rill_material_desc mt;
    memset(&mt, 0, sizeof(mt));
    mt.base_color[0] = mt.base_color[1] = mt.base_color[2] = mt.base_color[3] = 1.0f;
    rill_material mat = rill_render_material_create(r, &mt, &err);
    uint32_t count = grid * grid;
    rill_render_instance *inst = rill_calloc(count, sizeof(*inst));
    for (uint32_t i = 0; i < count; i++) {
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m, (vec3){((float)(i % grid) - (float)grid * 0.5f) * 1.5f, 0.5f,
                                -((float)(i / grid)) * 1.5f - 2.0f});
        inst[i].id = i + 1;
        inst[i].material = mat;
        inst[i].mode = RILL_RENDER_MODE_WIREFRAME;
        memcpy(inst[i].transform, m, sizeof(mat4));
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 view, inv;
    glm_lookat((vec3){0, (float)grid * 0.6f, 4.0f}, (vec3){0, 0, -(float)grid * 0.6f},
               (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, inv);
    memcpy(snap.view.world_from_view, inv, sizeof(mat4));
    snap.instances = inst;
    snap.instance_count = count;
    double ms[2] = {0, 0};
    rill_mesh meshes[2] = {edged, plain};
    rill_render_stats st;
    for (int kind = 0; kind < 2; kind++) {
        for (uint32_t i = 0; i < count; i++) {
            inst[i].mesh = meshes[kind];
        }
        uint32_t measured = 0;
        /* Timestamps come back a few frames late: render extra frames, skip the warm-up. */
        for (uint32_t f = 0; f < frames + 4; f++) {
            if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
                rill_renderer_wait_idle(r, &err) != RILL_OK) {
                fprintf(stderr, "bench_channels: %s\n", err.msg);
                return 1;
            }
            rill_renderer_stats(r, &st);
            double t = wire_pass_ms(&st);
            if (f >= 4 && t >= 0.0) {
                ms[kind] += t;
                measured++;
            }
        }
        ms[kind] = measured ? ms[kind] / measured : -1.0;
    }
    printf("{\"bench\":\"wireframe_pass\",\"device\":\"%s\",\"size\":\"%ux%u\",\"instances\":%u,"
           "\"triangles_per_mesh\":%u,\"edge_lines_per_mesh\":%u,\"fill_lines_per_mesh\":%u,"
           "\"edges_gpu_ms\":%.3f,\"fill_gpu_ms\":%.3f,\"fill_mode_non_solid\":%s}\n",
           st.device_name, w, h, count, in / 3, ln / 2, in, ms[0], ms[1],
           st.fill_mode_non_solid ? "true" : "false");
    rill_free(inst);
    rill_free(lines);
    rill_free(v);
    rill_free(idx);
    rill_renderer_destroy(r);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t n = 100000, grid = 16, subdiv = 8, frames = 20, w = 640, h = 360, picks = 200;
    const char *device = NULL;
    bool gpu = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--entities") && v) {
            n = (uint32_t)strtoul(v, NULL, 10), i++;
        } else if (!strcmp(a, "--grid") && v) {
            grid = (uint32_t)strtoul(v, NULL, 10), i++;
        } else if (!strcmp(a, "--subdiv") && v) {
            subdiv = (uint32_t)strtoul(v, NULL, 10), i++;
        } else if (!strcmp(a, "--frames") && v) {
            frames = (uint32_t)strtoul(v, NULL, 10), i++;
        } else if (!strcmp(a, "--size") && v && sscanf(v, "%ux%u", &w, &h) == 2) {
            i++;
        } else if (!strcmp(a, "--device") && v) {
            device = v, i++;
        } else if (!strcmp(a, "--picks") && v) {
            picks = (uint32_t)strtoul(v, NULL, 10), i++;
        } else if (!strcmp(a, "--no-gpu")) {
            gpu = false;
        } else {
            fprintf(stderr, "usage: bench_channels [--entities N] [--grid G] [--subdiv S] "
                            "[--frames F] [--size WxH] [--device NAME] [--picks P] [--no-gpu]\n");
            return 2;
        }
    }
    if (!n || !grid || !subdiv || subdiv > 256 || !frames || !w || !h || !picks) {
        fprintf(stderr, "bench_channels: counts must be positive (subdiv <= 256)\n");
        return 2;
    }
    int rc = mode_change(n);
    if (rc == 0) {
        rc = pick_cost(n, picks);
    }
    if (rc == 0 && gpu) {
        rc = wireframe_pass(grid, subdiv, frames, w, h, device);
    }
    return rc;
}
