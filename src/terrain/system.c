/* system.c: the terrain system: follows Terrain components, loads their heights on a worker,
 * decides chunk residency around the streaming camera, queues chunk builds on workers, applies
 * finished builds under a per-frame limit (mesh + physics heightfield), and releases chunks that
 * go out. */
#include "terrain_internal.h"

#include "rill/formats/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* >>links */

static void link_release(terrain_link *link) {
    if (--link->refs == 0 && !link->sys) {
        rill_free(link);
    }
}

/* >>records */

static terrain_rec *find_rec(const rill_terrain_system *sys, rill_entity e) {
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        if (sys->terrains.data[i]->entity == e) {
            return sys->terrains.data[i];
        }
    }
    return NULL;
}

static uint32_t chunk_count(const terrain_rec *t) {
    return t->comp.chunks_x * t->comp.chunks_z;
}

static void remove_ready(rill_terrain_system *sys, terrain_rec *t, uint32_t chunk) {
    for (uint32_t i = 0; i < t->ready.len; i++) {
        if (t->ready.data[i] == chunk) {
            memmove(&t->ready.data[i], &t->ready.data[i + 1],
                    (t->ready.len - i - 1) * sizeof(uint32_t));
            t->ready.len--;
            sys->ready_total--;
            return;
        }
    }
}

/* Sends a chunk out: the mesh and the collider go, the heights stay. A build in flight is
 * disowned (its completion sees another build_seq and frees its result). */
static void release_chunk(rill_terrain_system *sys, terrain_rec *t, uint32_t i) {
    terrain_chunk *c = &t->chunks[i];
    if (c->state == RILL_TERRAIN_CHUNK_RESIDENT) {
        rill_free(c->vertices);
        c->vertices = NULL;
        if (c->collider.id) {
            rill_physics_collider_remove(sys->physics, c->collider);
            t->colliders--;
        }
        if (c->shape.id) {
            rill_physics_shape_destroy(sys->physics, c->shape);
        }
        c->collider.id = c->shape.id = 0;
        t->resident--;
    } else if (c->state == RILL_TERRAIN_CHUNK_BUILDING) {
        if (c->ready) {
            rill__terrain_chunk_result_free(c->ready);
            c->ready = NULL;
            remove_ready(sys, t, i);
        }
        t->building--;
    }
    c->build_seq++;
    c->state = RILL_TERRAIN_CHUNK_UNLOADED;
}

/* Drops everything loaded for a terrain (chunks, heights); the record itself stays. */
static void unload_terrain(rill_terrain_system *sys, terrain_rec *t) {
    if (t->chunks) {
        for (uint32_t i = 0; i < chunk_count(t); i++) {
            release_chunk(sys, t, i);
        }
    }
    rill_free(t->chunks);
    rill_free(t->heights);
    rill_free(t->splat);
    rill_free(t->indices);
    rill_free(t->edge_indices);
    rill_array_free(&t->ready);
    rill_array_free(&t->wanted);
    t->chunks = NULL;
    t->heights = NULL;
    t->splat = NULL;
    t->indices = NULL;
    t->edge_indices = NULL;
    t->samples_x = t->samples_z = t->splat_w = t->splat_h = t->index_count = 0;
    t->edge_index_count = 0;
    t->resident = t->building = t->colliders = t->rebuilds_last = 0;
    t->generation++; /* completions of the old generation are now stale */
}

/* >>loading */

typedef struct load_job {
    terrain_link *link;
    rill_jobs *jobs;
    rill_vfs *vfs;
    rill_entity entity;
    uint32_t generation;
    rill_terrain comp;
    float *heights;
    uint32_t sx, sz;
    uint8_t *splat;
    uint32_t splat_w, splat_h;
    uint32_t *indices, *edge_indices;
    uint32_t index_count, edge_index_count;
    rill_result result;
    rill_error err;
} load_job;

/* Two triangles a cell, split along the (1, 0)-(0, 1) diagonal like ODE's heightfield, wound
 * counter-clockwise seen from above. */
static uint32_t *make_indices(uint32_t res, uint32_t *out_count) {
    size_t count = (size_t)(res - 1) * (res - 1) * 6u;
    uint32_t *ix = rill_malloc_tagged(count * sizeof(uint32_t), RILL_MEM_TERRAIN);
    if (!ix) {
        return NULL;
    }
    size_t k = 0;
    for (uint32_t z = 0; z + 1 < res; z++) {
        for (uint32_t x = 0; x + 1 < res; x++) {
            uint32_t v00 = z * res + x, v10 = v00 + 1, v01 = v00 + res, v11 = v01 + 1;
            ix[k++] = v00;
            ix[k++] = v01;
            ix[k++] = v10;
            ix[k++] = v10;
            ix[k++] = v01;
            ix[k++] = v11;
        }
    }
    *out_count = (uint32_t)count;
    return ix;
}

