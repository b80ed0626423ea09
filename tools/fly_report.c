/* fly_report.c: what `rill fly` writes: a line per frame in frames.jsonl (write_frame_keys: one
 * key a line), summary.json (frame time spread, streaming and texture figures, memory at the
 * start and the end of the path), frametime.png and map.png (drawn on the shared canvas,
 * cli_canvas.h), and the closing line on stdout. */
#include "cli_canvas.h"
#include "cli_opts.h"
#include "demo.h"
#include "fly.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rill/terrain.h"

/* >>records ----------------------------------------------------------------------------------- */

typedef struct jw {
    FILE *f;
    bool first;
} jw;

static void jw_begin(jw *w) {
    fputc('{', w->f);
    w->first = true;
}
static void jw_key(jw *w, const char *k) {
    fprintf(w->f, "%s\"%s\":", w->first ? "" : ",", k);
    w->first = false;
}
static void jw_u64(jw *w, const char *k, uint64_t v) {
    jw_key(w, k);
    fprintf(w->f, "%llu", (unsigned long long)v);
}
static void jw_f64(jw *w, const char *k, double v) {
    jw_key(w, k);
    fprintf(w->f, "%.4f", isfinite(v) ? v : 0.0);
}
static void jw_u64s(jw *w, const char *k, const uint64_t *v, uint32_t n) {
    jw_key(w, k);
    fputc('[', w->f);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(w->f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
    }
    fputc(']', w->f);
}
static void jw_f32s(jw *w, const char *k, const float *v, uint32_t n) {
    jw_key(w, k);
    fputc('[', w->f);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(w->f, "%s%.1f", i ? "," : "", isfinite(v[i]) ? (double)v[i] : 0.0);
    }
    fputc(']', w->f);
}
static void jw_u32s(jw *w, const char *k, const uint32_t *v, uint32_t n) {
    jw_key(w, k);
    fputc('[', w->f);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(w->f, "%s%u", i ? "," : "", v[i]);
    }
    fputc(']', w->f);
}
/* A string value (engine-made text: quotes, backslashes and control characters escaped). */
static void jw_str(jw *w, const char *k, const char *v) {
    jw_key(w, k);
    fputc('"', w->f);
    for (const char *c = v; *c; c++) {
        if (*c == '"' || *c == '\\') {
            fprintf(w->f, "\\%c", *c);
        } else if ((unsigned char)*c < 0x20) {
            fprintf(w->f, "\\u%04x", (unsigned)(unsigned char)*c);
        } else {
            fputc(*c, w->f);
        }
    }
    fputc('"', w->f);
}
/* rill_render_stats.gi_tier (a rill_gi_quality) by name; "Off" without a GI pass. */
static const char *fly_gi_tier_name(uint32_t tier) {
    static const char *const names[] = {"Off", "ScreenSpace", "SdfLow", "SdfHigh", "Hwrt"};
    return tier < RILL_COUNTOF(names) ? names[tier] : "?";
}
/* The renderer's GPU time per graph pass of the newest finished frame, as {"name": ms, ...}. */
static void jw_passes(jw *w, const char *k, const rill_render_stats *rs) {
    jw_key(w, k);
    fputc('{', w->f);
    for (uint32_t i = 0; i < rs->pass_count; i++) {
        fprintf(w->f, "%s\"%s\":%.4f", i ? "," : "", rs->pass_names[i] ? rs->pass_names[i] : "?",
                isfinite(rs->pass_gpu_ms[i]) ? rs->pass_gpu_ms[i] : 0.0);
    }
    fputc('}', w->f);
}
/* The app's systems' main-thread time in the frame (wall or thread CPU), as {"name": ms, ...}. */
static void jw_systems(jw *w, const char *k, const rill_system_timing *t, uint32_t n, bool cpu) {
    jw_key(w, k);
    fputc('{', w->f);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(w->f, "%s\"%s\":%.4f", i ? "," : "", t[i].name,
                (double)(cpu ? t[i].cpu_ns : t[i].ns) / 1e6);
    }
    fputc('}', w->f);
}
/* The parts of the renderer's CPU time (rill_render_stats' cpu_*_ms), as {"cull": ms, ...}. */
static void jw_render_phases(jw *w, const char *k, const rill_render_stats *rs) {
    jw_key(w, k);
    fprintf(w->f,
            "{\"setup\":%.4f,\"cull\":%.4f,\"sort\":%.4f,\"upload\":%.4f,\"graph\":%.4f,"
            "\"commands\":%.4f,\"submit\":%.4f}",
            rs->cpu_setup_ms, rs->cpu_cull_ms, rs->cpu_sort_ms, rs->cpu_upload_ms, rs->cpu_graph_ms,
            rs->cpu_commands_ms, rs->cpu_submit_ms);
}
static void jw_end(jw *w) {
    fputs("}\n", w->f);
}

