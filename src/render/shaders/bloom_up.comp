#version 450
// bloom_up.comp: one step back up the pyramid: this level's downsampled light plus a 3x3 tent
// upsample of the (already accumulated) level below.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D lower;
layout(set = 0, binding = 1) uniform sampler2D current;
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push { uvec2 size; } pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec2 texel = 1.0 / vec2(pc.size);
    vec2 uv = (vec2(p) + 0.5) * texel;
    vec3 up = vec3(0.0);
    for (int y = -1; y <= 1; y++)
        for (int x = -1; x <= 1; x++) {
            float w = (x == 0 ? 2.0 : 1.0) * (y == 0 ? 2.0 : 1.0) / 16.0;
            up += w * texture(lower, uv + vec2(x, y) * texel).rgb;
        }
    imageStore(dst, p, vec4(texture(current, uv).rgb + up, 1.0));
}