static rill_result load_splat(load_job *job) {
    const char *path = job->comp.splat_map;
    if (!path || !path[0]) {
        return RILL_OK;
    }
    if (!job->vfs) {
        return rill_error_set(&job->err, RILL_ERR_NOT_FOUND, "%s: no file system to read it from",
                              path);
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_result r = rill_vfs_read_all(job->vfs, path, &data, &size, &job->err);
    if (r != RILL_OK) {
        return r;
    }
    rill_image img;
    r = rill_image_load(data, size, path, RILL_PIXEL_RGBA8, &img, &job->err);
    rill_free(data);
    if (r != RILL_OK) {
        return r;
    }
    size_t bytes = (size_t)img.width * img.height * 4u;
    job->splat = rill_malloc_tagged(bytes, RILL_MEM_TERRAIN);
    if (!job->splat) {
        rill_image_free(&img);
        return rill_error_set(&job->err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    memcpy(job->splat, img.pixels, bytes);
    job->splat_w = img.width;
    job->splat_h = img.height;
    rill_image_free(&img);
    return RILL_OK;
}

static void load_free(load_job *job) {
    rill_free(job->heights);
    rill_free(job->splat);
    rill_free(job->indices);
    rill_free(job->edge_indices);
    rill_free(job);
}

static void load_done(void *arg);

static void load_run(void *arg) {
    load_job *job = arg;
    job->result = rill_terrain_load_heights(job->vfs, &job->comp, job->comp.heightmap,
                                            &job->heights, &job->sx, &job->sz, &job->err);
    if (job->result == RILL_OK) {
        job->result = load_splat(job);
    }
    if (job->result == RILL_OK) {
        job->indices = make_indices(job->comp.resolution, &job->index_count);
        job->edge_indices = rill__terrain_grid_edges(job->comp.resolution, &job->edge_index_count);
        if (!job->indices || !job->edge_indices) {
            job->result =
                rill_error_set(&job->err, RILL_ERR_OUT_OF_MEMORY, "terrain indices: out of memory");
        }
    }
    rill_jobs_post_main(job->jobs, load_done, job);
}

static void load_done(void *arg) {
    load_job *job = arg;
    rill_terrain_system *sys = job->link->sys;
    link_release(job->link);
    terrain_rec *t = sys ? find_rec(sys, job->entity) : NULL;
    if (!t || t->generation != job->generation || t->status != RILL_TERRAIN_STATUS_LOADING) {
        load_free(job);
        return;
    }
    if (job->result != RILL_OK) {
        t->status = RILL_TERRAIN_STATUS_FAILED;
        t->error = job->err;
        const char *name = rill_world_get_name(sys->world, t->entity);
        RILL_LOG_ERROR(TERRAIN_LOG, "terrain %u%s%s: %s", RILL_ENTITY_INDEX(t->entity),
                       name ? " " : "", name ? name : "", job->err.msg);
        load_free(job);
        return;
    }
    t->chunks = rill_calloc_tagged(chunk_count(t), sizeof(terrain_chunk), RILL_MEM_TERRAIN);
    if (!t->chunks) {
        t->status = RILL_TERRAIN_STATUS_FAILED;
        rill_error_set(&t->error, RILL_ERR_OUT_OF_MEMORY, "terrain: out of memory");
        load_free(job);
        return;
    }
    t->heights = job->heights;
    t->samples_x = job->sx;
    t->samples_z = job->sz;
    t->splat = job->splat;
    t->splat_w = job->splat_w;
    t->splat_h = job->splat_h;
    t->indices = job->indices;
    t->index_count = job->index_count;
    t->edge_indices = job->edge_indices;
    t->edge_index_count = job->edge_index_count;
    job->heights = NULL;
    job->splat = NULL;
    job->indices = NULL;
    job->edge_indices = NULL;
    t->status = RILL_TERRAIN_STATUS_READY;
    rill_error_clear(&t->error);
    load_free(job);
}

/* Chunks terrain t may hold resident at once: all of them, or those of its streaming ring. */
static uint64_t resident_bound(const terrain_rec *t) {
    uint64_t all = chunk_count(t);
    if (!t->comp.stream) {
        return all;
    }
    double side = 2.0 * ceil((double)t->comp.stream_radius / (double)t->comp.chunk_size) + 1.0;
    return side * side < (double)all ? (uint64_t)(side * side) : all;
}

/* Refuses terrain t when it and the other loaded terrains would hold more than max_chunks. */
static bool over_chunk_limit(rill_terrain_system *sys, terrain_rec *t) {
    uint64_t others = 0;
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        const terrain_rec *o = sys->terrains.data[i];
        if (o != t && o->status != RILL_TERRAIN_STATUS_FAILED) {
            others += resident_bound(o);
        }
    }
    uint64_t mine = resident_bound(t);
    if (others + mine <= sys->desc.max_chunks) {
        return false;
    }
    t->status = RILL_TERRAIN_STATUS_FAILED;
    const char *name = rill_world_get_name(sys->world, t->entity);
    rill_error_set(&t->error, RILL_ERR_LIMIT,
                   "terrain %u%s%s: %llu chunks resident (%u x %u%s) with %llu of other terrains "
                   "exceed the max_chunks limit of %u (rill_terrain_system_desc.max_chunks; fewer "
                   "chunks, or stream: true with a smaller stream_radius)",
                   RILL_ENTITY_INDEX(t->entity), name ? " " : "", name ? name : "",
                   (unsigned long long)mine, t->comp.chunks_x, t->comp.chunks_z,
                   t->comp.stream ? ", streaming ring" : "", (unsigned long long)others,
                   sys->desc.max_chunks);
    RILL_LOG_ERROR(TERRAIN_LOG, "%s", t->error.msg);
    return true;
}

static void start_load(rill_terrain_system *sys, terrain_rec *t) {
    t->status = RILL_TERRAIN_STATUS_LOADING;
    if (over_chunk_limit(sys, t)) {
        return;
    }
    load_job *job = rill_calloc_tagged(1, sizeof *job, RILL_MEM_TERRAIN);
    if (!job) {
        t->status = RILL_TERRAIN_STATUS_FAILED;
        rill_error_set(&t->error, RILL_ERR_OUT_OF_MEMORY, "terrain: out of memory");
        return;
    }
    job->link = sys->link;
    sys->link->refs++;
    job->jobs = sys->jobs;
    job->vfs = sys->vfs;
    job->entity = t->entity;
    job->generation = t->generation;
    job->comp = t->comp;
    rill_jobs_run(sys->jobs, load_run, job, &sys->counter);
}

/* >>builds */

static void build_done(void *arg);

static void build_run(void *arg) {
    chunk_job *job = arg;
    rill__terrain_chunk_job_run(job);
    rill_jobs_post_main(job->jobs, build_done, job);
}

static void build_done(void *arg) {
    chunk_job *job = arg;
    rill_terrain_system *sys = job->link->sys;
    link_release(job->link);
    if (!sys) {
        rill__terrain_chunk_job_free(job);
        return;
    }
    sys->in_flight--;
    terrain_rec *t = find_rec(sys, job->entity);
    terrain_chunk *c = t && t->generation == job->generation ? &t->chunks[job->chunk] : NULL;
    if (!c || c->state != RILL_TERRAIN_CHUNK_BUILDING || c->build_seq != job->seq || c->ready) {
        rill__terrain_chunk_job_free(job);
        return;
    }
    if (!job->result || !rill_array_push(&t->ready, job->chunk)) {
        RILL_LOG_ERROR(TERRAIN_LOG, "terrain %u: chunk %u: out of memory building it",
                       RILL_ENTITY_INDEX(t->entity), job->chunk);
        c->state = RILL_TERRAIN_CHUNK_UNLOADED;
        t->building--;
        rill__terrain_chunk_job_free(job);
        return;
    }
    c->ready = job->result;
    job->result = NULL;
    sys->ready_total++;
    rill__terrain_chunk_job_free(job);
}

static bool queue_build(rill_terrain_system *sys, terrain_rec *t, uint32_t i) {
    terrain_chunk *c = &t->chunks[i];
    c->build_seq++;
    chunk_job *job = rill__terrain_chunk_job_make(t, i);
    if (!job) {
        return false;
    }
    job->link = sys->link;
    sys->link->refs++;
    job->jobs = sys->jobs;
    c->state = RILL_TERRAIN_CHUNK_BUILDING;
    t->building++;
    sys->in_flight++;
    rill_jobs_run(sys->jobs, build_run, job, &sys->counter);
    return true;
}

/* Makes a finished build the chunk's resident mesh and collider. */
static void apply_chunk(rill_terrain_system *sys, terrain_rec *t, uint32_t i) {
    uint64_t t0 = rill_time_ns();
    terrain_chunk *c = &t->chunks[i];
    chunk_result *r = c->ready;
    c->ready = NULL;
    sys->ready_total--;
    t->building--;
    c->vertices = r->vertices;
    r->vertices = NULL;
    memcpy(c->bounds_min, r->bounds_min, sizeof c->bounds_min);
    memcpy(c->bounds_max, r->bounds_max, sizeof c->bounds_max);
    c->state = RILL_TERRAIN_CHUNK_RESIDENT;
    c->version++;
    t->resident++;
    t->rebuilds_total++;
    if (sys->physics) {
        uint32_t res = t->comp.resolution;
        float sp = t->comp.chunk_size / (float)(res - 1);
        rill_physics_shape_desc sd = {.type = RILL_PHYSICS_SHAPE_HEIGHTFIELD,
                                      .heights = r->samples,
                                      .samples_x = res,
                                      .samples_z = res,
                                      .spacing_x = sp,
                                      .spacing_z = sp,
                                      .label = "terrain chunk"};
        rill_physics_collider_desc cd = {.entity = t->entity, .part = i};
        rill_error err = {0};
        rill_result res_shape = rill_physics_shape_create(sys->physics, &sd, &c->shape, &err);
        if (res_shape == RILL_OK) {
            cd.collider.shape = RILL_COLLIDER_HEIGHTFIELD;
            cd.collider.shape_data = c->shape.id;
            cd.collider.friction = 0.8f;
            cd.collider.layers = 1;
            cd.position[0] = t->origin[0] + (float)(i % t->comp.chunks_x) * t->comp.chunk_size;
            cd.position[1] = t->origin[1];
            cd.position[2] = t->origin[2] + (float)(i / t->comp.chunks_x) * t->comp.chunk_size;
            res_shape = rill_physics_collider_add(sys->physics, &cd, &c->collider, &err);
        }
        if (res_shape == RILL_OK) {
            t->colliders++;
        } else {
            RILL_LOG_ERROR(TERRAIN_LOG, "terrain %u: chunk %u: no collider: %s",
                           RILL_ENTITY_INDEX(t->entity), i, err.msg);
            if (c->shape.id) {
                rill_physics_shape_destroy(sys->physics, c->shape);
            }
            c->shape.id = 0;
        }
    }
    t->build_ns_total += r->build_ns;
    rill__terrain_chunk_result_free(r);
    t->apply_ns_total += rill_time_ns() - t0;
}

/* Whether a timed view's budget is spent: the update began at t0 and applied `applied` builds so
 * far over all terrains (the first is always made). */
static bool apply_spent(const rill_terrain_system *sys, const rill_terrain_view *view, uint64_t t0,
                        uint32_t applied) {
    return !sys->unlimited && view->timed && applied > 0 && rill_time_ns() - t0 >= view->budget_ns;
}

/* Applies t's finished builds: at most max_rebuilds, and none once a timed view's budget is spent
 * (apply_spent; *applied counts this update's applies over all terrains). */
static void apply_ready(rill_terrain_system *sys, terrain_rec *t, const rill_terrain_view *view,
                        uint64_t t0, uint32_t *applied_all) {
    uint32_t limit = sys->unlimited ? UINT32_MAX : t->comp.max_rebuilds;
    uint32_t applied = 0, taken = 0;
    while (taken < t->ready.len && applied < limit && !apply_spent(sys, view, t0, *applied_all)) {
        apply_chunk(sys, t, t->ready.data[taken++]);
        applied++;
        (*applied_all)++;
    }
    if (taken) {
        memmove(t->ready.data, t->ready.data + taken, (t->ready.len - taken) * sizeof(uint32_t));
        t->ready.len -= taken;
    }
    t->rebuilds_last = applied;
}

/* >>residency */

static void chunk_rect(const terrain_rec *t, uint32_t i, float mn[2], float mx[2]) {
    float s = t->comp.chunk_size;
    mn[0] = t->origin[0] + (float)(i % t->comp.chunks_x) * s;
    mn[1] = t->origin[2] + (float)(i / t->comp.chunks_x) * s;
    mx[0] = mn[0] + s;
    mx[1] = mn[1] + s;
}

/* Releases what went out and marks what should come in (distance < +inf); returns how many
 * chunks want a build. */
static uint32_t decide(rill_terrain_system *sys, terrain_rec *t, const rill_terrain_view *view) {
    bool streaming = view->streaming && t->comp.stream;
    if (streaming && !view->has_camera) {
        return 0; /* no camera: residency stays as it is */
    }
    float cam[2] = {view->camera_position[0], view->camera_position[2]};
    uint32_t wanted = 0;
    /* Without streaming (edit mode) a streamed terrain wants every chunk, more than its ring
     * counted against max_chunks: chunks past the limit stay unloaded. */
    uint64_t room = UINT64_MAX;
    if (!streaming && t->comp.stream) {
        uint64_t others = 0;
        for (uint32_t i = 0; i < sys->terrains.len; i++) {
            const terrain_rec *o = sys->terrains.data[i];
            if (o != t && o->status != RILL_TERRAIN_STATUS_FAILED) {
                others += resident_bound(o);
            }
        }
        room = others < sys->desc.max_chunks ? sys->desc.max_chunks - others : 0;
        for (uint32_t i = 0; i < chunk_count(t); i++) {
            room -= room && t->chunks[i].state != RILL_TERRAIN_CHUNK_UNLOADED;
        }
    }
    for (uint32_t i = 0; i < chunk_count(t); i++) {
        terrain_chunk *c = &t->chunks[i];
        int dec = 1;
        c->distance = 0.0f;
        if (streaming) {
            float mn[2], mx[2];
            chunk_rect(t, i, mn, mx);
            c->distance = rill_terrain_rect_distance(cam, mn, mx);
            dec =
                rill_terrain_chunk_decision(c->distance, t->comp.stream_radius, t->comp.chunk_size);
        }
        if (dec < 0 && c->state != RILL_TERRAIN_CHUNK_UNLOADED) {
            release_chunk(sys, t, i);
        }
        if (dec > 0 && c->state == RILL_TERRAIN_CHUNK_UNLOADED && room == 0) {
            if (!t->capped) {
                RILL_LOG_WARN(TERRAIN_LOG,
                              "terrain %u: edit mode loads its chunks only up to the max_chunks "
                              "limit of %u; the rest stay unloaded",
                              RILL_ENTITY_INDEX(t->entity), sys->desc.max_chunks);
            }
            t->capped = true;
            c->distance = INFINITY;
        } else if (dec > 0 && c->state == RILL_TERRAIN_CHUNK_UNLOADED) {
            room -= room != UINT64_MAX;
            wanted++;
        } else {
            c->distance = INFINITY;
        }
    }
    return wanted;
}

/* Orders chunk indices by their distance, then by index (the order of the former scan). */
static const terrain_chunk *sort_chunks;
static int cmp_wanted(const void *a, const void *b) {
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    float da = sort_chunks[ia].distance, db = sort_chunks[ib].distance;
    return da < db ? -1 : da > db ? 1 : (ia > ib) - (ia < ib);
}

/* Queues builds for wanted chunks, nearest first, while the in-flight bound allows. One pass
 * gathers them and one sort orders them: O(n + w log w) a frame. The former scan for the nearest
 * chunk once per queued chunk was O(w n): a 256 x 256-chunk terrain took minutes to flush. */
static void queue_wanted(rill_terrain_system *sys, terrain_rec *t, uint32_t wanted) {
    if (wanted == 0) {
        return;
    }
    rill_array_clear(&t->wanted);
    for (uint32_t i = 0; i < chunk_count(t); i++) {
        const terrain_chunk *c = &t->chunks[i];
        if (c->state == RILL_TERRAIN_CHUNK_UNLOADED && c->distance < INFINITY &&
            !rill_array_push(&t->wanted, i)) {
            RILL_LOG_ERROR(TERRAIN_LOG, "terrain %u: out of memory ordering chunks",
                           RILL_ENTITY_INDEX(t->entity));
            return;
        }
    }
    sort_chunks = t->chunks; /* main thread only */
    qsort(t->wanted.data, t->wanted.len, sizeof(uint32_t), cmp_wanted);
    for (uint32_t k = 0; k < t->wanted.len; k++) {
        if (!sys->unlimited && sys->in_flight + sys->ready_total >= sys->desc.max_in_flight) {
            return;
        }
        uint32_t best = t->wanted.data[k];
        t->chunks[best].distance = INFINITY;
        if (!queue_build(sys, t, best)) {
            RILL_LOG_ERROR(TERRAIN_LOG, "terrain %u: out of memory queueing chunk %u",
                           RILL_ENTITY_INDEX(t->entity), best);
            return;
        }
    }
}

/* >>sync */

static void entity_origin(const rill_terrain_system *sys, rill_entity e, float out[3]) {
    const float *m = rill_world_global_matrix(sys->world, e);
    const rill_transform *tr = rill_world_get(sys->world, e, sys->transform);
    if (tr && !rill_world_get_parent(sys->world, e)) {
        memcpy(out, tr->translation, 3 * sizeof(float));
    } else if (m) {
        out[0] = m[12];
        out[1] = m[13];
        out[2] = m[14];
    } else {
        out[0] = out[1] = out[2] = 0.0f;
    }
    for (int i = 0; i < 3; i++) {
        if (!isfinite(out[i])) {
            out[i] = 0.0f;
        }
    }
}

static void free_rec(rill_terrain_system *sys, terrain_rec *t) {
    unload_terrain(sys, t);
    rill_free(t);
}

static void sync_components(rill_terrain_system *sys) {
    sys->stamp++;
    rill_query_desc qd = {.with = {sys->comp}};
    rill_query q = rill_world_query(sys->world, &qd);
    while (rill_query_next(&q)) {
        rill_terrain comp = *(const rill_terrain *)rill_query_get(&q, 0);
        rill__terrain_sanitize(&comp);
        float origin[3];
        entity_origin(sys, q.entity, origin);
        terrain_rec *t = find_rec(sys, q.entity);
        if (!t) {
            t = rill_calloc_tagged(1, sizeof *t, RILL_MEM_TERRAIN);
            if (!t || !rill_array_push(&sys->terrains, t)) {
                rill_free(t);
                RILL_LOG_ERROR(TERRAIN_LOG, "terrain %u: out of memory",
                               RILL_ENTITY_INDEX(q.entity));
                continue;
            }
            t->entity = q.entity;
            t->comp = comp;
            memcpy(t->origin, origin, sizeof origin);
            start_load(sys, t);
        } else if (rill__terrain_needs_reload(&t->comp, &comp) ||
                   memcmp(origin, t->origin, sizeof origin) != 0) {
            unload_terrain(sys, t);
            t->comp = comp;
            memcpy(t->origin, origin, sizeof origin);
            start_load(sys, t);
        } else {
            t->comp = comp; /* streaming and layer fields apply live */
        }
        t->stamp = sys->stamp;
    }
    for (uint32_t i = 0; i < sys->terrains.len;) {
        terrain_rec *t = sys->terrains.data[i];
        if (t->stamp != sys->stamp) {
            free_rec(sys, t);
            sys->terrains.data[i] = sys->terrains.data[--sys->terrains.len];
        } else {
            i++;
        }
    }
}

/* >>system */

rill_terrain_system *rill_terrain_system_create(const rill_terrain_system_desc *desc,
                                                rill_error *err) {
    if (!desc || !desc->world || !desc->jobs) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_terrain_system_create: %s",
                       !desc          ? "no desc"
                       : !desc->world ? "no world"
                                      : "no jobs");
        return NULL;
    }
    if (desc->start_canary || desc->end_canary) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_terrain_system_create: desc canaries are not zero");
        return NULL;
    }
    rill_terrain_system *sys = rill_calloc_tagged(1, sizeof *sys, RILL_MEM_TERRAIN);
    terrain_link *link = rill_calloc_tagged(1, sizeof *link, RILL_MEM_TERRAIN);
    if (!sys || !link) {
        rill_free(sys);
        rill_free(link);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_terrain_system_create: out of memory");
        return NULL;
    }
    sys->desc = *desc;
    if (!sys->desc.max_in_flight) {
        sys->desc.max_in_flight = 8;
    }
    if (!sys->desc.max_chunks) {
        sys->desc.max_chunks = RILL_TERRAIN_DEFAULT_MAX_CHUNKS;
    }
    sys->world = desc->world;
    sys->jobs = desc->jobs;
    sys->vfs = desc->vfs;
    sys->physics = desc->physics;
    sys->comp = rill_terrain_register(desc->world);
    sys->transform = rill_world_builtin(desc->world)->transform;
    link->sys = sys;
    link->refs = 1; /* the system's own reference */
    sys->link = link;
    if (!sys->comp.id) {
        rill_free(link);
        rill_free(sys);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_terrain_system_create: cannot register");
        return NULL;
    }
    return sys;
}

