layout(set = 0, binding = 2) uniform Settings {
    float strength;
    float contrast;
    float depth_weight;
    float range;
} settings;

vec3 thermal_palette(float t) {
    const vec3 stops[5] = vec3[](vec3(0.02, 0.0, 0.15), vec3(0.45, 0.0, 0.65), vec3(0.9, 0.1, 0.15),
                                 vec3(1.0, 0.7, 0.0), vec3(1.0, 1.0, 0.9));
    float x = clamp(t, 0.0, 1.0) * 4.0;
    int i = min(int(x), 3);
    return mix(stops[i], stops[i + 1], x - float(i));
}

vec4 rill_effect(vec2 uv, vec4 color) {
    float l = clamp(dot(color.rgb, vec3(0.2126, 0.7152, 0.0722)), 0.0, 1.0);
    float near = rill_depth(uv) < 1.0 ? 1.0 - clamp(rill_view_depth(uv) / settings.range, 0.0, 1.0) : 0.0;
    float heat = mix(l, near, settings.depth_weight);
    vec3 c = thermal_palette(pow(heat, settings.contrast));
    return vec4(mix(color.rgb, c, settings.strength), 1.0);
}
