// pbr_body.glsl: Cook-Torrance metallic-roughness shading (GGX distribution, height-correlated
// Smith visibility, Schlick Fresnel, Lambert diffuse) for the sun with cascaded shadows and a list
// of point and spot lights, the fragment shader's body shared by pbr.frag (the opaque and
// transparent passes: the colour goes to the attachment) and oit_pbr.frag (order-independent
// transparency: the colour goes to the pixel's layers). The includer defines
// `void pbr_emit(vec4 linear_hdr_colour_and_alpha)` and `void pbr_begin()` (called first in
// main: it may discard) first and enables GL_EXT_demote_to_helper_invocation.
#include "common.glsl"
#include "surface.glsl"
#define PROBE_BINDING 10
#include "probes.glsl"

layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;
layout(location = 4) in vec4 in_clip;
layout(location = 5) in vec4 in_prev_clip;
layout(location = 6) in float in_view_depth;
layout(location = 7) flat in float in_lod_fade;
layout(location = 8) in vec4 in_color; // the vertex colour (white without)
layout(location = 9) in vec2 in_uv1;


#include "pbr_transmission.glsl"
#include "pbr_iridescence.glsl"
#include "pbr_anisotropy.glsl"
#include "pbr_decals.glsl"

// The opaque and transparent passes test depth without writing it, so the test can run before
// the shader even though it may discard: fragments the prepass hid are never shaded.
layout(early_fragment_tests) in;

const float PI = 3.14159265359;

float d_ggx(float noh, float a) {
    float a2 = a * a;
    float f = noh * noh * (a2 - 1.0) + 1.0;
    return a2 / (PI * f * f);
}

float v_smith(float nov, float nol, float a) {
    float a2 = a * a;
    float gv = nol * sqrt(nov * nov * (1.0 - a2) + a2);
    float gl = nov * sqrt(nol * nol * (1.0 - a2) + a2);
    return 0.5 / max(gv + gl, 1e-5);
}

vec3 f_schlick(float voh, vec3 f0) {
    return f0 + (1.0 - f0) * pow(1.0 - voh, 5.0);
}

// This pixel's dielectric reflectance (KHR_materials_ior / _specular): rgb at normal incidence,
// w at grazing angles; material.spec, or with the specular textures that times their texels.
vec4 dielectric_spec = vec4(0.04, 0.04, 0.04, 1.0);

// KHR_materials_specular's textures: the strength (alpha of specular_tex) and the colour (rgb of
// specular_color_tex, sRGB) multiply the factors before the reflectance is clamped to 1.
vec4 textured_spec() {
    float s = material.spec_raw.w * texture(specular_tex, slot_uv(SLOT_SPECULAR, in_uv, in_uv1)).a;
    vec3 c = texture(specular_color_tex, slot_uv(SLOT_SPECULAR_COLOR, in_uv, in_uv1)).rgb;
    return vec4(min(material.spec_raw.rgb * c, vec3(1.0)) * s, s);
}

// The reflectance at normal incidence and at grazing angles of a material with its own
// dielectric ones (params3.w 1), blended toward the metal's (albedo, 1). Materials without them
// keep the constant expressions (0.04, 1) the shader always had, so their pixels stay the same
// to the bit.
vec3 f_schlick_spec(float voh, vec3 albedo, float metallic) {
    vec3 f0 = mix(dielectric_spec.rgb, albedo, metallic);
    float f90 = dielectric_spec.w + (1.0 - dielectric_spec.w) * metallic;
    return f0 + (f90 - f0) * pow(1.0 - voh, 5.0);
}

// The share of the diffuse light a surface keeps: 1 - its transmission (KHR_materials_transmission
// replaces the rest with what shows through it).
float diffuse_weight = 1.0;

