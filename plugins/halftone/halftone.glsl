layout(set = 0, binding = 2) uniform Settings {
    vec4 paper;
    float cell_size;
    float angle;
    float strength;
    float ink_saturation;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float s = sin(settings.angle), c = cos(settings.angle);
    mat2 rot = mat2(c, s, -s, c);
    vec2 q = rot * (uv * rill_frame.size) / settings.cell_size;
    vec2 centre = floor(q) + 0.5;
    vec2 centre_uv = (transpose(rot) * (centre * settings.cell_size)) * rill_frame.inv_size;
    vec3 cell = rill_sample(clamp(centre_uv, vec2(0.0), vec2(1.0))).rgb;
    float dark = 1.0 - dot(cell, vec3(0.2126, 0.7152, 0.0722));
    float radius = sqrt(clamp(dark, 0.0, 1.0)) * 0.72;
    float aa = 1.5 / settings.cell_size;
    float ink = 1.0 - smoothstep(radius - aa, radius + aa, length(q - centre));
    vec3 ink_colour = cell * settings.ink_saturation * (1.0 - 0.5 * dark);
    vec3 dots = mix(settings.paper.rgb, ink_colour, ink);
    return vec4(mix(color.rgb, dots, settings.strength), 1.0);
}
