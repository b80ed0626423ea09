#version 450
// ocean_spectrum.comp: "ocean.spectrum" (ocean_draw.c). For each wave vector k of each cascade,
// h(k, t) = h0(k) e^(i w t) + conj(h0(-k)) e^(-i w t) with h0 drawn from a fixed seed (a hash of
// the cascade and the grid cell: the same sea every run) and scaled by a JONSWAP spectrum
// (Hasselmann et al. 1973: alpha and the peak from wind speed and fetch, gamma 3.3) with a cos²
// spread around the wind, converted to wave numbers by deep-water dispersion w = sqrt(g k).
// Each cascade keeps only its band of k (from 6 waves a tile of the next larger cascade up to 6
// waves a tile of the next smaller one), so cascades add up without counting a wave twice.
// Frequencies are quantised to multiples of 2 pi / 200 s (the sea repeats every 200 s). Writes the
// eight spectra the maps need, two to a complex signal: (h + i Dx), (Dz + i Sx), (Sz + i Dxx),
// (Dzz + i Dxz), where D is the horizontal displacement (i k/|k| h), S the slopes (i k h).
#include "ocean_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) writeonly buffer Work { vec4 work[]; };
layout(set = 0, binding = 1) readonly buffer Block { Ocean oc; };
layout(push_constant) uniform Push {
    uvec4 p; // x size, y cascades
} pc;

const float G = 9.81;
const float PERIOD = 200.0;

uint hash(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Two independent standard normal numbers for grid cell id of cascade c (Box-Muller).
vec2 gauss(uvec2 id, uint c) {
    uint s = hash(id.x + hash(id.y + hash(c + 0x0cea2u)));
    float u1 = (float(hash(s) >> 8) + 1.0) / 16777217.0;
    float u2 = float(hash(s ^ 0x9e3779b9u) >> 8) / 16777216.0;
    float r = sqrt(-2.0 * log(u1));
    return r * vec2(cos(2.0 * OCEAN_PI * u2), sin(2.0 * OCEAN_PI * u2));
}

float jonswap(float w) {
    float U = oc.wind.z, F = oc.wind.w;
    float alpha = 0.076 * pow(U * U / (F * G), 0.22);
    float wp = 22.0 * pow(G * G / (U * F), 1.0 / 3.0);
    float sigma = w <= wp ? 0.07 : 0.09;
    float r = exp(-(w - wp) * (w - wp) / (2.0 * sigma * sigma * wp * wp));
    float q = wp / w;
    return alpha * G * G / pow(w, 5.0) * exp(-1.25 * q * q * q * q) * pow(3.3, r);
}

// The band of wave numbers cascade c keeps.
vec2 band(uint c, uint cascades) {
    float lo = c == 0u ? 0.0 : 2.0 * OCEAN_PI * 6.0 / oc.tiles[c];
    float hi = c + 1u >= cascades ? 1e30 : 2.0 * OCEAN_PI * 6.0 / oc.tiles[c + 1u];
    return vec2(lo, hi);
}

// h0 at grid cell id (0 .. size-1 on each axis, k = (id - size/2) 2 pi / L) of cascade c.
vec2 h0(uvec2 id, uint c, uint size, uint cascades) {
    float L = oc.tiles[c];
    float dk = 2.0 * OCEAN_PI / L;
    vec2 k = (vec2(id) - vec2(size / 2u)) * dk;
    float kl = length(k);
    vec2 b = band(c, cascades);
    if (kl < 1e-6 || kl < b.x || kl >= b.y)
        return vec2(0.0);
    float w = sqrt(G * kl);
    float c_th = dot(k / kl, oc.wind.xy);
    float spread = c_th > 0.0 ? 2.0 / OCEAN_PI * c_th * c_th : 0.0;
    spread = 0.9 * spread + 0.1 / (2.0 * OCEAN_PI); // a little sea against the wind
    float sk = jonswap(w) * spread * (G / (2.0 * w)) / kl; // S(w) D(th) dw/dk / k
    float amp = sqrt(max(sk, 0.0) * dk * dk * 0.5) * oc.sim.x;
    return gauss(id, c) * (amp * 0.70710678);
}

void main() {
    uint size = pc.p.x, cascades = pc.p.y;
    uvec3 g = gl_GlobalInvocationID;
    if (g.x >= size || g.y >= size || g.z >= cascades)
        return;
    uint c = g.z;
    vec2 a = h0(g.xy, c, size, cascades);
    vec2 b = h0((uvec2(size) - g.xy) % uvec2(size), c, size, cascades);
    vec2 k = (vec2(g.xy) - vec2(size / 2u)) * (2.0 * OCEAN_PI / oc.tiles[c]);
    float kl = length(k);
    float w0 = 2.0 * OCEAN_PI / PERIOD;
    float w = floor(sqrt(9.81 * kl) / w0) * w0;
    float ph = w * oc.sim.w;
    vec2 e = vec2(cos(ph), sin(ph));
    vec2 h = cmul(a, e) + cmul(vec2(b.x, -b.y), vec2(e.x, -e.y));
    vec2 n = kl > 1e-6 ? k / kl : vec2(0.0);
    vec2 dx = ci(h) * n.x, dz = ci(h) * n.y;
    vec2 sx = ci(h) * k.x, sz = ci(h) * k.y;
    vec2 dxx = -h * k.x * n.x, dzz = -h * k.y * n.y, dxz = -h * k.x * n.y;
    work[ocean_index(c, 0u, g.x, g.y, size)] = vec4(h + ci(dx), dz + ci(sx));
    work[ocean_index(c, 1u, g.x, g.y, size)] = vec4(sz + ci(dxx), dzz + ci(dxz));
}
