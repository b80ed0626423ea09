/* gltf_buffers.c: the glTF reader's bytes: URIs (data: URIs decoded, relative paths kept inside
 * the model's folder), buffers and buffer views (EXT_meshopt_compression decoded), and accessors
 * (checked once, decoded to floats or u32 indices, sparse ones applied). Every range is checked
 * against its buffer in 64-bit arithmetic and charged against the model's limits. */
#include "gltf_read_internal.h"

#include "rill/world.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MESHOPT_EXT "EXT_meshopt_compression"

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
rill_result rill__rd_decode_data_uri(rd *r, const char *uri, const char *where, uint8_t **out,
                                     size_t *out_size, const char **out_mime,
                                     size_t *out_mime_len) {
    const char *comma = strchr(uri, ',');
    if (!comma) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s: data URI without ','", where);
    }
    const char *meta = uri + 5;
    size_t meta_len = (size_t)(comma - meta);
    if (meta_len < 7 || memcmp(comma - 7, ";base64", 7) != 0) {
        return rill__rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: only base64 data URIs are supported",
                             where);
    }
    *out_mime = meta;
    *out_mime_len = meta_len - 7;
    const char *p = comma + 1;
    size_t len = strlen(p);
    while (len > 0 && p[len - 1] == '=') {
        len--;
    }
    size_t cap = len / 4 * 3 + 3;
    RILL_TRY(rill__rd_charge(r, cap, where, ": data URI"));
    uint8_t *dst = rill_malloc_tagged(cap, RILL_MEM_FORMATS);
    if (!dst) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((unsigned char)p[i]);
        if (v < 0) {
            rill_free(dst);
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s: invalid base64 at character %zu", where,
                                 i);
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
rill_result rill__rd_resolve_relative_uri(rd *r, const char *uri, const char *where, char *dst,
                                          size_t cap) {
    char dec[1024], tmp[1100];
    if (!rill_uri_decode(dec, sizeof(dec), uri)) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s: invalid or too long URI", where);
    }
    if (!rill_uri_is_relative_path(dec)) {
        return rill__rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: URI \"%s\" is not a relative path",
                             where, dec);
    }
    uint32_t climb = path_climb(dec);
    if (climb > r->up_levels) {
        return rill__rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: URI \"%s\" leaves the %s", where, dec,
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
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s: invalid or too long URI", where);
    }
    memcpy(tmp + n, dec, len + 1);
    if (!rill_path_normalize(tmp, sizeof(tmp), tmp) || 3u * climb + strlen(tmp) + 1 > cap) {
        return rill__rd_fail(r, RILL_ERR_UNSUPPORTED, "%s: URI \"%s\" leaves the model's folder",
                             where, dec);
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

/* base_dir joined with a path from rill__rd_resolve_relative_uri: each leading "../" takes the last
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
rill_result rill__rd_default_read_file(const char *path, uint8_t **out_data, size_t *out_size,
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

rill_result rill__rd_read_buffers(rd *r) {
    const rill__gj *arr;
    RILL_TRY(rill__rd_js_array(r, r->root, "buffers", "", &arr, &r->buffer_count));
    if (r->buffer_count) {
        r->buffers = rill__gltf_alloc(r->buffer_count, sizeof(rd_buffer));
        if (!r->buffers) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "buffers: out of memory");
        }
    }
    uint32_t i = 0;
    const rill__gj *b;
    RILL__GJ_FOR(b, arr) {
        char where[64];
        rill__rd_index_path(where, sizeof(where), "buffers", i);
        RILL_TRY(rill__rd_js_object(r, b, where));
        uint64_t byte_length;
        if (!rill__gj_get(b, "byteLength")) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.byteLength: missing", where);
        }
        RILL_TRY(rill__rd_js_uint(r, b, "byteLength", where, 0, r->max_bytes, &byte_length));
        const char *uri;
        RILL_TRY(rill__rd_js_str(r, b, "uri", where, &uri));
        rd_buffer *buf = &r->buffers[i];
        char uwhere[80];
        snprintf(uwhere, sizeof(uwhere), "%s.uri", where);
        if (!uri && is_meshopt_fallback(b)) {
            /* Only compressed views may use it (rill__rd_read_views checks): it has no bytes. */
            buf->data = NULL;
            buf->size = (size_t)byte_length;
            buf->owned = false;
        } else if (!uri) {
            /* The GLB-stored buffer: only the first buffer may use the BIN chunk. */
            if (i != 0 || !r->bin) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: no uri and no GLB BIN chunk", where);
            }
            if (byte_length > r->bin_size) {
                return rill__rd_fail(r, RILL_ERR_TRUNCATED,
                                     "%s.byteLength: %llu larger than the BIN chunk (%zu bytes)",
                                     where, (unsigned long long)byte_length, r->bin_size);
            }
            buf->data = (uint8_t *)r->bin;
            buf->size = (size_t)byte_length;
            buf->owned = false;
        } else if (strncmp(uri, "data:", 5) == 0) {
            const char *mime;
            size_t mime_len;
            RILL_TRY(
                rill__rd_decode_data_uri(r, uri, uwhere, &buf->data, &buf->size, &mime, &mime_len));
            buf->owned = true;
            if (buf->size < byte_length) {
                return rill__rd_fail(r, RILL_ERR_TRUNCATED, "%s: %zu bytes, byteLength says %llu",
                                     uwhere, buf->size, (unsigned long long)byte_length);
            }
            buf->size = (size_t)byte_length;
        } else {
            char rel[1024], full[2048];
            RILL_TRY(rill__rd_resolve_relative_uri(r, uri, uwhere, rel, sizeof(rel)));
            if (!r->base_dir) {
                return rill__rd_fail(r, RILL_ERR_UNSUPPORTED,
                                     "%s: external buffer \"%s\" but no folder to resolve it",
                                     uwhere, rel);
            }
            if (!join_up(full, sizeof(full), r->base_dir, rel)) {
                return rill__rd_fail(r, RILL_ERR_LIMIT, "%s: path too long", uwhere);
            }
            rill_error ferr;
            rill_error_clear(&ferr);
            uint8_t *data = NULL;
            size_t size = 0;
            rill_result res = r->read_file(full, &data, &size, r->read_file_user, &ferr);
            if (res != RILL_OK) {
                return rill__rd_fail(r, res, "%s: cannot read \"%s\": %s", uwhere, full, ferr.msg);
            }
            buf->data = data;
            buf->owned = true;
            r->input += size;
            RILL_TRY(rill__rd_charge(r, size, uwhere, ""));
            if (size < byte_length) {
                return rill__rd_fail(r, RILL_ERR_TRUNCATED,
                                     "%s: \"%s\" has %zu bytes, byteLength says %llu", uwhere, full,
                                     size, (unsigned long long)byte_length);
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
    RILL_TRY(rill__rd_js_str(r, ext, key, where, &name));
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
    return rill__rd_fail(r, RILL_ERR_PARSE, "%s.%s: expected %s", where, key, list);
}

/* An EXT_meshopt_compression view: decodes its compressed range into view->decoded, which then
 * stands for the view's bytes (count * byteStride of them, the view's byteLength). */
static rill_result read_meshopt_view(rd *r, const rill__gj *v, const char *view_where,
                                     rd_view *view) {
    const rill__gj *exts, *ext;
    char where[128];
    snprintf(where, sizeof(where), "%s.extensions", view_where);
    RILL_TRY(rill__rd_js_member_object(r, v, "extensions", view_where, &exts));
    RILL_TRY(rill__rd_js_member_object(r, exts, MESHOPT_EXT, where, &ext));
    if (!ext) {
        return RILL_OK;
    }
    snprintf(where, sizeof(where), "%s.extensions.%s", view_where, MESHOPT_EXT);
    static const char *const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char *const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    int32_t buffer;
    uint64_t offset = 0, length, stride, count;
    int mode = 0, filter = 0;
    RILL_TRY(rill__rd_js_index(r, ext, "buffer", where, r->buffer_count, "buffer", &buffer));
    RILL_TRY(rill__rd_js_uint(r, ext, "byteOffset", where, 0, UINT64_MAX >> 1, &offset));
    RILL_TRY(rill__rd_js_uint(r, ext, "byteLength", where, 0, UINT64_MAX >> 1, &length));
    RILL_TRY(rill__rd_js_uint(r, ext, "byteStride", where, 0, 256, &stride));
    RILL_TRY(rill__rd_js_uint(r, ext, "count", where, 0, UINT32_MAX, &count));
    RILL_TRY(meshopt_enum(r, ext, "mode", where, modes, 3, &mode));
    RILL_TRY(meshopt_enum(r, ext, "filter", where, filters, 4, &filter));
    const rd_buffer *src = buffer >= 0 ? &r->buffers[buffer] : NULL;
    if (!src || !src->data || offset > src->size || length > src->size - offset) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s: compressed bytes [%llu, +%llu) not in a buffer "
                             "with data",
                             where, (unsigned long long)offset, (unsigned long long)length);
    }
    rill__gltf_meshopt m = {count, (uint32_t)stride, (rill__meshopt_mode)mode,
                            (rill__meshopt_filter)filter};
    const char *why = rill__gltf_meshopt_check(&m);
    if (why) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: %s", where, why);
    }
    if (count * stride != view->length) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s: count * byteStride is %llu, the view's "
                             "byteLength %zu",
                             where, (unsigned long long)(count * stride), view->length);
    }
    RILL_TRY(rill__rd_charge(r, view->length, where, ""));
    view->decoded = rill__gltf_alloc_raw(view->length, 1);
    if (!view->decoded) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    if (!rill__gltf_meshopt_decode(view->decoded, &m, src->data + offset, (size_t)length)) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: the compressed data does not decode", where);
    }
    return RILL_OK;
}

