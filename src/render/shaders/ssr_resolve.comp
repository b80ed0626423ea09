#version 450
// ssr_resolve.comp: the screen-space reflections into the lit image, at full resolution. The
// half-resolution trace is upsampled bilaterally (its four nearest texels weighted by bilinear
// position, depth likeness and normal likeness); rougher surfaces blend toward blurrier levels
// of the reflection pyramid. Where the trace hit (confidence a), the reflection replaces the
// environment reflection the lit pass added, with the same split-sum weight:
//     colour += intensity * (F0 * A + B) * (traced - a * environment)
// F0 is 0.04 for dielectrics and 1 for metals (the prepass keeps no base colour: metals reflect
// screen-space hits untinted). Misses keep the environment's reflection as it is: the reflection
// probe covering the pixel, else the sky.
#include "ssr_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2) uniform sampler2D normal_tex;
layout(set = 0, binding = 3) uniform sampler2D trace_tex; // premultiplied, with its blur mips
layout(set = 0, binding = 4) uniform sampler2D hiz;       // level 0: the trace's depths
layout(set = 0, binding = 5) uniform sampler2D color_in;
layout(set = 0, binding = 6, rgba16f) uniform writeonly image2D color_out;
layout(set = 0, binding = 7) uniform samplerCube ibl_specular;
layout(set = 0, binding = 8) uniform sampler2D ibl_brdf;
#define PROBE_BINDING 9
#include "probes.glsl"
layout(push_constant) uniform Push {
    uvec4 size;  // xy full, zw half
    vec4 params; // x intensity, y max roughness, z the pyramid's last level
} pc;

mat4 inv_proj; // inverse(frame.proj), set first in main

// The environment's reflection along world direction r at world position p, as the lit pass
// computed it (the probes covering p over the sky).
vec3 environment(vec3 p, vec3 r, float rough) {
    return environment_specular(p, r, rough) * frame.ambient.x;
}

void main() {
    inv_proj = inverse(frame.proj);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = texelFetch(color_in, p, 0);
    float d = texelFetch(depth_tex, p, 0).r;
    vec4 nw = texelFetch(normal_tex, p, 0);
    float rough, metal;
    unpack_material(nw.w, rough, metal);
    if (d >= 1.0 || rough > pc.params.y) {
        imageStore(color_out, p, c);
        return;
    }
    vec2 uv = (vec2(p) + 0.5) / vec2(pc.size.xy);
    vec3 P = ssr_view_pos(inv_proj, uv, d);
    float lin = -P.z;
    vec3 n = normalize(nw.xyz);
    // Bilateral upsample of level 0.
    vec2 hp = (vec2(p) + 0.5) * 0.5 - 0.5;
    ivec2 base = ivec2(floor(hp));
    vec2 f = hp - vec2(base);
    ivec2 hmax = ivec2(pc.size.zw) - 1;
    vec4 sum = vec4(0.0);
    float wsum = 0.0;
    for (int k = 0; k < 4; k++) {
        ivec2 o = ivec2(k & 1, k >> 1);
        ivec2 h = clamp(base + o, ivec2(0), hmax);
        float wb = (o.x == 1 ? f.x : 1.0 - f.x) * (o.y == 1 ? f.y : 1.0 - f.y);
        float hl = ssr_linear(inv_proj, texelFetch(hiz, h, 0).r);
        float wd = 1.0 / (1e-3 + abs(hl - lin) / max(lin, 1e-3) * 20.0);
        vec3 hn = texelFetch(normal_tex, min(h * 2, ivec2(pc.size.xy) - 1), 0).xyz;
        float wn = pow(max(dot(normalize(hn), n), 0.0), 8.0);
        float w = (wb + 1e-3) * wd * wn;
        sum += texelFetch(trace_tex, h, 0) * w;
        wsum += w;
    }
    vec4 refl = wsum > 1e-6 ? sum / wsum : textureLod(trace_tex, uv, 0.0);
    float lod = rough / max(pc.params.y, 1e-3) * pc.params.z;
    refl = mix(refl, textureLod(trace_tex, uv, lod), clamp(lod, 0.0, 1.0));
    // The split-sum weight of the lit pass (pbr.frag) with F0 from metalness alone.
    vec3 toward = -normalize(transpose(mat3(frame.view)) * P); // world, surface to camera
    float nov = clamp(abs(dot(n, toward)), 1e-4, 1.0);
    vec2 ab = textureLod(ibl_brdf, vec2(nov, rough), 0.0).rg;
    float spec_f = mix(0.04, 1.0, metal) * ab.x + ab.y;
    vec3 world = frame.camera_pos.xyz + transpose(mat3(frame.view)) * P;
    vec3 env = environment(world, reflect(-toward, n), rough);
    vec3 add = pc.params.x * spec_f * (refl.rgb - refl.a * env);
    imageStore(color_out, p, vec4(max(c.rgb + add, vec3(0.0)), c.a));
}
