#version 450
// tonemap.comp: HDR -> display. Exposure, then ACES (Hill's fitted RRT+ODT) or AgX (log2 encoding
// with a polynomial sigmoid), then the sRGB transfer function into an 8-bit storage image.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D hdr;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D ldr;
layout(set = 0, binding = 2) uniform sampler2D normals; // prepass outputs, for debug views
layout(set = 0, binding = 3) uniform sampler2D motion;
layout(set = 0, binding = 4) uniform sampler2D bloom; // top of the bloom pyramid (black when off)
layout(set = 0, binding = 5) readonly buffer Exposure { float ev; float initialized; } auto_exposure;
layout(push_constant) uniform Push {
    uvec2 size;
    float exposure; // linear multiplier (2^ev)
    uint op;        // 1 ACES, 2 AgX, 3 none
    uvec2 src_size; // size of hdr: smaller than size when render_scale < 1
    uint view;      // 0 shaded, 1 world normals, 2 motion vectors (x100, 0.5 = still)
    float bloom_intensity;
    uint use_auto_exposure;
    uint off_x, off_y; // the output rectangle written: one camera view (offset + extent)
    uint ext_w, ext_h;
    uint passthrough; // 1: mixed passthrough, the output keeps the scene colour's alpha
} pc;

vec3 aces_fitted(vec3 c) {
    const mat3 in_m = mat3(0.59719, 0.07600, 0.02840, 0.35458, 0.90834, 0.13383, 0.04823, 0.01566, 0.83777);
    const mat3 out_m = mat3(1.60475, -0.10208, -0.00327, -0.53108, 1.10813, -0.07276, -0.07367, -0.00605, 1.07602);
    c = in_m * c;
    vec3 a = c * (c + 0.0245786) - 0.000090537;
    vec3 b = c * (0.983729 * c + 0.4329510) + 0.238081;
    return clamp(out_m * (a / b), 0.0, 1.0);
}

vec3 agx(vec3 c) {
    const mat3 inset = mat3(0.842479062253094, 0.0423282422610123, 0.0423756549057051,
                            0.0784335999999992, 0.878468636469772, 0.0784336,
                            0.0792237451477643, 0.0791661274605434, 0.879142973793104);
    const mat3 outset = mat3(1.19687900512017, -0.0528968517574562, -0.0529716355144438,
                             -0.0980208811401368, 1.15190312990417, -0.0980434501171241,
                             -0.0990297440797205, -0.0989611768448433, 1.15107367264116);
    const float min_ev = -12.47393, max_ev = 4.026069;
    c = inset * max(c, vec3(1e-10));
    c = clamp(log2(c), min_ev, max_ev);
    c = (c - min_ev) / (max_ev - min_ev);
    vec3 x2 = c * c, x4 = x2 * x2;
    c = 15.5 * x4 * x2 - 40.14 * x4 * c + 31.96 * x4 - 6.868 * x2 * c + 0.4298 * x2 + 0.1191 * c - 0.00232;
    c = outset * c;
    return clamp(pow(max(c, vec3(0.0)), vec3(2.2)), 0.0, 1.0);
}

vec3 srgb_encode(vec3 c) {
    vec3 lo = c * 12.92;
    vec3 hi = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
    return mix(hi, lo, lessThanEqual(c, vec3(0.0031308)));
}

void main() {
    if (gl_GlobalInvocationID.x >= pc.ext_w || gl_GlobalInvocationID.y >= pc.ext_h)
        return;
    uvec2 p = gl_GlobalInvocationID.xy + uvec2(pc.off_x, pc.off_y);
    if (p.x >= pc.size.x || p.y >= pc.size.y)
        return;
    if (pc.op == 0u) { // fill: pixels no camera view covers
        imageStore(ldr, ivec2(p), vec4(0.0, 0.0, 0.0, 1.0));
        return;
    }
    vec4 src;
    if (pc.src_size == pc.size)
        src = texelFetch(hdr, ivec2(p), 0);
    else
        src = texture(hdr, (vec2(p) + 0.5) / vec2(pc.size)); // bilinear upscale
    vec3 c = src.rgb;
    // Mixed passthrough: 1 where geometry drew, a ghost's opacity on its pixels, 0 elsewhere.
    float alpha = pc.passthrough == 1u ? clamp(src.a, 0.0, 1.0) : 1.0;
    if (pc.bloom_intensity > 0.0)
        c += pc.bloom_intensity * texture(bloom, (vec2(p) + 0.5) / vec2(pc.size)).rgb;
    c *= pc.exposure;
    if (pc.use_auto_exposure == 1u)
        c *= exp2(auto_exposure.ev);
    if (pc.op == 2u)
        c = agx(c);
    else if (pc.op == 3u)
        c = clamp(c, 0.0, 1.0);
    else
        c = aces_fitted(c);
    if (pc.view != 0u) {
        vec2 uv = (vec2(p) + 0.5) / vec2(pc.size);
        if (pc.view == 1u)
            c = texture(normals, uv).xyz * 0.5 + 0.5;
        else
            c = vec3(clamp(texture(motion, uv).xy * 100.0 + 0.5, 0.0, 1.0), 0.5);
        imageStore(ldr, ivec2(p), vec4(c, 1.0)); // raw values, no transfer function
        return;
    }
    imageStore(ldr, ivec2(p), vec4(srgb_encode(c), alpha));
}
