/* gi_voxel.c: the CPU side of the voxel radiance clipmap (layout in gi_voxel.h). Once a frame:
 *   track     the snapshot's instances whose meshes keep a CPU copy of their triangles (their
 *             own, or the voxel copy of a glTF model primitive, terrain chunk or HLOD proxy,
 *             gi_voxel_source.c) are resident, and the members a static batch's ranges draw
 *             (each from its own mesh's copy, keyed by the batch's id and its place there),
 *             keyed by instance id; one that appears, changes (mesh, material or transform) or
 *             leaves (despawned, streamed out) marks the bricks its old and new bounds touch in
 *             every cascade dirty, so its voxels come and go with it. One that only moves (a
 *             car, a door) leaves the clipmap until it has stood still for
 *             RILL__VOX_STILL_FRAMES frames: re-voxelizing its bricks every frame would clear
 *             them faster than a budgeted brick refills, starving everything near it.
 *   scroll    each cascade's region follows the camera in whole bricks; only the bricks that
 *             enter are dirty (toroidal addressing: what stays inside is not voxelized again).
 *   voxelize  dirty bricks, finest cascade first, share the frame's budget of work units (one
 *             triangle or one instance examined = 1); each brick job (rill_jobs_for over the
 *             renderer's jobs) clears its brick on first touch, walks the resident instances
 *             overlapping it from where it stopped and stops when its share is spent, so a brick
 *             may take several frames; a finished brick is uploaded by gi_voxel_gpu.c. Which
 *             instances overlap which of the frame's bricks is found first, in one pass over the
 *             instances (each one's brick range per cascade), so a brick's share goes to the
 *             instances it holds, not to examining every resident one (the demo city has ~10,000).
 */
#include "gi_voxel.h"

#include <math.h>
#include <string.h>

#define VOX_JOBS_MAX 64u /* bricks a frame works on at most (one cascade's worth) */

static rill_map *ids_of(rill__vox *vx);

/* >>lifetime --------------------------------------------------------------------------------- */

/* The id -> slot map lives after the struct (gi_voxel.h keeps rill__vox free of it). */
typedef struct vox_box {
    rill__vox vx;
    rill_map ids;
} vox_box;

static rill_map *ids_of(rill__vox *vx) {
    return &((vox_box *)vx)->ids;
}

rill__vox *rill__vox_get(rill_renderer *r) {
    if (r->vox) {
        return r->vox;
    }
    vox_box *b = rill_calloc_tagged(1, sizeof(*b), RILL_MEM_RENDER);
    if (!b) {
        return NULL;
    }
    rill__vox *vx = &b->vx;
    size_t words = (size_t)RILL__VOX_RES * RILL__VOX_RES * RILL__VOX_RES * 2;
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        vx->cascades[c].voxels = rill_calloc_tagged(words, sizeof(uint32_t), RILL_MEM_RENDER);
        if (!vx->cascades[c].voxels) {
            r->vox = vx;
            rill__vox_destroy(r);
            return NULL;
        }
    }
    vx->budget = r->desc.gi_voxel_budget ? r->desc.gi_voxel_budget : RILL__VOX_DEFAULT_BUDGET;
    r->vox = vx;
    return vx;
}

void rill__vox_destroy(rill_renderer *r) {
    rill__vox *vx = r->vox;
    if (!vx) {
        return;
    }
    rill__vox_gpu_destroy(r, vx);
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        rill_free(vx->cascades[c].voxels);
    }
    rill_array_free(&vx->insts);
    rill_array_free(&vx->near);
    rill_map_free(ids_of(vx));
    rill_free(vx);
    r->vox = NULL;
}

const uint32_t *rill__vox_at(const rill__vox *vx, uint32_t c, const float p[3]) {
    const rill__vox_cascade *cc = &vx->cascades[c];
    int32_t t[3];
    for (int k = 0; k < 3; k++) {
        float f = floorf(p[k] / rill__vox_size(c));
        if (!(f >= (float)cc->origin[k] && f < (float)(cc->origin[k] + RILL__VOX_RES))) {
            return NULL;
        }
        int32_t v = (int32_t)f;
        t[k] = ((v % RILL__VOX_RES) + RILL__VOX_RES) % RILL__VOX_RES;
    }
    return &cc->voxels[2 * (size_t)rill__vox_index(t)];
}

/* >>dirty bricks ----------------------------------------------------------------------------- */

