/* rill/formats/hlod.h: far-world proxies (HLOD, `.hlod` files): what `rill export` bakes for
 * each streamed scene instance (docs/formats/hlod.md) and what the renderer draws where that
 * instance's content is not resident.
 *
 * ON LEVELS
 *   Level 0, `<scene>.hlod` beside the district scene `<scene>.rsn`: the meshes of every Model the
 *   scene places, merged in the scene's own space (the space of the instance root that streams
 *   it) and simplified to a triangle budget. One part.
 *   Level 1, `<scene>.hlod1` beside a scene that places streamed instances: the level-0 proxies of
 *   its instances, placed where the instances stand, grouped by a square grid of cells
 *   (neighbouring instances share a cell) and each cell merged and simplified again. One part per
 *   cell; a part's cell rectangle (world x/z of that scene) says which instances it stands for:
 *   those whose box centre lies in it.
 *
 * ON THE MATERIAL
 *   A proxy carries no textures of its own sources: each vertex names an entry of its part's
 *   palette (at most 256 sRGB RGBA8 colours), the base colour of the material it came from (the
 *   glTF base colour factor times the mean of its base colour texture). The renderer puts the
 *   palette in a 16 x 16 texel atlas and draws the part as one mesh with one material.
 *
 * ON HOSTILE INPUT
 *   rill_hlod_parse checks every count against the limits below and against the bytes present
 *   before it allocates, every index against the vertex count and every palette index against the
 *   palette; non-finite floats are refused. Errors name the file and the byte offset.
 *
 * Depends on: rill/base.h.
 */
#ifndef RILL_FORMATS_HLOD_H
#define RILL_FORMATS_HLOD_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_HLOD_MAGIC "RHLD"
#define RILL_HLOD_VERSION 1u
#define RILL_HLOD_HEADER_SIZE 16u /* magic, version, level, part count */
#define RILL_HLOD_PART_SIZE 52u   /* box, cell rectangle, vertex/index/palette counts */
#define RILL_HLOD_VERTEX_SIZE 28u /* position f32x3, normal f32x3, palette index u32 */
#define RILL_HLOD_MAX_LEVEL 1u
#define RILL_HLOD_MAX_PARTS 65536u
#define RILL_HLOD_MAX_VERTICES (1u << 22)
#define RILL_HLOD_MAX_INDICES (3u << 22)
#define RILL_HLOD_MAX_PALETTE 256u
/* The triangle budget of one part when the exporter is given none (docs/export.md). */
#define RILL_HLOD_DEFAULT_TRIANGLES 4000u

typedef struct rill_hlod_vertex {
    float position[3]; /* level 0: scene space of the district; level 1: of the placing scene */
    float normal[3];
    uint32_t color; /* index into the part's palette */
} rill_hlod_vertex;

typedef struct rill_hlod_part {
    float box_min[3], box_max[3];   /* of the vertices (and, level 1, of the members' boxes) */
    float cell_min[2], cell_max[2]; /* x/z rectangle the part stands for (level 0: the box's) */
    uint32_t vertex_count, index_count, palette_count;
    uint32_t *palette; /* palette_count RGBA8 sRGB colours, red in the low byte */
    rill_hlod_vertex *vertices;
    uint32_t *indices; /* index_count (a multiple of 3, may be 0: a part that draws nothing) */
} rill_hlod_part;

/* A parsed proxy file. Owns everything; free with rill_hlod_free. */
typedef struct rill_hlod {
    uint32_t level;
    uint32_t part_count;
    rill_hlod_part *parts;
} rill_hlod;

/* Parses a .hlod held in data[size]; `name` (may be NULL) names it in errors. On success *out is
 * a new proxy owned by the caller; on failure *out is NULL and err names the file and offset. */
rill_result rill_hlod_parse(const void *data, size_t size, const char *name, rill_hlod **out,
                            rill_error *err);
/* Releases a proxy (NULL is a no-op). */
void rill_hlod_free(rill_hlod *hlod);
/* Serializes h into a new buffer (*out_data, free with rill_free). The parts must satisfy what
 * the parser checks. */
rill_result rill_hlod_write(const rill_hlod *h, uint8_t **out_data, size_t *out_size,
                            rill_error *err);
/* The proxy path of a scene: level 0 "a/d.rsn" -> "a/d.hlod", level 1 -> "a/d.hlod1". False when
 * it does not fit or the path does not end in ".rsn". */
bool rill_hlod_path(char *dst, size_t cap, const char *scene_path, uint32_t level);
/* Triangles of every part together. */
uint64_t rill_hlod_triangle_count(const rill_hlod *h);

#ifdef __cplusplus
}
#endif
#endif /* RILL_FORMATS_HLOD_H */
