/* skinning.c: GPU skinning and morph targets of the snapshot's deformed instances
 * (rill_render_snapshot.skins: joint matrices, morph weights, or both).
 *
 * A compute pre-pass, not a vertex-shader path: every instance with joint matrices gets a target
 * mesh of its own (its vertex buffer, the base mesh's indices and edges shared), and one dispatch
 * of skin.comp per instance writes the posed vertices there at the start of the frame. Every pass
 * (shadows, prepass, opaque, transparent, wireframe, ghosts) then draws the target like any rigid
 * mesh, with the same pipelines: rigid draws pay nothing, no pipeline gets a skinned variant, and
 * a skinned mesh casts its posed shadow. The instance's bounds for culling are the base mesh's box
 * carried by each joint matrix (a blend of joints lies inside the hull of their boxes). Motion
 * vectors see the instance's rigid motion only (no previous pose is kept). */
#include "render_internal.h"

#include "render_shaders.h"

#include <math.h>
#include <string.h>

/* A target unused for this many frames is destroyed (the GPU frees it after the frames in flight
 * that may still draw it). */
#define TARGET_IDLE_FRAMES 8u

typedef struct skin_target {
    uint64_t id; /* the instance's id */
    rill_mesh base, mesh;
    uint64_t used; /* the frame_counter that last skinned it */
} skin_target;

typedef struct rill__skinning {
    rill__pipe *pipe;
    RILL_ARRAY(skin_target) targets;
    rill_map target_of; /* instance id -> index in targets */
    RILL_ARRAY(rill_render_instance) patched;
} rill__skinning;

static rill__skinning *skinning_get(rill_renderer *r, rill_error *err) {
    if (r->skinning) {
        return r->skinning;
    }
    rill__skinning *s = rill_calloc_tagged(1, sizeof(*s), RILL_MEM_RENDER);
    if (!s) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (skinning)");
        return NULL;
    }
    rill__pipe_desc d = {.label = "skinning",
                         .cs = rill__spv_skin_comp,
                         .cs_size = rill__spv_skin_comp_size,
                         .set_count = 1,
                         .push_size = 16};
    for (int k = 0; k < 6; k++) {
        d.sets[0].bindings[k] = RILL__BIND_STORAGE;
    }
    s->pipe = rill__pipe_create(r->gpu, &d, err);
    if (!s->pipe) {
        rill_free(s);
        return NULL;
    }
    r->skinning = s;
    return s;
}

void rill__skinning_destroy(rill_renderer *r) {
    rill__skinning *s = r->skinning;
    if (!s) {
        return;
    }
    /* The targets are meshes of the pools, freed with them. */
    rill__pipe_destroy(r->gpu, s->pipe);
    rill_array_free(&s->targets);
    rill_array_free(&s->patched);
    rill_map_free(&s->target_of);
    rill_free(s);
    r->skinning = NULL;
}

/* Destroys the targets no skin used for TARGET_IDLE_FRAMES frames (swap-remove). */
static void evict_idle(rill_renderer *r, rill__skinning *s) {
    for (uint32_t i = s->targets.len; i-- > 0;) {
        skin_target *t = &s->targets.data[i];
        if (r->frame_counter - t->used <= TARGET_IDLE_FRAMES) {
            continue;
        }
        rill_render_mesh_destroy(r, t->mesh);
        rill_map_remove(&s->target_of, t->id);
        uint32_t last = s->targets.len - 1u;
        if (i != last) {
            s->targets.data[i] = s->targets.data[last];
            rill_map_set(&s->target_of, s->targets.data[i].id, i);
        }
        s->targets.len--;
    }
}

/* The target mesh of instance `id` drawing `base`, made (or remade for another base) as needed;
 * {0} when it cannot be made. */
