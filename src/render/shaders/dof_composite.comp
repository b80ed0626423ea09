#version 450
// dof_composite.comp: depth of field, last step: each full-resolution pixel mixes from its sharp
// colour to the blurred half-resolution image as its own circle of confusion grows past a pixel.
// The blur is upsampled bilinearly from the four nearest half-resolution texels, each weighted
// down where its circle is much smaller than this pixel's, so a sharp surface next to a blurred
// one does not leave a rim in the blur.
#include "post_depth.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D color;
layout(set = 0, binding = 1) uniform sampler2D depth;
layout(set = 0, binding = 2) uniform sampler2D blurred;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    uvec2 pad;
    float near, far, ortho, scale;
    float focus, max_coc;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 sharp = texelFetch(color, p, 0);
    float coc = abs(post_coc(texelFetch(depth, p, 0).r, pc.near, pc.far, pc.ortho, pc.scale,
                             pc.focus, pc.max_coc));
    float t = clamp((coc - 1.0) * 0.5, 0.0, 1.0);
    vec3 b = sharp.rgb;
    if (t > 0.0) {
        vec2 hp = (vec2(p) + 0.5) * 0.5 - 0.5;
        ivec2 base = ivec2(floor(hp));
        vec2 f = hp - vec2(base);
        ivec2 hi = textureSize(blurred, 0) - 1;
        vec3 sum = vec3(0.0);
        float wsum = 0.0;
        for (int i = 0; i < 4; i++) {
            ivec2 o = ivec2(i & 1, i >> 1);
            vec4 s = texelFetch(blurred, clamp(base + o, ivec2(0), hi), 0);
            float w = (o.x == 1 ? f.x : 1.0 - f.x) * (o.y == 1 ? f.y : 1.0 - f.y);
            w *= clamp(abs(s.a) / max(coc, 1e-3), 0.02, 1.0);
            sum += s.rgb * w;
            wsum += w;
        }
        b = sum / max(wsum, 1e-6);
    }
    imageStore(dst, p, vec4(mix(sharp.rgb, b, t), sharp.a));
}
