#version 450
// sky_ibl.comp: level 0 of the image-based light's source cube from the physical atmosphere (sky
// mode Atmosphere): the sky view table's radiance in every direction, and below the horizon the
// ground (its albedo lit by the sun through the transmittance, Lambertian) seen through the
// light the air scatters toward the viewer, and the Clouds panorama over the sky (ozone_width.w =
// 1). No sun disc: the sun is the direct light.
#define SKY_BINDING 0
#include "sky_common.glsl"
#include "ibl_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D trans_lut;
layout(set = 0, binding = 2) uniform sampler2D view_lut;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2DArray cube;
layout(set = 0, binding = 4) uniform sampler2D cloud_pano; // Clouds (clouds_common.glsl)
#include "clouds_common.glsl"
layout(push_constant) uniform Push { uint size; } pc;

void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID.xyz);
    if (p.x >= int(pc.size) || p.y >= int(pc.size))
        return;
    vec3 d = normalize(ibl_cube_dir(p.z, (vec2(p.xy) + 0.5) / float(pc.size)));
    vec3 sun = atmo.sun_dir.xyz;
    float r = sky_camera_radius(atmo.radii.z);
    vec3 L = sky_view_radiance(view_lut, r, d, sun);
    vec3 o = vec3(0.0, r, 0.0);
    if (sky_ray_sphere(o, d, atmo.radii.x) > 0.0) {
        float mu_s = max(sun.y, 0.0);
        vec3 ts = sky_transmittance(trans_lut, atmo.radii.x, sun.y);
        L += atmo.albedo.rgb / SKY_PI * ts * mu_s;
    }
    if (atmo.ozone_width.w > 0.5) { // the clouds, as the sky pass draws them
        vec4 cl = cloud_lookup(cloud_pano, d);
        L = L * cl.a + cl.rgb;
    }
    L = clamp(L * atmo.sun_radiance.rgb * atmo.sun_dir.w, vec3(0.0), vec3(60000.0));
    imageStore(cube, p, vec4(L, 1.0));
}