static int32_t floor_div(int32_t a, int32_t b) {
    int32_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int32_t wrap(int32_t a, int32_t n) {
    return ((a % n) + n) % n;
}

static void brick_dirty(rill__vox_brick *b) {
    b->dirty = true;
    b->started = false;
}

/* The world bricks b0..b1 (inclusive, each axis) of cascade c's region that world box [mn, mx]
 * touches, one voxel more; false when it touches none (or the cascade is not placed). */
static bool brick_range(const rill__vox *vx, uint32_t c, const float mn[3], const float mx[3],
                        int32_t b0[3], int32_t b1[3]) {
    const rill__vox_cascade *cc = &vx->cascades[c];
    if (!cc->placed) {
        return false;
    }
    float s = rill__vox_size(c);
    for (int k = 0; k < 3; k++) {
        float lo = floorf(mn[k] / s) - 1.0f, hi = floorf(mx[k] / s) + 1.0f;
        float r0 = (float)cc->origin[k], r1 = (float)(cc->origin[k] + RILL__VOX_RES - 1);
        if (!(hi >= r0 && lo <= r1)) {
            return false;
        }
        int32_t v0 = (int32_t)(lo > r0 ? lo : r0), v1 = (int32_t)(hi < r1 ? hi : r1);
        b0[k] = floor_div(v0, RILL__VOX_BRICK);
        b1[k] = floor_div(v1, RILL__VOX_BRICK);
    }
    return true;
}

/* The texel brick (index in a cascade's bricks) holding world brick (x, y, z). */
static uint32_t brick_at(int32_t x, int32_t y, int32_t z) {
    return (uint32_t)(wrap(x, RILL__VOX_BRICKS_SIDE) +
                      RILL__VOX_BRICKS_SIDE *
                          (wrap(y, RILL__VOX_BRICKS_SIDE) +
                           RILL__VOX_BRICKS_SIDE * wrap(z, RILL__VOX_BRICKS_SIDE)));
}

/* Marks the bricks of every cascade that world box [mn, mx] touches (one voxel more) dirty. */
static void dirty_box(rill__vox *vx, const float mn[3], const float mx[3]) {
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        int32_t b0[3], b1[3];
        if (!brick_range(vx, c, mn, mx, b0, b1)) {
            continue;
        }
        for (int32_t z = b0[2]; z <= b1[2]; z++) {
            for (int32_t y = b0[1]; y <= b1[1]; y++) {
                for (int32_t x = b0[0]; x <= b1[0]; x++) {
                    brick_dirty(&vx->cascades[c].bricks[brick_at(x, y, z)]);
                }
            }
        }
    }
}

/* >>tracking --------------------------------------------------------------------------------- */

static void world_box(const float m[16], const float bmin[3], const float bmax[3], float out_mn[3],
                      float out_mx[3]) {
    for (int k = 0; k < 3; k++) {
        float c = m[12 + k], e = 0.0f;
        for (int j = 0; j < 3; j++) {
            float mid = 0.5f * (bmin[j] + bmax[j]), half = 0.5f * (bmax[j] - bmin[j]);
            c += m[4 * j + k] * mid;
            e += fabsf(m[4 * j + k]) * half;
        }
        out_mn[k] = c - e;
        out_mx[k] = c + e;
    }
}

/* Fills what inst voxelizes of mesh drawn with material at transform as instance id; false when
 * it cannot be voxelized (no CPU triangles, bounds not finite). */
static bool describe_mesh(rill_renderer *r, uint64_t id, rill_mesh mesh, rill_material material,
                          const float transform[16], rill__vox_inst *inst) {
    const mesh_slot *m = rill__mesh_get(r, mesh);
    if (!m) {
        return false;
    }
    memset(inst, 0, sizeof(*inst));
    if (m->vox.tri_count) { /* a model primitive, terrain chunk, proxy: its voxel copy */
        inst->positions = m->vox.positions;
        inst->indices = m->vox.indices;
        inst->tri_count = m->vox.tri_count;
    } else if (m->cpu_positions && m->cpu_indices && m->index_count >= 3 &&
               m->max_index < m->cpu_vertex_count) {
        inst->positions = m->cpu_positions;
        inst->indices = m->cpu_indices;
        inst->tri_count = m->index_count / 3;
    } else {
        return false;
    }
    inst->id = id;
    inst->mesh = mesh;
    inst->material = material;
    memcpy(inst->transform, transform, sizeof(inst->transform));
    const mat_slot *mat = rill__material_get(r, material);
    float tint[3] = {1.0f, 1.0f, 1.0f}; /* the base-colour texture's mean colour */
    if (mat) {
        rill__texture_gi_tint(r, mat->gi_texture, tint);
    }
    for (int k = 0; k < 3; k++) {
        inst->albedo[k] = mat ? mat->gi_albedo[k] * tint[k] : 0.8f;
        inst->emissive[k] = mat ? mat->gi_emissive[k] : 0.0f;
    }
    world_box(transform, m->box_min, m->box_max, inst->box_min, inst->box_max);
    for (int k = 0; k < 3; k++) {
        if (!isfinite(inst->box_min[k]) || !isfinite(inst->box_max[k])) {
            return false;
        }
    }
    return true;
}

