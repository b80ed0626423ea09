#version 450
// ssgi.comp: screen-space global illumination, the trace (half resolution). Each half-resolution
// pixel stands for the full-resolution pixel 2q. From its view-space position P and normal N,
// `directions` screen-space directions (rotated per pixel with a 4x4 pattern and per frame) are
// walked for `steps` samples out to `radius` world units. Along a direction, u = dot(N, w) (w the
// unit vector from P to the sample's surface) is the sine of its elevation above P's tangent
// plane; a sample above the horizon so far (u > h) is visible from P, and lights it with its lit
// colour L times the cosine-weighted solid angle it uncovers, u^2 - h^2, when it faces P. The sum
// over directions / directions is the diffuse indirect light a white surface reflects (a full
// hemisphere of radiance L gives L). Output: rgb that light, a = |P| (distance from the camera;
// -1 for sky pixels), which the temporal and apply passes use to weigh neighbours and history.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2) uniform sampler2D normal_tex_in;
layout(set = 0, binding = 3) uniform sampler2D color_tex; // the lit HDR image
layout(set = 0, binding = 4, rgba16f) uniform writeonly image2D raw_out;
layout(push_constant) uniform Push {
    uvec2 full;
    uvec2 half_size;
    uint directions;
    uint steps;
    float radius;
    uint frame_index;
} pc;

vec3 view_pos(vec2 uv, float depth, mat4 inv_proj) {
    vec4 ndc = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, depth, 1.0); // viewports are y-flipped
    vec4 v = inv_proj * ndc;
    return v.xyz / v.w;
}

void main() {
    ivec2 q = ivec2(gl_GlobalInvocationID.xy);
    if (q.x >= int(pc.half_size.x) || q.y >= int(pc.half_size.y))
        return;
    ivec2 fmax = ivec2(pc.full) - 1;
    ivec2 p = min(q * 2, fmax);
    float d = texelFetch(depth_tex, p, 0).r;
    if (d >= 1.0) {
        imageStore(raw_out, q, vec4(0.0, 0.0, 0.0, -1.0));
        return;
    }
    mat4 inv_proj = inverse(frame.proj);
    vec2 fsize = vec2(pc.full);
    vec3 P = view_pos((vec2(p) + 0.5) / fsize, d, inv_proj);
    mat3 to_view = mat3(frame.view);
    vec3 N = normalize(to_view * texelFetch(normal_tex_in, p, 0).xyz);
    bool ortho = frame.proj[3][3] == 1.0;
    float px_per_unit = frame.proj[1][1] * 0.5 * fsize.y / (ortho ? 1.0 : max(-P.z, 1e-3));
    float reach = clamp(pc.radius * px_per_unit, 2.0, 0.5 * fsize.y);
    uint cell = uint(q.x & 3) + 4u * uint(q.y & 3);
    float f = float(pc.frame_index & 63u);
    float ja = fract((float((cell * 7u) & 15u) + 0.5) / 16.0 + f * 0.618034);
    float jd = fract(float(cell) * 0.618034 + f * 0.381966);
    vec3 sum = vec3(0.0);
    for (uint i = 0u; i < pc.directions; i++) {
        float phi = 6.2831853 * (float(i) + ja) / float(pc.directions);
        vec2 dir = vec2(cos(phi), sin(phi));
        float h = 0.0; // the horizon so far: the tangent plane
        for (uint j = 0u; j < pc.steps; j++) {
            float t = (float(j) + jd) / float(pc.steps);
            vec2 sp = vec2(p) + 0.5 + dir * max(reach * t * t, float(j) + 1.0);
            if (any(lessThan(sp, vec2(0.0))) || any(greaterThanEqual(sp, fsize)))
                break;
            ivec2 si = ivec2(sp);
            float sd = texelFetch(depth_tex, si, 0).r;
            if (sd >= 1.0)
                continue; // the sky: its light is the lit pass's image-based light
            vec3 v = view_pos((vec2(si) + 0.5) / fsize, sd, inv_proj) - P;
            float dist = length(v);
            if (dist < 1e-4 || dist > pc.radius)
                continue;
            vec3 w = v / dist;
            float u = dot(N, w);
            if (u <= h)
                continue;
            vec3 Ns = normalize(to_view * texelFetch(normal_tex_in, si, 0).xyz);
            float facing = smoothstep(0.0, 0.2, dot(Ns, -w));
            float fall = 1.0 - smoothstep(0.6 * pc.radius, pc.radius, dist);
            vec3 L = texelFetch(color_tex, si, 0).rgb;
            L /= 1.0 + max(max(L.r, L.g), L.b) / 32.0; // keep lone highlights from flaring
            sum += L * ((u * u - h * h) * facing * fall);
            h = u;
        }
    }
    imageStore(raw_out, q, vec4(sum / float(pc.directions), length(P)));
}
