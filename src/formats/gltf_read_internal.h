/* gltf_read_internal.h: what the files of the glTF reader share: its state (rd), the buffer,
 * view and accessor records, and the functions one file calls in another. Reader-private.
 *   gltf_read.c       errors and limits, JSON helpers, the top level (GLB / .gltf, entry points)
 *   gltf_buffers.c    URIs, buffers and buffer views (meshopt), accessors
 *   gltf_meshes.c     meshes: primitives, indices, morph targets, skin attributes
 *   gltf_materials.c  samplers, textures, images, materials
 *   gltf_nodes.c      nodes, scenes, cameras, lights, skins
 *   gltf_anim_read.c  animations
 *   gltf_variants.c   KHR_materials_variants */
#ifndef RILL_FORMATS_GLTF_READ_INTERNAL_H
#define RILL_FORMATS_GLTF_READ_INTERNAL_H

#include "gltf_internal.h"

#include "gltf_json.h"

/* How to raise the model limit, as every limit message says it (docs/limits.md). */
#define RD_RAISE_HINT                                                                              \
    "raise it: RILL_LIMITS=model_bytes=N, rill --limit model_bytes=N, rill_limits_set, or "        \
    "rill_gltf_read_desc.max_bytes"

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

/* gltf_read.c */

/* Sets r->err to "<file>: <message>" and returns code (every failure of the read goes here). */
rill_result rill__rd_fail(rd *r, rill_result code, const char *fmt, ...) RILL_PRINTF(3, 4);
/* Counts `bytes` of decoded data against the model's limit before they are allocated, so a small
 * file cannot make the reader commit memory without bound (many accessors, accessors without a
 * buffer view that decode to zeros, many primitives naming one huge accessor). */
rill_result rill__rd_charge(rd *r, uint64_t bytes, const char *where, const char *what);
/* dst = a + b, truncated to cap (for JSON paths in messages). */
void rill__rd_join_path(char *dst, size_t cap, const char *a, const char *b);
/* dst = prefix "[" i "]" (for JSON paths such as "meshes[12]"), without snprintf's cost. */
void rill__rd_index_path(char *dst, size_t cap, const char *prefix, uint32_t i);
/* An optional non-negative integer no larger than max. Absent -> *out = def. */
rill_result rill__rd_js_uint(rd *r, const rill__gj *obj, const char *key, const char *where,
                             uint64_t def, uint64_t max, uint64_t *out);
/* An optional index into an array of `count` items; absent -> -1. */
rill_result rill__rd_js_index(rd *r, const rill__gj *obj, const char *key, const char *where,
                              uint32_t count, const char *what, int32_t *out);
/* An optional finite number; absent -> *out = def. */
rill_result rill__rd_js_float(rd *r, const rill__gj *obj, const char *key, const char *where,
                              float def, float *out);
/* An optional array of exactly n numbers; *present (may be NULL) says whether it was there. */
rill_result rill__rd_js_floats(rd *r, const rill__gj *obj, const char *key, const char *where,
                               int n, float *out, bool *present);
/* Fails when one of the n values read at where.key lies beyond the world limit (rill/world.h):
 * a node placed at 3e38 would give inf bounds, distances and camera planes downstream. */
rill_result rill__rd_check_world_limit(rd *r, const char *where, const char *key, const float *v,
                                       int n);
/* An optional boolean; absent -> false. */
rill_result rill__rd_js_bool(rd *r, const rill__gj *obj, const char *key, const char *where,
                             bool *out);
/* An optional string; *out points into the JSON tree (NULL when absent). */
rill_result rill__rd_js_str(rd *r, const rill__gj *obj, const char *key, const char *where,
                            const char **out);
/* The optional "name" of obj, copied (NULL when absent). */
rill_result rill__rd_js_name(rd *r, const rill__gj *obj, const char *where, char **out);
/* A top-level or nested optional array; *out_count = 0 when absent. */
rill_result rill__rd_js_array(rd *r, const rill__gj *obj, const char *key, const char *where,
                              const rill__gj **out, uint32_t *out_count);
/* Fails unless it (the JSON value at where) is an object. */
rill_result rill__rd_js_object(rd *r, const rill__gj *it, const char *where);
/* An optional object member; *out = NULL when absent. */
rill_result rill__rd_js_member_object(rd *r, const rill__gj *obj, const char *key,
                                      const char *where, const rill__gj **out);
/* glTF requires every "extensions" value to be an object of objects, also for extensions the
 * reader does not use; checking them keeps malformed files from passing as valid. */