void rill_terrain_system_destroy(rill_terrain_system *sys) {
    if (!sys) {
        return;
    }
    /* Workers read only their own copies, but their completions must find the link alive. */
    rill_jobs_wait(sys->jobs, &sys->counter);
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        free_rec(sys, sys->terrains.data[i]);
    }
    rill_array_free(&sys->terrains);
    sys->link->sys = NULL;
    link_release(sys->link);
    rill_free(sys);
}

void rill_terrain_system_update(rill_terrain_system *sys, const rill_terrain_view *view) {
    if (!sys) {
        return;
    }
    static const rill_terrain_view edit = {0};
    if (!view) {
        view = &edit;
    }
    uint64_t t0 = rill_time_ns();
    uint32_t applied = 0;
    sync_components(sys);
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        terrain_rec *t = sys->terrains.data[i];
        t->rebuilds_last = 0;
        if (t->status != RILL_TERRAIN_STATUS_READY) {
            continue;
        }
        uint32_t wanted = decide(sys, t, view);
        queue_wanted(sys, t, wanted);
        apply_ready(sys, t, view, t0, &applied);
    }
}

void rill_terrain_system_restore(rill_terrain_system *sys) {
    static const rill_terrain_view edit = {0};
    for (uint32_t i = 0; sys && i < sys->terrains.len; i++) {
        terrain_rec *t = sys->terrains.data[i];
        if (t->status == RILL_TERRAIN_STATUS_READY) {
            queue_wanted(sys, t, decide(sys, t, &edit));
        }
    }
}

