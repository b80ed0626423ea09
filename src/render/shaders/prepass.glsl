// prepass.glsl: what both prepass shaders share: the mesh inputs and the outputs next to depth,
// world-space normals and screen-space motion vectors. Include after common.glsl.
#include "surface.glsl"
layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;
layout(location = 4) in vec4 in_clip;
layout(location = 5) in vec4 in_prev_clip;
layout(location = 6) in float in_view_depth;
layout(location = 7) flat in float in_lod_fade;

layout(location = 0) out vec4 out_normal;
layout(location = 1) out vec2 out_motion;

void write_prepass() {
    vec3 n = surface_normal(in_normal, in_world);
    out_normal = vec4(n, 1.0);
    vec2 cur = in_clip.xy / in_clip.w;
    vec2 prev = in_prev_clip.xy / in_prev_clip.w;
    out_motion = (cur - prev) * vec2(0.5, -0.5); // in UV units, +y down
}
