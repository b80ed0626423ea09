/* gltf_read.c: the glTF 2.0 reader (.glb and .gltf, external buffers and images, data: URIs).
 *
 * Everything in a glTF file is untrusted: every index is checked against the array it names,
 * every byte range against its buffer (in 64-bit arithmetic, so no sum can wrap), and every
 * number's type and range before use. A failure stops the read at once with an error naming the
 * file and the JSON path; the half-built model is freed and never returned. */
#include "gltf_internal.h"

#include "gltf_json.h"
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

#define MESHOPT_EXT "EXT_meshopt_compression"

typedef struct rd_buffer {
    uint8_t *data;
    size_t size;
    bool owned;
} rd_buffer;

typedef struct rd_view {
    uint32_t buffer;
    size_t offset;
    size_t length;
    uint32_t stride;  /* 0 = tightly packed */
    uint8_t *decoded; /* owned: the bytes of an EXT_meshopt_compression view, else NULL */
} rd_view;

typedef struct rd {
    const char *name;
    const char *base_dir;
    uint32_t up_levels; /* rill_gltf_read_desc.uri_up_levels */
    rill_gltf_file_fn read_file;
    void *read_file_user;
    size_t max_bytes;
    rill_error *err;
    const rill__gj *root;
    const uint8_t *bin; /* GLB BIN chunk, or NULL */
    size_t bin_size;
    uint32_t buffer_count;
    rd_buffer *buffers;
    uint32_t view_count;
    rd_view *views;
    uint32_t accessor_count;
    const rill__gj **acc_nodes; /* the accessors array indexed once, so lookups are O(1) */
    struct rd_accessor *acc_info;
    uint8_t *acc_state; /* 1 = acc_info[i] checked */
    uint64_t decoded;   /* bytes decoded so far, charged against max_bytes */
    uint64_t input;     /* bytes of the file and its external buffers, for the expansion limit */
    uint64_t expansion; /* the model_expansion limit: decoded bytes per input byte */
    rill_gltf_model *m;
} rd;

/* >>errors ------------------------------------------------------------------------------------ */

static rill_result rd_fail(rd *r, rill_result code, const char *fmt, ...) RILL_PRINTF(3, 4);
static rill_result rd_fail(rd *r, rill_result code, const char *fmt, ...) {
    char msg[RILL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rill_error_set(r->err, code, "%s: %s", r->name, msg);
}

/* Decoded bytes any model may reach whatever its size (the model_expansion limit's floor). */
#define RD_EXPANSION_FLOOR ((uint64_t)4 << 20)

/* How to raise the model limit, as every limit message says it (docs/limits.md). */
#define RD_RAISE_HINT                                                                              \
    "raise it: RILL_LIMITS=model_bytes=N, rill --limit model_bytes=N, rill_limits_set, or "        \
    "rill_gltf_read_desc.max_bytes"

/* Counts `bytes` of decoded data against the model's limit before they are allocated, so a small
 * file cannot make the reader commit memory without bound (many accessors, accessors without a
 * buffer view that decode to zeros, many primitives naming one huge accessor). */
static rill_result rd_charge(rd *r, uint64_t bytes, const char *where, const char *what) {
    if (bytes > r->max_bytes || r->decoded > r->max_bytes - bytes) {
        return rd_fail(r, RILL_ERR_LIMIT,
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
        return rd_fail(r, RILL_ERR_LIMIT,
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
static void join_path(char *dst, size_t cap, const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    la = la < cap - 1 ? la : cap - 1;
    lb = lb < cap - 1 - la ? lb : cap - 1 - la;
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb);
    dst[la + lb] = '\0';
}

/* dst = prefix "[" i "]" (for JSON paths such as "meshes[12]"), without snprintf's cost. */
static void index_path(char *dst, size_t cap, const char *prefix, uint32_t i) {
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
static rill_result js_uint(rd *r, const rill__gj *obj, const char *key, const char *where,
                           uint64_t def, uint64_t max, uint64_t *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (!it) {
        *out = def;
        return RILL_OK;
    }
    double v = rill__gj_num(it);
    if (!rill__gj_is_number(it) || !isfinite(v) || v < 0.0 || v != floor(v) || v > (double)max) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an integer in [0, %llu]", where,
                       sep(where), key, (unsigned long long)max);
    }
    *out = (uint64_t)v;
    return RILL_OK;
}

/* An optional index into an array of `count` items; absent -> -1. */
static rill_result js_index(rd *r, const rill__gj *obj, const char *key, const char *where,
                            uint32_t count, const char *what, int32_t *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = -1;
    if (!it) {
        return RILL_OK;
    }
    double v = rill__gj_num(it);
    if (!rill__gj_is_number(it) || !isfinite(v) || v != floor(v)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an index", where, sep(where), key);
    }
    if (v < 0.0 || v >= (double)count) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s%s%s: %s %.0f out of range (%u)", where, sep(where),
                       key, what, v, count);
    }
    *out = (int32_t)v;
    return RILL_OK;
}

static rill_result js_float(rd *r, const rill__gj *obj, const char *key, const char *where,
                            float def, float *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (!it) {
        *out = def;
        return RILL_OK;
    }
    double num = rill__gj_num(it);
    if (!rill__gj_is_number(it)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected a number", where, sep(where), key);
    }
    if (!isfinite(num) || fabs(num) > 3.0e38) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s%s%s: not a finite number (NaN, infinite or "
                       "beyond the float range)",
                       where, sep(where), key);
    }
    *out = (float)num;
    return RILL_OK;
}

static rill_result js_floats(rd *r, const rill__gj *obj, const char *key, const char *where, int n,
                             float *out, bool *present) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (present) {
        *present = it != NULL;
    }
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_array(it) || (int)it->count != n) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an array of %d numbers", where,
                       sep(where), key, n);
    }
    int i = 0;
    const rill__gj *e;
    RILL__GJ_FOR(e, it) {
        double num = rill__gj_num(e);
        if (!rill__gj_is_number(e)) {
            return rd_fail(r, RILL_ERR_PARSE, "%s%s%s[%d]: expected a number", where, sep(where),
                           key, i);
        }
        if (!isfinite(num) || fabs(num) > 3.0e38) {
            return rd_fail(r, RILL_ERR_CORRUPT,
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
static rill_result check_world_limit(rd *r, const char *where, const char *key, const float *v,
                                     int n) {
    for (int i = 0; i < n; i++) {
        if (!(fabsf(v[i]) <= RILL_WORLD_LIMIT)) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s%s%s[%d]: %g is beyond the world limit +-%g",
                           where, sep(where), key, i, (double)v[i], (double)RILL_WORLD_LIMIT);
        }
    }
    return RILL_OK;
}

static rill_result js_bool(rd *r, const rill__gj *obj, const char *key, const char *where,
                           bool *out) {
    const rill__gj *it = rill__gj_get(obj, key);
    if (!it) {
        *out = false;
        return RILL_OK;
    }
    if (!rill__gj_is_bool(it)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected true or false", where, sep(where), key);
    }
    *out = (it->type == RILL__GJ_TRUE);
    return RILL_OK;
}

/* An optional string; *out points into the JSON tree (NULL when absent). */
static rill_result js_str(rd *r, const rill__gj *obj, const char *key, const char *where,
                          const char **out) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = NULL;
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_string(it) || !it->u.str) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected a string", where, sep(where), key);
    }
    *out = it->u.str;
    return RILL_OK;
}

static rill_result js_name(rd *r, const rill__gj *obj, const char *where, char **out) {
    const char *s;
    RILL_TRY(js_str(r, obj, "name", where, &s));
    *out = NULL;
    if (s) {
        *out = rill__gltf_strdup(s);
        if (!*out) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.name: out of memory", where);
        }
    }
    return RILL_OK;
}

/* A top-level or nested optional array; *out_count = 0 when absent. */
static rill_result js_array(rd *r, const rill__gj *obj, const char *key, const char *where,
                            const rill__gj **out, uint32_t *out_count) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = NULL;
    *out_count = 0;
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_array(it)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an array", where, sep(where), key);
    }
    int n = (int)it->count;
    if (n < 0 || (uint32_t)n > MAX_JSON_ARRAY) {
        return rd_fail(r, RILL_ERR_LIMIT, "%s%s%s: too many entries", where, sep(where), key);
    }
    *out = it;
    *out_count = (uint32_t)n;
    return RILL_OK;
}

static rill_result js_object(rd *r, const rill__gj *it, const char *where) {
    if (!rill__gj_is_object(it)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s: expected an object", where);
    }
    return RILL_OK;
}

/* An optional object member; *out = NULL when absent. */
static rill_result js_member_object(rd *r, const rill__gj *obj, const char *key, const char *where,
                                    const rill__gj **out) {
    const rill__gj *it = rill__gj_get(obj, key);
    *out = NULL;
    if (!it) {
        return RILL_OK;
    }
    if (!rill__gj_is_object(it)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s%s: expected an object", where, sep(where), key);
    }
    *out = it;
    return RILL_OK;
}

/* glTF requires every "extensions" value to be an object of objects, also for extensions the
 * reader does not use; checking them keeps malformed files from passing as valid. */
static rill_result check_extensions(rd *r, const rill__gj *obj, const char *where) {
    const rill__gj *ext;
    RILL_TRY(js_member_object(r, obj, "extensions", where, &ext));
    const rill__gj *e;
    RILL__GJ_FOR(e, ext) {
        if (!rill__gj_is_object(e)) {
            return rd_fail(r, RILL_ERR_PARSE, "%s%sextensions.%s: expected an object", where,
                           sep(where), e->key ? e->key : "?");
        }
    }
    return RILL_OK;
}

/* >>uris -------------------------------------------------------------------------------------- */

static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+' || c == '-') {
        return 62;
    }
    if (c == '/' || c == '_') {
        return 63;
    }
    return -1;
}

/* Decodes a data: URI ("data:[mime][;base64],payload"). Only base64 payloads are accepted, as
 * glTF requires. *out_mime points into uri (not NUL-terminated; length in *out_mime_len). */
static rill_result decode_data_uri(rd *r, const char *uri, const char *where, uint8_t **out,
                                   size_t *out_size, const char **out_mime, size_t *out_mime_len) {
    const char *comma = strchr(uri, ',');
    if (!comma) {
        return rd_fail(r, RILL_ERR_PARSE, "%s: data URI without ','", where);
    }
    const char *meta = uri + 5;
    size_t meta_len = (size_t)(comma - meta);
    if (meta_len < 7 || memcmp(comma - 7, ";base64", 7) != 0) {
        return rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: only base64 data URIs are supported", where);
    }
    *out_mime = meta;
    *out_mime_len = meta_len - 7;
    const char *p = comma + 1;
    size_t len = strlen(p);
    while (len > 0 && p[len - 1] == '=') {
        len--;
    }
    size_t cap = len / 4 * 3 + 3;
    RILL_TRY(rd_charge(r, cap, where, ": data URI"));
    uint8_t *dst = rill_malloc_tagged(cap, RILL_MEM_FORMATS);
    if (!dst) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((unsigned char)p[i]);
        if (v < 0) {
            rill_free(dst);
            return rd_fail(r, RILL_ERR_PARSE, "%s: invalid base64 at character %zu", where, i);
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dst[n++] = (uint8_t)(acc >> bits);
        }
    }
    *out = dst;
    *out_size = n;
    return RILL_OK;
}

/* How far a relative path climbs above its starting folder ("../a/../../b" climbs 2). */
static uint32_t path_climb(const char *p) {
    int64_t depth = 0, low = 0;
    while (*p) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            depth--;
        } else if (n && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        low = depth < low ? depth : low;
        p += n + (p[n] != '\0');
    }
    return (uint32_t)RILL_MIN(-low, (int64_t)UINT32_MAX);
}

/* Percent-decodes a relative URI and normalizes it into dst. Absolute paths, other schemes and
 * paths that climb more than r->up_levels folders above the model's (out of the project) are
 * refused, so a hostile file cannot make the reader open arbitrary files. A URI that climbs k
 * folders keeps k leading "../" segments, followed by the rest normalized. */
static rill_result resolve_relative_uri(rd *r, const char *uri, const char *where, char *dst,
                                        size_t cap) {
    char dec[1024], tmp[1100];
    if (!rill_uri_decode(dec, sizeof(dec), uri)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s: invalid or too long URI", where);
    }
    if (!rill_uri_is_relative_path(dec)) {
        return rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: URI \"%s\" is not a relative path", where,
                       dec);
    }
    uint32_t climb = path_climb(dec);
    if (climb > r->up_levels) {
        return rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: URI \"%s\" leaves the %s", where, dec,
                       r->up_levels ? "project root" : "model's folder");
    }
    /* Under `climb` placeholder folders the path no longer leaves its root; every placeholder
     * is consumed by the deepest climb, so none is left in the normalized rest. */
    size_t n = 0;
    for (uint32_t i = 0; i < climb && n + 2 < sizeof(tmp); i++) {
        tmp[n++] = '_', tmp[n++] = '/';
    }
    size_t len = strlen(dec);
    if (n + len + 1 > sizeof(tmp)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s: invalid or too long URI", where);
    }
    memcpy(tmp + n, dec, len + 1);
    if (!rill_path_normalize(tmp, sizeof(tmp), tmp) || 3u * climb + strlen(tmp) + 1 > cap) {
        return rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: URI \"%s\" leaves the model's folder", where,
                       dec);
    }
    size_t o = 0;
    for (uint32_t i = 0; i < climb; i++) {
        memcpy(dst + o, "../", 3);
        o += 3;
    }
    memcpy(dst + o, tmp, strlen(tmp) + 1);
    if (o && !tmp[0]) {
        dst[o - 1] = '\0'; /* "../" alone names the folder */
    }
    return RILL_OK;
}

uint32_t rill_gltf_folder_depth(const char *dir) {
    uint32_t n = 0;
    while (dir && *dir) {
        size_t len = strcspn(dir, "/\\");
        n += len && !(len == 1 && dir[0] == '.');
        dir += len + (dir[len] != '\0');
    }
    return n;
}

/* base_dir joined with a path from resolve_relative_uri: each leading "../" takes the last
 * folder off base_dir (lexically: base_dir may be absolute or project-relative). */
static bool join_up(char *dst, size_t cap, const char *base_dir, const char *rel) {
    char base[1024];
    if ((size_t)snprintf(base, sizeof(base), "%s", base_dir) >= sizeof(base)) {
        return false;
    }
    while (strncmp(rel, "../", 3) == 0) {
        char *slash = strrchr(base, '/');
        if (!slash) {
            base[0] = '\0';
        } else {
            *slash = '\0';
        }
        rel += 3;
    }
    return rill_path_join(dst, cap, base, rel);
}

/* user is the base folder: external files are read confined to it (rill_file_open), so a link
 * beside the model cannot lead the read out of the model's folder. */
