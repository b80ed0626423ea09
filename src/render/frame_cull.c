/* frame_cull.c: one view's draw lists. Instances are culled against the view frustum (and, for
 * the sun's shadows, against the volume the cascades can receive from), sorted into the opaque,
 * transparent, shadow caster and wireframe lists (opaque by pipeline/material/mesh so equal
 * neighbours become one instanced draw, transparent back to front), and each instance's world
 * matrix is kept for next frame's motion vectors (written only when it changes). Most instances
 * of an open world are culled, so the per-instance path is short: one read of the snapshot, the
 * bounding sphere into flat arrays, vectorized frustum and shadow tests, the motion key. */
#include "frame.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

/* fmaxf without the library call: a NaN argument loses to a number, as in fmaxf. Written as a
 * plain maximum (one instruction on most targets) and a NaN select, not with ||, which compilers
 * turn into branches. */
static inline float max_num(float a, float b) {
    float m = a > b ? a : b;
    return b != b ? a : m;
}

/* The world sphere of a mesh-space sphere (center, radius) under matrix m. */
static rill__sphere world_sphere(const float m[16], const float center[3], float radius) {
    rill__sphere s;
    for (int k = 0; k < 3; k++) {
        s.c[k] = m[k] * center[0] + m[4 + k] * center[1] + m[8 + k] * center[2] + m[12 + k];
    }
    /* sqrtf is correctly rounded and monotonic, so the root of the largest squared axis length
     * equals the largest of the three roots: one square root instead of three, same bits. */
    float sx = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    float sy = m[4] * m[4] + m[5] * m[5] + m[6] * m[6];
    float sz = m[8] * m[8] + m[9] * m[9] + m[10] * m[10];
    s.r = radius * sqrtf(max_num(sx, max_num(sy, sz)));
    return s;
}

/* >>sorting --------------------------------------------------------------------------------- */

/* Bits of the keys that are not the same in every key, gathered into a dense number: a key
 * keeps its order among the others when the bits that every key shares are dropped. Contiguous
 * runs of varying bits move as one shift and mask. */
typedef struct key_pack {
    uint32_t count, bits;
    uint8_t shift[64], dest[64];
    uint64_t mask[64];
} key_pack;

static void key_pack_init(key_pack *kp, uint64_t varying) {
    kp->count = kp->bits = 0;
    while (varying) {
        uint32_t shift = (uint32_t)__builtin_ctzll(varying);
        uint64_t rest = varying >> shift;
        uint32_t len = rest == ~0ull ? 64u - shift : (uint32_t)__builtin_ctzll(~rest);
        uint64_t mask = len >= 64 ? ~0ull : (1ull << len) - 1ull;
        kp->shift[kp->count] = (uint8_t)shift;
        kp->dest[kp->count] = (uint8_t)kp->bits;
        kp->mask[kp->count] = mask;
        kp->count++;
        kp->bits += len;
        varying &= ~(mask << shift);
    }
}

static inline uint64_t key_pack_apply(const key_pack *kp, uint64_t key) {
    /* Draw keys have a few runs (mesh, material, double-sided): unrolled for up to three. */
    switch (kp->count) {
    case 1:
        return (key >> kp->shift[0]) & kp->mask[0];
    case 2:
        return ((key >> kp->shift[0]) & kp->mask[0]) |
               (((key >> kp->shift[1]) & kp->mask[1]) << kp->dest[1]);
    case 3:
        return ((key >> kp->shift[0]) & kp->mask[0]) |
               (((key >> kp->shift[1]) & kp->mask[1]) << kp->dest[1]) |
               (((key >> kp->shift[2]) & kp->mask[2]) << kp->dest[2]);
    default:
        break;
    }
    uint64_t out = 0;
    for (uint32_t k = 0; k < kp->count; k++) {
        out |= ((key >> kp->shift[k]) & kp->mask[k]) << kp->dest[k];
    }
    return out;
}

