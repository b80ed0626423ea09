/* raycast.c: a ray against the terrain surface (rill_terrain_raycast). The ray walks the height
 * field's cells in the order it crosses them (a 2D digital differential analyser over the XZ grid,
 * clipped to the terrain's rectangle) and tests each cell's two triangles exactly, split as the
 * mesh, the collider and rill_terrain_height_at split them; the first cell with a hit holds the
 * nearest one, so the walk stops there. The heights are always held, so chunks that are not
 * resident can be hit too; resident_only skips their cells (picking what is drawn). */
#include "terrain_internal.h"

#include <math.h>
#include <string.h>

/* The ray's walk over one terrain's cells: the current cell, the distances at which the ray
 * crosses the next x and z cell boundaries, and how far one cell is along each axis. */
typedef struct cell_walk {
    int64_t ix, iz, step_x, step_z;
    float next_x, next_z, delta_x, delta_z;
} cell_walk;

/* The ray's span [*t0, *t1] inside [lo, hi] on one axis; false when it misses the slab. */
static bool clip_axis(float o, float d, float lo, float hi, float *t0, float *t1) {
    if (d == 0.0f) {
        return o >= lo && o <= hi;
    }
    float a = (lo - o) / d, b = (hi - o) / d;
    *t0 = fmaxf(*t0, fminf(a, b));
    *t1 = fminf(*t1, fmaxf(a, b));
    return *t0 <= *t1;
}

static void walk_axis(float o, float d, float origin, float sp, float t, int64_t cells,
                      int64_t *cell, int64_t *step, float *next, float *delta) {
    float p = (o + d * t - origin) / sp;
    *cell = RILL_CLAMP((int64_t)floorf(p), 0, cells - 1);
    *step = d > 0.0f ? 1 : d < 0.0f ? -1 : 0;
    *delta = d != 0.0f ? sp / fabsf(d) : INFINITY;
    if (d > 0.0f) {
        *next = (origin + (float)(*cell + 1) * sp - o) / d;
    } else if (d < 0.0f) {
        *next = (origin + (float)*cell * sp - o) / d;
    } else {
        *next = INFINITY;
    }
}

/* The nearer hit of cell (ix, iz)'s two triangles, with the upward unit normal of the one hit. */
static bool cell_hit(const terrain_rec *t, float sp, int64_t ix, int64_t iz, const float o[3],
                     const float d[3], float *out_t, float out_n[3]) {
    const float *row = &t->heights[(size_t)iz * t->samples_x + (size_t)ix];
    float x0 = t->origin[0] + (float)ix * sp, z0 = t->origin[2] + (float)iz * sp;
    float y = t->origin[1];
    float v00[3] = {x0, y + row[0], z0}, v10[3] = {x0 + sp, y + row[1], z0};
    float v01[3] = {x0, y + row[t->samples_x], z0 + sp};
    float v11[3] = {x0 + sp, y + row[t->samples_x + 1], z0 + sp};
    const float *tris[2][3] = {{v00, v01, v10}, {v10, v01, v11}};
    bool hit = false;
    for (int k = 0; k < 2; k++) {
        float th;
        if (!rill_ray_triangle(o, d, tris[k][0], tris[k][1], tris[k][2], &th) ||
            (hit && th >= *out_t)) {
            continue;
        }
        hit = true;
        *out_t = th;
        /* The plane through the triangle as y = h(x, z): slopes from its two edges on the grid. */
        float dhdx = k == 0 ? (v10[1] - v00[1]) / sp : (v11[1] - v01[1]) / sp;
        float dhdz = k == 0 ? (v01[1] - v00[1]) / sp : (v11[1] - v10[1]) / sp;
        float len = sqrtf(dhdx * dhdx + 1.0f + dhdz * dhdz);
        out_n[0] = -dhdx / len;
        out_n[1] = 1.0f / len;
        out_n[2] = -dhdz / len;
    }
    return hit;
}