static rill_result default_read_file(const char *path, uint8_t **out_data, size_t *out_size,
                                     void *user, rill_error *err) {
    return rill_file_read_all_in((const char *)user, path, 0, out_data, out_size, err);
}

/* >>buffers ----------------------------------------------------------------------------------- */

/* A buffer EXT_meshopt_compression marks as the fallback of compressed views: it may have no
 * bytes (no uri), since only a reader without the extension would read it. */
static bool is_meshopt_fallback(const rill__gj *buffer) {
    const rill__gj *ext = rill__gj_get(rill__gj_get(buffer, "extensions"), MESHOPT_EXT);
    const rill__gj *fb = rill__gj_get(ext, "fallback");
    return fb && fb->type == RILL__GJ_TRUE;
}

static rill_result read_buffers(rd *r) {
    const rill__gj *arr;
    RILL_TRY(js_array(r, r->root, "buffers", "", &arr, &r->buffer_count));
    if (r->buffer_count) {
        r->buffers = rill__gltf_alloc(r->buffer_count, sizeof(rd_buffer));
        if (!r->buffers) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "buffers: out of memory");
        }
    }
    uint32_t i = 0;
    const rill__gj *b;
    RILL__GJ_FOR(b, arr) {
        char where[64];
        index_path(where, sizeof(where), "buffers", i);
        RILL_TRY(js_object(r, b, where));
        uint64_t byte_length;
        if (!rill__gj_get(b, "byteLength")) {
            return rd_fail(r, RILL_ERR_PARSE, "%s.byteLength: missing", where);
        }
        RILL_TRY(js_uint(r, b, "byteLength", where, 0, r->max_bytes, &byte_length));
        const char *uri;
        RILL_TRY(js_str(r, b, "uri", where, &uri));
        rd_buffer *buf = &r->buffers[i];
        char uwhere[80];
        snprintf(uwhere, sizeof(uwhere), "%s.uri", where);
        if (!uri && is_meshopt_fallback(b)) {
            /* Only compressed views may use it (read_views checks): it has no bytes. */
            buf->data = NULL;
            buf->size = (size_t)byte_length;
            buf->owned = false;
        } else if (!uri) {
            /* The GLB-stored buffer: only the first buffer may use the BIN chunk. */
            if (i != 0 || !r->bin) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s: no uri and no GLB BIN chunk", where);
            }
            if (byte_length > r->bin_size) {
                return rd_fail(r, RILL_ERR_TRUNCATED,
                               "%s.byteLength: %llu larger than the BIN chunk (%zu bytes)", where,
                               (unsigned long long)byte_length, r->bin_size);
            }
            buf->data = (uint8_t *)r->bin;
            buf->size = (size_t)byte_length;
            buf->owned = false;
        } else if (strncmp(uri, "data:", 5) == 0) {
            const char *mime;
            size_t mime_len;
            RILL_TRY(decode_data_uri(r, uri, uwhere, &buf->data, &buf->size, &mime, &mime_len));
            buf->owned = true;
            if (buf->size < byte_length) {
                return rd_fail(r, RILL_ERR_TRUNCATED, "%s: %zu bytes, byteLength says %llu", uwhere,
                               buf->size, (unsigned long long)byte_length);
            }
            buf->size = (size_t)byte_length;
        } else {
            char rel[1024], full[2048];
            RILL_TRY(resolve_relative_uri(r, uri, uwhere, rel, sizeof(rel)));
            if (!r->base_dir) {
                return rd_fail(r, RILL_ERR_UNSUPPORTED,
                               "%s: external buffer \"%s\" but no folder to resolve it", uwhere,
                               rel);
            }
            if (!join_up(full, sizeof(full), r->base_dir, rel)) {
                return rd_fail(r, RILL_ERR_LIMIT, "%s: path too long", uwhere);
            }
            rill_error ferr;
            rill_error_clear(&ferr);
            uint8_t *data = NULL;
            size_t size = 0;
            rill_result res = r->read_file(full, &data, &size, r->read_file_user, &ferr);
            if (res != RILL_OK) {
                return rd_fail(r, res, "%s: cannot read \"%s\": %s", uwhere, full, ferr.msg);
            }
            buf->data = data;
            buf->owned = true;
            r->input += size;
            RILL_TRY(rd_charge(r, size, uwhere, ""));
            if (size < byte_length) {
                return rd_fail(r, RILL_ERR_TRUNCATED,
                               "%s: \"%s\" has %zu bytes, byteLength says %llu", uwhere, full, size,
                               (unsigned long long)byte_length);
            }
            buf->size = (size_t)byte_length;
        }
        i++;
    }
    return RILL_OK;
}

/* An EXT_meshopt_compression enum member by name (a missing filter is NONE); anything else is
 * refused with the accepted names. */
static rill_result meshopt_enum(rd *r, const rill__gj *ext, const char *key, const char *where,
                                const char *const *names, int count, int *out) {
    const char *name;
    RILL_TRY(js_str(r, ext, key, where, &name));
    for (int k = 0; name && k < count; k++) {
        if (strcmp(name, names[k]) == 0) {
            *out = k;
            return RILL_OK;
        }
    }
    if (!name && strcmp(key, "filter") == 0) {
        *out = 0; /* NONE */
        return RILL_OK;
    }
    char list[96];
    size_t n = 0;
    for (int k = 0; k < count && n < sizeof(list); k++) {
        const char *join = k == 0 ? "" : k + 1 == count ? " or " : ", ";
        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", join, names[k]);
    }
    return rd_fail(r, RILL_ERR_PARSE, "%s.%s: expected %s", where, key, list);
}

/* An EXT_meshopt_compression view: decodes its compressed range into view->decoded, which then
 * stands for the view's bytes (count * byteStride of them, the view's byteLength). */
static rill_result read_meshopt_view(rd *r, const rill__gj *v, const char *view_where,
                                     rd_view *view) {
    const rill__gj *exts, *ext;
    char where[128];
    snprintf(where, sizeof(where), "%s.extensions", view_where);
    RILL_TRY(js_member_object(r, v, "extensions", view_where, &exts));
    RILL_TRY(js_member_object(r, exts, MESHOPT_EXT, where, &ext));
    if (!ext) {
        return RILL_OK;
    }
    snprintf(where, sizeof(where), "%s.extensions.%s", view_where, MESHOPT_EXT);
    static const char *const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char *const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    int32_t buffer;
    uint64_t offset = 0, length, stride, count;
    int mode = 0, filter = 0;
    RILL_TRY(js_index(r, ext, "buffer", where, r->buffer_count, "buffer", &buffer));
    RILL_TRY(js_uint(r, ext, "byteOffset", where, 0, UINT64_MAX >> 1, &offset));
    RILL_TRY(js_uint(r, ext, "byteLength", where, 0, UINT64_MAX >> 1, &length));
    RILL_TRY(js_uint(r, ext, "byteStride", where, 0, 256, &stride));
    RILL_TRY(js_uint(r, ext, "count", where, 0, UINT32_MAX, &count));
    RILL_TRY(meshopt_enum(r, ext, "mode", where, modes, 3, &mode));
    RILL_TRY(meshopt_enum(r, ext, "filter", where, filters, 4, &filter));
    const rd_buffer *src = buffer >= 0 ? &r->buffers[buffer] : NULL;
    if (!src || !src->data || offset > src->size || length > src->size - offset) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s: compressed bytes [%llu, +%llu) not in a buffer "
                       "with data",
                       where, (unsigned long long)offset, (unsigned long long)length);
    }
    rill__gltf_meshopt m = {count, (uint32_t)stride, (rill__meshopt_mode)mode,
                            (rill__meshopt_filter)filter};
    const char *why = rill__gltf_meshopt_check(&m);
    if (why) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s: %s", where, why);
    }
    if (count * stride != view->length) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s: count * byteStride is %llu, the view's "
                       "byteLength %zu",
                       where, (unsigned long long)(count * stride), view->length);
    }
    RILL_TRY(rd_charge(r, view->length, where, ""));
    view->decoded = rill__gltf_alloc_raw(view->length, 1);
    if (!view->decoded) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    if (!rill__gltf_meshopt_decode(view->decoded, &m, src->data + offset, (size_t)length)) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s: the compressed data does not decode", where);
    }
    return RILL_OK;
}

static rill_result read_views(rd *r) {
    const rill__gj *arr;
    RILL_TRY(js_array(r, r->root, "bufferViews", "", &arr, &r->view_count));
    if (r->view_count) {
        r->views = rill__gltf_alloc(r->view_count, sizeof(rd_view));
        if (!r->views) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "bufferViews: out of memory");
        }
    }
    uint32_t i = 0;
    const rill__gj *v;
    RILL__GJ_FOR(v, arr) {
        char where[64];
        index_path(where, sizeof(where), "bufferViews", i);
        RILL_TRY(js_object(r, v, where));
        int32_t buffer;
        RILL_TRY(js_index(r, v, "buffer", where, r->buffer_count, "buffer", &buffer));
        if (buffer < 0) {
            return rd_fail(r, RILL_ERR_PARSE, "%s.buffer: missing", where);
        }
        uint64_t offset = 0, length = 0, stride = 0;
        RILL_TRY(js_uint(r, v, "byteOffset", where, 0, UINT64_MAX >> 1, &offset));
        if (!rill__gj_get(v, "byteLength")) {
            return rd_fail(r, RILL_ERR_PARSE, "%s.byteLength: missing", where);
        }
        RILL_TRY(js_uint(r, v, "byteLength", where, 0, UINT64_MAX >> 1, &length));
        RILL_TRY(js_uint(r, v, "byteStride", where, 0, 252, &stride));
        if (stride != 0 && stride < 4) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s.byteStride: %llu below 4", where,
                           (unsigned long long)stride);
        }
        size_t bsize = r->buffers[buffer].size;
        if (offset > bsize || length > bsize - offset) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s: bytes [%llu, +%llu) outside buffer %d (%zu bytes)", where,
                           (unsigned long long)offset, (unsigned long long)length, buffer, bsize);
        }
        rd_view *view = &r->views[i];
        *view = (rd_view){(uint32_t)buffer, (size_t)offset, (size_t)length, (uint32_t)stride, NULL};
        RILL_TRY(read_meshopt_view(r, v, where, view));
        if (!view->decoded && !r->buffers[buffer].data && length) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s: buffer %d is an EXT_meshopt_compression fallback without bytes",
                           where, buffer);
        }
        i++;
    }
    return RILL_OK;
}

/* >>accessors --------------------------------------------------------------------------------- */

/* An accessor's JSON, checked once and cached (a primitive's attributes and several primitives
 * may name the same accessor). */
typedef struct rd_accessor {
    uint32_t comps;     /* 1..4, 9, 16 */
    uint32_t component; /* GL component type */
    uint32_t comp_size; /* bytes */
    uint32_t count;
    bool normalized;
    int32_t view;    /* -1 = none (zeros, or sparse values only) */
    uint64_t offset; /* byteOffset inside the view */
    const rill__gj *sparse;
} rd_accessor;

static uint32_t component_size(uint32_t ct) {
    switch (ct) {
    case GL_BYTE:
    case GL_UNSIGNED_BYTE:
        return 1;
    case GL_SHORT:
    case GL_UNSIGNED_SHORT:
        return 2;
    case GL_UNSIGNED_INT:
    case GL_FLOAT:
        return 4;
    default:
        return 0;
    }
}

static uint32_t type_comps(const char *type) {
    static const struct {
        const char *name;
        uint32_t n;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
                 {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
    for (size_t i = 0; i < RILL_COUNTOF(types); i++) {
        if (strcmp(type, types[i].name) == 0) {
            return types[i].n;
        }
    }
    return 0;
}

static uint32_t read_uint(const uint8_t *p, uint32_t ct) {
    if (ct == GL_UNSIGNED_BYTE) {
        return p[0];
    }
    if (ct == GL_UNSIGNED_SHORT) {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Every number of an accessor's optional min/max must be finite: NaN or infinity there means a
 * broken exporter, and tools trust these bounds for culling. */
static rill_result check_min_max(rd *r, const rill__gj *a, const char *aw, uint32_t comps) {
    static const char *keys[2] = {"min", "max"};
    for (int k = 0; k < 2; k++) {
        const rill__gj *arr = rill__gj_get(a, keys[k]);
        if (!arr) {
            continue;
        }
        if (!rill__gj_is_array(arr) || arr->count != comps) {
            return rd_fail(r, RILL_ERR_PARSE, "%s.%s: expected an array of %u numbers", aw, keys[k],
                           comps);
        }
        uint32_t i = 0;
        const rill__gj *e;
        RILL__GJ_FOR(e, arr) {
            if (!rill__gj_num_finite(e)) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s.%s[%u]: not a finite number", aw, keys[k],
                               i);
            }
            i++;
        }
    }
    return RILL_OK;
}

/* Checks accessor `index` (its JSON once; later calls hit the cache). */
static rill_result accessor_info(rd *r, int32_t index, const rd_accessor **out) {
    rd_accessor *info = &r->acc_info[index];
    *out = info;
    if (r->acc_state[index]) {
        return RILL_OK;
    }
    char aw[40];
    snprintf(aw, sizeof(aw), "accessors[%d]", index);
    const rill__gj *a = r->acc_nodes[index];
    RILL_TRY(js_object(r, a, aw));
    const char *type;
    RILL_TRY(js_str(r, a, "type", aw, &type));
    uint32_t comps = type ? type_comps(type) : 0;
    if (!comps) {
        return rd_fail(r, RILL_ERR_PARSE, "%s.type: missing or unknown", aw);
    }
    uint64_t ct = 0, count = 0, offset = 0;
    RILL_TRY(js_uint(r, a, "componentType", aw, 0, UINT32_MAX, &ct));
    uint32_t csize = component_size((uint32_t)ct);
    if (!csize) {
        return rd_fail(r, RILL_ERR_PARSE, "%s.componentType: missing or unknown", aw);
    }
    if (!rill__gj_get(a, "count")) {
        return rd_fail(r, RILL_ERR_PARSE, "%s.count: missing", aw);
    }
    RILL_TRY(js_uint(r, a, "count", aw, 0, UINT32_MAX, &count));
    if (count == 0) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.count: zero", aw);
    }
    if (count * comps * sizeof(float) > r->max_bytes) {
        return rd_fail(r, RILL_ERR_LIMIT,
                       "%s: %llu elements would decode to more than the model_bytes limit of %zu "
                       "(" RD_RAISE_HINT ")",
                       aw, (unsigned long long)count, r->max_bytes);
    }
    RILL_TRY(js_uint(r, a, "byteOffset", aw, 0, UINT64_MAX >> 1, &offset));
    bool normalized = false;
    RILL_TRY(js_bool(r, a, "normalized", aw, &normalized));
    int32_t view;
    RILL_TRY(js_index(r, a, "bufferView", aw, r->view_count, "bufferView", &view));
    RILL_TRY(check_min_max(r, a, aw, comps));
    const rill__gj *sparse;
    RILL_TRY(js_member_object(r, a, "sparse", aw, &sparse));
    uint32_t elem = comps * csize;
    if (view >= 0) {
        /* Matrices of 1- and 2-byte components have column padding; Rill's attributes never use
         * matrices, so they are read as plain packed vectors only when unpadded. */
        uint32_t stride = r->views[view].stride ? r->views[view].stride : elem;
        if (stride < elem) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s: byteStride %u smaller than the element (%u)",
                           aw, stride, elem);
        }
        const rd_view *v = &r->views[view];
        uint64_t need = offset + (uint64_t)stride * (count - 1u) + elem; /* no wrap: see limits */
        if (offset > v->length || need > v->length) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s: needs %llu bytes of bufferView %d which has %zu", aw,
                           (unsigned long long)need, view, v->length);
        }
    }
    *info = (rd_accessor){comps,      (uint32_t)ct, csize,  (uint32_t)count,
                          normalized, view,         offset, sparse};
    r->acc_state[index] = 1;
    return RILL_OK;
}

