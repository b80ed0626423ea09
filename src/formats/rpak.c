/* rpak.c: the .rpak pack reader (hostile input) and VFS mount glue; the writer is rpak_write.c.
 * The byte layout is in docs/formats/rpak.md; its constants are in rpak_internal.h.
 *
 * The reader never trusts a number from the file: each offset and size is checked against the
 * bytes that exist before it is used, counts are capped, names must already be normalized asset
 * paths, and stored bytes are hashed before they are returned or decoded.
 */
#include "rpak_internal.h"

#include "lib_hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A name is valid when it is a normalized project-relative path without '#' or control bytes. */
bool rill__rpak_name_valid(const char *name, size_t len) {
    if (len == 0 || len > RILL_RPAK_MAX_NAME) {
        return false;
    }
    for (size_t i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || c == 0x7F || c == '#' || c == '\\') {
            return false;
        }
    }
    char norm[RILL_RPAK_MAX_NAME + 1];
    char copy[RILL_RPAK_MAX_NAME + 1];
    memcpy(copy, name, len);
    copy[len] = '\0';
    if (!rill_path_normalize(norm, sizeof(norm), copy)) {
        return false;
    }
    return strcmp(norm, copy) == 0;
}

/* >>reader ------------------------------------------------------------------------------------ */

typedef struct rpak_entry {
    uint64_t offset;
    uint64_t stored_size;
    uint64_t raw_size;
    uint64_t checksum;
    uint32_t chunk_first;
    uint32_t chunk_count;
    uint8_t compression;
    const char *name; /* into rill_rpak.names */
} rpak_entry;

struct rill_rpak {
    char *name;
    int fd;                /* -1 for a memory pack */
    const uint8_t *memory; /* borrowed */
    uint64_t base;         /* absolute offset of the pack start in the file or memory */
    uint64_t pack_size;
    uint32_t chunk_size;
    uint32_t entry_count;
    rpak_entry *entries;
    uint64_t *chunk_hashes;
    char *names;      /* every name, NUL-terminated, back to back */
    rill_map by_name; /* hash of name -> entry index */
    _Atomic uint64_t read_calls;
    _Atomic uint64_t bytes_read;
    _Atomic uint64_t checksum_failures;
};

/* Reads `size` bytes at absolute offset `off` of the backing store. */
static rill_result src_read(rill_rpak *p, uint64_t off, void *dst, size_t size, rill_error *err) {
    atomic_fetch_add(&p->read_calls, 1);
    atomic_fetch_add(&p->bytes_read, (uint64_t)size);
    if (p->fd < 0) {
        memcpy(dst, p->memory + off, size);
        return RILL_OK;
    }
    uint8_t *d = dst;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(p->fd, d + done, size - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return rill_error_set(err, n == 0 ? RILL_ERR_TRUNCATED : RILL_ERR_IO,
                                  "%s: offset %llu: read of %zu bytes failed (%s)", p->name,
                                  (unsigned long long)(off + done), size - done,
                                  n == 0 ? "end of file" : strerror(errno));
        }
        done += (size_t)n;
    }
    return RILL_OK;
}

/* Parses and validates header, trailer and index. `total` is the size of the backing store. */
/* Checks an entry's declared sizes against the limits (rill/base.h) when the pack opens, so no
 * later read or verify inflates more than they allow: entry_bytes for any entry; for zstd
 * entries compression_ratio (real assets compress 2-20x, a zstd bomb about 32000x, so a bomb
 * kept under entry_bytes still fails it) and decompressed_bytes for the sum over the pack. */
static rill_result entry_check_limits(const rill_rpak *p, const rpak_entry *e, uint64_t rec_off,
                                      uint64_t *declared_zstd, rill_error *err) {
    char where[RILL_RPAK_MAX_NAME + 320];
    snprintf(where, sizeof(where), "%s: offset %llu: entry '%s'", p->name,
             (unsigned long long)rec_off, e->name);
    rill_result r = rill_limit_check(RILL_LIMIT_ENTRY_BYTES, e->raw_size, where, err);
    if (r != RILL_OK || e->compression != RILL_RPAK_COMPRESSION_ZSTD || e->stored_size == 0) {
        return r;
    }
    uint64_t ratio = (e->raw_size + e->stored_size - 1u) / e->stored_size; /* rounded up */
    r = rill_limit_check(RILL_LIMIT_COMPRESSION_RATIO, ratio, where, err);
    if (r != RILL_OK) {
        return r;
    }
    *declared_zstd += e->raw_size; /* each term <= 4 GiB, at most 2^20 entries: no overflow */
    snprintf(where, sizeof(where), "%s: compressed entries up to '%s'", p->name, e->name);
    return rill_limit_check(RILL_LIMIT_DECOMPRESSED_BYTES, *declared_zstd, where, err);
}

