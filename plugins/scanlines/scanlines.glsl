layout(set = 0, binding = 2) uniform Settings {
    float line_count;
    float strength;
    float sharpness;
    float roll_speed;
    float flicker;
} settings;

vec4 rill_effect(vec2 uv, vec4 color) {
    float line = pow(0.5 + 0.5 * cos(uv.y * settings.line_count * 6.2831853), settings.sharpness);
    float band = fract(uv.y - rill_frame.time * settings.roll_speed);
    float roll = 1.0 + 0.08 * smoothstep(0.0, 0.1, band) * smoothstep(0.25, 0.1, band);
    float flick = 1.0 - settings.flicker * fract(sin(float(rill_frame.frame) * 12.9898) * 43758.55);
    return vec4(clamp(color.rgb * (1.0 - settings.strength * line) * roll * flick, 0.0, 1.0), 1.0);
}
