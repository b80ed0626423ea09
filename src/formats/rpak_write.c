/* rpak_write.c: the .rpak pack writer: entries added from memory, files or a folder (compressed
 * with zstd where it gains), laid out in name order, and written to a file (atomically, through a
 * temporary beside it), to memory, or appended to an executable. The byte layout is in
 * docs/formats/rpak.md. */
#include "rpak_internal.h"
#include "rpak_store.h"

#include "lib_hooks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* >>writer ------------------------------------------------------------------------------------ */

typedef struct wr_entry {
    char *path;
    uint8_t *stored;
    size_t stored_size;
    size_t raw_size;
    uint8_t compression;
} wr_entry;

struct rill_rpak_writer {
    rill_rpak_writer_desc desc;
    RILL_ARRAY(wr_entry) entries;
    rill_map names; /* hash of path -> 1 */
};

rill_rpak_writer_desc rill_rpak_writer_query_defaults(void) {
    rill_rpak_writer_desc d = {0};
    d.zstd_level = 9;
    d.chunk_size = RILL_RPAK_DEFAULT_CHUNK_SIZE;
    d.min_gain_percent = 5;
    return d;
}

rill_rpak_writer *rill_rpak_writer_create(const rill_rpak_writer_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_rpak_writer_create", err) != RILL_OK) {
        return NULL;
    }
    rill_rpak_writer_desc d = desc ? *desc : (rill_rpak_writer_desc){0};
    rill_rpak_writer_desc def = rill_rpak_writer_query_defaults();
    if (d.zstd_level == 0) {
        d.zstd_level = def.zstd_level;
    }
    if (d.chunk_size == 0) {
        d.chunk_size = def.chunk_size;
    }
    if (d.min_gain_percent == 0) {
        d.min_gain_percent = def.min_gain_percent;
    }
    if (!is_pow2(d.chunk_size) || d.chunk_size < RPAK_MIN_CHUNK || d.chunk_size > RPAK_MAX_CHUNK ||
        d.min_gain_percent > 100) {
        RILL_LOG_ERROR(RPAK_MODULE, "rpak writer: chunk_size %u or min_gain_percent %u invalid",
                       d.chunk_size, d.min_gain_percent);
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_rpak_writer_create: chunk_size %u or min_gain_percent %u invalid",
                       d.chunk_size, d.min_gain_percent);
        return NULL;
    }
    rill_rpak_writer *w = rill_calloc_tagged(1, sizeof(*w), RILL_MEM_FORMATS);
    if (w) {
        w->desc = d;
    } else {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_rpak_writer_create: out of memory");
    }
    return w;
}

void rill_rpak_writer_destroy(rill_rpak_writer *w) {
    if (!w) {
        return;
    }
    for (uint32_t i = 0; i < w->entries.len; ++i) {
        rill_free(w->entries.data[i].path);
        rill_free(w->entries.data[i].stored);
    }
    rill_array_free(&w->entries);
    rill_map_free(&w->names);
    rill_free(w);
}

/* Formats that are compressed already: zstd would gain nothing, and keeping them raw lets range
 * reads (texture mip tails) read in place. */
static bool ext_precompressed(const char *path) {
    static const char *const exts[] = {"rmip", "png", "jpg", "jpeg", "ktx2",  "ogg", "mp3",
                                       "webp", "zst", "gz",  "zip",  "basis", "rpak"};
    const char *ext = rill_path_ext(path);
    for (size_t i = 0; i < RILL_COUNTOF(exts); ++i) {
        const char *a = ext;
        const char *b = exts[i];
        while (*a && *b && ((*a | 0x20) == *b)) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0') {
            return true;
        }
    }
    return false;
}

/* A new entry's name normalized into norm (RILL_RPAK_MAX_NAME + 1 bytes) and its hash, once the
 * writer can take it: a valid name not in the pack yet, a size readers accept, room left. */
