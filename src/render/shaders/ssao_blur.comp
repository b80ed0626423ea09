#version 450
// ssao_blur.comp: averages the raw SSAO over the 4x4 block that holds every rotation of the
// sampling pattern, weighting neighbours by depth similarity so occlusion does not bleed across
// silhouettes.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D raw;
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, r32f) uniform writeonly image2D ao_out;
layout(push_constant) uniform Push { uvec2 size; } pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    float d0 = texelFetch(depth_tex, p, 0).r;
    float sum = 0.0, wsum = 0.0;
    for (int y = -2; y < 2; y++)
        for (int x = -2; x < 2; x++) {
            ivec2 q = clamp(p + ivec2(x, y), ivec2(0), ivec2(pc.size) - 1);
            float d = texelFetch(depth_tex, q, 0).r;
            float w = 1.0 / (1e-4 + abs(d - d0) * 1000.0);
            sum += texelFetch(raw, q, 0).r * w;
            wsum += w;
        }
    imageStore(ao_out, p, vec4(sum / wsum));
}
