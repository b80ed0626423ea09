layout(set = 0, binding = 2) uniform Settings {
    vec4 ink;
    vec4 background;
    float cell_size;
    float colored;
} settings;

// Nine 5x5 characters (bit row * 5 + column), from empty to dense: space . : - + = * # @.
const uint ascii_glyphs[9] = uint[](0u, 4194304u, 131200u, 14336u, 145536u, 459200u, 4897444u, 11512810u, 15724526u);

vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 px = uv * rill_frame.size;
    vec2 cell = floor(px / settings.cell_size);
    vec3 c = rill_sample((cell + 0.5) * settings.cell_size * rill_frame.inv_size).rgb;
    float l = clamp(dot(c, vec3(0.2126, 0.7152, 0.0722)), 0.0, 1.0);
    uint glyph = ascii_glyphs[min(uint(l * 9.0), 8u)];
    // The 5x5 grid inside the cell, a one-pixel-of-seven margin around it.
    ivec2 g = ivec2(floor((px / settings.cell_size - cell) * 7.0)) - 1;
    bool on = all(greaterThanEqual(g, ivec2(0))) && all(lessThan(g, ivec2(5))) &&
              ((glyph >> uint(g.y * 5 + g.x)) & 1u) != 0u;
    vec3 ink = mix(settings.ink.rgb, min(c * 1.4 + 0.1, vec3(1.0)), settings.colored);
    return vec4(on ? ink : settings.background.rgb, 1.0);
}
