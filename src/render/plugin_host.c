/* plugin_host.c: effect plugins over the C ABI of rill/plugin.h. Each library is dlopened from a
 * private copy (so the file can be rebuilt while it runs), its ABI checked, its effects' shaders
 * compiled with shaderc into compute pipelines, and their settings registered as components
 * routed to cameras. Each effect is an entry of the renderer's composition registry (effects.c)
 * with the plugin's phase and order; its add callback adds one pass that copies the phase's colour
 * into plugin_src and runs the effect from plugin_src into the colour, also reading the view's
 * depth, normal and motion images when the effect asked for them (ABI 1.1 inputs). */
#include "rill/render/plugins.h"

#include "render_internal.h"
#include "rill/render/effects.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <shaderc/shaderc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Limits on what one library may announce (docs/limits.md, docs/plugins.md): effects per plugin
 * (each is a compiled pipeline and a registered component: 2,000 took over a minute to list),
 * settings bytes and fields per effect, and the bytes of one effect's GLSL. */
#define PLUG_MAX_EFFECTS 64u
#define PLUG_MAX_SHADER_BYTES (1u << 20)
/* How long a library's load and entry point may take in the probe child before it is killed. */
#define PLUG_PROBE_MS 5000
#define PLUG_MAX_SETTINGS 256u
#define PLUG_MAX_FIELDS 32u
#define PLUG_PUSH_SIZE 48u
/* The frame inputs this host gives (rill_plugin_input): the view's prepass images. */
#define PLUG_HOST_INPUTS RILL_PLUGIN_INPUTS_1_1

typedef struct plug_effect {
    char id[64];
    char plugin[64];
    uint32_t lib; /* index in libs */
    uint32_t phase;
    int32_t order;
    uint32_t inputs;    /* rill_plugin_input bits it reads (0 for a plugin built for ABI 1.0) */
    bool warned_inputs; /* said once that a frame lacked one of them */
    char *source;       /* inline source (owned) */
    char shader_path[512];
    char shader_root[512]; /* the plugin's folder a relative shader_path stays in ("" = absolute) */
    int64_t shader_mtime;
    uint32_t settings_size; /* as declared */
    rill_plugin_field fields[PLUG_MAX_FIELDS];
    char field_names[PLUG_MAX_FIELDS][48];
    uint32_t field_count;
    uint8_t settings[PLUG_MAX_SETTINGS]; /* defaults, or rill_plugins_set_settings */
    rill__pipe *pipe;
    rill_component comp;
    uint32_t fx; /* its handle in the renderer's composition registry (0 = not registered) */
    uint32_t generation;
    bool dead;           /* dropped by a library reload */
    bool compile_failed; /* lazy: its first compile failed (retried when its shader changes) */
} plug_effect;

typedef struct plug_lib {
    char path[512];
    char name[64], version[32];
    uint32_t abi_major, abi_minor;
    void *dl;
    const rill_plugin_api *api;
    int64_t mtime;
} plug_lib;

typedef struct plug_pass plug_pass;

struct rill_plugins {
    rill_renderer *r;
    rill_world *world;
    rill_render_components *comps; /* the routed settings types plugins add theirs to */
    shaderc_compiler_t sc;
    RILL_ARRAY(plug_lib) libs;
    RILL_ARRAY(plug_effect) effects;
    RILL_ARRAY(plug_effect) staged; /* effects announced by the entry call in progress */
    const char *staging_lib;        /* path, for messages */
    bool staging_failed;
    rill_plugins_stats stats;
    bool lazy; /* rill_plugins_desc.compile_on_first_use */
    uint32_t copies;
    plug_pass *passes; /* RILL_RENDER_MAX_EFFECTS records, by effect index */
};

static rill_result effect_register(rill_plugins *p, plug_effect *e, rill_error *err);
static void effect_unregister(rill_plugins *p, plug_effect *e);

static int64_t file_mtime(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        return -1;
    }
    return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static void note_error(rill_plugins *p, const char *msg) {
    snprintf(p->stats.last_error, sizeof(p->stats.last_error), "%s", msg);
    rill_logf(RILL_LOG_WARN, "plugins", "%s", msg);
}

/* >>shaders ------------------------------------------------------------------------------------ */

static const char *phase_format(uint32_t phase) {
    return phase <= RILL_PLUGIN_PHASE_HDR_POST ? "rgba16f" : "rgba8";
}

/* The host's part of every effect shader: the bindings of the contract, then the plugin's source
 * (numbered from its line 1), then main calling rill_effect for each pixel. */
static char *build_source(const plug_effect *e, const char *body) {
    static const char pre[] =
        "#version 450\n"
        "layout(local_size_x = 8, local_size_y = 8) in;\n"
        "layout(set = 0, binding = 0) uniform texture2D rill_source;\n"
        "layout(set = 0, binding = 1) uniform sampler rill_sampler;\n"
        "layout(set = 0, binding = 3, %s) uniform writeonly image2D rill_output;\n"
        "layout(push_constant) uniform RillFrame {\n"
        "    vec2 size; vec2 inv_size; float time; uint frame; float near; float far;\n"
        "    uint orthographic; uint pad0, pad1, pad2;\n"
        "} rill_frame;\n"
        "vec4 rill_sample(vec2 uv) { return textureLod(sampler2D(rill_source, rill_sampler), uv, "
        "0.0); }\n"
        "%s"
        "#line 1\n";
    /* The readers of the frame inputs (ABI 1.1), each declared only when the effect asked for it
     * (calling another is a compile error naming it). Images are read texel by texel at the UV:
     * the prepass images are at the 3D size, which may differ from the colour's. */
    static const char depth[] =
        "layout(set = 0, binding = 4) uniform sampler2D rill_depth_image;\n"
        "float rill_depth(vec2 uv) {\n"
        "    ivec2 s = textureSize(rill_depth_image, 0);\n"
        "    return texelFetch(rill_depth_image, clamp(ivec2(uv * vec2(s)), ivec2(0), s - 1), "
        "0).r;\n"
        "}\n"
        "float rill_view_depth(vec2 uv) {\n"
        "    float d = rill_depth(uv), n = rill_frame.near, f = rill_frame.far;\n"
        "    return rill_frame.orthographic != 0u ? n + d * (f - n) : n * f / (f - d * (f - n));\n"
        "}\n";
    static const char normal[] =
        "layout(set = 0, binding = 5) uniform sampler2D rill_normal_image;\n"
        "vec3 rill_normal(vec2 uv) {\n"
        "    ivec2 s = textureSize(rill_normal_image, 0);\n"
        "    return texelFetch(rill_normal_image, clamp(ivec2(uv * vec2(s)), ivec2(0), s - 1), "
        "0).xyz;\n"
        "}\n";
    static const char motion[] =
        "layout(set = 0, binding = 6) uniform sampler2D rill_motion_image;\n"
        "vec2 rill_motion(vec2 uv) {\n"
        "    ivec2 s = textureSize(rill_motion_image, 0);\n"
        "    return texelFetch(rill_motion_image, clamp(ivec2(uv * vec2(s)), ivec2(0), s - 1), "
        "0).xy;\n"
        "}\n";
    static const char post[] =
        "\nvoid main() {\n"
        "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
        "    if (any(greaterThanEqual(p, ivec2(rill_frame.size)))) { return; }\n"
        "    vec2 uv = (vec2(p) + 0.5) * rill_frame.inv_size;\n"
        "    imageStore(rill_output, p, rill_effect(uv, rill_sample(uv)));\n"
        "}\n";
    char inputs[sizeof(depth) + sizeof(normal) + sizeof(motion)];
    snprintf(inputs, sizeof(inputs), "%s%s%s", e->inputs & RILL_PLUGIN_INPUT_DEPTH ? depth : "",
             e->inputs & RILL_PLUGIN_INPUT_NORMAL ? normal : "",
             e->inputs & RILL_PLUGIN_INPUT_MOTION ? motion : "");
    size_t n = sizeof(pre) + 16 + strlen(inputs) + strlen(body) + sizeof(post);
    char *s = rill_malloc_tagged(n, RILL_MEM_RENDER);
    if (!s) {
        return NULL;
    }
    int k = snprintf(s, n, pre, phase_format(e->phase), inputs);
    snprintf(s + k, n - (size_t)k, "%s%s", body, post);
    return s;
}

