layout(set = 0, binding = 2) uniform Settings {
    float focus_distance;
    float focus_range;
    float max_blur;
    float saturation;
} settings;

float tilt_blur(vec2 uv) {
    float d = rill_view_depth(uv);
    float off = max(abs(d - settings.focus_distance) - 0.5 * settings.focus_range, 0.0);
    return settings.max_blur * clamp(off / settings.focus_distance, 0.0, 1.0);
}

vec4 rill_effect(vec2 uv, vec4 color) {
    float radius = tilt_blur(uv);
    vec3 sum = color.rgb;
    float weight = 1.0;
    // 24 taps on a golden-angle spiral; a sharper (nearer the focus) tap counts less, so blur
    // does not bleed sharp objects over their background.
    for (int i = 1; i <= 24; i++) {
        float a = float(i) * 2.39996;
        vec2 o = vec2(cos(a), sin(a)) * radius * sqrt(float(i) / 24.0) * rill_frame.inv_size;
        float w = clamp(tilt_blur(uv + o) / max(radius, 1e-3), 0.25, 1.0);
        sum += rill_sample(uv + o).rgb * w;
        weight += w;
    }
    vec3 c = sum / weight;
    c = max(mix(vec3(dot(c, vec3(0.2126, 0.7152, 0.0722))), c, settings.saturation), 0.0);
    return vec4(min(c, vec3(1.0)), 1.0);
}
