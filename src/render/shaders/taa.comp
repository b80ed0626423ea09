#version 450
// taa.comp: temporal anti-aliasing resolve. The scene was rendered with a sub-pixel jitter that
// changes every frame; the history (last frame's result) is fetched where this pixel was last
// frame (motion vectors of the nearest surface in the 3x3 neighbourhood), clipped towards the
// range of colours around the pixel now (in YCoCg, which separates brightness from colour: the
// mean +- one standard deviation of the 3x3, within its min and max), and
// blended with the current sample. Colours are compressed by 1 / (1 + max channel) while mixed
// so that a few very bright samples cannot dominate the average (and flicker).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D current;
layout(set = 0, binding = 1) uniform sampler2D history;
layout(set = 0, binding = 2) uniform sampler2D motion;
layout(set = 0, binding = 3) uniform sampler2D depth;
layout(set = 0, binding = 4, rgba16f) uniform writeonly image2D result;
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D history_out;
layout(push_constant) uniform Push {
    uvec2 size;
    uint reset;           // 1: no usable history, the current frame starts it
    float current_weight; // share of the current frame in the result
} pc;

vec3 compress(vec3 c) {
    return c / (1.0 + max(c.r, max(c.g, c.b)));
}
vec3 expand(vec3 c) {
    return c / max(1.0 - max(c.r, max(c.g, c.b)), 1e-4);
}
vec3 to_ycocg(vec3 c) {
    return vec3(0.25 * c.r + 0.5 * c.g + 0.25 * c.b, 0.5 * c.r - 0.5 * c.b,
                -0.25 * c.r + 0.5 * c.g - 0.25 * c.b);
}
vec3 from_ycocg(vec3 c) {
    float t = c.x - c.z;
    return vec3(t + c.y, c.x + c.z, t - c.y);
}

// The history at uv through a Catmull-Rom spline over its 4x4 nearest texels: resampling it
// every frame at a moving sub-pixel offset does not blur it the way bilinear fetches would.
vec4 history_at(vec2 uv) {
    vec2 pos = uv * vec2(pc.size) - 0.5;
    vec2 base = floor(pos), t = pos - base;
    vec2 t2 = t * t, t3 = t2 * t;
    vec2 w0 = -0.5 * t3 + t2 - 0.5 * t;
    vec2 w1 = 1.5 * t3 - 2.5 * t2 + 1.0;
    vec2 w2 = -1.5 * t3 + 2.0 * t2 + 0.5 * t;
    vec2 w3 = 0.5 * t3 - 0.5 * t2;
    vec2 wx[4] = vec2[](vec2(w0.x), vec2(w1.x), vec2(w2.x), vec2(w3.x));
    float wy[4] = float[](w0.y, w1.y, w2.y, w3.y);
    ivec2 hi = ivec2(pc.size) - 1;
    vec4 sum = vec4(0.0);
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 4; i++) {
            ivec2 q = clamp(ivec2(base) + ivec2(i - 1, j - 1), ivec2(0), hi);
            sum += texelFetch(history, q, 0) * (wx[i].x * wy[j]);
        }
    }
    return max(sum, vec4(0.0));
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    ivec2 hi = ivec2(pc.size) - 1;
    vec4 c4 = texelFetch(current, p, 0);
    vec3 c = max(c4.rgb, vec3(0.0));
    // Alpha (the passthrough mask of mixed-reality cameras) is resolved alongside, clamped to
    // the neighbourhood's range.
    float amin = c4.a, amax = c4.a;
    vec3 cy = to_ycocg(compress(c));
    vec3 mn = cy, mx = cy, m1 = vec3(0.0), m2 = vec3(0.0);
    float nearest = 2.0;
    ivec2 at = p;
    for (int y = -1; y <= 1; y++) {
        for (int x = -1; x <= 1; x++) {
            ivec2 q = clamp(p + ivec2(x, y), ivec2(0), hi);
            vec4 s4 = texelFetch(current, q, 0);
            vec3 s = to_ycocg(compress(max(s4.rgb, vec3(0.0))));
            amin = min(amin, s4.a);
            amax = max(amax, s4.a);
            mn = min(mn, s);
            mx = max(mx, s);
            m1 += s;
            m2 += s * s;
            float d = texelFetch(depth, q, 0).r;
            if (d < nearest) {
                nearest = d;
                at = q;
            }
        }
    }
    vec3 res = c;
    float alpha = c4.a;
    vec2 uv = (vec2(p) + 0.5) / vec2(pc.size);
    vec2 prev = uv - texelFetch(motion, at, 0).xy;
    bool inside = all(greaterThanEqual(prev, vec2(0.0))) && all(lessThanEqual(prev, vec2(1.0)));
    if (pc.reset == 0u && inside) {
        vec4 h4 = history_at(prev);
        vec3 h = to_ycocg(compress(h4.rgb));
        // Clip the history towards the centre of the neighbourhood's colour box: colours the
        // pixel cannot have now (disocclusion, lighting change, where a moving object was) are
        // rejected. The box is the mean +- one standard deviation of the 3x3 samples, inside
        // their min/max: tighter than min/max where an edge puts two colours in the 3x3.
        vec3 mean = m1 / 9.0, sigma = sqrt(max(m2 / 9.0 - mean * mean, vec3(0.0)));
        vec3 bmn = max(mn, mean - sigma), bmx = min(mx, mean + sigma);
        vec3 centre = 0.5 * (bmx + bmn), ext = 0.5 * (bmx - bmn) + 1e-5;
        vec3 v = h - centre;
        vec3 a = abs(v / ext);
        float m = max(a.x, max(a.y, a.z));
        if (m > 1.0)
            h = centre + v / m;
        res = expand(from_ycocg(mix(h, cy, pc.current_weight)));
        alpha = mix(clamp(h4.a, amin, amax), c4.a, pc.current_weight);
    }
    // Alpha: the mixed passthrough mask (docs/channels.md), resolved like the colour.
    imageStore(result, p, vec4(res, alpha));
    imageStore(history_out, p, vec4(res, alpha));
}
