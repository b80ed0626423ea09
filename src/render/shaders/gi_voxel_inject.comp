#version 450
// gi_voxel_inject.comp: lights one cascade of the voxel clipmap (gi_voxel.h). Each invocation
// takes one texel t of the 64^3 image, finds the world voxel it holds (toroidal addressing: the
// one in the cascade's region congruent to t mod 64), reads its albedo and emissive from the
// voxel buffer and writes the light it sends out, as a Lambert reflector lit from every side:
// albedo / pi x (the sun through the cascaded shadow map + the point and spot lights, unshadowed)
// + emissive, premultiplied by opacity (a = 1 occupied, 0 empty).

// The leading part of `Frame` (common.glsl, frame.h).
layout(set = 0, binding = 0) uniform Frame {
    mat4 view, proj, view_proj, prev_view_proj;
    mat4 cascade_view_proj[4];
    vec4 cascade_far, cascade_texel;
    vec4 camera_pos;    // xyz
    vec4 sun_dir;       // xyz toward the light, w 1 when shadows are on
    vec4 sun_color;     // rgb colour x illuminance, w 1 when there is a sun
    vec4 ambient;       // x the image-based light's intensity
    vec4 shadow_params; // x texel size in uv, z cascade count
    uvec4 counts;       // x light count
} frame;
layout(set = 0, binding = 1) uniform sampler2DArrayShadow shadow_map;
layout(set = 0, binding = 2) readonly buffer Voxels { uvec2 voxels[]; };
struct Light {
    vec4 pos_range; // xyz position, w range
    vec4 color;     // rgb colour x intensity
    vec4 dir_kind;  // xyz direction (spot), w 0 point / 1 spot
    vec4 cone;      // x cos(inner), y cos(outer)
};
layout(set = 0, binding = 3) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 4, rgba16f) uniform writeonly image3D volume;
layout(push_constant) uniform Push {
    ivec4 origin; // xyz: world voxel of the region's low corner; w: the cascade
    float size;   // metres a voxel
    uint max_lights;
} pc;
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

const int RES = 64, BRICK = 16;

float sun_visibility(vec3 p) {
    if (frame.sun_dir.w == 0.0)
        return 1.0;
    float vd = -(frame.view * vec4(p, 1.0)).z;
    int count = int(frame.shadow_params.z);
    if (count <= 0 || vd > frame.cascade_far[count - 1] || vd < 0.0)
        return 1.0;
    int c = 0;
    while (c < count - 1 && vd > frame.cascade_far[c])
        c++;
    vec4 lc = frame.cascade_view_proj[c] * vec4(p, 1.0);
    vec3 uvz = lc.xyz / lc.w;
    vec2 uv = vec2(uvz.x * 0.5 + 0.5, 0.5 - uvz.y * 0.5); // viewports are y-flipped
    if (uv.x < 0.0 || uv.x > 1.0 || uv.y < 0.0 || uv.y > 1.0 || uvz.z > 1.0)
        return 1.0;
    return texture(shadow_map, vec4(uv, float(c), uvz.z));
}

void main() {
    ivec3 t = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(t, ivec3(RES))))
        return;
    ivec3 b = t / BRICK, v = t % BRICK;
    uint index = uint((b.x + 4 * (b.y + 4 * b.z)) * BRICK * BRICK * BRICK +
                      v.x + BRICK * (v.y + BRICK * v.z));
    uint cascade_base = uint(pc.origin.w) * uint(RES * RES * RES);
    uvec2 w = voxels[cascade_base + index];
    vec4 albedo = unpackUnorm4x8(w.x);
    if (albedo.a == 0.0) {
        imageStore(volume, t, vec4(0.0));
        return;
    }
    vec3 e = unpackUnorm4x8(w.y).rgb;
    vec3 emissive = e * e * 16.0;
    ivec3 wv = pc.origin.xyz + ((t - pc.origin.xyz) % RES + RES) % RES;
    vec3 p = (vec3(wv) + 0.5) * pc.size;
    vec3 light = vec3(0.0);
    if (frame.sun_color.w > 0.0) {
        // Tested one voxel toward the sun: the voxel's own surface does not shadow it.
        light += frame.sun_color.rgb * sun_visibility(p + frame.sun_dir.xyz * pc.size);
    }
    uint n = min(frame.counts.x, pc.max_lights);
    for (uint k = 0u; k < n; k++) {
        Light lt = lights[k];
        vec3 to = lt.pos_range.xyz - p;
        float d2 = max(dot(to, to), 1e-4);
        float r = lt.pos_range.w;
        float win = clamp(1.0 - (d2 * d2) / (r * r * r * r), 0.0, 1.0);
        float atten = win * win / d2;
        if (lt.dir_kind.w > 0.5) {
            float cd = dot(-to * inversesqrt(d2), normalize(lt.dir_kind.xyz));
            atten *= smoothstep(lt.cone.y, lt.cone.x, cd);
        }
        light += lt.color.rgb * atten;
    }
    vec3 radiance = albedo.rgb * light * 0.31830989 + emissive;
    imageStore(volume, t, vec4(radiance, 1.0));
}
