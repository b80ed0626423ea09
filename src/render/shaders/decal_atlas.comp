#version 450
// decal_atlas.comp: one level of one map's cell in the decal atlas (post_decal_atlas.c), sampled
// from the map's own texture (any format the renderer loads: RGBA8, BC1/BC5/BC7, sRGB or not) at
// the level that matches the cell's size there; colour maps are written sRGB-encoded
// (decal_atlas.glsl decodes them after filtering).
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2DArray dst; // one level

layout(push_constant) uniform Push {
    ivec2 origin; // the cell's corner at this level (texels)
    uint size;    // the cell's size at this level (texels)
    uint layer;
    float lod;    // the source's level whose size matches
    uint srgb;    // 1: encode to sRGB
} pc;

vec3 to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.size || p.y >= pc.size)
        return;
    vec4 c = textureLod(src, (vec2(p) + 0.5) / float(pc.size), pc.lod);
    if (pc.srgb != 0u)
        c.rgb = to_srgb(c.rgb);
    imageStore(dst, ivec3(pc.origin + ivec2(p), int(pc.layer)), c);
}
