#version 450
// oit_resolve.comp: order-independent transparency's resolve (oit.c). Each pixel's stored layers
// (oit_pbr.frag) are sorted by depth, farthest first, and blended over the opaque HDR colour as
// the transparent pass's alpha blending would in that order: c = src + c * (1 - src.a) with src
// premultiplied; alpha likewise.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) readonly buffer OitCounts { uint counts[]; };
layout(set = 0, binding = 1) readonly buffer OitLayers { uint layers[]; };
layout(set = 0, binding = 2, rgba16f) uniform image2D hdr;
layout(push_constant) uniform Push {
    uvec2 size;
    uint layer_count;
    uint pad;
} pc;

const uint MAX_LAYERS = 16u;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(p, pc.size))) {
        return;
    }
    uint pix = p.y * pc.size.x + p.x;
    uint n = min(min(counts[pix], pc.layer_count), MAX_LAYERS);
    if (n == 0u) {
        return;
    }
    uint base = pix * pc.layer_count;
    float depth[MAX_LAYERS];
    uint order[MAX_LAYERS], tie[MAX_LAYERS];
    // Insertion sort, farthest (largest depth) first; equal depths by their colour bits, so the
    // order fragments arrived in (the draw order) never shows.
    for (uint i = 0u; i < n; i++) {
        float d = uintBitsToFloat(layers[(base + i) * 3u + 2u]);
        uint t = layers[(base + i) * 3u] ^ (layers[(base + i) * 3u + 1u] * 2654435761u);
        uint j = i;
        while (j > 0u && (depth[j - 1u] < d || (depth[j - 1u] == d && tie[j - 1u] < t))) {
            depth[j] = depth[j - 1u];
            order[j] = order[j - 1u];
            tie[j] = tie[j - 1u];
            j--;
        }
        depth[j] = d;
        order[j] = i;
        tie[j] = t;
    }
    vec4 c = imageLoad(hdr, ivec2(p));
    for (uint k = 0u; k < n; k++) {
        uint at = (base + order[k]) * 3u;
        vec2 rg = unpackHalf2x16(layers[at]);
        vec2 ba = unpackHalf2x16(layers[at + 1u]);
        float a = clamp(ba.y, 0.0, 1.0);
        c.rgb = vec3(rg, ba.x) + c.rgb * (1.0 - a);
        c.a = a + c.a * (1.0 - a);
    }
    imageStore(hdr, ivec2(p), c);
}
