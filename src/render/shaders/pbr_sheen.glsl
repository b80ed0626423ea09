// pbr_sheen.glsl: KHR_materials_sheen for pbr.frag: a cloth-like layer over the surface. Its
// lobe is the "Charlie" distribution (Estevez and Kulla, 2017: D = (2 + 1/a) sin(theta_h)^(1/a)
// / 2pi, a = roughness^2), which peaks where the half vector lies along the surface, with
// Ashikhmin's visibility 1 / (4 (n.l + n.v - n.l n.v)): it brightens grazing angles and the rim
// of a lit shape. What is under it loses the share of light the sheen reflects, approximated by
// max(colour) times the lobe's directional albedo (a fit of it, sheen_albedo).

// This pixel's sheen: rgb colour (times the colour texture), w roughness (times the alpha of its
// texture); colour 0 = none.
vec4 sheen_params() {
    if (max(material.sheen.r, max(material.sheen.g, material.sheen.b)) <= 0.0)
        return vec4(0.0);
    vec3 c = material.sheen.rgb *
             texture(sheen_color_tex, slot_uv(SLOT_SHEEN_COLOR, in_uv, in_uv1)).rgb;
    float r = material.sheen.w *
              texture(sheen_rough_tex, slot_uv(SLOT_SHEEN_ROUGHNESS, in_uv, in_uv1)).a;
    return vec4(c, clamp(r, 0.07, 1.0));
}

float d_charlie(float noh, float rough) {
    float inv_a = 1.0 / (rough * rough);
    float sin2 = max(1.0 - noh * noh, 0.0078125); // 2^-7: no 0^x at the exact peak
    return (2.0 + inv_a) * pow(sin2, inv_a * 0.5) / (2.0 * PI);
}

float v_ashikhmin(float nol, float nov) {
    return clamp(1.0 / (4.0 * (nol + nov - nol * nov)), 0.0, 1.0);
}

// The sheen lobe toward light l, times n.l (the caller scales by the light).
vec3 sheen_brdf(vec3 n, vec3 v, vec3 l, vec4 sh) {
    vec3 h = normalize(v + l);
    float nol = clamp(dot(n, l), 0.0, 1.0);
    float nov = clamp(abs(dot(n, v)), 1e-4, 1.0);
    return sh.rgb * d_charlie(clamp(dot(n, h), 0.0, 1.0), sh.w) * v_ashikhmin(nol, nov) * nol;
}

// The share of light a white sheen of roughness r reflects seen at n.v (its directional
// albedo): a smooth fit, small facing the surface, larger toward grazing angles and with
// roughness, staying below about 0.5.
float sheen_albedo(float nov, float r) {
    float g = 1.0 - nov;
    return clamp(r * (0.18 + 0.35 * g * g * g) + 0.06 * g, 0.0, 0.5);
}
