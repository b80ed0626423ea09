#version 450
// gi_voxel_debug.comp: the VoxelCache debug view (GlobalIllumination.debug) of the voxel-cone GI
// tiers, full resolution: a ray from the camera through each pixel walks the voxel clipmap
// (gi_voxel_common.glsl) from 1.5 voxels of cascade 0 out (past the camera's own voxel), in the
// finest cascade holding each point at its own voxel size, and
// the pixel shows the light of the first voxel it meets (radiance as injected), black where it
// meets none (nearest texels: the voxels show as blocks). Alpha is kept from the source image.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1) uniform sampler2D color_tex;
#include "gi_voxel_common.glsl"
layout(set = 0, binding = 8, rgba16f) uniform writeonly image2D out_img;
layout(push_constant) uniform Push {
    vec4 origins[4]; // per cascade: xyz its low corner (metres), w metres a voxel
    uvec2 full;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.full.x) || p.y >= int(pc.full.y))
        return;
    vec2 uv = (vec2(p) + 0.5) / vec2(pc.full);
    vec4 ndc = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 1.0, 1.0);
    vec4 v = inverse(frame.proj) * ndc;
    vec3 dir = normalize(mat3(inverse(frame.view)) * (v.xyz / v.w));
    vec3 o = frame.camera_pos.xyz;
    vec3 color = vec3(0.0);
    float t = pc.origins[0].w * 1.5; // past the voxels around the camera itself
    for (int i = 0; i < 512; i++) {
        vec3 x = o + dir * t;
        int c = 0;
        while (c < 4 && !vox_inside(x, pc.origins[c], 0.0))
            c++;
        if (c == 4)
            break;
        float size = pc.origins[c].w;
        vec4 s = vox_fetch(c, x, size, 0.0);
        if (s.a > 0.5) {
            color = s.rgb / s.a;
            break;
        }
        t += size * 0.5;
    }
    imageStore(out_img, p, vec4(color, texelFetch(color_tex, p, 0).a));
}