static rill_result rpak_load_index(rill_rpak *p, uint64_t total, rill_error *err) {
    const char *nm = p->name;
    uint8_t tr[RILL_RPAK_TRAILER_SIZE];
    uint8_t hd[RILL_RPAK_HEADER_SIZE];
    if (total < RILL_RPAK_HEADER_SIZE + RILL_RPAK_TRAILER_SIZE) {
        return rill_error_set(err, RILL_ERR_TRUNCATED,
                              "%s: offset 0: %llu bytes is too small to hold a pack", nm,
                              (unsigned long long)total);
    }
    uint64_t tr_off = total - RILL_RPAK_TRAILER_SIZE;
    rill_result r = src_read(p, tr_off, tr, sizeof(tr), err);
    if (r != RILL_OK) {
        return r;
    }
    if (memcmp(tr + 56, RPAK_TRAILER_MAGIC, 8) != 0) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "%s: offset %llu: no pack trailer (missing RPAKEND magic)", nm,
                              (unsigned long long)(tr_off + 56));
    }
    if (rd64(tr + 48) != rill_hash64(tr, 48)) {
        return rill_error_set(err, RILL_ERR_CHECKSUM, "%s: offset %llu: trailer checksum mismatch",
                              nm, (unsigned long long)tr_off);
    }
    uint64_t index_offset = rd64(tr + 0);
    uint64_t index_size = rd64(tr + 8);
    uint64_t pack_size = rd64(tr + 16);
    uint64_t index_hash = rd64(tr + 24);
    uint32_t entry_count = rd32(tr + 32);
    uint32_t chunk_count = rd32(tr + 36);
    uint32_t names_size = rd32(tr + 40);
    uint32_t version = rd32(tr + 44);
    if (version != RILL_RPAK_VERSION) {
        return rill_error_set(err, RILL_ERR_VERSION,
                              "%s: offset %llu: pack version %u, this reader knows %u", nm,
                              (unsigned long long)(tr_off + 44), version, RILL_RPAK_VERSION);
    }
    if (pack_size < RILL_RPAK_HEADER_SIZE + RILL_RPAK_TRAILER_SIZE || pack_size > total) {
        return rill_error_set(err, RILL_ERR_TRUNCATED,
                              "%s: offset %llu: pack size %llu does not fit the %llu-byte file", nm,
                              (unsigned long long)(tr_off + 16), (unsigned long long)pack_size,
                              (unsigned long long)total);
    }
    p->base = total - pack_size;
    p->pack_size = pack_size;
    r = src_read(p, p->base, hd, sizeof(hd), err);
    if (r != RILL_OK) {
        return r;
    }
    if (memcmp(hd, RPAK_HEADER_MAGIC, 8) != 0) {
        return rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset %llu: bad pack header magic", nm,
                              (unsigned long long)p->base);
    }
    if (rd32(hd + 8) != RILL_RPAK_VERSION) {
        return rill_error_set(err, RILL_ERR_VERSION, "%s: offset %llu: header version %u", nm,
                              (unsigned long long)(p->base + 8), rd32(hd + 8));
    }
    if (rd32(hd + 12) != RILL_RPAK_HEADER_SIZE) {
        return rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset %llu: header size %u", nm,
                              (unsigned long long)(p->base + 12), rd32(hd + 12));
    }
    p->chunk_size = rd32(hd + 16);
    if (!is_pow2(p->chunk_size) || p->chunk_size < RPAK_MIN_CHUNK ||
        p->chunk_size > RPAK_MAX_CHUNK) {
        return rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset %llu: bad chunk size %u", nm,
                              (unsigned long long)(p->base + 16), p->chunk_size);
    }
    uint64_t data_end = pack_size - RILL_RPAK_TRAILER_SIZE; /* the index ends here */
    if (entry_count > RILL_RPAK_MAX_ENTRIES) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: %u entries exceed the limit of %u", nm,
                              entry_count, RILL_RPAK_MAX_ENTRIES);
    }
    uint64_t expect = (uint64_t)entry_count * RPAK_ENTRY_RECORD_SIZE + (uint64_t)chunk_count * 8u +
                      (uint64_t)names_size;
    if (index_size != expect || index_offset < RILL_RPAK_HEADER_SIZE || index_offset > data_end ||
        index_size != data_end - index_offset) {
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "%s: offset %llu: index (offset %llu, %llu bytes) does not match "
                              "its %u entries, %u chunks and %u name bytes",
                              nm, (unsigned long long)tr_off, (unsigned long long)index_offset,
                              (unsigned long long)index_size, entry_count, chunk_count, names_size);
    }
    /* index_size <= pack_size <= total, so this allocation is bounded by the real file size. */
    uint8_t *idx = rill_malloc_tagged(index_size ? (size_t)index_size : 1, RILL_MEM_FORMATS);
    p->entries =
        rill_calloc_tagged(entry_count ? entry_count : 1, sizeof(rpak_entry), RILL_MEM_FORMATS);
    p->chunk_hashes = rill_calloc_tagged(chunk_count ? chunk_count : 1, 8, RILL_MEM_FORMATS);
    p->names = rill_malloc_tagged((size_t)names_size + entry_count + 1, RILL_MEM_FORMATS);
    if (!idx || !p->entries || !p->chunk_hashes || !p->names ||
        !rill_map_reserve(&p->by_name, entry_count)) {
        rill_free(idx);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory reading the index",
                              nm);
    }
    r = src_read(p, p->base + index_offset, idx, (size_t)index_size, err);
    if (r == RILL_OK && rill_hash64(idx, (size_t)index_size) != index_hash) {
        r = rill_error_set(err, RILL_ERR_CHECKSUM, "%s: offset %llu: index checksum mismatch", nm,
                           (unsigned long long)index_offset);
    }
    const uint8_t *chunks = idx + (size_t)entry_count * RPAK_ENTRY_RECORD_SIZE;
    const uint8_t *names = chunks + (size_t)chunk_count * 8u;
    for (uint32_t c = 0; r == RILL_OK && c < chunk_count; ++c) {
        p->chunk_hashes[c] = rd64(chunks + (size_t)c * 8u);
    }
    uint32_t name_cursor = 0; /* names are packed in entry order, back to back */
    size_t out_cursor = 0;
    uint32_t next_chunk = 0;    /* chunk runs are packed in entry order too */
    uint64_t declared_zstd = 0; /* decompressed bytes the zstd entries declare so far */
    for (uint32_t i = 0; r == RILL_OK && i < entry_count; ++i) {
        const uint8_t *rec = idx + (size_t)i * RPAK_ENTRY_RECORD_SIZE;
        uint64_t rec_off = index_offset + (uint64_t)i * RPAK_ENTRY_RECORD_SIZE;
        rpak_entry *e = &p->entries[i];
        e->offset = rd64(rec + 0);
        e->stored_size = rd64(rec + 8);
        e->raw_size = rd64(rec + 16);
        e->checksum = rd64(rec + 24);
        uint32_t name_off = rd32(rec + 32);
        uint16_t name_len = rd16(rec + 36);
        e->compression = rec[38];
        uint8_t flags = rec[39];
        e->chunk_first = rd32(rec + 40);
        if (flags != 0 || rd32(rec + 44) != 0) {
            r = rill_error_set(err, RILL_ERR_CORRUPT,
                               "%s: offset %llu: entry %u: reserved bits set", nm,
                               (unsigned long long)rec_off, i);
            break;
        }
        if (name_off != name_cursor || name_len > names_size - name_cursor ||
            !rill__rpak_name_valid((const char *)names + name_off, name_len)) {
            r = rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset %llu: entry %u: invalid name", nm,
                               (unsigned long long)rec_off, i);
            break;
        }
        memcpy(p->names + out_cursor, names + name_off, name_len);
        p->names[out_cursor + name_len] = '\0';
        e->name = p->names + out_cursor;
        out_cursor += (size_t)name_len + 1u;
        name_cursor += name_len;
        if (e->offset < RILL_RPAK_HEADER_SIZE || e->offset % RILL_RPAK_ALIGN != 0 ||
            e->offset > index_offset || e->stored_size > index_offset - e->offset) {
            r = rill_error_set(err, RILL_ERR_CORRUPT,
                               "%s: offset %llu: entry '%s': data (offset %llu, %llu bytes) lies "
                               "outside the data area",
                               nm, (unsigned long long)rec_off, e->name,
                               (unsigned long long)e->offset, (unsigned long long)e->stored_size);
            break;
        }
        if (e->raw_size > RILL_RPAK_MAX_ENTRY_SIZE) {
            r = rill_error_set(err, RILL_ERR_LIMIT, "%s: offset %llu: entry '%s': %llu bytes", nm,
                               (unsigned long long)rec_off, e->name,
                               (unsigned long long)e->raw_size);
            break;
        }

        if (e->compression == RILL_RPAK_COMPRESSION_RAW) {
            uint64_t n = (e->raw_size + p->chunk_size - 1u) / p->chunk_size;
            if (e->raw_size != e->stored_size || e->chunk_first != next_chunk ||
                n > chunk_count - next_chunk) {
                r = rill_error_set(err, RILL_ERR_CORRUPT,
                                   "%s: offset %llu: entry '%s': raw sizes or chunk table "
                                   "inconsistent",
                                   nm, (unsigned long long)rec_off, e->name);
                break;
            }
            e->chunk_count = (uint32_t)n;
            next_chunk += (uint32_t)n;
        } else if (e->compression == RILL_RPAK_COMPRESSION_ZSTD) {
            if (e->chunk_first != 0 || e->stored_size == 0) {
                r = rill_error_set(err, RILL_ERR_CORRUPT,
                                   "%s: offset %llu: entry '%s': bad zstd entry record", nm,
                                   (unsigned long long)rec_off, e->name);
                break;
            }
            /* Every zstd block that yields bytes costs at least 4 stored bytes (a 3-byte header
             * and one RLE byte) and yields at most 128 KiB, so no frame expands more than
             * RPAK_ZSTD_MAX_RATIO-fold. A larger declared size cannot be real; refusing it here
             * keeps a tiny hostile entry from making the reader allocate gigabytes. */
            if ((e->raw_size + RPAK_ZSTD_MAX_RATIO - 1u) / RPAK_ZSTD_MAX_RATIO > e->stored_size) {
                r = rill_error_set(err, RILL_ERR_CORRUPT,
                                   "%s: offset %llu: entry '%s': %llu zstd bytes cannot hold "
                                   "%llu bytes of content",
                                   nm, (unsigned long long)rec_off, e->name,
                                   (unsigned long long)e->stored_size,
                                   (unsigned long long)e->raw_size);
                break;
            }
            e->chunk_count = 0;
        } else {
            r = rill_error_set(err, RILL_ERR_UNSUPPORTED,
                               "%s: offset %llu: entry '%s': unknown compression %u", nm,
                               (unsigned long long)rec_off, e->name, e->compression);
            break;
        }
        r = entry_check_limits(p, e, rec_off, &declared_zstd, err);
        if (r != RILL_OK) {
            break;
        }
        uint64_t h = rill_hash64_str(e->name);
        uint64_t prev;
        if (rill_map_get(&p->by_name, h, &prev)) {
            r = rill_error_set(err, RILL_ERR_CORRUPT, "%s: offset %llu: entry '%s' appears twice",
                               nm, (unsigned long long)rec_off, e->name);
            break;
        }
        rill_map_set(&p->by_name, h, i);
    }
    if (r == RILL_OK && (name_cursor != names_size || next_chunk != chunk_count)) {
        r = rill_error_set(err, RILL_ERR_CORRUPT,
                           "%s: offset %llu: index has unused name or chunk bytes", nm,
                           (unsigned long long)index_offset);
    }
    rill_free(idx);
    if (r == RILL_OK) {
        p->entry_count = entry_count;
    }
    return r;
}

