#version 450
// oit_pbr.frag: the transparent pass with order-independent transparency (oit.c): pbr_body.glsl's
// lit colour is not blended but appended to the pixel's layers (premultiplied colour and alpha
// as half floats, depth as a float; three words a layer), at most layer_count a pixel; the
// oit_resolve pass sorts and blends them. No colour attachment.
#extension GL_EXT_demote_to_helper_invocation : require

layout(set = 2, binding = 0) buffer OitCounts { uint oit_counts[]; };
layout(set = 2, binding = 1) writeonly buffer OitLayers { uint oit_layers[]; };
layout(push_constant) uniform OitPush {
    uint width;        // pixels per row of the view's 3D images
    uint layer_count;  // layers a pixel keeps
    float threshold;   // alpha_threshold: lower alphas are not stored
    uint pad;
} oit;

// A pixel whose layers are full drops what comes: skip its shading (a racy read: at worst it
// shades a fragment that is then dropped). Such pixels are approximate already (fragments
// dropped); a quad neighbour of one may see undefined texture derivatives.
void pbr_begin() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    if (oit_counts[p.y * oit.width + p.x] >= oit.layer_count) {
        discard;
    }
}

void pbr_emit(vec4 c) {
    if (!(c.a > 0.0) || c.a < oit.threshold) {
        return; // adds nothing (or is below the threshold)
    }
    uvec2 p = uvec2(gl_FragCoord.xy);
    uint pix = p.y * oit.width + p.x;
    uint slot = atomicAdd(oit_counts[pix], 1u);
    if (slot >= oit.layer_count) {
        return; // the pixel's layers are full: dropped
    }
    uint at = (pix * oit.layer_count + slot) * 3u;
    vec3 pm = c.rgb * c.a;
    oit_layers[at] = packHalf2x16(pm.rg);
    oit_layers[at + 1u] = packHalf2x16(vec2(pm.b, c.a));
    oit_layers[at + 2u] = floatBitsToUint(gl_FragCoord.z);
}

#include "pbr_body.glsl"