/* The first byte of a view: its decoded bytes when it was compressed, else its buffer's. */
static const uint8_t *view_bytes(const rd *r, const rd_view *v) {
    return v->decoded ? v->decoded : r->buffers[v->buffer].data + v->offset;
}

/* A checked byte range of a view: `count` elements of `elem` bytes, `stride` apart, starting at
 * `offset` inside the view. */
static rill_result view_range(rd *r, int32_t view, uint64_t offset, uint32_t count, uint32_t elem,
                              uint32_t stride, const char *where, const uint8_t **out) {
    const rd_view *v = &r->views[view];
    uint64_t need = offset + (uint64_t)stride * (count - 1u) + elem; /* count >= 1, no wrap */
    if (offset > v->length || need > v->length) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s: needs %llu bytes of bufferView %d which has %zu",
                       where, (unsigned long long)need, view, v->length);
    }
    *out = view_bytes(r, v) + offset;
    return RILL_OK;
}

static const uint8_t *accessor_src(rd *r, const rd_accessor *a, uint32_t *stride) {
    const rd_view *v = &r->views[a->view];
    *stride = v->stride ? v->stride : a->comps * a->comp_size;
    return view_bytes(r, v) + a->offset;
}

/* Applies an accessor's sparse substitution to dst (count * comps floats). */
static rill_result apply_sparse(rd *r, int32_t index, const rd_accessor *a, float *dst) {
    char sw[64];
    snprintf(sw, sizeof(sw), "accessors[%d].sparse", index);
    const rill__gj *sparse = a->sparse;
    uint64_t scount;
    const rill__gj *si = NULL, *sv = NULL;
    RILL_TRY(js_uint(r, sparse, "count", sw, 0, a->count, &scount));
    RILL_TRY(js_member_object(r, sparse, "indices", sw, &si));
    RILL_TRY(js_member_object(r, sparse, "values", sw, &sv));
    if (!si || !sv || scount == 0) {
        return rd_fail(r, RILL_ERR_PARSE, "%s: needs count >= 1, indices and values", sw);
    }
    int32_t iview = -1, vview = -1;
    uint64_t ioff = 0, voff = 0, ict = 0;
    char iw[80], vw[80];
    snprintf(iw, sizeof(iw), "%s.indices", sw);
    snprintf(vw, sizeof(vw), "%s.values", sw);
    RILL_TRY(js_index(r, si, "bufferView", iw, r->view_count, "bufferView", &iview));
    RILL_TRY(js_index(r, sv, "bufferView", vw, r->view_count, "bufferView", &vview));
    if (iview < 0 || vview < 0) {
        return rd_fail(r, RILL_ERR_PARSE, "%s: indices and values need a bufferView", sw);
    }
    RILL_TRY(js_uint(r, si, "byteOffset", iw, 0, UINT64_MAX >> 1, &ioff));
    RILL_TRY(js_uint(r, sv, "byteOffset", vw, 0, UINT64_MAX >> 1, &voff));
    RILL_TRY(js_uint(r, si, "componentType", iw, 0, UINT32_MAX, &ict));
    if (ict != GL_UNSIGNED_BYTE && ict != GL_UNSIGNED_SHORT && ict != GL_UNSIGNED_INT) {
        return rd_fail(r, RILL_ERR_PARSE, "%s.componentType: must be an unsigned integer", iw);
    }
    uint32_t elem = a->comps * a->comp_size;
    const uint8_t *ip = NULL, *vp = NULL;
    uint32_t isize = component_size((uint32_t)ict);
    RILL_TRY(view_range(r, iview, ioff, (uint32_t)scount, isize, isize, iw, &ip));
    RILL_TRY(view_range(r, vview, voff, (uint32_t)scount, elem, elem, vw, &vp));
    for (uint64_t k = 0; k < scount; k++) {
        uint32_t target = read_uint(ip + k * isize, (uint32_t)ict);
        if (target >= a->count) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s: index %u out of range (%u)", iw, target,
                           a->count);
        }
        rill__gltf_decode_floats(dst + (size_t)target * a->comps, vp + k * elem, 1, a->comps, elem,
                                 a->component, a->normalized);
    }
    return RILL_OK;
}

/* What a decode also checks. Tightly packed float data (nearly every file) is checked while it is
 * copied; anything else is decoded first and checked after. */
typedef enum rd_check_kind {
    CHECK_NONE,
    CHECK_POSITIONS,
    CHECK_NORMALS,
    CHECK_FINITE
} rd_check_kind;

typedef struct rd_check {
    rd_check_kind kind;
    size_t bad;         /* POSITIONS: first non-finite vertex; FINITE: first non-finite float */
    bool unit;          /* NORMALS: every normal already unit length */
    float lo[3], hi[3]; /* POSITIONS: bounds */
} rd_check;

static void run_check(rd_check *c, float *dst, const uint8_t *src, size_t count, uint32_t comps) {
    if (src) {
        switch (c->kind) {
        case CHECK_POSITIONS:
            c->bad = rill__gltf_copy_positions(dst, src, count, c->lo, c->hi);
            break;
        case CHECK_NORMALS:
            c->unit = rill__gltf_copy_normals(dst, src, count);
            break;
        default:
            c->bad = rill__gltf_copy_finite(dst, src, count * comps);
            break;
        }
        return;
    }
    switch (c->kind) {
    case CHECK_POSITIONS:
        c->bad = rill__gltf_check_positions(dst, count, c->lo, c->hi);
        break;
    case CHECK_NORMALS:
        c->unit = rill__gltf_normals_unit(dst, count);
        break;
    case CHECK_FINITE:
        c->bad = rill__gltf_first_non_finite(dst, count * comps);
        break;
    default:
        break;
    }
}

/* Decodes accessor `index` (already checked by accessor_info) to count * comps floats, making
 * the check `chk` asks for (may be NULL). `where` and `key` name the referencing JSON path. */
static rill_result accessor_floats(rd *r, int32_t index, const rd_accessor *a, const char *where,
                                   const char *key, rd_check *chk, float **out) {
    *out = NULL;
    uint64_t total = (uint64_t)a->count * a->comps;
    RILL_TRY(rd_charge(r, total * sizeof(float), where, key));
    float *dst = rill__gltf_alloc_raw((size_t)total, sizeof(float));
    if (!dst) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s%s: out of memory", where, key);
    }
    bool checked = false;
    if (a->view >= 0) {
        uint32_t stride;
        const uint8_t *src = accessor_src(r, a, &stride);
        if (chk && chk->kind != CHECK_NONE && a->component == GL_FLOAT && stride == a->comps * 4u &&
            !a->sparse) {
            run_check(chk, dst, src, a->count, a->comps);
            checked = true;
        } else {
            rill__gltf_decode_floats(dst, src, a->count, a->comps, stride, a->component,
                                     a->normalized);
        }
    } else {
        /* No bufferView: zeros, as the spec says (then the sparse values, if any). */
        memset(dst, 0, (size_t)total * sizeof(float));
    }
    if (a->sparse) {
        rill_result res = apply_sparse(r, index, a, dst);
        if (res != RILL_OK) {
            rill_free(dst);
            return res;
        }
    }
    if (chk && !checked) {
        run_check(chk, dst, NULL, a->count, a->comps);
    }
    *out = dst;
    return RILL_OK;
}

/* Reads an index-like accessor (SCALAR, unsigned integer, not normalized) straight into u32
 * values, each checked to be < limit. */
static rill_result accessor_indices(rd *r, int32_t index, const char *where, const char *key,
                                    uint32_t limit, uint32_t **out, uint32_t *out_count) {
    *out = NULL;
    const rd_accessor *a;
    RILL_TRY(accessor_info(r, index, &a));
    if (a->comps != 1 || a->normalized ||
        (a->component != GL_UNSIGNED_BYTE && a->component != GL_UNSIGNED_SHORT &&
         a->component != GL_UNSIGNED_INT)) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s%s: accessor %d must be SCALAR unsigned byte/short/int, not normalized",
                       where, key, index);
    }
    if (a->view < 0 || a->sparse) {
        /* Rare in index data; the float path handles zeros and sparse substitution, and every
         * value it yields is an integer below 2^32, exact in a float only below 2^24, which the
         * vertex limit (2^24) guarantees for every value that passes the range check. */
        float *f;
        RILL_TRY(rd_charge(r, (uint64_t)a->count * sizeof(uint32_t), where, key));
        RILL_TRY(accessor_floats(r, index, a, where, key, NULL, &f));
        uint32_t *u = rill__gltf_alloc_raw(a->count, sizeof(uint32_t));
        for (uint32_t i = 0; u && i < a->count; i++) {
            if (!(f[i] >= 0.0f) || (double)f[i] >= (double)limit) {
                double v = f[i];
                rill_free(f);
                rill_free(u);
                return rd_fail(r, RILL_ERR_CORRUPT,
                               "%s%s: accessor %d: value %.0f at %u out of range (%u)", where, key,
                               index, v, i, limit);
            }
            u[i] = (uint32_t)f[i];
        }
        rill_free(f);
        if (!u) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s%s: out of memory", where, key);
        }
        *out = u;
        *out_count = a->count;
        return RILL_OK;
    }
    RILL_TRY(rd_charge(r, (uint64_t)a->count * sizeof(uint32_t), where, key));
    uint32_t *u = rill__gltf_alloc_raw(a->count, sizeof(uint32_t));
    if (!u) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s%s: out of memory", where, key);
    }
    uint32_t stride;
    const uint8_t *src = accessor_src(r, a, &stride);
    size_t bad = rill__gltf_decode_indices(u, src, a->count, stride, a->component, limit);
    if (bad != a->count) {
        uint32_t v = u[bad];
        rill_free(u);
        return rd_fail(r, RILL_ERR_CORRUPT, "%s%s: accessor %d: value %u at %zu out of range (%u)",
                       where, key, index, v, bad, limit);
    }
    *out = u;
    *out_count = a->count;
    return RILL_OK;
}

/* >>meshes ------------------------------------------------------------------------------------ */

/* Reads attribute `key` of a primitive, checking its type (comps_a or comps_b components) and,
 * when want_count != 0, its element count. Absent -> *out = NULL. */
static rill_result attribute(rd *r, const rill__gj *attrs, const char *key, const char *where,
                             uint32_t comps_a, uint32_t comps_b, uint32_t want_count, rd_check *chk,
                             float **out, const rd_accessor **info) {
    *out = NULL;
    const rill__gj *it = rill__gj_get(attrs, key);
    if (!it) {
        return RILL_OK;
    }
    /* The JSON path is built with plain copies: this runs for every attribute of every
     * primitive, and formatting it cost more than decoding a small mesh. */
    char kw[160];
    join_path(kw, sizeof(kw), where, ".attributes.");
    double v = rill__gj_num(it);
    if (!rill__gj_is_number(it) || !isfinite(v) || v != floor(v)) {
        return rd_fail(r, RILL_ERR_PARSE, "%s%s: expected an index", kw, key);
    }
    if (v < 0.0 || v >= (double)r->accessor_count) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s%s: accessor %.0f out of range (%u)", kw, key, v,
                       r->accessor_count);
    }
    int32_t idx = (int32_t)v;
    const rd_accessor *a;
    RILL_TRY(accessor_info(r, idx, &a));
    if (a->comps != comps_a && a->comps != comps_b) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s%s: accessor %d has the wrong type", kw, key, idx);
    }
    if (want_count && a->count != want_count) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s%s: accessor %d has %u elements, POSITION has %u",
                       kw, key, idx, a->count, want_count);
    }
    if (!want_count && a->count > (1u << 24)) {
        return rd_fail(r, RILL_ERR_LIMIT, "%s%s: %u vertices (limit 2^24)", kw, key, a->count);
    }
    *info = a;
    return accessor_floats(r, idx, a, kw, key, chk, out);
}

/* Turns strips (mode 5) and fans (mode 6) into lists, in place of *idx. */
static rill_result to_triangle_list(rd *r, int mode, const char *where, uint32_t **idx,
                                    uint32_t *count) {
    uint32_t n = *count;
    if (mode == 4) {
        if (n % 3 != 0) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s: %u indices is not a multiple of 3", where, n);
        }
        return RILL_OK;
    }
    uint32_t tris = n >= 3 ? n - 2 : 0;
    RILL_TRY(rd_charge(r, (uint64_t)tris * 12u, where, ": strip or fan"));
    uint32_t *dst = tris ? rill__gltf_alloc((size_t)tris * 3, sizeof(uint32_t)) : NULL;
    if (tris && !dst) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    const uint32_t *s = *idx;
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t *d = &dst[(size_t)t * 3];
        if (mode == 5) {
            /* Every other strip triangle flips its winding back to the strip's order. */
            d[0] = s[t + (t & 1u)];
            d[1] = s[t + 1 - (t & 1u)];
            d[2] = s[t + 2];
        } else {
            d[0] = s[t + 1];
            d[1] = s[t + 2];
            d[2] = s[0];
        }
    }
    rill_free(*idx);
    *idx = dst;
    *count = tris * 3;
    return RILL_OK;
}

/* glTF asks for flat shading when a primitive has no normals. Every triangle gets its own three
 * vertices (attributes copied), so the normal generator, which accumulates over shared
 * vertices, yields exactly the face normal. An edge buffer read from the file is remapped to the
 * first copy of each vertex (the weld in the edge builder makes copies equivalent). */
