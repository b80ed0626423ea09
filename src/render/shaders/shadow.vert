#version 450
// shadow.vert: depth-only rendering of one shadow cascade (push constant picks the cascade).
#include "common.glsl"

layout(location = 0) in vec3 in_pos;
layout(push_constant) uniform Push { uint cascade; } pc;

void main() {
    Instance inst = instances[gl_InstanceIndex];
    gl_Position = frame.cascade_view_proj[pc.cascade] * (inst.model * vec4(in_pos, 1.0));
}
