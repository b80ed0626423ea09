#version 450
// dof_bokeh.comp: depth of field, bokeh mode: a disc of 48 samples (a golden-angle spiral) of
// radius half the circle of confusion at half resolution, evenly weighted, so bright points open
// into discs. A sample counts only where its own circle reaches this pixel.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
} pc;

const int SAMPLES = 48;
const float GOLDEN_ANGLE = 2.39996323;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = texelFetch(src, p, 0);
    float radius = abs(c.a) * 0.25;
    if (radius < 0.5) {
        imageStore(dst, p, c);
        return;
    }
    vec3 sum = c.rgb;
    float wsum = 1.0;
    for (int i = 0; i < SAMPLES; i++) {
        float r = radius * sqrt((float(i) + 0.5) / float(SAMPLES));
        float a = float(i) * GOLDEN_ANGLE;
        // the nearest texel: a bilinear fetch would mix a sharp texel's colour into the blur
        ivec2 q = clamp(ivec2(floor(vec2(p) + 0.5 + r * vec2(cos(a), sin(a)))), ivec2(0),
                        ivec2(pc.size) - 1);
        vec4 s = texelFetch(src, q, 0);
        float w = clamp(abs(s.a) * 0.25 - max(r, 1.0) + 1.0, 0.0, 1.0);
        sum += s.rgb * w;
        wsum += w;
    }
    imageStore(dst, p, vec4(sum / wsum, c.a));
}
