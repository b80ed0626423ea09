#version 450
// vfog_apply.comp: volumetric fog over the lit HDR image of one view (fog_volume.c), before the
// transparent pass. Each pixel's distance along its ray (the far end of the volume for the sky)
// picks a place in the froxel volume vfog.comp made: bilinear across the froxels of a slice,
// linear between slices (slice 0 begins with no fog at the camera); the colour becomes
// colour x transmittance + scattered light.
layout(set = 0, binding = 0) uniform sampler2D volume;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, rgba16f) uniform image2D hdr;
#include "vfog_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;

// The volume's value at the end of slice j - 1 (j = 0: the camera, no fog) at froxel uv.
vec4 at_boundary(int j, vec2 uv) {
    if (j <= 0)
        return vec4(0.0, 0.0, 0.0, 1.0);
    float w = float(vf.grid.x);
    float x = clamp(uv.x * w, 0.5, w - 0.5) + float(j - 1) * w;
    vec2 size = vec2(textureSize(volume, 0));
    return textureLod(volume, vec2(x / size.x, uv.y), 0.0);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(depth_tex, 0);
    if (p.x >= size.x || p.y >= size.y)
        return;
    vec2 uv = (vec2(p) + 0.5) / vec2(size);
    float z = texelFetch(depth_tex, p, 0).r;
    float d = vf.camera.w;
    if (z < 1.0) {
        vec2 ndc = uv * 2.0 - 1.0;
        ndc.y = -ndc.y; // viewports are y-flipped
        vec4 w = vf.inv_view_proj * vec4(ndc, z, 1.0);
        d = min(length(w.xyz / w.w - vf.camera.xyz), vf.camera.w);
    }
    float u = clamp(vfog_slice_of(d), 0.0, float(vf.grid.z));
    int j = min(int(u), int(vf.grid.z) - 1);
    vec4 f = mix(at_boundary(j, uv), at_boundary(j + 1, uv), u - float(j));
    vec4 c = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(c.rgb * f.a + f.rgb, c.a));
}
