#version 450
// sky.comp: the physical sky of one view, over its rectangle of the lit HDR image (after the
// opaque pass). Pixels where nothing was drawn (depth at the far plane) get the sky: looked up in
// the sky view table, or marched per pixel when the method is raymarched (the High tier), plus
// the ground below the horizon, NightStars and the sun's disc (its angular size from the settings, radiance = illuminance / the disc's solid
// angle, dimmed by the transmittance). Drawn pixels get the aerial perspective: their colour
// times the transmittance plus the light scattered over their distance, from the view's volume.
// Everything scales with the sun light's colour x illuminance. Alpha is kept.
#define SKY_BINDING 0
#include "sky_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D trans_lut;
layout(set = 0, binding = 2) uniform sampler2D ms_lut;
layout(set = 0, binding = 3) uniform sampler2D view_lut;
layout(set = 0, binding = 4) uniform sampler2D volume;
layout(set = 0, binding = 5) uniform sampler2D depth_tex;
layout(set = 0, binding = 6, rgba16f) uniform image2D hdr;
layout(set = 0, binding = 7) uniform sampler2D cloud_pano; // Clouds (clouds_common.glsl)
#include "clouds_common.glsl"
layout(push_constant) uniform Push {
    mat4 inv_view_proj;
    vec4 camera; // xyz world position (metres)
    uvec4 rect;  // the view's pixels: x, y, w, h
} pc;

const float MAX_HALF = 60000.0; // below half-float infinity

float star_hash(vec2 p) {
    p = fract(p * vec2(0.1031, 0.1030));
    p += dot(p, p.yx + 33.33);
    return fract((p.x + p.y) * p.x);
}

// NightStars: one candidate per cell of a 1024 x 512 longitude-latitude grid, kept with a chance
// proportional to the cell's area (about 9,000 over the sphere); its position, magnitude (up to
// 6, most faint) and tint from a hash; drawn as a small gaussian at least `pix` radians wide.
vec3 stars(vec3 d, float pix) {
    const vec2 grid = vec2(1024.0, 512.0);
    const float keep = 9000.0 * SKY_PI / (2.0 * 1024.0 * 512.0);
    vec2 c = vec2(atan(d.z, d.x) / (2.0 * SKY_PI) + 0.5, asin(clamp(d.y, -1.0, 1.0)) / SKY_PI + 0.5);
    vec2 cell = floor(c * grid);
    float sigma = max(0.0012, pix);
    vec3 sum = vec3(0.0);
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            vec2 k = cell + vec2(dx, dy);
            k.x = mod(k.x, grid.x);
            float lat_c = ((k.y + 0.5) / grid.y - 0.5) * SKY_PI;
            if (k.y < 0.0 || k.y >= grid.y || star_hash(k) > keep * cos(lat_c))
                continue;
            vec2 pos = (k + vec2(star_hash(k + 17.31), star_hash(k + 41.77))) / grid;
            float lon = (pos.x - 0.5) * 2.0 * SKY_PI, lat = (pos.y - 0.5) * SKY_PI;
            vec3 sd = vec3(cos(lat) * cos(lon), sin(lat), cos(lat) * sin(lon));
            float h = star_hash(k + 5.13);
            float mag = -1.0 + 7.0 * pow(h, 0.35);
            float b = pow(10.0, -0.4 * mag);
            if (atmo.ozone_width.z >= 0.0)
                b *= 1.0 + 0.35 * sin(atmo.ozone_width.z * (3.0 + 5.0 * h) + 6.2832 * h);
            float a = acos(clamp(dot(d, sd), -1.0, 1.0));
            vec3 tint = mix(vec3(1.0, 0.85, 0.7), vec3(0.75, 0.85, 1.0), star_hash(k + 9.7));
            sum += tint * b * exp(-(a * a) / (2.0 * sigma * sigma));
        }
    }
    return sum * 0.5;
}

