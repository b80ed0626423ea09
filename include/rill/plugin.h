/* rill/plugin.h: the C ABI between Rill and an effect plugin. A plugin is a shared library that
 * includes only this header and exports one function, RILL_PLUGIN_ENTRY_NAME:
 *
 *     RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);
 *
 * The host calls it once per load with its function table; the plugin registers its effects
 * through host->add_post_process and returns its own table (static storage). Both tables start
 * with the ABI version and their struct size: the host refuses a plugin whose major version
 * differs from RILL_PLUGIN_ABI_MAJOR or whose minor is newer than the host's, and reads only the
 * fields both sides know (struct_size). ABI 1.1 added the frame inputs
 * (rill_plugin_effect_desc.inputs, rill_host_api.inputs); a plugin built for 1.0 loads unchanged.
 * docs/plugins.md is the guide. */
#ifndef RILL_PLUGIN_H
#define RILL_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_PLUGIN_ABI_MAJOR 1u
#define RILL_PLUGIN_ABI_MINOR 1u
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

/* Frame images an effect may read besides its source (ABI 1.1; rill_plugin_effect_desc.inputs is
 * a mask of them). The host binds each at its binding (4, 5, 6: after the contract's 0-3) and adds
 * the GLSL that reads it (docs/plugins.md, "Frame inputs"). A host refuses an effect that asks
 * for an input it cannot give, with a message naming the plugin. */
typedef enum rill_plugin_input {
    RILL_PLUGIN_INPUT_DEPTH = 1u << 0,  /* binding 4: rill_depth(uv), rill_view_depth(uv) */
    RILL_PLUGIN_INPUT_NORMAL = 1u << 1, /* binding 5: rill_normal(uv), world space */
    RILL_PLUGIN_INPUT_MOTION = 1u << 2  /* binding 6: rill_motion(uv), UV units this frame */
} rill_plugin_input;
/* Every input ABI 1.1 knows. */
#define RILL_PLUGIN_INPUTS_1_1 7u

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

/* One row of a field table for the common settings: a float clamped to [MIN, MAX], an unclamped
 * unsigned integer and a colour. `{RILL_PLUGIN_F32("radius", 4, 0.75f, 0.0f, 2.0f, "where it
 * starts")}` is the row `{"radius", RILL_PLUGIN_FIELD_F32, 4, {0.75f}, 1, 0.0f, 2.0f, "..."}`. */
#define RILL_PLUGIN_F32(NAME, OFFSET, DEFAULT, MIN, MAX, DOC)                                      \
    { (NAME), RILL_PLUGIN_FIELD_F32, (OFFSET), {(DEFAULT), 0, 0, 0}, 1, (MIN), (MAX), (DOC) }
#define RILL_PLUGIN_U32(NAME, OFFSET, DEFAULT, DOC)                                                \
    { (NAME), RILL_PLUGIN_FIELD_U32, (OFFSET), {(DEFAULT), 0, 0, 0}, 0, 0.0f, 0.0f, (DOC) }
/* A linear RGBA colour, each lane clamped to [0, 4] (a std140 vec4: OFFSET a multiple of 16). */
#define RILL_PLUGIN_COLOR(NAME, OFFSET, R, G, B, A, DOC)                                           \
    { (NAME), RILL_PLUGIN_FIELD_COLOR, (OFFSET), {(R), (G), (B), (A)}, 1, 0.0f, 4.0f, (DOC) }

/* One post-process effect. id names the settings component a scene holds (e.g. "Sepia"); it must
 * be unique among loaded plugins. shader_source is GLSL for a compute pass (docs/plugins.md: the
 * host adds the #version line, bindings 0 = source image, 1 = sampler, 3 = output image, push
 * constants, and the entry point calls `vec4 rill_effect(vec2 uv, vec4 color)`; the plugin
 * declares its settings block at binding 2). shader_path, when not NULL, is a file that replaces
 * shader_source and is watched for hot reload. settings_size <= 256 bytes (rounded up to 16).
 * inputs (ABI 1.1; absent from a 1.0 plugin's smaller struct_size = none): rill_plugin_input bits.
 */
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
    /* ABI 1.1: rill_plugin_input bits (depth, normal, motion). 64 bits wide so that it starts
     * past 1.0's struct (whose tail padding a 1.0 plugin may leave uninitialized): struct_size
     * tells a 1.1 desc from a 1.0 one. */
    uint64_t inputs;
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
    /* ABI 1.1: the rill_plugin_input bits this host can give (read it only when struct_size
     * covers it: a 1.0 host gives none). */
    uint32_t inputs;
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
 * RILL_PLUGIN_PHASE_LDR_POST, 100) after `static const rill_plugin_field fields[]`.
 * RILL_PLUGIN_SINGLE_EFFECT_INPUTS takes the frame inputs it reads as a last argument
 * (RILL_PLUGIN_INPUT_DEPTH | RILL_PLUGIN_INPUT_NORMAL). Plugins with several effects or inline
 * shaders write rill_plugin_entry themselves. */
#define RILL_PLUGIN_SINGLE_EFFECT_INPUTS(NAME, VERSION, ID, SHADER_PATH, SETTINGS_SIZE, FIELDS,    \
                                         PHASE, ORDER, INPUTS)                                     \
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
                                         (ORDER),                                                  \
                                         (INPUTS)};                                                \
            host->add_post_process(host->host, &d);                                                \
        }                                                                                          \
        return &rill__plugin_api; /* on a major mismatch the host reports it */                    \
    }
#define RILL_PLUGIN_SINGLE_EFFECT(NAME, VERSION, ID, SHADER_PATH, SETTINGS_SIZE, FIELDS, PHASE,    \
                                  ORDER)                                                           \
    RILL_PLUGIN_SINGLE_EFFECT_INPUTS(NAME, VERSION, ID, SHADER_PATH, SETTINGS_SIZE, FIELDS, PHASE, \
                                     ORDER, 0u)

#ifdef __cplusplus
}
#endif

#endif /* RILL_PLUGIN_H */
