#version 450
// ssr_hiz.comp: one level of a depth pyramid. Level 0 (half the 3D size) takes the nearest of
// the 2 x 2 depth texels it covers; level n the nearest of the 2 x 2 (3 at an odd edge) texels of
// level n - 1. Screen-space reflections read the nearest (a ray in front of a texel's value is in
// front of every surface under it); with `farthest`, GPU culling's occlusion test (gpu_occlusion.c)
// reads the farthest (a box behind a texel's value is behind every surface under it).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D depth_tex;
layout(set = 0, binding = 1, r32f) uniform readonly image2D src; // level n - 1 (n > 0)
layout(set = 0, binding = 2, r32f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 src_size, dst_size;
    uint level;
    uint farthest; // 1: the farthest depth instead of the nearest
} pc;

float src_at(ivec2 q) {
    q = min(q, ivec2(pc.src_size) - 1);
    return pc.level == 0u ? texelFetch(depth_tex, q, 0).r : imageLoad(src, q).r;
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.dst_size.x) || p.y >= int(pc.dst_size.y))
        return;
    ivec2 s = p * 2;
    // An odd source edge folds its last row or column into the last destination texel.
    int nx = (p.x == int(pc.dst_size.x) - 1 && (pc.src_size.x & 1u) == 1u) ? 3 : 2;
    int ny = (p.y == int(pc.dst_size.y) - 1 && (pc.src_size.y & 1u) == 1u) ? 3 : 2;
    bool far_ = pc.farthest != 0u;
    float z = far_ ? 0.0 : 1.0;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            float d = src_at(s + ivec2(x, y));
            z = far_ ? max(z, d) : min(z, d);
        }
    imageStore(dst, p, vec4(z));
}
