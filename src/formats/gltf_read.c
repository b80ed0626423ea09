/* gltf_read.c: the glTF 2.0 reader (.glb and .gltf, external buffers and images, data: URIs).
 *
 * Everything in a glTF file is untrusted: every index is checked against the array it names,
 * every byte range against its buffer (in 64-bit arithmetic, so no sum can wrap), and every
 * number's type and range before use. A failure stops the read at once with an error naming the
 * file and the JSON path; the half-built model is freed and never returned.
 *
 * This file holds the errors and limits, the JSON helpers and the top level; the parts of the
 * model are read in gltf_buffers.c, gltf_meshes.c, gltf_materials.c, gltf_nodes.c and
 * gltf_anim_read.c (gltf_read_internal.h lists them). */
#include "gltf_read_internal.h"

#include "rill/world.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

/* The glTF spec caps arrays only by memory; Rill caps each at 2^24 entries so that a short file
 * cannot ask for a huge allocation before its data is even looked at. */
#define MAX_JSON_ARRAY (1u << 24)

/* >>errors ------------------------------------------------------------------------------------ */

rill_result rill__rd_fail(rd *r, rill_result code, const char *fmt, ...) {
    char msg[RILL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rill_error_set(r->err, code, "%s: %s", r->name, msg);
}

/* Decoded bytes any model may reach whatever its size (the model_expansion limit's floor). */
#define RD_EXPANSION_FLOOR ((uint64_t)4 << 20)

/* Counts `bytes` of decoded data against the model's limit before they are allocated, so a small
 * file cannot make the reader commit memory without bound (many accessors, accessors without a
 * buffer view that decode to zeros, many primitives naming one huge accessor). */
rill_result rill__rd_charge(rd *r, uint64_t bytes, const char *where, const char *what) {
    if (bytes > r->max_bytes || r->decoded > r->max_bytes - bytes) {
        return rill__rd_fail(r, RILL_ERR_LIMIT,
                             "%s%s: %llu bytes decoded would exceed the model_bytes limit of %llu "
                             "(%llu decoded before; " RD_RAISE_HINT ")",
                             where, what, (unsigned long long)(r->decoded + bytes),
                             (unsigned long long)r->max_bytes, (unsigned long long)r->decoded);
    }
    /* A small file must not expand without bound inside model_bytes either: accessors without
     * a buffer view (zeros), sparse ones, zero-index draws and unwelding make data from no
     * bytes. Expansion past model_expansion times the input (at least RD_EXPANSION_FLOOR) is
     * refused before the bytes are allocated. */
    uint64_t cap = RD_EXPANSION_FLOOR;
    if (r->input && r->expansion && r->input <= UINT64_MAX / r->expansion &&
        r->input * r->expansion > cap) {
        cap = r->input * r->expansion;
    }
    if (r->expansion && r->decoded + bytes > cap) {
        return rill__rd_fail(r, RILL_ERR_LIMIT,
                             "%s%s: %llu bytes decoded from %llu bytes of file would exceed the "
                             "model_expansion limit of %llu to 1 (at least %u MiB; raise it: "
                             "RILL_LIMITS=model_expansion=N, rill --limit model_expansion=N, or "
                             "rill_limits_set)",
                             where, what, (unsigned long long)(r->decoded + bytes),
                             (unsigned long long)r->input, (unsigned long long)r->expansion,
                             (unsigned)(RD_EXPANSION_FLOOR >> 20));
    }
    r->decoded += bytes;
    return RILL_OK;
}

/* >>json helpers ------------------------------------------------------------------------------ */

/* dst = a + b, truncated to cap (for JSON paths in messages). */
void rill__rd_join_path(char *dst, size_t cap, const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    la = la < cap - 1 ? la : cap - 1;
    lb = lb < cap - 1 - la ? lb : cap - 1 - la;
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb);
    dst[la + lb] = '\0';
}

/* dst = prefix "[" i "]" (for JSON paths such as "meshes[12]"), without snprintf's cost. */
void rill__rd_index_path(char *dst, size_t cap, const char *prefix, uint32_t i) {
    char num[16];
    int n = 0;
    do {
        num[n++] = (char)('0' + i % 10u);
        i /= 10u;
    } while (i);
    size_t lp = strlen(prefix);
    if (lp + (size_t)n + 3 > cap) {
        dst[0] = '\0';
        return;
    }
    memcpy(dst, prefix, lp);
    dst[lp] = '[';
    for (int k = 0; k < n; k++) {
        dst[lp + 1 + k] = num[n - 1 - k];
    }
    dst[lp + 1 + n] = ']';
    dst[lp + 2 + n] = '\0';
}

