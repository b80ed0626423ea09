/* rill/plugin.h: the C ABI between Rill and an effect plugin. A plugin is a shared library that
 * includes only this header and exports one function, RILL_PLUGIN_ENTRY_NAME:
 *
 *     RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);
 *
 * The host calls it once per load with its function table; the plugin registers its effects
 * through host->add_post_process and returns its own table (static storage). Both tables start
 * with the ABI version and their struct size: the host refuses a plugin whose major version
 * differs from RILL_PLUGIN_ABI_MAJOR or whose minor is newer than the host's, and reads only the
 * fields both sides know (struct_size). docs/plugins.md is the guide. */
#ifndef RILL_PLUGIN_H
#define RILL_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_PLUGIN_ABI_MAJOR 1u
#define RILL_PLUGIN_ABI_MINOR 0u
#define RILL_PLUGIN_ENTRY_NAME "rill_plugin_entry"

#if defined(_WIN32)
#define RILL_PLUGIN_EXPORT __declspec(dllexport)
#else
#define RILL_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Where in the frame an effect runs (phases in frame order; `order` sorts within a phase). */
typedef enum rill_plugin_phase {
    RILL_PLUGIN_PHASE_GI = 0,       /* HDR, before temporal anti-aliasing */
    RILL_PLUGIN_PHASE_HDR_POST = 1, /* HDR, after temporal anti-aliasing */
    RILL_PLUGIN_PHASE_LDR_POST = 2, /* after tonemapping, before FXAA/SMAA */
    RILL_PLUGIN_PHASE_OVERLAY = 3,  /* after anti-aliasing */
    RILL_PLUGIN_PHASE_COUNT = 4
} rill_plugin_phase;

/* The type of one settings field; each maps to a reflected field type of the same shape. */
typedef enum rill_plugin_field_type {
    RILL_PLUGIN_FIELD_F32 = 0,
    RILL_PLUGIN_FIELD_VEC2 = 1,
    RILL_PLUGIN_FIELD_VEC3 = 2,
    RILL_PLUGIN_FIELD_VEC4 = 3,
    RILL_PLUGIN_FIELD_I32 = 4,
    RILL_PLUGIN_FIELD_U32 = 5,
    RILL_PLUGIN_FIELD_COLOR = 6, /* four floats, linear RGBA */
    RILL_PLUGIN_FIELD_COUNT = 7
} rill_plugin_field_type;

/* One field of an effect's settings block (std140 layout: the plugin chooses offsets that match
 * its GLSL uniform block at binding 2). has_range != 0 clamps every lane to [min, max]. */
typedef struct rill_plugin_field {
    const char *name;
    uint32_t type; /* rill_plugin_field_type */
    uint32_t offset;
    float default_value[4]; /* lanes used by the type */
    uint32_t has_range;
    float min, max;
    const char *doc;
} rill_plugin_field;

/* One row of a field table for the common scalar settings: a float clamped to [MIN, MAX], and an
 * unclamped unsigned integer. `{RILL_PLUGIN_F32("radius", 4, 0.75f, 0.0f, 2.0f, "where it
 * starts")}` is the row `{"radius", RILL_PLUGIN_FIELD_F32, 4, {0.75f}, 1, 0.0f, 2.0f, "..."}`. */
#define RILL_PLUGIN_F32(NAME, OFFSET, DEFAULT, MIN, MAX, DOC)                                      \
    { (NAME), RILL_PLUGIN_FIELD_F32, (OFFSET), {(DEFAULT), 0, 0, 0}, 1, (MIN), (MAX), (DOC) }
#define RILL_PLUGIN_U32(NAME, OFFSET, DEFAULT, DOC)                                                \
    { (NAME), RILL_PLUGIN_FIELD_U32, (OFFSET), {(DEFAULT), 0, 0, 0}, 0, 0.0f, 0.0f, (DOC) }

