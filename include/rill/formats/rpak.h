/* rill/formats/rpak.h: the .rpak pack format: writing packs, reading them, and mounting them into
 * a rill_vfs. The byte-level layout is specified in docs/formats/rpak.md.
 *
 * ON THE FORMAT (summary)
 *   A pack is a 32-byte header, entry data, an index, and a 64-byte trailer that ends the file.
 *   Entries are stored raw or zstd-compressed; entries start 16-byte aligned so a byte range of
 *   an already-compressed file (.rmip, .png, .ktx2, ...) is read in place. Every entry carries a
 *   64-bit XXH3 checksum of its stored bytes, verified before anything is decoded; raw entries also
 * carry one checksum per fixed-size chunk (16 KiB by default) so a range read verifies exactly the
 * chunks it touches. The trailer records the pack's total size, so a pack appended to any file (an
 * executable) is found from the end of that file.
 *
 * ON TRUST
 *   The reader treats a pack as hostile: every offset and size is bounds-checked, entry counts
 *   and sizes are limited, names are validated, and content is checked against its checksum on
 *   every read. A mismatch is RILL_ERR_CHECKSUM with a message naming the entry; damaged data is
 *   never returned.
 *
 * ON LOOKUP ORDER
 *   rill_rpak_mount_default mounts, in this order: the pack given on the command line, a pack
 *   appended to the executable, `<exe>.rpak` beside the executable. Loose roots mounted with
 *   rill_vfs_mount_dir are always searched after every pack.
 *
 * Depends on: rill/base.h, rill/asset.h, zstd.
 */
#ifndef RILL_FORMATS_RPAK_H
#define RILL_FORMATS_RPAK_H

#include "rill/asset.h"
#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_RPAK_VERSION 1u
#define RILL_RPAK_HEADER_SIZE 32u
#define RILL_RPAK_TRAILER_SIZE 64u
#define RILL_RPAK_ALIGN 16u
/* Reader limits: a pack that exceeds one is rejected with RILL_ERR_LIMIT. */
#define RILL_RPAK_MAX_ENTRIES (1u << 20)
#define RILL_RPAK_MAX_NAME 1024u
#define RILL_RPAK_MAX_ENTRY_SIZE ((uint64_t)1 << 32) /* 4 GiB of content per entry */
/* 16 KiB: bench/pack measured 4 KiB range reads at ~2.8 us with 16 KiB chunks against ~6-12 us
 * with 64 KiB chunks (loose files: ~2.4 us); the chunk table costs 8 bytes per chunk (0.05%). */
#define RILL_RPAK_DEFAULT_CHUNK_SIZE (16u * 1024u)

typedef enum rill_rpak_compression {
    RILL_RPAK_COMPRESSION_AUTO =
        0, /* writer only: raw for compressed formats, else zstd if smaller */
    RILL_RPAK_COMPRESSION_RAW = 1,
    RILL_RPAK_COMPRESSION_ZSTD = 2,
    RILL_RPAK_COMPRESSION_NUM,
    RILL_RPAK_COMPRESSION_FORCE_U32 = 0x7FFFFFFF
} rill_rpak_compression;

/* >>writer ------------------------------------------------------------------------------------ */

typedef struct rill_rpak_writer rill_rpak_writer;

/* Defaults: zstd_level 0 = 9; chunk_size 0 = 16 KiB (must be a power of two in [4 KiB, 16 MiB]);
 * min_gain_percent 0 = 5 (AUTO keeps zstd only when it saves at least this much). */
typedef struct rill_rpak_writer_desc {
    uint32_t start_canary; /* must be 0 */
    int zstd_level;
    uint32_t chunk_size;
    uint32_t min_gain_percent;
    uint32_t end_canary; /* must be 0 */
} rill_rpak_writer_desc;

/* Creates a writer; desc may be NULL. Entries are collected in memory until finish. */
rill_rpak_writer *rill_rpak_writer_create(const rill_rpak_writer_desc *desc, rill_error *err);
void rill_rpak_writer_destroy(rill_rpak_writer *w); /* NULL is a no-op */
rill_rpak_writer_desc rill_rpak_writer_query_defaults(void);

/* Adds an entry under `path` (normalized with rill_path_normalize; must not contain '#'). data is
 * copied (or compressed) now. A duplicate path is RILL_ERR_ALREADY_EXISTS. */
rill_result rill_rpak_writer_add(rill_rpak_writer *w, const char *path, const void *data,
                                 size_t size, rill_rpak_compression compression, rill_error *err);
/* Adds every regular file under the OS folder `dir`, named by its path relative to `dir`. */
rill_result rill_rpak_writer_add_dir(rill_rpak_writer *w, const char *dir,
                                     rill_rpak_compression compression, rill_error *err);
/* Lays out the pack in memory. *out_data is owned by the caller (rill_free). Entries are sorted
 * by path, so the same inputs always give the same bytes. The writer may be destroyed after. */
rill_result rill_rpak_writer_finish_memory(rill_rpak_writer *w, uint8_t **out_data,
                                           size_t *out_size, rill_error *err);
/* Writes the pack to `out_path` (atomically). */
rill_result rill_rpak_writer_finish_file(rill_rpak_writer *w, const char *out_path,
                                         rill_error *err);

