#version 450
// prepass.frag: the prepass for surfaces that cut: alpha-masked materials where the material is
// cut out, and LOD levels inside a crossfade by their dither. It may discard, so the GPU tests
// depth after it runs; surfaces that never cut use prepass_solid.frag.
#extension GL_EXT_demote_to_helper_invocation : require
#define PREPASS_PACK 2 /* these surfaces read material textures anyway */
#include "common.glsl"
#include "prepass.glsl"

void main() {
    if (lod_dither_discard(in_lod_fade, gl_FragCoord.xy))
        demote; // a helper, not killed: its quad's texture derivatives stay defined
    if (material.params2.y == 1.0) {
        float a = material.base_color.a * vertex_color(in_color).a * texture(base_color_tex, slot_uv(SLOT_BASE, in_uv, in_uv1)).a;
        if (a < material.params.w)
            discard;
    }
    write_prepass();
}
