/* fuzz_scene.c: libFuzzer target for the .rsn reader and the canonical writer.
 *
 * Every input goes through the parser and the registry binder (strict and lossy). An input that
 * binds is spawned into a world, written back, and the written text must read again and write
 * to the same bytes (the writer's output is always a valid, canonical file). */
#include "rill/scene.h"

#include "../../src/scene/scene_internal.h"
#include "every_field.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rill_world *g_world;
static scene_types *g_types;

static void setup(void) {
    rill_log_set_level(RILL_LOG_NONE);
    g_world = rill_world_create(NULL, NULL);
    const rill_type_desc all = every_field_type("A");
    rill_world_register_component(g_world, &all);
    rill_scene_register(g_world);
    g_types = rill__scene_types_create(g_world);
}

/* Parses + binds text; on success spawns it, writes it into *out and despawns it again. */
static rill_result load_write(const char *text, size_t len, bool lossy, rill_strbuf *out) {
    rsn_doc doc;
    rill_error err = {0};
    rill_result r = rill__rsn_parse(&doc, "fuzz.rsn", text, len, &err);
    if (r != RILL_OK) {
        return r;
    }
    bind_opts opts = {.lossy = lossy, .max_depth = 8, .max_entities = 1u << 20};
    bound_scene b = {0};
    r = rill__scene_bind(g_types, &opts, &doc, NULL, &b, &err);
    rill__rsn_doc_free(&doc);
    if (r == RILL_OK && out) {
        uint32_t n = b.ents.len;
        rill_entity *spawned = malloc(sizeof(rill_entity) * (n ? n : 1));
        if (rill_world_spawn_n(g_world, n, spawned) == n) {
            rill_entity *roots = malloc(sizeof(rill_entity) * (n ? n : 1));
            uint32_t nr = 0;
            for (uint32_t i = 0; i < n; i++) {
                rill__scene_apply_entity(g_world, g_types, &b, i, spawned, RILL_ENTITY_NULL);
                if (b.ents.data[i].parent == RSN_NONE_INDEX) {
                    roots[nr++] = spawned[i];
                }
            }
            r = rill_scene_write(g_world, roots, nr,
                                 &(rill_scene_write_desc){.include_instance_content = true}, out,
                                 &err);
            for (uint32_t i = 0; i < n; i++) {
                rill_world_despawn(g_world, spawned[i]);
            }
            free(roots);
        }
        free(spawned);
    }
    rill__bound_free(&b);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_world) {
        setup();
    }
    if (size > 1u << 16) {
        return 0;
    }
    bool lossy = size > 0 && (data[0] & 1);
    rill_strbuf first = {0};
    if (load_write((const char *)data, size, lossy, &first) == RILL_OK && first.data) {
        rill_strbuf second = {0};
        if (load_write(first.data, first.len, lossy, &second) != RILL_OK) {
            fprintf(stderr, "writer output does not read back:\n%s\n", first.data);
            abort();
        }
        if (second.len != first.len || memcmp(first.data, second.data, first.len) != 0) {
            fprintf(stderr, "writer output is not canonical:\n%s\n---\n%s\n", first.data,
                    second.data ? second.data : "");
            abort();
        }
        rill_strbuf_free(&second);
    }
    rill_strbuf_free(&first);
    return 0;
}
