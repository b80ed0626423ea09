/* rill/formats/export.h: the project exporter: turns a project folder into a game pack (.rpak)
 * and/or a folder of loose, runtime-ready files. `rill export` is a thin wrapper around it.
 *
 * ON WHAT HAPPENS TO EACH FILE
 *   The project folder is walked (sorted, so runs are reproducible). Skipped: dot-files and
 *   dot-folders (which includes the default cache folder `.rill-cache/`), a top-level `build/`
 *   folder, the output pack, the loose output folder and the cache folder when they lie inside the
 *   project, and `.rpak` files (with a warning). Every other file is one input:
 *     - textures (.png .jpg .jpeg .tga .hdr) become `.rmip` (same folder, same stem: the rule is
 *       rill_export_output_path). The usage, and so the format, comes from glTF materials that
 *       reference the image by URI (normal -> BC5; base colour / emissive -> BC7 sRGB;
 *       metallic-roughness / occlusion -> BC7 linear), else from the name (suffix _n, _normal,
 *       _nrm -> normal; _rough, _metal, _ao, _orm, _mask -> BC7 linear), else BC7 sRGB.
 *       .hdr files become RGBA16F. Full mip chains.
 *     - models (.glb, .gltf) become `.glb` with edge buffers (RILL_mesh_edges) plus baked LOD
 *       levels `name_lod1.glb` ... beside them. A model that has hand-authored `name_lodN.glb`
 *       files in the project gets no baked levels (the authored ones are exported instead).
 *     - a scene that a streamed SceneInstance names also gets its far-world proxy `name.hlod`
 *       (its models merged and simplified, rill/formats/hlod.h); a scene that places streamed
 *       instances gets `name.hlod1`, their proxies merged again per cell.
 *     - everything else is copied unchanged.
 *   Two inputs that map to the same output path (rock.png and rock.jpg, or rock.png and an
 *   existing rock.rmip) are an error on the later one in path order.
 *
 * ON THE CACHE
 *   Each converted input has a key: XXH3 of its bytes (and of the external buffers of a .gltf),
 *   its path, the converter options and RILL_EXPORT_TOOL_VERSION. Outputs are stored under
 *   `<cache_dir>/<key>.rxc` with a checksum; an unchanged input is served from there. A damaged
 *   cache entry is rebuilt. Entries are never pruned automatically: delete the folder to reclaim
 *   space.
 *
 * ON THREADS
 *   One job per input on a rill_jobs system; results come back to the calling thread, which adds
 *   them to the pack and calls the progress callback. The pack's bytes do not depend on the order
 *   in which jobs finish. The pack and every cache entry are written atomically.
 *
 * Depends on: rill/base.h, rill/formats/{rpak,rmip,gltf,edges,lod}.h, cJSON.
 */
#ifndef RILL_FORMATS_EXPORT_H
#define RILL_FORMATS_EXPORT_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Part of every cache key: bump it when the exporter's output for the same input changes. */
#define RILL_EXPORT_TOOL_VERSION "rill-export/2" /* 2: models keep skins, morphs, clips */
/* The default cache folder, relative to the project folder. */
#define RILL_EXPORT_DEFAULT_CACHE ".rill-cache"
/* The file a loose export writes at the root of its output folder, listing the files it
 * generated (not the copies) with their hashes. An export whose project folder holds such files
 * skips generated files that are still unchanged, so exporting loose into the project itself is
 * safe to repeat. */
#define RILL_EXPORT_MANIFEST ".rill-export-manifest"

/* What the exporter does with one input. */
typedef enum rill_export_kind {
    RILL_EXPORT_KIND_COPY = 0, /* copied unchanged */
    RILL_EXPORT_KIND_TEXTURE,  /* image -> .rmip */
    RILL_EXPORT_KIND_MODEL,    /* glTF -> .glb with edges + LOD levels */
    RILL_EXPORT_KIND_NUM,
    RILL_EXPORT_KIND_FORCE_U32 = 0x7FFFFFFF
} rill_export_kind;