static bool settled(const rill_terrain_system *sys) {
    if (sys->in_flight > 0) {
        return false;
    }
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        const terrain_rec *t = sys->terrains.data[i];
        if (t->status == RILL_TERRAIN_STATUS_LOADING || t->building > 0) {
            return false;
        }
    }
    return true;
}

void rill_terrain_system_flush(rill_terrain_system *sys, const rill_terrain_view *view) {
    if (!sys) {
        return;
    }
    sys->unlimited = true;
    /* Each round loads, queues or applies something, so a handful of rounds always suffices;
     * the bound only guards against a bug turning this into a hang. */
    for (int round = 0; round < 64; round++) {
        rill_terrain_system_update(sys, view);
        if (settled(sys)) {
            break;
        }
        rill_jobs_wait(sys->jobs, &sys->counter);
        rill_jobs_drain(sys->jobs, 0);
    }
    sys->unlimited = false;
}

/* >>queries */

bool rill_terrain_get_info(const rill_terrain_system *sys, rill_entity e, rill_terrain_info *out) {
    memset(out, 0, sizeof *out);
    const terrain_rec *t = sys ? find_rec(sys, e) : NULL;
    if (!t) {
        return false;
    }
    out->status = t->status;
    out->chunks_x = t->comp.chunks_x;
    out->chunks_z = t->comp.chunks_z;
    out->resolution = t->comp.resolution;
    out->chunk_size = t->comp.chunk_size;
    memcpy(out->origin, t->origin, sizeof out->origin);
    out->samples_x = t->samples_x;
    out->samples_z = t->samples_z;
    out->resident = t->resident;
    out->building = t->building;
    out->colliders = t->colliders;
    out->rebuilds_last_update = t->rebuilds_last;
    out->rebuilds_total = t->rebuilds_total;
    out->build_ns_total = t->build_ns_total;
    out->apply_ns_total = t->apply_ns_total;
    out->height_bytes = (size_t)t->samples_x * t->samples_z * sizeof(float) +
                        (size_t)t->splat_w * t->splat_h * 4u +
                        ((size_t)t->index_count + t->edge_index_count) * sizeof(uint32_t) +
                        (t->chunks ? chunk_count(t) * sizeof(terrain_chunk) : 0);
    size_t per_mesh = (size_t)t->comp.resolution * t->comp.resolution * 6u * sizeof(float);
    for (uint32_t i = 0; t->chunks && i < chunk_count(t); i++) {
        const terrain_chunk *c = &t->chunks[i];
        if (c->state != RILL_TERRAIN_CHUNK_RESIDENT) {
            continue;
        }
        out->resident_bytes += c->vertices ? per_mesh : 0u;
        if (c->shape.id) {
            out->resident_bytes += rill_physics_shape_bytes(sys->physics, c->shape);
        }
    }
    out->error = t->error;
    return true;
}

