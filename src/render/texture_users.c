/* texture_users.c: the texture streaming users of the render asset cache (texture_users.h). A
 * ModelMesh entity with a streamed material, a GlobalTransform and no hidden RenderMode is a user
 * of its material, with its mesh's bounding sphere in world space as its box. What can change a
 * user reaches this file without looking at every entity each frame:
 *   - ModelMesh added, replaced or removed: the cache's world observers (model_assets.c);
 *   - RenderMode set or removed (a LOD level parked or shown, an instance unloading): observers
 *     here, which drop a user that became hidden at once and queue one that may draw again;
 *   - a moved transform: the world's changed-transform list, read each update;
 *   - an asset uploaded: the entities that waited for it are queued.
 * Queued entities are measured in time-bounded slices. Records are kept by entity index (a
 * record whose entity differs is stale), so an observer's work is an index and a compare; they
 * live in pages of REC_PAGE made as entity indices reach them, so a world growing past a few
 * hundred thousand entities never copies and zeroes one large array in a frame. */
#include "texture_users.h"

#include "model_assets.h"

#include <math.h>
#include <string.h>

/* The slice: main-thread time, read every SLICE_CHECK entities, at least SLICE_MIN entities. */
#define SLICE_CHECK 256u
#define SLICE_MIN 512u

enum { REC_IDLE, REC_QUEUED, REC_WAITING };
#define REC_PAGE_BITS 12u
#define REC_PAGE (1u << REC_PAGE_BITS)

typedef struct user_rec {
    rill_entity e;    /* RILL_ENTITY_NULL: no ModelMesh entity here */
    uint32_t ts_user; /* RILL_TEXSTREAM_NONE: not a user now */
    uint32_t ts_mat;  /* the material of ts_user */
    uint32_t state;   /* REC_* */
} user_rec;

struct rill__tex_users {
    rill_render_assets *ra;
    rill_renderer *r;
    rill_world *world;
    rill_texstream *ts;
    rill_component model_mesh, render_mode, global_transform;
    RILL_ARRAY(user_rec *) pages;  /* records by entity index, REC_PAGE a page (NULL: none yet) */
    RILL_ARRAY(rill_entity) queue; /* to measure, from head on */
    uint32_t head;
    RILL_ARRAY(rill_entity) waiting; /* their asset had no upload yet */
    uint64_t uploads_seen;
    uint32_t users;
};

static user_rec *rec_at(const rill__tex_users *u, uint32_t idx) {
    uint32_t p = idx >> REC_PAGE_BITS;
    return p < u->pages.len && u->pages.data[p] ? &u->pages.data[p][idx & (REC_PAGE - 1u)] : NULL;
}

static user_rec *rec_of(rill__tex_users *u, rill_entity e) {
    user_rec *rc = rec_at(u, RILL_ENTITY_INDEX(e));
    return rc && rc->e == e ? rc : NULL;
}

/* A record for e (a stale one in its place is replaced), or NULL when out of memory. */
static user_rec *rec_make(rill__tex_users *u, rill_entity e) {
    uint32_t p = RILL_ENTITY_INDEX(e) >> REC_PAGE_BITS;
    while (u->pages.len <= p) {
        if (!rill_array_push(&u->pages, NULL)) {
            return NULL;
        }
    }
    if (!u->pages.data[p] &&
        !(u->pages.data[p] = rill_calloc_tagged(REC_PAGE, sizeof(user_rec), RILL_MEM_RENDER))) {
        return NULL;
    }
    user_rec *rc = rec_at(u, RILL_ENTITY_INDEX(e));
    if (rc->e != e) {
        *rc = (user_rec){e, RILL_TEXSTREAM_NONE, RILL_TEXSTREAM_NONE, REC_IDLE};
    }
    return rc;
}

static void enqueue(rill__tex_users *u, user_rec *rc) {
    if (rc->state != REC_QUEUED && rill_array_push(&u->queue, rc->e)) {
        rc->state = REC_QUEUED;
    }
}

static void drop_user(rill__tex_users *u, user_rec *rc) {
    if (rc->ts_user != RILL_TEXSTREAM_NONE) {
        rill_texstream_remove_user(u->ts, rc->ts_user);
        rc->ts_user = RILL_TEXSTREAM_NONE;
        u->users--;
    }
}