/* How an input ended. */
/* rill_export_status's values and their names (rill_export_status_name), one list. */
#define RILL_EXPORT_STATUS_LIST(X)                                                                 \
    X(RILL_EXPORT_STATUS_PENDING, "pending")                                                       \
    X(RILL_EXPORT_STATUS_REBUILT, "rebuilt") /* converted now */                                   \
    X(RILL_EXPORT_STATUS_CACHED, "cached")   /* outputs taken from the cache */                    \
    X(RILL_EXPORT_STATUS_COPIED, "copied")   /* copied unchanged */                                \
    X(RILL_EXPORT_STATUS_FAILED, "failed")
typedef enum rill_export_status {
    RILL_EXPORT_STATUS_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_EXPORT_STATUS_NUM,
    RILL_EXPORT_STATUS_FORCE_U32 = 0x7FFFFFFF
} rill_export_status;

/* Running counts (also the final result's counts). */
typedef struct rill_export_counts {
    uint32_t inputs;  /* files found */
    uint32_t done;    /* inputs finished (any status) */
    uint32_t outputs; /* files produced so far */
    uint32_t rebuilt;
    uint32_t cached;
    uint32_t copied;
    uint32_t failed;
    uint64_t bytes_in;  /* sum of input sizes */
    uint64_t bytes_out; /* pack size when a pack is written, else the sum of output sizes */
} rill_export_counts;

typedef enum rill_export_event_type {
    RILL_EXPORT_EVENT_NONE = 0,
    RILL_EXPORT_EVENT_BEGIN,      /* the inputs are known (counts.inputs) */
    RILL_EXPORT_EVENT_INPUT_DONE, /* one input finished: path, kind, status, message */
    RILL_EXPORT_EVENT_WRITING,    /* all inputs done; the pack is being written */
    RILL_EXPORT_EVENT_END,        /* finished; counts are final */
    RILL_EXPORT_EVENT_TICK,       /* about 5 times a second while inputs are in work: path is the
                                     input that has been in work the longest, input_sec its time */
    RILL_EXPORT_EVENT_NUM,
    RILL_EXPORT_EVENT_FORCE_U32 = 0x7FFFFFFF
} rill_export_event_type;

/* What the progress callback receives. Pointers are valid only during the call. */
typedef struct rill_export_event {
    rill_export_event_type type;
    const char *path;      /* INPUT_DONE: the input, project-relative with '/' */
    rill_export_kind kind; /* INPUT_DONE */
    rill_export_status status;
    const char *message;   /* INPUT_DONE with FAILED: the reason (names the file) */
    uint32_t output_count; /* INPUT_DONE: files this input produced */
    double input_sec;      /* INPUT_DONE: time the job spent on this input; TICK: so far */
    rill_export_counts counts;
    double elapsed_sec;
} rill_export_event;

/* Called on the thread that called rill_export_run, never concurrently. */
typedef void (*rill_export_progress_fn)(const rill_export_event *event, void *user);
/* Checks one input that is copied unchanged (path project-relative; its bytes): false with err
 * set fails that input (its message is err's, after the path: "scripts/door.lua:12: ..."). Called
 * on worker threads, concurrently: it must be thread-safe. `rill export` checks Lua scripts with
 * it (they must compile). */
typedef bool (*rill_export_check_fn)(const char *path, const uint8_t *data, size_t size, void *user,
                                     rill_error *err);

