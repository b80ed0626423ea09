/* textures.c: texture streaming decisions (rill/stream/textures.h): the 2 Hz evaluator with its
 * 60/90 hysteresis, groups of materials linked by shared textures (a union-find kept as materials
 * are added), the budget pass (farthest full group first), and parked swaps applied group by
 * group once every texture's data is ready. An evaluation is a sweep split into slices of at most
 * `work_per_update` items per update (users measured, groups reset, materials decided, textures
 * retargeted), so its per-frame cost is bounded whatever the number of users. */
#include "rill/stream/textures.h"

#include "rill/stream.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NO_LEVEL (-1)
#define DEFAULT_WORK 32768u
#define DEFAULT_APPLY_BYTES (4ull << 20)

typedef struct ts_tex {
    uint64_t bytes[2]; /* [RILL_TEX_LOW], [RILL_TEX_FULL] */
    int8_t resident, target, requested, ready;
    bool dead, listed; /* listed: in the pending list */
    uint32_t owner;    /* first material naming it, RILL_TEXSTREAM_NONE = unused (kept as it is) */
} ts_tex;

typedef struct ts_mat {
    uint32_t slots[RILL_TEXSTREAM_SLOTS];
    uint32_t flags;
    uint8_t gen;     /* the id's top bits: an id of a removed material stays invalid when reused */
    bool freed;      /* dead and on the free list */
    uint32_t parent; /* union-find over materials sharing textures; a root names its group */
    uint32_t sweep;  /* the sweep that last measured sweep_d */
    bool want_full;  /* the hysteresis state */
    bool dead;
    float distance, sweep_d;
} ts_mat;

typedef struct ts_user {
    uint32_t material; /* RILL_TEXSTREAM_NONE = free slot */
    float mn[3], mx[3];
} ts_user;

/* Per root material: its group. */
typedef struct ts_group {
    bool pinned, full;
    float distance;
    uint64_t delta; /* full - low bytes of its textures */
} ts_group;

enum {
    PH_IDLE,
    PH_MEASURE,
    PH_GROUPS,
    PH_DECIDE,
    PH_BUDGET_SUM,  /* the bytes of every texture at its target level */
    PH_BUDGET_HEAP, /* over budget: the full groups into a max-heap by distance */
    PH_BUDGET_DROP, /* the farthest ones drop to low until it fits */
    PH_RETARGET
};

struct rill_texstream {
    rill_texstream_settings set;
    rill_texstream_ops ops;
    ts_tex *tex;
    ts_mat *mat;
    ts_user *users;
    ts_group *groups; /* indexed by material (only roots are meaningful) */
    uint32_t *free_users;
    uint32_t *free_tex, *free_mat; /* ids to reuse */
    uint32_t nfree_tex, cfree_tex, nfree_mat, cfree_mat;
    uint32_t dead_mats; /* removed materials not freed yet (freed when the groups are rebuilt) */
    uint32_t *pending;  /* textures with a request in flight (resident != target) */
    uint8_t *blocked;   /* per material, scratch of apply_ready_groups (all zero between calls) */
    uint32_t *applied;  /* per material, scratch of apply_ready_groups: groups applied */
    uint32_t *heap;     /* the budget pass's max-heap of full groups (farthest on top) */
    uint32_t nheap, cheap;
    uint64_t budget_total; /* the budget pass's bytes at target levels */
    uint32_t npending, cpending;
    uint32_t ntex, ctex, nmat, cmat, cgroups, cblocked, capplied, nusers, cusers, nfree, cfree;
    uint32_t live_users;
    bool due_now, restart, evaluated_once, was_on; /* restart: settings changed mid-sweep */
    /* the sweep in progress */
    int phase;
    uint32_t cursor, sweep;
    bool sweep_on;
    float sweep_cam[3];
    uint64_t sweep_ns;
    double last_eval;
    uint64_t requests, cancels, swaps, evaluations, eval_ns_max, update_ns_max;
};

rill_texstream_settings rill_texstream_settings_default(void) {
    return (rill_texstream_settings){.enabled = true,
                                     .full_distance = 60.0f,
                                     .low_distance = 90.0f,
                                     .interval = 0.5,
                                     .work_per_update = DEFAULT_WORK,
                                     .apply_bytes_per_update = DEFAULT_APPLY_BYTES};
}

