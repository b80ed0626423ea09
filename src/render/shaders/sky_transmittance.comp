#version 450
// sky_transmittance.comp: the transmittance table (256 x 64): the fraction of light that crosses
// the atmosphere from radius r toward a direction of zenith cosine mu up to its top (Rayleigh,
// Mie and ozone extinction integrated in 40 steps). Made when the atmosphere's settings change.
#define SKY_BINDING 0
#include "sky_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D lut;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(lut);
    if (p.x >= size.x || p.y >= size.y)
        return;
    float r, mu;
    sky_trans_rmu(vec2(p) / vec2(size - 1), r, mu);
    vec3 o = vec3(0.0, r, 0.0);
    vec3 d = vec3(sqrt(max(1.0 - mu * mu, 0.0)), mu, 0.0);
    float len = max(sky_ray_sphere(o, d, atmo.radii.y), 0.0);
    const int STEPS = 40;
    vec3 depth = vec3(0.0);
    float dt = len / float(STEPS);
    for (int i = 0; i < STEPS; i++) {
        vec3 q = o + d * ((float(i) + 0.5) * dt);
        vec3 sr, ext;
        float sm;
        sky_medium(length(q) - atmo.radii.x, sr, sm, ext);
        depth += ext * dt;
    }
    imageStore(lut, p, vec4(exp(-depth), 1.0));
}