/* Reads the effect's current GLSL (its file when it has one); NULL with err set when unreadable. */
static char *read_body(const plug_effect *e, rill_error *err) {
    if (!e->shader_path[0]) {
        size_t n = strlen(e->source) + 1;
        char *s = rill_malloc_tagged(n, RILL_MEM_RENDER);
        if (s) {
            memcpy(s, e->source, n);
        }
        return s;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    const char *root = e->shader_root[0] ? e->shader_root : NULL;
    if (rill_file_read_all_in(root, e->shader_path, PLUG_MAX_SHADER_BYTES, &data, &size, err) !=
        RILL_OK) {
        return NULL;
    }
    char *s = rill_malloc_tagged(size + 1, RILL_MEM_RENDER);
    if (s) {
        memcpy(s, data, size);
        s[size] = 0;
    }
    rill_free(data);
    return s;
}

/* Compiles e's shader into a pipeline; on failure *out is untouched and err names the library
 * (lib) and the effect and holds shaderc's messages (file:line: error: ...). */
static rill_result compile_effect(rill_plugins *p, const plug_effect *e, const char *lib,
                                  rill__pipe **out, rill_error *err) {
    char *body = read_body(e, err);
    if (!body) {
        return err ? err->code : RILL_ERR_IO;
    }
    char *src = build_source(e, body);
    rill_free(body);
    if (!src) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
    }
    const char *fname = e->shader_path[0] ? e->shader_path : e->id;
    shaderc_compile_options_t opt = shaderc_compile_options_initialize();
    shaderc_compile_options_set_target_env(opt, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_3);
    shaderc_compile_options_set_optimization_level(opt, shaderc_optimization_level_performance);
    shaderc_compilation_result_t res = shaderc_compile_into_spv(
        p->sc, src, strlen(src), shaderc_compute_shader, fname, "main", opt);
    shaderc_compile_options_release(opt);
    rill_free(src);
    rill_result rc = RILL_OK;
    if (shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
        rc = rill_error_set(err, RILL_ERR_PARSE, "plugins: %s: effect '%s': shader: %s", lib, e->id,
                            shaderc_result_get_error_message(res));
    } else {
        rill__pipe_desc d;
        memset(&d, 0, sizeof(d));
        d.label = e->id;
        d.cs = (const uint32_t *)shaderc_result_get_bytes(res);
        d.cs_size = shaderc_result_get_length(res);
        d.set_count = 1;
        d.sets[0].bindings[0] = RILL__BIND_SAMPLED_IMAGE;
        d.sets[0].bindings[1] = RILL__BIND_SAMPLER;
        d.sets[0].bindings[2] = RILL__BIND_UNIFORM;
        d.sets[0].bindings[3] = RILL__BIND_STORAGE_IMAGE;
        for (uint32_t i = 0; e->inputs && i < 3; i++) {
            d.sets[0].bindings[4 + i] = RILL__BIND_TEXTURE; /* all three: no holes in a set */
        }
        d.push_size = PLUG_PUSH_SIZE;
        rill__pipe *pipe = rill__pipe_create(p->r->gpu, &d, err);
        if (!pipe) {
            rc = err ? err->code : RILL_ERR_VULKAN;
        } else {
            *out = pipe;
        }
    }
    shaderc_result_release(res);
    return rc;
}

/* >>settings ----------------------------------------------------------------------------------- */

static rill_field_type field_type(uint32_t t) {
    static const rill_field_type map[RILL_PLUGIN_FIELD_COUNT] = {
        RILL_FIELD_F32, RILL_FIELD_VEC2, RILL_FIELD_VEC3,  RILL_FIELD_VEC4,
        RILL_FIELD_I32, RILL_FIELD_U32,  RILL_FIELD_COLOR,
    };
    return t < RILL_PLUGIN_FIELD_COUNT ? map[t] : RILL_FIELD_NONE;
}

static uint32_t field_bytes(uint32_t t) {
    static const uint32_t bytes[RILL_PLUGIN_FIELD_COUNT] = {4, 8, 12, 16, 4, 4, 16};
    return t < RILL_PLUGIN_FIELD_COUNT ? bytes[t] : 0;
}

/* Same layout: same size and the same fields (name, type, offset) in the same order. */
static bool same_layout(const plug_effect *a, const plug_effect *b) {
    if (a->settings_size != b->settings_size || a->field_count != b->field_count) {
        return false;
    }
    for (uint32_t i = 0; i < a->field_count; i++) {
        if (strcmp(a->field_names[i], b->field_names[i]) != 0 ||
            a->fields[i].type != b->fields[i].type || a->fields[i].offset != b->fields[i].offset) {
            return false;
        }
    }
    return true;
}

