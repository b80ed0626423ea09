/* hlod_internal.h: what the far-world proxy bake shares inside formats: the .rsn scan that finds
 * the models a scene places and the streamed instances it holds (hlod_scan.c), the geometry bake
 * (hlod_bake.c) and the exporter's glue (export_hlod.c). */
#ifndef RILL_FORMATS_HLOD_INTERNAL_H
#define RILL_FORMATS_HLOD_INTERNAL_H

#include "rill/formats/hlod.h"

/* One entity of a scanned .rsn: file-local id and parent, the Transform's TRS, the Model it names
 * and the SceneInstance it holds. Strings are owned (rill_free through rill__rsn_scan_free). */
typedef struct rill__rsn_entity {
    uint32_t id, parent; /* parent 0 = a root */
    float t[3], r[4], s[3];
    char *model;    /* Model.path, NULL = none */
    char *instance; /* SceneInstance.scene, NULL = none */
    bool streamed;
    float bounds_min[3], bounds_max[3]; /* SceneInstance bounds (root-local) */
} rill__rsn_entity;

typedef struct rill__rsn_scan {
    rill__rsn_entity *ents;
    uint32_t count;
} rill__rsn_scan;

/* Scans the .rsn text t[n] for entity blocks and the few components a proxy needs (Transform,
 * Model, SceneInstance). Tolerant: what it does not understand is skipped; never reads past n.
 * False only when out of memory. */
bool rill__rsn_scan_text(const char *t, size_t n, rill__rsn_scan *out);
void rill__rsn_scan_free(rill__rsn_scan *s);
/* Entity i's matrix in the scene's space (column-major): its TRS composed with its parents'
 * (a missing parent or a cycle ends the chain). */
void rill__rsn_world_matrix(const rill__rsn_scan *s, uint32_t i, float out[16]);

/* Models flattened and pre-simplified once per export, shared by the jobs (thread-safe). */
typedef struct rill__hlod_cache rill__hlod_cache;
rill__hlod_cache *rill__hlod_cache_create(void);
void rill__hlod_cache_destroy(rill__hlod_cache *cache);

/* Bakes the level-0 proxy of the district scene `scene_path` (project-relative) whose text is
 * t[n]: every Model it places, read from project_dir (through cache when not NULL), merged and
 * simplified to `triangles`. On success *out is a one-part proxy. A scene that places no model
 * gives a part with no triangles. Errors name the scene and the model. */
rill_result rill__hlod_bake_scene(const char *project_dir, const char *scene_path, const char *t,
                                  size_t n, uint32_t triangles, rill__hlod_cache *cache,
                                  rill_hlod **out, rill_error *err);

/* One level-0 proxy placed in the space of the scene that streams it. */
typedef struct rill__hlod_member {
    const rill_hlod *proxy; /* borrowed */
    float matrix[16];
    float box_min[3], box_max[3]; /* the instance's world box (authored bounds or the proxy's) */
} rill__hlod_member;

/* Bakes the level-1 proxy of members[0, n): cells of `cell` metres (0: 3 x the widest member box
 * in x/z), each cell's members merged and simplified to `triangles`; empty cells are left out. */
rill_result rill__hlod_bake_cells(const rill__hlod_member *members, uint32_t n, float cell,
                                  uint32_t triangles, rill_hlod **out, rill_error *err);

#endif /* RILL_FORMATS_HLOD_INTERNAL_H */
