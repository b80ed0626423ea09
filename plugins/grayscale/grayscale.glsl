layout(set = 0, binding = 2) uniform Settings {
    float strength;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    return vec4(mix(color.rgb, vec3(dot(color.rgb, vec3(0.2126, 0.7152, 0.0722))), settings.strength), 1.0);
}
