layout(set = 0, binding = 2) uniform Settings {
    float k1;
    float k2;
    float zoom;
    float dispersion;
} settings;

vec2 lens_warp(vec2 uv, float k) {
    vec2 c = (uv - 0.5) * 2.0;
    float aspect = rill_frame.size.x * rill_frame.inv_size.y;
    vec2 a = c * vec2(aspect, 1.0) / sqrt(aspect * aspect + 1.0); // corner radius 1
    float r2 = dot(a, a);
    float f = 1.0 + k * settings.k1 * r2 + settings.k2 * r2 * r2;
    return c * f / settings.zoom * 0.5 + 0.5;
}

float lens_inside(vec2 q) {
    return all(greaterThanEqual(q, vec2(0.0))) && all(lessThanEqual(q, vec2(1.0))) ? 1.0 : 0.0;
}

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 qr = lens_warp(uv, 1.0 + settings.dispersion);
    vec2 qg = lens_warp(uv, 1.0);
    vec2 qb = lens_warp(uv, 1.0 - settings.dispersion);
    vec3 c = vec3(rill_sample(qr).r * lens_inside(qr), rill_sample(qg).g * lens_inside(qg),
                  rill_sample(qb).b * lens_inside(qb));
    return vec4(c, 1.0);
}
