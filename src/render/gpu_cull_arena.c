/* gpu_cull_arena.c: the shared geometry GPU culling draws from (gpu_cull.c). A mesh with buffers
 * of its own would make every draw group of it a run of its own (one indirect draw each): the
 * first frame a mesh is drawn by the GPU path, its vertices and indices are copied on the GPU
 * into an arena block (one vertex and one index buffer, range-allocated), so that the groups of
 * every such mesh share two buffers and a pass draws all of them with one indirect call per
 * pipeline state. Meshes already in a shared block (render_pools.c "merged meshes") draw from it
 * as they are; meshes the arena cannot hold keep their own buffers: skin and morph targets
 * (rewritten every frame), meshes with vertex extras (a second vertex buffer), and meshes larger
 * than a block. A mesh no group drew in a frame gives its ranges back once no frame in flight
 * reads them. */
#include "frame.h"
#include "range_alloc.h"

#include <string.h>

#define ARENA_VERTICES (1u << 20) /* 48 MiB of vertices per block */
#define ARENA_INDICES (1u << 22)  /* 16 MiB of indices per block */

typedef struct arena_block {
    rill__buf *vb, *ib;
    rill__range_alloc vr, ir;
} arena_block;

/* One mesh's place: its ranges in a block, or its own buffers (block == GC_OWN). */
#define GC_OWN UINT32_MAX
typedef struct arena_entry {
    uint32_t mesh;  /* the mesh handle (0: a free entry) */
    uint32_t block; /* GC_OWN: the mesh's own buffers */
    uint32_t first_vertex, vertex_count, first_index, index_count;
    uint64_t used; /* the last frame a group drew it */
} arena_entry;

/* Ranges given back once the frames in flight are done with them. */
typedef struct arena_free {
    uint32_t block, first_vertex, vertex_count, first_index, index_count;
    uint64_t frame;
} arena_free;

typedef struct arena_copy {
    rill__buf *src, *dst;
    uint64_t src_off, dst_off, size;
} arena_copy;

struct rill__gc_arena {
    RILL_ARRAY(arena_block) blocks;
    RILL_ARRAY(arena_entry) entries;
    RILL_ARRAY(uint32_t) free_entries;
    RILL_ARRAY(arena_free) frees;
    RILL_ARRAY(arena_copy) copies; /* recorded by rill__gc_arena_record */
    rill_map by_mesh;              /* mesh handle -> entry */
    uint64_t bytes;                /* of the blocks */
};

rill__gc_arena *rill__gc_arena_create(void) {
    return rill_calloc_tagged(1, sizeof(rill__gc_arena), RILL_MEM_RENDER);
}

void rill__gc_arena_destroy(rill_renderer *r, rill__gc_arena *a) {
    if (!a) {
        return;
    }
    for (uint32_t b = 0; b < a->blocks.len; b++) {
        rill__buf_destroy(r->gpu, a->blocks.data[b].vb);
        rill__buf_destroy(r->gpu, a->blocks.data[b].ib);
        rill__range_destroy(&a->blocks.data[b].vr);
        rill__range_destroy(&a->blocks.data[b].ir);
    }
    rill_array_free(&a->blocks);
    rill_array_free(&a->entries);
    rill_array_free(&a->free_entries);
    rill_array_free(&a->frees);
    rill_array_free(&a->copies);
    rill_map_free(&a->by_mesh);
    rill_free(a);
}

uint64_t rill__gc_arena_bytes(const rill__gc_arena *a) {
    return a ? a->bytes : 0u;
}

uint32_t rill__gc_arena_meshes(const rill__gc_arena *a) {
    return a ? a->entries.len - a->free_entries.len : 0u;
}

/* A new block; false when it cannot be made. */
static bool block_add(rill_renderer *r, rill__gc_arena *a) {
    arena_block nb;
    memset(&nb, 0, sizeof(nb));
    nb.vb = rill__buf_create(r->gpu, (uint64_t)ARENA_VERTICES * sizeof(rill_vertex),
                             RILL__BUF_VERTEX, false, "gpu cull geometry (vertices)", NULL);
    nb.ib = nb.vb ? rill__buf_create(r->gpu, (uint64_t)ARENA_INDICES * sizeof(uint32_t),
                                     RILL__BUF_INDEX, false, "gpu cull geometry (indices)", NULL)
                  : NULL;
    if (!nb.ib || !rill__range_init(&nb.vr, ARENA_VERTICES) ||
        !rill__range_init(&nb.ir, ARENA_INDICES) || !rill_array_push(&a->blocks, nb)) {
        rill__buf_destroy(r->gpu, nb.vb);
        rill__buf_destroy(r->gpu, nb.ib);
        rill__range_destroy(&nb.vr);
        rill__range_destroy(&nb.ir);
        return false;
    }
    rill__buf_mark_written(nb.vb); /* filled by copies, never uploaded */
    rill__buf_mark_written(nb.ib);
    a->bytes += (uint64_t)ARENA_VERTICES * sizeof(rill_vertex) + ARENA_INDICES * 4u;
    return true;
}

/* Ranges of nv vertices and ni indices in a block (a new one when none has room); false when the
 * mesh is larger than a block or no block can be made. */
