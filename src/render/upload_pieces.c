/* upload_pieces.c: cutting an upload into pieces that fit a frame's staging budget (see
 * upload_pieces.h). Pure arithmetic: no GPU, no allocation. */
#include "upload_pieces.h"

#define ALIGN16(x) (((x) + 15u) & ~(uint64_t)15u)

static uint32_t level_dim(uint32_t size, uint32_t level) {
    uint32_t d = size >> level;
    return d ? d : 1u;
}

uint32_t rill__upload_level_rows(const rill__upload_shape *s, uint32_t level) {
    uint32_t h = level_dim(s->height, s->first_level + level);
    return s->block ? (h + 3u) / 4u : h;
}

uint64_t rill__upload_row_bytes(const rill__upload_shape *s, uint32_t level) {
    uint32_t w = level_dim(s->width, s->first_level + level);
    return (uint64_t)(s->block ? (w + 3u) / 4u : w) * s->unit_bytes;
}

static uint64_t level_bytes(const rill__upload_shape *s, uint32_t level) {
    return rill__upload_row_bytes(s, level) * rill__upload_level_rows(s, level);
}

uint64_t rill__upload_level_offset(const rill__upload_shape *s, uint32_t level) {
    uint64_t at = 0;
    for (uint32_t i = 0; i < level; i++) {
        at += ALIGN16(level_bytes(s, i));
    }
    return at;
}

/* A buffer, or an upload that goes whole: a byte range from c->done. */
static bool next_bytes(const rill__upload_shape *s, const rill__upload_cursor *c, uint64_t room,
                       bool must, rill__upload_piece *out) {
    uint64_t rest = s->size - c->done;
    uint64_t n = rest;
    if (ALIGN16(rest) > room) {
        if (s->whole_only) {
            if (!must) {
                return false;
            }
        } else {
            n = room & ~(uint64_t)15u;
            if (n == 0) {
                if (!must) {
                    return false;
                }
                n = rest < 16u ? rest : 16u;
            }
        }
    }
    *out =
        (rill__upload_piece){.src = c->done, .bytes = n, .levels = s->image ? s->level_count : 0};
    out->ends = n == rest;
    out->begins_level = c->done == 0;
    out->ends_level = out->ends;
    return true;
}

/* An image standing at the start of a level: as many whole levels as fit. */
static bool next_levels(const rill__upload_shape *s, const rill__upload_cursor *c, uint64_t room,
                        rill__upload_piece *out) {
    uint64_t bytes = 0;
    uint32_t k = 0;
    while (c->level + k < s->level_count && bytes + ALIGN16(level_bytes(s, c->level + k)) <= room) {
        bytes += ALIGN16(level_bytes(s, c->level + k));
        k++;
    }
    if (k == 0) {
        return false;
    }
    *out = (rill__upload_piece){.src = rill__upload_level_offset(s, c->level),
                                .bytes = bytes,
                                .level = c->level,
                                .levels = k,
                                .begins_level = true,
                                .ends_level = true,
                                .ends = c->level + k == s->level_count};
    return true;
}

/* An image: rows of the current level (at least one when must). */
static bool next_band(const rill__upload_shape *s, const rill__upload_cursor *c, uint64_t room,
                      bool must, rill__upload_piece *out) {
    uint32_t total = rill__upload_level_rows(s, c->level);
    uint64_t row_bytes = rill__upload_row_bytes(s, c->level);
    uint64_t fit = row_bytes ? room / row_bytes : 0;
    uint32_t rows = total - c->row;
    if (fit < rows) {
        rows = (uint32_t)fit;
    }
    if (rows == 0) {
        if (!must) {
            return false;
        }
        rows = 1;
    }
    *out = (rill__upload_piece){.src = rill__upload_level_offset(s, c->level) +
                                       (uint64_t)c->row * row_bytes,
                                .bytes = (uint64_t)rows * row_bytes,
                                .level = c->level,
                                .levels = 1,
                                .row = c->row,
                                .rows = rows,
                                .begins_level = c->row == 0,
                                .ends_level = c->row + rows == total};
    out->ends = out->ends_level && c->level + 1u == s->level_count;
    return true;
}

bool rill__upload_next_piece(const rill__upload_shape *s, const rill__upload_cursor *c,
                             uint64_t room, bool must, rill__upload_piece *out) {
    if (!s->image || s->whole_only || s->unit_bytes == 0) {
        return next_bytes(s, c, room, must, out);
    }
    if (c->level >= s->level_count) {
        return false;
    }
    if (c->row == 0 && next_levels(s, c, room, out)) {
        return true;
    }
    return next_band(s, c, room, must, out);
}

void rill__upload_advance(const rill__upload_shape *s, rill__upload_cursor *c,
                          const rill__upload_piece *p) {
    if (!s->image || s->whole_only || s->unit_bytes == 0) {
        c->done = p->src + p->bytes;
        return;
    }
    if (p->ends_level) {
        c->level = p->level + p->levels;
        c->row = 0;
        c->done = rill__upload_level_offset(s, c->level);
    } else {
        c->row = p->row + p->rows;
        c->done = p->src + p->bytes;
    }
}
