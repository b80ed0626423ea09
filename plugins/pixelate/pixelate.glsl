layout(set = 0, binding = 2) uniform Settings {
    float pixel_size;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 cell = settings.pixel_size * rill_frame.inv_size;
    return vec4(rill_sample((floor(uv / cell) + 0.5) * cell).rgb, 1.0);
}
