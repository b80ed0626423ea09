#version 450
// prepass_solid.frag: the prepass for surfaces that never cut (no alpha mask, outside any LOD
// crossfade). It never discards, so depth is tested before it runs and hidden fragments cost
// nothing.
#include "common.glsl"
#include "prepass.glsl"

layout(early_fragment_tests) in;

void main() {
    write_prepass();
}