/* One frame's line in frames.jsonl. Adding a key is one line here. */
static void write_frame_keys(jw *w, const fly_row *row, const fly_frame *fr, double gpu_ms,
                             const rill_render_stats *rs) {
    uint64_t frame = row->f;
    double t = row->t;
    const rill_stream_stats *ss = &row->ss;
    const fly_counts *fc = &row->fc;
    const rill_render_texture_streaming_stats *tx = &row->tx;
    jw_begin(w);
    jw_u64(w, "frame", frame);
    jw_f64(w, "t", t);
    jw_f32s(w, "camera", fr->cam, 3); /* the primary camera's position (m) */
    jw_f64(w, "main_ms", fr->main_ms);
    jw_f64(w, "main_cpu_ms", fr->main_cpu_ms);
    jw_f64(w, "extract_cpu_ms", fr->extract_cpu_ms);
    jw_u64(w, "main_faults", fr->main_faults);
    jw_u64(w, "main_waits", fr->main_waits);
    jw_u64(w, "main_preempts", fr->main_preempts);
    jw_f64(w, "main_lock_ms", fr->main_lock_ms);
    jw_f64(w, "main_cond_ms", fr->main_cond_ms);
    jw_f64(w, "extract_lock_ms", fr->extract_lock_ms);
    jw_f64(w, "extract_cond_ms", fr->extract_cond_ms);
    jw_f64(w, "lock_max_ms", fr->lock_max_ms);
    char at[32];
    snprintf(at, sizeof at, "0x%llx", (unsigned long long)fr->lock_max_at);
    jw_str(w, "lock_max_at", at);
    jw_f64(w, "cond_max_ms", fr->cond_max_ms);
    snprintf(at, sizeof at, "0x%llx", (unsigned long long)fr->cond_max_at);
    jw_str(w, "cond_max_at", at);
    const rill_jobs_chunk_profile *c = &fr->chunk_max;
    jw_f64(w, "extract_chunk_max_ms", (double)c->wall_ns / 1e6);
    jw_f64(w, "extract_chunk_cpu_ms", (double)c->cpu_ns / 1e6);
    jw_f64(w, "extract_chunk_lock_ms", (double)c->lock_ns / 1e6);
    jw_u64(w, "extract_chunk_waits", c->voluntary);
    jw_u64(w, "extract_chunk_preempts", c->involuntary);
    jw_u64(w, "extract_chunk_faults", c->minor_faults);
    jw_u64(w, "extract_chunk_on_worker", c->on_worker ? 1u : 0u);
    jw_f64(w, "stream_ms", fr->stream_ms);
    jw_f64(w, "stream_cpu_ms", fr->stream_cpu_ms);
    jw_f64(w, "gpu_ms", gpu_ms);
    jw_u64(w, "entities", fr->entities);
    jw_u64(w, "instances_loaded", ss->loaded);
    jw_u64(w, "instances_loading", ss->loading);
    jw_u64(w, "instances_unloaded", ss->unloaded + ss->failed);
    jw_u64(w, "triangles", fc->triangles);
    jw_u64(w, "triangles_full", fc->triangles_full);
    jw_u64(w, "draws", fc->draws);
    jw_u64(w, "hlod_drawn", fr->hlod_drawn); /* far-world proxies drawn (before culling) */
    jw_u64(w, "hlod_triangles", fr->hlod_triangles);
    jw_u64(w, "extracted", fc->extracted);
    jw_u32s(w, "lod", fc->lod, 4);
    jw_u64(w, "texture_bytes", fr->texture_bytes); /* GPU bytes of every texture's levels now */
    jw_u64(w, "texture_bytes_full", fr->texture_bytes_full);
    jw_u64(w, "textures_full", tx->decisions.full);
    jw_u64(w, "textures_low", tx->decisions.low);
    jw_u64(w, "texture_swaps_in_flight", tx->decisions.in_flight + tx->replacing);
    jw_u64(w, "texture_bytes_read", fr->texture_bytes_read);
    jw_f64(w, "texture_swap_ms", fr->texture_swap_ms);
    jw_f64(w, "texture_stream_ms", fr->texture_stream_ms);
    jw_f64(w, "batch_build_ms", fr->batch_build_ms);
    jw_u64(w, "batch_cells_built", fr->batch_cells_built);
    jw_u64(w, "batch_cells_waiting", fr->batch_cells_waiting);
    jw_u64(w, "batch_cells_building", fr->batch_cells_building);
    jw_u64(w, "batch_meshes_built", fr->batch_meshes_built);
    jw_u64(w, "batched_entities", fr->batched_entities);
    jw_u64(w, "batch_taken_new", fr->batch_taken_new);
    jw_u64(w, "batch_deferred_new", fr->batch_deferred_new);
    jw_u64(w, "lod_checked", fr->lod_checked);
    jw_u64(w, "lod_deferred", fr->lod_deferred);
    jw_u64(w, "lod_switches", fr->lod_switches);
    jw_u64(w, "terrain_chunks", fr->terrain_chunks);
    jw_u64(w, "terrain_chunks_resident", fr->terrain_resident);
    jw_u64(w, "chunk_rebuilds", fr->chunk_rebuilds);
    jw_u64(w, "colliders", fr->colliders);
    jw_u64(w, "terrain_cpu_bytes", fr->terrain_cpu_bytes);
    jw_u64(w, "terrain_gpu_bytes", fr->terrain_gpu_bytes);
    jw_f64(w, "physics_ms", fr->physics_ms);
    jw_u64(w, "live_bytes", rill_mem_live_total()); /* CPU heap through rill's allocator */
    jw_u64s(w, "live_bytes_by_tag", fr->live, RILL_MEM_TAG_NUM); /* rill_mem_tag order */
    jw_u64(w, "gpu_memory_bytes", fr->gpu_block_bytes);          /* device memory blocks held */
    jw_u64(w, "gpu_memory_used_bytes", fr->gpu_used_bytes);
    jw_u64(w, "rss_bytes", fr->rss_bytes); /* the process's resident set (the OS's count) */
    /* What the renderer itself saw (zero with --no-render): CPU recording, waiting for a free
     * frame slot, triangles of every pass (shadow cascades too), and GPU time per pass. */
    jw_f64(w, "app_ms", fr->app_ms);
    jw_f64(w, "extract_ms", fr->extract_ms);
    jw_f64(w, "render_cpu_ms", rs->cpu_record_ms);
    jw_f64(w, "render_wait_ms", rs->cpu_wait_ms);
    /* The render thread (the default): its wall time on this frame (its wait for a free frame
     * slot, recording, submit) and the main thread's waits for it (0 with --no-render-thread) */
    jw_f64(w, "render_thread_ms", fr->render_thread_ms);
    jw_f64(w, "render_sync_ms", fr->render_sync_ms);
    jw_u64(w, "upload_bytes", rs->uploaded_bytes_last_frame);    /* copied to staging in the wait */
    jw_u64(w, "uploads", rs->uploads_last_frame);                /* how many made those bytes */
    jw_u64(w, "upload_backlog_bytes", rs->upload_backlog_bytes); /* left queued by the budget */
    jw_render_phases(w, "render_cpu_phases", rs);
    /* GPU objects the frame made (first-use render targets and tables) and their CPU time */
    jw_u64(w, "render_created", rs->gpu_objects_created);
    jw_f64(w, "render_create_ms", rs->cpu_create_ms);
    jw_u64(w, "gpu_triangles", rs->triangles);
    jw_u64(w, "instances_visible", rs->instances_visible);
    jw_u64(w, "instances_occluded", rs->instances_occluded); /* GPU culling's occlusion */
    jw_u64(w, "gpu_cull_resident", rs->gpu_cull_resident);   /* GPU culling's table */
    jw_u64(w, "gpu_cull_spawned", rs->gpu_cull_spawned);     /* ... ids it took this frame */
    jw_f64(w, "gpu_cull_scan_ms", rs->gpu_cull_scan_ms);     /* ... its scan's CPU time */
    jw_u64(w, "gpu_cull_deltas", rs->gpu_cull_deltas);       /* ... slots it rewrote */
    jw_u64(w, "gpu_cull_unchanged", rs->gpu_cull_unchanged); /* ... instances passed unread */
    jw_f64(w, "gi_ms", rs->gi_ms);                           /* GPU time of the GI passes */
    jw_f64(w, "gi_voxelize_ms", rs->gi_voxelize_ms);         /* CPU voxelization (voxel tiers) */
    jw_str(w, "gi_tier", fly_gi_tier_name(rs->gi_tier));     /* the tier that ran */
    jw_passes(w, "gpu_passes", rs);
    jw_f64(w, "ssr_ms", rs->ssr_gpu_ms); /* screen-space reflections' passes */
    jw_systems(w, "systems", row->sys, row->nsys, false);
    jw_systems(w, "systems_cpu", row->sys, row->nsys, true);
    jw_end(w);
}

