layout(set = 0, binding = 2) uniform Settings {
    float strength;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    return vec4(mix(color.rgb, 1.0 - clamp(color.rgb, 0.0, 1.0), settings.strength), 1.0);
}
