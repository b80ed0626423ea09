/* fly.h: the parts of `rill fly` (cmd_fly.c) shared by its files: the run loop (cmd_fly.c), the
 * camera path (fly_path.c: keyframes read or made, timed and sampled), the CPU count of what the
 * primary view sees (fly_count.c) and the report (fly_report.c: frames.jsonl, summary.json,
 * frametime.png and map.png drawn on the shared PNG canvas, cli_canvas.h). */
#ifndef RILL_TOOLS_FLY_H
#define RILL_TOOLS_FLY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmds.h"
#include "rill/app.h"
#include "rill/render.h"
#include "rill/stream.h"

#define FLY_DT (1.0 / 60.0)
#define FLY_MAX_FRAMES 10000000ull
#define FLY_MAX_KEYS 4096u
#define FLY_MAX_SECONDS 1.0e6 /* the latest keyframe time (11.6 days) */
#define FLY_FRAME_BUDGET_MS 16.7
/* The streaming work's aim per frame: the default 3 ms streaming budget plus 1 ms (issue 29). */
#define FLY_STREAM_AIM_MS 4.0
#define FLY_STREAM_BUDGET_MS 3.0
/* Frames the camera may hold still after the path until streaming has settled (10 s), so the
 * memory comparison's end is not taken mid-load. */
#define FLY_SETTLE_MAX 600u

/* --cameras: at most this many views side by side. */
#define FLY_MAX_CAMERAS 4

typedef struct fly_opts {
    const char *input, *pack, *out, *path;
    float speed; /* m/s; 0 = from --frames, else 30 */
    uint64_t frames;
    uint32_t w, h;
    uint32_t workers; /* job workers; 0 = the app's default (cores - 1) */
    bool no_render, window, size_set, heatmap, gpu_cull, no_occlusion;
    bool render_thread_on, render_thread_off; /* --render-thread, --no-render-thread */
    int render_thread; /* rill_cli_render_thread: 0 = the project's (on), 1 on, -1 off */
    bool no_hlod;      /* draw no far-world proxies (before/after runs) */
    uint32_t cameras;  /* views side by side (split screen); 0 or 1: the path camera alone */
    int quality;       /* --quality: a rill_render_quality; 0 = the project's */
    uint32_t upload_budget_mb; /* --upload-budget-mb (given: upload_budget_set); 0 = 32 MiB */
    bool upload_budget_set;
    rill_cli_effects fx; /* --effect, --plugins, --no-plugins (as rill render and run) */
} fly_opts;

typedef struct fly_key {
    float pos[3], look[3];
    bool has_look;
    double t; /* seconds from the start */
} fly_key;

/* What one frame measured; the summary and the plots are computed from these. */
typedef struct fly_frame {
    double main_ms, stream_ms;
    double stream_cpu_ms;      /* thread CPU time of the loader, stream update and model systems */
    double app_ms, extract_ms; /* main_ms split: the app's frame, the render snapshot (extract) */
    double main_cpu_ms; /* main_ms as the thread's CPU time: what a loaded machine does not skew */
    double extract_cpu_ms; /* of which the snapshot (extract) */
    /* the main thread's major page faults and voluntary / involuntary context switches during the
     * frame: why a frame's wall time exceeds its CPU time (disk, a lock, preemption) */
    uint32_t main_faults, main_waits, main_preempts;
    /* where the main thread waited (rill_thread_blocked): contended locks and condition waits over
     * the frame and within the snapshot, the frame's longest lock wait and its call site; and the
     * slowest rill_jobs_for chunk of the snapshot's time on any thread (rill_jobs_chunk_profile) */
    double main_lock_ms, main_cond_ms, extract_lock_ms, extract_cond_ms, lock_max_ms, cond_max_ms;
    uint64_t lock_max_at, cond_max_at;
    rill_jobs_chunk_profile chunk_max;
    uint32_t entities;
    uint64_t triangles, triangles_full, texture_bytes;
    float cam[3];
    uint32_t terrain_chunks, terrain_resident, chunk_rebuilds, colliders;
    uint64_t terrain_cpu_bytes, terrain_gpu_bytes;
    double physics_ms;
    /* texture streaming */
    uint64_t texture_bytes_full; /* what the GPU would hold with every streamed chain full */
    uint64_t texture_bytes_read; /* since the start */
    double texture_swap_ms, texture_stream_ms;
    /* static batching: this frame's build time and completed builds, cells queued and being built,
     * meshes made, batched members */
    double batch_build_ms;
    uint32_t batch_cells_built, batch_cells_waiting, batched_entities;
    uint32_t batch_meshes_built, batch_cells_building;
    uint32_t batch_taken_new, batch_deferred_new;
    /* the LOD system's update: models measured, due ones left to later updates, level switches */
    uint32_t lod_checked, lod_deferred, lod_switches;
    /* residency and the CPU heap per allocation tag (rill_mem_tag order), for start vs end */
    uint32_t loaded, loading, unloading;
    uint64_t loaded_set; /* which instances are loaded: a sum of their roots' hashes */
    bool settled;        /* no load, unload, model tree or despawn in flight */
    uint64_t live[RILL_MEM_TAG_NUM];
    /* far-world proxies handed to the renderer this frame (rill/render/hlod.h) and their triangles
     */
    uint32_t hlod_drawn;
    uint64_t hlod_triangles;
    /* GPU memory blocks held and the bytes of them in use (the renderer's sub-allocator), and the
     * process's resident set as the OS counts it */
    uint64_t gpu_block_bytes, gpu_used_bytes, rss_bytes;
    /* The render thread's wall time on this frame, and the main thread's waits
     * for the render thread during it (kept out of main_ms, as the wait for the GPU is) */
    double render_thread_ms, render_sync_ms;
} fly_frame;