rill_result rill__rd_read_views(rd *r) {
    const rill__gj *arr;
    RILL_TRY(rill__rd_js_array(r, r->root, "bufferViews", "", &arr, &r->view_count));
    if (r->view_count) {
        r->views = rill__gltf_alloc(r->view_count, sizeof(rd_view));
        if (!r->views) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "bufferViews: out of memory");
        }
    }
    uint32_t i = 0;
    const rill__gj *v;
    RILL__GJ_FOR(v, arr) {
        char where[64];
        rill__rd_index_path(where, sizeof(where), "bufferViews", i);
        RILL_TRY(rill__rd_js_object(r, v, where));
        int32_t buffer;
        RILL_TRY(rill__rd_js_index(r, v, "buffer", where, r->buffer_count, "buffer", &buffer));
        if (buffer < 0) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.buffer: missing", where);
        }
        uint64_t offset = 0, length = 0, stride = 0;
        RILL_TRY(rill__rd_js_uint(r, v, "byteOffset", where, 0, UINT64_MAX >> 1, &offset));
        if (!rill__gj_get(v, "byteLength")) {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.byteLength: missing", where);
        }
        RILL_TRY(rill__rd_js_uint(r, v, "byteLength", where, 0, UINT64_MAX >> 1, &length));
        RILL_TRY(rill__rd_js_uint(r, v, "byteStride", where, 0, 252, &stride));
        if (stride != 0 && stride < 4) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.byteStride: %llu below 4", where,
                                 (unsigned long long)stride);
        }
        size_t bsize = r->buffers[buffer].size;
        if (offset > bsize || length > bsize - offset) {
            return rill__rd_fail(
                r, RILL_ERR_CORRUPT, "%s: bytes [%llu, +%llu) outside buffer %d (%zu bytes)", where,
                (unsigned long long)offset, (unsigned long long)length, buffer, bsize);
        }
        rd_view *view = &r->views[i];
        *view = (rd_view){(uint32_t)buffer, (size_t)offset, (size_t)length, (uint32_t)stride, NULL};
        RILL_TRY(read_meshopt_view(r, v, where, view));
        if (!view->decoded && !r->buffers[buffer].data && length) {
            return rill__rd_fail(
                r, RILL_ERR_CORRUPT,
                "%s: buffer %d is an EXT_meshopt_compression fallback without bytes", where,
                buffer);
        }
        i++;
    }
    return RILL_OK;
}