vec3 sky(vec3 d, float r, float pix) {
    vec3 sun = atmo.sun_dir.xyz;
    vec3 L;
    vec3 o = vec3(0.0, r, 0.0);
    if (atmo.sun_radiance.w > 0.5) {
        // The table's frame (sun along +X in azimuth) is not needed: march in world directions.
        // 16 steps (quadratic spacing) stay within 0.2 levels of the table on average where 32
        // did within 0.03, at half the cost (render_sky test_marched_sky_matches_table).
        vec3 t;
        L = sky_march(trans_lut, ms_lut, true, o, d, sun, sky_ray_length(o, d), 16, t);
    } else {
        L = sky_view_radiance(view_lut, r, d, sun);
    }
    float tg = sky_ray_sphere(o, d, atmo.radii.x);
    if (tg > 0.0) {
        // The ground (Lambertian, its albedo lit by the sun through the air) seen through the
        // air between it and the camera: the ratio of two upward transmittances.
        vec3 n = normalize(o + d * tg);
        float mu_s = dot(n, sun);
        vec3 lit = atmo.albedo.rgb / SKY_PI * sky_transmittance(trans_lut, atmo.radii.x, mu_s) *
                   max(mu_s, 0.0);
        vec3 t_far = sky_transmittance(trans_lut, atmo.radii.x, max(-dot(n, d), 0.0));
        vec3 t_cam = sky_transmittance(trans_lut, r, max(-d.y, 0.0));
        L += lit * clamp(t_far / max(t_cam, vec3(1e-6)), vec3(0.0), vec3(1.0));
    }
    L *= atmo.sun_radiance.rgb;
    float ang = atmo.radii.w;
    float c = dot(d, sun);
    if (atmo.sun_dir.w > 0.5 && c > cos(ang * 1.5) && tg < 0.0) {
        float solid = 2.0 * SKY_PI * (1.0 - cos(ang));
        float disc = smoothstep(cos(ang * 1.05), cos(ang * 0.95), c); // a soft edge
        L += disc * atmo.sun_radiance.rgb * sky_transmittance(trans_lut, r, d.y) / solid;
    }
    if (atmo.ozone_width.y > 0.0 && tg < 0.0) // stars, seen through the air
        L += stars(d, pix) * atmo.ozone_width.y * sky_transmittance(trans_lut, r, d.y);
    if (atmo.ozone_width.w > 0.5) { // Clouds over everything above (the sun's disc included)
        vec4 cl = cloud_lookup(cloud_pano, d);
        L = L * cl.a + cl.rgb * atmo.sun_radiance.rgb;
    }
    return min(L, vec3(MAX_HALF));
}

vec4 aerial(vec2 uv, float dist_km) {
    float f = dist_km / AP_KM_PER_SLICE - 1.0; // slice k ends at (k + 1) slices
    vec2 xy = clamp(uv * float(AP_SIZE), vec2(0.5), vec2(float(AP_SIZE) - 0.5));
    vec2 size = vec2(textureSize(volume, 0));
    if (f < 0.0) { // nearer than the first slice's end: from nothing at the camera
        vec4 a = textureLod(volume, xy / size, 0.0);
        float w = clamp(f + 1.0, 0.0, 1.0);
        return vec4(a.rgb * w, mix(1.0, a.a, w));
    }
    f = min(f, float(AP_SLICES - 1));
    float k0 = floor(f);
    float k1 = min(k0 + 1.0, float(AP_SLICES - 1));
    vec4 a = textureLod(volume, (xy + vec2(k0 * float(AP_SIZE), 0.0)) / size, 0.0);
    vec4 b = textureLod(volume, (xy + vec2(k1 * float(AP_SIZE), 0.0)) / size, 0.0);
    return mix(a, b, f - k0);
}

void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    if (g.x >= pc.rect.z || g.y >= pc.rect.w)
        return;
    ivec2 p = ivec2(g + pc.rect.xy);
    vec2 uv = (vec2(g) + 0.5) / vec2(pc.rect.zw);
    vec2 ndc = uv * 2.0 - 1.0;
    ndc.y = -ndc.y; // viewports are y-flipped
    float z = texelFetch(depth_tex, p, 0).r;
    vec4 c = imageLoad(hdr, p);
    float r = sky_camera_radius(pc.camera.y * 0.001);
    if (z >= 1.0) {
        vec4 a = pc.inv_view_proj * vec4(ndc, 0.0, 1.0);
        vec4 b = pc.inv_view_proj * vec4(ndc, 1.0, 1.0);
        vec3 d = normalize(b.xyz / b.w - a.xyz / a.w);
        // The angle one pixel spans (the stars are at least that wide).
        vec2 ndc2 = ndc + vec2(2.0 / float(pc.rect.z), 0.0);
        vec4 a2 = pc.inv_view_proj * vec4(ndc2, 0.0, 1.0);
        vec4 b2 = pc.inv_view_proj * vec4(ndc2, 1.0, 1.0);
        vec3 d2 = normalize(b2.xyz / b2.w - a2.xyz / a2.w);
        float pix = acos(clamp(dot(d, d2), -1.0, 1.0)) * 0.6;
        imageStore(hdr, p, vec4(sky(d, r, pix), c.a));
        return;
    }
    vec4 w = pc.inv_view_proj * vec4(ndc, z, 1.0);
    float dist = length(w.xyz / w.w - pc.camera.xyz);
    vec4 ap = aerial(uv, dist * 0.001);
    vec3 lit = c.rgb * ap.a + ap.rgb * atmo.sun_radiance.rgb;
    imageStore(hdr, p, vec4(min(lit, vec3(MAX_HALF)), c.a));
}