void rill_terrain_get_stats(const rill_terrain_system *sys, rill_terrain_stats *out) {
    memset(out, 0, sizeof *out);
    if (!sys) {
        return;
    }
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        rill_terrain_info info;
        rill_terrain_get_info(sys, sys->terrains.data[i]->entity, &info);
        out->terrains++;
        out->failed += info.status == RILL_TERRAIN_STATUS_FAILED;
        out->chunks += info.chunks_x * info.chunks_z;
        out->resident += info.resident;
        out->building += info.building;
        out->colliders += info.colliders;
        out->rebuilds_last_update += info.rebuilds_last_update;
        out->rebuilds_total += info.rebuilds_total;
        out->build_ns_total += info.build_ns_total;
        out->apply_ns_total += info.apply_ns_total;
        out->height_bytes += info.height_bytes;
        out->resident_bytes += info.resident_bytes;
    }
}

rill_terrain_chunk_state rill_terrain_chunk_get_state(const rill_terrain_system *sys, rill_entity e,
                                                      uint32_t cx, uint32_t cz) {
    const terrain_rec *t = sys ? find_rec(sys, e) : NULL;
    if (!t || !t->chunks || cx >= t->comp.chunks_x || cz >= t->comp.chunks_z) {
        return RILL_TERRAIN_CHUNK_UNLOADED;
    }
    return (rill_terrain_chunk_state)t->chunks[cz * t->comp.chunks_x + cx].state;
}

