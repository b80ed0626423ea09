// ocean_common.glsl: what the Water shaders share (ocean.c, ocean_draw.c): the block
// (rill__ocean_block), the workspace layout and complex helpers.

struct Ocean {
    mat4 water_from_world;
    vec4 tiles;   // xyz each cascade's tile (m), w cascades
    vec4 depth;   // rgb depth colour, w clarity (m)
    vec4 scatter; // rgb tint of the scene through the water, w foam
    vec4 wind;    // xy direction (unit, local x z), z speed (m/s), w fetch (m)
    vec4 sim;     // x amplitude, y choppiness, z grid size, w time (s)
    vec4 extent;  // xy half extent (m), z 1 when bounded
    vec4 mode;    // x rill_render_mode (0 normal, 2 wireframe, 3 ghost), y opacity
};

const float OCEAN_PI = 3.14159265359;

// The workspace: per cascade two fields of size x size vec4 (each vec4 two complex numbers).
uint ocean_index(uint cascade, uint field, uint x, uint y, uint size) {
    return ((cascade * 2u + field) * size + y) * size + x;
}

// a * b for complex a and the two complex numbers in b.
vec4 cmul2(vec2 a, vec4 b) {
    return vec4(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x, a.x * b.z - a.y * b.w,
                a.x * b.w + a.y * b.z);
}
vec2 cmul(vec2 a, vec2 b) {
    return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
// i * z
vec2 ci(vec2 z) {
    return vec2(-z.y, z.x);
}
