// common.glsl: declarations shared by the mesh shaders: the per-frame uniform block, the instance
// and light buffers (set 0) and the material (set 1). Must match rill__gpu_frame in frame.h.
struct Instance {
    mat4 model;
    mat4 prev_model;
    // x: LOD crossfade (rill_render_instance.lod_fade): 0 draws whole; in (0, 1) the incoming level
    // draws the pixels whose dither threshold is below x; in (-1, 0) the outgoing level draws the
    // others (threshold >= -x). yzw unused.
    vec4 params;
};

struct Light {
    vec4 pos_range;      // xyz position, w range
    vec4 color;          // rgb color * intensity
    vec4 dir_kind;       // xyz direction (spot), w 0 point / 1 spot
    vec4 cone;           // x cos(inner), y cos(outer)
};

layout(set = 0, binding = 0) uniform Frame {
    mat4 view;
    mat4 proj;
    mat4 view_proj;
    mat4 prev_view_proj;
    mat4 cascade_view_proj[4];
    vec4 cascade_far;    // view-space distance where each cascade ends
    vec4 cascade_texel;  // world size of one shadow texel per cascade (normal offset)
    vec4 camera_pos;     // xyz
    vec4 sun_dir;        // xyz toward the light, w 1 when shadows are on
    vec4 sun_color;      // rgb color * illuminance, w 1 when there is a sun
    vec4 ambient;        // x IBL intensity (WorldEnvironment.ambient), y the specular cube's last mip
    vec4 shadow_params;  // x texel size in uv, z cascade count
    uvec4 counts;        // x light count, y 1 = clustered light lists, z 1 = SSAO on,
                         // w 1 = the prepass packs the material (SSR or GI reads it)
    vec4 cluster_params; // x slices / log(far / near), y log(near), zw render target size
    vec4 jitter;         // xy: TAA's sub-pixel offset of the projection (clip space, times w)
    vec4 cloud_shadow;   // the cloud shadow map: xy corner world x, z (m), z 1 / size, w 1 = on
} frame;

layout(set = 0, binding = 1) readonly buffer Instances { Instance instances[]; };
layout(set = 0, binding = 2) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 3) uniform sampler2DArrayShadow shadow_map;
// Clustered lights: a 16 x 9 x 24 grid of (offset, count) into a list of light indices.
layout(set = 0, binding = 4) readonly buffer ClusterGrid { uvec2 clusters[]; };
layout(set = 0, binding = 5) readonly buffer ClusterLights { uint cluster_lights[]; };
const uint CLUSTER_X = 16u, CLUSTER_Y = 9u, CLUSTER_Z = 24u;
// Screen-space ambient occlusion of this frame (white when SSAO is off).
layout(set = 0, binding = 6) uniform sampler2D ssao_tex;
// Image-based light (ibl.c): the GGX-prefiltered sky (mip = roughness x last mip), the split-sum
// BRDF table (n.v across, roughness down: F0 scale and bias) and the diffuse irradiance / pi as
// 9 spherical-harmonic coefficients (texels 0..8).
layout(set = 0, binding = 7) uniform samplerCube ibl_specular;
layout(set = 0, binding = 8) uniform sampler2D ibl_brdf;
layout(set = 0, binding = 9) uniform sampler2D ibl_sh;
// ForwardDecal (post_decal.c), per pixel of the 3D image, each premultiplied by its coverage
// (in the last channel), one layer each: albedo, world-space normal, roughness (r, coverage g).
// One 1x1 layer of zeros without.
layout(set = 0, binding = 15) uniform sampler2DArray decal_tex; // after the probes (10..14)
// The decal atlas (post_decal_atlas.c, decal_atlas.glsl), for the transparent surfaces' decal walk
// (pbr_decals.glsl); after the transmission image.
layout(set = 0, binding = 17) uniform sampler2DArray decal_atlas;
// The same atlas through its sRGB view (albedo maps: decoded before filtering), after the decal
// lists (19, 20: pbr_decals.glsl).
layout(set = 0, binding = 21) uniform sampler2DArray decal_atlas_srgb;
// The cloud shadow map (clouds.c, clouds_shadow.comp): r the clouds' transmittance of the sun's
// light at each ground point of a square around the camera (a white texel without clouds).
layout(set = 0, binding = 18) uniform sampler2D cloud_shadow_tex;