float rill_texstream_low_distance(const rill_texstream_settings *s) {
    float min_low = s->full_distance + 5.0f;
    return s->low_distance > min_low ? s->low_distance : min_low;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) {
        return true;
    }
    uint32_t nc = *cap ? *cap * 2 : 64;
    while (nc < need) {
        nc *= 2;
    }
    void *q = rill_realloc_tagged(*p, (size_t)nc * elem, RILL_MEM_STREAM);
    if (!q) {
        return false;
    }
    *p = q;
    *cap = nc;
    return true;
}

rill_texstream *rill_texstream_create(const rill_texstream_settings *settings,
                                      const rill_texstream_ops *ops) {
    rill_texstream *ts = rill_calloc_tagged(1, sizeof *ts, RILL_MEM_STREAM);
    if (!ts) {
        return NULL;
    }
    ts->set = settings ? *settings : rill_texstream_settings_default();
    if (ops) {
        ts->ops = *ops;
    }
    ts->due_now = true;
    return ts;
}

void rill_texstream_destroy(rill_texstream *ts) {
    if (!ts) {
        return;
    }
    rill_free(ts->tex);
    rill_free(ts->mat);
    rill_free(ts->users);
    rill_free(ts->groups);
    rill_free(ts->free_users);
    rill_free(ts->free_tex);
    rill_free(ts->free_mat);
    rill_free(ts->pending);
    rill_free(ts->blocked);
    rill_free(ts->applied);
    rill_free(ts->heap);
    rill_free(ts);
}

uint32_t rill_texstream_add_texture(rill_texstream *ts, uint64_t full_bytes, uint64_t low_bytes,
                                    rill_texstream_level resident) {
    uint32_t id;
    if (ts->nfree_tex) {
        id = ts->free_tex[--ts->nfree_tex];
    } else {
        /* Every texture may enter the pending list once, and its id the free list once: reserve
         * now so pushing there cannot fail. */
        if (!grow((void **)&ts->tex, &ts->ctex, ts->ntex + 1, sizeof *ts->tex) ||
            !grow((void **)&ts->pending, &ts->cpending, ts->ntex + 1, sizeof *ts->pending) ||
            !grow((void **)&ts->free_tex, &ts->cfree_tex, ts->ntex + 1, sizeof *ts->free_tex)) {
            return RILL_TEXSTREAM_NONE;
        }
        id = ts->ntex++;
    }
    int8_t lv = resident == RILL_TEX_FULL ? RILL_TEX_FULL : RILL_TEX_LOW;
    ts->tex[id] = (ts_tex){.bytes = {low_bytes, full_bytes},
                           .resident = lv,
                           .target = lv,
                           .requested = NO_LEVEL,
                           .ready = NO_LEVEL,
                           .owner = RILL_TEXSTREAM_NONE};
    return id;
}

/* >>groups: union-find over materials linked by a shared texture; merged as materials come ----- */

static uint32_t find_root(ts_mat *mat, uint32_t x) {
    while (mat[x].parent != x) {
        mat[x].parent = mat[mat[x].parent].parent;
        x = mat[x].parent;
    }
    return x;
}

static void unite(rill_texstream *ts, uint32_t a, uint32_t b) {
    a = find_root(ts->mat, a);
    b = find_root(ts->mat, b);
    if (a == b) {
        return;
    }
    ts->mat[a].parent = b;
    ts->groups[b].pinned |= ts->groups[a].pinned;
    ts->groups[b].full |= ts->groups[a].full;
    ts->groups[b].delta += ts->groups[a].delta;
    if (ts->groups[a].distance < ts->groups[b].distance) {
        ts->groups[b].distance = ts->groups[a].distance;
    }
}

static uint64_t tex_delta(const ts_tex *x) {
    return x->bytes[1] > x->bytes[0] ? x->bytes[1] - x->bytes[0] : 0;
}

/* Material ids: the index in the low MAT_BITS bits, the generation above. */
#define MAT_BITS 24u
#define MAT_MASK ((1u << MAT_BITS) - 1u)

