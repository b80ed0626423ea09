#version 450
// wire.frag: the wireframe pass (edge-buffer line lists, or polygon-mode line fill for meshes
// without edges): a flat color whose alpha fades with distance
// from the camera, alpha = color.a * mix(min_alpha, 1, 1 - smoothstep(start, end, d)).
#include "common.glsl"

layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;
layout(location = 4) in vec4 in_clip;
layout(location = 5) in vec4 in_prev_clip;
layout(location = 6) in float in_view_depth;

layout(push_constant) uniform Push {
    vec4 color;
    vec4 fade; // x start, y end, z min_alpha, w 1 = fade on
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    float a = pc.color.a;
    if (pc.fade.w > 0.5) {
        float d = distance(in_world, frame.camera_pos.xyz);
        a *= mix(pc.fade.z, 1.0, 1.0 - smoothstep(pc.fade.x, pc.fade.y, d));
    }
    out_color = vec4(pc.color.rgb, a);
}