static rill_mesh target_of(rill_renderer *r, rill__skinning *s, uint64_t id, rill_mesh base) {
    uint64_t at = 0;
    if (rill_map_get(&s->target_of, id, &at)) {
        skin_target *t = &s->targets.data[at];
        if (t->base.id == base.id && rill__mesh_get(r, t->mesh)) {
            t->used = r->frame_counter;
            return t->mesh;
        }
        rill_render_mesh_destroy(r, t->mesh);
        t->mesh = rill__mesh_create_skin_target(r, base, NULL);
        t->base = base;
        t->used = r->frame_counter;
        return t->mesh;
    }
    rill_mesh m = rill__mesh_create_skin_target(r, base, NULL);
    skin_target t = {id, base, m, r->frame_counter};
    if (!m.id || !rill_array_push(&s->targets, t)) {
        rill_render_mesh_destroy(r, m);
        return (rill_mesh){0};
    }
    if (!rill_map_set(&s->target_of, id, s->targets.len - 1u)) {
        rill_render_mesh_destroy(r, m);
        s->targets.len--;
        return (rill_mesh){0};
    }
    return m;
}

/* The target's local bounds: the base box grown by the longest morph displacement times the
 * weights' sum, then carried by every joint matrix (none: the identity). */
static void pose_bounds(mesh_slot *t, const mesh_slot *base, const float *joints, uint32_t n,
                        const float *weights, uint32_t wn) {
    static const float ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float grow = 0.0f, lo[3] = {INFINITY, INFINITY, INFINITY};
    float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t k = 0; k < wn; k++) {
        grow += fabsf(weights[k]) * base->morph_reach;
    }
    if (!n) {
        joints = ident, n = 1;
    }
    for (uint32_t j = 0; j < n; j++) {
        const float *m = &joints[(size_t)j * 16];
        for (int c = 0; c < 8; c++) {
            float p[3] = {(c & 1) ? base->box_max[0] + grow : base->box_min[0] - grow,
                          (c & 2) ? base->box_max[1] + grow : base->box_min[1] - grow,
                          (c & 4) ? base->box_max[2] + grow : base->box_min[2] - grow};
            for (int k = 0; k < 3; k++) {
                float v = m[k] * p[0] + m[4 + k] * p[1] + m[8 + k] * p[2] + m[12 + k];
                lo[k] = fminf(lo[k], v);
                hi[k] = fmaxf(hi[k], v);
            }
        }
    }
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        t->box_min[k] = lo[k];
        t->box_max[k] = hi[k];
        t->center[k] = 0.5f * (lo[k] + hi[k]);
        r2 += 0.25f * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    t->radius = sqrtf(r2);
}

/* What skin k of snap deforms: *joints (0: no skinning) when its mesh is skinned (uploaded),
 * names no joint beyond the skin's and its matrices are finite; *weights (0: no morph) when the
 * mesh has that many morph targets and the weights are finite. NULL when neither applies. */
static const mesh_slot *skin_base(const rill_renderer *r, const rill_render_snapshot *snap,
                                  const rill_render_skin *k, uint32_t *joints, uint32_t *weights) {
    *joints = *weights = 0;
    if (k->instance >= snap->instance_count) {
        return NULL;
    }
    const mesh_slot *b = rill__mesh_get(r, snap->instances[k->instance].mesh);
    if (!b || b->block) {
        return NULL;
    }
    bool skin = k->joint_count && snap->joint_matrices && b->sb && rill__buf_ready(b->sb) &&
                b->skin_joints <= k->joint_count;
    const float *jm = skin ? &snap->joint_matrices[(size_t)k->first_joint * 16] : NULL;
    for (size_t i = 0; skin && i < (size_t)k->joint_count * 16; i++) {
        skin = isfinite(jm[i]);
    }
    bool morph = k->weight_count && snap->morph_weights && b->mb && rill__buf_ready(b->mb) &&
                 b->morph_targets == k->weight_count;
    const float *mw = morph ? &snap->morph_weights[k->first_weight] : NULL;
    for (uint32_t i = 0; morph && i < k->weight_count; i++) {
        morph = isfinite(mw[i]);
    }
    *joints = skin ? k->joint_count : 0;
    *weights = morph ? k->weight_count : 0;
    return skin || morph ? b : NULL;
}

/* Records one instance's dispatch; false when the frame's scratch memory ran out. A buffer the
 * instance does not use is bound as the rest pose (never read: its count is 0). */
