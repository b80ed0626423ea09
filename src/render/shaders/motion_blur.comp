#version 450
// motion_blur.comp: each pixel averages the colour along its motion vector (camera and object
// motion from the prepass, UV units) scaled by the shutter, centred on the pixel, with a per-pixel
// offset of the samples (interleaved gradient noise) against banding. Samples on surfaces in
// front of this pixel's are left out, so still foreground does not smear over moving background.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D color;
layout(set = 0, binding = 1) uniform sampler2D motion;
layout(set = 0, binding = 2) uniform sampler2D depth;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    float shutter;  // shutter_angle / 360
    uint samples;
    float max_px;   // longest streak, pixels
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = texelFetch(color, p, 0);
    vec2 v = texelFetch(motion, p, 0).xy * vec2(pc.size) * pc.shutter; // pixels
    float len = length(v);
    if (len < 0.5 || pc.samples < 2u) {
        imageStore(dst, p, c);
        return;
    }
    if (len > pc.max_px)
        v *= pc.max_px / len;
    float d0 = texelFetch(depth, p, 0).r;
    float noise = fract(52.9829189 * fract(dot(vec2(p), vec2(0.06711056, 0.00583715))));
    vec3 sum = vec3(0.0);
    float wsum = 0.0;
    for (uint i = 0u; i < pc.samples; i++) {
        float t = (float(i) + noise) / float(pc.samples) - 0.5;
        vec2 q = vec2(p) + 0.5 + v * t;
        ivec2 qi = clamp(ivec2(q), ivec2(0), ivec2(pc.size) - 1);
        float w = texelFetch(depth, qi, 0).r + 1e-4 >= d0 ? 1.0 : 0.0;
        sum += textureLod(color, q / vec2(pc.size), 0.0).rgb * w;
        wsum += w;
    }
    vec3 outc = wsum > 0.0 ? sum / wsum : c.rgb;
    imageStore(dst, p, vec4(outc, c.a));
}
