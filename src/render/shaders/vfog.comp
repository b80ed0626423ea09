#version 450
// vfog.comp: the volumetric fog volume of one view (fog_volume.c). Each invocation walks one
// froxel column from the camera out to `distance` metres through grid.z slices spaced
// exponentially (slice k ends at c * ((1 + D / c)^((k + 1) / S) - 1) metres along the ray). At
// each slice's middle it finds the medium (the view's height fog plus the FogVolume boxes around
// the point), lights it by the sun (through the cascaded shadow map, Henyey-Greenstein phase)
// and the sky's ambient light, and integrates front to back (the in-scattering over the slice
// taken analytically for its extinction), storing the scattered light gathered so far (rgb) and
// the transmittance (a) at the end of every slice: slice k at x + k * grid.x of the image.
// Temporal reprojection (NOTES 10: blend 0.9): each frame samples the medium at a jittered depth
// inside every slice (the middle on the first frame of a history), and before integrating blends
// the froxel's in-scattered light and extinction with last frame's value at the same world point
// (the froxel's centre through last frame's view-projection and slice spacing; none where that
// falls outside last frame's volume), after clamping last frame's value to the range of this
// frame's values over the froxel and its 3 x 3 neighbours of the same slice (the workgroup's tile
// in shared memory), so light that moved or went out does not linger as a ghost for ~20 frames.
// The blended values are this frame's history (same layout).

// The leading part of `Frame` (common.glsl, frame.h): what the fog reads.
layout(set = 0, binding = 0) uniform Frame {
    mat4 view, proj, view_proj, prev_view_proj;
    mat4 cascade_view_proj[4];
    vec4 cascade_far, cascade_texel;
    vec4 camera_pos; // xyz
    vec4 sun_dir;    // xyz toward the light, w 1 when shadows are on
    vec4 sun_color;  // rgb colour x illuminance, w 1 when there is a sun
    vec4 ambient;    // x the image-based light's intensity (WorldEnvironment.ambient)
    vec4 shadow_params; // x texel size in uv, z cascade count
    uvec4 counts;       // x light count, y 1 = clustered light lists
    vec4 cluster_params; // x slices / log(far / near), y log(near)
    vec4 jitter;
    vec4 cloud_shadow; // the cloud shadow map: xy corner world x, z (m), z 1 / size, w 1 = on
} frame;
layout(set = 0, binding = 1) uniform sampler2DArrayShadow shadow_map;
layout(set = 0, binding = 2) uniform sampler2D ibl_sh; // irradiance / pi as 9 coefficients
#include "vfog_common.glsl"

struct Box {
    mat4 box_from_world;
    vec4 color;  // rgb scattering colour x scattering x density (per metre)
    vec4 params; // x extinction (per metre), y anisotropy
};
layout(set = 0, binding = 4) readonly buffer Boxes { Box boxes[]; };
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D volume;
// Point and spot lights (common.glsl's Light, the view's clustered lists: 16 x 9 x 24 cells).
struct Light {
    vec4 pos_range; // xyz position, w range
    vec4 color;     // rgb colour x intensity
    vec4 dir_kind;  // xyz direction (spot), w 0 point / 1 spot
    vec4 cone;      // x cos(inner), y cos(outer)
};
layout(set = 0, binding = 6) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 7) readonly buffer ClusterGrid { uvec2 clusters[]; };
layout(set = 0, binding = 8) readonly buffer ClusterLights { uint cluster_lights[]; };
const uint CLUSTER_X = 16u, CLUSTER_Y = 9u, CLUSTER_Z = 24u;
// Per froxel: in-scattered light per metre (rgb) and extinction per metre (a); slices side by side.
layout(set = 0, binding = 9) uniform sampler2D history_in; // last frame's (read when temporal.y > 0)
layout(set = 0, binding = 10, rgba16f) uniform writeonly image2D history_out;
layout(set = 0, binding = 11) uniform sampler2D cloud_shadow_tex; // clouds.c (white: none)
layout(local_size_x = 8, local_size_y = 8) in;

float phase_hg(float g, float c) {
    float d = 1.0 + g * g - 2.0 * g * c;
    return (1.0 - g * g) / (12.5663706 * d * sqrt(d));
}

