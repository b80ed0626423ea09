#version 450
// fog.comp: distance fog over the lit HDR image, between the opaque and transparent passes (the
// transparent surfaces then blend over fogged ones). Each pixel with geometry (depth < 1) mixes
// toward the fog colour by a factor that only grows with distance: linear (start..end),
// exponential or exponential squared, the density falling with height above y = 0 when
// height_falloff > 0, and the sun's inscatter colour toward the sun. Sky pixels keep the sky.
// With an atmosphere and sky_color (color.w >= 4), the fog colour is the sky's horizon radiance
// toward the pixel's azimuth, from the sky view table (the sky already brightens toward the sun,
// so the sun's inscatter colour is not added then).

// The leading part of `Frame` (common.glsl, frame.h): what the fog reads.
layout(set = 0, binding = 0) uniform Frame {
    mat4 view, proj, view_proj, prev_view_proj;
    mat4 cascade_view_proj[4];
    vec4 cascade_far, cascade_texel;
    vec4 camera_pos; // xyz
    vec4 sun_dir;    // xyz toward the light
    vec4 sun_color;  // w 1 when there is a sun
} frame;

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, rgba16f) uniform image2D hdr;
layout(set = 0, binding = 3) uniform sampler2D view_lut;
#define SKY_BINDING 4
#include "sky_common.glsl"
layout(push_constant) uniform Push {
    mat4 inv_view_proj;
    vec4 color;     // rgb, w falloff (0 exp2, 1 exp, 2 linear) + 4 with the sky's colour
    vec4 sun_color; // rgb, w exponent
    vec4 params;    // x density, y start, z end, w height falloff
    uvec4 rect;     // the view's pixels: x, y, w, h
} pc;

// Optical depth along the ray from the camera to p with density falling as exp(-k y).
float fog_amount(vec3 cam, vec3 p, float d) {
    int falloff = int(pc.color.w + 0.5) & 3;
    if (falloff == 2)
        return clamp((d - pc.params.y) / max(pc.params.z - pc.params.y, 1e-3), 0.0, 1.0);
    float k = pc.params.w, dens = pc.params.x;
    float depth = dens * d;
    if (k > 0.0) {
        // Integral of exp(-k y) along the segment, over its length: the mean density factor.
        float dy = p.y - cam.y;
        float y0 = max(cam.y, 0.0);
        float mean = abs(dy) > 1e-3 ? (exp(-k * y0) - exp(-k * max(p.y, 0.0))) / (k * dy)
                                    : exp(-k * y0);
        depth *= max(mean, 0.0);
    }
    return falloff == 1 ? 1.0 - exp(-depth) : 1.0 - exp(-depth * depth);
}

void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    if (g.x >= pc.rect.z || g.y >= pc.rect.w)
        return;
    ivec2 p = ivec2(g + pc.rect.xy);
    float z = texelFetch(depth_tex, p, 0).r;
    if (z >= 1.0)
        return; // the sky
    vec2 size = vec2(textureSize(depth_tex, 0));
    vec2 ndc = (vec2(p) + 0.5) / size * 2.0 - 1.0;
    ndc.y = -ndc.y; // viewports are y-flipped
    vec4 w = pc.inv_view_proj * vec4(ndc, z, 1.0);
    vec3 world = w.xyz / w.w;
    vec3 cam = frame.camera_pos.xyz;
    vec3 ray = world - cam;
    float d = length(ray);
    float f = fog_amount(cam, world, d);
    vec3 fog = pc.color.rgb;
    if (int(pc.color.w + 0.5) >= 4) {
        vec2 h = ray.xz;
        vec3 dir = length(h) > 1e-6 ? vec3(normalize(h), 0.0).xzy : vec3(1.0, 0.0, 0.0);
        float rc = sky_camera_radius(cam.y * 0.001);
        fog = sky_view_radiance(view_lut, rc, dir, atmo.sun_dir.xyz) * atmo.sun_radiance.rgb;
    } else if (frame.sun_color.w > 0.0) {
        float s = max(dot(ray / max(d, 1e-6), normalize(frame.sun_dir.xyz)), 0.0);
        fog = mix(fog, pc.sun_color.rgb, pow(s, pc.sun_color.w));
    }
    vec4 c = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(mix(c.rgb, fog, f), c.a));
}
