layout(set = 0, binding = 2) uniform Settings {
    float levels;
    float gamma;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float n = settings.levels - 1.0;
    vec3 c = pow(clamp(color.rgb, 0.0, 1.0), vec3(settings.gamma));
    c = floor(c * n + 0.5) / n;
    return vec4(pow(c, vec3(1.0 / settings.gamma)), 1.0);
}
