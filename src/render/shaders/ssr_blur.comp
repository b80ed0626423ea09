#version 450
// ssr_blur.comp: one level of the reflection pyramid: each texel the mean of the 2 x 2 texels of
// the level above (the trace result is premultiplied by its confidence, so misses weigh nothing
// and the mean stays premultiplied). ssr_resolve reads rougher surfaces from blurrier levels.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 src_size, dst_size;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.dst_size.x) || p.y >= int(pc.dst_size.y))
        return;
    ivec2 hi = ivec2(pc.src_size) - 1;
    vec4 c = imageLoad(src, min(p * 2, hi)) + imageLoad(src, min(p * 2 + ivec2(1, 0), hi)) +
             imageLoad(src, min(p * 2 + ivec2(0, 1), hi)) + imageLoad(src, min(p * 2 + 1, hi));
    imageStore(dst, p, c * 0.25);
}
