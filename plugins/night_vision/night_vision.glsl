layout(set = 0, binding = 2) uniform Settings {
    vec4 tint;
    float gain;
    float noise;
    float eyepiece;
} settings;

float nv_hash(uvec3 v) {
    v = v * 1664525u + 1013904223u;
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v ^= v >> 16u;
    return float((v.x + v.y * v.z) & 0xffffu) / 65535.0;
}

vec4 rill_effect(vec2 uv, vec4 color) {
    float l = dot(color.rgb, vec3(0.2126, 0.7152, 0.0722)) * settings.gain;
    float n = nv_hash(uvec3(uvec2(uv * rill_frame.size), rill_frame.frame)) - 0.5;
    l = clamp(l + n * settings.noise, 0.0, 1.0);
    vec3 c = settings.tint.rgb * l + vec3(0.0, 0.04, 0.0);
    if (settings.eyepiece > 0.0) {
        vec2 d = (uv - 0.5) * vec2(rill_frame.size.x * rill_frame.inv_size.y, 1.0) * 2.0;
        c *= smoothstep(settings.eyepiece, settings.eyepiece - 0.12, length(d));
    }
    return vec4(min(c, vec3(1.0)), 1.0);
}
