#version 450
// pbr.frag: the lit surface shader of the opaque and transparent passes (pbr_body.glsl: Cook-
// Torrance shading for the sun with cascaded shadows and a list of point and spot lights); output
// is linear HDR.
#extension GL_EXT_demote_to_helper_invocation : require

layout(location = 0) out vec4 out_color;

void pbr_begin() {
}

void pbr_emit(vec4 c) {
    out_color = c;
}

#include "pbr_body.glsl"