static bool height_on(const terrain_rec *t, float x, float z, float *out_h, float out_n[3]) {
    if (t->status != RILL_TERRAIN_STATUS_READY) {
        return false;
    }
    float sp = t->comp.chunk_size / (float)(t->comp.resolution - 1);
    float lx = (x - t->origin[0]) / sp, lz = (z - t->origin[2]) / sp;
    if (!(lx >= 0.0f && lz >= 0.0f && lx <= (float)(t->samples_x - 1) &&
          lz <= (float)(t->samples_z - 1))) {
        return false;
    }
    uint32_t ix = RILL_MIN((uint32_t)lx, t->samples_x - 2);
    uint32_t iz = RILL_MIN((uint32_t)lz, t->samples_z - 2);
    float fx = lx - (float)ix, fz = lz - (float)iz;
    const float *row = &t->heights[(size_t)iz * t->samples_x + ix];
    float h00 = row[0], h10 = row[1], h01 = row[t->samples_x], h11 = row[t->samples_x + 1];
    *out_h = t->origin[1] + rill__terrain_cell_height(h00, h10, h01, h11, fx, fz);
    if (out_n) {
        float dhdx, dhdz;
        if (fx + fz <= 1.0f) {
            dhdx = (h10 - h00) / sp;
            dhdz = (h01 - h00) / sp;
        } else {
            dhdx = (h11 - h01) / sp;
            dhdz = (h11 - h10) / sp;
        }
        float len = sqrtf(dhdx * dhdx + 1.0f + dhdz * dhdz);
        out_n[0] = -dhdx / len;
        out_n[1] = 1.0f / len;
        out_n[2] = -dhdz / len;
    }
    return true;
}

