/* frame_cull.c: one view's draw lists. Instances are culled against the view frustum (and, for
 * the sun's shadows, against the volume the cascades can receive from), sorted into the opaque,
 * transparent, shadow caster and wireframe lists (opaque by pipeline/material/mesh so equal
 * neighbours become one instanced draw, transparent back to front), and each instance's world
 * matrix is kept for next frame's motion vectors (written only when it changes). Most instances
 * of an open world are culled, so the per-instance path is short: one read of the snapshot into
 * flat arrays, vectorized bounding spheres and frustum and shadow tests, the motion record. The
 * snapshot is culled in slices spread over the renderer's jobs (rill_jobs_for); the motion
 * history and the slices' lists are put together in snapshot order afterwards, so the lists are
 * the same whatever the number of threads. */
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
    /* What the tests read of each instance, gathered from the snapshot: the world matrix's
     * upper 3x4 (column-major: m[k] is column k / 4, row k % 4) and the mesh's local sphere. */
    float m[12][CULL_CHUNK];
    float lc[4][CULL_CHUNK]; /* local centre xyz, radius */
    float x[CULL_CHUNK], y[CULL_CHUNK], z[CULL_CHUNK], r[CULL_CHUNK];
    uint32_t visible[CULL_CHUNK];
    uint32_t caster[CULL_CHUNK];      /* inside the shadow volume (see cull_shadow) */
    uint32_t shadow_near[CULL_CHUNK]; /* not beyond the shadow volume, away from the light */
    uint32_t inst[CULL_CHUNK], prev[CULL_CHUNK];
    uint32_t range[CULL_CHUNK]; /* the snapshot range tested, UINT32_MAX: the whole mesh */
    uint16_t mesh[CULL_CHUNK], mat[CULL_CHUNK];
} cull_chunk;

/* The tests below run over the whole chunk, a constant trip count that is a multiple of any
 * vector width: at -O2 the compiler vectorizes a loop only when it needs no scalar remainder.
 * Entries past the chunk's end are zero (chunk_clear_tail); their results are never read. Square
 * roots vectorize because this file is compiled without errno for math functions (-fno-math-errno,
 * CMakeLists.txt): sqrtf stays correctly rounded either way. */

/* Chunk entry j's matrix and mesh-space sphere (the mesh's, or a range's), gathered for
 * chunk_spheres: the first (and only) read of the instance's matrix in the culling loop. Written
 * out: GCC does not unroll a loop over a table of columns at -O2. */
static inline void chunk_gather(cull_chunk *restrict ch, uint32_t j, const float m[16],
                                const float center[3], float radius) {
    ch->m[0][j] = m[0], ch->m[1][j] = m[1], ch->m[2][j] = m[2];
    ch->m[3][j] = m[4], ch->m[4][j] = m[5], ch->m[5][j] = m[6];
    ch->m[6][j] = m[8], ch->m[7][j] = m[9], ch->m[8][j] = m[10];
    ch->m[9][j] = m[12], ch->m[10][j] = m[13], ch->m[11][j] = m[14];
    ch->lc[0][j] = center[0];
    ch->lc[1][j] = center[1];
    ch->lc[2][j] = center[2];
    ch->lc[3][j] = radius;
}

/* Zeroes what chunk_gather fills from entry n on, so that the tests' lanes past a chunk's end
 * read defined numbers (their results are never read). */
static void chunk_clear_tail(cull_chunk *ch, uint32_t n) {
    for (int k = 0; k < 12; k++) {
        memset(&ch->m[k][n], 0, (CULL_CHUNK - n) * sizeof(float));
    }
    for (int k = 0; k < 4; k++) {
        memset(&ch->lc[k][n], 0, (CULL_CHUNK - n) * sizeof(float));
    }
}

/* World bounding spheres of the chunk: the local centre through the matrix, the radius scaled by
 * the matrix's largest axis. sqrtf is correctly rounded and monotonic, so the root of the largest
 * squared axis length equals the largest of the three roots: one square root instead of three,
 * same bits. Vectorized over the chunk (the expressions are the scalar ones, so are the bits). */
