/* rmip.c: the .rmip reader (version 3 and the reference engine's versions 1 and 2), the "#low"
 * tail range, the texture payload, and the version-3 writer. The reader treats every byte as
 * hostile: all arithmetic is 64-bit with explicit bounds checks against the file length. */
#include "rill/formats/rmip.h"

#include <string.h>

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t rd64(const uint8_t *p) {
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void wr64(uint8_t *p, uint64_t v) {
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t align16(uint64_t v) {
    return (v + 15u) & ~(uint64_t)15u;
}

/* The formats a version-3 file may name (every rill_tex_format but NONE). */
static bool format_known(uint32_t f) {
    return f > RILL_TEX_FORMAT_NONE && f < RILL_TEX_FORMAT_NUM;
}

/* Legacy format codes 0-9 of the reference engine. */
static bool legacy_format(uint32_t code, rill_tex_format *out_format, bool *out_srgb) {
    static const struct {
        rill_tex_format format;
        bool srgb;
    } table[10] = {
        {RILL_TEX_FORMAT_RGBA8, true}, {RILL_TEX_FORMAT_RGBA8, false}, {RILL_TEX_FORMAT_BC7, true},
        {RILL_TEX_FORMAT_BC7, false},  {RILL_TEX_FORMAT_BC5, false},   {RILL_TEX_FORMAT_BC1, true},
        {RILL_TEX_FORMAT_BC1, false},  {RILL_TEX_FORMAT_BC3, true},    {RILL_TEX_FORMAT_BC3, false},
        {RILL_TEX_FORMAT_BC4, false},
    };
    if (code >= 10) {
        return false;
    }
    *out_format = table[code].format;
    *out_srgb = table[code].srgb;
    return true;
}

/* Checks the dimensions and level count shared by every version; fills the level sizes. */
static rill_result check_dims(rill_rmip_info *info, const char *name, rill_error *err) {
    if (info->width == 0 || info->height == 0) {
        return rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset 8: zero width or height", name);
    }
    if (info->width > RILL_IMAGE_MAX_DIM || info->height > RILL_IMAGE_MAX_DIM) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: offset 8: %ux%u exceeds the %u px limit",
                              name, info->width, info->height, RILL_IMAGE_MAX_DIM);
    }
    if (info->faces == 6 && info->width != info->height) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "%s: offset 8: cube faces of %ux%u (not square)", name, info->width,
                              info->height);
    }
    uint32_t full = rill_image_mip_count(info->width, info->height);
    if (info->level_count == 0 || info->level_count > full) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "%s: offset 16: mip count %u (a %ux%u chain has 1 to %u)", name,
                              info->level_count, info->width, info->height, full);
    }
    for (uint32_t i = 0; i < info->level_count; i++) {
        rill_rmip_level *lv = &info->levels[i];
        lv->width = RILL_MAX(1u, info->width >> i);
        lv->height = RILL_MAX(1u, info->height >> i);
        rill_tex_level_size(info->format, lv->width, lv->height, &lv->size);
        lv->size *= info->faces; /* at most 16384^2 * 16 * 6: far below 2^64 */
    }
    return RILL_OK;
}