static rill_rpak *rpak_alloc(const char *name) {
    rill_rpak *p = rill_calloc_tagged(1, sizeof(*p), RILL_MEM_FORMATS);
    if (!p) {
        return NULL;
    }
    p->fd = -1;
    p->name = rill_strdup(name ? name : "(memory pack)");
    if (!p->name) {
        rill_free(p);
        return NULL;
    }
    return p;
}

void rill_rpak_close(rill_rpak *pak) {
    if (!pak) {
        return;
    }
    if (pak->fd >= 0) {
        close(pak->fd);
    }
    rill_map_free(&pak->by_name);
    rill_free(pak->entries);
    rill_free(pak->chunk_hashes);
    rill_free(pak->names);
    rill_free(pak->name);
    rill_free(pak);
}

rill_result rill_rpak_open_memory(const void *data, size_t size, const char *name,
                                  rill_rpak **out_pak, rill_error *err) {
    if (out_pak) {
        *out_pak = NULL;
    }
    if (!out_pak || (!data && size > 0)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak: open_memory: bad arguments");
    }
    rill_rpak *p = rpak_alloc(name);
    if (!p) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rpak: out of memory");
    }
    p->memory = data;
    rill_result r = rpak_load_index(p, size, err);
    if (r != RILL_OK) {
        rill_rpak_close(p);
        return r;
    }
    *out_pak = p;
    return RILL_OK;
}

