/* export_internal.h: what the exporter's two halves share: the per-input record the planner fills
 * and the worker jobs complete (export_work.c), and the glTF JSON helpers both use. */
#ifndef RILL_FORMATS_EXPORT_INTERNAL_H
#define RILL_FORMATS_EXPORT_INTERNAL_H

#include "rill/formats/export.h"
#include "rill/formats/lod.h"
#include "rill/formats/rmip.h"
#include "rpak_store.h"

#include <cjson/cJSON.h>
#include <stdatomic.h>

#define EXPORT_PATH_MAX 4096

/* One file an input produced. `data` is owned (rill_free). */
typedef struct rill__export_output {
    char *path; /* project-relative */
    uint8_t *data;
    size_t size;
    /* As the pack stores it (compressed on the job's worker; the main thread only files it),
     * when has_stored. */
    rill__rpak_stored stored;
    bool has_stored;
} rill__export_output;

/* Settings every job reads (immutable while jobs run). */
typedef struct rill__export_settings {
    const char *project_dir;
    const char *cache_dir; /* NULL when the cache is off */
    bool force;
    rill_lod_desc lod;
    bool no_lods;
    uint32_t bc7_quality;
    rill_jobs *jobs; /* the run's job system: a large texture's blocks are encoded in bands on it */
    bool no_hlod;    /* bake no far-world proxies */
    uint32_t hlod_triangles; /* a proxy part's triangle budget (0 = RILL_HLOD_DEFAULT_TRIANGLES) */
    float hlod_cell;         /* level-1 cell size in metres (0 = 3 x the widest instance) */
    rill_export_check_fn check; /* copied inputs (rill_export_desc.check) */
    void *check_user;
    struct rill__hlod_cache *hlod_models; /* models shared by the proxy bakes (export_hlod.c) */
} rill__export_settings;

/* One input: planned on the calling thread, processed by one job, then handed back. */
typedef struct rill__export_input {
    char *path;     /* project-relative, '/' separated */
    char *os_path;  /* project_dir joined with path */
    char *out_path; /* the main output's path (rill_export_output_path) */
    rill_export_kind kind;
    uint64_t size;
    rill_tex_usage usage; /* textures: the usage the planner chose */
    bool bake_lods;       /* models: bake levels (false for authored LODs and their bases) */
    bool keep_source;     /* textures a Terrain names and a model uses: also copied as they are */
    bool env_cube;        /* textures a Skybox / EnvironmentMapLight / ReflectionProbeSource
                             names: a .rmip cube (rill_rmip_cube_from_equirect) */
    bool bake_hlod;       /* scenes a streamed SceneInstance names: also bake their proxy */
    const rill__export_settings *settings;
    void *run; /* the run that owns this input (export.c) */
    /* Filled by the job. */
    rill_export_status status;
    rill_result code;
    char *message; /* FAILED: owned */
    uint32_t output_count;
    rill__export_output *outputs; /* owned */
    double seconds;               /* time spent in the job */
    _Atomic uint64_t started_ns;  /* set by the worker when the job starts (0 = not yet) */
    _Atomic uint32_t finished;    /* set by the worker when the job ends */
} rill__export_input;

/* The job body: processes one input (rill__export_input*), fills its result fields. Runs on a
 * worker; touches nothing but the input and the cache folder. */
void rill__export_process(rill__export_input *in);

/* Releases what an input's outputs own (the input itself stays). */
void rill__export_free_outputs(rill__export_input *in);

/* Parses the JSON of a .gltf or the JSON chunk of a .glb held in data[size]. Returns NULL when it
 * is neither (the caller then reports nothing: the real reader gives the precise error). */
cJSON *rill__export_gltf_json(const uint8_t *data, size_t size);

/* Decodes %XX escapes of a glTF URI into dst[cap]. False when it does not fit or is not a
 * relative path reference (a scheme such as data: or http:). */
bool rill__export_decode_uri(char *dst, size_t cap, const char *uri);

/* Calls found(s, n, user) for every string literal inside a `Terrain { ... }` component block of
 * the .rsn text t[n] (comments and other components skipped; strings with escapes left out). The
 * terrain reads the images it names itself (16-bit heights, CPU splat weights), so the export
 * ships them as they are instead of converting them. Unterminated text ends the scan. */
void rill__export_terrain_strings(const char *t, size_t n,
                                  void (*found)(const char *s, size_t n, void *user), void *user);

/* The same for the blocks of the components whose images are environment images (Skybox,
 * EnvironmentMapLight, ReflectionProbeSource): the export turns those into .rmip cubes. */
void rill__export_environment_strings(const char *t, size_t n,
                                      void (*found)(const char *s, size_t n, void *user),
                                      void *user);

/* The same for ForwardDecal blocks, with the field each string is the value of (albedo, normal,
 * roughness): the export converts those maps as colour, normal and linear data. */
void rill__export_decal_strings(const char *t, size_t n,
                                void (*found)(const char *field, size_t field_n, const char *s,
                                              size_t n, void *user),
                                void *user);

/* True when the name's extension is one of the texture extensions the exporter converts. */
bool rill__export_is_texture_ext(const char *path);

/* >>far-world proxies (export_hlod.c) */
typedef struct rill__export_hlod rill__export_hlod;
/* Scans the .rsn inputs: sets bake_hlod on every scene a streamed SceneInstance names and keeps
 * the placements for level 1. NULL when settings turn proxies off (or out of memory). */
rill__export_hlod *rill__export_hlod_plan(rill__export_input *inputs, uint32_t n,
                                          rill__export_settings *s);
/* Keeps a finished job's level-0 proxy output (o, of district scene `scene`) for level 1. */
void rill__export_hlod_keep(rill__export_hlod *x, const char *scene, const rill__export_output *o);
/* Bakes the level-1 proxies (one per placing scene) into *out (owned: free each path and data,
 * then the array); returns how many. Failures are warnings. */
uint32_t rill__export_hlod_cells(rill__export_hlod *x, rill__export_output **out);
void rill__export_hlod_destroy(rill__export_hlod *x);

#endif /* RILL_FORMATS_EXPORT_INTERNAL_H */
