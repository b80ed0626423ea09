// pbr_anisotropy.glsl: KHR_materials_anisotropy for pbr.frag: brushed metal, hair, satin. The
// GGX lobe gets two roughnesses, along the anisotropy direction (stretched toward 1 by the
// strength squared) and across it (the material's), in the Khronos sample viewer's form
// (Kulla and Conty's anisotropic GGX with height-correlated Smith visibility). The direction is
// the tangent frame's +u turned by the rotation (and by the texture's red and green); the sky's
// reflection is taken about a normal bent toward the stretch (Filament's approximation).

// This pixel's anisotropy: strength (0 = none), direction and the one across it.
float aniso_strength = 0.0;
vec3 aniso_t = vec3(1.0, 0.0, 0.0), aniso_b = vec3(0.0, 1.0, 0.0);

// Sets the pixel's anisotropy in the tangent frame (t, b) around the geometric normal gn.
void anisotropy_setup(vec3 gn, vec3 t, vec3 b, vec2 auv) {
    vec3 tex = material.anisotropy.w > 0.5 ? texture(anisotropy_tex, auv).rgb : vec3(1.0, 0.5, 1.0);
    vec2 dir = tex.rg * 2.0 - 1.0;
    float c = material.anisotropy.y, s = material.anisotropy.z;
    dir = mat2(c, s, -s, c) * dir;
    vec3 d = mat3(t, b, gn) * vec3(dir, 0.0);
    if (dot(d, d) < 1e-12)
        return; // a texel without a direction: isotropic
    aniso_strength = clamp(material.anisotropy.x * tex.b, 0.0, 1.0);
    aniso_t = normalize(d);
    aniso_b = normalize(cross(gn, aniso_t));
}

float d_ggx_aniso(float noh, float toh, float boh, float at, float ab) {
    float a2 = at * ab;
    vec3 f = vec3(ab * toh, at * boh, a2 * noh);
    float w2 = a2 / dot(f, f);
    return a2 * w2 * w2 / 3.14159265359;
}

float v_smith_aniso(float nol, float nov, float bov, float tov, float tol, float bol, float at,
                    float ab) {
    float gv = nol * length(vec3(at * tov, ab * bov, nov));
    float gl = nov * length(vec3(at * tol, ab * bol, nol));
    return clamp(0.5 / max(gv + gl, 1e-5), 0.0, 1.0);
}

// D times V of the anisotropic lobe of alpha a (roughness squared) toward l.
float aniso_dv(vec3 n, vec3 v, vec3 l, vec3 h, float a) {
    float at = mix(a, 1.0, aniso_strength * aniso_strength), ab = a;
    float nol = clamp(dot(n, l), 0.0, 1.0);
    float nov = clamp(abs(dot(n, v)), 1e-4, 1.0);
    float noh = clamp(dot(n, h), 0.0, 1.0);
    return d_ggx_aniso(noh, dot(aniso_t, h), dot(aniso_b, h), at, ab) *
           v_smith_aniso(nol, nov, dot(aniso_b, v), dot(aniso_t, v), dot(aniso_t, l),
                         dot(aniso_b, l), at, ab);
}

// The normal the sky's reflection is taken about: bent toward the plane across the stretch.
vec3 aniso_bent_normal(vec3 n, vec3 v, float rough) {
    vec3 dir = aniso_b; // the stretch is along aniso_t: reflections smear along it
    vec3 at = cross(dir, v);
    vec3 an = cross(at, dir);
    float bend = 1.0 - aniso_strength * (1.0 - rough);
    bend *= bend;
    vec3 bn = mix(an, n, bend * bend);
    return dot(bn, bn) > 1e-12 ? normalize(bn) : n;
}