/* Stable LSD radix sort on the low key_bits of the keys, 11 bits a pass. Items are pushed in
 * instance order, so equal keys stay in instance order and the result is deterministic. Only the
 * bits that differ between keys are sorted on: the keys are first rewritten to those bits alone
 * (see key_pack; order and equality between keys stay as they were, which is all draw_list needs
 * of them), so a scene whose meshes and materials occupy a few pool slots sorts its opaque list in
 * one pass, whatever key_bits says. Returns the buffer holding the result: items or tmp. */
static draw_item *radix_sort(draw_item *items, draw_item *tmp, uint32_t n, uint32_t key_bits) {
    if (n < 2) {
        return items;
    }
    uint64_t all_or = 0, all_and = ~0ull;
    for (uint32_t i = 0; i < n; i++) {
        all_or |= items[i].key;
        all_and &= items[i].key;
    }
    uint64_t used = key_bits >= 64 ? ~0ull : (1ull << key_bits) - 1ull;
    key_pack kp;
    key_pack_init(&kp, (all_or ^ all_and) & used);
    bool repack = kp.count > 1 || (kp.count == 1 && kp.shift[0] != 0) || (all_and & used) != 0;
    uint32_t count[2048];
    draw_item *src = items, *dst = tmp;
    for (uint32_t shift = 0; shift < kp.bits; shift += 11) {
        uint32_t buckets = 1u << RILL_MIN(kp.bits - shift, 11u);
        memset(count, 0, buckets * sizeof(uint32_t));
        if (shift == 0 && repack) {
            /* The first pass rewrites the keys while it counts. */
            for (uint32_t i = 0; i < n; i++) {
                uint64_t k = key_pack_apply(&kp, src[i].key);
                src[i].key = k;
                count[k & (buckets - 1)]++;
            }
        } else {
            for (uint32_t i = 0; i < n; i++) {
                count[(src[i].key >> shift) & (buckets - 1)]++;
            }
        }
        uint32_t sum = 0;
        for (uint32_t b = 0; b < buckets; b++) {
            uint32_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) {
            dst[count[(src[i].key >> shift) & (buckets - 1)]++] = src[i];
        }
        draw_item *t = src;
        src = dst;
        dst = t;
    }
    return src; /* the caller swaps buffers instead of copying back */
}

/* Sorts one draw list on its low key_bits, leaving the result in the list: when it lands in the
 * scratch buffer the two exchange memory (same capacity, so neither grows next frame). */
static void sort_list(rill_renderer *r, draw_item **data, uint32_t len, uint32_t *cap,
                      uint32_t key_bits) {
    if (radix_sort(*data, r->sort_tmp.data, len, key_bits) != *data) {
        draw_item *d = *data;
        uint32_t c = *cap;
        *data = r->sort_tmp.data;
        *cap = r->sort_tmp.cap;
        r->sort_tmp.data = d;
        r->sort_tmp.cap = c;
    }
}

/* >>culling --------------------------------------------------------------------------------- */

/* One chunk of instances being culled: world bounding spheres as flat arrays, the results of the
 * tests, and what the draw lists need of each instance. */
#define CULL_CHUNK 256u

typedef struct cull_chunk {
    float x[CULL_CHUNK], y[CULL_CHUNK], z[CULL_CHUNK], r[CULL_CHUNK];
    uint32_t visible[CULL_CHUNK];
    uint32_t shadow_near[CULL_CHUNK]; /* not beyond the shadow volume, away from the light */
    float shadow_q[CULL_CHUNK];       /* squared distance from the light axis */
    uint32_t inst[CULL_CHUNK], prev[CULL_CHUNK];
    uint32_t range[CULL_CHUNK]; /* the snapshot range tested, UINT32_MAX: the whole mesh */
    uint16_t mesh[CULL_CHUNK], mat[CULL_CHUNK];
} cull_chunk;

