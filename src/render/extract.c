/* extract.c: the MeshInstance component and the extract step that turns a world into a
 * rill_render_snapshot: MeshInstances draw their GPU handles, ModelMeshes (rill/scene/model.h)
 * are resolved through the world's rill_render_assets to the uploaded model's mesh and material,
 * RenderMode picks how each draws. The snapshot holds copies (matrices, handles, light values),
 * never pointers into component storage, so the world may change while the frame is recorded. */
#include "batch.h"
#include "model_assets.h"
#include "post_internal.h"
#include "render_internal.h"
#include "rill/channels.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const rill_field mesh_instance_fields[] = {
    RILL_FIELD(rill_mesh_instance, mesh, U32),
    RILL_FIELD(rill_mesh_instance, material, U32),
};

rill_result rill_render_register_components(rill_world *world, rill_render_components *out,
                                            rill_error *err) {
    if (!world || !out) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL world or out");
    }
    rill_type_desc mi = {.name = "MeshInstance",
                         RILL_TYPE_LAYOUT(rill_mesh_instance),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         RILL_FIELDS(mesh_instance_fields),
                         .doc = "renderer mesh + material handles"};
    rill_model_components mc;
    if (rill_scene_model_register(world, &mc, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    out->mesh_instance = rill__render_type_ensure(world, &mi, err);
    out->model = mc.model;
    out->model_mesh = mc.model_mesh;
    out->render_mode = mc.render_mode;
    out->mesh_shown = mc.mesh_shown;
    out->directional_light = mc.directional_light;
    out->point_light = mc.point_light;
    out->spot_light = mc.spot_light;
    if (!out->mesh_instance.id) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    /* Scene channels: defaults for every renderable entity, modes the extract resolves. */
    if (rill_channels_attach(world, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    out->scene_channels = rill_channels_component(world);
    return rill__render_settings_register(world, out, err);
}

void rill_render_extract_buf_free(rill_render_extract_buf *buf) {
    if (!buf) {
        return;
    }
    rill_array_free(&buf->instances);
    rill_array_free(&buf->ranges);
    rill_array_free(&buf->lights);
    rill_array_free(&buf->probes);
    rill_array_free(&buf->decals);
    rill_array_free(&buf->fog_volumes);
    rill_array_free(&buf->water);
    rill_array_free(&buf->oceans);
    rill_array_free(&buf->routed_bytes);
    rill_array_free(&buf->route_sources);
    rill_array_free(&buf->settings_warned);
    rill_array_free(&buf->shown);
    rill_array_free(&buf->shown_tmp);
    rill_array_free(&buf->walk_parts);
    rill_array_free(&buf->walk_seen);
    rill_array_free(&buf->walk_takes);
    rill_array_free(&buf->sort_counts);
    rill_array_free(&buf->skins);
    rill_array_free(&buf->joint_matrices);
    rill_map_free(&buf->skinned);
    rill_map_free(&buf->morphed);
    rill_array_free(&buf->morph_weights);
    rill_array_free(&buf->prev_instances);
    rill_array_free(&buf->instance_changed);
    rill_array_free(&buf->instance_prev);
    rill_array_free(&buf->lookup);
    buf->instance_epoch = buf->prev_epoch = 0; /* the next extract compares with nothing */
}

static void neg_z(const float m[16], float out[3]) {
    float n = sqrtf(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
    if (n < 1e-12f) {
        n = 1.0f;
    }
    out[0] = -m[8] / n;
    out[1] = -m[9] / n;
    out[2] = -m[10] / n;
}

/* Counts n entities skipped because their world matrix is not finite or lies beyond
 * RILL_WORLD_LIMIT (e the first of them): it is not drawn, and a light or camera there is ignored
 * (its bounds, distances or projection would be inf or NaN). The first one is named once per
 * buffer; the scene loader names the file it came from. */
static void count_out_of_world(rill_world *world, rill_render_extract_buf *buf, rill_entity e,
                               uint32_t n) {
    buf->out_of_world += n;
    if (!n || buf->warned_out_of_world) {
        return;
    }
    buf->warned_out_of_world = true;
    const rill_global_transform *xf =
        rill_world_get(world, e, rill_world_builtin(world)->global_transform);
    const char *name = rill_world_get_name(world, e);
    RILL_LOG_WARN("render",
                  "extract: entity %u:%u%s%s%s: its world transform is not finite or beyond "
                  "+-%g (translation (%g, %g, %g)): skipped (named once; out_of_world counts "
                  "them)",
                  RILL_ENTITY_INDEX(e), RILL_ENTITY_GENERATION(e), name ? " (" : "",
                  name ? name : "", name ? ")" : "", (double)RILL_WORLD_LIMIT, (double)xf->m[12],
                  (double)xf->m[13], (double)xf->m[14]);
}

/* False (and counted) for an entity whose world matrix is not finite or beyond the limit. */
static bool in_world(rill_world *world, rill_render_extract_buf *buf, rill_entity e,
                     const rill_global_transform *xf) {
    if (rill_mat4_in_world_limit(xf->m)) {
        return true;
    }
    count_out_of_world(world, buf, e, 1);
    return false;
}

/* Writes one drawn instance with the entity's RenderMode rm and SceneChannels sc (each may be
 * NULL): how it draws. Padding is zeroed, so equal inputs give equal bytes. */
static void fill_instance(const rill_channel_modes *modes, rill_entity e, rill_mesh mesh,
                          rill_material mat, const rill_global_transform *xf,
                          const rill_render_mode_component *rm, const rill_scene_channels *sc,
                          rill_render_instance *in) {
    memset(in, 0, sizeof(*in)); /* mode NORMAL; no stack garbage in the unset fields */
    in->id = e;
    in->mesh = mesh;
    in->material = mat;
    memcpy(in->transform, xf->m, sizeof(in->transform));
    if (rm) {
        in->mode = (uint32_t)rm->mode < RILL_RENDER_MODE_NUM ? rm->mode : RILL_RENDER_MODE_NORMAL;
        in->ghost_opacity = rm->ghost_opacity;
        in->lod_fade = rm->lod_fade;
    }
    /* The one per-entity resolution every pass reads: the entity's channels through the modes
     * resource, joined with its own RenderMode by precedence. */
    if (sc && modes && (sc->mask & (modes->hidden | modes->wireframe | modes->ghost))) {
        float op = 1.0f;
        rill_render_mode cm = rill_channels_resolve(modes, sc->mask, &op);
        in->mode = rill_channels_join(in->mode, in->ghost_opacity, cm, op, &in->ghost_opacity);
    }
}

/* Writes one drawn instance; its RenderMode and SceneChannels (when the entity has them) say how
 * it draws. Reads the world only. */
static void fill_looked_up(rill_world *world, const rill_render_components *comps,
                           const rill_channel_modes *modes, rill_entity e, rill_mesh mesh,
                           rill_material mat, const rill_global_transform *xf,
                           rill_render_instance *in) {
    const rill_render_mode_component *rm =
        comps->render_mode.id ? rill_world_get(world, e, comps->render_mode) : NULL;
    const rill_scene_channels *sc =
        modes && comps->scene_channels.id ? rill_world_get(world, e, comps->scene_channels) : NULL;
    fill_instance(modes, e, mesh, mat, xf, rm, sc, in);
}

/* Appends one drawn instance; its RenderMode (when the entity has one) says how it draws. */
static bool push_instance(rill_world *world, const rill_render_components *comps,
                          rill_render_extract_buf *buf, rill_entity e, rill_mesh mesh,
                          rill_material mat, const rill_global_transform *xf) {
    rill_render_instance *in = rill_array_push_n(&buf->instances, 1);
    if (in) {
        fill_looked_up(world, comps, buf->channel_modes, e, mesh, mat, xf, in);
    }
    return in != NULL;
}

/* Digits of the slot sort: 11 bits each, three cover every entity index. */
#define SLOT_DIGIT_BITS 11u
#define SLOT_DIGITS 3u
#define SLOT_BUCKETS (1u << SLOT_DIGIT_BITS)

static uint32_t slot_digit(rill_entity e, uint32_t d) {
    return (RILL_ENTITY_INDEX(e) >> (d * SLOT_DIGIT_BITS)) & (SLOT_BUCKETS - 1u);
}

#define SORT_CHUNK 4096u /* entities per chunk of the slot sort */
/* Up to this many entities the slot sort runs on the calling thread: its passes are a few tenths
 * of a millisecond there (10 k shown entities: 0.09 ms on dev, 0.14 ms over one worker), and each
 * of up to six loops over the jobs is a point where the frame waits for a worker holding a chunk
 * (one preempted there stalls the frame for a scheduler slice: on dev a 178.8 ms extract chunk of
 * 0.12 ms CPU). */
#define SORT_SERIAL_MAX 65536u

/* The slot sort (LSD radix) spread over the jobs: per digit, each chunk counts its own entities'
 * digits, the counts become output positions bucket by bucket and chunk by chunk in order, and
 * each chunk scatters its own entities; equal digits keep their order, so the result is the
 * serial sort's. */
typedef struct slot_sort {
    const rill_entity *src;
    rill_entity *dst;
    uint32_t digit;
    uint32_t *counts; /* per chunk, per bucket: counts of the digit, then output positions */
    uint32_t *tops;   /* per chunk: its slots ORed together */
} slot_sort;

static uint32_t *chunk_counts(const slot_sort *s, uint32_t chunk) {
    return s->counts + (size_t)chunk * SLOT_BUCKETS;
}

/* rill_job_range_fn: the digit of src[begin, end) counted, the chunk's slots ORed. */
static void sort_count(void *arg, uint32_t begin, uint32_t end, uint32_t chunk) {
    slot_sort *s = arg;
    uint32_t *c = chunk_counts(s, chunk), top = 0;
    memset(c, 0, SLOT_BUCKETS * sizeof(*c));
    for (uint32_t i = begin; i < end; i++) {
        top |= RILL_ENTITY_INDEX(s->src[i]);
        c[slot_digit(s->src[i], s->digit)]++;
    }
    s->tops[chunk] = top;
}

/* rill_job_range_fn: src[begin, end) into dst by the digit, from the chunk's positions. */
static void sort_scatter(void *arg, uint32_t begin, uint32_t end, uint32_t chunk) {
    const slot_sort *s = arg;
    uint32_t *c = chunk_counts(s, chunk);
    for (uint32_t i = begin; i < end; i++) {
        s->dst[c[slot_digit(s->src[i], s->digit)]++] = s->src[i];
    }
}

/* The counts of every chunk become where each chunk's entities of each bucket go. */
static void sort_positions(const slot_sort *s, uint32_t chunks) {
    uint32_t sum = 0;
    for (uint32_t b = 0; b < SLOT_BUCKETS; b++) {
        for (uint32_t k = 0; k < chunks; k++) {
            uint32_t *c = chunk_counts(s, k) + b, v = *c;
            *c = sum;
            sum += v;
        }
    }
}

/* Writes src[0..n) sorted by entity slot to list (tmp holding n more), over jobs (NULL, or at most
 * SORT_SERIAL_MAX entities: here).
 * Only the digits the highest slot has are sorted on, from src straight into list or tmp, so the
 * last pass lands in list without a copy. False when out of memory. */
static bool sort_by_slot(rill_jobs *jobs, const rill_entity *src, rill_entity *list,
                         rill_entity *tmp, uint32_t n, rill_render_extract_buf *buf) {
    if (n <= SORT_SERIAL_MAX) {
        jobs = NULL;
    }
    uint32_t chunks = rill_jobs_for_chunks(jobs, n, SORT_CHUNK);
    rill_array_clear(&buf->sort_counts);
    uint32_t *mem = rill_array_push_n(&buf->sort_counts, chunks * (SLOT_BUCKETS + 1u));
    if (!mem) {
        return false;
    }
    slot_sort s = {.src = src, .counts = mem, .tops = mem + chunks * SLOT_BUCKETS};
    uint32_t passes = SLOT_DIGITS;
    for (uint32_t d = 0; d < passes; d++) {
        s.digit = d;
        rill_jobs_for(jobs, n, SORT_CHUNK, sort_count, &s);
        if (d == 0) { /* the highest slot says how many digits to sort on */
            uint32_t top = 0;
            for (uint32_t k = 0; k < chunks; k++) {
                top |= s.tops[k];
            }
            for (passes = 1; passes < SLOT_DIGITS && (top >> (passes * SLOT_DIGIT_BITS));) {
                passes++;
            }
        }
        sort_positions(&s, chunks);
        s.dst = (passes - 1u - d) % 2u ? tmp : list;
        rill_jobs_for(jobs, n, SORT_CHUNK, sort_scatter, &s);
        s.src = s.dst;
    }
    return true;
}

/* The shown ModelMesh entities (MeshShown: the detail levels a model does not show are parked out
 * of that set by rill_scene_model_set_level), sorted by slot into buf->shown (over buf->jobs). The
 * set's own order is scrambled by every level switch; walked in slot order, the lookups of each
 * entity's components (GlobalTransform above all) run forward through their storage instead of
 * jumping around it, which on the development machine made the walk 3x faster. */
static bool shown_in_slot_order(rill_world *world, rill_component shown,
                                rill_render_extract_buf *buf) {
    const rill_entity *ents = NULL;
    uint32_t n = rill_world_component_dense(world, shown, &ents, NULL);
    rill_array_clear(&buf->shown);
    rill_array_clear(&buf->shown_tmp);
    rill_entity *list = n ? rill_array_push_n(&buf->shown, n) : NULL;
    rill_entity *tmp = n ? rill_array_push_n(&buf->shown_tmp, n) : NULL;
    if (n && (!list || !tmp)) {
        return false;
    }
    return !n || sort_by_slot(buf->jobs, ents, list, tmp, n, buf);
}

/* >>the walk over the jobs: chunks of the shown list, each written in place from its own start in
 * buf->instances (every shown entity gives at most one instance), then merged in chunk order, so
 * the instances are byte for byte those a serial walk appends. A chunk reads the world and the
 * render assets only; what would change them (uploading an asset seen for the first time) is left
 * to the merge, on the calling thread: the chunk stops there and the merge walks its rest.
 * With static batching on, a chunk also asks the batcher which entities a batch draws (skipped)
 * and which drawn ones it must take (rill__batch_wants_take, read-only); what that would change in
 * the batcher is noted per chunk (how many entities each cell's batches drew, the entities to take)
 * and replayed by the merge in the walk's order, so the batcher sees what the serial walk shows it.
 * Without jobs the batched walk is that serial walk, the reference: the merge walks every entity
 * and offers every drawn one to rill__batch_take as it comes. */

#define WALK_CHUNK 512u /* entities per chunk: ~40-70 us of work, few enough chunks to merge */

/* What one chunk did. */
struct rill__extract_part {
    uint32_t written;      /* instances written from the chunk's own start */
    uint32_t stop;         /* shown index the merge goes on from (the chunk's end: none) */
    uint32_t out_count;    /* entities out of the world before stop */
    rill_entity first_out; /* the first of them */
    uint32_t seen, takes;  /* batching: notes written from the chunk's own start */
};

/* Batching: n entities in a row that batches of one cell draw (for rill__batch_seen). */
struct rill__walk_seen {
    uint32_t cell, n;
};

/* The components the walk reads of each shown entity, looked up together (rill_world_get_many):
 * its ModelMesh, GlobalTransform, RenderMode and SceneChannels (the last only when some channel
 * has a mode or batching is on, the cases fill_shown reads it in). */
enum { ROW_MESH, ROW_XFORM, ROW_MODE, ROW_CHANNELS, ROWS };

typedef struct shown_rows {
    void *at[ROWS];
} shown_rows;

typedef struct shown_walk {
    rill_world *world;
    rill_render_extract_buf *buf;
    rill_render_assets *ra;
    rill_component look[ROWS]; /* by ROW_* */
    rill_render_instance *out; /* where the walk's instances start */
    rill__batcher *bt;         /* static batching on: its batcher (else NULL) */
} shown_walk;

enum { SHOWN_SKIPPED, SHOWN_DRAWN, SHOWN_OUT_OF_WORLD, SHOWN_SERIAL, SHOWN_BATCHED };

/* Where walk_one puts what it found of one entity. */
typedef struct shown_out {
    rill_render_instance *in; /* SHOWN_DRAWN: its instance */
    rill__batch_offer *take;  /* batching: SHOWN_DRAWN: what is offered to the batcher */
    uint32_t cell;            /* SHOWN_BATCHED: the cell whose batch draws it */
} shown_out;

/* Writes the instance of a drawn entity (its RenderMode and SceneChannels, in rows, say how it
 * draws) and, with batching on, notes it when the batcher must take it. */
static void fill_shown(const shown_walk *w, rill_entity e, const shown_rows *rows, rill_mesh mesh,
                       rill_material mat, shown_out *o) {
    const rill_channel_modes *modes = w->buf->channel_modes;
    const rill_model_mesh *mm = rows->at[ROW_MESH];
    const rill_global_transform *xf = rows->at[ROW_XFORM];
    const rill_render_mode_component *rm = rows->at[ROW_MODE];
    /* A LOD level inside a crossfade draws dithered, so it stays an instance. */
    bool own_normal = !rm || (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade == 0.0f);
    /* The channels matter to the drawing only when some channel has a mode, and to the batcher
     * only for a possible candidate. */
    const rill_scene_channels *sc = modes || (w->bt && own_normal) ? rows->at[ROW_CHANNELS] : NULL;
    fill_instance(modes, e, mesh, mat, xf, rm, sc, o->in);
    if (w->bt) {
        *o->take = (rill__batch_offer){e, mm, xf->m, sc ? sc->mask : 0u, mesh, mat, own_normal};
    }
}

/* One shown entity, written to *o->in when drawn. Skipped: no ModelMesh or transform yet, not
 * uploaded yet, or failed (warned once); batched: a batch draws it (o->cell). With cur (a chunk)
 * the assets are only read and an asset not uploaded yet gives SHOWN_SERIAL; without (the merge)
 * resolving may upload it. */
static int walk_one(const shown_walk *w, rill_entity e, const shown_rows *rows,
                    rill__assets_cursor *cur, shown_out *o) {
    const rill_model_mesh *mm = rows->at[ROW_MESH];
    if (w->bt && mm && rill__batch_skip(w->bt, e, mm, &o->cell)) {
        return SHOWN_BATCHED;
    }
    const rill_global_transform *xf = mm ? rows->at[ROW_XFORM] : NULL;
    if (!xf) {
        return SHOWN_SKIPPED;
    }
    rill_mesh mesh;
    rill_material mat;
    if (cur) {
        rill__resolved r = rill__render_assets_peek(w->ra, mm, cur, &mesh, &mat);
        if (r != RILL__RESOLVE_OK) {
            return r == RILL__RESOLVE_SERIAL ? SHOWN_SERIAL : SHOWN_SKIPPED;
        }
    } else if (!rill__render_assets_resolve(w->ra, mm, &mesh, &mat)) {
        return SHOWN_SKIPPED;
    }
    if (!rill_mat4_in_world_limit(xf->m)) {
        return SHOWN_OUT_OF_WORLD;
    }
    fill_shown(w, e, rows, mesh, mat, o);
    return SHOWN_DRAWN;
}

/* Looks up e's components in one pass and asks for their cache lines. The walk does this
 * WALK_AHEAD entities before it reaches e and keeps the rows until then: the shown entities are a
 * small part of the resident ones, spread over the component storage, so nearly every read of
 * them is a cache miss, and with a dozen entities requested ahead their latencies overlap (on the
 * development machine the serial walk took 40 % less CPU time); each is looked up once. With
 * batching on, most entities are skipped on their batcher cache entry alone: it is asked for too
 * (rill__batch_prefetch). */
#define WALK_AHEAD 12u
static void fetch_rows(const shown_walk *w, rill_entity e, shown_rows *rows) {
    rill_world_get_many(w->world, e, w->look, ROWS, rows->at);
    if (w->bt) {
        rill__batch_prefetch(w->bt, rows->at[ROW_MESH]);
    }
    const char *xf = rows->at[ROW_XFORM];
    if (xf) {
        __builtin_prefetch(xf);
        __builtin_prefetch(xf + sizeof(rill_global_transform) - 1u); /* it may span two lines */
    }
    for (uint32_t k = 0; k < ROWS; k++) {
        if (k != ROW_XFORM && rows->at[k]) {
            __builtin_prefetch(rows->at[k]);
        }
    }
}

/* Batching: a chunk's skipped entities counted in runs of one cell; a run is noted when another
 * cell's starts and when the chunk ends (cell UINT32_MAX). */
static void count_seen(const shown_walk *w, struct rill__extract_part *p, uint32_t begin,
                       struct rill__walk_seen *run, uint32_t cell) {
    if (run->n && run->cell == cell) {
        run->n++;
        return;
    }
    if (run->n) {
        w->buf->walk_seen.data[begin + p->seen++] = *run;
    }
    *run = (struct rill__walk_seen){cell, cell != UINT32_MAX};
}

/* rill_job_range_fn: shown[begin, end) into out[begin...] (and the batcher's notes). The chunk
 * counts in a part of its own until it ends: the parts of neighbouring chunks share cache lines,
 * which other threads write. */
static void walk_chunk(void *arg, uint32_t begin, uint32_t end, uint32_t chunk) {
    const shown_walk *w = arg;
    struct rill__extract_part part = {.stop = end}, *p = &part;
    rill__assets_cursor cur = {0};
    struct rill__walk_seen run = {0};
    const rill_entity *shown = w->buf->shown.data;
    shown_rows ring[WALK_AHEAD];
    for (uint32_t i = begin; i < end && i < begin + WALK_AHEAD; i++) {
        fetch_rows(w, shown[i], &ring[i - begin]);
    }
    for (uint32_t i = begin, k = 0; i < end; i++, k = k + 1u == WALK_AHEAD ? 0u : k + 1u) {
        shown_rows rows = ring[k];
        if (i + WALK_AHEAD < end) {
            fetch_rows(w, shown[i + WALK_AHEAD], &ring[k]);
        }
        rill_entity e = shown[i];
        shown_out o = {.in = &w->out[begin + p->written],
                       .take = w->bt ? &w->buf->walk_takes.data[begin + p->takes] : NULL};
        int r = walk_one(w, e, &rows, &cur, &o);
        if (r == SHOWN_SERIAL) {
            p->stop = i;
            break;
        }
        p->written += r == SHOWN_DRAWN;
        p->takes += r == SHOWN_DRAWN && w->bt && rill__batch_wants_take(w->bt, o.take);
        if (r == SHOWN_BATCHED) {
            count_seen(w, p, begin, &run, o.cell);
        }
        if (r == SHOWN_OUT_OF_WORLD && !p->out_count++) {
            p->first_out = e;
        }
    }
    count_seen(w, p, begin, &run, UINT32_MAX);
    w->buf->walk_parts.data[chunk] = part;
}

/* Batching: what a chunk noted for the batcher, in the walk's order. */
static void replay_notes(const shown_walk *w, const struct rill__extract_part *p, uint32_t begin) {
    for (uint32_t k = 0; k < p->seen; k++) {
        const struct rill__walk_seen *s = &w->buf->walk_seen.data[begin + k];
        rill__batch_seen(w->bt, s->cell, s->n);
    }
    for (uint32_t k = 0; k < p->takes; k++) {
        rill__batch_take(w->bt, &w->buf->walk_takes.data[begin + k]);
    }
}

/* Walks shown[from, end) on this thread, appending at out[at]; returns the new at. */
static uint32_t walk_rest(const shown_walk *w, uint32_t from, uint32_t end, uint32_t at) {
    for (uint32_t i = from; i < end; i++) {
        rill_entity e = w->buf->shown.data[i];
        rill__batch_offer take;
        shown_out o = {.in = &w->out[at], .take = &take};
        shown_rows rows;
        fetch_rows(w, e, &rows);
        int r = walk_one(w, e, &rows, NULL, &o);
        at += r == SHOWN_DRAWN;
        if (r == SHOWN_OUT_OF_WORLD) {
            count_out_of_world(w->world, w->buf, e, 1);
        } else if (r == SHOWN_BATCHED) {
            rill__batch_seen(w->bt, o.cell, 1);
        } else if (r == SHOWN_DRAWN && w->bt) {
            rill__batch_take(w->bt, &take); /* (whether it wants it or not: the reference) */
        }
    }
    return at;
}

/* Closes the gaps between the chunks' instances in chunk order, counts (and names) the entities
 * out of the world in that order, replays the batcher's notes, and walks what each chunk left;
 * returns the instances written. Every write lands at or below the shown index it comes from, so
 * nothing unread is overwritten. */
static uint32_t merge_walk(const shown_walk *w, uint32_t n) {
    rill_render_extract_buf *buf = w->buf;
    uint32_t at = 0;
    for (uint32_t begin = 0; begin < n; begin += WALK_CHUNK) {
        const struct rill__extract_part *p = &buf->walk_parts.data[begin / WALK_CHUNK];
        if (at != begin && p->written) {
            memmove(w->out + at, w->out + begin, (size_t)p->written * sizeof(*w->out));
        }
        at += p->written;
        count_out_of_world(w->world, buf, p->first_out, p->out_count);
        if (w->bt) {
            replay_notes(w, p, begin);
        }
        at = walk_rest(w, p->stop, RILL_MIN(n, begin + WALK_CHUNK), at);
    }
    return at;
}

/* Room for n instances after those extracted so far, and for the batcher's notes of n entities. */
static bool walk_room(rill_render_extract_buf *buf, uint32_t n, bool batching) {
    rill_array_clear(&buf->walk_seen);
    rill_array_clear(&buf->walk_takes);
    return rill_array_push_n(&buf->instances, n) &&
           (!batching ||
            (rill_array_push_n(&buf->walk_seen, n) && rill_array_push_n(&buf->walk_takes, n)));
}

/* The walk over buf->jobs (NULL: on this thread, chunk after chunk; with batching, the serial walk
 * the merge does for what chunks leave). bt: the batcher when static batching is on. */
static bool walk_shown(rill_world *world, const rill_render_components *comps,
                       rill_render_extract_buf *buf, rill_render_assets *ra, rill__batcher *bt) {
    uint32_t n = buf->shown.len, base = buf->instances.len;
    rill_array_clear(&buf->walk_parts);
    if (!n) {
        return true;
    }
    uint32_t chunks = rill_jobs_for_chunks(buf->jobs, n, WALK_CHUNK);
    if (!rill_array_push_n(&buf->walk_parts, chunks) || !walk_room(buf, n, bt != NULL)) {
        return false;
    }
    shown_walk w = {world,
                    buf,
                    ra,
                    {comps->model_mesh, rill_world_builtin(world)->global_transform,
                     comps->render_mode,
                     buf->channel_modes || bt ? comps->scene_channels : RILL_COMPONENT_NONE},
                    buf->instances.data + base,
                    bt};
    if (bt && !buf->jobs) {
        for (uint32_t k = 0; k < chunks; k++) { /* every chunk left to the merge */
            buf->walk_parts.data[k] = (struct rill__extract_part){.stop = k * WALK_CHUNK};
        }
    } else {
        rill_jobs_for(buf->jobs, n, WALK_CHUNK, walk_chunk, &w);
    }
    buf->instances.len = base + merge_walk(&w, n);
    return true;
}

/* Every shown ModelMesh with a GlobalTransform whose asset resolves, in slot order, through the
 * static batcher when it is on. False when out of memory. */
static bool extract_model_meshes(rill_world *world, const rill_render_components *comps,
                                 rill_render_extract_buf *buf) {
    rill_render_assets *ra = rill__render_assets_of(world);
    if (!ra) {
        return true;
    }
    rill__batcher *bt = rill__render_assets_batcher(ra);
    bool batching = rill__batch_begin(bt, world);
    rill_component walked = comps->mesh_shown.id ? comps->mesh_shown : comps->model_mesh;
    uint64_t t0 = rill_time_ns();
    if (!shown_in_slot_order(world, walked, buf)) {
        return false;
    }
    uint64_t t1 = rill_time_ns();
    bool ok = walk_shown(world, comps, buf, ra, batching ? bt : NULL) &&
              (!batching || rill__batch_end(bt, buf->channel_modes, buf));
    buf->sort_ns = t1 - t0;
    buf->walk_ns = rill_time_ns() - t1;
    return ok;
}

/* Reverses instances [from, to) in place. */
static void reverse_instances(rill_render_instance *in, uint32_t from, uint32_t to) {
    while (to > from + 1u) {
        to--;
        rill_render_instance t = in[from];
        in[from] = in[to];
        in[to] = t;
        from++;
    }
}

/* Every MeshInstance with a GlobalTransform, in the query driver's forward dense order: the query
 * walks from the last entity added back, so the block is reversed once written. A spawn then
 * appends (the positions before it keep their instances, so extract's marks and GPU culling's
 * unchanged-instance skip still see them unchanged) and a despawn moves only the last one into
 * its hole. False when out of memory. */
static bool extract_mesh_instances(rill_world *world, const rill_render_components *comps,
                                   rill_render_extract_buf *buf) {
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = comps->mesh_instance;
    qd.with[1] = rill_world_builtin(world)->global_transform;
    rill_query q = rill_world_query(world, &qd);
    uint32_t base = buf->instances.len;
    while (rill_query_next(&q)) {
        const rill_mesh_instance *mi = rill_query_get(&q, 0);
        rill_mesh mesh = {mi->mesh};
        rill_material mat = {mi->material};
        const rill_global_transform *xf = rill_query_get(&q, 1);
        if (!in_world(world, buf, q.entity, xf)) {
            continue;
        }
        if (!push_instance(world, comps, buf, q.entity, mesh, mat, xf)) {
            return false;
        }
    }
    reverse_instances(buf->instances.data, base, buf->instances.len);
    return true;
}

/* Sizes buf->instances for what this frame can append at most (every MeshInstance, every shown
 * ModelMesh, every terrain chunk mesh) before anything is: the walk then writes in place and the
 * terrain's chunks after it do not reallocate and copy the walk's instances (in the first extract
 * of `rill fly`, ~100 chunks copied the 33 k instances before them once more). The quarter of
 * slack rill_array_size_for leaves covers the models a frame or two of streaming adds; out of
 * memory, appending grows the array as before. */
static void size_instances(rill_world *world, const rill_render_components *comps,
                           rill_render_extract_buf *buf, const rill_render_terrain *rt) {
    uint64_t need = rill_world_component_len(world, comps->mesh_instance);
    if (comps->model_mesh.id) {
        need += rill_world_component_len(world, comps->mesh_shown.id ? comps->mesh_shown
                                                                     : comps->model_mesh);
    }
    if (rt) {
        rill_render_terrain_stats ts;
        rill_render_terrain_get_stats(rt, &ts);
        need += ts.meshes;
    }
    (void)rill_array_size_for(&buf->instances, (uint32_t)RILL_MIN(need, UINT32_MAX / 2u));
}

/* The snapshot's sun: the DirectionalLight marked sun, else any; ties go to the lowest entity id
 * so the choice does not follow storage order. */
static void extract_sun(rill_world *world, const rill_render_components *comps,
                        rill_render_extract_buf *buf, rill_render_snapshot *out_snap) {
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = comps->directional_light;
    qd.with[1] = rill_world_builtin(world)->global_transform;
    rill_query q = rill_world_query(world, &qd);
    rill_entity best = 0;
    bool best_marked = false;
    while (rill_query_next(&q)) {
        const rill_directional_light *dl = rill_query_get(&q, 0);
        const rill_global_transform *xf = rill_query_get(&q, 1);
        if (!in_world(world, buf, q.entity, xf)) {
            continue;
        }
        bool marked = dl->sun;
        if (out_snap->has_sun &&
            (best_marked > marked || (best_marked == marked && best < q.entity))) {
            continue;
        }
        best = q.entity;
        best_marked = marked;
        out_snap->has_sun = true;
        neg_z(xf->m, out_snap->sun.direction);
        memcpy(out_snap->sun.color, dl->color, sizeof(float) * 3);
        out_snap->sun.illuminance = dl->illuminance;
        out_snap->sun.shadows = dl->shadows;
        out_snap->sun.marked = marked;
    }
}

/* A camera found by extract, with what it is sorted by. */
typedef struct view_key {
    const rill_camera *cam;
    const rill_global_transform *xf;
    rill_entity entity;
} view_key;

/* Drawing order: Camera.order, ties broken by entity id so the order is stable. */
static bool key_less(const view_key *a, const view_key *b) {
    if (a->cam->order != b->cam->order) {
        return a->cam->order < b->cam->order;
    }
    return a->entity < b->entity;
}

/* Clamps one normalized coordinate; NaN becomes lo. */
static float clamp01(float x, float lo, float hi) {
    return x >= lo ? (x <= hi ? x : hi) : lo;
}

/* Fills a view from a camera. The viewport is clamped to the output: x, y to [0,1], w, h to what
 * is left right of x and below y. hdr off selects the clamp-only tonemapper. */
static void view_from_camera(const rill_camera *cam, const rill_global_transform *xf, rill_entity e,
                             rill_render_view *v) {
    memset(v, 0, sizeof(*v));
    v->camera = e;
    v->target = cam->target && cam->target[0] ? cam->target : NULL;
    v->target_size[0] = cam->target_width;
    v->target_size[1] = cam->target_height;
    memcpy(v->world_from_view, xf->m, sizeof(v->world_from_view));
    v->fov_y = cam->fov_y;
    v->near_plane = cam->near_plane;
    v->far_plane = cam->far_plane;
    v->orthographic = cam->projection == RILL_PROJECTION_ORTHOGRAPHIC;
    v->ortho_height = cam->ortho_height;
    memcpy(v->clear_color, cam->clear_color, sizeof(v->clear_color));
    float x = clamp01(cam->viewport[0], 0.0f, 1.0f), y = clamp01(cam->viewport[1], 0.0f, 1.0f);
    v->viewport[0] = x;
    v->viewport[1] = y;
    v->viewport[2] = clamp01(cam->viewport[2], 0.0f, 1.0f - x);
    v->viewport[3] = clamp01(cam->viewport[3], 0.0f, 1.0f - y);
    v->tonemapper = cam->hdr ? RILL_TONEMAP_DEFAULT : RILL_TONEMAP_NONE;
    v->order = cam->order;
    v->passthrough = cam->passthrough == 1 ? RILL_PASSTHROUGH_MIXED : RILL_PASSTHROUGH_OFF;
}

/* A camera's viewport that had to be clamped (NaN, outside [0, 1], running off the output) is
 * warned about once per extract buffer, naming the entity. */
static void warn_viewport(const rill_world *w, rill_render_extract_buf *buf, const rill_camera *cam,
                          rill_entity e, const rill_render_view *v) {
    if (buf->warned_viewport || memcmp(cam->viewport, v->viewport, sizeof(v->viewport)) == 0) {
        return;
    }
    buf->warned_viewport = true;
    const char *name = rill_world_get_name(w, e);
    const float *a = cam->viewport, *b = v->viewport;
    RILL_LOG_WARN("render",
                  "extract: Camera of entity %u:%u%s%s%s: viewport (%g, %g, %g, %g) is not inside "
                  "[0, 1]; clamped to (%g, %g, %g, %g)",
                  RILL_ENTITY_INDEX(e), RILL_ENTITY_GENERATION(e), name ? " (" : "",
                  name ? name : "", name ? ")" : "", (double)a[0], (double)a[1], (double)a[2],
                  (double)a[3], (double)b[0], (double)b[1], (double)b[2], (double)b[3]);
}

/* Calls fn for every entity holding component `name` and a GlobalTransform (the box components:
 * ForwardDecal, FogVolume, PoolWater); false as soon as fn is (out of memory). */
bool rill__extract_boxes(rill_world *w, const char *name, rill__box_fn fn, void *user) {
    rill_component c = rill_world_find_component(w, name);
    if (!c.id || !rill_world_component_len(w, c)) {
        return true;
    }
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = c;
    qd.with[1] = rill_world_builtin(w)->global_transform;
    rill_query q = rill_world_query(w, &qd);
    while (rill_query_next(&q)) {
        const rill_global_transform *xf = rill_query_get(&q, 1);
        if (!fn(user, xf->m, rill_query_get(&q, 0), q.entity)) {
            return false;
        }
    }
    return true;
}

rill_result rill_render_extract(rill_world *world, const rill_render_components *comps,
                                rill_render_extract_buf *buf, rill_render_snapshot *out_snap,
                                rill_error *err) {
    if (!world || !comps || !buf || !out_snap) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: extract needs world, components, buffer, snapshot");
    }
    const rill_builtins *b = rill_world_builtin(world);
    memset(out_snap, 0, sizeof(*out_snap));
    rill__extract_marks_begin(buf); /* extract_marks.c: the last extract's instances kept */
    rill_array_clear(&buf->instances);
    rill_array_clear(&buf->ranges);
    rill_array_clear(&buf->lights);
    buf->channel_modes = rill_channels_modes(world);
    buf->out_of_world = 0;
    buf->sort_ns = buf->walk_ns = 0;

    /* Cameras: every active one becomes a view. The lowest RILL_RENDER_MAX_VIEWS by (order,
     * entity id) are kept in a sorted array (insertion: cameras are few); the primary view is the
     * one marked default, then the lowest order, then the lowest entity id. */
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = b->camera;
    qd.with[1] = b->global_transform;
    rill_query q = rill_world_query(world, &qd);
    view_key keys[RILL_RENDER_MAX_VIEWS];
    uint32_t nviews = 0, dropped = 0;
    view_key best = {0};
    bool have_best = false;
    while (rill_query_next(&q)) {
        const rill_camera *cam = rill_query_get(&q, 0);
        if (!cam->active || !in_world(world, buf, q.entity, rill_query_get(&q, 1))) {
            continue;
        }
        view_key k = {cam, rill_query_get(&q, 1), q.entity};
        if (!have_best || (cam->is_default && !best.cam->is_default) ||
            (cam->is_default == best.cam->is_default && key_less(&k, &best))) {
            best = k;
            have_best = true;
        }
        if (nviews == RILL_RENDER_MAX_VIEWS) {
            dropped++;
            if (!key_less(&k, &keys[nviews - 1])) {
                continue;
            }
            nviews--; /* the highest key falls out */
        }
        uint32_t at = nviews;
        while (at > 0 && key_less(&k, &keys[at - 1])) {
            keys[at] = keys[at - 1];
            at--;
        }
        keys[at] = k;
        nviews++;
    }
    if (!have_best) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND,
                              "render: no active camera with a GlobalTransform");
    }
    if (dropped && !buf->warned_views) {
        buf->warned_views = true;
        RILL_LOG_WARN(
            "render",
            "extract: %u active cameras, only %u views per frame; the %u with the highest "
            "order are dropped",
            nviews + dropped, RILL_RENDER_MAX_VIEWS, dropped);
    }
    for (uint32_t i = 0; i < nviews; i++) {
        view_from_camera(keys[i].cam, keys[i].xf, keys[i].entity, &buf->views[i]);
        warn_viewport(world, buf, keys[i].cam, keys[i].entity, &buf->views[i]);
    }
    view_from_camera(best.cam, best.xf, best.entity, &out_snap->view);
    out_snap->views = buf->views;
    out_snap->view_count = nviews;
    /* Effect settings: every view's routed copies (the primary view routes as its camera). */
    rill_render_view *routed_views[RILL_RENDER_MAX_VIEWS + 1];
    rill_entity cams[RILL_RENDER_MAX_VIEWS + 1];
    for (uint32_t i = 0; i < nviews; i++) {
        routed_views[i] = &buf->views[i];
        cams[i] = keys[i].entity;
    }
    routed_views[nviews] = &out_snap->view;
    cams[nviews] = best.entity;
    rill_result rr =
        rill__render_route_settings(world, comps, buf, routed_views, cams, nviews + 1, err);
    if (rr != RILL_OK) {
        return rr;
    }

    rill_render_terrain *rt = rill__render_terrain_of(world);
    size_instances(world, comps, buf, rt);
    if (!extract_mesh_instances(world, comps, buf)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }
    if (comps->model_mesh.id && rill_world_component_len(world, comps->model_mesh) &&
        !extract_model_meshes(world, comps, buf)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }

    if (!rill__extract_skins(world, buf)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }

    if (rt && !rill__render_terrain_extract(rt, buf)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }

    extract_sun(world, comps, buf, out_snap);
    if (!rill__post_extract_decals(world, buf, out_snap)) { /* post_decal.c */
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }
    if (!rill__vfog_extract(world, buf, out_snap)) { /* fog_volume.c */
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }
    if (!rill__water_extract(world, buf, out_snap)) { /* water.c */
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }
    if (!rill__ocean_extract(world, buf, out_snap)) { /* ocean.c */
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }

    for (int kind = 0; kind < 2; kind++) {
        memset(&qd, 0, sizeof(qd));
        qd.with[0] = kind ? comps->spot_light : comps->point_light;
        qd.with[1] = b->global_transform;
        q = rill_world_query(world, &qd);
        while (rill_query_next(&q)) {
            const rill_global_transform *xf = rill_query_get(&q, 1);
            if (!in_world(world, buf, q.entity, xf)) {
                continue;
            }
            rill_render_light L;
            memset(&L, 0, sizeof(L));
            L.kind = kind ? RILL_LIGHT_SPOT : RILL_LIGHT_POINT;
            memcpy(L.position, &xf->m[12], sizeof(float) * 3);
            neg_z(xf->m, L.direction);
            if (kind) {
                const rill_spot_light *s = rill_query_get(&q, 0);
                memcpy(L.color, s->color, sizeof(float) * 3);
                L.intensity = s->intensity;
                L.range = s->range;
                L.inner_angle = s->inner_angle;
                L.outer_angle = s->outer_angle;
            } else {
                const rill_point_light *p = rill_query_get(&q, 0);
                memcpy(L.color, p->color, sizeof(float) * 3);
                L.intensity = p->intensity;
                L.range = p->range;
            }
            if (!rill_array_push(&buf->lights, L)) {
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                      "render: out of memory in extract");
            }
        }
    }
    out_snap->instances = buf->instances.data;
    out_snap->instance_count = buf->instances.len;
    out_snap->ranges = buf->ranges.data;
    out_snap->range_count = buf->ranges.len;
    out_snap->lights = buf->lights.data;
    out_snap->light_count = buf->lights.len;
    out_snap->skins = buf->skins.data;
    out_snap->skin_count = buf->skins.len;
    out_snap->joint_matrices = buf->joint_matrices.data;
    out_snap->morph_weights = buf->morph_weights.data;
    out_snap->ambient[0] = RILL_RENDER_DEFAULT_AMBIENT_R;
    out_snap->ambient[1] = RILL_RENDER_DEFAULT_AMBIENT_G;
    out_snap->ambient[2] = RILL_RENDER_DEFAULT_AMBIENT_B;
    rill_result pr = rill__probe_extract(world, buf, out_snap, err);
    if (pr != RILL_OK) {
        return pr;
    }
    if (!rill__extract_marks_finish(buf, out_snap)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
    }
    return RILL_OK;
}
