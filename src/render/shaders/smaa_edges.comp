#version 450
// smaa_edges.comp: SMAA's first step, luma edge detection. r = an edge on the pixel's left side,
// g = on its top side: the luma step to that neighbour is above the threshold and at least half
// the largest step around it (local contrast adaptation: a weak step beside a strong one is left
// to the strong one, so soft shading next to a hard edge is not treated as an edge).
#include "post_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D edges;
layout(push_constant) uniform Push {
    uvec2 size;
    uint unused;
    float threshold;
} pc;

float l(ivec2 p) {
    return luma(fetch_clamped(src, p, pc.size).rgb);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    float c = l(p);
    // At the image's left and top border the clamped neighbour is the pixel itself: no edge.
    vec2 delta = vec2(abs(c - l(p + ivec2(-1, 0))), abs(c - l(p + ivec2(0, -1))));
    vec2 e = step(vec2(pc.threshold), delta);
    if (e.x + e.y == 0.0) {
        imageStore(edges, p, vec4(0.0));
        return;
    }
    float strongest = max(delta.x, delta.y);
    strongest = max(strongest, abs(c - l(p + ivec2(1, 0))));
    strongest = max(strongest, abs(c - l(p + ivec2(0, 1))));
    strongest = max(strongest, abs(l(p + ivec2(-1, 0)) - l(p + ivec2(-2, 0))));
    strongest = max(strongest, abs(l(p + ivec2(0, -1)) - l(p + ivec2(0, -2))));
    e *= step(vec2(strongest), 2.0 * delta);
    imageStore(edges, p, vec4(e, 0.0, 1.0));
}