/* The tests below run over the whole chunk, a constant trip count that is a multiple of any
 * vector width: at -O2 the compiler vectorizes a loop only when it needs no scalar remainder.
 * Entries past the chunk's end hold what an earlier chunk left (zero at first); their results
 * are never read. */

/* The frustum test of a chunk of spheres: outside when the centre lies further than the radius
 * behind any plane. Plane by plane over the chunk, without early exits, so each pass is a
 * straight loop over the flat arrays, vectorized over the spheres. */
static void cull_frustum(cull_chunk *restrict ch, const float planes[6][4]) {
    for (uint32_t j = 0; j < CULL_CHUNK; j++) {
        ch->visible[j] = 1;
    }
    for (int k = 0; k < 6; k++) {
        float a = planes[k][0], b = planes[k][1], c = planes[k][2], d = planes[k][3];
        for (uint32_t j = 0; j < CULL_CHUNK; j++) {
            ch->visible[j] &= !(a * ch->x[j] + b * ch->y[j] + c * ch->z[j] + d < -ch->r[j]);
        }
    }
}

/* The first half of the shadow caster test (see is_caster): the sphere must not lie beyond the
 * cascades' bounding sphere (centre wc, radius wr) away from the light, and its squared distance
 * from the cylinder's axis is kept for the second half. Same expressions as the cglm calls they
 * replace, in the same order. The square root waits for is_caster so that this loop vectorizes
 * (sqrtf may set errno, which keeps compilers from vectorizing it). */
static void cull_shadow(cull_chunk *restrict ch, const float wc[3], float wr, const float sun[3]) {
    float c0 = wc[0], c1 = wc[1], c2 = wc[2], s0 = sun[0], s1 = sun[1], s2 = sun[2];
    for (uint32_t j = 0; j < CULL_CHUNK; j++) {
        float d0 = ch->x[j] - c0, d1 = ch->y[j] - c1, d2 = ch->z[j] - c2;
        float along = d0 * s0 + d1 * s1 + d2 * s2;
        float p0 = d0 - s0 * along, p1 = d1 - s1 * along, p2 = d2 - s2 * along;
        float q = p0 * p0 + p1 * p1 + p2 * p2;
        ch->shadow_near[j] = along < wr + ch->r[j];
        ch->shadow_q[j] = q;
    }
}

/* Whether chunk entry j can cast a shadow into the view: inside the infinite cylinder around the
 * cascades' bounding sphere along the light, and not beyond it (cull_shadow). A NaN fails both. */
static inline bool is_caster(const cull_chunk *ch, uint32_t j, float wr) {
    return ch->shadow_near[j] && sqrtf(ch->shadow_q[j]) < wr + ch->r[j];
}

/* A per-frame, direct-mapped cache of handle -> pool slot (-1: stale or not uploaded yet).
 * Snapshots reuse a few meshes and materials across many instances, so nearly every lookup is one
 * compare instead of a pool lookup plus readiness checks in another file. Readiness cannot change
 * while a frame is recorded (uploads are recorded when the frame begins). */
#define HANDLE_CACHE_SIZE 256u

typedef struct handle_cache {
    uint32_t id[HANDLE_CACHE_SIZE];
    int32_t slot[HANDLE_CACHE_SIZE];
} handle_cache;

static void handle_cache_reset(handle_cache *c) {
    /* Id 0 is never a valid handle, and its answer (-1) is the right one for an id of 0. */
    memset(c->id, 0, sizeof(c->id));
    for (uint32_t k = 0; k < HANDLE_CACHE_SIZE; k++) {
        c->slot[k] = -1;
    }
}

/* The cached slot of id: true with *out set on a hit. */
static inline bool cache_get(const handle_cache *c, uint32_t id, int32_t *out) {
    uint32_t k = id & (HANDLE_CACHE_SIZE - 1);
    *out = c->slot[k];
    return c->id[k] == id;
}

static inline int32_t cache_put(handle_cache *c, uint32_t id, int32_t slot) {
    uint32_t k = id & (HANDLE_CACHE_SIZE - 1);
    c->id[k] = id;
    c->slot[k] = slot;
    return slot;
}