static bool dispatch_one(rill__cmd *cmd, const mesh_slot *base, const mesh_slot *target,
                         const float *joints, uint32_t joint_count, const float *weights,
                         uint32_t weight_count) {
    rill__buf *jbuf = NULL;
    uint64_t joff = 0, jbytes = (uint64_t)(joint_count ? joint_count : 1u) * 64u;
    uint64_t wbytes = (uint64_t)(weight_count ? weight_count : 1u) * 4u;
    uint64_t wat = (jbytes + 255u) & ~(uint64_t)255u;
    char *dst = rill__frame_alloc(cmd, wat + wbytes, 256, &jbuf, &joff);
    if (!dst) {
        return false;
    }
    memset(dst, 0, wat + wbytes);
    if (joint_count) {
        memcpy(dst, joints, (size_t)joint_count * 64u);
    }
    if (weight_count) {
        memcpy(dst + wat, weights, (size_t)weight_count * 4u);
    }
    rill__binding b[6] = {{.buf = base->vb},
                          {.buf = joint_count ? base->sb : base->vb},
                          {.buf = jbuf, .offset = joff, .range = jbytes},
                          {.buf = target->vb},
                          {.buf = weight_count ? base->mb : base->vb},
                          {.buf = jbuf, .offset = joff + wat, .range = wbytes}};
    if (rill__cmd_bind_transient_set(cmd, 0, b, 6) != RILL_OK) {
        return false;
    }
    uint32_t vertices = (uint32_t)(rill__buf_size(base->vb) / sizeof(rill_vertex));
    uint32_t push[4] = {vertices, joint_count, weight_count,
                        weight_count && base->morph_normals ? 1u : 0u};
    rill__cmd_push(cmd, push, sizeof(push));
    rill__cmd_dispatch(cmd, (vertices + 63u) / 64u, 1, 1);
    return true;
}

rill_result rill__skinning_run(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                               rill_render_snapshot *out_snap, rill_error *err) {
    *out_snap = *snap;
    if (r->skinning) {
        evict_idle(r, r->skinning);
    }
    if (!snap->skin_count || !snap->instance_count) {
        return RILL_OK;
    }
    rill__skinning *s = skinning_get(r, err);
    if (!s) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    s->patched.len = 0;
    if (!rill_array_reserve(&s->patched, snap->instance_count)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (skinning)");
    }
    memcpy(s->patched.data, snap->instances,
           (size_t)snap->instance_count * sizeof(*snap->instances));
    s->patched.len = snap->instance_count;
    bool begun = false;
    for (uint32_t i = 0; i < snap->skin_count; i++) {
        const rill_render_skin *k = &snap->skins[i];
        uint32_t joints = 0, weights = 0;
        const mesh_slot *base = skin_base(r, snap, k, &joints, &weights);
        rill_render_instance *in = base ? &s->patched.data[k->instance] : NULL;
        rill_mesh tm = in ? target_of(r, s, in->id, in->mesh) : (rill_mesh){0};
        mesh_slot *target = tm.id ? rill__mesh_slot(r, tm) : NULL;
        base = target ? rill__mesh_get(r, in->mesh) : NULL; /* (targets may have moved the pool) */
        if (!base) {
            continue;
        }
        if (!begun) {
            rill__cmd_timestamp_begin(cmd, "skinning");
            rill__cmd_label_begin(cmd, "skinning");
            rill__cmd_skinning_barrier(cmd, false);
            rill__cmd_bind_pipe(cmd, s->pipe);
            begun = true;
        }
        const float *jm = joints ? &snap->joint_matrices[(size_t)k->first_joint * 16] : NULL;
        const float *mw = weights ? &snap->morph_weights[k->first_weight] : NULL;
        if (!dispatch_one(cmd, base, target, jm, joints, mw, weights)) {
            break; /* out of frame memory: the rest draw rigid */
        }
        pose_bounds(target, base, jm, joints, mw, weights);
        in->mesh = tm;
    }
    if (begun) {
        rill__cmd_skinning_barrier(cmd, true);
        rill__cmd_label_end(cmd);
        rill__cmd_timestamp_end(cmd);
    }
    out_snap->instances = s->patched.data;
    return RILL_OK;
}