rill_result rill_rpak_open_file(const char *path, rill_rpak **out_pak, rill_error *err) {
    if (out_pak) {
        *out_pak = NULL;
    }
    if (!path || !out_pak) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak: open_file: bad arguments");
    }
    /* rill_file_open refuses FIFOs and devices without blocking or reading them. */
    rill_file f;
    rill_result r = rill_file_open(path, NULL, &f, err);
    if (r != RILL_OK) {
        return r;
    }
    rill_rpak *p = rpak_alloc(path);
    if (!p) {
        rill_file_close(&f);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    p->fd = f.fd;
    r = rpak_load_index(p, f.size, err);
    if (r != RILL_OK) {
        rill_rpak_close(p);
        return r;
    }
    *out_pak = p;
    return RILL_OK;
}

const char *rill_rpak_name(const rill_rpak *pak) {
    return pak ? pak->name : "";
}

uint32_t rill_rpak_entry_count(const rill_rpak *pak) {
    return pak ? pak->entry_count : 0;
}

bool rill_rpak_entry_info_get(const rill_rpak *pak, uint32_t index, rill_rpak_entry_info *out) {
    if (!pak || !out || index >= pak->entry_count) {
        return false;
    }
    const rpak_entry *e = &pak->entries[index];
    out->path = e->name;
    out->offset = e->offset;
    out->stored_size = e->stored_size;
    out->raw_size = e->raw_size;
    out->compression = (rill_rpak_compression)e->compression;
    out->checksum = e->checksum;
    return true;
}