static inline int32_t cached_mesh_index(const rill_renderer *r, handle_cache *c, uint32_t id) {
    int32_t slot;
    if (cache_get(c, id, &slot)) {
        return slot;
    }
    rill_mesh h = {id};
    return cache_put(c, id, rill__mesh_get(r, h) ? rill_pool_index(&r->mesh_pool, id) : -1);
}

static inline int32_t cached_material_index(const rill_renderer *r, handle_cache *c, uint32_t id) {
    int32_t slot;
    if (cache_get(c, id, &slot)) {
        return slot;
    }
    rill_material h = {id};
    return cache_put(c, id, rill__material_get(r, h) ? rill_pool_index(&r->mat_pool, id) : -1);
}

/* >>motion history -------------------------------------------------------------------------- */

/* The history slot of instance id at snapshot position pos, found through the hash map (a new
 * slot when the id is new), and remembered for the position. UINT32_MAX when out of memory. */
static uint32_t history_slot_lookup(rill_renderer *r, uint64_t id, uint32_t pos) {
    uint64_t idx;
    if (!rill_map_get(&r->prev_index, id, &idx)) {
        prev_key k = {id, UINT64_MAX, 0}; /* never culled yet */
        uint32_t n = r->prev_keys.len;
        if (n >= UINT32_MAX / 2u || !rill_array_reserve(&r->prev_m, n + 1u) ||
            !rill_array_push(&r->prev_keys, k)) {
            return UINT32_MAX; /* out of memory: this instance just has no motion */
        }
        if (!rill_map_set(&r->prev_index, id, n)) {
            r->prev_keys.len = n;
            return UINT32_MAX;
        }
        r->prev_m.len = n + 1u;
        idx = n;
    }
    uint32_t had = r->pos_slot.len;
    if (pos >= had && rill_array_push_n(&r->pos_slot, pos + 1u - had)) {
        for (uint32_t k = had; k < pos; k++) {
            r->pos_slot.data[k] = UINT32_MAX;
        }
    }
    if (pos < r->pos_slot.len) {
        r->pos_slot.data[pos] = (uint32_t)idx;
    }
    return (uint32_t)idx;
}

/* The history slot of instance id at snapshot position pos. Snapshots usually list instances in
 * the same order every frame, so the slot used at the same position last time is tried first and
 * the hash map is only consulted when the order changed. */
static inline uint32_t history_slot(rill_renderer *r, uint64_t id, uint32_t pos) {
    if (pos < r->pos_slot.len) {
        uint32_t s = r->pos_slot.data[pos];
        if (s < r->prev_keys.len && r->prev_keys.data[s].id == id) {
            return s;
        }
    }
    return history_slot_lookup(r, id, pos);
}

/* A 64-bit fingerprint of a matrix's bits: two independent lanes of multiply-xorshift rounds
 * over its eight 64-bit words (short dependency chains), mixed at the end. */
