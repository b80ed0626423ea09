#version 460
// gi_hwrt_trace.comp: ray-traced one-bounce diffuse GI (GlobalIllumination quality Hwrt), half
// resolution, with ray queries against the frame's TLAS (gi_hwrt.c). Each half-resolution pixel
// stands for full-resolution pixel 2q: from its world position P and normal N, `rays`
// cosine-distributed rays (their turn rotated per pixel and per frame, like the voxel tiers'
// cones) find the nearest surface within max_distance. A hit surface is lit as the voxel tiers
// light their voxels: its albedo / pi x (the sun, behind a shadow ray, + the point and spot
// lights, unshadowed, up to 64) + its emissive, on the side the ray sees (the geometric normal
// from the triangle's vertices, read from the mesh's buffers by address). What a ray does not
// hit is the sky, which the lit pass already lights the surface with: a ray adds the light it
// hits and takes away the sky light hidden behind it. Output as gi_voxel_trace.comp's: rgb the
// mean over the rays (the indirect light a white surface reflects), a = |P| from the camera (-1
// for the sky); with `spec` set one more ray along the view's reflection about N writes what it
// finds less the sky it hides to spec_out, a the view's Fresnel weight (1 - N.V)^5.
#extension GL_EXT_ray_query : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 3) uniform sampler2D sky_sh; // the sky's irradiance / pi (9 texels)
layout(set = 0, binding = 4) uniform sampler2D normal_tex_in;
layout(set = 0, binding = 5) uniform accelerationStructureEXT tlas;
struct Record {
    vec4 albedo;
    vec4 emissive;
    uvec2 vb;
    uvec2 ib;
    uint first_index;
    int vertex_offset;
    uint stride; // floats per vertex
    uint pad;
};
layout(set = 0, binding = 6, std430) readonly buffer Records { Record records[]; };
layout(set = 0, binding = 7, rgba16f) uniform writeonly image2D raw_out;
layout(set = 0, binding = 8, rgba16f) uniform writeonly image2D spec_out;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Uints { uint v[]; };
layout(push_constant) uniform Push {
    uvec2 full;
    uvec2 half_size;
    uint rays;
    uint frame_index;
    uint spec;
    float max_distance;
} pc;

const uint MAX_LIGHTS = 64u;

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

vec3 world_pos(vec2 uv, float depth) {
    vec4 ndc = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, depth, 1.0); // viewports are y-flipped
    vec4 v = inverse(frame.proj) * ndc;
    vec4 w = inverse(frame.view) * vec4(v.xyz / v.w, 1.0);
    return w.xyz;
}

// Whether nothing lies between p and p + dir * tmax.
bool unoccluded(vec3 p, vec3 dir, float tmax) {
    rayQueryEXT q;
    rayQueryInitializeEXT(q, tlas, gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT, 0xFF,
                          p, 0.0, dir, tmax);
    while (rayQueryProceedEXT(q)) {
    }
    return rayQueryGetIntersectionTypeEXT(q, true) == gl_RayQueryCommittedIntersectionNoneEXT;
}

vec3 vertex_pos(Record rec, uint index_slot) {
    uint vi = Uints(rec.ib).v[index_slot] + uint(rec.vertex_offset);
    uint o = vi * rec.stride;
    Floats vb = Floats(rec.vb);
    return vec3(vb.v[o], vb.v[o + 1u], vb.v[o + 2u]);
}

