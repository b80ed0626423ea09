/* batch_draw.c: rill__batch_end: ready cells append one instance per batch with its on ranges;
 * the others (cells being built among them) draw their members one by one; collected cells start
 * building, and the cells being built take this frame's build steps. */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <string.h>

static bool push(rill_render_extract_buf *buf, uint64_t id, rill_mesh mesh, rill_material mat,
                 const float m[16], uint64_t mask, const rill_channel_modes *modes) {
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = id;
    in.mesh = mesh;
    in.material = mat;
    memcpy(in.transform, m, sizeof(in.transform));
    in.ghost_opacity = 1.0f;
    if (modes && (mask & (modes->hidden | modes->wireframe | modes->ghost))) {
        in.mode = rill_channels_resolve(modes, mask, &in.ghost_opacity);
    }
    return rill_array_push(&buf->instances, in);
}

static bool cell_ready(const rill__batcher *bt, cell *c) {
    if (c->built_frame == bt->frame || c->seen != c->on_count) {
        return false;
    }
    for (uint32_t i = 0; i < c->batches.len; i++) {
        const batch *b = &c->batches.data[i];
        bool new_mat = i == 0 || b->material.id != b[-1].material.id;
        if ((!c->ready && !rill__mesh_get(bt->r, b->mesh)) ||
            (new_mat && !rill__material_get(bt->r, b->material))) {
            return false; /* still uploading (or its material is gone) */
        }
    }
    c->ready = true; /* uploads are done once: later frames only check the materials */
    return true;
}

/* Batch b's ranges again: per part, one range per run of members whose range is on. */
static bool batch_ranges(cell *c, batch *b) {
    b->ranges.len = 0;
    for (uint32_t k = 0; k < b->part_count; k++) {
        const part *pt = &c->parts.data[b->first_part + k];
        for (uint32_t i = pt->first; i < pt->first + pt->count;) {
            const member_info *mi = &c->members.data[i];
            if (!mi->on) {
                i++;
                continue;
            }
            rill_render_range rg = {mi->first_index, 0, mi->first_edge, 0, {0}, pt->radius};
            memcpy(rg.center, pt->center, sizeof(rg.center));
            for (; i < pt->first + pt->count && c->members.data[i].on; i++) {
                rg.index_count += c->members.data[i].index_count;
                rg.edge_count += c->members.data[i].edge_count;
            }
            if (!rill_array_push(&b->ranges, rg)) {
                return false;
            }
        }
    }
    b->ranges_dirty = false;
    return true;
}

/* Appends a ready cell's batches (one instance each, at the cell's origin, with its on ranges). */
static bool push_batches(rill__batcher *bt, cell *c, const rill_channel_modes *modes,
                         rill_render_extract_buf *buf) {
    float s = bt->set.cell_size;
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    m[12] = (float)c->ix * s;
    m[13] = (float)c->iy * s;
    m[14] = (float)c->iz * s;
    for (uint32_t i = 0; i < c->batches.len; i++) {
        batch *b = &c->batches.data[i];
        if (b->ranges_dirty && !batch_ranges(c, b)) {
            return false;
        }
        if (!b->ranges.len) {
            continue; /* every member off */
        }
        rill__render_assets_touch(bt->ra, b->owner);
        uint32_t first = buf->ranges.len;
        rill_render_range *rg = rill_array_push_n(&buf->ranges, b->ranges.len);
        rill_material mat = rill__render_assets_drawn_material(bt->ra, b->owner, b->material);
        if (!rg || !push(buf, b->id, b->mesh, mat, m, b->mask, modes)) {
            return false;
        }
        memcpy(rg, b->ranges.data, b->ranges.len * sizeof(*rg));
        rill_render_instance *in = &buf->instances.data[buf->instances.len - 1u];
        in->range_first = first;
        in->range_count = b->ranges.len;
    }
    return true;
}

/* A cell that cannot draw its batches this frame (uploading, or a member is gone): the members
 * whose range is on (the walk skipped them) draw alone, as recorded at build time. */
static bool push_members(rill__batcher *bt, const cell *c, const rill_channel_modes *modes,
                         rill_render_extract_buf *buf) {
    for (uint32_t i = 0; i < c->members.len; i++) {
        const member_info *mi = &c->members.data[i];
        if (mi->on && rill_world_is_alive(bt->world, mi->e) &&
            !push(buf, mi->e, mi->mesh, mi->material, mi->m, mi->mask, modes)) {
            return false;
        }
    }
    return true;
}

/* What cell ci draws this frame: its batches when ready, else its members whose range is on one
 * by one (a cell being built draws so the members its earlier steps settled). A cell whose walk
 * skipped fewer members than it has on lost one: it is queued (or, being built, built again
 * once complete). */
static bool draw_cell(rill__batcher *bt, uint32_t ci, const rill_channel_modes *modes,
                      rill_render_extract_buf *buf) {
    cell *c = &bt->cells.data[ci];
    if (!c->members.len) {
        return true;
    }
    if (c->state != CELL_BUILDING && cell_ready(bt, c)) {
        return push_batches(bt, c, modes, buf);
    }
    if (c->seen != c->on_count) { /* a member is gone: rebuilt from a later walk */
        rill__batch_mark_dirty(bt, ci);
    }
    return push_members(bt, c, modes, buf);
}

bool rill__batch_end(rill__batcher *bt, const rill_channel_modes *modes,
                     rill_render_extract_buf *buf) {
    double start_ms = 0.0;
    for (uint32_t ci = 0; ci < bt->cells.len; ci++) {
        cell *c = &bt->cells.data[ci];
        bool ok = true;
        if (c->state == CELL_COLLECTING) {
            start_ms += rill__batch_start_build(bt, ci);
        } else {
            ok = draw_cell(bt, ci, modes, buf);
        }
        c->seen = 0;
        if (!ok) {
            return false;
        }
    }
    /* After drawing: a member settled by this frame's steps was drawn alone by this walk. */
    rill__batch_build_some(bt, buf->jobs, start_ms);
    return true;
}
