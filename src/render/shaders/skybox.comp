#version 450
// skybox.comp: sky mode Skybox over one view's rectangle of the lit HDR image (after the opaque
// pass): where nothing was drawn (depth at the far plane) the equirectangular image toward the
// pixel, turned about +Y and scaled as the image-based light bakes it (ibl_fill.comp: the centre
// column looks along -Z, the top row straight up). Alpha is kept.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D depth_tex;
layout(set = 0, binding = 1) uniform sampler2D equirect;
layout(set = 0, binding = 2, rgba16f) uniform image2D hdr;
layout(push_constant) uniform Push {
    mat4 inv_view_proj;
    vec4 rot;   // x cos, y sin of the turn about +Y, z brightness
    uvec4 rect; // the view's pixels: x, y, w, h
} pc;

const float PI = 3.14159265359;

void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    if (g.x >= pc.rect.z || g.y >= pc.rect.w)
        return;
    ivec2 p = ivec2(g + pc.rect.xy);
    if (texelFetch(depth_tex, p, 0).r < 1.0)
        return;
    vec2 ndc = (vec2(g) + 0.5) / vec2(pc.rect.zw) * 2.0 - 1.0;
    ndc.y = -ndc.y; // viewports are y-flipped
    vec4 a = pc.inv_view_proj * vec4(ndc, 0.0, 1.0);
    vec4 b = pc.inv_view_proj * vec4(ndc, 1.0, 1.0);
    vec3 d = normalize(b.xyz / b.w - a.xyz / a.w);
    vec3 r = vec3(pc.rot.x * d.x + pc.rot.y * d.z, d.y, -pc.rot.y * d.x + pc.rot.x * d.z);
    float u = atan(r.x, -r.z) * (0.5 / PI) + 0.5;
    float v = acos(clamp(r.y, -1.0, 1.0)) / PI;
    vec3 c = textureLod(equirect, vec2(u, v), 0.0).rgb * pc.rot.z;
    vec4 old = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(clamp(c, vec3(0.0), vec3(60000.0)), old.a));
}