// The sun's visibility at world point p (1 outside the cascades or without shadows).
float sun_visibility(vec3 p) {
    if (frame.sun_dir.w == 0.0)
        return 1.0;
    float vd = -(frame.view * vec4(p, 1.0)).z;
    int count = int(frame.shadow_params.z);
    if (count <= 0 || vd > frame.cascade_far[count - 1])
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

// The share of the sun's light the clouds let through to p (common.glsl's cloud_shadow).
float cloud_shadow(vec3 p) {
    if (frame.cloud_shadow.w == 0.0)
        return 1.0;
    vec3 s = normalize(frame.sun_dir.xyz);
    vec2 ground = p.xz - s.xz * (p.y / max(s.y, 0.05));
    vec2 uv = (ground - frame.cloud_shadow.xy) * frame.cloud_shadow.z;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))))
        return 1.0;
    return textureLod(cloud_shadow_tex, uv, 0.0).r;
}

// The light of the view's point and spot lights reaching world point p (its view depth vd, its
// place uv on the screen), times the phase toward the camera along dir.
vec3 local_lights(vec3 p, float vd, vec2 uv, vec3 dir, float g) {
    uint first = 0u, count = frame.counts.x;
    bool clustered = frame.counts.y == 1u;
    if (clustered) {
        uint tx = min(uint(uv.x * float(CLUSTER_X)), CLUSTER_X - 1u);
        uint ty = min(uint(uv.y * float(CLUSTER_Y)), CLUSTER_Y - 1u);
        float sl = (log(max(vd, 1e-4)) - frame.cluster_params.y) * frame.cluster_params.x;
        uint tz = uint(clamp(sl, 0.0, float(CLUSTER_Z - 1u)));
        uvec2 cell = clusters[(tz * CLUSTER_Y + ty) * CLUSTER_X + tx];
        first = cell.x;
        count = cell.y;
    }
    vec3 sum = vec3(0.0);
    for (uint k = 0u; k < count; k++) {
        Light lt = lights[clustered ? cluster_lights[first + k] : k];
        vec3 to = lt.pos_range.xyz - p;
        float d2 = max(dot(to, to), 1e-4);
        vec3 l = to * inversesqrt(d2);
        float r = lt.pos_range.w;
        float win = clamp(1.0 - (d2 * d2) / (r * r * r * r), 0.0, 1.0);
        float atten = win * win / d2;
        if (lt.dir_kind.w > 0.5)
            atten *= smoothstep(lt.cone.y, lt.cone.x, dot(-l, normalize(lt.dir_kind.xyz)));
        sum += lt.color.rgb * atten * phase_hg(g, dot(l, dir));
    }
    return sum;
}

// Where in slice k the medium is sampled this frame (0..1 of the slice): the middle on a history's
// first frame, then a golden-ratio sequence offset per froxel column (interleaved gradient noise),
// so banding between slices becomes noise that the history averages away.
float slice_jitter(uvec2 g) {
    if (vf.temporal.x == 0.0)
        return 0.5;
    float ign = fract(52.9829189 * fract(0.06711056 * float(g.x) + 0.00583715 * float(g.y)));
    return fract(0.5 + vf.temporal.x * 0.618034 + ign);
}

// Last frame's froxel values at world point p (false where p was outside last frame's volume).
// This frame's froxel values of the workgroup's 8 x 8 columns at the slice being walked, and
// whether each column is inside the grid (the neighbourhood clamp reads them).
shared vec4 tile_cur[8][8];
shared bool tile_in[8][8];

// The smallest and largest of this frame's values over the 3 x 3 columns around lid that lie in
// the tile and the grid (the column's own value included).
void tile_range(uvec2 lid, out vec4 lo, out vec4 hi) {
    lo = tile_cur[lid.y][lid.x];
    hi = lo;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            ivec2 n = ivec2(lid) + ivec2(dx, dy);
            if (any(lessThan(n, ivec2(0))) || any(greaterThan(n, ivec2(7))) || !tile_in[n.y][n.x])
                continue;
            lo = min(lo, tile_cur[n.y][n.x]);
            hi = max(hi, tile_cur[n.y][n.x]);
        }
    }
}

bool history_at(vec3 p, out vec4 h) {
    h = vec4(0.0);
    vec4 c = vf.prev_view_proj * vec4(p, 1.0);
    if (c.w <= 1e-6)
        return false;
    vec2 uv = vec2(c.x / c.w * 0.5 + 0.5, 0.5 - c.y / c.w * 0.5); // viewports are y-flipped
    float d = length(p - vf.prev_camera.xyz);
    float S = float(vf.grid.z);
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || d > vf.prev_camera.w)
        return false;
    // Continuous slice coordinate of d last frame; texel k holds slice k's centre (k + 0.5).
    float s = clamp(S * log(1.0 + d / vf.slice.z) / vf.slice.w - 0.5, 0.0, S - 1.0);
    int k0 = int(s);
    int k1 = min(k0 + 1, int(S) - 1);
    float w = float(vf.grid.x);
    vec2 size = vec2(textureSize(history_in, 0));
    float x = clamp(uv.x * w, 0.5, w - 0.5);
    float y = clamp(uv.y * float(vf.grid.y), 0.5, float(vf.grid.y) - 0.5) / size.y;
    vec4 a = textureLod(history_in, vec2((x + float(k0) * w) / size.x, y), 0.0);
    vec4 b = textureLod(history_in, vec2((x + float(k1) * w) / size.x, y), 0.0);
    h = mix(a, b, s - float(k0));
    return all(equal(h, h)); // NaN-free
}