static rill_result register_component(rill_plugins *p, plug_effect *e, rill_error *err) {
    if (!p->world) {
        return RILL_OK;
    }
    rill_field f[PLUG_MAX_FIELDS];
    memset(f, 0, sizeof(f));
    for (uint32_t i = 0; i < e->field_count; i++) {
        const rill_plugin_field *pf = &e->fields[i];
        f[i].name = e->field_names[i];
        f[i].type = field_type(pf->type);
        f[i].offset = pf->offset;
        f[i].count = 1;
        if (pf->has_range) {
            f[i].flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX;
            f[i].min = pf->min;
            f[i].max = pf->max;
        }
    }
    rill_type_desc td;
    memset(&td, 0, sizeof(td));
    td.name = e->id;
    td.size = e->settings_size ? (e->settings_size + 15u) & ~15u : 16u;
    td.align = 16;
    td.fields = f;
    td.field_count = e->field_count;
    td.defaults = e->settings;
    e->comp = rill_world_register_component(p->world, &td);
    if (!e->comp.id) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: effect '%s': its settings component could not be "
                              "registered (a component of that name with another layout?)",
                              e->id);
    }
    /* Routed to cameras like the engine's settings (camera first, then other sources). */
    return rill_render_components_add_settings(p->comps, e->comp, err);
}

/* >>the host table ------------------------------------------------------------------------------
 */

static bool valid_name(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= 48) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_')) {
            return false;
        }
    }
    return true;
}

/* True when a relative path has a '..' component (it could climb out of its folder). */
static bool escapes_folder(const char *rel) {
    for (const char *c = rel; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            return true;
        }
        c += n;
        c += *c == '/';
    }
    return false;
}

/* Checks one announced effect and copies it into *e; a message in err on refusal. */
static rill_result take_effect(rill_plugins *p, const rill_plugin_effect_desc *d, plug_effect *e,
                               rill_error *err) {
    const char *lib = p->staging_lib;
    if (!d || d->struct_size < offsetof(rill_plugin_effect_desc, order) + sizeof(int32_t)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: %s: add_post_process: desc too small", lib);
    }
    if (!valid_name(d->id)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: %s: effect id must be 1-47 letters, digits or _", lib);
    }
    if (d->settings_size > PLUG_MAX_SETTINGS || d->settings_field_count > PLUG_MAX_FIELDS) {
        return rill_error_set(err, RILL_ERR_LIMIT,
                              "plugins: %s: effect '%s': %u bytes of settings in %u fields: at "
                              "most %u bytes and %u fields",
                              lib, d->id, d->settings_size, d->settings_field_count,
                              PLUG_MAX_SETTINGS, PLUG_MAX_FIELDS);
    }
    if (d->phase >= RILL_PLUGIN_PHASE_COUNT || (d->settings_field_count && !d->settings_fields) ||
        (!d->shader_source && !d->shader_path)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: %s: effect '%s': bad phase, no settings_fields for its "
                              "fields, or no shader",
                              lib, d->id);
    }
    /* ABI 1.1's inputs: a plugin built for 1.0 has a desc that ends before them (none). */
    uint64_t inputs = d->struct_size >= offsetof(rill_plugin_effect_desc, inputs) + sizeof(uint64_t)
                          ? d->inputs
                          : 0;
    if (inputs & ~(uint64_t)PLUG_HOST_INPUTS) {
        return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                              "plugins: %s: effect '%s': asks for frame inputs this host cannot "
                              "give (mask 0x%llx; it gives 0x%x: depth, normal, motion)",
                              lib, d->id, (unsigned long long)inputs, PLUG_HOST_INPUTS);
    }
    memset(e, 0, sizeof(*e));
    snprintf(e->id, sizeof(e->id), "%s", d->id);
    e->phase = d->phase;
    e->order = d->order;
    e->inputs = (uint32_t)inputs;
    e->settings_size = d->settings_size;
    e->field_count = d->settings_field_count;
    for (uint32_t i = 0; i < e->field_count; i++) {
        const rill_plugin_field *f = &d->settings_fields[i];
        uint32_t fb = field_bytes(f->type);
        if (!valid_name(f->name) || !fb || f->offset + fb > d->settings_size) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "plugins: %s: effect '%s': field %u: bad name, type or offset "
                                  "past settings_size %u",
                                  lib, d->id, i, d->settings_size);
        }
        e->fields[i] = *f;
        snprintf(e->field_names[i], sizeof(e->field_names[i]), "%s", f->name);
        e->fields[i].name = NULL;
        e->fields[i].doc = NULL;
        if (f->type == RILL_PLUGIN_FIELD_I32 || f->type == RILL_PLUGIN_FIELD_U32) {
            int32_t iv = (int32_t)f->default_value[0]; /* integer defaults travel as floats */
            memcpy(e->settings + f->offset, &iv, 4);
        } else {
            memcpy(e->settings + f->offset, f->default_value, fb);
        }
    }
    if (d->shader_path) {
        if (d->shader_path[0] == '/') {
            snprintf(e->shader_path, sizeof(e->shader_path), "%s", d->shader_path);
        } else {
            /* A relative path names a file in the plugin's folder: the read is confined to that
             * folder (no '..', no link out), so '../../etc/passwd' is refused here, by name. */
            if (escapes_folder(d->shader_path)) {
                return rill_error_set(err, RILL_ERR_LIMIT,
                                      "plugins: %s: effect '%s': shader_path '%.40s' leaves the "
                                      "plugin's folder",
                                      lib, d->id, d->shader_path);
            }
            const char *slash = strrchr(lib, '/');
            int dl = slash ? (int)(slash - lib) : 1;
            snprintf(e->shader_root, sizeof(e->shader_root), "%.*s", dl, slash ? lib : ".");
            int n = snprintf(e->shader_path, sizeof(e->shader_path), "%s/%s", e->shader_root,
                             d->shader_path);
            if (n < 0 || (size_t)n >= sizeof(e->shader_path)) {
                return rill_error_set(err, RILL_ERR_LIMIT,
                                      "plugins: %s: effect '%s': shader_path too long", lib, d->id);
            }
        }
        e->shader_mtime = file_mtime(e->shader_path);
    } else {
        size_t n = strlen(d->shader_source) + 1;
        if (n > PLUG_MAX_SHADER_BYTES) {
            return rill_error_set(err, RILL_ERR_LIMIT,
                                  "plugins: %s: effect '%s': shader source of %zu bytes exceeds "
                                  "%u",
                                  lib, d->id, n - 1, PLUG_MAX_SHADER_BYTES);
        }
        e->source = rill_malloc_tagged(n, RILL_MEM_RENDER);
        if (!e->source) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
        }
        memcpy(e->source, d->shader_source, n);
    }
    return RILL_OK;
}