static rill_result check_new(rill_rpak_writer *w, const char *path, size_t size, char *norm,
                             uint64_t *out_hash, rill_error *err) {
    if (!rill_path_normalize(norm, RILL_RPAK_MAX_NAME + 1u, path) ||
        !rill__rpak_name_valid(norm, strlen(norm))) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "%s: not a valid pack entry name (relative, no '#', <= %u bytes)",
                              path, RILL_RPAK_MAX_NAME);
    }
    if ((uint64_t)size > RILL_RPAK_MAX_ENTRY_SIZE) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: %zu bytes is too large for a pack entry",
                              norm, size);
    }
    rill_result lim = rill_limit_check(RILL_LIMIT_ENTRY_BYTES, size, norm, err);
    if (lim != RILL_OK) {
        return lim; /* readers would refuse the entry */
    }
    uint64_t h = rill_hash64_str(norm);
    uint64_t dummy;
    if (rill_map_get(&w->names, h, &dummy)) {
        for (uint32_t i = 0; i < w->entries.len; ++i) {
            if (strcmp(w->entries.data[i].path, norm) == 0) {
                return rill_error_set(err, RILL_ERR_ALREADY_EXISTS, "%s: already in the pack",
                                      norm);
            }
        }
    }
    if (w->entries.len >= RILL_RPAK_MAX_ENTRIES) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: pack entry limit (%u) reached", norm,
                              RILL_RPAK_MAX_ENTRIES);
    }
    *out_hash = h;
    return RILL_OK;
}

rill_result rill__rpak_store(const rill_rpak_writer_desc *desc, const char *path, const void *data,
                             size_t size, rill_rpak_compression compression, rill__rpak_stored *out,
                             rill_error *err) {
    memset(out, 0, sizeof *out);
    out->raw_size = size;
    out->compression = RILL_RPAK_COMPRESSION_RAW;
    bool try_zstd =
        size > 0 && (compression == RILL_RPAK_COMPRESSION_ZSTD ||
                     (compression == RILL_RPAK_COMPRESSION_AUTO && !ext_precompressed(path)));
    if (try_zstd) {
        size_t bound = ZSTD_compressBound(size);
        uint8_t *z = rill_malloc_tagged(bound, RILL_MEM_FORMATS);
        if (!z) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        }
        ZSTD_CCtx *cctx = ZSTD_createCCtx_advanced(rill__zstd_mem);
        if (!cctx) {
            rill_free(z);
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        }
        size_t zn = ZSTD_compressCCtx(cctx, z, bound, data, size, desc->zstd_level);
        ZSTD_freeCCtx(cctx);
        if (ZSTD_isError(zn)) {
            rill_free(z);
            return rill_error_set(err, RILL_ERR_IO, "%s: zstd: %s", path, ZSTD_getErrorName(zn));
        }
        /* Readers refuse a zstd entry that expands more than compression_ratio-fold (the
         * decompression-bomb check), so such content is stored raw: the pack stays readable. */
        bool bomb_like =
            (uint64_t)size > (uint64_t)zn * rill_limit_get(RILL_LIMIT_COMPRESSION_RATIO);
        bool keep =
            !bomb_like && (compression == RILL_RPAK_COMPRESSION_ZSTD ||
                           (uint64_t)zn * 100u <= (uint64_t)size * (100u - desc->min_gain_percent));
        if (keep) {
            out->data = z;
            out->size = zn;
            out->compression = RILL_RPAK_COMPRESSION_ZSTD;
            return RILL_OK;
        }
        rill_free(z);
    }
    out->size = size;
    if (size > 0) {
        out->data = rill_malloc_tagged(size, RILL_MEM_FORMATS);
        if (!out->data) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        }
        memcpy(out->data, data, size);
    }
    return RILL_OK;
}

/* Takes s's bytes into the pack under norm (hash h); on failure frees them. */
static rill_result commit(rill_rpak_writer *w, const char *norm, uint64_t h, rill__rpak_stored *s,
                          rill_error *err) {
    wr_entry e = {.stored = s->data,
                  .stored_size = s->size,
                  .raw_size = s->raw_size,
                  .compression = s->compression};
    s->data = NULL;
    e.path = rill_strdup(norm);
    if (!e.path || !rill_map_set(&w->names, h, 1) || !rill_array_push(&w->entries, e)) {
        rill_free(e.path);
        rill_free(e.stored);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", norm);
    }
    return RILL_OK;
}

rill_result rill_rpak_writer_add(rill_rpak_writer *w, const char *path, const void *data,
                                 size_t size, rill_rpak_compression compression, rill_error *err) {
    if (!w || !path || (!data && size > 0) || (uint32_t)compression >= RILL_RPAK_COMPRESSION_NUM) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak writer: add: bad arguments");
    }
    char norm[RILL_RPAK_MAX_NAME + 1];
    uint64_t h = 0;
    rill__rpak_stored s;
    rill_result r = check_new(w, path, size, norm, &h, err);
    if (r == RILL_OK) {
        r = rill__rpak_store(&w->desc, norm, data, size, compression, &s, err);
    }
    return r == RILL_OK ? commit(w, norm, h, &s, err) : r;
}

