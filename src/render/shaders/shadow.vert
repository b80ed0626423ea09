#version 450
// shadow.vert: depth-only rendering of one shadow cascade (push constant picks the cascade). The
// UV and the LOD crossfade go to shadow_mask.frag (alpha-masked and crossfading casters); other
// opaque casters have no fragment shader.
#include "common.glsl"

layout(location = 0) in vec3 in_pos;
layout(location = 2) in vec2 in_uv;
layout(location = 4) in vec4 in_color;
layout(location = 5) in vec2 in_uv1;
layout(location = 0) out vec2 out_uv;
layout(location = 1) flat out float out_lod_fade;
layout(location = 2) out float out_alpha; // the vertex colour's alpha
layout(location = 3) out vec2 out_uv1;
layout(push_constant) uniform Push { uint cascade; } pc;

void main() {
    Instance inst = instances[gl_InstanceIndex];
    out_uv = in_uv;
    out_alpha = in_color.a;
    out_uv1 = in_uv1;
    out_lod_fade = inst.params.x;
    gl_Position = frame.cascade_view_proj[pc.cascade] * (inst.model * vec4(in_pos, 1.0));
}