/* Whether instance in is voxelized at all: ghosts, wireframes and outgoing LOD levels are not. */
static bool solid(const rill_render_instance *in) {
    return in->id != 0 && in->mode == 0 && in->lod_fade >= 0.0f;
}

static bool same_inst(const rill__vox_inst *a, const rill__vox_inst *b) {
    return a->mesh.id == b->mesh.id && a->material.id == b->material.id &&
           memcmp(a->transform, b->transform, sizeof(a->transform)) == 0 &&
           memcmp(a->albedo, b->albedo, sizeof(a->albedo)) == 0 &&
           memcmp(a->emissive, b->emissive, sizeof(a->emissive)) == 0;
}

static void drop_slot(rill__vox *vx, uint32_t slot) {
    rill__vox_inst *old = &vx->insts.data[slot];
    if (!old->out) {
        dirty_box(vx, old->box_min, old->box_max);
    }
    rill_map_remove(ids_of(vx), old->id);
    memset(old, 0, sizeof(*old));
    vx->live--;
}

/* A free slot (a dead one, else a new one), or UINT32_MAX when out of memory. */
static uint32_t free_slot(rill__vox *vx) {
    if (vx->live < vx->insts.len) {
        for (uint32_t i = 0; i < vx->insts.len; i++) {
            if (vx->insts.data[i].id == 0) {
                return i;
            }
        }
    }
    rill__vox_inst blank = {0};
    return rill_array_push(&vx->insts, blank) ? vx->insts.len - 1 : UINT32_MAX;
}

/* Tracks one voxelized instance (or static batch member) as described this frame. */
static void track_one(rill__vox *vx, rill__vox_inst *now) {
    rill_map *ids = ids_of(vx);
    now->seen = vx->frame;
    uint64_t slot;
    if (rill_map_get(ids, now->id, &slot)) {
        rill__vox_inst *was = &vx->insts.data[slot];
        if (was->seen == vx->frame) {
            return; /* the id twice in one snapshot: the first wins */
        }
        if (!same_inst(was, now)) {
            /* only its transform changed: it moves, and stays out while it does */
            bool moving = was->mesh.id == now->mesh.id && was->material.id == now->material.id &&
                          memcmp(was->albedo, now->albedo, sizeof(now->albedo)) == 0 &&
                          memcmp(was->emissive, now->emissive, sizeof(now->emissive)) == 0;
            if (!was->out) {
                dirty_box(vx, was->box_min, was->box_max);
            }
            now->out = moving;
            now->moved = vx->frame;
            if (!moving) {
                dirty_box(vx, now->box_min, now->box_max);
            }
            *was = *now;
        } else {
            was->seen = vx->frame;
            was->positions = now->positions; /* the same mesh: the same copy */
            was->indices = now->indices;
            if (was->out && vx->frame - was->moved >= RILL__VOX_STILL_FRAMES) {
                was->out = false; /* still long enough: it voxelizes where it stands */
                dirty_box(vx, was->box_min, was->box_max);
            }
        }
        return;
    }
    uint32_t s = free_slot(vx);
    if (s == UINT32_MAX || !rill_map_set(ids, now->id, s)) {
        return; /* out of memory: this one stays out of the clipmap */
    }
    vx->insts.data[s] = *now;
    vx->live++;
    dirty_box(vx, now->box_min, now->box_max);
}

static void mat_mul(const float a[16], const float b[16], float out[16]) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            float v = 0.0f;
            for (int k = 0; k < 4; k++) {
                v += a[k * 4 + r] * b[c * 4 + k];
            }
            out[c * 4 + r] = v;
        }
    }
}

/* The first of parts[0, n) (by first_index) at or after index i. */
static uint32_t first_part_at(const rill__vox_part *parts, uint32_t n, uint32_t i) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (parts[mid].first_index < i) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* A static batch (an instance drawing ranges of a merged mesh): each member wholly inside one of
 * its ranges is tracked as an instance of its own mesh (its voxel copy), keyed by the batch's
 * id and its place in the batch, so members switched off (hidden LOD levels) have no voxels. */
