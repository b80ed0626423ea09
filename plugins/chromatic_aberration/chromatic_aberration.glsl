layout(set = 0, binding = 2) uniform Settings {
    float amount;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 dir = (uv - 0.5) * 2.0 * settings.amount * rill_frame.inv_size;
    float r = rill_sample(uv + dir).r;
    float b = rill_sample(uv - dir).b;
    return vec4(r, color.g, b, 1.0);
}