static int host_add_post_process(void *host, const rill_plugin_effect_desc *d) {
    rill_plugins *p = host;
    rill_error err = {0};
    plug_effect e;
    if (p->staged.len >= PLUG_MAX_EFFECTS) {
        if (!p->staging_failed) {
            rill_error_set(&err, RILL_ERR_LIMIT, "plugins: %s: more than %u effects in one plugin",
                           p->staging_lib, PLUG_MAX_EFFECTS);
            note_error(p, err.msg);
        }
        p->staging_failed = true;
        return 1;
    }
    memset(&e, 0, sizeof(e));
    if (take_effect(p, d, &e, &err) != RILL_OK) {
        rill_free(e.source);
        note_error(p, err.msg);
        p->staging_failed = true;
        return 1;
    }
    if (!rill_array_push(&p->staged, e)) {
        rill_free(e.source);
        p->staging_failed = true;
        return 1;
    }
    return 0;
}

static void host_log(void *host, int level, const char *message) {
    (void)host;
    rill_logf(level >= 2   ? RILL_LOG_ERROR
              : level == 1 ? RILL_LOG_WARN
                           : RILL_LOG_INFO,
              "plugin", "%s", message ? message : "");
}

/* >>loading ------------------------------------------------------------------------------------ */

/* The dynamic loader maps an ELF's segments from its program headers without checking them
 * against the file's size, so a truncated library (a build cut short, a partial copy) faults with
 * SIGBUS inside dlopen. A library is code and is trusted once it loads; this only catches files
 * that are visibly not a whole 64-bit ELF of this machine. */
static bool elf_whole(const uint8_t *d, size_t size, char *why, size_t cap) {
    Elf64_Ehdr eh;
    if (size < sizeof(eh) || memcmp(d, ELFMAG, SELFMAG) != 0) {
        snprintf(why, cap, "not an ELF file (%zu bytes)", size);
        return false;
    }
    memcpy(&eh, d, sizeof(eh));
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
        snprintf(why, cap, "not a 64-bit ELF library");
        return false;
    }
    uint64_t ph_end = eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr);
    if (eh.e_phoff > size || ph_end > size) {
        snprintf(why, cap, "truncated: program headers end at byte %llu, the file has %zu",
                 (unsigned long long)ph_end, size);
        return false;
    }
    for (uint32_t i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, d + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
        if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)) {
            snprintf(why, cap, "truncated: segment %u ends at byte %llu, the file has %zu", i,
                     (unsigned long long)(ph.p_offset + ph.p_filesz), size);
            return false;
        }
    }
    return true;
}

/* dlopens a private copy of path: the loader caches by name and the build replaces the file. */
static void *open_copy(rill_plugins *p, const char *path, rill_error *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    if (rill_file_read_all(path, &data, &size, err) != RILL_OK) {
        return NULL;
    }
    char why[160];
    if (!elf_whole(data, size, why, sizeof(why))) {
        rill_free(data);
        rill_error_set(err, RILL_ERR_CORRUPT, "plugins: %s: %s", path, why);
        return NULL;
    }
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s/rill-plugin-%ld-%u.so",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(), p->copies++);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f) {
        ok = fclose(f) == 0 && ok;
    }
    rill_free(data);
    if (!ok) {
        unlink(tmp);
        rill_error_set(err, RILL_ERR_IO, "plugins: %s: cannot write a copy to %s", path, tmp);
        return NULL;
    }
    void *dl = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
    unlink(tmp); /* the mapping stays; nothing is left behind */
    if (!dl) {
        rill_error_set(err, RILL_ERR_IO, "plugins: %s: %s", path, dlerror());
    }
    return dl;
}

static void free_staged(rill_plugins *p) {
    for (uint32_t i = 0; i < p->staged.len; i++) {
        rill_free(p->staged.data[i].source);
        if (p->staged.data[i].pipe) {
            rill__pipe_destroy(p->r->gpu, p->staged.data[i].pipe);
        }
    }
    rill_array_clear(&p->staged);
}

/* Plugins are trusted code, but a broken one must not take the program down with it: before a
 * library is opened in this process, a child process (fork) opens a copy and runs its entry point.
 * A child that dies on a signal or exits non-zero (a crash, or a sanitizer's report of one) or is
 * still running after PLUG_PROBE_MS (a loop) gets the library refused with that reason, and this
 * process never runs its code. Refusals of other
 * kinds (no entry point, a bad ABI, bad effects) are left to the real load, which reports them. */
static int probe_add(void *host, const rill_plugin_effect_desc *d) {
    (void)d;
    uint32_t *count = host;
    return ++*count > PLUG_MAX_EFFECTS; /* the limit stops a plugin that keeps adding */
}
static void probe_log(void *host, int level, const char *message) {
    (void)host, (void)level, (void)message;
}
/* The child logs nothing: the log lock may have been held by another thread at the fork. */
_Noreturn static void probe_child(rill_plugins *p, const char *path) {
    rill_error e = {0};
    void *dl = open_copy(p, path, &e);
    rill_plugin_entry_fn entry = NULL;
    if (dl) {
        *(void **)&entry = dlsym(dl, RILL_PLUGIN_ENTRY_NAME);
    }
    if (entry) {
        uint32_t count = 0;
        rill_host_api host = {RILL_PLUGIN_ABI_MAJOR,
                              RILL_PLUGIN_ABI_MINOR,
                              sizeof(rill_host_api),
                              &count,
                              probe_add,
                              probe_log,
                              PLUG_HOST_INPUTS};
        (void)entry(&host);
    }
    _exit(0); /* no atexit handlers, no buffered output of the parent's written twice */
}

static rill_result probe_lib(rill_plugins *p, const char *path, rill_error *err) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        return rill_error_set(err, RILL_ERR_IO, "plugins: %s: cannot start the probe process",
                              path);
    }
    if (pid == 0) {
        probe_child(p, path);
    }
    int st = 0;
    for (int waited_us = 0;; waited_us += 2000) {
        pid_t got = waitpid(pid, &st, WNOHANG);
        if (got == pid) {
            break;
        }
        if (got < 0 || waited_us >= PLUG_PROBE_MS * 1000) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return rill_error_set(err, RILL_ERR_LIMIT,
                                  "plugins: %s: refused: loading it and running its entry point "
                                  "did not finish within %d ms (in a probe process)",
                                  path, PLUG_PROBE_MS);
        }
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    if (WIFSIGNALED(st)) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "plugins: %s: refused: loading it or running its entry point "
                              "crashed (signal %d, %s, in a probe process)",
                              path, WTERMSIG(st), strsignal(WTERMSIG(st)));
    }
    /* The child exits 0 whatever it found; any other status is the plugin exiting, or a crash a
     * sanitizer's handler turned into an exit (its report is on stderr). */
    if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "plugins: %s: refused: loading it or running its entry point "
                              "crashed (exit status %d, in a probe process)",
                              path, WEXITSTATUS(st));
    }
    return RILL_OK;
}

