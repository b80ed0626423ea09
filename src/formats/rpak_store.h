/* rpak_store.h: an entry compressed apart from the .rpak writer (rpak_write.c), so that callers
 * with many entries (the exporter's jobs) compress on their worker threads and the thread that
 * owns the writer only files the results. The pack's bytes are the same as rill_rpak_writer_add
 * makes. */
#ifndef RILL_RPAK_STORE_H
#define RILL_RPAK_STORE_H

#include "rill/formats/rpak.h"

#include <stddef.h>
#include <stdint.h>

/* An entry's bytes as the pack stores them: zstd where it gains (desc's level and minimum gain),
 * else a raw copy. */
typedef struct rill__rpak_stored {
    uint8_t *data; /* owned */
    size_t size, raw_size;
    uint8_t compression; /* rill_rpak_compression */
} rill__rpak_stored;

/* What rill_rpak_writer_add would store for path's bytes under desc. Touches no writer, so it
 * runs on any thread (the export compresses its outputs on its workers). */
rill_result rill__rpak_store(const rill_rpak_writer_desc *desc, const char *path, const void *data,
                             size_t size, rill_rpak_compression compression, rill__rpak_stored *out,
                             rill_error *err);
/* rill_rpak_writer_add for bytes rill__rpak_store made with the writer's desc: takes s->data
 * (freed on failure too). */
rill_result rill__rpak_writer_add_stored(rill_rpak_writer *w, const char *path,
                                         rill__rpak_stored *s, rill_error *err);
/* The writer's settings (defaults resolved). */
const rill_rpak_writer_desc *rill__rpak_writer_desc(const rill_rpak_writer *w);

#endif
