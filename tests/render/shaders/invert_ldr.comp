#version 450
// invert_ldr.comp: a test effect that inverts the tonemapped image in place.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform image2D target;
layout(push_constant) uniform Push { uvec2 size; vec4 unused; } pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = imageLoad(target, p);
    imageStore(target, p, vec4(1.0 - c.rgb, 1.0));
}
