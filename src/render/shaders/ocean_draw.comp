#version 450
// ocean_draw.comp: "ocean" (ocean_draw.c): the FFT ocean over the lit HDR image of one view.
// Each pixel's ray is taken into the water's space (its plane is y = 0); from where it meets that
// plane, a few fixed-point steps find the point of the displaced surface on the ray (undo the
// horizontal displacement, take the height, meet the ray again). Cascades whose texels are
// smaller than the pixel's footprint fade out (far water is the flat mean surface, its
// reflection blurred toward the sky cube's rougher levels). Nearer than the scene behind, the
// pixel is water: Schlick's Fresnel (F0 0.02) mixes the sky's reflection (the image-based light's
// cube) and the sun's glint with the scene seen through the water (tinted by scatter_color, lost
// along the path under the surface toward the depth colour lit by sky and sun); foam where the
// surface folds (the displacement's Jacobian below 1). Channel modes: ghost blends the result at
// its opacity; wireframe draws only the lines of a grid on the displaced surface. The scene seen
// through the water is read from a copy of the lit image (scene_tex, "water.scene", one copy with
// the pool water's) shifted along the surface normal by a refraction offset (a quarter of the path
// under the surface, up to 1 m, where what is there lies behind the water), and with the view's
// ScreenSpaceReflections (Medium and High) the reflected ray is marched across the screen against
// the depth image: where it meets a surface, that surface's colour from the copy replaces the
// sky's reflection (faded at the screen's edges) and hides the sun's glint.

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
#include "ocean_common.glsl"
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, rgba16f) uniform image2D hdr;
layout(set = 0, binding = 3) readonly buffer Block { Ocean oc; };
layout(set = 0, binding = 4) uniform samplerCube sky;
layout(set = 0, binding = 5) uniform sampler2DArray disp_tex;
layout(set = 0, binding = 6) uniform sampler2DArray slope_tex;
layout(set = 0, binding = 7) uniform sampler2D scene_tex; // the lit image before the water
layout(push_constant) uniform Push {
    mat4 inv_view_proj;
    vec4 params; // x the angle a pixel spans (radians), yzw the view's wireframe colour
    vec4 ssr;    // x reflections' intensity (0: none), y thickness (m), z steps
} pc;
layout(local_size_x = 8, local_size_y = 8) in;

float weights[3];

// How much of each cascade shows at footprint fp (metres a pixel covers on the surface).
void cascade_weights(float fp) {
    float n = oc.sim.z;
    for (int c = 0; c < 3; c++) {
        float texel = oc.tiles[c] / n;
        weights[c] = c < int(oc.tiles.w) ? 1.0 - smoothstep(1.0, 4.0, fp / texel) : 0.0;
    }
}

vec2 uv_of(vec2 x0, int c) {
    return x0 / oc.tiles[c] + 0.5 / oc.sim.z;
}

vec4 displacement(vec2 x0) {
    vec4 d = vec4(0.0);
    for (int c = 0; c < 3; c++) {
        if (weights[c] > 0.0)
            d += weights[c] * textureLod(disp_tex, vec3(uv_of(x0, c), float(c)), 0.0);
    }
    return d;
}

vec4 slopes(vec2 x0) {
    vec4 s = vec4(0.0);
    for (int c = 0; c < 3; c++) {
        if (weights[c] > 0.0)
            s += weights[c] * textureLod(slope_tex, vec3(uv_of(x0, c), float(c)), 0.0);
    }
    return s;
}