static uint32_t mat_id(const rill_texstream *ts, uint32_t m) {
    return m | ((uint32_t)ts->mat[m].gen << MAT_BITS);
}

/* The index of a live material's id; RILL_TEXSTREAM_NONE for a removed one, stale or unknown. */
static uint32_t mat_index(const rill_texstream *ts, uint32_t id) {
    uint32_t m = id & MAT_MASK;
    bool live = id != RILL_TEXSTREAM_NONE && m < ts->nmat && !ts->mat[m].dead &&
                ts->mat[m].gen == (uint8_t)(id >> MAT_BITS);
    return live ? m : RILL_TEXSTREAM_NONE;
}

static ts_group group_of_flags(uint32_t flags) {
    bool pinned = (flags & (RILL_TEXSTREAM_CUSTOM_SHADER | RILL_TEXSTREAM_TERRAIN_SPLAT)) != 0;
    return (ts_group){.pinned = pinned, .full = pinned, .distance = FLT_MAX};
}

/* Links material m to its textures: the first material naming a texture owns it (its bytes count
 * in that group), any later one joins the owner's group. */
static void link_slots(rill_texstream *ts, uint32_t m) {
    for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
        uint32_t t = ts->mat[m].slots[i];
        if (t == RILL_TEXSTREAM_NONE) {
            continue;
        }
        if (ts->tex[t].owner == RILL_TEXSTREAM_NONE) {
            ts->tex[t].owner = m;
            ts->groups[find_root(ts->mat, m)].delta += tex_delta(&ts->tex[t]);
        } else {
            unite(ts, m, ts->tex[t].owner);
        }
    }
}

/* A material index: a freed one, or a new one with every per-material array grown. */
static uint32_t new_material_index(rill_texstream *ts) {
    if (ts->nfree_mat) {
        return ts->free_mat[--ts->nfree_mat];
    }
    uint32_t need = ts->nmat + 1;
    if (ts->nmat >= MAT_MASK || !grow((void **)&ts->mat, &ts->cmat, need, sizeof *ts->mat) ||
        !grow((void **)&ts->groups, &ts->cgroups, need, sizeof *ts->groups) ||
        !grow((void **)&ts->blocked, &ts->cblocked, need, 1) ||
        !grow((void **)&ts->applied, &ts->capplied, need, sizeof *ts->applied) ||
        !grow((void **)&ts->heap, &ts->cheap, need, sizeof *ts->heap) ||
        !grow((void **)&ts->free_mat, &ts->cfree_mat, need, sizeof *ts->free_mat)) {
        return RILL_TEXSTREAM_NONE;
    }
    ts->mat[ts->nmat].gen = 0;
    return ts->nmat++;
}

uint32_t rill_texstream_add_material(rill_texstream *ts, const uint32_t slots[RILL_TEXSTREAM_SLOTS],
                                     uint32_t flags) {
    uint32_t id = new_material_index(ts);
    if (id == RILL_TEXSTREAM_NONE) {
        return RILL_TEXSTREAM_NONE;
    }
    ts_mat *m = &ts->mat[id];
    uint8_t gen = m->gen;
    memset(m, 0, sizeof *m);
    m->gen = gen;
    m->parent = id;
    m->flags = flags;
    m->distance = m->sweep_d = FLT_MAX;
    m->sweep = UINT32_MAX;
    ts->blocked[id] = 0;
    ts->groups[id] = group_of_flags(flags);
    for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
        bool live = slots && slots[i] < ts->ntex && !ts->tex[slots[i]].dead;
        m->slots[i] = live ? slots[i] : RILL_TEXSTREAM_NONE;
    }
    link_slots(ts, id);
    ts->due_now = true; /* a new material is decided at once */
    return mat_id(ts, id);
}

void rill_texstream_remove_material(rill_texstream *ts, uint32_t material) {
    uint32_t m = mat_index(ts, material);
    if (m != RILL_TEXSTREAM_NONE) {
        ts->mat[m].dead = true; /* its group stays until the groups are rebuilt */
        ts->dead_mats++;
    }
}