/* Export options. All zero except project_dir and an output = defaults:
 *   project_dir: the project folder (required).
 *   out_pack: the .rpak to write (atomically), or NULL for none.
 *   loose_out: a folder to write the outputs to as loose files, or NULL. At least one of
 *     out_pack and loose_out is required. Loose files are written only when their content
 *     changed; when loose_out is the project folder itself, an output never overwrites an input
 *     (so a model keeps its source .glb there; the pack gets the edge-annotated copy).
 *   cache_dir: NULL = `<project_dir>/.rill-cache`.
 *   no_cache: neither read nor write the cache.
 *   force: rebuild every input (the cache is still refreshed).
 *   lod_levels: 0 = 3; clamped to RILL_LOD_MAX_LEVELS (4). no_lods: bake none.
 *   jobs: worker threads of the job system the export creates; 0 = one per core (the calling
 *     thread only gathers results, so it does not need a core of its own).
 *   job_system: an existing job system to use instead (borrowed; may be deterministic).
 *   bc7_quality: 0 = the converter's default.
 *   progress / progress_user: optional callback.
 *   check / check_user: optional check of the inputs copied unchanged (rill_export_check_fn). */
typedef struct rill_export_desc {
    uint32_t start_canary; /* must be 0 */
    const char *project_dir;
    const char *out_pack;
    const char *loose_out;
    const char *cache_dir;
    bool no_cache;
    bool force;
    uint32_t lod_levels;
    bool no_lods;
    uint32_t jobs;
    rill_jobs *job_system;
    uint32_t bc7_quality;
    /* Far-world proxies (docs/export.md): no_hlod bakes none; hlod_triangles is one proxy
     * part's budget (0 = RILL_HLOD_DEFAULT_TRIANGLES, 4000); hlod_cell the level-1 cell size in
     * metres (0 = 3 x the widest streamed instance). */
    bool no_hlod;
    uint32_t hlod_triangles;
    float hlod_cell;
    rill_export_progress_fn progress;
    void *progress_user;
    rill_export_check_fn check;
    void *check_user;
    uint32_t end_canary; /* must be 0 */
} rill_export_desc;

/* One failed input, as kept in the result. */
typedef struct rill_export_failure {
    char *path;    /* project-relative input path */
    char *message; /* the reason, naming the file */
} rill_export_failure;

/* What an export did. Owns `failures`: release with rill_export_result_free. */
typedef struct rill_export_result {
    rill_export_counts counts;
    double seconds;
    uint32_t worker_count;
    uint32_t failure_count;
    rill_export_failure *failures; /* in input path order */
} rill_export_result;

/* The desc an all-zero desc (plus the caller's project_dir and outputs) resolves to: cache_dir
 * and the LOD level count filled in. cache_dir points into dst_cache (cap bytes). */
rill_export_desc rill_export_resolve_desc(const rill_export_desc *desc, char *dst_cache,
                                          size_t cap);

/* Runs an export. Returns RILL_OK when every input was exported and every output written.
 * When some inputs failed, the rest is still packed and written, and the return value is
 * RILL_ERR_PARSE (or the first failure's code) with err naming the count and the first failed
 * file; the failures are listed in out_result. When the pack or the loose folder cannot be
 * written at all, that error is returned. out_result may be NULL; when given, it is always
 * filled (free it with rill_export_result_free). */
rill_result rill_export_run(const rill_export_desc *desc, rill_export_result *out_result,
                            rill_error *err);

/* Releases what a result owns and zeroes it. NULL is fine. */
void rill_export_result_free(rill_export_result *result);

/* The kind an input path gets (by its extension, case-insensitive). */
rill_export_kind rill_export_kind_of(const char *path);

/* The packed / loose path of an input's main output: textures "a/rock.png" -> "a/rock.rmip",
 * models "a/chair.gltf" -> "a/chair.glb", anything else unchanged; every '#' (an asset label's
 * separator, never in a pack entry) becomes '_' ("t/wood #2.png" -> "t/wood _2.rmip"). A runtime
 * that finds an image reference "x.png" resolves it through the same rule. Returns false when it
 * does not fit. */
bool rill_export_output_path(char *dst, size_t cap, const char *input_path);

/* The human name of a status ("rebuilt", "cached", ...). Static storage. */
const char *rill_export_status_name(rill_export_status status);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_EXPORT_H */
