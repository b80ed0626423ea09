/* cli_variant.c: --variant NAME of `rill render` and `rill run` (rill_cli_apply_variant): every
 * Model entity of the loaded content is set to draw its glTF material variant NAME
 * (KHR_materials_variants; the model system swaps the materials at the next frame). */
#include "cmds.h"

#include <stdio.h>
#include <string.h>

#include "rill/app.h"
#include "rill/formats/gltf.h"
#include "rill/scene.h"
#include "rill/world.h"

/* --variant: every Model entity names the variant (the model system swaps the materials at the
 * next frame). Fails, listing the first model's variants, when no spawned model has it. */
rill_result rill_cli_apply_variant(rill_content *c, const char *variant, rill_error *err) {
    rill_world *w = rill_app_world(rill_content_app(c));
    rill_scene_models *sm = rill_app_models_scene(rill_content_models(c));
    rill_component model = rill_scene_models_components(sm)->model;
    const rill_entity *ents;
    void *data;
    uint32_t n = rill_world_component_dense(w, model, &ents, &data);
    rill_entity *list = n ? rill_malloc(sizeof(rill_entity) * n) : NULL;
    if (n && !list) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "--variant: out of memory");
    }
    if (n) {
        memcpy(list, ents, sizeof(rill_entity) * n);
    }
    const char *name = rill_intern(variant);
    const rill_gltf_model *first = NULL;
    bool found = false;
    for (uint32_t i = 0; i < n; i++) {
        const rill_gltf_model *gm = rill_scene_models_model(sm, list[i]);
        first = first ? first : gm;
        found |= rill_gltf_model_find_variant(gm, name) >= 0;
        rill_model_ref ref = *(const rill_model_ref *)rill_world_get(w, list[i], model);
        ref.variant = name;
        rill_world_add(w, list[i], model, &ref);
    }
    rill_free(list);
    if (found) {
        return RILL_OK;
    }
    char have[512] = "";
    size_t len = 0;
    for (uint32_t i = 0; first && i < first->variant_count && len + 4 < sizeof(have); i++) {
        int k = snprintf(have + len, sizeof(have) - len, "%s%s", i ? ", " : "",
                         first->variant_names[i]);
        len += k > 0 ? (size_t)k : 0;
    }
    return rill_error_set(err, RILL_ERR_NOT_FOUND,
                          "--variant '%s': no model has this material variant (%s%s)", variant,
                          have[0] ? "the first model has: " : "the models have no variants", have);
}
