// ibl_common.glsl: what the image-based lighting shaders share: the cube face convention, GGX
// importance sampling and the order-2 spherical harmonics basis.
const float IBL_PI = 3.14159265359;

// Direction of texel coordinate uv in [0, 1]^2 (u right, v down) of cube face `face` in Vulkan's
// order +X, -X, +Y, -Y, +Z, -Z (the face a direction selects by its major axis). Not normalized.
vec3 ibl_cube_dir(int face, vec2 uv) {
    vec2 p = uv * 2.0 - 1.0;
    if (face == 0) return vec3(1.0, -p.y, -p.x);
    if (face == 1) return vec3(-1.0, -p.y, p.x);
    if (face == 2) return vec3(p.x, 1.0, p.y);
    if (face == 3) return vec3(p.x, -1.0, -p.y);
    if (face == 4) return vec3(p.x, -p.y, 1.0);
    return vec3(-p.x, -p.y, -1.0);
}

// Solid angle of texel (x, y) of a face `size` texels wide (exact, from the area element of the
// face plane projected onto the unit sphere).
float ibl_area(float x, float y) {
    return atan(x * y, sqrt(x * x + y * y + 1.0));
}
float ibl_texel_solid_angle(vec2 texel, float size) {
    float inv = 1.0 / size;
    vec2 a = (texel * inv) * 2.0 - 1.0;
    vec2 b = ((texel + 1.0) * inv) * 2.0 - 1.0;
    return abs(ibl_area(a.x, a.y) - ibl_area(a.x, b.y) - ibl_area(b.x, a.y) + ibl_area(b.x, b.y));
}

// The i-th of n points of the Hammersley set (a radical inverse in base 2).
vec2 ibl_hammersley(uint i, uint n) {
    uint b = i;
    b = (b << 16u) | (b >> 16u);
    b = ((b & 0x55555555u) << 1u) | ((b & 0xAAAAAAAAu) >> 1u);
    b = ((b & 0x33333333u) << 2u) | ((b & 0xCCCCCCCCu) >> 2u);
    b = ((b & 0x0F0F0F0Fu) << 4u) | ((b & 0xF0F0F0F0u) >> 4u);
    b = ((b & 0x00FF00FFu) << 8u) | ((b & 0xFF00FF00u) >> 8u);
    return vec2(float(i) / float(n), float(b) * 2.3283064365386963e-10);
}

// A half vector drawn from the GGX distribution of roughness alpha a, around normal n.
vec3 ibl_ggx_sample(vec2 xi, vec3 n, float a) {
    float phi = 2.0 * IBL_PI * xi.x;
    float cos_t = sqrt((1.0 - xi.y) / (1.0 + (a * a - 1.0) * xi.y));
    float sin_t = sqrt(max(1.0 - cos_t * cos_t, 0.0));
    vec3 h = vec3(cos(phi) * sin_t, sin(phi) * sin_t, cos_t);
    vec3 up = abs(n.z) < 0.999 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
    vec3 t = normalize(cross(up, n));
    vec3 b = cross(n, t);
    return normalize(t * h.x + b * h.y + n * h.z);
}

float ibl_d_ggx(float noh, float a) {
    float a2 = a * a;
    float f = noh * noh * (a2 - 1.0) + 1.0;
    return a2 / (IBL_PI * f * f);
}

// The 9 real spherical harmonics of bands 0..2 at unit direction d.
void ibl_sh_basis(vec3 d, out float y[9]) {
    y[0] = 0.282095;
    y[1] = 0.488603 * d.y;
    y[2] = 0.488603 * d.z;
    y[3] = 0.488603 * d.x;
    y[4] = 1.092548 * d.x * d.y;
    y[5] = 1.092548 * d.y * d.z;
    y[6] = 0.315392 * (3.0 * d.z * d.z - 1.0);
    y[7] = 1.092548 * d.x * d.z;
    y[8] = 0.546274 * (d.x * d.x - d.y * d.y);
}