rill_result rill_rmip_parse(const void *prefix, size_t prefix_size, uint64_t file_size,
                            const char *name, rill_rmip_info *out, rill_error *err) {
    memset(out, 0, sizeof(*out));
    if (!name) {
        name = "<memory>";
    }
    if (!prefix || prefix_size > file_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: bad prefix", name);
    }
    const uint8_t *p = prefix;
    if (prefix_size < 8) {
        return rill_error_set(err, RILL_ERR_TRUNCATED, "%s: offset %zu: header truncated", name,
                              prefix_size);
    }
    if (memcmp(p, "RMIP", 4) != 0) {
        return rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset 0: not an .rmip (bad magic)",
                              name);
    }
    out->version = rd32(p + 4);
    out->faces = 1;
    if (out->version == 1 || out->version == 2) {
        if (prefix_size < RILL_RMIP_LEGACY_HEADER_SIZE) {
            return rill_error_set(err, RILL_ERR_TRUNCATED, "%s: offset %zu: header truncated", name,
                                  prefix_size);
        }
        out->width = rd32(p + 8);
        out->height = rd32(p + 12);
        out->level_count = rd32(p + 16);
        uint32_t code = rd32(p + 20);
        if (!legacy_format(code, &out->format, &out->srgb)) {
            return rill_error_set(err, RILL_ERR_UNSUPPORTED, "%s: offset 20: format code %u", name,
                                  code);
        }
        if (out->format == RILL_TEX_FORMAT_BC5) {
            out->flags = RILL_RMIP_FLAG_NORMAL_MAP;
        }
        rill_result res = check_dims(out, name, err);
        if (res != RILL_OK) {
            return res;
        }
        out->header_bytes = RILL_RMIP_LEGACY_HEADER_SIZE;
        /* Legacy levels follow the header back to back, largest first. */
        uint64_t off = RILL_RMIP_LEGACY_HEADER_SIZE;
        for (uint32_t i = 0; i < out->level_count; i++) {
            rill_rmip_level *lv = &out->levels[i];
            lv->offset = off;
            if (off > file_size || lv->size > file_size - off) {
                return rill_error_set(err, RILL_ERR_TRUNCATED,
                                      "%s: offset %llu: level %u (%llu bytes) past the end of "
                                      "the file (%llu bytes)",
                                      name, (unsigned long long)off, i,
                                      (unsigned long long)lv->size, (unsigned long long)file_size);
            }
            off += lv->size;
        }
        return RILL_OK;
    }
    if (out->version != RILL_RMIP_VERSION && out->version != RILL_RMIP_VERSION_CUBE) {
        return rill_error_set(err, RILL_ERR_VERSION, "%s: offset 4: version %u (reads 1 to 4)",
                              name, out->version);
    }
    if (prefix_size < RILL_RMIP_HEADER_SIZE) {
        return rill_error_set(err, RILL_ERR_TRUNCATED, "%s: offset %zu: header truncated", name,
                              prefix_size);
    }
    out->width = rd32(p + 8);
    out->height = rd32(p + 12);
    out->level_count = rd32(p + 16);
    uint32_t format = rd32(p + 20), space = rd32(p + 24);
    out->flags = rd32(p + 28);
    if (!format_known(format)) {
        return rill_error_set(err, RILL_ERR_UNSUPPORTED, "%s: offset 20: format %u", name, format);
    }
    if (space > 1) {
        return rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset 24: colour space %u", name, space);
    }
    out->format = (rill_tex_format)format;
    out->srgb = space == 1;
    if (out->version == RILL_RMIP_VERSION_CUBE && (out->flags & RILL_RMIP_FLAG_CUBE)) {
        out->faces = 6; /* a version-3 reader never sees the bit: it refuses version 4 */
    }
    rill_result res = check_dims(out, name, err);
    if (res != RILL_OK) {
        return res;
    }
    out->header_bytes =
        RILL_RMIP_HEADER_SIZE + (uint64_t)RILL_RMIP_INDEX_ENTRY_SIZE * out->level_count;
    if (out->header_bytes > prefix_size) {
        return rill_error_set(err, RILL_ERR_TRUNCATED,
                              "%s: offset %zu: level index truncated (%llu bytes needed)", name,
                              prefix_size, (unsigned long long)out->header_bytes);
    }
    for (uint32_t i = 0; i < out->level_count; i++) {
        const uint8_t *e = p + RILL_RMIP_HEADER_SIZE + RILL_RMIP_INDEX_ENTRY_SIZE * i;
        size_t at = RILL_RMIP_HEADER_SIZE + RILL_RMIP_INDEX_ENTRY_SIZE * (size_t)i;
        rill_rmip_level *lv = &out->levels[i];
        uint64_t off = rd64(e), size = rd64(e + 8);
        if (size != lv->size) {
            return rill_error_set(err, RILL_ERR_CORRUPT,
                                  "%s: offset %zu: level %u is %llu bytes, %ux%u %s needs %llu",
                                  name, at + 8, i, (unsigned long long)size, lv->width, lv->height,
                                  rill_tex_format_name(out->format), (unsigned long long)lv->size);
        }
        if (off < out->header_bytes) {
            return rill_error_set(err, RILL_ERR_CORRUPT,
                                  "%s: offset %zu: level %u starts inside the header (%llu)", name,
                                  at, i, (unsigned long long)off);
        }
        if (off > file_size || size > file_size - off) {
            return rill_error_set(err, RILL_ERR_TRUNCATED,
                                  "%s: offset %zu: level %u (%llu bytes at %llu) past the end of "
                                  "the file (%llu bytes)",
                                  name, at, i, (unsigned long long)size, (unsigned long long)off,
                                  (unsigned long long)file_size);
        }
        lv->offset = off;
    }
    return RILL_OK;
}

