// vfog_common.glsl: the settings block of the volumetric fog passes (fog_volume.c, vfog_block)
// and the spacing of its slices: slice k ends at c * ((1 + D / c)^((k + 1) / S) - 1) metres
// along the ray (c = slice.x, log(1 + D / c) = slice.y), so near slices are short. The `prev_*`
// members describe last frame's volume (the history vfog.comp reprojects into).
layout(set = 0, binding = 3) uniform VolumetricFog {
    mat4 inv_view_proj;
    mat4 prev_view_proj; // last frame's view-projection of this view
    vec4 camera;      // xyz world position, w distance (metres)
    vec4 medium;      // x density, y scattering albedo, z anisotropy, w height falloff
    vec4 color;       // rgb tint of the scattered light, w ambient intensity
    uvec4 grid;       // froxels across, down, slices; w boxes
    vec4 slice;       // x c (metres), y log(1 + D / c); z, w the same last frame
    vec4 prev_camera; // xyz last frame's camera, w last frame's distance
    vec4 temporal;    // x frames since the history restarted, y weight of the history (0: none)
} vf;

// Metres along the ray where the continuous slice coordinate u (0..S) lies.
float vfog_slice_end(float u) {
    return vf.slice.x * (exp(vf.slice.y * u / float(vf.grid.z)) - 1.0);
}

// The continuous slice coordinate (0..S) of a distance d along the ray.
float vfog_slice_of(float d) {
    return float(vf.grid.z) * log(1.0 + d / vf.slice.x) / vf.slice.y;
}