/* >>accessors --------------------------------------------------------------------------------- */

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
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.%s: expected an array of %u numbers", aw,
                                 keys[k], comps);
        }
        uint32_t i = 0;
        const rill__gj *e;
        RILL__GJ_FOR(e, arr) {
            if (!rill__gj_num_finite(e)) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.%s[%u]: not a finite number", aw,
                                     keys[k], i);
            }
            i++;
        }
    }
    return RILL_OK;
}

/* Checks accessor `index` (its JSON once; later calls hit the cache). */
rill_result rill__rd_accessor_info(rd *r, int32_t index, const rd_accessor **out) {
    rd_accessor *info = &r->acc_info[index];
    *out = info;
    if (r->acc_state[index]) {
        return RILL_OK;
    }
    char aw[40];
    snprintf(aw, sizeof(aw), "accessors[%d]", index);
    const rill__gj *a = r->acc_nodes[index];
    RILL_TRY(rill__rd_js_object(r, a, aw));
    const char *type;
    RILL_TRY(rill__rd_js_str(r, a, "type", aw, &type));
    uint32_t comps = type ? type_comps(type) : 0;
    if (!comps) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.type: missing or unknown", aw);
    }
    uint64_t ct = 0, count = 0, offset = 0;
    RILL_TRY(rill__rd_js_uint(r, a, "componentType", aw, 0, UINT32_MAX, &ct));
    uint32_t csize = component_size((uint32_t)ct);
    if (!csize) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.componentType: missing or unknown", aw);
    }
    if (!rill__gj_get(a, "count")) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.count: missing", aw);
    }
    RILL_TRY(rill__rd_js_uint(r, a, "count", aw, 0, UINT32_MAX, &count));
    if (count == 0) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.count: zero", aw);
    }
    if (count * comps * sizeof(float) > r->max_bytes) {
        return rill__rd_fail(
            r, RILL_ERR_LIMIT,
            "%s: %llu elements would decode to more than the model_bytes limit of %zu "
            "(" RD_RAISE_HINT ")",
            aw, (unsigned long long)count, r->max_bytes);
    }
    RILL_TRY(rill__rd_js_uint(r, a, "byteOffset", aw, 0, UINT64_MAX >> 1, &offset));
    bool normalized = false;
    RILL_TRY(rill__rd_js_bool(r, a, "normalized", aw, &normalized));
    int32_t view;
    RILL_TRY(rill__rd_js_index(r, a, "bufferView", aw, r->view_count, "bufferView", &view));
    RILL_TRY(check_min_max(r, a, aw, comps));
    const rill__gj *sparse;
    RILL_TRY(rill__rd_js_member_object(r, a, "sparse", aw, &sparse));
    uint32_t elem = comps * csize;
    if (view >= 0) {
        /* Matrices of 1- and 2-byte components have column padding; Rill's attributes never use
         * matrices, so they are read as plain packed vectors only when unpadded. */
        uint32_t stride = r->views[view].stride ? r->views[view].stride : elem;
        if (stride < elem) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                 "%s: byteStride %u smaller than the element (%u)", aw, stride,
                                 elem);
        }
        const rd_view *v = &r->views[view];
        uint64_t need = offset + (uint64_t)stride * (count - 1u) + elem; /* no wrap: see limits */
        if (offset > v->length || need > v->length) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT,
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
const uint8_t *rill__rd_view_bytes(const rd *r, const rd_view *v) {
    return v->decoded ? v->decoded : r->buffers[v->buffer].data + v->offset;
}

