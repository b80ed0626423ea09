// decal_atlas.glsl: sampling the decal atlas (post_decal_atlas.c), shared by decal.comp and the
// lit passes' transparent walk (pbr_decals.glsl). The atlas is one RGBA8 2D-array image whose
// layers are DECAL_ATLAS_SIZE texels square, each map in a square power-of-two cell aligned to
// its size, with its own mip chain down to one texel; colour (albedo) maps are stored sRGB-encoded
// and sampled through the atlas's sRGB view, which decodes texels before filtering, so blends
// between texels and levels are taken in linear light, as from the map's own sRGB texture.
// Normal and roughness maps are sampled through the plain (UNORM) view. A decal names a map by a
// code (0: none):
//   bits 0..5 x, 6..11 y (units of 16 texels), 12..15 log2 of the cell's size, 16..23 layer,
//   bit 31 set.
#define DECAL_ATLAS_SIZE 1024.0
#define DECAL_ATLAS_UNIT 16.0

// The map `code` at uv (0..1, clamped to the edge) with the uv's gradients gx, gy (per pixel):
// the level is picked from the gradients in the cell's texels, at most the cell's one-texel
// level, and uv is kept half a texel (of the coarser of the two levels blended) inside the cell,
// so neither bilinear nor trilinear filtering reads a neighbouring map.
vec4 decal_atlas_sample(sampler2DArray atlas, uint code, vec2 uv, vec2 gx, vec2 gy) {
    float lg = float((code >> 12) & 15u), size = exp2(lg);
    vec2 origin = vec2(float(code & 63u), float((code >> 6) & 63u)) * DECAL_ATLAS_UNIT;
    vec2 dx = gx * size, dy = gy * size;
    float lod = clamp(0.5 * log2(max(max(dot(dx, dx), dot(dy, dy)), 1e-12)), 0.0, lg);
    float margin = 0.5 * exp2(ceil(lod));
    vec2 p = clamp(clamp(uv, 0.0, 1.0) * size, vec2(margin), vec2(size - margin));
    return textureLod(atlas, vec3((origin + p) / DECAL_ATLAS_SIZE, float((code >> 16) & 255u)), lod);
}