static bool unweld_for_flat_normals(rill_gltf_primitive *prim) {
    uint32_t n = prim->index_count;
    uint32_t *first = rill__gltf_alloc(prim->vertex_count, sizeof(uint32_t));
    uint32_t *idx = rill__gltf_alloc(n, sizeof(uint32_t));
    if (!first || !idx) {
        rill_free(first);
        rill_free(idx);
        return false;
    }
    memset(first, 0xFF, (size_t)prim->vertex_count * sizeof(uint32_t));
    uint32_t tc3 = 3 * prim->target_count;
    float **arrays[] = {&prim->positions, &prim->tangents,         &prim->uv0,
                        &prim->uv1,       &prim->colors,           &prim->joints,
                        &prim->weights,   &prim->target_positions, &prim->target_normals};
    const uint32_t comps[] = {3, 4, 2, 2, 4, 4, 4, tc3, tc3};
    bool ok = true;
    for (size_t a = 0; a < RILL_COUNTOF(arrays) && ok; a++) {
        float *src = *arrays[a];
        if (!src) {
            continue;
        }
        float *dst = rill__gltf_alloc((size_t)n * comps[a], sizeof(float));
        if (!dst) {
            ok = false;
            break;
        }
        for (uint32_t i = 0; i < n; i++) {
            memcpy(&dst[(size_t)i * comps[a]], &src[(size_t)prim->indices[i] * comps[a]],
                   comps[a] * sizeof(float));
        }
        rill_free(src);
        *arrays[a] = dst;
    }
    if (ok) {
        for (uint32_t i = 0; i < n; i++) {
            if (first[prim->indices[i]] == UINT32_MAX) {
                first[prim->indices[i]] = i;
            }
            idx[i] = i;
        }
        bool edges_ok = true;
        for (uint32_t k = 0; k < prim->edge_index_count; k++) {
            uint32_t v = first[prim->edge_indices[k]];
            edges_ok = edges_ok && v != UINT32_MAX;
            prim->edge_indices[k] = v;
        }
        if (!edges_ok) {
            /* An edge on a vertex no triangle uses cannot be kept; the buffer is dropped and the
             * renderer falls back to triangle lines. */
            rill_free(prim->edge_indices);
            prim->edge_indices = NULL;
            prim->edge_index_count = 0;
        }
        rill_free(prim->indices);
        prim->indices = idx;
        prim->vertex_count = n;
        idx = NULL;
    }
    rill_free(first);
    rill_free(idx);
    return ok;
}

/* Non-position attributes are sanitized rather than refused: a NaN UV or color is a cosmetic
 * defect, while a NaN position would poison bounds, culling and physics. */
static void sanitize(float *v, size_t n) {
    if (!v || rill__gltf_first_non_finite(v, n) == n) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            v[i] = 0.0f;
        }
    }
}

/* True when the primitive's material samples a normal texture, the only case that needs
 * tangents (glTF: generate them where the file has none). */
static bool needs_tangents(const rd *r, const rill_gltf_primitive *prim) {
    return prim->material >= 0 && r->m->materials[prim->material].normal_texture.texture >= 0;
}

static rill_result read_edges_ext(rd *r, const rill__gj *p, const char *where,
                                  rill_gltf_primitive *prim) {
    const rill__gj *ext, *edges = NULL;
    RILL_TRY(check_extensions(r, p, where));
    RILL_TRY(js_member_object(r, p, "extensions", where, &ext));
    if (!ext) {
        return RILL_OK;
    }
    char ew[192];
    snprintf(ew, sizeof(ew), "%s.extensions", where);
    RILL_TRY(js_member_object(r, ext, RILL_GLTF_EXT_MESH_EDGES, ew, &edges));
    if (!edges) {
        return RILL_OK;
    }
    char xw[256];
    snprintf(xw, sizeof(xw), "%s.%s", ew, RILL_GLTF_EXT_MESH_EDGES);
    int32_t eacc;
    RILL_TRY(js_index(r, edges, "edges", xw, r->accessor_count, "accessor", &eacc));
    if (eacc >= 0) {
        RILL_TRY(accessor_indices(r, eacc, xw, ".edges", prim->vertex_count, &prim->edge_indices,
                                  &prim->edge_index_count));
        if (prim->edge_index_count % 2 != 0) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s.edges: odd number of line indices (%u)", xw,
                           prim->edge_index_count);
        }
    }
    return RILL_OK;
}

/* Bytes one vertex of the primitive takes across its attribute arrays. */
static uint64_t vertex_bytes(const rill_gltf_primitive *prim) {
    return sizeof(float) *
           (3u + 3u + (prim->tangents ? 4u : 0u) + (prim->uv0 ? 2u : 0u) + (prim->uv1 ? 2u : 0u) +
            (prim->colors ? 4u : 0u) + (prim->joints ? 8u : 0u) +
            3u * prim->target_count *
                ((prim->target_positions ? 1u : 0u) + (prim->target_normals ? 1u : 0u)));
}

/* Normals, tangents and bounds after the arrays are read: flat shading where normals are missing,
 * unit normals, tangents where the material needs them. */
static rill_result finish_primitive(rd *r, const char *where, bool normals_unit,
                                    rill_gltf_primitive *prim) {
    if (!prim->normals) {
        if (prim->index_count > (1u << 24)) {
            return rd_fail(r, RILL_ERR_LIMIT,
                           "%s: %u corners to unweld for flat normals (limit 2^24)", where,
                           prim->index_count);
        }
        RILL_TRY(rd_charge(r, (uint64_t)prim->index_count * (vertex_bytes(prim) + 4u), where,
                           ": flat normals"));
        if (!unweld_for_flat_normals(prim)) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        /* Vertices no triangle used are gone: the bounds may have shrunk. */
        rill__gltf_primitive_bounds(prim);
    }
    /* Normals the decode already found unit length need no second look. */
    if (!normals_unit && !rill__gltf_primitive_fix_normals(prim, false)) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    bool gen = needs_tangents(r, prim);
    if (gen || prim->tangents) {
        /* Generation may split vertices whose corners disagree (at most doubling them). */
        uint64_t worst = (uint64_t)prim->vertex_count * (vertex_bytes(prim) + 16u);
        RILL_TRY(rd_charge(r, gen ? worst : 0, where, ": tangents"));
        if (!rill__gltf_primitive_fix_tangents(prim, gen)) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
    }
    /* Bounds were taken while the positions were checked; tangent generation only copies
     * vertices, which keeps them. */
    return RILL_OK;
}

/* JOINTS_0 (VEC4 unsigned byte or short) and WEIGHTS_0 (VEC4 float, or normalized unsigned byte
 * or short), kept only together. Weights must be finite and non-negative; they are normalized to
 * sum 1 (exporters round them), and a vertex whose weights sum to 0 follows its first joint.
 * Joints of weight 0 are set to 0, so only the joints that move a vertex are checked against the
 * skin later (check_skinned_meshes). */
static rill_result read_skin_attributes(rd *r, const rill__gj *attrs, const char *where,
                                        rill_gltf_primitive *prim) {
    uint32_t n = prim->vertex_count;
    const rd_accessor *ji = NULL, *wi = NULL;
    RILL_TRY(attribute(r, attrs, "JOINTS_0", where, 4, 4, n, NULL, &prim->joints, &ji));
    if (prim->joints && (ji->normalized || (ji->component != GL_UNSIGNED_BYTE &&
                                            ji->component != GL_UNSIGNED_SHORT))) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s.attributes.JOINTS_0: must be unsigned byte or short, not normalized",
                       where);
    }
    RILL_TRY(attribute(r, attrs, "WEIGHTS_0", where, 4, 4, n, NULL, &prim->weights, &wi));
    if (prim->weights && wi->component != GL_FLOAT &&
        (!wi->normalized ||
         (wi->component != GL_UNSIGNED_BYTE && wi->component != GL_UNSIGNED_SHORT))) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s.attributes.WEIGHTS_0: must be float or normalized unsigned byte or "
                       "short",
                       where);
    }
    if (!prim->joints || !prim->weights) {
        rill_free(prim->joints);
        rill_free(prim->weights);
        prim->joints = prim->weights = NULL;
        return RILL_OK;
    }
    for (uint32_t v = 0; v < n; v++) {
        float *w = &prim->weights[(size_t)v * 4];
        float sum = 0.0f;
        for (int k = 0; k < 4; k++) {
            if (!(w[k] >= 0.0f) || !isfinite(w[k])) {
                return rd_fail(r, RILL_ERR_CORRUPT,
                               "%s.attributes.WEIGHTS_0: vertex %u: weight %d is negative or not "
                               "finite",
                               where, v, k);
            }
            sum += w[k];
        }
        float *j = &prim->joints[(size_t)v * 4];
        if (!(sum > 0.0f)) {
            w[0] = 1.0f;
            sum = 1.0f;
        }
        /* Rescaled only when visibly off, so a re-read file keeps identical bits. */
        bool rescale = fabsf(sum - 1.0f) > 1e-6f;
        for (int k = 0; k < 4; k++) {
            w[k] = rescale ? w[k] / sum : w[k];
            j[k] = w[k] > 0.0f ? j[k] : 0.0f;
        }
    }
    return RILL_OK;
}

/* One attribute of every morph target into the interleaved array *out (vertex-major). Absent
 * (NULL) when `optional` and no target has it; a target without it displaces nothing. Values
 * must be finite. */
static rill_result target_attribute(rd *r, const rill__gj *targets, const char *where,
                                    const char *key, bool optional, rill_gltf_primitive *prim,
                                    float **out) {
    uint32_t n = prim->vertex_count, tc = prim->target_count, present = 0;
    const rill__gj *t;
    RILL__GJ_FOR(t, targets) {
        present += rill__gj_get(t, key) != NULL;
    }
    if (present == 0 && optional) {
        return RILL_OK;
    }
    uint64_t total = (uint64_t)n * tc * 3u;
    RILL_TRY(rd_charge(r, total * sizeof(float), where, ".targets"));
    *out = rill__gltf_alloc((size_t)total, sizeof(float));
    if (!*out) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.targets: out of memory", where);
    }
    uint32_t k = 0;
    RILL__GJ_FOR(t, targets) {
        char tw[160];
        snprintf(tw, sizeof(tw), "%s.targets[%u]", where, k);
        RILL_TRY(js_object(r, t, tw));
        float *d = NULL;
        const rd_accessor *info = NULL;
        RILL_TRY(attribute(r, t, key, tw, 3, 3, n, NULL, &d, &info));
        if (d) {
            size_t bad = rill__gltf_first_non_finite(d, (size_t)n * 3);
            for (uint32_t v = 0; bad == (size_t)n * 3 && v < n; v++) {
                memcpy(&(*out)[((size_t)v * tc + k) * 3], &d[(size_t)v * 3], 3 * sizeof(float));
            }
            rill_free(d);
            if (bad != (size_t)n * 3) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s.%s: vertex %zu is not finite", tw, key,
                               bad / 3);
            }
        }
        k++;
    }
    return RILL_OK;
}

/* Morph targets: POSITION and NORMAL displacements (TANGENT ones are left out and named in the
 * warning), at most RILL_GLTF_MAX_TARGETS, their bytes charged before they are allocated. */
static rill_result read_targets(rd *r, const rill__gj *p, const char *where,
                                rill_gltf_primitive *prim) {
    const rill__gj *targets;
    uint32_t tc;
    RILL_TRY(js_array(r, p, "targets", where, &targets, &tc));
    if (tc == 0) {
        return RILL_OK;
    }
    if (tc > RILL_GLTF_MAX_TARGETS) {
        return rd_fail(r, RILL_ERR_LIMIT, "%s.targets: %u morph targets (limit %u)", where, tc,
                       RILL_GLTF_MAX_TARGETS);
    }
    prim->target_count = tc;
    RILL_TRY(target_attribute(r, targets, where, "POSITION", true, prim, &prim->target_positions));
    return target_attribute(r, targets, where, "NORMAL", true, prim, &prim->target_normals);
}

static rill_result read_primitive(rd *r, const rill__gj *p, const char *where, bool *out_skip,
                                  rill_gltf_primitive *prim) {
    *out_skip = false;
    RILL_TRY(js_object(r, p, where));
    uint64_t mode = 0;
    RILL_TRY(js_uint(r, p, "mode", where, 4, 6, &mode));
    if (mode < 4) { /* points and lines: counted in the left-out warning (gltf_unkept.c) */
        *out_skip = true;
        return RILL_OK;
    }
    const rill__gj *attrs;
    RILL_TRY(js_member_object(r, p, "attributes", where, &attrs));
    if (!attrs) {
        return rd_fail(r, RILL_ERR_PARSE, "%s.attributes: missing", where);
    }
    RILL_TRY(js_index(r, p, "material", where, r->m->material_count, "material", &prim->material));

    const rd_accessor *info = NULL;
    rd_check pc = {.kind = CHECK_POSITIONS};
    RILL_TRY(attribute(r, attrs, "POSITION", where, 3, 3, 0, &pc, &prim->positions, &info));
    if (!prim->positions) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.attributes.POSITION: missing", where);
    }
    uint32_t n = info->count;
    prim->vertex_count = n;
    if (pc.bad != n) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s.attributes.POSITION: vertex %zu is not finite (NaN or infinite)", where,
                       pc.bad);
    }
    memcpy(prim->bounds_min, pc.lo, sizeof(pc.lo));
    memcpy(prim->bounds_max, pc.hi, sizeof(pc.hi));
    for (int k = 0; k < 3; k++) {
        if (!(fabsf(pc.lo[k]) <= RILL_WORLD_LIMIT && fabsf(pc.hi[k]) <= RILL_WORLD_LIMIT)) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s.attributes.POSITION: vertices span %g to %g on axis %d, beyond the "
                           "world limit +-%g",
                           where, (double)pc.lo[k], (double)pc.hi[k], k, (double)RILL_WORLD_LIMIT);
        }
    }
    rd_check nc = {.kind = CHECK_NORMALS};
    rd_check uc0 = {.kind = CHECK_FINITE}, uc1 = {.kind = CHECK_FINITE};
    RILL_TRY(attribute(r, attrs, "NORMAL", where, 3, 3, n, &nc, &prim->normals, &info));
    RILL_TRY(attribute(r, attrs, "TANGENT", where, 4, 4, n, NULL, &prim->tangents, &info));
    RILL_TRY(attribute(r, attrs, "TEXCOORD_0", where, 2, 2, n, &uc0, &prim->uv0, &info));
    RILL_TRY(attribute(r, attrs, "TEXCOORD_1", where, 2, 2, n, &uc1, &prim->uv1, &info));
    float *col = NULL;
    RILL_TRY(attribute(r, attrs, "COLOR_0", where, 3, 4, n, NULL, &col, &info));
    if (col && info->comps == 3) {
        RILL_TRY(rd_charge(r, (uint64_t)n * 16u, where, ".attributes.COLOR_0"));
        prim->colors = rill__gltf_alloc_raw((size_t)n * 4, sizeof(float));
        if (!prim->colors) {
            rill_free(col);
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        for (uint32_t v = 0; v < n; v++) {
            memcpy(&prim->colors[(size_t)v * 4], &col[(size_t)v * 3], 3 * sizeof(float));
            prim->colors[(size_t)v * 4 + 3] = 1.0f;
        }
        rill_free(col);
    } else {
        prim->colors = col;
    }
    RILL_TRY(read_skin_attributes(r, attrs, where, prim));
    RILL_TRY(read_targets(r, p, where, prim));
    if (prim->uv0 && uc0.bad != (size_t)n * 2) {
        sanitize(prim->uv0, (size_t)n * 2);
    }
    if (prim->uv1 && uc1.bad != (size_t)n * 2) {
        sanitize(prim->uv1, (size_t)n * 2);
    }
    sanitize(prim->colors, (size_t)n * 4);

    int32_t iacc;
    RILL_TRY(js_index(r, p, "indices", where, r->accessor_count, "accessor", &iacc));
    if (iacc >= 0) {
        RILL_TRY(
            accessor_indices(r, iacc, where, ".indices", n, &prim->indices, &prim->index_count));
    } else {
        RILL_TRY(rd_charge(r, (uint64_t)n * 4u, where, ".indices"));
        prim->indices = rill__gltf_alloc_raw(n, sizeof(uint32_t));
        if (!prim->indices) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        for (uint32_t v = 0; v < n; v++) {
            prim->indices[v] = v;
        }
        prim->index_count = n;
    }
    char iw[192];
    join_path(iw, sizeof(iw), where, ".indices");
    RILL_TRY(to_triangle_list(r, (int)mode, iw, &prim->indices, &prim->index_count));
    if (prim->index_count == 0) {
        /* A strip or fan of fewer than three indices draws nothing; like points and lines it is
         * left out, so every primitive in the model has at least one triangle. */
        RILL_LOG_WARN("formats", "%s: %s: no triangles; skipped", r->name, where);
        *out_skip = true;
        return RILL_OK;
    }
    RILL_TRY(read_edges_ext(r, p, where, prim));
    return finish_primitive(r, where, prim->normals && nc.unit, prim);
}

