// water_ssr.glsl: the screen-space reflection both waters share (ocean_draw.comp, water.comp):
// the distance of the opaque surface at a pixel and the march of a reflected ray against the
// depth image. The includer declares `frame` (view_proj), depth_tex, scene_tex (a copy of the lit
// image before the water) and push constants `pc` with inv_view_proj and ssr (x intensity, y
// thickness in metres, z steps).

// World distance from the camera of the opaque surface at pixel q (1e30: the sky).
float scene_distance(ivec2 q, ivec2 size, vec3 cam) {
    float z = texelFetch(depth_tex, q, 0).r;
    if (z >= 1.0)
        return 1e30;
    vec2 ndc = (vec2(q) + 0.5) / vec2(size) * 2.0 - 1.0;
    ndc.y = -ndc.y; // viewports are y-flipped
    vec4 w = pc.inv_view_proj * vec4(ndc, z, 1.0);
    return length(w.xyz / w.w - cam);
}

// Screen-space reflection: the ray from world point x along unit r, pc.ssr.z steps spaced
// quadratically over 400 m, against the depth image. rgb the surface it meets (from the copy of
// the lit image), a how much to trust it (0: nothing met, less near the screen's edges).
vec4 trace_reflection(vec3 x, vec3 r, ivec2 size, vec3 cam) {
    int steps = int(pc.ssr.z);
    float prev = 0.0;
    for (int i = 1; i <= steps; i++) {
        float s = 400.0 * pow(float(i) / float(steps), 2.0);
        vec3 q = x + r * s;
        vec4 c = frame.view_proj * vec4(q, 1.0);
        if (c.w <= 1e-4)
            break;
        vec2 uv = vec2(c.x / c.w * 0.5 + 0.5, 0.5 - c.y / c.w * 0.5);
        if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))))
            break;
        ivec2 px = min(ivec2(uv * vec2(size)), size - 1);
        float d_scene = scene_distance(px, size, cam), d_ray = length(q - cam);
        if (d_ray > d_scene && d_ray - d_scene < max(pc.ssr.y, (s - prev) * 1.5)) {
            vec2 e = min(uv, vec2(1.0) - uv);
            float edge = smoothstep(0.0, 0.08, min(e.x, e.y));
            return vec4(textureLod(scene_tex, uv, 0.0).rgb, edge);
        }
        prev = s;
    }
    return vec4(0.0);
}
