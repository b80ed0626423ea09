// prepass.glsl: what the prepass shaders share: the mesh inputs and the outputs next to depth,
// world-space normals (alpha: the packed roughness and metalness screen-space reflections and GI
// read) and screen-space motion vectors. Include after common.glsl, after defining PREPASS_PACK
// as 0 (alpha 0: no reader this frame), 1 (always pack) or 2 (pack when frame.counts.w says so).
// The solid surfaces get 0 or 1 as two pipelines: even skipped by a uniform branch, the material
// fetch and the uv input cost the H200's prepass 3 ms at 100k instances (13.5 -> 16.7 ms).
#include "surface.glsl"
layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;
layout(location = 4) in vec4 in_clip;
layout(location = 5) in vec4 in_prev_clip;
layout(location = 6) in float in_view_depth;
layout(location = 7) flat in float in_lod_fade;
layout(location = 8) in vec4 in_color; // the vertex colour (white without)
layout(location = 9) in vec2 in_uv1;

layout(location = 0) out vec4 out_normal;
layout(location = 1) out vec2 out_motion;

// Roughness and metalness as the lit pass computes them, packed as round(roughness * 255) +
// 256 * round(metallic * 7): an integer below 2048, exact in the half-float alpha
// (ssr_common.glsl unpack_material).
float pack_material() {
    vec4 mr = material.params2.z == 1.0 ? vec4(1.0) : texture(mr_tex, slot_uv(SLOT_MR, in_uv, in_uv1));
    float metallic = clamp(material.params.x * mr.b, 0.0, 1.0);
    float rough = clamp(material.params.y * mr.g, 0.045, 1.0);
    return round(rough * 255.0) + 256.0 * round(metallic * 7.0);
}

void write_prepass() {
    vec3 n = surface_normal(in_normal, in_world);
#if PREPASS_PACK == 1
    out_normal = vec4(n, pack_material());
#elif PREPASS_PACK == 2
    out_normal = vec4(n, frame.counts.w != 0u ? pack_material() : 0.0);
#else
    out_normal = vec4(n, 0.0); // no reader: rough 0, not metal
#endif
    vec2 cur = in_clip.xy / in_clip.w;
    vec2 prev = in_prev_clip.xy / in_prev_clip.w;
    out_motion = (cur - prev) * vec2(0.5, -0.5); // in UV units, +y down
}
