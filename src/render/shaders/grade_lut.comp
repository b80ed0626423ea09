#version 450
// grade_lut.comp: ColorGrading's display-referred part on the tonemapped (sRGB-encoded) colour:
// lift / gamma / gain, then the .cube table looked up trilinearly from its entries (red fastest,
// then green, then blue) after mapping the domain onto it. Alpha passes through.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(set = 0, binding = 2) readonly buffer Lut { float v[]; } lut;
layout(push_constant) uniform Push {
    uvec2 size;
    uint lut_size;
    uint has_lut;
    vec4 domain_min, domain_max;
    vec4 lift, inv_gamma, gain;
} pc;

vec3 entry(uvec3 i) {
    uint n = pc.lut_size;
    uint at = ((i.b * n + i.g) * n + i.r) * 3u;
    return vec3(lut.v[at], lut.v[at + 1u], lut.v[at + 2u]);
}

vec3 lookup(vec3 c) {
    vec3 t = clamp((c - pc.domain_min.rgb) / (pc.domain_max.rgb - pc.domain_min.rgb), 0.0, 1.0);
    t *= float(pc.lut_size - 1u);
    uvec3 i0 = min(uvec3(t), uvec3(pc.lut_size - 2u));
    vec3 f = t - vec3(i0);
    uvec3 i1 = i0 + 1u;
    vec3 c00 = mix(entry(uvec3(i0.r, i0.g, i0.b)), entry(uvec3(i1.r, i0.g, i0.b)), f.r);
    vec3 c10 = mix(entry(uvec3(i0.r, i1.g, i0.b)), entry(uvec3(i1.r, i1.g, i0.b)), f.r);
    vec3 c01 = mix(entry(uvec3(i0.r, i0.g, i1.b)), entry(uvec3(i1.r, i0.g, i1.b)), f.r);
    vec3 c11 = mix(entry(uvec3(i0.r, i1.g, i1.b)), entry(uvec3(i1.r, i1.g, i1.b)), f.r);
    return mix(mix(c00, c10, f.g), mix(c01, c11, f.g), f.b);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 s = texelFetch(src, p, 0);
    vec3 c = pc.gain.rgb * (s.rgb + pc.lift.rgb * (1.0 - s.rgb));
    c = pow(max(c, vec3(0.0)), pc.inv_gamma.rgb);
    if (pc.has_lut == 1u)
        c = lookup(c);
    imageStore(dst, p, vec4(clamp(c, 0.0, 1.0), s.a));
}
