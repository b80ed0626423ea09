#version 450
// sky_aerial.comp: the aerial perspective volume of one view (32 x 32 froxels x 32 slices over
// 32 km, sky_common.glsl): each invocation marches one froxel column from the camera through
// the view's frustum, two steps a slice, storing the scattered light and transmittance at the
// end of every slice. Made every frame for each view that shows an atmosphere.
#define SKY_BINDING 0
#include "sky_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D trans_lut;
layout(set = 0, binding = 2) uniform sampler2D ms_lut;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D volume;
layout(push_constant) uniform Push {
    mat4 inv_view_proj;
    vec4 camera; // xyz world position (metres)
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= AP_SIZE || p.y >= AP_SIZE)
        return;
    vec2 ndc = (vec2(p) + 0.5) / float(AP_SIZE) * 2.0 - 1.0;
    ndc.y = -ndc.y; // viewports are y-flipped
    vec4 a = pc.inv_view_proj * vec4(ndc, 0.0, 1.0);
    vec4 b = pc.inv_view_proj * vec4(ndc, 1.0, 1.0);
    vec3 d = normalize(b.xyz / b.w - a.xyz / a.w);
    vec3 sun = atmo.sun_dir.xyz;
    vec3 o = vec3(0.0, sky_camera_radius(pc.camera.y * 0.001), 0.0);
    float c = dot(d, sun);
    float pr = sky_phase_rayleigh(c), pm = sky_phase_mie(c);
    vec3 L = vec3(0.0), T = vec3(1.0);
    const int SUB = 2;
    float dt = AP_KM_PER_SLICE / float(SUB);
    for (int k = 0; k < AP_SLICES; k++) {
        for (int s = 0; s < SUB; s++) {
            vec3 q = o + d * ((float(k * SUB + s) + 0.5) * dt);
            float r = max(length(q), atmo.radii.x + 0.001);
            vec3 up = q / length(q);
            vec3 sr, ext;
            float sm;
            sky_medium(r - atmo.radii.x, sr, sm, ext);
            float mu_s = dot(up, sun);
            float lit = sky_ray_sphere(q, sun, atmo.radii.x) > 0.0 ? 0.0 : 1.0;
            vec3 S = lit * sky_transmittance(trans_lut, r, mu_s) * (sr * pr + sm * pm) +
                     sky_multiscatter(ms_lut, r, mu_s) * (sr + sm);
            vec3 step_t = exp(-ext * dt);
            L += T * (S - S * step_t) / max(ext, vec3(1e-7));
            T *= step_t;
        }
        imageStore(volume, ivec2(k * AP_SIZE + p.x, p.y), vec4(L, dot(T, vec3(1.0 / 3.0))));
    }
}