/* An optional "weights" array of morph weights: exactly `want` finite numbers (want 0: the
 * array must be absent or empty). */
static rill_result js_weights(rd *r, const rill__gj *obj, const char *where, uint32_t want,
                              uint32_t *out_count, float **out) {
    const rill__gj *arr;
    uint32_t n;
    *out = NULL;
    *out_count = 0;
    RILL_TRY(js_array(r, obj, "weights", where, &arr, &n));
    if (n == 0) {
        return RILL_OK;
    }
    if (n != want) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.weights: %u weights for %u morph targets", where, n,
                       want);
    }
    *out = rill__gltf_alloc(n, sizeof(float));
    if (!*out) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s.weights: out of memory", where);
    }
    *out_count = n;
    uint32_t k = 0;
    const rill__gj *e;
    RILL__GJ_FOR(e, arr) {
        double v = rill__gj_num(e);
        if (!rill__gj_is_number(e) || !isfinite(v) || fabs(v) > 1e6) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s.weights[%u]: not a finite number", where, k);
        }
        (*out)[k++] = (float)v;
    }
    return RILL_OK;
}

/* Every primitive of a mesh has the same number of morph targets (glTF 2.0, 3.7.2.2); its
 * weights, when given, one per target. */
static rill_result mesh_targets(rd *r, const rill__gj *me, const char *where,
                                rill_gltf_mesh *mesh) {
    uint32_t tc = mesh->primitive_count ? mesh->primitives[0].target_count : 0;
    for (uint32_t p = 1; p < mesh->primitive_count; p++) {
        if (mesh->primitives[p].target_count != tc) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s.primitives[%u].targets: %u morph targets, primitive 0 has %u", where,
                           p, mesh->primitives[p].target_count, tc);
        }
    }
    return js_weights(r, me, where, tc, &mesh->weight_count, &mesh->weights);
}

/* Decoded bytes of accessor `key` of attrs (0 when absent or not a checked accessor: the decode
 * names those errors). */
static uint64_t attribute_bytes(rd *r, const rill__gj *attrs, const char *key, uint32_t *count) {
    const rill__gj *it = rill__gj_get(attrs, key);
    double v = it && rill__gj_is_number(it) ? rill__gj_num(it) : -1.0;
    const rd_accessor *a;
    if (!(v >= 0.0 && v < (double)r->accessor_count && v == floor(v)) ||
        accessor_info(r, (int32_t)v, &a) != RILL_OK) {
        rill_error_clear(r->err);
        return 0;
    }
    *count = a->count;
    return (uint64_t)a->count * a->comps * sizeof(float);
}

/* The least every triangle primitive will decode to (its attributes and indices as floats and
 * u32, and the unwelding for flat normals where NORMAL is missing), summed over the model and
 * checked against the limits before any accessor is decoded: a model past them is refused
 * naming the primitive where the sum crossed, without first spending the time to decode those
 * before it. What the decode charges later is never less than this. */
static rill_result budget_meshes(rd *r, const rill__gj *arr) {
    uint64_t sum = 0;
    uint32_t i = 0;
    const rill__gj *me;
    RILL__GJ_FOR(me, arr) {
        uint32_t pi = 0;
        const rill__gj *p;
        RILL__GJ_FOR(p, rill__gj_get(me, "primitives")) {
            const rill__gj *attrs = rill__gj_get(p, "attributes");
            const rill__gj *mode = rill__gj_get(p, "mode");
            uint32_t n = 0, unused = 0, corners = 0;
            if (!attrs || (mode && (!rill__gj_is_number(mode) || rill__gj_num(mode) < 4.0)) ||
                !attribute_bytes(r, attrs, "POSITION", &n)) {
                pi++;
                continue;
            }
            sum += (uint64_t)n * 12u;
            static const char *const keys[] = {"NORMAL", "TANGENT", "TEXCOORD_0", "TEXCOORD_1",
                                               "COLOR_0"};
            for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                sum += attribute_bytes(r, attrs, keys[k], &unused);
            }
            corners = n;
            const rill__gj *ix = rill__gj_get(p, "indices");
            double iv = ix && rill__gj_is_number(ix) ? rill__gj_num(ix) : -1.0;
            const rd_accessor *a;
            if (iv >= 0.0 && iv < (double)r->accessor_count && iv == floor(iv)) {
                if (accessor_info(r, (int32_t)iv, &a) == RILL_OK) {
                    sum += (uint64_t)a->count * 4u;
                    corners = a->count;
                } else {
                    rill_error_clear(r->err);
                }
            }
            if (!rill__gj_get(attrs, "NORMAL") && corners <= (1u << 24)) {
                sum += (uint64_t)corners * 28u; /* position, normal and an index per corner */
            }
            char pw[128];
            snprintf(pw, sizeof(pw), "meshes[%u].primitives[%u]", i, pi);
            uint64_t before = r->decoded;
            rill_result res = rd_charge(r, sum, pw, ": the primitives up to here");
            r->decoded = before;
            RILL_TRY(res);
            pi++;
        }
        i++;
    }
    return RILL_OK;
}

static rill_result read_meshes(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "meshes", "", &arr, &count));
    RILL_TRY(budget_meshes(r, arr));
    if (count) {
        r->m->meshes = rill__gltf_alloc(count, sizeof(rill_gltf_mesh));
        if (!r->m->meshes) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "meshes: out of memory");
        }
    }
    const rill__gj *me;
    RILL__GJ_FOR(me, arr) {
        uint32_t i = r->m->mesh_count;
        rill_gltf_mesh *mesh = &r->m->meshes[i];
        r->m->mesh_count++; /* counted first so a failure below frees what it holds */
        char where[64];
        index_path(where, sizeof(where), "meshes", i);
        RILL_TRY(js_object(r, me, where));
        RILL_TRY(js_name(r, me, where, &mesh->name));
        const rill__gj *prims;
        uint32_t pc;
        RILL_TRY(js_array(r, me, "primitives", where, &prims, &pc));
        if (pc == 0) {
            return rd_fail(r, RILL_ERR_PARSE, "%s.primitives: missing or empty", where);
        }
        mesh->primitives = rill__gltf_alloc(pc, sizeof(rill_gltf_primitive));
        if (!mesh->primitives) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        uint32_t pi = 0;
        const rill__gj *p;
        RILL__GJ_FOR(p, prims) {
            char pw[128];
            char pfx[80];
            join_path(pfx, sizeof(pfx), where, ".primitives");
            index_path(pw, sizeof(pw), pfx, pi);
            rill_gltf_primitive *prim = &mesh->primitives[mesh->primitive_count];
            prim->material = -1;
            bool skip;
            rill_result res = read_primitive(r, p, pw, &skip, prim);
            if (res != RILL_OK || skip) {
                rill__gltf_primitive_release(prim);
                if (res != RILL_OK) {
                    return res;
                }
                r->m->skipped_primitives++;
            } else {
                mesh->primitive_count++;
            }
            pi++;
        }
        RILL_TRY(mesh_targets(r, me, where, mesh));
    }
    return RILL_OK;
}

/* >>materials, textures, images --------------------------------------------------------------- */

/* KHR_texture_transform on a texture reference: offset [0, 0], rotation 0, scale [1, 1] and an
 * optional texCoord override, as the extension defines them. */
static rill_result texture_transform(rd *r, const rill__gj *t, const char *tw,
                                     rill_gltf_texref *out) {
    out->has_transform = false;
    out->offset[0] = out->offset[1] = 0.0f;
    out->rotation = 0.0f;
    out->uv_scale[0] = out->uv_scale[1] = 1.0f;
    out->transform_texcoord = -1;
    const rill__gj *ext, *x;
    RILL_TRY(js_member_object(r, t, "extensions", tw, &ext));
    if (!ext) {
        return RILL_OK;
    }
    char xw[200];
    snprintf(xw, sizeof(xw), "%s.extensions", tw);
    RILL_TRY(js_member_object(r, ext, RILL_GLTF_EXT_TEXTURE_TRANSFORM, xw, &x));
    if (!x) {
        return RILL_OK;
    }
    snprintf(xw, sizeof(xw), "%s.extensions.%s", tw, RILL_GLTF_EXT_TEXTURE_TRANSFORM);
    out->has_transform = true;
    RILL_TRY(js_floats(r, x, "offset", xw, 2, out->offset, NULL));
    RILL_TRY(js_float(r, x, "rotation", xw, 0.0f, &out->rotation));
    RILL_TRY(js_floats(r, x, "scale", xw, 2, out->uv_scale, NULL));
    if (rill__gj_get(x, "texCoord")) {
        uint64_t tc = 0;
        RILL_TRY(js_uint(r, x, "texCoord", xw, 0, 255, &tc));
        out->transform_texcoord = (int32_t)tc;
    }
    return RILL_OK;
}

static rill_result texref(rd *r, const rill__gj *obj, const char *key, const char *where,
                          const char *scale_key, rill_gltf_texref *out) {
    out->texture = -1;
    out->texcoord = 0;
    out->scale = 1.0f;
    const rill__gj *t;
    RILL_TRY(js_member_object(r, obj, key, where, &t));
    if (!t) {
        return RILL_OK;
    }
    char tw[160];
    snprintf(tw, sizeof(tw), "%s.%s", where, key);
    RILL_TRY(check_extensions(r, t, tw));
    RILL_TRY(js_index(r, t, "index", tw, r->m->texture_count, "texture", &out->texture));
    if (out->texture < 0) {
        return rd_fail(r, RILL_ERR_PARSE, "%s.index: missing", tw);
    }
    uint64_t tc = 0;
    RILL_TRY(js_uint(r, t, "texCoord", tw, 0, 255, &tc));
    out->texcoord = (uint32_t)tc;
    if (scale_key) {
        RILL_TRY(js_float(r, t, scale_key, tw, 1.0f, &out->scale));
    }
    return texture_transform(r, t, tw, out);
}

/* KHR_materials_emissive_strength: a finite, non-negative multiplier of the emissive factor. */
static rill_result emissive_strength(rd *r, const rill__gj *ma, const char *where,
                                     rill_gltf_material *mat) {
    const rill__gj *ext = rill__gj_get(ma, "extensions");
    const rill__gj *es = ext ? rill__gj_get(ext, RILL_GLTF_EXT_EMISSIVE_STRENGTH) : NULL;
    if (!es) {
        return RILL_OK;
    }
    char ew[160];
    snprintf(ew, sizeof(ew), "%s.extensions." RILL_GLTF_EXT_EMISSIVE_STRENGTH, where);
    float v = 1.0f;
    RILL_TRY(js_float(r, es, "emissiveStrength", ew, 1.0f, &v));
    if (v < 0.0f || v > 1e6f) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.emissiveStrength: %g is out of range [0, 1e6]", ew,
                       (double)v);
    }
    if (v == 0.0f) {
        mat->emissive_factor[0] = mat->emissive_factor[1] = mat->emissive_factor[2] = 0.0f;
        return RILL_OK;
    }
    mat->emissive_strength = v == 1.0f ? 0.0f : v;
    return RILL_OK;
}

/* One factor of a material extension: a finite number in [lo, hi], def when absent. */
static rill_result ext_factor(rd *r, const rill__gj *x, const char *key, const char *xw, float def,
                              float lo, float hi, float *out) {
    RILL_TRY(js_float(r, x, key, xw, def, out));
    if (!(*out >= lo && *out <= hi)) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.%s: %g is out of range [%g, %g]", xw, key,
                       (double)*out, (double)lo, (double)hi);
    }
    return RILL_OK;
}

/* KHR_materials_unlit, _ior, _specular and _clearcoat: their factors (their textures are not
 * read; gltf_unkept.c names them). Out-of-range factors refuse the file naming the place. */
static rill_result material_lighting_exts(rd *r, const rill__gj *ma, const char *where,
                                          rill_gltf_material *mat) {
    const rill__gj *ext = rill__gj_get(ma, "extensions"), *x;
    char xw[192];
    mat->unlit = ext && rill__gj_get(ext, RILL_GLTF_EXT_UNLIT);
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_IOR)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_IOR, where);
        RILL_TRY(ext_factor(r, x, "ior", xw, 1.5f, 1.0f, 1e3f, &mat->ior));
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_SPECULAR)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_SPECULAR, where);
        mat->has_specular = true;
        RILL_TRY(ext_factor(r, x, "specularFactor", xw, 1.0f, 0.0f, 1.0f, &mat->specular_factor));
        float c[3] = {1.0f, 1.0f, 1.0f};
        RILL_TRY(js_floats(r, x, "specularColorFactor", xw, 3, c, NULL));
        for (int k = 0; k < 3; k++) {
            if (!(c[k] >= 0.0f && c[k] <= 1e6f)) {
                return rd_fail(r, RILL_ERR_CORRUPT,
                               "%s.specularColorFactor[%d]: %g is out of range [0, 1e6]", xw, k,
                               (double)c[k]);
            }
            mat->specular_color_factor[k] = c[k];
        }
    }
    if (ext && (x = rill__gj_get(ext, RILL_GLTF_EXT_CLEARCOAT)) != NULL) {
        snprintf(xw, sizeof(xw), "%s.extensions." RILL_GLTF_EXT_CLEARCOAT, where);
        RILL_TRY(ext_factor(r, x, "clearcoatFactor", xw, 0.0f, 0.0f, 1.0f, &mat->clearcoat_factor));
        RILL_TRY(ext_factor(r, x, "clearcoatRoughnessFactor", xw, 0.0f, 0.0f, 1.0f,
                            &mat->clearcoat_roughness_factor));
    }
    return RILL_OK;
}

