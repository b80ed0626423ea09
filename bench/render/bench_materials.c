/* bench_materials.c: GPU cost of the glTF material extensions at 1920x1080 (or --size WxH): a
 * 16 x 9 grid of spheres filling the view, drawn with one material per run: plain
 * metallic-roughness, clear coat + sheen + specular (extra lobes in the opaque pass), iridescence
 * + anisotropy (the thin-film Fresnel and the anisotropic lobe, opaque pass), transmission (the
 * spheres move to the transparent pass and the view's opaque image is copied with its mips:
 * "transmission_copy") and the same with dispersion (three samples of that image per pixel
 * instead of one). Prints one JSON line per material:
 *   {"bench":"materials","material":...,"opaque_ms":...,"transparent_ms":...,
 *    "transmission_copy_ms":...,"frame_gpu_ms":...}
 * Times are the mean over --frames frames of the renderer's pass timestamps (rill_render_stats).
 * Usage: bench_materials [--size WxH] [--frames N] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_renderer.h"

#define COLS 16
#define ROWS 9

static double pass_ms(const rill_render_stats *s, const char *prefix) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        if (strncmp(s->pass_names[i], prefix, strlen(prefix)) == 0) {
            t += s->pass_gpu_ms[i];
        }
    }
    return t;
}

static double all_ms(const rill_render_stats *s) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        t += s->pass_gpu_ms[i];
    }
    return t;
}

static int run(rill_renderer *r, const char *name, const rill_material_desc *md, uint32_t frames) {
    rill_error err = {0};
    rill_mesh sphere = rill_render_mesh_sphere(r, 32, &err);
    rill_mesh plane = rill_render_mesh_sphere(r, 8, &err);
    rill_material m = rill_render_material_create(r, md, &err);
    rill_material back = rill_render_material_create(
        r, &(rill_material_desc){.base_color = {0.8f, 0.3f, 0.2f, 1}, .roughness = 0.6f}, &err);
    if (!sphere.id || !m.id || !back.id) {
        fprintf(stderr, "bench_materials: %s\n", err.msg);
        return 1;
    }
    static rill_render_instance in[COLS * ROWS + 1];
    memset(in, 0, sizeof(in));
    for (uint32_t i = 0; i < COLS * ROWS; i++) {
        in[i].id = i + 1;
        in[i].mesh = sphere;
        in[i].material = m;
        for (int k = 0; k < 16; k++) {
            in[i].transform[k] = (k % 5 == 0) ? 0.45f : 0.0f;
        }
        in[i].transform[15] = 1.0f;
        in[i].transform[12] = ((float)(i % COLS) - (COLS - 1) * 0.5f) * 0.9f;
        in[i].transform[13] = ((float)(i / COLS) - (ROWS - 1) * 0.5f) * 0.9f;
        in[i].transform[14] = -8.0f;
    }
    /* A wall behind them (what transmission shows). */
    rill_render_instance *w = &in[COLS * ROWS];
    w->id = 9999;
    w->mesh = plane;
    w->material = back;
    for (int k = 0; k < 16; k++) {
        w->transform[k] = (k % 5 == 0) ? 20.0f : 0.0f;
    }
    w->transform[15] = 1.0f;
    w->transform[14] = -32.0f;
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    for (int k = 0; k < 16; k++) {
        snap.view.world_from_view[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    snap.view.fov_y = 1.0f;
    snap.instances = in;
    snap.instance_count = COLS * ROWS + 1;
    snap.ambient[0] = 0.2f, snap.ambient[1] = 0.22f, snap.ambient[2] = 0.26f;
    snap.has_sun = true;
    snap.sun.direction[1] = -1.0f;
    snap.sun.direction[2] = -0.5f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    double op = 0, tr = 0, cp = 0, fr = 0;
    uint32_t n = 0;
    rill_render_stats s;
    for (uint32_t f = 0; f < frames + 5; f++) {
        if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
            rill_renderer_wait_idle(r, &err) != RILL_OK) {
            fprintf(stderr, "bench_materials: %s\n", err.msg);
            return 1;
        }
        if (f < 5) {
            continue; /* uploads and pipeline warm-up */
        }
        rill_renderer_stats(r, &s);
        op += pass_ms(&s, "opaque");
        tr += pass_ms(&s, "transparent");
        cp += pass_ms(&s, "transmission_copy");
        fr += all_ms(&s);
        n++;
    }
    rill_renderer_stats(r, &s);
    printf("{\"bench\":\"materials\",\"device\":\"%s\",\"material\":\"%s\",\"spheres\":%u,"
           "\"frames\":%u,\"opaque_ms\":%.4f,\"transparent_ms\":%.4f,"
           "\"transmission_copy_ms\":%.4f,\"frame_gpu_ms\":%.4f}\n",
           s.device_name, name, COLS * ROWS, n, op / n, tr / n, cp / n, fr / n);
    fflush(stdout);
    rill_render_material_destroy(r, m);
    rill_render_material_destroy(r, back);
    rill_render_mesh_destroy(r, sphere);
    rill_render_mesh_destroy(r, plane);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t w = 1920, h = 1080, frames = 60;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h) {
                fprintf(stderr, "bench_materials: --size WxH\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_materials [--size WxH] [--frames N] [--device NAME]\n");
            return 2;
        }
    }
    if (!frames) {
        frames = 1;
    }
    rill_renderer_desc d = {.width = w, .height = h, .device_name = device};
    rill_renderer *r = bench_renderer_create("bench_materials", d);
    if (!r) {
        return 1;
    }
    const rill_material_desc plain = {.base_color = {0.9f, 0.9f, 0.9f, 1}, .roughness = 0.4f};
    rill_material_desc layered = plain;
    layered.clearcoat = 1.0f;
    layered.clearcoat_roughness = 0.1f;
    layered.sheen_color[0] = layered.sheen_color[1] = layered.sheen_color[2] = 0.8f;
    layered.sheen_roughness = 0.5f;
    layered.specular_set = true;
    layered.specular = 0.8f;
    layered.specular_color[0] = layered.specular_color[1] = layered.specular_color[2] = 1.0f;
    rill_material_desc glass = plain;
    glass.roughness = 0.2f;
    glass.transmission = 1.0f;
    glass.volume_set = true;
    glass.thickness = 0.5f;
    glass.attenuation_distance = 2.0f;
    glass.attenuation_color[0] = 0.9f, glass.attenuation_color[1] = 0.8f;
    glass.attenuation_color[2] = 0.6f;
    rill_material_desc film = plain;
    film.metallic = 1.0f;
    film.iridescence = 1.0f;
    film.anisotropy = 0.8f;
    film.anisotropy_rotation = 0.5f;
    rill_material_desc prism = glass;
    prism.dispersion = 1.0f;
    int rc = run(r, "plain", &plain, frames);
    rc |= run(r, "clearcoat_sheen_specular", &layered, frames);
    rc |= run(r, "iridescence_anisotropy", &film, frames);
    rc |= run(r, "transmission_volume", &glass, frames);
    rc |= run(r, "transmission_volume_dispersion", &prism, frames);
    rill_renderer_destroy(r);
    return rc;
}
