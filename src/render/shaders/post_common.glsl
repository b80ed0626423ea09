// post_common.glsl: helpers of the screen-space filters (anti-aliasing, sharpening) that work on
// the tonemapped colour, which holds sRGB-encoded values in a UNORM image.

// Perceptual luma of display-encoded colour (Rec. 601 weights).
float luma(vec3 c) {
    return dot(c, vec3(0.299, 0.587, 0.114));
}

vec3 srgb_to_linear(vec3 c) {
    vec3 lo = c / 12.92;
    vec3 hi = pow((c + 0.055) / 1.055, vec3(2.4));
    return mix(hi, lo, lessThanEqual(c, vec3(0.04045)));
}

vec3 linear_to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    vec3 lo = c * 12.92;
    vec3 hi = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
    return mix(hi, lo, lessThanEqual(c, vec3(0.0031308)));
}

// texelFetch with the coordinate clamped to the image (edge pixels repeat).
vec4 fetch_clamped(sampler2D s, ivec2 p, uvec2 size) {
    return texelFetch(s, clamp(p, ivec2(0), ivec2(size) - 1), 0);
}