void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    uvec2 lid = gl_LocalInvocationID.xy;
    // Columns outside the grid walk the slices too (the clamp's barriers need the whole
    // workgroup) but store nothing.
    bool inside = g.x < vf.grid.x && g.y < vf.grid.y;
    tile_in[lid.y][lid.x] = inside;
    vec2 ndc = (vec2(g) + 0.5) / vec2(vf.grid.xy) * 2.0 - 1.0;
    ndc.y = -ndc.y; // viewports are y-flipped
    vec4 a = vf.inv_view_proj * vec4(ndc, 0.0, 1.0);
    vec4 b = vf.inv_view_proj * vec4(ndc, 1.0, 1.0);
    vec3 dir = normalize(b.xyz / b.w - a.xyz / a.w);
    vec3 cam = vf.camera.xyz;
    vec3 to_sun = normalize(frame.sun_dir.xyz);
    float cos_sun = dot(dir, to_sun);
    bool sun = frame.sun_color.w > 0.0;
    // The sky's mean radiance: the harmonics' constant term (a uniform sky of radiance L gives L).
    vec3 ambient = texelFetch(ibl_sh, ivec2(0, 0), 0).rgb * 0.282095 * frame.ambient.x *
                   vf.color.w;
    vec3 L = vec3(0.0);
    float T = 1.0;
    float t0 = 0.0;
    uint S = vf.grid.z;
    float jit = slice_jitter(g);
    bool temporal = vf.temporal.y > 0.0;
    for (uint k = 0u; k < S; k++) {
        float t1 = vfog_slice_end(float(k + 1u));
        float dt = t1 - t0;
        vec3 p = cam + dir * mix(t0, t1, jit);
        vec4 cur = vec4(0.0); // in-scattered light per metre, extinction per metre
        // The view's fog: density falling with height above y = 0.
        float dens = vf.medium.x * exp(-vf.medium.w * max(p.y, 0.0));
        vec3 scat = dens * vf.medium.y * vf.color.rgb;
        float ext = dens;
        float gsum = vf.medium.z * dens * vf.medium.y;
        float ssum = dens * vf.medium.y;
        for (uint i = 0u; i < vf.grid.w; i++) {
            vec3 q = (boxes[i].box_from_world * vec4(p, 1.0)).xyz;
            if (all(lessThanEqual(abs(q), vec3(0.5)))) {
                scat += boxes[i].color.rgb;
                ext += boxes[i].params.x;
                float s = dot(boxes[i].color.rgb, vec3(1.0 / 3.0));
                gsum += boxes[i].params.y * s;
                ssum += s;
            }
        }
        if (ext > 0.0 && inside) {
            float gp = ssum > 0.0 ? clamp(gsum / ssum, -0.95, 0.95) : 0.0;
            vec3 light = ambient;
            if (sun)
                light += frame.sun_color.rgb * phase_hg(gp, cos_sun) * sun_visibility(p) *
                         cloud_shadow(p);
            if (frame.counts.x > 0u) {
                vec2 uv = (vec2(g) + 0.5) / vec2(vf.grid.xy);
                light += local_lights(p, -(frame.view * vec4(p, 1.0)).z, uv, dir, gp);
            }
            cur = vec4(min(scat * light, vec3(60000.0)), ext);
        }
        vec4 h;
        if (temporal) {
            tile_cur[lid.y][lid.x] = cur;
            barrier();
            vec4 lo, hi;
            tile_range(lid, lo, hi);
            barrier(); // every column has read the tile before the next slice writes it
            if (history_at(cam + dir * vfog_slice_end(float(k) + 0.5), h))
                cur = mix(cur, clamp(h, lo, hi), vf.temporal.y);
        }
        if (!inside)
            continue;
        ivec2 at = ivec2(g.x + k * vf.grid.x, g.y);
        imageStore(history_out, at, min(cur, vec4(60000.0)));
        if (cur.a > 0.0) {
            float st = exp(-cur.a * dt);
            L += T * cur.rgb * ((1.0 - st) / cur.a);
            T *= st;
        }
        imageStore(volume, at, vec4(L, T));
        t0 = t1;
    }
}
