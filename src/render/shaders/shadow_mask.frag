#version 450
// shadow_mask.frag: casters that cut their shadow: alpha-masked materials where the material is
// cut out, and LOD levels inside a crossfade by the same dither as their other passes.
#extension GL_EXT_demote_to_helper_invocation : require
#include "common.glsl"

layout(location = 0) in vec2 in_uv;
layout(location = 1) flat in float in_lod_fade;
layout(location = 2) in float in_alpha;
layout(location = 3) in vec2 in_uv1;

void main() {
    if (lod_dither_discard(in_lod_fade, gl_FragCoord.xy))
        demote; // a helper, not killed: its quad's texture derivatives stay defined
    if (material.params2.y == 1.0) {
        float a = material.base_color.a * vertex_color(vec4(in_alpha)).a * texture(base_color_tex, slot_uv(SLOT_BASE, in_uv, in_uv1)).a;
        if (a < material.params.w)
            discard;
    }
}