static rill_result read_materials(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "materials", "", &arr, &count));
    if (count) {
        r->m->materials = rill__gltf_alloc(count, sizeof(rill_gltf_material));
        if (!r->m->materials) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "materials: out of memory");
        }
    }
    const rill__gj *ma;
    RILL__GJ_FOR(ma, arr) {
        uint32_t i = r->m->material_count;
        rill_gltf_material *mat = &r->m->materials[i];
        r->m->material_count++;
        char where[64];
        index_path(where, sizeof(where), "materials", i);
        RILL_TRY(js_object(r, ma, where));
        RILL_TRY(js_name(r, ma, where, &mat->name));
        RILL_TRY(check_extensions(r, ma, where));
        const rill__gj *pbr;
        RILL_TRY(js_member_object(r, ma, "pbrMetallicRoughness", where, &pbr));
        char pw[96];
        snprintf(pw, sizeof(pw), "%s.pbrMetallicRoughness", where);
        static const rill__gj empty = {.type = RILL__GJ_OBJECT};
        const rill__gj *pb = pbr ? pbr : &empty;
        mat->base_color_factor[0] = mat->base_color_factor[1] = mat->base_color_factor[2] = 1.0f;
        mat->base_color_factor[3] = 1.0f;
        RILL_TRY(js_floats(r, pb, "baseColorFactor", pw, 4, mat->base_color_factor, NULL));
        RILL_TRY(js_float(r, pb, "metallicFactor", pw, 1.0f, &mat->metallic_factor));
        RILL_TRY(js_float(r, pb, "roughnessFactor", pw, 1.0f, &mat->roughness_factor));
        RILL_TRY(texref(r, pb, "baseColorTexture", pw, NULL, &mat->base_color_texture));
        RILL_TRY(
            texref(r, pb, "metallicRoughnessTexture", pw, NULL, &mat->metallic_roughness_texture));
        RILL_TRY(texref(r, ma, "normalTexture", where, "scale", &mat->normal_texture));
        RILL_TRY(texref(r, ma, "occlusionTexture", where, "strength", &mat->occlusion_texture));
        RILL_TRY(texref(r, ma, "emissiveTexture", where, NULL, &mat->emissive_texture));
        RILL_TRY(js_floats(r, ma, "emissiveFactor", where, 3, mat->emissive_factor, NULL));
        RILL_TRY(emissive_strength(r, ma, where, mat));
        RILL_TRY(material_lighting_exts(r, ma, where, mat));
        const char *mode;
        RILL_TRY(js_str(r, ma, "alphaMode", where, &mode));
        mat->alpha_mode = RILL_GLTF_ALPHA_OPAQUE;
        if (mode && strcmp(mode, "MASK") == 0) {
            mat->alpha_mode = RILL_GLTF_ALPHA_MASK;
        } else if (mode && strcmp(mode, "BLEND") == 0) {
            mat->alpha_mode = RILL_GLTF_ALPHA_BLEND;
        } else if (mode && strcmp(mode, "OPAQUE") != 0) {
            return rd_fail(r, RILL_ERR_PARSE, "%s.alphaMode: unknown \"%s\"", where, mode);
        }
        RILL_TRY(js_float(r, ma, "alphaCutoff", where, 0.5f, &mat->alpha_cutoff));
        if (mat->alpha_cutoff < 0.0f) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s.alphaCutoff: negative", where);
        }
        RILL_TRY(js_bool(r, ma, "doubleSided", where, &mat->double_sided));
    }
    return RILL_OK;
}

static rill_result read_samplers_textures(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "samplers", "", &arr, &count));
    if (count) {
        r->m->samplers = rill__gltf_alloc(count, sizeof(rill_gltf_sampler));
        if (!r->m->samplers) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "samplers: out of memory");
        }
    }
    const rill__gj *s;
    RILL__GJ_FOR(s, arr) {
        uint32_t i = r->m->sampler_count;
        rill_gltf_sampler *smp = &r->m->samplers[i];
        r->m->sampler_count++;
        char where[64];
        index_path(where, sizeof(where), "samplers", i);
        RILL_TRY(js_object(r, s, where));
        RILL_TRY(js_name(r, s, where, &smp->name));
        uint64_t v = 0;
        RILL_TRY(js_uint(r, s, "magFilter", where, 0, 65535, &v));
        smp->mag_filter = (uint32_t)v;
        RILL_TRY(js_uint(r, s, "minFilter", where, 0, 65535, &v));
        smp->min_filter = (uint32_t)v;
        RILL_TRY(js_uint(r, s, "wrapS", where, 10497, 65535, &v));
        smp->wrap_s = (uint32_t)v;
        RILL_TRY(js_uint(r, s, "wrapT", where, 10497, 65535, &v));
        smp->wrap_t = (uint32_t)v;
    }
    RILL_TRY(js_array(r, r->root, "images", "", &arr, &count));
    uint32_t image_count = count;
    RILL_TRY(js_array(r, r->root, "textures", "", &arr, &count));
    if (count) {
        r->m->textures = rill__gltf_alloc(count, sizeof(rill_gltf_texture));
        if (!r->m->textures) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "textures: out of memory");
        }
    }
    const rill__gj *t;
    RILL__GJ_FOR(t, arr) {
        uint32_t i = r->m->texture_count;
        rill_gltf_texture *tex = &r->m->textures[i];
        r->m->texture_count++;
        char where[64];
        index_path(where, sizeof(where), "textures", i);
        RILL_TRY(js_object(r, t, where));
        RILL_TRY(js_name(r, t, where, &tex->name));
        RILL_TRY(js_index(r, t, "sampler", where, r->m->sampler_count, "sampler", &tex->sampler));
        RILL_TRY(js_index(r, t, "source", where, image_count, "image", &tex->image));
    }
    return RILL_OK;
}

static rill_result read_images(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "images", "", &arr, &count));
    if (count) {
        r->m->images = rill__gltf_alloc(count, sizeof(rill_gltf_image));
        if (!r->m->images) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "images: out of memory");
        }
    }
    const rill__gj *im;
    RILL__GJ_FOR(im, arr) {
        uint32_t i = r->m->image_count;
        rill_gltf_image *img = &r->m->images[i];
        r->m->image_count++;
        char where[64];
        index_path(where, sizeof(where), "images", i);
        RILL_TRY(js_object(r, im, where));
        RILL_TRY(js_name(r, im, where, &img->name));
        const char *uri, *mime;
        RILL_TRY(js_str(r, im, "uri", where, &uri));
        RILL_TRY(js_str(r, im, "mimeType", where, &mime));
        int32_t view;
        RILL_TRY(js_index(r, im, "bufferView", where, r->view_count, "bufferView", &view));
        if ((uri != NULL) == (view >= 0)) {
            return rd_fail(r, RILL_ERR_PARSE, "%s: needs exactly one of uri and bufferView", where);
        }
        if (mime) {
            img->mime_type = rill__gltf_strdup(mime);
        }
        char uw[80];
        snprintf(uw, sizeof(uw), "%s.uri", where);
        if (view >= 0) {
            const rd_view *v = &r->views[view];
            if (v->length) {
                RILL_TRY(rd_charge(r, v->length, where, ""));
                img->data = rill_malloc_tagged(v->length, RILL_MEM_FORMATS);
                if (!img->data) {
                    return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
                }
                memcpy(img->data, view_bytes(r, v), v->length);
                img->size = v->length;
            }
        } else if (strncmp(uri, "data:", 5) == 0) {
            const char *dmime;
            size_t dmime_len;
            RILL_TRY(decode_data_uri(r, uri, uw, &img->data, &img->size, &dmime, &dmime_len));
            if (!img->mime_type && dmime_len) {
                img->mime_type = rill_malloc_tagged(dmime_len + 1, RILL_MEM_FORMATS);
                if (img->mime_type) {
                    memcpy(img->mime_type, dmime, dmime_len);
                    img->mime_type[dmime_len] = '\0';
                }
            }
        } else if (strncmp(uri, RILL_GLTF_TARGET_SCHEME, strlen(RILL_GLTF_TARGET_SCHEME)) == 0) {
            /* A render texture by name (Rill's: a Camera.target draws it), kept as written. */
            if (!uri[strlen(RILL_GLTF_TARGET_SCHEME)] || strlen(uri) > 70) {
                return rd_fail(r, RILL_ERR_PARSE, "%s: render texture name of 1 to 63 characters",
                               uw);
            }
            img->uri = rill__gltf_strdup(uri);
            if (!img->uri) {
                return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        } else {
            char rel[1024];
            RILL_TRY(resolve_relative_uri(r, uri, uw, rel, sizeof(rel)));
            img->uri = rill__gltf_strdup(rel);
            if (!img->uri) {
                return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        }
    }
    return RILL_OK;
}

/* >>nodes, scenes, cameras, lights ------------------------------------------------------------ */

static rill_result read_cameras_lights(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "cameras", "", &arr, &count));
    if (count) {
        r->m->cameras = rill__gltf_alloc(count, sizeof(rill_gltf_camera));
        if (!r->m->cameras) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "cameras: out of memory");
        }
    }
    const rill__gj *c;
    RILL__GJ_FOR(c, arr) {
        uint32_t i = r->m->camera_count;
        rill_gltf_camera *cam = &r->m->cameras[i];
        r->m->camera_count++;
        char where[64];
        index_path(where, sizeof(where), "cameras", i);
        RILL_TRY(js_object(r, c, where));
        RILL_TRY(js_name(r, c, where, &cam->name));
        const char *type;
        RILL_TRY(js_str(r, c, "type", where, &type));
        const rill__gj *sub;
        char sw[96];
        if (type && strcmp(type, "perspective") == 0) {
            cam->type = RILL_GLTF_CAMERA_PERSPECTIVE;
            RILL_TRY(js_member_object(r, c, "perspective", where, &sub));
            snprintf(sw, sizeof(sw), "%s.perspective", where);
            if (!sub) {
                return rd_fail(r, RILL_ERR_PARSE, "%s: missing", sw);
            }
            RILL_TRY(js_float(r, sub, "yfov", sw, 0.0f, &cam->yfov));
            RILL_TRY(js_float(r, sub, "aspectRatio", sw, 0.0f, &cam->aspect_ratio));
            RILL_TRY(js_float(r, sub, "znear", sw, 0.0f, &cam->znear));
            RILL_TRY(js_float(r, sub, "zfar", sw, 0.0f, &cam->zfar));
            if (!(cam->yfov > 0.0f) || !(cam->znear > 0.0f) || cam->aspect_ratio < 0.0f ||
                (cam->zfar != 0.0f && !(cam->zfar > cam->znear))) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s: invalid projection values", sw);
            }
        } else if (type && strcmp(type, "orthographic") == 0) {
            cam->type = RILL_GLTF_CAMERA_ORTHOGRAPHIC;
            RILL_TRY(js_member_object(r, c, "orthographic", where, &sub));
            snprintf(sw, sizeof(sw), "%s.orthographic", where);
            if (!sub) {
                return rd_fail(r, RILL_ERR_PARSE, "%s: missing", sw);
            }
            RILL_TRY(js_float(r, sub, "xmag", sw, 0.0f, &cam->xmag));
            RILL_TRY(js_float(r, sub, "ymag", sw, 0.0f, &cam->ymag));
            RILL_TRY(js_float(r, sub, "znear", sw, -1.0f, &cam->znear));
            RILL_TRY(js_float(r, sub, "zfar", sw, 0.0f, &cam->zfar));
            if (cam->xmag == 0.0f || cam->ymag == 0.0f || cam->znear < 0.0f ||
                !(cam->zfar > cam->znear)) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s: invalid projection values", sw);
            }
        } else {
            return rd_fail(r, RILL_ERR_PARSE, "%s.type: expected perspective or orthographic",
                           where);
        }
    }

    const rill__gj *ext, *lp;
    RILL_TRY(js_member_object(r, r->root, "extensions", "", &ext));
    lp = NULL;
    if (ext) {
        RILL_TRY(js_member_object(r, ext, "KHR_lights_punctual", "extensions", &lp));
    }
    if (!lp) {
        return RILL_OK;
    }
    const char *lw = "extensions.KHR_lights_punctual";
    RILL_TRY(js_array(r, lp, "lights", lw, &arr, &count));
    if (count) {
        r->m->lights = rill__gltf_alloc(count, sizeof(rill_gltf_light));
        if (!r->m->lights) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "lights: out of memory");
        }
    }
    const rill__gj *l;
    RILL__GJ_FOR(l, arr) {
        uint32_t i = r->m->light_count;
        rill_gltf_light *light = &r->m->lights[i];
        r->m->light_count++;
        char where[96];
        snprintf(where, sizeof(where), "%s.lights[%u]", lw, i);
        RILL_TRY(js_object(r, l, where));
        RILL_TRY(js_name(r, l, where, &light->name));
        const char *type;
        RILL_TRY(js_str(r, l, "type", where, &type));
        if (type && strcmp(type, "directional") == 0) {
            light->type = RILL_GLTF_LIGHT_DIRECTIONAL;
        } else if (type && strcmp(type, "point") == 0) {
            light->type = RILL_GLTF_LIGHT_POINT;
        } else if (type && strcmp(type, "spot") == 0) {
            light->type = RILL_GLTF_LIGHT_SPOT;
        } else {
            return rd_fail(r, RILL_ERR_PARSE, "%s.type: expected directional, point or spot",
                           where);
        }
        light->color[0] = light->color[1] = light->color[2] = 1.0f;
        RILL_TRY(js_floats(r, l, "color", where, 3, light->color, NULL));
        RILL_TRY(js_float(r, l, "intensity", where, 1.0f, &light->intensity));
        RILL_TRY(js_float(r, l, "range", where, 0.0f, &light->range));
        if (light->range < 0.0f || light->intensity < 0.0f) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s: negative range or intensity", where);
        }
        light->inner_cone_angle = 0.0f;
        light->outer_cone_angle = 0.78539816f;
        if (light->type == RILL_GLTF_LIGHT_SPOT) {
            const rill__gj *spot;
            RILL_TRY(js_member_object(r, l, "spot", where, &spot));
            if (spot) {
                char sw[128];
                snprintf(sw, sizeof(sw), "%s.spot", where);
                RILL_TRY(js_float(r, spot, "innerConeAngle", sw, 0.0f, &light->inner_cone_angle));
                RILL_TRY(
                    js_float(r, spot, "outerConeAngle", sw, 0.78539816f, &light->outer_cone_angle));
                if (light->inner_cone_angle < 0.0f ||
                    light->inner_cone_angle >= light->outer_cone_angle ||
                    light->outer_cone_angle > 1.5707964f) {
                    return rd_fail(r, RILL_ERR_CORRUPT, "%s: invalid cone angles", sw);
                }
            }
        }
    }
    return RILL_OK;
}

