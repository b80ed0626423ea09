#version 450
// gi_voxel_trace.comp: diffuse voxel cone tracing (SdfLow / SdfHigh), half resolution. Each
// half-resolution pixel stands for full-resolution pixel 2q: from its world position P and normal
// N, `cones` cones tilted 35 degrees off N (their turn rotated per pixel and per frame) march
// `steps` samples through the voxel clipmap (gi_voxel_common.glsl), each step as long as half the
// cone's width there, sampling the mip whose voxels are that wide and compositing front to back.
// What a cone does not hit it sees of the sky: the lit pass already lights the surface with the
// unoccluded sky (its image-based light), so a cone adds the light of what it hits and takes away
// the sky light that hides behind it. Output as ssgi.comp's: rgb the indirect light a white
// surface reflects (the mean over the cones), a = |P| (distance from the camera; -1 for the sky),
// which the shared temporal and apply passes read.
// With `spec` set, one more cone runs along the view's reflection about N, its half angle widening
// with the surface's roughness (tan = tan(roughness * 45 degrees), at least a finest voxel wide),
// and what it finds less the sky it hides goes to spec_out: rgb that light, a the view's Fresnel
// weight (1 - N.V)^5 that the apply pass turns into the surface's reflectance. It is not rotated
// per frame, so it is not accumulated.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2) uniform sampler2D normal_tex_in;
layout(set = 0, binding = 3) uniform sampler2D sky_sh; // the sky's irradiance / pi (9 texels)
#include "gi_voxel_common.glsl"
layout(set = 0, binding = 8, rgba16f) uniform writeonly image2D raw_out;
layout(set = 0, binding = 9, rgba16f) uniform writeonly image2D spec_out;
layout(push_constant) uniform Push {
    vec4 origins[4]; // per cascade: xyz its low corner (metres), w metres a voxel
    uvec2 full;
    uvec2 half_size;
    uint cones;
    uint steps;
    uint frame_index;
    float tan_half; // tangent of the cones' half angle
    uint spec;      // trace the specular cone
} pc;

vec3 sky(vec3 n) {
    vec3 c = texelFetch(sky_sh, ivec2(0, 0), 0).rgb * 0.282095;
    c += texelFetch(sky_sh, ivec2(1, 0), 0).rgb * (0.488603 * n.y);
    c += texelFetch(sky_sh, ivec2(2, 0), 0).rgb * (0.488603 * n.z);
    c += texelFetch(sky_sh, ivec2(3, 0), 0).rgb * (0.488603 * n.x);
    c += texelFetch(sky_sh, ivec2(4, 0), 0).rgb * (1.092548 * n.x * n.y);
    c += texelFetch(sky_sh, ivec2(5, 0), 0).rgb * (1.092548 * n.y * n.z);
    c += texelFetch(sky_sh, ivec2(6, 0), 0).rgb * (0.315392 * (3.0 * n.z * n.z - 1.0));
    c += texelFetch(sky_sh, ivec2(7, 0), 0).rgb * (1.092548 * n.x * n.z);
    c += texelFetch(sky_sh, ivec2(8, 0), 0).rgb * (0.546274 * (n.x * n.x - n.y * n.y));
    return max(c, vec3(0.0)) * frame.ambient.x;
}

// Light along one cone from p (premultiplied rgb, a = how much of it something blocks).
vec4 cone(vec3 p, vec3 dir, float tan_half) {
    float size0 = pc.origins[0].w;
    float t = size0 * 0.5;
    vec4 acc = vec4(0.0);
    for (uint i = 0u; i < pc.steps && acc.a < 0.97; i++) {
        float diameter = max(size0, 2.0 * t * tan_half);
        vec4 s = vox_sample(p + dir * t, diameter, pc.origins);
        if (s.a < 0.0)
            break; // out of the clipmap: the rest is sky
        float a = clamp(s.a, 0.0, 1.0);
        vec3 rgb = a > 1e-4 ? s.rgb / a : vec3(0.0);
        // opacity of a sample spaced half a diameter apart
        float a2 = 1.0 - pow(1.0 - min(a, 0.999), 0.5);
        acc.rgb += (1.0 - acc.a) * a2 * rgb;
        acc.a += (1.0 - acc.a) * a2;
        t += diameter * 0.5;
    }
    return acc;
}

vec3 world_pos(vec2 uv, float depth) {
    vec4 ndc = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, depth, 1.0); // viewports are y-flipped
    vec4 v = inverse(frame.proj) * ndc;
    vec4 w = inverse(frame.view) * vec4(v.xyz / v.w, 1.0);
    return w.xyz;
}

void main() {
    ivec2 q = ivec2(gl_GlobalInvocationID.xy);
    if (q.x >= int(pc.half_size.x) || q.y >= int(pc.half_size.y))
        return;
    ivec2 p = min(q * 2, ivec2(pc.full) - 1);
    float d = texelFetch(depth_tex, p, 0).r;
    if (d >= 1.0) {
        imageStore(raw_out, q, vec4(0.0, 0.0, 0.0, -1.0));
        return;
    }
    vec3 P = world_pos((vec2(p) + 0.5) / vec2(pc.full), d);
    vec3 N = normalize(texelFetch(normal_tex_in, p, 0).xyz);
    vec3 up = abs(N.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    vec3 T = normalize(cross(up, N)), B = cross(N, T);
    uint cell = uint(q.x & 3) + 4u * uint(q.y & 3);
    float jitter = fract(float((cell * 7u) & 15u) / 16.0 + float(pc.frame_index & 63u) * 0.618034);
    vec3 start = P + N * pc.origins[0].w; // a voxel off the surface: out of its own voxels
    vec3 sum = vec3(0.0);
    const float tilt_sin = 0.573576, tilt_cos = 0.819152; // 35 degrees
    for (uint i = 0u; i < pc.cones; i++) {
        float phi = 6.2831853 * (float(i) + jitter) / float(pc.cones);
        vec3 dir = normalize(N * tilt_cos + (T * cos(phi) + B * sin(phi)) * tilt_sin);
        vec4 c = cone(start, dir, pc.tan_half);
        sum += c.rgb - c.a * sky(dir);
    }
    float dist = length(P - frame.camera_pos.xyz);
    imageStore(raw_out, q, vec4(sum / float(pc.cones), dist));
    if (pc.spec != 0u) {
        // the prepass packs round(roughness * 255) + 256 * round(metallic * 7) in the alpha
        float packed = texelFetch(normal_tex_in, p, 0).a;
        float rough = clamp((packed - floor(packed / 256.0 + 1e-3) * 256.0) / 255.0, 0.0, 1.0);
        vec3 V = normalize(frame.camera_pos.xyz - P);
        vec3 R = reflect(-V, N);
        float nv = clamp(dot(N, V), 0.0, 1.0);
        vec4 c = cone(start, R, tan(rough * 0.785398));
        imageStore(spec_out, q, vec4(c.rgb - c.a * sky(R), pow(1.0 - nv, 5.0)));
    }
}
