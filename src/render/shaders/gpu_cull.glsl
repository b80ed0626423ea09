// gpu_cull.glsl: GPU-driven culling (gpu_cull.c), compiled as gpu_cull.comp and, with
// GPU_CULL_SUBGROUP, as gpu_cull_subgroup.comp (appends counted once per group and subgroup:
// see append_at). One shader, six steps picked by pc.mode; the
// resident table, the deltas and the groups are shared by the frame's views, the rest (planes,
// commands, output, flags, counts) is the view's own:
//   0 scatter: applies this frame's deltas to the resident instance table (spawn, move, settle,
//     despawn), one invocation per delta, once a frame (with the first view's cull);
//   1 reset: writes each list's indirect draw commands (one per draw group: mesh and material)
//     with no instances yet, one invocation per group and list;
//   2 cull: tests every resident instance's world bounding sphere against each list's planes (the
//     view frustum, then each shadow cascade) and appends the survivors' instance data to their
//     group's range of the output, counting them in the command's instance count. With
//     occlusion (info2.w bit 0) only the view's survivors that passed last frame's occlusion test
//     (flag bit 31, unless bit 1 resets it) are appended to the view's list: phase 1; the
//     others wait for gpu_occlusion.comp's test against this frame's depth pyramid (phase 2);
//   3 count: one invocation per list sums its commands' instance counts for the host (stats);
//   4 compact: one invocation per command and list: a command with instances is copied, for each
//     kind of run (shadow casters, solid shapes, materials: gpu_cull.c), to the front of its run
//     in that kind's array, counted in the run's draw count (vkCmdDrawIndexedIndirectCount draws
//     only those: empty commands cost the GPU nothing);
//   5 spawn flags: clears the view's flags of the instances spawned this frame, one invocation
//     per delta.
// Lists are laid out one after the other (info2.z of them: the frustum lists, then the view's
// phase-2 list when occlusion is on), in the commands, the output, the compacted commands and the
// draw counts.
// The output's entries have the layout of `Instance` in common.glsl, so the mesh and shadow
// vertex shaders read them through gl_InstanceIndex as they read the CPU path's instances.
#ifdef GPU_CULL_SUBGROUP
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#endif

layout(local_size_x = 64) in;

struct Delta {
    mat4 model;
    vec4 sphere; // mesh-space centre xyz, radius
    uvec4 meta;  // x slot, y group, z op (0 spawn, 1 move, 2 settle, 3 despawn), w LOD fade bits
};

struct Resident {
    mat4 model;
    mat4 prev; // last frame's model (motion vectors)
    vec4 sphere;
    uvec4 meta; // x group, y 1 = live, z LOD fade bits
};

struct Group {
    uint index_count, first_index;
    int vertex_offset;
    uint base; // first output entry of the group within a list
    uint cmd;  // its command within a list, 0xffffffff: no instance
    uint pad0, pad1, pad2;
};

struct OutInstance {
    mat4 model;
    mat4 prev_model;
    vec4 params;
};

layout(set = 0, binding = 0) readonly buffer Deltas { Delta deltas[]; };
layout(set = 0, binding = 1) buffer Residents { Resident res[]; };
layout(set = 0, binding = 2) readonly buffer Groups { Group groups[]; };
layout(set = 0, binding = 3) buffer Commands { uint cmds[]; }; // 5 uints per command
layout(set = 0, binding = 4) writeonly buffer Out { OutInstance outs[]; };
// Per slot: bit l = in frustum list l; bits 8, 9, 10: drawn in phase 1, drawn in phase 2,
// occluded (the view's frustum holds it, neither phase drew it); bit 31: passed the occlusion
// test (phase 1 next frame).
layout(set = 0, binding = 5) buffer Flags { uint flags[]; };
layout(set = 0, binding = 6) readonly buffer Params {
    vec4 planes[5][6]; // per list: a, b, c, d with ax + by + cz + d >= 0 inside
    uvec4 info;        // x lists, y commands per list, z output entries per list, w groups
    uvec4 info2;       // x runs of the three kinds (draw counts per list), z lists in all,
                       // w bit 0 occlusion on, bit 1 forget last frame's occlusion results
};

// Per list (mode 3), and at 8 the instances occlusion culled (gpu_occlusion.comp adds them).
layout(set = 0, binding = 7) buffer Counts { uint counts[]; };

// Per command: for each kind of run (x shadow casters, y solid shapes, z materials), the run's
// draw count slot and the run's first command.
struct CmdRun {
    uvec4 slot;
    uvec4 first;
};
layout(set = 0, binding = 8) readonly buffer CmdRuns { CmdRun cmd_runs[]; };
// Per kind and list, info.y commands (5 uints each): each run's non-empty ones at its front.
layout(set = 0, binding = 9) writeonly buffer Compact { uint compact[]; };
layout(set = 0, binding = 10) buffer DrawCounts { uint draw_counts[]; }; // per list, info2.x

layout(push_constant) uniform Push {
    uint mode;
    uint count;  // invocations in all
    uint offset; // of this dispatch's first (a dispatch has at most 65535 workgroups)
} pc;

void scatter(uint i) {
    Delta d = deltas[i];
    uint s = d.meta.x, op = d.meta.z;
    if (op == 3u) {
        res[s].meta = uvec4(0u);
        return;
    }
    if (op == 2u) {
        res[s].prev = res[s].model;
        return;
    }
    res[s].prev = op == 1u ? res[s].model : d.model;
    res[s].model = d.model;
    res[s].sphere = d.sphere;
    res[s].meta = uvec4(d.meta.y, 1u, d.meta.w, 0u);
}

