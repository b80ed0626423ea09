/* export_work.c: what one export job does with one input: read it, compute its cache key, take
 * its outputs from the cache or build them (texture -> .rmip, model -> .glb + edges + LODs, other
 * -> a copy), and store fresh outputs in the cache. Also the glTF JSON helpers the planner shares.
 *
 * A cache entry (<cache>/<key as 16 hex digits>.rxc) is:
 *     0  "RXC1"   4 u32 output count   8 u64 XXH3 of every byte after offset 16   16 reserved u64
 *    then per output: u32 path length, path bytes, u64 size, data bytes.
 * Anything that does not parse or whose checksum differs counts as a miss and is rebuilt. */
#include "export_internal.h"
#include "hlod_internal.h"
#include "lib_hooks.h"

#include "rill/formats/bc.h"
#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"
#include "rill/formats/rmip_cube.h"

#include <stdio.h>
#include <string.h>

#define CACHE_MAGIC "RXC1"
#define CACHE_HEADER 24u
#define CACHE_MAX_OUTPUTS 64u

/* >>helpers ----------------------------------------------------------------------------------- */

static char *dup_str(const char *s) {
    return rill_strdup(s);
}

/* Sets the input's failure: the message always starts with the project-relative path, and a
 * message that already names the file (by its relative or OS path) is not prefixed twice. */
static void fail_input(rill__export_input *in, rill_result code, const char *msg) {
    const char *rest = msg ? msg : "failed";
    size_t rl = strlen(in->path), ol = strlen(in->os_path);
    if (strncmp(rest, in->os_path, ol) == 0 && rest[ol] == ':') {
        rest += ol + 1;
    } else if (strncmp(rest, in->path, rl) == 0 && rest[rl] == ':') {
        rest += rl + 1;
    }
    while (*rest == ' ') {
        rest++;
    }
    rill_strbuf sb = {0};
    /* "path:LINE: ..." keeps its file:line form. */
    bool line = rest != msg && rest[0] >= '0' && rest[0] <= '9' && rest[-1] == ':';
    rill_strbuf_printf(&sb, line ? "%s:%s" : "%s: %s", in->path, rest);
    rill__export_free_outputs(in);
    rill_free(in->message);
    in->message = sb.data; /* NULL only when out of memory */
    in->status = RILL_EXPORT_STATUS_FAILED;
    in->code = code == RILL_OK ? RILL_ERR_CORRUPT : code;
}

static bool add_output(rill__export_input *in, const char *path, uint8_t *data, size_t size) {
    rill__export_output *o =
        rill_realloc_tagged(in->outputs, sizeof(*o) * (in->output_count + 1u), RILL_MEM_FORMATS);
    if (!o) {
        rill_free(data);
        return false;
    }
    in->outputs = o;
    o[in->output_count] = (rill__export_output){.path = dup_str(path), .data = data, .size = size};
    if (!o[in->output_count].path) {
        rill_free(data);
        return false;
    }
    in->output_count++;
    return true;
}

void rill__export_free_outputs(rill__export_input *in) {
    for (uint32_t i = 0; i < in->output_count; i++) {
        rill_free(in->outputs[i].path);
        rill_free(in->outputs[i].data);
        rill_free(in->outputs[i].stored.data);
    }
    rill_free(in->outputs);
    in->outputs = NULL;
    in->output_count = 0;
}

bool rill__export_is_texture_ext(const char *path) {
    return rill_path_ext_is(path, "png") || rill_path_ext_is(path, "jpg") ||
           rill_path_ext_is(path, "jpeg") || rill_path_ext_is(path, "tga") ||
           rill_path_ext_is(path, "hdr");
}

/* >>gltf json --------------------------------------------------------------------------------- */

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