static void cancel_request(rill_texstream *ts, uint32_t t) {
    ts_tex *x = &ts->tex[t];
    if (ts->ops.cancel) {
        ts->ops.cancel(ts->ops.user, t, (rill_texstream_level)x->requested);
    }
    ts->cancels++;
    x->requested = NO_LEVEL; /* dropped from the pending list at the next apply pass */
    x->ready = NO_LEVEL;
}

/* Rebuilds the groups from the live materials (a removed material no longer links the ones it
 * shared textures with) and frees the removed materials' ids, their generation moved on so the
 * old ids stay invalid. O(materials + textures); run at the start of a sweep once a quarter of
 * the material ids are dead, so amortized O(1) per removal. A texture no live material names
 * keeps its level; its request in flight is cancelled. */
static void regroup(rill_texstream *ts) {
    for (uint32_t t = 0; t < ts->ntex; t++) {
        ts->tex[t].owner = RILL_TEXSTREAM_NONE;
    }
    for (uint32_t m = 0; m < ts->nmat; m++) {
        ts->mat[m].parent = m;
        ts->groups[m] = group_of_flags(ts->mat[m].dead ? 0 : ts->mat[m].flags);
    }
    for (uint32_t m = 0; m < ts->nmat; m++) {
        ts_mat *mt = &ts->mat[m];
        if (!mt->dead) {
            link_slots(ts, m);
        } else if (!mt->freed) {
            mt->freed = true;
            mt->gen++;
            ts->free_mat[ts->nfree_mat++] = m; /* reserved at add: cannot overflow */
        }
    }
    for (uint32_t t = 0; t < ts->ntex; t++) {
        const ts_tex *x = &ts->tex[t];
        if (!x->dead && x->owner == RILL_TEXSTREAM_NONE && x->requested != NO_LEVEL) {
            cancel_request(ts, t);
        }
    }
    ts->dead_mats = 0;
}

void rill_texstream_remove_texture(rill_texstream *ts, uint32_t tex) {
    if (tex >= ts->ntex || ts->tex[tex].dead) {
        return;
    }
    ts_tex *x = &ts->tex[tex];
    if (x->requested != NO_LEVEL) {
        cancel_request(ts, tex);
    }
    if (x->owner != RILL_TEXSTREAM_NONE) {
        ts_group *g = &ts->groups[find_root(ts->mat, x->owner)];
        g->delta -= RILL_MIN(g->delta, tex_delta(x));
    }
    x->dead = true;
    if (!x->listed) { /* else freed when the apply pass drops it from the pending list */
        ts->free_tex[ts->nfree_tex++] = tex; /* reserved at add: cannot overflow */
    }
}

uint32_t rill_texstream_add_user(rill_texstream *ts, uint32_t material, const float mn[3],
                                 const float mx[3]) {
    if (mat_index(ts, material) == RILL_TEXSTREAM_NONE) {
        return RILL_TEXSTREAM_NONE;
    }
    uint32_t id;
    if (ts->nfree) {
        id = ts->free_users[--ts->nfree];
    } else {
        if (!grow((void **)&ts->users, &ts->cusers, ts->nusers + 1, sizeof *ts->users) ||
            !grow((void **)&ts->free_users, &ts->cfree, ts->nusers + 1, sizeof *ts->free_users)) {
            return RILL_TEXSTREAM_NONE;
        }
        id = ts->nusers++;
    }
    ts->users[id].material = material;
    rill_texstream_set_user_bounds(ts, id, mn, mx);
    ts->live_users++;
    return id;
}

void rill_texstream_set_user_bounds(rill_texstream *ts, uint32_t user, const float mn[3],
                                    const float mx[3]) {
    if (user >= ts->nusers) {
        return;
    }
    memcpy(ts->users[user].mn, mn, sizeof ts->users[user].mn);
    memcpy(ts->users[user].mx, mx, sizeof ts->users[user].mx);
}

void rill_texstream_remove_user(rill_texstream *ts, uint32_t user) {
    if (user >= ts->nusers || ts->users[user].material == RILL_TEXSTREAM_NONE) {
        return;
    }
    ts->users[user].material = RILL_TEXSTREAM_NONE;
    ts->free_users[ts->nfree++] = user; /* reserved at add: cannot overflow */
    ts->live_users--;
}

