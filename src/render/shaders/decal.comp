#version 450
// decal.comp: one ForwardDecal box over the 3D image. Each pixel's surface position (prepass depth
// through the inverse view-projection) is taken into the box's space; inside the unit box, facing
// the box's +Y within the angle fade, the decal's colour is laid over what earlier decals left
// (premultiplied albedo, coverage in alpha). The lit passes mix the surface albedo with it.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D depth;
layout(set = 0, binding = 1) uniform sampler2D normals;
layout(set = 0, binding = 2, rgba16f) uniform image2D dst;
layout(push_constant) uniform Push {
    uvec2 size;
    uint first;       // 1: the first decal of the frame (nothing to lay it over)
    float cos_end;    // cosine of angle_fade_end
    mat4 box_from_clip;
    vec4 color;       // linear rgb, opacity
    vec4 up;          // the box's +Y in world space (xyz), cosine of angle_fade_start (w)
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec4 prev = pc.first == 1u ? vec4(0.0) : imageLoad(dst, p);
    float d = texelFetch(depth, p, 0).r;
    float cover = 0.0;
    if (d < 1.0) {
        vec2 uv = (vec2(p) + 0.5) / vec2(pc.size);
        vec4 b = pc.box_from_clip * vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, d, 1.0);
        vec3 q = b.xyz / b.w;
        if (all(lessThanEqual(abs(q), vec3(0.5)))) {
            float facing = dot(normalize(texelFetch(normals, p, 0).xyz), pc.up.xyz);
            cover = pc.color.a * smoothstep(pc.cos_end, pc.up.w, facing);
        }
    }
    imageStore(dst, p, vec4(pc.color.rgb * cover + prev.rgb * (1.0 - cover),
                            cover + prev.a * (1.0 - cover)));
}
