/* rill/formats/rmip.h: the .rmip texture container: writer, hostile-input reader, the "#low" tail
 * range, the CPU-side texture payload the renderer uploads, the asset-server loader, and the
 * image -> .rmip converter.
 *
 * ON THE FORMAT (version 3, Rill's own; all integers little-endian; docs/formats/rmip.md)
 *     0  "RMIP"
 *     4  u32 version (3)
 *     8  u32 width            12  u32 height          16  u32 level count
 *    20  u32 format (rill_tex_format value)            24  u32 colour space (0 linear, 1 sRGB)
 *    28  u32 flags (RILL_RMIP_FLAG_*)
 *    32  level index: level count entries of { u64 offset, u64 size }, level 0 (largest) first
 *        level data, smallest level first, each level 16-byte aligned
 *   Level i is max(1, width >> i) x max(1, height >> i). Because data is stored smallest first,
 *   the "#low" tail (every level whose longer side is <= 256 px) is one contiguous byte range
 *   ending at the end of the largest tail level; rill_rmip_low_range computes it from the header
 *   and index alone.
 *
 * ON CUBES (version 4)
 *   The same layout with RILL_RMIP_FLAG_CUBE in the flags: width == height is the face size and
 *   each level holds the six faces (+X, -X, +Y, -Y, +Z, -Z; Vulkan's cube orientation) back to
 *   back, so its size is six times a face's. Version-3 readers refuse it by its version. Built
 *   and read by rill/formats/rmip_cube.h; the texture loader refuses cubes.
 *
 * ON LEGACY FILES
 *   The reference engine's versions 1 and 2 (24-byte header "RMIP", u32 version, width, height,
 *   mip count, format code 0-9; levels largest first right after the header, no index) are read
 *   too; their level sizes are derived from the format and dimensions.
 *
 * ON HOSTILE INPUT
 *   Every size is computed in 64 bits with overflow checks and compared with the file length;
 *   dimensions are limited to RILL_IMAGE_MAX_DIM, level counts to the full chain; each stored
 *   level size must equal the size its format and dimensions imply. Errors say
 *   "name: offset N: what".
 *
 * Depends on: rill/base.h, rill/asset.h, rill/formats/bc.h, rill/formats/image.h.
 */
#ifndef RILL_FORMATS_RMIP_H
#define RILL_FORMATS_RMIP_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/formats/bc.h"
#include "rill/formats/image.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_RMIP_VERSION 3u
/* Version 4: the version-3 layout whose flags may hold RILL_RMIP_FLAG_CUBE (a cube map: each
 * level holds six square faces back to back); written for cubes only (rmip_cube.c). */
#define RILL_RMIP_VERSION_CUBE 4u
#define RILL_RMIP_HEADER_SIZE 32u
#define RILL_RMIP_LEGACY_HEADER_SIZE 24u
#define RILL_RMIP_INDEX_ENTRY_SIZE 16u
#define RILL_RMIP_MAX_LEVELS RILL_IMAGE_MAX_LEVELS
/* Bytes that always hold the header and the whole index of a valid file (read this much, or the
 * whole file when it is shorter, to parse any .rmip). */
#define RILL_RMIP_PREFIX_MAX                                                                       \
    (RILL_RMIP_HEADER_SIZE + RILL_RMIP_INDEX_ENTRY_SIZE * RILL_RMIP_MAX_LEVELS)
/* The "#low" tail holds the levels whose longer side is at most this many pixels. */
#define RILL_RMIP_LOW_MAX_SIDE 256u

typedef enum rill_rmip_flags {
    RILL_RMIP_FLAG_NORMAL_MAP = 1u << 0, /* BC5/RGBA: xy (z rebuilt) tangent-space normals */
    RILL_RMIP_FLAG_HAS_ALPHA = 1u << 1,  /* alpha is not constant 255 */
    RILL_RMIP_FLAG_HDR = 1u << 2,        /* values may exceed 1 (RGBA16F) */
    RILL_RMIP_FLAG_CUBE = 1u << 3,       /* version 4 only: six faces +X -X +Y -Y +Z -Z a level */
    RILL_RMIP_FLAG_FORCE_U32 = 0x7FFFFFFF
} rill_rmip_flags;

