#version 450
// shadow_mask.frag: alpha-masked shadow casters cut their shadow where the material is cut out.
#include "common.glsl"

layout(location = 0) in vec2 in_uv;

void main() {
    float a = material.base_color.a * texture(base_color_tex, slot_uv(SLOT_BASE, in_uv)).a;
    if (a < material.params.w)
        discard;
}