typedef struct fly_counts {
    uint64_t triangles, triangles_full;
    uint32_t draws, visible;
    uint32_t extracted; /* instances in the snapshot: what extract walked and kept */
    uint32_t lod[4];    /* visible instances per LOD level (levels above 3 count as 3) */
} fly_counts;

/* What a frame's counting reads: the renderer (mesh bounds), the app's world and model trees, and
 * the components and asset cache the batched members are found through. */
typedef struct count_ctx {
    rill_renderer *r;
    rill_app *app;
    rill_scene_models *models;
    const rill_render_components *rc;
    rill_render_assets *ra;
    float aspect;
} count_ctx;

/* A frame's line waiting for its render statistics: with a render thread (the default) they are
 * known when the render thread has finished the frame, which is during the next frame
 * (fly_row_finish). */
typedef struct fly_row {
    uint64_t f;
    double t;
    rill_stream_stats ss;
    fly_counts fc;
    rill_render_texture_streaming_stats tx;
    rill_system_timing sys[64];
    uint32_t nsys;
    bool pending;
} fly_row;

typedef struct fly_run {
    fly_opts o;
    rill_content *content;
    rill_renderer *r;
    rill_window *win;
    fly_key keys[FLY_MAX_KEYS];
    uint32_t nkeys;
    fly_frame *frames;
    FILE *jsonl;
    rill_map live;                   /* scene path -> most live entities an instance of it held */
    rill_stream_instance_info *inst; /* scratch of loaded_set (malloc: not the engine's memory) */
    uint32_t inst_cap;
    uint64_t physics_ns;   /* rill_physics_stats.step_ns_total at the previous frame */
    uint64_t lod_switches; /* rill_lod_stats.switches at the previous frame */
    fly_row row;           /* the frame whose line is not written yet */
    bool threaded;         /* the renderer records on a render thread */
    rill_entity extra_cams[FLY_MAX_CAMERAS - 1]; /* --cameras: the views beside the path camera */
    char path[1200];
    /* The GI tier the last rendered frame ran (rill_render_stats.gi_tier) and, where quality
     * Hwrt fell back to SdfHigh, why (summary.json's gi_tier / gi_hwrt_fallback) */
    uint32_t gi_tier;
    char gi_hwrt_why[128];
} fly_run;

/* >>path (fly_path.c) */

/* Reads a keyframe file (see usage); false with why[cap] naming the file and the keyframe. */
bool fly_read_path(const char *file, fly_key *keys, uint32_t *out_n, char *why, size_t cap);
/* A loop over the box [mn, mx] (the streamed instances' bounds) that returns to its start. */
uint32_t fly_auto_path(const float mn[3], const float mx[3], fly_key *keys);
/* A square around what the content draws, for worlds without streamed instances. */
uint32_t fly_content_path(rill_content *content, fly_key *keys);
/* The box over every streamed instance's bounds; false when there is none. */
bool fly_world_bounds(rill_app *app, float mn[3], float mx[3]);
/* Gives keyframes without "t" their time at speed; returns the path's duration in seconds. */
double fly_time_path(fly_key *keys, uint32_t n, float speed);
float fly_path_length(const fly_key *keys, uint32_t n);
/* The camera's position and rotation (x, y, z, w) at time t. */
void fly_path_eval(const fly_key *keys, uint32_t n, double t, float pos[3], float quat[4]);
/* Keyframe times increase and the path fits FLY_MAX_FRAMES; false with err set. */
bool fly_path_times_ok(const fly_run *run, float speed, double duration, rill_error *err);

/* >>counting (fly_count.c) */

/* Counts what the primary view sees (instances and static batch ranges as drawn) and what it
 * would draw with every model at level 0, batched or not (triangles_full). */
void fly_count_snapshot(const count_ctx *cx, const rill_render_snapshot *snap, fly_counts *out);

/* >>report (fly_report.c) */

/* One frame's line in frames.jsonl. */
void fly_write_frame_keys(FILE *f, const fly_row *row, const fly_frame *fr, double gpu_ms,
                          const rill_render_stats *rs);
/* Remembers, per scene file, the most entities a loaded instance of it held in the live world. */
void fly_sample_live(rill_app *app, rill_map *live);
/* summary.json, frametime.png, map.png and the closing line over frames [0, n); end is the frame
 * the memory comparison ends at. Returns the exit code. */
int fly_finish(fly_run *run, uint64_t n, uint64_t end);

/* >>run (cmd_fly.c) */

/* "DIR/name" in run->path (the --out folder). */
const char *fly_out_path(fly_run *run, const char *name);
/* The renderer's asset cache of the content's models. */
rill_render_assets *fly_assets(const fly_run *run);

#endif /* RILL_TOOLS_FLY_H */