// The flags are the view's (each view has its own): a new instance (or a reused slot) was not
// visible last frame.
void spawn_flags(uint i) {
    if (deltas[i].meta.z == 0u) {
        flags[deltas[i].meta.x] = 0u;
    }
}

void reset(uint i) {
    if (i < info2.z * info2.x) {
        draw_counts[i] = 0u;
    }
    uint ng = info.w, g = i % ng, l = i / ng;
    if (l >= info2.z) {
        return;
    }
    Group gr = groups[g];
    if (gr.cmd == 0xffffffffu) {
        return;
    }
    uint c = (l * info.y + gr.cmd) * 5u;
    cmds[c + 0u] = gr.index_count;
    cmds[c + 1u] = 0u;
    cmds[c + 2u] = gr.first_index;
    cmds[c + 3u] = uint(gr.vertex_offset);
    cmds[c + 4u] = l * info.z + gr.base;
}

// The place in list l of group cmd's range for an invocation that appends (0 for the others).
// Per-invocation atomics on the commands' counts serialise: the counts of a frame's groups sit in
// a few cache lines. The subgroup variant adds once per group among the subgroup's appending
// invocations (the lowest group first, until none is left) and hands each its rank.
uint append_at(uint l, uint cmd, bool append) {
#ifdef GPU_CULL_SUBGROUP
    uint at = 0u;
    bool pending = append;
    while (subgroupAny(pending)) {
        uint key = subgroupMin(pending ? cmd : 0xffffffffu);
        bool mine = pending && cmd == key;
        uvec4 ballot = subgroupBallot(mine);
        uint rank = subgroupBallotExclusiveBitCount(ballot);
        uint n = subgroupBallotBitCount(ballot);
        uint base = 0u;
        if (mine && rank == 0u) {
            base = atomicAdd(cmds[(l * info.y + key) * 5u + 1u], n);
        }
        base = subgroupMax(base);
        if (mine) {
            at = base + rank;
            pending = false;
        }
    }
    return at;
#else
    return append ? atomicAdd(cmds[(l * info.y + cmd) * 5u + 1u], 1u) : 0u;
#endif
}

// The same expressions as frame_cull.c's chunk_spheres and cull_frustum.
void cull(uint s) {
    Resident r = res[s];
    if (r.meta.y == 0u) {
        flags[s] = 0u;
        return;
    }
    bool occlusion = (info2.w & 1u) != 0u;
    bool was_visible = (info2.w & 2u) == 0u && (flags[s] & 0x80000000u) != 0u;
    mat4 m = r.model;
    vec3 c = r.sphere.xyz;
    float x = m[0][0] * c.x + m[1][0] * c.y + m[2][0] * c.z + m[3][0];
    float y = m[0][1] * c.x + m[1][1] * c.y + m[2][1] * c.z + m[3][1];
    float z = m[0][2] * c.x + m[1][2] * c.y + m[2][2] * c.z + m[3][2];
    float sx = m[0][0] * m[0][0] + m[0][1] * m[0][1] + m[0][2] * m[0][2];
    float sy = m[1][0] * m[1][0] + m[1][1] * m[1][1] + m[1][2] * m[1][2];
    float sz = m[2][0] * m[2][0] + m[2][1] * m[2][1] + m[2][2] * m[2][2];
    float rad = r.sphere.w * sqrt(max(sx, max(sy, sz)));
    Group gr = groups[r.meta.x];
    uint bits = 0u;
    for (uint l = 0u; l < info.x; l++) {
        bool inside = true;
        for (int k = 0; k < 6; k++) {
            vec4 p = planes[l][k];
            inside = inside && !(p.x * x + p.y * y + p.z * z + p.w < -rad);
        }
        bool append = inside;
        if (inside) {
            bits |= 1u << l;
            if (l == 0u && occlusion) {
                // Not visible last frame: phase 2 (gpu_occlusion.comp) tests it against this
                // frame's depth.
                append = was_visible;
                bits |= was_visible ? 0x100u : 0u;
            }
        }
        // Every invocation reaches the append (the subgroup variant adds for its lanes together).
        uint at = append_at(l, gr.cmd, append);
        if (append) {
            uint o = l * info.z + gr.base + at;
            outs[o].model = m;
            outs[o].prev_model = r.prev;
            outs[o].params = vec4(uintBitsToFloat(r.meta.z), 0.0, 0.0, 0.0);
        }
    }
    flags[s] = bits;
}

void count(uint l) {
    uint sum = 0u;
    for (uint c = 0u; c < info.y; c++) {
        sum += cmds[(l * info.y + c) * 5u + 1u];
    }
    counts[l] = sum;
    if (l == 0u) {
        counts[8] = 0u; // gpu_occlusion.comp counts into it after this
    }
}

void compact_cmd(uint i) {
    uint nc = info.y, l = i / nc, c = i % nc, src = (l * nc + c) * 5u;
    if (cmds[src + 1u] == 0u) {
        return;
    }
    CmdRun cr = cmd_runs[c];
    for (uint k = 0u; k < 3u; k++) {
        uint at = atomicAdd(draw_counts[l * info2.x + cr.slot[k]], 1u);
        uint dst = ((k * info2.z + l) * nc + cr.first[k] + at) * 5u;
        for (uint w = 0u; w < 5u; w++) {
            compact[dst + w] = cmds[src + w];
        }
    }
}

void main() {
    uint i = gl_GlobalInvocationID.x + pc.offset;
    if (i >= pc.count) {
        return;
    }
    if (pc.mode == 0u) {
        scatter(i);
    } else if (pc.mode == 1u) {
        reset(i);
    } else if (pc.mode == 2u) {
        cull(i);
    } else if (pc.mode == 3u) {
        count(i);
    } else if (pc.mode == 4u) {
        compact_cmd(i);
    } else {
        spawn_flags(i);
    }
}