int32_t rill_rpak_find(const rill_rpak *pak, const char *path) {
    char norm[RILL_RPAK_MAX_NAME + 1];
    if (!pak || !path || !rill_path_normalize(norm, sizeof(norm), path) || !norm[0]) {
        return -1;
    }
    uint64_t idx;
    if (!rill_map_get(&pak->by_name, rill_hash64_str(norm), &idx) || idx >= pak->entry_count ||
        strcmp(pak->entries[idx].name, norm) != 0) {
        return -1;
    }
    return (int32_t)idx;
}

static rill_result checksum_fail(rill_rpak *p, const rpak_entry *e, const char *what,
                                 uint64_t where, uint64_t expected, uint64_t got, rill_error *err) {
    atomic_fetch_add(&p->checksum_failures, 1);
    return rill_error_set(err, RILL_ERR_CHECKSUM,
                          "%s: entry '%s': offset %llu: %s checksum mismatch (expected %016llx, "
                          "got %016llx)",
                          p->name, e->name, (unsigned long long)where, what,
                          (unsigned long long)expected, (unsigned long long)got);
}

/* Reads and checks the stored bytes of an entry into a new buffer with one spare byte. */
static rill_result read_stored(rill_rpak *p, const rpak_entry *e, uint8_t **out, rill_error *err) {
    *out = NULL;
    if (e->stored_size > SIZE_MAX - 1u) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: entry '%s': too large", p->name, e->name);
    }
    uint8_t *buf = rill_malloc_tagged((size_t)e->stored_size + 1u, RILL_MEM_FORMATS);
    if (!buf) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: entry '%s': out of memory", p->name,
                              e->name);
    }
    rill_result r = src_read(p, p->base + e->offset, buf, (size_t)e->stored_size, err);
    if (r == RILL_OK) {
        uint64_t h = rill_hash64(buf, (size_t)e->stored_size);
        if (h != e->checksum) {
            r = checksum_fail(p, e, "entry", e->offset, e->checksum, h, err);
        }
    }
    if (r != RILL_OK) {
        rill_free(buf);
        return r;
    }
    *out = buf;
    return RILL_OK;
}