/* Opens path and runs its entry into p->staged; checks the ABI. */
static rill_result open_lib(rill_plugins *p, const char *path, plug_lib *lib, rill_error *err) {
    memset(lib, 0, sizeof(*lib));
    snprintf(lib->path, sizeof(lib->path), "%s", path);
    lib->mtime = file_mtime(path);
    if (probe_lib(p, path, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_IO;
    }
    lib->dl = open_copy(p, path, err);
    if (!lib->dl) {
        return err ? err->code : RILL_ERR_IO;
    }
    rill_plugin_entry_fn entry = NULL;
    *(void **)&entry = dlsym(lib->dl, RILL_PLUGIN_ENTRY_NAME);
    if (!entry) {
        dlclose(lib->dl);
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "plugins: %s: no %s entry point",
                              path, RILL_PLUGIN_ENTRY_NAME);
    }
    rill_host_api host = {RILL_PLUGIN_ABI_MAJOR, RILL_PLUGIN_ABI_MINOR,
                          sizeof(rill_host_api), p,
                          host_add_post_process, host_log,
                          PLUG_HOST_INPUTS};
    p->staging_lib = path;
    p->staging_failed = false;
    free_staged(p);
    const rill_plugin_api *api = entry(&host);
    rill_result rc = RILL_OK;
    if (!api || api->struct_size < offsetof(rill_plugin_api, name)) {
        rc = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                            "plugins: %s: the entry point returned no plugin table", path);
    } else if (api->abi_major != RILL_PLUGIN_ABI_MAJOR || api->abi_minor > RILL_PLUGIN_ABI_MINOR) {
        rc = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                            "plugins: %s: ABI %u.%u refused: this host has ABI %u.%u (major must "
                            "match, minor at most the host's)",
                            path, api->abi_major, api->abi_minor, RILL_PLUGIN_ABI_MAJOR,
                            RILL_PLUGIN_ABI_MINOR);
    } else if (p->staging_failed) {
        rc = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "plugins: %s: refused: %s", path,
                            p->stats.last_error);
    }
    if (rc != RILL_OK) {
        free_staged(p);
        dlclose(lib->dl);
        return rc;
    }
    lib->api = api;
    lib->abi_major = api->abi_major;
    lib->abi_minor = api->abi_minor;
    bool has_name = api->struct_size >= offsetof(rill_plugin_api, version) + sizeof(char *);
    snprintf(lib->name, sizeof(lib->name), "%s", has_name && api->name ? api->name : "?");
    snprintf(lib->version, sizeof(lib->version), "%s",
             has_name && api->version ? api->version : "?");
    return RILL_OK;
}

static int find_effect(const rill_plugins *p, const char *id) {
    for (uint32_t i = 0; i < p->effects.len; i++) {
        if (!p->effects.data[i].dead && strcmp(p->effects.data[i].id, id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Compiles every staged effect and checks it against the live ones (owner = the library being
 * replaced, or UINT32_MAX for a new load). */
static rill_result check_staged(rill_plugins *p, uint32_t owner, rill_error *err) {
    for (uint32_t i = 0; i < p->staged.len; i++) {
        plug_effect *e = &p->staged.data[i];
        int old = find_effect(p, e->id);
        for (uint32_t k = 0; old < 0 && k < rill_render_effect_count(p->r); k++) {
            rill_render_effect_info fi;
            if (rill_render_effect_get(p->r, k, &fi) && strcmp(fi.id, e->id) == 0) {
                return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                      "plugins: %s: effect id '%s' is taken by another effect of "
                                      "the renderer",
                                      p->staging_lib, e->id);
            }
        }
        if (old >= 0 && p->effects.data[old].lib != owner) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "plugins: %s: effect '%s' is already loaded from %s",
                                  p->staging_lib, e->id,
                                  p->libs.data[p->effects.data[old].lib].path);
        }
        if (old >= 0 && !same_layout(&p->effects.data[old], e)) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "plugins: %s: effect '%s': settings layout changed; refused "
                                  "(the old plugin is kept: restart to change a layout)",
                                  p->staging_lib, e->id);
        }
        if (p->lazy && owner == UINT32_MAX) {
            /* Compiled when a camera first uses it; its shader must still be readable now. */
            char *body = read_body(e, err);
            if (!body) {
                return err ? err->code : RILL_ERR_IO;
            }
            rill_free(body);
            continue;
        }
        if (compile_effect(p, e, p->staging_lib, &e->pipe, err) != RILL_OK) {
            p->stats.shader_errors++;
            return err ? err->code : RILL_ERR_PARSE;
        }
    }
    return RILL_OK;
}

static void close_lib(plug_lib *lib) {
    if (lib->api && lib->api->struct_size >= sizeof(rill_plugin_api) && lib->api->shutdown) {
        lib->api->shutdown();
    }
    if (lib->dl) {
        dlclose(lib->dl);
    }
    lib->dl = NULL;
    lib->api = NULL;
}

/* Moves the staged effects in as the effects of library `owner`, replacing its old ones. */
static rill_result commit_staged(rill_plugins *p, uint32_t owner, rill_error *err) {
    for (uint32_t i = 0; i < p->effects.len; i++) {
        plug_effect *e = &p->effects.data[i];
        if (e->lib == owner && !e->dead) {
            e->dead = true; /* revived below when the new library still has it */
        }
    }
    for (uint32_t i = 0; i < p->staged.len; i++) {
        plug_effect *s = &p->staged.data[i];
        snprintf(s->plugin, sizeof(s->plugin), "%s", p->libs.data[owner].name);
        s->lib = owner;
        int old = -1;
        for (uint32_t k = 0; k < p->effects.len; k++) {
            if (p->effects.data[k].lib == owner && strcmp(p->effects.data[k].id, s->id) == 0) {
                old = (int)k;
            }
        }
        plug_effect *live;
        if (old >= 0) {
            /* Swapped in place: out of the registry and back in (phase or order may change). */
            plug_effect *o = &p->effects.data[old];
            effect_unregister(p, o);
            rill__pipe_destroy(p->r->gpu, o->pipe);
            rill_free(o->source);
            s->comp = o->comp;
            s->generation = o->generation + 1;
            memcpy(s->settings, o->settings, sizeof(s->settings));
            *o = *s;
            live = o;
        } else {
            RILL_TRY(register_component(p, s, err));
            if (!rill_array_push(&p->effects, *s)) {
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
            }
            live = &p->effects.data[p->effects.len - 1];
        }
        s->pipe = NULL;
        s->source = NULL;
        RILL_TRY(effect_register(p, live, err));
    }
    rill_array_clear(&p->staged);
    /* Effects the new library no longer has leave the registry. */
    for (uint32_t i = 0; i < p->effects.len; i++) {
        plug_effect *e = &p->effects.data[i];
        if (e->lib == owner && e->dead && e->fx) {
            effect_unregister(p, e);
        }
    }
    return RILL_OK;
}