void fly_write_frame_keys(FILE *f, const fly_row *row, const fly_frame *fr, double gpu_ms,
                          const rill_render_stats *rs) {
    jw w = {.f = f};
    write_frame_keys(&w, row, fr, gpu_ms, rs);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool write_frametime(const char *path, const fly_frame *fr, uint64_t n) {
    cli_canvas c;
    const int W = 1200, H = 360, L = 40, B = 20;
    if (!cli_canvas_make(&c, W, H)) {
        return false;
    }
    double top = FLY_FRAME_BUDGET_MS * 1.5;
    for (uint64_t i = 0; i < n; i++) {
        top = RILL_MAX(top, fr[i].main_ms * 1.05);
    }
    const uint8_t grid[3] = {225, 225, 225}, red[3] = {220, 30, 30}, orange[3] = {240, 150, 0},
                  blue[3] = {40, 90, 200}, green[3] = {20, 160, 60}, black[3] = {0, 0, 0};
    float ph = (float)(H - B - 10);
#define YOF(ms) ((float)(H - B) - (float)((ms) / top) * ph)
    for (double ms = 5.0; ms < top; ms += 5.0) {
        cli_canvas_line(&c, L, YOF(ms), W - 5, YOF(ms), grid, 1);
    }
    cli_canvas_line(&c, L, YOF(0.0), W - 5, YOF(0.0), black, 1);
    cli_canvas_line(&c, L, YOF(0.0), L, 5, black, 1);
    float xs = n > 1 ? (float)(W - 5 - L) / (float)(n - 1) : 0.0f;
    for (uint64_t i = 1; i < n; i++) {
        float x0 = L + xs * (float)(i - 1), x1 = L + xs * (float)i;
        cli_canvas_line(&c, x0, YOF(fr[i - 1].stream_ms), x1, YOF(fr[i].stream_ms), green, 1);
        cli_canvas_line(&c, x0, YOF(fr[i - 1].main_ms), x1, YOF(fr[i].main_ms), blue, 1);
    }
    for (int x = L; x < W - 5; x += 6) {
        cli_canvas_line(&c, (float)x, YOF(FLY_FRAME_BUDGET_MS), (float)x + 3,
                        YOF(FLY_FRAME_BUDGET_MS), red, 1);
        cli_canvas_line(&c, (float)x, YOF(FLY_STREAM_BUDGET_MS), (float)x + 3,
                        YOF(FLY_STREAM_BUDGET_MS), orange, 1);
    }
#undef YOF
    return cli_canvas_write_png(&c, path);
}

/* The map's legend, top left: what each colour means. */
static void map_legend(cli_canvas *c, const uint8_t inst_cols[][3], const uint8_t path_col[3],
                       const uint8_t load_col[3], const uint8_t unload_col[3]) {
    static const char *const inst_names[] = {"instance unloaded", "instance loading",
                                             "instance loaded", "instance failed",
                                             "instance unloading"};
    const uint8_t white[3] = {255, 255, 255}, ink[3] = {30, 30, 30};
    const int x = 8, y = 8, line = 22, n = RILL_INSTANCE_STATE_NUM + 4;
    cli_canvas_rect(c, (float)x, (float)y, (float)(x + 330), (float)(y + 10 + n * line), white,
                    0.85f);
    int row = y + 8;
    for (int i = 0; i < RILL_INSTANCE_STATE_NUM && i < 5; i++, row += line) {
        cli_canvas_rect(c, (float)(x + 8), (float)row, (float)(x + 30), (float)(row + 14),
                        inst_cols[i], 0.35f);
        cli_canvas_text(c, x + 40, row, inst_names[i], ink, 3);
    }
    const uint8_t *line_cols[] = {path_col, load_col, unload_col};
    static const char *const line_names[] = {"camera path", "load ring", "unload ring"};
    for (int i = 0; i < 3; i++, row += line) {
        for (int t = 0; t < 3; t++) {
            cli_canvas_line(c, (float)(x + 8), (float)(row + 6 + t), (float)(x + 30),
                            (float)(row + 6 + t), line_cols[i], 1);
        }
        cli_canvas_text(c, x + 40, row, line_names[i], ink, 3);
    }
    cli_canvas_text(c, x + 8, row, "pale tiles terrain chunks", ink, 3);
}

static bool write_map(const char *path, const rill_stream_instance_info *inst, uint32_t ni,
                      const fly_frame *fr, uint64_t n, const float cam[3],
                      const rill_terrain_system *terrain) {
    float mn[2] = {FLT_MAX, FLT_MAX}, mx[2] = {-FLT_MAX, -FLT_MAX};
    for (uint32_t i = 0; i < ni; i++) {
        mn[0] = RILL_MIN(mn[0], inst[i].bounds_min[0]),
        mx[0] = RILL_MAX(mx[0], inst[i].bounds_max[0]);
        mn[1] = RILL_MIN(mn[1], inst[i].bounds_min[2]),
        mx[1] = RILL_MAX(mx[1], inst[i].bounds_max[2]);
    }
    for (uint64_t i = 0; i < n; i++) {
        mn[0] = RILL_MIN(mn[0], fr[i].cam[0]), mx[0] = RILL_MAX(mx[0], fr[i].cam[0]);
        mn[1] = RILL_MIN(mn[1], fr[i].cam[2]), mx[1] = RILL_MAX(mx[1], fr[i].cam[2]);
    }
    float span = RILL_MAX(RILL_MAX(mx[0] - mn[0], mx[1] - mn[1]), 1.0f) * 1.04f;
    float ox = 0.5f * (mn[0] + mx[0]) - 0.5f * span, oz = 0.5f * (mn[1] + mx[1]) - 0.5f * span;
    const int S = 1024;
    cli_canvas c;
    if (!cli_canvas_make(&c, S, S)) {
        return false;
    }
    float k = (float)S / span;
    /* The terrain's chunk grid by state underneath (resident, building, unloaded). */
    float wmn[2] = {ox, oz}, wmx[2] = {ox + span, oz + span};
    rill_terrain_draw_chunk_map(terrain, wmn, wmx, c.px, (uint32_t)S, (uint32_t)S);
#define MX(x) (((x)-ox) * k)
#define MZ(z) (((z)-oz) * k)
    static const uint8_t colors[RILL_INSTANCE_STATE_NUM][3] = {
        {150, 150, 150}, /* unloaded */
        {240, 180, 0},   /* loading */
        {30, 170, 70},   /* loaded */
        {210, 40, 40},   /* failed */
        {120, 60, 160},  /* unloading */
    };
    for (uint32_t i = 0; i < ni; i++) {
        const uint8_t *col =
            colors[(unsigned)inst[i].state < RILL_INSTANCE_STATE_NUM ? inst[i].state : 0];
        cli_canvas_rect(&c, MX(inst[i].bounds_min[0]), MZ(inst[i].bounds_min[2]),
                        MX(inst[i].bounds_max[0]), MZ(inst[i].bounds_max[2]), col, 0.35f);
    }
    const uint8_t path_col[3] = {20, 40, 160}, load_col[3] = {0, 120, 255},
                  unload_col[3] = {200, 0, 200};
    for (uint64_t i = 1; i < n; i++) {
        cli_canvas_line(&c, MX(fr[i - 1].cam[0]), MZ(fr[i - 1].cam[2]), MX(fr[i].cam[0]),
                        MZ(fr[i].cam[2]), path_col, 1);
    }
    /* The rings of the instance nearest the camera's last position, which are the radii in play. */
    float best = FLT_MAX, lr = 0, ur = 0;
    for (uint32_t i = 0; i < ni; i++) {
        if (inst[i].distance < best) {
            best = inst[i].distance, lr = inst[i].load_radius, ur = inst[i].unload_radius;
        }
    }
    if (ni) {
        cli_canvas_circle(&c, MX(cam[0]), MZ(cam[2]), lr * k, load_col);
        cli_canvas_circle(&c, MX(cam[0]), MZ(cam[2]), ur * k, unload_col);
    }
    map_legend(&c, colors, path_col, load_col, unload_col);
#undef MX
#undef MZ
    return cli_canvas_write_png(&c, path);
}

/* >>world size -------------------------------------------------------------------------------- */

/* Entities below root (not counting root). */
static uint64_t descendants(rill_world *w, rill_entity root) {
    uint64_t n = 0;
    RILL_ARRAY(rill_entity) stack = {0};
    for (rill_entity c = rill_world_first_child(w, root); c; c = rill_world_next_sibling(w, c)) {
        rill_array_push(&stack, c);
    }
    while (stack.len) {
        rill_entity e = rill_array_pop(&stack);
        n++;
        for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
            rill_array_push(&stack, c);
        }
    }
    rill_array_free(&stack);
    return n;
}

