/* upload_pieces.h: how an upload larger than what is left of a frame's staging budget is cut into
 * pieces that the next frames copy, so no frame copies more than its budget. Both GPU backends
 * use it, so they count the same bytes. A buffer upload is cut into byte ranges; an image upload
 * into whole levels while they fit, else into row bands of one level (rows of 4x4 blocks for block
 * formats). The target becomes ready with the piece that ends the upload, never before. */
#ifndef RILL_RENDER_UPLOAD_PIECES_H
#define RILL_RENDER_UPLOAD_PIECES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rill__upload_shape {
    uint64_t size; /* the upload's bytes (images: its levels, each padded to 16 bytes) */
    bool image;
    bool whole_only;        /* goes in one piece (an image already drawn, a 3D image) */
    uint32_t width, height; /* images: level 0 of the image */
    uint32_t first_level, level_count;
    uint32_t unit_bytes; /* bytes per pixel, or per 4x4 block */
    bool block;
} rill__upload_shape;

/* Where an upload stands: bytes already recorded (images: the packed offset of the next piece),
 * and for images the next level (counted from first_level) and its next row. Zero: nothing yet. */
typedef struct rill__upload_cursor {
    uint64_t done;
    uint32_t level, row;
} rill__upload_cursor;

typedef struct rill__upload_piece {
    uint64_t src;   /* the piece's first byte in the upload's packed data */
    uint64_t bytes; /* what it copies */
    /* Images: levels [level, level + levels) counted from first_level; a band of one level is
     * rows [row, row + rows) of it (rows of blocks for block formats); rows 0: whole levels. */
    uint32_t level, levels, row, rows;
    bool begins_level; /* the piece writes the first row of its first level */
    bool ends_level;   /* ... and the last row of its last level */
    bool ends;         /* the piece completes the upload */
} rill__upload_piece;

/* The next piece of an upload standing at c that fits `room` bytes (its 16-byte padding
 * included). When nothing fits: false, unless `must` (the first upload of a frame), which takes
 * the smallest piece there is (one row, 16 bytes of a buffer, or the whole of a whole_only one). */
bool rill__upload_next_piece(const rill__upload_shape *s, const rill__upload_cursor *c,
                             uint64_t room, bool must, rill__upload_piece *out);
/* Moves c past piece p. */
void rill__upload_advance(const rill__upload_shape *s, rill__upload_cursor *c,
                          const rill__upload_piece *p);
/* Image levels: the packed offset of level `level` (from first_level), its row count (pixel or
 * block rows) and the bytes of one row. */
uint64_t rill__upload_level_offset(const rill__upload_shape *s, uint32_t level);
uint32_t rill__upload_level_rows(const rill__upload_shape *s, uint32_t level);
uint64_t rill__upload_row_bytes(const rill__upload_shape *s, uint32_t level);

#endif
