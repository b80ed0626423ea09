/* textures.c: texture streaming decisions (rill/stream/textures.h): the 2 Hz evaluator with its
 * 60/90 hysteresis, groups of materials linked by shared textures, the budget pass (farthest full
 * group first), and parked swaps applied group by group once every texture's data is ready. */
#include "rill/stream/textures.h"

#include "rill/stream.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NO_LEVEL (-1)

typedef struct ts_tex {
    uint64_t bytes[2]; /* [RILL_TEX_LOW], [RILL_TEX_FULL] */
    int8_t resident, target, requested, ready;
    uint32_t group;
} ts_tex;

typedef struct ts_mat {
    uint32_t slots[RILL_TEXSTREAM_SLOTS];
    uint32_t flags;
    uint32_t group;
    bool want_full; /* the hysteresis state */
    float distance;
} ts_mat;

typedef struct ts_user {
    uint32_t material; /* RILL_TEXSTREAM_NONE = free slot */
    float mn[3], mx[3];
} ts_user;

typedef struct ts_group {
    bool pinned, fixed, full; /* fixed: textures no material uses keep their level */
    float distance;
    uint64_t delta; /* full - low bytes of its textures */
} ts_group;

struct rill_texstream {
    rill_texstream_settings set;
    rill_texstream_ops ops;
    ts_tex *tex;
    ts_mat *mat;
    ts_user *users;
    ts_group *groups;
    uint32_t *free_users;
    uint32_t *pending; /* textures with a request in flight (resident != target) */
    uint8_t *blocked;  /* per group, scratch of apply_ready_groups (all zero between calls) */
    uint32_t npending, cpending;
    uint32_t ntex, ctex, nmat, cmat, nusers, cusers, nfree, cfree, ngroups;
    uint32_t live_users;
    bool groups_dirty, due_now, evaluated_once, was_on;
    double last_eval;
    uint64_t requests, cancels, swaps, evaluations, eval_ns_max;
};

rill_texstream_settings rill_texstream_settings_default(void) {
    return (rill_texstream_settings){
        .enabled = true, .full_distance = 60.0f, .low_distance = 90.0f, .interval = 0.5};
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
    rill_free(ts->pending);
    rill_free(ts->blocked);
    rill_free(ts);
}

uint32_t rill_texstream_add_texture(rill_texstream *ts, uint64_t full_bytes, uint64_t low_bytes,
                                    rill_tex_level resident) {
    if (!grow((void **)&ts->tex, &ts->ctex, ts->ntex + 1, sizeof *ts->tex)) {
        return RILL_TEXSTREAM_NONE;
    }
    int8_t lv = resident == RILL_TEX_FULL ? RILL_TEX_FULL : RILL_TEX_LOW;
    ts->tex[ts->ntex] = (ts_tex){.bytes = {low_bytes, full_bytes},
                                 .resident = lv,
                                 .target = lv,
                                 .requested = NO_LEVEL,
                                 .ready = NO_LEVEL};
    ts->groups_dirty = true;
    return ts->ntex++;
}

uint32_t rill_texstream_add_material(rill_texstream *ts, const uint32_t slots[RILL_TEXSTREAM_SLOTS],
                                     uint32_t flags) {
    if (!grow((void **)&ts->mat, &ts->cmat, ts->nmat + 1, sizeof *ts->mat)) {
        return RILL_TEXSTREAM_NONE;
    }
    ts_mat *m = &ts->mat[ts->nmat];
    memset(m, 0, sizeof *m);
    for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
        m->slots[i] = slots && slots[i] < ts->ntex ? slots[i] : RILL_TEXSTREAM_NONE;
    }
    m->flags = flags;
    m->distance = FLT_MAX;
    ts->groups_dirty = true;
    return ts->nmat++;
}

