#version 450
// grade.comp: ColorGrading's scene-referred part on the linear HDR colour: exposure, white balance
// (a 3x3 matrix adapting the chosen white to D65 in cone space), contrast around middle grey in
// log space, saturation around Rec. 709 luminance. Alpha passes through.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    float exposure;   // linear multiplier
    float contrast;
    float saturation;
    float pad0, pad1, pad2;
    vec4 wb0, wb1, wb2; // white balance rows (xyz)
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 s = texelFetch(src, p, 0);
    vec3 c = s.rgb * pc.exposure;
    c = vec3(dot(pc.wb0.xyz, c), dot(pc.wb1.xyz, c), dot(pc.wb2.xyz, c));
    c = max(c, vec3(0.0));
    if (pc.contrast != 1.0)
        c = 0.18 * pow(max(c, vec3(1e-10)) / 0.18, vec3(pc.contrast));
    float l = dot(c, vec3(0.2126, 0.7152, 0.0722));
    c = max(mix(vec3(l), c, pc.saturation), vec3(0.0));
    imageStore(dst, p, vec4(c, s.a));
}