/* A checked byte range of a view: `count` elements of `elem` bytes, `stride` apart, starting at
 * `offset` inside the view. */
static rill_result view_range(rd *r, int32_t view, uint64_t offset, uint32_t count, uint32_t elem,
                              uint32_t stride, const char *where, const uint8_t **out) {
    const rd_view *v = &r->views[view];
    uint64_t need = offset + (uint64_t)stride * (count - 1u) + elem; /* count >= 1, no wrap */
    if (offset > v->length || need > v->length) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s: needs %llu bytes of bufferView %d which has %zu", where,
                             (unsigned long long)need, view, v->length);
    }
    *out = rill__rd_view_bytes(r, v) + offset;
    return RILL_OK;
}

static const uint8_t *accessor_src(rd *r, const rd_accessor *a, uint32_t *stride) {
    const rd_view *v = &r->views[a->view];
    *stride = v->stride ? v->stride : a->comps * a->comp_size;
    return rill__rd_view_bytes(r, v) + a->offset;
}

/* Applies an accessor's sparse substitution to dst (count * comps floats). */
static rill_result apply_sparse(rd *r, int32_t index, const rd_accessor *a, float *dst) {
    char sw[64];
    snprintf(sw, sizeof(sw), "accessors[%d].sparse", index);
    const rill__gj *sparse = a->sparse;
    uint64_t scount;
    const rill__gj *si = NULL, *sv = NULL;
    RILL_TRY(rill__rd_js_uint(r, sparse, "count", sw, 0, a->count, &scount));
    RILL_TRY(rill__rd_js_member_object(r, sparse, "indices", sw, &si));
    RILL_TRY(rill__rd_js_member_object(r, sparse, "values", sw, &sv));
    if (!si || !sv || scount == 0) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s: needs count >= 1, indices and values", sw);
    }
    int32_t iview = -1, vview = -1;
    uint64_t ioff = 0, voff = 0, ict = 0;
    char iw[80], vw[80];
    snprintf(iw, sizeof(iw), "%s.indices", sw);
    snprintf(vw, sizeof(vw), "%s.values", sw);
    RILL_TRY(rill__rd_js_index(r, si, "bufferView", iw, r->view_count, "bufferView", &iview));
    RILL_TRY(rill__rd_js_index(r, sv, "bufferView", vw, r->view_count, "bufferView", &vview));
    if (iview < 0 || vview < 0) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s: indices and values need a bufferView", sw);
    }
    RILL_TRY(rill__rd_js_uint(r, si, "byteOffset", iw, 0, UINT64_MAX >> 1, &ioff));
    RILL_TRY(rill__rd_js_uint(r, sv, "byteOffset", vw, 0, UINT64_MAX >> 1, &voff));
    RILL_TRY(rill__rd_js_uint(r, si, "componentType", iw, 0, UINT32_MAX, &ict));
    if (ict != GL_UNSIGNED_BYTE && ict != GL_UNSIGNED_SHORT && ict != GL_UNSIGNED_INT) {
        return rill__rd_fail(r, RILL_ERR_PARSE, "%s.componentType: must be an unsigned integer",
                             iw);
    }
    uint32_t elem = a->comps * a->comp_size;
    const uint8_t *ip = NULL, *vp = NULL;
    uint32_t isize = component_size((uint32_t)ict);
    RILL_TRY(view_range(r, iview, ioff, (uint32_t)scount, isize, isize, iw, &ip));
    RILL_TRY(view_range(r, vview, voff, (uint32_t)scount, elem, elem, vw, &vp));
    for (uint64_t k = 0; k < scount; k++) {
        uint32_t target = read_uint(ip + k * isize, (uint32_t)ict);
        if (target >= a->count) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: index %u out of range (%u)", iw, target,
                                 a->count);
        }
        rill__gltf_decode_floats(dst + (size_t)target * a->comps, vp + k * elem, 1, a->comps, elem,
                                 a->component, a->normalized);
    }
    return RILL_OK;
}

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