vec3 brdf(vec3 n, vec3 v, vec3 l, vec3 albedo, float metallic, float rough) {
    vec3 h = normalize(v + l);
    float nol = clamp(dot(n, l), 0.0, 1.0);
    float nov = clamp(abs(dot(n, v)), 1e-4, 1.0);
    float noh = clamp(dot(n, h), 0.0, 1.0);
    float voh = clamp(dot(v, h), 0.0, 1.0);
    float a = rough * rough;
    vec3 f0 = mix(vec3(0.04), albedo, metallic);
    vec3 f = material.params3.w > 0.5 ? f_schlick_spec(voh, albedo, metallic) : f_schlick(voh, f0);
    if (iridescence_weight > 0.0)
        f = mix(f, iridescence_fresnel, iridescence_weight);
    float dv = aniso_strength > 0.0 ? aniso_dv(n, v, l, h, a) : d_ggx(noh, a) * v_smith(nov, nol, a);
    vec3 spec = dv * f;
    vec3 diff = (1.0 - f) * (1.0 - metallic) * albedo / PI * diffuse_weight;
    return (diff + spec) * nol;
}

// Diffuse sky light reaching a Lambert surface facing n, divided by pi (so albedo x this is what
// it reflects): the baked spherical harmonics evaluated at n.
vec3 sky_diffuse(vec3 n) {
    vec3 c = texelFetch(ibl_sh, ivec2(0, 0), 0).rgb * 0.282095;
    c += texelFetch(ibl_sh, ivec2(1, 0), 0).rgb * (0.488603 * n.y);
    c += texelFetch(ibl_sh, ivec2(2, 0), 0).rgb * (0.488603 * n.z);
    c += texelFetch(ibl_sh, ivec2(3, 0), 0).rgb * (0.488603 * n.x);
    c += texelFetch(ibl_sh, ivec2(4, 0), 0).rgb * (1.092548 * n.x * n.y);
    c += texelFetch(ibl_sh, ivec2(5, 0), 0).rgb * (1.092548 * n.y * n.z);
    c += texelFetch(ibl_sh, ivec2(6, 0), 0).rgb * (0.315392 * (3.0 * n.z * n.z - 1.0));
    c += texelFetch(ibl_sh, ivec2(7, 0), 0).rgb * (1.092548 * n.x * n.z);
    c += texelFetch(ibl_sh, ivec2(8, 0), 0).rgb * (0.546274 * (n.x * n.x - n.y * n.y));
    return max(c, vec3(0.0));
}

// Split-sum environment BRDF: the scale and bias of F0, from the baked table.
vec2 env_brdf(float nov, float rough) {
    return textureLod(ibl_brdf, vec2(nov, rough), 0.0).rg;
}

float shadow_factor(vec3 world, vec3 n) {
    if (frame.sun_dir.w == 0.0)
        return 1.0;
    int count = int(frame.shadow_params.z);
    int c = 0;
    while (c < count - 1 && in_view_depth > frame.cascade_far[c])
        c++;
    if (in_view_depth > frame.cascade_far[count - 1])
        return 1.0;
    // Normal offset: push the lookup along the normal by about a texel of this cascade.
    vec3 p = world + n * frame.cascade_texel[c] * 1.5;
    vec4 lc = frame.cascade_view_proj[c] * vec4(p, 1.0);
    vec3 uvz = lc.xyz / lc.w;
    vec2 uv = vec2(uvz.x * 0.5 + 0.5, 0.5 - uvz.y * 0.5); // viewports are y-flipped
    if (uv.x < 0.0 || uv.x > 1.0 || uv.y < 0.0 || uv.y > 1.0 || uvz.z > 1.0)
        return 1.0;
    float ts = frame.shadow_params.x;
    float sum = 0.0;
    for (int y = -1; y <= 1; y++)
        for (int x = -1; x <= 1; x++)
            sum += texture(shadow_map, vec4(uv + vec2(x, y) * ts, float(c), uvz.z));
    return sum / 9.0;
}