rill_result rill__rpak_writer_add_stored(rill_rpak_writer *w, const char *path,
                                         rill__rpak_stored *s, rill_error *err) {
    char norm[RILL_RPAK_MAX_NAME + 1];
    uint64_t h = 0;
    rill_result r = check_new(w, path, s->raw_size, norm, &h, err);
    if (r != RILL_OK) {
        rill_free(s->data);
        s->data = NULL;
        return r;
    }
    return commit(w, norm, h, s, err);
}

const rill_rpak_writer_desc *rill__rpak_writer_desc(const rill_rpak_writer *w) {
    return &w->desc;
}

typedef struct add_dir_ctx {
    rill_rpak_writer *w;
    const char *dir;
    rill_rpak_compression compression;
    rill_error *err;
} add_dir_ctx;

static rill_result add_dir_visit(const char *rel_path, void *user) {
    add_dir_ctx *ctx = user;
    char full[4096];
    if (!rill_path_join(full, sizeof(full), ctx->dir, rel_path)) {
        return rill_error_set(ctx->err, RILL_ERR_INVALID_ARGUMENT, "%s: path too long", rel_path);
    }
    uint8_t *data = NULL;
    size_t size = 0;
    /* Confined to the folder: a link in it to /etc/passwd must not end up in the pack. */
    rill_result r = rill_file_read_all_in(ctx->dir, full, 0, &data, &size, ctx->err);
    if (r == RILL_OK) {
        r = rill_rpak_writer_add(ctx->w, rel_path, data, size, ctx->compression, ctx->err);
    }
    rill_free(data);
    return r;
}

rill_result rill_rpak_writer_add_dir(rill_rpak_writer *w, const char *dir,
                                     rill_rpak_compression compression, rill_error *err) {
    if (!w || !dir) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak writer: add_dir: bad args");
    }
    if (!rill_dir_exists(dir)) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: folder not found", dir);
    }
    add_dir_ctx ctx = {w, dir, compression, err};
    return rill_dir_walk(dir, add_dir_visit, &ctx, err);
}

static int wr_entry_cmp(const void *a, const void *b) {
    return strcmp(((const wr_entry *)a)->path, ((const wr_entry *)b)->path);
}

/* Where everything goes, computed once from the sorted entries. */
typedef struct wr_layout {
    uint64_t *offsets; /* per entry, from the pack start */
    uint64_t index_offset;
    uint64_t index_size;
    uint64_t total;
    uint64_t chunk_count;
    uint64_t names_size;
} wr_layout;

static rill_result wr_layout_make(rill_rpak_writer *w, wr_layout *L, rill_error *err) {
    memset(L, 0, sizeof(*L));
    if (w->entries.len > 1) {
        qsort(w->entries.data, w->entries.len, sizeof(wr_entry), wr_entry_cmp);
    }
    const uint32_t cs = w->desc.chunk_size;
    L->offsets =
        rill_calloc_tagged(w->entries.len ? w->entries.len : 1, sizeof(uint64_t), RILL_MEM_FORMATS);
    if (!L->offsets) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rpak writer: out of memory");
    }
    uint64_t cursor = RILL_RPAK_HEADER_SIZE;
    for (uint32_t i = 0; i < w->entries.len; ++i) {
        const wr_entry *e = &w->entries.data[i];
        cursor = RILL_ALIGN_UP(cursor, (uint64_t)RILL_RPAK_ALIGN);
        L->offsets[i] = cursor;
        cursor += e->stored_size;
        if (e->compression == RILL_RPAK_COMPRESSION_RAW) {
            L->chunk_count += (e->raw_size + cs - 1u) / cs;
        }
        L->names_size += strlen(e->path);
    }
    L->index_offset = RILL_ALIGN_UP(cursor, (uint64_t)RILL_RPAK_ALIGN);
    L->index_size =
        (uint64_t)w->entries.len * RPAK_ENTRY_RECORD_SIZE + L->chunk_count * 8u + L->names_size;
    L->total = L->index_offset + L->index_size + RILL_RPAK_TRAILER_SIZE;
    if (L->chunk_count > UINT32_MAX || L->names_size > UINT32_MAX || L->total > SIZE_MAX) {
        rill_free(L->offsets);
        L->offsets = NULL;
        return rill_error_set(err, RILL_ERR_LIMIT, "rpak writer: pack too large");
    }
    return RILL_OK;
}