/* One level as the index describes it: offset and size within the file. */
typedef struct rill_rmip_level {
    uint32_t width, height;
    uint64_t offset, size;
} rill_rmip_level;

/* Everything the header and index say. */
typedef struct rill_rmip_info {
    uint32_t version; /* 1 or 2 (legacy) or 3, or 4 (RILL_RMIP_VERSION_CUBE) */
    uint32_t width, height, level_count;
    uint32_t faces; /* 1, or 6 for a cube (version 4 with RILL_RMIP_FLAG_CUBE; then a level's
                       size is six faces' and width == height) */
    rill_tex_format format;
    bool srgb;
    uint32_t flags;
    uint64_t header_bytes; /* header + index: the bytes before the first level can start */
    rill_rmip_level levels[RILL_RMIP_MAX_LEVELS];
} rill_rmip_info;

/* A byte range of the file holding levels [first_level, first_level + level_count). */
typedef struct rill_rmip_range {
    uint64_t offset, size;
    uint32_t first_level, level_count;
} rill_rmip_range;

/* Parses the header and index from the first `prefix_size` bytes of a file of `file_size` bytes
 * (prefix_size <= file_size; pass the whole file or at least min(file_size, RILL_RMIP_PREFIX_MAX)
 * bytes). Checks every level against file_size. name is for messages (NULL = "<memory>").
 * Errors: RILL_ERR_TRUNCATED, RILL_ERR_CORRUPT, RILL_ERR_VERSION, RILL_ERR_LIMIT,
 * RILL_ERR_UNSUPPORTED (unknown format). */
rill_result rill_rmip_parse(const void *prefix, size_t prefix_size, uint64_t file_size,
                            const char *name, rill_rmip_info *out, rill_error *err);

/* The "#low" range: from the first level whose longer side is <= RILL_RMIP_LOW_MAX_SIDE (or the
 * last level when none is) to the end of the chain, as one byte range covering exactly those
 * levels' bytes (and, in a file Rill wrote, nothing else but alignment padding). */
void rill_rmip_low_range(const rill_rmip_info *info, rill_rmip_range *out);
/* The range covering every level. */
void rill_rmip_full_range(const rill_rmip_info *info, rill_rmip_range *out);

/* >>texture payload --------------------------------------------------------------------------- */

typedef struct rill_tex_level {
    uint32_t width, height;
    const uint8_t *data; /* points into rill_tex_data.storage */
    size_t size;
} rill_tex_level;

/* CPU-side texture data ready to upload (the renderer turns it into its GPU handle,
 * rill_texture): level 0 is the largest level present (for a "#low" load, the first tail level,
 * so width/height are that level's). Owns one block of storage. */
typedef struct rill_tex_data {
    rill_tex_format format;
    bool srgb;
    uint32_t flags;         /* RILL_RMIP_FLAG_* */
    uint32_t width, height; /* of levels[0] */
    uint32_t level_count;
    uint32_t first_level;             /* index in the file's full chain of levels[0] */
    uint32_t full_width, full_height; /* the full chain's base size */
    uint32_t faces;                   /* 1, or 6: each level is six faces back to back */
    rill_tex_level levels[RILL_RMIP_MAX_LEVELS];
    void *storage;
    size_t storage_size;
} rill_tex_data;

/* Builds a texture from bytes of `range` (bytes[0] is file offset range->offset, size must be
 * range->size) of a file described by info. The texture copies what it needs. */
rill_result rill_rmip_texture_from_range(const rill_rmip_info *info, const rill_rmip_range *range,
                                         const void *bytes, size_t size, const char *name,
                                         rill_tex_data *out, rill_error *err);
/* Parses a whole file into a texture (every level). */
rill_result rill_rmip_read(const void *data, size_t size, const char *name, rill_tex_data *out,
                           rill_error *err);
/* Releases the storage and zeroes the texture; NULL is fine. */
void rill_tex_data_free(rill_tex_data *tex);

