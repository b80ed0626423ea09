#version 450
// oit_clear.comp: empties every pixel's transparency layers (oit.c) before the transparent pass.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) writeonly buffer OitCounts { uint counts[]; };
layout(push_constant) uniform Push { uint total; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.total) {
        counts[i] = 0u;
    }
}