/* Appends the pack file `pack_path` to `target_path` (e.g. an executable), padding the target to
 * 16 bytes first so raw entries stay aligned in the combined file. The pack is found again by
 * rill_rpak_open_file(target_path, ...) through its trailer. */
rill_result rill_rpak_append_to_file(const char *target_path, const char *pack_path,
                                     rill_error *err);

/* >>reader ------------------------------------------------------------------------------------ */

typedef struct rill_rpak rill_rpak;

typedef struct rill_rpak_entry_info {
    const char *path; /* valid while the pack is open */
    uint64_t offset;  /* from the start of the pack */
    uint64_t stored_size;
    uint64_t raw_size;
    rill_rpak_compression compression;
    uint64_t checksum; /* XXH3-64 of the stored bytes (= the content for raw entries) */
} rill_rpak_entry_info;

/* I/O counters of one open pack (thread-safe snapshot); tests use them to prove that a range read
 * touched only the chunks it needed. */
typedef struct rill_rpak_stats {
    uint64_t read_calls; /* reads issued to the backing file or memory */
    uint64_t bytes_read; /* bytes fetched from the backing file or memory */
    uint64_t checksum_failures;
} rill_rpak_stats;

/* Opens a pack file: either a plain .rpak or any file with a pack appended (found through the
 * trailer at its very end). `name` for messages is the file path. *out_pak is owned by the caller
 * (rill_rpak_close). Errors: RILL_ERR_IO / RILL_ERR_NOT_FOUND, RILL_ERR_TRUNCATED,
 * RILL_ERR_CORRUPT, RILL_ERR_VERSION, RILL_ERR_LIMIT, RILL_ERR_CHECKSUM (index), each naming the
 * file and offset. */
rill_result rill_rpak_open_file(const char *path, rill_rpak **out_pak, rill_error *err);
/* Opens a pack held in memory; `data` is borrowed and must outlive the pack. `name` (may be NULL)
 * is used in messages. */
rill_result rill_rpak_open_memory(const void *data, size_t size, const char *name,
                                  rill_rpak **out_pak, rill_error *err);
/* Closes a pack. NULL is a no-op. Not while reads are in flight. */
void rill_rpak_close(rill_rpak *pak);

/* The name given at open (file path or memory name). */
const char *rill_rpak_name(const rill_rpak *pak);
uint32_t rill_rpak_entry_count(const rill_rpak *pak);
/* Fills *out for entry `index` (< entry_count; entries are sorted by path). */
bool rill_rpak_entry_info_get(const rill_rpak *pak, uint32_t index, rill_rpak_entry_info *out);
/* Index of the entry named `path` (normalized first), or -1. */
int32_t rill_rpak_find(const rill_rpak *pak, const char *path);

/* Reads and verifies the whole content of entry `index`. *out_data is owned by the caller
 * (rill_free) with a NUL after the last byte. Thread-safe. */
rill_result rill_rpak_read_entry(rill_rpak *pak, uint32_t index, uint8_t **out_data,
                                 size_t *out_size, rill_error *err);
/* Reads `size` content bytes at `offset` of entry `index` into dst. A raw entry reads and verifies
 * only the chunks the range touches; a zstd entry is decompressed whole (then verified). A range
 * past the end is RILL_ERR_TRUNCATED. On an error the contents of dst are unspecified.
 * Thread-safe. */
rill_result rill_rpak_read_range(rill_rpak *pak, uint32_t index, uint64_t offset, size_t size,
                                 void *dst, rill_error *err);
/* Verifies one entry: for raw entries every chunk checksum (a failure names the damaged chunk's
 * offset) and the entry checksum; for zstd entries the checksum and the decode. */
rill_result rill_rpak_verify_entry(rill_rpak *pak, uint32_t index, rill_error *err);
/* Verifies every entry (all chunk checksums and content checksums). Returns the first failure,
 * naming the entry; out_bad_entries (may be NULL) counts the entries that failed. */
rill_result rill_rpak_verify(rill_rpak *pak, uint32_t *out_bad_entries, rill_error *err);
void rill_rpak_get_stats(const rill_rpak *pak, rill_rpak_stats *out_stats);

/* >>mounting ---------------------------------------------------------------------------------- */

/* Mounts an open pack into vfs; the VFS takes ownership (the pack is closed with the VFS, also
 * when this fails). */
rill_result rill_rpak_mount(rill_vfs *vfs, rill_rpak *pak, rill_error *err);
/* Opens `path` and mounts it. *out_pak (may be NULL) receives the pack, still owned by the VFS, for
 * stats. */
rill_result rill_rpak_mount_file(rill_vfs *vfs, const char *path, rill_rpak **out_pak,
                                 rill_error *err);
/* Mounts the default packs in the lookup order: `cmdline_pack` (may be NULL; failing to open it is
 * an error), then a pack appended to the running executable, then `<exe>.rpak`; the last two are
 * skipped silently when absent but a damaged one is an error. out_mounted (may be NULL) receives
 * how many packs were mounted. Mount loose roots after this call. */
rill_result rill_rpak_mount_default(rill_vfs *vfs, const char *cmdline_pack, uint32_t *out_mounted,
                                    rill_error *err);
/* Like rill_rpak_mount_default with an explicit executable path (tests use a fake one). */
rill_result rill_rpak_mount_default_exe(rill_vfs *vfs, const char *cmdline_pack,
                                        const char *exe_path, uint32_t *out_mounted,
                                        rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_RPAK_H */
