#version 450
// fxaa.comp: fast approximate anti-aliasing on the tonemapped colour. A pixel whose 4-neighbour
// luma range is below the thresholds is kept. Otherwise the edge through it is classified as
// horizontal or vertical (second differences of luma across each axis), the side of the edge
// with the larger gradient is picked, and the edge is followed both ways until the luma along it
// departs from the edge's average; where the pixel sits on that span decides how far towards the
// other side it is resampled (pixels near the span's end move most, as on a staircase step).
// A sub-pixel term from the 3x3 average handles single-pixel features. One bilinear fetch at the
// moved position gives the result.
#include "post_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src; // linear clamp
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    float threshold;     // relative contrast that makes an edge
    float threshold_min; // contrast below which nothing is done
} pc;

const int SEARCH_STEPS = 12;
const float STEP_SIZE[SEARCH_STEPS] = float[](1.0, 1.0, 1.0, 1.0, 1.0, 1.5, 2.0, 2.0, 2.0, 2.0, 4.0, 8.0);

float luma_at(ivec2 p) {
    return luma(fetch_clamped(src, p, pc.size).rgb);
}
float luma_uv(vec2 uv) {
    return luma(textureLod(src, uv, 0.0).rgb);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 centre = texelFetch(src, p, 0);
    float m = luma(centre.rgb);
    float n = luma_at(p + ivec2(0, -1)), s = luma_at(p + ivec2(0, 1));
    float w = luma_at(p + ivec2(-1, 0)), e = luma_at(p + ivec2(1, 0));
    float hi = max(m, max(max(n, s), max(w, e)));
    float lo = min(m, min(min(n, s), min(w, e)));
    float range = hi - lo;
    if (range < max(pc.threshold_min, hi * pc.threshold)) {
        imageStore(dst, p, centre);
        return;
    }
    float nw = luma_at(p + ivec2(-1, -1)), ne = luma_at(p + ivec2(1, -1));
    float sw = luma_at(p + ivec2(-1, 1)), se = luma_at(p + ivec2(1, 1));

    // Sub-pixel aliasing: how far the pixel stands out from its neighbourhood's average.
    float avg = (2.0 * (n + s + w + e) + nw + ne + sw + se) / 12.0;
    float sub = smoothstep(0.0, 1.0, clamp(abs(avg - m) / range, 0.0, 1.0));
    sub = sub * sub * 0.75;

    // Horizontal edge: luma changes along y.
    float across_y = 2.0 * abs(n + s - 2.0 * m) + abs(nw + sw - 2.0 * w) + abs(ne + se - 2.0 * e);
    float across_x = 2.0 * abs(w + e - 2.0 * m) + abs(nw + ne - 2.0 * n) + abs(sw + se - 2.0 * s);
    bool horizontal = across_y >= across_x;
    vec2 texel = 1.0 / vec2(pc.size);
    float l_neg = horizontal ? n : w, l_pos = horizontal ? s : e;
    float g_neg = abs(l_neg - m), g_pos = abs(l_pos - m);
    bool neg_side = g_neg >= g_pos;
    float step_len = horizontal ? texel.y : texel.x;
    if (neg_side)
        step_len = -step_len;
    float edge_luma = 0.5 * (m + (neg_side ? l_neg : l_pos));
    float gradient = 0.25 * max(g_neg, g_pos);

    // Walk along the edge (half a pixel towards the picked side) both ways.
    vec2 uv = (vec2(p) + 0.5) * texel;
    vec2 on_edge = uv;
    vec2 along = horizontal ? vec2(texel.x, 0.0) : vec2(0.0, texel.y);
    if (horizontal)
        on_edge.y += 0.5 * step_len;
    else
        on_edge.x += 0.5 * step_len;
    vec2 uv1 = on_edge - along, uv2 = on_edge + along;
    float d1 = luma_uv(uv1) - edge_luma, d2 = luma_uv(uv2) - edge_luma;
    bool done1 = abs(d1) >= gradient, done2 = abs(d2) >= gradient;
    for (int i = 1; i < SEARCH_STEPS && !(done1 && done2); i++) {
        if (!done1) {
            uv1 -= along * STEP_SIZE[i];
            d1 = luma_uv(uv1) - edge_luma;
            done1 = abs(d1) >= gradient;
        }
        if (!done2) {
            uv2 += along * STEP_SIZE[i];
            d2 = luma_uv(uv2) - edge_luma;
            done2 = abs(d2) >= gradient;
        }
    }
    float dist1 = horizontal ? uv.x - uv1.x : uv.y - uv1.y;
    float dist2 = horizontal ? uv2.x - uv.x : uv2.y - uv.y;
    bool nearer1 = dist1 < dist2;
    float span = dist1 + dist2;
    float offset = 0.5 - min(dist1, dist2) / span;
    // Only move when the luma at the nearer end goes the way the centre does (a real step end).
    bool centre_darker = m < edge_luma;
    bool good = ((nearer1 ? d1 : d2) < 0.0) != centre_darker;
    offset = max(good ? offset : 0.0, sub);
    vec2 at = uv;
    if (horizontal)
        at.y += offset * step_len;
    else
        at.x += offset * step_len;
    imageStore(dst, p, vec4(textureLod(src, at, 0.0).rgb, centre.a));
}
