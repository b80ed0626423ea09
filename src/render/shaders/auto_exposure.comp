#version 450
// auto_exposure.comp: one workgroup measures the scene's average log luminance on a 32 x 32 grid
// of the HDR image and moves the stored exposure (EV) a fraction of the way towards the value
// that maps that average to middle grey (0.18). The buffer persists across frames.
layout(local_size_x = 32, local_size_y = 32) in;
layout(set = 0, binding = 0) uniform sampler2D hdr;
layout(set = 0, binding = 1) buffer Exposure {
    float ev;          // current auto exposure, EV
    float initialized; // 0 until the first measurement: then the exposure jumps to the target
    float pad0, pad1;
} state;
layout(push_constant) uniform Push {
    float rate;   // fraction of the remaining difference applied this frame (0..1]
    float min_ev, max_ev;
    float pad;
} pc;

shared float sums[1024];

void main() {
    uint i = gl_LocalInvocationIndex;
    vec2 uv = (vec2(gl_LocalInvocationID.xy) + 0.5) / 32.0;
    vec3 c = textureLod(hdr, uv, 0.0).rgb;
    float lum = dot(c, vec3(0.2126, 0.7152, 0.0722));
    sums[i] = log2(max(lum, 1e-4));
    barrier();
    for (uint stride = 512u; stride > 0u; stride >>= 1) {
        if (i < stride)
            sums[i] += sums[i + stride];
        barrier();
    }
    if (i == 0u) {
        float avg = sums[0] / 1024.0;             // log2 of the geometric mean luminance
        float target = clamp(log2(0.18) - avg, pc.min_ev, pc.max_ev);
        float ev = state.initialized > 0.5 ? mix(state.ev, target, pc.rate) : target;
        state.ev = ev;
        state.initialized = 1.0;
    }
}
