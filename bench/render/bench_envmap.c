/* bench_envmap.c: environment maps. CPU: decoding a W x H equirectangular .hdr
 * (rill_env_image_decode), reprojecting it onto a .rmip cube (rill_rmip_cube_from_equirect, what
 * `rill export` does per Skybox / EnvironmentMapLight / probe image) and turning the cube back
 * into an equirectangular image (what loading an exported cube costs). GPU, per quality tier: an
 * EnvironmentMapLight naming that image: the CPU time of the frame that reads, decodes and uploads
 * it, then its reprojection onto the IBL's source cube and prefilter ("ibl.source" + six
 * "ibl.face" steps, one a frame): total and the largest slice. Prints JSON lines:
 *   {"bench":"envmap_cpu",...} and {"bench":"envmap","tier":...,"reproject_prefilter_ms":...}
 * Probe capture (ReflectionProbeSource.capture), at the Medium tier, with all six faces in one
 * frame and with one a frame (rill_renderer_desc.probe_capture_faces 6 and 1, the default): over
 * the frames that draw faces, the largest GPU time and record CPU time (cpu_record_ms) of a
 * frame, against the frame after the bake's, and the bake's own passes:
 *   {"bench":"probe_capture","faces_per_frame":F,"capture_frames":N,
 *    "capture_frame_gpu_ms":...,"capture_extra_gpu_ms":...,"capture_frame_cpu_ms":...,...}
 * Usage: bench_envmap [--image WxH] [--size WxH] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_renderer.h"
#include "rill/asset.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip_cube.h"
#include "rill/render/environment.h"
#include "rill/render/post.h"
#include "rill/render/reflections.h"

static double pass_ms(const rill_render_stats *s, const char *prefix) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        if (strncmp(s->pass_names[i], prefix, strlen(prefix)) == 0) {
            t += s->pass_gpu_ms[i];
        }
    }
    return t;
}

static double now_ms(void) {
    return (double)rill_time_ns() * 1e-6;
}

/* A w x h HDR sky (a gradient with a bright sun spot) encoded as .hdr bytes. */
static uint8_t *make_hdr(uint32_t w, uint32_t h, size_t *size) {
    float *px = malloc((size_t)w * h * 3 * sizeof(float));
    if (!px) {
        return NULL;
    }
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            float *p = px + ((size_t)y * w + x) * 3;
            float v = (float)y / (float)h;
            p[0] = 0.3f + 0.7f * v;
            p[1] = 0.5f + 0.3f * v;
            p[2] = 1.0f - 0.5f * v;
            if (x > w / 3 && x < w / 3 + w / 64 && y > h / 4 && y < h / 4 + h / 32) {
                p[0] = p[1] = p[2] = 500.0f;
            }
        }
    }
    uint8_t *out = NULL;
    rill_error err = {0};
    if (rill_image_encode_hdr(px, w, h, 3, &out, size, &err) != RILL_OK) {
        fprintf(stderr, "bench_envmap: %s\n", err.msg);
    }
    free(px);
    return out;
}

static void bench_cpu(const uint8_t *hdr, size_t size, uint32_t iw, uint32_t ih) {
    rill_error err = {0};
    rill_image img;
    double t0 = now_ms();
    if (rill_env_image_decode(hdr, size, "sky.hdr", &img, &err) != RILL_OK) {
        fprintf(stderr, "bench_envmap: %s\n", err.msg);
        return;
    }
    double t1 = now_ms();
    uint8_t *cube = NULL;
    size_t cube_size = 0;
    if (rill_rmip_cube_from_equirect(&img, 0, &cube, &cube_size, &err) != RILL_OK) {
        fprintf(stderr, "bench_envmap: %s\n", err.msg);
        rill_image_free(&img);
        return;
    }
    double t2 = now_ms();
    rill_image back;
    rill_result r = rill_env_image_decode(cube, cube_size, "sky.rmip", &back, &err);
    double t3 = now_ms();
    uint32_t face = 0;
    rill_tex_data td;
    if (rill_rmip_cube_read(cube, cube_size, "sky.rmip", &td, &err) == RILL_OK) {
        face = td.width;
        rill_tex_data_free(&td);
    }
    printf("{\"bench\":\"envmap_cpu\",\"image\":\"%ux%u\",\"face\":%u,\"cube_bytes\":%zu,"
           "\"decode_hdr_ms\":%.2f,\"equirect_to_cube_ms\":%.2f,\"cube_to_equirect_ms\":%.2f}\n",
           iw, ih, face, cube_size, t1 - t0, t2 - t1, r == RILL_OK ? t3 - t2 : -1.0);
    fflush(stdout);
    if (r == RILL_OK) {
        rill_image_free(&back);
    }
    rill_free(cube);
    rill_image_free(&img);
}

