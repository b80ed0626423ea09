/* export.c: the exporter's planner and driver. It walks the project folder, decides what each file
 * becomes (kind, texture usage from glTF materials and names, which models bake LODs, output
 * paths and their conflicts), runs one job per input on the job system (each compresses its
 * outputs for the pack, rpak_store.h), and on the calling thread gathers the results into the
 * pack writer and the loose output folder, reporting progress. export_work.c holds what a job
 * does. */
#include "export_internal.h"

#include "rill/formats/rpak.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MODULE "export"

/* >>small helpers ----------------------------------------------------------------------------- */

const char *rill_export_status_name(rill_export_status status) {
    switch (status) {
        RILL_EXPORT_STATUS_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "unknown";
    }
}

rill_export_kind rill_export_kind_of(const char *path) {
    if (!path) {
        return RILL_EXPORT_KIND_COPY;
    }
    if (rill__export_is_texture_ext(path)) {
        return RILL_EXPORT_KIND_TEXTURE;
    }
    if (rill_path_ext_is(path, "glb") || rill_path_ext_is(path, "gltf")) {
        return RILL_EXPORT_KIND_MODEL;
    }
    return RILL_EXPORT_KIND_COPY;
}

/* Replaces the extension of path (which has one) with ext. */
static bool with_ext(char *dst, size_t cap, const char *path, const char *ext) {
    const char *e = rill_path_ext(path);
    size_t stem = (size_t)(e - path); /* includes the dot */
    int n = snprintf(dst, cap, "%.*s%s", (int)stem, path, ext);
    if (n < 0 || (size_t)n >= cap) {
        if (cap) {
            dst[0] = '\0';
        }
        return false;
    }
    return true;
}

/* The path with its extension changed by kind (as written, '#' included). */
static bool output_path_as_is(char *dst, size_t cap, const char *input_path) {
    switch (rill_export_kind_of(input_path)) {
    case RILL_EXPORT_KIND_TEXTURE:
        return with_ext(dst, cap, input_path, "rmip");
    case RILL_EXPORT_KIND_MODEL:
        return with_ext(dst, cap, input_path, "glb");
    default: {
        int n = snprintf(dst, cap, "%s", input_path);
        return n >= 0 && (size_t)n < cap;
    }
    }
}

bool rill_export_output_path(char *dst, size_t cap, const char *input_path) {
    if (!dst || !cap || !input_path || !output_path_as_is(dst, cap, input_path)) {
        return false;
    }
    /* '#' starts an asset's label in Rill paths ("a.rmip#low") and no pack entry holds one: an
     * output gets '_' for it, and the runtime finds it through this same rule. */
    for (char *c = dst; *c; c++) {
        if (*c == '#') {
            *c = '_';
        }
    }
    return true;
}

rill_export_desc rill_export_resolve_desc(const rill_export_desc *desc, char *dst_cache,
                                          size_t cap) {
    rill_export_desc d = desc ? *desc : (rill_export_desc){0};
    if (!d.cache_dir && d.project_dir && dst_cache && cap &&
        rill_path_join(dst_cache, cap, d.project_dir, RILL_EXPORT_DEFAULT_CACHE)) {
        d.cache_dir = dst_cache;
    }
    if (d.lod_levels == 0) {
        d.lod_levels = 3;
    }
    d.lod_levels = RILL_MIN(d.lod_levels, RILL_LOD_MAX_LEVELS);
    return d;
}

void rill_export_result_free(rill_export_result *result) {
    if (!result) {
        return;
    }
    for (uint32_t i = 0; i < result->failure_count; i++) {
        rill_free(result->failures[i].path);
        rill_free(result->failures[i].message);
    }
    rill_free(result->failures);
    memset(result, 0, sizeof(*result));
}

/* Dispatch order entry: conversions before copies, larger before smaller, then path order
 * (inputs are already in path order, so the index breaks ties). */
typedef struct cost_key {
    uint32_t copy; /* 0 = converted, 1 = copied */
    uint64_t size;
    uint32_t index;
} cost_key;

/* >>run state --------------------------------------------------------------------------------- */

typedef struct export_run {
    rill_export_desc desc;
    rill__export_settings settings;
    char project_real[PATH_MAX];
    /* Project-relative paths to leave out of the walk ("" when not inside the project). */
    char skip_pack[EXPORT_PATH_MAX];
    char skip_loose[EXPORT_PATH_MAX];
    char skip_cache[EXPORT_PATH_MAX];
    bool loose_is_project; /* loose_out is the project folder itself */
    RILL_ARRAY(rill__export_input) inputs;
    rill_map input_by_path; /* hash of input path -> index */
    rill_map manifest;      /* hash of generated path -> content hash (project root manifest) */
    rill_map new_manifest;  /* outputs written loose this run: hash of path -> content hash */
    RILL_ARRAY(char *) manifest_paths; /* the paths of new_manifest, for writing it out */
    rill_rpak_writer *writer;
    rill_jobs *jobs;
    rill__export_hlod *hlod; /* far-world proxies: the plan and the level-0 proxies kept */
    rill_export_counts counts;
    uint32_t in_flight;
    uint32_t workers; /* of the job system, kept for the result after it is destroyed */
    uint64_t start_ns;
} export_run;

static void emit(export_run *run, rill_export_event *ev) {
    if (!run->desc.progress) {
        return;
    }
    ev->counts = run->counts;
    ev->elapsed_sec = (double)(rill_time_ns() - run->start_ns) * 1e-9;
    run->desc.progress(ev, run->desc.progress_user);
}

/* The path of `target` relative to the project when it lies inside it (dst ""), or "" when not.
 * target may not exist yet: its folder is resolved and the file name appended. */
static void rel_inside(const export_run *run, const char *target, char *dst, size_t cap) {
    dst[0] = '\0';
    if (!target) {
        return;
    }
    char real[PATH_MAX];
    char tmp[PATH_MAX];
    if (!realpath(target, real)) {
        char dir[PATH_MAX];
        if (!rill_path_dirname(dir, sizeof(dir), target)) {
            return;
        }
        if (!realpath(dir[0] ? dir : ".", tmp) ||
            !rill_path_join(real, sizeof(real), tmp, rill_path_basename(target))) {
            return;
        }
    }
    size_t n = strlen(run->project_real);
    if (strcmp(real, run->project_real) == 0) {
        snprintf(dst, cap, ".");
    } else if (strncmp(real, run->project_real, n) == 0 && real[n] == '/') {
        snprintf(dst, cap, "%s", real + n + 1);
    }
}

