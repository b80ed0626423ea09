#version 450
// dof_blur.comp: depth of field, Gaussian mode: one axis of a separable blur at half resolution.
// Each pixel's radius is half its circle of confusion (half-resolution pixels); a sample counts
// only where its own circle reaches this pixel, so sharp surfaces do not bleed into blurred ones.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    vec2 dir; // (1, 0) or (0, 1)
} pc;

const int TAPS = 8; // each side

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = texelFetch(src, p, 0);
    float radius = abs(c.a) * 0.25; // diameter in full pixels -> radius in half pixels
    if (radius < 0.5) {
        imageStore(dst, p, c);
        return;
    }
    float step_px = max(radius / float(TAPS), 1.0);
    float sigma = max(radius * 0.5, 0.5);
    vec3 sum = c.rgb;
    float wsum = 1.0;
    for (int i = 1; i <= TAPS; i++) {
        float o = float(i) * step_px;
        if (o > radius)
            break;
        float g = exp(-o * o / (2.0 * sigma * sigma));
        for (int side = -1; side <= 1; side += 2) {
            vec2 uv = (vec2(p) + 0.5 + pc.dir * o * float(side)) / vec2(pc.size);
            vec4 s = textureLod(src, uv, 0.0);
            float w = g * clamp(abs(s.a) * 0.25 - o + 1.0, 0.0, 1.0);
            sum += s.rgb * w;
            wsum += w;
        }
    }
    imageStore(dst, p, vec4(sum / wsum, c.a));
}