void rill_texstream_set_settings(rill_texstream *ts, const rill_texstream_settings *settings) {
    ts->set = *settings;
    ts->due_now = true;
    ts->restart = true;
}

const rill_texstream_settings *rill_texstream_get_settings(const rill_texstream *ts) {
    return &ts->set;
}

/* >>evaluation: a sweep in slices ----------------------------------------------------------- */

static bool group_full(rill_texstream *ts, const ts_tex *x) {
    return ts->groups[find_root(ts->mat, x->owner)].full;
}

/* >>budget pass: over budget, the farthest full groups that are not pinned drop to low until it
 * fits; in slices (one item = one texture summed, one group offered, one group dropped). */

static uint64_t target_of(rill_texstream *ts, uint32_t t) {
    const ts_tex *x = &ts->tex[t];
    if (x->dead) {
        return 0;
    }
    bool full = x->owner == RILL_TEXSTREAM_NONE ? x->resident == RILL_TEX_FULL : group_full(ts, x);
    return x->bytes[full ? 1 : 0];
}

/* Whether group a drops before group b: farther first, then the lower id (a stable order). */
static bool drops_first(const rill_texstream *ts, uint32_t a, uint32_t b) {
    float da = ts->groups[a].distance, db = ts->groups[b].distance;
    return da > db || (da == db && a < b);
}

static void heap_swap(uint32_t *h, uint32_t i, uint32_t j) {
    uint32_t t = h[i];
    h[i] = h[j];
    h[j] = t;
}

static void offer_group(rill_texstream *ts, uint32_t m) {
    const ts_group *g = &ts->groups[m];
    if (ts->mat[m].parent != m || !g->full || g->pinned) {
        return;
    }
    uint32_t *h = ts->heap, i = ts->nheap++; /* cheap >= nmat: cannot overflow */
    h[i] = m;
    while (i && drops_first(ts, h[i], h[(i - 1) / 2])) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static uint32_t heap_pop(rill_texstream *ts) {
    uint32_t *h = ts->heap, top = h[0], n = --ts->nheap, i = 0;
    h[0] = h[n];
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < n && drops_first(ts, h[l], h[best])) {
            best = l;
        }
        if (r < n && drops_first(ts, h[r], h[best])) {
            best = r;
        }
        if (best == i) {
            return top;
        }
        heap_swap(h, i, best);
        i = best;
    }
}

/* The farthest full group drops (one that stopped being a group's root since it was offered, a
 * material added mid-sweep having merged it, is skipped: its new root decides). */
static void drop_farthest(rill_texstream *ts) {
    uint32_t g = heap_pop(ts);
    if (ts->mat[g].parent == g && ts->groups[g].full) {
        ts->groups[g].full = false;
        ts->budget_total -= RILL_MIN(ts->budget_total, ts->groups[g].delta);
    }
}

/* Targets follow the groups; requests start or are cancelled to match. */
static void retarget_one(rill_texstream *ts, uint32_t t) {
    ts_tex *x = &ts->tex[t];
    if (x->dead || x->owner == RILL_TEXSTREAM_NONE) {
        return; /* no material uses it: kept at the level it has */
    }
    int8_t want = group_full(ts, x) ? RILL_TEX_FULL : RILL_TEX_LOW;
    x->target = want;
    if (x->requested != NO_LEVEL && x->requested != want) {
        cancel_request(ts, t);
    }
    if (x->resident != want && x->requested == NO_LEVEL) {
        x->requested = want;
        if (!x->listed) { /* a cancelled entry may still sit in the list */
            x->listed = true;
            ts->pending[ts->npending++] = t;
        }
        ts->requests++;
        if (ts->ops.request) {
            ts->ops.request(ts->ops.user, t, (rill_texstream_level)want);
        }
    }
}

