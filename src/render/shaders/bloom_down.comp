#version 450
// bloom_down.comp: one step of the bloom pyramid: a 4x4 box (four bilinear taps) from the level
// above. The first step also keeps only the light above the threshold.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;      // of dst
    float threshold;
    uint first;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec2 texel = 1.0 / vec2(pc.size);
    vec2 uv = (vec2(p) + 0.5) * texel;
    vec3 c = 0.25 * (texture(src, uv + vec2(-0.25, -0.25) * texel).rgb +
                     texture(src, uv + vec2(0.25, -0.25) * texel).rgb +
                     texture(src, uv + vec2(-0.25, 0.25) * texel).rgb +
                     texture(src, uv + vec2(0.25, 0.25) * texel).rgb);
    if (pc.first == 1u) {
        float b = max(c.r, max(c.g, c.b));
        c *= max(b - pc.threshold, 0.0) / max(b, 1e-4);
    }
    imageStore(dst, p, vec4(c, 1.0));
}
