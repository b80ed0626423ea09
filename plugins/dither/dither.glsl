layout(set = 0, binding = 2) uniform Settings {
    float levels;
    float scale;
    float monochrome;
} settings;

// The 8x8 Bayer threshold of a pixel: its bits interleaved (x xor y, y) and reversed.
float dither_threshold(uvec2 p) {
    uint x = p.x & 7u, y = p.y & 7u, xy = x ^ y, v = 0u;
    for (uint b = 0u; b < 3u; b++) {
        v = (v << 2u) | (((xy >> b) & 1u) << 1u) | ((y >> b) & 1u);
    }
    return (float(v) + 0.5) / 64.0;
}

vec4 rill_effect(vec2 uv, vec4 color) {
    float t = dither_threshold(uvec2(uv * rill_frame.size / settings.scale));
    vec3 c = mix(color.rgb, vec3(dot(color.rgb, vec3(0.2126, 0.7152, 0.0722))), settings.monochrome);
    float n = settings.levels - 1.0;
    return vec4(clamp(floor(c * n + t) / n, 0.0, 1.0), 1.0);
}
