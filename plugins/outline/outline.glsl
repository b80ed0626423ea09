layout(set = 0, binding = 2) uniform Settings {
    vec4 color;
    float thickness;
    float depth_threshold;
    float normal_threshold;
} settings;

// 1 where a neighbour `thickness` pixels away is much farther or nearer (relative to the nearer
// of the two) or, both on geometry, faces another way.
float outline_edge(vec2 uv) {
    vec2 o = rill_frame.inv_size * settings.thickness;
    float d = rill_view_depth(uv);
    bool geo = rill_depth(uv) < 1.0;
    vec3 n = rill_normal(uv);
    float edge = 0.0;
    vec2 offs[4] = vec2[](vec2(o.x, 0.0), vec2(-o.x, 0.0), vec2(0.0, o.y), vec2(0.0, -o.y));
    for (int i = 0; i < 4; i++) {
        vec2 q = uv + offs[i];
        float dq = rill_view_depth(q);
        if (abs(dq - d) / max(min(d, dq), 1e-4) > settings.depth_threshold) {
            edge = 1.0;
        }
        if (geo && rill_depth(q) < 1.0 && 1.0 - dot(n, rill_normal(q)) > settings.normal_threshold) {
            edge = 1.0;
        }
    }
    return edge;
}

vec4 rill_effect(vec2 uv, vec4 color) {
    float e = outline_edge(uv) * settings.color.a;
    return vec4(mix(color.rgb, settings.color.rgb, e), 1.0);
}