/* >>walk -------------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool add_input(export_run *run, const char *rel, const char *os_path, uint64_t size) {
    rill__export_input in = {0};
    in.path = rill_strdup(rel);
    in.os_path = rill_strdup(os_path);
    in.kind = rill_export_kind_of(rel);
    in.size = size;
    in.settings = &run->settings;
    in.run = run;
    char out[EXPORT_PATH_MAX];
    if (rill_export_output_path(out, sizeof(out), rel)) {
        in.out_path = rill_strdup(out);
    }
    if (!in.path || !in.os_path || !in.out_path || !rill_array_push(&run->inputs, in)) {
        rill_free(in.path);
        rill_free(in.os_path);
        rill_free(in.out_path);
        return false;
    }
    return true;
}

/* Walks `dir` (OS path) whose project-relative path is `rel` ("" for the root), in sorted order.
 * Links to folders are not followed (they could loop or leave the project). */
static rill_result walk(export_run *run, const char *dir, const char *rel, rill_error *err) {
    DIR *d = opendir(dir);
    if (!d) {
        return rill_error_set(err, errno == ENOENT ? RILL_ERR_NOT_FOUND : RILL_ERR_IO,
                              "%s: cannot open folder: %s", dir, strerror(errno));
    }
    RILL_ARRAY(char *) names = {0};
    struct dirent *e;
    rill_result r = RILL_OK;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue; /* ".", "..", dot-files and dot-folders (.git, .rill-cache, ...) */
        }
        char *n = rill_strdup(e->d_name);
        if (!n || !rill_array_push(&names, n)) {
            rill_free(n);
            r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", dir);
            break;
        }
    }
    closedir(d);
    if (names.len > 1) {
        qsort(names.data, names.len, sizeof(char *), cmp_str);
    }
    const char *pack_base = run->skip_pack[0] ? rill_path_basename(run->skip_pack) : "";
    for (uint32_t i = 0; r == RILL_OK && i < names.len; i++) {
        char os_path[EXPORT_PATH_MAX], child[EXPORT_PATH_MAX];
        if (!rill_path_join(os_path, sizeof(os_path), dir, names.data[i]) ||
            !rill_path_join(child, sizeof(child), rel, names.data[i])) {
            RILL_LOG_WARN(MODULE, "%s/%s: path too long; skipped", dir, names.data[i]);
            continue;
        }
        if ((rel[0] == '\0' && strcmp(child, "build") == 0) ||
            strcmp(child, run->skip_loose) == 0 || strcmp(child, run->skip_cache) == 0 ||
            strcmp(child, run->skip_pack) == 0) {
            continue;
        }
        /* The temporary of an interrupted atomic pack write ("game.rpak.tmp123.0"). */
        char parent[EXPORT_PATH_MAX];
        rill_path_dirname(parent, sizeof(parent), run->skip_pack);
        if (pack_base[0] && strcmp(parent, rel) == 0 &&
            strncmp(names.data[i], pack_base, strlen(pack_base)) == 0 &&
            strncmp(names.data[i] + strlen(pack_base), ".tmp", 4) == 0) {
            continue;
        }
        struct stat st;
        if (lstat(os_path, &st) != 0) {
            continue;
        }
        bool is_link = S_ISLNK(st.st_mode);
        if (is_link && stat(os_path, &st) != 0) {
            RILL_LOG_WARN(MODULE, "%s: broken link; skipped", child);
            continue;
        }
        if (is_link && S_ISREG(st.st_mode)) {
            /* The same rule as every engine read (rill_file_open): a link is refused unless
             * links_inside_root allows it and it stays in the project, so a link to
             * /etc/passwd fails the export instead of landing in the pack. */
            rill_file f;
            r = rill_file_open(os_path, run->desc.project_dir, &f, err);
            rill_file_close(&f);
            if (r != RILL_OK) {
                break;
            }
        }
        if (S_ISDIR(st.st_mode)) {
            if (is_link) {
                continue;
            }
            /* A folder holding an export manifest is an earlier loose export: its files are
             * outputs, not inputs. */
            char man[EXPORT_PATH_MAX];
            if (rill_path_join(man, sizeof(man), os_path, RILL_EXPORT_MANIFEST) &&
                rill_file_exists(man)) {
                RILL_LOG_INFO(MODULE, "%s: an earlier export's output folder; skipped", child);
                continue;
            }
            r = walk(run, os_path, child, err);
        } else if (S_ISREG(st.st_mode)) {
            if (rill_path_ext_is(child, "rpak")) {
                /* Usually an earlier export's output left in the project: packing it into the
                 * new pack would nest every asset twice. Said out loud, so nothing vanishes. */
                RILL_LOG_WARN(MODULE, "%s: a pack is never packed into a pack; skipped", child);
                continue;
            }
            if (st.st_size == 0) {
                RILL_LOG_WARN(MODULE, "%s: an empty file; not exported", child);
                continue;
            }
            if (!add_input(run, child, os_path, (uint64_t)st.st_size)) {
                r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", child);
            }
        }
    }
    for (uint32_t i = 0; i < names.len; i++) {
        rill_free(names.data[i]);
    }
    rill_array_free(&names);
    return r;
}

/* >>manifest ---------------------------------------------------------------------------------- */

/* Reads "<16 hex content hash> <path>" lines of a manifest into map (path hash -> content
 * hash). A missing or odd manifest just means fewer files are recognised as generated. */
static void manifest_read(const char *path, rill_map *map) {
    uint8_t *data = NULL;
    size_t size = 0;
    if (!rill_file_exists(path) || rill_file_read_all(path, &data, &size, NULL) != RILL_OK) {
        return;
    }
    char *line = (char *)data;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
        }
        char *end = NULL;
        unsigned long long h = strtoull(line, &end, 16);
        if (end == line + 16 && *end == ' ' && end[1]) {
            rill_map_set(map, rill_hash64_str(end + 1), (uint64_t)h);
        }
        line = nl ? nl + 1 : NULL;
    }
    rill_free(data);
}

/* True when the input is a file an earlier loose export into the project generated and that has
 * not been edited since (its content hash still matches the manifest). */
