layout(set = 0, binding = 2) uniform Settings {
    float curvature;
    float scanlines;
    float line_count;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 c = uv * 2.0 - 1.0;
    c *= 1.0 + settings.curvature * dot(c, c);
    vec2 warped = c * 0.5 + 0.5;
    if (any(lessThan(warped, vec2(0.0))) || any(greaterThan(warped, vec2(1.0)))) {
        return vec4(0.0, 0.0, 0.0, 1.0);
    }
    vec3 rgb = rill_sample(warped).rgb;
    float line = 0.5 + 0.5 * cos(warped.y * settings.line_count * 6.2831853);
    return vec4(rgb * (1.0 - settings.scanlines * line), 1.0);
}
