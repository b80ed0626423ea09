// clouds_common.glsl: the cloud panorama (clouds.c, clouds.comp) as the sky passes read it: one
// RGBA16F image over (azimuth, elevation above the horizon), the elevation as v = sqrt(sin e) so
// the horizon gets the most texels; rgb the light the clouds send toward the camera (per unit
// sun illuminance), a the transmittance through them. Below the horizon there are no clouds.
const float CLOUD_PI = 3.14159265359;

vec2 cloud_uv(vec3 d) {
    return vec2(atan(d.z, d.x) / (2.0 * CLOUD_PI) + 0.5, sqrt(clamp(d.y, 0.0, 1.0)));
}

vec3 cloud_dir(vec2 uv) {
    float y = uv.y * uv.y;
    float h = sqrt(max(1.0 - y * y, 0.0));
    float a = (uv.x - 0.5) * 2.0 * CLOUD_PI;
    return vec3(h * cos(a), y, h * sin(a));
}

// The panorama toward unit direction d: (scattered light, transmittance).
vec4 cloud_lookup(sampler2D pano, vec3 d) {
    if (d.y <= 0.0)
        return vec4(0.0, 0.0, 0.0, 1.0);
    return textureLod(pano, cloud_uv(d), 0.0);
}