/* Remembers, per model file, the most entities a Model naming it had below it (its spawned node
 * trees, every level), walking at most 8 Model entities a file each sample. The keys are the
 * interned model paths, which never equal an interned scene path. */
static void sample_models(rill_world *w, rill_map *live) {
    rill_component mc = rill_world_find_component(w, "Model");
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = mc.id ? rill_world_component_dense(w, mc, &ents, &data) : 0;
    rill_map walked = {0}; /* path -> Models walked this sample */
    for (uint32_t i = 0; i < n; i++) {
        const rill_model_ref *ref = (const rill_model_ref *)data + i;
        uint64_t key = (uint64_t)(uintptr_t)ref->path, k = 0, old = 0;
        if (!ref->path || (rill_map_get(&walked, key, &k) && k >= 8u)) {
            continue;
        }
        rill_map_set(&walked, key, k + 1u);
        uint64_t d = descendants(w, ents[i]);
        if (!rill_map_get(live, key, &old) || d > old) {
            rill_map_set(live, key, d);
        }
    }
    rill_map_free(&walked);
}

/* Remembers, per scene file, the most entities a loaded instance of it held in the live world
 * (its own entities plus the node trees its models spawned), and per model file what a Model of it
 * spawned (sample_models). */
void fly_sample_live(rill_app *app, rill_map *live) {
    rill_world *w = rill_app_world(app);
    rill_stream *s = rill_app_stream(app);
    rill_component ic = rill_world_find_component(w, "SceneInstance");
    uint32_t ni = rill_stream_instances(s, NULL, 0);
    rill_stream_instance_info *inst = calloc(ni ? ni : 1, sizeof *inst);
    ni = inst ? rill_stream_instances(s, inst, ni) : 0;
    for (uint32_t i = 0; i < ni; i++) {
        const rill_scene_instance *si = rill_world_get(w, inst[i].root, ic);
        if (inst[i].state != RILL_INSTANCE_LOADED || !si || !si->scene) {
            continue;
        }
        uint64_t n = descendants(w, inst[i].root), old = 0;
        if (!rill_map_get(live, (uint64_t)(uintptr_t)si->scene, &old) || n > old) {
            rill_map_set(live, (uint64_t)(uintptr_t)si->scene, n);
        }
    }
    free(inst);
    sample_models(w, live);
}