rill_result rill_rpak_read_entry(rill_rpak *pak, uint32_t index, uint8_t **out_data,
                                 size_t *out_size, rill_error *err) {
    if (out_data) {
        *out_data = NULL;
    }
    if (out_size) {
        *out_size = 0;
    }
    if (!pak || !out_data || index >= pak->entry_count) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: no entry %u",
                              pak ? pak->name : "rpak", index);
    }
    const rpak_entry *e = &pak->entries[index];
    uint8_t *stored = NULL;
    rill_result r = read_stored(pak, e, &stored, err);
    if (r != RILL_OK) {
        return r;
    }
    if (e->compression == RILL_RPAK_COMPRESSION_RAW) {
        stored[e->stored_size] = '\0';
        *out_data = stored;
        if (out_size) {
            *out_size = (size_t)e->stored_size;
        }
        return RILL_OK;
    }
    /* zstd: the stored bytes passed their checksum, so a decoding failure here means the writer
     * was broken; it is still an error, never garbage. */
    unsigned long long content = ZSTD_getFrameContentSize(stored, (size_t)e->stored_size);
    if (content != e->raw_size || e->raw_size > SIZE_MAX - 1u) {
        rill_free(stored);
        return rill_error_set(err, RILL_ERR_CORRUPT,
                              "%s: entry '%s': offset %llu: zstd frame size does not match the "
                              "index (%llu bytes)",
                              pak->name, e->name, (unsigned long long)e->offset,
                              (unsigned long long)e->raw_size);
    }
    uint8_t *raw = rill_malloc_tagged((size_t)e->raw_size + 1u, RILL_MEM_FORMATS);
    if (!raw) {
        rill_free(stored);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: entry '%s': out of memory",
                              pak->name, e->name);
    }
    ZSTD_DCtx *dctx = ZSTD_createDCtx_advanced(rill__zstd_mem);
    if (!dctx) {
        rill_free(stored);
        rill_free(raw);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: entry '%s': out of memory",
                              pak->name, e->name);
    }
    size_t got =
        ZSTD_decompressDCtx(dctx, raw, (size_t)e->raw_size, stored, (size_t)e->stored_size);
    ZSTD_freeDCtx(dctx);
    rill_free(stored);
    if (ZSTD_isError(got) || got != e->raw_size) {
        rill_free(raw);
        return rill_error_set(err, RILL_ERR_CORRUPT, "%s: entry '%s': offset %llu: zstd: %s",
                              pak->name, e->name, (unsigned long long)e->offset,
                              ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output");
    }
    raw[e->raw_size] = '\0';
    *out_data = raw;
    if (out_size) {
        *out_size = (size_t)e->raw_size;
    }
    return RILL_OK;
}

rill_result rill_rpak_read_range(rill_rpak *pak, uint32_t index, uint64_t offset, size_t size,
                                 void *dst, rill_error *err) {
    if (!pak || index >= pak->entry_count || (!dst && size > 0)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: read_range: bad arguments",
                              pak ? pak->name : "rpak");
    }
    const rpak_entry *e = &pak->entries[index];
    if (offset > e->raw_size || (uint64_t)size > e->raw_size - offset) {
        return rill_error_set(err, RILL_ERR_TRUNCATED,
                              "%s: entry '%s': range at %llu of %zu bytes is past its end (%llu)",
                              pak->name, e->name, (unsigned long long)offset, size,
                              (unsigned long long)e->raw_size);
    }
    if (size == 0) {
        return RILL_OK;
    }
    if (e->compression != RILL_RPAK_COMPRESSION_RAW) {
        uint8_t *all = NULL;
        rill_result r = rill_rpak_read_entry(pak, index, &all, NULL, err);
        if (r == RILL_OK) {
            memcpy(dst, all + offset, size);
        }
        rill_free(all);
        return r;
    }
    /* Raw: read exactly the chunks the range touches and check each before its bytes are used.
     * Chunks the range covers whole are read straight into dst and checked in place; only the
     * partly covered first and last chunks go through a bounce buffer. */
    uint64_t cs = pak->chunk_size;
    uint64_t c0 = offset / cs;
    uint64_t c1 = (offset + size - 1u) / cs;
    uint64_t range_end = offset + size;
    uint8_t *bounce = NULL;
    rill_result r = RILL_OK;
    for (uint64_t c = c0; r == RILL_OK && c <= c1; ++c) {
        uint64_t cstart = c * cs;
        uint64_t clen = RILL_MIN(cs, e->raw_size - cstart);
        bool whole = offset <= cstart && range_end >= cstart + clen;
        uint8_t *target = whole ? (uint8_t *)dst + (cstart - offset) : bounce;
        if (!target) {
            bounce = rill_malloc_tagged((size_t)cs, RILL_MEM_FORMATS);
            if (!bounce) {
                r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: entry '%s': out of memory",
                                   pak->name, e->name);
                break;
            }
            target = bounce;
        }
        r = src_read(pak, pak->base + e->offset + cstart, target, (size_t)clen, err);
        if (r != RILL_OK) {
            break;
        }
        uint64_t h = rill_hash64(target, (size_t)clen);
        uint64_t want = pak->chunk_hashes[e->chunk_first + c];
        if (h != want) {
            r = checksum_fail(pak, e, "chunk", e->offset + cstart, want, h, err);
            break;
        }
        if (!whole) {
            uint64_t from = RILL_MAX(offset, cstart);
            uint64_t to = RILL_MIN(range_end, cstart + clen);
            memcpy((uint8_t *)dst + (from - offset), target + (from - cstart), (size_t)(to - from));
        }
    }
    rill_free(bounce);
    return r;
}