/* ">" separator for JSON paths: top-level keys have no leading dot. */
static const char *sep(const char *where) {
    return where[0] ? "." : "";
}

/* An optional non-negative integer no larger than max. Absent -> *out = def. */
rill_result rill__rd_js_uint(rd *r, const rill__gj *obj, const char *key, const char *where,
                             uint64_t def, uint64_t max, uint64_t *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (!it) {
        *out = def;
        return RILL_OK;
    }
    double v = rill__gj_num(it);
    if (!rill__gj_is_number(it) || !isfinite(v) || v < 0.0 || v != floor(v) || v > (double)max) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an integer in [0, %llu]", where,
                             sep(where), key, (unsigned long long)max);
    }
    *out = (uint64_t)v;
    return RILL_OK;
}

/* An optional index into an array of `count` items; absent -> -1. */
rill_result rill__rd_js_index(rd *r, const rill__gj *obj, const char *key, const char *where,
                              uint32_t count, const char *what, int32_t *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = -1;
    if (!it) {
        return RILL_OK;
    }
    double v = rill__gj_num(it);
    if (!rill__gj_is_number(it) || !isfinite(v) || v != floor(v)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an index", where, sep(where),
                             key);
    }
    if (v < 0.0 || v >= (double)count) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s%s%s: %s %.0f out of range (%u)", where,
                             sep(where), key, what, v, count);
    }
    *out = (int32_t)v;
    return RILL_OK;
}

rill_result rill__rd_js_float(rd *r, const rill__gj *obj, const char *key, const char *where,
                              float def, float *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (!it) {
        *out = def;
        return RILL_OK;
    }
    double num = rill__gj_num(it);
    if (!rill__gj_is_number(it)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected a number", where, sep(where),
                             key);
    }
    if (!isfinite(num) || fabs(num) > 3.0e38) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s%s%s: not a finite number (NaN, infinite or "
                             "beyond the float range)",
                             where, sep(where), key);
    }
    *out = (float)num;
    return RILL_OK;
}

rill_result rill__rd_js_floats(rd *r, const rill__gj *obj, const char *key, const char *where,
                               int n, float *out, bool *present) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (present) {
        *present = it != NULL;
    }
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_array(it) || (int)it->count != n) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an array of %d numbers", where,
                             sep(where), key, n);
    }
    int i = 0;
    const rill__gj *e;
    RILL__GJ_FOR(e, it) {
        double num = rill__gj_num(e);
        if (!rill__gj_is_number(e)) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s[%d]: expected a number", where,
                                 sep(where), key, i);
        }
        if (!isfinite(num) || fabs(num) > 3.0e38) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s%s%s[%d]: not a finite number (NaN, infinite "
                                 "or beyond the float range)",
                                 where, sep(where), key, i);
        }
        out[i++] = (float)num;
    }
    return RILL_OK;
}

/* Fails when one of the n values read at where.key lies beyond the world limit (rill/world.h):
 * a node placed at 3e38 would give inf bounds, distances and camera planes downstream. */
rill_result rill__rd_check_world_limit(rd *r, const char *where, const char *key, const float *v,
                                       int n) {
    for (int i = 0; i < n; i++) {
        if (!(fabsf(v[i]) <= RILL_WORLD_LIMIT)) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s%s%s[%d]: %g is beyond the world limit +-%g", where, sep(where),
                                 key, i, (double)v[i], (double)RILL_WORLD_LIMIT);
        }
    }
    return RILL_OK;
}

rill_result rill__rd_js_bool(rd *r, const rill__gj *obj, const char *key, const char *where,
                             bool *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (!it) {
        *out = false;
        return RILL_OK;
    }
    if (!rill__gj_is_bool(it)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected true or false", where, sep(where),
                             key);
    }
    *out = (it->type == RILL__GJ_TRUE);
    return RILL_OK;
}

/* An optional string; *out points into the JSON tree (NULL when absent). */
rill_result rill__rd_js_str(rd *r, const rill__gj *obj, const char *key, const char *where,
                            const char **out) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = NULL;
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_string(it) || !it->u.str) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected a string", where, sep(where),
                             key);
    }
    *out = it->u.str;
    return RILL_OK;
}

rill_result rill__rd_js_name(rd *r, const rill__gj *obj, const char *where, char **out) {
    const char *s;
    RILL_TRY(rill__rd_js_str(r, obj, "name", where, &s));
    *out = NULL;
    if (s) {
        *out = rill__gltf_strdup(s);
        if (!*out) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.name: out of memory", where);
        }
    }
    return RILL_OK;
}

