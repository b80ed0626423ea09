#version 450
// ssgi_apply.comp: screen-space GI, composite (full resolution). The accumulated half-resolution
// light is upsampled with bilinear weights times distance similarity (the nearest texel when no
// neighbour matches), multiplied by an albedo estimate and the intensity and added to the lit
// image. The prepass holds no albedo, so the estimate is the lit colour's chromaticity (the lit
// colour over its largest channel): a red wall takes the red of a bounce, a white floor all of
// it. Metals reflect no diffuse light: the bounce is scaled by 1 - metalness (the prepass packs
// it in the normal image's alpha: round(roughness * 255) + 256 * round(metallic * 7)).
// indirect_only writes the indirect light alone (alpha kept).
// The voxel tiers add their specular cone (spec_tex, half resolution, upsampled with the same
// weights: rgb its light, a (1 - N.V)^5) times Schlick's reflectance with roughness (F0 =
// mix(0.04, albedo, metalness), the grazing term capped at 1 - roughness) and `specular`
// (intensity x specular_intensity; 0: no specular cone, spec_tex unread).
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D color_tex;
layout(set = 0, binding = 2) uniform sampler2D gi_tex;
layout(set = 0, binding = 3) uniform sampler2D depth_tex;
layout(set = 0, binding = 4) uniform sampler2D normal_tex_in; // alpha: packed roughness, metalness
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D out_img;
layout(set = 0, binding = 6) uniform sampler2D spec_tex;
layout(push_constant) uniform Push {
    uvec2 full;
    uvec2 half_size;
    float intensity;
    uint indirect_only;
    float specular;
} pc;

vec3 view_pos(vec2 uv, float depth, mat4 inv_proj) {
    vec4 ndc = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, depth, 1.0);
    vec4 v = inv_proj * ndc;
    return v.xyz / v.w;
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.full.x) || p.y >= int(pc.full.y))
        return;
    vec4 src = texelFetch(color_tex, p, 0);
    float d = texelFetch(depth_tex, p, 0).r;
    if (d >= 1.0) {
        imageStore(out_img, p, pc.indirect_only != 0u ? vec4(0.0, 0.0, 0.0, src.a) : src);
        return;
    }
    float key = length(view_pos((vec2(p) + 0.5) / vec2(pc.full), d, inverse(frame.proj)));
    ivec2 hmax = ivec2(pc.half_size) - 1;
    vec2 hp = vec2(p) * 0.5; // texel q's sample is full pixel 2q
    ivec2 b = ivec2(floor(hp));
    vec2 fr = hp - vec2(b);
    vec3 acc = vec3(0.0);
    vec4 sacc = vec4(0.0);
    float aw = 0.0;
    for (int k = 0; k < 4; k++) {
        ivec2 o = ivec2(k & 1, k >> 1);
        vec4 h = texelFetch(gi_tex, min(b + o, hmax), 0);
        if (h.a < 0.0)
            continue;
        float bw = (o.x == 1 ? fr.x : 1.0 - fr.x) * (o.y == 1 ? fr.y : 1.0 - fr.y) + 1e-3;
        float dw = max(0.0, 1.0 - abs(h.a - key) / max(key, 1e-3) * 10.0);
        acc += h.rgb * bw * dw;
        if (pc.specular > 0.0)
            sacc += texelFetch(spec_tex, min(b + o, hmax), 0) * (bw * dw);
        aw += bw * dw;
    }
    vec3 gi = vec3(0.0);
    vec4 spec = vec4(0.0);
    if (aw > 1e-4) {
        gi = acc / aw;
        spec = sacc / aw;
    } else {
        vec4 h = texelFetch(gi_tex, min(b, hmax), 0);
        gi = h.a < 0.0 ? vec3(0.0) : h.rgb;
        if (pc.specular > 0.0 && h.a >= 0.0)
            spec = texelFetch(spec_tex, min(b, hmax), 0);
    }
    float m = max(max(src.r, src.g), src.b);
    vec3 albedo = m > 1e-4 ? clamp(src.rgb / m, 0.0, 1.0) : vec3(1.0);
    float packed = texelFetch(normal_tex_in, p, 0).a;
    float mq = floor(packed / 256.0 + 1e-3);
    float metallic = clamp(mq / 7.0, 0.0, 1.0);
    vec3 ind = pc.intensity * (1.0 - metallic) * gi * albedo;
    if (pc.specular > 0.0) {
        float rough = clamp((packed - mq * 256.0) / 255.0, 0.0, 1.0);
        vec3 f0 = mix(vec3(0.04), albedo, metallic);
        vec3 fr = f0 + (max(vec3(1.0 - rough), f0) - f0) * clamp(spec.a, 0.0, 1.0);
        ind += pc.specular * fr * spec.rgb;
    }
    vec3 outc = pc.indirect_only != 0u ? ind : max(src.rgb + ind, vec3(0.0));
    imageStore(out_img, p, vec4(outc, src.a));
}
