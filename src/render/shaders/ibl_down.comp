#version 450
// ibl_down.comp: one mip level of the IBL source cube from the level above (the mean of each
// 2 x 2 block, every face at once: z = face).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2DArray src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2DArray dst;
layout(push_constant) uniform Push { uint size; } pc; // of dst

void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID.xyz);
    if (p.x >= int(pc.size) || p.y >= int(pc.size))
        return;
    ivec3 s = ivec3(p.xy * 2, p.z);
    vec4 c = imageLoad(src, s) + imageLoad(src, s + ivec3(1, 0, 0)) +
             imageLoad(src, s + ivec3(0, 1, 0)) + imageLoad(src, s + ivec3(1, 1, 0));
    imageStore(dst, p, c * 0.25);
}
