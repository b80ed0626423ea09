layout(set = 0, binding = 2) uniform Settings {
    vec4 water_color;
    float wave_strength;
    float wave_frequency;
    float visibility;
    float caustics;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float t = rill_frame.time;
    float f = settings.wave_frequency;
    vec2 q = uv + settings.wave_strength * vec2(sin(uv.y * f + t * 1.7), cos(uv.x * f * 0.8 + t * 1.3));
    q = clamp(q, vec2(0.0), vec2(1.0));
    vec3 c = rill_sample(q).rgb * vec3(0.7, 0.95, 1.0);
    float d = rill_depth(q) < 1.0 ? rill_view_depth(q) : settings.visibility * 4.0;
    float murk = 1.0 - exp(-3.0 * d / settings.visibility);
    vec2 p = q * vec2(rill_frame.size.x * rill_frame.inv_size.y, 1.0) * 9.0;
    float ripple = sin(p.x + sin(p.y * 1.3 + t) * 1.5) * sin(p.y * 0.9 + sin(p.x * 1.1 - t) * 1.5);
    c += settings.caustics * max(ripple, 0.0) * max(ripple, 0.0) * (1.0 - murk);
    return vec4(min(mix(c, settings.water_color.rgb, murk), vec3(1.0)), 1.0);
}