static void set_user(rill__tex_users *u, user_rec *rc, uint32_t ts_mat, const float mn[3],
                     const float mx[3]) {
    if (rc->ts_user != RILL_TEXSTREAM_NONE && rc->ts_mat == ts_mat) {
        rill_texstream_set_user_bounds(u->ts, rc->ts_user, mn, mx);
        return;
    }
    drop_user(u, rc); /* another material now: another user */
    rc->ts_user = rill_texstream_add_user(u->ts, ts_mat, mn, mx);
    rc->ts_mat = ts_mat;
    u->users += rc->ts_user != RILL_TEXSTREAM_NONE;
}

void rill__tex_users_mesh_added(rill__tex_users *u, rill_entity e) {
    user_rec *rc = u ? rec_make(u, e) : NULL;
    if (rc) {
        enqueue(u, rc);
    }
}

void rill__tex_users_mesh_removed(rill__tex_users *u, rill_entity e) {
    user_rec *rc = u ? rec_of(u, e) : NULL;
    if (rc) {
        drop_user(u, rc);
        rc->e = RILL_ENTITY_NULL; /* its queue and waiting entries are skipped */
    }
}

/* >>RenderMode observers: they find the users through the cache's world resource (the id is the
 * observer's user pointer), so a destroyed cache is never reached. ----------------------------- */

static rill__tex_users *users_at(rill_world *w, void *user) {
    rill_render_assets *ra = rill__render_assets_at(w, (uint32_t)(uintptr_t)user);
    return ra ? rill__render_assets_users(ra) : NULL;
}

/* A RenderMode written: a user that is hidden now goes at once; an entity that may draw and is
 * no user is measured. A write that changes neither (a crossfade step) costs a compare. */
static void on_mode_set(rill_world *w, rill_entity e, void *data, void *user) {
    rill__tex_users *u = users_at(w, user);
    user_rec *rc = u ? rec_of(u, e) : NULL;
    if (!rc) {
        return;
    }
    if (((const rill_render_mode_component *)data)->mode == RILL_RENDER_MODE_HIDDEN) {
        drop_user(u, rc);
    } else if (rc->ts_user == RILL_TEXSTREAM_NONE && rc->state == REC_IDLE) {
        enqueue(u, rc);
    }
}

static void on_mode_removed(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    rill__tex_users *u = users_at(w, user);
    user_rec *rc = u ? rec_of(u, e) : NULL;
    if (rc && rc->ts_user == RILL_TEXSTREAM_NONE && rc->state == REC_IDLE) {
        enqueue(u, rc);
    }
}

rill__tex_users *rill__tex_users_create(rill_render_assets *ra, rill_renderer *r, rill_world *world,
                                        const rill_model_components *mc, uint32_t resource,
                                        rill_texstream *ts) {
    void *user = (void *)(uintptr_t)resource;
    if (!rill_world_observe_add(world, mc->render_mode, on_mode_set, user) ||
        !rill_world_observe_remove(world, mc->render_mode, on_mode_removed, user)) {
        return NULL;
    }
    rill__tex_users *u = rill_calloc_tagged(1, sizeof(*u), RILL_MEM_RENDER);
    if (u) {
        u->ra = ra;
        u->r = r;
        u->world = world;
        u->ts = ts;
        u->model_mesh = mc->model_mesh;
        u->render_mode = mc->render_mode;
        u->global_transform = rill_world_builtin(world)->global_transform;
    }
    return u;
}

void rill__tex_users_destroy(rill__tex_users *u) {
    if (u) {
        for (uint32_t p = 0; p < u->pages.len; p++) {
            rill_free(u->pages.data[p]);
        }
        rill_array_free(&u->pages);
        rill_array_free(&u->queue);
        rill_array_free(&u->waiting);
        rill_free(u);
    }
}

/* >>measuring --------------------------------------------------------------------------------- */

/* World box of mesh under m: the bounding sphere moved and scaled, as a box. */
static bool world_box(const rill_renderer *r, rill_mesh mesh, const float m[16], float mn[3],
                      float mx[3]) {
    float c[3], rad = 0;
    if (!rill_render_mesh_info(r, mesh, NULL, c, &rad)) {
        return false;
    }
    float s = 0;
    for (int k = 0; k < 3; k++) {
        float l =
            sqrtf(m[4 * k] * m[4 * k] + m[4 * k + 1] * m[4 * k + 1] + m[4 * k + 2] * m[4 * k + 2]);
        s = l > s ? l : s;
    }
    for (int k = 0; k < 3; k++) {
        float w = m[k] * c[0] + m[4 + k] * c[1] + m[8 + k] * c[2] + m[12 + k];
        mn[k] = w - rad * s;
        mx[k] = w + rad * s;
    }
    return true;
}