/* A top-level or nested optional array; *out_count = 0 when absent. */
rill_result rill__rd_js_array(rd *r, const rill__gj *obj, const char *key, const char *where,
                              const rill__gj **out, uint32_t *out_count) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = NULL;
    *out_count = 0;
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_array(it)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an array", where, sep(where),
                             key);
    }
    int n = (int)it->count;
    if (n < 0 || (uint32_t)n > MAX_JSON_ARRAY) {
        return rill__rd_fail(r, RILL_ERR_LIMIT, "%s%s%s: too many entries", where, sep(where), key);
    }
    *out = it;
    *out_count = (uint32_t)n;
    return RILL_OK;
}

rill_result rill__rd_js_object(rd *r, const rill__gj *it, const char *where) {
    if (!rill__gj_is_object(it)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s: expected an object", where);
    }
    return RILL_OK;
}

/* An optional object member; *out = NULL when absent. */
rill_result rill__rd_js_member_object(rd *r, const rill__gj *obj, const char *key,
                                      const char *where, const rill__gj **out) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = NULL;
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_object(it)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an object", where, sep(where),
                             key);
    }
    *out = it;
    return RILL_OK;
}

/* glTF requires every "extensions" value to be an object of objects, also for extensions the
 * reader does not use; checking them keeps malformed files from passing as valid. */
rill_result rill__rd_check_extensions(rd *r, const rill__gj *obj, const char *where) {
    const rill__gj *ext;
    RILL_TRY(rill__rd_js_member_object(r, obj, "extensions", where, &ext));
    const rill__gj *e;
    RILL__GJ_FOR(e, ext) {
        if (!rill__gj_is_object(e)) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s%sextensions.%s: expected an object", where,
                                 sep(where), e->key ? e->key : "?");
        }
    }
    return RILL_OK;
}

/* >>top level --------------------------------------------------------------------------------- */

/* glTF 1.0 files are still common in old collections; they say which version they are (or, with
 * no asset.version, show it by keeping their arrays as dictionaries keyed by id), so the message
 * says that rather than what it trips over first. */
#define GLTF1_UNSUPPORTED "glTF 1.0 is not supported (2.0 is): re-export the model as glTF 2.0"

static bool looks_gltf1(const rill__gj *root) {
    static const char *const keys[] = {"accessors", "buffers", "meshes", "nodes", "scenes"};
    for (size_t i = 0; i < RILL_COUNTOF(keys); i++) {
        if (rill__gj_is_object(rill__gj_get(root, keys[i]))) {
            return true;
        }
    }
    return false;
}

static rill_result check_asset(rd *r) {
    const rill__gj *asset;
    const rill__gj *a = rill__gj_get(r->root, "asset");
    const rill__gj *v = rill__gj_is_object(a) ? rill__gj_get(a, "version") : NULL;
    bool says_2 = rill__gj_is_string(v) && strncmp(v->u.str, "2.", 2) == 0;
    if (!says_2 && looks_gltf1(r->root)) {
        return rill__rd_fail(r, RILL_ERR_VERSION, "%s", GLTF1_UNSUPPORTED);
    }
    RILL_TRY(rill__rd_js_member_object(r, r->root, "asset", "", &asset));
    if (!asset) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "asset: missing");
    }
    const char *version, *min_version;
    RILL_TRY(rill__rd_js_str(r, asset, "version", "asset", &version));
    RILL_TRY(rill__rd_js_str(r, asset, "minVersion", "asset", &min_version));
    if (!version) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "asset.version: missing");
    }
    if (strncmp(version, "1.", 2) == 0 || strcmp(version, "1") == 0) {
        return rill__rd_fail(r, RILL_ERR_VERSION, "%s", GLTF1_UNSUPPORTED);
    }
    if (strncmp(version, "2.", 2) != 0) {
        return rill__rd_fail(r, RILL_ERR_VERSION,
                             "asset.version: glTF \"%s\" is not supported (2.0 is)", version);
    }
    if (min_version && strcmp(min_version, "2.0") != 0) {
        return rill__rd_fail(r, RILL_ERR_VERSION,
                             "asset.minVersion: the file needs glTF %s; Rill reads 2.0 files",
                             min_version);
    }
    const rill__gj *req;
    uint32_t rc;
    RILL_TRY(rill__rd_js_array(r, r->root, "extensionsRequired", "", &req, &rc));
    const rill__gj *e;
    uint32_t i = 0;
    RILL__GJ_FOR(e, req) {
        if (!rill__gj_is_string(e)) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "extensionsRequired[%u]: expected a string", i);
        }
        if (!rill__gltf_extension_known(e->u.str)) {
            return rill__rd_fail(r, RILL_ERR_UNSUPPORTED,
                                 "extensionsRequired[%u]: %s is not supported", i, e->u.str);
        }
        i++;
    }
    return RILL_OK;
}