cJSON *rill__export_gltf_json(const uint8_t *data, size_t size) {
    rill__formats_lib_hooks();
    if (!data) {
        return NULL;
    }
    if (size >= 20 && memcmp(data, "glTF", 4) == 0) {
        uint32_t len = rd32(data + 12);
        if (rd32(data + 16) != 0x4E4F534Au || len > size - 20) { /* "JSON" */
            return NULL;
        }
        return cJSON_ParseWithLength((const char *)data + 20, len);
    }
    return cJSON_ParseWithLength((const char *)data, size);
}

bool rill__export_decode_uri(char *dst, size_t cap, const char *uri) {
    return rill_uri_decode(dst, cap, uri) && rill_uri_is_relative_path(dst);
}

/* >>cache ------------------------------------------------------------------------------------- */

static bool cache_path(char *dst, size_t cap, const rill__export_settings *s, uint64_t key) {
    char name[32];
    snprintf(name, sizeof(name), "%016llx.rxc", (unsigned long long)key);
    return rill_path_join(dst, cap, s->cache_dir, name);
}

static uint64_t rd64(const uint8_t *p) {
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

/* Loads the outputs of `key` into in; false on a miss (absent, damaged, or out of memory). */
static bool cache_load(rill__export_input *in, uint64_t key) {
    char path[EXPORT_PATH_MAX];
    if (!in->settings->cache_dir || !cache_path(path, sizeof(path), in->settings, key) ||
        !rill_file_exists(path)) {
        return false;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    if (rill_file_read_all(path, &data, &size, NULL) != RILL_OK) {
        return false;
    }
    bool ok = size >= CACHE_HEADER && memcmp(data, CACHE_MAGIC, 4) == 0 &&
              rd64(data + 8) == rill_hash64(data + 16, size - 16);
    uint32_t count = ok ? rd32(data + 4) : 0;
    ok = ok && count >= 1 && count <= CACHE_MAX_OUTPUTS;
    size_t at = CACHE_HEADER;
    for (uint32_t i = 0; ok && i < count; i++) {
        if (size - at < 4) {
            ok = false;
            break;
        }
        uint32_t plen = rd32(data + at);
        at += 4;
        if (plen == 0 || plen >= EXPORT_PATH_MAX || size - at < (size_t)plen + 8) {
            ok = false;
            break;
        }
        char opath[EXPORT_PATH_MAX];
        memcpy(opath, data + at, plen);
        opath[plen] = '\0';
        at += plen;
        uint64_t osize = rd64(data + at);
        at += 8;
        if (osize > size - at) {
            ok = false;
            break;
        }
        uint8_t *copy = NULL;
        if (osize > 0) {
            copy = rill_malloc_tagged((size_t)osize, RILL_MEM_FORMATS);
            if (!copy) {
                ok = false;
                break;
            }
            memcpy(copy, data + at, (size_t)osize);
        }
        at += (size_t)osize;
        ok = add_output(in, opath, copy, (size_t)osize);
    }
    ok = ok && at == size;
    rill_free(data);
    if (!ok) {
        rill__export_free_outputs(in);
        RILL_LOG_WARN("export", "%s: cache entry %s is damaged; rebuilding", in->path, path);
    }
    return ok;
}

static void put32(rill_strbuf *sb, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    rill_strbuf_append(sb, (const char *)b, 4);
}

static void put64(rill_strbuf *sb, uint64_t v) {
    put32(sb, (uint32_t)v);
    put32(sb, (uint32_t)(v >> 32));
}

/* Stores the input's outputs under key. A failure only costs a rebuild next time: warn. */
static void cache_store(const rill__export_input *in, uint64_t key) {
    char path[EXPORT_PATH_MAX];
    if (!in->settings->cache_dir || !cache_path(path, sizeof(path), in->settings, key)) {
        return;
    }
    rill_strbuf sb = {0};
    rill_strbuf_append(&sb, CACHE_MAGIC, 4);
    put32(&sb, in->output_count);
    put64(&sb, 0);
    put64(&sb, 0);
    for (uint32_t i = 0; i < in->output_count; i++) {
        uint32_t plen = (uint32_t)strlen(in->outputs[i].path);
        put32(&sb, plen);
        rill_strbuf_append(&sb, in->outputs[i].path, plen);
        put64(&sb, in->outputs[i].size);
        if (in->outputs[i].size) {
            rill_strbuf_append(&sb, (const char *)in->outputs[i].data, in->outputs[i].size);
        }
    }
    uint64_t expect = CACHE_HEADER;
    for (uint32_t i = 0; i < in->output_count; i++) {
        expect += 12u + strlen(in->outputs[i].path) + in->outputs[i].size;
    }
    rill_error err = {0};
    if (!sb.data || sb.len != expect) {
        RILL_LOG_WARN("export", "%s: out of memory while caching", in->path);
    } else {
        uint64_t h = rill_hash64(sb.data + 16, sb.len - 16);
        for (int k = 0; k < 8; k++) {
            sb.data[8 + k] = (char)(uint8_t)(h >> (8 * k));
        }
        if (rill_file_write_all(path, sb.data, sb.len, &err) != RILL_OK) {
            RILL_LOG_WARN("export", "%s: cannot write cache entry: %s", in->path, err.msg);
        }
    }
    rill_strbuf_free(&sb);
}

/* The cache key: the tool and block-encoder versions, kind, path, options and content hash,
 * hashed together. The encoder version is part of it so a change in BC output rebuilds textures. */
static uint64_t make_key(const rill__export_input *in, const char *options, uint64_t content) {
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "%s\nbc%u\n%d\n%s\n%s\n%016llx", RILL_EXPORT_TOOL_VERSION,
                       (unsigned)RILL_BC_ENCODER_VERSION, (int)in->kind, in->path, options,
                       (unsigned long long)content);
    uint64_t key = sb.data ? rill_hash64(sb.data, sb.len) : content;
    rill_strbuf_free(&sb);
    return key;
}

/* >>textures ---------------------------------------------------------------------------------- */

/* An environment image (a Skybox's, EnvironmentMapLight's or ReflectionProbeSource's): decoded
 * as the engine decodes it and reprojected onto a .rmip cube (RGBA16F, full chain). */
static void process_env_cube(rill__export_input *in, uint8_t *data, size_t size) {
    char options[64];
    snprintf(options, sizeof(options), "cube;rmip=%u", RILL_RMIP_VERSION_CUBE);
    uint64_t key = make_key(in, options, rill_hash64(data, size));
    if (!in->settings->force && cache_load(in, key)) {
        in->status = RILL_EXPORT_STATUS_CACHED;
        return;
    }
    rill_image img;
    uint8_t *out = NULL;
    size_t out_size = 0;
    rill_error err = {0};
    rill_result r = rill_env_image_decode(data, size, in->path, &img, &err);
    if (r == RILL_OK) {
        r = rill_rmip_cube_from_equirect(&img, 0, &out, &out_size, &err);
        rill_image_free(&img);
    }
    if (r != RILL_OK) {
        fail_input(in, r, err.msg);
        return;
    }
    if (!add_output(in, in->out_path, out, out_size)) {
        fail_input(in, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        return;
    }
    in->status = RILL_EXPORT_STATUS_REBUILT;
    cache_store(in, key);
}

static void process_texture(rill__export_input *in, uint8_t *data, size_t size) {
    if (in->env_cube) {
        process_env_cube(in, data, size);
        return;
    }
    rill_rmip_convert_desc cd = {0};
    cd.usage = in->usage;
    cd.bc7.quality = in->settings->bc7_quality;
    /* Bands of one texture run beside other inputs' jobs, so a single large texture does not
     * leave the other workers idle at the end of an export. The bytes are the same either way. */
    cd.jobs = in->settings->jobs;
    char options[128];
    snprintf(options, sizeof(options), "usage=%d;format=%d;mips=1;bc7q=%u;rmip=%u", (int)cd.usage,
             (int)cd.format, cd.bc7.quality, RILL_RMIP_VERSION);
    uint64_t key = make_key(in, options, rill_hash64(data, size));
    if (!in->settings->force && cache_load(in, key)) {
        in->status = RILL_EXPORT_STATUS_CACHED;
        return;
    }
    uint8_t *out = NULL;
    size_t out_size = 0;
    rill_error err = {0};
    rill_result r = rill_rmip_convert(data, size, in->path, &cd, &out, &out_size, NULL, &err);
    if (r != RILL_OK) {
        fail_input(in, r, err.msg);
        return;
    }
    if (!add_output(in, in->out_path, out, out_size)) {
        fail_input(in, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        return;
    }
    in->status = RILL_EXPORT_STATUS_REBUILT;
    cache_store(in, key);
}

/* >>models ------------------------------------------------------------------------------------ */

/* Folds the bytes of every external buffer of a .gltf into *hash, so editing a .bin rebuilds the
 * model. Buffers that cannot be read are left to the reader, which reports them precisely. */
static void hash_gltf_buffers(const rill__export_input *in, const uint8_t *data, size_t size,
                              uint64_t *hash) {
    cJSON *root = rill__export_gltf_json(data, size);
    const cJSON *buffers = root ? cJSON_GetObjectItemCaseSensitive(root, "buffers") : NULL;
    char dir[EXPORT_PATH_MAX];
    rill_path_dirname(dir, sizeof(dir), in->os_path);
    const cJSON *b = NULL;
    const cJSON *list = cJSON_IsArray(buffers) ? buffers : NULL;
    cJSON_ArrayForEach(b, list) {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
        char rel[EXPORT_PATH_MAX], full[EXPORT_PATH_MAX];
        if (!cJSON_IsString(uri) || !rill__export_decode_uri(rel, sizeof(rel), uri->valuestring) ||
            !rill_path_join(full, sizeof(full), dir, rel)) {
            continue;
        }
        uint8_t *bytes = NULL;
        size_t n = 0;
        if (rill_file_read_all_in(in->settings->project_dir, full, 0, &bytes, &n, NULL) ==
            RILL_OK) {
            *hash = rill_hash64_seed(bytes, n, *hash);
        }
        rill_free(bytes);
    }
    cJSON_Delete(root);
}

static bool write_glb(rill__export_input *in, const rill_gltf_model *m, const char *path,
                      rill_error *err) {
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (rill_glb_write_memory(m, NULL, &bytes, &n, err) != RILL_OK) {
        return false;
    }
    if (!add_output(in, path, bytes, n)) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        return false;
    }
    return true;
}

/* glTF external files (buffers, images) are read confined to the project folder. */
static rill_result read_in_project(const char *path, uint8_t **out_data, size_t *out_size,
                                   void *user, rill_error *err) {
    return rill_file_read_all_in((const char *)user, path, 0, out_data, out_size, err);
}

/* The project-relative path of an image URI of the model `in` (decoded, relative to the model's
 * folder) when it is a texture the export converts: a texture extension, inside the project, and
 * present on disk. False otherwise (the URI is then left as it is). */
static bool exported_texture(const rill__export_input *in, const char *uri, char *rel, size_t cap) {
    char dir[EXPORT_PATH_MAX], os[EXPORT_PATH_MAX];
    rill_path_dirname(dir, sizeof(dir), in->path);
    return rill__export_is_texture_ext(uri) && rill_path_join(rel, cap, dir, uri) &&
           rill_path_normalize(rel, cap, rel) &&
           rill_path_join(os, sizeof(os), in->settings->project_dir, rel) && rill_file_exists(os);
}

/* Image URIs that name a texture the export converts are rewritten to the converted file by the
 * path rule ("logo.png" -> "logo.rmip"): the exported model names what ships beside it, and the
 * runtime reads the .rmip in its own format (docs/formats/gltf-extensions.md). */
static rill_result rmip_uris(const rill__export_input *in, rill_gltf_model *m, rill_error *err) {
    for (uint32_t i = 0; i < m->image_count; i++) {
        rill_gltf_image *im = &m->images[i];
        char rel[EXPORT_PATH_MAX], out[EXPORT_PATH_MAX];
        if (im->data || !im->uri || !exported_texture(in, im->uri, rel, sizeof(rel)) ||
            !rill_export_output_path(out, sizeof(out), im->uri)) {
            continue;
        }
        char *uri = rill_strdup(out);
        if (!uri) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
        rill_free(im->uri);
        im->uri = uri;
        rill_free(im->mime_type); /* the .rmip is not the source's PNG or JPEG */
        im->mime_type = NULL;
    }
    return RILL_OK;
}

/* Folds which image URIs name an exported texture into *hash: adding or removing a texture file
 * changes the model's output (its URIs), so it must miss the cache. */
static void hash_image_uris(const rill__export_input *in, const uint8_t *data, size_t size,
                            uint64_t *hash) {
    cJSON *root = rill__export_gltf_json(data, size);
    const cJSON *images = root ? cJSON_GetObjectItemCaseSensitive(root, "images") : NULL;
    const cJSON *im = NULL;
    const cJSON *list = cJSON_IsArray(images) ? images : NULL;
    cJSON_ArrayForEach(im, list) {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(im, "uri");
        char dec[EXPORT_PATH_MAX], rel[EXPORT_PATH_MAX];
        uint8_t yes = cJSON_IsString(uri) &&
                      rill__export_decode_uri(dec, sizeof(dec), uri->valuestring) &&
                      exported_texture(in, dec, rel, sizeof(rel));
        *hash = rill_hash64_seed(&yes, 1, *hash);
    }
    cJSON_Delete(root);
}

static void process_model(rill__export_input *in, uint8_t *data, size_t size) {
    uint64_t content = rill_hash64(data, size);
    if (!(size >= 4 && memcmp(data, "glTF", 4) == 0)) {
        hash_gltf_buffers(in, data, size, &content);
    }
    hash_image_uris(in, data, size, &content);
    char options[160];
    snprintf(options, sizeof(options), "lods=%u;bake=%d;err=%g;sloppy=%g;min=%g;edges=1;rmip=1",
             in->settings->no_lods ? 0u : in->settings->lod.levels, in->bake_lods ? 1 : 0,
             (double)in->settings->lod.target_error, (double)in->settings->lod.sloppy_threshold,
             (double)in->settings->lod.min_reduction);
    uint64_t key = make_key(in, options, content);
    if (!in->settings->force && cache_load(in, key)) {
        in->status = RILL_EXPORT_STATUS_CACHED;
        return;
    }
    char dir[EXPORT_PATH_MAX];
    rill_path_dirname(dir, sizeof(dir), in->os_path);
    rill_gltf_read_desc rd = {0};
    rd.name = in->path;
    rd.base_dir = dir[0] ? dir : ".";
    rd.read_file = read_in_project; /* external buffers stay inside the project */
    rd.read_file_user = (void *)in->settings->project_dir;
    char rel_dir[EXPORT_PATH_MAX];
    rill_path_dirname(rel_dir, sizeof(rel_dir), in->path);
    rd.uri_up_levels = rill_gltf_folder_depth(rel_dir); /* up to the project folder, not above */
    rill_gltf_model *model = NULL;
    rill_error err = {0};
    rill_result r = rill_gltf_read_memory(data, size, &rd, &model, &err);
    if (r == RILL_OK) {
        r = rill_gltf_model_build_edges(model, NULL, &err);
    }
    if (r == RILL_OK) {
        r = rmip_uris(in, model, &err);
    }
    if (r == RILL_OK && !write_glb(in, model, in->out_path, &err)) {
        r = err.code;
    }
    if (r == RILL_OK && in->bake_lods && !in->settings->no_lods) {
        rill_gltf_model *levels[RILL_LOD_MAX_LEVELS] = {0};
        uint32_t count = 0;
        r = rill_lod_bake(model, &in->settings->lod, levels, NULL, &count, &err);
        for (uint32_t i = 0; i < count; i++) {
            char lod_path[EXPORT_PATH_MAX];
            if (r == RILL_OK && !rill_lod_path(lod_path, sizeof(lod_path), in->out_path, i + 1)) {
                r = rill_error_set(&err, RILL_ERR_LIMIT, "LOD path too long");
            }
            if (r == RILL_OK && !write_glb(in, levels[i], lod_path, &err)) {
                r = err.code;
            }
            rill_gltf_model_free(levels[i]);
        }
    }
    rill_gltf_model_free(model);
    if (r != RILL_OK) {
        fail_input(in, r, err.msg);
        return;
    }
    in->status = RILL_EXPORT_STATUS_REBUILT;
    cache_store(in, key);
}

/* >>scenes ------------------------------------------------------------------------------------ */

static bool is_scene(const char *path) {
    const char *ext = rill_path_ext(path);
    return ext[0] && strcmp(ext, "rsn") == 0;
}

/* A scene's string that names a model of the project (project-relative, present on disk) whose
 * exported name differs gets that name (rill_export_output_path: "chair.gltf" -> "chair.glb",
 * "Chair.GLB" -> "Chair.glb"), so the exported scene names what ships. Strings with escapes are
 * left alone (no path needs one). NULL when the string is not rewritten. */
static char *scene_string_rewrite(const rill__export_input *in, const char *s, size_t n) {
    char rel[EXPORT_PATH_MAX], os[EXPORT_PATH_MAX], out[EXPORT_PATH_MAX];
    if (n >= sizeof(rel) || memchr(s, '\\', n)) {
        return NULL;
    }
    memcpy(rel, s, n);
    rel[n] = '\0';
    if (rill_export_kind_of(rel) != RILL_EXPORT_KIND_MODEL ||
        !rill_path_normalize(rel, sizeof(rel), rel) ||
        !rill_path_join(os, sizeof(os), in->settings->project_dir, rel) || !rill_file_exists(os) ||
        !rill_export_output_path(out, sizeof(out), rel) || strcmp(out, rel) == 0) {
        return NULL;
    }
    return rill_strdup(out);
}

/* An environment component's string (rill__export_environment_strings) that names an image of
 * the project gets the exported .rmip cube's name. */
static char *env_string_rewrite(const rill__export_input *in, const char *s, size_t n) {
    char rel[EXPORT_PATH_MAX], os[EXPORT_PATH_MAX], out[EXPORT_PATH_MAX];
    if (n >= sizeof(rel) || memchr(s, '\\', n)) {
        return NULL;
    }
    memcpy(rel, s, n);
    rel[n] = '\0';
    if (!rill__export_is_texture_ext(rel) || !rill_path_normalize(rel, sizeof(rel), rel) ||
        !rill_path_join(os, sizeof(os), in->settings->project_dir, rel) || !rill_file_exists(os) ||
        !rill_export_output_path(out, sizeof(out), rel)) {
        return NULL;
    }
    return rill_strdup(out);
}

/* Notes the offset in the scene text of an environment component's string. */
typedef struct env_offsets {
    const char *text;
    rill_map at; /* offset of the string's first byte -> 1 */
} env_offsets;

static void note_env_offset(const char *s, size_t n, void *user) {
    (void)n;
    env_offsets *o = user;
    rill_map_set(&o->at, (uint64_t)(s - o->text), 1);
}

/* Rewrites the model paths of a .rsn (see scene_string_rewrite) and the images environment
 * components name (env_string_rewrite). Comments and everything else are kept byte for byte. On
 * success *data / *size are replaced (the old buffer freed). */
static bool rewrite_scene(const rill__export_input *in, uint8_t **data, size_t *size) {
    const char *t = (const char *)*data;
    size_t n = *size;
    env_offsets env = {t, {0}};
    rill__export_environment_strings(t, n, note_env_offset, &env);
    rill_strbuf sb = {0};
    size_t copied = 0;
    bool changed = false;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '#') { /* a comment runs to the end of the line */
            while (i < n && t[i] != '\n') {
                i++;
            }
            continue;
        }
        if (t[i] != '"') {
            continue;
        }
        size_t start = ++i;
        while (i < n && t[i] != '"' && t[i] != '\n') {
            i += t[i] == '\\' && i + 1 < n ? 2 : 1;
        }
        if (i >= n || t[i] != '"') {
            break; /* unterminated: the scene reader reports it; copy the rest as it is */
        }
        uint64_t one = 0;
        char *to = rill_map_get(&env.at, (uint64_t)start, &one)
                       ? env_string_rewrite(in, t + start, i - start)
                       : scene_string_rewrite(in, t + start, i - start);
        if (to) {
            bool ok = rill_strbuf_append(&sb, t + copied, start - copied) &&
                      rill_strbuf_append(&sb, to, strlen(to));
            rill_free(to);
            if (!ok) {
                rill_strbuf_free(&sb);
                rill_map_free(&env.at);
                return false;
            }
            copied = i;
            changed = true;
        }
    }
    rill_map_free(&env.at);
    if (!changed) {
        rill_strbuf_free(&sb);
        return true;
    }
    if (!rill_strbuf_append(&sb, t + copied, n - copied)) {
        rill_strbuf_free(&sb);
        return false;
    }
    rill_free(*data);
    *size = sb.len;
    *data = (uint8_t *)sb.data; /* ownership moves to the caller */
    return true;
}

