// pbr_decals.glsl: ForwardDecal on transparent surfaces (included by pbr_body.glsl). Opaque
// surfaces read the decal pass's image (decal.comp resolved them on the prepass surface); a
// blended or transmissive surface is not in the prepass, so its fragment walks the decals itself:
// the same decals and 16 x 16 tile lists the CPU binned (post_decal.c; without the tiles' depth
// test, which describes the opaque surfaces), the same box test, angle fade, order and maps (the
// decal atlas: decal_atlas.glsl; albedo maps through its sRGB view), with the maps' gradients from the surface's own
// screen derivatives. Without decals the lists are empty.
#include "decal_atlas.glsl"

struct FragDecal {
    mat4 box_from_world;
    vec4 color;  // linear rgb, opacity
    vec4 axis_y; // the box's +Y (xyz), cosine of angle_fade_start (w)
    vec4 axis_x; // the box's +X (xyz), cosine of angle_fade_end (w)
    vec4 params; // x normal strength, y roughness strength, zw depth range (the pass's)
    uvec4 maps;  // albedo, normal, roughness: atlas codes (0 = none)
};
layout(set = 0, binding = 19) readonly buffer FragDecals { FragDecal frag_decals[]; };
// words of decal bits per tile, tiles across the image, 0, 0; then each tile's words
layout(set = 0, binding = 20) readonly buffer FragDecalTiles { uint frag_decal_tiles[]; };

// The decal map's tangent-space normal (xy from the map, z rebuilt) on a surface of normal n, its
// u along the box's +X.
vec3 frag_decal_normal(FragDecal dc, vec3 n, vec2 uv, vec2 gx, vec2 gy) {
    vec2 xy = decal_atlas_sample(decal_atlas, dc.maps.y, uv, gx, gy).xy * 2.0 - 1.0;
    float z = sqrt(max(0.0, 1.0 - dot(xy, xy)));
    vec3 t = dc.axis_x.xyz - n * dot(dc.axis_x.xyz, n);
    t = dot(t, t) > 1e-8 ? normalize(t) : vec3(0.0);
    return normalize(t * xy.x + cross(n, t) * xy.y + n * z);
}

// Lays this pixel's decals over a transparent surface at world position pos whose normal is n:
// premultiplied, in order, over albedo (the surface's alpha is kept) and n; rough gets the
// decals' premultiplied roughness and its coverage (as the opaque surfaces' decal image holds).
void transparent_decals(vec3 pos, inout vec3 n, inout vec3 albedo, inout vec2 rough) {
    uint words = min(frag_decal_tiles[0], 8u), tiles_x = frag_decal_tiles[1];
    if (words == 0u)
        return;
    vec3 dpx = dFdx(pos), dpy = dFdy(pos); // before any branch that differs within a quad
    uvec2 t = uvec2(gl_FragCoord.xy) / 16u;
    uint base = 4u + (t.y * tiles_x + t.x) * words;
    // a fragment outside the image the lists were binned for reads nothing
    if (t.x >= tiles_x || base + words > uint(frag_decal_tiles.length()))
        return;
    vec4 acc = vec4(0.0), acc_n = vec4(0.0);
    vec2 acc_r = vec2(0.0);
    for (uint w = 0u; w < words; w++) {
        uint bits = frag_decal_tiles[base + w];
        while (bits != 0u) {
            int b = findLSB(bits);
            bits &= bits - 1u;
            FragDecal dc = frag_decals[w * 32u + uint(b)];
            vec3 q = (dc.box_from_world * vec4(pos, 1.0)).xyz;
            if (any(greaterThan(abs(q), vec3(0.5))))
                continue;
            float m = smoothstep(dc.axis_x.w, dc.axis_y.w, dot(n, dc.axis_y.xyz));
            if (m <= 0.0)
                continue;
            vec2 uv = q.xz + 0.5;
            vec2 gx = (mat3(dc.box_from_world) * dpx).xz, gy = (mat3(dc.box_from_world) * dpy).xz;
            vec3 color = dc.color.rgb;
            if (dc.maps.x != 0u) {
                vec4 tex = decal_atlas_sample(decal_atlas_srgb, dc.maps.x, uv, gx, gy);
                color *= tex.rgb;
                m *= tex.a;
            }
            float c = m * dc.color.a;
            acc = vec4(color * c, c) + acc * (1.0 - c);
            if (dc.maps.y != 0u) {
                float cn = m * dc.params.x;
                acc_n = vec4(frag_decal_normal(dc, n, uv, gx, gy) * cn, cn) + acc_n * (1.0 - cn);
            }
            if (dc.maps.z != 0u) {
                float rv = decal_atlas_sample(decal_atlas, dc.maps.z, uv, gx, gy).g;
                float cr = m * dc.params.y;
                acc_r = vec2(rv * cr, cr) + acc_r * (1.0 - cr);
            }
        }
    }
    albedo = albedo * (1.0 - acc.a) + acc.rgb;
    if (acc_n.w > 0.0)
        n = normalize(n * (1.0 - acc_n.w) + acc_n.xyz);
    rough = acc_r;
}