rill_result rill_rpak_verify_entry(rill_rpak *pak, uint32_t index, rill_error *err) {
    if (!pak || index >= pak->entry_count) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: no entry %u",
                              pak ? pak->name : "rpak", index);
    }
    const rpak_entry *e = &pak->entries[index];
    if (e->compression != RILL_RPAK_COMPRESSION_RAW || e->raw_size == 0) {
        uint8_t *data = NULL;
        rill_result r = rill_rpak_read_entry(pak, index, &data, NULL, err);
        rill_free(data);
        return r;
    }
    /* Raw: check chunk by chunk first (a failure then names the damaged chunk's offset, and range
     * reads depend on these checksums), then the whole-entry checksum. */
    uint8_t *buf = rill_malloc_tagged((size_t)e->raw_size, RILL_MEM_FORMATS);
    if (!buf) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: entry '%s': out of memory",
                              pak->name, e->name);
    }
    rill_result r = rill_rpak_read_range(pak, index, 0, (size_t)e->raw_size, buf, err);
    if (r == RILL_OK) {
        uint64_t h = rill_hash64(buf, (size_t)e->raw_size);
        if (h != e->checksum) {
            r = checksum_fail(pak, e, "entry", e->offset, e->checksum, h, err);
        }
    }
    rill_free(buf);
    return r;
}

rill_result rill_rpak_verify(rill_rpak *pak, uint32_t *out_bad_entries, rill_error *err) {
    uint32_t bad = 0;
    rill_result first = RILL_OK;
    if (!pak) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak: verify: no pack");
    }
    for (uint32_t i = 0; i < pak->entry_count; ++i) {
        rill_error local = {0};
        rill_result r = rill_rpak_verify_entry(pak, i, &local);
        if (r != RILL_OK) {
            bad++;
            if (first == RILL_OK) {
                first = r;
                if (err) {
                    *err = local;
                }
            }
        }
    }
    if (out_bad_entries) {
        *out_bad_entries = bad;
    }
    return first;
}

void rill_rpak_get_stats(const rill_rpak *pak, rill_rpak_stats *out_stats) {
    if (!out_stats) {
        return;
    }
    memset(out_stats, 0, sizeof(*out_stats));
    if (!pak) {
        return;
    }
    rill_rpak *p = (rill_rpak *)pak; /* atomics: loads do not modify */
    out_stats->read_calls = atomic_load(&p->read_calls);
    out_stats->bytes_read = atomic_load(&p->bytes_read);
    out_stats->checksum_failures = atomic_load(&p->checksum_failures);
}
/* >>vfs mount --------------------------------------------------------------------------------- */

static bool mount_stat(void *user, const char *path, uint64_t *out_size) {
    rill_rpak *p = user;
    int32_t i = rill_rpak_find(p, path);
    if (i < 0) {
        return false;
    }
    *out_size = p->entries[i].raw_size;
    return true;
}

static rill_result mount_read_all(void *user, const char *path, uint8_t **out_data,
                                  size_t *out_size, rill_error *err) {
    rill_rpak *p = user;
    int32_t i = rill_rpak_find(p, path);
    if (i < 0) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: not in pack %s", path, p->name);
    }
    return rill_rpak_read_entry(p, (uint32_t)i, out_data, out_size, err);
}

static rill_result mount_read_range(void *user, const char *path, uint64_t offset, size_t size,
                                    void *dst, rill_error *err) {
    rill_rpak *p = user;
    int32_t i = rill_rpak_find(p, path);
    if (i < 0) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: not in pack %s", path, p->name);
    }
    return rill_rpak_read_range(p, (uint32_t)i, offset, size, dst, err);
}