static bool ident_char(char c, bool first) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '.'));
}

/* A string literal found in a component block, with the field identifier before it. */
typedef void (*field_string_fn)(const char *field, size_t field_n, const char *s, size_t n,
                                void *user);

/* Calls found() for the plain string literals inside the blocks of the components named in
 * names[count] (see rill__export_terrain_strings), with the last identifier before each (its
 * field's name). */
static void component_field_strings(const char *t, size_t n, const char *const *names, size_t count,
                                    field_string_fn found, void *user) {
    bool saw_name = false;         /* the last token was one of the names */
    bool inside = false;           /* between `Name {` and its `}` (component blocks never nest) */
    size_t field = 0, field_n = 0; /* the last identifier inside the block */
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (c == '#') {
            while (i < n && t[i] != '\n') {
                i++;
            }
        } else if (c == '"') {
            size_t start = ++i;
            bool escaped = false;
            while (i < n && t[i] != '"' && t[i] != '\n') {
                escaped |= t[i] == '\\';
                i += t[i] == '\\' && i + 1 < n ? 2 : 1;
            }
            if (i >= n || t[i] != '"') {
                return;
            }
            if (inside && !escaped) {
                found(t + field, field_n, t + start, i - start, user);
            }
            saw_name = false;
        } else if (ident_char(c, true)) {
            size_t start = i;
            while (i + 1 < n && ident_char(t[i + 1], false)) {
                i++;
            }
            field = start, field_n = i + 1 - start;
            saw_name = false;
            for (size_t k = 0; k < count; k++) {
                size_t len = strlen(names[k]);
                saw_name |= i + 1 - start == len && memcmp(t + start, names[k], len) == 0;
            }
        } else if (c == '{') {
            inside = saw_name;
            saw_name = false;
            field_n = 0;
        } else if (c == '}') {
            inside = false;
            saw_name = false;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            saw_name = false;
        }
    }
}

