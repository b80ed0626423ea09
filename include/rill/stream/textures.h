/* rill/stream/textures.h: texture streaming decisions (full chain <-> `#low` tail) by distance,
 * under a memory budget, with swaps parked until a material can switch every slot at once.
 *
 * ON WHAT THIS IS
 *   Pure decision code: it knows textures (their full and low byte sizes), materials (up to five
 *   standard slots naming textures) and material users (world boxes). It never touches files or
 *   the GPU. The side that carries decisions out (asset + render) installs rill_texstream_ops:
 *   `request` starts reading/decoding a texture's level on workers and later reports it with
 *   rill_texstream_data_ready; `cancel` drops a request the camera overtook; `apply` switches a
 *   texture to a level whose data is ready (render: rill_render_texture_replace); the evaluator
 *   calls `apply` for every texture of a group inside one rill_texstream_update, so one frame
 *   never shows a material with some slots switched and others not.
 *
 * ON THE RULES
 *   - Cadence: the evaluation runs when at least `interval` (0.5 s) of the caller's clock passed
 *     since the last one (the first update always evaluates), and at once after a settings change.
 *   - Distance of a material: the distance from the camera to the nearest of its users' boxes
 *     (rill_stream_distance_to_box). d < full_distance -> full; d > low_distance -> low; in
 *     between the material keeps its state. low_distance is used as max(low, full + 5).
 *     A material with no users is low.
 *   - Groups: materials that share a texture switch together (a texture shared by several
 *     materials is full while any of them needs it, and no material ever mixes levels), so the
 *     unit of decision is the group of materials linked by shared textures.
 *   - Pinned: a material flagged CUSTOM_SHADER or TERRAIN_SPLAT is always full, and so is every
 *     group it belongs to.
 *   - Budget (budget_bytes, 0 = none): after the distance decisions, while the bytes of every
 *     texture at its target level exceed the budget, the farthest full group that is not pinned
 *     drops to low. Requests only start at evaluations, so the budget holds at every frame.
 *   - Gate: with streaming inactive (run mode closes the gate, or enabled = false) every texture
 *     targets full; the turn to full happens once, on the transition. With the gate open and no
 *     camera nothing changes.
 *   - Start: a texture is registered at the level it is resident at (the loader creates
 *     textures from `#low` first); its target is decided at the first evaluation.
 *
 * ON COST PER FRAME
 *   An evaluation is a sweep done in slices: each update does at most `work_per_update` items
 *   (default 32768; one item = one user measured, one material decided, one group reset or one
 *   texture retargeted; with budget_bytes set, one texture's bytes summed, one full group put in
 *   a max-heap by distance or one farthest group dropped). A world with 100k users, 20k
 *   materials and 60k textures is evaluated over about six updates (a tenth of the 0.5 s
 *   interval at 60 Hz); a small world in one. The camera is taken when a sweep starts. A
 *   settings change or a gate change restarts the sweep in progress; new materials wait for the
 *   next one (they are marked due at once). Groups are a union-find kept as materials are added;
 *   it is rebuilt from the live materials at the start of a sweep once a quarter of the material
 *   ids are removed ones (O(materials + textures), amortized O(1) per removal), which frees
 *   those ids for reuse.
 *
 * ON THREADS
 *   Main thread only (the ops run on the caller's thread; `request` must return at once).
 *
 * Depends on: base, stream.
 */
#ifndef RILL_STREAM_TEXTURES_H
#define RILL_STREAM_TEXTURES_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_TEXSTREAM_SLOTS 5u /* base colour, normal, metallic-roughness, occlusion, emissive */
#define RILL_TEXSTREAM_NONE 0xFFFFFFFFu

typedef enum rill_texstream_level {
    RILL_TEX_LOW = 0, /* the `#low` tail of the chain */
    RILL_TEX_FULL = 1,
} rill_texstream_level;

enum {
    RILL_TEXSTREAM_CUSTOM_SHADER = 1u << 0, /* never streamed */
    RILL_TEXSTREAM_TERRAIN_SPLAT = 1u << 1, /* never streamed */
};

typedef struct rill_texstream_settings {
    bool enabled;
    float full_distance; /* default 60 */
    float low_distance;  /* default 90; used as max(low_distance, full_distance + 5) */
    uint64_t budget_bytes;
    double interval;          /* seconds between evaluations; default 0.5 (2 Hz) */
    uint32_t work_per_update; /* items of a sweep per update; 0 = 32768 */
    /* Bytes of ready groups applied per update (whole groups; the first always goes), so a burst
     * of landed loads spreads its uploads over frames; 0 = 4 MiB (about three 1024^2 BC7 chains).
     */
    uint64_t apply_bytes_per_update;
} rill_texstream_settings;

rill_texstream_settings rill_texstream_settings_default(void);
/* The low distance in force: max(low_distance, full_distance + 5). */
float rill_texstream_low_distance(const rill_texstream_settings *s);

