#version 450
// ssr_trace.comp: screen-space reflection rays at half resolution over the min-depth pyramid
// (ssr_hiz.comp). Per pixel whose material is smoother than max_roughness, the mirror ray is
// projected to a segment in (pixels of pyramid level 0, NDC depth), both linear on screen, and
// walked cell by cell: a ray in front of a cell's nearest depth skips the whole cell and climbs a
// level; one that may touch it descends; at level 0 a ray behind the full-resolution surface under
// it by less than `thickness` metres hits it. Output: the lit colour at the hit times a confidence
// that fades toward the screen's edges, toward max_roughness and for surfaces seen from behind;
// 0 on a miss.
#include "ssr_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;  // full resolution
layout(set = 0, binding = 2) uniform sampler2D normal_tex; // full resolution, w the material
layout(set = 0, binding = 3) uniform sampler2D hiz;        // every level, nearest
layout(set = 0, binding = 4) uniform sampler2D color_tex;  // the lit image
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D trace_out;
layout(push_constant) uniform Push {
    uvec4 size;   // xy this pass's (pyramid level 0) size, zw the full size
    uvec4 steps;  // x steps per ray, y pyramid levels
    vec4 params;  // x thickness (m), y max roughness
} pc;

mat4 inv_proj; // inverse(frame.proj), set first in main

const float NO_T = 1e30;

// The segment parameter where the ray leaves [0, size] along one axis (NO_T when it never does).
float exit_screen(float o, float d, float size) {
    return d > 0.0 ? (size - o) / d : d < 0.0 ? -o / d : NO_T;
}

void main() {
    inv_proj = inverse(frame.proj);
    ivec2 q = ivec2(gl_GlobalInvocationID.xy);
    if (q.x >= int(pc.size.x) || q.y >= int(pc.size.y))
        return;
    ivec2 full = min(q * 2, ivec2(pc.size.zw) - 1);
    float d = texelFetch(depth_tex, full, 0).r;
    vec4 nw = texelFetch(normal_tex, full, 0);
    float rough, metal;
    unpack_material(nw.w, rough, metal);
    if (d >= 1.0 || rough > pc.params.y) {
        imageStore(trace_out, q, vec4(0.0));
        return;
    }
    vec2 uv = (vec2(full) + 0.5) / vec2(pc.size.zw);
    vec3 P = ssr_view_pos(inv_proj, uv, d);
    vec3 N = normalize(mat3(frame.view) * nw.xyz);
    vec3 R = reflect(normalize(P), N);
    P += N * (0.002 * max(-P.z, 0.1)); // off the surface it starts on
    // End point: far along the ray, but in front of the camera's near plane.
    float near = ssr_linear(inv_proj, 0.0);
    float len = 1000.0;
    if (R.z > 1e-5)
        len = min(len, (-near * 1.01 - P.z) / R.z);
    if (len <= 0.0) {
        imageStore(trace_out, q, vec4(0.0));
        return;
    }
    vec4 c0 = frame.proj * vec4(P, 1.0), c1 = frame.proj * vec4(P + R * len, 1.0);
    vec3 n0 = c0.xyz / c0.w, n1 = c1.xyz / c1.w;
    vec2 size = vec2(pc.size.xy);
    vec2 s0 = vec2(n0.x * 0.5 + 0.5, 0.5 - n0.y * 0.5) * size;
    vec2 s1 = vec2(n1.x * 0.5 + 0.5, 0.5 - n1.y * 0.5) * size;
    vec2 dir = s1 - s0;
    float dz = n1.z - n0.z;
    float span = max(abs(dir.x), abs(dir.y));
    if (span < 1e-3) {
        imageStore(trace_out, q, vec4(0.0));
        return;
    }
    float t_end = min(1.0, min(exit_screen(s0.x, dir.x, size.x), exit_screen(s0.y, dir.y, size.y)));
    float eps = 0.01 / span;
    float t = 1.0 / span; // one texel away from the start
    int level = 0, top = int(pc.steps.y) - 1;
    bool hit = false;
    for (uint i = 0u; i < pc.steps.x && t < t_end; i++) {
        vec2 pos = s0 + dir * t;
        float cell_size = exp2(float(level));
        vec2 cell = floor(pos / cell_size);
        vec2 bound = (cell + step(0.0, dir)) * cell_size;
        vec2 tb = vec2(abs(dir.x) > 1e-6 ? (bound.x - s0.x) / dir.x : NO_T,
                       abs(dir.y) > 1e-6 ? (bound.y - s0.y) / dir.y : NO_T);
        float t_exit = min(tb.x, tb.y);
        float zmin = texelFetch(hiz, ivec2(cell), level).r;
        float zr = n0.z + dz * t;
        if (zr < zmin) { // in front of every surface of the cell
            float t_plane = dz > 0.0 ? (zmin - n0.z) / dz : NO_T;
            if (t_plane < t_exit) {
                t = max(t_plane, t);
                level = max(level - 1, 0);
            } else {
                t = t_exit + eps;
                level = min(level + 1, top);
            }
        } else if (level > 0) {
            level--;
        } else {
            // The cell's nearest depth may belong to a neighbouring full-resolution pixel (a
            // surface sloping toward the camera): test against the depth under the ray itself.
            float zs = textureLod(depth_tex, pos / size, 0.0).r;
            if (zr >= zs && ssr_linear(inv_proj, zr) - ssr_linear(inv_proj, zs) < pc.params.x) {
                hit = true;
                break;
            }
            t = t_exit + eps; // in front of it, or behind a thin surface: pass it
        }
    }
    if (!hit) {
        imageStore(trace_out, q, vec4(0.0));
        return;
    }
    vec2 huv = (s0 + dir * t) / size;
    vec3 hn = normalize(mat3(frame.view) * textureLod(normal_tex, huv, 0.0).xyz);
    vec2 edge = min(huv, 1.0 - huv);
    float conf = smoothstep(0.0, 0.08, min(edge.x, edge.y));
    conf *= 1.0 - smoothstep(pc.params.y * 0.7, pc.params.y, rough);
    conf *= dot(hn, R) < 0.2 ? 1.0 : 0.0; // a surface seen from behind
    vec3 c = textureLod(color_tex, huv, 0.0).rgb;
    imageStore(trace_out, q, vec4(c * conf, conf));
}