static rill_result read_nodes(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "nodes", "", &arr, &count));
    const rill__gj *skins;
    uint32_t skin_count;
    RILL_TRY(js_array(r, r->root, "skins", "", &skins, &skin_count));
    if (count) {
        r->m->nodes = rill__gltf_alloc(count, sizeof(rill_gltf_node));
        if (!r->m->nodes) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "nodes: out of memory");
        }
        for (uint32_t i = 0; i < count; i++) {
            r->m->nodes[i].parent = -1;
        }
    }
    const rill__gj *no;
    RILL__GJ_FOR(no, arr) {
        uint32_t i = r->m->node_count;
        rill_gltf_node *node = &r->m->nodes[i];
        r->m->node_count++;
        char where[64];
        index_path(where, sizeof(where), "nodes", i);
        RILL_TRY(js_object(r, no, where));
        RILL_TRY(js_name(r, no, where, &node->name));
        RILL_TRY(js_index(r, no, "mesh", where, r->m->mesh_count, "mesh", &node->mesh));
        RILL_TRY(js_index(r, no, "camera", where, r->m->camera_count, "camera", &node->camera));
        node->light = -1;
        RILL_TRY(js_index(r, no, "skin", where, skin_count, "skin", &node->skin));
        uint32_t targets = 0;
        for (uint32_t p = 0; node->mesh >= 0 && p < r->m->meshes[node->mesh].primitive_count; p++) {
            targets = r->m->meshes[node->mesh].primitives[p].target_count;
        }
        RILL_TRY(js_weights(r, no, where, targets, &node->weight_count, &node->weights));
        const rill__gj *ext, *lp;
        RILL_TRY(check_extensions(r, no, where));
        RILL_TRY(js_member_object(r, no, "extensions", where, &ext));
        if (ext) {
            char ew[96];
            snprintf(ew, sizeof(ew), "%s.extensions", where);
            RILL_TRY(js_member_object(r, ext, "KHR_lights_punctual", ew, &lp));
            if (lp) {
                char lw[128];
                snprintf(lw, sizeof(lw), "%s.KHR_lights_punctual", ew);
                RILL_TRY(js_index(r, lp, "light", lw, r->m->light_count, "light", &node->light));
            }
        }
        node->rotation[3] = 1.0f;
        node->scale[0] = node->scale[1] = node->scale[2] = 1.0f;
        bool has_t, has_r, has_s;
        RILL_TRY(js_floats(r, no, "translation", where, 3, node->translation, &has_t));
        RILL_TRY(js_floats(r, no, "rotation", where, 4, node->rotation, &has_r));
        RILL_TRY(js_floats(r, no, "scale", where, 3, node->scale, &has_s));
        RILL_TRY(js_floats(r, no, "matrix", where, 16, node->matrix, &node->has_matrix));
        if (node->has_matrix && (has_t || has_r || has_s)) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s: both matrix and TRS given", where);
        }
        RILL_TRY(check_world_limit(r, where, "translation", node->translation, 3));
        RILL_TRY(check_world_limit(r, where, "scale", node->scale, 3));
        if (node->has_matrix) {
            RILL_TRY(check_world_limit(r, where, "matrix", node->matrix, 16));
        }
        if (!node->has_matrix) {
            float *q = node->rotation;
            float ql = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(ql > 1e-6f) || !isfinite(ql)) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s.rotation: not a unit quaternion", where);
            }
            /* Rescaled only when visibly off, so a re-read file keeps identical bits. */
            for (int k = 0; k < 4 && fabsf(ql - 1.0f) > 1e-6f; k++) {
                q[k] /= ql;
            }
            rill__gltf_trs_to_matrix(node->translation, node->rotation, node->scale, node->matrix);
        }
        const rill__gj *children;
        uint32_t cc;
        RILL_TRY(js_array(r, no, "children", where, &children, &cc));
        if (cc) {
            node->children = rill__gltf_alloc(cc, sizeof(int32_t));
            if (!node->children) {
                return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        }
        const rill__gj *ch;
        RILL__GJ_FOR(ch, children) {
            double v = rill__gj_num(ch);
            uint32_t k = node->child_count;
            if (!rill__gj_is_number(ch) || v != floor(v) || v < 0.0 || v >= (double)count) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s.children[%u]: node index out of range",
                               where, k);
            }
            int32_t c = (int32_t)v;
            if ((uint32_t)c == i || r->m->nodes[c].parent >= 0) {
                return rd_fail(r, RILL_ERR_CORRUPT,
                               "%s.children[%u]: node %d already has a parent (or is itself)",
                               where, k, c);
            }
            r->m->nodes[c].parent = (int32_t)i;
            node->children[node->child_count++] = c;
        }
    }
    /* Every node has at most one parent now, so the hierarchy is a forest unless some parent
     * chain loops; walking up at most node_count steps finds every loop. */
    for (uint32_t i = 0; i < r->m->node_count; i++) {
        int32_t p = r->m->nodes[i].parent;
        uint32_t steps = 0;
        while (p >= 0 && steps <= r->m->node_count) {
            p = r->m->nodes[p].parent;
            steps++;
        }
        if (p >= 0) {
            return rd_fail(r, RILL_ERR_CORRUPT, "nodes[%u]: the node hierarchy has a cycle", i);
        }
    }
    return RILL_OK;
}

static rill_result read_scenes(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "scenes", "", &arr, &count));
    if (count) {
        r->m->scenes = rill__gltf_alloc(count, sizeof(rill_gltf_scene));
        if (!r->m->scenes) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "scenes: out of memory");
        }
    }
    const rill__gj *sc;
    RILL__GJ_FOR(sc, arr) {
        uint32_t i = r->m->scene_count;
        rill_gltf_scene *scene = &r->m->scenes[i];
        r->m->scene_count++;
        char where[64];
        index_path(where, sizeof(where), "scenes", i);
        RILL_TRY(js_object(r, sc, where));
        RILL_TRY(js_name(r, sc, where, &scene->name));
        const rill__gj *nodes;
        uint32_t nc;
        RILL_TRY(js_array(r, sc, "nodes", where, &nodes, &nc));
        if (nc) {
            scene->nodes = rill__gltf_alloc(nc, sizeof(int32_t));
            if (!scene->nodes) {
                return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        }
        const rill__gj *n;
        RILL__GJ_FOR(n, nodes) {
            double v = rill__gj_num(n);
            uint32_t k = scene->node_count;
            if (!rill__gj_is_number(n) || v != floor(v) || v < 0.0 ||
                v >= (double)r->m->node_count) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s.nodes[%u]: node index out of range", where,
                               k);
            }
            if (r->m->nodes[(int32_t)v].parent >= 0) {
                return rd_fail(r, RILL_ERR_CORRUPT, "%s.nodes[%u]: node %.0f is not a root", where,
                               k, v);
            }
            scene->nodes[scene->node_count++] = (int32_t)v;
        }
    }
    RILL_TRY(js_index(r, r->root, "scene", "", r->m->scene_count, "scene", &r->m->default_scene));
    return RILL_OK;
}

/* >>skins ------------------------------------------------------------------------------------- */

/* inverseBindMatrices: a MAT4 float accessor with at least one matrix per joint (the first
 * joint_count are kept), every value finite; absent = identities. */
static rill_result skin_matrices(rd *r, const rill__gj *so, const char *where,
                                 rill_gltf_skin *skin) {
    int32_t acc;
    RILL_TRY(js_index(r, so, "inverseBindMatrices", where, r->accessor_count, "accessor", &acc));
    size_t n = (size_t)skin->joint_count * 16;
    if (acc < 0) {
        RILL_TRY(rd_charge(r, n * sizeof(float), where, ".inverseBindMatrices"));
        skin->inverse_bind_matrices = rill__gltf_alloc(n, sizeof(float));
        if (!skin->inverse_bind_matrices) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            float *m = &skin->inverse_bind_matrices[(size_t)j * 16];
            m[0] = m[5] = m[10] = m[15] = 1.0f;
        }
        return RILL_OK;
    }
    const rd_accessor *a;
    RILL_TRY(accessor_info(r, acc, &a));
    if (a->comps != 16 || a->component != GL_FLOAT) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s.inverseBindMatrices: accessor %d must be MAT4 float", where, acc);
    }
    if (a->count < skin->joint_count) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s.inverseBindMatrices: accessor %d holds %u matrices for %u joints", where,
                       acc, a->count, skin->joint_count);
    }
    float *all;
    RILL_TRY(accessor_floats(r, acc, a, where, ".inverseBindMatrices", NULL, &all));
    skin->inverse_bind_matrices = all;
    size_t bad = rill__gltf_first_non_finite(all, n);
    if (bad < n) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s.inverseBindMatrices: accessor %d: matrix %zu is not finite", where, acc,
                       bad / 16);
    }
    return RILL_OK;
}

static rill_result read_skin(rd *r, const rill__gj *so, const char *where, rill_gltf_skin *skin) {
    RILL_TRY(js_object(r, so, where));
    RILL_TRY(js_name(r, so, where, &skin->name));
    RILL_TRY(js_index(r, so, "skeleton", where, r->m->node_count, "node", &skin->skeleton));
    const rill__gj *joints;
    uint32_t count;
    RILL_TRY(js_array(r, so, "joints", where, &joints, &count));
    if (count == 0 || count > RILL_GLTF_MAX_JOINTS) {
        return rd_fail(r, count ? RILL_ERR_LIMIT : RILL_ERR_PARSE,
                       "%s.joints: %u joints (1 to %u allowed)", where, count,
                       RILL_GLTF_MAX_JOINTS);
    }
    skin->joints = rill__gltf_alloc(count, sizeof(int32_t));
    if (!skin->joints) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    const rill__gj *j;
    RILL__GJ_FOR(j, joints) {
        double v = rill__gj_num(j);
        if (!rill__gj_is_number(j) || v != floor(v) || v < 0.0 || v >= (double)r->m->node_count) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s.joints[%u]: node index out of range (%u)",
                           where, skin->joint_count, r->m->node_count);
        }
        skin->joints[skin->joint_count++] = (int32_t)v;
    }
    return skin_matrices(r, so, where, skin);
}

/* Every joint index that moves a vertex of a mesh must name a joint of each skin the mesh is
 * drawn with (a node's skin and mesh); the renderer indexes its joint matrices with them. */
static rill_result check_skinned_meshes(rd *r) {
    for (uint32_t i = 0; i < r->m->node_count; i++) {
        const rill_gltf_node *n = &r->m->nodes[i];
        if (n->skin < 0 || n->mesh < 0) {
            continue;
        }
        uint32_t limit = r->m->skins[n->skin].joint_count;
        const rill_gltf_mesh *mesh = &r->m->meshes[n->mesh];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const rill_gltf_primitive *pr = &mesh->primitives[p];
            for (size_t k = 0; pr->joints && k < (size_t)pr->vertex_count * 4; k++) {
                if (pr->joints[k] >= (float)limit) {
                    return rd_fail(r, RILL_ERR_CORRUPT,
                                   "meshes[%d].primitives[%u].attributes.JOINTS_0: vertex %zu: "
                                   "joint %.0f out of range of skins[%d] (%u joints; nodes[%u])",
                                   n->mesh, p, k / 4, (double)pr->joints[k], n->skin, limit, i);
                }
            }
        }
    }
    return RILL_OK;
}

static rill_result read_skins(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "skins", "", &arr, &count));
    if (count) {
        r->m->skins = rill__gltf_alloc(count, sizeof(rill_gltf_skin));
        if (!r->m->skins) {
            return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "skins: out of memory");
        }
    }
    const rill__gj *so;
    RILL__GJ_FOR(so, arr) {
        rill_gltf_skin *skin = &r->m->skins[r->m->skin_count];
        skin->skeleton = -1;
        char where[64];
        index_path(where, sizeof(where), "skins", r->m->skin_count);
        r->m->skin_count++; /* counted first so a failure below frees what it holds */
        RILL_TRY(read_skin(r, so, where, skin));
    }
    return check_skinned_meshes(r);
}

/* >>animations -------------------------------------------------------------------------------- */

/* Key times: one SCALAR float accessor, every time finite, the first >= 0, each later one
 * larger than the one before (glTF 2.0, 3.11). A clip with times out of order would make the
 * sampler's binary search meaningless, so such a file is refused, not repaired. */
static rill_result anim_times(rd *r, int32_t acc, const char *sw, rill_gltf_anim_sampler *out) {
    const rd_accessor *a;
    RILL_TRY(accessor_info(r, acc, &a));
    if (a->comps != 1 || a->component != GL_FLOAT || a->normalized) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.input: accessor %d must be SCALAR float", sw, acc);
    }
    RILL_TRY(accessor_floats(r, acc, a, sw, ".input", NULL, &out->times));
    out->key_count = a->count;
    for (uint32_t k = 0; k < a->count; k++) {
        float t = out->times[k];
        if (!isfinite(t) || t > 1e9f) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s.input: accessor %d: key time %u is not finite",
                           sw, acc, k);
        }
        if (k == 0 && t < 0.0f) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s.input: accessor %d: key time 0 is negative", sw,
                           acc);
        }
        if (k > 0 && !(t > out->times[k - 1])) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s.input: accessor %d: key times do not increase (key %u: %g after %g)",
                           sw, acc, k, (double)t, (double)out->times[k - 1]);
        }
    }
    return RILL_OK;
}

/* Key values: per key `comps` floats (three vectors for CUBICSPLINE), finite; rotations unit
 * quaternions (normalized here; a zero one is refused). */