/* Entities a scene file loaded into the scratch world would bring in the live one: its own entities
 * plus, for each of its Model entities, what a Model of that file spawned live (sample_models;
 * nothing for a model never seen live, so the count is then a lower bound). */
static uint64_t scratch_content(rill_world *scratch, uint64_t own, const rill_map *live) {
    rill_component mc = rill_world_find_component(scratch, "Model");
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = mc.id ? rill_world_component_dense(scratch, mc, &ents, &data) : 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d = 0;
        const rill_model_ref *ref = (const rill_model_ref *)data + i;
        if (ref->path && rill_map_get(live, (uint64_t)(uintptr_t)ref->path, &d)) {
            own += d;
        }
    }
    return own;
}

/* Entities the whole world holds, counted like the per-frame `entities`: what no streamed instance
 * brought, plus each streamed instance's content as measured live (sample_live). A scene file no
 * instance loaded during the fly is counted by loading it into a scratch world: its own entities
 * and, per Model, the node trees a Model of the same file spawned live (a model never seen live
 * adds nothing, so the total is then a lower bound). */
static uint64_t world_entities(rill_app *app, const rill_stream_instance_info *inst, uint32_t ni,
                               const rill_map *live) {
    rill_world *w = rill_app_world(app);
    uint64_t total = rill_world_entity_count(w);
    rill_component ic = rill_world_find_component(w, "SceneInstance");
    for (uint32_t i = 0; i < ni; i++) {
        total -= descendants(w, inst[i].root);
    }
    rill_world *scratch = rill_world_create(NULL, NULL);
    rill_app_register_components(scratch, NULL, NULL, NULL);
    rill_demo_register_components(scratch);
    rill_scene_loader *ld = rill_scene_loader_create(
        &(rill_scene_loader_desc){.world = scratch, .vfs = rill_app_vfs(app)}, NULL);
    rill_map counts = {0}; /* interned scene path -> entity count */
    for (uint32_t i = 0; i < ni && ld; i++) {
        const rill_scene_instance *si = rill_world_get(w, inst[i].root, ic);
        if (!si || !si->scene) {
            continue;
        }
        uint64_t v = 0, key = (uint64_t)(uintptr_t)si->scene;
        if (!rill_map_get(live, key, &v) && !rill_map_get(&counts, key, &v)) {
            rill_entity root = rill_world_spawn(scratch);
            rill_scene_instance copy = *si;
            copy.streamed = false;
            rill_world_add(scratch, root, rill_scene_register(scratch).instance, &copy);
            rill_scene_load h = rill_scene_instance_load(ld, root, NULL);
            while (rill_scene_load_get_state(ld, h) == RILL_SCENE_LOAD_PARSING ||
                   rill_scene_load_get_state(ld, h) == RILL_SCENE_LOAD_SPAWNING) {
                rill_scene_loader_update(ld);
            }
            v = scratch_content(scratch, rill_scene_load_entity_count(ld, h), live);
            rill_scene_load_release(ld, h);
            rill_world_despawn_recursive(scratch, root);
            rill_map_set(&counts, key, v);
        }
        total += v;
    }
    rill_map_free(&counts);
    rill_scene_loader_destroy(ld);
    rill_world_destroy(scratch);
    return total;
}

