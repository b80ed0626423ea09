#version 450
// mesh.vert: the vertex shader of the prepass, opaque and transparent passes. The same SPIR-V in
// every pass gives bit-identical depth, so the opaque pass can test LESS_EQUAL against the prepass.
#include "common.glsl"

layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;
layout(location = 4) in vec4 in_color; // vertex extras (binding 1): white without
layout(location = 5) in vec2 in_uv1;

layout(location = 0) out vec3 out_world;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
layout(location = 3) out vec4 out_tangent;
layout(location = 4) out vec4 out_clip;
layout(location = 5) out vec4 out_prev_clip;
layout(location = 6) out float out_view_depth;
layout(location = 7) flat out float out_lod_fade;
layout(location = 8) out vec4 out_color;
layout(location = 9) out vec2 out_uv1;

void main() {
    Instance inst = instances[gl_InstanceIndex];
    vec4 world = inst.model * vec4(in_pos, 1.0);
    mat3 nmat = transpose(inverse(mat3(inst.model)));
    out_world = world.xyz;
    out_normal = nmat * in_normal;
    out_uv = in_uv;
    out_color = in_color;
    out_uv1 = in_uv1;
    // A mirroring matrix (negative determinant) reverses the handedness of the tangent frame:
    // the fragment shader's bitangent, cross(normal, tangent) * w, would point against the
    // mesh's +v, so w takes the determinant's sign.
    float hand = determinant(mat3(inst.model)) < 0.0 ? -1.0 : 1.0;
    out_tangent = vec4(mat3(inst.model) * in_tangent.xyz, in_tangent.w * hand);
    out_clip = frame.view_proj * world;
    out_prev_clip = frame.prev_view_proj * (inst.prev_model * vec4(in_pos, 1.0));
    out_view_depth = -(frame.view * world).z;
    out_lod_fade = inst.params.x;
    // TAA jitters what is rasterized; motion vectors keep the unjittered positions.
    gl_Position = out_clip + vec4(frame.jitter.xy * out_clip.w, 0.0, 0.0);
}
