#version 450
// decal.comp: every ForwardDecal of a view in one pass over the 3D image (post_decal.c). The CPU
// culls the decals against the view and bins them into 16 x 16 pixel tiles (one bit per decal);
// each workgroup is one tile. The tile first finds its surfaces' depth range (min/max prepass
// depth, sky left out) and drops from its list the decals whose box's depth range (NDC z, from the
// CPU) misses it, then each pixel walks only the decals left, in order. A pixel's surface (prepass
// depth through the inverse view-projection) is taken into each box's space; inside the unit box,
// facing the box's +Y within the angle fade, the decal's albedo, normal and roughness are laid over
// what earlier decals left (premultiplied, coverage in the last channel), into the three layers of
// one image. The lit pass mixes the surface's albedo, normal and roughness with them before
// lighting (pbr_body.glsl). Maps come from the decal atlas (decal_atlas.glsl): one image, albedo
// maps through its sRGB view (decoded before filtering), normal and roughness maps through its own.
layout(local_size_x = 16, local_size_y = 16) in;

struct Decal {
    mat4 box_from_world;
    vec4 color;  // linear rgb, opacity
    vec4 axis_y; // the box's +Y in world space (xyz), cosine of angle_fade_start (w)
    vec4 axis_x; // the box's +X in world space (xyz), cosine of angle_fade_end (w)
    vec4 params; // x normal strength, y roughness strength, zw the box's depth range (NDC z)
    uvec4 maps;  // x albedo, y normal, z roughness: atlas codes (decal_atlas.glsl; 0 = none)
};

layout(set = 0, binding = 0) uniform sampler2D depth;
layout(set = 0, binding = 1) uniform sampler2D normals;
// layers: 0 albedo, 1 world normal, 2 roughness (r, coverage g)
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2DArray out_decal;
layout(set = 0, binding = 3) readonly buffer Decals { Decal decals[]; };
// words per tile, tiles across, 0, 0 (for pbr_decals.glsl); then each tile's words of decal bits
layout(set = 0, binding = 4) readonly buffer Tiles { uint tile_bits[]; };
layout(set = 0, binding = 5) uniform sampler2DArray atlas;      // normal and roughness maps
layout(set = 0, binding = 6) uniform sampler2DArray atlas_srgb; // its sRGB view: albedo maps

layout(push_constant) uniform Push {
    uvec2 size;
    uint tiles_x; // tiles across the image
    uint words;   // 32-bit words of decal bits per tile
    mat4 world_from_clip;
    uint depth_cull; // 1: drop a tile's decals outside its depth range (0: a debug switch)
} pc;

#define MAX_WORDS 8u // RILL_RENDER_MAX_DECALS / 32
shared uint tile_zmin, tile_zmax; // the tile's surface depths as float bits (>= 0: order kept)
shared uint tile_list[MAX_WORDS]; // the tile's decal bits after the depth test

#include "decal_atlas.glsl"

vec3 unproject(vec2 ndc, float d) {
    vec4 w = pc.world_from_clip * vec4(ndc, d, 1.0);
    return w.xyz / w.w;
}

// Where the view ray through ndc meets the plane (pos, n): the neighbour pixel's surface point
// for the maps' gradients (the ray from the near plane through depth d, at most 4x as far).
vec3 on_plane(vec2 ndc, float d, vec3 pos, vec3 n) {
    vec3 o = unproject(ndc, 0.0), a = unproject(ndc, d);
    float den = dot(n, a - o);
    float t = abs(den) > 1e-8 ? clamp(dot(n, pos - o) / den, 0.0, 4.0) : 1.0;
    return o + (a - o) * t;
}