uint32_t rill_texstream_add_user(rill_texstream *ts, uint32_t material, const float mn[3],
                                 const float mx[3]) {
    if (material >= ts->nmat) {
        return RILL_TEXSTREAM_NONE;
    }
    uint32_t id;
    if (ts->nfree) {
        id = ts->free_users[--ts->nfree];
    } else {
        if (!grow((void **)&ts->users, &ts->cusers, ts->nusers + 1, sizeof *ts->users)) {
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
    if (!grow((void **)&ts->free_users, &ts->cfree, ts->nfree + 1, sizeof *ts->free_users)) {
        return; /* keeps the user rather than losing track of the slot */
    }
    ts->users[user].material = RILL_TEXSTREAM_NONE;
    ts->free_users[ts->nfree++] = user;
    ts->live_users--;
}

void rill_texstream_set_settings(rill_texstream *ts, const rill_texstream_settings *settings) {
    ts->set = *settings;
    ts->due_now = true;
}

const rill_texstream_settings *rill_texstream_get_settings(const rill_texstream *ts) {
    return &ts->set;
}

/* >>groups: union-find over materials linked by a shared texture --------------------------------
 */

static uint32_t find_root(uint32_t *parent, uint32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static bool build_groups(rill_texstream *ts) {
    uint32_t *parent = rill_malloc_tagged(((size_t)ts->nmat + 1) * sizeof *parent, RILL_MEM_STREAM);
    uint32_t *owner = rill_malloc_tagged(((size_t)ts->ntex + 1) * sizeof *owner, RILL_MEM_STREAM);
    ts_group *groups =
        rill_calloc_tagged((size_t)ts->nmat + ts->ntex + 1, sizeof *groups, RILL_MEM_STREAM);
    uint8_t *blocked = rill_calloc_tagged((size_t)ts->nmat + ts->ntex + 1, 1, RILL_MEM_STREAM);
    if (!parent || !owner || !groups || !blocked) {
        rill_free(parent);
        rill_free(owner);
        rill_free(groups);
        rill_free(blocked);
        return false;
    }
    for (uint32_t m = 0; m < ts->nmat; m++) {
        parent[m] = m;
    }
    for (uint32_t t = 0; t < ts->ntex; t++) {
        owner[t] = RILL_TEXSTREAM_NONE;
    }
    for (uint32_t m = 0; m < ts->nmat; m++) {
        for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
            uint32_t t = ts->mat[m].slots[i];
            if (t == RILL_TEXSTREAM_NONE) {
                continue;
            }
            if (owner[t] == RILL_TEXSTREAM_NONE) {
                owner[t] = m;
            } else {
                parent[find_root(parent, m)] = find_root(parent, owner[t]);
            }
        }
    }
    /* Group ids: one per root material, then one per texture no material uses (kept as it is). */
    uint32_t n = 0;
    for (uint32_t m = 0; m < ts->nmat; m++) {
        if (find_root(parent, m) == m) {
            ts->mat[m].group = n++;
        }
    }
    for (uint32_t m = 0; m < ts->nmat; m++) {
        ts->mat[m].group = ts->mat[find_root(parent, m)].group;
        groups[ts->mat[m].group].pinned |=
            (ts->mat[m].flags & (RILL_TEXSTREAM_CUSTOM_SHADER | RILL_TEXSTREAM_TERRAIN_SPLAT)) != 0;
    }
    for (uint32_t t = 0; t < ts->ntex; t++) {
        ts->tex[t].group = owner[t] == RILL_TEXSTREAM_NONE ? n++ : ts->mat[owner[t]].group;
        groups[ts->tex[t].group].delta += ts->tex[t].bytes[1] > ts->tex[t].bytes[0]
                                              ? ts->tex[t].bytes[1] - ts->tex[t].bytes[0]
                                              : 0;
        if (owner[t] == RILL_TEXSTREAM_NONE) {
            groups[ts->tex[t].group].fixed = true; /* unused: nothing to decide from */
            groups[ts->tex[t].group].full = ts->tex[t].resident == RILL_TEX_FULL;
        }
    }
    rill_free(parent);
    rill_free(owner);
    rill_free(ts->groups);
    rill_free(ts->blocked);
    ts->groups = groups;
    ts->blocked = blocked;
    ts->ngroups = n;
    ts->groups_dirty = false;
    ts->due_now = true; /* new materials are decided at once */
    return true;
}

/* >>evaluation ------------------------------------------------------------------------------- */

static void measure(rill_texstream *ts, const float camera[3]) {
    for (uint32_t m = 0; m < ts->nmat; m++) {
        ts->mat[m].distance = FLT_MAX;
    }
    for (uint32_t u = 0; u < ts->nusers; u++) {
        const ts_user *us = &ts->users[u];
        if (us->material == RILL_TEXSTREAM_NONE) {
            continue;
        }
        float d = rill_stream_distance_to_box(camera, us->mn, us->mx);
        if (d < ts->mat[us->material].distance) {
            ts->mat[us->material].distance = d;
        }
    }
}

static void decide_by_distance(rill_texstream *ts) {
    float full_d = ts->set.full_distance, low_d = rill_texstream_low_distance(&ts->set);
    for (uint32_t g = 0; g < ts->ngroups; g++) {
        ts->groups[g].distance = FLT_MAX;
        if (!ts->groups[g].fixed) {
            ts->groups[g].full = ts->groups[g].pinned;
        }
    }
    for (uint32_t m = 0; m < ts->nmat; m++) {
        ts_mat *mt = &ts->mat[m];
        if (mt->distance < full_d) {
            mt->want_full = true;
        } else if (mt->distance > low_d) {
            mt->want_full = false;
        }
        ts_group *g = &ts->groups[mt->group];
        g->full |= mt->want_full;
        if (mt->distance < g->distance) {
            g->distance = mt->distance;
        }
    }
}

typedef struct ts_order {
    float distance;
    uint32_t group;
} ts_order;

static int cmp_farthest(const void *a, const void *b) {
    const ts_order *x = a, *y = b;
    if (x->distance != y->distance) {
        return x->distance > y->distance ? -1 : 1;
    }
    return x->group < y->group ? -1 : x->group > y->group; /* stable for equal distances */
}

static uint64_t target_bytes(const rill_texstream *ts) {
    uint64_t sum = 0;
    for (uint32_t t = 0; t < ts->ntex; t++) {
        sum += ts->tex[t].bytes[ts->groups[ts->tex[t].group].full ? 1 : 0];
    }
    return sum;
}

static void apply_budget(rill_texstream *ts) {
    if (!ts->set.budget_bytes) {
        return;
    }
    uint64_t total = target_bytes(ts);
    if (total <= ts->set.budget_bytes) {
        return;
    }
    ts_order *order =
        rill_malloc_tagged(((size_t)ts->ngroups + 1) * sizeof *order, RILL_MEM_STREAM);
    if (!order) {
        return;
    }
    uint32_t n = 0;
    for (uint32_t g = 0; g < ts->ngroups; g++) {
        if (ts->groups[g].full && !ts->groups[g].pinned && !ts->groups[g].fixed) {
            order[n++] = (ts_order){ts->groups[g].distance, g};
        }
    }
    qsort(order, n, sizeof *order, cmp_farthest);
    for (uint32_t i = 0; i < n && total > ts->set.budget_bytes; i++) {
        ts->groups[order[i].group].full = false;
        total -= ts->groups[order[i].group].delta;
    }
    rill_free(order);
}

static void all_full(rill_texstream *ts) {
    for (uint32_t g = 0; g < ts->ngroups; g++) {
        ts->groups[g].full = true;
    }
}

/* Targets follow the groups; requests start or are cancelled to match. */
static void retarget(rill_texstream *ts) {
    /* Every texture may enter the list at most once; reserve so pushing cannot fail. */
    if (!grow((void **)&ts->pending, &ts->cpending, ts->ntex + 1, sizeof *ts->pending)) {
        return; /* decisions wait for memory; nothing half-done */
    }
    for (uint32_t t = 0; t < ts->ntex; t++) {
        ts_tex *x = &ts->tex[t];
        int8_t want = ts->groups[x->group].full ? RILL_TEX_FULL : RILL_TEX_LOW;
        x->target = want;
        if (x->requested != NO_LEVEL && x->requested != want) {
            if (ts->ops.cancel) {
                ts->ops.cancel(ts->ops.user, t, (rill_tex_level)x->requested);
            }
            ts->cancels++;
            x->requested = NO_LEVEL;
            x->ready = NO_LEVEL;
        }
        if (x->resident != want && x->requested == NO_LEVEL) {
            x->requested = want;
            ts->pending[ts->npending++] = t;
            ts->requests++;
            if (ts->ops.request) {
                ts->ops.request(ts->ops.user, t, (rill_tex_level)want);
            }
        }
    }
}

static void evaluate(rill_texstream *ts, bool on, const float camera[3]) {
    uint64_t t0 = now_ns();
    if (!on) {
        /* Everything full. Idempotent: requests start only for textures not yet full and not
         * already requested, so the turn back to full happens once per transition. */
        all_full(ts);
        retarget(ts);
    } else if (camera) {
        measure(ts, camera);
        decide_by_distance(ts);
        apply_budget(ts);
        retarget(ts);
    }
    ts->was_on = on;
    ts->evaluated_once = true;
    ts->evaluations++;
    uint64_t dt = now_ns() - t0;
    if (dt > ts->eval_ns_max) {
        ts->eval_ns_max = dt;
    }
}

/* >>parked swaps ----------------------------------------------------------------------------- */

/* Drops cancelled entries; a group applies when none of its textures still waits for data
 * (every texture of a group whose resident level differs from its target is in the list). */
static void apply_ready_groups(rill_texstream *ts) {
    uint8_t *blocked = ts->blocked;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ts->npending; i++) {
        uint32_t t = ts->pending[i];
        const ts_tex *x = &ts->tex[t];
        if (x->requested == NO_LEVEL) {
            continue; /* cancelled */
        }
        ts->pending[n++] = t;
        if (x->ready != x->target) {
            blocked[x->group] = 1;
        }
    }
    ts->npending = n;
    n = 0;
    for (uint32_t i = 0; i < ts->npending; i++) {
        uint32_t t = ts->pending[i];
        ts_tex *x = &ts->tex[t];
        if (blocked[x->group]) {
            ts->pending[n++] = t;
            continue;
        }
        if (ts->ops.apply) {
            ts->ops.apply(ts->ops.user, t, (rill_tex_level)x->target);
        }
        x->resident = x->target;
        x->requested = NO_LEVEL;
        x->ready = NO_LEVEL;
        ts->swaps++;
    }
    ts->npending = n;
    for (uint32_t i = 0; i < n; i++) {
        blocked[ts->tex[ts->pending[i]].group] = 0;
    }
}

bool rill_texstream_update(rill_texstream *ts, double now, bool active, const float camera[3]) {
    if (ts->groups_dirty && !build_groups(ts)) {
        return false;
    }
    bool on = active && ts->set.enabled;
    double interval = ts->set.interval > 0 ? ts->set.interval : 0.5;
    bool due =
        ts->due_now || !ts->evaluated_once || on != ts->was_on || now - ts->last_eval >= interval;
    if (due) {
        evaluate(ts, on, camera);
        ts->last_eval = now;
        ts->due_now = false;
    }
    if (ts->npending) {
        apply_ready_groups(ts);
    }
    return due;
}

void rill_texstream_data_ready(rill_texstream *ts, uint32_t tex, rill_tex_level level) {
    if (tex >= ts->ntex || ts->tex[tex].requested != (int8_t)level) {
        return; /* cancelled or never asked for */
    }
    ts->tex[tex].ready = (int8_t)level;
}

/* >>queries ---------------------------------------------------------------------------------- */

rill_tex_level rill_texstream_target(const rill_texstream *ts, uint32_t tex) {
    return tex < ts->ntex ? (rill_tex_level)ts->tex[tex].target : RILL_TEX_LOW;
}

rill_tex_level rill_texstream_resident(const rill_texstream *ts, uint32_t tex) {
    return tex < ts->ntex ? (rill_tex_level)ts->tex[tex].resident : RILL_TEX_LOW;
}

rill_tex_level rill_texstream_material_level(const rill_texstream *ts, uint32_t material) {
    if (material >= ts->nmat) {
        return RILL_TEX_LOW;
    }
    for (uint32_t i = 0; i < RILL_TEXSTREAM_SLOTS; i++) {
        uint32_t t = ts->mat[material].slots[i];
        if (t != RILL_TEXSTREAM_NONE) {
            return (rill_tex_level)ts->tex[t].resident;
        }
    }
    return RILL_TEX_LOW;
}

float rill_texstream_material_distance(const rill_texstream *ts, uint32_t material) {
    return material < ts->nmat ? ts->mat[material].distance : FLT_MAX;
}

void rill_texstream_get_stats(const rill_texstream *ts, rill_texstream_stats *out) {
    memset(out, 0, sizeof *out);
    out->textures = ts->ntex;
    out->materials = ts->nmat;
    out->users = ts->live_users;
    for (uint32_t t = 0; t < ts->ntex; t++) {
        const ts_tex *x = &ts->tex[t];
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
}
