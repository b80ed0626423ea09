#version 450
// cas.comp: contrast-adaptive sharpening. Each pixel is pushed away from its four neighbours by a
// negative-lobe filter whose weight follows the local contrast: where the 3x3 neighbourhood
// already spans most of the range (an edge, a highlight) the weight falls, so sharpening adds no
// ringing or clipping, while soft detail gets the full strength; the result is also kept within
// the range of the pixel and its four neighbours (no rim past either side). Works in linear light.
// Optional denoise: the lobe shrinks where the centre stands out from the average of its four
// neighbours relative to the local luma range (isolated noise).
#include "post_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    uint denoise;
    float strength; // 0 .. 1
} pc;

vec3 px(ivec2 p) {
    return srgb_to_linear(fetch_clamped(src, p, pc.size).rgb);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec3 a = px(p + ivec2(-1, -1)), b = px(p + ivec2(0, -1)), c = px(p + ivec2(1, -1));
    vec3 d = px(p + ivec2(-1, 0)), e = px(p), f = px(p + ivec2(1, 0));
    vec3 g = px(p + ivec2(-1, 1)), h = px(p + ivec2(0, 1)), i = px(p + ivec2(1, 1));
    // Soft minimum and maximum: the cross plus the whole 3x3 (range 0..2).
    vec3 mn = min(min(min(d, e), min(f, b)), h);
    vec3 mx = max(max(max(d, e), max(f, b)), h);
    mn += min(mn, min(min(a, c), min(g, i)));
    mx += max(mx, max(max(a, c), max(g, i)));
    // Headroom to the nearer limit relative to the brightest value: the weight of the lobe.
    vec3 amp = sqrt(clamp(min(mn, 2.0 - mx) / max(mx, vec3(1e-5)), 0.0, 1.0));
    float peak = -1.0 / mix(8.0, 5.0, pc.strength);
    vec3 wt = amp * peak;
    if (pc.denoise == 1u) {
        float lb = luma(b), ld = luma(d), le = luma(e), lf = luma(f), lh = luma(h);
        float lrange = max(max(max(lb, ld), max(lf, lh)), le) - min(min(min(lb, ld), min(lf, lh)), le);
        float noise = clamp(abs(0.25 * (lb + ld + lf + lh) - le) / max(lrange, 1e-5), 0.0, 1.0);
        wt *= 1.0 - 0.5 * noise;
    }
    vec3 outc = (wt * (b + d + f + h) + e) / (1.0 + 4.0 * wt);
    // Never past the values around it: no dark or bright rims on hard edges.
    vec3 lo = min(min(min(b, d), min(f, h)), e), hi = max(max(max(b, d), max(f, h)), e);
    outc = clamp(outc, lo, hi);
    imageStore(dst, p, vec4(linear_to_srgb(outc), texelFetch(src, p, 0).a));
}
