// pbr_decals.glsl: ForwardDecal on transparent surfaces (included by pbr_body.glsl). Opaque
// surfaces read the decal pass's images (decal.comp resolved them on the prepass surface); a
// blended or transmissive surface is not in the prepass, so its fragment walks the decals itself:
// the same decals and 16 x 16 tile lists the CPU binned (post_decal.c; without the tiles' depth
// test, which describes the opaque surfaces), the same box test, angle fade and order. Colour and
// opacity only: the lit passes have no sampler left for the decals' maps (a device may give a
// shader stage 32, and a lit pass binds 31), so a decal with an albedo map (its shape is in the
// map) leaves transparent surfaces alone, and normal and roughness maps paint opaque ones only.
// Without decals the lists are empty.

struct FragDecal {
    mat4 box_from_world;
    vec4 color;  // linear rgb, opacity
    vec4 axis_y; // the box's +Y (xyz), cosine of angle_fade_start (w)
    vec4 axis_x; // the box's +X (xyz), cosine of angle_fade_end (w)
    vec4 params; // x normal strength, y roughness strength, zw depth range (the pass's)
    uvec4 maps;  // albedo, normal, roughness: map binding + 1 (0 = none)
};
layout(set = 0, binding = 20) readonly buffer FragDecals { FragDecal frag_decals[]; };
// words of decal bits per tile, tiles across the image, 0, 0; then each tile's words
layout(set = 0, binding = 21) readonly buffer FragDecalTiles { uint frag_decal_tiles[]; };

// Lays this pixel's colour decals over a transparent surface at world position pos whose normal
// is n: premultiplied, in order, over albedo (the surface's alpha is kept).
void transparent_decals(vec3 pos, vec3 n, inout vec3 albedo) {
    uint words = min(frag_decal_tiles[0], 8u), tiles_x = frag_decal_tiles[1];
    if (words == 0u)
        return;
    uvec2 t = uvec2(gl_FragCoord.xy) / 16u;
    uint base = 4u + (t.y * tiles_x + t.x) * words;
    // a fragment outside the image the lists were binned for reads nothing
    if (t.x >= tiles_x || base + words > uint(frag_decal_tiles.length()))
        return;
    vec4 acc = vec4(0.0);
    for (uint w = 0u; w < words; w++) {
        uint bits = frag_decal_tiles[base + w];
        while (bits != 0u) {
            int b = findLSB(bits);
            bits &= bits - 1u;
            FragDecal dc = frag_decals[w * 32u + uint(b)];
            if (dc.maps.x != 0u)
                continue;
            vec3 q = (dc.box_from_world * vec4(pos, 1.0)).xyz;
            if (any(greaterThan(abs(q), vec3(0.5))))
                continue;
            float c = smoothstep(dc.axis_x.w, dc.axis_y.w, dot(n, dc.axis_y.xyz)) * dc.color.a;
            acc = vec4(dc.color.rgb * c, c) + acc * (1.0 - c);
        }
    }
    albedo = albedo * (1.0 - acc.a) + acc.rgb;
}
