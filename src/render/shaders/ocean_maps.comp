#version 450
// ocean_maps.comp: "ocean.maps" (ocean_draw.c): the transformed workspace into the images the
// draw samples, one layer per cascade. The spectrum's k were centred (index - N/2), which
// multiplies each output by (-1)^(x + y): undone here. displacement = (choppiness Dx, height,
// choppiness Dz, choppiness Dxz), slopes = (dh/dx, dh/dz, choppiness Dxx, choppiness Dzz).
#include "ocean_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) readonly buffer Work { vec4 work[]; };
layout(set = 0, binding = 1) readonly buffer Block { Ocean oc; };
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2DArray disp;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2DArray slope;
layout(push_constant) uniform Push {
    uvec4 p; // x size, y cascades
} pc;

void main() {
    uint size = pc.p.x;
    uvec3 g = gl_GlobalInvocationID;
    if (g.x >= size || g.y >= size || g.z >= pc.p.y)
        return;
    float s = ((g.x + g.y) & 1u) == 1u ? -1.0 : 1.0;
    vec4 a = work[ocean_index(g.z, 0u, g.x, g.y, size)] * s; // h, Dx, Dz, Sx
    vec4 b = work[ocean_index(g.z, 1u, g.x, g.y, size)] * s; // Sz, Dxx, Dzz, Dxz
    float l = oc.sim.y;
    imageStore(disp, ivec3(g), vec4(l * a.y, a.x, l * a.z, l * b.w));
    imageStore(slope, ivec3(g), vec4(a.w, b.x, l * b.y, l * b.z));
}
