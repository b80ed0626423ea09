// ssr_common.glsl: what the screen-space reflection passes share: the leading part of `Frame`
// (common.glsl, frame.h) and the material the prepass packs into the normal image's alpha.

layout(set = 0, binding = 0) uniform Frame {
    mat4 view, proj, view_proj, prev_view_proj;
    mat4 cascade_view_proj[4];
    vec4 cascade_far, cascade_texel;
    vec4 camera_pos;    // xyz
    vec4 sun_dir;       // xyz toward the light
    vec4 sun_color;     // w 1 when there is a sun
    vec4 ambient;       // x IBL intensity, y the specular cube's last mip
} frame;

// The prepass writes round(roughness * 255) + 256 * round(metallic * 7) into normal.w: integers
// below 2048, exact in a half float (prepass.glsl pack_material).
void unpack_material(float w, out float rough, out float metal) {
    float m = floor(w / 256.0 + 1e-3);
    rough = clamp((w - m * 256.0) / 255.0, 0.0, 1.0);
    metal = clamp(m / 7.0, 0.0, 1.0);
}

// View-space position of a pixel (uv, top-left origin) at NDC depth d; viewports are y-flipped.
vec3 ssr_view_pos(mat4 inv_proj, vec2 uv, float d) {
    vec4 v = inv_proj * vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, d, 1.0);
    return v.xyz / v.w;
}

// Distance in front of the camera of NDC depth d.
float ssr_linear(mat4 inv_proj, float d) {
    vec4 v = inv_proj * vec4(0.0, 0.0, d, 1.0);
    return -v.z / v.w;
}