rill_result rill_plugins_load(rill_plugins *p, const char *path, rill_error *err) {
    if (!p || !path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "plugins: load needs a path");
    }
    rill_error local = {0};
    if (!err) {
        err = &local;
    }
    plug_lib lib;
    rill_result rc = open_lib(p, path, &lib, err);
    if (rc == RILL_OK) {
        rc = check_staged(p, UINT32_MAX, err);
        if (rc == RILL_OK && !rill_array_push(&p->libs, lib)) {
            rc = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
        }
        if (rc != RILL_OK) {
            free_staged(p);
            close_lib(&lib);
        } else {
            rc = commit_staged(p, p->libs.len - 1, err);
        }
    }
    if (rc != RILL_OK) {
        p->stats.refused++;
        note_error(p, err->msg);
        return rc;
    }
    p->stats.loads++;
    return RILL_OK;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

rill_result rill_plugins_load_dir(rill_plugins *p, const char *dir, uint32_t *out_failed,
                                  rill_error *err) {
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        return rill_error_set(err, RILL_ERR_IO, "plugins: cannot read the folder '%s'",
                              dir ? dir : "(null)");
    }
    char *names[256];
    uint32_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < 256) {
        size_t len = strlen(ent->d_name);
        if (len > 3 && strcmp(ent->d_name + len - 3, ".so") == 0) {
            names[n] = rill_malloc_tagged(strlen(dir) + len + 2, RILL_MEM_RENDER);
            if (names[n]) {
                sprintf(names[n], "%s/%s", dir, ent->d_name);
                n++;
            }
        }
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_str);
    uint32_t failed = 0;
    for (uint32_t i = 0; i < n; i++) {
        rill_error e = {0};
        if (rill_plugins_load(p, names[i], &e) != RILL_OK) {
            failed++;
        }
        rill_free(names[i]);
    }
    if (out_failed) {
        *out_failed = failed;
    }
    return RILL_OK;
}

/* >>hot reload --------------------------------------------------------------------------------- */

static bool reload_lib(rill_plugins *p, uint32_t li) {
    rill_error err = {0};
    plug_lib *old = &p->libs.data[li];
    plug_lib lib;
    int64_t mt = file_mtime(old->path);
    old->mtime = mt; /* one attempt per change */
    rill_result rc = open_lib(p, old->path, &lib, &err);
    if (rc == RILL_OK) {
        rc = check_staged(p, li, &err);
        if (rc != RILL_OK) {
            free_staged(p);
            close_lib(&lib);
        }
    }
    if (rc != RILL_OK) {
        p->stats.refused++;
        note_error(p, err.msg);
        return false;
    }
    close_lib(&p->libs.data[li]);
    p->libs.data[li] = lib;
    commit_staged(p, li, &err);
    p->stats.reloads++;
    rill_logf(RILL_LOG_INFO, "plugins", "%s reloaded", lib.path);
    return true;
}

static bool reload_shader(rill_plugins *p, plug_effect *e) {
    e->shader_mtime = file_mtime(e->shader_path);
    if (!e->pipe && p->lazy) {
        e->compile_failed = false; /* not compiled yet: its next use compiles the new file */
        return false;
    }
    rill_error err = {0};
    rill__pipe *pipe = NULL;
    if (compile_effect(p, e, p->libs.data[e->lib].path, &pipe, &err) != RILL_OK) {
        p->stats.shader_errors++;
        note_error(p, err.msg); /* the last good pipeline stays */
        return false;
    }
    rill__pipe_destroy(p->r->gpu, e->pipe);
    e->pipe = pipe;
    e->generation++;
    p->stats.reloads++;
    return true;
}

uint32_t rill_plugins_poll(rill_plugins *p) {
    if (!p) {
        return 0;
    }
    uint32_t swaps = 0;
    for (uint32_t i = 0; i < p->libs.len; i++) {
        int64_t mt = file_mtime(p->libs.data[i].path);
        if (mt >= 0 && mt != p->libs.data[i].mtime) {
            swaps += reload_lib(p, i);
        }
    }
    for (uint32_t i = 0; i < p->effects.len; i++) {
        plug_effect *e = &p->effects.data[i];
        if (e->dead || !e->shader_path[0]) {
            continue;
        }
        int64_t mt = file_mtime(e->shader_path);
        if (mt >= 0 && mt != e->shader_mtime) {
            swaps += reload_shader(p, e);
        }
    }
    return swaps;
}

/* >>the registry ------------------------------------------------------------------------------ */

/* One effect's entry in the registry (its user pointer). */
struct plug_pass {
    rill_plugins *p;
    uint32_t effect; /* index in p->effects */
};

/* One camera's run of an effect this frame (rill_render_effect_state memory, its pass's user
 * pointer): the camera's scratch copy, the colour it rewrites, the frame inputs it reads and the
 * camera's depth range and settings (exec reads them while the frame's graph runs). */
typedef struct plug_run {
    plug_pass *pp;
    rill_rg_image src, target;
    rill_rg_image inputs[3]; /* depth, normal, motion; {0} when not asked for */
    float near_plane, far_plane;
    uint32_t orthographic;
    uint8_t settings[PLUG_MAX_SETTINGS];
} plug_run;

