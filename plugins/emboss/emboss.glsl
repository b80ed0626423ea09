layout(set = 0, binding = 2) uniform Settings {
    float strength;
    float angle;
    float amount;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 o = vec2(cos(settings.angle), sin(settings.angle)) * rill_frame.inv_size;
    float a = dot(rill_sample(uv - o).rgb, vec3(0.2126, 0.7152, 0.0722));
    float b = dot(rill_sample(uv + o).rgb, vec3(0.2126, 0.7152, 0.0722));
    float g = clamp(0.5 + (a - b) * settings.strength, 0.0, 1.0);
    return vec4(mix(color.rgb, vec3(g), settings.amount), 1.0);
}