// The tangent frame (t, b) around n for UVs nuv, in which a normal map's normal (texture tex of
// slot `slot`, XY scaled by `scale`, Z rebuilt when the map is two-channel) or the anisotropy
// direction lies: the vertex tangent's. A frame that cannot be built
// from the vertex tangent (none given, or one parallel to the normal, as files sometimes hold)
// comes from screen-space derivatives of position and UV instead, and a frame that degenerates
// even so leaves the geometric normal: a normalize() of a zero vector is NaN, which would paint
// the face black. The derivatives are taken outside any branch, where they are defined.
void tangent_frame(vec3 n, vec2 nuv, out vec3 t, out vec3 b) {
    vec3 dp1 = dFdx(in_world), dp2 = dFdy(in_world);
    vec2 du1 = dFdx(nuv), du2 = dFdy(nuv);
    t = in_tangent.xyz - n * dot(n, in_tangent.xyz);
    if (dot(t, t) < 1e-6 * max(dot(in_tangent.xyz, in_tangent.xyz), 1e-6)) {
        vec3 dp2perp = cross(dp2, n), dp1perp = cross(n, dp1);
        t = dp2perp * du1.x + dp1perp * du2.x;
        b = dp2perp * du1.y + dp1perp * du2.y;
        float inv = inversesqrt(max(max(dot(t, t), dot(b, b)), 1e-12));
        t *= inv;
        b *= inv;
    } else {
        t = normalize(t);
        b = cross(n, t) * (in_tangent.w < 0.0 ? -1.0 : 1.0);
    }
}

vec3 mapped_normal(sampler2D tex, int slot, float scale, bool two_channel, vec3 n) {
    vec2 nuv = slot_uv(slot, in_uv, in_uv1);
    vec3 tn = texture(tex, nuv).xyz * 2.0 - 1.0;
    if (two_channel) {
        // A two-channel map (BC5, what export makes of every normal map): blue samples 0, so Z
        // is rebuilt from X and Y (a tangent-space normal has unit length and points out).
        tn.z = sqrt(clamp(1.0 - dot(tn.xy, tn.xy), 0.0, 1.0));
    }
    tn.xy *= scale;
    vec3 t, b;
    tangent_frame(n, nuv, t, b);
    vec3 s = mat3(t, b, n) * tn;
    return dot(s, s) > 1e-12 ? normalize(s) : n;
}

// The per-pixel normal: the material's normal map.
vec3 shading_normal(vec3 n) {
    return mapped_normal(normal_tex, SLOT_NORMAL, material.params2.x, material.emissive.w > 0.5, n);
}

// The clear coat's normal: its own normal map (KHR_materials_clearcoat's clearcoatNormalTexture)
// or, without one, the geometric normal.
vec3 coat_normal(vec3 geo_n) {
    if (material.params4.y < 0.5)
        return geo_n;
    return mapped_normal(clearcoat_normal_tex, SLOT_CLEARCOAT_NORMAL, material.params4.x,
                         material.params4.z > 0.5, geo_n);
}

#include "pbr_sheen.glsl"

// The clear coat's specular lobe (KHR_materials_clearcoat): dielectric GGX (F0 0.04) of the
// coat's roughness around the coat's normal nc, times n.l; the caller scales it by the
// coat's strength and the light.
vec3 coat_brdf(vec3 nc, vec3 v, vec3 l, float rough) {
    vec3 h = normalize(v + l);
    float nol = clamp(dot(nc, l), 0.0, 1.0);
    float nov = clamp(abs(dot(nc, v)), 1e-4, 1.0);
    float a = rough * rough;
    float f = f_schlick(clamp(dot(v, h), 0.0, 1.0), vec3(0.04)).x;
    return vec3(d_ggx(clamp(dot(nc, h), 0.0, 1.0), a) * v_smith(nov, nol, a) * f * nol);
}

// Samples layer `i` of a 2 x 2 atlas at tiling coordinate t. The explicit gradients come from t
// itself, so the wrap at each tile edge does not make the hardware pick the smallest mip, and the
// quadrant is inset by a margin so bilinear filtering never reaches the neighbour's texels.
vec4 atlas_sample(sampler2D atlas, int i, vec2 t) {
    vec2 q = vec2(float(i % 2), float(i / 2)) * 0.5;
    vec2 uv = q + 0.25 / 64.0 + fract(t) * (0.5 - 0.5 / 64.0);
    return textureGrad(atlas, uv, dFdx(t) * 0.5, dFdy(t) * 0.5);
}

