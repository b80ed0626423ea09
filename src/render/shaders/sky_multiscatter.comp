#version 450
// sky_multiscatter.comp: the multiple scattering table (32 x 32 over sun zenith cosine and
// altitude, Hillaire 2020 section 5.5): from each point the second-order light arriving from 64
// directions of the sphere (isotropic phase, lit by the sun through the transmittance table and
// by the ground's albedo), and the fraction f of light scattered back to it, summed as the
// geometric series L2 / (1 - f) of every higher order. Made when the settings change.
#define SKY_BINDING 0
#include "sky_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D trans_lut;
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D lut;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(lut);
    if (p.x >= size.x || p.y >= size.y)
        return;
    vec2 uv = vec2(p) / vec2(size - 1);
    float mu_s = uv.x * 2.0 - 1.0;
    float r = atmo.radii.x + uv.y * (atmo.radii.y - atmo.radii.x);
    r = clamp(r, atmo.radii.x + 0.001, atmo.radii.y - 0.001);
    vec3 o = vec3(0.0, r, 0.0);
    vec3 sun = vec3(sqrt(max(1.0 - mu_s * mu_s, 0.0)), mu_s, 0.0);
    const int DIRS = 8, STEPS = 20;
    const float iso = 1.0 / (4.0 * SKY_PI);
    vec3 l2 = vec3(0.0), fms = vec3(0.0);
    for (int a = 0; a < DIRS; a++) {
        for (int b = 0; b < DIRS; b++) {
            // Uniform over the sphere: cos theta in (-1, 1), phi in (0, 2 pi).
            float ct = 1.0 - 2.0 * (float(a) + 0.5) / float(DIRS);
            float phi = 2.0 * SKY_PI * (float(b) + 0.5) / float(DIRS);
            float st = sqrt(max(1.0 - ct * ct, 0.0));
            vec3 d = vec3(st * cos(phi), ct, st * sin(phi));
            float tg = sky_ray_sphere(o, d, atmo.radii.x);
            float t_max = tg > 0.0 ? tg : max(sky_ray_sphere(o, d, atmo.radii.y), 0.0);
            float dt = t_max / float(STEPS);
            vec3 L = vec3(0.0), f = vec3(0.0), T = vec3(1.0);
            for (int i = 0; i < STEPS; i++) {
                vec3 q = o + d * ((float(i) + 0.5) * dt);
                float rq = length(q);
                vec3 sr, ext;
                float sm;
                sky_medium(rq - atmo.radii.x, sr, sm, ext);
                vec3 scat = sr + vec3(sm);
                float lit = sky_ray_sphere(q, sun, atmo.radii.x) > 0.0 ? 0.0 : 1.0;
                vec3 ts = sky_transmittance(trans_lut, rq, dot(q / rq, sun));
                vec3 step_t = exp(-ext * dt);
                vec3 w = (vec3(1.0) - step_t) / max(ext, vec3(1e-7)); // integral of T over the step
                L += T * lit * ts * scat * iso * w;
                f += T * scat * w;
                T *= step_t;
            }
            if (tg > 0.0) { // the ground, lit by the sun, reflects diffusely
                vec3 g = o + d * tg;
                vec3 n = normalize(g);
                vec3 ts = sky_transmittance(trans_lut, atmo.radii.x, dot(n, sun));
                L += T * ts * max(dot(n, sun), 0.0) * atmo.albedo.rgb / SKY_PI;
            }
            l2 += L;
            fms += f;
        }
    }
    float n = float(DIRS * DIRS);
    l2 /= n;
    fms = fms * iso * (4.0 * SKY_PI) / n;
    vec3 psi = l2 / max(vec3(1.0) - fms, vec3(1e-3));
    imageStore(lut, p, vec4(psi, 1.0));
}