static bool is_generated(const export_run *run, const rill__export_input *in) {
    uint64_t want = 0;
    if (!rill_map_get(&run->manifest, rill_hash64_str(in->path), &want)) {
        return false;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    if (rill_file_read_all_in(run->desc.project_dir, in->os_path, 0, &data, &size, NULL) !=
        RILL_OK) {
        return false;
    }
    bool same = rill_hash64(data, size) == want;
    rill_free(data);
    return same;
}

static void manifest_write(export_run *run) {
    char path[EXPORT_PATH_MAX];
    if (!rill_path_join(path, sizeof(path), run->desc.loose_out, RILL_EXPORT_MANIFEST)) {
        return;
    }
    /* Keep what an earlier run listed (unless rewritten now), so a file generated then is still
     * recognised after a run that did not touch it. */
    rill_map old = {0};
    manifest_read(path, &old);
    rill_strbuf sb = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    if (rill_file_exists(path) && rill_file_read_all(path, &data, &size, NULL) == RILL_OK) {
        char *line = (char *)data;
        while (line && *line) {
            char *nl = strchr(line, '\n');
            if (nl) {
                *nl = '\0';
            }
            if (strlen(line) > 17 &&
                !rill_map_get(&run->new_manifest, rill_hash64_str(line + 17), NULL)) {
                rill_strbuf_printf(&sb, "%s\n", line);
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    rill_free(data);
    for (uint32_t i = 0; i < run->manifest_paths.len; i++) {
        uint64_t h = 0;
        rill_map_get(&run->new_manifest, rill_hash64_str(run->manifest_paths.data[i]), &h);
        rill_strbuf_printf(&sb, "%016llx %s\n", (unsigned long long)h, run->manifest_paths.data[i]);
    }
    rill_error err = {0};
    if (sb.len && rill_file_write_all(path, sb.data, sb.len, &err) != RILL_OK) {
        RILL_LOG_WARN(MODULE, "%s", err.msg);
    }
    rill_strbuf_free(&sb);
    rill_map_free(&old);
}

/* >>plan -------------------------------------------------------------------------------------- */

/* Priority when materials disagree about one image: a normal map stays a normal map, colour
 * beats linear data. */
static int usage_rank(rill_tex_usage u) {
    return u == RILL_TEX_USAGE_NORMAL ? 3 : u == RILL_TEX_USAGE_COLOR ? 2 : u ? 1 : 0;
}

/* Records usage for the image at project path `image` (named by `who`), keeping the higher rank
 * when two users disagree (warned). */
static void merge_usage(rill_map *usages, const char *image, rill_tex_usage usage,
                        const char *who) {
    uint64_t key = rill_hash64_str(image), prev = 0;
    if (rill_map_get(usages, key, &prev)) {
        if (prev != (uint64_t)usage) {
            RILL_LOG_WARN(
                MODULE, "%s: image %s is used with two different meanings; keeping the %s", who,
                image, usage_rank(usage) > usage_rank((rill_tex_usage)prev) ? "later" : "first");
        }
        if (usage_rank(usage) <= usage_rank((rill_tex_usage)prev)) {
            return;
        }
    }
    rill_map_set(usages, key, (uint64_t)usage);
}

/* Records the usage of texture `tex_index` of a glTF document for the image file it names. */
static void note_texture(const cJSON *root, const cJSON *ref, rill_tex_usage usage,
                         const char *model_dir, const char *model_path, rill_map *usages) {
    const cJSON *idx = ref ? cJSON_GetObjectItemCaseSensitive(ref, "index") : NULL;
    const cJSON *textures = cJSON_GetObjectItemCaseSensitive(root, "textures");
    const cJSON *images = cJSON_GetObjectItemCaseSensitive(root, "images");
    if (!cJSON_IsNumber(idx) || !cJSON_IsArray(textures) || !cJSON_IsArray(images)) {
        return;
    }
    const cJSON *tex = cJSON_GetArrayItem(textures, idx->valueint);
    const cJSON *src = tex ? cJSON_GetObjectItemCaseSensitive(tex, "source") : NULL;
    const cJSON *img = cJSON_IsNumber(src) ? cJSON_GetArrayItem(images, src->valueint) : NULL;
    const cJSON *uri = img ? cJSON_GetObjectItemCaseSensitive(img, "uri") : NULL;
    char rel[EXPORT_PATH_MAX], joined[EXPORT_PATH_MAX];
    if (idx->valueint < 0 || !cJSON_IsString(uri) ||
        !rill__export_decode_uri(rel, sizeof(rel), uri->valuestring) ||
        !rill_path_join(joined, sizeof(joined), model_dir, rel) ||
        !rill_path_normalize(joined, sizeof(joined), joined)) {
        return;
    }
    merge_usage(usages, joined, usage, model_path);
}

/* The project-relative path a model's URI names (relative to the model's folder dir); false for
 * data: URIs and paths that leave the project. */
static bool uri_path(const cJSON *uri, const char *dir, char *dst, size_t cap) {
    char rel[EXPORT_PATH_MAX];
    return cJSON_IsString(uri) && strncmp(uri->valuestring, "data:", 5) != 0 &&
           rill__export_decode_uri(rel, sizeof(rel), uri->valuestring) &&
           rill_path_join(dst, cap, dir, rel) && rill_path_normalize(dst, cap, dst);
}

/* Notes the external buffers (.bin) of a model in *embedded (path hash -> 1): the exported .glb
 * carries their bytes, so the files themselves are not exported. Warns about an image file the
 * model names that the project lacks (the model draws with a placeholder there). */
static void scan_model_files(const rill__export_input *in, const cJSON *root, const char *dir,
                             rill_map *embedded) {
    const cJSON *item = NULL, *list = cJSON_GetObjectItemCaseSensitive(root, "buffers");
    if (!cJSON_IsArray(list)) {
        list = NULL;
    }
    cJSON_ArrayForEach(item, list) {
        char path[EXPORT_PATH_MAX];
        if (uri_path(cJSON_GetObjectItemCaseSensitive(item, "uri"), dir, path, sizeof(path))) {
            rill_map_set(embedded, rill_hash64_str(path), 1);
        }
    }
    list = cJSON_GetObjectItemCaseSensitive(root, "images");
    if (!cJSON_IsArray(list)) {
        list = NULL;
    }
    int i = 0;
    cJSON_ArrayForEach(item, list) {
        char path[EXPORT_PATH_MAX], os[EXPORT_PATH_MAX];
        if (uri_path(cJSON_GetObjectItemCaseSensitive(item, "uri"), dir, path, sizeof(path)) &&
            rill_path_join(os, sizeof(os), in->settings->project_dir, path) &&
            !rill_file_exists(os)) {
            RILL_LOG_WARN(MODULE,
                          "%s: images[%d] names %s, which is missing: the model draws with a "
                          "placeholder there",
                          in->path, i, path);
        }
        i++;
    }
}

/* The textures of the material extensions Rill reads, with the usage each needs: colour for
 * the specular colour, a normal map for the clear coat's, linear data for the others (the
 * specular strength is alpha, which the linear formats keep). */
static void note_ext_textures(const cJSON *root, const cJSON *mat, const char *dir,
                              const char *model_path, rill_map *usages) {
    static const struct {
        const char *ext, *key;
        rill_tex_usage usage;
    } k_refs[] = {
        {RILL_GLTF_EXT_SPECULAR, "specularTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_SPECULAR, "specularColorTexture", RILL_TEX_USAGE_COLOR},
        {RILL_GLTF_EXT_CLEARCOAT, "clearcoatTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_CLEARCOAT, "clearcoatRoughnessTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_CLEARCOAT, "clearcoatNormalTexture", RILL_TEX_USAGE_NORMAL},
        {RILL_GLTF_EXT_TRANSMISSION, "transmissionTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_VOLUME, "thicknessTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_SHEEN, "sheenColorTexture", RILL_TEX_USAGE_COLOR},
        {RILL_GLTF_EXT_SHEEN, "sheenRoughnessTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_IRIDESCENCE, "iridescenceTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_IRIDESCENCE, "iridescenceThicknessTexture", RILL_TEX_USAGE_LINEAR},
        {RILL_GLTF_EXT_ANISOTROPY, "anisotropyTexture", RILL_TEX_USAGE_LINEAR},
    };
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(mat, "extensions");
    for (size_t i = 0; cJSON_IsObject(ext) && i < RILL_COUNTOF(k_refs); i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(ext, k_refs[i].ext);
        if (cJSON_IsObject(x)) {
            note_texture(root, cJSON_GetObjectItemCaseSensitive(x, k_refs[i].key), k_refs[i].usage,
                         dir, model_path, usages);
        }
    }
}

/* Reads the JSON of a model input (only the JSON chunk of a .glb) and notes each material slot's
 * image usage and the files it names (scan_model_files). Problems are left for the model's own
 * job to report. */
static void scan_model_usages(const rill__export_input *in, rill_map *usages, rill_map *embedded) {
    const char *proj = in->settings->project_dir;
    uint8_t *data = NULL;
    size_t size = 0;
    uint8_t head[20];
    if (rill_path_ext_is(in->path, "glb")) {
        if (in->size < 20 ||
            rill_file_read_range_in(proj, in->os_path, 0, 20, head, NULL) != RILL_OK ||
            memcmp(head, "glTF", 4) != 0) {
            return;
        }
        uint32_t len = (uint32_t)head[12] | ((uint32_t)head[13] << 8) | ((uint32_t)head[14] << 16) |
                       ((uint32_t)head[15] << 24);
        if ((uint64_t)len + 20 > in->size || len > (64u << 20)) {
            return;
        }
        size = 20u + len;
        data = rill_malloc_tagged(size + 1, RILL_MEM_FORMATS);
        if (!data || rill_file_read_range_in(proj, in->os_path, 0, size, data, NULL) != RILL_OK) {
            rill_free(data);
            return;
        }
    } else if (rill_file_read_all_in(proj, in->os_path, 0, &data, &size, NULL) != RILL_OK) {
        return;
    }
    cJSON *root = rill__export_gltf_json(data, size);
    rill_free(data);
    const cJSON *mats = root ? cJSON_GetObjectItemCaseSensitive(root, "materials") : NULL;
    char dir[EXPORT_PATH_MAX];
    rill_path_dirname(dir, sizeof(dir), in->path);
    if (root) {
        scan_model_files(in, root, dir, embedded);
    }
    const cJSON *m = NULL;
    const cJSON *mat_list = cJSON_IsArray(mats) ? mats : NULL;
    cJSON_ArrayForEach(m, mat_list) {
        const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(m, "pbrMetallicRoughness");
        if (cJSON_IsObject(pbr)) {
            note_texture(root, cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"),
                         RILL_TEX_USAGE_COLOR, dir, in->path, usages);
            note_texture(root, cJSON_GetObjectItemCaseSensitive(pbr, "metallicRoughnessTexture"),
                         RILL_TEX_USAGE_LINEAR, dir, in->path, usages);
        }
        note_texture(root, cJSON_GetObjectItemCaseSensitive(m, "normalTexture"),
                     RILL_TEX_USAGE_NORMAL, dir, in->path, usages);
        note_texture(root, cJSON_GetObjectItemCaseSensitive(m, "occlusionTexture"),
                     RILL_TEX_USAGE_LINEAR, dir, in->path, usages);
        note_texture(root, cJSON_GetObjectItemCaseSensitive(m, "emissiveTexture"),
                     RILL_TEX_USAGE_COLOR, dir, in->path, usages);
        note_ext_textures(root, m, dir, in->path, usages);
    }
    cJSON_Delete(root);
}

/* Notes one string of a Terrain (or environment) block: a project-relative image path,
 * normalized, into the map. */
static void note_terrain_path(const char *s, size_t n, void *user) {
    char rel[EXPORT_PATH_MAX];
    if (n == 0 || n >= sizeof(rel)) {
        return;
    }
    memcpy(rel, s, n);
    rel[n] = '\0';
    if (rill__export_is_texture_ext(rel) && rill_path_normalize(rel, sizeof(rel), rel)) {
        rill_map_set(user, rill_hash64_str(rel), 1);
    }
}

/* Notes the images the scene's Terrain components name (heightmap, splat map, layer textures):
 * the terrain decodes them itself, so they ship unconverted; and those its Skybox,
 * EnvironmentMapLight and ReflectionProbeSource components name: they become .rmip cubes. A scene
 * that cannot be read is left for its own job to report. */
static void scan_scene_terrain(const rill__export_input *in, rill_map *terrain_images,
                               rill_map *env_images) {
    uint8_t *data = NULL;
    size_t size = 0;
    if (!rill_path_ext_is(in->path, "rsn") ||
        rill_file_read_all_in(in->settings->project_dir, in->os_path, 0, &data, &size, NULL) !=
            RILL_OK) {
        return;
    }
    rill__export_terrain_strings((const char *)data, size, note_terrain_path, terrain_images);
    rill__export_environment_strings((const char *)data, size, note_terrain_path, env_images);
    rill_free(data);
}

/* What a ForwardDecal map string needs: the usage of its field, and who names it. */
typedef struct decal_scan {
    rill_map *usages;
    const char *scene;
} decal_scan;

/* Notes one string of a ForwardDecal block: albedo is colour, normal a normal map, roughness
 * linear data (other fields are not images). */
static void note_decal_path(const char *field, size_t field_n, const char *s, size_t n,
                            void *user) {
    static const struct {
        const char *field;
        rill_tex_usage usage;
    } maps[] = {{"albedo", RILL_TEX_USAGE_COLOR},
                {"normal", RILL_TEX_USAGE_NORMAL},
                {"roughness", RILL_TEX_USAGE_LINEAR}};
    const decal_scan *x = user;
    char rel[EXPORT_PATH_MAX];
    if (n == 0 || n >= sizeof(rel)) {
        return;
    }
    memcpy(rel, s, n);
    rel[n] = '\0';
    if (!rill__export_is_texture_ext(rel) || !rill_path_normalize(rel, sizeof(rel), rel)) {
        return;
    }
    for (size_t i = 0; i < RILL_COUNTOF(maps); i++) {
        if (field_n == strlen(maps[i].field) && memcmp(field, maps[i].field, field_n) == 0) {
            merge_usage(x->usages, rel, maps[i].usage, x->scene);
        }
    }
}

/* Notes the usages of the maps the scene's ForwardDecal components name. */
static void scan_scene_decals(const rill__export_input *in, rill_map *usages) {
    uint8_t *data = NULL;
    size_t size = 0;
    if (!rill_path_ext_is(in->path, "rsn") ||
        rill_file_read_all_in(in->settings->project_dir, in->os_path, 0, &data, &size, NULL) !=
            RILL_OK) {
        return;
    }
    decal_scan x = {usages, in->path};
    rill__export_decal_strings((const char *)data, size, note_decal_path, &x);
    rill_free(data);
}

/* A texture a Terrain names is copied as it is (16-bit heights and CPU-read weights would not
 * survive a BC7 .rmip); if a glTF material uses it too, it is converted and also copied. */
static bool keep_for_terrain(rill__export_input *in, const rill_map *terrain_images,
                             const rill_map *usages) {
    uint64_t key = rill_hash64_str(in->path);
    if (in->kind != RILL_EXPORT_KIND_TEXTURE || !rill_map_get(terrain_images, key, NULL)) {
        return true;
    }
    if (rill_map_get(usages, key, NULL)) {
        in->keep_source = true;
        return true;
    }
    char *out = rill_strdup(in->path);
    if (!out) {
        return false;
    }
    rill_free(in->out_path);
    in->out_path = out;
    in->kind = RILL_EXPORT_KIND_COPY;
    return true;
}

/* The usage a texture gets from its name alone: the suffix of the stem, case-insensitive. */
static rill_tex_usage usage_from_name(const char *path) {
    if (rill_path_ext_is(path, "hdr")) {
        return RILL_TEX_USAGE_HDR;
    }
    const char *base = rill_path_basename(path);
    const char *ext = rill_path_ext(base);
    size_t n = ext[0] ? (size_t)(ext - base) - 1u : strlen(base);
    char stem[256];
    if (n >= sizeof(stem)) {
        return RILL_TEX_USAGE_COLOR;
    }
    for (size_t i = 0; i < n; i++) {
        char c = base[i];
        stem[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    stem[n] = '\0';
    static const char *const normal[] = {"_n", "_normal", "_nrm"};
    static const char *const linear[] = {"_rough", "_metal", "_ao", "_orm", "_mask"};
    for (size_t i = 0; i < RILL_COUNTOF(normal); i++) {
        size_t k = strlen(normal[i]);
        if (n > k && strcmp(stem + n - k, normal[i]) == 0) {
            return RILL_TEX_USAGE_NORMAL;
        }
    }
    for (size_t i = 0; i < RILL_COUNTOF(linear); i++) {
        size_t k = strlen(linear[i]);
        if (n > k && strcmp(stem + n - k, linear[i]) == 0) {
            return RILL_TEX_USAGE_LINEAR;
        }
    }
    return RILL_TEX_USAGE_COLOR;
}

/* If out_path ("a/chair_lod2.glb") is a LOD level name, writes the base output path
 * ("a/chair.glb") into dst and returns true. */
static bool lod_base_of(const char *out_path, char *dst, size_t cap) {
    const char *ext = rill_path_ext(out_path);
    if (!rill_path_ext_is(out_path, "glb")) {
        return false;
    }
    size_t stem = (size_t)(ext - out_path) - 1u; /* without the dot */
    if (stem < 6) {
        return false;
    }
    const char *tail = out_path + stem - 5; /* "_lodN" */
    if (strncmp(tail, "_lod", 4) != 0 || tail[4] < '1' || tail[4] > '9') {
        return false;
    }
    int w = snprintf(dst, cap, "%.*s.glb", (int)(stem - 5), out_path);
    return w > 0 && (size_t)w < cap;
}

/* Marks inputs that end the run early (generated files, output conflicts), settles texture
 * usages and which models bake LODs. Conflicts become failures of the later input. */
static void plan(export_run *run) {
    /* Files an earlier loose export into the project generated: leave them out. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        if (run->manifest.len && is_generated(run, in)) {
            RILL_LOG_DEBUG(MODULE, "%s: generated by an earlier export; skipped", in->path);
            rill_free(in->path);
            rill_free(in->os_path);
            rill_free(in->out_path);
            continue;
        }
        run->inputs.data[kept++] = *in;
    }
    run->inputs.len = kept;

    rill_map usages = {0};
    rill_map terrain_images = {0}; /* hash of project-relative path -> 1 */
    rill_map env_images = {0};     /* the same, for environment images (.rmip cubes) */
    rill_map outputs = {0};        /* hash of main output path -> input index */
    rill_map embedded = {0};       /* hash of a buffer file the exported models carry -> 1 */
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        if (in->kind == RILL_EXPORT_KIND_MODEL) {
            scan_model_usages(in, &usages, &embedded);
        }
        scan_scene_decals(in, &usages);
    }
    /* A .bin whose bytes the exported .glb embeds is not exported itself. */
    kept = 0;
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        uint64_t one = 0;
        if (in->kind == RILL_EXPORT_KIND_COPY &&
            rill_map_get(&embedded, rill_hash64_str(in->path), &one)) {
            RILL_LOG_INFO(MODULE, "%s: embedded in the exported models; not exported itself",
                          in->path);
            rill_free(in->path);
            rill_free(in->os_path);
            rill_free(in->out_path);
            continue;
        }
        run->inputs.data[kept++] = *in;
    }
    run->inputs.len = kept;
    rill_map_free(&embedded);
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        rill_map_set(&run->input_by_path, rill_hash64_str(in->path), i);
        scan_scene_terrain(in, &terrain_images, &env_images);
    }
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        uint64_t other = 0;
        if (!keep_for_terrain(in, &terrain_images, &usages)) {
            in->status = RILL_EXPORT_STATUS_FAILED;
            in->code = RILL_ERR_OUT_OF_MEMORY;
            continue;
        }
        uint64_t key = rill_hash64_str(in->out_path);
        if (rill_map_get(&outputs, key, &other)) {
            rill_strbuf sb = {0};
            rill_strbuf_printf(&sb, "%s: its output %s is also produced by %s; skipped", in->path,
                               in->out_path, run->inputs.data[other].path);
            in->status = RILL_EXPORT_STATUS_FAILED;
            in->code = RILL_ERR_ALREADY_EXISTS;
            in->message = sb.data;
            continue;
        }
        rill_map_set(&outputs, key, i);
        if (in->kind == RILL_EXPORT_KIND_TEXTURE) {
            uint64_t u = 0;
            in->usage = usage_from_name(in->path);
            if (in->usage != RILL_TEX_USAGE_HDR &&
                rill_map_get(&usages, rill_hash64_str(in->path), &u)) {
                in->usage = (rill_tex_usage)u;
            }
            /* An environment image is a cube; a model using the same file then gets no texture
             * (the texture loader refuses cubes): said here. */
            in->env_cube = rill_map_get(&env_images, rill_hash64_str(in->path), &u);
            if (in->env_cube && rill_map_get(&usages, rill_hash64_str(in->path), &u)) {
                RILL_LOG_WARN(MODULE,
                              "%s: an environment image a model also uses as a texture; "
                              "exported as a cube, the model's texture will not load",
                              in->path);
            }
        }
        in->bake_lods = in->kind == RILL_EXPORT_KIND_MODEL;
    }
    /* Hand-authored LODs: "chair_lod1.glb" beside "chair.glb" means the artist made the levels;
     * neither the base nor the levels get baked ones. */
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        char base[EXPORT_PATH_MAX];
        uint64_t bi = 0;
        if (in->kind != RILL_EXPORT_KIND_MODEL || in->status == RILL_EXPORT_STATUS_FAILED ||
            !lod_base_of(in->out_path, base, sizeof(base)) ||
            !rill_map_get(&outputs, rill_hash64_str(base), &bi)) {
            continue;
        }
        rill__export_input *b = &run->inputs.data[bi];
        if (b->kind == RILL_EXPORT_KIND_MODEL) {
            if (b->bake_lods) {
                RILL_LOG_INFO(MODULE, "%s: hand-authored LOD files found; not baking", b->path);
            }
            b->bake_lods = false;
            in->bake_lods = false;
        }
    }
    rill_map_free(&usages);
    rill_map_free(&terrain_images);
    rill_map_free(&env_images);
    rill_map_free(&outputs);
}

/* >>gather ------------------------------------------------------------------------------------ */

/* Writes one output into the loose folder unless the same bytes are there already, or the
 * target is an input file of the project (loose_out == project): inputs are never overwritten. */
static rill_result write_loose(export_run *run, const rill__export_output *o, rill_error *err) {
    bool is_input = rill_map_get(&run->input_by_path, rill_hash64_str(o->path), NULL);
    if (run->loose_is_project && is_input) {
        return RILL_OK;
    }
    char path[EXPORT_PATH_MAX], dir[EXPORT_PATH_MAX];
    if (!rill_path_join(path, sizeof(path), run->desc.loose_out, o->path) ||
        !rill_path_dirname(dir, sizeof(dir), path)) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", o->path);
    }
    uint64_t h = rill_hash64(o->data, o->size);
    if (!is_input) {
        char *copy = rill_strdup(o->path);
        if (!copy || !rill_array_push(&run->manifest_paths, copy)) {
            rill_free(copy);
        } else {
            rill_map_set(&run->new_manifest, rill_hash64_str(o->path), h);
        }
    }
    if (rill_file_size(path) == (int64_t)o->size) {
        uint8_t *old = NULL;
        size_t n = 0;
        bool same = rill_file_read_all(path, &old, &n, NULL) == RILL_OK && rill_hash64(old, n) == h;
        rill_free(old);
        if (same) {
            return RILL_OK;
        }
    }
    rill_result r = dir[0] ? rill_dir_create_all(dir, err) : RILL_OK;
    return r == RILL_OK ? rill_file_write_all(path, o->data, o->size, err) : r;
}

/* Main thread: a job finished. Moves its outputs into the pack and the loose folder. */
static void on_done(void *arg) {
    rill__export_input *in = arg;
    export_run *run = in->run;
    run->in_flight--;
    rill_error err = {0};
    for (uint32_t i = 0; in->status != RILL_EXPORT_STATUS_FAILED && i < in->output_count; i++) {
        rill__export_output *o = &in->outputs[i];
        rill_result r = RILL_OK;
        rill__export_hlod_keep(run->hlod, in->path, o);
        if (run->writer && o->has_stored) {
            o->has_stored = false;
            r = rill__rpak_writer_add_stored(run->writer, o->path, &o->stored, &err);
        } else if (run->writer) {
            r = rill_rpak_writer_add(run->writer, o->path, o->data, o->size,
                                     RILL_RPAK_COMPRESSION_AUTO, &err);
        }
        if (r == RILL_OK && run->desc.loose_out) {
            r = write_loose(run, o, &err);
        }
        if (r != RILL_OK) {
            rill_strbuf sb = {0};
            rill_strbuf_printf(&sb, "%s: %s", in->path, err.msg);
            rill_free(in->message);
            in->message = sb.data;
            in->code = r;
            in->status = RILL_EXPORT_STATUS_FAILED;
        }
    }
    uint32_t produced = in->status == RILL_EXPORT_STATUS_FAILED ? 0 : in->output_count;
    run->counts.done++;
    run->counts.outputs += produced;
    if (!run->writer) {
        for (uint32_t i = 0; i < produced; i++) {
            run->counts.bytes_out += in->outputs[i].size;
        }
    }
    switch (in->status) {
    case RILL_EXPORT_STATUS_REBUILT:
        run->counts.rebuilt++;
        break;
    case RILL_EXPORT_STATUS_CACHED:
        run->counts.cached++;
        break;
    case RILL_EXPORT_STATUS_COPIED:
        run->counts.copied++;
        break;
    default:
        in->status = RILL_EXPORT_STATUS_FAILED;
        run->counts.failed++;
        break;
    }
    rill_export_event ev = {0};
    ev.type = RILL_EXPORT_EVENT_INPUT_DONE;
    ev.path = in->path;
    ev.kind = in->kind;
    ev.status = in->status;
    ev.message = in->status == RILL_EXPORT_STATUS_FAILED
                     ? (in->message ? in->message : "failed (out of memory)")
                     : NULL;
    ev.output_count = produced;
    ev.input_sec = in->seconds;
    emit(run, &ev);
    rill__export_free_outputs(in);
}

/* The level-1 far-world proxies, baked once every level-0 one is in, go into the pack and the
 * loose folder like any output. They belong to no input: a failure is a warning. */
static void add_cells(export_run *run) {
    rill__export_output *outs = NULL;
    uint32_t n = rill__export_hlod_cells(run->hlod, &outs);
    for (uint32_t i = 0; i < n; i++) {
        rill_error err = {0};
        rill_result r = RILL_OK;
        if (run->writer) {
            r = rill_rpak_writer_add(run->writer, outs[i].path, outs[i].data, outs[i].size,
                                     RILL_RPAK_COMPRESSION_AUTO, &err);
        }
        if (r == RILL_OK && run->desc.loose_out) {
            r = write_loose(run, &outs[i], &err);
        }
        if (r != RILL_OK) {
            RILL_LOG_WARN(MODULE, "%s: not written: %s", outs[i].path, err.msg);
        } else {
            run->counts.outputs++;
        }
        if (!run->writer && r == RILL_OK) {
            run->counts.bytes_out += outs[i].size;
        }
        rill_free(outs[i].path);
        rill_free(outs[i].data);
    }
    rill_free(outs);
    rill__export_hlod_destroy(run->hlod);
    run->hlod = NULL;
}

/* Reports the input that has been in work the longest (dispatched ones are order[0..next)). */
static void tick(export_run *run, const cost_key *order, uint32_t next, uint64_t now) {
    const rill__export_input *oldest = NULL;
    uint64_t oldest_ns = 0;
    for (uint32_t i = 0; i < next; i++) {
        const rill__export_input *in = &run->inputs.data[order[i].index];
        uint64_t t = atomic_load(&in->started_ns);
        if (t && !atomic_load(&in->finished) && (!oldest || t < oldest_ns)) {
            oldest = in;
            oldest_ns = t;
        }
    }
    if (oldest) {
        rill_export_event ev = {0};
        ev.type = RILL_EXPORT_EVENT_TICK;
        ev.path = oldest->path;
        ev.kind = oldest->kind;
        ev.input_sec = (double)(now - oldest_ns) * 1e-9;
        emit(run, &ev);
    }
}

/* Worker: the outputs compressed as the pack will store them (zstd is most of what filing them
 * into the pack costs), so the main thread, which files every job's outputs, stays free. One that
 * fails to compress is left to the main thread's rill_rpak_writer_add, which reports it. */
static void store_outputs(export_run *run, rill__export_input *in) {
    if (!run->writer || in->status == RILL_EXPORT_STATUS_FAILED) {
        return;
    }
    const rill_rpak_writer_desc *d = rill__rpak_writer_desc(run->writer);
    for (uint32_t i = 0; i < in->output_count; i++) {
        rill__export_output *o = &in->outputs[i];
        o->has_stored = rill__rpak_store(d, o->path, o->data, o->size, RILL_RPAK_COMPRESSION_AUTO,
                                         &o->stored, NULL) == RILL_OK;
    }
}

static void job_main(void *arg) {
    rill__export_input *in = arg;
    export_run *run = in->run;
    uint64_t t0 = rill_time_ns();
    atomic_store(&in->started_ns, t0);
    rill__export_process(in);
    store_outputs(run, in);
    in->seconds = (double)(rill_time_ns() - t0) * 1e-9;
    atomic_store(&in->finished, 1u);
    rill_jobs_post_main(run->jobs, on_done, in);
}

/* >>run --------------------------------------------------------------------------------------- */

static int cmp_cost(const void *a, const void *b) {
    const cost_key *x = a, *y = b;
    if (x->copy != y->copy) {
        return x->copy < y->copy ? -1 : 1;
    }
    if (x->size != y->size) {
        return x->size > y->size ? -1 : 1;
    }
    return x->index < y->index ? -1 : (x->index > y->index);
}

static void run_free(export_run *run) {
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        rill__export_free_outputs(in);
        rill_free(in->path);
        rill_free(in->os_path);
        rill_free(in->out_path);
        rill_free(in->message);
    }
    rill_array_free(&run->inputs);
    for (uint32_t i = 0; i < run->manifest_paths.len; i++) {
        rill_free(run->manifest_paths.data[i]);
    }
    rill_array_free(&run->manifest_paths);
    rill_map_free(&run->input_by_path);
    rill_map_free(&run->manifest);
    rill_map_free(&run->new_manifest);
    rill_rpak_writer_destroy(run->writer);
    rill__export_hlod_destroy(run->hlod);
}