static void exec_effect(rill_rg_ctx *ctx, void *user) {
    const plug_run *run = user;
    plug_pass *pp = run->pp;
    plug_effect *e = &pp->p->effects.data[pp->effect];
    rill__img *src = rill__ctx_img(ctx, run->src);
    rill__img *dst = rill__ctx_img(ctx, run->target);
    if (!src || !dst || !e->pipe) {
        return;
    }
    rill__cmd_copy_image_general(ctx->cmd, dst, src);
    uint32_t ubo_size = e->settings_size ? (e->settings_size + 15u) & ~15u : 16u;
    rill__buf *buf = NULL;
    uint64_t off = 0;
    void *ubo = rill__frame_alloc(ctx->cmd, ubo_size, 256, &buf, &off);
    if (!ubo) {
        return;
    }
    memset(ubo, 0, ubo_size);
    memcpy(ubo, run->settings, e->settings_size);
    const rill__img_desc *d = rill__img_get_desc(dst);
    rill__cmd_bind_pipe(ctx->cmd, e->pipe);
    rill__binding b[7];
    memset(b, 0, sizeof(b));
    b[0].img = src;
    b[0].layer = -1;
    b[1].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[2].buf = buf;
    b[2].offset = off;
    b[2].range = ubo_size;
    b[3].img = dst;
    b[3].layer = -1;
    uint32_t nb = 4;
    if (e->inputs) {
        /* All three bindings exist; one not asked for is bound to an input that was. */
        rill_rg_image any = run->inputs[0].id   ? run->inputs[0]
                            : run->inputs[1].id ? run->inputs[1]
                                                : run->inputs[2];
        for (uint32_t i = 0; i < 3; i++) {
            b[4 + i].img = rill__ctx_img(ctx, run->inputs[i].id ? run->inputs[i] : any);
            b[4 + i].layer = -1;
            b[4 + i].sampler = RILL__SAMPLER_NEAREST_CLAMP;
            if (!b[4 + i].img) {
                return;
            }
        }
        nb = 7;
    }
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, nb);
    float push[12] = {(float)d->width,
                      (float)d->height,
                      1.0f / (float)d->width,
                      1.0f / (float)d->height,
                      0,
                      0,
                      run->near_plane,
                      run->far_plane,
                      0,
                      0,
                      0,
                      0};
    uint32_t frame = (uint32_t)rill__gpu_frame_index(pp->p->r->gpu);
    push[4] = (float)frame / 60.0f;
    memcpy(&push[5], &frame, 4);
    memcpy(&push[8], &run->orthographic, 4);
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

/* Runs when compiled and, with a world, when the camera's routed settings hold the effect's
 * component (without a world: always, with the host's settings). */
static bool plug_active(const rill_render_effect_ctx *ctx) {
    const plug_pass *pp = ctx->user;
    plug_effect *e = &pp->p->effects.data[pp->effect];
    if (pp->p->world && !ctx->settings) {
        return false;
    }
    if (!e->pipe && pp->p->lazy && !e->compile_failed) {
        /* compile_on_first_use: the first frame that wants the effect compiles it; a failure is
         * said once (library, effect, file:line) and keeps it off until its shader changes. */
        rill_error err = {0};
        if (compile_effect(pp->p, e, pp->p->libs.data[e->lib].path, &e->pipe, &err) != RILL_OK) {
            e->compile_failed = true;
            pp->p->stats.shader_errors++;
            note_error(pp->p, err.msg);
        }
    }
    return e->pipe != NULL;
}

/* The frame inputs e asked for, from the graph handles of the effect's view, and the view's depth
 * range. False (and a warning, once per effect) when the frame lacks one: the effect then adds no
 * pass, and the rest of the frame renders. */
static bool take_inputs(plug_run *run, plug_effect *e, const rill_render_effect_ctx *ctx) {
    const plug_pass *pp = run->pp;
    static const char *const names[3] = {"depth", "normal", "motion"};
    const rill_rg_image have[3] = {ctx->frame->depth, ctx->frame->normal, ctx->frame->motion};
    memset(run->inputs, 0, sizeof(run->inputs));
    for (uint32_t i = 0; i < 3; i++) {
        if (!(e->inputs & (1u << i))) {
            continue;
        }
        if (!have[i].id) {
            if (!e->warned_inputs) {
                e->warned_inputs = true;
                rill_logf(RILL_LOG_WARN, "plugins",
                          "%s: effect '%s' reads %s, which this frame does not have: skipped",
                          pp->p->libs.data[e->lib].path, e->id, names[i]);
            }
            return false;
        }
        run->inputs[i] = have[i];
    }
    const rill__view *v = &ctx->renderer->frame.views[ctx->view_index];
    run->near_plane = v->set.znear;
    run->far_plane = v->set.zfar;
    run->orthographic = v->set.orthographic;
    return true;
}

/* One pass: copy the phase's colour into the scratch image, then the effect samples it and writes
 * the colour in place. Both are held as storage writes (GENERAL), so same-image writers run in
 * the order they are added (the registry's) and every later reader waits for them. */