// The tile's decal bits, less those whose box's depth range misses [zlo, zhi] (one invocation a
// word).
void cull_tile_words(uint word, float zlo, float zhi) {
    uint base = 4u + (gl_WorkGroupID.y * pc.tiles_x + gl_WorkGroupID.x) * pc.words; // header
    uint bits = tile_bits[base + word], keep = bits;
    while (pc.depth_cull != 0u && bits != 0u) {
        int b = findLSB(bits);
        bits &= bits - 1u;
        vec2 z = decals[word * 32u + uint(b)].params.zw;
        if (z.y < zlo || z.x > zhi)
            keep &= ~(1u << uint(b));
    }
    tile_list[word] = keep;
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    bool inside = p.x < int(pc.size.x) && p.y < int(pc.size.y);
    uint li = gl_LocalInvocationIndex;
    if (li == 0u) {
        tile_zmin = floatBitsToUint(1.0);
        tile_zmax = 0u;
    }
    memoryBarrierShared();
    barrier();
    float d = inside ? texelFetch(depth, p, 0).r : 1.0;
    if (d < 1.0) {
        atomicMin(tile_zmin, floatBitsToUint(max(d, 0.0)));
        atomicMax(tile_zmax, floatBitsToUint(max(d, 0.0)));
    }
    memoryBarrierShared();
    barrier();
    if (li < min(pc.words, MAX_WORDS))
        cull_tile_words(li, uintBitsToFloat(tile_zmin), uintBitsToFloat(tile_zmax));
    memoryBarrierShared();
    barrier();
    if (!inside)
        return;
    vec4 acc_a = vec4(0.0), acc_n = vec4(0.0);
    vec2 acc_r = vec2(0.0);
    if (d < 1.0) {
        vec2 px = 2.0 / vec2(pc.size);
        vec2 ndc = vec2((float(p.x) + 0.5) * px.x - 1.0, 1.0 - (float(p.y) + 0.5) * px.y);
        vec3 pos = unproject(ndc, d);
        vec3 n = normalize(texelFetch(normals, p, 0).xyz);
        vec3 pos_x = on_plane(ndc + vec2(px.x, 0.0), d, pos, n);
        vec3 pos_y = on_plane(ndc - vec2(0.0, px.y), d, pos, n);
        for (uint w = 0u; w < min(pc.words, MAX_WORDS); w++) {
            uint bits = tile_list[w];
            while (bits != 0u) {
                int b = findLSB(bits);
                bits &= bits - 1u;
                Decal dc = decals[w * 32u + uint(b)];
                vec3 q = (dc.box_from_world * vec4(pos, 1.0)).xyz;
                if (any(greaterThan(abs(q), vec3(0.5))))
                    continue;
                float m = smoothstep(dc.axis_x.w, dc.axis_y.w, dot(n, dc.axis_y.xyz));
                if (m <= 0.0)
                    continue;
                vec2 uv = q.xz + 0.5;
                vec2 gx = (dc.box_from_world * vec4(pos_x, 1.0)).xz + 0.5 - uv;
                vec2 gy = (dc.box_from_world * vec4(pos_y, 1.0)).xz + 0.5 - uv;
                vec3 albedo = dc.color.rgb;
                if (dc.maps.x != 0u) {
                    vec4 t = decal_atlas_sample(atlas_srgb, dc.maps.x, uv, gx, gy);
                    albedo *= t.rgb;
                    m *= t.a;
                }
                float ca = m * dc.color.a;
                acc_a = vec4(albedo * ca, ca) + acc_a * (1.0 - ca);
                if (dc.maps.y != 0u) {
                    // tangent space on the surface: u along the box's +X, the image's up along -Z
                    vec2 xy = decal_atlas_sample(atlas, dc.maps.y, uv, gx, gy).xy * 2.0 - 1.0;
                    float z = sqrt(max(0.0, 1.0 - dot(xy, xy)));
                    vec3 t = dc.axis_x.xyz - n * dot(dc.axis_x.xyz, n);
                    t = dot(t, t) > 1e-8 ? normalize(t) : vec3(0.0);
                    vec3 nd = normalize(t * xy.x + cross(n, t) * xy.y + n * z);
                    float cn = m * dc.params.x;
                    acc_n = vec4(nd * cn, cn) + acc_n * (1.0 - cn);
                }
                if (dc.maps.z != 0u) {
                    float rv = decal_atlas_sample(atlas, dc.maps.z, uv, gx, gy).g;
                    float cr = m * dc.params.y;
                    acc_r = vec2(rv * cr, cr) + acc_r * (1.0 - cr);
                }
            }
        }
    }
    imageStore(out_decal, ivec3(p, 0), acc_a);
    imageStore(out_decal, ivec3(p, 1), acc_n);
    imageStore(out_decal, ivec3(p, 2), vec4(acc_r, 0.0, 0.0));
}