static void range_of(const rill_rmip_info *info, uint32_t first, rill_rmip_range *out) {
    memset(out, 0, sizeof(*out));
    if (info->level_count == 0 || first >= info->level_count) {
        return;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = first; i < info->level_count; i++) {
        const rill_rmip_level *lv = &info->levels[i];
        lo = RILL_MIN(lo, lv->offset);
        hi = RILL_MAX(hi, lv->offset + lv->size);
    }
    out->offset = lo;
    out->size = hi - lo;
    out->first_level = first;
    out->level_count = info->level_count - first;
}

void rill_rmip_low_range(const rill_rmip_info *info, rill_rmip_range *out) {
    uint32_t first = info->level_count ? info->level_count - 1 : 0;
    for (uint32_t i = 0; i < info->level_count; i++) {
        const rill_rmip_level *lv = &info->levels[i];
        if (RILL_MAX(lv->width, lv->height) <= RILL_RMIP_LOW_MAX_SIDE) {
            first = i;
            break;
        }
    }
    range_of(info, first, out);
}

void rill_rmip_full_range(const rill_rmip_info *info, rill_rmip_range *out) {
    range_of(info, 0, out);
}

rill_result rill_rmip_texture_from_range(const rill_rmip_info *info, const rill_rmip_range *range,
                                         const void *bytes, size_t size, const char *name,
                                         rill_tex_data *out, rill_error *err) {
    memset(out, 0, sizeof(*out));
    if (!name) {
        name = "<memory>";
    }
    if (!info || !range || !bytes || range->level_count == 0 || size != range->size ||
        range->first_level >= info->level_count ||
        range->level_count > info->level_count - range->first_level) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: bad texture range", name);
    }
    uint64_t total = 0;
    for (uint32_t k = 0; k < range->level_count; k++) {
        const rill_rmip_level *lv = &info->levels[range->first_level + k];
        if (lv->offset < range->offset || lv->offset - range->offset > size ||
            lv->size > size - (lv->offset - range->offset)) {
            return rill_error_set(err, RILL_ERR_CORRUPT,
                                  "%s: offset %llu: level %u lies outside the range read", name,
                                  (unsigned long long)lv->offset, range->first_level + k);
        }
        total += align16(lv->size);
    }
    if (total > SIZE_MAX) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: texture too large", name);
    }
    out->storage = rill_malloc_tagged((size_t)total, RILL_MEM_FORMATS);
    if (!out->storage) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory (%llu bytes)", name,
                              (unsigned long long)total);
    }
    out->storage_size = (size_t)total;
    uint8_t *dst = out->storage;
    for (uint32_t k = 0; k < range->level_count; k++) {
        const rill_rmip_level *lv = &info->levels[range->first_level + k];
        memcpy(dst, (const uint8_t *)bytes + (lv->offset - range->offset), (size_t)lv->size);
        out->levels[k].width = lv->width;
        out->levels[k].height = lv->height;
        out->levels[k].data = dst;
        out->levels[k].size = (size_t)lv->size;
        dst += align16(lv->size);
    }
    out->format = info->format;
    out->srgb = info->srgb;
    out->flags = info->flags;
    out->level_count = range->level_count;
    out->first_level = range->first_level;
    out->width = out->levels[0].width;
    out->height = out->levels[0].height;
    out->full_width = info->width;
    out->full_height = info->height;
    out->faces = info->faces ? info->faces : 1;
    return RILL_OK;
}

