#version 450
// ibl_fill.comp: level 0 of the IBL source cube, the radiance of the active sky in every
// direction. Mode 0 (sky mode `color`): a gradient from the ambient colour at the zenith to
// `horizon` at the horizon and `ground` below. Mode 1 (a Skybox or EnvironmentMapLight image): an
// equirectangular image turned by `rot` about +Y and scaled by `rot.z`.
#include "ibl_common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform writeonly image2DArray cube;
layout(set = 0, binding = 1) uniform sampler2D equirect;
layout(push_constant) uniform Push {
    vec4 zenith;  // rgb
    vec4 horizon; // rgb
    vec4 ground;  // rgb
    vec4 rot;     // x cos, y sin of the turn about +Y, z brightness, w mode
    uvec4 size;   // x face size, y the image's mip count
} pc;

vec3 gradient(vec3 d) {
    if (d.y >= 0.0)
        return mix(pc.horizon.rgb, pc.zenith.rgb, sqrt(d.y));
    return mix(pc.horizon.rgb, pc.ground.rgb, clamp(-d.y * 4.0, 0.0, 1.0));
}

vec3 image(vec3 d) {
    // Turn the direction, then longitude (0 at -Z... along +X) and latitude to the image's uv.
    vec3 r = vec3(pc.rot.x * d.x + pc.rot.y * d.z, d.y, -pc.rot.y * d.x + pc.rot.x * d.z);
    float u = atan(r.x, -r.z) * (0.5 / IBL_PI) + 0.5;
    float v = acos(clamp(r.y, -1.0, 1.0)) / IBL_PI;
    // A cube texel covers about (2 / size) radians; pick the image level of that footprint.
    vec2 isz = vec2(textureSize(equirect, 0));
    float texels = isz.x / (2.0 * IBL_PI) * (2.0 / float(pc.size.x));
    float lod = clamp(log2(max(texels, 1.0)), 0.0, float(pc.size.y) - 1.0);
    vec3 c = textureLod(equirect, vec2(u, v), lod).rgb;
    // NaN or infinite texels of a hostile image become black rather than spreading.
    c = mix(c, vec3(0.0), bvec3(isnan(c.r) || isinf(c.r), isnan(c.g) || isinf(c.g),
                                isnan(c.b) || isinf(c.b)));
    return clamp(c * pc.rot.z, vec3(0.0), vec3(65000.0));
}

void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID.xyz);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.x))
        return;
    vec3 d = normalize(ibl_cube_dir(p.z, (vec2(p.xy) + 0.5) / float(pc.size.x)));
    vec3 c = pc.rot.w > 0.5 ? image(d) : gradient(d);
    imageStore(cube, p, vec4(c, 1.0));
}