static rill_result plug_add(rill_render_effect_ctx *ctx, rill_error *err) {
    plug_pass *pp = ctx->user;
    plug_effect *e = &pp->p->effects.data[pp->effect];
    rill_rg *g = ctx->graph;
    bool hdr = ctx->phase <= RILL_RENDER_PHASE_HDR_POST;
    plug_run *run = rill_render_effect_state(ctx, sizeof(plug_run), err);
    if (!run) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    /* The camera's scratch copy, shared by its effects of the phase. */
    rill_rg_image *src = &ctx->renderer->frame.views[ctx->view_index].fx.plugin_src[hdr ? 0 : 1];
    if (!src->id) {
        *src = rill_rg_create_image_like(g, hdr ? "plugin_src_hdr" : "plugin_src", ctx->color, err);
    }
    run->pp = pp;
    run->src = *src;
    if (ctx->settings) {
        uint32_t n = ctx->settings_size < e->settings_size ? ctx->settings_size : e->settings_size;
        memcpy(run->settings, ctx->settings, n);
    } else {
        memcpy(run->settings, e->settings, sizeof(e->settings));
    }
    run->target = ctx->color;
    if (!take_inputs(run, e, ctx)) {
        return RILL_OK; /* no pass this frame (said once) */
    }
    char fx[80];
    snprintf(fx, sizeof(fx), "plugin:%s", e->id);
    rill_rg_pass_desc fd = {.label = fx, .exec = exec_effect, .user = run};
    rill_rg_pass pass = rill_rg_add_pass(g, &fd, err);
    RILL_TRY(rill_rg_use_image(g, pass, *src, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, pass, ctx->color, RILL_RG_USAGE_STORAGE_WRITE, err));
    for (uint32_t i = 0; i < 3; i++) {
        if (run->inputs[i].id) {
            RILL_TRY(
                rill_rg_use_image(g, pass, run->inputs[i], RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        }
    }
    return rill_rg_add_edge(
        g, hdr ? ctx->frame->end_main_pass : ctx->frame->end_main_pass_post_processing, pass, err);
}

/* Puts e into the renderer's composition registry (phase and order from the plugin; settings =
 * the component named by its id when the host has a world). */
static rill_result effect_register(rill_plugins *p, plug_effect *e, rill_error *err) {
    rill_render_effect_desc d;
    memset(&d, 0, sizeof(d));
    d.id = e->id;
    d.phase = (rill_render_phase)e->phase;
    d.order = e->order;
    d.settings = p->world ? e->id : NULL;
    d.active = plug_active;
    d.add = plug_add;
    uint32_t i = (uint32_t)(e - p->effects.data);
    if (i >= RILL_RENDER_MAX_EFFECTS) {
        return rill_error_set(err, RILL_ERR_LIMIT, "plugins: effect '%s': more than %u effects",
                              e->id, RILL_RENDER_MAX_EFFECTS);
    }
    p->passes[i] = (plug_pass){.p = p, .effect = i};
    d.user = &p->passes[i];
    d.after_lighting = true; /* a GI plugin transforms the lit image */
    e->fx = rill_render_effect_register(p->r, &d, err);
    return e->fx ? RILL_OK : (err ? err->code : RILL_ERR_INVALID_ARGUMENT);
}

static void effect_unregister(rill_plugins *p, plug_effect *e) {
    rill_render_effect_unregister(p->r, e->fx);
    e->fx = 0;
}

/* >>lifetime and queries ----------------------------------------------------------------------- */

rill_plugins_desc rill_plugins_query_defaults(void) {
    rill_plugins_desc d;
    memset(&d, 0, sizeof(d));
    return d;
}

rill_plugins *rill_plugins_create(const rill_plugins_desc *desc, rill_error *err) {
    if (!desc || desc->start_canary || desc->end_canary || !desc->renderer ||
        desc->renderer->plugins || (desc->world && !desc->components)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "plugins: needs a zero-initialized desc, a renderer without a plugin host "
                       "and, with a world, its render components");
        return NULL;
    }
    rill_renderer *r = desc->renderer;
    rill_plugins *p = rill_calloc_tagged(1, sizeof(*p), RILL_MEM_RENDER);
    if (p) {
        p->passes = rill_calloc_tagged(RILL_RENDER_MAX_EFFECTS, sizeof(plug_pass), RILL_MEM_RENDER);
    }
    if (!p || !p->passes) {
        rill_free(p);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
        return NULL;
    }
    p->sc = shaderc_compiler_initialize();
    if (!p->sc) {
        rill_free(p->passes);
        rill_free(p);
        rill_error_set(err, RILL_ERR_UNSUPPORTED, "plugins: shaderc could not start");
        return NULL;
    }
    p->r = r;
    p->lazy = desc->compile_on_first_use;
    p->world = desc->world;
    p->comps = desc->world ? desc->components : NULL;
    r->plugins = p;
    return p;
}

void rill_plugins_destroy(rill_plugins *p) {
    if (!p) {
        return;
    }
    for (uint32_t i = 0; i < p->effects.len; i++) {
        effect_unregister(p, &p->effects.data[i]);
        rill__pipe_destroy(p->r->gpu, p->effects.data[i].pipe);
        rill_free(p->effects.data[i].source);
    }
    free_staged(p);
    for (uint32_t i = 0; i < p->libs.len; i++) {
        close_lib(&p->libs.data[i]);
    }
    rill_array_free(&p->effects);
    rill_array_free(&p->staged);
    rill_array_free(&p->libs);
    shaderc_compiler_release(p->sc);
    p->r->plugins = NULL;
    rill_free(p->passes);
    rill_free(p);
}

uint32_t rill_plugins_count(const rill_plugins *p) {
    return p ? p->libs.len : 0;
}

bool rill_plugins_get(const rill_plugins *p, uint32_t index, rill_plugin_info *out) {
    if (!p || !out || index >= p->libs.len) {
        return false;
    }
    const plug_lib *l = &p->libs.data[index];
    memset(out, 0, sizeof(*out));
    *out = (rill_plugin_info){l->path, l->name, l->version, l->abi_major, l->abi_minor, 0, {0}};
    for (uint32_t i = 0; i < p->effects.len; i++) {
        if (p->effects.data[i].lib == index && !p->effects.data[i].dead) {
            if (out->effect_count < 16) {
                out->effects[out->effect_count] = p->effects.data[i].id;
            }
            out->effect_count++;
        }
    }
    return true;
}

uint32_t rill_plugins_effect_count(const rill_plugins *p) {
    return p ? p->effects.len : 0;
}

bool rill_plugins_effect_get(const rill_plugins *p, uint32_t index, rill_plugin_effect_info *out) {
    if (!p || !out || index >= p->effects.len) {
        return false;
    }
    const plug_effect *e = &p->effects.data[index];
    bool ran = false;
    for (uint32_t i = 0; e->fx && i < rill_render_effect_count(p->r); i++) {
        rill_render_effect_info fi;
        if (rill_render_effect_get(p->r, i, &fi) && fi.handle == e->fx) {
            ran = fi.ran_last_frame;
        }
    }
    *out = (rill_plugin_effect_info){e->id,           e->plugin,        e->phase,
                                     e->order,        e->settings_size, e->generation,
                                     ran && !e->dead, e->inputs};
    return true;
}

void rill_plugins_get_stats(const rill_plugins *p, rill_plugins_stats *out) {
    if (p && out) {
        *out = p->stats;
    }
}

rill_result rill_plugins_compile(rill_plugins *p, const char *id, rill_error *err) {
    int i = p && id ? find_effect(p, id) : -1;
    if (i < 0) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "plugins: no effect '%s'",
                              id ? id : "(null)");
    }
    plug_effect *e = &p->effects.data[i];
    if (e->pipe) {
        return RILL_OK;
    }
    rill_result rc = compile_effect(p, e, p->libs.data[e->lib].path, &e->pipe, err);
    if (rc != RILL_OK) {
        e->compile_failed = true;
        p->stats.shader_errors++;
        note_error(p, err ? err->msg : "plugins: compile failed");
    }
    return rc;
}

rill_result rill_plugins_set_settings(rill_plugins *p, const char *id, const void *data,
                                      uint32_t size, rill_error *err) {
    int i = p && id ? find_effect(p, id) : -1;
    if (i < 0 || !data || size != p->effects.data[i].settings_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: no effect '%s' with %u bytes of settings",
                              id ? id : "(null)", size);
    }
    memcpy(p->effects.data[i].settings, data, size);
    return RILL_OK;
}