rill_result rill__rd_check_extensions(rd *r, const rill__gj *obj, const char *where);

/* gltf_buffers.c */

/* Decodes a data: URI ("data:[mime][;base64],payload"). Only base64 payloads are accepted, as
 * glTF requires. *out_mime points into uri (not NUL-terminated; length in *out_mime_len). */
rill_result rill__rd_decode_data_uri(rd *r, const char *uri, const char *where, uint8_t **out,
                                     size_t *out_size, const char **out_mime, size_t *out_mime_len);
/* Percent-decodes a relative URI and normalizes it into dst. Absolute paths, other schemes and
 * paths that climb more than r->up_levels folders above the model's (out of the project) are
 * refused, so a hostile file cannot make the reader open arbitrary files. A URI that climbs k
 * folders keeps k leading "../" segments, followed by the rest normalized. */
rill_result rill__rd_resolve_relative_uri(rd *r, const char *uri, const char *where, char *dst,
                                          size_t cap);
/* user is the base folder: external files are read confined to it (rill_file_open), so a link
 * beside the model cannot lead the read out of the model's folder. */
rill_result rill__rd_default_read_file(const char *path, uint8_t **out_data, size_t *out_size,
                                       void *user, rill_error *err);
/* The steps of the read, in the order gltf_read.c runs them; each fills its part of r->m. */
rill_result rill__rd_read_buffers(rd *r);
rill_result rill__rd_read_views(rd *r);
/* Checks accessor `index` (its JSON once; later calls hit the cache). */
rill_result rill__rd_accessor_info(rd *r, int32_t index, const rd_accessor **out);
/* The first byte of a view: its decoded bytes when it was compressed, else its buffer's. */
const uint8_t *rill__rd_view_bytes(const rd *r, const rd_view *v);
/* Decodes accessor `index` (already checked by rill__rd_accessor_info) to count * comps floats,
 * making the check `chk` asks for (may be NULL). `where` and `key` name the referencing JSON path.
 */
rill_result rill__rd_accessor_floats(rd *r, int32_t index, const rd_accessor *a, const char *where,
                                     const char *key, rd_check *chk, float **out);
/* Reads an index-like accessor (SCALAR, unsigned integer, not normalized) straight into u32
 * values, each checked to be < limit. */
rill_result rill__rd_accessor_indices(rd *r, int32_t index, const char *where, const char *key,
                                      uint32_t limit, uint32_t **out, uint32_t *out_count);

/* gltf_meshes.c */

/* An optional "weights" array of morph weights: exactly `want` finite numbers (want 0: the
 * array must be absent or empty). */
rill_result rill__rd_js_weights(rd *r, const rill__gj *obj, const char *where, uint32_t want,
                                uint32_t *out_count, float **out);
rill_result rill__rd_read_meshes(rd *r);

/* gltf_materials.c */

rill_result rill__rd_read_materials(rd *r);
rill_result rill__rd_read_samplers_textures(rd *r);
rill_result rill__rd_read_images(rd *r);

/* gltf_variants.c (KHR_materials_variants) */

/* The file's variant names (root extensions), before the meshes. */
rill_result rill__rd_read_variants(rd *r);
/* prim's mappings (after its material is read): prim->variant_materials. */
rill_result rill__rd_read_variant_mappings(rd *r, const rill__gj *p, const char *where,
                                           rill_gltf_primitive *prim);

/* gltf_points_lines.c */

/* Turns point / line primitive prim (mode 0 to 3; its indices read, a list of `mode`) into
 * triangles: octahedra for points, prisms for segments (see RILL_GLTF_POINT_LINE_SIZE), normals
 * flat, the other attributes gathered; tangents and edges dropped; bounds recomputed. */
rill_result rill__rd_expand_points_lines(rd *r, int mode, const char *where,
                                         rill_gltf_primitive *prim);

/* gltf_nodes.c */

rill_result rill__rd_read_cameras_lights(rd *r);
rill_result rill__rd_read_nodes(rd *r);
rill_result rill__rd_read_scenes(rd *r);
/* Every joint index that moves a vertex of a mesh must name a joint of each skin the mesh is
 * drawn with (a node's skin and mesh); the renderer indexes its joint matrices with them. */
rill_result rill__rd_check_skinned_meshes(rd *r);
rill_result rill__rd_read_skins(rd *r);

/* gltf_anim_read.c */

rill_result rill__rd_read_animations(rd *r);

#endif
