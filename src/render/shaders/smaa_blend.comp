#version 450
// smaa_blend.comp: SMAA's last step, neighbourhood blending. A pixel takes the shares the
// weights give it from its top, bottom, left and right neighbours (the bottom and right shares
// are stored with those neighbours' edges), blending along one axis only, the stronger one, so
// a corner is not smeared both ways. Blending is done in linear light.
#include "post_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1) uniform sampler2D weights;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = texelFetch(src, p, 0);
    vec4 own = texelFetch(weights, p, 0);
    float from_top = own.x, from_left = own.z;
    float from_bottom = fetch_clamped(weights, p + ivec2(0, 1), pc.size).y;
    float from_right = fetch_clamped(weights, p + ivec2(1, 0), pc.size).w;
    if (p.y + 1 >= int(pc.size.y))
        from_bottom = 0.0;
    if (p.x + 1 >= int(pc.size.x))
        from_right = 0.0;
    float vertical = max(from_top, from_bottom), horizontal = max(from_left, from_right);
    if (max(vertical, horizontal) <= 0.0) {
        imageStore(dst, p, c);
        return;
    }
    vec3 lc = srgb_to_linear(c.rgb);
    vec3 res;
    if (vertical >= horizontal) {
        vec3 t = srgb_to_linear(fetch_clamped(src, p + ivec2(0, -1), pc.size).rgb);
        vec3 b = srgb_to_linear(fetch_clamped(src, p + ivec2(0, 1), pc.size).rgb);
        res = lc * (1.0 - from_top - from_bottom) + t * from_top + b * from_bottom;
    } else {
        vec3 l = srgb_to_linear(fetch_clamped(src, p + ivec2(-1, 0), pc.size).rgb);
        vec3 r = srgb_to_linear(fetch_clamped(src, p + ivec2(1, 0), pc.size).rgb);
        res = lc * (1.0 - from_left - from_right) + l * from_left + r * from_right;
    }
    imageStore(dst, p, vec4(linear_to_srgb(res), c.a));
}
