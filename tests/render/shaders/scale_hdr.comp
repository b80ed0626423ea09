#version 450
// scale_hdr.comp: a test effect that scales the linear HDR image in place by a parameter.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform image2D target;
layout(push_constant) uniform Push { uvec2 size; vec2 pad; vec4 scale; } pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 c = imageLoad(target, p);
    imageStore(target, p, vec4(c.rgb * pc.scale.x, c.a));
}
