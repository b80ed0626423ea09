layout(set = 0, binding = 2) uniform Settings {
    float strength;
    float block_size;
    float speed;
    float color_split;
} settings;

float glitch_hash(vec2 p) {
    p = fract(p * vec2(443.897, 441.423));
    p += dot(p, p.yx + 19.19);
    return fract((p.x + p.y) * p.x);
}

vec4 rill_effect(vec2 uv, vec4 color) {
    float t = floor(rill_frame.time * settings.speed) + 1.0;
    vec2 px = uv * rill_frame.size;
    float row = floor(px.y / settings.block_size);
    vec2 block = floor(px / (settings.block_size * vec2(4.0, 1.0)));
    float torn = step(1.0 - 0.4 * settings.strength, glitch_hash(vec2(row, t)));
    float moved = step(1.0 - 0.15 * settings.strength, glitch_hash(block + t * 3.7));
    float shift = (torn * (glitch_hash(vec2(t, row)) - 0.5) * 0.25 + moved * 0.04) * settings.strength;
    vec2 q = vec2(fract(uv.x + shift), uv.y);
    vec2 split = vec2(settings.color_split * rill_frame.inv_size.x * max(torn, moved), 0.0);
    vec3 c = vec3(rill_sample(q + split).r, rill_sample(q).g, rill_sample(q - split).b);
    if (moved > 0.0 && glitch_hash(block + t) > 0.5) {
        c = c.gbr; // a block with its channels swapped
    }
    return vec4(c, 1.0);
}
