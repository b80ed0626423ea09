#version 450
// skin.comp: the deformation of one skinned or morphed instance (skinning.c). Each invocation
// reads a vertex of the mesh's rest pose, adds its morph targets' displacements by the instance's
// weights, blends the instance's joint matrices by the vertex's four joint weights, and writes
// the posed vertex, in the same 48-byte layout, to the instance's target mesh, which every pass
// then draws like any rigid mesh.
layout(local_size_x = 64) in;

// Vertices as plain floats: 12 per vertex (position 3, normal 3, uv 2, tangent 4).
layout(std430, set = 0, binding = 0) readonly buffer Rest { float rest[]; };
// Weights: 6 words per vertex (joints as two pairs of 16-bit indices, then 4 float weights).
layout(std430, set = 0, binding = 1) readonly buffer Weights { uint skin[]; };
layout(std430, set = 0, binding = 2) readonly buffer Joints { mat4 joints[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Posed { float posed[]; };
// Morph displacements: vertex-major (vertex v, target t at (v * targets + t) * 3), positions for
// every vertex, then normals when morph_normals is set.
layout(std430, set = 0, binding = 4) readonly buffer Deltas { float deltas[]; };
layout(std430, set = 0, binding = 5) readonly buffer MorphWeights { float morph_w[]; };

layout(push_constant) uniform Push {
    uint vertex_count;
    uint joint_count; // 0: not skinned
    uint target_count; // 0: not morphed
    uint morph_normals;
} pc;

vec3 unit_or_zero(vec3 v) {
    float l = length(v);
    return l > 1e-20 ? v / l : vec3(0.0);
}

void main() {
    uint v = gl_GlobalInvocationID.x;
    if (v >= pc.vertex_count) {
        return;
    }
    uint b = v * 12u;
    vec3 p = vec3(rest[b], rest[b + 1u], rest[b + 2u]);
    vec3 n = vec3(rest[b + 3u], rest[b + 4u], rest[b + 5u]);
    vec4 t = vec4(rest[b + 8u], rest[b + 9u], rest[b + 10u], rest[b + 11u]);
    uint tc = pc.target_count;
    uint normals_at = pc.vertex_count * tc * 3u;
    for (uint k = 0u; k < tc; k++) {
        float w = morph_w[k];
        if (w == 0.0) {
            continue;
        }
        uint d = (v * tc + k) * 3u;
        p += w * vec3(deltas[d], deltas[d + 1u], deltas[d + 2u]);
        if (pc.morph_normals != 0u) {
            n += w * vec3(deltas[normals_at + d], deltas[normals_at + d + 1u],
                          deltas[normals_at + d + 2u]);
        }
    }
    mat4 m = mat4(1.0);
    if (pc.joint_count > 0u) {
        uint s = v * 6u;
        uint last = pc.joint_count - 1u;
        uvec4 j = min(uvec4(skin[s] & 0xFFFFu, skin[s] >> 16, skin[s + 1u] & 0xFFFFu,
                            skin[s + 1u] >> 16),
                      uvec4(last));
        vec4 jw = vec4(uintBitsToFloat(skin[s + 2u]), uintBitsToFloat(skin[s + 3u]),
                       uintBitsToFloat(skin[s + 4u]), uintBitsToFloat(skin[s + 5u]));
        m = jw.x * joints[j.x] + jw.y * joints[j.y] + jw.z * joints[j.z] + jw.w * joints[j.w];
    }
    vec3 pp = (m * vec4(p, 1.0)).xyz;
    // The normal goes through the inverse transpose (correct under non-uniform scale); the
    // cofactor matrix is that times the determinant (whose sign is undone), and unlike the inverse
    // it never divides by a vanishing determinant.
    mat3 a = mat3(m);
    mat3 cof = mat3(cross(a[1], a[2]), cross(a[2], a[0]), cross(a[0], a[1]));
    vec3 nn = unit_or_zero(cof * n) * (dot(a[0], cof[0]) < 0.0 ? -1.0 : 1.0);
    vec3 tt = unit_or_zero(a * t.xyz);
    posed[b] = pp.x;
    posed[b + 1u] = pp.y;
    posed[b + 2u] = pp.z;
    posed[b + 3u] = nn.x;
    posed[b + 4u] = nn.y;
    posed[b + 5u] = nn.z;
    posed[b + 6u] = rest[b + 6u];
    posed[b + 7u] = rest[b + 7u];
    posed[b + 8u] = tt.x;
    posed[b + 9u] = tt.y;
    posed[b + 10u] = tt.z;
    posed[b + 11u] = t.w;
}
