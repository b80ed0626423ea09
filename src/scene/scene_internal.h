/* scene_internal.h: what the scene module's files share: the registry snapshot workers bind
 * against, the bound scene (component bytes ready to copy into the world), and the binder.
 *
 * Why a snapshot: the world belongs to the main thread, but binding (text -> component bytes) runs
 * on workers. The main thread copies the list of component types (the registry's descs are stable
 * for the world's lifetime) plus one default-initialized prototype per type into a refcounted
 * snapshot, and workers read only that.
 */
#ifndef RILL_SCENE_INTERNAL_H
#define RILL_SCENE_INTERNAL_H

#include "rill/scene.h"
#include "rsn_doc.h"

#include <stdatomic.h>

#define SCENE_LOG "scene"

typedef struct scene_type {
    const rill_type_desc *type;
    rill_component id;
    uint8_t *proto;     /* type->size bytes of defaults */
    uint32_t *name_len; /* strlen of each field name, for quick matching */
    bool skip; /* runtime-only (NO_SERIALIZE or MANAGED): ignored in files with a warning */
} scene_type;

typedef struct scene_types {
    _Atomic int32_t refs;
    uint32_t world_component_count; /* to notice new registrations */
    scene_type *items;
    uint32_t count;
    rill_map by_name; /* hash of the name -> index into items */
    rill_component name_comp, instance_comp, unknown_comp;
} scene_types;

/* Builds a snapshot of world's registry (main thread). refs = 1. NULL when out of memory. */
scene_types *rill__scene_types_create(rill_world *world);
void rill__scene_types_retain(scene_types *t);
void rill__scene_types_release(scene_types *t);
/* Index of the type named name[0..len) in t->items, or -1. */
int32_t rill__scene_types_find(const scene_types *t, const char *name, size_t len);

/* A component ready to add: id and the offset of its bytes in the blob. */
typedef struct bound_comp {
    rill_component comp;
    uint32_t off;
} bound_comp;

/* An entity field to patch once entities exist: blob offset of a rill_entity, and the index of
 * the target entity in the bound scene (RSN_NONE_INDEX = none). */
typedef struct bound_fix {
    uint32_t off;
    uint32_t target;
} bound_fix;

typedef struct bound_entity {
    uint32_t parent;  /* index in the bound scene, RSN_NONE_INDEX = a root of the load */
    const char *name; /* interned, NULL = unnamed */
    uint32_t first_comp, comp_count;
    uint32_t first_fix, fix_count;
} bound_entity;

typedef struct bound_scene {
    RILL_ARRAY(bound_entity) ents;
    RILL_ARRAY(bound_comp) comps;
    RILL_ARRAY(bound_fix) fixes;
    uint8_t *blob;
    size_t blob_len, blob_cap;
    uint32_t roots; /* entities whose parent is RSN_NONE_INDEX */
    uint32_t warnings;
    uint32_t file_entities, file_components, unknown_components; /* of the top file only */
} bound_scene;

void rill__bound_free(bound_scene *b);

/* Reads a file through vfs (NULL: the OS path). The buffer has a NUL after the last byte. */
rill_result rill__scene_read_file(rill_vfs *vfs, const char *path, char **out, size_t *out_len,
                                  rill_error *err);

typedef struct bind_opts {
    rill_vfs *vfs;         /* sub-scene reads and asset checks; NULL = OS files */
    bool check_assets;     /* warn about asset paths missing from the VFS */
    bool expand_instances; /* expand non-streamed SceneInstance contents */
    bool lossy;
    bool strict; /* unknown components and missing assets fail the bind */
    uint32_t max_depth;
    uint32_t max_entities;
    const _Atomic bool *cancel; /* may be NULL; checked now and then */
} bind_opts;

/* Binds a parsed document (and, with expand_instances, the sub-scenes it instances) into *out.
 * `top_path` is the normalized path of doc (for cycle checks). On error *out is left for the
 * caller to free; err names the place. */
rill_result rill__scene_bind(const scene_types *types, const bind_opts *opts, const rsn_doc *doc,
                             const char *top_path, bound_scene *out, rill_error *err);

/* Main thread: applies bound entity i to world: parent link (to spawned[parent] or, for roots,
 * to root when not NULL), name, components with entity fields remapped through spawned. */
void rill__scene_apply_entity(rill_world *world, const scene_types *types, bound_scene *b,
                              uint32_t i, const rill_entity *spawned, rill_entity root);

#endif