/* One post-process effect. id names the settings component a scene holds (e.g. "Sepia"); it must
 * be unique among loaded plugins. shader_source is GLSL for a compute pass (docs/plugins.md: the
 * host adds the #version line, bindings 0 = source image, 1 = sampler, 3 = output image, push
 * constants, and the entry point calls `vec4 rill_effect(vec2 uv, vec4 color)`; the plugin
 * declares its settings block at binding 2). shader_path, when not NULL, is a file that replaces
 * shader_source and is watched for hot reload. settings_size <= 256 bytes (rounded up to 16). */
typedef struct rill_plugin_effect_desc {
    uint32_t struct_size; /* sizeof(rill_plugin_effect_desc) */
    const char *id;
    const char *shader_source;
    const char *shader_path; /* relative to the plugin library's folder, or absolute */
    uint32_t settings_size;
    const rill_plugin_field *settings_fields;
    uint32_t settings_field_count;
    uint32_t phase; /* rill_plugin_phase */
    int32_t order;
} rill_plugin_effect_desc;

/* The host's table, valid during the entry call (copy what you need). */
typedef struct rill_host_api {
    uint32_t abi_major, abi_minor;
    uint32_t struct_size; /* sizeof(rill_host_api) as the host was built */
    void *host;           /* pass back as the first argument */
    /* Returns 0 on success, nonzero when refused (the host logs why). */
    int (*add_post_process)(void *host, const rill_plugin_effect_desc *desc);
    /* level: 0 info, 1 warning, 2 error. */
    void (*log)(void *host, int level, const char *message);
} rill_host_api;

/* The plugin's table, returned from the entry point (static storage, lives while loaded). */
typedef struct rill_plugin_api {
    uint32_t abi_major, abi_minor;
    uint32_t struct_size; /* sizeof(rill_plugin_api) as the plugin was built */
    const char *name;
    const char *version;
    /* Optional: called before the library is unloaded or swapped. */
    void (*shutdown)(void);
} rill_plugin_api;

typedef const rill_plugin_api *(*rill_plugin_entry_fn)(const rill_host_api *host);

/* The whole entry point of a plugin with one post-process effect whose shader is a file next to
 * the library: RILL_PLUGIN_SINGLE_EFFECT("sepia", "1.0", "Sepia", "sepia.glsl", 16, fields,
 * RILL_PLUGIN_PHASE_LDR_POST, 100) after `static const rill_plugin_field fields[]`. Plugins
 * with several effects or inline shaders write rill_plugin_entry themselves. */
#define RILL_PLUGIN_SINGLE_EFFECT(NAME, VERSION, ID, SHADER_PATH, SETTINGS_SIZE, FIELDS, PHASE,    \
                                  ORDER)                                                           \
    static const rill_plugin_api rill__plugin_api = {RILL_PLUGIN_ABI_MAJOR,                        \
                                                     RILL_PLUGIN_ABI_MINOR,                        \
                                                     sizeof(rill_plugin_api),                      \
                                                     (NAME),                                       \
                                                     (VERSION),                                    \
                                                     NULL};                                        \
    RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);        \
    const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {                          \
        if (host && host->abi_major == RILL_PLUGIN_ABI_MAJOR) {                                    \
            rill_plugin_effect_desc d = {sizeof(d),                                                \
                                         (ID),                                                     \
                                         NULL,                                                     \
                                         (SHADER_PATH),                                            \
                                         (SETTINGS_SIZE),                                          \
                                         (FIELDS),                                                 \
                                         (uint32_t)(sizeof(FIELDS) / sizeof((FIELDS)[0])),         \
                                         (PHASE),                                                  \
                                         (ORDER)};                                                 \
            host->add_post_process(host->host, &d);                                                \
        }                                                                                          \
        return &rill__plugin_api; /* on a major mismatch the host reports it */                    \
    }

#ifdef __cplusplus
}
#endif

#endif /* RILL_PLUGIN_H */