/* The frame the memory comparison starts from: the last frame of the first run of settled ones
 * (nothing loading, unloading, spawning model trees or despawning) with the same instances loaded
 * as at the end, so both hold the same content (an out-and-back path ends where it started) and
 * the start has stood as long as it did (what the engine trims a few frames after its loads is
 * gone, as it is at the end); else the first settled one with as many loaded, else the first with
 * nothing loading or unloading and as many, else 0. *same says whether the first rule found it. */
static uint64_t memory_start(const fly_frame *frames, uint64_t n, uint64_t end, bool *same) {
    const fly_frame *e = &frames[end];
    *same = true;
    for (uint64_t i = 1; i < n; i++) {
        if (frames[i].settled && frames[i].loaded_set == e->loaded_set &&
            frames[i].loaded == e->loaded) {
            while (i + 1u < end && frames[i + 1u].settled &&
                   frames[i + 1u].loaded_set == e->loaded_set &&
                   frames[i + 1u].loaded == e->loaded) {
                i++;
            }
            return i;
        }
    }
    *same = false;
    for (uint64_t i = 1; i < n; i++) {
        if (frames[i].settled && frames[i].loaded == e->loaded) {
            return i;
        }
    }
    for (uint64_t i = 1; i < n; i++) {
        if (!frames[i].loading && !frames[i].unloading && frames[i].loaded == e->loaded) {
            return i;
        }
    }
    return 0;
}

/* Entities and CPU heap per allocation tag at the start frame and at the end: the last frame of
 * the path, or the settle frame after it (`end` >= n - 1) where streaming came to rest. */
