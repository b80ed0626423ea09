layout(set = 0, binding = 2) uniform Settings {
    float streak;
    float threshold;
} settings;

// Averages the image back along the pixel's own motion (this frame's motion vector, UV units).
vec4 rill_effect(vec2 uv, vec4 color) {
    vec2 m = rill_motion(uv) * settings.streak;
    if (length(m * rill_frame.size) < settings.threshold) {
        return color;
    }
    vec3 sum = vec3(0.0);
    for (int i = 0; i < 12; i++) {
        sum += rill_sample(clamp(uv - m * (float(i) / 11.0), vec2(0.0), vec2(1.0))).rgb;
    }
    return vec4(sum / 12.0, 1.0);
}