static void measure_one(rill_texstream *ts, uint32_t u) {
    const ts_user *us = &ts->users[u];
    if (us->material == RILL_TEXSTREAM_NONE) {
        return;
    }
    uint32_t mi = mat_index(ts, us->material);
    if (mi == RILL_TEXSTREAM_NONE) {
        return; /* its material was removed: the carrier drops or moves this user */
    }
    float d = rill_stream_distance_to_box(ts->sweep_cam, us->mn, us->mx);
    ts_mat *m = &ts->mat[mi];
    if (m->sweep != ts->sweep) {
        m->sweep = ts->sweep;
        m->sweep_d = d;
    } else if (d < m->sweep_d) {
        m->sweep_d = d;
    }
}

static void decide_one(rill_texstream *ts, uint32_t mi) {
    ts_mat *mt = &ts->mat[mi];
    if (mt->dead) {
        return;
    }
    mt->distance = mt->sweep == ts->sweep ? mt->sweep_d : FLT_MAX; /* no user: far */
    if (mt->distance < ts->set.full_distance) {
        mt->want_full = true;
    } else if (mt->distance > rill_texstream_low_distance(&ts->set)) {
        mt->want_full = false;
    }
    ts_group *g = &ts->groups[find_root(ts->mat, mi)];
    g->full |= mt->want_full;
    if (mt->distance < g->distance) {
        g->distance = mt->distance;
    }
}

static void start_sweep(rill_texstream *ts, bool on, const float camera[3]) {
    ts->sweep_on = on;
    ts->sweep++;
    ts->cursor = 0;
    ts->sweep_ns = 0;
    if (on) {
        memcpy(ts->sweep_cam, camera, sizeof ts->sweep_cam);
        ts->phase = PH_MEASURE;
    } else {
        ts->phase = PH_GROUPS; /* everything full: nothing to measure */
    }
}

static void next_phase(rill_texstream *ts) {
    ts->cursor = 0;
    switch (ts->phase) {
    case PH_MEASURE:
        ts->phase = PH_GROUPS;
        break;
    case PH_GROUPS:
        ts->phase = ts->sweep_on ? PH_DECIDE : PH_RETARGET; /* off: everything full */
        break;
    case PH_DECIDE:
        ts->phase = ts->set.budget_bytes ? PH_BUDGET_SUM : PH_RETARGET;
        ts->budget_total = 0;
        break;
    case PH_BUDGET_SUM:
        ts->phase = ts->budget_total > ts->set.budget_bytes ? PH_BUDGET_HEAP : PH_RETARGET;
        ts->nheap = 0;
        break;
    case PH_BUDGET_HEAP:
        ts->phase = PH_BUDGET_DROP;
        break;
    case PH_BUDGET_DROP:
        ts->phase = PH_RETARGET;
        break;
    default:
        ts->phase = PH_IDLE;
        break;
    }
}

static void reset_group(rill_texstream *ts, uint32_t m) {
    ts_group *g = &ts->groups[m];
    g->full = g->pinned || !ts->sweep_on;
    g->distance = FLT_MAX;
}

static void sum_target(rill_texstream *ts, uint32_t t) {
    ts->budget_total += target_of(ts, t);
}

/* fn on items cursor.. of a phase of n items while *work lasts; true when the phase is done. */
static bool each(rill_texstream *ts, uint32_t n, uint32_t *work,
                 void (*fn)(rill_texstream *, uint32_t)) {
    for (; *work && ts->cursor < n; --*work) {
        fn(ts, ts->cursor++);
    }
    return ts->cursor >= n;
}

/* Runs up to `work` items of the sweep; true when the sweep finished. */
static bool run_sweep(rill_texstream *ts, uint32_t work) {
    while (work && ts->phase != PH_IDLE) {
        bool done = false;
        switch (ts->phase) {
        case PH_MEASURE:
            done = each(ts, ts->nusers, &work, measure_one);
            break;
        case PH_GROUPS:
            done = each(ts, ts->nmat, &work, reset_group);
            break;
        case PH_DECIDE:
            done = each(ts, ts->nmat, &work, decide_one);
            break;
        case PH_BUDGET_SUM:
            done = each(ts, ts->ntex, &work, sum_target);
            break;
        case PH_BUDGET_HEAP:
            done = each(ts, ts->nmat, &work, offer_group);
            break;
        case PH_BUDGET_DROP:
            for (; work && ts->nheap && ts->budget_total > ts->set.budget_bytes; work--) {
                drop_farthest(ts);
            }
            done = !ts->nheap || ts->budget_total <= ts->set.budget_bytes;
            break;
        case PH_RETARGET:
            done = each(ts, ts->ntex, &work, retarget_one);
            break;
        }
        if (done) {
            next_phase(ts);
        }
    }
    return ts->phase == PH_IDLE;
}