/* component_field_strings for callers that want only the strings. */
typedef struct plain_strings {
    void (*found)(const char *s, size_t n, void *user);
    void *user;
} plain_strings;

static void plain_string(const char *field, size_t field_n, const char *s, size_t n, void *user) {
    (void)field, (void)field_n;
    const plain_strings *p = user;
    p->found(s, n, p->user);
}

static void component_strings(const char *t, size_t n, const char *const *names, size_t count,
                              void (*found)(const char *s, size_t n, void *user), void *user) {
    plain_strings p = {found, user};
    component_field_strings(t, n, names, count, plain_string, &p);
}

void rill__export_terrain_strings(const char *t, size_t n,
                                  void (*found)(const char *s, size_t n, void *user), void *user) {
    static const char *const names[] = {"Terrain"};
    component_strings(t, n, names, 1, found, user);
}

void rill__export_environment_strings(const char *t, size_t n,
                                      void (*found)(const char *s, size_t n, void *user),
                                      void *user) {
    static const char *const names[] = {"Skybox", "EnvironmentMapLight", "ReflectionProbeSource"};
    component_strings(t, n, names, 3, found, user);
}

void rill__export_decal_strings(const char *t, size_t n,
                                void (*found)(const char *field, size_t field_n, const char *s,
                                              size_t n, void *user),
                                void *user) {
    static const char *const names[] = {"ForwardDecal"};
    component_field_strings(t, n, names, 1, found, user);
}