static void write_memory(jw *w, const fly_frame *frames, uint64_t n, uint64_t end) {
    bool same = false;
    uint64_t at[2] = {n ? memory_start(frames, n, end, &same) : 0, end};
    jw_u64(w, "memory_same_instances", same);
    jw_u64(w, "memory_settle_frames", end + 1u > n ? end + 1u - n : 0);
    const char *names[2][5] = {{"memory_start_frame", "entities_start", "live_bytes_start",
                                "live_bytes_by_tag_start", "gpu_memory_bytes_start"},
                               {"memory_end_frame", "entities_end", "live_bytes_end",
                                "live_bytes_by_tag_end", "gpu_memory_bytes_end"}};
    for (int k = 0; k < 2 && n; k++) {
        const fly_frame *fr = &frames[at[k]];
        uint64_t total = 0;
        uint32_t tags[RILL_MEM_TAG_NUM];
        for (int tag = 0; tag < RILL_MEM_TAG_NUM; tag++) {
            total += fr->live[tag], tags[tag] = (uint32_t)RILL_MIN(fr->live[tag], UINT32_MAX);
        }
        jw_u64(w, names[k][0], at[k]);
        jw_u64(w, names[k][1], fr->entities);
        jw_u64(w, names[k][2], total);
        jw_u32s(w, names[k][3], tags, RILL_MEM_TAG_NUM);
        jw_u64(w, names[k][4], fr->gpu_block_bytes);
    }
}

/* The median, 99th percentile and maximum of the frames' main-thread times (wall or CPU). */
typedef struct fly_spread {
    double median, p99, max;
} fly_spread;

enum { SPREAD_MAIN, SPREAD_MAIN_CPU, SPREAD_RENDER_THREAD, SPREAD_STREAM, SPREAD_STREAM_CPU };
static fly_spread spread_of(const fly_frame *frames, uint64_t n, int what) {
    fly_spread sp = {0, 0, 0};
    double *sorted = calloc(n ? n : 1, sizeof(double));
    if (!sorted || !n) {
        free(sorted);
        return sp;
    }
    for (uint64_t i = 0; i < n; i++) {
        sorted[i] = what == SPREAD_MAIN_CPU        ? frames[i].main_cpu_ms
                    : what == SPREAD_RENDER_THREAD ? frames[i].render_thread_ms
                    : what == SPREAD_STREAM        ? frames[i].stream_ms
                    : what == SPREAD_STREAM_CPU    ? frames[i].stream_cpu_ms
                                                   : frames[i].main_ms;
    }
    qsort(sorted, n, sizeof(double), cmp_double);
    sp = (fly_spread){sorted[(n - 1) / 2], sorted[(size_t)((double)(n - 1) * 0.99)], sorted[n - 1]};
    free(sorted);
    return sp;
}