bool rill_terrain_height_at(const rill_terrain_system *sys, rill_entity e, float x, float z,
                            float *out_height, float out_normal[3]) {
    if (!sys || !out_height || !isfinite(x) || !isfinite(z)) {
        return false;
    }
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        const terrain_rec *t = sys->terrains.data[i];
        if (e != RILL_ENTITY_NULL && t->entity != e) {
            continue;
        }
        if (height_on(t, x, z, out_height, out_normal)) {
            return true;
        }
    }
    return false;
}

bool rill_terrain_chunk_get_mesh(const rill_terrain_system *sys, rill_entity e, uint32_t cx,
                                 uint32_t cz, rill_terrain_chunk_mesh *out) {
    memset(out, 0, sizeof *out);
    const terrain_rec *t = sys ? find_rec(sys, e) : NULL;
    if (!t || !t->chunks || cx >= t->comp.chunks_x || cz >= t->comp.chunks_z) {
        return false;
    }
    const terrain_chunk *c = &t->chunks[cz * t->comp.chunks_x + cx];
    if (c->state != RILL_TERRAIN_CHUNK_RESIDENT) {
        return false;
    }
    out->vertices = c->vertices;
    out->vertex_count = t->comp.resolution * t->comp.resolution;
    out->indices = t->indices;
    out->index_count = t->index_count;
    out->edge_indices = t->edge_indices;
    out->edge_index_count = t->edge_index_count;
    /* Unique across rebuilds and reloads: the generation in the high bits. */
    out->version = (uint64_t)t->generation << 32 | (c->version & 0xFFFFFFFFu);
    memcpy(out->bounds_min, c->bounds_min, sizeof out->bounds_min);
    memcpy(out->bounds_max, c->bounds_max, sizeof out->bounds_max);
    return true;
}