#include "water_ssr.glsl"

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
    // The ray in the water's space (t stays world distance); seen from above only.
    vec3 o = (oc.water_from_world * vec4(cam, 1.0)).xyz;
    vec3 d = (oc.water_from_world * vec4(dir, 0.0)).xyz;
    if (o.y <= 0.0 || d.y > -1e-5)
        return;
    float t0 = -o.y / d.y;
    float fp = t0 * pc.params.x / max(-d.y / length(d), 0.05);
    cascade_weights(fp);
    vec2 x0 = (o + d * t0).xz;
    float t = t0;
    vec4 D = vec4(0.0);
    for (int it = 0; it < 4; it++) {
        D = displacement(x0);
        t = max((D.y - o.y) / d.y, 0.0);
        x0 = (o + d * t).xz - D.xz;
    }
    if (t >= t_scene)
        return;
    if (oc.extent.z > 0.5 && (abs(x0.x) > oc.extent.x || abs(x0.y) > oc.extent.y))
        return;
    vec4 c = imageLoad(hdr, p);
    vec4 S = slopes(x0);
    int mode = int(oc.mode.x + 0.5);
    if (mode == 2) { // wireframe: grid lines every 1/16 of the largest tile on the surface
        float cell = oc.tiles.x / 16.0;
        vec2 f = abs(fract(x0 / cell + 0.5) - 0.5) * cell;
        float line = 1.0 - smoothstep(0.3 * fp, 0.8 * fp, min(f.x, f.y));
        vec3 wire = pc.params.yzw;
        imageStore(hdr, p, vec4(mix(c.rgb, wire, line), c.a));
        return;
    }
    // The normal of the displaced surface (slopes over the stretch of the displacement).
    vec3 nl = normalize(vec3(-S.x / max(1.0 + S.z, 0.2), 1.0, -S.y / max(1.0 + S.w, 0.2)));
    vec3 n = normalize(transpose(mat3(oc.water_from_world)) * nl);
    if (dot(n, -dir) < 0.0)
        n = normalize(transpose(mat3(oc.water_from_world)) * vec3(0.0, 1.0, 0.0));
    float cos_v = clamp(dot(n, -dir), 0.0, 1.0);
    float fresnel = 0.02 + 0.98 * pow(1.0 - cos_v, 5.0);
    vec3 r = reflect(dir, n);
    r.y = abs(r.y); // never reflect below the horizon
    float lod = (1.0 - weights[0]) * min(2.0, frame.ambient.y); // far water: a blurrier sky
    vec3 refl = textureLod(sky, r, lod).rgb * frame.ambient.x;
    float met = 0.0; // how much of the reflection is the scene's (screen-space)
    if (pc.ssr.x > 0.0) {
        vec4 h = trace_reflection(cam + dir * t, r, size, cam);
        met = h.a * min(pc.ssr.x, 1.0);
        refl = mix(refl, h.rgb * max(pc.ssr.x, 1.0), met);
    }
    if (frame.sun_color.w > 0.0) {
        float s = max(dot(r, normalize(frame.sun_dir.xyz)), 0.0);
        refl += frame.sun_color.rgb * pow(s, 800.0) * 40.0 * weights[0] * (1.0 - met);
    }
    // Refraction: the scene under the surface seen shifted along the normal (on the screen), by
    // a quarter of the path under the surface up to 1 m, where what is there is behind the water.
    float under = min(t_scene - t, 1e4);
    vec3 nv = mat3(frame.view) * n;
    vec2 shift = vec2(nv.x, -nv.y) * (0.25 * min(under, 4.0)) / max(t * pc.params.x, 1e-4);
    ivec2 pr = clamp(p + ivec2(round(clamp(shift, vec2(-48.0), vec2(48.0)))), ivec2(0), size - 1);
    float t_shift = scene_distance(pr, size, cam);
    vec3 behind = c.rgb;
    if (t_shift > t) {
        behind = texelFetch(scene_tex, pr, 0).rgb;
        under = min(t_shift - t, 1e4);
    }
    // Under the surface: light lost along the path, the most for the colours the water lacks, and
    // the water's own colour lit by the sky and the sun scattered in its place.
    vec3 absorb = (vec3(1.0) - oc.depth.rgb) / max(oc.depth.w, 0.01);
    vec3 tr = exp(-absorb * under);
    vec3 lit = textureLod(sky, vec3(0.0, 1.0, 0.0), frame.ambient.y).rgb * frame.ambient.x;
    if (frame.sun_color.w > 0.0)
        lit += frame.sun_color.rgb * max(normalize(frame.sun_dir.xyz).y, 0.0) / OCEAN_PI;
    vec3 body = oc.depth.rgb * lit;
    vec3 below = behind * oc.scatter.rgb * tr + body * (vec3(1.0) - tr);
    vec3 outc = mix(below, refl, fresnel);
    // Foam where the surface folds: the Jacobian of x0 -> x0 + D below 1.
    float jac = (1.0 + S.z) * (1.0 + S.w) - D.w * D.w;
    float foam = clamp(oc.scatter.w * (0.8 - jac) * 2.0, 0.0, 1.0) * weights[0];
    outc = mix(outc, lit * 0.8, foam);
    if (mode == 3)
        outc = mix(c.rgb, outc, oc.mode.y);
    imageStore(hdr, p, vec4(min(outc, vec3(60000.0)), c.a));
}
