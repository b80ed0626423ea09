/* plugin_shaders.c: the effect plugins' shaders and settings. An effect's GLSL (inline or its
 * file) is wrapped in the host's part of the contract (bindings, frame inputs, main) and compiled
 * with shaderc into a compute pipeline; its settings fields become a component routed to cameras.
 */
#include "plugin_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
char *rill__plug_read_body(const plug_effect *e, rill_error *err) {
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
rill_result rill__plug_compile(rill_plugins *p, const plug_effect *e, const char *lib,
                               rill__pipe **out, rill_error *err) {
    char *body = rill__plug_read_body(e, err);
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

uint32_t rill__plug_field_bytes(uint32_t t) {
    static const uint32_t bytes[RILL_PLUGIN_FIELD_COUNT] = {4, 8, 12, 16, 4, 4, 16};
    return t < RILL_PLUGIN_FIELD_COUNT ? bytes[t] : 0;
}

/* Same layout: same size and the same fields (name, type, offset) in the same order. */
bool rill__plug_same_layout(const plug_effect *a, const plug_effect *b) {
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

rill_result rill__plug_register_component(rill_plugins *p, plug_effect *e, rill_error *err) {
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
