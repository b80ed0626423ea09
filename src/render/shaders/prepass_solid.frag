#version 450
// prepass_solid.frag: the prepass for surfaces that never cut (no alpha mask, outside any LOD
// crossfade). It never discards, so depth is tested before it runs and hidden fragments cost
// nothing. This one writes no material into the normal's alpha (prepass_solid_pack.frag does).
#define PREPASS_PACK 0
#include "common.glsl"
#include "prepass.glsl"

layout(early_fragment_tests) in;

void main() {
    write_prepass();
}
