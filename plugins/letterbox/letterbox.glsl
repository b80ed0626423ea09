layout(set = 0, binding = 2) uniform Settings {
    vec4 color;
    float aspect;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float image = rill_frame.size.x * rill_frame.inv_size.y;
    vec2 half_visible = image > settings.aspect ? vec2(0.5 * settings.aspect / image, 0.5)
                                                : vec2(0.5, 0.5 * image / settings.aspect);
    bool bar = any(greaterThan(abs(uv - 0.5), half_visible));
    return vec4(bar ? settings.color.rgb : color.rgb, 1.0);
}