/* >>job --------------------------------------------------------------------------------------- */

/* A district scene's level-0 far-world proxy (export_hlod.c), an extra output beside the scene.
 * A failure is a warning: the scene still ships, and the runtime streams it without a proxy. */
static void bake_proxy(rill__export_input *in, const uint8_t *data, size_t size) {
    rill_error err = {0};
    rill_hlod *h = NULL;
    char path[EXPORT_PATH_MAX];
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (!rill_hlod_path(path, sizeof path, in->out_path, 0) ||
        rill__hlod_bake_scene(in->settings->project_dir, in->path, (const char *)data, size,
                              in->settings->hlod_triangles, in->settings->hlod_models, &h,
                              &err) != RILL_OK ||
        rill_hlod_write(h, &bytes, &n, &err) != RILL_OK) {
        RILL_LOG_WARN("export", "%s: no far-world proxy: %s", in->path,
                      err.msg[0] ? err.msg : "path too long");
    } else if (!add_output(in, path, bytes, n)) {
        RILL_LOG_WARN("export", "%s: no far-world proxy: out of memory", in->path);
    }
    rill_hlod_free(h);
}

void rill__export_process(rill__export_input *in) {
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    rill_result r =
        rill_file_read_all_in(in->settings->project_dir, in->os_path, 0, &data, &size, &err);
    if (r != RILL_OK) {
        fail_input(in, r, err.msg);
        return;
    }
    switch (in->kind) {
    case RILL_EXPORT_KIND_TEXTURE:
        process_texture(in, data, size);
        /* A Terrain reads this image itself: it also ships as it is, under its own name. */
        if (in->keep_source && in->status != RILL_EXPORT_STATUS_FAILED) {
            if (!add_output(in, in->path, data, size)) {
                fail_input(in, RILL_ERR_OUT_OF_MEMORY, "out of memory");
            }
            return; /* data is owned by the output (or freed by add_output) */
        }
        break;
    case RILL_EXPORT_KIND_MODEL:
        process_model(in, data, size);
        break;
    default:
        if (in->bake_hlod) {
            bake_proxy(in, data, size);
        }
        if (in->settings->check &&
            !in->settings->check(in->path, data, size, in->settings->check_user, &err)) {
            fail_input(in, err.code ? err.code : RILL_ERR_PARSE, err.msg);
            break;
        }
        if (is_scene(in->path) && !rewrite_scene(in, &data, &size)) {
            fail_input(in, RILL_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        /* The copy keeps the bytes as read; ownership moves to the output. */
        if (add_output(in, in->out_path, data, size)) {
            in->status = RILL_EXPORT_STATUS_COPIED;
        } else {
            fail_input(in, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
        return;
    }
    rill_free(data);
}
