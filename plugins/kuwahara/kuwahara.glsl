layout(set = 0, binding = 2) uniform Settings {
    float radius;
} settings;

// Each output pixel takes the mean of whichever of its four (radius+1)^2 quadrants varies least.
vec4 rill_effect(vec2 uv, vec4 color) {
    int r = int(clamp(settings.radius, 1.0, 8.0));
    vec3 best = color.rgb;
    float best_var = 1e9;
    for (int k = 0; k < 4; k++) {
        ivec2 dir = ivec2(k & 1, k >> 1) * 2 - 1;
        vec3 sum = vec3(0.0), sum2 = vec3(0.0);
        for (int j = 0; j <= r; j++) {
            for (int i = 0; i <= r; i++) {
                vec3 c = rill_sample(uv + vec2(ivec2(i, j) * dir) * rill_frame.inv_size).rgb;
                sum += c;
                sum2 += c * c;
            }
        }
        float n = float((r + 1) * (r + 1));
        vec3 mean = sum / n;
        vec3 var = sum2 / n - mean * mean;
        float v = var.r + var.g + var.b;
        if (v < best_var) {
            best_var = v;
            best = mean;
        }
    }
    return vec4(best, 1.0);
}
