#version 450
// prepass_solid_pack.frag: prepass_solid.frag packing roughness and metalness into the normal's
// alpha, for frames where screen-space reflections or GI read them.
#define PREPASS_PACK 1
#include "common.glsl"
#include "prepass.glsl"

layout(early_fragment_tests) in;

void main() {
    write_prepass();
}
