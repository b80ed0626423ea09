#version 450
// ibl_lut.comp: the split-sum environment BRDF table. Texel (x, y) holds the scale A and bias B
// of F0 at n.v = (x + 0.5) / size and perceptual roughness (y + 0.5) / size, integrated with GGX
// importance sampling and height-correlated Smith visibility (the visibility pbr.frag uses).
#include "ibl_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rg16f) uniform writeonly image2D lut;
layout(push_constant) uniform Push { uint size; uint samples; } pc;

float v_smith(float nov, float nol, float a) {
    float a2 = a * a;
    float gv = nol * sqrt(nov * nov * (1.0 - a2) + a2);
    float gl = nov * sqrt(nol * nol * (1.0 - a2) + a2);
    return 0.5 / max(gv + gl, 1e-7);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size) || p.y >= int(pc.size))
        return;
    float nov = (float(p.x) + 0.5) / float(pc.size);
    float rough = (float(p.y) + 0.5) / float(pc.size);
    float a = rough * rough;
    vec3 v = vec3(sqrt(1.0 - nov * nov), 0.0, nov);
    vec3 n = vec3(0.0, 0.0, 1.0);
    vec2 sum = vec2(0.0);
    for (uint i = 0u; i < pc.samples; i++) {
        vec3 h = ibl_ggx_sample(ibl_hammersley(i, pc.samples), n, a);
        vec3 l = 2.0 * dot(v, h) * h - v;
        float nol = clamp(l.z, 0.0, 1.0);
        float noh = clamp(h.z, 0.0, 1.0);
        float voh = clamp(dot(v, h), 0.0, 1.0);
        if (nol > 0.0) {
            // pdf(l) = D * noh / (4 voh); the estimator of D * V * nol / pdf:
            float g = v_smith(nov, nol, a) * 4.0 * nol * voh / max(noh, 1e-7);
            float fc = pow(1.0 - voh, 5.0);
            sum += vec2((1.0 - fc) * g, fc * g);
        }
    }
    imageStore(lut, p, vec4(sum / float(pc.samples), 0.0, 0.0));
}