/* The resident chunk (cx, cz) of terrain e, or NULL. */
static terrain_chunk *resident_chunk(rill_terrain_system *sys, rill_entity e, uint32_t cx,
                                     uint32_t cz, terrain_rec **out_t) {
    terrain_rec *t = sys ? find_rec(sys, e) : NULL;
    if (!t || !t->chunks || cx >= t->comp.chunks_x || cz >= t->comp.chunks_z) {
        return NULL;
    }
    terrain_chunk *c = &t->chunks[cz * t->comp.chunks_x + cx];
    *out_t = t;
    return c->state == RILL_TERRAIN_CHUNK_RESIDENT ? c : NULL;
}

size_t rill_terrain_chunk_drop_mesh(rill_terrain_system *sys, rill_entity e, uint32_t cx,
                                    uint32_t cz) {
    terrain_rec *t = NULL;
    terrain_chunk *c = resident_chunk(sys, e, cx, cz, &t);
    if (!c || !c->vertices) {
        return 0;
    }
    rill_free(c->vertices);
    c->vertices = NULL;
    return (size_t)t->comp.resolution * t->comp.resolution * 6u * sizeof(float);
}

bool rill_terrain_chunk_refresh(rill_terrain_system *sys, rill_entity e, uint32_t cx, uint32_t cz) {
    terrain_rec *t = NULL;
    if (!resident_chunk(sys, e, cx, cz, &t)) {
        return false;
    }
    /* Queued at once, so a chunk in the keep band (between the rings) comes back too. */
    uint32_t i = cz * t->comp.chunks_x + cx;
    release_chunk(sys, t, i);
    return queue_build(sys, t, i);
}

const uint8_t *rill_terrain_splat_map(const rill_terrain_system *sys, rill_entity e,
                                      uint32_t *out_width, uint32_t *out_height) {
    const terrain_rec *t = sys ? find_rec(sys, e) : NULL;
    if (out_width) {
        *out_width = t ? t->splat_w : 0;
    }
    if (out_height) {
        *out_height = t ? t->splat_h : 0;
    }
    return t ? t->splat : NULL;
}

/* >>chunk map */

static void fill_rect(uint8_t *rgba, uint32_t w, uint32_t h, int64_t x0, int64_t y0, int64_t x1,
                      int64_t y1, const uint8_t color[4]) {
    x0 = RILL_MAX(x0, 0);
    y0 = RILL_MAX(y0, 0);
    x1 = RILL_MIN(x1, (int64_t)w);
    y1 = RILL_MIN(y1, (int64_t)h);
    for (int64_t y = y0; y < y1; y++) {
        for (int64_t x = x0; x < x1; x++) {
            memcpy(&rgba[((size_t)y * w + (size_t)x) * 4u], color, 4);
        }
    }
}

uint32_t rill_terrain_draw_chunk_map(const rill_terrain_system *sys, const float world_min[2],
                                     const float world_max[2], uint8_t *rgba, uint32_t w,
                                     uint32_t h) {
    if (!sys || !world_min || !world_max || !rgba || w == 0 || h == 0 ||
        !(world_max[0] > world_min[0]) || !(world_max[1] > world_min[1])) {
        return 0;
    }
    /* Pale fills, so what a map draws over them (instances, paths) stays readable. */
    static const uint8_t fill[RILL_TERRAIN_CHUNK_STATE_NUM][4] = {
        {222, 222, 222, 255}, {250, 226, 160, 255}, {196, 228, 196, 255}};
    static const uint8_t edge[RILL_TERRAIN_CHUNK_STATE_NUM][4] = {
        {170, 170, 170, 255}, {200, 160, 60, 255}, {120, 170, 120, 255}};
    double sx = (double)w / (world_max[0] - world_min[0]);
    double sz = (double)h / (world_max[1] - world_min[1]);
    uint32_t drawn = 0;
    for (uint32_t t = 0; t < sys->terrains.len; t++) {
        const terrain_rec *r = sys->terrains.data[t];
        if (!r->chunks) {
            continue;
        }
        for (uint32_t i = 0; i < chunk_count(r); i++) {
            float mn[2], mx[2];
            chunk_rect(r, i, mn, mx);
            /* Image x grows with world x and image y with world z: -Z (forward) is up. */
            int64_t x0 = (int64_t)floor((mn[0] - world_min[0]) * sx);
            int64_t x1 = (int64_t)ceil((mx[0] - world_min[0]) * sx);
            int64_t y0 = (int64_t)floor((mn[1] - world_min[1]) * sz);
            int64_t y1 = (int64_t)ceil((mx[1] - world_min[1]) * sz);
            if (x1 <= 0 || y1 <= 0 || x0 >= (int64_t)w || y0 >= (int64_t)h) {
                continue;
            }
            uint8_t s = r->chunks[i].state;
            if (x1 - x0 >= 3 && y1 - y0 >= 3) {
                fill_rect(rgba, w, h, x0, y0, x1, y1, edge[s]);
                fill_rect(rgba, w, h, x0 + 1, y0 + 1, x1 - 1, y1 - 1, fill[s]);
            } else {
                fill_rect(rgba, w, h, x0, y0, RILL_MAX(x1, x0 + 1), RILL_MAX(y1, y0 + 1), fill[s]);
            }
            drawn++;
        }
    }
    return drawn;
}
