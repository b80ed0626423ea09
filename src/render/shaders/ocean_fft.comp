#version 450
// ocean_fft.comp: "ocean.fft" (ocean_draw.c): the inverse FFT of one line (a row when p.z is 0,
// a column when 1) of one field of one cascade per workgroup, in place in the workspace. Radix 2,
// decimation in time: the line is loaded in bit-reversed order into shared memory, then log2(N)
// butterfly stages ping-pong between two shared arrays, one output element per invocation per
// stage (X[j] = E[k] +- w^k O[k], w = e^(+2 pi i k / len)). No 1/N: the spectrum's amplitudes are
// per mode. Each element is a vec4 (two complex signals transformed together).
#include "ocean_common.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 0) buffer Work { vec4 work[]; };
layout(push_constant) uniform Push {
    uvec4 p; // x size N (<= 256, a power of two), y log2 N, z 0 rows / 1 columns
} pc;

shared vec4 line[2][256];

uint at(uint j) {
    uint n = pc.p.x, l = gl_WorkGroupID.x, f = gl_WorkGroupID.y, c = gl_WorkGroupID.z;
    return pc.p.z == 0u ? ocean_index(c, f, j, l, n) : ocean_index(c, f, l, j, n);
}

void main() {
    uint n = pc.p.x, bits = pc.p.y, i = gl_LocalInvocationID.x;
    bool live = i < n;
    if (live)
        line[0][bitfieldReverse(i) >> (32u - bits)] = work[at(i)];
    barrier();
    uint src = 0u;
    for (uint s = 0u; s < bits; s++) {
        uint half_len = 1u << s;
        if (live) {
            uint j = i & (2u * half_len - 1u);
            uint k = j & (half_len - 1u);
            uint b = i - j;
            float ang = OCEAN_PI * float(k) / float(half_len);
            vec4 t = cmul2(vec2(cos(ang), sin(ang)), line[src][b + k + half_len]);
            vec4 e = line[src][b + k];
            line[src ^ 1u][i] = j < half_len ? e + t : e - t;
        }
        barrier();
        src ^= 1u;
    }
    if (live)
        work[at(i)] = line[src][i];
}
