// gi_voxel_common.glsl: reading the voxel radiance clipmap (gi_voxel.h): four cascades of 64^3
// texels (0.5 * 2^c metres a voxel) with mips, addressed toroidally: world point p of cascade c
// is at uvw = p / (64 * size_c) with REPEAT wrapping. Each texel holds radiance premultiplied by
// opacity (rgb) and opacity (a).
layout(set = 0, binding = 4) uniform sampler3D vox0;
layout(set = 0, binding = 5) uniform sampler3D vox1;
layout(set = 0, binding = 6) uniform sampler3D vox2;
layout(set = 0, binding = 7) uniform sampler3D vox3;

const float VOX_RES = 64.0;
const float VOX_MIPS = 4.0; // the last mip level

// Whether world point p lies inside cascade c (origin: its low corner in metres, size: metres a
// voxel) with `margin` voxels to spare.
bool vox_inside(vec3 p, vec4 origin, float margin) {
    vec3 lo = origin.xyz + origin.w * margin;
    vec3 hi = origin.xyz + origin.w * (VOX_RES - margin);
    return all(greaterThanEqual(p, lo)) && all(lessThan(p, hi));
}

vec4 vox_fetch(int c, vec3 p, float size, float lod) {
    vec3 uvw = p / (size * VOX_RES);
    if (c == 0)
        return textureLod(vox0, uvw, lod);
    if (c == 1)
        return textureLod(vox1, uvw, lod);
    if (c == 2)
        return textureLod(vox2, uvw, lod);
    return textureLod(vox3, uvw, lod);
}

// The clipmap at p for a footprint of `diameter` metres: the finest cascade that holds p (two
// voxels from its edge) and whose voxels, at some mip, are that big; a = -1 outside them all.
vec4 vox_sample(vec3 p, float diameter, vec4 origins[4]) {
    float lod = log2(max(diameter / origins[0].w, 1.0));
    for (int c = 0; c < 4; c++) {
        if (float(c) + VOX_MIPS < lod && c < 3)
            continue; // too fine even at its last mip
        if (!vox_inside(p, origins[c], 2.0))
            continue;
        float m = clamp(lod - float(c), 0.0, VOX_MIPS);
        return vox_fetch(c, p, origins[c].w, m);
    }
    return vec4(0.0, 0.0, 0.0, -1.0);
}