static rill_result fill_result(export_run *run, rill_export_result *out, rill_error *err) {
    rill_result first = RILL_OK;
    const char *first_msg = NULL;
    if (out) {
        out->counts = run->counts;
        out->seconds = (double)(rill_time_ns() - run->start_ns) * 1e-9;
        out->worker_count = run->workers;
    }
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        rill__export_input *in = &run->inputs.data[i];
        if (in->status != RILL_EXPORT_STATUS_FAILED) {
            continue;
        }
        if (first == RILL_OK) {
            first = in->code ? in->code : RILL_ERR_CORRUPT;
            first_msg = in->message ? in->message : in->path;
        }
        if (out) {
            rill_export_failure *f = rill_realloc_tagged(
                out->failures, sizeof(*f) * (out->failure_count + 1u), RILL_MEM_FORMATS);
            if (f) {
                out->failures = f;
                f[out->failure_count].path = rill_strdup(in->path);
                f[out->failure_count].message = rill_strdup(in->message ? in->message : in->path);
                out->failure_count++;
            }
        }
    }
    if (first != RILL_OK) {
        return rill_error_set(err, first, "%u of %u inputs failed; first: %s", run->counts.failed,
                              run->counts.inputs, first_msg);
    }
    return RILL_OK;
}

rill_result rill_export_run(const rill_export_desc *desc, rill_export_result *out_result,
                            rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_export_run", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (out_result) {
        memset(out_result, 0, sizeof(*out_result));
    }
    if (!desc || !desc->project_dir || (!desc->out_pack && !desc->loose_out)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "export: a project folder and an output (pack or loose folder) "
                              "are required");
    }
    export_run *run = rill_calloc_tagged(1, sizeof(*run), RILL_MEM_FORMATS);
    if (!run) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "export: out of memory");
    }
    char cache_buf[EXPORT_PATH_MAX];
    run->start_ns = rill_time_ns();
    run->desc = rill_export_resolve_desc(desc, cache_buf, sizeof(cache_buf));
    run->settings.project_dir = run->desc.project_dir;
    run->settings.cache_dir = run->desc.no_cache ? NULL : run->desc.cache_dir;
    run->settings.force = run->desc.force;
    run->settings.lod = rill_lod_query_defaults();
    run->settings.lod.levels = run->desc.lod_levels;
    run->settings.no_lods = run->desc.no_lods;
    run->settings.bc7_quality = run->desc.bc7_quality;
    run->settings.no_hlod = run->desc.no_hlod;
    run->settings.hlod_triangles = run->desc.hlod_triangles;
    run->settings.hlod_cell = run->desc.hlod_cell;
    run->settings.check = run->desc.check;
    run->settings.check_user = run->desc.check_user;

    rill_result r = RILL_OK;
    bool own_jobs = false;
    if (!rill_dir_exists(run->desc.project_dir) ||
        !realpath(run->desc.project_dir, run->project_real)) {
        r = rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: not a folder", run->desc.project_dir);
        goto done;
    }
    if (run->settings.cache_dir &&
        (r = rill_dir_create_all(run->settings.cache_dir, err)) != RILL_OK) {
        char why[512];
        snprintf(why, sizeof(why), "%s", err ? err->msg : "cannot create the folder");
        rill_error_set(err, r,
                       "%s (the export cache: in a read-only project, give --cache DIR in a "
                       "writable folder, or --no-cache)",
                       why);
        goto done;
    }
    if (run->desc.loose_out && (r = rill_dir_create_all(run->desc.loose_out, err)) != RILL_OK) {
        goto done;
    }
    if (run->desc.out_pack) {
        char pack_dir[EXPORT_PATH_MAX];
        if (rill_path_dirname(pack_dir, sizeof(pack_dir), run->desc.out_pack) && pack_dir[0] &&
            (r = rill_dir_create_all(pack_dir, err)) != RILL_OK) {
            goto done;
        }
    }
    rel_inside(run, run->desc.out_pack, run->skip_pack, sizeof(run->skip_pack));
    rel_inside(run, run->desc.loose_out, run->skip_loose, sizeof(run->skip_loose));
    rel_inside(run, run->settings.cache_dir, run->skip_cache, sizeof(run->skip_cache));
    if (strcmp(run->skip_loose, ".") == 0) {
        run->loose_is_project = true;
        run->skip_loose[0] = '\0';
    }
    {
        char man[EXPORT_PATH_MAX];
        if (rill_path_join(man, sizeof(man), run->desc.project_dir, RILL_EXPORT_MANIFEST)) {
            manifest_read(man, &run->manifest);
        }
    }
    if ((r = walk(run, run->desc.project_dir, "", err)) != RILL_OK) {
        goto done;
    }
    plan(run);
    run->hlod = rill__export_hlod_plan(run->inputs.data, run->inputs.len, &run->settings);
    run->counts.inputs = run->inputs.len;
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        run->counts.bytes_in += run->inputs.data[i].size;
    }
    if (run->desc.out_pack && !(run->writer = rill_rpak_writer_create(NULL, err))) {
        r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "export: cannot create the pack writer");
        goto done;
    }
    run->jobs = run->desc.job_system;
    if (!run->jobs) {
        rill_jobs_desc jd = {0};
        jd.worker_count = run->desc.jobs ? run->desc.jobs : rill_cpu_count();
        run->jobs = rill_jobs_create(&jd, NULL);
        own_jobs = true;
        if (!run->jobs) {
            r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "export: cannot start the job system");
            goto done;
        }
    }
    run->workers = rill_jobs_worker_count(run->jobs);
    run->settings.jobs = run->jobs;
    {
        rill_export_event ev = {0};
        ev.type = RILL_EXPORT_EVENT_BEGIN;
        emit(run, &ev);
    }
    /* Inputs that failed in planning are reported first, in path order. */
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        if (run->inputs.data[i].status == RILL_EXPORT_STATUS_FAILED) {
            run->in_flight++;
            on_done(&run->inputs.data[i]);
        }
    }
    /* Bounded in flight: enough to keep every worker busy while the main thread packs, few
     * enough that finished outputs do not pile up in memory before they are packed. */
    uint32_t max_flight = RILL_MAX(4u, run->workers * 2u);
    cost_key *order =
        rill_malloc_tagged(sizeof(cost_key) * (run->inputs.len + 1u), RILL_MEM_FORMATS);
    if (!order) {
        r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "export: out of memory");
        goto done;
    }
    /* Longest first, so one large texture does not start last and leave every other worker
     * idle while it finishes. File size stands in for the cost. */
    for (uint32_t i = 0; i < run->inputs.len; i++) {
        order[i].copy = run->inputs.data[i].kind == RILL_EXPORT_KIND_COPY;
        order[i].size = run->inputs.data[i].size;
        order[i].index = i;
    }
    qsort(order, run->inputs.len, sizeof(cost_key), cmp_cost);
    uint32_t next = 0;
    uint64_t last_tick = rill_time_ns();
    while (run->counts.done < run->inputs.len) {
        while (next < run->inputs.len && run->in_flight < max_flight) {
            rill__export_input *in = &run->inputs.data[order[next++].index];
            if (in->status == RILL_EXPORT_STATUS_FAILED) {
                continue;
            }
            run->in_flight++;
            rill_jobs_run(run->jobs, job_main, in, NULL);
        }
        if (rill_jobs_drain(run->jobs, 0) == 0) {
            rill_sleep_ns(500000);
        }
        uint64_t now = rill_time_ns();
        if (run->desc.progress && now - last_tick >= 200000000u) {
            last_tick = now;
            tick(run, order, next, now);
        }
    }
    rill_free(order);
    add_cells(run);
    if (run->writer) {
        rill_export_event ev = {0};
        ev.type = RILL_EXPORT_EVENT_WRITING;
        ev.path = run->desc.out_pack;
        emit(run, &ev);
        r = rill_rpak_writer_finish_file(run->writer, run->desc.out_pack, err);
        if (r == RILL_OK) {
            int64_t sz = rill_file_size(run->desc.out_pack);
            run->counts.bytes_out = sz > 0 ? (uint64_t)sz : 0;
        }
    }
    if (r == RILL_OK && run->desc.loose_out && run->manifest_paths.len) {
        manifest_write(run);
    }
done:
    if (own_jobs) {
        rill_jobs_destroy(run->jobs);
        run->jobs = NULL;
    }
    if (r == RILL_OK) {
        r = fill_result(run, out_result, err);
    } else if (out_result) {
        rill_error ignored = {0};
        fill_result(run, out_result, &ignored);
    }
    {
        rill_export_event ev = {0};
        ev.type = RILL_EXPORT_EVENT_END;
        emit(run, &ev);
    }
    run_free(run);
    rill_free(run);
    return r;
}
