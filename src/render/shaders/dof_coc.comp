#version 450
// dof_coc.comp: depth of field, step 1: each 2x2 block at half resolution, with the block's largest
// signed circle of confusion (full-resolution pixels) in alpha and its colour weighted by each
// texel's circle, so a block where a sharp surface meets a blurred one takes the blurred one's
// colour (the sharp one does not leak into the blur around it).
#include "post_depth.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D color;
layout(set = 0, binding = 1) uniform sampler2D depth;
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size; // of dst
    uvec2 pad;
    float near, far, ortho, scale;
    float focus, max_coc;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    ivec2 hi = textureSize(depth, 0) - 1;
    vec3 sum = vec3(0.0);
    float wsum = 0.0, coc = 0.0;
    for (int i = 0; i < 4; i++) {
        ivec2 s = min(p * 2 + ivec2(i & 1, i >> 1), hi);
        float c = post_coc(texelFetch(depth, s, 0).r, pc.near, pc.far, pc.ortho, pc.scale,
                           pc.focus, pc.max_coc);
        float w = abs(c) + 0.01;
        sum += texelFetch(color, s, 0).rgb * w;
        wsum += w;
        coc = abs(c) > abs(coc) ? c : coc;
    }
    imageStore(dst, p, vec4(sum / wsum, coc));
}