typedef struct rill_texstream_ops {
    void (*request)(void *user, uint32_t tex, rill_texstream_level level);
    void (*cancel)(void *user, uint32_t tex, rill_texstream_level level);
    void (*apply)(void *user, uint32_t tex, rill_texstream_level level);
    void *user;
} rill_texstream_ops;

typedef struct rill_texstream rill_texstream;

/* ops is copied (its functions may be NULL: nothing carried out, for tests of decisions). */
rill_texstream *rill_texstream_create(const rill_texstream_settings *settings,
                                      const rill_texstream_ops *ops);
void rill_texstream_destroy(rill_texstream *ts);

/* A texture resident at `resident`; bytes are the GPU bytes of each level set. Returns its id (an
 * index: a removed texture's id is reused) or RILL_TEXSTREAM_NONE when memory runs out. */
uint32_t rill_texstream_add_texture(rill_texstream *ts, uint64_t full_bytes, uint64_t low_bytes,
                                    rill_texstream_level resident);
/* A material; slots[i] = texture id or RILL_TEXSTREAM_NONE; flags RILL_TEXSTREAM_*. Returns its
 * id: an index in the low 24 bits and a generation above, so when a removed material's index is
 * reused its old id stays invalid (queries on it answer low / not swapping / FLT_MAX, add_user
 * refuses it, and users left on it no longer count); RILL_TEXSTREAM_NONE when out of memory. */
uint32_t rill_texstream_add_material(rill_texstream *ts, const uint32_t slots[RILL_TEXSTREAM_SLOTS],
                                     uint32_t flags);
/* A user of material (a drawn instance) with its world box. Returns a user id. */
uint32_t rill_texstream_add_user(rill_texstream *ts, uint32_t material, const float mn[3],
                                 const float mx[3]);
void rill_texstream_set_user_bounds(rill_texstream *ts, uint32_t user, const float mn[3],
                                    const float mx[3]);
/* Removes a user (its id may be reused by a later add). */
void rill_texstream_remove_user(rill_texstream *ts, uint32_t user);
/* Forgets a material (it is no longer decided; its group stays linked to the materials it shared
 * textures with until the groups are rebuilt, then its index is reused) or a texture (its request
 * in flight is cancelled through ops.cancel; it no longer counts; its id is reused). */
void rill_texstream_remove_material(rill_texstream *ts, uint32_t material);
void rill_texstream_remove_texture(rill_texstream *ts, uint32_t tex);

/* New settings; the next update evaluates at once. */
void rill_texstream_set_settings(rill_texstream *ts, const rill_texstream_settings *settings);
const rill_texstream_settings *rill_texstream_get_settings(const rill_texstream *ts);

/* Once per frame: now = the caller's clock in seconds; active = the streaming gate (see
 * rill/stream.h); camera NULL = none. Starts an evaluation when due, runs its next slice, then
 * applies every group whose data is all ready. Returns true when an evaluation finished in this
 * update (or was due with the gate open and no camera: nothing to do). */
bool rill_texstream_update(rill_texstream *ts, double now, bool active, const float camera[3]);
/* The carrier reports that a requested level's data is ready to apply. Reports for a level no
 * longer wanted are ignored (the request was cancelled). */
void rill_texstream_data_ready(rill_texstream *ts, uint32_t tex, rill_texstream_level level);

rill_texstream_level rill_texstream_target(const rill_texstream *ts, uint32_t tex);
rill_texstream_level rill_texstream_resident(const rill_texstream *ts, uint32_t tex);
/* The level a material shows: its textures' resident level (one level for all of them). */
rill_texstream_level rill_texstream_material_level(const rill_texstream *ts, uint32_t material);
/* True while one of the material's textures has a request in flight. */
bool rill_texstream_material_swapping(const rill_texstream *ts, uint32_t material);
/* Nearest user distance at the last evaluation (FLT_MAX with no user or no camera). */
float rill_texstream_material_distance(const rill_texstream *ts, uint32_t material);

typedef struct rill_texstream_stats {
    uint32_t textures, materials, users;
    uint32_t full, low;         /* textures resident at each level */
    uint32_t in_flight;         /* requests started and not yet applied */
    uint64_t resident_bytes;    /* sum of resident levels' bytes */
    uint64_t all_full_bytes;    /* what every full chain would take */
    uint64_t target_bytes;      /* sum of target levels' bytes */
    uint64_t requests, cancels; /* totals */
    uint64_t swaps;             /* texture level switches applied (total) */
    uint64_t evaluations;
    uint64_t evaluate_ns_max; /* worst evaluation (a whole sweep, all its slices) */
    uint64_t update_ns_max;   /* worst single update (one slice + parked swaps applied) */
    bool sweeping;            /* an evaluation is in progress */
} rill_texstream_stats;

void rill_texstream_get_stats(const rill_texstream *ts, rill_texstream_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* RILL_STREAM_TEXTURES_H */
