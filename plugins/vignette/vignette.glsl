layout(set = 0, binding = 2) uniform Settings {
    float intensity;
    float radius;
    float softness;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 d = (uv - 0.5) * vec2(rill_frame.size.x * rill_frame.inv_size.y, 1.0);
    float v = smoothstep(settings.radius, settings.radius - settings.softness, length(d) * 1.41421);
    return vec4(color.rgb * mix(1.0 - settings.intensity, 1.0, v), 1.0);
}