// The share of the sun's light the clouds let through to world point p: the ground point on the
// sun's ray through p (the map is of the ground), 1 outside the map or without one.
float cloud_shadow(vec3 p) {
    if (frame.cloud_shadow.w == 0.0)
        return 1.0;
    vec3 s = normalize(frame.sun_dir.xyz);
    vec2 ground = p.xz - s.xz * (p.y / max(s.y, 0.05));
    vec2 uv = (ground - frame.cloud_shadow.xy) * frame.cloud_shadow.z;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))))
        return 1.0;
    return textureLod(cloud_shadow_tex, uv, 0.0).r;
}

layout(set = 1, binding = 0) uniform Material {
    vec4 base_color;
    vec4 emissive;       // rgb; w 1 = the normal map holds X and Y only (BC5): Z is rebuilt
    vec4 params;         // x metallic, y roughness, z occlusion strength, w alpha cutoff
    vec4 params2;        // x normal scale, y alpha mode (0 opaque, 1 mask, 2 blend),
                         // z 1 = terrain splat material, w its layer count
    // Per texture slot (base color, normal, metallic-roughness, occlusion, emissive, specular,
    // specular colour, clear coat, clear coat roughness, clear coat normal, transmission,
    // thickness, sheen colour, sheen roughness, iridescence, iridescence thickness, anisotropy)
    // the two rows of its
    // 2x3 UV transform (KHR_texture_transform): uv' = (dot(r0.xyz, (uv, 1)), dot(r1...)).
    // r0.w: the UV set the slot samples (0 the vertex uv, 1 the second set, uv1).
    vec4 uv_xform[34];
    // Terrain splat material only (zero otherwise): metres per texture repeat of each layer, and
    // each layer's base colour. Its textures: base_color_tex = the RGBA layer weights over the
    // terrain (mesh uv), normal_tex and mr_tex = 2 x 2 atlases of the layers' normal maps and
    // albedos (layer i in quadrant (i % 2, i / 2)).
    vec4 layer_tile;
    vec4 layer_color[4];
    // Dielectric reflectance (KHR_materials_ior / _specular): rgb at normal incidence, w at
    // grazing angles (0.04 and 1 by default).
    vec4 spec;
    // x 1 = unlit (KHR_materials_unlit), y clearcoat strength, z clearcoat roughness, w 1 = spec
    // holds a reflectance other than glTF's default (0.04, 1), or the specular textures apply.
    vec4 params3;
    // x the clear coat normal map's scale, y 1 = the coat has a normal map (else the geometric
    // normal), z 1 = that map is two-channel (BC5), w 1 = the specular textures apply.
    vec4 params4;
    // The specular textures' path: rgb the reflectance at normal incidence before the clamp to
    // 1, w the specular strength; both are multiplied by the textures per pixel.
    vec4 spec_raw;
    // KHR_materials_transmission / _volume: x transmission (0 = none), y thickness, z attenuation
    // distance (0 = light never fades), w 1 = a volume (else thin-walled).
    vec4 params5;
    vec4 attenuation; // rgb: the colour light fades to over the attenuation distance, w the ior
    vec4 sheen;       // KHR_materials_sheen: rgb colour (black = none), w roughness
    // KHR_materials_iridescence: x strength (0 = none), y the film's ior, z and w its thickness
    // range in nanometres (the thickness texture's green goes from z to w).
    vec4 iridescence;
    // KHR_materials_anisotropy: x strength (0 = none), y and z the cosine and sine of its
    // rotation, w 1 = the direction texture applies (else the tangent, strength 1).
    vec4 anisotropy;
    vec4 params6; // x KHR_materials_dispersion (0 = none)
} material;
const int SLOT_BASE = 0, SLOT_NORMAL = 1, SLOT_MR = 2, SLOT_OCCLUSION = 3, SLOT_EMISSIVE = 4;
const int SLOT_SPECULAR = 5, SLOT_SPECULAR_COLOR = 6, SLOT_CLEARCOAT = 7;
const int SLOT_CLEARCOAT_ROUGHNESS = 8, SLOT_CLEARCOAT_NORMAL = 9;
const int SLOT_TRANSMISSION = 10, SLOT_THICKNESS = 11, SLOT_SHEEN_COLOR = 12;
const int SLOT_SHEEN_ROUGHNESS = 13, SLOT_IRIDESCENCE = 14, SLOT_IRIDESCENCE_THICKNESS = 15;
const int SLOT_ANISOTROPY = 16;
vec2 slot_uv(int slot, vec2 uv0, vec2 uv1) {
    vec3 h = vec3(material.uv_xform[2 * slot].w > 0.5 ? uv1 : uv0, 1.0);
    return vec2(dot(material.uv_xform[2 * slot].xyz, h), dot(material.uv_xform[2 * slot + 1].xyz, h));
}
layout(set = 1, binding = 1) uniform sampler2D base_color_tex;
layout(set = 1, binding = 2) uniform sampler2D normal_tex;
layout(set = 1, binding = 3) uniform sampler2D mr_tex;
layout(set = 1, binding = 4) uniform sampler2D occlusion_tex;
layout(set = 1, binding = 5) uniform sampler2D emissive_tex;
layout(set = 1, binding = 6) uniform sampler2D specular_tex;       // alpha
layout(set = 1, binding = 7) uniform sampler2D specular_color_tex; // rgb
layout(set = 1, binding = 8) uniform sampler2D clearcoat_tex;      // red
layout(set = 1, binding = 9) uniform sampler2D clearcoat_rough_tex; // green
layout(set = 1, binding = 10) uniform sampler2D clearcoat_normal_tex;
layout(set = 1, binding = 11) uniform sampler2D transmission_tex; // red
layout(set = 1, binding = 12) uniform sampler2D thickness_tex;    // green
layout(set = 1, binding = 13) uniform sampler2D sheen_color_tex;  // rgb
layout(set = 1, binding = 14) uniform sampler2D sheen_rough_tex;  // alpha
layout(set = 1, binding = 15) uniform sampler2D iridescence_tex;  // red
layout(set = 1, binding = 16) uniform sampler2D iridescence_thickness_tex; // green
layout(set = 1, binding = 17) uniform sampler2D anisotropy_tex;   // rg direction, b strength