static rill_result anim_values(rd *r, int32_t acc, const char *sw, rill_gltf_anim_path path,
                               rill_gltf_anim_sampler *out) {
    const rd_accessor *a;
    RILL_TRY(accessor_info(r, acc, &a));
    uint32_t per_key = out->interpolation == RILL_GLTF_INTERP_CUBICSPLINE ? 3u : 1u;
    uint64_t elems = (uint64_t)out->key_count * per_key;
    uint32_t want = path == RILL_GLTF_ANIM_ROTATION ? 4u : path == RILL_GLTF_ANIM_WEIGHTS ? 1u : 3u;
    bool float_only = path != RILL_GLTF_ANIM_ROTATION && path != RILL_GLTF_ANIM_WEIGHTS;
    if (a->comps != want || (a->component != GL_FLOAT && (float_only || !a->normalized))) {
        return rd_fail(r, RILL_ERR_CORRUPT,
                       "%s.output: accessor %d has the wrong type for its path", sw, acc);
    }
    if (path == RILL_GLTF_ANIM_WEIGHTS) {
        /* One scalar per morph target per key: the count must be a whole multiple. */
        if (a->count % elems != 0) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s.output: accessor %d holds %u values, not a multiple of %llu keys",
                           sw, acc, a->count, (unsigned long long)elems);
        }
        out->comps = (uint32_t)(a->count / elems);
    } else {
        if ((uint64_t)a->count != elems) {
            return rd_fail(r, RILL_ERR_CORRUPT,
                           "%s.output: accessor %d holds %u values for %llu keys", sw, acc,
                           a->count, (unsigned long long)elems);
        }
        out->comps = want;
    }
    RILL_TRY(accessor_floats(r, acc, a, sw, ".output", NULL, &out->values));
    size_t n = (size_t)a->count * a->comps;
    size_t bad = rill__gltf_first_non_finite(out->values, n);
    if (bad < n) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.output: accessor %d: value %zu is not finite", sw,
                       acc, bad);
    }
    if (path == RILL_GLTF_ANIM_ROTATION) {
        /* Tangents of a cubic spline are not unit quaternions; only the values are. */
        for (uint64_t e = 0; e < elems; e++) {
            if (per_key == 3 && e % 3 != 1) {
                continue;
            }
            float *q = &out->values[e * 4];
            float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(l > 1e-6f) || !isfinite(l)) {
                return rd_fail(r, RILL_ERR_CORRUPT,
                               "%s.output: accessor %d: key %llu is not a unit quaternion", sw, acc,
                               (unsigned long long)(e / per_key));
            }
            for (int k = 0; k < 4 && fabsf(l - 1.0f) > 1e-6f; k++) {
                q[k] /= l;
            }
        }
    }
    return RILL_OK;
}

static rill_result anim_interpolation(rd *r, const rill__gj *so, const char *sw,
                                      rill_gltf_interpolation *out) {
    const char *s;
    RILL_TRY(js_str(r, so, "interpolation", sw, &s));
    *out = RILL_GLTF_INTERP_LINEAR;
    if (!s || strcmp(s, "LINEAR") == 0) {
        return RILL_OK;
    }
    if (strcmp(s, "STEP") == 0) {
        *out = RILL_GLTF_INTERP_STEP;
    } else if (strcmp(s, "CUBICSPLINE") == 0) {
        *out = RILL_GLTF_INTERP_CUBICSPLINE;
    } else {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.interpolation: unknown \"%.32s\"", sw, s);
    }
    return RILL_OK;
}

/* The path a channel drives; false for one the model does not keep (an extension's). */
static bool anim_path(const char *s, rill_gltf_anim_path *out) {
    static const char *const names[RILL_GLTF_ANIM_PATH_NUM] = {"translation", "rotation", "scale",
                                                               "weights"};
    for (int i = 0; s && i < RILL_GLTF_ANIM_PATH_NUM; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (rill_gltf_anim_path)i;
            return true;
        }
    }
    return false;
}

/* One channel: its target node and path, and the sampler it names (whose keys are read the first
 * time a channel uses it, since the output's shape depends on the path). */
static rill_result anim_channel(rd *r, const rill__gj *ch, const char *aw, const char *cw,
                                const rill__gj *samplers, rill_gltf_animation *an,
                                uint8_t *sampler_path, bool *out_kept) {
    *out_kept = false;
    RILL_TRY(js_object(r, ch, cw));
    int32_t si;
    RILL_TRY(js_index(r, ch, "sampler", cw, an->sampler_count, "sampler", &si));
    if (si < 0) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.sampler: missing", cw);
    }
    const rill__gj *target;
    char tw[96];
    snprintf(tw, sizeof(tw), "%s.target", cw);
    RILL_TRY(js_member_object(r, ch, "target", cw, &target));
    if (!target) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s: missing", tw);
    }
    int32_t node;
    const char *path_name;
    RILL_TRY(js_index(r, target, "node", tw, r->m->node_count, "node", &node));
    RILL_TRY(js_str(r, target, "path", tw, &path_name));
    rill_gltf_anim_path path;
    if (node < 0 || !anim_path(path_name, &path)) {
        return RILL_OK; /* an extension's target (KHR_animation_pointer): not kept */
    }
    rill_gltf_anim_sampler *smp = &an->samplers[si];
    /* A sampler drives one kind of value: two channels reading it as different paths would
     * read its output with two shapes. */
    uint8_t kind = (uint8_t)(path == RILL_GLTF_ANIM_ROTATION  ? 2
                             : path == RILL_GLTF_ANIM_WEIGHTS ? 3
                                                              : 1);
    if (sampler_path[si] && sampler_path[si] != kind) {
        return rd_fail(r, RILL_ERR_CORRUPT, "%s.sampler: sampler %d already drives another path",
                       cw, si);
    }
    if (!sampler_path[si]) {
        sampler_path[si] = kind;
        const rill__gj *so = NULL, *it;
        uint32_t k = 0;
        RILL__GJ_FOR(it, samplers) {
            if (k++ == (uint32_t)si) {
                so = it;
                break;
            }
        }
        char sw[96];
        snprintf(sw, sizeof(sw), "%s.samplers[%d]", aw, si);
        RILL_TRY(js_object(r, so, sw));
        int32_t in_acc, out_acc;
        RILL_TRY(js_index(r, so, "input", sw, r->accessor_count, "accessor", &in_acc));
        RILL_TRY(js_index(r, so, "output", sw, r->accessor_count, "accessor", &out_acc));
        if (in_acc < 0 || out_acc < 0) {
            return rd_fail(r, RILL_ERR_CORRUPT, "%s: input and output are required", sw);
        }
        RILL_TRY(anim_interpolation(r, so, sw, &smp->interpolation));
        RILL_TRY(anim_times(r, in_acc, sw, smp));
        RILL_TRY(anim_values(r, out_acc, sw, path, smp));
        float last = smp->times[smp->key_count - 1];
        an->duration = last > an->duration ? last : an->duration;
    }
    an->channels[an->channel_count++] = (rill_gltf_anim_channel){node, path, (uint32_t)si};
    *out_kept = true;
    return RILL_OK;
}

static rill_result read_animation(rd *r, const rill__gj *ao, const char *where,
                                  rill_gltf_animation *an) {
    RILL_TRY(js_object(r, ao, where));
    RILL_TRY(js_name(r, ao, where, &an->name));
    const rill__gj *channels, *samplers;
    uint32_t cc, sc;
    RILL_TRY(js_array(r, ao, "channels", where, &channels, &cc));
    RILL_TRY(js_array(r, ao, "samplers", where, &samplers, &sc));
    RILL_TRY(rd_charge(r,
                       (uint64_t)cc * sizeof(rill_gltf_anim_channel) +
                           (uint64_t)sc * (sizeof(rill_gltf_anim_sampler) + 1u),
                       where, ""));
    if (cc) {
        an->channels = rill__gltf_alloc(cc, sizeof(rill_gltf_anim_channel));
    }
    if (sc) {
        an->samplers = rill__gltf_alloc(sc, sizeof(rill_gltf_anim_sampler));
    }
    uint8_t *sampler_path = rill__gltf_alloc(sc + 1u, 1);
    if ((cc && !an->channels) || (sc && !an->samplers) || !sampler_path) {
        rill_free(sampler_path);
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    an->sampler_count = sc;
    rill_result res = RILL_OK;
    const rill__gj *ch;
    uint32_t i = 0;
    RILL__GJ_FOR(ch, channels) {
        char cw[80];
        snprintf(cw, sizeof(cw), "%s.channels[%u]", where, i++);
        bool kept;
        res = anim_channel(r, ch, where, cw, samplers, an, sampler_path, &kept);
        if (res != RILL_OK) {
            break;
        }
    }
    rill_free(sampler_path);
    return res;
}

static rill_result read_animations(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(js_array(r, r->root, "animations", "", &arr, &count));
    if (!count) {
        return RILL_OK;
    }
    RILL_TRY(rd_charge(r, (uint64_t)count * sizeof(rill_gltf_animation), "animations", ""));
    r->m->animations = rill__gltf_alloc(count, sizeof(rill_gltf_animation));
    if (!r->m->animations) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "animations: out of memory");
    }
    const rill__gj *ao;
    RILL__GJ_FOR(ao, arr) {
        uint32_t i = r->m->animation_count++;
        char where[48];
        index_path(where, sizeof(where), "animations", i);
        RILL_TRY(read_animation(r, ao, where, &r->m->animations[i]));
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
        if (rill__gj_is_object(rill__gj_get(root, keys[i])))
            return true;
    }
    return false;
}

static rill_result check_asset(rd *r) {
    const rill__gj *asset;
    const rill__gj *a = rill__gj_get(r->root, "asset");
    const rill__gj *v = rill__gj_is_object(a) ? rill__gj_get(a, "version") : NULL;
    bool says_2 = rill__gj_is_string(v) && strncmp(v->u.str, "2.", 2) == 0;
    if (!says_2 && looks_gltf1(r->root)) {
        return rd_fail(r, RILL_ERR_VERSION, "%s", GLTF1_UNSUPPORTED);
    }
    RILL_TRY(js_member_object(r, r->root, "asset", "", &asset));
    if (!asset) {
        return rd_fail(r, RILL_ERR_PARSE, "asset: missing");
    }
    const char *version, *min_version;
    RILL_TRY(js_str(r, asset, "version", "asset", &version));
    RILL_TRY(js_str(r, asset, "minVersion", "asset", &min_version));
    if (!version) {
        return rd_fail(r, RILL_ERR_PARSE, "asset.version: missing");
    }
    if (strncmp(version, "1.", 2) == 0 || strcmp(version, "1") == 0) {
        return rd_fail(r, RILL_ERR_VERSION, "%s", GLTF1_UNSUPPORTED);
    }
    if (strncmp(version, "2.", 2) != 0) {
        return rd_fail(r, RILL_ERR_VERSION, "asset.version: glTF \"%s\" is not supported (2.0 is)",
                       version);
    }
    if (min_version && strcmp(min_version, "2.0") != 0) {
        return rd_fail(r, RILL_ERR_VERSION,
                       "asset.minVersion: the file needs glTF %s; Rill reads 2.0 files",
                       min_version);
    }
    const rill__gj *req;
    uint32_t rc;
    RILL_TRY(js_array(r, r->root, "extensionsRequired", "", &req, &rc));
    const rill__gj *e;
    uint32_t i = 0;
    RILL__GJ_FOR(e, req) {
        if (!rill__gj_is_string(e)) {
            return rd_fail(r, RILL_ERR_PARSE, "extensionsRequired[%u]: expected a string", i);
        }
        if (!rill__gltf_extension_known(e->u.str)) {
            return rd_fail(r, RILL_ERR_UNSUPPORTED, "extensionsRequired[%u]: %s is not supported",
                           i, e->u.str);
        }
        i++;
    }
    return RILL_OK;
}

/* Indexes the accessors array once into C arrays: accessors are looked up by number from every
 * primitive, and walking the JSON list for each lookup made large files quadratic. */
static rill_result index_accessors(rd *r) {
    const rill__gj *arr;
    RILL_TRY(js_array(r, r->root, "accessors", "", &arr, &r->accessor_count));
    if (!r->accessor_count) {
        return RILL_OK;
    }
    uint64_t bytes = (uint64_t)r->accessor_count *
                     (sizeof(*r->acc_nodes) + sizeof(*r->acc_info) + sizeof(*r->acc_state));
    RILL_TRY(rd_charge(r, bytes, "accessors", ""));
    r->acc_nodes = rill__gltf_alloc_raw(r->accessor_count, sizeof(*r->acc_nodes));
    r->acc_info = rill__gltf_alloc_raw(r->accessor_count, sizeof(*r->acc_info));
    r->acc_state = rill__gltf_alloc(r->accessor_count, sizeof(*r->acc_state));
    if (!r->acc_nodes || !r->acc_info || !r->acc_state) {
        return rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "accessors: out of memory");
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
            return rd_fail(r, RILL_ERR_TRUNCATED, "offset %zu: GLB header truncated", size);
        }
        memcpy(hdr, data, 12);
        if (hdr[1] == 1) {
            return rd_fail(r, RILL_ERR_VERSION, "%s", GLTF1_UNSUPPORTED);
        }
        if (hdr[1] != 2) {
            return rd_fail(r, RILL_ERR_VERSION, "offset 4: GLB version %u (2 only)", hdr[1]);
        }
        if (hdr[2] > size || hdr[2] < 20) {
            /* Below 20 the header and the JSON chunk header do not fit, and size - 20 below
             * would wrap (found by fuzz_gltf; fuzz/gltf/corpus/regress-glb-length-*). */
            return rd_fail(r, RILL_ERR_TRUNCATED, "offset 8: GLB length %u but %zu bytes", hdr[2],
                           size);
        }
        size = hdr[2];
        memcpy(chunk, data + 12, 8);
        if (chunk[1] != GLB_CHUNK_JSON) {
            return rd_fail(r, RILL_ERR_CORRUPT, "offset 16: first chunk is not JSON");
        }
        if (chunk[0] > size - 20) {
            return rd_fail(r, RILL_ERR_TRUNCATED,
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
                return rd_fail(r, RILL_ERR_TRUNCATED,
                               "offset %zu: chunk of %u bytes overruns the file", off, chunk[0]);
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
        return rd_fail(r, RILL_ERR_TRUNCATED, "empty JSON");
    }
    rill__gj_doc doc;
    size_t at = 0;
    bool over = false;
    if (!rill__gj_parse(json, json_size, r->max_bytes, &doc, &at, &over)) {
        if (over) {
            return rd_fail(r, RILL_ERR_LIMIT,
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
        res = rd_fail(r, RILL_ERR_PARSE, "the JSON root is not an object");
    }
    if (res == RILL_OK) {
        res = check_asset(r);
    }
    if (res == RILL_OK) {
        res = read_buffers(r);
    }
    if (res == RILL_OK) {
        res = read_views(r);
    }
    if (res == RILL_OK) {
        res = index_accessors(r);
    }
    if (res == RILL_OK) {
        res = read_samplers_textures(r);
    }
    if (res == RILL_OK) {
        res = read_images(r);
    }
    if (res == RILL_OK) {
        res = read_materials(r);
    }
    if (res == RILL_OK) {
        res = read_meshes(r);
    }
    if (res == RILL_OK) {
        res = read_cameras_lights(r);
    }
    if (res == RILL_OK) {
        res = read_nodes(r);
    }
    if (res == RILL_OK) {
        res = read_scenes(r);
    }
    if (res == RILL_OK) {
        res = read_skins(r);
    }
    if (res == RILL_OK) {
        res = read_animations(r);
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
    r.read_file = d.read_file ? d.read_file : default_read_file;
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
