#version 450
// sky_view.comp: the sky view table (192 x 108): the sky's radiance per unit sun illuminance seen
// from the camera's altitude, over (azimuth from the sun, zenith angle), marched in 30 steps
// through the transmittance and multiple scattering tables. Made every frame with an atmosphere
// (it follows the sun and the camera's altitude).
#define SKY_BINDING 0
#include "sky_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D trans_lut;
layout(set = 0, binding = 2) uniform sampler2D ms_lut;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D lut;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(lut);
    if (p.x >= size.x || p.y >= size.y)
        return;
    float r = sky_camera_radius(atmo.radii.z);
    float zen, az;
    sky_view_angles(vec2(p) / vec2(size - 1), r, zen, az);
    // The sun in the table's frame: azimuth 0 along +X.
    float mu_s = atmo.sun_dir.y;
    vec3 sun = vec3(sqrt(max(1.0 - mu_s * mu_s, 0.0)), mu_s, 0.0);
    vec3 d = vec3(sin(zen) * cos(az), cos(zen), sin(zen) * sin(az));
    vec3 o = vec3(0.0, r, 0.0);
    vec3 t;
    vec3 L = sky_march(trans_lut, ms_lut, true, o, d, sun, sky_ray_length(o, d), 30, t);
    imageStore(lut, p, vec4(L, 1.0));
}