static void wr_header(const rill_rpak_writer *w, uint8_t hd[RILL_RPAK_HEADER_SIZE]) {
    memset(hd, 0, RILL_RPAK_HEADER_SIZE);
    memcpy(hd, RPAK_HEADER_MAGIC, 8);
    wr32(hd + 8, RILL_RPAK_VERSION);
    wr32(hd + 12, RILL_RPAK_HEADER_SIZE);
    wr32(hd + 16, w->desc.chunk_size);
}

/* Writes the index into idx[L->index_size] and the trailer into tr[64]. */
static void wr_index_and_trailer(const rill_rpak_writer *w, const wr_layout *L, uint8_t *idx,
                                 uint8_t tr[RILL_RPAK_TRAILER_SIZE]) {
    const uint32_t cs = w->desc.chunk_size;
    uint8_t *rec = idx;
    uint8_t *chunks = idx + (size_t)w->entries.len * RPAK_ENTRY_RECORD_SIZE;
    uint8_t *names = chunks + (size_t)L->chunk_count * 8u;
    uint32_t chunk_cursor = 0;
    uint32_t name_cursor = 0;
    for (uint32_t i = 0; i < w->entries.len; ++i, rec += RPAK_ENTRY_RECORD_SIZE) {
        const wr_entry *e = &w->entries.data[i];
        size_t name_len = strlen(e->path);
        memset(rec, 0, RPAK_ENTRY_RECORD_SIZE);
        wr64(rec + 0, L->offsets[i]);
        wr64(rec + 8, e->stored_size);
        wr64(rec + 16, e->raw_size);
        wr64(rec + 24, rill_hash64(e->stored, e->stored_size));
        wr32(rec + 32, name_cursor);
        wr16(rec + 36, (uint16_t)name_len);
        rec[38] = e->compression;
        wr32(rec + 40, e->compression == RILL_RPAK_COMPRESSION_RAW ? chunk_cursor : 0);
        if (e->compression == RILL_RPAK_COMPRESSION_RAW) {
            for (size_t off = 0; off < e->raw_size; off += cs) {
                size_t len = RILL_MIN((size_t)cs, e->raw_size - off);
                wr64(chunks + (size_t)chunk_cursor * 8u, rill_hash64(e->stored + off, len));
                chunk_cursor++;
            }
        }
        memcpy(names + name_cursor, e->path, name_len);
        name_cursor += (uint32_t)name_len;
    }
    memset(tr, 0, RILL_RPAK_TRAILER_SIZE);
    wr64(tr + 0, L->index_offset);
    wr64(tr + 8, L->index_size);
    wr64(tr + 16, L->total);
    wr64(tr + 24, rill_hash64(idx, (size_t)L->index_size));
    wr32(tr + 32, w->entries.len);
    wr32(tr + 36, (uint32_t)L->chunk_count);
    wr32(tr + 40, (uint32_t)L->names_size);
    wr32(tr + 44, RILL_RPAK_VERSION);
    wr64(tr + 48, rill_hash64(tr, 48));
    memcpy(tr + 56, RPAK_TRAILER_MAGIC, 8);
}

rill_result rill_rpak_writer_finish_memory(rill_rpak_writer *w, uint8_t **out_data,
                                           size_t *out_size, rill_error *err) {
    if (out_data) {
        *out_data = NULL;
    }
    if (out_size) {
        *out_size = 0;
    }
    if (!w || !out_data || !out_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak writer: finish: bad args");
    }
    wr_layout L;
    rill_result r = wr_layout_make(w, &L, err);
    if (r != RILL_OK) {
        return r;
    }
    uint8_t *buf = rill_calloc_tagged(1, (size_t)L.total, RILL_MEM_FORMATS);
    if (!buf) {
        rill_free(L.offsets);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rpak writer: out of memory (%llu B)",
                              (unsigned long long)L.total);
    }
    wr_header(w, buf);
    for (uint32_t i = 0; i < w->entries.len; ++i) {
        const wr_entry *e = &w->entries.data[i];
        if (e->stored_size) {
            memcpy(buf + L.offsets[i], e->stored, e->stored_size);
        }
    }
    wr_index_and_trailer(w, &L, buf + L.index_offset, buf + L.index_offset + L.index_size);
    rill_free(L.offsets);
    *out_data = buf;
    *out_size = (size_t)L.total;
    return RILL_OK;
}

