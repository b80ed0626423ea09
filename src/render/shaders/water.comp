#version 450
// water.comp: PoolWater over the lit HDR image of one view (water.c). Each pixel's ray is taken
// into every box's space; where it meets the box's top face (y = 0.5) nearer than the scene
// behind, the pixel is water: the normal from four Gerstner waves at the hit (world x, z), the
// sky's reflection (the image-based light's sharpest level; with the view's
// ScreenSpaceReflections at Medium/High, the scene where the reflected ray meets it, from a copy
// of the lit image, water_ssr.glsl) and the sun's glint weighted by Schlick's Fresnel (F0 0.02),
// over the scene behind seen through the water (its own pixel, no offset), attenuated along the
// path under the surface toward the depth colour.

// The leading part of `Frame` (common.glsl, frame.h): what the water reads.
layout(set = 0, binding = 0) uniform Frame {
    mat4 view, proj, view_proj, prev_view_proj;
    mat4 cascade_view_proj[4];
    vec4 cascade_far, cascade_texel;
    vec4 camera_pos; // xyz
    vec4 sun_dir;    // xyz toward the light
    vec4 sun_color;  // rgb colour x illuminance, w 1 when there is a sun
    vec4 ambient;    // x the image-based light's intensity, y the specular cube's last mip
} frame;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, rgba16f) uniform image2D hdr;
struct Box {
    mat4 box_from_world;
    vec4 color;  // rgb depth colour, w clarity (m)
    vec4 waves;  // x height (m), y wavelength (m), zw wind direction (unit, world x z)
};
layout(set = 0, binding = 3) readonly buffer Boxes { Box boxes[]; };
layout(set = 0, binding = 4) uniform samplerCube sky;
layout(set = 0, binding = 5) uniform sampler2D scene_tex; // the lit image before the water
layout(push_constant) uniform Push {
    mat4 inv_view_proj;
    vec4 params; // x time (s), y boxes
    vec4 ssr;    // x reflections' intensity (0: none), y thickness (m), z steps
} pc;
layout(local_size_x = 8, local_size_y = 8) in;

const float PI = 3.14159265359;

#include "water_ssr.glsl"

// The surface normal of four Gerstner waves at world (x, z): lengths L, L/1.7, L/2.9, L/4.3,
// directions spread +-0.5 rad around the wind, amplitudes falling with length.
vec3 wave_normal(vec2 p, vec4 w, float t) {
    vec3 n = vec3(0.0, 1.0, 0.0);
    float base = atan(w.w, w.z);
    const float scale[4] = float[4](1.0, 1.0 / 1.7, 1.0 / 2.9, 1.0 / 4.3);
    const float turn[4] = float[4](0.0, 0.45, -0.35, 0.6);
    for (int i = 0; i < 4; i++) {
        float len = max(w.y * scale[i], 0.01);
        float k = 2.0 * PI / len;
        float a = 0.5 * w.x * scale[i];
        float c = sqrt(9.81 / k); // deep water: omega = sqrt(g k)
        vec2 d = vec2(cos(base + turn[i]), sin(base + turn[i]));
        float f = k * (dot(d, p) - c * t);
        float ka = min(k * a, 0.9); // steepness below breaking
        n.xz -= d * ka * cos(f);
        n.y -= 0.5 * ka * sin(f) * ka;
    }
    return normalize(n);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(depth_tex, 0);
    if (p.x >= size.x || p.y >= size.y)
        return;
    vec2 ndc = (vec2(p) + 0.5) / vec2(size) * 2.0 - 1.0;
    ndc.y = -ndc.y; // viewports are y-flipped
    vec3 cam = frame.camera_pos.xyz;
    vec4 far4 = pc.inv_view_proj * vec4(ndc, 1.0, 1.0);
    vec3 dir = normalize(far4.xyz / far4.w - cam);
    float z = texelFetch(depth_tex, p, 0).r;
    float t_scene = 1e30;
    if (z < 1.0) {
        vec4 w = pc.inv_view_proj * vec4(ndc, z, 1.0);
        t_scene = length(w.xyz / w.w - cam);
    }
    // The nearest surface in front of the scene, and the path under it.
    int hit = -1;
    float t_hit = t_scene, under = 0.0;
    for (int i = 0; i < int(pc.params.y); i++) {
        vec3 o = (boxes[i].box_from_world * vec4(cam, 1.0)).xyz;
        vec3 d = (boxes[i].box_from_world * vec4(dir, 0.0)).xyz;
        if (abs(d.y) < 1e-7)
            continue;
        float t = (0.5 - o.y) / d.y;
        vec3 q = o + d * t;
        if (t <= 0.0 || t >= t_hit || abs(q.x) > 0.5 || abs(q.z) > 0.5)
            continue;
        // Where the ray leaves the box below the surface (slab exit).
        vec3 inv = 1.0 / d;
        vec3 t1 = (vec3(-0.5) - o) * inv, t2 = (vec3(0.5) - o) * inv;
        vec3 tmax = max(t1, t2);
        float t_exit = min(min(tmax.x, tmax.y), tmax.z);
        hit = i;
        t_hit = t;
        under = max(min(t_scene, t_exit) - t, 0.0);
    }
    if (hit < 0)
        return;
    Box b = boxes[hit];
    vec3 pos = cam + dir * t_hit;
    vec3 n = wave_normal(pos.xz, b.waves, pc.params.x);
    if (dot(n, -dir) < 0.0)
        n = vec3(0.0, 1.0, 0.0); // seen from below or at grazing: the flat surface
    float cos_v = clamp(dot(n, -dir), 0.0, 1.0);
    float fresnel = 0.02 + 0.98 * pow(1.0 - cos_v, 5.0);
    vec3 r = reflect(dir, n);
    r.y = abs(r.y); // never reflect below the horizon
    vec3 refl = textureLod(sky, r, 0.0).rgb * frame.ambient.x;
    float met = 0.0; // how much of the reflection is the scene's (screen-space)
    if (pc.ssr.x > 0.0) {
        vec4 h = trace_reflection(pos, r, size, cam);
        met = h.a * min(pc.ssr.x, 1.0);
        refl = mix(refl, h.rgb * max(pc.ssr.x, 1.0), met);
    }
    if (frame.sun_color.w > 0.0) {
        float s = max(dot(r, normalize(frame.sun_dir.xyz)), 0.0);
        refl += frame.sun_color.rgb * pow(s, 800.0) * 40.0 * (1.0 - met);
    }
    // Under the surface: light lost along the path, the most for the colours the water lacks, and
    // the water's own colour lit by the sky and the sun scattered in its place.
    vec3 absorb = (vec3(1.0) - b.color.rgb) / max(b.color.w, 0.01);
    vec3 tr = exp(-absorb * under);
    vec3 lit = textureLod(sky, vec3(0.0, 1.0, 0.0), frame.ambient.y).rgb * frame.ambient.x;
    if (frame.sun_color.w > 0.0)
        lit += frame.sun_color.rgb * max(normalize(frame.sun_dir.xyz).y, 0.0) / PI;
    vec3 body = b.color.rgb * lit;
    vec4 c = imageLoad(hdr, p);
    vec3 below = c.rgb * tr + body * (vec3(1.0) - tr);
    vec3 outc = mix(below, refl, fresnel);
    imageStore(hdr, p, vec4(min(outc, vec3(60000.0)), c.a));
}
