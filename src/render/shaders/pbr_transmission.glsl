// pbr_transmission.glsl: KHR_materials_transmission and _volume for pbr.frag. A transmissive
// surface replaces part of its diffuse light with what lies behind it: the view's opaque image
// (transmission.c copies it after the opaque pass, with mips), sampled where the view ray leaves
// the surface's volume after refracting through it (thin-walled: right behind the pixel), at a
// mip that grows with the roughness, tinted by the base colour and, through a volume, faded
// toward the attenuation colour over the distance travelled (Beer-Lambert). With
// KHR_materials_dispersion each colour channel refracts with its own ior and is sampled where
// its own ray leaves, so edges seen through the volume split into colours.
layout(set = 0, binding = 16) uniform sampler2D transmission_scene;

// This pixel's transmission (factor times the red of its texture); 0 = an ordinary surface.
float transmission_amount() {
    if (material.params5.x <= 0.0)
        return 0.0;
    return material.params5.x *
           texture(transmission_tex, slot_uv(SLOT_TRANSMISSION, in_uv, in_uv1)).r;
}

// Where a world point lands in the view's image (uv; viewports are y-flipped).
vec2 screen_uv(vec3 p) {
    vec4 c = frame.view_proj * vec4(p, 1.0);
    vec2 ndc = c.xy / max(abs(c.w), 1e-6) * sign(c.w);
    return vec2(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
}

// The light reaching the eye through the surface (before the caller weighs it by transmission
// and Fresnel): n the shading normal, v toward the eye, rough the surface's roughness.
vec3 transmitted_light(vec3 n, vec3 v, vec3 tint, float rough) {
    float ior = material.attenuation.w;
    float travelled = 0.0;
    vec2 here = gl_FragCoord.xy / frame.cluster_params.zw;
    // The rougher (and the more refractive) the surface, the blurrier what shows through it.
    float blur = rough * clamp(ior * 2.0 - 2.0, 0.0, 1.0);
    float lod = log2(max(frame.cluster_params.z, frame.cluster_params.w)) * blur;
    vec3 behind = vec3(0.0);
    if (material.params5.w > 0.5) {
        float thick = material.params5.y *
                      texture(thickness_tex, slot_uv(SLOT_THICKNESS, in_uv, in_uv1)).g;
        travelled = thick;
        // KHR_materials_dispersion: red, green and blue refract with iors spread about the
        // material's, each sampled where its own ray leaves the volume.
        float spread = (ior - 1.0) * 0.025 * material.params6.x;
        int channels = spread > 0.0 ? 3 : 1;
        for (int c = 0; c < channels; c++) {
            float eta = channels == 1 ? ior : ior + spread * float(c - 1);
            vec3 dir = refract(-v, n, 1.0 / max(eta, 1.0));
            if (dot(dir, dir) < 1e-8)
                dir = -v; // total internal reflection cannot happen entering a denser medium
            vec3 exit_p = in_world + normalize(dir) * thick;
            vec2 uv = clamp(here + screen_uv(exit_p) - screen_uv(in_world), vec2(0.0), vec2(1.0));
            vec3 mask = channels == 1 ? vec3(1.0) : vec3(equal(ivec3(0, 1, 2), ivec3(c)));
            behind += textureLod(transmission_scene, uv, lod).rgb * mask;
        }
    } else {
        behind = textureLod(transmission_scene, clamp(here, vec2(0.0), vec2(1.0)), lod).rgb;
    }
    vec3 fade = vec3(1.0);
    if (material.params5.z > 0.0 && travelled > 0.0)
        fade = pow(max(material.attenuation.rgb, vec3(1e-6)), vec3(travelled / material.params5.z));
    return behind * tint * fade;
}
