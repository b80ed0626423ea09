#version 450
// overlay.vert: the stats overlay's text quads. Vertices come from a storage buffer of
// stb_easy_font vertices (x, y, z, packed RGBA8 color) in pixels, y down; an index buffer turns
// every four vertices into two triangles.
layout(set = 0, binding = 0, std430) readonly buffer Verts {
    vec4 verts[];
};
layout(push_constant) uniform Push {
    vec2 size;   // output size in pixels
    vec2 origin; // top-left corner of the text block in pixels
    float scale; // pixels per font unit
} pc;
layout(location = 0) out vec4 out_color;

void main() {
    vec4 v = verts[gl_VertexIndex];
    vec2 px = pc.origin + v.xy * pc.scale;
    // The renderer's viewport is flipped (y up in clip space), so pixel y runs downwards from +1.
    gl_Position = vec4(px.x / pc.size.x * 2.0 - 1.0, 1.0 - px.y / pc.size.y * 2.0, 0.0, 1.0);
    out_color = unpackUnorm4x8(floatBitsToUint(v.w));
}