static void track_ranged(rill_renderer *r, rill__vox *vx, const rill_render_snapshot *snap,
                         const rill_render_instance *in) {
    const mesh_slot *bm = rill__mesh_get(r, in->mesh);
    if (!bm || !bm->vox.part_count || !snap->ranges || in->range_first > snap->range_count ||
        in->range_count > snap->range_count - in->range_first) {
        return;
    }
    const rill__vox_part *parts = bm->vox.parts;
    uint32_t n = bm->vox.part_count;
    for (uint32_t k = 0; k < in->range_count; k++) {
        const rill_render_range *rg = &snap->ranges[in->range_first + k];
        uint64_t end = (uint64_t)rg->first_index + rg->index_count;
        for (uint32_t p = first_part_at(parts, n, rg->first_index);
             p < n && parts[p].first_index < end; p++) {
            if ((uint64_t)parts[p].first_index + parts[p].index_count > end) {
                break; /* not wholly inside: not drawn as it is */
            }
            uint64_t key[2] = {in->id, p};
            float t[16];
            mat_mul(in->transform, parts[p].local, t);
            rill__vox_inst now;
            if (describe_mesh(r, rill_hash64(key, sizeof(key)) | 1u, parts[p].mesh, in->material, t,
                              &now)) {
                track_one(vx, &now);
            }
        }
    }
}

static void track(rill_renderer *r, rill__vox *vx, const rill_render_snapshot *snap) {
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const rill_render_instance *in = &snap->instances[i];
        rill__vox_inst now;
        if (!solid(in)) {
            continue;
        }
        if (in->range_count) {
            track_ranged(r, vx, snap, in);
        } else if (describe_mesh(r, in->id, in->mesh, in->material, in->transform, &now)) {
            track_one(vx, &now);
        }
    }
    for (uint32_t s = 0; s < vx->insts.len; s++) {
        if (vx->insts.data[s].id != 0 && vx->insts.data[s].seen != vx->frame) {
            drop_slot(vx, s); /* despawned or streamed out: its voxels leave */
        }
    }
}

/* >>scrolling -------------------------------------------------------------------------------- */

/* The region's low corner for a camera at cam: the brick-aligned 64-voxel cube nearest to
 * centring it. */
static void region_for(uint32_t c, const float cam[3], int32_t out[3]) {
    float s = rill__vox_size(c);
    for (int k = 0; k < 3; k++) {
        float f = floorf(cam[k] / s / (float)RILL__VOX_BRICK + 0.5f);
        f = f > 1e8f ? 1e8f : (f < -1e8f ? -1e8f : (f == f ? f : 0.0f));
        out[k] = ((int32_t)f - RILL__VOX_BRICKS_SIDE / 2) * RILL__VOX_BRICK;
    }
}

static void scroll(rill__vox *vx, const float cam[3]) {
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        rill__vox_cascade *cc = &vx->cascades[c];
        int32_t o[3];
        region_for(c, cam, o);
        if (cc->placed && memcmp(o, cc->origin, sizeof(o)) == 0) {
            continue;
        }
        /* A brick enters when its world brick was outside the old region on some axis. */
        for (int32_t z = 0; z < RILL__VOX_BRICKS_SIDE; z++) {
            for (int32_t y = 0; y < RILL__VOX_BRICKS_SIDE; y++) {
                for (int32_t x = 0; x < RILL__VOX_BRICKS_SIDE; x++) {
                    int32_t wb[3] = {o[0] / RILL__VOX_BRICK + x, o[1] / RILL__VOX_BRICK + y,
                                     o[2] / RILL__VOX_BRICK + z};
                    bool inside = cc->placed;
                    for (int k = 0; k < 3 && inside; k++) {
                        int32_t ob = cc->origin[k] / RILL__VOX_BRICK;
                        inside = wb[k] >= ob && wb[k] < ob + RILL__VOX_BRICKS_SIDE;
                    }
                    if (!inside) {
                        uint32_t i = (uint32_t)(wrap(wb[0], RILL__VOX_BRICKS_SIDE) +
                                                RILL__VOX_BRICKS_SIDE *
                                                    (wrap(wb[1], RILL__VOX_BRICKS_SIDE) +
                                                     RILL__VOX_BRICKS_SIDE *
                                                         wrap(wb[2], RILL__VOX_BRICKS_SIDE)));
                        brick_dirty(&cc->bricks[i]);
                    }
                }
            }
        }
        memcpy(cc->origin, o, sizeof(o));
        cc->placed = true;
        cc->inject = true;
    }
}