/* Writes n bytes, or zero padding when data is NULL. */
static bool wr_put(FILE *f, const void *data, size_t n) {
    static const uint8_t zeros[RILL_RPAK_ALIGN] = {0};
    if (data) {
        return n == 0 || fwrite(data, 1, n, f) == n;
    }
    RILL_ASSERT(n <= sizeof(zeros));
    return n == 0 || fwrite(zeros, 1, n, f) == n;
}

rill_result rill_rpak_writer_finish_file(rill_rpak_writer *w, const char *out_path,
                                         rill_error *err) {
    if (!w || !out_path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak writer: no output path");
    }
    /* Streamed to a temporary file beside the target and renamed into place, so a failed or
     * interrupted write never leaves a half pack under the final name, and the pack is never
     * held twice in memory. */
    wr_layout L;
    rill_result r = wr_layout_make(w, &L, err);
    if (r != RILL_OK) {
        return r;
    }
    uint8_t *idx = rill_malloc_tagged(L.index_size ? (size_t)L.index_size : 1, RILL_MEM_FORMATS);
    char tmp[4200];
    int n = snprintf(tmp, sizeof(tmp), "%s.tmp%ld", out_path, (long)getpid());
    if (!idx || n < 0 || (size_t)n >= sizeof(tmp)) {
        rill_free(idx);
        rill_free(L.offsets);
        return rill_error_set(err, idx ? RILL_ERR_INVALID_ARGUMENT : RILL_ERR_OUT_OF_MEMORY,
                              "%s: cannot prepare the pack", out_path);
    }
    uint8_t hd[RILL_RPAK_HEADER_SIZE];
    uint8_t tr[RILL_RPAK_TRAILER_SIZE];
    wr_header(w, hd);
    wr_index_and_trailer(w, &L, idx, tr);
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL;
    uint64_t cursor = RILL_RPAK_HEADER_SIZE;
    ok = ok && wr_put(f, hd, sizeof(hd));
    for (uint32_t i = 0; ok && i < w->entries.len; ++i) {
        const wr_entry *e = &w->entries.data[i];
        ok = wr_put(f, NULL, (size_t)(L.offsets[i] - cursor)) &&
             wr_put(f, e->stored, e->stored_size);
        cursor = L.offsets[i] + e->stored_size;
    }
    ok = ok && wr_put(f, NULL, (size_t)(L.index_offset - cursor)) &&
         wr_put(f, idx, (size_t)L.index_size) && wr_put(f, tr, sizeof(tr));
    if (f) {
        ok = (fflush(f) == 0) && ok;
        ok = (fclose(f) == 0) && ok;
    }
    rill_free(idx);
    rill_free(L.offsets);
    if (!ok || rename(tmp, out_path) != 0) {
        int saved = errno;
        remove(tmp);
        return rill_error_set(err, RILL_ERR_IO, "%s: cannot write the pack (%s)", out_path,
                              strerror(saved));
    }
    return RILL_OK;
}

rill_result rill_rpak_append_to_file(const char *target_path, const char *pack_path,
                                     rill_error *err) {
    if (!target_path || !pack_path) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak append: bad arguments");
    }
    uint8_t *pack = NULL;
    size_t pack_size = 0;
    rill_result r = rill_file_read_all(pack_path, &pack, &pack_size, err);
    if (r != RILL_OK) {
        return r;
    }
    /* Check it is a pack before touching the target. */
    rill_rpak *probe = NULL;
    r = rill_rpak_open_memory(pack, pack_size, pack_path, &probe, err);
    rill_rpak_close(probe);
    if (r != RILL_OK) {
        rill_free(pack);
        return r;
    }
    FILE *f = fopen(target_path, "ab");
    if (!f) {
        rill_free(pack);
        return rill_error_set(err, RILL_ERR_IO, "%s: cannot open for appending (%s)", target_path,
                              strerror(errno));
    }
    long end = 0;
    if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0) {
        fclose(f);
        rill_free(pack);
        return rill_error_set(err, RILL_ERR_IO, "%s: cannot seek", target_path);
    }
    static const uint8_t zeros[RILL_RPAK_ALIGN] = {0};
    size_t pad = (size_t)(RILL_ALIGN_UP((uint64_t)end, (uint64_t)RILL_RPAK_ALIGN) - (uint64_t)end);
    bool ok = fwrite(zeros, 1, pad, f) == pad && fwrite(pack, 1, pack_size, f) == pack_size;
    ok = (fclose(f) == 0) && ok;
    rill_free(pack);
    if (!ok) {
        return rill_error_set(err, RILL_ERR_IO, "%s: write failed while appending %s", target_path,
                              pack_path);
    }
    return RILL_OK;
}