// The light leaving the surface the committed hit of q found, toward the ray (dir).
vec3 hit_radiance(rayQueryEXT q, vec3 origin, vec3 dir) {
    int inst = rayQueryGetIntersectionInstanceCustomIndexEXT(q, true);
    int prim = rayQueryGetIntersectionPrimitiveIndexEXT(q, true);
    float t = rayQueryGetIntersectionTEXT(q, true);
    Record rec = records[inst];
    uint base = rec.first_index + 3u * uint(prim);
    vec3 p0 = vertex_pos(rec, base), p1 = vertex_pos(rec, base + 1u), p2 = vertex_pos(rec, base + 2u);
    mat4x3 w2o = rayQueryGetIntersectionWorldToObjectEXT(q, true);
    vec3 n = transpose(mat3(w2o)) * cross(p1 - p0, p2 - p0);
    n = dot(n, n) > 1e-20 ? normalize(n) : -dir;
    if (dot(n, dir) > 0.0)
        n = -n; // the side the ray sees
    vec3 p = origin + dir * t;
    vec3 lift = p + n * (0.002 + 0.0005 * t);
    vec3 light = vec3(0.0);
    if (frame.sun_color.w > 0.0) {
        vec3 s = normalize(frame.sun_dir.xyz);
        float nl = dot(n, s);
        if (nl > 0.0 && unoccluded(lift, s, 1e4))
            light += frame.sun_color.rgb * nl;
    }
    uint count = min(frame.counts.x, MAX_LIGHTS);
    for (uint k = 0u; k < count; k++) {
        Light lt = lights[k];
        vec3 to = lt.pos_range.xyz - p;
        float d2 = max(dot(to, to), 1e-4);
        float r = lt.pos_range.w;
        float win = clamp(1.0 - (d2 * d2) / (r * r * r * r), 0.0, 1.0);
        float atten = win * win / d2;
        vec3 l = to * inversesqrt(d2);
        if (lt.dir_kind.w > 0.5)
            atten *= smoothstep(lt.cone.y, lt.cone.x, dot(-l, normalize(lt.dir_kind.xyz)));
        light += lt.color.rgb * atten * max(dot(n, l), 0.0);
    }
    return rec.albedo.rgb * light * 0.31830989 + rec.emissive.rgb;
}

// What one ray from p along dir adds: the light of what it hits less the sky it hides.
vec3 trace(vec3 p, vec3 dir) {
    rayQueryEXT q;
    rayQueryInitializeEXT(q, tlas, gl_RayFlagsOpaqueEXT, 0xFF, p, 0.0, dir, pc.max_distance);
    while (rayQueryProceedEXT(q)) {
    }
    if (rayQueryGetIntersectionTypeEXT(q, true) != gl_RayQueryCommittedIntersectionTriangleEXT)
        return vec3(0.0);
    return hit_radiance(q, p, dir) - sky(dir);
}

void main() {
    ivec2 q = ivec2(gl_GlobalInvocationID.xy);
    if (q.x >= int(pc.half_size.x) || q.y >= int(pc.half_size.y))
        return;
    ivec2 px = min(q * 2, ivec2(pc.full) - 1);
    float d = texelFetch(depth_tex, px, 0).r;
    if (d >= 1.0) {
        imageStore(raw_out, q, vec4(0.0, 0.0, 0.0, -1.0));
        return;
    }
    vec3 P = world_pos((vec2(px) + 0.5) / vec2(pc.full), d);
    vec3 N = normalize(texelFetch(normal_tex_in, px, 0).xyz);
    vec3 up = abs(N.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    vec3 T = normalize(cross(up, N)), B = cross(N, T);
    float dist = length(P - frame.camera_pos.xyz);
    vec3 start = P + N * (0.01 + 0.001 * dist); // off the surface: not its own triangle
    uint cell = uint(q.x & 3) + 4u * uint(q.y & 3);
    float jitter = fract(float((cell * 7u) & 15u) / 16.0 + float(pc.frame_index & 63u) * 0.618034);
    float jitter2 = fract(float((cell * 11u + 5u) & 15u) / 16.0 + float(pc.frame_index & 63u) * 0.754878);
    vec3 sum = vec3(0.0);
    for (uint i = 0u; i < pc.rays; i++) {
        // cosine-distributed: stratified rings in u, turns in phi
        float u = (float(i) + jitter2) / float(pc.rays);
        float phi = 6.2831853 * fract(jitter + float(i) * 0.618034);
        float sin_t = sqrt(u), cos_t = sqrt(max(1.0 - u, 0.0));
        vec3 dir = normalize(N * cos_t + (T * cos(phi) + B * sin(phi)) * sin_t);
        sum += trace(start, dir);
    }
    imageStore(raw_out, q, vec4(sum / float(max(pc.rays, 1u)), dist));
    if (pc.spec != 0u) {
        vec3 V = normalize(frame.camera_pos.xyz - P);
        vec3 R = reflect(-V, N);
        float nv = clamp(dot(N, V), 0.0, 1.0);
        imageStore(spec_out, q, vec4(trace(start, R), pow(1.0 - nv, 5.0)));
    }
}