/* One queued entity: its user with its world box, or none (hidden, no streamed material, no
 * transform). One whose asset has no upload yet waits for the next upload. */
static void measure(rill__tex_users *u, rill_entity e) {
    user_rec *rc = rec_of(u, e);
    if (!rc || rc->state != REC_QUEUED) {
        return; /* forgotten, or a duplicate already measured */
    }
    rc->state = REC_IDLE;
    const rill_model_mesh *mm = rill_world_get(u->world, e, u->model_mesh);
    rill_mesh mesh = {0};
    uint32_t tm = RILL_TEXSTREAM_NONE;
    if (mm && !rill__render_assets_stream_mesh(u->ra, mm, &mesh, &tm)) {
        drop_user(u, rc);
        if (rill_array_push(&u->waiting, e)) {
            rc->state = REC_WAITING;
        }
        return;
    }
    const rill_render_mode_component *rm =
        tm != RILL_TEXSTREAM_NONE ? rill_world_get(u->world, e, u->render_mode) : NULL;
    if (rm && rm->mode == RILL_RENDER_MODE_HIDDEN) {
        tm = RILL_TEXSTREAM_NONE; /* draws nothing: level trees far from their band stay low */
    }
    const rill_global_transform *xf =
        tm != RILL_TEXSTREAM_NONE ? rill_world_get(u->world, e, u->global_transform) : NULL;
    float mn[3], mx[3];
    if (xf && world_box(u->r, mesh, xf->m, mn, mx)) {
        set_user(u, rc, tm, mn, mx);
    } else {
        drop_user(u, rc);
    }
}

/* Users whose transform moved, and ModelMesh entities whose GlobalTransform came after them. */
static void queue_moved(rill__tex_users *u) {
    uint32_t n = 0;
    const rill_entity *moved = rill_world_changed_transforms(u->world, &n);
    for (uint32_t i = 0; i < n; i++) {
        user_rec *rc = rec_of(u, moved[i]);
        if (rc && rc->state == REC_IDLE) {
            enqueue(u, rc);
        }
    }
}

/* After an upload: the waiting entities are measured again (those whose asset is still not
 * uploaded come back). */
static void queue_waiting(rill__tex_users *u) {
    uint64_t uploads = rill__render_assets_uploads(u->ra);
    if (uploads == u->uploads_seen) {
        return;
    }
    u->uploads_seen = uploads;
    for (uint32_t i = 0; i < u->waiting.len; i++) {
        user_rec *rc = rec_of(u, u->waiting.data[i]);
        if (rc && rc->state == REC_WAITING) {
            rc->state = REC_IDLE;
            enqueue(u, rc);
        }
    }
    rill_array_clear(&u->waiting);
}

void rill__tex_users_update(rill__tex_users *u, uint64_t budget_ns) {
    if (!u) {
        return;
    }
    queue_moved(u);
    queue_waiting(u);
    uint64_t t0 = rill_time_ns();
    uint32_t done = 0;
    while (u->head < u->queue.len && (done < SLICE_MIN || rill_time_ns() - t0 < budget_ns)) {
        uint32_t end = RILL_MIN(u->queue.len, u->head + SLICE_CHECK);
        done += end - u->head;
        while (u->head < end) {
            measure(u, u->queue.data[u->head++]);
        }
    }
    if (u->head == u->queue.len) {
        u->head = 0;
        rill_array_clear(&u->queue);
    } else if (u->head >= u->queue.len / 2u) {
        uint32_t left = u->queue.len - u->head; /* keep the queue's memory to what is left */
        memmove(u->queue.data, u->queue.data + u->head, left * sizeof(rill_entity));
        u->queue.len = left;
        u->head = 0;
    }
}

uint32_t rill__tex_users_pending(const rill__tex_users *u) {
    return u ? u->queue.len - u->head : 0;
}

uint32_t rill__tex_users_count(const rill__tex_users *u) {
    return u ? u->users : 0;
}