int fly_finish(fly_run *run, uint64_t n, uint64_t end) {
    rill_app *app = rill_content_app(run->content);
    rill_stream *s = rill_app_stream(app);
    uint32_t ni = rill_stream_instances(s, NULL, 0);
    rill_stream_instance_info *inst = calloc(ni ? ni : 1, sizeof *inst);
    ni = inst ? rill_stream_instances(s, inst, ni) : 0;
    fly_spread wall = spread_of(run->frames, n, SPREAD_MAIN),
               cpu = spread_of(run->frames, n, SPREAD_MAIN_CPU),
               rt = spread_of(run->frames, n, SPREAD_RENDER_THREAD),
               stream = spread_of(run->frames, n, SPREAD_STREAM),
               stream_cpu = spread_of(run->frames, n, SPREAD_STREAM_CPU);
    uint64_t main_over = 0, rt_over = 0, stream_over = 0, stream_cpu_over = 0;
    for (uint64_t i = 0; i < n; i++) {
        main_over += run->frames[i].main_ms > FLY_FRAME_BUDGET_MS;
        rt_over += run->frames[i].render_thread_ms > FLY_FRAME_BUDGET_MS;
        stream_over += run->frames[i].stream_ms > FLY_STREAM_AIM_MS;
        stream_cpu_over += run->frames[i].stream_cpu_ms > FLY_STREAM_AIM_MS;
    }
    double main_max = 0, stream_max = 0, stream_cpu_max = 0, tri = 0, tri_full = 0, swap_max = 0,
           tstream_max = 0;
    uint64_t ent_max = 0, tex_max = 0, tex_full_max = 0;
    for (uint64_t i = 0; i < n; i++) {
        const fly_frame *fr = &run->frames[i];
        main_max = RILL_MAX(main_max, fr->main_ms);
        stream_max = RILL_MAX(stream_max, fr->stream_ms);
        stream_cpu_max = RILL_MAX(stream_cpu_max, fr->stream_cpu_ms);
        ent_max = RILL_MAX(ent_max, (uint64_t)fr->entities);
        tex_max = RILL_MAX(tex_max, fr->texture_bytes);
        tex_full_max = RILL_MAX(tex_full_max, fr->texture_bytes_full);
        swap_max = RILL_MAX(swap_max, fr->texture_swap_ms);
        tstream_max = RILL_MAX(tstream_max, fr->texture_stream_ms);
        tri += (double)fr->triangles, tri_full += (double)fr->triangles_full;
    }
    double p99 = wall.p99;
    fly_sample_live(app, &run->live);
    uint64_t world = world_entities(app, inst, ni, &run->live);
    FILE *f = fopen(fly_out_path(run, "summary.json"), "w");
    if (f) {
        jw w = {.f = f};
        jw_begin(&w);
        jw_u64(&w, "frames", n);
        jw_u64(&w, "workers", rill_jobs_worker_count(rill_app_jobs(app)));
        jw_u64(&w, "cameras", run->o.cameras > 1 ? run->o.cameras : 1); /* views (--cameras) */
        rill_renderer_settings rset;
        rill_renderer_get_settings(run->r, &rset);
        jw_str(&w, "quality", rill_cli_quality_name(rset.quality)); /* the tier flown (--quality) */
        jw_u64(&w, "upload_budget_bytes", rset.upload_budget_bytes); /* per frame */
        jw_u64(&w, "world_entities", world);
        jw_u64(&w, "entities_max", ent_max);
        jw_f64(&w, "main_ms_max", main_max);
        jw_f64(&w, "main_ms_p99", p99);
        jw_f64(&w, "main_ms_median", wall.median);
        jw_u64(&w, "main_frames_over_budget", main_over); /* main_ms over 16.7 ms */
        /* The render thread's time per frame (0 with --no-render-thread) */
        jw_f64(&w, "render_thread_ms_max", rt.max);
        jw_f64(&w, "render_thread_ms_p99", rt.p99);
        jw_f64(&w, "render_thread_ms_median", rt.median);
        jw_u64(&w, "render_thread_frames_over_budget", rt_over);
        jw_f64(&w, "main_cpu_ms_max", cpu.max);
        jw_f64(&w, "main_cpu_ms_p99", cpu.p99);
        jw_f64(&w, "main_cpu_ms_median", cpu.median);
        jw_f64(&w, "stream_ms_max", stream_max);
        jw_f64(&w, "stream_cpu_ms_max", stream_cpu_max);
        /* The streaming aim (FLY_STREAM_AIM_MS: the 3 ms budget plus 1 ms): p99 and frames over */
        jw_f64(&w, "stream_ms_p99", stream.p99);
        jw_f64(&w, "stream_cpu_ms_p99", stream_cpu.p99);
        jw_u64(&w, "stream_frames_over_4ms", stream_over);
        jw_u64(&w, "stream_cpu_frames_over_4ms", stream_cpu_over);
        jw_f64(&w, "triangles_mean", n ? tri / (double)n : 0.0);
        jw_f64(&w, "triangles_full_mean", n ? tri_full / (double)n : 0.0);
        rill_render_texture_streaming_stats tx;
        rill_render_assets_get_texture_streaming_stats(fly_assets(run), &tx);
        double secs = (double)n * FLY_DT;
        jw_u64(&w, "texture_bytes_max", tex_max);
        /* The most the GPU would have held with every streamed texture at full resolution. */
        jw_u64(&w, "texture_bytes_full", tex_full_max);
        jw_u64(&w, "texture_bytes_read", n ? run->frames[n - 1].texture_bytes_read : 0);
        jw_f64(&w, "texture_bytes_read_per_s",
               n ? (double)run->frames[n - 1].texture_bytes_read / secs : 0.0);
        jw_u64(&w, "texture_swaps", tx.swaps);
        jw_u64(&w, "texture_swaps_cancelled", tx.cancelled);
        jw_f64(&w, "texture_swap_ms_max", swap_max);
        jw_f64(&w, "texture_stream_ms_max", tstream_max);
        jw_u64(&w, "texture_full_landed", tx.full_landed);
        jw_f64(&w, "texture_full_latency_ms_max", tx.full_latency_ms_max);
        jw_f64(&w, "texture_full_latency_ms_mean", tx.full_latency_ms_mean);
        write_memory(&w, run->frames, n, end);
        /* the GI tier the last frame ran, and why quality Hwrt ran SdfHigh ("" when it did not) */
        jw_str(&w, "gi_tier", fly_gi_tier_name(run->gi_tier));
        jw_str(&w, "gi_hwrt_fallback", run->gi_hwrt_why);
        jw_end(&w);
        fclose(f);
    }
    bool ok = f != NULL;
    ok = write_frametime(fly_out_path(run, "frametime.png"), run->frames, n) && ok;
    float cam[3] = {0, 0, 0};
    if (n) {
        memcpy(cam, run->frames[n - 1].cam, sizeof cam);
    }
    ok = write_map(fly_out_path(run, "map.png"), inst, ni, run->frames, n, cam,
                   rill_app_terrain_system(rill_content_terrain(run->content))) &&
         ok;
    printf("fly: %llu frames; main thread max %.2f ms, p99 %.2f ms; streaming max %.2f ms; "
           "entities max %llu of %llu; triangles mean %.0f (full detail %.0f); textures max "
           "%.1f MB (all full %.1f MB) -> %s\n",
           (unsigned long long)n, main_max, p99, stream_max, (unsigned long long)ent_max,
           (unsigned long long)world, n ? tri / (double)n : 0.0, n ? tri_full / (double)n : 0.0,
           (double)tex_max / 1e6, (double)tex_full_max / 1e6, run->o.out);
    if (run->gi_hwrt_why[0]) {
        printf("fly: GI quality Hwrt ran %s: %s\n", fly_gi_tier_name(run->gi_tier),
               run->gi_hwrt_why);
    } else if (run->gi_tier) {
        printf("fly: GI tier %s\n", fly_gi_tier_name(run->gi_tier));
    }
    free(inst);
    return ok ? 0 : 1;
}