/* Indexes the accessors array once into C arrays: accessors are looked up by number from every
 * primitive, and walking the JSON list for each lookup made large files quadratic. */
static rill_result index_accessors(rd *r) {
    const rill__gj *arr;
    RILL_TRY(rill__rd_js_array(r, r->root, "accessors", "", &arr, &r->accessor_count));
    if (!r->accessor_count) {
        return RILL_OK;
    }
    uint64_t bytes = (uint64_t)r->accessor_count *
                     (sizeof(*r->acc_nodes) + sizeof(*r->acc_info) + sizeof(*r->acc_state));
    RILL_TRY(rill__rd_charge(r, bytes, "accessors", ""));
    r->acc_nodes = rill__gltf_alloc_raw(r->accessor_count, sizeof(*r->acc_nodes));
    r->acc_info = rill__gltf_alloc_raw(r->accessor_count, sizeof(*r->acc_info));
    r->acc_state = rill__gltf_alloc(r->accessor_count, sizeof(*r->acc_state));
    if (!r->acc_nodes || !r->acc_info || !r->acc_state) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "accessors: out of memory");
    }
    uint32_t i = 0;
    const rill__gj *a;
    RILL__GJ_FOR(a, arr) {
        r->acc_nodes[i++] = a;
    }
    return RILL_OK;
}