/* >>parked swaps ----------------------------------------------------------------------------- */

static uint32_t tex_group(rill_texstream *ts, const ts_tex *x) {
    return find_root(ts->mat, x->owner);
}

/* Drops cancelled entries; a group applies when none of its textures still waits for data
 * (every texture of a group whose resident level differs from its target is in the list), whole,
 * while this update's apply bytes last (the first ready group always goes). blocked[] per group:
 * 0 undecided, 1 waits, 2 applies in this update. */
static void apply_ready_groups(rill_texstream *ts) {
    uint8_t *blocked = ts->blocked;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ts->npending; i++) {
        uint32_t t = ts->pending[i];
        ts_tex *x = &ts->tex[t];
        if (x->requested == NO_LEVEL || x->dead) {
            x->listed = false;
            if (x->dead) {
                ts->free_tex[ts->nfree_tex++] = t; /* removed while listed: its id is free now */
            }
            continue; /* cancelled */
        }
        ts->pending[n++] = t;
        if (x->ready != x->target) {
            blocked[tex_group(ts, x)] = 1;
        }
    }
    ts->npending = n;
    uint64_t cap =
        ts->set.apply_bytes_per_update ? ts->set.apply_bytes_per_update : DEFAULT_APPLY_BYTES;
    uint64_t spent = 0;
    uint32_t napplied = 0;
    n = 0;
    for (uint32_t i = 0; i < ts->npending; i++) {
        uint32_t t = ts->pending[i];
        ts_tex *x = &ts->tex[t];
        uint32_t g = tex_group(ts, x);
        if (blocked[g] == 0) { /* the first texture of a ready group: apply it now or later */
            blocked[g] = napplied && spent >= cap ? 1 : 2;
            if (blocked[g] == 2) {
                ts->applied[napplied++] = g;
            }
        }
        if (blocked[g] == 1) {
            ts->pending[n++] = t;
            continue;
        }
        if (ts->ops.apply) {
            ts->ops.apply(ts->ops.user, t, (rill_texstream_level)x->target);
        }
        spent += x->bytes[x->target];
        x->resident = x->target;
        x->requested = NO_LEVEL;
        x->ready = NO_LEVEL;
        x->listed = false;
        ts->swaps++;
    }
    ts->npending = n;
    for (uint32_t i = 0; i < n; i++) {
        blocked[tex_group(ts, &ts->tex[ts->pending[i]])] = 0;
    }
    for (uint32_t i = 0; i < napplied; i++) {
        blocked[ts->applied[i]] = 0;
    }
}

bool rill_texstream_update(rill_texstream *ts, double now, bool active, const float camera[3]) {
    uint64_t t0 = now_ns();
    bool on = active && ts->set.enabled;
    double interval = ts->set.interval > 0 ? ts->set.interval : 0.5;
    /* A clock that went back (a caller switching clocks) counts as due, never as a long wait. */
    bool due = ts->due_now || !ts->evaluated_once || on != ts->was_on ||
               now - ts->last_eval >= interval || now < ts->last_eval;
    /* The sweep in progress restarts when the gate or the settings changed under it; anything
     * else (a tick, a new material) waits for it to finish, so a steady stream of new models
     * cannot keep it from ever finishing. */
    bool restart = ts->phase != PH_IDLE && (on != ts->sweep_on || ts->restart);
    ts->restart = false;
    if ((due && ts->phase == PH_IDLE) || restart) {
        if (on && !camera) {
            ts->was_on = on; /* the gate is open and there is no camera: nothing changes */
            ts->evaluated_once = true;
            ts->last_eval = now;
            ts->due_now = false;
            ts->phase = PH_IDLE;
        } else {
            if (ts->dead_mats && ts->dead_mats * 4u >= ts->nmat) {
                regroup(ts);
            }
            start_sweep(ts, on, camera);
            ts->was_on = on;
            ts->last_eval = now;
            ts->due_now = false;
        }
    }
    bool finished = false;
    if (ts->phase != PH_IDLE) {
        uint32_t work = ts->set.work_per_update ? ts->set.work_per_update : DEFAULT_WORK;
        uint64_t s0 = now_ns();
        finished = run_sweep(ts, work);
        ts->sweep_ns += now_ns() - s0;
        if (finished) {
            ts->evaluated_once = true;
            ts->evaluations++;
            ts->eval_ns_max = RILL_MAX(ts->eval_ns_max, ts->sweep_ns);
        }
    }
    if (ts->npending) {
        apply_ready_groups(ts);
    }
    uint64_t dt = now_ns() - t0;
    ts->update_ns_max = RILL_MAX(ts->update_ns_max, dt);
    return finished || (due && on && !camera);
}