/* Decodes accessor `index` (already checked by rill__rd_accessor_info) to count * comps floats,
 * making the check `chk` asks for (may be NULL). `where` and `key` name the referencing JSON path.
 */
rill_result rill__rd_accessor_floats(rd *r, int32_t index, const rd_accessor *a, const char *where,
                                     const char *key, rd_check *chk, float **out) {
    *out = NULL;
    uint64_t total = (uint64_t)a->count * a->comps;
    RILL_TRY(rill__rd_charge(r, total * sizeof(float), where, key));
    float *dst = rill__gltf_alloc_raw((size_t)total, sizeof(float));
    if (!dst) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s%s: out of memory", where, key);
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
rill_result rill__rd_accessor_indices(rd *r, int32_t index, const char *where, const char *key,
                                      uint32_t limit, uint32_t **out, uint32_t *out_count) {
    *out = NULL;
    const rd_accessor *a;
    RILL_TRY(rill__rd_accessor_info(r, index, &a));
    if (a->comps != 1 || a->normalized ||
        (a->component != GL_UNSIGNED_BYTE && a->component != GL_UNSIGNED_SHORT &&
         a->component != GL_UNSIGNED_INT)) {
        return rill__rd_fail(
            r, RILL_ERR_CORRUPT,
            "%s%s: accessor %d must be SCALAR unsigned byte/short/int, not normalized", where, key,
            index);
    }
    if (a->view < 0 || a->sparse) {
        /* Rare in index data; the float path handles zeros and sparse substitution, and every
         * value it yields is an integer below 2^32, exact in a float only below 2^24, which the
         * vertex limit (2^24) guarantees for every value that passes the range check. */
        float *f;
        RILL_TRY(rill__rd_charge(r, (uint64_t)a->count * sizeof(uint32_t), where, key));
        RILL_TRY(rill__rd_accessor_floats(r, index, a, where, key, NULL, &f));
        uint32_t *u = rill__gltf_alloc_raw(a->count, sizeof(uint32_t));
        for (uint32_t i = 0; u && i < a->count; i++) {
            if (!(f[i] >= 0.0f) || (double)f[i] >= (double)limit) {
                double v = f[i];
                rill_free(f);
                rill_free(u);
                return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                     "%s%s: accessor %d: value %.0f at %u out of range (%u)", where,
                                     key, index, v, i, limit);
            }
            u[i] = (uint32_t)f[i];
        }
        rill_free(f);
        if (!u) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s%s: out of memory", where, key);
        }
        *out = u;
        *out_count = a->count;
        return RILL_OK;
    }
    RILL_TRY(rill__rd_charge(r, (uint64_t)a->count * sizeof(uint32_t), where, key));
    uint32_t *u = rill__gltf_alloc_raw(a->count, sizeof(uint32_t));
    if (!u) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s%s: out of memory", where, key);
    }
    uint32_t stride;
    const uint8_t *src = accessor_src(r, a, &stride);
    size_t bad = rill__gltf_decode_indices(u, src, a->count, stride, a->component, limit);
    if (bad != a->count) {
        uint32_t v = u[bad];
        rill_free(u);
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s%s: accessor %d: value %u at %zu out of range (%u)", where, key,
                             index, v, bad, limit);
    }
    *out = u;
    *out_count = a->count;
    return RILL_OK;
}
