/* components.c: the components the scene module registers (SceneInstance, SceneUnknown) and the
 * text-only entry point rill_scene_check_text that `rill scene check` uses.
 */
#include "scene_internal.h"

#include <stddef.h>
#include <string.h>

rill_scene_components rill_scene_register(rill_world *world) {
    rill_scene_components out = {0};
    if (!world) {
        return out;
    }
    static const float load_radius = 150.0f, unload_radius = 200.0f;
    const rill_field inst_fields[] = {
        RILL_FIELD_WITH(rill_scene_instance, scene, ASSET_PATH,
                        .doc = "the .rsn file this entity stands for"),
        RILL_FIELD_WITH(
            rill_scene_instance, streamed, BOOL,
            .doc = "contents load and unload with camera distance (else: loaded with the parent)"),
        RILL_FIELD_WITH(rill_scene_instance, load_radius, F32, RILL_FIELD_MIN(0.0),
                        .default_value = &load_radius,
                        .doc = "streamed: contents load within this distance of the camera"),
        RILL_FIELD_WITH(rill_scene_instance, unload_radius, F32, RILL_FIELD_MIN(0.0),
                        .default_value = &unload_radius,
                        .doc = "streamed: contents unload beyond this distance"),
        RILL_FIELD_WITH(
            rill_scene_instance, bounds_min, VEC3,
            .doc = "streamed: low corner of the contents' box, root-local (empty box = unknown)"),
        RILL_FIELD_WITH(rill_scene_instance, bounds_max, VEC3,
                        .doc = "streamed: high corner of the contents' box, root-local"),
    };
    rill_type_desc inst = {
        .name = "SceneInstance",
        RILL_TYPE_LAYOUT(rill_scene_instance),
        RILL_FIELDS(inst_fields),
        .doc = "an entity standing for the contents of another scene file",
    };
    const rill_field unk_fields[] = {
        RILL_FIELD(rill_scene_unknown, blocks, STRING),
    };
    rill_type_desc unk = {
        .name = "SceneUnknown",
        RILL_TYPE_LAYOUT(rill_scene_unknown),
        .flags = RILL_TYPE_NO_SERIALIZE,
        RILL_FIELDS(unk_fields),
        .doc = "verbatim text of components unknown when the scene was read",
    };
    out.instance = rill_world_register_component(world, &inst);
    out.unknown = rill_world_register_component(world, &unk);
    return out;
}

rill_result rill_scene_check_text(rill_world *world, const char *path, const char *text, size_t len,
                                  const rill_scene_read_desc *desc, rill_scene_check_info *out_info,
                                  rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_scene_check_text", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (out_info) {
        memset(out_info, 0, sizeof *out_info);
    }
    if (!world || (!text && len)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scene_check_text: no %s",
                              world ? "text" : "world");
    }
    rill_scene_register(world);
    rsn_doc doc;
    rill_result r = rill__rsn_parse(&doc, path ? path : "<memory>", text ? text : "", len, err);
    if (r != RILL_OK) {
        return r;
    }
    scene_types *types = rill__scene_types_create(world);
    if (!types) {
        rill__rsn_doc_free(&doc);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
    }
    bind_opts opts = {
        .lossy = desc && desc->lossy,
        .strict = desc && desc->strict,
        .vfs = desc ? desc->assets : NULL,
        .check_assets = desc && desc->assets,
        .max_depth = (uint32_t)RILL_MIN(rill_limit_get(RILL_LIMIT_SCENE_DEPTH), 63u),
        .max_entities = desc && desc->max_entities
                            ? desc->max_entities
                            : (uint32_t)RILL_MIN(rill_limit_get(RILL_LIMIT_SCENE_ENTITIES),
                                                 (uint64_t)UINT32_MAX),
    };
    bound_scene b = {0};
    r = rill__scene_bind(types, &opts, &doc, NULL, &b, err);
    if (r == RILL_OK && out_info) {
        out_info->entities = b.file_entities;
        out_info->components = b.file_components;
        out_info->unknown_components = b.unknown_components;
        out_info->warnings = b.warnings;
    }
    rill__bound_free(&b);
    rill__scene_types_release(types);
    rill__rsn_doc_free(&doc);
    return r;
}
