// pbr_iridescence.glsl: KHR_materials_iridescence for pbr.frag: a thin film over the surface
// whose interference tints the specular reflection (soap bubbles, oil on water, beetle shells).
// The film's Fresnel reflectance is Belcour and Barla's analytic model ("A Practical Extension to
// Microfacet Theory for the Modeling of Varying Iridescence", 2017) as the Khronos glTF sample
// viewer evaluates it: the Airy sum of the film's two interfaces, its first two orders turned
// into RGB through Gaussian fits of the CIE colour-matching functions. It is evaluated once per
// pixel at the view angle and replaces the specular Fresnel by the iridescence strength.

// The film's reflectance and how much of it replaces the ordinary Fresnel (0 = no film).
vec3 iridescence_fresnel = vec3(0.0);
float iridescence_weight = 0.0;

float irid_sq(float x) { return x * x; }
vec3 irid_sq(vec3 x) { return x * x; }

float ior_to_f0(float t, float i) { return irid_sq((t - i) / (t + i)); }
vec3 ior_to_f0(vec3 t, float i) { return irid_sq((t - vec3(i)) / (t + vec3(i))); }

vec3 f0_to_ior(vec3 f0) {
    vec3 s = sqrt(f0);
    return (vec3(1.0) + s) / (vec3(1.0) - s);
}

float schlick1(float f0, float c) {
    return f0 + (1.0 - f0) * pow(1.0 - c, 5.0);
}

// The colour (linear Rec. 709) of a phase shift: optical path difference opd in nanometres.
vec3 irid_sensitivity(float opd, vec3 shift) {
    const float TAU = 6.28318530718;
    float phase = TAU * opd * 1.0e-9;
    vec3 val = vec3(5.4856e-13, 4.4201e-13, 5.2481e-13);
    vec3 pos = vec3(1.6810e+06, 1.7953e+06, 2.2084e+06);
    vec3 var = vec3(4.3278e+09, 9.3046e+09, 6.6121e+09);
    vec3 xyz = val * sqrt(TAU * var) * cos(pos * phase + shift) * exp(-phase * phase * var);
    xyz.x += 9.7470e-14 * sqrt(TAU * 4.5282e+09) * cos(2.2399e+06 * phase + shift.x) *
             exp(-4.5282e+09 * phase * phase);
    xyz /= 1.0685e-7;
    const mat3 XYZ_TO_REC709 = mat3(3.2404542, -0.9692660, 0.0556434, -1.5371385, 1.8760108,
                                    -0.2040259, -0.4985314, 0.0415560, 1.0572252);
    return XYZ_TO_REC709 * xyz;
}

// The film's reflectance seen at cos_v (n.v) from a medium of ior 1: film ior eta2, thickness
// in nanometres, over a base of reflectance base_f0 at normal incidence.
vec3 eval_iridescence(float eta2, float cos_v, float thickness, vec3 base_f0) {
    const float PI_ = 3.14159265359;
    // A film thinning to nothing turns into the outside medium, so the film fades out smoothly.
    float film = mix(1.0, eta2, smoothstep(0.0, 0.03, thickness));
    float sin2_sq = irid_sq(1.0 / film) * (1.0 - cos_v * cos_v);
    float cos2_sq = 1.0 - sin2_sq;
    if (cos2_sq < 0.0)
        return vec3(1.0); // total internal reflection
    float cos2 = sqrt(cos2_sq);
    // First interface: outside -> film.
    float r12 = schlick1(ior_to_f0(film, 1.0), cos_v);
    float t121 = 1.0 - r12;
    float phi12 = film < 1.0 ? PI_ : 0.0;
    float phi21 = PI_ - phi12;
    // Second interface: film -> base.
    vec3 base_ior = f0_to_ior(clamp(base_f0, 0.0, 0.9999));
    vec3 r1 = ior_to_f0(base_ior, film);
    vec3 r23 = r1 + (1.0 - r1) * pow(1.0 - cos2, 5.0);
    vec3 phi23 = vec3(base_ior.x < film ? PI_ : 0.0, base_ior.y < film ? PI_ : 0.0,
                      base_ior.z < film ? PI_ : 0.0);
    float opd = 2.0 * film * thickness * cos2;
    vec3 phi = vec3(phi21) + phi23;
    vec3 r123 = clamp(r12 * r23, 1e-5, 0.9999);
    vec3 rs = t121 * t121 * r23 / (vec3(1.0) - r123);
    vec3 i = r12 + rs; // order 0
    vec3 cm = rs - t121;
    for (int m = 1; m <= 2; m++) {
        cm *= sqrt(r123);
        i += cm * 2.0 * irid_sensitivity(float(m) * opd, float(m) * phi);
    }
    return max(i, vec3(0.0)); // out-of-gamut colours clamp at 0
}

// This pixel's film (strength times the red of its texture, thickness from min to max by the
// green of the other) over a base of reflectance f0, seen at nov.
void iridescence_setup(float nov, vec3 f0) {
    if (material.iridescence.x <= 0.0)
        return;
    iridescence_weight = material.iridescence.x *
                         texture(iridescence_tex, slot_uv(SLOT_IRIDESCENCE, in_uv, in_uv1)).r;
    float g = texture(iridescence_thickness_tex,
                      slot_uv(SLOT_IRIDESCENCE_THICKNESS, in_uv, in_uv1)).g;
    float thickness = mix(material.iridescence.z, material.iridescence.w, g);
    iridescence_fresnel = eval_iridescence(material.iridescence.y, nov, thickness, f0);
}
