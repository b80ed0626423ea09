layout(set = 0, binding = 2) uniform Settings {
    float intensity;
    uint animated;
} settings;

float grain_hash(uvec3 v) {
    v = v * 1664525u + 1013904223u;
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v ^= v >> 16u;
    v.x += v.y * v.z;
    return float(v.x & 0xffffu) / 65535.0;
}

vec4 rill_effect(vec2 uv, vec4 color) {
    uint seed = settings.animated != 0u ? rill_frame.frame : 0u;
    float n = grain_hash(uvec3(uvec2(uv * rill_frame.size), seed)) - 0.5;
    return vec4(clamp(color.rgb + n * settings.intensity, 0.0, 1.0), 1.0);
}
