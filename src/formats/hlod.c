/* hlod.c: the .hlod proxy file (rill/formats/hlod.h, docs/formats/hlod.md): a hostile-input
 * parser and the writer. Layout, little-endian:
 *     0  "RHLD"   4 u32 version (1)   8 u32 level   12 u32 part count
 *   then per part: f32 box_min[3], box_max[3], cell_min[2], cell_max[2]; u32 vertex, index and
 *   palette counts (52 bytes); palette (u32 each), vertices (28 bytes each), indices (u32 each).
 */
#include "rill/formats/hlod.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static float rdf(const uint8_t *p) {
    uint32_t u = rd32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void wrf(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    wr32(p, u);
}

void rill_hlod_free(rill_hlod *h) {
    if (!h) {
        return;
    }
    for (uint32_t i = 0; h->parts && i < h->part_count; i++) {
        rill_free(h->parts[i].palette);
        rill_free(h->parts[i].vertices);
        rill_free(h->parts[i].indices);
    }
    rill_free(h->parts);
    rill_free(h);
}

uint64_t rill_hlod_triangle_count(const rill_hlod *h) {
    uint64_t n = 0;
    for (uint32_t i = 0; h && i < h->part_count; i++) {
        n += h->parts[i].index_count / 3u;
    }
    return n;
}

bool rill_hlod_path(char *dst, size_t cap, const char *scene_path, uint32_t level) {
    size_t n = scene_path ? strlen(scene_path) : 0;
    if (n < 5 || strcmp(scene_path + n - 4, ".rsn") != 0) {
        return false;
    }
    int w = snprintf(dst, cap, "%.*s.hlod%s", (int)(n - 4), scene_path, level ? "1" : "");
    return w > 0 && (size_t)w < cap && level <= RILL_HLOD_MAX_LEVEL;
}

/* >>parse ------------------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t size, at;
    const char *name;
    rill_error *err;
} reader;

static rill_result fail(reader *r, size_t at, const char *what) {
    return rill_error_set(r->err, RILL_ERR_CORRUPT, "%s: offset %zu: %s", r->name, at, what);
}

static bool finite3(const float *v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

static rill_result parse_part(reader *r, rill_hlod_part *pt) {
    if (r->size - r->at < RILL_HLOD_PART_SIZE) {
        return fail(r, r->at, "truncated part header");
    }
    const uint8_t *h = r->p + r->at;
    for (int k = 0; k < 3; k++) {
        pt->box_min[k] = rdf(h + 4 * k);
        pt->box_max[k] = rdf(h + 12 + 4 * k);
    }
    for (int k = 0; k < 2; k++) {
        pt->cell_min[k] = rdf(h + 24 + 4 * k);
        pt->cell_max[k] = rdf(h + 32 + 4 * k);
    }
    pt->vertex_count = rd32(h + 40);
    pt->index_count = rd32(h + 44);
    pt->palette_count = rd32(h + 48);
    if (!finite3(pt->box_min, 3) || !finite3(pt->box_max, 3) || !finite3(pt->cell_min, 2) ||
        !finite3(pt->cell_max, 2)) {
        return fail(r, r->at, "non-finite bounds");
    }
    if (pt->vertex_count > RILL_HLOD_MAX_VERTICES || pt->index_count > RILL_HLOD_MAX_INDICES ||
        pt->index_count % 3u || pt->palette_count > RILL_HLOD_MAX_PALETTE ||
        (pt->vertex_count && !pt->palette_count)) {
        return fail(r, r->at + 40, "vertex, index or palette count out of range");
    }
    r->at += RILL_HLOD_PART_SIZE;
    uint64_t need = (uint64_t)pt->palette_count * 4u +
                    (uint64_t)pt->vertex_count * RILL_HLOD_VERTEX_SIZE +
                    (uint64_t)pt->index_count * 4u;
    if (need > r->size - r->at) {
        return fail(r, r->at, "truncated part data");
    }
    pt->palette = rill_malloc_tagged(pt->palette_count * 4u + 4u, RILL_MEM_FORMATS);
    pt->vertices = rill_malloc_tagged((size_t)pt->vertex_count * sizeof(rill_hlod_vertex) + 4u,
                                      RILL_MEM_FORMATS);
    pt->indices = rill_malloc_tagged((size_t)pt->index_count * 4u + 4u, RILL_MEM_FORMATS);
    if (!pt->palette || !pt->vertices || !pt->indices) {
        return rill_error_set(r->err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name);
    }
    for (uint32_t i = 0; i < pt->palette_count; i++, r->at += 4) {
        pt->palette[i] = rd32(r->p + r->at);
    }
    for (uint32_t i = 0; i < pt->vertex_count; i++, r->at += RILL_HLOD_VERTEX_SIZE) {
        rill_hlod_vertex *v = &pt->vertices[i];
        const uint8_t *q = r->p + r->at;
        for (int k = 0; k < 3; k++) {
            v->position[k] = rdf(q + 4 * k);
            v->normal[k] = rdf(q + 12 + 4 * k);
        }
        v->color = rd32(q + 24);
        if (!finite3(v->position, 3) || !finite3(v->normal, 3)) {
            return fail(r, r->at, "non-finite vertex");
        }
        if (v->color >= pt->palette_count) {
            return fail(r, r->at + 24, "palette index out of range");
        }
    }
    for (uint32_t i = 0; i < pt->index_count; i++, r->at += 4) {
        pt->indices[i] = rd32(r->p + r->at);
        if (pt->indices[i] >= pt->vertex_count) {
            return fail(r, r->at, "index out of range");
        }
    }
    return RILL_OK;
}

rill_result rill_hlod_parse(const void *data, size_t size, const char *name, rill_hlod **out,
                            rill_error *err) {
    if (!out) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_hlod_parse: out is NULL");
    }
    *out = NULL;
    reader r = {.p = data, .size = data ? size : 0, .name = name ? name : "<memory>", .err = err};
    if (r.size < RILL_HLOD_HEADER_SIZE || memcmp(r.p, RILL_HLOD_MAGIC, 4) != 0) {
        return fail(&r, 0, "not a .hlod proxy (no RHLD header)");
    }
    uint32_t version = rd32(r.p + 4);
    if (version != RILL_HLOD_VERSION) {
        return rill_error_set(err, RILL_ERR_VERSION,
                              "%s: offset 4: proxy version %u, this reader "
                              "knows %u",
                              r.name, version, RILL_HLOD_VERSION);
    }
    uint32_t level = rd32(r.p + 8), parts = rd32(r.p + 12);
    if (level > RILL_HLOD_MAX_LEVEL) {
        return fail(&r, 8, "level out of range");
    }
    /* Each part needs its header at least: a count the bytes cannot hold is refused before the
     * part table is allocated. */
    if (parts > RILL_HLOD_MAX_PARTS ||
        (uint64_t)parts * RILL_HLOD_PART_SIZE > r.size - RILL_HLOD_HEADER_SIZE) {
        return fail(&r, 12, "part count out of range");
    }
    rill_hlod *h = rill_calloc_tagged(1, sizeof *h, RILL_MEM_FORMATS);
    if (!h || !(h->parts = rill_calloc_tagged(parts + 1u, sizeof *h->parts, RILL_MEM_FORMATS))) {
        rill_free(h);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", r.name);
    }
    h->level = level;
    r.at = RILL_HLOD_HEADER_SIZE;
    for (uint32_t i = 0; i < parts; i++) {
        h->part_count = i + 1u; /* so a failure frees what this part allocated */
        rill_result res = parse_part(&r, &h->parts[i]);
        if (res != RILL_OK) {
            rill_hlod_free(h);
            return res;
        }
    }
    h->part_count = parts;
    if (r.at != r.size) {
        rill_hlod_free(h);
        return fail(&r, r.at, "trailing bytes after the last part");
    }
    *out = h;
    return RILL_OK;
}