/* >>writer ------------------------------------------------------------------------------------ */

/* What to write. level_data[i] / level_size[i] for i < level_count, level 0 the largest (width x
 * height); each size must equal rill_tex_level_size for its level's dimensions. */
typedef struct rill_rmip_write_desc {
    uint32_t start_canary; /* must be 0 */
    rill_tex_format format;
    bool srgb;
    uint32_t flags;
    uint32_t width, height, level_count;
    uint32_t faces; /* 0 or 1: a texture (version 3); 6: a cube (version 4, RILL_RMIP_FLAG_CUBE
                       set by the writer; width == height; each level six faces back to back) */
    const void *level_data[RILL_RMIP_MAX_LEVELS];
    size_t level_size[RILL_RMIP_MAX_LEVELS];
    uint32_t end_canary; /* must be 0 */
} rill_rmip_write_desc;

/* Serializes a version-3 .rmip (version 4 for a cube). *out_data is owned by the caller
 * (rill_free). */
rill_result rill_rmip_write(const rill_rmip_write_desc *desc, uint8_t **out_data, size_t *out_size,
                            rill_error *err);

/* >>converter --------------------------------------------------------------------------------- */

typedef enum rill_tex_usage {
    RILL_TEX_USAGE_AUTO = 0, /* HDR file -> HDR; one-channel file -> SINGLE; name containing
                                "normal" or ending "_n" -> NORMAL; otherwise COLOR */
    RILL_TEX_USAGE_COLOR,    /* BC7, sRGB */
    RILL_TEX_USAGE_LINEAR,   /* BC7, linear (masks, packed material data) */
    RILL_TEX_USAGE_NORMAL,   /* BC5 (XY), renormalized mips */
    RILL_TEX_USAGE_SINGLE,   /* BC4 from the red channel */
    RILL_TEX_USAGE_HDR,      /* RGBA16F */
    RILL_TEX_USAGE_NUM,
    RILL_TEX_USAGE_FORCE_U32 = 0x7FFFFFFF
} rill_tex_usage;

/* Converter settings; all-zero = defaults: usage AUTO, format by usage, mips on, BC7 quality 2,
 * encoding on the calling thread.
 * format: NONE = by usage; RGBA8 forces uncompressed (sRGB for colour usage).
 * jobs: borrowed; when not NULL, block compression is split into bands of block rows run as jobs
 *       (the calling thread helps and waits); the output is identical either way. */
typedef struct rill_rmip_convert_desc {
    uint32_t start_canary; /* must be 0 */
    rill_tex_usage usage;
    rill_tex_format format;
    bool no_mips;
    rill_bc7_params bc7;
    rill_jobs *jobs;
    float alpha_cutoff;  /* > 0: keep alpha-test coverage in the mips (rill_mip_desc) */
    uint32_t end_canary; /* must be 0 */
} rill_rmip_convert_desc;

/* Decodes an image file (PNG, JPEG, TGA, HDR, ...) held in memory and encodes it as a .rmip.
 * name is used in messages and by AUTO usage. *out_data is owned by the caller (rill_free).
 * out_usage (may be NULL) receives the usage that was applied. */
rill_result rill_rmip_convert(const void *image_data, size_t image_size, const char *name,
                              const rill_rmip_convert_desc *desc, uint8_t **out_data,
                              size_t *out_size, rill_tex_usage *out_usage, rill_error *err);

/* >>loader ------------------------------------------------------------------------------------ */

/* The asset-server loader for "rmip" files: "path" loads the whole chain (one read), "path#low"
 * reads the header and index, then exactly the tail's byte range (rill_vfs_read_range). Any
 * other label fails. The payload is a rill_tex_data* (free: the loader's unload); its accounted
 * bytes are the level bytes. Name "rmip". */
rill_asset_loader rill_rmip_loader(void);
/* The load function itself (exposed for tests and tools that drive a VFS directly). */
rill_result rill_rmip_load(const rill_asset_load_ctx *ctx, void **out_payload, size_t *out_bytes,
                           rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_RMIP_H */