static bool ranges_alloc(rill_renderer *r, rill__gc_arena *a, uint32_t nv, uint32_t ni,
                         arena_entry *e) {
    if (nv > ARENA_VERTICES || ni > ARENA_INDICES) {
        return false;
    }
    for (uint32_t b = 0; b <= a->blocks.len; b++) {
        if (b == a->blocks.len && !block_add(r, a)) {
            return false;
        }
        arena_block *blk = &a->blocks.data[b];
        uint64_t v, i;
        if (!rill__range_alloc_bytes(&blk->vr, nv, 1, &v)) {
            continue;
        }
        if (!rill__range_alloc_bytes(&blk->ir, ni, 1, &i)) {
            rill__range_free(&blk->vr, v, nv);
            continue;
        }
        e->block = b;
        e->first_vertex = (uint32_t)v;
        e->first_index = (uint32_t)i;
        e->vertex_count = nv;
        e->index_count = ni;
        return true;
    }
    return false;
}

/* Whether a mesh can be copied once and drawn from the arena (see the file comment). */
static bool copyable(const mesh_slot *ms) {
    return !ms->block && !ms->rewritten && !ms->sb && !ms->mb && !ms->xb && !ms->xb_of.id &&
           ms->vb && ms->ib && ms->first_index == 0 && ms->vertex_offset == 0;
}

/* A new entry for mesh h: its ranges and copies, or its own buffers. False: out of memory. */
static bool entry_make(rill_renderer *r, rill__gc_arena *a, rill_mesh h, const mesh_slot *ms,
                       uint32_t *out) {
    arena_entry e = {h.id, GC_OWN, 0, 0, 0, 0, 0};
    uint32_t nv = (uint32_t)(rill__buf_size(ms->vb) / sizeof(rill_vertex));
    if (copyable(ms) && rill_array_reserve(&a->copies, a->copies.len + 2u) &&
        ranges_alloc(r, a, nv, ms->index_count, &e)) {
        const arena_block *blk = &a->blocks.data[e.block];
        a->copies.data[a->copies.len++] =
            (arena_copy){ms->vb, blk->vb, 0, (uint64_t)e.first_vertex * sizeof(rill_vertex),
                         (uint64_t)nv * sizeof(rill_vertex)};
        a->copies.data[a->copies.len++] = (arena_copy){
            ms->ib, blk->ib, 0, (uint64_t)e.first_index * 4u, (uint64_t)ms->index_count * 4u};
    }
    uint32_t k;
    if (a->free_entries.len) {
        k = rill_array_pop(&a->free_entries);
    } else if (rill_array_reserve(&a->entries, a->entries.len + 1u)) {
        k = a->entries.len++;
    } else {
        return false;
    }
    a->entries.data[k] = e;
    if (!rill_map_set(&a->by_mesh, h.id, k)) {
        a->entries.data[k].mesh = 0;
        (void)rill_array_push(&a->free_entries, k);
        return false;
    }
    *out = k;
    return true;
}

bool rill__gc_arena_place(rill_renderer *r, rill__gc_arena *a, rill_mesh h, const mesh_slot *ms,
                          rill__gc_geom *out) {
    uint64_t v;
    uint32_t k;
    if (rill_map_get(&a->by_mesh, h.id, &v)) {
        k = (uint32_t)v;
    } else if (!entry_make(r, a, h, ms, &k)) {
        return false;
    }
    arena_entry *e = &a->entries.data[k];
    e->used = r->frame_counter;
    if (e->block == GC_OWN) {
        *out = (rill__gc_geom){ms->vb, ms->ib, rill__mesh_extras(r, ms), ms->first_index,
                               ms->vertex_offset};
    } else {
        const arena_block *blk = &a->blocks.data[e->block];
        *out = (rill__gc_geom){blk->vb, blk->ib, NULL, e->first_index, (int32_t)e->first_vertex};
    }
    return true;
}

void rill__gc_arena_sweep(rill_renderer *r, rill__gc_arena *a) {
    uint64_t now = r->frame_counter;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < a->frees.len; i++) {
        arena_free f = a->frees.data[i];
        if (now > f.frame + r->desc.frames_in_flight + 1u) {
            arena_block *b = &a->blocks.data[f.block];
            rill__range_free(&b->vr, f.first_vertex, f.vertex_count);
            rill__range_free(&b->ir, f.first_index, f.index_count);
        } else {
            a->frees.data[kept++] = f;
        }
    }
    a->frees.len = kept;
    for (uint32_t k = 0; k < a->entries.len; k++) {
        arena_entry *e = &a->entries.data[k];
        if (!e->mesh || e->used == now) {
            continue;
        }
        if (e->block != GC_OWN) {
            arena_free f = {e->block,       e->first_vertex, e->vertex_count,
                            e->first_index, e->index_count,  now};
            if (!rill_array_push(&a->frees, f)) {
                continue; /* out of memory: kept until a later sweep */
            }
        }
        rill_map_remove(&a->by_mesh, e->mesh);
        e->mesh = 0;
        (void)rill_array_push(&a->free_entries, k);
    }
}

void rill__gc_arena_record(rill__gc_arena *a, rill__cmd *cmd) {
    if (!a || !a->copies.len) {
        return;
    }
    for (uint32_t i = 0; i < a->copies.len; i++) {
        const arena_copy *c = &a->copies.data[i];
        rill__cmd_copy_buffer(cmd, c->src, c->src_off, c->dst, c->dst_off, c->size, i == 0,
                              i + 1u == a->copies.len);
    }
    a->copies.len = 0;
}