// The terrain splat material: the layers' colours and normals blended by the weight map. The
// layer normals are in a tangent frame along world +X and +Z (the terrain's tiling axes).
void terrain_surface(vec3 n, out vec3 albedo, out vec3 shading_n) {
    int count = clamp(int(material.params2.w), 1, 4);
    vec4 w = texture(base_color_tex, in_uv);
    if (count < 4) w.a = 0.0;
    if (count < 3) w.b = 0.0;
    if (count < 2) w.g = 0.0;
    float sum = w.r + w.g + w.b + w.a;
    w = sum > 1e-4 ? w / sum : vec4(1.0, 0.0, 0.0, 0.0);
    vec3 t = normalize(vec3(1.0, 0.0, 0.0) - n * n.x);
    vec3 b = normalize(vec3(0.0, 0.0, 1.0) - n * n.z);
    albedo = vec3(0.0);
    vec3 tn = vec3(0.0);
    for (int i = 0; i < count; i++) {
        float wi = w[i];
        if (wi <= 0.0)
            continue;
        vec2 tc = in_world.xz / max(material.layer_tile[i], 1e-3);
        albedo += wi * material.layer_color[i].rgb * atlas_sample(mr_tex, i, tc).rgb;
        tn += wi * (atlas_sample(normal_tex, i, tc).xyz * 2.0 - 1.0);
    }
    tn.xy *= material.params2.x;
    shading_n = normalize(t * tn.x + b * tn.y + n * max(tn.z, 1e-3));
}

