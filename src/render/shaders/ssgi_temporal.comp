#version 450
// ssgi_temporal.comp: screen-space GI, denoise and accumulation (half resolution). A 5x5 filter
// of the trace weighted by distance from the camera (neighbours more than 10 % nearer or farther
// count less, down to nothing), then, unless the history restarts, last frame's result read
// where the motion vector of the pixel's surface says it was (bilinear over the four history
// texels around it). A history texel counts only when the distance it stored matches this
// surface's distance from last frame's camera (prev_cam, in this frame's view space) within 5 %:
// anything else was another surface (a disocclusion) and is dropped; with no texel left the
// pixel starts over from this frame. Output: rgb accumulated light, a = the distance.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D raw_tex;
layout(set = 0, binding = 2) uniform sampler2D history_tex;
layout(set = 0, binding = 3) uniform sampler2D motion_tex;
layout(set = 0, binding = 4) uniform sampler2D depth_tex;
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D out_img;
layout(push_constant) uniform Push {
    uvec2 half_size;
    uvec2 full;
    uint reset;
    float current_weight;
    vec2 pad;
    vec4 prev_cam; // xyz: last frame's camera in this view space; w: 1 when usable
} pc;

vec3 view_pos(vec2 uv, float depth, mat4 inv_proj) {
    vec4 ndc = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, depth, 1.0);
    vec4 v = inv_proj * ndc;
    return v.xyz / v.w;
}

float depth_weight(float a, float b) {
    return max(0.0, 1.0 - abs(a - b) / max(b, 1e-3) * 10.0);
}

void main() {
    ivec2 q = ivec2(gl_GlobalInvocationID.xy);
    ivec2 hmax = ivec2(pc.half_size) - 1;
    if (q.x > hmax.x || q.y > hmax.y)
        return;
    vec4 c = texelFetch(raw_tex, q, 0);
    if (c.a < 0.0) {
        imageStore(out_img, q, vec4(0.0, 0.0, 0.0, -1.0));
        return;
    }
    vec3 sum = vec3(0.0);
    float wsum = 0.0;
    for (int dy = -2; dy <= 2; dy++) {
        for (int dx = -2; dx <= 2; dx++) {
            vec4 n = texelFetch(raw_tex, clamp(q + ivec2(dx, dy), ivec2(0), hmax), 0);
            float w = n.a < 0.0 ? 0.0 : depth_weight(n.a, c.a);
            sum += n.rgb * w;
            wsum += w;
        }
    }
    vec3 cur = sum / max(wsum, 1e-4);
    if (pc.reset == 0u && pc.prev_cam.w > 0.0) {
        ivec2 p = min(q * 2, ivec2(pc.full) - 1);
        vec2 uv = (vec2(p) + 0.5) / vec2(pc.full);
        vec3 P = view_pos(uv, texelFetch(depth_tex, p, 0).r, inverse(frame.proj));
        float expect = length(P - pc.prev_cam.xyz);
        vec2 prev_uv = uv - texelFetch(motion_tex, p, 0).xy;
        // history texel q stands for full-resolution pixel 2q: its centre is at (2q + 0.5)
        vec2 hp = prev_uv * vec2(pc.full) * 0.5 - 0.25;
        ivec2 b = ivec2(floor(hp));
        vec2 fr = hp - vec2(b);
        vec3 acc = vec3(0.0);
        float aw = 0.0;
        for (int k = 0; k < 4; k++) {
            ivec2 o = ivec2(k & 1, k >> 1);
            ivec2 t = b + o;
            if (t.x < 0 || t.y < 0 || t.x > hmax.x || t.y > hmax.y)
                continue;
            vec4 h = texelFetch(history_tex, t, 0);
            if (h.a < 0.0 || abs(h.a - expect) > 0.05 * expect + 0.01)
                continue;
            float bw = (o.x == 1 ? fr.x : 1.0 - fr.x) * (o.y == 1 ? fr.y : 1.0 - fr.y);
            acc += h.rgb * bw;
            aw += bw;
        }
        if (aw > 0.05)
            cur = mix(acc / aw, cur, pc.current_weight);
    }
    imageStore(out_img, q, vec4(cur, c.a));
}