/* >>write ------------------------------------------------------------------------------------- */

rill_result rill_hlod_write(const rill_hlod *h, uint8_t **out_data, size_t *out_size,
                            rill_error *err) {
    if (!h || !out_data || !out_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_hlod_write: NULL argument");
    }
    size_t size = RILL_HLOD_HEADER_SIZE;
    for (uint32_t i = 0; i < h->part_count; i++) {
        const rill_hlod_part *pt = &h->parts[i];
        size += RILL_HLOD_PART_SIZE + (size_t)pt->palette_count * 4u +
                (size_t)pt->vertex_count * RILL_HLOD_VERTEX_SIZE + (size_t)pt->index_count * 4u;
    }
    uint8_t *b = rill_malloc_tagged(size, RILL_MEM_FORMATS);
    if (!b) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_hlod_write: out of memory");
    }
    memcpy(b, RILL_HLOD_MAGIC, 4);
    wr32(b + 4, RILL_HLOD_VERSION);
    wr32(b + 8, h->level);
    wr32(b + 12, h->part_count);
    uint8_t *p = b + RILL_HLOD_HEADER_SIZE;
    for (uint32_t i = 0; i < h->part_count; i++) {
        const rill_hlod_part *pt = &h->parts[i];
        for (int k = 0; k < 3; k++) {
            wrf(p + 4 * k, pt->box_min[k]);
            wrf(p + 12 + 4 * k, pt->box_max[k]);
        }
        for (int k = 0; k < 2; k++) {
            wrf(p + 24 + 4 * k, pt->cell_min[k]);
            wrf(p + 32 + 4 * k, pt->cell_max[k]);
        }
        wr32(p + 40, pt->vertex_count);
        wr32(p + 44, pt->index_count);
        wr32(p + 48, pt->palette_count);
        p += RILL_HLOD_PART_SIZE;
        for (uint32_t k = 0; k < pt->palette_count; k++, p += 4) {
            wr32(p, pt->palette[k]);
        }
        for (uint32_t k = 0; k < pt->vertex_count; k++, p += RILL_HLOD_VERTEX_SIZE) {
            for (int c = 0; c < 3; c++) {
                wrf(p + 4 * c, pt->vertices[k].position[c]);
                wrf(p + 12 + 4 * c, pt->vertices[k].normal[c]);
            }
            wr32(p + 24, pt->vertices[k].color);
        }
        for (uint32_t k = 0; k < pt->index_count; k++, p += 4) {
            wr32(p, pt->indices[k]);
        }
    }
    *out_data = b;
    *out_size = size;
    return RILL_OK;
}
