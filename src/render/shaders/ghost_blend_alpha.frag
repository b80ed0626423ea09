#version 450
// ghost_blend_alpha.frag: mixed passthrough, blended (transparent) materials of ghost instances.
// The transparent pass draws their colour without touching alpha; this redraws them with
// alpha-only writes blended "over" (ONE, ONE_MINUS_SRC_ALPHA), so each covers the camera feed by
// the ghost's opacity times its material alpha. Alpha "over" alone is order-independent
// ((1 - A) is a product of the (1 - a) of every layer), so these draws may follow the whole
// back-to-front transparent pass and give the alpha that drawing them in its order would.
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
layout(location = 8) in vec4 in_color; // the vertex colour (white without)
layout(location = 9) in vec2 in_uv1;

layout(push_constant) uniform Push {
    vec4 opacity; // x
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    if (lod_dither_discard(in_lod_fade, gl_FragCoord.xy))
        demote; // the other level of a LOD crossfade owns this pixel
    // The alpha pbr.frag blends the colour with (a blended material's base alpha).
    float a = material.base_color.a * vertex_color(in_color).a * texture(base_color_tex, slot_uv(SLOT_BASE, in_uv, in_uv1)).a;
    out_color = vec4(0.0, 0.0, 0.0, pc.opacity.x * a);
}
