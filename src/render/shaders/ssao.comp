#version 450
// ssao.comp: screen-space ambient occlusion from the prepass depth and normals. For each pixel,
// sample points on `slices` half-planes around the normal (both sides, `per_side` distances each)
// inside a hemisphere of `radius`; a sample counts as occluded when the depth buffer holds a
// surface in front of it that is less than `thickness` in front (a surface further in front is
// assumed to be thin and the sample is treated as passing behind it). Output: 1 = open, 0 = closed.
// Slice angles and sample distances are rotated per pixel with a 4x4 pattern; ssao_blur.comp
// averages each 4x4 block back into a smooth result.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2) uniform sampler2D normal_tex_in;
layout(set = 0, binding = 3, r32f) uniform writeonly image2D ao_out; // the raw, noisy result
layout(push_constant) uniform Push {
    uvec2 size;
    uint slices;
    uint per_side;
    float thickness;
    float radius;
} pc;

vec3 view_pos(vec2 uv, float depth, mat4 inv_proj) {
    vec4 ndc = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, depth, 1.0); // viewports are y-flipped
    vec4 v = inv_proj * ndc;
    return v.xyz / v.w;
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec2 uv = (vec2(p) + 0.5) / vec2(pc.size);
    float d = texelFetch(depth_tex, p, 0).r;
    if (d >= 1.0) {
        imageStore(ao_out, p, vec4(1.0));
        return;
    }
    mat4 inv_proj = inverse(frame.proj);
    vec3 P = view_pos(uv, d, inv_proj);
    vec3 N = normalize(mat3(frame.view) * texelFetch(normal_tex_in, p, 0).xyz);
    vec3 T = normalize(abs(N.y) < 0.99 ? cross(N, vec3(0, 1, 0)) : cross(N, vec3(1, 0, 0)));
    vec3 B = cross(N, T);
    float occluded = 0.0, total = 0.0;
    uint cell = uint(p.x & 3) + 4u * uint(p.y & 3);
    float jitter_a = (float((cell * 7u) & 15u) + 0.5) / 16.0; // a permutation of 0..15
    float jitter_d = fract(float(cell) * 0.618034);
    for (uint s = 0u; s < pc.slices; s++) {
        float phi = (float(s) + jitter_a) / float(pc.slices) * 3.14159265;
        vec3 dir = cos(phi) * T + sin(phi) * B;
        for (int side = -1; side <= 1; side += 2) {
            for (uint j = 0u; j < pc.per_side; j++) {
                float t = (float(j) + 0.25 + 0.75 * jitter_d) / float(pc.per_side);
                // Spread samples over elevations and distances inside the hemisphere.
                float elev = 0.15 + 0.7 * (float(j) + 0.5) / float(pc.per_side);
                vec3 h = normalize(dir * float(side) * (1.0 - elev) + N * elev);
                vec3 Q = P + h * pc.radius * t;
                vec4 c = frame.proj * vec4(Q, 1.0);
                vec3 ndc = c.xyz / c.w;
                vec2 quv = vec2(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
                total += 1.0;
                if (any(lessThan(quv, vec2(0.0))) || any(greaterThan(quv, vec2(1.0))))
                    continue;
                float sd = textureLod(depth_tex, quv, 0.0).r;
                vec3 S = view_pos(quv, sd, inv_proj);
                float in_front = S.z - Q.z; // view space looks down -z: larger z is closer
                if (in_front > 0.02 * pc.radius && in_front < pc.thickness)
                    occluded += 1.0;
            }
        }
    }
    float ao = total > 0.0 ? 1.0 - occluded / total : 1.0;
    imageStore(ao_out, p, vec4(ao));
}