static inline uint64_t matrix_hash(const float m[16]) {
    uint64_t w[8], a = 0x9e3779b97f4a7c15ull, b = 0xc2b2ae3d27d4eb4full;
    memcpy(w, m, sizeof(w));
    for (int i = 0; i < 8; i += 2) {
        a = (a ^ w[i]) * 0xff51afd7ed558ccdull;
        b = (b ^ w[i + 1]) * 0xc4ceb9fe1a85ec53ull;
        a ^= a >> 29;
        b ^= b >> 31;
    }
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

/* Records this frame's matrix of instance `pos` and returns where last frame's is kept (slot * 2
 * + half), or UINT32_MAX when the instance has no motion of its own: not culled last frame, no
 * id, or the same matrix as last frame (then its own matrix is last frame's, bit for bit). Most
 * instances never move, and culled ones are most of a large scene, so the matrix is compared by
 * its fingerprint (matrix_hash) and only a changed one is written: an unchanged instance costs
 * its 24-byte key, not the 64 bytes of a matrix. Two different matrices of one instance taken as
 * equal would need a 64-bit collision (odds about 2^-64 per change; the motion of that instance
 * would then be off for a frame). A second view of the frame finds the instance already recorded
 * and gets UINT32_MAX, as it always has. */
static uint32_t track_instance(rill_renderer *r, const rill_render_instance *in, uint32_t pos) {
    uint32_t s = in->id ? history_slot(r, in->id, pos) : UINT32_MAX;
    if (s == UINT32_MAX) {
        return UINT32_MAX;
    }
    prev_key *k = &r->prev_keys.data[s];
    uint64_t now = r->frame_counter, frame = k->frame_half >> 1;
    uint32_t half = (uint32_t)(k->frame_half & 1u);
    bool known = k->frame_half != UINT64_MAX;
    if (frame == now) {
        return UINT32_MAX;
    }
    float(*m)[16] = r->prev_m.data[s].m;
    uint64_t h = matrix_hash(in->transform);
    if (known && k->hash == h) {
        k->frame_half = now * 2u + half;
        return UINT32_MAX;
    }
    k->hash = h;
    uint32_t next = known ? half ^ 1u : 0u;
    memcpy(m[next], in->transform, sizeof(m[next]));
    k->frame_half = now * 2u + next;
    return known && frame + 1u == now ? s * 2u + half : UINT32_MAX;
}

/* Drops the history of instances that were not culled last frame (they have no motion to give
 * any more), once the slots outnumber the snapshot's instances twice over, so ids that went away
 * do not pile up. Only before the frame's first view is culled: draw items hold slots. */
static void history_compact(rill_renderer *r, uint32_t instance_count) {
    uint32_t n = r->prev_keys.len;
    if (n <= 4096u + 2u * (uint64_t)instance_count || !rill_array_reserve(&r->prev_remap, n)) {
        return;
    }
    uint32_t *remap = r->prev_remap.data, kept = 0;
    uint64_t last = r->frame_counter - 1u;
    for (uint32_t s = 0; s < n; s++) {
        remap[s] = UINT32_MAX;
        if (r->prev_keys.data[s].frame_half >> 1 == last) {
            r->prev_keys.data[kept] = r->prev_keys.data[s];
            r->prev_m.data[kept] = r->prev_m.data[s];
            remap[s] = kept++;
        }
    }
    /* The map keeps its memory when cleared, so setting fewer keys than before cannot fail. */
    rill_map_clear(&r->prev_index);
    for (uint32_t s = 0; s < kept; s++) {
        rill_map_set(&r->prev_index, r->prev_keys.data[s].id, s);
    }
    r->prev_keys.len = r->prev_m.len = kept;
    for (uint32_t p = 0; p < r->pos_slot.len; p++) {
        uint32_t s = r->pos_slot.data[p];
        r->pos_slot.data[p] = s < n ? remap[s] : UINT32_MAX;
    }
}

const float *rill__prev_model(const rill_renderer *r, const rill_render_instance *in,
                              uint32_t prev) {
    if (prev == UINT32_MAX) {
        return in->transform;
    }
    return r->prev_m.data[prev >> 1].m[prev & 1u];
}

/* >>the view's lists ------------------------------------------------------------------------ */

uint32_t rill__ghost_opacity_q(const rill_render_instance *in) {
    float op = in->ghost_opacity;
    op = op > 0.0f ? (op < 1.0f ? op : 1.0f) : 0.0f; /* also NaN -> 0 */
    return (uint32_t)(op * 65535.0f + 0.5f);
}

/* A ghost's key: its opacity in 16 bits (runs of one opacity share a push) above the ranged bit
 * and the mesh. */
static uint64_t ghost_key(const rill_render_instance *in, uint64_t mesh_bits) {
    return ((uint64_t)rill__ghost_opacity_q(in) << 17) | mesh_bits;
}

/* Appends an item to a list of n: a range that follows the last item's ranges of the same
 * instance, with the same key, joins that item instead. Returns 1 when an item was added. */
static inline uint32_t list_add(draw_item *list, uint32_t *n, uint64_t key, uint32_t inst,
                                uint32_t prev, uint32_t range) {
    if (range != UINT32_MAX && *n) {
        draw_item *last = &list[*n - 1u];
        if (last->inst == inst && last->range_n && last->range + last->range_n == range &&
            last->key == key) {
            last->range_n++;
            return 0;
        }
    }
    bool ranged = range != UINT32_MAX;
    list[(*n)++] = (draw_item){key, inst, prev, ranged ? range : 0u, ranged ? 1u : 0u};
    return 1;
}

/* Whether range rg lies within mesh ms (a range beyond it draws nothing). */
static bool range_fits(const rill_render_range *rg, const mesh_slot *ms) {
    return (uint64_t)rg->first_index + rg->index_count <= ms->index_count &&
           (uint64_t)rg->first_edge + rg->edge_count <= ms->edge_index_count;
}

/* The most items a draw list can get: one per instance, one per range of a ranged one. */
static uint32_t list_capacity(const rill_render_snapshot *snap) {
    uint64_t n = snap->instance_count;
    for (uint32_t i = 0; snap->range_count && i < snap->instance_count; i++) {
        uint32_t k = snap->instances[i].range_count;
        n += k ? k - 1u : 0u;
    }
    return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
}

rill_result rill__view_cull(rill_renderer *r, rill__view *vs, const rill__cull_params *p,
                            rill_error *err) {
    const rill_render_snapshot *snap = vs->snap;
    rill_array_clear(&vs->opaque);
    rill_array_clear(&vs->transparent);
    rill_array_clear(&vs->casters);
    rill_array_clear(&vs->wires);
    rill_array_clear(&vs->ghosts);
    vs->casters_plain = 0;
    vs->opaque_solid = 0;
    vs->wires_edges = 0;
    const rill_render_wireframe *wf = &snap->wireframe;
    bool shadows = p->shadows;
    /* Every list holds at most one item per instance (per range of a ranged one): reserve once
     * so the loop below writes items without a capacity check (the arrays keep their memory
     * across frames). */
    uint32_t ninst_in = list_capacity(snap);
    if (!rill_array_reserve(&vs->opaque, ninst_in ? ninst_in : 1) ||
        !rill_array_reserve(&vs->transparent, ninst_in ? ninst_in : 1) ||
        !rill_array_reserve(&vs->casters, ninst_in ? ninst_in : 1) ||
        !rill_array_reserve(&vs->wires, ninst_in ? ninst_in : 1) ||
        !rill_array_reserve(&vs->ghosts, ninst_in ? ninst_in : 1)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for draw lists");
    }
    draw_item *opaque = vs->opaque.data, *transparent = vs->transparent.data,
              *casters = vs->casters.data, *wires = vs->wires.data, *ghosts = vs->ghosts.data;
    uint32_t n_opaque = 0, n_transparent = 0, n_casters = 0, n_wires = 0, n_plain = 0;
    uint32_t n_solid = 0;
    uint32_t n_edges = 0, n_ghosts = 0;
    if (vs->index == 0) {
        history_compact(r, snap->instance_count);
    }
    handle_cache mesh_cache, mat_cache;
    handle_cache_reset(&mesh_cache);
    handle_cache_reset(&mat_cache);
    vec3 cam_pos = {p->cam_pos[0], p->cam_pos[1], p->cam_pos[2]};
    vec3 cam_fwd = {p->cam_fwd[0], p->cam_fwd[1], p->cam_fwd[2]};
    bool wire_pipe = r->pipes[RILL__PIPE_WIRE] != NULL;
    /* Instances go through in chunks: a scalar loop resolves handles, records motion history and
     * writes world bounding spheres into flat arrays; branch-free loops over those arrays test
     * the view frustum and the shadow volume (the compiler vectorizes them); a last loop sorts
     * the results into the draw lists. */
    cull_chunk ch;
    memset(&ch, 0, sizeof(ch));
    /* A ranged instance puts one entry per range into the chunks (possibly over several): sub is
     * its next range, sub_prev its motion history (tracked once per instance). */
    uint32_t sub = 0, sub_prev = UINT32_MAX;
    for (uint32_t base = 0; base < snap->instance_count;) {
        uint32_t m = 0;
        while (base < snap->instance_count && m < CULL_CHUNK) {
            const rill_render_instance *in = &snap->instances[base];
            int32_t mi = -1, ti = -1;
            if (in->mode != RILL_RENDER_MODE_HIDDEN) { /* hidden: no pass sees it */
                mi = cached_mesh_index(r, &mesh_cache, in->mesh.id);
                ti = cached_material_index(r, &mat_cache, in->material.id);
            }
            bool ranges_ok = (uint64_t)in->range_first + in->range_count <= snap->range_count;
            if (mi < 0 || ti < 0 || !ranges_ok) {
                base++; /* not uploaded yet, or stale, or bad ranges: draws nothing */
                continue;
            }
            const mesh_slot *ms = &r->meshes[mi];
            const rill_render_range *rg = NULL;
            if (in->range_count) {
                rg = &snap->ranges[in->range_first + sub];
                if (sub == 0) {
                    sub_prev = track_instance(r, in, base);
                }
                ch.range[m] = in->range_first + sub;
                ch.prev[m] = sub_prev;
                if (++sub == in->range_count) {
                    sub = 0;
                    base++;
                }
                if (!range_fits(rg, ms)) {
                    continue;
                }
            } else {
                ch.range[m] = UINT32_MAX;
                ch.prev[m] = track_instance(r, in, base);
                base++;
            }
            rill__sphere s = rg ? world_sphere(in->transform, rg->center, rg->radius)
                                : world_sphere(in->transform, ms->center, ms->radius);
            ch.x[m] = s.c[0];
            ch.y[m] = s.c[1];
            ch.z[m] = s.c[2];
            ch.r[m] = s.r;
            ch.inst[m] = (uint32_t)(in - snap->instances);
            ch.mesh[m] = (uint16_t)mi;
            ch.mat[m] = (uint16_t)ti;
            m++;
        }
        cull_frustum(&ch, p->planes);
        if (shadows) {
            cull_shadow(&ch, p->shadow_center, p->shadow_radius, p->sun_dir);
        }
        for (uint32_t j = 0; j < m; j++) {
            if (!ch.visible[j] && !(shadows && ch.shadow_near[j])) {
                continue; /* in no list: most instances of an open world */
            }
            uint32_t i = ch.inst[j], prev = ch.prev[j], mi = ch.mesh[j], ti = ch.mat[j];
            uint32_t rg = ch.range[j];
            const rill_render_instance *in = &snap->instances[i];
            const mat_slot *mt = &r->materials[ti];
            /* Pool slots are below 65536: the mesh takes 16 bits, then whether the item draws
             * ranges (items of a ranged instance never instance with others), then whether the
             * mesh is in a shared block. */
            uint64_t mesh_bits = (uint64_t)mi | (uint64_t)(rg != UINT32_MAX) << 16;
            uint64_t in_block = r->meshes[mi].block ? 1ull << 17 : 0u;
            if (in->mode == RILL_RENDER_MODE_WIREFRAME) {
                /* Wireframes skip prepass, opaque and shadows; with fade on, beyond fade_end
                 * nothing. A mesh with an edge buffer draws it (sorted first: bit 17 clear);
                 * one without falls back to line fill, where the device has it. */
                vec3 c = {ch.x[j], ch.y[j], ch.z[j]};
                bool too_far =
                    wf->fade && glm_vec3_distance(c, cam_pos) - ch.r[j] > vs->wire_fade[1];
                bool edges = r->meshes[mi].edge_index_count != 0;
                if ((edges || wire_pipe) && !too_far && ch.visible[j]) {
                    uint64_t key = mesh_bits | (edges ? 0u : 1u << 17);
                    n_edges += edges * list_add(wires, &n_wires, key, i, prev, rg);
                }
                continue;
            }
            if (ch.visible[j]) {
                if (mt->alpha_mode == RILL_ALPHA_BLEND) {
                    vec3 c = {ch.x[j], ch.y[j], ch.z[j]}, d;
                    glm_vec3_sub(c, cam_pos, d);
                    float depth = fmaxf(glm_vec3_dot(d, cam_fwd), 0.0f);
                    uint32_t bits;
                    memcpy(&bits, &depth, sizeof(bits));
                    list_add(transparent, &n_transparent, (uint64_t)(UINT32_MAX - bits), i, prev,
                             rg);
                } else {
                    /* The key keeps the (cuts, double-sided, material, shared-block, ranged,
                     * mesh) order in 37 bits: meshes of shared blocks (static batches) follow
                     * each other within a material, so draw_list draws them with one indirect
                     * call. Surfaces that cut (alpha mask, LOD crossfade) sort last: the prepass
                     * draws the rest with a shader that never discards, so the GPU tests depth
                     * before shading them. */
                    bool cuts = mt->alpha_mode == RILL_ALPHA_MASK || in->lod_fade != 0.0f;
                    uint64_t key = ((uint64_t)cuts << 36) | ((uint64_t)mt->double_sided << 35) |
                                   ((uint64_t)ti << 18) | in_block | mesh_bits;
                    n_solid += !cuts * list_add(opaque, &n_opaque, key, i, prev, rg);
                    if (vs->passthrough && in->mode == RILL_RENDER_MODE_GHOST) {
                        list_add(ghosts, &n_ghosts, ghost_key(in, mesh_bits), i, prev, rg);
                    }
                }
            }
            if (shadows && mt->alpha_mode != RILL_ALPHA_BLEND &&
                is_caster(&ch, j, p->shadow_radius)) {
                /* Masked casters sort after opaque ones and by material, which they bind. A
                 * level inside a LOD crossfade needs the masked pipeline's fragment shader too
                 * (its dither cuts the shadow like its other passes). */
                bool cut = mt->alpha_mode == RILL_ALPHA_MASK || in->lod_fade != 0.0f;
                uint64_t key = cut ? (1ull << 35) | ((uint64_t)ti << 18) | in_block | mesh_bits
                                   : in_block | mesh_bits;
                n_plain += !cut * list_add(casters, &n_casters, key, i, prev, rg);
            }
        }
    }
    vs->opaque.len = n_opaque;
    vs->transparent.len = n_transparent;
    vs->casters.len = n_casters;
    vs->wires.len = n_wires;
    vs->wires_edges = n_edges;
    vs->ghosts.len = n_ghosts;
    vs->casters_plain = n_plain;
    vs->opaque_solid = n_solid;
    rill__phase_mark(r, RILL__CPU_CULL);
    /* The same capacity as the lists, so exchanging buffers with them never makes the next
     * frame's reserve grow an array. */
    if (!rill_array_reserve(&r->sort_tmp, ninst_in ? ninst_in : 1)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for draw lists");
    }
    sort_list(r, &vs->opaque.data, vs->opaque.len, &vs->opaque.cap, 37);
    sort_list(r, &vs->transparent.data, vs->transparent.len, &vs->transparent.cap, 32);
    sort_list(r, &vs->casters.data, vs->casters.len, &vs->casters.cap, 36);
    sort_list(r, &vs->wires.data, vs->wires.len, &vs->wires.cap, 18);
    sort_list(r, &vs->ghosts.data, vs->ghosts.len, &vs->ghosts.cap, 33);
    r->instances_visible += vs->opaque.len + vs->transparent.len + vs->wires.len;
    rill__phase_mark(r, RILL__CPU_SORT);
    return RILL_OK;
}
