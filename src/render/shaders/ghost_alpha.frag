#version 450
// ghost_alpha.frag: mixed passthrough. Redraws a ghosted instance over its own depth (tested EQUAL)
// with alpha-only colour writes, so its visible pixels keep their lit colour and get alpha =
// the ghost's opacity: the camera feed shows through them in the composited output.
#extension GL_EXT_demote_to_helper_invocation : require
#include "common.glsl"

layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;
layout(location = 4) in vec4 in_clip;
layout(location = 5) in vec4 in_prev_clip;
layout(location = 6) in float in_view_depth;
layout(location = 7) flat in float in_lod_fade;

layout(push_constant) uniform Push {
    vec4 opacity; // x
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    if (lod_dither_discard(in_lod_fade, gl_FragCoord.xy))
        demote; // the other level of a LOD crossfade owns this pixel
    out_color = vec4(0.0, 0.0, 0.0, pc.opacity.x);
}
