layout(set = 0, binding = 2) uniform Settings {
    float strength;
    float frequency;
    float speed;
    float start;
    float end;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float d = rill_depth(uv) < 1.0 ? rill_view_depth(uv) : settings.end;
    float amount = smoothstep(settings.start, max(settings.end, settings.start + 1e-3), d);
    float t = rill_frame.time * settings.speed + 1.0;
    float f = settings.frequency;
    vec2 o = vec2(sin(uv.y * f + t + sin(uv.x * f * 0.37 + t * 0.5) * 2.0),
                  cos(uv.x * f * 0.6 - t * 0.8)) * settings.strength * amount;
    return vec4(rill_sample(clamp(uv + o, vec2(0.0), vec2(1.0))).rgb, 1.0);
}