void main() {
    pbr_begin();
    if (lod_dither_discard(in_lod_fade, gl_FragCoord.xy))
        demote; // a helper, not killed: its quad's texture derivatives stay defined
    bool terrain = material.params2.z == 1.0;
    vec4 base = material.base_color * vertex_color(in_color) *
                texture(base_color_tex, slot_uv(SLOT_BASE, in_uv, in_uv1));
    if (!terrain && material.params2.y == 1.0 && base.a < material.params.w)
        discard;
    vec3 n = surface_normal(in_normal, in_world);
    vec3 geo_n = n;
    vec4 mr;
    float ao;
    if (terrain) {
        base = vec4(0.0, 0.0, 0.0, 1.0);
        terrain_surface(geo_n, base.rgb, n);
        mr = vec4(1.0);
        ao = 1.0;
    } else {
        n = shading_normal(n);
        mr = texture(mr_tex, slot_uv(SLOT_MR, in_uv, in_uv1));
        ao = mix(1.0, texture(occlusion_tex, slot_uv(SLOT_OCCLUSION, in_uv, in_uv1)).r, material.params.z);
    }
    vec2 decal_rough = vec2(0.0); // premultiplied roughness, coverage
    if (material.params2.y != 2.0 && material.params5.x <= 0.0) { // ForwardDecal: opaque surfaces
        ivec3 ds = textureSize(decal_tex, 0); // 1x1, one layer without decals
        ivec2 dp = min(ivec2(gl_FragCoord.xy), ds.xy - 1);
        vec4 dc = texelFetch(decal_tex, ivec3(dp, 0), 0);
        base.rgb = base.rgb * (1.0 - dc.a) + dc.rgb;
        vec4 dn = texelFetch(decal_tex, ivec3(dp, min(1, ds.z - 1)), 0);
        if (dn.w > 0.0)
            n = normalize(n * (1.0 - dn.w) + dn.xyz);
        decal_rough = texelFetch(decal_tex, ivec3(dp, min(2, ds.z - 1)), 0).rg;
    } else if (!terrain) { // blended or transmissive: the fragment walks its tile's decals
        transparent_decals(in_world, n, base.rgb, decal_rough);
    }
    if (material.params3.x > 0.5) { // unlit: the base colour as it is
        pbr_emit(vec4(base.rgb, material.params2.y == 2.0 ? base.a : 1.0));
        return;
    }
    float metallic = clamp(material.params.x * mr.b, 0.0, 1.0);
    float rough = clamp(material.params.y * mr.g * (1.0 - decal_rough.y) + decal_rough.x, 0.045, 1.0);
    float coat = material.params3.y, coat_rough = material.params3.z;
    vec3 coat_n = geo_n;
    if (coat > 0.0) { // strength times red, roughness times green of their textures
        coat *= texture(clearcoat_tex, slot_uv(SLOT_CLEARCOAT, in_uv, in_uv1)).r;
        coat_rough *= texture(clearcoat_rough_tex, slot_uv(SLOT_CLEARCOAT_ROUGHNESS, in_uv, in_uv1)).g;
        coat_n = coat_normal(geo_n);
    }
    coat_rough = clamp(coat_rough, 0.045, 1.0);
    if (material.params3.w > 0.5)
        dielectric_spec = material.params4.w > 0.5 ? textured_spec() : material.spec;
    vec3 coat_light = vec3(0.0);
    float transmission = transmission_amount();
    diffuse_weight = 1.0 - transmission;
    // SSAO describes the surfaces of the prepass only (not blended or transmissive ones).
    if (frame.counts.z == 1u && material.params2.y != 2.0 && material.params5.x <= 0.0)
        ao *= texture(ssao_tex, gl_FragCoord.xy / frame.cluster_params.zw).r;
    vec3 v = normalize(frame.camera_pos.xyz - in_world);
    if (material.anisotropy.x > 0.0) {
        vec2 auv = slot_uv(SLOT_ANISOTROPY, in_uv, in_uv1);
        vec3 at, ab;
        tangent_frame(geo_n, auv, at, ab);
        anisotropy_setup(geo_n, at, ab, auv);
    }
    if (material.iridescence.x > 0.0) {
        vec3 df0 = material.params3.w > 0.5 ? dielectric_spec.rgb : vec3(0.04);
        iridescence_setup(clamp(abs(dot(n, v)), 1e-4, 1.0), mix(df0, base.rgb, metallic));
    }
    vec3 color = vec3(0.0);
    vec4 sheen = sheen_params(); // w 0: no sheen
    vec3 sheen_light = vec3(0.0);
    if (frame.sun_color.w > 0.0) {
        vec3 l = normalize(frame.sun_dir.xyz);
        float sf = shadow_factor(in_world, geo_n) * cloud_shadow(in_world);
        color += brdf(n, v, l, base.rgb, metallic, rough) * frame.sun_color.rgb * sf;
        if (coat > 0.0)
            coat_light += coat_brdf(coat_n, v, l, coat_rough) * frame.sun_color.rgb * sf;
        if (sheen.w > 0.0)
            sheen_light += sheen_brdf(n, v, l, sheen) * frame.sun_color.rgb * sf;
    }
    uint first = 0u, count = frame.counts.x;
    bool clustered = frame.counts.y == 1u;
    if (clustered) {
        vec2 uv = gl_FragCoord.xy / frame.cluster_params.zw;
        uint tx = min(uint(uv.x * float(CLUSTER_X)), CLUSTER_X - 1u);
        uint ty = min(uint(uv.y * float(CLUSTER_Y)), CLUSTER_Y - 1u);
        float sl = (log(max(in_view_depth, 1e-4)) - frame.cluster_params.y) * frame.cluster_params.x;
        uint tz = uint(clamp(sl, 0.0, float(CLUSTER_Z - 1u)));
        uvec2 cell = clusters[(tz * CLUSTER_Y + ty) * CLUSTER_X + tx];
        first = cell.x;
        count = cell.y;
    }
    for (uint k = 0u; k < count; k++) {
        uint i = clustered ? cluster_lights[first + k] : k;
        Light lt = lights[i];
        vec3 to = lt.pos_range.xyz - in_world;
        float d2 = max(dot(to, to), 1e-4);
        vec3 l = to * inversesqrt(d2);
        float r = lt.pos_range.w;
        float win = clamp(1.0 - (d2 * d2) / (r * r * r * r), 0.0, 1.0);
        float atten = win * win / d2;
        if (lt.dir_kind.w > 0.5) {
            float cd = dot(-l, normalize(lt.dir_kind.xyz));
            atten *= smoothstep(lt.cone.y, lt.cone.x, cd);
        }
        color += brdf(n, v, l, base.rgb, metallic, rough) * lt.color.rgb * atten;
        if (coat > 0.0)
            coat_light += coat_brdf(coat_n, v, l, coat_rough) * lt.color.rgb * atten;
        if (sheen.w > 0.0)
            sheen_light += sheen_brdf(n, v, l, sheen) * lt.color.rgb * atten;
    }
    // Image-based light: the sky's diffuse irradiance for dielectrics and its prefiltered
    // reflection (split sum; the reflection probes covering the surface, probes.glsl, over the
    // sky's) for the specular part, so shadowed faces get sky light and metals reflect the sky. WorldEnvironment.ambient scales both; occlusion darkens both.
    float nov = clamp(abs(dot(n, v)), 1e-4, 1.0);
    vec2 ab = env_brdf(nov, rough);
    vec3 f0 = mix(vec3(0.04), base.rgb, metallic);
    vec3 spec_f = f0 * ab.x + ab.y;
    if (material.params3.w > 0.5) {
        f0 = mix(dielectric_spec.rgb, base.rgb, metallic);
        spec_f = f0 * ab.x + (dielectric_spec.w + (1.0 - dielectric_spec.w) * metallic) * ab.y;
    }
    if (iridescence_weight > 0.0) // the film's reflectance times the lobe's albedo
        spec_f = mix(spec_f, iridescence_fresnel * (ab.x + ab.y), iridescence_weight);
    vec3 amb_diffuse = sky_diffuse(n) * base.rgb * (1.0 - metallic) * (1.0 - spec_f) * diffuse_weight;
    vec3 refl_n = aniso_strength > 0.0 ? aniso_bent_normal(n, v, rough) : n;
    vec3 amb_specular = environment_specular(in_world, reflect(-v, refl_n), rough) * spec_f;
    color += (amb_diffuse + amb_specular) * (ao * frame.ambient.x);
    if (transmission > 0.0) // what shows through, less what the surface reflects
        color += transmitted_light(n, v, base.rgb, rough) * transmission * (1.0 - metallic) *
                 (1.0 - spec_f);
    if (sheen.w > 0.0) {
        // The sheen reflects the lights and the sky; what is under it loses that share.
        float e = sheen_albedo(nov, sheen.w);
        vec3 sheen_sky = sheen.rgb * e * sky_diffuse(n) * (ao * frame.ambient.x);
        color = color * (1.0 - max(sheen.r, max(sheen.g, sheen.b)) * e) + sheen_light + sheen_sky;
    }
    if (!terrain)
        color += material.emissive.rgb * texture(emissive_tex, slot_uv(SLOT_EMISSIVE, in_uv, in_uv1)).rgb;
    if (coat > 0.0) {
        // The coat reflects the sky too, and what is under it loses what it reflects.
        float cnov = clamp(abs(dot(coat_n, v)), 1e-4, 1.0);
        vec2 cab = env_brdf(cnov, coat_rough);
        vec3 coat_env = environment_specular(in_world, reflect(-v, coat_n), coat_rough) *
                        (0.04 * cab.x + cab.y) * (ao * frame.ambient.x);
        float fc = f_schlick(cnov, vec3(0.04)).x;
        color = color * (1.0 - coat * fc) + coat * (coat_light + coat_env);
    }
    float alpha = material.params2.y == 2.0 ? base.a : 1.0;
    pbr_emit(vec4(color, alpha));
}
