layout(set = 0, binding = 2) uniform Settings {
    float strength;
    float radius;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 o = rill_frame.inv_size * settings.radius;
    vec3 blur = (rill_sample(uv + vec2(o.x, 0.0)).rgb + rill_sample(uv - vec2(o.x, 0.0)).rgb +
                 rill_sample(uv + vec2(0.0, o.y)).rgb + rill_sample(uv - vec2(0.0, o.y)).rgb) * 0.25;
    return vec4(clamp(color.rgb + settings.strength * (color.rgb - blur), 0.0, 1.0), 1.0);
}
