// probes.glsl: the environment reflection of a surface: the reflection probes covering it (probe.c)
// blended by their edge falloff over the sky's prefiltered cube. Define PROBE_BINDING (the block;
// the four cubes follow it) before including; needs `ibl_specular` and frame.ambient.

// Per shaded probe 6 vec4: centre (w falloff), the box's three unit axes (w their half extents),
// the parallax box's half extents (w 1 = corrected, 0 = infinitely far), x intensity, y last mip.
layout(set = 0, binding = PROBE_BINDING) uniform Probes {
    uvec4 count; // x
    vec4 data[4 * 6];
} probes;
layout(set = 0, binding = PROBE_BINDING + 1) uniform samplerCube probe_cube0;
layout(set = 0, binding = PROBE_BINDING + 2) uniform samplerCube probe_cube1;
layout(set = 0, binding = PROBE_BINDING + 3) uniform samplerCube probe_cube2;
layout(set = 0, binding = PROBE_BINDING + 4) uniform samplerCube probe_cube3;

vec3 probe_fetch(int i, vec3 dir, float lod) {
    if (i == 0)
        return textureLod(probe_cube0, dir, lod).rgb;
    if (i == 1)
        return textureLod(probe_cube1, dir, lod).rgb;
    if (i == 2)
        return textureLod(probe_cube2, dir, lod).rgb;
    return textureLod(probe_cube3, dir, lod).rgb;
}

// The reflection along world direction r of a surface at world position p with roughness rough,
// before the split-sum weight and the ambient multiplier.
vec3 environment_specular(vec3 p, vec3 r, float rough) {
    vec3 sky = textureLod(ibl_specular, r, rough * frame.ambient.y).rgb;
    vec3 sum = vec3(0.0);
    float wsum = 0.0;
    for (int i = 0; i < int(min(probes.count.x, 4u)); i++) {
        vec4 c = probes.data[i * 6];
        vec3 ax = probes.data[i * 6 + 1].xyz, ay = probes.data[i * 6 + 2].xyz,
             az = probes.data[i * 6 + 3].xyz;
        vec3 half_ext = vec3(probes.data[i * 6 + 1].w, probes.data[i * 6 + 2].w,
                             probes.data[i * 6 + 3].w);
        vec3 d = p - c.xyz;
        vec3 local = vec3(dot(d, ax), dot(d, ay), dot(d, az));
        // 0 at the centre, 1 on the faces: full weight from `falloff` of the box inside them.
        float edge = max(max(abs(local.x) / half_ext.x, abs(local.y) / half_ext.y),
                         abs(local.z) / half_ext.z);
        float w = clamp((1.0 - edge) / max(c.w, 1e-4), 0.0, 1.0);
        if (w <= 0.0)
            continue;
        vec3 dir = r;
        vec4 par = probes.data[i * 6 + 4];
        if (par.w > 0.5) {
            // Where the ray leaves the parallax box, seen from the probe's centre.
            vec3 rl = vec3(dot(r, ax), dot(r, ay), dot(r, az));
            vec3 safe = mix(rl, vec3(1e-6), lessThan(abs(rl), vec3(1e-6)));
            vec3 t2 = (sign(safe) * par.xyz - local) / safe;
            float t = min(min(t2.x, t2.y), t2.z);
            if (t > 0.0) {
                vec3 hit = local + rl * t;
                dir = hit.x * ax + hit.y * ay + hit.z * az;
            }
        }
        vec4 info = probes.data[i * 6 + 5];
        sum += w * probe_fetch(i, dir, rough * info.y) * info.x;
        wsum += w;
    }
    if (wsum > 1.0) {
        sum /= wsum;
        wsum = 1.0;
    }
    return sum + (1.0 - wsum) * sky;
}