rill_result rill_rmip_read(const void *data, size_t size, const char *name, rill_tex_data *out,
                           rill_error *err) {
    memset(out, 0, sizeof(*out));
    rill_rmip_info info;
    rill_result res = rill_rmip_parse(data, size, size, name, &info, err);
    if (res != RILL_OK) {
        return res;
    }
    rill_rmip_range range;
    rill_rmip_full_range(&info, &range);
    return rill_rmip_texture_from_range(&info, &range, (const uint8_t *)data + range.offset,
                                        (size_t)range.size, name, out, err);
}

void rill_tex_data_free(rill_tex_data *tex) {
    if (!tex) {
        return;
    }
    rill_free(tex->storage);
    memset(tex, 0, sizeof(*tex));
}

rill_result rill_rmip_write(const rill_rmip_write_desc *desc, uint8_t **out_data, size_t *out_size,
                            rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_rmip_write", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    *out_data = NULL;
    *out_size = 0;
    if (!desc || !format_known((uint32_t)desc->format)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rmip write: bad format");
    }
    rill_rmip_info info;
    memset(&info, 0, sizeof(info));
    info.format = desc->format;
    info.width = desc->width;
    info.height = desc->height;
    info.level_count = desc->level_count;
    if (desc->faces > 1 && desc->faces != 6) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rmip write: %u faces (1 or 6)",
                              desc->faces);
    }
    info.faces = desc->faces == 6 ? 6u : 1u;
    rill_result res = check_dims(&info, "rmip write", err);
    if (res != RILL_OK) {
        return res;
    }
    uint64_t header =
        RILL_RMIP_HEADER_SIZE + (uint64_t)RILL_RMIP_INDEX_ENTRY_SIZE * info.level_count;
    uint64_t cur = align16(header);
    /* Smallest level first, so every tail of the chain is one contiguous range. */
    for (uint32_t k = info.level_count; k-- > 0;) {
        rill_rmip_level *lv = &info.levels[k];
        if (!desc->level_data[k] || desc->level_size[k] != lv->size) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "rmip write: level %u is %zu bytes, %ux%u %s needs %llu", k,
                                  desc->level_size[k], lv->width, lv->height,
                                  rill_tex_format_name(info.format), (unsigned long long)lv->size);
        }
        cur = align16(cur);
        lv->offset = cur;
        cur += lv->size;
    }
    if (cur > SIZE_MAX) {
        return rill_error_set(err, RILL_ERR_LIMIT, "rmip write: too large");
    }
    uint8_t *buf = rill_calloc_tagged(1, (size_t)cur, RILL_MEM_FORMATS);
    if (!buf) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rmip write: out of memory");
    }
    memcpy(buf, "RMIP", 4);
    wr32(buf + 4, info.faces == 6 ? RILL_RMIP_VERSION_CUBE : RILL_RMIP_VERSION);
    wr32(buf + 8, info.width);
    wr32(buf + 12, info.height);
    wr32(buf + 16, info.level_count);
    wr32(buf + 20, (uint32_t)info.format);
    wr32(buf + 24, desc->srgb ? 1u : 0u);
    wr32(buf + 28, info.faces == 6 ? desc->flags | RILL_RMIP_FLAG_CUBE : desc->flags);
    for (uint32_t k = 0; k < info.level_count; k++) {
        uint8_t *e = buf + RILL_RMIP_HEADER_SIZE + RILL_RMIP_INDEX_ENTRY_SIZE * k;
        wr64(e, info.levels[k].offset);
        wr64(e + 8, info.levels[k].size);
        memcpy(buf + info.levels[k].offset, desc->level_data[k], (size_t)info.levels[k].size);
    }
    *out_data = buf;
    *out_size = (size_t)cur;
    return RILL_OK;
}
