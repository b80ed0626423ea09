#version 450
// ibl_prefilter.comp: one mip level of one face of the specular cube: the source radiance
// convolved with the GGX lobe of roughness level / (levels - 1) around each texel's direction
// (n = v = r, the split-sum assumption). Samples are importance-drawn from GGX and read from the
// source level whose texels match the sample's solid angle (filtered importance sampling,
// Krivanek and Colbert 2008), so few samples give a smooth result. Level 0 is the source itself.
#include "ibl_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform samplerCube src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2DArray dst;
layout(push_constant) uniform Push {
    uint face, size;        // of the level written
    uint src_size, src_mips;
    float rough;            // perceptual
    uint samples;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size) || p.y >= int(pc.size))
        return;
    vec3 n = normalize(ibl_cube_dir(int(pc.face), (vec2(p) + 0.5) / float(pc.size)));
    if (pc.rough <= 0.0) {
        imageStore(dst, ivec3(p, int(pc.face)), vec4(textureLod(src, n, 0.0).rgb, 1.0));
        return;
    }
    float a = pc.rough * pc.rough;
    float texel_sa = 4.0 * IBL_PI / (6.0 * float(pc.src_size) * float(pc.src_size));
    vec3 sum = vec3(0.0);
    float wsum = 0.0;
    for (uint i = 0u; i < pc.samples; i++) {
        vec3 h = ibl_ggx_sample(ibl_hammersley(i, pc.samples), n, a);
        vec3 l = 2.0 * dot(n, h) * h - n;
        float nol = dot(n, l);
        if (nol <= 0.0)
            continue;
        float noh = clamp(dot(n, h), 0.0, 1.0);
        float pdf = ibl_d_ggx(noh, a) * 0.25; // D * noh / (4 voh) with v = n: voh = noh
        float sample_sa = 1.0 / (float(pc.samples) * pdf + 1e-6);
        float lod = clamp(0.5 * log2(sample_sa / texel_sa) + 1.0, 0.0, float(pc.src_mips) - 1.0);
        sum += textureLod(src, l, lod).rgb * nol;
        wsum += nol;
    }
    imageStore(dst, ivec3(p, int(pc.face)), vec4(sum / max(wsum, 1e-6), 1.0));
}
