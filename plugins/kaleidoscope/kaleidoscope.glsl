layout(set = 0, binding = 2) uniform Settings {
    float segments;
    float angle;
    float zoom;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float aspect = rill_frame.size.x * rill_frame.inv_size.y;
    vec2 c = (uv - 0.5) * vec2(aspect, 1.0);
    float wedge = 6.2831853 / floor(settings.segments);
    float a = mod(atan(c.y, c.x) + settings.angle, wedge);
    a = min(a, wedge - a); // mirror inside the wedge
    vec2 q = vec2(cos(a), sin(a)) * length(c) / settings.zoom / vec2(aspect, 1.0) + 0.5;
    return vec4(rill_sample(clamp(q, vec2(0.0), vec2(1.0))).rgb, 1.0);
}
