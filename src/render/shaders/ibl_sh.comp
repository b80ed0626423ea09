#version 450
// ibl_sh.comp: diffuse irradiance of the IBL source as order-2 spherical harmonics. One group
// projects a small level of the cube (every texel weighted by its solid angle), convolves the
// projection with the clamped cosine and divides by pi, so texel i of `sh` holds coefficient i of
// E(n) / pi: a Lambert surface of albedo a facing n reflects a * sum_i sh[i] * Y_i(n).
#include "ibl_common.glsl"
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2DArray src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D sh;
layout(push_constant) uniform Push { uint size; } pc; // of the level read

shared vec3 part[256][9];

void main() {
    uint t = gl_LocalInvocationID.x;
    vec3 acc[9];
    for (int k = 0; k < 9; k++)
        acc[k] = vec3(0.0);
    uint n = pc.size * pc.size * 6u;
    for (uint i = t; i < n; i += 256u) {
        uint face = i / (pc.size * pc.size);
        uint rem = i % (pc.size * pc.size);
        vec2 texel = vec2(float(rem % pc.size), float(rem / pc.size));
        vec3 d = normalize(ibl_cube_dir(int(face), (texel + 0.5) / float(pc.size)));
        float w = ibl_texel_solid_angle(texel, float(pc.size));
        vec3 c = imageLoad(src, ivec3(texel, face)).rgb * w;
        float y[9];
        ibl_sh_basis(d, y);
        for (int k = 0; k < 9; k++)
            acc[k] += c * y[k];
    }
    for (int k = 0; k < 9; k++)
        part[t][k] = acc[k];
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (t < s)
            for (int k = 0; k < 9; k++)
                part[t][k] += part[t + s][k];
        barrier();
    }
    if (t < 9u) {
        // Cosine lobe convolution (Ramamoorthi and Hanrahan 2001), then / pi.
        float band = t == 0u ? 1.0 : (t < 4u ? 2.0 / 3.0 : 0.25);
        imageStore(sh, ivec2(int(t), 0), vec4(part[0][t] * band, 1.0));
    }
}
