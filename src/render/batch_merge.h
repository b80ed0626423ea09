/* batch_merge.h: a cell's batch geometry merged on the CPU (batch_merge.c), for the cell builds of
 * batch_build.c. It knows no renderer and no batcher: only glTF primitives, world matrices and
 * the job system.
 *
 * A merge is laid out first, on one thread: meshes one after another, each a run of members (a
 * primitive and the world matrix that places it), every member given its place in one scratch of
 * vertices, indices and edge indices from the counts its primitive declares. rill__merge_run then
 * grows the scratch once and writes every member into its place: positions through the matrix
 * (less the cell origin), normals through its inverse transpose, tangents through its 3x3 (as
 * mesh.vert does per instance), indices and edge indices offset to the member's first vertex in
 * its mesh (an index past the primitive's vertices reads its first one). A mirroring member (its
 * matrix's determinant negative) has its triangles turned and its tangents' w negated: the batch
 * draws unmirrored, so the renderer's per-instance front face and tangent sign do not reach it.
 * That per-vertex work is spread over the jobs in slices of about the same number of vertices:
 * small members share a slice, a large one is cut into pieces over several. A piece writes only its
 * own vertices, its share of its member's indices and edges (whole triangles and lines), and its
 * own bounds; the bounds are folded per member afterwards in piece order, so every byte (vertices,
 * indices, edges, bounds) is the one a serial loop over the members writes, with or without
 * workers. A second pass over the same slices measures each mesh's radius around the centre of its
 * box (folded from its members' boxes), the largest squared distance folded per mesh in order with
 * fmaxf, as the renderer's walk over a mesh's vertices would measure it. */
#ifndef RILL_RENDER_BATCH_MERGE_H
#define RILL_RENDER_BATCH_MERGE_H

#include "rill/base.h"
#include "rill/formats/gltf.h"
#include "rill/render.h"

/* One member: what it is (set by rill__merge_add) and where it lands (its layout). */
typedef struct rill__merge_member {
    const rill_gltf_primitive *prim;
    const float *m;        /* column-major world matrix, valid until rill__merge_run returns */
    uint32_t first_vertex; /* in the scratch */
    uint32_t base;         /* its first vertex within its mesh: added to its indices and edges */
    uint32_t first_index;  /* in the scratch */
    uint32_t first_edge;   /* in the scratch */
    uint32_t mesh;         /* its mesh in the merge */
    float box[6];          /* after rill__merge_run: its vertices' bounds (min xyz, max xyz) */
} rill__merge_member;

/* One mesh of the merge: members [first_member, + member_count), and its share of the scratch. */
typedef struct rill__merge_mesh {
    uint32_t tag; /* the caller's (batch_build: its first collected member) */
    uint32_t first_member, member_count;
    uint32_t first_vertex, vertex_count;
    uint32_t first_index, index_count;
    uint32_t first_edge, edge_count;
    /* After rill__merge_run: its vertices' box, the box's centre and the radius to the farthest
     * vertex from it (what the renderer measures of a mesh, so it need not walk them again). */
    float box[6], center[3], radius;
} rill__merge_mesh;

/* A member's vertices [v0, v1) and the same share of its indices and edges, with their bounds:
 * the box, then the farthest squared distance from its mesh's centre. */
typedef struct rill__merge_piece {
    uint32_t member, v0, v1;
    float box[6], r2;
} rill__merge_piece;

/* The merge and its scratch; zero is an empty one. Arrays keep their memory across merges (one
 * per batcher); free with rill__merge_free. */
typedef struct rill__merge {
    RILL_ARRAY(rill__merge_mesh) meshes;
    RILL_ARRAY(rill__merge_member) members;
    RILL_ARRAY(rill__merge_piece) pieces;
    RILL_ARRAY(uint32_t) slices; /* each slice's first piece, then pieces.len */
    RILL_ARRAY(rill_vertex) vertices;
    RILL_ARRAY(uint32_t) indices;
    RILL_ARRAY(uint32_t) edges;                     /* edge indices (line list) */
    uint32_t vertex_total, index_total, edge_total; /* laid out so far */
    float origin[3];                                /* of the cell: subtracted from positions */
} rill__merge;

/* Vertices of a piece, and about how many vertices a slice of the jobs writes: ~40 us of work on
 * the loaded 2-core dev machine (about 40 ns a vertex), so a cell of 20 k vertices makes about 20
 * slices and the job system's hand-off (a few us per helper woken) stays small beside them. */
#define RILL__MERGE_SLICE_VERTICES 1024u

/* Empties the merge (its memory is kept). */
void rill__merge_clear(rill__merge *mg);
void rill__merge_free(rill__merge *mg);
/* Starts a mesh; the members added next are its. False when out of memory. */
bool rill__merge_mesh_begin(rill__merge *mg, uint32_t tag);
/* Lays primitive p, placed by world matrix m (kept as a pointer), out at the end of the current
 * mesh. False when out of memory or past 2^32 - 1 elements (nothing laid out then). */
bool rill__merge_add(rill__merge *mg, const rill_gltf_primitive *p, const float *m);
/* Grows the scratch once for what is laid out and writes every member into its place, over jobs
 * (NULL, deterministic or worker-less: on this thread, the same slices in order); origin is the
 * cell's. Then each member's box is its pieces' folded in order, each mesh's its members', and
 * each mesh's radius is measured over the jobs. False when out of memory (nothing is written). */
bool rill__merge_run(rill__merge *mg, rill_jobs *jobs, const float origin[3]);
/* Grows box (min xyz, max xyz) by box `by` with fminf/fmaxf, as a vertex grows it. */
void rill__merge_box_grow(float box[6], const float by[6]);

#endif