static int run_tier(rill_render_quality q, const char *name, const char *dir, uint32_t w,
                    uint32_t h, const char *device) {
    rill_renderer_desc d = {.width = w, .height = h, .quality = q, .device_name = device};
    rill_renderer *r = bench_renderer_create("bench_envmap", d);
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_vfs *vfs = rill_vfs_create(&(rill_vfs_desc){0}, &err);
    if (!vfs || rill_vfs_mount_dir(vfs, dir, &err) != RILL_OK) {
        fprintf(stderr, "bench_envmap: %s\n", err.msg);
        rill_renderer_destroy(r);
        return 1;
    }
    rill_renderer_set_vfs(r, vfs);
    rill_mesh sphere = rill_render_mesh_sphere(r, 32, &err);
    rill_material m = rill_render_material_create(
        r, &(rill_material_desc){.metallic = 1, .roughness = 0.5f, .roughness_set = true}, &err);
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = 1;
    in.mesh = sphere;
    in.material = m;
    for (int k = 0; k < 16; k++) {
        in.transform[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    in.transform[14] = -3.0f;
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    for (int k = 0; k < 16; k++) {
        snap.view.world_from_view[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    snap.instances = &in;
    snap.instance_count = 1;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.2f;
    /* Frame 0: the sky's first bake, with no environment map yet. */
    rill_render_stats s;
    int rc = 0;
    if (rill_renderer_render(r, &snap, &err) != RILL_OK || rill_renderer_wait_idle(r, &err)) {
        fprintf(stderr, "bench_envmap: %s\n", err.msg);
        rc = 1;
    }
    rill_render_environment_map_light e = rill_render_environment_map_light_query_defaults();
    e.image = "sky.hdr";
    rill_render_routed_settings rs = {"EnvironmentMapLight", &e, sizeof(e), 0};
    snap.view.settings = &rs;
    snap.view.settings_count = 1;
    double load_ms = 0, total = 0, mx = 0;
    uint32_t steps = 0;
    for (uint32_t i = 0; rc == 0 && i < 12; i++) {
        double t0 = now_ms();
        if (rill_renderer_render(r, &snap, &err) != RILL_OK) {
            fprintf(stderr, "bench_envmap: %s\n", err.msg);
            rc = 1;
            break;
        }
        if (i == 0) {
            load_ms = now_ms() - t0; /* read, decode, upload recorded */
        }
        if (rill_renderer_wait_idle(r, &err) != RILL_OK) {
            rc = 1;
            break;
        }
        rill_renderer_stats(r, &s);
        double t = pass_ms(&s, "ibl.source") + pass_ms(&s, "ibl.face");
        if (t > 0) {
            total += t;
            mx = t > mx ? t : mx;
            steps++;
        }
    }
    rill_renderer_stats(r, &s);
    if (rc == 0) {
        printf("{\"bench\":\"envmap\",\"device\":\"%s\",\"tier\":\"%s\",\"face\":%u,"
               "\"load_frame_cpu_ms\":%.2f,\"bake_frames\":%u,\"reproject_prefilter_ms\":%.4f,"
               "\"slice_max_ms\":%.4f,\"bakes\":%u}\n",
               s.device_name, name, s.ibl_face_size, load_ms, steps, total, mx, s.ibl_bakes);
        fflush(stdout);
    }
    rill_render_material_destroy(r, m);
    rill_render_mesh_destroy(r, sphere);
    rill_renderer_set_vfs(r, NULL);
    rill_renderer_destroy(r);
    rill_vfs_destroy(vfs);
    return rc;
}

static double frame_gpu_ms(const rill_render_stats *s) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        t += s->pass_gpu_ms[i];
    }
    return t;
}

/* A grid of spheres and a probe capturing them, at the Medium tier, `faces` faces a frame. */
static int run_capture(uint32_t w, uint32_t h, const char *device, uint32_t faces) {
    rill_renderer_desc d = {.width = w,
                            .height = h,
                            .quality = RILL_RENDER_QUALITY_MEDIUM,
                            .device_name = device,
                            .probe_capture_faces = faces};
    rill_renderer *r = bench_renderer_create("bench_envmap", d);
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_mesh sphere = rill_render_mesh_sphere(r, 32, &err);
    rill_material m = rill_render_material_create(
        r, &(rill_material_desc){.metallic = 1, .roughness = 0.2f, .roughness_set = true}, &err);
    rill_render_instance in[64];
    memset(in, 0, sizeof(in));
    for (int i = 0; i < 64; i++) {
        in[i].id = (uint64_t)i + 1;
        in[i].mesh = sphere;
        in[i].material = m;
        for (int k = 0; k < 16; k++) {
            in[i].transform[k] = (k % 5 == 0) ? 1.0f : 0.0f;
        }
        in[i].transform[12] = (float)(i % 8) * 1.5f - 5.25f;
        in[i].transform[14] = (float)(i / 8) * 1.5f - 5.25f;
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    for (int k = 0; k < 16; k++) {
        snap.view.world_from_view[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    snap.view.world_from_view[13] = 3.0f;
    snap.view.world_from_view[14] = 10.0f;
    snap.instances = in;
    snap.instance_count = 64;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.3f;
    snap.has_sun = true;
    snap.sun.direction[1] = -1.0f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    rill_render_probe probe;
    memset(&probe, 0, sizeof(probe));
    for (int k = 0; k < 16; k++) {
        probe.world_from_probe[k] = (k % 5 == 0) ? 20.0f : 0.0f;
    }
    probe.world_from_probe[13] = 2.0f;
    probe.world_from_probe[15] = 1.0f;
    probe.falloff = 0.1f;
    probe.intensity = 1.0f;
    probe.capture = true;
    probe.entity = 1;
    snap.probes = &probe;
    snap.probe_count = 1;
    rill_render_stats s;
    /* Frame 1 makes the six render textures; the faces are drawn from frame 2 to the bake's. */
    double capture_gpu = 0, capture_cpu = 0, after_gpu = -1, after_cpu = 0, bake = 0;
    uint32_t frames = 0;
    bool baked = false;
    int rc = 0;
    for (uint32_t i = 0; i < 12 && after_gpu < 0; i++) {
        if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
            rill_renderer_wait_idle(r, &err) != RILL_OK) {
            fprintf(stderr, "bench_envmap: %s\n", err.msg);
            rc = 1;
            break;
        }
        rill_renderer_stats(r, &s);
        if (baked) {
            after_gpu = frame_gpu_ms(&s);
            after_cpu = s.cpu_record_ms;
        } else if (i >= 1) {
            frames++;
            capture_gpu = RILL_MAX(capture_gpu, frame_gpu_ms(&s));
            capture_cpu = RILL_MAX(capture_cpu, s.cpu_record_ms);
            baked = s.probe_bakes == 1;
            bake = s.probe_bake_gpu_ms;
        }
    }
    if (rc == 0 && after_gpu >= 0) {
        printf("{\"bench\":\"probe_capture\",\"device\":\"%s\",\"width\":%u,\"height\":%u,"
               "\"faces_per_frame\":%u,\"capture_frames\":%u,\"view_size\":512,"
               "\"capture_frame_gpu_ms\":%.4f,\"next_frame_gpu_ms\":%.4f,"
               "\"capture_extra_gpu_ms\":%.4f,\"bake_passes_gpu_ms\":%.4f,"
               "\"capture_frame_cpu_ms\":%.3f,\"next_frame_cpu_ms\":%.3f}\n",
               s.device_name, w, h, faces, frames, capture_gpu, after_gpu, capture_gpu - after_gpu,
               bake, capture_cpu, after_cpu);
        fflush(stdout);
    } else if (rc == 0) {
        fprintf(stderr, "bench_envmap: the probe was not captured in 12 frames\n");
        rc = 1;
    }
    rill_render_material_destroy(r, m);
    rill_render_mesh_destroy(r, sphere);
    rill_renderer_destroy(r);
    return rc;
}

int main(int argc, char **argv) {
    uint32_t w = 1920, h = 1080, iw = 4096, ih = 2048;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h) {
                fprintf(stderr, "bench_envmap: --size WxH\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--image") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &iw, &ih) != 2 || iw < 4 || ih < 2) {
                fprintf(stderr, "bench_envmap: --image WxH\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_envmap [--image WxH] [--size WxH] [--device NAME]\n");
            return 2;
        }
    }
    size_t size = 0;
    uint8_t *hdr = make_hdr(iw, ih, &size);
    if (!hdr) {
        return 1;
    }
    bench_cpu(hdr, size, iw, ih);
    char dir[] = "/tmp/bench_envmapXXXXXX", path[600];
    if (!mkdtemp(dir)) {
        rill_free(hdr);
        return 1;
    }
    snprintf(path, sizeof(path), "%s/sky.hdr", dir);
    rill_error err = {0};
    int rc = rill_file_write_all(path, hdr, size, &err) == RILL_OK ? 0 : 1;
    rill_free(hdr);
    if (rc == 0) {
        rc |= run_tier(RILL_RENDER_QUALITY_LOW, "low", dir, w, h, device);
        rc |= run_tier(RILL_RENDER_QUALITY_MEDIUM, "medium", dir, w, h, device);
        rc |= run_tier(RILL_RENDER_QUALITY_HIGH, "high", dir, w, h, device);
        rc |= run_capture(w, h, device, 6);
        rc |= run_capture(w, h, device, 1);
    }
    remove(path);
    rmdir(dir);
    return rc;
}
