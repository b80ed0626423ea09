layout(set = 0, binding = 2) uniform Settings {
    vec4 color;
    float start;
    float end;
    float density;
    float sky;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float t;
    if (rill_depth(uv) >= 1.0) {
        t = settings.sky;
    } else {
        float d = rill_view_depth(uv);
        t = smoothstep(settings.start, max(settings.end, settings.start + 1e-3), d);
    }
    return vec4(mix(color.rgb, settings.color.rgb, t * settings.density), 1.0);
}