/* >>voxelizing ------------------------------------------------------------------------------- */

typedef struct brick_job {
    rill__vox *vx;
    uint32_t cascade, brick;
    uint32_t allot; /* work units it may spend */
    uint64_t used;  /* spent */
    int32_t added;  /* voxels occupied minus voxels cleared */
    bool finished;
} brick_job;

typedef struct vox_frame {
    brick_job jobs[VOX_JOBS_MAX];
    uint32_t count;
    /* job j's overlapping instance slots, in slot order: near[first[j] .. first[j + 1]) */
    const uint32_t *near;
    uint32_t first[VOX_JOBS_MAX + 1];
    int8_t job_of[RILL__VOX_CASCADES][RILL__VOX_BRICKS]; /* -1: not worked on this frame */
} vox_frame;

/* The world voxel of texel brick i's low corner in cascade cc. */
static void brick_origin(const rill__vox_cascade *cc, uint32_t i, int32_t lo[3]) {
    int32_t tb[3] = {(int32_t)(i % RILL__VOX_BRICKS_SIDE),
                     (int32_t)(i / RILL__VOX_BRICKS_SIDE % RILL__VOX_BRICKS_SIDE),
                     (int32_t)(i / (RILL__VOX_BRICKS_SIDE * RILL__VOX_BRICKS_SIDE))};
    for (int k = 0; k < 3; k++) {
        int32_t ob = cc->origin[k] / RILL__VOX_BRICK;
        int32_t wb = ob + wrap(tb[k] - ob, RILL__VOX_BRICKS_SIDE);
        lo[k] = wb * RILL__VOX_BRICK;
    }
}

static void run_brick(brick_job *j, const uint32_t *near, uint32_t near_count) {
    rill__vox *vx = j->vx;
    rill__vox_cascade *cc = &vx->cascades[j->cascade];
    rill__vox_brick *b = &cc->bricks[j->brick];
    uint32_t *words = &cc->voxels[(size_t)j->brick * RILL__VOX_BRICK_VOXELS * 2];
    if (!b->started) {
        for (uint32_t v = 0; v < RILL__VOX_BRICK_VOXELS; v++) {
            j->added -= (words[2 * v] >> 24) != 0 ? 1 : 0;
        }
        memset(words, 0, sizeof(uint32_t) * 2 * RILL__VOX_BRICK_VOXELS);
        b->started = true;
        b->next_inst = b->next_tri = 0;
        b->upload = true;
    }
    float s = rill__vox_size(j->cascade);
    int32_t lo[3];
    brick_origin(cc, j->brick, lo);
    float bmin[3], bmax[3];
    for (int k = 0; k < 3; k++) {
        bmin[k] = (float)lo[k] * s;
        bmax[k] = (float)(lo[k] + RILL__VOX_BRICK) * s;
    }
    uint32_t n = 0; /* the first overlapping slot at or after the cursor */
    while (n < near_count && near[n] < b->next_inst) {
        n++;
    }
    for (; n < near_count; n++) {
        if (j->used >= j->allot) {
            return; /* its share is spent: the cursor stays for the next frame */
        }
        b->next_inst = near[n];
        const rill__vox_inst *in = &vx->insts.data[b->next_inst];
        if (b->next_tri == 0) {
            j->used++; /* the instance's bounds examined */
            bool touch = in->id != 0 && !in->out;
            for (int k = 0; k < 3 && touch; k++) {
                touch = in->box_max[k] >= bmin[k] && in->box_min[k] <= bmax[k];
            }
            if (!touch) {
                continue;
            }
        }
        uint64_t left = j->allot > j->used ? j->allot - j->used : 0;
        uint32_t count = (uint32_t)(left < in->tri_count ? left : in->tri_count);
        if (count == 0) {
            return;
        }
        j->added += (int32_t)rill__vox_raster(in, lo, s, words, b->next_tri, &count);
        j->used += count;
        b->next_tri += count;
        if (b->next_tri < in->tri_count) {
            return; /* its share is spent inside this instance */
        }
        b->next_tri = 0;
    }
    b->next_inst = vx->insts.len;
    j->finished = true;
}

