/* terrain_internal.h: the runtime state behind rill_terrain_system, shared by its files. */
#ifndef RILL_TERRAIN_INTERNAL_H
#define RILL_TERRAIN_INTERNAL_H

#include "rill/terrain.h"

#define TERRAIN_LOG "terrain"

/* A finished chunk build, waiting on the main thread to be applied. */
typedef struct chunk_result {
    float *vertices; /* resolution^2 * 6 floats: world position, normal */
    float *samples;  /* resolution^2 heights (metres, relative to the terrain origin), row-major */
    float bounds_min[3], bounds_max[3];
    uint64_t build_ns;
} chunk_result;

typedef struct terrain_chunk {
    uint8_t state;       /* rill_terrain_chunk_state */
    uint32_t build_seq;  /* the build a completion must carry to be accepted */
    chunk_result *ready; /* a finished build not yet applied */
    float *vertices;     /* resident mesh */
    uint64_t version;
    rill_physics_shape shape;
    rill_physics_collider collider;
    float bounds_min[3], bounds_max[3];
    float distance; /* to the camera, from the last update (for nearest-first builds) */
} terrain_chunk;

/* One terrain entity's state. Its heights live here for as long as the component does. */
typedef struct terrain_rec {
    rill_entity entity;
    rill_terrain comp; /* the component the heights were loaded from */
    float origin[3];
    uint32_t generation; /* bumped on every (re)load; stale completions carry an older one */
    rill_terrain_status status;
    rill_error error;
    uint32_t samples_x, samples_z;
    float *heights; /* samples_x * samples_z metres (height_scale and offset applied) */
    uint8_t *splat; /* RGBA8 or NULL */
    uint32_t splat_w, splat_h;
    uint32_t *indices; /* shared by every chunk */
    uint32_t index_count;
    uint32_t *edge_indices; /* the grid's edges (line list), shared by every chunk */
    uint32_t edge_index_count;
    terrain_chunk *chunks;       /* chunks_x * chunks_z, row-major by z */
    RILL_ARRAY(uint32_t) ready;  /* chunk indices with a finished build, in arrival order */
    RILL_ARRAY(uint32_t) wanted; /* scratch of queue_wanted: chunks to build, nearest first */
    uint32_t resident, building, colliders, rebuilds_last;
    uint64_t rebuilds_total, build_ns_total, apply_ns_total;
    uint32_t stamp;
    bool capped; /* edit mode left chunks unloaded at max_chunks (warned once) */
} terrain_rec;

/* Shared between the system and the completions it queued, so a completion that runs after the
 * system is gone (at rill_jobs_destroy) finds `sys` NULL and only frees its own data. Touched
 * only on the main thread. */
typedef struct terrain_link {
    struct rill_terrain_system *sys;
    uint32_t refs;
} terrain_link;

struct rill_terrain_system {
    rill_terrain_system_desc desc;
    rill_world *world;
    rill_jobs *jobs;
    rill_vfs *vfs;
    rill_physics *physics;
    rill_component comp;
    rill_component transform;
    terrain_link *link;
    rill_counter counter; /* every job queued by this system */
    uint32_t in_flight;   /* builds queued and not yet completed on the main thread */
    uint32_t ready_total; /* finished builds waiting to be applied, all terrains */
    RILL_ARRAY(terrain_rec *) terrains;
    uint32_t stamp;
    bool unlimited; /* flush: ignore max_rebuilds and max_in_flight */
};

/* Worker-side chunk build (build.c): copies what it needs at queue time. */
typedef struct chunk_job {
    terrain_link *link;
    rill_jobs *jobs;
    rill_entity entity;
    uint32_t generation;
    uint32_t chunk;
    uint32_t seq;
    /* Inputs: the chunk's samples plus a one-sample border (clamped at the terrain's edge), so
     * normals match across chunk seams. */
    float *border; /* (res + 2)^2 */
    uint32_t res;
    float spacing;
    float origin[3]; /* world position of the chunk's first sample (height 0) */
    chunk_result *result;
} chunk_job;

chunk_job *rill__terrain_chunk_job_make(const terrain_rec *t, uint32_t chunk);
void rill__terrain_chunk_job_run(void *arg);
void rill__terrain_chunk_result_free(chunk_result *r);
void rill__terrain_chunk_job_free(chunk_job *job);
/* The line list of a chunk grid of res x res vertices: every segment between neighbours along x
 * and along z (the cells' sides, not their diagonals), 4 res (res - 1) indices; NULL when out of
 * memory. */
uint32_t *rill__terrain_grid_edges(uint32_t res, uint32_t *out_count);

/* Triangle interpolation on a cell, the same split as the mesh and ODE's heightfield: the
 * diagonal runs from (1, 0) to (0, 1). */
float rill__terrain_cell_height(float h00, float h10, float h01, float h11, float fx, float fz);

/* Whether two components need different heights (a reload). */
bool rill__terrain_needs_reload(const rill_terrain *a, const rill_terrain *b);
/* Clamps a component's fields into their valid ranges (a scene may hold anything). */
void rill__terrain_sanitize(rill_terrain *t);

#endif /* RILL_TERRAIN_INTERNAL_H */
