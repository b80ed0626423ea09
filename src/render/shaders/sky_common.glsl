// sky_common.glsl: the physical atmosphere the sky shaders share (after Hillaire 2020): the
// atmosphere's settings block, the medium (Rayleigh, Mie, ozone) at an altitude, the phase
// functions, ray-sphere distances, the look-up tables' parameterisations (transmittance 256 x 64
// over (altitude, view zenith); multiple scattering 32 x 32 over (sun zenith, altitude); sky view
// 192 x 108 over (azimuth from the sun, view zenith, denser near the horizon)) and the march that
// integrates scattered light along a ray. Lengths are kilometres, positions planet-centred (the
// camera at (0, ground + altitude, 0), world +Y up). Radiance is per unit sun illuminance: the
// passes multiply by `sun_radiance` (the sun light's colour times illuminance).
//
// The includer defines SKY_BINDING, the set 0 binding of the settings block.
const float SKY_PI = 3.14159265359;

layout(set = 0, binding = SKY_BINDING) uniform Atmo {
    vec4 radii;        // x ground radius, y top radius, z camera altitude, w sun angular radius (rad)
    vec4 rayleigh;     // rgb scattering per km, w scale height km
    vec4 mie;          // x scattering per km, y absorption per km, z scale height km, w phase g
    vec4 ozone;        // rgb absorption per km, w centre altitude km
    vec4 ozone_width;  // x ozone half width km, y stars' brightness, z twinkle time (s; < 0 still),
                       // w 1 = Clouds (clouds.c) over the sky
    vec4 albedo;       // rgb ground albedo
    vec4 sun_dir;      // xyz toward the sun (unit), w 1 with a sun
    vec4 sun_radiance; // rgb the sun light's colour x illuminance, w 1 = raymarched sky
} atmo;

// Scattering of Rayleigh (rgb) and Mie, and the extinction, at altitude h (km).
void sky_medium(float h, out vec3 scat_r, out float scat_m, out vec3 ext) {
    h = max(h, 0.0);
    float rd = exp(-h / atmo.rayleigh.w);
    float md = exp(-h / atmo.mie.z);
    float od = max(0.0, 1.0 - abs(h - atmo.ozone.w) / atmo.ozone_width.x);
    scat_r = atmo.rayleigh.rgb * rd;
    scat_m = atmo.mie.x * md;
    ext = scat_r + (atmo.mie.x + atmo.mie.y) * md + atmo.ozone.rgb * od;
}

float sky_phase_rayleigh(float c) {
    return 3.0 / (16.0 * SKY_PI) * (1.0 + c * c);
}

// Henyey-Greenstein with the settings' g.
float sky_phase_mie(float c) {
    float g = atmo.mie.w;
    float k = 1.0 + g * g - 2.0 * g * c;
    return (1.0 - g * g) / (4.0 * SKY_PI * k * sqrt(max(k, 1e-6)));
}

// The nearest distance > 0 along unit d from p to the sphere of radius R about the planet's
// centre, or -1 when the ray misses it.
float sky_ray_sphere(vec3 p, vec3 d, float R) {
    float b = dot(p, d);
    float c = dot(p, p) - R * R;
    float disc = b * b - c;
    if (disc < 0.0)
        return -1.0;
    float s = sqrt(disc);
    if (-b - s > 0.0)
        return -b - s;
    return -b + s > 0.0 ? -b + s : -1.0;
}

// Transmittance table: uv in [0, 1]^2 (texel centres at the ends) <-> (radius r, cosine mu of
// the view zenith), Bruneton's mapping (distance to the top along the ray, horizon distance).
vec2 sky_trans_uv(float r, float mu) {
    float rg = atmo.radii.x, rt = atmo.radii.y;
    float H = sqrt(max(rt * rt - rg * rg, 1e-6));
    float rho = sqrt(max(r * r - rg * rg, 0.0));
    float d = max(-r * mu + sqrt(max(r * r * (mu * mu - 1.0) + rt * rt, 0.0)), 0.0);
    float dmin = rt - r, dmax = rho + H;
    return vec2(clamp((d - dmin) / max(dmax - dmin, 1e-6), 0.0, 1.0), clamp(rho / H, 0.0, 1.0));
}

void sky_trans_rmu(vec2 uv, out float r, out float mu) {
    float rg = atmo.radii.x, rt = atmo.radii.y;
    float H = sqrt(max(rt * rt - rg * rg, 1e-6));
    float rho = H * uv.y;
    r = sqrt(rho * rho + rg * rg);
    float dmin = rt - r, dmax = rho + H;
    float d = dmin + uv.x * (dmax - dmin);
    mu = d <= 0.0 ? 1.0 : clamp((H * H - rho * rho - d * d) / (2.0 * r * d), -1.0, 1.0);
}

// uv in [0, 1] with the end texels' centres at 0 and 1.
vec2 sky_lut_coord(vec2 uv, vec2 size) {
    return (uv * (size - 1.0) + 0.5) / size;
}

vec3 sky_transmittance(sampler2D lut, float r, float mu) {
    vec2 size = vec2(textureSize(lut, 0));
    return textureLod(lut, sky_lut_coord(sky_trans_uv(r, mu), size), 0.0).rgb;
}