void rill_texstream_data_ready(rill_texstream *ts, uint32_t tex, rill_texstream_level level) {
    if (tex >= ts->ntex || ts->tex[tex].requested != (int8_t)level) {
        return; /* cancelled or never asked for */
    }
    ts->tex[tex].ready = (int8_t)level;
}

/* >>queries ---------------------------------------------------------------------------------- */

rill_texstream_level rill_texstream_target(const rill_texstream *ts, uint32_t tex) {
    return tex < ts->ntex ? (rill_texstream_level)ts->tex[tex].target : RILL_TEX_LOW;
}

rill_texstream_level rill_texstream_resident(const rill_texstream *ts, uint32_t tex) {
    return tex < ts->ntex ? (rill_texstream_level)ts->tex[tex].resident : RILL_TEX_LOW;
}

rill_texstream_level rill_texstream_material_level(const rill_texstream *ts, uint32_t material) {
    uint32_t m = mat_index(ts, material);
    if (m == RILL_TEXSTREAM_NONE) {
        return RILL_TEX_LOW;
    }
    for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
        uint32_t t = ts->mat[m].slots[i];
        if (t != RILL_TEXSTREAM_NONE) {
            return (rill_texstream_level)ts->tex[t].resident;
        }
    }
    return RILL_TEX_LOW;
}

bool rill_texstream_material_swapping(const rill_texstream *ts, uint32_t material) {
    uint32_t m = mat_index(ts, material);
    if (m == RILL_TEXSTREAM_NONE) {
        return false;
    }
    for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
        uint32_t t = ts->mat[m].slots[i];
        if (t != RILL_TEXSTREAM_NONE && ts->tex[t].requested != NO_LEVEL) {
            return true;
        }
    }
    return false;
}

float rill_texstream_material_distance(const rill_texstream *ts, uint32_t material) {
    uint32_t m = mat_index(ts, material);
    return m != RILL_TEXSTREAM_NONE ? ts->mat[m].distance : FLT_MAX;
}

void rill_texstream_get_stats(const rill_texstream *ts, rill_texstream_stats *out) {
    memset(out, 0, sizeof *out);
    out->materials = ts->nmat - ts->dead_mats - ts->nfree_mat;
    out->users = ts->live_users;
    for (uint32_t t = 0; t < ts->ntex; t++) {
        const ts_tex *x = &ts->tex[t];
        if (x->dead) {
            continue;
        }
        out->textures++;
        if (x->resident == RILL_TEX_FULL) {
            out->full++;
        } else {
            out->low++;
        }
        out->in_flight += x->requested != NO_LEVEL;
        out->resident_bytes += x->bytes[x->resident];
        out->target_bytes += x->bytes[x->target];
        out->all_full_bytes += x->bytes[1];
    }
    out->requests = ts->requests;
    out->cancels = ts->cancels;
    out->swaps = ts->swaps;
    out->evaluations = ts->evaluations;
    out->evaluate_ns_max = ts->eval_ns_max;
    out->update_ns_max = ts->update_ns_max;
    out->sweeping = ts->phase != PH_IDLE;
}
