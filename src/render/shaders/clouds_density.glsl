// clouds_density.glsl: the cloud layer's density field (clouds.c), shared by the panorama march
// (clouds.comp) and the cloud shadow map (clouds_shadow.comp) so the shadows on the ground are
// cast by the clouds in the sky: a value-noise coverage field (cells about 6 km) drifting with the
// wind, shaped by a height profile and eroded by 1 km detail noise. Units are kilometres.

float cloud_hash13(vec3 p) {
    p = fract(p * 0.1031);
    p += dot(p, p.zyx + 31.32);
    return fract((p.x + p.y) * p.z);
}

float cloud_vnoise(vec3 p) {
    vec3 i = floor(p), f = fract(p);
    f = f * f * (3.0 - 2.0 * f);
    float a = mix(cloud_hash13(i), cloud_hash13(i + vec3(1, 0, 0)), f.x);
    float b = mix(cloud_hash13(i + vec3(0, 1, 0)), cloud_hash13(i + vec3(1, 1, 0)), f.x);
    float c = mix(cloud_hash13(i + vec3(0, 0, 1)), cloud_hash13(i + vec3(1, 0, 1)), f.x);
    float d = mix(cloud_hash13(i + vec3(0, 1, 1)), cloud_hash13(i + vec3(1, 1, 1)), f.x);
    return mix(mix(a, b, f.y), mix(c, d, f.y), f.z);
}

float cloud_fbm(vec3 p, int octaves) {
    float s = 0.0, amp = 0.5, norm = 0.0;
    for (int i = 0; i < octaves; i++) {
        s += amp * cloud_vnoise(p);
        norm += amp;
        p = p * 2.03 + vec3(17.1, 5.3, 11.7);
        amp *= 0.5;
    }
    return s / norm;
}

// Density (per km) at w (km: world x, altitude above the ground, world z); layer: x coverage,
// y density per km, z base altitude (km), w thickness (km); wind: the drift so far (km).
float cloud_density(vec3 w, vec4 layer, vec2 wind) {
    float h = (w.y - layer.z) / layer.w;
    if (h <= 0.0 || h >= 1.0)
        return 0.0;
    vec2 q = w.xz + wind;
    float n = cloud_fbm(vec3(q * 0.16, 0.5), 3);
    float cov = layer.x;
    if (cov <= 0.0)
        return 0.0;
    float base = smoothstep(1.0 - cov - 0.1, 1.0 - cov + 0.1, n);
    if (base <= 0.0)
        return 0.0;
    base *= clamp(h * 5.0, 0.0, 1.0) * clamp((1.0 - h) * 2.0, 0.0, 1.0);
    float detail = cloud_fbm(vec3(q, w.y) * 0.9, 2);
    return clamp(base * 1.3 - detail * 0.45, 0.0, 1.0) * layer.y;
}