static void chunk_spheres(cull_chunk *restrict ch) {
    float(*m)[CULL_CHUNK] = ch->m;
    float *c0 = ch->lc[0], *c1 = ch->lc[1], *c2 = ch->lc[2], *rad = ch->lc[3];
    for (uint32_t j = 0; j < CULL_CHUNK; j++) {
        ch->x[j] = m[0][j] * c0[j] + m[3][j] * c1[j] + m[6][j] * c2[j] + m[9][j];
        ch->y[j] = m[1][j] * c0[j] + m[4][j] * c1[j] + m[7][j] * c2[j] + m[10][j];
        ch->z[j] = m[2][j] * c0[j] + m[5][j] * c1[j] + m[8][j] * c2[j] + m[11][j];
        float sx = m[0][j] * m[0][j] + m[1][j] * m[1][j] + m[2][j] * m[2][j];
        float sy = m[3][j] * m[3][j] + m[4][j] * m[4][j] + m[5][j] * m[5][j];
        float sz = m[6][j] * m[6][j] + m[7][j] * m[7][j] + m[8][j] * m[8][j];
        ch->r[j] = rad[j] * sqrtf(max_num(sx, max_num(sy, sz)));
    }
}

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

/* The shadow caster test: whether a sphere can cast a shadow into the view, i.e. lies inside the
 * infinite cylinder along the light around the cascades' bounding sphere (centre wc, radius wr)
 * and not beyond that sphere away from the light (shadow_near, which also keeps instances that
 * are in no list out of the list loop). Same expressions as the cglm calls they replace, in the
 * same order. A NaN fails both. */
