layout(set = 0, binding = 2) uniform Settings {
    float strength;
    float zoom;
} settings;

// An output radius r (1 at the corners) looks along the angle r * strength of an equidistant
// fisheye; the source is a perspective image, whose radius for that angle grows as its tangent.
vec4 rill_effect(vec2 uv, vec4 color) {
    float aspect = rill_frame.size.x * rill_frame.inv_size.y;
    vec2 c = (uv - 0.5) * vec2(aspect, 1.0);
    float corner = 0.5 * sqrt(aspect * aspect + 1.0);
    float r = length(c) / corner / settings.zoom;
    float s = settings.strength;
    float src = tan(min(r * s, 1.55)) / tan(s);
    vec2 q = c * (src / max(r, 1e-5)) / settings.zoom / vec2(aspect, 1.0) + 0.5;
    if (any(lessThan(q, vec2(0.0))) || any(greaterThan(q, vec2(1.0)))) {
        return vec4(0.0, 0.0, 0.0, 1.0);
    }
    return vec4(rill_sample(q).rgb, 1.0);
}