// Multiple scattering table: u = sun zenith cosine (-1..1), v = altitude over the shell.
vec3 sky_multiscatter(sampler2D lut, float r, float mu_s) {
    vec2 size = vec2(textureSize(lut, 0));
    float h = (r - atmo.radii.x) / (atmo.radii.y - atmo.radii.x);
    vec2 uv = vec2(clamp(mu_s * 0.5 + 0.5, 0.0, 1.0), clamp(h, 0.0, 1.0));
    return textureLod(lut, sky_lut_coord(uv, size), 0.0).rgb;
}

// Sky view table: u = sqrt(azimuth from the sun / pi), v: the zenith angle, the upper half of
// the table above the horizon of a viewer at radius r and the lower half below it, both denser
// toward the horizon.
vec2 sky_view_uv(float r, float cos_zenith, float cos_azimuth) {
    float rg = atmo.radii.x;
    float beta = acos(clamp(sqrt(max(r * r - rg * rg, 0.0)) / r, -1.0, 1.0));
    float zha = SKY_PI - beta; // zenith angle of the horizon
    float z = acos(clamp(cos_zenith, -1.0, 1.0));
    float v = z < zha ? 0.5 * (1.0 - sqrt(max(1.0 - z / zha, 0.0)))
                      : 0.5 + 0.5 * sqrt(clamp((z - zha) / max(beta, 1e-4), 0.0, 1.0));
    float u = sqrt(acos(clamp(cos_azimuth, -1.0, 1.0)) / SKY_PI);
    return vec2(u, v);
}

void sky_view_angles(vec2 uv, float r, out float zenith, out float azimuth) {
    float rg = atmo.radii.x;
    float beta = acos(clamp(sqrt(max(r * r - rg * rg, 0.0)) / r, -1.0, 1.0));
    float zha = SKY_PI - beta;
    if (uv.y < 0.5) {
        float c = 1.0 - 2.0 * uv.y;
        zenith = zha * (1.0 - c * c);
    } else {
        float c = 2.0 * uv.y - 1.0;
        zenith = zha + beta * c * c;
    }
    azimuth = uv.x * uv.x * SKY_PI;
}

// The cosine of the azimuth between world direction d and the sun (1 when either is vertical).
float sky_cos_azimuth(vec3 d, vec3 sun) {
    vec2 a = d.xz, b = sun.xz;
    float la = length(a), lb = length(b);
    return la > 1e-5 && lb > 1e-5 ? dot(a, b) / (la * lb) : 1.0;
}

// Radius of the camera: the ground plus its altitude.
float sky_camera_radius(float altitude_km) {
    return atmo.radii.x + clamp(altitude_km, 0.001, atmo.radii.y - atmo.radii.x - 0.01);
}

// The scattered light (per unit sun illuminance, rgb) and transmittance (rgb, returned in t_out)
// along the ray from p (planet-centred) along unit d for t_max km in `steps` steps spaced more
// densely near p; `ms`: with the multiple scattering table.
vec3 sky_march(sampler2D trans_lut, sampler2D ms_lut, bool ms, vec3 p, vec3 d, vec3 sun,
               float t_max, int steps, out vec3 t_out) {
    vec3 L = vec3(0.0), T = vec3(1.0);
    float c = dot(d, sun);
    float pr = sky_phase_rayleigh(c), pm = sky_phase_mie(c);
    float t_prev = 0.0;
    for (int i = 0; i < steps; i++) {
        float f = (float(i) + 1.0) / float(steps);
        float t = t_max * f * f;
        float dt = t - t_prev;
        vec3 q = p + d * (t_prev + 0.5 * dt);
        t_prev = t;
        float r = length(q);
        vec3 up = q / r;
        vec3 sr, ext;
        float sm;
        sky_medium(r - atmo.radii.x, sr, sm, ext);
        float mu_s = dot(up, sun);
        float lit = sky_ray_sphere(q, sun, atmo.radii.x) > 0.0 ? 0.0 : 1.0;
        vec3 ts = sky_transmittance(trans_lut, r, mu_s);
        vec3 S = lit * ts * (sr * pr + sm * pm);
        if (ms)
            S += sky_multiscatter(ms_lut, r, mu_s) * (sr + sm);
        vec3 step_t = exp(-ext * dt);
        L += T * (S - S * step_t) / max(ext, vec3(1e-7));
        T *= step_t;
    }
    t_out = T;
    return L;
}

// How far a ray from p along d travels in the atmosphere: to the ground when it meets it, else
// to the top.
float sky_ray_length(vec3 p, vec3 d) {
    float tg = sky_ray_sphere(p, d, atmo.radii.x);
    if (tg > 0.0)
        return tg;
    return max(sky_ray_sphere(p, d, atmo.radii.y), 0.0);
}

// The sky view table's radiance (per unit sun illuminance) toward world direction d.
vec3 sky_view_radiance(sampler2D view_lut, float r, vec3 d, vec3 sun) {
    vec2 size = vec2(textureSize(view_lut, 0));
    vec2 uv = sky_view_uv(r, d.y, sky_cos_azimuth(d, sun));
    return textureLod(view_lut, sky_lut_coord(uv, size), 0.0).rgb;
}

// The aerial perspective volume: AP_SLICES slices of AP_SIZE x AP_SIZE texels laid side by side
// in one 2D image (slice k at x in [k * AP_SIZE, (k + 1) * AP_SIZE)); slice k holds the light
// scattered toward the camera (rgb) and the mean transmittance (a) over the first (k + 1) *
// AP_KM_PER_SLICE km of the ray through its texel.
const int AP_SIZE = 32;
const int AP_SLICES = 32;
const float AP_KM_PER_SLICE = 1.0;
