#version 450
// motion_blur.comp: motion blur as a gather along the strongest motion near each pixel. Motion
// vectors (camera and object motion from the prepass, UV units) scaled by the shutter give each
// pixel a streak centred on it, of radius half its motion. The pixel looks for the longest motion
// among 16 neighbours (up to the longest streak's radius away) and its own, samples the colour
// along it, and weighs each sample as a reconstruction filter of the scattered streaks would
// (McGuire et al. 2012): a sample in front of the pixel counts where its own streak reaches the
// pixel, one behind where the pixel's streak reaches it, both where both do. So a moving object
// streaks over the still background around it, still foreground stays sharp over a moving
// background, and a still image is left exactly as it was.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D color;
layout(set = 0, binding = 1) uniform sampler2D motion;
layout(set = 0, binding = 2) uniform sampler2D depth;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    float shutter; // shutter_angle / 360
    uint samples;
    float max_px;  // longest streak, pixels
} pc;

// The motion of pixel q in pixels over the open shutter, at most max_px long.
vec2 velocity(ivec2 q) {
    q = clamp(q, ivec2(0), ivec2(pc.size) - 1);
    vec2 v = texelFetch(motion, q, 0).xy * vec2(pc.size) * pc.shutter;
    float l = length(v);
    return l > pc.max_px ? v * (pc.max_px / l) : v;
}

float cone(float d, float radius) {
    return clamp(1.0 - d / max(radius, 1e-3), 0.0, 1.0);
}

float cylinder(float d, float radius) {
    return 1.0 - smoothstep(0.95 * radius, 1.05 * radius + 1e-3, d);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = texelFetch(color, p, 0);
    vec2 vc = velocity(p);
    // The strongest motion around: 8 directions at a quarter and a half of the longest streak.
    vec2 vn = vc;
    for (int i = 0; i < 16; i++) {
        float a = float(i & 7) * 0.78539816;
        float r = pc.max_px * (i < 8 ? 0.25 : 0.5);
        vec2 v = velocity(p + ivec2(round(r * vec2(cos(a), sin(a)))));
        vn = dot(v, v) > dot(vn, vn) ? v : vn;
    }
    if (length(vn) < 0.5 || pc.samples < 2u) {
        imageStore(dst, p, c);
        return;
    }
    float d0 = texelFetch(depth, p, 0).r;
    float rc = length(vc) * 0.5;
    float noise = fract(52.9829189 * fract(dot(vec2(p), vec2(0.06711056, 0.00583715))));
    float w0 = 1.0 / max(rc * 2.0, 1.0);
    vec3 sum = c.rgb * w0;
    float wsum = w0;
    for (uint i = 0u; i < pc.samples; i++) {
        float t = (float(i) + noise) / float(pc.samples) - 0.5;
        vec2 o = vn * t;
        ivec2 q = clamp(ivec2(floor(vec2(p) + 0.5 + o)), ivec2(0), ivec2(pc.size) - 1);
        float d = length(o);
        float rq = length(velocity(q)) * 0.5;
        float front = texelFetch(depth, q, 0).r < d0 - 1e-5 ? 1.0 : 0.0;
        float w = front * cone(d, rq) + (1.0 - front) * cone(d, rc) +
                  cylinder(d, rq) * cylinder(d, rc) * 2.0;
        sum += texelFetch(color, q, 0).rgb * w;
        wsum += w;
    }
    imageStore(dst, p, vec4(sum / wsum, c.a));
}
