layout(set = 0, binding = 2) uniform Settings {
    vec4 ink;
    float bands;
    float saturation;
    float edge_threshold;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    const vec3 lum = vec3(0.2126, 0.7152, 0.0722);
    float l = max(dot(color.rgb, lum), 1e-4);
    float q = (floor(l * settings.bands) + 0.5) / settings.bands;
    vec3 c = color.rgb * (q / l);
    c = max(mix(vec3(dot(c, lum)), c, settings.saturation), 0.0);
    float edge = 0.0;
    if (rill_depth(uv) < 1.0) {
        vec3 n = rill_normal(uv);
        vec2 o = rill_frame.inv_size;
        vec2 offs[4] = vec2[](vec2(o.x, 0.0), vec2(-o.x, 0.0), vec2(0.0, o.y), vec2(0.0, -o.y));
        for (int i = 0; i < 4; i++) {
            vec2 p = uv + offs[i];
            bool sky = rill_depth(p) >= 1.0;
            if (sky || 1.0 - dot(n, rill_normal(p)) > settings.edge_threshold) {
                edge = 1.0;
            }
        }
    }
    return vec4(mix(min(c, vec3(1.0)), settings.ink.rgb, edge * settings.ink.a), 1.0);
}