static rill_result parse(rd *r, const uint8_t *data, size_t size) {
    const char *json = (const char *)data;
    size_t json_size = size;
    uint32_t magic = 0;
    if (size >= 4) {
        memcpy(&magic, data, 4);
    }
    if (magic == GLB_MAGIC) {
        uint32_t hdr[3], chunk[2];
        if (size < 20) {
            return rill__rd_fail(r, RILL_ERR_TRUNCATED, "offset %zu: GLB header truncated", size);
        }
        memcpy(hdr, data, 12);
        if (hdr[1] == 1) {
            return rill__rd_fail(r, RILL_ERR_VERSION, "%s", GLTF1_UNSUPPORTED);
        }
        if (hdr[1] != 2) {
            return rill__rd_fail(r, RILL_ERR_VERSION, "offset 4: GLB version %u (2 only)", hdr[1]);
        }
        if (hdr[2] > size || hdr[2] < 20) {
            /* Below 20 the header and the JSON chunk header do not fit, and size - 20 below
             * would wrap (found by fuzz_gltf; fuzz/gltf/corpus/regress-glb-length-*). */
            return rill__rd_fail(r, RILL_ERR_TRUNCATED, "offset 8: GLB length %u but %zu bytes",
                                 hdr[2], size);
        }
        size = hdr[2];
        memcpy(chunk, data + 12, 8);
        if (chunk[1] != GLB_CHUNK_JSON) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "offset 16: first chunk is not JSON");
        }
        if (chunk[0] > size - 20) {
            return rill__rd_fail(r, RILL_ERR_TRUNCATED,
                                 "offset 12: JSON chunk of %u bytes overruns the file", chunk[0]);
        }
        json = (const char *)data + 20;
        json_size = chunk[0];
        size_t off = 20 + (size_t)chunk[0];
        /* Chunks after JSON: the first BIN is the GLB buffer; unknown chunks are skipped, as the
         * spec asks, so future chunk types do not break old readers. */
        while (off + 8 <= size) {
            memcpy(chunk, data + off, 8);
            if (chunk[0] > size - off - 8) {
                return rill__rd_fail(r, RILL_ERR_TRUNCATED,
                                     "offset %zu: chunk of %u bytes overruns the file", off,
                                     chunk[0]);
            }
            if (chunk[1] == GLB_CHUNK_BIN && !r->bin) {
                r->bin = data + off + 8;
                r->bin_size = chunk[0];
            }
            off += 8 + (size_t)chunk[0];
        }
    }
    /* A UTF-8 byte order mark is not allowed by glTF but some tools write one; skip it. */
    if (json_size >= 3 && memcmp(json, "\xEF\xBB\xBF", 3) == 0) {
        json += 3;
        json_size -= 3;
    }
    if (json_size == 0) {
        return rill__rd_fail(r, RILL_ERR_TRUNCATED, "empty JSON");
    }
    rill__gj_doc doc;
    size_t at = 0;
    bool over = false;
    if (!rill__gj_parse(json, json_size, r->max_bytes, &doc, &at, &over)) {
        if (over) {
            return rill__rd_fail(
                r, RILL_ERR_LIMIT,
                "the JSON chunk (%zu bytes) needs more than the model_bytes limit of "
                "%zu (" RD_RAISE_HINT ")",
                json_size, r->max_bytes);
        }
        /* Count lines and columns up to the failure for a text-style position. */
        uint32_t line = 1, col = 1;
        for (size_t i = 0; i < at && i < json_size; i++) {
            if (json[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return rill_error_set(r->err, RILL_ERR_PARSE, "%s:%u:%u: invalid JSON", r->name, line, col);
    }
    r->decoded += doc.bytes;
    const rill__gj *root = doc.root;
    r->root = root;
    rill_result res = RILL_OK;
    if (!rill__gj_is_object(root)) {
        res = rill__rd_fail(r, RILL_ERR_PARSE, "the JSON root is not an object");
    }
    if (res == RILL_OK) {
        res = check_asset(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_buffers(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_views(r);
    }
    if (res == RILL_OK) {
        res = index_accessors(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_samplers_textures(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_images(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_materials(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_variants(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_meshes(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_cameras_lights(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_nodes(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_scenes(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_skins(r);
    }
    if (res == RILL_OK) {
        res = rill__rd_read_animations(r);
    }
    char unkept[512];
    if (res == RILL_OK && rill__gltf_unkept_summary(root, unkept, sizeof(unkept))) {
        RILL_LOG_WARN("formats", "%s: left out (Rill does not read them): %s", r->name, unkept);
    }
    rill__gj_free(&doc);
    r->root = NULL;
    return res;
}

/* The decoded-bytes limit of one model when the desc gives none: the process-wide model_bytes
 * limit (rill_limits_set, RILL_LIMITS). */
static size_t default_model_limit(void) {
    uint64_t v = rill_limit_get(RILL_LIMIT_MODEL_BYTES);
    return v > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)v;
}

rill_result rill_gltf_read_memory(const void *data, size_t size, const rill_gltf_read_desc *desc,
                                  rill_gltf_model **out_model, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_gltf_read_memory", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (out_model) {
        *out_model = NULL;
    }
    if ((!data && size) || !out_model) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_gltf_read_memory: data and out_model are required");
    }
    rill_gltf_read_desc d = desc ? *desc : (rill_gltf_read_desc){0};
    rd r = {0};
    r.name = d.name ? d.name : "<memory>";
    r.base_dir = d.base_dir;
    r.up_levels = d.uri_up_levels;
    r.read_file = d.read_file ? d.read_file : rill__rd_default_read_file;
    r.read_file_user = d.read_file ? d.read_file_user : (void *)d.base_dir;
    r.max_bytes = d.max_bytes ? d.max_bytes : default_model_limit();
    r.input = size;
    r.expansion = rill_limit_get(RILL_LIMIT_MODEL_EXPANSION);
    r.err = err;
    r.m = rill__gltf_alloc(1, sizeof(rill_gltf_model));
    if (!r.m) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", r.name);
    }
    r.m->default_scene = -1;
    rill_result res = parse(&r, data, size);
    for (uint32_t i = 0; i < r.buffer_count; i++) {
        if (r.buffers[i].owned) {
            rill_free(r.buffers[i].data);
        }
    }
    rill_free(r.buffers);
    for (uint32_t i = 0; r.views && i < r.view_count; i++) {
        rill_free(r.views[i].decoded);
    }
    rill_free(r.views);
    rill_free(r.acc_nodes);
    rill_free(r.acc_info);
    rill_free(r.acc_state);
    if (res != RILL_OK) {
        rill_gltf_model_free(r.m);
        return res;
    }
    *out_model = r.m;
    return RILL_OK;
}

rill_result rill_gltf_read_file(const char *path, const rill_gltf_read_desc *desc,
                                rill_gltf_model **out_model, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_gltf_read_file", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (out_model) {
        *out_model = NULL;
    }
    if (!path || !out_model) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_gltf_read_file: path and out_model are required");
    }
    rill_gltf_read_desc d = desc ? *desc : (rill_gltf_read_desc){0};
    char dir[1024];
    if (!d.base_dir) {
        if (!rill_path_dirname(dir, sizeof(dir), path)) {
            return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", path);
        }
        d.base_dir = dir[0] ? dir : ".";
    }
    if (!d.name) {
        d.name = path;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_result res;
    if (d.read_file) {
        res = d.read_file(path, &data, &size, d.read_file_user, err);
    } else {
        res = rill_file_read_all(path, &data, &size, err);
    }
    if (res != RILL_OK) {
        return res;
    }
    res = rill_gltf_read_memory(data, size, &d, out_model, err);
    rill_free(data);
    return res;
}
