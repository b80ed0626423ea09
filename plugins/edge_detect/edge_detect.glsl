layout(set = 0, binding = 2) uniform Settings {
    vec4 line_color;
    vec4 paper;
    float threshold;
    float paper_amount;
} settings;

float edge_lum(vec2 uv, int x, int y) {
    return dot(rill_sample(uv + vec2(x, y) * rill_frame.inv_size).rgb, vec3(0.2126, 0.7152, 0.0722));
}

vec4 rill_effect(vec2 uv, vec4 color) {
    float gx = edge_lum(uv, 1, -1) + 2.0 * edge_lum(uv, 1, 0) + edge_lum(uv, 1, 1) -
               edge_lum(uv, -1, -1) - 2.0 * edge_lum(uv, -1, 0) - edge_lum(uv, -1, 1);
    float gy = edge_lum(uv, -1, 1) + 2.0 * edge_lum(uv, 0, 1) + edge_lum(uv, 1, 1) -
               edge_lum(uv, -1, -1) - 2.0 * edge_lum(uv, 0, -1) - edge_lum(uv, 1, -1);
    float g = length(vec2(gx, gy));
    float line = smoothstep(settings.threshold, settings.threshold * 2.0 + 0.02, g);
    vec3 base = mix(color.rgb, settings.paper.rgb, settings.paper_amount);
    return vec4(mix(base, settings.line_color.rgb, line * settings.line_color.a), 1.0);
}
