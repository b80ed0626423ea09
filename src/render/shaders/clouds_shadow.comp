#version 450
// clouds_shadow.comp: the cloud shadow map of the frame (clouds.c). One texel per ground point of
// a square of map.x km centred near the camera (origin place.xy km, map.y texels a side): the
// sun's ray from the point (altitude 0) through the cloud layer, taken as flat over the square,
// marched in map.z steps (at most 24 km of it) through the same density field as the sky's clouds
// (clouds_density.glsl). r = the transmittance exp(-optical depth) the lit passes multiply the
// sun's light by (common.glsl's cloud_shadow); g = the optical depth (for looking at it).
#include "clouds_density.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rg16f) uniform writeonly image2D shadow;
layout(push_constant) uniform Push {
    vec4 place; // xy the square's corner x, z (km), zw wind offset x, z (km)
    vec4 layer; // x coverage, y density (per km), z base (km above ground), w thickness (km)
    vec4 sun;   // xyz toward the sun (unit, y at least 0.05)
    vec4 map;   // x square size (km), y texels a side, z steps
} pc;

void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    uint n = uint(pc.map.y);
    if (g.x >= n || g.y >= n)
        return;
    vec2 ground = pc.place.xy + (vec2(g) + 0.5) / float(n) * pc.map.x;
    vec3 s = pc.sun.xyz;
    // Along the ray the altitude grows by s.y a kilometre: the layer spans base / s.y to
    // (base + thickness) / s.y.
    float t0 = pc.layer.z / s.y;
    float len = min(pc.layer.w / s.y, 24.0);
    int steps = int(pc.map.z);
    float dt = len / float(steps);
    float tau = 0.0;
    for (int i = 0; i < steps; i++) {
        float t = t0 + (float(i) + 0.5) * dt;
        vec3 w = vec3(ground.x + s.x * t, s.y * t, ground.y + s.z * t);
        tau += cloud_density(w, pc.layer, pc.place.zw) * dt;
    }
    imageStore(shadow, ivec2(g), vec4(exp(-tau), min(tau, 60000.0), 0.0, 0.0));
}