static void run_range(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    vox_frame *f = arg;
    for (uint32_t i = begin; i < end; i++) {
        uint32_t n = f->first[i + 1] - f->first[i];
        run_brick(&f->jobs[i], n ? f->near + f->first[i] : NULL, n);
    }
}

/* Picks this frame's bricks (finest cascade first, bricks in progress before fresh ones) and
 * shares the budget among them. */
static void plan_bricks(rill__vox *vx, vox_frame *f) {
    f->count = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t c = 0; c < RILL__VOX_CASCADES && f->count < VOX_JOBS_MAX; c++) {
            for (uint32_t i = 0; i < RILL__VOX_BRICKS && f->count < VOX_JOBS_MAX; i++) {
                const rill__vox_brick *b = &vx->cascades[c].bricks[i];
                if (b->dirty && b->started == (pass == 0)) {
                    f->jobs[f->count++] = (brick_job){.vx = vx, .cascade = c, .brick = i};
                }
            }
        }
    }
    for (uint32_t i = 0; i < f->count; i++) {
        f->jobs[i].allot = vx->budget / f->count + (i < vx->budget % f->count ? 1u : 0u);
    }
}

/* One pass over the resident instances: how many of them each of the frame's bricks may hold
 * (fill false) or, fill true, their slots into near (in slot order, as the cursors need). */
static void near_pass(rill__vox *vx, vox_frame *f, uint32_t *at, bool fill) {
    for (uint32_t s = 0; s < vx->insts.len; s++) {
        const rill__vox_inst *in = &vx->insts.data[s];
        if (in->id == 0 || in->out) {
            continue;
        }
        for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
            int32_t b0[3], b1[3];
            if (!brick_range(vx, c, in->box_min, in->box_max, b0, b1)) {
                continue;
            }
            for (int32_t z = b0[2]; z <= b1[2]; z++) {
                for (int32_t y = b0[1]; y <= b1[1]; y++) {
                    for (int32_t x = b0[0]; x <= b1[0]; x++) {
                        int32_t j = f->job_of[c][brick_at(x, y, z)];
                        if (j >= 0 && fill) {
                            vx->near.data[at[j]++] = s;
                        } else if (j >= 0) {
                            at[j]++;
                        }
                    }
                }
            }
        }
    }
}

/* Which instances overlap which of the frame's bricks (f->near, f->first). False when out of
 * memory (no brick is worked on this frame). */
static bool gather_near(rill__vox *vx, vox_frame *f) {
    memset(f->job_of, -1, sizeof(f->job_of));
    for (uint32_t i = 0; i < f->count; i++) {
        f->job_of[f->jobs[i].cascade][f->jobs[i].brick] = (int8_t)i;
    }
    uint32_t at[VOX_JOBS_MAX] = {0};
    near_pass(vx, f, at, false);
    f->first[0] = 0;
    for (uint32_t i = 0; i < f->count; i++) {
        f->first[i + 1] = f->first[i] + at[i];
        at[i] = f->first[i];
    }
    vx->near.len = 0;
    f->near = NULL;
    if (f->first[f->count] == 0) {
        return true; /* no instance near any of them: they finish empty */
    }
    if (!rill_array_push_n(&vx->near, f->first[f->count])) {
        return false;
    }
    near_pass(vx, f, at, true);
    f->near = vx->near.data;
    return true;
}

void rill__vox_update(rill_renderer *r, rill__vox *vx, const rill_render_snapshot *snap,
                      const float cam[3]) {
    if (vx->frame == r->frame_counter) {
        return;
    }
    uint64_t t0 = rill_time_ns();
    vx->frame = r->frame_counter;
    scroll(vx, cam);
    track(r, vx, snap);
    vox_frame f;
    plan_bricks(vx, &f);
    if (f.count && !gather_near(vx, &f)) {
        f.count = 0; /* out of memory: nothing voxelized this frame */
    }
    if (f.count) {
        rill_jobs_for(r->desc.jobs, f.count, 1, run_range, &f);
    }
    vx->units = 0;
    vx->bricks_done = 0;
    for (uint32_t i = 0; i < f.count; i++) {
        brick_job *j = &f.jobs[i];
        rill__vox_cascade *cc = &vx->cascades[j->cascade];
        vx->units += j->used;
        cc->filled = (uint32_t)((int64_t)cc->filled + j->added);
        if (j->finished) {
            cc->bricks[j->brick].dirty = false;
            cc->bricks[j->brick].started = false;
            vx->bricks_done++;
        }
    }
    vx->ms = (double)(rill_time_ns() - t0) / 1e6;
}