static void cull_shadow(cull_chunk *restrict ch, const float wc[3], float wr, const float sun[3]) {
    float c0 = wc[0], c1 = wc[1], c2 = wc[2], s0 = sun[0], s1 = sun[1], s2 = sun[2];
    for (uint32_t j = 0; j < CULL_CHUNK; j++) {
        float d0 = ch->x[j] - c0, d1 = ch->y[j] - c1, d2 = ch->z[j] - c2;
        float along = d0 * s0 + d1 * s1 + d2 * s2;
        float p0 = d0 - s0 * along, p1 = d1 - s1 * along, p2 = d2 - s2 * along;
        float q = p0 * p0 + p1 * p1 + p2 * p2;
        uint32_t near = along < wr + ch->r[j];
        ch->shadow_near[j] = near;
        ch->caster[j] = near & (sqrtf(q) < wr + ch->r[j]);
    }
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

/* New ids the motion history takes per frame. Taking an id (a hash map insert, a key and a matrix
 * written to memory touched for the first time) cost the boot frame of `rill fly`, whose 33 k
 * instances were all new, 7.6 ms of main-thread CPU against 2.1 ms for a later frame's history on
 * the development machine (about 230 ns an id). A frame takes HISTORY_NEW_MIN new ids, then more
 * while its new ids have cost less than HISTORY_NEW_MS since the first (the clock read every
 * HISTORY_NEW_STEP ids), as GPU culling boards new ids: a fast CPU takes a streamed-in district in
 * fewer frames, a slow or loaded one spreads it without a hitch (a fixed 4096 was about 0.94 ms on
 * the development machine). An id left over is taken in a later frame; until then it draws
 * without motion of its own (prev = its matrix), as any instance does in the frame it first
 * appears. rill__motion_history_set_new_ids pins them for tests. */
#define HISTORY_NEW_MIN 1024u
#define HISTORY_NEW_MS 0.5
#define HISTORY_NEW_STEP 256u

void rill__motion_history_set_new_ids(rill_renderer *r, uint32_t min, double ms) {
    r->history_new_pinned = true;
    r->history_new_min = min;
    r->history_new_ms = ms;
}

/* Whether this frame's history may take one more new id (HISTORY_NEW_*). */
static bool history_take(rill_renderer *r) {
    uint32_t min = r->history_new_pinned ? r->history_new_min : HISTORY_NEW_MIN;
    double ms = r->history_new_pinned ? r->history_new_ms : HISTORY_NEW_MS;
    uint32_t n = r->history_new_taken;
    if (n == 0) {
        r->history_new_t0 = rill_time_ns();
    }
    if (n < min) {
        return true;
    }
    if (r->history_new_full || !(ms > 0.0)) {
        return false;
    }
    if ((n - min) % HISTORY_NEW_STEP == 0) {
        r->history_new_full = (double)(rill_time_ns() - r->history_new_t0) * 1e-6 >= ms;
    }
    return !r->history_new_full;
}

/* Remembers history slot idx for snapshot position pos (next frame's guess there). */
static void history_remember(rill_renderer *r, uint32_t pos, uint32_t idx) {
    uint32_t had = r->pos_slot.len;
    if (pos >= had && rill_array_push_n(&r->pos_slot, pos + 1u - had)) {
        for (uint32_t k = had; k < pos; k++) {
            r->pos_slot.data[k] = UINT32_MAX;
        }
    }
    if (pos < r->pos_slot.len) {
        r->pos_slot.data[pos] = idx;
    }
}

/* The history slot of instance id at snapshot position pos, found through the hash map (a new
 * slot when the id is new and the frame may take one), and remembered for the position.
 * UINT32_MAX when the frame's new ids are spent or out of memory. */
static uint32_t history_slot_lookup(rill_renderer *r, uint64_t id, uint32_t pos) {
    uint64_t idx;
    r->history_lookups++;
    if (!rill_map_get(&r->prev_index, id, &idx)) {
        if (!history_take(r)) {
            return UINT32_MAX; /* taken in a later frame */
        }
        r->history_new_taken++;
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
    history_remember(r, pos, (uint32_t)idx);
    return (uint32_t)idx;
}

/* The history slot of instance id (at snapshot position pos): the slot the position had last
 * time when it still holds the id, else the hash map's, else UINT32_MAX (a new id: then
 * history_slot_lookup takes a slot in the serial pass). One instance added or removed (a LOD level
 * switching, a cell streaming in) shifts every later position, so the map is often the answer;
 * both are read here, in the culling slices, in parallel: the map and the keys are written only
 * by the serial pass and history_compact. */
static inline uint32_t history_guess(const rill_renderer *r, uint64_t id, uint32_t pos) {
    if (pos < r->pos_slot.len) {
        uint32_t s = r->pos_slot.data[pos];
        if (s < r->prev_keys.len && r->prev_keys.data[s].id == id) {
            return s;
        }
    }
    uint64_t idx;
    return rill_map_get(&r->prev_index, id, &idx) ? (uint32_t)idx : UINT32_MAX;
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

/* Records this frame's matrix of the instance at t->pos (its slot guess and fingerprint taken by
 * the culling slice, see cull_track) and returns where last frame's is kept (slot * 2
 * + half), or UINT32_MAX when the instance has no motion of its own: not culled last frame, no
 * slot (out of memory), or the same matrix as last frame (then its own matrix is last frame's, bit
 * for bit). Most instances never move, and culled ones are most of a large scene, so the matrix is
 * compared by its fingerprint (matrix_hash) and only a changed one is written: an unchanged
 * instance costs its 24-byte key, not the 64 bytes of a matrix. Two different matrices of one
 * instance taken as equal would need a 64-bit collision (odds about 2^-64 per change; the motion of
 * that instance would then be off for a frame). The frame's other views do not come here: they
 * reuse the first view's results (motion_keep), since a second call would find the instance
 * already recorded and give it no motion. */
static uint32_t track_instance(rill_renderer *r, const rill_render_instance *in,
                               const cull_track *t) {
    uint32_t s = t->slot;
    if (s == UINT32_MAX) {
        s = history_slot_lookup(r, in->id, t->pos);
    } else if (t->pos >= r->pos_slot.len || r->pos_slot.data[t->pos] != s) {
        history_remember(r, t->pos, s); /* found through the map: the position's next guess */
    }
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
    uint64_t h = t->hash;
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

/* Sizes the history for this frame's instances n, so its memory follows them rather than the
 * most it ever held: the slots fill up to 4096 + 2n before history_compact empties them, so the
 * slot arrays and the map are sized for that (rill_array_size_for: grown in one step, given back
 * once over twice it), and positions past the snapshot's end are forgotten. With growth by
 * doubling alone, a fly out and back with ~33 k instances ended with these arrays twice the
 * size they had at its start (+12 MB). */
static void history_size(rill_renderer *r, uint32_t n) {
    uint32_t need = (uint32_t)RILL_MIN(4096u + 2u * (uint64_t)n, UINT32_MAX / 2u);
    /* Out of memory here only means the arrays grow as slots come (history_slot_lookup). */
    (void)rill_array_size_for(&r->prev_keys, need);
    (void)rill_array_size_for(&r->prev_m, need);
    if (r->prev_remap.cap) {
        (void)rill_array_size_for(&r->prev_remap, need);
    }
    (void)rill_map_size_for(&r->prev_index, need);
    r->pos_slot.len = RILL_MIN(r->pos_slot.len, n);
    (void)rill_array_size_for(&r->pos_slot, n);
    r->history_new_taken = 0;
    r->history_new_t0 = 0;
    r->history_new_full = false;
    r->history_lookups = 0;
}

const float *rill__prev_model(const rill_renderer *r, const rill_render_instance *in,
                              uint32_t prev) {
    if (prev == UINT32_MAX) {
        return in->transform;
    }
    return r->prev_m.data[prev >> 1].m[prev & 1u];
}

bool rill__instance_mirrored(const float m[16]) {
    float det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                m[8] * (m[1] * m[6] - m[2] * m[5]);
    return det < 0.0f; /* NaN and singular: not mirrored */
}

/* >>ghosts --------------------------------------------------------------------------------- */

uint32_t rill__ghost_opacity_q(const rill_render_instance *in) {
    float op = in->ghost_opacity;
    op = op > 0.0f ? (op < 1.0f ? op : 1.0f) : 0.0f; /* also NaN -> 0 */
    return (uint32_t)(op * 65535.0f + 0.5f);
}

/* A ghost's key: whether its material is blended (those draw after the transparent pass, so
 * they sort last), its opacity in 16 bits (runs of one opacity share a push), the ranged bit and
 * the mesh. */
static uint64_t ghost_key(const rill_render_instance *in, uint64_t mesh_bits, bool blended) {
    return ((uint64_t)blended << 33) | ((uint64_t)rill__ghost_opacity_q(in) << 17) | mesh_bits;
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

/* >>culling slices -------------------------------------------------------------------------- */

/* Instances per culling slice (a job of rill_jobs_for): enough that a slice's fixed costs (its
 * handle caches, the hand-over between threads) are small beside its work, few enough that the
 * workers share a city's 36 k instances. */
#define CULL_SLICE 2048u

enum { LIST_OPAQUE, LIST_TRANSPARENT, LIST_CASTERS, LIST_WIRES, LIST_GHOSTS, LIST_COUNT };

/* What the slices of one view share. Each slice reads the renderer and the snapshot only; it
 * writes its cull_slice, its cull_track records (from its first instance's index on) and its draw
 * items (from its `at` on in every list), all at its own place. */
typedef struct cull_job {
    const rill_renderer *r;
    const rill_render_snapshot *snap;
    const rill__cull_params *p;
    draw_item *lists[LIST_COUNT]; /* the view's lists, reserved by cull_layout's count */
    cull_slice *slices;
    cull_track *tracks;
    const uint32_t *motion; /* NULL: take the motion records; else an earlier view's, by position */
    bool wire_pipe, passthrough;
    float wire_fade_end;
} cull_job;

/* Where each slice's draw items start in the lists: as many places before it as the instances
 * before it can fill, one each, one per range of a ranged one. Returns the lists' capacity
 * (UINT32_MAX when too many to hold). */
static uint32_t cull_layout(const rill_render_snapshot *snap, cull_slice *slices,
                            uint32_t nslices) {
    uint64_t n = 0;
    for (uint32_t t = 0; t < nslices; t++) {
        slices[t].at = n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
        uint32_t begin = t * CULL_SLICE, end = RILL_MIN(snap->instance_count, begin + CULL_SLICE);
        n += end - begin;
        for (uint32_t i = begin; snap->range_count && i < end; i++) {
            uint32_t k = snap->instances[i].range_count;
            n += k ? k - 1u : 0u;
        }
    }
    return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
}

/* The motion record of the instance at pos: the matrix's fingerprint and the slot guess, taken
 * here (in parallel) for track_instance's serial pass. Returns the record's index (the draw
 * items' prev until the pass), UINT32_MAX for an instance without id (no motion of its own). */
static uint32_t track_record(const cull_job *jb, cull_slice *out, uint32_t begin,
                             const rill_render_instance *in, uint32_t pos) {
    if (!in->id) {
        return UINT32_MAX;
    }
    uint32_t k = begin + out->tracked++;
    jb->tracks[k] =
        (cull_track){pos, history_guess(jb->r, in->id, pos), matrix_hash(in->transform)};
    return k;
}

/* Appends chunk entry j, visible or a possible shadow caster, to the draw lists (the slice's
 * items, from out->at on, out->len counting them). */
static void list_entry(const cull_job *jb, const cull_chunk *ch, uint32_t j, cull_slice *out) {
    const rill__cull_params *p = jb->p;
    draw_item *lists[LIST_COUNT];
    for (int l = 0; l < LIST_COUNT; l++) {
        lists[l] = jb->lists[l] + out->at;
    }
    uint32_t i = ch->inst[j], prev = ch->prev[j], mi = ch->mesh[j], ti = ch->mat[j];
    uint32_t rg = ch->range[j];
    const rill_render_instance *in = &jb->snap->instances[i];
    const mat_slot *mt = &jb->r->materials[ti];
    const mesh_slot *ms = &jb->r->meshes[mi];
    uint32_t *len = out->len;
    /* Pool slots are below 65536: the mesh takes 16 bits, then whether the item draws ranges
     * (items of a ranged instance never instance with others), then the shared block the mesh
     * is in (0: none; 8 bits, later blocks share 255), so that the meshes of one block and
     * material follow each other: one indirect draw. */
    uint64_t mesh_bits = (uint64_t)mi | (uint64_t)(rg != UINT32_MAX) << 16;
    uint64_t in_block = (uint64_t)RILL_MIN(ms->block, 255u) << 17;
    if (in->mode == RILL_RENDER_MODE_WIREFRAME) {
        /* Wireframes skip prepass, opaque and shadows; with fade on, beyond fade_end nothing. A
         * mesh with an edge buffer draws it (sorted first: bit 25 clear); one without falls back
         * to line fill, where the device has it. The shared block keeps a block's meshes
         * together: their edges draw as one indirect call. */
        vec3 c = {ch->x[j], ch->y[j], ch->z[j]};
        vec3 cam = {p->cam_pos[0], p->cam_pos[1], p->cam_pos[2]};
        bool too_far =
            jb->snap->wireframe.fade && glm_vec3_distance(c, cam) - ch->r[j] > jb->wire_fade_end;
        bool edges = ms->edge_index_count != 0;
        if ((edges || jb->wire_pipe) && !too_far && ch->visible[j]) {
            uint64_t key = mesh_bits | in_block | (edges ? 0u : 1u << 25);
            out->edges += edges * list_add(lists[LIST_WIRES], &len[LIST_WIRES], key, i, prev, rg);
        }
        return;
    }
    if (ch->visible[j]) {
        if (mt->alpha_mode == RILL_ALPHA_BLEND) {
            vec3 d = {ch->x[j] - p->cam_pos[0], ch->y[j] - p->cam_pos[1], ch->z[j] - p->cam_pos[2]};
            vec3 fwd = {p->cam_fwd[0], p->cam_fwd[1], p->cam_fwd[2]};
            float depth = fmaxf(glm_vec3_dot(d, fwd), 0.0f);
            uint32_t bits;
            memcpy(&bits, &depth, sizeof(bits));
            list_add(lists[LIST_TRANSPARENT], &len[LIST_TRANSPARENT], (uint64_t)(UINT32_MAX - bits),
                     i, prev, rg);
            if (jb->passthrough && in->mode == RILL_RENDER_MODE_GHOST) {
                /* Mixed passthrough: its alpha is drawn apart (opacity x material alpha). */
                out->glass += list_add(lists[LIST_GHOSTS], &len[LIST_GHOSTS],
                                       ghost_key(in, mesh_bits, true), i, prev, rg);
            }
        } else {
            /* The key keeps the (cuts, mirrored, double-sided, material, shared block, ranged,
             * mesh) order in 44 bits: meshes of one shared block (static batches) follow each
             * other within a material, so draw_list draws them with one indirect call. Surfaces
             * that cut (alpha mask, LOD crossfade) sort last: the prepass draws the rest with a
             * shader that never discards, so the GPU tests depth before shading them. Mirrored
             * instances draw with the other front face: never in one run with unmirrored ones,
             * and after them (one front face change per part); without any, the bit is 0 in
             * every key and the order and runs are what they were. */
            bool cuts = mt->alpha_mode == RILL_ALPHA_MASK || in->lod_fade != 0.0f;
            bool mirrored = rill__instance_mirrored(in->transform);
            uint64_t key = ((uint64_t)cuts << 43) | ((uint64_t)mirrored << 42) |
                           ((uint64_t)mt->double_sided << 41) | ((uint64_t)ti << 25) | in_block |
                           mesh_bits;
            out->solid += !cuts * list_add(lists[LIST_OPAQUE], &len[LIST_OPAQUE], key, i, prev, rg);
            if (jb->passthrough && in->mode == RILL_RENDER_MODE_GHOST) {
                list_add(lists[LIST_GHOSTS], &len[LIST_GHOSTS], ghost_key(in, mesh_bits, false), i,
                         prev, rg);
            }
        }
    }
    if (p->shadows && mt->alpha_mode != RILL_ALPHA_BLEND && ch->caster[j]) {
        /* Masked casters sort after opaque ones and by material, which they bind. A level inside
         * a LOD crossfade needs the masked pipeline's fragment shader too (its dither cuts the
         * shadow like its other passes). */
        bool cut = mt->alpha_mode == RILL_ALPHA_MASK || in->lod_fade != 0.0f;
        uint64_t key =
            cut ? (1ull << 41) | ((uint64_t)ti << 25) | in_block | mesh_bits : in_block | mesh_bits;
        out->plain += !cut * list_add(lists[LIST_CASTERS], &len[LIST_CASTERS], key, i, prev, rg);
    }
}

/* The instances of a slice as chunk entries: one per instance, one per range of a ranged one
 * (whose ranges may continue into the next chunk). */
typedef struct slice_cursor {
    uint32_t i, end;     /* the next instance, the slice's end */
    uint32_t sub, track; /* a ranged instance's next range and its motion record */
    handle_cache mesh_cache, mat_cache;
} slice_cursor;

/* The first position from i on (below end) that the GPU path did not take (gpu_cull.c: taken
 * positions are non-zero), eight at a time through runs of taken ones: with GPU culling on, a
 * world is mostly such runs, and this walk is all the CPU path spends on them. */
static uint32_t skip_taken(const uint8_t *taken, uint32_t i, uint32_t end) {
    while (i + 8u <= end) {
        uint64_t w;
        memcpy(&w, taken + i, sizeof(w));
        if ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull) {
            break; /* a zero byte among the eight */
        }
        i += 8u;
    }
    while (i < end && taken[i]) {
        i++;
    }
    return i;
}

/* Fills ch with the cursor's next entries (at most a chunk): handles resolved (hidden, not
 * uploaded, stale and badly ranged instances skipped), motion records taken (once per
 * instance), matrices and mesh-space spheres gathered. Returns the entry count. */
static uint32_t chunk_fill(const cull_job *jb, slice_cursor *c, cull_chunk *ch, cull_slice *out,
                           uint32_t begin) {
    const rill_renderer *r = jb->r;
    const rill_render_snapshot *snap = jb->snap;
    uint32_t m = 0;
    while (c->i < c->end && m < CULL_CHUNK) {
        uint32_t i = c->i;
        const rill_render_instance *in = &snap->instances[i];
        if (jb->p->gpu_taken && jb->p->gpu_taken[i]) {
            c->i = skip_taken(jb->p->gpu_taken, i, c->end); /* culled and drawn by the GPU path */
            continue;
        }
        int32_t mi = -1, ti = -1;
        if (in->mode != RILL_RENDER_MODE_HIDDEN) { /* hidden: no pass sees it */
            mi = cached_mesh_index(r, &c->mesh_cache, in->mesh.id);
            ti = cached_material_index(r, &c->mat_cache, in->material.id);
        }
        bool ranges_ok = (uint64_t)in->range_first + in->range_count <= snap->range_count;
        if (mi < 0 || ti < 0 || !ranges_ok) {
            c->i++; /* not uploaded yet, or stale, or bad ranges: draws nothing */
            continue;
        }
        const mesh_slot *ms = &r->meshes[mi];
        if (in->range_count) {
            const rill_render_range *rg = &snap->ranges[in->range_first + c->sub];
            if (c->sub == 0) {
                c->track = jb->motion ? jb->motion[i] : track_record(jb, out, begin, in, i);
            }
            ch->range[m] = in->range_first + c->sub;
            ch->prev[m] = c->track;
            if (++c->sub == in->range_count) {
                c->sub = 0;
                c->i++;
            }
            if (!range_fits(rg, ms)) {
                continue;
            }
            chunk_gather(ch, m, in->transform, rg->center, rg->radius);
        } else {
            ch->range[m] = UINT32_MAX;
            ch->prev[m] = jb->motion ? jb->motion[i] : track_record(jb, out, begin, in, i);
            c->i++;
            chunk_gather(ch, m, in->transform, ms->center, ms->radius);
        }
        ch->inst[m] = i;
        ch->mesh[m] = (uint16_t)mi;
        ch->mat[m] = (uint16_t)ti;
        m++;
    }
    return m;
}

/* Culls snapshot instances [begin, end), slice `index` (a rill_job_range_fn), chunk by chunk: a
 * scalar loop (chunk_fill) puts the instances into flat arrays; branch-free loops over those
 * arrays compute the world spheres and test the view frustum and the shadow volume (the compiler
 * vectorizes them); a last loop sorts the results into the draw lists. */
static void cull_slice_run(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    const cull_job *jb = arg;
    cull_slice *out = &jb->slices[index];
    uint32_t at = out->at;
    memset(out, 0, sizeof(*out));
    out->at = at;
    slice_cursor c = {.i = begin, .end = end, .track = UINT32_MAX};
    handle_cache_reset(&c.mesh_cache);
    handle_cache_reset(&c.mat_cache);
    cull_chunk ch;
    bool shadows = jb->p->shadows;
    while (c.i < c.end) {
        uint32_t m = chunk_fill(jb, &c, &ch, out, begin);
        if (m == 0) {
            break; /* the slice's end (its rest taken by the GPU path, hidden or not ready) */
        }
        if (m < CULL_CHUNK) {
            chunk_clear_tail(&ch, m);
        }
        chunk_spheres(&ch);
        cull_frustum(&ch, jb->p->planes);
        if (shadows) {
            cull_shadow(&ch, jb->p->shadow_center, jb->p->shadow_radius, jb->p->sun_dir);
        }
        for (uint32_t j = 0; j < m; j++) {
            if (ch.visible[j] || (shadows && ch.shadow_near[j])) {
                list_entry(jb, &ch, j, out); /* most of an open world is in no list */
            }
        }
    }
}

/* The serial pass after the slices: the motion records in snapshot order through
 * track_instance (the hash map and the history's growth are not shared between threads), each
 * record's result left in its slot field. */
static void history_apply(rill_renderer *r, const cull_job *jb, uint32_t nslices) {
    for (uint32_t t = 0; t < nslices; t++) {
        cull_track *tr = jb->tracks + (uint64_t)t * CULL_SLICE;
        for (uint32_t k = 0; k < jb->slices[t].tracked; k++) {
            tr[k].slot = track_instance(r, &jb->snap->instances[tr[k].pos], &tr[k]);
        }
    }
}

/* Moves each slice's items of list l down behind the previous slices' (in snapshot order, so the
 * list is what one serial loop would have made) and turns their motion record indices into
 * history slots. Returns the list's length. */
static uint32_t list_merge(const cull_job *jb, int l, uint32_t nslices) {
    draw_item *items = jb->lists[l];
    uint32_t n = 0;
    for (uint32_t t = 0; t < nslices; t++) {
        const draw_item *src = items + jb->slices[t].at;
        for (uint32_t k = 0; k < jb->slices[t].len[l]; k++) {
            draw_item it = src[k];
            if (!jb->motion) { /* else the earlier view's slots already */
                it.prev = it.prev == UINT32_MAX ? UINT32_MAX : jb->tracks[it.prev].slot;
            }
            items[n++] = it;
        }
    }
    return n;
}

/* >>the view's lists ------------------------------------------------------------------------ */

/* After the first view's history pass: each snapshot position's motion record (UINT32_MAX
 * without one), for the frame's other views of the same snapshot. Every instance a view can list
 * was recorded (chunk_fill records before any test). Left unset when out of memory: then each view
 * takes its own records, as before. */
static void motion_keep(rill_renderer *r, const cull_job *jb, uint32_t nslices, uint32_t ninst) {
    r->motion_instances = NULL;
    if (!rill_array_size_for(&r->motion_prev, ninst ? ninst : 1)) {
        return;
    }
    uint32_t *mp = r->motion_prev.data;
    for (uint32_t i = 0; i < ninst; i++) {
        mp[i] = UINT32_MAX;
    }
    for (uint32_t t = 0; t < nslices; t++) {
        const cull_track *tr = jb->tracks + (uint64_t)t * CULL_SLICE;
        for (uint32_t k = 0; k < jb->slices[t].tracked; k++) {
            mp[tr[k].pos] = tr[k].slot;
        }
    }
    r->motion_instances = jb->snap->instances;
    r->motion_count = ninst;
    r->motion_frame = r->frame_counter;
}

/* The motion records an earlier view of this frame took over the same snapshot, or NULL. */
static const uint32_t *motion_reuse(const rill_renderer *r, const rill__view *vs) {
    bool same = vs->index > 0 && r->motion_frame == r->frame_counter &&
                r->motion_instances == vs->snap->instances &&
                r->motion_count == vs->snap->instance_count && vs->snap->instance_count;
    return same ? r->motion_prev.data : NULL;
}

/* Sizes the view's lists for cap items (the slices write their items without a capacity check),
 * the sort's scratch (sized like them, as it exchanges buffers with a list) and the motion records
 * (one per instance). The arrays keep their memory across frames, sized for this frame's items by
 * rill_array_size_for rather than for the most ever seen, so it goes back when they fall. */
static bool cull_reserve(rill_renderer *r, rill__view *vs, uint32_t cap, uint32_t ninst) {
    uint32_t n = cap ? cap : 1;
    return rill_array_size_for(&vs->opaque, n) && rill_array_size_for(&vs->transparent, n) &&
           rill_array_size_for(&vs->casters, n) && rill_array_size_for(&vs->wires, n) &&
           rill_array_size_for(&vs->ghosts, n) && rill_array_size_for(&r->sort_tmp, n) &&
           rill_array_size_for(&r->cull_tracks, ninst ? ninst : 1);
}

rill_result rill__view_cull(rill_renderer *r, rill__view *vs, const rill__cull_params *p,
                            rill_error *err) {
    const rill_render_snapshot *snap = vs->snap;
    vs->opaque.len = vs->transparent.len = vs->casters.len = vs->wires.len = vs->ghosts.len = 0;
    vs->casters_plain = vs->opaque_solid = vs->wires_edges = vs->ghosts_opaque = 0;
    uint32_t ninst = snap->instance_count;
    uint32_t nslices = (uint32_t)(((uint64_t)ninst + CULL_SLICE - 1u) / CULL_SLICE);
    if (!rill_array_reserve(&r->cull_slices, nslices ? nslices : 1) ||
        !cull_reserve(r, vs, cull_layout(snap, r->cull_slices.data, nslices), ninst)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for draw lists");
    }
    if (vs->index == 0) {
        history_compact(r, ninst);
        history_size(r, ninst);
    }
    cull_job jb = {
        .r = r,
        .snap = snap,
        .p = p,
        .lists = {vs->opaque.data, vs->transparent.data, vs->casters.data, vs->wires.data,
                  vs->ghosts.data},
        .slices = r->cull_slices.data,
        .tracks = r->cull_tracks.data,
        .motion = motion_reuse(r, vs),
        .wire_pipe = r->pipes[RILL__PIPE_WIRE] != NULL,
        .passthrough = vs->passthrough,
        .wire_fade_end = vs->wire_fade[1],
    };
    /* The slices run on the renderer's jobs (the calling thread takes part; NULL: in order,
     * here), then the history and the merge put their results together in snapshot order, so
     * the lists are the same whatever the number of threads. */
    rill_jobs_for(r->desc.jobs, ninst, CULL_SLICE, cull_slice_run, &jb);
    history_apply(r, &jb, nslices);
    if (!jb.motion && vs->index == 0) {
        /* Only a frame of several views has views after this one (frame_views.c: composed). */
        if (r->frame.composed) {
            motion_keep(r, &jb, nslices, ninst);
        } else {
            r->motion_instances = NULL;
        }
    }
    uint32_t n_plain = 0, n_solid = 0, n_edges = 0, n_glass = 0;
    for (uint32_t t = 0; t < nslices; t++) {
        n_plain += jb.slices[t].plain;
        n_solid += jb.slices[t].solid;
        n_edges += jb.slices[t].edges;
        n_glass += jb.slices[t].glass;
    }
    vs->opaque.len = list_merge(&jb, LIST_OPAQUE, nslices);
    vs->transparent.len = list_merge(&jb, LIST_TRANSPARENT, nslices);
    vs->casters.len = list_merge(&jb, LIST_CASTERS, nslices);
    vs->wires.len = list_merge(&jb, LIST_WIRES, nslices);
    vs->ghosts.len = list_merge(&jb, LIST_GHOSTS, nslices);
    vs->wires_edges = n_edges;
    vs->casters_plain = n_plain;
    vs->opaque_solid = n_solid;
    vs->ghosts_opaque = vs->ghosts.len - n_glass;
    rill__phase_mark(r, RILL__CPU_CULL);
    sort_list(r, &vs->opaque.data, vs->opaque.len, &vs->opaque.cap, 44);
    sort_list(r, &vs->transparent.data, vs->transparent.len, &vs->transparent.cap, 32);
    sort_list(r, &vs->casters.data, vs->casters.len, &vs->casters.cap, 42);
    sort_list(r, &vs->wires.data, vs->wires.len, &vs->wires.cap, 26);
    sort_list(r, &vs->ghosts.data, vs->ghosts.len, &vs->ghosts.cap, 34);
    r->instances_visible += vs->opaque.len + vs->transparent.len + vs->wires.len;
    rill__phase_mark(r, RILL__CPU_SORT);
    return RILL_OK;
}
