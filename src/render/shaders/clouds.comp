#version 450
// clouds.comp: the cloud panorama of the frame (clouds.c, clouds_common.glsl). Each invocation
// marches one direction from the camera through the layer between the spheres `base` and `base +
// thickness` km above the ground (at most 24 km of it), `steps.z` steps: the density there is a
// coverage field (value-noise fbm, cells about 6 km, drifting with the wind) shaped by a height
// profile and eroded by 1 km detail noise; each lit sample marches `steps.w` steps toward the sun
// for its self-shadow and takes the sun through the atmosphere's transmittance (a forward
// Henyey-Greenstein lobe and a softer multiple-scattering term) and the sky's light from the
// sky view table. Far clouds fade toward the sky with the distance to the layer.
#define SKY_BINDING 0
#include "sky_common.glsl"
#include "clouds_common.glsl"
#include "clouds_density.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D trans_lut;
layout(set = 0, binding = 2) uniform sampler2D view_lut;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D pano;
layout(push_constant) uniform Push {
    vec4 place; // xy camera x, z (km), zw wind offset x, z (km)
    vec4 layer; // x coverage, y density (per km), z base (km above ground), w thickness (km)
    uvec4 steps; // x width, y height, z view steps, w light steps
} pc;

float hg(float g, float c) {
    float d = 1.0 + g * g - 2.0 * g * c;
    return (1.0 - g * g) / (4.0 * CLOUD_PI * d * sqrt(d));
}

void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    if (g.x >= pc.steps.x || g.y >= pc.steps.y)
        return;
    vec3 d = cloud_dir((vec2(g) + 0.5) / vec2(pc.steps.xy));
    vec3 sun = atmo.sun_dir.xyz;
    float rc = sky_camera_radius(atmo.radii.z);
    vec3 o = vec3(0.0, rc, 0.0);
    float r0 = atmo.radii.x + pc.layer.z, r1 = r0 + pc.layer.w;
    vec4 result = vec4(0.0, 0.0, 0.0, 1.0);
    if (rc < r0) {
        float t0 = sky_ray_sphere(o, d, r0), t1 = sky_ray_sphere(o, d, r1);
        float len = min(t1 - t0, 24.0);
        int n = int(pc.steps.z);
        float dt = len / float(n);
        float c = dot(d, sun);
        float phase = mix(hg(0.8, c), hg(-0.3, c), 0.3);
        float phase_ms = hg(0.3, c);
        vec3 zenith = sky_view_radiance(view_lut, rc, vec3(0.0, 1.0, 0.0), sun);
        float ls = pc.layer.w / float(2u * pc.steps.w);
        vec3 L = vec3(0.0);
        float T = 1.0;
        for (int i = 0; i < n && T > 0.01; i++) {
            float t = t0 + (float(i) + 0.5) * dt;
            vec3 p = o + d * t;
            float r = length(p);
            vec3 w = vec3(pc.place.x + d.x * t, r - atmo.radii.x, pc.place.y + d.z * t);
            float s = cloud_density(w, pc.layer, pc.place.zw);
            if (s <= 0.0)
                continue;
            float tau = 0.0;
            for (uint j = 0u; j < pc.steps.w; j++)
                tau += cloud_density(w + sun * (ls * (float(j) + 0.5)), pc.layer, pc.place.zw) * ls;
            vec3 ts = sky_transmittance(trans_lut, r, dot(p / r, sun));
            float h = (w.y - pc.layer.z) / pc.layer.w;
            // Single scattering plus two softer octaves standing in for multiple scattering
            // (the light that wanders through the cloud), and the sky's light from above.
            vec3 S = ts * (exp(-tau) * phase + 0.6 * exp(-0.15 * tau) * phase_ms +
                           0.3 * exp(-0.03 * tau) / (4.0 * CLOUD_PI)) +
                     zenith * (0.6 + 0.8 * h);
            float st = exp(-s * dt);
            L += T * S * (1.0 - st);
            T *= st;
        }
        float fade = exp(-t0 / 60.0);
        result = vec4(L * fade, mix(1.0, T, fade));
    }
    imageStore(pano, ivec2(g), result);
}
