layout(set = 0, binding = 2) uniform Settings {
    vec4 shadows;
    vec4 highlights;
    float strength;
    float contrast;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float l = clamp(dot(color.rgb, vec3(0.2126, 0.7152, 0.0722)), 0.0, 1.0);
    l = clamp((l - 0.5) * settings.contrast + 0.5, 0.0, 1.0);
    vec3 c = mix(settings.shadows.rgb, settings.highlights.rgb, l);
    return vec4(mix(color.rgb, c, settings.strength), 1.0);
}
