/* export_test_project.h: builds a small project folder from generated data for the exporter
 * tests: PNG textures (colour, a normal map by name, images a .gltf material uses by slot), an
 * HDR sky, a procedural sphere .glb, a hand-written .gltf with an external buffer, a scene, a
 * project.toml and an opaque audio file. Header-only, static functions. */
#ifndef RILL_EXPORT_TEST_PROJECT_H
#define RILL_EXPORT_TEST_PROJECT_H

#include "rill_test.h"

#include "gltf/gltf_test_models.h"
#include "rill/formats/gltf.h"
#include "rill/formats/image.h"

/* Writes a w x h RGBA PNG: a pattern that depends on `seed`, so tests can change an image. */
static inline void ep_write_png(const char *dir, const char *rel, int w, int h, unsigned seed,
                                bool normal_map) {
    uint8_t *px = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t *p = &px[(y * w + x) * 4];
            if (normal_map) {
                p[0] = (uint8_t)(128 + 60 * ((x / 8 + seed) % 2 ? 1 : -1));
                p[1] = (uint8_t)(128 + (y * 3) % 50);
                p[2] = 230;
            } else {
                p[0] = (uint8_t)(x * 255 / w);
                p[1] = (uint8_t)(y * 255 / h);
                p[2] = (uint8_t)((x ^ y) * 7 + seed * 31);
            }
            p[3] = 255;
        }
    }
    uint8_t *png = NULL;
    size_t size = 0;
    assert_int_equal(rill_image_encode_png(px, (uint32_t)w, (uint32_t)h, 4, &png, &size, NULL),
                     RILL_OK);
    rill_test_write_file(dir, rel, png, size);
    rill_free(png);
    free(px);
}

static inline void ep_write_hdr(const char *dir, const char *rel, int w, int h) {
    float *px = malloc((size_t)w * h * 3 * sizeof(float));
    for (int i = 0; i < w * h; i++) {
        px[i * 3 + 0] = 4.0f * (float)(i % w) / (float)w;
        px[i * 3 + 1] = 1.5f;
        px[i * 3 + 2] = 0.25f;
    }
    uint8_t *hdr = NULL;
    size_t size = 0;
    assert_int_equal(rill_image_encode_hdr(px, (uint32_t)w, (uint32_t)h, 3, &hdr, &size, NULL),
                     RILL_OK);
    rill_test_write_file(dir, rel, hdr, size);
    rill_free(hdr);
    free(px);
}

static inline void ep_write_text(const char *dir, const char *rel, const char *text) {
    rill_test_write_file(dir, rel, text, strlen(text));
}

/* A glb model written with the glTF writer: a UV sphere (segments x rings). */
static inline void ep_write_sphere(const char *dir, const char *rel, uint32_t seg, uint32_t rings) {
    rill_gltf_model *m = tm_sphere(seg, rings);
    uint8_t *bytes = NULL;
    size_t n = 0;
    rill_error err = {0};
    assert_int_equal(rill_glb_write_memory(m, NULL, &bytes, &n, &err), RILL_OK);
    rill_test_write_file(dir, rel, bytes, n);
    rill_free(bytes);
    rill_gltf_model_free(m);
}

/* A .gltf quad with an external buffer whose material uses bumps.png as its normal map and
 * "panel mr.png" (percent-encoded in the URI) as metallic-roughness. */
static inline void ep_write_panel_gltf(const char *dir, const char *folder) {
    float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    uint8_t bin[92];
    memcpy(bin, pos, 48);
    memcpy(bin + 48, uv, 32);
    memcpy(bin + 80, idx, 12);
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/panel.bin", folder);
    rill_test_write_file(dir, rel, bin, sizeof(bin));
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"uri\":\"panel.bin\",\"byteLength\":92}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},"
        "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":32},"
        "{\"buffer\":0,\"byteOffset\":80,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC2\"},"
        "{\"bufferView\":2,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}],"
        "\"images\":[{\"uri\":\"bumps.png\"},{\"uri\":\"panel%20mr.png\"}],"
        "\"textures\":[{\"source\":0},{\"source\":1}],"
        "\"materials\":[{\"normalTexture\":{\"index\":0},"
        "\"pbrMetallicRoughness\":{\"metallicRoughnessTexture\":{\"index\":1}}}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},"
        "\"indices\":2,\"material\":0}]}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}";
    snprintf(rel, sizeof(rel), "%s/panel.gltf", folder);
    ep_write_text(dir, rel, json);
}

/* The number of inputs ep_make_project creates that the export takes (panel.bin is not one: the
 * exported panel.glb embeds its bytes). */
#define EP_INPUTS 12u
/* ... of which converted (textures + models): albedo, brick_n, sky, bumps, panel mr, sphere,
 * panel.gltf, rock, rock_lod1. */
#define EP_CONVERTED 9u

/* Builds the sample project under dir. */
static inline void ep_make_project(const char *dir) {
    ep_write_png(dir, "textures/albedo.png", 128, 128, 1, false);
    ep_write_png(dir, "textures/brick_n.png", 64, 64, 2, true);
    ep_write_hdr(dir, "textures/sky.hdr", 64, 32);
    ep_write_png(dir, "models/panel/bumps.png", 64, 64, 3, true);
    ep_write_png(dir, "models/panel/panel mr.png", 64, 64, 4, false);
    ep_write_panel_gltf(dir, "models/panel");
    ep_write_sphere(dir, "models/sphere.glb", 48, 24);
    /* A model with a hand-authored LOD: neither gets baked levels. */
    ep_write_sphere(dir, "models/rock.glb", 16, 8);
    ep_write_sphere(dir, "models/rock_lod1.glb", 8, 4);
    ep_write_text(dir, "scenes/main.rsn",
                  "# a scene naming the exported texture path, and a .gltf model (\"x.gltf\")\n"
                  "entity 1 { name: \"ground\" Texture { path: \"textures/albedo.rmip\" } }\n"
                  "entity 2 { Model { path: @\"models/panel/panel.gltf\" } }\n"
                  "entity 3 { Name { name: \"missing.gltf\" } }\n");
    ep_write_text(dir, "project.toml", "[project]\nname = \"export-test\"\n");
    uint8_t ogg[300];
    for (size_t i = 0; i < sizeof(ogg); i++) {
        ogg[i] = (uint8_t)(i * 37u + 11u);
    }
    rill_test_write_file(dir, "audio/beep.ogg", ogg, sizeof(ogg));
    /* Never inputs: dot-folders, build/. */
    ep_write_text(dir, ".git/HEAD", "ref: refs/heads/main\n");
    ep_write_text(dir, "build/junk.txt", "not an input\n");
}

#endif /* RILL_EXPORT_TEST_PROJECT_H */
