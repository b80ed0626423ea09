#version 450
// gpu_occlusion.comp: phase 2 of GPU culling's occlusion (gpu_occlusion.c), one invocation per
// resident slot, after phase 1's draws are in the depth buffer and the farthest-depth pyramid
// (ssr_hiz.comp with `farthest`) is built from it. Every instance the view's frustum holds (flag
// bit 0, set by gpu_cull.glsl's cull step) is tested against the pyramid: the corners of its
// world sphere's box are projected, the pyramid level whose texels cover their screen rectangle in
// at most 2 x 2 is read, and the instance is occluded when the box's nearest depth lies behind the
// farthest depth under the rectangle. The result is its visibility for the next frame (bit 31);
// an instance phase 1 did not draw (no bit 8) is appended to the view's phase-2 list when it is
// visible (bit 9), else counted as occluded (bit 10, counts[8]).
layout(local_size_x = 64) in;

struct Resident {
    mat4 model;
    mat4 prev;
    vec4 sphere;
    uvec4 meta; // x group, y 1 = live, z LOD fade bits
};

struct Group {
    uint index_count, first_index;
    int vertex_offset;
    uint base;
    uint cmd;
    uint pad0, pad1, pad2;
};

struct OutInstance {
    mat4 model;
    mat4 prev_model;
    vec4 params;
};

layout(set = 0, binding = 0) readonly buffer Residents { Resident res[]; };
layout(set = 0, binding = 1) readonly buffer Groups { Group groups[]; };
layout(set = 0, binding = 2) buffer Commands { uint cmds[]; }; // 5 uints per command
layout(set = 0, binding = 3) writeonly buffer Out { OutInstance outs[]; };
layout(set = 0, binding = 4) buffer Flags { uint flags[]; };
layout(set = 0, binding = 5) readonly buffer Params {
    mat4 view_proj; // the view's, without TAA's jitter (a pixel of margin covers it)
    vec4 screen;    // xy: the depth image's size in pixels; z: depth margin; w: radius scale
    uvec4 info;     // x the phase-2 list, y commands per list, z output entries per list, w slots
    uvec4 pyramid;  // xy: level 0's size (half the depth image's), z: levels
};
layout(set = 0, binding = 6) buffer Counts { uint counts[]; };
layout(set = 0, binding = 7) uniform sampler2D hiz;

layout(push_constant) uniform Push {
    uint count;  // invocations in all
    uint offset; // of this dispatch's first
} pc;

const uint IN_VIEW = 1u, PHASE1 = 0x100u, PHASE2 = 0x200u, OCCLUDED = 0x400u;
const uint VISIBLE = 0x80000000u;

shared uint wg_occluded;

// Whether the box around the sphere (centre c, radius r) lies behind the depth pyramid
// everywhere it covers. A box that crosses the near plane, or a rectangle the pyramid's top
// cannot cover in 2 x 2 texels, counts as visible.
bool occluded(vec3 c, float r) {
    vec2 lo = vec2(1e30), hi = vec2(-1e30);
    float zmin = 1.0;
    for (int k = 0; k < 8; k++) {
        vec3 sgn = vec3((k & 1) != 0 ? 1.0 : -1.0, (k & 2) != 0 ? 1.0 : -1.0,
                        (k & 4) != 0 ? 1.0 : -1.0);
        vec4 q = view_proj * vec4(c + r * sgn, 1.0);
        if (!(q.w > 0.0) || !(q.z >= 0.0)) {
            return false;
        }
        vec3 n = q.xyz / q.w;
        lo = min(lo, n.xy);
        hi = max(hi, n.xy);
        zmin = min(zmin, n.z);
    }
    // Pixels (the viewport's y runs down: clip y = 1 is row 0), a pixel of margin each side.
    vec2 size = screen.xy;
    vec2 p0 = vec2(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * size - 1.0;
    vec2 p1 = vec2(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * size + 1.0;
    p0 = clamp(p0, vec2(0.0), size - 1.0);
    p1 = clamp(p1, vec2(0.0), size - 1.0);
    ivec2 a = ivec2(p0), b = ivec2(p1);
    // Level n's texel t covers pixels [t, t + 1) * 2^(n + 1), its last texel every pixel after.
    for (uint n = 0u; n < pyramid.z; n++) {
        ivec2 sz = max(ivec2(pyramid.xy) >> n, ivec2(1));
        ivec2 t0 = min(a >> (n + 1u), sz - 1), t1 = min(b >> (n + 1u), sz - 1);
        if (t1.x - t0.x > 1 || t1.y - t0.y > 1) {
            continue;
        }
        float zmax = 0.0;
        for (int y = t0.y; y <= t1.y; y++) {
            for (int x = t0.x; x <= t1.x; x++) {
                zmax = max(zmax, texelFetch(hiz, ivec2(x, y), int(n)).r);
            }
        }
        return zmin > zmax + screen.z;
    }
    return false;
}

void test(uint s) {
    uint f = flags[s];
    if ((f & IN_VIEW) == 0u) {
        return; // outside the view: not visible (gpu_cull.glsl cleared bit 31)
    }
    Resident rs = res[s];
    mat4 m = rs.model;
    vec3 c = (m * vec4(rs.sphere.xyz, 1.0)).xyz;
    float sx = dot(m[0].xyz, m[0].xyz), sy = dot(m[1].xyz, m[1].xyz), sz = dot(m[2].xyz, m[2].xyz);
    float rad = rs.sphere.w * sqrt(max(sx, max(sy, sz))) * screen.w;
    bool hidden = occluded(c, rad);
    f = (f & ~VISIBLE) | (hidden ? 0u : VISIBLE);
    if ((f & PHASE1) == 0u) {
        if (hidden) {
            f |= OCCLUDED;
            atomicAdd(wg_occluded, 1u);
        } else {
            f |= PHASE2;
            Group gr = groups[rs.meta.x];
            uint at = atomicAdd(cmds[(info.x * info.y + gr.cmd) * 5u + 1u], 1u);
            uint o = info.x * info.z + gr.base + at;
            outs[o].model = m;
            outs[o].prev_model = rs.prev;
            outs[o].params = vec4(uintBitsToFloat(rs.meta.z), 0.0, 0.0, 0.0);
        }
    }
    flags[s] = f;
}

void main() {
    if (gl_LocalInvocationIndex == 0u) {
        wg_occluded = 0u;
    }
    barrier();
    uint i = gl_GlobalInvocationID.x + pc.offset;
    if (i < pc.count && res[i].meta.y != 0u) {
        test(i);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && wg_occluded != 0u) {
        atomicAdd(counts[8], wg_occluded);
    }
}