static void mount_list(void *user, const char *prefix, rill_vfs_list_fn fn, void *fn_user) {
    rill_rpak *p = user;
    size_t n = strlen(prefix);
    for (uint32_t i = 0; i < p->entry_count; ++i) {
        if (strncmp(p->entries[i].name, prefix, n) == 0) {
            if (!fn(p->entries[i].name, p->entries[i].raw_size, fn_user)) {
                return;
            }
        }
    }
}

static void mount_close(void *user) {
    rill_rpak_close(user);
}

rill_result rill_rpak_mount(rill_vfs *vfs, rill_rpak *pak, rill_error *err) {
    if (!vfs || !pak) {
        rill_rpak_close(pak);
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak mount: bad arguments");
    }
    rill_vfs_mount_ops ops = {
        .name = pak->name,
        .stat = mount_stat,
        .read_all = mount_read_all,
        .read_range = mount_read_range,
        .list = mount_list,
        .close = mount_close,
        .user = pak,
    };
    rill_result r = rill_vfs_mount(vfs, &ops, err);
    if (r != RILL_OK) {
        rill_rpak_close(pak);
    }
    return r;
}

rill_result rill_rpak_mount_file(rill_vfs *vfs, const char *path, rill_rpak **out_pak,
                                 rill_error *err) {
    if (out_pak) {
        *out_pak = NULL;
    }
    rill_rpak *p = NULL;
    rill_result r = rill_rpak_open_file(path, &p, err);
    if (r != RILL_OK) {
        return r;
    }
    r = rill_rpak_mount(vfs, p, err);
    if (r == RILL_OK) {
        RILL_LOG_INFO(RPAK_MODULE, "mounted pack %s (%u entries)", path, p->entry_count);
        if (out_pak) {
            *out_pak = p;
        }
    }
    return r;
}

/* True when the file ends with a pack trailer magic (a pack may be appended to it). */
static bool file_has_trailer(const char *path) {
    int64_t size = rill_file_size(path);
    uint8_t magic[8];
    if (size < (int64_t)(RILL_RPAK_HEADER_SIZE + RILL_RPAK_TRAILER_SIZE)) {
        return false;
    }
    if (rill_file_read_range(path, (uint64_t)size - 8u, 8, magic, NULL) != RILL_OK) {
        return false;
    }
    return memcmp(magic, RPAK_TRAILER_MAGIC, 8) == 0;
}

rill_result rill_rpak_mount_default_exe(rill_vfs *vfs, const char *cmdline_pack,
                                        const char *exe_path, uint32_t *out_mounted,
                                        rill_error *err) {
    uint32_t mounted = 0;
    rill_result r = RILL_OK;
    if (out_mounted) {
        *out_mounted = 0;
    }
    if (!vfs) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rpak mount_default: no vfs");
    }
    /* 1. The pack named on the command line: the user asked for it, so failing is an error. */
    if (cmdline_pack && cmdline_pack[0]) {
        r = rill_rpak_mount_file(vfs, cmdline_pack, NULL, err);
        if (r != RILL_OK) {
            return r;
        }
        mounted++;
    }
    if (exe_path && exe_path[0]) {
        /* 2. A pack appended to the executable. */
        if (file_has_trailer(exe_path)) {
            r = rill_rpak_mount_file(vfs, exe_path, NULL, err);
            if (r != RILL_OK) {
                goto done;
            }
            mounted++;
        }
        /* 3. `<exe>.rpak` beside the executable. */
        char side[4096];
        int n = snprintf(side, sizeof(side), "%s.rpak", exe_path);
        if (n > 0 && (size_t)n < sizeof(side) && rill_file_exists(side)) {
            r = rill_rpak_mount_file(vfs, side, NULL, err);
            if (r != RILL_OK) {
                goto done;
            }
            mounted++;
        }
    }
done:
    if (out_mounted) {
        *out_mounted = mounted;
    }
    return r;
}

rill_result rill_rpak_mount_default(rill_vfs *vfs, const char *cmdline_pack, uint32_t *out_mounted,
                                    rill_error *err) {
    char exe[4096];
    const char *exe_path = rill_exe_path(exe, sizeof(exe)) ? exe : NULL;
    return rill_rpak_mount_default_exe(vfs, cmdline_pack, exe_path, out_mounted, err);
}