// An interpolated vertex colour. A constant white (meshes without colours) can interpolate to a
// hair under 1 across a triangle; taken as exactly 1 there, so such meshes shade bit for bit as
// if there were no colour at all (a difference of 1e-5 is invisible in any real colour).
vec4 vertex_color(vec4 c) {
    return mix(c, vec4(1.0), greaterThanEqual(c, vec4(0.99999)));
}

// The LOD crossfade's screen-space dither: a 4 x 4 ordered (Bayer) threshold per pixel. Two levels
// crossfading carry +f and -f, so at every pixel exactly one of them passes: never a hole, never
// both. Every pass that draws a mesh (prepass, opaque, transparent, shadow casters) calls this
// with the same pixel coordinates, so depth, colour and shadows agree.
bool lod_dither_discard(float fade, vec2 frag_coord) {
    if (fade == 0.0)
        return false;
    const float bayer[16] = float[16](0.0, 8.0, 2.0, 10.0, 12.0, 4.0, 14.0, 6.0,
                                      3.0, 11.0, 1.0, 9.0, 15.0, 7.0, 13.0, 5.0);
    ivec2 p = ivec2(frag_coord) & 3;
    float t = (bayer[p.y * 4 + p.x] + 0.5) / 16.0;
    return fade > 0.0 ? t >= fade : t < -fade;
}