/* Whether cell (ix, iz) belongs to a resident chunk. */
static bool cell_resident(const terrain_rec *t, int64_t ix, int64_t iz) {
    uint32_t per = t->comp.resolution - 1u;
    uint32_t cx = (uint32_t)ix / per, cz = (uint32_t)iz / per;
    return t->chunks && cx < t->comp.chunks_x && cz < t->comp.chunks_z &&
           t->chunks[cz * t->comp.chunks_x + cx].state == RILL_TERRAIN_CHUNK_RESIDENT;
}

/* The nearest hit on terrain t within *best (updated, with out_n); d is unit length. */
static bool cast_one(const terrain_rec *t, const float o[3], const float d[3], bool resident_only,
                     float *best, float out_n[3]) {
    if (t->status != RILL_TERRAIN_STATUS_READY || !t->heights || t->samples_x < 2 ||
        t->samples_z < 2) {
        return false;
    }
    float sp = t->comp.chunk_size / (float)(t->comp.resolution - 1);
    float t0 = 0.0f, t1 = *best;
    if (!clip_axis(o[0], d[0], t->origin[0], t->origin[0] + (float)(t->samples_x - 1) * sp, &t0,
                   &t1) ||
        !clip_axis(o[2], d[2], t->origin[2], t->origin[2] + (float)(t->samples_z - 1) * sp, &t0,
                   &t1)) {
        return false;
    }
    cell_walk w;
    walk_axis(o[0], d[0], t->origin[0], sp, t0, (int64_t)t->samples_x - 1, &w.ix, &w.step_x,
              &w.next_x, &w.delta_x);
    walk_axis(o[2], d[2], t->origin[2], sp, t0, (int64_t)t->samples_z - 1, &w.iz, &w.step_z,
              &w.next_z, &w.delta_z);
    /* Each step enters a new cell across x or z: at most the grid's width plus its depth. */
    uint64_t steps = (uint64_t)t->samples_x + t->samples_z;
    for (uint64_t s = 0; s <= steps; s++) {
        float th = 0.0f, n[3];
        if ((!resident_only || cell_resident(t, w.ix, w.iz)) &&
            cell_hit(t, sp, w.ix, w.iz, o, d, &th, n) && th <= *best) {
            *best = th;
            memcpy(out_n, n, sizeof n);
            return true;
        }
        float enter = fminf(w.next_x, w.next_z);
        if (!(enter <= t1) || isinf(enter)) {
            return false;
        }
        if (w.next_x < w.next_z) {
            w.ix += w.step_x;
            w.next_x += w.delta_x;
        } else {
            w.iz += w.step_z;
            w.next_z += w.delta_z;
        }
        if (w.ix < 0 || w.iz < 0 || w.ix >= (int64_t)t->samples_x - 1 ||
            w.iz >= (int64_t)t->samples_z - 1) {
            return false;
        }
    }
    return false;
}

bool rill_terrain_raycast(const rill_terrain_system *sys, rill_entity e, const float origin[3],
                          const float dir[3], float max_distance, bool resident_only,
                          float *out_distance, float out_normal[3]) {
    if (!sys || !origin || !dir || !out_distance) {
        return false;
    }
    float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    if (!(len > 1e-20f) || !isfinite(len) || !isfinite(origin[0] + origin[1] + origin[2])) {
        return false;
    }
    float d[3] = {dir[0] / len, dir[1] / len, dir[2] / len}, n[3] = {0.0f, 1.0f, 0.0f};
    float best = max_distance > 0.0f ? max_distance : INFINITY;
    bool hit = false;
    for (uint32_t i = 0; i < sys->terrains.len; i++) {
        const terrain_rec *t = sys->terrains.data[i];
        if (e == RILL_ENTITY_NULL || t->entity == e) {
            hit |= cast_one(t, origin, d, resident_only, &best, n);
        }
    }
    if (hit) {
        *out_distance = best;
        if (out_normal) {
            memcpy(out_normal, n, sizeof n);
        }
    }
    return hit;
}
