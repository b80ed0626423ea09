#version 450
// gi_voxel_mips.comp: one mip level of a voxel cascade (gi_voxel.h) from the level above: each
// texel is the mean of the 2 x 2 x 2 it covers (radiance premultiplied by opacity, so empty
// texels thin it out). Texel addresses are toroidal at every level (64 is a power of two).
layout(set = 0, binding = 0, rgba16f) uniform readonly image3D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image3D dst;
layout(push_constant) uniform Push {
    uint size; // texels per side of dst
} pc;
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

void main() {
    ivec3 t = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(t, ivec3(int(pc.size)))))
        return;
    vec4 sum = vec4(0.0);
    for (int i = 0; i < 8; i++)
        sum += imageLoad(src, t * 2 + ivec3(i & 1, (i >> 1) & 1, i >> 2));
    imageStore(dst, t, sum * 0.125);
}
